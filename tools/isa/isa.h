/* The kernels' machine code from a real GPU compiler (issue 40; `make isa`,
 * docs/performance.md, "The kernels' machine code"). For each standard bench case the
 * report plans the operator as the library does on a GPU (dm_op_parse, dm_op_lower,
 * dm_vk_plan_gather), compiles the very pipeline the library would make for it
 * (dm_vk_pipeline: the same module, specialisation and layout) with
 * VK_KHR_pipeline_executable_properties' capture flags, and reads back the driver's
 * statistics and, where the driver gives it, the disassembly. On a machine with no GPU,
 * Mesa's RADV compiles for an AMD GPU that is not there (RADV_FORCE_FAMILY, isa_radv_icd);
 * on a real GPU the same program reports what that driver gives.
 *
 * White-box: it links the library's objects (as test/test_vk_limits does), since the
 * planner and the pipeline table are internal. */
#ifndef DM_ISA_H
#define DM_ISA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../src/vk/vk_pipeline.h"

/* ---- reading AMD disassembly (isa_text.c) -------------------------------------------
 * Memory instructions by the bytes they move per lane. */
enum { ISA_W1, ISA_W2, ISA_W4, ISA_W8, ISA_W12, ISA_W16, ISA_WIDTHS };

typedef struct isa_mem {
    uint32_t load[ISA_WIDTHS];  /* buffer_load_* / global_load_*, by width */
    uint32_t store[ISA_WIDTHS]; /* buffer_store_* / global_store_*, by width */
    uint32_t texel;             /* buffer_load_format_* (texel buffers), any width */
    uint32_t atomic;            /* buffer_atomic_* / global_atomic_* */
    uint32_t scalar;            /* s_load_* / s_buffer_load_* (the parameter record, descriptors) */
    uint32_t lds_read, lds_write; /* shared memory: ds_read_* / ds_load_*, ds_write_* / ds_store_* */
} isa_mem;

/* A stretch of code: the whole shader, or a loop. */
typedef struct isa_code {
    uint32_t instructions; /* every instruction laid out in it, both sides of each branch;
                              s_code_end padding excepted */
    isa_mem mem;
    uint32_t divisions;    /* run-time 32-bit integer divisions, each counted where its
                              quotient is made (isa_text.c, is_division): the quotient's
                              multiply-high, the remainder's multiply-low by the divisor, a
                              compare with it and a select, as ACO and LLVM lower n / d after
                              the divisor's reciprocal (v_cvt_f32_u32, v_rcp_f32 or
                              v_rcp_iflag_f32, v_cvt_u32_f32; 15-25 instructions in all;
                              signed ones become unsigned), wherever that reciprocal lies:
                              two dividends over one divisor are two. A reciprocal with no
                              such quotient after it counts once. A constant divisor (a
                              multiply-high by a literal and a shift) does not count, nor
                              do magic-number divisions (src/fastdiv.h: no correction). */
} isa_code;

/* What the report reads from one shader's disassembly. Static counts: every instruction
 * laid out in a stretch counts once, whichever way its branches go.
 * - A loop is a branch (s_branch, s_cbranch_*) back to a label at or before it; its body
 *   is the code from that label to the branch (ACO lays a loop's blocks out between its
 *   header and its back edge; LLVM's layout, RADV_DEBUG=llvm, need not, and its loop
 *   figures are then approximate).
 * - The chunk stores are the shader's widest plain stores (buffer_store_dwordx4 in every
 *   kernel today: one 16-byte chunk of output each).
 * - A chunk loop is an innermost loop holding chunk stores (no loop inside it holds any):
 *   a loop that makes the kernel's chunks. Where the compiler unrolled a run of RUN
 *   chunks, it holds RUN chunk stores (chunks). A module may hold several, of which the
 *   parameters pick one at run time (ONE_HOT's FLAT: flat_lanes twice and flat_two_rows).
 * - A chunk loop's grid loop is the outermost loop around it: the grid-stride loop over
 *   the piece's units (gather_main.glsl), or over the flat walk's runs. Its per-unit path
 *   is the grid loop less its side loops, the loops in it that neither hold the chunk
 *   loop nor lie inside it (the element-by-element pass over a unit's leftover chunks,
 *   fast_unit_slow): what every unit runs, its bookkeeping and the chunk loop. On GPUs a
 *   unit is mostly one chunk (RUN 1), and then the per-unit path is the per-chunk path.
 * - The hot loop is the chunk loop with the most chunk stores, and among equals the one
 *   with the longest per-unit path (the first of equals). */
