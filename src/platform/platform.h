/* The platform layer: every operating-system dependency of the library, behind one
 * header. posix.c implements it on Linux, Android, macOS and the BSDs; win32.c on
 * Windows (Win32 threads, SRW locks and condition variables, so that dmlops.dll needs
 * nothing beyond the system and the C runtime). The rest of src/ includes this header
 * and compiler.h, never an OS header of its own.
 *
 * The primitives are the few the library uses, with the semantics it relies on:
 * mutexes that are not recursive, condition variables that may wake spuriously, once
 * flags, threads that are joined, and a monotonic clock. */
#ifndef DM_PLATFORM_H
#define DM_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"
#include "count64.h"

#if defined(_WIN32)
/* Opaque stand-ins for SRWLOCK, CONDITION_VARIABLE and INIT_ONCE (each one pointer,
 * zero when initialised statically), so that no file but win32.c sees <windows.h>. */
typedef struct dm_mutex { void *opaque; } dm_mutex;
typedef struct dm_cond { void *opaque; } dm_cond;
typedef struct dm_once_flag { void *opaque; } dm_once_flag;
typedef struct dm_thread { void *handle; void (*fn)(void *); void *arg; } dm_thread;
#define DM_MUTEX_INIT {0}
#define DM_ONCE_INIT {0}
#else
#include <pthread.h>
typedef pthread_mutex_t dm_mutex;
typedef pthread_cond_t dm_cond;
typedef pthread_once_t dm_once_flag;
typedef struct dm_thread { pthread_t id; void (*fn)(void *); void *arg; } dm_thread;
#define DM_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define DM_ONCE_INIT PTHREAD_ONCE_INIT
#endif

/* Thread-local storage for the last error message. MSVC spells it __declspec(thread);
 * C11 compilers, MinGW's included, accept _Thread_local. */
#if defined(_MSC_VER) && !defined(__clang__)
#define DM_THREAD_LOCAL __declspec(thread)
#else
#define DM_THREAD_LOCAL _Thread_local
#endif

/* Mutexes and condition variables. The init functions return false when the system
 * is out of resources (POSIX only; Win32's cannot fail). */
bool dm_mutex_init(dm_mutex *m);
void dm_mutex_destroy(dm_mutex *m);
void dm_mutex_lock(dm_mutex *m);
void dm_mutex_unlock(dm_mutex *m);
bool dm_cond_init(dm_cond *c);
void dm_cond_destroy(dm_cond *c);
void dm_cond_wait(dm_cond *c, dm_mutex *m);
/* dm_cond_wait for at most timeout_ns nanoseconds; false when the time ran out (it may
 * also return early, as a wait may wake spuriously: callers test their condition). */
bool dm_cond_timedwait(dm_cond *c, dm_mutex *m, uint64_t timeout_ns);
void dm_cond_signal(dm_cond *c);
void dm_cond_broadcast(dm_cond *c);

/* Runs fn exactly once per flag, whatever the number of threads calling. */
void dm_once(dm_once_flag *flag, void (*fn)(void));

/* Starts fn(arg) on a new thread with every signal blocked (POSIX), so that the
 * application's handlers keep running on its own threads. *t must stay in place until
 * dm_thread_join (the thread reads fn and arg from it; nothing is allocated). false
 * when the system refuses a thread. */
bool dm_thread_start(dm_thread *t, void (*fn)(void *), void *arg);
void dm_thread_join(dm_thread *t);

/* A monotonic clock, in nanoseconds from an arbitrary origin. */
uint64_t dm_now_ns(void);

/* CPUs this process may run on: the online ones, fewer where the OS has an affinity
 * mask (taskset, a container's cpuset, a Windows job's affinity); at least 1. */
uint32_t dm_cpu_count(void);
/* The machine's physical memory in bytes; UINT64_MAX when unknown (no limit). */
uint64_t dm_physical_memory(void);
/* The last-level (L3) cache in bytes; 0 when the OS cannot tell (glibc on ARM). On Linux
 * the kernel's cache topology (sysfs) comes first: a hypervisor may fill CPUID's legacy
 * cache leaf, which glibc's sysconf reads, with a figure of its own (256 MiB on the
 * project's VM, whose EPYC has 32 MiB). */
uint64_t dm_l3_cache_bytes(void);

/* Instruction-set extensions beyond the build's baseline that this CPU and OS let the CPU
 * engine use (cpu_features.c): x86's SSSE3 and AVX2 (the OS saving the 256-bit registers
 * included), NEON on 32-bit ARM (always there on AArch64). Asked at run time, so that one
 * binary runs on every CPU of its architecture. */
enum { DM_CPU_SSSE3 = 1u << 0, DM_CPU_AVX2 = 1u << 1, DM_CPU_NEON = 1u << 2 };
uint32_t dm_cpu_extensions(void);

/* Large zeroed allocations straight from the OS, aligned to `align` (a power of two of
 * at least 4 KiB; Windows aligns to its 64 KiB granule and ignores larger), with huge
 * pages asked for when `huge` (a hint). NULL when out of memory. dm_pages_free takes
 * the same size. */
void *dm_pages_alloc(size_t size, size_t align, bool huge);
void dm_pages_free(void *p, size_t size);

/* Opens the file at a UTF-8 path for reading ("rb"), following symbolic links, only when
 * it is a regular file: NULL when it is missing, unreadable, or something else (a FIFO, a
 * device node such as /dev/zero, a directory, a Windows pipe or console). It is opened
 * without blocking (O_NONBLOCK, then fstat), so that a FIFO with no writer never stalls
 * the caller. */
FILE *dm_fopen_regular(const char *path);

/* Replaces the regular file at a UTF-8 path with the n parts, concatenated, as the tool's
 * .npy writer does (docs/reliability.md): they are written to a new file beside it,
 * created exclusively (O_EXCL: never through a name someone else made, a symbolic link
 * planted there included), flushed to the disk, then renamed over it (Windows: MoveFileExW
 * with MOVEFILE_REPLACE_EXISTING), so that a reader sees the old file or the new one, never
 * half of one, and a failed write leaves the old one and no temporary. A symbolic link is
 * followed: the file it names is replaced, the link stays. A path that exists and is not
 * a regular file (a device node such as /dev/null, a FIFO, a directory) is left alone and
 * nothing blocks. Returns 0, or the errno value of what failed (EINVAL for a path that is
 * not a regular file). */
int dm_write_file_atomic(const char *path, const void *const *parts, const size_t *lens, size_t n);

/* A duplicate of file descriptor fd (-1 when it cannot be had, and on Windows, which has
 * none), and closing one. */
int dm_fd_dup(int fd);
void dm_fd_close(int fd);

/* Case-insensitive ASCII comparison (strcasecmp is POSIX, _stricmp Windows'). */
int dm_strcasecmp(const char *a, const char *b);

/* The Vulkan loader's file name on this platform, for messages. */
const char *dm_vulkan_loader_name(void);

#endif
