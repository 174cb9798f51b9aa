import CatalogStoreCore
import PostgresNIO

extension PostgresCatalogStore {
    /// The identifiers of every migration this build knows, oldest first (`0001_initial`, …).
    public static var migrationIDs: [String] {
        EmbeddedMigrations.all.map(\.name)
    }

    /// The migrations applied to this database, oldest first.
    public func appliedMigrations() async throws(StoreError) -> [String] {
        let logger = self.logger
        return try await withConnection { connection in
            var names: [String] = []
            for try await name in try await connection.query("SELECT name FROM catalog_migration ORDER BY name", logger: logger)
                .decode(String.self) { names.append(name) }
            return names
        }
    }

    /// Applies the numbered files of `Migrations/postgres/` that the database lacks, all in one
    /// transaction, recording each in `catalog_migration`. Instances opening at once take turns
    /// (a transaction-scoped advisory lock), so each migration runs once.
    ///
    /// - Throws: a reason when the database holds tables of another program, or migrations this
    ///   build does not know (a newer version migrated it: this one would misread it).
    func migrate() async throws(StoreError) {
        let (known, logger) = (Self.migrationIDs, self.logger)
        try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS catalog_migration (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: [String] = []
            for try await name in try await connection.query("SELECT name FROM catalog_migration ORDER BY name", logger: logger)
                .decode(String.self) { applied.append(name) }
            if let reason = StoreRules.newerSchemaReason(applied: applied, known: known) { throw StoreError.database(reason) }
            if applied.isEmpty {
                // A fresh schema goes only where no other program's `catalog` table is.
                let rows = try await connection.query("""
                    SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('catalog', 'section', 'item')
                    """, logger: logger)
                for try await count in rows.decode(Int.self) where count > 0 {
                    throw StoreError.database("the database holds tables named catalog, section or item that CatalogKit did not make: not a catalogue database")
                }
            }
            for migration in EmbeddedMigrations.all where !applied.contains(migration.name) {
                for statement in SQLScript.statements(migration.text) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO catalog_migration (name) VALUES (\(migration.name))", logger: logger)
            }
        }
    }

    /// The advisory lock migrations take: any number, the same in every version.
    static let migrationLock: Int64 = 0x4361_7461_6C6F_67  // "Catalog"
}
