/*
 * The same answer from every engine and every build (issue 17, item 2).
 *
 *   test_same_answer            checks that A*, jump point search (JPS+ and
 *                               online), a search run in slices, find_many's
 *                               threads and a landmark-guided search give every
 *                               query the same status and the same cost to the
 *                               last bit; exit 1 otherwise.
 *   test_same_answer --digest   prints one line: a hash of the status, cost bits
 *                               and path of thousands of queries with every kind
 *                               of cost. Two builds (compilers, -O levels,
 *                               -ffp-contract=fast) must print the same line:
 *                               spec/c/same_builds.sh compares them.
 *
 * Worlds and queries come from a fixed pseudo-random sequence, so every build
 * asks the same questions.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"

static uint64_t rng_state;

static uint64_t next_u64(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static int32_t below(int32_t n) { return (int32_t)(next_u64() % (uint64_t)n); }

/* A number with a short decimal expansion, like those a game's data holds: k / 10. */
static double tenths(int32_t lo, int32_t hi) { return (double)(lo + below(hi - lo + 1)) / 10.0; }

/* A stamp at a random place: the draws in order (C leaves the order of a call's arguments
 * to the compiler, and gcc and clang differ). */
static void random_stamp(astar_layer *l, int32_t w, int32_t h, double radius, double strength,
                         astar_falloff falloff) {
    int32_t x = below(w);
    int32_t y = below(h);
    astar_layer_stamp(l, x, y, radius, strength, falloff);
}

static uint64_t digest = 0xCBF29CE484222325u; /* FNV-1a 64 */

static void mix(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) digest = (digest ^ b[i]) * 0x100000001B3u;
}

static int failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            if (failures <= 20) {                                                              \
                fprintf(stderr, "test_same_answer: " __VA_ARGS__);                             \
                fputc('\n', stderr);                                                           \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A grid with open ground, walls and (unless uniform) terrain costs in tenths. */
static astar_grid *make_grid(int32_t w, int32_t h, astar_diagonal diag, bool uniform, int walls) {
    astar_grid *g = astar_grid_new(w, h, diag, NULL);
    double base = uniform ? tenths(5, 30) : 1.0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            double c = below(100) < walls ? INFINITY : uniform ? base : tenths(5, 50);
            astar_grid_set_cost(g, x, y, c);
        }
    return g;
}

static void random_open_cell(const astar_grid *g, int32_t w, int32_t h, int32_t *x, int32_t *y) {
    for (int tries = 0; tries < 1000; tries++) {
        *x = below(w), *y = below(h);
        if (astar_grid_get_cost(g, *x, *y) != INFINITY) return;
    }
}

static void record(astar_status st, const astar_result *r, const int32_t *path, int32_t len) {
    int32_t s = (int32_t)st;
    mix(&s, sizeof s);
    if (st == ASTAR_OK || st == ASTAR_PARTIAL) {
        mix(&r->cost, sizeof r->cost);
        mix(&len, sizeof len);
        mix(path, (size_t)len * sizeof *path);
    }
}

/* ---------------------------------------------------------------- engines */

typedef struct answer {
    astar_status status;
    double cost;
} answer;

static answer by_find(astar_search *s, astar_grid *g, const astar_query *q) {
    astar_result r;
    astar_status st = astar_find(s, g, q, &r);
    return (answer){st, r.cost};
}

static answer by_slices(astar_search *s, astar_grid *g, const astar_query *q, uint64_t slice) {
    astar_result r;
    astar_status st = astar_search_start(s, g, q, &r);
    while (st == ASTAR_RUNNING) st = astar_search_step(s, slice, &r);
    return (answer){st, r.cost};
}

static void compare(const char *what, const char *engine, answer a, answer b, int query) {
    bool costs = a.status != ASTAR_OK || same_bits(a.cost, b.cost);
    CHECK(a.status == b.status && costs, "%s, query %d: A* %s %.17g, %s %s %.17g", what, query,
          astar_status_name(a.status), a.cost, engine, astar_status_name(b.status), b.cost);
}

