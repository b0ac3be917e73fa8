#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// DML_ONE_HOT: along the axis, out[i] = OnValue where i is the sequence's index, else
// OffValue. Binding Aux holds the indices, Src the OffValue, Aux2 the OnValue.
#include "gather_common.glsl"

// The index normalised into [0, n), or NO_AXIS (never a valid index since n < 2^32)
// when it is out of range: signed values count from the end, 64-bit values outside
// 32 bits are out of range, never truncated.
uint decode_index(uint lo, uint hi, uint n)
{
    const uint type = AUX_TYPE;
    bool negative = (type == AUX_I32 && int(lo) < 0) || (type == AUX_I64 && int(hi) < 0);
    if (negative) {
        // Magnitude of a negative value: |v| = 2^32 - lo when hi is all ones (64-bit) or
        // for 32-bit values; anything below -2^32 is out of range.
        if (type == AUX_I64 && hi != 0xffffffffu) return NO_AXIS;
        if (lo == 0u) return NO_AXIS;                 // exactly -2^32
        uint mag = 0u - lo;
        return mag <= n ? n - mag : NO_AXIS;
    }
    if (hi != 0u) return NO_AXIS;
    return lo < n ? lo : NO_AXIS;
}

uint read_index(uint a, uint n) { return decode_index(aux_word(a), aux_high(a), n); }

uvec2 g_on, g_off; // the two values, read once per invocation
uvec4 g_off4;        // a chunk of OffValue

void load_op()
{
    g_off = load_src(pc.rem_src);
    g_on = load_aux2(pc.rem_aux2);
    g_off4 = splat(g_off);
}

uint row_index(uint ia)
{
    if (ia != g_aux_addr) {
        g_aux_addr = ia;
        g_aux_value = read_index(ia, g_n);
    }
    return g_aux_value;
}

// 16 bytes of elements j0.. sharing one index: OffValue everywhere, OnValue where the
// sequence position equals the index.
bool fetch_vec(uint sb, uint ab, uint row_axis, uint j0, out uvec4 v)
{
    v = splat(g_off);
    if (g_aux_step != 0u) return false;
    uint k = row_index(ab);
    if (g_axis == g_last) {
        uint i0 = g_axis_origin + j0;
        if (k != NO_AXIS && k >= i0 && k - i0 < 16u / ESIZE) v = with_element(v, k - i0, g_on);
    } else if (row_axis == k) {
        v = splat(g_on);
    }
    return true;
}

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    uint k = row_index(ab + j * g_aux_step);
    uint i = g_axis == g_last ? g_axis_origin + j : row_axis;
    v = i == k ? g_on : g_off;
    return true;
}

// FAST (the host checks that the index is constant along a row): write-only. The row's
// index is read once; a chunk is OffValue with OnValue where the index falls (V_ALONG),
// or, across the axis (V_ACROSS), all OnValue on the row the index names.
uint g_k, g_row_axis;
void row_begin(uint sb, uint ab, uint row_axis)
{
    g_k = read_index(ab, g_n);
    g_row_axis = row_axis;
}
// Write-only: nothing carried from chunk to chunk.
const bool STREAMS = false;
void chunk_prime(uint j0) {}

bool chunk_vec(uint j0, out uvec4 v)
{
    if (VARIANT == V_ACROSS) {
        v = splat(g_row_axis == g_k ? g_on : g_off);
        return true;
    }
    v = splat(g_off);
    const uint i0 = g_axis_origin + j0;
    if (g_k != NO_AXIS && g_k >= i0 && g_k - i0 < 16u / ESIZE) v = with_element(v, g_k - i0, g_on);
    return true;
}
bool row_elem(uint j, out uvec2 x)
{
    x = (VARIANT == V_ALONG ? g_axis_origin + j : g_row_axis) == g_k ? g_on : g_off;
    return true;
}

