// The shared body: a grid-stride loop over the piece's units, each a run of up to RUN
// consecutive units of one row. Coordinates are decoded once per invocation; each further
// step adds the grid size as mixed-radix digits, so the loop has no division (CPU devices
// such as lavapipe pay for every workgroup, so the host launches few, long-lived groups
// and long runs there).
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
// in a bit mask; those then go element by element (element_chunk), the only place with
// atomics, after a batch of units (PEND). On lavapipe, where masked-off code still runs,
// that keeps the rare cases out of the per-chunk cost, and mostly out of the per-unit one.

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

// Word w of a contiguous output row [db, row_end), element by element.
void word_unit(uint w, uint db, uint sb, uint ab, uint row_axis, uint row_end)
{
    uint wb = w * 4u;
    if (wb >= row_end || wb + 4u <= db) return;
    uvec2 v;
    if (ESIZE >= 4u) {
        /* Element starts are ESIZE-aligned, so the word is one element or half of one. */
        if (wb >= db && fetch(sb, ab, row_axis, (wb - db) / ESIZE, v))
            store_masked(w, ESIZE == 8u && ((wb - db) & 4u) != 0u ? v.y : v.x, 0xffffffffu);
        return;
    }
    uint bits = 0u, mask = 0u;
    for (uint lane = 0u; lane < 4u; lane += ESIZE) {
        uint b = wb + lane;
        if (b < db || b >= row_end || !fetch(sb, ab, row_axis, (b - db) / ESIZE, v)) continue;
        bits |= (v.x & EMASK) << (lane * 8u);
        mask |= EMASK << (lane * 8u);
    }
    store_masked(w, bits, mask);
}

// Unit k of the current row.
void unit(uint k, uint db, uint sb, uint ab, uint row_axis, bool vec_mode, uint dst_step, uint m)
{
    if (!vec_mode) {
        uvec2 v;
        if (fetch(sb, ab, row_axis, k, v)) store_element(db + k * dst_step, v);
        return;
    }
    uint row_end = db + m * ESIZE, chunk = (db >> 4u) + k, cb = chunk * 16u;
    if (cb >= row_end) return;
    uvec4 v;
    if (cb >= db && cb + 16u <= row_end && chunk < uint(dst4.length()) &&
        fetch_vec(sb, ab, row_axis, (cb - db) / ESIZE, v)) {
        ST_DST4(chunk, v);
        return;
    }
    for (uint q = 0u; q < 4u; q++) word_unit(chunk * 4u + q, db, sb, ab, row_axis, row_end);
}

// ---- the fast path ----------------------------------------------------------------

// Element e of a chunk (at byte b) set to x in the chunk's words and the mask of bytes
// written, for store_masked.
void merge_element(uint e, uint b, uvec2 x, inout uvec4 bits, inout uvec4 mask)
{
    const uint w = (e * ESIZE) >> 2u;
    if (ESIZE == 8u) {
        bits[w] = x.x;
        bits[w + 1u] = x.y;
        mask[w] = mask[w + 1u] = 0xffffffffu;
    } else if (ESIZE == 4u) {
        bits[w] = x.x;
        mask[w] = 0xffffffffu;
    } else {
        const uint shift = (b & 3u) * 8u;
        bits[w] |= (x.x & EMASK) << shift;
        mask[w] |= EMASK << shift;
    }
}

// NAME(ch, db, end): chunk ch element by element, only its bytes in [db, end),
// element f (counted from db) from GET(f, x) (false: an element this piece does not
// write); each word written whole with a plain store, or merged with atomics where it is
// shared with bytes left alone. The rare chunks of the fast and flat paths go this way.
#define DEFINE_ELEMENT_CHUNK(NAME, GET)                                                      \
    void NAME(uint ch, uint db, uint end)                                        \
    {                                                                                        \
        uvec4 bits = uvec4(0u), mask = uvec4(0u);                                            \
        for (uint e = 0u; e < 16u / ESIZE; e++) {                                            \
            const uint b = ch * 16u + e * ESIZE;                                             \
            uvec2 x;                                                                         \
            if (b >= db && b < end && GET((b - db) / ESIZE, x)) merge_element(e, b, x, bits, mask); \
        }                                                                                    \
        for (uint q = 0u; q < 4u; q++) store_masked(ch * 4u + q, bits[q], mask[q]);         \
    }
