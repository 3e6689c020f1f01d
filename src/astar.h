/*
 * astar.h -- the public C interface of the astar core.
 *
 * The core is plain C11 with no Lua anywhere: a C or C++ host can use it on its
 * own, and the Lua binding (src/lua/) is just one more host.
 *
 * Conventions
 * - Coordinates are 0-based here (x in 0..width-1, y in 0..height-1); node ids
 *   are y * width + x. (The Lua API is 1-based; the binding converts.)
 * - Functions that can fail return an astar_status (ASTAR_OK = 0) or NULL.
 *   Nothing aborts the process; nothing prints.
 * - Ownership: every object made by astar_*_new is owned by the caller and
 *   released with the matching astar_*_free (NULL is accepted and ignored).
 *   All memory goes through the astar_alloc given at creation (NULL: malloc).
 * - Thread safety: no global mutable state. Objects are not locked: a grid,
 *   layer or claims object may be read by many searches at once (one
 *   astar_search workspace per thread) as long as nobody writes to it.
 * - Callbacks may longjmp out of astar_find (the Lua binding does). The core
 *   holds no memory that only a local variable owns during a search, so a
 *   jump leaks nothing; the workspace is simply reused by the next query.
 */
#ifndef ASTAR_H
#define ASTAR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ASTAR_VERSION "0.1.0"

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

/* Returns a static, human-readable name for a status ("found", "unreachable", ...,
 * "stopped"). */
const char *astar_status_name(astar_status s);

/*
 * How the last constructor called on this thread (an astar_*_new, astar_movingai_parse) ended:
 * ASTAR_OK when it returned an object, else why it returned NULL: ASTAR_EINVAL (an argument;
 * for the parser a malformed map), ASTAR_ENOMEM or ASTAR_ESTOPPED (the progress handler,
 * below: those that make something of a grid's size count its cells first).
 */
astar_status astar_last_status(void);

/* ----------------------------------------------------- progress handler */

/*
 * A bound on the core's work, after SQLite's sqlite3_progress_handler: a host running untrusted
 * scripts (mods) gets control back from any call, however large the objects it works on.
 *
 * astar_set_progress_handler installs fn for the calls made on the calling thread (C11
 * _Thread_local: each thread has its own; a new thread starts with none). Every loop of the
 * core that can run long counts its work in units (what a unit is, per loop, below). When
 * `every` units have been counted since fn was installed or last called, fn(ud) is called
 * before the next one: 0 goes on (the next `every` units counted from there), non-zero stops
 * the call. A stopped call returns ASTAR_ESTOPPED (a constructor NULL, with astar_last_status()
 * ASTAR_ESTOPPED) and leaves every object as it was before the call:
 *   - a query (astar_find, _find_many, _find_hierarchical, _graph_find, _field_build,
 *     _path_costs, _repair) answers nothing and changes nothing (its workspace holds no path);
 *   - a search in slices (astar_search_step) or a build (astar_build_step) stops between two
 *     units, as when its budget runs out: stepping it again goes on (a stopped
 *     astar_search_start started nothing);
 *   - a lazy table a call makes for itself (island labels, dead ends, a JPS+ table, the cost
 *     range, dirty hierarchy clusters) is simply not there and is built again by the next call
 *     that needs it (hierarchy clusters rebuilt before the stop stay rebuilt, as they are
 *     exact);
 *   - a bulk write (astar_grid_fill, _set_all, the layer and mask operations) and a
 *     constructor count all their units before they write or allocate anything: they stop
 *     before any change, and once they go on they run to the end without asking again (a
 *     grid's bulk write counts, with its cells, the island labels it builds again);
 *   - astar_grid_set_cost cannot stop: it always writes the cell. The island labels it keeps
 *     exact count their walks' steps and the cells their floods take (islands below); a stop
 *     there leaves those labels to be built again by the next call that needs them.
 * Once fn has said stop it is asked again before the next unit of any call, until it says go
 * on or is removed. Installing (again) starts the count at 0. fn NULL or every 0 removes the
 * handler; without one the loops' counters never run out, so it costs nothing.
 *
 * fn runs inside the core: it must not call the core (but astar_set_progress_handler, which
 * from inside fn changes the handler fn was installed as: a new every applies from there on),
 * nor longjmp.
 *
 * Threads: astar_find_many and the builds' steps carry the caller's handler to the worker
 * threads they start. A worker takes units from it ASTAR_PROGRESS_LEASE at a time (fewer when
 * fn is due sooner), under a lock: fn is called on worker threads too, one call at a time,
 * and must not care which thread calls it. When it says stop, every worker stops at its next
 * lease, and the call returns ASTAR_ESTOPPED; units leased and not used are given back when
 * the call returns (so a stop may come up to ASTAR_PROGRESS_LEASE units per worker early).
 *
 * What a unit is:
 *   - searches (A*, jump point search, a field's Dijkstra, graph A*, the abstract search and
 *     the corridor's A* of astar_find_hierarchical): one node expanded (taken off the open
 *     list); online jump point search (ASTAR_JPS_ONLINE) also one per cell it steps along a
 *     diagonal (or a 4-connected vertical line), each of which scans two lines;
 *     astar_find_hierarchical one per cell of each cluster its insertions search and its
 *     corridor covers;
 *   - a search's set-up: one per claim cell a claims view or claim window reads;
 *   - lazy tables: one per cell (of the grid with its one-cell border, or of each row) per
 *     pass over the grid; dead ends also one per walkable cell their depth-first search visits;
 *     a graph's packing one per node and arc; hierarchy clusters as a build counts them;
 *   - builds (astar_build_step, astar_grid_landmarks, astar_grid_hierarchy,
 *     astar_hierarchy_build_cluster): the units of astar_build_step's budget (a Dijkstra's pop,
 *     8 cells of a pass);
 *   - bulk writes: one per cell written (astar_layer_stamp and astar_mask_reveal: per cell of
 *     the disc's box); a layer's passes 64 per tile of 8x8 cells they visit (astar_layer_scale,
 *     astar_layer_max_abs, a read, and astar_layer_fill of 0: the tiles holding influence;
 *     astar_layer_spread: those and the tiles around them; astar_layer_add_layer: both layers';
 *     astar_layer_fill of another value: every cell); a field's build one more per cell it writes
 *     (the grid's, or those it reached: see astar_field_list), astar_field_list one per entry it
 *     reads;
 *   - constructors: one per cell of what they make (with its border, where it has one; a
 *     field makes nothing per cell: its build does);
 *     astar_movingai_parse also one per cell it reads.
 * Work in proportion to what a call is given (a path, a list of targets or queries) is not
 * counted: the caller bounds it, as Lua's own table functions are bounded by their tables.
 */
typedef int (*astar_progress_fn)(void *ud);

#define ASTAR_PROGRESS_LEASE 256

void astar_set_progress_handler(uint32_t every, astar_progress_fn fn, void *ud);
/* The units the calling thread may still do before fn is called next (0: fn is due, or said
 * stop); UINT64_MAX without a handler. */
uint64_t astar_progress_left(void);
/*
 * Counts n units of the caller's own work as the core counts its own, so that a host's loops
 * share the bound (the Lua binding's grid:load): ASTAR_ESTOPPED when fn said stop at a `every`
 * boundary they cross (then do none of that work), else ASTAR_OK.
 */
astar_status astar_progress_work(uint64_t n);

/*
 * Allocator hook, shaped like lua_Alloc: fn(ud, ptr, old_size, new_size).
 * new_size == 0 frees ptr and returns NULL; otherwise it returns the new block
 * or NULL on failure (ptr untouched). Passing NULL to a constructor uses malloc.
 */
typedef void *(*astar_alloc_fn)(void *ud, void *ptr, size_t old_size, size_t new_size);
typedef struct astar_alloc {
    astar_alloc_fn fn;
    void *ud;
} astar_alloc;

