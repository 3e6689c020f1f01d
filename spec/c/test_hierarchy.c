/*
 * The two-tier search's C API: the build on threads gives what the one-call build gives, every
 * allocation that fails leaves the grid usable and leaks nothing, and answers are legal paths
 * never cheaper than plain A*'s (the Lua specs check them against the oracle).
 */
#include <string.h>

#include "check.h"

/* A maze-like grid: walls every 6 cells with gaps, random blocks, costs 1..3 in places. */
static astar_grid *maze(int32_t w, int32_t h, astar_diagonal mode, const astar_alloc *a) {
    astar_grid *g = astar_grid_new(w, h, mode, a);
    if (!g) return NULL;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            bool wall = (x % 6 == 5 && rnd() % 5 != 0) || rnd() % 9 == 0;
            astar_grid_set_cost(g, x, y, wall ? INFINITY : 1.0 + (double)(rnd() % 3) * (rnd() % 4 == 0));
        }
    return g;
}

static void threaded_build_matches_one_call(void) {
    for (int mode = ASTAR_DIAG_NEVER; mode <= ASTAR_DIAG_NO_CORNER_CUT; mode++) {
        if (mode == ASTAR_DIAG_ALWAYS) continue;
        uint64_t seed = rng_state;
        astar_grid *one = maze(70, 45, (astar_diagonal)mode, NULL);
        rng_state = seed;
        astar_grid *units = maze(70, 45, (astar_diagonal)mode, NULL);
        CHECK(astar_grid_hierarchy(one, 7) == ASTAR_OK);
        astar_status built;
        astar_build *job = astar_build_hierarchy(units, 7, 2, &built); /* clusters on two threads */
        CHECK(job != NULL);
        while ((built = astar_build_step(job, 50, NULL)) == ASTAR_RUNNING) {}
        CHECK(built == ASTAR_OK && astar_hierarchy_clusters(units) == 10 * 7);
        astar_build_free(job);
        astar_hierarchy_stats a, b;
        astar_grid_hierarchy_stats(one, &a);
        astar_grid_hierarchy_stats(units, &b);
        CHECK(a.entrances == b.entrances && a.edges == b.edges && a.clusters == b.clusters && b.dirty == 0);
        CHECK(a.entrances > 0 && a.diagonal == (astar_diagonal)mode);
        astar_search *s = astar_search_new(70, 45, NULL);
        for (int i = 0; i < 40; i++) {
            astar_query q;
            astar_query_init(&q);
            q.sx = (int32_t)(rnd() % 70), q.sy = (int32_t)(rnd() % 45);
            q.gx = (int32_t)(rnd() % 70), q.gy = (int32_t)(rnd() % 45);
            astar_result ra, rb, exact;
            CHECK(astar_find(s, one, &q, &exact) >= 0);
            astar_status sa = astar_find_hierarchical(s, one, &q, &ra);
            int32_t n;
            const int32_t *path = astar_search_path(s, &n);
            if (sa == ASTAR_OK) { /* path_legal knows the corner rule of never and no_corner_cut */
                if (mode != ASTAR_DIAG_ONE_WALKABLE) CHECK(path_legal(one, (astar_diagonal)mode, path, n));
                CHECK(path[0] == q.sy * 70 + q.sx && path[n - 1] == q.gy * 70 + q.gx);
            }
            astar_status sb = astar_find_hierarchical(s, units, &q, &rb);
            CHECK(sa == sb && sa == exact.status && (sa != ASTAR_OK || ra.cost == rb.cost));
            CHECK(sa != ASTAR_OK || ra.cost >= exact.cost - 1e-9);
            CHECK(ra.tiered && ra.expansions >= ra.abstract_expansions);
        }
        astar_search_free(s);
        astar_grid_free(one);
        astar_grid_free(units);
    }
}

