/*
 * JPS+ tables of a grid's terrain (jps_table.c): per cell and direction, how far
 * online jump point search (jps.c) would scan before it meets a jump point or a
 * wall, the goal aside. Built on first need, kept in step cell by cell by the grid.
 */
#ifndef ASTAR_JPS_TABLE_H
#define ASTAR_JPS_TABLE_H

#include "core.h"

/* One table per move set JPS runs under: 0 = 8-connected without corner cutting, 1 = 4-connected. */
#define ASTAR_JPS_TABLE_KINDS 2

/*
 * An entry v of direction d at cell p:
 *   v > 0   the first jump point on the way is v steps away;
 *   v <= 0  the next -v steps are legal and meet no jump point, then a wall;
 *   v == -ASTAR_JPS_TABLE_FAR: no jump point within the next ASTAR_JPS_TABLE_FAR legal steps, wall or not:
 *           read the entry ASTAR_JPS_TABLE_FAR steps on (a long line is a chain of such entries).
 * 16 bits keep the table at 16 bytes per cell (8-connected) and 8 (4-connected).
 */
#define ASTAR_JPS_TABLE_FAR 32767

typedef struct astar_jps_table {
    int16_t *dist;  /* per cell, astar_jps_table_dirs(kind) entries in direction order; NULL until
                       first needed */
    bool fresh;     /* false: the terrain was rewritten in bulk, rebuild before use */
} astar_jps_table;

static inline int astar_jps_table_kind(astar_diagonal mode) { return mode == ASTAR_DIAG_NEVER ? 1 : 0; }
/* Entries per cell: 4-connected JPS never moves diagonally. */
static inline int astar_jps_table_dirs(int kind) { return kind ? 4 : 8; }

/* Keeps the fresh tables in step with one cell's change of walkability (after the grid's
 * neighbour bytes). Recomputes the entries that read the cell and, along each of their lines,
 * those behind them for as long as they change. */
void astar_jps_table_cell_changed(astar_grid *g, int32_t cell);
/* After a bulk write: every table built before is built again now, at the write's own cost
 * (astar_jps_table_reset_units, which the write counted before it changed anything). */
void astar_jps_table_bulk_changed(astar_grid *g);
uint64_t astar_jps_table_reset_units(const astar_grid *g);
/* A kind's table into *out, allocated and built if it is missing or stale; ASTAR_ENOMEM, or
 * ASTAR_ESTOPPED (the progress handler stopped the build: stale, built again next time). */
astar_status astar_jps_table_get(astar_grid *g, int kind, astar_jps_table **out);
void astar_jps_table_free(astar_grid *g);

/* ---- for tests and benchmarks, not part of the API */

/* How many entries of a kind's fresh table differ from a table built from scratch now; -1
 * when there is no fresh table or on OOM. */
int64_t astar_jps_table_mismatches(astar_grid *g, int kind);
/* The bytes the tables of g take. */
size_t astar_jps_table_bytes(const astar_grid *g);

#endif
