/* Division by invariant divisors (src/fastdiv.h): the host's magic numbers and the C
 * model of the kernels' formula against n / d, for the divisors where such schemes
 * break (1, every power of two, 3, 7, 2^32 - 1, and random ones from a fixed seed) and
 * the numerators where they break (near 2^32, and each side of multiples of d). The
 * kernels' own use is checked by the operator suites, whose shapes make them divide by
 * odd row lengths (test_random, test_targeted). */
#include <stdlib.h>

#include "../src/fastdiv.h"
#include "harness.h"

static unsigned long long wrong;

static void check_one(uint32_t n, uint32_t d, dm_fastdiv f)
{
    const uint32_t got = dm_fastdiv_apply(n, f), want = n / d;
    if (got != want && wrong++ < 10)
        CHECK(got == want, "%u / %u = %u, the magic number (%u, shifts 0x%x) gives %u", n, d, want, f.magic, f.shifts, got);
}

static void check_divisor(uint32_t d, dmt_rng *rng)
{
    const dm_fastdiv f = dm_fastdiv_for(d);
    for (uint32_t i = 0; i < 4096; i++) check_one(UINT32_MAX - i, d, f); /* numerators near 2^32 */
    for (uint32_t i = 0; i < 4096; i++) check_one(i, d, f);
    for (uint64_t q = 1; q * d <= UINT32_MAX && q < 64; q++) { /* each side of multiples of d */
        const uint32_t at = (uint32_t)(q * d);
        check_one(at - 1, d, f);
        check_one(at, d, f);
        if (at < UINT32_MAX) check_one(at + 1, d, f);
    }
    const uint64_t last = (uint64_t)UINT32_MAX / d * d; /* the last multiple below 2^32 */
    check_one((uint32_t)last, d, f);
    check_one((uint32_t)(last - 1), d, f);
    for (int i = 0; i < 2048; i++) check_one((uint32_t)dmt_next(rng), d, f);
}

TEST(magic_division_is_exact_where_such_schemes_break)
{
    const uint64_t seed = 0x5eedfa57d1ull;
    dmt_rng rng = {seed};
    printf("    seed 0x%llx\n", (unsigned long long)seed);
    wrong = 0;
    static const uint32_t named[] = {1, 3, 5, 7, 10, 12, 641, 6700417, 0x7fffffffu, 0x80000001u, 0xfffffffeu, 0xffffffffu};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) check_divisor(named[i], &rng);
    for (int k = 0; k < 32; k++) {
        check_divisor(1u << k, &rng);
        if (k > 1) check_divisor((1u << k) - 1, &rng);
        if (k > 0 && k < 31) check_divisor((1u << k) + 1, &rng);
    }
    for (int i = 0; i < 200; i++) {
        uint32_t d = (uint32_t)dmt_next(&rng) >> (dmt_below(&rng, 32));
        check_divisor(d ? d : 1, &rng);
    }
    CHECK(wrong == 0, "%llu quotients wrong", wrong);
}

/* A divisor of 0 is never asked for; it is taken as 1 rather than left undefined. */
TEST(a_zero_divisor_divides_by_one)
{
    const dm_fastdiv f = dm_fastdiv_for(0);
    CHECK(dm_fastdiv_apply(12345, f) == 12345 && dm_fastdiv_apply(UINT32_MAX, f) == UINT32_MAX);
}
