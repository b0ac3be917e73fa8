// The shared body: the unit loop, over the piece's units by the grid's stride, each a run
// of up to RUN consecutive chunks of one row (or G whole short rows); and the flat walk.
// The host plans the units (src/vk/vk_plan.c, dm_unit_params: P_ITEMS units of P_RUNS runs
// a row, P_UNIT_ROWS rows, P_LANES lanes sharing a run), and a unit finds its row by
// division by magic numbers (fastdiv) rather than by carrying mixed-radix digits from
// unit to unit: nothing but the unit's index lives across the loop, which is what keeps a
// GPU's registers free (V3D has 32 a thread).
//
// The general path (FAST false) computes a unit at a time:
// MODE_ELEMENT (strided output): a unit is an element. 4- and 8-byte elements own their
//   words; smaller ones are merged into their word with atomics, since a strided output
//   can put several elements (or bytes that must stay untouched) in one word.
// MODE_VEC: a unit is an aligned 16-byte chunk of a contiguous output row: one vector
//   store, filled by fetch_vec when the source is regular enough; otherwise its four words
//   are done one by one, a word wholly inside the row with a plain store and a row's edge
//   words with atomics.
//
// The fast path (FAST true, MODE_VEC, set by the host when the kernel's chunk_vec covers
// the layout) runs a unit's chunks in a loop holding one vector load (in chunk_vec) and
// one vector store, and collects the chunks it cannot do whole (a row's first and last
// chunk when the row is not 16-byte aligned, a chunk whose source straddles something)
// in a bit mask; those then go element by element (elem_chunk, the module's one element
// path), the only place with atomics, after a batch of units (PEND). On lavapipe, where
// masked-off code still runs, that keeps the rare cases out of the per-chunk cost, and
// mostly out of the per-unit one.

// The access trace's sites (trace.glsl): this file's, until its end.
#undef DM_SITE_FILE
#define DM_SITE_FILE 3

#if DM_VARIANT >= 9
// The GPU tiles (gather_tiles.glsl): the kernel's own main for them, defined after this file.
void tile_main();
#endif


// The bits of an element in its word.
const uint EMASK = ESIZE >= 4u ? 0xffffffffu : (1u << (ESIZE * 8u)) - 1u;

void store_masked(uint w, uint bits, uint mask)
{
    if (mask == 0u || w >= uint(dst.length())) return;
    if (mask == 0xffffffffu) {
        ST_DST(w, bits);
    } else {
        AND_DST(w, ~mask);
        OR_DST(w, bits & mask);
    }
}

// The bytes [lo, hi) of a chunk (0 <= lo, hi <= 16) as a mask per word.
uvec4 range_mask(uint lo, uint hi)
{
    const uvec4 w = uvec4(0u, 4u, 8u, 12u);
    const uvec4 a = clamp(uvec4(lo) - min(uvec4(lo), w), uvec4(0u), uvec4(4u)); // bytes below lo in each word
    const uvec4 b = clamp(uvec4(hi) - min(uvec4(hi), w), uvec4(0u), uvec4(4u)); // bytes below hi
    // Bytes [a, b) of each word: ones from byte a up to byte b. The shifts stay below 32:
    // a shift by 32 is undefined (lavapipe's LLVM made it poison, and the mix that was to
    // discard it left some lanes' masks missing a byte: chunks not stored whole).
    const uvec4 upto_b = mix((uvec4(1u) << (min(b, uvec4(3u)) * 8u)) - 1u, uvec4(0xffffffffu), equal(b, uvec4(4u)));
    const uvec4 upto_a = mix((uvec4(1u) << (min(a, uvec4(3u)) * 8u)) - 1u, uvec4(0xffffffffu), equal(a, uvec4(4u)));
    return upto_b & ~upto_a;
}

// Chunk ch: v where mask says, the rest of the chunk left alone (its words whole with
// plain stores, the others merged with atomics).
void store_chunk(uint ch, uvec4 v, uvec4 mask)
{
    if (all(equal(mask, uvec4(0xffffffffu)))) {
        if (ch < uint(dst4.length())) ST_DST4(ch, v);
        return;
    }
    [[dont_unroll]] for (uint q = 0u; q < 4u; q++) store_masked(ch * 4u + q, v[q], mask[q]);
}

