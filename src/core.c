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

bool astar_alloc_is_default(const astar_alloc *a) { return a->fn == default_alloc; }

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
    case ASTAR_ESTOPPED: return "stopped";
    }
    return "unknown status";
}

/* ------------------------------------------------------------ progress */

/*
 * A thread's progress state: the handler astar_set_progress_handler installs (own), and while
 * the thread works for a call that shares it (many.c), the lease its loops charge (active) and
 * the handler fn's own calls of astar_set_progress_handler change (home). Zero at a thread's
 * start: no handler, left 0 (the first unit asks, which makes it endless).
 */
typedef struct progress_state {
    astar_progress own;
    astar_progress *active, *home;
    astar_progress none;
    astar_status last; /* astar_last_status */
} progress_state;

static _Thread_local progress_state here;

astar_progress *astar_progress_get(void) { return here.active ? here.active : &here.own; }

astar_progress *astar_progress_none(void) {
    here.none.fn = NULL;
    here.none.left = UINT64_MAX;
    return &here.none;
}

void astar_progress_redirect(astar_progress *active, astar_progress *home, astar_progress **was_active,
                             astar_progress **was_home) {
    if (was_active) *was_active = here.active;
    if (was_home) *was_home = here.home;
    here.active = active;
    here.home = home;
}

void astar_set_progress_handler(uint32_t every, astar_progress_fn fn, void *ud) {
    astar_progress *h = here.home ? here.home : &here.own;
    h->fn = every ? fn : NULL;
    h->ud = ud;
    h->every = h->fn ? every : 0;
    h->left = h->fn ? every : UINT64_MAX;
}

bool astar_progress_ask(astar_progress *p) {
    if (p->fn && p->fn(p->ud) != 0) {
        p->left = 0;
        return true;
    }
    p->left = p->fn ? p->every : UINT64_MAX; /* fn may have removed itself */
    return false;
}

bool astar_progress_charge_slow(astar_progress *p, uint64_t n) {
    while (n > p->left) {
        n -= p->left;
        p->left = 0;
        if (astar_progress_ask(p)) return true;
    }
    p->left -= n;
    return false;
}

uint64_t astar_progress_left(void) {
    const astar_progress *p = astar_progress_get();
    return p->fn ? p->left : UINT64_MAX;
}

astar_status astar_progress_work(uint64_t n) {
    return astar_progress_charge(astar_progress_get(), n) ? ASTAR_ESTOPPED : ASTAR_OK;
}

void *astar_made(void *obj, astar_status why) {
    here.last = obj ? ASTAR_OK : why;
    return obj;
}

astar_status astar_last_status(void) { return here.last; }
