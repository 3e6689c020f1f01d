/* Island labels of a grid's terrain (islands.c): proofs of "unreachable" without a search. */
#ifndef ASTAR_ISLANDS_H
#define ASTAR_ISLANDS_H

#include "core.h"

/* Labels for one kind of connectivity: 0 = 4-connected, 1 = 8-connected, 2 = hex. */
#define ASTAR_ISLAND_KINDS 3
/* Units bigger than one cell (clearance.c) have labels of their own per size, over the anchors
 * they fit on: kinds 0 and 1 only (no hexes), and the same kind per diagonal mode, since a
 * diagonal step's side anchors play the side cells' part (docs/design/clearance.md). */
#define ASTAR_ISLAND_SIZED_KINDS 2
/* The label sets of a grid: per size 1..ASTAR_MAX_SIZE, per kind; size 1's set is its kind. */
#define ASTAR_ISLAND_SETS (ASTAR_ISLAND_KINDS * ASTAR_MAX_SIZE)
static inline int astar_island_set(int kind, int size) { return (size - 1) * ASTAR_ISLAND_KINDS + kind; }
/* A blocked cell's neighbours under any kind: the most sides a blocked cell can cut apart. */
#define ASTAR_ISLAND_FLOODS 8
/* The most steps a blocked cell's walks take before its floods decide (islands.c). */
#define ASTAR_ISLAND_WALK_STEPS 16384

typedef struct astar_islands {
    /* Per cell: its label, or ASTAR_ISLAND_NONE when blocked. NULL until first needed. */
    int32_t *label;
    /* Union-find over the labels: a root holds -(the cells of its island), another label the
     * label it joined. `labels` are in use out of `room` (half the cells: more than islands
     * can be; when a change finds none left, all are built afresh). */
    int32_t *parent;
    int32_t labels, room;
    /* A split's scratch: its floods' lists, in `chunks` chunks (islands.c). */
    int32_t *pool, chunks;
    bool fresh;                 /* exact: built, and every change since followed */
    uint8_t size;               /* the unit's side: 1 labels walkable cells, n > 1 the anchors
                                   whose clearance is at least n */
} astar_islands;

#define ASTAR_ISLAND_NONE INT32_MIN

/* Which island labels prove "unreachable" under a mode (see islands.c). */
static inline int astar_island_kind(astar_diagonal mode) {
    return mode == ASTAR_DIAG_ALWAYS ? 1 : mode == ASTAR_DIAG_HEX ? 2 : 0;
}

/* Keeps the built labels exact through one cell's change of walkability (g->cost already
 * holds the new cost): work bounded by the change (islands.c), counted on the progress
 * handler, no allocation; a stop leaves those labels to be built again on their next use. */
void astar_islands_cell_changed(astar_grid *g, int32_t cell, bool walkable);
/* The same for the labels of bigger units: an anchor's clearance went from `before` to `after`
 * (the table already holds `after`, and every other anchor its value as the labels know it);
 * each size whose threshold it crosses joins or splits at it. */
void astar_islands_anchor_changed(astar_grid *g, int32_t cell, uint8_t before, uint8_t after);
/* After a bulk write (astar_grid_terrain_reset): the labels built before are built again now,
 * on a handler that never stops: the write counted astar_islands_reset_units first. */
void astar_islands_terrain_reset(astar_grid *g);
uint64_t astar_islands_reset_units(const astar_grid *g);
/* The exact labels for a kind of connectivity into *out, built on first need (or after a
 * stopped change); ASTAR_ENOMEM, or ASTAR_ESTOPPED (the progress handler stopped the build:
 * none until the next call). */
astar_status astar_islands_get(astar_grid *g, int kind, astar_islands **out);
/* The same for a unit of `size` (1..ASTAR_MAX_SIZE; kind 0 or 1 when above 1), built in a pass
 * over the map on the first use of a size; above 1 the caller has made the clearance table
 * (astar_clearance_get: ASTAR_EINVAL without it, or with hexes' kind). */
astar_status astar_islands_sized(astar_grid *g, int kind, int size, astar_islands **out);
/* The island of a cell: a label >= 0, the same for all of its cells; ASTAR_ISLAND_NONE for a
 * blocked one. Reads only, so concurrent queries may share the labels. */
static inline int32_t astar_islands_root(const astar_islands *is, int32_t cell) {
    int32_t id = is->label[cell];
    if (id < 0) return id;
    while (is->parent[id] >= 0) id = is->parent[id];
    return id;
}
/* The cells of the island whose root label is `root`. */
static inline int32_t astar_islands_size(const astar_islands *is, int32_t root) { return -is->parent[root]; }
void astar_islands_free(astar_grid *g);

#endif
