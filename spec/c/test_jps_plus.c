/*
 * JPS+ (its tables, src/jps_table.c): answers against plain A* (ASTAR_JPS_OFF, which
 * shares no code with JPS) and against online JPS; tables kept
 * in step cell by cell compared, entry by entry, with tables built from scratch
 * (jps_table.h, internal: not part of the API).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "check.h"
#include "jps_table.h"

/* The cost of a stored path under a uniform cost, summed here. */
static double path_cost(const astar_grid *g, const int32_t *path, int32_t n, double unit) {
    int32_t w = astar_grid_width(g);
    double sum = 0.0;
    for (int32_t i = 1; i < n; i++)
        sum += (path[i] % w != path[i - 1] % w && path[i] / w != path[i - 1] / w) ? unit * sqrt(2.0) : unit;
    return sum;
}

typedef struct tally {
    long queries, found, wrong_status, wrong_cost, bad_path, online_differs;
} tally;

/*
 * One query three ways: A* (the oracle), JPS+ and online JPS. JPS+ must give A*'s status
 * and cost and a legal path of that cost from start to goal; and, where no line reaches
 * the table's 16-bit range (same_as_online), online JPS's expansions exactly.
 */
static void compare(astar_search *s, astar_grid *g, astar_diagonal mode, int32_t sx, int32_t sy,
                    int32_t gx, int32_t gy, double unit, bool same_as_online, tally *t) {
    astar_query q;
    astar_query_init(&q);
    q.sx = sx, q.sy = sy, q.gx = gx, q.gy = gy;
    q.diagonal = mode;
    astar_result ref, plus, online;
    q.jps = ASTAR_JPS_OFF;
    astar_status st_ref = astar_find(s, g, &q, &ref);
    q.jps = ASTAR_JPS_ONLINE;
    astar_status st_online = astar_find(s, g, &q, &online);
    q.jps = ASTAR_JPS_AUTO;
    astar_status st = astar_find(s, g, &q, &plus);
    t->queries++;
    if (st != st_ref) {
        t->wrong_status++;
        if (t->wrong_status < 5)
            fprintf(stderr, "status %s, A* %s: (%d,%d)->(%d,%d) mode %d\n", astar_status_name(st),
                    astar_status_name(st_ref), (int)sx, (int)sy, (int)gx, (int)gy, (int)mode);
        return;
    }
    /* (Expansions only of searches that find.) */
    if (same_as_online && (st_online != st || (st == ASTAR_OK && online.expansions != plus.expansions))) {
        t->online_differs++;
        if (t->online_differs < 5)
            fprintf(stderr, "online %s %llu, plus %s %llu: (%d,%d)->(%d,%d) mode %d\n", astar_status_name(st_online),
                    (unsigned long long)online.expansions, astar_status_name(st),
                    (unsigned long long)plus.expansions, (int)sx, (int)sy, (int)gx, (int)gy, (int)mode);
    }
    if (st != ASTAR_OK) return;
    t->found++;
    if (fabs(plus.cost - ref.cost) > 1e-9 * ref.cost) {
        t->wrong_cost++;
        if (t->wrong_cost < 5)
            fprintf(stderr, "cost %.17g, A* %.17g: (%d,%d)->(%d,%d) mode %d\n", plus.cost, ref.cost,
                    (int)sx, (int)sy, (int)gx, (int)gy, (int)mode);
    }
    int32_t n;
    const int32_t *path = astar_search_path(s, &n);
    int32_t w = astar_grid_width(g);
    if (n != plus.length || path[0] != sy * w + sx || path[n - 1] != gy * w + gx ||
        !path_legal(g, mode, path, n) || fabs(path_cost(g, path, n, unit) - plus.cost) > 1e-9 * (1 + plus.cost))
    {
        t->bad_path++;
        if (t->bad_path < 5)
            fprintf(stderr, "path n %d len %d legal %d cost %.17g vs %.17g: (%d,%d)->(%d,%d) mode %d\n", (int)n,
                    (int)plus.length, path_legal(g, mode, path, n), path_cost(g, path, n, unit), plus.cost, (int)sx,
                    (int)sy, (int)gx, (int)gy, (int)mode);
    }
}

static void check_tally(const tally *t, const char *what) {
    printf("%s: %ld queries, %ld found\n", what, t->queries, t->found);
    CHECK(t->wrong_status == 0);
    CHECK(t->wrong_cost == 0);
    CHECK(t->bad_path == 0);
    CHECK(t->online_differs == 0);
}

