#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// DML_SLICE1 (and any affine gather): out[c] = in[base + sum(c * step)].
#include "gather_common.glsl"

void load_op() {}

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    v = load_src(sb + j * g_src_step);
    return true;
}

#include "gather_main.glsl"
