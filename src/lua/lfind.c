/*
 * lfind.c -- paths on a grid: grid:find, grid:find_nearest and grid:find_many, and what every
 * grid query (these, a job's, a field's) shares: its resolve (resolve_grid_query) and its
 * run on the grid's pool (run_grid_query).
 */
#include <math.h>
#include <string.h>

#include "lbinding.h"

/* Is heuristic h admissible under the diagonal mode? A step to a diagonal hex neighbour is 1,
 * a square diagonal sqrt 2 or 2 (manhattan): each family overestimates on the other. */
static bool admissible(astar_heuristic h, astar_diagonal mode) {
    if (h == ASTAR_H_ZERO || h == ASTAR_H_CHEBYSHEV) return true;
    if (mode == ASTAR_DIAG_HEX) return h == ASTAR_H_HEX;
    if (h == ASTAR_H_HEX) return false;
    return h != ASTAR_H_MANHATTAN || mode == ASTAR_DIAG_NEVER;
}

/*
 * Resolves a grid query: the grid (c->grid, open), then what the options read into a name:
 * layers, claims and the unit's slot, the mask, the heuristic and the callbacks, into c->q
 * and c->run, and where the answer goes (find, find_nearest). Runs no Lua code.
 */
void resolve_grid_query(lua_State *L, find_ctx *c, const query_args *a) {
    lgrid *g = c->grid;
    if (g->base.freed) freed_error(L, GRID_MT);
    astar_query *q = &c->q;
    int arg = a->arg;
    astar_diagonal grid_mode = astar_grid_diagonal(g->grid);
    if (a->slot[O_DIAGONAL] && grid_mode == ASTAR_DIAG_HEX)
        arg_error_fmt(L, arg, "option 'diagonal' does not apply to a hex grid");
    if (a->slot[O_HEURISTIC] && a->heuristic != ASTAR_H_CUSTOM) {
        astar_diagonal mode = q->diagonal == ASTAR_DIAG_DEFAULT ? grid_mode : q->diagonal;
        if (!admissible(a->heuristic, mode))
            arg_error_fmt(L, arg, "option 'heuristic' \"%s\" is not admissible on %s grid (use %s)",
                          HEURISTIC_NAMES[a->heuristic],
                          mode == ASTAR_DIAG_HEX ? "a hex" : mode == ASTAR_DIAG_NEVER ? "a 4-connected" : "an 8-connected",
                          mode == ASTAR_DIAG_HEX ? "\"hex\", \"chebyshev\", \"zero\" or a function"
                          : mode == ASTAR_DIAG_NEVER ? "\"manhattan\", \"octile\", \"euclidean\", \"chebyshev\" or \"zero\""
                          : "\"octile\", \"euclidean\", \"chebyshev\", \"zero\" or a function; \"weight\" trades optimality for speed");
    }
    if (a->slot[O_HEURISTIC]) q->heuristic = a->heuristic;
    for (int i = 0; i < a->nlayers; i++) {
        llayer *l = test_object(L, a->layer_slot[i], LAYER_MT);
        if (!l || l->base.freed) resolve_object(L, arg, a->layer_slot[i], LAYER_MT, influence_name(L, a, i));
        if (l->base.width != g->base.width || l->base.height != g->base.height)
            arg_error_fmt(L, arg, "%s is %dx%d but the grid is %dx%d", influence_name(L, a, i), (int)l->base.width,
                          (int)l->base.height, (int)g->base.width, (int)g->base.height);
        c->layers[i].layer = l->layer;
        c->layers[i].weight = a->layer_weight[i];
        mark_read(&c->run, &l->base);
    }
    q->layers = c->layers;
    q->nlayers = a->nlayers;
    if (a->slot[O_CLAIMS]) {
        lclaims *cl = (lclaims *)resolve_object(L, arg, a->slot[O_CLAIMS], CLAIMS_MT, "option 'claims'");
        if (cl->base.width != g->base.width || cl->base.height != g->base.height)
            arg_error_fmt(L, arg, "option 'claims' is for a %dx%d grid but this grid is %dx%d",
                          (int)cl->base.width, (int)cl->base.height, (int)g->base.width,
                          (int)g->base.height);
        q->claims = cl->claims;
        q->unit = a->slot[O_UNIT] ? unit_slot(L, a->slot[O_CLAIMS], a->slot[O_UNIT]) : -1;
        mark_read(&c->run, &cl->base);
    }
    if (a->slot[O_KNOWN]) {
        lmask *m = (lmask *)resolve_object(L, arg, a->slot[O_KNOWN], MASK_MT, "option 'known'");
        if (m->base.width != g->base.width || m->base.height != g->base.height)
            arg_error_fmt(L, arg, "option 'known' is %dx%d but the grid is %dx%d", (int)m->base.width,
                          (int)m->base.height, (int)g->base.width, (int)g->base.height);
        q->known = m->mask;
        mark_read(&c->run, &m->base);
    }
    if (a->ninterests > 0) { /* the places read against the grid, no Lua code run */
        for (int32_t i = 0; i < a->ninterests; i++) {
            double x = a->interest_place[2 * i], y = a->interest_place[2 * i + 1];
            if (x > g->base.width || y > g->base.height)
                arg_error_fmt(L, arg, "option 'interests'[%d] is not a cell of the %dx%d grid", (int)i + 1,
                              (int)g->base.width, (int)g->base.height);
            a->interest_ids[i] = ((int32_t)y - 1) * g->base.width + ((int32_t)x - 1);
        }
        q->interests = a->interest_ids;
        q->interest_values = a->interest_values;
        q->ninterests = a->ninterests;
    }
    q->classes = a->class_factor;
    resolve_grid_callbacks(&c->run, q, a);
    resolve_answer(&c->run, a);
    mark_read(&c->run, &g->base);
}

