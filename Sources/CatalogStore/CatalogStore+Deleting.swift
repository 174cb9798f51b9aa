import CatalogModel
import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// Deletes the catalogue named `name` — its sections, items, journal and import history —
    /// in one transaction, and returns what it held.
    ///
    /// Its observers' sequences end with ``/CatalogStoreCore/StoreError/unknownCatalog(_:)`` (the server's event
    /// streams send `event: deleted` and close). A catalogue imported later under the same name
    /// goes on from its revisions rather than repeating them, so a client that still has a
    /// revision of the deleted one is sent a reset, never the new one's changes.
    ///
    /// - Parameters:
    ///   - name: the catalogue's name.
    ///   - ifRevision: delete only if the catalogue is at this revision (a client that has not
    ///     seen the latest writes does not delete them unawares).
    /// - Throws: ``/CatalogStoreCore/StoreError/unknownCatalog(_:)``; ``/CatalogStoreCore/StoreError/rejected(catalog:_:)`` with a
    ///   stale revision when `ifRevision` is not the current one. Nothing is deleted then.
    @discardableResult
    public func delete(_ name: String, ifRevision: Int? = nil) throws(StoreError) -> DeletedCatalog {
        try delete([(name, ifRevision)])[0]
    }

    /// Deletes every catalogue named, all in one transaction or none (`catalog delete A B`).
    public func delete(_ requests: [(name: String, ifRevision: Int?)]) throws(StoreError) -> [DeletedCatalog] {
        let deleted = try writeWithoutRevision { db in
            try requests.map { name, ifRevision in try Self.delete(name, ifRevision: ifRevision, in: db) }
        }
        for (catalog, pk) in deleted { snapshots.forget(pk: pk, named: catalog.name) }
        notifier.didDelete(deleted.map(\.0.name))
        return deleted.map(\.0)
    }

    static func delete(_ name: String, ifRevision: Int?, in db: Database) throws -> (DeletedCatalog, pk: Int64) {
        let name = Identifier.canonical(name)
        guard let (pk, revision) = try catalogRow(named: name, in: db) else { throw StoreError.unknownCatalog(name) }
        if let ifRevision, ifRevision != revision {
            throw StoreError.rejected(catalog: name, BatchError(reason: .staleRevision(base: ifRevision, current: revision)))
        }
        let sections = try Int.fetchOne(db, sql: "SELECT count(*) FROM section WHERE catalog_pk = ?", arguments: [pk]) ?? 0
        let items = try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE catalog_pk = ?", arguments: [pk]) ?? 0
        try db.execute(sql: """
            INSERT INTO retired_catalog (name, revision) VALUES (?, ?)
            ON CONFLICT (name) DO UPDATE SET revision = excluded.revision
            """, arguments: [name, revision])
        // Items before sections before the catalogue: each row's cascade has nothing left to do.
        try db.execute(sql: "DELETE FROM item WHERE catalog_pk = ?", arguments: [pk])
        try db.execute(sql: "DELETE FROM section WHERE catalog_pk = ?", arguments: [pk])
        try db.execute(sql: "DELETE FROM catalog WHERE pk = ?", arguments: [pk])
        return (DeletedCatalog(name: name, revision: revision, sections: sections, items: items), pk)
    }

    /// The revision a catalogue made now under `name` would come after: the one its deletion
    /// counts as, when a catalogue of that name was deleted; nil when none was.
    func revisionAfterDeletion(of name: String) throws(StoreError) -> Int? {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT revision + 1 FROM retired_catalog WHERE name = ?", arguments: [Identifier.canonical(name)])
        }
    }
}