typedef enum astar_diagonal {
    ASTAR_DIAG_NEVER = 0,        /* 4-connected */
    ASTAR_DIAG_ALWAYS,           /* 8-connected, corners may be cut */
    ASTAR_DIAG_ONE_WALKABLE,     /* diagonal if at least one side cell is walkable */
    ASTAR_DIAG_NO_CORNER_CUT,    /* diagonal only if both side cells are walkable */
    ASTAR_DIAG_HEX,              /* not a diagonal mode but hexagons: "odd-r" offset rows (odd
                                    rows, 0-based, sit half a cell right), six neighbours, every
                                    step of length 1, no corner rule */
    ASTAR_DIAG_DEFAULT = -1      /* in a query: use the grid's mode */
} astar_diagonal;

typedef enum astar_heuristic {
    ASTAR_H_DEFAULT = -1,   /* octile for 8-connected queries, manhattan for 4, hex for hexes */
    ASTAR_H_OCTILE = 0,
    ASTAR_H_MANHATTAN,
    ASTAR_H_EUCLIDEAN,
    ASTAR_H_CHEBYSHEV,
    ASTAR_H_ZERO,
    ASTAR_H_HEX,            /* hex steps (the default on hexes; not admissible on squares, where
                               a diagonal step may be 2 hex steps; octile, manhattan and
                               euclidean are not admissible on hexes: the Lua API refuses both) */
    ASTAR_H_CUSTOM          /* astar_query.heuristic_fn, used as given (not scaled) */
} astar_heuristic;

/*
 * The largest magnitude of every number a query adds up: terrain costs, influence values and
 * layer weights, claim penalties, noise, turn penalties, what cost callbacks and custom
 * heuristics return, heuristic weights and graph arc costs. Bounded so that no sum can
 * overflow: a step adds at most 32 layers of 1e100 x 1e100 and a handful of terms of 1e100,
 * about 3.3e201, and a path of 2^31 steps stays below 1e211, far from DBL_MAX (1.8e308); so a
 * search never meets an infinite or NaN cost it did not ask for. Setters and queries refuse
 * larger values with ASTAR_EINVAL; a callback returning one aborts its search (ASTAR_EABORT).
 */
#define ASTAR_MAX_VALUE 1e100

/*
 * The largest value of an interest (astar_query.interests), 2^20: far below ASTAR_MAX_VALUE,
 * so that scores are exact. The search over two copies counts g = cost + (V - value) after
 * collecting and score + V at its sink (V: the largest value offered); with V <= 2^20 and path
 * costs below 2^20 (where costs are exact, docs/contract.md) each of these is a multiple of
 * 2^-32 below 2^21, which a double holds exactly. Larger values: ASTAR_EINVAL.
 */
#define ASTAR_MAX_INTEREST 1048576.0

/* ------------------------------------------------------------------ grid */

typedef struct astar_grid astar_grid;

/* The largest width or height accepted. */
#define ASTAR_MAX_SIDE 32768

/*
 * A width x height grid, every cell walkable at cost 1, with the given default
 * diagonal mode. Returns NULL if a side is < 1 or > ASTAR_MAX_SIDE, or on OOM.
 */
astar_grid *astar_grid_new(int32_t width, int32_t height, astar_diagonal diagonal,
                           const astar_alloc *alloc);
void astar_grid_free(astar_grid *g);

int32_t astar_grid_width(const astar_grid *g);
int32_t astar_grid_height(const astar_grid *g);
astar_diagonal astar_grid_diagonal(const astar_grid *g);
void astar_grid_set_diagonal(astar_grid *g, astar_diagonal d);

/*
 * Sets a cell's terrain cost: a finite number > 0 makes it walkable with that
 * multiplier, INFINITY blocks it. ASTAR_EINVAL (and no change) for a cell
 * outside the grid or a cost that is NaN, <= 0 or -inf.
 */
astar_status astar_grid_set_cost(astar_grid *g, int32_t x, int32_t y, double cost);
/* The terrain cost, INFINITY when blocked; NaN for a cell outside the grid. */
double astar_grid_get_cost(const astar_grid *g, int32_t x, int32_t y);
/* Sets every cell; same rule for cost as astar_grid_set_cost. */
astar_status astar_grid_fill(astar_grid *g, double cost);
/*
 * Line-of-sight string pulling (astar.smooth on a square grid): of a path's n cells (node
 * ids, y * width + x, any cells of g), the waypoints a unit walking straight from one to the
 * next needs, as indices into cells in keep (room for n; 0 first, n - 1 last); returns how
 * many. Greedy farthest visible: from each waypoint the next is the last cell of the path
 * (after it) whose segment from it crosses only walkable cells no dearer than the dearest of
 * the path's cells between them (a blocked one: any cost), passing exactly through no vertex
 * with fewer than `sides` of its two side cells walkable (0..3), or else the next cell.
 * limits: scratch for n doubles. Work: per waypoint a test of each later cell of the path,
 * O(1) when a blocker met before hides it, else a walk along its segment (worst case
 * O(waypoints x n x segment length), about linear in the path in practice). A unit of the
 * progress handler per cell tested or walked; -1 when it stopped (a read: at most one segment
 * late).
 */
int32_t astar_grid_smooth(const astar_grid *g, const int32_t *cells, int32_t n, int sides, double *limits,
                          int32_t *keep);
/*
 * Sets every cell at once from a row-major array of width*height costs
 * (same rule per cost). Checks all values first: on ASTAR_EINVAL nothing changed.
 */
astar_status astar_grid_set_all(astar_grid *g, const double *costs);
/* The smallest walkable terrain cost (INFINITY if no cell is walkable; NaN when the progress
 * handler stopped the pass that recomputes it after writes). */
double astar_grid_min_cost(astar_grid *g);
/* Bumped on every terrain change; lets caches and suspended searches know they are stale
 * (landmarks built or dropped do not move it: a suspended search that reads them sees that
 * on its own). */
uint32_t astar_grid_version(const astar_grid *g);

/*
 * Islands: connected components of the walkable terrain under the grid's
 * diagonal mode (8-connected for ASTAR_DIAG_ALWAYS, 4-connected otherwise: a
 * diagonal step past a corner needs an open side cell anyway). *id gets an
 * island id >= 0 (the same for every cell of the island, until the terrain
 * changes), or -1 for a blocked cell. The labels are built on first need (three
 * passes over the cells), then kept exact by every change: astar_grid_set_cost
 * that opens a cell joins its neighbours' islands (a few steps); one that blocks a
 * cell first walks from its neighbours along the walls (a gate with a way round
 * costs about that way), then, if they are not shown joined, floods from them in
 * turns, so its work is bounded by the sides it cuts off, never the largest, plus
 * at most 16,384 steps (docs/design/living.md); a bulk write builds them
 * again at once. Queries use them too, so that a goal on another island is
 * "unreachable" without a search. ASTAR_EINVAL outside the grid, ASTAR_ENOMEM.
 */
astar_status astar_grid_component(astar_grid *g, int32_t x, int32_t y, int32_t *id);
/* Whether the terrain alone connects the two cells under the grid's mode: *yes gets 1 or
 * 0. A blocked goal is never reachable; a blocked start is left through its neighbours. */
astar_status astar_grid_reachable(astar_grid *g, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                                  int *yes);

/*
 * Dead ends: areas of the walkable terrain that join the rest of their island through one
 * gateway cell (rooms with one door, alcoves, corridor ends, and the areas nested in them),
 * under the moves of the grid's diagonal mode. *area gets the innermost area holding the cell,
 * an id >= 0 (kept until the areas are built again), and *gateway the node id of the cell it
 * is entered through; both -1 when the cell is in no dead end (or is blocked). Built on first
 * need (and first need after a bulk write); a cell write updates them without a rebuild:
 * blocking keeps every area, opening may retire the areas it joins (named and skipped no
 * more until the next build; docs/contract.md). Queries with dead_ends set skip the areas
 * they need nothing from. ASTAR_EINVAL outside the grid, ASTAR_ENOMEM.
 */
astar_status astar_grid_dead_end(astar_grid *g, int32_t x, int32_t y, int32_t *area,
                                 int32_t *gateway);

