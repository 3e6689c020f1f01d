/*
 * Islands: connected components of the walkable terrain, so that a query to
 * another island is answered without searching.
 *
 * Two kinds of connectivity cover every diagonal mode: with "never",
 * "no_corner_cut" and "one_walkable" two cells are connected exactly when they
 * are 4-connected (a diagonal step needs an open side cell, through which the
 * same two cells are joined by straight steps); with "always" they are
 * 8-connected. Hexes have a kind of their own: straight neighbours plus the
 * two diagonal ones the row leans to. Per-query costs and blocks can only cut paths, never add them,
 * so "different islands" stays a proof of "unreachable" for every query.
 *
 * The labels are a union-find forest. Opening a cell joins it to its walkable
 * neighbours at once. Blocking a cell may split an island, which a forest
 * cannot undo: the labels then over-merge (state OVER) - still a proof where
 * they differ - and are rebuilt when an exact answer is asked for, or once
 * searches that a fresh build would have skipped have cost as much as a build.
 */
#include "grid.h"

#include <string.h>

static int32_t find(const int32_t *link, int32_t cell) {
    while (link[cell] >= 0) cell = link[cell];
    return cell;
}

/* find with path halving, for the writers (build and cell changes). */
static int32_t find_halving(int32_t *link, int32_t cell) {
    while (link[cell] >= 0) {
        int32_t up = link[cell];
        if (link[up] >= 0) link[cell] = link[up];
        cell = up;
    }
    return cell;
}

/* Union by size: a root holds minus its set's size, so trees stay O(log n) deep. */
static void unite(int32_t *link, int32_t a, int32_t b) {
    a = find_halving(link, a);
    b = find_halving(link, b);
    if (a == b) return;
    if (link[a] > link[b]) { /* b's set is larger: it becomes the root */
        int32_t t = a;
        a = b;
        b = t;
    }
    link[a] += link[b];
    link[b] = a;
}

/* The directions that join a cell of row y to its neighbours under a kind of connectivity. */
static unsigned joined(int kind, int32_t y) {
    return kind == 0 ? 0x0Fu : kind == 1 ? 0xFFu : astar_hex_moves(0xFFu, y);
}

/* Three passes over the cells, a unit per cell each (the middle one charged row by row);
 * false when the progress handler said stop (link is then garbage). */
static bool build(const astar_grid *g, int kind, int32_t *link, astar_progress *p) {
    if (astar_progress_charge(p, g->cells)) return false;
    for (size_t i = 0; i < g->cells; i++) link[i] = g->cost[i] == INFINITY ? ASTAR_ISLAND_NONE : -1;
    /* Joining each cell to the neighbours scanned before it (W, N, NE, NW where the kind
     * joins them) joins every adjacent pair once. */
    for (int32_t y = 0; y < g->height; y++) {
        if (astar_progress_charge(p, (uint64_t)g->stride)) return false;
        unsigned back = joined(kind, y) & ((1u << 3) | (1u << 0) | (1u << 4) | (1u << 7));
        int32_t row = astar_cell(g->stride, 0, y);
        for (int32_t at = row; at < row + g->width; at++) {
            if (link[at] == ASTAR_ISLAND_NONE) continue;
            for (int d = 0; d < 8; d++) {
                int32_t next = at + ASTAR_DY[d] * g->stride + ASTAR_DX[d];
                if ((back >> d & 1u) && link[next] != ASTAR_ISLAND_NONE) unite(link, at, next);
            }
        }
    }
    if (astar_progress_charge(p, g->cells)) return false;
    for (size_t i = 0; i < g->cells; i++) /* flat: every cell one step from its root */
        if (link[i] >= 0) link[i] = find_halving(link, (int32_t)i);
    return true;
}

