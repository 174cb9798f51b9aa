#ifndef CCATALOGSUPPORT_H
#define CCATALOGSUPPORT_H

/// Asks the CPU to start loading the cache line at `address` for a read. The diff's hash tables
/// call it for the slot of an id a dozen ids ahead, so that probing is not one cache miss after
/// another. Swift has no prefetch of its own.
static inline void catalog_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// `value` rounded down, for values from 0 up to 2⁵² (the caller checks the range): a conversion
/// to an integer, which truncates, and back — two instructions. Swift's own conversion checks the
/// range again, and `rounded(.down)` is a call into libm on x86-64 without SSE 4.1.
static inline double catalog_floor_in_range(double value) {
    return (double)(long long)value;
}

#endif
