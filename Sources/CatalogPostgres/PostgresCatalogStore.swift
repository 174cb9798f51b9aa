import CatalogModel
import CatalogStoreCore
import Foundation
import Logging
import PostgresNIO

/// Catalogues in a PostgreSQL database, which several processes (`catalog serve` instances on
/// several machines) share: the same operations and guarantees as ``CatalogStore``, SQLite's.
///
/// Every write is one transaction that first locks its catalogue's row, so the writes to one
/// catalogue commit one at a time and each raises the revision by exactly one, whichever process
/// makes them; writes to different catalogues never wait for each other. Inside the lock a write
/// reads the sections it touches, runs the same ``CatalogEditor`` as SQLite's store (the only
/// place of the batch, move and capacity rules) and writes back the rows that changed, with the
/// journal entry that undoes it. Opening applies the numbered files of `Migrations/postgres/`
/// and refuses a database that a newer version migrated further.
public final class PostgresCatalogStore: CatalogDatabase, @unchecked Sendable {
    /// The database's URL, without its password.
    public let location: String
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    /// Catalogues read whole lately, at their revisions (a revision's rows never change).
    let snapshots = SnapshotCache()
    /// Wakes observers: at once for this store's writes, on NOTIFY for other instances'.
    package let notifier: ChangeNotifier
    /// Updates observers share.
    let updateCache = UpdateCache()
    package let views = SharedViews()
    /// Whether the server answers (``DatabaseHealth``).
    let health = DatabaseHealth()
    /// Observers' updates, computed one catalogue's at a time.
    let observerTurns = TurnTaking()
    /// What observers' reads of each catalogue's present found lately, for those woken with them.
    let presentReads = PresentReads()
    /// Batches of items waiting to be written together, by catalogue.
    let itemWrites = ItemWriteQueue()
    /// The pool's use and the notifications heard, for metrics.
    let connectionUse = ConnectionUse()
    /// The row keys of catalogues written through this store.
    let catalogKeys = CatalogKeys()
    /// How often a listener reads every revision, in case a notification was lost.
    public static let watchInterval: Duration = .seconds(1)

