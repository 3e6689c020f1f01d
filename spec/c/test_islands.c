/*
 * Island labels kept exact through every change (src/islands.c, issue 26), on worlds larger
 * than the Lua specs' (so that the labels run out and are built afresh at a change, and
 * floods run long): after each batch of random set_cost calls (walls grown and broken, rooms
 * closed and opened), astar_grid_component's partition is compared with a flood fill written
 * here (its own neighbour rule per kind), and each island's size in the labels with the
 * count; then astar_find_many on threads answers unreachable goals with 0 expansions, the same
 * as astar_find on the calling thread. A progress handler that stops a change's floods leaves
 * exact labels after all (built on the next use). Hundreds of one-cell islands cut out one by
 * one use the labels up, which are then built afresh at a change.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "check.h"
#include "grid.h" /* internal: the labels' sizes */

/* Neighbours of (x, y) under a mode's connectivity: 4 (never, no_corner_cut, one_walkable:
 * a corner step needs a side open, which joins the same two cells by straight steps), 8
 * (always), 6 on hexes (odd rows, 0-based, sit half a cell right). */
static int neighbours(astar_diagonal mode, int32_t x, int32_t y, int32_t nx[8], int32_t ny[8]) {
    static const int sx[4] = {0, 1, 0, -1}, sy[4] = {-1, 0, 1, 0};
    int n = 0;
    for (int d = 0; d < 4; d++) nx[n] = x + sx[d], ny[n++] = y + sy[d];
    if (mode == ASTAR_DIAG_ALWAYS) {
        for (int dy = -1; dy <= 1; dy += 2)
            for (int dx = -1; dx <= 1; dx += 2) nx[n] = x + dx, ny[n++] = y + dy;
    } else if (mode == ASTAR_DIAG_HEX) {
        int dx = (y & 1) ? 1 : -1;
        nx[n] = x + dx, ny[n++] = y - 1;
        nx[n] = x + dx, ny[n++] = y + 1;
    }
    return n;
}

/* comp[y * w + x]: an island number >= 0 by a flood fill, -1 when blocked. Returns the count. */
static int flood_islands(const astar_grid *g, astar_diagonal mode, int32_t *comp, int32_t *stack) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g), n = 0;
    for (int32_t i = 0; i < w * h; i++) comp[i] = -2;
    for (int32_t i = 0; i < w * h; i++) {
        if (comp[i] != -2) continue;
        if (astar_grid_get_cost(g, i % w, i / w) == INFINITY) {
            comp[i] = -1;
            continue;
        }
        int32_t top = 0;
        comp[i] = n;
        stack[top++] = i;
        while (top > 0) {
            int32_t c = stack[--top], nx[8], ny[8];
            int k = neighbours(mode, c % w, c / w, nx, ny);
            for (int j = 0; j < k; j++) {
                if (nx[j] < 0 || ny[j] < 0 || nx[j] >= w || ny[j] >= h) continue;
                int32_t id = ny[j] * w + nx[j];
                if (comp[id] == -2 && astar_grid_get_cost(g, nx[j], ny[j]) != INFINITY) {
                    comp[id] = n;
                    stack[top++] = id;
                }
            }
        }
        n++;
    }
    return n;
}

/* The labels against the flood: the same partition, and each island's size in the labels. */
static bool labels_exact(astar_grid *g, astar_diagonal mode) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    int32_t *comp = malloc(sizeof *comp * (size_t)(w * h)), *stack = malloc(sizeof *stack * (size_t)(w * h));
    int32_t *ours = malloc(sizeof *ours * (size_t)(w * h));
    int n = flood_islands(g, mode, comp, stack);
    int32_t *to_ours = malloc(sizeof *to_ours * (size_t)(n + 1)), *count = calloc((size_t)n + 1, sizeof *count);
    for (int i = 0; i < n; i++) to_ours[i] = -1;
    bool ok = true;
    for (int32_t i = 0; i < w * h && ok; i++) {
        int32_t id;
        if (astar_grid_component(g, i % w, i / w, &id) != ASTAR_OK) ok = false;
        ours[i] = id;
        if (comp[i] < 0) {
            ok = ok && id == -1;
            continue;
        }
        if (to_ours[comp[i]] < 0) to_ours[comp[i]] = id;
        ok = ok && to_ours[comp[i]] == id && id >= 0;
        count[comp[i]]++;
    }
    /* one id per island, both ways */
    for (int a = 0; a < n && ok; a++)
        for (int b = a + 1; b < n && ok; b++) ok = to_ours[a] != to_ours[b];
    const astar_islands *is = &g->islands[astar_island_kind(mode)];
    for (int a = 0; a < n && ok; a++) ok = astar_islands_size(is, to_ours[a]) == count[a];
    free(comp), free(stack), free(ours), free(to_ours), free(count);
    return ok;
}

