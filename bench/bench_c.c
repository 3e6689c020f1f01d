/*
 * C benchmark over Moving AI maps: every scenario of each map, in the same run
 * checked against the scenario's optimal length, so a fast wrong answer cannot
 * hide.
 *
 *   ./build/bench_c [--workloads plain,penalties,refastar,islands,influence,field,graph,landmarks,
 *                    jps,jps4,jpsplus,jpsplus4,many,builds,hierarchy,interests,repair,deadends,doors]
 *                    [--sample N] DIR-or-MAP.map ...
 *
 * --sample N: of each map's problems, every (count / N)-th from the first (all when fewer
 * than 2N): N = 60 gives the 924 problems of issue 17 on the 15 maps of ../shared.
 *
 * Workloads:
 *   plain      terrain only, A* (JPS off, as in every workload but jps and jps4).
 *              Checked: every cost equals the optimum.
 *   penalties  one influence layer (a fixed pattern over a quarter of the cells)
 *              and claims from 8 units (the paths of the first 8 problems).
 *              Checked: found, and no cost below the optimum.
 *   refastar   the plain problems, each solved by our A* and right after by
 *              refastar (../shared/refastar, the bare A* issue 17 measures us
 *              against, compiled in when CMake finds its source), so that the two
 *              share the machine's state problem by problem: rows "ours" and
 *              "refastar", our time / refastar's per map (of the means, and the
 *              median of the per-problem ratios), and over all maps. Both checked
 *              like plain.
 *   influence  a 256x256 influence map updated as a game would each frame: 64
 *              units stamped (radius 6), one spread step over walkable cells (the
 *              first map's 256x256 corner, or open ground) and a decay; 200
 *              frames. Runs once, not per map; prints median and mean per frame.
 *   field      flow fields: a distance field to the goal of 10 problems spread over
 *              the scenario, each the whole map's cost to that goal (one build
 *              = one Dijkstra over the goal's island; "problems" = builds).
 *              Checked: each of those problems' start reads its optimum.
 *   islands    goals on another island than the start (on maps that have more
 *              than one): the query answered from the labels, against the same
 *              query with partial = 1, which searches the start's whole island
 *              as a search without labels would. Checked: unreachable.
 *   many       every plain problem of a map as one astar_find_many call, with 1
 *              thread, 2 and one per processor (best of 3 calls each, after a
 *              warm-up call, so workspaces exist); prints the time per call and
 *              the speed-up over 1 thread, with the cores the process got (CPU
 *              time over wall time: on a busy shared machine 2 threads may get
 *              about one) and its CPU time. Checked: every cost equals the optimum.
 *   graph      the map as a waypoint graph (astar_graph): every walkable cell a
 *              node, arcs to the 8 neighbours a no-corner-cut move reaches,
 *              with the default cost (the distance: 1 or sqrt 2), so the
 *              heuristic is the Euclidean distance at scale 1. The plain
 *              problems, one workspace. Checked like plain. Also prints the
 *              time to build the graph and to pack it (the first query).
 *   landmarks  the plain problems without, then with k landmarks (k = 8, or the
 *              environment's ASTAR_BENCH_LANDMARKS), built on the map: rows
 *              "no_landmarks" and "landmarks". Checked like plain, both times.
 *              Also prints the build time and the landmarks' memory.
 *   builds     landmark builds, k = 16 and 64 (or ASTAR_BENCH_LANDMARKS), and hierarchy
 *              builds, cluster size 16 and 256, on 1 and 2 threads, in one call and in
 *              slices of ASTAR_BENCH_BUILD_BUDGET units (20,000): wall time, and the
 *              longest and median slice. Checked: each leaves what the first did.
 *   jps        the plain problems with jump point search off (A*, "astar") and on
 *              ("jps"), query by query; prints the speed-up of median and mean, and
 *              the median over problems of each one's A* time / JPS time.
 *              Checked like plain, both. "expansions" under JPS: jump points.
 *   jps4       the same 4-connected ("astar4", "jps4"); JPS checked against A*.
 *   jpsplus    the plain problems with online JPS (ASTAR_JPS_ONLINE: scans, "online")
 *              and JPS+ (the default: the grid's jump table, "jpsplus"), query by
 *              query, both checked like plain, and their speed-ups as for jps. Also,
 *              on fresh copies of the map: the table's build time (first build with
 *              its allocation, then the median of 3 rebuilds), and set_cost's time
 *              per call, median over 1000 random walkable cells each blocked and
 *              reopened, with the table and without it (the difference is the table's
 *              local update); the table is then compared with a fresh build
 *              (a difference counts as wrong).
 *   jpsplus4   the same 4-connected ("online4", "jpsplus4"); JPS+ checked against
 *              online JPS's status and cost.
 *   interests  the plain problems without ("no_interests") and with ("interests") four
 *              pick-ups: walkable cells spread over the map by a fixed formula, each
 *              worth a tenth of the problem's optimum, back to back. Checked: without,
 *              the optimum; with, a score at most the optimum and a cost at least it.
 *   repair     a unit on a long path (the problems whose A* path has >= 64 cells) finds
 *              a cell ahead blocked: the cell half way, the unit 16 cells before it.
 *              Rows: "fresh" (a find from the unit to the goal, A*), "repair"
 *              (astar_repair, every later cell a rejoin) and "repair64" (only the 64
 *              cells beyond the blockage: a local repair); each query timed back to
 *              back on the same blocked map, then the cell reopened. Checked: repair's
 *              cost equals the fresh find's (the goal is a rejoin cell), repair64's is
 *              never below it.
 *   hierarchy  two-tier search (astar_find_hierarchical) on the problems whose optimum is
 *              512 or more, against plain A* (JPS off): rows "flat" (A*) and "hierarchy"
 *              (expansions of every tier), the build's time and memory, the cost ratio to
 *              the optimum (mean, median, 99th percentile, max) and the fallbacks; then the
 *              same problems with one influence layer (penalties' pattern), the two-tier cost
 *              against A*'s exact one. Cluster size 12, or ASTAR_BENCH_CLUSTER. Checked: found,
 *              no cost below the optimum.
 *   doors      a living world (issue 26), timed in CPU time. A gate: 1-3 cells across a narrow
 *              passage on a scenario's A* path (found the same way every run: the scenarios
 *              from the last back, each path from its middle out, preferring a gate the path
 *              can go around), and up to 3 problems whose paths cross it. Toggled 12 times
 *              (closed, open, ...) for each query kind, "defaults" (astar_query_init's: dead
 *              ends on, JPS+ on uniform maps), "influence" (penalties' layer) and "nojump"
 *              (A*): set_cost of the gate's cells, the first query, the same query again
 *              (median of 3); prints the median and max of first / again, and set_cost's
 *              median and max. A room: the largest dead-end area (astar_grid_dead_end) with at
 *              most a quarter of the open cells, its gateway the only door; closed, set_cost +
 *              the first find from outside into it (must be unreachable), then reopened; 3
 *              times per kind. First use: on a fresh copy of the map per kind, the first query
 *              and the same again, without and after preparing the grid (door_prepare:
 *              astar_grid_prepare and astar_search_prepare, what grid:prepare() does). Checked: every answer equals the same query's with dead
 *              ends off (to the bit; the defaults against A*, to 1e-9), the repeats the first
 *              to the bit, and with the gate open the scenario's optimum (influence: not
 *              below it).
 *
 * ASTAR_BENCH_EVERY=k in the environment keeps every k-th scenario of each map (the 1st, the
 * k+1st, ...), as bench/bench.lua does with the same variable: shorter runs, the same queries.
 * ASTAR_BENCH_CLOCK=cpu times queries in CPU time instead of wall time (see now()).
 *
 * Prints a table, then one "figure" line per number for scripts:
 *   figure c <workload> <map> <name> <value>
 * Exit status 1 on any mismatch.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "astar.h"
#include "jumps.h" /* internal: the table's build and check, for jpsplus */
#include "search.h" /* internal: astar_find_prepare, for doors (until grid:prepare is public) */
#ifdef ASTAR_REFASTAR_SOURCE
#include "refastar_link.h"
#endif

/* The clock of the timings: the wall (monotonic), or with ASTAR_BENCH_CLOCK=cpu the process's
 * CPU time, the clock Lua's os.clock reads (bench.lua --forms sets it, to compare like with
 * like on a shared machine, whose waits only the wall clock counts; not for workload many). */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now(void) {
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process, every thread: with the wall time, how many cores a call got. */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_int64_desc(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct stats {
    size_t n;
    double *times;
    double total;
    unsigned long long expansions;
    int mismatches;
} stats;

static void stats_add(stats *st, double dt, uint64_t expansions) {
    st->times[st->n++] = dt;
    st->total += dt;
    st->expansions += expansions;
}

static double median(stats *st) {
    if (!st->n) return 0;
    qsort(st->times, st->n, sizeof *st->times, cmp_double);
    return st->times[st->n / 2];
}

static void report(const char *workload, const char *map, stats *st) {
    double med = median(st) * 1e6, mean = st->n ? st->total / (double)st->n * 1e6 : 0;
    double mexp = st->total > 0 ? (double)st->expansions / st->total / 1e6 : 0;
    printf("%-10s %-20s %8zu %12llu %10.1f %10.1f %8.2f %6d\n", workload, map, st->n,
           st->expansions, med, mean, mexp, st->mismatches);
    printf("figure c %s %s problems %zu\n", workload, map, st->n);
    printf("figure c %s %s expansions %llu\n", workload, map, st->expansions);
    printf("figure c %s %s median_us %.3f\n", workload, map, med);
    printf("figure c %s %s mean_us %.3f\n", workload, map, mean);
    printf("figure c %s %s mexp_s %.3f\n", workload, map, mexp);
    printf("figure c %s %s mismatches %d\n", workload, map, st->mismatches);
}

static bool tolerant_equal(double cost, const astar_scenario *p) {
    return fabs(cost - p->optimal) <= fmax(1e-4 * p->optimal, p->precision);
}

static bool endpoints_open(astar_grid *g, const astar_scenario *p) {
    return astar_grid_get_cost(g, p->sx, p->sy) != INFINITY &&
           astar_grid_get_cost(g, p->gx, p->gy) != INFINITY;
}

/* A* unless a workload asks for JPS: plain stays the A* engine the yardstick, the callgrind
 * count and docs/performance.md's table measure, and the claims of penalties stay A*'s paths. */
static void query_for(astar_query *q, const astar_scenario *p) {
    astar_query_init(q);
    q->sx = p->sx, q->sy = p->sy, q->gx = p->gx, q->gy = p->gy;
    q->jps = ASTAR_JPS_OFF;
    /* The yardstick stays the loop alone (the deadends workload compares); ASTAR_BENCH_DEAD_ENDS=1
     * turns them on, for sh bench/callgrind.sh. */
    static int dead_ends = -1;
    if (dead_ends < 0) dead_ends = getenv("ASTAR_BENCH_DEAD_ENDS") && atoi(getenv("ASTAR_BENCH_DEAD_ENDS")) > 0;
    q->dead_ends = dead_ends;
}

static void run_plain(astar_grid *g, astar_search *s, const astar_scen *sc, stats *st) {
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        astar_query q;
        query_for(&q, p);
        astar_result res;
        double t0 = now();
        astar_status rc = astar_find(s, g, &q, &res);
        stats_add(st, now() - t0, res.expansions);
        if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) st->mismatches++;
    }
}