/*
 * Landmarks: the differential (ALT) heuristic. k cells are chosen by farthest-point
 * selection on the largest island, and every cell's terrain cost from and to each is
 * stored (one Dijkstra per landmark and direction on the terrain as it is now, under the
 * grid's diagonal mode; one direction is enough where every walkable cell costs the
 * same, for then the two are equal). A query then takes as h the larger of the built-in
 * heuristic and
 *     max over landmarks L of max(d(L, goal) - d(L, n), d(n, L) - d(goal, L)),
 * a lower bound by the triangle inequality, over at most ASTAR_LANDMARKS_ACTIVE of them:
 * those whose bound is largest at the query's start (more terms per node cost more time
 * than the nodes they save). Per-query costs only add to the terrain's (layers and claims
 * clamped at 0, callbacks, noise, turns, windows) and per-query blocks only remove ways,
 * so it stays admissible (and consistent) for every query, and queries use it on their
 * own once built: those with the default heuristic, one goal (no targets), no fog of war
 * (unknown cells cost 1, maybe less than the terrain) and a diagonal mode that allows no
 * move the build's did not (the same mode, or on squares a stricter one: never <
 * no_corner_cut < one_walkable < always).
 *
 * Raising a cost or blocking a cell keeps them valid at no cost (distances only grew).
 * Lowering a cost or opening a cell repairs them inside astar_grid_set_cost, in work bounded
 * by the stored distances that go down (a Dijkstra from the cell's 3x3 block per landmark
 * and direction, a unit of the progress handler per cell settled; a door opened again after
 * it closed changes nothing); if the handler stops that, or memory runs out, the write still
 * happens and the landmarks become stale. astar_grid_fill and astar_grid_set_all (bulk
 * writes) make them stale: queries ignore them until astar_grid_landmarks is called
 * again (it is not rebuilt behind the caller's back: a build runs up to 2k + 1 Dijkstras
 * over the whole grid). A search suspended in slices whose heuristic reads them starts over
 * at its next step when they were repaired, rebuilt or dropped meanwhile.
 *
 * Memory: 4 * k bytes per cell (floats) on terrain of one cost, 8 * k where costs differ:
 * k = 16 on 1024x1024 is 64 MiB or 128 MiB. Distances are stored rounded toward zero and
 * h is shrunk by a relative 2^-22 + 2^-23 * (largest distance / smallest cost) so that it
 * stays consistent despite the rounding (where that ratio exceeds 2^23 they would be of
 * no use, and the count says 0).
 */
#define ASTAR_MAX_LANDMARKS 64
#define ASTAR_LANDMARKS_ACTIVE 32

/*
 * Builds k landmarks (1..ASTAR_MAX_LANDMARKS), replacing any; k = 0 drops them. Fewer are
 * placed when the largest island has fewer cells. ASTAR_EINVAL for k out of range,
 * ASTAR_ENOMEM (the grid and its previous landmarks are left as they were). Not while
 * another thread queries the grid. The same as astar_build_landmarks on one thread run
 * to the end in one step (below).
 */
astar_status astar_grid_landmarks(astar_grid *g, int32_t k);
/* How many landmarks queries may use now: 0 when none were built or they are stale. */
int32_t astar_grid_landmark_count(const astar_grid *g);
/* Where landmark i (0-based, below the count) stands; ASTAR_EINVAL otherwise. */
astar_status astar_grid_landmark(const astar_grid *g, int32_t i, int32_t *x, int32_t *y);
/* Bytes the landmarks hold (0 when none are built; stale ones still hold theirs). */
size_t astar_grid_landmark_bytes(const astar_grid *g);

/*
 * Builds in slices, for a loading screen or a frame budget, and on threads. A build runs
 * its work (for landmarks: the Dijkstras and the passes over the cells between them) a
 * budget at a time, and installs its result on the grid at once when it is complete:
 * until then queries use what the grid had (the old landmarks, or none).
 *
 * astar_build_landmarks makes a build of what astar_grid_landmarks(g, k) builds (k
 * 0..ASTAR_MAX_LANDMARKS; 0 drops them when it completes), with the same tables whatever
 * the threads and slices: the landmarks are placed farthest-point, ASTAR_LANDMARK_BATCH at
 * a time (the first of a batch the cell farthest from all landmarks measured, each next
 * one the cell whose distance from them, or its straight-line distance times the smallest
 * cost from the batch's cells before it, is largest), and the Dijkstras of a batch (from
 * and, where costs differ, to each) are independent. threads: 1..ASTAR_MANY_MAX_THREADS
 * workers share each step (the calling thread is one; others are started per step and
 * joined before it returns, as astar_find_many does), or 0 for
 * astar_many_default_threads(). It computes nothing and allocates only its record: NULL
 * with *st = ASTAR_EINVAL (k or threads out of range) or ASTAR_ENOMEM.
 *
 * astar_build_step does at most `budget` units of work (*used, if given, gets how many):
 * a unit is one node expanded by a Dijkstra or 8 cells of a pass over the grid, so a step
 * is short and bounded in the middle of a Dijkstra too (on a 1024x1024 map, 20,000 units
 * are a few milliseconds: docs/performance.md). With threads, the budget is shared by
 * the workers, so a step does the same work in less time. The first step also
 * allocates the tables and brings the grid's island labels up to date (as a query
 * would). Returns ASTAR_RUNNING until the step that completes the build, which installs
 * the result and returns ASTAR_OK (later steps return ASTAR_OK and do nothing). If the
 * grid's terrain changed since the build last worked (astar_grid_version moved), the step
 * starts the build over from nothing (astar_build_restarts counts it) when the change could
 * make its work wrong, so such tables are never installed: a hierarchy build on any write; a
 * landmark build on a lowered cost or an opened cell, on any write during its first passes
 * (they read the island labels), on a new finite cost where every cost was the same (one
 * table serves both ways), and on a write the grid's change log no longer lists (a bulk
 * write, more than 1024 writes); raised costs and blocked cells let it go on (what it
 * measured stays a lower bound). ASTAR_ENOMEM: the work so far is dropped, the grid keeps
 * what it had, and the next step starts over. ASTAR_ESTOPPED (the progress handler, above; its units are the
 * budget's): the build stops between two units and keeps what it did, as a spent budget
 * does, and the next step goes on. Not while another thread queries or writes the grid (the
 * workers read it; the install writes it); between steps the grid may be used freely.
 * The grid must outlive the build, or the build be freed first.
 *
 * astar_build_progress: the fraction of the work done, in [0, 1], never decreasing
 * (except back to 0 when the build starts over), exactly 1 once installed.
 */
#define ASTAR_LANDMARK_BATCH 4
typedef struct astar_build astar_build;

astar_build *astar_build_landmarks(astar_grid *g, int32_t k, int threads, astar_status *st);
astar_status astar_build_step(astar_build *b, uint64_t budget, uint64_t *used);
double astar_build_progress(const astar_build *b);
/* Times the build started over because the terrain changed. */
uint32_t astar_build_restarts(const astar_build *b);
/* The threads its steps use. */
int astar_build_threads(const astar_build *b);
void astar_build_free(astar_build *b);

/* ------------------------------------------------------ influence layers */

/*
 * A number per cell, read by queries by reference (no copy per query).
 * Values must be finite; setters reject NaN and infinities with ASTAR_EINVAL.
 */
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

/*
 * Adds strength * w(d) to every cell whose centre lies within `radius` (Euclidean)
 * of (x, y), d being that distance: w = 1 (constant), 1 - d / (radius + 1) (linear)
 * or its square (quadratic), so the centre gets the full strength and the rim a
 * little. Cells outside the layer are skipped. EINVAL (and nothing changed) when
 * (x, y) is outside, radius < 0, a number is not finite or a sum would not be.
 */
astar_status astar_layer_stamp(astar_layer *l, int32_t x, int32_t y, double radius,
                               double strength, astar_falloff falloff);
/* Multiplies every value by factor >= 0 (decay); EINVAL if a product would not be finite. */
astar_status astar_layer_scale(astar_layer *l, double factor);
/* l += weight * other (same size); EINVAL, nothing changed, if a sum would not be finite. */
astar_status astar_layer_add_layer(astar_layer *l, const astar_layer *other, double weight);
/* The largest absolute value (0 for an all-zero layer); NaN when the progress handler stopped
 * the pass. */
