/* dmlops bench (docs/cli.md, docs/performance.md), one file per part:
 *   bench.c        the command: options, the run, what goes where
 *   cases.c        the standard suite and its inputs
 *   sectors.c      the 32-byte sectors each case must read and write
 *   peaks.c        the table of known devices: memory peak and last-level cache
 *   timing.c       how a case is timed: the CPU backend's samples, Vulkan's steady lists
 *   baselines.c    the ceilings beside each case: copies on the device (and the best copy's
 *                  sweep), host memcpy and memset
 *   overhead.c     small operators, operator creation, thread scaling
 *   peers.c        numpy and PyTorch doing the same operations (bench/numpy_peer.py, bench/torch_peer.py)
 *   access_model.c --model: the kernels' memory requests, from an access trace
 *   output.c, report.c, svg.c   the table, CSV, the Markdown section, the chart */
#ifndef DMLOPS_BENCH_H
#define DMLOPS_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "../cli/cli.h"

/* ---- the suite ------------------------------------------------------------------------ */

/* A family of cases: one operator layout at every size and element type. */
typedef struct bench_family {
    DML_OPERATOR_TYPE op;
    const char *variant;  /* short name in labels: "axis=inner" */
    const char *about;    /* what it does, for --list and the docs */
    uint32_t headline_types; /* bit per DML_TENSOR_DATA_TYPE whose 64 MiB case is one of
                                the six headline cases of the targets (performance.md) */
} bench_family;

/* One case: the descriptor (with the arrays it points to, so a case must not move once
 * built) and the 2-D shape its tensors derive from. */
typedef struct bench_case {
    const bench_family *fam;
    DML_TENSOR_DATA_TYPE type;
    uint64_t tensor_bytes;  /* the largest tensor of the case */
    char label[96];         /* "SLICE1 stride=2 FLOAT32 16 MiB" */
    uint32_t ninputs;
    uint32_t rows, cols;    /* the data tensor: REVERSE and SLICE1 input, ONE_HOT output */
    bool ragged;            /* REVERSE: lengths 7c % (rows + 1), else C - r % 7 or whole */
    uint32_t sizes[3][2];
    DML_BUFFER_TENSOR_DESC bt[3];
    DML_TENSOR_DESC td[3];
    uint32_t offsets[2], window[2];
    int32_t strides[2];
    union {
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
        DML_SLICE1_OPERATOR_DESC slice;
        DML_ONE_HOT_OPERATOR_DESC hot;
    } u;
    DML_OPERATOR_DESC desc;
} bench_case;

/* Builds the suite's cases into a new array (quick: small sizes only; large: 256 MiB
 * too), keeping those whose label contains filter (any case when NULL). */
bench_case *bench_suite(bool quick, bool large, const char *filter, size_t *count);
/* The access model's cases (--model): every family in every element type with tensors of
 * about model_bytes, each with the row length of its 64 MiB member, so that the planner
 * gives it the plan and kernel variant of the large sizes (rows of 1 KiB or more take
 * wider units, src/vk/vk_plan.c); filter as above. */
bench_case *bench_model_suite(uint64_t model_bytes, const char *filter, size_t *count);
/* One of the six headline cases. */
bool bench_case_is_headline(const bench_case *c);
/* Fills the host image of input i of a case (bytes long): a pattern for data, lengths
 * that vary by row, indices that hit every position, values 0 and 1. */
void bench_input(const bench_case *c, uint32_t i, uint8_t *dst, uint64_t bytes);
/* Writes the cases as JSON, for the peers: shapes, dtypes and operator fields. */
bool bench_write_cases_json(const bench_case *cases, size_t count, FILE *f);

/* ---- sectors.c: bytes as the memory moves them ------------------------------------------ */

/* The 32-byte sectors a case's operator must read and write at the least: every sector
 * that holds an element it reads (a stride-2 slice of 4-byte elements reads all of its
 * input) and every sector of its output. Buffers start on a sector. The access model's
 * model_sector_ratio is the sectors the kernels touch over read + written. */