/*
 * The plain problems twice, each query with one engine (`first`: JPS off for A*, or online
 * JPS) and then the other (`second`), so the two share the machine's state problem by
 * problem. Both checked like plain. With `four`, the same problems 4-connected
 * (ASTAR_DIAG_NEVER), where the scenarios give no optimum: the second is checked against
 * the first's cost and status instead. One untimed query of each engine first: what a grid
 * builds once for all its queries (island labels, JPS+'s table: its build time is the
 * jpsplus workload's row "table") is not charged to the first problem.
 */
static void run_jps(astar_grid *g, astar_search *s, const astar_scen *sc, bool four, astar_jps first,
                    astar_jps second, stats *off, stats *on, stats *ratio) {
    for (int k = 0; k < 2 && sc->count > 0; k++) {
        astar_query q;
        query_for(&q, &sc->items[0]);
        if (four) q.diagonal = ASTAR_DIAG_NEVER;
        q.jps = k == 0 ? first : second;
        astar_result res;
        astar_find(s, g, &q, &res);
    }
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        astar_result res[2];
        astar_status rc[2];
        double took[2];
        for (int k = 0; k < 2; k++) {
            astar_query q;
            query_for(&q, p);
            if (four) q.diagonal = ASTAR_DIAG_NEVER;
            q.jps = k == 0 ? first : second;
            double t0 = now();
            rc[k] = astar_find(s, g, &q, &res[k]);
            took[k] = now() - t0;
            stats *st = k == 0 ? off : on;
            stats_add(st, took[k], res[k].expansions);
            if (!four && (rc[k] != ASTAR_OK || !tolerant_equal(res[k].cost, p))) st->mismatches++;
        }
        /* The two ran back to back: their ratio shrugs off the load of a shared machine
         * that the medians of each feel at different moments. */
        ratio->times[ratio->n++] = took[1] > 0 ? took[0] / took[1] : 0;
        if (four && (rc[0] != rc[1] || fabs(res[0].cost - res[1].cost) > 1e-9 * res[0].cost))
            on->mismatches++;
    }
}

/* The interests workload (see the top): rows no_interests and interests. */
static void run_interests(astar_grid *g, astar_search *s, const astar_scen *sc, stats *without,
                          stats *with) {
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
        double t0 = now();
        astar_status rc = astar_find(s, g, &q, &res);
        stats_add(without, now() - t0, res.expansions);
        if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) without->mismatches++;
        q.interests = cells;
        q.interest_values = values;
        q.ninterests = n;
        t0 = now();
        rc = astar_find(s, g, &q, &res);
        stats_add(with, now() - t0, res.expansions);
        double slack = fmax(1e-4 * p->optimal, p->precision);
        if (rc != ASTAR_OK || res.score > p->optimal + slack || res.cost < p->optimal - slack) with->mismatches++;
    }
}

/* The repair workload (see the top): rows fresh, repair, repair64; repair64's cost over the
 * fresh find's, summed and the largest. */
static double local_excess_sum, local_excess_max;

static void run_repair(astar_grid *g, astar_search *s, const astar_scen *sc, stats *fresh, stats *all,
                       stats *local) {
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
        double t0 = now();
        astar_status rc = astar_find(s, g, &r, &res);
        stats_add(fresh, now() - t0, res.expansions);
        double want = res.cost;
        if (rc != ASTAR_OK) fresh->mismatches++;
        for (int k = 0; k < 2; k++) {
            stats *st = k == 0 ? all : local;
            astar_repair_info how;
            t0 = now();
            rc = astar_repair(s, g, &q, path, n, from, k == 0 ? 0 : ASTAR_REPAIR_LOCAL, &res, &how);
            stats_add(st, now() - t0, res.expansions);
            bool ok = rc == ASTAR_OK && (k == 0 ? fabs(res.cost - want) <= 1e-9 * want : res.cost >= want - 1e-9 * want);
            if (!ok) st->mismatches++;
            if (k == 1 && ok && want > 0) {
                local_excess_sum += res.cost / want;
                if (res.cost / want > local_excess_max) local_excess_max = res.cost / want;
            }
        }
        astar_grid_set_cost(g, bx, by, was);
        free(path);
    }
}

/* The middle of n times (sorted in place). */
static double median_of(double *t, size_t n) {
    qsort(t, n, sizeof *t, cmp_double);
    return n ? t[n / 2] : 0;
}

/*
 * JPS+'s table on fresh copies of a map: its build time, and set_cost's time with and
 * without it (1000 random walkable cells, each blocked and reopened: 2000 calls each). Returns the
 * mismatches (a table kept in step that differs from a fresh build, or no table).
 */
static int run_jump_table(const char *map, const char *base) {
    size_t len;
    char err[256];
    char *text = read_file(map, &len);
    astar_grid *with = text ? astar_movingai_parse(text, len, NULL, err, sizeof err) : NULL;
    astar_grid *without = text ? astar_movingai_parse(text, len, NULL, err, sizeof err) : NULL;
    free(text);
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
    int wrong = astar_jumps_mismatches(with, 0) != 0;
    double upd_with = median_of(took[0], samples) * 1e6, upd_without = median_of(took[1], samples) * 1e6;
    double rb = median_of(rebuild, 3) * 1e3;
    printf("jpsplus table %-20s %dx%d: %.0f KiB, first build %.2f ms, rebuild %.2f ms; set_cost median %.2f us "
           "with the table, %.2f us without (update %.2f us)%s\n",
           base, (int)w, (int)h, (double)astar_jumps_bytes(with) / 1024.0, first * 1e3, rb, upd_with, upd_without,
           upd_with - upd_without, wrong ? "; TABLE DIFFERS FROM A FRESH BUILD" : "");
    printf("figure c jpsplus %s build_ms %.3f\n", base, rb);
    printf("figure c jpsplus %s set_cost_us %.3f\n", base, upd_with);
    printf("figure c jpsplus %s set_cost_without_us %.3f\n", base, upd_without);
    free(took[0]);
    free(took[1]);
    astar_grid_free(with);
    astar_grid_free(without);
    return wrong;
}

/* Whether the comma-separated list names the workload (whole names: "jps" is not "jps4"). */
static bool has_workload(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return true;
    return false;
}

/* The influence layer of the workloads that use one (penalties, deadends, hierarchy, doors, and
 * bench/bench.lua, bench/doors.lua): a quarter of the cells, in blocks of 8, valued 0.5 .. 2. */
static astar_layer *danger_layer(int32_t w, int32_t h) {
    astar_layer *danger = astar_layer_new(w, h, 0.0, NULL);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            if (((x / 8) + (y / 8)) % 4 == 0) astar_layer_set(danger, x, y, 0.5 + (x * 7 + y * 13) % 4 * 0.5);
    return danger;
}

static void run_penalties(astar_grid *g, astar_search *s, const astar_scen *sc, stats *st) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    astar_layer *danger = danger_layer(w, h);
    astar_claims *claims = astar_claims_new(w, h, NULL);
    for (int32_t i = 0, units = 0; i < sc->count && units < 8; i++) {
        astar_query q;
        query_for(&q, &sc->items[i]);
        astar_result res;
        if (!endpoints_open(g, &sc->items[i]) || astar_find(s, g, &q, &res) != ASTAR_OK) continue;
        int32_t n;
        const int32_t *path = astar_search_path(s, &n);
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
        double t0 = now();
        astar_status rc = astar_find(s, g, &q, &res);
        stats_add(st, now() - t0, res.expansions);
        if (rc != ASTAR_OK || res.cost < p->optimal - fmax(1e-4 * p->optimal, p->precision))
            st->mismatches++;
    }
    astar_claims_free(claims);
    astar_layer_free(danger);
}

/*
 * Dead ends (issue 18 item 3): every problem with A* (JPS off) without and with dead_ends,
 * back to back, on terrain alone (checked against the scenario's optimum) and with the
 * penalties workload's danger layer (checked: with == without). st: off, on, layer off, layer
 * on. Prints the cache's build (timed, untimed for the problems) and its reach.
 */
static void run_dead_ends(astar_grid *g, astar_search *s, const astar_scen *sc, const char *map,
                          stats *st) {
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
    printf("deadends   %-20s build %.2f ms, %lld areas, %lld of %lld open cells (%.1f%%) in dead ends\n", map,
           build * 1e3, (long long)areas, (long long)inside, (long long)open, open ? 100.0 * (double)inside / (double)open : 0);
    printf("figure c deadends %s build_ms %.3f\n", map, build * 1e3);
    printf("figure c deadends %s share %.4f\n", map, open ? (double)inside / (double)open : 0);
    astar_layer *danger = danger_layer(w, h);
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
                double t1 = now();
                astar_status rc = astar_find(s, g, &q, &res);
                stats *to = &st[2 * layered + on];
                stats_add(to, now() - t1, res.expansions);
                cost[on] = rc == ASTAR_OK ? res.cost : -1;
                if (!layered && (rc != ASTAR_OK || !tolerant_equal(res.cost, p))) to->mismatches++;
            }
            if (layered && cost[0] != cost[1]) st[3].mismatches++;
        }
    }
    astar_layer_free(danger);
}

