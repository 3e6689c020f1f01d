/*
 * Grid A*'s workspace and query context, shared by its files: query.c sets a
 * query up, grid_cost.c composes its step costs and heuristics, search.c runs
 * the loop (whole or in slices), field.c runs it for distance fields, jps.c
 * answers uniform queries.
 */
#ifndef ASTAR_SEARCH_H
#define ASTAR_SEARCH_H

#include "cost.h"
#include "grid.h"
#include "landmarks.h"
#include "nodes.h"

/* Up to this many targets, the heuristic is the distance to the nearest; beyond, 0. */
#define ASTAR_HEURISTIC_TARGETS ASTAR_REPAIR_LOCAL

/*
 * What P(b) reads, resolved once per query. The loop keeps a copy in locals:
 * through the query_ctx pointer the compiler would reload every field after
 * each store to a node record.
 */
typedef struct penalty_view {
    int nlayers;
    const double *value0;    /* the first layer's values and weight: no loop for one layer */
    double weight0;
    bool claims;
    astar_claim_view claim;
} penalty_view;

/* Everything one query needs in the loop, resolved once before it starts. */
typedef struct query_ctx {
    astar_search *s;
    astar_grid *g;
    const astar_query *q;
    const double *cost;
    int32_t stride;
    int32_t offset[8];       /* cell index step of each direction */
    uint64_t row_magic;      /* cell / stride as a multiply and a shift (see astar_row_of) */
    int row_shift;
    int32_t goal, gx, gy;
    bool goal_open;          /* with targets: some target is walkable */
    int32_t ntargets;        /* > 0: many goals (the general loop), their cells marked */
    int32_t target_xy[2 * ASTAR_HEURISTIC_TARGETS]; /* for the heuristic, when few enough */
    bool target_h;           /* the heuristic is the distance to the nearest target */
    bool aim_goal;           /* targets_reach_goal: the heuristic aims at (gx, gy) instead */
    astar_diagonal diagonal;
    astar_heuristic heuristic;
    double h_scale;          /* min terrain cost: keeps the heuristic admissible */
    double h_card, h_diag;   /* the rounded step (core.h) onto the cheapest terrain, straight,
                                and what a diagonal one costs more: the octile bound */
    double uniform_cost;     /* the cost of every walkable cell when they are all alike, else 0:
                                the loop then reads no cost[] (one cache line less per row) */
    double weight;
    bool exact;              /* the loop without callbacks may count in quanta (search.c's run) */
    int tie_bits;            /* then the bits of its keys below f (astar_heap_key_fine), */
    double penalty_room;     /* and what layers and claims may add along a path while it does */
    int64_t claims_seen;     /* the claims its view's overlay counted at the start (cost.h) */
    bool penalties;          /* penalty[] is in use (the loop with callbacks) */
    double *memo_penalty;    /* penalty[] when in use, custom_h[] under a custom heuristic: */
    double *memo_h;          /* what a first touch marks "not computed yet" (else NULL) */
    bool windowed;           /* claims count by time (claim_window): not part of penalty[] */
    bool reopen;             /* the heuristic may be inconsistent: closed nodes can improve */
    penalty_view pv;
    const double *layer_value[ASTAR_MAX_LAYERS]; /* the query's layers, one step nearer */
    double layer_weight[ASTAR_MAX_LAYERS];
    bool aborted;
    astar_landmark_h lm;     /* lm.dist NULL: the query uses no landmarks */
    /* Where the loop stands between the steps of a resumable search. */
    int32_t start;
    uint64_t expansions;
    astar_meter meter;       /* the progress handler of the step running it (core.h) */
    int32_t best;            /* partial: the best node so far, its h and g */
    double best_h, best_g;
    bool pruned;             /* max_cost left something out */
    bool callbacks, layered; /* which loop runs it */
    /* Interests: node ids from `twin` up are the second copy of the grid, the cells after an
     * interest was collected, where g counts twin_shift (the largest value) more than the
     * path's cost minus the value, so that no step costs less than 0. */
    int32_t twin;            /* 0: one copy */
    double twin_shift;
    /* With interests or target costs the search ends at a sink, a node no cell has: each goal
     * leads to it at the cost still to come there (its target cost, plus twin_shift from the
     * first copy), and the path ends at sink_from, the node it was last reached from. */
    bool sink;
    int32_t sink_from;
    astar_islands *islands;  /* the labels that let it start, if any */
    /* A two-tier query's refinement (hier_find.c): only cells whose corridor stamp is
     * corridor_gen may be entered (the general loop's moves); NULL: every cell. */
    const uint16_t *corridor;
    uint16_t corridor_gen;
    const uint8_t *open;     /* the neighbour bits the loops read: the grid's, or the
                                workspace's copy with the dead ends it skips closed */
    bool jps;                /* jump point search runs it (jps.c), not the loop */
    const astar_jumps *jumps; /* then its JPS+ table, or NULL: online */
    uint64_t jps_scanned;    /* and the cells its online scans stepped (progress units) */
} query_ctx;

