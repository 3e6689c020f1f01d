/*
 * C unit tests of the core, no Lua. Paths are checked against a brute-force
 * oracle written here from the step-cost formula (Bellman-Ford style
 * relaxation until nothing changes), not against the engine's own output.
 */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#define CHECK_RNG_SEED 0x9E3779B97F4A7C15ull
#include "check.h"

#define CHECK_NEAR(a, b) CHECK(fabs((a) - (b)) <= 1e-9 * (1.0 + fabs(b)))

/* ------------------------------------------------------------ the oracle */

static double rnd01(void) { return (rnd() & 0xFFFFFF) / (double)0x1000000; }

enum { MAXW = 14, MAXH = 14 };

typedef struct world {
    int w, h;
    double cost[MAXH][MAXW];     /* INFINITY = blocked */
    double layer[MAXH][MAXW];
    double layer_weight;
    int use_layer;
    int claimed[MAXH][MAXW];     /* claim count seen by the querying unit */
    double claim_penalty;
    int use_node_cost;           /* node_cost(x, y): table lookup, INFINITY blocks */
    double node_extra[MAXH][MAXW];
    int use_edge_cost;
    astar_diagonal diag;
    int use_classes;             /* terrain classes: cost * factor[cls], INFINITY a wall */
    unsigned char cls[MAXH][MAXW];
    double factor[256];
} world;

static double edge_extra(int x, int y, int fx, int fy) {
    unsigned k = (unsigned)(x * 73856093) ^ (unsigned)(y * 19349663) ^ (unsigned)(fx * 83492791) ^
                 (unsigned)(fy * 2654435761u);
    k %= 97;
    if (k < 5) return INFINITY;
    return (k % 4) * 0.25;
}

static int walk_ok(const world *w, int x, int y) {
    if (x < 0 || y < 0 || x >= w->w || y >= w->h) return 0;
    if (w->cost[y][x] == INFINITY) return 0;
    if (w->use_classes && w->factor[w->cls[y][x]] == INFINITY) return 0;
    if (w->use_node_cost && w->node_extra[y][x] == INFINITY) return 0;
    return 1;
}

/* Cost of the step (ax, ay) -> (bx, by), INFINITY when illegal. */
static double oracle_step(const world *w, int ax, int ay, int bx, int by) {
    int dx = bx - ax, dy = by - ay;
    if (abs(dx) > 1 || abs(dy) > 1 || (dx == 0 && dy == 0)) return INFINITY;
    if (!walk_ok(w, bx, by)) return INFINITY;
    double len = 1.0;
    if (dx != 0 && dy != 0) {
        int s1 = walk_ok(w, ax + dx, ay), s2 = walk_ok(w, ax, ay + dy);
        if (w->diag == ASTAR_DIAG_NEVER) return INFINITY;
        if (w->diag == ASTAR_DIAG_NO_CORNER_CUT && !(s1 && s2)) return INFINITY;
        if (w->diag == ASTAR_DIAG_ONE_WALKABLE && !(s1 || s2)) return INFINITY;
        len = sqrt(2.0);
    }
    double p = 0.0;
    if (w->use_layer) p += w->layer_weight * w->layer[by][bx];
    p += w->claim_penalty * w->claimed[by][bx];
    if (w->use_node_cost) p += w->node_extra[by][bx];
    if (w->use_edge_cost) {
        double e = edge_extra(bx, by, ax, ay);
        if (e == INFINITY) return INFINITY;
        p += e;
    }
    double terrain = w->cost[by][bx] * (w->use_classes ? w->factor[w->cls[by][bx]] : 1.0);
    return len * terrain + (p > 0 ? p : 0.0);
}

/* Every cell's cost from (sx, sy) into dist. */
static void oracle_dists(const world *w, int sx, int sy, double dist[MAXH][MAXW]) {
    for (int y = 0; y < w->h; y++)
        for (int x = 0; x < w->w; x++) dist[y][x] = INFINITY;
    dist[sy][sx] = 0.0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int y = 0; y < w->h; y++)
            for (int x = 0; x < w->w; x++) {
                if (dist[y][x] == INFINITY) continue;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int bx = x + dx, by = y + dy;
                        double s = oracle_step(w, x, y, bx, by);
                        if (s == INFINITY) continue;
                        if (dist[y][x] + s < dist[by][bx] - 1e-12) {
                            dist[by][bx] = dist[y][x] + s;
                            changed = 1;
                        }
                    }
            }
    }
}

static double oracle_cost(const world *w, int sx, int sy, int gx, int gy) {
    static double dist[MAXH][MAXW];
    if (!walk_ok(w, gx, gy)) return INFINITY;
    oracle_dists(w, sx, sy, dist);
    return dist[gy][gx];
}

static int cb_node(void *ud, int32_t x, int32_t y, double *extra) {
    const world *w = ud;
    if (w->node_extra[y][x] == INFINITY) return ASTAR_CB_BLOCK;
    *extra = w->node_extra[y][x];
    return ASTAR_CB_PASS;
}

static int cb_edge(void *ud, int32_t x, int32_t y, int32_t fx, int32_t fy, double *extra) {
    (void)ud;
    *extra = edge_extra(x, y, fx, fy);
    return ASTAR_CB_PASS; /* INFINITY blocks, like false */
}

/* --------------------------------------------------------------- tests */

static void test_grid_basics(void) {
    astar_grid *g = astar_grid_new(5, 4, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    CHECK(g != NULL);
    CHECK(astar_grid_width(g) == 5 && astar_grid_height(g) == 4);
    CHECK(astar_grid_get_cost(g, 0, 0) == 1.0);
    CHECK(isnan(astar_grid_get_cost(g, 5, 0)));
    CHECK(astar_grid_set_cost(g, 1, 1, 0.0) == ASTAR_EINVAL);
    CHECK(astar_grid_set_cost(g, 1, 1, -2.0) == ASTAR_EINVAL);
    CHECK(astar_grid_set_cost(g, 1, 1, NAN) == ASTAR_EINVAL);
    CHECK(astar_grid_set_cost(g, 1, 1, -INFINITY) == ASTAR_EINVAL);
    CHECK(astar_grid_set_cost(g, -1, 1, 2.0) == ASTAR_EINVAL);
    CHECK(astar_grid_get_cost(g, 1, 1) == 1.0);
    CHECK(astar_grid_set_cost(g, 1, 1, 0.5) == ASTAR_OK);
    CHECK(astar_grid_min_cost(g) == 0.5);
    CHECK(astar_grid_set_cost(g, 1, 1, 3.0) == ASTAR_OK);
    CHECK(astar_grid_min_cost(g) == 1.0); /* the minimum rose: recomputed */
    CHECK(astar_grid_set_cost(g, 2, 2, INFINITY) == ASTAR_OK);
    CHECK(astar_grid_get_cost(g, 2, 2) == INFINITY);
    CHECK(astar_grid_fill(g, 2.0) == ASTAR_OK);
    CHECK(astar_grid_min_cost(g) == 2.0);
    CHECK(astar_grid_new(0, 3, ASTAR_DIAG_NEVER, NULL) == NULL);
    CHECK(astar_grid_new(3, ASTAR_MAX_SIDE + 1, ASTAR_DIAG_NEVER, NULL) == NULL);
    astar_grid_free(g);
    astar_grid_free(NULL);
}

static void test_claims(void) {
    astar_claims *c = astar_claims_new(4, 1, NULL);
    int32_t a = astar_claims_unit_new(c), b = astar_claims_unit_new(c);
    CHECK(a >= 0 && b >= 0 && a != b);
    int32_t path_a[] = {0, 1, 2, 1, 3}; /* node 1 twice: counts once */
    CHECK(astar_claims_set(c, a, path_a, 5) == ASTAR_OK);
    CHECK(astar_claims_count(c, 1, 0) == 1);
    int32_t path_b[] = {3, 2};
    CHECK(astar_claims_set(c, b, path_b, 2) == ASTAR_OK);
    CHECK(astar_claims_count(c, 2, 0) == 2 && astar_claims_count(c, 3, 0) == 2);
    CHECK(astar_claims_advance(c, a, 2) == ASTAR_OK); /* now at index 2: nodes 2, 1, 3 ahead */
    CHECK(astar_claims_count(c, 0, 0) == 0 && astar_claims_count(c, 1, 0) == 1);
    CHECK(astar_claims_advance(c, a, 100) == ASTAR_OK); /* past the end: stays on node 3 */
    CHECK(astar_claims_count(c, 1, 0) == 0 && astar_claims_count(c, 3, 0) == 2);
    CHECK(astar_claims_current(c, a) == 3);
    CHECK(astar_claims_set(c, a, path_a, 0) == ASTAR_EINVAL);
    int32_t bad[] = {0, 4};
    CHECK(astar_claims_set(c, a, bad, 2) == ASTAR_EINVAL);
    CHECK(astar_claims_count(c, 3, 0) == 2); /* the failed set left the old claim */
    CHECK(astar_claims_release(c, b) == ASTAR_OK);
    CHECK(astar_claims_count(c, 2, 0) == 0 && astar_claims_count(c, 3, 0) == 1);
    CHECK(astar_claims_unit_new(c) == b); /* the slot is reused */
    astar_claims_free(c);
}

/* Random worlds against the oracle, every option of the cost model. */
static void test_random_worlds(void) {
    static world w;
    int compared = 0, reachable = 0;
    for (int iter = 0; iter < 1500; iter++) {
        memset(&w, 0, sizeof w);
        w.w = 2 + (int)(rnd() % (MAXW - 1));
        w.h = 2 + (int)(rnd() % (MAXH - 1));
        w.diag = (astar_diagonal)(rnd() % 4);
        double density = rnd01() * 0.35;
        astar_grid *g = astar_grid_new(w.w, w.h, w.diag, NULL);
        astar_layer *layer = astar_layer_new(w.w, w.h, 0.0, NULL);
        astar_claims *claims = astar_claims_new(w.w, w.h, NULL);
        astar_search *s = astar_search_new(w.w, w.h, NULL);
        w.use_layer = rnd() % 3 == 0;
        w.layer_weight = w.use_layer ? rnd01() * 2 : 0;
        w.use_node_cost = rnd() % 4 == 0;
        w.use_edge_cost = rnd() % 4 == 0;
        int use_claims = rnd() % 3 == 0;
        for (int y = 0; y < w.h; y++)
            for (int x = 0; x < w.w; x++) {
                double c = rnd01() < density ? INFINITY : 0.5 + rnd01() * 3.5;
                if (rnd() % 3 == 0 && c != INFINITY) c = 1.0;
                w.cost[y][x] = c;
                astar_grid_set_cost(g, x, y, c);
                w.layer[y][x] = rnd01() * 6 - 3; /* negative values too */
                astar_layer_set(layer, x, y, w.layer[y][x]);
                w.node_extra[y][x] = rnd() % 10 == 0 ? INFINITY : rnd01() * 2;
            }
        int32_t me = -1;
        if (use_claims) {
            w.claim_penalty = rnd01() * 4;
            for (int u = 0; u < 3; u++) {
                int32_t slot = astar_claims_unit_new(claims), nodes[6];
                int n = 1 + (int)(rnd() % 6);
                for (int i = 0; i < n; i++) nodes[i] = (int32_t)(rnd() % (uint32_t)(w.w * w.h));
                astar_claims_set(claims, slot, nodes, n);
                if (u == 0) me = slot; /* the querying unit: its own claim must not count */
            }
        }
        astar_query q;
        astar_query_init(&q);
        q.sx = (int32_t)(rnd() % (uint32_t)w.w), q.sy = (int32_t)(rnd() % (uint32_t)w.h);
        q.gx = (int32_t)(rnd() % (uint32_t)w.w), q.gy = (int32_t)(rnd() % (uint32_t)w.h);
        astar_layer_ref ref = {layer, w.layer_weight};
        if (w.use_layer) q.layers = &ref, q.nlayers = 1;
        if (use_claims) {
            q.claims = claims;
            q.claim_penalty = w.claim_penalty;
            q.unit = me;
        }
        if (w.use_node_cost) q.node_cost = cb_node, q.node_cost_ud = &w;
        if (w.use_edge_cost) q.edge_cost = cb_edge;
        astar_result res;
        astar_status st;
        if (use_claims) {
            /* The own claim must not count: the query as `me` must equal the query
             * after `me` released its claim, and both the oracle's answer. */
            astar_query q2 = q;
            st = astar_find(s, g, &q, &res);
            double with_own = res.cost;
            astar_status st_own = st;
            astar_claims_release(claims, me);
            for (int y = 0; y < w.h; y++)
                for (int x = 0; x < w.w; x++) w.claimed[y][x] = astar_claims_count(claims, x, y);
            q2.unit = -1;
            astar_result res2;
            astar_status st2 = astar_find(s, g, &q2, &res2);
            CHECK(st2 == st_own);
            if (st2 == ASTAR_OK && st_own == ASTAR_OK) CHECK_NEAR(res2.cost, with_own);
            st = st2;
            res = res2;
        } else {
            st = astar_find(s, g, &q, &res);
        }
        { /* The same query in slices of 1..7 expansions: the same answer, path and count. */
            astar_result sliced, again;
            astar_status ss = astar_search_start(s, g, &q, &sliced);
            while (ss == ASTAR_RUNNING) ss = astar_search_step(s, 1 + rnd() % 7, &sliced);
            CHECK(ss == st);
            CHECK(sliced.expansions == res.expansions && sliced.restarts == 0);
            if (st == ASTAR_OK) CHECK(sliced.cost == res.cost && sliced.length == res.length);
            CHECK(astar_search_step(s, 5, &again) == st); /* finished: harmless */
            CHECK(again.expansions == sliced.expansions);
        }
        double want = oracle_cost(&w, q.sx, q.sy, q.gx, q.gy);
        compared++;
        if (want == INFINITY) {
            CHECK(st == ASTAR_UNREACHABLE);
        } else {
            reachable++;
            CHECK(st == ASTAR_OK);
            if (st == ASTAR_OK) {
                CHECK_NEAR(res.cost, want);
                int32_t n = 0;
                const int32_t *path = astar_search_path(s, &n);
                CHECK(n == res.length && n >= 1);
                CHECK(path[0] == q.sy * w.w + q.sx && path[n - 1] == q.gy * w.w + q.gx);
                double sum = 0.0;
                for (int32_t i = 1; i < n; i++)
                    sum += oracle_step(&w, path[i - 1] % w.w, path[i - 1] / w.w, path[i] % w.w,
                                       path[i] / w.w);
                CHECK_NEAR(sum, res.cost);
            }
        }
        astar_search_free(s);
        astar_claims_free(claims);
        astar_layer_free(layer);
        astar_grid_free(g);
    }
    CHECK(compared == 1500 && reachable > 500);
}


/*
 * Issue 4: grid plus search workspace stay within 32 bytes per cell on plain terrain (online
 * JPS, or A*). JPS+'s table is a cache on top, of a stated size: 16 bytes per cell of the
 * bordered grid for the 8-connected queries (ASTAR_JPS_ONLINE does without it).
 */
static void test_memory_per_cell(void) {
    counting cnt = {0};
    astar_alloc a = {count_alloc, &cnt};
    astar_grid *g = astar_grid_new(256, 256, ASTAR_DIAG_NO_CORNER_CUT, &a);
    astar_search *s = astar_search_new(256, 256, &a);
    for (int y = 0; y < 250; y++) astar_grid_set_cost(g, 128, y, INFINITY);
    astar_query q;
    astar_query_init(&q);
    q.sx = 0, q.sy = 0, q.gx = 255, q.gy = 0;
    q.jps = ASTAR_JPS_ONLINE;
    astar_result res;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_OK);
    double per_cell = (double)cnt.bytes / (256.0 * 256.0);
    printf("memory: %.2f bytes per cell (256x256 grid, workspace, a query done)\n", per_cell);
    CHECK(per_cell <= 32.0);
    long long before = cnt.bytes;
    /* Built ahead (a game's loading screen), the table is all a jumping query adds: the
     * query itself then allocates nothing. */
    CHECK(astar_grid_jump_bytes(g) == 0);
    CHECK(astar_grid_prepare_jumps(g, ASTAR_DIAG_DEFAULT) == ASTAR_OK);
    CHECK(cnt.bytes - before == 258LL * 258LL * 16LL);
    CHECK(astar_grid_jump_bytes(g) == 258u * 258u * 16u);
    CHECK(astar_grid_prepare_jumps(g, ASTAR_DIAG_ALWAYS) == ASTAR_EINVAL);
    CHECK(astar_grid_prepare_jumps(NULL, ASTAR_DIAG_DEFAULT) == ASTAR_EINVAL);
    long long prepared = cnt.bytes;
    q.jps = ASTAR_JPS_AUTO;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_OK);
    printf("memory: %.2f bytes per cell with the JPS+ table\n", (double)cnt.bytes / (256.0 * 256.0));
    CHECK(cnt.bytes == prepared);
    astar_search_free(s);
    astar_grid_free(g);
    CHECK(cnt.bytes == 0);
}

