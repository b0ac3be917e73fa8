// The access trace (DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES, include/dmlops.h): with DM_TRACE
// defined, the build the library runs on a tracing context, every buffer access of a
// kernel also appends one record to the Trace buffer, from which the host counts what a
// GPU's memory system would see (src/vk/vk_trace.c): the accesses one access site makes
// in one warp of 32 invocations, the k-th time each lane reaches it, are one request, and
// each request touches some 32-byte sectors. Without DM_TRACE this file declares nothing,
// and the kernels' modules are what they were.
//
// The includer defines DM_TRACE_BINDING (the Trace buffer's binding) and, before it
// includes this, a push-constant block `pc` with tdispatch (the dispatch's index in the
// traced submission) and the byte offset of each bound window in its VkBuffer, which its
// accessors add to the addresses they trace, so that sectors are counted at the
// addresses the memory sees. Both are pushed always and read only by the trace build.
//
// Sites: DM_SITE is unique per access in the source: the line, plus 1024 times the
// number of the file it is in (DM_SITE_FILE, set by each file: 1 gather_common.glsl,
// 2 the kernel's own .comp, 3 gather_main.glsl, 4 copy.comp, 5 gather_tiles.glsl;
// glslang's __FILE__ is 0 in every included file), within the record's 14 bits: 16 files
// of up to 1024 lines, which a check at the end of each file holds it to.
#define DM_SITE (uint(DM_SITE_FILE) * 1024u + uint(__LINE__))

// Record: invocation in the grid; its access count so far (program order); site (14 bits)
// | slot << 14 | log2(bytes) << 16 | kind << 19 | dispatch << 21; byte address.
const uint TR_LOAD = 0u, TR_STORE = 1u, TR_ATOMIC = 2u;

#ifdef DM_TRACE
layout(std430, set = 0, binding = DM_TRACE_BINDING) buffer Trace {
    uint trace_count;   // records appended, including those past the buffer's end (lost)
    uint trace_wrapped; // 1 once trace_count passed 2^31: it may have wrapped (the host refuses)
    uint trace_pad[2];
    uvec4 trace_rec[];
};

uint g_trace_seq = 0u;

// An access at byte address `at` of the slot's VkBuffer (its window's offset included).
void dm_trace(uint site, uint slot, uint at, uint log2_bytes, uint kind)
{
    const uint inv = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                     gl_LocalInvocationID.x;
    const uint i = atomicAdd(trace_count, 1u);
    if (i >= 0x80000000u) trace_wrapped = 1u; // far past any buffer (2^28 records at most)
    if (i < uint(trace_rec.length()))
        trace_rec[i] = uvec4(inv, g_trace_seq,
                             (site & 0x3fffu) | (slot << 14u) | (log2_bytes << 16u) | (kind << 19u) | (pc.tdispatch << 21u),
                             at);
    g_trace_seq++;
}
#endif
