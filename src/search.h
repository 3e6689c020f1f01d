/*
 * The grid search's own header, shared by its files: query.c sets a query up (query_ctx.h),
 * grid_cost.c composes its step costs and heuristics, grid_loop.c is the grid as the loop's
 * space (loop.h), search.c runs a search (whole or in slices), jobs.c follows terrain changes
 * under one, field.c runs the loop for distance fields, repair.c walks paths, jps.c answers
 * uniform queries. What other files use is in workspace.h.
 */
#ifndef ASTAR_SEARCH_H
#define ASTAR_SEARCH_H

#include "workspace.h"

/* ---- query.c */

/*
 * Everything a query needs before its first push: checks, the context, the
 * workspace's per-cell arrays, a fresh stamp and the claims it sees. *callbacks
 * gets whether the query must take the general loop (`general` forces it).
 */
astar_status astar_query_begin(query_ctx *c, astar_search *s, astar_grid *g, const astar_query *q,
                               bool general, bool *callbacks);
/* With classes on terrain of one cost (query.c's class_step): the dearest diagonal step onto
 * a class some cell holds now and the query lets it walk (256 reads). A job counting in quanta
 * keeps counting after class writes that leave it no dearer than its start's (quanta_diag). */
double astar_class_dearest(const query_ctx *c);

/* ---- grid_cost.c: the step cost and heuristics of a grid query */

/* The bound (astar_h_between) to the nearest target (0 when there are too many to scan: Dijkstra). */
double astar_target_distance(const query_ctx *c, astar_heuristic h, int32_t x, int32_t y);
/* A custom heuristic's value at a cell, asked once per node per query. */
double astar_custom_h(query_ctx *c, int32_t cell, int32_t x, int32_t y);
/* P(b) + node_cost(b) for a walkable cell, memoised per query; INFINITY when the query blocks it. */
double astar_node_penalty(query_ctx *c, int32_t cell, int32_t x, int32_t y);
/* The legal moves from a under this query: the corner rule sees what node_cost blocks. */
unsigned astar_query_moves(query_ctx *c, int32_t a, int32_t ax, int32_t ay);
/* The extra cost of the step a -> b beyond terrain, entering b at step `depth` of the path
 * (claim_window); INFINITY when the query blocks it. */
double astar_step_extra(query_ctx *c, int32_t a, int32_t ax, int32_t ay, int32_t b, int32_t bx,
                        int32_t by, int32_t depth);

/* ---- grid_loop.c: the grid as the loop's space (loop.h) */

/* The node of a search's sink (loop.h): a corner of the blocked border, which no search steps
 * onto. */
#define ASTAR_GRID_SINK 0

/* c's search for up to `budget` expansions more: terrain and a built-in heuristic (plain),
 * plus layers and claims (layered), or the general loop (callbacks, fog, targets,
 * noise, hexes, turns, windows; distance fields run it from their sources). */
astar_status astar_run_plain(query_ctx *c, uint64_t budget, astar_result *res);
astar_status astar_run_layered(query_ctx *c, uint64_t budget, astar_result *res);
astar_status astar_run_general(query_ctx *c, uint64_t budget, astar_result *res);

/* ---- jobs.c: a job in flight under terrain changes (docs/design/living.md) */

/*
 * Brings the live search of s (s->job) up to its grid's terrain after changes since
 * s->job_version (with classes, or its class writes since s->job_class_version, as the query
 * sees them: not both kinds at once): true when it may go on from where it stands (repaired where a change was
 * under its closed nodes; *repairs counts those), false when it must start over. Its work
 * (bounded by the changes and by what the job has expanded) is charged to the progress
 * handler.
 */
bool astar_job_follow(astar_search *s, uint32_t *repairs);
/* Whether every terrain change since s->job_version is known (no bulk write) and none is in
 * the 3x3 block of a cell the live search of s reached: then it read no step a change
 * altered (a distance field in slices goes on). Work: 9 reads per change. */
bool astar_job_changes_unread(const astar_search *s);
/* The same for the class writes since s->job_class_version (a distance field with classes).
 * Work: 9 reads per class write. */
bool astar_job_class_changes_unread(const astar_search *s);
/* Whether the landmarks a job's heuristic reads (c->lm) are still the grid's, as valid as
 * when it started (none read: true). */
bool astar_job_landmarks_held(const astar_search *s);
/* A job counting in quanta (grid_loop.c's `exact`) goes on in doubles: its records and keys rewritten
 * (work: what it reached, added to *work). False on OOM. */
