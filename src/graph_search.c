/* A* on general graphs: the same node pool and cost rules as grids, arcs instead of moves. */
#include "cost.h"
#include "graph.h"
#include "nodes.h"

#include <string.h>

struct astar_graph_search {
    astar_pool pool;         /* records for every node of the largest graph searched so far */
    int32_t *parent;         /* per node: the node it was reached from */
    double *penalty;         /* P + node_cost of this query, NAN = not computed; on first need */
    double *custom_h;        /* the custom heuristic's value, NAN = not asked; on first need */
    double *step_in;         /* the cost of the step of its way in (partial + reopen, search.c) */
    int32_t *claimed;        /* claims this query counts, where claim_gen == gen; on first need */
    uint16_t *claim_gen;
    astar_path_buf path;
    astar_alloc alloc;
};

astar_graph_search *astar_graph_search_new(const astar_alloc *alloc) {
    astar_alloc a;
    astar_graph_search *s = astar_new_zeroed(alloc, sizeof *s, &a);
    if (!s) return NULL;
    s->alloc = a;
    return s;
}

static void free_node_arrays(astar_graph_search *s) {
    astar_pool *p = &s->pool;
    astar_pool_array_free(p, &s->alloc, s->parent, sizeof *s->parent);
    astar_pool_array_free(p, &s->alloc, s->penalty, sizeof *s->penalty);
    astar_pool_array_free(p, &s->alloc, s->custom_h, sizeof *s->custom_h);
    astar_pool_array_free(p, &s->alloc, s->step_in, sizeof *s->step_in);
    astar_pool_array_free(p, &s->alloc, s->claimed, sizeof *s->claimed);
    astar_pool_array_free(p, &s->alloc, s->claim_gen, sizeof *s->claim_gen);
    s->parent = NULL;
    s->penalty = NULL;
    s->custom_h = NULL;
    s->step_in = NULL;
    s->claimed = NULL;
    s->claim_gen = NULL;
    astar_pool_free(p, &s->alloc);
}

void astar_graph_search_free(astar_graph_search *s) {
    if (!s) return;
    free_node_arrays(s);
    astar_path_free(&s->path, &s->alloc);
    astar_mem(&s->alloc, s, sizeof *s, 0);
}

const int32_t *astar_graph_search_path(const astar_graph_search *s, int32_t *length) {
    if (length) *length = s->path.len;
    return s->path.ids;
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
 * workspace that is too small is emptied and made anew: every stamp stale.
 * The optional arrays come back when a query needs them.
 */
static bool fit_workspace(astar_graph_search *s, int32_t n) {
    if ((size_t)n <= s->pool.count && s->pool.nodes) return true;
    int64_t cap = (int64_t)s->pool.count * 2;
    if (cap < n) cap = n;
    if (cap < 64) cap = 64;
    if (cap > ASTAR_GRAPH_MAX_NODES) cap = ASTAR_GRAPH_MAX_NODES;
    free_node_arrays(s);
    if (!astar_pool_init(&s->pool, &s->alloc, (size_t)cap)) return false;
    if (!astar_pool_array(&s->pool, &s->alloc, (void **)&s->parent, sizeof *s->parent, false)) {
        astar_pool_free(&s->pool, &s->alloc);
        return false;
    }
    return true;
}

/* What one query needs, resolved before the loop. */
typedef struct graph_ctx {
    astar_graph_search *s;
    const astar_graph *g;
    const astar_graph_query *q;
    int32_t goal;
    double h_scale;          /* 0 with ASTAR_H_ZERO */
    bool custom;             /* ASTAR_H_CUSTOM: memoised, may be inconsistent (reopening) */
    bool penalties;          /* penalty[] in use */
    double *memo_penalty;    /* penalty[] when in use, custom_h[] under a custom heuristic: */
    double *memo_h;          /* what a first touch marks "not computed yet" (else NULL) */
    bool claims;             /* claim: the claims the query sees, on ids below claim_width */
    astar_claim_view claim;
    int32_t claim_width;
    bool aborted;
} graph_ctx;

static inline astar_node *touch(graph_ctx *c, int32_t id) {
    return astar_pool_touch(&c->s->pool, id, c->memo_penalty, c->memo_h);
}

static inline double heuristic(graph_ctx *c, int32_t id) {
    if (!c->custom)
        return c->h_scale > 0 ? astar_cost_down(c->h_scale * astar_graph_distance(c->g->pos, id, c->goal)) : 0.0;
    double *slot = &c->s->custom_h[id];
    if (isnan(*slot)) {
        double h = astar_callback_h(c->q->heuristic_fn(c->q->heuristic_ud, id, c->goal), &c->aborted);
        if (h < 0) return 0.0;
        *slot = astar_cost_down(h);
    }
    return *slot;
}

/* P(b) + node_cost(b), memoised per query; INFINITY when the query blocks the node. */
static double node_penalty(graph_ctx *c, int32_t id) {
    touch(c, id);
    double *slot = &c->s->penalty[id];
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
        p += astar_rounded(l->weight * v);
    }
    if (c->claims && id < c->claim_width)
        p += astar_rounded(c->claim.penalty * astar_claim_view_count(&c->claim, id));
    if (q->noise > 0) p += astar_rounded(q->noise * astar_noise(q->seed, id, 0));
    if (q->node_cost) {
        double extra = 0.0;
        int r = q->node_cost(q->node_cost_ud, id, &extra);
        p += astar_callback_cost(r, extra, &c->aborted);
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
        e = astar_callback_cost(r, e, &c->aborted);
        if (e == INFINITY) return INFINITY;
        extra += e;
    }
    return extra > 0 ? extra : 0.0;
}

