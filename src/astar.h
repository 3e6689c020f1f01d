/*
 * astar.h -- the public C interface of the astar core: plain C11, no Lua (the Lua binding,
 * src/lua/, is one more host). Per function: a summary, its parameters, what it returns. The
 * longer notes are in docs/design/c_api.md under the same section names; timings in
 * docs/performance.md.
 *
 * - Coordinates are 0-based; a node id is y * width + x. (The Lua API is 1-based.)
 * - Calls that can fail return an astar_status (ASTAR_OK = 0), or NULL (astar_last_status()
 *   says why). Nothing aborts the process; nothing prints.
 * - Pointers: no pointer parameter may be NULL unless its line says [opt] (then nothing is
 *   read, or the output is not written); astar_*_free accepts NULL; a `ud` goes to its
 *   callback as given. [in], [out]: read, written.
 * - An object made by astar_*_new is the caller's, freed by the matching astar_*_free; its
 *   memory goes through the astar_alloc given at creation ([opt]: NULL uses malloc).
 * - No global mutable state (the progress handler is per thread); objects are not locked: a
 *   grid, layer, mask or claims may be read by many searches at once (one workspace per
 *   thread) while nobody writes to it.
 * - Callbacks may longjmp out of a search (the Lua binding does): the core holds no memory
 *   only a local variable owns, so a longjmp leaks nothing.
 * - Words: a layer is a number per cell (Lua: influence), a mask what a player knows (a
 *   query's `known`), an island a connected area of walkable cells (astar_grid_component),
 *   JPS jump point search (its table: the JPS+ table).
 */
#ifndef ASTAR_H
#define ASTAR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ASTAR_VERSION "0.1.0"

/* ================================================================ basics */

typedef enum astar_status {
    ASTAR_OK = 0,          /* success (also: path found) */
    ASTAR_UNREACHABLE,     /* the open list ran dry, or the goal is blocked */
    ASTAR_LIMIT,           /* max_expansions or max_cost cut the search */
    ASTAR_PARTIAL,         /* not found; the path leads to the closest node */
    ASTAR_EINVAL,          /* an argument is out of range or malformed */
    ASTAR_ENOMEM,          /* the allocator failed; nothing was changed */
    ASTAR_EABORT,          /* a callback asked to stop, or returned a bad value */
    ASTAR_RUNNING,         /* astar_search_step: not finished yet, step again */
    ASTAR_ESTOPPED         /* the progress handler asked to stop; nothing was changed */
} astar_status;

/* A static, human-readable name of a status ("found", "unreachable", ..., "stopped"). */
const char *astar_status_name(astar_status s);

/* How the last constructor called on this thread (an astar_*_new, astar_movingai_parse)
 * ended: ASTAR_OK when it returned an object, else why it returned NULL (ASTAR_EINVAL: an
 * argument, or a malformed map; ASTAR_ENOMEM; ASTAR_ESTOPPED: the progress handler). */
astar_status astar_last_status(void);

/* Allocator hook, shaped like lua_Alloc: fn(ud, ptr, old_size, new_size). new_size == 0 frees
 * ptr and returns NULL; otherwise it returns the new block, or NULL on failure (ptr untouched). */
typedef void *(*astar_alloc_fn)(void *ud, void *ptr, size_t old_size, size_t new_size);
typedef struct astar_alloc {
    astar_alloc_fn fn;
    void *ud;
} astar_alloc;

/* The largest magnitude of every number a query adds up (terrain costs, layer values and
 * weights, claim penalties, noise, turn penalties, callbacks' and custom heuristics' answers,
 * heuristic weights, graph arc costs), so that no sum overflows (docs/design/c_api.md).
 * Setters and queries refuse larger values (ASTAR_EINVAL); a callback returning one aborts. */
#define ASTAR_MAX_VALUE 1e100

/* The largest value of an interest (astar_query.interests), 2^20, so that scores are exact.
 * Larger values: ASTAR_EINVAL. */
#define ASTAR_MAX_INTEREST 1048576.0

/* ====================================================== progress handler */

/* A bound on the core's work, after SQLite's sqlite3_progress_handler: a host running untrusted
 * scripts gets control back from any call. Every loop that can run long counts units (what a
 * unit is, per loop: docs/design/c_api.md); after `every` units fn(ud) is called: 0 goes on,
 * non-zero stops the call, which returns ASTAR_ESTOPPED (a constructor NULL) and leaves every
 * object as it was before it (a search or build in slices stops between two units and goes on
 * at its next step). fn must not call the core (but astar_set_progress_handler) nor longjmp.
 * Calls that use threads carry the handler to their workers: fn is then called on them too,
 * one call at a time, and a stop may come up to ASTAR_PROGRESS_LEASE units per worker early. */
typedef int (*astar_progress_fn)(void *ud);

#define ASTAR_PROGRESS_LEASE 256

/* Installs fn for the calling thread (C11 _Thread_local), its count starting at 0.
 * @param[in] every  units between two calls of fn; 0 removes the handler.
 * @param[in] fn     [opt] NULL removes the handler (then counting costs nothing). */
void astar_set_progress_handler(uint32_t every, astar_progress_fn fn, void *ud);
/* The units the calling thread may still do before fn is called next (0: fn is due, or said
 * stop); UINT64_MAX without a handler. */
uint64_t astar_progress_left(void);
/* Counts n units of the host's own work as the core counts its own (the Lua binding's
 * grid:load). @return ASTAR_ESTOPPED when fn said stop at a boundary they cross (then do none
 * of that work), else ASTAR_OK. */
astar_status astar_progress_work(uint64_t n);

/* ================================================================= grid */

typedef enum astar_diagonal {
    ASTAR_DIAG_NEVER = 0,        /* 4-connected */
    ASTAR_DIAG_ALWAYS,           /* 8-connected, corners may be cut */
    ASTAR_DIAG_ONE_WALKABLE,     /* diagonal if at least one side cell is walkable */
    ASTAR_DIAG_NO_CORNER_CUT,    /* diagonal only if both side cells are walkable */
    ASTAR_DIAG_HEX,              /* hexagons: "odd-r" rows (odd rows sit half a cell right), six
                                    neighbours, every step of length 1 */
    ASTAR_DIAG_DEFAULT = -1      /* in a query: use the grid's mode */
} astar_diagonal;

typedef enum astar_heuristic {
    ASTAR_H_DEFAULT = -1,   /* octile for 8-connected queries, manhattan for 4, hex for hexes */
    ASTAR_H_OCTILE = 0,
    ASTAR_H_MANHATTAN,
    ASTAR_H_EUCLIDEAN,
    ASTAR_H_CHEBYSHEV,
    ASTAR_H_ZERO,
    ASTAR_H_HEX,            /* hex steps: only for hexes, where octile, manhattan and euclidean
                               are not admissible (the Lua API refuses both mixes) */
    ASTAR_H_CUSTOM          /* astar_query.heuristic_fn, used as given (not scaled) */
} astar_heuristic;

typedef struct astar_grid astar_grid;

/* The largest width or height accepted. */
#define ASTAR_MAX_SIDE 32768

/* A width x height grid, every cell walkable at cost 1, under the given diagonal mode.
 * @return NULL for a side < 1 or > ASTAR_MAX_SIDE, or on OOM. */
astar_grid *astar_grid_new(int32_t width, int32_t height, astar_diagonal diagonal,
                           const astar_alloc *alloc);
void astar_grid_free(astar_grid *g);

