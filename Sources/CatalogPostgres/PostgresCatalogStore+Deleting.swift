import CatalogModel
import CatalogStoreCore
import PostgresNIO

extension PostgresCatalogStore {
    /// Deletes every catalogue named — sections, items, journal, import history — all in one
    /// transaction or none, and returns what each held. A catalogue made later under one of the
    /// names goes on from its revisions (see ``CatalogStore/delete(_:ifRevision:)``).
    ///
    /// - Throws: ``StoreError/unknownCatalog(_:)``; ``StoreError/rejected(catalog:_:)`` with a
    ///   stale revision when an `ifRevision` is not the catalogue's current one.
    public func delete(_ requests: [(name: String, ifRevision: Int?)]) async throws(StoreError) -> [DeletedCatalog] {
        let requests = requests.map { (name: Identifier.canonical($0.name), ifRevision: $0.ifRevision) }
        let logger = self.logger
        let deleted = try await transaction { connection in
            var deleted: [(DeletedCatalog, Int64)] = []
            // Rows locked in one order (by name), as every write that locks several does.
            for index in requests.indices.sorted(by: { Array(requests[$0].name.utf8).lexicographicallyPrecedes(requests[$1].name.utf8) }) {
                let (name, ifRevision) = requests[index]
                guard let (pk, revision) = try await Self.catalogRow(named: name, on: connection, logger: logger, locking: true) else {
                    throw StoreError.unknownCatalog(name)
                }
                if let ifRevision, ifRevision != revision {
                    throw StoreError.rejected(catalog: name, BatchError(reason: .staleRevision(base: ifRevision, current: revision)))
                }
                var counts = (sections: 0, items: 0)
                for try await (sections, items) in try await connection.query("""
                    SELECT (SELECT count(*) FROM section WHERE catalog_pk = \(pk)), (SELECT count(*) FROM item WHERE catalog_pk = \(pk))
                    """, logger: logger).decode((Int64, Int64).self) {
                    counts = (Int(sections), Int(items))
                }
                try await connection.query("""
                    INSERT INTO retired_catalog (name, revision) VALUES (\(name), \(Int64(revision)))
                    ON CONFLICT (name) DO UPDATE SET revision = excluded.revision
                    """, logger: logger)
                try await connection.query("DELETE FROM catalog WHERE pk = \(pk)", logger: logger)
                try await connection.query("SELECT pg_notify(\(Self.channel), \(Self.payload(name: name, revision: nil)))", logger: logger)
                deleted.append((DeletedCatalog(name: name, revision: revision, sections: counts.sections, items: counts.items), pk))
            }
            return deleted
        }
        for (catalog, pk) in deleted { snapshots.forget(pk: pk, named: catalog.name) }
        notifier.didDelete(deleted.map { $0.0.name })
        // In the order asked.
        return requests.map { request in deleted.first { $0.0.name == request.name }!.0 }
    }
}
