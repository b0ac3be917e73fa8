/* dmlops run MODEL.json: runs a model in our format or DirectML's DxDispatch format.
 *
 * Every operator is created (so validated) before any buffer exists, and every buffer is
 * checked against the memory it would live in, so that a model that cannot run is refused
 * at once and nothing is allocated for nothing. Then the buffers are created and filled,
 * and the model runs: ours executes each operator once, prints small outputs, saves the
 * requested ones and optionally times each operator; a DxDispatch model runs its commands
 * in order (dispatch, print, writeFile) and prints what DxDispatch prints. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "model.h"
#include "model_parse.h"
#include "scalar.h"

#define PRINT_MAX_ELEMENTS 64
#define UPLOAD_CHUNK (1u << 20)
#define MAX_ITERATIONS 1000000

typedef struct run_opts {
    const char *model_path;
    const char *output_dir;
    bool any_output_path; /* --allow-any-output-path */
    uint32_t iterations; /* 0: not given (ours: no timing; DxDispatch: 1) */
    dmlops_context_desc desc;
} run_opts;

typedef struct run_state {
    model m;
    dmlops_context *ctx;
    dmlops_context_info info;
    dmlops_buffer **bufs;
    dmlops_operator **ops;
} run_state;

static const char usage_text[] =
    "usage: dmlops run MODEL.json [--backend auto|vulkan|cpu] [--device D] [--feature-level 6_4]\n"
    "                  [-i N | --iterations N | --dispatch_iterations N] [--output-dir DIR]\n"
    "                  [--allow-any-output-path]\n"
    "\n"
    "Runs a model: ours (\"resources\" and \"operators\") or a DirectML DxDispatch model\n"
    "(\"resources\", \"dispatchables\" and \"commands\"), told apart by their members.\n"
    "\n"
    "  --backend B, --device D    the context's backend and device (default: the library's choice)\n"
    "  --feature-level L          the DirectML feature level to validate against (6_4, 0x6400, ...)\n"
    "  -i N, --iterations N, --dispatch_iterations N\n"
    "                             ours: time each operator N times after the run;\n"
    "                             DxDispatch: run each dispatch N times (default 1)\n"
    "  --output-dir DIR           where the model's outputs go (default: the current directory)\n"
    "  --allow-any-output-path    let the model write outside it (absolute paths, \"..\"): models\n"
    "                             are refused that by default, as written by strangers\n"
    "  -h, --help                 this text\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure, 2 bad command line or model. See docs/cli.md.\n";

static const char *res_where(const run_state *s, const model_resource *r, char *buf, size_t len)
{
    if (s->m.format == MODEL_FORMAT_DMLOPS) snprintf(buf, len, "%s (%s)", r->where, r->name);
    else snprintf(buf, len, "%s", r->where);
    return buf; /* printed through cli_error, which keeps it on one line */
}

static int fail_call(const run_state *s, const char *where, const char *what, dmlops_status st)
{
    char line[1400];
    snprintf(line, sizeof line, "%s: %s%s%s%s: %s: %s", s->m.file, where, what[0] ? " (" : "", what, what[0] ? ")" : "",
             dmlops_status_string(st), dmlops_last_error_message());
    cli_error("%s\n", line); /* one line, whatever the names hold */
    return cli_status_exit(st);
}

static void fill_bindings(const run_state *s, const model_cmd *c, dmlops_binding *b)
{
    const model_op *op = &s->m.ops[c->op];
    for (uint32_t i = 0; i < op->ntensors; i++) {
        const model_binding *mb = &c->bind[i];
        if (mb->resource == SIZE_MAX) b[i] = (dmlops_binding){NULL, 0, 0};
        else b[i] = (dmlops_binding){s->bufs[mb->resource], mb->offset, mb->size};
    }
}

/* ---- preparation: operators, limits, buffers ----------------------------------------- */

/* The memory a buffer lives in: the host's on the CPU backend; on Vulkan the device's
 * largest heap, and the host's too since the tool reads buffers back. */