/* run_query of a grid query. */
int run_grid_query(lua_State *L, find_ctx *c) {
    return run_query(L, &c->run, &c->grid->pool, &c->grid->base);
}

/* A query c of the grid at 1 (open or not: it is resolved after the options). */
lgrid *begin_grid_query(lua_State *L, find_ctx *c) {
    lgrid *g = check_object(L, 1, GRID_MT);
    memset(c, 0, sizeof *c);
    c->grid = g;
    astar_query_init(&c->q);
    return g;
}

/* begin_grid_query, and the start at 2, 3. */
void start_query(lua_State *L, find_ctx *c) {
    const lgrid *g = begin_grid_query(L, c);
    check_xy(L, 2, &g->base, &c->q.sx, &c->q.sy);
}

/* The targets at arg of a query c for the nearest of them (find_nearest, search_nearest), as
 * node ids in a userdata left on the stack: its slot. */
int read_targets(lua_State *L, find_ctx *c, int arg) {
    const lgrid *g = c->grid;
    int32_t n;
    int32_t *ids = read_points(L, arg, g->base.width, g->base.height, "target", "targets", &n);
    c->q.targets = ids;
    c->q.ntargets = n;
    c->q.gx = ids[0] % g->base.width; /* ignored by the search, checked like a goal */
    c->q.gy = ids[0] / g->base.width;
    return lua_gettop(L);
}

/* Option 'hierarchical' as read_options found it (a boolean; false when not given). */
bool read_hierarchical(lua_State *L, const query_args *a) {
    int tiered = a->slot[O_HIERARCHICAL];
    if (tiered && lua_type(L, tiered) != LUA_TBOOLEAN)
        arg_error_fmt(L, a->arg, "option 'hierarchical' must be a boolean, got %s", type_name(L, tiered));
    return tiered && lua_toboolean(L, tiered);
}

/*
 * The checks of a two-tier find (hierarchical = true) against the grid's hierarchy, or the
 * one the query will build (HIERARCHY_DEFAULT_SIZE) when there is none.
 */
void resolve_hierarchical(lua_State *L, find_ctx *c) {
    astar_grid *grid = c->grid->grid;
    astar_hierarchy_stats hs;
    astar_grid_hierarchy_stats(grid, &hs);
    astar_diagonal built = hs.cluster_size ? hs.diagonal : astar_grid_diagonal(grid);
    astar_diagonal mode = c->q.diagonal == ASTAR_DIAG_DEFAULT ? astar_grid_diagonal(grid) : c->q.diagonal;
    if (built == ASTAR_DIAG_ALWAYS || built == ASTAR_DIAG_HEX)
        arg_error_fmt(L, 6, "option 'hierarchical' needs a grid whose diagonal mode is \"never\", "
                            "\"one_walkable\" or \"no_corner_cut\" (this one's is \"%s\": %s)",
                      built == ASTAR_DIAG_HEX ? "hex" : "always",
                      "its moves cross cluster corners, which the entrances do not model");
    if (mode != built)
        arg_error_fmt(L, 6, "option 'hierarchical': the grid's hierarchy was built for diagonal \"%s\", "
                            "this query moves under \"%s\" (build it again with grid:hierarchy)",
                      built == ASTAR_DIAG_HEX ? "hex" : DIAGONAL_NAMES[built],
                      mode == ASTAR_DIAG_HEX ? "hex" : DIAGONAL_NAMES[mode]);
    if (c->q.ninterests > 0)
        arg_error_fmt(L, 6, "option 'hierarchical' cannot be used with 'interests' (the abstract "
                            "graph weighs no detours to collect a value)");
    c->hierarchical = true;
}