double astar_layer_max_abs(const astar_layer *l);
/*
 * One step of influence propagation (the classic momentum/decay update): every
 * cell takes, among its 8 neighbours, the contribution v(n) * exp(-decay * step)
 * of largest magnitude (step 1 or sqrt 2; the sign kept), and becomes
 *     momentum * v(cell) + (1 - momentum) * that contribution.
 * All cells update from the old values at once. With `walk` (a grid of the same
 * size, may be NULL), blocked cells neither pass influence on nor take it: they
 * keep their values. decay >= 0, 0 <= momentum <= 1; ENOMEM if the layer's buffer
 * (8 bytes per cell of the tiles it computes, kept for the next calls) cannot grow to what
 * the step needs (nothing changed then).
 *
 * A layer keeps the tiles of 8x8 cells that hold a value other than +0 (on every write):
 * scale, spread, max_abs, add_layer and a fill of 0 visit those (spread also the cells
 * around them), not the whole layer; the values are those of the rules above, to the bit.
 */
astar_status astar_layer_spread(astar_layer *l, double decay, double momentum,
                                const astar_grid *walk);

/* ----------------------------------------------------------- fog of war */

/*
 * What one player knows of the terrain: a flag per cell, all unknown at first.
 * A query given a mask (astar_query.known) treats unknown cells as walkable at
 * cost 1 and known cells as the terrain says, so a unit plans through what it
 * has not seen, as a player would.
 */
typedef struct astar_mask astar_mask;

astar_mask *astar_mask_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_mask_free(astar_mask *m);
int32_t astar_mask_width(const astar_mask *m);
int32_t astar_mask_height(const astar_mask *m);
/* Marks known every cell whose centre lies within radius (Euclidean) of (x, y). EINVAL
 * when (x, y) is outside or radius is negative or NaN (infinity reveals everything). */
astar_status astar_mask_reveal(astar_mask *m, int32_t x, int32_t y, double radius);
/* 1 known, 0 unknown, -1 outside. */
int astar_mask_is_known(const astar_mask *m, int32_t x, int32_t y);

/* ---------------------------------------------------------------- claims */

/*
 * Nodes claimed by units along their planned paths. Units are small integer
 * slots handed out by astar_claims_unit_new; a host maps its own unit keys to
 * them. Each unit claims a path; only its current node and the ones after it
 * count, and a node that appears twice in one path counts once for that unit.
 */
typedef struct astar_claims astar_claims;

astar_claims *astar_claims_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_claims_free(astar_claims *c);
int32_t astar_claims_width(const astar_claims *c);
int32_t astar_claims_height(const astar_claims *c);
/* A free unit slot (>= 0), or -1 on OOM. The slot holds no claim until set. */
int32_t astar_claims_unit_new(astar_claims *c);
/*
 * Replaces the unit's claim by the path nodes[0..n-1] (node ids, 0-based;
 * nodes[0] is where the unit stands). The array is copied. ASTAR_EINVAL for a
 * bad slot, n < 1 or a node outside the grid; ASTAR_ENOMEM on OOM. On error
 * the previous claim is left as it was.
 */
astar_status astar_claims_set(astar_claims *c, int32_t unit, const int32_t *nodes, int32_t n);
/* Moves the unit `steps` (>= 0) nodes along its claim, releasing what it left. */
astar_status astar_claims_advance(astar_claims *c, int32_t unit, int32_t steps);
/* Drops the unit's claim and frees its slot for reuse. */
astar_status astar_claims_release(astar_claims *c, int32_t unit);
/* How many units claim the node now (0 outside the grid). */
int32_t astar_claims_count(const astar_claims *c, int32_t x, int32_t y);
/* The unit's current node id, or -1 if it has no claim. */
int32_t astar_claims_current(const astar_claims *c, int32_t unit);

/* ----------------------------------------------------------------- query */

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

/*
 * Jump point search (Harabor and Grastien): on a uniform-cost query, A* over
 * "jump points" only -- the cells where an optimal path may have to turn -- found
 * by scanning straight lines and diagonals cell by cell without queueing them.
 * The cost is the same as plain A*'s; the path may be another of equal cost, still
 * listed cell by cell. ASTAR_JPS_AUTO takes it when the query qualifies: every
 * walkable cell of the grid one cost, diagonal mode NO_CORNER_CUT or NEVER, the
 * default heuristic (octile, or manhattan for NEVER) at weight 1, a walkable start,
 * and nothing else set: no layers, claims, callbacks, fog mask, noise, targets,
 * turn_penalty, claim_window, partial, max_expansions or max_cost (a budget counts A*'s
 * work, so budgeted queries run A*: the answer never depends on the engine). Under JPS,
 * astar_result.expansions counts jump points taken off the open list (far fewer than A*'s
 * cells). ASTAR_JPS_OFF always runs plain A*.
 *
 * ASTAR_JPS_AUTO reads the jumps from a table of the grid (JPS+: 16 bytes per cell for
 * NO_CORNER_CUT, 8 for NEVER), built by the first such query after a bulk write (fill,
 * set_all, a map load) and kept in step by astar_grid_set_cost. ASTAR_JPS_ONLINE makes the
 * same search scan the lines instead, with no table: the same status, cost and expansions
 * (but on lines of ASTAR_MAX_SIDE cells, where the table may add a jump point), for
 * comparison or to spare the table's memory.
 */
typedef enum astar_jps { ASTAR_JPS_AUTO = 0, ASTAR_JPS_OFF = 1, ASTAR_JPS_ONLINE = 2 } astar_jps;

/*
 * Builds now the JPS+ table that the first jumping query under `mode` would build
 * (NO_CORNER_CUT or NEVER; ASTAR_DIAG_DEFAULT: the grid's mode), so that no frame
 * of the game pays for it (1 ms on a 194x194 map, 27 ms on 1024x1024); a fresh
 * table is left as it is. ASTAR_EINVAL for another mode, ASTAR_ENOMEM.
 */
astar_status astar_grid_prepare_jumps(astar_grid *g, astar_diagonal mode);
/* The bytes the grid's JPS+ tables take (0 before the first). */
size_t astar_grid_jump_bytes(const astar_grid *g);

/*
 * One query. Fill it with astar_query_init, then set what you need.
 *
 * The step cost from a to an adjacent b is
 *     L * cost(b) + max(0, P(b) + X(a, b))
 * L = 1 or sqrt(2); P = sum of layer values * weights + claim penalty;
 * X = node_cost(b) + edge_cost(a, b).
 */
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
    astar_node_cost_fn node_cost;
    void *node_cost_ud;
    astar_edge_cost_fn edge_cost;
    void *edge_cost_ud;
    uint64_t max_expansions;          /* UINT64_MAX: no limit (0 expands nothing) */
    double max_cost;                  /* INFINITY: no limit */
    int partial;                      /* nonzero: return a partial path when not found */
    const astar_mask *known;          /* NULL: the terrain as it is; else unknown cells are
                                         walkable at cost 1 (same size as the grid) */
    double noise;                     /* >= 0: adds noise * astar_noise(seed, x, y) to P(b), so
                                         units with different seeds spread out */
    uint32_t seed;
    const int32_t *targets;           /* ntargets > 0: the nearest of these node ids is the
                                         goal (gx, gy ignored); blocked ones are skipped.
                                         Not with ASTAR_H_CUSTOM. */
    int32_t ntargets;
    double turn_penalty;              /* >= 0: added (outside the clamp of P + X) to every step
                                         whose direction differs from the step before it.
                                         Approximate: each node keeps the one cheapest way in the
                                         search found to it, so the path is the cheapest of those
                                         ways and info.cost its exact cost, but a path that enters
                                         some node the dearer way to save turns later is missed. */
    int32_t claim_window;             /* -1: a claim counts whatever its time; w >= 0: another
                                         unit's claim of a node at step t of its remaining path
                                         (0 = where it stands) counts only if this path enters the
                                         node at a step s with |s - t| <= w; a unit's last node
                                         counts for every s >= t - w (it stays there). Approximate
                                         in the same way as turn_penalty. */
    astar_jps jps;                    /* ASTAR_JPS_AUTO (the default), _OFF or _ONLINE */
    const double *target_costs;       /* with targets, NULL or one per target: a cost added when
                                         the path ends there (>= 0, finite), so the answer
                                         minimises cost to a target + its target cost */
    const int32_t *interests;         /* ninterests > 0: node ids a path may pass through to
                                         collect interest_values[i] (in (0,
                                         ASTAR_MAX_INTEREST]); at most one is
                                         collected per path, and the answer minimises its cost
                                         minus the value collected (res->score). Exact: one
                                         search over two copies of the grid, before and after
                                         collecting. Blocked ones are skipped; of several on one
                                         node, the largest value counts. Not with partial. */
    const double *interest_values;
    int32_t ninterests;
    int dead_ends;                    /* nonzero (astar_query_init's default): skip every
                                         dead-end area (astar_grid_dead_end) that holds none of
                                         the cells the query needs (start, goal, targets,
                                         interests). Exact: the same cost as without. Ignored
                                         where it would not be (partial, known, claim_window,
                                         turn_penalty) and by jump point search. */
} astar_query;