int32_t astar_grid_width(const astar_grid *g);
int32_t astar_grid_height(const astar_grid *g);
astar_diagonal astar_grid_diagonal(const astar_grid *g);
void astar_grid_set_diagonal(astar_grid *g, astar_diagonal d);

/* Sets a cell's terrain cost; never stopped by the progress handler.
 * @param[in] cost  finite > 0: walkable at that multiplier; INFINITY: blocked.
 * @return ASTAR_EINVAL (no change) for a cell outside or a cost NaN, <= 0 or -inf. */
astar_status astar_grid_set_cost(astar_grid *g, int32_t x, int32_t y, double cost);
/* The terrain cost, INFINITY when blocked; NaN for a cell outside the grid. */
double astar_grid_get_cost(const astar_grid *g, int32_t x, int32_t y);
/* Sets every cell; the same rule for cost as astar_grid_set_cost. */
astar_status astar_grid_fill(astar_grid *g, double cost);
/* Sets a cell's terrain class (0..255, 0 everywhere until set), which a query's `classes`
 * table maps to a cost factor or a wall; never stopped. The first class other than 0 makes a
 * byte per cell (a grid never classed pays nothing).
 * @return ASTAR_EINVAL (no change) for a cell outside or a class outside 0..255;
 *         ASTAR_ENOMEM when the byte per cell could not be made. */
astar_status astar_grid_set_class(astar_grid *g, int32_t x, int32_t y, int cls);
/* A cell's class (0..255); -1 for a cell outside the grid. */
int astar_grid_get_class(const astar_grid *g, int32_t x, int32_t y);
/* Line-of-sight string pulling (astar.smooth): the waypoints of a path a unit walking straight
 * from one to the next needs (greedy farthest visible; docs/design/c_api.md).
 * @param[in]  cells   n node ids, any cells of g.
 * @param[in]  sides   0..3: a segment may pass exactly through a vertex with at least this
 *                     many of its two side cells walkable.
 * @param[out] limits  scratch for n doubles.
 * @param[out] keep    room for n: the kept indices into cells (0 first, n - 1 last).
 * @return how many were kept; -1 when the progress handler stopped it. */
int32_t astar_grid_smooth(const astar_grid *g, const int32_t *cells, int32_t n, int sides, double *limits,
                          int32_t *keep);
/* Sets every cell from a row-major array of width * height costs (the rule of set_cost).
 * @return ASTAR_EINVAL, nothing changed, when a cost is bad (all are checked first). */
astar_status astar_grid_set_all(astar_grid *g, const double *costs);
/* The smallest walkable terrain cost: INFINITY if none is walkable; NaN when the progress
 * handler stopped the pass that recomputes it. */
double astar_grid_min_cost(astar_grid *g);
/* Bumped on every terrain change (not by landmarks built or dropped): tells caches and
 * suspended searches they are stale. */
uint32_t astar_grid_version(const astar_grid *g);

/* ------------------------------------------------------------- islands */

/* The island of a cell: a connected area of walkable terrain under the grid's mode
 * (8-connected for ASTAR_DIAG_ALWAYS, else 4). Labels are built on first need and kept exact
 * by every write (docs/design/c_api.md); queries use them to answer another island's goal
 * "unreachable" without a search.
 * @param[out] id  the island (>= 0, the same for all its cells until the terrain changes), or
 *                 -1 for a blocked cell.
 * @return ASTAR_EINVAL outside the grid; ASTAR_ENOMEM. */
astar_status astar_grid_component(astar_grid *g, int32_t x, int32_t y, int32_t *id);
/* Whether the terrain alone connects the two cells under the grid's mode (a blocked goal
 * never; a blocked start is left through its neighbours).
 * @param[out] yes  1 or 0. */
astar_status astar_grid_reachable(astar_grid *g, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                                  int *yes);

/* ------------------------------------------------------------ dead ends */

/* The dead end holding a cell: an area that joins the rest of its island through one gateway
 * cell (rooms with one door, alcoves, corridor ends, and the areas nested in them). Built on
 * first need; queries with dead_ends set skip the areas they need nothing from.
 * @param[out] area     the innermost area's id (>= 0, kept until the areas are rebuilt), or -1.
 * @param[out] gateway  the node id of the cell it is entered through, or -1.
 * @return ASTAR_EINVAL outside the grid; ASTAR_ENOMEM. */
astar_status astar_grid_dead_end(astar_grid *g, int32_t x, int32_t y, int32_t *area,
                                 int32_t *gateway);

/* ------------------------------------------------------------ landmarks */

/* Landmarks: the differential (ALT) heuristic, the terrain's costs from and to k chosen cells,
 * taken by queries on their own once built (those with the default heuristic, one goal, no
 * mask and a mode no freer than the build's), at most ASTAR_LANDMARKS_ACTIVE of them per query.
 * Kept valid by every cell write; bulk writes make them stale until built again. Memory: 4 or
 * 8 bytes per cell and landmark (docs/design/c_api.md). */
#define ASTAR_MAX_LANDMARKS 64
#define ASTAR_LANDMARKS_ACTIVE 32

/* Builds k landmarks, replacing any (astar_build_landmarks on one thread, to the end). Not
 * while another thread queries the grid.
 * @param[in] k  0..ASTAR_MAX_LANDMARKS; 0 drops them; fewer when the largest island is small.
 * @return ASTAR_EINVAL for k; ASTAR_ENOMEM (the grid keeps its previous landmarks). */
astar_status astar_grid_landmarks(astar_grid *g, int32_t k);
/* How many landmarks queries may use now: 0 when none were built or they are stale. */
int32_t astar_grid_landmark_count(const astar_grid *g);
/* Where landmark i stands. @return ASTAR_EINVAL for i outside 0..count-1. */
astar_status astar_grid_landmark(const astar_grid *g, int32_t i, int32_t *x, int32_t *y);
/* Bytes the landmarks hold (0 when none are built; stale ones still hold theirs). */
size_t astar_grid_landmark_bytes(const astar_grid *g);

/* ---------------------------------------------------------------- builds */

/* A table built in slices (a loading screen, a frame budget) and on threads, installed on the
 * grid at once by the step that completes it: until then queries use what the grid had. A
 * terrain change between steps starts it over where it could make the work wrong
 * (astar_build_restarts). Not while another thread queries or writes the grid; between steps
 * the grid may be used freely. The grid must outlive the build, or the build be freed first. */
#define ASTAR_LANDMARK_BATCH 4
typedef struct astar_build astar_build;

/* A build of what astar_grid_landmarks(g, k) builds, the same tables whatever the threads and
 * slices (placed ASTAR_LANDMARK_BATCH at a time). Computes nothing yet.
 * @param[in]  threads  1..ASTAR_MANY_MAX_THREADS workers per step, or 0: the default.
 * @param[out] st       ASTAR_OK, or why it returned NULL (ASTAR_EINVAL: k or threads;
 *                      ASTAR_ENOMEM). */
astar_build *astar_build_landmarks(astar_grid *g, int32_t k, int threads, astar_status *st);
/* Does at most budget units (a Dijkstra's pop, 8 cells of a pass), shared by the workers.
 * @param[out] used  [opt] the units done.
 * @return ASTAR_RUNNING until the step that installs the result: ASTAR_OK (and ASTAR_OK with
 *         nothing done after); ASTAR_ENOMEM (the work dropped, the next step starts over);
 *         ASTAR_ESTOPPED (stopped between two units, the next step goes on). */
