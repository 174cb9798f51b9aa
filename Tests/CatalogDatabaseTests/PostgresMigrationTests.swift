import CatalogPostgres
import CatalogStore
import CatalogTestSupport
import Foundation
import PostgresNIO
import Testing

/// Opening a PostgreSQL database applies Migrations/postgres/ once, whichever instances open it
/// at the same moment, and refuses a database a newer version migrated or another program owns.
@Suite(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
struct PostgresMigrationTests {
    /// Runs `body` with a new database's URL and a connection to it.
    func withNewDatabase(_ body: (String, PostgresConnection) async throws -> Void) async throws {
        let name = try await TestPostgres.createDatabase()
        let url = TestPostgres.url(TestPostgres.url!, database: name)
        let location = try PostgresLocation(url: url)
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: location.host, port: location.port, username: location.user, password: nil,
                                 database: location.database, tls: .disable),
            id: 9, logger: TestPostgres.logger)
        do {
            try await body(url, connection)
        } catch {
            try? await connection.close()
            try? await TestPostgres.dropDatabase(name)
            throw error
        }
        try await connection.close()
        try await TestPostgres.dropDatabase(name)
    }

    @Test func instancesOpeningAtOnceMigrateOnce() async throws {
        try await withNewDatabase { url, _ in
            let stores = try await withThrowingTaskGroup(of: PostgresCatalogStore.self) { group in
                for _ in 0..<4 { group.addTask { try await PostgresCatalogStore.open(url: url, maximumConnections: 2) } }
                var stores: [PostgresCatalogStore] = []
                for try await store in group { stores.append(store) }
                return stores
            }
            for store in stores {
                #expect(try await store.appliedMigrations() == PostgresCatalogStore.migrationIDs)
                store.close()
            }
        }
    }

    @Test func aDatabaseMigratedByANewerVersionIsRefused() async throws {
        try await withNewDatabase { url, connection in
            try await PostgresCatalogStore.open(url: url).close()
            try await connection.query("INSERT INTO catalog_migration (name) VALUES ('9999_future')", logger: TestPostgres.logger)
            await #expect {
                try await PostgresCatalogStore.open(url: url)
            } throws: { error in
                guard case StoreError.cannotOpen(_, let reason)? = error as? StoreError else { return false }
                return reason.contains("migrated by a newer version") && reason.contains("9999_future")
            }
        }
    }

    @Test func anotherProgramsTablesAreLeftAlone() async throws {
        try await withNewDatabase { url, connection in
            try await connection.query("CREATE TABLE item (sku TEXT PRIMARY KEY)", logger: TestPostgres.logger)
            await #expect {
                try await PostgresCatalogStore.open(url: url)
            } throws: { error in
                guard case StoreError.cannotOpen(_, let reason)? = error as? StoreError else { return false }
                return reason.contains("not a catalogue database")
            }
            // Nothing of the schema was left behind.
            var tables: [String] = []
            for try await name in try await connection.query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
                                                             logger: TestPostgres.logger).decode(String.self) { tables.append(name) }
            #expect(tables == ["item"])
        }
    }
}
