import CatalogModel
import CatalogStoreCore
import GRDB

/// Writes an edit (what a ``CatalogEditor`` changed) back to the database, row by row, inside
/// the caller's transaction: only the rows of the sections the edit touched.
///
/// Section positions are UNIQUE per catalogue, so sections that change place first park at
/// distinct negative positions, then take their final ones. Item positions are order keys with
/// gaps (migration 0005, ``OrderKeys``): an item that moves takes a key between its new
/// neighbours', and nothing shifts. ``verifyPositions(of:)`` proves the result before the commit.
struct EditWriter {
    let db: Database
    let source: DatabaseCatalogSource
    let editor: CatalogEditor<DatabaseCatalogSource>
    /// Distinct negative positions for section rows in transit (section positions are UNIQUE).
    private var parking: Int64 = -1
    /// Row keys of the sections as the edit leaves them (a replaced section's id names its new row).
    private var sectionPKs: [String: Int64] = [:]
    /// Sections deleted and inserted again under the same id, and the rows they leave.
    private var replaced: Set<String> = []
    private var retiredPKs: [String: Int64] = [:]
    /// Where each item of a section the edit read was before it: section id and index.
    private var oldPlace: [String: (section: String, index: Int)] = [:]

    init(db: Database, editor: CatalogEditor<DatabaseCatalogSource>) {
        self.db = db
        self.editor = editor
        source = editor.source
    }

    /// Writes the edit, in the order the schema's checks allow: rows that leave their sections
    /// before rows that arrive, deleted sections before the items that take their place, the
    /// final section positions once no two sections share one.
    mutating func write() throws {
        sectionPKs = source.sectionPKs
        for (id, entry) in editor.originals {
            for (index, item) in entry.section.items.enumerated() { oldPlace[item.id] = (id, index) }
        }
        try retireReplacedSections()
        let sectionFinal = try parkSectionsThatMove()
        let items = try planItems()
        try deleteItemsThatLeft(present: items.present)
        try place(items.placements)
        try deleteSections()
        // New rows last, once the rows leaving their sections have left (SQLite refuses a new
        // item for a full section). Then new content.
        let inserter = try ItemInserter(db: db)
        for (item, sectionPK, key) in items.new {
            try inserter.insert(item, catalogPK: source.catalogPK, sectionPK: sectionPK, key: key)
        }
        try updateContent(of: items.updated)
        try finishSections(sectionFinal)
    }

    /// Sections deleted and inserted again under the same id are replaced: the old row steps
    /// aside under an id that no section of the catalogue has, before or after the edit (ids are
    /// UNIQUE), so that the new row can take the id; it is deleted with the other deleted
    /// sections, once its items have left.
    private mutating func retireReplacedSections() throws {
        replaced = editor.deleted.intersection(editor.inserted)
        guard !replaced.isEmpty else { return }
        var taken = Set(editor.sections.keys)
        taken.formUnion(editor.order ?? [])
        taken.formUnion(editor.orderBefore ?? [])
        for id in replaced.sorted() {
            let pk = try sectionPK(id)
            let parkedID = try unusedSectionID(startingWith: "replaced \(pk)", besides: taken)
            try db.execute(sql: "UPDATE section SET id = ? WHERE pk = ?", arguments: [parkedID, pk])
            retiredPKs[id] = pk
            sectionPKs[id] = nil
        }
    }

