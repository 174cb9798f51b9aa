import CatalogDiff
import CatalogModel
import CatalogStoreCore
import PostgresNIO

extension PostgresCatalogStore {
    /// How many items one insert statement carries (a JSON document of about a megabyte).
    static let itemsPerStatement = 5_000

    /// Stores several catalogues in one transaction, each replacing the content of any catalogue
    /// of its name or creating it: all of them land, or none does. A catalogue created under the
    /// name of a deleted one goes on from its revisions.
    ///
    /// - Throws: ``StoreError/invalidCatalog(_:)`` or ``StoreError/catalogNamedTwice(_:sources:)``
    ///   before touching the database; ``StoreError/database(_:)``,
    ///   ``StoreError/unavailable(location:reason:)``.
    @discardableResult
    public func replace(_ catalogs: [(Catalog, ImportRecord?)],
                        progress: ((_ written: Int, _ total: Int) -> Void)? = nil) async throws(StoreError) -> [WriteResult] {
        let catalogs = try StoreRules.checkedForReplacing(catalogs)
        let total = catalogs.reduce(0) { $0 + $1.0.itemCount }
        let (logger, snapshots) = (self.logger, self.snapshots)
        // Locks in one order (by name) whatever order the caller gave, so two imports of the same
        // catalogues never wait for each other in a circle.
        let ordered = catalogs.enumerated().sorted { Array($0.element.0.name.utf8).lexicographicallyPrecedes($1.element.0.name.utf8) }
        nonisolated(unsafe) let progress = progress
        let results = try await transaction { connection in
            var written = 0
            var results = [WriteResult?](repeating: nil, count: catalogs.count)
            for (index, (catalog, record)) in ordered {
                results[index] = try await Self.replace(catalog, record: record, snapshots: snapshots, on: connection, logger: logger) { count in
                    written += count
                    progress?(written, total)
                }
            }
            return results.map { $0! }
        }
        notifier.didCommit(results.map { ($0.catalog, $0.revision) })
        await refreshStatistics(afterWriting: total + catalogs.reduce(0) { $0 + $1.0.sections.count })
        return results
    }

    /// What ``replace(_:progress:)`` would make of `catalogs` — the revisions and changesets —
    /// in a transaction that is rolled back: nothing is written.
    public func previewReplacing(_ catalogs: [(Catalog, ImportRecord?)]) async throws(StoreError) -> [WriteResult] {
        let catalogs = try StoreRules.checkedForReplacing(catalogs)
        let (logger, snapshots) = (self.logger, self.snapshots)
        return try await rolledBack { connection in
            var results: [WriteResult] = []
            for (catalog, record) in catalogs {
                results.append(try await Self.replace(catalog, record: record, snapshots: snapshots, on: connection, logger: logger) { _ in })
            }
            return results
        }
    }

    /// Inserts the sections and items of `catalog` into the empty catalogue `catalogPK`, with
    /// fresh order keys, ``itemsPerStatement`` items at a time; `wrote` hears each batch's count.
    static func insertContent(of catalog: Catalog, catalogPK: Int64, on connection: PostgresConnection, logger: Logger,
                              wrote: (Int) -> Void) async throws {
        if !catalog.sections.isEmpty {
            var rows = JSONRecords()
            for (position, section) in catalog.sections.enumerated() {
                rows.append { row in
                    row.text("id", section.id)
                    row.integer("position", position)
                    row.text("kind", section.kind.rawValue)
                    row.text("title", section.title)
                    row.integer("capacity", section.capacity)
                }
            }
            try await connection.query("""
                INSERT INTO section (catalog_pk, id, position, kind, title, capacity)
                SELECT \(catalogPK), r.id, r.position, r.kind, r.title, r.capacity
                FROM json_to_recordset(\(rows.document)::json) AS r(id TEXT, position INTEGER, kind TEXT, title TEXT, capacity INTEGER)
                """, logger: logger)
        }
        var rows = ItemRows.Writer()
        func flush() async throws {
            guard rows.count > 0 else { return }
            var count = 0
            for try await _ in try await connection.query(ItemRows.upsert(rows.document, catalogPK: catalogPK), logger: logger) { count += 1 }
            guard count == rows.count else { throw StoreError.database("\(rows.count - count) items found no section") }
            wrote(count)
            rows = ItemRows.Writer()
        }
        for section in catalog.sections {
            for (index, item) in section.items.enumerated() {
                rows.append(item, section: section.id, key: OrderKeys.key(atIndex: index))
                if rows.count == itemsPerStatement { try await flush() }
            }
        }
        try await flush()
    }

    private static func replace(_ catalog: Catalog, record: ImportRecord?, snapshots: SnapshotCache, on connection: PostgresConnection,
                                logger: Logger, wrote: (Int) -> Void) async throws -> WriteResult {
        let name = catalog.name
        var binds = PostgresBindings()
        binds.append(name)
        // A new catalogue goes on from the revisions of a deleted one of the same name.
        try await connection.query(PostgresQuery(unsafeSQL: StoreSQL.insertCatalog(name: "$1"), binds: binds), logger: logger)
        guard let (catalogPK, previousRevision) = try await catalogRow(named: name, on: connection, logger: logger, locking: true) else {
            throw StoreError.database("the catalogue \(name) vanished while it was written")
        }
        // The old content, for the changeset and the journal: kept, or read under the lock.
        var old = Catalog(name: name, revision: previousRevision)
        if let kept = snapshots.catalog(pk: catalogPK, named: name, revision: previousRevision) {
            old = kept
        } else if let (_, loaded) = try await loadCatalog(named: name, on: connection, logger: logger) {
            old = loaded
        }
        try await connection.query("DELETE FROM section WHERE catalog_pk = \(catalogPK)", logger: logger)
        try await insertContent(of: catalog, catalogPK: catalogPK, on: connection, logger: logger, wrote: wrote)
        try await verify(sections: nil, catalog: name, catalogPK: catalogPK, checkOrder: false, on: connection, logger: logger)
        let revision = previousRevision + 1
        if let record {
            try await connection.query("""
                INSERT INTO import (catalog_pk, revision, source, format, shape, sections, items, derived_ids, duplicates, ignored_keys)
                VALUES (\(catalogPK), \(Int64(revision)), \(record.source), \(record.format), \(record.shape),
                        \(Int64(catalog.sections.count)), \(Int64(catalog.itemCount)), \(Int64(record.derivedIDs)),
                        \(Int64(record.duplicates)), \(Int64(record.ignoredKeys)))
                """, logger: logger)
        }
        var new = catalog
        new.revision = revision
        try await commitRevision(revision, of: catalogPK, named: name, patch: RevisionPatch(from: new, to: old), on: connection, logger: logger)
        old.revision = previousRevision
        return try StoreRules.replacement(of: old, by: new)
    }
}
