#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// DML_REVERSE_SUBSEQUENCES: along the axis, out[i] = in[L-1-i] for i < L, else in[i].
// sb addresses the row with axis coordinate 0; the source axis coordinate is added here.
// When the axis is too long for one window the host binds several input windows
// [P_WIN_LO, P_WIN_HI) over the same output piece, and each element is written by the
// dispatch whose window holds its source.
#include "gather_common.glsl"

// A length from its low and high words (hi 0 for 32-bit types), clamped to [0, n].
uint decode_length(uint lo, uint hi, uint n)
{
    const uint type = AUX_TYPE;
    bool negative = (type == AUX_I32 && int(lo) < 0) || (type == AUX_I64 && int(hi) < 0);
    if (negative) return 0u;           // a negative length counts as 0
    if (hi != 0u) return n;            // >= 2^32: clamps to the axis
    return min(lo, n);
}

uint read_length(uint a, uint n) { return decode_length(aux_word(a), aux_high(a), n); }

void load_op() {}


uint row_length(uint la)
{
    if (la != g_aux_addr) {
        g_aux_addr = la;
        g_aux_value = read_length(la, g_n);
    }
    return g_aux_value;
}

// 16 bytes of elements j0.. when they share one length and their sources run one element
// at a time: backwards inside the reversed prefix, forwards past it.
bool fetch_vec(uint sb, uint ab, uint row_axis, uint j0, out uvec4 v)
{
    const uint n = 16u / ESIZE;
    v = uvec4(0u);
    // Each way below finds the chunk's source address (and whether it runs backwards), and
    // one src_vec at the end loads it: a src_vec per way (three, each with its funnel)
    // cost V3D 47 of REVERSE GENERAL's 82 spills (2 threads; 2592 instructions, FLOAT32).
    uint a;
    bool backwards = false;
    if (g_aux_step != 0u) {
        // A length per element of the row: across the axis ([16, C] along axis 0 with a
        // length per column), a chunk whose n lengths agree comes from one source row,
        // one vector where that row is contiguous. Element by element, [16, C] along
        // axis 0 ran at 0.20x (UINT8) to 0.48x (FLOAT64) of the compute copy on the H200;
        // this way at 0.30x to 1.03x (64 MiB, docs/performance.md). CPU devices (LANES > 1:
        // lanes in lock-step) skip it: on lavapipe lengths differing from column to column
        // ran 10-17% slower with the check, equal ones FLOAT16 and FLOAT32 no faster.
        if (LANES > 1u || g_axis == g_last || g_src_step != ESIZE) return false;
        const uint L = read_length(ab + j0 * g_aux_step, g_n);
        // Unrolled (n is a constant): as a loop it would add n iterations a chunk to what
        // src/vk/vk_grid.c bounds, past lavapipe's limit at the smallest grid.
        for (uint e = 1u; e < n; e++)
            if (read_length(ab + (j0 + e) * g_aux_step, g_n) != L) return false;
        const uint s = row_axis < L ? L - 1u - row_axis : row_axis;
        if (s < g_win_lo || s >= g_win_hi) return false;
        a = sb + s * g_axis_src_stride + j0 * ESIZE;
    } else {
        const uint L = row_length(ab);
        if (g_axis == g_last) {
            if (g_axis_src_stride != ESIZE) return false;
            const uint i0 = g_axis_origin + j0;
            backwards = i0 + n <= L; // all reversed: sources L-1-i0 down to L-i0-n
            const uint lo = backwards ? L - i0 - n : i0, hi = backwards ? L - i0 : i0 + n;
            if ((!backwards && i0 < L) || lo < g_win_lo || hi > g_win_hi) return false;
            a = sb + lo * ESIZE;
        } else {
            const uint s = row_axis < L ? L - 1u - row_axis : row_axis;
            if (g_src_step != ESIZE || s < g_win_lo || s >= g_win_hi) return false;
            a = sb + s * g_axis_src_stride + j0 * ESIZE;
        }
    }
    if (!src_vec(a, v)) return false;
    if (backwards) v = reverse_elements(v);
    return true;
}

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    bool axis_last = g_axis == g_last;
    uint L = row_length(ab + j * g_aux_step);
    uint i = axis_last ? g_axis_origin + j : row_axis;
    uint s = i < L ? L - 1u - i : i;
    v = uvec2(0u);
    if (s < g_win_lo || s >= g_win_hi) return false;
    uint a = sb + s * g_axis_src_stride;
    if (!axis_last) a += j * g_src_step;
    v = load_src(a);
    return true;
}

