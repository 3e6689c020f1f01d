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
 * What keeps h consistent (and so admissible: h(goal) = 0) is a property of the stored
 * floats alone, not of their being exact distances; terrain changes keep it:
 *
 *   (I) for every move n -> m the landmarks' mode allows now, of step cost c, with both
 *       values known: F(m) <= (1 + s) F(n) + (1 + t) c in the table of d(L, .), and
 *       F(n) <= (1 + s) F(m) + (1 + t) c in that of d(., L) (where one table serves both,
 *       both), with s = 2^-23 UP and t = 2^-52.
 *
 * The build gives (I): F is d rounded toward zero (d (1 - 2^-23) <= F <= d), and
 * d(m) <= d(n) + c up to one rounding of the sum (2^-53). A raised cost or a blocked cell
 * only raises c or removes moves. A lowered cost or an opened cell breaks (I) only on the
 * moves whose cost or legality changed, all between cells of the 3x3 block around it;
 * astar_landmarks_lowered relaxes from every cell of the block, Dijkstra-style, writing
 * down(F(n) + c) (<= (F(n) + c)(1 + 2^-53)) where it is lower, and relaxes on from each
 * cell it lowers, so (I) holds again on every move when it is done.
 *
 * From (I), with UP = 1 + 2^-22 and D the largest value stored, lo the smallest cost:
 * across a step of cost c >= lo the term d(L, goal) - UP F(n) grows by at most
 * UP (F(m) - F(n)) <= UP (1 + t) c + UP s D <= c (1 + eps), eps = 2^-22 + 2^-51 +
 * 2^-23 UP^2 D / lo, and the other term by F(n) - F(m) <= less. So their maximum times
 * shrink = 1 - eps <= 1 / (1 + eps) grows by at most c: h stays consistent (no reopened
 * nodes, optimal paths). A repair that stores a value above D, or a cost below lo,
 * recomputes shrink for the new ones (and bumps the serial: a suspended search holds it).
 */
#include "landmarks.h"
#include "core.h"       /* the search's step costs (astar_step_cost) */

#include <string.h>

double astar_landmarks_shrink(double largest, double lo) {
    double up = ASTAR_LANDMARK_UP;
    double eps = largest > 0 && lo > 0 ? 0x1p-22 + 0x1p-51 + 0x1p-23 * up * up * largest / lo : 0.0;
    return eps < 1.0 ? 1.0 - eps : 0.0;
}

void astar_landmarks_free(astar_grid *g) {
    astar_landmarks *lm = g->landmarks;
    if (!lm) return;
    astar_lazy_heap_free(&lm->heap, &g->alloc);
    astar_mem(&g->alloc, lm->block, lm->bytes, 0);
    astar_mem(&g->alloc, lm, sizeof *lm, 0);
    g->landmarks = NULL;
    g->landmark_serial++;
}

void astar_landmarks_invalidate(astar_grid *g) {
    if (!g->landmarks || !g->landmarks->valid) return;
    g->landmarks->valid = false;
    g->landmark_serial++;
}

/* Which way a table's distances run: from the landmark, to it, or both (one table where
 * costs were one). */
enum way { WAY_FROM, WAY_TO, WAY_BOTH };

/* The step from p to its neighbour q (direction d) that a table's values must respect when p
 * is lowered: the move p -> q for distances from the landmark, q -> p for distances to it,
 * the cheaper of the two for a table that serves both. The search's own step costs. */
static double bound_step(const astar_grid *g, const astar_landmarks *lm, int32_t p, int32_t q, int d,
                         enum way way) {
    int dir = lm->mode == ASTAR_DIAG_HEX ? 0 : d; /* a hex step is a straight one */
    double into_q = astar_step_cost(g->cost[q], dir), into_p = astar_step_cost(g->cost[p], dir);
    return way == WAY_FROM ? into_q : way == WAY_TO || into_p < into_q ? into_p : into_q;
}

/* Whether hi <= (1 + s) lo + (1 + t) c, (I) on one move (above), false for NaN: the sum
 * rounds up by at most 2^-52 of itself, which (1 + s) and (1 + t) cover. */
static bool fits(double hi, double lo, double c) { return hi <= lo + 0x1p-23 * lo + c; }

