/* The runtime objects behind the public handles, and the table of functions each
 * backend (cpu/, vk/) provides. The front-end files (context.c, buffer.c, operator.c,
 * command_list.c) check arguments and bindings; backends only do the work. */
#ifndef DM_INTERNAL_H
#define DM_INTERNAL_H

#include "platform/platform.h"
#include <stdatomic.h>
#include <stdbool.h>

#include "op.h"
#include "status.h"

/* Command lists hold what they record: each entry retains its operator and buffers, and
 * releases them at reset or destroy; the last release frees (and the application's
 * *_destroy is one release). */
void dm_buffer_retain(dmlops_buffer *buf);
void dm_buffer_release(dmlops_buffer *buf);
void dm_operator_retain(dmlops_operator *op);
void dm_operator_release(dmlops_operator *op);

typedef struct dm_list_entry {
    dmlops_operator *op;                /* NULL for a plain copy */
    dmlops_binding bind[DM_MAX_BINDINGS];
    uint32_t nbind;
    bool barrier_before;                /* a hazard with earlier entries */
    dmlops_buffer *copy_dst, *copy_src; /* copy entries */
    bool compute;                       /* a copy by the copy shader (record_compute_copy) */
    dmlops_compute_copy_shape shape;    /* its shape, every field set (no zeros) but the count */
    uint64_t copy_dst_offset, copy_src_offset, copy_size;
    void *impl;                         /* backend data, e.g. a binding table */
} dm_list_entry;

typedef struct dm_backend_vtbl {
    /* Executions may run at once on several threads: the front end does not serialise
     * them on the context lock (the backend locks what it shares). */
    bool concurrent_execute;
    /* The backend records copies by a compute shader (record_compute_copy). */
    bool compute_copy;
    void (*context_destroy)(dmlops_context *ctx);
    void (*context_info)(dmlops_context *ctx, dmlops_context_info *info);
    dmlops_status (*buffer_create)(dmlops_buffer *buf);
    void (*buffer_destroy)(dmlops_buffer *buf);
    dmlops_status (*buffer_write)(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size);
    dmlops_status (*buffer_read)(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size);
    dmlops_status (*operator_create)(dmlops_operator *op);
    void (*operator_destroy)(dmlops_operator *op);
    dmlops_status (*operator_execute)(dmlops_operator *op, const dmlops_binding *bind);
    dmlops_status (*list_create)(dmlops_command_list *list);
    void (*list_destroy)(dmlops_command_list *list);
    dmlops_status (*list_record)(dmlops_command_list *list, dm_list_entry *entry);
    dmlops_status (*list_execute)(dmlops_command_list *list);
    void (*list_reset)(dmlops_command_list *list);
    /* Whether the context's device is lost (NULL: never). */
    bool (*lost)(const dmlops_context *ctx);
} dm_backend_vtbl;

struct dmlops_context {
    const dm_backend_vtbl *vt;
    dmlops_backend backend;
    DML_FEATURE_LEVEL level;
    uint32_t flags;
    char note[512];
    dm_mutex lock; /* serialises submissions and staging */
    void *impl;
};

struct dmlops_buffer {
    dmlops_context *ctx;
    uint64_t size;
    /* Identity of the memory behind the buffer, so that two wrappers of one VkBuffer
     * are seen to overlap: bytes [resource_offset, +size) of resource. */
    uintptr_t resource;
    uint64_t resource_offset;
    /* References beyond the application's own (zero from calloc): one per command-list
     * entry naming the buffer, so that a buffer destroyed while a list still holds it
     * lives until the list is reset or destroyed (dm_buffer_retain / _release). */
    _Atomic uint32_t extra_refs;
    void *impl;
};

struct dmlops_operator {
    dmlops_context *ctx;
    dm_op op;
    dmlops_operator_info info;
    _Atomic uint32_t extra_refs; /* as for buffers: one per command-list entry */
    void *impl;
};

typedef struct dm_range {
    uintptr_t resource;
    uint64_t lo, hi;
} dm_range;

/* A set of disjoint byte ranges (range_set.c). */
typedef struct dm_range_set {
    dm_range *r;
    uint32_t n, cap;
} dm_range_set;
bool dm_range_set_hits(const dm_range_set *s, dm_range q);
bool dm_range_set_reserve(dm_range_set *s, uint32_t extra); /* room to add `extra` ranges */
void dm_range_set_add(dm_range_set *s, dm_range q);         /* after a reserve */
void dm_range_set_free(dm_range_set *s);

struct dmlops_command_list {
    dmlops_context *ctx;
    dm_list_entry *entries;
    uint32_t count, cap;
    uint32_t barrier_count;
    dm_range_set reads, writes; /* bytes touched since the last barrier */
    dmlops_execution_stats stats;
    /* A tracing context's (DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES): the last execution's
     * access statistics, valid when access_status is DMLOPS_SUCCESS; before a first
     * execution DMLOPS_ERROR_INVALID_ARGUMENT, after a trace that could not be counted
     * its failure, whose message is access_error. */
    dmlops_access_stats access;
    dmlops_status access_status;
    char access_error[256];
    void *impl;
};

