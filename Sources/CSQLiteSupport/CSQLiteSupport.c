#include "CSQLiteSupport.h"
#include <sqlite3.h>

int catalog_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int catalog_sqlite_memory_statistics_enabled(void) {
    // With statistics off SQLite stops counting the bytes it has handed out, so a block it has
    // just allocated does not show (SQLite initializes itself here if nothing else has).
    void *block = sqlite3_malloc(4096);
    int counted = sqlite3_memory_used() >= 4096;
    sqlite3_free(block);
    return counted;
}
