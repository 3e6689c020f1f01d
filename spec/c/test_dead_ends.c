/*
 * Dead ends that follow the terrain (src/dead_ends.c, docs/design/dead_ends.md "A living
 * world"): after every cell write, each table built is checked against what makes skipping
 * exact, computed here from the terrain and the table's own arrays:
 *   - every area not retired is cut off by its gateway: every move of the kind's graph from a
 *     walkable cell whose chain of areas holds it ends at a cell whose chain holds it too, or
 *     at its gateway;
 *   - the table's neighbour bytes are the grid's with exactly the moves of the kind's graph
 *     from each gateway into its areas not retired removed (no move into a blocked cell, none
 *     kept shut wrongly; a move outside the kind's graph may stay shut or not);
 * and queries skipping dead ends cost what the same query searching everything costs (the
 * views re-synced from the log, or in full when it does not reach back). After
 * astar_dead_ends_refresh the table is the one a build from scratch makes.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "check.h"
#include "grid.h"

/* The directions of a kind's graph from a cell of row y (0-based), as the table's. */
static unsigned kind_moves(int kind, int32_t y) {
    return kind == 0 ? 0x0Fu : kind == 1 ? 0xFFu : ((y & 1) ? 0x3Fu : 0xCFu);
}

static bool walkable(const astar_grid *g, int32_t cell) { return g->cost[cell] != INFINITY; }

/* Whether area k is on the chain of areas of cell. */
static bool holds(const astar_dead_ends *de, int32_t k, int32_t cell) {
    for (int32_t a = de->area[cell] < 0 ? -1 : de->area[cell]; a >= 0; a = de->parent[a])
        if (a == k) return true;
    return false;
}

static long violations;

static void check_table(const astar_grid *g, int kind) {
    const astar_dead_ends *de = &g->dead_ends[kind];
    if (!de->fresh) return;
    int32_t offset[8];
    for (int d = 0; d < 8; d++) offset[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
    long bad = 0;
    for (size_t c = 0; c < g->cells; c++) {
        if (!walkable(g, (int32_t)c)) continue;
        unsigned moves = kind_moves(kind, (int32_t)c / g->stride - 1);
        for (int32_t k = de->area[c] < 0 ? -1 : de->area[c]; k >= 0; k = de->parent[k]) {
            if (!de->into[k]) continue; /* retired */
            for (int d = 0; d < 8; d++) {
                int32_t n = (int32_t)c + offset[d];
                if (!(moves >> d & 1u) || !walkable(g, n) || n == de->gateway[k]) continue;
                if (!holds(de, k, n)) bad++;
            }
        }
    }
    for (size_t x = 0; x < g->cells; x++) {
        unsigned shut = 0, moves = kind_moves(kind, (int32_t)x / g->stride - 1);
        for (int32_t k = 0; k < de->nareas; k++)
            if (de->gateway[k] == (int32_t)x) shut |= de->into[k];
        /* never a move the grid has not; from a walkable cell the kind's moves exactly (others
         * shut or not); a blocked cell's byte, unused until it opens, may have more open */
        unsigned want = g->open[x] & ~shut & moves;
        bool open_ok = walkable(g, (int32_t)x) ? (de->open[x] & moves) == want : (de->open[x] & want) == want;
        if ((de->open[x] & ~g->open[x]) || !open_ok) bad++;
    }
    int32_t retired = 0;
    for (int32_t k = 0; k < de->nareas; k++) retired += de->into[k] == 0;
    if (retired != de->nretired) bad++;
    CHECK(bad == 0);
    violations += bad;
}

/* A maze carved on odd cells (many nested one-cell areas), a few walls knocked out, or random
 * terrain; costs 1 or dearer. */
static void make_terrain(double *cost, int32_t w, int32_t h) {
    for (int32_t i = 0; i < w * h; i++) cost[i] = INFINITY;
    if (rnd() % 2) {
        int32_t *stack = malloc(sizeof(int32_t) * (size_t)(w * h));
        bool *seen = calloc((size_t)(w * h), 1);
        int32_t sp = 0;
        stack[sp++] = 0;
        seen[0] = true;
        cost[0] = 1;
        while (sp > 0) {
            int32_t at = stack[sp - 1], x = at % w, y = at / w, opts[4], n = 0;
            static const int dx[4] = {2, -2, 0, 0}, dy[4] = {0, 0, 2, -2};
            for (int d = 0; d < 4; d++) {
                int32_t nx = x + dx[d], ny = y + dy[d];
                if (nx >= 0 && ny >= 0 && nx < w && ny < h && !seen[ny * w + nx]) opts[n++] = d;
            }
            if (n == 0) {
                sp--;
                continue;
            }
            int d = opts[rnd() % (uint32_t)n];
            int32_t nx = x + dx[d], ny = y + dy[d];
            seen[ny * w + nx] = true;
            cost[(y + dy[d] / 2) * w + x + dx[d] / 2] = 1 + rnd() % 3;
            cost[ny * w + nx] = 1;
            stack[sp++] = ny * w + nx;
        }
        for (int i = rnd() % 4; i > 0; i--) cost[rnd() % (uint32_t)(w * h)] = 1;
        free(stack);
        free(seen);
    } else {
        uint32_t wall = 20 + rnd() % 25;
        for (int32_t i = 0; i < w * h; i++) cost[i] = rnd() % 100 < wall ? INFINITY : 1 + rnd() % 4;
    }
}

static const astar_diagonal MODES[] = {ASTAR_DIAG_NEVER, ASTAR_DIAG_ALWAYS, ASTAR_DIAG_ONE_WALKABLE,
                                       ASTAR_DIAG_NO_CORNER_CUT, ASTAR_DIAG_HEX};

/* A query with and without dead ends: the same status and cost. */
static void compare(astar_search *s, astar_search *plain, astar_grid *g, astar_diagonal mode) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    astar_query q;
    astar_query_init(&q);
    q.sx = (int32_t)(rnd() % (uint32_t)w), q.sy = (int32_t)(rnd() % (uint32_t)h);
    q.gx = (int32_t)(rnd() % (uint32_t)w), q.gy = (int32_t)(rnd() % (uint32_t)h);
    q.diagonal = mode;
    q.jps = ASTAR_JPS_OFF;
    astar_result a, b;
    astar_status sa = astar_find(s, g, &q, &a);
    q.dead_ends = 0;
    astar_status sb = astar_find(plain, g, &q, &b);
    CHECK(sa == sb);
    if (sa == ASTAR_OK && sb == ASTAR_OK) CHECK(fabs(a.cost - b.cost) <= 1e-9 * (1 + b.cost));
}

