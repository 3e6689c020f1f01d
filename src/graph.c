/* General graphs: nodes with positions, arcs with costs (searched by graph_search.c). */
#include "graph.h"
#include "grid.h"
#include "layers.h"

#include <string.h>

/* ------------------------------------------------------------- building */

astar_graph *astar_graph_new(const astar_alloc *alloc) {
    astar_alloc a;
    astar_graph *g = astar_new_zeroed(alloc, sizeof *g, &a);
    if (!g) return astar_made(NULL, ASTAR_ENOMEM);
    g->alloc = a;
    g->free_slot = -1;
    g->stale = true;
    g->rstale = true;
    return astar_made(g, ASTAR_OK);
}

void astar_graph_free(astar_graph *g) {
    if (!g) return;
    astar_alloc a = g->alloc;
    size_t cap = (size_t)g->node_cap;
    astar_mem(&a, g->pos, cap * 3 * sizeof *g->pos, 0);
    astar_mem(&a, g->blocked, cap, 0);
    astar_mem(&a, g->first, cap * sizeof *g->first, 0);
    astar_mem(&a, g->slot, (size_t)g->slot_cap * sizeof *g->slot, 0);
    astar_mem(&a, g->start, (size_t)g->start_cap * sizeof *g->start, 0);
    astar_mem(&a, g->packed, (size_t)g->packed_cap * sizeof *g->packed, 0);
    astar_mem(&a, g->rstart, (size_t)g->rstart_cap * sizeof *g->rstart, 0);
    astar_mem(&a, g->rpacked, (size_t)g->rpacked_cap * sizeof *g->rpacked, 0);
    astar_mem(&a, g, sizeof *g, 0);
}

static void changed(astar_graph *g) {
    g->stale = true;
    g->rstale = true;
    g->version++;
}

/* Room for one more node. The three arrays are replaced together or not at all. */
static bool grow_nodes(astar_graph *g) {
    if (g->nodes < g->node_cap) return true;
    if (g->node_cap >= ASTAR_GRAPH_MAX_NODES) return false;
    size_t cap = g->node_cap ? (size_t)g->node_cap * 2 : 16, old = (size_t)g->node_cap;
    if (cap > ASTAR_GRAPH_MAX_NODES) cap = ASTAR_GRAPH_MAX_NODES;
    double *pos = astar_mem(&g->alloc, NULL, 0, cap * 3 * sizeof *pos);
    uint8_t *blocked = pos ? astar_mem(&g->alloc, NULL, 0, cap) : NULL;
    int32_t *first = blocked ? astar_mem(&g->alloc, NULL, 0, cap * sizeof *first) : NULL;
    if (!first) {
        if (blocked) astar_mem(&g->alloc, blocked, cap, 0);
        if (pos) astar_mem(&g->alloc, pos, cap * 3 * sizeof *pos, 0);
        return false;
    }
    if (old) {
        memcpy(pos, g->pos, old * 3 * sizeof *pos);
        memcpy(blocked, g->blocked, old);
        memcpy(first, g->first, old * sizeof *first);
    }
    astar_mem(&g->alloc, g->pos, old * 3 * sizeof *pos, 0);
    astar_mem(&g->alloc, g->blocked, old, 0);
    astar_mem(&g->alloc, g->first, old * sizeof *first, 0);
    g->pos = pos;
    g->blocked = blocked;
    g->first = first;
    g->node_cap = (int32_t)cap;
    return true;
}

astar_status astar_graph_add_node(astar_graph *g, double x, double y, double z, int32_t *id) {
    if (!(fabs(x) <= ASTAR_GRAPH_MAX_COORD) || !(fabs(y) <= ASTAR_GRAPH_MAX_COORD) ||
        !(fabs(z) <= ASTAR_GRAPH_MAX_COORD) || g->nodes >= ASTAR_GRAPH_MAX_NODES)
        return ASTAR_EINVAL;
    if (!grow_nodes(g)) return ASTAR_ENOMEM;
    int32_t n = g->nodes++;
    g->pos[3 * n] = x;
    g->pos[3 * n + 1] = y;
    g->pos[3 * n + 2] = z;
    g->blocked[n] = 0;
    g->first[n] = -1;
    changed(g);
    if (id) *id = n;
    return ASTAR_OK;
}

int32_t astar_graph_node_count(const astar_graph *g) { return g->nodes; }
int32_t astar_graph_arc_count(const astar_graph *g) { return g->arcs; }


