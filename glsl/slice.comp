#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// DML_SLICE1 (and any affine gather): out[c] = in[base + sum(c * step)].
#include "gather_common.glsl"

void load_op() {}

uint src_word(uint w) { return w < uint(src.length()) ? src[w] : 0u; }

// The 4 bytes starting at byte address a, in memory order.
uint src_bytes(uint a)
{
    uint w = a >> 2u, shift = (a & 3u) * 8u;
    uint lo = src_word(w);
    return shift == 0u ? lo : (lo >> shift) | (src_word(w + 1u) << (32u - shift));
}

// A whole output word of 1- or 2-byte elements j0.. from a source that runs forwards or
// backwards one element at a time: two word loads instead of one per element.
bool fetch_word(uint sb, uint j0, out uint bits)
{
    if (g_src_step == ESIZE) {
        bits = src_bytes(sb + j0 * ESIZE);
        return true;
    }
    if (g_src_step == 0u - ESIZE) {
        // Elements j0 .. j0 + 4/ESIZE - 1 sit at descending addresses: read the span
        // forwards from the last one and reverse the element order.
        uint v = src_bytes(sb + j0 * g_src_step - (4u - ESIZE));
        bits = ESIZE == 1u ? (v >> 24u) | ((v >> 8u) & 0xff00u) | ((v << 8u) & 0xff0000u) | (v << 24u)
                           : (v >> 16u) | (v << 16u);
        return true;
    }
    return false;
}

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    v = load_src(sb + j * g_src_step);
    return true;
}

#include "gather_main.glsl"
