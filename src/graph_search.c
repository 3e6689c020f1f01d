/* A* on general graphs: the same node pool and cost rules as grids, arcs instead of moves. */
#include "cost.h"
#include "graph.h"
#include "loop.h"

#include <string.h>

struct astar_graph_search {
    astar_pool pool;         /* records for every node of the largest graph searched so far */
    int32_t *parent;         /* per node: the node it was reached from */
    double *penalty;         /* P + node_cost of this query, NAN = not computed; on first need */
    double *custom_h;        /* the custom heuristic's value, NAN = not asked; on first need */
    double *step_in;         /* the cost of the step of its way in (under reopening and with
                                interests, loop.h) */
    int32_t *claimed;        /* claims this query counts, where claim_gen == gen; on first need */
    uint16_t *claim_gen;
    int32_t *interest_of;    /* interests: the one a node collects, where interest_gen == gen */
    uint16_t *interest_gen;
    int32_t *target_of;      /* targets: the one a node is, where target_gen == gen */
    uint16_t *target_gen;
    int32_t *settled;        /* a field's nodes in the order it settled them; on first need */
    int32_t nsettled;
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
    astar_pool_array_free(p, &s->alloc, s->settled, sizeof *s->settled);
    astar_pool_array_free(p, &s->alloc, s->target_of, sizeof *s->target_of);
    astar_pool_array_free(p, &s->alloc, s->target_gen, sizeof *s->target_gen);
    s->target_of = NULL;
    s->target_gen = NULL;
    s->parent = NULL;
    s->settled = NULL;
    s->nsettled = 0;
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

/* The nearest of many targets (up to ASTAR_REPAIR_LOCAL, as grids): the least over them of the
 * scaled distance plus the target's cost, each rounded down, so a lower bound of every way to
 * the sink; consistent, as each term is. O(targets) per node the search reaches. */
static double target_heuristic(const graph_ctx *c, int32_t id) {
    const astar_graph_query *q = c->q;
    double best = INFINITY;
    for (int32_t i = 0; i < q->ntargets; i++) {
        double d = astar_cost_down(c->h_scale * astar_graph_distance(c->g->pos, id, q->targets[i]));
        if (q->target_costs) d += astar_cost_down(q->target_costs[i]);
        if (d < best) best = d;
    }
    return best;
}

static inline double heuristic(graph_ctx *c, int32_t id) {
    if (!c->custom) {
        if (c->h_scale > 0 && c->q->ntargets > 0) return target_heuristic(c, id);
        return c->h_scale > 0 ? astar_cost_down(c->h_scale * astar_graph_distance(c->g->pos, id, c->goal)) : 0.0;
    }
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

/* ---- The graph as the loop's space (loop.h): arcs, their costs, a parent per node. */

/* What the loop's space keeps in locals: through c the compiler would reload them after every
 * store to a node record. */
typedef struct graph_frame {
    graph_ctx *c;
    const int32_t *first;
    const packed_arc *arc;
    const uint8_t *blocked;
    const double *pos;
    int32_t *parent;
    double h_scale, gx, gy, gz;
    int32_t goal, twin;
    bool goal_open;
    uint16_t gen;                /* targets (find_nearest): the query's stamp */
} graph_frame;

static ALWAYS_INLINE int32_t graph_prev(const void *ctx, const astar_node *nodes, int32_t id) {
    (void)nodes;
    return ((const graph_frame *)ctx)->parent[id];
}

static ALWAYS_INLINE bool graph_crossed(const void *ctx, const astar_node *nodes, int32_t id) {
    const graph_frame *f = ctx;
    (void)nodes;
    return f->parent[id] < f->twin;
}

static ALWAYS_INLINE int32_t graph_id_of(const void *ctx, int32_t node) {
    (void)ctx;
    return node;
}

static ALWAYS_INLINE bool graph_arrived(const void *ctx, int32_t node) {
    const graph_frame *f = ctx;
    return node == f->goal && f->goal_open; /* a blocked goal is only expanded as the start */
}

/* On to the sink at the score + twin_shift, from either copy. */
static ALWAYS_INLINE double graph_sink_g(const void *ctx, int32_t node, bool upper, double ga) {
    const graph_ctx *c = ((const graph_frame *)ctx)->c;
    (void)node;
    return ga - (upper ? c->twin_shift : 0.0) + c->twin_shift;
}

static ALWAYS_INLINE double graph_rank(void *ctx, int32_t id, int32_t node) {
    const graph_frame *f = ctx;
    (void)id;
    return f->c->custom ? f->c->s->custom_h[node] : astar_graph_distance(f->pos, node, f->goal);
}

/*
 * Offers node id (of graph node b, in either copy) the way in from node a_id at g = ng, the
 * step costing `step` (kept in step_in by the general loop). max_cost bounds the score: from
 * the first copy an interest worth up to twin_shift may still be collected, so both copies are
 * cut at g - twin_shift.
 */
static ALWAYS_INLINE int relax(graph_frame *f, astar_loop *L, astar_node *nodes, uint16_t gen, int32_t id,
                               int32_t b, int32_t a_id, double ng, double step, bool *pruned, const bool general) {
    graph_ctx *c = f->c;
    astar_pool *pool = L->pool;
    astar_node *n = astar_loop_improves(pool, nodes, gen, id, ng, general ? ng - L->twin_shift : ng,
                                        L->max_cost, pruned, c->custom, c->memo_penalty, c->memo_h, general);
    if (!n) return ASTAR_OFFER_DONE;
    double h;
    if (general) {
        h = heuristic(c, b);
        if (c->aborted) return ASTAR_OFFER_EABORT;
    } else if (f->h_scale > 0) {
        const double *pos = f->pos;
        double dx = pos[3 * b] - f->gx, dy = pos[3 * b + 1] - f->gy, dz = pos[3 * b + 2] - f->gz;
        h = astar_cost_down(f->h_scale * sqrt(astar_rounded(dx * dx) + astar_rounded(dy * dy) +
                                              astar_rounded(dz * dz)));
    } else {
        h = 0.0;
    }
    f->parent[id] = a_id;
    if (general && L->step_in) L->step_in[id] = step;
    return astar_loop_take(pool, L->alloc, n, id, ng, h, L->weight) ? ASTAR_OFFER_DONE : ASTAR_OFFER_ENOMEM;
}

/* The arcs out of node a (a_id in its copy). */
static ALWAYS_INLINE int graph_expand(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned,
                                      int32_t a_id, int32_t a, bool second, double ga, int64_t ga_quanta,
                                      const bool general) {
    graph_frame *f = ctx;
    graph_ctx *c = f->c;
    const int32_t twin = general ? f->twin : 0;
    const packed_arc *arc = f->arc;
    (void)ga_quanta;
    for (int32_t e = f->first[a], end = f->first[a + 1]; e < end; e++) {
        int32_t b = arc[e].to;
        if (f->blocked[b]) continue;
        /* The step's cost as on grids (astar_step_of): the arc's, its length at cost 1. */
        double ng, step = 0.0; /* step: for step_in, which only the general loop keeps */
        if (general) {
            double extra = step_extra(c, a, b);
            if (c->aborted) return ASTAR_OFFER_EABORT;
            if (extra == INFINITY) continue;
            step = astar_step_of(arc[e].cost, 1.0, true, extra, false, 0.0);
            ng = ga + step;
            if (twin) touch(c, b); /* b's memos stay valid for its second copy too */
        } else {
            ng = ga + astar_step_of(arc[e].cost, 1.0, false, 0.0, false, 0.0);
        }
        int r = relax(f, L, nodes, gen, second ? b + twin : b, b, a_id, ng, step, pruned, general);
        /* Entering an interest from the first copy: the second copy too, collecting it. */
        if (r == ASTAR_OFFER_DONE && twin && !second && c->s->interest_gen[b] == gen) {
            double v = astar_loop_value(L, c->s->interest_of[b]);
            r = relax(f, L, nodes, gen, b + twin, b, a_id, ng + c->twin_shift - v, step, pruned, true);
        }
        if (r != ASTAR_OFFER_DONE) return r;
    }
    return ASTAR_OFFER_DONE;
}

/* The two instances of an expansion the loop calls: its flag `general` folded either way. */
#define PLAIN_AND_GENERAL(expand)                                                                   \
    static int expand##_plain(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned, \
                              int32_t id, int32_t node, bool upper, double ga, int64_t ga_quanta) {   \
        return expand(ctx, L, nodes, gen, pruned, id, node, upper, ga, ga_quanta, false);            \
    }                                                                                                \
    static int expand##_general(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen,            \
                                bool *pruned, int32_t id, int32_t node, bool upper, double ga,        \
                                int64_t ga_quanta) {                                                  \
        return expand(ctx, L, nodes, gen, pruned, id, node, upper, ga, ga_quanta, true);             \
    }

