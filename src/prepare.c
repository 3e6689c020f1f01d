/*
 * A level's load (prepare.c): the lazy tables a grid's queries would build on their first
 * use (cost range, island labels, dead-end areas, JPS+ table), built now, whole or as a build
 * in slices (one table a unit: coarse, for a loading screen), and a workspace's per-cell
 * arrays made and touched before its first query. The tables are the getters' (search.c's
 * astar_find_prepare makes every one a query may need): nothing here builds one itself.
 */
#include "build.h"
#include "hierarchy.h"

#include <string.h>

/* The query whose lazy tables prepare makes: the defaults under `mode`. */
static void prepared_query(astar_query *q, astar_diagonal mode) {
    astar_query_init(q);
    q->diagonal = mode;
}

astar_status astar_grid_prepare(astar_grid *g, astar_diagonal mode) {
    if (!g || (mode != ASTAR_DIAG_DEFAULT && (mode < ASTAR_DIAG_NEVER || mode > ASTAR_DIAG_HEX))) return ASTAR_EINVAL;
    if ((mode == ASTAR_DIAG_HEX) != (g->diagonal == ASTAR_DIAG_HEX) && mode != ASTAR_DIAG_DEFAULT) return ASTAR_EINVAL;
    astar_query q;
    prepared_query(&q, mode);
    astar_status st = astar_find_prepare(g, &q);
    /* Dead-end areas that writes since their build retired (or that blocked cells would add)
     * come back only with a rebuild: this is its place, not a query. */
    return st == ASTAR_OK ? astar_dead_ends_refresh(g, true) : st;
}

astar_status astar_search_prepare(astar_search *s, astar_grid *g, astar_diagonal mode) {
    if (!s || !g || s->width != g->width || s->height != g->height) return ASTAR_EINVAL;
    /* The arrays of layered, claims and target (find_nearest) queries, made now:
     * zeroed pages of the system's with the default allocator (committed as queries touch
     * them), written now with a host's own. */
    if (!ASTAR_POOL_NEED(s, penalty, true) || !ASTAR_POOL_NEED(s, claimed, true) ||
        !ASTAR_POOL_NEED(s, claim_gen, true) || !ASTAR_POOL_NEED(s, target_of, true) ||
        !ASTAR_POOL_NEED(s, target_gen, true))
        return ASTAR_ENOMEM;
    /* A hierarchical query refines its corridor under a heuristic of its own, reopening nodes. */
    if (g->hierarchy && (!ASTAR_POOL_NEED(s, custom_h, true) || !ASTAR_POOL_NEED(s, step_in, true)))
        return ASTAR_ENOMEM;
    /* The view of the dead-end neighbour bits a query that skips dead ends reads, when the
     * areas are built (astar_grid_prepare first): this builds no table, and copies no page
     * (a search copies those it reads: astar_dead_end_view_at). */
    if (mode == ASTAR_DIAG_DEFAULT) mode = g->diagonal;
    const astar_dead_ends *de = &g->dead_ends[astar_dead_end_kind(mode)];
    if (de->fresh && de->nareas > 0 && !astar_dead_end_view_begin(&s->dead_ends, de, &s->alloc, s->cells))
        return ASTAR_ENOMEM;
    return ASTAR_OK;
}

astar_status astar_grid_prepare_hierarchy(astar_grid *g, int32_t cluster_size) {
    if (!g || cluster_size < 2) return ASTAR_EINVAL;
    const struct astar_hierarchy *h = g->hierarchy;
    astar_status st = h && h->size == cluster_size && h->mode == g->diagonal ? astar_hierarchy_refresh(g, g->hierarchy)
                                                                             : astar_grid_hierarchy(g, cluster_size);
    if (st != ASTAR_OK) return st;
    return astar_hier_scratch(g, g->hierarchy) ? ASTAR_OK : ASTAR_ENOMEM; /* the first query's */
}