// FAST (the host checks that lengths are constant along a row and that the axis, or the
// row, is contiguous in the source): along the axis (V_ALONG) the row is its sequence
// backwards, then the rest forwards; across it (V_ACROSS), one whole source row forwards. Elements whose source
// lies outside this piece's part of the window [P_WIN_LO, P_WIN_HI) are left alone.
// The row's state is g_P, g_Bb and g_Bf alone (gather_common.glsl's streams): along the
// axis the sequence length is P plus the axis origin wherever P is not 0, and across it
// g_Bb, unused there by the stream, holds the source row (three values a GPU keeps while
// it goes element by element, where five spilled on V3D).
uint g_sb, g_ab, g_row_axis; // COLUMNS: the row's source and length addresses, axis coordinate
// Rows along the axis (the axis the row's own dimension): V_ALONG, and V_TILES when the
// gather's axis is its last dimension (the tiles take both layouts).
bool along_rows() { return VARIANT == V_ALONG || (VARIANT == V_TILES && g_axis == g_last); }

void row_begin(uint sb, uint ab, uint row_axis)
{
    if (VARIANT == V_COLUMNS || VARIANT == V_TILE_COLUMNS) {
        g_sb = sb;
        g_ab = ab;
        g_row_axis = row_axis;
        return;
    }
    const uint L = read_length(ab, g_n);
    if (along_rows()) {
        const uint o = g_axis_origin;
        g_P = L > o ? L - o : 0u;
        g_Bb = sb + (L - 1u - o) * ESIZE; // unused (and wrapped) when g_P is 0
        g_Bf = sb + o * ESIZE;
    } else {
        g_P = 0u;
        g_Bb = row_axis < L ? L - 1u - row_axis : row_axis; // the source row
        g_Bf = sb + g_Bb * g_axis_src_stride;
    }
}

// Whether the sources of elements j0 .. j0 + cnt - 1, all on one side of g_P, lie in the
// window. Along the axis the reversed element j's source is L - 1 - (origin + j) = P - 1 - j.
bool in_window(uint j0, uint cnt)
{
    if (!along_rows()) return g_Bb >= g_win_lo && g_Bb < g_win_hi;
    const uint i0 = g_axis_origin + j0;
    const bool back = j0 + cnt <= g_P;
    if (!back && j0 < g_P) return false;
    const uint lo = back ? g_P - j0 - cnt : i0, hi = back ? g_P - 1u - j0 : i0 + cnt - 1u;
    return lo >= g_win_lo && hi < g_win_hi;
}

// COLUMNS (the host checks that the axis is a row dimension, that the row is contiguous in
// the source and that the lengths run along it contiguously, one per column: ONNX's [T, B]
// batch of sequences with no feature dimension): element e of a chunk comes from the row
// its own column's length picks. The chunk's lengths are read as whole 16-byte vectors
// (on lavapipe a 16-byte texel is a plain vector load per lane where a 4-byte one is a
// hardware gather), 8-byte elements from the 16-byte source vector that holds them,
// smaller ones from the word that holds them (SrcWT): per element, a gather of a word
// per lane costs less than a 16-byte load per lane and the transpose of the batch's
// vectors (lavapipe, alternating rounds at 16 and 64 MiB, x the compute copy: UINT8
// 0.33-0.35 -> 0.40-0.43, FLOAT16 0.52-0.54 -> 0.57-0.61, FLOAT32 medians of seven 0.75 /
// 0.69 -> 0.78 / 0.72; FLOAT64, two words per element, ran slower that way).
// The general path paid a lane-by-lane storage-buffer load per element and a masked word store.

