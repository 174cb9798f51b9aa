import Foundation
import GRDB

/// Reads a catalogue's row key and revision on a read-only connection of its own.
///
/// The HTTP API asks for the revision on every read (it is the snapshot's ETag and the response
/// cache's key). Through the `DatabasePool` that one-row lookup cost about 20 µs — borrowing a
/// reader, GRDB's checks and queue hops — against about 8 µs for the same statement in
/// autocommit on a connection kept for it (a temporary driver, 100,000 calls each). Like any
/// new SQLite read, the statement sees every write committed before it starts, from this store
/// or any other connection. The connection opens on first use; a store held in memory, or a file
/// this connection cannot open, reads through the pool as before.
final class RevisionReader: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var connection: DatabaseQueue?
    private var unavailable: Bool

    init(path: String) {
        self.path = path
        unavailable = path == ":memory:" || path.isEmpty
    }

    /// The row key and revision of the catalogue named `name` (nil when there is none), or nil
    /// for the whole answer when this reader has no connection (the caller reads another way).
    func catalogRow(named name: String) throws -> (pk: Int64, revision: Int)?? {
        guard let connection = self.openConnection() else { return .none }
        return .some(try connection.inDatabase { db in try CatalogStore.catalogRow(named: name, in: db) })
    }

    private func openConnection() -> DatabaseQueue? {
        lock.withLock {
            if let connection { return connection }
            if unavailable { return nil }
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            configuration.label = "CatalogKit.RevisionReader"
            connection = try? DatabaseQueue(path: path, configuration: configuration)
            unavailable = connection == nil
            return connection
        }
    }
}
