/* The CPU engine's vector tables (src/cpu/simd.h) against naive loops written here, on
 * every instruction set this build and CPU offer: every element size, runs of every
 * length from 0 past several vectors, every alignment of the destination and source
 * within a 64-byte line, plain and streaming stores, each output between guard bytes
 * that must stay untouched; the ragged REVERSE over 1 to 16 rows, every lane size and
 * lengths 0 to past the axis (clamped by the caller, as here). White-box: the tables are
 * internal, so this links the library's objects (like test_vk_limits). The public side
 * (DMLOPS_CPU_ISA, each level's random suites) is in test_random.c. Fixed seeds, printed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cpu/copy_bytes.h"
#include "../src/cpu/simd.h"
#include "../src/elements.h"
#include "../src/platform/platform.h"
#include "harness.h"

enum { GUARD = 64, MAX_COUNT = 4200 };

static const uint32_t esizes[4] = {1, 2, 4, 8};

/* src[i * step] of esize bytes each, dst contiguous: the reference every table must match. */
static void naive_copy(uint8_t *dst, const uint8_t *src, int64_t step, uint64_t count, uint32_t esize)
{
    for (uint64_t i = 0; i < count; i++) memcpy(dst + i * esize, src + (int64_t)i * step * (int64_t)esize, esize);
}

static void fill_bytes(dmt_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)dmt_next(r);
}

/* The runs a table's function is handed, by source step: -1 reversed, 2 and -2 every
 * other element, 3 and -3 every third, 1 the streaming copy. */
static const int steps[6] = {-1, 2, -2, 3, -3, 1};

/* Runs one function of table t: dst and the expected image are whole buffers with
 * GUARD bytes on each side of the count elements. */
static void run_step(const dm_simd *t, int step, uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize,
                     bool stream)
{
    switch (step) {
    case -1: t->reversed(dst, src, count, esize, stream); break;
    case 2: t->even(dst, src, count, esize, stream); break;
    case -2: t->even_down(dst, src, count, esize, stream); break;
    case 3:
    case -3: t->third(dst, src, count, esize, step > 0 ? 1 : -1, stream); break;
    default: t->stream_copy(dst, src, count * esize); break;
    }
    dm_stream_fence();
}

/* One case; false (with a message) when the output or a guard byte differs. */
static bool check_run(const dm_simd *t, dm_isa isa, int step, uint64_t count, uint32_t esize, uint32_t dst_off,
                      uint32_t src_off, bool stream, uint8_t *src_buf, size_t src_len, uint8_t *got, uint8_t *want,
                      uint64_t seed)
{
    const size_t out_len = GUARD + dst_off + count * esize + GUARD;
    /* The source run: step elements apart, its first element src_off bytes into a line,
     * going down from the top of the buffer when the step is negative. */
    const uint64_t span = count ? (count - 1) * (uint64_t)(step < 0 ? -step : step) * esize + esize : 0;
    const uint8_t *src = step < 0 ? src_buf + GUARD + src_off + span - esize : src_buf + GUARD + src_off;
    if (GUARD + src_off + span + GUARD > src_len) return true; /* does not fit: not a case */
    memset(got, 0xA5, out_len);
    memset(want, 0xA5, out_len);
    naive_copy(want + GUARD + dst_off, src, step, count, esize);
    run_step(t, step, got + GUARD + dst_off, src, count, esize, stream);
    if (!memcmp(got, want, out_len)) return true;
    size_t first = 0;
    while (got[first] == want[first]) first++;
    return CHECK(false,
                 "%s step %d: %" PRIu64 " elements of %u bytes, dst +%u, src +%u, %s stores (seed 0x%016" PRIx64
                 "): byte %zu (output byte %lld) is 0x%02x, expected 0x%02x",
                 dm_isa_name(isa), step, count, esize, dst_off, src_off, stream ? "streaming" : "plain", seed, first,
                 (long long)first - GUARD - dst_off, got[first], want[first]);
}

/* Every length up to four 32-byte vectors and a few past, every destination alignment in
 * a line (in element steps), two source alignments, both store kinds; then random cases
 * up to MAX_COUNT elements at random alignments. */
