/*
 * Clearance (src/clearance.c, docs/design/clearance.md): after every write, the table equals
 * a brute-force recomputation from the terrain read through the public API: for each cell,
 * the largest k <= ASTAR_MAX_SIZE such that the k x k cells with that top-left corner are
 * inside the map and walkable. Random worlds of sides below and above the cap, single cell
 * writes (the O(cap^2) update), bulk writes (the rebuild), and out of memory at the first use.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "astar.h"
#include "check.h"
#include "grid.h"

static int brute(const astar_grid *g, int32_t x, int32_t y) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    int k = 0;
    while (k < ASTAR_MAX_SIZE) {
        int n = k + 1; /* does the n x n square fit? */
        if (x + n > w || y + n > h) break;
        bool free = true;
        for (int32_t j = y; j < y + n && free; j++)
            for (int32_t i = x; i < x + n && free; i++) free = astar_grid_get_cost(g, i, j) != INFINITY;
        if (!free) break;
        k = n;
    }
    return k;
}

static long mismatches;

/* The whole table against the brute force, and the border at 0. */
static void compare(astar_grid *g) {
    const uint8_t *clr = NULL;
    CHECK(astar_clearance_get(g, &clr) == ASTAR_OK && clr == g->clearance);
    if (!clr) return;
    long bad = 0;
    for (int32_t y = -1; y <= g->height; y++)
        for (int32_t x = -1; x <= g->width; x++) {
            bool inside = x >= 0 && y >= 0 && x < g->width && y < g->height;
            int want = inside ? brute(g, x, y) : 0;
            if (clr[astar_cell(g->stride, x, y)] != want) {
                if (!bad) fprintf(stderr, "cell (%d,%d): table %d, brute %d\n", (int)x, (int)y,
                                  clr[astar_cell(g->stride, x, y)], want);
                bad++;
            }
        }
    mismatches += bad;
    CHECK(bad == 0);
}

static double random_cost(int blocked_percent) {
    return (int)(rnd() % 100) < blocked_percent ? INFINITY : 1.0 + rnd() % 4;
}

static void random_world(int32_t w, int32_t h, int blocked_percent, int writes) {
    astar_grid *g = astar_grid_new(w, h, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    CHECK(g != NULL);
    if (!g) return;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) astar_grid_set_cost(g, x, y, random_cost(blocked_percent));
    CHECK(g->clearance == NULL); /* writes alone never make it */
    compare(g);                  /* made here, from the terrain */
    for (int i = 0; i < writes; i++) {
        /* Open or block one cell (often near what was written: clusters of changes). */
        astar_grid_set_cost(g, (int32_t)(rnd() % (uint32_t)w), (int32_t)(rnd() % (uint32_t)h),
                            random_cost(50));
        if (i % 7 == 0 || i == writes - 1) compare(g);
    }
    /* A bulk write rebuilds it; a cost change that keeps walkability changes nothing. */
    double *costs = malloc((size_t)w * (size_t)h * sizeof *costs);
    CHECK(costs != NULL);
    if (costs) {
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++) costs[i] = random_cost(blocked_percent);
        CHECK(astar_grid_set_all(g, costs) == ASTAR_OK);
        compare(g);
        free(costs);
    }
    CHECK(astar_grid_fill(g, 2.0) == ASTAR_OK);
    compare(g);
    CHECK(astar_grid_set_cost(g, 0, 0, 3.0) == ASTAR_OK);
    compare(g);
    astar_grid_free(g);
}

/* The first use out of memory: ASTAR_ENOMEM, the table unmade, and made on the next use. */
static void out_of_memory(void) {
    counting c = {0};
    astar_alloc a = {count_alloc, &c};
    astar_grid *g = astar_grid_new(20, 13, ASTAR_DIAG_ALWAYS, &a);
    CHECK(g != NULL);
    if (!g) return;
    astar_grid_set_cost(g, 5, 5, INFINITY);
    c.fail_at = c.allocs + 1;
    const uint8_t *clr = NULL;
    CHECK(astar_clearance_get(g, &clr) == ASTAR_ENOMEM && g->clearance == NULL);
    astar_grid_set_cost(g, 6, 5, INFINITY); /* followed while unmade: nothing to follow */
    c.fail_at = 0;
    compare(g);
    astar_grid_free(g);
    CHECK(c.live == 0 && c.bytes == 0);
}

/* A query filled by hand, not by astar_query_init, has size 0: one cell, as before the field
 * existed (a C caller's zeroed struct must keep working). */
static void zero_size_is_one_cell(void) {
    astar_grid *g = astar_grid_new(6, 4, ASTAR_DIAG_ALWAYS, NULL);
    astar_search *s = astar_search_new(6, 4, NULL);
    CHECK(g && s);
    if (!g || !s) return;
    astar_query q;
    astar_query_init(&q);
    q.sx = 0, q.sy = 0, q.gx = 5, q.gy = 3;
    astar_result one, zero;
    CHECK(astar_find(s, g, &q, &one) == ASTAR_OK);
    q.size = 0;
    CHECK(astar_find(s, g, &q, &zero) == ASTAR_OK && zero.cost == one.cost);
    q.size = -1;
    CHECK(astar_find(s, g, &q, &zero) == ASTAR_EINVAL);
    astar_search_free(s);
    astar_grid_free(g);
}

int main(void) {
    /* Sides below, at and above the cap; 1-wide maps; sparse and dense walls. */
    static const int32_t sides[][2] = {{1, 1}, {1, 17}, {17, 1}, {3, 5}, {8, 8}, {9, 7}, {23, 31}, {64, 40}};
    for (size_t s = 0; s < sizeof sides / sizeof *sides; s++)
        for (int p = 0; p <= 60; p += 15) random_world(sides[s][0], sides[s][1], p, 400);
    out_of_memory();
    zero_size_is_one_cell();
    printf("mismatched cells: %ld\n", mismatches);
    return check_summary();
}
