import CatalogModel
import CatalogStore
import PostgresNIO

/// The part of a catalogue a write has read from PostgreSQL, as a ``CatalogSource`` for the
/// editor: the sections it named and the sections of the items it named, with their items.
///
/// The editor reads synchronously and the database answers asynchronously, so a read of
/// something not loaded yet throws ``Miss``; the store loads it and runs the edit again from the
/// start (``PostgresCatalogStore/edit(_:with:catalogPK:revision:on:)``). What a batch names is
/// loaded before its first run, in one query, so a move runs once.
struct PostgresCatalogSource: CatalogSource {
    /// Something the edit asked for that is not loaded yet.
    enum Miss: Error {
        case section(String)
        case item(String)
        case position(Int)
        case order
    }

    struct LoadedSection {
        var section: Section
        var position: Int
        /// The order key of each item, by id.
        var keys: [String: Int64]
    }

    let catalogPK: Int64
    let revision: Int
    private(set) var sections: [String: LoadedSection] = [:]
    private var idsAtPositions: [Int: String] = [:]
    private var itemSections: [String: String] = [:]
    private var absentSections: Set<String> = []
    private var absentItems: Set<String> = []
    private var absentPositions: Set<Int> = []
    private var order: [String]?

    init(catalogPK: Int64, revision: Int) {
        self.catalogPK = catalogPK
        self.revision = revision
    }

    func section(id: String) throws -> (section: Section, position: Int)? {
        if let loaded = sections[id] { return (loaded.section, loaded.position) }
        if absentSections.contains(id) { return nil }
        throw Miss.section(id)
    }

    func section(at position: Int) throws -> Section? {
        if let id = order.map({ position >= 0 && position < $0.count ? $0[position] : nil }) ?? idsAtPositions[position] {
            guard let loaded = sections[id] else { throw Miss.section(id) }
            return loaded.section
        }
        if order != nil || absentPositions.contains(position) { return nil }
        throw Miss.position(position)
    }

    func sectionID(ofItem id: String) throws -> String? {
        if let section = itemSections[id] { return section }
        if absentItems.contains(id) { return nil }
        throw Miss.item(id)
    }

    func sectionOrder() throws -> [String] {
        guard let order else { throw Miss.order }
        return order
    }

    /// The order key item `id` has in section `section` before the edit, if it was there.
    func key(of id: String, inSection section: String) -> Int64? {
        sections[section]?.keys[id]
    }

    // MARK: Loading

    /// What a batch names: sections by id and the sections of items by id; the section order
    /// when it has a section operation.
    static func prefetch(for batch: Batch) -> (sections: [String], items: [String], order: Bool) {
        var sections: [String] = []
        var items: [String] = []
        var order = false
        for operation in batch.operations {
            switch operation {
            case .insertItem(let section, _, let item):
                sections.append(section)
                items.append(item.id)
            case .deleteItem(let id), .updateItem(let id, _):
                items.append(id)
            case .moveItem(let id, let toSection, _, _):
                items.append(id)
                sections.append(toSection)
            case .insertSection(_, let section):
                sections.append(section.id)
                items += section.items.map(\.id)
                order = true
            case .deleteSection(let id), .moveSection(let id, _), .updateSection(let id, _):
                sections.append(id)
                order = order || operation.changesSections
            }
        }
        return (sections, items, order)
    }

    /// Loads the sections named, the sections at the positions, and the sections holding the
    /// items named, with all their items, in one query; remembers what is not there.
    mutating func load(sections wanted: [String], positions: [Int] = [], items: [String],
                       on connection: PostgresConnection, logger: Logger) async throws {
        let wantedSections = wanted.filter { sections[$0] == nil && !absentSections.contains($0) }
        let wantedItems = items.filter { itemSections[$0] == nil && !absentItems.contains($0) }
        let wantedPositions = positions.filter { idsAtPositions[$0] == nil && !absentPositions.contains($0) }
        if wantedSections.isEmpty && wantedItems.isEmpty && wantedPositions.isEmpty { return }
        let rows = try await connection.query("""
            SELECT s.id, s.kind, s.title, s.capacity, s.position, i.position, \(unescaped: ItemRows.columns("i"))
            FROM section s LEFT JOIN item i ON i.section_pk = s.pk
            WHERE s.catalog_pk = \(catalogPK) AND (s.id = ANY(\(wantedSections)) OR s.position = ANY(\(wantedPositions.map(Int32.init)))
                OR s.pk IN (SELECT section_pk FROM item WHERE catalog_pk = \(catalogPK) AND id = ANY(\(wantedItems))))
            ORDER BY s.position, i.position
            """, logger: logger)
        var current: String?
        for try await row in rows {
            let row = row.makeRandomAccess()
            let id = try row[0].decode(String.self)
            if id != current {
                current = id
                let section = try PostgresCatalogStore.section(row, at: 0)
                let position = Int(try row[4].decode(Int32.self))
                sections[id] = LoadedSection(section: section, position: position, keys: [:])
                idsAtPositions[position] = id
            }
            guard let key = try row[5].decode(Int64?.self) else { continue }
            let item = try ItemRows.item(row, at: 6)
            sections[id]!.section.items.append(item)
            sections[id]!.keys[item.id] = key
            itemSections[item.id] = id
        }
        for id in wantedSections where sections[id] == nil { absentSections.insert(id) }
        for id in wantedItems where itemSections[id] == nil { absentItems.insert(id) }
        for position in wantedPositions where idsAtPositions[position] == nil { absentPositions.insert(position) }
    }

    /// Loads the section order (ids only).
    mutating func loadOrder(on connection: PostgresConnection, logger: Logger) async throws {
        guard order == nil else { return }
        var ids: [String] = []
        let rows = try await connection.query("SELECT id FROM section WHERE catalog_pk = \(catalogPK) ORDER BY position", logger: logger)
        for try await id in rows.decode(String.self) { ids.append(id) }
        order = ids
    }

    /// Loads what `miss` asked for.
    mutating func load(_ miss: Miss, on connection: PostgresConnection, logger: Logger) async throws {
        switch miss {
        case .section(let id): try await load(sections: [id], items: [], on: connection, logger: logger)
        case .item(let id): try await load(sections: [], items: [id], on: connection, logger: logger)
        case .position(let position): try await load(sections: [], positions: [position], items: [], on: connection, logger: logger)
        case .order: try await loadOrder(on: connection, logger: logger)
        }
    }
}
