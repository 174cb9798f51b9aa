import CatalogConcurrency
import CatalogStoreCore
import Foundation
import GRDB

/// Reads a catalogue's row key and revision, for ``CatalogStore/revision(of:)``, on a read-only
/// connection of its own.
///
/// The HTTP API asks for the revision on every read (it is the snapshot's ETag and the response
/// cache's key). Through the `DatabasePool` that one-row lookup cost 19–20 µs — borrowing a
/// reader, GRDB's checks and queue hops — against 6–7 µs for the same statement in autocommit on
/// a connection kept for it (a temporary driver, 100,000 calls each). Like any new SQLite read,
/// the statement sees every write committed before it starts, from this store or any other
/// connection. The connection opens on first use (most commands never ask); a store held in
/// memory, or a file that cannot be opened read-only, reads through the store's own connections.
final class RevisionReader: Sendable {
    private let path: String
    /// The store's writer, for when there is no connection of its own.
    private let fallback: any DatabaseWriter
    private struct State {
        var connection: DatabaseQueue?
        var unavailable: Bool
        var count = 0
    }
    private let state: Locked<State>

    private let options: StoreConfiguration

    init(path: String, fallback: any DatabaseWriter, options: StoreConfiguration = StoreConfiguration()) {
        self.path = path
        self.options = options
        self.fallback = fallback
        state = Locked(State(unavailable: path == ":memory:" || path.isEmpty))
    }

    /// The row key and revision of the catalogue named `name`, or nil when there is none.
    func catalogRow(named name: String) throws -> (pk: Int64, revision: Int)? {
        state.withLock { $0.count += 1 }
        guard let connection = openConnection() else {
            return try fallback.unsafeReentrantRead { db in try CatalogStore.catalogRow(named: name, in: db) }
        }
        return try connection.inDatabase { db in try CatalogStore.catalogRow(named: name, in: db) }
    }

    /// How many lookups were made (for tests).
    var lookUps: Int { state.withLock { $0.count } }

    /// Closes the connection of its own; lookups go through the store's connections from then on
    /// (which fail once the store is closed).
    func close() {
        state.withLock { state in
            try? state.connection?.close()
            state.connection = nil
            state.unavailable = true
        }
    }

    /// Whether lookups run on a connection of this reader's own (for tests).
    var hasOwnConnection: Bool { state.withLock { $0.connection != nil } }

    private func openConnection() -> DatabaseQueue? {
        state.withLock { state in
            if let connection = state.connection { return connection }
            if state.unavailable { return nil }
            var configuration = CatalogStore.configuration(options)
            configuration.readonly = true
            configuration.label = "CatalogKit.RevisionReader"
            state.connection = try? DatabaseQueue(path: path, configuration: configuration)
            state.unavailable = state.connection == nil
            return state.connection
        }
    }
}
