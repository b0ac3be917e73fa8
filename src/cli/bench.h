/* dmlops bench: results shared by the suite runner (bench.c), the table/CSV/Markdown
 * writers (bench_output.c) and the SVG chart (svg.c). */
#ifndef DMLOPS_BENCH_H
#define DMLOPS_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"

typedef struct bench_result {
    char op[24], variant[24], label[96]; /* label: "SLICE1 stride=2 FLOAT32 16 MiB" */
    DML_TENSOR_DATA_TYPE type;
    uint64_t tensor_bytes; /* size of the largest tensor of the case */
    uint64_t bytes;        /* bytes_read + bytes_written from dmlops_operator_get_info */
    dmlops_path path;
    bool gpu_timer; /* false: wall time, the device has no timestamps */
    uint32_t iterations;
    double median_s, min_s;
    double gbps, copy_gbps, memcpy_gbps; /* copy: vkCmdCopyBuffer of bytes/2; memcpy: same */
    char skipped[200];                   /* non-empty: why the case did not run */
} bench_result;

typedef struct bench_overhead {
    bool measured;
    uint32_t ops, barriers;
    double record_us, list_us, list_gpu_us, sync_us; /* per operator; list_gpu_us < 0: none */
} bench_overhead;

typedef struct bench_run {
    dmlops_context_info ctx;
    bench_result *results;
    size_t count;
    bench_overhead overhead;
    char device[300], slug[96], driver[600], cpu[200], date[40], command[400];
} bench_run;

void bench_print_table(const bench_run *run, FILE *f);
bool bench_write_csv(const bench_run *run, const char *path);
bool bench_write_svg(const bench_run *run, const char *path);
/* Writes DIR/bench/<slug>.csv and .svg and the device's section of DIR/performance.md. */
bool bench_write_report(const bench_run *run, const char *dir);

#endif