/* ------------------------------------------------------------ as a build */

/* The tables in the order a build makes them; the last makes all again, which costs nothing
 * for those still fresh and rebuilds those a write made stale meanwhile. */
enum { P_RANGE, P_ISLANDS, P_DEAD_ENDS, P_ALL, P_PARTS };

typedef struct prepare_build {
    astar_grid *g;
    astar_alloc alloc;
    astar_diagonal mode;
    int part;
} prepare_build;

static astar_status pb_between(void *self, uint64_t budget, uint64_t *used, int32_t *units) {
    prepare_build *b = self;
    *units = 0;
    if (b->part == P_PARTS) return ASTAR_OK;
    if (budget == 0) return ASTAR_RUNNING; /* a table costs a unit, whatever its size */
    astar_grid *g = b->g;
    astar_diagonal mode = b->mode == ASTAR_DIAG_DEFAULT ? g->diagonal : b->mode;
    astar_status st = ASTAR_OK;
    double lo, hi;
    astar_islands *is;
    astar_dead_ends *de;
    switch (b->part) {
    case P_RANGE: st = astar_grid_cost_range(g, &lo, &hi); break;
    case P_ISLANDS: st = astar_islands_get(g, astar_island_kind(mode), &is); break;
    case P_DEAD_ENDS:
        st = astar_dead_ends_get(g, astar_dead_end_kind(mode), &de);
        if (st == ASTAR_OK) st = astar_dead_ends_refresh(g, true);
        break;
    default: st = astar_grid_prepare(g, b->mode); break; /* the JPS+ table, and what went stale */
    }
    if (st != ASTAR_OK) return st;
    *used = 1;
    b->part++;
    return b->part == P_PARTS ? ASTAR_OK : ASTAR_RUNNING;
}

static astar_status pb_unit(void *self, int32_t u, astar_search *s, uint64_t budget, uint64_t *used) {
    (void)self, (void)u, (void)s, (void)budget;
    *used = 0;
    return ASTAR_OK; /* it has no stages */
}

static void pb_install(void *self) { (void)self; /* the tables are on the grid already */ }
static void pb_reset(void *self) { ((prepare_build *)self)->part = P_RANGE; }
static uint64_t pb_total(const void *self) { (void)self; return P_PARTS; }

static void pb_release(void *self) {
    prepare_build *b = self;
    astar_alloc a = b->alloc;
    astar_mem(&a, b, sizeof *b, 0);
}

/* A write between steps: the grid keeps what is built in step or marks it stale, and the
 * last part makes what went stale again. */
static bool pb_changed(void *self, const astar_change *c) {
    (void)self, (void)c;
    return false;
}

static const astar_build_ops PREPARE_OPS = {pb_between, pb_unit, pb_install, pb_reset, pb_total, pb_release,
                                            true,       pb_changed};

astar_build *astar_build_prepare(astar_grid *g, astar_diagonal mode, astar_status *st) {
    astar_status dummy;
    if (!st) st = &dummy;
    *st = ASTAR_EINVAL;
    if (!g || (mode != ASTAR_DIAG_DEFAULT && (mode < ASTAR_DIAG_NEVER || mode > ASTAR_DIAG_HEX))) return NULL;
    if ((mode == ASTAR_DIAG_HEX) != (g->diagonal == ASTAR_DIAG_HEX) && mode != ASTAR_DIAG_DEFAULT) return NULL;
    *st = ASTAR_ENOMEM;
    prepare_build *b = astar_mem(&g->alloc, NULL, 0, sizeof *b);
    if (!b) return NULL;
    memset(b, 0, sizeof *b);
    b->g = g;
    b->alloc = g->alloc;
    b->mode = mode;
    astar_build *build = astar_build_new(g, &PREPARE_OPS, b, 1);
    if (!build) {
        pb_release(b);
        return NULL;
    }
    *st = ASTAR_OK;
    return build;
}