// FLAT (the host checks that the piece's output rows lie end to end and that the index is
// constant along a row): the walk of gather_main.glsl for rows shorter than a chunk, and
// for longer ones flat_two_rows or, rows a whole number of chunks long, FLAT_ROWS (flat_main
// below). On lavapipe FLAT runs ONE_HOT with depth 16 UINT8 / FLOAT16 at 0.8-0.9x the
// compute copy, against 0.6-0.7x a row at a time (docs/performance.md).

// Element j of the piece's rows where row r has its OnValue, or NO_AXIS; vec: from the
// 16-byte texel that holds the index (Aux4T; the caller has checked that it is whole).
uint flat_hot_from(uint r, bool vec)
{
    const uint a = g_fab + r * g_fastr;
    uint k;
    if (vec) {
        const uvec4 t = TX_AUX4(a >> 4u);
        const uint c = (a >> 2u) & 3u; // 8-byte indices start on even words: c + 1 <= 3
        k = decode_index(t[c], AUX_TYPE >= AUX_U64 ? t[min(c + 1u, 3u)] : 0u, g_n);
    } else {
        k = read_index(a, g_n);
    }
    return k != NO_AXIS && k >= g_axis_origin ? k - g_axis_origin : NO_AXIS;
}
uint flat_hot(uint r) { return flat_hot_from(r, false); }

// Element j of row r (flat_edge's chunks): written whatever the index.
bool flat_elem(uint r, uint j, out uvec2 x)
{
    x = flat_hot(r) == j ? g_on : g_off;
    return true;
}

// A chunk of rows shorter than itself (m < 16 / ESIZE: it meets up to 16 / (m * ESIZE) + 1
// rows) from element j of row r: OffValue with the OnValue of every row that starts
// before its end. Every row met lies inside the piece, since the chunk is whole inside it.
// vec: each index from the 16-byte texel that holds it (the caller has checked that every
// row met lies below flat_rows4).
bool flat_chunk(uint r, uint j, bool vec, out uvec4 v)
{
    const int n = int(16u / ESIZE);
    v = g_off4;
    // Row r starts at element s of the chunk (negative: before it).
    for (int s = -int(j); s < n; r++, s += int(g_fm)) {
        const uint k = flat_hot_from(r, vec);
        const int e = s + int(min(k, g_fm));
        if (k < g_fm && e >= 0 && e < n) v = with_element(v, uint(e), g_on);
    }
    return true;
}
const bool FLAT_WHOLE = true;
#define DM_FLAT_ELEMS

void flat_main();
#define DM_FLAT_MAIN flat_main
#include "gather_main.glsl"

// The rows [0, rows4) of the piece whose index lies inside Aux4T's whole texels: the host
// binds it with as many as the AUX window holds whole (a dummy where that is none), so
// the window's length says how many (a size query would need the ImageQuery capability).
uint flat_rows4(uint rows)
{
    if (!TEXEL) return 0u;
    const uint limit = (uint(aux.length()) * 4u) & ~15u;
    const uint bytes = AUX_TYPE >= AUX_U64 ? 8u : 4u;
    if (limit < bytes || g_fab > limit - bytes) return 0u;
    return g_fastr == 0u ? rows : min(rows, (limit - bytes - g_fab) / g_fastr + 1u);
}

