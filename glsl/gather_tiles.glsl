// GPU tiles: the variants a GPU runs (V_TILES, V_TILE_ROWS, V_TILE_COLUMNS, V_TILE_HOT;
// the host picks them under GPU tuning, src/vk/kernels.c), each included after
// gather_main.glsl, whose main hands over to the kernel's tile_main. Only their modules
// declare anything here.
//
// A GPU's memory system serves a warp's 32 lanes at once: a load or store instruction is
// one request, which costs by the 32-byte sectors it touches. The CPU-device paths move a
// chunk per lane with a load and a store each, and where a chunk's 16 source bytes
// straddle two vectors they fetch both, so neighbouring lanes fetch each vector twice (the
// access model counted up to 2x the sectors; REVERSE with a length per column up to 30x);
// one load then its store leaves a lane nothing else in flight. Here a workgroup takes a
// tile of the output (WG * TILE_V chunks, or what shared memory holds), its lanes load the
// tile's source into shared memory as aligned vectors, each once and all of a lane's loads
// before its stores, neighbouring lanes on neighbouring vectors; a barrier; then each lane
// makes its chunks from shared memory (funnel shifts, reversal, every k-th element,
// per-column rows) and stores them, neighbouring lanes on neighbouring chunks. Rows whose
// source is already aligned skip shared memory (V_TILE_ROWS, a module that declares
// none). The few chunks that are not whole (a row's ends, sources past the window) go
// element by element, from one place per module. No division in the loops: divisors
// invariant over a piece come as magic numbers from the host (fastdiv), the rest are
// powers of two. Nothing is cached across a tile's steps but its index: a row's geometry
// lives in shared memory, read where it is needed, which keeps a GPU's registers for the
// staged vectors (V3D has 32 a thread).
#undef DM_SITE_FILE
#define DM_SITE_FILE 5
#if DM_VARIANT >= 9

// Vectors each lane loads per tile before it stores (TILE_V: the memory-level
// parallelism CUB's transform kernels size for). The host sets it (dm_vk_limits): 2 keeps
// a 128-lane workgroup's tile in 4,224 bytes of shared memory (4 took 8,704 and halved
// RADV's waves a SIMD); 4 is only this declaration's default.
layout(constant_id = 8) const uint TILE_V = 4u;

// The workgroup's index and count in the piece's virtual grid: a tile a workgroup.
uint tile_group() { return grid_group(); }
uint tile_groups() { return grid_groups(); }

#if DM_VARIANT != 12
// Shared memory, sized by the host from maxComputeSharedMemorySize (the spec's minimum,
// 16 KiB, and a fallback).
layout(constant_id = 7) const uint LDS_VECS = 1024u;
shared uvec4 lds4[LDS_VECS];

// The 16 bytes at byte o of shared memory (funnelled from two vectors when o is not
// aligned); the caller keeps o + 16 inside what it staged.
uvec4 lds16(uint o)
{
    const uint i = o >> 4u, s = o & 15u;
    const uvec4 lo = lds4[i];
    return s == 0u ? lo : funnel(lo, lds4[i + 1u], s);
}

