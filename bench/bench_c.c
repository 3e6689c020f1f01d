/*
 * C benchmark over Moving AI maps: every scenario of each map, costs checked
 * against the scenario's optimal length in the same run.
 *
 *   ./build/bench_c ../shared/data/movingai/lak303d.map [more.map ...]
 *
 * (The loader here is a plain one for the benchmark; the library's own
 * Moving AI parser arrives with issue 3.)
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "astar.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static astar_grid *load_map(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    int w = 0, h = 0;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "height %d", &h) == 1) continue;
        if (sscanf(line, "width %d", &w) == 1) continue;
        if (strncmp(line, "map", 3) == 0) break;
    }
    astar_grid *g = w > 0 && h > 0 ? astar_grid_new(w, h, ASTAR_DIAG_NO_CORNER_CUT, NULL) : NULL;
    for (int y = 0; g && y < h; y++) {
        if (!fgets(line, sizeof line, f)) break;
        for (int x = 0; x < w; x++) {
            char c = line[x];
            int open = c == '.' || c == 'G' || c == 'S';
            astar_grid_set_cost(g, x, y, open ? 1.0 : INFINITY);
        }
    }
    fclose(f);
    return g;
}

typedef struct problem {
    int sx, sy, gx, gy;
    double optimal;
} problem;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MAP.map [MAP.map ...]\n", argv[0]);
        return 2;
    }
    int mismatches_total = 0;
    printf("%-16s %8s %12s %10s %10s %10s\n", "map", "problems", "expansions", "median_us",
           "mean_us", "Mexp/s");
    for (int m = 1; m < argc; m++) {
        astar_grid *g = load_map(argv[m]);
        if (!g) {
            fprintf(stderr, "cannot load %s\n", argv[m]);
            return 1;
        }
        char scen_path[4096];
        snprintf(scen_path, sizeof scen_path, "%s.scen", argv[m]);
        FILE *f = fopen(scen_path, "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", scen_path);
            return 1;
        }
        size_t n = 0, cap = 1024;
        problem *ps = malloc(cap * sizeof *ps);
        char line[4096], name[1024];
        int bucket, mw, mh;
        while (fgets(line, sizeof line, f)) {
            problem p;
            if (sscanf(line, "%d %1023s %d %d %d %d %d %d %lf", &bucket, name, &mw, &mh, &p.sx,
                       &p.sy, &p.gx, &p.gy, &p.optimal) != 9)
                continue;
            if (n == cap) ps = realloc(ps, (cap *= 2) * sizeof *ps);
            ps[n++] = p;
        }
        fclose(f);
        astar_search *s = astar_search_new(astar_grid_width(g), astar_grid_height(g), NULL);
        double *times = malloc(n * sizeof *times);
        unsigned long long expansions = 0;
        int mismatches = 0, skipped = 0;
        double total = 0;
        size_t timed = 0;
        for (size_t i = 0; i < n; i++) {
            problem *p = &ps[i];
            if (astar_grid_get_cost(g, p->sx, p->sy) == INFINITY ||
                astar_grid_get_cost(g, p->gx, p->gy) == INFINITY) {
                skipped++;
                continue;
            }
            astar_query q;
            astar_query_init(&q);
            q.sx = p->sx, q.sy = p->sy, q.gx = p->gx, q.gy = p->gy;
            astar_result res;
            double t0 = now();
            astar_status st = astar_find(s, g, &q, &res);
            double dt = now() - t0;
            times[timed++] = dt;
            total += dt;
            expansions += res.expansions;
            double tol = fmax(1e-4 * p->optimal, 0.005);
            if (st != ASTAR_OK || fabs(res.cost - p->optimal) > tol) mismatches++;
        }
        qsort(times, timed, sizeof *times, cmp_double);
        const char *base = strrchr(argv[m], '/');
        base = base ? base + 1 : argv[m];
        printf("%-16s %8zu %12llu %10.1f %10.1f %10.2f   mismatches %d skipped %d\n", base, timed,
               expansions, timed ? times[timed / 2] * 1e6 : 0, timed ? total / timed * 1e6 : 0,
               total > 0 ? expansions / total / 1e6 : 0, mismatches, skipped);
        mismatches_total += mismatches;
        free(times);
        free(ps);
        astar_search_free(s);
        astar_grid_free(g);
    }
    return mismatches_total ? 1 : 0;
}
