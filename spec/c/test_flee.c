/*
 * astar_flee and astar_wander (src/flee.c, docs/design/flee.md) through the C API: the
 * requests they refuse, an answer checked against a brute force on an open map (the threat
 * distance of a cell with no walls is its octile distance, and the cheapest safe cell is
 * known), a layer of threats, and out of memory at every allocation of a first call: an error,
 * nothing leaked, the next call answers as a fresh workspace does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "check.h"
#include "layers.h" /* internal: astar_layer_above and the count of the cells it reads */

/* The octile distance between two cells: the threat distance on an open map. */
static double octile(int32_t ax, int32_t ay, int32_t bx, int32_t by) {
    double dx = fabs((double)(ax - bx)), dy = fabs((double)(ay - by));
    return (dx > dy ? dx - dy : dy - dx) + sqrt(2.0) * (dx < dy ? dx : dy);
}

static void refusals(astar_search *s, astar_grid *g) {
    int32_t threat = 3 * 20 + 3;
    astar_flee_opts o = {&threat, 1, NULL, 0.0, 5.0, 10.0};
    astar_flee_info info;
    astar_result res;
    astar_query q;
    astar_query_init(&q);
    q.sx = q.sy = 5;
    astar_flee_opts bad = o;
    bad.distance = 0;
    CHECK(astar_flee(s, g, &q, &bad, &info, &res) == ASTAR_EINVAL);
    bad.distance = NAN;
    CHECK(astar_flee(s, g, &q, &bad, &info, &res) == ASTAR_EINVAL);
    bad = o;
    bad.nthreats = 0;
    CHECK(astar_flee(s, g, &q, &bad, &info, &res) == ASTAR_EINVAL);
    int32_t outside = 20 * 20;
    bad.threats = &outside;
    bad.nthreats = 1;
    CHECK(astar_flee(s, g, &q, &bad, &info, &res) == ASTAR_EINVAL);
    astar_query qq = q;
    qq.heuristic = ASTAR_H_ZERO;
    CHECK(astar_flee(s, g, &qq, &o, &info, &res) == ASTAR_EINVAL);
    qq = q;
    qq.size = ASTAR_MAX_SIZE + 1;
    CHECK(astar_flee(s, g, &qq, &o, &info, &res) == ASTAR_EINVAL);
    qq.size = 2; /* no footprint on hexes, even for a unit safe where it stands */
    qq.diagonal = ASTAR_DIAG_HEX;
    bad = o;
    bad.distance = 1.0;
    CHECK(astar_flee(s, g, &qq, &bad, &info, &res) == ASTAR_EINVAL);
    qq = q;
    qq.sx = 20;
    CHECK(astar_flee(s, g, &qq, &o, &info, &res) == ASTAR_EINVAL);
    CHECK(astar_wander(s, g, &q, -1, 0.25, &info, &res) == ASTAR_EINVAL);
    CHECK(astar_wander(s, g, &q, 3, 1.5, &info, &res) == ASTAR_EINVAL);
    qq = q;
    qq.turn_penalty = 1;
    CHECK(astar_wander(s, g, &qq, 3, 0.25, &info, &res) == ASTAR_EINVAL);
}

/* On an open 20x20 map: the start's threat distance T0 < d, and the answer is a cheapest cell
 * (octile from the start, as no cell on the way is nearer the threat than T0 when it moves
 * straight away) whose octile distance to the threat is >= d, by brute force over the map. */