void astar_islands_cell_changed(astar_grid *g, int32_t cell, bool walkable) {
    for (int kind = 0; kind < ASTAR_ISLAND_KINDS; kind++) {
        astar_islands *is = &g->islands[kind];
        if (!is->link || is->state == ASTAR_ISLANDS_STALE) continue;
        if (!walkable) {
            /* The cell stays in its set: other cells may reach their root through it. */
            if (is->state == ASTAR_ISLANDS_FRESH) is->state = ASTAR_ISLANDS_OVER;
            continue;
        }
        if (is->link[cell] == ASTAR_ISLAND_NONE) is->link[cell] = -1;
        unsigned dirs = joined(kind, cell / g->stride - 1);
        for (int d = 0; d < 8; d++) {
            int32_t next = cell + ASTAR_DY[d] * g->stride + ASTAR_DX[d];
            if ((dirs >> d & 1u) && g->cost[next] != INFINITY) unite(is->link, cell, next);
        }
    }
}

astar_status astar_islands_get(astar_grid *g, int kind, bool exact, astar_islands **out) {
    astar_islands *is = &g->islands[kind];
    *out = NULL;
    if (!is->link) {
        size_t bytes = astar_array_size(g->cells, sizeof *is->link);
        is->link = bytes ? astar_mem(&g->alloc, NULL, 0, bytes) : NULL;
        if (!is->link) return ASTAR_ENOMEM;
        is->state = ASTAR_ISLANDS_STALE;
    }
    bool rebuild = is->state == ASTAR_ISLANDS_STALE ||
                   (is->state == ASTAR_ISLANDS_OVER && (exact || is->wasted > g->cells / 8));
    if (rebuild) {
        if (!build(g, kind, is->link, astar_progress_get())) {
            is->state = ASTAR_ISLANDS_STALE; /* half built: none until the next build */
            return ASTAR_ESTOPPED;
        }
        is->state = ASTAR_ISLANDS_FRESH;
        is->wasted = 0;
    }
    *out = is;
    return ASTAR_OK;
}

int32_t astar_islands_root(const astar_islands *is, int32_t cell) { return find(is->link, cell); }

void astar_islands_free(astar_grid *g) {
    for (int kind = 0; kind < ASTAR_ISLAND_KINDS; kind++) {
        astar_mem(&g->alloc, g->islands[kind].link, g->cells * sizeof(int32_t), 0);
        g->islands[kind].link = NULL;
    }
}

static bool inside(const astar_grid *g, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < g->width && y < g->height;
}

astar_status astar_grid_component(astar_grid *g, int32_t x, int32_t y, int32_t *id) {
    if (!inside(g, x, y)) return ASTAR_EINVAL;
    int32_t cell = astar_cell(g->stride, x, y);
    if (g->cost[cell] == INFINITY) {
        *id = -1;
        return ASTAR_OK;
    }
    astar_islands *is;
    astar_status st = astar_islands_get(g, astar_island_kind(g->diagonal), true, &is);
    if (st != ASTAR_OK) return st;
    int32_t root = astar_islands_root(is, cell);
    /* The root's public node id: the same for the whole island. */
    *id = (root / g->stride - 1) * g->width + (root % g->stride - 1);
    return ASTAR_OK;
}

astar_status astar_grid_reachable(astar_grid *g, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                                  int *yes) {
    if (!inside(g, sx, sy) || !inside(g, gx, gy)) return ASTAR_EINVAL;
    *yes = 0;
    int32_t start = astar_cell(g->stride, sx, sy), goal = astar_cell(g->stride, gx, gy);
    if (g->cost[goal] == INFINITY) return ASTAR_OK;
    astar_islands *is;
    astar_status st = astar_islands_get(g, astar_island_kind(g->diagonal), true, &is);
    if (st != ASTAR_OK) return st;
    int32_t target = astar_islands_root(is, goal);
    if (g->cost[start] != INFINITY) {
        *yes = astar_islands_root(is, start) == target;
        return ASTAR_OK;
    }
    unsigned moves = astar_legal_row(g, g->diagonal, sy)[g->open[start]];
    for (int d = 0; d < 8; d++)
        if ((moves >> d & 1u) &&
            astar_islands_root(is, start + ASTAR_DY[d] * g->stride + ASTAR_DX[d]) == target)
            *yes = 1;
    return ASTAR_OK;
}