/* A change: a wall segment grown (rooms close), a cell opened or blocked at random. */
static void change(astar_grid *g) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    int32_t x = (int32_t)(rnd() % (uint32_t)w), y = (int32_t)(rnd() % (uint32_t)h);
    uint32_t r = rnd() % 10;
    if (r < 3) { /* a wall segment */
        int horizontal = rnd() & 1;
        for (int i = 0; i < 6; i++)
            astar_grid_set_cost(g, horizontal ? x + i < w ? x + i : x : x, horizontal ? y : y + i < h ? y + i : y,
                                INFINITY);
    } else {
        astar_grid_set_cost(g, x, y, r < 6 ? 1.0 + (double)(rnd() % 3) : INFINITY);
    }
}

/* Random pairs through astar_find_many on threads, against astar_find here: the same status
 * and expansions, and 0 expansions for an unreachable goal from a walkable start. */
static void threads_agree(astar_grid *g, astar_diagonal mode) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    enum { N = 64 };
    int32_t ends[4 * N];
    for (int i = 0; i < 4 * N; i += 2) ends[i] = (int32_t)(rnd() % (uint32_t)w), ends[i + 1] = (int32_t)(rnd() % (uint32_t)h);
    astar_query q;
    astar_query_init(&q);
    q.diagonal = mode;
    q.jps = ASTAR_JPS_OFF;
    astar_many *m = astar_many_new(w, h, NULL);
    astar_search *s = astar_search_new(w, h, NULL);
    astar_result many[N];
    CHECK(astar_find_many(m, g, &q, ends, N, 4, many) != ASTAR_EINVAL);
    for (int i = 0; i < N; i++) {
        astar_query one = q;
        one.sx = ends[4 * i], one.sy = ends[4 * i + 1], one.gx = ends[4 * i + 2], one.gy = ends[4 * i + 3];
        astar_result r;
        astar_status st = astar_find(s, g, &one, &r);
        CHECK(st == many[i].status && r.expansions == many[i].expansions);
        if (st == ASTAR_UNREACHABLE && astar_grid_get_cost(g, one.sx, one.sy) != INFINITY) CHECK(r.expansions == 0);
    }
    astar_search_free(s);
    astar_many_free(m);
}

static int stop_fn(void *ud) {
    (void)ud;
    return 1;
}

static long units;
static int count_units(void *ud) {
    (void)ud;
    units++;
    return 0;
}

/* The units one set_cost counts (only the island labels are built on these grids). */
static long set_units(astar_grid *g, int32_t x, int32_t y, double cost) {
    units = 0;
    astar_set_progress_handler(1, count_units, NULL);
    astar_grid_set_cost(g, x, y, cost);
    astar_set_progress_handler(0, NULL, NULL);
    return units;
}

static bool same_island(astar_grid *g, int32_t ax, int32_t ay, int32_t bx, int32_t by) {
    int32_t a, b;
    return astar_grid_component(g, ax, ay, &a) == ASTAR_OK && astar_grid_component(g, bx, by, &b) == ASTAR_OK &&
           a == b && a >= 0;
}

/* A gate across a passage with a way round: a wall across a 160 x 160 field from the west
 * border to x = 119, its gate at x = 60. Closed, the two sides are joined round the wall's free
 * end (about 125 cells): walks along the wall's edge show it for about that, where floods in
 * turns from both sides took a ball on each (thousands of cells). */
static void gate_with_a_way_round(astar_diagonal mode) {
    astar_grid *g = astar_grid_new(160, 160, mode, NULL);
    for (int32_t x = 0; x < 120; x++)
        if (x != 60) astar_grid_set_cost(g, x, 80, INFINITY);
    CHECK(labels_exact(g, mode)); /* built */
    long closing = set_units(g, 60, 80, INFINITY);
    CHECK(closing > 0 && closing <= 4 * 130);
    CHECK(same_island(g, 60, 79, 60, 81));
    CHECK(labels_exact(g, mode));
    CHECK(set_units(g, 60, 80, 1.0) == 0);
    CHECK(labels_exact(g, mode));
    astar_grid_free(g);
}

/* A way round longer than the walks may go: a loop through a serpentine (rows of wall, each
 * open at one end in turn: about 16,600 cells of corridor) and back up a corridor along the
 * east border, where a gate closes. The walks stop at ASTAR_ISLAND_WALK_STEPS, and the floods
 * find the two sides joined (they meet half-way round). Then a cell of the serpentine closed
 * cuts the loop in two islands: the walks, then the floods of the smaller side. */
