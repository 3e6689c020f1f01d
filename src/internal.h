/* Internal layout shared by the core's files. Not installed; hosts use astar.h. */
#ifndef ASTAR_INTERNAL_H
#define ASTAR_INTERNAL_H

#include "astar.h"
#include "heap.h"

#include <math.h>
#include <stdbool.h>

/* |v| <= ASTAR_MAX_VALUE (false for NaN and the infinities). */
static inline bool astar_value_ok(double v) {
    return v >= -ASTAR_MAX_VALUE && v <= ASTAR_MAX_VALUE;
}

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

/*
 * Landmarks (see landmarks.c). dist holds, per cell, k distances from the landmarks and
 * then k distances to them, each rounded toward zero; NaN where nothing is known (another
 * island, a blocked cell, the border, a value too large or too small for a float).
 */
typedef struct astar_landmarks {
    float *dist;                /* in block, at a cache line */
    void *block;
    size_t bytes;               /* block's size */
    int32_t k;
    int32_t dirs;               /* 2: d(L, n) and then d(n, L) per cell; 1: costs are one, the two equal */
    int32_t cells[ASTAR_MAX_LANDMARKS];
    astar_diagonal mode;        /* the moves they were measured under */
    double shrink;              /* < 1: undoes what rounding to floats may add to h's slope */
    bool valid;                 /* false once a cost went down: the distances may overestimate */
} astar_landmarks;

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
    astar_landmarks *landmarks; /* NULL: none built */
    uint8_t legal[6][256];      /* the moves allowed from a cell whose walkable neighbours are
                                   bits: per square mode, then hex even and odd rows */
    uint64_t *row_bits;         /* a bit per cell, set when walkable, row by row: jump point
                                   search scans 64 cells of a line at once */
    uint64_t *col_bits;         /* the same column by column (vertical lines) */
    size_t row_words, col_words; /* words per row (per column), one zero word each side */
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