// A chunk of OffValue with elements d1 and d2 OnValue, each only when it is below
// 16 / ESIZE (callers pass out-of-range values, NO_AXIS - j included, for none). Words
// are picked by a vector compare, which lavapipe runs in a few vector operations where an
// indexed write into the vector is a select chain: for 1- and 2-byte elements the word
// that holds each is OffValue's word with OnValue inserted (a byte mask per word built
// from shifts made depth 16 UINT8 20% slower; inserting through with_element held depth
// 1024 UINT8 at 0.86-0.90x the compute copy, 0.92-0.95x this way).
uvec4 two_hot(uvec4 off, uvec4 on, uint d1, uint d2)
{
    if (ESIZE >= 4u) {
        const uvec4 iota = ESIZE == 8u ? uvec4(0u, 0u, 1u, 1u) : uvec4(0u, 1u, 2u, 3u);
        return mix(off, on, bvec4(uvec4(equal(uvec4(d1), iota)) | uvec4(equal(uvec4(d2), iota))));
    }
    // Every word of off is the same; both rows' OnValues go into one word when they meet
    // there.
    const uint n = 16u / ESIZE, per = 4u / ESIZE, bits = ESIZE * 8u;
    const uint w1 = d1 < n ? d1 / per : 4u, w2 = d2 < n ? d2 / per : 4u;
    const uint h1 = bitfieldInsert(off.x, on.x, int((d1 % per) * bits), int(bits));
    const uint h2 = bitfieldInsert(w1 == w2 ? h1 : off.x, on.x, int((d2 % per) * bits), int(bits));
    const uvec4 iota = uvec4(0u, 1u, 2u, 3u);
    return mix(mix(off, uvec4(h1), equal(uvec4(w1), iota)), uvec4(h2), equal(uvec4(w2), iota));
}

// FLAT: the stream cut into runs of RUN whole chunks, each chunk one index read (the row
// of its last element; the row of its first is carried from the chunk before) and one
// store.
void flat_two_rows(uint w0, uint w1, uint u, uint threads, uvec4 off, uvec4 on)
{
    const uint n = 16u / ESIZE;
    const uint runs = (w1 - w0 + RUN - 1u) / RUN;
    for (uint run = u; run < runs; run += threads) {
        const uint c0 = w0 + run * RUN, f0 = (c0 * 16u - g_fdb) / ESIZE;
        uint r = fm_row(f0), j = f0 - r * g_fm, hot = flat_hot(r);
        for (uint c = c0; c < min(c0 + RUN, w1); c++) {
            // The chunk holds elements j .. j + n - 1 of row r, the last p of them reaching
            // into row r + 1 when p < n (m >= n: never further).
            const uint p = g_fm - j;
            const bool cross = p < n;
            const uint last_hot = flat_hot(cross ? r + 1u : r);
            const uint first_hot = j == 0u ? last_hot : hot;
            // Each row's OnValue only inside its own part of the chunk: an index past
            // this piece's columns (g_axis_origin) or NO_AXIS must not land in the other.
            const uint d1 = first_hot - j, d2 = cross && last_hot < n - p ? p + last_hot : NO_AXIS;
            ST_DST4(c, two_hot(off, on, d1 < p ? d1 : NO_AXIS, d2));
            j += n;
            const bool wrap = j >= g_fm;
            j -= wrap ? g_fm : 0u;
            r += wrap ? 1u : 0u;
            hot = last_hot;
        }
        if (runs - run <= threads) break; // run + threads would reach runs (or wrap)
    }
}