/* Another unit on a node from step lo to step hi of its remaining path (claim_window). */
typedef struct window_claim {
    int32_t unit, lo, hi;
    int32_t then;           /* the cell the unit moves to after hi, or -1 (it stays) */
    int32_t next;           /* the next claim of the same cell, or -1 */
} window_claim;

/* The search workspace. Per-cell arrays beyond the pool's records come on first need. */
struct astar_search {
    int32_t width, height, stride;
    size_t cells;
    astar_pool pool;        /* one record per cell */
    double *penalty;        /* per cell: P + node_cost of this query; INFINITY = blocked */
    double *custom_h;       /* per cell: the custom heuristic's value this query, NAN = not asked */
    int32_t *claimed;       /* per cell: units counted by this query, where claim_gen == gen */
    uint16_t *claim_gen;
    int32_t *target_of;     /* per cell: index of the target there, where target_gen == gen */
    uint16_t *target_gen;
    int32_t *depth;         /* per cell: steps from the start of its way in (claim_window) */
    double *step_in;        /* per node: the cost of the step of its way in (under reopening) */
    int32_t *window_head;   /* per cell: its first window_claim, where claim_gen == gen, or -1 */
    int32_t *interest_of;   /* per cell: index of the interest there, where interest_gen == gen */
    uint16_t *interest_gen;
    window_claim *window;   /* claims with times, chained per cell (claim_window) */
    int32_t window_len, window_cap;
    astar_path_buf path;    /* node ids of the last path */
    void *scratch;          /* path repair's arrays (repair.c), kept with the workspace: a Lua
                               callback's error may leave a repair at any point */
    size_t scratch_bytes;
    astar_dead_end_view dead_ends; /* the neighbour bits of queries that skip dead ends */
    astar_alloc alloc;
    /* The search started by astar_search_start, between its steps. */
    query_ctx job;
    bool job_live;          /* started and not finished: astar_search_step continues it */
    uint32_t job_version;   /* the grid's terrain version it has followed up to */
    uint64_t job_landmarks; /* the grid's landmark serial when it started (read when its h reads them) */
    uint32_t job_restarts;
    uint32_t job_repairs;   /* changes under its closed nodes it followed without starting over */
    bool job_jps_ok;        /* it may take jump point search (astar_find's engine choice) */
    bool job_restart_due;   /* a start over was begun and stopped (ASTAR_ESTOPPED): the next
                               step begins it again */
    astar_result job_result; /* the final result, once there is one */
    bool job_field;         /* the live search is a distance field in slices (field.c): */
    struct astar_field_job {
        astar_field *f;         /* what it fills */
        astar_query q;          /* its own query (no heuristic, goal = start) */
        const int32_t *cells;   /* its sources, the caller's */
        int32_t ncells;
        astar_field_kind kind;
        bool searched;          /* the Dijkstra ended (with st): f is being written */
        bool done;              /* f written: result is the answer */
        astar_status st;
        double open_min;        /* the cheapest node left open (a limit), else INFINITY */
        bool dense;             /* f is kept dense (field.c), written in slices: */
        int32_t written;        /* cells of f written so far, in id order */
        uint32_t restarts;
        astar_result result;
    } field;
};

/* ---- query.c */

/*
 * Everything a query needs before its first push: checks, the context, the
 * workspace's per-cell arrays, a fresh stamp and the claims it sees. *callbacks
 * gets whether the query must take the general loop (`general` forces it).
 */
