/* dmlops bench --model: what a GPU's memory system would see of each standard case,
 * measured on any Vulkan device (lavapipe included) from an access trace
 * (DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES, dmlops_command_list_get_access_stats in dmlops.h).
 * Per case, as Nsight Compute counts them:
 *   model_bytes_per_request  bytes / warp-level requests: 512 when 32 lanes each move 16
 *                            neighbouring bytes, less for narrower or scattered accesses
 *   model_sector_ratio       32-byte sectors the requests touch over the sectors the case
 *                            must move at the least (sectors.c): 1.0 when nothing is
 *                            fetched twice or in vain
 *   model_loads_in_flight    loads a lane issues before the store that needs them: a copy
 *                            of 4 vectors per step scores 4, a load then its store 1
 * The context runs the plan and kernel variants a discrete GPU gets (DMLOPS_VK_TUNING=gpu,
 * unless the environment names another tuning), on cases of 1 MiB that keep the rows of
 * their 64 MiB members (bench_model_suite), and the plain and a 4-vector copy as rows of
 * reference. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MODEL_BYTES (1ull << 20)

typedef struct model_row {
    char label[96];
    const char *op, *variant, *type;
    uint64_t tensor_bytes;
    bench_sectors need;
    dmlops_path path;
    dmlops_access_stats st;
    bool untraced; /* dmlops_command_list_get_access_stats said UNSUPPORTED: the run stops */
    char skipped[200];
} model_row;

static void say_cannot_trace(const char *what)
{
    cli_error("dmlops bench --model: this libdmlops cannot trace kernel accesses on this device (%s: %s). The "
              "access model needs DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES and dmlops_command_list_get_access_stats "
              "(dmlops.h)",
              what, dmlops_last_error_message());
}

/* Executes a list holding one recording and takes its access statistics. */
static dmlops_status trace_list(dmlops_command_list *list, model_row *row)
{
    dmlops_status st = dmlops_command_list_execute(list);
    if (st == DMLOPS_SUCCESS) {
        st = dmlops_command_list_get_access_stats(list, &row->st);
        row->untraced = st == DMLOPS_ERROR_UNSUPPORTED;
    }
    return st;
}

static void model_case(dmlops_context *ctx, const bench_case *c, model_row *row)
{
    dmlops_operator *op = NULL;
    dmlops_buffer *buf[3] = {NULL, NULL, NULL};
    dmlops_command_list *list = NULL;
    dmlops_binding b[3];
    uint8_t *img = NULL;
    snprintf(row->label, sizeof row->label, "%s", c->label);
    row->op = dmlops_operator_type_name(c->fam->op);
    row->variant = c->fam->variant;
    row->type = dmlops_data_type_name(c->type);
    row->tensor_bytes = c->tensor_bytes;
    row->need = bench_case_sectors(c);
    dmlops_status st = dmlops_operator_create(ctx, &c->desc, &op);
    for (uint32_t i = 0; i <= c->ninputs && st == DMLOPS_SUCCESS; i++) {
        const uint64_t bytes = c->bt[i].TotalTensorSizeInBytes;
        st = dmlops_buffer_create(ctx, bytes, &buf[i]);
        if (st == DMLOPS_SUCCESS && i < c->ninputs) {
            uint8_t *p = realloc(img, (size_t)bytes);
            if (!p) st = DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
            else {
                img = p;
                bench_input(c, i, img, bytes);
                st = dmlops_buffer_write(buf[i], 0, img, bytes);
            }
        }
        b[i] = (dmlops_binding){buf[i], 0, bytes};
    }
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &list);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record(list, op, c->ninputs, b, 1, &b[c->ninputs]);
    if (st == DMLOPS_SUCCESS) st = trace_list(list, row);
    if (st == DMLOPS_SUCCESS) {
        dmlops_operator_info info;
        dmlops_operator_get_info(op, &info);
        row->path = info.last_path;
    } else {
        snprintf(row->skipped, sizeof row->skipped, "%s: %s", dmlops_status_string(st), dmlops_last_error_message());
    }
    dmlops_command_list_destroy(list);
    for (int i = 0; i < 3; i++) dmlops_buffer_destroy(buf[i]);
    dmlops_operator_destroy(op);
    free(img);
}

/* A compute copy of MODEL_BYTES as a row of reference: it must read and write every
 * sector once. */
static void model_copy(dmlops_context *ctx, const dmlops_compute_copy_shape *shape, model_row *row)
{
    dmlops_buffer *src = NULL, *dst = NULL;
    dmlops_command_list *list = NULL;
    char sh[48];
    snprintf(row->label, sizeof row->label, "COPY %s 1 MiB", bench_shape_name(shape, sh));
    row->op = "COPY";
    row->variant = shape->vectors == 1 && shape->workgroup_size == 64 ? "plain" : "shaped";
    row->type = "";
    row->tensor_bytes = MODEL_BYTES;
    row->need = (bench_sectors){MODEL_BYTES / 32, MODEL_BYTES / 32};
    row->path = DMLOPS_PATH_KERNEL;
    dmlops_status st = dmlops_buffer_create(ctx, MODEL_BYTES, &src);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, MODEL_BYTES, &dst);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &list);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record_compute_copy_shaped(list, dst, 0, src, 0, MODEL_BYTES, shape);
    if (st == DMLOPS_SUCCESS) st = trace_list(list, row);
    if (st != DMLOPS_SUCCESS)
        snprintf(row->skipped, sizeof row->skipped, "%s: %s", dmlops_status_string(st), dmlops_last_error_message());
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(src);
    dmlops_buffer_destroy(dst);
}

static double per_request(const model_row *r) { return r->st.requests ? (double)r->st.bytes / r->st.requests : 0; }