/* One table's repair: a Dijkstra seeded with the walkable cells of the block around `cell`
 * at their values, which lowers a neighbour only where (I) fails on the move to it (NaN,
 * unknown, fails everything), to down(value + step), and goes on from there. So a change
 * that leaves (I) holding (a door opened again after it was closed) writes nothing, and
 * values a rounding apart are not chased across the map. false: out of memory, or the
 * progress handler stopped it. */
static bool repair_table(astar_grid *g, astar_landmarks *lm, int32_t cell, int32_t column, enum way way,
                         astar_lazy_heap *heap, astar_progress *progress, bool *changed, double *largest) {
    int32_t stride = lm->dirs * lm->k, offset[8];
    for (int d = 0; d < 8; d++) offset[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
    float *dist = lm->dist + column;
#define AT(c) dist[(size_t)(c) * (size_t)stride]
    heap->len = 0;
    for (int32_t dy = -1; dy <= 1; dy++)
        for (int32_t dx = -1; dx <= 1; dx++) {
            int32_t p = cell + dy * g->stride + dx;
            if (g->cost[p] != INFINITY && !isnan(AT(p)) && !astar_lazy_heap_push(heap, &g->alloc, AT(p), p))
                return false;
        }
    double key;
    int32_t p;
    while ((p = astar_lazy_heap_pop(heap, &key)) >= 0) {
        double fp = AT(p);
        if (key != fp) continue; /* lowered again since: its later entry relaxes */
        if (astar_progress_charge(progress, 1)) return false;
        int32_t y = p / g->stride - 1;
        unsigned moves = astar_legal_row(g, lm->mode, y)[g->open[p]];
        for (int d = 0; d < 8; d++) {
            int32_t q = p + offset[d];
            if (moves >> d & 1u) {
                double c = bound_step(g, lm, p, q, d, way);
                if (fits(AT(q), fp, c)) continue;
                float v = astar_landmark_down(fp + c);
                /* Out of a float's range: unknown, as the build leaves it. Not below: (I) holds. */
                if (isnan(v) || !(isnan(AT(q)) || v < AT(q))) continue;
                AT(q) = v;
                *changed = true;
                if (v > *largest) *largest = v;
                if (!astar_lazy_heap_push(heap, &g->alloc, v, q)) return false;
            } else if (g->cost[q] == INFINITY && !isnan(AT(q))) {
                /* A blocked cell: no search enters it, so no move into it needs (I), but one
                 * may start there and leave it through p. Where its value breaks (I) on that
                 * move it becomes unknown, which drops its terms from h there: h at a start
                 * only has to be admissible (the border is unknown and stays so). */
                double c = bound_step(g, lm, q, p, d ^ 2, WAY_FROM); /* the move q -> p */
                bool ok = (way == WAY_TO || fits(fp, AT(q), c)) && (way == WAY_FROM || fits(AT(q), fp, c));
                if (!ok) {
                    AT(q) = NAN;
                    *changed = true;
                }
            }
        }
    }
#undef AT
    return true;
}

void astar_landmarks_lowered(astar_grid *g, int32_t cell) {
    astar_landmarks *lm = g->landmarks;
    if (!lm || !lm->valid || lm->k == 0) return;
    astar_progress *progress = astar_progress_get();
    bool changed = false, ok = true;
    double largest = lm->largest;
    for (int32_t column = 0; column < lm->dirs * lm->k && ok; column++) {
        enum way way = lm->dirs == 1 ? WAY_BOTH : column < lm->k ? WAY_FROM : WAY_TO;
        ok = repair_table(g, lm, cell, column, way, &lm->heap, progress, &changed, &largest);
    }
    if (!ok) { /* half repaired: some values may still overestimate */
        astar_landmarks_invalidate(g);
        return;
    }
    double cost = g->cost[cell];
    if (largest > lm->largest || cost < lm->lo) {
        lm->largest = largest;
        lm->lo = cost < lm->lo ? cost : lm->lo;
        lm->shrink = astar_landmarks_shrink(lm->largest, lm->lo);
        changed = true;
    }
    if (changed) g->landmark_serial++;
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
    const astar_landmarks *lm = g->landmarks;
    return lm ? lm->bytes + sizeof *lm + (size_t)lm->heap.cap * (sizeof *lm->heap.key + sizeof *lm->heap.at) : 0;
}
