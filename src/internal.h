/* The runtime objects behind the public handles, and the table of functions each
 * backend (cpu/, vk/) provides. The front-end files (context.c, buffer.c, operator.c,
 * command_list.c) check arguments and bindings; backends only do the work. */
#ifndef DM_INTERNAL_H
#define DM_INTERNAL_H

#include "platform/platform.h"
#include <stdatomic.h>
#include <stdbool.h>

#include "alloc.h"
#include "op.h"
#include "status.h"

/* Lifetimes (docs/api.md, "Lifetimes"). Every object is reference-counted: the
 * application's handle is one reference (its *_destroy drops it), and whatever uses the
 * object holds one more: a command-list entry its operator and buffers, a binding table
 * its operator, a submission in flight everything it uses. Every object holds its context,
 * so a context lives until its last object goes. The last release frees, on whichever
 * thread drops it, never with the context's lock held.
 *
 * Apart from the memory, a context counts the handles the application still holds (its
 * own and its objects'): when the last goes, nothing can ever wait for the work in flight
 * again, so the context waits for it then (dm_handles_close), and the references that
 * work held are dropped, which frees everything. */
void dm_context_retain(dmlops_context *ctx);
void dm_context_release(dmlops_context *ctx);
/* A handle given to the application / taken back from it (the caller holds a reference
 * to ctx across the close). */
void dm_handles_open(dmlops_context *ctx);
void dm_handles_close(dmlops_context *ctx);
/* A new buffer's first reference (the application's), its context's and its handle. */
void dm_buffer_adopt(dmlops_buffer *buf);
void dm_buffer_retain(dmlops_buffer *buf);
void dm_buffer_release(dmlops_buffer *buf);
void dm_operator_retain(dmlops_operator *op);
void dm_operator_release(dmlops_operator *op);
void dm_list_retain(dmlops_command_list *list);
void dm_list_release(dmlops_command_list *list);

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

/* A list entry takes (or gives back) its references to its operator and buffers; all of
 * a list's entries give theirs back (after the backend forgot them). */
void dm_list_entry_hold(const dm_list_entry *e, bool take);
void dm_list_release_entries(dmlops_command_list *l);

/* A submission (submit.c): one operator execution, list execution, write or read, from
 * its start until its references are dropped. The context keeps those in flight in
 * submission order; retiring one (under the context lock, once its backend says it has
 * completed) finishes its host side (a read's copy into the caller's memory), hands its
 * fence the result and drops what it held; the structure is then kept for the next
 * submission, so that synchronous calls allocate nothing once warm. */
typedef enum dm_sub_kind { DM_SUB_OPERATOR, DM_SUB_LIST, DM_SUB_WRITE, DM_SUB_READ } dm_sub_kind;

typedef struct dm_sub {
    struct dm_sub *next;       /* the context's list: in flight, or kept for reuse */
    dmlops_context *ctx;
    dm_sub_kind kind;
    uint64_t ticket;           /* 1, 2, ...: submission order on the context */
    dmlops_operator *op;       /* held (DM_SUB_OPERATOR) */
    dmlops_command_list *list; /* held (DM_SUB_LIST) */
    dmlops_binding bind[DM_MAX_BINDINGS]; /* an operator's bindings, checked; a transfer's buffer in bind[0] */
    uint32_t nbind;            /* buffers held: bind[0 .. nbind) */
    uint64_t offset, size;     /* transfers: the range of bind[0].buffer */
    void *host;                /* a read's destination; a write's source (valid during submit only) */
    const struct dm_submit_ext *ext; /* during submit only: what the submit info's chain asked for */
    const char *fn;            /* during submit only: the public call, for messages */
    uint64_t semaphore, value; /* set by a start that signals a timeline VkSemaphore, for the fence */
    struct dmlops_fence *fence; /* held, or NULL */
    uint32_t pins;             /* threads waiting on it without the lock: not reused until 0 */
    bool retired;              /* completed and retired: status is final */
    bool released;             /* its references were dropped: free for reuse once unpinned */
    dmlops_status status;      /* the work's outcome, once retired */
    double t0;                 /* submission time: a list's wall_seconds */
    void *impl;                /* the backend's (made with the structure, kept with it) */
} dm_sub;

/* A fence (submit.c): the application's, and its submission's until retired. */
struct dmlops_fence {
    dmlops_context *ctx;    /* held */
    _Atomic uint32_t refs;
    dm_sub *sub;            /* in flight, under the context lock; NULL once done */
    bool done;              /* under the context lock */
    dmlops_status status;   /* the submission's outcome, once done */
    bool read;              /* a read's: destroying it first waits */
    uint64_t semaphore;     /* Vulkan: the timeline VkSemaphore it signals (0: a VkFence), */
    uint64_t value;         /*   and the value */
};

