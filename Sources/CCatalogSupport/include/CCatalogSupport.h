#ifndef CCATALOGSUPPORT_H
#define CCATALOGSUPPORT_H

/// Asks the CPU to start loading the cache line at `address` for a read. The diff's hash tables
/// call it for the slot of an id a dozen ids ahead, so that probing is not one cache miss after
/// another. Swift has no prefetch of its own.
static inline void catalog_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