#define ISA_MAX_CHUNK_LOOPS 16
typedef struct isa_loop {
    isa_code body;          /* the chunk loop */
    isa_code path;          /* its per-unit path */
    uint32_t chunks;        /* chunk stores in the chunk loop */
    uint32_t loads_ahead;   /* vector loads laid out in the per-unit path before its first
                               store to memory (shared memory aside): how many a lane can have
                               in flight before it stores (the copy: 1; a copy of four uvec4
                               per step: 4; a GPU tile: what it stages, then its chunks) */
    uint32_t lines[2], grid_lines[2]; /* first and last lines in the text (1-based) */
} isa_loop;

typedef struct isa_figures {
    bool parsed;            /* the text held at least one instruction */
    isa_code all;           /* the whole shader */
    uint32_t loops;         /* how many loops */
    uint32_t chunk_width;   /* ISA_W* index of the chunk stores */
    isa_loop chunk_loop[ISA_MAX_CHUNK_LOOPS]; /* in the order of the text */
    uint32_t chunk_loops;   /* how many (none: the shader stores nothing in a loop) */
    uint32_t hot;           /* the hot loop's index in chunk_loop */
    uint32_t chunk_divisions; /* the most divisions in any chunk loop's per-unit path,
                                 whichever of them the parameters pick */
} isa_figures;

/* The hot loop, or NULL where the shader has no chunk loop. */
static inline const isa_loop *isa_hot_loop(const isa_figures *f)
{
    return f->chunk_loops ? &f->chunk_loop[f->hot] : NULL;
}

/* Reads AMD GCN / RDNA disassembly as RADV prints it (ACO, or LLVM's disassembler): one
 * instruction per line, labels "BB<n>:" (any name followed by ':'), comments after ';'.
 * Text that is not such disassembly leaves f->parsed false. */
void isa_read_text(const char *text, isa_figures *f);
/* ---- the device (isa_device.c) -------------------------------------------------------- */
typedef struct isa_stat {
    char name[VK_MAX_DESCRIPTION_SIZE];
    double value;
} isa_stat;
#define ISA_MAX_STATS 40

/* One pipeline's executable as the driver describes it. */
typedef struct isa_shader {
    char executable[VK_MAX_DESCRIPTION_SIZE]; /* its name (RADV: "Compute Shader") */
    uint32_t subgroup;      /* the executable's subgroup size (Intel: its SIMD width) */
    isa_stat stat[ISA_MAX_STATS];
    uint32_t nstats;
    char *disassembly;      /* malloc'd; NULL where the driver gives none */
    char disassembly_name[VK_MAX_DESCRIPTION_SIZE];
    double shared_ir;       /* shared memory the driver's NIR declares ("shared: N"), -1 where none shows it */
    char log[1024];         /* what the driver printed on stderr compiling it (v3dv's spills) */
} isa_shader;

/* What every driver's statistics say of a pipeline, under one set of names (-1 where the
 * driver does not say): Mesa's RADV, ANV (Intel), turnip (Adreno) and v3dv (V3D) name
 * them differently (isa_shader_norm). */
typedef enum isa_width_kind { ISA_WIDTH_NONE, ISA_WIDTH_WAVES_SIMD, ISA_WIDTH_SIMD, ISA_WIDTH_WAVES_CORE, ISA_WIDTH_THREADS } isa_width_kind;
typedef struct isa_norm {
    double instructions;    /* RADV "Instructions", the others' "Instruction Count" */
    double registers;       /* RADV VGPRs, turnip "Registers used" (vec4 registers); ANV and v3dv: -1 */
    double spills, fills;   /* RADV spilled VGPRs + SGPRs (fills: -1); ANV "Spill Count" / "Fill Count";
                               turnip STP / LDP (private memory stores and loads); v3dv TMU spills / fills */
    double width;           /* RADV subgroups per SIMD; ANV the SIMD width; turnip "Max Waves Per Core";
                               v3dv "Thread Count" (1, 2 or 4 threads a QPU: registers per thread) */
    isa_width_kind width_kind;
    double shared;          /* bytes: RADV "LDS size", ANV "Workgroup Memory Size", else the NIR's */
} isa_norm;
void isa_shader_norm(const isa_shader *s, isa_norm *n);
/* stderr while a pipeline compiles (isa_capture.c): v3dv tells its spills there only. */
typedef struct isa_capture {
    FILE *file;
    int saved;
} isa_capture;
bool isa_capture_begin(isa_capture *c);
/* Restores stderr, puts what was written into text (size bytes at most, NUL-terminated)
 * and writes it to stderr as well. */
