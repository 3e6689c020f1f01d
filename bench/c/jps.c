/*
 * Jump point search against the engine it replaces, query by query:
 *
 *   jps        the plain problems with jump point search off (A*, "astar") and on ("jps");
 *              prints the speed-up of median and mean, and the median over problems of each
 *              one's A* time / JPS time. Checked like plain, both. "expansions" under JPS: jump
 *              points.
 *   jps4       the same 4-connected ("astar4", "jps4"); JPS checked against A*.
 *   jpsplus    the plain problems with online JPS (ASTAR_JPS_ONLINE: scans, "online") and JPS+
 *              (the default: the grid's JPS+ table, "jpsplus"), both checked like plain, and
 *              their speed-ups as for jps. Also, on fresh copies of the map: the table's build
 *              time (first build with its allocation, then the median of 3 rebuilds), and
 *              set_cost's time per call, median over 1000 random walkable cells each blocked and
 *              reopened, with the table and without it (the difference is the table's local
 *              update); the table is then compared with a fresh build (a difference counts as
 *              wrong).
 *   jpsplus4   the same 4-connected ("online4", "jpsplus4"); JPS+ checked against online JPS's
 *              status and cost.
 *
 * Each prints over all maps the mean time of both rows and the speed-up of the means.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "jps_table.h" /* internal: the table's build and check, for jpsplus */

/* One of the four: its rows' names, the engines compared, and their totals over the maps. */
typedef struct jps_workload {
    const char *rows[2]; /* the first engine's row, JPS's (the workload's name) */
    bool four;           /* 4-connected: no optimum in the scenarios, the second checked against the first */
    astar_jps first;     /* the engine measured against: A* or online JPS */
    bool table;          /* the JPS+ table's own figures too (jpsplus) */
    stats all[2];
} jps_workload;

static jps_workload kinds[4] = {
    {{"astar", "jps"}, false, ASTAR_JPS_OFF, false, {{0}}},
    {{"astar4", "jps4"}, true, ASTAR_JPS_OFF, false, {{0}}},
    {{"online", "jpsplus"}, false, ASTAR_JPS_ONLINE, true, {{0}}},
    {{"online4", "jpsplus4"}, true, ASTAR_JPS_ONLINE, false, {{0}}},
};

/*
 * The plain problems twice, each query with the kind's first engine and then with the default
 * (ASTAR_JPS_AUTO), so the two share the machine's state problem by problem. With `four`, the
 * same problems 4-connected (ASTAR_DIAG_NEVER), where the scenarios give no optimum: the second
 * is checked against the first's cost and status instead. One untimed query of each engine
 * first: what a grid builds once for all its queries (island labels, JPS+'s table: its build
 * time is the jpsplus workload's own figure) is not charged to the first problem.
 */
static void workload_queries(const bench_map *m, const jps_workload *kind, stats *off, stats *on, stats *ratio) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    for (int k = 0; k < 2 && sc->count > 0; k++) {
        astar_query q;
        query_for(&q, &sc->items[0]);
        if (kind->four) q.diagonal = ASTAR_DIAG_NEVER;
        q.jps = k == 0 ? kind->first : ASTAR_JPS_AUTO;
        astar_result res;
        astar_find(m->search, g, &q, &res);
    }
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        astar_result res[2];
        astar_status rc[2];
        for (int k = 0; k < 2; k++) {
            astar_query q;
            query_for(&q, p);
            if (kind->four) q.diagonal = ASTAR_DIAG_NEVER;
            q.jps = k == 0 ? kind->first : ASTAR_JPS_AUTO;
            stats *st = k == 0 ? off : on;
            rc[k] = timed_find(st, m->search, g, &q, &res[k]);
            if (!kind->four && (rc[k] != ASTAR_OK || !tolerant_equal(res[k].cost, p))) st->mismatches++;
        }
        /* The two ran back to back: their ratio shrugs off the load of a shared machine that
         * the medians of each feel at different moments. */
        double took_off = off->times[off->n - 1], took_on = on->times[on->n - 1];
        ratio->times[ratio->n++] = took_on > 0 ? took_off / took_on : 0;
        if (kind->four && (rc[0] != rc[1] || fabs(res[0].cost - res[1].cost) > 1e-9 * res[0].cost))
            on->mismatches++;
    }
}

/*
 * JPS+'s table on fresh copies of a map: its build time, and set_cost's time with and without
 * it (1000 random walkable cells, each blocked and reopened: 2000 calls each). Returns the
 * mismatches (a table kept in step that differs from a fresh build, or no table).
 */
