/*
 * A yardstick, not part of the library: the "plain, tight C A*" issue 4 names
 * as its reference point (indexed 4-ary heap, 64-bit packed keys, a byte of
 * legal moves per cell), written here as small as it goes for unit-cost
 * Moving AI maps with no corner cutting. bench_c runs it beside the core on the
 * same problems, so the two speeds are compared in one run on one machine.
 *
 * What it leaves out and the core has: terrain costs, influence, claims,
 * callbacks, limits, partial paths, islands, path output, allocation checks.
 * Its keys are f as a float with the cell index below it, so ties go to the
 * smaller index and the order is exact only to float precision.
 */
#include "reference.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SQRT2 1.4142135623730951

typedef struct ref_node {
    double g;
    uint32_t gen;
    int32_t heap;
} ref_node;

struct ref_astar {
    int32_t w, h, stride;
    uint8_t *moves;     /* per padded cell: bit d = the move in direction d is legal */
    ref_node *node;
    uint64_t *heap;     /* (float f bits << 32) | cell */
    int32_t len;
    uint32_t gen;
    int32_t offset[8];
};

static const int DX[8] = {0, 1, 0, -1, 1, 1, -1, -1};
static const int DY[8] = {-1, 0, 1, 0, -1, 1, 1, -1};

ref_astar *ref_new(const astar_grid *g) {
    ref_astar *r = calloc(1, sizeof *r);
    r->w = astar_grid_width(g);
    r->h = astar_grid_height(g);
    r->stride = r->w + 2;
    size_t cells = (size_t)r->stride * (size_t)(r->h + 2);
    r->moves = calloc(cells, 1);
    r->node = calloc(cells, sizeof *r->node);
    r->heap = malloc(cells * sizeof *r->heap);
    for (int d = 0; d < 8; d++) r->offset[d] = DY[d] * r->stride + DX[d];
    for (int32_t y = 0; y < r->h; y++)
        for (int32_t x = 0; x < r->w; x++) {
            unsigned m = 0;
            for (int d = 0; d < 8; d++) {
                int32_t nx = x + DX[d], ny = y + DY[d];
                bool open = nx >= 0 && ny >= 0 && nx < r->w && ny < r->h &&
                            astar_grid_get_cost(g, nx, ny) != INFINITY;
                if (d >= 4) /* no corner cutting: both sides open too */
                    open = open && astar_grid_get_cost(g, nx, y) != INFINITY &&
                           astar_grid_get_cost(g, x, ny) != INFINITY;
                if (open) m |= 1u << d;
            }
            r->moves[(y + 1) * r->stride + x + 1] = (uint8_t)m;
        }
    return r;
}

void ref_free(ref_astar *r) {
    if (!r) return;
    free(r->moves);
    free(r->node);
    free(r->heap);
    free(r);
}

static inline uint64_t key_of(double f, int32_t cell) {
    float ff = (float)f;
    uint32_t bits;
    memcpy(&bits, &ff, sizeof bits);
    return (uint64_t)bits << 32 | (uint32_t)cell;
}

static inline int32_t cell_of(uint64_t key) { return (int32_t)(uint32_t)key; }

static inline void sift_up(ref_astar *r, int32_t i, uint64_t key) {
    while (i > 0) {
        int32_t parent = (i - 1) >> 2;
        if (r->heap[parent] <= key) break;
        r->heap[i] = r->heap[parent];
        r->node[cell_of(r->heap[i])].heap = i;
        i = parent;
    }
    r->heap[i] = key;
    r->node[cell_of(key)].heap = i;
}

static inline uint64_t pop(ref_astar *r) {
    uint64_t top = r->heap[0];
    r->node[cell_of(top)].heap = -1;
    int32_t len = --r->len;
    if (len == 0) return top;
    uint64_t last = r->heap[len];
    int32_t i = 0;
    for (;;) {
        int32_t c = 4 * i + 1;
        if (c >= len) break;
        int32_t best = c;
        int32_t end = c + 4 < len ? c + 4 : len;
        for (int32_t k = c + 1; k < end; k++)
            if (r->heap[k] < r->heap[best]) best = k;
        if (r->heap[best] >= last) break;
        r->heap[i] = r->heap[best];
        r->node[cell_of(r->heap[i])].heap = i;
        i = best;
    }
    r->heap[i] = last;
    r->node[cell_of(last)].heap = i;
    return top;
}

static inline double octile(int32_t dx, int32_t dy) {
    dx = dx < 0 ? -dx : dx;
    dy = dy < 0 ? -dy : dy;
    return dx < dy ? dy + (SQRT2 - 1.0) * dx : dx + (SQRT2 - 1.0) * dy;
}

double ref_find(ref_astar *r, int32_t sx, int32_t sy, int32_t gx, int32_t gy, uint64_t *expansions) {
    static const double step[8] = {1, 1, 1, 1, SQRT2, SQRT2, SQRT2, SQRT2};
    uint32_t gen = ++r->gen;
    int32_t stride = r->stride, start = (sy + 1) * stride + sx + 1, goal = (gy + 1) * stride + gx + 1;
    uint64_t n = 0;
    r->len = 1;
    r->node[start] = (ref_node){0.0, gen, 0};
    r->heap[0] = key_of(octile(sx - gx, sy - gy), start);
    while (r->len > 0) {
        int32_t a = cell_of(pop(r));
        n++;
        double ga = r->node[a].g;
        if (a == goal) {
            *expansions = n;
            return ga;
        }
        int32_t ax = a % stride - 1, ay = a / stride - 1;
        for (unsigned m = r->moves[a]; m; m &= m - 1) {
            int d = __builtin_ctz(m);
            int32_t b = a + r->offset[d];
            double ng = ga + step[d];
            ref_node *nb = &r->node[b];
            if (nb->gen != gen) *nb = (ref_node){INFINITY, gen, -1};
            else if (!(ng < nb->g)) continue;
            uint64_t key = key_of(ng + octile(ax + DX[d] - gx, ay + DY[d] - gy), b);
            if (nb->heap < 0 && nb->g != INFINITY) continue; /* closed: consistent h */
            nb->g = ng;
            if (nb->heap >= 0) {
                sift_up(r, nb->heap, key);
            } else {
                sift_up(r, r->len++, key);
            }
        }
    }
    *expansions = n;
    return INFINITY;
}
