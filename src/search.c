/*
 * Grid A*: the loop, compiled for plain terrain, for influence and claims, and
 * for everything else; searches whole or in slices (find = start + step); the
 * engine chosen per query (A* or jump point search).
 */
#include "search.h"

#include <string.h>

static const double STEP[8] = {1.0, 1.0, 1.0, 1.0, ASTAR_SQRT2, ASTAR_SQRT2, ASTAR_SQRT2, ASTAR_SQRT2};

/* Interest i's value as the search counts it (cost.h). */
static inline double interest_value(const query_ctx *c, int32_t i) {
    return astar_interest_value(c->q->interest_values[i]);
}

/* The node a path reached id from: one step back, into the first copy if it crossed there. */
static int32_t prev_node(const query_ctx *c, const astar_node *nodes, int32_t id) {
    int32_t p = id - c->offset[nodes[id].from];
    return c->twin && id >= c->twin && nodes[id].spare ? p - c->twin : p;
}

/*
 * Keeps the way from the start to node end, walked back along each node's `from`, as node
 * ids of cells; *collected gets the index of the interest it collects, or -1.
 */
static bool store_path(query_ctx *c, int32_t end, int32_t *collected) {
    astar_search *s = c->s;
    const astar_node *nodes = s->pool.nodes;
    const int32_t twin = c->twin;
    /* Back to a start node, in either copy (the second copy's start cell may also be reached
     * later, by a way that collected elsewhere and came back). */
    int32_t len = 1;
    for (int32_t id = end; nodes[id].from != ASTAR_FROM_START; id = prev_node(c, nodes, id)) len++;
    if (!astar_path_reserve(&s->path, &s->alloc, len)) return false;
    *collected = -1;
    int32_t id = end;
    for (int32_t i = len - 1; i >= 0; i--) {
        int32_t cell = twin && id >= twin ? id - twin : id;
        if (twin && id >= twin && (nodes[id].spare || i == 0)) *collected = s->interest_of[cell];
        int32_t y = astar_row_of(c, cell);
        s->path.ids[i] = (y - 1) * s->width + (cell - y * s->stride - 1);
        if (i > 0) id = prev_node(c, nodes, id);
    }
    return true;
}

/*
 * The cost of the way to node end as the chain of parents from it adds up: the steps in
 * (step_in, kept under reopening and with interests). A reopened node may take a cheaper way
 * in after what was reached through it was settled, or, in a partial search, before passing
 * the improvement on: that node's g still counts the dearer way while its chain already runs
 * the cheaper one, and the answer is the chain. With interests a node's g also counts what
 * the second copy adds (search.h): the path's cost is its steps, never g less a shift.
 */
static double chain_cost(const query_ctx *c, int32_t end) {
    const astar_node *nodes = c->s->pool.nodes;
    double sum = 0.0;
    for (int32_t id = end; nodes[id].from != ASTAR_FROM_START; id = prev_node(c, nodes, id))
        sum += c->s->step_in[id];
    return sum;
}

/*
 * The end of a search with a sink (search.h): the path to the node the sink was reached from,
 * its cost (its steps summed), its score (that cost less the value it collected) and what it
 * collected.
 */
static astar_status finish_at_sink(query_ctx *c, astar_result *res, uint64_t expansions) {
    astar_search *s = c->s;
    const astar_node *nodes = s->pool.nodes;
    int32_t end = c->sink_from, collected;
    if (!store_path(c, end, &collected)) return astar_done(res, expansions, ASTAR_ENOMEM);
    res->cost = c->reopen || c->twin ? chain_cost(c, end) : nodes[end].g;
    res->score = collected >= 0 ? res->cost - interest_value(c, collected) : res->cost;
    res->interest = collected;
    if (c->ntargets) res->target = s->target_of[end >= c->twin && c->twin ? end - c->twin : end];
    res->length = s->path.len;
    return astar_done(res, expansions, ASTAR_OK);
}

/* What the loop keeps in locals for offer(): through c the compiler would reload them after
 * every store to a node record. */
typedef struct loop_consts {
    double max_cost, weight, h_card, h_diag;
    int32_t gx, gy;
} loop_consts;

/* What offer() asks of the loop besides going on. */
enum { OFFER_DONE, OFFER_ENOMEM, OFFER_EABORT };

/*
 * Offers node id (cell `cell`, in either copy) the way in from a (at ax, ay) by step d at g = ng,
 * the step costing `step` (kept in step_in): onto the open list, or a decrease of its key, when
 * that improves it. `shift` is what max_cost takes off g: g - shift is the least score a path
 * through the node can still end with (twin_shift in both copies: the second copy's g counts it
 * beyond the running score, and from the first copy an interest worth up to twin_shift may still
 * be collected); crossed: the step entered the second copy from the first.
 */