/* Keeps the way from start to end, walked back along the parents. */
static bool store_path(astar_graph_search *s, int32_t end, int32_t start) {
    int32_t len = 1;
    for (int32_t id = end; id != start; id = s->parent[id]) len++;
    if (!astar_path_reserve(&s->path, &s->alloc, len)) return false;
    int32_t id = end;
    for (int32_t i = len - 1; i >= 0; i--) {
        s->path.ids[i] = id;
        if (i > 0) id = s->parent[id];
    }
    return true;
}

/* The cost of the way store_path stored, summed over its steps (see search.c). */
static double stored_path_cost(const astar_graph_search *s) {
    double sum = 0.0;
    for (int32_t i = 1; i < s->path.len; i++) sum += s->step_in[s->path.ids[i]];
    return sum;
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
    astar_pool *pool = &s->pool;
    astar_node *nodes = pool->nodes;
    const uint16_t gen = pool->gen;
    int32_t *parent = s->parent;
    const int32_t goal = c->goal;
    const double gx = pos[3 * goal], gy = pos[3 * goal + 1], gz = pos[3 * goal + 2];
    const double h_scale = c->h_scale, weight = q->weight, max_cost = q->max_cost;
    const bool partial = q->partial != 0;
    double *const step_in = general && c->custom && partial ? s->step_in : NULL;
    bool pruned = false;
    int32_t best = start;
    double best_h = INFINITY, best_g = 0.0;
    astar_status outcome = ASTAR_UNREACHABLE;
    uint64_t expansions = 0;

    while (pool->heap.len > 0) {
        if (expansions >= q->max_expansions) {
            outcome = ASTAR_LIMIT;
            break;
        }
        int32_t a = astar_heap_pop(&pool->heap, nodes).cell;
        expansions++;
        double ga = nodes[a].g;
        if (a == goal && goal_open) { /* a blocked goal is only expanded as the start */
            if (!store_path(s, a, start)) return astar_done(res, expansions, ASTAR_ENOMEM);
            res->cost = ga;
            res->length = s->path.len;
            return astar_done(res, expansions, ASTAR_OK);
        }
        if (partial) {
            double h = c->custom ? s->custom_h[a] : astar_graph_distance(pos, a, goal);
            if (h < best_h || (h == best_h && ga < best_g)) {
                best = a;
                best_h = h;
                best_g = ga;
            }
        }
        for (int32_t k = first[a], end = first[a + 1]; k < end; k++) {
            int32_t b = arc[k].to;
            if (blocked[b]) continue;
            /* The step's cost rounded up once, as on grids (core.h). */
            double ng;
            astar_node *n;
            if (general) {
                double extra = step_extra(c, a, b);
                if (c->aborted) return astar_done(res, expansions, ASTAR_EABORT);
                if (extra == INFINITY) continue;
                ng = ga + astar_cost_up(arc[k].cost + extra);
                n = touch(c, b);
            } else {
                ng = ga + astar_cost_up(arc[k].cost);
                n = astar_node_touch(nodes, gen, b);
            }
            if (!(ng < n->g)) continue;
            if (ng > max_cost) {
                pruned = true;
                continue;
            }
            /* A closed node can improve only under a custom (maybe inconsistent) heuristic,
             * and only by more than rounding (see search.c). */
            bool open_now = n->heap >= 0;
            if (n->heap == ASTAR_CLOSED && !(c->custom && ng < n->g - 1e-10 * n->g)) continue;
            double h;
            if (general) {
                h = heuristic(c, b);
                if (c->aborted) return astar_done(res, expansions, ASTAR_EABORT);
            } else if (h_scale > 0) {
                double dx = pos[3 * b] - gx, dy = pos[3 * b + 1] - gy, dz = pos[3 * b + 2] - gz;
                double d = sqrt(astar_rounded(dx * dx) + astar_rounded(dy * dy) + astar_rounded(dz * dz));
                h = astar_cost_down(h_scale * d);
            } else {
                h = 0.0;
            }
            n->g = ng;
            parent[b] = a;
            if (general && step_in) step_in[b] = ng - ga;
            if (open_now) astar_pool_decrease(pool, n, ng + astar_rounded(weight * h), h);
            else if (!astar_pool_push(pool, &s->alloc, b, ng + astar_rounded(weight * h), h))
                return astar_done(res, expansions, ASTAR_ENOMEM);
        }
    }
    if (outcome == ASTAR_UNREACHABLE && pruned) outcome = ASTAR_LIMIT;
    if (partial) {
        if (!store_path(s, best, start)) return astar_done(res, expansions, ASTAR_ENOMEM);
        res->cost = step_in ? stored_path_cost(s) : nodes[best].g;
        res->length = s->path.len;
        res->reason = outcome;
        return astar_done(res, expansions, ASTAR_PARTIAL);
    }
    return astar_done(res, expansions, outcome);
}