PLAIN_AND_GENERAL(graph_expand)

/* A field's expansion: the node is settled (no reopening, one copy: each is expanded once), so
 * it goes on the list the field answers with, then on as a search. */
static ALWAYS_INLINE int field_expand(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned,
                                      int32_t id, int32_t node, bool upper, double ga, int64_t ga_quanta,
                                      const bool general) {
    astar_graph_search *s = ((graph_frame *)ctx)->c->s;
    s->settled[s->nsettled++] = node;
    return graph_expand(ctx, L, nodes, gen, pruned, id, node, upper, ga, ga_quanta, general);
}

PLAIN_AND_GENERAL(field_expand)

/*
 * A field toward its sources settles node b (its cost to the nearest source final), then offers
 * each p with an arc p -> b (the frame's arcs are the reversed ones) the step p -> b at what
 * find counts for it: the arc, b's penalties, edge_cost(b, p). A node the query cannot enter
 * (blocked; node_cost refuses it, which makes every step in INFINITY) is kept with its cost, where
 * a unit may stand and leave it, but no way leads on through it.
 */
static ALWAYS_INLINE int toward_expand(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned,
                                       int32_t id, int32_t b, bool upper, double gb, int64_t gb_quanta,
                                       const bool general) {
    graph_frame *f = ctx;
    graph_ctx *c = f->c;
    astar_graph_search *s = c->s;
    const packed_arc *arc = f->arc;
    (void)upper, (void)gb_quanta, (void)id;
    s->settled[s->nsettled++] = b;
    if (f->blocked[b]) return ASTAR_OFFER_DONE;
    for (int32_t e = f->first[b], end = f->first[b + 1]; e < end; e++) {
        int32_t p = arc[e].to;
        double ng, step = 0.0;
        if (general) {
            double extra = step_extra(c, p, b);
            if (c->aborted) return ASTAR_OFFER_EABORT;
            if (extra == INFINITY) continue;
            step = astar_step_of(arc[e].cost, 1.0, true, extra, false, 0.0);
        } else {
            step = astar_step_of(arc[e].cost, 1.0, false, 0.0, false, 0.0);
        }
        ng = gb + step;
        int r = relax(f, L, nodes, gen, p, p, b, ng, step, pruned, general);
        if (r != ASTAR_OFFER_DONE) return r;
    }
    return ASTAR_OFFER_DONE;
}