/* What find runs for the resolved query c on its workspace (a job's first step too). */
astar_status find_engine(find_ctx *c, astar_result *res) {
    /* A two-tier query keeps its scratch on the grid's hierarchy: inside a callback of another
     * query of this grid (which may be a two-tier one, its scratch in use), the whole grid. */
    bool nested = c->grid->base.readers > 1;
    astar_status st;
    if (c->hierarchical && !nested) {
        astar_hierarchy_stats hs;
        astar_grid_hierarchy_stats(c->grid->grid, &hs);
        st = hs.cluster_size ? ASTAR_OK : astar_grid_hierarchy(c->grid->grid, HIERARCHY_DEFAULT_SIZE);
        if (st == ASTAR_OK) st = astar_find_hierarchical(c->run.ws->search, c->grid->grid, &c->q, res);
        else memset(res, 0, sizeof *res); /* check_answer raises on st */
    } else if (c->hierarchical) {
        st = astar_find(c->run.ws->search, c->grid->grid, &c->q, res);
        res->tiered = 1;
        res->fallback = 1;
    } else {
        st = astar_find(c->run.ws->search, c->grid->grid, &c->q, res);
    }
    return st;
}

/* Runs inside lua_pcall: the search, then the result tables. */
int find_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->run.L = L;
    astar_result res;
    astar_status st = find_engine(c, &res);
    check_answer(L, st, "find");
    int32_t n = 0;
    const int32_t *ids = astar_search_path(c->run.ws->search, &n);
    push_answer(L, &res, ids, n, c->grid->base.width, astar_grid_version(c->grid->grid), &c->run.answer);
    return 2;
}

/* find (to the goal at 4, 5) or find_nearest (to the nearest of the targets at 4): the
 * start, the goal or targets, the options (at 6 or 5), then the resolve and the run. */
static int find_path(lua_State *L, bool nearest) {
    find_ctx ctx; /* lives on the C stack for the whole pcall: nothing allocated per query */
    find_ctx *c = &ctx;
    int opts = nearest ? 5 : 6;
    start_query(L, c);
    if (!nearest) check_xy(L, 4, &c->grid->base, &c->q.gx, &c->q.gy);
    lua_settop(L, opts);
    if (nearest) read_targets(L, c, 4);
    query_args a;
    read_options(L, opts, nearest ? IN_NEAREST : IN_FIND, nearest ? "find_nearest" : "find", &a, &c->q);
    bool tiered = !nearest && read_hierarchical(L, &a);
    resolve_grid_query(L, c, &a);
    if (tiered) resolve_hierarchical(L, c);
    return run_grid_query(L, c);
}

/* grid:find(sx, sy, gx, gy [, opts]) -> path, info | nil, info */
int grid_find(lua_State *L) { return find_path(L, false); }

/*
 * grid:find_nearest(sx, sy, targets [, opts]) -> path, info | nil, info: one search
 * for the nearest of many goals; info.target is the index of the one reached.
 */
int grid_find_nearest(lua_State *L) { return find_path(L, true); }

/* ------------------------------------------------------------ find_many */

/* { path = ..., info = ... } from the path (or nil) and info on the stack top; set as list[i]. */
static void set_many_entry(lua_State *L, int list, int32_t i) {
    lua_createtable(L, 0, 2);
    lua_insert(L, -3);
    lua_setfield(L, -3, "info");
    lua_setfield(L, -2, "path");
    lua_rawseti(L, list, i + 1);
}

/*
 * Runs inside lua_pcall. Lua callbacks can only run on this thread (a lua_State is
 * not shared), so with any of them the queries run one after the other as find
 * runs them; otherwise astar_find_many spreads them over threads.
 */
