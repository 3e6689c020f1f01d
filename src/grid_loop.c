/*
 * The grid as the search loop's space (loop.h): cells and their moves, the step costs of a
 * query, a direction per node for the way back. Instantiated for plain terrain, for layers
 * and claims (layered), in quanta (exact), for units bigger than one cell (sized), and for
 * everything else (general); search.c runs them whole or in slices.
 */
#include "loop.h"
#include "search.h"

#include <string.h>

static const double STEP[8] = {1.0, 1.0, 1.0, 1.0, ASTAR_SQRT2, ASTAR_SQRT2, ASTAR_SQRT2, ASTAR_SQRT2};

/* What the loop keeps in locals for the grid: through c the compiler would reload them after
 * every store to a node record. */
typedef struct grid_frame {
    query_ctx *c;
    const double *cost;
    const uint8_t *open;
    const uint8_t *copied;    /* on the dead-end view, whose pages are copied as the search
                                 first reads them; else NULL */
    const uint8_t *legal;
    int32_t stride, goal, gx, gy;
    bool goal_open;
    uint64_t row_magic;
    int row_shift;
    int32_t offset[8];        /* stores to the node records cannot alias a local copy */
    const double *factor;     /* the classed loop: the query's 256 factors, */
    const uint8_t *cls;       /* the grid's classes, */
    bool walls;               /* and whether some factor is INFINITY (a class it walls); */
    const uint8_t *clearance; /* the loop for bigger units: the clearance table and */
    int32_t size;             /* the unit's side */
    const double (*class_step)[2]; /* on terrain of one cost, each class's rounded step
                                      (straight, diagonal): one load per neighbour; else NULL */
    const int64_t (*class_quanta)[2]; /* the same in quanta (the classed loop in quanta) */
    /* A step's length, or with uniform terrain its cost before the penalties, and that cost
     * rounded (core.h): one load where the table needs an address computed. */
    double step[8], rounded_step[8];
    double h_card, h_diag, max_cost;
    bool turning;             /* turn_penalty > 0 */
    double turn_penalty;
    int tie_bits;
    int64_t step_quanta[8], card_quanta, diag_quanta, max_quanta;
    penalty_view pv;
    /* What the loop in quanta tests before it sums penalties. */
    const double *layer0;
    const int32_t *claimed;
    bool layers_many;
    double least_step[8];     /* the loop for bigger units: a step onto the cheapest terrain */
} grid_frame;

/* The node a path reached id from: one step back, into the first copy if it crossed there;
 * -1 at a start. */
static ALWAYS_INLINE int32_t grid_prev(const void *ctx, const astar_node *nodes, int32_t id) {
    const query_ctx *c = ((const grid_frame *)ctx)->c;
    if (nodes[id].from == ASTAR_FROM_START) return -1;
    int32_t p = id - c->offset[nodes[id].from];
    return c->twin && id >= c->twin && nodes[id].spare ? p - c->twin : p;
}

static ALWAYS_INLINE bool grid_crossed(const void *ctx, const astar_node *nodes, int32_t id) {
    (void)ctx;
    return nodes[id].spare || nodes[id].from == ASTAR_FROM_START;
}

/* A cell's id (y * width + x). */
static ALWAYS_INLINE int32_t grid_id_of(const void *ctx, int32_t cell) {
    const query_ctx *c = ((const grid_frame *)ctx)->c;
    int32_t y = astar_row_of(c, cell);
    return (y - 1) * c->g->width + (cell - y * c->stride - 1);
}

static ALWAYS_INLINE bool grid_arrived(const void *ctx, int32_t cell) {
    const grid_frame *f = ctx;
    return cell == f->goal && f->goal_open; /* a blocked goal is only expanded as the start */
}

/* With targets: any walkable one (marked by the query's start). */
static ALWAYS_INLINE bool grid_arrived_general(const void *ctx, int32_t cell) {
    const grid_frame *f = ctx;
    const query_ctx *c = f->c;
    return c->ntargets ? c->s->target_gen[cell] == c->s->pool.gen : grid_arrived(ctx, cell);
}

/* The cost still to come at the sink: the target's, plus twin_shift from the first copy. */
static ALWAYS_INLINE double grid_sink_g(const void *ctx, int32_t cell, bool upper, double ga) {
    const query_ctx *c = ((const grid_frame *)ctx)->c;
    double to_sink = upper ? 0.0 : c->twin_shift;
    if (c->q->target_costs) to_sink += c->q->target_costs[c->s->target_of[cell]];
    return ga + to_sink;
}