// FLAT_ROWS (rows a whole number of chunks long: m * ESIZE a multiple of 16), the piece
// starting on a chunk boundary (j0 = 0, so no chunk reaches into a second row; a piece
// that does not, which bindings on 16 bytes never make, takes flat_two_rows), rows of at
// most RUN / 2 chunks (flat_long_rows below takes longer ones): LANES invocations share a
// unit of LANES * RUN / cpr rows, lane l taking rows l, l + LANES, ... whole (the lanes'
// stores of a chunk then fall in one span of LANES rows), each row's index read once
// however many chunks it has: FLOAT32 with depth 16 reads a quarter of the indices FLAT
// reads.
// Rows [ra, rb); a row's index is read once per row and lane, from Aux4T when vec.
void flat_rows_lanes(uint ra, uint rb, bool vec, uint w0, uint w1, uint u, uint threads, uvec4 off, uvec4 on)
{
    const uint n = 16u / ESIZE, cpr = max(g_fm / n, 1u), lane = u % LANES, rows = rb - ra;
    u /= LANES;
    threads /= LANES;
    const uint rr = RUN / cpr * LANES, runs = (rows + rr - 1u) / rr;
    for (uint run = u; run < runs; run += threads) {
        const uint r0 = ra + run * rr + lane, r1 = ra + min(run * rr + rr, rows);
        // Rows of one chunk (UINT8 depth 16) store without the chunk loop, which lavapipe
        // ran as a loop per row: 0.79-0.92x the compute copy that way, 0.94-1.13x this way
        // (16 MiB, three alternating runs). Uniform, so the branch not taken costs one
        // masked pass per unit.
        if (cpr == 1u) {
            for (uint r = r0; r < r1; r += LANES) {
                const uint hot = flat_hot_from(r, vec), cb = w0 + r;
                if (cb < w1) ST_DST4(cb, two_hot(off, on, hot < g_fm ? hot : NO_AXIS, NO_AXIS));
            }
        } else {
            for (uint r = r0; r < r1; r += LANES) {
                const uint hot = flat_hot_from(r, vec), hb = hot < g_fm ? hot : NO_AXIS, cb = w0 + r * cpr;
                const uint qn = cb < w1 ? min(cpr, w1 - cb) : 0u;
                for (uint q = 0u; q < qn; q++) ST_DST4(cb + q, two_hot(off, on, hb - q * n, NO_AXIS));
            }
        }
        if (runs - run <= threads) break;
    }
}

// FLAT_ROWS from a chunk boundary with rows of more than RUN / 2 chunks: the rows'
// chunks from row ra to row rb walked as one stream in units of span chunks (RUN * LANES
// or more), lanes on neighbouring chunks. A unit stores OffValue everywhere, then each
// row it meets (a few: cpr > RUN / 2) has its one OnValue chunk stored again by the lane
// that stored it, so a row costs an index read and a compare, not a loop of its own and
// not two_hot per chunk (depth 1024, six alternating runs, x the compute copy at 16 / 64
// MiB: UINT8, rows of 64 chunks that gave each lane a loop of 8 a row, 0.85-0.86 /
// 0.82-0.87 with two_hot per chunk -> 1.12-1.19 / 1.17-1.22; FLOAT16 0.99 / 0.99-1.08
// -> 1.17-1.34 / 1.24-1.27; FLOAT32 1.12-1.16 -> 1.22-1.28; FLOAT64 unchanged).
void flat_long_rows(uint ra, uint rb, bool vec, uint w0, uint w1, uint u, uint threads, uvec4 off, uvec4 on)
{
    const uint n = 16u / ESIZE, cpr = g_fm / n, lane = u % LANES;
    u /= LANES;
    threads /= LANES;
    const uint a = w0 + ra * cpr, b = min(w0 + rb * cpr, w1), total = b > a ? b - a : 0u;
    // Units as long as a row while every lane group still gets one: a unit's set-up per
    // RUN * LANES chunks made depth 1024 FLOAT64 (rows of 512 chunks) 10% slower than a
    // row per unit. At most FLAT_SPAN_MAX chunks, so that a unit's loops stay bounded
    // (src/vk/vk_grid.c sizes the grid by it).
    const uint FLAT_SPAN_MAX = 4096u;
    uint span = RUN * LANES;
    while (span * 2u <= cpr && span * 2u <= FLAT_SPAN_MAX && total / (span * 2u) >= threads) span *= 2u;
    const uint runs = (total + span - 1u) / span;
    if (u >= runs) return;
    // The unit's first row r and its first chunk's place in it (rem), kept by addition
    // from unit to unit rather than divided out per unit. The step is used only while
    // run + threads < runs, when threads * span is below total.
    const uint adv = threads * span, adv_r = adv / cpr, adv_m = adv - adv_r * cpr;
    uint c0 = a + u * span, r = (c0 - w0) / cpr, rem = c0 - w0 - r * cpr;
    for (uint run = u;;) {
        const uint c1 = min(c0 + span, b);
        // The first row's index is read before the stores, which hide its latency.
        uint hot = flat_hot_from(r, vec), rr = r, rs = c0 - rem; // rs: row rr's first chunk
        for (uint c = c0 + lane; c < c1; c += LANES) ST_DST4(c, off);
        for (;;) {
            const uint q = hot / n, h = rs + q;
            if (hot < g_fm && h >= c0 && h < c1 && ((h - c0) & (LANES - 1u)) == lane)
                ST_DST4(h, two_hot(off, on, hot - q * n, NO_AXIS));
            rs += cpr;
            if (rs >= c1) break;
            rr++;
            hot = flat_hot_from(rr, vec);
        }
        if (runs - run <= threads) break;
        run += threads;
        c0 += adv;
        r += adv_r;
        rem += adv_m;
        const bool wrap = rem >= cpr;
        rem -= wrap ? cpr : 0u;
        r += wrap ? 1u : 0u;
    }
}

