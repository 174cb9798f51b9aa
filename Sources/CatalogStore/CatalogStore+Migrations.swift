import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// Applies the numbered SQL files of `Migrations/` in order, each in its own transaction,
    /// recording which ran (GRDB's `grdb_migrations` table), so a database of any earlier version
    /// opens at the latest one with its data intact.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        for migration in EmbeddedMigrations.all {
            migrator.registerMigration(migration.name) { db in
                try db.execute(sql: migration.text)
            }
        }
        return migrator
    }()

    /// Applies the migrations `writer`'s database lacks, up to `target` (all when nil), given the
    /// ones it records as applied (`recorded`).
    ///
    /// GRDB reads which migrations ran before it opens each one's transaction, so processes that
    /// open a new database at once (instances of a deploy, a test harness) may start the same
    /// migration; all but the first fail on the tables it made, and roll back. A failure after
    /// which the database records more migrations than before it was such a race: the recorded
    /// migrations are read again and the rest applied. Each retry needs another opener to have
    /// applied a migration meanwhile, so it ends; any other failure is thrown.
    static func migrate(_ writer: any DatabaseWriter, upTo target: String?, recorded: [String]) throws {
        var before = recorded
        while true {
            do {
                if let target { try migrator.migrate(writer, upTo: target) } else { try migrator.migrate(writer) }
                return
            } catch {
                guard let after = try? writer.writeWithoutTransaction(recordedMigrations), after.count > before.count else {
                    throw error
                }
                before = after
            }
        }
    }

    /// The identifiers of every migration this build knows, oldest first (`0001_initial`, …).
    public static var migrationIDs: [String] {
        EmbeddedMigrations.all.map(\.name)
    }

    /// Every migration the database records as applied, known to this build or not (GRDB's
    /// `appliedMigrations` names only the ones it knows).
    static func recordedMigrations(_ db: Database) throws -> [String] {
        try db.tableExists("grdb_migrations") ? String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") : []
    }

    /// The migrations applied to this database, oldest first.
    public func appliedMigrations() throws(StoreError) -> [String] {
        try read { db in try Self.migrator.appliedMigrations(db) }
    }
}