/* Every kind's table against one built from scratch on the same terrain. */
static void check_refreshed(astar_grid *g) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    double *cost = malloc(sizeof(double) * (size_t)(w * h));
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) cost[y * w + x] = astar_grid_get_cost(g, x, y);
    astar_grid *fresh = astar_grid_new(w, h, astar_grid_diagonal(g), NULL);
    CHECK(astar_grid_set_all(fresh, cost) == ASTAR_OK);
    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) {
        astar_dead_ends *de = &g->dead_ends[k], *want;
        if (!de->fresh) continue;
        CHECK(de->nretired == 0);
        CHECK(astar_dead_ends_get(fresh, k, &want) == ASTAR_OK);
        CHECK(de->nareas == want->nareas);
        if (de->nareas != want->nareas) continue;
        size_t n = (size_t)de->nareas * sizeof(int32_t);
        CHECK(memcmp(de->area, want->area, g->cells * sizeof(int32_t)) == 0);
        bool same = true; /* inside the border (set_cost writes its bits, a bulk write not) */
        for (int32_t y = 0; y < h; y++)
            for (int32_t x = 0; x < w; x++) {
                int32_t c = astar_cell(g->stride, x, y);
                same = same && de->open[c] == want->open[c];
            }
        CHECK(same);
        CHECK(n == 0 || memcmp(de->gateway, want->gateway, n) == 0);
        CHECK(n == 0 || memcmp(de->parent, want->parent, n) == 0);
        CHECK(n == 0 || memcmp(de->into, want->into, (size_t)de->nareas) == 0);
    }
    astar_grid_free(fresh);
    free(cost);
}

/* Out of memory part-way through a table's first build (its areas made, its bytes not), then a
 * bulk write: the write builds again only a whole table (the fuzzer found a memcpy into the
 * missing bytes), and the table is built on its next use. */