// A chunk of the row at db: row_elem (the kernel's, after row_begin) gives its elements.
DEFINE_ELEMENT_CHUNK(element_chunk, row_elem)

// The row's geometry, shared by main and the fast path's helpers.
uint g_size[ROW_DIMS], g_dstr[ROW_DIMS], g_sstr[ROW_DIMS], g_astr[ROW_DIMS];

// Moves row coordinates c and the row's three addresses on by `add` rows (add below
// the innermost extent, or any value when that extent is 1 and the next digits carry).
void step_rows(inout uint c[ROW_DIMS], inout uint db, inout uint sb, inout uint ab, uint add_rows)
{
    uint carry = 0u;
    [[unroll]] for (int d = ROW_DIMS - 1; d >= 0; d--) {
        const uint add = (d == ROW_DIMS - 1 ? add_rows : 0u) + carry;
        c[d] += add;
        carry = c[d] >= g_size[d] ? 1u : 0u;
        c[d] -= carry * g_size[d];
        const uint moved = add - carry * g_size[d]; // net digit change, modulo 2^32
        db += moved * g_dstr[d];
        sb += moved * g_sstr[d];
        ab += moved * g_astr[d];
    }
}

uint axis_coord(uint c[ROW_DIMS])
{
    uint a = g_axis_origin;
    [[unroll]] for (int d = 0; d < ROW_DIMS; d++)
        if (uint(d) == g_axis) a += c[d];
    return a;
}

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
// LANES for a run shared by that many invocations, whose chunks then share no source
// vector, so a stream primes its carry at each one.
uint fast_row(uint c0, uint lanes, uint db, uint sb, uint ab, uint row_axis, uint m)
{
    row_begin(sb, ab, row_axis);
    const uint row_end = db + m * ESIZE, c_end = (row_end + 15u) >> 4u;
    const uint len4 = uint(dst4.length());
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
            slow |= 1u << t;
        }
    }
    return slow;
}

// A unit of the fast path: `rows` whole rows from coordinates c (short rows, per_row
// chunks each, rows * per_row <= RUN), or run k of one row, shared by `lanes` invocations
// of which this is lane `lane`. Returns the chunks fast_row left, for fast_unit_slow: bit
// g * per_row + t stands for the run's chunk t on row g (chunk lane + t * lanes of the run
// when lanes > 1; rows is then 1).
uint fast_unit(uint k, uint lane, uint lanes, uint c[ROW_DIMS], uint db, uint sb, uint ab, uint rows, uint per_row,
               uint m)
{
    uint slow = 0u, rc[ROW_DIMS], rdb = db, rsb = sb, rab = ab;
    [[unroll]] for (int d = 0; d < ROW_DIMS; d++) rc[d] = c[d];
    for (uint g = 0u; g < rows; g++) {
        slow |= fast_row((rdb >> 4u) + k * RUN * lanes + lane, lanes, rdb, rsb, rab, axis_coord(rc), m) << (g * per_row);
        step_rows(rc, rdb, rsb, rab, 1u);
    }
    return slow;
}

// The chunks of a unit that fast_unit left (slow), element by element.
void fast_unit_slow(uint k, uint lane, uint lanes, uint c[ROW_DIMS], uint db, uint sb, uint ab, uint rows,
                    uint per_row, uint m, uint slow)
{
    uint rc[ROW_DIMS], rdb, rsb, rab;
    while (slow != 0u) {
        const uint t = uint(findLSB(slow));
        slow &= slow - 1u;
        const uint g = rows > 1u ? t / per_row : 0u;
        [[unroll]] for (int d = 0; d < ROW_DIMS; d++) rc[d] = c[d];
        rdb = db;
        rsb = sb;
        rab = ab;
        for (uint i = 0u; i < g; i++) step_rows(rc, rdb, rsb, rab, 1u);
        row_begin(rsb, rab, axis_coord(rc));
        element_chunk((rdb >> 4u) + k * RUN * lanes + lane + (t - g * per_row) * lanes, rdb, rdb + m * ESIZE);
    }
}