#ifdef ASTAR_REFASTAR_SOURCE
/* Our plain A* and refastar, problem by problem; ratio: ours / refastar's per problem. */
static void run_refastar(astar_grid *g, astar_search *s, const astar_scen *sc, const char *map_path,
                         stats *ours, stats *ref, stats *ratio) {
    refastar_map *r = refastar_load(map_path);
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        astar_query q;
        query_for(&q, p);
        astar_result res;
        double t0 = now();
        astar_status rc = astar_find(s, g, &q, &res);
        double took = now() - t0;
        stats_add(ours, took, res.expansions);
        if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) ours->mismatches++;
        uint64_t expansions = 0;
        t0 = now();
        double cost = refastar_find(r, p->sx, p->sy, p->gx, p->gy, &expansions);
        double ref_took = now() - t0;
        stats_add(ref, ref_took, expansions);
        if (!tolerant_equal(cost, p)) ref->mismatches++;
        ratio->times[ratio->n++] = ref_took > 0 ? took / ref_took : 0;
    }
    refastar_free(r);
}
#endif

/* Keeps every (count / n)-th problem from the first, when there are at least 2n. */
static void sample(astar_scen *sc, int32_t n) {
    if (n <= 0 || sc->count < 2 * n) return;
    int32_t stride = sc->count / n, kept = 0;
    for (int32_t i = 0; i < sc->count; i += stride) sc->items[kept++] = sc->items[i];
    sc->count = kept;
}

static void run_influence(astar_grid *first_map) {
    enum { SIDE = 256, UNITS = 64, FRAMES = 200 };
    astar_grid *walk = astar_grid_new(SIDE, SIDE, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    if (first_map)
        for (int32_t y = 0; y < SIDE && y < astar_grid_height(first_map); y++)
            for (int32_t x = 0; x < SIDE && x < astar_grid_width(first_map); x++)
                astar_grid_set_cost(walk, x, y, astar_grid_get_cost(first_map, x, y));
    astar_layer *inf = astar_layer_new(SIDE, SIDE, 0.0, NULL);
    stats st = {0};
    st.times = malloc(FRAMES * sizeof(double));
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
        stats_add(&st, now() - t0, 0);
    }
    double mean = st.total / FRAMES * 1e6, med = median(&st) * 1e6;
    printf("influence  %dx%d: %d units stamped, spread, decay: median %.1f us, mean %.1f us per frame\n",
           SIDE, SIDE, UNITS, med, mean);
    printf("figure c influence 256x256 median_us %.3f\n", med);
    printf("figure c influence 256x256 mean_us %.3f\n", mean);
    free(st.times);
    astar_layer_free(inf);
    astar_grid_free(walk);
}

/* Up to 200 problems whose goal is moved to a cell of another island. */
static void run_islands(astar_grid *g, astar_search *s, const astar_scen *sc, stats *labels,
                        stats *search) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    int32_t *id = malloc((size_t)w * (size_t)h * sizeof *id);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) astar_grid_component(g, x, y, &id[y * w + x]);
    uint32_t seed = 12345;
    for (int32_t i = 0; i < sc->count && labels->n < 200; i++) {
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
        double t0 = now();
        astar_status rc = astar_find(s, g, &q, &res);
        stats_add(labels, now() - t0, res.expansions);
        if (rc != ASTAR_UNREACHABLE) labels->mismatches++;
        q.partial = 1;
        t0 = now();
        rc = astar_find(s, g, &q, &res);
        stats_add(search, now() - t0, res.expansions);
        if (rc != ASTAR_PARTIAL || res.reason != ASTAR_UNREACHABLE) search->mismatches++;
    }
    free(id);
}

/* The map as a waypoint graph; see the header comment. */
static void run_graph(astar_grid *grid, const astar_scen *sc, const char *map, stats *st) {
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
        astar_status rc = astar_graph_find(s, g, &q, &res);
        stats_add(st, now() - t0, res.expansions);
        if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) st->mismatches++;
    }
    printf("graph      %s: %d nodes, %d arcs, built in %.1f ms, packed in %.1f ms\n", map,
           (int)astar_graph_node_count(g), (int)astar_graph_arc_count(g), built * 1e3, packed * 1e3);
    printf("figure c graph %s build_ms %.3f\n", map, built * 1e3);
    printf("figure c graph %s pack_ms %.3f\n", map, packed * 1e3);
    astar_graph_search_free(s);
    astar_graph_free(g);
    free(id);
}

static void run_landmarks(astar_grid *g, astar_search *s, const astar_scen *sc, const char *map,
                          stats *without, stats *with) {
    const char *env = getenv("ASTAR_BENCH_LANDMARKS");
    int32_t k = env ? atoi(env) : 8;
    run_plain(g, s, sc, without);
    double t0 = now();
    astar_status rc = astar_grid_landmarks(g, k);
    double built = now() - t0;
    if (rc != ASTAR_OK) {
        fprintf(stderr, "bench_c: landmarks(%d) on %s: %s\n", (int)k, map, astar_status_name(rc));
        with->mismatches++;
        return;
    }
    int32_t placed = astar_grid_landmark_count(g);
    double mib = (double)astar_grid_landmark_bytes(g) / (1 << 20);
    run_plain(g, s, sc, with);
    astar_grid_landmarks(g, 0);
    printf("landmarks  %s: %d placed, built in %.1f ms, %.1f MiB, expansions %.2fx fewer\n", map,
           (int)placed, built * 1e3, mib,
           with->expansions ? (double)without->expansions / (double)with->expansions : 0.0);
    printf("figure c landmarks %s k %d\n", map, (int)placed);
    printf("figure c landmarks %s build_ms %.3f\n", map, built * 1e3);
    printf("figure c landmarks %s memory_mib %.1f\n", map, mib);
}

/* What a build left on the grid: the landmarks' cells, or the hierarchy's counts. */
static int32_t build_signature(astar_grid *g, bool hierarchy, int64_t *sig) {
    if (hierarchy) {
        astar_hierarchy_stats hs;
        astar_grid_hierarchy_stats(g, &hs);
        sig[0] = hs.entrances, sig[1] = hs.edges, sig[2] = hs.dirty;
        return 3;
    }
    int32_t count = astar_grid_landmark_count(g), x, y;
    for (int32_t i = 0; i < count; i++) astar_grid_landmark(g, i, &x, &y), sig[2 * i] = x, sig[2 * i + 1] = y;
    return 2 * count;
}

/* Builds (issue 18 item 5): landmarks k = 16 and 64 (or ASTAR_BENCH_LANDMARKS) and the
 * hierarchy at cluster sizes 16 and 256, on 1 and 2 threads, in one call and in slices of
 * ASTAR_BENCH_BUILD_BUDGET units (20,000): the wall time of each, and the longest and
 * median slice. Checked: every build of a kind leaves what the first one did. */
static void run_builds(astar_grid *g, const char *map, int *bad) {
    const char *env = getenv("ASTAR_BENCH_LANDMARKS"), *benv = getenv("ASTAR_BENCH_BUILD_BUDGET");
    int32_t ks[4] = {16, 64, 16, 256};
    bool hier[4] = {false, false, true, true};
    int first_k = 0;
    if (env) ks[1] = atoi(env), first_k = 1;
    bool tiers = astar_grid_diagonal(g) != ASTAR_DIAG_ALWAYS && astar_grid_diagonal(g) != ASTAR_DIAG_HEX;
    uint64_t budget = benv ? (uint64_t)atoll(benv) : 20000;
    for (int ki = first_k; ki < (tiers ? 4 : 2); ki++) {
        int32_t k = ks[ki], sig_len = -1;
        int64_t first[ASTAR_MAX_LANDMARKS * 2], sig[ASTAR_MAX_LANDMARKS * 2];
        const char *what = hier[ki] ? "size" : "k", *tag = hier[ki] ? "h" : "k";
        for (int threads = 1; threads <= 2; threads++) {
            for (int sliced = 0; sliced <= 1; sliced++) {
                astar_status st;
                astar_build *b = hier[ki] ? astar_build_hierarchy(g, k, threads, &st)
                                          : astar_build_landmarks(g, k, threads, &st);
                if (!b) return (void)(*bad)++;
                size_t cap = 1024, n = 0;
                double *slices = malloc(cap * sizeof *slices), *cpu = malloc(cap * sizeof *cpu), t0 = now();
                do { /* wall and CPU time: on a shared machine a slice may wait for a core */
                    double s0 = now(), c0 = cpu_now();
                    st = astar_build_step(b, sliced ? budget : UINT64_MAX, NULL);
                    if (n == cap) {
                        cap *= 2;
                        slices = realloc(slices, cap * sizeof *slices);
                        cpu = realloc(cpu, cap * sizeof *cpu);
                    }
                    cpu[n] = cpu_now() - c0;
                    slices[n++] = now() - s0;
                } while (st == ASTAR_RUNNING);
                double total = now() - t0;
                astar_build_free(b);
                if (st != ASTAR_OK) (*bad)++;
                int32_t len = build_signature(g, hier[ki], sig);
                bool same = sig_len < 0 || (len == sig_len && !memcmp(sig, first, (size_t)len * sizeof *sig));
                if (sig_len < 0) sig_len = len, memcpy(first, sig, (size_t)len * sizeof *sig);
                if (!same) (*bad)++;
                qsort(slices, n, sizeof *slices, cmp_double);
                qsort(cpu, n, sizeof *cpu, cmp_double);
                printf("build      %s %s %s %d threads %d %s: %.1f ms", map, hier[ki] ? "hierarchy" : "landmarks",
                       what, (int)k, threads, sliced ? "sliced" : "whole", total * 1e3);
                if (sliced)
                    printf(", %zu slices of %llu: longest %.2f ms, median %.2f ms (CPU: longest %.2f, median %.2f)",
                           n, (unsigned long long)budget, slices[n - 1] * 1e3, slices[n / 2] * 1e3,
                           cpu[n - 1] * 1e3, cpu[n / 2] * 1e3);
                printf("%s\n", same ? "" : " MISMATCH");
                printf("figure c build %s %s%d_t%d_%s_ms %.3f\n", map, tag, (int)k, threads,
                       sliced ? "sliced" : "whole", total * 1e3);
                if (sliced) {
                    printf("figure c build %s %s%d_t%d_slice_max_ms %.3f\n", map, tag, (int)k, threads, slices[n - 1] * 1e3);
                    printf("figure c build %s %s%d_t%d_slice_median_ms %.3f\n", map, tag, (int)k, threads, slices[n / 2] * 1e3);
                }
                free(slices);
                free(cpu);
            }
        }
        if (hier[ki]) astar_grid_hierarchy(g, 0);
        else astar_grid_landmarks(g, 0);
    }
}