// The SRC window's 16-byte vector q, from its words where q is past the last whole one
// (the words past the window's end 0), or zeros where it lies wholly outside the window
// (an address below the window's start wraps to a vector far past it): the GPU paths make
// a row's partial chunks from vectors too, with a byte mask, rather than element by
// element.
uvec4 src_vec_at(uint q)
{
    if (q < uint(src4.length())) return read4(q);
    const uint words = uint(src.length());
    if (q >= (words + 3u) >> 2u) return uvec4(0u);
    uvec4 v = uvec4(0u);
    for (uint i = 0u; i < 4u; i++)
        if (q * 4u + i < words) v[i] = LD_SRC(q * 4u + i);
    return v;
}

// NAME(ch, db, end): chunk ch element by element, only its bytes in [db, end), element f
// (counted from db) from GET(f, x) (false: an element this piece does not write); word by
// word, each written whole with a plain store, or merged with atomics where it is shared
// with bytes left alone. Loops, not unrolled, and a word's bits the only state: a module
// calls it from one place, and it is the rare path (a row's ends, sources outside the
// window), which on V3D, with the chunk's words built at once and unrolled, held more
// registers than the hot loop (58 of REVERSE TILES' 65 spills).
#define DEFINE_ELEMENT_CHUNK(NAME, GET)                                                      \
    void NAME(uint ch, uint db, uint end)                                                    \
    {                                                                                        \
        [[dont_unroll]] for (uint q = 0u; q < 4u; q++) {                                     \
            const uint wb = ch * 16u + q * 4u;                                               \
            uint bits = 0u, mask = 0u;                                                       \
            /* The word's elements (ESIZE 8: the half of one this word holds). */            \
            [[dont_unroll]] for (uint k = 0u; k < (ESIZE >= 4u ? 1u : 4u / ESIZE); k++) {    \
                const uint b = ESIZE == 8u ? wb & ~7u : wb + k * ESIZE;                      \
                uvec2 x;                                                                     \
                if (b >= db && b < end && GET((b - db) / ESIZE, x)) {                        \
                    const uint sh = ESIZE >= 4u ? 0u : k * ESIZE * 8u;                       \
                    bits |= ((ESIZE == 8u && (wb & 4u) != 0u ? x.y : x.x) & EMASK) << sh;    \
                    mask |= EMASK << sh;                                                     \
                }                                                                            \
            }                                                                                \
            store_masked(ch * 4u + q, bits, mask);                                           \
        }                                                                                    \
    }
// A chunk of the row at db: row_elem (the kernel's, after row_begin) gives its elements.
DEFINE_ELEMENT_CHUNK(elem_chunk, row_elem)

// Row r of the piece (row-major over its row dimensions, all but the last): its output,
// source and AUX addresses and its coordinate along the axis. Offsets wrap modulo 2^32 on
// purpose: the host guarantees every address actually used lies inside its window.
// The row's addresses before its dimensions add theirs (row_at, row_at_loop).
void row_origin(out uint db, out uint sb, out uint ab, out uint axis)
{
    db = pc.rem_dst + p(P_DST_BASE);
    sb = pc.rem_src + p(P_SRC_BASE);
    ab = pc.rem_aux + p(P_AUX_BASE);
    axis = g_axis_origin;
}
// Row dimension D's part of r (the outermost, 0, takes what is left), its record words
// read by READ: p for a literal D, p_at for a run-time one.
#define ROW_STEP(D, READ)                                                                     \
    {                                                                                         \
        uint c = r;                                                                           \
        if ((D) > 0u) {                                                                       \
            const uint q = fastdiv(r, READ(P_ROW_MAGIC + (D)), READ(P_ROW_SHIFTS + (D)));     \
            c = r - q * READ(P_SIZE + (D));                                                   \
            r = q;                                                                            \
        }                                                                                     \
        db += c * READ(P_DST_STRIDE + (D));                                                   \
        sb += c * READ(P_SRC_STRIDE + (D));                                                   \
        ab += c * READ(P_AUX_STRIDE + (D));                                                   \
        if ((D) == g_axis) axis += c;                                                         \
    }
