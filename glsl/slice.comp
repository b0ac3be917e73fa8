#version 450
#extension GL_GOOGLE_include_directive : require
// DML_SLICE1 (and any affine gather): out[c] = in[base + sum(c * step)].
#include "gather_common.glsl"

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    v = load_src(sb + j * p[P_SRC_STRIDE + p[P_RANK] - 1u]);
    return true;
}

#include "gather_main.glsl"
