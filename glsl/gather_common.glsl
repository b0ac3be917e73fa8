// Shared by the three gather kernels. Every kernel computes output elements from their
// coordinates; the operator-specific part is fetch(). Layout of a piece's parameters
// (one 64-word record per descriptor set) mirrors src/vk/vk_abi.h; test/test_abi.c
// checks that the two agree on every name, value, binding and offset.
// Every kernel runs as many invocations in lock-step on a CPU device too (lavapipe: 8 lanes
// of AVX2). There a branch does not skip code: both sides run with lanes masked, and each
// storage-buffer access is a loop over the lanes. So the hot loops carry as few accesses
// as possible (one vector load and one vector store per 16 output bytes) and everything
// rare (row edges, partial words, window edges) runs after them, once per batch of runs.
//
// No optional device feature is used: elements of 1, 2 and 8 bytes move as 32-bit
// words, all index math is 32-bit, and addresses are byte offsets inside the bound
// window (the host keeps every window below maxStorageBufferRange, so they fit).

// The access trace (trace.glsl): this file's sites, and the Trace buffer's binding
// (DM_BINDING_TRACE in src/vk/vk_abi.h).
#define DM_SITE_FILE 1
#define DM_TRACE_BINDING 9

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ESIZE = 4u;
// Consecutive units one invocation handles before stepping over the grid: 1 keeps
// neighbouring lanes on neighbouring addresses (GPUs); CPU devices prefer long runs,
// which amortise the coordinate bookkeeping.
layout(constant_id = 2) const uint RUN = 1u;
// The piece binds only part of REVERSE's axis (the host splits the axis over several
// source windows, each piece writing the elements whose source lies in its window), and
// the kernel's chunk_vec may then leave a chunk whole but for such elements (REVERSE's
// COLUMNS): the fast path stores the others under a byte mask (g_part_mask, with
// store_masked in fast_row) instead of sending the chunk element by element. Id 3 was
// the variant's once.
layout(constant_id = 3) const bool PARTIAL = false;
// How AUX elements (lengths, indices) are decoded: AUX_U32 .. AUX_I64 below. A constant,
// so that 32-bit ones load no high word and unsigned ones test no sign.
layout(constant_id = 4) const uint AUX_TYPE = 0u;
// Consecutive invocations that share a run of a row on the fast path (a power of two):
// lane l of LANES takes chunks l, l + LANES, ... of a run of RUN * LANES chunks, so the
// lanes a CPU device runs in lock-step load and store neighbouring vectors (lavapipe: 128
// contiguous bytes per access instead of eight places a run apart). 1 on GPUs, where a
// run is one chunk and neighbouring invocations already take neighbouring chunks.
layout(constant_id = 5) const uint LANES = 1u;
// The fast path's source vectors start on 16-byte boundaries (the host's finding for the
// whole gather, dm_kernel_src_aligned): a chunk's vectors are loaded as they are, with no
// funnel shift and no carry; a chunk whose source is not aligned after all (a piece of a
// row cut elsewhere) goes element by element. SLICE1's STREAM and PAIRS, and REVERSE's
// COLUMNS (each element then at a constant word and shift of its row's texel).
layout(constant_id = 6) const bool ALIGNED = false;
// Units (the fast path's, units_main) and runs (the flat walk's, flat_lanes) whose leftover
// chunks wait for one element-by-element pass: 8 on CPU devices (lavapipe, below); on GPUs
// 1, where a branch no lane takes costs nothing and a batch's chunk masks would hold
// registers (V3D spilled 36 of REVERSE ALONG's with 8, wide rows' 32 lanes then batching).
layout(constant_id = 9) const uint PEND = 1u;
// A stream carries the vector two neighbouring chunks share from one to the next (src16)
// on CPU devices only: lavapipe cannot skip a load behind a branch, so there a chunk that
// might fetch two vectors pays for both. On GPUs a lane's chunks are one (RUN 1) or a
// run's lanes apart (wide rows), so nothing would be carried, and the carried vector and
// its index, held across the unit loop, cost Intel its SIMD16 build (REVERSE ALONG).
const bool CARRY = PEND > 1u;

