/*
 * The grid's queries, A* on terrain (JPS off, as in every workload but the jump ones):
 *
 *   plain      every problem. Checked: every cost equals the optimum.
 *   islands    goals on another island than the start (on maps that have more than one): the
 *              query answered from the labels, against the same query with partial = 1, which
 *              searches the start's whole island as a search without labels would. Up to 200
 *              problems. Checked: unreachable.
 *   field      flow fields: a distance field to the goal of 10 problems spread over the
 *              scenario, each the whole map's cost to that goal (one build = one Dijkstra over
 *              the goal's island; "problems" = builds). Checked: each of those problems' start
 *              reads its optimum.
 *   interests  the problems without ("no_interests") and with ("interests") four pick-ups:
 *              walkable cells spread over the map by a fixed formula, each worth a tenth of the
 *              problem's optimum, back to back. Checked: without, the optimum; with, a score at
 *              most the optimum and a cost at least it.
 *   many       every problem of a map as one astar_find_many call, with 1 thread, 2 and one per
 *              processor (best of 3 calls each, after a warm-up call, so workspaces exist);
 *              prints the time per call and the speed-up over 1 thread, with the cores the
 *              process got (CPU time over wall time: on a busy shared machine 2 threads may get
 *              about one) and its CPU time. Checked: every cost equals the optimum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

void plain_query(const bench_map *m, const astar_scenario *p, stats *st) {
    astar_query q;
    query_for(&q, p);
    astar_result res;
    astar_status rc = timed_find(st, m->search, m->grid, &q, &res);
    if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) st->mismatches++;
}

void plain_queries(const bench_map *m, stats *st) {
    for (int32_t i = 0; i < m->scen->count; i++)
        if (endpoints_open(m->grid, &m->scen->items[i])) plain_query(m, &m->scen->items[i], st);
}

static stats plain_all;

int plain_run(const bench_map *m) {
    stats st = stats_new(m->scen);
    plain_queries(m, &st);
    report("plain", m->name, &st);
    stats_sum(&plain_all, &st);
    stats_free(&st);
    return st.mismatches;
}

void plain_totals(void) { report_all("plain", &plain_all); }

/* Rows islands (from the labels) and no_islands (the search over the start's island). */
int islands_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    stats labels = stats_new(sc), search = stats_new(sc);
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    int32_t *id = malloc((size_t)w * (size_t)h * sizeof *id);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) astar_grid_component(g, x, y, &id[y * w + x]);
    uint32_t seed = 12345;
    for (int32_t i = 0; i < sc->count && labels.n < 200; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        int32_t home = id[p->sy * w + p->sx], goal = -1;
        seed = seed * 1103515245u + 12345u;
        int32_t from = (int32_t)((seed >> 8) % (uint32_t)(w * h));
        for (int32_t k = 0; k < w * h && goal < 0; k++) { /* the next cell of another island */
            int32_t c = (from + k) % (w * h);
            if (id[c] >= 0 && id[c] != home) goal = c;
        }
        if (goal < 0) break; /* one island only */
        astar_query q;
        query_for(&q, p);
        q.gx = goal % w, q.gy = goal / w;
        astar_result res;
        if (timed_find(&labels, m->search, g, &q, &res) != ASTAR_UNREACHABLE) labels.mismatches++;
        q.partial = 1;
        astar_status rc = timed_find(&search, m->search, g, &q, &res);
        if (rc != ASTAR_PARTIAL || res.reason != ASTAR_UNREACHABLE) search.mismatches++;
    }
    free(id);
    if (labels.n) {
        report("islands", m->name, &labels);
        report("no_islands", m->name, &search);
    }
    int bad = labels.mismatches + search.mismatches;
    stats_free(&labels);
    stats_free(&search);
    return bad;
}

int field_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    stats st = stats_new(sc);
    astar_field *f = astar_field_new(astar_grid_width(g), astar_grid_height(g), NULL);
    int builds = f ? (sc->count < 10 ? sc->count : 10) : 0;
    if (!f) st.mismatches++;
    for (int k = 0; k < builds; k++) {
        const astar_scenario *p = &sc->items[(int64_t)k * sc->count / builds];
        if (!endpoints_open(g, p)) continue;
        astar_query q;
        astar_query_init(&q);
        int32_t goal = p->gy * astar_grid_width(g) + p->gx;
        astar_result res;
        double t0 = now();
        astar_status rc = astar_field_build(f, m->search, g, &q, &goal, 1, ASTAR_FIELD_TO, &res);
        stats_add(&st, now() - t0, res.expansions);
        if (rc != ASTAR_OK || !tolerant_equal(astar_field_distance(f, p->sx, p->sy), p)) st.mismatches++;
    }
    astar_field_free(f);
    report("field", m->name, &st);
    stats_free(&st);
    return st.mismatches;
}

