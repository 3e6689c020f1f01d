/*
 * The progress handler (astar_set_progress_handler, astar.h): every long loop of the core,
 * under a handler that says stop at its k-th call, for k = 1, 2, 3, 5, 8, ... until the call
 * gets through: each stopped call returned ASTAR_ESTOPPED and left its objects as they were
 * (compared with snapshots taken before), the search or build in slices went on from where it
 * stood, and once through the answer is the one a call without a handler gives. A handler
 * that never stops changes no answer; the units counted are the ones astar.h names; the
 * threads of find_many and of builds stop too (this file runs under TSan in CI), and nothing
 * leaks (ASan, valgrind; the counting allocator).
 */
#include <string.h>

#include "check.h"

/* ------------------------------------------------------------ handlers */

typedef struct stopper {
    long calls, stop_at; /* says stop at its stop_at-th call and at every call after */
} stopper;

static stopper the_stopper;

static int stop_fn(void *ud) {
    stopper *s = ud;
    return ++s->calls >= s->stop_at;
}

static void stop_at(uint32_t every, long k) {
    the_stopper.calls = 0;
    the_stopper.stop_at = k;
    astar_set_progress_handler(every, stop_fn, &the_stopper);
}

static void no_handler(void) { astar_set_progress_handler(0, NULL, NULL); }

/* Never stops; counts its calls. */
static long counted;
static int count_fn(void *ud) {
    (void)ud;
    counted++;
    return 0;
}

/* The k of the tries: 1, 2, 3, 5, 8, 13, ... (the calls a loop makes grow with its work). */
static long next_k(long k) { return k < 3 ? k + 1 : k + k / 2; }

/*
 * op() under a handler stopping at its k-th call (every units apart), k = 1, 2, 3, 5, ... while
 * it stops; after each stop, unchanged() checks what op must not have changed (it may also put
 * back what a stop may leave for op to take up). Returns how many times op was stopped; op's
 * last, unstopped, run is the caller's to check.
 */
typedef struct trial {
    astar_status (*op)(void *ctx);
    void (*unchanged)(void *ctx);
    void *ctx;
} trial;

static int stops(uint32_t every, trial t) {
    int stopped = 0;
    for (long k = 1;; k = next_k(k)) {
        stop_at(every, k);
        astar_status st = t.op(t.ctx);
        no_handler();
        if (st != ASTAR_ESTOPPED) break;
        CHECK(the_stopper.calls == k); /* stopped where it was told, and asked no further */
        stopped++;
        if (t.unchanged) t.unchanged(t.ctx);
        if (k > 1000000) { /* it never gets through */
            CHECK(!"a call that never gets through");
            break;
        }
    }
    return stopped;
}

/* -------------------------------------------------------------- worlds */

static int32_t rnd_below(int32_t n) { return (int32_t)(rnd() % (uint32_t)n); }

/* Open ground, swamps (cost 3) and walls; the same world for the same seed. */
static astar_grid *world(int32_t w, int32_t h, astar_diagonal mode, uint64_t seed, const astar_alloc *a) {
    rng_state = seed;
    astar_grid *g = astar_grid_new(w, h, mode, a);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            int r = rnd_below(100);
            astar_grid_set_cost(g, x, y, r < 15 ? INFINITY : r < 30 ? 3.0 : 1.0);
        }
    astar_grid_set_cost(g, 0, 0, 1.0);
    astar_grid_set_cost(g, w - 1, h - 1, 1.0);
    return g;
}

/* The grid's costs, to compare with after a stop. */
typedef struct grid_copy {
    double *cost;
    uint32_t version;
} grid_copy;

static grid_copy copy_grid(const astar_grid *g) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    grid_copy c = {malloc((size_t)w * (size_t)h * sizeof(double)), astar_grid_version(g)};
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) c.cost[(size_t)y * (size_t)w + (size_t)x] = astar_grid_get_cost(g, x, y);
    return c;
}

static bool grid_is(const astar_grid *g, const grid_copy *c) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            if (astar_grid_get_cost(g, x, y) != c->cost[(size_t)y * (size_t)w + (size_t)x]) return false;
    return astar_grid_version(g) == c->version;
}

static bool same_result(const astar_result *a, const astar_result *b) {
    return a->status == b->status && a->expansions == b->expansions && a->length == b->length &&
           (a->cost == b->cost || (isnan(a->cost) && isnan(b->cost)));
}

/* ------------------------------------------------------------- queries */

typedef struct find_ctx {
    astar_search *s;
    astar_grid *g;
    astar_query q;
    astar_result res;
    grid_copy before;
} find_ctx;

static astar_status find_op(void *ud) {
    find_ctx *c = ud;
    return astar_find(c->s, c->g, &c->q, &c->res);
}

static void find_unchanged(void *ud) {
    find_ctx *c = ud;
    int32_t n;
    astar_search_path(c->s, &n);
    CHECK(c->res.status == ASTAR_ESTOPPED && n == 0 && grid_is(c->g, &c->before));
}

static int node_cost(void *ud, int32_t x, int32_t y, double *extra) {
    (void)ud;
    *extra = (double)((x * 7 + y * 3) % 4);
    return ASTAR_CB_PASS;
}

/* astar_find in each of its loops (plain, layered, general, JPS+ and online JPS, hexes), the
 * lazy tables too (a fresh grid each kind): stopped at every k, then the answer of a find
 * without a handler; and a handler that never stops changes nothing. */
