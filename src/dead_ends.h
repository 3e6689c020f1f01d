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
 *
 * The table follows the terrain without a rebuild (docs/design/dead_ends.md, "A living
 * world"): a cell's area never changes after the build (a cell blocked then has none until it
 * is opened: then it gets one once), blocking a cell only clears its bits in `open`, and
 * opening one *retires* the areas it may join to others: their `into` becomes 0, their moves
 * are given back in `open`, and they are never skipped again until the next build (a lookup
 * treats their cells as their parent's). astar_dead_ends_refresh rebuilds.
 */
typedef struct astar_dead_ends {
    int32_t *area;       /* per cell: its innermost area; -1: none (the main part), -2: blocked
                            at the build and not opened since */
    int32_t *gateway;    /* per area: the cell it is entered through */
    int32_t *parent;     /* per area: the area holding its gateway, or -1 */
    int32_t *depth;      /* per area: 1 + its parent's (-1 is at 0) */
    uint8_t *into;       /* per area: the directions from its gateway into it; 0: retired */
    uint8_t *open;       /* per cell: the grid's neighbour bits without the moves from a
                            gateway into its areas that are not retired; NULL until needed */
    int32_t *log;        /* the last ASTAR_DEAD_END_LOG cells whose byte of `open` changed since
                            the build (entry e & (ASTAR_DEAD_END_LOG - 1) is edit e) */
    uint64_t edits;      /* bytes of `open` changed since the build */
    int32_t nareas, nretired;
    uint64_t serial;     /* changes with every build, over all grids: copies compare it */
    bool fresh;
} astar_dead_ends;

#define ASTAR_DEAD_END_LOG 1024u

/* A cell became walkable or blocked (after the grid's own bits changed): every table built
 * follows, in time proportional to the change (the areas it retires), not to the map. */
void astar_dead_ends_cell_changed(astar_grid *g, int32_t cell, bool walkable);
/* After a bulk write: every table built before is built again now, at the write (which
 * counted astar_dead_ends_reset_units before it changed anything, so that it never stops
 * half-way), as island labels and JPS+ tables are; on out of memory it is stale, built on
 * its next use. */
void astar_dead_ends_bulk_changed(astar_grid *g);
uint64_t astar_dead_ends_reset_units(const astar_grid *g);
/* A kind's areas into *out, built if missing or stale; ASTAR_ENOMEM, or ASTAR_ESTOPPED (the
 * progress handler stopped the build: not fresh, built again next time). */
astar_status astar_dead_ends_get(astar_grid *g, int kind, astar_dead_ends **out);
/* Rebuilds now every table built whose areas were retired since its build (whole: that
 * changed at all since, so that it also finds the areas blocked cells made), or which is
 * stale: the explicit place for the whole-map work (grid:prepare()), O(cells) per table
 * rebuilt, nothing for the others. Same statuses as astar_dead_ends_get; a table whose
 * rebuild stops or runs out of memory stays as it was (exact). */
astar_status astar_dead_ends_refresh(astar_grid *g, bool whole);
void astar_dead_ends_free(astar_grid *g);

/*
 * A query's view: `open` is a copy of de->open that the query patches to reopen the areas it
 * needs, `mark` has a stamp per area reopened, `patched` lists the gateways it changed so that
 * the next query on the same copy undoes only those. Owned by a workspace. The copy is made a
 * page at a time (2^ASTAR_VIEW_PAGE_SHIFT cells), when a query first reads or patches a cell of it
 * (astar_dead_end_view_at): a search pays for the pages it touches, not for the map (a whole
 * copy was a pass over the map and a byte a cell at a workspace's first use). `copied` says
 * which pages hold de's bytes; the others are never read. While a query reads the view, de
 * does not change: a job's next step after a change leaves the view first (jobs.c).
 */
#define ASTAR_VIEW_PAGE_SHIFT 12
typedef struct astar_dead_end_view {
    uint8_t *open;
    uint8_t *copied;     /* per page of open: 1 once it holds de's bytes */
    const uint8_t *from; /* de->open, which the pages are copied from */
    uint32_t *mark;
    int32_t *patched;
    int32_t npatched;
    size_t cells;        /* the size of open */
    int32_t cap;         /* the size of mark and patched */
    uint32_t stamp;
    uint64_t serial;     /* the build open was copied from, 0 = none */
    uint64_t edits;      /* the build's edits open has (astar_dead_ends.edits) */
} astar_dead_end_view;

/* Makes v a fresh copy of de's bytes with nothing reopened: undoes the last query's patches
 * and copies the bytes edited since (the whole copy only after another build or more edits
 * than the log holds); false on OOM. */
bool astar_dead_end_view_begin(astar_dead_end_view *v, const astar_dead_ends *de,
                               const astar_alloc *a, size_t cells);
/* Reopens the areas holding `cell` and every area around them (no-op outside dead ends);
 * terrain is the grid's neighbour bits (a cell blocked since the build stays shut). */
void astar_dead_end_view_keep(astar_dead_end_view *v, const astar_dead_ends *de,
                              const uint8_t *terrain, int32_t cell);
void astar_dead_end_view_free(astar_dead_end_view *v, const astar_alloc *a);
/* Copies the page holding cell from de's bytes (astar_dead_end_view_at's slow side). */
void astar_dead_end_view_copy(astar_dead_end_view *v, int32_t cell);
/* The view's byte of cell, its page copied first if it was not. */
static inline uint8_t astar_dead_end_view_at(astar_dead_end_view *v, int32_t cell) {
    if (!v->copied[cell >> ASTAR_VIEW_PAGE_SHIFT]) astar_dead_end_view_copy(v, cell);
    return v->open[cell];
}
/* Gives back the pages of the copy (where the system can), which are copied again on touch. */
void astar_dead_end_view_trim(astar_dead_end_view *v, const astar_alloc *a);

#endif