/* Rows no_interests and interests, and the second's expansions and median time over the first's. */
int interests_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    stats without = stats_new(sc), with = stats_new(sc);
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        int32_t cells[4];
        double values[4];
        int n = 0;
        for (uint32_t k = 0; n < 4 && k < 64; k++) { /* a fixed walk over the map: the same every run */
            uint32_t hash = (uint32_t)i * 2654435761u + k * 40503u;
            int32_t x = (int32_t)(hash % (uint32_t)w), y = (int32_t)((hash / (uint32_t)w) % (uint32_t)h);
            if (astar_grid_get_cost(g, x, y) == INFINITY) continue;
            cells[n] = y * w + x;
            values[n++] = p->optimal / 10 + 1;
        }
        astar_query q;
        query_for(&q, p);
        astar_result res;
        astar_status rc = timed_find(&without, m->search, g, &q, &res);
        if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) without.mismatches++;
        q.interests = cells;
        q.interest_values = values;
        q.ninterests = n;
        rc = timed_find(&with, m->search, g, &q, &res);
        double slack = fmax(1e-4 * p->optimal, p->precision);
        if (rc != ASTAR_OK || res.score > p->optimal + slack || res.cost < p->optimal - slack) with.mismatches++;
    }
    report("no_interests", m->name, &without);
    report("interests", m->name, &with);
    double ma = median(&without), mb = median(&with);
    printf("interests %-20s expansions %.2fx, median time %.2fx those without\n", m->name,
           without.expansions ? (double)with.expansions / (double)without.expansions : 0, ma > 0 ? mb / ma : 0);
    int bad = without.mismatches + with.mismatches;
    stats_free(&without);
    stats_free(&with);
    return bad;
}

/* Batch times of the many workload, summed over maps: 1 thread, 2, one per processor. */
static double many_total[3];

int many_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    int32_t n = 0;
    int32_t *e = malloc(((size_t)sc->count + 1) * 4 * sizeof *e);
    int32_t *which = malloc(((size_t)sc->count + 1) * sizeof *which);
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        e[4 * n] = p->sx, e[4 * n + 1] = p->sy, e[4 * n + 2] = p->gx, e[4 * n + 3] = p->gy;
        which[n++] = i;
    }
    astar_result *res = malloc(((size_t)n + 1) * sizeof *res);
    astar_many *many = astar_many_new(astar_grid_width(g), astar_grid_height(g), NULL);
    astar_query q;
    astar_query_init(&q);
    int cores = astar_many_default_threads(), bad = 0;
    int threads[3] = {1, 2, cores};
    astar_find_many(many, g, &q, e, n, cores > 2 ? cores : 2, res); /* warm-up */
    double t1 = 0, took[3];
    for (int k = 0; k < 3; k++) {
        if (k == 2 && cores <= 2) { /* one per processor is 1 or 2 threads here: measured above */
            many_total[k] += took[cores - 1];
            continue;
        }
        double best = INFINITY, cores_used = 0;
        int wrong = 0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now(), c0 = cpu_now();
            astar_status st = astar_find_many(many, g, &q, e, n, threads[k], res);
            double dt = now() - t0;
            if (dt < best) best = dt, cores_used = (cpu_now() - c0) / dt;
            wrong = st != ASTAR_OK;
            for (int32_t i = 0; i < n; i++)
                if (res[i].status != ASTAR_OK || !tolerant_equal(res[i].cost, &sc->items[which[i]])) wrong++;
        }
        if (k == 0) t1 = best;
        took[k] = best;
        many_total[k] += best;
        bad += wrong;
        printf("many       %-20s %8d threads %2d: %9.2f ms per call, %5.2fx 1 thread, "
               "%.2f cores busy (%.1f ms of CPU), %d wrong\n", m->name, (int)n, threads[k], best * 1e3,
               t1 / best, cores_used, cores_used * best * 1e3, wrong);
        printf("figure c many %s threads_%d_ms %.3f\n", m->name, threads[k], best * 1e3);
        printf("figure c many %s speedup_%d %.3f\n", m->name, threads[k], t1 / best);
        printf("figure c many %s cores_busy_%d %.3f\n", m->name, threads[k], cores_used);
        printf("figure c many %s cpu_ms_%d %.3f\n", m->name, threads[k], cores_used * best * 1e3);
    }
    astar_many_free(many);
    free(res);
    free(which);
    free(e);
    return bad;
}

void many_totals(void) {
    if (many_total[0] <= 0) return;
    int cores = astar_many_default_threads();
    printf("many, all maps: 2 threads %.2fx, %d threads %.2fx one thread\n", many_total[0] / many_total[1], cores,
           many_total[0] / many_total[2]);
    printf("figure c many all speedup_2 %.3f\n", many_total[0] / many_total[1]);
    printf("figure c many all speedup_%d %.3f\n", cores, many_total[0] / many_total[2]);
}
