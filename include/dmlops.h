/*
 * dmlops.h - DirectML's REVERSE_SUBSEQUENCES, SLICE1 and ONE_HOT operators on any
 * Vulkan device, with a pure-C fallback.
 *
 * Copyright (c) 2026 The libdmlops developers. MIT licence, see LICENSE.
 *
 * Two halves:
 *  1. The DirectML descriptors (DML_*), with DirectML's names, field order and values,
 *     so that code written against DirectML.h compiles unchanged. If DirectML.h was
 *     included first they are taken from there.
 *  2. A small runtime (dmlops_*): contexts, buffers, operators and command lists.
 * The Vulkan interop API is in dmlops_vulkan.h, which includes this header; this one
 * includes it in turn when <vulkan/vulkan.h> or <volk.h> was included before it.
 *
 * Conventions for every function:
 *  - A NULL where a pointer is required returns DMLOPS_ERROR_INVALID_ARGUMENT.
 *  - A failing call has no effect and sets a thread-local message, read with
 *    dmlops_last_error_message(), that names the operator, field, dimension and values,
 *    or the failing Vulkan call and its VkResult.
 *  - *_destroy(NULL) does nothing. Nothing is freed behind your back: there is no atexit
 *    handler and no static destructor.
 *  - Lifetimes: every object is reference-counted. *_destroy drops the application's
 *    handle; the object lives on while something still uses it (a command list that
 *    records it, a binding table, work in flight), and every object keeps its context
 *    alive. So objects may be destroyed in any order, the context first included, and a
 *    destroyed context's objects keep working. When the application's last handle of a
 *    context and its objects goes, the call that drops it waits for the context's work in
 *    flight, and everything is freed. A handle must not be used after its *_destroy.
 *  - Thread safety is documented per function. In short: objects of one context may be
 *    used from several threads; calls that submit work to the device serialise on the
 *    context; an object must not be destroyed while another thread uses that object.
 */
#ifndef DMLOPS_H
#define DMLOPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version: the one place it is written. dmlops_version_string(), the
 * pkg-config file and the Vulkan engine version are derived from these. */
#define DMLOPS_VERSION_MAJOR 1
#define DMLOPS_VERSION_MINOR 0
#define DMLOPS_VERSION_PATCH 0

/* The library is built with hidden visibility; only functions marked DMLOPS_API are
 * exported, so its internals (and its private copy of volk) never clash with yours. */
#if defined(_WIN32) || defined(__CYGWIN__)
/* Windows: the library's own build marks its exports (DMLOPS_BUILD); an application
 * linking dmlops.dll through its import library may define DMLOPS_DLL for direct
 * imports (optional: the import library's thunks work without it). Linking
 * libdmlops.a needs neither. */
#if defined(DMLOPS_BUILD)
#define DMLOPS_API __declspec(dllexport)
#elif defined(DMLOPS_DLL)
#define DMLOPS_API __declspec(dllimport)
#else
#define DMLOPS_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define DMLOPS_API __attribute__((visibility("default")))
#else
#define DMLOPS_API
#endif

/* ======================================================================================
 * 1. DirectML-compatible descriptors
 * ==================================================================================== */
#ifndef DIRECTML_H

#define DML_TENSOR_DIMENSION_COUNT_MAX 5
#define DML_TENSOR_DIMENSION_COUNT_MAX1 8
#define DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT 16
#define DML_TEMPORARY_BUFFER_ALIGNMENT 256
#define DML_PERSISTENT_BUFFER_ALIGNMENT 256

typedef enum DML_TENSOR_DATA_TYPE {
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DML_TENSOR_DATA_TYPE_UINT32 = 3,
    DML_TENSOR_DATA_TYPE_UINT16 = 4,
    DML_TENSOR_DATA_TYPE_UINT8 = 5,
    DML_TENSOR_DATA_TYPE_INT32 = 6,
    DML_TENSOR_DATA_TYPE_INT16 = 7,
    DML_TENSOR_DATA_TYPE_INT8 = 8,
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DML_TENSOR_DATA_TYPE_UINT64 = 10,
    DML_TENSOR_DATA_TYPE_INT64 = 11,
    DML_TENSOR_DATA_TYPE_UINT4 = 12, /* named for completeness; no operator here takes it */
    DML_TENSOR_DATA_TYPE_INT4 = 13
} DML_TENSOR_DATA_TYPE;

typedef enum DML_TENSOR_TYPE {
    DML_TENSOR_TYPE_INVALID = 0,
    DML_TENSOR_TYPE_BUFFER = 1
} DML_TENSOR_TYPE;

typedef enum DML_TENSOR_FLAGS {
    DML_TENSOR_FLAG_NONE = 0x0,
    DML_TENSOR_FLAG_OWNED_BY_DML = 0x1
} DML_TENSOR_FLAGS;

typedef enum DML_OPERATOR_TYPE {
    DML_OPERATOR_INVALID = 0,
    DML_OPERATOR_ONE_HOT = 95,
    DML_OPERATOR_REVERSE_SUBSEQUENCES = 106,
    DML_OPERATOR_SLICE1 = 111
} DML_OPERATOR_TYPE;

typedef enum DML_FEATURE_LEVEL {
    DML_FEATURE_LEVEL_1_0 = 0x1000,
    DML_FEATURE_LEVEL_2_0 = 0x2000,
    DML_FEATURE_LEVEL_2_1 = 0x2100,
    DML_FEATURE_LEVEL_3_0 = 0x3000,
    DML_FEATURE_LEVEL_3_1 = 0x3100,
    DML_FEATURE_LEVEL_4_0 = 0x4000,
    DML_FEATURE_LEVEL_4_1 = 0x4100,
    DML_FEATURE_LEVEL_5_0 = 0x5000,
    DML_FEATURE_LEVEL_5_1 = 0x5100,
    DML_FEATURE_LEVEL_5_2 = 0x5200,
    DML_FEATURE_LEVEL_6_0 = 0x6000,
    DML_FEATURE_LEVEL_6_1 = 0x6100,
    DML_FEATURE_LEVEL_6_2 = 0x6200,
    DML_FEATURE_LEVEL_6_3 = 0x6300,
    DML_FEATURE_LEVEL_6_4 = 0x6400
} DML_FEATURE_LEVEL;

typedef struct DML_BUFFER_TENSOR_DESC {
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    uint32_t DimensionCount;
    const uint32_t *Sizes;   /* [DimensionCount], each >= 1 */
    const uint32_t *Strides; /* [DimensionCount] in elements, or NULL for packed row-major */
    uint64_t TotalTensorSizeInBytes;
    uint32_t GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct DML_TENSOR_DESC {
    DML_TENSOR_TYPE Type;
    const void *Desc; /* a DML_BUFFER_TENSOR_DESC when Type is DML_TENSOR_TYPE_BUFFER */
} DML_TENSOR_DESC;

typedef struct DML_OPERATOR_DESC {
    DML_OPERATOR_TYPE Type;
    const void *Desc;
} DML_OPERATOR_DESC;

typedef struct DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *SequenceLengthsTensor;
    const DML_TENSOR_DESC *OutputTensor;
    uint32_t Axis;
} DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC;

