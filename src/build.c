/*
 * The driver of builds in slices (astar_build_step): a step spends its budget on the
 * current stage's units, shared by the workers (astar_many_run, the threads
 * astar_find_many uses), or on the work between stages, until the budget is spent or
 * the build is complete. A unit in progress keeps its workspace (its Dijkstra lives in
 * the node records) from step to step.
 */
#include "build.h"

#include <stdatomic.h>
#include <string.h>

struct astar_build {
    const astar_build_ops *ops;
    void *self;
    astar_grid *g;
    astar_alloc alloc;
    astar_many *pool;        /* the workers' workspaces, allocating behind a mutex */
    int threads;
    bool begun;              /* version holds the terrain the work so far was measured on */
    uint32_t version;
    uint32_t restarts;
    bool complete;           /* installed */
    bool between;            /* in the work between stages (else in a stage's units) */
    int32_t units;           /* the current stage's */
    atomic_int next;         /* its next unit no worker has taken */
    int32_t slot_unit[ASTAR_MANY_MAX_THREADS]; /* the unit each workspace holds, or -1 */
    uint64_t done;           /* work since the build (re)started */
    double shown;            /* the progress: it never goes back while the work goes on */
    /* The round in progress: which workspaces take part, their budgets, what they did. */
    int part[ASTAR_MANY_MAX_THREADS];
    astar_search *space[ASTAR_MANY_MAX_THREADS];
    uint64_t share[ASTAR_MANY_MAX_THREADS], spent[ASTAR_MANY_MAX_THREADS];
    astar_status error[ASTAR_MANY_MAX_THREADS];
};

astar_build *astar_build_new(astar_grid *g, const astar_build_ops *ops, void *self, int threads) {
    astar_alloc a;
    astar_build *b = astar_new_zeroed(&g->alloc, sizeof *b, &a);
    if (!b) return NULL;
    b->pool = astar_many_new(g->width, g->height, &a);
    if (!b->pool) {
        astar_mem(&a, b, sizeof *b, 0);
        return NULL;
    }
    b->ops = ops;
    b->self = self;
    b->g = g;
    b->alloc = a;
    b->threads = threads;
    b->between = true;
    for (int w = 0; w < ASTAR_MANY_MAX_THREADS; w++) b->slot_unit[w] = -1;
    return b;
}

const astar_alloc *astar_build_locked_alloc(const astar_build *b) { return astar_many_locked(b->pool); }

void astar_build_free(astar_build *b) {
    if (!b) return;
    b->ops->reset(b->self);
    b->ops->release(b->self);
    astar_many_free(b->pool);
    astar_alloc a = b->alloc;
    astar_mem(&a, b, sizeof *b, 0);
}

/* Back to nothing done (the workspaces are kept: a unit begins by resetting its own). */
static void start_over(astar_build *b) {
    b->ops->reset(b->self);
    b->begun = false;
    b->between = true;
    b->units = 0;
    for (int w = 0; w < ASTAR_MANY_MAX_THREADS; w++) b->slot_unit[w] = -1;
    b->done = 0;
    b->shown = 0.0;
}

/* Whether the build's work so far holds on the terrain as it is now (its kind says, change
 * by change) or it must start over. */
static bool still_good(const astar_build *b) {
    const astar_grid *g = b->g;
    if (!b->ops->changed || !astar_grid_changes_known(g, b->version)) return false;
    for (uint32_t v = b->version + 1u; v != g->version + 1u; v++)
        if (b->ops->changed(b->self, astar_grid_change(g, v))) return false;
    return true;
}

/* Worker j of a round: its workspace's unit, then new ones, until its share is spent. */
static void round_worker(void *ud, int j) {
    astar_build *b = ud;
    int w = b->part[j];
    uint64_t left = b->share[j];
    b->spent[j] = 0;
    b->error[j] = ASTAR_OK;
    while (left > 0) {
        int32_t u = b->slot_unit[w];
        if (u < 0) {
            u = atomic_fetch_add_explicit(&b->next, 1, memory_order_relaxed);
            if (u >= b->units) break;
            b->slot_unit[w] = u;
        }
        uint64_t used = 0;
        astar_status st = b->ops->unit(b->self, u, b->space[j], left, &used);
        left -= used < left ? used : left;
        b->spent[j] += used;
        if (st == ASTAR_OK) {
            b->slot_unit[w] = -1;
        } else if (st != ASTAR_RUNNING) {
            b->error[j] = st;
            break;
        } else if (used == 0) {
            break;
        }
    }
}

/* One round of the current stage: ASTAR_OK when its units are all finished, ASTAR_RUNNING,
 * or the first error (by workspace) a unit met. */
