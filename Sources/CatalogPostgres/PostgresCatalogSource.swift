import CatalogModel
import CatalogStoreCore
import PostgresNIO

/// The part of a catalogue a write has read from PostgreSQL, as a ``CatalogSource`` for the
/// editor: the sections it named and the sections of the items it named, with their items.
///
/// The editor reads synchronously and the database answers asynchronously, so a read of
/// something not loaded yet throws ``Miss``; the store loads it and runs the edit again from the
/// start (``PostgresCatalogStore/edit(_:with:catalogPK:revision:on:)``). What a batch names is
/// loaded before its first run, in one query, so a move runs once.
///
/// Each loaded section comes with its row key and version, and the source notes what the edits
/// read (``reads``): a combined write checks, as it commits, that what each batch read is still
/// so (``PostgresCatalogStore/writeItems(_:to:)``).
struct PostgresCatalogSource: CatalogSource {
    /// A load found an item where an earlier load did not find it: another instance wrote in
    /// between, which is possible only when the catalogue's row is not locked.
    struct StaleRead: Error {}

    /// A read found no catalogue at ``catalogPK``: it was deleted.
    struct CatalogueGone: Error {}

    /// What edits read through the source since ``reads`` was last cleared.
    struct Reads {
        /// Sections read by id, position or as an item's section, whether or not they exist.
        var sections: Set<String> = []
        /// Items read that no section holds.
        var absentItems: Set<String> = []
        /// Whether an edit read the section order or found no section at a position: what it
        /// read then depends on every section, not on the ones it names.
        var order = false
    }

    /// Something the edit asked for that is not loaded yet.
    enum Miss: Error {
        case section(String)
        case item(String)
        case position(Int)
        case order
    }

    struct LoadedSection {
        /// The section as the edits so far left it (as stored, before any).
        var section: Section
        var position: Int
        /// The section as stored.
        var stored: Section
        /// The order key of each item stored in the section, by id.
        var keys: [String: Int64]
        /// The section's row key and its version as loaded (raised by every write that
        /// changes the section).
        var pk: Int64
        var version: Int64
    }

    let catalogPK: Int64
    /// The revision of what is stored, as the first load found it when the source was made
    /// without it. Loads made while the catalogue's row is locked are all of this revision;
    /// without the lock, later loads may be of later states, and the write checks the versions
    /// of what it read instead.
    private(set) var storedRevision: Int?
    /// What the edits read; the caller clears it between batches.
    var reads = Reads()
    /// Items a load asked for that the database did not hold (``absentItems`` also holds those
    /// the edits deleted).
    private(set) var absentInDatabase: Set<String> = []
    /// How many loads read from the database.
    private(set) var loads = 0
    /// How many edits ``absorb(_:)`` took in.
    private var absorbed = 0
    /// The revision the edits so far reached.
    var revision: Int { (storedRevision ?? 0) + absorbed }
    private(set) var sections: [String: LoadedSection] = [:]
    private var idsAtPositions: [Int: String] = [:]
    private var itemSections: [String: String] = [:]
    private var absentSections: Set<String> = []
    private var absentItems: Set<String> = []
    private var absentPositions: Set<Int> = []
    private var order: [String]?

    /// A source of catalogue `catalogPK` as stored at `revision`, or at whatever revision its
    /// first load finds when nil.
    init(catalogPK: Int64, revision: Int?) {
        self.catalogPK = catalogPK
        storedRevision = revision
    }

    mutating func section(id: String) throws -> (section: Section, position: Int)? {
        if let loaded = sections[id] {
            reads.sections.insert(id)
            return (loaded.section, loaded.position)
        }
        if absentSections.contains(id) {
            reads.sections.insert(id)
            return nil
        }
        throw Miss.section(id)
    }

    mutating func section(at position: Int) throws -> Section? {
        if let id = order.map({ position >= 0 && position < $0.count ? $0[position] : nil }) ?? idsAtPositions[position] {
            guard let loaded = sections[id] else { throw Miss.section(id) }
            reads.sections.insert(id)
            return loaded.section
        }
        if order != nil || absentPositions.contains(position) {
            reads.order = true
            return nil
        }
        throw Miss.position(position)
    }

