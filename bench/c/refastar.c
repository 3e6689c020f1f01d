/*
 *   refastar   the plain problems, each solved by our A* and right after by refastar
 *              (../shared/refastar, the bare A* issue 17 measures us against, compiled in when
 *              CMake finds its source: bench/refastar_link.c), so that the two share the
 *              machine's state problem by problem: rows "ours" and "refastar", our time /
 *              refastar's per map (of the means, and the median of the per-problem ratios), and
 *              over all maps. Both checked like plain.
 */
#include <stdio.h>

#include "../refastar_link.h"
#include "bench.h"

static stats ours_all, refastar_all;

int refastar_run(const bench_map *m) {
    const astar_scen *sc = m->scen;
    stats ours = stats_new(sc), ref = stats_new(sc), ratio = stats_new(sc); /* ours / refastar's */
    refastar_map *r = refastar_load(m->path);
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(m->grid, p)) continue;
        plain_query(m, p, &ours);
        uint64_t expansions = 0;
        double t0 = now();
        double cost = refastar_find(r, p->sx, p->sy, p->gx, p->gy, &expansions);
        double ref_took = now() - t0;
        stats_add(&ref, ref_took, expansions);
        if (!tolerant_equal(cost, p)) ref.mismatches++;
        ratio.times[ratio.n++] = ref_took > 0 ? ours.times[ours.n - 1] / ref_took : 0;
    }
    refastar_free(r);
    report("ours", m->name, &ours);
    report("refastar", m->name, &ref);
    double ours_mean = ours.n ? ours.total / (double)ours.n : 0;
    double ref_mean = ref.n ? ref.total / (double)ref.n : 0;
    double pr = median(&ratio);
    printf("vs refastar %-20s mean %.2fx, per problem (median) %.2fx\n", m->name,
           ref_mean > 0 ? ours_mean / ref_mean : 0, pr);
    printf("figure c refastar %s ratio_mean %.3f\n", m->name, ref_mean > 0 ? ours_mean / ref_mean : 0);
    printf("figure c refastar %s ratio_per_problem %.3f\n", m->name, pr);
    stats_sum(&ours_all, &ours);
    stats_sum(&refastar_all, &ref);
    int bad = ours.mismatches + ref.mismatches;
    stats_free(&ours);
    stats_free(&ref);
    stats_free(&ratio);
    return bad;
}

void refastar_totals(void) {
    report_all("ours", &ours_all);
    report_all("refastar", &refastar_all);
    if (!ours_all.n || !refastar_all.n || refastar_all.total <= 0) return;
    double ratio = (ours_all.total / (double)ours_all.n) / (refastar_all.total / (double)refastar_all.n);
    printf("vs refastar, all maps: %zu problems, ours %.1f us, refastar %.1f us per query: %.2fx\n", ours_all.n,
           ours_all.total / (double)ours_all.n * 1e6, refastar_all.total / (double)refastar_all.n * 1e6, ratio);
    printf("figure c refastar all ratio_mean %.3f\n", ratio);
}
