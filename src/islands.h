/* Island labels of a grid's terrain (islands.c): proofs of "unreachable" without a search. */
#ifndef ASTAR_ISLANDS_H
#define ASTAR_ISLANDS_H

#include "core.h"

/* Labels for one kind of connectivity: 0 = 4-connected, 1 = 8-connected, 2 = hex. */
#define ASTAR_ISLAND_KINDS 3

typedef enum { ASTAR_ISLANDS_FRESH, ASTAR_ISLANDS_OVER, ASTAR_ISLANDS_STALE } astar_islands_state;

typedef struct astar_islands {
    /*
     * Union-find over the cells: a root holds -(its set's size), another cell
     * the cell it joined, a cell that was blocked when the labels were built
     * ASTAR_ISLAND_NONE. NULL until first needed.
     */
    int32_t *link;
    astar_islands_state state;  /* OVER: cells were blocked since the build, so two cells
                                   in one set may have been cut apart; never the reverse */
    uint64_t wasted;            /* expansions of unreachable searches while OVER */
} astar_islands;

#define ASTAR_ISLAND_NONE INT32_MIN

/* Which island labels prove "unreachable" under a mode (see islands.c). */
static inline int astar_island_kind(astar_diagonal mode) {
    return mode == ASTAR_DIAG_ALWAYS ? 1 : mode == ASTAR_DIAG_HEX ? 2 : 0;
}

/* Keeps the island labels in step with one cell's change of walkability. */
void astar_islands_cell_changed(astar_grid *g, int32_t cell, bool walkable);
/* The labels for a kind of connectivity into *out, built or rebuilt if `exact` asks for it or
 * they are stale; ASTAR_ENOMEM, or ASTAR_ESTOPPED (the progress handler stopped the build: the
 * labels are stale). With exact false, OVER labels are returned as they are. */
astar_status astar_islands_get(astar_grid *g, int kind, bool exact, astar_islands **out);
/* The set a walkable cell belongs to. Reads only, so concurrent queries may share it. */
int32_t astar_islands_root(const astar_islands *is, int32_t cell);
void astar_islands_free(astar_grid *g);

#endif
