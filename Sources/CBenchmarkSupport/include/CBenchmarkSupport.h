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

#if defined(__linux__)
#include <stdio.h>
#include <string.h>

/// One "VmRSS:"/"VmHWM:" line of /proc/self/status in bytes, or 0.
static inline size_t catalog_status_bytes(const char *field) {
    FILE *file = fopen("/proc/self/status", "r");
    if (!file) return 0;
    char line[256];
    size_t result = 0;
    size_t length = strlen(field);
    while (fgets(line, sizeof line, file)) {
        unsigned long kilobytes;
        if (strncmp(line, field, length) == 0 && sscanf(line + length, " %lu", &kilobytes) == 1) {
            result = (size_t)kilobytes * 1024;
            break;
        }
    }
    fclose(file);
    return result;
}
#endif

/// Starts a peak-memory measurement: gives free heap memory back to the system (so that the
/// measured code must map fresh pages for what it allocates) and resets the peak resident size
/// to the current one. Returns the resident size, or 0 where the platform cannot do this.
static inline size_t catalog_begin_peak_measurement(void) {
#if defined(__linux__) && defined(__GLIBC__)
    malloc_trim(0);
    FILE *file = fopen("/proc/self/clear_refs", "w");
    if (!file) return 0;
    int written = fputs("5", file);
    if (fclose(file) != 0 || written < 0) return 0;
    return catalog_status_bytes("VmRSS:");
#else
    return 0;
#endif
}

/// The peak resident size since `catalog_begin_peak_measurement`, or 0.
static inline size_t catalog_peak_resident_bytes(void) {
#if defined(__linux__)
    return catalog_status_bytes("VmHWM:");
#else
    return 0;
#endif
}

#if defined(__linux__)
#include <stdint.h>
#include <sys/epoll.h>

/// An epoll queue for the fan-out benchmark's readers (Swift's Glibc module leaves epoll out).
static inline int catalog_epoll_create(void) {
    return epoll_create1(0);
}

/// Watches `fd` for reading; `tag` comes back from `catalog_epoll_wait` when it is ready.
static inline int catalog_epoll_add(int queue, int fd, uint32_t tag) {
    struct epoll_event event = {.events = EPOLLIN, .data = {.u32 = tag}};
    return epoll_ctl(queue, EPOLL_CTL_ADD, fd, &event);
}

/// Waits up to `timeout` ms; writes the tags of up to `capacity` (at most 1,024) ready sockets.
static inline int catalog_epoll_wait(int queue, uint32_t *tags, int capacity, int timeout) {
    struct epoll_event events[1024];
    int count = epoll_wait(queue, events, capacity < 1024 ? capacity : 1024, timeout);
    for (int n = 0; n < count; n++) tags[n] = events[n].data.u32;
    return count;
}
#endif

#endif