PLAIN_AND_GENERAL(toward_expand)

/* The plain loop reads arc costs, blocked flags and the built-in heuristic only; the general
 * one adds penalties, callbacks, a custom heuristic and interests. */
static const astar_space GRAPH_PLAIN = {false, false, graph_prev, graph_crossed, graph_id_of, graph_arrived,
                                        graph_sink_g, graph_rank, graph_expand_plain};
static const astar_space GRAPH_GENERAL = {true, false, graph_prev, graph_crossed, graph_id_of, graph_arrived,
                                          graph_sink_g, graph_rank, graph_expand_general};

/* The nearest of many targets: each leads on to the sink at its cost (loop.h). */
static ALWAYS_INLINE bool nearest_arrived(const void *ctx, int32_t node) {
    const graph_frame *f = ctx;
    return f->c->s->target_gen[node] == f->gen;
}

static ALWAYS_INLINE double nearest_sink_g(const void *ctx, int32_t node, bool upper, double ga) {
    const graph_ctx *c = ((const graph_frame *)ctx)->c;
    (void)upper;
    return c->q->target_costs ? ga + c->q->target_costs[c->s->target_of[node]] : ga;
}

static const astar_space GRAPH_NEAREST = {true, false, graph_prev, graph_crossed, graph_id_of, nearest_arrived,
                                          nearest_sink_g, graph_rank, graph_expand_general};

