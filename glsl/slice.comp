#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// DML_SLICE1 (and any affine gather): out[c] = in[base + sum(c * step)].
#include "gather_common.glsl"

void load_op() {}

// 16 bytes of elements j0.. from a source that runs one element forwards or backwards.
bool fetch_vec(uint sb, uint ab, uint row_axis, uint j0, out uvec4 v)
{
    v = uvec4(0u);
    if (g_src_step == ESIZE) return src_vec(sb + j0 * ESIZE, v);
    if (g_src_step != 0u - ESIZE) return false;
    // Descending addresses: read the 16 bytes forwards from the last element, reversed.
    if (!src_vec(sb + j0 * g_src_step - (16u - ESIZE), v)) return false;
    v = reverse_elements(v);
    return true;
}

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    v = load_src(sb + j * g_src_step);
    return true;
}

// FAST (VARIANT, chosen by the host from the step): rows that run one element forwards
// or backwards are streams (V_STREAM); step 2 takes the 32 bytes that hold a chunk's
// elements as two vector loads, then every second element (V_PAIRS: 1- and 2-byte
// elements, and on the texel path all sizes); any other step loads each element
// (V_WORDS).
void row_begin(uint sb, uint ab, uint row_axis)
{
    g_P = g_src_step == ESIZE ? 0u : 0xffffffffu;
    g_Bb = g_Bf = sb;
}


// Streams and step-2 pairs both read the source forwards or backwards a vector at a
// time, carrying one (gather_common.glsl, src16).
const bool STREAMS = VARIANT == V_STREAM || VARIANT == V_PAIRS;
void chunk_prime(uint j0)
{
    if (VARIANT == V_STREAM) stream_prime(j0);
    else if (VARIANT == V_PAIRS) src16_prime(g_Bf + j0 * g_src_step, true);
}

// The source vector at byte address a (false when a is not aligned or the vector lies
// past the window).
bool aligned_vec(uint a, out uvec4 v)
{
    v = src4_clamped(a >> 4u);
    return (a & 15u) == 0u && (a >> 4u) < uint(src4.length());
}

bool chunk_vec(uint j0, out uvec4 v)
{
    v = uvec4(0u);
    if (ALIGNED && VARIANT == V_STREAM) {
        bool back;
        const bool ok = aligned_vec(stream_addr(j0, back), v);
        if (back) v = reverse_elements(v);
        return ok;
    }
    if (VARIANT == V_STREAM) return stream_vec(j0, v);
    const uint a = g_Bf + j0 * g_src_step;
    if (VARIANT == V_WORDS) {
        if (ESIZE == 8u) v = uvec4(LD_SRC2(a >> 3u), LD_SRC2((a + g_src_step) >> 3u));
        else if (ESIZE == 4u) v = uvec4(LD_SRC(a >> 2u), LD_SRC((a + g_src_step) >> 2u), LD_SRC((a + 2u * g_src_step) >> 2u),
                                        LD_SRC((a + 3u * g_src_step) >> 2u));
        else {
            // 1- and 2-byte elements: each from its word, packed into the chunk in
            // registers (the general path merged every word of such a chunk one by one).
            [[unroll]] for (uint e = 0u; e < 16u / ESIZE; e++) {
                const uint b = a + e * g_src_step;
                v = with_element(v, e, uvec2(LD_SRC(b >> 2u) >> ((b & 3u) * 8u), 0u));
            }
        }
        return true;
    }
    uvec4 x, y;
    if (ALIGNED) {
        const bool got = aligned_vec(a, x);
        if (!aligned_vec(a + 16u, y) || !got) return false;
    } else {
        const bool got = src16(a, true, x); // both, so that the carry moves on
        if (!src16(a + 16u, true, y) || !got) return false;
    }
    v = even_elements(x, y);
    return true;
}

bool row_elem(uint j, out uvec2 x)
{
    x = load_src(g_Bf + j * g_src_step);
    return true;
}

#include "gather_main.glsl"
#include "gather_tiles.glsl"

#if DM_VARIANT == 9
// V_TILES (gather_tiles.glsl): element j of a row at sb + j * step, or, with step -1,
// backwards from sb.
bool tile_row(uint sb, uint ab, uint axis, out uint P, out uint Bb, out uint Bf)
{
    P = g_src_step == 0u - ESIZE ? 0xffffffffu : 0u;
    Bb = Bf = sb;
    return true;
}
uint tile_step() { return g_src_step; }
bool tile_src_in(uint j, uint P, uint Bb) { return true; }
void tile_main() { tiles_rows_main(); }
#endif
#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