static int table_figures(const bench_map *m) {
    char err[256];
    astar_grid *with = load_grid(m->path, err, sizeof err), *without = load_grid(m->path, err, sizeof err);
    if (!with || !without) return 1;
    int32_t w = astar_grid_width(with), h = astar_grid_height(with);
    double t0 = now();
    if (astar_grid_prepare_jumps(with, ASTAR_DIAG_NO_CORNER_CUT) != ASTAR_OK) return 1;
    double first = now() - t0;
    double *costs = malloc((size_t)w * (size_t)h * sizeof *costs), rebuild[3];
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) costs[(size_t)y * (size_t)w + (size_t)x] = astar_grid_get_cost(with, x, y);
    for (int k = 0; k < 3; k++) {
        astar_grid_set_all(with, costs); /* a bulk write: the table goes stale */
        t0 = now();
        astar_grid_prepare_jumps(with, ASTAR_DIAG_NO_CORNER_CUT);
        rebuild[k] = now() - t0;
    }
    free(costs);
    enum { CELLS = 1000 };
    double *took[2];
    size_t samples = 0;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 2; k++) {
        astar_grid *g = k ? without : with;
        took[k] = malloc(2 * CELLS * sizeof(double));
        uint64_t r = seed;
        long tries = 0;
        for (int i = 0; i < CELLS && tries < 1000L * CELLS; i++, tries++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            int32_t x = (int32_t)((r >> 33) % (uint64_t)w), y = (int32_t)((r >> 13) % (uint64_t)h);
            double old = astar_grid_get_cost(g, x, y);
            if (old == INFINITY) { /* walkable cells: a door shut, a wall built (not rock turned */
                i--;               /* into rock, which most maps' blocked regions would give) */
                continue;
            }
            t0 = now();
            astar_grid_set_cost(g, x, y, INFINITY);
            took[k][2 * i] = now() - t0;
            samples = 2 * i + 2;
            t0 = now();
            astar_grid_set_cost(g, x, y, old);
            took[k][2 * i + 1] = now() - t0;
        }
    }
    int wrong = astar_jps_table_mismatches(with, 0) != 0;
    double upd_with = median_of(took[0], samples) * 1e6, upd_without = median_of(took[1], samples) * 1e6;
    double rb = median_of(rebuild, 3) * 1e3;
    printf("jpsplus table %-20s %dx%d: %.0f KiB, first build %.2f ms, rebuild %.2f ms; set_cost median %.2f us "
           "with the table, %.2f us without (update %.2f us)%s\n",
           m->name, (int)w, (int)h, (double)astar_jps_table_bytes(with) / 1024.0, first * 1e3, rb, upd_with,
           upd_without, upd_with - upd_without, wrong ? "; TABLE DIFFERS FROM A FRESH BUILD" : "");
    printf("figure c jpsplus %s build_ms %.3f\n", m->name, rb);
    printf("figure c jpsplus %s set_cost_us %.3f\n", m->name, upd_with);
    printf("figure c jpsplus %s set_cost_without_us %.3f\n", m->name, upd_without);
    free(took[0]);
    free(took[1]);
    astar_grid_free(with);
    astar_grid_free(without);
    return wrong;
}

static int workload_run(const bench_map *m, jps_workload *kind) {
    stats a = stats_new(m->scen), b = stats_new(m->scen), r = stats_new(m->scen);
    workload_queries(m, kind, &a, &b, &r);
    report(kind->rows[0], m->name, &a);
    report(kind->rows[1], m->name, &b);
    stats_sum(&kind->all[0], &a);
    stats_sum(&kind->all[1], &b);
    double ma = median(&a), mb = median(&b);
    double ea = a.n ? a.total / (double)a.n : 0, eb = b.n ? b.total / (double)b.n : 0;
    double pr = median(&r);
    const char *name = kind->rows[1];
    printf("%s speed-up %-20s median %.2fx mean %.2fx, per problem (median) %.2fx\n", name, m->name,
           mb > 0 ? ma / mb : 0, eb > 0 ? ea / eb : 0, pr);
    printf("figure c %s %s speedup_per_problem %.3f\n", name, m->name, pr);
    printf("figure c %s %s speedup_median %.3f\n", name, m->name, mb > 0 ? ma / mb : 0);
    printf("figure c %s %s speedup_mean %.3f\n", name, m->name, eb > 0 ? ea / eb : 0);
    int bad = a.mismatches + b.mismatches;
    stats_free(&a);
    stats_free(&b);
    stats_free(&r);
    return bad + (kind->table ? table_figures(m) : 0);
}

static void workload_totals(const jps_workload *kind) {
    const stats *a = &kind->all[0], *b = &kind->all[1];
    if (!a->n || !b->n || b->total <= 0) return;
    for (int k = 0; k < 2; k++) {
        const stats *t = k ? b : a;
        printf("figure c %s all problems %zu\n", kind->rows[k], t->n);
        printf("figure c %s all mean_us %.3f\n", kind->rows[k], t->total / (double)t->n * 1e6);
        printf("figure c %s all mismatches %d\n", kind->rows[k], t->mismatches);
    }
    printf("%s, all maps: %zu problems, %s %.1f us, %s %.1f us per query (%.2fx), %d wrong\n", kind->rows[1], b->n,
           kind->rows[0], a->total / (double)a->n * 1e6, kind->rows[1], b->total / (double)b->n * 1e6,
           a->total / b->total, a->mismatches + b->mismatches);
    printf("figure c %s all speedup_mean %.3f\n", kind->rows[1], a->total / b->total);
}

int jps_run(const bench_map *m) { return workload_run(m, &kinds[0]); }
int jps4_run(const bench_map *m) { return workload_run(m, &kinds[1]); }
int jpsplus_run(const bench_map *m) { return workload_run(m, &kinds[2]); }
int jpsplus4_run(const bench_map *m) { return workload_run(m, &kinds[3]); }
void jps_totals(void) { workload_totals(&kinds[0]); }
void jps4_totals(void) { workload_totals(&kinds[1]); }
void jpsplus_totals(void) { workload_totals(&kinds[2]); }
void jpsplus4_totals(void) { workload_totals(&kinds[3]); }