// One row dimension D in row_at (a literal: every record word it reads is at a constant
// index, p's switch folded to one load; with the dimension a loop counter, the switch ran
// with a run-time selector, which lavapipe compiled to the wrong words).
#define ROW_DIM(D) if ((D) < uint(ROW_DIMS) && (D) < g_last) ROW_STEP(D, p)
void row_at(uint r, out uint db, out uint sb, out uint ab, out uint axis)
{
    row_origin(db, sb, ab, axis);
    ROW_DIM(6u) ROW_DIM(5u) ROW_DIM(4u) ROW_DIM(3u) ROW_DIM(2u) ROW_DIM(1u) ROW_DIM(0u)
}
#undef ROW_DIM

// row_at for the unit loop's modules of 3 and 7 row dimensions: a loop over the row's
// dimensions, each one's six record words read by run-time index. Unrolled, the words of
// all seven were constant loads the drivers hoisted out of the unit loop and held in
// registers across it (V3D, 2 threads, REVERSE ALONG FLOAT32: 50 spills with 7 row
// dimensions against 24 this way, 16 with 1; REVERSE GENERAL 68 against 54). One row
// dimension stays row_at's (the loop cost that one 8 spills), as do the tiles, whose row
// costs src/vk/vk_grid.c counts without a loop. vk_grid.c counts these iterations.
void row_at_loop(uint r, out uint db, out uint sb, out uint ab, out uint axis)
{
    if (ROW_DIMS == 1) {
        row_at(r, db, sb, ab, axis);
        return;
    }
    row_origin(db, sb, ab, axis);
    // The outermost dimension (0) last: it takes what is left.
    [[dont_unroll]] for (uint d = min(uint(ROW_DIMS), g_last); d > 0u; d--) ROW_STEP(d - 1u, p_at)
}
#undef ROW_STEP

// ---- the general path ----------------------------------------------------------------

void store_element(uint a, uvec2 v)
{
    uint w = a >> 2u;
    if (ESIZE == 8u) {
        if (w + 1u < uint(dst.length())) {
            ST_DST(w, v.x);
            ST_DST(w + 1u, v.y);
        }
    } else if (ESIZE == 4u) {
        if (w < uint(dst.length())) ST_DST(w, v.x);
    } else {
        uint shift = (a & 3u) * 8u;
        store_masked(w, v.x << shift, ((1u << (ESIZE * 8u)) - 1u) << shift);
    }
}

// The general path's element j of a contiguous row [db, row_end) (fetch's, for the chunk's
// words that do not come whole).
uint g_gdb, g_gsb, g_gab, g_gaxis;
bool general_elem(uint j, out uvec2 x) { return fetch(g_gsb, g_gab, g_gaxis, j, x); }
DEFINE_ELEMENT_CHUNK(general_chunk, general_elem)

// Units k0 .. k1 - 1 of the row (elements along a strided row, or its chunks).
void general_units(uint k0, uint k1, uint db, uint sb, uint ab, uint axis, uint m)
{
    if (p(P_MODE) != MODE_VEC) {
        const uint dst_step = p(P_DST_STEP);
        [[dont_unroll]] for (uint k = k0; k < k1; k++) {
            uvec2 v;
            if (fetch(sb, ab, axis, k, v)) store_element(db + k * dst_step, v);
        }
        return;
    }
    const uint row_end = db + m * ESIZE;
    g_gdb = db;
    g_gsb = sb;
    g_gab = ab;
    g_gaxis = axis;
    [[dont_unroll]] for (uint k = k0; k < k1; k++) {
        const uint chunk = (db >> 4u) + k, cb = chunk * 16u;
        if (cb >= row_end) break;
        uvec4 v;
        if (cb >= db && cb + 16u <= row_end && chunk < uint(dst4.length()) &&
            fetch_vec(sb, ab, axis, (cb - db) / ESIZE, v)) {
            ST_DST4(chunk, v);
        } else {
            general_chunk(chunk, db, row_end);
        }
    }
}

// ---- the fast path ----------------------------------------------------------------

