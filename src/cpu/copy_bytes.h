/* The CPU engine's plain byte copy: memcpy, except where the C library's copy falls off
 * a cliff (copy_bytes.c says which, and how it is avoided). */
#ifndef DM_CPU_COPY_BYTES_H
#define DM_CPU_COPY_BYTES_H

#include <stdint.h>
#include <string.h>

#include "../platform/compiler.h"

/* Copies from DM_COPY_PIECE bytes up to DM_COPY_PIECES_UNDER whose destination lies 1 to
 * 63 bytes past their source modulo 4 KiB go in pieces (copy_bytes.c). */
#define DM_COPY_PIECE 1024u
#define DM_COPY_PIECES_UNDER (1ull << 20)
void dm_copy_bytes_in_pieces(uint8_t *dst, const uint8_t *src, uint64_t bytes);

/* memcpy(dst, src, bytes) of buffers that do not overlap: a subtraction and a compare
 * more than memcpy. */
DM_INLINE void dm_copy_bytes(uint8_t *dst, const uint8_t *src, uint64_t bytes)
{
    /* distance - 1 < 63 in unsigned arithmetic: a distance of 1 to 63 bytes */
    const uintptr_t distance = ((uintptr_t)dst - (uintptr_t)src) & 4095u;
    if (distance - 1u < 63u && bytes > DM_COPY_PIECE && bytes < DM_COPY_PIECES_UNDER)
        dm_copy_bytes_in_pieces(dst, src, bytes);
    else
        memcpy(dst, src, (size_t)bytes);
}

#endif
