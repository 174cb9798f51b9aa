import CatalogModel
import CatalogPostgres
import CatalogStore
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

/// The engines a ``CatalogDatabase`` test runs on.
public enum Backend: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    public var testDescription: String { rawValue }

    /// SQLite always; PostgreSQL when a server is there (``TestPostgres/url``).
    public static let available: [Backend] = TestPostgres.url == nil ? [.sqlite] : [.sqlite, .postgres]
}

/// The PostgreSQL server the tests use: the one `CATALOG_TEST_POSTGRES_URL` names (`.ci/run`
/// starts one), else a throwaway cluster this process starts with Scripts/postgres.sh when
/// PostgreSQL is installed, and stops when it exits. Nil on a machine without PostgreSQL: then
/// CatalogDatabaseTests' `PostgresAvailabilityTests` says so in one skipped test, and fails when
/// `CATALOG_REQUIRE_POSTGRES` is set (CI).
public enum TestPostgres {
    public static let url: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["CATALOG_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        return startCluster()
    }()

    public static var isRequired: Bool { ProcessInfo.processInfo.environment["CATALOG_REQUIRE_POSTGRES"].map { !$0.isEmpty } ?? false }

    /// Where the cluster this process started lives (stopped at exit).
    nonisolated(unsafe) private static var clusterFolder: String?

    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/postgres.sh").path

    /// Runs Scripts/postgres.sh; whether it succeeded. (Spawned and waited for directly: the
    /// server it starts inherits the descriptors, and `Process` waits on a run loop that a
    /// static initializer of a test process may not have.)
    private static func runScript(_ arguments: [String]) -> Bool {
        var actions: posix_spawn_file_actions_t = .init()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = (["/bin/bash", script] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ) == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status == 0
    }

