/* Clearance (docs/design/clearance.md): the largest free square anchored top-left at each
 * cell, capped at ASTAR_MAX_SIZE, kept in step with the terrain at O(cap^2) a write. */
#include "clearance.h"

#include <string.h>

#include "grid.h"

/* The recurrence at one cell: its right, lower and lower-right neighbours are final. The
 * blocked border is 0, so the map's last row and column need no test. */
static inline uint8_t clearance_at(const astar_grid *g, const uint8_t *clr, int32_t at) {
    if (g->cost[at] == INFINITY) return 0;
    uint8_t m = clr[at + 1];
    if (clr[at + g->stride] < m) m = clr[at + g->stride];
    if (clr[at + g->stride + 1] < m) m = clr[at + g->stride + 1];
    return (uint8_t)(m < ASTAR_MAX_SIZE ? m + 1 : ASTAR_MAX_SIZE);
}

/* Recomputes the anchors x0..x1, y0..y1 (0-based, inside the map), bottom-right first. */
static void recompute(astar_grid *g, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    uint8_t *clr = g->clearance;
    for (int32_t y = y1; y >= y0; y--)
        for (int32_t at = astar_cell(g->stride, x1, y), first = at - (x1 - x0); at >= first; at--)
            clr[at] = clearance_at(g, clr, at);
}

static void build(astar_grid *g) {
    memset(g->clearance, 0, g->cells); /* the border, which recompute never writes */
    recompute(g, 0, 0, g->width - 1, g->height - 1);
}

astar_status astar_clearance_get(astar_grid *g, const uint8_t **out) {
    if (!g->clearance) {
        if (astar_progress_charge(astar_progress_get(), g->cells)) return ASTAR_ESTOPPED;
        g->clearance = astar_mem(&g->alloc, NULL, 0, g->cells);
        if (!g->clearance) return ASTAR_ENOMEM;
        build(g);
    }
    *out = g->clearance;
    return ASTAR_OK;
}

void astar_clearance_cell_changed(astar_grid *g, int32_t cell) {
    if (!g->clearance) return;
    uint8_t *clr = g->clearance;
    int32_t y = cell / g->stride - 1, x = cell % g->stride - 1;
    int32_t x0 = x - (ASTAR_MAX_SIZE - 1), y0 = y - (ASTAR_MAX_SIZE - 1);
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    uint8_t before[ASTAR_MAX_SIZE * ASTAR_MAX_SIZE], after[ASTAR_MAX_SIZE * ASTAR_MAX_SIZE];
    int32_t w = x - x0 + 1, i = 0;
    for (int32_t j = y0; j <= y; j++)
        for (int32_t k = x0; k <= x; k++) before[i++] = clr[astar_cell(g->stride, k, j)];
    recompute(g, x0, y0, x, y);
    /* The island labels of bigger units (islands.c) take the changes an anchor at a time, each
     * seeing the others as they were: the old values back, then the new ones one by one. */
    for (i = 0; i < w * (y - y0 + 1); i++) {
        int32_t at = astar_cell(g->stride, x0 + i % w, y0 + i / w);
        after[i] = clr[at];
        clr[at] = before[i];
    }
    for (i = 0; i < w * (y - y0 + 1); i++) {
        int32_t at = astar_cell(g->stride, x0 + i % w, y0 + i / w);
        clr[at] = after[i];
        if (after[i] != before[i]) astar_islands_anchor_changed(g, at, before[i], after[i]);
    }
}

void astar_clearance_bulk_changed(astar_grid *g) {
    if (g->clearance) build(g);
}

uint64_t astar_clearance_reset_units(const astar_grid *g) {
    return g->clearance ? (uint64_t)g->cells : 0;
}

void astar_clearance_free(astar_grid *g) {
    astar_mem(&g->alloc, g->clearance, g->clearance ? g->cells : 0, 0);
    g->clearance = NULL;
}
