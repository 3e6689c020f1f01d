/*
 * The search loop, one for every space: the grid's (grid_loop.c: plain, layered, in quanta,
 * general), the graph's (graph_search.c: plain, general), the fields' Dijkstra toward their
 * sources (field.c) and a hierarchy cluster's Dijkstras (hierarchy.c). Its model is
 * warthog's unidirectional_search<H, E, Q, L>: what a search
 * does whatever it searches (the budget and the slices, the answer on arrival, the sink and
 * the two copies of the nodes for interests, reopening, the best partial answer, the way
 * back) is here once; what it searches is a space, a static const astar_space of inline
 * functions and flags that each instantiation passes, so the compiler folds them into a loop
 * of its own at each call site: no call through a pointer is left, and the instructions per
 * expansion are those of the hand-written loops it replaced (fewer, measured by callgrind).
 *
 * Node ids: a space's nodes are 0..twin-1 (grid cells, graph nodes); with interests, id + twin
 * is the same node in the second copy, reached after an interest was collected, whose g counts
 * twin_shift (the largest value) more than the path's cost less the value, so that no step
 * costs less than 0. With interests or target costs the search ends at a sink, a node no
 * space position has: each goal leads to it at the cost still to come there, and the path ends
 * at sink_from, the node it was last reached from.
 */
#ifndef ASTAR_LOOP_H
#define ASTAR_LOOP_H

#include "cost.h"
#include "nodes.h"

/* A search as the loop runs it: set up by the instantiation before each run (a local, so that
 * stores to node records do not make the compiler reload it), where it stands between slices
 * in and out. */
typedef struct astar_loop {
    astar_pool *pool;
    const astar_alloc *alloc;
    astar_path_buf *path;
    double *step_in;             /* per node: the cost of its step in (reopening, interests), or
                                    NULL: a path's cost is then its end's g */
    const int32_t *target_of;    /* per node: the target it is (many goals), or NULL */
    const int32_t *interest_of;  /* per node of the first copy: its interest, where marked */
    const double *values;        /* the query's interest values */
    int32_t twin;                /* 0: one copy */
    double twin_shift;
    bool sink;                   /* the search ends at the sink, node sink_id */
    int32_t sink_id;
    bool partial;
    bool reopen;                 /* closed nodes may improve (inconsistent h, repaired jobs) */
    double max_cost, weight;
    uint64_t max_expansions;
    astar_meter *meter;
    /* Where it stands (all zero but best and best_h at the start). */
    uint64_t expansions;
    bool pruned;                 /* max_cost left something out */
    int32_t best, sink_from;     /* partial: the best node so far, its h and g */
    double best_h, best_g;
} astar_loop;

/* What an expansion asks of the loop besides going on. */
enum { ASTAR_OFFER_DONE, ASTAR_OFFER_ENOMEM, ASTAR_OFFER_EABORT };

/*
 * A space. The functions take the instantiation's context (ctx) and node ids; "node" is an id
 * in the first copy.
 */
typedef struct astar_space {
    bool general;   /* callbacks (the meter charged ahead: core.h), sinks, two copies */
    bool quanta;    /* the records count g in quanta (astar_node), not in doubles */
    /* The node the way into id came from, -1 at a start. */
    int32_t (*prev)(const void *ctx, const astar_node *nodes, int32_t id);
    /* Whether the way into id of the second copy crossed there (or starts there): where the
     * path collects its interest. */
    bool (*crossed)(const void *ctx, const astar_node *nodes, int32_t id);
    /* The caller's id of a node (a path's entries). */
    int32_t (*id_of)(const void *ctx, int32_t node);
    /* Whether the search arrives at node (a goal, a target). NULL, with rank, sink_g and the
     * way back: a search that settles all it reaches (a field), which never answers with a
     * path. */
    bool (*arrived)(const void *ctx, int32_t node);
    /* g at the sink through node, whose g is ga (upper: it is in the second copy). */
    double (*sink_g)(const void *ctx, int32_t node, bool upper, double ga);
    /* A partial search's rank of node id (its h): the lowest ends it. */
    double (*rank)(void *ctx, int32_t id, int32_t node);
    /* Offers the neighbours of id (node in the first copy, g ga or ga_quanta; the pool's records
     * and stamp passed in, which through the pool would be reloaded): ASTAR_OFFER_*; *pruned set
     * when max_cost cut one. */
    int (*expand)(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned, int32_t id,
                  int32_t node, bool upper, double ga, int64_t ga_quanta);
} astar_space;