static void finds(void) {
    astar_layer *layer = astar_layer_new(64, 48, 0.0, NULL);
    for (int32_t y = 0; y < 48; y++)
        for (int32_t x = 0; x < 64; x++) astar_layer_set(layer, x, y, (double)((x * y) % 5));
    astar_layer_ref ref = {layer, 0.5};
    for (int kind = 0; kind < 6; kind++) {
        find_ctx c = {0};
        astar_diagonal mode = kind == 5 ? ASTAR_DIAG_HEX : ASTAR_DIAG_NO_CORNER_CUT;
        c.g = world(64, 48, mode, 11 + (uint64_t)kind, NULL);
        if (kind == 3 || kind == 4) astar_grid_fill(c.g, 1.0); /* uniform: jump point search */
        astar_grid *twin = world(64, 48, mode, 11 + (uint64_t)kind, NULL); /* the reference */
        if (kind == 3 || kind == 4) astar_grid_fill(twin, 1.0);
        c.s = astar_search_new(64, 48, NULL);
        astar_query_init(&c.q);
        c.q.gx = 63, c.q.gy = 47;
        if (kind == 1) c.q.layers = &ref, c.q.nlayers = 1;
        if (kind == 2) c.q.node_cost = node_cost;
        if (kind == 4) c.q.jps = ASTAR_JPS_ONLINE;
        astar_result want;
        astar_search *fresh = astar_search_new(64, 48, NULL);
        CHECK(astar_find(fresh, twin, &c.q, &want) == ASTAR_OK);
        c.before = copy_grid(c.g);
        CHECK(stops(3, (trial){find_op, find_unchanged, &c}) >= 3);
        CHECK(c.res.status == ASTAR_OK && same_result(&c.res, &want));
        /* A handler that never stops, called at every unit: the same answer. */
        astar_set_progress_handler(1, count_fn, NULL);
        counted = 0;
        CHECK(astar_find(c.s, c.g, &c.q, &c.res) == ASTAR_OK && same_result(&c.res, &want) && counted > 0);
        no_handler();
        free(c.before.cost);
        astar_search_free(c.s);
        astar_search_free(fresh);
        astar_grid_free(c.g);
        astar_grid_free(twin);
    }
    astar_layer_free(layer);
}

/* A search in slices: stopped mid-step, it goes on from there (no restart) with the
 * expansions and answer of a whole find. */
static void jobs(void) {
    astar_grid *g = world(64, 48, ASTAR_DIAG_NO_CORNER_CUT, 5, NULL);
    astar_search *s = astar_search_new(64, 48, NULL), *fresh = astar_search_new(64, 48, NULL);
    astar_query q;
    astar_query_init(&q);
    q.gx = 63, q.gy = 47;
    astar_result want, res;
    CHECK(astar_find(fresh, g, &q, &want) == ASTAR_OK && want.expansions > 100);
    int stopped = 0;
    for (long k = 1; k < 40; k = next_k(k)) {
        CHECK(astar_search_start(s, g, &q, &res) == ASTAR_RUNNING);
        stop_at(5, k);
        astar_status st;
        while ((st = astar_search_step(s, 7, &res)) == ASTAR_RUNNING) {}
        no_handler();
        if (st == ASTAR_ESTOPPED) {
            stopped++;
            CHECK(res.expansions < want.expansions && res.restarts == 0);
            st = astar_search_step(s, UINT64_MAX, &res); /* goes on */
        }
        CHECK(st == ASTAR_OK && same_result(&res, &want) && res.restarts == 0);
    }
    CHECK(stopped >= 5);
    /* A start stopped (by the cost range it recounts: the only cell at the dearest cost left
     * it) started nothing. */
    astar_grid_set_cost(g, 10, 10, INFINITY);
    astar_grid_set_cost(g, 10, 10, 1.0);
    astar_grid_fill(g, 1.0);
    astar_grid_set_cost(g, 3, 3, 9.0);
    astar_grid_set_cost(g, 3, 3, 1.0);
    astar_grid *twin = world(64, 48, ASTAR_DIAG_NO_CORNER_CUT, 5, NULL);
    astar_grid_fill(twin, 1.0);
    q.jps = ASTAR_JPS_OFF; /* as a search in slices runs */
    CHECK(astar_find(fresh, twin, &q, &want) == ASTAR_OK);
    stop_at(1, 1);
    CHECK(astar_search_start(s, g, &q, &res) == ASTAR_ESTOPPED);
    CHECK(astar_search_step(s, 10, &res) == ASTAR_ESTOPPED); /* nothing to step */
    no_handler();
    CHECK(astar_search_start(s, g, &q, &res) == ASTAR_RUNNING);
    CHECK(astar_search_step(s, UINT64_MAX, &res) == ASTAR_OK && same_result(&res, &want));
    astar_search_free(s);
    astar_search_free(fresh);
    astar_grid_free(g);
    astar_grid_free(twin);
}

typedef struct field_ctx {
    astar_field *f;
    astar_search *s;
    astar_grid *g;
    astar_query q;
    int32_t goal;
    double *before;
    astar_result res;
} field_ctx;

static astar_status field_op(void *ud) {
    field_ctx *c = ud;
    return astar_field_build(c->f, c->s, c->g, &c->q, &c->goal, 1, ASTAR_FIELD_TO, &c->res);
}

static bool field_is(const astar_field *f, const double *d) {
    for (int32_t y = 0; y < 48; y++)
        for (int32_t x = 0; x < 64; x++) {
            double v = astar_field_distance(f, x, y);
            if (!(v == d[y * 64 + x])) return false;
        }
    return true;
}

static void field_unchanged(void *ud) {
    field_ctx *c = ud;
    CHECK(field_is(c->f, c->before));
}