static ALWAYS_INLINE int offer(query_ctx *c, astar_node *nodes, uint16_t gen, int32_t id,
                               int32_t cell, int32_t ax, int32_t ay, double ng, double step,
                               int32_t a, int d, double shift, bool crossed, const loop_consts k,
                               bool *pruned, double *step_in, const bool general,
                               const bool octile) {
    astar_search *s = c->s;
    astar_pool *pool = &s->pool;
    /* A first touch needs no comparison (its g is infinite): the branch that found it
     * new skips the one that compares, which would mispredict on the same nodes. */
    astar_node *n;
    if (general) {
        n = astar_touch(c, id);
        if (!(ng < n->g)) return OFFER_DONE;
    } else {
        n = &nodes[id];
        if (n->gen != gen) {
            n->gen = gen;
            n->g = INFINITY;
            n->heap = ASTAR_NOT_OPEN;
        } else if (!(ng < n->g)) {
            return OFFER_DONE;
        }
    }
    if ((general ? ng - shift : ng) > k.max_cost) {
        *pruned = true;
        return OFFER_DONE;
    }
    /* On the open list: decrease-key. Otherwise a closed node can improve only under a
     * custom (maybe inconsistent) heuristic, which takes the general loop, or in a job
     * repaired after a cell got cheaper (jobs.c): both set c->reopen. A weighted
     * search stays within its bound without reopening, and improvements that are just
     * rounding of equal-cost routes are ignored (core.h). */
    bool open_now = n->heap >= 0;
    if (n->heap == ASTAR_CLOSED && !(c->reopen && astar_reopens(ng, n->g))) return OFFER_DONE;
    int32_t x = ax + ASTAR_DX[d], y = ay + ASTAR_DY[d];
    double h = octile ? astar_octile_h(x - k.gx, y - k.gy, k.h_card, k.h_diag)
                      : astar_heuristic_at(c, cell, x, y);
    if (general && c->aborted) return OFFER_EABORT;
    n->g = ng;
    n->from = (uint8_t)d;
    if (general && c->twin) n->spare = crossed;
    if (general && step_in) step_in[id] = step;
    if (general && c->windowed) s->depth[id] = s->depth[a] + 1;
    double f = ng + astar_rounded(k.weight * h);
    if (open_now) astar_pool_decrease(pool, n, f, h);
    else if (!astar_pool_push(pool, &s->alloc, id, f, h)) return OFFER_ENOMEM;
    return OFFER_DONE;
}

/* The sink's node: a corner of the blocked border, which no search steps onto. */
#define SINK 0

/* A step's end before the search's: where the loop stands is kept for the next step. */
static astar_status pause_search(query_ctx *c, astar_result *res, astar_status st, uint64_t expansions,
                                 bool pruned, int32_t best, double best_h, double best_g) {
    c->expansions = expansions;
    c->pruned = pruned;
    c->best = best;
    c->best_h = best_h;
    c->best_g = best_g;
    return astar_done(res, expansions, st);
}

/*
 * The search loop. Its flags are constants at every call site, so the compiler
 * makes a loop of each combination used: plain terrain and a built-in
 * heuristic (no penalty array, no callbacks, no per-neighbour walkability test
 * beyond a byte of legal moves; with octile and uniform costs, no cost array
 * either), plus influence layers and claims (`layered`), and the general one.
 * `exact` (plain, octile, uniform, not partial, costs bounded below
 * ASTAR_EXACT_BELOW: see start_search) counts g, h and f in quanta as 64-bit
 * integers: the same numbers (every sum is exact there) and the same keys, so the
 * same expansions and answer, but integer additions and comparisons where doubles
 * would make longer chains of dependent instructions per neighbour.
 */
