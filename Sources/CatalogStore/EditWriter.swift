import CatalogModel
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

    init(db: Database, editor: CatalogEditor<DatabaseCatalogSource>) {
        self.db = db
        self.editor = editor
        source = editor.source
    }

    mutating func write() throws {
        let catalogPK = source.catalogPK
        sectionPKs = source.sectionPKs

        // Sections deleted and inserted again under the same id are replaced: the old row steps
        // aside under an id no section can have (ids are UNIQUE), so that the new row can take
        // the id; it is deleted with the other deleted sections, once its items have left.
        let replaced = editor.deleted.intersection(editor.inserted)
        var retiredPKs: [String: Int64] = [:]
        for id in replaced.sorted() {
            let pk = try sectionPKs[id] ?? Int64.fetchOne(db, sql: "SELECT pk FROM section WHERE catalog_pk = ? AND id = ?",
                                                         arguments: [catalogPK, id])!
            try db.execute(sql: "UPDATE section SET id = ? WHERE pk = ?", arguments: ["\u{FFFF}replaced \(pk)", pk])
            retiredPKs[id] = pk
            sectionPKs[id] = nil
        }

        // Sections: those that change place park; new ones are inserted parked.
        var sectionFinal: [(pk: Int64, position: Int)] = []
        if let order = editor.order, let before = editor.orderBefore {
            var oldPosition: [String: Int] = [:]
            for (position, id) in before.enumerated() { oldPosition[id] = position }
            let moveSection = try db.cachedStatement(sql: "UPDATE section SET position = ? WHERE pk = ?")
            let idOf = try db.cachedStatement(sql: "SELECT pk FROM section WHERE catalog_pk = ? AND id = ?")
            for (position, id) in order.enumerated() {
                if editor.inserted.contains(id) {
                    let section = editor.sections[id]!
                    try db.execute(sql: """
                        INSERT INTO section (catalog_pk, id, position, kind, title, capacity) VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: [catalogPK, id, parking, section.kind.rawValue, section.title, section.capacity])
                    parking -= 1
                    sectionPKs[id] = db.lastInsertedRowID
                    sectionFinal.append((db.lastInsertedRowID, position))
                } else if oldPosition[id] != position {
                    let pk: Int64
                    if let known = sectionPKs[id] {
                        pk = known
                    } else {
                        pk = try Int64.fetchOne(idOf, arguments: [catalogPK, id])!
                        sectionPKs[id] = pk
                    }
                    try moveSection.execute(arguments: [parking, pk])
                    parking -= 1
                    sectionFinal.append((pk, position))
                }
            }
        }

        // Items: every section the edit touched gets the order keys its new order needs
        // (``OrderKeys/plan(_:)``): items still in order keep their keys, the others take keys
        // between their neighbours'. Only rows whose section or key changes are written.
        var oldPlace: [String: (section: String, index: Int)] = [:]
        for (id, entry) in editor.originals {
            for (index, item) in entry.section.items.enumerated() { oldPlace[item.id] = (id, index) }
        }
        // Whether an item that was in section `old` is now in a different row than before.
        func changesRow(from old: String, to new: String) -> Bool { old != new || replaced.contains(new) }
        var placements: [(pk: Int64, section: Int64, key: Int64, entering: Bool)] = []
        var newItems: [(item: Item, section: Int64, key: Int64)] = []
        var updatedItems: [(pk: Int64, item: Item)] = []
        var present = Set<String>()
        for (sectionID, section) in editor.sections {
            let sectionPK = sectionPKs[sectionID]!
            let current = section.items.map { item in
                oldPlace[item.id].map { !changesRow(from: $0.section, to: sectionID) } == true ? source.itemRows[item.id]?.key : nil
            }
            let keys = OrderKeys.plan(current)
            for (index, item) in section.items.enumerated() {
                present.insert(item.id)
                guard let pk = source.itemRows[item.id]?.pk, let old = oldPlace[item.id] else {
                    newItems.append((item, sectionPK, keys[index]))
                    continue
                }
                let entering = changesRow(from: old.section, to: sectionID)
                if entering || current[index] != keys[index] {
                    placements.append((pk, sectionPK, keys[index], entering))
                }
                let previous = editor.originals[old.section]!.section.items[old.index]
                if !previous.hasSameContent(as: item) { updatedItems.append((pk, item)) }
            }
        }
        // Items that are nowhere now: deleted (those of deleted sections go with their section).
        let deleteItem = try db.cachedStatement(sql: "DELETE FROM item WHERE pk = ?")
        for (id, old) in oldPlace where !present.contains(id) && !editor.deleted.contains(old.section) {
            try deleteItem.execute(arguments: [source.itemRows[id]!.pk])
        }
        // Keys may repeat for a moment (the index is not UNIQUE); ``verifyPositions(of:)`` proves
        // the end state. Only rows entering a section touch `section_pk`, so SQLite checks the
        // foreign key and the kind trigger for them alone.
        let setKey = try db.cachedStatement(sql: "UPDATE item SET position = ? WHERE pk = ?")
        let setPlace = try db.cachedStatement(sql: "UPDATE item SET section_pk = ?, position = ? WHERE pk = ?")
        for placement in placements {
            if placement.entering {
                try setPlace.execute(arguments: [placement.section, placement.key, placement.pk])
            } else {
                try setKey.execute(arguments: [placement.key, placement.pk])
            }
        }
        let deleteSection = try db.cachedStatement(sql: "DELETE FROM section WHERE pk = ?")
        for id in editor.deleted {
            try deleteSection.execute(arguments: [retiredPKs[id] ?? sectionPKs[id]!])
        }

        // New rows last, once the rows leaving their sections have left (SQLite refuses a new
        // item for a full section). Then new content.
        let inserter = try ItemInserter(db: db)
        for (item, sectionPK, key) in newItems {
            try inserter.insert(item, catalogPK: catalogPK, sectionPK: sectionPK, key: key)
        }
        let update = try db.cachedStatement(sql: Self.updateItemSQL)
        for (pk, item) in updatedItems {
            // NULL for the fields of other kinds and for optional fields left empty.
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
        let placeSection = try db.cachedStatement(sql: "UPDATE section SET position = ? WHERE pk = ?")
        for (pk, position) in sectionFinal { try placeSection.execute(arguments: [position, pk]) }
        let updateSection = try db.cachedStatement(sql: "UPDATE section SET title = ?, capacity = ? WHERE pk = ?")
        for (id, section) in editor.sections where !editor.inserted.contains(id) {
            let original = editor.originals[id]!.section
            if original.title != section.title || original.capacity != section.capacity {
                try updateSection.execute(arguments: [section.title, section.capacity, sectionPKs[id]!])
            }
        }
    }

    /// Checks that each section the edit touched holds its items at distinct order keys and no
    /// more than its capacity, and that the section order is 0..<n when it changed: the rest of
    /// the catalogue was not written.
    func verifyPositions(of changed: [String]) throws {
        for id in changed {
            guard let pk = try sectionPK(id) else { continue }
            try CatalogStore.verifyItemPositions(ofSection: pk, id: id, capacity: editor.sections[id]?.capacity,
                                                 catalog: source.name, in: db)
        }
        if editor.order != editor.orderBefore {
            let ok = try Bool.fetchOne(db, sql: """
                SELECT count(*) = 0 OR (min(position) = 0 AND max(position) = count(*) - 1) FROM section WHERE catalog_pk = ?
                """, arguments: [source.catalogPK]) ?? true
            if !ok { throw StoreError.positionsNotContiguous(catalog: source.name, section: "(section order)") }
        }
    }

    private func sectionPK(_ id: String) throws -> Int64? {
        if let pk = sectionPKs[id] { return pk }
        return try Int64.fetchOne(db, sql: "SELECT pk FROM section WHERE catalog_pk = ? AND id = ?", arguments: [source.catalogPK, id])
    }
}

extension EditWriter {
    /// Sets every field column of an item (NULL for the fields its kind does not have) and its size.
    static let updateItemSQL = "UPDATE item SET "
        + ItemColumns.names.map { $0 + " = ?" }.joined(separator: ", ") + ", width = ?, height = ? WHERE pk = ?"
}