/* Interest i's value as the search counts it (cost.h). */
static inline double astar_loop_value(const astar_loop *L, int32_t i) {
    return astar_interest_value(L->values[i]);
}

/*
 * Marks node (of the first copy) as interest i, of value v, unless one of at least that value
 * (the first of equals) is marked there; *top keeps the largest value marked (twin_shift).
 */
static inline void astar_loop_mark_interest(int32_t *interest_of, uint16_t *interest_gen, uint16_t gen,
                                            const double *values, int32_t node, int32_t i, double *top) {
    double v = astar_interest_value(values[i]);
    if (interest_gen[node] == gen && !(v > astar_interest_value(values[interest_of[node]]))) return;
    interest_gen[node] = gen;
    interest_of[node] = i;
    if (v > *top) *top = v;
}

/*
 * Keeps the way from a start to node end, walked back, as the caller's ids; *collected gets
 * the index of the interest it collects, or -1. (Back to a start node, in either copy: the
 * second copy's start may also be reached later, by a way that collected elsewhere and came
 * back.)
 */
static ALWAYS_INLINE bool astar_loop_path(const astar_space *sp, const void *ctx, astar_loop *L,
                                          int32_t end, int32_t *collected) {
    const astar_node *nodes = L->pool->nodes;
    const int32_t twin = L->twin;
    int32_t len = 1;
    for (int32_t id = end, p; (p = sp->prev(ctx, nodes, id)) >= 0; id = p) len++;
    if (!astar_path_reserve(L->path, L->alloc, len)) return false;
    *collected = -1;
    int32_t id = end;
    for (int32_t i = len - 1; i >= 0; i--) {
        bool second = twin && id >= twin;
        int32_t node = second ? id - twin : id;
        if (second && sp->crossed(ctx, nodes, id)) *collected = L->interest_of[node];
        L->path->ids[i] = sp->id_of(ctx, node);
        if (i > 0) id = sp->prev(ctx, nodes, id);
    }
    return true;
}

/*
 * The cost of the way to node end as the chain of parents from it adds up: its steps in
 * (step_in). A reopened node may take a cheaper way in after what was reached through it was
 * settled, or, in a partial search, before passing the improvement on: that node's g still
 * counts the dearer way while its chain already runs the cheaper one, and the answer is the
 * chain. With interests a node's g also counts what the second copy adds: the path's cost is
 * its steps, never g less a shift.
 */
static ALWAYS_INLINE double astar_loop_chain(const astar_space *sp, const void *ctx, const astar_loop *L,
                                             int32_t end) {
    const astar_node *nodes = L->pool->nodes;
    double sum = 0.0;
    for (int32_t id = end, p; (p = sp->prev(ctx, nodes, id)) >= 0; id = p) sum += L->step_in[id];
    return sum;
}

/* The answer at node end: its path, its cost, its target; at the sink its score and interest. */
static ALWAYS_INLINE astar_status astar_loop_answer(const astar_space *sp, const void *ctx, astar_loop *L,
                                                    astar_result *res, int32_t end, uint64_t expansions,
                                                    astar_status st, const bool at_sink) {
    int32_t collected, node = L->twin && end >= L->twin ? end - L->twin : end;
    if (!astar_loop_path(sp, ctx, L, end, &collected)) return astar_done(res, expansions, ASTAR_ENOMEM);
    res->cost = L->step_in ? astar_loop_chain(sp, ctx, L, end) : L->pool->nodes[end].g;
    if (at_sink) {
        res->score = collected >= 0 ? res->cost - astar_loop_value(L, collected) : res->cost;
        res->interest = collected;
    }
    if (L->target_of && st == ASTAR_OK) res->target = L->target_of[node];
    res->length = L->path->len;
    return astar_done(res, expansions, st);
}