TEST(simd_runs_match_naive_loops)
{
    const uint64_t seed = 0x51AD0001ull;
    dmt_rng r = {seed};
    printf("    seed 0x%016" PRIx64 "\n", seed);
    const size_t src_len = 2 * GUARD + 64 + 3 * (size_t)MAX_COUNT * 8, out_len = 2 * GUARD + 64 + (size_t)MAX_COUNT * 8;
    uint8_t *src = malloc(src_len), *got = malloc(out_len), *want = malloc(out_len);
    REQUIRE(src && got && want);
    fill_bytes(&r, src, src_len);
    const uint32_t offered = dm_isa_offered();
    int failures = 0, tables = 0;
    for (uint32_t i = 0; i < DM_ISA_COUNT; i++) {
        if (!(offered & (1u << i))) continue;
        const dm_isa isa = (dm_isa)i;
        const dm_simd *t = dm_simd_of(isa);
        tables++;
        for (int s = 0; s < 6; s++)
            for (uint32_t e = 0; e < 4; e++) {
                const uint32_t es = esizes[e];
                for (uint64_t count = 0; count <= 4 * 32 / es + 5 && failures < 8; count++)
                    for (uint32_t d = 0; d < 64; d += es)
                        for (uint32_t so = 0; so < 2 * es; so += es)
                            for (int stream = 0; stream < 2; stream++)
                                failures += !check_run(t, isa, steps[s], count, es, d, so, stream, src, src_len, got,
                                                       want, seed);
                for (int k = 0; k < 300 && failures < 8; k++) {
                    const uint64_t count = dmt_below(&r, 8) ? dmt_below(&r, 400) : dmt_below(&r, MAX_COUNT);
                    failures += !check_run(t, isa, steps[s], count, es, dmt_below(&r, 64 / es) * es,
                                           dmt_below(&r, 64 / es) * es, dmt_below(&r, 2), src, src_len, got, want,
                                           seed);
                }
            }
    }
    (void)CHECK(tables >= 1 && (offered & 1u), "the scalar table is always offered (offered 0x%x)", offered);
    free(src);
    free(got);
    free(want);
}

/* reversed_rows against a naive loop: `rows` rows of count elements, the destination's
 * rows drow bytes apart (whole rows or with a gap), the source's srow (up or down, as a
 * slice's reversed rows read them), every element size, lengths from 0 through the short
 * rows' limit (DM_REVERSED_ROW_BYTES, unaligned vectors), under a vector (the 16-byte
 * table's or the scalar loop) and past it (the aligned run a row), random alignments and
 * store kinds; every byte around and between the rows must stay. */
TEST(simd_reversed_rows_match_naive_loop)
{
    const uint64_t seed = 0x51AD0005ull;
    dmt_rng r = {seed};
    printf("    seed 0x%016" PRIx64 "\n", seed);
    /* A row's step at most: its bytes (up to the limit, two 32-byte vectors and three
     * elements) and a gap of 80 elements. */
    enum { ROWS = 5, STEP_MOST = DM_REVERSED_ROW_BYTES + 2 * 32 + 3 * 8 + 80 * 8 };
    const size_t len = 2 * GUARD + 64 + (size_t)ROWS * STEP_MOST;
    uint8_t *src = malloc(len), *got = malloc(len), *want = malloc(len);
    REQUIRE(src && got && want);
    fill_bytes(&r, src, len);
    const uint32_t offered = dm_isa_offered();
    int failures = 0;
    for (uint32_t i = 0; i < DM_ISA_COUNT; i++) {
        if (!(offered & (1u << i))) continue;
        const dm_simd *t = dm_simd_of((dm_isa)i);
        for (uint32_t e = 0; e < 4; e++) {
            const uint32_t es = esizes[e];
            for (uint64_t count = 0; count <= (DM_REVERSED_ROW_BYTES + 2 * 32) / es + 3 && failures < 8; count++)
                for (int k = 0; k < 6 && failures < 8; k++) {
                    const uint64_t rows = dmt_below(&r, ROWS + 1);
                    const int64_t row_bytes = (int64_t)(count * es), gap = (int64_t)dmt_below(&r, 3) * 24 * es;
                    const int64_t drow = row_bytes + gap, srow_size = row_bytes + (int64_t)dmt_below(&r, 3) * 40 * es;
                    const bool down = dmt_below(&r, 2), stream = dmt_below(&r, 2);
                    const int64_t srow = down ? -srow_size : srow_size;
                    const uint32_t doff = (uint32_t)dmt_below(&r, 64 / es) * es, soff = (uint32_t)dmt_below(&r, 64 / es) * es;
                    /* Row 0's first element read: the top of its row, the rows above it or below. */
                    const int64_t first = GUARD + soff + (count ? row_bytes - es : 0) +
                                          (down && rows ? (int64_t)(rows - 1) * srow_size : 0);
                    const size_t out_len = GUARD + doff + (size_t)(rows * (uint64_t)drow) + GUARD;
                    memset(got, 0xA5, out_len);
                    memset(want, 0xA5, out_len);
                    for (uint64_t row = 0; row < rows; row++)
                        naive_copy(want + GUARD + doff + row * (uint64_t)drow, src + first + (int64_t)row * srow, -1,
                                   count, es);
                    t->reversed_rows(got + GUARD + doff, drow, src + first, srow, rows, count, es, stream);
                    dm_stream_fence();
                    if (memcmp(got, want, out_len)) {
                        size_t b = 0;
                        while (got[b] == want[b]) b++;
                        failures += !CHECK(false,
                                           "%s reversed_rows: %" PRIu64 " rows of %" PRIu64 " elements of %u bytes, "
                                           "drow %lld, srow %lld, dst +%u, src +%u, %s stores (seed 0x%016" PRIx64
                                           "): byte %lld of the output is 0x%02x, expected 0x%02x",
                                           dm_isa_name((dm_isa)i), rows, count, es, (long long)drow, (long long)srow,
                                           doff, soff, stream ? "streaming" : "plain", seed,
                                           (long long)b - GUARD - doff, got[b], want[b]);
                    }
                }
        }
    }
    free(src);
    free(got);
    free(want);
}