static int check_limits(const run_state *s)
{
    uint64_t host = m_host_memory(), limit = host, heap = 0;
    char what[300], a[32], b[32], w[MODEL_WHERE + 80];
    snprintf(what, sizeof what, "the host memory (%s)", cli_bytes(host, a));
    if (s->info.backend == DMLOPS_BACKEND_VULKAN) {
        for (uint32_t h = 0; h < s->info.device.memory_heap_count && h < DMLOPS_MAX_MEMORY_HEAPS; h++)
            if (s->info.device.memory_heap_size[h] > heap) heap = s->info.device.memory_heap_size[h];
        if (heap && heap < limit) {
            limit = heap;
            snprintf(what, sizeof what, "the largest memory heap of %s (%s)", s->info.device.name, cli_bytes(heap, a));
        }
    }
    uint64_t total = 0;
    for (size_t k = 0; k < s->m.nres; k++) {
        const model_resource *r = &s->m.res[k];
        if (r->size > limit) {
            cli_error("%s: %s: %s (%llu bytes) exceeds %s\n", s->m.file, res_where(s, r, w, sizeof w),
                    cli_bytes(r->size, b), (unsigned long long)r->size, what);
            return CLI_USAGE;
        }
        total = total > UINT64_MAX - r->size ? UINT64_MAX : total + r->size;
    }
    if (total > limit) {
        cli_error("%s: $.resources: the %zu buffers need %s together, more than %s\n", s->m.file, s->m.nres,
                cli_bytes(total, b), what);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int upload(const run_state *s, size_t k)
{
    const model_resource *r = &s->m.res[k];
    char w[MODEL_WHERE + 80];
    uint64_t bytes = model_init_bytes(r);
    if (!bytes) return CLI_OK;
    dmlops_status st;
    if (r->init_kind == MODEL_INIT_DATA) {
        st = dmlops_buffer_write(s->bufs[k], 0, r->init.data, bytes);
        return st == DMLOPS_SUCCESS ? CLI_OK : fail_call(s, res_where(s, r, w, sizeof w), "write", st);
    }
    /* Constants and sequences are made a chunk at a time, never whole in host memory. */
    void *chunk = malloc(UPLOAD_CHUNK);
    if (!chunk) {
        cli_error("%s: %s: out of host memory\n", s->m.file, res_where(s, r, w, sizeof w));
        return CLI_FAIL;
    }
    model_init_iter it;
    model_init_start(&it, r);
    uint64_t at = 0;
    size_t n;
    st = DMLOPS_SUCCESS;
    while (st == DMLOPS_SUCCESS && (n = model_init_next(&it, chunk, UPLOAD_CHUNK)) > 0) {
        st = dmlops_buffer_write(s->bufs[k], at, chunk, n);
        at += n;
    }
    free(chunk);
    return st == DMLOPS_SUCCESS ? CLI_OK : fail_call(s, res_where(s, r, w, sizeof w), "write", st);
}

static int prepare(run_state *s, const run_opts *o)
{
    int rc = cli_context_create(&o->desc, &s->ctx);
    if (rc) return rc;
    dmlops_context_get_info(s->ctx, &s->info);
    if (s->m.format == MODEL_FORMAT_DMLOPS)
        printf("%s on %s, feature level %s\n", s->m.file, cli_context_device_name(&s->info),
               dmlops_feature_level_name(s->info.feature_level));
    else /* DxDispatch's first line exactly; what it does not print goes to stderr */
        printf("Running on '%s'\n", cli_context_device_name(&s->info));
    FILE *aside = s->m.format == MODEL_FORMAT_DMLOPS ? stdout : stderr;
    if (s->m.format != MODEL_FORMAT_DMLOPS)
        fprintf(aside, "feature level %s\n", dmlops_feature_level_name(s->info.feature_level));
    char note[sizeof s->info.note + 64];
    if (s->info.note[0]) fprintf(aside, "note: %s\n", cli_as_typed(s->info.note, note, sizeof note));
    fflush(stdout);

    s->bufs = calloc(s->m.nres ? s->m.nres : 1, sizeof *s->bufs);
    s->ops = calloc(s->m.nops ? s->m.nops : 1, sizeof *s->ops);
    if (!s->bufs || !s->ops) return CLI_FAIL;
    for (size_t i = 0; i < s->m.nops; i++) {
        if (s->m.ops[i].empty) continue; /* an ONNX node whose output has no elements */
        dmlops_status st = dmlops_operator_create(s->ctx, &s->m.ops[i].desc, &s->ops[i]);
        if (st != DMLOPS_SUCCESS) return fail_call(s, s->m.ops[i].where, "", st);
    }
    if ((rc = check_limits(s)) != CLI_OK) return rc;
    for (size_t k = 0; k < s->m.nres; k++) {
        char w[MODEL_WHERE + 80];
        dmlops_status st = dmlops_buffer_create(s->ctx, s->m.res[k].size, &s->bufs[k]);
        if (st != DMLOPS_SUCCESS) return fail_call(s, res_where(s, &s->m.res[k], w, sizeof w), "", st);
        if ((rc = upload(s, k)) != CLI_OK) return rc;
    }
    return CLI_OK;
}

/* Reads bytes of resource k from offset 0; malloc'd (NULL after a message). */
static void *read_back(const run_state *s, size_t k, uint64_t bytes, int *rc)
{
    char w[MODEL_WHERE + 80];
    void *data = malloc(bytes ? (size_t)bytes : 1);
    if (!data) {
        cli_error("%s: %s: out of memory reading %llu bytes\n", s->m.file, res_where(s, &s->m.res[k], w, sizeof w),
                (unsigned long long)bytes);
        *rc = CLI_FAIL;
        return NULL;
    }
    dmlops_status st = bytes ? dmlops_buffer_read(s->bufs[k], 0, data, bytes) : DMLOPS_SUCCESS;
    if (st != DMLOPS_SUCCESS) {
        free(data);
        *rc = fail_call(s, res_where(s, &s->m.res[k], w, sizeof w), "read", st);
        return NULL;
    }
    return data;
}

/* ---- our format --------------------------------------------------------------------- */

static void print_nested(const npy_array *a, const uint8_t *p, uint32_t d, int indent)
{
    uint32_t es = npy_element_size(a->type);
    char text[48];
    if (a->ndim == 0) {
        scalar_format(a->type, p, text, sizeof text);
        fputs(text, stdout);
        return;
    }
    uint64_t inner = 1;
    for (uint32_t k = d + 1; k < a->ndim; k++) inner *= a->shape[k];
    putchar('[');
    for (uint64_t i = 0; i < a->shape[d]; i++) {
        if (d + 1 == a->ndim) {
            scalar_format(a->type, p + i * es, text, sizeof text);
            printf("%s%s", i ? ", " : "", text);
        } else {
            if (i) printf(",\n%*s", indent + (int)d + 1, "");
            print_nested(a, p + i * inner * es, d + 1, indent);
        }
    }
    putchar(']');
}

static void print_shape(const npy_array *a)
{
    printf("%s [", dmlops_data_type_name(a->type));
    for (uint32_t i = 0; i < a->ndim; i++) printf("%s%llu", i ? ", " : "", (unsigned long long)a->shape[i]);
    printf("]");
}

static void print_time(double seconds)
{
    if (seconds < 1e-3) printf("%9.2f us", seconds * 1e6);
    else printf("%9.3f ms", seconds * 1e3);
}

/* Times each operator alone in a command list: GPU timestamps when the device has them. */
static int time_operators(const run_state *s, uint32_t iterations)
{
    double *t = malloc(iterations * sizeof *t);
    if (!t) return CLI_FAIL;
    int rc = CLI_OK;
    printf("\ntiming, %u iterations per operator:\n", iterations);
    for (size_t c = 0; c < s->m.ncmds && rc == CLI_OK; c++) {
        const model_cmd *cmd = &s->m.cmds[c];
        const model_op *op = &s->m.ops[cmd->op];
        if (op->empty) continue;
        dmlops_command_list *list = NULL;
        dmlops_binding b[3];
        fill_bindings(s, cmd, b);
        dmlops_status st = dmlops_command_list_create(s->ctx, &list);
        if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record(list, s->ops[cmd->op], op->ninputs, b, 1, &b[op->ninputs]);
        bool gpu = true;
        for (uint32_t i = 0; i < iterations && st == DMLOPS_SUCCESS; i++) {
            dmlops_execution_stats stats = {-1, 0};
            st = dmlops_command_list_execute(list);
            if (st == DMLOPS_SUCCESS) st = dmlops_command_list_get_stats(list, &stats);
            gpu = gpu && stats.gpu_seconds >= 0;
            t[i] = stats.gpu_seconds >= 0 ? stats.gpu_seconds : stats.wall_seconds;
        }
        dmlops_command_list_destroy(list);
        if (st != DMLOPS_SUCCESS) {
            rc = fail_call(s, op->where, "timing", st);
            break;
        }
        dmlops_operator_info info;
        dmlops_operator_get_info(s->ops[cmd->op], &info);
        double min = t[0];
        for (uint32_t i = 1; i < iterations; i++) min = t[i] < min ? t[i] : min;
        double med = cli_median(t, iterations);
        printf("  %-16s %-20s median", op->where + 2, op->name);
        print_time(med);
        printf("   min");
        print_time(min);
        printf("   %8.3f GB/s   (%s)\n", med > 0 ? (double)(info.bytes_read + info.bytes_written) / med * 1e-9 : 0.0,
               gpu ? "GPU timestamps" : "wall clock: no timestamps");
    }
    free(t);
    return rc;
}

static int prepare_target(const char *path, const char *where);

static int show_outputs(const run_state *s)
{
    int rc = CLI_OK;
    for (size_t k = 0; k < s->m.nres; k++) {
        const model_resource *r = &s->m.res[k];
        if (r->last_writer < 0 && !r->output) continue;
        npy_array a = r->view;
        if (!(a.data = read_back(s, k, a.count * npy_element_size(a.type), &rc))) return rc;
        if (r->last_writer >= 0) {
            printf("\n%s = ", r->name);
            print_shape(&a);
            if (a.count <= PRINT_MAX_ELEMENTS) {
                printf("\n  ");
                /* No elements: numpy prints "[]" whatever the other extents (a walk of
                 * [4294967295, 0] would print four billion empty rows). */
                if (a.count == 0 && a.ndim > 0) printf("[]");
                else print_nested(&a, a.data, 0, 2);
                printf("\n");
            } else {
                printf(" (%llu elements, not printed)\n", (unsigned long long)a.count);
            }
        }
        if (r->output) {
            char err[300], where[MODEL_WHERE + 4096];
            snprintf(where, sizeof where, "%s: %s.Output", s->m.file, r->where);
            if ((rc = prepare_target(r->output, where)) != CLI_OK) {
                free(a.data);
                return rc;
            }
            if (!npy_write_file(r->output, &a, err, sizeof err)) {
                cli_error("%s: %s.Output: %s: %s\n", s->m.file, r->where, r->output, err);
                free(a.data);
                return CLI_FAIL;
            }
            printf("wrote %s\n", r->output);
        }
        free(a.data);
    }
    return CLI_OK;
}

static int run_dmlops(run_state *s, const run_opts *o)
{
    for (size_t c = 0; c < s->m.ncmds; c++) {
        const model_cmd *cmd = &s->m.cmds[c];
        const model_op *op = &s->m.ops[cmd->op];
        if (op->empty) {
            npy_array shape = {.type = op->onnx_type, .ndim = op->onnx_rank};
            for (uint32_t d = 0; d < op->onnx_rank; d++) shape.shape[d] = (uint64_t)op->onnx_shape[d];
            printf("%s %s: the ONNX output is ", op->where + 2, op->name);
            print_shape(&shape);
            printf(", with no elements: nothing to run\n");
            continue;
        }
        dmlops_binding b[3];
        fill_bindings(s, cmd, b);
        dmlops_status st = dmlops_operator_execute(s->ops[cmd->op], op->ninputs, b, 1, &b[op->ninputs]);
        if (st != DMLOPS_SUCCESS) return fail_call(s, op->where, "", st);
        dmlops_operator_info info;
        dmlops_operator_get_info(s->ops[cmd->op], &info);
        char rd[32], wr[32];
        printf("%s %s: %s path", op->where + 2, op->name, dmlops_path_name(info.last_path));
        if (info.last_path == DMLOPS_PATH_KERNEL)
            printf(", %u dispatch%s", info.dispatch_count, info.dispatch_count == 1 ? "" : "es");
        if (info.last_path == DMLOPS_PATH_COPY_REGIONS)
            printf(", %u region%s", info.copy_region_count, info.copy_region_count == 1 ? "" : "s");
        printf(", reads %s, writes %s\n", cli_bytes(info.bytes_read, rd), cli_bytes(info.bytes_written, wr));
    }
    int rc = show_outputs(s);
    if (rc != CLI_OK) return rc;
    return o->iterations ? time_operators(s, o->iterations) : CLI_OK;
}

/* ---- DxDispatch --------------------------------------------------------------------- */

/* DxDispatch's statistics: the first of several samples is "cold" and left out; the median
 * is the middle sample (the upper one of an even count). */
static double hot_median(double *v, uint32_t n)
{
    if (n > 1) {
        v++;
        n--;
    }
    cli_median(v, n); /* sorts */
    return v[n / 2];
}

static int dxd_dispatch(const run_state *s, const model_cmd *c, uint32_t iterations)
{
    const model_op *op = &s->m.ops[c->op];
    double *cpu = malloc(2 * (size_t)iterations * sizeof *cpu);
    if (!cpu) return CLI_FAIL;
    double *gpu = cpu + iterations;
    dmlops_binding b[3];
    fill_bindings(s, c, b);
    dmlops_command_list *list = NULL;
    dmlops_status st = dmlops_command_list_create(s->ctx, &list);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record(list, s->ops[c->op], op->ninputs, b, 1, &b[op->ninputs]);
    for (uint32_t i = 0; i < iterations && st == DMLOPS_SUCCESS; i++) {
        dmlops_execution_stats stats = {-1, 0};
        double t0 = cli_now();
        st = dmlops_command_list_execute(list);
        cpu[i] = cli_now() - t0;
        if (st == DMLOPS_SUCCESS) st = dmlops_command_list_get_stats(list, &stats);
        /* Without timestamps (the CPU backend, some devices) the device's time is the
         * library's own measure of the execution, submission to completion. */
        gpu[i] = stats.gpu_seconds >= 0 ? stats.gpu_seconds : stats.wall_seconds;
    }
    dmlops_command_list_destroy(list);
    if (st != DMLOPS_SUCCESS) {
        free(cpu);
        return fail_call(s, c->where, op->name, st);
    }
    /* The spec's line, always whole, so that anything parsing DxDispatch's output parses ours. */
    printf("Dispatch '%s': %u iterations, %.4f ms median (CPU), %.6f ms median (GPU)\n", op->name, iterations,
           hot_median(cpu, iterations) * 1e3, hot_median(gpu, iterations) * 1e3);
    free(cpu);
    return CLI_OK;
}

static int dxd_print(const run_state *s, const model_cmd *c)
{
    const model_resource *r = &s->m.res[c->resource];
    uint32_t es = npy_element_size(r->init.type);
    uint64_t count = r->init.count;
    int rc = CLI_OK;
    uint8_t *data = read_back(s, c->resource, count * es, &rc);
    if (!data) return rc;
    printf("Resource '%s':%s", r->name, c->verbose ? "\n" : " ");
    int width = 1;
    for (uint64_t n = count; n >= 10; n /= 10) width++;
    for (uint64_t i = 0; i < count; i++) {
        char text[48];
        scalar_format(r->init.type, data + i * es, text, sizeof text);
        if (c->verbose) {
            uint8_t u8;
            uint16_t u16;
            uint32_t u32;
            uint64_t bits = 0;
            const uint8_t *p = data + i * es;
            if (es == 1) bits = (memcpy(&u8, p, 1), u8);
            else if (es == 2) bits = (memcpy(&u16, p, 2), u16);
            else if (es == 4) bits = (memcpy(&u32, p, 4), u32);
            else memcpy(&bits, p, 8);
            printf("[%*llu] %s (0x%*llX)\n", width, (unsigned long long)i, text, (int)es * 2, (unsigned long long)bits);
        } else {
            printf("%s%s", i ? ", " : "", text);
        }
    }
    if (!c->verbose) printf("\n");
    free(data);
    return CLI_OK;
}

/* A directory made with its missing parents, as mkdir -p does (where: what named it, as
 * the message begins: "dmlops run: --output-dir", "m.json: $.commands[0].targetPath"). A
 * path that names something else than a directory, or cannot be made, is the user's to
 * fix (2); a full disk or an I/O error is not (1). */
static int make_dirs(const char *dir, const char *where)
{
    if (!*dir) {
        cli_error("%s: expected a directory, not an empty name", where);
        return CLI_USAGE;
    }
    char *p = strdup(dir);
    if (!p) {
        cli_error("dmlops run: out of memory");
        return CLI_FAIL;
    }
    int e = 0;
    for (char *c = p + 1;; c++) {
        const bool end = *c == '\0';
        if (!end && *c != '/') continue;
        *c = '\0';
        struct stat st;
        if ((mkdir(p, 0777) != 0 && errno != EEXIST) || stat(p, &st) != 0) e = errno;
        else if (!S_ISDIR(st.st_mode)) e = ENOTDIR;
        if (end || e) break;
        *c = '/';
        while (c[1] == '/') c++;
    }
    free(p);
    if (!e) return CLI_OK;
    cli_error("%s: %s: %s", where, dir, strerror(e));
    return e == ENOSPC || e == EIO || e == ENOMEM || e == EDQUOT ? CLI_FAIL : CLI_USAGE;
}

/* Before a file is written at path after the run (a writeFile target, our format's
 * Output): its missing folders are made, as DxDispatch makes a writeFile target's, and
 * a path that names a directory is refused as the model's mistake (2). */
static int prepare_target(const char *path, const char *where)
{
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    if (!dir) {
        cli_error("dmlops run: out of memory");
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    if (slash && slash != dir) {
        *slash = '\0';
        rc = make_dirs(dir, where);
    }
    free(dir);
    struct stat st;
    if (rc == CLI_OK && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: %s: is a directory, not a file to write", where, path);
        rc = CLI_USAGE;
    }
    return rc;
}

static int dxd_write(const run_state *s, const model_cmd *c)
{
    const model_resource *r = &s->m.res[c->resource];
    uint32_t es = npy_element_size(r->init.type);
    int rc;
    char err[300], where[MODEL_WHERE + 4096];
    snprintf(where, sizeof where, "%s: %s.targetPath", s->m.file, c->where);
    /* DxDispatch makes the target's missing folders (Executor.cpp, writeFile). */
    if ((rc = prepare_target(c->path, where)) != CLI_OK) return rc;
    uint8_t *data = read_back(s, c->resource, r->size, &rc);
    if (!data) return rc;
    bool ok;
    if (c->npy) {
        npy_array a = {.type = r->init.type, .ndim = 1, .data = data};
        a.shape[0] = r->size / es;
        if (c->ndims) {
            a.ndim = c->ndims;
            memcpy(a.shape, c->dims, c->ndims * sizeof c->dims[0]);
        }
        /* The model checked that the shape's count fits the resource (dxdispatch.c). */
        ok = m_shape_count(&a) && a.count <= r->size / es;
        if (!ok) snprintf(err, sizeof err, "the dimensions do not fit the resource");
        else ok = npy_write_file(c->path, &a, err, sizeof err);
    } else {
        ok = npy_write_raw_file(c->path, data, r->size, err, sizeof err);
    }
    free(data);
    if (!ok) {
        cli_error("%s: %s.targetPath: %s: %s\n", s->m.file, c->where, c->path, err);
        return CLI_FAIL;
    }
    printf("Resource '%s' written to '%s'\n", r->name, c->path);
    return CLI_OK;
}

static int run_dxdispatch(run_state *s, const run_opts *o)
{
    uint32_t iterations = o->iterations ? o->iterations : 1;
    for (size_t c = 0; c < s->m.ncmds; c++) {
        const model_cmd *cmd = &s->m.cmds[c];
        int rc = cmd->kind == MODEL_CMD_DISPATCH ? dxd_dispatch(s, cmd, iterations)
                 : cmd->kind == MODEL_CMD_PRINT  ? dxd_print(s, cmd)
                                                 : dxd_write(s, cmd);
        fflush(stdout);
        if (rc != CLI_OK) return rc;
    }
    return CLI_OK;
}

/* ---- the command -------------------------------------------------------------------- */

static void run_free(run_state *s)
{
    for (size_t i = 0; s->ops && i < s->m.nops; i++) dmlops_operator_destroy(s->ops[i]);
    for (size_t k = 0; s->bufs && k < s->m.nres; k++) dmlops_buffer_destroy(s->bufs[k]);
    free(s->ops);
    free(s->bufs);
    dmlops_context_destroy(s->ctx);
    model_free(&s->m);
}

int cmd_run(int argc, char **argv)
{
    run_opts o = {0};
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return CLI_OK;
        }
        int r = cli_context_opt(argc, argv, &i, &o.desc);
        if (r == 0 && ((r = cli_opt(argc, argv, &i, "--iterations", &v)) > 0 ||
                       (r == 0 && (r = cli_opt(argc, argv, &i, "--dispatch_iterations", &v)) > 0) ||
                       (r == 0 && (r = cli_opt(argc, argv, &i, "-i", &v)) > 0))) {
            uint64_t n;
            if (!cli_parse_u64(v, &n) || n < 1 || n > MAX_ITERATIONS) {
                cli_error("dmlops run: %s %s: expected a count from 1 to %d\n", argv[i - (argv[i] == v)], v,
                        MAX_ITERATIONS);
                return CLI_USAGE;
            }
            o.iterations = (uint32_t)n;
        } else if (r == 0 && (r = cli_opt(argc, argv, &i, "--output-dir", &v)) > 0) {
            o.output_dir = v;
        } else if (r == 0 && !strcmp(argv[i], "--allow-any-output-path")) {
            o.any_output_path = true;
            r = 1;
        }
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("dmlops run: unknown option '%s' (dmlops run --help lists them)\n", argv[i]);
            return CLI_USAGE;
        }
        if (o.model_path) {
            cli_error("dmlops run: one model at a time ('%s' and '%s')\n", o.model_path, argv[i]);
            return CLI_USAGE;
        }
        o.model_path = argv[i];
    }
    if (!o.model_path) {
        fputs(usage_text, stderr);
        return CLI_USAGE;
    }
    run_state s = {0};
    bool oom = false;
    const model_options mo = {.output_dir = o.output_dir, .any_output_path = o.any_output_path};
    if (!model_load(o.model_path, &mo, &s.m, &oom)) return oom ? CLI_FAIL : CLI_USAGE;
    /* Made once the library has accepted the context, the operators and the buffers, so
     * that a refused model leaves no directory; still before anything runs. */
    int rc = prepare(&s, &o);
    if (rc == CLI_OK && o.output_dir) rc = make_dirs(o.output_dir, "dmlops run: --output-dir");
    if (rc == CLI_OK) rc = s.m.format == MODEL_FORMAT_DMLOPS ? run_dmlops(&s, &o) : run_dxdispatch(&s, &o);
    run_free(&s);
    return rc;
}
