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
    @Test func instancesOpeningAtOnceMigrateOnce() async throws {
        try await TestPostgres.withNewDatabase { url, _ in
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
        try await TestPostgres.withNewDatabase { url, connection in
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
        try await TestPostgres.withNewDatabase { url, connection in
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
