/* What the cost model reads besides terrain (layers.c): layers, fog-of-war masks
 * and claims. */
#ifndef ASTAR_LAYERS_H
#define ASTAR_LAYERS_H

#include "core.h"

/* Every per-cell array below has a one-cell border, as the grid's (see grid.h). */

/* A layer's tiles: ASTAR_LAYER_TILE x ASTAR_LAYER_TILE cells (the last row and column of
 * tiles may be narrower). */
#define ASTAR_LAYER_TILE_SHIFT 3
#define ASTAR_LAYER_TILE (1 << ASTAR_LAYER_TILE_SHIFT)

/*
 * The values the loops read, dense, and beside them the tiles that may hold a value other
 * than +0 (the active list, kept on every write), so that decay, spread, max_abs and add_layer
 * visit those and their rim, not the map: every cell of a tile off the list is +0.
 */
struct astar_layer {
    int32_t width, height, stride;
    size_t cells;
    double *value;              /* per cell, border 0 */
    int32_t tiles_x, tiles_y;
    uint8_t *tile_on;           /* per tile: TILE_ACTIVE when on the active list (and scratch
                                   marks of spread and add_layer between their passes) */
    int32_t *active;            /* the active tiles, in no order; room for every tile */
    int32_t nactive;
    double *tile_max;           /* per tile: at least its cells' largest value (off the list, >= 0),
                                   so that astar_layer_above skips the tiles at or below a threshold */
    double sum_bound;           /* at least the sum of |value| over the cells: what a query
                                   bounds its penalties with (grid_loop.c's exact loop) */
    double *scratch;            /* spread's new values, a tile's worth per tile it computes */
    int32_t *todo;              /* spread's tiles to compute (room for every tile) */
    size_t scratch_cap;         /* doubles in scratch; 0 until first needed */
    astar_alloc alloc;
};

/* An upper bound of the sum of |value| of l's cells (finite: values are bounded). */
static inline double astar_layer_sum_bound(const astar_layer *l) { return l->sum_bound; }

int32_t astar_layer_above(astar_layer *l, double threshold, int32_t *ids);
/* The cells astar_layer_above read on this thread, ever: a test hook (spec/c/test_flee.c counts
 * its work with it). */
extern _Thread_local uint64_t astar_layer_above_reads;

struct astar_mask {
    int32_t width, height, stride;
    size_t cells;
    uint8_t *known;             /* per cell, 1 = known; the border is known (and blocked) */
    astar_alloc alloc;
};

enum { ASTAR_UNIT_IDLE = -1, ASTAR_UNIT_FREE = -2 }; /* slot with no claim / unused slot */

typedef struct astar_unit_claim {
    int32_t *cells;             /* the claimed path, as cells */
    uint8_t *last;              /* 1 where the cell does not appear later in the path */
    int32_t n, cap;
    int32_t pos;                /* current index; ASTAR_UNIT_IDLE, ASTAR_UNIT_FREE */
} astar_unit_claim;

/* A graph's claims are 1 node high: node x at cell stride + 1 + x (graph.c). */
struct astar_claims {
    int32_t width, height, stride;
    size_t cells;
    int32_t *count;             /* per cell: units claiming it now */
    uint32_t *mark;             /* scratch stamps for de-duplicating a path */
    uint32_t mark_gen;
    astar_unit_claim *units;
    int32_t nunits, cap_units;
    int64_t total;              /* the sum of count[]: what bounds a query's claim penalties */
    astar_alloc alloc;
};

#endif
