import CatalogModel
import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// Every catalogue, by name.
    public func summaries() throws(StoreError) -> [CatalogSummary] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT name, revision,
                       (SELECT count(*) FROM section WHERE catalog_pk = catalog.pk),
                       (SELECT count(*) FROM item WHERE catalog_pk = catalog.pk)
                FROM catalog ORDER BY name
                """).map { row in
                CatalogSummary(name: row[0], revision: row[1], sections: row[2], items: row[3])
            }
        }
    }

    /// The catalogue's current revision: one statement, which SQLite runs in a transaction of its
    /// own (no BEGIN and COMMIT around it: the HTTP API asks this on every read), on a connection
    /// kept for it in a file store (see `RevisionReader`).
    public func revision(of name: String) throws(StoreError) -> Int {
        do {
            guard let row = try revisions.catalogRow(named: name) else { throw StoreError.unknownCatalog(name) }
            return row.revision
        } catch {
            throw Self.storeError(from: error)
        }
    }

    /// The catalogue's current snapshot: its sections and items in display order, with its revision.
    public func catalog(named name: String) throws(StoreError) -> Catalog {
        try read { db in
            guard let row = try Self.catalogRow(named: name, in: db) else { throw StoreError.unknownCatalog(name) }
            return try currentCatalog(pk: row.pk, named: name, revision: row.revision, in: db)
        }
    }

    /// The catalogue whose row (key and revision) the caller has read in this transaction: kept
    /// from an earlier read of the same revision, or loaded and kept (see ``SnapshotCache``).
    /// Only for read transactions, which see committed rows: what it keeps, every read may get.
    func currentCatalog(pk: Int64, named name: String, revision: Int, in db: Database) throws -> Catalog {
        if let kept = snapshots.catalog(pk: pk, named: name, revision: revision) { return kept }
        let catalog = try Self.loadCatalog(pk: pk, named: name, revision: revision, in: db)
        snapshots.keep(catalog, pk: pk)
        return catalog
    }

    /// The catalogue as this transaction sees it, from its rows: never from ``SnapshotCache``,
    /// since a write transaction may see rows that are rolled back and no read ever sees.
    static func loadCatalog(named name: String, in db: Database) throws -> Catalog {
        guard let row = try catalogRow(named: name, in: db) else { throw StoreError.unknownCatalog(name) }
        return try loadCatalog(pk: row.pk, named: name, revision: row.revision, in: db)
    }

    /// The row key and revision of the catalogue named `name`, or nil when there is none: where
    /// every read and write that starts from a name begins (one cached statement). Names are
    /// stored in canonical form (`Identifier`), and `name` is looked up in it.
    static func catalogRow(named name: String, in db: Database) throws -> (pk: Int64, revision: Int)? {
        try RawStatement(db, "SELECT pk, revision FROM catalog WHERE name = ?")
            .first(.text(Identifier.canonical(name))) { ($0.int64(0), $0.int(1)) }
    }

    /// The catalogue whose row the caller has read already.
    static func loadCatalog(pk catalogPK: Int64, named name: String, revision: Int, in db: Database) throws -> Catalog {
        var sections: [Section] = []
        var sectionIndex: [Int64: Int] = [:]
        let sectionRows = try Row.fetchCursor(db, sql: """
            SELECT pk, id, kind, title, capacity FROM section WHERE catalog_pk = ? ORDER BY position
            """, arguments: [catalogPK])
        while let row = try sectionRows.next() {
            let kindName: String = row[2]
            guard let kind = SectionKind(rawValue: kindName) else {
                throw StoreError.database("section \(row[1] as String) has an unknown kind \(kindName)")
            }
            sectionIndex[row[0]] = sections.count
            sections.append(Section(id: row[1], kind: kind, title: row[3], capacity: row[4]))
        }
        var currentPK: Int64 = -1
        var current = -1
        try ItemReader(db: db).forEachItem(catalogPK: catalogPK) { sectionPK, item in
            if sectionPK != currentPK {
                currentPK = sectionPK
                current = sectionIndex[sectionPK]!
            }
            sections[current].items.append(item)
        }
        let catalog = Catalog(name: name, revision: revision, sections: sections)
        #if DEBUG
        catalog.checkInvariants()
        #endif
        return catalog
    }
}