    /// Connects to the database at `url` (see ``PostgresLocation``) and migrates it to the latest
    /// schema.
    ///
    /// - Parameter maximumConnections: the size of the connection pool.
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` naming the host, the database and why
    ///   (unreachable, refused password, not a CatalogKit database, migrated by a newer version);
    ///   never the password.
    public static func open(url: String, maximumConnections: Int = 20, logger: Logger? = nil) async throws(StoreError) -> PostgresCatalogStore {
        let location = try PostgresLocation(url: url)
        let logger = logger ?? Logger(label: "catalog.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        // One connection first, so that a wrong host or password is an error now rather than a
        // pool retrying in the background.
        do {
            let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(),
                                                                  id: 0, logger: logger)
            try? await connection.close()
        } catch {
            throw .cannotOpen(path: location.description, reason: Self.describe(error))
        }
        var configuration = location.clientConfiguration()
        configuration.options.maximumConnections = max(1, maximumConnections)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let store = PostgresCatalogStore(location: location.description, client: client, logger: logger,
                                         listening: try? location.connectionConfiguration())
        do {
            try await store.migrate()
        } catch {
            store.close()
            if case .database(let reason) = error { throw .cannotOpen(path: location.description, reason: reason) }
            throw .cannotOpen(path: location.description, reason: error.description)
        }
        return store
    }

    private init(location: String, client: PostgresClient, logger: Logger, listening: PostgresConnection.Configuration?) {
        self.location = location
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
        if let listening { health.start(listening, logger: logger) }
        let connectionUse = self.connectionUse
        notifier = ChangeNotifier { notifier in
            guard let listening else { return }
            await Self.watch(listening, client: client, every: Self.watchInterval, logger: logger, heard: connectionUse.heard, notifier)
        }
    }

    deinit {
        runner.cancel()
        health.stop()
    }

    /// Closes the pool's connections; later calls fail.
    public func close() {
        runner.cancel()
        health.stop()
    }

    /// Nil while the server answers; otherwise why not, as the last check found (checks run
    /// every quarter of a second, and one that takes a second counts as failed).
    public func readinessProblem() -> String? {
        health.unavailableReason.map { "the database \(location) is unavailable: \($0)" }
    }

    public func statistics() -> DatabaseStatistics { connectionUse.statistics }

    // MARK: Errors

    /// The readable part of an error from the driver or the server: the server's message, or
    /// what went wrong with the connection. Never the query's text or its values.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return message
            }
            if let underlying = error.underlying {
                return "\(underlying)"
            }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// A ``StoreError`` for what the driver threw during an operation.
    func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if error is ConnectionClosed { return .unavailable(location: location, reason: "the server closed the connection") }
        if let error = error as? PSQLError {
            // A lost connection, or the server shutting down or refusing connections for now
            // (SQLSTATE classes 08 and 57): the request may be retried.
            let state = error.serverInfo?[.sqlState] ?? ""
            if error.code != .server || state.hasPrefix("08") || state.hasPrefix("57") {
                return .unavailable(location: location, reason: Self.describe(error))
            }
        }
        return .database(Self.describe(error))
    }

    /// Runs `body` in a transaction on a pooled connection: committed when it returns, rolled
    /// back when it throws (then the error is a ``StoreError``).
    func transaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError) -> Result {
        try await explicitTransaction("BEGIN", ending: "COMMIT", body)
    }

    /// Runs `body` on a pooled connection, outside any transaction.
    func withConnection<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError) -> Result {
        do {
            return try await leasing { leased in
                try await self.client.withOpenConnection { connection in
                    leased()
                    return try await body(connection)
                }
            }
        } catch {
            throw storeError(error)
        }
    }

    /// How long an operation may wait for a pooled connection before it is answered
    /// ``StoreError/unavailable(location:reason:)``.
    public static let leaseTimeout: Duration = .seconds(30)

    /// Runs `operation`, which calls `leased` once it holds a connection — unless the server
    /// counts as gone (``DatabaseHealth``), or ``leaseTimeout`` passes, before then: then it is
    /// cancelled and the answer is ``StoreError/unavailable(location:reason:)``. Once leased, the
    /// operation ends by itself (a write whose commit was sent is never abandoned half-way by this).
    private func leasing<Result: Sendable>(_ operation: @escaping @Sendable (_ leased: @escaping @Sendable () -> Void) async throws -> Result) async throws -> Result {
        if let reason = health.unavailableReason { throw StoreError.unavailable(location: location, reason: reason) }
        let state = LeaseState(use: connectionUse)
        defer { state.end() }
        let health = self.health
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await operation { state.lease() } }
            group.addTask {
                await health.waitUntilUnavailable(atMost: Self.leaseTimeout)
                // Holding a connection already: the operation finishes or fails by itself.
                while state.isLeased, !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next() ?? nil else {
                throw StoreError.unavailable(location: location, reason: health.unavailableReason
                                             ?? "no connection to the database became free within \(Self.leaseTimeout)")
            }
            return result
        }
    }

    /// Runs `body` in a transaction that is rolled back whatever happens: a dry run.
    func rolledBack<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError) -> Result {
        try await explicitTransaction("BEGIN", ending: "ROLLBACK", body)
    }

    /// Runs `body` between `begin` and `ending` (`COMMIT` or `ROLLBACK`) on a pooled connection;
    /// rolled back when it throws.
    func explicitTransaction<Result: Sendable>(_ begin: String, ending: String,
                                               _ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws(StoreError) -> Result {
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: begin), logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query(PostgresQuery(unsafeSQL: ending), logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

}

/// Whether an operation holds its connection yet; counted in the store's ``ConnectionUse`` from
/// creation (waiting) to ``end()``.
private final class LeaseState: @unchecked Sendable {
    private let lock = NSLock()
    private let use: ConnectionUse
    private var leased = false
    private var ended = false

    init(use: ConnectionUse) {
        self.use = use
        use.wait()
    }

    func lease() {
        lock.withLock {
            guard !leased, !ended else { return }
            leased = true
            use.lease()
        }
    }

    var isLeased: Bool { lock.withLock { leased && !ended } }

    func end() {
        lock.withLock {
            guard !ended else { return }
            ended = true
            use.end(leased: leased)
        }
    }
}

extension PostgresLocation {
    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketFolder {
            return .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        return .init(host: host, port: port, username: user, password: password, database: database, tls: try tlsConfiguration())
    }

    func clientConfiguration() -> PostgresClient.Configuration {
        if let socketFolder {
            return .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        return .init(host: host, port: port, username: user, password: password, database: database,
                     tls: clientTLSConfiguration)
    }

    private func tlsConfiguration() throws -> PostgresConnection.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    private var clientTLSConfiguration: PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }
}