static int zero_node_cost(void *ud, int32_t x, int32_t y, double *extra) {
    (void)ud, (void)x, (void)y;
    *extra = 0.0;
    return ASTAR_CB_PASS;
}

static int zero_edge_cost(void *ud, int32_t x, int32_t y, int32_t fx, int32_t fy, double *extra) {
    (void)ud, (void)x, (void)y, (void)fx, (void)fy;
    *extra = 0.0;
    return ASTAR_CB_PASS;
}

static double zero_heuristic(void *ud, int32_t x, int32_t y, int32_t gx, int32_t gy) {
    (void)ud, (void)x, (void)y, (void)gx, (void)gy;
    return 0.0;
}

static void test_allocations(void) {
    counting cnt = {0};
    astar_alloc a = {count_alloc, &cnt};
    astar_grid *g = astar_grid_new(64, 64, ASTAR_DIAG_NO_CORNER_CUT, &a);
    astar_search *s = astar_search_new(64, 64, &a);
    astar_layer *layer = astar_layer_new(64, 64, 1.0, &a);
    astar_layer_ref ref = {layer, 1.0};
    for (int y = 10; y < 60; y++) astar_grid_set_cost(g, 30, y, INFINITY);
    astar_query q;
    astar_query_init(&q);
    q.sx = 2, q.sy = 60, q.gx = 60, q.gy = 62;
    q.layers = &ref;
    q.nlayers = 1;
    astar_result res;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_OK);
    long warm = cnt.allocs;
    for (int i = 0; i < 50; i++) {
        q.gx = 40 + i % 20;
        CHECK(astar_find(s, g, &q, &res) == ASTAR_OK);
    }
    CHECK(cnt.allocs == warm);

    /* Every loop (plain, layers and claims, callbacks), partial, terrain changes: after a
     * first query of each kind, nothing. */
    astar_claims *claims = astar_claims_new(64, 64, &a);
    int32_t unit = astar_claims_unit_new(claims), path[3] = {64 * 20 + 5, 64 * 20 + 6, 64 * 20 + 7};
    CHECK(unit >= 0 && astar_claims_set(claims, unit, path, 3) == ASTAR_OK);
    /* The field's own storage is its answer's (a build allocates what it reached, issue 27):
     * on malloc, apart from the counted workspace. */
    astar_field *field = astar_field_new(64, 64, NULL);
    CHECK(field != NULL);
    for (int round = 0; round < 2; round++) {
        /* A cell opened or blocked makes the next query rebuild the grid's dead ends, with
         * scratch memory for the build (a grid's cache, not the workspace): one query per
         * move graph first. */
        for (int mode = 0; mode < 2; mode++) {
            astar_query k;
            astar_query_init(&k);
            k.sx = 2, k.sy = 60, k.gx = 50, k.gy = 62, k.jps = ASTAR_JPS_OFF;
            if (mode) k.diagonal = ASTAR_DIAG_HEX;
            astar_find(s, g, &k, &res);
        }
        long before = cnt.allocs;
        for (int kind = 0; kind < 10; kind++) {
            astar_query k;
            astar_query_init(&k);
            k.sx = 2, k.sy = 60, k.gx = 50 + round, k.gy = 62;
            if (kind == 1) k.layers = &ref, k.nlayers = 1, k.claims = claims, k.unit = unit;
            if (kind == 2) k.claims = claims, k.claim_radius = 10;
            if (kind == 3) k.node_cost = zero_node_cost, k.edge_cost = zero_edge_cost;
            if (kind == 4) k.heuristic = ASTAR_H_CUSTOM, k.heuristic_fn = zero_heuristic;
            if (kind == 5) k.partial = 1, k.gx = 30, k.gy = 30; /* a blocked goal */
            if (kind == 6) k.diagonal = ASTAR_DIAG_HEX, k.noise = 1.0;
            if (kind == 7) k.turn_penalty = 1.0, k.claims = claims, k.claim_window = 2;
            if (kind >= 8) { /* fields: to the goal, and from the start */
                int32_t at = kind == 8 ? k.gy * 64 + k.gx : k.sy * 64 + k.sx;
                k.max_cost = kind == 9 ? 30.0 : INFINITY;
                CHECK(astar_field_build(field, s, g, &k, &at, 1, kind == 8 ? ASTAR_FIELD_TO : ASTAR_FIELD_FROM,
                                        &res) == ASTAR_OK);
                CHECK(astar_field_reached(field) > 0);
                continue;
            }
            astar_status st = astar_find(s, g, &k, &res);
            CHECK(st == (kind == 5 ? ASTAR_PARTIAL : ASTAR_OK));
        }
        astar_grid_set_cost(g, 30, 9, round ? 1.0 : INFINITY); /* closes, then reopens, a gap */
        if (round == 1) CHECK(cnt.allocs == before);
    }
    astar_field_free(field);
    astar_claims_free(claims);
    astar_layer_free(layer);
    astar_search_free(s);
    astar_grid_free(g);
    CHECK(cnt.live == 0);

    /* Every allocation of a cold query failing in turn: a clean ENOMEM, no leak. */
    for (long n = 1; n < 20; n++) {
        counting f = {0};
        astar_alloc fa = {count_alloc, &f};
        astar_grid *fg = astar_grid_new(40, 40, ASTAR_DIAG_ALWAYS, &fa);
        astar_search *fs = astar_search_new(40, 40, &fa);
        f.fail_at = f.allocs + n;
        if (fg && fs) {
            astar_query fq;
            astar_query_init(&fq);
            fq.gx = 39, fq.gy = 39;
            astar_status st = astar_find(fs, fg, &fq, &res);
            CHECK(st == ASTAR_OK || st == ASTAR_ENOMEM);
            f.fail_at = 0;
            CHECK(astar_find(fs, fg, &fq, &res) == ASTAR_OK); /* usable afterwards */
        }
        astar_search_free(fs);
        astar_grid_free(fg);
        CHECK(f.live == 0);
    }
}