static astar_status run_round(astar_build *b, uint64_t budget, uint64_t *spent) {
    *spent = 0;
    int taken = atomic_load(&b->next);
    int32_t untaken = taken < b->units ? b->units - taken : 0;
    int n = 0;
    /* Units in progress first (each on its own workspace), then free workspaces for the
     * units nobody has taken, up to the threads. */
    for (int w = 0; w < b->threads; w++)
        if (b->slot_unit[w] >= 0) b->part[n++] = w;
    for (int w = 0; w < b->threads && untaken > 0; w++)
        if (b->slot_unit[w] < 0) b->part[n++] = w, untaken--;
    if (n == 0) return ASTAR_OK;
    for (int j = 0; j < n; j++) {
        b->space[j] = b->ops->bare ? NULL : astar_many_workspace(b->pool, b->part[j]);
        if (!b->space[j] && !b->ops->bare) return astar_last_status(); /* ENOMEM or ESTOPPED */
        b->share[j] = budget / (uint64_t)n + ((uint64_t)j < budget % (uint64_t)n ? 1 : 0);
    }
    astar_many_run(n, round_worker, b);
    astar_status st = ASTAR_RUNNING;
    for (int j = 0; j < n; j++) {
        *spent += b->spent[j];
        if (b->error[j] != ASTAR_OK && st == ASTAR_RUNNING) st = b->error[j];
    }
    if (st != ASTAR_RUNNING) return st;
    bool busy = atomic_load(&b->next) < b->units;
    for (int w = 0; w < b->threads && !busy; w++) busy = b->slot_unit[w] >= 0;
    return busy ? ASTAR_RUNNING : ASTAR_OK;
}

astar_status astar_build_step(astar_build *b, uint64_t budget, uint64_t *used_out) {
    if (used_out) *used_out = 0;
    if (!b) return ASTAR_EINVAL;
    if (b->complete) return ASTAR_OK;
    if (b->begun && b->g->version != b->version) { /* measured on other terrain */
        if (still_good(b)) {
            b->version = b->g->version;
        } else {
            start_over(b);
            b->restarts++;
        }
    }
    if (!b->begun) {
        b->begun = true;
        b->version = b->g->version;
    }
    uint64_t used = 0;
    astar_status st = ASTAR_RUNNING;
    /* The progress handler counts in the budget's units: each piece of work gets what both
     * allow (the units run no handler of their own: field.c, hierarchy.c), and a stop leaves
     * the build where it stands, as a spent budget does. The handler is asked for more only
     * when a piece could not go on without (what costs nothing, the install, needs none). */
    astar_progress *progress = astar_progress_get();
    bool stopped = false;
    while (used < budget) {
        uint64_t allow = progress->left < budget - used ? progress->left : budget - used, spent = 0;
        bool was_between = b->between;
        if (b->between) {
            int32_t units = 0;
            st = b->ops->between(b->self, allow, &spent, &units);
            if (st == ASTAR_OK && units == 0) {
                used += spent;
                astar_progress_spent(progress, spent);
                b->ops->install(b->self);
                b->complete = true;
                break;
            }
            if (st == ASTAR_OK) {
                b->between = false;
                b->units = units;
                atomic_store(&b->next, 0);
                st = ASTAR_RUNNING;
            }
        } else {
            st = run_round(b, allow, &spent);
            if (st == ASTAR_OK) {
                b->between = true;
                st = ASTAR_RUNNING;
            }
        }
        used += spent;
        astar_progress_spent(progress, spent);
        if (st != ASTAR_RUNNING) break;
        if (spent == 0 && b->between == was_between) {
            if (allow > 0) break; /* what is left buys nothing */
            if (astar_progress_ask(progress)) { /* the handler's units ran out: more, or stop */
                stopped = true;
                break;
            }
        }
    }
    if (used_out) *used_out = used;
    /* A stop inside the work (the lazy tables the set-up makes, a worker's workspace) comes
     * before it changes anything: the build stands where it stood. An error: nothing half-done
     * is kept. */
    if (st == ASTAR_ESTOPPED) {
        stopped = true;
    } else if (st != ASTAR_RUNNING && st != ASTAR_OK) {
        start_over(b);
        return st;
    }
    b->done += used;
    if (b->complete) {
        b->shown = 1.0;
    } else {
        uint64_t total = b->ops->total(b->self);
        double p = total > 0 ? (double)b->done / (double)total : 0.0;
        if (p > 0.999) p = 0.999; /* 1 means installed */
        if (p > b->shown) b->shown = p;
    }
    return b->complete ? ASTAR_OK : stopped ? ASTAR_ESTOPPED : ASTAR_RUNNING;
}

double astar_build_progress(const astar_build *b) { return b->shown; }

uint32_t astar_build_restarts(const astar_build *b) { return b->restarts; }
int astar_build_threads(const astar_build *b) { return b->threads; }