/* The ragged REVERSE of n rows and w columns against a naive column loop: lanes of
 * esize bytes holding lengths 0 to n (the caller clamps), rows drow / srow bytes apart
 * (sometimes a multiple of 4 KiB, where every row falls in one cache set), any
 * alignment. A table may decline (false: fewer columns than a vector), and must then
 * leave the output alone. */
TEST(simd_ragged_matches_naive_loop)
{
    const uint64_t seed = 0x51AD0002ull;
    dmt_rng r = {seed};
    printf("    seed 0x%016" PRIx64 "\n", seed);
    enum { MAX_W = 300, MAX_ROW = 4096 + 2 * MAX_W * 8 };
    const size_t len_bytes = (size_t)DM_RAGGED_ROWS * MAX_ROW + 128;
    uint8_t *src = malloc(len_bytes), *got = malloc(len_bytes), *want = malloc(len_bytes), *lanes = malloc(MAX_W * 8);
    REQUIRE(src && got && want && lanes);
    fill_bytes(&r, src, len_bytes);
    const uint32_t offered = dm_isa_offered();
    int failures = 0, vector_runs = 0;
    for (uint32_t i = 0; i < DM_ISA_COUNT; i++) {
        if (!(offered & (1u << i))) continue;
        const dm_isa isa = (dm_isa)i;
        const dm_simd *t = dm_simd_of(isa);
        for (int k = 0; k < 1500 && failures < 8; k++) {
            const uint32_t es = esizes[dmt_below(&r, 4)], n = 1 + dmt_below(&r, DM_RAGGED_ROWS);
            const uint64_t w = dmt_below(&r, 4) ? dmt_below(&r, 80) : dmt_below(&r, MAX_W);
            const uint32_t doff = dmt_below(&r, 64 / es) * es, soff = dmt_below(&r, 64 / es) * es;
            const int64_t row = dmt_below(&r, 3) == 0 ? 4096 : (int64_t)(w * es + dmt_below(&r, 200) * es);
            const int64_t drow = row, srow = dmt_below(&r, 2) ? row : (int64_t)(w * es + dmt_below(&r, 100) * es);
            const bool stream = dmt_below(&r, 2);
            for (uint64_t c = 0; c < w; c++) {
                const uint64_t L = dmt_below(&r, 4) ? dmt_below(&r, n + 1) : n; /* clamped, as the caller's */
                memcpy(lanes + c * es, &L, es); /* little-endian: the low bytes */
            }
            const size_t used = (size_t)(n - 1) * (size_t)(drow > srow ? drow : srow) + w * es + 128;
            memset(got, 0x5A, used);
            memset(want, 0x5A, used);
            uint8_t *d = got + doff;
            const uint8_t *s = src + soff;
            const bool done = t->ragged(d, drow, s, srow, lanes, w, n, es, stream);
            dm_stream_fence();
            if (done) {
                vector_runs++;
                for (uint64_t c = 0; c < w; c++) {
                    uint64_t L = 0;
                    memcpy(&L, lanes + c * es, es);
                    for (uint32_t a = 0; a < n; a++)
                        memcpy(want + doff + (int64_t)a * drow + c * es,
                               s + (int64_t)(a < L ? L - 1 - a : a) * srow + c * es, es);
                }
            }
            if (!memcmp(got, want, used)) continue;
            size_t first = 0;
            while (got[first] == want[first]) first++;
            failures++;
            (void)CHECK(false,
                  "%s ragged: %u rows x %" PRIu64 " columns of %u bytes, rows %lld / %lld bytes apart, dst +%u, "
                  "src +%u, %s stores, %s (seed 0x%016" PRIx64 ", case %d): byte %zu is 0x%02x, expected 0x%02x",
                  dm_isa_name(isa), n, w, es, (long long)drow, (long long)srow, doff, soff,
                  stream ? "streaming" : "plain", done ? "done" : "declined", seed, k, first, got[first], want[first]);
        }
    }
    /* Every vector table takes blocks of a vector's columns or more. */
    CHECK(vector_runs > 0 || offered == 1u, "no vector table did a ragged block (offered 0x%x)", offered);
    free(src);
    free(got);
    free(want);
    free(lanes);
}