/* A field: the graph's space settling all it reaches (no arrival, no rank, no path). */
static const astar_space GRAPH_FIELD_PLAIN = {false, false, graph_prev, graph_crossed, graph_id_of, NULL,
                                              NULL, NULL, field_expand_plain};
static const astar_space GRAPH_FIELD_GENERAL = {true, false, graph_prev, graph_crossed, graph_id_of, NULL,
                                                NULL, NULL, field_expand_general};

/* A field toward its sources: the same over the arcs reversed. */
static const astar_space GRAPH_TOWARD_PLAIN = {false, false, graph_prev, graph_crossed, graph_id_of, NULL,
                                               NULL, NULL, toward_expand_plain};
static const astar_space GRAPH_TOWARD_GENERAL = {true, false, graph_prev, graph_crossed, graph_id_of, NULL,
                                                 NULL, NULL, toward_expand_general};

static ALWAYS_INLINE astar_status run(graph_ctx *c, astar_loop *L, bool goal_open, astar_result *res,
                                      const bool general, const bool field) {
    const astar_graph *g = c->g;
    int32_t goal = c->goal;
    bool toward = field && c->q->toward;
    graph_frame f = {c, toward ? g->rstart : g->start, toward ? g->rpacked : g->packed, g->blocked, g->pos,
                     c->s->parent, c->h_scale, g->pos[3 * goal], g->pos[3 * goal + 1], g->pos[3 * goal + 2],
                     goal, c->twin, goal_open, c->s->pool.gen};
    if (c->q->ntargets > 0) return astar_loop_run(&GRAPH_NEAREST, &f, L, UINT64_MAX, res);
    if (toward)
        return astar_loop_run(general ? &GRAPH_TOWARD_GENERAL : &GRAPH_TOWARD_PLAIN, &f, L, UINT64_MAX, res);
    if (field) return astar_loop_run(general ? &GRAPH_FIELD_GENERAL : &GRAPH_FIELD_PLAIN, &f, L, UINT64_MAX, res);
    return astar_loop_run(general ? &GRAPH_GENERAL : &GRAPH_PLAIN, &f, L, UINT64_MAX, res);
}

static astar_status run_plain(graph_ctx *c, astar_loop *L, bool goal_open, astar_result *res) {
    return run(c, L, goal_open, res, false, false);
}

static astar_status run_general(graph_ctx *c, astar_loop *L, bool goal_open, astar_result *res) {
    return run(c, L, goal_open, res, true, false);
}

static astar_status run_field(graph_ctx *c, astar_loop *L, bool general, astar_result *res) {
    return general ? run(c, L, false, res, true, true) : run(c, L, false, res, false, true);
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
        astar_loop_mark_interest(s->interest_of, s->interest_gen, s->pool.gen, q->interest_values, id, i, &top);
    }
    c->twin = twin;
    c->sink = 2 * twin;
    c->twin_shift = top;
    return true;
}

