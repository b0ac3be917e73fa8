// GPU tiles: the variants a GPU runs (V_TILES, V_TILE_COLUMNS, V_TILE_HOT; the host picks
// them under GPU tuning, src/vk/kernels.c), each included after gather_main.glsl, whose
// main hands over to the kernel's tile_main. Only their modules declare anything here.
//
// A GPU's memory system serves a warp's 32 lanes at once: a load or store instruction is
// one request, which costs by the 32-byte sectors it touches. The CPU-device paths above
// move a chunk per lane with a load and a store each, and where a chunk's 16 source bytes
// straddle two vectors they fetch both, so neighbouring lanes fetch each vector twice (the
// access model counted up to 2x the sectors; REVERSE with a length per column up to 30x);
// one load then its store leaves a lane nothing else in flight. Here a workgroup takes a
// tile of the output (WG * TILE_V chunks, or what shared memory holds), its lanes load the
// tile's source into shared memory as aligned vectors, each once and all of a lane's loads
// before its stores, neighbouring lanes on neighbouring vectors; a barrier; then each lane
// makes its chunks from shared memory (funnel shifts, reversal, every k-th element,
// per-column rows) and stores them, neighbouring lanes on neighbouring chunks. Rows whose
// source is already aligned skip shared memory. The few chunks that are not whole (a
// row's ends, the chunk where REVERSE turns, sources past the window) go element by
// element as everywhere else. No division in the loops: divisors invariant over a piece
// come as magic numbers from the host (fastdiv), the rest are powers of two.
#if DM_VARIANT >= 9

// Shared memory, sized by the host from maxComputeSharedMemorySize (the spec's minimum,
// 16 KiB, and a fallback); vectors each lane stages per tile (TILE_V: all its loads are
// issued before any of its stores, the memory-level parallelism CUB's transform kernels
// size for; 4 keeps a 128-lane workgroup's tile in 8 KiB).
layout(constant_id = 7) const uint LDS_VECS = 1024u;
layout(constant_id = 8) const uint TILE_V = 4u;
shared uvec4 lds4[LDS_VECS];

// The 16 bytes at byte o of shared memory (funnelled from two vectors when o is not
// aligned); the caller keeps o + 16 inside what it staged.
uvec4 lds16(uint o)
{
    const uint i = o >> 4u, s = o & 15u;
    const uvec4 lo = lds4[i];
    return s == 0u ? lo : funnel(lo, lds4[i + 1u], s);
}

// The element at byte o of shared memory (o a multiple of ESIZE).
uvec2 lds_elem(uint o)
{
    const uvec4 v = lds4[o >> 4u];
    const uint w = (o >> 2u) & 3u;
    if (ESIZE == 8u) return w < 2u ? v.xy : v.zw;
    if (ESIZE == 4u) return uvec2(v[w], 0u);
    return uvec2(bitfieldExtract(v[w], int((o & 3u) * 8u), int(ESIZE * 8u)), 0u);
}

// The workgroup's linear index and count, the lane, the lanes.
uint tile_group() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
uint tile_groups() { return gl_NumWorkGroups.x * gl_NumWorkGroups.y; }

// Stages the aligned vectors that hold source bytes [lo, hi) at shared vector `at` on:
// each lane loads up to TILE_V + 1 of them, every load before any store to shared memory.
// Vectors past the SRC window's last whole one are left as zeros: the chunks that would
// read them go element by element (tile_vec_ok). Returns lo's vector index.
uint tile_stage(uint lo, uint hi, uint at)
{
    const uint q0 = lo >> 4u, nq = ((hi + 15u) >> 4u) - q0, len = uint(src4.length());
    const uint lane = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    uvec4 r[TILE_V + 1u];
    [[unroll]] for (uint i = 0u; i <= TILE_V; i++) {
        const uint k = lane + i * wg, q = q0 + k;
        r[i] = k < nq && q < len ? LD_SRC4(q) : uvec4(0u);
    }
    [[unroll]] for (uint i = 0u; i <= TILE_V; i++) {
        const uint k = lane + i * wg;
        if (k < nq && at + k < LDS_VECS) lds4[at + k] = r[i];
    }
    return q0;
}

