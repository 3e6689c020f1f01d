/*
 *   graph      the map as a waypoint graph (astar_graph): every walkable cell a node, arcs to
 *              the 8 neighbours a no-corner-cut move reaches, with the default cost (the
 *              distance: 1 or sqrt 2), so the heuristic is the Euclidean distance at scale 1.
 *              The plain problems, one workspace. Checked like plain. Also prints the time to
 *              build the graph and to pack it (the first query). Its queries run in
 *              astar_graph_find (sh bench/callgrind.sh counts that function for this workload).
 *              Then fields (astar_graph_field): a range of cost 10 from each problem's start
 *              (the time per range and the nodes it reached: it costs what it reaches, not the
 *              graph) and one whole field from the first start. Then the same toward the
 *              sources (q.toward: over the arcs reversed; the first such field also packs them,
 *              timed apart), and find_nearest from each start to the goals of the next 8
 *              problems, aimed by the heuristic and with none (ASTAR_H_ZERO): time, expansions,
 *              and the two costs must agree (a mismatch otherwise).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

static stats graph_all;

/* The problems' own finds go through here, and sh bench/callgrind.sh counts this function for
 * the graph workload: the find_nearest below calls astar_graph_find too, with a heuristic over
 * 8 targets, and would weigh in the instructions per expansion of a find. */
__attribute__((noinline)) astar_status bench_graph_find(astar_graph_search *s, astar_graph *g,
                                                        const astar_graph_query *q, astar_result *res) {
    return astar_graph_find(s, g, q, res);
}

