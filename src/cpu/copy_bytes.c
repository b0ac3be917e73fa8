/* The pieces of dm_copy_bytes (copy_bytes.h).
 *
 * glibc (2.33 on; Debian 12's 2.36 here) copies from its rep_movsb_threshold (2112 bytes
 * on this project's AMD EPYC VM, 2048-8192 elsewhere) up to about the L2's size (512 KiB
 * on Zen 3, 1 MiB on Zen 4) with `rep movsb`. On Zen 3 that instruction runs about 18x
 * slower when the destination lies 1 to 31 bytes past the source modulo 4 KiB, and about
 * 1.5x at 32 to 63: its loads wait behind its own stores to addresses that match them in
 * the low 12 bits (4 KiB aliasing). 16 rows of 4 KiB, in L2: 28-30 us against 1.4-1.6
 * at other distances; 256 KiB: 88-118 us against 6.5 (docs/performance.md, "The small
 * operators' cliff"). Heap buffers land that way by chance: malloc puts a block 16 bytes
 * past the end of the one before it, so a 64 KiB output allocated right after its 64 KiB
 * input sits 64 KiB + 16 bytes above it, and in `dmlops bench --filter KiB` REVERSE along
 * the outer axis of [16, 1024] FLOAT32 (4 KiB rows) took 23-35 us instead of 2.
 *
 * Such copies go in pieces under every threshold, which glibc moves with its vector loop;
 * that loop checks for the aliasing itself and then copies backwards (1.5-2.0 us for the
 * rows above, 8.3 us for the 256 KiB). The pieces are handed to the C library's memcpy
 * through a pointer the compiler cannot see through: called directly with a size it can
 * bound, GCC expands the copy in line as `rep movsq`, which has the same cliff. From 1 MiB
 * glibc's own path copies these pairs at full speed (29 us for 1 MiB at every distance),
 * and the pieces would cost a third more, so they stop there. A C library without the
 * cliff loses a call per KiB on these rare pairs only. */
#include "copy_bytes.h"

#include <stddef.h>

static void *(*volatile dm_memcpy_opaque)(void *, const void *, size_t) = memcpy;

void dm_copy_bytes_in_pieces(uint8_t *dst, const uint8_t *src, uint64_t bytes)
{
    void *(*copy)(void *, const void *, size_t) = dm_memcpy_opaque;
    for (uint64_t i = 0; i < bytes; i += DM_COPY_PIECE)
        copy(dst + i, src + i, (size_t)(bytes - i < DM_COPY_PIECE ? bytes - i : DM_COPY_PIECE));
}
