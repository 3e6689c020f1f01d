/*
 * Landmarks: the differential (ALT) heuristic, built on the terrain alone.
 *
 * Each landmark L stores d(L, n) and d(n, L) for every cell n; steps cost
 * L * cost(entered cell), so the two differ where costs do (where they do not,
 * one array serves both). The triangle inequality gives d(n, g) >= d(L, g) - d(L, n)
 * and d(n, g) >= d(n, L) - d(g, L). A query's costs are the terrain's plus
 * non-negative extras, so both stay lower bounds for it, and since each is consistent
 * on the terrain (a step changes it by at most the step's terrain cost) so is their
 * maximum.
 *
 * Floats halve the memory of doubles. Rounding toward zero keeps a stored F within
 * [d (1 - 2^-23), d], and the search multiplies a value it subtracts by
 * ASTAR_LANDMARK_UP = 1 + 2^-22, which lifts it above d; so every term stays a lower
 * bound. Across one step of cost c a term may then grow by up to
 * c + 2^-22 c + 2^-23 UP D (D the largest distance stored) instead of c; c is at least
 * the smallest cost, so shrinking h by eps = 2^-22 + 2^-23 UP D / smallest cost pays
 * that back (1 - eps <= 1 / (1 + eps)), keeping h consistent (no reopened nodes,
 * optimal paths).
 */
#include "landmarks.h"

#include <string.h>

void astar_landmarks_free(astar_grid *g) {
    astar_landmarks *lm = g->landmarks;
    if (!lm) return;
    astar_mem(&g->alloc, lm->block, lm->bytes, 0);
    astar_mem(&g->alloc, lm, sizeof *lm, 0);
    g->landmarks = NULL;
}

/* Square modes by the moves they allow: each allows every move of the ones before it. */
static int mode_rank(astar_diagonal m) {
    switch (m) {
    case ASTAR_DIAG_NEVER: return 0;
    case ASTAR_DIAG_NO_CORNER_CUT: return 1;
    case ASTAR_DIAG_ONE_WALKABLE: return 2;
    case ASTAR_DIAG_ALWAYS: return 3;
    default: return -1;
    }
}

const astar_landmarks *astar_landmarks_for(const astar_grid *g, astar_diagonal mode) {
    const astar_landmarks *lm = g->landmarks;
    if (!lm || !lm->valid || lm->k == 0 || !(lm->shrink > 0)) return NULL;
    if (mode == lm->mode) return lm;
    /* Fewer moves only lengthen ways: the distances stay lower bounds. Hexes compare with
     * nothing else. */
    int q = mode_rank(mode), b = mode_rank(lm->mode);
    return q >= 0 && b >= 0 && q <= b ? lm : NULL;
}

/* The query's landmarks: the goal's distances, and which ones to evaluate. With more than
 * ASTAR_LANDMARKS_ACTIVE, those whose bound is largest at the start (a bound that holds
 * there tends to hold along the way); otherwise all, in any order (h is their maximum). */
void astar_landmarks_aim(astar_landmark_h *h, const astar_landmarks *lm, int32_t goal, int32_t start) {
    int32_t stride = lm->dirs * lm->k, back = lm->dirs == 2 ? lm->k : 0;
    const float *at_goal = lm->dist + (size_t)goal * (size_t)stride;
    const float *at_start = lm->dist + (size_t)start * (size_t)stride;
    h->dist = lm->dist;
    h->stride = stride;
    h->back = back;
    h->shrink = lm->shrink;
    bool rank = lm->k > ASTAR_LANDMARKS_ACTIVE;
    double bound[ASTAR_LANDMARKS_ACTIVE]; /* ranked: kept in decreasing order (insertion) */
    int32_t m = 0;
    for (int32_t i = 0; i < lm->k; i++) {
        double from = at_goal[i], to = at_goal[back + i];
        from = isnan(from) ? -INFINITY : from;
        to = isnan(to) ? INFINITY : to * ASTAR_LANDMARK_UP;
        int32_t j = m;
        if (rank) {
            double t = from - astar_rounded((double)at_start[i] * ASTAR_LANDMARK_UP);
            double u = (double)at_start[back + i] - to;
            double b = u > t ? u : t;
            if (isnan(b)) b = -INFINITY; /* the start unknown to it: last choice */
            if (m == ASTAR_LANDMARKS_ACTIVE && !(b > bound[m - 1])) continue;
            j = m < ASTAR_LANDMARKS_ACTIVE ? m++ : m - 1;
            for (; j > 0 && bound[j - 1] < b; j--) {
                bound[j] = bound[j - 1];
                h->index[j] = h->index[j - 1];
                h->from[j] = h->from[j - 1];
                h->to[j] = h->to[j - 1];
            }
            bound[j] = b;
        } else {
            m++;
        }
        h->index[j] = i;
        h->from[j] = from;
        h->to[j] = to;
    }
    h->active = m;
}

int32_t astar_grid_landmark_count(const astar_grid *g) {
    const astar_landmarks *lm = astar_landmarks_for(g, g->diagonal);
    return lm ? lm->k : 0;
}

astar_status astar_grid_landmark(const astar_grid *g, int32_t i, int32_t *x, int32_t *y) {
    if (i < 0 || i >= astar_grid_landmark_count(g)) return ASTAR_EINVAL;
    int32_t id = g->landmarks->cells[i];
    *x = id % g->width;
    *y = id / g->width;
    return ASTAR_OK;
}

size_t astar_grid_landmark_bytes(const astar_grid *g) {
    return g->landmarks ? g->landmarks->bytes + sizeof *g->landmarks : 0;
}