typedef struct bench_sectors {
    uint64_t read, written;
} bench_sectors;
bench_sectors bench_case_sectors(const bench_case *c);
/* 32 x (read + written): the bytes the GPU figures count. */
uint64_t bench_sector_bytes(bench_sectors s);
/* The bytes the CPU backend's figures count: the 64-byte lines the case must read and
 * write, counted as the sectors are (a stride-2 read fetches every line of its input). */
#define BENCH_LINE 64u
uint64_t bench_case_line_bytes(const bench_case *c);

/* ---- peaks.c: the table of known devices ---------------------------------------------- */

enum { BENCH_PEAK_NAMES = 3, BENCH_PEAK_IDS = 2 };
typedef struct bench_peak {
    const char *name;                     /* the device, as the table and the docs name it */
    const char *match[BENCH_PEAK_NAMES];  /* text its Vulkan name contains (any, ignoring case) */
    uint32_t vendor_id, device_ids[BENCH_PEAK_IDS]; /* else these PCI ids (0: none) */
    double gbps;                          /* the memory's peak, 10^9 bytes per second */
    uint64_t llc_bytes;                   /* its last-level cache */
    bool llc_bound;                       /* llc_bytes is an upper bound, not the GPU's own cache */
    const char *source;                   /* where both figures come from */
} bench_peak;
const bench_peak *bench_peak_table(size_t *count);
/* The device's entry, or NULL when the table does not know it. */
const bench_peak *bench_peak_find(const char *name, uint32_t vendor_id, uint32_t device_id);

/* ---- results -------------------------------------------------------------------------- */

/* A shape of the compute copy and what it moved: the plain copy is {1, 64, 0}. */
typedef struct bench_copy_shape {
    dmlops_compute_copy_shape shape;
    double gbps;
} bench_copy_shape;
/* "4 x uvec4, 256 x 4224 groups" ("... x auto groups" for a count of 0). */
const char *bench_shape_name(const dmlops_compute_copy_shape *s, char buf[48]);

typedef struct bench_result {
    const bench_case *c;
    uint64_t bytes;  /* bytes_read + bytes_written from dmlops_operator_get_info */
    uint64_t sector_bytes; /* bench_sector_bytes of the case */
    uint64_t counted;      /* the bytes gbps counts: sector_bytes on Vulkan, 64-byte lines on the CPU
                              backend (bench_case_line_bytes) */
    dmlops_path path;
    bool gpu_timer;  /* false: wall time, the device has no timestamps */
    uint32_t iterations; /* timed executions (samples) */
    /* Vulkan: each sample is a command list of `reps` records of the operator, back to
     * back, over `sets` rotating buffer sets, with `barriers` barriers in it; times are
     * per record. cache_included: the sets' footprint stayed under 3x the last-level cache
     * (too many sets, or too little memory), so some reads may hit the cache. */
    uint32_t reps, sets, barriers;
    bool steady, cache_included;
    double median_s, min_s;
    double gbps;         /* counted / median */
    double copy_gbps;    /* vkCmdCopyBuffer of the same bytes, half read and half written,
                            rounded up to 16 (Vulkan only; 0 otherwise) */
    double compute_copy_gbps;    /* the plain compute copy (record_compute_copy) of those bytes */
    uint64_t compute_copy_bytes; /* what the device copies moved each way */
    double best_copy_gbps;       /* the best of the plain copy and the sweep's best shape for
                                    the case's size, measured beside the case */
    dmlops_compute_copy_shape best_shape; /* the shape that gave best_copy_gbps */
    double memcpy_gbps;  /* host memcpy of counted / 2 */
    double memset_gbps;  /* ONE_HOT: host memset of the output bytes, counted as written */
    double memset_s;     /* ONE_HOT: the memset's median seconds; "vs memset" is memset_s / median_s */
    double numpy_s;      /* the numpy peer's median for the same operation; 0: none */
    double torch_s;      /* the PyTorch peer's time per call; 0: none */
    char torch_call[96]; /* the call it timed, "torch.flip(x, [0])" */
    /* --tuning: the case on the tuned context, timed in the same rounds (0: not measured),
     * and what its operator ran with there (dmlops_operator_get_tuning). */
    double tuned_median_s;
    dmlops_operator_tuning tuning;
    char skipped[200];   /* non-empty: why the case did not run */
} bench_result;

