#include "entries.h"
#include "crc32c.h"

#include <string.h>

/// What a pass over entries has found so far.
typedef struct {
    size_t live;
    uint32_t bad;
} entry_tally;

/// One entry, branch-free (see entries.h for the rule).
#define LOGBOOK_CHECK_ENTRY(e, sizes, segments, minimum_offset, live, bad)                     \
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

/// The portable pass over entries `begin ..< end`: four quarters of the range at once (slots
/// are empty at random, so a branch on each would mispredict half the time, and four streams
/// keep more loads in flight than one).
static void check_portable(
    const uint32_t *entries, size_t begin, size_t end, const uint32_t *sizes, uint32_t segments,
    uint32_t minimum_offset, entry_tally *tally) {
    size_t live = 0;
    uint32_t bad = 0;
    const uint32_t *base = entries + 3 * begin;
    size_t count = end - begin;
    size_t quarter = count / 4;
    for (size_t i = 0; i < quarter; i++) {
        LOGBOOK_CHECK_ENTRY(base + 3 * i, sizes, segments, minimum_offset, live, bad);
        LOGBOOK_CHECK_ENTRY(base + 3 * (quarter + i), sizes, segments, minimum_offset, live, bad);
        LOGBOOK_CHECK_ENTRY(
            base + 3 * (2 * quarter + i), sizes, segments, minimum_offset, live, bad);
        LOGBOOK_CHECK_ENTRY(
            base + 3 * (3 * quarter + i), sizes, segments, minimum_offset, live, bad);
    }
    for (size_t i = 4 * quarter; i < count; i++) {
        LOGBOOK_CHECK_ENTRY(base + 3 * i, sizes, segments, minimum_offset, live, bad);
    }
    tally->live += live;
    tally->bad |= bad;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define HAVE_AVX2_CHECK 1

/// The AVX2 pass over entries `begin ..< end`, eight entries (three 32-byte loads) a step:
/// the offsets and segment words are gathered out of the three registers by two blends and one
/// permute each (entry j's field f, element 3j + f, sits at position (3j + f) mod 8, all
/// distinct as 3 and 8 are coprime), each entry's segment size comes from permutes (up to 32
/// segments) or a gather, and unsigned compares are signed ones on values with the sign bit
/// flipped. About a sixth of the scalar loop's instructions.
__attribute__((target("avx2")))
static void check_avx2(
    const uint32_t *entries, size_t begin, size_t end, const uint32_t *sizes, uint32_t segments,
    uint32_t minimum_offset, entry_tally *tally) {
    // The sizes of the first 32 segments, eight to a register (past the last: the last's).
    __m256i limits[4];
    for (uint32_t g = 0; g < 4; g++) {
        uint32_t group[8];
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t s = 8 * g + i;
            group[i] = sizes[s < segments ? s : segments - 1];
        }
        limits[g] = _mm256_loadu_si256((const __m256i *)group);
    }
    const uint32_t groups = segments <= 32 ? (segments + 7) / 8 : 0;
    const __m256i sign = _mm256_set1_epi32((int)0x80000000u);
    const __m256i ones = _mm256_set1_epi32(-1);
    const __m256i low28 = _mm256_set1_epi32(0x0FFFFFFF);
    const __m256i count = _mm256_set1_epi32((int)segments);
    const __m256i last = _mm256_set1_epi32((int)(segments - 1));
    const __m256i minimum = _mm256_set1_epi32((int)(minimum_offset ^ 0x80000000u));
    const __m256i offsetOrder = _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6);
    const __m256i wordOrder = _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7);
    __m256i live = _mm256_setzero_si256();
    __m256i bad = _mm256_setzero_si256();
    size_t i = begin;
    for (; i + 8 <= end; i += 8) {
        const __m256i *p = (const __m256i *)(entries + 3 * i);
        __m256i a = _mm256_loadu_si256(p);
        __m256i b = _mm256_loadu_si256(p + 1);
        __m256i c = _mm256_loadu_si256(p + 2);
        // Offsets are elements 1, 4, 7 | 10, 13 | 16, 19, 22; words 2, 5 | 8, 11, 14 | 17, 20, 23.
        __m256i offset = _mm256_permutevar8x32_epi32(
            _mm256_blend_epi32(_mm256_blend_epi32(a, b, 0x24), c, 0x49), offsetOrder);
        __m256i word = _mm256_permutevar8x32_epi32(
            _mm256_blend_epi32(_mm256_blend_epi32(a, b, 0x49), c, 0x92), wordOrder);
        __m256i full = _mm256_xor_si256(_mm256_cmpeq_epi32(word, ones), ones);
        __m256i segment = _mm256_and_si256(word, low28);
        __m256i known = _mm256_cmpgt_epi32(count, segment);
        // Each entry's segment size: from permutes of the sizes kept in registers for up to
        // 32 segments (a gather costs about as much as four groups on current x86 cores).
        __m256i limit;
        if (groups == 1) {
            limit = _mm256_permutevar8x32_epi32(limits[0], segment);
        } else if (groups != 0) {
            __m256i clamped = _mm256_min_epu32(segment, last);
            __m256i group = _mm256_srli_epi32(clamped, 3);
            limit = _mm256_permutevar8x32_epi32(limits[0], clamped);
            for (uint32_t g = 1; g < groups; g++) {
                __m256i in = _mm256_cmpeq_epi32(group, _mm256_set1_epi32((int)g));
                limit = _mm256_blendv_epi8(
                    limit, _mm256_permutevar8x32_epi32(limits[g], clamped), in);
            }
        } else {
            limit = _mm256_i32gather_epi32(
                (const int *)sizes, _mm256_min_epu32(segment, last), 4);
        }
        __m256i flipped = _mm256_xor_si256(offset, sign);
        __m256i below = _mm256_cmpgt_epi32(_mm256_xor_si256(limit, sign), flipped);
        __m256i under = _mm256_cmpgt_epi32(minimum, flipped);
        __m256i inside = _mm256_andnot_si256(under, _mm256_and_si256(below, known));
        live = _mm256_sub_epi32(live, full);
        bad = _mm256_or_si256(bad, _mm256_andnot_si256(inside, full));
    }
    uint32_t lanes[8];
    _mm256_storeu_si256((__m256i *)lanes, live);
    for (int k = 0; k < 8; k++) tally->live += lanes[k];
    tally->bad |= !_mm256_testz_si256(bad, bad);
    if (i < end) check_portable(entries, i, end, sizes, segments, minimum_offset, tally);
}