static ALWAYS_INLINE astar_status run(query_ctx *c, uint64_t budget, astar_result *res,
                                      const bool general, const bool layered, const bool octile,
                                      const bool uniform, const bool exact) {
    astar_search *s = c->s;
    const astar_query *q = c->q;
    const double *cost = c->cost;
    const uint8_t *open = c->open;
    /* On the dead-end view, whose pages are copied as the search first reads them. */
    const uint8_t *const copied = open != c->g->open ? s->dead_ends.copied : NULL;
    const uint8_t *legal = c->g->legal[c->diagonal];
    astar_pool *pool = &s->pool;
    astar_node *nodes = pool->nodes;
    const uint16_t gen = pool->gen;
    const int32_t stride = c->stride;
    int32_t offset[8]; /* a local copy: stores to the node records cannot alias it */
    memcpy(offset, c->offset, sizeof offset);
    /* Likewise, and one load where the table needs an address computed: a step's length, or
     * with uniform terrain its cost before the penalties, and that cost rounded (core.h). */
    double step[8], rounded_step[8];
    for (int d = 0; d < 8; d++) {
        step[d] = c->diagonal == ASTAR_DIAG_HEX ? 1.0 : STEP[d];
        if (uniform) step[d] = astar_rounded(step[d] * c->uniform_cost);
        rounded_step[d] = uniform ? astar_step_cost(c->uniform_cost, d) : 0.0;
    }
    const double h_card = c->h_card, h_diag = c->h_diag;
    const int tie_bits = c->tie_bits;
    int64_t step_quanta[8], card_quanta = 0, diag_quanta = 0, max_quanta = INT64_MAX;
    if (exact) {
        for (int d = 0; d < 8; d++) step_quanta[d] = (int64_t)(rounded_step[d] * (1.0 / ASTAR_QUANTUM));
        card_quanta = (int64_t)(h_card * (1.0 / ASTAR_QUANTUM));
        diag_quanta = (int64_t)(h_diag * (1.0 / ASTAR_QUANTUM));
        /* ng > max_cost is ng_quanta > floor(max_cost in quanta): ng_quanta is whole */
        if (q->max_cost < ASTAR_EXACT_BELOW) max_quanta = (int64_t)(q->max_cost * (1.0 / ASTAR_QUANTUM));
    }
    /* The loop's invariants in locals: the compiler cannot keep what c points to in registers
     * across the stores to the node records. */
    const int32_t goal = c->goal, gx = c->gx, gy = c->gy;
    const bool goal_open = c->goal_open;
    const uint64_t row_magic = c->row_magic;
    const int row_shift = c->row_shift;
    const loop_consts k = {q->max_cost, c->weight, h_card, h_diag, gx, gy};
    const bool partial = q->partial != 0, eight = c->diagonal != ASTAR_DIAG_NEVER;
    const penalty_view pv = c->pv;
    /* What the loop in quanta tests before it sums penalties. */
    const double *const layer0 = pv.nlayers > 0 ? pv.value0 : NULL;
    const int32_t *const claimed = pv.claims ? pv.claim.count : NULL;
    const bool layers_many = pv.nlayers > 1;
    double *const step_in = general && (c->reopen || c->twin) ? s->step_in : NULL;
    /* Where an earlier step left off (all zero at the start). */
    bool pruned = c->pruned;
    int32_t best = c->best;
    double best_h = c->best_h, best_g = c->best_g;
    astar_status outcome = ASTAR_UNREACHABLE;
    uint64_t expansions = c->expansions; /* a local: res could alias what the loop stores */
    /* One test per expansion serves the query's limit, this step's budget and, but in the
     * general loop (whose callbacks may run other queries), the progress handler: the meter
     * charges expansions when the loop stops (core.h), the general loop one at a time ahead. */
    const uint64_t limit = budget < q->max_expansions - expansions ? expansions + budget : q->max_expansions;
    astar_meter *const meter = &c->meter;
    uint64_t stop = general ? limit : astar_meter_stop(meter, limit);

    while (pool->heap.len > 0) {
        if (expansions >= stop) {
            if (expansions >= q->max_expansions) {
                outcome = ASTAR_LIMIT;
                break;
            }
            bool stopped = expansions < limit && astar_meter_check(meter, expansions);
            if (stopped || expansions >= limit)
                return pause_search(c, res, stopped ? ASTAR_ESTOPPED : ASTAR_RUNNING, expansions, pruned, best,
                                    best_h, best_g);
            stop = astar_meter_stop(meter, limit);
        }
        if (general && astar_meter_ahead(meter, expansions))
            return pause_search(c, res, ASTAR_ESTOPPED, expansions, pruned, best, best_h, best_g);
        int32_t a = astar_heap_pop(&pool->heap, nodes).cell;
        expansions++;
        const int64_t ga_quanta = exact ? nodes[a].quanta : 0;
        double ga = exact ? 0.0 : nodes[a].g;
        if (general && c->sink && a == SINK) return finish_at_sink(c, res, expansions);
        /* Its cell, in the first copy: the second (interests) only adds to node ids. */
        const bool upper = general && c->twin && a >= c->twin;
        const int32_t ac = upper ? a - c->twin : a;
        bool arrived = general && c->ntargets ? s->target_gen[ac] == gen
                                              : ac == goal && goal_open; /* a blocked goal is only
                                                                           expanded as the start */
        if (arrived && general && c->sink) {
            /* A goal leads on to the sink; the path may still pass it (to an interest). */
            double to_sink = upper ? 0.0 : c->twin_shift;
            if (q->target_costs) to_sink += q->target_costs[s->target_of[ac]];
            astar_node *sink = &nodes[SINK];
            double g_sink = ga + to_sink;
            if (g_sink - c->twin_shift > q->max_cost) {
                pruned = true;
            } else if (g_sink < sink->g) {
                c->sink_from = a;
                bool open_now = sink->heap >= 0;
                sink->g = g_sink;
                if (open_now) astar_pool_decrease(pool, sink, g_sink, 0.0);
                else if (!astar_pool_push(pool, &s->alloc, SINK, g_sink, 0.0))
                    return astar_done(res, expansions, ASTAR_ENOMEM);
            }
        } else if (arrived) {
            int32_t collected;
            if (!store_path(c, a, &collected)) return astar_done(res, expansions, ASTAR_ENOMEM);
            if (general && c->ntargets) res->target = s->target_of[ac];
            res->cost = exact ? (double)ga_quanta * ASTAR_QUANTUM : step_in ? chain_cost(c, a) : ga;
            res->length = s->path.len;
            return astar_done(res, expansions, ASTAR_OK);
        }
        int32_t row = (int32_t)(((uint64_t)(uint32_t)ac * row_magic) >> row_shift); /* row_of */
        int32_t ax = ac - row * stride - 1, ay = row - 1;
        if (partial) {
            astar_heuristic rank = c->heuristic != ASTAR_H_ZERO ? c->heuristic
                                   : c->diagonal == ASTAR_DIAG_HEX ? ASTAR_H_HEX
                                   : eight ? ASTAR_H_OCTILE : ASTAR_H_MANHATTAN;
            double h;
            if (c->heuristic == ASTAR_H_CUSTOM) {
                h = s->custom_h[a];
            } else {
                h = c->ntargets ? astar_target_distance(c, rank, ax, ay)
                                : astar_h_between(c, rank, ax, ay, c->gx, c->gy);
            }
            if (h < best_h || (h == best_h && ga < best_g)) {
                best = a;
                best_h = h;
                best_g = ga;
            }
        }
        if (!general && copied && !copied[a >> ASTAR_VIEW_PAGE_SHIFT]) astar_dead_end_view_copy(&s->dead_ends, a);
        unsigned moves = general ? astar_query_moves(c, ac, ax, ay) : legal[open[a]];
        if (general && c->aborted) return astar_done(res, expansions, ASTAR_EABORT);
        /* The way back leads to a closed node (none at the start), unless the step in crossed
         * into the second copy: back is then a node of the second copy, maybe not reached. */
        if (!upper || !nodes[a].spare) moves &= ~(1u << (nodes[a].from ^ 2));
        for (; moves; moves &= moves - 1) {
            int d = astar_lowest_bit(moves);
            int32_t b = a + offset[d];
            if (exact) { /* the steps below, in quanta */
                int64_t ng = ga_quanta + step_quanta[d];
                astar_node *n = &nodes[b];
                if (layered) { /* as below, the same sum in doubles, then exact in quanta */
                    /* A penalty only raises the step: a reached neighbour the terrain's step
                     * does not improve needs none (closed ones among them). Asked this way
                     * rather than "is it closed", which is a coin toss a branch mispredicts. */
                    if (n->gen == gen && !(ng < n->quanta)) continue;
                    /* Most cells hold neither influence nor claims: a term of +0 or -0 leaves
                     * the sum as astar_layer_penalty makes it (it starts at +0), so the loop
                     * skips the arithmetic where both are 0. */
                    if (layers_many || (layer0 && astar_holds_value(layer0[b])) || (claimed && claimed[b] != 0)) {
                        double p = astar_layer_penalty(&pv, c, b);
                        if (p > 0) ng = ga_quanta + (int64_t)(astar_cost_up(step[d] + p) * (1.0 / ASTAR_QUANTUM));
                    }
                }
                if (n->gen != gen) {
                    n->gen = gen;
                    n->heap = ASTAR_NOT_OPEN;
                    if (ng > max_quanta) {
                        n->quanta = INT64_MAX;
                        pruned = true;
                        continue;
                    }
                } else if (ng < n->quanta) {
                    if (ng > max_quanta) {
                        pruned = true;
                        continue;
                    }
                    if (n->heap >= 0) { /* h is the same: f drops as g does */
                        uint64_t key = pool->heap.items[n->heap].key - ((uint64_t)(n->quanta - ng) << tie_bits);
                        n->quanta = ng;
                        n->from = (uint8_t)d;
                        astar_pool_decrease_key(pool, n, key);
                        continue;
                    }
                    if (n->heap == ASTAR_CLOSED) continue; /* h is consistent: it stays closed
                                                             (a repaired job leaves this loop) */
                } else {
                    continue;
                }
                /* A first touch, or one max_cost cut before: onto the open list. */
                int64_t h = astar_octile_quanta(ax + ASTAR_DX[d] - gx, ay + ASTAR_DY[d] - gy, card_quanta, diag_quanta);
                n->quanta = ng;
                n->from = (uint8_t)d;
                if (!astar_pool_push_key(pool, &s->alloc, b, astar_heap_key_fine(ng + h, h, tie_bits)))
                    return astar_done(res, expansions, ASTAR_ENOMEM);
                continue;
            }
            /* The step's cost (astar.h), rounded up once (core.h), so that sums are exact. */
            double ng, step_cost = 0.0; /* step_cost: for step_in, which only the general loop keeps */
            if (!general) {
                /* Without penalties here (most cells of an influence map), the terrain's step
                 * alone, rounded once per query on uniform terrain. */
                double terrain = uniform ? rounded_step[d] : astar_cost_up(step[d] * cost[b]);
                /* A reached neighbour the terrain's step alone does not improve needs no
                 * penalties (they only raise the step; closed ones among them): the dearest
                 * part of this loop. Asked this way rather than "is it closed", which is a
                 * coin toss a branch mispredicts (offer() keeps closed nodes closed). */
                if (layered && nodes[b].gen == gen && !(ga + terrain < nodes[b].g)) continue;
                double p = layered ? astar_layer_penalty(&pv, c, b) : 0.0;
                if (layered && p > 0) {
                    double t = uniform ? step[d] : astar_rounded(step[d] * cost[b]);
                    ng = ga + astar_cost_up(t + p);
                } else {
                    ng = ga + terrain;
                }
            } else {
                double t = astar_rounded(step[d] * astar_terrain_cost(c, ac + offset[d]));
                double extra = astar_step_extra(c, ac, ax, ay, ac + offset[d], ax + ASTAR_DX[d],
                                                ay + ASTAR_DY[d], c->windowed ? s->depth[a] + 1 : 0);
                if (c->aborted) return astar_done(res, expansions, ASTAR_EABORT);
                if (extra == INFINITY) continue;
                t += extra;
                int from = nodes[a].from;
                if (q->turn_penalty > 0 && from != ASTAR_FROM_START &&
                    astar_heading(c, from, ay - ASTAR_DY[from]) != astar_heading(c, d, ay))
                    t += q->turn_penalty;
                step_cost = astar_cost_up(t);
                ng = ga + step_cost;
            }
            int32_t bc = general ? ac + offset[d] : b;
            /* max_cost bounds the score: a node of the first copy may yet collect up to
             * twin_shift, so it is cut at g - twin_shift too, not at g (issue 25, attack). */
            int r = offer(c, nodes, gen, b, bc, ax, ay, ng, step_cost, a, d, c->twin_shift,
                          false, k, &pruned, step_in, general, octile);
            /* Entering an interest from the first copy: the second copy too, collecting it. */
            if (general && c->twin && !upper && r == OFFER_DONE && s->interest_gen[bc] == gen) {
                astar_touch(c, bc); /* its memo of h, which the second copy's node reads */
                double value = interest_value(c, s->interest_of[bc]);
                r = offer(c, nodes, gen, bc + c->twin, bc, ax, ay, ng + (c->twin_shift - value), step_cost,
                          a, d, c->twin_shift, true, k, &pruned, step_in, true, false);
            }
            if (r != OFFER_DONE)
                return astar_done(res, expansions, r == OFFER_ENOMEM ? ASTAR_ENOMEM : ASTAR_EABORT);
        }
    }
    if (outcome == ASTAR_UNREACHABLE && pruned) outcome = ASTAR_LIMIT;
    if (partial) {
        int32_t collected; /* none: not with interests */
        if (!store_path(c, best, &collected)) return astar_done(res, expansions, ASTAR_ENOMEM);
        res->cost = step_in ? chain_cost(c, best) : nodes[best].g;
        res->length = s->path.len;
        res->reason = outcome;
        return astar_done(res, expansions, ASTAR_PARTIAL);
    }
    return astar_done(res, expansions, outcome);
}