/*
 * Marks the targets the query can enter (of duplicates the first, or with target costs the
 * cheapest) and sets the sink after the graph's nodes. Whether any was marked.
 */
static bool mark_targets(graph_ctx *c) {
    astar_graph_search *s = c->s;
    const astar_graph_query *q = c->q;
    bool any = false;
    for (int32_t i = q->ntargets - 1; i >= 0; i--) {
        int32_t id = q->targets[i];
        if (c->g->blocked[id] || (q->node_cost && node_penalty(c, id) == INFINITY)) continue;
        if (q->target_costs && s->target_gen[id] == s->pool.gen &&
            q->target_costs[s->target_of[id]] < q->target_costs[i])
            continue;
        s->target_gen[id] = s->pool.gen;
        s->target_of[id] = i;
        any = true;
    }
    c->sink = c->g->nodes;
    return any;
}

static astar_status check_query(const astar_graph *g, const astar_graph_query *q) {
    if (!astar_graph_valid_id(g, q->start) || !astar_graph_valid_id(g, q->goal)) return ASTAR_EINVAL;
    if (q->toward) return ASTAR_EINVAL; /* fields only (astar_graph_field clears it for this check) */
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
    if (q->ntargets < 0 || (q->ntargets > 0 && (!q->targets || q->ninterests > 0 || q->partial ||
                                                 q->heuristic == ASTAR_H_CUSTOM)) ||
        (q->target_costs && q->ntargets == 0) || (q->ntargets > 0 && g->nodes >= ASTAR_GRAPH_MAX_NODES))
        return ASTAR_EINVAL;
    for (int32_t i = 0; i < q->ntargets; i++)
        if (!astar_graph_valid_id(g, q->targets[i]) ||
            (q->target_costs && !(q->target_costs[i] >= 0 && q->target_costs[i] <= ASTAR_MAX_VALUE)))
            return ASTAR_EINVAL;
    for (int32_t i = 0; i < q->ninterests; i++)
        if (!astar_graph_valid_id(g, q->interests[i]) ||
            !astar_interest_ok(q->interest_values[i]))
            return ASTAR_EINVAL;
    return ASTAR_OK;
}

/*
 * What a find and a field set up alike on s for query q over n node records (twin: the second
 * copy's offset, 0 without interests): the workspace and the arrays the query needs, a fresh
 * stamp, the claims it sees, and c; *general: whether it needs the general loop.
 */