int graph_run(const bench_map *m) {
    astar_grid *grid = m->grid;
    const astar_scen *sc = m->scen;
    stats st = stats_new(sc);
    int32_t w = astar_grid_width(grid), h = astar_grid_height(grid);
    int32_t *id = malloc((size_t)w * (size_t)h * sizeof *id);
    double t0 = now();
    astar_graph *g = astar_graph_new(NULL);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            id[y * w + x] = -1;
            if (astar_grid_get_cost(grid, x, y) != INFINITY) astar_graph_add_node(g, x, y, 0, &id[y * w + x]);
        }
    static const int dx[8] = {0, 1, 0, -1, 1, 1, -1, -1}, dy[8] = {-1, 0, 1, 0, -1, 1, 1, -1};
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            if (id[y * w + x] < 0) continue;
            for (int d = 0; d < 8; d++) {
                int32_t nx = x + dx[d], ny = y + dy[d];
                if (nx < 0 || ny < 0 || nx >= w || ny >= h || id[ny * w + nx] < 0) continue;
                if (d >= 4 && (id[y * w + nx] < 0 || id[ny * w + x] < 0)) continue; /* no corner cut */
                astar_graph_add_arc(g, id[y * w + x], id[ny * w + nx], ASTAR_GRAPH_LENGTH);
            }
        }
    double built = now() - t0;
    t0 = now();
    astar_graph_prepare(g);
    double packed = now() - t0;
    astar_graph_search *s = astar_graph_search_new(NULL);
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(grid, p)) continue;
        astar_graph_query q;
        astar_graph_query_init(&q);
        q.start = id[p->sy * w + p->sx];
        q.goal = id[p->gy * w + p->gx];
        astar_result res;
        t0 = now();
        astar_status rc = bench_graph_find(s, g, &q, &res);
        stats_add(&st, now() - t0, res.expansions);
        if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) st.mismatches++;
    }
    /* Ranges of cost 10, then one whole field. */
    double range_t = 0.0, field_t = 0.0;
    int64_t range_nodes = 0;
    int32_t ranges = 0, field_nodes = 0;
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(grid, p)) continue;
        astar_graph_query q;
        astar_graph_query_init(&q);
        q.max_cost = 10.0;
        int32_t src = id[p->sy * w + p->sx];
        astar_result res;
        t0 = now();
        if (astar_graph_field(s, g, &q, &src, 1, &res) != ASTAR_OK) st.mismatches++;
        range_t += now() - t0;
        range_nodes += astar_graph_field_reached(s);
        ranges++;
        if (ranges == 1) {
            q.max_cost = INFINITY;
            t0 = now();
            if (astar_graph_field(s, g, &q, &src, 1, &res) != ASTAR_OK) st.mismatches++;
            field_t = now() - t0;
            field_nodes = astar_graph_field_reached(s);
        }
    }
    if (ranges > 0) {
        printf("graph      %s: range(10) %.1f us for %.0f nodes (mean of %d), whole field %.2f ms for %d nodes\n",
               m->name, range_t / ranges * 1e6, (double)range_nodes / ranges, (int)ranges, field_t * 1e3,
               (int)field_nodes);
        printf("figure c graph %s range10_us %.3f\n", m->name, range_t / ranges * 1e6);
        printf("figure c graph %s field_ms %.3f\n", m->name, field_t * 1e3);
    }
    /* Toward the sources: the first field packs the reversed arcs; ranges of 10; a whole field. */
    double rpack_t = 0.0, trange_t = 0.0, tfield_t = 0.0;
    int64_t trange_nodes = 0;
    int32_t tranges = 0, tfield_nodes = 0;
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(grid, p)) continue;
        astar_graph_query q;
        astar_graph_query_init(&q);
        q.toward = 1;
        q.max_cost = 10.0;
        int32_t src = id[p->gy * w + p->gx];
        astar_result res;
        if (tranges == 0) { /* the reversed arcs alone: a field that settles its source only */
            q.max_expansions = 1;
            t0 = now();
            astar_status r = astar_graph_field(s, g, &q, &src, 1, &res);
            rpack_t = now() - t0;
            if (r != ASTAR_LIMIT && r != ASTAR_OK) st.mismatches++;
            q.max_expansions = UINT64_MAX;
        }
        t0 = now();
        if (astar_graph_field(s, g, &q, &src, 1, &res) != ASTAR_OK) st.mismatches++;
        trange_t += now() - t0;
        trange_nodes += astar_graph_field_reached(s);
        if (++tranges == 1) {
            q.max_cost = INFINITY;
            t0 = now();
            if (astar_graph_field(s, g, &q, &src, 1, &res) != ASTAR_OK) st.mismatches++;
            tfield_t = now() - t0;
            tfield_nodes = astar_graph_field_reached(s);
        }
    }
    if (tranges > 0) {
        printf("graph      %s: toward: reversed arcs packed in %.1f ms, range(10) %.1f us for %.0f nodes "
               "(mean of %d), whole field %.2f ms for %d nodes\n",
               m->name, rpack_t * 1e3, trange_t / tranges * 1e6, (double)trange_nodes / tranges, (int)tranges,
               tfield_t * 1e3, (int)tfield_nodes);
        printf("figure c graph %s toward_pack_ms %.3f\n", m->name, rpack_t * 1e3);
        printf("figure c graph %s toward_range10_us %.3f\n", m->name, trange_t / tranges * 1e6);
        printf("figure c graph %s toward_field_ms %.3f\n", m->name, tfield_t * 1e3);
    }
    /* find_nearest: the goals of the next 8 problems (open ones), aimed and not. */
    enum { NEAREST_TARGETS = 8 };
    double aimed_t = 0.0, blind_t = 0.0;
    uint64_t aimed_x = 0, blind_x = 0;
    int32_t nearest = 0;
    for (int32_t i = 0; i + NEAREST_TARGETS < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(grid, p)) continue;
        int32_t targets[NEAREST_TARGETS], nt = 0;
        for (int32_t k = 1; k <= NEAREST_TARGETS; k++) {
            const astar_scenario *o = &sc->items[i + k];
            if (endpoints_open(grid, o)) targets[nt++] = id[o->gy * w + o->gx];
        }
        if (nt == 0) continue;
        astar_graph_query q;
        astar_graph_query_init(&q);
        q.start = id[p->sy * w + p->sx];
        q.goal = targets[0];
        q.targets = targets;
        q.ntargets = nt;
        astar_result aimed, blind;
        t0 = now();
        astar_status ra = astar_graph_find(s, g, &q, &aimed);
        aimed_t += now() - t0;
        q.heuristic = ASTAR_H_ZERO;
        t0 = now();
        astar_status rb = astar_graph_find(s, g, &q, &blind);
        blind_t += now() - t0;
        if (ra != rb || (ra == ASTAR_OK && aimed.cost != blind.cost)) st.mismatches++;
        aimed_x += aimed.expansions;
        blind_x += blind.expansions;
        nearest++;
    }
    if (nearest > 0) {
        printf("graph      %s: find_nearest of %d targets (mean of %d): aimed %.1f us, %.0f expansions; "
               "no heuristic %.1f us, %.0f expansions\n",
               m->name, NEAREST_TARGETS, (int)nearest, aimed_t / nearest * 1e6, (double)aimed_x / nearest,
               blind_t / nearest * 1e6, (double)blind_x / nearest);
        printf("figure c graph %s nearest8_us %.3f\n", m->name, aimed_t / nearest * 1e6);
        printf("figure c graph %s nearest8_zero_us %.3f\n", m->name, blind_t / nearest * 1e6);
    }
    printf("graph      %s: %d nodes, %d arcs, built in %.1f ms, packed in %.1f ms\n", m->name,
           (int)astar_graph_node_count(g), (int)astar_graph_arc_count(g), built * 1e3, packed * 1e3);
    printf("figure c graph %s build_ms %.3f\n", m->name, built * 1e3);
    printf("figure c graph %s pack_ms %.3f\n", m->name, packed * 1e3);
    astar_graph_search_free(s);
    astar_graph_free(g);
    free(id);
    report("graph", m->name, &st);
    stats_sum(&graph_all, &st);
    stats_free(&st);
    return st.mismatches;
}

void graph_totals(void) { report_all("graph", &graph_all); }
