#ifndef LOGBOOK_PREFETCH_H
#define LOGBOOK_PREFETCH_H

/// Asks the CPU to start loading the cache line holding `address` for reading, without waiting
/// for it (a hint: it never faults, even on an unmapped address). LogStore issues these for every
/// line of a record as soon as the index entry names it, so the lines arrive together instead of
/// one dependent miss after another. Lives here, beside the entry checks of the key directory whose
/// lookups issue most of them; Logbook reaches it through LogStore's `Prefetch`.
static inline void logbook_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
