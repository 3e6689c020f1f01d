/*
 * Layers and claims:
 *
 *   penalties  one layer (danger_layer: a fixed pattern over a quarter of the cells)
 *              and claims from 8 units (the A* paths of the first 8 problems). Checked: found,
 *              and no cost below the optimum.
 *   classes    terrain classes: every cell of class (x / 8 + y / 8) % 4, and a classes table
 *              {1: 1.5, 2: 2, 3: 1} (class 0 not listed: 1), per problem. Checked: found, no
 *              cost below the optimum (no factor is below 1). Compare its instructions per
 *              expansion with plain's (bench/callgrind.sh).
 *   size2, size3  a unit of 2x2 (3x3) cells (astar_query.size), per problem. Checked: no
 *              cost below the one-cell optimum (a bigger unit's way is never shorter; it may
 *              find none). Compare its instructions per expansion with plain's
 *              (bench/callgrind.sh): the loop for bigger units (grid_loop.c's sized
 *              instances), 8 clearance reads an expansion and, on mixed terrain, up to
 *              2n - 1 terrain reads a step.
 *   size1      one cell through the general loop, which bigger units ran before they had
 *              their own (a fog mask with every cell known, which changes no answer; a
 *              bigger unit with fog still runs it). Checked: optimal.
 *   influence  a 256x256 layer updated as a game would each frame: 64 units stamped
 *              (radius 6), one spread step over walkable cells (the first map's 256x256
 *              corner, or open ground) and a decay; 200 frames. Runs once, on the first map;
 *              prints median and mean per frame.
 */
#include <math.h>
#include <stdio.h>

#include "bench.h"

static stats penalties_all;

int penalties_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    stats st = stats_new(sc);
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    astar_layer *danger = danger_layer(w, h);
    astar_claims *claims = astar_claims_new(w, h, NULL);
    for (int32_t i = 0, units = 0; i < sc->count && units < 8; i++) {
        astar_query q;
        query_for(&q, &sc->items[i]);
        astar_result res;
        if (!endpoints_open(g, &sc->items[i]) || astar_find(m->search, g, &q, &res) != ASTAR_OK) continue;
        int32_t n;
        const int32_t *path = astar_search_path(m->search, &n);
        astar_claims_set(claims, astar_claims_unit_new(claims), path, n);
        units++;
    }
    astar_layer_ref layers[1] = {{danger, 1.0}};
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        astar_query q;
        query_for(&q, p);
        q.layers = layers;
        q.nlayers = 1;
        q.claims = claims;
        astar_result res;
        astar_status rc = timed_find(&st, m->search, g, &q, &res);
        if (rc != ASTAR_OK || res.cost < p->optimal - fmax(1e-4 * p->optimal, p->precision)) st.mismatches++;
    }
    astar_claims_free(claims);
    astar_layer_free(danger);
    report("penalties", m->name, &st);
    stats_sum(&penalties_all, &st);
    stats_free(&st);
    return st.mismatches;
}

void penalties_totals(void) { report_all("penalties", &penalties_all); }

static stats classes_all;

int classes_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    stats st = stats_new(sc);
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) astar_grid_set_class(g, x, y, (x / 8 + y / 8) % 4);
    double factors[256];
    for (int i = 0; i < 256; i++) factors[i] = 1.0;
    factors[1] = 1.5;
    factors[2] = 2.0;
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        astar_query q;
        query_for(&q, p);
        q.classes = factors;
        astar_result res;
        astar_status rc = timed_find(&st, m->search, g, &q, &res);
        if (rc != ASTAR_OK || res.cost < p->optimal - fmax(1e-4 * p->optimal, p->precision)) st.mismatches++;
    }
    for (int32_t y = 0; y < h; y++) /* the other workloads see class 0 again (they do not read it) */
        for (int32_t x = 0; x < w; x++) astar_grid_set_class(g, x, y, 0);
    report("classes", m->name, &st);
    stats_sum(&classes_all, &st);
    stats_free(&st);
    return st.mismatches;
}

void classes_totals(void) { report_all("classes", &classes_all); }