/* The distribution of cost ratios: mean, median, 99th percentile and max, as figures. */
static void ratio_figures(const char *what, const char *map, double *r, size_t n) {
    if (!n) return;
    qsort(r, n, sizeof *r, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += r[i];
    size_t within = 0;
    for (size_t i = 0; i < n; i++) within += r[i] <= 1.02;
    printf("%-10s %s: cost / best mean %.4f, median %.4f, p99 %.4f, max %.4f; %.1f%% within 1.02\n", what,
           map, sum / (double)n, r[n / 2], r[(size_t)(0.99 * (double)(n - 1))], r[n - 1],
           100.0 * (double)within / (double)n);
    printf("figure c %s %s ratio_mean %.5f\n", what, map, sum / (double)n);
    printf("figure c %s %s ratio_median %.5f\n", what, map, r[n / 2]);
    printf("figure c %s %s ratio_max %.5f\n", what, map, r[n - 1]);
    printf("figure c %s %s within_1_02 %.4f\n", what, map, (double)within / (double)n);
}

static void run_hierarchy(astar_grid *g, astar_search *s, const astar_scen *sc, const char *map,
                          stats *flat, stats *tiered) {
    const char *env = getenv("ASTAR_BENCH_CLUSTER");
    int32_t size = env ? (int32_t)strtol(env, NULL, 10) : 12;
    double t0 = cpu_now();
    astar_status rc = astar_grid_hierarchy(g, size);
    double built = cpu_now() - t0;
    if (rc != ASTAR_OK) {
        fprintf(stderr, "bench_c: hierarchy(%d) on %s: %s\n", (int)size, map, astar_status_name(rc));
        flat->mismatches++;
        return;
    }
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    astar_layer *danger = danger_layer(w, h);
    astar_layer_ref layers[1] = {{danger, 1.0}};
    double *ratio = malloc(((size_t)sc->count + 1) * sizeof *ratio);
    double *layered = malloc(((size_t)sc->count + 1) * sizeof *layered);
    size_t n = 0, nl = 0;
    uint64_t abstract = 0, flat_layered = 0, tiered_layered = 0;
    int fallbacks = 0;
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (p->optimal < 512 || !endpoints_open(g, p)) continue;
        astar_query q;
        query_for(&q, p);
        astar_result res;
        double t1 = now();
        rc = astar_find(s, g, &q, &res);
        stats_add(flat, now() - t1, res.expansions);
        if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) flat->mismatches++;
        t1 = now();
        rc = astar_find_hierarchical(s, g, &q, &res);
        stats_add(tiered, now() - t1, res.expansions);
        abstract += res.abstract_expansions;
        fallbacks += res.fallback;
        if (rc != ASTAR_OK || res.cost < p->optimal - fmax(1e-4 * p->optimal, p->precision))
            tiered->mismatches++;
        else
            ratio[n++] = res.cost / p->optimal;
        q.layers = layers;
        q.nlayers = 1;
        astar_result exact;
        if (astar_find(s, g, &q, &exact) != ASTAR_OK) continue;
        flat_layered += exact.expansions;
        if (astar_find_hierarchical(s, g, &q, &res) != ASTAR_OK || res.cost < exact.cost * (1 - 1e-9)) {
            tiered->mismatches++;
            continue;
        }
        tiered_layered += res.expansions;
        layered[nl++] = res.cost / exact.cost;
    }
    astar_hierarchy_stats hs;
    astar_grid_hierarchy_stats(g, &hs);
    double mib = (double)hs.bytes / (1024.0 * 1024.0);
    printf("hierarchy  %s: cluster %d, %d clusters, %lld entrances, %lld arcs, built in %.1f ms (CPU), "
           "%.2f MiB; expansions %.1fx fewer (abstract %llu of %llu), %d fallbacks\n",
           map, (int)size, (int)hs.clusters, (long long)hs.entrances, (long long)hs.edges, built * 1e3, mib,
           tiered->expansions ? (double)flat->expansions / (double)tiered->expansions : 0,
           (unsigned long long)abstract, tiered->expansions, fallbacks);
    printf("figure c hierarchy %s cluster %d\n", map, (int)size);
    printf("figure c hierarchy %s build_ms %.3f\n", map, built * 1e3);
    printf("figure c hierarchy %s memory_mib %.3f\n", map, mib);
    printf("figure c hierarchy %s fewer_expansions %.3f\n", map,
           tiered->expansions ? (double)flat->expansions / (double)tiered->expansions : 0);
    printf("figure c hierarchy %s abstract_expansions %llu\n", map, (unsigned long long)abstract);
    printf("figure c hierarchy %s fallbacks %d\n", map, fallbacks);
    ratio_figures("hierarchy", map, ratio, n);
    printf("figure c hier_influence %s fewer_expansions %.3f\n", map,
           tiered_layered ? (double)flat_layered / (double)tiered_layered : 0);
    printf("hier_influence %s: expansions %.1fx fewer than exact A*\n", map,
           tiered_layered ? (double)flat_layered / (double)tiered_layered : 0);
    ratio_figures("hier_influence", map, layered, nl);
    free(ratio);
    free(layered);
    astar_layer_free(danger);
    astar_grid_hierarchy(g, 0);
}

/* Batch times of the `many` workload, summed over maps: 1 thread, 2, one per processor. */
static double many_total[3];

static void run_many(astar_grid *g, const astar_scen *sc, const char *map, int *bad) {
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
    astar_many *m = astar_many_new(astar_grid_width(g), astar_grid_height(g), NULL);
    astar_query q;
    astar_query_init(&q);
    int cores = astar_many_default_threads();
    int threads[3] = {1, 2, cores};
    astar_find_many(m, g, &q, e, n, cores > 2 ? cores : 2, res); /* warm-up */
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
            astar_status st = astar_find_many(m, g, &q, e, n, threads[k], res);
            double dt = now() - t0;
            if (dt < best) best = dt, cores_used = (cpu_now() - c0) / dt;
            wrong = st != ASTAR_OK;
            for (int32_t i = 0; i < n; i++)
                if (res[i].status != ASTAR_OK || !tolerant_equal(res[i].cost, &sc->items[which[i]])) wrong++;
        }
        if (k == 0) t1 = best;
        took[k] = best;
        many_total[k] += best;
        *bad += wrong;
        printf("many       %-20s %8d threads %2d: %9.2f ms per call, %5.2fx 1 thread, "
               "%.2f cores busy (%.1f ms of CPU), %d wrong\n", map, (int)n, threads[k], best * 1e3,
               t1 / best, cores_used, cores_used * best * 1e3, wrong);
        printf("figure c many %s threads_%d_ms %.3f\n", map, threads[k], best * 1e3);
        printf("figure c many %s speedup_%d %.3f\n", map, threads[k], t1 / best);
        printf("figure c many %s cores_busy_%d %.3f\n", map, threads[k], cores_used);
        printf("figure c many %s cpu_ms_%d %.3f\n", map, threads[k], cores_used * best * 1e3);
    }
    astar_many_free(m);
    free(res);
    free(which);
    free(e);
}

static void run_field(astar_grid *g, astar_search *s, const astar_scen *sc, stats *st) {
    astar_field *f = astar_field_new(astar_grid_width(g), astar_grid_height(g), NULL);
    if (!f) {
        st->mismatches++;
        return;
    }
    int builds = sc->count < 10 ? sc->count : 10;
    for (int k = 0; k < builds; k++) {
        const astar_scenario *p = &sc->items[(int64_t)k * sc->count / builds];
        if (!endpoints_open(g, p)) continue;
        astar_query q;
        astar_query_init(&q);
        int32_t goal = p->gy * astar_grid_width(g) + p->gx;
        astar_result res;
        double t0 = now();
        astar_status rc = astar_field_build(f, s, g, &q, &goal, 1, ASTAR_FIELD_TO, &res);
        stats_add(st, now() - t0, res.expansions);
        if (rc != ASTAR_OK || !tolerant_equal(astar_field_distance(f, p->sx, p->sy), p)) st->mismatches++;
    }
    astar_field_free(f);
}

/*
 * Doors (issue 26, "a living world"): see the top. Timed in CPU time, the clock, whatever
 * ASTAR_BENCH_CLOCK says. Every answer is checked against the same query with dead ends off
 * (and A* for the defaults' JPS): after a toggle the scenario's optimum no longer holds, so
 * that is the oracle there; with the gate open, the cost must also be the scenario's optimum
 * (the influence kind: not below it).
 */
enum { DOOR_TOGGLES = 12, DOOR_AGAIN = 3, DOOR_QUERIES = 3, DOOR_KINDS = 3, DOOR_SCAN = 100, DOOR_CYCLES = 3 };
static const char *const door_kinds[DOOR_KINDS] = {"defaults", "influence", "nojump"};

typedef struct door_world {
    astar_grid *g;
    astar_search *s;
    astar_layer_ref layers[1]; /* the influence kind's */
    int32_t w;
} door_world;

/* A query of a kind between two node ids: defaults (astar_query_init's: dead ends on, JPS+ on a
 * uniform map), influence (danger_layer) or nojump (A*). The reference: the same with dead ends
 * off, and A* for the defaults. */
