/*
 * repair.c -- paths found before the world changed: grid:check_path (is the rest still
 * allowed?) and grid:repair (the cheapest way back onto it), on astar_path_costs and
 * astar_repair.
 */
#include <math.h>

#include "binding.h"

/* A path query: a grid query, the old path as node ids and where the unit stands on it. */
typedef struct walk_ctx {
    find_ctx f; /* first: its run_ctx is the callbacks' ud */
    const int32_t *ids;
    int32_t n, from; /* 0-based */
    int32_t within;  /* repair: rejoin only this many cells beyond the blockage; 0: any */
    double *cost;    /* check_path: a step cost per cell */
} walk_ctx;

/*
 * The path at arg, as find returns it: points {x=, y=} (or {x, y}), or flat {x1, y1, x2, y2,
 * ...}; its cells' node ids in a userdata left on the stack. Each value is read once.
 */
static int32_t *read_path(lua_State *L, int arg, int32_t width, int32_t height, int32_t *count) {
    if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table (a path)");
    lua_rawgeti(L, arg, 1);
    bool flat = lua_type(L, -1) == LUA_TNUMBER;
    lua_pop(L, 1);
    if (!flat) return read_points(L, arg, width, height, "path point", "path", count);
    lua_Integer len = list_length(L, arg);
    lua_rawgeti(L, arg, len);
    bool ends = !lua_isnil(L, -1); /* else a nil within: the reading below reports its cell */
    lua_pop(L, 1);
    if (len % 2 != 0 && ends) arg_error_fmt(L, arg, "a flat path needs two numbers per cell, got %d", (int)len);
    if (len / 2 > INT32_MAX / (lua_Integer)sizeof(int32_t)) arg_error_fmt(L, arg, "path too long");
    int32_t n = (int32_t)((len + 1) / 2);
    int32_t *ids = astar_newuserdata_plain(L, (size_t)n * sizeof *ids);
    for (int32_t i = 0; i < n; i++) {
        lua_Number xy[2];
        for (int k = 0; k < 2; k++) {
            lua_rawgeti(L, arg, 2 * (lua_Integer)i + k + 1);
            xy[k] = lua_tonumber(L, -1);
            if (lua_type(L, -1) != LUA_TNUMBER || xy[k] != floor(xy[k]) || xy[k] < 1 ||
                xy[k] > (k == 0 ? width : height))
                arg_error_fmt(L, arg, "flat path cell %d is not a cell of the %dx%d grid", (int)i + 1,
                              (int)width, (int)height);
            lua_pop(L, 1);
        }
        ids[i] = ((int32_t)xy[1] - 1) * width + ((int32_t)xy[0] - 1);
    }
    *count = n;
    return ids;
}

/* The grid at 1, the path at 2 and the index at 3 (1..#path; optional: default 1). */
static void begin_walk(lua_State *L, walk_ctx *c, bool index_needed) {
    lgrid *g = begin_grid_query(L, &c->f);
    c->within = 0;
    c->cost = NULL;
    c->ids = read_path(L, 2, g->base.width, g->base.height, &c->n);
    if (!index_needed && lua_isnoneornil(L, 3)) {
        c->from = 0;
        return;
    }
    lua_Number i = lua_tonumber(L, 3);
    if (lua_type(L, 3) != LUA_TNUMBER || i != floor(i) || i < 1 || i > c->n)
        arg_error_fmt(L, 3, "index must be an integer in 1..%d (the path's), got %s", (int)c->n, value_str(L, 3));
    c->from = (int32_t)i - 1;
}

/* Runs inside lua_pcall: the walk, then the first index it does not allow, or nil. */
int check_run(lua_State *L) {
    walk_ctx *c = lua_touserdata(L, RUN_CTX);
    c->f.run.L = L;
    astar_status st = astar_path_costs(c->f.run.ws->search, c->f.grid->grid, &c->f.q, c->ids, c->n,
                                       c->from, c->cost);
    check_answer(L, st, "check_path");
    int32_t bad = -1;
    for (int32_t i = c->from + 1; i < c->n && bad < 0; i++)
        if (c->cost[i] == INFINITY) bad = i;
    if (bad >= 0) lua_pushinteger(L, (lua_Integer)bad + 1);
    else lua_pushnil(L);
    lua_pushnil(L);
    return 2;
}

/*
 * grid:check_path(path [, from [, opts]]) -> index | nil: the first index after from (default
 * 1) whose cell the query opts no longer lets a path enter, or whose step from the one before
 * is no longer legal; nil when the rest of the path is still allowed.
 */
int grid_check_path(lua_State *L) {
    walk_ctx ctx;
    walk_ctx *c = &ctx;
    lua_settop(L, 4);
    begin_walk(L, c, false);
    c->cost = astar_newuserdata_plain(L, (size_t)c->n * sizeof *c->cost);
    query_args a;
    read_options(L, 4, IN_CHECK, "check_path", &a, &c->f.q);
    resolve_grid_query(L, &c->f, &a);
    run_grid_query(L, &c->f);
    lua_pop(L, 1);
    return 1;
}

/* Runs inside lua_pcall: the repair, then find's answer with rejoin and replanned. */
int repair_run(lua_State *L) {
    walk_ctx *c = lua_touserdata(L, RUN_CTX);
    c->f.run.L = L;
    astar_search *s = c->f.run.ws->search;
    astar_result res;
    astar_repair_info how;
    astar_status st = astar_repair(s, c->f.grid->grid, &c->f.q, c->ids, c->n, c->from, c->within, &res, &how);
    check_answer(L, st, "repair");
    int32_t n = 0;
    const int32_t *ids = astar_search_path(s, &n);
    c->f.run.answer.repair = &how; /* push_answer writes info.rejoin and info.replanned */
    push_answer(L, &res, ids, n, c->f.grid->base.width, &c->f.run.answer);
    return 2;
}

/*
 * grid:repair(path, i [, opts]) -> path, info | nil, info: from path[i] (where the unit
 * stands) to path[#path], the cheapest way that leaves the old path there and rejoins it at
 * a later cell the query still allows the rest from (info.rejoin, its index in the old path);
 * opts.rejoin_within = k: only at the k cells beyond the blockage (a local repair). When none
 * can be reached, a fresh find (info.replanned = true).
 */
int grid_repair(lua_State *L) {
    walk_ctx ctx;
    walk_ctx *c = &ctx;
    lua_settop(L, 4);
    begin_walk(L, c, true);
    query_args a;
    read_options(L, 4, IN_REPAIR, "repair", &a, &c->f.q);
    if (a.slot[O_REJOIN_WITHIN]) {
        lua_Number within = lua_tonumber(L, a.slot[O_REJOIN_WITHIN]);
        c->within = within > INT32_MAX ? INT32_MAX : (int32_t)within;
    }
    resolve_grid_query(L, &c->f, &a);
    return run_grid_query(L, &c->f);
}
