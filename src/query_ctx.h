/*
 * One grid query as the search runs it (query_ctx): what query.c resolved before its first
 * push, what the loop reads (grid_loop.c, grid_cost.c, jps.c) and where a search in slices
 * stands. The search's own; it sits below the workspace (workspace.h), which holds the live
 * search's context by value.
 */
#ifndef ASTAR_QUERY_CTX_H
#define ASTAR_QUERY_CTX_H

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
    const double *class_factor; /* the query's classes (256 factors, INFINITY blocks); NULL: none */
    const uint8_t *cls;      /* then the grid's classes, or NULL: every cell is class 0 */
    bool class_walls;        /* and some factor is INFINITY: a class the query walls */
    int32_t size;            /* the unit's side (astar_query.size) */
    const uint8_t *clearance; /* with size > 1: the grid's clearance table (clearance.c) */
    bool size_walls;         /* size > 1 with walls of the query's own (known, a class it walls):
                                the table alone does not say where the unit fits (astar_fits) */
    bool class_steps;        /* the workspace's class_step holds this query's steps (grid_loop.c), */
    double class_terrain;    /* composed on terrain of this one cost */
    int32_t stride;
    int32_t offset[8];       /* cell index step of each direction */
    uint64_t row_magic;      /* cell / stride as a multiply and a shift (see astar_row_of) */
    int row_shift;
    int32_t goal, gx, gy;
    bool goal_open;          /* with targets: some target is walkable */
    int32_t ntargets;        /* > 0: many goals (the general loop), their cells marked */
    int32_t target_xy[2 * ASTAR_HEURISTIC_TARGETS]; /* for the heuristic, when few enough */
    bool target_h;           /* the heuristic is the distance to the nearest target */
    bool aim_goal;           /* the search's job_aim: the heuristic aims at (gx, gy) instead */
    astar_diagonal diagonal;
    astar_heuristic heuristic;
    double h_scale;          /* min terrain cost: keeps the heuristic admissible */
    double h_card, h_diag;   /* the rounded step (core.h) onto the cheapest terrain, straight,
                                and what a diagonal one costs more: the octile bound */
    double uniform_cost;     /* the cost of every walkable cell when they are all alike, else 0:
                                the loop then reads no cost[] (one cache line less per row) */
    double weight;
    bool exact;              /* the loop without callbacks may count in quanta (grid_loop.c's exact) */
    int tie_bits;            /* then the bits of its keys below f (astar_heap_key_fine), */
    double penalty_room;     /* and what layers and claims may add along a path while it does */
    double quanta_diag;      /* and the dearest diagonal step its room was counted for */
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
    bool steps_kept;         /* the general loop keeps step_in (reopening under a custom
                                heuristic, interests): its answer is the chain's sum */
    bool general_repairable; /* the general loop taken only for a bigger unit's classes: its
                                jobs are repaired in place (jobs.c's repairable) */
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
    const astar_jps_table *jps_table; /* then its JPS+ table, or NULL: online */
    uint64_t jps_scanned;    /* and the cells its online scans stepped (progress units) */
} query_ctx;

#endif
