#version 450
#extension GL_GOOGLE_include_directive : require
// The plain compute copy: dmlops_command_list_record_compute_copy, which `dmlops bench`
// measures beside every kernel case as the device's copy-shader ceiling. It is
// deliberately the simplest copy there is: one uvec4 per invocation, 64 invocations per
// workgroup, and a grid-stride loop when the host caps the grid (65535 workgroups).
// TEXEL loads the uvec4s from a texel buffer, as the gather kernels do on devices where
// that is faster (gather_common.glsl), so the ceiling is never slower than the path the
// kernels take.
// Bindings, push constants and the constant id mirror src/vk/vk_abi.h (DM_COPY_*,
// dm_vk_copy_push); test/test_abi.c checks that they agree. Everything is counted in
// 16-byte vectors; the host binds each window at its aligned-down start and puts the
// remainder in dst_at/src_at.

layout(local_size_x = 64) in;
layout(constant_id = 0) const bool TEXEL = false;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { uvec4 dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 2) uniform usamplerBuffer SrcT;

// tdispatch, tbase_dst and tbase_src are read only by the trace build (trace.glsl).
layout(push_constant) uniform Push {
    uint dst_at;
    uint src_at;
    uint count;
    uint tdispatch;
    uint tbase_dst;
    uint tbase_src;
} pc;

// The access trace (trace.glsl): the Trace buffer's binding (DM_COPY_BINDING_TRACE) and
// this file's sites.
#define DM_TRACE_BINDING 3
#define DM_SITE_FILE 4
#include "trace.glsl"
#ifdef DM_TRACE
uvec4 ld_src_(uint q, uint s) { dm_trace(s, 1u, pc.tbase_src + q * 16u, 4u, TR_LOAD); return src[q]; }
uvec4 tx_src_(uint q, uint s) { dm_trace(s, 1u, pc.tbase_src + q * 16u, 4u, TR_LOAD); return texelFetch(SrcT, int(q)); }
void st_dst_(uint q, uvec4 v, uint s) { dm_trace(s, 0u, pc.tbase_dst + q * 16u, 4u, TR_STORE); dst[q] = v; }
#define LD_SRC(q) ld_src_(q, DM_SITE)
#define TX_SRC(q) tx_src_(q, DM_SITE)
#define ST_DST(q, v) st_dst_(q, v, DM_SITE)
#else
#define LD_SRC(q) src[q]
#define TX_SRC(q) texelFetch(SrcT, int(q))
#define ST_DST(q, v) (dst[q] = (v))
#endif

void main()
{
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        if (TEXEL) ST_DST(pc.dst_at + i, TX_SRC(pc.src_at + i));
        else ST_DST(pc.dst_at + i, LD_SRC(pc.src_at + i));
    }
}
