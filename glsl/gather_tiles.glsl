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
#undef DM_SITE_FILE
#define DM_SITE_FILE 5
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

// The workgroup's linear index and count in the piece's virtual grid.
uint tile_group() { return grid_group(); }
uint tile_groups() { return grid_groups(); }

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
// ---- V_TILES: rows through shared memory (SLICE1, REVERSE along or across the axis with
// one length per row) ---------------------------------------------------------------------
//
// Element j of a row comes from byte Bb - j * ESIZE while j < P (backwards: SLICE1 with
// step -1, REVERSE's reversed prefix), else from Bf + j * D (SLICE1 with any other step D,
// REVERSE's rest with D = ESIZE): the kernel's tile_row says which. A tile is G rows of one
// segment of S chunks each (S a power of two: a whole row where rows are short, so that
// lanes are not idle; G = 1 and a row's S-chunk segments where they are long). Each row's
// segment reads two contiguous runs of source bytes, its backward elements' and its
// forward ones', staged one after the other in the row's region of P_TILE_SPAN vectors,
// so that every whole chunk, the one where REVERSE turns included, is made from shared
// memory. Each row's geometry (and, for REVERSE, its length) is worked out once, by one
// lane, and put in shared memory beside the staged data for the others. Where the host
// found every chunk's 16 source bytes an aligned vector (ALIGNED: SLICE1 with step 1 or -1
// over aligned rows) the lanes load them straight instead.

// The kernel's: a row's P, Bb, Bf and D (after row_begin), and whether its chunks may be
// made from vectors at all; whether elements j0 .. j0 + cnt - 1 have their sources in the
// piece's part of the window.
bool tile_row(out uint P, out uint Bb, out uint Bf, out uint D);
bool tile_in_window(uint j0, uint cnt);
// The kernel's D, the same for every row (tile_row's).
uint tile_step();

// The tile: its first row, its segment of each row, the segment's chunks.
uint g_tile_r0, g_tile_sg, g_tile_S;

// One row's segment of a tile, as every lane working on it computes it (rows are cached:
// row_begin reads a REVERSE row's length).
uint g_tr_row = 0xffffffffu;
uint g_tr_db, g_tr_end, g_tr_P, g_tr_Bb, g_tr_Bf, g_tr_D, g_tr_c0, g_tr_c1, g_tr_qb, g_tr_nb, g_tr_qf, g_tr_nf;
bool g_tr_vec;

// Row r of the piece, segment chunks [first + sg * S, + S) of it.
void tile_row_at(uint r, uint sg, uint S)
{
    if (r == g_tr_row) return;
    g_tr_row = r;
    const bool rows2 = g_last > 0u;
    g_tr_db = pc.rem_dst + p(P_DST_BASE) + (rows2 ? r * p(P_DST_STRIDE) : 0u);
    const uint sb = pc.rem_src + p(P_SRC_BASE) + (rows2 ? r * p(P_SRC_STRIDE) : 0u);
    const uint ab = pc.rem_aux + p(P_AUX_BASE) + (rows2 ? r * p(P_AUX_STRIDE) : 0u);
    row_begin(sb, ab, g_axis == 0u && rows2 ? g_axis_origin + r : g_axis_origin);
    g_tr_vec = tile_row(g_tr_P, g_tr_Bb, g_tr_Bf, g_tr_D);
    const uint m = p(P_M), n = 16u / ESIZE;
    g_tr_end = g_tr_db + m * ESIZE;
    g_tr_c0 = (g_tr_db >> 4u) + sg * S;
    g_tr_c1 = min(g_tr_c0 + S, (g_tr_end + 15u) >> 4u);
    // The segment's elements [jl, jh), backwards [jl, min(P, jh)) and forwards from there.
    const uint jl = g_tr_c0 * 16u > g_tr_db ? (g_tr_c0 * 16u - g_tr_db) / ESIZE : 0u;
    const uint jh = min((g_tr_c1 * 16u - g_tr_db) / ESIZE, m), jp = clamp(g_tr_P, jl, jh);
    const bool desc = int(g_tr_D) < 0;
    g_tr_qb = (g_tr_Bb - (jp - 1u) * ESIZE) >> 4u;
    g_tr_nb = jp > jl ? ((g_tr_Bb - jl * ESIZE + ESIZE + 15u) >> 4u) - g_tr_qb : 0u;
    g_tr_qf = (g_tr_Bf + (desc ? jh - 1u : jp) * g_tr_D) >> 4u;
    g_tr_nf = jh > jp ? ((g_tr_Bf + (desc ? jp : jh - 1u) * g_tr_D + ESIZE + 15u) >> 4u) - g_tr_qf : 0u;
}

// Staged vector k of the row's region: its backward run, then its forward one.
uint tile_src_vec(uint k) { return k < g_tr_nb ? g_tr_qb + k : g_tr_qf + (k - g_tr_nb); }