typedef struct DML_SLICE1_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
    uint32_t DimensionCount;
    const uint32_t *InputWindowOffsets; /* [DimensionCount] */
    const uint32_t *InputWindowSizes;   /* [DimensionCount] */
    const int32_t *InputWindowStrides;  /* [DimensionCount], non-zero, may be negative */
} DML_SLICE1_OPERATOR_DESC;

typedef struct DML_ONE_HOT_OPERATOR_DESC {
    const DML_TENSOR_DESC *IndicesTensor;
    const DML_TENSOR_DESC *ValuesTensor;
    const DML_TENSOR_DESC *OutputTensor;
    uint32_t Axis;
} DML_ONE_HOT_OPERATOR_DESC;

#endif /* DIRECTML_H */

/* ======================================================================================
 * 2. The runtime
 * ==================================================================================== */

typedef enum dmlops_status {
    DMLOPS_SUCCESS = 0,
    DMLOPS_ERROR_INVALID_ARGUMENT,   /* a descriptor or binding breaks a rule (E_INVALIDARG) */
    DMLOPS_ERROR_UNSUPPORTED,        /* valid, but not at this feature level or on this device */
    DMLOPS_ERROR_OUT_OF_HOST_MEMORY,
    DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY,
    DMLOPS_ERROR_NO_DEVICE,          /* no usable device, or the requested one is absent */
    DMLOPS_ERROR_DEVICE_LOST,        /* the device was lost; the context is unusable */
    DMLOPS_ERROR_BACKEND,            /* any other backend failure, described in the message */
    /* Not failures: they set no message. */
    DMLOPS_NOT_READY,                /* dmlops_fence_poll: the work has not completed yet */
    DMLOPS_TIMEOUT                   /* dmlops_fence_wait: it did not complete in the time given */
} dmlops_status;

typedef struct dmlops_context dmlops_context;
typedef struct dmlops_buffer dmlops_buffer;
typedef struct dmlops_operator dmlops_operator;
typedef struct dmlops_command_list dmlops_command_list;
typedef struct dmlops_binding_table dmlops_binding_table;
typedef struct dmlops_fence dmlops_fence;

/* ---- Extensible structures ------------------------------------------------------------
 * Every structure the library reads from the caller that was added after 1.0, and every
 * structure it fills that may grow, starts with s_type and next, as Vulkan's sType and
 * pNext do: s_type names the structure (a dmlops_structure_type), next points to the next
 * structure of a chain (or is NULL). A call names which structures its chain may hold. A
 * chain holding a structure the call does not take, one whose s_type this library does
 * not know (a newer header's), the same s_type twice, or more than 64 structures (a loop)
 * is DMLOPS_ERROR_INVALID_ARGUMENT naming the s_type: the library never ignores what it
 * was asked for. Later versions add fields only at the end of a structure, with a new
 * s_type for the longer form, so that a binary built against an older header keeps
 * working. The 1.0 structures (dmlops_context_desc, dmlops_context_options,
 * dmlops_vulkan_context_desc, dmlops_operator_info, ...) are frozen: their entry points
 * stay as they are, and the newer entry points take the extensible forms. */
typedef enum dmlops_structure_type {
    DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO = 1,       /* dmlops_context_create_info */
    DMLOPS_STRUCTURE_TYPE_ALLOCATION_CALLBACKS = 2,      /* dmlops_allocation_callbacks */
    DMLOPS_STRUCTURE_TYPE_LOG_CALLBACK = 3,              /* dmlops_log_callback */
    DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO = 4,               /* dmlops_submit_info */
    DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2 = 5,            /* dmlops_operator_info2 */
    DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO = 6,      /* dmlops_operator_kernel_info */
    DMLOPS_STRUCTURE_TYPE_MEMORY_INFO = 7,               /* dmlops_memory_info */
    /* dmlops_vulkan.h */
    DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO = 100,   /* dmlops_vulkan_context_create_info */
    DMLOPS_STRUCTURE_TYPE_VULKAN_ALLOCATION_CALLBACKS = 101,  /* dmlops_vulkan_allocation_callbacks */
    DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES = 102,            /* dmlops_vulkan_semaphores */
    DMLOPS_STRUCTURE_TYPE_VULKAN_EXTERNAL_MEMORY = 103,       /* dmlops_vulkan_external_memory */
    /* The on-device tuner's dmlops_tuning_options, chained from a context's create info. */
    DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS = 1000,
    DMLOPS_STRUCTURE_TYPE_MAX_ENUM = 0x7fffffff
} dmlops_structure_type;

/* The head every extensible structure shares, for walking a chain. */
typedef struct dmlops_base_structure {
    dmlops_structure_type s_type;
    const struct dmlops_base_structure *next;
} dmlops_base_structure;

/* "DMLOPS_SUCCESS", "DMLOPS_ERROR_INVALID_ARGUMENT", ...; "unknown status" otherwise.
 * Thread-safe. */
DMLOPS_API const char *dmlops_status_string(dmlops_status status);

/* Text of the most recent failure on the calling thread ("" if none yet). The pointer
 * stays valid until the next failing call on this thread. Thread-safe (per thread). */
DMLOPS_API const char *dmlops_last_error_message(void);

/* "1.0.0". Thread-safe. */
DMLOPS_API const char *dmlops_version_string(void);

/* DMLCalcBufferTensorSize: the minimum TotalTensorSizeInBytes of a tensor, rounded up
 * to a multiple of 4. strides may be NULL (packed). Computed in 64 bits; returns 0 when
 * the type is not one of the 11 element types, dimension_count is 0 or above 8, sizes is
 * NULL, a size is 0, or the result does not fit in 64 bits. Thread-safe. */
DMLOPS_API uint64_t dmlops_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE type, uint32_t dimension_count,
                                        const uint32_t *sizes, const uint32_t *strides);

/* Checks desc against every rule of docs/operators.md at feature level `level` (0 means
 * the highest level the library implements). No device; host memory only to prove that
 * an output whose strides interleave its dimensions gives each element its own address
 * (at most 32 MiB, freed before it returns; DMLOPS_ERROR_OUT_OF_HOST_MEMORY when it cannot
 * be had). Returns DMLOPS_ERROR_INVALID_ARGUMENT when desc breaks a rule at every level,
 * and DMLOPS_ERROR_UNSUPPORTED when it is valid at a higher level only, when desc->Type is
 * not an operator libdmlops runs, or for DML_TENSOR_FLAG_OWNED_BY_DML (no level takes
 * it). Thread-safe. */
DMLOPS_API dmlops_status dmlops_validate_operator(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level);