/* The tables of both kinds, where built, equal to a fresh build entry by entry. */
static bool tables_exact(astar_grid *g, bool four_built, bool eight_built) {
    bool ok = true;
    if (eight_built) ok &= astar_jps_table_mismatches(g, 0) == 0;
    if (four_built) ok &= astar_jps_table_mismatches(g, 1) == 0;
    return ok;
}

static void random_queries(astar_search *s, astar_grid *g, int n, double unit, tally *t) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    for (int i = 0; i < n; i++) {
        int32_t sx = (int32_t)(rnd() % (uint32_t)w), sy = (int32_t)(rnd() % (uint32_t)h);
        int32_t gx = (int32_t)(rnd() % (uint32_t)w), gy = (int32_t)(rnd() % (uint32_t)h);
        if (rnd() % 4 == 0) gy = sy; /* goals on the start's row or column, or its diagonals */
        else if (rnd() % 4 == 0) gx = sx;
        else if (rnd() % 4 == 0) {
            int32_t k = (int32_t)(rnd() % 16);
            gx = sx + (rnd() & 1 ? k : -k), gy = sy + (rnd() & 1 ? k : -k);
            if (gx < 0 || gx >= w || gy < 0 || gy >= h) gx = sx, gy = sy;
        }
        compare(s, g, i % 2 ? ASTAR_DIAG_NEVER : ASTAR_DIAG_NO_CORNER_CUT, sx, sy, gx, gy, unit, true, t);
    }
}

/*
 * Random grids of several sizes and densities, queries in both modes; then hundreds of
 * cells opened and closed one at a time, each table compared with a fresh build after
 * every batch, and the queries again.
 */
static void test_random_grids(void) {
    static const int32_t sizes[][2] = {{1, 1}, {1, 40}, {40, 1}, {2, 2}, {7, 5}, {16, 16},
                                       {33, 29}, {64, 3}, {70, 66}, {130, 21}, {97, 128}};
    static const int density[] = {0, 3, 12, 25, 40, 55};
    tally before = {0}, after = {0};
    long batches = 0, exact = 0, toggles = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t di = 0; di < sizeof density / sizeof *density; di++) {
            int32_t w = sizes[si][0], h = sizes[si][1];
            counting cnt = {0};
            astar_alloc a = {count_alloc, &cnt};
            astar_grid *g = astar_grid_new(w, h, ASTAR_DIAG_NO_CORNER_CUT, &a);
            astar_search *s = astar_search_new(w, h, &a);
            double unit = di % 2 ? 1.0 : 2.5; /* the table does not depend on the cost */
            astar_grid_fill(g, unit);
            for (int32_t y = 0; y < h; y++)
                for (int32_t x = 0; x < w; x++)
                    if ((int)(rnd() % 100) < density[di]) astar_grid_set_cost(g, x, y, INFINITY);
            if (si % 3 == 0) /* wall segments too: long forced lines */
                for (int k = 0; k < 4; k++) {
                    int32_t x0 = (int32_t)(rnd() % (uint32_t)w), y0 = (int32_t)(rnd() % (uint32_t)h);
                    for (int32_t i = 0; i < 12; i++)
                        if (k % 2 ? y0 + i < h : x0 + i < w)
                            astar_grid_set_cost(g, k % 2 ? x0 : x0 + i, k % 2 ? y0 + i : y0, INFINITY);
                }
            random_queries(s, g, 60, unit, &before); /* builds the tables where a query got to JPS */
            CHECK(astar_grid_prepare_jumps(g, ASTAR_DIAG_NO_CORNER_CUT) == ASTAR_OK && /* the others, */
                  astar_grid_prepare_jumps(g, ASTAR_DIAG_NEVER) == ASTAR_OK);          /* for the updates */
            CHECK(astar_jps_table_bytes(g) == (size_t)(w + 2) * (size_t)(h + 2) * (8 + 4) * sizeof(int16_t));
            CHECK(tables_exact(g, true, true));
            long warm = cnt.allocs;
            int rounds = w * h >= 100 ? 6 : 2;
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < 50; k++) {
                    int32_t x = (int32_t)(rnd() % (uint32_t)w), y = (int32_t)(rnd() % (uint32_t)h);
                    bool open = astar_grid_get_cost(g, x, y) == INFINITY;
                    if (rnd() % 3 == 0) open = !open; /* a write that changes nothing now and then */
                    astar_grid_set_cost(g, x, y, open ? unit : INFINITY);
                    toggles++;
                }
                CHECK(cnt.allocs == warm); /* a local update allocates nothing */
                batches++;
                bool ok = tables_exact(g, true, true);
                exact += ok;
                CHECK(ok);
                random_queries(s, g, 30, unit, &after);
                warm = cnt.allocs;
            }
            /* A walkable cost changed and changed back: the terrain is uniform again, the
             * tables are as they were and need no rebuild. */
            astar_grid_set_cost(g, 0, 0, unit * 3);
            astar_grid_set_cost(g, 0, 0, unit);
            CHECK(tables_exact(g, true, true));
            /* Bulk writes: the tables are rebuilt on the next JPS+ query. */
            astar_grid_fill(g, unit);
            for (int32_t y = 0; y < h; y += 2) astar_grid_set_cost(g, (y * 7) % w, y, INFINITY);
            random_queries(s, g, 10, unit, &after);
            CHECK(astar_grid_prepare_jumps(g, ASTAR_DIAG_NO_CORNER_CUT) == ASTAR_OK &&
                  astar_grid_prepare_jumps(g, ASTAR_DIAG_NEVER) == ASTAR_OK);
            CHECK(tables_exact(g, true, true));
            astar_search_free(s);
            astar_grid_free(g);
            CHECK(cnt.live == 0 && cnt.bytes == 0);
        }
    check_tally(&before, "random grids");
    check_tally(&after, "after cell changes");
    printf("  %ld cell writes, %ld of %ld batches' tables equal to fresh builds\n", toggles, exact, batches);
}

