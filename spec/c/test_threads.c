/*
 * astar_find_many against astar_find: many threads on one shared grid, layers,
 * claims and mask must give, query for query, what a sequential astar_find on
 * a workspace of its own gives (status, cost, expansions, path). Also the
 * errors, a warm astar_many allocating nothing, and every allocation failing
 * in turn. Built under ThreadSanitizer in CI (ASTAR_TSAN): it must be clean.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "threads.h" /* the core's own: POSIX or Win32 */
#include "check.h"

static int32_t rnd_below(int32_t n) { return (int32_t)(rnd() % (uint32_t)n); }

/* Terrain: open ground, swamps and walls. */
static void random_terrain(astar_grid *g, int walls_percent) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            int r = rnd_below(100);
            astar_grid_set_cost(g, x, y, r < walls_percent ? INFINITY : r < walls_percent + 15 ? 3.0 : 1.0);
        }
}

static void random_endpoints(int32_t *e, int32_t n, int32_t w, int32_t h) {
    for (int32_t i = 0; i < n; i++) {
        e[4 * i] = rnd_below(w), e[4 * i + 1] = rnd_below(h);
        e[4 * i + 2] = rnd_below(w), e[4 * i + 3] = rnd_below(h);
    }
}

static bool same_result(const astar_result *a, const astar_result *b) {
    return a->status == b->status && a->reason == b->reason && a->expansions == b->expansions &&
           a->length == b->length && a->target == b->target &&
           (a->cost == b->cost || (isnan(a->cost) && isnan(b->cost)));
}

/* Sequential answers, then find_many with each thread count; the same, path by path. */
static int compare_with_find(astar_many *m, astar_grid *g, const astar_query *base,
                             const int32_t *e, int32_t n) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    astar_search *s = astar_search_new(w, h, NULL);
    astar_result *want = calloc((size_t)n, sizeof *want), *got = calloc((size_t)n, sizeof *got);
    int32_t **paths = calloc((size_t)n, sizeof *paths);
    /* find_many brings the labels up to date first; so does the first of these finds. */
    astar_result dummy;
    int32_t none[4] = {0, 0, 0, 0};
    CHECK(astar_find_many(m, g, base, none, 1, 1, &dummy) == ASTAR_OK || dummy.status == ASTAR_EINVAL);
    for (int32_t i = 0; i < n; i++) {
        astar_query q = *base;
        q.sx = e[4 * i], q.sy = e[4 * i + 1], q.gx = e[4 * i + 2], q.gy = e[4 * i + 3];
        astar_find(s, g, &q, &want[i]);
        int32_t len;
        const int32_t *p = astar_search_path(s, &len);
        if (want[i].status == ASTAR_OK || want[i].status == ASTAR_PARTIAL) {
            paths[i] = malloc((size_t)len * sizeof **paths + 1);
            memcpy(paths[i], p, (size_t)len * sizeof *p);
        }
    }
    int bad = 0;
    static const int THREADS[] = {1, 2, 4, 8, 0};
    for (size_t t = 0; t < sizeof THREADS / sizeof *THREADS; t++) {
        memset(got, 0xAB, (size_t)n * sizeof *got);
        astar_status st = astar_find_many(m, g, base, e, n, THREADS[t], got);
        CHECK(st == ASTAR_OK);
        for (int32_t i = 0; i < n; i++) {
            int32_t len;
            const int32_t *p = astar_many_path(m, i, &len);
            bool ok = same_result(&want[i], &got[i]);
            if (paths[i]) ok = ok && len == want[i].length && p && memcmp(p, paths[i], (size_t)len * sizeof *p) == 0;
            else ok = ok && len == 0 && !p;
            if (!ok && bad++ < 5)
                fprintf(stderr, "threads %d, query %d (%d,%d)->(%d,%d): %s cost %g exp %llu, want %s cost %g exp %llu\n",
                        THREADS[t], (int)i, (int)e[4 * i], (int)e[4 * i + 1], (int)e[4 * i + 2], (int)e[4 * i + 3],
                        astar_status_name(got[i].status), got[i].cost, (unsigned long long)got[i].expansions,
                        astar_status_name(want[i].status), want[i].cost, (unsigned long long)want[i].expansions);
        }
    }
    CHECK(bad == 0);
    for (int32_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
    free(want);
    free(got);
    astar_search_free(s);
    return bad;
}