astar_status astar_build_step(astar_build *b, uint64_t budget, uint64_t *used);
/* The fraction done, in [0, 1], never decreasing but to 0 at a restart; 1 once installed. */
double astar_build_progress(const astar_build *b);
/* Times the build started over because the terrain changed. */
uint32_t astar_build_restarts(const astar_build *b);
/* The threads its steps use. */
int astar_build_threads(const astar_build *b);
void astar_build_free(astar_build *b);

/* ================================================================ layers */

/* A number per cell, read by queries by reference (no copy per query). Values are finite:
 * setters refuse NaN and infinities (ASTAR_EINVAL). */
typedef struct astar_layer astar_layer;

astar_layer *astar_layer_new(int32_t width, int32_t height, double initial,
                             const astar_alloc *alloc);
void astar_layer_free(astar_layer *l);
int32_t astar_layer_width(const astar_layer *l);
int32_t astar_layer_height(const astar_layer *l);
astar_status astar_layer_set(astar_layer *l, int32_t x, int32_t y, double v);
astar_status astar_layer_add(astar_layer *l, int32_t x, int32_t y, double v);
double astar_layer_get(const astar_layer *l, int32_t x, int32_t y);  /* NaN outside */
astar_status astar_layer_fill(astar_layer *l, double v);

typedef enum { ASTAR_FALLOFF_LINEAR, ASTAR_FALLOFF_QUADRATIC, ASTAR_FALLOFF_CONSTANT } astar_falloff;

/* Adds strength * w(d) to every cell whose centre lies within `radius` (Euclidean) of (x, y),
 * d being that distance: w = 1 (constant), 1 - d / (radius + 1) (linear) or its square
 * (quadratic). Cells outside the layer are skipped.
 * @return ASTAR_EINVAL (nothing changed) for (x, y) outside, radius < 0, a number not finite or
 *         a sum that would not be. */
astar_status astar_layer_stamp(astar_layer *l, int32_t x, int32_t y, double radius,
                               double strength, astar_falloff falloff);
/* Multiplies every value by factor >= 0 (decay); EINVAL if a product would not be finite. */
astar_status astar_layer_scale(astar_layer *l, double factor);
/* l += weight * other (same size); EINVAL, nothing changed, if a sum would not be finite. */
astar_status astar_layer_add_layer(astar_layer *l, const astar_layer *other, double weight);
/* The largest absolute value (0 for an all-zero layer); NaN when the progress handler stopped
 * the pass. */
double astar_layer_max_abs(const astar_layer *l);
/* One step of propagation (momentum/decay): every cell takes, among its 8 neighbours, the
 * contribution v(n) * exp(-decay * step) of largest magnitude (step 1 or sqrt 2; the sign
 * kept), and becomes momentum * v(cell) + (1 - momentum) * that contribution, all cells from
 * the old values at once. Only the 8x8 tiles holding a value other than +0 (and their rims)
 * are visited, to the same bits (docs/design/c_api.md).
 * @param[in] decay     >= 0.
 * @param[in] momentum  0..1.
 * @param[in] walk      [opt] a grid of the same size: its blocked cells neither pass values
 *                      on nor take them (they keep theirs).
 * @return ASTAR_ENOMEM (nothing changed) when the layer's buffer cannot grow. */
astar_status astar_layer_spread(astar_layer *l, double decay, double momentum,
                                const astar_grid *walk);
/* Row y as a plain array of width values, valid until the layer is freed (a layer of height 1
 * serves as per-node values of a graph); NULL for a row out of range. */
const double *astar_layer_row(const astar_layer *l, int32_t y);

/* ================================================================= masks */

/* What one player knows of the terrain (fog of war): a flag per cell, all unknown at first.
 * A query given a mask (astar_query.known) takes unknown cells as walkable at cost 1. */
typedef struct astar_mask astar_mask;

astar_mask *astar_mask_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_mask_free(astar_mask *m);
int32_t astar_mask_width(const astar_mask *m);
int32_t astar_mask_height(const astar_mask *m);
/* Marks known every cell whose centre lies within radius (Euclidean) of (x, y).
 * @return ASTAR_EINVAL for (x, y) outside or radius negative or NaN (INFINITY: every cell). */
astar_status astar_mask_reveal(astar_mask *m, int32_t x, int32_t y, double radius);
/* 1 known, 0 unknown, -1 outside. */
int astar_mask_is_known(const astar_mask *m, int32_t x, int32_t y);

/* ================================================================ claims */

/* Nodes claimed by units along their planned paths. A unit is a small integer slot handed out
 * by astar_claims_unit_new (a host maps its own keys to them); it claims one path, of which
 * only its current node and those after count, a node twice in one path once. */
typedef struct astar_claims astar_claims;

astar_claims *astar_claims_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_claims_free(astar_claims *c);
int32_t astar_claims_width(const astar_claims *c);
int32_t astar_claims_height(const astar_claims *c);
/* A free unit slot (>= 0) holding no claim, or -1 on OOM. */
int32_t astar_claims_unit_new(astar_claims *c);
/* Replaces the unit's claim by a copy of the path (on error the old claim stays).
 * @param[in] nodes  n >= 1 node ids; nodes[0] is where the unit stands.
 * @return ASTAR_EINVAL for a bad slot, n < 1 or a node outside; ASTAR_ENOMEM. */
astar_status astar_claims_set(astar_claims *c, int32_t unit, const int32_t *nodes, int32_t n);
/* Moves the unit `steps` (>= 0) nodes along its claim, releasing what it left. */
astar_status astar_claims_advance(astar_claims *c, int32_t unit, int32_t steps);
/* Drops the unit's claim and frees its slot for reuse. */
astar_status astar_claims_release(astar_claims *c, int32_t unit);
/* How many units claim the node now (0 outside the grid). */
int32_t astar_claims_count(const astar_claims *c, int32_t x, int32_t y);
/* The unit's current node id, or -1 if it has no claim. */
int32_t astar_claims_current(const astar_claims *c, int32_t unit);

/* ================================================================= query */

/* What a cost callback returns. */
enum {
    ASTAR_CB_PASS = 0,     /* *extra holds a cost >= 0 to add (INFINITY = block) */
    ASTAR_CB_BLOCK = 1,    /* the node (or step) is blocked for this query */
    ASTAR_CB_ABORT = -1    /* stop the search: astar_find returns ASTAR_EABORT */
};

/* Extra cost of entering node (x, y); called at most once per node per query. */
typedef int (*astar_node_cost_fn)(void *ud, int32_t x, int32_t y, double *extra);
/* Extra cost of the step (fx, fy) -> (x, y); called per step considered. */
typedef int (*astar_edge_cost_fn)(void *ud, int32_t x, int32_t y, int32_t fx, int32_t fy,
                                  double *extra);
/* A custom heuristic: a finite estimate >= 0 (a bad value aborts the search). */
typedef double (*astar_heuristic_fn)(void *ud, int32_t x, int32_t y, int32_t gx, int32_t gy);

typedef struct astar_layer_ref {
    const astar_layer *layer;
    double weight;
} astar_layer_ref;

#define ASTAR_MAX_LAYERS 32

/* Jump point search (JPS): on a uniform-cost query, A* over the cells where an optimal path
 * may turn only: the same cost as A*'s, maybe another path of that cost, still cell by cell;
 * astar_result.expansions then counts jump points. ASTAR_JPS_AUTO takes it when the query
 * qualifies (docs/design/c_api.md: one terrain cost, NO_CORNER_CUT or NEVER, the default
 * heuristic at weight 1, nothing else set, no budget) and reads the grid's JPS+ table (built
 * on first need); ASTAR_JPS_ONLINE scans the lines instead (no table); ASTAR_JPS_OFF runs A*. */