// The chunk of elements j0 .. j0 + 16 / ESIZE - 1 of the row, each from its column's row;
// false when a length lies past Aux4T's last whole texel, a source past the SRC window,
// or a source outside this piece's window (PARTIAL: then with g_part set, the other
// elements right in v and marked in g_part_mask).
bool columns_vec(uint j0, out uvec4 v)
{
    v = uvec4(0u);
    // No pipeline runs the storage-buffer modules' COLUMNS: the host picks it for the
    // texel path only (kernels.c), and a binding that falls back to storage buffers takes
    // the general path. Element by element, should that change.
    if (!TEXEL) return false;
    const uint n = 16u / ESIZE, abytes = AUX_TYPE >= AUX_U64 ? 8u : 4u;
    const uint len4 = uint(src4.length()), words = uint(src.length()), texels = uint(aux.length()) >> 2u;
    const uint la = g_ab + j0 * abytes, q0 = la >> 4u, sh = (la >> 2u) & 3u;
    // The lengths' 16-byte vectors l, the first from texels q0 and q0 + 1, each next one
    // from the texel after them (funnelled by sh words).
    uvec4 lo = uvec4(0u), l = uvec4(0u);
    lo = TX_AUX4(min(q0, max(texels, 1u) - 1u));
    // ALIGNED (the host's finding, dm_kernel_src_aligned): the chunk's source starts on a
    // 16-byte boundary in every row, so element e is byte e * ESIZE of texel
    // qb + (s - g_win_lo) * st (s its row): its word and shift are constants; a piece whose
    // chunk is not aligned after all goes element by element. qb is the chunk in the
    // window's first row: g_sb, the row with axis coordinate 0, lies before the window
    // (wrapped modulo 2^32) when the window starts further down, and shifting that would
    // leave qb 2^28 off. The window's rows lie inside the SRC window (the host plans it
    // so), so one check of its last row stands for every element's (those outside the
    // window are refused, their fetches clamped). Otherwise each element's texel, word and
    // shift are computed per lane: on lavapipe the per-element work is a fifth of what a
    // chunk costs (docs/design.md).
    const uint bw = g_sb + g_win_lo * g_axis_src_stride + j0 * ESIZE;
    const uint qb = bw >> 4u, st = g_axis_src_stride >> 4u, span = g_win_hi - g_win_lo;
    bool ok = !ALIGNED || (((bw | g_axis_src_stride) & 15u) == 0u && span != 0u &&
                           qb + (min(g_win_hi, g_n) - 1u - g_win_lo) * st < len4);
    // PARTIAL: which of the chunk's bytes have their source in the window; the others are
    // left to the pieces of the other windows instead of failing the chunk.
    bool all_in = true;
    g_part_mask = uvec4(0u);
    [[unroll]] for (uint e = 0u; e < n; e++) {
        const uint lb = (e * abytes) & 15u; // the length's byte in its vector
        if (lb == 0u) {
            const uint q = q0 + (e * abytes >> 4u);
            ok = ok && q + (sh != 0u ? 1u : 0u) < texels;
            const uvec4 hi = TX_AUX4(min(q + 1u, max(texels, 1u) - 1u));
            l = sh == 0u ? lo : sh == 1u ? uvec4(lo.yzw, hi.x) : sh == 2u ? uvec4(lo.zw, hi.xy) : uvec4(lo.w, hi.xyz);
            lo = hi;
        }
        const uint L = decode_length(l[lb >> 2u], abytes == 8u ? l[(lb >> 2u) + 1u] : 0u, g_n);
        const uint s = g_row_axis < L ? L - 1u - g_row_axis : g_row_axis;
        const bool inside = s - g_win_lo < span; // s in [g_win_lo, g_win_hi)
        if (PARTIAL) {
            all_in = all_in && inside;
            g_part_mask = with_element(g_part_mask, e, inside ? uvec2(~0u) : uvec2(0u)); // the element's bytes
        } else {
            ok = ok && inside;
        }
        // The element's texel and its byte in it: constants but for the texel when ALIGNED.
        // Elements of up to 4 bytes are read from their word (SrcWT, as many texels as Src
        // has words: the host binds the view wherever this module runs), 8-byte ones from
        // their 16-byte texel. An element whose source lies outside the piece's window is
        // not written here (its fetch clamped), so only those inside are checked against
        // the SRC window: else PARTIAL would refuse every unaligned chunk it is meant for.
        const bool by_word = ESIZE <= 4u;
        const uint a = g_sb + s * g_axis_src_stride + (j0 + e) * ESIZE;
        const uint q = ALIGNED ? qb + (s - g_win_lo) * st : a >> 4u, b = ALIGNED ? e * ESIZE : a & 15u;
        const uint wi = q * 4u + (b >> 2u);
        ok = ok && (ALIGNED || !inside || (by_word ? wi < words : q < len4));
        uvec2 x;
        if (by_word) {
            // An element of up to 4 bytes never straddles a word.
            const uint w = TX_SRCW(min(wi, max(words, 1u) - 1u));
            x = uvec2(bitfieldExtract(w, int((b & 3u) * 8u), int(ESIZE * 8u)), 0u);
        } else {
            const uvec4 t = src4_clamped(q);
            x = b < 8u ? t.xy : t.zw; // an 8-byte element: half of its texel
        }
        v = with_element(v, e, x);
    }
    g_part = PARTIAL && ok && !all_in;
    return ok && all_in;
}