static int half_cost(void *ud, int32_t x, int32_t y, double *extra) {
    (void)ud;
    *extra = ((x * 31 + y * 17) % 5) * 0.5;
    return ((x * 7 + y * 11) % 23) == 0 ? ASTAR_CB_BLOCK : ASTAR_CB_PASS;
}

static double chebyshev(void *ud, int32_t x, int32_t y, int32_t gx, int32_t gy) {
    (void)ud;
    int32_t dx = abs(gx - x), dy = abs(gy - y);
    return dx > dy ? dx : dy;
}

/* Shared grid, layers, claims and mask; every kind of query the engine has a loop for. */
static void test_against_find(void) {
    enum { W = 96, H = 80, N = 160 };
    astar_many *m = astar_many_new(W, H, NULL);
    astar_grid *g = astar_grid_new(W, H, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    random_terrain(g, 22);
    astar_layer *danger = astar_layer_new(W, H, 0.0, NULL);
    astar_layer *safe = astar_layer_new(W, H, 0.0, NULL);
    for (int k = 0; k < 30; k++) {
        astar_layer_stamp(danger, rnd_below(W), rnd_below(H), 6, 4, ASTAR_FALLOFF_LINEAR);
        astar_layer_stamp(safe, rnd_below(W), rnd_below(H), 4, -2, ASTAR_FALLOFF_QUADRATIC);
    }
    astar_layer_ref layers[2] = {{danger, 1.0}, {safe, 0.5}};
    astar_claims *claims = astar_claims_new(W, H, NULL);
    astar_search *s = astar_search_new(W, H, NULL);
    for (int u = 0; u < 12; u++) { /* units walk paths found on this terrain */
        astar_query q;
        astar_query_init(&q);
        q.sx = rnd_below(W), q.sy = rnd_below(H), q.gx = rnd_below(W), q.gy = rnd_below(H);
        astar_result r;
        int32_t unit = astar_claims_unit_new(claims);
        if (astar_find(s, g, &q, &r) == ASTAR_OK) {
            int32_t len;
            const int32_t *p = astar_search_path(s, &len);
            astar_claims_set(claims, unit, p, len);
            if (len > 3) astar_claims_advance(claims, unit, 2);
        }
    }
    astar_mask *seen = astar_mask_new(W, H, NULL);
    for (int k = 0; k < 20; k++) astar_mask_reveal(seen, rnd_below(W), rnd_below(H), 9);
    int32_t *e = malloc(N * 4 * sizeof *e);
    random_endpoints(e, N, W, H);

    for (int variant = 0; variant < 12; variant++) {
        astar_query q;
        astar_query_init(&q);
        switch (variant) {
        case 0: break;                                  /* plain */
        case 1: q.layers = layers, q.nlayers = 2; break; /* layered */
        case 2: q.claims = claims, q.unit = 3; break;
        case 3: q.layers = layers, q.nlayers = 1, q.claims = claims, q.claim_radius = 20; break;
        case 4: q.known = seen; break;
        case 5: q.noise = 2.5, q.seed = 77, q.diagonal = ASTAR_DIAG_ALWAYS; break;
        case 6: q.turn_penalty = 0.7, q.diagonal = ASTAR_DIAG_NEVER; break;
        case 7: q.claims = claims, q.claim_window = 3, q.unit = 1; break;
        case 8: q.partial = 1, q.max_expansions = 150; break;
        case 9: q.max_cost = 40, q.weight = 1.5; break;
        case 10: q.node_cost = half_cost, q.heuristic = ASTAR_H_CUSTOM, q.heuristic_fn = chebyshev; break;
        case 11: q.diagonal = ASTAR_DIAG_ONE_WALKABLE, q.heuristic = ASTAR_H_EUCLIDEAN; break;
        }
        if (compare_with_find(m, g, &q, e, N)) fprintf(stderr, "  (variant %d)\n", variant);
    }

    /* Cells blocked after the labels were built leave them over-joined: find_many rebuilds
     * them before its workers read them (a worker must not). */
    for (int k = 0; k < 200; k++) astar_grid_set_cost(g, rnd_below(W), rnd_below(H), INFINITY);
    astar_query q;
    astar_query_init(&q);
    if (compare_with_find(m, g, &q, e, N)) fprintf(stderr, "  (after blocking)\n");

    /* Hexes. */
    astar_grid *hex = astar_grid_new(W, H, ASTAR_DIAG_HEX, NULL);
    random_terrain(hex, 25);
    astar_query_init(&q);
    if (compare_with_find(m, hex, &q, e, N)) fprintf(stderr, "  (hex)\n");
    q.layers = layers, q.nlayers = 2, q.turn_penalty = 0.3;
    if (compare_with_find(m, hex, &q, e, N)) fprintf(stderr, "  (hex, layers, turns)\n");

    astar_grid_free(hex);
    free(e);
    astar_mask_free(seen);
    astar_search_free(s);
    astar_claims_free(claims);
    astar_layer_free(safe);
    astar_layer_free(danger);
    astar_grid_free(g);
    astar_many_free(m);
}

/* Hammering: many threads, many calls, one astar_many reused; then one many per thread. */
typedef struct hammer_arg {
    astar_grid *g;
    const astar_layer_ref *layers;
    const astar_claims *claims;
    const int32_t *e;
    int32_t n;
    const astar_result *want;
    int bad;
} hammer_arg;

static void hammer(void *p) {
    hammer_arg *a = p;
    astar_many *m = astar_many_new(astar_grid_width(a->g), astar_grid_height(a->g), NULL);
    astar_result *got = calloc((size_t)a->n, sizeof *got);
    astar_query q;
    astar_query_init(&q);
    q.layers = a->layers, q.nlayers = 1, q.claims = a->claims;
    for (int round = 0; round < 3; round++) {
        if (astar_find_many(m, a->g, &q, a->e, a->n, 3, got) != ASTAR_OK) a->bad++;
        for (int32_t i = 0; i < a->n; i++) a->bad += !same_result(&got[i], &a->want[i]);
    }
    free(got);
    astar_many_free(m);
}

static void test_hammer(void) {
    enum { W = 128, H = 128, N = 400 };
    astar_grid *g = astar_grid_new(W, H, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    random_terrain(g, 20);
    astar_layer *l = astar_layer_new(W, H, 0.0, NULL);
    for (int k = 0; k < 40; k++) astar_layer_stamp(l, rnd_below(W), rnd_below(H), 8, 3, ASTAR_FALLOFF_LINEAR);
    astar_layer_ref layers[1] = {{l, 2.0}};
    astar_claims *c = astar_claims_new(W, H, NULL);
    int32_t path[40];
    for (int u = 0; u < 6; u++) {
        for (int i = 0; i < 40; i++) path[i] = (10 + u * 15) * W + 20 + i;
        astar_claims_set(c, astar_claims_unit_new(c), path, 40);
    }
    int32_t *e = malloc(N * 4 * sizeof *e);
    random_endpoints(e, N, W, H);
    astar_result *want = calloc(N, sizeof *want);
    astar_search *s = astar_search_new(W, H, NULL);
    astar_query q;
    astar_query_init(&q);
    q.layers = layers, q.nlayers = 1, q.claims = c;
    astar_many *m = astar_many_new(W, H, NULL);
    CHECK(astar_find_many(m, g, &q, e, 1, 1, want) == ASTAR_OK); /* labels built */
    for (int32_t i = 0; i < N; i++) {
        astar_query qi = q;
        qi.sx = e[4 * i], qi.sy = e[4 * i + 1], qi.gx = e[4 * i + 2], qi.gy = e[4 * i + 3];
        astar_find(s, g, &qi, &want[i]);
    }
    astar_result *got = calloc(N, sizeof *got);
    int bad = 0;
    for (int round = 0; round < 4; round++) {
        CHECK(astar_find_many(m, g, &q, e, N, 16, got) == ASTAR_OK);
        for (int32_t i = 0; i < N; i++) bad += !same_result(&got[i], &want[i]);
    }
    CHECK(bad == 0);
    /* Four callers at once, each with its own astar_many and three threads: 12 readers. */
    astar_thread tid[4];
    hammer_arg args[4];
    for (int k = 0; k < 4; k++) {
        args[k] = (hammer_arg){g, layers, c, e, N, want, 0};
        CHECK(astar_thread_start(&tid[k], hammer, &args[k]));
    }
    for (int k = 0; k < 4; k++) {
        astar_thread_join(&tid[k]);
        CHECK(args[k].bad == 0);
    }
    free(got);
    astar_many_free(m);
    astar_search_free(s);
    free(want);
    free(e);
    astar_claims_free(c);
    astar_layer_free(l);
    astar_grid_free(g);
}

static void test_errors(void) {
    astar_grid *g = astar_grid_new(10, 10, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_many *m = astar_many_new(10, 10, NULL);
    CHECK(astar_many_new(0, 10, NULL) == NULL);
    astar_query q;
    astar_query_init(&q);
    int32_t e[8] = {0, 0, 9, 9, 0, 0, 10, 3};
    astar_result r[2];
    CHECK(astar_find_many(m, g, &q, e, 1, ASTAR_MANY_MAX_THREADS + 1, r) == ASTAR_EINVAL);
    CHECK(astar_find_many(m, g, &q, e, 1, -1, r) == ASTAR_EINVAL);
    CHECK(astar_find_many(m, g, &q, e, -1, 1, r) == ASTAR_EINVAL);
    astar_grid *other = astar_grid_new(10, 11, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    CHECK(astar_find_many(m, other, &q, e, 1, 1, r) == ASTAR_EINVAL);
    CHECK(astar_find_many(m, g, &q, e, 0, 4, r) == ASTAR_OK);
    CHECK(astar_many_path(m, 0, NULL) == NULL);
    /* A bad query is its own result's error; the others are answered. */
    CHECK(astar_find_many(m, g, &q, e, 2, 2, r) == ASTAR_EINVAL);
    CHECK(r[0].status == ASTAR_OK && r[0].length == 10);
    CHECK(r[1].status == ASTAR_EINVAL);
    int32_t len = -1;
    CHECK(astar_many_path(m, 0, &len) != NULL && len == 10);
    CHECK(astar_many_path(m, 1, &len) == NULL && len == 0);
    CHECK(astar_many_path(m, 2, &len) == NULL);
    CHECK(astar_many_default_threads() >= 1 && astar_many_default_threads() <= ASTAR_MANY_MAX_THREADS);
    astar_grid_free(other);
    astar_many_free(m);
    astar_grid_free(g);
}

static void test_allocations(void) {
    enum { W = 64, H = 48, N = 60 };
    astar_grid *g = astar_grid_new(W, H, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    random_terrain(g, 20);
    astar_claims *c = astar_claims_new(W, H, NULL);
    int32_t path[3] = {5, 6, 7};
    astar_claims_set(c, astar_claims_unit_new(c), path, 3);
    int32_t e[N * 4];
    random_endpoints(e, N, W, H);
    astar_query q;
    astar_query_init(&q);
    q.claims = c;
    astar_result want[N], got[N];
    astar_many *ref = astar_many_new(W, H, NULL);
    CHECK(astar_find_many(ref, g, &q, e, N, 1, want) == ASTAR_OK);

    /* Warm: the second call allocates nothing. (With threads, which worker takes which
     * query changes from call to call, so a workspace may still grow once in a while.) */
    /* sticky: from the n-th allocation on, every later one fails too; find_many serialises
     * its calls */
    counting cnt = {.sticky = true};
    astar_alloc a = {count_alloc, &cnt};
    astar_many *m = astar_many_new(W, H, &a);
    CHECK(astar_find_many(m, g, &q, e, N, 1, got) == ASTAR_OK);
    long before = cnt.allocs;
    for (int round = 0; round < 3; round++) CHECK(astar_find_many(m, g, &q, e, N, 1, got) == ASTAR_OK);
    CHECK(cnt.allocs == before);
    CHECK(astar_find_many(m, g, &q, e, N, 4, got) == ASTAR_OK);
    astar_many_free(m);
    CHECK(cnt.bytes == 0);

    /* Every allocation failing in turn: ENOMEM or the right answers, and no leak. */
    int failed_runs = 0;
    for (long fail = 1;; fail++) {
        cnt = (counting){.sticky = true};
        m = astar_many_new(W, H, &a);
        if (!m) continue; /* the object itself (no failure configured yet: cannot happen) */
        cnt.fail_at = fail;
        astar_status st = astar_find_many(m, g, &q, e, N, 3, got);
        bool ok = true;
        if (st == ASTAR_OK) {
            for (int32_t i = 0; i < N; i++) ok = ok && same_result(&got[i], &want[i]);
        } else {
            ok = st == ASTAR_ENOMEM; /* the rest may not have run at all */
            failed_runs++;
        }
        CHECK(ok);
        /* The failure gone, the same object answers right. */
        cnt.fail_at = 0;
        CHECK(astar_find_many(m, g, &q, e, N, 3, got) == ASTAR_OK);
        for (int32_t i = 0; i < N; i++) CHECK(same_result(&got[i], &want[i]));
        astar_many_free(m);
        CHECK(cnt.bytes == 0);
        if (st == ASTAR_OK) break;
        if (fail > 10000) {
            CHECK(!"allocation failures never end");
            break;
        }
    }
    CHECK(failed_runs > 0);
    printf("allocation failures: %d runs, each ENOMEM or right\n", failed_runs);
    astar_many_free(ref);
    astar_claims_free(c);
    astar_grid_free(g);
}

/* A bigger unit (size 2) under fog and with partial, classes with and without size (on
 * terrain of one cost: the classed loop in quanta, or jump point search where the classes weigh
 * alike): the first call on a fresh grid is find_many on threads, so what those build lazily
 * (the clearance table, islands, JPS+ tables) must be made before them (astar_find_prepare),
 * not by each (a race ThreadSanitizer sees); the answers are find's. */
static void test_size_first(void) {
    enum { W = 64, H = 48, N = 64 };
    double classes[256];
    for (int i = 0; i < 256; i++) classes[i] = i == 1 ? INFINITY : 1.0 + (i & 3);
    double alike[256];
    for (int i = 0; i < 256; i++) alike[i] = 2.0;
    for (int variant = 0; variant < 5; variant++) {
        astar_grid *g = astar_grid_new(W, H, ASTAR_DIAG_NO_CORNER_CUT, NULL);
        if (variant < 3) random_terrain(g, 12);
        for (int k = 0; variant >= 2 && k < 300; k++) /* walls of one cost, and classes */
            astar_grid_set_cost(g, rnd_below(W), rnd_below(H), INFINITY);
        for (int k = 0; variant >= 2 && k < 400; k++)
            CHECK(astar_grid_set_class(g, rnd_below(W), rnd_below(H), variant == 4 ? 2 : rnd_below(5)) == ASTAR_OK);
        astar_mask *seen = astar_mask_new(W, H, NULL);
        for (int k = 0; k < 12; k++) astar_mask_reveal(seen, rnd_below(W), rnd_below(H), 9);
        int32_t *e = malloc(N * 4 * sizeof *e);
        random_endpoints(e, N, W, H);
        astar_query q;
        astar_query_init(&q);
        q.size = variant == 3 || variant == 4 ? 1 : 2;
        if (variant == 0) q.known = seen;
        else if (variant == 1) q.partial = 1;
        else q.classes = variant == 4 ? alike : classes;
        astar_many *m = astar_many_new(W, H, NULL);
        astar_result *got = calloc(N, sizeof *got);
        CHECK(astar_find_many(m, g, &q, e, N, 4, got) == ASTAR_OK);
        astar_search *s = astar_search_new(W, H, NULL);
        for (int32_t i = 0; i < N; i++) {
            astar_query one = q;
            one.sx = e[4 * i], one.sy = e[4 * i + 1], one.gx = e[4 * i + 2], one.gy = e[4 * i + 3];
            astar_result want;
            astar_find(s, g, &one, &want);
            CHECK(same_result(&want, &got[i]));
        }
        astar_search_free(s);
        free(got);
        astar_many_free(m);
        free(e);
        astar_mask_free(seen);
        astar_grid_free(g);
    }
}

int main(void) {
    test_errors();
    test_size_first();
    test_against_find();
    test_hammer();
    test_allocations();
    return check_summary();
}