/* A callback that longjmps out of the search (as the Lua binding's does). */
static jmp_buf escape;
static int escaping_node_cost(void *ud, int32_t x, int32_t y, double *extra) {
    (void)ud;
    *extra = 0.0;
    if (x == 5 && y == 5) longjmp(escape, 1);
    return ASTAR_CB_PASS;
}

static int aborting_edge_cost(void *ud, int32_t x, int32_t y, int32_t fx, int32_t fy, double *extra) {
    (void)ud, (void)x, (void)y, (void)fx, (void)fy;
    *extra = 0.0;
    return ASTAR_CB_ABORT;
}

static int negative_node_cost(void *ud, int32_t x, int32_t y, double *extra) {
    (void)ud, (void)x, (void)y;
    *extra = -1.0;
    return ASTAR_CB_PASS;
}

static void test_interrupted_search(void) {
    astar_grid *g = astar_grid_new(10, 10, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *s = astar_search_new(10, 10, NULL);
    astar_query q;
    astar_query_init(&q);
    q.gx = 9, q.gy = 9;
    q.node_cost = escaping_node_cost;
    astar_result res;
    if (setjmp(escape) == 0) {
        astar_find(s, g, &q, &res);
        CHECK(!"the callback should have jumped out");
    }
    astar_query plain;
    astar_query_init(&plain);
    plain.gx = 9, plain.gy = 9;
    CHECK(astar_find(s, g, &plain, &res) == ASTAR_OK);
    CHECK_NEAR(res.cost, 9 * sqrt(2.0));
    q.node_cost = NULL;
    q.edge_cost = aborting_edge_cost;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_EABORT);
    q.edge_cost = NULL;
    q.node_cost = negative_node_cost;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_EABORT);
    CHECK(astar_find(s, g, &plain, &res) == ASTAR_OK);
    astar_search_free(s);
    astar_grid_free(g);
}

/* A search suspended while the terrain changes answers for the new terrain: it goes on past a
 * change it had not reached (spec 51 has repairs and the rest), starts over after a bulk write. */
static void test_resumable_restart(void) {
    astar_grid *g = astar_grid_new(60, 40, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *s = astar_search_new(60, 40, NULL);
    astar_search *fresh = astar_search_new(60, 40, NULL);
    astar_query q;
    astar_query_init(&q);
    q.sx = 0, q.sy = 20, q.gx = 59, q.gy = 20;
    q.jps = ASTAR_JPS_OFF; /* A*'s following of changes (a job that jumps starts over) */
    astar_result res, want;
    CHECK(astar_search_start(s, g, &q, &res) == ASTAR_RUNNING && res.expansions == 0);
    CHECK(astar_search_step(s, 10, &res) == ASTAR_RUNNING && res.expansions == 10);
    for (int y = 1; y < 40; y++) astar_grid_set_cost(g, 30, y, INFINITY); /* a wall, open at y 0 */
    astar_status st = ASTAR_RUNNING;
    while (st == ASTAR_RUNNING) st = astar_search_step(s, 100, &res);
    CHECK(st == ASTAR_OK && res.restarts == 0 && res.repairs == 0); /* 10 expansions: not at x 30 */
    astar_query plain = q;
    CHECK(astar_find(fresh, g, &plain, &want) == ASTAR_OK);
    CHECK(res.cost == want.cost);
    /* A bulk write: the change log cannot say which cells changed. */
    CHECK(astar_search_start(s, g, &q, &res) == ASTAR_RUNNING);
    CHECK(astar_search_step(s, 10, &res) == ASTAR_RUNNING);
    CHECK(astar_grid_fill(g, 2.0) == ASTAR_OK);
    st = ASTAR_RUNNING;
    while (st == ASTAR_RUNNING) st = astar_search_step(s, 100, &res);
    CHECK(st == ASTAR_OK && res.restarts == 1);
    CHECK(astar_find(fresh, g, &plain, &want) == ASTAR_OK);
    CHECK(res.cost == want.cost && res.expansions == want.expansions);
    /* Starting over on the same workspace forgets the old search. */
    CHECK(astar_search_start(s, g, &q, &res) == ASTAR_RUNNING && res.restarts == 0);
    CHECK(astar_find(s, g, &q, &res) == ASTAR_OK);
    CHECK(astar_search_step(s, 1, &res) == ASTAR_OK); /* find ended it: its result again */
    astar_search_free(fresh);
    astar_search_free(s);
    astar_grid_free(g);
}

static void test_bad_queries(void) {
    astar_grid *g = astar_grid_new(8, 8, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *s = astar_search_new(8, 8, NULL);
    astar_search *other = astar_search_new(9, 8, NULL);
    astar_query q;
    astar_result res;
    astar_query_init(&q);
    q.gx = 8;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_EINVAL);
    astar_query_init(&q);
    q.weight = 0.5;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_EINVAL);
    astar_query_init(&q);
    CHECK(astar_find(other, g, &q, &res) == ASTAR_EINVAL);
    astar_query_init(&q);
    q.max_expansions = 0;
    q.gx = 3;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_LIMIT && res.expansions == 0);
    q.max_expansions = UINT64_MAX;
    q.max_cost = 2.5;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_LIMIT);
    q.max_cost = 3.0;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_OK && res.cost == 3.0);
    astar_search_free(other);
    astar_search_free(s);
    astar_grid_free(g);
}

/*
 * The workspace stamps the cells a query touches with a 16-bit query number
 * that wraps, once in 65535 queries. A long search whose stamps are left
 * untouched by the trivial queries that follow it shares its number with the
 * search one period later: the later one must not see the earlier one's
 * costs, nor its claim counts (the two count claims differently).
 */
static void test_stamps_wrap(void) {
    enum { N = 6, UNITS = 3, PERIOD = 65535 };
    static world w;
    memset(&w, 0, sizeof w);
    w.w = N;
    w.h = N;
    w.diag = ASTAR_DIAG_NO_CORNER_CUT;
    w.claim_penalty = 2.5;
    astar_grid *g = astar_grid_new(N, N, w.diag, NULL);
    astar_claims *claims = astar_claims_new(N, N, NULL);
    astar_search *s = astar_search_new(N, N, NULL);
    /* Walls in columns 2 and 4 make every path from (0, 5) to (5, 0) cross claimed cells. */
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            w.cost[y][x] = (x == 2 && y > 0) || (x == 4 && y < 4) ? INFINITY : 1.0 + (x + y) % 3;
            astar_grid_set_cost(g, x, y, w.cost[y][x]);
        }
    int column[UNITS] = {0, 1, 3}; /* each unit claims rows 1-4 of a column and stands in row 1 */
    for (int u = 0; u < UNITS; u++) {
        int32_t slot = astar_claims_unit_new(claims), nodes[4];
        for (int i = 0; i < 4; i++) nodes[i] = (1 + i) * N + column[u];
        astar_claims_set(claims, slot, nodes, 4);
    }
    double expected[2]; /* claim radius N from (0, 5) counts every unit, radius 0 none */
    expected[1] = oracle_cost(&w, 0, 5, 5, 0);
    for (int u = 0; u < UNITS; u++)
        for (int i = 0; i < 4; i++) w.claimed[1 + i][column[u]]++;
    expected[0] = oracle_cost(&w, 0, 5, 5, 0);
    CHECK(expected[0] > expected[1] && expected[1] < INFINITY);

    int wrong = 0;
    for (int k = 0; k <= 2 * PERIOD; k++) {
        astar_query q;
        astar_query_init(&q);
        int kind = (k / PERIOD) % 2, big = k % PERIOD == 0;
        if (big) {
            q.sx = 0, q.sy = 5, q.gx = 5, q.gy = 0;
            q.claims = claims;
            q.claim_penalty = w.claim_penalty;
            q.claim_radius = kind == 0 ? N : 0;
        } else {
            q.sx = q.gx = 5, q.sy = q.gy = 5; /* touches one cell and no claim stamp */
        }
        astar_result res;
        astar_status st = astar_find(s, g, &q, &res);
        double want = big ? expected[kind] : 0.0;
        wrong += st != ASTAR_OK || fabs(res.cost - want) > 1e-9 * (1.0 + want);
    }
    CHECK(wrong == 0);
    astar_search_free(s);
    astar_claims_free(claims);
    astar_grid_free(g);
}

/*
 * Grids whose walkable cells all cost the same take a loop that reads no
 * terrain costs; every change of the costs must switch between the loops.
 * A corridor of 6 cells, from one end to the other (5 steps).
 */
static double corridor_cost(astar_grid *g, astar_search *s) {
    astar_query q;
    astar_query_init(&q);
    q.sx = 0, q.sy = 0, q.gx = 5, q.gy = 0;
    astar_result res;
    return astar_find(s, g, &q, &res) == ASTAR_OK ? res.cost : -1.0;
}

static void test_uniform_terrain(void) {
    astar_grid *g = astar_grid_new(6, 1, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *s = astar_search_new(6, 1, NULL);
    CHECK_NEAR(corridor_cost(g, s), 5.0);
    astar_grid_set_cost(g, 2, 0, 3.0);             /* no longer uniform */
    CHECK_NEAR(corridor_cost(g, s), 7.0);
    astar_grid_set_cost(g, 2, 0, 1.0);             /* uniform again */
    CHECK_NEAR(corridor_cost(g, s), 5.0);
    astar_grid_fill(g, 2.0);
    CHECK_NEAR(corridor_cost(g, s), 10.0);
    astar_grid_set_cost(g, 4, 0, 0.5);             /* below the rest */
    CHECK_NEAR(corridor_cost(g, s), 8.5);
    astar_grid_set_cost(g, 4, 0, 2.0);
    astar_grid_set_cost(g, 0, 0, 9.0);             /* the start's cost is never paid */
    CHECK_NEAR(corridor_cost(g, s), 10.0);
    astar_grid_set_cost(g, 5, 0, 9.0);
    CHECK_NEAR(corridor_cost(g, s), 17.0);
    double costs[6] = {4, 4, 4, 4, 4, 4};
    astar_grid_set_all(g, costs);
    CHECK_NEAR(corridor_cost(g, s), 20.0);
    costs[3] = 1.0;
    astar_grid_set_all(g, costs);
    CHECK_NEAR(corridor_cost(g, s), 17.0);
    astar_search_free(s);
    astar_grid_free(g);
}

/* ---------------------------------------------------------------- graphs */

enum { GMAX = 32 };

/* A graph as plain data: arc[a][b] is the cost of a -> b (INFINITY: no arc). */
typedef struct gworld {
    int n;
    double x[GMAX], y[GMAX], z[GMAX];
    double arc[GMAX][GMAX];
    int blocked[GMAX];
    double layer[GMAX], layer_weight;
    int use_layer;
    int claimed[GMAX];       /* units other than the querying one claiming each node */
    double claim_penalty;
    double node_extra[GMAX]; /* INFINITY blocks */
    int use_node_cost, use_edge_cost;
} gworld;

/* A fixed pseudo-random extra per arc: INFINITY (blocks) for about 1 in 20. */
static double graph_edge_extra(int32_t to, int32_t from) {
    unsigned k = ((unsigned)to * 73856093u) ^ ((unsigned)from * 83492791u);
    k %= 97;
    if (k < 5) return INFINITY;
    return (k % 4) * 0.25;
}

static double gworld_step(const gworld *w, int a, int b) {
    if (w->arc[a][b] == INFINITY || w->blocked[b]) return INFINITY;
    double p = 0.0;
    if (w->use_layer) p += w->layer_weight * w->layer[b];
    p += w->claim_penalty * w->claimed[b];
    if (w->use_node_cost) {
        if (w->node_extra[b] == INFINITY) return INFINITY;
        p += w->node_extra[b];
    }
    if (w->use_edge_cost) {
        double e = graph_edge_extra(b, a);
        if (e == INFINITY) return INFINITY;
        p += e;
    }
    return w->arc[a][b] + (p > 0 ? p : 0.0);
}

/* Whether a path may end at node b (entering it is not blocked). */
static bool gworld_open(const gworld *w, int b) {
    return !w->blocked[b] && !(w->use_node_cost && w->node_extra[b] == INFINITY);
}

/* Bellman-Ford from the step rule: dist[i] is the optimal cost from the nearest of the sources
 * (0 at a source, blocked or not), INFINITY when no path reaches i. */
static void gworld_dists(const gworld *w, const int32_t *sources, int nsources, double *dist) {
    for (int i = 0; i < w->n; i++) dist[i] = INFINITY;
    for (int i = 0; i < nsources; i++) dist[sources[i]] = 0.0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int a = 0; a < w->n; a++)
            for (int b = 0; b < w->n && dist[a] != INFINITY; b++) {
                double s = gworld_step(w, a, b);
                if (s != INFINITY && dist[a] + s < dist[b] - 1e-12) dist[b] = dist[a] + s, changed = 1;
            }
    }
}