// Units (the fast path's, main) and runs (the flat walk's, flat_lanes) whose leftover
// chunks wait for one element-by-element pass: lanes > 1 only (CPU devices); on GPUs,
// where a branch no lane takes costs nothing, each unit's go at once.
const uint PEND = LANES > 1u ? 8u : 1u;

// ---- the flat walk (FLAT) ---------------------------------------------------------------
//
// The piece's output, rows of g_fm elements end to end (gather_common.glsl), walked as one
// stream of 16-byte chunks, each built whole and stored once: the host picks it for
// packed output rows shorter than a chunk, and for SLICE1 and REVERSE of 4- and 8-byte
// elements also rows up to 63 bytes that are not whole chunks (dm_kernel_rows_packed),
// with pieces holding their rows whole and one row dimension at most. A row at a time
// left every chunk of such rows to element_chunk's per-word stores: SLICE1 [N, 4] ->
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
    for (uint e = 0u; e < 16u / ESIZE; e++) {
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
    const uint rows = p(P_UNITS) / p(P_PER_ROW), m = p(P_M);
    g_fm = max(m, 1u); // a divisor; rows of 0 elements have no chunks to divide
    g_fdb = pc.rem_dst + p(P_DST_BASE);
    g_fsb = pc.rem_src + p(P_SRC_BASE);
    g_fab = pc.rem_aux + p(P_AUX_BASE);
    g_fsstr = g_last == 0u ? 0u : p(P_SRC_STRIDE);
    g_fastr = g_last == 0u ? 0u : p(P_AUX_STRIDE);
    end = g_fdb + rows * m * ESIZE; // inside the window, so below 2^32
    w0 = (g_fdb + 15u) >> 4u;
    w1 = max(min(end >> 4u, uint(dst4.length())), w0);
    return rows;
}

// The whole chunks [w0, w1), LANES invocations sharing a run of RUN * LANES chunks, lane
// l taking chunks l, l + LANES, ... (neighbouring stores, as the fast path's lanes). The
// first chunk's row and column cost one division per run; the next is LANES * 16 / ESIZE
// elements on, dq rows and dr columns. The chunks flat_chunk refuses go element by
// element after the run. vec is passed on to flat_chunk: the callers pass constants.
void flat_lanes(uint w0, uint w1, uint u, uint threads, uint end, bool vec)
{
    const uint lane = u % LANES, span = LANES * (16u / ESIZE), dq = fm_row(span), dr = span - dq * g_fm;
    u /= LANES;
    threads /= LANES;
    const uint runs = (w1 - w0 + RUN * LANES - 1u) / (RUN * LANES);
    // As on the fast path (main), the chunks flat_chunk refuses wait for one element-by-
    // element pass per batch of PEND runs (SLICE1 [N, 4] -> [N, 2] and REVERSE along rows
    // of 5, FLOAT32, 16 MiB, seven alternating runs: 5.2-9.1 -> 4.9-8.6 ms and 9.2-14.9 ->
    // 8.5-14.2 ms, medians about 25% and 20% lower).
    uint pend_c0[PEND], pend_slow[PEND];
    for (uint run = u; run < runs;) {
        uint np = 0u;
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
            if (!FLAT_WHOLE) {
                pend_c0[np] = c0; // overwritten by the next run unless kept
                pend_slow[np] = slow;
                np += slow != 0u ? 1u : 0u;
            }
            if (runs - run <= threads) { // run + threads would reach runs (or wrap)
                run = runs;
                break;
            }
            run += threads;
        }
        if (!FLAT_WHOLE) {
            for (uint i = 0u; i < np; i++) {
                uint slow = pend_slow[i];
                while (slow != 0u) {
                    const uint t = uint(findLSB(slow));
                    slow &= slow - 1u;
                    flat_edge(pend_c0[i] + t * LANES, g_fdb, end);
                }
            }
        }
    }
}

// The chunks the piece fills only in part: one at each end where it does not start or
// end on a chunk boundary (one chunk when both ends fall in it), by invocation 0.
void flat_ends(uint u, uint w0, uint end)
{
    if (u != 0u || end == g_fdb) return;
    const uint first = g_fdb >> 4u, last = (end - 1u) >> 4u, w1_all = end >> 4u;
    if (first < w0 || first >= w1_all) flat_edge(first, g_fdb, end);
    if (last != first && last >= w1_all) flat_edge(last, g_fdb, end);
}