/* Distance fields (toward a goal, the plain loop, and with a callback; kept whole, and kept
 * sparse under a small max_cost): a stopped build leaves the field as the last build made it. */
static void fields(void) {
    for (int variant = 0; variant < 4; variant++) {
        int with_cost = variant & 1;
        field_ctx c = {0};
        c.g = world(64, 48, ASTAR_DIAG_NO_CORNER_CUT, 7, NULL);
        c.s = astar_search_new(64, 48, NULL);
        c.f = astar_field_new(64, 48, NULL);
        astar_field *want = astar_field_new(64, 48, NULL);
        astar_query_init(&c.q);
        if (with_cost) c.q.node_cost = node_cost;
        if (variant >= 2) c.q.max_cost = 6.0; /* a few dozen cells of 3072: sparse */
        c.goal = 5;
        astar_result r;
        CHECK(field_op(&c) == ASTAR_OK);
        c.before = malloc(64 * 48 * sizeof(double));
        for (int32_t i = 0; i < 64 * 48; i++) c.before[i] = astar_field_distance(c.f, i % 64, i / 64);
        c.goal = 47 * 64 + 60;
        CHECK(astar_field_build(want, c.s, c.g, &c.q, &c.goal, 1, ASTAR_FIELD_TO, &r) == ASTAR_OK);
        CHECK(!field_is(want, c.before)); /* the new build would change the field */
        CHECK(stops(variant >= 2 ? 2 : 50, (trial){field_op, field_unchanged, &c}) >= 5);
        CHECK(c.res.status == ASTAR_OK && c.res.expansions == r.expansions);
        for (int32_t i = 0; i < 64 * 48; i++) c.before[i] = astar_field_distance(want, i % 64, i / 64);
        CHECK(field_is(c.f, c.before));
        free(c.before);
        astar_field_free(c.f);
        astar_field_free(want);
        astar_search_free(c.s);
        astar_grid_free(c.g);
    }
}

typedef struct repair_ctx {
    astar_search *s;
    astar_grid *g;
    astar_query q;
    int32_t *old;
    int32_t n;
    astar_result res;
    astar_repair_info info;
} repair_ctx;

static astar_status repair_op(void *ud) {
    repair_ctx *c = ud;
    return astar_repair(c->s, c->g, &c->q, c->old, c->n, 0, 0, &c->res, &c->info);
}

/* A path repaired after a wall cut it: stopped, then the repair a handler-less call makes. */
static void repairs(void) {
    repair_ctx c = {0};
    c.g = world(64, 48, ASTAR_DIAG_NO_CORNER_CUT, 9, NULL);
    c.s = astar_search_new(64, 48, NULL);
    astar_query_init(&c.q);
    c.q.gx = 63, c.q.gy = 47;
    astar_result r;
    CHECK(astar_find(c.s, c.g, &c.q, &r) == ASTAR_OK);
    const int32_t *p = astar_search_path(c.s, &c.n);
    c.old = malloc((size_t)c.n * sizeof *c.old);
    memcpy(c.old, p, (size_t)c.n * sizeof *c.old);
    astar_grid_set_cost(c.g, c.old[c.n / 2] % 64, c.old[c.n / 2] / 64, INFINITY);
    astar_result want;
    astar_repair_info wi;
    CHECK(astar_repair(c.s, c.g, &c.q, c.old, c.n, 0, 0, &want, &wi) == ASTAR_OK);
    CHECK(stops(5, (trial){repair_op, NULL, &c}) >= 3);
    CHECK(c.res.status == ASTAR_OK && c.res.cost == want.cost && c.info.rejoin == wi.rejoin);
    double cost[4096];
    stop_at(1, 1);
    CHECK(astar_progress_work(1) == ASTAR_OK); /* from here, any unit would stop */
    CHECK(c.n <= 4096 && astar_path_costs(c.s, c.g, &c.q, c.old, c.n, 0, cost) == ASTAR_OK); /* the path it is
                                                                     given bounds it: not counted */
    no_handler();
    free(c.old);
    astar_search_free(c.s);
    astar_grid_free(c.g);
}

/* ---------------------------------------------------------- lazy tables */

typedef struct lazy_ctx {
    astar_grid *g;
    int which;
    int32_t a, b;
    double d;
} lazy_ctx;

static astar_status lazy_op(void *ud) {
    lazy_ctx *c = ud;
    switch (c->which) {
    case 0: return astar_grid_component(c->g, 30, 20, &c->a);
    case 1: return astar_grid_dead_end(c->g, 30, 20, &c->a, &c->b);
    case 2: return astar_grid_prepare_jumps(c->g, ASTAR_DIAG_DEFAULT);
    default:
        c->d = astar_grid_min_cost(c->g);
        return isnan(c->d) ? ASTAR_ESTOPPED : ASTAR_OK;
    }
}

/* Island labels, dead ends, a JPS+ table and the cost range after a bulk write: a stopped build
 * leaves none (the next call builds it all again), and the one built at last is exact. */
