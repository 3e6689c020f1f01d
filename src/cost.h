/*
 * The parts of the step cost every search shares (cost.c), in the spirit of
 * Detour's dtQueryFilter: what a cost callback's answer means, how a query
 * counts other units' claims, and the checks of the numbers a query sums. The
 * step cost itself is `L * cost(b) + max(0, P(b) + X(a, b))` (astar.h); grids
 * compose it in grid_cost.c, graphs in graph_search.c.
 */
#ifndef ASTAR_COST_H
#define ASTAR_COST_H

#include "core.h"
#include "layers.h"

/*
 * A node_cost or edge_cost callback's answer: the cost it adds, INFINITY when
 * it blocks the node or step, and INFINITY with *aborted set when it failed
 * or gave a value out of range (the query then ends with ASTAR_EABORT).
 */
static inline double astar_callback_cost(int r, double extra, bool *aborted) {
    if (r == ASTAR_CB_BLOCK || (r == ASTAR_CB_PASS && extra == INFINITY)) return INFINITY;
    if (r != ASTAR_CB_PASS || !(extra >= 0 && extra <= ASTAR_MAX_VALUE)) {
        *aborted = true;
        return INFINITY;
    }
    return extra;
}

/* A custom heuristic's answer, or -1 with *aborted set when it is out of range. */
static inline double astar_callback_h(double h, bool *aborted) {
    if (h >= 0 && h <= ASTAR_MAX_VALUE) return h;
    *aborted = true;
    return -1.0;
}

/*
 * The claims one query sees: every unit's counts, except where the query's
 * own unit (or, with a radius, the units near the start) makes them differ.
 * Indexed by a grid's cell or a graph's node id.
 */
typedef struct astar_claim_view {
    const int32_t *count;    /* claims->count, shifted to index 0 */
    double penalty;          /* per claiming unit */
    bool overlay;            /* this query counts fewer: claimed[] where claim_gen == gen, */
    bool only_overlay;       /* and elsewhere count[] or, with a radius, nothing */
    int32_t *claimed;
    uint16_t *claim_gen;
    uint16_t gen;
} astar_claim_view;

/* Units the view counts on index i. */
static inline int32_t astar_claim_view_count(const astar_claim_view *v, int32_t i) {
    int32_t n = v->count[i]; /* 0 on most cells, and then the query's count is 0 too */
    if (n != 0 && v->overlay) n = v->claim_gen[i] == v->gen ? v->claimed[i] : v->only_overlay ? 0 : n;
    return n;
}

/*
 * Sets v up for a query of `unit` (-1: none). Indexes are claims cells less
 * `base`, those at or past `limit` left out. With a radius (near not NULL),
 * only the claims of other units that stand where near(ud, index) says count;
 * otherwise every unit's but the query's own unit's. claimed and claim_gen
 * are the workspace's per-index arrays, gen its stamp. With a radius it reads every unit's
 * claim, a unit of p's per cell: false when p said stop (v is then unusable).
 */
bool astar_claim_view_init(astar_claim_view *v, const astar_claims *cl, int32_t base, int32_t limit,
                           int32_t unit, bool (*near)(const void *ud, int32_t index), const void *ud,
                           int32_t *claimed, uint16_t *claim_gen, uint16_t gen, double penalty,
                           astar_progress *p);

/* The checks of the numbers every query sums (grids and graphs alike). */
bool astar_costs_ok(double weight, double max_cost, double noise, double claim_penalty);

#endif