int many_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->run.L = L;
    lgrid *g = c->grid;
    int32_t n = c->nqueries, width = g->base.width;
    check_stack(L, 8);
    lua_createtable(L, n, 0);
    int list = lua_gettop(L);
    bool callbacks = c->q.node_cost || c->q.edge_cost || c->q.heuristic == ASTAR_H_CUSTOM;
    if (callbacks) {
        astar_query base = c->q;
        for (int32_t i = 0; i < n; i++) {
            c->q.sx = c->endpoints[4 * i], c->q.sy = c->endpoints[4 * i + 1];
            c->q.gx = c->endpoints[4 * i + 2], c->q.gy = c->endpoints[4 * i + 3];
            astar_result res;
            astar_status st = astar_find(c->run.ws->search, g->grid, &c->q, &res);
            c->q = base;
            check_answer(L, st, "find_many");
            int32_t len = 0;
            const int32_t *ids = astar_search_path(c->run.ws->search, &len);
            push_answer(L, &res, ids, len, width, astar_grid_version(g->grid), NULL);
            set_many_entry(L, list, i);
        }
    } else {
        if (!g->many) {
            astar_alloc a = lua_allocator(L);
            g->many = astar_many_new(g->base.width, g->base.height, &a);
            if (!g->many) no_memory(L);
        }
        astar_status st = astar_find_many(g->many, g->grid, &c->q, c->endpoints, n, c->threads, c->results);
        check_answer(L, st, "find_many");
        for (int32_t i = 0; i < n; i++) {
            int32_t len = 0;
            const int32_t *ids = astar_many_path(g->many, i, &len);
            push_answer(L, &c->results[i], ids, len, width, astar_grid_version(g->grid), NULL);
            set_many_entry(L, list, i);
        }
    }
    lua_pushnil(L);
    return 2;
}

static const char *const QUERY_KEYS[] = {"sx", "sy", "gx", "gy"};

/* Query i of the list at arg: {sx, sy, gx, gy} or {sx=, sy=, gx=, gy=}, 1-based, into e
 * 0-based; each coordinate read once. */
static void read_query(lua_State *L, int arg, lua_Integer i, const lgrid *g, int32_t *e) {
    lua_rawgeti(L, arg, i);
    if (lua_type(L, -1) != LUA_TTABLE)
        arg_error_fmt(L, arg, "query %d must be a table {sx, sy, gx, gy}, got %s", (int)i,
                      type_name(L, -1));
    for (int k = 0; k < 4; k++) {
        push_entry_field(L, -1, QUERY_KEYS[k], k);
        int32_t size = k % 2 == 0 ? g->base.width : g->base.height;
        lua_Number v;
        if (!test_integer(L, -1, 1, size, &v))
            arg_error_fmt(L, arg, "query %d: %s must be an integer in 1..%d, got %s", (int)i,
                          QUERY_KEYS[k], (int)size, value_str(L, -1));
        e[k] = (int32_t)v - 1;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/*
 * grid:find_many(queries [, opts [, { threads = n }]]) -> results: results[i] =
 * { path = ..., info = ... }, what grid:find(sx, sy, gx, gy, opts) returns for
 * queries[i]. threads defaults to one per processor.
 */
int grid_find_many(lua_State *L) {
    find_ctx ctx;
    find_ctx *c = &ctx;
    lgrid *g = begin_grid_query(L, c);
    if (lua_type(L, 2) != LUA_TTABLE) type_error(L, 2, "table");
    for (int arg = 3; arg <= 4; arg++)
        if (!lua_isnoneornil(L, arg) && lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table or nil");
    lua_settop(L, 4);
    lua_Integer n = list_length(L, 2);
    if (n > INT32_MAX / (lua_Integer)(4 * sizeof(int32_t) + sizeof(astar_result)))
        arg_error_fmt(L, 2, "too many queries");
    check_stack(L, 8);
    /* Userdata on the stack: freed with it, whatever error comes. */
    int32_t *e = astar_newuserdata_plain(L, (size_t)n * 4 * sizeof *e + 1);
    astar_result *results = astar_newuserdata_plain(L, (size_t)n * sizeof *results + 1);
    for (lua_Integer i = 1; i <= n; i++) read_query(L, 2, i, g, e + 4 * (i - 1));
    c->endpoints = e;
    c->nqueries = (int32_t)n;
    c->results = results;
    query_args a;
    read_options(L, 3, IN_MANY, "find_many", &a, &c->q);
    c->threads = read_threads(L, 4, 0);
    resolve_grid_query(L, c, &a);
    run_grid_query(L, c);
    lua_pop(L, 1);
    return 1;
}