void isa_capture_end(isa_capture *c, char *text, size_t size);
/* The "N:M spills:fills" of a V3D_DEBUG=shaderdb line in text; false without one. */
bool isa_shaderdb_spills(const char *text, double *spills, double *fills);
/* "waves/SIMD", "SIMD", "waves/core", "threads" or "width". */
const char *isa_width_name(isa_width_kind k);

typedef struct isa_device {
    dm_vk_device dev;       /* dev.lim: the limits the library plans with on it */
    dm_vk_pipelines pipes;  /* the library's pipeline table, with the capture flags */
    PFN_vkGetPipelineExecutablePropertiesKHR properties;
    PFN_vkGetPipelineExecutableStatisticsKHR statistics;
    PFN_vkGetPipelineExecutableInternalRepresentationsKHR representations;
} isa_device;

/* RADV's ICD file, which the loader is pointed at (VK_DRIVER_FILES, with RADV_FORCE_FAMILY
 * naming the GPU) to compile for an AMD GPU with none present: RADV_ICD where set, else
 * Debian's mesa-vulkan-drivers file for this machine's architecture; NULL where there is
 * no such file. */
const char *isa_radv_icd(void);
/* Opens the device `request` names (NULL: the default one) with
 * VK_KHR_pipeline_executable_properties, the library's limits for it (params: as a
 * context reads them, dm_env_vk_tuning) and its pipeline table. Where the driver lacks
 * the extension (lavapipe) the pipelines are still made, with no statistics or code
 * (d->properties NULL). On failure isa_device_close releases what was made. */
dmlops_status isa_device_open(const char *request, const dm_vk_params *params, isa_device *d);
void isa_device_close(isa_device *d);
/* The statistics and disassembly of pipe's first executable. */
dmlops_status isa_shader_read(isa_device *d, VkPipeline pipe, isa_shader *s);
void isa_shader_free(isa_shader *s);
/* The named statistic's value, or -1 where the driver gives none. */
double isa_stat_value(const isa_shader *s, const char *name);

/* ---- the report (isa_report.c) --------------------------------------------------------- */
/* One row: a standard case, the pipeline it compiled and what its code holds. */
typedef struct isa_row {
    char label[48];         /* the case ("ONE_HOT depth=16 UINT8"), or "compute copy" */
    char pipeline[80];      /* isa_pipeline_name; "copy regions" where no kernel runs */
    char module[32];        /* the Makefile's module name, build/spv/<module>.spv */
    bool kernel;            /* a pipeline was compiled (not copy regions) */
    bool compute_copy;      /* the compute copy (glsl/copy.comp), not a gather kernel */
    dm_vk_kernel_key key;   /* a gather kernel's module and specialisation */
    isa_shader shader;      /* what the driver said of it */
    isa_figures fig;        /* read from shader.disassembly (parsed false without one) */
    double vgprs, sgprs, spilled_vgprs, spilled_sgprs; /* the driver's statistics; -1: not given */
    double waves;           /* subgroups a SIMD holds at once with these registers (RADV's
                               "Subgroups per SIMD"); -1: not given */
    isa_norm norm;          /* the same under every driver's names */
} isa_row;

typedef struct isa_report {
    isa_row *rows;
    uint32_t count;
    char device[800];       /* the device and driver the code was compiled for */
    uint32_t subgroup;      /* its subgroup size (RADV: the wave size of compute shaders) */
    char tuning[40];        /* the limits' class: "GPU tuning", "CPU tuning", with texel loads */
} isa_report;