static void lazy_tables(void) {
    for (int which = 0; which < 4; which++) {
        lazy_ctx c = {world(64, 48, ASTAR_DIAG_NO_CORNER_CUT, 13, NULL), which, 0, 0, 0.0};
        astar_grid *twin = world(64, 48, ASTAR_DIAG_NO_CORNER_CUT, 13, NULL);
        lazy_ctx want = {twin, which, 0, 0, 0.0};
        if (which == 2) astar_grid_fill(c.g, 2.0), astar_grid_fill(twin, 2.0);
        if (which == 3) /* the only cell at the dearest cost leaves it: the range needs a pass */
            for (int i = 0; i < 2; i++)
                astar_grid_set_cost(c.g, 5, 5, i ? 1.0 : 9.0), astar_grid_set_cost(twin, 5, 5, i ? 1.0 : 9.0);
        CHECK(lazy_op(&want) == ASTAR_OK);
        grid_copy before = copy_grid(c.g);
        CHECK(stops(64, (trial){lazy_op, NULL, &c}) >= 3);
        CHECK(grid_is(c.g, &before));
        CHECK(c.a == want.a && c.b == want.b && c.d == want.d);
        if (which == 2) CHECK(astar_grid_jump_bytes(c.g) == astar_grid_jump_bytes(twin));
        /* The same answers from the tables built under stops, query by query. */
        astar_search *s = astar_search_new(64, 48, NULL);
        for (int i = 0; i < 30; i++) {
            astar_query q;
            astar_query_init(&q);
            q.sx = rnd_below(64), q.sy = rnd_below(48), q.gx = rnd_below(64), q.gy = rnd_below(48);
            astar_result r1, r2;
            astar_find(s, c.g, &q, &r1);
            astar_find(s, twin, &q, &r2);
            CHECK(same_result(&r1, &r2));
        }
        astar_search_free(s);
        free(before.cost);
        astar_grid_free(c.g);
        astar_grid_free(twin);
    }
}

/* ------------------------------------------------------- bulk writes */

typedef struct bulk_ctx {
    astar_grid *g;
    astar_layer *l, *other;
    astar_mask *m;
    double *costs;
    int which;
    grid_copy grid_before;
    double layer_before[20 * 10];
    int known_before[20 * 10];
} bulk_ctx;

static astar_status bulk_op(void *ud) {
    bulk_ctx *c = ud;
    switch (c->which) {
    case 0: return astar_grid_fill(c->g, 2.0);
    case 1: return astar_grid_set_all(c->g, c->costs);
    case 2: return astar_layer_fill(c->l, 3.0);
    case 3: return astar_layer_stamp(c->l, 5, 5, 30.0, 2.0, ASTAR_FALLOFF_LINEAR);
    case 4: return astar_layer_scale(c->l, 0.5);
    case 5: return astar_layer_add_layer(c->l, c->other, 2.0);
    case 6: return astar_layer_spread(c->l, 0.3, 0.5, c->g);
    case 7: return isnan(astar_layer_max_abs(c->l)) ? ASTAR_ESTOPPED : ASTAR_OK;
    default: return astar_mask_reveal(c->m, 3, 3, 100.0);
    }
}

static void bulk_unchanged(void *ud) {
    bulk_ctx *c = ud;
    CHECK(grid_is(c->g, &c->grid_before));
    for (int32_t i = 0; i < 20 * 10; i++) {
        CHECK(astar_layer_get(c->l, i % 20, i / 20) == c->layer_before[i]);
        CHECK(astar_mask_is_known(c->m, i % 20, i / 20) == c->known_before[i]);
    }
}

/* Writes of a whole grid, layer or mask count their cells before they change any: a stop
 * leaves them as they were, every unit of them asked for (every = 7, so one call asks many
 * times: each stop is at another of them). */
static void bulk_writes(void) {
    for (int which = 0; which < 9; which++) {
        bulk_ctx c = {0};
        c.which = which;
        c.g = world(20, 10, ASTAR_DIAG_NO_CORNER_CUT, 3, NULL);
        c.l = astar_layer_new(20, 10, 1.5, NULL);
        c.other = astar_layer_new(20, 10, -0.25, NULL);
        c.m = astar_mask_new(20, 10, NULL);
        c.costs = malloc(20 * 10 * sizeof(double));
        for (int32_t i = 0; i < 20 * 10; i++) {
            c.costs[i] = 1.0 + i % 3;
            astar_layer_set(c.l, i % 20, i / 20, (double)(i % 7));
        }
        c.grid_before = copy_grid(c.g);
        for (int32_t i = 0; i < 20 * 10; i++) {
            c.layer_before[i] = astar_layer_get(c.l, i % 20, i / 20);
            c.known_before[i] = astar_mask_is_known(c.m, i % 20, i / 20);
        }
        CHECK(stops(7, (trial){bulk_op, bulk_unchanged, &c}) >= 3);
        /* Through at last: it wrote (the reveal, the fill, the stamp...). */
        bool changed = !grid_is(c.g, &c.grid_before);
        for (int32_t i = 0; i < 20 * 10; i++)
            changed = changed || astar_layer_get(c.l, i % 20, i / 20) != c.layer_before[i] ||
                      astar_mask_is_known(c.m, i % 20, i / 20) != c.known_before[i];
        CHECK(changed || which == 7);
        free(c.costs);
        free(c.grid_before.cost);
        astar_grid_free(c.g);
        astar_layer_free(c.l);
        astar_layer_free(c.other);
        astar_mask_free(c.m);
    }
}

/* ------------------------------------------------------- constructors */

static counting allocs;
static const char MAP[] = "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n";

