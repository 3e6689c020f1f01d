/*
 * Clearance of a grid's terrain (clearance.c, docs/design/clearance.md): per cell, the side
 * of the largest square of walkable cells whose top-left cell it is, capped at
 * ASTAR_MAX_SIZE. A unit of size n may stand on an anchor whose clearance is at least n.
 */
#ifndef ASTAR_CLEARANCE_H
#define ASTAR_CLEARANCE_H

#include "core.h"

/* ASTAR_MAX_SIZE (astar.h) caps the table's values: a write recomputes the
 * ASTAR_MAX_SIZE x ASTAR_MAX_SIZE anchors up-left of it. */

/* The table into *out (a byte per bordered cell, 0 on blocked cells and the border), made on
 * its first use in one pass over the map (charged a unit per cell to the progress handler):
 * ASTAR_ENOMEM or ASTAR_ESTOPPED leave it unmade, made on the next use. From then on the grid
 * keeps it in step with its terrain. */
astar_status astar_clearance_get(astar_grid *g, const uint8_t **out);
/* A cell became walkable or blocked: recomputes the anchors up-left of it, O(ASTAR_MAX_SIZE^2). */
void astar_clearance_cell_changed(astar_grid *g, int32_t cell);
/* After a bulk write: recomputes the whole table if made (the write counted
 * astar_clearance_reset_units before it changed anything). */
void astar_clearance_bulk_changed(astar_grid *g);
uint64_t astar_clearance_reset_units(const astar_grid *g);
void astar_clearance_free(astar_grid *g);

#endif