static void test_bulk_after_oom(void) {
    for (long fail = 1; fail <= 8; fail++) {
        counting cnt = {0};
        astar_alloc a = {count_alloc, &cnt};
        astar_grid *g = astar_grid_new(12, 9, ASTAR_DIAG_NO_CORNER_CUT, &a);
        CHECK(g != NULL);
        if (!g) continue;
        astar_grid_set_cost(g, 5, 0, INFINITY), astar_grid_set_cost(g, 5, 1, INFINITY);
        astar_grid_set_cost(g, 5, 3, INFINITY), astar_grid_set_cost(g, 5, 4, INFINITY);
        cnt.fail_at = cnt.allocs + fail;
        int32_t area, gate;
        astar_status st = astar_grid_dead_end(g, 2, 2, &area, &gate);
        CHECK(st == ASTAR_OK || st == ASTAR_ENOMEM);
        cnt.fail_at = 0;
        CHECK(astar_grid_fill(g, 2.0) == ASTAR_OK);
        astar_grid_set_cost(g, 5, 2, INFINITY);
        CHECK(astar_grid_dead_end(g, 2, 2, &area, &gate) == ASTAR_OK);
        astar_grid_free(g);
        CHECK(cnt.live == 0);
    }
}

int main(void) {
    test_bulk_after_oom();
    long retired = 0, queries = 0;
    for (int world = 0; world < 60; world++) {
        int32_t w = 6 + (int32_t)(rnd() % 30), h = 6 + (int32_t)(rnd() % 30);
        astar_diagonal mode = MODES[world % 5];
        astar_grid *g = astar_grid_new(w, h, mode, NULL);
        astar_search *s = astar_search_new(w, h, NULL), *plain = astar_search_new(w, h, NULL);
        double *cost = malloc(sizeof(double) * (size_t)(w * h));
        make_terrain(cost, w, h);
        CHECK(astar_grid_set_all(g, cost) == ASTAR_OK);
        astar_dead_ends *de;
        /* The grid's own kind, and a second one on square grids (a query's diagonal). */
        CHECK(astar_dead_ends_get(g, astar_dead_end_kind(mode), &de) == ASTAR_OK);
        if (mode != ASTAR_DIAG_HEX) CHECK(astar_dead_ends_get(g, mode == ASTAR_DIAG_NEVER ? 1 : 0, &de) == ASTAR_OK);
        for (int round = 0; round < 3; round++) {
            for (int step = 0; step < 60; step++) {
                /* A gate: one to three cells in a row, toggled; or any cell's cost. */
                int32_t x = (int32_t)(rnd() % (uint32_t)w), y = (int32_t)(rnd() % (uint32_t)h);
                int len = 1 + (int)(rnd() % 3);
                bool across = rnd() % 2, block = rnd() % 2;
                for (int i = 0; i < len; i++) {
                    int32_t cx = across ? x + i : x, cy = across ? y : y + i;
                    if (cx >= w || cy >= h) break;
                    double c = block ? INFINITY : (double)(1 + rnd() % 3);
                    CHECK(astar_grid_set_cost(g, cx, cy, c) == ASTAR_OK);
                    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) check_table(g, k);
                }
                if (step % 4 == 0) {
                    compare(s, plain, g, mode);
                    if (mode != ASTAR_DIAG_HEX) compare(s, plain, g, MODES[rnd() % 4]);
                    queries++;
                }
            }
            if (round == 1) { /* more edits than the log holds between two queries */
                for (int i = 0; i < 300; i++) {
                    int32_t x = (int32_t)(rnd() % (uint32_t)w), y = (int32_t)(rnd() % (uint32_t)h);
                    CHECK(astar_grid_set_cost(g, x, y, rnd() % 2 ? INFINITY : 1) == ASTAR_OK);
                }
                for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) check_table(g, k);
                compare(s, plain, g, mode);
            }
            for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) retired += g->dead_ends[k].nretired;
            CHECK(astar_dead_ends_refresh(g, round != 0) == ASTAR_OK);
            if (round == 0)
                for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) CHECK(g->dead_ends[k].nretired == 0);
            else
            check_refreshed(g);
            compare(s, plain, g, mode);
        }
        /* A bulk write builds them again at the write, not in a query: refresh has nothing to do. */
        make_terrain(cost, w, h);
        CHECK(astar_grid_set_all(g, cost) == ASTAR_OK);
        CHECK(g->dead_ends[astar_dead_end_kind(mode)].fresh);
        uint64_t serial = g->dead_ends[astar_dead_end_kind(mode)].serial;
        CHECK(astar_dead_ends_refresh(g, false) == ASTAR_OK);
        CHECK(g->dead_ends[astar_dead_end_kind(mode)].serial == serial);
        check_refreshed(g);
        compare(s, plain, g, mode);
        free(cost);
        astar_search_free(s);
        astar_search_free(plain);
        astar_grid_free(g);
    }
    printf("%ld queries, %ld areas retired, %ld violations\n", queries, retired, violations);
    CHECK(retired > 50); /* the opening rule was exercised */
    return check_summary();
}
