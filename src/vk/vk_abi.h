/* The interface between the host and the gather kernels: the parameter record a piece's
 * descriptor set binds at binding 0, the push constants, the specialisation constants
 * and the constants the record's words take. glsl/gather_common.glsl mirrors all of it;
 * test/test_abi.c reads that file and checks every name, value, member type and offset
 * against the lists below, so that neither side can change alone. */
#ifndef DM_VK_ABI_H
#define DM_VK_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Word indices into the parameter record (GLSL: const uint P_<name>). Arrays of
 * DM_MAX_RANK words start at SIZE and at each *_STRIDE; SRC_STEP, AUX_STEP and DST_STEP
 * repeat the innermost dimension's byte strides at fixed words. */
#define DM_VK_PARAMS(X)                                                                   \
    X(RANK, 0) X(UNITS, 1) X(MODE, 2) X(PER_ROW, 3) X(AXIS, 4) X(AXIS_ORIGIN, 5) X(N, 6)  \
    X(WIN_LO, 7) X(WIN_HI, 8) X(PHASED, 9) X(DST_BASE, 10) X(SRC_BASE, 11)                \
    X(AUX_BASE, 12) X(M, 13) X(AXIS_SRC_STRIDE, 14) X(SRC_STEP, 15) X(SIZE, 16) X(DST_STRIDE, 24) \
    X(SRC_STRIDE, 32) X(AUX_STRIDE, 40) DM_VK_TILE_PARAMS(X)
/* The GPU tiles' words (glsl/gather_tiles.glsl; vk_plan.c, dm_tile_params, says what each
 * variant keeps in them): chunks per tile, tiles, a per-tile count or log2, a divisor's
 * magic number and shifts (src/fastdiv.h), the rows and columns of a step of WG chunks,
 * the staged span, and a second divisor; then every piece's row length M as a divisor
 * (the flat walks and ONE_HOT's tiles find a chunk's row with it). */
#define DM_VK_TILE_PARAMS(X)                                                              \
    X(TILE_CHUNKS, 48) X(TILES, 49) X(TILE_PER, 50) X(TILE_MAGIC, 51) X(TILE_SHIFTS, 52)  \
    X(TILE_STEP_ROWS, 53) X(TILE_STEP_COLS, 54) X(TILE_SPAN, 55) X(SPAN_MAGIC, 56) X(SPAN_SHIFTS, 57) \
    X(M_MAGIC, 58) X(M_SHIFTS, 59) DM_VK_UNIT_PARAMS(X)
/* The unit loop's plan (glsl/gather_main.glsl, units_main; vk_plan.c, dm_unit_params): the
 * piece's rows; for the fast path its runs per row as a count and a divisor, rows per
 * unit, lanes sharing a run and units in all, and the same of the general path (G_*: a
 * plan's record serves the fast path and, where a binding falls back to another module,
 * the general one); and each row dimension's size as a divisor, so that a unit finds its
 * row's coordinates by multiplication (DM_MAX_RANK words each). */
#define DM_VK_UNIT_PARAMS(X)                                                              \
    X(ROWS, 60) X(RUNS, 61) X(RUNS_MAGIC, 62) X(RUNS_SHIFTS, 63) X(UNIT_ROWS, 64) X(LANES, 65) \
    X(ITEMS, 66) X(G_RUNS, 67) X(G_RUNS_MAGIC, 68) X(G_RUNS_SHIFTS, 69) X(G_ITEMS, 70)   \
    X(AUX_STEP, 71) X(ROW_MAGIC, 72) X(ROW_SHIFTS, 80) X(DST_STEP, 88)
#define DM_VK_PARAM_ENUM(name, value) DM_P_##name = (value),
enum {
    DM_VK_PARAMS(DM_VK_PARAM_ENUM)
    DM_P_WORDS = 128 /* 512 bytes: a multiple of every minUniformBufferOffsetAlignment (at most 256) */
};
#undef DM_VK_PARAM_ENUM
#define DM_VK_PARAM_FITS(name, value) _Static_assert((value) < DM_P_WORDS, "P_" #name " lies past the record");
DM_VK_PARAMS(DM_VK_PARAM_FITS)
#undef DM_VK_PARAM_FITS

/* Values of the record's words (GLSL: MODE_*, AUX_*, NO_AXIS). */
enum { DM_MODE_ELEMENT = 0, DM_MODE_VEC = 1 };              /* P_MODE */
enum { DM_AUX_U32 = 0, DM_AUX_I32 = 1, DM_AUX_U64 = 2, DM_AUX_I64 = 3 }; /* AUX_TYPE (a specialisation constant) */
#define DM_NO_AXIS 0xffffffffu                                /* P_AXIS of a gather without one */