static astar_status construct_op(void *ud) {
    int which = *(int *)ud;
    astar_alloc a = {count_alloc, &allocs};
    void *o = NULL;
    char err[128];
    switch (which) {
    case 0: o = astar_grid_new(30, 20, ASTAR_DIAG_ALWAYS, &a); break;
    case 1: o = astar_layer_new(30, 20, 1.0, &a); break;
    case 2: o = astar_mask_new(30, 20, &a); break;
    case 3: o = astar_claims_new(30, 20, &a); break;
    case 4: o = astar_field_new(30, 20, &a); break;
    case 5: o = astar_search_new(30, 20, &a); break;
    default: o = astar_movingai_parse(MAP, sizeof MAP - 1, &a, err, sizeof err); break;
    }
    astar_status st = astar_last_status();
    CHECK((o != NULL) == (st == ASTAR_OK));
    switch (which) {
    case 0: case 6: astar_grid_free(o); break;
    case 1: astar_layer_free(o); break;
    case 2: astar_mask_free(o); break;
    case 3: astar_claims_free(o); break;
    case 4: astar_field_free(o); break;
    default: astar_search_free(o); break;
    }
    CHECK(allocs.live == 0);
    return st;
}

/* Constructors count their cells before they allocate: a stopped one returns NULL, says so
 * (astar_last_status), and leaves nothing allocated. */
static void constructors(void) {
    for (int which = 0; which < 7; which++) {
        /* A field makes nothing per cell (its build allocates what it reaches): never stopped. */
        int want = which == 4 ? 0 : 3;
        int got = stops(which == 6 ? 5 : 50, (trial){construct_op, NULL, &which});
        CHECK(which == 4 ? got == want : got >= want); /* the map is small */
        CHECK(allocs.live == 0);
    }
    CHECK(astar_grid_new(0, 5, ASTAR_DIAG_NEVER, NULL) == NULL && astar_last_status() == ASTAR_EINVAL);
    stop_at(1, 1);
    astar_graph *graph = astar_graph_new(NULL);
    for (int i = 0; i < 40; i++) {
        int32_t id;
        astar_graph_add_node(graph, i, 0, 0, &id);
    }
    CHECK(astar_graph_claims_new(graph, NULL) == NULL && astar_last_status() == ASTAR_ESTOPPED);
    no_handler();
    astar_claims *gc = astar_graph_claims_new(graph, NULL);
    CHECK(gc != NULL && astar_last_status() == ASTAR_OK);
    astar_claims_free(gc);
    astar_graph_free(graph);
}

/* ------------------------------------------------------------- builds */

typedef struct build_ctx {
    astar_grid *g;
    int which, threads;
    int32_t cells[8], count;
    astar_hierarchy_stats stats;
    astar_build *b;
    double progress; /* the build's, at its last stop: it never goes back (no start over) */
} build_ctx;

static void landmark_cells(const astar_grid *g, int32_t *cells, int32_t *count) {
    *count = astar_grid_landmark_count(g);
    for (int32_t i = 0; i < *count; i++) {
        int32_t x, y;
        astar_grid_landmark(g, i, &x, &y);
        cells[i] = y * astar_grid_width(g) + x;
    }
}

static bool same_stats(const astar_hierarchy_stats *a, const astar_hierarchy_stats *b) {
    return a->cluster_size == b->cluster_size && a->clusters == b->clusters && a->entrances == b->entrances &&
           a->edges == b->edges && a->dirty == b->dirty;
}

static astar_status build_op(void *ud) {
    build_ctx *c = ud;
    switch (c->which) {
    case 0: return astar_grid_landmarks(c->g, 6);
    case 1: return astar_grid_hierarchy(c->g, 6);
    default: return astar_build_step(c->b, UINT64_MAX, NULL); /* a build in slices goes on */
    }
}

static void build_unchanged(void *ud) {
    build_ctx *c = ud;
    int32_t cells[8], count;
    landmark_cells(c->g, cells, &count);
    CHECK(count == c->count && memcmp(cells, c->cells, (size_t)count * sizeof *cells) == 0);
    astar_hierarchy_stats now;
    CHECK(astar_grid_hierarchy_stats(c->g, &now) == ASTAR_OK && same_stats(&now, &c->stats));
    if (c->b) {
        CHECK(astar_build_progress(c->b) >= c->progress);
        c->progress = astar_build_progress(c->b);
    }
}

/* Landmarks and hierarchies, in one call and as builds in slices on 1 and 3 threads: a stop
 * keeps the grid's old tables (and a build its progress), and what is installed at last is
 * what a build without a handler makes. */
static void builds(void) {
    for (int which = 0; which < 4; which++)
        for (int threads = 1; threads <= 3; threads += 2) {
            if (which < 2 && threads > 1) continue;
            build_ctx c = {0};
            c.which = which, c.threads = threads;
            c.g = world(60, 40, ASTAR_DIAG_NO_CORNER_CUT, 17, NULL);
            astar_grid *twin = world(60, 40, ASTAR_DIAG_NO_CORNER_CUT, 17, NULL);
            CHECK(astar_grid_landmarks(c.g, 2) == ASTAR_OK && astar_grid_hierarchy(c.g, 8) == ASTAR_OK);
            landmark_cells(c.g, c.cells, &c.count);
            CHECK(astar_grid_hierarchy_stats(c.g, &c.stats) == ASTAR_OK);
            astar_status st;
            if (which == 2) c.b = astar_build_landmarks(c.g, 6, threads, &st);
            if (which == 3) c.b = astar_build_hierarchy(c.g, 6, threads, &st);
            int stopped = stops(40, (trial){build_op, build_unchanged, &c});
            CHECK(stopped >= 3);
            CHECK(!c.b || c.progress > 0.1); /* it got somewhere between the stops */
            if (c.b) {
                CHECK(astar_build_restarts(c.b) == 0); /* it went on, never over */
                astar_build_free(c.b);
            }
            CHECK(astar_grid_landmarks(twin, which % 2 == 0 ? 6 : 2) == ASTAR_OK);
            CHECK(astar_grid_hierarchy(twin, which % 2 == 1 ? 6 : 8) == ASTAR_OK);
            int32_t cells[8], count;
            landmark_cells(twin, cells, &count);
            build_ctx want = {0};
            want.g = c.g;
            memcpy(want.cells, cells, sizeof cells);
            want.count = count;
            astar_grid_hierarchy_stats(twin, &want.stats);
            build_unchanged(&want); /* the tables of the grid built under stops are the twin's */
            astar_grid_free(c.g);
            astar_grid_free(twin);
        }
}