/* The optimal cost from start to goal, INFINITY when there is no path. */
static double gworld_cost(const gworld *w, int start, int goal) {
    if (!gworld_open(w, goal)) return INFINITY;
    double dist[GMAX];
    int32_t from = start;
    gworld_dists(w, &from, 1, dist);
    return dist[goal];
}

static int g_node_cost(void *ud, int32_t id, double *extra) {
    const gworld *w = ud;
    if (w->node_extra[id] == INFINITY) return ASTAR_CB_BLOCK;
    *extra = w->node_extra[id];
    return ASTAR_CB_PASS;
}

static int g_edge_cost(void *ud, int32_t to, int32_t from, double *extra) {
    (void)ud;
    *extra = graph_edge_extra(to, from);
    return ASTAR_CB_PASS;
}

static void test_graph_basics(void) {
    astar_graph *g = astar_graph_new(NULL);
    int32_t a, b, c;
    CHECK(astar_graph_add_node(g, 0, 0, 0, &a) == ASTAR_OK && a == 0);
    CHECK(astar_graph_add_node(g, 3, 4, 0, &b) == ASTAR_OK && b == 1);
    CHECK(astar_graph_add_node(g, 3, 4, 12, &c) == ASTAR_OK && c == 2);
    CHECK(astar_graph_add_node(g, NAN, 0, 0, NULL) == ASTAR_EINVAL);
    CHECK(astar_graph_add_node(g, 0, INFINITY, 0, NULL) == ASTAR_EINVAL);
    CHECK(astar_graph_node_count(g) == 3);
    CHECK(astar_graph_add_edge(g, a, b, ASTAR_GRAPH_LENGTH) == ASTAR_OK);
    CHECK(astar_graph_arc_cost(g, a, b) == 5.0 && astar_graph_arc_cost(g, b, a) == 5.0);
    CHECK(astar_graph_add_arc(g, b, c, ASTAR_GRAPH_LENGTH) == ASTAR_OK);
    CHECK(astar_graph_arc_cost(g, b, c) == 12.0 && isnan(astar_graph_arc_cost(g, c, b)));
    CHECK(astar_graph_arc_count(g) == 3);
    CHECK(astar_graph_add_arc(g, a, a, 1.0) == ASTAR_EINVAL);      /* a loop */
    CHECK(astar_graph_add_arc(g, a, 3, 1.0) == ASTAR_EINVAL);      /* no node 3 */
    CHECK(astar_graph_add_arc(g, a, b, -2.0) == ASTAR_EINVAL);
    CHECK(astar_graph_add_arc(g, a, b, NAN) == ASTAR_EINVAL);
    CHECK(astar_graph_add_arc(g, a, b, INFINITY) == ASTAR_EINVAL);
    CHECK(astar_graph_add_edge(g, a, b, 2.0) == ASTAR_OK); /* replaces both costs */
    CHECK(astar_graph_arc_cost(g, a, b) == 2.0 && astar_graph_arc_count(g) == 3);
    CHECK(astar_graph_prepare(g) == ASTAR_OK);
    CHECK_NEAR(astar_graph_heuristic_scale(g), 0.4); /* 2 over a length of 5 */
    int32_t to[4];
    double cost[4];
    CHECK(astar_graph_add_arc(g, b, a, 7.0) == ASTAR_OK);
    CHECK(astar_graph_neighbours(g, b, to, cost, 4) == 2 && to[0] == a && to[1] == c && cost[0] == 7.0);
    int removed;
    CHECK(astar_graph_remove_arc(g, b, a, &removed) == ASTAR_OK && removed == 1);
    CHECK(astar_graph_remove_arc(g, b, a, &removed) == ASTAR_OK && removed == 0);
    CHECK(astar_graph_neighbours(g, b, to, cost, 4) == 1 && to[0] == c);
    CHECK(isnan(astar_graph_heuristic_scale(g))); /* stale until the next prepare */
    CHECK(astar_graph_add_arc(g, c, a, 0.0) == ASTAR_OK); /* a free portal */
    CHECK(astar_graph_prepare(g) == ASTAR_OK && astar_graph_heuristic_scale(g) == 0.0);

    astar_graph_search *s = astar_graph_search_new(NULL);
    astar_graph_query q;
    astar_graph_query_init(&q);
    q.start = a, q.goal = c;
    astar_result res;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_OK);
    CHECK_NEAR(res.cost, 14.0);
    int32_t len;
    const int32_t *path = astar_graph_search_path(s, &len);
    CHECK(len == 3 && path[0] == a && path[1] == b && path[2] == c);
    CHECK(astar_graph_set_blocked(g, b, 1) == ASTAR_OK && astar_graph_is_blocked(g, b) == 1);
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_UNREACHABLE);
    q.partial = 1;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_PARTIAL && res.length == 1);
    q.partial = 0;
    q.start = c, q.goal = b; /* a blocked goal: no search */
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_UNREACHABLE && res.expansions == 0);
    q.start = b, q.goal = c; /* a blocked start may be left */
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_OK && res.cost == 12.0);
    q.start = 5;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_EINVAL);
    q.start = b, q.heuristic = ASTAR_H_OCTILE;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_EINVAL);
    astar_graph_search_free(s);
    astar_graph_free(g);
}

/* A random graph of 2..GMAX nodes (edges, arcs, free arcs, blocked nodes) in w and in the graph
 * returned, and random cost options (a layer, claims, node and edge callbacks) in both w and q. */
static astar_graph *gworld_random(gworld *w, astar_graph_query *q, astar_graph_layer *layer, astar_claims **claims) {
    memset(w, 0, sizeof *w);
    w->n = 2 + (int)(rnd() % (GMAX - 2));
    astar_graph *g = astar_graph_new(NULL);
    for (int i = 0; i < w->n; i++) {
        w->x[i] = rnd01() * 20, w->y[i] = rnd01() * 20, w->z[i] = rnd() % 3 ? 0 : rnd01() * 5;
        astar_graph_add_node(g, w->x[i], w->y[i], w->z[i], NULL);
        for (int j = 0; j < w->n; j++) w->arc[i][j] = INFINITY;
    }
    int arcs = (int)(rnd() % (unsigned)(3 * w->n));
    for (int k = 0; k < arcs; k++) {
        int a = (int)(rnd() % (unsigned)w->n), b = (int)(rnd() % (unsigned)w->n);
        if (a == b) continue;
        double len = sqrt((w->x[a] - w->x[b]) * (w->x[a] - w->x[b]) + (w->y[a] - w->y[b]) * (w->y[a] - w->y[b]) +
                          (w->z[a] - w->z[b]) * (w->z[a] - w->z[b]));
        unsigned kind = rnd() % 4;
        double cost = kind == 0 ? ASTAR_GRAPH_LENGTH : kind == 1 ? rnd01() * 10 : kind == 2 ? len * (0.3 + rnd01()) : 0.0;
        if (kind == 3 && rnd() % 4) cost = len; /* few free arcs */
        double real = cost == ASTAR_GRAPH_LENGTH ? len : cost;
        if (rnd() % 2) {
            CHECK(astar_graph_add_edge(g, a, b, cost) == ASTAR_OK);
            w->arc[a][b] = w->arc[b][a] = real;
        } else {
            CHECK(astar_graph_add_arc(g, a, b, cost) == ASTAR_OK);
            w->arc[a][b] = real;
        }
    }
    for (int i = 0; i < w->n; i++)
        if (rnd() % 8 == 0) w->blocked[i] = 1, astar_graph_set_blocked(g, i, 1);
    astar_graph_query_init(q);
    *layer = (astar_graph_layer){w->layer, NULL, NULL, 0.0};
    *claims = NULL;
    if (rnd() % 3 == 0) {
        w->use_layer = 1;
        w->layer_weight = layer->weight = 0.5 + rnd01() * 2;
        for (int i = 0; i < w->n; i++) w->layer[i] = rnd01() * 6 - 2;
        q->layers = layer, q->nlayers = 1;
    }
    if (rnd() % 3 == 0) {
        *claims = astar_graph_claims_new(g, NULL);
        int32_t me = astar_claims_unit_new(*claims), other = astar_claims_unit_new(*claims);
        int32_t mine[3] = {(int32_t)(rnd() % (unsigned)w->n), (int32_t)(rnd() % (unsigned)w->n), 0};
        int32_t theirs[2] = {(int32_t)(rnd() % (unsigned)w->n), (int32_t)(rnd() % (unsigned)w->n)};
        astar_claims_set(*claims, me, mine, 3);
        astar_claims_set(*claims, other, theirs, 2);
        w->claimed[theirs[0]] = 1, w->claimed[theirs[1]] = 1;
        w->claim_penalty = q->claim_penalty = rnd01() * 4;
        q->claims = *claims, q->unit = me;
    }
    if (rnd() % 3 == 0) {
        w->use_node_cost = 1;
        for (int i = 0; i < w->n; i++) w->node_extra[i] = rnd() % 10 == 0 ? INFINITY : rnd01() * 3;
        q->node_cost = g_node_cost, q->node_cost_ud = w;
    }
    if (rnd() % 4 == 0) w->use_edge_cost = 1, q->edge_cost = g_edge_cost;
    return g;
}