    mutating func sectionID(ofItem id: String) throws -> String? {
        if let section = itemSections[id] {
            reads.sections.insert(section)
            return section
        }
        if absentItems.contains(id) {
            reads.absentItems.insert(id)
            return nil
        }
        throw Miss.item(id)
    }

    mutating func sectionOrder() throws -> [String] {
        guard let order else { throw Miss.order }
        reads.order = true
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
    /// items named, with all their items, in one query; remembers what is not there. Sections
    /// loaded already stay as they are (edits may have changed them in memory).
    ///
    /// - Throws: ``CatalogueGone``; ``StaleRead`` when a section loaded now holds an item an
    ///   earlier load found elsewhere or nowhere (which the edits may have moved, inserted or
    ///   deleted since, but no section loaded now can hold at the same state): loads of two
    ///   states, which the editor must not mix.
    mutating func load(sections wanted: [String], positions: [Int] = [], items: [String],
                       on connection: PostgresConnection, logger: Logger) async throws {
        let wantedSections = wanted.filter { sections[$0] == nil && !absentSections.contains($0) }
        let wantedItems = items.filter { itemSections[$0] == nil && !absentItems.contains($0) }
        let wantedPositions = positions.filter { idsAtPositions[$0] == nil && !absentPositions.contains($0) }
        if wantedSections.isEmpty && wantedItems.isEmpty && wantedPositions.isEmpty { return }
        let rows = try await connection.execute(PreparedStatements.Sections(catalogPK: catalogPK, sections: wantedSections,
                                                                            positions: wantedPositions.map(Int32.init), items: wantedItems),
                                                logger: logger)
        loads += 1
        let loaded = Set(sections.keys)
        var current: String?
        var checked = false
        for try await row in rows {
            let row = row.makeRandomAccess()
            if !checked {
                let found = Int(try row[0].decode(Int64.self))
                if storedRevision == nil { storedRevision = found }
                checked = true
            }
            guard let id = try row[1].decode(String?.self), !loaded.contains(id) else { continue }
            if id != current {
                current = id
                let section = try PostgresCatalogStore.section(row, at: 1)
                let position = Int(try row[5].decode(Int32.self))
                let keyColumn = 7 + ItemRows.columnCount
                sections[id] = LoadedSection(section: section, position: position, stored: section, keys: [:],
                                             pk: try row[keyColumn].decode(Int64.self), version: try row[keyColumn + 1].decode(Int64.self))
                idsAtPositions[position] = id
            }
            guard let key = try row[6].decode(Int64?.self) else { continue }
            let item = try ItemRows.item(row, at: 7)
            if itemSections[item.id] != nil || absentItems.contains(item.id) { throw StaleRead() }
            sections[id]!.section.items.append(item)
            sections[id]!.stored.items.append(item)
            sections[id]!.keys[item.id] = key
            itemSections[item.id] = id
        }
        guard checked else { throw CatalogueGone() }
        for id in wantedSections where sections[id] == nil { absentSections.insert(id) }
        for id in wantedItems where itemSections[id] == nil {
            absentItems.insert(id)
            absentInDatabase.insert(id)
        }
        for position in wantedPositions where idsAtPositions[position] == nil { absentPositions.insert(position) }
    }

    /// Takes in what `editor` did, an edit of items only (no section inserted, deleted, moved
    /// or changed), as the state the next edit starts from: one revision later, in memory only.
    /// Sections loaded afterwards come from the database, as stored: an edit of items changes
    /// only sections it loaded.
    mutating func absorb(_ editor: CatalogEditor<PostgresCatalogSource>) {
        var present = Set<String>()
        for (id, section) in editor.sections {
            sections[id]?.section = section
            for item in section.items {
                itemSections[item.id] = id
                absentItems.remove(item.id)
                present.insert(item.id)
            }
        }
        for (_, original) in editor.originals {
            for item in original.section.items where !present.contains(item.id) {
                itemSections[item.id] = nil
                absentItems.insert(item.id)
            }
        }
        absorbed += 1
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