/* Push constants (GLSL: uniform Push): per data slot, in the slot order of gather.h
 * (DST, SRC, AUX, AUX2), the byte remainder of its aligned-down window; then what only
 * the trace build reads (glsl/trace.glsl, DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES): each
 * window's offset in its VkBuffer (low 32 bits) and the dispatch's index in the traced
 * submission; then the dispatch's place in its piece's virtual grid (vk_plan.h,
 * dm_vk_piece.vgroups): the kernels loop over a piece's work as if one dispatch of
 * `vgroups` workgroups ran it, and each real dispatch runs workgroups [group0, group0 +
 * its own count) of that grid, so that no invocation and no dispatch does more than the
 * planner allowed, whatever the grid's tuning (issue 45). Pushed always: 44 bytes cost
 * no more to push than 16. */
#define DM_VK_PUSH_FIELDS(X)                                                                  \
    X(rem_dst) X(rem_src) X(rem_aux) X(rem_aux2) X(tbase_dst) X(tbase_src) X(tbase_aux) X(tbase_aux2) X(tdispatch) \
    X(group0) X(vgroups)
typedef struct dm_vk_push {
    union {
        struct {
            uint32_t rem_dst, rem_src, rem_aux, rem_aux2;
        };
        uint32_t rem[4]; /* the same, indexed by slot */
    };
    union {
        struct {
            uint32_t tbase_dst, tbase_src, tbase_aux, tbase_aux2;
        };
        uint32_t tbase[4]; /* the same, indexed by slot */
    };
    uint32_t tdispatch;
    uint32_t group0, vgroups; /* the dispatch's first workgroup in the piece's virtual grid, and its size */
} dm_vk_push;
/* Every device offers at least 128 bytes (maxPushConstantsSize); we ask for no more. */
_Static_assert(sizeof(dm_vk_push) <= 128, "push constants beyond the 128 bytes every Vulkan device offers");
_Static_assert(sizeof(dm_vk_push) == 44, "rem[] and tbase[] must alias the named members");

/* Specialisation constant ids (GLSL: local_size_x_id, constant_id). ROW_DIMS, VARIANT
 * and TEXEL are build-time constants instead: one module per combination (kernels.c). */
enum {
    DM_SPEC_WORKGROUP = 0,
    DM_SPEC_ESIZE = 1,
    DM_SPEC_RUN = 2,
    DM_SPEC_PARTIAL = 3,  /* pieces over part of REVERSE's axis store what they can of a chunk (dm_kernel_partial) */
    DM_SPEC_AUX_TYPE = 4, /* DM_AUX_*: how the kernel decodes AUX elements (lengths, indices) */
    DM_SPEC_LANES = 5,    /* consecutive invocations that share a unit's chunks (dm_vk_limits.lanes) */
    DM_SPEC_ALIGNED = 6,  /* the fast path's source vectors start on 16-byte boundaries (dm_kernel_src_aligned) */
    DM_SPEC_LDS_VECS = 7, /* the GPU tiles' shared memory, in 16-byte vectors (dm_vk_limits.tile_lds) */
    DM_SPEC_TILE_V = 8,   /* vectors a GPU tile's lane stages before it stores (dm_vk_limits.tile_v) */
    DM_SPEC_PEND = 9,     /* units whose leftover chunks wait for one element pass: 8 on CPU devices, 1 on GPUs */
    DM_SPEC_COUNT = 10
};

/* Values of the build-time VARIANT (GLSL: V_*; the Makefile's -DDM_VARIANT): the fast
 * path's way of making a chunk, chosen per gather by dm_kernel_variant (kernels.c), each
 * its own module; GENERAL without the fast path. */
enum {
    DM_VARIANT_GENERAL = 0,
    DM_VARIANT_STREAM = 1, /* SLICE1: rows one element forwards or backwards */
    DM_VARIANT_PAIRS = 2,  /* SLICE1: step 2, from the two vectors holding a chunk */
    DM_VARIANT_WORDS = 3,  /* SLICE1: other steps, a load per element */
    DM_VARIANT_ALONG = 4,  /* REVERSE, ONE_HOT: the axis is the innermost dimension */
    DM_VARIANT_ACROSS = 5, /* REVERSE, ONE_HOT: the axis is a row dimension */
    DM_VARIANT_FLAT = 6,   /* output rows packed end to end: ONE_HOT along the innermost axis,
                            * SLICE1 and REVERSE short rows (dm_kernel_rows_packed) */
    DM_VARIANT_FLAT_ROWS = 7, /* the same, rows a whole number of 16-byte chunks long */
    DM_VARIANT_COLUMNS = 8,   /* REVERSE: the axis is a row dimension, a length per column */
    /* The GPU tiles (glsl/gather_tiles.glsl), picked under GPU tuning only: */
    DM_VARIANT_TILES = 9,        /* SLICE1 and REVERSE with one length per row: rows staged in shared memory */
    DM_VARIANT_TILE_COLUMNS = 10, /* REVERSE across the axis with a length per column: every row of a column block */
    DM_VARIANT_TILE_HOT = 11,    /* ONE_HOT into rows end to end: a tile's indices staged, then its chunks */
    DM_VARIANT_TILE_ROWS = 12,   /* SLICE1 step 1 or -1 from aligned source vectors: TILES without shared memory */
    DM_VARIANT_COUNT = 13
};

