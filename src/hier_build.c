/*
 * Building the hierarchy (hierarchy.c) as a build in slices (build.c): one stage whose units
 * are the clusters (each a resumable job: its border scan, then a Dijkstra from each entrance,
 * counted in pops), then the numbering of the entrances as the work between stages. The
 * hierarchy is built aside and put on the grid at once when complete: queries keep the old
 * one (or none) until then. A terrain write mid-build starts it over (the driver's version
 * check): marking only the touched clusters dirty would also be exact, but a write may move
 * the entrances of clusters already built, which a restart handles without new cases.
 */
#include "build.h"
#include "hierarchy.h"

#include <stdatomic.h>
#include <string.h>

enum { SETUP, NUMBER };

typedef struct hier_build {
    astar_grid *g;
    astar_alloc alloc;       /* the grid's, kept: a build freed after its grid touches nothing of it */
    const astar_build *build;/* for the locked allocator the units use on threads */
    int32_t size;
    struct astar_hierarchy *h; /* the one being built, not on the grid */
    int32_t count;
    astar_hier_job **jobs;   /* per cluster, its job while in progress (else NULL) */
    int phase;
    int32_t cursor, nodes;   /* the numbering */
    atomic_uint_fast64_t work; /* the units' work so far */
    atomic_int finished;       /* clusters built */
} hier_build;

/* A pass over the clusters costs a unit per 8 (as the job's passes over cells). */
#define CLUSTERS_PER_UNIT 8

static void hb_reset(void *self) {
    hier_build *b = self;
    if (b->jobs) {
        for (int32_t k = 0; k < b->count; k++) {
            if (!b->jobs[k]) continue;
            astar_hier_job_drop(b->jobs[k], &b->alloc);
            astar_mem(&b->alloc, b->jobs[k], sizeof *b->jobs[k], 0);
        }
        astar_mem(&b->alloc, b->jobs, (size_t)b->count * sizeof *b->jobs, 0);
    }
    astar_hierarchy_destroy(b->g, b->h);
    b->h = NULL;
    b->jobs = NULL;
    b->count = 0;
    b->phase = SETUP;
    b->cursor = b->nodes = 0;
    atomic_store(&b->work, 0);
    atomic_store(&b->finished, 0);
}

static void hb_release(void *self) {
    hier_build *b = self;
    astar_alloc a = b->alloc;
    astar_mem(&a, b, sizeof *b, 0);
}

static astar_status hb_between(void *self, uint64_t budget, uint64_t *used, int32_t *units) {
    hier_build *b = self;
    *units = 0;
    if (b->phase == SETUP) {
        if (budget == 0) return ASTAR_RUNNING; /* it costs a unit */
        *used = 1;
        if (b->size == 0) return ASTAR_OK; /* drops the grid's at install */
        astar_status st = astar_hierarchy_make(b->g, b->size, &b->h);
        if (st != ASTAR_OK) return st;
        b->count = b->h->cols * b->h->rows;
        b->jobs = astar_mem(&b->alloc, NULL, 0, (size_t)b->count * sizeof *b->jobs);
        if (!b->jobs) return ASTAR_ENOMEM;
        memset(b->jobs, 0, (size_t)b->count * sizeof *b->jobs);
        b->phase = NUMBER;
        *units = b->count;
        return ASTAR_OK;
    }
    /* Every cluster is built: number their entrances, a slice at a time. */
    uint64_t most = budget >= UINT64_MAX / CLUSTERS_PER_UNIT ? UINT64_MAX : budget * CLUSTERS_PER_UNIT;
    uint64_t left = (uint64_t)(b->count - b->cursor);
    int32_t end = b->cursor + (int32_t)(left < most ? left : most);
    for (int32_t k = b->cursor; k < end; k++) {
        b->h->base[k] = b->nodes;
        b->nodes += b->h->clusters[k].n;
    }
    *used = ((uint64_t)(end - b->cursor) + CLUSTERS_PER_UNIT - 1) / CLUSTERS_PER_UNIT;
    b->cursor = end;
    if (end < b->count) return ASTAR_RUNNING;
    b->h->nodes = b->nodes;
    b->h->stale = false;
    return ASTAR_OK;
}