/* Terrain and a built-in heuristic. */
static astar_status run_plain(query_ctx *c, uint64_t budget, astar_result *res) {
    /* With landmarks the loop that calls heuristic() (it combines them with the built-in one):
     * no instantiation of its own, which would crowd the others out of inlining. */
    if (c->heuristic == ASTAR_H_OCTILE && c->uniform_cost > 0 && !c->lm.dist)
        return c->exact ? run(c, budget, res, false, false, true, true, true)
                        : run(c, budget, res, false, false, true, true, false);
    if (c->heuristic == ASTAR_H_OCTILE && !c->lm.dist)
        return run(c, budget, res, false, false, true, false, false);
    return run(c, budget, res, false, false, false, false, false);
}

/* Plus influence layers and claims, but no callbacks. */
static astar_status run_layered(query_ctx *c, uint64_t budget, astar_result *res) {
    if (c->heuristic == ASTAR_H_OCTILE && c->uniform_cost > 0 && !c->lm.dist)
        return c->exact ? run(c, budget, res, false, true, true, true, true)
                        : run(c, budget, res, false, true, true, true, false);
    if (c->heuristic == ASTAR_H_OCTILE && !c->lm.dist)
        return run(c, budget, res, false, true, true, false, false);
    return run(c, budget, res, false, true, false, false, false);
}

