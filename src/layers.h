/* What the cost model reads besides terrain (layers.c): influence layers, fog-of-war masks
 * and claims. */
#ifndef ASTAR_LAYERS_H
#define ASTAR_LAYERS_H

#include "core.h"

/* Every per-cell array below has a one-cell border, as the grid's (see grid.h). */
struct astar_layer {
    int32_t width, height, stride;
    size_t cells;
    double *value;              /* per cell, border 0 */
    double *scratch;            /* per cell, for spread; NULL until first needed */
    astar_alloc alloc;
};

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
    astar_alloc alloc;
};

#endif