static void way_round_past_the_walks(astar_diagonal mode) {
    const int32_t w = 130, h = 262, east = w - 1;
    astar_grid *g = astar_grid_new(w, h, mode, NULL);
    for (int32_t y = 0; y < h; y++) astar_grid_set_cost(g, east - 1, y, INFINITY); /* the corridor's wall */
    astar_grid_set_cost(g, east - 1, 0, 1.0);                                         /* ... open at the top */
    astar_grid_set_cost(g, east - 1, h - 1, 1.0);                                     /* ... and the bottom */
    for (int32_t y = 1; y < h - 1; y += 2)
        for (int32_t x = 0; x < east - 1; x++)
            if (x != ((y / 2) % 2 ? 0 : east - 2)) astar_grid_set_cost(g, x, y, INFINITY);
    CHECK(labels_exact(g, mode));
    long closing = set_units(g, east, h / 2, INFINITY);
    CHECK(closing > ASTAR_ISLAND_WALK_STEPS); /* the walks ran out: the floods decided */
    CHECK(closing <= ASTAR_ISLAND_WALK_STEPS + 4L * w * h);
    CHECK(same_island(g, east, h / 2 - 1, east, h / 2 + 1));
    CHECK(labels_exact(g, mode));
    /* A cell of the serpentine closed: the loop, already cut at the gate, falls in two. */
    set_units(g, 40, h / 2 + 1, INFINITY);
    CHECK(!same_island(g, east, h / 2 - 1, east, h / 2 + 1));
    CHECK(labels_exact(g, mode));
    set_units(g, east, h / 2, 1.0);
    CHECK(same_island(g, east, h / 2 - 1, east, h / 2 + 1));
    CHECK(labels_exact(g, mode));
    astar_grid_free(g);
}

int main(void) {
    static const astar_diagonal modes[] = {ASTAR_DIAG_NEVER, ASTAR_DIAG_ALWAYS, ASTAR_DIAG_HEX,
                                           ASTAR_DIAG_NO_CORNER_CUT, ASTAR_DIAG_ONE_WALKABLE};
    static const int32_t sizes[][2] = {{64, 48}, {120, 90}, {17, 200}};
    int exact = 0, batches = 0;
    for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            astar_diagonal mode = modes[mi];
            int32_t w = sizes[si][0], h = sizes[si][1];
            astar_grid *g = astar_grid_new(w, h, mode, NULL);
            for (int32_t i = 0; i < w * h / 4; i++)
                astar_grid_set_cost(g, (int32_t)(rnd() % (uint32_t)w), (int32_t)(rnd() % (uint32_t)h), INFINITY);
            CHECK(labels_exact(g, mode)); /* built here */
            for (int batch = 0; batch < 40; batch++) {
                int n = 1 + (int)(rnd() % 40);
                for (int k = 0; k < n; k++) change(g);
                bool ok = labels_exact(g, mode);
                CHECK(ok);
                exact += ok;
                batches++;
                if (batch % 10 == 9) threads_agree(g, mode);
            }
            /* A change's floods stopped: the cell is written, the labels built on next use. */
            astar_set_progress_handler(1, stop_fn, NULL);
            for (int k = 0; k < 20; k++) change(g);
            astar_set_progress_handler(0, NULL, NULL);
            CHECK(labels_exact(g, mode));
            /* A bulk write builds the labels again at once: none left for the query. */
            astar_grid_fill(g, 1.0);
            for (int k = 0; k < 200; k++) change(g);
            astar_set_progress_handler(1, stop_fn, NULL);
            int32_t id;
            astar_status st = astar_grid_component(g, 0, 0, &id); /* stops only if it would build */
            astar_set_progress_handler(0, NULL, NULL);
            CHECK(st == ASTAR_OK);
            CHECK(labels_exact(g, mode));
            astar_grid_free(g);
        }
    /* Hundreds of one-cell islands cut out of open ground, one ring of walls each: each takes a
     * fresh label, more than the build left free, so the labels run out and are built afresh
     * at a change (islands.c), and stay exact. */
    for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++) {
        astar_grid *g = astar_grid_new(64, 48, modes[mi], NULL);
        CHECK(labels_exact(g, modes[mi]));
        for (int32_t y = 1; y < 47; y += 3)
            for (int32_t x = 1; x < 63; x += 3) {
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        if (dx || dy) astar_grid_set_cost(g, x + dx, y + dy, INFINITY);
                if (x == 31) CHECK(labels_exact(g, modes[mi]));
            }
        CHECK(labels_exact(g, modes[mi]));
        astar_grid_free(g);
    }
    for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++) {
        gate_with_a_way_round(modes[mi]);
        way_round_past_the_walks(modes[mi]);
    }
    printf("islands: %d of %d batches exact\n", exact, batches);
    return check_summary();
}
