#ifndef LOGBOOK_WRITEBACK_H
#define LOGBOOK_WRITEBACK_H

#include <stdint.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/// Starts writing the dirty pages of `length` bytes of the open file `descriptor` from `offset`
/// to the device without waiting for them: Linux's `sync_file_range(SYNC_FILE_RANGE_WRITE)`,
/// which Swift's Glibc module does not declare; nothing elsewhere. It makes nothing durable
/// (that still takes `fdatasync`); it lets the device work while the caller goes on writing, so
/// the `fdatasync` that follows waits for less. Returns 0, or -1 with `errno` set (advice:
/// callers may ignore it). Lives here, beside `prefetch.h`: LogStore's one C target of small
/// inline helpers. Thread-safe.
static inline int logbook_start_writeback(int descriptor, int64_t offset, int64_t length) {
#if defined(__linux__) && defined(SYS_sync_file_range)
    return (int)syscall(SYS_sync_file_range, descriptor, offset, length, 2u /* SYNC_FILE_RANGE_WRITE */);
#else
    (void)descriptor;
    (void)offset;
    (void)length;
    return 0;
#endif
}

#endif
