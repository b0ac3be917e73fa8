/* dmlops info: the Vulkan devices, and the backend, device, feature level and data types
 * of the context that default selection (or --backend/--device) gives. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static const struct {
    uint32_t bit;
    const char *name;
} features[] = {
    {DMLOPS_DEVICE_FEATURE_SHADER_INT64, "SHADER_INT64"},
    {DMLOPS_DEVICE_FEATURE_SHADER_FLOAT64, "SHADER_FLOAT64"},
    {DMLOPS_DEVICE_FEATURE_SHADER_FLOAT16, "SHADER_FLOAT16"},
    {DMLOPS_DEVICE_FEATURE_STORAGE_8BIT, "STORAGE_8BIT"},
    {DMLOPS_DEVICE_FEATURE_STORAGE_16BIT, "STORAGE_16BIT"},
    {DMLOPS_DEVICE_FEATURE_PUSH_DESCRIPTOR, "PUSH_DESCRIPTOR"},
    {DMLOPS_DEVICE_FEATURE_TIMELINE_SEMAPHORE, "TIMELINE_SEMAPHORE"},
    {DMLOPS_DEVICE_FEATURE_BUFFER_DEVICE_ADDRESS, "BUFFER_DEVICE_ADDRESS"},
    {DMLOPS_DEVICE_FEATURE_SUBGROUP_SIZE_CONTROL, "SUBGROUP_SIZE_CONTROL"},
    {DMLOPS_DEVICE_FEATURE_SYNCHRONIZATION2, "SYNCHRONIZATION2"},
    {DMLOPS_DEVICE_FEATURE_TIMESTAMPS, "TIMESTAMPS"},
};
#define FEATURE_COUNT (sizeof features / sizeof features[0])

static const char *device_type_name(dmlops_device_type t)
{
    switch (t) {
    case DMLOPS_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case DMLOPS_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case DMLOPS_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case DMLOPS_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

static const char *backend_name(dmlops_backend b)
{
    return b == DMLOPS_BACKEND_VULKAN ? "vulkan" : b == DMLOPS_BACKEND_CPU ? "cpu" : "auto";
}

/* What the tool found: the device list (or why there is none) and the context. */
typedef struct info_state {
    dmlops_device_info *devs;
    uint32_t ndev;
    char dev_error[512];
    dmlops_context_info ctx;
    bool have_ctx;
    char ctx_error[512];
    char note[sizeof(((dmlops_context_info *)0)->note) + 64]; /* ctx.note, options as typed */
    dmlops_status ctx_status;
    dmlops_backend requested; /* what --backend or DMLOPS_BACKEND asked for */
} info_state;

static void gather(const dmlops_context_desc *desc, info_state *s)
{
    uint32_t n = 0;
    dmlops_status st = dmlops_enumerate_devices(NULL, &n);
    if (st == DMLOPS_SUCCESS && n > 0) {
        s->devs = calloc(n, sizeof *s->devs);
        if (!s->devs) st = DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
        else st = dmlops_enumerate_devices(s->devs, &n);
    }
    if (st == DMLOPS_SUCCESS) s->ndev = n;
    else snprintf(s->dev_error, sizeof s->dev_error, "%s", dmlops_last_error_message());
    if (st == DMLOPS_SUCCESS && n == 0) snprintf(s->dev_error, sizeof s->dev_error, "the loader lists no device");

    dmlops_context *ctx = NULL;
    s->ctx_status = dmlops_context_create(desc, &ctx);
    if (s->ctx_status == DMLOPS_SUCCESS) s->ctx_status = dmlops_context_get_info(ctx, &s->ctx);
    if (s->ctx_status == DMLOPS_SUCCESS) s->have_ctx = true;
    else cli_as_typed(dmlops_last_error_message(), s->ctx_error, sizeof s->ctx_error);
    if (s->have_ctx) cli_as_typed(s->ctx.note, s->note, sizeof s->note);
    dmlops_context_destroy(ctx);
}

