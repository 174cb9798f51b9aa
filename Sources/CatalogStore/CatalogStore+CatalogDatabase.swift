import CatalogModel
import CatalogStoreCore
import GRDB

extension CatalogStore: CatalogDatabase {
    public var location: String { path }

    /// Closes every connection the store has to its file — its pool, its revision reader, its
    /// checkpointer and its watch of other connections (which ends with its task) — so that the
    /// file can be copied or removed: a connection left open keeps SQLite's shared memory mapped,
    /// and another process that finds no lock on it may truncate it under that mapping.
    public func close() {
        notifier.stopWatching(.cannotWatch(path: path, reason: "the store was closed"))
        revisions.close()
        checkpointer?.close()
        try? (writer as? DatabasePool)?.close()
        try? (writer as? DatabaseQueue)?.close()
    }

    /// Nil when a read of the database file succeeds.
    public func readinessProblem() -> String? {
        do {
            _ = try read { db in try Int.fetchOne(db, sql: "SELECT 1") }
            return nil
        } catch {
            return error.description
        }
    }

    public func previewReplacing(_ catalogs: [(Catalog, ImportRecord?)]) throws(StoreError) -> [WriteResult] {
        try Self.previewReplacing(catalogs, in: self)
    }
}
