import CatalogModel
import CatalogStoreCore
import GRDB

/// A catalogue in the database as a ``CatalogSource``: reads sections and items on demand inside
/// the write transaction, and remembers the row keys and order keys of what it read so the edit
/// can be written back row by row.
struct DatabaseCatalogSource: CatalogSource {
    let db: Database
    let name: String
    let catalogPK: Int64
    let revision: Int
    /// Row keys of the sections and items read so far.
    private(set) var sectionPKs: [String: Int64] = [:]
    /// The row key and order key (the `position` column) of each item read so far.
    private(set) var itemRows: [String: (pk: Int64, key: Int64)] = [:]

    init(db: Database, name: String) throws {
        guard let row = try CatalogStore.catalogRow(named: name, in: db) else { throw StoreError.unknownCatalog(name) }
        self.db = db
        self.name = name
        (catalogPK, revision) = row
    }

    mutating func section(id: String) throws -> (section: Section, position: Int)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT pk, id, kind, title, capacity, position FROM section WHERE catalog_pk = ? AND id = ?
            """), arguments: [catalogPK, id]) else { return nil }
        let position: Int = row[5]
        return (try read(row), position)
    }

    mutating func section(at position: Int) throws -> Section? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT pk, id, kind, title, capacity, position FROM section WHERE catalog_pk = ? AND position = ?
            """), arguments: [catalogPK, position]) else { return nil }
        return try read(row)
    }

    mutating func sectionID(ofItem id: String) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: """
            SELECT s.id FROM item i JOIN section s ON s.pk = i.section_pk WHERE i.catalog_pk = ? AND i.id = ?
            """), arguments: [catalogPK, id])
    }

    mutating func sectionOrder() throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT id FROM section WHERE catalog_pk = ? ORDER BY position"),
                            arguments: [catalogPK])
    }

    /// A section row (pk, id, kind, title, capacity) with its items, remembering the keys.
    private mutating func read(_ row: Row) throws -> Section {
        let pk: Int64 = row[0]
        let id: String = row[1]
        let kindName: String = row[2]
        guard let kind = SectionKind(rawValue: kindName) else {
            throw StoreError.database("section \(id) has an unknown kind \(kindName)")
        }
        var section = Section(id: id, kind: kind, title: row[3], capacity: row[4])
        let items = try ItemReader.items(inSection: pk, db: db)
        section.items = items.map(\.item)
        sectionPKs[id] = pk
        for (pk, key, item) in items { itemRows[item.id] = (pk, key) }
        return section
    }
}
