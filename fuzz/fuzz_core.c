/*
 * fuzz_core.c -- libFuzzer target for the core API: grids (square or hex),
 * islands, influence layers, claims, astar_find and distance fields, driven
 * by the input bytes.
 *
 * The fuzzer keeps its own model ("shadow") of everything it hands the core:
 * terrain costs, layer values, each unit's claimed path and a fog-of-war mask
 * (queries with it see unknown cells as open at cost 1); some queries look for
 * the nearest of a few targets (find_nearest). Influence-map updates (stamp,
 * scale, spread, add_layer) are mirrored by the plain formulas of astar.h.
 * After every call it checks the core against that model (after a write of one
 * terrain cell, that cell at once and the whole grid before the next query and
 * at the end; with the grid, JPS+ tables against tables built from scratch),
 * and after every search it checks the result against an
 * independent Dijkstra written from the step-cost formula documented in astar.h
 * (it stops once the goal, or the nearest target, is settled):
 *
 *     step a -> b  =  up(L * cost(b) + max(0, P(b) + X(a, b)) [+ turn_penalty])
 *     L = 1 or sqrt(2) (1 on hexes); P = sum of layer value * weight + claim
 *     penalty * units + noise * astar_noise(seed, b); X = node_cost(b) + edge_cost(a, b);
 *     up() rounds up to a multiple of 2^-32 (below 2^19; docs/contract.md)
 *
 * The sums are formed in the same order as src/grid_cost.c and src/search.c do, so a path's cost
 * recomputed here must equal the reported cost bit for bit; the Dijkstra's
 * optimum must equal A*'s too, but for costs of 2^20 and more, where sums of
 * steps round (equal-cost routes can add up in a different order), hence a
 * relative tolerance there.
 *
 * A quarter of the queries run again with interests (check_interests: values at the bound
 * of 2^20 and beyond it, which must be refused), their score held to the oracle's best
 * cost - value over the direct way and the ways through each interest.
 *
 * Hex grids (odd-r) follow spec/support/dijkstra.lua's neighbour rule. With
 * turn_penalty or a claim_window a step's cost depends on the way in, and the
 * core keeps one way per node: the path's cost is still checked bit for bit
 * (with headings and the step at which each node is entered), the plain
 * optimum without turns and windowed claims is a lower bound, and a Dijkstra
 * over (cell, heading, depth) states gives the exact optimum, also a lower
 * bound, when the state space is small. A window wider than any path must
 * act as no window. Distance fields (TO: a backward Dijkstra; FROM: forward,
 * within the budget) are checked cell by cell, and every next step accounts
 * exactly for its cell's distance.
 *
 * Input layout: 6 setup bytes, then one operation per byte (op % 20, see
 * run_op; bytes from 232 on: distance fields and islands, 255 landmarks) with
 * its operands in the following bytes. Running out of bytes reads zeros and
 * ends the run, and so does running out of work (WORK_BUDGET); a zero operand
 * means "the usual value".
 *   byte 0, 1  width - 1, height - 1 (mod 24)
 *   byte 2     the grid's diagonal mode (mod 5: 4 is ASTAR_DIAG_HEX)
 *   byte 3     allocator (mod 4): 0 counting, 1 refuse request k only,
 *              2 refuse k and every later one, 3 none (malloc; LeakSanitizer
 *              checks): NULL, or {NULL, NULL} when byte 4 is odd
 *   byte 4     k - 1
 *   byte 5     bit 0: ask for min_cost after every terrain write (else the
 *              grid's lazy minimum is left for astar_find to recompute)
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "fuzz_alloc.h"
#include "jps_table.h" /* internal: JPS+'s tables checked against fresh builds */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Inputs are kept cheap, so that the fuzzer runs thousands of them a second: the
 * core under coverage instrumentation and sanitizers takes one to two microseconds
 * per cell a search settles, and most operations compare the whole grid, a layer
 * or the claims with the model. So grids are at most 24 x 24 (576 cells: big
 * enough for the open list to outgrow its first 256 entries, the one thing the
 * core does only on big grids), and each input has a budget of work: every
 * operation charges about what it costs, in units of a cell compared with the
 * model (a few tens of ns), and the run ends once WORK_BUDGET is spent, as when the
 * bytes run out (the operation that overdraws it still runs whole, so on the
 * largest grids an input makes a query or two, on small ones dozens).
 */
#define MAX_W 24
#define MAX_CELLS (MAX_W * MAX_W)
#define LAYER_SLOTS 4
#define MAX_UNITS 24
#define MAX_OPS 128
#define WORK_BUDGET 4600
#define WORK_FLOOR 1000
/* A node a query expands (its neighbours, callbacks, the general loop), and a cell a
 * distance field settles, in those units. */
#define WORK_PER_EXPANSION 64
#define WORK_PER_FIELD_CELL 32
/*
 * A landmark build measures k + 1 distance fields of the grid, 2k + 1 where walkable
 * cells' costs differ. A few landmarks (k <= 6, as most builds ask: 3 for the common 0xff)
 * are built when cells times fields are at most LANDMARK_WORK (k = 3: 27 cells where costs
 * differ, 48 where they do not); more than a query uses (k > 32, which needs 33 walkable
 * cells) on grids of at most LANDMARK_MANY_CELLS (6 x 6). A build is charged like other
 * work (a field's cells), but leaves LANDMARK_TAIL for the queries after it, which are what
 * reads the landmarks.
 */
#define LANDMARK_WORK 192
#define LANDMARK_MANY_CELLS 36
#define LANDMARK_TAIL 1500
#define SQRT2 1.4142135623730951

/* A step's cost rounded up to quanta of 2^-32, as the core rounds it (core.h), written here
 * from the contract's words: the smallest multiple of 2^-32 not below x, for x below 2^19. */
static double round_up(double x) {
    return x < 524288.0 ? ceil(x * 4294967296.0) / 4294967296.0 : x;
}
/* Claim windows much wider than any path count every claim: such a query must act as one
 * without a window. */
#define WINDOW_HUGE (4 * MAX_CELLS)
/* Optimal costs from two routes of equal real cost may differ by rounding only. */
#define REL_TOL 1e-9

/*
 * The model's inner loops (the oracles run a Dijkstra per query) take most of
 * the time under coverage instrumentation, and their branches say nothing
 * about the core: they are left uninstrumented.
 */
#if defined(__clang__) && __clang_major__ >= 13
#define MODEL_LOOP __attribute__((no_sanitize("coverage")))
#else
#define MODEL_LOOP
#endif

static void fail_if(bool bad, const char *what) {
    if (bad) fuzz_die(what);
}

/* ASTAR_FUZZ_TRACE=1 prints every query and its result: for replaying a crash by hand. */
static int trace = -1;

static bool tracing(void) {
    if (trace < 0) trace = getenv("ASTAR_FUZZ_TRACE") != NULL;
    return trace;
}

/* ------------------------------------------------------------ input bytes */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t rd8(reader *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

static uint16_t rd16(reader *r) {
    uint16_t lo = rd8(r);
    return (uint16_t)(lo | (uint16_t)rd8(r) << 8);
}

static uint64_t rd64(reader *r) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)rd8(r) << (8 * i);
    return v;
}

