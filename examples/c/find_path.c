/*
 * A C host using the core with no Lua at all: a small map, a C cost callback
 * that makes a "danger zone" expensive, and the path printed over the map.
 *
 *   ./build/astar_example
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "astar.h"

static const char *MAP[] = {
    "....................",
    "....................",
    "..######....######..",
    "..#................#",
    "..#...########.....#",
    "..#................#",
    "..######....######..",
    "....................",
};
enum { W = 20, H = 8 };

/* The host's own state, reached through the callback's void pointer. */
typedef struct danger_zone {
    int cx, cy, radius;
    double penalty;
} danger_zone;

static int danger_cost(void *ud, int32_t x, int32_t y, double *extra) {
    const danger_zone *z = ud;
    int dx = x - z->cx, dy = y - z->cy;
    *extra = dx * dx + dy * dy <= z->radius * z->radius ? z->penalty : 0.0;
    return ASTAR_CB_PASS;
}

static int run(const char *title, astar_grid *grid, astar_search *search, astar_query *q) {
    astar_result res;
    astar_status st = astar_find(search, grid, q, &res);
    printf("%s: %s, cost %.3f, %llu expansions\n", title, astar_status_name(st), res.cost,
           (unsigned long long)res.expansions);
    if (st != ASTAR_OK) return 1;
    char canvas[H][W + 1];
    for (int y = 0; y < H; y++) memcpy(canvas[y], MAP[y], W + 1);
    int32_t n = 0;
    const int32_t *path = astar_search_path(search, &n);
    for (int32_t i = 0; i < n; i++) canvas[path[i] / W][path[i] % W] = '*';
    for (int y = 0; y < H; y++) printf("  %s\n", canvas[y]);
    return 0;
}

int main(void) {
    astar_grid *grid = astar_grid_new(W, H, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *search = astar_search_new(W, H, NULL);
    if (!grid || !search) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (MAP[y][x] == '#') astar_grid_set_cost(grid, x, y, INFINITY);

    astar_query q;
    astar_query_init(&q);
    q.sx = 0, q.sy = 4, q.gx = 17, q.gy = 4;
    int failed = run("plain", grid, search, &q);

    danger_zone zone = {10, 2, 2, 25.0};
    q.node_cost = danger_cost;
    q.node_cost_ud = &zone;
    failed |= run("with a danger zone around the top gap (10, 2)", grid, search, &q);

    astar_search_free(search);
    astar_grid_free(grid);
    return failed;
}