typedef enum astar_jps { ASTAR_JPS_AUTO = 0, ASTAR_JPS_OFF = 1, ASTAR_JPS_ONLINE = 2 } astar_jps;

/* Builds now the JPS+ table the first JPS query under mode would build (a fresh one is left).
 * @param[in] mode  NO_CORNER_CUT, NEVER or ASTAR_DIAG_DEFAULT (the grid's).
 * @return ASTAR_EINVAL for another mode; ASTAR_ENOMEM. */
astar_status astar_grid_prepare_jumps(astar_grid *g, astar_diagonal mode);
/* The bytes the grid's JPS+ tables take (0 before the first). */
size_t astar_grid_jump_bytes(const astar_grid *g);

/* The largest unit `size` a query may ask for (astar_query.size). */
#define ASTAR_MAX_SIZE 8

/* One query. Fill it with astar_query_init, then set what you need. The step cost from a to
 * an adjacent b is
 *     L * cost(b) + max(0, P(b) + X(a, b))
 * L = 1 or sqrt(2); P = sum of layer values * weights + claim penalty (+ noise);
 * X = node_cost(b) + edge_cost(a, b); turn_penalty adds outside the clamp. Pointer fields are
 * [opt] where their comment says NULL; arrays hold their count's entries. Longer notes on the
 * fields: docs/design/c_api.md. */
typedef struct astar_query {
    int32_t sx, sy, gx, gy;
    astar_diagonal diagonal;          /* ASTAR_DIAG_DEFAULT: the grid's */
    astar_heuristic heuristic;        /* ASTAR_H_DEFAULT */
    astar_heuristic_fn heuristic_fn;  /* with ASTAR_H_CUSTOM */
    void *heuristic_ud;
    double weight;                    /* >= 1; 1 = optimal */
    const astar_layer_ref *layers;    /* nlayers entries, same size as the grid */
    int nlayers;                      /* 0..ASTAR_MAX_LAYERS */
    const astar_claims *claims;       /* NULL: no claim penalties */
    int32_t unit;                     /* the querying unit's slot, -1 for none */
    double claim_penalty;             /* >= 0, added per other claiming unit */
    int32_t claim_radius;             /* -1: every unit; r >= 0: Chebyshev radius */
    astar_node_cost_fn node_cost;     /* NULL: none */
    void *node_cost_ud;
    astar_edge_cost_fn edge_cost;     /* NULL: none */
    void *edge_cost_ud;
    uint64_t max_expansions;          /* UINT64_MAX: no limit (0 expands nothing) */
    double max_cost;                  /* INFINITY: no limit */
    int partial;                      /* nonzero: return a partial path when not found */
    const astar_mask *known;          /* NULL: the terrain; else unknown cells cost 1 */
    double noise;                     /* >= 0: adds noise * astar_noise(seed, x, y) to P(b) */
    uint32_t seed;
    const int32_t *targets;           /* ntargets > 0: the nearest of these node ids is the
                                         goal (gx, gy ignored); not with ASTAR_H_CUSTOM */
    int32_t ntargets;
    double turn_penalty;              /* >= 0, per change of direction (approximate) */
    int32_t claim_window;             /* -1: claims count whatever their time; w >= 0: only
                                         within w steps of this path's (approximate) */
    astar_jps jps;                    /* ASTAR_JPS_AUTO (the default), _OFF or _ONLINE */
    const double *target_costs;       /* NULL, or with targets one cost (>= 0) per target, added
                                         when the path ends there */
    const int32_t *interests;         /* ninterests > 0: node ids a path may pass through to
                                         collect interest_values[i] (in (0, ASTAR_MAX_INTEREST]);
                                         not with partial */
    const double *interest_values;
    int32_t ninterests;
    int dead_ends;                    /* nonzero (the default): skip dead ends the query needs
                                         nothing from (the same cost) */
    const double *classes;            /* NULL: none; else 256 factors by terrain class, each in
                                         (0, ASTAR_MAX_VALUE] or INFINITY (the class blocks):
                                         a cell's terrain cost is cost * classes[class] */
    int32_t size;                     /* 1 (the default; 0 means 1) .. ASTAR_MAX_SIZE: the unit covers the
                                         size x size cells whose top-left is the path's cell; a
                                         step costs the dearest cell it newly covers (contract).
                                         Above 1: not on hexes (EINVAL) */
} astar_query;

void astar_query_init(astar_query *q);

/* The deterministic noise of the `noise` option, in [0, 1), for 0-based (x, y):
 *     h = (x * 0x9E3779B1 + y * 0x85EBCA77 + seed * 0xC2B2AE3D) mod 2^32
 *     h ^= h >> 16; h *= 0x7FEB352D; h ^= h >> 15; h *= 0x846CA68B; h ^= h >> 16
 *     (all mod 2^32), and the noise is h / 2^32. */
static inline double astar_noise(uint32_t seed, int32_t x, int32_t y) {
    uint32_t h = (uint32_t)x * 0x9E3779B1u + (uint32_t)y * 0x85EBCA77u + seed * 0xC2B2AE3Du;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return (double)h * (1.0 / 4294967296.0);
}

typedef struct astar_result {
    astar_status status;     /* ASTAR_OK, _UNREACHABLE, _LIMIT, _PARTIAL or an error */
    astar_status reason;     /* with ASTAR_PARTIAL: _UNREACHABLE or _LIMIT */
    double cost;             /* path cost (found or partial) */
    uint64_t expansions;     /* nodes taken off the open list (under JPS: jump points) */
    int32_t length;          /* nodes in the path (0 when none) */
    int32_t target;          /* with targets, found: the index of the one reached; else -1 */
    uint32_t restarts;       /* astar_search_step: times it started over after terrain changes */
    int32_t interest;        /* with interests, found: the index of the one collected, or -1 */
    double score;            /* what it minimised: cost minus the value collected (without the
                                target's cost); found or partial */
    int scored;              /* nonzero: the query offered interests (score is worth showing) */
    uint64_t abstract_expansions; /* astar_find_hierarchical: abstract nodes (in expansions too) */
    int fallback;            /* astar_find_hierarchical: the whole grid answered */
    int tiered;              /* nonzero: astar_find_hierarchical answered (the two above apply) */
    uint32_t repairs;        /* astar_search_step: terrain changes it repaired, not restarting */
} astar_result;

/* ================================================================ search */

/* A search workspace: node records, open list and the last path, reused by every query on
 * grids of its size (a warm one allocates nothing per query). One per thread. */
typedef struct astar_search astar_search;

astar_search *astar_search_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_search_free(astar_search *s);
/* Gives back the memory its searches touched, keeping the workspace (where its arrays are the
 * system's pages); a search started on s is dropped. */
void astar_search_trim(astar_search *s);

/* ---------------------------------------------------- preparing a level */

/* Builds now every lazy table the grid's queries under mode would build on first use (cost
 * range, island labels, dead ends, the JPS+ table where costs are uniform); fresh ones stay.
 * @param[in] mode  ASTAR_DIAG_DEFAULT (the grid's), or a mode of the grid's shape.
 * @return ASTAR_EINVAL (mode); ASTAR_ENOMEM; ASTAR_ESTOPPED (what was built stays). */
