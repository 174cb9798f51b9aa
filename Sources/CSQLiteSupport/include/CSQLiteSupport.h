#ifndef CSQLITESUPPORT_H
#define CSQLITESUPPORT_H

/// Turns off SQLite's memory statistics for the whole process (SQLITE_CONFIG_MEMSTATUS), which
/// `sqlite3_config` can only do before SQLite initializes. Returns SQLite's result code:
/// SQLITE_OK (0), or SQLITE_MISUSE when SQLite is already in use. A C function because
/// `sqlite3_config` is variadic, which Swift cannot call.
int catalog_sqlite_disable_memory_statistics(void);

/// Whether SQLite keeps memory statistics (1) or not (0).
int catalog_sqlite_memory_statistics_enabled(void);

#endif