void flat_main()
{
    uint end, w0, w1;
    const uint rows = flat_begin(end, w0, w1), m = p(P_M);
    const uint threads = grid_size(), u = grid_invocation();
    const uvec4 off = splat(g_off), on = splat(g_on);
    if (VARIANT == V_FLAT_ROWS && w0 * 16u == g_fdb) {
        // The rows whose index Aux4T holds, then the few past its last whole texel.
        const uint rows4 = flat_rows4(rows);
        if (m / (16u / ESIZE) * 2u > RUN) {
            flat_long_rows(0u, rows4, true, w0, w1, u, threads, off, on);
            flat_long_rows(rows4, rows, false, w0, w1, u, threads, off, on);
        } else {
            flat_rows_lanes(0u, rows4, true, w0, w1, u, threads, off, on);
            flat_rows_lanes(rows4, rows, false, w0, w1, u, threads, off, on);
        }
    } else if (m < 16u / ESIZE) {
        // Chunks [w0, wv) meet only rows whose index Aux4T holds (the rows before rows4
        // end at byte g_fdb + rows4 * m * ESIZE): one 16-byte texel per row where an R32
        // texel per row made a hardware gather (UINT8 depth 2 reads 9 rows a chunk).
        const uint wv = clamp((g_fdb + flat_rows4(rows) * m * ESIZE) >> 4u, w0, w1);
        flat_lanes(w0, wv, u, threads, true);
        flat_lanes(wv, w1, u, threads, false);
    }
    else flat_two_rows(w0, w1, u, threads, off, on);
    flat_ends(u, w0, end);
}

#include "gather_tiles.glsl"

#if DM_VARIANT == 11
// V_TILE_HOT (gather_tiles.glsl): ONE_HOT along the innermost axis into output rows that
// lie end to end, with one index per row, contiguous (the host checks; the usual [N]
// indices into [N, depth]). A tile is P_TILE_CHUNKS chunks of the piece's output stream:
// the workgroup loads the indices of the rows it meets as whole vectors, every one before
// any store, decodes them into shared memory, then each lane stores its chunks,
// neighbouring lanes on neighbouring chunks, each made from the one or two rows it meets
// (more where rows are shorter than a chunk) with no division: a lane's first chunk's row
// is a multiply by the magic number of the row length (fastdiv), and each next chunk, WG
// chunks on, is P_TILE_STEP_ROWS rows and P_TILE_STEP_COLS columns further. On the H100
// the paths before this read an index per chunk right before storing it (depth 16: 0.19x
// the copy) or divided per chunk (UINT8, FLOAT16); depth 1024 reads a tile's eight rows'
// indices before its 2048 stores.
uint g_th_r0, g_th_rows;

// Decoded hot column of staged row i (the tile's row g_th_r0 + i), as flat_hot_from gives it.
uint th_hot(uint i) { return lds4[i >> 2u][i & 3u]; }