static void open_map(astar_search *s, astar_grid *g, bool layer) {
    int32_t tx = 6, ty = 9, threat = ty * 20 + tx;
    astar_layer *l = NULL;
    if (layer) {
        l = astar_layer_new(20, 20, 0.0, NULL);
        CHECK(l && astar_layer_set(l, tx, ty, 2.0) == ASTAR_OK && astar_layer_set(l, 15, 15, 0.5) == ASTAR_OK);
    }
    astar_flee_opts o = {layer ? NULL : &threat, layer ? 0 : 1, l, 1.0, 6.5, 13.0};
    astar_query q;
    astar_query_init(&q);
    q.diagonal = ASTAR_DIAG_ALWAYS;
    q.sx = 8, q.sy = 9;
    astar_flee_info info;
    astar_result res;
    CHECK(astar_flee(s, g, &q, &o, &info, &res) == ASTAR_OK);
    double best = INFINITY;
    for (int32_t y = 0; y < 20; y++)
        for (int32_t x = 0; x < 20; x++)
            if (octile(x, y, tx, ty) >= o.distance && octile(x, y, q.sx, q.sy) < best) best = octile(x, y, q.sx, q.sy);
    CHECK(info.safe && fabs(res.cost - best) < 1e-9);
    CHECK(octile(info.x, info.y, tx, ty) >= o.distance);
    /* beyond the threat field (which stops at distance): INFINITY */
    CHECK(info.threat_distance == INFINITY || fabs(info.threat_distance - octile(info.x, info.y, tx, ty)) < 1e-9);
    int32_t n = 0;
    const int32_t *path = astar_search_path(s, &n);
    CHECK(n == res.length && n > 1 && path[0] == q.sy * 20 + q.sx && path[n - 1] == info.y * 20 + info.x);
    CHECK(path_legal(g, ASTAR_DIAG_ALWAYS, path, n));
    double t0 = octile(q.sx, q.sy, tx, ty);
    for (int32_t i = 0; i < n; i++) CHECK(octile(path[i] % 20, path[i] / 20, tx, ty) >= t0 - 1e-9);
    astar_layer_free(l);
}

/* A 2x2 unit is as near a threat as its nearest cell: on an open map (no diagonals: threat
 * distances are Manhattan), anchored at (2, 2) with the threat at (5, 5) its anchor is 6 away
 * but its cell (3, 3) only 4; with distance 5.5 it moves until every cell is 6 away (its
 * nearest, (x + 1, y + 1), is 8 - x - y away): 2 steps, to an anchor with x + y = 2. */
static void big_unit(astar_search *s, astar_grid *g) {
    int32_t threat = 5 * 20 + 5;
    astar_flee_opts o = {&threat, 1, NULL, 0.0, 5.5, 11.0};
    astar_query q;
    astar_query_init(&q);
    q.diagonal = ASTAR_DIAG_NEVER;
    q.sx = q.sy = 2;
    q.size = 2;
    astar_flee_info info;
    astar_result res;
    CHECK(astar_flee(s, g, &q, &o, &info, &res) == ASTAR_OK);
    CHECK(info.safe && info.x + info.y == 2 && res.cost == 2.0 && info.threat_distance == INFINITY);
    q.size = 1; /* one cell: its anchor alone counts, already safe */
    CHECK(astar_flee(s, g, &q, &o, &info, &res) == ASTAR_OK);
    CHECK(info.safe && info.x == 2 && info.y == 2 && res.cost == 0.0);
}

/* Out of memory at the k-th allocation of a fresh workspace's first flee and wander: an error
 * or an answer, never a leak; then the same calls answer as a fresh workspace does. */
static void out_of_memory(astar_grid *g) {
    int32_t threat = 9 * 20 + 6;
    astar_flee_opts o = {&threat, 1, NULL, 0.0, 6.5, 13.0};
    astar_query q;
    astar_query_init(&q);
    q.sx = 8, q.sy = 9;
    astar_flee_info want, info;
    astar_result wres, res;
    astar_search *fresh = astar_search_new(20, 20, NULL);
    CHECK(astar_flee(fresh, g, &q, &o, &want, &wres) == ASTAR_OK);
    astar_search_free(fresh);
    int refused = 0;
    for (long k = 1; k < 200; k++) {
        counting c = {0, k, 0, 0, false};
        astar_alloc a = {count_alloc, &c};
        astar_search *s = astar_search_new(20, 20, &a);
        if (!s) continue;
        astar_status st = astar_flee(s, g, &q, &o, &info, &res);
        CHECK(st == ASTAR_OK || st == ASTAR_ENOMEM);
        refused += st == ASTAR_ENOMEM;
        if (st == ASTAR_OK) CHECK(res.cost == wres.cost && info.x == want.x && info.y == want.y);
        astar_status w = astar_wander(s, g, &q, 5, 0.25, &info, &res);
        CHECK(w == ASTAR_OK || w == ASTAR_ENOMEM);
        c.fail_at = 0;
        CHECK(astar_flee(s, g, &q, &o, &info, &res) == ASTAR_OK && res.cost == wres.cost && info.x == want.x &&
              info.y == want.y);
        astar_search_free(s);
        CHECK(c.live == 0 && c.bytes == 0);
    }
    CHECK(refused >= 3); /* the fields, the scratch, the find's arrays: each refused in turn */
}