static double rd_raw_double(reader *r) {
    uint64_t bits = rd64(r);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Terrain costs, valid ones first (but DBL_MAX, above ASTAR_MAX_VALUE); the last entry reads
 * raw bits. */
static double rd_cost(reader *r) {
    static const double table[] = {
        1.0, 1.0, 2.0, 0.5, 3.0, 1.5, 7.25, 100.0, 1e-3, INFINITY, INFINITY, INFINITY,
        ASTAR_MAX_VALUE, 4.9406564584124654e-324 /* smallest denormal */, DBL_MAX, 1e6,
        NAN, 0.0, -0.0, -1.0, -INFINITY, /* raw: */ 0.0};
    size_t n = sizeof table / sizeof table[0];
    size_t i = rd8(r) % n;
    return i == n - 1 ? rd_raw_double(r) : table[i];
}

/* Only valid terrain costs: for set_all, where one bad value spoils the whole call. */
static double rd_valid_cost(reader *r) {
    static const double table[] = {1.0, 1.0, 1.0, 2.0, 0.5, 3.0, INFINITY, INFINITY};
    return table[rd8(r) % 8];
}

static double rd_layer_value(reader *r) {
    static const double table[] = {
        0.0, 1.0, -1.0, 2.5, 10.0, -10.0, 0.1, 1e6, -1e6, 1e100, -1e100, 1e300, DBL_MAX, -DBL_MAX,
        NAN, INFINITY, -INFINITY, /* raw: */ 0.0};
    size_t n = sizeof table / sizeof table[0];
    size_t i = rd8(r) % n;
    return i == n - 1 ? rd_raw_double(r) : table[i];
}

/*
 * Query options: the common values most of the time, an invalid one about one
 * time in 32 each, so that most queries get past the argument checks.
 */
static double rd_layer_weight(reader *r) {
    static const double valid[] = {1.0, 1.0, 0.5, 2.0, -1.0, 0.0, 3.0, 1e10, 1e100, -1e100};
    uint8_t b = rd8(r);
    if (b % 32 == 31) return b & 32 ? NAN : INFINITY;
    return valid[b % 10];
}

static double rd_claim_penalty(reader *r) {
    static const double valid[] = {5.0, 5.0, 0.0, 1.0, 0.25, 100.0, 1e100};
    static const double invalid[] = {-1.0, NAN, INFINITY};
    uint8_t b = rd8(r);
    return b % 32 == 31 ? invalid[(b >> 5) % 3] : valid[b % 7];
}

static double rd_weight(reader *r) {
    static const double other[] = {1.5, 2.0, 10.0, 1.0000001, 1e100};
    static const double invalid[] = {0.5, 0.0, NAN, INFINITY, -1.0};
    uint8_t b = rd8(r);
    if (b % 32 == 31) return invalid[(b >> 5) % 5];
    return b % 4 == 3 ? other[(b >> 2) % 5] : 1.0;
}

static double rd_max_cost(reader *r) {
    static const double finite[] = {0.0, 1.0, 5.0, 10.0, 25.5, 60.0, 1e100};
    static const double invalid[] = {NAN, -1.0, -INFINITY};
    uint8_t b = rd8(r);
    if (b % 4 != 3) return INFINITY;
    return b % 32 == 31 ? invalid[(b >> 5) % 3] : finite[(b >> 2) % 7];
}

/* A coordinate in 0..side-1, now and then one outside. */
static int32_t rd_coord(reader *r, int32_t side) {
    uint8_t b = rd8(r);
    switch (b) {
    case 250: return -1;
    case 251: return side;
    case 252: return INT32_MIN;
    case 253: return INT32_MAX;
    case 254: return -100;
    default: return b % side;
    }
}

/* --------------------------------------------------------------- hashing */

static uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t hash4(uint64_t seed, int32_t a, int32_t b, int32_t c, int32_t d) {
    uint64_t ab = (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
    uint64_t cd = (uint64_t)(uint32_t)c << 32 | (uint32_t)d;
    return mix64(seed ^ mix64(ab ^ mix64(cd)));
}

/* -------------------------------------------------------------- the world */

enum { UNIT_FREE, UNIT_IDLE, UNIT_ACTIVE };

typedef struct shadow_unit {
    int state;
    int32_t n, pos;
    int32_t nodes[MAX_CELLS];
} shadow_unit;

typedef struct world {
    fuzz_heap heap;
    astar_alloc alloc;
    /* What constructors get: &alloc, or (allocator mode 3) NULL or {NULL, NULL}, which
     * mean malloc; LeakSanitizer then does the leak check. */
    const astar_alloc *palloc;
    int32_t w, h, cells;
    bool eager_min;
    astar_grid *grid;
    double cost[MAX_CELLS];
    astar_diagonal diagonal;
    astar_search *search;

    astar_layer *layer[LAYER_SLOTS];
    int32_t lw[LAYER_SLOTS], lh[LAYER_SLOTS];
    double lval[LAYER_SLOTS][MAX_CELLS];

    astar_claims *claims;
    astar_claims *claims_other;  /* a different size: every query with it is EINVAL */
    int32_t nunits;              /* slots the core has handed out */
    shadow_unit units[MAX_UNITS];

    int32_t last_path[MAX_CELLS];
    int32_t last_len;

    astar_mask *mask;            /* fog of war; NULL when its allocation failed */
    bool known[MAX_CELLS];

    int landmark_builds;         /* builds so far in this input */
    bool grid_unchecked;         /* cells written since the last check_grid */
    int64_t work;                /* left of WORK_BUDGET */
    int64_t allowance;           /* what this input's operations had of it */
} world;

static world W;

/* Charges this input for `cells` cells visited (see WORK_BUDGET). */
static void spend(int64_t cells) { W.work -= cells; }

/* Mirrors astar_grid_min_cost: the smallest walkable cost, INFINITY when none. */
MODEL_LOOP static double shadow_min_cost(void) {
    double m = INFINITY;
    for (int32_t i = 0; i < W.cells; i++)
        if (W.cost[i] < m) m = W.cost[i];
    return m;
}

/* The grid's size and mode, the cells just outside, and (byte 5) its minimum. */
static void check_grid_frame(void) {
    fail_if(astar_grid_width(W.grid) != W.w || astar_grid_height(W.grid) != W.h, "grid size changed");
    fail_if(astar_grid_diagonal(W.grid) != W.diagonal, "grid diagonal mode differs");
    fail_if(!isnan(astar_grid_get_cost(W.grid, -1, 0)) || !isnan(astar_grid_get_cost(W.grid, 0, W.h)),
            "get_cost outside the grid is not NaN");
    if (W.eager_min)
        fail_if(astar_grid_min_cost(W.grid) != shadow_min_cost(), "min_cost differs from the model");
}

/* Every cell against the model: after writes of every cell, before each query and at the end.
 * And JPS+'s tables, where built and fresh, entry by entry against tables built from scratch
 * (the cell writes since keep them in step locally). */
static void check_grid(void) {
    spend(3 * W.cells);
    check_grid_frame();
    for (int32_t i = 0; i < W.cells; i++) {
        double got = astar_grid_get_cost(W.grid, i % W.w, i / W.w);
        fail_if(got != W.cost[i], "terrain cost differs from the model");
    }
    for (int kind = 0; kind < ASTAR_JPS_TABLE_KINDS; kind++) /* -1: none, or OOM building the check */
        fail_if(astar_jps_table_mismatches(W.grid, kind) > 0, "a JPS+ table differs from a fresh build");
    W.grid_unchecked = false;
}

/* After a write of one cell (or none): that cell at once, every other one before the next query
 * reads the grid (check_grid), so that a row of writes costs what they do, not a pass each. */
static void check_grid_cell(int32_t x, int32_t y) {
    check_grid_frame();
    if (x >= 0 && y >= 0 && x < W.w && y < W.h)
        fail_if(astar_grid_get_cost(W.grid, x, y) != W.cost[y * W.w + x], "terrain cost differs from the model");
    W.grid_unchecked = true;
}

static bool valid_cost(double c) { return c == INFINITY || (c > 0 && c <= ASTAR_MAX_VALUE); }
/* astar.h: every number a query sums is at most ASTAR_MAX_VALUE in magnitude. */
static bool value_ok(double v) { return v >= -ASTAR_MAX_VALUE && v <= ASTAR_MAX_VALUE; }

static void op_set_cost(reader *r) {
    int32_t x = rd_coord(r, W.w), y = rd_coord(r, W.h);
    double c = rd_cost(r);
    uint32_t version = astar_grid_version(W.grid);
    astar_status st = astar_grid_set_cost(W.grid, x, y, c);
    bool ok = x >= 0 && y >= 0 && x < W.w && y < W.h && valid_cost(c);
    fail_if(st != (ok ? ASTAR_OK : ASTAR_EINVAL), "set_cost status");
    if (ok) {
        bool changed = W.cost[y * W.w + x] != c;
        W.cost[y * W.w + x] = c;
        if (changed) fail_if(astar_grid_version(W.grid) == version, "set_cost did not bump the version");
    } else {
        fail_if(astar_grid_version(W.grid) != version, "a rejected set_cost bumped the version");
    }
    check_grid_cell(x, y);
}

static void op_fill(reader *r) {
    double c = rd_cost(r);
    uint32_t version = astar_grid_version(W.grid);
    astar_status st = astar_grid_fill(W.grid, c);
    fail_if(st != (valid_cost(c) ? ASTAR_OK : ASTAR_EINVAL), "fill status");
    if (st == ASTAR_OK) {
        for (int32_t i = 0; i < W.cells; i++) W.cost[i] = c;
        fail_if(astar_grid_version(W.grid) == version, "fill did not bump the version");
    } else {
        fail_if(astar_grid_version(W.grid) != version, "a rejected fill bumped the version");
    }
    check_grid();
}

static void op_set_all(reader *r) {
    static double costs[MAX_CELLS];
    /* Runs of one value keep the input short; then maybe one bad value somewhere. */
    double v = rd_valid_cost(r);
    for (int32_t i = 0; i < W.cells; i++) {
        if (i % 8 == 0) v = rd_valid_cost(r);
        costs[i] = v;
    }
    uint8_t bad = rd8(r);
    bool spoil = bad & 1;
    if (spoil) {
        static const double invalid[] = {NAN, 0.0, -0.0, -1.0, -INFINITY};
        costs[rd16(r) % W.cells] = invalid[(bad >> 1) % 5];
    }
    uint32_t version = astar_grid_version(W.grid);
    astar_status st = astar_grid_set_all(W.grid, costs);
    fail_if(st != (spoil ? ASTAR_EINVAL : ASTAR_OK), "set_all status");
    if (!spoil) memcpy(W.cost, costs, (size_t)W.cells * sizeof costs[0]);
    else fail_if(astar_grid_version(W.grid) != version, "a rejected set_all bumped the version");
    check_grid();
}

static void op_set_diagonal(reader *r) {
    astar_diagonal d = (astar_diagonal)((int)(rd8(r) % 8) - 2); /* -2..5: three are invalid */
    astar_grid_set_diagonal(W.grid, d);
    if (d >= ASTAR_DIAG_NEVER && d <= ASTAR_DIAG_HEX) W.diagonal = d;
    check_grid_cell(-1, -1);
}

/* ----------------------------------------------------------------- layers */

static void check_layer(int s) {
    const astar_layer *l = W.layer[s];
    if (!l) return;
    fail_if(astar_layer_width(l) != W.lw[s] || astar_layer_height(l) != W.lh[s], "layer size");
    int32_t n = W.lw[s] * W.lh[s];
    spend(n);
    for (int32_t i = 0; i < n; i++)
        fail_if(astar_layer_get(l, i % W.lw[s], i / W.lw[s]) != W.lval[s][i],
                "layer value differs from the model");
    fail_if(!isnan(astar_layer_get(l, W.lw[s], 0)) || !isnan(astar_layer_get(l, 0, -1)),
            "layer_get outside is not NaN");
}

static void op_layer_new(reader *r) {
    int s = rd8(r) % LAYER_SLOTS;
    uint8_t shape = rd8(r);
    double initial = rd_layer_value(r);
    astar_layer_free(W.layer[s]);
    W.layer[s] = NULL;
    /* Now and then a layer that does not match the grid: queries with it are EINVAL. */
    int32_t lw = W.w, lh = W.h;
    if (shape % 8 == 7) lw = W.w == MAX_W ? W.w - 1 : W.w + 1;
    if (shape % 8 == 6) lh = W.h == 1 ? 2 : W.h - 1;
    uint64_t failures = W.heap.failures;
    astar_layer *l = astar_layer_new(lw, lh, initial, W.palloc);
    bool oom = W.heap.failures != failures;
    if (!value_ok(initial)) {
        fail_if(l != NULL, "layer_new accepted a non-finite initial value");
        return;
    }
    fail_if((l == NULL) != oom, "layer_new returned NULL without an allocation failure, or the reverse");
    if (!l) return;
    W.layer[s] = l;
    W.lw[s] = lw;
    W.lh[s] = lh;
    for (int32_t i = 0; i < lw * lh; i++) W.lval[s][i] = initial;
    check_layer(s);
}

static void op_layer_write(reader *r) {
    int s = rd8(r) % LAYER_SLOTS;
    uint8_t how = rd8(r) % 3;
    astar_layer *l = W.layer[s];
    if (!l) return;
    int32_t x = rd_coord(r, W.lw[s]), y = rd_coord(r, W.lh[s]);
    double v = rd_layer_value(r);
    bool inside = x >= 0 && y >= 0 && x < W.lw[s] && y < W.lh[s];
    astar_status st;
    if (how == 0) {
        st = astar_layer_set(l, x, y, v);
        bool ok = inside && value_ok(v);
        fail_if(st != (ok ? ASTAR_OK : ASTAR_EINVAL), "layer_set status");
        if (ok) W.lval[s][y * W.lw[s] + x] = v;
    } else if (how == 1) {
        st = astar_layer_add(l, x, y, v);
        bool ok = inside && value_ok(v) && value_ok(W.lval[s][y * W.lw[s] + x] + v);
        fail_if(st != (ok ? ASTAR_OK : ASTAR_EINVAL), "layer_add status");
        if (ok) W.lval[s][y * W.lw[s] + x] += v;
    } else {
        st = astar_layer_fill(l, v);
        fail_if(st != (value_ok(v) ? ASTAR_OK : ASTAR_EINVAL), "layer_fill status");
        if (st == ASTAR_OK)
            for (int32_t i = 0; i < W.lw[s] * W.lh[s]; i++) W.lval[s][i] = v;
    }
    check_layer(s);
}

/* The influence-map updates, each mirrored in the model by the plain formula of astar.h. */
static void model_stamp(int s, int32_t x, int32_t y, double radius, double strength, int falloff,
                        bool apply, bool *finite) {
    int32_t lw = W.lw[s], lh = W.lh[s];
    for (int32_t cy = 0; cy < lh; cy++)
        for (int32_t cx = 0; cx < lw; cx++) {
            double dx = cx - x, dy = cy - y, d = sqrt(dx * dx + dy * dy);
            if (d > radius) continue;
            double t = 1.0 - d / (radius + 1.0);
            double w = falloff == ASTAR_FALLOFF_CONSTANT ? 1.0 : falloff == ASTAR_FALLOFF_QUADRATIC ? t * t : t;
            double sum = W.lval[s][cy * lw + cx] + strength * w;
            if (!value_ok(sum)) *finite = false;
            if (apply) W.lval[s][cy * lw + cx] = sum;
        }
}

static void model_spread(int s, double decay, double momentum, bool with_grid) {
    static double out[MAX_CELLS];
    static const int dx[8] = {0, 1, 0, -1, 1, 1, -1, -1}, dy[8] = {-1, 0, 1, 0, -1, 1, 1, -1};
    int32_t lw = W.lw[s], lh = W.lh[s];
    const double *v = W.lval[s];
    bool hex = with_grid && W.diagonal == ASTAR_DIAG_HEX; /* six neighbours, one step each */
    double straight = exp(-decay), diagonal = hex ? straight : exp(-decay * sqrt(2.0));
    for (int32_t y = 0; y < lh; y++)
        for (int32_t x = 0; x < lw; x++) {
            if (with_grid && W.cost[y * lw + x] == INFINITY) {
                out[y * lw + x] = v[y * lw + x];
                continue;
            }
            double best = 0.0;
            for (int d = 0; d < 8; d++) {
                int32_t nx = x + dx[d], ny = y + dy[d];
                if (nx < 0 || ny < 0 || nx >= lw || ny >= lh) continue;
                if (with_grid && W.cost[ny * lw + nx] == INFINITY) continue;
                if (hex && d >= 4 && (dx[d] > 0) != (y % 2 == 1)) continue; /* odd rows lean right */
                double c = v[ny * lw + nx] * (d < 4 ? straight : diagonal);
                if (fabs(c) > fabs(best)) best = c;
            }
            out[y * lw + x] = momentum * v[y * lw + x] + (1.0 - momentum) * best;
        }
    memcpy(W.lval[s], out, (size_t)(lw * lh) * sizeof *out);
}

static void op_layer_update(reader *r) {
    int s = rd8(r) % LAYER_SLOTS;
    uint8_t how = rd8(r) % 4;
    astar_layer *l = W.layer[s];
    if (!l) return;
    int32_t n = W.lw[s] * W.lh[s];
    if (how == 0) {
        int32_t x = rd_coord(r, W.lw[s]), y = rd_coord(r, W.lh[s]);
        double radius = rd_layer_value(r) / 4, strength = rd_layer_value(r);
        int falloff = rd8(r) % 4; /* 3: not a falloff */
        bool finite = true;
        bool args = x >= 0 && y >= 0 && x < W.lw[s] && y < W.lh[s] && radius >= 0 &&
                    radius != INFINITY && value_ok(strength) && falloff < 3;
        if (args) model_stamp(s, x, y, radius, strength, falloff, false, &finite);
        astar_status st = astar_layer_stamp(l, x, y, radius, strength, (astar_falloff)falloff);
        fail_if(st != (args && finite ? ASTAR_OK : ASTAR_EINVAL), "layer_stamp status");
        if (st == ASTAR_OK) model_stamp(s, x, y, radius, strength, falloff, true, &finite);
    } else if (how == 1) {
        double factor = rd_layer_value(r);
        double max = 0.0;
        for (int32_t i = 0; i < n; i++) max = fmax(max, fabs(W.lval[s][i]));
        fail_if(astar_layer_max_abs(l) != max, "layer_max_abs differs from the model");
        bool ok = factor >= 0 && value_ok(factor) && value_ok(max * factor);
        astar_status st = astar_layer_scale(l, factor);
        fail_if(st != (ok ? ASTAR_OK : ASTAR_EINVAL), "layer_scale status");
        if (ok)
            for (int32_t i = 0; i < n; i++) W.lval[s][i] *= factor;
    } else if (how == 2) {
        double decay = fabs(rd_layer_value(r)) / 8, momentum = (rd8(r) % 12) / 10.0;
        bool with_grid = rd8(r) % 2;
        bool fits = !with_grid || (W.lw[s] == W.w && W.lh[s] == W.h);
        bool ok = isfinite(decay) && momentum <= 1 && fits;
        uint64_t failures = W.heap.failures;
        astar_status st = astar_layer_spread(l, decay, momentum, with_grid ? W.grid : NULL);
        bool oom = W.heap.failures != failures;
        fail_if(st != (!ok ? ASTAR_EINVAL : oom ? ASTAR_ENOMEM : ASTAR_OK), "layer_spread status");
        if (st == ASTAR_OK) model_spread(s, decay, momentum, with_grid);
    } else {
        int o = rd8(r) % LAYER_SLOTS;
        double weight = rd_layer_value(r);
        const astar_layer *other = W.layer[o];
        if (!other) return;
        bool ok = W.lw[o] == W.lw[s] && W.lh[o] == W.lh[s] && value_ok(weight);
        for (int32_t i = 0; ok && i < n; i++) ok = value_ok(W.lval[s][i] + weight * W.lval[o][i]);
        astar_status st = astar_layer_add_layer(l, other, weight);
        fail_if(st != (ok ? ASTAR_OK : ASTAR_EINVAL), "layer_add_layer status");
        if (ok)
            for (int32_t i = 0; i < n; i++) W.lval[s][i] += weight * W.lval[o][i];
    }
    check_layer(s);
}

static void op_mask_reveal(reader *r) {
    if (!W.mask) return;
    int32_t x = rd_coord(r, W.w), y = rd_coord(r, W.h);
    double radius = (rd8(r) % 9) / 2.0 - 0.5; /* -0.5 (invalid) .. 3.5 */
    bool ok = x >= 0 && y >= 0 && x < W.w && y < W.h && radius >= 0;
    spend(W.cells);
    fail_if(astar_mask_reveal(W.mask, x, y, radius) != (ok ? ASTAR_OK : ASTAR_EINVAL), "mask_reveal status");
    for (int32_t cy = 0; ok && cy < W.h; cy++)
        for (int32_t cx = 0; cx < W.w; cx++) {
            double dx = cx - x, dy = cy - y;
            if (sqrt(dx * dx + dy * dy) <= radius) W.known[cy * W.w + cx] = true;
        }
    for (int32_t i = 0; i < W.cells; i++)
        fail_if(astar_mask_is_known(W.mask, i % W.w, i / W.w) != W.known[i], "mask differs from the model");
    fail_if(astar_mask_is_known(W.mask, W.w, 0) != -1, "mask_is_known outside is not -1");
}

static void op_layer_free(reader *r) {
    int s = rd8(r) % LAYER_SLOTS;
    astar_layer_free(W.layer[s]);
    W.layer[s] = NULL;
}

/* ----------------------------------------------------------------- claims */

/* Units now claiming each node, from the model: a unit counts once per node. */
static void shadow_counts(int32_t *count, int32_t skip_unit, bool radius_mode, int32_t radius,
                          int32_t sx, int32_t sy) {
    static uint32_t mark[MAX_CELLS];
    static uint32_t stamp;
    memset(count, 0, (size_t)W.cells * sizeof *count);
    for (int32_t k = 0; k < W.nunits; k++) {
        const shadow_unit *u = &W.units[k];
        if (u->state != UNIT_ACTIVE || k == skip_unit) continue;
        spend(u->n - u->pos);
        if (radius_mode) {
            int32_t here = u->nodes[u->pos];
            int32_t dx = abs(here % W.w - sx), dy = abs(here / W.w - sy);
            if (dx > radius || dy > radius) continue;
        }
        if (++stamp == 0) {
            memset(mark, 0, sizeof mark);
            stamp = 1;
        }
        for (int32_t i = u->pos; i < u->n; i++)
            if (mark[u->nodes[i]] != stamp) {
                mark[u->nodes[i]] = stamp;
                count[u->nodes[i]]++;
            }
    }
}

static void check_claims(void) {
    if (!W.claims) return;
    static int32_t count[MAX_CELLS];
    fail_if(astar_claims_width(W.claims) != W.w || astar_claims_height(W.claims) != W.h,
            "claims size");
    shadow_counts(count, -1, false, 0, 0, 0);
    spend(W.cells);
    for (int32_t i = 0; i < W.cells; i++)
        fail_if(astar_claims_count(W.claims, i % W.w, i / W.w) != count[i],
                "claims count differs from the model");
    fail_if(astar_claims_count(W.claims, -1, 0) != 0 || astar_claims_count(W.claims, W.w, 0) != 0,
            "claims count outside the grid is not 0");
    for (int32_t k = -2; k < W.nunits + 2; k++) {
        int32_t want = k >= 0 && k < W.nunits && W.units[k].state == UNIT_ACTIVE
                           ? W.units[k].nodes[W.units[k].pos]
                           : -1;
        fail_if(astar_claims_current(W.claims, k) != want, "claims_current differs from the model");
    }
}

static void drop_claims(void) {
    astar_claims_free(W.claims);
    astar_claims_free(W.claims_other);
    W.claims = W.claims_other = NULL;
    W.nunits = 0;
}

static void op_claims_new(reader *r) {
    uint8_t b = rd8(r);
    if (W.claims && (b & 1)) {
        drop_claims();
        return;
    }
    if (!W.claims) {
        uint64_t failures = W.heap.failures;
        W.claims = astar_claims_new(W.w, W.h, W.palloc);
        fail_if((W.claims == NULL) != (W.heap.failures != failures),
                "claims_new returned NULL without an allocation failure, or the reverse");
        W.nunits = 0;
    }
    if (!W.claims_other && (b & 2)) {
        uint64_t failures = W.heap.failures;
        W.claims_other = astar_claims_new(W.w + 1, W.h, W.palloc);
        fail_if((W.claims_other == NULL) != (W.heap.failures != failures),
                "claims_new returned NULL without an allocation failure, or the reverse");
    }
    check_claims();
}

/* A unit slot: mostly one handed out, sometimes one that is not. */
static int32_t rd_unit(reader *r) {
    uint8_t b = rd8(r);
    if (b == 255) return INT32_MAX;
    if (b == 254) return -1;
    return b % (W.nunits + 1);
}

static void op_unit_new(reader *r) {
    (void)r;
    if (!W.claims) return;
    int32_t want = -1;
    for (int32_t k = 0; k < W.nunits && want < 0; k++)
        if (W.units[k].state == UNIT_FREE) want = k;
    if (want < 0) {
        if (W.nunits == MAX_UNITS) return;
        want = W.nunits;
    }
    uint64_t failures = W.heap.failures;
    int32_t got = astar_claims_unit_new(W.claims);
    if (got < 0) {
        fail_if(W.heap.failures == failures, "unit_new failed without an allocation failure");
    } else {
        fail_if(got != want, "unit_new handed out an unexpected slot");
        if (got == W.nunits) W.nunits++;
        W.units[got].state = UNIT_IDLE;
        W.units[got].n = 0;
        W.units[got].pos = -1;
    }
    check_claims();
}

static void claims_set_checked(int32_t unit, const int32_t *nodes, int32_t n) {
    bool ok = unit >= 0 && unit < W.nunits && W.units[unit].state != UNIT_FREE && n >= 1 && nodes;
    for (int32_t i = 0; ok && i < n; i++) ok = nodes[i] >= 0 && nodes[i] < W.cells;
    uint64_t failures = W.heap.failures;
    astar_status st = astar_claims_set(W.claims, unit, nodes, n);
    bool oom = W.heap.failures != failures;
    if (!ok) {
        fail_if(st != ASTAR_EINVAL, "claims_set accepted bad arguments");
    } else if (oom) {
        fail_if(st != ASTAR_ENOMEM, "claims_set ignored an allocation failure");
    } else {
        fail_if(st != ASTAR_OK, "claims_set failed");
        shadow_unit *u = &W.units[unit];
        memcpy(u->nodes, nodes, (size_t)n * sizeof *nodes);
        u->n = n;
        u->pos = 0;
        u->state = UNIT_ACTIVE;
    }
    check_claims();
}

static void op_claims_set(reader *r) {
    if (!W.claims) return;
    int32_t unit = rd_unit(r);
    uint8_t b = rd8(r);
    int32_t nodes[16];
    int32_t n = b % 13; /* 0 is invalid */
    for (int32_t i = 0; i < n; i++) {
        uint16_t v = rd16(r);
        nodes[i] = v == 0xffff ? -1 : v == 0xfffe ? W.cells : (int32_t)(v % W.cells);
    }
    claims_set_checked(unit, (b & 0x80) && n > 0 ? NULL : nodes, n);
}

/* Claims the last path found, as a host would for the unit that asked for it. */
static void op_claims_set_path(reader *r) {
    if (!W.claims) return;
    int32_t unit = rd_unit(r);
    if (W.last_len < 1) return;
    claims_set_checked(unit, W.last_path, W.last_len);
}

static void op_claims_advance(reader *r) {
    if (!W.claims) return;
    int32_t unit = rd_unit(r);
    uint8_t b = rd8(r);
    int32_t steps = b == 255 ? INT32_MAX : b == 254 ? -1 : b % 6;
    bool ok = unit >= 0 && unit < W.nunits && W.units[unit].state != UNIT_FREE && steps >= 0;
    astar_status st = astar_claims_advance(W.claims, unit, steps);
    fail_if(st != (ok ? ASTAR_OK : ASTAR_EINVAL), "claims_advance status");
    if (ok && W.units[unit].state == UNIT_ACTIVE) {
        shadow_unit *u = &W.units[unit];
        int64_t to = (int64_t)u->pos + steps;
        u->pos = to > u->n - 1 ? u->n - 1 : (int32_t)to;
    }
    check_claims();
}

static void op_claims_release(reader *r) {
    if (!W.claims) return;
    int32_t unit = rd_unit(r);
    bool ok = unit >= 0 && unit < W.nunits && W.units[unit].state != UNIT_FREE;
    astar_status st = astar_claims_release(W.claims, unit);
    fail_if(st != (ok ? ASTAR_OK : ASTAR_EINVAL), "claims_release status");
    if (ok) {
        W.units[unit].state = UNIT_FREE;
        W.units[unit].n = 0;
        W.units[unit].pos = -1;
    }
    check_claims();
}

/* -------------------------------------------------------------- callbacks */

/*
 * Callback kinds. Values are pure functions of (seed, coordinates), so the
 * model can ask for the same value the core got.
 *   0 none, 1 costs, 2 costs and blocks, 3 as 2 with ASTAR_CB_ABORT now and then,
 *   4 as 2 with bad values now and then (NaN, < 0, an unknown code),
 *   5 any non-negative double from raw bits, nearly always within ASTAR_MAX_VALUE.
 * Kinds 3 and 4 may abort: whether they do depends on which nodes A* looks at.
 */
enum { CB_KINDS = 6 };

typedef struct cb_value {
    int code;
    double extra;
    bool write; /* false: return PASS and leave *extra as the core set it (0) */
} cb_value;

static cb_value cb_pick(int kind, uint64_t h) {
    static const double small[8] = {0.0, 0.25, 1.0, 2.5, 10.0, 0.0, 1e-9, 3.0};
    cb_value v = {ASTAR_CB_PASS, small[h % 8], true};
    uint64_t r = h >> 8;
    if (kind == 5) {
        uint64_t bits = mix64(h) & ~(1ULL << 63);
        /* A third of all doubles exceed ASTAR_MAX_VALUE, and one such answer aborts a search:
         * their exponent is folded into 2^1 .. 2^332, but for one value in 256; so half the
         * values are below 1, half huge, as before the bound. */
        uint64_t exponent = bits >> 52;
        if (exponent >= 1023 + 332 && exponent < 2047 && (h >> 56) != 0)
            bits = (bits & ((1ULL << 52) - 1)) | (1024 + (exponent - 1355) % 331) << 52;
        memcpy(&v.extra, &bits, sizeof v.extra);
        if (isnan(v.extra)) v.extra = 0.0;
        return v;
    }
    if (kind == 4 && r % 11 < 5) {
        switch (r % 11) {
        case 0: v.extra = NAN; break;
        case 1: v.extra = -1.0; break;
        case 2: v.code = 7; break;
        case 3: v.extra = -INFINITY; break;
        default: v.extra = -0.0; break; /* >= 0: a valid cost of zero */
        }
        return v;
    }
    if (kind == 3 && r % 13 == 0) {
        v.code = ASTAR_CB_ABORT;
        return v;
    }
    if (kind >= 2) {
        switch ((r >> 4) % 6) {
        case 0: v.code = ASTAR_CB_BLOCK; break;
        case 1: v.extra = INFINITY; break;
        case 2: v.write = false; break;
        default: break;
        }
    }
    return v;
}

typedef enum { CB_COST, CB_BLOCKED, CB_ABORT } cb_class;

/* What the documented contract makes of a callback's answer. */
static cb_class cb_classify(cb_value v, double *extra) {
    double e = v.write ? v.extra : 0.0;
    if (v.code == ASTAR_CB_BLOCK || (v.code == ASTAR_CB_PASS && e == INFINITY)) return CB_BLOCKED;
    if (v.code != ASTAR_CB_PASS || !(e >= 0 && e <= ASTAR_MAX_VALUE)) return CB_ABORT;
    *extra = e;
    return CB_COST;
}

/* Custom heuristic kinds: 0 admissible and consistent, 1 admissible only, 2 neither, 3 bad values. */
enum { H_KINDS = 4 };

typedef struct cb_state {
    int node_kind, edge_kind, h_kind;
    uint64_t node_seed, edge_seed, h_seed;
    double min_cost;        /* the grid's smallest walkable cost, 0 when none */
    int32_t gx, gy;
    uint32_t stamp;         /* this query; node_seen[] holds it for nodes asked once */
    uint32_t node_seen[MAX_CELLS];
    bool abort_signalled;   /* some callback told the core to stop */
} cb_state;

static cb_state CB;

static void check_inside(int32_t x, int32_t y, const char *what) {
    if (x < 0 || y < 0 || x >= W.w || y >= W.h) fuzz_die(what);
}

static cb_value node_value(int32_t x, int32_t y) {
    return cb_pick(CB.node_kind, hash4(CB.node_seed, x, y, 0, 0));
}

static cb_value edge_value(int32_t x, int32_t y, int32_t fx, int32_t fy) {
    return cb_pick(CB.edge_kind, hash4(CB.edge_seed, x, y, fx, fy));
}

static double octile(int32_t dx, int32_t dy) {
    dx = abs(dx);
    dy = abs(dy);
    double lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    return hi + (SQRT2 - 1.0) * lo;
}

static double h_value(int32_t x, int32_t y) {
    int32_t dx = abs(x - CB.gx), dy = abs(y - CB.gy);
    uint64_t r = hash4(CB.h_seed, x, y, 7, 7);
    switch (CB.h_kind) {
    case 0: return (dx > dy ? dx : dy) * CB.min_cost;
    case 1: return octile(dx, dy) * CB.min_cost * (double)(r % 101) / 100.0;
    case 2: break;
    default:
        if (r % 29 == 0) return NAN;
        if (r % 29 == 1) return -1.0;
        if (r % 29 == 2) return INFINITY;
        break;
    }
    return octile(dx, dy) * CB.min_cost * (double)(1 + r % 8) + (double)((r >> 8) % 3);
}

static int node_cb(void *ud, int32_t x, int32_t y, double *extra) {
    fail_if(ud != &CB, "node_cost got the wrong userdata");
    check_inside(x, y, "node_cost called for a cell outside the grid");
    uint32_t *seen = &CB.node_seen[y * W.w + x];
    fail_if(*seen == CB.stamp, "node_cost called twice for one node in one query");
    *seen = CB.stamp;
    fail_if(*extra != 0.0, "node_cost called with *extra not zeroed");
    cb_value v = node_value(x, y);
    double e;
    if (cb_classify(v, &e) == CB_ABORT) CB.abort_signalled = true;
    if (v.write) *extra = v.extra;
    return v.code;
}

static int edge_cb(void *ud, int32_t x, int32_t y, int32_t fx, int32_t fy, double *extra) {
    fail_if(ud != &CB, "edge_cost got the wrong userdata");
    check_inside(x, y, "edge_cost called for a cell outside the grid");
    check_inside(fx, fy, "edge_cost called from a cell outside the grid");
    fail_if(abs(x - fx) > 1 || abs(y - fy) > 1 || (x == fx && y == fy),
            "edge_cost called for cells that are not neighbours");
    fail_if(*extra != 0.0, "edge_cost called with *extra not zeroed");
    cb_value v = edge_value(x, y, fx, fy);
    double e;
    if (cb_classify(v, &e) == CB_ABORT) CB.abort_signalled = true;
    if (v.write) *extra = v.extra;
    return v.code;
}

static double heuristic_cb(void *ud, int32_t x, int32_t y, int32_t gx, int32_t gy) {
    fail_if(ud != &CB, "heuristic got the wrong userdata");
    check_inside(x, y, "heuristic called for a cell outside the grid");
    fail_if(gx != CB.gx || gy != CB.gy, "heuristic called with another goal");
    double h = h_value(x, y);
    if (!(h >= 0 && h <= ASTAR_MAX_VALUE)) CB.abort_signalled = true;
    return h;
}

/* ------------------------------------------------------ the query's model */

typedef struct qmodel {
    astar_query q;
    astar_layer_ref refs[ASTAR_MAX_LAYERS + 1];
    int ref_slot[ASTAR_MAX_LAYERS + 1];
    astar_diagonal diagonal;       /* resolved */
    bool penalties;
    bool fog;                      /* the query reads W.mask: unknown cells are open at cost 1 */
    int32_t targets[4];            /* find_nearest's goals, node ids (some invalid on purpose) */
    int32_t claimed[MAX_CELLS];    /* units this query counts per node */
    double pen[MAX_CELLS];         /* P(b) + node_cost(b), as the core memoises it */
    cb_class pen_class[MAX_CELLS]; /* CB_ABORT when node_cost aborts there */
    bool windowed;                 /* claims count by time: not in pen[], see window_count */
    bool window_all;               /* the window is wider than any path: a step with no depth
                                      counts every claim, as without a window */
    int32_t window_reach;          /* the furthest step (t + 1) of a claim the query sees */
} qmodel;

static qmodel M;

MODEL_LOOP static bool inside(int32_t x, int32_t y) { return x >= 0 && y >= 0 && x < W.w && y < W.h; }

/* The terrain cost the query sees. */
MODEL_LOOP static double terrain(int32_t cell) { return M.fog && !W.known[cell] ? 1.0 : W.cost[cell]; }

MODEL_LOOP static bool terrain_open(int32_t x, int32_t y) {
    return inside(x, y) && terrain(y * W.w + x) != INFINITY;
}

/* The noise of astar.h, written again from its documented formula rather than called. */
static double model_noise(uint32_t seed, int32_t x, int32_t y) {
    uint32_t h = (uint32_t)x * 0x9E3779B1u + (uint32_t)y * 0x85EBCA77u + seed * 0xC2B2AE3Du;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h / 4294967296.0;
}

/* A claim with its time, chained per cell (the model's own copy of what claim_window reads). */
typedef struct wclaim {
    int32_t unit, t;
    bool last;      /* the unit's last node: it stays there */
    int32_t then;   /* the node it moves to after t (not last) */
    int32_t next;
} wclaim;

static wclaim wclaims[MAX_UNITS * MAX_CELLS];
static int32_t whead[MAX_CELLS];

static void model_window(void) {
    const astar_query *q = &M.q;
    int32_t len = 0;
    M.window_reach = 0;
    for (int32_t c = 0; c < W.cells; c++) whead[c] = -1;
    for (int32_t k = 0; k < W.nunits; k++) {
        const shadow_unit *u = &W.units[k];
        if (u->state != UNIT_ACTIVE || k == q->unit) continue;
        if (q->claim_radius >= 0) {
            int32_t here = u->nodes[u->pos];
            if (abs(here % W.w - q->sx) > q->claim_radius || abs(here / W.w - q->sy) > q->claim_radius)
                continue;
        }
        if (u->n - u->pos > M.window_reach) M.window_reach = u->n - u->pos;
        for (int32_t i = u->pos; i < u->n; i++) {
            wclaim *e = &wclaims[len];
            *e = (wclaim){k, i - u->pos, i == u->n - 1, i == u->n - 1 ? -1 : u->nodes[i + 1],
                          whead[u->nodes[i]]};
            whead[u->nodes[i]] = len++;
        }
    }
}

/* Units whose claims count for a path entering `cell` from `from` at step `step` (astar.h:
 * |s - t| <= w, s >= t - w on a unit's last node, and a unit swapping cells with the path
 * between two steps: at cell at s - 1, at from at s). A unit's claims of one cell are chained
 * together. */
MODEL_LOOP static int32_t window_count(int32_t from, int32_t cell, int32_t step) {
    int64_t w = M.q.claim_window, s = step;
    int32_t units = 0, counted = -1;
    for (int32_t i = whead[cell]; i >= 0; i = wclaims[i].next) {
        const wclaim *e = &wclaims[i];
        bool swap = !e->last && s == e->t + 1 && e->then == from;
        if (e->unit != counted && ((s >= e->t - w && (e->last || s <= e->t + w)) || swap)) {
            units++;
            counted = e->unit;
        }
    }
    return units;
}

/* P(b) + node_cost(b) per cell, summed in the order astar_node_penalty() in grid_cost.c uses. */
static void model_penalties(void) {
    const astar_query *q = &M.q;
    for (int32_t c = 0; c < W.cells; c++) {
        double p = 0.0;
        for (int i = 0; i < q->nlayers; i++) p += q->layers[i].weight * W.lval[M.ref_slot[i]][c];
        if (q->claims && !M.windowed) p += q->claim_penalty * M.claimed[c];
        if (q->noise > 0) p += q->noise * model_noise(q->seed, c % W.w, c / W.w);
        M.pen_class[c] = CB_COST;
        if (q->node_cost && terrain_open(c % W.w, c / W.w)) {
            double e = 0.0;
            cb_class k = cb_classify(node_value(c % W.w, c / W.w), &e);
            if (k == CB_COST) {
                p += e;
            } else {
                p = INFINITY;
                M.pen_class[c] = k;
            }
        }
        if (isnan(p)) p = INFINITY; /* overflowing penalties make the cell impassable */
        M.pen[c] = p;
    }
}

/* Walkable for this query: terrain first, then node_cost (corner checks use this too). */
MODEL_LOOP static bool model_walkable(int32_t x, int32_t y, bool *aborts) {
    if (!terrain_open(x, y)) return false;
    if (!M.q.node_cost) return true;
    if (M.pen_class[y * W.w + x] == CB_ABORT) *aborts = true;
    return M.pen[y * W.w + x] != INFINITY;
}

enum { STEP_NONE, STEP_OK, STEP_ABORT };

/* A step's heading for turn_penalty: (dx, dy) on squares, the cube step (dq, dr) on hexes. */
MODEL_LOOP static int model_heading(int32_t ax, int32_t ay, int32_t bx, int32_t by) {
    int32_t dx = bx - ax, dy = by - ay;
    if (M.diagonal == ASTAR_DIAG_HEX) /* odd-r: q = x - (y - y % 2) / 2 */
        dx = (bx - (by - (by & 1)) / 2) - (ax - (ay - (ay & 1)) / 2);
    return (dx + 1) * 3 + (dy + 1);
}

/*
 * The step a -> b as the core takes it from an expanded node a: legality under
 * the diagonal mode, then L * cost(b) + max(0, P(b) + X(a, b)) added to ga, then
 * turn_penalty if the heading differs from `prev` (the step into a; -1 at the
 * start or to leave turns out). `depth` is the step of the path that enters b,
 * which windowed claims read; -1 leaves them out (or, when the window is wider
 * than any path, counts them all), which makes a plain Dijkstra a lower bound.
 */
MODEL_LOOP static int model_step(int32_t ax, int32_t ay, int32_t bx, int32_t by, double ga, int32_t depth,
                      int prev, double *ng) {
    int32_t dx = bx - ax, dy = by - ay;
    if (dx < -1 || dx > 1 || dy < -1 || dy > 1 || (dx == 0 && dy == 0)) return STEP_NONE;
    bool diag = dx != 0 && dy != 0;
    bool hex = M.diagonal == ASTAR_DIAG_HEX;
    bool aborts = false;
    if (diag && hex) {
        /* Odd rows sit half a cell right, so their diagonal neighbours are to the right. */
        if ((ay & 1) != (dx == 1)) return STEP_NONE;
    } else if (diag) {
        if (M.diagonal == ASTAR_DIAG_NEVER) return STEP_NONE;
        bool sa = model_walkable(ax, ay + dy, &aborts), sb = model_walkable(ax + dx, ay, &aborts);
        if (aborts) return STEP_ABORT;
        if (M.diagonal == ASTAR_DIAG_NO_CORNER_CUT && !(sa && sb)) return STEP_NONE;
        if (M.diagonal == ASTAR_DIAG_ONE_WALKABLE && !(sa || sb)) return STEP_NONE;
    }
    bool open = model_walkable(bx, by, &aborts);
    if (aborts) return STEP_ABORT;
    if (!open) return STEP_NONE;
    int32_t b = by * W.w + bx;
    double extra = M.penalties ? M.pen[b] : 0.0;
    if (M.windowed && extra != INFINITY) {
        int32_t units = depth >= 0 ? window_count(ay * W.w + ax, b, depth) : M.window_all ? M.claimed[b] : 0;
        extra += M.q.claim_penalty * units;
    }
    if (M.q.edge_cost) {
        double e = 0.0;
        cb_class k = cb_classify(edge_value(bx, by, ax, ay), &e);
        if (k == CB_BLOCKED) return STEP_NONE;
        if (k == CB_ABORT) return STEP_ABORT;
        extra += e;
    }
    double len = diag && !hex ? SQRT2 : 1.0;
    double step = len * terrain(b) + (extra > 0 ? extra : 0.0);
    if (prev >= 0 && M.q.turn_penalty > 0 && model_heading(ax, ay, bx, by) != prev) step += M.q.turn_penalty;
    *ng = ga + round_up(step);
    return STEP_OK;
}

/* ------------------------------------------------------------ the oracle */

typedef struct dj_entry {
    double g;
    int32_t cell;
} dj_entry;

static double dist[MAX_CELLS];
static bool done_cell[MAX_CELLS];
static dj_entry dj_heap[8 * MAX_CELLS + 8];
static int32_t dj_len;
static int64_t dj_work; /* cells settled and steps tried, for the budget */

MODEL_LOOP static void dj_push(double g, int32_t cell) {
    int32_t i = dj_len++;
    while (i > 0) {
        int32_t parent = (i - 1) / 2;
        if (dj_heap[parent].g <= g) break;
        dj_heap[i] = dj_heap[parent];
        i = parent;
    }
    dj_heap[i] = (dj_entry){g, cell};
}

MODEL_LOOP static dj_entry dj_pop(void) {
    dj_entry top = dj_heap[0], last = dj_heap[--dj_len];
    int32_t i = 0;
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= dj_len) break;
        if (c + 1 < dj_len && dj_heap[c + 1].g < dj_heap[c].g) c++;
        if (dj_heap[c].g >= last.g) break;
        dj_heap[i] = dj_heap[c];
        i = c;
    }
    if (dj_len > 0) dj_heap[i] = last;
    return top;
}