astar_status astar_grid_prepare(astar_grid *g, astar_diagonal mode);
/* Makes s ready for g's queries under mode: its per-cell arrays made and touched now, its view
 * of the dead ends (call astar_grid_prepare first). @return ASTAR_EINVAL when s is another size. */
astar_status astar_search_prepare(astar_search *s, astar_grid *g, astar_diagonal mode);
/* astar_grid_prepare as a build (astar_build_step) of four coarse units, a table each; a write
 * between steps never starts it over.
 * @param[out] st  ASTAR_OK, or why it returned NULL. */
astar_build *astar_build_prepare(astar_grid *g, astar_diagonal mode, astar_status *st);
/* Builds now the hierarchy a hierarchical query reads (its dirty clusters, or a new one of
 * cluster_size: astar_grid_hierarchy's errors) and that query's scratch. */
astar_status astar_grid_prepare_hierarchy(astar_grid *g, int32_t cluster_size);

/* ------------------------------------------------------------- queries */

/* Runs one query; on found or partial the path is at astar_search_path until the next query
 * on s.
 * @param[out] res  the result.
 * @return res->status; errors: ASTAR_EINVAL (a bad query: coordinates outside, sizes that
 *         differ from the grid, weight < 1, ...), ASTAR_ENOMEM, ASTAR_EABORT (a callback
 *         aborted or returned NaN or < 0), ASTAR_ESTOPPED. */
astar_status astar_find(astar_search *s, astar_grid *g, const astar_query *q,
                        astar_result *res);

/* The same search in slices, for a frame budget. astar_search_start checks and sets up q
 * (expanding nothing); each astar_search_step expands at most n more nodes, until the status,
 * result and path astar_find would give. q, the grid and what q points to must live until it
 * ends; between steps layers, claims, masks and the terrain may change (a step then goes on,
 * repairs or starts over: res->repairs, res->restarts; the answer is exact for the terrain at
 * its end). One live search per workspace: astar_find and astar_field_build on s end it.
 * @return ASTAR_RUNNING, or the final status (at once when there is nothing to search);
 *         stepping a finished search returns its result again. An error ends the search;
 *         ASTAR_ESTOPPED does not (the next step goes on). */
astar_status astar_search_start(astar_search *s, astar_grid *g, const astar_query *q,
                                astar_result *res);
astar_status astar_search_step(astar_search *s, uint64_t n, astar_result *res);

/* The last path as node ids, start first, owned by s.
 * @param[out] length  [opt] its size. */
const int32_t *astar_search_path(const astar_search *s, int32_t *length);

/* ------------------------------------------------------------ old paths */

/* What each step of an old path costs now under q (its costs, walls, callbacks and mask; its
 * endpoints and targets ignored; the walk starts at ids[from]). Any search stepped on s ends.
 * @param[in]  ids   n node ids (as astar_search_path gives them).
 * @param[out] cost  n entries: cost[from] = 0, cost[i] for from < i < n the step
 *                   ids[i-1] -> ids[i], INFINITY when q no longer allows it.
 * @return ASTAR_EINVAL (no path, from outside it, a cell outside, targets or interests in q);
 *         ASTAR_EABORT. */
astar_status astar_path_costs(astar_search *s, astar_grid *g, const astar_query *q, const int32_t *ids,
                              int32_t n, int32_t from, double *cost);

/* Cell i (0-based) of the path astar_path_terrain checks: its node id, or -1 when it is not a
 * cell of the grid (the check then ends with ASTAR_EINVAL). */
typedef int32_t (*astar_path_reader)(void *ud, int32_t i);

/* The terrain-only check of a path of n cells (read through read): where astar_path_costs
 * would say INFINITY for a query without callbacks or mask. Reads only the grid: no workspace,
 * no allocation; with since, only the cells near changes (docs/design/c_api.md).
 * @param[in]  mode   ASTAR_DIAG_DEFAULT: the grid's.
 * @param[in]  since  [opt] a grid version at which the whole path was allowed under mode;
 *                    NULL reads every cell once.
 * @param[out] index  the first i in (from, n) whose step ids[i-1] -> ids[i] is no longer
 *                    allowed, or -1.
 * @return ASTAR_EINVAL for a reader's -1 or two cells read farther apart than their indices
 *         allow (*index: the later one). */
astar_status astar_path_terrain(const astar_grid *g, astar_diagonal mode, int32_t n, int32_t from,
                                const uint32_t *since, astar_path_reader read, void *ud,
                                int32_t *index);

/* astar_repair's `within` up to which the heuristic aims at the rejoin cells themselves. */
#define ASTAR_REPAIR_LOCAL 64

typedef struct astar_repair_info {
    int32_t rejoin;   /* the index in the old path where the repaired one rejoins it, or -1 */
    int replanned;    /* nonzero: it could not rejoin; the path is a fresh search's */
} astar_repair_info;

/* Repairs an old path from ids[from] (where the unit stands) to its end under q: the cheapest
 * way that leaves it there and rejoins it at a later cell beyond the blockage, exact over all
 * of them; if none can be reached, a fresh search for the end. On found the path (new part,
 * then the old rest) is at astar_search_path (docs/design/c_api.md).
 * @param[in]  ids     n node ids; not s's own path (copy it first).
 * @param[in]  within  > 0: only the first `within` cells beyond the blockage (a local repair);
 *                     <= 0: all.
 * @param[out] res     res->cost summed step by step, res->expansions both searches'.
 * @param[out] info    [opt] where it rejoined, or that it replanned.
 * @return as astar_find; ASTAR_EINVAL with targets, interests or partial in q. */
astar_status astar_repair(astar_search *s, astar_grid *g, const astar_query *q, const int32_t *ids,
                          int32_t n, int32_t from, int32_t within, astar_result *res,
                          astar_repair_info *info);

/* ====================================================== two-tier search */

/* HPA*: the grid cut into clusters of cluster_size x cluster_size cells, the entrances along
 * their borders and per cluster the terrain costs between its entrances, under the grid's
 * mode at build time (NEVER, ONE_WALKABLE or NO_CORNER_CUT; ALWAYS and hexes are ASTAR_EINVAL,
 * as a path may cross a cluster's corner there). A terrain write marks the clusters it touches
 * dirty; the next hierarchical query rebuilds them (docs/design/c_api.md). */
#define ASTAR_HIER_MAX_SIZE 256

/* Builds the hierarchy in one call, replacing any (astar_build_hierarchy on one thread).
 * @param[in] cluster_size  2..ASTAR_HIER_MAX_SIZE; 0 drops it.
 * @return ASTAR_EINVAL; ASTAR_ENOMEM (the grid has none); ASTAR_ESTOPPED (it keeps its old). */
astar_status astar_grid_hierarchy(astar_grid *g, int32_t cluster_size);
int32_t astar_hierarchy_clusters(const astar_grid *g); /* 0 when none */
/* The hierarchy as a build in slices and on threads (astar_build_step, _progress, _free): what
 * astar_grid_hierarchy(g, cluster_size) builds, whatever the threads and slices. A terrain
 * write between steps does not start it over: the next step redoes the clusters it touched
 * (a bulk write, or more than 1024 writes between two steps, still does).
 * @param[in]  threads  1..ASTAR_MANY_MAX_THREADS, or 0: the default.
 * @param[out] st       ASTAR_OK, or why it returned NULL (ASTAR_EINVAL: cluster_size, threads,
 *                      or a mode without hierarchy; ASTAR_ENOMEM). */
astar_build *astar_build_hierarchy(astar_grid *g, int32_t cluster_size, int threads, astar_status *st);

