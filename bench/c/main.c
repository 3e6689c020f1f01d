/*
 * C benchmark over Moving AI maps: every scenario of each map, in the same run checked against
 * the scenario's optimal length, so a fast wrong answer cannot hide.
 *
 *   ./build/bench_c [--workloads NAME,NAME...] [--sample N] DIR-or-MAP.map ...
 *
 * The workloads are the table below, run in its order whatever the order of the list (default:
 * plain,penalties); an unknown name is an error that lists them. Each is described at the top of
 * its file: grid.c (plain, islands, field, interests, many), penalties.c (penalties, classes, size1-3,
 * influence),
 * refastar.c, graph.c, builds.c (landmarks, builds, hierarchy), repair.c, deadends.c, doors.c,
 * jps.c (jps, jps4, jpsplus, jpsplus4).
 *
 * --sample N: of each map's problems, every (count / N)-th from the first (all when fewer than
 * 2N): N = 60 gives the 924 problems of issue 17 on the 15 maps of ../shared.
 * ASTAR_BENCH_EVERY=k in the environment keeps every k-th scenario of each map (the 1st, the
 * k+1st, ...), as bench/bench.lua does with the same variable: shorter runs, the same queries.
 * ASTAR_BENCH_CLOCK=cpu times queries in CPU time instead of wall time (common.c).
 *
 * Prints a table, then one "figure" line per number for scripts:
 *   figure c <workload> <map> <name> <value>
 * (map "all": a total over the maps). Exit status 1 on any mismatch, 2 on a bad command line.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The workloads, in the order they run on each map (luafilesystem's members[] style). */
static const bench_workload workloads[] = {
    {"plain", plain_run, plain_totals},
    {"penalties", penalties_run, penalties_totals},
    {"classes", classes_run, classes_totals},
    {"size1", size1_run, size1_totals},
    {"size2", size2_run, size2_totals},
    {"size3", size3_run, size3_totals},
#ifdef ASTAR_REFASTAR_SOURCE
    {"refastar", refastar_run, refastar_totals},
#else
    {"refastar", NULL, NULL}, /* built without its source: asking for it is an error */
#endif
    {"islands", islands_run, NULL},
    {"field", field_run, NULL},
    {"graph", graph_run, graph_totals},
    {"landmarks", landmarks_run, NULL},
    {"many", many_run, many_totals},
    {"builds", builds_run, NULL},
    {"interests", interests_run, NULL},
    {"repair", repair_run, NULL},
    {"hierarchy", hierarchy_run, NULL},
    {"deadends", deadends_run, deadends_totals},
    {"doors", doors_run, NULL},
    {"influence", influence_run, NULL},
    {"jps", jps_run, jps_totals},
    {"jps4", jps4_run, jps4_totals},
    {"jpsplus", jpsplus_run, jpsplus_totals},
    {"jpsplus4", jpsplus4_run, jpsplus4_totals},
    {NULL, NULL, NULL},
};

/* The names, comma-separated, to stderr. */
static void list_workloads(void) {
    for (const bench_workload *w = workloads; w->name; w++)
        fprintf(stderr, "%s%s", w->name, w[1].name ? "," : "\n");
}

/* Marks the workloads the comma-separated list names, whole names only. Returns false, having
 * said so, on a name the table does not hold or one not built in. */
static bool select_workloads(const char *list, bool *on) {
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        const bench_workload *w = workloads;
        while (w->name && !(strlen(w->name) == len && strncmp(w->name, p, len) == 0)) w++;
        if (!w->name) {
            fprintf(stderr, "bench_c: unknown workload '%.*s'; the workloads: ", (int)len, p);
            list_workloads();
            return false;
        }
        if (!w->run) {
            fprintf(stderr, "bench_c: built without %s (CMake: ASTAR_REFASTAR_SOURCE)\n", w->name);
            return false;
        }
        on[w - workloads] = true;
        p += len + (p[len] == ',');
    }
    return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

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

/* Keeps every (count / n)-th problem from the first, when there are at least 2n. */
static void sample(astar_scen *sc, int32_t n) {
    if (n <= 0 || sc->count < 2 * n) return;
    int32_t stride = sc->count / n, kept = 0;
    for (int32_t i = 0; i < sc->count; i += stride) sc->items[kept++] = sc->items[i];
    sc->count = kept;
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

/* A map and its scenarios (MAP.map.scen), sampled; false, having said so, when either fails. */
static bool load_map(const char *path, int32_t per_map, astar_grid **g, astar_scen **sc) {
    size_t len;
    char err[256] = "", scen_path[4096];
    *g = load_grid(path, err, sizeof err);
    snprintf(scen_path, sizeof scen_path, "%s.scen", path);
    char *text = read_file(scen_path, &len);
    *sc = text ? astar_scen_parse(text, len, NULL, err, sizeof err) : NULL;
    free(text);
    if (!*g || !*sc) {
        fprintf(stderr, "bench_c: cannot load %s or its .scen: %s\n", path, err);
        return false;
    }
    if (per_map > 0) sample(*sc, per_map); /* --sample wins over ASTAR_BENCH_EVERY */
    else keep_every(*sc);
    return true;
}

int main(int argc, char **argv) {
    clock_from_env();
    int first = 1;
    const char *list = "plain,penalties";
    int32_t per_map = 0;
    for (; first + 1 < argc; first += 2) {
        if (strcmp(argv[first], "--workloads") == 0) list = argv[first + 1];
        else if (strcmp(argv[first], "--sample") == 0) per_map = atoi(argv[first + 1]);
        else break;
    }
    if (first >= argc || argv[first][0] == '-' || per_map < 0) {
        fprintf(stderr, "usage: %s [--workloads NAME,NAME...] [--sample N] DIR-or-MAP.map ...\nworkloads: ",
                argv[0]);
        list_workloads();
        return 2;
    }
    bool on[sizeof workloads / sizeof *workloads] = {false};
    if (!select_workloads(list, on)) return 2;
    char **maps;
    size_t nmaps = collect_maps(argc, argv, first, &maps);
    printf("%-10s %-20s %8s %12s %10s %10s %8s %6s\n", "workload", "map", "problems", "expansions",
           "median_us", "mean_us", "Mexp/s", "wrong");
    int bad = 0;
    for (size_t i = 0; i < nmaps; i++) {
        astar_grid *g;
        astar_scen *sc;
        if (!load_map(maps[i], per_map, &g, &sc)) return 1;
        const char *base = strrchr(maps[i], '/');
        bench_map m = {maps[i], base ? base + 1 : maps[i], g,
                       astar_search_new(astar_grid_width(g), astar_grid_height(g), NULL), sc, i == 0};
        for (const bench_workload *w = workloads; w->name; w++)
            if (on[w - workloads]) bad += w->run(&m);
        astar_search_free(m.search);
        astar_scen_free(sc);
        astar_grid_free(g);
        free(maps[i]);
        fflush(stdout);
    }
    for (const bench_workload *w = workloads; w->name; w++)
        if (on[w - workloads] && w->totals) w->totals();
    free(maps);
    return bad ? 1 : 0;
}
