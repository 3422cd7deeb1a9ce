#ifndef LOGBOOK_PREFETCH_H
#define LOGBOOK_PREFETCH_H

/// Asks the CPU to start loading the cache line holding `address` for reading, without waiting
/// for it (a hint: it never faults, even on an unmapped address). LogStore issues these for every
/// line of a record as soon as the index entry names it, so the lines arrive together instead of
/// one dependent miss after another. Lives here, in the package's one C module, to spare a target.
static inline void logbook_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