/* What a dmlops_submit_info's chain asked for (the Vulkan semaphores). */
typedef struct dm_submit_ext {
    const void *vulkan_semaphores; /* a dmlops_vulkan_semaphores, checked, or NULL */
} dm_submit_ext;

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
    /* Submissions (submit.c). sync_inline: synchronous calls run on the caller's thread
     * (after the work in flight), not as a submission waited for. The rest are called with
     * the context lock held, but for sub_wait. */
    bool sync_inline;
    size_t sub_size;                               /* bytes of a submission's impl */
    /* dmlops_context_get_memory_info / dmlops_operator_get_info2: the device memory a
     * context holds; an operator's memory (device_bytes, host_bytes of its backend part,
     * descriptor_sets) and its kernel (NULL: none). */
    uint64_t (*device_bytes)(const dmlops_context *ctx);
    void (*operator_memory)(const dmlops_operator *op, dmlops_memory_info *m);
    void (*operator_kernel)(const dmlops_operator *op, dmlops_operator_kernel_info *k);
    dmlops_status (*sub_start)(dm_sub *s);         /* starts s's work (it is in flight after) */
    /* Waits without the lock (s is pinned) at most timeout_ns for s's work: SUCCESS once it
     * completed, DMLOPS_TIMEOUT, or the failure of the wait (after which the work is known to
     * have stopped, or the device is lost). */
    dmlops_status (*sub_wait)(dm_sub *s, uint64_t timeout_ns);
    bool (*sub_done)(dm_sub *s, dmlops_status *status); /* whether s completed, and how */
    void (*sub_retire)(dm_sub *s);                 /* after completion: host side, resources back */
    void (*sub_free)(dm_sub *s);                   /* a kept structure's impl, at context teardown */
} dm_backend_vtbl;

struct dmlops_context {
    const dm_backend_vtbl *vt;
    dmlops_backend backend;
    DML_FEATURE_LEVEL level;
    uint32_t flags;
    char note[512];
    dm_allocator alloc; /* host memory of the context and its objects (alloc.h) */
    dmlops_log_callback log; /* the application's (callback NULL: none), its chain dropped */
    dm_count64 host_extra;       /* host memory held outside it: the CPU backend's buffer contents
                                    when the context has no allocation callbacks */
    dm_mutex lock; /* serialises submissions and staging */
    _Atomic uint32_t refs;    /* the application's until dmlops_context_destroy, and one per object */
    _Atomic uint32_t handles; /* handles the application holds: the context's and its objects' */
    /* Submissions (submit.c), under `lock`: in flight, oldest first, and kept for reuse. */
    dm_sub *oldest, *newest, *spare;
    uint64_t tickets;         /* the last ticket given */
    _Atomic uint32_t in_flight; /* submissions in flight, read without the lock */
    void *impl;
};

struct dmlops_buffer {
    dmlops_context *ctx;
    uint64_t size;
    /* Identity of the memory behind the buffer, so that two wrappers of one VkBuffer
     * are seen to overlap: bytes [resource_offset, +size) of resource. */
    uintptr_t resource;
    uint64_t resource_offset;
    _Atomic uint32_t refs; /* the application's, and each holder's (above) */
    void *impl;
};