astar_status astar_graph_node(const astar_graph *g, int32_t id, double *x, double *y, double *z) {
    if (!astar_graph_valid_id(g, id)) return ASTAR_EINVAL;
    if (x) *x = g->pos[3 * id];
    if (y) *y = g->pos[3 * id + 1];
    if (z) *z = g->pos[3 * id + 2];
    return ASTAR_OK;
}


/* The slot of the arc from -> to, or -1. */
static int32_t find_slot(const astar_graph *g, int32_t from, int32_t to) {
    for (int32_t k = g->first[from]; k >= 0; k = g->slot[k].next)
        if (g->slot[k].to == to) return k;
    return -1;
}

/* Room for n more new slots, so that adding an edge cannot fail halfway. */
static bool reserve_slots(astar_graph *g, int32_t n) {
    if (g->slot_cap - g->slots >= n) return true;
    if (g->slot_cap > ASTAR_GRAPH_MAX_ARCS - n) return false;
    int64_t want = g->slot_cap ? (int64_t)g->slot_cap * 2 : 64;
    if (want < (int64_t)g->slots + n) want = (int64_t)g->slots + n;
    if (want > ASTAR_GRAPH_MAX_ARCS) want = ASTAR_GRAPH_MAX_ARCS;
    graph_slot *slot = astar_mem(&g->alloc, g->slot, (size_t)g->slot_cap * sizeof *slot,
                                 (size_t)want * sizeof *slot);
    if (!slot) return false;
    g->slot = slot;
    g->slot_cap = (int32_t)want;
    return true;
}

static bool valid_cost(double cost) {
    return cost == ASTAR_GRAPH_LENGTH || (cost >= 0 && cost <= ASTAR_MAX_VALUE);
}

/* Adds or re-costs an arc whose arguments were checked and for which room was reserved. */
static void put_arc(astar_graph *g, int32_t from, int32_t to, double cost) {
    if (cost == ASTAR_GRAPH_LENGTH) cost = astar_graph_distance(g->pos, from, to);
    int32_t k = find_slot(g, from, to);
    if (k < 0) {
        if (g->free_slot >= 0) {
            k = g->free_slot;
            g->free_slot = g->slot[k].next;
        } else {
            k = g->slots++;
        }
        g->slot[k].to = to;
        g->slot[k].next = g->first[from];
        g->first[from] = k;
        g->arcs++;
    }
    g->slot[k].cost = cost + 0.0; /* -0 becomes +0 */
    changed(g);
}

/* Whether a new arc from -> to would need a slot that is not there yet. */
static int32_t slots_needed(const astar_graph *g, int32_t from, int32_t to) {
    return find_slot(g, from, to) < 0 ? 1 : 0;
}

astar_status astar_graph_add_arc(astar_graph *g, int32_t from, int32_t to, double cost) {
    if (!astar_graph_valid_id(g, from) || !astar_graph_valid_id(g, to) || from == to || !valid_cost(cost))
        return ASTAR_EINVAL;
    int32_t need = slots_needed(g, from, to);
    if (need && g->free_slot < 0) {
        if (g->arcs >= ASTAR_GRAPH_MAX_ARCS) return ASTAR_EINVAL;
        if (!reserve_slots(g, need)) return ASTAR_ENOMEM;
    }
    put_arc(g, from, to, cost);
    return ASTAR_OK;
}

astar_status astar_graph_add_edge(astar_graph *g, int32_t a, int32_t b, double cost) {
    if (!astar_graph_valid_id(g, a) || !astar_graph_valid_id(g, b) || a == b || !valid_cost(cost)) return ASTAR_EINVAL;
    int32_t need = slots_needed(g, a, b) + slots_needed(g, b, a);
    if (need > 0) {
        if (g->arcs > ASTAR_GRAPH_MAX_ARCS - need) return ASTAR_EINVAL;
        /* Free slots may cover part of it; asking for all keeps this simple and rarely grows. */
        if (!reserve_slots(g, need)) return ASTAR_ENOMEM;
    }
    put_arc(g, a, b, cost);
    put_arc(g, b, a, cost);
    return ASTAR_OK;
}

astar_status astar_graph_remove_arc(astar_graph *g, int32_t from, int32_t to, int *removed) {
    if (removed) *removed = 0;
    if (!astar_graph_valid_id(g, from) || !astar_graph_valid_id(g, to)) return ASTAR_EINVAL;
    for (int32_t *link = &g->first[from]; *link >= 0; link = &g->slot[*link].next) {
        int32_t k = *link;
        if (g->slot[k].to != to) continue;
        *link = g->slot[k].next;
        g->slot[k].to = -1;
        g->slot[k].next = g->free_slot;
        g->free_slot = k;
        g->arcs--;
        changed(g);
        if (removed) *removed = 1;
        break;
    }
    return ASTAR_OK;
}