/*
 * Plain Dijkstra over the model's steps, from the sources (which may be blocked:
 * a unit stands there and leaves) or, backward, to them: dist[] then holds each
 * cell's cost to the nearest source, whose blocked cells are no sources; a
 * blocked cell gets a distance (a unit on it may leave) but passes nothing on.
 * Backward sums are formed as the core's backward loop forms them, from the
 * source end: g(p) = g(b) + step(p -> b). Costs above max_cost are dropped.
 * With `stop`, it ends once a cell marked there is settled: its distance and every
 * smaller one are final then, and every other cell's is at least as large.
 */
MODEL_LOOP static void dijkstra_multi(const int32_t *src, int32_t nsrc, bool backward, double max_cost,
                                      const bool *stop) {
    for (int32_t i = 0; i < W.cells; i++) {
        dist[i] = INFINITY;
        done_cell[i] = false;
    }
    dj_len = 0;
    bool dummy = false;
    for (int32_t i = 0; i < nsrc; i++) {
        if (backward && !model_walkable(src[i] % W.w, src[i] / W.w, &dummy)) continue;
        if (dist[src[i]] == 0.0) continue;
        dist[src[i]] = 0.0;
        dj_push(0.0, src[i]);
    }
    while (dj_len > 0) {
        dj_entry e = dj_pop();
        if (done_cell[e.cell] || e.g != dist[e.cell]) continue;
        done_cell[e.cell] = true;
        dj_work += 8;
        if (stop && stop[e.cell]) break;
        int32_t ax = e.cell % W.w, ay = e.cell / W.w;
        if (backward && !model_walkable(ax, ay, &dummy)) continue;
        for (int32_t dy = -1; dy <= 1; dy++)
            for (int32_t dx = -1; dx <= 1; dx++) {
                double ng;
                if (backward && !inside(ax + dx, ay + dy)) continue;
                int k = backward ? model_step(ax + dx, ay + dy, ax, ay, e.g, -1, -1, &ng)
                                 : model_step(ax, ay, ax + dx, ay + dy, e.g, -1, -1, &ng);
                if (k != STEP_OK || ng > max_cost) continue;
                int32_t b = (ay + dy) * W.w + ax + dx;
                if (ng < dist[b]) {
                    dist[b] = ng;
                    dj_push(ng, b);
                }
            }
    }
}

