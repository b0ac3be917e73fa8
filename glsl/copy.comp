#version 450
#extension GL_GOOGLE_include_directive : require
// The compute copy: dmlops_command_list_record_compute_copy(_shaped), which `dmlops bench`
// measures beside every kernel case as the device's copy-shader ceiling. It is kept the
// simplest copy there is. Its shape comes from specialisation constants:
// - VECTORS uvec4s per invocation per step of the grid, every load issued before the first
//   store, so that each invocation has VECTORS loads in flight (memory-bound kernels need
//   several per thread to fill a GPU's memory pipeline: docs/performance.md);
// - the workgroup size (local_size_x_id; 64 when not specialised).
// With G invocations in the dispatch, invocation i moves vectors s + i + k G (k < VECTORS)
// of the step starting at vector s, so neighbouring invocations always touch neighbouring
// 16-byte vectors, and each strides by the whole step (VECTORS x G) past the grid.
// VECTORS = 1 with 64 invocations per workgroup is the plain copy.
// TEXEL loads the uvec4s from a texel buffer, as the gather kernels do on devices where
// that is faster (gather_common.glsl), so the ceiling is never slower than the path the
// kernels take.
// Bindings, push constants and the constant ids mirror src/vk/vk_abi.h (DM_COPY_*,
// dm_vk_copy_push); test/test_abi.c checks that they agree. Everything is counted in
// 16-byte vectors; the host binds each window at its aligned-down start and puts the
// remainder in dst_at/src_at.

layout(local_size_x = 64, local_size_x_id = 2) in;
layout(constant_id = 0) const bool TEXEL = false;
layout(constant_id = 1) const uint VECTORS = 1;

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

// Vector i of the source window (one load site per call site for the trace).
#define LOAD(i) (TEXEL ? TX_SRC(pc.src_at + (i)) : LD_SRC(pc.src_at + (i)))

// Counts stay below 2^32: a window holds at most 2^27 vectors (2 GiB) and a step at most
// 8 x 65535 x 1024 < 2^29.
void main()
{
    const uint grid = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uvec4 v[8];
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += grid * VECTORS) {
        if (i + (VECTORS - 1) * grid < pc.count) { // a whole step: no test per vector
            for (uint k = 0; k < VECTORS; k++) v[k] = LOAD(i + k * grid);
            for (uint k = 0; k < VECTORS; k++) ST_DST(pc.dst_at + i + k * grid, v[k]);
        } else {
            for (uint k = 0; k < VECTORS; k++)
                if (i + k * grid < pc.count) v[k] = LOAD(i + k * grid);
            for (uint k = 0; k < VECTORS; k++)
                if (i + k * grid < pc.count) ST_DST(pc.dst_at + i + k * grid, v[k]);
        }
    }
}
#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