static void refusals(void) {
    astar_grid *g = astar_grid_new(20, 20, ASTAR_DIAG_ALWAYS, NULL);
    CHECK(astar_grid_hierarchy(g, 4) == ASTAR_EINVAL);
    astar_grid_set_diagonal(g, ASTAR_DIAG_NO_CORNER_CUT);
    CHECK(astar_grid_hierarchy(g, 1) == ASTAR_EINVAL);
    CHECK(astar_grid_hierarchy(g, ASTAR_HIER_MAX_SIZE + 1) == ASTAR_EINVAL);
    astar_search *s = astar_search_new(20, 20, NULL);
    astar_query q;
    astar_query_init(&q);
    q.gx = q.gy = 19;
    astar_result r;
    CHECK(astar_find_hierarchical(s, g, &q, &r) == ASTAR_EINVAL); /* none built */
    CHECK(astar_grid_hierarchy(g, 4) == ASTAR_OK);
    CHECK(astar_find_hierarchical(s, g, &q, &r) == ASTAR_OK && r.abstract_expansions > 0);
    q.diagonal = ASTAR_DIAG_NEVER;
    CHECK(astar_find_hierarchical(s, g, &q, &r) == ASTAR_EINVAL);
    q.diagonal = ASTAR_DIAG_DEFAULT;
    int32_t target = 5;
    q.targets = &target, q.ntargets = 1;
    CHECK(astar_find_hierarchical(s, g, &q, &r) == ASTAR_EINVAL);
    CHECK(astar_grid_hierarchy(g, 0) == ASTAR_OK && astar_hierarchy_clusters(g) == 0);
    astar_search_free(s);
    astar_grid_free(g);
}

/* Every allocation refused in turn: ENOMEM (or success), nothing leaked, the grid still answers. */
static void out_of_memory(void) {
    int successes = 0;
    for (long fail = 1; fail < 5000 && successes < 3; fail++) {
        counting c = {0};
        astar_alloc a = {count_alloc, &c};
        rng_state = CHECK_RNG_SEED;
        astar_grid *g = maze(40, 30, ASTAR_DIAG_NO_CORNER_CUT, &a);
        astar_search *s = astar_search_new(40, 30, &a);
        CHECK(g && s);
        c.fail_at = c.allocs + fail;
        astar_status st = astar_grid_hierarchy(g, 5);
        CHECK(st == ASTAR_OK || st == ASTAR_ENOMEM);
        if (st == ASTAR_OK) {
            astar_grid_set_cost(g, 12, 12, INFINITY); /* a dirty cluster for the query to rebuild */
            astar_query q;
            astar_query_init(&q);
            q.gx = 39, q.gy = 29;
            astar_result r;
            st = astar_find_hierarchical(s, g, &q, &r);
            CHECK(st == ASTAR_OK || st == ASTAR_UNREACHABLE || st == ASTAR_ENOMEM);
            if (st != ASTAR_ENOMEM && c.allocs < c.fail_at) successes++;
            c.fail_at = 0;
            astar_status again = astar_find_hierarchical(s, g, &q, &r); /* usable after it */
            CHECK(again == ASTAR_OK || again == ASTAR_UNREACHABLE);
        }
        astar_search_free(s);
        astar_grid_free(g);
        CHECK(c.live == 0 && c.bytes == 0);
    }
    CHECK(successes >= 1);
}

static bool same_stats(const astar_grid *a, const astar_grid *b) {
    astar_hierarchy_stats x, y;
    astar_grid_hierarchy_stats(a, &x);
    astar_grid_hierarchy_stats(b, &y);
    return x.cluster_size == y.cluster_size && x.clusters == y.clusters && x.entrances == y.entrances &&
           x.edges == y.edges && x.dirty == y.dirty && x.diagonal == y.diagonal;
}

/* The build in slices on 1 and 2 threads leaves what the one-call build leaves, each step
 * within its budget; nothing reaches the grid before it completes; refusals at creation. */