/* The highest feature level the library implements (DML_FEATURE_LEVEL_6_4). */
#define DMLOPS_FEATURE_LEVEL_HIGHEST DML_FEATURE_LEVEL_6_4

/* ---- Contexts ---------------------------------------------------------------------- */

typedef enum dmlops_backend {
    DMLOPS_BACKEND_AUTO = 0, /* a hardware Vulkan device (discrete, integrated or virtual GPU,
                                else of type "other") if one is usable, else the CPU
                                backend; never a software Vulkan device such as lavapipe
                                or SwiftShader */
    DMLOPS_BACKEND_VULKAN,
    DMLOPS_BACKEND_CPU
} dmlops_backend;

/* Khronos validation layer plus a debug messenger that counts its messages
 * (dmlops_context_info.debug_message_count) and prints them to stderr. */
#define DMLOPS_CONTEXT_FLAG_DEBUG 0x1u
/* Never lower an operator to vkCmdCopyBuffer regions: always run a kernel. */
#define DMLOPS_CONTEXT_FLAG_KERNELS_ONLY 0x2u
/* Lower to copy regions whenever the operator allows it, whatever the run length. */
#define DMLOPS_CONTEXT_FLAG_PREFER_COPY 0x4u
/* Do not print validation-layer messages to stderr (they are still counted). */
#define DMLOPS_CONTEXT_FLAG_QUIET 0x8u

typedef struct dmlops_context_desc {
    dmlops_backend backend;          /* AUTO: a hardware Vulkan device, else CPU (see below) */
    const char *device;              /* NULL: best device; else an index, a UUID, or a name substring */
    DML_FEATURE_LEVEL feature_level; /* 0: the highest the library implements */
    uint32_t flags;                  /* DMLOPS_CONTEXT_FLAG_* */
} dmlops_context_desc;

/* Options beyond the four fields above, kept apart so that dmlops_context_desc stays
 * exactly what the API contract names. Zero means "default" for every field. */
typedef struct dmlops_context_options {
    const char *pipeline_cache_path; /* NULL: $DMLOPS_PIPELINE_CACHE, else no cache file */
    uint64_t max_binding_range;      /* testing: clamp maxStorageBufferRange to this many bytes */
    uint32_t max_workgroup_count;    /* testing: clamp maxComputeWorkGroupCount[0..2] */
    uint64_t max_allocation_size;    /* testing: split buffers into allocations of at most this
                                        many bytes (>= 256), as happens above the device's
                                        maxMemoryAllocationSize */
    uint32_t cpu_threads;            /* CPU backend: threads one execution may use, the
                                        caller's included; 1 runs everything on the caller's
                                        thread. 0: $DMLOPS_CPU_THREADS, else the CPUs this
                                        process may run on (online CPUs, fewer under an
                                        affinity mask). At most 1024. */
    uint64_t cpu_chunk_bytes;        /* testing: CPU backend work is split into chunks that
                                        move at least this many bytes (0: the measured
                                        default, 128 KiB), so small tensors cross split
                                        points */
    uint64_t cpu_stream_bytes;       /* testing: CPU backend outputs of at least this many
                                        bytes are written with streaming stores (0: the
                                        larger of 8 MiB and three quarters of the
                                        last-level cache) */
    uint32_t cpu_wait;               /* CPU backend: how idle workers and a caller waiting
                                        for them wait (DMLOPS_CPU_WAIT_*). 0: poll for
                                        about 0.1 ms, then sleep, when the threads do not
                                        outnumber the CPUs; sleep at once otherwise */
    void (*vulkan_loader)(void);     /* Vulkan: the loader's vkGetInstanceProcAddr, cast
                                        to this type, for a loader the application chose
                                        (a MoltenVK inside its bundle, a loader it opened
                                        itself). NULL: the system loader, opened once per
                                        process (libvulkan.so.1, vulkan-1.dll,
                                        libvulkan.dylib). Used by AUTO's probe too. */
} dmlops_context_options;

/* dmlops_context_options.cpu_wait. On phones with big and little cores, SLEEP saves
 * the battery that polling spends; SPIN shortens each operator's start on a machine the
 * application keeps otherwise idle. */
#define DMLOPS_CPU_WAIT_DEFAULT 0u
#define DMLOPS_CPU_WAIT_SPIN 1u  /* always poll before sleeping */
#define DMLOPS_CPU_WAIT_SLEEP 2u /* never poll: sleep on a condition variable at once */

/* Creates a context. desc may be NULL for the defaults. The environment variables
 * DMLOPS_BACKEND (auto|vulkan|cpu) and DMLOPS_DEVICE override the defaults; a non-zero
 * or non-NULL field in desc wins over the environment.
 * AUTO (the default) takes the best hardware Vulkan device: discrete, then integrated,
 * then virtual GPU, then one of type "other". Without one it takes the CPU backend, which is faster than a
 * software Vulkan device (VK_PHYSICAL_DEVICE_TYPE_CPU: lavapipe, SwiftShader); such a
 * device runs only when asked for, with backend VULKAN, DMLOPS_BACKEND=vulkan, or by
 * naming it. VULKAN ranks discrete, integrated, virtual, CPU, then "other" devices. A named
 * device that is absent gives DMLOPS_ERROR_NO_DEVICE with a message listing the
 * available ones, with AUTO or VULKAN (never the CPU backend instead); backend CPU
 * takes no device and ignores a name. dmlops_context_info.note says what was chosen
 * and why. Thread-safe. */
DMLOPS_API dmlops_status dmlops_context_create(const dmlops_context_desc *desc, dmlops_context **out);

/* dmlops_context_create with options (NULL: the defaults). Thread-safe. */
DMLOPS_API dmlops_status dmlops_context_create_with_options(const dmlops_context_desc *desc,
                                                            const dmlops_context_options *options,
                                                            dmlops_context **out);

/* Host memory for a context (chained to its create info). The context's objects, their
 * backends' records, submissions, fences and, on the CPU backend, buffer contents are
 * allocated through these callbacks; a few internal allocations (the operator planner's
 * tables, the CPU worker pool, pipeline-cache files) still use the C library's. Called
 * from any thread that calls the library (never from its own threads), so they must be
 * thread-safe. The structure is copied at creation. */
typedef struct dmlops_allocation_callbacks {
    dmlops_structure_type s_type; /* DMLOPS_STRUCTURE_TYPE_ALLOCATION_CALLBACKS */
    const void *next;
    void *user_data;
    /* size bytes aligned to alignment (a power of two, at least 16), or NULL when out of
     * memory, which the call that asked reports as DMLOPS_ERROR_OUT_OF_HOST_MEMORY. */
    void *(*allocate)(void *user_data, size_t size, size_t alignment);
    void (*deallocate)(void *user_data, void *memory); /* memory from allocate, never NULL */
} dmlops_allocation_callbacks;

