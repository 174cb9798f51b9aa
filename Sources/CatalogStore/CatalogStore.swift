import CatalogModel
import CatalogStoreCore
import Foundation
import GRDB

/// The SQLite database that holds catalogues, opened through GRDB.
///
/// A file database runs in WAL mode behind a `DatabasePool`, so readers never wait for the writer;
/// an in-memory store (for tests and dry runs) uses a `DatabaseQueue`. Opening applies every
/// pending migration from the top-level `Migrations/` folder. Every write is one transaction that
/// raises the catalogue's revision by exactly one, or changes nothing.
public final class CatalogStore: Sendable {
    /// The database file's path, or `":memory:"`.
    public let path: String
    let writer: any DatabaseWriter
    /// Checkpoints the WAL off the write path (file databases opened for writing only).
    let checkpointer: WALCheckpointer?
    /// Groups edits that arrive together into one transaction.
    let combiner = WriteCombiner<CombinedEdit>()
    /// Catalogues read whole lately, at their revisions.
    let snapshots = SnapshotCache()
    /// The connection behind ``revision(of:)`` for a file store.
    let revisions: RevisionReader
    /// Wakes observers after commits (this store's at once, other processes' within a poll).
    package let notifier: ChangeNotifier
    /// Updates observers share (``updates(of:from:resetThreshold:)``).
    let updateCache = UpdateCache()
    package let views = SharedViews()

    /// Opens (creating if needed) the database at `path` and migrates it to the latest schema.
    ///
    /// - Throws: ``/CatalogStoreCore/StoreError/cannotOpen(path:reason:)`` when the file is not a usable database.
    public convenience init(path: String) throws(StoreError) {
        try self.init(path: path, configuration: StoreConfiguration())
    }