// Run k of RUN chunks of the row at db (m elements): whole chunks from chunk_vec, one
// vector store each. Returns the chunks left over, as bits from chunk (db >> 4) + k * RUN.
// Kernels whose chunks carry a vector to the next (STREAMS) get every chunk of the run,
// partial ones too, so that the carry moves on; a partial chunk's element index j0 is
// then negative (wrapped), which their address arithmetic takes modulo 2^32.
uint chunk_j0(uint cb, uint db)
{
    // Floored, so that chunk by chunk j0 grows by exactly 16 / ESIZE; unsigned above db,
    // since a window (and so a row) may pass 2 GiB.
    return cb >= db ? (cb - db) / ESIZE : 0u - (db - cb + ESIZE - 1u) / ESIZE;
}

// The chunks are c0, c0 + lanes, ... (RUN of them, up to the row's end): lanes is 1, or
// the lanes that share a run, whose chunks then share no source vector, so a stream
// primes its carry at each one.
uint fast_row(uint c0, uint lanes, uint db, uint sb, uint ab, uint row_axis, uint m)
{
    row_begin(sb, ab, row_axis);
    const uint row_end = db + m * ESIZE, c_end = (row_end + 15u) >> 4u;
    const uint len4 = uint(dst4.length());
    // The carried vector starts afresh with each run: nothing of it lives across units
    // (else a compiler keeps it, and its index, through the element pass too).
    g_cq = 0xffffffffu;
    g_cv = uvec4(0u);
    if (STREAMS && !ALIGNED && lanes == 1u) chunk_prime(chunk_j0(c0 * 16u, db));
    uint slow = 0u;
    for (uint t = 0u; t < RUN; t++) {
        const uint ch = c0 + t * lanes;
        if (ch >= c_end) break;
        const uint cb = ch * 16u, j0 = chunk_j0(cb, db);
        const bool whole = cb >= db && cb + 16u <= row_end && ch < len4;
        if (STREAMS && !ALIGNED && lanes > 1u) chunk_prime(j0);
        uvec4 v;
        g_part = false;
        const bool got = (STREAMS || whole) && chunk_vec(j0, v);
        if (whole && got) {
            ST_DST4(ch, v);
        } else if (PARTIAL && whole && g_part) {
            // The elements this piece writes; the rest are other windows' pieces' (atomics
            // where a word is shared with them).
            for (uint q = 0u; q < 4u; q++) store_masked(ch * 4u + q, v[q], g_part_mask[q]);
        } else {
            // Left for fast_unit_slow, after the unit (GPUs too, whose batch is one unit):
            // made here, the element path's state would be live inside the hot loop beside
            // the row's and the chunk's (V3D, 2 threads: REVERSE ALONG FLOAT32 25 spills
            // this way against 16, SLICE1 STREAM FLOAT64 9 against 0; 1500 -> 1201 and
            // 1036 -> 819 instructions), and a module would carry the path twice.
            slow |= 1u << t;
        }
    }
    return slow;
}

// The unit's first row, its run along that row and its rows: unit u is run k of
// P_RUNS runs of P_UNIT_ROWS rows from row g * P_UNIT_ROWS.
uint unit_rows(uint u, out uint k, out uint row0)
{
    const uint runs = p(P_RUNS), G = p(P_UNIT_ROWS);
    const uint rg = fastdiv(u, p(P_RUNS_MAGIC), p(P_RUNS_SHIFTS));
    k = u - rg * runs;
    row0 = rg * G;
    return min(G, p(P_ROWS) - row0);
}

// Unit u of the fast path, shared by `lanes` invocations of which this is lane `lane`:
// its rows' whole chunks. Returns the chunks left for fast_unit_slow: bit g * P_PER_ROW + t
// stands for the run's chunk t on row g (chunk lane + t * lanes of the run when lanes > 1;
// one row then).
uint fast_unit(uint u, uint lane, uint lanes, uint m)
{
    uint k, row0;
    const uint rows = unit_rows(u, k, row0), per_row = p(P_PER_ROW);
    uint slow = 0u;
    for (uint g = 0u; g < rows; g++) {
        uint db, sb, ab, axis;
        row_at_loop(row0 + g, db, sb, ab, axis);
        slow |= fast_row((db >> 4u) + k * RUN * lanes + lane, lanes, db, sb, ab, axis, m) << (g * per_row);
    }
    return slow;
}