/* A partial search's rank of a cell: the query's heuristic, or with none the distance its
 * moves allow. */
static ALWAYS_INLINE double grid_rank(void *ctx, int32_t id, int32_t cell) {
    query_ctx *c = ((grid_frame *)ctx)->c;
    if (c->heuristic == ASTAR_H_CUSTOM) return c->s->custom_h[id];
    int32_t row = astar_row_of(c, cell), ax = cell - row * c->stride - 1, ay = row - 1;
    astar_heuristic rank = c->heuristic != ASTAR_H_ZERO ? c->heuristic
                           : c->diagonal == ASTAR_DIAG_HEX ? ASTAR_H_HEX
                           : c->diagonal != ASTAR_DIAG_NEVER ? ASTAR_H_OCTILE : ASTAR_H_MANHATTAN;
    return c->ntargets ? astar_target_distance(c, rank, ax, ay) : astar_h_between(c, rank, ax, ay, c->gx, c->gy);
}

/*
 * Offers node id (cell `cell`, in either copy) the way in from a (at ax, ay) by step d at g = ng,
 * the step costing `step` (kept in step_in). max_cost bounds the score: a node of the first
 * copy may yet collect up to twin_shift, so both copies are cut at g - twin_shift; crossed: the
 * step entered the second copy from the first. A closed node can improve only under a custom
 * (maybe inconsistent) heuristic, which takes the general loop, or in a job repaired after a
 * cell got cheaper (jobs.c): both set reopen. A weighted search stays within its bound without
 * reopening.
 */
static ALWAYS_INLINE int offer(const grid_frame *f, astar_loop *L, astar_node *nodes, uint16_t gen, int32_t id,
                               int32_t cell, int32_t ax, int32_t ay, double ng, double step, int32_t a, int d,
                               bool crossed, bool *pruned, const bool general, const bool octile) {
    query_ctx *c = f->c;
    astar_pool *pool = L->pool;
    astar_node *n = astar_loop_improves(pool, nodes, gen, id, ng, general ? ng - L->twin_shift : ng, f->max_cost,
                                        pruned, L->reopen, c->memo_penalty, c->memo_h, general);
    if (!n) return ASTAR_OFFER_DONE;
    int32_t x = ax + ASTAR_DX[d], y = ay + ASTAR_DY[d];
    double h = octile ? astar_octile_h(x - f->gx, y - f->gy, f->h_card, f->h_diag)
                      : astar_heuristic_at(c, cell, x, y);
    if (general && c->aborted) return ASTAR_OFFER_EABORT;
    n->from = (uint8_t)d;
    if (general && L->twin) n->spare = crossed;
    if (general && L->step_in) L->step_in[id] = step;
    if (general && c->windowed) c->s->depth[id] = c->s->depth[a] + 1;
    return astar_loop_take(pool, L->alloc, n, id, ng, h, L->weight) ? ASTAR_OFFER_DONE : ASTAR_OFFER_ENOMEM;
}

/*
 * The moves out of cell ac (node a, g ga, or ga_quanta in quanta). The flags are constants at
 * every instantiation, so the compiler makes a loop of each combination used: plain terrain
 * and a built-in heuristic (no penalty array, no callbacks, no per-neighbour walkability test
 * beyond a byte of legal moves; with octile and uniform costs, no cost array either), plus
 * layers and claims (`layered`), and the general one. `exact` (plain, octile,
 * uniform, not partial, costs bounded below ASTAR_EXACT_BELOW: see search.c's exact_room)
 * counts g, h and f in quanta as 64-bit integers: the same numbers (every sum is exact there)
 * and the same keys, so the same expansions and answer, but integer additions and comparisons
 * where doubles would make longer chains of dependent instructions per neighbour. `classed`
 * reads each neighbour's class byte for its step (class_step, or in quanta class_quanta: terrain
 * of one cost); counting in quanta there keeps the pool's keys (astar_pool_key_quanta), whose
 * ties the loop in doubles orders alike, and took lak303d's classed queries from 533 to 488
 * instructions per expansion (plain: 432). `sized` (a unit of size n > 1, without fog or
 * classes: query.c) takes its moves from the clearance table (8 reads: the neighbours the unit
 * fits on, the grid's corner rule then applied to the side anchors, as the general loop's
 * astar_query_moves does) and a step's terrain from the 2n - 1 cells its footprint newly
 * covers (astar_footprint_dearest; none on uniform terrain, whose walkable cells all cost the
 * same): the general loop's sums and keys, so its expansions and paths (spec 73), at 495
 * (size 2) and 469 (size 3) instructions per expansion on lak303d where it took 1,813 and
 * 1,946.
 */