bool astar_job_leave_exact(query_ctx *c, uint64_t *work);

/* ---- jps.c */

/*
 * Jump point search for a query the loop has found eligible (see astar_jps), in slices as
 * A* runs: astar_jps_begin sets up the live search of s (s->job: this query's stamp, an
 * empty open list, its context; start walkable, goal walkable; mode NO_CORNER_CUT or NEVER;
 * unit the cost of every walkable cell; no budget such as max_expansions or max_cost) and
 * pushes the start: ASTAR_RUNNING, or ASTAR_ENOMEM. table: the grid's fresh JPS+ table for
 * the mode (JPS+), or NULL to scan the lines (online). astar_jps_step then expands at most
 * `budget` jump points more (ASTAR_RUNNING), or ends: res's cost, length, expansions and the
 * path, and the status. Its state is the workspace's, so any terrain change starts it over
 * (astar_job_follow): it read lines of cells it never touched.
 */
astar_status astar_jps_begin(astar_search *s, astar_diagonal mode, int32_t start, int32_t goal, double unit,
                             const astar_jps_table *table);
astar_status astar_jps_step(astar_search *s, uint64_t budget, astar_result *res);

/* ---- inline, for the loops */

/* A cell's row: a division by the stride costs more than the rest of an expansion's
 * bookkeeping (see query.c for the multiplier). */
static inline int32_t astar_row_of(const query_ctx *c, int32_t cell) {
    return (int32_t)(((uint64_t)(uint32_t)cell * c->row_magic) >> c->row_shift);
}

/*
 * Whether a search on g whose dearest step costs `diag_step` on terrain, plus penalties that
 * add at most `extra` along any path, counts in quanta without rounding: any g is a path
 * visiting each cell at most once, any h at most the octile bound across the grid, so f stays
 * below (cells + width + height) * diag_step + extra, which must be below ASTAR_EXACT_BELOW.
 * If so, *tie_bits is what its keys keep below f
 * (astar_heap_key_fine): f < 2^e takes 32 + e bits (32 below the point), the top bit stays
 * clear (keys stay below ASTAR_HEAP_PAD, as the pool's do), and up to 29 of the rest order
 * ties, at least 10 (e <= 21).
 */
static inline bool astar_exact_keys(const astar_grid *g, double diag_step, double extra, int *tie_bits) {
    double dearest = ((double)g->width * g->height + g->width + g->height) * diag_step + extra;
    if (!(dearest < ASTAR_EXACT_BELOW)) return false;
    int e;
    frexp(dearest, &e);
    *tie_bits = 31 - e < ASTAR_TIE_BITS_MAX ? 31 - e : ASTAR_TIE_BITS_MAX;
    return true;
}

/* The octile bound (astar_h_between), for the loop that knows it is the heuristic. */
static inline double astar_octile_h(int32_t dx, int32_t dy, double card, double diag) {
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    double lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    return astar_rounded(hi * card) + astar_rounded(lo * diag);
}

/* The same in quanta, for the loops that count in them (sums exact below ASTAR_EXACT_BELOW). */
static inline int64_t astar_octile_quanta(int64_t dx, int64_t dy, int64_t card, int64_t diag) {
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    return dx < dy ? dy * card + dx * diag : dx * card + dy * diag;
}

/* Hex steps between two odd-r cells: in cube coordinates (q, r) half the sum of |dq|, |dr|
 * and |dq + dr|. */
static inline double astar_hex_distance(int32_t ax, int32_t ay, int32_t bx, int32_t by) {
    int32_t dq = (bx - (by - (by & 1)) / 2) - (ax - (ay - (ay & 1)) / 2), dr = by - ay;
    int32_t ds = dq + dr;
    return (double)(((dq < 0 ? -dq : dq) + (dr < 0 ? -dr : dr) + (ds < 0 ? -ds : ds)) / 2);
}

/*
 * A built-in heuristic's bound between two cells under this query: the distance
 * over the cheapest terrain, in rounded steps (core.h), so that it never exceeds
 * what a path costs. Octile, Manhattan, Chebyshev and hex distances are exact
 * sums of quanta; the Euclidean one is rounded down to quanta.
 */
