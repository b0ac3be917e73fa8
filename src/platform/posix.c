/* The platform layer on POSIX systems: Linux (glibc, musl), Android (bionic), macOS,
 * iOS and the BSDs (platform.h). */
#if !defined(_WIN32)

#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
int dm_fd_dup(int fd) { return dup(fd); }
void dm_fd_close(int fd) { close(fd); }

bool dm_cond_timedwait(dm_cond *c, dm_mutex *m, uint64_t timeout_ns)
{
    /* pthread_cond_timedwait takes a CLOCK_REALTIME deadline (macOS has no way to give it
     * another clock): a clock set back lengthens the wait, which callers re-test. A year
     * is as good as for ever, and keeps the sum from overflowing. */
    const uint64_t year = 365ull * 86400 * 1000000000;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const uint64_t ns = (uint64_t)now.tv_nsec + (timeout_ns < year ? timeout_ns : year);
    struct timespec until = {.tv_sec = now.tv_sec + (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
    return pthread_cond_timedwait(c, m, &until) == 0;
}
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

#if !defined(O_CLOEXEC)
#define O_CLOEXEC 0
#endif
#if !defined(PATH_MAX)
#define PATH_MAX 4096
#endif

FILE *dm_fopen_regular(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
    if (!f) close(fd);
    return f;
}

/* The file path names once its symbolic links are followed (each relative target read
 * against the link's own directory), into out: a name that does not exist yet is where
 * the file is to be made. 0 or an errno value. */
static int dm_follow_links(const char *path, char *out, size_t cap)
{
    if (strlen(path) >= cap) return ENAMETOOLONG;
    memcpy(out, path, strlen(path) + 1);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(out, &st) != 0) return errno == ENOENT ? 0 : errno;
        if (!S_ISLNK(st.st_mode)) return 0;
        char link[PATH_MAX];
        const ssize_t n = readlink(out, link, sizeof link - 1);
        if (n <= 0) return n < 0 ? errno : ENOENT;
        link[n] = '\0';
        const char *slash = strrchr(out, '/');
        const size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
        if (dir + (size_t)n >= cap) return ENAMETOOLONG;
        memcpy(out + dir, link, (size_t)n + 1);
    }
    return ELOOP;
}

/* write() until done, through signals and short writes. */
static bool dm_write_all(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        const ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

int dm_write_file_atomic(const char *path, const void *const *parts, const size_t *lens, size_t n)
{
    char target[PATH_MAX], tmp[PATH_MAX];
    int e = dm_follow_links(path, target, sizeof target);
    if (e) return e;
    struct stat st;
    const bool exists = stat(target, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) return EINVAL;
    const char *slash = strrchr(target, '/');
    const size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
    if (dir + 32 > sizeof tmp) return ENAMETOOLONG;
    memcpy(tmp, target, dir);
    /* A fresh name made exclusively (O_EXCL refuses any file or link already there); the
     * kernel applies the umask, which a library must not change (umask is per process). */
    int fd = -1;
    static _Atomic unsigned counter;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        const uint64_t salt = dm_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&st;
        snprintf(tmp + dir, sizeof tmp - dir, ".dmlops-%08x%04x.tmp", (unsigned)(salt ^ salt >> 32),
                 (unsigned)(counter++ & 0xffff));
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) return errno;
    }
    if (fd < 0) return EEXIST;
    bool ok = !exists || fchmod(fd, st.st_mode & 07777) == 0;
    for (size_t i = 0; ok && i < n; i++) ok = dm_write_all(fd, parts[i], lens[i]);
    ok = ok && fsync(fd) == 0;
    e = ok ? 0 : errno;
    if (close(fd) != 0 && ok) {
        e = errno;
        ok = false;
    }
    if (ok && rename(tmp, target) != 0) {
        e = errno;
        ok = false;
    }
    if (!ok) unlink(tmp);
    return ok ? 0 : e ? e : EIO;
}

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

#if ATOMIC_LLONG_LOCK_FREE != 2
/* count64.h's counts where 64-bit atomics are not lock-free (ARMv6): one lock for all,
 * taken only by memory accounting, off every kernel's and copy's path. */
static pthread_mutex_t dm_count_lock = PTHREAD_MUTEX_INITIALIZER;

void dm_count_add(dm_count64 *c, uint64_t v)
{
    pthread_mutex_lock(&dm_count_lock);
    c->v += v;
    pthread_mutex_unlock(&dm_count_lock);
}

void dm_count_sub(dm_count64 *c, uint64_t v)
{
    pthread_mutex_lock(&dm_count_lock);
    c->v -= v;
    pthread_mutex_unlock(&dm_count_lock);
}

uint64_t dm_count_load(dm_count64 *c)
{
    pthread_mutex_lock(&dm_count_lock);
    const uint64_t v = c->v;
    pthread_mutex_unlock(&dm_count_lock);
    return v;
}
#endif

#else
typedef int dm_platform_posix_unused; /* ISO C wants a declaration in every file */
#endif
