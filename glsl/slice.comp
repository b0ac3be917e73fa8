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

// FAST (the host checks the step, dm_kernel_fast): rows that run one element forwards or
// backwards are streams; other steps gather: 4- and 8-byte elements one load each, 1- and
// 2-byte elements with step 2 (and on the texel path 4- and 8-byte ones too) from the 32
// bytes that hold them (two vector loads, then every second element).
void row_begin(uint sb, uint ab, uint row_axis)
{
    g_P = g_src_step == ESIZE ? 0u : 0xffffffffu;
    g_Bb = g_Bf = sb;
}

// Even-numbered bytes (or 16-bit halves) of x then y, as one word.
uint even_halves(uint x, uint y) { return (x & 0xffffu) | (y << 16u); }
uint even_bytes(uint x, uint y) { return (x & 0xffu) | ((x >> 8u) & 0xff00u) | ((y & 0xffu) << 16u) | ((y << 8u) & 0xff000000u); }

bool chunk_vec(uint j0, out uvec4 v)
{
    v = uvec4(0u);
    if (g_src_step == ESIZE || g_src_step == 0u - ESIZE) return stream_vec(j0, v);
    const uint a = g_Bf + j0 * g_src_step;
    // Step 2 of 4- and 8-byte elements on the texel path: two vector loads and every second
    // element beat four separate word loads there.
    const bool pairs = TEXEL && g_src_step == 2u * ESIZE;
    if (ESIZE == 8u && !pairs) {
        v = uvec4(src2[a >> 3u], src2[(a + g_src_step) >> 3u]);
        return true;
    }
    if (ESIZE == 4u && !pairs) {
        v = uvec4(src[a >> 2u], src[(a + g_src_step) >> 2u], src[(a + 2u * g_src_step) >> 2u],
                  src[(a + 3u * g_src_step) >> 2u]);
        return true;
    }
    uvec4 x, y;
    if (!src16(a, x) || !src16(a + 16u, y)) return false;
    if (ESIZE == 8u) v = uvec4(x.xy, y.xy);
    else if (ESIZE == 4u) v = uvec4(x.xz, y.xz);
    else if (ESIZE == 2u) v = uvec4(even_halves(x.x, x.y), even_halves(x.z, x.w), even_halves(y.x, y.y), even_halves(y.z, y.w));
    else v = uvec4(even_bytes(x.x, x.y), even_bytes(x.z, x.w), even_bytes(y.x, y.y), even_bytes(y.z, y.w));
    return true;
}

bool row_elem(uint j, out uvec2 x)
{
    x = load_src(g_Bf + j * g_src_step);
    return true;
}

#include "gather_main.glsl"