/* What the library tells the application (dmlops_log_callback). */
typedef enum dmlops_log_severity {
    DMLOPS_LOG_NOTE = 0,    /* what the library chose and why (a context's note, a fallback) */
    DMLOPS_LOG_WARNING = 1, /* something the application should look at; the call went on */
    DMLOPS_LOG_ERROR = 2    /* a failing call's message, as dmlops_last_error_message gives it */
} dmlops_log_severity;

/* What a message concerns. */
typedef enum dmlops_log_object {
    DMLOPS_LOG_OBJECT_CONTEXT = 0,
    DMLOPS_LOG_OBJECT_BUFFER,
    DMLOPS_LOG_OBJECT_OPERATOR,
    DMLOPS_LOG_OBJECT_COMMAND_LIST,
    DMLOPS_LOG_OBJECT_FENCE,
    DMLOPS_LOG_OBJECT_BINDING_TABLE,
    DMLOPS_LOG_OBJECT_VULKAN   /* a Vulkan validation-layer message (DMLOPS_CONTEXT_FLAG_DEBUG) */
} dmlops_log_object;

/* A context's messages (chained to its create info): every failure of a call on the
 * context or its objects (DMLOPS_LOG_ERROR, the same text as dmlops_last_error_message),
 * the note of its creation (DMLOPS_LOG_NOTE), and with DMLOPS_CONTEXT_FLAG_DEBUG the
 * validation layer's warnings and errors (DMLOPS_LOG_OBJECT_VULKAN), which then go here
 * instead of stderr (they are still counted in dmlops_context_info.debug_message_count).
 * object is the handle concerned (a dmlops_context *, dmlops_buffer *, ...; the context
 * for Vulkan messages), valid during the call only. Called on the thread of the call
 * that logs, or a driver's thread for validation messages, never with a library lock
 * held: it may call the library, but not destroy the object it is told about. message
 * is valid during the call only. Without a callback, validation messages go to stderr
 * (DMLOPS_CONTEXT_FLAG_QUIET: nowhere) and the rest nowhere. */
typedef void (*dmlops_log_fn)(void *user_data, dmlops_log_severity severity, dmlops_log_object object_type,
                              const void *object, const char *message);
typedef struct dmlops_log_callback {
    dmlops_structure_type s_type; /* DMLOPS_STRUCTURE_TYPE_LOG_CALLBACK */
    const void *next;
    dmlops_log_fn callback;
    void *user_data;
    dmlops_log_severity min_severity; /* messages below it are not sent */
} dmlops_log_callback;

/* Everything dmlops_context_desc and dmlops_context_options hold, in one extensible
 * structure; zero means "default" for every field, as there. Its chain may hold a
 * dmlops_allocation_callbacks, a dmlops_log_callback, a dmlops_tuning_options (below) and
 * (dmlops_vulkan.h) a dmlops_vulkan_allocation_callbacks. */
typedef struct dmlops_context_create_info {
    dmlops_structure_type s_type;    /* DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO */
    const void *next;
    dmlops_backend backend;          /* dmlops_context_desc's four fields */
    const char *device;
    DML_FEATURE_LEVEL feature_level;
    uint32_t flags;                  /* DMLOPS_CONTEXT_FLAG_* */
    const char *pipeline_cache_path; /* dmlops_context_options' fields, as documented there */
    uint64_t max_binding_range;
    uint32_t max_workgroup_count;
    uint64_t max_allocation_size;
    uint32_t cpu_threads;
    uint64_t cpu_chunk_bytes;
    uint64_t cpu_stream_bytes;
    uint32_t cpu_wait;
    void (*vulkan_loader)(void);
} dmlops_context_create_info;

/* dmlops_context_create with everything in one extensible structure (NULL: the
 * defaults). The same rules, environment variables and errors; also INVALID_ARGUMENT for
 * an s_type other than DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO or a chain that breaks
 * the rules above. Thread-safe. */
DMLOPS_API dmlops_status dmlops_context_create2(const dmlops_context_create_info *info, dmlops_context **out);

/* Drops the application's handle of the context. Its objects keep it alive: they may be
 * destroyed before or after it, in any order, and keep working meanwhile. When the last
 * of them goes (or now, when none is left), the context waits for its work in flight,
 * then for the device to be idle (on a context from dmlops_context_create_vulkan it does
 * not wait on the application's device: every submission of the library has completed
 * by then), and is freed. Thread-safe with respect to calls on its objects; the handle
 * itself must not be used afterwards, nor concurrently by another thread. */
DMLOPS_API void dmlops_context_destroy(dmlops_context *ctx);

typedef enum dmlops_device_type { /* same values as VkPhysicalDeviceType */
    DMLOPS_DEVICE_TYPE_OTHER = 0,
    DMLOPS_DEVICE_TYPE_INTEGRATED_GPU = 1,
    DMLOPS_DEVICE_TYPE_DISCRETE_GPU = 2,
    DMLOPS_DEVICE_TYPE_VIRTUAL_GPU = 3,
    DMLOPS_DEVICE_TYPE_CPU = 4
} dmlops_device_type;

/* Optional device features, reported in dmlops_device_info.features. The kernels need
 * none of them. */
#define DMLOPS_DEVICE_FEATURE_SHADER_INT64 0x001u
#define DMLOPS_DEVICE_FEATURE_SHADER_FLOAT64 0x002u
#define DMLOPS_DEVICE_FEATURE_SHADER_FLOAT16 0x004u
#define DMLOPS_DEVICE_FEATURE_STORAGE_8BIT 0x008u
#define DMLOPS_DEVICE_FEATURE_STORAGE_16BIT 0x010u
#define DMLOPS_DEVICE_FEATURE_PUSH_DESCRIPTOR 0x020u
#define DMLOPS_DEVICE_FEATURE_TIMELINE_SEMAPHORE 0x040u
#define DMLOPS_DEVICE_FEATURE_BUFFER_DEVICE_ADDRESS 0x080u
#define DMLOPS_DEVICE_FEATURE_SUBGROUP_SIZE_CONTROL 0x100u
#define DMLOPS_DEVICE_FEATURE_SYNCHRONIZATION2 0x200u
#define DMLOPS_DEVICE_FEATURE_TIMESTAMPS 0x400u

#define DMLOPS_MAX_MEMORY_HEAPS 16

