/* The platform layer on POSIX systems: Linux (glibc, musl), Android (bionic), macOS,
 * iOS and the BSDs (platform.h). */
#if !defined(_WIN32)

#include "platform.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif

bool dm_mutex_init(dm_mutex *m) { return pthread_mutex_init(m, NULL) == 0; }
void dm_mutex_destroy(dm_mutex *m) { pthread_mutex_destroy(m); }
void dm_mutex_lock(dm_mutex *m) { pthread_mutex_lock(m); }
void dm_mutex_unlock(dm_mutex *m) { pthread_mutex_unlock(m); }
bool dm_cond_init(dm_cond *c) { return pthread_cond_init(c, NULL) == 0; }
void dm_cond_destroy(dm_cond *c) { pthread_cond_destroy(c); }
void dm_cond_wait(dm_cond *c, dm_mutex *m) { pthread_cond_wait(c, m); }
void dm_cond_signal(dm_cond *c) { pthread_cond_signal(c); }
void dm_cond_broadcast(dm_cond *c) { pthread_cond_broadcast(c); }
void dm_once(dm_once_flag *flag, void (*fn)(void)) { pthread_once(flag, fn); }

/* pthread's start routine returns a pointer; ours returns nothing. The function and
 * its argument live in the caller's dm_thread, which outlives the thread (joined), so
 * that starting a thread allocates nothing. */
static void *dm_thread_main(void *p)
{
    const dm_thread *t = p;
    t->fn(t->arg);
    return NULL;
}

bool dm_thread_start(dm_thread *t, void (*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits the mask */
    const bool ok = pthread_create(&t->id, NULL, dm_thread_main, t) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

void dm_thread_join(dm_thread *t) { pthread_join(t->id, NULL); }

uint64_t dm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t dm_cpu_count(void)
{
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t n = online > 0 ? (uint32_t)online : 1;
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int allowed = CPU_COUNT(&set);
        if (allowed > 0 && (uint32_t)allowed < n) n = (uint32_t)allowed;
    }
#endif
    return n;
}

uint64_t dm_physical_memory(void)
{
#if defined(_SC_PHYS_PAGES)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return UINT64_MAX;
    return (uint64_t)pages > UINT64_MAX / (uint64_t)page ? UINT64_MAX : (uint64_t)pages * (uint64_t)page;
#else
    return UINT64_MAX; /* macOS before 10.x names it hw.memsize only */
#endif
}

#if defined(__linux__)
/* The L3 of CPU 0 as the kernel describes it (/sys/devices/system/cpu/cpu0/cache/indexN,
 * the entry whose level is 3; its size reads "32768K"); 0 when absent. */
static uint64_t dm_sysfs_l3(void)
{
    for (int i = 0; i < 16; i++) {
        char path[96];
        unsigned level = 0;
        unsigned long long size = 0;
        char unit = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) return 0; /* the entries are numbered from 0 without gaps */
        const bool l3 = fscanf(f, "%u", &level) == 1 && level == 3;
        fclose(f);
        if (!l3) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!(f = fopen(path, "r"))) return 0;
        const int got = fscanf(f, "%llu%c", &size, &unit);
        fclose(f);
        if (got < 1 || size > (1ull << 40)) return 0;
        return unit == 'K' ? size << 10 : unit == 'M' ? size << 20 : size;
    }
    return 0;
}
#endif

uint64_t dm_l3_cache_bytes(void)
{
#if defined(__linux__)
    const uint64_t sysfs = dm_sysfs_l3();
    if (sysfs) return sysfs;
#endif
#if defined(_SC_LEVEL3_CACHE_SIZE)
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE); /* 0 or -1 where glibc cannot tell */
    return l3 > 0 ? (uint64_t)l3 : 0;
#else
    return 0;
#endif
}

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif

/* Maps size + align - page and unmaps the slack on both sides. */
void *dm_pages_alloc(size_t size, size_t align, bool huge)
{
    const size_t page = 4096, extra = align > page ? align - page : 0;
    if (size > SIZE_MAX - extra) return NULL;
    uint8_t *raw = mmap(NULL, size + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uint8_t *p = (uint8_t *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    const size_t head = (size_t)(p - raw), tail = extra - head;
    if (head) munmap(raw, head);
    if (tail) munmap(p + size, tail);
#ifdef MADV_HUGEPAGE
    if (huge) (void)madvise(p, size, MADV_HUGEPAGE); /* a hint: failure is harmless */
#else
    (void)huge;
#endif
    return p;
}

void dm_pages_free(void *p, size_t size) { munmap(p, size); }

FILE *dm_fopen(const char *path, const char *mode) { return fopen(path, mode); }
int dm_remove(const char *path) { return remove(path); }
bool dm_replace_file(const char *tmp, const char *path) { return rename(tmp, path) == 0; }
unsigned long dm_process_id(void) { return (unsigned long)getpid(); }
int dm_strcasecmp(const char *a, const char *b) { return strcasecmp(a, b); }

const char *dm_vulkan_loader_name(void)
{
#if defined(__APPLE__)
    return "libvulkan.dylib (the Vulkan SDK's loader, or MoltenVK)";
#elif defined(__ANDROID__)
    return "libvulkan.so";
#else
    return "libvulkan.so.1";
#endif
}

#else
typedef int dm_platform_posix_unused; /* ISO C wants a declaration in every file */
#endif