static void door_query(astar_query *q, const door_world *d, int kind, bool reference, int32_t from, int32_t to) {
    astar_query_init(q);
    q->sx = from % d->w, q->sy = from / d->w, q->gx = to % d->w, q->gy = to / d->w;
    if (kind == 1) q->layers = d->layers, q->nlayers = 1;
    if (kind == 2 || (reference && kind == 0)) q->jps = ASTAR_JPS_OFF;
    if (reference) q->dead_ends = 0;
}

/* One find, its CPU time in seconds. */
static double door_find(const door_world *d, const astar_query *q, astar_result *res) {
    double t0 = cpu_now();
    astar_find(d->s, d->g, q, res);
    return cpu_now() - t0;
}

/* The same status and, when found, the same cost: to the bit, or within 1e-9 where JPS and A*
 * are compared (they add a line's diagonal steps in another order). */
static bool door_same(const astar_result *a, const astar_result *b, bool relative) {
    if (a->status != b->status) return false;
    if (a->status != ASTAR_OK) return true;
    return relative ? fabs(a->cost - b->cost) <= 1e-9 * b->cost : a->cost == b->cost;
}

/* A* 's path (no dead ends, no JPS) between two node ids, copied; NULL when none. */
static int32_t *door_path(const door_world *d, int32_t from, int32_t to, int32_t *n) {
    astar_query q;
    door_query(&q, d, 2, true, from, to);
    astar_result res;
    if (astar_find(d->s, d->g, &q, &res) != ASTAR_OK) return NULL;
    const int32_t *found = astar_search_path(d->s, n);
    int32_t *path = malloc((size_t)*n * sizeof *path);
    memcpy(path, found, (size_t)*n * sizeof *path);
    return path;
}

static int32_t node_of(const astar_grid *g, int32_t x, int32_t y) { return y * astar_grid_width(g) + x; }

/* The walkable cells in line with node `at` along (dx, dy), both ways from it, into run (room
 * for max + 1): how many, counting no further than max + 1. */
static int32_t door_run(const astar_grid *g, int32_t at, int dx, int dy, int32_t *run, int32_t max) {
    int32_t w = astar_grid_width(g), n = 0;
    run[n++] = at;
    for (int side = -1; side <= 1; side += 2)
        for (int32_t k = 1; n <= max; k++) {
            int32_t x = at % w + side * k * dx, y = at / w + side * k * dy;
            if (!(astar_grid_get_cost(g, x, y) < INFINITY)) break; /* blocked, or outside (NaN) */
            run[n++] = y * w + x;
        }
    return n;
}

static void door_set(astar_grid *g, const int32_t *cells, int32_t n, const double *cost) {
    int32_t w = astar_grid_width(g);
    for (int32_t i = 0; i < n; i++) astar_grid_set_cost(g, cells[i] % w, cells[i] / w, cost ? cost[i] : INFINITY);
}

typedef struct door_gate {
    int32_t n, cells[3]; /* node ids */
    double was[3];       /* their costs, open */
    int32_t problem;     /* the scenario whose path it was found on */
} door_gate;

/*
 * A gate, the same every run: on the A* paths of the scenarios from the last (the longest)
 * back, from each path's middle outwards, a cell whose walkable run across the path's step (the
 * other axis for a straight step, the shorter of the two for a diagonal one) is at most 3
 * cells, walls at both ends: closed, the path cannot pass there. Preferred: a gate the path
 * can go around (the problem stays reachable, so the query after a toggle searches); else
 * the first found.
 */
static bool door_find_gate(const door_world *d, const astar_scen *sc, door_gate *gate) {
    astar_grid *g = d->g;
    bool have = false;
    int scanned = 0;
    for (int32_t i = sc->count - 1; i >= 0 && scanned < DOOR_SCAN; i--) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        scanned++;
        int32_t n, *path = door_path(d, node_of(g, p->sx, p->sy), node_of(g, p->gx, p->gy), &n);
        for (int32_t j = 0; path && j < n; j++) {
            int32_t k = n / 2 + (j % 2 ? -(j + 1) / 2 : j / 2); /* the middle first */
            if (k < 16 || k >= n - 16) continue; /* away from the endpoints */
            int32_t a = path[k], b = path[k + 1], run[4], best[4], nb = 4;
            int dx = b % d->w - a % d->w, dy = b / d->w - a / d->w;
            for (int axis = 0; axis < 2; axis++) { /* 0: a row, across a step that moves in y */
                if (axis == 0 ? dy == 0 : dx == 0) continue;
                int32_t m = door_run(g, a, axis == 0, axis == 1, run, 3);
                if (m < nb) nb = m, memcpy(best, run, (size_t)m * sizeof *run);
            }
            if (nb > 3) continue;
            door_gate found = {nb, {0}, {0}, i};
            for (int32_t c = 0; c < nb; c++) found.cells[c] = best[c], found.was[c] = astar_grid_get_cost(g, best[c] % d->w, best[c] / d->w);
            door_set(g, found.cells, nb, NULL);
            int around = 0;
            astar_grid_reachable(g, p->sx, p->sy, p->gx, p->gy, &around);
            door_set(g, found.cells, nb, found.was);
            if (!have || around) *gate = found, have = true;
            if (around) {
                free(path);
                return true;
            }
        }
        free(path);
    }
    return have;
}

/* The scenarios the toggles query: the gate's own, then those (from the last back) whose A*
 * path crosses the gate, with no endpoint on it; up to DOOR_QUERIES. */
static int door_queries(const door_world *d, const astar_scen *sc, const door_gate *gate, int32_t *which) {
    int n = 0, scanned = 0;
    which[n++] = gate->problem;
    for (int32_t i = sc->count - 1; i >= 0 && n < DOOR_QUERIES && scanned < DOOR_SCAN; i--) {
        const astar_scenario *p = &sc->items[i];
        if (i == gate->problem || !endpoints_open(d->g, p)) continue;
        scanned++;
        int32_t from = node_of(d->g, p->sx, p->sy), to = node_of(d->g, p->gx, p->gy), len;
        bool crosses = false, on = false;
        for (int32_t c = 0; c < gate->n; c++) on |= gate->cells[c] == from || gate->cells[c] == to;
        int32_t *path = on ? NULL : door_path(d, from, to, &len);
        for (int32_t k = 0; path && k < len && !crosses; k++)
            for (int32_t c = 0; c < gate->n; c++) crosses |= path[k] == gate->cells[c];
        free(path);
        if (crosses) which[n++] = i;
    }
    return n;
}

typedef struct door_room {
    int32_t door, inside, outside; /* node ids: the gateway, a cell in the room, one outside */
    int64_t size;                  /* the room's cells, the areas nested in it included */
    double was;                    /* the door's cost, open */
} door_room;

/*
 * A room with a one-cell door, the same every run: of the dead-end areas (astar_grid_dead_end:
 * everything behind one gateway cell, nested areas included), the largest that holds at most
 * a quarter of the walkable cells, so that its outside is the larger side. Inside: its first
 * cell in row order; outside: the start of the last scenario that reaches it and lies outside.
 * Checked with astar_grid_reachable: reachable with the door open, not with it closed.
 */
static bool door_find_room(const door_world *d, const astar_scen *sc, door_room *room) {
    astar_grid *g = d->g;
    int32_t w = d->w, h = astar_grid_height(g), nareas = 0, area, gate;
    int32_t *of = malloc((size_t)w * (size_t)h * sizeof *of);
    int64_t open = 0;
    for (int32_t c = 0; c < w * h; c++) {
        of[c] = -1;
        if (astar_grid_get_cost(g, c % w, c / w) == INFINITY) continue;
        open++;
        astar_grid_dead_end(g, c % w, c / w, &of[c], &gate);
        if (of[c] + 1 > nareas) nareas = of[c] + 1;
    }
    int32_t *parent = malloc(((size_t)nareas + 1) * sizeof *parent), *door = malloc(((size_t)nareas + 1) * sizeof *door);
    int64_t *size = calloc((size_t)nareas + 1, sizeof *size);
    for (int32_t a = 0; a < nareas; a++) door[a] = parent[a] = -1;
    for (int32_t c = 0; c < w * h; c++)
        if (of[c] >= 0 && door[of[c]] < 0) {
            astar_grid_dead_end(g, c % w, c / w, &area, &door[of[c]]);
            parent[of[c]] = of[door[of[c]]]; /* the area holding its gateway */
            if (parent[of[c]] == of[c]) parent[of[c]] = -1; /* (a gateway is outside its area) */
        }
    for (int32_t c = 0; c < w * h; c++) /* each cell counts in its area and every one around it */
        for (int32_t a = of[c]; a >= 0; a = parent[a]) size[a]++;
    /* The areas by size, largest first; of those with at most a quarter of the open cells, the
     * first with a scenario start outside it on its island (island labels: no search). */
    int64_t *order = malloc(((size_t)nareas + 1) * sizeof *order);
    for (int32_t a = 0; a < nareas; a++) order[a] = size[a] << 32 | a;
    qsort(order, (size_t)nareas, sizeof *order, cmp_int64_desc);
    bool ok = false;
    for (int32_t k = 0; k < nareas && !ok; k++) {
        int32_t best = (int32_t)(order[k] & 0xFFFFFFFF), island, there;
        if (size[best] > open / 4) continue;
        room->door = door[best], room->size = size[best];
        room->was = astar_grid_get_cost(g, room->door % w, room->door / w);
        for (room->inside = 0; of[room->inside] != best; room->inside++) {}
        astar_grid_component(g, room->inside % w, room->inside / w, &island);
        for (int32_t i = sc->count - 1; i >= 0 && !ok; i--) {
            const astar_scenario *p = &sc->items[i];
            int32_t from = node_of(g, p->sx, p->sy);
            bool in = false;
            for (int32_t a = of[from]; a >= 0 && !in; a = parent[a]) in = a == best;
            if (in || from == room->door || astar_grid_component(g, p->sx, p->sy, &there) != ASTAR_OK ||
                there != island)
                continue;
            int no = 1; /* and closed, the door cuts it off */
            astar_grid_set_cost(g, room->door % w, room->door / w, INFINITY);
            astar_grid_reachable(g, p->sx, p->sy, room->inside % w, room->inside / w, &no);
            astar_grid_set_cost(g, room->door % w, room->door / w, room->was);
            ok = !no;
            room->outside = from;
            break; /* the door cuts the room off from every start or none */
        }
    }
    free(order);
    free(of);
    free(parent);
    free(door);
    free(size);
    return ok;
}