static double sector_ratio(const model_row *r)
{
    const uint64_t need = r->need.read + r->need.written;
    return need ? (double)r->st.sectors / (double)need : 0;
}

static void print_rows(const model_row *rows, size_t n)
{
    printf("\n%-48s %-12s %10s %9s %10s %10s %7s %8s\n", "case", "path", "requests", "B/request", "sectors", "needed",
           "ratio", "in flight");
    for (size_t i = 0; i < n; i++) {
        const model_row *r = &rows[i];
        if (r->skipped[0]) {
            printf("%-48s skipped: %s\n", r->label, r->skipped);
            continue;
        }
        const unsigned long long need = r->need.read + r->need.written;
        printf("%-48s %-12s %10llu %9.1f %10llu %10llu %7.3f %8.2f\n", r->label, dmlops_path_name(r->path),
               (unsigned long long)r->st.requests, per_request(r), (unsigned long long)r->st.sectors, need,
               sector_ratio(r), r->st.loads_in_flight);
    }
    printf("B/request: bytes per warp-level request (32 lanes x 16 bytes = 512); ratio: sectors touched over the "
           "sectors the case must read and write (1.0 at best); in flight: loads a lane issues before the store "
           "that needs them\n");
}

static bool write_csv(const char *path, const char *device, const model_row *rows, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("dmlops bench: %s: cannot be written", path);
        return false;
    }
    fputs("device,operator,variant,data_type,tensor_bytes,path,needed_sectors_read,needed_sectors_written,accesses,"
          "loads,stores,requests,bytes,sectors,distinct_sectors,dispatches,untraced,model_bytes_per_request,"
          "model_sector_ratio,model_loads_in_flight\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const model_row *r = &rows[i];
        if (r->skipped[0]) continue;
        bench_csv_string(f, device);
        fprintf(f, ",%s,\"%s\",%s,%llu,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%u,%u,%.3f,%.4f,%.3f\n",
                r->op, r->variant, r->type, (unsigned long long)r->tensor_bytes, dmlops_path_name(r->path),
                (unsigned long long)r->need.read, (unsigned long long)r->need.written,
                (unsigned long long)r->st.accesses, (unsigned long long)r->st.loads, (unsigned long long)r->st.stores,
                (unsigned long long)r->st.requests, (unsigned long long)r->st.bytes, (unsigned long long)r->st.sectors,
                (unsigned long long)r->st.distinct_sectors, r->st.dispatches, r->st.untraced, per_request(r),
                sector_ratio(r), r->st.loads_in_flight);
    }
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) cli_error("dmlops bench: %s: write error", path);
    return ok;
}

int bench_model(const dmlops_context_desc *desc_in, const char *filter, const char *csv)
{
    dmlops_context_desc desc = *desc_in;
    if (desc.backend == DMLOPS_BACKEND_CPU) {
        cli_error("dmlops bench --model traces Vulkan kernels: it takes --backend vulkan (lavapipe will do)");
        return CLI_USAGE;
    }
    desc.backend = DMLOPS_BACKEND_VULKAN; /* AUTO never picks lavapipe, which is enough here */
    desc.flags |= DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES;
    /* Read at context creation: set before it, unless the user chose a tuning. */
    const char *tuning = getenv("DMLOPS_VK_TUNING");
    const bool own_tuning = tuning && *tuning;
    if (!own_tuning) setenv("DMLOPS_VK_TUNING", "gpu", 1);
    static const dmlops_compute_copy_shape copies[] = {{1, 64, 0}, {4, 256, 0}};
    const size_t ncopies = sizeof copies / sizeof copies[0];
    size_t count = 0;
    bench_case *cases = bench_model_suite(MODEL_BYTES, filter, &count);
    model_row *rows = cases ? calloc(count + ncopies, sizeof *rows) : NULL;
    if (!rows) {
        free(cases);
        cli_error("dmlops bench --model: out of host memory");
        return CLI_FAIL;
    }
    dmlops_context *ctx = NULL;
    const dmlops_status st = dmlops_context_create(&desc, &ctx);
    if (st != DMLOPS_SUCCESS) {
        /* A library without the trace refuses the flag as an unknown bit (INVALID_ARGUMENT), a
         * device without it says UNSUPPORTED. */
        if (st == DMLOPS_ERROR_UNSUPPORTED || st == DMLOPS_ERROR_INVALID_ARGUMENT) say_cannot_trace("creating the context");
        else cli_error("dmlops bench --model: %s: %s", dmlops_status_string(st), dmlops_last_error_message());
        free(rows);
        free(cases);
        return CLI_FAIL;
    }
    dmlops_context_info info;
    dmlops_context_get_info(ctx, &info);
    printf("dmlops bench --model on %s: DMLOPS_VK_TUNING=%s%s, cases of 1 MiB with the rows of their 64 MiB "
           "members, each traced once\n",
           info.device.name, getenv("DMLOPS_VK_TUNING"),
           own_tuning ? " (from the environment)" : " (the plan and kernel variants of a discrete GPU)");
    fflush(stdout);
    size_t n = 0;
    int rc = CLI_OK;
    for (size_t i = 0; i < count + ncopies && rc == CLI_OK; i++) {
        model_row *row = &rows[n++];
        if (i < count) model_case(ctx, &cases[i], row);
        else model_copy(ctx, &copies[i - count], row);
        if (row->untraced) { /* the library's side is missing: no row would have figures */
            say_cannot_trace(row->label);
            rc = CLI_FAIL;
        }
    }
    dmlops_context_destroy(ctx);
    if (rc == CLI_OK) {
        print_rows(rows, n);
        if (csv && !write_csv(csv, info.device.name, rows, n)) rc = CLI_FAIL;
    }
    free(rows);
    free(cases);
    return rc;
}