static astar_status run_plain(graph_ctx *c, int32_t start, bool goal_open, astar_result *res) {
    return run(c, start, goal_open, res, false);
}

static astar_status run_general(graph_ctx *c, int32_t start, bool goal_open, astar_result *res) {
    return run(c, start, goal_open, res, true);
}

/* claim_radius: whether another unit standing on node id is within it of the start. */
static bool near_start(const void *ud, int32_t id) {
    const graph_ctx *c = ud;
    return id < c->g->nodes && !(astar_graph_distance(c->g->pos, id, c->q->start) > c->q->claim_radius);
}

static astar_status check_query(const astar_graph *g, const astar_graph_query *q) {
    if (!astar_graph_valid_id(g, q->start) || !astar_graph_valid_id(g, q->goal)) return ASTAR_EINVAL;
    if (q->heuristic != ASTAR_H_DEFAULT && q->heuristic != ASTAR_H_EUCLIDEAN &&
        q->heuristic != ASTAR_H_ZERO && q->heuristic != ASTAR_H_CUSTOM)
        return ASTAR_EINVAL;
    if (q->heuristic == ASTAR_H_CUSTOM && !q->heuristic_fn) return ASTAR_EINVAL;
    if (!astar_costs_ok(q->weight, q->max_cost, q->noise, q->claims ? q->claim_penalty : 0.0))
        return ASTAR_EINVAL;
    if (q->nlayers < 0 || q->nlayers > ASTAR_MAX_LAYERS || (q->nlayers > 0 && !q->layers))
        return ASTAR_EINVAL;
    for (int i = 0; i < q->nlayers; i++)
        if ((!q->layers[i].values && !q->layers[i].value_fn) || !astar_value_ok(q->layers[i].weight))
            return ASTAR_EINVAL;
    if (q->claims && (q->claims->height != 1 || isnan(q->claim_radius))) return ASTAR_EINVAL;
    return ASTAR_OK;
}

astar_status astar_graph_find(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                              astar_result *res) {
    astar_result_init(res);
    s->path.len = 0;
    astar_status st = check_query(g, q);
    if (st != ASTAR_OK) return astar_finish(res, st);
    if ((st = astar_graph_prepare(g)) != ASTAR_OK) return astar_finish(res, st);
    if (!fit_workspace(s, g->nodes)) return astar_finish(res, ASTAR_ENOMEM);

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
    if ((c.penalties && !ASTAR_POOL_NEED(s, penalty, false)) ||
        (c.custom && !ASTAR_POOL_NEED(s, custom_h, false)) ||
        (c.custom && q->partial && !ASTAR_POOL_NEED(s, step_in, false)) ||
        (q->claims && (!ASTAR_POOL_NEED(s, claimed, false) || !ASTAR_POOL_NEED(s, claim_gen, true))))
        return astar_finish(res, ASTAR_ENOMEM);
    c.memo_penalty = c.penalties ? s->penalty : NULL;
    c.memo_h = c.custom ? s->custom_h : NULL;

    if (astar_pool_begin(&s->pool) && s->claim_gen) /* wrapped: stale stamps could look current */
        memset(s->claim_gen, 0, s->pool.count * sizeof *s->claim_gen);
    if (q->claims) {
        /* Claims of height 1 hold node id at cell stride + 1 + id (graph.c). */
        const astar_claims *cl = q->claims;
        c.claims = true;
        c.claim_width = cl->width < g->nodes ? cl->width : g->nodes;
        astar_claim_view_init(&c.claim, cl, cl->stride + 1, c.claim_width, q->unit,
                              q->claim_radius < 0 ? NULL : near_start, &c, s->claimed, s->claim_gen,
                              s->pool.gen, q->claim_penalty);
    }

    bool goal_open = !g->blocked[q->goal] && (!q->node_cost || node_penalty(&c, q->goal) != INFINITY);
    if (c.aborted) return astar_finish(res, ASTAR_EABORT);
    if (!goal_open && !q->partial) return astar_finish(res, ASTAR_UNREACHABLE);

    astar_node *sn = touch(&c, q->start);
    sn->g = 0.0;
    s->parent[q->start] = -1;
    double h0 = heuristic(&c, q->start);
    if (c.aborted) return astar_finish(res, ASTAR_EABORT);
    if (!astar_pool_open(&s->pool, &s->alloc, sn, q->start, q->weight * h0, h0))
        return astar_finish(res, ASTAR_ENOMEM);
    st = general ? run_general(&c, q->start, goal_open, res) : run_plain(&c, q->start, goal_open, res);
    return astar_finish(res, st);
}