/* Descriptor bindings: the parameter record (a uniform buffer), then one storage buffer
 * per data slot (1 + slot), then, for the texel path (TEXEL), the SRC window as an
 * R32G32B32A32_UINT uniform texel buffer, the AUX window as an R32_UINT one and, for
 * ONE_HOT and REVERSE's COLUMNS, the AUX window again as R32G32B32A32_UINT (a dummy for the
 * others; kernels.c, dm_kernel_aux_vectors) and, for COLUMNS of 1- to 4-byte elements,
 * the SRC window again as R32_UINT (a dummy for the others; dm_kernel_src_words). */
enum {
    DM_BINDING_PARAMS = 0,
    DM_BINDING_SLOT0 = 1,
    DM_BINDING_SRC_TEXEL = 5,
    DM_BINDING_AUX_TEXEL = 6,
    DM_BINDING_AUX_VEC_TEXEL = 7,
    DM_BINDING_SRC_WORD_TEXEL = 8,
    DM_BINDING_COUNT = 9,
    /* The trace build's record buffer (glsl/trace.glsl), a fifth storage buffer: only in
     * the layout of a tracing context (DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES). */
    DM_BINDING_TRACE = 9
};

/* Invocations per workgroup of the gather kernels on GPUs (dm_vk_limits.workgroup). */
#define DM_VK_WORKGROUP 128u

/* ---- the compute copy (glsl/copy.comp) ------------------------------------------------
 * dmlops_command_list_record_compute_copy, the benchmark's plain copy shader: its own
 * descriptor-set layout (Dst, Src) and push constants, all counted in 16-byte vectors.
 * test/test_abi.c checks glsl/copy.comp against these too. */
#define DM_VK_COPY_PUSH_FIELDS(X) X(dst_at) X(src_at) X(count) X(tdispatch) X(tbase_dst) X(tbase_src)
#define DM_VK_PUSH_MEMBER(name) uint32_t name;
typedef struct dm_vk_copy_push {
    DM_VK_COPY_PUSH_FIELDS(DM_VK_PUSH_MEMBER)
} dm_vk_copy_push;
#undef DM_VK_PUSH_MEMBER
_Static_assert(sizeof(dm_vk_copy_push) <= 128, "push constants beyond the 128 bytes every Vulkan device offers");
enum {
    DM_COPY_BINDING_DST = 0,
    DM_COPY_BINDING_SRC = 1,
    DM_COPY_BINDING_SRC_TEXEL = 2, /* Src again, as an rgba32ui uniform texel buffer (TEXEL) */
    DM_COPY_BINDINGS = 3,
    DM_COPY_BINDING_TRACE = 3 /* the trace build's record buffer, as DM_BINDING_TRACE */
};
/* Its specialisation constants: TEXEL, the texel path of the gather kernels; VECTORS,
 * the uvec4s an invocation moves per step (dmlops_compute_copy_shape.vectors); and the
 * workgroup size (local_size_x_id). */
enum { DM_COPY_SPEC_TEXEL = 0, DM_COPY_SPEC_VECTORS = 1, DM_COPY_SPEC_WORKGROUP = 2 };
/* The plain copy: one uvec4 per invocation, 64 invocations per workgroup (the shader's
 * unspecialised local_size_x, which dm_copy_shape gives a shape that leaves it 0), at
 * most 65535 workgroups per dispatch (every device's maxComputeWorkGroupCount[0]); the
 * kernel strides past that. Shapes go up to 8 vectors (the shader's register array) and
 * workgroups of 1024. */
#define DM_COPY_WORKGROUP 64u
#define DM_COPY_MAX_GROUPS 65535u
#define DM_COPY_MAX_VECTORS 8u
#define DM_COPY_MAX_WORKGROUP 1024u
/* Steps of the grid one compute-copy invocation takes in a dispatch at most (each up to
 * 8 vectors): a window needing more is recorded as several dispatches (vk_record.c). */
#define DM_VK_COPY_STEPS 2048u

#endif
