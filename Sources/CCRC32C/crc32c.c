// CRC32C (Castagnoli, reflected polynomial 0x82F63B78). See FORMAT.md, "Checksums".
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

#define POLY 0x82F63B78u

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = table[0][n];
        for (int k = 1; k < 8; k++) {
            c = table[0][c & 0xff] ^ (c >> 8);
            table[k][n] = c;
        }
    }
}

uint32_t logbook_crc32c_extend_portable(uint32_t crc, const void *data, size_t length) {
    pthread_once(&table_once, build_table);
    const uint8_t *p = data;
    uint32_t c = ~crc;
    while (length && ((uintptr_t)p & 7)) {
        c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
        length--;
    }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        uint32_t lo = (uint32_t)word ^ c, hi = (uint32_t)(word >> 32);
        c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
            table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
            table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
        p += 8;
        length -= 8;
    }
    while (length--) c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

#include "crc32c_lane_shift.h"

/// The register after `LANE_BYTES` zero bytes (crc32c_lane_shift.h).
static inline uint32_t shift_by_lane(uint32_t r) {
    return shift_lane[0][r & 0xFF] ^ shift_lane[1][(r >> 8) & 0xFF]
        ^ shift_lane[2][(r >> 16) & 0xFF] ^ shift_lane[3][r >> 24];
}

/// One CRC32 instruction waits for the one before (3 cycles), so a single chain uses a third of
/// the unit: inputs of three lanes or more run as three chains over consecutive lanes, joined
/// by the linearity of the register, r(A B C) = shift(shift(r(A)) ^ r0(B)) ^ r0(C), where r0
/// starts from 0. About three times the speed of one chain on long inputs (the key directory
/// file's 1 MiB blocks, frames, hints); the same result.
__attribute__((target("sse4.2")))
static uint32_t extend_hardware(uint32_t crc, const void *data, size_t length) {
    const uint8_t *p = data;
    uint64_t c = ~crc;
    while (length && ((uintptr_t)p & 7)) { c = _mm_crc32_u8((uint32_t)c, *p++); length--; }
    while (length >= 3 * LANE_BYTES) {
        uint64_t a = c, b = 0, d = 0;
        for (size_t i = 0; i < LANE_BYTES; i += 8) {
            uint64_t w0, w1, w2;
            memcpy(&w0, p + i, 8);
            memcpy(&w1, p + LANE_BYTES + i, 8);
            memcpy(&w2, p + 2 * LANE_BYTES + i, 8);
            a = _mm_crc32_u64(a, w0);
            b = _mm_crc32_u64(b, w1);
            d = _mm_crc32_u64(d, w2);
        }
        c = shift_by_lane(shift_by_lane((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)d;
        p += 3 * LANE_BYTES;
        length -= 3 * LANE_BYTES;
    }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
        p += 8;
        length -= 8;
    }
    while (length--) c = _mm_crc32_u8((uint32_t)c, *p++);
    return ~(uint32_t)c;
}

/// Four whole blocks of `block` bytes (a multiple of 8) at once: four independent chains.
__attribute__((target("sse4.2")))
static void four_blocks_hardware(const uint8_t *p, size_t block, uint32_t *out) {
    uint64_t a = 0xFFFFFFFFu, b = 0xFFFFFFFFu, c = 0xFFFFFFFFu, d = 0xFFFFFFFFu;
    for (size_t i = 0; i < block; i += 8) {
        uint64_t w0, w1, w2, w3;
        memcpy(&w0, p + i, 8);
        memcpy(&w1, p + block + i, 8);
        memcpy(&w2, p + 2 * block + i, 8);
        memcpy(&w3, p + 3 * block + i, 8);
        a = _mm_crc32_u64(a, w0);
        b = _mm_crc32_u64(b, w1);
        c = _mm_crc32_u64(c, w2);
        d = _mm_crc32_u64(d, w3);
    }
    out[0] = ~(uint32_t)a;
    out[1] = ~(uint32_t)b;
    out[2] = ~(uint32_t)c;
    out[3] = ~(uint32_t)d;
}
#define HAVE_FOUR_BLOCKS 1

static int has_hardware(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

static uint32_t extend_hardware(uint32_t crc, const void *data, size_t length) {
    const uint8_t *p = data;
    uint32_t c = ~crc;
    while (length && ((uintptr_t)p & 7)) { c = __crc32cb(c, *p++); length--; }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __crc32cd(c, word);
        p += 8;
        length -= 8;
    }
    while (length--) c = __crc32cb(c, *p++);
    return ~c;
}

static int has_hardware(void) { return 1; }
#else
static uint32_t extend_hardware(uint32_t crc, const void *data, size_t length) {
    return logbook_crc32c_extend_portable(crc, data, length);
}

static int has_hardware(void) { return 0; }
#endif

static int hardware_state = -1;  // -1 unknown, 0 no, 1 yes; benign race: every thread computes the same value

int logbook_crc32c_is_hardware(void) {
    int state = __atomic_load_n(&hardware_state, __ATOMIC_RELAXED);
    if (state < 0) {
        state = has_hardware();
        __atomic_store_n(&hardware_state, state, __ATOMIC_RELAXED);
    }
    return state;
}

uint32_t logbook_crc32c_extend(uint32_t crc, const void *data, size_t length) {
    if (logbook_crc32c_is_hardware()) return extend_hardware(crc, data, length);
    return logbook_crc32c_extend_portable(crc, data, length);
}

void logbook_crc32c_blocks(const void *data, size_t length, size_t block, uint32_t *out) {
    const uint8_t *p = data;
    size_t blocks = (length + block - 1) / block;
    size_t i = 0;
#if defined(HAVE_FOUR_BLOCKS)
    if (logbook_crc32c_is_hardware()) {
        for (; i + 4 <= blocks && (i + 4) * block <= length; i += 4) {
            four_blocks_hardware(p + i * block, block, out + i);
        }
    }
#endif
    for (; i < blocks; i++) {
        size_t start = i * block;
        size_t n = length - start < block ? length - start : block;
        out[i] = logbook_crc32c_extend(0, p + start, n);
    }
}