astar_status astar_run_general(query_ctx *c, uint64_t budget, astar_result *res) {
    return run(c, budget, res, true, false, false, false, false);
}

/*
 * Whether a query of this mode and heuristic on terrain of one cost (uniform) takes jump
 * point search, whatever its endpoints (it also needs a walkable start). Partial answers
 * would need every cell ranked, so those stay with A*; so do budgeted ones: JPS counts jump
 * points, not cells, and meets a path's costs in another order, so max_expansions or
 * max_cost would cut it elsewhere than A*, and a query's answer must not depend on which
 * engine ran it. Anything that makes a step's cost other than the cell's takes A* too.
 */
static bool jps_applies(const astar_query *q, astar_diagonal mode, astar_heuristic h, bool uniform) {
    return q->jps != ASTAR_JPS_OFF && uniform && q->weight == 1.0 && !q->partial &&
           q->max_expansions == UINT64_MAX && q->max_cost == INFINITY && !q->node_cost &&
           !q->edge_cost && !q->known && q->ntargets == 0 && !(q->noise > 0) &&
           !(q->turn_penalty > 0) && q->nlayers == 0 && !q->claims && q->ninterests == 0 &&
           ((mode == ASTAR_DIAG_NO_CORNER_CUT && h == ASTAR_H_OCTILE) ||
            (mode == ASTAR_DIAG_NEVER && h == ASTAR_H_MANHATTAN));
}

/*
 * Marks the cells of q's interests that the query can enter, each with the largest value
 * among those there (the first of equals), and sets up the second copy of the grid (search.h).
 * When the query has island labels (c->islands), an interest on another island than the
 * start's is left out: no path reaches it, and its value in twin_shift would only make the
 * search go as much further in the first copy before it takes the sink. False when a callback
 * aborted.
 */
static bool mark_interests(query_ctx *c) {
    astar_search *s = c->s;
    const astar_query *q = c->q;
    const int32_t width = c->g->width;
    const int32_t home = c->islands ? astar_islands_root(c->islands, c->start) : 0;
    c->twin = (int32_t)s->cells;
    c->twin_shift = 0.0;
    for (int32_t i = 0; i < q->ninterests; i++) {
        int32_t x = q->interests[i] % width, y = q->interests[i] / width;
        int32_t cell = astar_cell(c->stride, x, y);
        if (c->islands && astar_islands_root(c->islands, cell) != home) continue;
        if (!astar_walkable(c, cell, x, y)) {
            if (c->aborted) return false;
            continue;
        }
        double value = interest_value(c, i);
        if (s->interest_gen[cell] == s->pool.gen && !(value > interest_value(c, s->interest_of[cell])))
            continue;
        s->interest_gen[cell] = s->pool.gen;
        s->interest_of[cell] = i;
        if (value > c->twin_shift) c->twin_shift = value;
    }
    return true;
}

/* Whether q may skip dead ends: not where a path's cost depends on more than its cells and
 * steps (claim_window, turn_penalty), where the query sees other walls than the terrain's
 * (known), or where every reached cell counts (partial). docs/design/dead_ends.md. */
static bool dead_ends_apply(const astar_query *q) {
    return q->dead_ends && !q->partial && !q->known && q->claim_window < 0 && !(q->turn_penalty > 0);
}

/*
 * Points the loops at the workspace's copy of the neighbour bits, in which the moves into
 * every dead end are closed but those into the areas holding the start, the goal or targets,
 * and the interests. A blocked start keeps its neighbours' areas: it is left through them.
 */