astar_status astar_query_begin(query_ctx *c, astar_search *s, astar_grid *g, const astar_query *q,
                               bool general, bool *callbacks);

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

/* ---- search.c */

/*
 * Makes, on the calling thread, every lazy write to g that astar_find may make
 * for queries like q (whatever their endpoints): the cost range, island
 * labels rebuilt exactly when q would consult them, and the jump table JPS+
 * reads. Afterwards such queries only read g, which is what lets
 * astar_find_many run them on many threads:
 * a new lazy cache in astar_find must be brought up to date here too.
 */
astar_status astar_find_prepare(astar_grid *g, const astar_query *q);

/* astar_find restricted to the cells whose corridor stamp is gen (the general loop, no JPS). */
astar_status astar_find_within(astar_search *s, astar_grid *g, const astar_query *q,
                               const uint16_t *corridor, uint16_t gen, astar_result *res);

/* ---- grid_loop.c: the grid as the loop's space (loop.h) */

/* The node of a search's sink (loop.h): a corner of the blocked border, which no search steps
 * onto. */
#define ASTAR_GRID_SINK 0

/* c's search for up to `budget` expansions more: terrain and a built-in heuristic (plain),
 * plus influence layers and claims (layered), or the general loop (callbacks, fog, targets,
 * noise, hexes, turns, windows; distance fields run it from their sources). */
astar_status astar_run_plain(query_ctx *c, uint64_t budget, astar_result *res);
astar_status astar_run_layered(query_ctx *c, uint64_t budget, astar_result *res);
astar_status astar_run_general(query_ctx *c, uint64_t budget, astar_result *res);

/* ---- jobs.c: a job in flight under terrain changes (docs/design/living.md) */

/*
 * Brings the live search of s (s->job) up to its grid's terrain after changes since
 * s->job_version: true when it may go on from where it stands (repaired where a change was
 * under its closed nodes; *repairs counts those), false when it must start over. Its work
 * (bounded by the changes and by what the job has expanded) is charged to the progress
 * handler.
 */
bool astar_job_follow(astar_search *s, uint32_t *repairs);
/* Whether every terrain change since s->job_version is known (no bulk write) and none is in
 * the 3x3 block of a cell the live search of s reached: then it read no step a change
 * altered (a distance field in slices goes on). Work: 9 reads per change. */
bool astar_job_changes_unread(const astar_search *s);
/* Whether the landmarks a job's heuristic reads (c->lm) are still the grid's, as valid as
 * when it started (none read: true). */
bool astar_job_landmarks_held(const astar_search *s);
/* A job counting in quanta (run's `exact`) goes on in doubles: its records and keys rewritten
 * (work: what it reached, added to *work). False on OOM. */
bool astar_job_leave_exact(query_ctx *c, uint64_t *work);

/* ---- many.c: the thread code astar_find_many and builds share */

/*
 * Calls fn(ud, i) once for every i in 0..threads-1, i > 0 each on a thread of its own
 * (pthreads) and 0 on the calling thread, and returns when all have returned. If a thread
 * cannot be started, the calling thread runs its index after its own. Returns how many
 * threads ran (the calling one included). The calling thread's progress handler is shared:
 * every thread's loops charge a lease of units taken from it under a lock (astar.h).
 */
int astar_many_run(int threads, void (*fn)(void *ud, int index), void *ud);
/* Worker `index`'s workspace (made, with those before it, on first need: its allocations
 * go through m's mutex, so workers may grow them at once); NULL on ENOMEM or when the progress
 * handler stopped astar_search_new (astar_last_status says which). */
astar_search *astar_many_workspace(astar_many *m, int index);
/* m's allocator behind its mutex: what workers allocate other memory with. */
const astar_alloc *astar_many_locked(const astar_many *m);

/* ---- field.c: a distance field in slices */

/*
 * Sets up on s (its s->job) a Dijkstra from (FROM) or toward (TO) the one node id `id`
 * under q (default heuristic, weight 1, no targets, partial, turn penalty or claim
 * window); q must stay alive until it ends. Then astar_field_continue expands at most
 * `budget` nodes more (*expanded gets how many) and returns ASTAR_RUNNING, ASTAR_OK once
 * nothing is left open, or an error. A node is then settled when astar_field_settled says
 * so, its distance the node record's g.
 */