/* The ragged REVERSE's lengths from packed 32-bit ones: clamped to [0, n] (negative
 * signed ones to 0) into esize-byte lanes, with the count of lanes that differ from the
 * one before them, against a naive loop; lengths from a few values (long runs) or any. */
TEST(simd_lanes_match_naive_loop)
{
    const uint64_t seed = 0x51AD0003ull;
    dmt_rng r = {seed};
    printf("    seed 0x%016" PRIx64 "\n", seed);
    enum { MAX_N = 700 };
    uint8_t raw[MAX_N * 4], got[MAX_N * 8 + 64], want[MAX_N * 8 + 64];
    const uint32_t offered = dm_isa_offered();
    int failures = 0;
    for (uint32_t i = 0; i < DM_ISA_COUNT; i++) {
        if (!(offered & (1u << i))) continue;
        const dm_simd *t = dm_simd_of((dm_isa)i);
        for (int k = 0; k < 2000 && failures < 8; k++) {
            const uint32_t es = esizes[dmt_below(&r, 4)], n = 1 + dmt_below(&r, DM_RAGGED_ROWS);
            const uint64_t count = dmt_below(&r, 4) ? dmt_below(&r, 100) : dmt_below(&r, MAX_N);
            const bool is_signed = dmt_below(&r, 2), few = dmt_below(&r, 2);
            for (uint64_t c = 0; c < count; c++) {
                uint32_t v = (uint32_t)dmt_next(&r);
                if (few) v = dmt_below(&r, 3) ? (uint32_t)(c / 40) : (uint32_t)-1; /* runs, and -1 / 2^32 - 1 */
                else if (dmt_below(&r, 2)) v = dmt_below(&r, n + 3);
                memcpy(raw + 4 * c, &v, 4);
            }
            memset(got, 0xEE, sizeof got);
            memset(want, 0xEE, sizeof want);
            uint64_t changes = 0, prev = UINT64_MAX;
            for (uint64_t c = 0; c < count; c++) {
                uint32_t v;
                memcpy(&v, raw + 4 * c, 4);
                const uint64_t L = is_signed && (int32_t)v < 0 ? 0 : v > n ? n : v;
                changes += L != prev;
                prev = L;
                dm_put_lane(want + c * es, L, es);
            }
            const uint64_t got_changes = t->lanes(got, raw, count, n, is_signed, es);
            if (got_changes == changes && !memcmp(got, want, sizeof got)) continue;
            failures++;
            (void)CHECK(false, "%s lanes: %" PRIu64 " %s lengths into %u-byte lanes, n %u (seed 0x%016" PRIx64
                        ", case %d): %" PRIu64 " changes (expected %" PRIu64 "), lanes %s",
                        dm_isa_name((dm_isa)i), count, is_signed ? "signed" : "unsigned", es, n, seed, k, got_changes,
                        changes, memcmp(got, want, sizeof got) ? "differ" : "equal");
        }
    }
}

/* dm_copy_bytes against a byte loop: sizes on both sides of a piece and of the range that
 * goes in pieces, destinations 0 to 63 bytes (and 4 KiB - 1) past the source modulo 4 KiB,
 * between guard bytes that must stay untouched. */