static astar_status skip_dead_ends(query_ctx *c, int32_t start) {
    astar_search *s = c->s;
    astar_grid *g = c->g;
    const astar_query *q = c->q;
    if (!dead_ends_apply(q)) return ASTAR_OK;
    astar_dead_ends *de;
    astar_status st = astar_dead_ends_get(g, astar_dead_end_kind(c->diagonal), &de);
    if (st != ASTAR_OK) return st;
    if (de->nareas == 0) return ASTAR_OK;
    astar_dead_end_view *v = &s->dead_ends;
    if (!astar_dead_end_view_begin(v, de, &s->alloc, s->cells)) return ASTAR_ENOMEM;
    astar_dead_end_view_keep(v, de, g->open, start);
    if (g->cost[start] == INFINITY)
        for (int d = 0; d < 8; d++) astar_dead_end_view_keep(v, de, g->open, start + c->offset[d]);
    if (q->ntargets) {
        for (int32_t i = 0; i < q->ntargets; i++)
            astar_dead_end_view_keep(v, de, g->open, astar_cell(c->stride, q->targets[i] % g->width, q->targets[i] / g->width));
    } else {
        astar_dead_end_view_keep(v, de, g->open, c->goal);
    }
    for (int32_t i = 0; i < q->ninterests; i++)
        astar_dead_end_view_keep(v, de, g->open, astar_cell(c->stride, q->interests[i] % g->width, q->interests[i] / g->width));
    c->open = v->open;
    return ASTAR_OK;
}

/*
 * What a layered query's penalties can add along any path, from the bounds its layers and
 * claims keep on every write (layers.h): a path enters each cell at most once, and P(b) of a
 * cell is at most the sum of |weight * value| of its layers and claim_penalty times its claims.
 * Each product and sum is rounded at most 2^-53 off, and each step rounds up by less than a
 * quantum (core.h). Cheap: one term per layer. `stale`: claims the view may still count from
 * the query's start besides today's (its overlay was counted then: cost.h).
 */
static double penalty_bound(const query_ctx *c, int64_t stale) {
    const astar_query *q = c->q;
    if (!c->layered) return 0.0;
    double sum = 0.0;
    for (int i = 0; i < q->nlayers; i++) sum += fabs(q->layers[i].weight) * astar_layer_sum_bound(q->layers[i].layer);
    if (q->claims) sum += q->claim_penalty * ((double)q->claims->total + (double)stale);
    return sum * (1.0 + 0x1p-40) + (double)c->s->cells * ASTAR_QUANTUM;
}

/*
 * Whether the loop may count c's query in quanta: its sums stay below ASTAR_EXACT_BELOW and a
 * step's penalised cost below ASTAR_QUANTA_BELOW, where astar_cost_up rounds it to quanta, so
 * the integers are the doubles' sums to the bit. Sets the keys' tie bits and penalty_room, the
 * bound within which a job keeps counting so when its layers or claims change
 * (astar_search_step).
 */
static bool exact_room(query_ctx *c) {
    const astar_grid *g = c->g;
    double diag = astar_step_cost(c->uniform_cost, 4), extra = penalty_bound(c, 0);
    c->claims_seen = c->q->claims && c->pv.claim.overlay ? c->q->claims->total : 0;
    if (!(diag + extra < ASTAR_QUANTA_BELOW) || !astar_exact_keys(g, diag, extra, &c->tie_bits)) return false;
    double room = ldexp(1.0, 31 - c->tie_bits);
    if (room > ASTAR_EXACT_BELOW) room = ASTAR_EXACT_BELOW;
    room -= ((double)g->width * g->height + g->width + g->height) * diag;
    c->penalty_room = ASTAR_QUANTA_BELOW - diag < room ? ASTAR_QUANTA_BELOW - diag : room;
    /* The test astar_search_step makes between slices, so that a search counted in quanta is
     * not outgrown at its first step with nothing changed: under max_cost that started it over
     * at every step, for ever (the claims its overlay saw count twice there; fuzz_core). */
    return penalty_bound(c, c->claims_seen) < c->penalty_room;
}

/*
 * Sets up the search of q on s up to its first push. Returns ASTAR_RUNNING when
 * there is a search to run, else its final status (found at once, unreachable at
 * once, or an error).
 */
