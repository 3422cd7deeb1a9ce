#ifndef LOGBOOK_CRC32C_H
#define LOGBOOK_CRC32C_H

#include <stddef.h>
#include <stdint.h>


/// Extends a CRC32C (Castagnoli) over `length` bytes at `data`.
/// Start with `crc = 0`; the result of one call may be passed to the next to checksum
/// a message in pieces. Uses the CPU's CRC32 instruction when present (SSE 4.2 on x86-64,
/// the CRC extension on arm64), table-driven slicing-by-8 otherwise. Thread-safe.
uint32_t logbook_crc32c_extend(uint32_t crc, const void *data, size_t length);

/// Whether `logbook_crc32c_extend` uses a hardware instruction on this CPU.
int logbook_crc32c_is_hardware(void);

/// The portable slicing-by-8 implementation, exposed so tests can check it against the
/// hardware path.
uint32_t logbook_crc32c_extend_portable(uint32_t crc, const void *data, size_t length);

/// Writes to `out[i]` the CRC32C (from 0) of bytes `i * block ..< min((i + 1) * block, length)`
/// of `data`, for every block: what one `logbook_crc32c_extend` per block gives, but four blocks
/// are checksummed at once (four independent chains keep the CRC unit busy: about four times
/// the speed of one stream). `block` must be a positive multiple of 8.
void logbook_crc32c_blocks(const void *data, size_t length, size_t block, uint32_t *out);

#endif