double astar_graph_arc_cost(const astar_graph *g, int32_t from, int32_t to) {
    if (!astar_graph_valid_id(g, from) || !astar_graph_valid_id(g, to)) return NAN;
    int32_t k = find_slot(g, from, to);
    return k < 0 ? NAN : g->slot[k].cost;
}

int32_t astar_graph_neighbours(const astar_graph *g, int32_t id, int32_t *to, double *cost,
                               int32_t max) {
    if (!astar_graph_valid_id(g, id)) return -1;
    int32_t degree = 0;
    for (int32_t k = g->first[id]; k >= 0; k = g->slot[k].next) degree++;
    int32_t i = degree; /* the list is newest first: fill from the back */
    for (int32_t k = g->first[id]; k >= 0; k = g->slot[k].next) {
        i--;
        if (i >= max) continue;
        if (to) to[i] = g->slot[k].to;
        if (cost) cost[i] = g->slot[k].cost;
    }
    return degree;
}

astar_status astar_graph_set_blocked(astar_graph *g, int32_t id, int blocked) {
    if (!astar_graph_valid_id(g, id)) return ASTAR_EINVAL;
    g->blocked[id] = blocked != 0;
    g->version++;
    return ASTAR_OK;
}

int astar_graph_is_blocked(const astar_graph *g, int32_t id) {
    return astar_graph_valid_id(g, id) ? g->blocked[id] : -1;
}

uint32_t astar_graph_version(const astar_graph *g) { return g->version; }

double astar_graph_heuristic_scale(const astar_graph *g) { return g->stale ? NAN : g->h_scale; }

astar_status astar_graph_prepare(astar_graph *g) {
    if (!g->stale) return ASTAR_OK;
    size_t need_start = (size_t)g->nodes + 1, need_packed = g->arcs ? (size_t)g->arcs : 1;
    if ((size_t)g->start_cap < need_start) {
        int32_t *start = astar_mem(&g->alloc, NULL, 0, (size_t)g->node_cap * sizeof *start + sizeof *start);
        if (!start) return ASTAR_ENOMEM;
        astar_mem(&g->alloc, g->start, (size_t)g->start_cap * sizeof *start, 0);
        g->start = start;
        g->start_cap = g->node_cap + 1; /* as much as the nodes have room for: fewer rebuilds */
    }
    if ((size_t)g->packed_cap < need_packed) {
        size_t cap = g->slot_cap > 0 ? (size_t)g->slot_cap : 1;
        packed_arc *packed = astar_mem(&g->alloc, NULL, 0, cap * sizeof *packed);
        if (!packed) return ASTAR_ENOMEM;
        astar_mem(&g->alloc, g->packed, (size_t)g->packed_cap * sizeof *packed, 0);
        g->packed = packed;
        g->packed_cap = (int32_t)cap;
    }
    double scale = INFINITY;
    int32_t at = 0;
    astar_progress *progress = astar_progress_get();
    for (int32_t a = 0; a < g->nodes; a++) {
        g->start[a] = at;
        int32_t degree = 0;
        for (int32_t k = g->first[a]; k >= 0; k = g->slot[k].next) degree++;
        /* A unit per node and arc: a stop leaves it stale (it packs again next time). */
        if (astar_progress_charge(progress, 1 + (uint64_t)degree)) return ASTAR_ESTOPPED;
        int32_t i = at + degree; /* newest first in the list, oldest first in the pack */
        for (int32_t k = g->first[a]; k >= 0; k = g->slot[k].next) {
            const graph_slot *s = &g->slot[k];
            packed_arc *p = &g->packed[--i];
            p->cost = s->cost;
            p->to = s->to;
            p->spare = 0;
            double length = astar_graph_distance(g->pos, a, s->to);
            if (length > 0 && s->cost / length < scale) scale = s->cost / length;
        }
        at += degree;
    }
    g->start[g->nodes] = at;
    /* No arc between distinct places: every reachable node sits where the start does, so
     * any scale would do; 0 says so plainly. */
    g->h_scale = scale == INFINITY ? 0.0 : scale;
    g->stale = false;
    return ASTAR_OK;
}

/*
 * The packed arcs turned around by a counting sort: in-degrees, their prefix sums, then each
 * arc a -> b put at b's next place with `to` = a. Two passes over the packed arcs and one over
 * the nodes; a node's incoming arcs end up by source ascending (deterministic). Only fields
 * toward their sources read them, so a graph that never asks pays nothing.
 */