/* The best copy's sweep for one size (the cases' tensor_bytes): the shapes tried over a
 * copy of that many bytes, the winner first. */
enum { BENCH_MAX_SHAPES = 64 };
typedef struct bench_sweep {
    uint64_t tensor_bytes;
    uint32_t n;
    bench_copy_shape tried[BENCH_MAX_SHAPES];
    dmlops_compute_copy_shape best;
    double best_gbps;
    char failed[200]; /* non-empty: the sweep could not run; the plain copy stands in */
} bench_sweep;

typedef struct bench_overhead {
    bool measured;
    uint32_t ops, barriers;
    double record_us, list_us, list_gpu_us, sync_us; /* per operator; list_gpu_us < 0: none */
    /* Vulkan: the same count of near-empty dispatches (a 16-byte compute copy, one
     * workgroup), each behind a barrier, recorded and timed the same way. */
    bool empty_measured;
    uint32_t empty_barriers;
    double empty_us, empty_gpu_us;
} bench_overhead;

/* Vulkan: dmlops_operator_create of a kernel-path operator, milliseconds (medians): the
 * first in a fresh context with no pipeline cache (cold: the pipeline is compiled), the
 * first in each of several fresh contexts whose pipeline cache file the previous one wrote
 * (warm cache; the median),
 * and further ones in a context that already holds the pipeline. */
typedef struct bench_creation {
    bool measured;
    double cold_ms, warm_ms, hot_ms;
    /* False when the driver keeps nothing in its pipeline cache (lavapipe: the file holds a
     * header only, cache_bytes, after a pipeline as before one): a warm start would time a
     * second cold one, so none is reported. */
    bool warm_measured;
    uint64_t cache_bytes;
} bench_creation;

/* CPU backend: a headline case at 1, 2, 4 ... N threads. */
enum { BENCH_MAX_SCALING = 8 };
typedef struct bench_scaling {
    const bench_case *c;
    uint32_t n;
    uint32_t threads[BENCH_MAX_SCALING];
    double gbps[BENCH_MAX_SCALING];
} bench_scaling;

/* How cases are timed (timing.c). The CPU backend: at least min_iters samples of one
 * execution, at most max_iters, stopping near budget_s. Vulkan: before each case warm_s
 * of continuous work, then `samples` executions of lists of at least min_list_s each,
 * over at most max_sets buffer sets; sweep_quick sweeps fewer copy shapes. */
typedef struct bench_policy {
    uint32_t min_iters, max_iters;
    double budget_s;
    double warm_s, min_list_s;
    uint32_t samples, max_sets;
    bool sweep_quick;
} bench_policy;

/* The device's memory and cache as the run uses them (peaks.c, timing.c). */
typedef struct bench_memory {
    const bench_peak *peak;  /* NULL: not in the table */
    uint64_t llc_bytes;      /* the last-level cache the rotation works against */
    char llc_from[120];      /* where llc_bytes came from: the table, the host, an assumption */
    uint64_t budget_bytes;   /* the most device memory one case's buffers may take */
} bench_memory;

typedef struct bench_run {
    dmlops_context_info ctx;
    bench_result *results;
    size_t count;
    bench_overhead overhead;
    bench_creation creation;
    bench_scaling *scaling;
    size_t nscaling;
    bench_sweep *sweeps; /* Vulkan: one per size, in the order the sizes ran */
    size_t nsweeps;
    bench_memory mem;
    bench_policy pol;
    /* --tuning FILE: a second context on the device that runs the file's configurations
     * (made and destroyed by bench.c; timing.c times each case on it too), and the file. */
    dmlops_context *tuned;
    const char *tuning_file;
    bool quick, have_numpy, have_torch;
    char numpy_version[64], torch_version[160];
    char torch_note[200]; /* why the PyTorch peer did not run, when it did not */
    char backend[16]; /* "cpu", "vulkan" */
    char device[300], slug[96], driver[600], cpu[200], date[40], command[400];
} bench_run;

