/* Internal layout shared by the core's files. Not installed; hosts use astar.h. */
#ifndef ASTAR_INTERNAL_H
#define ASTAR_INTERNAL_H

#include "astar.h"

#include <math.h>
#include <stdbool.h>

/*
 * Every per-cell array is stored with a one-cell border (stride = width + 2),
 * so neighbour loops need no bounds checks: the border is blocked terrain,
 * zero influence and no claims. "cell" below means an index into such an
 * array; "node id" means the public 0-based y * width + x.
 */
static inline int32_t astar_cell(int32_t stride, int32_t x, int32_t y) {
    return (y + 1) * stride + (x + 1);
}

void *astar_mem(const astar_alloc *a, void *p, size_t old_size, size_t new_size);
/* n * size, or 0 when it overflows (callers treat 0 as OOM). */
size_t astar_array_size(size_t n, size_t size);
bool astar_size_ok(int32_t width, int32_t height);
/* The given allocator, or one over malloc when alloc or alloc->fn is NULL. */
astar_alloc astar_pick_alloc(const astar_alloc *alloc);

struct astar_grid {
    int32_t width, height, stride;
    size_t cells;               /* (width + 2) * (height + 2) */
    double *cost;               /* per cell; INFINITY = blocked (the border too) */
    double min_cost;            /* smallest walkable cost, valid unless min_dirty */
    bool min_dirty;
    astar_diagonal diagonal;
    uint32_t version;
    astar_alloc alloc;
};

struct astar_layer {
    int32_t width, height, stride;
    size_t cells;
    double *value;              /* per cell, border 0 */
    astar_alloc alloc;
};

enum { ASTAR_UNIT_IDLE = -1, ASTAR_UNIT_FREE = -2 }; /* slot with no claim / unused slot */

typedef struct astar_unit_claim {
    int32_t *cells;             /* the claimed path, as cells */
    uint8_t *last;              /* 1 where the cell does not appear later in the path */
    int32_t n, cap;
    int32_t pos;                /* current index; ASTAR_UNIT_IDLE, ASTAR_UNIT_FREE */
} astar_unit_claim;

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