static int has_avx2(void) {
    static int state = -1;
    int known = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&state, known, __ATOMIC_RELAXED);
    }
    return known;
}
#endif

static void check_range(
    const uint32_t *entries, size_t begin, size_t end, const uint32_t *sizes, uint32_t segments,
    uint32_t minimum_offset, entry_tally *tally) {
    // Live counts per lane are 32-bit: passes stay below 2^31 entries.
    while (begin < end) {
        size_t stop = end - begin > ((size_t)1 << 30) ? begin + ((size_t)1 << 30) : end;
#if defined(HAVE_AVX2_CHECK)
        if (has_avx2()) {
            check_avx2(entries, begin, stop, sizes, segments, minimum_offset, tally);
            begin = stop;
            continue;
        }
#endif
        check_portable(entries, begin, stop, sizes, segments, minimum_offset, tally);
        begin = stop;
    }
}

int logbook_check_entries_portable(
    const uint32_t *entries, size_t count, const uint32_t *sizes, uint32_t segments,
    uint32_t minimum_offset, size_t *filled) {
    entry_tally tally = {0, 0};
    check_portable(entries, 0, count, sizes, segments, minimum_offset, &tally);
    *filled = tally.live;
    return tally.bad != 0;
}

int logbook_check_entries(
    const uint32_t *entries, size_t count, const uint32_t *sizes, uint32_t segments,
    uint32_t minimum_offset, size_t *filled) {
    entry_tally tally = {0, 0};
    check_range(entries, 0, count, sizes, segments, minimum_offset, &tally);
    *filled = tally.live;
    return tally.bad != 0;
}

int logbook_crc32c_blocks_check_entries(
    const uint32_t *entries, size_t count, size_t block, uint32_t *crcs, const uint32_t *sizes,
    uint32_t segments, uint32_t minimum_offset, size_t *filled) {
    const uint8_t *bytes = (const uint8_t *)entries;
    size_t length = count * 12;
    size_t blocks = (length + block - 1) / block;
    size_t chunk = 4 * block;
    entry_tally tally = {0, 0};
    size_t checked = 0;
    for (size_t i = 0; i < blocks; i += 4) {
        size_t start = i * block;
        size_t n = length - start < chunk ? length - start : chunk;
        logbook_crc32c_blocks(bytes + start, n, block, crcs + i);
        // The entries wholly inside what the CRCs just read (still in the cache).
        size_t through = (start + n) / 12;
        check_range(entries, checked, through, sizes, segments, minimum_offset, &tally);
        checked = through;
    }
    *filled = tally.live;
    return tally.bad != 0;
}
