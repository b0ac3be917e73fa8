#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// DML_REVERSE_SUBSEQUENCES: along the axis, out[i] = in[L-1-i] for i < L, else in[i].
// sb addresses the row with axis coordinate 0; the source axis coordinate is added here.
// When the axis is too long for one window the host binds several input windows
// [P_WIN_LO, P_WIN_HI) over the same output piece, and each element is written by the
// dispatch whose window holds its source.
#include "gather_common.glsl"

uint read_length(uint a, uint n)
{
    uint type = g_aux_type;
    uint lo = aux_word(a), hi = aux_high(a, type);
    bool negative = (type == AUX_I32 && int(lo) < 0) || (type == AUX_I64 && int(hi) < 0);
    if (negative) return 0u;           // a negative length counts as 0
    if (hi != 0u) return n;            // >= 2^32: clamps to the axis
    return min(lo, n);
}

void load_op() {}

bool fetch_word(uint sb, uint j0, out uint bits)
{
    bits = 0u;
    return false;
}

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    bool axis_last = g_axis == g_last;
    uint la = ab + j * g_aux_step;
    if (la != g_aux_addr) {
        g_aux_addr = la;
        g_aux_value = read_length(la, g_n);
    }
    uint L = g_aux_value;
    uint i = axis_last ? g_axis_origin + j : row_axis;
    uint s = i < L ? L - 1u - i : i;
    v = uvec2(0u);
    if (s < g_win_lo || s >= g_win_hi) return false;
    uint a = sb + s * g_axis_src_stride;
    if (!axis_last) a += j * g_src_step;
    v = load_src(a);
    return true;
}

#include "gather_main.glsl"