/*
 * Every start and goal of small mazes: the goal anywhere relative to every diagonal and
 * line a search meets (on them, beside them, behind a wall across them).
 */
static void test_all_pairs(void) {
    tally t = {0};
    for (int world = 0; world < 6; world++) {
        int32_t w = 9 + world, h = 12 - world;
        astar_grid *g = astar_grid_new(w, h, ASTAR_DIAG_NO_CORNER_CUT, NULL);
        astar_search *s = astar_search_new(w, h, NULL);
        for (int32_t y = 0; y < h; y++)
            for (int32_t x = 0; x < w; x++)
                if ((int)(rnd() % 100) < 10 + 5 * world) astar_grid_set_cost(g, x, y, INFINITY);
        for (int mode = 0; mode < 2; mode++)
            for (int32_t a = 0; a < w * h; a++)
                for (int32_t b = 0; b < w * h; b++)
                    compare(s, g, mode ? ASTAR_DIAG_NEVER : ASTAR_DIAG_NO_CORNER_CUT, a % w, a / w, b % w,
                            b / w, 1.0, true, &t);
        astar_search_free(s);
        astar_grid_free(g);
    }
    check_tally(&t, "all pairs");
}

/*
 * The longest lines a grid may have (ASTAR_MAX_SIDE = 32768 cells: 32767 steps, the top
 * of the entries' 16-bit range, where a jump reads a second entry), 32768 x 3 and
 * 3 x 32768, open and with a few walls, in both modes. Then cells toggled far apart along
 * the line, the tables compared with fresh builds.
 */
static void test_long_lines(void) {
    tally t = {0};
    for (int tall = 0; tall < 2; tall++) {
        int32_t len = ASTAR_MAX_SIDE, w = tall ? 3 : len, h = tall ? len : 3;
        astar_grid *g = astar_grid_new(w, h, ASTAR_DIAG_NO_CORNER_CUT, NULL);
        astar_search *s = astar_search_new(w, h, NULL);
        CHECK(g && s);
        if (!g || !s) return;
#define AT(along, across) (tall ? (across) : (along)), (tall ? (along) : (across))
        for (int walls = 0; walls < 3; walls++) {
            if (walls == 1) { /* one wall piece at 20000, one gap in the middle row at 31000 */
                astar_grid_set_cost(g, AT(20000, 0), INFINITY);
                astar_grid_set_cost(g, AT(31000, 0), INFINITY);
                astar_grid_set_cost(g, AT(31000, 2), INFINITY);
            }
            if (walls == 2) astar_grid_set_cost(g, AT(30000, 1), INFINITY);
            static const int32_t ends[][4] = {{0, 1, 32767, 1},     {0, 0, 32767, 2},    {5, 2, 32760, 0},
                                              {32767, 1, 0, 1},     {100, 0, 32767, 0},  {0, 1, 32766, 1},
                                              {1, 1, 32767, 1},     {0, 0, 32767, 0},    {32767, 2, 2, 0},
                                              {20001, 1, 20001, 2}, {30999, 1, 31001, 1}};
            for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
                for (int mode = 0; mode < 2; mode++)
                    compare(s, g, mode ? ASTAR_DIAG_NEVER : ASTAR_DIAG_NO_CORNER_CUT, AT(ends[i][0], ends[i][1]),
                            AT(ends[i][2], ends[i][3]), 1.0, false, &t);
            for (int i = 0; i < 40; i++) {
                int32_t a = (int32_t)(rnd() % (uint32_t)len), b = (int32_t)(rnd() % (uint32_t)len);
                compare(s, g, i % 2 ? ASTAR_DIAG_NEVER : ASTAR_DIAG_NO_CORNER_CUT, AT(a, (int32_t)(rnd() % 3)),
                        AT(b, (int32_t)(rnd() % 3)), 1.0, false, &t);
            }
        }
        for (int k = 0; k < 200; k++) { /* single cells, one at a time */
            int32_t a = (int32_t)(rnd() % (uint32_t)len), c = (int32_t)(rnd() % 3);
            bool open = astar_grid_get_cost(g, AT(a, c)) == INFINITY;
            astar_grid_set_cost(g, AT(a, c), open ? 1.0 : INFINITY);
            if (k % 40 == 39) {
                CHECK(tables_exact(g, true, true));
                for (int i = 0; i < 10; i++) {
                    int32_t p = (int32_t)(rnd() % (uint32_t)len), r = (int32_t)(rnd() % (uint32_t)len);
                    compare(s, g, i % 2 ? ASTAR_DIAG_NEVER : ASTAR_DIAG_NO_CORNER_CUT, AT(p, (int32_t)(rnd() % 3)),
                            AT(r, (int32_t)(rnd() % 3)), 1.0, false, &t);
                }
            }
        }
#undef AT
        astar_search_free(s);
        astar_grid_free(g);
    }
    check_tally(&t, "lines of 32768");
}

