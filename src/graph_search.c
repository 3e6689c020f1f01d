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
    double *step_in;         /* the cost of the step of its way in (under reopening and with
                                interests, search.c) */
    int32_t *claimed;        /* claims this query counts, where claim_gen == gen; on first need */
    uint16_t *claim_gen;
    int32_t *interest_of;    /* interests: the one a node collects, where interest_gen == gen */
    uint16_t *interest_gen;
    astar_path_buf path;
    astar_alloc alloc;
};

astar_graph_search *astar_graph_search_new(const astar_alloc *alloc) {
    astar_alloc a;
    astar_graph_search *s = astar_new_zeroed(alloc, sizeof *s, &a);
    if (!s) return astar_made(NULL, ASTAR_ENOMEM);
    s->alloc = a;
    return astar_made(s, ASTAR_OK);
}

static void free_node_arrays(astar_graph_search *s) {
    astar_pool *p = &s->pool;
    astar_pool_array_free(p, &s->alloc, s->parent, sizeof *s->parent);
    astar_pool_array_free(p, &s->alloc, s->penalty, sizeof *s->penalty);
    astar_pool_array_free(p, &s->alloc, s->custom_h, sizeof *s->custom_h);
    astar_pool_array_free(p, &s->alloc, s->step_in, sizeof *s->step_in);
    astar_pool_array_free(p, &s->alloc, s->claimed, sizeof *s->claimed);
    astar_pool_array_free(p, &s->alloc, s->claim_gen, sizeof *s->claim_gen);
    astar_pool_array_free(p, &s->alloc, s->interest_of, sizeof *s->interest_of);
    astar_pool_array_free(p, &s->alloc, s->interest_gen, sizeof *s->interest_gen);
    s->parent = NULL;
    s->penalty = NULL;
    s->custom_h = NULL;
    s->step_in = NULL;
    s->claimed = NULL;
    s->claim_gen = NULL;
    s->interest_of = NULL;
    s->interest_gen = NULL;
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
 * Room for n node records (a graph's nodes; with interests two copies and a sink). Nothing in the records outlives a query, so a
 * workspace that is too small is emptied and made anew: every stamp stale.
 * The optional arrays come back when a query needs them.
 */
static bool fit_workspace(astar_graph_search *s, int32_t n) {
    if (n > ASTAR_GRAPH_MAX_NODES) return false;
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
    /* Interests (astar_query's, search.h): node id + twin is node id in the second copy, the
     * one after collecting, whose g counts twin_shift (the largest value) beyond the path's
     * score, so no step is negative; arriving at the goal leads on to the sink, at the
     * score + twin_shift from either copy. twin = 0: no interests. */
    int32_t twin, sink;
    double twin_shift;
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

/*
 * Keeps the way from the start to end, walked back along the parents (the start's is -1), as
 * the graph's node ids; with interests (twin > 0) *collected gets the index of the interest
 * collected where the way enters the second copy, or stays -1.
 */
static bool store_path(astar_graph_search *s, int32_t end, int32_t twin, int32_t *collected) {
    const int32_t *parent = s->parent;
    int32_t len = 1;
    for (int32_t id = end; parent[id] >= 0; id = parent[id]) len++;
    if (!astar_path_reserve(&s->path, &s->alloc, len)) return false;
    int32_t id = end;
    for (int32_t i = len - 1; i >= 0; i--) {
        bool second = twin && id >= twin;
        s->path.ids[i] = second ? id - twin : id;
        if (second && parent[id] < twin) *collected = s->interest_of[id - twin];
        if (i > 0) id = parent[id];
    }
    return true;
}

/* A value as the search counts it (cost.h). */
static inline double interest_value(const graph_ctx *c, int32_t i) {
    return astar_interest_value(c->q->interest_values[i]);
}

/* The cost of the way to node end as its chain of parents adds up: its steps in (step_in, kept
 * under reopening and with interests; see chain_cost in search.c). */
static double chain_cost(const astar_graph_search *s, int32_t end) {
    double sum = 0.0;
    for (int32_t id = end; s->parent[id] >= 0; id = s->parent[id]) sum += s->step_in[id];
    return sum;
}

/* The end of a search with interests: the way to the node the sink was reached from (its
 * parent), its cost (its steps summed), its score (that cost less the value collected) and
 * what it collected. */
static astar_status finish_at_sink(graph_ctx *c, astar_result *res, uint64_t expansions) {
    astar_graph_search *s = c->s;
    int32_t collected = -1, end = s->parent[c->sink];
    if (!store_path(s, end, c->twin, &collected)) return astar_done(res, expansions, ASTAR_ENOMEM);
    res->cost = chain_cost(s, end);
    res->score = collected >= 0 ? res->cost - interest_value(c, collected) : res->cost;
    res->interest = collected;
    res->length = s->path.len;
    return astar_done(res, expansions, ASTAR_OK);
}

/* What the loop keeps in locals for relax(): through c the compiler would reload them after
 * every store to a node record. */
typedef struct loop_consts {
    double max_cost, weight, h_scale, gx, gy, gz;
    astar_node *nodes;
    int32_t *parent;
    uint16_t gen;
} loop_consts;

/* What relax() asks of the loop besides going on. */
enum { RELAX_DONE, RELAX_ENOMEM, RELAX_EABORT };

/*
 * Offers node id (of graph node b, in either copy) the way in from node a_id at g = ng, the
 * step costing `step` (kept in step_in by the general loop): onto the open list, or a decrease
 * of its key, when that improves it. `shift` is what max_cost takes off g: g - shift is the
 * least score a path through the node can still end with (twin_shift in both copies, as in
 * search.c's offer).
 */
static ALWAYS_INLINE int relax(graph_ctx *c, int32_t id, int32_t b, int32_t a_id, double ng,
                               double step, double shift, const loop_consts k, bool *pruned,
                               const bool general) {
    astar_graph_search *s = c->s;
    astar_pool *pool = &s->pool;
    astar_node *n = general ? touch(c, id) : astar_node_touch(k.nodes, k.gen, id);
    if (!(ng < n->g)) return RELAX_DONE;
    if (ng - shift > k.max_cost) {
        *pruned = true;
        return RELAX_DONE;
    }
    /* A closed node can improve only under a custom (maybe inconsistent) heuristic,
     * and only by more than rounding (core.h). */
    bool open_now = n->heap >= 0;
    if (n->heap == ASTAR_CLOSED && !(c->custom && astar_reopens(ng, n->g))) return RELAX_DONE;
    double h;
    if (general) {
        h = id == c->sink && c->sink ? 0.0 : heuristic(c, b);
        if (c->aborted) return RELAX_EABORT;
    } else if (k.h_scale > 0) {
        const double *pos = c->g->pos;
        double dx = pos[3 * b] - k.gx, dy = pos[3 * b + 1] - k.gy, dz = pos[3 * b + 2] - k.gz;
        h = astar_cost_down(k.h_scale * sqrt(astar_rounded(dx * dx) + astar_rounded(dy * dy) +
                                             astar_rounded(dz * dz)));
    } else {
        h = 0.0;
    }
    n->g = ng;
    k.parent[id] = a_id;
    if (general && (c->custom || c->twin)) s->step_in[id] = step;
    double f = ng + astar_rounded(k.weight * h);
    if (open_now) astar_pool_decrease(pool, n, f, h);
    else if (!astar_pool_push(pool, &s->alloc, id, f, h)) return RELAX_ENOMEM;
    return RELAX_DONE;
}

/*
 * The loop. `general` is a constant at both call sites: the plain loop reads
 * arc costs, blocked flags and the built-in heuristic only; the general one
 * adds penalties, callbacks, a custom heuristic and interests.
 */
static ALWAYS_INLINE astar_status run(graph_ctx *c, int32_t start, bool goal_open,
                                      astar_result *res, astar_meter *meter, const bool general) {
    astar_graph_search *s = c->s;
    const astar_graph_query *q = c->q;
    const astar_graph *g = c->g;
    const int32_t *first = g->start;
    const packed_arc *arc = g->packed;
    const uint8_t *blocked = g->blocked;
    const double *pos = g->pos;
    astar_pool *pool = &s->pool;
    astar_node *nodes = pool->nodes;
    const int32_t goal = c->goal, twin = general ? c->twin : 0;
    const bool partial = q->partial != 0;
    const loop_consts k = {q->max_cost, q->weight, c->h_scale, pos[3 * goal], pos[3 * goal + 1],
                           pos[3 * goal + 2], nodes, s->parent, pool->gen};
    bool pruned = false;
    int32_t best = start;
    double best_h = INFINITY, best_g = 0.0;
    astar_status outcome = ASTAR_UNREACHABLE;
    uint64_t expansions = 0;
    /* The progress handler, as the grid's loop meets it (search.c): after the fact in the plain
     * loop, ahead in the general one, whose callbacks may run other queries or longjmp. */
    uint64_t stop = general ? q->max_expansions : astar_meter_stop(meter, q->max_expansions);

    while (pool->heap.len > 0) {
        if (expansions >= stop) {
            if (expansions >= q->max_expansions) {
                outcome = ASTAR_LIMIT;
                break;
            }
            if (astar_meter_check(meter, expansions)) return astar_done(res, expansions, ASTAR_ESTOPPED);
            stop = astar_meter_stop(meter, q->max_expansions);
        }
        if (general && astar_meter_ahead(meter, expansions)) return astar_done(res, expansions, ASTAR_ESTOPPED);
        int32_t a_id = astar_heap_pop(&pool->heap, nodes).cell;
        expansions++;
        double ga = nodes[a_id].g;
        if (twin && a_id == c->sink) return finish_at_sink(c, res, expansions);
        bool second = twin && a_id >= twin;
        int32_t a = second ? a_id - twin : a_id;
        double shift = second ? c->twin_shift : 0.0;
        if (a == goal && goal_open) { /* a blocked goal is only expanded as the start */
            if (!twin) {
                int32_t collected = -1;
                if (!store_path(s, a, 0, &collected)) return astar_done(res, expansions, ASTAR_ENOMEM);
                res->cost = general && c->custom ? chain_cost(s, a) : ga;
                res->length = s->path.len;
                return astar_done(res, expansions, ASTAR_OK);
            }
            /* On to the sink at score + twin_shift; the path may still pass the goal on its
             * way to an interest, so the goal is expanded too. */
            int r = relax(c, c->sink, goal, a_id, ga - shift + c->twin_shift, 0.0, c->twin_shift, k, &pruned, true);
            if (r == RELAX_ENOMEM) return astar_done(res, expansions, ASTAR_ENOMEM);
        }
        if (partial) {
            double h = c->custom ? s->custom_h[a] : astar_graph_distance(pos, a, goal);
            if (h < best_h || (h == best_h && ga < best_g)) {
                best = a;
                best_h = h;
                best_g = ga;
            }
        }
        for (int32_t e = first[a], end = first[a + 1]; e < end; e++) {
            int32_t b = arc[e].to;
            if (blocked[b]) continue;
            /* The step's cost rounded up once, as on grids (core.h). */
            double ng, step = 0.0; /* step: for step_in, which only the general loop keeps */
            if (general) {
                double extra = step_extra(c, a, b);
                if (c->aborted) return astar_done(res, expansions, ASTAR_EABORT);
                if (extra == INFINITY) continue;
                step = astar_cost_up(arc[e].cost + extra);
                ng = ga + step;
                if (twin) touch(c, b); /* b's memos stay valid for its second copy too */
            } else {
                ng = ga + astar_cost_up(arc[e].cost);
            }
            /* max_cost bounds the score: from the first copy an interest worth up to
             * twin_shift may still be collected, so both copies are cut at g - twin_shift. */
            int r = relax(c, second ? b + twin : b, b, a_id, ng, step, c->twin_shift, k, &pruned, general);
            /* Entering an interest from the first copy: the second copy too, collecting it. */
            if (r == RELAX_DONE && twin && !second && s->interest_gen[b] == pool->gen) {
                double v = interest_value(c, s->interest_of[b]);
                r = relax(c, b + twin, b, a_id, ng + c->twin_shift - v, step, c->twin_shift, k, &pruned, true);
            }
            if (r == RELAX_EABORT) return astar_done(res, expansions, ASTAR_EABORT);
            if (r == RELAX_ENOMEM) return astar_done(res, expansions, ASTAR_ENOMEM);
        }
    }
    if (outcome == ASTAR_UNREACHABLE && pruned) outcome = ASTAR_LIMIT;
    if (partial) {
        int32_t collected = -1;
        if (!store_path(s, best, 0, &collected)) return astar_done(res, expansions, ASTAR_ENOMEM);
        res->cost = general && c->custom ? chain_cost(s, best) : nodes[best].g;
        res->length = s->path.len;
        res->reason = outcome;
        return astar_done(res, expansions, ASTAR_PARTIAL);
    }
    return astar_done(res, expansions, outcome);
}

static astar_status run_plain(graph_ctx *c, int32_t start, bool goal_open, astar_result *res,
                              astar_meter *meter) {
    return run(c, start, goal_open, res, meter, false);
}

static astar_status run_general(graph_ctx *c, int32_t start, bool goal_open, astar_result *res,
                                astar_meter *meter) {
    return run(c, start, goal_open, res, meter, true);
}

/* claim_radius: whether another unit standing on node id is within it of the start. */
static bool near_start(const void *ud, int32_t id) {
    const graph_ctx *c = ud;
    return id < c->g->nodes && !(astar_graph_distance(c->g->pos, id, c->q->start) > c->q->claim_radius);
}

/*
 * Marks the interests the query can enter, each node with the largest value offered there,
 * and sets up the second copy (graph_ctx) over twin nodes. False when a callback aborted.
 */
static bool mark_interests(graph_ctx *c, int32_t twin) {
    astar_graph_search *s = c->s;
    const astar_graph_query *q = c->q;
    double top = 0.0;
    for (int32_t i = 0; i < q->ninterests; i++) {
        int32_t id = q->interests[i];
        if (c->g->blocked[id]) continue;
        if (c->penalties && node_penalty(c, id) == INFINITY) {
            if (c->aborted) return false;
            continue;
        }
        double value = interest_value(c, i);
        if (s->interest_gen[id] == s->pool.gen && !(value > interest_value(c, s->interest_of[id])))
            continue;
        s->interest_gen[id] = s->pool.gen;
        s->interest_of[id] = i;
        if (value > top) top = value;
    }
    c->twin = twin;
    c->sink = 2 * twin;
    c->twin_shift = top;
    return true;
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
    if (q->ninterests < 0 || (q->ninterests > 0 && (!q->interests || !q->interest_values || q->partial)))
        return ASTAR_EINVAL;
    if (q->ninterests > 0 && g->nodes > (ASTAR_GRAPH_MAX_NODES - 1) / 2) return ASTAR_EINVAL;
    for (int32_t i = 0; i < q->ninterests; i++)
        if (!astar_graph_valid_id(g, q->interests[i]) ||
            !astar_interest_ok(q->interest_values[i]))
            return ASTAR_EINVAL;
    return ASTAR_OK;
}

astar_status astar_graph_find(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                              astar_result *res) {
    astar_result_init(res);
    s->path.len = 0;
    astar_status st = check_query(g, q);
    if (st != ASTAR_OK) return astar_finish(res, st);
    if ((st = astar_graph_prepare(g)) != ASTAR_OK) return astar_finish(res, st);
    int32_t twin = q->ninterests > 0 ? g->nodes : 0;
    if (!fit_workspace(s, twin ? 2 * twin + 1 : g->nodes)) return astar_finish(res, ASTAR_ENOMEM);

    graph_ctx c = {0};
    c.s = s;
    c.g = g;
    c.q = q;
    c.goal = q->goal;
    c.custom = q->heuristic == ASTAR_H_CUSTOM;
    c.h_scale = q->heuristic == ASTAR_H_ZERO || c.custom ? 0.0 : g->h_scale;
    bool general = q->node_cost || q->edge_cost || c.custom || q->nlayers > 0 || q->claims ||
                   q->noise > 0 || twin;
    c.penalties = q->node_cost || q->nlayers > 0 || q->claims || q->noise > 0;
    if ((c.penalties && !ASTAR_POOL_NEED(s, penalty, false)) ||
        (c.custom && !ASTAR_POOL_NEED(s, custom_h, false)) ||
        ((c.custom || twin) && !ASTAR_POOL_NEED(s, step_in, false)) ||
        (q->claims && (!ASTAR_POOL_NEED(s, claimed, false) || !ASTAR_POOL_NEED(s, claim_gen, true))) ||
        (twin && (!ASTAR_POOL_NEED(s, interest_of, false) || !ASTAR_POOL_NEED(s, interest_gen, true))))
        return astar_finish(res, ASTAR_ENOMEM);
    c.memo_penalty = c.penalties ? s->penalty : NULL;
    c.memo_h = c.custom ? s->custom_h : NULL;

    if (astar_pool_begin(&s->pool, &s->alloc)) { /* wrapped: stale stamps could look current */
        astar_pool_array_zero(&s->pool, &s->alloc, s->claim_gen, sizeof *s->claim_gen);
        astar_pool_array_zero(&s->pool, &s->alloc, s->interest_gen, sizeof *s->interest_gen);
    }
    if (q->claims) {
        /* Claims of height 1 hold node id at cell stride + 1 + id (graph.c). */
        const astar_claims *cl = q->claims;
        c.claims = true;
        c.claim_width = cl->width < g->nodes ? cl->width : g->nodes;
        if (!astar_claim_view_init(&c.claim, cl, cl->stride + 1, c.claim_width, q->unit,
                                   q->claim_radius < 0 ? NULL : near_start, &c, s->claimed, s->claim_gen,
                                   s->pool.gen, q->claim_penalty, astar_progress_get()))
            return astar_finish(res, ASTAR_ESTOPPED);
    }

    bool goal_open = !g->blocked[q->goal] && (!q->node_cost || node_penalty(&c, q->goal) != INFINITY);
    if (c.aborted) return astar_finish(res, ASTAR_EABORT);
    if (!goal_open && !q->partial) return astar_finish(res, ASTAR_UNREACHABLE);

    if (twin && !mark_interests(&c, twin)) return astar_finish(res, ASTAR_EABORT);
    res->scored = twin > 0;

    /* The start in the first copy, and in the second when it collects an interest there. */
    touch(&c, q->start); /* before its heuristic, which it memoises */
    double h0 = heuristic(&c, q->start);
    if (c.aborted) return astar_finish(res, ASTAR_EABORT);
    for (int copy = 0; copy < 2; copy++) {
        double g0 = 0.0;
        if (copy == 1) {
            if (!twin || s->interest_gen[q->start] != s->pool.gen) break;
            g0 = c.twin_shift - interest_value(&c, s->interest_of[q->start]);
        }
        int32_t id = q->start + copy * twin;
        astar_node *sn = touch(&c, id);
        sn->g = g0;
        s->parent[id] = -1;
        if (!astar_pool_open(&s->pool, &s->alloc, sn, id, g0 + q->weight * h0, h0))
            return astar_finish(res, ASTAR_ENOMEM);
    }
    astar_meter meter = astar_meter_begin(astar_progress_get(), 0);
    st = general ? run_general(&c, q->start, goal_open, res, &meter)
                 : run_plain(&c, q->start, goal_open, res, &meter);
    astar_meter_sync(&meter, res->expansions);
    return astar_finish(res, st);
}
