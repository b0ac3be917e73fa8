/* The platform layer on Windows (platform.h): Win32 threads, SRW locks, condition
 * variables and one-time initialisation, so that dmlops.dll imports only KERNEL32 and
 * the C runtime (no libwinpthread, no libgcc_s). Needs Windows Vista or later
 * (_WIN32_WINNT 0x0600) for SRW locks and condition variables, and Windows 7 for
 * GetActiveProcessorCount. */
#if defined(_WIN32)

#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#define WIN32_LEAN_AND_MEAN
#define NOMINMAX
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "platform.h"

/* The opaque types of platform.h are these Win32 objects, each one pointer. */
_Static_assert(sizeof(dm_mutex) == sizeof(SRWLOCK), "dm_mutex holds an SRWLOCK");
_Static_assert(sizeof(dm_cond) == sizeof(CONDITION_VARIABLE), "dm_cond holds a CONDITION_VARIABLE");
_Static_assert(sizeof(dm_once_flag) == sizeof(INIT_ONCE), "dm_once_flag holds an INIT_ONCE");

static SRWLOCK *dm_srw(dm_mutex *m) { return (SRWLOCK *)(void *)m; }
static CONDITION_VARIABLE *dm_cv(dm_cond *c) { return (CONDITION_VARIABLE *)(void *)c; }

bool dm_mutex_init(dm_mutex *m)
{
    InitializeSRWLock(dm_srw(m));
    return true;
}
void dm_mutex_destroy(dm_mutex *m) { (void)m; } /* SRW locks hold no resources */
void dm_mutex_lock(dm_mutex *m) { AcquireSRWLockExclusive(dm_srw(m)); }
void dm_mutex_unlock(dm_mutex *m) { ReleaseSRWLockExclusive(dm_srw(m)); }
bool dm_cond_init(dm_cond *c)
{
    InitializeConditionVariable(dm_cv(c));
    return true;
}
void dm_cond_destroy(dm_cond *c) { (void)c; }
void dm_cond_wait(dm_cond *c, dm_mutex *m) { SleepConditionVariableSRW(dm_cv(c), dm_srw(m), INFINITE, 0); }
int dm_fd_dup(int fd)
{
    (void)fd;
    return -1;
}
void dm_fd_close(int fd) { (void)fd; }

bool dm_cond_timedwait(dm_cond *c, dm_mutex *m, uint64_t timeout_ns)
{
    /* Milliseconds, rounded up, and below INFINITE (which would never end). */
    const uint64_t ms = timeout_ns / 1000000 + (timeout_ns % 1000000 != 0);
    return SleepConditionVariableSRW(dm_cv(c), dm_srw(m), ms < INFINITE ? (DWORD)ms : INFINITE - 1, 0) != 0;
}
void dm_cond_signal(dm_cond *c) { WakeConditionVariable(dm_cv(c)); }
void dm_cond_broadcast(dm_cond *c) { WakeAllConditionVariable(dm_cv(c)); }

static BOOL CALLBACK dm_once_call(PINIT_ONCE once, PVOID fn, PVOID *ctx)
{
    (void)once;
    (void)ctx;
    void (*f)(void);
    memcpy(&f, &fn, sizeof f); /* a function pointer carried through PVOID */
    f();
    return TRUE;
}

void dm_once(dm_once_flag *flag, void (*fn)(void))
{
    PVOID p;
    memcpy(&p, &fn, sizeof p);
    InitOnceExecuteOnce((PINIT_ONCE)(void *)flag, dm_once_call, p, NULL);
}

/* _beginthreadex rather than CreateThread: the C runtime sets up its per-thread state. */
static unsigned __stdcall dm_thread_main(void *p)
{
    const dm_thread *t = p;
    t->fn(t->arg);
    return 0;
}