void astar_query_init(astar_query *q);

/*
 * The deterministic noise of the `noise` option, in [0, 1), for 0-based (x, y):
 *     h = (x * 0x9E3779B1 + y * 0x85EBCA77 + seed * 0xC2B2AE3D) mod 2^32
 *     h ^= h >> 16; h *= 0x7FEB352D; h ^= h >> 15; h *= 0x846CA68B; h ^= h >> 16
 *     (all mod 2^32), and the noise is h / 2^32.
 */
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
    uint32_t restarts;       /* astar_search_step: times the search started over because a
                                terrain change while it was suspended could change its answer
                                and could not be repaired (see astar_search_step) */
    int32_t interest;        /* with interests, found: the index of the one collected, or -1 */
    double score;            /* what the search minimised: cost minus the value collected (with
                                target_costs, the target's cost not counted); found or partial */
    int scored;              /* nonzero: the query offered interests (score is worth showing) */
    uint64_t abstract_expansions; /* astar_find_hierarchical: abstract nodes expanded (also
                                     counted in expansions); 0 elsewhere */
    int fallback;            /* astar_find_hierarchical: nonzero when the corridor failed and
                                an exact search over the whole grid gave the answer */
    int tiered;              /* nonzero: astar_find_hierarchical answered (the two above apply) */
    uint32_t repairs;        /* astar_search_step: terrain changes under the search's expanded
                                nodes that it repaired instead of starting over */
} astar_result;

/* ---------------------------------------------------------------- search */

/*
 * A search workspace: node records, open list and the last path. Reused by
 * every query on grids of its size, so a warm workspace allocates nothing per
 * query (it grows only when a query needs more open-list or path room than
 * any before). Not shareable between threads: one per thread.
 */
typedef struct astar_search astar_search;

astar_search *astar_search_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_search_free(astar_search *s);
/*
 * Gives back the memory its searches touched, keeping the workspace: where its per-node
 * arrays are the system's pages (the default allocator, Linux) they become untouched zeroed
 * pages again, which the next queries commit as they touch them; elsewhere nothing happens.
 * A search started on s (astar_search_start) is dropped: its next step answers what the last
 * finished one did. What a cancelled job's workspace does (the Lua binding's job close).
 */
void astar_search_trim(astar_search *s);

/*
 * A level's load: astar_grid_prepare builds now every lazy table the grid's queries under
 * `mode` (ASTAR_DIAG_DEFAULT: the grid's; another square mode on a square grid, hex on a hex
 * one) would build on their first use: the cost range, the island labels (exact), the
 * dead-end areas and, when every walkable cell costs the same, the JPS+ table. Fresh tables
 * are left as they are (a second call costs nothing). What it leaves for the first query:
 * the hierarchy (astar_grid_hierarchy), landmarks, and a workspace's arrays (below).
 * ASTAR_EINVAL (mode), ASTAR_ENOMEM, ASTAR_ESTOPPED (the progress handler: what was built
 * stays built).
 *
 * astar_search_prepare makes s ready for g's queries under `mode`: its per-cell arrays for
 * layered (influence), claims and target (nearest) queries, zeroed so that their pages are
 * touched now (20 bytes a cell more than a plain query's 16; when the grid has a hierarchy,
 * 16 more for its refinement's heuristic), and its view of the dead-end
 * neighbour bits when the areas are built (it builds no table: call astar_grid_prepare
 * first; the view's pages, a byte a cell, are copied as searches read them). ASTAR_EINVAL
 * when s is another size.
 *
 * astar_build_prepare: what astar_grid_prepare does as a build (astar_build_step above) of
 * four coarse units: a unit is a whole table (range, labels, areas, then all of them again:
 * the JPS+ table, and whatever a write between steps made stale), whatever its size, so a
 * step of budget 1 makes one table. A write between steps never starts it over.
 */
astar_status astar_grid_prepare(astar_grid *g, astar_diagonal mode);
astar_status astar_search_prepare(astar_search *s, astar_grid *g, astar_diagonal mode);
astar_build *astar_build_prepare(astar_grid *g, astar_diagonal mode, astar_status *st);
/* The hierarchy a hierarchical query reads, now: its dirty clusters rebuilt when the grid has
 * one of cluster_size, else built (astar_grid_hierarchy, whose errors it returns); and the
 * query scratch the first such query makes (a corridor stamp per cell, 2 bytes). */
astar_status astar_grid_prepare_hierarchy(astar_grid *g, int32_t cluster_size);

/*
 * Runs one query. Returns res->status. Errors: ASTAR_EINVAL for a bad query
 * (coordinates outside, sizes that differ from the grid, weight < 1, ...),
 * ASTAR_ENOMEM, ASTAR_EABORT (a callback aborted or returned NaN / < 0).
 * On found or partial, the path is available from astar_search_path until the
 * next query on this workspace.
 */
astar_status astar_find(astar_search *s, astar_grid *g, const astar_query *q,
                        astar_result *res);

/*
 * The same search in slices, for a frame budget: astar_search_start checks and
 * sets up the query (expanding nothing) and returns ASTAR_RUNNING, or at once
 * the final status when there is nothing to search (a blocked goal, another
 * island, start == goal, an error). Each astar_search_step then expands at most
 * n more nodes and returns ASTAR_RUNNING until the search ends with the status,
 * result and path astar_find would have given (expansions counted over all
 * steps). Stepping a finished search returns its result again. q, the grid and
 * whatever q points to must stay alive until the search ends; between steps the
 * host may change layers, claims and masks (a node's values are read when the
 * search first reaches it), and the grid's terrain may change: the next step
 * goes on when no change was under a node the search expanded (a cell not reached yet is read
 * at its new cost when reached), repairs what a change under them altered where that is exact
 * (res->repairs counts those), and otherwise starts the search over (res->restarts counts it).
 * The answer is exact for the terrain at the search's end. It runs the engine astar_find
 * would run: where that is jump point search, a step expands n jump points, and any terrain
 * change between steps starts it over (its scans read cells it never reached). An error (ENOMEM, EABORT)
 * ends the search; start it again to retry. ASTAR_ESTOPPED (the progress handler) does not:
 * the step stopped between two expansions and the next goes on from there (a stopped
 * astar_search_start started nothing; a stopped astar_find ends). One live search per workspace:
 * astar_find and astar_field_build on the same workspace end it.
 */
astar_status astar_search_start(astar_search *s, astar_grid *g, const astar_query *q,
                                astar_result *res);
astar_status astar_search_step(astar_search *s, uint64_t n, astar_result *res);

/* The last path as node ids, start first; *length gets its size. Owned by s. */
const int32_t *astar_search_path(const astar_search *s, int32_t *length);

/*
 * A path found before the world changed (node ids ids[0..n), as astar_search_path gives
 * them), walked under query q (its costs, walls, callbacks and fog; its endpoints and
 * targets are ignored: the walk starts at ids[from], where claim_radius is measured from and
 * claim windows count steps from): cost[i], for from < i < n, is what the step ids[i-1] ->
 * ids[i] costs now, INFINITY when the query no longer allows it (a blocked cell, a move
 * that is not legal, a callback's false); cost[from] = 0. Returns ASTAR_OK, ASTAR_EINVAL
 * (no path, from outside it, a cell outside the grid, targets or interests in q) or
 * ASTAR_EABORT. Any search stepped on s ends.
 */
