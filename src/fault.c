/* Fault injection (fault.h): one armed mode and one counter for the process. */
#include "fault.h"

#include "platform/platform.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Atomic int dm_mode;           /* dm_fault_mode */
static _Atomic unsigned long dm_at;   /* the point that fails (1-based) */
static _Atomic unsigned long dm_seen; /* points of dm_mode counted since arming */

void dm_fault_arm(void)
{
    static const struct { const char *name; dm_fault_mode mode; } modes[] = {
        {"host:", DM_FAULT_HOST}, {"vulkan:", DM_FAULT_VULKAN}, {"lost:", DM_FAULT_LOST}};
    /* The same value as last time keeps counting, so that a context creation the test
     * retries after an injected failure does not meet the same fault again. */
    static char armed[64];
    /* Contexts may be created on several threads at once: the last value is shared. */
    static dm_mutex lock = DM_MUTEX_INIT;
    const char *env = getenv("DMLOPS_FAULT_INJECT");
    dm_mutex_lock(&lock);
    const bool same = env ? strlen(env) < sizeof armed && !strcmp(env, armed) : armed[0] == '\0';
    if (same) {
        dm_mutex_unlock(&lock);
        return;
    }
    snprintf(armed, sizeof armed, "%s", env && strlen(env) < sizeof armed ? env : "");
    dm_fault_mode mode = DM_FAULT_OFF;
    unsigned long at = 0;
    for (size_t i = 0; env && i < sizeof modes / sizeof modes[0]; i++) {
        size_t n = strlen(modes[i].name);
        if (strncmp(env, modes[i].name, n) != 0) continue;
        char *end;
        at = strtoul(env + n, &end, 10);
        if (*end == '\0' && at > 0) mode = modes[i].mode; /* anything malformed: off */
    }
    atomic_store(&dm_seen, 0);
    atomic_store(&dm_at, at);
    atomic_store(&dm_mode, (int)mode);
    dm_mutex_unlock(&lock);
}

dm_fault_mode dm_fault_armed(void) { return (dm_fault_mode)atomic_load_explicit(&dm_mode, memory_order_relaxed); }

bool dm_fault_hit(dm_fault_mode mode)
{
    if (atomic_load_explicit(&dm_mode, memory_order_relaxed) != (int)mode) return false;
    unsigned long n = atomic_fetch_add(&dm_seen, 1) + 1, at = atomic_load(&dm_at);
    return mode == DM_FAULT_LOST ? n >= at : n == at;
}

void *dm_malloc(size_t size) { return dm_fault_hit(DM_FAULT_HOST) ? NULL : malloc(size); }
void *dm_calloc(size_t count, size_t size) { return dm_fault_hit(DM_FAULT_HOST) ? NULL : calloc(count, size); }
void *dm_realloc(void *p, size_t size) { return dm_fault_hit(DM_FAULT_HOST) ? NULL : realloc(p, size); }

char *dm_strdup(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *d = dm_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
