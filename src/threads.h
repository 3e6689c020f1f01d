/*
 * The few thread calls the core makes (many.c, under find_many and the builds): start, join, and
 * a mutex. POSIX threads, or Win32's on Windows: MSVC has no pthreads, and MinGW builds take the
 * Win32 path too, so that the path every Windows build runs is the one the tests check under
 * Wine (docs/building.md).
 */
#ifndef ASTAR_THREADS_H
#define ASTAR_THREADS_H

#include <stdbool.h>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <process.h>
#include <windows.h>
#else
#include <pthread.h>
#endif

/* A thread, started on fn(arg); the struct stays where it is until the thread is joined. */
typedef struct astar_thread {
    void (*fn)(void *arg);
    void *arg;
#ifdef _WIN32
    HANDLE handle;
#else
    pthread_t id;
#endif
} astar_thread;

#ifdef _WIN32
typedef SRWLOCK astar_mutex;

/* _beginthreadex rather than CreateThread: the thread uses the C library (malloc). */
static inline unsigned __stdcall astar_thread_entry(void *p) {
    astar_thread *t = p;
    t->fn(t->arg);
    return 0;
}
static inline bool astar_thread_start(astar_thread *t, void (*fn)(void *arg), void *arg) {
    t->fn = fn;
    t->arg = arg;
    t->handle = (HANDLE)_beginthreadex(NULL, 0, astar_thread_entry, t, 0, NULL);
    return t->handle != 0;
}
static inline void astar_thread_join(astar_thread *t) {
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
}
static inline bool astar_mutex_init(astar_mutex *m) { InitializeSRWLock(m); return true; }
static inline void astar_mutex_lock(astar_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void astar_mutex_unlock(astar_mutex *m) { ReleaseSRWLockExclusive(m); }
static inline void astar_mutex_destroy(astar_mutex *m) { (void)m; } /* an SRW lock holds nothing */
#else
typedef pthread_mutex_t astar_mutex;

static inline void *astar_thread_entry(void *p) {
    astar_thread *t = p;
    t->fn(t->arg);
    return NULL;
}
static inline bool astar_thread_start(astar_thread *t, void (*fn)(void *arg), void *arg) {
    t->fn = fn;
    t->arg = arg;
    return pthread_create(&t->id, NULL, astar_thread_entry, t) == 0;
}
static inline void astar_thread_join(astar_thread *t) { pthread_join(t->id, NULL); }
static inline bool astar_mutex_init(astar_mutex *m) { return pthread_mutex_init(m, NULL) == 0; }
static inline void astar_mutex_lock(astar_mutex *m) { pthread_mutex_lock(m); }
static inline void astar_mutex_unlock(astar_mutex *m) { pthread_mutex_unlock(m); }
static inline void astar_mutex_destroy(astar_mutex *m) { pthread_mutex_destroy(m); }
#endif

#endif