    private static func startCluster() -> String? {
        let temporary = FileManager.default.temporaryDirectory
        // Clusters of test processes that were killed before they could stop theirs.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        where name.hasPrefix("catalog-tests-pg-") {
            guard let pid = name.dropFirst("catalog-tests-pg-".count).split(separator: "-").first.flatMap({ Int32($0) }),
                  kill(pid, 0) != 0 else { continue }
            let stale = temporary.appendingPathComponent(name).path
            _ = runScript(["stop", stale])
            try? FileManager.default.removeItem(atPath: stale)
        }
        let folder = temporary.appendingPathComponent("catalog-tests-pg-\(getpid())").path
        guard runScript(["start", folder]),
              let url = try? String(contentsOfFile: folder + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
              !url.isEmpty
        else { return nil }
        clusterFolder = folder
        atexit {
            guard let folder = TestPostgres.clusterFolder else { return }
            _ = TestPostgres.runScript(["stop", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        return url
    }

    /// A PostgreSQL server of the caller's own (a test that stops and starts it), when
    /// PostgreSQL is installed: its URL and folder. ``stopCluster(_:)``, ``resumeCluster(_:)``,
    /// and ``removeCluster(_:)`` at the end.
    public static func privateCluster() -> (url: String, folder: String)? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-tests-pg-\(getpid())-\(UUID().uuidString.prefix(8))").path
        guard runScript(["start", folder]),
              let url = try? String(contentsOfFile: folder + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        else { return nil }
        return (url, folder)
    }

    public static func stopCluster(_ folder: String) { _ = runScript(["stop", folder]) }
    @discardableResult public static func resumeCluster(_ folder: String) -> Bool { runScript(["resume", folder]) }
    public static func removeCluster(_ folder: String) {
        _ = runScript(["stop", folder])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// `url` with its database replaced by `database`.
    public static func url(_ base: String, database: String) -> String {
        var components = URLComponents(string: base)!
        components.path = "/" + database
        return components.string!
    }

    /// Creating, migrating and dropping the tests' databases, two at a time. The suite runs
    /// its tests at once, and fifty `CREATE DATABASE`s started together keep the server's
    /// cores busy for seconds — long enough for another test's request to time out.
    static let setUpGate = Gate(slots: 2)

    /// `body` holding one of ``setUpGate``'s slots.
    static func settingUp<T>(_ body: () async throws -> T) async throws -> T {
        await setUpGate.enter()
        do {
            let result = try await body()
            await setUpGate.leave()
            return result
        } catch {
            await setUpGate.leave()
            throw error
        }
    }

    /// A new, empty database on the test server; its name.
    public static func createDatabase() async throws -> String {
        let name = "catalog_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try await settingUp {
            try await admin { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
            }
        }
        return name
    }

    /// A store on the test server's database `name` (migrated as it opens).
    static func openStore(on name: String) async throws -> PostgresCatalogStore {
        try await settingUp {
            try await PostgresCatalogStore.open(url: url(self.url!, database: name), maximumConnections: 8)
        }
    }

    /// A store on a new database of the test server; its name and the store.
    static func openNewStore() async throws -> (name: String, store: PostgresCatalogStore) {
        let name = try await createDatabase()
        do {
            return (name, try await openStore(on: name))
        } catch {
            try? await dropDatabase(name)
            throw error
        }
    }

    /// Runs `body` with a new, empty database's URL and a connection to it; drops the database
    /// afterwards.
    public static func withNewDatabase(_ body: (String, PostgresConnection) async throws -> Void) async throws {
        let name = try await createDatabase()
        let databaseURL = url(self.url!, database: name)
        let location = try PostgresLocation(url: databaseURL)
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: location.host, port: location.port, username: location.user, password: nil,
                                 database: location.database, tls: .disable),
            id: 9, logger: logger)
        do {
            try await body(databaseURL, connection)
        } catch {
            try? await connection.close()
            try? await dropDatabase(name)
            throw error
        }
        try await connection.close()
        try await dropDatabase(name)
    }

    public static func dropDatabase(_ name: String) async throws {
        try await settingUp {
            try await admin { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
            }
        }
    }

    public static let logger = Logger(label: "catalog.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` on a connection to the server's own database (of the server at `url`, by
    /// default the test server).
    public static func admin(url: String? = nil, _ body: (PostgresConnection) async throws -> Void) async throws {
        let location = try PostgresLocation(url: url ?? self.url!)
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: location.host, port: location.port, username: location.user, password: nil,
                                 database: location.database, tls: .disable),
            id: 1, logger: logger)
        do {
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}

/// A new, empty database on `backend` for the duration of `body`: SQLite in memory, or a
/// database of its own on the PostgreSQL test server (dropped afterwards).
public func withDatabase<Result>(_ backend: Backend, _ body: (any CatalogDatabase) async throws -> Result) async throws -> Result {
    switch backend {
    case .sqlite:
        return try await body(try CatalogStore.inMemory())
    case .postgres:
        let (name, store) = try await TestPostgres.openNewStore()
        do {
            let result = try await body(store)
            store.close()
            try await TestPostgres.dropDatabase(name)
            return result
        } catch {
            store.close()
            try? await TestPostgres.dropDatabase(name)
            throw error
        }
    }
}

/// Two handles on one new database — two stores on one SQLite file, two pools on one PostgreSQL
/// database — as two processes would have them.
public func withTwoHandles<Result>(_ backend: Backend, _ body: (any CatalogDatabase, any CatalogDatabase) async throws -> Result) async throws -> Result {
    switch backend {
    case .sqlite:
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-two-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("two.sqlite").path
        return try await body(try CatalogStore(path: path), try CatalogStore(path: path))
    case .postgres:
        let (name, first) = try await TestPostgres.openNewStore()
        let second: PostgresCatalogStore
        do {
            second = try await TestPostgres.openStore(on: name)
        } catch {
            first.close()
            try? await TestPostgres.dropDatabase(name)
            throw error
        }
        defer {
            first.close()
            second.close()
        }
        do {
            let result = try await body(first, second)
            try await TestPostgres.dropDatabase(name)
            return result
        } catch {
            try? await TestPostgres.dropDatabase(name)
            throw error
        }
    }
}

/// A counting semaphore for tasks: at most `slots` between ``enter()`` and ``leave()``, the
/// others waiting in the order they came.
actor Gate {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(slots: Int) { free = slots }

    func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// A new, empty database on `backend` for the duration of `body`, with a way to write SQL to it
/// past the store's rules — as a version before a rule, or a tool, would have written it — on a
/// connection of its own: a SQLite file (removed afterwards), or a database of its own on the
/// PostgreSQL test server.
public func withDatabaseAndSQL<Result>(
    _ backend: Backend, _ body: (any CatalogDatabase, _ execute: (String) async throws -> Void) async throws -> Result
) async throws -> Result {
    switch backend {
    case .sqlite:
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let store = try CatalogStore(path: path)
        defer { store.close() }
        let connection = try DatabaseQueue(path: path)
        defer { try? connection.close() }
        return try await body(store) { sql in try await connection.write { db in try db.execute(sql: sql) } }
    case .postgres:
        let name = try await TestPostgres.createDatabase()
        do {
            let store = try await TestPostgres.openStore(on: name)
            let location = try PostgresLocation(url: TestPostgres.url(TestPostgres.url!, database: name))
            let connection = try await PostgresConnection.connect(
                configuration: .init(host: location.host, port: location.port, username: location.user, password: nil,
                                     database: location.database, tls: .disable),
                id: 10, logger: TestPostgres.logger)
            let result: Result
            do {
                result = try await body(store) { sql in
                    try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestPostgres.logger)
                }
            } catch {
                try? await connection.close()
                store.close()
                throw error
            }
            try await connection.close()
            store.close()
            try await TestPostgres.dropDatabase(name)
            return result
        } catch {
            try? await TestPostgres.dropDatabase(name)
            throw error
        }
    }
}