/* Keeps row_bits and col_bits in step with one cell's walkability. */
static inline void astar_grid_line_bits(astar_grid *g, int32_t cell, bool walkable) {
    int32_t r = cell / g->stride, x = cell - r * g->stride;
    uint64_t *rw = &g->row_bits[(size_t)r * g->row_words + 1 + (size_t)(x >> 6)];
    uint64_t *cw = &g->col_bits[(size_t)x * g->col_words + 1 + (size_t)(r >> 6)];
    uint64_t rb = UINT64_C(1) << (x & 63), cb = UINT64_C(1) << (r & 63);
    *rw = walkable ? *rw | rb : *rw & ~rb;
    *cw = walkable ? *cw | cb : *cw & ~cb;
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

void astar_landmarks_free(astar_grid *g);
/* Whether the landmarks may serve a query that moves under `mode` (the effective one). */
const astar_landmarks *astar_landmarks_for(const astar_grid *g, astar_diagonal mode);
/* What rounding a stored distance toward zero may have taken off: stored * this >= exact. */
#define ASTAR_LANDMARK_UP (1.0 + 0x1p-22)

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

/* Up to this many targets, the heuristic is the distance to the nearest; beyond, 0. */
#define ASTAR_HEURISTIC_TARGETS 64

/*
 * What P(b) reads, resolved once per query. The loop keeps a copy in locals:
 * through the query_ctx pointer the compiler would reload every field after
 * each store to a node record.
 */
typedef struct penalty_view {
    int nlayers;
    const double *value0;    /* the first layer's values and weight: no loop for one layer */
    double weight0;
    bool claims;
    double claim_penalty;
    const int32_t *count;    /* claims->count: every unit's claims */
    bool overlay;            /* this query counts fewer: claimed[] where claim_gen == gen, */
    bool only_overlay;       /* and elsewhere count[] or, with a radius, nothing */
    const int32_t *claimed;
    const uint16_t *claim_gen;
    uint16_t gen;
} penalty_view;

/* Everything one query needs in the loop, resolved once before it starts. */
typedef struct query_ctx {
    astar_search *s;
    astar_grid *g;
    const astar_query *q;
    const double *cost;
    int32_t stride;
    int32_t offset[8];       /* cell index step of each direction */
    uint64_t row_magic;      /* cell / stride as a multiply and a shift (see row_of) */
    int row_shift;
    int32_t goal, gx, gy;
    bool goal_open;          /* with targets: some target is walkable */
    int32_t ntargets;        /* > 0: many goals (the general loop), their cells marked */
    int32_t target_xy[2 * ASTAR_HEURISTIC_TARGETS]; /* for the heuristic, when few enough */
    bool target_h;           /* the heuristic is the distance to the nearest target */
    astar_diagonal diagonal;
    astar_heuristic heuristic;
    double h_scale;          /* min terrain cost: keeps the heuristic admissible */
    double uniform_cost;     /* the cost of every walkable cell when they are all alike, else 0:
                                the loop then reads no cost[] (one cache line less per row) */
    double weight;
    bool penalties;          /* penalty[] is in use (the loop with callbacks) */
    bool windowed;           /* claims count by time (claim_window): not part of penalty[] */
    bool reopen;             /* the heuristic may be inconsistent: closed nodes can improve */
    penalty_view pv;
    const double *layer_value[ASTAR_MAX_LAYERS]; /* the query's layers, one step nearer */
    double layer_weight[ASTAR_MAX_LAYERS];
    bool aborted;
    const float *lm;         /* the grid's landmark distances, when this query may use them */
    int32_t lm_stride;       /* floats per cell */
    int32_t lm_back;         /* offset of d(n, L) from d(L, n) in a cell's floats */
    int32_t lm_active;       /* landmarks this query uses: lm_index[0 .. lm_active) */
    double lm_shrink;
    int32_t lm_index[ASTAR_LANDMARKS_ACTIVE];
    double lm_from[ASTAR_LANDMARKS_ACTIVE]; /* d(L, goal), rounded down; -inf when unknown */
    double lm_to[ASTAR_LANDMARKS_ACTIVE];   /* d(goal, L), lifted above; +inf when unknown */
    /* Where the loop stands between the steps of a resumable search. */
    int32_t start;
    uint64_t expansions;
    int32_t best;            /* partial: the best node so far, its h and g */
    double best_h, best_g;
    bool pruned;             /* max_cost left something out */
    bool callbacks, layered; /* which loop runs it */
    astar_islands *islands;  /* the labels that let it start, if any */
} query_ctx;

/* The search workspace (search.c; jps.c reuses its node records, open list and path). */
/* Another unit on a node from step lo to step hi of its remaining path. */
typedef struct window_claim {
    int32_t unit, lo, hi;
    int32_t then;           /* the cell the unit moves to after hi, or -1 (it stays) */
    int32_t next;           /* the next claim of the same cell, or -1 */
} window_claim;

struct astar_search {
    int32_t width, height, stride;
    size_t cells;
    astar_node *nodes;
    uint16_t gen;           /* this query's stamp: wraps after 65535 queries (see astar_find) */
    astar_heap heap;
    double *penalty;        /* per cell: P + node_cost of this query; INFINITY = blocked */
    double *custom_h;       /* per cell: the custom heuristic's value this query, NAN = not asked */
    int32_t *claimed;       /* per cell: units counted by this query, where claim_gen == gen */
    uint16_t *claim_gen;
    int32_t *target_of;     /* per cell: index of the target there, where target_gen == gen */
    uint16_t *target_gen;
    int32_t *depth;         /* per cell: steps from the start of its way in (claim_window) */
    int32_t *window_head;   /* per cell: its first window_claim, where claim_gen == gen, or -1 */
    struct window_claim *window;   /* claims with times, chained per cell (claim_window) */
    int32_t window_len, window_cap;
    int32_t *path;          /* node ids of the last path */
    int32_t path_len, path_cap;
    astar_alloc alloc;
    /* The search started by astar_search_start, between its steps. */
    query_ctx job;
    bool job_live;          /* started and not finished: astar_search_step continues it */
    uint32_t job_version;   /* the grid's terrain version when it started */
    uint32_t job_restarts;
    astar_result job_result; /* the final result, once there is one */
};

/* Doubles the open list, up to one slot per cell; false on OOM. */
bool astar_search_grow_heap(astar_search *s);

/*
 * Jump point search (jps.c) for a query astar_find has found eligible (see astar_jps):
 * s has this query's stamp and an empty open list; start is walkable, goal
 * walkable; mode NO_CORNER_CUT or NEVER; unit the cost of every walkable cell; no budget
 * (max_expansions, max_cost). Fills res's cost, length, expansions and the path; returns
 * the status.
 */
astar_status astar_jps_find(astar_search *s, const astar_grid *g, astar_diagonal mode,
                            int32_t start, int32_t goal, double unit, astar_result *res);

#endif