astar_status astar_path_costs(astar_search *s, astar_grid *g, const astar_query *q, const int32_t *ids,
                              int32_t n, int32_t from, double *cost);

/*
 * Cell i (0-based) of a path being checked by astar_path_terrain: its node id, or -1 when the
 * entry is not a cell of the grid (the check then ends with ASTAR_EINVAL). A reader lets a
 * caller keep the path in its own form (a script's table) and hand over only the cells asked.
 */
typedef int32_t (*astar_path_reader)(void *ud, int32_t i);

/*
 * The terrain-only check of a grid path of n cells (read through read): *index gets the
 * first i in (from, n) whose step ids[i-1] -> ids[i] the terrain under mode (ASTAR_DIAG_DEFAULT:
 * the grid's) no longer allows (a blocked cell, a move that is not a neighbour's or that the
 * corner rule forbids), or -1. What astar_path_costs says is INFINITY for a query with no
 * node_cost, edge_cost or fog (influence, claims, noise and turns never block a step).
 *
 * since NULL: every cell is read once, in order (memory speed: no query is set up).
 * since = &v, a version the whole path was allowed at under mode (astar_grid_version when it
 * was found; astar_grid_set_diagonal does not move the version, so a path checked under the
 * grid's mode must have been found under the same):
 * when the grid's change log still holds every change after v (no bulk write, at most
 * 1024 changes; else the whole path is read as without since), only the steps near a cell
 * blocked since v are looked at: a step's legality reads only the 3x3 around its first
 * cell, and the path is a chain of neighbours, so a cell at Chebyshev distance D from every
 * such change needs none of the next D - 2 cells read. The work is the cells read (a few per
 * change near the path, about log D per stretch away from them) times the changes; none at
 * all when nothing changed. A pair of cells read farther apart than their indices allow (not
 * a chain of neighbours: a smoothed path) is ASTAR_EINVAL with *index the later one; so is
 * a reader's -1 (*index = that i). Reads only the grid: no workspace, no allocation.
 */
astar_status astar_path_terrain(const astar_grid *g, astar_diagonal mode, int32_t n, int32_t from,
                                const uint32_t *since, astar_path_reader read, void *ud,
                                int32_t *index);

/* astar_repair's `within` up to which the heuristic aims at the rejoin cells themselves. */
#define ASTAR_REPAIR_LOCAL 64

typedef struct astar_repair_info {
    int32_t rejoin;   /* the index in the old path where the repaired one rejoins it, or -1 */
    int replanned;    /* nonzero: it could not rejoin; the path is a fresh search's */
} astar_repair_info;

/*
 * Repairs a path (ids[0..n)) from ids[from], where the unit stands, to its end under query q
 * (as astar_path_costs reads q): one search to every cell of the old path beyond the last
 * step q no longer allows (every later cell when none), each target carrying what the old
 * path costs from it to the end, so the answer is the cheapest way that leaves the old path at
 * ids[from] and rejoins it at some later cell, exact over all of them (with turn_penalty or
 * claim_window as approximate as a search). The end is one of them: its cost is then a fresh
 * search's, and the search costs about as much, ties aside. within > 0 keeps only the first
 * `within` cells beyond the blockage (a local repair: the heuristic is then the least over
 * them of the distance plus the rest, which keeps the search near them when within <=
 * ASTAR_REPAIR_LOCAL); exact over those. If none can be reached, a search for the end
 * itself (info->replanned). On found, the path (the new part, then the old rest) is at
 * astar_search_path, res->cost its cost summed step by step, res->expansions both searches'.
 * Not with targets, interests or partial, nor on s's own path (copy it first): ASTAR_EINVAL.
 */
astar_status astar_repair(astar_search *s, astar_grid *g, const astar_query *q, const int32_t *ids,
                          int32_t n, int32_t from, int32_t within, astar_result *res,
                          astar_repair_info *info);

/* ----------------------------------------------------- two-tier search */

/*
 * HPA* (Botea, Mueller and Schaeffer 2004): the grid cut into clusters of cluster_size x
 * cluster_size cells; entrances where a maximal run of walkable cells along a cluster's
 * border faces walkable cells across (one transition in a run's middle, or one at each end
 * of a run of 6 or more); per cluster, the terrain costs between its entrances inside it,
 * under the grid's diagonal mode at build time (NEVER, ONE_WALKABLE or NO_CORNER_CUT: under
 * ALWAYS and on hexes a path may cross a cluster's corner diagonally, which the entrances do
 * not model, so those are ASTAR_EINVAL). A terrain write marks the clusters it touches
 * dirty (its own; for a change of walkability the clusters across its sides too); the next
 * hierarchical query rebuilds them. Memory: a few bytes per cell, see astar_grid_hierarchy_stats.
 *
 * astar_grid_hierarchy builds it in one call (cluster_size 2..ASTAR_HIER_MAX_SIZE; 0 drops it),
 * replacing any; on ASTAR_ENOMEM the grid has none, on ASTAR_ESTOPPED the one it had. The
 * same build in units, for a host that
 * spreads them over frames or threads: astar_hierarchy_begin (allocates, every cluster dirty),
 * astar_hierarchy_build_cluster for each k below astar_hierarchy_clusters (each touches only
 * its own cluster's memory and reads the terrain, so distinct k may run on threads at once,
 * given an allocator that is thread-safe), then astar_hierarchy_finish (numbers the entrances;
 * cheap). A cluster left dirty is built by the next hierarchical query.
 */
#define ASTAR_HIER_MAX_SIZE 256

astar_status astar_grid_hierarchy(astar_grid *g, int32_t cluster_size);
int32_t astar_hierarchy_clusters(const astar_grid *g); /* 0 when none */
/*
 * The hierarchy as a build in slices and on threads (astar_build_step, _progress, _free as
 * for landmarks above): what astar_grid_hierarchy(g, cluster_size) builds, the same tables
 * whatever the threads and slices, built aside and put on the grid by the step that
 * completes it (queries use the grid's old one, or none, until then; cluster_size 0 drops
 * it then). A unit of work is a pop of a cluster's Dijkstra (one from each entrance) or 8
 * cells of its border scan, of a table's fill or copy, or 8 clusters of the numbering; a
 * cluster is one unit of a stage, so threads share the clusters. A terrain write between
 * steps does not start it over (the exception to astar_build_step's rule above): the next
 * step redoes the clusters it touched (the written cell's and those across its sides) and
 * goes on, so what it installs is a fresh build's on the terrain of its last step; a bulk
 * write, or more than 1024 writes between two steps (the grid's change log), still starts
 * it over. NULL with *st = ASTAR_EINVAL (cluster_size or threads out of range, or the grid's
 * diagonal mode has no hierarchy) or ASTAR_ENOMEM. astar_grid_hierarchy is this
 * build on one thread run to the end in one step.
 */
astar_build *astar_build_hierarchy(astar_grid *g, int32_t cluster_size, int threads, astar_status *st);

typedef struct astar_hierarchy_stats {
    int32_t cluster_size;    /* 0: no hierarchy */
    int32_t clusters;
    int64_t entrances;       /* abstract nodes */
    int64_t edges;           /* abstract arcs: within clusters (connected pairs) and across */
    int32_t dirty;           /* clusters waiting for a rebuild */
    astar_diagonal diagonal; /* the mode it was built under */
    size_t bytes;            /* the tables and the query scratch */
} astar_hierarchy_stats;

/* The figures, kept as clusters are built and marked dirty: reading them costs no pass over
 * the tables (a script may call it in a loop). */
astar_status astar_grid_hierarchy_stats(const astar_grid *g, astar_hierarchy_stats *st);

