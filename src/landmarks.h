/* Landmarks (landmarks.c; built by landmark_build.c): the differential heuristic's tables,
 * and what one query takes of them. */
#ifndef ASTAR_LANDMARKS_H
#define ASTAR_LANDMARKS_H

#include "grid.h"
#include "nodes.h" /* the repairs' heap */

/*
 * dist holds, per cell, k distances from the landmarks and then k distances
 * to them, each rounded toward zero; NaN where nothing is known (another
 * island, a blocked cell, the border, a value too large or too small for a float).
 */
typedef struct astar_landmarks {
    float *dist;                /* in block, at a cache line */
    void *block;
    size_t bytes;               /* block's size */
    int32_t k;
    int32_t dirs;               /* 2: d(L, n) and then d(n, L) per cell; 1: costs are one, the two equal */
    int32_t cells[ASTAR_MAX_LANDMARKS];
    astar_diagonal mode;        /* the moves they were measured under */
    double shrink;              /* < 1: undoes what rounding to floats may add to h's slope */
    double largest, lo;         /* what shrink was computed for: the largest distance stored
                                   and a bound at or below every walkable cost */
    bool valid;                 /* false after a bulk write or a repair that could not finish */
    astar_lazy_heap heap;       /* the repairs' (kept: a door that opens allocates nothing) */
} astar_landmarks;

/* What rounding a stored distance toward zero may have taken off: stored * this >= exact. */
#define ASTAR_LANDMARK_UP (1.0 + 0x1p-22)

/* The float at or below d; NaN (no information) for d unreached, or outside what a normal
 * float holds with the relative error ASTAR_LANDMARK_UP assumes. */
static inline float astar_landmark_down(double d) {
    if (d == 0.0) return 0.0f;
    if (!(d >= 0x1p-100 && d <= 0x1p100)) return NAN;
    float f = (float)d;
    if ((double)f > d) f = nextafterf(f, 0.0f);
    return f;
}

/* The factor h is multiplied by for distances up to `largest` on costs of at least `lo`
 * (landmarks.c says why); 0 where it would leave nothing. */
double astar_landmarks_shrink(double largest, double lo);

/* Frees the grid's landmarks (and bumps the serial). */
void astar_landmarks_free(astar_grid *g);
/* Puts them out of use until a new build (and bumps the serial). */
void astar_landmarks_invalidate(astar_grid *g);
/* Changes whenever what a query reads of the landmarks changes (installed, dropped, repaired,
 * put out of use): a suspended search whose heuristic reads them starts over when it moved. */
static inline uint64_t astar_landmarks_serial(const astar_grid *g) { return g->landmark_serial; }
/* After cell `cell`'s cost went down (grid.c, the neighbour bits already updated): lowers
 * the stored distances that could now overestimate, in work bounded by those that change. */
void astar_landmarks_lowered(astar_grid *g, int32_t cell);
/* Whether the landmarks may serve a query that moves under `mode` (the effective one). */
const astar_landmarks *astar_landmarks_for(const astar_grid *g, astar_diagonal mode);

/* The landmarks one query evaluates, aimed at its goal. dist NULL: none. */
typedef struct astar_landmark_h {
    const float *dist;       /* the grid's landmark distances */
    int32_t stride;          /* floats per cell */
    int32_t back;            /* offset of d(n, L) from d(L, n) in a cell's floats */
    int32_t active;          /* landmarks this query uses: index[0 .. active) */
    double shrink;
    int32_t index[ASTAR_LANDMARKS_ACTIVE];
    double from[ASTAR_LANDMARKS_ACTIVE]; /* d(L, goal), rounded down; -inf when unknown */
    double to[ASTAR_LANDMARKS_ACTIVE];   /* d(goal, L), lifted above; +inf when unknown */
} astar_landmark_h;

/* Aims lm at the goal cell, choosing the landmarks to use from start. */
void astar_landmarks_aim(astar_landmark_h *h, const astar_landmarks *lm, int32_t goal, int32_t start);

/* The landmarks' bound on the cost from a cell to the goal. A NaN (unknown) distance makes
 * its term NaN, which loses every comparison. */
static inline double astar_landmarks_h(const astar_landmark_h *h, int32_t cell) {
    const float *v = h->dist + (size_t)cell * (size_t)h->stride;
    const float *back = v + h->back;
    double best = 0.0, behind = 0.0; /* two chains: the terms do not wait for each other */
    for (int32_t j = 0; j < h->active; j++) {
        int32_t i = h->index[j];
        double t = h->from[j] - astar_rounded((double)v[i] * ASTAR_LANDMARK_UP);
        double u = (double)back[i] - h->to[j];
        if (t > best) best = t;
        if (u > behind) behind = u;
    }
    if (behind > best) best = behind;
    return best * h->shrink;
}

#endif