typedef struct dmlops_device_info {
    uint32_t index;                 /* position in vkEnumeratePhysicalDevices */
    char name[256];
    dmlops_device_type type;
    uint32_t vendor_id, device_id;
    uint32_t api_version;           /* VK_MAKE_API_VERSION encoding */
    uint32_t driver_version;        /* raw VkPhysicalDeviceProperties::driverVersion */
    char driver_name[256];          /* VK_KHR_driver_properties, "" if absent */
    char driver_info[256];
    uint8_t uuid[16];               /* deviceUUID */
    char uuid_string[40];           /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    uint64_t max_storage_buffer_range;
    uint64_t max_memory_allocation_size;
    uint64_t max_buffer_size;       /* 0 when VK_KHR_maintenance4 is absent */
    uint32_t max_compute_work_group_count[3];
    uint32_t max_compute_work_group_invocations;
    uint32_t max_push_constants_size;
    uint64_t min_storage_buffer_offset_alignment;
    uint32_t subgroup_size;
    float timestamp_period;         /* nanoseconds per tick; 0 when unsupported */
    uint32_t memory_heap_count;
    uint64_t memory_heap_size[DMLOPS_MAX_MEMORY_HEAPS];
    uint32_t memory_heap_device_local[DMLOPS_MAX_MEMORY_HEAPS];
    uint32_t unified_memory;        /* 1 on an integrated GPU or CPU device with a memory type
                                       both device-local and host-visible; 0 on a discrete
                                       GPU, whatever BAR window it offers */
    uint32_t features;              /* DMLOPS_DEVICE_FEATURE_* */
    uint32_t is_default;            /* 1 for the device a Vulkan context takes when none is
                                       named (backend VULKAN); AUTO takes it only when it is
                                       a hardware device, else the CPU backend */
} dmlops_device_info;

/* Lists the Vulkan devices, Vulkan-style: with infos NULL, *count receives the number of
 * devices; otherwise up to *count entries are written and *count is set to the number
 * written. No devices (or no loader) gives DMLOPS_ERROR_NO_DEVICE with the reason.
 * Thread-safe. */
DMLOPS_API dmlops_status dmlops_enumerate_devices(dmlops_device_info *infos, uint32_t *count);

typedef struct dmlops_context_info {
    dmlops_backend backend;          /* VULKAN or CPU: what the context really runs on */
    DML_FEATURE_LEVEL feature_level; /* the level validation applies */
    dmlops_device_info device;       /* the chosen device (zeroed on the CPU backend) */
    uint32_t supported_data_types;   /* bit (1 << DML_TENSOR_DATA_TYPE_x) per supported type */
    uint32_t debug_message_count;    /* validation-layer warnings and errors so far */
    uint32_t pipeline_count;         /* pipelines created so far */
    char note[512];                  /* which backend and device, and why (AUTO's choice,
                                        an explicit request, or a named device) */
    uint32_t cpu_threads;            /* CPU backend: threads one execution may use, the
                                        caller's included (1: inline); 0 on Vulkan */
} dmlops_context_info;

/* Thread-safe. */
DMLOPS_API dmlops_status dmlops_context_get_info(dmlops_context *ctx, dmlops_context_info *info);

/* Memory a context or an operator holds, and what DirectML's GetBindingProperties tells
 * of an operator (dmlops_context_get_memory_info; chained to a dmlops_operator_info2). */
typedef struct dmlops_memory_info {
    dmlops_structure_type s_type; /* DMLOPS_STRUCTURE_TYPE_MEMORY_INFO */
    void *next;
    uint64_t device_bytes;     /* Vulkan device memory held (the VkDeviceMemory allocations' sizes):
                                  a context's, all of it (buffers, staging, parameters, work in
                                  flight); an operator's, its parameter records. 0 on the CPU */
    uint64_t host_bytes;       /* host memory held through the context's allocator (headers
                                  aside), and on the CPU backend the buffers' contents: a
                                  context's, everything of it and its objects; an operator's,
                                  its own records, plan and binding tables */
    uint64_t temporary_bytes;  /* TemporaryResourceSize: the scratch buffer an execution needs the
                                  caller to bind. Always 0: the library keeps what it needs */
    uint64_t persistent_bytes; /* PersistentResourceSize: the buffer the caller must keep for the
                                  operator. Always 0 (its parameters are in device_bytes) */
    uint32_t descriptor_sets;  /* descriptor sets an execution binds (an operator's; 0 off the
                                  kernel path) */
} dmlops_memory_info;

/* A context's memory (above): what it and its objects hold now. Thread-safe. */
DMLOPS_API dmlops_status dmlops_context_get_memory_info(dmlops_context *ctx, dmlops_memory_info *info);

/* ---- Buffers ----------------------------------------------------------------------- */

/* Creates a zero-filled buffer of size_in_bytes (>= 1) bytes. On Vulkan it is device
 * memory (host-visible on unified-memory devices). Thread-safe. */
DMLOPS_API dmlops_status dmlops_buffer_create(dmlops_context *ctx, uint64_t size_in_bytes, dmlops_buffer **out);

/* Copies host memory into / out of the buffer. The range must lie inside the buffer.
 * They wait for previously submitted work of the context. Thread-safe, but concurrent
 * writes to overlapping ranges give unspecified contents. */
DMLOPS_API dmlops_status dmlops_buffer_write(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size);
DMLOPS_API dmlops_status dmlops_buffer_read(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size);

/* Size in bytes; 0 for NULL. Thread-safe. */
DMLOPS_API uint64_t dmlops_buffer_size(const dmlops_buffer *buf);

/* Drops the application's reference. A command list that records the buffer keeps it
 * alive until the list is reset or destroyed, and work in flight until it completes.
 * Not thread-safe with respect to other uses of the same buffer. */
DMLOPS_API void dmlops_buffer_destroy(dmlops_buffer *buf);

/* ---- Operators --------------------------------------------------------------------- */

/* Validates at the context's feature level, then prepares everything the operator needs
 * to run (pipelines, parameters, copy regions). The descriptor is copied: it may be freed
 * after the call. Thread-safe. */
DMLOPS_API dmlops_status dmlops_operator_create(dmlops_context *ctx, const DML_OPERATOR_DESC *desc, dmlops_operator **out);

/* Drops the application's reference. A command list or binding table that records the
 * operator keeps it alive until the list is reset or destroyed (the table destroyed),
 * and work in flight until it completes. Not thread-safe with respect to other uses of
 * the same operator. */
DMLOPS_API void dmlops_operator_destroy(dmlops_operator *op);

typedef struct dmlops_binding {
    dmlops_buffer *buffer;
    uint64_t offset; /* bytes; a multiple of 16 and of GuaranteedBaseOffsetAlignment */
    uint64_t size;   /* bytes; at least the tensor's TotalTensorSizeInBytes */
} dmlops_binding;

/* Inputs in the descriptor's order, then outputs (docs/operators.md section 2):
 *   ONE_HOT: Indices, Values -> Output; REVERSE_SUBSEQUENCES: Input, SequenceLengths ->
 *   Output; SLICE1: Input -> Output.
 * Validates the bindings, runs the operator and returns when its results can be read.
 * Thread-safe. Vulkan: executions on one context are serialised by its lock. CPU: they
 * run concurrently (docs/api.md): ordering accesses to a shared buffer is the caller's. */
DMLOPS_API dmlops_status dmlops_operator_execute(dmlops_operator *op,
                                      uint32_t input_count, const dmlops_binding *inputs,
                                      uint32_t output_count, const dmlops_binding *outputs);