bool dm_thread_start(dm_thread *t, void (*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    const uintptr_t h = _beginthreadex(NULL, 0, dm_thread_main, t, 0, NULL);
    if (!h) return false;
    t->handle = (void *)h;
    return true;
}

void dm_thread_join(dm_thread *t)
{
    WaitForSingleObject((HANDLE)t->handle, INFINITE);
    CloseHandle((HANDLE)t->handle);
}

uint64_t dm_now_ns(void)
{
    LARGE_INTEGER freq, now; /* the frequency is fixed at boot and cheap to ask */
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    const uint64_t f = (uint64_t)freq.QuadPart, c = (uint64_t)now.QuadPart;
    return c / f * 1000000000u + c % f * 1000000000u / f;
}

uint32_t dm_cpu_count(void)
{
    /* Every processor group, then the process's affinity within its group when that
     * is narrower (a job object or `start /affinity`). */
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    DWORD_PTR mask = 0, system = 0;
    if (GetProcessAffinityMask(GetCurrentProcess(), &mask, &system) && mask) {
        DWORD allowed = 0;
        for (; mask; mask &= mask - 1) allowed++;
        if (allowed < n) n = allowed;
    }
    return n ? (uint32_t)n : 1;
}

uint64_t dm_physical_memory(void)
{
    MEMORYSTATUSEX s = {.dwLength = sizeof s};
    return GlobalMemoryStatusEx(&s) ? (uint64_t)s.ullTotalPhys : UINT64_MAX;
}

uint64_t dm_l3_cache_bytes(void)
{
    DWORD bytes = 0;
    GetLogicalProcessorInformation(NULL, &bytes);
    if (!bytes) return 0;
    SYSTEM_LOGICAL_PROCESSOR_INFORMATION *info = malloc(bytes);
    if (!info) return 0;
    uint64_t l3 = 0;
    if (GetLogicalProcessorInformation(info, &bytes))
        for (size_t i = 0; i < bytes / sizeof *info; i++)
            if (info[i].Relationship == RelationCache && info[i].Cache.Level == 3 && info[i].Cache.Size > l3)
                l3 = info[i].Cache.Size;
    free(info);
    return l3;
}

/* VirtualAlloc returns zeroed memory on a 64 KiB granule; large pages need a privilege
 * that processes rarely hold, so `huge` and alignments above 64 KiB are ignored. */
void *dm_pages_alloc(size_t size, size_t align, bool huge)
{
    (void)align;
    (void)huge;
    return size ? VirtualAlloc(NULL, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE) : NULL;
}

void dm_pages_free(void *p, size_t size)
{
    (void)size; /* a reservation is released whole */
    VirtualFree(p, 0, MEM_RELEASE);
}

/* Paths are UTF-8, as everywhere else in the API. */
static wchar_t *dm_wide(const char *s)
{
    const int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
        free(w);
        w = NULL;
    }
    return w;
}

FILE *dm_fopen_regular(const char *path)
{
    wchar_t *wp = dm_wide(path);
    HANDLE h = wp ? CreateFileW(wp, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                                OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL)
                  : INVALID_HANDLE_VALUE;
    free(wp);
    if (h == INVALID_HANDLE_VALUE) return NULL;
    /* A disk file, not a pipe, a console or another device (NUL, COM1). */
    BY_HANDLE_FILE_INFORMATION info;
    if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
        (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        CloseHandle(h);
        return NULL;
    }
    const int fd = _open_osfhandle((intptr_t)h, _O_RDONLY | _O_BINARY);
    if (fd < 0) {
        CloseHandle(h);
        return NULL;
    }
    FILE *f = _fdopen(fd, "rb");
    if (!f) _close(fd);
    return f;
}

/* An errno value for the last Win32 error, for dm_write_file_atomic's callers. */
static int dm_win32_errno(void)
{
    switch (GetLastError()) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND: return ENOENT;
    case ERROR_ACCESS_DENIED: return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY: return ENOMEM;
    default: return EIO;
    }
}

/* The file a wide path names, its links followed (GetFinalPathNameByHandleW), malloc'd;
 * the path itself when nothing is there yet. NULL with *e set when it exists and is not a
 * regular file, or on failure. */