static void print_device(const dmlops_device_info *d)
{
    char drv[32], api[32], b[32];
    cli_driver_version(d, drv, sizeof drv);
    cli_api_version(d->api_version, api, sizeof api);
    printf("[%u] %s%s\n", d->index, d->name, d->is_default ? "  (default)" : "");
    printf("    type                             %s\n", device_type_name(d->type));
    printf("    vendor / device id               0x%04x / 0x%04x\n", d->vendor_id, d->device_id);
    printf("    Vulkan API                       %s\n", api);
    printf("    driver                           %s%s%s, version %s\n", d->driver_name[0] ? d->driver_name : "(unnamed)",
           d->driver_info[0] ? " - " : "", d->driver_info, drv);
    printf("    UUID                             %s\n", d->uuid_string);
    printf("    maxStorageBufferRange            %llu (%s)\n", (unsigned long long)d->max_storage_buffer_range,
           cli_bytes(d->max_storage_buffer_range, b));
    printf("    maxComputeWorkGroupCount         %u x %u x %u\n", d->max_compute_work_group_count[0],
           d->max_compute_work_group_count[1], d->max_compute_work_group_count[2]);
    printf("    minStorageBufferOffsetAlignment  %llu\n", (unsigned long long)d->min_storage_buffer_offset_alignment);
    printf("    subgroup size                    %u\n", d->subgroup_size);
    if (d->timestamp_period > 0) printf("    timestamp period                 %g ns\n", (double)d->timestamp_period);
    else printf("    timestamp period                 none (no GPU timestamps)\n");
    for (uint32_t h = 0; h < d->memory_heap_count && h < DMLOPS_MAX_MEMORY_HEAPS; h++)
        printf("    memory heap %-2u                   %s%s\n", h, cli_bytes(d->memory_heap_size[h], b),
               d->memory_heap_device_local[h] ? ", device-local" : "");
    if (d->unified_memory) printf("    unified memory                   yes\n");
    printf("    features                        ");
    bool any = false;
    for (size_t f = 0; f < FEATURE_COUNT; f++)
        if (d->features & features[f].bit) {
            printf(" %s", features[f].name);
            any = true;
        }
    printf("%s\n", any ? "" : " (none)");
}

static void print_text(const info_state *s)
{
    printf("dmlops %s\n\n", dmlops_version_string());
    if (s->ndev) printf("Vulkan devices: %u\n", s->ndev);
    else printf("Vulkan devices: none (%s)\n", s->dev_error);
    for (uint32_t i = 0; i < s->ndev; i++) print_device(&s->devs[i]);

    printf("\nContext\n");
    if (!s->have_ctx) {
        printf("    cannot be created (%s): %s\n", dmlops_status_string(s->ctx_status), s->ctx_error);
        return;
    }
    const dmlops_context_info *c = &s->ctx;
    if (c->backend == DMLOPS_BACKEND_CPU) printf("    backend         cpu: the CPU backend will be used\n");
    else printf("    backend         vulkan on [%u] %s\n", c->device.index, c->device.name);
    if (c->backend == DMLOPS_BACKEND_CPU)
        printf("    threads         %u per execution, the caller's included (DMLOPS_CPU_THREADS sets it)\n",
               c->cpu_threads);
    if (s->note[0]) printf("    note            %s\n", s->note);
    printf("    feature level   %s\n", dmlops_feature_level_name(c->feature_level));
    printf("    data types     ");
    for (uint32_t t = 0; t < 32; t++)
        if (c->supported_data_types & (1u << t)) printf(" %s", dmlops_data_type_name((DML_TENSOR_DATA_TYPE)t));
    printf("\n");
}

static cJSON *device_json(const dmlops_device_info *d)
{
    char drv[32], api[32];
    cli_driver_version(d, drv, sizeof drv);
    cli_api_version(d->api_version, api, sizeof api);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", d->index);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "type", device_type_name(d->type));
    cJSON_AddNumberToObject(o, "vendor_id", d->vendor_id);
    cJSON_AddNumberToObject(o, "device_id", d->device_id);
    cJSON_AddStringToObject(o, "api_version", api);
    cJSON_AddStringToObject(o, "driver_name", d->driver_name);
    cJSON_AddStringToObject(o, "driver_info", d->driver_info);
    cJSON_AddStringToObject(o, "driver_version", drv);
    cJSON_AddNumberToObject(o, "driver_version_raw", d->driver_version);
    cJSON_AddStringToObject(o, "uuid", d->uuid_string);
    cJSON_AddNumberToObject(o, "max_storage_buffer_range", (double)d->max_storage_buffer_range);
    cJSON_AddNumberToObject(o, "max_memory_allocation_size", (double)d->max_memory_allocation_size);
    cJSON_AddNumberToObject(o, "max_buffer_size", (double)d->max_buffer_size);
    cJSON *w = cJSON_AddArrayToObject(o, "max_compute_work_group_count");
    for (int i = 0; i < 3; i++) cJSON_AddItemToArray(w, cJSON_CreateNumber(d->max_compute_work_group_count[i]));
    cJSON_AddNumberToObject(o, "max_compute_work_group_invocations", d->max_compute_work_group_invocations);
    cJSON_AddNumberToObject(o, "min_storage_buffer_offset_alignment", (double)d->min_storage_buffer_offset_alignment);
    cJSON_AddNumberToObject(o, "subgroup_size", d->subgroup_size);
    cJSON_AddNumberToObject(o, "timestamp_period_ns", d->timestamp_period);
    cJSON *heaps = cJSON_AddArrayToObject(o, "memory_heaps");
    for (uint32_t h = 0; h < d->memory_heap_count && h < DMLOPS_MAX_MEMORY_HEAPS; h++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "size", (double)d->memory_heap_size[h]);
        cJSON_AddBoolToObject(e, "device_local", d->memory_heap_device_local[h] != 0);
        cJSON_AddItemToArray(heaps, e);
    }
    cJSON_AddBoolToObject(o, "unified_memory", d->unified_memory != 0);
    cJSON *f = cJSON_AddArrayToObject(o, "features");
    for (size_t i = 0; i < FEATURE_COUNT; i++)
        if (d->features & features[i].bit) cJSON_AddItemToArray(f, cJSON_CreateString(features[i].name));
    cJSON_AddBoolToObject(o, "is_default", d->is_default != 0);
    return o;
}

