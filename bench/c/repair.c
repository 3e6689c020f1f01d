/*
 *   repair     a unit on a long path (the problems whose A* path has >= 64 cells) finds a cell
 *              ahead blocked: the cell half way, the unit 16 cells before it. Rows: "fresh" (a
 *              find from the unit to the goal, A*), "repair" (astar_repair, every later cell a
 *              rejoin) and "repair64" (only the 64 cells beyond the blockage: a local repair);
 *              each query timed back to back on the same blocked map, then the cell reopened.
 *              Checked: repair's cost equals the fresh find's (the goal is a rejoin cell),
 *              repair64's is never below it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int repair_run(const bench_map *m) {
    astar_grid *g = m->grid;
    astar_search *s = m->search;
    const astar_scen *sc = m->scen;
    stats fresh = stats_new(sc), all = stats_new(sc), local = stats_new(sc);
    double excess_sum = 0, excess_max = 0; /* repair64's cost over the fresh find's */
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        astar_query q;
        query_for(&q, p);
        astar_result res;
        if (astar_find(s, g, &q, &res) != ASTAR_OK || res.length < 64) continue;
        int32_t n = 0;
        const int32_t *found = astar_search_path(s, &n);
        int32_t *path = malloc((size_t)n * sizeof *path);
        memcpy(path, found, (size_t)n * sizeof *path);
        int32_t width = astar_grid_width(g), blocked = n / 2, from = blocked - 16;
        int32_t bx = path[blocked] % width, by = path[blocked] / width;
        double was = astar_grid_get_cost(g, bx, by);
        astar_grid_set_cost(g, bx, by, INFINITY);
        astar_query r = q;
        r.sx = path[from] % width, r.sy = path[from] / width;
        astar_status rc = timed_find(&fresh, s, g, &r, &res);
        double want = res.cost;
        if (rc != ASTAR_OK) fresh.mismatches++;
        for (int k = 0; k < 2; k++) {
            stats *st = k == 0 ? &all : &local;
            astar_repair_info how;
            double t0 = now();
            rc = astar_repair(s, g, &q, path, n, from, k == 0 ? 0 : ASTAR_REPAIR_LOCAL, &res, &how);
            stats_add(st, now() - t0, res.expansions);
            bool ok = rc == ASTAR_OK && (k == 0 ? fabs(res.cost - want) <= 1e-9 * want : res.cost >= want - 1e-9 * want);
            if (!ok) st->mismatches++;
            if (k == 1 && ok && want > 0) {
                excess_sum += res.cost / want;
                if (res.cost / want > excess_max) excess_max = res.cost / want;
            }
        }
        astar_grid_set_cost(g, bx, by, was);
        free(path);
    }
    report("fresh", m->name, &fresh);
    report("repair", m->name, &all);
    report("repair64", m->name, &local);
    double mf = median(&fresh), mr = median(&all), ml = median(&local);
    printf("repair %-20s expansions %.2fx and %.2fx fewer, median time %.2fx and %.2fx faster\n", m->name,
           all.expansions ? (double)fresh.expansions / (double)all.expansions : 0,
           local.expansions ? (double)fresh.expansions / (double)local.expansions : 0, mr > 0 ? mf / mr : 0,
           ml > 0 ? mf / ml : 0);
    printf("repair64 %-20s cost / fresh find's: mean %.4f, max %.4f\n", m->name,
           local.n ? excess_sum / (double)local.n : 0, excess_max);
    printf("figure c repair64 %s cost_ratio_mean %.5f\n", m->name, local.n ? excess_sum / (double)local.n : 0);
    printf("figure c repair64 %s cost_ratio_max %.5f\n", m->name, excess_max);
    int bad = fresh.mismatches + all.mismatches + local.mismatches;
    stats_free(&fresh);
    stats_free(&all);
    stats_free(&local);
    return bad;
}