typedef enum dmlops_path {
    DMLOPS_PATH_NONE = 0,
    DMLOPS_PATH_CPU,          /* the CPU backend */
    DMLOPS_PATH_KERNEL,       /* compute dispatches */
    DMLOPS_PATH_COPY_REGIONS, /* vkCmdCopyBuffer regions */
    DMLOPS_PATH_MIXED         /* different executions took different paths */
} dmlops_path;

typedef struct dmlops_operator_info {
    DML_OPERATOR_TYPE type;
    uint32_t input_count, output_count;
    dmlops_path planned_path;   /* what operator_create chose */
    dmlops_path last_path;      /* what executions and recordings used: the one path, or
                                   MIXED once two of them took different paths */
    uint32_t dispatch_count;    /* compute dispatches per execution on the kernel path */
    uint32_t copy_region_count; /* regions per execution on the copy path (REVERSE: the last
                                 * execution's or recording's, which follow the lengths) */
    uint64_t bytes_read;        /* bytes an execution must read and write, counting each */
    uint64_t bytes_written;     /*   element once: the basis of effective bandwidth */
} dmlops_operator_info;

/* Thread-safe. */
DMLOPS_API dmlops_status dmlops_operator_get_info(const dmlops_operator *op, dmlops_operator_info *info);

/* What an operator's planned pipeline runs (chained to a dmlops_operator_info2): on
 * Vulkan's kernel path; zeros and empty names on the CPU backend and where the plan is
 * copy regions (dmlops_operator_info.planned_path says which). The facts come from the
 * plan the pipeline was made from (src/vk/vk_describe.c). */
typedef struct dmlops_operator_kernel_info {
    dmlops_structure_type s_type;  /* DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO */
    void *next;
    char kernel[16];               /* the kernel family, glsl/<kernel>.comp: "slice", "reverse", "one_hot" */
    char variant[24];              /* its variant (docs/design.md): "general", "stream", "pairs", "words",
                                      "along", "across", "flat", "flat_rows", "columns", "tiles",
                                      "tile_columns", "tile_hot", "tile_rows" */
    uint32_t tiles;                /* 1: the GPU tiles (a workgroup's block of rows; all but
                                      variant "tile_rows" stage it in shared memory) */
    uint32_t texel;                /* 1: sources read through uniform texel buffers; 0: storage buffers */
    uint32_t workgroup_size;       /* invocations per workgroup */
    uint32_t workgroup_count;      /* workgroups of its largest dispatch (the grid; kernels loop past it) */
    uint32_t dispatch_count;       /* dispatches per execution */
    uint32_t shared_memory_bytes;  /* shared memory a workgroup of the pipeline declares */
    uint32_t run;                  /* 16-byte chunks an invocation (or LANES of them) takes per step of a row */
    uint32_t lanes;                /* consecutive invocations that share a run */
    uint32_t element_size;         /* bytes per element the pipeline is specialised for */
} dmlops_operator_kernel_info;

/* dmlops_operator_info, extensible: its chain may hold a dmlops_operator_kernel_info and
 * a dmlops_memory_info, which are filled too. */
typedef struct dmlops_operator_info2 {
    dmlops_structure_type s_type; /* DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2 */
    void *next;
    dmlops_operator_info info;    /* what dmlops_operator_get_info gives */
} dmlops_operator_info2;

/* Thread-safe. INVALID_ARGUMENT for a wrong s_type or a chain that breaks the rules. */
DMLOPS_API dmlops_status dmlops_operator_get_info2(const dmlops_operator *op, dmlops_operator_info2 *info);

/* Short name of a path, a data type ("FLOAT32"), an operator type ("SLICE1") or a
 * feature level ("6_4"); "?" when unknown. Thread-safe. */
DMLOPS_API const char *dmlops_path_name(dmlops_path path);
DMLOPS_API const char *dmlops_data_type_name(DML_TENSOR_DATA_TYPE type);
DMLOPS_API const char *dmlops_operator_type_name(DML_OPERATOR_TYPE type);
DMLOPS_API const char *dmlops_feature_level_name(DML_FEATURE_LEVEL level);
/* Element size in bytes of a data type; 0 when unknown. Thread-safe. */
DMLOPS_API uint32_t dmlops_data_type_size(DML_TENSOR_DATA_TYPE type);

/* ---- Command lists ----------------------------------------------------------------- */

/* A command list records operators (and plain buffer copies) and runs them with one
 * submission. Between two recorded operations the list inserts a barrier only when the
 * later one reads or writes bytes that an earlier one since the last barrier wrote, or
 * writes bytes an earlier one read. The list holds references to the buffers and
 * operators it records (destroying them early is safe; they are freed when the list is
 * reset or destroyed). A command list is used by one thread at a time. */
DMLOPS_API dmlops_status dmlops_command_list_create(dmlops_context *ctx, dmlops_command_list **out);

/* Validates the bindings as dmlops_operator_execute does, then records. */
DMLOPS_API dmlops_status dmlops_command_list_record(dmlops_command_list *list, dmlops_operator *op,
                                         uint32_t input_count, const dmlops_binding *inputs,
                                         uint32_t output_count, const dmlops_binding *outputs);

/* Records a copy of size bytes (vkCmdCopyBuffer on Vulkan). The ranges must lie inside
 * the buffers and must not overlap when src == dst. */
DMLOPS_API dmlops_status dmlops_command_list_record_copy(dmlops_command_list *list,
                                              dmlops_buffer *dst, uint64_t dst_offset,
                                              dmlops_buffer *src, uint64_t src_offset,
                                              uint64_t size);

/* Records a copy of size bytes by a plain compute shader: one 16-byte vector per
 * invocation, 64 invocations per workgroup, one dispatch of up to 65535 workgroups that
 * stride over the range (more dispatches where a range exceeds the device's
 * maxStorageBufferRange). It is the benchmark's compute-copy baseline, the ceiling a
 * shader reaches on the device, not a faster copy: prefer dmlops_command_list_record_copy
 * to move data. dst_offset, src_offset and size must be multiples of 16; the ranges must
 * lie inside the buffers and not overlap. DMLOPS_ERROR_UNSUPPORTED on the CPU backend. */
DMLOPS_API dmlops_status dmlops_command_list_record_compute_copy(dmlops_command_list *list,
                                                      dmlops_buffer *dst, uint64_t dst_offset,
                                                      dmlops_buffer *src, uint64_t src_offset,
                                                      uint64_t size);

/* The shape of a compute copy (dmlops_command_list_record_compute_copy_shaped): how the
 * copy shader's invocations share the range, for a benchmark looking for the fastest copy
 * a shader makes on the device. A field left 0 takes the plain copy's value. */
