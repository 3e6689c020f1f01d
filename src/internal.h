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

/*
 * The eight directions, straight ones first: N, E, S, W, NE, SE, SW, NW. The
 * opposite of direction d is d ^ 2. Diagonal 4 + i is flanked by the straight
 * directions i and (i + 1) % 4.
 */
static const int8_t ASTAR_DX[8] = {0, 1, 0, -1, 1, 1, -1, -1};
static const int8_t ASTAR_DY[8] = {-1, 0, 1, 0, -1, 1, 1, -1};

/*
 * The moves a diagonal mode allows from a cell whose walkable neighbours are
 * the bits of `open` (bit d: direction d). A few bit operations instead of a
 * test per neighbour.
 */
static inline unsigned astar_legal_moves(astar_diagonal mode, unsigned open) {
    unsigned straight = open & 0xFu;
    unsigned next = ((straight >> 1) | (straight << 3)) & 0xFu; /* bit i: side (i + 1) % 4 */
    unsigned corners;
    switch (mode) {
    case ASTAR_DIAG_NEVER: return straight;
    case ASTAR_DIAG_ALWAYS: corners = 0xFu; break;
    case ASTAR_DIAG_ONE_WALKABLE: corners = straight | next; break;
    default: corners = straight & next; break;
    }
    return straight | (open & (corners << 4));
}

/*
 * On hexes ("odd-r"), a cell's six neighbours are its straight ones and the two
 * diagonal ones on the side its row leans to: odd rows (0-based) sit half a cell
 * right, so they reach NE and SE; even rows reach NW and SW.
 */
static inline unsigned astar_hex_moves(unsigned open, int32_t y) {
    return open & ((y & 1) ? 0x3Fu : 0xCFu);
}

/* Island labels for one kind of connectivity: 0 = 4-connected, 1 = 8-connected, 2 = hex. */
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

struct astar_grid {
    int32_t width, height, stride;
    size_t cells;               /* (width + 2) * (height + 2) */
    double *cost;               /* per cell; INFINITY = blocked (the border too) */
    uint8_t *open;              /* per cell: bit d set when the neighbour in direction d
                                   is walkable terrain (see ASTAR_DX) */
    double min_cost, max_cost;  /* smallest and largest walkable cost, valid unless range_dirty */
    bool range_dirty;
    astar_diagonal diagonal;
    uint32_t version;
    astar_islands islands[3];
    uint8_t legal[6][256];      /* the moves allowed from a cell whose walkable neighbours are
                                   bits: per square mode, then hex even and odd rows */
    astar_alloc alloc;
};

#define ASTAR_ISLAND_KINDS 3

/* Which island labels prove "unreachable" under a mode (see islands.c). */
static inline int astar_island_kind(astar_diagonal mode) {
    return mode == ASTAR_DIAG_ALWAYS ? 1 : mode == ASTAR_DIAG_HEX ? 2 : 0;
}

/* The legal-move table of row y (0-based) under a mode. */
static inline const uint8_t *astar_legal_row(const astar_grid *g, astar_diagonal mode, int32_t y) {
    return g->legal[mode == ASTAR_DIAG_HEX ? 4 + (y & 1) : (int)mode];
}

/* After costs were written in bulk: rebuilds the neighbour bits, marks the rest stale. */
void astar_grid_terrain_reset(astar_grid *g);
/* The smallest and largest walkable cost (INFINITY and -INFINITY when none is walkable). */
void astar_grid_cost_range(astar_grid *g, double *min, double *max);

/* Keeps the island labels in step with one cell's change of walkability. */
void astar_islands_cell_changed(astar_grid *g, int32_t cell, bool walkable);
/* The labels for a kind of connectivity, built or rebuilt if `exact` asks for it or they are
 * stale; NULL on OOM. With exact false, OVER labels are returned as they are. */
astar_islands *astar_islands_get(astar_grid *g, int kind, bool exact);
/* The set a walkable cell belongs to. Reads only, so concurrent queries may share it. */
int32_t astar_islands_root(const astar_islands *is, int32_t cell);
void astar_islands_free(astar_grid *g);

/*
 * Makes, on the calling thread, every lazy write to g that astar_find may make
 * for queries like q (whatever their endpoints): the cost range, and island
 * labels rebuilt exactly when q would consult them. Afterwards such queries
 * only read g, which is what lets astar_find_many run them on many threads:
 * a new lazy cache in astar_find must be brought up to date here too.
 */
astar_status astar_find_prepare(astar_grid *g, const astar_query *q);

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
