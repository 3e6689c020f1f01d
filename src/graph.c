/* General graphs: nodes with positions, arcs with costs, and their A* search. */
#include "heap.h"
#include "internal.h"

#include <string.h>

/*
 * An arc while the graph is built: one slot of its source node's list. Lists
 * are newest first, so a lookup for a duplicate walks only that node's arcs;
 * removed slots are chained into a free list and reused.
 */
typedef struct graph_slot {
    double cost;
    int32_t to;          /* -1 in a free slot */
    int32_t next;        /* the next slot of the list (or of the free list); -1 ends it */
} graph_slot;

/* An arc as the search reads it: a node's arcs lie side by side (CSR). */
typedef struct packed_arc {
    double cost;
    int32_t to;
    int32_t spare;
} packed_arc;

struct astar_graph {
    int32_t nodes, node_cap;
    double *pos;             /* x, y, z of each node */
    uint8_t *blocked;
    int32_t *first;          /* per node: its newest slot, -1 when it has no arc */
    graph_slot *slot;
    int32_t slots, slot_cap; /* slots ever handed out (live or free), slots allocated */
    int32_t free_slot;
    int32_t arcs;
    bool stale;              /* the packed arcs and h_scale predate a change */
    int32_t *start;          /* arcs of node i: packed[start[i] .. start[i + 1] - 1] */
    packed_arc *packed;
    int32_t start_cap, packed_cap;
    double h_scale;
    uint32_t version;
    astar_alloc alloc;
};

/* ------------------------------------------------------------- building */

astar_graph *astar_graph_new(const astar_alloc *alloc) {
    astar_alloc a = astar_pick_alloc(alloc);
    astar_graph *g = astar_mem(&a, NULL, 0, sizeof *g);
    if (!g) return NULL;
    memset(g, 0, sizeof *g);
    g->alloc = a;
    g->free_slot = -1;
    g->stale = true;
    return g;
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
    astar_mem(&a, g, sizeof *g, 0);
}

