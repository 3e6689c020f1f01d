/*
 * The grid search's workspace (astar_search) and what other files ask of the search: the
 * engine behind astar_find for two-tier queries and threads (search.c), the thread code
 * (many.c) and distance fields in slices for builds (field.c). Everyone's; the search's own
 * parts are in search.h.
 */
#ifndef ASTAR_WORKSPACE_H
#define ASTAR_WORKSPACE_H

#include "query_ctx.h"

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
    void *scratch;          /* path repair's and flee's arrays (repair.c, flee.c; astar_scratch),
                               kept with the workspace: a Lua callback's error may leave them
                               at any point */
    size_t scratch_bytes;
    astar_field *flee_threat; /* flee's threat distances, and flee's or wander's range (flee.c): */
    astar_field *flee_range;  /* kept likewise, made on first need */
    void (*flee_free)(astar_search *s); /* set with them: frees them (query.c calls no file above it) */
    astar_dead_end_view dead_ends; /* the neighbour bits of queries that skip dead ends */
    astar_alloc alloc;
    /* The search started by astar_search_start, between its steps. */
    query_ctx job;
    bool job_live;          /* started and not finished: astar_search_step continues it */
    uint32_t job_version;   /* the grid's terrain version it has followed up to */
    uint32_t job_class_version; /* and the class version (a job with classes follows class writes) */
    double class_step[256][2]; /* a query with classes on terrain of one cost: each class's
                                  rounded step, straight and diagonal (grid_loop.c) */
    int64_t class_quanta[256][2]; /* the same in quanta, when it counts in them (0: a wall) */
    uint64_t job_landmarks; /* the grid's landmark serial when it started (read when its h reads them) */
    uint32_t job_restarts;
    uint32_t job_repairs;   /* changes under its closed nodes it followed without starting over */
    bool job_jps_ok;        /* it may take jump point search (astar_find's engine choice) */
    /* Path repair's (repair.c): each target's cost is that of a way from it on to (gx, gy), so
     * a heuristic toward (gx, gy) stays admissible (triangle inequality) and is used (a custom
     * one and landmarks too) instead of the distance to the nearest target. aim_next is set
     * just before the search it is for, and taken into job_aim (kept through restarts) by the
     * next search begun on s, whatever it is: a callback's longjmp leaves nothing set. */
    bool aim_next, job_aim;
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

/* ---- search.c */

/*
 * Makes, on the calling thread, every lazy write to g that astar_find may make
 * for queries like q (whatever their endpoints): the cost range, island
 * labels rebuilt exactly when q would consult them, and the JPS+ table.
 * Afterwards such queries only read g, which is what lets
 * astar_find_many run them on many threads:
 * a new lazy cache in astar_find must be brought up to date here too.
 */
astar_status astar_find_prepare(astar_grid *g, const astar_query *q);

/* astar_find restricted to the cells whose corridor stamp is gen (the general loop, no JPS). */
astar_status astar_find_within(astar_search *s, astar_grid *g, const astar_query *q,
                               const uint16_t *corridor, uint16_t gen, astar_result *res);

/* ---- many.c: the thread code astar_find_many and builds share */

/*
 * Calls fn(ud, i) once for every i in 0..threads-1, i > 0 each on a thread of its own
 * (src/threads.h) and 0 on the calling thread, and returns when all have returned. If a thread
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
/* At least bytes of the workspace's scratch memory (what it held is lost); NULL on OOM. */
void *astar_scratch(astar_search *s, size_t bytes);

astar_status astar_field_begin(astar_search *s, astar_grid *g, const astar_query *q, int32_t id,
                               astar_field_kind kind);
astar_status astar_field_continue(astar_search *s, astar_field_kind kind, uint64_t budget,
                                  uint64_t *expanded);

/* After astar_field_continue returned ASTAR_OK: the distance of a cell from or to the
 * field's source, INFINITY where it was not reached (the rule astar_field_build applies,
 * with nothing left open). */
static inline double astar_field_g(const astar_search *s, int32_t cell) {
    const astar_node *n = &s->pool.nodes[cell];
    return n->gen == s->pool.gen && n->heap < 0 ? n->g : INFINITY;
}

#endif
