#ifndef CBENCHMARKSUPPORT_H
#define CBENCHMARKSUPPORT_H

#include <stddef.h>
#if defined(__linux__)
#include <malloc.h>
#elif defined(__APPLE__)
#include <malloc/malloc.h>
#endif

/// Bytes the C heap has handed out and not taken back (small blocks plus mmap'ed large ones),
/// so benchmarks can report what a structure keeps alive. 0 where the platform cannot tell.
static inline size_t catalog_allocated_bytes(void) {
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#elif defined(__APPLE__)
    struct mstats stats = mstats();
    return stats.bytes_used;
#else
    return 0;
#endif
}

#endif