static inline double astar_h_between(const query_ctx *c, astar_heuristic h, int32_t ax, int32_t ay,
                                      int32_t bx, int32_t by) {
    if (h == ASTAR_H_HEX) return astar_rounded(astar_hex_distance(ax, ay, bx, by) * c->h_card);
    int32_t dx = bx - ax, dy = by - ay;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    double lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    switch (h) {
    case ASTAR_H_OCTILE: return astar_rounded(hi * c->h_card) + astar_rounded(lo * c->h_diag);
    case ASTAR_H_MANHATTAN: return astar_rounded((hi + lo) * c->h_card);
    case ASTAR_H_EUCLIDEAN: return astar_cost_down(sqrt(hi * hi + lo * lo) * c->h_scale);
    case ASTAR_H_CHEBYSHEV: return astar_rounded(hi * c->h_card);
    default: return 0.0;
    }
}

/* Touches a cell for this query: stale records become "not reached yet". */
static inline astar_node *astar_touch(query_ctx *c, int32_t cell) {
    return astar_pool_touch(&c->s->pool, cell, c->memo_penalty, c->memo_h);
}

/* h of a touched cell. */
static inline double astar_heuristic_at(query_ctx *c, int32_t cell, int32_t x, int32_t y) {
    if (c->ntargets && !c->aim_goal) return astar_target_distance(c, c->heuristic, x, y);
    if (c->heuristic == ASTAR_H_CUSTOM) return astar_custom_h(c, cell, x, y);
    double h = astar_h_between(c, c->heuristic, x, y, c->gx, c->gy);
    if (c->lm.dist) {
        double alt = astar_cost_down(astar_landmarks_h(&c->lm, cell));
        if (alt > h) h = alt;
    }
    return h;
}

/* Whether v is neither +0 nor -0: one integer test on its bits. */
static ALWAYS_INLINE bool astar_holds_value(double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits << 1 != 0;
}

/*
 * P(b) of layers and claims. The loop without callbacks computes it
 * again each time: cheaper than memoising. Finite: every term is bounded
 * (ASTAR_MAX_VALUE).
 */
static ALWAYS_INLINE double astar_layer_penalty(const penalty_view *v, const query_ctx *c,
                                                int32_t cell) {
    double p = 0.0;
    if (v->nlayers > 0) {
        p += astar_rounded(v->weight0 * v->value0[cell]);
        for (int i = 1; i < v->nlayers; i++)
            p += astar_rounded(c->layer_weight[i] * c->layer_value[i][cell]);
    }
    if (v->claims) p += astar_rounded(v->claim.penalty * astar_claim_view_count(&v->claim, cell));
    return p;
}

/* The terrain as the query sees it: with a fog-of-war mask, unknown cells cost 1; with
 * classes, the cost times its class's factor, rounded (INFINITY: the class blocks). The loops
 * take it from here, so the class is read once, in one place. */
static inline double astar_terrain_cost(const query_ctx *c, int32_t cell) {
    const astar_mask *m = c->q->known;
    if (m && !m->known[cell]) return 1.0;
    if (!c->class_factor) return c->cost[cell];
    return astar_rounded(c->cost[cell] * c->class_factor[c->cls ? c->cls[cell] : 0]);
}

/* astar_entered_cost on the terrain alone (no fog, no classes: cost[] is what the query sees),
 * for a unit of side n > 1: the loop for bigger units (grid_loop.c) reads it with the cost
 * array in a local. */
static ALWAYS_INLINE double astar_footprint_dearest(const double *cost, int32_t stride, int32_t n, int32_t b,
                                                    int d) {
    int32_t dx = ASTAR_DX[d], dy = ASTAR_DY[d];
    int32_t col = b + (dx > 0 ? n - 1 : 0), row = b + (dy > 0 ? (n - 1) * stride : 0);
    double dearest = 0.0;
    if (dx)
        for (int32_t i = 0; i < n; i++)
            if (cost[col + i * stride] > dearest) dearest = cost[col + i * stride];
    if (dy)
        for (int32_t i = 0; i < n; i++)
            if (cost[row + i] > dearest) dearest = cost[row + i];
    return dearest;
}

/* Bit d: the unit of side n fits at the neighbour of anchor a in direction d, as the clearance
 * table says (the terrain's walls; docs/design/clearance.md). 8 reads. */
static ALWAYS_INLINE unsigned astar_fits_bits(const uint8_t *clearance, const int32_t offset[8], int32_t a,
                                              int32_t n) {
    unsigned bits = 0;
    for (int d = 0; d < 8; d++) bits |= (unsigned)(clearance[a + offset[d]] >= n) << d;
    return bits;
}

/*
 * The terrain a step in direction d onto anchor b costs: the cell's own for a unit of one cell;
 * for a bigger one the dearest of the cells its footprint newly covers, the column on the side
 * it moves to and the row on the side it moves to (both on a diagonal: 2 size - 1 cells).
 * docs/design/clearance.md says why the dearest of those.
 */