// Element j of the current row from the staged region at shared vector `at`.
uvec2 tile_elem(uint j, uint at)
{
    const uint a = j < g_tr_P ? g_tr_Bb - j * ESIZE : g_tr_Bf + j * g_tr_D;
    const uint o = j < g_tr_P ? a - (g_tr_qb << 4u) : a - (g_tr_qf << 4u) + (g_tr_nb << 4u);
    return lds_elem((at << 4u) + o);
}

// Whether whole chunk c (its elements from j0) can be made from its vectors: sources in
// the piece's part of the window and inside the SRC window's whole vectors. Backward
// elements end at Bb + ESIZE, forward ones span from Bf + j0 * D on.
bool tile_chunk_ok(uint c, uint j0)
{
    const uint n = 16u / ESIZE, len = uint(src4.length());
    const uint jb = min(g_tr_P, j0 + n), top_b = g_tr_Bb - j0 * ESIZE + ESIZE - 1u;
    const uint jf = max(g_tr_P, j0);
    const uint top_f = g_tr_Bf + (int(g_tr_D) < 0 ? jf : j0 + n - 1u) * g_tr_D + ESIZE - 1u;
    return g_tr_vec && tile_in_window(j0, n) && (jb <= j0 || (top_b >> 4u) < len) && (jf >= j0 + n || (top_f >> 4u) < len);
}

// Row g of the tile's geometry in shared memory, after the staged data (two vectors a row),
// and back.
uint g_tile_info;
void tile_row_put(uint g)
{
    lds4[g_tile_info + 2u * g] = uvec4(g_tr_db, g_tr_P, g_tr_Bb, g_tr_Bf);
    lds4[g_tile_info + 2u * g + 1u] = uvec4(g_tr_qb, g_tr_nb, g_tr_qf, g_tr_nf | (g_tr_vec ? 0x80000000u : 0u));
}
void tile_row_get(uint g)
{
    if (g_tr_row == g_tile_r0 + g) return;
    g_tr_row = g_tile_r0 + g;
    const uvec4 a = lds4[g_tile_info + 2u * g], b = lds4[g_tile_info + 2u * g + 1u];
    g_tr_db = a.x;
    g_tr_P = a.y;
    g_tr_Bb = a.z;
    g_tr_Bf = a.w;
    g_tr_qb = b.x;
    g_tr_nb = b.y;
    g_tr_qf = b.z;
    g_tr_nf = b.w & 0x7fffffffu;
    g_tr_vec = (b.w >> 31u) != 0u;
    g_tr_D = tile_step();
    g_tr_end = g_tr_db + p(P_M) * ESIZE;
    g_tr_c0 = (g_tr_db >> 4u) + g_tile_sg * g_tile_S;
    g_tr_c1 = min(g_tr_c0 + g_tile_S, (g_tr_end + 15u) >> 4u);
}

uvec4 tile_stage_load(uint k)
{
    const uint rs = p(P_TILE_SPAN), g = fastdiv(k, p(P_SPAN_MAGIC), p(P_SPAN_SHIFTS)), v = k - g * rs;
    tile_row_get(g);
    const uint q = tile_src_vec(v);
    return g_tr_vec && v < g_tr_nb + g_tr_nf && q < uint(src4.length()) ? LD_SRC4(q) : uvec4(0u);
}
void tile_stage_store(uint k, uvec4 x) { lds4[k] = x; }

// The lane's chunks of the tile that go element by element (bit i: its chunk i): the
// row's ends, sources outside the windows. Done after the lane's vector chunks, from the
// kernel's own row state (row_elem), in one loop, so that the tile's unrolled loops carry
// no element path: with it each of them held 1000-6000 instructions on RADV (make isa).
void tile_slow(uint slow, uint lgS)
{
    const uint lane = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    while (slow != 0u) {
        const uint i = uint(findLSB(slow)), idx = lane + i * wg;
        slow &= slow - 1u;
        g_tr_row = 0xffffffffu;
        tile_row_at(g_tile_r0 + (idx >> lgS), g_tile_sg, g_tile_S);
        element_chunk(g_tr_c0 + (idx & (g_tile_S - 1u)), g_tr_db, g_tr_end);
    }
}

// Chunk idx of the tile for the row the lane has (g_tr_*): its index, and whether it is a
// whole chunk whose sources tile_chunk_ok takes (else *j0 is 0).
bool tile_chunk(uint idx, uint len4, out uint c, out uint j0)
{
    c = g_tr_c0 + (idx & (g_tile_S - 1u));
    const bool whole = c * 16u >= g_tr_db && c * 16u + 16u <= g_tr_end && c < len4;
    j0 = whole ? (c * 16u - g_tr_db) / ESIZE : 0u;
    return whole && tile_chunk_ok(c, j0);
}