// Along the axis and across it with one length per row, rows are streams
// (gather_common.glsl).
const bool STREAMS = VARIANT != V_COLUMNS;
void chunk_prime(uint j0)
{
    if (STREAMS) stream_prime(j0);
}

bool chunk_vec(uint j0, out uvec4 v)
{
    if (VARIANT == V_COLUMNS) return columns_vec(j0, v);
    const bool got = stream_vec(j0, v); // first, so that the carry moves on
    return in_window(j0, 16u / ESIZE) && got;
}

bool row_elem(uint j, out uvec2 x)
{
    if (VARIANT == V_COLUMNS || VARIANT == V_TILE_COLUMNS) return fetch(g_sb, g_ab, g_row_axis, j, x);
    x = uvec2(0u);
    if (!in_window(j, 1u)) return false;
    x = stream_elem(j);
    return true;
}

#include "gather_main.glsl"
#include "gather_tiles.glsl"

#if DM_VARIANT == 9
// V_TILES (gather_tiles.glsl): a row is its reversed prefix (backwards from g_Bb), then the
// rest forwards from g_Bf (along the axis), or one source row forwards (across it). A piece
// that binds only part of the axis (above 2 GiB of it) goes element by element.
bool tile_row(uint sb, uint ab, uint axis, out uint P, out uint Bb, out uint Bf)
{
    row_begin(sb, ab, axis);
    P = g_P;
    Bb = g_Bb;
    Bf = g_Bf;
    return g_win_lo == 0u && g_win_hi >= g_n;
}
uint tile_step() { return ESIZE; }
// Element j's source index on the axis (along it: reversed below P, P - 1 - j; across it,
// the row's, which tile_row leaves in Bb) in the piece's part of the window.
bool tile_src_in(uint j, uint P, uint Bb)
{
    const uint s = !along_rows() ? Bb : j < P ? P - 1u - j : g_axis_origin + j;
    return s >= g_win_lo && s < g_win_hi;
}
void tile_main() { tiles_rows_main(); }
#endif

