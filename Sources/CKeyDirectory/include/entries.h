#ifndef LOGBOOK_ENTRIES_H
#define LOGBOOK_ENTRIES_H

#include <stddef.h>
#include <stdint.h>

/// Checks the `count` 12-byte key directory entries at `entries` (LogStore's
/// `KeyDirectory.Entry`: hash, offset, then the segment in the low 28 bits of the third word;
/// an empty slot has all bits of the third word set) against `segments` segment sizes: every
/// entry that is not empty must name a segment below `segments` and an offset of at least
/// `minimum_offset` and below that segment's size. Stores the number of entries that are not
/// empty in `*filled`; returns 1 if any breaks the rule, else 0. `segments` must be at least 1.
///
/// Branch-free: eight entries a step with AVX2 where the CPU has it, else a scalar loop over four
/// quarters of the table at once (slots are empty at random, so a branch on each mispredicts
/// half the time). At 1M keys (a 25 MB table) the scalar loop runs about 47M instructions, ten
/// times the CRC pass over the same bytes; the AVX2 one about 8M. Lives in C, compiled on its
/// own, because Swift kept branches and spills in the loop. Thread-safe; reads only.
int logbook_check_entries(
    const uint32_t *entries, size_t count, const uint32_t *sizes, uint32_t segments,
    uint32_t minimum_offset, size_t *filled);

/// The scalar loop alone, exposed so tests can check it against the vector path.
int logbook_check_entries_portable(
    const uint32_t *entries, size_t count, const uint32_t *sizes, uint32_t segments,
    uint32_t minimum_offset, size_t *filled);

/// `logbook_crc32c_blocks` over the `count * 12` bytes of the entries (block CRCs into `crcs`)
/// and `logbook_check_entries` over them in one pass: the entries of each four blocks are
/// checked right after their CRCs, while those bytes are still in the cache, so the table is
/// read from memory once. Returns and stores what `logbook_check_entries` would. `block` must
/// be a positive multiple of 8.
int logbook_crc32c_blocks_check_entries(
    const uint32_t *entries, size_t count, size_t block, uint32_t *crcs, const uint32_t *sizes,
    uint32_t segments, uint32_t minimum_offset, size_t *filled);

#endif
