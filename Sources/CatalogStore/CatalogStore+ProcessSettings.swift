import CSQLiteSupport
import CatalogStoreCore
import GRDBSQLite

extension CatalogStore {
    /// Turns off SQLite's memory statistics for this process, as SQLite's own list of recommended
    /// settings does for speed. With them on, every allocation SQLite makes takes a process-wide
    /// lock to count its bytes; the system's SQLite on Debian has no per-connection lookaside
    /// allocator, so that is every small allocation, about 56 a quick move. Off, a move through
    /// the store costs about 9% fewer instructions (see BENCHMARKS.md). Only
    /// `sqlite3_memory_used` and the other statistics stop working.
    ///
    /// SQLite accepts this only before it first runs in the process, and it is not thread-safe:
    /// call it at the start of `main`, before anything opens a database. The `catalog` tool
    /// does. Returns false, changing nothing, once SQLite is in use.
    @discardableResult
    package static func disableSQLiteMemoryStatistics() -> Bool {
        catalog_sqlite_disable_memory_statistics() == 0
    }

    /// Whether SQLite counts the memory it allocates in this process (initializing SQLite if
    /// nothing has yet).
    package static var sqliteKeepsMemoryStatistics: Bool {
        catalog_sqlite_memory_statistics_enabled() != 0
    }

    /// The version of the SQLite library this process runs, such as "3.40.1".
    package static var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }
}