/* The cells of l above threshold by astar_layer_get over every cell, in id order: the oracle. */
static int32_t brute_above(const astar_layer *l, double threshold, int32_t *ids) {
    int32_t w = astar_layer_width(l), h = astar_layer_height(l), n = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            if (astar_layer_get(l, x, y) > threshold) ids[n++] = y * w + x;
    return n;
}

static int compare_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Flee's threats from a layer read the tiles that may hold a cell above the threshold, not the
 * layer: 1024x1024 at 0.5 with one threat cell reads one tile (64 cells) a call, where a pass
 * over the active tiles read all 1,048,576; a threat that moves (its old cell lowered, a new
 * one raised) reads the new tile and the old one once; a layer below 0 everywhere, none. */
static void layer_scan_work(void) {
    int32_t side = 1024, id = -1;
    astar_layer *l = astar_layer_new(side, side, 0.5, NULL);
    astar_grid *g = astar_grid_new(side, side, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *s = astar_search_new(side, side, NULL);
    CHECK(l && g && s && astar_layer_set(l, 500, 500, 5.0) == ASTAR_OK);
    uint64_t before = astar_layer_above_reads;
    CHECK(astar_layer_above(l, 1.0, &id) == 1 && id == 500 * side + 500);
    CHECK(astar_layer_above_reads - before <= 64);
    astar_flee_opts o = {NULL, 0, l, 1.0, 10.0, 20.0};
    astar_query q;
    astar_query_init(&q);
    q.sx = q.sy = 505;
    astar_flee_info info;
    astar_result res;
    before = astar_layer_above_reads;
    CHECK(astar_flee(s, g, &q, &o, &info, &res) == ASTAR_OK && info.safe);
    CHECK(astar_layer_above_reads - before <= 2 * 64); /* counted, then listed */
    CHECK(astar_layer_set(l, 500, 500, 0.5) == ASTAR_OK && astar_layer_set(l, 600, 600, 5.0) == ASTAR_OK);
    before = astar_layer_above_reads;
    CHECK(astar_layer_above(l, 1.0, &id) == 1 && id == 600 * side + 600);
    CHECK(astar_layer_above_reads - before <= 2 * 64);
    before = astar_layer_above_reads; /* the old tile's bound was made exact: read no more */
    CHECK(astar_layer_above(l, 1.0, &id) == 1 && id == 600 * side + 600 && astar_layer_above_reads - before <= 64);
    CHECK(astar_layer_fill(l, -3.0) == ASTAR_OK && astar_layer_set(l, 7, 7, -1.0) == ASTAR_OK);
    before = astar_layer_above_reads;
    CHECK(astar_layer_above(l, 0.0, NULL) == 0 && astar_layer_above_reads == before);
    astar_search_free(s);
    astar_grid_free(g);
    astar_layer_free(l);
    /* decay scales a tile's bound, kept loose by a lowered cell: it never becomes infinite (then
     * NaN after a decay by 0, above no threshold, its tile never read again) */
    l = astar_layer_new(16, 16, 0.0, NULL);
    CHECK(l && astar_layer_set(l, 0, 0, 1e100) == ASTAR_OK && astar_layer_set(l, 0, 0, 1e-300) == ASTAR_OK);
    CHECK(astar_layer_set(l, 2, 2, -1e-300) == ASTAR_OK); /* -0 after the decay by 0: the tile stays on */
    for (int i = 0; i < 3; i++) CHECK(astar_layer_scale(l, 1e100) == ASTAR_OK);
    CHECK(astar_layer_scale(l, 0.0) == ASTAR_OK && astar_layer_set(l, 1, 1, 5.0) == ASTAR_OK);
    CHECK(astar_layer_above(l, 1.0, &id) == 1 && id == 16 + 1);
    astar_layer_free(l);
}

/* On random layers under random writes that raise and lower values (set, add, stamps of either
 * sign, scale, spread, add_layer, fill), the cells above a threshold are the brute force's, and
 * flee with the layer answers as flee with those cells as a list of points. */
static void layer_scan_oracle(void) {
    enum { W = 37, H = 29 };
    astar_grid *g = astar_grid_new(W, H, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *s = astar_search_new(W, H, NULL);
    astar_layer *l = astar_layer_new(W, H, 0.0, NULL), *other = astar_layer_new(W, H, 0.0, NULL);
    CHECK(g && s && l && other);
    for (int32_t i = 0; i < W * H / 8; i++) astar_grid_set_cost(g, (int32_t)(rnd() % W), (int32_t)(rnd() % H), INFINITY);
    static int32_t got[W * H], want[W * H];
    static const double thresholds[] = {0.0, 0.25, 1.0, 3.0};
    for (int step = 0; step < 600; step++) {
        int32_t x = (int32_t)(rnd() % W), y = (int32_t)(rnd() % H);
        double v = (double)((int32_t)(rnd() % 81) - 40) / 8.0; /* -5 .. 5 */
        switch (rnd() % 10) {
        case 0: case 1: case 2: astar_layer_set(l, x, y, v); break;
        case 3: case 4: astar_layer_add(l, x, y, v); break;
        case 5: astar_layer_stamp(l, x, y, (double)(rnd() % 6), v, (astar_falloff)(rnd() % 3)); break;
        case 6: astar_layer_scale(l, (double)(rnd() % 13) / 8.0); break;
        case 7: astar_layer_spread(l, 0.3, 0.5, rnd() % 2 ? g : NULL); break;
        case 8:
            astar_layer_stamp(other, x, y, 4.0, v, ASTAR_FALLOFF_LINEAR);
            astar_layer_add_layer(l, other, rnd() % 2 ? 1.0 : -0.5);
            break;
        default: if (rnd() % 8 == 0) astar_layer_fill(l, rnd() % 2 ? 0.0 : v); break;
        }
        double t = thresholds[rnd() % 4];
        int32_t n = astar_layer_above(l, t, got), m = brute_above(l, t, want);
        qsort(got, (size_t)n, sizeof *got, compare_int32);
        CHECK(n == m && memcmp(got, want, (size_t)m * sizeof *got) == 0);
        if (step % 4 || m == 0) continue;
        astar_query q;
        astar_query_init(&q);
        q.sx = x, q.sy = y;
        astar_flee_opts by_layer = {NULL, 0, l, t, 4.0, 12.0}, by_points = {want, m, NULL, 0.0, 4.0, 12.0};
        astar_flee_info a, b;
        astar_result ra, rb;
        astar_status sa = astar_flee(s, g, &q, &by_layer, &a, &ra), sb = astar_flee(s, g, &q, &by_points, &b, &rb);
        CHECK(sa == sb && ra.cost == rb.cost && a.x == b.x && a.y == b.y && a.safe == b.safe);
        CHECK(a.threat_distance == b.threat_distance && a.threat_cells == b.threat_cells);
    }
    astar_layer_free(other);
    astar_layer_free(l);
    astar_search_free(s);
    astar_grid_free(g);
}

int main(void) {
    astar_grid *g = astar_grid_new(20, 20, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_search *s = astar_search_new(20, 20, NULL);
    CHECK(g && s);
    refusals(s, g);
    open_map(s, g, false);
    open_map(s, g, true);
    big_unit(s, g);
    out_of_memory(g);
    layer_scan_work();
    layer_scan_oracle();
    /* wander: the same seed, the same cell; the band holds it */
    astar_query q;
    astar_query_init(&q);
    q.sx = q.sy = 10;
    q.seed = 7;
    astar_flee_info a, b;
    astar_result ra, rb;
    CHECK(astar_wander(s, g, &q, 5, 0.25, &a, &ra) == ASTAR_OK && astar_wander(s, g, &q, 5, 0.25, &b, &rb) == ASTAR_OK);
    CHECK(a.x == b.x && a.y == b.y && a.in_band && ra.cost >= 3.75 && ra.cost <= 6.25 && a.candidates > 1);
    astar_search_free(s);
    astar_grid_free(g);
    return check_summary();
}
