/* Allocation helpers and status names: the bottom of the core, calling nothing of it. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *ud, void *p, size_t old_size, size_t new_size) {
    (void)ud;
    (void)old_size;
    if (new_size == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, new_size);
}

void *astar_mem(const astar_alloc *a, void *p, size_t old_size, size_t new_size) {
    if (new_size == 0 && p == NULL) return NULL;
    return a->fn(a->ud, p, old_size, new_size);
}

size_t astar_array_size(size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size) return 0;
    return n * size;
}

bool astar_size_ok(int32_t width, int32_t height) {
    return width >= 1 && height >= 1 && width <= ASTAR_MAX_SIDE && height <= ASTAR_MAX_SIDE;
}

astar_alloc astar_pick_alloc(const astar_alloc *alloc) {
    astar_alloc a = {default_alloc, NULL};
    if (alloc && alloc->fn) a = *alloc;
    return a;
}

void *astar_new_zeroed(const astar_alloc *alloc, size_t size, astar_alloc *picked) {
    *picked = astar_pick_alloc(alloc);
    void *p = astar_mem(picked, NULL, 0, size);
    if (p) memset(p, 0, size);
    return p;
}

const char *astar_status_name(astar_status s) {
    switch (s) {
    case ASTAR_OK: return "found";
    case ASTAR_UNREACHABLE: return "unreachable";
    case ASTAR_LIMIT: return "limit";
    case ASTAR_PARTIAL: return "partial";
    case ASTAR_EINVAL: return "invalid argument";
    case ASTAR_ENOMEM: return "not enough memory";
    case ASTAR_EABORT: return "aborted by a callback";
    case ASTAR_RUNNING: return "running";
    }
    return "unknown status";
}