static void test_graph_random(void) {
    static gworld w;
    int found = 0;
    astar_graph_search *s = astar_graph_search_new(NULL);
    for (int round = 0; round < 400; round++) {
        astar_graph_query q;
        astar_graph_layer layer;
        astar_claims *claims;
        astar_graph *g = gworld_random(&w, &q, &layer, &claims);
        if (rnd() % 4 == 0) q.heuristic = ASTAR_H_ZERO;
        if (rnd() % 4 == 0) q.weight = 1.0 + rnd01() * 2;
        q.start = (int32_t)(rnd() % (unsigned)w.n), q.goal = (int32_t)(rnd() % (unsigned)w.n);
        double want = gworld_cost(&w, q.start, q.goal);
        astar_result res;
        astar_status st = astar_graph_find(s, g, &q, &res);
        if (want == INFINITY) {
            CHECK(st == ASTAR_UNREACHABLE);
        } else {
            found++;
            CHECK(st == ASTAR_OK);
            CHECK(res.cost <= want * q.weight + 1e-9 * (1 + want) && res.cost >= want - 1e-9 * (1 + want));
            if (q.weight == 1.0) CHECK_NEAR(res.cost, want);
            int32_t len;
            const int32_t *path = astar_graph_search_path(s, &len);
            double total = 0.0;
            for (int32_t i = 1; i < len; i++) total += gworld_step(&w, path[i - 1], path[i]);
            CHECK(path[0] == q.start && path[len - 1] == q.goal);
            CHECK_NEAR(total, res.cost);
        }
        astar_claims_free(claims);
        astar_graph_free(g);
    }
    CHECK(found > 150);
    astar_graph_search_free(s);
}

/* The field's list against dist[] from the oracle: every node it reaches within max_cost once,
 * cheapest first, each at the oracle's cost, one step (at the step rule's cost) from its prev or
 * a source. The nodes it listed. */
static int32_t check_field(const astar_graph_search *s, const gworld *w, const int32_t *sources, int nsources,
                           const double *dist, double max_cost) {
    int seen[GMAX] = {0};
    int32_t reached = astar_graph_field_reached(s);
    double last = 0.0;
    for (int32_t i = 0; i < reached; i++) {
        int32_t id, prev;
        double d;
        astar_graph_field_entry(s, i, &id, &d, &prev);
        CHECK(id >= 0 && id < w->n && !seen[id]);
        if (id < 0 || id >= w->n || seen[id]) continue;
        seen[id] = 1;
        CHECK_NEAR(d, dist[id]);
        CHECK(d >= last - 1e-9 && d <= max_cost);
        last = d;
        int source = 0;
        for (int k = 0; k < nsources; k++) source |= sources[k] == id;
        if (source) {
            CHECK(prev == -1 && d == 0.0);
        } else {
            CHECK(prev >= 0 && prev < w->n && seen[prev]); /* settled before it */
            if (prev >= 0 && prev < w->n) CHECK_NEAR(d, dist[prev] + gworld_step(w, prev, id));
        }
    }
    /* nothing the oracle reaches within max_cost is missing (a hair's width left to rounding) */
    for (int i = 0; i < w->n; i++)
        if (dist[i] < max_cost - 1e-9 * (1 + max_cost)) CHECK(seen[i]);
    return reached;
}

/*
 * astar_graph_field and find_nearest (targets, target_costs) through the C API: a graph checked
 * by hand, then random graphs with every cost option against Bellman-Ford (gworld_dists).
 */
static void test_graph_fields(void) {
    /*  0 --3-- 1          0-1 and 0-2 edges, 1 -> 2 an arc, 2-3 an edge, 4 alone
     *   \      |
     *   10     4 (one way, down)
     *     \    v
     *       -- 2 --3-- 3      4 */
    astar_graph *g = astar_graph_new(NULL);
    static const double at[5][2] = {{0, 0}, {3, 0}, {3, 4}, {6, 4}, {20, 20}};
    for (int i = 0; i < 5; i++) CHECK(astar_graph_add_node(g, at[i][0], at[i][1], 0, NULL) == ASTAR_OK);
    CHECK(astar_graph_add_edge(g, 0, 1, ASTAR_GRAPH_LENGTH) == ASTAR_OK);
    CHECK(astar_graph_add_edge(g, 0, 2, 10) == ASTAR_OK);
    CHECK(astar_graph_add_arc(g, 1, 2, ASTAR_GRAPH_LENGTH) == ASTAR_OK);
    CHECK(astar_graph_add_edge(g, 2, 3, ASTAR_GRAPH_LENGTH) == ASTAR_OK);
    astar_graph_search *s = astar_graph_search_new(NULL);
    astar_graph_query q;
    astar_graph_query_init(&q);
    astar_result res;
    int32_t id, prev;
    double d;
    static const struct { int32_t id; double dist; int32_t prev; } from0[] = {{0, 0, -1}, {1, 3, 0}, {2, 7, 1}, {3, 10, 2}};
    int32_t src[2] = {0, 3};
    CHECK(astar_graph_field(s, g, &q, src, 1, &res) == ASTAR_OK && astar_graph_field_reached(s) == 4);
    for (int32_t i = 0; i < 4; i++) {
        astar_graph_field_entry(s, i, &id, &d, &prev);
        CHECK(id == from0[i].id && d == from0[i].dist && prev == from0[i].prev);
    }
    /* from 3 the arc 1 -> 2 cannot be taken back: 1 is reached through 0 */
    CHECK(astar_graph_field(s, g, &q, &src[1], 1, &res) == ASTAR_OK && astar_graph_field_reached(s) == 4);
    astar_graph_field_entry(s, 3, &id, &d, &prev);
    CHECK(id == 1 && d == 16 && prev == 0);
    /* two sources: each node from the nearer */
    CHECK(astar_graph_field(s, g, &q, src, 2, &res) == ASTAR_OK && astar_graph_field_reached(s) == 4);
    astar_graph_field_entry(s, 3, &id, &d, &prev);
    CHECK(d == 3 && ((id == 1 && prev == 0) || (id == 2 && prev == 3)));
    /* a range: max_cost 7 keeps the node at exactly 7 */
    q.max_cost = 7;
    CHECK(astar_graph_field(s, g, &q, src, 1, &res) == ASTAR_OK && astar_graph_field_reached(s) == 3);
    q.max_cost = INFINITY;
    /* a blocked node is not entered; a blocked source still spreads */
    CHECK(astar_graph_set_blocked(g, 2, 1) == ASTAR_OK);
    CHECK(astar_graph_field(s, g, &q, src, 1, &res) == ASTAR_OK && astar_graph_field_reached(s) == 2);
    int32_t blocked_src = 2;
    CHECK(astar_graph_field(s, g, &q, &blocked_src, 1, &res) == ASTAR_OK && astar_graph_field_reached(s) == 4);
    CHECK(astar_graph_set_blocked(g, 2, 0) == ASTAR_OK);
    /* refused */
    CHECK(astar_graph_field(s, g, &q, src, 0, &res) == ASTAR_EINVAL);
    int32_t outside = 5;
    CHECK(astar_graph_field(s, g, &q, &outside, 1, &res) == ASTAR_EINVAL);
    q.weight = 2;
    CHECK(astar_graph_field(s, g, &q, src, 1, &res) == ASTAR_EINVAL);
    q.weight = 1;
    /* toward 2, over the arcs reversed: 1 -> 2 is taken (4), 0 goes through 1 (7, not 10); from
     * 2 along the arcs 1 is 13 away (2 - 0 - 1) */
    static const struct { int32_t id; double dist; int32_t next; } to2[] = {{2, 0, -1}, {3, 3, 2}, {1, 4, 2}, {0, 7, 1}};
    int32_t two = 2;
    q.toward = 1;
    CHECK(astar_graph_field(s, g, &q, &two, 1, &res) == ASTAR_OK && astar_graph_field_reached(s) == 4);
    for (int32_t i = 0; i < 4; i++) {
        astar_graph_field_entry(s, i, &id, &d, &prev);
        CHECK(id == to2[i].id && d == to2[i].dist && prev == to2[i].next);
    }
    q.start = 0, q.goal = 2;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_EINVAL); /* a field's option only */
    q.start = q.goal = 0, q.toward = 0;
    int32_t one_target = 3;
    q.targets = &one_target, q.ntargets = 1;
    CHECK(astar_graph_field(s, g, &q, src, 1, &res) == ASTAR_EINVAL); /* a field has no targets */
    q.targets = NULL, q.ntargets = 0;
    CHECK(astar_graph_field(s, g, &q, &two, 1, &res) == ASTAR_OK);
    CHECK(astar_graph_field_reached(s) == 4);
    astar_graph_field_entry(s, 3, &id, &d, &prev);
    CHECK(id == 1 && d == 13 && prev == 0);
    /* the nearest of 3 and 1 from 0: 1 at 3 + 5 beats 3 at 10; with 1's cost 8 (11), 3 wins */
    int32_t targets[2] = {3, 1};
    double tcost[2] = {0, 5};
    q.start = q.goal = 0, q.targets = targets, q.ntargets = 2, q.target_costs = tcost;
    int32_t len;
    const int32_t *path;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_OK && res.target == 1 && res.cost == 3);
    path = astar_graph_search_path(s, &len);
    CHECK(len == 2 && path[0] == 0 && path[1] == 1);
    CHECK(astar_graph_field_reached(s) == 0); /* the field is gone after another query */
    tcost[1] = 8;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_OK && res.target == 0 && res.cost == 10);
    path = astar_graph_search_path(s, &len);
    CHECK(len == 4 && path[0] == 0 && path[1] == 1 && path[2] == 2 && path[3] == 3);
    targets[0] = 4, targets[1] = 4; /* alone */
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_UNREACHABLE);
    tcost[1] = -1;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_EINVAL);
    astar_graph_free(g);

    /* Random graphs against the oracle. */
    static gworld w;
    int nonempty = 0, found = 0;
    for (int round = 0; round < 300; round++) {
        astar_graph_layer layer;
        astar_claims *claims;
        g = gworld_random(&w, &q, &layer, &claims);
        double dist[GMAX];
        int32_t sources[3];
        int nsources = 1 + (int)(rnd() % 3);
        for (int i = 0; i < nsources; i++) sources[i] = (int32_t)(rnd() % (unsigned)w.n);
        if (rnd() % 3 == 0) q.max_cost = rnd01() * 15;
        gworld_dists(&w, sources, nsources, dist);
        CHECK(astar_graph_field(s, g, &q, sources, nsources, &res) == ASTAR_OK);
        nonempty += check_field(s, &w, sources, nsources, dist, q.max_cost) > nsources;
        /* the nearest of 1..4 targets from sources[0], sometimes with costs */
        q.max_cost = INFINITY;
        int32_t ts[4];
        double tc[4];
        int nt = 1 + (int)(rnd() % 4);
        for (int i = 0; i < nt; i++) ts[i] = (int32_t)(rnd() % (unsigned)w.n), tc[i] = rnd() % 2 ? rnd01() * 5 : 0.0;
        q.start = q.goal = sources[0], q.targets = ts, q.ntargets = nt, q.target_costs = rnd() % 2 ? tc : NULL;
        gworld_dists(&w, sources, 1, dist);
        double best = INFINITY;
        for (int i = 0; i < nt; i++)
            if (gworld_open(&w, ts[i])) best = fmin(best, dist[ts[i]] + (q.target_costs ? tc[i] : 0.0));
        astar_status st = astar_graph_find(s, g, &q, &res);
        if (best == INFINITY) {
            CHECK(st == ASTAR_UNREACHABLE);
        } else {
            found++;
            CHECK(st == ASTAR_OK && res.target >= 0 && res.target < nt);
            if (st == ASTAR_OK && res.target >= 0 && res.target < nt) {
                path = astar_graph_search_path(s, &len);
                double total = 0.0;
                for (int32_t i = 1; i < len; i++) total += gworld_step(&w, path[i - 1], path[i]);
                CHECK(path[0] == sources[0] && path[len - 1] == ts[res.target]);
                CHECK_NEAR(total, res.cost);
                CHECK_NEAR(res.cost + (q.target_costs ? tc[res.target] : 0.0), best);
            }
        }
        astar_claims_free(claims);
        astar_graph_free(g);
    }
    CHECK(nonempty > 100 && found > 100);
    astar_graph_search_free(s);
}