astar_status astar_graph_prepare_reverse(astar_graph *g) {
    if (g->stale) return ASTAR_EINVAL; /* astar_graph_prepare first */
    if (!g->rstale) return ASTAR_OK;
    int32_t n = g->nodes, m = g->start[n];
    /* A unit per node and arc, as the forward pack charges: a stop leaves it stale. */
    if (astar_progress_charge(astar_progress_get(), (uint64_t)n + (uint64_t)m)) return ASTAR_ESTOPPED;
    if (g->rstart_cap < g->start_cap) {
        int32_t *start = astar_mem(&g->alloc, NULL, 0, (size_t)g->start_cap * sizeof *start);
        if (!start) return ASTAR_ENOMEM;
        astar_mem(&g->alloc, g->rstart, (size_t)g->rstart_cap * sizeof *start, 0);
        g->rstart = start;
        g->rstart_cap = g->start_cap;
    }
    if (g->rpacked_cap < g->packed_cap) {
        packed_arc *packed = astar_mem(&g->alloc, NULL, 0, (size_t)g->packed_cap * sizeof *packed);
        if (!packed) return ASTAR_ENOMEM;
        astar_mem(&g->alloc, g->rpacked, (size_t)g->rpacked_cap * sizeof *packed, 0);
        g->rpacked = packed;
        g->rpacked_cap = g->packed_cap;
    }
    int32_t *at = g->rstart;
    memset(at, 0, ((size_t)n + 1) * sizeof *at);
    for (int32_t e = 0; e < m; e++) at[g->packed[e].to + 1]++;
    for (int32_t i = 0; i < n; i++) at[i + 1] += at[i];
    /* at[b] is now b's first place; filling moves it on to b + 1's, which the loop puts back. */
    for (int32_t a = 0; a < n; a++)
        for (int32_t e = g->start[a]; e < g->start[a + 1]; e++) {
            packed_arc *r = &g->rpacked[at[g->packed[e].to]++];
            r->cost = g->packed[e].cost;
            r->to = a;
            r->spare = 0;
        }
    for (int32_t i = n; i > 0; i--) at[i] = at[i - 1];
    at[0] = 0;
    g->rstale = false;
    return ASTAR_OK;
}

/* ---------------------------------------------------------------- claims */

astar_claims *astar_graph_claims_new(const astar_graph *g, const astar_alloc *alloc) {
    /* A unit per node (with the border), before anything is made. */
    if (astar_stopped_before((uint64_t)g->nodes + 6)) return astar_made(NULL, ASTAR_ESTOPPED);
    astar_claims *c = astar_claims_new(1, 1, alloc);
    if (c && astar_graph_claims_fit(c, g) != ASTAR_OK) {
        astar_claims_free(c);
        return astar_made(NULL, ASTAR_ENOMEM);
    }
    return c; /* astar_claims_new noted why when NULL */
}

/*
 * Claims of height 1 hold node x at cell stride + 1 + x (below a border row),
 * so widening shifts every claimed cell by the change of stride.
 */
astar_status astar_graph_claims_fit(astar_claims *c, const astar_graph *g) {
    if (c->height != 1) return ASTAR_EINVAL;
    if (g->nodes <= c->width) return ASTAR_OK;
    int32_t width = g->nodes, stride = width + 2;
    size_t cells = (size_t)stride * 3;
    int32_t *count = astar_mem(&c->alloc, NULL, 0, cells * sizeof *count);
    uint32_t *mark = count ? astar_mem(&c->alloc, NULL, 0, cells * sizeof *mark) : NULL;
    if (!mark) {
        if (count) astar_mem(&c->alloc, count, cells * sizeof *count, 0);
        return ASTAR_ENOMEM;
    }
    memset(count, 0, cells * sizeof *count);
    memset(mark, 0, cells * sizeof *mark); /* stamps are compared with a fresh mark_gen only */
    memcpy(count + stride + 1, c->count + c->stride + 1, (size_t)c->width * sizeof *count);
    int32_t shift = stride - c->stride;
    for (int32_t u = 0; u < c->nunits; u++)
        for (int32_t i = 0; i < c->units[u].n; i++) c->units[u].cells[i] += shift;
    astar_mem(&c->alloc, c->count, c->cells * sizeof *count, 0);
    astar_mem(&c->alloc, c->mark, c->cells * sizeof *mark, 0);
    c->count = count;
    c->mark = mark;
    c->width = width;
    c->stride = stride;
    c->cells = cells;
    return ASTAR_OK;
}