// The chunks of unit u that fast_unit left (slow), element by element.
void fast_unit_slow(uint u, uint lane, uint lanes, uint m, uint slow)
{
    uint k, row0;
    unit_rows(u, k, row0);
    const uint per_row = p(P_PER_ROW), row_bits = per_row >= 32u ? 0xffffffffu : (1u << per_row) - 1u;
    for (uint g = 0u; slow != 0u; g++) {
        uint bits = slow & row_bits;
        slow = per_row >= 32u ? 0u : slow >> per_row;
        if (bits == 0u) continue;
        uint db, sb, ab, axis;
        row_at_loop(row0 + g, db, sb, ab, axis);
        row_begin(sb, ab, axis);
        while (bits != 0u) {
            const uint t = uint(findLSB(bits));
            bits &= bits - 1u;
            elem_chunk((db >> 4u) + k * RUN * lanes + lane + t * lanes, db, db + m * ESIZE);
        }
    }
}


// The unit loop (every variant but the flat walks and the tiles).
void units_main()
{
    const uint lanes = FAST ? p(P_LANES) : 1u, units = p(FAST ? P_ITEMS : P_G_ITEMS), m = p(P_M);
    const uint invocation = grid_invocation(), threads = grid_size() / lanes;
    const uint lane = invocation & (lanes - 1u);
    uint u = invocation / lanes;
    if (u >= units) return;
    if (!FAST) {
        const uint runs = p(P_G_RUNS), per_row = p(P_PER_ROW);
        for (;;) {
            const uint r = fastdiv(u, p(P_G_RUNS_MAGIC), p(P_G_RUNS_SHIFTS)), k = u - r * runs;
            uint db, sb, ab, axis;
            row_at_loop(r, db, sb, ab, axis);
            general_units(k * RUN, min(k * RUN + RUN, per_row), db, sb, ab, axis, m);
            if (units - u <= threads) return; // u + threads would reach units (or wrap)
            u += threads;
        }
    }
    // On the fast path the chunks fast_unit leaves are done element by element once per
    // batch of up to PEND units rather than after each: lavapipe runs that loop's body at
    // least once whenever it is reached, even with no lane needing it: run after every
    // unit it cost REVERSE inner 10-20% and SLICE1 step -1 5-15% (measured by leaving it
    // out, wrong output and all). The lanes sharing a unit take its chunk slots rotated
    // by one each step, so that a row's one slow chunk (REVERSE's turn lies in the same
    // slot of every row) falls to a different lane each time, and the lanes' lists, hence
    // the batch's passes of that loop, stay short. A batch keeps its units' leftover
    // chunks only: the b-th unit of a batch is u0 + b * threads, its lane slot from the
    // step count.
    uint pend_slow[PEND];
    for (uint it = 0u;;) {
        const uint u0 = u, it0 = it;
        uint which = 0u; // bit b: the batch's b-th unit left chunks
        bool done = false;
        for (uint b = 0u; b < PEND; b++) {
            const uint lr = (lane + it) & (lanes - 1u);
            pend_slow[b] = fast_unit(u, lr, lanes, m);
            which |= pend_slow[b] != 0u ? 1u << b : 0u;
            it++;
            if (units - u <= threads) {
                done = true;
                break;
            }
            u += threads;
        }
        while (which != 0u) {
            const uint b = uint(findLSB(which));
            which &= which - 1u;
            fast_unit_slow(u0 + b * threads, (lane + it0 + b) & (lanes - 1u), lanes, m, pend_slow[b]);
        }
        if (done) break;
    }
}