#if DM_VARIANT == 10
// V_TILE_COLUMNS (gather_tiles.glsl): across the axis with a length per column, [n, C]
// along axis 0 (ONNX's [T, B] batch of sequences; the host checks that the gather is that,
// with whole-chunk output rows). Element (t, c) comes from source row L[c] - 1 - t while
// t < L[c], else row t. A tile is the output's columns of P_TILE_CHUNKS chunks over every
// row: the workgroup stages those columns of all n source rows (P_TILE_SPAN vectors each)
// and their lengths, every source vector once, then each lane makes chunks of output rows
// from them: a vector where the chunk's lengths agree (each row a permuted copy), else
// element by element, its elements from the rows their own lengths pick. Element by element
// the general path read 16 lengths and 16 sources per UINT8 chunk from memory (the access
// model: 128 bytes per request, 30x the sectors); this reads each once.
// The tile: its first column, the columns' bytes each staged source row needs, the first
// vector of the lengths, the staged rows' vectors (P_TILE_SPAN each) in all.
uint g_tc_e_lo, g_tc_need, g_tc_a0, g_tc_nvec;

// Staged vector k: vector k % P_TILE_SPAN of source row k / P_TILE_SPAN's part (zeros past
// the part, and past the SRC window: the window's last partial vector from its words).
uvec4 tc_load(uint k)
{
    const uint vs = p(P_TILE_SPAN), s = fastdiv(k, p(P_SPAN_MAGIC), p(P_SPAN_SHIFTS)), v = k - s * vs;
    const uint rb = g_fsb + s * g_axis_src_stride, q = ((rb + g_tc_e_lo * ESIZE) >> 4u) + v;
    return q < ((rb + g_tc_need + 15u) >> 4u) ? src_vec_at(q) : uvec4(0u);
}
void tc_store(uint k, uvec4 x) { lds4[k] = x; }
uvec4 tc_load_aux(uint k) { return aux_vec(g_tc_a0 + k); }
void tc_store_aux(uint k, uvec4 x) { lds4[g_tc_nvec + k] = x; }

// The shared-memory byte of element (s, col): staged row s holds the aligned vectors of
// its columns from g_tc_e_lo on.
uint tc_offset(uint s, uint col)
{
    return s * p(P_TILE_SPAN) * 16u + ((g_fsb + s * g_axis_src_stride + g_tc_e_lo * ESIZE) & 15u) +
           (col - g_tc_e_lo) * ESIZE;
}

// Column c's length, decoded and clamped, from the staged lengths.
uint tc_length(uint c)
{
    const uint abytes = AUX_TYPE >= AUX_U64 ? 8u : 4u, o = g_fab + c * abytes - (g_tc_a0 << 4u);
    const uvec4 w = lds4[g_tc_nvec + (o >> 4u)];
    const uint i = (o >> 2u) & 3u;
    return decode_length(w[i], abytes == 8u ? w[min(i + 1u, 3u)] : 0u, g_n);
}

// The chunk of output row t (its axis coordinate) from column j0 on (wrapped below 0 for
// a row's first chunk when rows do not start on one), from the staged rows, and the bytes
// of it this piece writes (mask): one vector where the chunk is whole and its columns'
// lengths agree (a permuted copy of one source row's), else each element from its own
// column's row, in registers, those past the row's columns or with a source outside the
// piece's window (an axis over several windows) left out.
void tc_chunk(uint t, uint j0, uint m, bool whole, bool split, out uvec4 v, out uvec4 mask)
{
    const uint ne = 16u / ESIZE;
    v = uvec4(0u);
    mask = uvec4(0xffffffffu);
    if (whole && !split) {
        const uint L0 = tc_length(j0);
        bool agree = true;
        [[dont_unroll]] for (uint e = 1u; e < ne; e++) agree = agree && tc_length(j0 + e) == L0;
        if (agree) {
            v = lds16(tc_offset(t < L0 ? L0 - 1u - t : t, j0));
            return;
        }
    }
    mask = uvec4(0u);
    [[dont_unroll]] for (uint e = 0u; e < ne; e++) {
        const uint col = j0 + e;
        if (col >= m) continue;
        const uint L = tc_length(col), s = t < L ? L - 1u - t : t;
        if (split && (s < g_win_lo || s >= g_win_hi)) continue;
        v = with_element(v, e, lds_elem(tc_offset(s, col)));
        mask = with_element(mask, e, uvec2(0xffffffffu));
    }
}