    /// `stem`, or `stem` with primes added, whichever first is neither in `taken` nor the id of
    /// a section of the catalogue: the database is asked, in this transaction, rather than the
    /// id trusted to be unusual.
    private func unusedSectionID(startingWith stem: String, besides taken: Set<String>) throws -> String {
        let exists = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM section WHERE catalog_pk = ? AND id = ?)")
        var candidate = stem
        while try taken.contains(candidate) || Bool.fetchOne(exists, arguments: [source.catalogPK, candidate]) == true {
            candidate += "'"
        }
        return candidate
    }

    /// Sections that change place park at distinct negative positions; new ones are inserted
    /// parked. Returns where each of them ends, for ``finishSections(_:)``.
    private mutating func parkSectionsThatMove() throws -> [(pk: Int64, position: Int)] {
        guard let order = editor.order, let before = editor.orderBefore else { return [] }
        var oldPosition: [String: Int] = [:]
        for (position, id) in before.enumerated() { oldPosition[id] = position }
        let moveSection = try db.cachedStatement(sql: "UPDATE section SET position = ? WHERE pk = ?")
        var final: [(pk: Int64, position: Int)] = []
        for (position, id) in order.enumerated() {
            if editor.inserted.contains(id) {
                guard let section = editor.sections[id] else { throw Self.missing("section \"\(id)\" the edit inserts") }
                try db.execute(sql: """
                    INSERT INTO section (catalog_pk, id, position, kind, title, capacity) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [source.catalogPK, id, parking, section.kind.rawValue, section.title, section.capacity])
                sectionPKs[id] = db.lastInsertedRowID
                final.append((db.lastInsertedRowID, position))
            } else if oldPosition[id] != position {
                let pk = try sectionPK(id)
                sectionPKs[id] = pk
                try moveSection.execute(arguments: [parking, pk])
                final.append((pk, position))
            } else {
                continue
            }
            parking -= 1
        }
        return final
    }

    /// Every section the edit touched gets the order keys its new order needs
    /// (``OrderKeys/plan(_:)``): items still in order keep their keys, the others take keys
    /// between their neighbours'. Only rows whose section or key changes are placed.
    private func planItems() throws -> (placements: [(pk: Int64, section: Int64, key: Int64, entering: Bool)],
                                        new: [(item: Item, section: Int64, key: Int64)],
                                        updated: [(pk: Int64, item: Item)], present: Set<String>) {
        var placements: [(pk: Int64, section: Int64, key: Int64, entering: Bool)] = []
        var newItems: [(item: Item, section: Int64, key: Int64)] = []
        var updatedItems: [(pk: Int64, item: Item)] = []
        var present = Set<String>()
        for (sectionID, section) in editor.sections {
            guard let sectionPK = sectionPKs[sectionID] else { throw Self.missing("section \"\(sectionID)\"") }
            let current = section.items.map { item in
                oldPlace[item.id].map { !changesRow(from: $0.section, to: sectionID) } == true ? source.itemRows[item.id]?.key : nil
            }
            let keys = OrderKeys.plan(current)
            for (index, item) in section.items.enumerated() {
                present.insert(item.id)
                guard let pk = source.itemRows[item.id]?.pk, let old = oldPlace[item.id],
                      let previous = editor.originals[old.section]?.section.items[old.index] else {
                    newItems.append((item, sectionPK, keys[index]))
                    continue
                }
                let entering = changesRow(from: old.section, to: sectionID)
                if entering || current[index] != keys[index] {
                    placements.append((pk, sectionPK, keys[index], entering))
                }
                if !previous.hasSameContent(as: item) { updatedItems.append((pk, item)) }
            }
        }
        return (placements, newItems, updatedItems, present)
    }

    /// Whether an item that was in section `old` is now in a different row than before.
    private func changesRow(from old: String, to new: String) -> Bool { old != new || replaced.contains(new) }

    /// Items that are nowhere now: deleted (those of deleted sections go with their section).
    private func deleteItemsThatLeft(present: Set<String>) throws {
        let deleteItem = try db.cachedStatement(sql: "DELETE FROM item WHERE pk = ?")
        for (id, old) in oldPlace where !present.contains(id) && !editor.deleted.contains(old.section) {
            guard let row = source.itemRows[id] else { throw Self.missing("item \"\(id)\"") }
            try deleteItem.execute(arguments: [row.pk])
        }
    }

    /// Keys may repeat for a moment (the index is not UNIQUE); ``verifyPositions(of:)`` proves the
    /// end state. Only rows entering a section touch `section_pk`, so SQLite checks the foreign
    /// key and the kind trigger for them alone.
    private func place(_ placements: [(pk: Int64, section: Int64, key: Int64, entering: Bool)]) throws {
        let setKey = try db.cachedStatement(sql: "UPDATE item SET position = ? WHERE pk = ?")
        let setPlace = try db.cachedStatement(sql: "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?")
        for placement in placements {
            if placement.entering {
                try setPlace.execute(arguments: [placement.section, placement.key, placement.pk])
            } else {
                try setKey.execute(arguments: [placement.key, placement.pk])
            }
        }
    }

    /// Deleted sections, and the rows of replaced ones, with the items still in them.
    private func deleteSections() throws {
        let deleteSection = try db.cachedStatement(sql: "DELETE FROM section WHERE pk = ?")
        for id in editor.deleted {
            guard let pk = retiredPKs[id] ?? sectionPKs[id] else { throw Self.missing("section \"\(id)\" the edit deletes") }
            try deleteSection.execute(arguments: [pk])
        }
    }

    /// Every field column of the items whose content changed (NULL for the fields of other kinds
    /// and for optional fields left empty).
    private func updateContent(of items: [(pk: Int64, item: Item)]) throws {
        let update = try db.cachedStatement(sql: Self.updateItemSQL)
        for (pk, item) in items {
            var values: [(any DatabaseValueConvertible)?] = ItemColumns.content.map { field in
                switch item.content[field] {
                case .text(let text)?: text
                case .count(let count)?: count
                case nil: nil
                }
            }
            values += [item.size?.width, item.size?.height, pk]
            try update.execute(arguments: StatementArguments(values))
        }
    }

    /// Parked sections take their final positions; kept sections their new title and capacity.
    private func finishSections(_ final: [(pk: Int64, position: Int)]) throws {
        let placeSection = try db.cachedStatement(sql: "UPDATE section SET position = ? WHERE pk = ?")
        for (pk, position) in final { try placeSection.execute(arguments: [position, pk]) }
        let updateSection = try db.cachedStatement(sql: "UPDATE section SET title = ?, capacity = ? WHERE pk = ?")
        for (id, section) in editor.sections where !editor.inserted.contains(id) {
            guard let original = editor.originals[id]?.section, let pk = sectionPKs[id] else { throw Self.missing("section \"\(id)\"") }
            if original.title != section.title || original.capacity != section.capacity {
                try updateSection.execute(arguments: [section.title, section.capacity, pk])
            }
        }
    }

    /// The row of section `id`: known from the edit's reading, else looked up.
    private func sectionPK(_ id: String) throws -> Int64 {
        if let pk = sectionPKs[id] { return pk }
        guard let pk = try Int64.fetchOne(db.cachedStatement(sql: "SELECT pk FROM section WHERE catalog_pk = ? AND id = ?"),
                                          arguments: [source.catalogPK, id]) else {
            throw Self.missing("section \"\(id)\"")
        }
        return pk
    }

    /// A row the edit read is not there: the database changed under the transaction, which
    /// holds the write lock, so this means a damaged file; the write is rolled back.
    private static func missing(_ what: String) -> StoreError {
        .database("the edit expected \(what) in the database, and it is not there")
    }

    /// Checks that each section the edit touched holds its items at distinct order keys and no
    /// more than its capacity, and that the section order is 0..<n when it changed: the rest of
    /// the catalogue was not written.
    func verifyPositions(of changed: [String]) throws {
        for id in changed {
            guard let pk = try sectionPKs[id] ?? Int64.fetchOne(db, sql: "SELECT pk FROM section WHERE catalog_pk = ? AND id = ?",
                                                                arguments: [source.catalogPK, id]) else { continue }
            try CatalogStore.verifyItemPositions(ofSection: pk, id: id, capacity: editor.sections[id]?.capacity,
                                                 catalog: source.name, in: db)
        }
        if editor.order != editor.orderBefore {
            try CatalogStore.verifySectionOrder(ofCatalog: source.catalogPK, named: source.name, in: db)
        }
    }
}

extension EditWriter {
    /// Sets every field column of an item (NULL for the fields its kind does not have) and its size.
    static let updateItemSQL = "UPDATE item SET "
        + ItemColumns.names.map { $0 + " = ?" }.joined(separator: ", ") + ", width = ?, height = ? WHERE pk = ?"
}
