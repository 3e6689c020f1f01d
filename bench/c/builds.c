/*
 * What a grid builds ahead of its queries: landmarks and the two-tier hierarchy.
 *
 *   landmarks  the plain problems without, then with k landmarks (k = 8, or the environment's
 *              ASTAR_BENCH_LANDMARKS), built on the map: rows "no_landmarks" and "landmarks".
 *              Checked like plain, both times. Also prints the build time and the landmarks'
 *              memory.
 *   builds     landmark builds, k = 16 and 64 (or ASTAR_BENCH_LANDMARKS), and hierarchy builds,
 *              cluster size 16 and 256, on 1 and 2 threads, in one call and in slices of
 *              ASTAR_BENCH_BUILD_BUDGET units (20,000): wall time, and the longest and median
 *              slice. Checked: each leaves what the first did.
 *   hierarchy  two-tier search (astar_find_hierarchical) on the problems whose optimum is 512 or
 *              more, against plain A* (JPS off): rows "flat" (A*) and "hierarchy" (expansions of
 *              every tier), the build's time and memory, the cost ratio to the optimum (mean,
 *              median, 99th percentile, max) and the fallbacks; then the same problems with one
 *              layer (penalties' pattern), the two-tier cost against A*'s exact one.
 *              Cluster size 12, or ASTAR_BENCH_CLUSTER. Checked: found, no cost below the
 *              optimum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Rows no_landmarks and landmarks. */
