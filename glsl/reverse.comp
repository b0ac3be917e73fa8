#version 450
#extension GL_GOOGLE_include_directive : require
// DML_REVERSE_SUBSEQUENCES: along the axis, out[i] = in[L-1-i] for i < L, else in[i].
// sb addresses the row with axis coordinate 0; the source axis coordinate is added here.
// When the axis is too long for one window the host binds several input windows
// [P_WIN_LO, P_WIN_HI) over the same output piece, and each element is written by the
// dispatch whose window holds its source.
#include "gather_common.glsl"

uint read_length(uint a, uint n)
{
    uint type = p[P_AUX_TYPE];
    uint lo = aux_word(a), hi = aux_high(a, type);
    bool negative = (type == AUX_I32 && int(lo) < 0) || (type == AUX_I64 && int(hi) < 0);
    if (negative) return 0u;           // a negative length counts as 0
    if (hi != 0u) return n;            // >= 2^32: clamps to the axis
    return min(lo, n);
}

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    uint last = p[P_RANK] - 1u, n = p[P_N];
    bool axis_last = p[P_AXIS] == last;
    uint L = read_length(ab + j * p[P_AUX_STRIDE + last], n);
    uint i = axis_last ? p[P_AXIS_ORIGIN] + j : row_axis;
    uint s = i < L ? L - 1u - i : i;
    v = uvec2(0u);
    if (s < p[P_WIN_LO] || s >= p[P_WIN_HI]) return false;
    uint a = sb + s * p[P_AXIS_SRC_STRIDE];
    if (!axis_last) a += j * p[P_SRC_STRIDE + last];
    v = load_src(a);
    return true;
}

#include "gather_main.glsl"