static stats size_all[3];
static const char *const SIZE_NAMES[3] = {"size1", "size2", "size3"};

static int size_run(const bench_map *m, int32_t n) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    stats st = stats_new(sc);
    astar_mask *all = NULL; /* size1: every cell known, for the general loop */
    if (n == 1) {
        int32_t w = astar_grid_width(g), h = astar_grid_height(g);
        all = astar_mask_new(w, h, NULL);
        astar_mask_reveal(all, w / 2, h / 2, (double)(w + h));
    }
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        astar_query q;
        query_for(&q, p);
        q.size = n;
        q.known = all;
        astar_result res;
        astar_status rc = timed_find(&st, m->search, g, &q, &res);
        if (rc == ASTAR_OK && res.cost < p->optimal - fmax(1e-4 * p->optimal, p->precision)) st.mismatches++;
        if (rc != ASTAR_OK && (n == 1 || rc != ASTAR_UNREACHABLE)) st.mismatches++;
        if (n == 1 && rc == ASTAR_OK && !tolerant_equal(res.cost, p)) st.mismatches++;
    }
    astar_mask_free(all);
    report(SIZE_NAMES[n - 1], m->name, &st);
    stats_sum(&size_all[n - 1], &st);
    stats_free(&st);
    return st.mismatches;
}

int size1_run(const bench_map *m) { return size_run(m, 1); }
int size2_run(const bench_map *m) { return size_run(m, 2); }
int size3_run(const bench_map *m) { return size_run(m, 3); }
void size1_totals(void) { report_all("size1", &size_all[0]); }
void size2_totals(void) { report_all("size2", &size_all[1]); }
void size3_totals(void) { report_all("size3", &size_all[2]); }

int influence_run(const bench_map *m) {
    if (!m->first) return 0;
    enum { SIDE = 256, UNITS = 64, FRAMES = 200 };
    astar_grid *walk = astar_grid_new(SIDE, SIDE, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    for (int32_t y = 0; y < SIDE && y < astar_grid_height(m->grid); y++)
        for (int32_t x = 0; x < SIDE && x < astar_grid_width(m->grid); x++)
            astar_grid_set_cost(walk, x, y, astar_grid_get_cost(m->grid, x, y));
    astar_layer *inf = astar_layer_new(SIDE, SIDE, 0.0, NULL);
    double times[FRAMES], total = 0;
    uint32_t seed = 99;
    int32_t ux[UNITS], uy[UNITS];
    for (int u = 0; u < UNITS; u++) {
        seed = seed * 1103515245u + 12345u;
        ux[u] = (int32_t)((seed >> 8) % SIDE);
        seed = seed * 1103515245u + 12345u;
        uy[u] = (int32_t)((seed >> 8) % SIDE);
    }
    for (int f = 0; f < FRAMES; f++) {
        for (int u = 0; u < UNITS; u++) { /* units wander a step a frame */
            seed = seed * 1103515245u + 12345u;
            ux[u] = (ux[u] + (int32_t)((seed >> 8) % 3) - 1 + SIDE) % SIDE;
            uy[u] = (uy[u] + (int32_t)((seed >> 12) % 3) - 1 + SIDE) % SIDE;
        }
        double t0 = now();
        for (int u = 0; u < UNITS; u++)
            astar_layer_stamp(inf, ux[u], uy[u], 6.0, u % 2 ? 1.0 : -1.0, ASTAR_FALLOFF_LINEAR);
        astar_layer_spread(inf, 0.2, 0.6, walk);
        astar_layer_scale(inf, 0.9);
        times[f] = now() - t0;
        total += times[f];
    }
    double mean = total / FRAMES * 1e6, med = median_of(times, FRAMES) * 1e6;
    printf("influence  %dx%d: %d units stamped, spread, decay: median %.1f us, mean %.1f us per frame\n", SIDE,
           SIDE, UNITS, med, mean);
    printf("figure c influence 256x256 median_us %.3f\n", med);
    printf("figure c influence 256x256 mean_us %.3f\n", mean);
    astar_layer_free(inf);
    astar_grid_free(walk);
    return 0;
}