int landmarks_run(const bench_map *m) {
    astar_grid *g = m->grid;
    stats without = stats_new(m->scen), with = stats_new(m->scen);
    const char *env = getenv("ASTAR_BENCH_LANDMARKS");
    int32_t k = env ? atoi(env) : 8;
    plain_queries(m, &without);
    double t0 = now();
    astar_status rc = astar_grid_landmarks(g, k);
    double built = now() - t0;
    if (rc != ASTAR_OK) {
        fprintf(stderr, "bench_c: landmarks(%d) on %s: %s\n", (int)k, m->name, astar_status_name(rc));
        with.mismatches++;
    } else {
        int32_t placed = astar_grid_landmark_count(g);
        double mib = (double)astar_grid_landmark_bytes(g) / (1 << 20);
        plain_queries(m, &with);
        astar_grid_landmarks(g, 0);
        printf("landmarks  %s: %d placed, built in %.1f ms, %.1f MiB, expansions %.2fx fewer\n", m->name,
               (int)placed, built * 1e3, mib,
               with.expansions ? (double)without.expansions / (double)with.expansions : 0.0);
        printf("figure c landmarks %s k %d\n", m->name, (int)placed);
        printf("figure c landmarks %s build_ms %.3f\n", m->name, built * 1e3);
        printf("figure c landmarks %s memory_mib %.1f\n", m->name, mib);
    }
    report("no_landmarks", m->name, &without);
    report("landmarks", m->name, &with);
    int bad = without.mismatches + with.mismatches;
    stats_free(&without);
    stats_free(&with);
    return bad;
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

int builds_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const char *map = m->name;
    const char *env = getenv("ASTAR_BENCH_LANDMARKS"), *benv = getenv("ASTAR_BENCH_BUILD_BUDGET");
    int32_t ks[4] = {16, 64, 16, 256};
    bool hier[4] = {false, false, true, true};
    int first_k = 0, bad = 0;
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
                if (!b) return bad + 1;
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
                if (st != ASTAR_OK) bad++;
                int32_t len = build_signature(g, hier[ki], sig);
                bool same = sig_len < 0 || (len == sig_len && !memcmp(sig, first, (size_t)len * sizeof *sig));
                if (sig_len < 0) sig_len = len, memcpy(first, sig, (size_t)len * sizeof *sig);
                if (!same) bad++;
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
    return bad;
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

/* Rows flat and hierarchy, then the same problems with danger_layer (hier_influence). */
int hierarchy_run(const bench_map *m) {
    astar_grid *g = m->grid;
    const astar_scen *sc = m->scen;
    const char *map = m->name;
    stats flat = stats_new(sc), tiered = stats_new(sc);
    const char *env = getenv("ASTAR_BENCH_CLUSTER");
    int32_t size = env ? (int32_t)strtol(env, NULL, 10) : 12;
    double t0 = cpu_now();
    astar_status rc = astar_grid_hierarchy(g, size);
    double built = cpu_now() - t0;
    if (rc != ASTAR_OK) {
        fprintf(stderr, "bench_c: hierarchy(%d) on %s: %s\n", (int)size, map, astar_status_name(rc));
        flat.mismatches++;
    } else {
        astar_layer *danger = danger_layer(astar_grid_width(g), astar_grid_height(g));
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
            rc = timed_find(&flat, m->search, g, &q, &res);
            if (rc != ASTAR_OK || !tolerant_equal(res.cost, p)) flat.mismatches++;
            double t1 = now();
            rc = astar_find_hierarchical(m->search, g, &q, &res);
            stats_add(&tiered, now() - t1, res.expansions);
            abstract += res.abstract_expansions;
            fallbacks += res.fallback;
            if (rc != ASTAR_OK || res.cost < p->optimal - fmax(1e-4 * p->optimal, p->precision))
                tiered.mismatches++;
            else
                ratio[n++] = res.cost / p->optimal;
            q.layers = layers;
            q.nlayers = 1;
            astar_result exact;
            if (astar_find(m->search, g, &q, &exact) != ASTAR_OK) continue;
            flat_layered += exact.expansions;
            if (astar_find_hierarchical(m->search, g, &q, &res) != ASTAR_OK || res.cost < exact.cost * (1 - 1e-9)) {
                tiered.mismatches++;
                continue;
            }
            tiered_layered += res.expansions;
            layered[nl++] = res.cost / exact.cost;
        }
        astar_hierarchy_stats hs;
        astar_grid_hierarchy_stats(g, &hs);
        double mib = (double)hs.bytes / (1024.0 * 1024.0);
        double fewer = tiered.expansions ? (double)flat.expansions / (double)tiered.expansions : 0;
        double fewer_layered = tiered_layered ? (double)flat_layered / (double)tiered_layered : 0;
        printf("hierarchy  %s: cluster %d, %d clusters, %lld entrances, %lld arcs, built in %.1f ms (CPU), "
               "%.2f MiB; expansions %.1fx fewer (abstract %llu of %llu), %d fallbacks\n",
               map, (int)size, (int)hs.clusters, (long long)hs.entrances, (long long)hs.edges, built * 1e3, mib,
               fewer, (unsigned long long)abstract, tiered.expansions, fallbacks);
        printf("figure c hierarchy %s cluster %d\n", map, (int)size);
        printf("figure c hierarchy %s build_ms %.3f\n", map, built * 1e3);
        printf("figure c hierarchy %s memory_mib %.3f\n", map, mib);
        printf("figure c hierarchy %s fewer_expansions %.3f\n", map, fewer);
        printf("figure c hierarchy %s abstract_expansions %llu\n", map, (unsigned long long)abstract);
        printf("figure c hierarchy %s fallbacks %d\n", map, fallbacks);
        ratio_figures("hierarchy", map, ratio, n);
        printf("figure c hier_influence %s fewer_expansions %.3f\n", map, fewer_layered);
        printf("hier_influence %s: expansions %.1fx fewer than exact A*\n", map, fewer_layered);
        ratio_figures("hier_influence", map, layered, nl);
        free(ratio);
        free(layered);
        astar_layer_free(danger);
        astar_grid_hierarchy(g, 0);
    }
    report("flat", map, &flat);
    report("hierarchy", map, &tiered);
    int bad = flat.mismatches + tiered.mismatches;
    stats_free(&flat);
    stats_free(&tiered);
    return bad;
}