/* Checks bindings against operators.md section 2 and the operator's tensors. */
dmlops_status dm_check_bindings(const dmlops_operator *op, uint32_t input_count, const dmlops_binding *inputs,
                                uint32_t output_count, const dmlops_binding *outputs, dmlops_binding *bound);

/* Range of a binding as the operator touches it: [offset, offset + TotalTensorSizeInBytes). */
dm_range dm_binding_range(const dmlops_operator *op, uint32_t i, const dmlops_binding *b);
bool dm_ranges_overlap(dm_range a, dm_range b);

/* DMLOPS_ERROR_DEVICE_LOST, naming fn, once the context's device is lost: every call
 * that would create, record, execute, read or write fails so (docs/api.md); info
 * queries, resets and destroys still work. */
dmlops_status dm_check_lost(const dmlops_context *ctx, const char *fn);

/* A context shell without a backend, and its release. */
dmlops_status dm_context_alloc(DML_FEATURE_LEVEL level, uint32_t flags, dmlops_context **out);
void dm_context_free(dmlops_context *ctx);

/* Backends. */
typedef struct dm_cpu_params {
    uint32_t threads;     /* 0: $DMLOPS_CPU_THREADS, else the CPUs this process may use */
    uint32_t wait;        /* DMLOPS_CPU_WAIT_* */
    uint64_t chunk_bytes; /* 0: the measured default */
    uint64_t stream_bytes; /* 0: dm_stream_min_bytes() */
} dm_cpu_params;
dmlops_status dm_cpu_context_init(dmlops_context *ctx, const dm_cpu_params *params);

typedef struct dm_vk_params {
    void (*loader)(void);             /* the application's vkGetInstanceProcAddr; NULL: the system's */
    const char *device;
    bool hardware_only;               /* AUTO: skip software (CPU-type) devices */
    const char *pipeline_cache_path;
    uint64_t max_binding_range;
    uint32_t max_workgroup_count;
    uint64_t max_allocation_size;
    /* Tuning from the environment (dm_env_vk_tuning); each 0 or -1 leaves it to the
     * device class (src/vk/vk_properties.c). */
    int texel;                        /* DMLOPS_VK_TEXEL: -1 by device class, 0 off, 1 on */
    int tiles;                        /* DMLOPS_VK_TILES: -1 by device class, 0 off, 1 on */
    int cpu_tuning;                   /* DMLOPS_VK_TUNING: -1 by device type, 0 GPU, 1 CPU */
    uint32_t lanes;                   /* DMLOPS_VK_LANES: 0, else a power of two up to 64 */
    uint32_t run;                     /* DMLOPS_VK_RUN: 0, else a power of two up to 32 */
    uint32_t grid_cap;                /* DMLOPS_VK_GRID: 0, else workgroups per dispatch */
    uint32_t workgroup;               /* DMLOPS_VK_WORKGROUP: 0, else a power of two up to 1024 */
    int64_t copy_min_bytes;           /* DMLOPS_VK_COPY_MIN: -1, else the copy-region threshold */
    /* Variables set to a value not understood, as `NAME="value", ...` for the note. */
    char env_rejected[320];
} dm_vk_params;
dmlops_status dm_vk_context_init(dmlops_context *ctx, const dm_vk_params *params);
/* Opens and closes the device AUTO would take, without the validation layer: SUCCESS when
 * a hardware Vulkan device is usable, NO_DEVICE (with the message why) when none is. */
dmlops_status dm_vk_hardware_probe(void (*loader)(void));
/* Reads the Vulkan tuning variables into p (docs/api.md, "Environment"): DMLOPS_VK_TEXEL
 * "0" / "1" forces the kernels' texel path off or on; DMLOPS_VK_TUNING "gpu" / "cpu"
 * tunes for that device class whatever the device's type, so that one device can run
 * both classes' kernels (the tests do); DMLOPS_VK_LANES (1 to 64), DMLOPS_VK_RUN (1 to 32
 * chunks a unit, a power of two), DMLOPS_VK_GRID (1 to 2^20 workgroups), DMLOPS_VK_WORKGROUP (1 to 1024 invocations, a power of two; above
 * the device's maxComputeWorkGroupInvocations it is ignored) and DMLOPS_VK_COPY_MIN
 * (0 to 2^40 bytes: the shortest contiguous run that becomes a copy region) set those
 * values, for measurements and tuning without a rebuild. Anything else, or unset,
 * leaves the device class's default; a value set but not understood is named in
 * p->env_rejected. */
void dm_env_vk_tuning(dm_vk_params *p);
/* What p sets from the environment and what the context's device made of it, as
 * "; tuning from the environment: ..." for the note, or "" when nothing was set: a value
 * the device cannot take, or one not understood, is named with "not taken" and why.
 * ctx is a Vulkan context whose setup succeeded (src/vk/vk_backend.c). */
void dm_vk_tuning_note(const dmlops_context *ctx, const dm_vk_params *p, char *buf, size_t size);
/* Fills ctx->note: the backend and device (ctx->vt and ctx->backend set), then why. */
void dm_note_choice(dmlops_context *ctx, const char *why);
dmlops_status dm_vk_enumerate(dmlops_device_info *infos, uint32_t *count);

/* Monotonic seconds. */
double dm_now(void);

#endif