// ---- the flat walk (FLAT) ---------------------------------------------------------------
//
// The piece's output, rows of g_fm elements end to end (gather_common.glsl), walked as one
// stream of 16-byte chunks, each built whole and stored once: the host picks it for
// packed output rows shorter than a chunk, and for SLICE1 and REVERSE of 4- and 8-byte
// elements also rows up to 63 bytes that are not whole chunks (dm_kernel_rows_packed),
// with pieces holding their rows whole and one row dimension at most. A row at a time
// left every chunk of such rows to the element path's per-word stores: SLICE1 [N, 4] ->
// [N, 2] FLOAT32 and REVERSE of rows of 5 ran at 0.5-0.7 GB/s on lavapipe, ONE_HOT of
// depth 3 20x slower than depth 16. Each kernel says what element j of row r is
// (flat_elem) and how a whole chunk is made (flat_chunk); SLICE1 and REVERSE take the
// defaults below, ONE_HOT defines its own (DM_FLAT_ELEMS) and its own main for longer
// rows (DM_FLAT_MAIN, flat_main in one_hot.comp).
#ifndef DM_FLAT_ELEMS
// Whether flat_chunk always makes its chunk whole (ONE_HOT, which writes every element):
// then the walk's modules carry no element-by-element pass, which lavapipe would run
// masked after every run of chunks unless its compiler proved it empty.
const bool FLAT_WHOLE = false;

// Element j of row r, and whether this piece writes it: the general path's fetch, so that
// any layout of the other slots is covered (REVERSE [T, B] along T with a length per
// column included).
bool flat_elem(uint r, uint j, out uvec2 x)
{
    return fetch(g_fsb + r * g_fsstr, g_fab + r * g_fastr, g_axis_origin + (g_axis == 0u && g_last > 0u ? r : 0u), j, x);
}

// The chunk whose first element is element j of row r, element by element; false when
// the piece does not write one of them (a source in another window): the chunk then
// goes through flat_edge. vec is ONE_HOT's (its index from a 16-byte texel).
bool flat_chunk(uint r, uint j, bool vec, out uvec4 v)
{
    v = uvec4(0u);
    bool all = true;
    [[dont_unroll]] for (uint e = 0u; e < 16u / ESIZE; e++) {
        uvec2 x;
        all = flat_elem(r, j, x) && all;
        v = with_element(v, e, x);
        j++;
        const bool wrap = j == g_fm;
        j = wrap ? 0u : j;
        r += wrap ? 1u : 0u;
    }
    return all;
}
#endif

bool flat_elem_at(uint f, out uvec2 x)
{
    const uint r = fm_row(f);
    return flat_elem(r, f - r * g_fm, x);
}
// A chunk the walk cannot store whole: at the piece's ends, or one flat_chunk refused.
DEFINE_ELEMENT_CHUNK(flat_edge, flat_elem_at)

// Sets the walk's globals from the record: the piece's rows and its bytes [g_fdb, end),
// of which the whole chunks are [w0, w1), none past the bound window whatever the record
// says.
uint flat_begin(out uint end, out uint w0, out uint w1)
{
    const uint rows = p(P_ROWS), m = p(P_M);
    g_fm = max(m, 1u); // a divisor; rows of 0 elements have no chunks to divide
    g_fdb = pc.rem_dst + p(P_DST_BASE);
    g_fsb = pc.rem_src + p(P_SRC_BASE);
    g_fab = pc.rem_aux + p(P_AUX_BASE);
    g_fsstr = g_last == 0u ? 0u : p(P_SRC_STRIDE);
    g_fastr = g_last == 0u ? 0u : p(P_AUX_STRIDE);
    end = g_fdb + rows * m * ESIZE; // inside the window, so below 2^32
    g_fend = end;
    w0 = (g_fdb + 15u) >> 4u;
    w1 = max(min(end >> 4u, uint(dst4.length())), w0);
    return rows;
}

// The chunks of a run that flat_chunk refused (bit t: chunk c0 + t * lanes_), by flat_edge.
void flat_edges(uint c0, uint slow, uint lanes_)
{
    while (slow != 0u) {
        const uint t = uint(findLSB(slow));
        slow &= slow - 1u;
        flat_edge(c0 + t * lanes_, g_fdb, g_fend);
    }
}