/* ---- timing.c, baselines.c -------------------------------------------------------------- */

/* The CPU backend's warm-up before a case is timed: at least this many seconds of runs (at
 * least two); the PyTorch peer warms up as long on the CPU. */
#define BENCH_CPU_WARM_S 0.05

/* Host memory reused across cases: a source pattern and a destination. */
typedef struct host_mem {
    uint8_t *src, *dst;
    size_t cap;
} host_mem;
bool bench_host_reserve(host_mem *h, size_t bytes);
void bench_host_free(host_mem *h);

/* What the run knows of the device's memory: its table entry, the last-level cache (the
 * table's; the host's L3 on a CPU device; else an assumption) and a memory budget. */
void bench_memory_init(const dmlops_context_info *info, bench_memory *mem);

/* One case measured and stored in r: on the CPU backend as before issue 40 (samples of a
 * list holding the operator once, host baselines); on Vulkan steadily (timing.c) beside its
 * device baselines, with the size's best copy shape from the sweep (sweep may be NULL:
 * the plain copy only). */
void bench_run_case(dmlops_context *ctx, const bench_run *run, const bench_case *c, const bench_sweep *sweep,
                    uint32_t fixed_iters, host_mem *h, bench_result *r);

/* Vulkan: sweeps the copy shapes over a copy of tensor_bytes (baselines.c). */
void bench_sweep_copies(dmlops_context *ctx, const bench_run *run, uint64_t tensor_bytes, bench_sweep *sweep);

/* A timed command list of a steady measurement (timing.c): `reps` records made by
 * `record` (record(list, k, user) records the k-th, rotating over its sets). */
typedef dmlops_status (*bench_record_fn)(dmlops_command_list *list, uint32_t k, void *user);
typedef struct bench_list {
    dmlops_command_list *list;
    bench_record_fn record;
    void *user;
    uint32_t reps, barriers;
} bench_list;
/* Records l->record until one execution takes at least min_list_s (at least `least`
 * records; the count grows from a measured execution). */
dmlops_status bench_list_build(dmlops_context *ctx, bench_list *l, uint32_t least, double min_list_s);
/* Seconds per record of one execution; *gpu is cleared when it had no GPU timestamps. */
dmlops_status bench_list_time(bench_list *l, double *per_rep, bool *gpu);
void bench_list_free(bench_list *l);
/* Executes the lists in turn (those made: a NULL list is left out) until warm_s of wall
 * time have passed: continuous device work that brings a GPU's clocks up before anything
 * is timed. */
dmlops_status bench_warm(bench_list *lists, size_t n, double warm_s);

/* How many buffer sets of `footprint` bytes each a case rotates over: enough to cover 3x
 * the last-level cache, within the policy's count and the memory budget. */
uint32_t bench_sets_for(const bench_memory *mem, const bench_policy *pol, uint64_t footprint, bool *cache_included);

/* The device copies of a steady measurement (baselines.c): n pairs of `bytes`-byte buffers,
 * rotated like a case's sets, and what a record of one moves. */
typedef struct bench_copies {
    uint32_t n;
    uint64_t bytes;
    bool cache_included;
    dmlops_buffer **src, **dst;
} bench_copies;
dmlops_status bench_copies_create(dmlops_context *ctx, const bench_run *run, uint64_t bytes, bench_copies *cp);
void bench_copies_free(bench_copies *cp);
typedef struct bench_copy_rec {
    const bench_copies *cp;
    bool compute;                    /* the copy shader, else vkCmdCopyBuffer */
    dmlops_compute_copy_shape shape; /* its shape */
} bench_copy_rec;
/* A bench_record_fn over a bench_copy_rec: copy k on pair k % n. */
dmlops_status bench_record_copy(dmlops_command_list *list, uint32_t k, void *user);
/* The host baselines of a case: memcpy of half the bytes it counts, and for ONE_HOT a
 * memset of its output, each at least 15 samples. */
