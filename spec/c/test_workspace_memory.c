/*
 * A workspace's memory (issue 27): per-node arrays as the system's zeroed pages with the
 * default allocator, through the host's allocator otherwise (pages.c), and the stamps'
 * clearing (every ASTAR_POOL_CLEAR_EVERY queries where that gives the pages back, at the
 * 16-bit wrap everywhere). Answers across many clears and a wrap are checked against a
 * breadth-first oracle written here (4-way moves, every step costs 1), not the engine's own.
 * Run under ASan and valgrind by the CI, as every C test.
 */
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "nodes.h"
#define CHECK_RNG_SEED 0x27
#include "check.h"

enum { W = 70, H = 70, STARTS = 4 };

/* Walls with gaps; the east corner (the fillers') open. */
static bool open_cell(int x, int y) { return (x >= W - 3 && y >= H - 3) || !(x % 7 == 3 && y % 9 != 4); }

/* Steps from (sx, sy) to every cell (-1: none), by breadth-first search. */
static void bfs(int sx, int sy, int dist[H][W]) {
    static int queue[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) dist[y][x] = -1;
    int head = 0, tail = 0;
    dist[sy][sx] = 0;
    queue[tail++] = sy * W + sx;
    static const int DX[4] = {1, -1, 0, 0}, DY[4] = {0, 0, 1, -1};
    while (head < tail) {
        int at = queue[head++], x = at % W, y = at / W;
        for (int d = 0; d < 4; d++) {
            int bx = x + DX[d], by = y + DY[d];
            if (bx < 0 || by < 0 || bx >= W || by >= H || !open_cell(bx, by) || dist[by][bx] >= 0) continue;
            dist[by][bx] = dist[y][x] + 1;
            queue[tail++] = by * W + bx;
        }
    }
}

static void pages_alone(void) {
    counting c = {0};
    astar_alloc counted = {count_alloc, &c};
    astar_alloc def = astar_pick_alloc(NULL);
    CHECK(astar_alloc_is_default(&def));
    CHECK(!astar_alloc_is_default(&counted));
    size_t sizes[] = {16, ASTAR_PAGES_MIN - 8, ASTAR_PAGES_MIN, 3 * ASTAR_PAGES_MIN + 40};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t n = sizes[i];
        const astar_alloc *as[2] = {&def, &counted};
        for (int k = 0; k < 2; k++) {
            long long before = c.bytes;
            unsigned char *p = astar_pages_new(as[k], n, true);
            CHECK(p != NULL);
            if (!p) continue;
            /* A host's own allocator sees every byte; the default one's big arrays are pages. */
            if (k == 1) CHECK(c.bytes - before == (long long)n);
            bool zero = true;
            for (size_t j = 0; j < n; j++) zero = zero && p[j] == 0;
            CHECK(zero);
            memset(p, 0xA5, n); /* every byte writable */
            p[n - 1] = 7;
            astar_pages_zero(as[k], p, n);
            zero = true;
            for (size_t j = 0; j < n; j++) zero = zero && p[j] == 0;
            CHECK(zero);
            p[n / 2] = 1; /* usable after a zeroing */
            CHECK(p[n / 2] == 1);
            astar_pages_free(as[k], p, n);
        }
    }
    CHECK(astar_pages_new(&def, 0, true) == NULL);
    CHECK(astar_pages_dropped(&counted, 4 * ASTAR_PAGES_MIN) == false); /* a host's: written */
    CHECK(c.live == 0 && c.bytes == 0);
}

/*
 * Cycles of `period` queries on one workspace (alloc NULL: the default allocator): the stamps
 * run 1..period between two clears, so the first query of a cycle gets the stamp the first of
 * the last cycle had, and meets its records wherever no later query stamped over them. Each
 * cycle's first query runs from another start in the west part of the grid, checked against
 * the oracle (cost, and the path's steps); the rest stay in the east corner. Every fifth cycle
 * starts on a trimmed workspace (astar_search_trim).
 */
static void cycles(const astar_alloc *alloc, long period, int ncycles) {
    astar_grid *g = astar_grid_new(W, H, ASTAR_DIAG_NEVER, alloc);
    CHECK(g != NULL);
    if (!g) return;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (!open_cell(x, y)) astar_grid_set_cost(g, x, y, INFINITY);
    astar_search *s = astar_search_new(W, H, alloc);
    CHECK(s != NULL);
    static int dist[STARTS][H][W];
    int sx[STARTS], sy[STARTS];
    for (int k = 0; k < STARTS; k++) {
        do {
            sx[k] = (int)(rnd() % (W / 2));
            sy[k] = (int)(rnd() % H);
        } while (!open_cell(sx[k], sy[k]));
        bfs(sx[k], sy[k], dist[k]);
    }
    long wrong = 0, fillers = 0;
    for (int c = 0; s && c < ncycles; c++) {
        int k = c % STARTS, gx, gy;
        do { /* a goal the start reaches, in the west part */
            gx = (int)(rnd() % (W / 2));
            gy = (int)(rnd() % H);
        } while (dist[k][gy][gx] <= 0);
        if (c % 5 == 4) astar_search_trim(s); /* what a cancelled job's workspace does */
        astar_query q;
        astar_query_init(&q);
        q.sx = sx[k], q.sy = sy[k], q.gx = gx, q.gy = gy;
        q.dead_ends = 0;
        q.jps = ASTAR_JPS_OFF; /* A*: a record for every cell it reaches */
        astar_result res;
        astar_status st = astar_find(s, g, &q, &res);
        int32_t n = 0;
        const int32_t *path = astar_search_path(s, &n);
        bool ok = st == ASTAR_OK && res.cost == (double)dist[k][gy][gx] && n == dist[k][gy][gx] + 1 &&
                  path[0] == sy[k] * W + sx[k] && path[n - 1] == gy * W + gx &&
                  path_legal(g, ASTAR_DIAG_NEVER, path, n);
        if (!ok && wrong++ < 5)
            fprintf(stderr, "cycle %d: (%d,%d)->(%d,%d) status %d cost %g, want %d\n", c, sx[k], sy[k], gx, gy,
                    (int)st, res.cost, dist[k][gy][gx]);
        q.sx = W - 3, q.sy = H - 3, q.gx = W - 1, q.gy = H - 1;
        for (long i = 1; i < period; i++)
            if (astar_find(s, g, &q, &res) != ASTAR_OK || res.cost != 4.0) fillers++;
    }
    CHECK(wrong == 0);
    CHECK(fillers == 0);
    astar_search_free(s);
    astar_grid_free(g);
}

int main(void) {
    pages_alone();
    /* The default allocator: the records are pages (70x70 is past ASTAR_PAGES_MIN), cleared
     * every ASTAR_POOL_CLEAR_EVERY queries on Linux, and at the wrap. */
    CHECK((size_t)(W + 2) * (H + 2) * 16 >= ASTAR_PAGES_MIN);
    cycles(NULL, ASTAR_POOL_CLEAR_EVERY - 1, 24);
    /* A host's allocator: every array through it, cleared by writing at the wrap. */
    counting c = {0};
    astar_alloc counted = {count_alloc, &c};
    cycles(&counted, 65535, 2);
    CHECK(c.live == 0 && c.bytes == 0);
    return check_summary();
}