void tiles_columns_main()
{
    const uint lane = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
    const uint R = g_last > 0u ? p(P_SIZE) : 1u, m = p(P_M), first = pc.rem_dst + p(P_DST_BASE);
    const uint dstr = g_last > 0u ? p(P_DST_STRIDE) : 0u, CBC = p(P_TILE_CHUNKS), lg = p(P_TILE_PER);
    const uint tiles = p(P_TILES), rb = first & 15u, qr = (rb + m * ESIZE + 15u) >> 4u;
    const uint abytes = AUX_TYPE >= AUX_U64 ? 8u : 4u;
    g_fsb = pc.rem_src + p(P_SRC_BASE);
    g_fab = pc.rem_aux + p(P_AUX_BASE);
    g_tc_nvec = g_n * p(P_TILE_SPAN);
    // An axis over several windows (above 2 GiB of it): only the elements whose source row
    // this piece's window holds are written (the staged rows outside it are zeros).
    const bool split = g_win_lo != 0u || g_win_hi < g_n;
    for (uint t = tile_group(); t < tiles; t += tile_groups()) {
        const uint q_lo = t * CBC, q_hi = min(q_lo + CBC, qr);
        g_tc_e_lo = q_lo * 16u > rb ? (q_lo * 16u - rb) / ESIZE : 0u;
        g_tc_need = min((q_hi * 16u - rb) / ESIZE, m) * ESIZE;
        g_tc_a0 = (g_fab + g_tc_e_lo * abytes) >> 4u;
        // A block that holds no column of the row (past the row's last chunk: output rows
        // padded so that a row ends inside a chunk, [88, 7] UINT8 rows 16 bytes apart) stages
        // and writes nothing: its count of length vectors would wrap below 0, and staging
        // that many crashed lavapipe inside the shader. The workgroup still meets the
        // barriers below together (the block is the same for all its lanes).
        // (A block from below qr holds at least one column: q_lo * 16 < rb + m * ESIZE.)
        const bool empty = q_lo >= q_hi;
        const uint naux = empty ? 0u : ((g_fab + g_tc_need / ESIZE * abytes + 15u) >> 4u) - g_tc_a0;
        // A block sized past shared memory is never planned (dm_tile_params, dm_kernel_columns_lds);
        // one that were would write nothing rather than past it.
        const bool fits = !empty && g_tc_nvec + naux <= LDS_VECS;
        // The lengths first: the source rows' loads, the most, are then the last a lane
        // issues, all in flight while it waits at the barrier.
        TILE_STAGE(fits ? naux : 0u, tc_load_aux, tc_store_aux)
        TILE_STAGE(fits ? g_tc_nvec : 0u, tc_load, tc_store)
        barrier();
        for (uint idx = lane; fits && idx < R << lg; idx += wg) {
            const uint r = idx >> lg, q = q_lo + (idx & (CBC - 1u));
            if (q >= q_hi) continue;
            const uint db = first + r * dstr, c = ((db - rb) >> 4u) + q, cb = q * 16u;
            const bool whole = cb >= rb && cb - rb + 16u <= m * ESIZE;
            uvec4 v, mask;
            tc_chunk(g_axis_origin + r, cb >= rb ? (cb - rb) / ESIZE : 0u - (rb - cb) / ESIZE, m, whole, split, v, mask);
            store_chunk(c, v, mask);
        }
        barrier(); // before the next tile stages over this one
    }
}
void tile_main() { tiles_columns_main(); }
#endif
#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
