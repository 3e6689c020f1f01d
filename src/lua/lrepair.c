/*
 * lrepair.c -- paths found before the world changed: grid:check_path (is the rest still
 * allowed?) and grid:repair (the cheapest way back onto it), on astar_path_costs and
 * astar_repair.
 */
#include <math.h>

#include "lbinding.h"

/* A path query: a grid query, the old path as node ids and where the unit stands on it. */
typedef struct walk_ctx {
    find_ctx f; /* first: its run_ctx is the callbacks' ud */
    const int32_t *ids;
    int32_t n, from; /* 0-based */
    int32_t within;  /* repair: rejoin only this many cells beyond the blockage; 0: any */
    double *cost;    /* check_path: a step cost per cell */
} walk_ctx;

/* The index at 3 into a path of n cells (1..n; optional: default 1), 0-based. */
static int32_t read_from(lua_State *L, int32_t n, bool index_needed) {
    if (!index_needed && lua_isnoneornil(L, 3)) return 0;
    lua_Number i;
    if (!test_integer(L, 3, 1, n, &i))
        arg_error_fmt(L, 3, "index must be an integer in 1..%d (the path's), got %s", (int)n, value_str(L, 3));
    return (int32_t)i - 1;
}

/* The grid at 1, the path at 2 (every cell read now) and the index at 3. */
static void begin_walk(lua_State *L, walk_ctx *c, bool index_needed) {
    lgrid *g = begin_grid_query(L, &c->f);
    c->within = 0;
    c->cost = NULL;
    c->ids = read_path(L, 2, g->base.width, g->base.height, &c->n);
    c->from = read_from(L, c->n, index_needed);
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

/* Option 'since' at idx (a version): false when not a uint32_t. */
static bool read_version(lua_State *L, int idx, uint32_t *v) {
    lua_Number n;
    if (!test_integer(L, idx, 0, 4294967295.0, &n)) return false;
    *v = (uint32_t)n;
    return true;
}

/*
 * grid:check_path(path [, from [, opts]]) -> index | nil: the first index after from (default
 * 1) whose cell the query opts no longer lets a path enter, or whose step from the one before
 * is no longer legal; nil when the rest of the path is still allowed.
 *
 * Only node_cost, edge_cost, known (fog), classes and size can block a step the terrain allows (influence,
 * claims, noise and turns add costs, never a wall); without them the answer is the
 * terrain's, and astar_path_terrain gives it with no query set up, reading a flat path's
 * cells on demand: all of them in order, or with opts.since = v (a version the whole path
 * was allowed at: info.version of the find that made it) only those near the cells blocked
 * since. With node_cost, edge_cost, known, classes or size > 1, since is not used: the full walk
 * runs (the callbacks, the mask and the classes may answer differently without any terrain change).
 */
int grid_check_path(lua_State *L) {
    walk_ctx ctx;
    walk_ctx *c = &ctx;
    lua_settop(L, 4);
    lgrid *g = begin_grid_query(L, &c->f);
    path_arg p;
    open_path(L, 2, g->base.width, g->base.height, false, &p);
    c->from = read_from(L, p.n, false);
    query_args a;
    read_options(L, 4, IN_CHECK, "check_path", &a, &c->f.q);
    uint32_t since = 0;
    if (a.slot[O_SINCE] && !read_version(L, a.slot[O_SINCE], &since))
        arg_error_fmt(L, 4, "option 'since' must be a version (an integer in 0..4294967295: grid:version(), "
                            "info.version), got %s", value_str(L, a.slot[O_SINCE]));
    /* (classes: a class the query walls blocks, and a class write bumps no version for since;
     * a bigger unit's steps are its footprint's, which the terrain's bits do not tell) */
    bool walk = a.slot[O_NODE_COST] || a.slot[O_EDGE_COST] || a.slot[O_KNOWN] || a.slot[O_CLASSES] || c->f.q.size > 1;
    if (walk) { /* the whole walk: every cell read now (its callbacks may change the table) */
        if (!p.ids) {
            int32_t *ids = astar_newuserdata_plain(L, (size_t)p.n * sizeof *ids);
            for (int32_t i = 0; i < p.n; i++)
                if ((ids[i] = path_cell(&p, i)) < 0) path_error(&p);
            p.ids = ids;
        }
        c->ids = p.ids;
        c->n = p.n;
        c->within = 0;
        c->cost = astar_newuserdata_plain(L, (size_t)c->n * sizeof *c->cost);
    }
    resolve_grid_query(L, &c->f, &a);
    if (!walk) {
        /* Nothing runs from here to the answer (no Lua code, no allocation, so no finalizer
         * either): the cells read on demand are the table's as the call found it. */
        int32_t bad;
        astar_status st = astar_path_terrain(g->grid, c->f.q.diagonal, p.n, c->from, a.slot[O_SINCE] ? &since : NULL,
                                             path_cell, &p, &bad);
        if (st == ASTAR_EINVAL && p.bad >= 0) return path_error(&p);
        if (st == ASTAR_EINVAL)
            return arg_error_fmt(L, 2, "option 'since' needs a path of neighbouring cells as find returns it "
                                       "(cell %d is too far from the one read before)", (int)bad + 1);
        if (bad >= 0) lua_pushinteger(L, (lua_Integer)bad + 1);
        else lua_pushnil(L);
        return 1;
    }
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
    push_answer(L, &res, ids, n, c->f.grid->base.width, astar_grid_version(c->f.grid->grid), &c->f.run.answer);
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