// The chunks the piece fills only in part, by invocation 0: one at each end where it does
// not start or end on a chunk boundary (one chunk when both ends fall in it).
void flat_ends(uint u, uint w0, uint end)
{
    if (u != 0u || end == g_fdb) return;
    const uint first = g_fdb >> 4u, last = (end - 1u) >> 4u, w1_all = end >> 4u;
    const bool a = first < w0 || first >= w1_all, z = last != first && last >= w1_all;
    [[dont_unroll]] for (uint i = 0u; i < 2u; i++)
        if (i == 0u ? a : z) flat_edge(i == 0u ? first : last, g_fdb, end);
}

// The whole chunks [w0, w1), LANES invocations sharing a run of RUN * LANES chunks, lane
// l taking chunks l, l + LANES, ... (neighbouring stores, as the fast path's lanes). The
// first chunk's row and column cost one division per run; the next is LANES * 16 / ESIZE
// elements on, dq rows and dr columns. The chunks flat_chunk refuses go element by
// element after a batch of PEND runs. vec is passed on to flat_chunk: the callers pass
// constants.
void flat_lanes(uint w0, uint w1, uint u, uint threads, bool vec)
{
    const uint lane = u % LANES, span = LANES * (16u / ESIZE), dq = fm_row(span), dr = span - dq * g_fm;
    u /= LANES;
    threads /= LANES;
    const uint runs = (w1 - w0 + RUN * LANES - 1u) / (RUN * LANES);
    // As on the fast path (units_main), the chunks flat_chunk refuses wait for one element-
    // by-element pass per batch of PEND runs (SLICE1 [N, 4] -> [N, 2] and REVERSE along rows
    // of 5, FLOAT32, 16 MiB, seven alternating runs: 5.2-9.1 -> 4.9-8.6 ms and 9.2-14.9 ->
    // 8.5-14.2 ms, medians about 25% and 20% lower).
    uint pend_slow[PEND];
    for (uint run = u; run < runs;) {
        const uint run0 = run;
        uint which = 0u; // bit b: the batch's b-th run left chunks
        for (uint b = 0u; b < PEND; b++) {
            const uint c0 = w0 + run * RUN * LANES + lane, c1 = min(w0 + (run + 1u) * RUN * LANES, w1);
            const uint f0 = (c0 * 16u - g_fdb) / ESIZE;
            uint r = fm_row(f0), j = f0 - r * g_fm, slow = 0u, t = 0u;
            for (uint c = c0; c < c1; c += LANES, t++) {
                uvec4 v;
                const bool whole = flat_chunk(r, j, vec, v);
                if (FLAT_WHOLE || whole) ST_DST4(c, v);
                else slow |= 1u << t;
                j += dr;
                r += dq;
                const bool wrap = j >= g_fm;
                j -= wrap ? g_fm : 0u;
                r += wrap ? 1u : 0u;
            }
            pend_slow[b] = slow;
            which |= slow != 0u ? 1u << b : 0u;
            if (runs - run <= threads) { // run + threads would reach runs (or wrap)
                run = runs;
                break;
            }
            run += threads;
        }
        while (!FLAT_WHOLE && which != 0u) {
            const uint b = uint(findLSB(which));
            which &= which - 1u;
            flat_edges(w0 + (run0 + b * threads) * RUN * LANES + lane, pend_slow[b], LANES);
        }
    }
}

#ifndef DM_FLAT_MAIN
void flat_elems_main()
{
    uint end, w0, w1;
    flat_begin(end, w0, w1);
    const uint u = grid_invocation();
    flat_lanes(w0, w1, u, grid_size(), false);
    flat_ends(u, w0, end);
}
#define DM_FLAT_MAIN flat_elems_main
#endif

void main()
{
    // The last dispatch of a piece may hold workgroups past its virtual grid (the host
    // rounds a grid of more than 65535 groups up to whole rows of y).
    if (grid_group() >= grid_groups()) return;
    load_globals();
    load_op();
#if DM_VARIANT >= 9
    tile_main();
#else
    // A build-time choice, so that a module carries one main: the flat walk's, or the
    // unit loop's (the general path, variant 0, and the other fast paths).
#if DM_VARIANT == 6 || DM_VARIANT == 7
    DM_FLAT_MAIN();
#else
    units_main();
#endif
#endif
}

// Back to the kernel's own file (trace.glsl's sites).
#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
#undef DM_SITE_FILE
#define DM_SITE_FILE 2