typedef struct dmlops_compute_copy_shape {
    uint32_t vectors;         /* 16-byte vectors an invocation moves per step of the grid, all
                                 loaded before any is stored: 1, 2, 4 or 8 (0: 1). With G
                                 invocations in the dispatch, invocation i moves vectors i,
                                 i + G, ..., i + (vectors - 1) G of each step of vectors x G
                                 vectors, so neighbouring invocations always touch
                                 neighbouring vectors, then strides on by the whole step */
    uint32_t workgroup_size;  /* invocations per workgroup: a power of two from 1 to 1024 and
                                 at most the device's maxComputeWorkGroupInvocations and
                                 maxComputeWorkGroupSize[0] (0: 64) */
    uint32_t workgroup_count; /* workgroups per dispatch, at most 65535 (every device's
                                 minimum maxComputeWorkGroupCount[0]). 0: as many as move
                                 the range in one step, at most 65535 */
} dmlops_compute_copy_shape;

/* dmlops_command_list_record_compute_copy with a shape (NULL: the plain copy, the same as
 * dmlops_command_list_record_compute_copy). The same rules for offsets, size and ranges;
 * also DMLOPS_ERROR_INVALID_ARGUMENT for a field outside its values above, and
 * DMLOPS_ERROR_UNSUPPORTED for a workgroup larger than the device allows. A range split
 * into several dispatches (see above) gives each dispatch the shape. */
DMLOPS_API dmlops_status dmlops_command_list_record_compute_copy_shaped(dmlops_command_list *list,
                                                             dmlops_buffer *dst, uint64_t dst_offset,
                                                             dmlops_buffer *src, uint64_t src_offset,
                                                             uint64_t size,
                                                             const dmlops_compute_copy_shape *shape);

/* Submits everything recorded and waits for completion. A list may be executed many
 * times. Vulkan: executions on one context are serialised by its lock; CPU: they run
 * concurrently, as dmlops_operator_execute's do. */
DMLOPS_API dmlops_status dmlops_command_list_execute(dmlops_command_list *list);

/* Forgets everything recorded; the memory is kept for the next recording. */
DMLOPS_API dmlops_status dmlops_command_list_reset(dmlops_command_list *list);

/* Number of operations recorded, and barriers inserted between them. Either output
 * pointer may be NULL. */
DMLOPS_API dmlops_status dmlops_command_list_get_counts(const dmlops_command_list *list,
                                             uint32_t *operation_count, uint32_t *barrier_count);

typedef struct dmlops_execution_stats {
    double gpu_seconds;  /* device time between the first and last command, from timestamp
                            queries; negative when the device has none (CPU backend too) */
    double wall_seconds; /* host time from submission to completion */
} dmlops_execution_stats;

/* Timing of the list's last execution. */
DMLOPS_API dmlops_status dmlops_command_list_get_stats(const dmlops_command_list *list,
                                            dmlops_execution_stats *stats);

/* Drops the application's reference; an execution in flight keeps the list (and what
 * it records) alive until it completes. */
DMLOPS_API void dmlops_command_list_destroy(dmlops_command_list *list);

/* ---- Asynchronous submission ----------------------------------------------------------
 * The *_async calls check their arguments as their synchronous forms do, start the work
 * and return at once, with a fence that tells when it has completed. The work of a context
 * runs in submission order, each submission after everything submitted before it, the
 * synchronous calls included (which wait for earlier asynchronous work first), so a write,
 * an execute and a read submitted one after another need no waiting in between. Several
 * submissions may be in flight; each holds what it uses (operator, buffers, list), so they
 * may be destroyed at once; bindings are never rebound under work in flight.
 * Vulkan: each submission is one vkQueueSubmit to the context's queue, signalling the
 * context's timeline semaphore where the device has timeline semaphores (Vulkan 1.2, or
 * VK_KHR_timeline_semaphore on 1.1; interop contexts: when the application says it enabled
 * them), else a VkFence of its own. CPU: the work runs on a thread of the context, which
 * splits it over the context's worker pool as a synchronous call would.
 * A failure to start (a bad binding, out of memory) is returned by the *_async call, which
 * then had no effect; a failure while running (a lost device) by the fence's wait. */

/* How to submit (NULL: plainly). Its chain may hold (dmlops_vulkan.h) a
 * dmlops_vulkan_semaphores, on an interop context only. */
typedef struct dmlops_submit_info {
    dmlops_structure_type s_type; /* DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO */
    const void *next;
} dmlops_submit_info;

/* dmlops_operator_execute without the wait: *fence (NULL if not wanted) receives a new
 * fence, which the application destroys. Thread-safe, as dmlops_operator_execute. */
DMLOPS_API dmlops_status dmlops_operator_execute_async(dmlops_operator *op,
                                            uint32_t input_count, const dmlops_binding *inputs,
                                            uint32_t output_count, const dmlops_binding *outputs,
                                            const dmlops_submit_info *submit, dmlops_fence **fence);

/* dmlops_command_list_execute without the wait. A list runs one execution at a time:
 * executing it again, recording into it or resetting it while an execution is in flight
 * first waits for that one (record several lists to overlap them). Its statistics are the
 * last completed execution's. */
DMLOPS_API dmlops_status dmlops_command_list_execute_async(dmlops_command_list *list,
                                                const dmlops_submit_info *submit, dmlops_fence **fence);

/* dmlops_buffer_write without the wait: the size bytes at src are copied before the call
 * returns (src may be reused at once), and reach the buffer in submission order. Vulkan:
 * through staging memory of the submission's own, so the buffer needs TRANSFER usage when
 * wrapped (UNSUPPORTED otherwise). */
DMLOPS_API dmlops_status dmlops_buffer_write_async(dmlops_buffer *buf, uint64_t offset, const void *src,
                                        uint64_t size, const dmlops_submit_info *submit,
                                        dmlops_fence **fence);

/* dmlops_buffer_read without the wait: the bytes are in dst once the fence has signalled
 * (dmlops_fence_wait or _poll returned DMLOPS_SUCCESS). dst must stay valid and untouched
 * until then; destroying the fence before that waits for the read. */
DMLOPS_API dmlops_status dmlops_buffer_read_async(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size,
                                       const dmlops_submit_info *submit, dmlops_fence **fence);

/* Waits at most timeout_ns nanoseconds (UINT64_MAX: for ever, 0: not at all) for the
 * fence's work: DMLOPS_SUCCESS once it completed, DMLOPS_TIMEOUT when the time ran out
 * (no message), or the failure the work met (DMLOPS_ERROR_DEVICE_LOST) or waiting met.
 * Once signalled, a fence stays so. Thread-safe, several threads may wait on one fence. */
DMLOPS_API dmlops_status dmlops_fence_wait(dmlops_fence *fence, uint64_t timeout_ns);

/* dmlops_fence_wait(fence, 0), answering DMLOPS_NOT_READY (no message) rather than
 * DMLOPS_TIMEOUT while the work runs. Thread-safe. */
DMLOPS_API dmlops_status dmlops_fence_poll(dmlops_fence *fence);

/* Drops the application's fence. The work goes on (a read's fence first waits for it, as
 * the read writes the caller's memory). Not thread-safe with respect to other uses of the
 * same fence. */
DMLOPS_API void dmlops_fence_destroy(dmlops_fence *fence);