    /// Opens the database at `path` as `configuration` says: for reading only, with a key, a
    /// page-cache size, suspension notifications (``StoreConfiguration``).
    ///
    /// - Throws: ``/CatalogStoreCore/StoreError/cannotOpen(path:reason:)`` when the file is not a usable database,
    ///   the hook throws, or a read-only store's file is missing or not at the current schema.
    public convenience init(path: String, configuration: StoreConfiguration) throws(StoreError) {
        if configuration.readOnly {
            switch try Self.openReadOnly(path: path, configuration) {
            case .current(let pool):
                self.init(readOnly: pool, path: path, options: configuration)
                return
            case .needsMigrating:
                throw StoreError.cannotOpen(path: path, reason: "its schema needs migrating, which a read-only store cannot do: open it for writing once")
            case .unopenable(let reason):
                throw StoreError.cannotOpen(path: path, reason: reason)
            }
        }
        let writer: DatabasePool
        do {
            writer = try Self.openPool(path: path, configuration)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: Self.describe(error))
        }
        try self.init(writer: writer, path: path, checkpointer: WALCheckpointer(path: path, options: configuration),
                      options: configuration)
    }

    /// Opens an existing database for reading only, so that `list` and `show` leave the file
    /// byte-for-byte as it was. (Opening for writing lets GRDB touch the schema cookie while it
    /// sets up WAL.) A database that needs migrating, or that SQLite cannot open read-only, is
    /// opened normally instead.
    public static func openForReading(path: String) throws(StoreError) -> CatalogStore {
        if case .current(let pool) = try openReadOnly(path: path, StoreConfiguration()) {
            return CatalogStore(readOnly: pool, path: path)
        }
        return try CatalogStore(path: path)
    }

    /// A database opened for reading only, as far as it could be.
    private enum ReadOnlyOpening {
        case current(DatabasePool)
        case needsMigrating
        case unopenable(String)
    }

    /// Opens the file read-only and reads its schema's migrations.
    ///
    /// - Throws: ``/CatalogStoreCore/StoreError/cannotOpen(path:reason:)`` for a schema a newer version made (read
    ///   or written, this version would misread it).
    private static func openReadOnly(path: String, _ options: StoreConfiguration) throws(StoreError) -> ReadOnlyOpening {
        var readOnly = configuration(options)
        readOnly.readonly = true
        let pool: DatabasePool
        let applied: [String]
        do {
            pool = try DatabasePool(path: path, configuration: readOnly)
            applied = try pool.read(recordedMigrations)
        } catch {
            return .unopenable(describe(error))
        }
        if let reason = StoreRules.newerSchemaReason(applied: applied, known: migrationIDs) { throw StoreError.cannotOpen(path: path, reason: reason) }
        return applied == migrationIDs ? .current(pool) : .needsMigrating
    }

    private init(readOnly writer: DatabasePool, path: String, options: StoreConfiguration = StoreConfiguration()) {
        self.writer = writer
        self.path = path
        revisions = RevisionReader(path: path, fallback: writer, options: options)
        notifier = ChangeNotifier(path: path, options: options)
        checkpointer = nil
    }

    /// A store held in memory only: for tests, dry runs and benchmarks.
    public static func inMemory() throws(StoreError) -> CatalogStore {
        do {
            return try CatalogStore(writer: DatabaseQueue(configuration: configuration()), path: ":memory:")
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.cannotOpen(path: ":memory:", reason: describe(error))
        }
    }

    /// Wraps an open GRDB writer and migrates it to the latest schema.
    init(writer: any DatabaseWriter, path: String, upTo migration: String? = nil,
         checkpointer: WALCheckpointer? = nil, options: StoreConfiguration = StoreConfiguration()) throws(StoreError) {
        self.writer = writer
        self.path = path
        revisions = RevisionReader(path: path, fallback: writer, options: options)
        notifier = ChangeNotifier(path: path, options: options)
        self.checkpointer = checkpointer
        let applied: [String]
        do {
            // On the writer's connection: a reader opened here would outlive the writer at close,
            // and the last connection to close is the one that folds the log into the file.
            applied = try writer.writeWithoutTransaction(Self.recordedMigrations)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: Self.describe(error))
        }
        if let reason = StoreRules.newerSchemaReason(applied: applied, known: Self.migrationIDs) {
            throw StoreError.cannotOpen(path: path, reason: reason)
        }
        do {
            try Self.migrate(writer, upTo: migration, recorded: applied)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: "cannot migrate the schema: \(Self.describe(error))")
        }
        if migration == nil {
            do {
                try Self.noticeCopy(of: path, in: writer)
            } catch {
                throw StoreError.cannotOpen(path: path, reason: Self.describe(error))
            }
        }
    }

    /// How long a connection waits for another (process or connection) that holds the lock it
    /// needs before it fails with "database is locked".
    static let busyTimeout: Double = 10

    /// A pool on the file at `path`, set up with ``configuration()``.
    ///
    /// SQLite answers "database is locked" at once, without waiting, when a connection switches a
    /// new database to WAL while another opener holds it (waiting there could deadlock), as
    /// instances started together on one new file do. That opener is done within moments, so the
    /// open is tried again, for up to the busy timeout.
    static func openPool(path: String, _ options: StoreConfiguration = StoreConfiguration()) throws -> DatabasePool {
        let deadline = ContinuousClock.now + .milliseconds(Int(busyTimeout * 1000))
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration(options))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
    }

    static func configuration(_ options: StoreConfiguration = StoreConfiguration()) -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Wait for a competing writer (another process) instead of failing at once.
        configuration.busyMode = .timeout(busyTimeout)
        // The app's hook (a key) first: nothing can be read before it.
        options.apply(to: &configuration)
        let cacheKiB = max(1, options.pageCacheSize / 1024)
        configuration.prepareDatabase { db in
            // The page cache (StoreConfiguration.pageCacheSize; a negative cache_size is in KiB).
            try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
            // A file store checkpoints in the background (``WALCheckpointer``); SQLite's own
            // checkpoint, which runs inside a commit, only if the log reaches 16,000 pages.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 16000")
            // Savepoints (one per edit of a group commit whose edit failed after writing, and
            // the statement journals of multi-row writes) journal the pages they change; past
            // 64 KiB SQLite spills that journal to a temporary file, and writing it cost a server
            // under load more than half of its writer's time. Kept in memory, it costs a copy.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        // GRDB sets `synchronous = NORMAL` with WAL: every commit stays atomic and the database
        // consistent after a crash; only the last commits may roll back after a power loss.
        return configuration
    }

    /// The readable part of an error from GRDB or SQLite.
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