static astar_status hb_unit(void *self, int32_t u, astar_search *s, uint64_t budget, uint64_t *used) {
    (void)s;
    hier_build *b = self;
    const astar_alloc *a = astar_build_locked_alloc(b->build);
    astar_hier_job *j = b->jobs[u];
    *used = 0;
    if (!j) {
        j = astar_mem(a, NULL, 0, sizeof *j);
        if (!j) return ASTAR_ENOMEM;
        astar_hier_job_init(j, u);
        b->jobs[u] = j;
    }
    astar_status st = astar_hier_job_run(b->g, b->h, j, a, budget, used);
    atomic_fetch_add(&b->work, *used);
    if (st == ASTAR_RUNNING) return st;
    if (st == ASTAR_OK) atomic_fetch_add(&b->finished, 1);
    astar_mem(a, j, sizeof *j, 0); /* its memory is the cluster's now, or dropped */
    b->jobs[u] = NULL;
    return st;
}

static void hb_install(void *self) {
    hier_build *b = self;
    astar_hierarchy_free(b->g);
    b->g->hierarchy = b->h;
    b->h = NULL;
}

static uint64_t hb_total(const void *self) {
    const hier_build *b = self;
    uint64_t count = b->count > 0 ? (uint64_t)b->count : 1, numbering = count / CLUSTERS_PER_UNIT + 1;
    uint64_t work = atomic_load(&b->work);
    int finished = atomic_load(&b->finished);
    if (finished > 0) return 1 + work * count / (uint64_t)finished + numbering;
    /* Before any cluster is built: a guess of four entrances per cluster. */
    uint64_t cells = (uint64_t)b->g->width * (uint64_t)b->g->height;
    return 1 + 4 * (cells + cells / 8) + numbering;
}

static const astar_build_ops HIERARCHY_OPS = {hb_between, hb_unit, hb_install, hb_reset, hb_total, hb_release,
                                              true, NULL};

astar_build *astar_build_hierarchy(astar_grid *g, int32_t cluster_size, int threads, astar_status *st) {
    astar_status dummy;
    if (!st) st = &dummy;
    *st = ASTAR_EINVAL;
    if (!g || cluster_size < 0 || cluster_size == 1 || cluster_size > ASTAR_HIER_MAX_SIZE || threads < 0 ||
        threads > ASTAR_MANY_MAX_THREADS)
        return NULL;
    astar_diagonal mode = g->diagonal;
    if (cluster_size > 0 && mode != ASTAR_DIAG_NEVER && mode != ASTAR_DIAG_ONE_WALKABLE &&
        mode != ASTAR_DIAG_NO_CORNER_CUT)
        return NULL;
    if (threads == 0) threads = astar_many_default_threads();
    *st = ASTAR_ENOMEM;
    hier_build *b = astar_mem(&g->alloc, NULL, 0, sizeof *b);
    if (!b) return NULL;
    memset(b, 0, sizeof *b);
    b->g = g;
    b->alloc = g->alloc;
    b->size = cluster_size;
    b->phase = SETUP;
    atomic_init(&b->work, 0);
    atomic_init(&b->finished, 0);
    astar_build *build = astar_build_new(g, &HIERARCHY_OPS, b, threads);
    if (!build) {
        hb_release(b);
        return NULL;
    }
    b->build = build;
    *st = ASTAR_OK;
    return build;
}

astar_status astar_grid_hierarchy(astar_grid *g, int32_t cluster_size) {
    astar_status st;
    astar_build *b = astar_build_hierarchy(g, cluster_size, 1, &st);
    if (b) {
        st = astar_build_step(b, UINT64_MAX, NULL);
        astar_build_free(b);
    }
    if (st == ASTAR_ENOMEM) astar_hierarchy_free(g); /* as documented: none on ENOMEM; a stop keeps it */
    return st;
}
