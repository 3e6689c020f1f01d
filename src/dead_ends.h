/*
 * Dead ends of a grid's terrain (dead_ends.c): areas that join the rest of their island
 * through one gateway cell, which a query may skip when it needs nothing inside them
 * (docs/design/dead_ends.md says why that is exact).
 */
#ifndef ASTAR_DEAD_ENDS_H
#define ASTAR_DEAD_ENDS_H

#include "core.h"

/* One cache per move graph: 0 = 4-connected, 1 = 8-connected, 2 = hex. */
#define ASTAR_DEAD_END_KINDS 3

/*
 * The kind whose graph holds every move of a mode. Not islands' kind: "one_walkable" cuts a
 * corner past a gateway, so a 4-connected dead end is not one under it (the design doc).
 */
static inline int astar_dead_end_kind(astar_diagonal mode) {
    return mode == ASTAR_DIAG_NEVER || mode == ASTAR_DIAG_NO_CORNER_CUT ? 0
           : mode == ASTAR_DIAG_HEX                                     ? 2
                                                                        : 1;
}

/*
 * Areas are the blocks (biconnected components) of the walkable cells, in the block-cut tree
 * of each island rooted at its largest block: an area is everything on the far side of its
 * gateway, so areas nest. A cell's area is the innermost one holding it.
 */
typedef struct astar_dead_ends {
    int32_t *area;       /* per cell: its innermost area, or -1 (not in a dead end, blocked) */
    int32_t *gateway;    /* per area: the cell it is entered through */
    int32_t *parent;     /* per area: the area holding its gateway, or -1 */
    uint8_t *into;       /* per area: the directions from its gateway into it */
    uint8_t *open;       /* per cell: the grid's neighbour bits without the moves from a
                            gateway into its areas; NULL until first needed */
    int32_t nareas;
    uint64_t serial;     /* changes with every build, over all grids: copies compare it */
    bool fresh;
} astar_dead_ends;

/* The terrain's walkability changed: rebuild on next use. */
void astar_dead_ends_stale(astar_grid *g);
/* A kind's areas into *out, built if missing or stale; ASTAR_ENOMEM, or ASTAR_ESTOPPED (the
 * progress handler stopped the build: not fresh, built again next time). */
astar_status astar_dead_ends_get(astar_grid *g, int kind, astar_dead_ends **out);
void astar_dead_ends_free(astar_grid *g);

/*
 * A query's view: `open` is a copy of de->open that the query patches to reopen the areas it
 * needs, `mark` has a stamp per area reopened, `patched` lists the gateways it changed so that
 * the next query on the same copy undoes only those. Owned by a workspace.
 */
typedef struct astar_dead_end_view {
    uint8_t *open;
    uint32_t *mark;
    int32_t *patched;
    int32_t npatched;
    size_t cells;        /* the size of open */
    int32_t cap;         /* the size of mark and patched */
    uint32_t stamp;
    uint64_t serial;     /* the build open was copied from, 0 = none */
} astar_dead_end_view;

/* Makes v a fresh copy of de's bytes with nothing reopened; false on OOM. */
bool astar_dead_end_view_begin(astar_dead_end_view *v, const astar_dead_ends *de,
                               const astar_alloc *a, size_t cells);
/* Reopens the areas holding `cell` and every area around them (no-op outside dead ends). */
void astar_dead_end_view_keep(astar_dead_end_view *v, const astar_dead_ends *de, int32_t cell);
void astar_dead_end_view_free(astar_dead_end_view *v, const astar_alloc *a);

#endif
