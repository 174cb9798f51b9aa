import CatalogModel
import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// The catalogue named `name` with its journal, read in one transaction.
    public func archive(of name: String) throws(StoreError) -> CatalogArchive {
        try read { db in
            let catalog = try Self.loadCatalog(named: name, in: db)
            let pk = try Self.catalogRow(named: name, in: db)!.pk
            let journal = try Row.fetchAll(db, sql: "SELECT revision, patch FROM journal WHERE catalog_pk = ? ORDER BY revision", arguments: [pk])
                .map { CatalogArchive.JournalEntry(revision: $0[0], patch: $0[1]) }
            return CatalogArchive(catalog: catalog, journal: StoreRules.contiguousTail(journal, endingAt: catalog.revision))
        }
    }

    /// The deleted catalogues' last revisions, by name.
    public func retiredCatalogs() throws(StoreError) -> [String: Int] {
        try read { db in
            Dictionary(try Row.fetchAll(db, sql: "SELECT name, revision FROM retired_catalog").map { ($0[0] as String, $0[1] as Int) },
                       uniquingKeysWith: max)
        }
    }

    /// The database's identity (see ``/CatalogStoreCore/CatalogDatabase/identity()``).
    public func identity() throws(StoreError) -> String {
        try read { db in try String.fetchOne(db, sql: "SELECT id FROM database_identity") ?? "" }
    }

    /// Takes `identity` as the database's own (see ``/CatalogStoreCore/CatalogDatabase/adoptIdentity(_:)``).
    public func adoptIdentity(_ identity: String) throws(StoreError) {
        try writeWithoutRevision { db in
            try db.execute(sql: "DELETE FROM database_identity")
            try db.execute(sql: "INSERT INTO database_identity (id) VALUES (?)", arguments: [identity])
        }
    }

    /// Every client's record of numbered writes (see ``/CatalogStoreCore/CatalogDatabase/clientRecords()``).
    public func clientRecords() throws(StoreError) -> [ClientRecord] {
        try read { db in try ClientWriteRows.records(in: db) }
    }

    /// Writes `archives` as they are (see ``/CatalogStoreCore/CatalogDatabase/restore(_:retired:clients:replacing:)``).
    public func restore(_ archives: [CatalogArchive], retired: [String: Int], clients: [ClientRecord] = [],
                        replacing: Bool) throws(StoreError) {
        var checked: [CatalogArchive] = []
        for archive in archives { checked.append(try archive.validated()) }
        let records = try clients.map { record throws(StoreError) in try record.validated() }
        try StoreRules.checkDistinctNames(checked.map { ($0.catalog, nil) })
        let total = checked.reduce(0) { $0 + $1.catalog.itemCount }
        try writeWithoutRevision { db in
            var writer = CatalogWriter(db: db, total: total, progress: nil)
            for archive in checked {
                let name = archive.catalog.name
                if try Self.catalogRow(named: name, in: db) != nil {
                    guard replacing else { throw StoreError.catalogExists(name) }
                    try db.execute(sql: "DELETE FROM item WHERE catalog_pk = (SELECT pk FROM catalog WHERE name = ?)", arguments: [name])
                    try db.execute(sql: "DELETE FROM catalog WHERE name = ?", arguments: [name])
                }
                try db.execute(sql: "INSERT INTO catalog (name, revision) VALUES (?, ?)", arguments: [name, archive.catalog.revision])
                let pk = db.lastInsertedRowID
                try writer.insertContent(of: archive.catalog, catalogPK: pk)
                for entry in archive.journal {
                    try db.execute(sql: "INSERT INTO journal (catalog_pk, revision, patch) VALUES (?, ?, ?)",
                                   arguments: [pk, entry.revision, entry.patch])
                }
                try Self.verifyPositions(ofCatalog: pk, named: name, in: db)
                if let row = try Row.fetchOne(db, sql: """
                    SELECT s.id, count(*), s.capacity FROM section s JOIN item i ON i.section_pk = s.pk
                    WHERE s.catalog_pk = ? AND s.capacity IS NOT NULL GROUP BY s.pk HAVING count(*) > s.capacity LIMIT 1
                    """, arguments: [pk]) {
                    throw StoreError.overCapacity(catalog: name, section: row[0], count: row[1], capacity: row[2])
                }
            }
            for (name, revision) in retired where try Self.catalogRow(named: name, in: db) == nil {
                try db.execute(sql: """
                    INSERT INTO retired_catalog (name, revision) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET revision = max(revision, excluded.revision)
                    """, arguments: [Identifier.canonical(name), revision])
            }
            for record in records { try ClientWriteRows.restore(record, in: db) }
        }
        notifier.didCommit(checked.map { ($0.catalog.name, $0.catalog.revision) })
    }

}