/* Waits for every submission of the context so far: DMLOPS_SUCCESS, or the first failure
 * one of them met. Thread-safe. */
DMLOPS_API dmlops_status dmlops_context_wait_idle(dmlops_context *ctx);

/* ---- Diagnostics: the access model ---------------------------------------------------
 * What a GPU's memory system would see of the kernels, measured on any Vulkan device
 * (lavapipe included): on a context created with DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES every
 * kernel runs an instrumented build of itself that records each of its buffer accesses
 * (the invocation, the access site in the shader, the byte address and the width), and
 * each execution of a command list is analysed as Nsight Compute would count it: the
 * accesses one access site makes in one warp of 32 consecutive invocations, the k-th time
 * each lane reaches it, are one memory request, which touches some number of 32-byte
 * sectors. Pair it with DMLOPS_VK_TUNING=gpu on a CPU device to trace the plan and kernel
 * variants a discrete GPU gets. Traced executions are slow; their results are exact. */

/* Vulkan: run instrumented kernels that record their buffer accesses (above). The device
 * needs 5 storage buffers per stage (every desktop driver, lavapipe included);
 * DMLOPS_ERROR_UNSUPPORTED on the CPU backend and on devices without them;
 * DMLOPS_ERROR_INVALID_ARGUMENT on an interop context (dmlops_context_create_vulkan). */
#define DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES 0x10u

typedef struct dmlops_access_stats {
    uint64_t accesses;         /* buffer accesses: one lane's load or store */
    uint64_t loads, stores;    /* accesses that read, and that wrote (atomics count as both) */
    uint64_t requests;         /* warp-level memory requests */
    uint64_t bytes;            /* bytes the accesses moved */
    uint64_t sectors;          /* 32-byte sectors touched, summed over the requests */
    uint64_t distinct_sectors; /* distinct 32-byte sectors touched by the whole execution,
                                  told apart by binding (source, output, ...) and byte offset
                                  in its VkBuffer modulo 2^32: exact for one operation; in a
                                  list of several, two buffers bound to the same binding at
                                  equal offsets count once, and one buffer read by one
                                  operation and written by the next counts twice */
    double loads_in_flight;    /* loads an invocation issues before the store that follows
                                  them, averaged over such runs: memory-level parallelism
                                  (a copy moving four 16-byte vectors per step scores 4) */
    uint32_t dispatches;       /* kernel dispatches traced */
    uint32_t untraced;         /* operations that moved memory without a traced kernel
                                  (vkCmdCopyBuffer regions, plain copies): not counted */
} dmlops_access_stats;

/* The access statistics of the list's last execution on a context created with
 * DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES (DMLOPS_ERROR_UNSUPPORTED on another context,
 * DMLOPS_ERROR_INVALID_ARGUMENT before a first execution). */
DMLOPS_API dmlops_status dmlops_command_list_get_access_stats(const dmlops_command_list *list,
                                                   dmlops_access_stats *stats);

/* ---- Tuning (docs/api.md, "Tuning") -----------------------------------------------------
 * The Vulkan backend's plans have knobs (the DMLOPS_VK_* variables: device class, texel
 * loads, GPU tiles, workgroup, units per step, lanes, grid, copy regions) whose every value
 * gives the same results. The tuner times the candidate configurations of a class of
 * operators on the device itself (back to back after warm-up, GPU timestamps where the
 * device has them, alternating rounds, medians) and keeps the fastest, which must beat the
 * defaults by a margin; a tuning file keeps the winners per device and driver. A class is
 * the kernel, the fast path the planner gives the layout, the element size, and the
 * output row's and the output's byte sizes in powers of four. */

typedef enum dmlops_tuning_mode {
    DMLOPS_TUNING_MODE_DEFAULT = 0, /* $DMLOPS_TUNING (off|file|auto), else FILE when a file is
                                       named, else OFF */
    DMLOPS_TUNING_MODE_OFF = 1,     /* the defaults, and the DMLOPS_VK_* variables */
    DMLOPS_TUNING_MODE_FILE = 2,    /* each class the tuning file holds runs with its configuration */
    DMLOPS_TUNING_MODE_AUTO = 3     /* FILE, and a class the file lacks is tuned when its first
                                       operator is created, within the budgets; the file (when
                                       one is named) is updated */
} dmlops_tuning_mode;

/* Chained to a context's create-info (dmlops_context_create_info or
 * dmlops_vulkan_context_create_info; a CPU context has no knobs and notes that it ignores it). Zero fields take the environment's value, else the default. */
typedef struct dmlops_tuning_options {
    dmlops_structure_type s_type;   /* DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS */
    const void *next;
    dmlops_tuning_mode mode;
    const char *file;               /* NULL: $DMLOPS_TUNING_FILE, else none (AUTO then keeps
                                       what it tunes in the context only) */
    double budget_seconds;          /* AUTO: the most seconds one context spends tuning, all
                                       classes together. 0: $DMLOPS_TUNING_BUDGET, else 30 */
    double class_budget_seconds;    /* AUTO: the most one class's tuning takes (within what the
                                       budget leaves). 0: $DMLOPS_TUNING_CLASS_BUDGET, else 10 */
} dmlops_tuning_options;

typedef enum dmlops_tuning_source {
    DMLOPS_TUNING_SOURCE_NONE = 0,  /* the defaults: tuning off, the CPU backend, or a class
                                       neither the file holds nor the budget let AUTO tune */
    DMLOPS_TUNING_SOURCE_FILE = 1,  /* the tuning file's configuration for the class */
    DMLOPS_TUNING_SOURCE_TUNED = 2  /* tuned on first use by this context */
} dmlops_tuning_source;

typedef struct dmlops_operator_tuning {
    dmlops_tuning_source source;
    char class_key[64];             /* the operator's class ("" on the CPU backend) */
    char config[192];               /* the knobs it runs with where they differ from the
                                       context's defaults ("TUNING=cpu WORKGROUP=64"; "":
                                       the defaults) */
    double default_seconds;         /* the tuner's median time per execution of the defaults
                                       and of the configuration chosen, on the operator that */
    double tuned_seconds;           /*   tuned the class; 0 where nothing was measured */
    char note[160];                 /* why a class AUTO met runs with the defaults (the budget
                                       spent, no memory to measure it), or why the file was not
                                       written; "" otherwise */
} dmlops_operator_tuning;

/* The configuration an operator runs with, and why. Thread-safe. */
DMLOPS_API dmlops_status dmlops_operator_get_tuning(const dmlops_operator *op, dmlops_operator_tuning *tuning);

#ifdef __cplusplus
}
#endif

/* The Vulkan interop API lives in dmlops_vulkan.h. It is included here when the Vulkan
 * headers came first (<vulkan/vulkan.h> or <volk.h>, then "dmlops.h"), so that code
 * written before the split compiles unchanged. */
#if defined(VK_VERSION_1_0)
#include "dmlops_vulkan.h"
#endif

#endif /* DMLOPS_H */
