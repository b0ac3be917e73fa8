/* The eight examples of the DirectML pages, byte for byte, on every backend. */
#include "../examples/seed_examples.h"
#include "harness.h"

TEST_CTX(seed_examples_byte_exact)
{
    for (size_t i = 0; i < SEED_EXAMPLE_COUNT; i++) {
        const seed_example *ex = &seed_examples[i];
        float out[16] = {0};
        if (!CHECK_OK(seed_run(ctx, ex, out))) continue;
        uint64_t bytes = seed_bytes(&ex->output);
        CHECK(memcmp(out, ex->expected, bytes) == 0, "%s: output differs", ex->title);
    }
}
