/*
 * The grid's own bookkeeping under a stream of single-cell writes (issue 26): the change log
 * lists exactly the writes since a version, and the cost range's counts at both ends stay
 * true, so that a write leaves no pass over the map for the next query while another cell
 * holds the end it left. Checked against a recount of the cells after every write.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "grid.h"

/* The range by a pass over the cells, and how many cells sit at each end. */
static void recount(const astar_grid *g, double *lo, double *hi, size_t *at_lo, size_t *at_hi) {
    *lo = INFINITY, *hi = -INFINITY, *at_lo = *at_hi = 0;
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            double c = astar_grid_get_cost(g, x, y);
            if (c == INFINITY) continue;
            if (c < *lo) *lo = c, *at_lo = 0;
            if (c == *lo) (*at_lo)++;
            if (c > *hi) *hi = c, *at_hi = 0;
            if (c == *hi) (*at_hi)++;
        }
}

static void test_range_counts(void) {
    static const double costs[] = {1.0, 2.0, 3.5, 7.0, INFINITY};
    astar_grid *g = astar_grid_new(9, 7, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    CHECK(g != NULL);
    if (!g) return;
    int passes = 0;
    for (int i = 0; i < 4000; i++) {
        int32_t x = (int32_t)(rnd() % 9), y = (int32_t)(rnd() % 7);
        /* Mostly the cheap end and blocks, as doors and walls are; now and then a refill. */
        if (rnd() % 500 == 0) {
            CHECK(astar_grid_fill(g, costs[rnd() % 4]) == ASTAR_OK);
        } else {
            CHECK(astar_grid_set_cost(g, x, y, costs[rnd() % 5]) == ASTAR_OK);
        }
        double lo, hi;
        size_t at_lo, at_hi;
        recount(g, &lo, &hi, &at_lo, &at_hi);
        if (!g->range_dirty) { /* what the grid believes without a pass must be the truth */
            CHECK(g->min_cost == lo && g->max_cost == hi);
            CHECK(g->min_count == at_lo && g->max_count == at_hi);
        } else {
            passes++;
        }
        double glo, ghi;
        CHECK(astar_grid_cost_range(g, &glo, &ghi) == ASTAR_OK);
        CHECK(glo == lo && ghi == hi);
    }
    CHECK(passes < 4000 / 4); /* the counts spare most passes (each set_all/fill makes one) */
    astar_grid_free(g);
}

static void test_change_log(void) {
    astar_grid *g = astar_grid_new(6, 5, ASTAR_DIAG_ALWAYS, NULL);
    CHECK(g != NULL);
    if (!g) return;
    uint32_t v0 = astar_grid_version(g);
    CHECK(astar_grid_changes_known(g, v0));
    CHECK(astar_grid_set_cost(g, 1, 1, 1.0) == ASTAR_OK); /* no change: no version */
    CHECK(astar_grid_version(g) == v0);
    double before[30];
    int32_t cells[40];
    for (int i = 0; i < 30; i++) before[i] = 1.0;
    for (int i = 0; i < 40; i++) {
        int32_t id = (int32_t)(rnd() % 30);
        double c = rnd() % 2 ? INFINITY : (double)(1 + rnd() % 3);
        if (c == before[id]) c = c == INFINITY ? 1.0 : INFINITY;
        CHECK(astar_grid_set_cost(g, id % 6, id / 6, c) == ASTAR_OK);
        cells[i] = astar_cell(g->stride, id % 6, id / 6);
        const astar_change *e = astar_grid_change(g, astar_grid_version(g));
        CHECK(e->cell == cells[i] && e->before == before[id] && e->after == c);
        before[id] = c;
    }
    CHECK(astar_grid_version(g) == v0 + 40);
    CHECK(astar_grid_changes_known(g, v0));
    for (uint32_t v = v0 + 1; v <= v0 + 40; v++) CHECK(astar_grid_change(g, v)->cell == cells[v - v0 - 1]);
    /* More than the log holds: the oldest versions are no longer described. */
    for (uint32_t i = 0; i < ASTAR_CHANGE_LOG; i++)
        CHECK(astar_grid_set_cost(g, 0, 0, i % 2 ? 1.0 : 2.0) == ASTAR_OK);
    CHECK(!astar_grid_changes_known(g, v0));
    CHECK(astar_grid_changes_known(g, astar_grid_version(g) - ASTAR_CHANGE_LOG));
    /* A bulk write: nothing before it is described. */
    uint32_t v1 = astar_grid_version(g);
    CHECK(astar_grid_fill(g, 2.0) == ASTAR_OK);
    CHECK(!astar_grid_changes_known(g, v1));
    CHECK(astar_grid_changes_known(g, astar_grid_version(g)));
    CHECK(astar_grid_set_cost(g, 2, 2, INFINITY) == ASTAR_OK);
    CHECK(astar_grid_changes_known(g, astar_grid_version(g) - 1));
    CHECK(!astar_grid_changes_known(g, astar_grid_version(g) - 2));
    astar_grid_free(g);
}

/* The prepare family refuses what is not a grid, a workspace of its size or a mode it has. */
static void test_prepare_arguments(void) {
    astar_grid *g = astar_grid_new(8, 6, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    astar_grid *hex = astar_grid_new(8, 6, ASTAR_DIAG_HEX, NULL);
    astar_search *s = astar_search_new(8, 6, NULL), *other = astar_search_new(9, 6, NULL);
    CHECK(g && hex && s && other);
    if (!g || !hex || !s || !other) return;
    CHECK(astar_grid_prepare(NULL, ASTAR_DIAG_DEFAULT) == ASTAR_EINVAL);
    CHECK(astar_grid_prepare(g, (astar_diagonal)99) == ASTAR_EINVAL);
    CHECK(astar_grid_prepare(g, ASTAR_DIAG_HEX) == ASTAR_EINVAL); /* a square grid's tables */
    CHECK(astar_grid_prepare(hex, ASTAR_DIAG_ALWAYS) == ASTAR_EINVAL);
    CHECK(astar_grid_prepare(g, ASTAR_DIAG_NEVER) == ASTAR_OK && astar_grid_prepare(hex, ASTAR_DIAG_DEFAULT) == ASTAR_OK);
    CHECK(astar_search_prepare(NULL, g, ASTAR_DIAG_DEFAULT) == ASTAR_EINVAL);
    CHECK(astar_search_prepare(s, NULL, ASTAR_DIAG_DEFAULT) == ASTAR_EINVAL);
    CHECK(astar_search_prepare(other, g, ASTAR_DIAG_DEFAULT) == ASTAR_EINVAL); /* another size */
    CHECK(astar_search_prepare(s, g, ASTAR_DIAG_DEFAULT) == ASTAR_OK);
    astar_status st = ASTAR_OK;
    CHECK(astar_build_prepare(NULL, ASTAR_DIAG_DEFAULT, &st) == NULL && st == ASTAR_EINVAL);
    CHECK(astar_build_prepare(g, (astar_diagonal)-7, &st) == NULL && st == ASTAR_EINVAL);
    CHECK(astar_build_prepare(hex, ASTAR_DIAG_NEVER, NULL) == NULL);
    astar_build *b = astar_build_prepare(g, ASTAR_DIAG_DEFAULT, &st);
    CHECK(b != NULL && st == ASTAR_OK);
    CHECK(astar_build_step(b, UINT64_MAX, NULL) == ASTAR_OK);
    astar_build_free(b);
    CHECK(astar_grid_prepare_hierarchy(NULL, 4) == ASTAR_EINVAL);
    CHECK(astar_grid_prepare_hierarchy(g, 1) == ASTAR_EINVAL);
    CHECK(astar_grid_prepare_hierarchy(g, 4) == ASTAR_OK);
    astar_search_free(s), astar_search_free(other);
    astar_grid_free(g), astar_grid_free(hex);
}

int main(void) {
    test_prepare_arguments();
    test_range_counts();
    test_change_log();
    return check_summary();
}
