/*
 *   deadends   every problem with A* (JPS off) without and with dead_ends, back to back, on
 *              terrain alone (rows de_off, de_on; checked against the scenario's optimum) and
 *              with the penalties workload's danger layer (de_off_inf, de_on_inf; checked: with
 *              == without). Prints the cache's build (timed, untimed for the problems) and its
 *              reach, and over all maps the ratios of expansions and time.
 */
#include <math.h>
#include <stdio.h>

#include "bench.h"

/* Dead ends off, on; with a layer off, on: per map, and summed over the maps. */
static const char *const rows[4] = {"de_off", "de_on", "de_off_inf", "de_on_inf"};
static stats deadends_all[4];

/* The cache's build, timed on the first walkable cell, and its reach over the map. */
static void cache_figures(const bench_map *m) {
    astar_grid *g = m->grid;
    int32_t w = astar_grid_width(g), h = astar_grid_height(g), area, gate;
    int32_t first = 0; /* a walkable cell: asking about a blocked one builds nothing */
    while (first < w * h && astar_grid_get_cost(g, first % w, first / w) == INFINITY) first++;
    double t0 = now();
    if (first < w * h) astar_grid_dead_end(g, first % w, first / w, &area, &gate);
    double build = now() - t0;
    int64_t inside = 0, open = 0, areas = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            if (astar_grid_get_cost(g, x, y) == INFINITY) continue;
            open++;
            astar_grid_dead_end(g, x, y, &area, &gate);
            if (area >= 0) inside++;
            if (area + 1 > areas) areas = area + 1;
        }
    printf("deadends   %-20s build %.2f ms, %lld areas, %lld of %lld open cells (%.1f%%) in dead ends\n", m->name,
           build * 1e3, (long long)areas, (long long)inside, (long long)open,
           open ? 100.0 * (double)inside / (double)open : 0);
    printf("figure c deadends %s build_ms %.3f\n", m->name, build * 1e3);
    printf("figure c deadends %s share %.4f\n", m->name, open ? (double)inside / (double)open : 0);
}

int deadends_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    cache_figures(m);
    stats st[4];
    for (int k = 0; k < 4; k++) st[k] = stats_new(sc);
    astar_layer *danger = danger_layer(astar_grid_width(g), astar_grid_height(g));
    astar_layer_ref layers[1] = {{danger, 1.0}};
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        for (int layered = 0; layered < 2; layered++) {
            double cost[2];
            for (int k = 0; k < 2; k++) { /* alternate which goes first: the second finds the
                                             first's cells in the caches */
                int on = (int)((i + k) % 2);
                astar_query q;
                query_for(&q, p);
                q.dead_ends = on;
                if (layered) q.layers = layers, q.nlayers = 1;
                astar_result res;
                stats *to = &st[2 * layered + on];
                astar_status rc = timed_find(to, m->search, g, &q, &res);
                cost[on] = rc == ASTAR_OK ? res.cost : -1;
                if (!layered && (rc != ASTAR_OK || !tolerant_equal(res.cost, p))) to->mismatches++;
            }
            if (layered && cost[0] != cost[1]) st[3].mismatches++;
        }
    }
    astar_layer_free(danger);
    int bad = 0;
    for (int k = 0; k < 4; k++) {
        report(rows[k], m->name, &st[k]);
        stats_sum(&deadends_all[k], &st[k]);
        bad += st[k].mismatches;
        stats_free(&st[k]);
    }
    return bad;
}

void deadends_totals(void) {
    for (int k = 0; k < 4; k += 2) {
        stats *a = &deadends_all[k], *b = &deadends_all[k + 1];
        if (!a->n || b->total <= 0) continue;
        const char *what = k ? "with a layer" : "terrain";
        printf("dead ends (%s), all maps: %zu problems, expansions %llu -> %llu (%.3fx), time %.1f -> %.1f us "
               "per query (%.3fx), %d wrong\n", what, a->n, a->expansions, b->expansions,
               (double)b->expansions / (double)a->expansions, a->total / (double)a->n * 1e6,
               b->total / (double)b->n * 1e6, b->total / a->total, a->mismatches + b->mismatches);
        printf("figure c deadends%s all expansion_ratio %.4f\n", k ? "_inf" : "", (double)b->expansions / (double)a->expansions);
        printf("figure c deadends%s all time_ratio %.4f\n", k ? "_inf" : "", b->total / a->total);
    }
}