typedef struct astar_hierarchy_stats {
    int32_t cluster_size;    /* 0: no hierarchy */
    int32_t clusters;
    int64_t entrances;       /* abstract nodes */
    int64_t edges;           /* abstract arcs: within clusters (connected pairs) and across */
    int32_t dirty;           /* clusters waiting for a rebuild */
    astar_diagonal diagonal; /* the mode it was built under */
    size_t bytes;            /* the tables and the query scratch (bigger units' too) */
} astar_hierarchy_stats;

/* The hierarchy's figures, kept as clusters change: no pass over the tables. */
astar_status astar_grid_hierarchy_stats(const astar_grid *g, astar_hierarchy_stats *st);

/* A two-tier query: A* over the entrances picks a corridor of clusters, then A* under q's full
 * costs inside it gives the path (its cost exact for that path; a cheaper one outside the
 * corridor is missed; when the corridor holds none, astar_find over the whole grid answers:
 * res->fallback). Rebuilds dirty clusters first: one at a time per grid, none while other
 * threads query it. With q->size above 1 it reads the clusters of that size (HAA*), made on its
 * first use with the grid's hierarchy's clusters and mode, and the island labels of the size.
 * @return as astar_find; ASTAR_EINVAL with targets or interests, another diagonal mode than
 *         the hierarchy's, or no hierarchy. */
astar_status astar_find_hierarchical(astar_search *s, astar_grid *g, const astar_query *q,
                                     astar_result *res);

/* ================================================= many queries, threads */

/* Many queries that differ only in their endpoints, answered at once on a pool of threads
 * (POSIX threads, or Win32's on Windows: started per call and joined before it returns; the
 * caller is worker 0). An astar_many keeps a workspace per worker and the paths from call to
 * call: a warm one allocates nothing per call. During a call nobody may write to the grid or to
 * what the query points to. Its allocator is serialised by a mutex. One call at a time per
 * astar_many. */
typedef struct astar_many astar_many;

/* The most threads one call may use. */
#define ASTAR_MANY_MAX_THREADS 64

astar_many *astar_many_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_many_free(astar_many *m);

/* What threads = 0 means: one per online processor (at least 1, at most the maximum). */
int astar_many_default_threads(void);

/* Runs n queries, query i being *base with sx, sy, gx, gy = endpoints[4i..4i+3], exactly as
 * astar_find would run it. With threads > 1 base's callbacks are called from several threads
 * at once: they must be thread-safe and must not longjmp.
 * @param[in]  endpoints  4 * n coordinates.
 * @param[in]  threads    1: the calling thread only; 0: astar_many_default_threads();
 *                        never more workers than queries.
 * @param[out] results    n results; query i's path is at astar_many_path until the next call.
 * @return ASTAR_EINVAL (nothing run) for n < 0, threads out of 0..ASTAR_MANY_MAX_THREADS, a grid
 *         of another size; ASTAR_ENOMEM (nothing run); else ASTAR_OK or the first error among
 *         the results; ASTAR_ESTOPPED: some never ran, and there are no paths. */
astar_status astar_find_many(astar_many *m, astar_grid *g, const astar_query *base,
                             const int32_t *endpoints, int32_t n, int threads,
                             astar_result *results);

/* Query i's path of the last call as node ids, start first (NULL and 0 when none).
 * @param[out] length  [opt] its size. */
const int32_t *astar_many_path(const astar_many *m, int32_t i, int32_t *length);

/* ======================================================= distance fields */

/* One Dijkstra over the whole grid: every cell's cost to (or from) a set of cells and the step
 * to take (a flow field for a crowd; the reach of a turn-based unit's movement budget). */
typedef struct astar_field astar_field;

typedef enum astar_field_kind {
    ASTAR_FIELD_TO,    /* cost of walking from each cell to the nearest of the cells given */
    ASTAR_FIELD_FROM   /* cost of walking from the cells given (a start) to each cell */
} astar_field_kind;

/* A new field reads as every cell unreached until it is built (it holds no cells yet). */
astar_field *astar_field_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_field_free(astar_field *f);

/* Fills f (the grid's size) under q's step costs, so a distance is what astar_find would report
 * for the same walk. q's goal is ignored; max_cost and max_expansions leave cells unreached;
 * heuristic, weight, partial, targets, turn_penalty and claim_window must keep their defaults.
 * A blocked goal (TO) is no goal; a start (FROM) may be blocked. s is its workspace.
 * @param[in]  cells  ncells node ids: the goals (TO) or starts (FROM).
 * @param[out] res    the expansions.
 * @return ASTAR_OK, ASTAR_LIMIT (max_expansions cut it) or an error. */
astar_status astar_field_build(astar_field *f, astar_search *s, astar_grid *g, const astar_query *q,
                               const int32_t *cells, int32_t ncells, astar_field_kind kind,
                               astar_result *res);
/* astar_field_build in slices: astar_field_start checks and sets it up (ASTAR_RUNNING, or an
 * error: nothing started); each astar_field_step does at most n units (an expansion, then
 * ASTAR_FIELD_CELLS_PER_UNIT cells written) until ASTAR_OK or ASTAR_LIMIT with f and res as
 * astar_field_build leaves them. f, q, cells and what q points to must live until it ends (f
 * holds no field until then); changes between steps are followed or start it over (res->restarts; docs/design/c_api.md).
 * Any other query on s ends it (its step then returns ASTAR_EINVAL).
 * @param[out] used  the units done. */
#define ASTAR_FIELD_CELLS_PER_UNIT 16
astar_status astar_field_start(astar_field *f, astar_search *s, astar_grid *g, const astar_query *q,
                               const int32_t *cells, int32_t ncells, astar_field_kind kind, astar_result *res);
astar_status astar_field_step(astar_search *s, uint64_t n, uint64_t *used, astar_result *res);
astar_field_kind astar_field_get_kind(const astar_field *f);
/* How many cells the last build reached. */
int32_t astar_field_reached(const astar_field *f);
/* The cells the last build reached, each once in node id order; a unit per entry read.
 * @param[out] ids   astar_field_reached entries.
 * @param[out] dist  their costs, as many.
 * @return ASTAR_ESTOPPED before any. */
astar_status astar_field_list(const astar_field *f, int32_t *ids, double *dist);
/* The cell's cost (INFINITY when unreached; NaN outside). */
double astar_field_distance(const astar_field *f, int32_t x, int32_t y);
/* The next cell toward the field's cells (TO: toward the nearest goal; FROM: back toward the
 * start). @return 1 and (*nx, *ny); 0 at one of the cells or where unreached; -1 outside. */
int astar_field_next(const astar_field *f, int32_t x, int32_t y, int32_t *nx, int32_t *ny);

/* ====================================================== flee and wander */

/* What flee runs from and how far is safe (docs/design/flee.md has the rule exactly). */
typedef struct astar_flee_opts {
    const int32_t *threats;       /* nthreats node ids, or NULL with a layer */
    int32_t nthreats;
    astar_layer *layer;           /* [opt] its cells whose value is above threshold are threats;
                                     flee makes the bounds of the tiles it reads exact (layers.h), so
                                     no other call may use the layer meanwhile */
    double threshold;             /* >= 0 (0 and +0 cells of a layer never count) */
    double distance;              /* > 0, finite: safe is a threat distance >= this */
    double radius;                /* >= 0: the most the unit may spend getting there */
} astar_flee_opts;

