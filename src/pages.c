/*
 * Big per-node arrays as the system's zeroed pages (core.h): a workspace's records and
 * per-cell arrays cost what its searches touch, and making one costs no pass over the grid.
 * The searches read and write the arrays as before; only making, clearing and freeing them
 * is here.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and madvise under -std=c11 */
#include "core.h"

#include <string.h>

#if defined(_WIN32)
#include <windows.h>
#define PAGES_WINDOWS 1
#elif defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#if defined(MAP_ANONYMOUS)
#define PAGES_POSIX 1
#endif
#endif

/* Only the default allocator's arrays: a host that gave its own wants every byte through it
 * (to count or cap it). A small array costs less to clear than a call to the system. */
static bool from_system(const astar_alloc *a, size_t bytes) {
#if defined(PAGES_WINDOWS) || defined(PAGES_POSIX)
    return bytes >= ASTAR_PAGES_MIN && astar_alloc_is_default(a);
#else
    (void)a;
    (void)bytes;
    return false;
#endif
}

void *astar_pages_new(const astar_alloc *a, size_t bytes, bool zeroed) {
    if (bytes == 0) return NULL;
    if (from_system(a, bytes)) {
#if defined(PAGES_WINDOWS)
        return VirtualAlloc(NULL, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
#elif defined(PAGES_POSIX)
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
#endif
    }
    void *p = astar_mem(a, NULL, 0, bytes);
    if (p && zeroed) memset(p, 0, bytes);
    return p;
}

/* Linux refills private anonymous pages dropped with MADV_DONTNEED with zeros on their next
 * touch: the memory goes back to the system. (Elsewhere MADV_DONTNEED may keep the contents,
 * and Windows would have to decommit and commit again, which can fail: they write zeros.) */
#if defined(PAGES_POSIX) && defined(__linux__) && defined(MADV_DONTNEED)
#define PAGES_DROP 1
#endif

bool astar_pages_dropped(const astar_alloc *a, size_t bytes) {
#if defined(PAGES_DROP)
    return from_system(a, bytes);
#else
    (void)a;
    (void)bytes;
    return false;
#endif
}

void astar_pages_zero(const astar_alloc *a, void *p, size_t bytes) {
    if (!p) return;
#if defined(PAGES_DROP)
    if (from_system(a, bytes) && madvise(p, bytes, MADV_DONTNEED) == 0) return;
#else
    (void)a;
#endif
    memset(p, 0, bytes);
}

void astar_pages_free(const astar_alloc *a, void *p, size_t bytes) {
    if (!p) return;
    if (from_system(a, bytes)) {
#if defined(PAGES_WINDOWS)
        VirtualFree(p, 0, MEM_RELEASE);
#elif defined(PAGES_POSIX)
        munmap(p, bytes);
#endif
        return;
    }
    astar_mem(a, p, bytes, 0);
}
