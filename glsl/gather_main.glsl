// The shared body: map a unit to output elements, fetch each, write whole words.
// MODE_ELEMENT: one unit is one output element. 4- and 8-byte elements own their words;
//   smaller ones are merged into their word with atomics, since a strided output can
//   put several elements (or bytes that must stay untouched) in one word.
// MODE_WORD (1- and 2-byte elements in contiguous output rows): one unit is one aligned
//   word of a row; a word wholly inside the row has one owner and a plain store, only a
//   row's edge words are merged with atomics.

void store_masked(uint w, uint bits, uint mask)
{
    if (mask == 0u || w >= uint(dst.length())) return;
    if (mask == 0xffffffffu) {
        dst[w] = bits;
    } else {
        atomicAnd(dst[w], ~mask);
        atomicOr(dst[w], bits & mask);
    }
}

void store_element(uint a, uvec2 v)
{
    uint w = a >> 2u;
    if (ESIZE == 8u) {
        if (w + 1u < uint(dst.length())) {
            dst[w] = v.x;
            dst[w + 1u] = v.y;
        }
    } else if (ESIZE == 4u) {
        if (w < uint(dst.length())) dst[w] = v.x;
    } else {
        uint shift = (a & 3u) * 8u;
        uint mask = ((1u << (ESIZE * 8u)) - 1u) << shift;
        store_masked(w, v.x << shift, mask);
    }
}

void main()
{
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint u = pc.unit_base + group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (u >= p[P_UNITS]) return;

    uint rank = p[P_RANK], last = rank - 1u, per_row = p[P_PER_ROW];
    uint row = u / per_row, k = u - row * per_row;

    // Row coordinates (every dimension but the innermost) to byte offsets. Offsets wrap
    // modulo 2^32 on purpose: the host guarantees that every address actually used lies
    // inside its window, so the wrapped sum is exact.
    uint db = pc.rem_dst + p[P_DST_BASE];
    uint sb = pc.rem_src + p[P_SRC_BASE];
    uint ab = pc.rem_aux + p[P_AUX_BASE];
    uint axis = p[P_AXIS], row_axis = 0u;
    for (uint d = last; d-- > 0u;) {
        uint size = p[P_SIZE + d];
        uint q = row / size, c = row - q * size;
        row = q;
        db += c * p[P_DST_STRIDE + d];
        sb += c * p[P_SRC_STRIDE + d];
        ab += c * p[P_AUX_STRIDE + d];
        if (d == axis) row_axis = p[P_AXIS_ORIGIN] + c;
    }
    uint dst_step = p[P_DST_STRIDE + last];

    if (p[P_MODE] == MODE_ELEMENT) {
        uvec2 v;
        if (fetch(sb, ab, row_axis, k, v)) store_element(db + k * dst_step, v);
        return;
    }

    uint m = p[P_M];
    uint row_end = db + m * ESIZE;
    uint w = (db >> 2u) + k, wb = w * 4u;
    if (wb >= row_end) return;
    uint bits = 0u, mask = 0u;
    uint emask = (1u << (ESIZE * 8u)) - 1u;
    for (uint lane = 0u; lane < 4u; lane += ESIZE) {
        uint b = wb + lane;
        if (b < db || b >= row_end) continue;
        uvec2 v;
        if (!fetch(sb, ab, row_axis, (b - db) / ESIZE, v)) continue;
        bits |= (v.x & emask) << (lane * 8u);
        mask |= emask << (lane * 8u);
    }
    store_masked(w, bits, mask);
}