static int print_json(const info_state *s)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return CLI_FAIL;
    cJSON_AddStringToObject(root, "version", dmlops_version_string());
    cJSON *devs = cJSON_AddArrayToObject(root, "devices");
    for (uint32_t i = 0; i < s->ndev; i++) cJSON_AddItemToArray(devs, device_json(&s->devs[i]));
    if (!s->ndev) cJSON_AddStringToObject(root, "devices_error", s->dev_error);
    cJSON *c = cJSON_AddObjectToObject(root, "context");
    if (s->have_ctx) {
        cJSON_AddStringToObject(c, "backend", backend_name(s->ctx.backend));
        if (s->ctx.backend == DMLOPS_BACKEND_VULKAN) {
            cJSON_AddNumberToObject(c, "device_index", s->ctx.device.index);
            cJSON_AddStringToObject(c, "device_name", s->ctx.device.name);
            cJSON_AddStringToObject(c, "device_uuid", s->ctx.device.uuid_string);
        }
        /* A fallback only when the CPU was not asked for (--backend cpu or DMLOPS_BACKEND=cpu). */
        cJSON_AddBoolToObject(c, "cpu_fallback", s->ctx.backend == DMLOPS_BACKEND_CPU && s->requested != DMLOPS_BACKEND_CPU);
        cJSON_AddStringToObject(c, "backend_requested", backend_name(s->requested));
        cJSON_AddStringToObject(c, "feature_level", dmlops_feature_level_name(s->ctx.feature_level));
        cJSON *types = cJSON_AddArrayToObject(c, "data_types");
        for (uint32_t t = 0; t < 32; t++)
            if (s->ctx.supported_data_types & (1u << t))
                cJSON_AddItemToArray(types, cJSON_CreateString(dmlops_data_type_name((DML_TENSOR_DATA_TYPE)t)));
        if (s->ctx.backend == DMLOPS_BACKEND_CPU) cJSON_AddNumberToObject(c, "cpu_threads", s->ctx.cpu_threads);
        cJSON_AddStringToObject(c, "note", s->note);
    } else {
        cJSON_AddStringToObject(c, "status", dmlops_status_string(s->ctx_status));
        cJSON_AddStringToObject(c, "error", s->ctx_error);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        cli_error("dmlops info: out of memory\n");
        return CLI_FAIL;
    }
    puts(text);
    cJSON_free(text);
    return CLI_OK;
}

static const char usage_text[] =
    "usage: dmlops info [--json] [--backend auto|vulkan|cpu] [--device D] [--feature-level L]\n"
    "\n"
    "Lists the Vulkan devices, then creates a context as a program would and shows its\n"
    "backend, device, feature level and data types.\n"
    "\n"
    "  --json                     the same as one JSON object\n"
    "  --backend B, --device D    the context's backend and device (default: the library's choice)\n"
    "  --feature-level L          the DirectML feature level the context validates against (6_4, 0x6400, ...)\n"
    "  -h, --help                 this text\n";

/* The backend asked for: the option, else DMLOPS_BACKEND as the library reads it. */
static dmlops_backend requested_backend(const dmlops_context_desc *desc)
{
    if (desc->backend != DMLOPS_BACKEND_AUTO) return desc->backend;
    const char *env = getenv("DMLOPS_BACKEND");
    if (env && !strcasecmp(env, "cpu")) return DMLOPS_BACKEND_CPU;
    if (env && !strcasecmp(env, "vulkan")) return DMLOPS_BACKEND_VULKAN;
    return DMLOPS_BACKEND_AUTO;
}

int cmd_info(int argc, char **argv)
{
    dmlops_context_desc desc = {0};
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return CLI_OK;
        }
        int r = cli_context_opt(argc, argv, &i, &desc);
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        if (!strcmp(argv[i], "--json")) json = true;
        else {
            cli_error("dmlops info: unknown option '%s' (dmlops info --help lists them)\n", argv[i]);
            return CLI_USAGE;
        }
    }
    info_state s = {0};
    s.requested = requested_backend(&desc);
    gather(&desc, &s);
    int rc = json ? print_json(&s) : (print_text(&s), CLI_OK);
    free(s.devs);
    if (rc == CLI_OK && !s.have_ctx) rc = cli_status_exit(s.ctx_status);
    return rc;
}