static astar_status start_search(astar_search *s, astar_grid *g, const astar_query *q,
                                 bool jps_ok, const uint16_t *corridor, uint16_t corridor_gen,
                                 astar_result *res) {
    astar_result_init(res);
    res->scored = q->ninterests > 0;
    s->path.len = 0;
    query_ctx *c = &s->job; /* the live search's context, set up where it will stay */
    bool callbacks;
    astar_status st = astar_query_begin(c, s, g, q, corridor != NULL, &callbacks);
    if (st != ASTAR_OK) return st;
    c->corridor = corridor;
    c->corridor_gen = corridor_gen;
    c->callbacks = callbacks;
    c->layered = q->nlayers > 0 || q->claims;
    /* Counting in quanta (run's `exact`): for uniform terrain under the octile bound alone (with
     * landmarks run_plain takes another loop; jobs.c reads this flag as the loop's), with or
     * without layers and claims (no callbacks), while sums stay exact (exact_room). */
    c->exact = !callbacks && c->heuristic == ASTAR_H_OCTILE && c->uniform_cost > 0 && !c->lm.dist &&
               q->weight == 1.0 && !q->partial && exact_room(c);

    int32_t start = astar_cell(g->stride, q->sx, q->sy);
    c->start = start;
    c->best = start;
    c->best_h = INFINITY;
    c->ntargets = q->ntargets;
    c->target_h = q->ntargets <= ASTAR_HEURISTIC_TARGETS && !c->aim_goal;
    /* Mark the walkable targets; of duplicates the first names the cell, or with target costs the
     * cheapest. */
    if (q->ntargets) {
        c->goal_open = false;
        for (int32_t i = q->ntargets - 1; i >= 0; i--) {
            int32_t x = q->targets[i] % g->width, y = q->targets[i] / g->width;
            int32_t cell = astar_cell(g->stride, x, y);
            if (c->target_h) {
                c->target_xy[2 * i] = x;
                c->target_xy[2 * i + 1] = y;
            }
            if (!astar_walkable(c, cell, x, y)) continue;
            if (q->target_costs && s->target_gen[cell] == s->pool.gen &&
                q->target_costs[s->target_of[cell]] < q->target_costs[i])
                continue;
            s->target_gen[cell] = s->pool.gen;
            s->target_of[cell] = i;
            c->goal_open = true;
        }
    } else {
        c->goal_open = astar_walkable(c, c->goal, q->gx, q->gy);
    }
    if (c->aborted) return ASTAR_EABORT;
    if (!c->goal_open && !q->partial) return ASTAR_UNREACHABLE;

    /* Another island: no search. (The labels' only lazy writes, with the jump tables below;
     * astar_find_prepare makes them ahead for the threads of astar_find_many.) */
    /* (Not with fog of war: the unknown cells the labels count as blocked may be open.) */
    if (!q->partial && !q->known && g->cost[start] != INFINITY && (q->ntargets || start != c->goal)) {
        st = astar_islands_get(g, astar_island_kind(c->diagonal), &c->islands);
        if (st != ASTAR_OK) return st;
        bool same = false;
        int32_t home = astar_islands_root(c->islands, start);
        if (q->ntargets) {
            for (int32_t i = 0; i < q->ntargets && !same; i++) {
                int32_t cell = astar_cell(g->stride, q->targets[i] % g->width, q->targets[i] / g->width);
                same = s->target_gen[cell] == s->pool.gen && astar_islands_root(c->islands, cell) == home;
            }
        } else {
            same = home == astar_islands_root(c->islands, c->goal);
        }
        if (!same) return ASTAR_UNREACHABLE;
    }
    if (q->ninterests > 0 && !mark_interests(c)) return ASTAR_EABORT; /* after the labels: it reads them */
    c->sink = q->ninterests > 0 || q->target_costs;

    /* Uniform terrain and nothing on top: jump point search gives the same cost for far fewer
     * expansions (docs/performance.md), whole or in slices. A blocked start gets no island
     * check, so it stays with A*. */
    if (jps_ok && !callbacks && !c->layered && g->cost[start] != INFINITY &&
        jps_applies(q, c->diagonal, c->heuristic, c->uniform_cost > 0)) {
        astar_jumps *table = NULL; /* ASTAR_JPS_ONLINE: scan the lines */
        if (q->jps == ASTAR_JPS_AUTO) {
            st = astar_jumps_get(g, astar_jump_kind(c->diagonal), &table); /* JPS+; built on first need */
            if (st != ASTAR_OK) return st;
        }
        return astar_jps_begin(s, c->diagonal, start, c->goal, c->uniform_cost, table);
    }

    st = skip_dead_ends(c, start);
    if (st != ASTAR_OK) return st;
    if (c->sink) astar_touch(c, SINK);
    astar_touch(c, start); /* before its heuristic, which it memoises */
    double h0 = astar_heuristic_at(c, start, q->sx, q->sy);
    if (c->aborted) return ASTAR_EABORT;
    /* The start in the first copy, and in the second when it collects an interest there. */
    for (int copy = 0; copy < 2; copy++) {
        int32_t id = start;
        double g0 = 0.0;
        if (copy == 1) {
            if (!c->twin || s->interest_gen[start] != s->pool.gen) break;
            id = start + c->twin;
            g0 = c->twin_shift - interest_value(c, s->interest_of[start]);
        }
        astar_node *sn = astar_touch(c, id);
        sn->g = g0;
        sn->from = ASTAR_FROM_START;
        sn->spare = 0;
        if (c->windowed) s->depth[id] = 0;
        if (!astar_pool_open(&s->pool, &s->alloc, sn, id, g0 + c->weight * h0, h0)) return ASTAR_ENOMEM;
    }
    return ASTAR_RUNNING;
}

/* Runs the live search of s for up to `budget` expansions, charged to the calling thread's
 * progress handler. */
static astar_status continue_search(astar_search *s, uint64_t budget, astar_result *res) {
    query_ctx *c = &s->job;
    if (c->jps) return astar_jps_step(s, budget, res);
    c->meter = astar_meter_begin(astar_progress_get(), c->expansions);
    astar_status st = c->callbacks ? astar_run_general(c, budget, res)
                      : c->layered ? run_layered(c, budget, res)
                                   : run_plain(c, budget, res);
    astar_meter_sync(&c->meter, res->expansions);
    return st;
}

/* Records a step's outcome: a final one ends the search and is kept for later steps. A stop
 * (ASTAR_ESTOPPED) is final only for a search that never started. */
static astar_status settle(astar_search *s, astar_result *res, astar_status st) {
    res->status = st;
    if (res->interest < 0) res->score = res->cost;
    res->restarts = s->job_restarts;
    res->repairs = s->job_repairs;
    if (st != ASTAR_RUNNING && (st != ASTAR_ESTOPPED || !s->job_live)) {
        s->job_live = false;
        s->job_result = *res;
    }
    return st;
}

/* A new search on s; jps_ok lets a uniform query take jump point search (then its restarts may
 * too). */