/*
 * A two-tier query: q as astar_find takes it (ASTAR_EINVAL with targets or interests, or a
 * diagonal mode other than the hierarchy's, or no hierarchy built). Start and goal are
 * inserted by Dijkstras inside their clusters; A* on the abstract graph (terrain costs only)
 * picks a chain of entrances; then A* under q's full cost model, restricted to the clusters
 * that chain passes (the corridor) and their neighbours, gives the path: its cost is exact
 * for that path, but a cheaper path outside the corridor is missed. Endpoints in the same or
 * neighbouring clusters are searched by astar_find directly. When the abstract graph finds
 * no way or the corridor holds no path (fog, callbacks, claims that block...), astar_find on
 * the whole grid answers (res->fallback). res->expansions counts every tier (insertions,
 * abstract nodes, refinement, fallback); res->abstract_expansions the abstract nodes.
 * max_expansions bounds the sum; partial and max_cost are answered exactly (by the fallback
 * when the corridor's answer does not qualify). Rebuilds dirty clusters first, so one
 * hierarchical query at a time per grid, and none while other threads query it.
 */
astar_status astar_find_hierarchical(astar_search *s, astar_grid *g, const astar_query *q,
                                     astar_result *res);

/* ------------------------------------------------- many queries, threads */

/*
 * Many queries that differ only in their endpoints, answered at once on a
 * pool of threads (pthreads). An astar_many keeps one astar_search workspace
 * per worker, the paths and the bookkeeping from call to call, so a warm one
 * (same grid size, no more queries or path room than before) allocates
 * nothing per call: made once and called every frame. Worker threads are
 * started per call and joined before it returns (a few tens of microseconds
 * each), the calling thread being worker 0.
 *
 * During a call, the grid, the query's layers, claims and mask are read by
 * every worker at once: nobody may write to them until the call returns. The
 * lazy state a query may build on the grid (island labels, the cost range) is
 * brought up to date on the calling thread before any worker starts (island
 * labels are exact: an unreachable goal costs 0 expansions).
 * Allocations go through the allocator given at creation, serialised by a
 * mutex, so it need not be thread-safe. An astar_many is used by one call at
 * a time.
 */
typedef struct astar_many astar_many;

/* The most threads one call may use. */
#define ASTAR_MANY_MAX_THREADS 64

astar_many *astar_many_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_many_free(astar_many *m);

/* What threads = 0 means: one per online processor (at least 1, at most the maximum). */
int astar_many_default_threads(void);

/*
 * Runs n queries: query i is *base with sx, sy, gx, gy = endpoints[4i..4i+3]
 * (0-based), exactly as astar_find would run it, and results[i] gets its
 * result. threads: 1 runs on the calling thread; 0 takes
 * astar_many_default_threads(); never more workers than queries. With threads
 * > 1, base's callbacks (node_cost, edge_cost, heuristic_fn) are called from
 * several threads at once: they must be thread-safe and must not longjmp (with
 * one thread they may, as with astar_find). If a thread cannot be started, the
 * call goes on with those that were.
 *
 * Returns ASTAR_EINVAL (nothing run) for n < 0, threads < 0 or >
 * ASTAR_MANY_MAX_THREADS, a grid of another size than m; ASTAR_ENOMEM (nothing
 * run) when the workspaces cannot be made. Otherwise every query ran and the
 * return is ASTAR_OK, or the first error (by query index) among the results
 * (a bad query: ASTAR_EINVAL; ASTAR_ENOMEM; ASTAR_EABORT). ASTAR_ESTOPPED: the progress
 * handler stopped a query (the workers take no more), some never ran, and there are no paths.
 * Query i's path is available from astar_many_path until the next call on m.
 */
astar_status astar_find_many(astar_many *m, astar_grid *g, const astar_query *base,
                             const int32_t *endpoints, int32_t n, int threads,
                             astar_result *results);

/* Query i's path of the last call as node ids, start first (NULL and 0 when none). */
const int32_t *astar_many_path(const astar_many *m, int32_t i, int32_t *length);

/* ------------------------------------------------------- distance fields */

/*
 * The result of one Dijkstra over the whole grid: every cell's cost to (or
 * from) a set of cells, and the step to take. One search serves a crowd
 * walking to the same place (a flow field), or shows a turn-based unit every
 * cell its movement budget reaches.
 */
typedef struct astar_field astar_field;

typedef enum astar_field_kind {
    ASTAR_FIELD_TO,    /* cost of walking from each cell to the nearest of the cells given */
    ASTAR_FIELD_FROM   /* cost of walking from the cells given (a start) to each cell */
} astar_field_kind;

/* A new field reads as every cell unreached until it is built (it holds no cells: making
 * one costs an allocation, no pass over the map). */
astar_field *astar_field_new(int32_t width, int32_t height, const astar_alloc *alloc);
void astar_field_free(astar_field *f);

/*
 * Fills f (the grid's size) under the query's costs: the step cost of
 * astar_find, so a field's distance is what astar_find would report for the
 * same walk. Read from q: diagonal, layers, claims (claim_radius measured from
 * sx, sy), node_cost, edge_cost, known, noise and seed, max_cost (dearer cells
 * stay unreached: a movement budget) and max_expansions (cells not settled when
 * it stops stay unreached; the status is then ASTAR_LIMIT). q's goal is
 * ignored; heuristic, weight, partial, targets, turn_penalty and claim_window
 * must be left at their defaults (ASTAR_EINVAL). Goals (TO) that are blocked
 * are no goals; a start (FROM) may be blocked, as in astar_find. Uses s as its
 * workspace (res gets the expansions); returns ASTAR_OK, ASTAR_LIMIT or an error.
 */
astar_status astar_field_build(astar_field *f, astar_search *s, astar_grid *g, const astar_query *q,
                               const int32_t *cells, int32_t ncells, astar_field_kind kind,
                               astar_result *res);
/*
 * astar_field_build in slices, for a frame budget: astar_field_start checks the request and
 * sets up on s what astar_field_build(f, s, g, q, cells, ncells, kind) would search, doing no
 * work yet: ASTAR_RUNNING, or its error (ASTAR_EINVAL, ASTAR_ENOMEM, ASTAR_EABORT,
 * ASTAR_ESTOPPED: nothing started). Each astar_field_step then does at most n units more
 * (*used gets how many): an expansion of the search, then, once it has ended,
 * ASTAR_FIELD_CELLS_PER_UNIT cells of f written where f is kept dense (astar_field_list says
 * when); a sparse f is listed whole by the first step with a unit left after the search
 * (ASTAR_FIELD_CELLS_PER_UNIT cells kept a unit, which may take that step past n: at most 9
 * cells per expansion the search made, in proportion to what it reached); it returns ASTAR_RUNNING until f is written,
 * then ASTAR_OK or ASTAR_LIMIT with f and res (expansions, restarts) as astar_field_build
 * leaves them, and the same again when stepped after. f, q, cells and whatever q points to
 * must stay alive until it ends; f holds no field until then. Between steps layers, claims
 * and masks may change (a cell's values are read when it is first reached), and the terrain:
 * the next step goes on when no change was in the 3x3 block of a cell the field reached and
 * none opened a goal (TO) that was blocked, else it starts over (res->restarts). ESTOPPED
 * stops a step between two units: the next goes on. One live search per workspace: any other
 * query on s ends it (its step then returns ASTAR_EINVAL).
 */
#define ASTAR_FIELD_CELLS_PER_UNIT 16
astar_status astar_field_start(astar_field *f, astar_search *s, astar_grid *g, const astar_query *q,
                               const int32_t *cells, int32_t ncells, astar_field_kind kind, astar_result *res);
astar_status astar_field_step(astar_search *s, uint64_t n, uint64_t *used, astar_result *res);
astar_field_kind astar_field_get_kind(const astar_field *f);
/* How many cells the last build reached. */
int32_t astar_field_reached(const astar_field *f);
/*
 * The cells the last build reached, each once in node id order (y * width + x) into ids and
 * their costs into dist (astar_field_reached entries each). A field keeps only what it
 * reached (work and memory of a build and of this list in proportion to it) unless its search
 * expanded at least one cell in 64 of the grid: then it is a grid of the field's size (this
 * list reads all of it). A unit per entry read, ASTAR_ESTOPPED before any.
 */