/* Every engine that can answer q on g (and on lm, the same grid with landmarks). */
static void engines_agree(const char *what, astar_search *s, astar_many *many, astar_grid *g,
                          astar_grid *lm, astar_query q, int query) {
    q.jps = ASTAR_JPS_OFF;
    answer astar = by_find(s, g, &q);
    q.jps = ASTAR_JPS_ONLINE;
    compare(what, "online jump point search", astar, by_find(s, g, &q), query);
    q.jps = ASTAR_JPS_AUTO;
    compare(what, "jump point search (JPS+)", astar, by_find(s, g, &q), query);
    compare(what, "slices of 7", astar, by_slices(s, g, &q, 7), query);
    compare(what, "landmarks", astar, by_find(s, lm, &q), query);
    int32_t ends[4] = {q.sx, q.sy, q.gx, q.gy};
    astar_result r[1];
    astar_find_many(many, g, &q, ends, 1, 2, r);
    compare(what, "find_many", astar, (answer){r[0].status, r[0].cost}, query);
}

static astar_grid *copy_with_landmarks(const astar_grid *g, int32_t w, int32_t h) {
    astar_grid *c = astar_grid_new(w, h, astar_grid_diagonal(g), NULL);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) astar_grid_set_cost(c, x, y, astar_grid_get_cost(g, x, y));
    astar_grid_landmarks(c, 4);
    return c;
}

static void check_engines(void) {
    const astar_diagonal modes[2] = {ASTAR_DIAG_NO_CORNER_CUT, ASTAR_DIAG_NEVER};
    for (int world = 0; world < 24; world++) {
        int32_t w = 20 + below(40), h = 20 + below(40);
        bool uniform = world % 2 == 0;
        astar_grid *g = make_grid(w, h, modes[world / 2 % 2], uniform, 5 + below(30));
        astar_grid *lm = copy_with_landmarks(g, w, h);
        astar_search *s = astar_search_new(w, h, NULL);
        astar_many *many = astar_many_new(w, h, NULL);
        astar_layer *danger = astar_layer_new(w, h, 0.0, NULL);
        for (int i = 0; i < 20; i++) random_stamp(danger, w, h, 4.0, tenths(1, 30), ASTAR_FALLOFF_LINEAR);
        astar_layer_ref ref = {danger, 0.7};
        for (int k = 0; k < 60; k++) {
            astar_query q;
            astar_query_init(&q);
            random_open_cell(g, w, h, &q.sx, &q.sy);
            random_open_cell(g, w, h, &q.gx, &q.gy);
            engines_agree(uniform ? "uniform terrain" : "terrain", s, many, g, lm, q, k);
            q.layers = &ref;
            q.nlayers = 1;
            engines_agree("influence", s, many, g, lm, q, k);
        }
        astar_layer_free(danger);
        astar_many_free(many);
        astar_search_free(s);
        astar_grid_free(lm);
        astar_grid_free(g);
    }
}

/* ------------------------------------------------------------------ digest */

static void digest_grids(void) {
    const astar_diagonal modes[4] = {ASTAR_DIAG_NO_CORNER_CUT, ASTAR_DIAG_ALWAYS,
                                      ASTAR_DIAG_NEVER, ASTAR_DIAG_ONE_WALKABLE};
    for (int world = 0; world < 40; world++) {
        int32_t w = 16 + below(48), h = 16 + below(48);
        astar_grid *g = make_grid(w, h, modes[world % 4], world % 3 == 0, 5 + below(30));
        astar_search *s = astar_search_new(w, h, NULL);
        astar_layer *danger = astar_layer_new(w, h, 0.0, NULL);
        astar_layer *threat = astar_layer_new(w, h, 0.0, NULL);
        for (int i = 0; i < 12; i++) {
            double radius = 3.0 + below(5);
            random_stamp(danger, w, h, radius, tenths(1, 40), ASTAR_FALLOFF_LINEAR);
            radius = 2.0 + below(5);
            random_stamp(threat, w, h, radius, tenths(1, 20), ASTAR_FALLOFF_QUADRATIC);
        }
        /* The layers as a game updates them: their own arithmetic is under test too. */
        astar_layer_spread(danger, 0.3, 0.6, g);
        astar_layer_add_layer(threat, danger, 0.25);
        double danger_weight = tenths(1, 20);
        double threat_weight = tenths(1, 20);
        astar_layer_ref refs[2] = {{danger, danger_weight}, {threat, threat_weight}};
        astar_claims *claims = astar_claims_new(w, h, NULL);
        for (int32_t unit = 0; unit < 6; unit++) {
            int32_t cells[8];
            for (int i = 0; i < 8; i++) {
                int32_t y = below(h);
                cells[i] = y * w + below(w);
            }
            astar_claims_set(claims, unit, cells, 8);
        }
        for (int k = 0; k < 80; k++) {
            astar_query q;
            astar_query_init(&q);
            random_open_cell(g, w, h, &q.sx, &q.sy);
            random_open_cell(g, w, h, &q.gx, &q.gy);
            int kind = below(8);
            if (kind >= 1) {
                q.layers = refs;
                q.nlayers = 1 + below(2);
            }
            if (kind >= 2) {
                q.claims = claims;
                q.unit = below(7) - 1;
                q.claim_penalty = tenths(0, 50);
            }
            if (kind == 3) q.weight = 1.0 + tenths(1, 9);
            if (kind == 4) {
                q.noise = tenths(1, 30);
                q.seed = (uint32_t)next_u64();
            }
            if (kind == 5) q.turn_penalty = tenths(1, 20);
            if (kind == 6) {
                q.partial = 1;
                q.max_expansions = (uint64_t)below(200);
            }
            if (kind == 7 && q.diagonal != ASTAR_DIAG_NEVER && modes[world % 4] != ASTAR_DIAG_NEVER)
                q.heuristic = ASTAR_H_EUCLIDEAN;
            astar_result r;
            astar_status st = astar_find(s, g, &q, &r);
            int32_t len = 0;
            const int32_t *path = astar_search_path(s, &len);
            record(st, &r, path, len);
        }
        astar_claims_free(claims);
        astar_layer_free(threat);
        astar_layer_free(danger);
        astar_search_free(s);
        astar_grid_free(g);
    }
}