/* Where flee or wander went, besides its astar_result. */
typedef struct astar_flee_info {
    int32_t x, y;                 /* the path's last cell, 0-based */
    int safe;                     /* flee: the cell's threat distance (size: footprint's) is >= distance */
    double threat_distance;       /* flee: the cell's (INFINITY: beyond distance) */
    int in_band;                  /* wander: the cost is within the band */
    int32_t candidates;           /* wander: the cells the pick was among */
    int32_t threat_cells;         /* flee: cells the threat field reached */
} astar_flee_info;

/* A path from (q->sx, q->sy) to the cheapest cell at least o->distance from every threat
 * (its threat distance: the terrain cost from it to the nearest threat under q's diagonal,
 * one cell, no classes; with q->size n, the least over the anchor's n x n footprint), never
 * entering a cell nearer a threat than the start; else the farthest from them it reaches
 * within o->radius. q's own options apply to the unit's walk, classes and size included (not
 * heuristic, weight, partial, targets, interests, turn_penalty, claim_window, size > 1 on
 * hexes: ASTAR_EINVAL); q's max_cost is replaced by the radius. The path is at astar_search_path. s is its workspace.
 * @param[out] info  where it went.
 * @param[out] res   status ASTAR_OK (a path, maybe just the start), cost, length, expansions
 *                   (of every search it made).
 * @return ASTAR_OK or an error (ASTAR_EABORT from a callback). */
astar_status astar_flee(astar_search *s, astar_grid *g, const astar_query *q, const astar_flee_opts *o,
                        astar_flee_info *info, astar_result *res);
/* A path from (q->sx, q->sy) to a reachable cell whose cost is within [cost * (1 - tolerance),
 * cost * (1 + tolerance)] (none: the dearest reached), picked by q->seed among them in node
 * id order: the same for the same seed, grid and options. Options as astar_flee's.
 * @param[in]  tolerance  0..1.
 * @param[out] info       where it went. */
astar_status astar_wander(astar_search *s, astar_grid *g, const astar_query *q, double cost, double tolerance,
                          astar_flee_info *info, astar_result *res);

/* ============================================================= Moving AI */

/* Parses a Moving AI benchmark map (https://movingai.com/benchmarks/formats.html) held in
 * memory ("type octile", "height H", "width W", "map", H rows of W characters; CRLF
 * accepted): '.', 'G', 'S' walkable at cost 1, '@', 'O', 'T', 'W' blocked, under
 * ASTAR_DIAG_NO_CORNER_CUT (the benchmarks' convention).
 * @param[out] err  [opt] errlen bytes for a message naming the line ("line 7: row has 193
 *                  characters, expected 194").
 * @return the grid, or NULL on error. */
astar_grid *astar_movingai_parse(const char *text, size_t len, const astar_alloc *alloc,
                                 char *err, size_t errlen);

typedef struct astar_scenario {
    int32_t bucket;
    const char *map;          /* the map field as written; points into the astar_scen */
    int32_t map_width, map_height;
    int32_t sx, sy, gx, gy;   /* 0-based, as in the file */
    double optimal;
    double precision;         /* half a unit of the last digit printed for optimal */
} astar_scenario;

typedef struct astar_scen {
    astar_scenario *items;
    int32_t count;
    char *strings;            /* storage of the map fields */
    size_t strings_size;
} astar_scen;

/* Parses a Moving AI .scen file held in memory: "version 1" (or "1.0"), then a problem a line,
 * nine fields separated by tabs or spaces. Free it with astar_scen_free.
 * @param[out] err  [opt] as for astar_movingai_parse.
 * @return NULL on error. */
astar_scen *astar_scen_parse(const char *text, size_t len, const astar_alloc *alloc, char *err,
                             size_t errlen);
void astar_scen_free(astar_scen *scen);

/* ================================================================ graphs */

/* General graphs (waypoints, navmesh polygons, a board of territories): nodes with ids 0..n-1
 * in the order added and a position (x, y, z); directed arcs with a cost >= 0 (an edge is a
 * pair of arcs). The step cost along an arc a -> b is cost(a -> b) + max(0, P(b) + X(a, b)),
 * P and X as for grids, per node. The default heuristic is the Euclidean distance times the
 * graph's heuristic scale (admissible for any costs). Arcs are packed for searches by the first
 * query after a change (or astar_graph_prepare); a prepared graph may be read by many
 * searches at once while nobody writes to it. Errors leave the graph as it was. */
typedef struct astar_graph astar_graph;

/* The most nodes and the most arcs a graph holds. */
#define ASTAR_GRAPH_MAX_NODES (1 << 28)
#define ASTAR_GRAPH_MAX_ARCS (1 << 30)

/* As the cost of astar_graph_add_arc / _add_edge: the distance between the two nodes. */
#define ASTAR_GRAPH_LENGTH (-1.0)

astar_graph *astar_graph_new(const astar_alloc *alloc);
void astar_graph_free(astar_graph *g);

/* The largest coordinate magnitude: the distance between any two nodes stays finite. */
#define ASTAR_GRAPH_MAX_COORD 1e150

/* Adds a node at (x, y, z) (z = 0 on a plane).
 * @param[in]  x, y, z  |each| <= ASTAR_GRAPH_MAX_COORD.
 * @param[out] id       [opt] its id.
 * @return ASTAR_EINVAL for a coordinate beyond that (or NaN) or a full graph; ASTAR_ENOMEM. */
astar_status astar_graph_add_node(astar_graph *g, double x, double y, double z, int32_t *id);
int32_t astar_graph_node_count(const astar_graph *g);
/* Arcs now in the graph (an edge counts two). */
int32_t astar_graph_arc_count(const astar_graph *g);
/* The node's position. @param[out] x, y, z [opt]. @return ASTAR_EINVAL for an id out of range. */
astar_status astar_graph_node(const astar_graph *g, int32_t id, double *x, double *y, double *z);

/* Adds the arc from -> to, or replaces its cost (at most one arc from a node to another).
 * @param[in] cost  finite >= 0 (0 suits a portal or a door), or ASTAR_GRAPH_LENGTH.
 * @return ASTAR_EINVAL for an id out of range, from == to, a bad cost or a full graph;
 *         ASTAR_ENOMEM. */
astar_status astar_graph_add_arc(astar_graph *g, int32_t from, int32_t to, double cost);
/* Both arcs a -> b and b -> a, same rules; on error neither changed. */
astar_status astar_graph_add_edge(astar_graph *g, int32_t a, int32_t b, double cost);
/* Removes the arc from -> to if there is one.
 * @param[out] removed  [opt] 1 or 0. @return ASTAR_EINVAL for an id out of range. */
astar_status astar_graph_remove_arc(astar_graph *g, int32_t from, int32_t to, int *removed);
/* The cost of the arc from -> to; NaN when there is none or an id is out of range. */
double astar_graph_arc_cost(const astar_graph *g, int32_t from, int32_t to);
/* The arcs leaving id, in the order first added: the first `max` go to to[] and cost[].
 * @param[out] to, cost  [opt] max entries each.
 * @return how many arcs leave the node, or -1 for an id out of range. */
int32_t astar_graph_neighbours(const astar_graph *g, int32_t id, int32_t *to, double *cost,
                               int32_t max);

/* A blocked node is never entered (a query may still start on it). EINVAL out of range. */
astar_status astar_graph_set_blocked(astar_graph *g, int32_t id, int blocked);
/* 1 blocked, 0 not, -1 out of range. */
int astar_graph_is_blocked(const astar_graph *g, int32_t id);

/* Packs the arcs and computes the heuristic scale now, if a change left them stale (queries do
 * it on their own). ASTAR_ENOMEM leaves the graph usable. */
