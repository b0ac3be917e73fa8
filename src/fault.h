/* Fault injection for the reliability tests: compiled in, inert unless the environment
 * variable DMLOPS_FAULT_INJECT is set when a context is created. Its value is
 *   host:N     the Nth host allocation of the library fails (returns NULL);
 *   vulkan:N   the Nth fallible Vulkan call fails (creations, allocations, maps,
 *              descriptor allocations, begin, end, submit, wait) with the error a
 *              driver would give there (out of device or host memory);
 *   lost:N     from the Nth queue submission or wait on, the device is lost: every
 *              submission and wait returns VK_ERROR_DEVICE_LOST (after really waiting,
 *              so that nothing the library frees is still running).
 * dmlops_context_create reads the variable; a new value restarts the count (the same
 * value keeps counting, so a retried creation goes on), so a sweep sets N = 1, 2, ...
 * until a whole workflow succeeds, and an unset variable disarms. The counters are process-wide: run sweeps on one thread.
 * Vulkan faults apply to the functions of the devices created while the variable is set
 * (one driver per process, as in the tests). */
#ifndef DM_FAULT_H
#define DM_FAULT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum dm_fault_mode { DM_FAULT_OFF, DM_FAULT_HOST, DM_FAULT_VULKAN, DM_FAULT_LOST } dm_fault_mode;

/* Reads DMLOPS_FAULT_INJECT and restarts the count (dmlops_context_create calls it). */
void dm_fault_arm(void);
/* The mode armed, for the Vulkan layer deciding whether to wrap its functions. */
dm_fault_mode dm_fault_armed(void);
/* Counts one injection point of the mode; true when this one must fail. For LOST, true
 * from the Nth point on. */
bool dm_fault_hit(dm_fault_mode mode);

/* The library's allocators: malloc / calloc / realloc that fail on cue. */
void *dm_malloc(size_t size);
void *dm_calloc(size_t count, size_t size);
void *dm_realloc(void *p, size_t size);
/* strdup through dm_malloc. */
char *dm_strdup(const char *s);

#endif