/* The optimum from (sx, sy) to the nearest cell marked in `goal` (INFINITY: none reached). */
static double dijkstra_to(int32_t sx, int32_t sy, const bool *goal) {
    int32_t start = sy * W.w + sx;
    double best = INFINITY;
    bool any = false;
    for (int32_t i = 0; i < W.cells; i++) any |= goal[i];
    if (!any) return INFINITY;
    dj_work = W.cells;
    dijkstra_multi(&start, 1, false, INFINITY, goal);
    for (int32_t i = 0; i < W.cells; i++)
        if (goal[i] && dist[i] < best) best = dist[i];
    spend(dj_work);
    return best;
}

/*
 * The exact optimum when a step's cost depends on the way in (turn_penalty,
 * claim_window): Dijkstra over states (cell, heading of the step in, steps so
 * far), as spec/support/dijkstra.lua's exact_cost. Depths are counted up to
 * the last step at which a window can still change a count; beyond it every
 * state of a cell costs the same. Returns NAN when the state space is too big.
 */
#define EX_STATES (1 << 18)
#define EX_START 9 /* no step in yet */

static double ex_dist[EX_STATES];
static int32_t ex_heap[EX_STATES], ex_pos[EX_STATES], ex_len;
static int64_t ex_work; /* states cleared and settled, for the budget */

MODEL_LOOP static bool ex_less(int32_t a, int32_t b) { return ex_dist[a] < ex_dist[b]; }

MODEL_LOOP static void ex_swap(int32_t i, int32_t j) {
    int32_t t = ex_heap[i];
    ex_heap[i] = ex_heap[j];
    ex_heap[j] = t;
    ex_pos[ex_heap[i]] = i;
    ex_pos[ex_heap[j]] = j;
}