/* A slice's end before the search's: where the loop stands is kept for the next. */
static ALWAYS_INLINE astar_status astar_loop_pause(astar_loop *L, astar_result *res, astar_status st,
                                                   uint64_t expansions, bool pruned, int32_t best,
                                                   double best_h, double best_g, int32_t sink_from) {
    L->sink_from = sink_from;
    L->expansions = expansions;
    L->pruned = pruned;
    L->best = best;
    L->best_h = best_h;
    L->best_g = best_g;
    return astar_done(res, expansions, st);
}

/*
 * Puts a start node (its record n, touched, its way in marked a start) on the open list at
 * g0 with heuristic h0. False on OOM.
 */
static inline bool astar_loop_start(astar_loop *L, astar_node *n, int32_t id, double g0, double h0) {
    n->g = g0;
    return astar_pool_open(L->pool, L->alloc, n, id, g0 + L->weight * h0, h0);
}

/*
 * The first half of an offer of g = ng to node id: its record when ng improves it, max_cost
 * leaves it (`scored`: g less what the path may still collect, the least score a path through
 * it can still end with) and it is not
 * closed (unless reopening lets it improve by more than rounding: core.h); else NULL. A first
 * touch needs no comparison (its g is infinite): the branch that found it new skips the one
 * that compares, which would mispredict on the same nodes. `memo`: through the pool's touch,
 * which marks the per-node memos "not computed yet" (memo_a, memo_b).
 */
static ALWAYS_INLINE astar_node *astar_loop_improves(astar_pool *pool, astar_node *nodes, uint16_t gen,
                                                     int32_t id, double ng, double scored, double max_cost,
                                                     bool *pruned,
                                                     bool reopen, double *memo_a, double *memo_b,
                                                     const bool memo) {
    astar_node *n;
    if (memo) {
        n = astar_pool_touch(pool, id, memo_a, memo_b);
        if (!(ng < n->g)) return NULL;
    } else {
        n = &nodes[id];
        if (n->gen != gen) {
            n->gen = gen;
            n->g = INFINITY;
            n->heap = ASTAR_NOT_OPEN;
        } else if (!(ng < n->g)) {
            return NULL;
        }
    }
    if (scored > max_cost) {
        *pruned = true;
        return NULL;
    }
    if (n->heap == ASTAR_CLOSED && !(reopen && astar_reopens(ng, n->g))) return NULL;
    return n;
}

/* The second half: node id (record n) takes g = ng and goes onto the open list at
 * ng + weight * h, or up it. False on OOM. */
static ALWAYS_INLINE bool astar_loop_take(astar_pool *pool, const astar_alloc *alloc, astar_node *n, int32_t id,
                                          double ng, double h, double weight) {
    bool open_now = n->heap >= 0;
    n->g = ng;
    double f = ng + astar_rounded(weight * h);
    if (open_now) {
        astar_pool_decrease(pool, n, f, h);
        return true;
    }
    return astar_pool_push(pool, alloc, id, f, h);
}

/*
 * The loop: up to L's budget of expansions in this slice (budget), then paused (ASTAR_RUNNING,
 * or ASTAR_ESTOPPED by the progress handler), or to its end. One test per expansion serves
 * the query's limit, this slice's budget and, but in a general space (whose callbacks may run
 * other queries), the progress handler: the meter charges expansions when the loop stops
 * (core.h), the general loop one at a time ahead.
 */