// Loads `count` items, each one or more accesses of the caller's (STAGE_LOAD(k) for item
// k, into a uvec4) and stores each to shared memory (STAGE_STORE(k, v)), the lanes
// striding over them: TILE_V + 1 loads of a lane in flight before its stores.
#define TILE_STAGE(count, STAGE_LOAD, STAGE_STORE)                                           \
    {                                                                                        \
        const uint lane_ = gl_LocalInvocationID.x, wg_ = gl_WorkGroupSize.x;                 \
        for (uint base_ = 0u; base_ < (count); base_ += wg_ * (TILE_V + 1u)) {               \
            uvec4 r_[TILE_V + 1u];                                                           \
            [[unroll]] for (uint i_ = 0u; i_ <= TILE_V; i_++) {                              \
                const uint k_ = base_ + lane_ + i_ * wg_;                                    \
                r_[i_] = k_ < (count) ? STAGE_LOAD(k_) : uvec4(0u);                          \
            }                                                                                \
            [[unroll]] for (uint i_ = 0u; i_ <= TILE_V; i_++) {                              \
                const uint k_ = base_ + lane_ + i_ * wg_;                                    \
                if (k_ < (count)) STAGE_STORE(k_, r_[i_]);                                   \
            }                                                                                \
        }                                                                                    \
    }

// AUX's 16-byte vector q, from its words where q is past the last whole vector (their
// missing words 0).
uvec4 aux_vec(uint q)
{
    if (q < uint(aux4.length())) return LD_AUX4(q);
    const uint w = q * 4u, words = uint(aux.length());
    uvec4 v = uvec4(0u);
    for (uint i = 0u; i < 4u; i++)
        if (w + i < words) v[i] = LD_AUX(w + i);
    return v;
}

#if DM_VARIANT == 9
// ---- V_TILES: rows streamed through shared memory (SLICE1, REVERSE along or across the
// axis with one length per row) ----------------------------------------------------------
//
// Element j of a row comes from byte Bb - j * ESIZE while j < P (backwards: SLICE1 with
// step -1, REVERSE's reversed prefix), else from Bf + j * D (SLICE1 with any other step D,
// REVERSE's rest with D = ESIZE): the kernel's tile_row says which. A tile is up to
// P_TILE_CHUNKS chunks of one row; its whole chunks on each side of P are one phase, whose
// sources are one contiguous run of bytes, staged once (or, where every chunk's source is
// an aligned vector, loaded straight).

// The kernel's: a row's P, Bb, Bf and D (after row_begin), and whether its chunks may be
// made from vectors at all; whether elements j0 .. j0 + cnt - 1 have their sources in the
// piece's part of the window.
bool tile_row(out uint P, out uint Bb, out uint Bf, out uint D);
bool tile_in_window(uint j0, uint cnt);

// The byte address of the first (lowest) source byte of the chunk whose elements start at
// j0, in phase `back`, and whether its source runs backwards.
uint tile_src(uint j0, bool back, uint Bb, uint Bf, uint D)
{
    return back ? Bb - (j0 + 16u / ESIZE - 1u) * ESIZE : Bf + j0 * D;
}

// Whether the whole chunk at c (of the row at db, in phase `back` or not) can be made from
// its vectors: its elements' sources lie in the piece's part of the window (tile_in_window,
// the kernel's) and inside the SRC window's whole vectors.
bool tile_chunk_ok(uint c, uint db, bool back, uint Bb, uint Bf, uint D)
{
    const uint n = 16u / ESIZE, j0 = (c * 16u - db) / ESIZE, s = tile_src(j0, back, Bb, Bf, D);
    const bool step1 = back || D == ESIZE, desc = !back && int(D) < 0;
    const uint top = step1 ? s + 15u : desc ? Bf + j0 * D + ESIZE - 1u : s + (n - 1u) * D + ESIZE - 1u;
    return tile_in_window(j0, n) && (top >> 4u) < uint(src4.length());
}