void bench_host_baselines(host_mem *h, const bench_case *c, uint32_t iters, bench_result *r);
/* GB/s of a copy of `bytes` each way taking `seconds` (read + written). */
static inline double bench_copy_gbps(uint64_t bytes, double seconds)
{
    return seconds > 0 ? 2.0 * (double)bytes / seconds * 1e-9 : 0;
}

/* ---- overhead.c --------------------------------------------------------------------------- */

#define BENCH_OVERHEAD_OPS 1000u /* the small operators of the overhead section */

void bench_run_overhead(dmlops_context *ctx, bool vulkan, bench_overhead *ov);
void bench_run_creation(const dmlops_context_desc *desc, bench_creation *cr);
void bench_run_scaling(bench_run *run, const bench_case *cases, size_t count, uint32_t fixed_iters, host_mem *h);

/* ---- peers.c ------------------------------------------------------------------------------ */

/* Runs the numpy peer command on the cases and stores its medians in the results.
 * False (with a message) when it could not run; the suite then goes on without it. */
bool bench_run_numpy_peer(const char *command, bench_run *run, const bench_case *cases, size_t count);
/* The same for the PyTorch peer (bench/torch_peer.py): its time per call and the call, on
 * a CUDA device beside a Vulkan run, on CPU tensors beside the CPU backend. A NULL command
 * (no --torch-peer) or no case only notes that it was not measured. */
bool bench_run_torch_peer(const char *command, bench_run *run, const bench_case *cases, size_t count);

/* ---- access_model.c ------------------------------------------------------------------------ */

/* dmlops bench --model: returns an exit status. */
int bench_model(const dmlops_context_desc *desc, const char *filter, const char *csv);

/* ---- output ------------------------------------------------------------------------------ */

void bench_print_table(const bench_run *run, FILE *f);
bool bench_write_csv(const bench_run *run, const char *path);
bool bench_write_svg(const bench_run *run, const char *path);
/* Writes DIR/bench/<slug>.csv and .svg and the device's section of DIR/performance.md. */
bool bench_write_report(const bench_run *run, const char *dir);
/* Prints the table of known devices (name NULL) or the entry a device name finds. */
int bench_print_peaks(const char *name);

/* Shared by the writers (output.c). */
/* "1.234" (a / b) or "-" when either was not measured. */
const char *bench_fmt_ratio(double a, double b, char buf[16]);
/* The case's bytes over the memset's time, so that GB/s over it is a ratio of times: a
 * ONE_HOT also reads its indices, which a memset of its output does not. */
double bench_memset_gbps(const bench_result *r);
/* Some case was timed by the host's clock. */
bool bench_any_wall(const bench_run *run);
/* A CSV field in double quotes, quotes doubled. */
void bench_csv_string(FILE *f, const char *s);
/* Result i is the first of its family that PyTorch timed: the one that names its call. */
bool bench_names_torch_call(const bench_run *run, size_t i);
static inline double bench_ratio(double a, double b) { return b > 0 ? a / b : 0; }
static inline bool bench_is_vulkan(const bench_run *run) { return run->ctx.backend == DMLOPS_BACKEND_VULKAN; }
/* The numpy and PyTorch figures in the case's own GB/s terms (0: not measured). */
static inline double bench_numpy_gbps(const bench_result *r)
{
    return r->numpy_s > 0 ? (double)r->counted / r->numpy_s * 1e-9 : 0;
}
static inline double bench_torch_gbps(const bench_result *r)
{
    return r->torch_s > 0 ? (double)r->counted / r->torch_s * 1e-9 : 0;
}

#endif
