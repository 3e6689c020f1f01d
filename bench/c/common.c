/* What bench_c's workloads share (bench.h says what each function is for). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static clockid_t bench_clock = CLOCK_MONOTONIC;

void clock_from_env(void) {
    const char *env = getenv("ASTAR_BENCH_CLOCK");
    if (env && strcmp(env, "cpu") == 0) bench_clock = CLOCK_PROCESS_CPUTIME_ID;
}

static double seconds(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double now(void) { return seconds(bench_clock); }

double cpu_now(void) { return seconds(CLOCK_PROCESS_CPUTIME_ID); }

char *read_file(const char *path, size_t *len) {
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

astar_grid *load_grid(const char *path, char *err, size_t errlen) {
    size_t len;
    char *text = read_file(path, &len);
    astar_grid *g = text ? astar_movingai_parse(text, len, NULL, err, errlen) : NULL;
    free(text);
    return g;
}

int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

stats stats_new(const astar_scen *sc) {
    stats st = {0};
    st.times = malloc(((size_t)sc->count + 1) * sizeof *st.times);
    return st;
}

void stats_free(stats *st) {
    free(st->times);
    st->times = NULL;
}

void stats_add(stats *st, double dt, uint64_t expansions) {
    st->times[st->n++] = dt;
    st->total += dt;
    st->expansions += expansions;
}

void stats_sum(stats *total, const stats *from) {
    total->total += from->total;
    total->expansions += from->expansions;
    total->n += from->n;
    total->mismatches += from->mismatches;
}

double median(stats *st) { return median_of(st->times, st->n); }

astar_status timed_find(stats *st, astar_search *s, astar_grid *g, const astar_query *q, astar_result *res) {
    double t0 = now();
    astar_status rc = astar_find(s, g, q, res);
    stats_add(st, now() - t0, res->expansions);
    return rc;
}

void report(const char *workload, const char *map, stats *st) {
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

void report_all(const char *workload, const stats *all) {
    if (!all->n) return;
    double mexp = all->total > 0 ? (double)all->expansions / all->total / 1e6 : 0;
    printf("figure c %s all problems %zu\n", workload, all->n);
    printf("figure c %s all expansions %llu\n", workload, all->expansions);
    printf("figure c %s all mean_us %.3f\n", workload, all->total / (double)all->n * 1e6);
    printf("figure c %s all mexp_s %.3f\n", workload, mexp);
    printf("figure c %s all mismatches %d\n", workload, all->mismatches);
    printf("%s, all maps: %zu problems, %llu expansions, %.2f M expansions/s, %d wrong\n", workload, all->n,
           all->expansions, mexp, all->mismatches);
}

bool tolerant_equal(double cost, const astar_scenario *p) {
    return fabs(cost - p->optimal) <= fmax(1e-4 * p->optimal, p->precision);
}

bool endpoints_open(astar_grid *g, const astar_scenario *p) {
    return astar_grid_get_cost(g, p->sx, p->sy) != INFINITY && astar_grid_get_cost(g, p->gx, p->gy) != INFINITY;
}

/* A* unless a workload asks for JPS: plain stays the A* engine the yardstick, the callgrind
 * count and docs/performance.md's table measure, and the claims of penalties stay A*'s paths. */
void query_for(astar_query *q, const astar_scenario *p) {
    astar_query_init(q);
    q->sx = p->sx, q->sy = p->sy, q->gx = p->gx, q->gy = p->gy;
    q->jps = ASTAR_JPS_OFF;
    /* The yardstick stays the loop alone (the deadends workload compares); ASTAR_BENCH_DEAD_ENDS=1
     * turns them on, for sh bench/callgrind.sh. */
    static int dead_ends = -1;
    if (dead_ends < 0) dead_ends = getenv("ASTAR_BENCH_DEAD_ENDS") && atoi(getenv("ASTAR_BENCH_DEAD_ENDS")) > 0;
    q->dead_ends = dead_ends;
}

astar_layer *danger_layer(int32_t w, int32_t h) {
    astar_layer *danger = astar_layer_new(w, h, 0.0, NULL);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            if (((x / 8) + (y / 8)) % 4 == 0) astar_layer_set(danger, x, y, 0.5 + (x * 7 + y * 13) % 4 * 0.5);
    return danger;
}