astar_status astar_field_begin(astar_search *s, astar_grid *g, const astar_query *q, int32_t id,
                               astar_field_kind kind);
astar_status astar_field_continue(astar_search *s, astar_field_kind kind, uint64_t budget,
                                  uint64_t *expanded);

/* ---- jps.c */

/*
 * Jump point search for a query the loop has found eligible (see astar_jps), in slices as
 * A* runs: astar_jps_begin sets up the live search of s (s->job: this query's stamp, an
 * empty open list, its context; start walkable, goal walkable; mode NO_CORNER_CUT or NEVER;
 * unit the cost of every walkable cell; no budget such as max_expansions or max_cost) and
 * pushes the start: ASTAR_RUNNING, or ASTAR_ENOMEM. table: the grid's fresh jump table for
 * the mode (JPS+), or NULL to scan the lines (online). astar_jps_step then expands at most
 * `budget` jump points more (ASTAR_RUNNING), or ends: res's cost, length, expansions and the
 * path, and the status. Its state is the workspace's, so any terrain change starts it over
 * (astar_job_follow): it read lines of cells it never touched.
 */
astar_status astar_jps_begin(astar_search *s, astar_diagonal mode, int32_t start, int32_t goal, double unit,
                             const astar_jumps *table);
astar_status astar_jps_step(astar_search *s, uint64_t budget, astar_result *res);

/* ---- inline, for the loops */

/* A cell's row: a division by the stride costs more than the rest of an expansion's
 * bookkeeping (see query.c for the multiplier). */
static inline int32_t astar_row_of(const query_ctx *c, int32_t cell) {
    return (int32_t)(((uint64_t)(uint32_t)cell * c->row_magic) >> c->row_shift);
}

/*
 * A step's cost in direction d (diagonal from 4 on) onto terrain of cost `cost`, rounded up
 * (core.h), penalties aside: A*, jump point search and the query's bounds all take it from
 * here, so that their sums agree to the bit.
 */
static inline double astar_step_cost(double cost, int d) {
    return astar_step_of(d < 4 ? 1.0 : ASTAR_SQRT2, cost, false, 0.0, false, 0.0);
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

/* After astar_field_continue returned ASTAR_OK: the distance of a cell from or to the
 * field's source, INFINITY where it was not reached (the rule astar_field_build applies,
 * with nothing left open). */
static inline double astar_field_g(const astar_search *s, int32_t cell) {
    const astar_node *n = &s->pool.nodes[cell];
    return n->gen == s->pool.gen && n->heap < 0 ? n->g : INFINITY;
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
 * P(b) of influence layers and claims. The loop without callbacks computes it
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

/* The terrain as the query sees it: with a fog-of-war mask, unknown cells cost 1. */
static inline double astar_terrain_cost(const query_ctx *c, int32_t cell) {
    const astar_mask *m = c->q->known;
    return m && !m->known[cell] ? 1.0 : c->cost[cell];
}

/* Effective walkability of a cell: terrain as the query sees it, then what node_cost blocks. */
static inline bool astar_walkable(query_ctx *c, int32_t cell, int32_t x, int32_t y) {
    if (astar_terrain_cost(c, cell) == INFINITY) return false;
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

/* Whether the step d from a cell of row y turns (turn_penalty), after the step `prev` into it
 * (a direction, or none: the path starts there). */
static inline bool astar_turns(const query_ctx *c, int prev, int32_t y, int d) {
    return c->q->turn_penalty > 0 && (unsigned)prev < 8 &&
           astar_heading(c, prev, y - ASTAR_DY[prev]) != astar_heading(c, d, y);
}

/* A grid step's cost (astar_step_of): direction d onto cell b, whose terrain the query sees
 * (astar_terrain_cost), plus `extra` (astar_step_extra), plus the turn penalty when it turns.
 * The loops, repairs and fields take it from here. */
static ALWAYS_INLINE double astar_grid_step(const query_ctx *c, int32_t b, int d, double extra, bool turns) {
    double length = c->diagonal == ASTAR_DIAG_HEX || d < 4 ? 1.0 : ASTAR_SQRT2;
    return astar_step_of(length, astar_terrain_cost(c, b), true, extra, turns, c->q->turn_penalty);
}

#endif