typedef struct tier_ctx {
    astar_grid *g;
    astar_search *s;
    astar_query q;
    astar_result res;
    int which;
} tier_ctx;

static astar_status tier_op(void *ud) {
    tier_ctx *c = ud;
    if (c->which == 0) return astar_find_hierarchical(c->s, c->g, &c->q, &c->res);
    return astar_grid_prepare_hierarchy(c->g, 8); /* rebuilds the dirty clusters */
}

/* A two-tier query that first rebuilds dirty clusters; the dirty clusters rebuilt by
 * astar_grid_prepare_hierarchy: stopped, then what they give without a handler. The hierarchy's figures read no tables (they are
 * kept as clusters change): nothing to count. */
static void two_tier(void) {
    for (int which = 0; which < 2; which++) {
        tier_ctx c = {0};
        c.which = which;
        c.g = world(60, 40, ASTAR_DIAG_NO_CORNER_CUT, 19, NULL);
        astar_grid *twin = world(60, 40, ASTAR_DIAG_NO_CORNER_CUT, 19, NULL);
        CHECK(astar_grid_hierarchy(c.g, 8) == ASTAR_OK && astar_grid_hierarchy(twin, 8) == ASTAR_OK);
        for (int32_t x = 0; x < 60; x += 3) { /* dirty clusters everywhere */
            astar_grid_set_cost(c.g, x, 20, 2.0);
            astar_grid_set_cost(twin, x, 20, 2.0);
        }
        c.s = astar_search_new(60, 40, NULL);
        astar_query_init(&c.q);
        c.q.gx = 59, c.q.gy = 39;
        astar_result want;
        CHECK(astar_find_hierarchical(c.s, twin, &c.q, &want) == ASTAR_OK);
        astar_hierarchy_stats before, after;
        astar_grid_hierarchy_stats(c.g, &before);
        CHECK(stops(20, (trial){tier_op, NULL, &c}) >= 3);
        if (which == 0) CHECK(same_result(&c.res, &want));
        stop_at(1, 1);
        CHECK(astar_progress_work(1) == ASTAR_OK); /* any unit now stops */
        CHECK(astar_grid_hierarchy_stats(c.g, &after) == ASTAR_OK);
        no_handler();
        CHECK(before.dirty > 0 && after.dirty == 0);
        { /* the sums kept cluster by cluster: those of a build from nothing */
            astar_grid *fresh = world(60, 40, ASTAR_DIAG_NO_CORNER_CUT, 19, NULL);
            for (int32_t x = 0; x < 60; x += 3) astar_grid_set_cost(fresh, x, 20, 2.0);
            CHECK(astar_grid_hierarchy(fresh, 8) == ASTAR_OK);
            astar_hierarchy_stats want_stats;
            astar_grid_hierarchy_stats(fresh, &want_stats);
            CHECK(same_stats(&after, &want_stats) && after.entrances > 0 && after.edges > after.entrances);
            astar_grid_free(fresh);
        }
        astar_search_free(c.s);
        astar_grid_free(c.g);
        astar_grid_free(twin);
    }
}

/* ------------------------------------------------------------ threads */

typedef struct many_ctx {
    astar_many *m;
    astar_grid *g;
    astar_query q;
    int32_t e[4 * 40];
    astar_result res[40];
    int threads;
} many_ctx;

static astar_status many_op(void *ud) {
    many_ctx *c = ud;
    return astar_find_many(c->m, c->g, &c->q, c->e, 40, c->threads, c->res);
}

/* find_many on 1 and 4 threads: stopped (the workers' leases ask the caller's handler), then
 * the answers of sequential finds; with a handler that never stops, the leases give back what
 * they did not use: the units counted are the expansions made, exactly. */
static void many(void) {
    for (int threads = 1; threads <= 4; threads += 3) {
        many_ctx c = {0};
        c.threads = threads;
        c.g = world(64, 48, ASTAR_DIAG_NO_CORNER_CUT, 23, NULL);
        c.m = astar_many_new(64, 48, NULL);
        astar_query_init(&c.q);
        c.q.jps = ASTAR_JPS_OFF;
        for (int i = 0; i < 40; i++)
            c.e[4 * i] = rnd_below(64), c.e[4 * i + 1] = rnd_below(48), c.e[4 * i + 2] = rnd_below(64),
            c.e[4 * i + 3] = rnd_below(48);
        astar_search *s = astar_search_new(64, 48, NULL);
        astar_result want[40];
        uint64_t total = 0;
        for (int i = 0; i < 40; i++) {
            astar_query q = c.q;
            q.sx = c.e[4 * i], q.sy = c.e[4 * i + 1], q.gx = c.e[4 * i + 2], q.gy = c.e[4 * i + 3];
            astar_find(s, c.g, &q, &want[i]);
            total += want[i].expansions;
        }
        CHECK(stops(ASTAR_PROGRESS_LEASE, (trial){many_op, NULL, &c}) >= 3);
        for (int i = 0; i < 40; i++) CHECK(same_result(&c.res[i], &want[i]));
        astar_set_progress_handler(UINT32_MAX, count_fn, NULL);
        counted = 0;
        CHECK(many_op(&c) == ASTAR_OK && counted == 0);
        CHECK(astar_progress_left() == UINT32_MAX - total);
        no_handler();
        for (int i = 0; i < 40; i++) CHECK(same_result(&c.res[i], &want[i]));
        astar_search_free(s);
        astar_many_free(c.m);
        astar_grid_free(c.g);
    }
}