// The 4 bytes at byte o of shared memory (any o), from the one or two words that hold them.
uint lds_word(uint o)
{
    const uint i = o >> 2u, s = (o & 3u) * 8u, w0 = lds4[i >> 2u][i & 3u];
    return s == 0u ? w0 : (w0 >> s) | (lds4[(i + 1u) >> 2u][(i + 1u) & 3u] << (32u - s));
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
#endif

#if DM_VARIANT == 9 || DM_VARIANT == 12
// ---- V_TILES and V_TILE_ROWS: rows (SLICE1, REVERSE along or across the axis with one
// length per row) --------------------------------------------------------------------------
//
// Element j of a row comes from byte Bb - j * ESIZE while j < P (backwards: SLICE1 with
// step -1, REVERSE's reversed prefix), else from Bf + j * D (SLICE1 with any other step D,
// REVERSE's rest with D = ESIZE): the kernel's tile_row says which. A tile is G rows of one
// segment of S chunks each (S a power of two: a whole row where rows are short, so that
// lanes are not idle; G = 1 and a row's S-chunk segments where they are long); lane l
// takes its tile's chunks l, l + WG, ..., TILE_V of them, chunk idx being chunk idx % S of
// row idx / S's segment. A chunk the row fills only in part (its ends) is made the same
// way and stored under a byte mask: there is no element-by-element path, whose state
// held more registers than the rest of the kernel (V3D spilled, Intel lost SIMD16).

// The kernel's: the row at sb, ab (axis coordinate axis): its P, Bb and Bf, and whether
// every element's source lies in the piece's window (REVERSE: the whole axis there); D,
// the same for every row; and, where a row's do not, whether element j's does.
bool tile_row(uint sb, uint ab, uint axis, out uint P, out uint Bb, out uint Bf);
uint tile_step();
bool tile_src_in(uint j, uint P, uint Bb);

// The tile's geometry: its first row, its rows, the segment of each (its first chunk's
// index in the row).
uint tile_at(uint t, out uint r0, out uint seg)
{
    const uint spr = p(P_TILE_PER), G = p(P_TILE_STEP_ROWS);
    const uint rg = fastdiv(t, p(P_TILE_MAGIC), p(P_TILE_SHIFTS));
    seg = (t - rg * spr) * p(P_TILE_CHUNKS);
    r0 = rg * G;
    return min(G, p(P_ROWS) - r0);
}
#endif

#if DM_VARIANT == 12
// V_TILE_ROWS: SLICE1 with step 1 or -1 where every chunk's source is an aligned vector
// (the host's finding, ALIGNED: the rows' ends too, being the same phase): a lane loads
// its TILE_V vectors straight, every one before its stores, and stores them (reversed for
// step -1), a row's end chunks under a byte mask. No shared memory.
void tile_rows_main()
{
    const uint lane = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x, n = 16u / ESIZE;
    const uint S = p(P_TILE_CHUNKS), lgS = p(P_TILE_STEP_COLS), tiles = p(P_TILES);
    const bool back = g_src_step != ESIZE;
    for (uint t = tile_group(); t < tiles; t += tile_groups()) {
        uint r0, seg;
        const uint rows = tile_at(t, r0, seg);
        uvec4 x[TILE_V];
        [[unroll]] for (uint i = 0u; i < TILE_V; i++) {
            const uint idx = lane + i * wg, g = idx >> lgS;
            x[i] = uvec4(0u);
            if (g < rows) {
                uint db, sb, ab, axis;
                row_at(r0 + g, db, sb, ab, axis);
                const uint c = (db >> 4u) + seg + (idx & (S - 1u)), j0 = chunk_j0(c * 16u, db);
                x[i] = src_vec_at((back ? sb - (j0 + n - 1u) * ESIZE : sb + j0 * ESIZE) >> 4u);
            }
        }
        [[unroll]] for (uint i = 0u; i < TILE_V; i++) {
            const uint idx = lane + i * wg, g = idx >> lgS;
            if (g >= rows) continue;
            uint db, sb, ab, axis;
            row_at(r0 + g, db, sb, ab, axis);
            const uint c = (db >> 4u) + seg + (idx & (S - 1u)), cb = c * 16u, end = db + p(P_M) * ESIZE;
            if (cb >= end) continue; // past the row (the segment's own end holds)
            store_chunk(c, back ? reverse_elements(x[i]) : x[i], range_mask(max(db, cb) - cb, min(end - cb, 16u)));
        }
    }
}
void tile_main() { tile_rows_main(); }
#endif

#if DM_VARIANT == 9
// V_TILES: each row's segment reads two contiguous runs of source bytes, its backward
// elements' and its forward ones', staged one after the other in the row's region of
// P_TILE_SPAN vectors (the window's last partial vector from its words), so that every
// chunk is made from shared memory. Each row's geometry is worked out once, by one lane,
// and put in shared memory after the staged data, two vectors a row: its output start,
// P, Bb, Bf; the first vector and the count of its backward run, of its forward run, and
// whether every element's source lies in the window (the count's top bit).

// Row g of the tile (row r of the piece, segment chunks [seg, seg + S)): its geometry
// into shared memory at `info`.
void tile_put_row(uint g, uint r, uint seg, uint info)
{
    uint db, sb, ab, axis, P, Bb, Bf;
    row_at(r, db, sb, ab, axis);
    const bool inside = tile_row(sb, ab, axis, P, Bb, Bf);
    const uint m = p(P_M), D = tile_step(), end = db + m * ESIZE;
    const uint c0 = (db >> 4u) + seg, c1 = min(c0 + p(P_TILE_CHUNKS), (end + 15u) >> 4u);
    // The segment's elements [jl, jh), backwards [jl, min(P, jh)) and forwards from there.
    const uint jl = c0 * 16u > db ? (c0 * 16u - db) / ESIZE : 0u;
    const uint jh = min((c1 * 16u - db) / ESIZE, m), jp = clamp(P, jl, jh);
    // Vector indices by arithmetic shifts: where the window holds a row's sources only in
    // part (an axis over several windows), a run may start below the window (an address
    // that wrapped) and end inside it, and its count must stay small.
    const bool desc = int(D) < 0;
    const int qb = int(Bb - (jp - 1u) * ESIZE) >> 4;
    const uint nb = jp > jl ? uint((int(Bb - jl * ESIZE + ESIZE + 15u) >> 4) - qb) : 0u;
    const int qf = int(Bf + (desc ? jh - 1u : jp) * D) >> 4;
    const uint nf = jh > jp ? uint((int(Bf + (desc ? jp : jh - 1u) * D + ESIZE + 15u) >> 4) - qf) : 0u;
    lds4[info + 2u * g] = uvec4(db, P, Bb, Bf);
    lds4[info + 2u * g + 1u] = uvec4(uint(qb), nb, uint(qf), nf | (inside ? 0x80000000u : 0u));
}

// Staged vector k of the tile: row k / P_TILE_SPAN's, from its backward run, then its
// forward one (zeros past what it stages).
uint g_tile_info;
uvec4 tile_stage_load(uint k)
{
    const uint rs = p(P_TILE_SPAN), g = fastdiv(k, p(P_SPAN_MAGIC), p(P_SPAN_SHIFTS)), v = k - g * rs;
    const uvec4 b = lds4[g_tile_info + 2u * g + 1u];
    const uint nf = b.w & 0x7fffffffu;
    return v < b.y + nf ? src_vec_at(v < b.y ? b.x + v : b.z + (v - b.y)) : uvec4(0u);
}
void tile_stage_store(uint k, uvec4 x) { lds4[k] = x; }

// The lane's chunk idx of the tile from the staged rows, and the bytes of it this piece
// writes (mask); false past its row's end. A whole chunk takes a vector or two; the one
// where REVERSE turns, a row's ends, and a row whose sources the window holds only in
// part go element by element, in registers.
bool tile_chunk(uint idx, uint seg, out uint c, out uvec4 v, out uvec4 mask)
{
    const uint S = p(P_TILE_CHUNKS), g = idx >> p(P_TILE_STEP_COLS), n = 16u / ESIZE, m = p(P_M);
    const uvec4 a = lds4[g_tile_info + 2u * g], b = lds4[g_tile_info + 2u * g + 1u];
    const uint db = a.x, P = a.y, Bb = a.z, Bf = a.w, qb = b.x, nb = b.y, qf = b.z, D = tile_step();
    const uint end = db + m * ESIZE;
    c = (db >> 4u) + seg + (idx & (S - 1u));
    const uint cb = c * 16u, j0 = chunk_j0(cb, db);
    v = uvec4(0u);
    mask = range_mask(max(db, cb) - cb, min(end - cb, 16u));
    if (cb >= end) return false;
    const bool inside = (b.w >> 31u) != 0u, whole = cb >= db && cb + 16u <= end;
    const uint at = (g * p(P_TILE_SPAN)) << 4u, fwd = at + (nb << 4u) - (qf << 4u);
    if (whole && inside && j0 + n <= P) { // backwards: one reversed vector
        v = reverse_elements(lds16(at + Bb - (j0 + n - 1u) * ESIZE - (qb << 4u)));
    } else if (whole && inside && j0 >= P && D == ESIZE) { // forwards: one vector
        v = lds16(fwd + Bf + j0 * ESIZE);
    } else if (whole && inside && j0 >= P && D == 2u * ESIZE) { // step 2: every second element of 32 bytes
        // Word by word, each from the two staged words that hold it: two funnelled vectors
        // at once cost Intel its SIMD16 build.
        const uint o = fwd + Bf + j0 * 2u * ESIZE;
        [[unroll]] for (uint q = 0u; q < 4u; q++) {
            const uint a = ESIZE == 8u ? o + (q >> 1u) * 16u + (q & 1u) * 4u : o + q * 8u;
            v[q] = ESIZE >= 4u ? lds_word(a)
                 : ESIZE == 2u ? even_halves(lds_word(a), lds_word(a + 4u)) : even_bytes(lds_word(a), lds_word(a + 4u));
        }
    } else { // other steps, the turn, the row's ends, sources in part outside the window
        mask = uvec4(0u);
        [[dont_unroll]] for (uint e = 0u; e < n; e++) {
            const uint j = j0 + e; // wrapped far past m before the row's start
            if (j >= m || (!inside && !tile_src_in(j, P, Bb))) continue;
            v = with_element(v, e, lds_elem(j < P ? at + Bb - j * ESIZE - (qb << 4u) : fwd + Bf + j * D));
            mask = with_element(mask, e, uvec2(0xffffffffu));
        }
    }
    return true;
}

void tiles_rows_main()
{
    const uint lane = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x, lgS = p(P_TILE_STEP_COLS);
    const uint rs = p(P_TILE_SPAN), tiles = p(P_TILES);
    for (uint t = tile_group(); t < tiles; t += tile_groups()) {
        uint r0, seg;
        const uint rows = tile_at(t, r0, seg);
        // The rows' geometry, each by one lane, then the rows' sources. A tile sized past
        // shared memory is never planned (dm_tile_params fits G rows of rs + 2 vectors);
        // one that were would write nothing rather than past it.
        g_tile_info = rows * rs;
        const bool fits = g_tile_info + 2u * rows <= LDS_VECS;
        if (fits && lane < rows) tile_put_row(lane, r0 + lane, seg, g_tile_info);
        barrier();
        TILE_STAGE(fits ? rows * rs : 0u, tile_stage_load, tile_stage_store)
        barrier();
        [[dont_unroll]] for (uint i = 0u; i < TILE_V; i++) {
            const uint idx = lane + i * wg;
            if (!fits || (idx >> lgS) >= rows) break;
            uint c;
            uvec4 v, mask;
            if (tile_chunk(idx, seg, c, v, mask)) store_chunk(c, v, mask);
        }
        barrier(); // before the next tile stages over this one
    }
}
#endif

#endif // DM_VARIANT >= 9

#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
// Back to the kernel's own file (trace.glsl's sites).
#undef DM_SITE_FILE
#define DM_SITE_FILE 2