// One phase of a tile: chunks [a, b) of the row at db, all whole and on one side of P (the
// lane's are c_lo + lane + i * WG). Uniform in the workgroup (barriers inside): every
// argument is the tile's. Returns whether it stored its chunks that tile_chunk_ok takes
// (false only when the phase's source outgrows shared memory: then element by element).
bool tile_phase(uint a, uint b, bool back, uint db, uint Bb, uint Bf, uint D, uint c_lo)
{
    if (a >= b) return true;
    const uint n = 16u / ESIZE, lane = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint ja = (a * 16u - db) / ESIZE, jz = (b * 16u - db) / ESIZE - 1u; // the phase's elements [ja, jz]
    const bool step1 = back || D == ESIZE, desc = !back && int(D) < 0;
    // The phase's source bytes [lo, hi): its lowest and highest elements' addresses.
    const uint lo = back ? Bb - jz * ESIZE : Bf + (desc ? jz : ja) * D;
    const uint hi = (back ? Bb - ja * ESIZE : Bf + (desc ? ja : jz) * D) + ESIZE;
    // Straight loads where every chunk's 16 source bytes are one aligned vector (a row
    // whose source is aligned: SLICE1 of aligned columns, reversed rows of whole vectors).
    const bool aligned = step1 && (tile_src(ja, back, Bb, Bf, D) & 15u) == 0u;
    const bool staged = !aligned && ((hi + 15u) >> 4u) - (lo >> 4u) <= LDS_VECS;
    if (!aligned && !staged) return false;
    uint q0 = 0u;
    if (staged) {
        q0 = tile_stage(lo, hi, 0u);
        barrier();
    }
    uvec4 r[TILE_V];
    if (aligned) {
        [[unroll]] for (uint i = 0u; i < TILE_V; i++) {
            const uint c = c_lo + lane + i * wg;
            const bool ok = c >= a && c < b && tile_chunk_ok(c, db, back, Bb, Bf, D);
            r[i] = ok ? LD_SRC4(tile_src((c * 16u - db) / ESIZE, back, Bb, Bf, D) >> 4u) : uvec4(0u);
        }
    }
    [[unroll]] for (uint i = 0u; i < TILE_V; i++) {
        const uint c = c_lo + lane + i * wg;
        if (c < a || c >= b || !tile_chunk_ok(c, db, back, Bb, Bf, D)) continue;
        const uint j0 = (c * 16u - db) / ESIZE;
        uvec4 v;
        if (aligned) {
            v = r[i];
        } else if (step1) {
            v = lds16(tile_src(j0, back, Bb, Bf, D) - (q0 << 4u));
        } else {
            v = uvec4(0u);
            for (uint e = 0u; e < n; e++) v = with_element(v, e, lds_elem(Bf + (j0 + e) * D - (q0 << 4u)));
        }
        ST_DST4(c, back ? reverse_elements(v) : v);
    }
    if (staged) barrier(); // before the next phase or tile stages over this one
    return true;
}

void tiles_rows_main()
{
    const uint lane = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint m = p(P_M), first = pc.rem_dst + p(P_DST_BASE), TC = p(P_TILE_CHUNKS), tiles = p(P_TILES);
    const uint tpr = p(P_TILE_PER), tmag = p(P_TILE_MAGIC), tsh = p(P_TILE_SHIFTS);
    const bool rows2 = g_last > 0u;
    const uint dstr = rows2 ? p(P_DST_STRIDE) : 0u, sstr = rows2 ? p(P_SRC_STRIDE) : 0u, astr = rows2 ? p(P_AUX_STRIDE) : 0u;
    const uint len4 = uint(dst4.length());
    for (uint t = tile_group(); t < tiles; t += tile_groups()) {
        const uint r = fastdiv(t, tmag, tsh), k = t - r * tpr;
        const uint db = first + r * dstr, sb = pc.rem_src + p(P_SRC_BASE) + r * sstr, ab = pc.rem_aux + p(P_AUX_BASE) + r * astr;
        row_begin(sb, ab, g_axis == 0u && rows2 ? g_axis_origin + r : g_axis_origin);
        uint P, Bb, Bf, D;
        const bool vec = tile_row(P, Bb, Bf, D);
        const uint row_end = db + m * ESIZE, c_lo = (db >> 4u) + k * TC, c_hi = min(c_lo + TC, (row_end + 15u) >> 4u);
        // Whole chunks [cw_lo, cw_hi): backwards before the turn, forwards after it.
        const uint cw_lo = max(c_lo, (db + 15u) >> 4u), cw_hi = max(min(c_hi, min(row_end >> 4u, len4)), cw_lo);
        const uint turn = db + min(P, m) * ESIZE;
        const uint b_end = clamp(turn >> 4u, cw_lo, cw_hi), f_lo = clamp((turn + 15u) >> 4u, cw_lo, cw_hi);
        bool b_done = false, f_done = false;
        if (vec) {
            b_done = tile_phase(cw_lo, b_end, true, db, Bb, Bf, D, c_lo);
            f_done = tile_phase(f_lo, cw_hi, false, db, Bb, Bf, D, c_lo);
        }
        // What no phase stored: the row's partial ends, the chunk where it turns, and
        // chunks whose sources lie outside the windows.
        for (uint i = 0u; i < TILE_V; i++) {
            const uint c = c_lo + lane + i * wg;
            if (c >= c_hi) break;
            const bool back = c < b_end, fwd = c >= f_lo && c < cw_hi;
            const bool done = c >= cw_lo && ((back && b_done) || (fwd && f_done)) && tile_chunk_ok(c, db, back, Bb, Bf, D);
            if (!done) element_chunk(c, db, row_end);
        }
    }
}
#endif // V_TILES

#endif // DM_VARIANT >= 9