static void digest_graphs(void) {
    for (int world = 0; world < 20; world++) {
        astar_graph *g = astar_graph_new(NULL);
        int32_t n = 50 + below(150);
        for (int32_t i = 0; i < n; i++) {
            int32_t id;
            double x = tenths(0, 1000);
            double y = tenths(0, 1000);
            astar_graph_add_node(g, x, y, world % 2 ? tenths(0, 50) : 0.0, &id);
        }
        for (int32_t i = 0; i < 4 * n; i++) {
            int32_t a = below(n), b = below(n);
            if (a == b) continue;
            /* The default cost (the distance, computed by the core), or one of the test's own
             * (drawn plainly: arithmetic here would be the compiler's to fuse, not the core's). */
            if (below(2)) astar_graph_add_edge(g, a, b, -1.0);
            else astar_graph_add_arc(g, a, b, tenths(1, 20000));
        }
        astar_graph_search *s = astar_graph_search_new(NULL);
        for (int k = 0; k < 60; k++) {
            astar_graph_query q;
            astar_graph_query_init(&q);
            q.start = below(n);
            q.goal = below(n);
            if (k % 3 == 1) q.weight = 1.0 + tenths(1, 9);
            if (k % 3 == 2) {
                q.noise = tenths(1, 30);
                q.seed = (uint32_t)next_u64();
            }
            astar_result r;
            astar_status st = astar_graph_find(s, g, &q, &r);
            int32_t len = 0;
            const int32_t *path = astar_graph_search_path(s, &len);
            record(st, &r, path, len);
        }
        astar_graph_search_free(s);
        astar_graph_free(g);
    }
}

static void digest_fields(void) {
    for (int world = 0; world < 10; world++) {
        int32_t w = 20 + below(40), h = 20 + below(40);
        astar_grid *g = make_grid(w, h, ASTAR_DIAG_NO_CORNER_CUT, world % 2 == 0, 5 + below(25));
        astar_search *s = astar_search_new(w, h, NULL);
        astar_field *f = astar_field_new(w, h, NULL);
        astar_query q;
        astar_query_init(&q);
        int32_t gx, gy;
        random_open_cell(g, w, h, &gx, &gy);
        int32_t goal = gy * w + gx;
        astar_result r;
        astar_status st = astar_field_build(f, s, g, &q, &goal, 1, ASTAR_FIELD_TO, &r);
        mix(&st, sizeof st);
        for (int32_t y = 0; y < h; y++)
            for (int32_t x = 0; x < w; x++) {
                double d = astar_field_distance(f, x, y);
                mix(&d, sizeof d);
            }
        astar_field_free(f);
        astar_search_free(s);
        astar_grid_free(g);
    }
}

int main(int argc, char **argv) {
    rng_state = 17;
    if (argc > 1 && strcmp(argv[1], "--digest") == 0) {
        digest_grids();
        digest_graphs();
        digest_fields();
        printf("digest %016llx\n", (unsigned long long)digest);
        return 0;
    }
    check_engines();
    if (failures) {
        fprintf(stderr, "test_same_answer: %d differences\n", failures);
        return 1;
    }
    printf("test_same_answer: every engine gave the same status and cost bits\n");
    return 0;
}