static inline double astar_entered_cost(const query_ctx *c, int32_t b, int d) {
    if (c->size <= 1) return astar_terrain_cost(c, b);
    if (!c->q->known && !c->class_factor) return astar_footprint_dearest(c->cost, c->stride, c->size, b, d);
    int32_t n = c->size, dx = ASTAR_DX[d], dy = ASTAR_DY[d];
    int32_t col = b + (dx > 0 ? n - 1 : 0), row = b + (dy > 0 ? (n - 1) * c->stride : 0);
    double dearest = 0.0;
    for (int32_t i = 0; i < n; i++) {
        double t = dx ? astar_terrain_cost(c, col + i * c->stride) : 0.0;
        double u = dy ? astar_terrain_cost(c, row + i) : 0.0;
        if (t > dearest) dearest = t;
        if (u > dearest) dearest = u;
    }
    return dearest;
}

/* Whether the footprint of anchor a covers cell x (one cell: a is x): a change of x is one of a. */
static inline bool astar_covers(const query_ctx *c, int32_t a, int32_t x) {
    int32_t dy = x / c->stride - a / c->stride, dx = x % c->stride - a % c->stride;
    return dx >= 0 && dy >= 0 && dx < (c->size > 1 ? c->size : 1) && dy < (c->size > 1 ? c->size : 1);
}

/*
 * Whether a unit of size > 1 fits at anchor `cell`, every cell of its footprint walkable as the
 * query sees it. The grid's clearance table says it for the terrain (the map's border included).
 * With walls of the query's own (size_walls): a class it walls, cell by cell beside the table;
 * under fog the table is not read at all (an unknown cell is open to the query, whatever its
 * terrain; the mask's border is known, so a footprint never leaves the map). n^2 reads: for a
 * start, a goal, a cell a path or a field offers; the loop's steps read 2n - 1 (terrain_bits).
 */
static inline bool astar_fits(const query_ctx *c, int32_t cell) {
    if (!c->q->known && c->clearance[cell] < c->size) return false;
    if (!c->size_walls) return true;
    for (int32_t j = 0; j < c->size; j++)
        for (int32_t i = 0; i < c->size; i++)
            if (astar_terrain_cost(c, cell + j * c->stride + i) == INFINITY) return false;
    return true;
}

/* Effective walkability of a cell: terrain as the query sees it, then what node_cost blocks. */
static inline bool astar_walkable(query_ctx *c, int32_t cell, int32_t x, int32_t y) {
    if (astar_terrain_cost(c, cell) == INFINITY) return false;
    if (c->size > 1 && !astar_fits(c, cell)) return false; /* the unit does not fit */
    if (!c->q->node_cost) return true;
    return astar_node_penalty(c, cell, x, y) != INFINITY;
}

/*
 * What a step's direction is for turn_penalty. On squares, the move itself; on
 * hexes a move's square direction depends on the row it leaves (see
 * astar_hex_moves), so the direction is its step in cube coordinates (dq, dr).
 */
static inline int astar_heading(const query_ctx *c, int d, int32_t y) {
    if (c->diagonal != ASTAR_DIAG_HEX) return d;
    int dr = ASTAR_DY[d], dq = ASTAR_DX[d];
    if (dr < 0 && !(y & 1)) dq++;
    if (dr > 0 && (y & 1)) dq--;
    return (dq + 1) * 3 + (dr + 1);
}

/* Whether the step d from a cell of row y turns after the step `prev` into it (a direction, or
 * none: the path starts there); turn_penalty, when above 0, is added then. */
static inline bool astar_turns(const query_ctx *c, int prev, int32_t y, int d) {
    return (unsigned)prev < 8 && astar_heading(c, prev, y - ASTAR_DY[prev]) != astar_heading(c, d, y);
}

/* A grid step's cost (astar_step_of): direction d onto cell b, whose terrain the query sees
 * (astar_terrain_cost), plus `extra` (astar_step_extra), plus the turn penalty when it turns
 * (astar_turns). Repairs and fields take it from here; the loops compose the same with the
 * lengths and the penalty kept in locals (grid_loop.c). */
static ALWAYS_INLINE double astar_grid_step(const query_ctx *c, int32_t b, int d, double extra, bool turns) {
    double length = c->diagonal == ASTAR_DIAG_HEX || d < 4 ? 1.0 : ASTAR_SQRT2;
    return astar_step_of(length, astar_entered_cost(c, b, d), true, extra, turns, c->q->turn_penalty);
}

#endif