static astar_status begin(graph_ctx *c, astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                          int32_t n, int32_t twin, bool *general) {
    astar_status st = astar_graph_prepare(g);
    if (st != ASTAR_OK) return st;
    if (!fit_workspace(s, n)) return ASTAR_ENOMEM;
    memset(c, 0, sizeof *c);
    c->s = s;
    c->g = g;
    c->q = q;
    c->goal = q->goal;
    c->custom = q->heuristic == ASTAR_H_CUSTOM;
    c->h_scale = q->heuristic == ASTAR_H_ZERO || c->custom || q->ntargets > ASTAR_REPAIR_LOCAL ? 0.0 : g->h_scale;
    *general = q->node_cost || q->edge_cost || c->custom || q->nlayers > 0 || q->claims ||
               q->noise > 0 || twin || q->ntargets > 0;
    c->penalties = q->node_cost || q->nlayers > 0 || q->claims || q->noise > 0;
    if ((c->penalties && !ASTAR_POOL_NEED(s, penalty, false)) ||
        (c->custom && !ASTAR_POOL_NEED(s, custom_h, false)) ||
        ((c->custom || twin) && !ASTAR_POOL_NEED(s, step_in, false)) ||
        (q->claims && (!ASTAR_POOL_NEED(s, claimed, false) || !ASTAR_POOL_NEED(s, claim_gen, true))) ||
        (twin && (!ASTAR_POOL_NEED(s, interest_of, false) || !ASTAR_POOL_NEED(s, interest_gen, true))) ||
        (q->ntargets > 0 && (!ASTAR_POOL_NEED(s, target_of, false) || !ASTAR_POOL_NEED(s, target_gen, true))))
        return ASTAR_ENOMEM;
    c->memo_penalty = c->penalties ? s->penalty : NULL;
    c->memo_h = c->custom ? s->custom_h : NULL;

    if (astar_pool_begin(&s->pool, &s->alloc)) { /* wrapped: stale stamps could look current */
        astar_pool_array_zero(&s->pool, &s->alloc, s->claim_gen, sizeof *s->claim_gen);
        astar_pool_array_zero(&s->pool, &s->alloc, s->interest_gen, sizeof *s->interest_gen);
        astar_pool_array_zero(&s->pool, &s->alloc, s->target_gen, sizeof *s->target_gen);
    }
    if (q->claims) {
        /* Claims of height 1 hold node id at cell stride + 1 + id (graph.c). */
        const astar_claims *cl = q->claims;
        c->claims = true;
        c->claim_width = cl->width < g->nodes ? cl->width : g->nodes;
        if (!astar_claim_view_init(&c->claim, cl, cl->stride + 1, c->claim_width, q->unit,
                                   q->claim_radius < 0 ? NULL : near_start, c, s->claimed, s->claim_gen,
                                   s->pool.gen, q->claim_penalty, astar_progress_get()))
            return ASTAR_ESTOPPED;
    }
    return ASTAR_OK;
}

astar_status astar_graph_find(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                              astar_result *res) {
    astar_result_init(res);
    s->path.len = 0;
    s->nsettled = 0;
    astar_status st = check_query(g, q);
    if (st != ASTAR_OK) return astar_finish(res, st);
    int32_t twin = q->ninterests > 0 ? g->nodes : 0;
    graph_ctx c;
    bool general;
    int32_t records = twin ? 2 * twin + 1 : q->ntargets > 0 ? g->nodes + 1 : g->nodes;
    if ((st = begin(&c, s, g, q, records, twin, &general)) != ASTAR_OK) return astar_finish(res, st);

    bool goal_open = q->ntargets > 0 ? mark_targets(&c)
                                     : !g->blocked[q->goal] && (!q->node_cost || node_penalty(&c, q->goal) != INFINITY);
    if (c.aborted) return astar_finish(res, ASTAR_EABORT);
    if (!goal_open && !q->partial) return astar_finish(res, ASTAR_UNREACHABLE);

    if (twin && !mark_interests(&c, twin)) return astar_finish(res, ASTAR_EABORT);
    res->scored = twin > 0;

    astar_meter meter = astar_meter_begin(astar_progress_get(), 0);
    bool nearest = q->ntargets > 0;
    astar_loop L = {&s->pool, &s->alloc, &s->path, (c.custom || twin) ? s->step_in : NULL,
                    nearest ? s->target_of : NULL, s->interest_of, q->interest_values, twin, c.twin_shift,
                    twin > 0 || nearest, c.sink, q->partial != 0,
                    c.custom, q->max_cost, q->weight, q->max_expansions, &meter,
                    0, false, q->start, 0, INFINITY, 0.0};
    /* The start in the first copy, and in the second when it collects an interest there. */
    if (twin || nearest) touch(&c, c.sink);
    touch(&c, q->start); /* before its heuristic, which it memoises */
    double h0 = heuristic(&c, q->start);
    if (c.aborted) return astar_finish(res, ASTAR_EABORT);
    for (int copy = 0; copy < 2; copy++) {
        double g0 = 0.0;
        if (copy == 1) {
            if (!twin || s->interest_gen[q->start] != s->pool.gen) break;
            g0 = c.twin_shift - astar_interest_value(q->interest_values[s->interest_of[q->start]]);
        }
        int32_t id = q->start + copy * twin;
        s->parent[id] = -1;
        if (!astar_loop_start(&L, touch(&c, id), id, g0, h0)) return astar_finish(res, ASTAR_ENOMEM);
    }
    st = general ? run_general(&c, &L, goal_open, res) : run_plain(&c, &L, goal_open, res);
    astar_meter_sync(&meter, res->expansions);
    return astar_finish(res, st);
}

