/* The grid (grid.c): terrain with a blocked border, the moves it allows, and its caches. */
#ifndef ASTAR_GRID_H
#define ASTAR_GRID_H

#include "clearance.h"
#include "core.h"
#include "dead_ends.h"
#include "islands.h"
#include "jps_table.h"

/*
 * Every per-cell array is stored with a one-cell border (stride = width + 2),
 * so neighbour loops need no bounds checks: the border is blocked terrain,
 * zero in every layer and no claims. "cell" below means an index into such an
 * array; "node id" means the public 0-based y * width + x.
 */
static inline int32_t astar_cell(int32_t stride, int32_t x, int32_t y) {
    return (y + 1) * stride + (x + 1);
}

/*
 * The eight directions, straight ones first: N, E, S, W, NE, SE, SW, NW. The
 * opposite of direction d is d ^ 2. Diagonal 4 + i is flanked by the straight
 * directions i and (i + 1) % 4.
 */
static const int8_t ASTAR_DX[8] = {0, 1, 0, -1, 1, 1, -1, -1};
static const int8_t ASTAR_DY[8] = {-1, 0, 1, 0, -1, 1, 1, -1};

/* The `from` of a search's start: no direction, and (ASTAR_FROM_START ^ 2) masks no move. */
#define ASTAR_FROM_START 8

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

struct astar_landmarks;
struct astar_hierarchy;

/*
 * The change log: the last ASTAR_CHANGE_LOG terrain writes that changed a cell, so that what
 * was built or searched at an older version (a job in flight, a build, a path to check) can
 * tell which cells changed since instead of assuming all did. Entry v & (ASTAR_CHANGE_LOG - 1)
 * holds the write that made version v.
 */
#define ASTAR_CHANGE_LOG 1024u

/* The class log, alike for class writes (which move class_version, not the version): entry
 * v & (ASTAR_CHANGE_LOG - 1) holds the write that made class_version v. Jobs with classes
 * follow them (jobs.c). */
typedef struct astar_class_change {
    int32_t cell;
    uint8_t before, after;
} astar_class_change;

typedef struct astar_change {
    uint32_t version;           /* the grid's version after this write */
    int32_t cell;
    double before, after;       /* the cell's cost (INFINITY: blocked) */
} astar_change;

struct astar_grid {
    int32_t width, height, stride;
    size_t cells;               /* (width + 2) * (height + 2) */
    double *cost;               /* per cell; INFINITY = blocked (the border too) */
    uint8_t *open;              /* per cell: bit d set when the neighbour in direction d
                                   is walkable terrain (see ASTAR_DX) */
    double min_cost, max_cost;  /* smallest and largest walkable cost, valid unless range_dirty */
    size_t min_count, max_count; /* walkable cells at min_cost and at max_cost: a write to one of
                                    them needs no pass over the map while others are left */
    bool range_dirty;
    astar_diagonal diagonal;
    uint32_t version;           /* bumped by every write that changes a cell's cost */
    uint32_t known_since;       /* the log holds every change after this version (a bulk
                                   write, or one the log could not hold, sets it) */
    astar_change *log;          /* ASTAR_CHANGE_LOG entries */
    astar_islands islands[ASTAR_ISLAND_SETS]; /* by astar_island_set: size 1's by kind */
    astar_dead_ends dead_ends[ASTAR_DEAD_END_KINDS]; /* by astar_dead_end_kind */
    astar_jps_table jps_tables[ASTAR_JPS_TABLE_KINDS]; /* JPS+ tables, by astar_jps_table_kind */
    struct astar_landmarks *landmarks; /* NULL: none built */
    uint64_t landmark_serial;   /* bumped whenever what queries read of landmarks changes */
    struct astar_hierarchy *hierarchy; /* two-tier search's clusters; NULL: none built */
    uint8_t *clearance;         /* per cell: the largest free square anchored there, capped at
                                   ASTAR_MAX_SIZE (clearance.c); NULL until a query needs it */
    uint8_t legal[6][256];      /* the moves allowed from a cell whose walkable neighbours are
                                   bits: per square mode, then hex even and odd rows */
    uint8_t *cls;               /* per cell: its terrain class (astar_grid_set_class); NULL
                                   until a class other than 0 is set: all 0 */
    uint32_t class_version;     /* bumped by every class write that changes a cell's class */
    int32_t *class_cells;       /* with cls: how many cells hold each class (256 counts) */
    astar_class_change *class_log; /* with cls: ASTAR_CHANGE_LOG entries */
    uint64_t *row_bits;         /* a bit per cell, set when walkable, row by row: jump point
                                   search scans 64 cells of a line at once */
    uint64_t *col_bits;         /* the same column by column (vertical lines) */
    size_t row_words, col_words; /* words per row (per column), one zero word each side */
    astar_alloc alloc;
};

/* The legal-move table of row y (0-based) under a mode. */
static inline const uint8_t *astar_legal_row(const astar_grid *g, astar_diagonal mode, int32_t y) {
    return g->legal[mode == ASTAR_DIAG_HEX ? 4 + (y & 1) : (int)mode];
}

/* Keeps row_bits and col_bits in step with one cell's walkability. */
static inline void astar_grid_line_bits(astar_grid *g, int32_t cell, bool walkable) {
    int32_t r = cell / g->stride, x = cell - r * g->stride;
    uint64_t *rw = &g->row_bits[(size_t)r * g->row_words + 1 + (size_t)(x >> 6)];
    uint64_t *cw = &g->col_bits[(size_t)x * g->col_words + 1 + (size_t)(r >> 6)];
    uint64_t rb = UINT64_C(1) << (x & 63), cb = UINT64_C(1) << (r & 63);
    *rw = walkable ? *rw | rb : *rw & ~rb;
    *cw = walkable ? *cw | cb : *cw & ~cb;
}

/*
 * Whether the log holds every change after version `since`: none was a bulk write, and there
 * were at most ASTAR_CHANGE_LOG of them. Then astar_grid_change(g, v) for v from since + 1 up
 * to g->version (in uint32_t arithmetic) are those changes, oldest first.
 */
static inline bool astar_grid_changes_known(const astar_grid *g, uint32_t since) {
    uint32_t behind = g->version - since;
    return behind == 0 ||
           (behind <= ASTAR_CHANGE_LOG && since - g->known_since <= g->version - g->known_since);
}
static inline const astar_change *astar_grid_change(const astar_grid *g, uint32_t v) {
    return &g->log[v & (ASTAR_CHANGE_LOG - 1u)];
}
/* Whether the class log holds every class write after class_version `since` (there is no bulk
 * class write); then astar_grid_class_change(g, v) for v from since + 1 up to class_version. */
static inline bool astar_grid_class_changes_known(const astar_grid *g, uint32_t since) {
    return g->class_version - since <= ASTAR_CHANGE_LOG;
}
static inline const astar_class_change *astar_grid_class_change(const astar_grid *g, uint32_t v) {
    return &g->class_log[v & (ASTAR_CHANGE_LOG - 1u)];
}
/* A change the log cannot describe cell by cell (a bulk write): everything built or searched
 * before it must assume any cell changed. */
void astar_grid_changed_all(astar_grid *g);

/* After costs were written in bulk: rebuilds the neighbour bits, marks the rest stale. */
void astar_grid_terrain_reset(astar_grid *g);
/* The smallest and largest walkable cost (INFINITY and -INFINITY when none is walkable);
 * ASTAR_ESTOPPED when the progress handler stopped the pass that recomputes them. */
astar_status astar_grid_cost_range(astar_grid *g, double *min, double *max);

#endif