static void changed(astar_graph *g) {
    g->stale = true;
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

static bool valid_id(const astar_graph *g, int32_t id) { return id >= 0 && id < g->nodes; }

astar_status astar_graph_node(const astar_graph *g, int32_t id, double *x, double *y, double *z) {
    if (!valid_id(g, id)) return ASTAR_EINVAL;
    if (x) *x = g->pos[3 * id];
    if (y) *y = g->pos[3 * id + 1];
    if (z) *z = g->pos[3 * id + 2];
    return ASTAR_OK;
}

static double node_distance(const double *pos, int32_t a, int32_t b) {
    double dx = pos[3 * a] - pos[3 * b], dy = pos[3 * a + 1] - pos[3 * b + 1],
           dz = pos[3 * a + 2] - pos[3 * b + 2];
    return sqrt(dx * dx + dy * dy + dz * dz);
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
    if (cost == ASTAR_GRAPH_LENGTH) cost = node_distance(g->pos, from, to);
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
    if (!valid_id(g, from) || !valid_id(g, to) || from == to || !valid_cost(cost))
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
    if (!valid_id(g, a) || !valid_id(g, b) || a == b || !valid_cost(cost)) return ASTAR_EINVAL;
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
    if (!valid_id(g, from) || !valid_id(g, to)) return ASTAR_EINVAL;
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
    if (!valid_id(g, from) || !valid_id(g, to)) return NAN;
    int32_t k = find_slot(g, from, to);
    return k < 0 ? NAN : g->slot[k].cost;
}

int32_t astar_graph_neighbours(const astar_graph *g, int32_t id, int32_t *to, double *cost,
                               int32_t max) {
    if (!valid_id(g, id)) return -1;
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
    if (!valid_id(g, id)) return ASTAR_EINVAL;
    g->blocked[id] = blocked != 0;
    g->version++;
    return ASTAR_OK;
}

int astar_graph_is_blocked(const astar_graph *g, int32_t id) {
    return valid_id(g, id) ? g->blocked[id] : -1;
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
    for (int32_t a = 0; a < g->nodes; a++) {
        g->start[a] = at;
        int32_t degree = 0;
        for (int32_t k = g->first[a]; k >= 0; k = g->slot[k].next) degree++;
        int32_t i = at + degree; /* newest first in the list, oldest first in the pack */
        for (int32_t k = g->first[a]; k >= 0; k = g->slot[k].next) {
            const graph_slot *s = &g->slot[k];
            packed_arc *p = &g->packed[--i];
            p->cost = s->cost;
            p->to = s->to;
            p->spare = 0;
            double length = node_distance(g->pos, a, s->to);
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

/* ---------------------------------------------------------------- claims */

astar_claims *astar_graph_claims_new(const astar_graph *g, const astar_alloc *alloc) {
    astar_claims *c = astar_claims_new(1, 1, alloc);
    if (c && astar_graph_claims_fit(c, g) != ASTAR_OK) {
        astar_claims_free(c);
        return NULL;
    }
    return c;
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

const double *astar_layer_row(const astar_layer *l, int32_t y) {
    if (y < 0 || y >= l->height) return NULL;
    return l->value + astar_cell(l->stride, 0, y);
}

/* ---------------------------------------------------------------- search */

struct astar_graph_search {
    int32_t cap;             /* nodes every per-node array below has room for */
    astar_node *nodes;
    int32_t *parent;
    double *penalty;         /* P + node_cost of this query, NAN = not computed; on first need */
    double *custom_h;        /* the custom heuristic's value, NAN = not asked; on first need */
    int32_t *claimed;        /* claims this query counts, where claim_gen == gen; on first need */
    uint16_t *claim_gen;
    uint16_t gen;
    astar_heap heap;
    int32_t *path;
    int32_t path_len, path_cap;
    astar_alloc alloc;
};

astar_graph_search *astar_graph_search_new(const astar_alloc *alloc) {
    astar_alloc a = astar_pick_alloc(alloc);
    astar_graph_search *s = astar_mem(&a, NULL, 0, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->alloc = a;
    return s;
}

static void free_node_arrays(astar_graph_search *s) {
    size_t cap = (size_t)s->cap;
    astar_mem(&s->alloc, s->nodes, cap * sizeof *s->nodes, 0);
    astar_mem(&s->alloc, s->parent, cap * sizeof *s->parent, 0);
    astar_mem(&s->alloc, s->penalty, cap * sizeof *s->penalty, 0);
    astar_mem(&s->alloc, s->custom_h, cap * sizeof *s->custom_h, 0);
    astar_mem(&s->alloc, s->claimed, cap * sizeof *s->claimed, 0);
    astar_mem(&s->alloc, s->claim_gen, cap * sizeof *s->claim_gen, 0);
    s->nodes = NULL;
    s->parent = NULL;
    s->penalty = NULL;
    s->custom_h = NULL;
    s->claimed = NULL;
    s->claim_gen = NULL;
    s->cap = 0;
}

void astar_graph_search_free(astar_graph_search *s) {
    if (!s) return;
    free_node_arrays(s);
    astar_mem(&s->alloc, s->heap.items, (size_t)s->heap.cap * sizeof *s->heap.items, 0);
    astar_mem(&s->alloc, s->path, (size_t)s->path_cap * sizeof *s->path, 0);
    astar_mem(&s->alloc, s, sizeof *s, 0);
}

const int32_t *astar_graph_search_path(const astar_graph_search *s, int32_t *length) {
    if (length) *length = s->path_len;
    return s->path;
}

void astar_graph_query_init(astar_graph_query *q) {
    memset(q, 0, sizeof *q);
    q->heuristic = ASTAR_H_DEFAULT;
    q->weight = 1.0;
    q->unit = -1;
    q->claim_penalty = 5.0;
    q->claim_radius = -1.0;
    q->max_cost = INFINITY;
    q->max_expansions = UINT64_MAX;
}

/*
 * Room for a graph of n nodes. Nothing in the records outlives a query, so a
 * workspace that is too small is emptied and made anew, zeroed: every stamp
 * stale. The optional arrays come back when a query needs them.
 */
static bool fit_workspace(astar_graph_search *s, int32_t n) {
    if (n <= s->cap && s->nodes) return true;
    int64_t cap = (int64_t)s->cap * 2;
    if (cap < n) cap = n;
    if (cap < 64) cap = 64;
    if (cap > ASTAR_GRAPH_MAX_NODES) cap = ASTAR_GRAPH_MAX_NODES;
    free_node_arrays(s);
    astar_node *nodes = astar_mem(&s->alloc, NULL, 0, (size_t)cap * sizeof *nodes);
    int32_t *parent = nodes ? astar_mem(&s->alloc, NULL, 0, (size_t)cap * sizeof *parent) : NULL;
    if (!parent) {
        if (nodes) astar_mem(&s->alloc, nodes, (size_t)cap * sizeof *nodes, 0);
        return false;
    }
    memset(nodes, 0, (size_t)cap * sizeof *nodes); /* gen 0 is never current */
    s->nodes = nodes;
    s->parent = parent;
    s->cap = (int32_t)cap;
    s->gen = 0;
    return true;
}

/* A per-node array, made the first time a query needs it and kept for the next ones. */
static bool node_array(astar_graph_search *s, void **p, size_t elem, bool zeroed) {
    if (*p) return true;
    size_t bytes = (size_t)s->cap * elem;
    *p = astar_mem(&s->alloc, NULL, 0, bytes);
    if (*p && zeroed) memset(*p, 0, bytes);
    return *p != NULL;
}

/* Doubles the open list, up to one entry per node (a node is in it at most once). */
static bool grow_heap(astar_graph_search *s) {
    astar_heap *hp = &s->heap;
    int32_t cap = hp->cap ? hp->cap * 2 : 256;
    if (cap > s->cap) cap = s->cap;
    if (cap <= hp->cap) return false; /* cannot happen */
    astar_heap_entry *items = astar_mem(&s->alloc, hp->items, (size_t)hp->cap * sizeof *items,
                                        (size_t)cap * sizeof *items);
    if (!items) return false;
    hp->items = items;
    hp->cap = cap;
    return true;
}

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* What one query needs, resolved before the loop. */
typedef struct graph_ctx {
    astar_graph_search *s;
    const astar_graph *g;
    const astar_graph_query *q;
    int32_t goal;
    double h_scale;          /* 0 with ASTAR_H_ZERO */
    bool custom;             /* ASTAR_H_CUSTOM: memoised, may be inconsistent (reopening) */
    bool penalties;          /* penalty[] in use */
    const int32_t *claim_count; /* the claims' counts indexed by node id */
    int32_t claim_width;     /* nodes the claims cover */
    bool overlay;            /* the query counts differently: claimed[] where claim_gen == gen, */
    bool only_overlay;       /* and elsewhere claim_count[] or, with a radius, nothing */
    bool aborted;
} graph_ctx;

static inline astar_node *touch(graph_ctx *c, int32_t id) {
    astar_graph_search *s = c->s;
    astar_node *n = &s->nodes[id];
    if (n->gen != s->gen) {
        n->gen = s->gen;
        n->g = INFINITY;
        n->heap = ASTAR_NOT_OPEN;
        if (c->penalties) s->penalty[id] = NAN;
        if (c->custom) s->custom_h[id] = NAN;
    }
    return n;
}

static inline double heuristic(graph_ctx *c, int32_t id) {
    if (!c->custom) return c->h_scale > 0 ? c->h_scale * node_distance(c->g->pos, id, c->goal) : 0.0;
    double *slot = &c->s->custom_h[id];
    if (isnan(*slot)) {
        double h = c->q->heuristic_fn(c->q->heuristic_ud, id, c->goal);
        if (!(h >= 0 && h <= ASTAR_MAX_VALUE)) {
            c->aborted = true;
            return 0.0;
        }
        *slot = h;
    }
    return *slot;
}

/* P(b) + node_cost(b), memoised per query; INFINITY when the query blocks the node. */
static double node_penalty(graph_ctx *c, int32_t id) {
    touch(c, id);
    astar_graph_search *s = c->s;
    double *slot = &s->penalty[id];
    if (!isnan(*slot)) return *slot;
    const astar_graph_query *q = c->q;
    double p = 0.0;
    for (int i = 0; i < q->nlayers; i++) {
        const astar_graph_layer *l = &q->layers[i];
        double v = l->values ? l->values[id] : l->value_fn(l->value_ud, id);
        if (!astar_value_ok(v)) {
            c->aborted = true;
            return *slot = INFINITY;
        }
        p += l->weight * v;
    }
    if (c->claim_count && id < c->claim_width) {
        int32_t n = c->claim_count[id];
        if (n != 0 && c->overlay) n = s->claim_gen[id] == s->gen ? s->claimed[id] : c->only_overlay ? 0 : n;
        p += q->claim_penalty * n;
    }
    if (q->noise > 0) p += q->noise * astar_noise(q->seed, id, 0);
    if (q->node_cost) {
        double extra = 0.0;
        int r = q->node_cost(q->node_cost_ud, id, &extra);
        if (r == ASTAR_CB_BLOCK || (r == ASTAR_CB_PASS && extra == INFINITY)) {
            p = INFINITY;
        } else if (r != ASTAR_CB_PASS || !(extra >= 0 && extra <= ASTAR_MAX_VALUE)) {
            c->aborted = true;
            p = INFINITY;
        } else {
            p += extra;
        }
    }
    return *slot = p;
}

/* What the step a -> b adds to the arc's cost; INFINITY when the query blocks it. */
static double step_extra(graph_ctx *c, int32_t a, int32_t b) {
    const astar_graph_query *q = c->q;
    double extra = c->penalties ? node_penalty(c, b) : 0.0;
    if (extra == INFINITY) return INFINITY;
    if (q->edge_cost) {
        double e = 0.0;
        int r = q->edge_cost(q->edge_cost_ud, b, a, &e);
        if (r == ASTAR_CB_BLOCK || (r == ASTAR_CB_PASS && e == INFINITY)) return INFINITY;
        if (r != ASTAR_CB_PASS || !(e >= 0 && e <= ASTAR_MAX_VALUE)) {
            c->aborted = true;
            return INFINITY;
        }
        extra += e;
    }
    return extra > 0 ? extra : 0.0;
}

static ALWAYS_INLINE bool push(astar_graph_search *s, int32_t id, double f, double h) {
    if (s->heap.len == s->heap.cap && !grow_heap(s)) return false;
    int32_t i = s->heap.len++;
    s->heap.items[i] = (astar_heap_entry){astar_heap_key(f, h), id};
    astar_heap_up(&s->heap, i, s->nodes);
    return true;
}

static bool store_path(astar_graph_search *s, int32_t end, int32_t start) {
    int32_t len = 1;
    for (int32_t id = end; id != start; id = s->parent[id]) len++;
    if (len > s->path_cap) {
        int32_t *p = astar_mem(&s->alloc, s->path, (size_t)s->path_cap * sizeof *p,
                               (size_t)len * sizeof *p);
        if (!p) return false;
        s->path = p;
        s->path_cap = len;
    }
    s->path_len = len;
    int32_t id = end;
    for (int32_t i = len - 1; i >= 0; i--) {
        s->path[i] = id;
        if (i > 0) id = s->parent[id];
    }
    return true;
}

static inline astar_status done(astar_result *res, uint64_t expansions, astar_status st) {
    res->expansions = expansions;
    return st;
}

/*
 * The loop. `general` is a constant at both call sites: the plain loop reads
 * arc costs, blocked flags and the built-in heuristic only; the general one
 * adds penalties, callbacks and a custom heuristic.
 */
static ALWAYS_INLINE astar_status run(graph_ctx *c, int32_t start, bool goal_open,
                                      astar_result *res, const bool general) {
    astar_graph_search *s = c->s;
    const astar_graph_query *q = c->q;
    const astar_graph *g = c->g;
    const int32_t *first = g->start;
    const packed_arc *arc = g->packed;
    const uint8_t *blocked = g->blocked;
    const double *pos = g->pos;
    astar_node *nodes = s->nodes;
    int32_t *parent = s->parent;
    const uint16_t gen = s->gen;
    const int32_t goal = c->goal;
    const double gx = pos[3 * goal], gy = pos[3 * goal + 1], gz = pos[3 * goal + 2];
    const double h_scale = c->h_scale, weight = q->weight, max_cost = q->max_cost;
    const bool partial = q->partial != 0;
    bool pruned = false;
    int32_t best = start;
    double best_h = INFINITY, best_g = 0.0;
    astar_status outcome = ASTAR_UNREACHABLE;
    uint64_t expansions = 0;

    while (s->heap.len > 0) {
        if (expansions >= q->max_expansions) {
            outcome = ASTAR_LIMIT;
            break;
        }
        int32_t a = astar_heap_pop(&s->heap, nodes).cell;
        expansions++;
        double ga = nodes[a].g;
        if (a == goal && goal_open) { /* a blocked goal is only expanded as the start */
            if (!store_path(s, a, start)) return done(res, expansions, ASTAR_ENOMEM);
            res->cost = ga;
            res->length = s->path_len;
            return done(res, expansions, ASTAR_OK);
        }
        if (partial) {
            double h = c->custom ? s->custom_h[a] : node_distance(pos, a, goal);
            if (h < best_h || (h == best_h && ga < best_g)) {
                best = a;
                best_h = h;
                best_g = ga;
            }
        }
        for (int32_t k = first[a], end = first[a + 1]; k < end; k++) {
            int32_t b = arc[k].to;
            if (blocked[b]) continue;
            double ng = ga + arc[k].cost;
            astar_node *n;
            if (general) {
                double extra = step_extra(c, a, b);
                if (c->aborted) return done(res, expansions, ASTAR_EABORT);
                if (extra == INFINITY) continue;
                ng += extra;
                n = touch(c, b);
            } else {
                n = &nodes[b];
                if (n->gen != gen) {
                    n->gen = gen;
                    n->g = INFINITY;
                    n->heap = ASTAR_NOT_OPEN;
                }
            }
            if (!(ng < n->g)) continue;
            if (ng > max_cost) {
                pruned = true;
                continue;
            }
            double h;
            if (general) {
                h = heuristic(c, b);
                if (c->aborted) return done(res, expansions, ASTAR_EABORT);
            } else if (h_scale > 0) {
                double dx = pos[3 * b] - gx, dy = pos[3 * b + 1] - gy, dz = pos[3 * b + 2] - gz;
                h = h_scale * sqrt(dx * dx + dy * dy + dz * dz);
            } else {
                h = 0.0;
            }
            if (n->heap != ASTAR_NOT_OPEN) { /* decrease-key */
                n->g = ng;
                parent[b] = a;
                s->heap.items[n->heap].key = astar_heap_key(ng + weight * h, h);
                astar_heap_up(&s->heap, n->heap, nodes);
                continue;
            }
            /* A closed node can improve only under a custom (maybe inconsistent) heuristic,
             * and only by more than rounding (see search.c). */
            if (n->g != INFINITY && !(c->custom && ng < n->g - 1e-10 * n->g)) continue;
            n->g = ng;
            parent[b] = a;
            if (!push(s, b, ng + weight * h, h)) return done(res, expansions, ASTAR_ENOMEM);
        }
    }
    if (outcome == ASTAR_UNREACHABLE && pruned) outcome = ASTAR_LIMIT;
    if (partial) {
        if (!store_path(s, best, start)) return done(res, expansions, ASTAR_ENOMEM);
        res->cost = nodes[best].g;
        res->length = s->path_len;
        res->reason = outcome;
        return done(res, expansions, ASTAR_PARTIAL);
    }
    return done(res, expansions, outcome);
}

static astar_status run_plain(graph_ctx *c, int32_t start, bool goal_open, astar_result *res) {
    return run(c, start, goal_open, res, false);
}

static astar_status run_general(graph_ctx *c, int32_t start, bool goal_open, astar_result *res) {
    return run(c, start, goal_open, res, true);
}

/* The claims this query sees where they differ from the claims' own counts. */
static void prepare_claims(graph_ctx *c) {
    const astar_graph_query *q = c->q;
    const astar_claims *cl = q->claims;
    astar_graph_search *s = c->s;
    int32_t base = cl->stride + 1, nodes = c->g->nodes; /* the cell of node 0 */
    c->claim_count = cl->count + base;
    c->claim_width = cl->width < nodes ? cl->width : nodes;
    if (q->claim_radius < 0) {
        if (q->unit < 0 || q->unit >= cl->nunits) return;
        c->overlay = true;
        const astar_unit_claim *u = &cl->units[q->unit];
        for (int32_t i = u->pos < 0 ? u->n : u->pos; i < u->n; i++) {
            int32_t id = u->cells[i] - base;
            if (!u->last[i] || id >= c->claim_width) continue;
            s->claimed[id] = c->claim_count[id] - 1;
            s->claim_gen[id] = s->gen;
        }
        return;
    }
    c->overlay = true;
    c->only_overlay = true;
    for (int32_t k = 0; k < cl->nunits; k++) {
        const astar_unit_claim *u = &cl->units[k];
        if (k == q->unit || u->pos < 0) continue;
        int32_t here = u->cells[u->pos] - base;
        if (here >= nodes || node_distance(c->g->pos, here, q->start) > q->claim_radius) continue;
        for (int32_t i = u->pos; i < u->n; i++) {
            int32_t id = u->cells[i] - base;
            if (!u->last[i] || id >= c->claim_width) continue;
            s->claimed[id] = (s->claim_gen[id] == s->gen ? s->claimed[id] : 0) + 1;
            s->claim_gen[id] = s->gen;
        }
    }
}

static astar_status check_query(const astar_graph *g, const astar_graph_query *q) {
    if (!valid_id(g, q->start) || !valid_id(g, q->goal)) return ASTAR_EINVAL;
    if (q->heuristic != ASTAR_H_DEFAULT && q->heuristic != ASTAR_H_EUCLIDEAN &&
        q->heuristic != ASTAR_H_ZERO && q->heuristic != ASTAR_H_CUSTOM)
        return ASTAR_EINVAL;
    if (q->heuristic == ASTAR_H_CUSTOM && !q->heuristic_fn) return ASTAR_EINVAL;
    if (!(q->weight >= 1.0 && q->weight <= ASTAR_MAX_VALUE)) return ASTAR_EINVAL;
    if (q->nlayers < 0 || q->nlayers > ASTAR_MAX_LAYERS || (q->nlayers > 0 && !q->layers))
        return ASTAR_EINVAL;
    for (int i = 0; i < q->nlayers; i++)
        if ((!q->layers[i].values && !q->layers[i].value_fn) || !astar_value_ok(q->layers[i].weight))
            return ASTAR_EINVAL;
    if (q->claims) {
        if (q->claims->height != 1) return ASTAR_EINVAL;
        if (!(q->claim_penalty >= 0 && q->claim_penalty <= ASTAR_MAX_VALUE)) return ASTAR_EINVAL;
        if (isnan(q->claim_radius)) return ASTAR_EINVAL;
    }
    if (isnan(q->max_cost) || q->max_cost < 0) return ASTAR_EINVAL;
    if (!(q->noise >= 0 && q->noise <= ASTAR_MAX_VALUE)) return ASTAR_EINVAL;
    return ASTAR_OK;
}

static astar_status finish(astar_result *res, astar_status st) {
    res->status = st;
    return st;
}

astar_status astar_graph_find(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                              astar_result *res) {
    memset(res, 0, sizeof *res);
    res->target = -1;
    s->path_len = 0;
    astar_status st = check_query(g, q);
    if (st != ASTAR_OK) return finish(res, st);
    if ((st = astar_graph_prepare(g)) != ASTAR_OK) return finish(res, st);
    if (!fit_workspace(s, g->nodes)) return finish(res, ASTAR_ENOMEM);

    graph_ctx c = {0};
    c.s = s;
    c.g = g;
    c.q = q;
    c.goal = q->goal;
    c.custom = q->heuristic == ASTAR_H_CUSTOM;
    c.h_scale = q->heuristic == ASTAR_H_ZERO || c.custom ? 0.0 : g->h_scale;
    bool general = q->node_cost || q->edge_cost || c.custom || q->nlayers > 0 || q->claims ||
                   q->noise > 0;
    c.penalties = q->node_cost || q->nlayers > 0 || q->claims || q->noise > 0;
    if (c.penalties && !node_array(s, (void **)&s->penalty, sizeof *s->penalty, false))
        return finish(res, ASTAR_ENOMEM);
    if (c.custom && !node_array(s, (void **)&s->custom_h, sizeof *s->custom_h, false))
        return finish(res, ASTAR_ENOMEM);
    if (q->claims && (!node_array(s, (void **)&s->claimed, sizeof *s->claimed, false) ||
                      !node_array(s, (void **)&s->claim_gen, sizeof *s->claim_gen, true)))
        return finish(res, ASTAR_ENOMEM);

    /* 16-bit stamps as in search.c: cleared once in 65535 queries. */
    if (++s->gen == 0) {
        for (int32_t i = 0; i < s->cap; i++) s->nodes[i].gen = 0;
        if (s->claim_gen) memset(s->claim_gen, 0, (size_t)s->cap * sizeof *s->claim_gen);
        s->gen = 1;
    }
    s->heap.len = 0;
    if (q->claims) prepare_claims(&c);

    bool goal_open = !g->blocked[q->goal] && (!q->node_cost || node_penalty(&c, q->goal) != INFINITY);
    if (c.aborted) return finish(res, ASTAR_EABORT);
    if (!goal_open && !q->partial) return finish(res, ASTAR_UNREACHABLE);

    astar_node *sn = touch(&c, q->start);
    sn->g = 0.0;
    s->parent[q->start] = -1;
    double h0 = heuristic(&c, q->start);
    if (c.aborted) return finish(res, ASTAR_EABORT);
    if (!push(s, q->start, q->weight * h0, h0)) return finish(res, ASTAR_ENOMEM);
    st = general ? run_general(&c, q->start, goal_open, res) : run_plain(&c, q->start, goal_open, res);
    return finish(res, st);
}
