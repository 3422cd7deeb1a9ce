#include "entries.h"

int logbook_check_entries(
    const uint32_t *entries, size_t count, const uint32_t *sizes, uint32_t segments,
    uint32_t minimum_offset, size_t *filled) {
    size_t live = 0;
    uint32_t bad = 0;
    size_t quarter = count / 4;
#define LOGBOOK_CHECK_ENTRY(e)                                                               \
    do {                                                                                     \
        uint32_t word = (e)[2];                                                              \
        uint32_t offset = (e)[1];                                                            \
        uint32_t full = word != UINT32_MAX;                                                  \
        uint32_t segment = word & 0x0FFFFFFFu;                                               \
        uint32_t limit = sizes[segment < segments - 1 ? segment : segments - 1];             \
        uint32_t inside = (segment < segments) & (offset >= minimum_offset) & (offset < limit); \
        live += full;                                                                        \
        bad |= full & (inside ^ 1);                                                          \
    } while (0)
    for (size_t i = 0; i < quarter; i++) {
        LOGBOOK_CHECK_ENTRY(entries + 3 * i);
        LOGBOOK_CHECK_ENTRY(entries + 3 * (quarter + i));
        LOGBOOK_CHECK_ENTRY(entries + 3 * (2 * quarter + i));
        LOGBOOK_CHECK_ENTRY(entries + 3 * (3 * quarter + i));
    }
    for (size_t i = 4 * quarter; i < count; i++) LOGBOOK_CHECK_ENTRY(entries + 3 * i);
#undef LOGBOOK_CHECK_ENTRY
    *filled = live;
    return bad != 0;
}