astar_status astar_field_list(const astar_field *f, int32_t *ids, double *dist);
/* The cell's cost (INFINITY when unreached; NaN outside). */
double astar_field_distance(const astar_field *f, int32_t x, int32_t y);
/*
 * The next cell toward the field's cells: for TO the next step to the nearest
 * goal, for FROM the step back toward the start. 1 and (*nx, *ny); 0 at one of
 * the cells or where unreached; -1 outside.
 */
int astar_field_next(const astar_field *f, int32_t x, int32_t y, int32_t *nx, int32_t *ny);

/* ------------------------------------------------------------ Moving AI */

/*
 * Parses a Moving AI benchmark map (https://movingai.com/benchmarks/formats.html)
 * held in memory: "type octile", "height H", "width W", "map", then H rows of W
 * characters. '.', 'G', 'S' are walkable at cost 1; '@', 'O', 'T', 'W' are
 * blocked. CRLF line ends are accepted. The grid uses ASTAR_DIAG_NO_CORNER_CUT,
 * the benchmarks' convention. Returns NULL on error, with a message naming the
 * line ("line 7: row has 193 characters, expected 194") in err[0..errlen-1].
 */
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

/*
 * Parses a Moving AI .scen file held in memory: "version 1" (or "version 1.0"),
 * then one problem a line, nine fields separated by tabs or spaces. Returns
 * NULL on error with a message naming the line in err. Free with astar_scen_free.
 */
astar_scen *astar_scen_parse(const char *text, size_t len, const astar_alloc *alloc, char *err,
                             size_t errlen);
void astar_scen_free(astar_scen *scen);

/* --------------------------------------------------------------- graphs */

/*
 * General graphs: waypoints, navmesh polygons, a board of territories. Nodes
 * have ids 0..n-1 in the order they were added and a position (x, y, z); arcs
 * are directed and carry a cost >= 0. An edge is a pair of arcs.
 *
 * The step cost from a to b along an arc is
 *     cost(a -> b) + max(0, P(b) + X(a, b))
 * with P and X as for grids (astar_query), per node: layer values times their
 * weights, claim penalty and noise in P; node_cost(b) + edge_cost(a, b) in X.
 *
 * The default heuristic is the Euclidean distance between node positions times
 * the graph's heuristic scale: the smallest cost / length over all arcs whose
 * ends lie apart (0 when such an arc costs 0, or when there is none). So it
 * stays admissible and consistent for any costs given, and an arc with the
 * default cost (its length) leaves the scale at 1.
 *
 * Arcs are kept in per-node lists while the graph is built and packed into a
 * compact array (CSR) the first time a query runs after a change, when the
 * heuristic scale is recomputed too. Blocking a node changes neither.
 *
 * A graph may be read by many searches at once (one astar_graph_search per
 * thread) once it is prepared (astar_graph_prepare, or any query since the
 * last change) and as long as nobody writes to it. Errors leave the graph as
 * it was.
 */
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

/* Adds a node at (x, y, z) (|each| <= ASTAR_GRAPH_MAX_COORD; use z = 0 on a plane); *id gets
 * its id. ASTAR_EINVAL for a coordinate beyond that (or NaN) or a full graph, ASTAR_ENOMEM. */
astar_status astar_graph_add_node(astar_graph *g, double x, double y, double z, int32_t *id);
int32_t astar_graph_node_count(const astar_graph *g);
/* Arcs now in the graph (an edge counts two). */
int32_t astar_graph_arc_count(const astar_graph *g);
/* The node's position; ASTAR_EINVAL for an id out of range. */
astar_status astar_graph_node(const astar_graph *g, int32_t id, double *x, double *y, double *z);

/*
 * Adds the arc from -> to with the given cost: finite and >= 0 (0 suits a
 * portal or a door), or ASTAR_GRAPH_LENGTH. If the arc exists, its cost is
 * replaced: a graph holds at most one arc from a node to another. ASTAR_EINVAL
 * for an id out of range, from == to (a loop never shortens a path, so it is
 * taken for a mistake), a bad cost or a full graph; ASTAR_ENOMEM.
 */
astar_status astar_graph_add_arc(astar_graph *g, int32_t from, int32_t to, double cost);
/* Both arcs a -> b and b -> a, same rules; on error neither changed. */
astar_status astar_graph_add_edge(astar_graph *g, int32_t a, int32_t b, double cost);
/* Removes the arc from -> to if there is one (*removed, may be NULL, gets 1 or 0).
 * ASTAR_EINVAL for an id out of range. */
astar_status astar_graph_remove_arc(astar_graph *g, int32_t from, int32_t to, int *removed);
/* The cost of the arc from -> to; NaN when there is none or an id is out of range. */
double astar_graph_arc_cost(const astar_graph *g, int32_t from, int32_t to);
/*
 * The arcs leaving id, in the order they were first added: the first `max`
 * of them go to to[] and cost[] (either may be NULL). Returns how many arcs
 * leave the node, or -1 for an id out of range.
 */
int32_t astar_graph_neighbours(const astar_graph *g, int32_t id, int32_t *to, double *cost,
                               int32_t max);

/* A blocked node is never entered (a query may still start on it). EINVAL out of range. */
astar_status astar_graph_set_blocked(astar_graph *g, int32_t id, int blocked);
/* 1 blocked, 0 not, -1 out of range. */
int astar_graph_is_blocked(const astar_graph *g, int32_t id);

/* Packs the arcs and computes the heuristic scale now, if a change left them stale
 * (queries do it on their own). ASTAR_ENOMEM leaves the graph usable. */
astar_status astar_graph_prepare(astar_graph *g);
/* The heuristic scale (see above) as of the last prepare; NaN while stale. */
double astar_graph_heuristic_scale(const astar_graph *g);
/* Bumped on every change of nodes, arcs or blocking. */
uint32_t astar_graph_version(const astar_graph *g);

/*
 * Claims on a graph's nodes: an astar_claims whose node ids are graph node ids
 * (x = id, y = 0 for astar_claims_count). Made as wide as the graph is now,
 * widened with astar_graph_claims_fit after the graph grew (nodes the claims
 * do not cover yet count as unclaimed in queries).
 */
astar_claims *astar_graph_claims_new(const astar_graph *g, const astar_alloc *alloc);
/* Widens c to the graph's node count (never narrows). ASTAR_ENOMEM leaves c as it was;
 * ASTAR_EINVAL for claims that are not a graph's (height > 1). */
astar_status astar_graph_claims_fit(astar_claims *c, const astar_graph *g);

/*
 * Row y of a layer as a plain array of width values, valid until the layer is
 * freed: a layer of width n and height 1 serves as per-node values of a graph.
 * NULL for a row out of range.
 */
const double *astar_layer_row(const astar_layer *l, int32_t y);

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
    astar_graph_node_cost_fn node_cost;
    void *node_cost_ud;
    astar_graph_edge_cost_fn edge_cost;
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
} astar_graph_query;

void astar_graph_query_init(astar_graph_query *q);

/*
 * A search workspace for graphs: node records, open list and the last path,
 * sized to the largest graph it has searched. A warm workspace allocates
 * nothing per query; it grows (once) when a graph has more nodes than any
 * before. One per thread; any number of graphs may share one.
 */
typedef struct astar_graph_search astar_graph_search;

astar_graph_search *astar_graph_search_new(const astar_alloc *alloc);
void astar_graph_search_free(astar_graph_search *s);

/*
 * Runs one query; returns res->status (res->target is -1). Prepares the graph
 * first if a change left it stale. A blocked goal (or one node_cost blocks) is
 * ASTAR_UNREACHABLE at once unless partial; a blocked start may be left.
 * Errors: ASTAR_EINVAL for a bad query (ids out of range, weight < 1, ...),
 * ASTAR_ENOMEM (the graph and the workspace stay usable), ASTAR_EABORT (a
 * callback aborted or returned a bad value). The path, as node ids from start
 * to goal, is available from astar_graph_search_path until the next query on
 * this workspace.
 */
astar_status astar_graph_find(astar_graph_search *s, astar_graph *g, const astar_graph_query *q,
                              astar_result *res);
const int32_t *astar_graph_search_path(const astar_graph_search *s, int32_t *length);

#ifdef __cplusplus
}
#endif
#endif
