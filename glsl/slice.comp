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

// FAST: rows run one element forwards or backwards (the host checks the step).
void row_begin(uint sb, uint ab, uint row_axis)
{
    g_P = g_src_step == ESIZE ? 0u : 0xffffffffu;
    g_Bb = g_Bf = sb;
}
bool chunk_vec(uint j0, out uvec4 v) { return stream_vec(j0, v); }
bool row_elem(uint j, out uvec2 x)
{
    x = stream_elem(j);
    return true;
}

#include "gather_main.glsl"