MODEL_LOOP static void ex_up(int32_t i) {
    while (i > 0 && ex_less(ex_heap[i], ex_heap[(i - 1) / 2])) {
        ex_swap(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

MODEL_LOOP static int32_t ex_pop(void) {
    int32_t top = ex_heap[0];
    ex_pos[top] = -2; /* settled */
    if (--ex_len > 0) {
        ex_heap[0] = ex_heap[ex_len];
        ex_pos[ex_heap[0]] = 0;
        for (int32_t i = 0;;) {
            int32_t c = 2 * i + 1;
            if (c >= ex_len) break;
            if (c + 1 < ex_len && ex_less(ex_heap[c + 1], ex_heap[c])) c++;
            if (!ex_less(ex_heap[c], ex_heap[i])) break;
            ex_swap(i, c);
            i = c;
        }
    }
    return top;
}

MODEL_LOOP static double exact_optimum(const bool *goal) {
    const astar_query *q = &M.q;
    int32_t nh = q->turn_penalty > 0 ? 10 : 1;
    int64_t cap = M.windowed ? (int64_t)M.window_reach + q->claim_window + 1 : 0;
    if ((int64_t)W.cells * nh * (cap + 1) > EX_STATES) return NAN;
    int32_t depths = (int32_t)cap + 1, n = W.cells * nh * depths;
    ex_work += n;
    for (int32_t i = 0; i < n; i++) {
        ex_dist[i] = INFINITY;
        ex_pos[i] = -1;
    }
    int32_t start = ((q->sy * W.w + q->sx) * nh + (nh > 1 ? EX_START : 0)) * depths;
    ex_dist[start] = 0.0;
    ex_heap[0] = start;
    ex_pos[start] = 0;
    ex_len = 1;
    while (ex_len > 0) {
        int32_t st = ex_pop();
        ex_work += 8;
        double g = ex_dist[st];
        int32_t depth = st % depths, h = st / depths % nh, cell = st / depths / nh;
        if (goal[cell]) return g;
        int32_t ax = cell % W.w, ay = cell / W.w;
        for (int32_t dy = -1; dy <= 1; dy++)
            for (int32_t dx = -1; dx <= 1; dx++) {
                double ng;
                int prev = nh > 1 && h != EX_START ? h : -1;
                if (model_step(ax, ay, ax + dx, ay + dy, g, M.windowed ? depth + 1 : -1, prev, &ng) !=
                    STEP_OK)
                    continue;
                int32_t b = (ay + dy) * W.w + ax + dx;
                int32_t nd = depth + 1 < depths ? depth + 1 : depths - 1;
                int32_t nhd = nh > 1 ? model_heading(ax, ay, ax + dx, ay + dy) : 0;
                int32_t ns = (b * nh + nhd) * depths + nd;
                if (ex_pos[ns] == -2 || !(ng < ex_dist[ns])) continue;
                ex_dist[ns] = ng;
                if (ex_pos[ns] == -1) {
                    ex_heap[ex_len] = ns;
                    ex_pos[ns] = ex_len++;
                }
                ex_up(ex_pos[ns]);
            }
    }
    return INFINITY;
}

/* ------------------------------------------------------------------ find */

static astar_search *other_search; /* another size: queries on it are EINVAL */

static bool layer_ref_ok(const astar_layer_ref *ref, int slot) {
    return ref->layer && W.lw[slot] == W.w && W.lh[slot] == W.h && value_ok(ref->weight);
}

/* Mirrors the argument checks documented for astar_find. */
static bool query_invalid(const astar_query *q, bool wrong_search) {
    if (wrong_search || !inside(q->sx, q->sy) || !inside(q->gx, q->gy)) return true;
    if (q->diagonal < ASTAR_DIAG_DEFAULT || q->diagonal > ASTAR_DIAG_HEX) return true;
    if (q->heuristic < ASTAR_H_DEFAULT || q->heuristic > ASTAR_H_CUSTOM) return true;
    if (q->heuristic == ASTAR_H_CUSTOM && !q->heuristic_fn) return true;
    if (!(q->weight >= 1.0 && q->weight <= ASTAR_MAX_VALUE)) return true;
    if (q->nlayers < 0 || q->nlayers > ASTAR_MAX_LAYERS || (q->nlayers > 0 && !q->layers)) return true;
    for (int i = 0; i < q->nlayers; i++)
        if (!layer_ref_ok(&q->layers[i], M.ref_slot[i])) return true;
    if (q->claims && (q->claims != W.claims || !(q->claim_penalty >= 0) ||
                      q->claim_penalty > ASTAR_MAX_VALUE))
        return true;
    if (q->ntargets > 0 && q->heuristic == ASTAR_H_CUSTOM) return true;
    if (!(q->noise >= 0 && q->noise <= ASTAR_MAX_VALUE)) return true;
    if (!(q->turn_penalty >= 0 && q->turn_penalty <= ASTAR_MAX_VALUE) || q->claim_window < -1) return true;
    for (int32_t i = 0; i < q->ntargets; i++)
        if (q->targets[i] < 0 || q->targets[i] >= W.cells) return true;
    return isnan(q->max_cost) || q->max_cost < 0;
}

typedef struct find_out {
    astar_status st;
    astar_result res;
    bool oom;
    int32_t len;
    const int32_t *path;
} find_out;

static find_out run_find(astar_search *s) {
    find_out o;
    if (++CB.stamp == 0) {
        memset(CB.node_seen, 0, sizeof CB.node_seen);
        CB.stamp = 1;
    }
    CB.abort_signalled = false;
    uint64_t failures = W.heap.failures;
    /* Some queries run in slices (astar_search_start / _step): every check below must hold
     * for them as for astar_find, whose loop they share. */
    unsigned slicing = (CB.node_seed >> 9) % 4;
    if (slicing == 0) {
        o.st = astar_find(s, W.grid, &M.q, &o.res);
    } else {
        static const uint64_t SLICE[4] = {0, 1, 3, 17};
        o.st = astar_search_start(s, W.grid, &M.q, &o.res);
        uint64_t k = 0;
        for (; o.st == ASTAR_RUNNING; k++) o.st = astar_search_step(s, SLICE[slicing] + k % 2, &o.res);
        spend(64 * (int64_t)k);
        fail_if(o.res.restarts != 0, "a search started over without a terrain change");
        astar_result again;
        fail_if(astar_search_step(s, 5, &again) != o.st || again.expansions != o.res.expansions,
                "stepping a finished search changed its answer");
    }
    o.oom = W.heap.failures != failures;
    spend(W.cells / 8 + WORK_PER_EXPANSION * (int64_t)o.res.expansions);
    o.path = astar_search_path(s, &o.len);
    fail_if(o.st != o.res.status, "astar_find returned a status other than res.status");
    const char *name = astar_status_name(o.st);
    fail_if(!name || !*name || strcmp(name, astar_status_name((astar_status)-1)) == 0,
            "a status without a name");
    fail_if((o.st == ASTAR_ENOMEM) != o.oom, "ENOMEM without an allocation failure, or the reverse");
    if (o.st != ASTAR_OK && o.st != ASTAR_PARTIAL)
        fail_if(o.len != 0 || o.res.length != 0, "a path after a search that found none");
    return o;
}

/* Walks a returned path through the model; returns its cost summed like the core does. A path
 * visits each node once, but with interests (`twice`), where it may come back the way it went
 * to collect one: once in each of the search's two copies. */
static double check_path(const find_out *o, int32_t goal /* -1: any end */, bool twice) {
    const astar_query *q = &M.q;
    static uint32_t seen[MAX_CELLS], seen_twice[MAX_CELLS];
    static uint32_t stamp;
    if (++stamp == 0) {
        memset(seen, 0, sizeof seen);
        memset(seen_twice, 0, sizeof seen_twice);
        stamp = 1;
    }
    fail_if(o->len < 1 || o->len != o->res.length || o->len > (twice ? 2 : 1) * W.cells, "path length");
    fail_if(o->path[0] != q->sy * W.w + q->sx, "path does not start at the start");
    if (goal >= 0) fail_if(o->path[o->len - 1] != goal, "path does not end at the goal");
    double g = 0.0;
    for (int32_t i = 0; i < o->len; i++) {
        int32_t v = o->path[i];
        fail_if(v < 0 || v >= W.cells, "path node outside the grid");
        if (seen[v] == stamp) {
            fail_if(!twice || seen_twice[v] == stamp, twice ? "path visits a node three times" : "path visits a node twice");
            seen_twice[v] = stamp;
        }
        seen[v] = stamp;
        if (i == 0) continue;
        double ng;
        int32_t u = o->path[i - 1];
        int prev = i >= 2 ? model_heading(o->path[i - 2] % W.w, o->path[i - 2] / W.w, u % W.w, u / W.w) : -1;
        int k = model_step(u % W.w, u / W.w, v % W.w, v / W.w, g, i, prev, &ng);
        fail_if(k == STEP_ABORT, "path takes a step whose callbacks abort");
        fail_if(k != STEP_OK, "path takes a step that is not allowed (blocked, corner or not adjacent)");
        g = ng;
    }
    return g;
}

/* The valid query M.q's view of the world. */
static void model_query(void) {
    const astar_query *q = &M.q;
    M.diagonal = q->diagonal == ASTAR_DIAG_DEFAULT ? W.diagonal : q->diagonal;
    M.penalties = q->nlayers > 0 || q->claims || q->node_cost || q->noise > 0;
    M.windowed = q->claims && q->claim_window >= 0;
    M.window_all = M.windowed && q->claim_window >= WINDOW_HUGE;
    if (q->claims)
        shadow_counts(M.claimed, q->unit, q->claim_radius >= 0, q->claim_radius, q->sx, q->sy);
    if (M.windowed) model_window();
    model_penalties();
    spend(W.cells * (2 + (q->nlayers > 0 ? q->nlayers : 0)));
}

/* Layers, claims and callbacks of a query (the part of a find that a field reads too). */
static void rd_costs(reader *r, astar_query *q) {
    uint8_t b;
    b = rd8(r);
    int n = b == 255 ? ASTAR_MAX_LAYERS + 1 : b == 254 ? -1 : b % 4;
    bool any_layer = false;
    for (int k = 0; k < LAYER_SLOTS; k++) any_layer |= W.layer[k] != NULL;
    if (n > 0 && n < 4 && !any_layer && !(b & 0x40)) n = 0;
    for (int i = 0; i < n; i++) {
        uint8_t pick = rd8(r);
        int slot = pick % LAYER_SLOTS;
        /* An empty slot (a NULL layer: EINVAL) only when asked for; else the next layer. */
        for (int k = 0; k < LAYER_SLOTS && !W.layer[slot] && !(pick & 0x80); k++)
            slot = (slot + 1) % LAYER_SLOTS;
        M.ref_slot[i] = slot;
        M.refs[i].layer = W.layer[slot];
        M.refs[i].weight = rd_layer_weight(r);
    }
    q->nlayers = n;
    q->layers = b == 253 ? NULL : M.refs;
    if (b == 253) q->nlayers = 1;

    b = rd8(r) % 16;
    q->claims = b < 6 ? W.claims : b == 6 ? W.claims_other : NULL;
    q->unit = rd_unit(r);
    q->claim_penalty = rd_claim_penalty(r);
    b = rd8(r) % 10;
    q->claim_radius = b < 6 ? b : b == 6 ? -7 : -1;

    b = rd8(r);
    CB.node_kind = b % CB_KINDS;
    CB.edge_kind = (b / CB_KINDS) % CB_KINDS;
    CB.node_seed = rd16(r);
    CB.edge_seed = CB.node_seed * 31 + 7;
    CB.h_seed = CB.node_seed * 17 + 3;
    if (CB.node_kind) {
        q->node_cost = node_cb;
        q->node_cost_ud = &CB;
    }
    if (CB.edge_kind) {
        q->edge_cost = edge_cb;
        q->edge_cost_ud = &CB;
    }
}

static double rd_noise(reader *r) {
    static const double valid[] = {1.0, 1.0, 0.5, 3.0, 10.0, 1e-9, 0.0, -0.0, 1e100};
    static const double invalid[] = {-1.0, NAN, INFINITY, -INFINITY};
    uint8_t b = rd8(r);
    return b % 32 == 31 ? invalid[(b >> 5) % 4] : valid[b % 9];
}

static double rd_turn_penalty(reader *r) {
    static const double valid[] = {1.0, 1.0, 0.5, 2.0, 10.0, 0.0, 1e-9, ASTAR_MAX_VALUE};
    static const double invalid[] = {-1.0, NAN, INFINITY, -0.5};
    uint8_t b = rd8(r);
    return b % 32 == 31 ? invalid[(b >> 5) % 4] : valid[b % 8];
}


static int32_t rd_claim_window(reader *r) {
    static const int32_t valid[] = {0, 1, 2, 3, 5, 0, 1, 12, WINDOW_HUGE, INT32_MAX, -1};
    static const int32_t invalid[] = {-2, INT32_MIN};
    uint8_t b = rd8(r);
    return b % 32 == 31 ? invalid[(b >> 5) % 2] : valid[b % 11];
}

/* The options that make a step's cost depend on the way in, and noise. */
static void rd_ways(reader *r, astar_query *q) {
    uint8_t b = rd8(r);
    if (b & 1) {
        q->noise = rd_noise(r);
        q->seed = rd16(r) | (uint32_t)rd16(r) << 16;
    }
    if (b & 2) q->turn_penalty = rd_turn_penalty(r);
    if (b & 4) q->claim_window = rd_claim_window(r);
    if (b & 8) q->dead_ends = 0; /* on by default: the model's optimum holds either way */
}

/* exact_optimum to the query's goal or walkable targets. */
static double exact_to_goals(void) {
    static bool goal[MAX_CELLS];
    const astar_query *q = &M.q;
    bool dummy = false;
    for (int32_t i = 0; i < W.cells; i++) goal[i] = false;
    if (q->ntargets) {
        for (int32_t i = 0; i < q->ntargets; i++)
            goal[q->targets[i]] = model_walkable(q->targets[i] % W.w, q->targets[i] / W.w, &dummy);
    } else {
        goal[q->gy * W.w + q->gx] = true;
    }
    ex_work = W.cells;
    double best = exact_optimum(goal);
    spend(ex_work);
    return best;
}

/* An interest's value as the core counts it: rounded down to a multiple of 2^-32 (contract). */
static double round_down(double v) {
    return floor(v * 4294967296.0) / 4294967296.0;
}

/*
 * The query again with interests (issue 25), drawn from its own bits rather than from input
 * bytes, so that older inputs keep their meaning: one to three cells, each worth a value at or
 * near the bound (ASTAR_MAX_INTEREST, 2^20), a small one, or now and then one beyond the bound
 * or not a value. Beyond, or with partial: ASTAR_EINVAL, nothing allocated. Else the path is
 * legal and costs what it reports (summed from its end, as under reopening: to the bit below
 * 2^20), its score is that cost less the value collected (rounded down), on the path; and when
 * the query is one the oracle answers (`optimal`) the score is its min(d(s, goal),
 * min_i d(s, i) + d(i, goal) - value_i), to the bit below 2^20, whatever the largest value.
 */
static void check_interests(astar_search *s, const find_out *plain, bool optimal) {
    static const double good[] = {ASTAR_MAX_INTEREST, ASTAR_MAX_INTEREST - 0x1p-32, ASTAR_MAX_INTEREST - 0.5,
                                  0x1p19 + 0x1p-33, 999999.25, 10.0, 3.5, 0.5, 1e-12};
    static const double bad[] = {ASTAR_MAX_INTEREST + 0x1p-32, ASTAR_MAX_INTEREST + 1, 1e9, 1e17, 1e100,
                                 INFINITY, NAN, 0.0, -1.0};
    astar_query *q = &M.q;
    uint32_t h = CB.node_seed * 2654435761u ^ (uint32_t)(q->sx * 73 + q->sy * 31 + q->gx * 7 + q->gy) ^ 0x9E37u;
#define NEXT() (h ^= h << 13, h ^= h >> 17, h ^= h << 5, h)
    int32_t cells[3];
    double values[3];
    int32_t n = 1 + (int32_t)(NEXT() % 3);
    bool refused = q->partial;
    for (int32_t i = 0; i < n; i++) {
        cells[i] = (int32_t)(NEXT() % (uint32_t)W.cells);
        bool beyond = NEXT() % 8 == 0;
        values[i] = beyond ? bad[NEXT() % 9] : good[NEXT() % 9];
        refused |= beyond;
    }
#undef NEXT
    q->interests = cells, q->interest_values = values, q->ninterests = n;
    if (tracing())
        for (int32_t i = 0; i < n; i++) fprintf(stderr, "  interest %d: cell %d value %.17g\n", (int)i, (int)cells[i], values[i]);
    find_out o = run_find(s);
    q->interests = NULL, q->interest_values = NULL, q->ninterests = 0;
    const astar_result *res = &o.res;
    if (tracing())
        fprintf(stderr, "  with the interests => %s cost %.17g score %.17g interest %d\n", astar_status_name(o.st),
                res->cost, res->score, (int)res->interest);
    if (refused) {
        fail_if(o.st != ASTAR_EINVAL, "astar_find took an interest value beyond the bound (or with partial)");
        fail_if(o.oom, "astar_find allocated for refused interests");
        return;
    }
    fail_if(o.st == ASTAR_EINVAL, "astar_find refused interests within the bound");
    if (o.oom) return;
    fail_if((o.st == ASTAR_EABORT) != CB.abort_signalled, "EABORT with interests and no callback asking for it");
    if (o.st == ASTAR_EABORT) return;
    fail_if(!res->scored, "a query with interests not scored");
    if (optimal) fail_if((o.st == ASTAR_OK) != (plain->st == ASTAR_OK), "interests changed whether a path exists");
    if (o.st != ASTAR_OK) {
        fail_if(res->interest != -1, "an interest collected without a path");
        return;
    }
    int32_t end = q->ntargets ? q->targets[res->target] : q->gy * W.w + q->gx;
    double sum = check_path(&o, end, true);
    double scale = fabs(res->cost) + ASTAR_MAX_INTEREST; /* what the search's sums hold */
    bool exact = sum < 0x1p20 && res->cost < 0x1p20;
    fail_if(exact ? sum != res->cost : fabs(sum - res->cost) > REL_TOL * scale,
            "with interests, the reported cost differs from the returned path's steps");
    if (res->interest < 0) {
        fail_if(res->score != res->cost, "nothing collected, yet the score is not the cost");
    } else {
        fail_if(res->interest >= n, "the interest collected is none of the query's");
        bool on = false;
        for (int32_t i = 0; i < o.len; i++) on |= o.path[i] == cells[res->interest];
        fail_if(!on, "the interest collected is not on the path");
        fail_if(res->score != res->cost - round_down(values[res->interest]),
                "the score is not the cost less the value collected");
    }
    if (!optimal) return;
    if (plain->st == ASTAR_OK)
        fail_if(res->score > plain->res.cost + (exact ? 0.0 : REL_TOL * scale), "interests made the answer worse");
    /* The oracle: the goal (or the walkable targets) directly, or through one interest. */
    static bool goal[MAX_CELLS], at[MAX_CELLS];
    bool dummy = false;
    for (int32_t i = 0; i < W.cells; i++) goal[i] = at[i] = false;
    if (q->ntargets) {
        for (int32_t i = 0; i < q->ntargets; i++)
            goal[q->targets[i]] = model_walkable(q->targets[i] % W.w, q->targets[i] / W.w, &dummy);
    } else {
        goal[q->gy * W.w + q->gx] = true;
    }
    double best = dijkstra_to(q->sx, q->sy, goal), best_cost = best;
    for (int32_t i = 0; i < n; i++) {
        int32_t x = cells[i] % W.w, y = cells[i] / W.w;
        if (!model_walkable(x, y, &dummy)) continue;
        at[cells[i]] = true;
        double to = dijkstra_to(q->sx, q->sy, at);
        at[cells[i]] = false;
        double cost = to + dijkstra_to(x, y, goal);
        if (cost - round_down(values[i]) < best) best = cost - round_down(values[i]), best_cost = cost;
    }
    if (tracing()) fprintf(stderr, "  oracle score %.17g (a path of %.17g)\n", best, best_cost);
    exact = exact && best_cost < 0x1p20;
    fail_if(exact ? res->score != best : fabs(res->score - best) > REL_TOL * scale,
            "with interests, the score differs from the oracle's best");
}

static void op_find(reader *r) {
    astar_query *q = &M.q;
    astar_query_init(q);
    uint8_t flags = rd8(r);
    q->sx = rd_coord(r, W.w);
    q->sy = rd_coord(r, W.h);
    q->gx = rd_coord(r, W.w);
    q->gy = rd_coord(r, W.h);

    uint8_t b = rd8(r);
    q->diagonal = b % 16 >= 8 && b % 16 < 13 ? (astar_diagonal)(b % 16 - 8)
                  : b % 32 == 31              ? (astar_diagonal)(b & 32 ? -2 : 5)
                                              : ASTAR_DIAG_DEFAULT;
    b = rd8(r);
    switch (b % 32) {
    case 0: case 1: case 2: case 3: case 4: q->heuristic = (astar_heuristic)(b % 32); break;
    case 5: case 6: case 7: case 8: case 9:
        q->heuristic = ASTAR_H_CUSTOM;
        q->heuristic_fn = heuristic_cb;
        break;
    case 10: q->heuristic = ASTAR_H_CUSTOM; break; /* without a function: EINVAL */
    case 11: q->heuristic = (astar_heuristic)(b & 32 ? -2 : 8); break;
    case 12: q->heuristic = ASTAR_H_HEX; break;
    default: q->heuristic = ASTAR_H_DEFAULT; break;
    }
    q->heuristic_ud = &CB;
    CB.h_kind = (b >> 5) % H_KINDS;
    q->weight = rd_weight(r);
    rd_costs(r, q);
    b = rd8(r);
    if (b % 8 == 0) q->max_expansions = b / 8;
    if (b % 8 == 7) q->jps = ASTAR_JPS_ONLINE; /* JPS scanning lines; otherwise JPS+ where it runs */
    q->max_cost = rd_max_cost(r);
    q->partial = flags & 1;
    q->known = flags & 0x40 ? W.mask : NULL;
    M.fog = q->known != NULL;
    if (flags & 0x80) { /* find_nearest */
        q->ntargets = 1 + rd8(r) % 4;
        for (int32_t i = 0; i < q->ntargets; i++) /* -1 and W.cells are not cells */
            M.targets[i] = (int32_t)((rd8(r) | (uint32_t)rd8(r) << 8) % (uint32_t)(W.cells + 2)) - 1;
        q->targets = M.targets;
    }
    bool cold_check = flags & 2;
    bool wrong_search = (flags & 0x3c) == 0x3c;
    if ((flags & 0x04) && !wrong_search) rd_ways(r, q);

    astar_search *s = W.search;
    if (!s) s = W.search = astar_search_new(W.w, W.h, W.palloc);
    if (wrong_search) {
        if (!other_search) other_search = astar_search_new(W.w + 1, W.h, W.palloc);
        s = other_search;
    }
    if (!s) {
        fail_if(W.heap.failures == 0, "search_new returned NULL without an allocation failure");
        return;
    }
    bool invalid = query_invalid(q, wrong_search);
    CB.gx = q->gx;
    CB.gy = q->gy;
    double min_cost = shadow_min_cost();
    if (M.fog && !(min_cost < 1.0)) min_cost = 1.0; /* unknown cells cost 1 */
    CB.min_cost = isfinite(min_cost) ? min_cost : 0.0;

    find_out o = run_find(s);
    if (tracing())
        fprintf(stderr,
                "find %dx%d (%d,%d)->(%d,%d) diag %d/%d h %d kind %d w %g layers %d claims %s unit %d "
                "pen %g radius %d node %d edge %d seed %u maxexp %llu maxcost %g partial %d"
                " noise %g/%u turn %g window %d => %s reason %d cost %.17g len %d exp %llu\n",
                (int)W.w, (int)W.h, (int)q->sx, (int)q->sy, (int)q->gx, (int)q->gy, (int)q->diagonal,
                (int)W.diagonal, (int)q->heuristic, CB.h_kind, q->weight, q->nlayers,
                q->claims ? "yes" : "no", (int)q->unit, q->claim_penalty, (int)q->claim_radius,
                CB.node_kind, CB.edge_kind, (unsigned)CB.node_seed,
                (unsigned long long)q->max_expansions, q->max_cost, q->partial, q->noise,
                (unsigned)q->seed, q->turn_penalty, (int)q->claim_window,
                astar_status_name(o.st), (int)o.res.reason, o.res.cost, (int)o.len,
                (unsigned long long)o.res.expansions);
    if (invalid) {
        fail_if(o.st != ASTAR_EINVAL, "astar_find accepted an invalid query");
        fail_if(o.oom, "astar_find allocated for an invalid query");
        return;
    }
    fail_if(o.st == ASTAR_EINVAL, "astar_find rejected a valid query");
    if (o.oom) return;
    fail_if((o.st == ASTAR_EABORT) != CB.abort_signalled,
            "EABORT without a callback asking for it, or a callback's abort ignored");
    if (o.st == ASTAR_EABORT) return;

    model_query();
    /* A step's cost depends on the way in: the search keeps one way per node, so its
     * cost is only bounded below by the optimum (see astar.h). */
    bool approx = q->turn_penalty > 0 || (M.windowed && !M.window_all);

    astar_heuristic hh = q->heuristic;
    bool hex = M.diagonal == ASTAR_DIAG_HEX;
    if (hh == ASTAR_H_DEFAULT)
        hh = hex ? ASTAR_H_HEX : M.diagonal == ASTAR_DIAG_NEVER ? ASTAR_H_MANHATTAN : ASTAR_H_OCTILE;
    bool eight = M.diagonal != ASTAR_DIAG_NEVER;
    bool custom = hh == ASTAR_H_CUSTOM;
    /* A hex step has length 1 and moves x and y by at most 1 each: Chebyshev (custom kind 0)
     * stays below it, octile, Euclidean and Manhattan do not. Hex steps on squares are taken
     * for inadmissible, like Manhattan on 8 neighbours. Custom kind 1 is admissible but not
     * consistent: its answers are optimal because search.c reopens closed nodes, which it does
     * not with turns or any claim window (even one wider than any path). */
    bool reopens = !(q->turn_penalty > 0) && !(q->claims && q->claim_window >= 0);
    bool admissible = custom ? CB.h_kind == 0 || (CB.h_kind == 1 && !hex && reopens)
                      : hex  ? hh == ASTAR_H_HEX || hh == ASTAR_H_ZERO || hh == ASTAR_H_CHEBYSHEV
                             : !(hh == ASTAR_H_MANHATTAN && eight) && hh != ASTAR_H_HEX;
    bool may_abort = CB.node_kind == 3 || CB.node_kind == 4 || CB.edge_kind == 3 ||
                     CB.edge_kind == 4 || (custom && CB.h_kind == 3);
    bool limits = q->max_expansions != UINT64_MAX || q->max_cost != INFINITY;
    bool optimal = q->weight == 1.0 && admissible && !approx && !limits && !may_abort;

    const astar_result *res = &o.res;
    fail_if(res->expansions > q->max_expansions, "more expansions than max_expansions");
    if (!custom) fail_if(res->expansions > (uint64_t)W.cells, "a node expanded twice without reopening");
    if (q->partial)
        fail_if(o.st != ASTAR_OK && o.st != ASTAR_PARTIAL, "partial query neither found nor partial");
    else
        fail_if(o.st != ASTAR_OK && o.st != ASTAR_UNREACHABLE && o.st != ASTAR_LIMIT,
                "unexpected status");
    astar_status why = o.st == ASTAR_PARTIAL ? res->reason : o.st;
    if (o.st == ASTAR_PARTIAL)
        fail_if(why != ASTAR_UNREACHABLE && why != ASTAR_LIMIT, "partial result without a reason");
    fail_if(why == ASTAR_LIMIT && !limits, "LIMIT although the query set no limit");

    bool dummy = false;
    bool goal_open = false;
    if (q->ntargets)
        for (int32_t i = 0; i < q->ntargets; i++)
            goal_open |= model_walkable(q->targets[i] % W.w, q->targets[i] / W.w, &dummy);
    else
        goal_open = model_walkable(q->gx, q->gy, &dummy);
    if (o.st == ASTAR_OK && q->ntargets) {
        fail_if(res->target < 0 || res->target >= q->ntargets, "found, but no target named");
    } else {
        fail_if(res->target != -1, "a target named where none was reached");
    }
    if (!goal_open && !q->partial)
        fail_if(o.st != ASTAR_UNREACHABLE || res->expansions != 0,
                "a blocked goal is not unreachable at once");

    if (o.st == ASTAR_OK || o.st == ASTAR_PARTIAL) {
        int32_t end = o.st != ASTAR_OK ? -1 : q->ntargets ? q->targets[res->target] : q->gy * W.w + q->gx;
        double sum = check_path(&o, end, false);
        if (tracing()) {
            fprintf(stderr, "  path cost summed by the model %.17g; nodes", sum);
            for (int32_t i = 0; i < o.len; i++) fprintf(stderr, " %d", (int)o.path[i]);
            fprintf(stderr, "\n");
        }
        if (!(custom && reopens)) {
            fail_if(sum != res->cost, "reported cost differs from the cost of the returned path");
        } else {
            /* Under reopening the cost is the returned path's steps summed by search.c (a
             * closed node may have improved after what was reached through it settled): in
             * another order than the model, so equal up to rounding either way. */
            fail_if(fabs(res->cost - sum) > REL_TOL * (res->cost > 1.0 ? res->cost : 1.0),
                    "reported cost differs from the cost of the returned path");
        }
        memcpy(W.last_path, o.path, (size_t)o.len * sizeof *o.path);
        W.last_len = o.len;
    }
    if (o.st == ASTAR_OK) fail_if(!(res->cost <= q->max_cost), "found a path costlier than max_cost");

    if (!may_abort) {
        /* The walkable goal or targets; the optimum is the distance to the nearest. */
        static bool goal[MAX_CELLS];
        for (int32_t i = 0; i < W.cells; i++) goal[i] = false;
        if (q->ntargets) {
            for (int32_t i = 0; i < q->ntargets; i++) {
                int32_t t = q->targets[i];
                if (model_walkable(t % W.w, t / W.w, &dummy)) goal[t] = true;
            }
        } else if (goal_open) {
            goal[q->gy * W.w + q->gx] = true;
        }
        double opt = dijkstra_to(q->sx, q->sy, goal);
        double tol = REL_TOL * (isfinite(opt) && fabs(opt) > 1.0 ? fabs(opt) : 1.0);
        if (tracing()) fprintf(stderr, "  oracle %.17g%s\n", opt, approx ? " (lower bound)" : "");
        if (opt == INFINITY) {
            fail_if(o.st == ASTAR_OK, "found a path where the oracle has none");
        } else if (o.st == ASTAR_OK && approx) {
            /* Turns and windowed claims only add: the plain optimum bounds it below. */
            fail_if(res->cost < opt - tol, "found a path cheaper than the oracle's lower bound");
            double exact = exact_to_goals();
            if (tracing()) fprintf(stderr, "  exact optimum over (cell, heading, depth) %.17g\n", exact);
            if (!isnan(exact)) {
                double etol = REL_TOL * (fabs(exact) > 1.0 ? fabs(exact) : 1.0);
                fail_if(exact == INFINITY, "found a path where the exact oracle has none");
                fail_if(res->cost < exact - etol, "found a path cheaper than the exact optimum");
            }
        } else if (o.st == ASTAR_OK) {
            fail_if(res->cost < opt - tol, "found a path cheaper than the oracle's optimum");
            if (q->weight == 1.0 && admissible)
                fail_if(res->cost > opt + tol, "cost differs from the oracle's optimum");
            if (q->weight > 1.0 && admissible && !custom && isfinite(q->weight * opt))
                fail_if(res->cost > q->weight * opt + q->weight * tol,
                        "weighted search broke its bound");
        } else {
            /* Turns and windowed claims, which the plain oracle leaves out, may take every way
             * past DBL_MAX; when the exact oracle is out of reach, that cannot be told. */
            double exact = approx && why != ASTAR_LIMIT ? exact_to_goals() : 0.0;
            if (tracing() && approx) fprintf(stderr, "  exact optimum %.17g\n", exact);
            fail_if(why != ASTAR_LIMIT && !(approx && !(exact < INFINITY)),
                    "the oracle reaches the goal but the search gave up");
            if (q->weight == 1.0 && admissible && !approx && q->max_expansions == UINT64_MAX)
                fail_if(opt < q->max_cost - tol, "an optimal path within max_cost was not found");
        }
    }

    if (cold_check) {
        /* A fresh workspace must give exactly what the warm one gave. */
        static int32_t path[MAX_CELLS];
        find_out warm = o;
        if (o.len) memcpy(path, o.path, (size_t)o.len * sizeof *path);
        astar_search *fresh = astar_search_new(W.w, W.h, W.palloc);
        spend(W.cells * 4);
        find_out cold = {0};
        if (fresh) cold = run_find(fresh);
        if (tracing())
            fprintf(stderr, "  fresh workspace => %s reason %d cost %.17g len %d exp %llu\n",
                    astar_status_name(cold.st), (int)cold.res.reason, cold.res.cost, (int)cold.len,
                    (unsigned long long)cold.res.expansions);
        /* The warm query's fruitless search may have made the grid rebuild its stale
         * islands (search.c counts such waste), so the cold one can stop at once. */
        bool islands_rebuilt = warm.st == ASTAR_UNREACHABLE && cold.st == ASTAR_UNREACHABLE &&
                               cold.res.expansions == 0;
        if (fresh && !cold.oom) {
            fail_if(cold.st != warm.st || cold.res.reason != warm.res.reason ||
                        cold.res.target != warm.res.target ||
                        (cold.res.expansions != warm.res.expansions && !islands_rebuilt) ||
                        cold.res.length != warm.res.length || cold.len != warm.len,
                    "a fresh workspace gives another result than a used one");
            fail_if(memcmp(&cold.res.cost, &warm.res.cost, sizeof cold.res.cost) != 0,
                    "a fresh workspace gives another cost than a used one");
            fail_if(cold.len && memcmp(cold.path, path, (size_t)cold.len * sizeof *path) != 0,
                    "a fresh workspace gives another path than a used one");
        }
        astar_search_free(fresh);
    }

    if (M.window_all && q->turn_penalty == 0 && !may_abort && !limits && !q->partial) {
        /* A window wider than any path must change nothing (but the loop that runs). */
        find_out warm = o;
        int32_t window = q->claim_window;
        q->claim_window = -1;
        find_out plain = run_find(s);
        q->claim_window = window;
        if (tracing())
            fprintf(stderr, "  without the window => %s cost %.17g\n", astar_status_name(plain.st),
                    plain.res.cost);
        if (!plain.oom) {
            fail_if(plain.st != warm.st, "a window wider than any path changed the status");
            double tol = REL_TOL * (fabs(warm.res.cost) > 1.0 ? fabs(warm.res.cost) : 1.0);
            if (warm.st == ASTAR_OK && q->weight == 1.0 && admissible)
                fail_if(fabs(plain.res.cost - warm.res.cost) > tol,
                        "a window wider than any path changed the cost");
        }
    }

    /* A quarter of the queries again with interests (by bits of the callbacks' seed, which
     * every query reads; bits 9 and 10 pick the slicing). */
    if ((CB.node_seed >> 12) % 4 == 1) check_interests(s, &o, optimal);
}

/* ----------------------------------------------------------------- fields */

static astar_field *field, *other_field; /* other_field: another size, so EINVAL */
static double field_seen[MAX_CELLS];      /* the field before a build, to see it unchanged */

static void field_snapshot(const astar_field *f, int32_t *reached) {
    *reached = astar_field_reached(f);
    for (int32_t i = 0; i < W.cells; i++) field_seen[i] = astar_field_distance(f, i % W.w, i / W.w);
}

static bool field_unchanged(const astar_field *f, int32_t reached) {
    if (astar_field_reached(f) != reached) return false;
    for (int32_t i = 0; i < W.cells; i++) {
        double d = astar_field_distance(f, i % W.w, i / W.w);
        if (memcmp(&d, &field_seen[i], sizeof d) != 0) return false;
    }
    return true;
}

/* Field options each make the build EINVAL (astar.h: only some query fields are read). */
enum {
    SPOIL_HEURISTIC, SPOIL_WEIGHT, SPOIL_PARTIAL, SPOIL_TARGETS, SPOIL_TURN, SPOIL_WINDOW,
    SPOIL_FIELD_SIZE, SPOIL_SEARCH_SIZE, SPOIL_CELL, SPOIL_NCELLS, SPOIL_NO_CELLS, SPOIL_KIND,
    SPOIL_DIAGONAL, SPOILS
};

/*
 * The open list orders keys to 2^-40 of their value only (nodes.h), so a field
 * may settle a cell from a neighbour that is dearer by that much than the best
 * one: each step of a chain can add that error once.
 */
static double field_tol(double d) {
    return ldexp(1.0, -40) * W.cells * (fabs(d) > 1.0 ? fabs(d) : 1.0);
}

/*
 * Builds a distance field and checks it against the model: FROM against the
 * forward Dijkstra from the start(s), TO against a backward one to the goals,
 * every cell's distance (to the open list's precision), and each reached
 * cell's next step: legal, leading to a cell whose distance plus that step
 * (summed from the sources' end, as a walk is costed) is the cell's own bit
 * for bit, and, followed, to a source without a cycle.
 */
static void op_field(reader *r) {
    astar_query *q = &M.q;
    astar_query_init(q);
    uint8_t b = rd8(r);
    uint8_t spoil = rd8(r) % 64; /* < SPOILS: one invalid option; most builds are valid */
    astar_field_kind kind = b & 1 ? ASTAR_FIELD_FROM : ASTAR_FIELD_TO;
    int32_t ncells = kind == ASTAR_FIELD_TO ? 1 + (b >> 1) % 4 : 1 + ((b >> 1) % 4 == 3);
    int32_t cells[4];
    for (int32_t i = 0; i < ncells; i++) {
        int32_t x = rd8(r) % W.w, y = rd8(r) % W.h;
        cells[i] = y * W.w + x;
    }
    /* claim_radius is measured from (sx, sy); the goal is ignored, so it may be anything. */
    q->sx = kind == ASTAR_FIELD_FROM ? cells[0] % W.w : rd8(r) % W.w;
    q->sy = kind == ASTAR_FIELD_FROM ? cells[0] / W.w : rd8(r) % W.h;
    q->gx = rd_coord(r, W.w);
    q->gy = rd_coord(r, W.h);
    uint8_t d = rd8(r) % 8;
    q->diagonal = d < 5 ? (astar_diagonal)d : ASTAR_DIAG_DEFAULT;
    rd_costs(r, q);
    uint8_t e = rd8(r);
    if (e % 8 == 0) q->max_expansions = e / 8;
    q->max_cost = rd_max_cost(r);
    q->known = b & 0x40 ? W.mask : NULL;
    M.fog = q->known != NULL;
    if (b & 0x20) {
        q->noise = rd_noise(r);
        q->seed = rd16(r) | (uint32_t)rd16(r) << 16;
    }

    astar_search *s = W.search;
    if (!s) s = W.search = astar_search_new(W.w, W.h, W.palloc);
    uint64_t failures = W.heap.failures;
    if (!field) field = astar_field_new(W.w, W.h, W.palloc);
    fail_if(!field && W.heap.failures == failures, "field_new returned NULL without an allocation failure");
    if (!s || !field) return;
    astar_field *f = field;
    const int32_t *list = cells;
    astar_field_kind k = kind;
    switch (spoil) {
    case SPOIL_HEURISTIC: q->heuristic = (astar_heuristic)(b >> 5); break; /* 0..7: every kind */
    case SPOIL_WEIGHT: q->weight = b & 0x80 ? 1.5 : NAN; break;
    case SPOIL_PARTIAL: q->partial = 1; break;
    case SPOIL_TARGETS: q->targets = cells, q->ntargets = 1; break;
    case SPOIL_TURN: q->turn_penalty = b & 0x80 ? 1.0 : -1.0; break;
    case SPOIL_WINDOW: q->claim_window = b & 0x80 ? 0 : -2; break;
    case SPOIL_FIELD_SIZE:
        if (!other_field) other_field = astar_field_new(W.w, W.h + 1, W.palloc);
        if (!other_field) return;
        f = other_field;
        break;
    case SPOIL_SEARCH_SIZE:
        if (!other_search) other_search = astar_search_new(W.w + 1, W.h, W.palloc);
        if (!other_search) return;
        s = other_search;
        break;
    case SPOIL_CELL: cells[ncells - 1] = b & 0x80 ? -1 : W.cells; break;
    case SPOIL_NCELLS: ncells = b & 0x80 ? 0 : -1; break;
    case SPOIL_NO_CELLS: list = NULL; break;
    case SPOIL_KIND: k = (astar_field_kind)(b & 0x80 ? 2 : -1); break;
    case SPOIL_DIAGONAL: q->diagonal = (astar_diagonal)(b & 0x80 ? 5 : -2); break;
    default: break;
    }
    /* The rest must pass astar_find's checks, the goal aside. */
    astar_query checked = *q;
    checked.gx = checked.sx;
    checked.gy = checked.sy;
    astar_query saved = *q;
    *q = checked;
    bool invalid = spoil < SPOILS || query_invalid(q, false);
    *q = saved;

    int32_t before;
    field_snapshot(f, &before);
    astar_field_kind kind_before = astar_field_get_kind(f);
    if (++CB.stamp == 0) {
        memset(CB.node_seen, 0, sizeof CB.node_seen);
        CB.stamp = 1;
    }
    CB.abort_signalled = false;
    uint64_t requests = W.heap.requests;
    failures = W.heap.failures;
    astar_result res;
    astar_status st = astar_field_build(f, s, W.grid, q, list, ncells, k, &res);
    bool oom = W.heap.failures != failures;
    /* The build, and the checks' passes over every cell (snapshot, distances, next steps; a
     * refused build only the snapshot and its comparison). */
    spend(W.cells * (st == ASTAR_EINVAL || oom ? 3 : 12) + WORK_PER_FIELD_CELL * (int64_t)res.expansions);
    if (tracing()) {
        fprintf(stderr, "field %s %dx%d cells", kind == ASTAR_FIELD_TO ? "to" : "from", (int)W.w, (int)W.h);
        for (int32_t i = 0; i < ncells && i < 4; i++) fprintf(stderr, " (%d,%d)", (int)(cells[i] % W.w), (int)(cells[i] / W.w));
        fprintf(stderr,
                " from (%d,%d) goal (%d,%d) spoil %d diag %d/%d layers %d claims %s unit %d pen %g radius %d node %d edge %d"
                " maxexp %llu maxcost %g fog %d noise %g/%u => %s exp %llu reached %d\n",
                (int)q->sx, (int)q->sy, (int)q->gx, (int)q->gy, spoil, (int)q->diagonal,
                (int)W.diagonal, q->nlayers, q->claims ? "yes" : "no",
                (int)q->unit, q->claim_penalty, (int)q->claim_radius, CB.node_kind, CB.edge_kind,
                (unsigned long long)q->max_expansions, q->max_cost, M.fog, q->noise, (unsigned)q->seed,
                astar_status_name(st), (unsigned long long)res.expansions, (int)astar_field_reached(f));
    }
    fail_if(st != res.status, "field_build returned a status other than res.status");
    if (invalid) {
        fail_if(st != ASTAR_EINVAL, "field_build accepted an invalid query");
        fail_if(W.heap.requests != requests, "field_build allocated for an invalid query");
        fail_if(!field_unchanged(f, before) || astar_field_get_kind(f) != kind_before,
                "a rejected field_build changed the field");
        return;
    }
    fail_if(st == ASTAR_EINVAL, "field_build rejected a valid query");
    fail_if((st == ASTAR_ENOMEM) != oom, "field_build: ENOMEM without an allocation failure, or the reverse");
    if (oom) {
        fail_if(!field_unchanged(f, before) || astar_field_get_kind(f) != kind_before,
                "field_build changed the field although it ran out of memory");
        return;
    }
    fail_if((st == ASTAR_EABORT) != CB.abort_signalled,
            "field_build: EABORT without a callback asking for it, or a callback's abort ignored");
    if (st == ASTAR_EABORT) return;
    fail_if(st != ASTAR_OK && st != ASTAR_LIMIT, "field_build: unexpected status");
    fail_if(st == ASTAR_LIMIT && q->max_expansions == UINT64_MAX, "field LIMIT without max_expansions");
    fail_if(res.expansions > q->max_expansions, "field: more expansions than max_expansions");
    fail_if(astar_field_get_kind(f) != kind, "field kind differs");

    int32_t reached = 0;
    for (int32_t i = 0; i < W.cells; i++) reached += astar_field_distance(f, i % W.w, i / W.w) != INFINITY;
    fail_if(astar_field_reached(f) != reached, "field_reached differs from the cells with a distance");
    int32_t nx = 0, ny = 0;
    fail_if(!isnan(astar_field_distance(f, -1, 0)) || !isnan(astar_field_distance(f, 0, W.h)),
            "field_distance outside is not NaN");
    fail_if(astar_field_next(f, W.w, 0, &nx, &ny) != -1 || astar_field_next(f, 0, -1, &nx, &ny) != -1,
            "field_next outside is not -1");

    bool may_abort = CB.node_kind == 3 || CB.node_kind == 4 || CB.edge_kind == 3 || CB.edge_kind == 4;
    if (may_abort) return;
    model_query();
    bool to = kind == ASTAR_FIELD_TO;
    dj_work = W.cells;
    dijkstra_multi(cells, ncells, to, q->max_cost, NULL);
    spend(dj_work);

    static bool source[MAX_CELLS];
    bool dummy = false;
    /* TO fields give a cell a unit may only leave (blocked for the query) its distance without
     * queueing it: every other reached cell was one expansion. */
    int32_t stand_only = 0;
    for (int32_t i = 0; i < W.cells; i++)
        stand_only += to && astar_field_distance(f, i % W.w, i / W.w) != INFINITY &&
                      !model_walkable(i % W.w, i / W.w, &dummy);
    fail_if((uint64_t)(reached - stand_only) != res.expansions, "a field settles one queued cell per expansion");
    for (int32_t i = 0; i < W.cells; i++) source[i] = false;
    for (int32_t i = 0; i < ncells; i++)
        source[cells[i]] = !to || model_walkable(cells[i] % W.w, cells[i] / W.w, &dummy);
    double settled_max = -INFINITY;
    int32_t model_reached = 0;
    for (int32_t i = 0; i < W.cells; i++) {
        double got = astar_field_distance(f, i % W.w, i / W.w);
        model_reached += dist[i] != INFINITY;
        if (got == INFINITY) {
            /* Just within the budget for the oracle, maybe just beyond for the core. */
            bool edge = dist[i] + field_tol(dist[i]) >= q->max_cost;
            fail_if(st == ASTAR_OK && dist[i] != INFINITY && !edge, "a cell the oracle reaches is unreached");
            continue;
        }
        if (tracing() && got != dist[i])
            fprintf(stderr, "  (%d,%d): field %.17g oracle %.17g\n", (int)(i % W.w), (int)(i / W.w), got, dist[i]);
        fail_if(dist[i] == INFINITY, "a field reaches a cell the oracle does not");
        fail_if(got < dist[i] || got - dist[i] > field_tol(dist[i]), "field distance differs from the oracle's");
        if (got > settled_max) settled_max = got;
    }
    if (st == ASTAR_LIMIT) {
        fail_if(reached >= model_reached, "LIMIT, yet every cell the oracle reaches is reached");
        /* Dijkstra settles in order of distance. */
        for (int32_t i = 0; i < W.cells; i++)
            fail_if(dist[i] + field_tol(settled_max) < settled_max &&
                        astar_field_distance(f, i % W.w, i / W.w) == INFINITY,
                    "a field left a nearer cell unsettled than one it settled");
    }

    /* Next steps: one step each, checked locally; then followed, with marks, for cycles. */
    static uint8_t mark[MAX_CELLS];
    for (int32_t i = 0; i < W.cells; i++) {
        mark[i] = 0;
        int32_t x = i % W.w, y = i / W.w;
        double di = astar_field_distance(f, x, y);
        int got = astar_field_next(f, x, y, &nx, &ny);
        fail_if(got < 0, "field_next inside is -1");
        if (di == INFINITY) {
            fail_if(got != 0, "field_next from an unreached cell");
            continue;
        }
        if (got == 0) {
            fail_if(!source[i] || di != 0.0, "field_next ends where no source is");
            continue;
        }
        fail_if(!inside(nx, ny), "field_next leads outside");
        double dn = astar_field_distance(f, nx, ny), g;
        fail_if(dn == INFINITY, "field_next leads to an unreached cell");
        int k2 = to ? model_step(x, y, nx, ny, dn, -1, -1, &g) : model_step(nx, ny, x, y, dn, -1, -1, &g);
        fail_if(k2 != STEP_OK, "field_next takes a step that is not allowed");
        fail_if(g != di, "a field's next step does not account for its distance");
    }
    for (int32_t i = 0; i < W.cells; i++) {
        int32_t at = i;
        while (mark[at] == 0) {
            mark[at] = 1; /* on the current walk */
            if (astar_field_next(f, at % W.w, at / W.w, &nx, &ny) != 1) break;
            at = ny * W.w + nx;
            fail_if(mark[at] == 1, "field_next walks in a cycle");
        }
        for (at = i; mark[at] == 1;) { /* done: later walks may stop here */
            mark[at] = 2;
            if (astar_field_next(f, at % W.w, at / W.w, &nx, &ny) != 1) break;
            at = ny * W.w + nx;
        }
    }
}

/* ---------------------------------------------------------------- islands */

/* Landmarks on the terrain as it is, with any k: later queries use them on their own and
 * are checked against the Dijkstra as ever, so a bound that overestimates (after terrain
 * changes too: dearer cells keep them, cheaper ones must put them out of use) shows there. */
static void op_landmarks(reader *r) {
    uint8_t b = rd8(r);
    /* Mostly a few; 33..40 (more than a query uses) now and then: a build is 2k + 1
     * Dijkstras (k + 1 where walkable cells cost the same), so one build per input (0xff,
     * common in mutations, asks for 3), and none bigger than LANDMARK_WORK or, for many,
     * LANDMARK_MANY_CELLS. */
    int32_t k = b == 250 ? -1 : b == 251 ? INT32_MAX : b == 252 ? ASTAR_MAX_LANDMARKS + 1
              : b % 16 == 7 ? 33 + b / 16 % 8 : b % 7;
    if (k > 0 && k <= ASTAR_MAX_LANDMARKS) {
        double lo = INFINITY, hi = 0.0;
        for (int32_t i = 0; i < W.cells; i++)
            if (W.cost[i] != INFINITY) {
                lo = fmin(lo, W.cost[i]);
                hi = fmax(hi, W.cost[i]);
            }
        int64_t fields = (int64_t)k * (lo == hi ? 1 : 2) + 1;
        bool big = k > ASTAR_LANDMARKS_ACTIVE ? W.cells > LANDMARK_MANY_CELLS : W.cells * fields > LANDMARK_WORK;
        if (big || W.landmark_builds++ >= 1) return;
        int64_t left = W.work - WORK_PER_FIELD_CELL * (int64_t)W.cells * fields;
        int64_t tail = W.work < LANDMARK_TAIL ? W.work : LANDMARK_TAIL;
        W.work = left > tail ? left : tail;
    }
    int32_t before = astar_grid_landmark_count(W.grid);
    astar_status st = astar_grid_landmarks(W.grid, k);
    int32_t now = astar_grid_landmark_count(W.grid);
    if (tracing()) fprintf(stderr, "landmarks %d => %s, %d of them\n", (int)k, astar_status_name(st), (int)now);
    if (k < 0 || k > ASTAR_MAX_LANDMARKS) {
        fail_if(st != ASTAR_EINVAL, "landmarks: k out of range not refused");
        fail_if(now != before, "landmarks: a refused k changed them");
    } else if (st == ASTAR_ENOMEM) {
        fail_if(now != before, "landmarks: a failed build changed them");
    } else {
        fail_if(st != ASTAR_OK, "landmarks status");
        fail_if(now > k || (k == 0 && now != 0), "landmarks: more than asked");
        if (k == 0) fail_if(astar_grid_landmark_bytes(W.grid) != 0, "landmarks: dropped but still held");
    }
    check_grid();
}

static int cmp_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/*
 * Islands against the model: cells joined by the steps the grid's own mode
 * allows on the bare terrain (astar.h: 4-connected unless corners may be cut,
 * hexes their own way) must share an id and no others may.
 */
static void op_islands(reader *r) {
    static int32_t label[MAX_CELLS], queue[MAX_CELLS], id_of[MAX_CELLS];
    spend(W.cells * 16); /* the core's labels (a rebuild), the model's, and a call per cell */
    astar_query_init(&M.q);
    M.fog = false;
    CB.node_kind = CB.edge_kind = 0;
    model_query();
    M.diagonal = W.diagonal;
    for (int32_t i = 0; i < W.cells; i++) label[i] = id_of[i] = -1;
    int32_t labels = 0;
    for (int32_t i = 0; i < W.cells; i++) {
        if (label[i] >= 0 || W.cost[i] == INFINITY) continue;
        int32_t head = 0, tail = 0;
        label[i] = labels;
        queue[tail++] = i;
        while (head < tail) {
            int32_t a = queue[head++], ax = a % W.w, ay = a / W.w;
            for (int32_t dy = -1; dy <= 1; dy++)
                for (int32_t dx = -1; dx <= 1; dx++) {
                    double g;
                    if (model_step(ax, ay, ax + dx, ay + dy, 0.0, -1, -1, &g) != STEP_OK) continue;
                    int32_t b = (ay + dy) * W.w + ax + dx;
                    if (label[b] < 0) {
                        label[b] = labels;
                        queue[tail++] = b;
                    }
                }
        }
        labels++;
    }
    for (int32_t i = 0; i < W.cells; i++) {
        int32_t id = -7;
        uint64_t failures = W.heap.failures;
        astar_status st = astar_grid_component(W.grid, i % W.w, i / W.w, &id);
        if (W.heap.failures != failures) {
            fail_if(st != ASTAR_ENOMEM, "grid_component ignored an allocation failure");
            return;
        }
        fail_if(st != ASTAR_OK, "grid_component failed");
        if (label[i] < 0) {
            fail_if(id != -1, "a blocked cell has an island");
            continue;
        }
        fail_if(id < 0, "an island id is negative");
        if (id_of[label[i]] < 0) id_of[label[i]] = id;
        fail_if(id_of[label[i]] != id, "islands differ from the model's");
    }
    /* and no two of the model's islands share an id (ids are labels, not node ids: sorted) */
    int32_t seen = 0;
    for (int32_t l = 0; l < labels; l++)
        if (id_of[l] >= 0) queue[seen++] = id_of[l];
    qsort(queue, (size_t)seen, sizeof *queue, cmp_int32);
    for (int32_t k = 1; k < seen; k++) fail_if(queue[k] == queue[k - 1], "islands differ from the model's");
    int32_t id;
    fail_if(astar_grid_component(W.grid, W.w, 0, &id) != ASTAR_EINVAL, "grid_component accepted a cell outside");

    int32_t sx = rd_coord(r, W.w), sy = rd_coord(r, W.h), gx = rd_coord(r, W.w), gy = rd_coord(r, W.h);
    int yes = -1;
    uint64_t failures = W.heap.failures;
    astar_status st = astar_grid_reachable(W.grid, sx, sy, gx, gy, &yes);
    if (tracing())
        fprintf(stderr, "islands %dx%d diag %d: %d of them; reachable (%d,%d)->(%d,%d) => %s %d\n", (int)W.w,
                (int)W.h, (int)W.diagonal, (int)labels, (int)sx, (int)sy, (int)gx, (int)gy,
                astar_status_name(st), yes);
    if (!inside(sx, sy) || !inside(gx, gy)) {
        fail_if(st != ASTAR_EINVAL, "grid_reachable accepted a cell outside");
        return;
    }
    fail_if(W.heap.failures != failures, "grid_reachable allocated with the labels built");
    fail_if(st != ASTAR_OK, "grid_reachable failed");
    int32_t goal = label[gy * W.w + gx];
    bool want = false;
    if (goal >= 0 && label[sy * W.w + sx] >= 0) {
        want = label[sy * W.w + sx] == goal;
    } else if (goal >= 0) { /* a blocked start is left by the steps its mode allows */
        for (int32_t dy = -1; dy <= 1; dy++)
            for (int32_t dx = -1; dx <= 1; dx++) {
                double g;
                if (model_step(sx, sy, sx + dx, sy + dy, 0.0, -1, -1, &g) == STEP_OK &&
                    label[(sy + dy) * W.w + sx + dx] == goal)
                    want = true;
            }
    }
    fail_if(yes != want, "grid_reachable differs from the model's islands");
}

/* ------------------------------------------------------------------- run */

static void run_op(reader *r, uint8_t op) {
    if ((op >= 232 || op % 20 >= 15) && W.grid_unchecked) check_grid(); /* a query reads the grid */
    if (op >= 232) { /* the newer operations, out of the way of older inputs' bytes */
        if (op == 255) op_landmarks(r);
        else if ((op - 232) % 3 < 2) op_field(r);
        else op_islands(r);
        return;
    }
    switch (op % 20) {
    case 0: op_set_cost(r); break;
    case 1: op_mask_reveal(r); break;
    case 2: op_fill(r); break;
    case 3: op_set_all(r); break;
    case 4: op_set_diagonal(r); break;
    case 5: op_layer_new(r); break;
    case 6: op_layer_write(r); break;
    case 7: op_layer_update(r); break;
    case 8: op_layer_free(r); break;
    case 9: op_claims_new(r); break;
    case 10: op_unit_new(r); break;
    case 11: op_claims_set(r); break;
    case 12: op_claims_set_path(r); break;
    case 13: op_claims_advance(r); break;
    case 14: op_claims_release(r); break;
    default: op_find(r); break;
    }
}

/* Constructors must refuse bad sizes without touching the allocator. */
static void check_bad_constructors(void) {
    uint64_t requests = W.heap.requests;
    fail_if(astar_grid_new(0, 1, ASTAR_DIAG_NEVER, W.palloc) != NULL, "grid_new accepted width 0");
    fail_if(astar_grid_new(1, ASTAR_MAX_SIDE + 1, ASTAR_DIAG_NEVER, W.palloc) != NULL,
            "grid_new accepted a height above ASTAR_MAX_SIDE");
    fail_if(astar_grid_new(1, 1, (astar_diagonal)5, W.palloc) != NULL, "grid_new accepted diagonal 5");
    fail_if(astar_grid_new(1, 1, ASTAR_DIAG_DEFAULT, W.palloc) != NULL,
            "grid_new accepted ASTAR_DIAG_DEFAULT");
    fail_if(astar_layer_new(-1, 1, 0.0, W.palloc) != NULL, "layer_new accepted width -1");
    fail_if(astar_layer_new(1, 1, NAN, W.palloc) != NULL, "layer_new accepted NaN");
    fail_if(astar_claims_new(1, 0, W.palloc) != NULL, "claims_new accepted height 0");
    fail_if(astar_search_new(INT32_MIN, 1, W.palloc) != NULL, "search_new accepted a negative width");
    fail_if(astar_field_new(1, 0, W.palloc) != NULL, "field_new accepted height 0");
    fail_if(W.heap.requests != requests, "a rejected constructor allocated");
    fail_if(strcmp(astar_status_name((astar_status)99), "unknown status") != 0,
            "an unknown status has a name");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size};
    W.w = 1 + rd8(&r) % MAX_W;
    W.h = 1 + rd8(&r) % MAX_W;
    W.cells = W.w * W.h;
    W.diagonal = (astar_diagonal)(rd8(&r) % 5);
    uint8_t mode = rd8(&r) % 4, index = rd8(&r);
    W.eager_min = rd8(&r) & 1;
    fuzz_heap_reset(&W.heap, mode == 1 || mode == 2 ? (uint64_t)index + 1 : 0, mode == 2);
    W.alloc = (astar_alloc){fuzz_alloc_fn, &W.heap};
    static const astar_alloc malloc_alloc = {NULL, NULL};
    W.palloc = mode != 3 ? &W.alloc : (index & 1) ? &malloc_alloc : NULL;
    check_bad_constructors();

    W.grid = astar_grid_new(W.w, W.h, W.diagonal, W.palloc);
    if (!W.grid) {
        fail_if(W.heap.failures == 0, "grid_new returned NULL without an allocation failure");
        fuzz_heap_check_empty(&W.heap);
        return 0;
    }
    for (int32_t i = 0; i < W.cells; i++) W.cost[i] = 1.0;
    W.search = astar_search_new(W.w, W.h, W.palloc);
    fail_if(!W.search && W.heap.failures == 0, "search_new returned NULL without an allocation failure");
    uint64_t failures = W.heap.failures;
    W.mask = astar_mask_new(W.w, W.h, W.palloc);
    fail_if(!W.mask && W.heap.failures == failures, "mask_new returned NULL without an allocation failure");
    memset(W.known, 0, sizeof W.known);
    other_search = NULL;
    field = other_field = NULL;
    for (int s = 0; s < LAYER_SLOTS; s++) W.layer[s] = NULL;
    W.claims = W.claims_other = NULL;
    W.nunits = 0;
    W.last_len = 0;
    W.landmark_builds = 0;
    check_grid();
    /* Making the grid, workspace and mask costs about 6 units a cell; on the largest grids
     * what is left is the floor, a few cheap operations and a query. */
    W.work = WORK_BUDGET - 6 * (int64_t)W.cells;
    if (W.work < WORK_FLOOR) W.work = WORK_FLOOR;
    W.allowance = W.work;

    int ops = 0;
    for (; ops < MAX_OPS && r.n > 0 && W.work > 0; ops++) {
        size_t at = size - r.n;
        uint8_t op = rd8(&r);
        spend(16); /* an operation's own calls and checks, on any grid */
        run_op(&r, op);
        if (tracing())
            fprintf(stderr, "op %d: bytes %zu..%zu (%u), work left %lld\n", ops, at, size - r.n - 1, op,
                    (long long)W.work);
    }

    if (tracing())
        fprintf(stderr, "%d operations, work %lld of %lld%s\n", ops, (long long)(W.allowance - W.work),
                (long long)W.allowance, r.n > 0 ? " (bytes left)" : "");
    check_grid();
    fail_if(astar_grid_min_cost(W.grid) != shadow_min_cost(), "min_cost differs from the model");
    for (int s = 0; s < LAYER_SLOTS; s++) astar_layer_free(W.layer[s]);
    drop_claims();
    astar_search_free(W.search);
    astar_search_free(other_search);
    astar_field_free(field);
    astar_field_free(other_field);
    field = other_field = NULL;
    astar_mask_free(W.mask);
    W.mask = NULL;
    astar_grid_free(W.grid);
    W.search = other_search = NULL;
    W.grid = NULL;
    fuzz_heap_check_empty(&W.heap);
    return 0;
}
