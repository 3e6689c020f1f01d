/*
 * astar_path_terrain (issue 26): a path's terrain check in the core, with and without a
 * version it was allowed at. The answers against a check written here (each step re-checked
 * on the terrain); the cells it reads with `since` counted through the reader, to show the
 * work follows the changes, not the path; bad cells, a path that is not a chain, bad args.
 */
#include "check.h"

/* A path as node ids, read through the reader; counts the reads. */
typedef struct path {
    const int32_t *ids;
    int32_t n;
    long reads;
    int32_t bad_at; /* the reader answers -1 here; -1: nowhere */
} path;

static int32_t reader(void *ud, int32_t i) {
    path *p = ud;
    p->reads++;
    return i == p->bad_at ? -1 : p->ids[i];
}

/* The first step after from the terrain (mode no_corner_cut) no longer allows, or -1. */
static int32_t first_bad(astar_grid *g, const int32_t *ids, int32_t n, int32_t from, int32_t w) {
    for (int32_t i = from + 1; i < n; i++) {
        int32_t ax = ids[i - 1] % w, ay = ids[i - 1] / w, bx = ids[i] % w, by = ids[i] / w;
        int32_t dx = bx - ax, dy = by - ay;
        bool ok = abs(dx) <= 1 && abs(dy) <= 1 && (dx || dy) && astar_grid_get_cost(g, bx, by) != INFINITY;
        if (ok && dx && dy)
            ok = astar_grid_get_cost(g, ax + dx, ay) != INFINITY && astar_grid_get_cost(g, ax, ay + dy) != INFINITY;
        if (!ok) return i;
    }
    return -1;
}

int main(void) {
    enum { W = 600, H = 40 };
    astar_grid *g = astar_grid_new(W, H, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    CHECK(g != NULL);
    /* A path along row 20, then a staircase down to row 39: 580 + 19 cells. */
    static int32_t ids[W + H];
    int32_t n = 0;
    for (int32_t x = 0; x < 580; x++) ids[n++] = 20 * W + x;
    for (int32_t k = 1; k < 20; k++) ids[n++] = (20 + k) * W + 579 + k;
    path p = {ids, n, 0, -1};
    int32_t index = 0;
    uint32_t v = astar_grid_version(g);
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, n, 0, &v, reader, &p, &index) == ASTAR_OK && index == -1);
    CHECK(p.reads == 0); /* nothing changed: nothing read */

    /* One wall beside the path (not on it, not at a corner it cuts): nothing stale. */
    astar_grid_set_cost(g, 300, 22, INFINITY);
    p.reads = 0;
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, n, 0, &v, reader, &p, &index) == ASTAR_OK && index == -1);
    CHECK(p.reads > 0 && p.reads < 40); /* log-like jumps toward it, then a few cells: not 599 */
    /* A wall on it: the index of the step into it, as the whole check says. */
    astar_grid_set_cost(g, 450, 20, INFINITY);
    p.reads = 0;
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, n, 0, &v, reader, &p, &index) == ASTAR_OK && index == 450);
    CHECK(p.reads < 60);
    int32_t whole = 0;
    p.reads = 0;
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, n, 0, NULL, reader, &p, &whole) == ASTAR_OK && whole == 450);
    CHECK(p.reads == 451); /* every cell up to it, once */
    /* A side cell of the staircase's diagonal: no_corner_cut forbids that step now. */
    astar_grid_set_cost(g, 590, 30, INFINITY); /* beside the step (589,30) -> (590,31) */
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, n, 451, &v, reader, &p, &index) == ASTAR_OK &&
          index == first_bad(g, ids, n, 451, W) && index == 580 + 10);
    CHECK(astar_path_terrain(g, ASTAR_DIAG_ALWAYS, n, 451, &v, reader, &p, &index) == ASTAR_OK && index == -1);

    /* Random walls from an open grid (the path allowed at v0), random starts: since and the
     * whole check agree with first_bad; since reads fewer cells. */
    long sparse_reads = 0, whole_reads = 0;
    int stale = 0;
    for (int round = 0; round < 300; round++) {
        astar_grid_fill(g, 1.0);
        uint32_t v0 = astar_grid_version(g);
        for (int k = 0; k < 1 + (int)(rnd() % 4); k++) {
            int32_t at = ids[rnd() % (uint32_t)n]; /* a path cell or one of its neighbours */
            int32_t x = at % W + (int32_t)(rnd() % 3) - 1, y = at / W + (int32_t)(rnd() % 3) - 1;
            astar_grid_set_cost(g, x, y, rnd() % 4 ? INFINITY : 2.0);
        }
        int32_t from = (int32_t)(rnd() % (uint32_t)n), a = 0, b = 0;
        int32_t want = first_bad(g, ids, n, from, W);
        stale += want >= 0;
        p.reads = 0;
        CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, n, from, &v0, reader, &p, &a) == ASTAR_OK && a == want);
        sparse_reads += p.reads;
        p.reads = 0;
        CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, n, from, NULL, reader, &p, &b) == ASTAR_OK && b == want);
        whole_reads += p.reads;
    }
    CHECK(stale > 20 && stale < 280);
    CHECK(sparse_reads * 4 < whole_reads);
    printf("300 rounds, %d stale: %ld cells read with since, %ld without\n", stale, sparse_reads, whole_reads);

    /* A reader's -1 and a path that is not a chain: EINVAL with the index. */
    uint32_t now = astar_grid_version(g);
    astar_grid_set_cost(g, 2, 21, INFINITY); /* 2 from the jumpy path's first cell */
    p.bad_at = 7;
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, n, 0, NULL, reader, &p, &index) == ASTAR_EINVAL && index == 7);
    p.bad_at = -1;
    int32_t jumpy[4] = {20 * W + 0, 20 * W + 300, 21 * W + 301, 21 * W + 302};
    path q = {jumpy, 4, 0, -1};
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, 4, 0, &now, reader, &q, &index) == ASTAR_EINVAL && index == 1);
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, 4, 0, NULL, reader, &q, &index) == ASTAR_OK && index == 1);
    CHECK(astar_path_terrain(NULL, ASTAR_DIAG_DEFAULT, 4, 0, NULL, reader, &q, &index) == ASTAR_EINVAL);
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, 4, 4, NULL, reader, &q, &index) == ASTAR_EINVAL);
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, 0, 0, NULL, reader, &q, &index) == ASTAR_EINVAL);
    CHECK(astar_path_terrain(g, ASTAR_DIAG_DEFAULT, 4, 0, NULL, NULL, &q, &index) == ASTAR_EINVAL);
    astar_grid_free(g);
    return check_summary();
}
