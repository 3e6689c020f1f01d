/* Building landmarks: Dijkstra from and to each, farthest-point placement (see landmarks.c
 * for why the stored distances keep every heuristic they give consistent). */
#include "landmarks.h"

#include <string.h>

/* The float at or below d; NaN (no information) for d unreached, or outside what a
 * normal float holds with the relative error ASTAR_LANDMARK_UP assumes. */
static float down(double d) {
    if (d == 0.0) return 0.0f;
    if (!(d >= 0x1p-100 && d <= 0x1p100)) return NAN;
    float f = (float)d;
    if ((double)f > d) f = nextafterf(f, 0.0f);
    return f;
}

/* The cell (bordered index) of node id `id`. */
static int32_t cell_of(const astar_grid *g, int32_t id) {
    return astar_cell(g->stride, id % g->width, id / g->width);
}

/* One Dijkstra from or to `cell`, into the field. */
static astar_status measure(astar_grid *g, astar_search *s, astar_field *f, int32_t id,
                            astar_field_kind kind) {
    astar_query q;
    astar_query_init(&q);
    q.diagonal = g->diagonal;
    q.sx = id % g->width;
    q.sy = id / g->width;
    astar_result res;
    return astar_field_build(f, s, g, &q, &id, 1, kind, &res);
}

/* The node reached whose value in `far` is largest (ties: the first); -1 when none is > 0. */
static int32_t farthest(const float *far, int32_t n) {
    int32_t best = -1;
    float top = 0.0f;
    for (int32_t i = 0; i < n; i++)
        if (far[i] > top) { /* NaN (unreached) never wins */
            top = far[i];
            best = i;
        }
    return best;
}

astar_status astar_grid_landmarks(astar_grid *g, int32_t k) {
    if (k < 0 || k > ASTAR_MAX_LANDMARKS) return ASTAR_EINVAL;
    if (k == 0) {
        astar_landmarks_free(g);
        g->version++; /* a suspended search may hold the old distances: it starts over */
        return ASTAR_OK;
    }
    /* The largest island: landmarks elsewhere would serve only the queries there. */
    astar_islands *is = astar_islands_get(g, astar_island_kind(g->diagonal), true);
    if (!is) return ASTAR_ENOMEM;
    int32_t seed = -1, size = 0;
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            int32_t at = astar_cell(g->stride, x, y);
            if (is->link[at] < 0 && is->link[at] != ASTAR_ISLAND_NONE && -is->link[at] > size) {
                size = -is->link[at];
                seed = y * g->width + x;
            }
        }

    int32_t n = g->width * g->height;
    /* Where every walkable cell costs the same, a way back costs what the way there does:
     * one direction serves both terms and halves the memory. */
    double lo, hi;
    astar_grid_cost_range(g, &lo, &hi);
    int32_t dirs = lo == hi ? 1 : 2;
    /* 64 bytes more, to start the cells on a cache line. */
    size_t bytes = astar_array_size(g->cells, (size_t)dirs * (size_t)k * sizeof(float));
    bytes = bytes && bytes <= SIZE_MAX - 64 ? bytes + 64 : 0;
    astar_landmarks *lm = astar_mem(&g->alloc, NULL, 0, sizeof *lm);
    void *block = lm && bytes ? astar_mem(&g->alloc, NULL, 0, bytes) : NULL;
    float *dist = block ? (float *)(((uintptr_t)block + 63) & ~(uintptr_t)63) : NULL;
    float *near = dist ? astar_mem(&g->alloc, NULL, 0, (size_t)n * sizeof *near) : NULL;
    astar_search *s = near ? astar_search_new(g->width, g->height, &g->alloc) : NULL;
    astar_field *f = s ? astar_field_new(g->width, g->height, &g->alloc) : NULL;
    astar_status st = f ? ASTAR_OK : ASTAR_ENOMEM;
    const size_t stride = (size_t)dirs * (size_t)k;
    if (st == ASTAR_OK) {
        memset(lm, 0, sizeof *lm);
        lm->dist = dist;
        lm->block = block;
        lm->mode = g->diagonal;
        lm->dirs = dirs;
        for (size_t i = 0; i < g->cells * stride; i++) dist[i] = NAN;
    }
    double largest = 0.0;
    int32_t placed = 0, next = -1;
    if (st == ASTAR_OK && seed >= 0) {
        /* Farthest-point selection: the first landmark is the cell farthest from a cell of
         * the island, each next one the cell farthest from all chosen so far. */
        st = measure(g, s, f, seed, ASTAR_FIELD_FROM);
        for (int32_t i = 0; st == ASTAR_OK && i < n; i++)
            near[i] = down(astar_field_distance(f, i % g->width, i / g->width));
        next = st == ASTAR_OK ? farthest(near, n) : -1;
        if (next < 0) next = seed; /* a one-cell island */
    }
    while (st == ASTAR_OK && next >= 0 && placed < k) {
        int32_t i = placed++;
        lm->cells[i] = next;
        for (int dir = 0; dir < dirs && st == ASTAR_OK; dir++) {
            st = measure(g, s, f, next, dir == 0 ? ASTAR_FIELD_FROM : ASTAR_FIELD_TO);
            if (st != ASTAR_OK) break;
            for (int32_t id = 0; id < n; id++) {
                double d = astar_field_distance(f, id % g->width, id / g->width);
                float v = down(d);
                dist[(size_t)cell_of(g, id) * stride + (size_t)(dir * k + i)] = v;
                if (!isnan(v) && d > largest) largest = d;
                if (dir == 0 && i == 0) near[id] = v;
                else if (dir == 0 && v < near[id]) near[id] = v;
            }
        }
        next = farthest(near, n);
    }
    astar_field_free(f);
    astar_search_free(s);
    astar_mem(&g->alloc, near, (size_t)n * sizeof *near, 0);
    if (st != ASTAR_OK) {
        astar_mem(&g->alloc, block, bytes, 0);
        astar_mem(&g->alloc, lm, sizeof *lm, 0);
        return ASTAR_ENOMEM; /* the one way a field of the terrain alone fails */
    }
    if (placed == 0) { /* no walkable cell: nothing to measure from */
        astar_mem(&g->alloc, block, bytes, 0);
        astar_mem(&g->alloc, lm, sizeof *lm, 0);
        astar_landmarks_free(g);
        return ASTAR_OK;
    }
    lm->bytes = bytes;
    if (placed < k) { /* repack to `placed` per cell: the search strides by the count */
        for (size_t c = 0; c < g->cells; c++)
            for (int dir = 0; dir < dirs; dir++)
                for (int32_t i = 0; i < placed; i++)
                    dist[c * (size_t)dirs * (size_t)placed + (size_t)(dir * placed + i)] =
                        dist[c * stride + (size_t)(dir * k + i)];
        /* (the block keeps its size: a smaller one would lose the alignment) */
    }
    lm->k = placed;
    double eps = largest > 0 && lo > 0 ? 0x1p-22 + 0x1p-23 * ASTAR_LANDMARK_UP * largest / lo : 0.0;
    lm->shrink = eps < 1.0 ? 1.0 - eps : 0.0;
    lm->valid = true;
    astar_landmarks_free(g);
    g->landmarks = lm;
    g->version++; /* a suspended search may hold the old distances: it starts over */
    return ASTAR_OK;
}