static void sliced_builds(void) {
    for (int mode = ASTAR_DIAG_NEVER; mode <= ASTAR_DIAG_NO_CORNER_CUT; mode++) {
        if (mode == ASTAR_DIAG_ALWAYS) continue;
        uint64_t seed = rng_state;
        astar_grid *one = maze(70, 45, (astar_diagonal)mode, NULL);
        rng_state = seed;
        astar_grid *sliced = maze(70, 45, (astar_diagonal)mode, NULL);
        int32_t sizes[3] = {2, 7, 30};
        for (int i = 0; i < 3; i++) {
            CHECK(astar_grid_hierarchy(one, sizes[i]) == ASTAR_OK);
            for (int threads = 1; threads <= 2; threads++) {
                astar_status st;
                astar_build *b = astar_build_hierarchy(sliced, sizes[i], threads, &st);
                CHECK(b && st == ASTAR_OK);
                int steps = 0;
                do {
                    uint64_t budget = 1 + rnd() % (threads == 1 ? 97 : 400), used = 0; /* fewer thread starts */
                    st = astar_build_step(b, budget, &used);
                    CHECK(used <= budget);
                    if (st == ASTAR_RUNNING && steps == 0 && i == 0 && threads == 1)
                        CHECK(astar_hierarchy_clusters(sliced) == 0); /* nothing installed yet */
                    steps++;
                } while (st == ASTAR_RUNNING && steps < 1000000);
                CHECK(st == ASTAR_OK && astar_build_progress(b) == 1.0 && steps > 10);
                CHECK(same_stats(one, sliced));
                astar_build_free(b);
            }
        }
        astar_grid_free(one);
        astar_grid_free(sliced);
    }
    astar_grid *g = astar_grid_new(10, 10, ASTAR_DIAG_ALWAYS, NULL);
    astar_status st = ASTAR_OK;
    CHECK(astar_build_hierarchy(g, 4, 1, &st) == NULL && st == ASTAR_EINVAL);
    astar_grid_set_diagonal(g, ASTAR_DIAG_NEVER);
    CHECK(astar_build_hierarchy(g, 1, 1, &st) == NULL && st == ASTAR_EINVAL);
    CHECK(astar_build_hierarchy(g, 257, 1, &st) == NULL && st == ASTAR_EINVAL);
    CHECK(astar_build_hierarchy(g, 4, ASTAR_MANY_MAX_THREADS + 1, &st) == NULL && st == ASTAR_EINVAL);
    astar_grid_free(g);
}

/* A sliced build on 2 threads with every allocation refused in turn: the step reports
 * ENOMEM, the grid keeps its old hierarchy, the next steps finish it; nothing leaks. */
static void sliced_out_of_memory(void) {
    int completed = 0;
    for (long fail = 1; fail < 3000 && completed < 3; fail++) {
        counting c = {0};
        astar_alloc a = {count_alloc, &c};
        rng_state = CHECK_RNG_SEED;
        astar_grid *g = maze(40, 30, ASTAR_DIAG_NO_CORNER_CUT, &a);
        CHECK(g && astar_grid_hierarchy(g, 4) == ASTAR_OK);
        astar_status st;
        astar_build *b = astar_build_hierarchy(g, 6, 2, &st);
        CHECK(b != NULL);
        c.fail_at = c.allocs + fail;
        bool failed = false;
        do {
            st = astar_build_step(b, 50, NULL);
            if (st == ASTAR_ENOMEM) {
                failed = true;
                astar_hierarchy_stats hs;
                astar_grid_hierarchy_stats(g, &hs);
                CHECK(hs.cluster_size == 4); /* the old one, untouched */
            }
        } while (st == ASTAR_RUNNING || st == ASTAR_ENOMEM);
        CHECK(st == ASTAR_OK);
        if (!failed) completed++;
        astar_hierarchy_stats hs;
        astar_grid_hierarchy_stats(g, &hs);
        CHECK(hs.cluster_size == 6 && hs.dirty == 0);
        astar_build_free(b);
        astar_grid_free(g);
        CHECK(c.live == 0 && c.bytes == 0);
    }
    CHECK(completed >= 1);
}

int main(void) {
    threaded_build_matches_one_call();
    sliced_builds();
    sliced_out_of_memory();
    refusals();
    out_of_memory();
    return check_summary();
}