static ALWAYS_INLINE astar_status astar_loop_run(const astar_space *sp, void *ctx, astar_loop *io,
                                                 uint64_t budget, astar_result *res) {
    /* A copy in locals: through io the compiler would reload every field after each store to
     * a node record. */
    astar_loop local = *io, *const L = &local;
    const bool general = sp->general;
    astar_pool *pool = L->pool;
    astar_node *nodes = pool->nodes;
    const uint16_t gen = pool->gen;
    const bool partial = L->partial;
    const uint64_t max_expansions = L->max_expansions;
    bool pruned = L->pruned;
    int32_t best = L->best;
    double best_h = L->best_h, best_g = L->best_g;
    astar_status outcome = ASTAR_UNREACHABLE;
    uint64_t expansions = L->expansions; /* a local: res could alias what the loop stores */
    const uint64_t limit = budget < max_expansions - expansions ? expansions + budget : max_expansions;
    astar_meter *const meter = L->meter;
    uint64_t stop = general ? limit : astar_meter_stop(meter, limit);

    while (pool->heap.len > 0) {
        if (expansions >= stop) {
            if (expansions >= max_expansions) {
                outcome = ASTAR_LIMIT;
                break;
            }
            bool stopped = expansions < limit && astar_meter_check(meter, expansions);
            if (stopped || expansions >= limit)
                return astar_loop_pause(io, res, stopped ? ASTAR_ESTOPPED : ASTAR_RUNNING, expansions, pruned,
                                        best, best_h, best_g, L->sink_from);
            stop = astar_meter_stop(meter, limit);
        }
        if (general && astar_meter_ahead(meter, expansions))
            return astar_loop_pause(io, res, ASTAR_ESTOPPED, expansions, pruned, best, best_h, best_g, L->sink_from);
        int32_t a = astar_heap_pop(&pool->heap, nodes).cell;
        expansions++;
        const int64_t ga_quanta = sp->quanta ? nodes[a].quanta : 0;
        double ga = sp->quanta ? 0.0 : nodes[a].g;
        if (sp->arrived && general && L->sink && a == L->sink_id)
            return astar_loop_answer(sp, ctx, L, res, L->sink_from, expansions, ASTAR_OK, true);
        /* Its node in the first copy: the second only adds to ids. */
        const bool upper = general && L->twin && a >= L->twin;
        const int32_t node = upper ? a - L->twin : a;
        if (sp->arrived && sp->arrived(ctx, node)) {
            if (general && L->sink) {
                /* A goal leads on to the sink; the path may still pass it (to an interest). */
                astar_node *sink = &nodes[L->sink_id];
                double g_sink = sp->sink_g(ctx, node, upper, ga);
                if (g_sink - L->twin_shift > L->max_cost) {
                    pruned = true;
                } else if (g_sink < sink->g) {
                    L->sink_from = a;
                    if (!astar_loop_take(pool, L->alloc, sink, L->sink_id, g_sink, 0.0, 1.0))
                        return astar_done(res, expansions, ASTAR_ENOMEM);
                }
            } else {
                if (sp->quanta) {
                    int32_t collected;
                    if (!astar_loop_path(sp, ctx, L, a, &collected)) return astar_done(res, expansions, ASTAR_ENOMEM);
                    res->cost = (double)ga_quanta * ASTAR_QUANTUM;
                    res->length = L->path->len;
                    return astar_done(res, expansions, ASTAR_OK);
                }
                return astar_loop_answer(sp, ctx, L, res, a, expansions, ASTAR_OK, false);
            }
        }
        if (sp->rank && partial) {
            double h = sp->rank(ctx, a, node);
            if (h < best_h || (h == best_h && ga < best_g)) {
                best = a;
                best_h = h;
                best_g = ga;
            }
        }
        int r = sp->expand(ctx, L, nodes, gen, &pruned, a, node, upper, ga, ga_quanta);
        if (r != ASTAR_OFFER_DONE)
            return astar_done(res, expansions, r == ASTAR_OFFER_ENOMEM ? ASTAR_ENOMEM : ASTAR_EABORT);
    }
    if (outcome == ASTAR_UNREACHABLE && pruned) outcome = ASTAR_LIMIT;
    if (sp->rank && partial) {
        res->reason = outcome;
        return astar_loop_answer(sp, ctx, L, res, best, expansions, ASTAR_PARTIAL, false);
    }
    return astar_done(res, expansions, outcome);
}

#endif
