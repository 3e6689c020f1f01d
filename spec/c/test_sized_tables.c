/*
 * The tables of bigger units kept in step with the terrain: after random single-cell writes
 * (opening, blocking, cost changes) to a grid whose island labels and hierarchy of a unit
 * size were made before, both equal what a fresh grid of the same terrain builds from scratch:
 * the labels as a partition of the cells (a bijection of roots, blocked on both), the
 * hierarchy cluster by cluster (entrances, their sides, the cost table, to the bit). A write
 * that a size's tables miss (a dirty mark or a join/split left out) shows as a difference.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "check.h"
#include "grid.h"
#include "hierarchy.h"

static double random_cost(int blocked_percent) {
    return (int)(rnd() % 100) < blocked_percent ? INFINITY : 1.0 + rnd() % 3;
}

/* The labels of g and f (same terrain) as partitions: roots map one to one. */
static void compare_islands(astar_grid *g, astar_grid *f, int kind, int size) {
    astar_islands *a = NULL, *b = NULL;
    /* followed through every write, never left to be built again by a query */
    CHECK(g->islands[astar_island_set(kind, size)].fresh);
    CHECK(astar_islands_sized(g, kind, size, &a) == ASTAR_OK);
    CHECK(astar_islands_sized(f, kind, size, &b) == ASTAR_OK);
    if (!a || !b) return;
    size_t n = g->cells;
    int32_t *to = malloc(n * sizeof *to), *from = malloc(n * sizeof *from);
    if (!to || !from) abort();
    for (size_t i = 0; i < n; i++) to[i] = from[i] = -1;
    long bad = 0;
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            int32_t cell = astar_cell(g->stride, x, y);
            int32_t ra = astar_islands_root(a, cell), rb = astar_islands_root(b, cell);
            if ((ra < 0) != (rb < 0)) {
                bad++;
                continue;
            }
            if (ra < 0) continue;
            if (to[ra] < 0 && from[rb] < 0) to[ra] = rb, from[rb] = ra;
            if (to[ra] != rb || from[rb] != ra) bad++;
        }
    CHECK(bad == 0);
    free(to);
    free(from);
}

static void compare_hierarchies(astar_grid *g, astar_grid *f, int size) {
    struct astar_hierarchy *a = NULL, *b = NULL;
    CHECK(astar_hierarchy_sized(g, size, &a) == ASTAR_OK && astar_hierarchy_refresh(g, a) == ASTAR_OK);
    CHECK(astar_hierarchy_sized(f, size, &b) == ASTAR_OK && astar_hierarchy_refresh(f, b) == ASTAR_OK);
    if (!a || !b) return;
    CHECK(a->unit == size && b->unit == size && a->nodes == b->nodes);
    long bad = 0;
    for (int32_t k = 0; k < a->cols * a->rows; k++) {
        const astar_hier_cluster *x = &a->clusters[k], *y = &b->clusters[k];
        if (x->n != y->n || x->dirty || y->dirty) {
            bad++;
            continue;
        }
        size_t n = (size_t)x->n;
        if (n && (memcmp(x->cell, y->cell, n * sizeof *x->cell) || memcmp(x->sides, y->sides, n) ||
                  memcmp(x->dist, y->dist, n * n * sizeof *x->dist)))
            bad++;
    }
    if (bad) fprintf(stderr, "size %d: %ld clusters differ from a fresh build\n", size, bad);
    CHECK(bad == 0);
}

static void world(int32_t w, int32_t h, astar_diagonal mode, int size, int32_t clusters, int writes) {
    astar_grid *g = astar_grid_new(w, h, mode, NULL);
    CHECK(g != NULL);
    if (!g) return;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) astar_grid_set_cost(g, x, y, random_cost(8));
    CHECK(astar_grid_hierarchy(g, clusters) == ASTAR_OK);
    /* The tables of this size made before the writes, so that the writes must keep them. */
    struct astar_hierarchy *hs;
    astar_islands *is;
    CHECK(astar_hierarchy_sized(g, size, &hs) == ASTAR_OK && astar_hierarchy_refresh(g, hs) == ASTAR_OK);
    for (int kind = 0; kind < ASTAR_ISLAND_SIZED_KINDS; kind++)
        CHECK(astar_islands_sized(g, kind, size, &is) == ASTAR_OK);
    for (int i = 0; i < writes; i++) {
        int32_t x = (int32_t)(rnd() % (uint32_t)w), y = (int32_t)(rnd() % (uint32_t)h);
        astar_grid_set_cost(g, x, y, random_cost(45));
        if (i % 5 == 4) { /* a query refreshes the hierarchy between writes */
            CHECK(astar_hierarchy_refresh(g, hs) == ASTAR_OK);
        }
    }
    astar_grid *f = astar_grid_new(w, h, mode, NULL);
    CHECK(f != NULL);
    if (!f) return;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) astar_grid_set_cost(f, x, y, astar_grid_get_cost(g, x, y));
    CHECK(astar_grid_hierarchy(f, clusters) == ASTAR_OK);
    compare_hierarchies(g, f, size);
    for (int kind = 0; kind < ASTAR_ISLAND_SIZED_KINDS; kind++) compare_islands(g, f, kind, size);
    astar_grid_free(f);
    astar_grid_free(g);
}

int main(void) {
    static const astar_diagonal modes[3] = {ASTAR_DIAG_NEVER, ASTAR_DIAG_ONE_WALKABLE, ASTAR_DIAG_NO_CORNER_CUT};
    for (int round = 0; round < 60; round++) {
        int32_t w = 8 + (int32_t)(rnd() % 30), h = 8 + (int32_t)(rnd() % 30);
        int size = round % 10 == 9 ? ASTAR_MAX_SIZE : 2 + (int)(rnd() % 3);
        world(w, h, modes[round % 3], size, 3 + (int32_t)(rnd() % 6), 40 + (int)(rnd() % 80));
    }
    /* No labels of a bigger unit on hexes (a square footprint has no meaning there), nor before
     * the clearance table they read is made. */
    astar_grid *hex = astar_grid_new(6, 6, ASTAR_DIAG_HEX, NULL), *sq = astar_grid_new(6, 6, ASTAR_DIAG_NEVER, NULL);
    const uint8_t *clr;
    astar_islands *is = NULL;
    CHECK(hex && sq);
    if (hex && sq) {
        CHECK(astar_islands_sized(sq, 0, 2, &is) == ASTAR_EINVAL && is == NULL);
        CHECK(astar_clearance_get(hex, &clr) == ASTAR_OK);
        CHECK(astar_islands_sized(hex, 2, 2, &is) == ASTAR_EINVAL && is == NULL);
        CHECK(astar_islands_sized(hex, 2, 1, &is) == ASTAR_OK && is != NULL);
    }
    astar_grid_free(hex);
    astar_grid_free(sq);
    return check_summary();
}