uvec4 th_load(uint k) { return aux_vec(((g_fab + g_th_r0 * g_fastr) >> 4u) + k); }
// Decodes the indices whole in vector k and puts each of the tile's rows' at its word.
void th_store(uint k, uvec4 x)
{
    const uint abytes = AUX_TYPE >= AUX_U64 ? 8u : 4u, at = ((g_fab + g_th_r0 * g_fastr) & ~15u) + k * 16u;
    [[unroll]] for (uint w = 0u; w < 4u; w += abytes / 4u) {
        const uint b = at + w * 4u;
        if (b < g_fab) continue;
        const uint i = (b - g_fab) / abytes - g_th_r0; // abytes is 4 or 8: a shift
        if (i >= g_th_rows) continue;
        const uint k_ = decode_index(x[w], abytes == 8u ? x[w + 1u] : 0u, g_n);
        lds4[i >> 2u][i & 3u] = k_ != NO_AXIS && k_ >= g_axis_origin ? k_ - g_axis_origin : NO_AXIS;
    }
}

void tiles_hot_main()
{
    uint end, w0, w1;
    const uint rows = flat_begin(end, w0, w1), m = g_fm, n = 16u / ESIZE, lane = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupSize.x, TC = p(P_TILE_CHUNKS), lg = p(P_TILE_PER);
    const uint dq = p(P_TILE_STEP_ROWS), dr = p(P_TILE_STEP_COLS);
    const uint abytes = AUX_TYPE >= AUX_U64 ? 8u : 4u;
    const uvec4 off = splat(g_off), on = splat(g_on);
    const uint tiles = (w1 - w0 + TC - 1u) >> lg;
    // One index per row, contiguous, as the host checked: else the rows' indices are
    // read one by one (a lone row has no row stride).
    if (rows == 1u) g_fastr = abytes;
    for (uint t = tile_group(); t < tiles; t += tile_groups()) {
        const uint c0 = w0 + t * TC, c1 = min(c0 + TC, w1);
        const uint f0 = (c0 * 16u - g_fdb) / ESIZE, fz = (c1 * 16u - g_fdb) / ESIZE - 1u;
        g_th_r0 = fm_row(f0);
        g_th_rows = fm_row(fz) + 1u - g_th_r0;
        const uint nvec = ((g_fab + (g_th_r0 + g_th_rows) * abytes + 15u) >> 4u) - ((g_fab + g_th_r0 * abytes) >> 4u);
        const bool staged = g_fastr == abytes && nvec <= LDS_VECS && g_th_rows <= LDS_VECS * 4u;
        if (staged) {
            TILE_STAGE(nvec, th_load, th_store)
            barrier();
        }
        uint f = f0 + lane * n, r = fm_row(f), j = f - r * m;
        for (uint c = c0 + lane; c < c1; c += wg) {
            uvec4 v;
            if (!staged) {
                flat_chunk(r, j, false, v);
            } else if (m >= n) {
                // Row r's elements j .. m - 1 (p of them), then row r + 1's first n - p.
                const uint p = m - j, h1 = th_hot(r - g_th_r0);
                const uint h2 = p < n ? th_hot(r + 1u - g_th_r0) : NO_AXIS;
                const uint d1 = h1 - j, d2 = p < n && h2 < n - p ? p + h2 : NO_AXIS;
                v = two_hot(off, on, d1 < p ? d1 : NO_AXIS, d2);
            } else {
                v = g_off4;
                uint rr = r;
                // Rows shorter than the chunk: each that starts before its end (flat_chunk).
                for (int s = -int(j); s < int(n); rr++, s += int(m)) {
                    const uint k = th_hot(rr - g_th_r0);
                    const int e = s + int(min(k, m));
                    if (k < m && e >= 0 && e < int(n)) v = with_element(v, uint(e), g_on);
                }
            }
            ST_DST4(c, v);
            j += dr;
            r += dq;
            const bool wrap = j >= m;
            j -= wrap ? m : 0u;
            r += wrap ? 1u : 0u;
        }
        if (staged) barrier(); // before the next tile stages over this one
    }
    flat_ends(grid_invocation(), w0, end);
}
void tile_main() { tiles_hot_main(); }
#endif
#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