/* Every allocation of a cold JPS+ query refused in turn: a clean ENOMEM, then a working
 * grid; and find_many builds the table before its threads start. */
static void test_out_of_memory(void) {
    int refused = 0;
    for (long n = 1; n < 12; n++) {
        counting f = {0};
        astar_alloc fa = {count_alloc, &f};
        astar_grid *g = astar_grid_new(40, 30, ASTAR_DIAG_NO_CORNER_CUT, &fa);
        astar_search *s = astar_search_new(40, 30, &fa);
        CHECK(g && s);
        for (int y = 0; y < 25; y++) astar_grid_set_cost(g, 20, y, INFINITY);
        f.fail_at = f.allocs + n;
        astar_query q;
        astar_query_init(&q);
        q.gx = 39, q.gy = 0;
        astar_result res;
        astar_status st = astar_find(s, g, &q, &res);
        CHECK(st == ASTAR_OK || st == ASTAR_ENOMEM);
        refused += st == ASTAR_ENOMEM;
        f.fail_at = 0;
        CHECK(astar_find(s, g, &q, &res) == ASTAR_OK);
        CHECK(astar_jps_table_mismatches(g, 0) == 0);
        astar_grid_set_cost(g, 20, 10, 1.0); /* and kept in step afterwards */
        CHECK(astar_jps_table_mismatches(g, 0) == 0);
        astar_search_free(s);
        astar_grid_free(g);
        CHECK(f.live == 0);
    }
    CHECK(refused >= 2); /* the table's allocation and the islands' at least */

    astar_grid *g = astar_grid_new(60, 50, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    for (int i = 0; i < 600; i++) astar_grid_set_cost(g, (int32_t)(rnd() % 60), (int32_t)(rnd() % 50), INFINITY);
    astar_many *m = astar_many_new(60, 50, NULL);
    astar_search *s = astar_search_new(60, 50, NULL);
    enum { N = 64 };
    int32_t ends[4 * N];
    for (int i = 0; i < 4 * N; i++) ends[i] = (int32_t)(rnd() % (i % 2 ? 50 : 60));
    astar_query base;
    astar_query_init(&base);
    astar_result res[N], one;
    CHECK(astar_find_many(m, g, &base, ends, N, 2, res) == ASTAR_OK);
    CHECK(astar_jps_table_mismatches(g, 0) == 0); /* prepared before the threads */
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        astar_query q = base;
        q.sx = ends[4 * i], q.sy = ends[4 * i + 1], q.gx = ends[4 * i + 2], q.gy = ends[4 * i + 3];
        q.jps = ASTAR_JPS_OFF;
        astar_status st = astar_find(s, g, &q, &one);
        if (st != res[i].status || (st == ASTAR_OK && fabs(one.cost - res[i].cost) > 1e-9 * one.cost)) wrong++;
    }
    CHECK(wrong == 0);
    astar_search_free(s);
    astar_many_free(m);
    astar_grid_free(g);
}

int main(void) {
    test_random_grids();
    test_all_pairs();
    test_long_lines();
    test_out_of_memory();
    return check_summary();
}