/* -------------------------------------------------------------- graph */

typedef struct graph_ctx {
    astar_graph *g;
    astar_graph_search *s;
    astar_graph_query q;
    astar_result res;
    uint32_t version;
} graph_ctx;

static astar_status graph_op(void *ud) {
    graph_ctx *c = ud;
    return astar_graph_find(c->s, c->g, &c->q, &c->res);
}

static void graph_unchanged(void *ud) {
    graph_ctx *c = ud;
    CHECK(astar_graph_version(c->g) == c->version);
}

/* A mesh of 20 x 20 nodes with a few edges missing, and a diagonal shortcut. */
static astar_graph *mesh(void) {
    astar_graph *g = astar_graph_new(NULL);
    for (int32_t i = 0; i < 400; i++) {
        int32_t id;
        astar_graph_add_node(g, i % 20, i / 20, 0, &id);
        if (i % 20) astar_graph_add_edge(g, i - 1, i, ASTAR_GRAPH_LENGTH);
        if (i >= 20 && i % 7) astar_graph_add_edge(g, i - 20, i, ASTAR_GRAPH_LENGTH);
    }
    astar_graph_add_edge(g, 0, 21, 1.0);
    return g;
}

/* A graph's search, and the packing of its arcs a change makes the next one do: stopped in
 * either, then what a twin graph answers. */
static void graphs(void) {
    graph_ctx c = {0};
    c.g = mesh();
    astar_graph *twin = mesh();
    c.s = astar_graph_search_new(NULL);
    astar_graph_query_init(&c.q);
    c.q.goal = 399;
    CHECK(graph_op(&c) == ASTAR_OK);
    astar_graph_add_edge(c.g, 0, 21, 5.0); /* stale: the next find packs */
    astar_graph_add_edge(twin, 0, 21, 5.0);
    c.version = astar_graph_version(c.g);
    CHECK(stops(30, (trial){graph_op, graph_unchanged, &c}) >= 3);
    astar_result want;
    CHECK(astar_graph_find(c.s, twin, &c.q, &want) == ASTAR_OK && same_result(&c.res, &want));
    astar_graph_search_free(c.s);
    astar_graph_free(c.g);
    astar_graph_free(twin);
}

/* ------------------------------------------------------- claims, units */

/* A query's claims view with a radius reads every unit's claim: counted, and stoppable. */
static void claims_views(void) {
    find_ctx c = {0};
    c.g = world(64, 48, ASTAR_DIAG_NO_CORNER_CUT, 29, NULL);
    c.s = astar_search_new(64, 48, NULL);
    astar_claims *cl = astar_claims_new(64, 48, NULL);
    int32_t path[64];
    for (int32_t u = 0; u < 30; u++) {
        int32_t slot = astar_claims_unit_new(cl);
        for (int32_t i = 0; i < 64; i++) path[i] = (u + 10) * 64 + i;
        astar_claims_set(cl, slot, path, 64);
    }
    astar_query_init(&c.q);
    c.q.gx = 63, c.q.gy = 47;
    c.q.claims = cl;
    c.q.claim_radius = 100;
    c.q.jps = ASTAR_JPS_OFF;
    astar_result want;
    CHECK(astar_find(c.s, c.g, &c.q, &want) == ASTAR_OK);
    astar_set_progress_handler(UINT32_MAX, count_fn, NULL);
    CHECK(find_op(&c) == ASTAR_OK);
    CHECK(astar_progress_left() == UINT32_MAX - want.expansions - 30 * 64); /* plus each claim cell */
    c.before = copy_grid(c.g);
    CHECK(stops(200, (trial){find_op, find_unchanged, &c}) >= 3);
    CHECK(same_result(&c.res, &want));
    c.q.claim_window = 3; /* claims in time: their chains, read the same way */
    CHECK(astar_find(c.s, c.g, &c.q, &want) == ASTAR_OK);
    CHECK(stops(200, (trial){find_op, find_unchanged, &c}) >= 3);
    CHECK(same_result(&c.res, &want));
    free(c.before.cost);
    astar_claims_free(cl);
    astar_search_free(c.s);
    astar_grid_free(c.g);
}