static astar_status begin_search(astar_search *s, astar_grid *g, const astar_query *q, bool jps_ok,
                                 const uint16_t *corridor, uint16_t corridor_gen, astar_result *res) {
    s->job_live = false;
    s->job_field = false;
    s->job_jps_ok = jps_ok;
    s->job_restarts = 0;
    s->job_repairs = 0;
    s->job_restart_due = false;
    s->job_aim = s->aim_next;
    s->aim_next = false;
    astar_status st = start_search(s, g, q, jps_ok, corridor, corridor_gen, res);
    s->job_live = st == ASTAR_RUNNING;
    s->job_version = g->version;
    s->job_landmarks = astar_landmarks_serial(g);
    return settle(s, res, st);
}

astar_status astar_search_start(astar_search *s, astar_grid *g, const astar_query *q,
                                 astar_result *res) {
    return begin_search(s, g, q, true, NULL, 0, res); /* the engine astar_find takes */
}

astar_status astar_search_step(astar_search *s, uint64_t n, astar_result *res) {
    if (s->job_live && s->job_field) return astar_finish(res, ASTAR_EINVAL); /* a field's (field.c) */
    if (!s->job_live) { /* finished (or never started): the same answer again */
        *res = s->job_result;
        return res->status;
    }
    query_ctx *c = &s->job;
    astar_result_init(res);
    res->scored = c->q->ninterests > 0;
    /* The terrain changed under it (or the landmarks it reads): go on where the changes allow
     * (jobs.c), else start over. Its layers and claims grown past what it counts exactly in
     * quanta: on in doubles (without max_cost, whose cut records hold no g), else start over. */
    bool moved = s->job_restart_due || c->g->version != s->job_version || !astar_job_landmarks_held(s);
    bool outgrown = c->exact && c->layered && !(penalty_bound(c, c->claims_seen) < c->penalty_room);
    if (moved || outgrown) {
        uint32_t repairs = 0;
        bool go_on = !s->job_restart_due && (!moved || astar_job_follow(s, &repairs));
        if (go_on && outgrown && c->exact) {
            uint64_t work = 0;
            go_on = c->q->max_cost == INFINITY && astar_job_leave_exact(c, &work);
            (void)astar_progress_charge(astar_progress_get(), work); /* the loop's next check sees a stop */
        }
        if (go_on) {
            s->job_version = c->g->version;
            s->job_repairs += repairs;
        } else {
            /* A job that jumps follows no change (its scans read cells it never reached): it
             * starts over as JPS once (a few hundred jump points on a big map), then as A*,
             * which follows the changes after. Started over as JPS at every change anywhere, it
             * never ended under a door toggling at each of its steps. */
            if (c->jps && s->job_restarts > 0) s->job_jps_ok = false;
            s->job_restart_due = true;
            astar_status st = start_search(s, c->g, c->q, s->job_jps_ok, c->corridor, c->corridor_gen, res);
            if (st == ASTAR_ESTOPPED) return settle(s, res, st); /* still to start over: next step */
            s->job_restart_due = false;
            s->job_restarts++;
            s->job_version = c->g->version;
            s->job_landmarks = astar_landmarks_serial(c->g);
            if (st != ASTAR_RUNNING) return settle(s, res, st);
        }
    }
    return settle(s, res, continue_search(s, n, res));
}

/* A whole search: begun, then stepped to its end (a stop ends it too: q may be gone after). */
static astar_status whole_search(astar_search *s, astar_grid *g, const astar_query *q, bool jps_ok,
                                 const uint16_t *corridor, uint16_t gen, astar_result *res) {
    astar_status st = begin_search(s, g, q, jps_ok, corridor, gen, res);
    if (st != ASTAR_RUNNING) return st;
    st = astar_search_step(s, UINT64_MAX, res);
    if (st == ASTAR_ESTOPPED) {
        s->job_live = false;
        s->job_result = *res;
    }
    return st;
}

astar_status astar_find(astar_search *s, astar_grid *g, const astar_query *q, astar_result *res) {
    return whole_search(s, g, q, true, NULL, 0, res);
}

astar_status astar_find_within(astar_search *s, astar_grid *g, const astar_query *q,
                               const uint16_t *corridor, uint16_t gen, astar_result *res) {
    return whole_search(s, g, q, false, corridor, gen, res);
}

astar_status astar_find_prepare(astar_grid *g, const astar_query *q) {
    double lo, hi;
    astar_status st = astar_grid_cost_range(g, &lo, &hi);
    if (st != ASTAR_OK || q->partial || q->known) return st; /* astar_find leaves the labels alone then */
    astar_diagonal mode = q->diagonal == ASTAR_DIAG_DEFAULT ? g->diagonal : q->diagonal;
    astar_islands *is;
    if ((st = astar_islands_get(g, astar_island_kind(mode), &is)) != ASTAR_OK) return st;
    astar_dead_ends *de;
    if (dead_ends_apply(q) && (st = astar_dead_ends_get(g, astar_dead_end_kind(mode), &de)) != ASTAR_OK)
        return st;
    astar_heuristic h = q->heuristic != ASTAR_H_DEFAULT ? q->heuristic
                        : mode == ASTAR_DIAG_NEVER    ? ASTAR_H_MANHATTAN
                                                      : ASTAR_H_OCTILE; /* as astar_query_begin */
    astar_jumps *table;
    if (q->jps == ASTAR_JPS_AUTO && jps_applies(q, mode, h, lo == hi && isfinite(lo)))
        return astar_jumps_get(g, astar_jump_kind(mode), &table);
    return ASTAR_OK;
}