// PARTIAL: set by chunk_vec when it refused its chunk only because some elements' sources
// lie outside the piece's window; the chunk's other bytes (g_part_mask, a byte mask per
// word) are right in its vector.
bool g_part;
uvec4 g_part_mask;
// ROW_DIMS, VARIANT and TEXEL are build-time constants, not specialisation constants:
// the Makefile compiles each kernel once per combination (-DDM_ROW_DIMS=1|3|7
// -DDM_VARIANT=V_* -DDM_TEXEL=0|1, only the variants the kernel has) and removes the
// other paths' branches and functions with spirv-opt before a driver sees them.
// lavapipe caches no compiled code and runs its NIR passes over the whole module for
// every pipeline, before it folds specialisation constants' dead branches away, so
// creation time follows module size: with ROW_DIMS and FAST built in, a pipeline took
// 29-45 ms instead of 33-56; with the variant built in too, a SLICE1 fast-path module
// shrank from 69 to 46 KB and its creation from 24-30 to 15 ms (docs/design.md,
// "Kernels"; spirv-opt -O would shrink them further, but its inlining slowed
// lavapipe's SLICE1 kernels by 15-35%).
//
// Row dimensions (all but the innermost) the kernel handles: 1, 3 or 7. Pipelines exist
// per bucket so that short ranks, the usual case after collapsing, carry no dead
// dimensions through the per-element bookkeeping.
const int ROW_DIMS = DM_ROW_DIMS;
// The layout's fast path (gather_main.glsl, vec_main): the output's rows are contiguous
// and each kernel says how a row's 16-byte chunks are made from whole vectors of the
// source (rows that run forwards or backwards, ONE_HOT's Off/On patterns). The host sets
// it when the gather fits; otherwise the general element-and-word path runs.
const bool FAST = DM_VARIANT != 0;
// The hot loops load their 16-byte source vectors from a texel buffer (Src4T: the same
// window as Src4, seen as rgba32ui texels) instead of the storage buffer. lavapipe fetches
// a texel with vector code but loads a storage-buffer uvec4 lane by lane, component by
// component: a copy with texel loads and storage-buffer stores runs 3.5x faster there
// (docs/design.md; texel stores were slower than storage-buffer stores, so stores stay).
// The host sets it per device class (dm_vk_limits.texel), and the bound texel view holds
// exactly as many texels as the storage-buffer window holds uvec4s, or is a dummy when
// that number is 0, so the bounds checks against src4 cover both.
const bool TEXEL = DM_TEXEL != 0;