#ifndef DM_FLAT_MAIN
void flat_elems_main()
{
    uint end, w0, w1;
    flat_begin(end, w0, w1);
    const uint u = grid_invocation();
    flat_lanes(w0, w1, u, grid_size(), end, false);
    flat_ends(u, w0, end);
}
#define DM_FLAT_MAIN flat_elems_main
#endif

// Unit u's run k of its row (runs_per_row per row, G rows per unit), the row coordinates c
// and the addresses of its first row (first: the piece's first output byte).
void decode_unit(uint u, uint runs_per_row, uint G, uint first, out uint k, out uint c[ROW_DIMS], out uint db,
                 out uint sb, out uint ab)
{
    k = u % runs_per_row;
    uint row = u / runs_per_row * G;
    db = first;
    sb = pc.rem_src + p(P_SRC_BASE);
    ab = pc.rem_aux + p(P_AUX_BASE);
    [[unroll]] for (int d = ROW_DIMS - 1; d >= 0; d--) {
        c[d] = row % g_size[d];
        row /= g_size[d];
        db += c[d] * g_dstr[d];
        sb += c[d] * g_sstr[d];
        ab += c[d] * g_astr[d];
    }
}

// The rows unit u holds: G, or what is left of the piece's rows for its last unit.
uint unit_rows(uint u, uint G, uint rows) { return G == 1u ? 1u : min(G, rows - u * G); }