/* The units astar.h names, read off astar_progress_left under a handler that is never due. */
static void units(void) {
    astar_grid *g = world(50, 30, ASTAR_DIAG_NO_CORNER_CUT, 31, NULL);
    astar_search *s = astar_search_new(50, 30, NULL);
    astar_field *f = astar_field_new(50, 30, NULL);
    astar_query q;
    astar_query_init(&q);
    q.gx = 49, q.gy = 29;
    q.jps = ASTAR_JPS_OFF;
    astar_result r;
    CHECK(astar_find(s, g, &q, &r) == ASTAR_OK); /* the lazy tables, before the count */
    CHECK(astar_progress_left() == UINT64_MAX);  /* no handler */
    astar_set_progress_handler(UINT32_MAX, count_fn, NULL);
    uint64_t left = astar_progress_left();
    CHECK(left == UINT32_MAX);
    CHECK(astar_find(s, g, &q, &r) == ASTAR_OK);
    CHECK(left - astar_progress_left() == r.expansions); /* a node expanded */
    left = astar_progress_left();
    CHECK(astar_grid_fill(g, 1.0) == ASTAR_OK);
    CHECK(left - astar_progress_left() == 50 * 30 + 2 * 3 * 52 * 32); /* a cell written, and the island
                          labels and dead-end areas built again: three per cell with the border each */
    left = astar_progress_left();
    int32_t goal = 7;
    q.jps = ASTAR_JPS_AUTO;
    CHECK(astar_field_build(f, s, g, &q, &goal, 1, ASTAR_FIELD_FROM, &r) == ASTAR_OK);
    CHECK(left - astar_progress_left() == r.expansions + 50 * 30); /* and a cell of the field */
    left = astar_progress_left();
    int32_t ids[50 * 30];
    double dist[50 * 30];
    CHECK(astar_field_list(f, ids, dist) == ASTAR_OK);
    CHECK(left - astar_progress_left() == 50 * 30); /* a whole field: every cell read */
    q.max_cost = 2.0; /* a small field keeps what it reached: a unit per cell kept */
    left = astar_progress_left();
    CHECK(astar_field_build(f, s, g, &q, &goal, 1, ASTAR_FIELD_FROM, &r) == ASTAR_OK);
    int32_t reached = astar_field_reached(f);
    CHECK(reached > 1 && r.expansions < 50 * 30 / 64); /* field.c's DENSE_SHARE */
    CHECK(left - astar_progress_left() == r.expansions + (uint64_t)reached);
    left = astar_progress_left();
    CHECK(astar_field_list(f, ids, dist) == ASTAR_OK);
    CHECK(left - astar_progress_left() == (uint64_t)reached);
    for (int32_t i = 0; i < reached; i++) { /* node id order, each with its distance */
        CHECK(i == 0 || ids[i - 1] < ids[i]);
        CHECK(dist[i] == astar_field_distance(f, ids[i] % 50, ids[i] / 50) && dist[i] <= 2.0);
    }
    q.max_cost = INFINITY;
    left = astar_progress_left();
    astar_grid *fresh = astar_grid_new(10, 5, ASTAR_DIAG_NEVER, NULL);
    CHECK(left - astar_progress_left() == 12 * 7); /* a cell with its border */
    /* astar_progress_work counts as the core does; fn is asked at the boundaries. */
    astar_set_progress_handler(10, count_fn, NULL);
    counted = 0;
    CHECK(astar_progress_work(25) == ASTAR_OK && counted == 2 && astar_progress_left() == 5);
    CHECK(astar_progress_work(5) == ASTAR_OK && counted == 2 && astar_progress_left() == 0);
    CHECK(astar_progress_work(1) == ASTAR_OK && counted == 3 && astar_progress_left() == 9);
    stop_at(4, 1);
    CHECK(astar_progress_work(4) == ASTAR_OK && astar_progress_work(1) == ASTAR_ESTOPPED);
    CHECK(astar_progress_work(1) == ASTAR_ESTOPPED && the_stopper.calls == 2); /* asked again */
    no_handler();
    CHECK(astar_progress_work(1000) == ASTAR_OK);
    astar_grid_free(fresh);
    astar_field_free(f);
    astar_search_free(s);
    astar_grid_free(g);
}

/* fn may install the next handler from inside (a new every, as the Lua work limit does): the
 * call goes on under it; a handler removed from inside stops nothing after. */
static int windows_left;
static int window_fn(void *ud) {
    (void)ud;
    if (windows_left-- <= 0) return 1;
    astar_set_progress_handler(3, window_fn, NULL);
    return 0;
}
static int remove_fn(void *ud) {
    (void)ud;
    astar_set_progress_handler(0, NULL, NULL);
    return 0;
}

static void reinstalled(void) {
    astar_set_progress_handler(10, window_fn, NULL);
    windows_left = 2;
    CHECK(astar_progress_work(10 + 3 + 3) == ASTAR_OK && astar_progress_left() == 0);
    CHECK(astar_progress_work(1) == ASTAR_ESTOPPED);
    astar_set_progress_handler(2, remove_fn, NULL);
    CHECK(astar_progress_work(1000) == ASTAR_OK && astar_progress_left() == UINT64_MAX);
    astar_set_progress_handler(5, window_fn, NULL);
    windows_left = 0;
    CHECK(astar_progress_work(5) == ASTAR_OK && astar_progress_work(1) == ASTAR_ESTOPPED);
    no_handler();
}

/* Each thread has its own handler: one installed here does not reach a thread started here
 * (but by find_many's own workers, as its lease). */
static void other_thread(void *arg) {
    (void)arg;
    astar_grid *g = astar_grid_new(100, 100, ASTAR_DIAG_NEVER, NULL); /* 10404 units */
    CHECK(g != NULL && astar_progress_left() == UINT64_MAX);
    astar_grid_free(g);
}

#include "threads.h" /* the core's own: POSIX or Win32 */

static void per_thread(void) {
    stop_at(1, 1);
    CHECK(astar_grid_new(100, 100, ASTAR_DIAG_NEVER, NULL) == NULL);
    astar_thread t;
    CHECK(astar_thread_start(&t, other_thread, NULL));
    astar_thread_join(&t);
    no_handler();
}

int main(void) {
    finds();
    jobs();
    fields();
    repairs();
    lazy_tables();
    bulk_writes();
    constructors();
    builds();
    two_tier();
    many();
    graphs();
    claims_views();
    units();
    reinstalled();
    per_thread();
    return check_summary();
}