/* Every standard case at ISA_CASE_BYTES, planned with d's limits as a context on d plans
 * it, its pipeline compiled on d; and the compute copy. On failure nothing is left to free. */
dmlops_status isa_report_make(isa_device *d, isa_report *r);
void isa_report_free(isa_report *r);
/* The row whose label is `label` (case-insensitive), or NULL. */
const isa_row *isa_report_find(const isa_report *r, const char *label);
/* The table as Markdown (docs/performance.md carries it), or with tsv one line per row of
 * tab-separated values under a header line, every figure its own column. */
void isa_report_print(const isa_report *r, bool tsv, FILE *out);
/* The table every driver's statistics fill (docs/performance.md, one per driver): per
 * case its pipeline, instructions, registers, spills:fills, subgroups or SIMD width or
 * threads, shared memory. */
void isa_report_print_summary(const isa_report *r, FILE *out);
/* Each row's statistics, as the driver names them, and with disassembly its code. */
void isa_report_print_details(const isa_report *r, bool disassembly, FILE *out);
/* "ONE_HOT FLAT e1" and the specialisation constants that are not the device's defaults:
 * " run 8x32" (RUN x LANES), " aligned", " partial", " aux I64", " texel", " rows 3/7",
 * and for the GPU tiles " tile 4x520" (TILE_V vectors a lane, LDS_VECS in all). */
void isa_pipeline_name(const dm_vk_kernel_key *k, char *buf, size_t size);

/* ---- every pipeline the library can make (isa_all.c) ------------------------------------- */
/* The tunings every module is compiled under: GPU (storage buffers and the tiles), GPU
 * with texel loads, CPU (texel loads), CPU on storage buffers. */
#define ISA_TUNINGS 4
const char *isa_tuning_name(uint32_t tuning);
typedef struct isa_pipe {
    dm_vk_kernel_key key;
    uint32_t tuning;        /* index of its tuning (isa_tuning_name) */
    bool compiled;          /* the driver made it */
    char error[160];        /* why not */
    isa_norm norm;          /* its statistics */
} isa_pipe;
/* The pipelines, into out (up to cap of them); returns how many there are. */
uint32_t isa_all_pipes(const isa_device *d, isa_pipe *out, uint32_t cap);
/* Compiles p on d (and destroys it), setting compiled, error and norm. */
dmlops_status isa_pipe_compile(isa_device *d, isa_pipe *p);
/* Whether the key's module stages data in shared memory (the GPU tiles but the aligned TILES). */
bool isa_uses_shared(const dm_vk_kernel_key *k);
/* What is wrong with p, or NULL: "refused", "spills", "SIMD8" (Intel below SIMD16),
 * "unused shared memory". */
const char *isa_pipe_fault(const isa_pipe *p);
/* The n pipelines compiled on r's device: their faults and ranges, or with tsv one line
 * each. Returns how many have a fault. */
uint32_t isa_all_print(const isa_report *r, const isa_pipe *p, uint32_t n, bool tsv, FILE *out);

/* ---- the standard cases (isa_cases.c) ---------------------------------------------------- */
/* The bench's headline size: large enough that no tensor is split on a GPU. */
#define ISA_CASE_BYTES (64ull << 20)
/* One case's descriptor with the arrays it points into: it must not move once made. */
typedef struct isa_case {
    char label[48]; /* "ONE_HOT depth=16 UINT8": the bench's family and element type */
    uint32_t sizes[3][2], offsets[2], window[2];
    int32_t strides[2];
    DML_BUFFER_TENSOR_DESC bt[3];
    DML_TENSOR_DESC td[3];
    union {
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
        DML_SLICE1_OPERATOR_DESC slice;
        DML_ONE_HOT_OPERATOR_DESC hot;
    } u;
    DML_OPERATOR_DESC desc;
} isa_case;
/* How many standard cases there are: src/cli/bench_cases.c's eight families, each at
 * every element type (UINT8, FLOAT16, FLOAT32, FLOAT64). */
uint32_t isa_case_count(void);
/* Case i at `bytes` per data tensor; false past the last. */
bool isa_case_make(uint32_t i, uint64_t bytes, isa_case *c);

#endif