/* A waypoint ring with chords, big enough that the open list grows. */
static astar_graph *ring_graph(const astar_alloc *a, int n) {
    astar_graph *g = astar_graph_new(a);
    if (!g) return NULL;
    for (int i = 0; i < n; i++)
        if (astar_graph_add_node(g, cos(i * 0.01) * 100, sin(i * 0.01) * 100, 0, NULL) != ASTAR_OK) {
            astar_graph_free(g);
            return NULL;
        }
    for (int i = 0; i < n; i++)
        if (astar_graph_add_edge(g, i, (i + 1) % n, ASTAR_GRAPH_LENGTH) != ASTAR_OK ||
            astar_graph_add_arc(g, i, (i * 7 + 3) % n == i ? (i + 2) % n : (i * 7 + 3) % n, 300.0) != ASTAR_OK) {
            astar_graph_free(g);
            return NULL;
        }
    return g;
}

static int zero_node_cost_graph(void *ud, int32_t id, double *extra) {
    (void)ud, (void)id;
    *extra = 0.0;
    return ASTAR_CB_PASS;
}

static void test_graph_allocations(void) {
    counting cnt = {0};
    astar_alloc a = {count_alloc, &cnt};
    astar_graph *g = ring_graph(&a, 600);
    astar_graph_search *s = astar_graph_search_new(&a);
    astar_claims *claims = astar_graph_claims_new(g, &a);
    int32_t unit = astar_claims_unit_new(claims), path[3] = {5, 6, 7};
    CHECK(unit >= 0 && astar_claims_set(claims, unit, path, 3) == ASTAR_OK);
    static double values[600];
    astar_graph_layer layer = {values, NULL, NULL, 1.0};
    astar_result res;
    for (int round = 0; round < 3; round++) {
        long before = cnt.allocs;
        for (int kind = 0; kind < 4; kind++) {
            astar_graph_query q;
            astar_graph_query_init(&q);
            q.start = 1, q.goal = 300 - 7 * round;
            if (kind == 1) q.layers = &layer, q.nlayers = 1, q.claims = claims, q.unit = unit;
            if (kind == 2) q.node_cost = zero_node_cost_graph, q.edge_cost = g_edge_cost;
            if (kind == 3) q.partial = 1, q.max_expansions = 50;
            astar_status st = astar_graph_find(s, g, &q, &res);
            CHECK(st == (kind == 3 ? ASTAR_PARTIAL : kind == 2 ? st : ASTAR_OK));
        }
        if (round > 0) CHECK(cnt.allocs == before); /* warm: nothing */
    }
    astar_claims_free(claims);
    astar_graph_search_free(s);
    astar_graph_free(g);
    CHECK(cnt.live == 0);

    /* Each allocation failing in turn, building and searching: a clean ENOMEM, and the
     * graph and workspace answer right afterwards. */
    double want = -1.0;
    for (long n = 1; n < 80; n++) {
        counting f = {0};
        astar_alloc fa = {count_alloc, &f};
        astar_graph *fg = ring_graph(&fa, 300);
        astar_graph_search *fs = astar_graph_search_new(&fa);
        if (fg && fs) {
            astar_graph_add_node(fg, 0, 0, 0, NULL); /* stale again: the query packs the arcs */
            f.fail_at = f.allocs + n;
            astar_graph_query q;
            astar_graph_query_init(&q);
            q.start = 0, q.goal = 150;
            astar_status st = astar_graph_find(fs, fg, &q, &res);
            CHECK(st == ASTAR_OK || st == ASTAR_ENOMEM);
            f.fail_at = 0;
            CHECK(astar_graph_find(fs, fg, &q, &res) == ASTAR_OK);
            if (want < 0) want = res.cost;
            CHECK_NEAR(res.cost, want);
        }
        f.fail_at = 0;
        astar_graph_search_free(fs);
        astar_graph_free(fg);
        CHECK(f.live == 0);
    }
    /* Building under failures: whatever was added before the failure stays consistent. */
    for (long n = 1; n < 40; n++) {
        counting f = {0};
        astar_alloc fa = {count_alloc, &f};
        f.fail_at = n;
        astar_graph *fg = ring_graph(&fa, 200); /* frees itself on failure */
        f.fail_at = 0;
        astar_graph_free(fg);
        CHECK(f.live == 0);
    }
}

/* A 40x30 map with walls and (when `dearer`) dearer patches, for the landmark tests. */
static astar_grid *landmark_map(const astar_alloc *a, bool dearer) {
    astar_grid *g = astar_grid_new(40, 30, ASTAR_DIAG_NO_CORNER_CUT, a);
    if (!g) return NULL;
    for (int32_t y = 0; y < 30; y++)
        for (int32_t x = 0; x < 40; x++) {
            if ((x == 12 && y != 4) || (x == 27 && y != 25) || (y == 15 && x > 30)) {
                astar_grid_set_cost(g, x, y, INFINITY);
            } else if (dearer && (x * 7 + y * 3) % 5 == 0) {
                astar_grid_set_cost(g, x, y, 2.5);
            }
        }
    return g;
}

/* A query between two walkable cells of the landmark map, drawn from rnd(). */
static void landmark_query(const astar_grid *g, astar_query *q) {
    astar_query_init(q);
    do {
        q->sx = (int32_t)(rnd() % 40), q->sy = (int32_t)(rnd() % 30);
        q->gx = (int32_t)(rnd() % 40), q->gy = (int32_t)(rnd() % 30);
    } while (astar_grid_get_cost(g, q->sx, q->sy) == INFINITY || astar_grid_get_cost(g, q->gx, q->gy) == INFINITY);
}

static void test_landmarks(void) {
    counting cnt = {0};
    astar_alloc a = {count_alloc, &cnt};
    astar_grid *g = landmark_map(&a, true);
    astar_search *s = astar_search_new(40, 30, &a);
    CHECK(astar_grid_landmarks(g, -1) == ASTAR_EINVAL);
    CHECK(astar_grid_landmarks(g, ASTAR_MAX_LANDMARKS + 1) == ASTAR_EINVAL);
    CHECK(astar_grid_landmark_count(g) == 0);
    enum { QUERIES = 40 };
    double want[QUERIES];
    uint64_t plain = 0, alt = 0;
    astar_result res;
    astar_query q;
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1) {
            long long before = cnt.bytes;
            CHECK(astar_grid_landmarks(g, 6) == ASTAR_OK);
            CHECK(astar_grid_landmark_count(g) == 6);
            /* 8 bytes per landmark per cell (border included; costs differ: both ways), plus
             * the record */
            CHECK(cnt.bytes - before >= 42LL * 32 * 8 * 6 && cnt.bytes - before < 42LL * 32 * 8 * 6 + 4096);
            CHECK((long long)astar_grid_landmark_bytes(g) == cnt.bytes - before);
            int32_t x, y;
            CHECK(astar_grid_landmark(g, 5, &x, &y) == ASTAR_OK && astar_grid_get_cost(g, x, y) != INFINITY);
            CHECK(astar_grid_landmark(g, 6, &x, &y) == ASTAR_EINVAL);
        }
        long allocs = cnt.allocs;
        rng_state = 0x1234567ull;
        for (int i = 0; i < QUERIES; i++) {
            landmark_query(g, &q);
            CHECK(astar_find(s, g, &q, &res) == ASTAR_OK);
            if (pass == 0) {
                want[i] = res.cost;
                plain += res.expansions;
            } else {
                CHECK_NEAR(res.cost, want[i]);
                if (pass == 1) alt += res.expansions;
            }
        }
        if (pass == 2) CHECK(cnt.allocs == allocs); /* warm queries allocate nothing */
    }
    CHECK(alt < plain);
    CHECK(astar_grid_landmarks(g, 0) == ASTAR_OK && astar_grid_landmark_count(g) == 0);
    astar_grid_free(g);

    /* Terrain of one cost: one direction stored (4 bytes per landmark per cell); more
     * landmarks than a query uses at once, so each query picks its own. */
    g = landmark_map(&a, false);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t spent = 0;
        if (pass == 1) {
            long long before = cnt.bytes;
            CHECK(astar_grid_landmarks(g, ASTAR_MAX_LANDMARKS) == ASTAR_OK);
            CHECK(astar_grid_landmark_count(g) == ASTAR_MAX_LANDMARKS);
            CHECK(ASTAR_MAX_LANDMARKS > ASTAR_LANDMARKS_ACTIVE);
            long long per = 42LL * 32 * 4 * ASTAR_MAX_LANDMARKS;
            CHECK(cnt.bytes - before >= per && cnt.bytes - before < per + 4096);
            CHECK((long long)astar_grid_landmark_bytes(g) == cnt.bytes - before);
        }
        rng_state = 0x7654321ull;
        for (int i = 0; i < QUERIES; i++) {
            landmark_query(g, &q);
            q.jps = ASTAR_JPS_OFF;
            CHECK(astar_find(s, g, &q, &res) == ASTAR_OK);
            if (pass == 0) want[i] = res.cost;
            else CHECK_NEAR(res.cost, want[i]);
            spent += res.expansions;
        }
        if (pass == 0) plain = spent;
        else CHECK(spent < plain);
    }
    astar_search_free(s);
    astar_grid_free(g);
    CHECK(cnt.live == 0 && cnt.bytes == 0);

    /* Each allocation of a build failing in turn: ENOMEM, the landmarks as they were (none,
     * or the 2 built before), and the grid answers right afterwards. */
    astar_grid *ref = landmark_map(NULL, true);
    astar_search *rs = astar_search_new(40, 30, NULL);
    astar_query_init(&q);
    q.sx = 0, q.sy = 0, q.gx = 39, q.gy = 29;
    CHECK(astar_find(rs, ref, &q, &res) == ASTAR_OK);
    double corner = res.cost;
    astar_search_free(rs);
    astar_grid_free(ref);
    int failed = 0, built = 0;
    for (int had = 0; had < 2; had++) {
        for (long n = 1; n < 40; n++) {
            counting f = {0};
            astar_alloc fa = {count_alloc, &f};
            astar_grid *fg = landmark_map(&fa, true);
            astar_search *fs = astar_search_new(40, 30, &fa);
            if (!fg || !fs) {
                CHECK(!"setup");
                break;
            }
            if (had) CHECK(astar_grid_landmarks(fg, 2) == ASTAR_OK);
            f.fail_at = f.allocs + n;
            astar_status st = astar_grid_landmarks(fg, 5);
            f.fail_at = 0;
            CHECK(st == ASTAR_OK || st == ASTAR_ENOMEM);
            failed += st == ASTAR_ENOMEM;
            built += st == ASTAR_OK;
            CHECK(astar_grid_landmark_count(fg) == (st == ASTAR_OK ? 5 : had ? 2 : 0));
            astar_query_init(&q);
            q.sx = 0, q.sy = 0, q.gx = 39, q.gy = 29;
            CHECK(astar_find(fs, fg, &q, &res) == ASTAR_OK);
            CHECK_NEAR(res.cost, corner);
            astar_search_free(fs);
            astar_grid_free(fg);
            CHECK(f.live == 0 && f.bytes == 0);
        }
    }
    CHECK(failed >= 10 && built >= 2); /* every allocation of a build was made to fail */
}