void tiles_rows_main()
{
    const uint lane = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x, n = 16u / ESIZE;
    const uint S = p(P_TILE_CHUNKS), spr = p(P_TILE_PER), smag = p(P_TILE_MAGIC), ssh = p(P_TILE_SHIFTS);
    const uint G = p(P_TILE_STEP_ROWS), lgS = p(P_TILE_STEP_COLS), rs = p(P_TILE_SPAN), tiles = p(P_TILES);
    const uint rows = g_last > 0u ? p(P_SIZE) : 1u, len4 = uint(dst4.length());
    g_tile_S = S;
    for (uint t = tile_group(); t < tiles; t += tile_groups()) {
        const uint rg = fastdiv(t, smag, ssh);
        g_tile_sg = t - rg * spr;
        g_tile_r0 = rg * G;
        const uint g_rows = min(G, rows - g_tile_r0);
        g_tr_row = 0xffffffffu;
        uint slow = 0u;
        // Every whole chunk's source an aligned vector (the host's finding, ALIGNED): straight
        // loads, every one of a lane's before its stores.
        if (ALIGNED) {
            uvec4 x[TILE_V];
            uint cs[TILE_V];
            [[unroll]] for (uint i = 0u; i < TILE_V; i++) {
                const uint idx = lane + i * wg, g = idx >> lgS;
                x[i] = uvec4(0u);
                cs[i] = 0xffffffffu;
                if (g >= g_rows) continue;
                tile_row_at(g_tile_r0 + g, g_tile_sg, S);
                uint c, j0;
                const bool ok = tile_chunk(idx, len4, c, j0);
                if (c >= g_tr_c1) continue;
                if (!ok) {
                    slow |= 1u << i;
                    continue;
                }
                const bool back = j0 < g_tr_P;
                x[i] = LD_SRC4((back ? g_tr_Bb - (j0 + n - 1u) * ESIZE : g_tr_Bf + j0 * g_tr_D) >> 4u);
                cs[i] = back ? c | 0x80000000u : c; /* the top bit: reversed */
            }
            [[unroll]] for (uint i = 0u; i < TILE_V; i++) {
                const uint c = cs[i] & 0x7fffffffu;
                if (cs[i] != 0xffffffffu) ST_DST4(c, c != cs[i] ? reverse_elements(x[i]) : x[i]);
            }
            tile_slow(slow, lgS);
            continue;
        }
        // The rows' geometry, each worked out by one lane, then the rows' sources. A tile
        // sized past shared memory (never: dm_tile_params fits G rows of rs + 2 vectors)
        // goes element by element rather than write past it; the test is uniform, and
        // leaves the staging loads ahead of every store.
        g_tile_info = g_rows * rs;
        const bool fits = g_tile_info + 2u * g_rows <= LDS_VECS;
        if (fits && lane < g_rows) {
            tile_row_at(g_tile_r0 + lane, g_tile_sg, S);
            tile_row_put(lane);
        }
        barrier();
        g_tr_row = 0xffffffffu;
        TILE_STAGE(fits ? g_rows * rs : 0u, tile_stage_load, tile_stage_store)
        barrier();
        for (uint i = 0u; i < TILE_V; i++) {
            const uint idx = lane + i * wg, g = idx >> lgS;
            if (g >= g_rows) break;
            if (!fits) {
                slow |= 1u << i;
                continue;
            }
            tile_row_get(g);
            uint c, j0;
            const bool ok = tile_chunk(idx, len4, c, j0);
            if (c >= g_tr_c1) continue;
            if (!ok) {
                slow |= 1u << i;
                continue;
            }
            const uint at = g * rs;
            uvec4 v;
            if (j0 + n <= g_tr_P) { // backwards: one reversed vector
                v = reverse_elements(lds16((at << 4u) + (g_tr_Bb - (j0 + n - 1u) * ESIZE - (g_tr_qb << 4u))));
            } else if (j0 >= g_tr_P && g_tr_D == ESIZE) { // forwards: one vector
                v = lds16((at << 4u) + (g_tr_nb << 4u) + (g_tr_Bf + j0 * ESIZE - (g_tr_qf << 4u)));
            } else if (j0 >= g_tr_P && g_tr_D == 2u * ESIZE) { // step 2: every second element of two
                const uint o = (at << 4u) + (g_tr_nb << 4u) + (g_tr_Bf + j0 * 2u * ESIZE - (g_tr_qf << 4u));
                v = even_elements(lds16(o), lds16(o + 16u));
            } else { // other steps, and the chunk where REVERSE turns: element by element
                v = uvec4(0u);
                for (uint e = 0u; e < n; e++) v = with_element(v, e, tile_elem(j0 + e, at));
            }
            ST_DST4(c, v);
        }
        tile_slow(slow, lgS);
        barrier(); // before the next tile stages over this one
        g_tr_row = 0xffffffffu;
    }
}
#endif // V_TILES

#endif // DM_VARIANT >= 9

#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
// Back to the kernel's own file (trace.glsl's sites).
#undef DM_SITE_FILE
#define DM_SITE_FILE 2