void main()
{
    // The last dispatch of a piece may hold workgroups past its virtual grid (the host
    // rounds a grid of more than 65535 groups up to whole rows of y).
    if (grid_group() >= grid_groups()) return;
    load_globals();
    load_op();
#if DM_VARIANT >= 9
    if (FAST) {
        tile_main();
        return;
    }
#endif
#ifdef DM_FLAT_MAIN
    // Nested, so that spirv-opt drops the flat walk from the general path's modules: a
    // condition that involves a specialisation constant is not folded.
    if (FAST) {
        if (VARIANT == V_FLAT || VARIANT == V_FLAT_ROWS) {
            DM_FLAT_MAIN();
            return;
        }
    }
#endif
    // The loop walks units: runs of RUN consecutive units of a row (per_row units per
    // row), or on the fast path with rows of at most RUN / 2 chunks, G whole rows.
    // per_row is the most chunks a row starting anywhere spans. When all rows start at one
    // phase (P_PHASED), the first row's phase gives the exact count, which keeps an aligned
    // row of 64 chunks from taking a third run (of RUN 32) with nothing to do.
    const uint per_row = p(P_PER_ROW), rows = p(P_UNITS) / per_row, m = p(P_M);
    const uint first = pc.rem_dst + p(P_DST_BASE);
    const uint spans = p(P_PHASED) != 0u ? max(((first & 15u) + m * ESIZE + 15u) >> 4u, 1u) : per_row;
    const uint G = FAST && per_row * 2u <= RUN ? RUN / per_row : 1u;
    // Runs of long rows on the fast path are shared by up to LANES invocations (a unit is
    // then RUN * lanes chunks), each lane given a run of RUN chunks at least: a row cut
    // finer costs a unit's setup per few chunks (lavapipe, REVERSE FLOAT32 rows of 64 to
    // 512 elements, 16 MiB: 8 lanes 1.2-2.1x slower than 1 on rows of 16-32 chunks, and
    // 64 or 128 chunks best with 2 or 4). The workgroup size is a multiple of LANES (the
    // host's choice), so of any power of two below it.
    uint lanes = 1u;
    if (FAST && G == 1u)
        while (lanes < LANES && lanes * 2u * RUN <= spans) lanes *= 2u;
    const uint runs_per_row = (spans + RUN * lanes - 1u) / (RUN * lanes);
    const uint units = (rows + G - 1u) / G * runs_per_row;
    const uint invocation = grid_invocation();
    const uint threads = grid_size() / lanes;
    const uint lane = invocation % lanes;
    uint u = invocation / lanes;
    if (u >= units) return;

    const uint last = g_last;
    const bool vec_mode = p(P_MODE) == MODE_VEC;
    uint c[ROW_DIMS], step[ROW_DIMS];
    [[unroll]] for (int d = 0; d < ROW_DIMS; d++) {
        bool live = uint(d) < last;
        g_size[d] = live ? p(P_SIZE + d) : 1u;
        g_dstr[d] = live ? p(P_DST_STRIDE + d) : 0u;
        g_sstr[d] = live ? p(P_SRC_STRIDE + d) : 0u;
        g_astr[d] = live ? p(P_AUX_STRIDE + d) : 0u;
    }

    // Row coordinates of u, and the grid size as digits in the same mixed radix. Offsets
    // wrap modulo 2^32 on purpose: the host guarantees every address actually used lies
    // inside its window, so the wrapped sums are exact.
    uint k, db, sb, ab;
    decode_unit(u, runs_per_row, G, first, k, c, db, sb, ab);
    uint kstep = threads % runs_per_row, rstep = threads / runs_per_row * G;
    [[unroll]] for (int d = ROW_DIMS - 1; d >= 0; d--) {
        step[d] = rstep % g_size[d];
        rstep /= g_size[d];
    }
    const uint dst_step = p(P_DST_STRIDE + last);

    // On the fast path the chunks fast_unit leaves are done element by element once per
    // batch of up to PEND units rather than after each: lavapipe runs that loop's body at
    // least once whenever it is reached, even with no lane needing it: run after every
    // unit it cost REVERSE inner 10-20% and SLICE1 step -1 5-15% (measured by leaving it
    // out, wrong output and all). The lanes sharing a unit take its chunk slots rotated
    // by one each step, so that a row's one slow chunk (REVERSE's turn lies in the same
    // slot of every row) falls to a different lane each time, and the lanes' lists, hence
    // the batch's passes of that loop, stay short.
    uint pend_u[PEND], pend_slow[PEND], pend_lane[PEND];
    for (uint it = 0u;;) {
        uint np = 0u;
        bool done = false;
        for (uint b = 0u; b < PEND; b++) {
            if (FAST) {
                const uint lr = (lane + it) & (lanes - 1u);
                const uint slow = fast_unit(k, lr, lanes, c, db, sb, ab, unit_rows(u, G, rows), per_row, m);
                // Written at np whatever slow is: the next unit overwrites it unless kept.
                pend_u[np] = u;
                pend_slow[np] = slow;
                pend_lane[np] = lr;
                np += slow != 0u ? 1u : 0u;
                it++;
            } else {
                const uint row_axis = axis_coord(c);
                uint k0 = k * RUN, k1 = min(k0 + RUN, per_row);
                for (uint kk = k0; kk < k1; kk++) unit(kk, db, sb, ab, row_axis, vec_mode, dst_step, m);
            }
            if (units - u <= threads) {
                done = true;
                break;
            }
            u += threads;
            // Add the step: the innermost digit k first, then the row digits with carry.
            k += kstep;
            uint carry = k >= runs_per_row ? 1u : 0u;
            k -= carry * runs_per_row;
            [[unroll]] for (int d = ROW_DIMS - 1; d >= 0; d--) {
                uint add = step[d] + carry;
                c[d] += add;
                carry = c[d] >= g_size[d] ? 1u : 0u;
                c[d] -= carry * g_size[d];
                uint moved = add - carry * g_size[d]; // net digit change, modulo 2^32
                db += moved * g_dstr[d];
                sb += moved * g_sstr[d];
                ab += moved * g_astr[d];
            }
        }
        if (FAST) {
            for (uint i = 0u; i < np; i++) {
                const uint pu = pend_u[i];
                uint pk, pcs[ROW_DIMS], pdb, psb, pab;
                decode_unit(pu, runs_per_row, G, first, pk, pcs, pdb, psb, pab);
                fast_unit_slow(pk, pend_lane[i], lanes, pcs, pdb, psb, pab, unit_rows(pu, G, rows), per_row, m,
                               pend_slow[i]);
            }
        }
        if (done) break;
    }
}

// Back to the kernel's own file (trace.glsl's sites).
#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
#undef DM_SITE_FILE
#define DM_SITE_FILE 2