static ALWAYS_INLINE int grid_expand(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned,
                                     int32_t a, int32_t ac, bool upper, double ga, int64_t ga_quanta,
                                     const bool general, const bool layered, const bool octile, const bool uniform,
                                     const bool exact, const bool classed, const bool sized) {
    const grid_frame *f = ctx;
    query_ctx *c = f->c;
    astar_search *s = c->s;
    astar_pool *pool = L->pool;
    const double *cost = f->cost;
    int32_t row = (int32_t)(((uint64_t)(uint32_t)ac * f->row_magic) >> f->row_shift); /* row_of */
    int32_t ax = ac - row * f->stride - 1, ay = row - 1;
    if (!general && f->copied && !f->copied[a >> ASTAR_VIEW_PAGE_SHIFT]) astar_dead_end_view_copy(&s->dead_ends, a);
    unsigned moves;
    if (classed && f->walls) { /* the neighbours whose class the query walls are walls too */
        unsigned open = f->open[a];
        for (unsigned m = open; m; m &= m - 1) {
            int d = astar_lowest_bit(m);
            if (f->factor[f->cls[a + f->offset[d]]] == INFINITY) open &= ~(1u << d);
        }
        moves = f->legal[open];
    } else if (sized) { /* the neighbours the unit fits on, the corner rule on the side anchors */
        moves = f->legal[astar_fits_bits(f->clearance, f->offset, a, f->size)];
    } else {
        moves = general ? astar_query_moves(c, ac, ax, ay) : f->legal[f->open[a]];
    }
    if (general && c->aborted) return ASTAR_OFFER_EABORT;
    /* The way back leads to a closed node (none at the start), unless the step in crossed
     * into the second copy: back is then a node of the second copy, maybe not reached. */
    if (!upper || !nodes[a].spare) moves &= ~(1u << (nodes[a].from ^ 2));
    for (; moves; moves &= moves - 1) {
        int d = astar_lowest_bit(moves);
        int32_t b = a + f->offset[d];
        if (exact) { /* the steps below, in quanta */
            int64_t ng = ga_quanta + (classed ? f->class_quanta[f->cls[b]][d >> 2] : f->step_quanta[d]);
            astar_node *n = &nodes[b];
            if (layered) { /* as below, the same sum in doubles, then exact in quanta */
                /* A penalty only raises the step: a reached neighbour the terrain's step
                 * does not improve needs none (closed ones among them). Asked this way
                 * rather than "is it closed", which is a coin toss a branch mispredicts. */
                if (n->gen == gen && !(ng < n->quanta)) continue;
                /* Most cells hold neither a layer's value nor claims: a term of +0 or -0 leaves
                 * the sum as astar_layer_penalty makes it (it starts at +0), so the loop
                 * skips the arithmetic where both are 0. */
                if (f->layers_many || (f->layer0 && astar_holds_value(f->layer0[b])) ||
                    (f->claimed && f->claimed[b] != 0)) {
                    double p = astar_layer_penalty(&f->pv, c, b);
                    if (p > 0) ng = ga_quanta + (int64_t)(astar_step_of(f->step[d], 1.0, true, p, false, 0.0) * (1.0 / ASTAR_QUANTUM));
                }
            }
            if (n->gen != gen) {
                n->gen = gen;
                n->heap = ASTAR_NOT_OPEN;
                if (ng > f->max_quanta) {
                    n->quanta = INT64_MAX;
                    *pruned = true;
                    continue;
                }
            } else if (ng < n->quanta) {
                if (ng > f->max_quanta) {
                    *pruned = true;
                    continue;
                }
                if (n->heap >= 0) { /* h is the same: f drops as g does */
                    uint64_t key = pool->heap.items[n->heap].key -
                                   ((uint64_t)(n->quanta - ng) << (classed ? pool->tie_bits : f->tie_bits));
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
            int64_t h = astar_octile_quanta(ax + ASTAR_DX[d] - f->gx, ay + ASTAR_DY[d] - f->gy, f->card_quanta,
                                            f->diag_quanta);
            n->quanta = ng;
            n->from = (uint8_t)d;
            /* With classes, the pool's keys (their tie bits give way as f grows), which order
             * ties as the classed loop in doubles did: the same paths as before it counted in
             * quanta. */
            uint64_t key = classed ? astar_pool_key_quanta(pool, ng + h, h) : astar_heap_key_fine(ng + h, h, f->tie_bits);
            if (!astar_pool_push_key(pool, L->alloc, b, key)) return ASTAR_OFFER_ENOMEM;
            continue;
        }
        /* The step's cost (astar_grid_step), rounded up once (core.h), so that sums are exact. */
        double ng, step_cost = 0.0; /* step_cost: for step_in, which only the general loop keeps */
        if (!general) {
            /* A bigger unit's step reads 2n - 1 costs: not for a reached neighbour that even a
             * step onto the cheapest terrain would not improve (as offer would find; closed
             * ones among them), the most of them. */
            if (sized && !uniform && nodes[b].gen == gen && !(ga + f->least_step[d] < nodes[b].g)) continue;
            /* Without penalties here (most cells of a layer), the terrain's step
             * alone, rounded once per query on uniform terrain. */
            /* With classes, the terrain as astar_terrain_cost makes it: cost times its factor. */
            double terrain = uniform                      ? f->rounded_step[d]
                             : classed && f->class_step ? f->class_step[f->cls[b]][d >> 2]
                             : astar_step_of(f->step[d],
                                             classed ? astar_rounded(cost[b] * f->factor[f->cls[b]])
                                             : sized ? astar_footprint_dearest(cost, f->stride, f->size, b, d)
                                                     : cost[b],
                                             false, 0.0, false, 0.0);
            /* A reached neighbour the terrain's step alone does not improve needs no
             * penalties (they only raise the step; closed ones among them): the dearest
             * part of this loop. Asked this way rather than "is it closed", which is a
             * coin toss a branch mispredicts (offer keeps closed nodes closed). */
            if (layered && nodes[b].gen == gen && !(ga + terrain < nodes[b].g)) continue;
            double p = layered ? astar_layer_penalty(&f->pv, c, b) : 0.0;
            if (layered && p > 0) /* on uniform terrain step[d] is the terrain's part already */
                ng = ga + astar_step_of(f->step[d],
                                        uniform ? 1.0
                                        : sized ? astar_footprint_dearest(cost, f->stride, f->size, b, d)
                                                : cost[b],
                                        true, p, false, 0.0);
            else
                ng = ga + terrain;
        } else {
            int32_t bc = ac + f->offset[d];
            double extra = astar_step_extra(c, ac, ax, ay, bc, ax + ASTAR_DX[d], ay + ASTAR_DY[d],
                                            c->windowed ? s->depth[a] + 1 : 0);
            if (c->aborted) return ASTAR_OFFER_EABORT;
            if (extra == INFINITY) continue;
            /* astar_grid_step, with the step's length and the turn penalty in locals */
            bool turns = f->turning && astar_turns(c, nodes[a].from, ay, d);
            step_cost = astar_step_of(f->step[d], astar_entered_cost(c, bc, d), true, extra, turns, f->turn_penalty);
            ng = ga + step_cost;
        }
        int32_t bc = general ? ac + f->offset[d] : b;
        int r = offer(f, L, nodes, gen, b, bc, ax, ay, ng, step_cost, a, d, false, pruned, general, octile);
        /* Entering an interest from the first copy: the second copy too, collecting it. */
        if (general && L->twin && !upper && r == ASTAR_OFFER_DONE && s->interest_gen[bc] == gen) {
            astar_touch(c, bc); /* its memo of h, which the second copy's node reads */
            double value = astar_loop_value(L, s->interest_of[bc]);
            r = offer(f, L, nodes, gen, bc + L->twin, bc, ax, ay, ng + (L->twin_shift - value), step_cost, a, d,
                      true, pruned, true, false);
        }
        if (r != ASTAR_OFFER_DONE) return r;
    }
    return ASTAR_OFFER_DONE;
}

/* One space per combination of grid_expand's flags (its comment says which run where). */
#define GRID_SPACE(name, general, layered, octile, uniform, exact, classed, sized)                           \
    static int name##_expand(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned,      \
                             int32_t a, int32_t ac, bool upper, double ga, int64_t ga_quanta) {            \
        return grid_expand(ctx, L, nodes, gen, pruned, a, ac, upper, ga, ga_quanta, general, layered,      \
                           octile, uniform, exact, classed, sized);                                        \
    }                                                                                                      \
    static const astar_space name = {general, exact, grid_prev, grid_crossed, grid_id_of,                 \
                                     general ? grid_arrived_general : grid_arrived, grid_sink_g, grid_rank, \
                                     name##_expand}

GRID_SPACE(PLAIN_EXACT, false, false, true, true, true, false, false);
GRID_SPACE(PLAIN_UNIFORM, false, false, true, true, false, false, false);
GRID_SPACE(PLAIN_OCTILE, false, false, true, false, false, false, false);
GRID_SPACE(PLAIN, false, false, false, false, false, false, false);
GRID_SPACE(PLAIN_CLASSED, false, false, true, false, false, true, false);
GRID_SPACE(CLASSED_EXACT, false, false, true, false, true, true, false);
GRID_SPACE(LAYERED_EXACT, false, true, true, true, true, false, false);
GRID_SPACE(LAYERED_UNIFORM, false, true, true, true, false, false, false);
GRID_SPACE(LAYERED_OCTILE, false, true, true, false, false, false, false);
GRID_SPACE(LAYERED, false, true, false, false, false, false, false);
GRID_SPACE(GENERAL, true, false, false, false, false, false, false);
GRID_SPACE(SIZED_EXACT, false, false, true, true, true, false, true);
GRID_SPACE(SIZED_OCTILE, false, false, true, false, false, false, true);
GRID_SPACE(SIZED, false, false, false, false, false, false, true);
GRID_SPACE(LAYERED_SIZED_EXACT, false, true, true, true, true, false, true);
GRID_SPACE(LAYERED_SIZED, false, true, false, false, false, false, true);

/* Runs c's search in space sp for up to `budget` expansions: the frame and the loop's state
 * set up from c, and where it stands kept in c for the next slice. */
static ALWAYS_INLINE astar_status run(query_ctx *c, uint64_t budget, astar_result *res, const astar_space *sp,
                                      const bool uniform, const bool exact) {
    astar_search *s = c->s;
    const astar_query *q = c->q;
    grid_frame f;
    f.c = c;
    f.cost = c->cost;
    f.open = c->open;
    f.copied = c->open != c->g->open ? s->dead_ends.copied : NULL;
    f.legal = c->g->legal[c->diagonal];
    f.stride = c->stride;
    f.goal = c->goal;
    f.gx = c->gx;
    f.gy = c->gy;
    f.goal_open = c->goal_open;
    f.row_magic = c->row_magic;
    f.row_shift = c->row_shift;
    memcpy(f.offset, c->offset, sizeof f.offset);
    f.clearance = c->clearance;
    f.size = c->size;
    f.factor = c->class_factor;
    f.cls = c->cls;
    f.walls = c->class_walls;
    f.class_step = c->class_steps ? (const double (*)[2])s->class_step : NULL;
    f.class_quanta = (const int64_t (*)[2])s->class_quanta;
    for (int d = 0; d < 8; d++) {
        f.step[d] = c->diagonal == ASTAR_DIAG_HEX ? 1.0 : STEP[d];
        if (uniform) f.step[d] = astar_rounded(f.step[d] * c->uniform_cost);
        f.rounded_step[d] = uniform ? astar_step_cost(c->uniform_cost, d) : 0.0;
        f.least_step[d] = astar_step_cost(c->h_scale, d); /* h_scale: the least walkable cost */
    }
    f.h_card = c->h_card;
    f.h_diag = c->h_diag;
    f.max_cost = q->max_cost;
    f.turning = q->turn_penalty > 0;
    f.turn_penalty = q->turn_penalty;
    f.tie_bits = c->tie_bits;
    f.card_quanta = f.diag_quanta = 0;
    f.max_quanta = INT64_MAX;
    if (exact) {
        for (int d = 0; d < 8; d++) f.step_quanta[d] = (int64_t)(f.rounded_step[d] * (1.0 / ASTAR_QUANTUM));
        f.card_quanta = (int64_t)(f.h_card * (1.0 / ASTAR_QUANTUM));
        f.diag_quanta = (int64_t)(f.h_diag * (1.0 / ASTAR_QUANTUM));
        /* ng > max_cost is ng_quanta > floor(max_cost in quanta): ng_quanta is whole */
        if (q->max_cost < ASTAR_EXACT_BELOW) f.max_quanta = (int64_t)(q->max_cost * (1.0 / ASTAR_QUANTUM));
    }
    f.pv = c->pv;
    f.layer0 = f.pv.nlayers > 0 ? f.pv.value0 : NULL;
    f.claimed = f.pv.claims ? f.pv.claim.count : NULL;
    f.layers_many = f.pv.nlayers > 1;
    astar_loop L = {&s->pool, &s->alloc, &s->path, sp->general && c->steps_kept ? s->step_in : NULL,
                    sp->general && c->ntargets ? s->target_of : NULL, s->interest_of, q->interest_values,
                    c->twin, c->twin_shift, c->sink, ASTAR_GRID_SINK, q->partial != 0, c->reopen, q->max_cost, c->weight,
                    q->max_expansions, &c->meter, c->expansions, c->pruned, c->best, c->sink_from, c->best_h,
                    c->best_g};
    astar_status st = astar_loop_run(sp, &f, &L, budget, res);
    c->expansions = L.expansions;
    c->pruned = L.pruned;
    c->best = L.best;
    c->sink_from = L.sink_from;
    c->best_h = L.best_h;
    c->best_g = L.best_g;
    return st;
}

/* Terrain and a built-in heuristic (with classes: octile, on a classed grid, in the classed
 * loop, whose neighbours read a class byte and a factor each). With landmarks the loop that
 * calls heuristic() (it combines them with the built-in one): no instantiation of its own,
 * which would crowd the others out of inlining. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static astar_status run_classed(query_ctx *c, uint64_t budget, astar_result *res) {
    /* in quanta (search.c) on terrain of one cost, whose class steps query.c composed */
    return c->exact ? run(c, budget, res, &CLASSED_EXACT, false, true) : run(c, budget, res, &PLAIN_CLASSED, false, false);
}

/* A unit bigger than one cell (query.c sends it here without fog, classes or callbacks): its
 * moves from the clearance table, its steps from the cells it enters (uniform terrain: none
 * read). Layered or not: one function, for the reason run_classed is one. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static astar_status run_sized(query_ctx *c, uint64_t budget, astar_result *res) {
    if (c->layered) {
        if (c->exact) return run(c, budget, res, &LAYERED_SIZED_EXACT, true, true); /* search.c: uniform, octile */
        return run(c, budget, res, &LAYERED_SIZED, false, false);
    }
    if (c->exact) return run(c, budget, res, &SIZED_EXACT, true, true);
    if (c->heuristic == ASTAR_H_OCTILE) return run(c, budget, res, &SIZED_OCTILE, false, false);
    return run(c, budget, res, &SIZED, false, false);
}

