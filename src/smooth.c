/*
 * Line-of-sight string pulling on a square grid (astar.smooth): from each waypoint, the
 * farthest cell of the path it sees (greedy farthest visible). The work that matters is
 * ruling out the cells it does not see: each anchor tries the path's cells from the end back
 * and keeps the first it sees; a cell is ruled out without a walk when a blocker met by an
 * earlier walk from the same anchor lies on its line (a shadow test in integers), so that a
 * line is walked in the map only for cells no known blocker hides.
 */
#include "grid.h"

#include <stdlib.h>

/* Blockers kept per anchor, most recently useful first: enough for the few walls a stretch of
 * the path hides behind; the rest are walked (exact either way). */
#define BLOCKERS 8

/*
 * What made a line fail, relative to the anchor, in half cells (so that vertices are integers):
 * a cell (x2, y2 even; it blocks a limit below `cost`, INFINITY: always) or a vertex the line
 * passed exactly through whose sides the corner rule refused (x2, y2 odd; always).
 */
typedef struct blocker {
    int64_t x2, y2;
    double cost;
} blocker;

/* p / q with q > 0, compared exactly: numerators and denominators below 2^20 each. */
typedef struct frac {
    int64_t p, q;
} frac;

static bool frac_less(frac a, frac b) { return a.p * b.q < b.p * a.q; }

/*
 * Whether the segment from the anchor (the origin) to the cell centre t (tx, ty) meets the
 * open square of the cell c (cx, cy), c not the origin: whether some s in (0, 1] has
 * |s * t - c| < 1/2 on both axes. That is exactly when the walk of `sight` visits c (a line
 * between centres crosses a vertex only at a point, where it visits the diagonal cell alone).
 */
static bool crosses_cell(int64_t tx, int64_t ty, int64_t cx, int64_t cy) {
    frac lo = {0, 1}, hi = {1, 0}; /* s in (lo, hi): hi = +infinity */
    int64_t t[2] = {tx, ty}, c[2] = {cx, cy};
    for (int k = 0; k < 2; k++) {
        int64_t a = t[k], b = c[k];
        if (a < 0) a = -a, b = -b;
        if (a == 0) {
            if (b != 0) return false;
            continue;
        }
        frac l = {2 * b - 1, 2 * a}, h = {2 * b + 1, 2 * a};
        if (frac_less(lo, l)) lo = l;
        if (hi.q == 0 || frac_less(h, hi)) hi = h;
    }
    frac one = {1, 1};
    return frac_less(lo, hi) && frac_less(lo, one);
}

/* Whether blocker b hides t (relative to the anchor) from a line allowed up to `limit`. */
static bool hides(const blocker *b, int64_t tx, int64_t ty, double limit) {
    if ((b->x2 & 1) == 0) /* a cell */
        return (b->cost == INFINITY || b->cost > limit) && crosses_cell(tx, ty, b->x2 / 2, b->y2 / 2);
    /* A vertex v = b / 2: on the segment when v = s * t, 0 < s < 1 (t is a centre, v is not). */
    return b->x2 * ty == b->y2 * tx && (b->x2 > 0) == (tx > 0) && (b->y2 > 0) == (ty > 0) &&
           llabs(b->x2) < 2 * llabs(tx) && llabs(b->y2) < 2 * llabs(ty);
}

/*
 * Walks the cells the segment between the centres (x0, y0) and (x1, y1) passes through, in
 * order, the first excepted: each must be walkable at a cost at most `limit`, and a vertex the
 * segment passes exactly through needs `sides` of its two side cells walkable. True when all
 * are; else false, with *why what failed (relative to (x0, y0)). Integer arithmetic: the
 * boundary crossings are compared as (1 + 2i) * |dy| against (1 + 2j) * |dx|. *steps counts
 * the cells read.
 */
static bool sight(const astar_grid *g, int32_t x0, int32_t y0, int32_t x1, int32_t y1, double limit, int sides,
                  blocker *why, uint64_t *steps) {
    int64_t dx = x1 - x0, dy = y1 - y0;
    int32_t sx = dx < 0 ? -1 : 1, sy = dy < 0 ? -1 : 1;
    int64_t ax = llabs(dx), ay = llabs(dy);
    int32_t x = x0, y = y0;
    for (int64_t i = 0, j = 0; i < ax || j < ay;) {
        int64_t tx = (1 + 2 * i) * ay, ty = (1 + 2 * j) * ax; /* when the next x / y boundary comes */
        ++*steps;
        if (j >= ay || (i < ax && tx < ty)) {
            x += sx, i++;
        } else if (i >= ax || ty < tx) {
            y += sy, j++;
        } else {
            int open = (g->cost[astar_cell(g->stride, x + sx, y)] != INFINITY) +
                       (g->cost[astar_cell(g->stride, x, y + sy)] != INFINITY);
            if (open < sides) {
                *why = (blocker){2 * (int64_t)(x - x0) + sx, 2 * (int64_t)(y - y0) + sy, INFINITY};
                return false;
            }
            x += sx, y += sy, i++, j++;
        }
        double c = g->cost[astar_cell(g->stride, x, y)];
        if (!(c <= limit) || c == INFINITY) {
            *why = (blocker){2 * (int64_t)(x - x0), 2 * (int64_t)(y - y0), c};
            return false;
        }
    }
    return true;
}

int32_t astar_grid_smooth(const astar_grid *g, const int32_t *cells, int32_t n, int sides, double *limits,
                          int32_t *keep) {
    if (n <= 0) return 0;
    astar_progress *p = astar_progress_get();
    int32_t kept = 0;
    keep[kept++] = 0;
    for (int32_t from = 0; from < n - 1;) {
        int32_t ax = cells[from] % g->width, ay = cells[from] / g->width;
        /* limits[to]: the dearest cell of the run from + 1 .. to (a blocked one: any cost). */
        double limit = 0.0;
        if (astar_progress_charge(p, (uint64_t)(n - from))) return -1; /* and a test per cell below */
        for (int32_t to = from + 1; to < n; to++) {
            double c = g->cost[astar_cell(g->stride, cells[to] % g->width, cells[to] / g->width)];
            if (c > limit) limit = c;
            limits[to] = limit;
        }
        blocker known[BLOCKERS];
        int nknown = 0;
        int32_t best = from + 1;
        /* Backward: the limits only fall, so a blocker found for a later cell holds for the
         * earlier ones. */
        for (int32_t to = n - 1; to > from + 1; to--) {
            int32_t x = cells[to] % g->width, y = cells[to] / g->width;
            int64_t tx = x - ax, ty = y - ay;
            int hit = -1;
            for (int k = 0; k < nknown && hit < 0; k++)
                if (hides(&known[k], tx, ty, limits[to])) hit = k;
            blocker why;
            uint64_t steps = 0;
            bool seen = hit < 0 && sight(g, ax, ay, x, y, limits[to], sides, &why, &steps);
            if (astar_progress_charge(p, steps)) return -1; /* a read: stopped after a line */
            if (seen) {
                best = to;
                break;
            }
            /* Most recently useful first: the next cell of the path is most likely hidden by the
             * same blocker. */
            if (hit < 0) {
                hit = nknown < BLOCKERS ? nknown++ : BLOCKERS - 1;
                known[hit] = why;
            }
            blocker b = known[hit];
            for (int k = hit; k > 0; k--) known[k] = known[k - 1];
            known[0] = b;
        }
        keep[kept++] = best;
        from = best;
    }
    return kept;
}