static wchar_t *dm_final_path(const wchar_t *wp, int *e)
{
    HANDLE h = CreateFileW(wp, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        const DWORD err = GetLastError();
        if (err != ERROR_FILE_NOT_FOUND) {
            *e = dm_win32_errno();
            return NULL;
        }
        wchar_t *copy = malloc((wcslen(wp) + 1) * sizeof *copy);
        if (copy) wcscpy(copy, wp);
        else *e = ENOMEM;
        return copy;
    }
    BY_HANDLE_FILE_INFORMATION info;
    wchar_t *out = NULL;
    if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
        (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        *e = EINVAL;
    } else {
        const DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED);
        out = n ? malloc((size_t)n * sizeof *out) : NULL;
        if (!out || GetFinalPathNameByHandleW(h, out, n, FILE_NAME_NORMALIZED) >= n) {
            free(out);
            out = NULL;
            *e = n ? ENOMEM : dm_win32_errno();
        }
    }
    CloseHandle(h);
    return out;
}

int dm_write_file_atomic(const char *path, const void *const *parts, const size_t *lens, size_t n)
{
    wchar_t *wp = dm_wide(path);
    int e = wp ? 0 : EINVAL;
    wchar_t *target = wp ? dm_final_path(wp, &e) : NULL;
    free(wp);
    if (!target) return e;
    const size_t tl = wcslen(target);
    wchar_t *tmp = malloc((tl + 40) * sizeof *tmp);
    if (!tmp) {
        free(target);
        return ENOMEM;
    }
    /* A fresh name beside the target, made exclusively (CREATE_NEW). */
    HANDLE h = INVALID_HANDLE_VALUE;
    static volatile LONG counter;
    for (int attempt = 0; attempt < 100 && h == INVALID_HANDLE_VALUE; attempt++) {
        const unsigned salt = (unsigned)(dm_now_ns() ^ GetCurrentProcessId() ^ (unsigned)InterlockedIncrement(&counter));
        swprintf(tmp, tl + 40, L"%ls.dmlops-%08x.tmp", target, salt);
        h = CreateFileW(tmp, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
        if (h == INVALID_HANDLE_VALUE && GetLastError() != ERROR_FILE_EXISTS) break;
    }
    bool ok = h != INVALID_HANDLE_VALUE;
    e = ok ? 0 : dm_win32_errno();
    for (size_t i = 0; ok && i < n; i++) {
        const uint8_t *p = parts[i];
        for (size_t left = lens[i]; ok && left;) {
            DWORD wrote = 0;
            ok = WriteFile(h, p, left > 0x40000000u ? 0x40000000u : (DWORD)left, &wrote, NULL) && wrote;
            p += wrote;
            left -= wrote;
        }
    }
    ok = ok && FlushFileBuffers(h);
    if (h != INVALID_HANDLE_VALUE) {
        if (!ok && !e) e = dm_win32_errno();
        CloseHandle(h);
        if (ok && !MoveFileExW(tmp, target, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
            e = dm_win32_errno();
            ok = false;
        }
        if (!ok) DeleteFileW(tmp);
    }
    free(tmp);
    free(target);
    return ok ? 0 : e ? e : EIO;
}

int dm_strcasecmp(const char *a, const char *b) { return _stricmp(a, b); }
const char *dm_vulkan_loader_name(void) { return "vulkan-1.dll"; }

#if ATOMIC_LLONG_LOCK_FREE != 2
/* count64.h's counts where 64-bit atomics are not lock-free: one lock for all. */
static SRWLOCK dm_count_lock = SRWLOCK_INIT;

void dm_count_add(dm_count64 *c, uint64_t v)
{
    AcquireSRWLockExclusive(&dm_count_lock);
    c->v += v;
    ReleaseSRWLockExclusive(&dm_count_lock);
}

void dm_count_sub(dm_count64 *c, uint64_t v)
{
    AcquireSRWLockExclusive(&dm_count_lock);
    c->v -= v;
    ReleaseSRWLockExclusive(&dm_count_lock);
}

uint64_t dm_count_load(dm_count64 *c)
{
    AcquireSRWLockExclusive(&dm_count_lock);
    const uint64_t v = c->v;
    ReleaseSRWLockExclusive(&dm_count_lock);
    return v;
}
#endif

#else
typedef int dm_platform_win32_unused; /* ISO C wants a declaration in every file */
#endif
