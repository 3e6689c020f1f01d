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
#define CHECK_RNG_SEED 0x27
#include "check.h"

enum { W = 70, H = 70, STARTS = 4, RADIUS = 4 };

static bool open_cell(int x, int y) { return !(x % 7 == 3 && y % 9 != 4); } /* walls with gaps */

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

/* queries short queries on one workspace (alloc NULL: the default), each checked. */
static void many_queries(const astar_alloc *alloc, long queries) {
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
            sx[k] = RADIUS + (int)(rnd() % (W - 2 * RADIUS));
            sy[k] = RADIUS + (int)(rnd() % (H - 2 * RADIUS));
        } while (!open_cell(sx[k], sy[k]));
        bfs(sx[k], sy[k], dist[k]);
    }
    long wrong = 0;
    for (long i = 0; s && i < queries; i++) {
        int k = (int)(i % STARTS);
        int gx = sx[k] + (int)(rnd() % (2 * RADIUS + 1)) - RADIUS;
        int gy = sy[k] + (int)(rnd() % (2 * RADIUS + 1)) - RADIUS;
        astar_query q;
        astar_query_init(&q);
        q.sx = sx[k], q.sy = sy[k], q.gx = gx, q.gy = gy;
        q.dead_ends = 0;
        if (i % 3 == 1) q.heuristic = ASTAR_H_ZERO; /* Dijkstra: more records a query */
        astar_result res;
        astar_status st = astar_find(s, g, &q, &res);
        int want = dist[k][gy][gx];
        bool ok = want < 0 ? st == ASTAR_UNREACHABLE : st == ASTAR_OK && res.cost == (double)want;
        if (!ok && wrong++ < 5)
            fprintf(stderr, "query %ld: (%d,%d)->(%d,%d) status %d cost %g, want %d\n", i, sx[k], sy[k], gx,
                    gy, (int)st, res.cost, want);
    }
    CHECK(wrong == 0);
    astar_search_free(s);
    astar_grid_free(g);
}

int main(void) {
    pages_alone();
    /* The default allocator: the records are pages (70x70 is past ASTAR_PAGES_MIN), cleared
     * every ASTAR_POOL_CLEAR_EVERY queries on Linux, and at the wrap. */
    CHECK((size_t)(W + 2) * (H + 2) * 16 >= ASTAR_PAGES_MIN);
    many_queries(NULL, 66000);
    /* A host's allocator: every array through it, cleared by writing at the wrap. */
    counting c = {0};
    astar_alloc counted = {count_alloc, &c};
    many_queries(&counted, 66000);
    CHECK(c.live == 0 && c.bytes == 0);
    return check_summary();
}