/* Jump point search: A*'s costs, legal paths, and a warm workspace allocates nothing. */
static void test_jps(void) {
    counting cnt = {0};
    astar_alloc a = {count_alloc, &cnt};
    enum { W = 96, H = 80 };
    astar_grid *g = astar_grid_new(W, H, ASTAR_DIAG_NO_CORNER_CUT, &a);
    astar_search *s = astar_search_new(W, H, &a);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (rnd() % 100 < 22 || (x == 40 && y > 5) || (y == 30 && x < 70)) astar_grid_set_cost(g, x, y, INFINITY);
    astar_grid_set_cost(g, 0, 0, 1.0);
    astar_query q;
    astar_query_init(&q);
    astar_result res, off;
    int found = 0, fewer = 0, wrong = 0;
    uint64_t seed = rng_state;
    for (int round = 0; round < 2; round++) {
        long before = cnt.allocs;
        rng_state = seed; /* the same queries: a path or open list longer than any before may grow */
        for (int i = 0; i < 300; i++) {
            q.sx = (int32_t)(rnd() % W), q.sy = (int32_t)(rnd() % H);
            q.gx = (int32_t)(rnd() % W), q.gy = (int32_t)(rnd() % H);
            q.diagonal = i % 2 ? ASTAR_DIAG_NEVER : ASTAR_DIAG_NO_CORNER_CUT;
            q.jps = ASTAR_JPS_OFF;
            astar_status st_off = astar_find(s, g, &q, &off);
            q.jps = ASTAR_JPS_AUTO;
            astar_status st = astar_find(s, g, &q, &res);
            if (st != st_off) wrong++;
            if (st != ASTAR_OK) continue;
            found++;
            if (res.expansions < off.expansions) fewer++;
            if (fabs(res.cost - off.cost) > 1e-9 * off.cost) wrong++;
            int32_t n;
            const int32_t *path = astar_search_path(s, &n);
            if (n != res.length || path[0] != q.sy * W + q.sx || path[n - 1] != q.gy * W + q.gx ||
                !path_legal(g, q.diagonal, path, n))
                wrong++;
        }
        if (round == 1) CHECK(cnt.allocs == before); /* warm: nothing, in either mode */
    }
    CHECK(wrong == 0);
    CHECK(found > 200 && fewer > found / 2);
    q.jps = (astar_jps)7;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_EINVAL);
    q.jps = (astar_jps)-1;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_EINVAL);
    astar_search_free(s);
    astar_grid_free(g);
    CHECK(cnt.live == 0);

    /* Past the 16-bit stamp's wrap: JPS finds its parents by stamp, so stale records must
     * not pass for this query's. */
    astar_grid *small = astar_grid_new(7, 5, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *ss = astar_search_new(7, 5, NULL);
    for (int y = 0; y < 4; y++) astar_grid_set_cost(small, 3, y, INFINITY);
    int bad = 0;
    for (long i = 0; i < 70000; i++) {
        astar_query k;
        astar_query_init(&k);
        k.sx = (int32_t)(i % 3), k.sy = 0, k.gx = 6, k.gy = (int32_t)(i % 5);
        if (astar_find(ss, small, &k, &res) != ASTAR_OK) bad++;
        k.jps = ASTAR_JPS_OFF;
        if (astar_find(ss, small, &k, &off) != ASTAR_OK || fabs(res.cost - off.cost) > 1e-9) bad++;
    }
    CHECK(bad == 0);
    astar_search_free(ss);
    astar_grid_free(small);
}

/* Path repair: costs of an old path's steps, a repair's rejoin, refusals, and every allocation
 * of a cold repair failing in turn (a clean ENOMEM, no leak, usable afterwards). */
static void test_repair(void) {
    counting cnt = {0};
    astar_alloc a = {count_alloc, &cnt};
    astar_grid *g = astar_grid_new(32, 8, ASTAR_DIAG_NO_CORNER_CUT, &a);
    astar_search *s = astar_search_new(32, 8, &a);
    astar_query q;
    astar_query_init(&q);
    q.sx = 0, q.sy = 4, q.gx = 31, q.gy = 4;
    astar_result res;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_OK && res.length == 32);
    int32_t n = 0, old[32];
    memcpy(old, astar_search_path(s, &n), sizeof old);
    double cost[32];
    CHECK(astar_path_costs(s, g, &q, old, n, 0, cost) == ASTAR_OK);
    for (int32_t i = 1; i < n; i++) CHECK(cost[i] == 1.0);
    astar_grid_set_cost(g, 16, 4, INFINITY);
    CHECK(astar_path_costs(s, g, &q, old, n, 3, cost) == ASTAR_OK);
    CHECK(cost[3] == 0.0 && cost[15] == 1.0 && cost[16] == INFINITY && cost[17] == 1.0);
    astar_repair_info how;
    CHECK(astar_repair(s, g, &q, old, n, 3, 0, &res, &how) == ASTAR_OK);
    int32_t len = 0;
    const int32_t *fixed = astar_search_path(s, &len);
    CHECK(how.rejoin > 16 && !how.replanned && len == res.length && fixed[0] == old[3] && fixed[len - 1] == old[31]);
    CHECK(fabs(res.cost - (28.0 + 2 * (sqrt(2.0) - 1))) < 1e-6);
    CHECK(astar_repair(s, g, &q, old, n, 3, 4, &res, &how) == ASTAR_OK && how.rejoin >= 17 && how.rejoin <= 20);
    /* A custom heuristic: the repair aims it at the end through the rejoin cells (its own
     * workspace flag, not a query field), the same exact cost; the flag stays with the repair:
     * on the same workspace after it, targets with a custom heuristic are refused again. */
    astar_query custom = q;
    custom.heuristic = ASTAR_H_CUSTOM, custom.heuristic_fn = zero_heuristic;
    CHECK(astar_repair(s, g, &custom, old, n, 3, 0, &res, &how) == ASTAR_OK && how.rejoin > 16);
    CHECK(fabs(res.cost - (28.0 + 2 * (sqrt(2.0) - 1))) < 1e-6);
    int32_t far_end = old[31];
    custom.targets = &far_end, custom.ntargets = 1;
    CHECK(astar_find(s, g, &custom, &res) == ASTAR_EINVAL);
    /* Refused: its own path, from outside, interests, partial. */
    const int32_t *own = astar_search_path(s, &len);
    CHECK(astar_repair(s, g, &q, own, len, 0, 0, &res, &how) == ASTAR_EINVAL);
    CHECK(astar_repair(s, g, &q, old, n, n, 0, &res, &how) == ASTAR_EINVAL);
    CHECK(astar_path_costs(s, g, &q, old, n, -1, cost) == ASTAR_EINVAL);
    astar_query bad = q;
    bad.partial = 1;
    CHECK(astar_repair(s, g, &bad, old, n, 0, 0, &res, &how) == ASTAR_EINVAL);
    /* A wall across: no rejoin cell is reached, and nor is the goal. */
    for (int y = 0; y < 8; y++) astar_grid_set_cost(g, 20, y, INFINITY);
    CHECK(astar_repair(s, g, &q, old, n, 3, 4, &res, &how) == ASTAR_UNREACHABLE && how.replanned);
    astar_search_free(s);
    astar_grid_free(g);
    CHECK(cnt.live == 0);

    for (long k = 1; k < 20; k++) {
        counting f = {0};
        astar_alloc fa = {count_alloc, &f};
        astar_grid *fg = astar_grid_new(32, 8, ASTAR_DIAG_ALWAYS, &fa);
        astar_search *fs = astar_search_new(32, 8, &fa);
        f.fail_at = f.allocs + k;
        if (fg && fs) {
            astar_grid_set_cost(fg, 10, 4, INFINITY);
            astar_status st = astar_repair(fs, fg, &q, old, n, 0, 0, &res, &how);
            CHECK(st == ASTAR_OK || st == ASTAR_ENOMEM);
            f.fail_at = 0;
            CHECK(astar_repair(fs, fg, &q, old, n, 0, 0, &res, &how) == ASTAR_OK);
        }
        astar_search_free(fs);
        astar_grid_free(fg);
        CHECK(f.live == 0);
    }
}

/* Graph interests: a detour through a node worth more than it costs is taken. */
static void test_graph_interests(void) {
    astar_graph *g = astar_graph_new(NULL);
    for (int i = 0; i < 3; i++) {
        int32_t id = -1;
        CHECK(astar_graph_add_node(g, i == 2 ? 5 : 10 * i, i == 2 ? 3 : 0, 0, &id) == ASTAR_OK && id == i);
    }
    CHECK(astar_graph_add_edge(g, 0, 1, 10) == ASTAR_OK);
    CHECK(astar_graph_add_edge(g, 0, 2, 6) == ASTAR_OK);
    CHECK(astar_graph_add_edge(g, 2, 1, 6) == ASTAR_OK);
    astar_graph_search *s = astar_graph_search_new(NULL);
    astar_graph_query q;
    astar_graph_query_init(&q);
    q.start = 0, q.goal = 1;
    int32_t at = 2;
    double value = 3;
    q.interests = &at, q.interest_values = &value, q.ninterests = 1;
    astar_result res;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_OK && res.interest == 0 && res.cost == 12 && res.score == 9);
    value = 1;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_OK && res.interest == -1 && res.cost == 10 && res.score == 10);
    at = 7;
    CHECK(astar_graph_find(s, g, &q, &res) == ASTAR_EINVAL);
    astar_graph_search_free(s);
    astar_graph_free(g);
}

/*
 * Interest values: (0, ASTAR_MAX_INTEREST] on grids (astar_find, a search job, astar_find_many)
 * and graphs; anything else is ASTAR_EINVAL. At the bound, behind walls, the answer is the one
 * without it: a pick-up worth 10 one row off a corridor of 19 steps (two diagonals for two
 * straight steps), its score 17 + 2 up(sqrt 2) - 10 to the bit.
 */