astar_status astar_graph_prepare(astar_graph *g);
/* The heuristic scale (the smallest cost / length over arcs whose ends lie apart, 0 if such an
 * arc costs 0 or there is none) as of the last prepare; NaN while stale. */
double astar_graph_heuristic_scale(const astar_graph *g);
/* Bumped on every change of nodes, arcs or blocking. */
uint32_t astar_graph_version(const astar_graph *g);

/* Claims on a graph's nodes: an astar_claims whose node ids are graph node ids (x = id, y = 0
 * for astar_claims_count), as wide as the graph is now (nodes it does not cover: unclaimed). */
astar_claims *astar_graph_claims_new(const astar_graph *g, const astar_alloc *alloc);
/* Widens c to the graph's node count (never narrows). ASTAR_ENOMEM leaves c as it was;
 * ASTAR_EINVAL for claims that are not a graph's (height > 1). */
astar_status astar_graph_claims_fit(astar_claims *c, const astar_graph *g);

/* Extra cost of entering node; called at most once per node per query. */
typedef int (*astar_graph_node_cost_fn)(void *ud, int32_t node, double *extra);
/* Extra cost of the arc from -> to; called per arc considered. */
typedef int (*astar_graph_edge_cost_fn)(void *ud, int32_t to, int32_t from, double *extra);
/* A custom heuristic: a finite estimate >= 0 (anything else aborts the search). */
typedef double (*astar_graph_heuristic_fn)(void *ud, int32_t node, int32_t goal);
/* A layer value of a node, asked once per node per query: finite (anything else aborts). */
typedef double (*astar_graph_value_fn)(void *ud, int32_t node);

/* Per-node values weighted into P: an array of at least node-count values, or a function. */
typedef struct astar_graph_layer {
    const double *values;             /* NULL: ask value_fn */
    astar_graph_value_fn value_fn;
    void *value_ud;
    double weight;                    /* finite */
} astar_graph_layer;

typedef struct astar_graph_query {
    int32_t start, goal;
    astar_heuristic heuristic;        /* ASTAR_H_DEFAULT = ASTAR_H_EUCLIDEAN (scaled),
                                         ASTAR_H_ZERO or ASTAR_H_CUSTOM; others EINVAL */
    astar_graph_heuristic_fn heuristic_fn; /* with ASTAR_H_CUSTOM, used as given */
    void *heuristic_ud;
    double weight;                    /* >= 1; 1 = optimal */
    const astar_graph_layer *layers;  /* nlayers entries, 0..ASTAR_MAX_LAYERS */
    int nlayers;
    const astar_claims *claims;       /* from astar_graph_claims_new; NULL: none */
    int32_t unit;                     /* the querying unit's slot, -1 for none */
    double claim_penalty;             /* >= 0, added per other claiming unit */
    double claim_radius;              /* < 0: every unit; else only units whose current node
                                         lies within this Euclidean distance of the start */
    astar_graph_node_cost_fn node_cost; /* NULL: none */
    void *node_cost_ud;
    astar_graph_edge_cost_fn edge_cost; /* NULL: none */
    void *edge_cost_ud;
    uint64_t max_expansions;          /* UINT64_MAX: no limit */
    double max_cost;                  /* INFINITY: no limit */
    int partial;                      /* nonzero: when not found, the path to the expanded node
                                         nearest the goal (Euclidean, or the custom heuristic;
                                         ties: smaller g) with ASTAR_PARTIAL */
    double noise;                     /* >= 0: adds noise * astar_noise(seed, node, 0) to P */
    uint32_t seed;
    const int32_t *interests;         /* as astar_query's: node ids a path may pass through to
                                         collect interest_values[i] (in (0,
                                         ASTAR_MAX_INTEREST]); not with partial */
    const double *interest_values;
    int32_t ninterests;
    const int32_t *targets;           /* ntargets > 0: the nearest of these node ids is the goal
                                         (goal ignored but checked); the heuristic the least
                                         scaled distance to one plus its cost (up to
                                         ASTAR_REPAIR_LOCAL targets; 0 beyond or with
                                         ASTAR_H_ZERO; not ASTAR_H_CUSTOM); not with interests
                                         or partial */
    int32_t ntargets;
    const double *target_costs;       /* NULL, or with targets one cost (0..ASTAR_MAX_VALUE) per
                                         target, added when the path ends there (max_cost too) */
    int toward;                       /* astar_graph_field only (elsewhere ASTAR_EINVAL): nonzero,
                                         the cost *to* the nearest source over the arcs reversed */
} astar_graph_query;

void astar_graph_query_init(astar_graph_query *q);

/* A search workspace for graphs, sized to the largest graph it has searched (a warm one
 * allocates nothing per query). One per thread; any number of graphs may share one. */
typedef struct astar_graph_search astar_graph_search;

astar_graph_search *astar_graph_search_new(const astar_alloc *alloc);
void astar_graph_search_free(astar_graph_search *s);

/* Runs one graph query (preparing the graph first if a change left it stale). A blocked goal
 * is ASTAR_UNREACHABLE at once unless partial; a blocked start may be left. The path is at
 * astar_graph_search_path until the next query on s.
 * @return res->status (res->target is -1); ASTAR_EINVAL (ids out of range, weight < 1, ...),
 *         ASTAR_ENOMEM (graph and workspace stay usable), ASTAR_EABORT (a callback). */
astar_status astar_graph_find(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                              astar_result *res);
/* @param[out] length  [opt] the path's size. */
const int32_t *astar_graph_search_path(const astar_graph_search *s, int32_t *length);
/*
 * A distance field (and a range) on a graph: one Dijkstra from the sources along the arcs under
 * q's costs (every cost option of astar_graph_find, max_cost and max_expansions), settling all it
 * reaches; a source is where a unit stands, blocked or not. With q->toward, the Dijkstra runs
 * toward the sources over the arcs reversed (made on first need after a change of arcs: O(nodes
 * + arcs), (nodes + 1) * 4 + arcs * 16 bytes kept on the graph): a node's cost is what
 * astar_graph_find from it to its nearest source counts, a source the query cannot enter
 * (blocked, node_cost) is none, and a node it cannot enter gets its cost but leads no way on; its
 * prev is then its next step toward the source. q's start, goal and heuristic are
 * ignored (claim_radius counts from sources[0]); a custom heuristic, weight != 1, partial,
 * interests and targets are ASTAR_EINVAL. It touches what it reaches, nothing per node of the
 * graph. The nodes it settled are at astar_graph_field_entry until the next query on s.
 * @return ASTAR_OK, ASTAR_LIMIT (max_expansions stopped it: what settled is listed), ASTAR_EINVAL
 *         (no sources, an id out of range, ...), ASTAR_ENOMEM, ASTAR_EABORT, ASTAR_ESTOPPED.
 */
astar_status astar_graph_field(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                               const int32_t *sources, int32_t nsources, astar_result *res);
/* How many nodes the last field on s settled (0 after any other query on s). */
int32_t astar_graph_field_reached(const astar_graph_search *s);
/* Its i-th node, cheapest first (i in 0..reached-1):
 * @param[out] id    the node; @param[out] dist  its cost from (toward: to) the nearest source;
 * @param[out] prev  the node it was reached from (toward: its next step), -1 at a source. */
void astar_graph_field_entry(const astar_graph_search *s, int32_t i, int32_t *id, double *dist, int32_t *prev);

#ifdef __cplusplus
}
#endif
#endif