/* A distribution's median and largest value (sorted in place), as a line's figures. */
static void door_figures(const char *map, const char *name, double *v, size_t n, double scale) {
    double med = median_of(v, n) * scale, max = n ? v[n - 1] * scale : 0;
    printf("figure c doors %s %s_median %.4f\n", map, name, med);
    printf("figure c doors %s %s_max %.4f\n", map, name, max);
}

/* grid:prepare() at level load (issue 26): the grid's lazy tables (astar_grid_prepare) and
 * the workspace's per-cell arrays (astar_search_prepare), as the Lua binding's prepare does. */
static astar_status door_prepare(const door_world *d) {
    astar_status st = astar_grid_prepare(d->g, ASTAR_DIAG_DEFAULT);
    return st == ASTAR_OK ? astar_search_prepare(d->s, d->g, ASTAR_DIAG_DEFAULT) : st;
}

static void run_doors(astar_grid *g, astar_search *s, const astar_scen *sc, const char *path, const char *map,
                      int *bad) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    astar_layer *danger = danger_layer(w, h);
    door_world d = {g, s, {{danger, 1.0}}, w};
    door_gate gate;
    int32_t which[DOOR_QUERIES];
    if (!door_find_gate(&d, sc, &gate)) {
        printf("doors      %-20s no gate of 1-3 cells on the scenarios' paths\n", map);
        astar_layer_free(danger);
        return;
    }
    int nq = door_queries(&d, sc, &gate, which);
    door_room room = {0}; /* chosen before any toggle: the dead ends read on the map as loaded */
    bool have_room = door_find_room(&d, sc, &room);
    printf("doors      %-20s gate of %d cells at (%d,%d) on problem %d, %d problems cross it\n", map, (int)gate.n,
           (int)(gate.cells[0] % w), (int)(gate.cells[0] / w), (int)gate.problem, nq);

    /* 1. The gate toggled DOOR_TOGGLES times per kind: set_cost, the first query, the same again. */
    double set[DOOR_KINDS * DOOR_TOGGLES];
    size_t nset = 0;
    for (int kind = 0; kind < DOOR_KINDS; kind++) {
        double ratio[DOOR_TOGGLES], first[DOOR_TOGGLES], again[DOOR_TOGGLES], known[DOOR_TOGGLES];
        int wrong = 0;
        for (int k = 0; k < nq; k++) { /* the tables exist before the first toggle */
            const astar_scenario *p = &sc->items[which[k]];
            astar_query q;
            door_query(&q, &d, kind, false, node_of(g, p->sx, p->sy), node_of(g, p->gx, p->gy));
            astar_result res;
            door_find(&d, &q, &res);
        }
        for (int t = 0; t < DOOR_TOGGLES; t++) {
            bool closed = t % 2 == 0;
            const astar_scenario *p = &sc->items[which[(t / 2) % nq]]; /* each problem closed and open */
            int32_t from = node_of(g, p->sx, p->sy), to = node_of(g, p->gx, p->gy);
            astar_query q;
            door_query(&q, &d, kind, false, from, to);
            astar_result res, rep, ref;
            /* The query once before the toggle, as a unit asks every frame: what the first one
             * after it pays beyond the repeat is the toggle's doing (work it left, or caches its
             * own work evicted), not the previous check's reference search or a new problem. */
            door_find(&d, &q, &res);
            double t0 = cpu_now();
            door_set(g, gate.cells, gate.n, closed ? NULL : gate.was);
            set[nset++] = cpu_now() - t0;
            first[t] = door_find(&d, &q, &res);
            double times[DOOR_AGAIN];
            for (int r = 0; r < DOOR_AGAIN; r++) {
                times[r] = door_find(&d, &q, &rep);
                if (!door_same(&res, &rep, false)) wrong++;
            }
            again[t] = median_of(times, DOOR_AGAIN);
            ratio[t] = again[t] > 0 ? first[t] / again[t] : 0;
            /* The same terrain after two more toggles, its route run before: what the toggle
             * itself leaves, without the cold caches of a route the query had never run. */
            door_set(g, gate.cells, gate.n, closed ? gate.was : NULL);
            door_set(g, gate.cells, gate.n, closed ? NULL : gate.was);
            known[t] = door_find(&d, &q, &rep);
            if (!door_same(&res, &rep, false)) wrong++;
            known[t] = again[t] > 0 ? known[t] / again[t] : 0;
            door_query(&q, &d, kind, true, from, to);
            astar_find(s, g, &q, &ref);
            double slack = fmax(1e-4 * p->optimal, p->precision);
            bool ok = door_same(&res, &ref, kind == 0);
            if (kind != 1 && !closed) ok = ok && res.status == ASTAR_OK && tolerant_equal(res.cost, p);
            else if (res.status == ASTAR_OK) ok = ok && res.cost >= p->optimal - slack;
            wrong += !ok;
        }
        double mr = median_of(ratio, DOOR_TOGGLES), mf = median_of(first, DOOR_TOGGLES) * 1e3,
               ma = median_of(again, DOOR_TOGGLES) * 1e3;
        double mk = median_of(known, DOOR_TOGGLES);
        printf("doors      %-20s %-9s first query after a toggle / the same again: median %.2fx, max %.2fx; "
               "first %.3f ms, again %.3f ms (medians of %d); on a route run before (two more toggles): "
               "median %.2fx, max %.2fx; %d wrong\n",
               map, door_kinds[kind], mr, ratio[DOOR_TOGGLES - 1], mf, ma, DOOR_TOGGLES, mk,
               known[DOOR_TOGGLES - 1], wrong);
        char name[64];
        snprintf(name, sizeof name, "%s_known_ratio", door_kinds[kind]);
        door_figures(map, name, known, DOOR_TOGGLES, 1);
        snprintf(name, sizeof name, "%s_ratio", door_kinds[kind]);
        door_figures(map, name, ratio, DOOR_TOGGLES, 1);
        snprintf(name, sizeof name, "%s_first_ms", door_kinds[kind]);
        door_figures(map, name, first, DOOR_TOGGLES, 1e3);
        snprintf(name, sizeof name, "%s_again_ms", door_kinds[kind]);
        door_figures(map, name, again, DOOR_TOGGLES, 1e3);
        printf("figure c doors %s %s_wrong %d\n", map, door_kinds[kind], wrong);
        *bad += wrong;
    }
    double mset = median_of(set, nset) * 1e3; /* sorts: the largest is last */
    printf("doors      %-20s set_cost of the gate: median %.4f ms, max %.4f ms\n", map, mset, set[nset - 1] * 1e3);
    door_figures(map, "set_cost_ms", set, nset, 1e3);

    /* 2. A room's only door closes: set_cost + the first find into the room, then reopened. */
    if (!have_room) {
        printf("doors      %-20s no room with a one-cell door\n", map);
    } else {
        printf("doors      %-20s room of %lld cells, door (%d,%d), from (%d,%d) to (%d,%d)\n", map,
               (long long)room.size, (int)(room.door % w), (int)(room.door / w), (int)(room.outside % w),
               (int)(room.outside / w), (int)(room.inside % w), (int)(room.inside / w));
        for (int kind = 0; kind < DOOR_KINDS; kind++) {
            double shut[DOOR_CYCLES], reopen[DOOR_CYCLES];
            uint64_t expanded = 0;
            int wrong = 0;
            astar_query q, ref;
            door_query(&q, &d, kind, false, room.outside, room.inside);
            door_query(&ref, &d, kind, true, room.outside, room.inside);
            astar_result res, want;
            door_find(&d, &q, &res); /* the tables exist before the door moves */
            astar_find(s, g, &ref, &want);
            for (int c = 0; c < DOOR_CYCLES; c++) {
                double t0 = cpu_now();
                astar_grid_set_cost(g, room.door % w, room.door / w, INFINITY);
                astar_find(s, g, &q, &res);
                shut[c] = cpu_now() - t0;
                expanded = res.expansions;
                wrong += res.status != ASTAR_UNREACHABLE;
                t0 = cpu_now();
                astar_grid_set_cost(g, room.door % w, room.door / w, room.was);
                astar_find(s, g, &q, &res);
                reopen[c] = cpu_now() - t0;
                wrong += !door_same(&res, &want, kind == 0) || res.status != ASTAR_OK;
            }
            double ms = median_of(shut, DOOR_CYCLES) * 1e3, mo = median_of(reopen, DOOR_CYCLES) * 1e3;
            printf("doors      %-20s %-9s door closes: set_cost + first find %.3f ms (median of %d, max %.3f), "
                   "%s after %llu expansions; reopens: %.3f ms; %d wrong\n",
                   map, door_kinds[kind], ms, DOOR_CYCLES, shut[DOOR_CYCLES - 1] * 1e3,
                   wrong ? "WRONG" : "unreachable", (unsigned long long)expanded, mo, wrong);
            char name[64];
            snprintf(name, sizeof name, "room_%s_close_ms", door_kinds[kind]);
            door_figures(map, name, shut, DOOR_CYCLES, 1e3);
            snprintf(name, sizeof name, "room_%s_open_ms", door_kinds[kind]);
            door_figures(map, name, reopen, DOOR_CYCLES, 1e3);
            printf("figure c doors %s room_%s_wrong %d\n", map, door_kinds[kind], wrong);
            *bad += wrong;
        }
    }

    /* 3. First use: on a fresh copy of the map per kind, its first query and the same again,
     * without and then after door_prepare (grid:prepare()). The workspace is warm, as the Lua
     * binding's are after the first query of a game. */
    size_t len;
    char *text = read_file(path, &len), err[256];
    const astar_scenario *p = &sc->items[which[0]];
    int32_t from = node_of(g, p->sx, p->sy), to = node_of(g, p->gx, p->gy);
    for (int kind = 0; kind < DOOR_KINDS && text; kind++) {
        double ratio[2] = {0}, first[2] = {0}, again[2] = {0}, prep = 0;
        int wrong = 0;
        for (int prepared = 0; prepared < 2; prepared++) {
            door_world fresh = d;
            fresh.g = astar_movingai_parse(text, len, NULL, err, sizeof err);
            if (!fresh.g) break;
            if (prepared) {
                double t0 = cpu_now();
                wrong += door_prepare(&fresh) != ASTAR_OK;
                prep = cpu_now() - t0;
            }
            astar_query q;
            door_query(&q, &fresh, kind, false, from, to);
            astar_result res, rep;
            first[prepared] = door_find(&fresh, &q, &res);
            double times[DOOR_AGAIN];
            for (int r = 0; r < DOOR_AGAIN; r++) {
                times[r] = door_find(&fresh, &q, &rep);
                wrong += !door_same(&res, &rep, false);
            }
            again[prepared] = median_of(times, DOOR_AGAIN);
            ratio[prepared] = again[prepared] > 0 ? first[prepared] / again[prepared] : 0;
            wrong += res.status != ASTAR_OK || (kind != 1 && !tolerant_equal(res.cost, p));
            astar_grid_free(fresh.g);
        }
        printf("doors      %-20s %-9s first use: first query %.3f ms, again %.3f ms (%.2fx); after prepare "
               "(%.2f ms): %.3f ms, again %.3f ms (%.2fx); %d wrong\n",
               map, door_kinds[kind], first[0] * 1e3, again[0] * 1e3, ratio[0], prep * 1e3, first[1] * 1e3,
               again[1] * 1e3, ratio[1], wrong);
        printf("figure c doors %s %s_cold_ratio %.4f\n", map, door_kinds[kind], ratio[0]);
        printf("figure c doors %s %s_cold_first_ms %.4f\n", map, door_kinds[kind], first[0] * 1e3);
        printf("figure c doors %s %s_prepared_ratio %.4f\n", map, door_kinds[kind], ratio[1]);
        printf("figure c doors %s %s_prepared_first_ms %.4f\n", map, door_kinds[kind], first[1] * 1e3);
        /* What the first query costs more, in ms: after prepare, on a query of a few hundred
         * jump points, mostly cache misses (callgrind counts the same instructions for the two
         * on Paris), which a ratio to 0.05 ms magnifies. */
        printf("figure c doors %s %s_cold_excess_ms %.4f\n", map, door_kinds[kind], (first[0] - again[0]) * 1e3);
        printf("figure c doors %s %s_prepared_excess_ms %.4f\n", map, door_kinds[kind], (first[1] - again[1]) * 1e3);
        printf("figure c doors %s %s_prepare_ms %.4f\n", map, door_kinds[kind], prep * 1e3);
        *bad += wrong;
    }
    free(text);
    astar_layer_free(danger);
}