static void test_interest_bound(void) {
    astar_grid *g = astar_grid_new(20, 5, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    static const int wall[][2] = {{16, 2}, {17, 2}, {18, 2}, {16, 3}, {18, 3}, {16, 4}, {17, 4}, {18, 4}};
    for (size_t i = 0; i < sizeof wall / sizeof *wall; i++) astar_grid_set_cost(g, wall[i][0], wall[i][1], INFINITY);
    astar_search *s = astar_search_new(20, 5, NULL);
    astar_query q;
    astar_query_init(&q);
    q.sx = 0, q.sy = 0, q.gx = 19, q.gy = 0;
    int32_t at[2] = {1 * 20 + 9, 3 * 20 + 17};
    double values[2] = {10, ASTAR_MAX_INTEREST};
    q.interests = at, q.interest_values = values, q.ninterests = 2;
    const double up_sqrt2 = 1.4142135623842478; /* sqrt(2) rounded up to 2^-32 */
    astar_result res;
    CHECK(astar_find(s, g, &q, &res) == ASTAR_OK && res.interest == 0);
    CHECK(res.score == 17 + 2 * up_sqrt2 - 10 && res.cost == 17 + 2 * up_sqrt2);
    CHECK(astar_search_start(s, g, &q, &res) == ASTAR_RUNNING);
    while (astar_search_step(s, 5, &res) == ASTAR_RUNNING) {}
    CHECK(res.status == ASTAR_OK && res.score == 17 + 2 * up_sqrt2 - 10);
    astar_many *m = astar_many_new(20, 5, NULL);
    const int32_t ends[4] = {0, 0, 19, 0};
    CHECK(m && astar_find_many(m, g, &q, ends, 1, 2, &res) == ASTAR_OK && res.status == ASTAR_OK);
    CHECK(res.score == 17 + 2 * up_sqrt2 - 10);
    const double refused[] = {nextafter(ASTAR_MAX_INTEREST, INFINITY), 1e9, 1e17, 1e100, INFINITY, NAN, 0, -1};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        values[1] = refused[i];
        CHECK(astar_find(s, g, &q, &res) == ASTAR_EINVAL);
        CHECK(astar_search_start(s, g, &q, &res) == ASTAR_EINVAL);
        CHECK(astar_find_many(m, g, &q, ends, 1, 2, &res) == ASTAR_EINVAL && res.status == ASTAR_EINVAL);
    }
    astar_many_free(m);
    astar_search_free(s);
    astar_grid_free(g);

    astar_graph *gr = astar_graph_new(NULL);
    for (int i = 0; i < 3; i++) CHECK(astar_graph_add_node(gr, i, 0, 0, NULL) == ASTAR_OK);
    CHECK(astar_graph_add_edge(gr, 0, 1, 1) == ASTAR_OK);
    astar_graph_search *gs = astar_graph_search_new(NULL);
    astar_graph_query gq;
    astar_graph_query_init(&gq);
    gq.start = 0, gq.goal = 1;
    int32_t node[2] = {1, 2}; /* 2: no arc reaches it */
    double gv[2] = {5, ASTAR_MAX_INTEREST};
    gq.interests = node, gq.interest_values = gv, gq.ninterests = 2;
    CHECK(astar_graph_find(gs, gr, &gq, &res) == ASTAR_OK && res.interest == 0 && res.score == -4 && res.cost == 1);
    gv[1] = nextafter(ASTAR_MAX_INTEREST, INFINITY);
    CHECK(astar_graph_find(gs, gr, &gq, &res) == ASTAR_EINVAL);
    astar_graph_search_free(gs);
    astar_graph_free(gr);
}

/* astar_grid_dead_end: two rooms behind one-cell doors off a hall, a blocked cell, outside the grid; the
 * same cost with and without skipping (the Lua specs check it against the oracle at length). */
static void test_dead_ends(void) {
    static const char *rows[] = {"#######", "#..#..#", "#..#..#", "##.#.##", "#.....#", "#.....#"};
    astar_grid *g = astar_grid_new(7, 6, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 7; x++) astar_grid_set_cost(g, x, y, rows[y][x] == '#' ? INFINITY : 1.0);
    int32_t area, gate, other, gate2;
    CHECK(astar_grid_dead_end(g, 7, 0, &area, &gate) == ASTAR_EINVAL);
    CHECK(astar_grid_dead_end(g, 0, 0, &area, &gate) == ASTAR_OK && area == -1 && gate == -1);
    CHECK(astar_grid_dead_end(g, 1, 1, &area, &gate) == ASTAR_OK && area >= 0);
    CHECK(gate == 2 * 7 + 2); /* the room's cell by its door: the door, (2, 3), is an area too */
    CHECK(astar_grid_dead_end(g, 5, 2, &other, &gate2) == ASTAR_OK && other >= 0 && other != area);
    CHECK(gate2 == 2 * 7 + 4);
    CHECK(astar_grid_dead_end(g, 2, 3, &other, &gate2) == ASTAR_OK && other >= 0 && gate2 == 4 * 7 + 2);
    astar_search *s = astar_search_new(7, 6, NULL);
    astar_query q;
    astar_query_init(&q);
    CHECK(q.dead_ends == 1);
    q.sx = 1, q.sy = 1, q.gx = 5, q.gy = 1, q.jps = ASTAR_JPS_OFF;
    astar_result on, off;
    CHECK(astar_find(s, g, &q, &on) == ASTAR_OK);
    q.dead_ends = 0;
    CHECK(astar_find(s, g, &q, &off) == ASTAR_OK);
    CHECK(on.cost == off.cost && on.expansions <= off.expansions);
    /* The door shut: the room is an island now, and keeps its area (cut off all the more: a
     * table built follows the terrain without a rebuild, spec/c/test_dead_ends.c). */
    astar_grid_set_cost(g, 2, 3, INFINITY);
    CHECK(astar_grid_dead_end(g, 1, 1, &area, &gate) == ASTAR_OK && area >= 0 && gate == 2 * 7 + 2);
    astar_search_free(s);
    astar_grid_free(g);
}

/*
 * Terrain classes (astar_grid_set_class, astar_query.classes) against the oracle, which applies
 * them itself: find (the classed loop, in quanta on terrain of one cost, or the general loop
 * with a callback), the same in slices, and a distance field from the start.
 */
static void test_classes(void) {
    static world w;
    static double dist[MAXH][MAXW];
    int found = 0, walled = 0, exact_worlds = 0, followed = 0;
    for (int iter = 0; iter < 400; iter++) {
        memset(&w, 0, sizeof w);
        w.w = 2 + (int)(rnd() % (MAXW - 1));
        w.h = 2 + (int)(rnd() % (MAXH - 1));
        w.diag = (astar_diagonal)(rnd() % 4);
        w.use_classes = 1;
        w.use_node_cost = rnd() % 5 == 0; /* the general loop */
        bool uniform = rnd() % 2 == 0;    /* terrain of one cost: the classed loop in quanta */
        exact_worlds += uniform;
        double base = uniform ? 0.5 + (double)(rnd() % 6) / 2 : 0.0;
        astar_grid *g = astar_grid_new(w.w, w.h, w.diag, NULL);
        astar_search *s = astar_search_new(w.w, w.h, NULL);
        astar_field *f = astar_field_new(w.w, w.h, NULL);
        CHECK(g && s && f);
        for (int i = 0; i < 256; i++) w.factor[i] = 1.0;
        for (int c = 0; c < 4; c++) {
            double r = rnd01();
            w.factor[c] = r < 0.2 ? INFINITY : r < 0.3 ? 1.0 : r < 0.6 ? 0.1 + rnd01() * 0.8 : 1.0 + rnd01() * 4;
        }
        for (int y = 0; y < w.h; y++)
            for (int x = 0; x < w.w; x++) {
                double c = rnd01() < 0.2 ? INFINITY : uniform ? base : 0.5 + rnd01() * 3.5;
                w.cost[y][x] = c;
                w.cls[y][x] = (unsigned char)(rnd() % 4);
                w.node_extra[y][x] = rnd01() * 2;
                CHECK(astar_grid_set_cost(g, x, y, c) == ASTAR_OK);
                CHECK(astar_grid_set_class(g, x, y, w.cls[y][x]) == ASTAR_OK);
                CHECK(astar_grid_get_class(g, x, y) == w.cls[y][x]);
            }
        astar_query q;
        astar_query_init(&q);
        q.classes = w.factor;
        if (w.use_node_cost) q.node_cost = cb_node, q.node_cost_ud = &w;
        q.sx = (int32_t)(rnd() % (uint32_t)w.w), q.sy = (int32_t)(rnd() % (uint32_t)w.h);
        q.gx = (int32_t)(rnd() % (uint32_t)w.w), q.gy = (int32_t)(rnd() % (uint32_t)w.h);
        astar_result res, sliced;
        astar_status st = astar_find(s, g, &q, &res);
        double want = oracle_cost(&w, q.sx, q.sy, q.gx, q.gy);
        if (want == INFINITY) {
            CHECK(st == ASTAR_UNREACHABLE);
            walled += w.cost[q.gy][q.gx] != INFINITY && w.factor[w.cls[q.gy][q.gx]] == INFINITY;
        } else {
            CHECK(st == ASTAR_OK);
            if (st == ASTAR_OK) CHECK_NEAR(res.cost, want);
            found++;
        }
        astar_status ss = astar_search_start(s, g, &q, &sliced);
        while (ss == ASTAR_RUNNING) ss = astar_search_step(s, 1 + rnd() % 5, &sliced);
        CHECK(ss == st);
        if (st == ASTAR_OK) CHECK(sliced.cost == res.cost && sliced.expansions == res.expansions);
        int32_t at = q.sy * w.w + q.sx;
        astar_query fq;
        astar_query_init(&fq);
        fq.classes = w.factor;
        CHECK(astar_field_build(f, s, g, &fq, &at, 1, ASTAR_FIELD_FROM, &res) == ASTAR_OK);
        w.use_node_cost = 0;
        oracle_dists(&w, q.sx, q.sy, dist);
        for (int y = 0; y < w.h; y++)
            for (int x = 0; x < w.w; x++) {
                double d = astar_field_distance(f, x, y);
                if (dist[y][x] == INFINITY) CHECK(d == INFINITY);
                else CHECK_NEAR(d, dist[y][x]);
            }
        if (iter % 8 == 0) { /* toward the goal: each cell's cost there (a walled goal is none) */
            int32_t goal = q.gy * w.w + q.gx;
            CHECK(astar_field_build(f, s, g, &fq, &goal, 1, ASTAR_FIELD_TO, &res) == ASTAR_OK);
            for (int y = 0; y < w.h; y++)
                for (int x = 0; x < w.w; x++) {
                    double d = astar_field_distance(f, x, y), to = oracle_cost(&w, x, y, q.gx, q.gy);
                    if (to == INFINITY) CHECK(d == INFINITY);
                    else CHECK_NEAR(d, to);
                }
        }
        /* A job under class writes between its steps: it follows them (repairs or reads them
         * later), and answers for the classes as they end. */
        w.use_node_cost = 0;
        q.node_cost = NULL;
        st = astar_search_start(s, g, &q, &sliced);
        for (int k = 0; k < 6 && st == ASTAR_RUNNING; k++) {
            st = astar_search_step(s, 2, &sliced);
            int x = (int)(rnd() % (uint32_t)w.w), y = (int)(rnd() % (uint32_t)w.h);
            if (st != ASTAR_RUNNING) break;
            w.cls[y][x] = (unsigned char)(rnd() % 4);
            CHECK(astar_grid_set_class(g, x, y, w.cls[y][x]) == ASTAR_OK);
        }
        while (st == ASTAR_RUNNING) st = astar_search_step(s, 3, &sliced);
        want = oracle_cost(&w, q.sx, q.sy, q.gx, q.gy);
        CHECK(st == (want == INFINITY ? ASTAR_UNREACHABLE : ASTAR_OK));
        if (st == ASTAR_OK && want != INFINITY) CHECK_NEAR(sliced.cost, want);
        followed += sliced.repairs > 0 && sliced.restarts == 0;
        astar_field_free(f);
        astar_search_free(s);
        astar_grid_free(g);
    }
    CHECK(found > 150 && walled > 10 && exact_worlds > 150 && followed > 20);
}

int main(void) {
    test_classes();
    test_dead_ends();
    test_grid_basics();
    test_claims();
    test_random_worlds();
    test_allocations();
    test_memory_per_cell();
    test_interrupted_search();
    test_bad_queries();
    test_resumable_restart();
    test_stamps_wrap();
    test_uniform_terrain();
    test_jps();
    test_graph_basics();
    test_graph_random();
    test_graph_fields();
    test_graph_allocations();
    test_landmarks();
    test_repair();
    test_graph_interests();
    test_interest_bound();
    return check_summary();
}