struct dmlops_operator {
    dmlops_context *ctx;
    dm_op op;
    dmlops_operator_info info;
    _Atomic uint32_t refs; /* the application's, and each holder's (above) */
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
bool dm_range_set_reserve(dm_allocator *a, dm_range_set *s, uint32_t extra); /* room to add `extra` ranges */
void dm_range_set_add(dm_range_set *s, dm_range q);                         /* after a reserve */
void dm_range_set_free(dm_allocator *a, dm_range_set *s);

struct dmlops_command_list {
    dmlops_context *ctx;
    dm_list_entry *entries;
    uint32_t count, cap;
    uint32_t barrier_count;
    dm_range_set reads, writes; /* bytes touched since the last barrier */
    dmlops_execution_stats stats; /* the last execution's, once `executed` */
    bool executed;
    /* A tracing context's (DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES): the last execution's
     * access statistics, valid when access_status is DMLOPS_SUCCESS; before a first
     * execution DMLOPS_ERROR_INVALID_ARGUMENT, after a trace that could not be counted
     * its failure, whose message is access_error. */
    dmlops_access_stats access;
    dmlops_status access_status;
    char access_error[256];
    _Atomic uint32_t refs; /* the application's, and each submission's in flight */
    dm_sub *pending;       /* its execution in flight (one at a time), under the context lock */
    void *impl;
};

/* submit.c. dm_submit: runs a prepared submission (kind, references, bindings, range)
 * on its context: starts it, and with fence_out gives it a fence; with sync, waits for it
 * and returns its outcome. fn names the public call in messages. */
dmlops_status dm_submit(const char *fn, dm_sub *proto, const dmlops_submit_info *info, bool sync,
                        struct dmlops_fence **fence_out);
/* Waits for every submission in flight on ctx (none: at once); the first failure met.
 * Not with the lock held. */
dmlops_status dm_wait_in_flight(dmlops_context *ctx);
/* Waits for the list's execution in flight, if any (before recording or resetting it). */
void dm_list_wait(dmlops_command_list *list);
/* Frees the kept submissions (at context teardown, before the backend's). */
void dm_subs_free(dmlops_context *ctx);

/* Checks bindings against operators.md section 2 and the operator's tensors. */
dmlops_status dm_check_bindings(const dmlops_operator *op, uint32_t input_count, const dmlops_binding *inputs,
                                uint32_t output_count, const dmlops_binding *outputs, dmlops_binding *bound);

/* Range of a binding as the operator touches it: [offset, offset + TotalTensorSizeInBytes). */
dm_range dm_binding_range(const dmlops_operator *op, uint32_t i, const dmlops_binding *b);
bool dm_ranges_overlap(dm_range a, dm_range b);

/* st; a failure's message (the thread's) goes to the context's log callback too, as an
 * error about `object` (of type `type`). Every public call on a context or its objects
 * returns through it. */
dmlops_status dm_logged(dmlops_context *ctx, dmlops_log_object type, const void *object, dmlops_status st);
/* Sends message to the context's log callback at `severity`, if it takes that severity. */
void dm_log(const dmlops_context *ctx, dmlops_log_severity severity, dmlops_log_object type, const void *object,
            const char *message);

/* DMLOPS_ERROR_DEVICE_LOST, naming fn, once the context's device is lost: every call
 * that would create, record, execute, read or write fails so (docs/api.md); info
 * queries, resets and destroys still work. */
dmlops_status dm_check_lost(const dmlops_context *ctx, const char *fn);

/* What a creation's chain of extensible structures asked for (dmlops.h). */
typedef struct dm_create_ext {
    const dmlops_allocation_callbacks *alloc; /* checked, or NULL */
    const dmlops_log_callback *log;           /* checked, or NULL */
    const void *vulkan_alloc;                 /* a dmlops_vulkan_allocation_callbacks, or NULL */
    const dmlops_tuning_options *tuning;      /* checked at creation (dm_tuning_apply_options), or NULL */
} dm_create_ext;
/* Checks that head (a structure starting with s_type) has s_type `type`, and finds in its
 * chain the structures a context's creation takes; fn and what name the call and the
 * structure in messages. */
dmlops_status dm_create_ext_parse(const char *fn, const char *what, const void *head, dmlops_structure_type type,
                                  dm_create_ext *ext);
/* The names of the structures whose fields a creation read, for messages: the 1.0 entry
 * points name dmlops_context_desc and dmlops_context_options, the extensible ones their
 * create info. */
typedef struct dm_field_names {
    const char *desc, *options;
} dm_field_names;

/* After a context's creation: its note to its log callback, and the tuning variables it
 * did not understand (env_rejected, or NULL) as a warning. */
void dm_created(dmlops_context *ctx, const char *env_rejected);
/* st; a failed creation's message goes to the log callback of its chain, if any. */
dmlops_status dm_create_failed(const dm_create_ext *ext, dmlops_status st);

/* A context shell without a backend, and its release. */
dmlops_status dm_context_alloc(DML_FEATURE_LEVEL level, uint32_t flags, const dm_create_ext *ext, dmlops_context **out);
void dm_context_free(dmlops_context *ctx);

/* Backends. */
typedef struct dm_cpu_params {
    uint32_t threads;     /* 0: $DMLOPS_CPU_THREADS, else the CPUs this process may use */
    uint32_t wait;        /* DMLOPS_CPU_WAIT_* */
    uint64_t chunk_bytes; /* 0: the measured default */
    uint64_t stream_bytes; /* 0: dm_stream_min_bytes() */
    const char *options;  /* the structure that held these fields, for messages */
} dm_cpu_params;
dmlops_status dm_cpu_context_init(dmlops_context *ctx, const dm_cpu_params *params);

typedef struct dm_vk_params {
    void (*loader)(void);             /* the application's vkGetInstanceProcAddr; NULL: the system's */
    const void *vulkan_alloc;         /* a dmlops_vulkan_allocation_callbacks, or NULL */
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
static inline double dm_now(void) { return (double)dm_now_ns() * 1e-9; }

#endif
