#version 450
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

layout(push_constant) uniform Push {
    uint dst_at;
    uint src_at;
    uint count;
} pc;

void main()
{
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        if (TEXEL) dst[pc.dst_at + i] = texelFetch(SrcT, int(pc.src_at + i));
        else dst[pc.dst_at + i] = src[pc.src_at + i];
    }
}