astar_status astar_run_plain(query_ctx *c, uint64_t budget, astar_result *res) {
    /* (A function of its own: inlined here, its loop cost the plain loops 15 instructions per
     * expansion on lak303d, by crowding them out of inlining.) */
    if (c->size > 1) return run_sized(c, budget, res);
    if (c->class_factor) return run_classed(c, budget, res); /* query.c: octile */
    if (c->heuristic == ASTAR_H_OCTILE && c->uniform_cost > 0 && !c->lm.dist)
        return c->exact ? run(c, budget, res, &PLAIN_EXACT, true, true)
                        : run(c, budget, res, &PLAIN_UNIFORM, true, false);
    if (c->heuristic == ASTAR_H_OCTILE && !c->lm.dist) return run(c, budget, res, &PLAIN_OCTILE, false, false);
    return run(c, budget, res, &PLAIN, false, false);
}

/* Plus layers and claims, but no callbacks. */
astar_status astar_run_layered(query_ctx *c, uint64_t budget, astar_result *res) {
    if (c->size > 1) return run_sized(c, budget, res);
    if (c->heuristic == ASTAR_H_OCTILE && c->uniform_cost > 0 && !c->lm.dist)
        return c->exact ? run(c, budget, res, &LAYERED_EXACT, true, true)
                        : run(c, budget, res, &LAYERED_UNIFORM, true, false);
    if (c->heuristic == ASTAR_H_OCTILE && !c->lm.dist) return run(c, budget, res, &LAYERED_OCTILE, false, false);
    return run(c, budget, res, &LAYERED, false, false);
}

astar_status astar_run_general(query_ctx *c, uint64_t budget, astar_result *res) {
    return run(c, budget, res, &GENERAL, false, false);
}
