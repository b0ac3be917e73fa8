/* dmlops bench: the standard suite (bench_cases.c), its runner (bench.c), the numpy peer
 * (bench_peer.c), and the table/CSV/Markdown writers (bench_output.c) and SVG chart
 * (svg.c) that share these results. */
#ifndef DMLOPS_BENCH_H
#define DMLOPS_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"

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
/* One of the six headline cases. */
bool bench_case_is_headline(const bench_case *c);
/* Fills the host image of input i of a case (bytes long): a pattern for data, lengths
 * that vary by row, indices that hit every position, values 0 and 1. */
void bench_input(const bench_case *c, uint32_t i, uint8_t *dst, uint64_t bytes);
/* Writes the cases as JSON, for the numpy peer: shapes, dtypes and operator fields. */
bool bench_write_cases_json(const bench_case *cases, size_t count, FILE *f);

/* ---- results -------------------------------------------------------------------------- */

typedef struct bench_result {
    const bench_case *c;
    uint64_t bytes;  /* bytes_read + bytes_written from dmlops_operator_get_info */
    dmlops_path path;
    bool gpu_timer;  /* false: wall time, the device has no timestamps */
    uint32_t iterations;
    double median_s, min_s;
    double gbps;
    double copy_gbps;    /* vkCmdCopyBuffer of bytes / 2 (Vulkan only; 0 otherwise) */
    double compute_copy_gbps;    /* the compute copy (record_compute_copy) of the same bytes,
                                    rounded up to 16 (Vulkan only; 0 otherwise) */
    uint64_t compute_copy_bytes; /* what it copied */
    double memcpy_gbps;  /* host memcpy of bytes / 2 */
    double memset_gbps;  /* ONE_HOT: host memset of the output bytes, counted as written */
    double memset_s;     /* ONE_HOT: the memset's median seconds; "vs memset" is memset_s / median_s */
    double numpy_s;      /* the numpy peer's median for the same operation; 0: none */
    char skipped[200];   /* non-empty: why the case did not run */
} bench_result;

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
} bench_creation;

/* CPU backend: a headline case at 1, 2, 4 ... N threads. */
enum { BENCH_MAX_SCALING = 8 };
typedef struct bench_scaling {
    const bench_case *c;
    uint32_t n;
    uint32_t threads[BENCH_MAX_SCALING];
    double gbps[BENCH_MAX_SCALING];
} bench_scaling;

typedef struct bench_run {
    dmlops_context_info ctx;
    bench_result *results;
    size_t count;
    bench_overhead overhead;
    bench_creation creation;
    bench_scaling *scaling;
    size_t nscaling;
    bool quick, have_numpy;
    char numpy_version[64];
    char backend[16]; /* "cpu", "vulkan" */
    char device[300], slug[96], driver[600], cpu[200], date[40], command[400];
} bench_run;

/* Runs the numpy peer command on the cases and stores its medians in the results.
 * False (with a message) when it could not run; the suite then goes on without it. */
bool bench_run_numpy_peer(const char *command, bench_run *run, const bench_case *cases, size_t count);

void bench_print_table(const bench_run *run, FILE *f);
bool bench_write_csv(const bench_run *run, const char *path);
bool bench_write_svg(const bench_run *run, const char *path);
/* Writes DIR/bench/<slug>.csv and .svg and the device's section of DIR/performance.md. */
bool bench_write_report(const bench_run *run, const char *dir);

static inline double bench_ratio(double a, double b) { return b > 0 ? a / b : 0; }

#endif