/* The .map files named, directories expanded (sorted). */
static size_t collect_maps(int argc, char **argv, int first, char ***out) {
    size_t n = 0, cap = 16;
    char **maps = malloc(cap * sizeof *maps);
    for (int i = first; i < argc; i++) {
        size_t len = strlen(argv[i]);
        if (len > 4 && strcmp(argv[i] + len - 4, ".map") == 0) {
            if (n == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
            maps[n++] = strdup(argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "bench_c: %s is neither a .map file nor a directory\n", argv[i]);
            exit(2);
        }
        size_t from = n;
        for (struct dirent *e; (e = readdir(d));) {
            size_t el = strlen(e->d_name);
            if (el <= 4 || strcmp(e->d_name + el - 4, ".map") != 0) continue;
            if (n == cap) maps = realloc(maps, (cap *= 2) * sizeof *maps);
            maps[n] = malloc(len + el + 2);
            sprintf(maps[n++], "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        qsort(maps + from, n - from, sizeof *maps, cmp_str);
    }
    *out = maps;
    return n;
}

/* Keeps every k-th scenario of sc, k = $ASTAR_BENCH_EVERY (default 1: all). */
static void keep_every(astar_scen *sc) {
    const char *env = getenv("ASTAR_BENCH_EVERY");
    long k = env ? strtol(env, NULL, 10) : 1;
    if (k <= 1) return;
    int32_t n = 0;
    for (int32_t i = 0; i < sc->count; i += (int32_t)k) sc->items[n++] = sc->items[i];
    sc->count = n;
}

int main(int argc, char **argv) {
    const char *clock_env = getenv("ASTAR_BENCH_CLOCK");
    if (clock_env && strcmp(clock_env, "cpu") == 0) bench_clock = CLOCK_PROCESS_CPUTIME_ID;
    int first = 1;
    const char *workloads = "plain,penalties";
    int32_t per_map = 0;
    for (; first + 1 < argc; first += 2) {
        if (strcmp(argv[first], "--workloads") == 0) workloads = argv[first + 1];
        else if (strcmp(argv[first], "--sample") == 0) per_map = atoi(argv[first + 1]);
        else break;
    }
    if (first >= argc || argv[first][0] == '-' || per_map < 0) {
        fprintf(stderr, "usage: %s [--workloads plain,penalties,refastar,islands,influence,field,graph,landmarks,jps,jps4,jpsplus,jpsplus4,many,builds,hierarchy,interests,repair,deadends,doors] [--sample N] DIR-or-MAP.map ...\n",
                argv[0]);
        return 2;
    }
    bool plain = strstr(workloads, "plain") != NULL, penalties = strstr(workloads, "penalties") != NULL,
         islands = strstr(workloads, "islands") != NULL,
         refastar = strstr(workloads, "refastar") != NULL,
         influence = strstr(workloads, "influence") != NULL,
         field = strstr(workloads, "field") != NULL,
         graph = strstr(workloads, "graph") != NULL,
         landmarks = strstr(workloads, "landmarks") != NULL,
         jps = has_workload(workloads, "jps"), jps4 = has_workload(workloads, "jps4"),
         jpsplus = has_workload(workloads, "jpsplus"), jpsplus4 = has_workload(workloads, "jpsplus4"),
         many = strstr(workloads, "many") != NULL, repair = has_workload(workloads, "repair"),
         interests = has_workload(workloads, "interests"), builds = strstr(workloads, "builds") != NULL,
         hierarchy = strstr(workloads, "hierarchy") != NULL,
         dead_ends = strstr(workloads, "deadends") != NULL, doors = has_workload(workloads, "doors");
#ifndef ASTAR_REFASTAR_SOURCE
    if (refastar) {
        fprintf(stderr, "bench_c: built without refastar (CMake: ASTAR_REFASTAR_SOURCE)\n");
        return 2;
    }
#endif
    char **maps;
    size_t nmaps = collect_maps(argc, argv, first, &maps);
    printf("%-10s %-20s %8s %12s %10s %10s %8s %6s\n", "workload", "map", "problems", "expansions",
           "median_us", "mean_us", "Mexp/s", "wrong");
    stats all[5] = {{0}};
    stats jump_all[4][2] = {{{0}}};
    stats dead_all[4] = {{0}}; /* dead ends off, on; with a layer off, on */ /* per jump workload: its A* (or online) row and its jump row */
    int bad = 0;
    for (size_t m = 0; m < nmaps; m++) {
        size_t len;
        char err[256], scen_path[4096];
        char *text = read_file(maps[m], &len);
        astar_grid *g = text ? astar_movingai_parse(text, len, NULL, err, sizeof err) : NULL;
        free(text);
        snprintf(scen_path, sizeof scen_path, "%s.scen", maps[m]);
        text = read_file(scen_path, &len);
        astar_scen *sc = text ? astar_scen_parse(text, len, NULL, err, sizeof err) : NULL;
        free(text);
        if (!g || !sc) {
            fprintf(stderr, "bench_c: cannot load %s or its .scen: %s\n", maps[m], err);
            return 1;
        }
        if (per_map > 0) sample(sc, per_map); /* --sample wins over ASTAR_BENCH_EVERY */
        else keep_every(sc);
        const char *base = strrchr(maps[m], '/');
        base = base ? base + 1 : maps[m];
        astar_search *s = astar_search_new(astar_grid_width(g), astar_grid_height(g), NULL);
        stats st[19];
        for (int k = 0; k < 19; k++) {
            st[k] = (stats){0};
            st[k].times = malloc(((size_t)sc->count + 1) * sizeof(double));
        }
        if (plain) {
            run_plain(g, s, sc, &st[0]);
            report("plain", base, &st[0]);
        }
        if (penalties) {
            run_penalties(g, s, sc, &st[1]);
            report("penalties", base, &st[1]);
        }
#ifdef ASTAR_REFASTAR_SOURCE
        if (refastar) {
            stats ratio = {0};
            ratio.times = malloc(((size_t)sc->count + 1) * sizeof(double));
            run_refastar(g, s, sc, maps[m], &st[4], &st[11], &ratio);
            report("ours", base, &st[4]);
            report("refastar", base, &st[11]);
            double ours_mean = st[4].n ? st[4].total / (double)st[4].n : 0;
            double ref_mean = st[11].n ? st[11].total / (double)st[11].n : 0;
            double pr = median(&ratio);
            free(ratio.times);
            printf("vs refastar %-20s mean %.2fx, per problem (median) %.2fx\n", base,
                   ref_mean > 0 ? ours_mean / ref_mean : 0, pr);
            printf("figure c refastar %s ratio_mean %.3f\n", base, ref_mean > 0 ? ours_mean / ref_mean : 0);
            printf("figure c refastar %s ratio_per_problem %.3f\n", base, pr);
        }
#endif
        if (islands) {
            run_islands(g, s, sc, &st[2], &st[3]);
            if (st[2].n) {
                report("islands", base, &st[2]);
                report("no_islands", base, &st[3]);
            }
        }
        if (field) {
            run_field(g, s, sc, &st[6]);
            report("field", base, &st[6]);
        }
        if (graph) {
            run_graph(g, sc, base, &st[5]);
            report("graph", base, &st[5]);
        }
        if (landmarks) {
            run_landmarks(g, s, sc, base, &st[7], &st[8]);
            report("no_landmarks", base, &st[7]);
            report("landmarks", base, &st[8]);
        }
        if (many) run_many(g, sc, base, &bad);
        if (builds) run_builds(g, base, &bad);
        if (interests) {
            stats *a = &st[12], *b = &st[13];
            for (int k = 12; k < 14; k++) st[k].n = 0, st[k].total = 0, st[k].expansions = 0;
            run_interests(g, s, sc, a, b);
            report("no_interests", base, a);
            report("interests", base, b);
            double ma = median(a), mb = median(b);
            printf("interests %-20s expansions %.2fx, median time %.2fx those without\n", base,
                   a->expansions ? (double)b->expansions / (double)a->expansions : 0, ma > 0 ? mb / ma : 0);
            bad += a->mismatches + b->mismatches;
            a->mismatches = b->mismatches = 0;
        }
        if (repair) {
            stats *f = &st[12], *r = &st[13], *l = &st[14];
            for (int k = 12; k < 15; k++) st[k].n = 0, st[k].total = 0, st[k].expansions = 0;
            local_excess_sum = local_excess_max = 0;
            run_repair(g, s, sc, f, r, l);
            report("fresh", base, f);
            report("repair", base, r);
            report("repair64", base, l);
            double mf = median(f), mr = median(r), ml = median(l);
            printf("repair %-20s expansions %.2fx and %.2fx fewer, median time %.2fx and %.2fx faster\n", base,
                   r->expansions ? (double)f->expansions / (double)r->expansions : 0,
                   l->expansions ? (double)f->expansions / (double)l->expansions : 0, mr > 0 ? mf / mr : 0,
                   ml > 0 ? mf / ml : 0);
            printf("repair64 %-20s cost / fresh find's: mean %.4f, max %.4f\n", base,
                   l->n ? local_excess_sum / (double)l->n : 0, local_excess_max);
            printf("figure c repair64 %s cost_ratio_mean %.5f\n", base, l->n ? local_excess_sum / (double)l->n : 0);
            printf("figure c repair64 %s cost_ratio_max %.5f\n", base, local_excess_max);
            bad += f->mismatches + r->mismatches + l->mismatches;
            f->mismatches = r->mismatches = l->mismatches = 0;
        }
        if (hierarchy) {
            stats *a = &st[9], *b = &st[10];
            a->n = b->n = 0, a->total = b->total = 0, a->expansions = b->expansions = 0;
            run_hierarchy(g, s, sc, base, a, b);
            report("flat", base, a);
            report("hierarchy", base, b);
            bad += a->mismatches + b->mismatches;
            a->mismatches = b->mismatches = 0;
        }
        if (dead_ends) {
            static const char *names[4] = {"de_off", "de_on", "de_off_inf", "de_on_inf"};
            run_dead_ends(g, s, sc, base, &st[15]);
            for (int k = 0; k < 4; k++) {
                report(names[k], base, &st[15 + k]);
                dead_all[k].total += st[15 + k].total;
                dead_all[k].expansions += st[15 + k].expansions;
                dead_all[k].n += st[15 + k].n;
                dead_all[k].mismatches += st[15 + k].mismatches;
            }
        }
        if (doors) run_doors(g, s, sc, maps[m], base, &bad);
        if (influence && m == 0) run_influence(g);
        for (int run = 0; run < 4; run++) { /* jps, jps4, jpsplus, jpsplus4 */
            bool four = run % 2, plus = run >= 2;
            if (!(plus ? (four ? jpsplus4 : jpsplus) : (four ? jps4 : jps))) continue;
            static const char *names[4][2] = {{"astar", "jps"}, {"astar4", "jps4"}, {"online", "jpsplus"},
                                               {"online4", "jpsplus4"}};
            stats *a = &st[9], *b = &st[10];
            a->n = b->n = 0, a->total = b->total = 0, a->expansions = b->expansions = 0;
            stats r = {0};
            r.times = malloc(((size_t)sc->count + 1) * sizeof(double));
            run_jps(g, s, sc, four, plus ? ASTAR_JPS_ONLINE : ASTAR_JPS_OFF, ASTAR_JPS_AUTO, a, b, &r);
            report(names[run][0], base, a);
            report(names[run][1], base, b);
            for (int k = 0; k < 2; k++) {
                stats *from = k ? b : a;
                jump_all[run][k].total += from->total;
                jump_all[run][k].expansions += from->expansions;
                jump_all[run][k].n += from->n;
                jump_all[run][k].mismatches += from->mismatches;
            }
            double ma = median(a), mb = median(b);
            double ea = a->n ? a->total / (double)a->n : 0, eb = b->n ? b->total / (double)b->n : 0;
            double pr = median(&r);
            free(r.times);
            const char *name = names[run][1];
            printf("%s speed-up %-20s median %.2fx mean %.2fx, per problem (median) %.2fx\n", name, base,
                   mb > 0 ? ma / mb : 0, eb > 0 ? ea / eb : 0, pr);
            printf("figure c %s %s speedup_per_problem %.3f\n", name, base, pr);
            printf("figure c %s %s speedup_median %.3f\n", name, base, mb > 0 ? ma / mb : 0);
            printf("figure c %s %s speedup_mean %.3f\n", name, base, eb > 0 ? ea / eb : 0);
            bad += a->mismatches + b->mismatches;
            a->mismatches = b->mismatches = 0;
            if (run == 2) bad += run_jump_table(maps[m], base);
        }
        for (int k = 0; k < 19; k++) bad += st[k].mismatches;
        for (int k = 0; k < 5; k++) {
            stats *from = &st[k == 2 ? 4 : k == 3 ? 5 : k == 4 ? 11 : k];
            all[k].total += from->total;
            all[k].expansions += from->expansions;
            all[k].n += from->n;
            all[k].mismatches += from->mismatches;
        }
        for (int k = 0; k < 19; k++) free(st[k].times);
        astar_search_free(s);
        astar_scen_free(sc);
        astar_grid_free(g);
        free(maps[m]);
        fflush(stdout);
    }
    const char *names[5] = {"plain", "penalties", "ours", "graph", "refastar"};
    for (int k = 0; k < 5; k++) {
        if (!all[k].n) continue;
        double mexp = all[k].total > 0 ? (double)all[k].expansions / all[k].total / 1e6 : 0;
        printf("figure c %s all problems %zu\n", names[k], all[k].n);
        printf("figure c %s all expansions %llu\n", names[k], all[k].expansions);
        printf("figure c %s all mean_us %.3f\n", names[k], all[k].total / (double)all[k].n * 1e6);
        printf("figure c %s all mexp_s %.3f\n", names[k], mexp);
        printf("figure c %s all mismatches %d\n", names[k], all[k].mismatches);
        printf("%s, all maps: %zu problems, %llu expansions, %.2f M expansions/s, %d wrong\n",
               names[k], all[k].n, all[k].expansions, mexp, all[k].mismatches);
    }
    if (all[2].n && all[4].n && all[4].total > 0) {
        double ratio = (all[2].total / (double)all[2].n) / (all[4].total / (double)all[4].n);
        printf("vs refastar, all maps: %zu problems, ours %.1f us, refastar %.1f us per query: %.2fx\n",
               all[2].n, all[2].total / (double)all[2].n * 1e6, all[4].total / (double)all[4].n * 1e6, ratio);
        printf("figure c refastar all ratio_mean %.3f\n", ratio);
    }
    for (int run = 0; run < 4; run++) {
        static const char *jump_names[4][2] = {{"astar", "jps"}, {"astar4", "jps4"}, {"online", "jpsplus"},
                                               {"online4", "jpsplus4"}};
        stats *a = &jump_all[run][0], *b = &jump_all[run][1];
        if (!a->n || !b->n || b->total <= 0) continue;
        for (int k = 0; k < 2; k++) {
            stats *t = k ? b : a;
            printf("figure c %s all problems %zu\n", jump_names[run][k], t->n);
            printf("figure c %s all mean_us %.3f\n", jump_names[run][k], t->total / (double)t->n * 1e6);
            printf("figure c %s all mismatches %d\n", jump_names[run][k], t->mismatches);
        }
        printf("%s, all maps: %zu problems, %s %.1f us, %s %.1f us per query (%.2fx), %d wrong\n",
               jump_names[run][1], b->n, jump_names[run][0], a->total / (double)a->n * 1e6,
               jump_names[run][1], b->total / (double)b->n * 1e6, a->total / b->total,
               a->mismatches + b->mismatches);
        printf("figure c %s all speedup_mean %.3f\n", jump_names[run][1], a->total / b->total);
    }
    for (int k = 0; k < 4 && dead_ends; k += 2) {
        stats *a = &dead_all[k], *b = &dead_all[k + 1];
        if (!a->n || b->total <= 0) continue;
        const char *what = k ? "with a layer" : "terrain";
        printf("dead ends (%s), all maps: %zu problems, expansions %llu -> %llu (%.3fx), time %.1f -> %.1f us "
               "per query (%.3fx), %d wrong\n", what, a->n, a->expansions, b->expansions,
               (double)b->expansions / (double)a->expansions, a->total / (double)a->n * 1e6,
               b->total / (double)b->n * 1e6, b->total / a->total, a->mismatches + b->mismatches);
        printf("figure c deadends%s all expansion_ratio %.4f\n", k ? "_inf" : "", (double)b->expansions / (double)a->expansions);
        printf("figure c deadends%s all time_ratio %.4f\n", k ? "_inf" : "", b->total / a->total);
    }
    if (many && many_total[0] > 0) {
        int cores = astar_many_default_threads();
        printf("many, all maps: 2 threads %.2fx, %d threads %.2fx one thread\n",
               many_total[0] / many_total[1], cores, many_total[0] / many_total[2]);
        printf("figure c many all speedup_2 %.3f\n", many_total[0] / many_total[1]);
        printf("figure c many all speedup_%d %.3f\n", cores, many_total[0] / many_total[2]);
    }
    free(maps);
    return bad ? 1 : 0;
}