TEST(copy_bytes_matches_a_byte_loop)
{
    const uint64_t seed = 0x51AD0004ull;
    dmt_rng r = {seed};
    printf("    seed 0x%016" PRIx64 "\n", seed);
    const uint64_t sizes[] = {0, 1, 64, DM_COPY_PIECE, DM_COPY_PIECE + 1, 2 * DM_COPY_PIECE - 1, 4096, 4096 + 7,
                              3 * DM_COPY_PIECE + 17, 65536, 200003, DM_COPY_PIECES_UNDER - 1, DM_COPY_PIECES_UNDER};
    const uint32_t distances[] = {0, 1, 15, 16, 31, 32, 48, 63, 64, 4095};
    const size_t most = (size_t)DM_COPY_PIECES_UNDER, len = most + 2 * 4096;
    uint8_t *src = malloc(len + 4096), *got = malloc(len + 8192);
    REQUIRE(src && got);
    fill_bytes(&r, src, len + 4096);
    /* Both on a page (plus a line for the source), so the distance is what it says. */
    uint8_t *s0 = src + (4096 - (uintptr_t)src % 4096) % 4096 + 64, *g0 = got + (4096 - (uintptr_t)got % 4096) % 4096;
    int failures = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && failures < 8; i++)
        for (size_t k = 0; k < sizeof distances / sizeof distances[0] && failures < 8; k++) {
            const uint64_t n = sizes[i];
            uint8_t *d = g0 + 4096 + 64 + distances[k]; /* a page past the guard, at the distance */
            memset(g0, 0xEE, (size_t)n + 2 * 4096 + 64 + 64);
            dm_copy_bytes(d, s0, n);
            bool ok = true;
            for (size_t b = 0; b < (size_t)n + 2 * 4096 + 128 && ok; b++) {
                const uint8_t *p = g0 + b;
                const bool inside = p >= d && p < d + n;
                ok = *p == (inside ? s0[p - d] : 0xEE);
                if (!ok)
                    (void)CHECK(false, "dm_copy_bytes of %" PRIu64 " bytes, destination %u bytes past the source "
                                "modulo 4 KiB: byte %lld %s",
                                n, distances[k], (long long)(p - d), inside ? "differs" : "outside the copy written");
            }
            failures += !ok;
        }
    free(src);
    free(got);
}

/* The names, the best level and what the CPU reports agree. */
TEST(simd_levels_follow_the_cpu)
{
    const uint32_t offered = dm_isa_offered();
    CHECK(offered & (1u << DM_ISA_SCALAR), "scalar is always offered");
    CHECK(offered & (1u << dm_isa_best()), "the best level %s is offered", dm_isa_name(dm_isa_best()));
    for (uint32_t i = 0; i < DM_ISA_COUNT; i++) {
        dm_isa back = DM_ISA_COUNT;
        CHECK(dm_isa_from_name(dm_isa_name((dm_isa)i), &back) && back == (dm_isa)i, "name %s", dm_isa_name((dm_isa)i));
        if (offered & (1u << i))
            (void)CHECK(dm_isa_best() >= (dm_isa)i, "best %s below offered %s", dm_isa_name(dm_isa_best()),
                        dm_isa_name((dm_isa)i));
    }
    dm_isa none;
    CHECK(!dm_isa_from_name("avx512", &none), "no such level");
#if DM_SIMD_X86
    const uint32_t cpu = dm_cpu_extensions();
    CHECK(offered & (1u << DM_ISA_SSE2), "x86 builds have SSE2");
    CHECK(!!(offered & (1u << DM_ISA_SSSE3)) == !!(cpu & DM_CPU_SSSE3), "SSSE3 offered iff the CPU has it");
#if DM_SIMD_AVX2
    CHECK(!!(offered & (1u << DM_ISA_AVX2)) == !!(cpu & DM_CPU_AVX2), "AVX2 offered iff the CPU has it");
#endif
#if defined(__GNUC__)
    __builtin_cpu_init();
    CHECK(!!(cpu & DM_CPU_AVX2) == !!__builtin_cpu_supports("avx2"), "dm_cpu_extensions and the compiler disagree on AVX2");
#endif
#elif defined(__aarch64__)
    CHECK(offered & (1u << DM_ISA_NEON), "AArch64 always has NEON");
#endif
    printf("    offered:");
    for (uint32_t i = 0; i < DM_ISA_COUNT; i++)
        if (offered & (1u << i)) printf(" %s", dm_isa_name((dm_isa)i));
    printf("; best %s\n", dm_isa_name(dm_isa_best()));
}