astar_status astar_graph_field(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                               const int32_t *sources, int32_t nsources, astar_result *res) {
    astar_result_init(res);
    s->path.len = 0;
    s->nsettled = 0;
    if (nsources < 1 || !sources || q->heuristic == ASTAR_H_CUSTOM || q->weight != 1.0 || q->partial ||
        q->ninterests != 0 || q->ntargets != 0)
        return astar_finish(res, ASTAR_EINVAL);
    for (int32_t i = 0; i < nsources; i++)
        if (!astar_graph_valid_id(g, sources[i])) return astar_finish(res, ASTAR_EINVAL);
    /* The query as a search from the first source with no heuristic: its checks, its claims'
     * radius from there. */
    astar_graph_query fq = *q;
    fq.start = fq.goal = sources[0];
    fq.heuristic = ASTAR_H_ZERO;
    fq.toward = 0;
    astar_status st = check_query(g, &fq);
    if (st != ASTAR_OK) return astar_finish(res, st);
    fq.toward = q->toward;
    graph_ctx c;
    bool general;
    if ((st = begin(&c, s, g, &fq, g->nodes, 0, &general)) != ASTAR_OK) return astar_finish(res, st);
    if (!ASTAR_POOL_NEED(s, settled, false)) return astar_finish(res, ASTAR_ENOMEM);
    if (q->toward && (st = astar_graph_prepare_reverse(g)) != ASTAR_OK) return astar_finish(res, st);

    astar_meter meter = astar_meter_begin(astar_progress_get(), 0);
    astar_loop L = {&s->pool, &s->alloc, &s->path, NULL, NULL, NULL, NULL, 0, 0.0, false, 0, false,
                    false, q->max_cost, 1.0, q->max_expansions, &meter, 0, false, sources[0], 0, INFINITY, 0.0};
    /* Every source at 0, once: blocked or not (where a unit stands); toward them, only those the
     * query may enter (a goal find could reach). */
    for (int32_t i = 0; i < nsources; i++) {
        if (q->toward && (g->blocked[sources[i]] || (c.penalties && node_penalty(&c, sources[i]) == INFINITY))) {
            if (c.aborted) return astar_finish(res, ASTAR_EABORT);
            continue;
        }
        astar_node *n = touch(&c, sources[i]);
        if (n->g == 0.0) continue;
        s->parent[sources[i]] = -1;
        if (!astar_loop_start(&L, n, sources[i], 0.0, 0.0)) return astar_finish(res, ASTAR_ENOMEM);
    }
    st = run_field(&c, &L, general, res);
    astar_meter_sync(&meter, res->expansions);
    /* Done when nothing is left open (max_cost only leaves dearer nodes out); ASTAR_LIMIT when
     * max_expansions stopped it. */
    if (st == ASTAR_UNREACHABLE || (st == ASTAR_LIMIT && s->pool.heap.len == 0)) st = ASTAR_OK;
    if (st != ASTAR_OK && st != ASTAR_LIMIT) s->nsettled = 0; /* an error keeps no field */
    return astar_finish(res, st);
}

int32_t astar_graph_field_reached(const astar_graph_search *s) { return s->nsettled; }

void astar_graph_field_entry(const astar_graph_search *s, int32_t i, int32_t *id, double *dist, int32_t *prev) {
    int32_t node = s->settled[i];
    *id = node;
    *dist = s->pool.nodes[node].g;
    *prev = s->parent[node];
}