// The piece's parameter record, a uniform buffer: every word the kernels read is at an
// index known when the pipeline is compiled, so each read is one scalar load for the
// whole workgroup rather than one per invocation (lavapipe loads storage buffers lane by
// lane; uniform blocks it broadcasts). Each word is its own member (std140 packs scalar
// members 4 bytes apart, where an array strides by 16), read by constant index: a
// uvec4[32] read as p4[i / 4][i % 4] (a constant index into a vector) made NIR's
// load/store vectorizer divide by zero on Adreno (turnip, Mesa 22.3: it takes a vector's
// component stride as 0) and killed the process compiling REVERSE and ONE_HOT, and the
// same array read a whole uvec4 at a time left V3D holding each vector's four words in
// registers from its first use on (32 a thread; 37 of REVERSE along rows' spills).
layout(std140, set = 0, binding = 0) uniform Params {
    uint w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15;
    uint w16, w17, w18, w19, w20, w21, w22, w23, w24, w25, w26, w27, w28, w29, w30, w31;
    uint w32, w33, w34, w35, w36, w37, w38, w39, w40, w41, w42, w43, w44, w45, w46, w47;
    uint w48, w49, w50, w51, w52, w53, w54, w55, w56, w57, w58, w59, w60, w61, w62, w63;
    uint w64, w65, w66, w67, w68, w69, w70, w71, w72, w73, w74, w75, w76, w77, w78, w79;
    uint w80, w81, w82, w83, w84, w85, w86, w87, w88, w89, w90, w91, w92, w93, w94, w95;
    uint w96, w97, w98, w99, w100, w101, w102, w103, w104, w105, w106, w107, w108, w109, w110, w111;
    uint w112, w113, w114, w115, w116, w117, w118, w119, w120, w121, w122, w123, w124, w125, w126, w127;
};
// Word i of the record (i constant wherever it is called: the switch folds to one load).
uint p(uint i)
{
    switch (i) {
    case 0u: return w0; case 1u: return w1; case 2u: return w2; case 3u: return w3; case 4u: return w4; case 5u: return w5; case 6u: return w6; case 7u: return w7;
    case 8u: return w8; case 9u: return w9; case 10u: return w10; case 11u: return w11; case 12u: return w12; case 13u: return w13; case 14u: return w14; case 15u: return w15;
    case 16u: return w16; case 17u: return w17; case 18u: return w18; case 19u: return w19; case 20u: return w20; case 21u: return w21; case 22u: return w22; case 23u: return w23;
    case 24u: return w24; case 25u: return w25; case 26u: return w26; case 27u: return w27; case 28u: return w28; case 29u: return w29; case 30u: return w30; case 31u: return w31;
    case 32u: return w32; case 33u: return w33; case 34u: return w34; case 35u: return w35; case 36u: return w36; case 37u: return w37; case 38u: return w38; case 39u: return w39;
    case 40u: return w40; case 41u: return w41; case 42u: return w42; case 43u: return w43; case 44u: return w44; case 45u: return w45; case 46u: return w46; case 47u: return w47;
    case 48u: return w48; case 49u: return w49; case 50u: return w50; case 51u: return w51; case 52u: return w52; case 53u: return w53; case 54u: return w54; case 55u: return w55;
    case 56u: return w56; case 57u: return w57; case 58u: return w58; case 59u: return w59; case 60u: return w60; case 61u: return w61; case 62u: return w62; case 63u: return w63;
    case 64u: return w64; case 65u: return w65; case 66u: return w66; case 67u: return w67; case 68u: return w68; case 69u: return w69; case 70u: return w70; case 71u: return w71;
    case 72u: return w72; case 73u: return w73; case 74u: return w74; case 75u: return w75; case 76u: return w76; case 77u: return w77; case 78u: return w78; case 79u: return w79;
    case 80u: return w80; case 81u: return w81; case 82u: return w82; case 83u: return w83; case 84u: return w84; case 85u: return w85; case 86u: return w86; case 87u: return w87;
    case 88u: return w88; case 89u: return w89; case 90u: return w90; case 91u: return w91; case 92u: return w92; case 93u: return w93; case 94u: return w94; case 95u: return w95;
    case 96u: return w96; case 97u: return w97; case 98u: return w98; case 99u: return w99; case 100u: return w100; case 101u: return w101; case 102u: return w102; case 103u: return w103;
    case 104u: return w104; case 105u: return w105; case 106u: return w106; case 107u: return w107; case 108u: return w108; case 109u: return w109; case 110u: return w110; case 111u: return w111;
    case 112u: return w112; case 113u: return w113; case 114u: return w114; case 115u: return w115; case 116u: return w116; case 117u: return w117; case 118u: return w118; case 119u: return w119;
    case 120u: return w120; case 121u: return w121; case 122u: return w122; case 123u: return w123; case 124u: return w124; case 125u: return w125; case 126u: return w126; case 127u: return w127;
    default: return 0u;
    }
}
// The same record as 16-byte vectors, for the words read at an index known only at run
// time (row_at_loop's row dimensions): the block above folds every word to a constant
// load, which a compiler may hoist out of the loops around it into a register.
layout(std140, set = 0, binding = 0) uniform ParamsV { uvec4 pv[32]; };
uint p_at(uint i) { return pv[i >> 2u][i & 3u]; }
layout(std430, set = 0, binding = 1) buffer Dst { uint dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Src { uint src[]; };
// The same two windows seen as 16-byte vectors: whole-vector accesses move data several
// times faster than words on every device we know (lavapipe: 32 GB/s against 1.8 GB/s).
layout(std430, set = 0, binding = 1) buffer Dst4 { uvec4 dst4[]; };
layout(std430, set = 0, binding = 2) readonly buffer Src4 { uvec4 src4[]; };
// 8-byte elements as one access each (their addresses are multiples of 8 in the window).
layout(std430, set = 0, binding = 2) readonly buffer Src2 { uvec2 src2[]; };
layout(set = 0, binding = 5) uniform usamplerBuffer Src4T;
// The AUX window as 4-byte texels (R32_UINT), for the same reason: a row's length or
// index is one texel fetch instead of a lane-by-lane load (ONE_HOT with depth 16 reads
// one per 16 output bytes). Exactly as many texels as Aux has words.
layout(set = 0, binding = 6) uniform usamplerBuffer AuxT;
// The AUX window again, as the whole 16-byte texels it holds, for ONE_HOT (its indices)
// and REVERSE's COLUMNS (a chunk's lengths); a dummy for the others (the host binds it
// where dm_kernel_aux_vectors says). A lock-step batch of lanes fetches eight 16-byte
// texels with plain vector loads, where eight R32 texels are one hardware gather, which
// stalled ONE_HOT with depth 16 on its index reads (lavapipe, Zen 5: UINT8 0.76-0.82x the
// compute copy, 0.97-1.05x this way). What lies past the last whole texel goes through
// AuxT: ONE_HOT's last rows (one_hot.comp), COLUMNS's chunks element by element (fetch).
layout(set = 0, binding = 7) uniform usamplerBuffer Aux4T;
// The SRC window as 4-byte texels (R32_UINT), for REVERSE's COLUMNS of 1- to 4-byte
// elements, each of which comes from its own row: a lock-step batch of lanes fetches one
// word each (a vpgatherdd on lavapipe) where a 16-byte texel costs each lane a 16-byte load
// and the batch a transpose (docs/design.md). A dummy for the others (the host binds it
// where dm_kernel_src_words says); as many texels as Src has words.
layout(set = 0, binding = 8) uniform usamplerBuffer SrcWT;
layout(std430, set = 0, binding = 3) readonly buffer Aux { uint aux[]; };
// The same window as 16-byte vectors: a lane reads several lengths or indices at once.
layout(std430, set = 0, binding = 3) readonly buffer Aux4 { uvec4 aux4[]; };
layout(std430, set = 0, binding = 4) readonly buffer Aux2 { uint aux2[]; };

// Dynamic per-dispatch values: the byte remainders of the aligned-down windows; then,
// read only by the trace build (trace.glsl), each window's offset in its VkBuffer and
// the dispatch's index in the traced submission; then the dispatch's first workgroup in
// the piece's virtual grid and that grid's workgroups (grid_group below).
layout(push_constant) uniform Push {
    uint rem_dst;
    uint rem_src;
    uint rem_aux;
    uint rem_aux2;
    uint tbase_dst;
    uint tbase_src;
    uint tbase_aux;
    uint tbase_aux2;
    uint tdispatch;
    uint group0;
    uint vgroups;
} pc;

// The piece's virtual grid (src/vk/vk_plan.c, dm_vk_piece): every loop over a piece's work
// strides over pc.vgroups workgroups, of which this dispatch runs those from pc.group0
// on. The planner sizes it so that no invocation loops more than a bounded number of
// times (lavapipe ends an invocation's loops after 65535 iterations in all) and no
// dispatch moves more than a bounded number of bytes (a GPU's watchdog), whatever the
// tuning and the tensor. A 2-D grid of 1-D workgroups: the host spreads more than 65535
// groups over y.
uint grid_group() { return pc.group0 + gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
uint grid_groups() { return pc.vgroups; }
// This invocation's index in the virtual grid, and the grid's size in invocations.
uint grid_invocation() { return grid_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x; }
uint grid_size() { return pc.vgroups * gl_WorkGroupSize.x; }

#include "trace.glsl"

// ---- buffer accesses ---------------------------------------------------------------
// Every access to a data binding goes through these, so that the trace build records it
// (trace.glsl, the access model of include/dmlops.h); in the other builds they are the
// plain accesses. Slots: 0 DST, 1 SRC, 2 AUX, 3 AUX2 (src/gather.h). Arguments are
// evaluated twice in the trace build: pass expressions without side effects.
#ifdef DM_TRACE
uint ld_src_(uint w, uint s) { dm_trace(s, 1u, pc.tbase_src + w * 4u, 2u, TR_LOAD); return src[w]; }
uvec2 ld_src2_(uint i, uint s) { dm_trace(s, 1u, pc.tbase_src + i * 8u, 3u, TR_LOAD); return src2[i]; }
uvec4 ld_src4_(uint q, uint s) { dm_trace(s, 1u, pc.tbase_src + q * 16u, 4u, TR_LOAD); return src4[q]; }
uint ld_aux_(uint w, uint s) { dm_trace(s, 2u, pc.tbase_aux + w * 4u, 2u, TR_LOAD); return aux[w]; }
uvec4 ld_aux4_(uint q, uint s) { dm_trace(s, 2u, pc.tbase_aux + q * 16u, 4u, TR_LOAD); return aux4[q]; }
uint ld_aux2_(uint w, uint s) { dm_trace(s, 3u, pc.tbase_aux2 + w * 4u, 2u, TR_LOAD); return aux2[w]; }
void st_dst_(uint w, uint x, uint s) { dm_trace(s, 0u, pc.tbase_dst + w * 4u, 2u, TR_STORE); dst[w] = x; }
void st_dst4_(uint c, uvec4 v, uint s) { dm_trace(s, 0u, pc.tbase_dst + c * 16u, 4u, TR_STORE); dst4[c] = v; }
void and_dst_(uint w, uint m, uint s) { dm_trace(s, 0u, pc.tbase_dst + w * 4u, 2u, TR_ATOMIC); atomicAnd(dst[w], m); }
void or_dst_(uint w, uint m, uint s) { dm_trace(s, 0u, pc.tbase_dst + w * 4u, 2u, TR_ATOMIC); atomicOr(dst[w], m); }
uvec4 tx_src4_(uint q, uint s) { dm_trace(s, 1u, pc.tbase_src + q * 16u, 4u, TR_LOAD); return texelFetch(Src4T, int(q)); }
uint tx_srcw_(uint w, uint s) { dm_trace(s, 1u, pc.tbase_src + w * 4u, 2u, TR_LOAD); return texelFetch(SrcWT, int(w)).x; }
uint tx_aux_(uint w, uint s) { dm_trace(s, 2u, pc.tbase_aux + w * 4u, 2u, TR_LOAD); return texelFetch(AuxT, int(w)).x; }
uvec4 tx_aux4_(uint q, uint s) { dm_trace(s, 2u, pc.tbase_aux + q * 16u, 4u, TR_LOAD); return texelFetch(Aux4T, int(q)); }
#define LD_SRC(w) ld_src_(w, DM_SITE)
#define LD_SRC2(i) ld_src2_(i, DM_SITE)
#define LD_SRC4(q) ld_src4_(q, DM_SITE)
#define LD_AUX(w) ld_aux_(w, DM_SITE)
#define LD_AUX4(q) ld_aux4_(q, DM_SITE)
#define LD_AUX2(w) ld_aux2_(w, DM_SITE)
#define ST_DST(w, x) st_dst_(w, x, DM_SITE)
#define ST_DST4(c, v) st_dst4_(c, v, DM_SITE)
#define AND_DST(w, m) and_dst_(w, m, DM_SITE)
#define OR_DST(w, m) or_dst_(w, m, DM_SITE)
#define TX_SRC4(q) tx_src4_(q, DM_SITE)
#define TX_SRCW(w) tx_srcw_(w, DM_SITE)
#define TX_AUX(w) tx_aux_(w, DM_SITE)
#define TX_AUX4(q) tx_aux4_(q, DM_SITE)
#else
#define LD_SRC(w) src[w]
#define LD_SRC2(i) src2[i]
#define LD_SRC4(q) src4[q]
#define LD_AUX(w) aux[w]
#define LD_AUX4(q) aux4[q]
#define LD_AUX2(w) aux2[w]
#define ST_DST(w, x) (dst[w] = (x))
#define ST_DST4(c, v) (dst4[c] = (v))
#define AND_DST(w, m) atomicAnd(dst[w], m)
#define OR_DST(w, m) atomicOr(dst[w], m)
#define TX_SRC4(q) texelFetch(Src4T, int(q))
#define TX_SRCW(w) texelFetch(SrcWT, int(w)).x
#define TX_AUX(w) texelFetch(AuxT, int(w)).x
#define TX_AUX4(q) texelFetch(Aux4T, int(q))
#endif

// Indices into the record (src/vk/vk_abi.h).
const uint P_RANK = 0u, P_UNITS = 1u, P_MODE = 2u, P_PER_ROW = 3u, P_AXIS = 4u, P_AXIS_ORIGIN = 5u,
           P_N = 6u, P_WIN_LO = 7u, P_WIN_HI = 8u, P_PHASED = 9u, P_DST_BASE = 10u, P_SRC_BASE = 11u,
           P_AUX_BASE = 12u, P_M = 13u, P_AXIS_SRC_STRIDE = 14u, P_SRC_STEP = 15u, P_SIZE = 16u, P_DST_STRIDE = 24u,
           P_SRC_STRIDE = 32u, P_AUX_STRIDE = 40u, P_TILE_CHUNKS = 48u, P_TILES = 49u, P_TILE_PER = 50u,
           P_TILE_MAGIC = 51u, P_TILE_SHIFTS = 52u, P_TILE_STEP_ROWS = 53u, P_TILE_STEP_COLS = 54u,
           P_TILE_SPAN = 55u, P_SPAN_MAGIC = 56u, P_SPAN_SHIFTS = 57u, P_M_MAGIC = 58u, P_M_SHIFTS = 59u,
           P_ROWS = 60u, P_RUNS = 61u, P_RUNS_MAGIC = 62u, P_RUNS_SHIFTS = 63u, P_UNIT_ROWS = 64u, P_LANES = 65u,
           P_ITEMS = 66u, P_G_RUNS = 67u, P_G_RUNS_MAGIC = 68u, P_G_RUNS_SHIFTS = 69u, P_G_ITEMS = 70u,
           P_AUX_STEP = 71u, P_ROW_MAGIC = 72u, P_ROW_SHIFTS = 80u, P_DST_STEP = 88u;
const uint MODE_ELEMENT = 0u, MODE_VEC = 1u;
// Fast-path variants (VARIANT). SLICE1: rows that run one element forwards or backwards
// (STREAM), step 2 from the two vectors that hold a chunk's elements (PAIRS), any other
// step of 4- and 8-byte elements one load each (WORDS). REVERSE and ONE_HOT: the axis is
// the row's own dimension (ALONG) or one of the row dimensions (ACROSS). ONE_HOT along a
// row whose output rows lie end to end: the piece's output walked as one stream of
// chunks (FLAT; the kernel's own main, DM_FLAT_MAIN), or as whole rows when each row is
// a whole number of chunks long (FLAT_ROWS). REVERSE across the axis with a length per
// column: each element from the row its column's length picks (COLUMNS).
const uint V_GENERAL = 0u, V_STREAM = 1u, V_PAIRS = 2u, V_WORDS = 3u, V_ALONG = 4u, V_ACROSS = 5u, V_FLAT = 6u,
           V_FLAT_ROWS = 7u, V_COLUMNS = 8u, V_TILES = 9u, V_TILE_COLUMNS = 10u, V_TILE_HOT = 11u, V_TILE_ROWS = 12u;
// The module's variant (V_GENERAL: the general path): which of its kernel's ways of
// making a chunk the hot loop runs. lavapipe runs both sides of every branch with lanes
// masked, and a masked storage-buffer access still loops over the lanes, so a chunk
// function that merely might run costs about what one that runs does (SLICE1 with step
// -1 ran at half the speed of the compute copy while its word-gather code sat unused
// beside the stream): each module holds only the one its gather needs (src/vk/kernels.c,
// dm_kernel_variant).
const uint VARIANT = DM_VARIANT;
const uint NO_AXIS = 0xffffffffu;

// n / d for a divisor the host described (src/fastdiv.h: its magic number, and the shifts
// s1 | s2 << 8): one 32x32->64 multiply instead of the ~20-instruction sequence GPUs
// expand a division into. Exact for every 32-bit n.
uint fastdiv(uint n, uint magic, uint shifts)
{
    uint hi, lo;
    umulExtended(n, magic, hi, lo);
    return (hi + ((n - hi) >> (shifts & 0xffu))) >> (shifts >> 8u);
}

// Source vector q, through whichever path TEXEL chose (the caller has checked q against
// src4.length()).
uvec4 read4(uint q)
{
    if (TEXEL) return TX_SRC4(q);
    return LD_SRC4(q);
}

// An element of ESIZE bytes at byte address a, as up to two words.
#define DEFINE_LOAD(NAME, BUF, LD)                                                        \
    uvec2 NAME(uint a) {                                                                  \
        uint w = a >> 2u;                                                                 \
        if (w + (ESIZE == 8u ? 1u : 0u) >= uint(BUF.length())) return uvec2(0u);          \
        if (ESIZE == 8u) return uvec2(LD(w), LD(w + 1u));                                 \
        if (ESIZE == 4u) return uvec2(LD(w), 0u);                                         \
        return uvec2(bitfieldExtract(LD(w), int((a & 3u) * 8u), int(ESIZE * 8u)), 0u);    \
    }
DEFINE_LOAD(load_src, src, LD_SRC)
DEFINE_LOAD(load_aux, aux, LD_AUX)
DEFINE_LOAD(load_aux2, aux2, LD_AUX2)

uint aux_word(uint a)
{
    const uint w = a >> 2u;
    if (w >= uint(aux.length())) return 0u;
    if (TEXEL) return TX_AUX(w);
    return LD_AUX(w);
}

// Words the per-element functions use, read where they are used rather than kept in
// registers from the invocation's start: a record word costs a GPU a scalar or uniform
// load (V3D rematerialises it from its uniform stream), while a value held across the
// loops holds a register the whole time (V3D has 32 a thread).
#define g_last (p(P_RANK) - 1u)
#define g_src_step p(P_SRC_STEP)
#define g_aux_step p(P_AUX_STEP)
#define g_n p(P_N)
#define g_axis p(P_AXIS)
#define g_axis_origin p(P_AXIS_ORIGIN)
#define g_win_lo p(P_WIN_LO)
#define g_win_hi p(P_WIN_HI)
#define g_axis_src_stride p(P_AXIS_SRC_STRIDE)
void load_globals() {}

// The last aux element decoded (a length or an index) and its address: along a row the
// aux address rarely changes, so most elements skip the read.
uint g_aux_addr = 0xffffffffu, g_aux_value;

// The flat walk (FLAT: gather_main.glsl, flat_lanes): the piece's output rows of g_fm
// elements end to end from byte g_fdb; row r's source and aux start at g_fsb + r * g_fsstr
// and g_fab + r * g_fastr. Here so that a kernel's own flat_elem can use them.
uint g_fdb, g_fend, g_fsb, g_fab, g_fsstr, g_fastr, g_fm;
// Element f of the walk's row: f / g_fm, by the row length's magic number (src/fastdiv.h):
// the walk finds a run's first row with it, and on a GPU a run is one chunk.
uint fm_row(uint f) { return fastdiv(f, p(P_M_MAGIC), p(P_M_SHIFTS)); }

// ---- 16-byte vectors -------------------------------------------------------------

// The 16 bytes at byte offset s (0 .. 15) of the 32 bytes lo, hi: words s / 4 .. s / 4 + 4
// picked in two halving steps of selects, then funnel-shifted by the bytes left over.
// No branches, since lavapipe would run every side of them. Element addresses are
// multiples of ESIZE (bindings start at multiples of 16), so for 4- and 8-byte elements
// the constant folding drops the byte shift, and for 8-byte ones the odd-word step too.
uvec4 funnel(uvec4 lo, uvec4 hi, uint s)
{
    const bool two = (s & 8u) != 0u, one = ESIZE < 8u && (s & 4u) != 0u;
    const uvec4 a = two ? uvec4(lo.zw, hi.xy) : lo;  // words 2 * two .. + 3
    const uvec2 c = two ? hi.zw : hi.xy;             // and the two after them
    const uvec4 r = one ? uvec4(a.yzw, c.x) : a;
    if (ESIZE >= 4u) return r;
    const uint b = (s & 3u) * 8u, after = one ? c.y : c.x;
    return b == 0u ? r : (r >> b) | (uvec4(r.yzw, after) << (32u - b));
}

// The 16 bytes at byte address a of the source window, in memory order; false when they
// reach past the window's last whole vector (the caller then goes element by element).
bool src_vec(uint a, out uvec4 v)
{
    uint i = a >> 4u, s = a & 15u;
    v = uvec4(0u);
    if (i + (s != 0u ? 1u : 0u) >= uint(src4.length())) return false;
    uvec4 lo = read4(i);
    if (s == 0u) {
        v = lo;
        return true;
    }
    v = funnel(lo, read4(i + 1u), s);
    return true;
}

// The elements of a vector in reverse order.
uvec4 reverse_elements(uvec4 v)
{
    if (ESIZE == 8u) return v.zwxy;
    v = v.wzyx;
    if (ESIZE == 4u) return v;
    v = (v >> 16u) | (v << 16u);
    if (ESIZE == 2u) return v;
    return ((v >> 8u) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8u);
}

// Even-numbered bytes (or 16-bit halves) of x then y, as one word.
uint even_halves(uint x, uint y) { return (x & 0xffffu) | (y << 16u); }
uint even_bytes(uint x, uint y) { return (x & 0xffu) | ((x >> 8u) & 0xff00u) | ((y & 0xffu) << 16u) | ((y << 8u) & 0xff000000u); }

// Every second element of the 32 bytes x, y: a chunk of SLICE1 with step 2 (V_PAIRS,
// V_TILES).
uvec4 even_elements(uvec4 x, uvec4 y)
{
    if (ESIZE == 8u) return uvec4(x.xy, y.xy);
    if (ESIZE == 4u) return uvec4(x.xz, y.xz);
    if (ESIZE == 2u) return uvec4(even_halves(x.x, x.y), even_halves(x.z, x.w), even_halves(y.x, y.y), even_halves(y.z, y.w));
    return uvec4(even_bytes(x.x, x.y), even_bytes(x.z, x.w), even_bytes(y.x, y.y), even_bytes(y.z, y.w));
}

// One element value repeated over a vector.
uvec4 splat(uvec2 e)
{
    if (ESIZE == 8u) return uvec4(e, e);
    if (ESIZE == 4u) return uvec4(e.x);
    if (ESIZE == 2u) return uvec4((e.x & 0xffffu) * 0x10001u);
    return uvec4((e.x & 0xffu) * 0x01010101u);
}

// v with element e (0 .. 16/ESIZE - 1) replaced.
uvec4 with_element(uvec4 v, uint e, uvec2 x)
{
    uint byte = e * ESIZE, w = byte >> 2u;
    if (ESIZE == 8u) {
        v[w] = x.x;
        v[w + 1u] = x.y;
    } else if (ESIZE == 4u) {
        v[w] = x.x;
    } else {
        v[w] = bitfieldInsert(v[w], x.x, int((byte & 3u) * 8u), int(ESIZE * 8u));
    }
    return v;
}

// Aux element types (AUX_TYPE).
const uint AUX_U32 = 0u, AUX_I32 = 1u, AUX_U64 = 2u, AUX_I64 = 3u;

// Words of an 8-byte aux element: low at a, high at a + 4 (little-endian, like the host).
uint aux_high(uint a) { return AUX_TYPE >= AUX_U64 ? aux_word(a + 4u) : 0u; }

// ---- rows read as streams (the fast path of SLICE1 and REVERSE) ------------------------
//
// Element j of a row comes from one of two contiguous runs of the source: j < g_P reads
// backwards from byte g_Bb (element j at g_Bb - j * ESIZE), j >= g_P forwards from g_Bf
// (at g_Bf + j * ESIZE). SLICE1 with step 1 is all forwards (g_P = 0), with step -1 all
// backwards; REVERSE along a contiguous axis is backwards up to the sequence length and
// forwards past it. The 16 bytes of a chunk are one aligned vector, or two funnel-shifted.
// Consecutive chunks of a stream share one of their two vectors, so each chunk fetches
// one and takes the other from the previous chunk (the carry): lavapipe cannot skip a
// load behind a branch, so a chunk that might need a second fetch would always pay for
// it (two fetches per chunk ran SLICE1 with step -1 at 0.8x the compute copy, one at
// 0.95x). A run of chunks starts with chunk_prime, which fetches the carry its first
// chunk needs; a chunk whose carry does not hold what it needs (after a skipped chunk)
// reports itself undone and goes element by element.

uint g_P, g_Bb, g_Bf;
uint g_cq = 0xffffffffu; // the carried vector's index (unclamped), and the vector
uvec4 g_cv;

// Source vector q, or the window's last one when q lies past it (the caller never uses
// the value then: it only keeps the carry going), or zeros from an empty window.
uvec4 src4_clamped(uint q)
{
    const uint len = uint(src4.length());
    return len == 0u ? uvec4(0u) : read4(min(q, len - 1u));
}

// The vectors a stream's chunk at byte address a needs are q = a / 16 and q + 1 (the
// second unused when a is aligned). Moving forwards, the carry holds q and q + 1 is
// fetched; moving backwards, the carry holds q + 1 and q is fetched.
void src16_prime(uint a, bool forward)
{
    if (!CARRY) return;
    g_cq = (a >> 4u) + (forward ? 0u : 1u);
    g_cv = src4_clamped(g_cq);
}

// The 16 source bytes at byte address a of a stream moving forward or backward. False
// when they reach past the window's last whole vector, or when the carry does not hold
// the vector the chunk shares with the previous one; the carry moves on either way.
bool src16(uint a, bool forward, out uvec4 v)
{
    if (!CARRY) return src_vec(a, v);
    const uint q = a >> 4u, s = a & 15u, len = uint(src4.length());
    const uint fetch_q = forward ? q + 1u : q;
    const bool carried = g_cq == (forward ? q : q + 1u);
    const uvec4 fetched = src4_clamped(fetch_q);
    const uvec4 lo = forward ? g_cv : fetched, hi = forward ? fetched : g_cv;
    g_cq = fetch_q;
    g_cv = fetched;
    v = funnel(lo, hi, s);
    return carried && q < len && (s == 0u || q + 1u < len);
}

// The byte address of the 16 source bytes of elements j0 .. j0 + 16 / ESIZE - 1, and
// whether they run backwards; the chunk where the row turns counts as forwards.
uint stream_addr(uint j0, out bool back)
{
    const uint n = 16u / ESIZE;
    back = j0 + n <= g_P;
    return back ? g_Bb - (j0 + n - 1u) * ESIZE : g_Bf + j0 * ESIZE;
}

void stream_prime(uint j0)
{
    bool back;
    const uint a = stream_addr(j0, back);
    src16_prime(a, !back);
}

// Elements j0 .. j0 + 16 / ESIZE - 1, all on one side of g_P; false otherwise.
bool stream_vec(uint j0, out uvec4 v)
{
    bool back;
    const uint a = stream_addr(j0, back);
    const bool ok = src16(a, !back, v) && (back || j0 >= g_P); // not the chunk where the row turns
    if (back) v = reverse_elements(v);
    return ok;
}

uvec2 stream_elem(uint j) { return load_src(j < g_P ? g_Bb - j * ESIZE : g_Bf + j * ESIZE); }

// What follows this file in a kernel is the kernel's own (trace.glsl's sites).
#if __LINE__ >= 1024 // DM_SITE (trace.glsl) gives each file 1024 lines
#error "a GLSL file of 1024 lines or more: its access sites would collide with the next file's"
#endif
#undef DM_SITE_FILE
#define DM_SITE_FILE 2
