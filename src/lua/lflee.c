/*
 * lflee.c -- grid:flee (a path away from threats) and grid:wander (a path to a seeded random
 * cell about so far): queries as find is, their options read by read_options (IN_FLEE,
 * IN_WANDER), run on the grid's workspace by astar_flee and astar_wander (flee.c).
 */
#include <math.h>

#include "lbinding.h"

/* Sets info[k] raw (info may be the caller's table, option 'info': no metamethod runs). */
static void set_info(lua_State *L, int info, const char *k) {
    lua_pushstring(L, k);
    lua_insert(L, -2);
    lua_rawset(L, info);
}

/* The answer of flee or wander: find's two results, and where it went. */
static int push_away(lua_State *L, find_ctx *c, astar_status st, const astar_result *res,
                     const astar_flee_info *info, bool flee) {
    check_answer(L, st, flee ? "flee" : "wander");
    int32_t n = 0;
    const int32_t *ids = astar_search_path(c->run.ws->search, &n);
    push_answer(L, res, ids, n, c->grid->base.width, astar_grid_version(c->grid->grid), &c->run.answer);
    int t = lua_gettop(L);
    lua_pushinteger(L, info->x + 1);
    set_info(L, t, "x");
    lua_pushinteger(L, info->y + 1);
    set_info(L, t, "y");
    if (flee) {
        lua_pushboolean(L, info->safe);
        set_info(L, t, "safe");
        if (info->threat_distance == INFINITY) lua_pushnil(L);
        else lua_pushnumber(L, info->threat_distance);
        set_info(L, t, "threat_distance");
    } else {
        lua_pushboolean(L, info->in_band);
        set_info(L, t, "in_band");
        lua_pushinteger(L, info->candidates);
        set_info(L, t, "candidates");
    }
    return 2;
}

/* Runs inside lua_pcall, like find_run. */
int flee_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->run.L = L;
    astar_result res;
    astar_flee_info info;
    astar_status st = astar_flee(c->run.ws->search, c->grid->grid, &c->q, &c->flee, &info, &res);
    return push_away(L, c, st, &res, &info, true);
}

int wander_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->run.L = L;
    astar_result res;
    astar_flee_info info;
    astar_status st = astar_wander(c->run.ws->search, c->grid->grid, &c->q, c->wander_cost, c->tolerance, &info, &res);
    return push_away(L, c, st, &res, &info, false);
}

/*
 * grid:flee(x, y, threats [, opts]) -> path, info: threats a list of points or an
 * astar.Influence (its cells above opts.threshold, default 0); opts.distance (required) is
 * safe, opts.radius (default 2 * distance) the most the unit spends. Everything is read
 * (threats, then the options), then resolved (the layer is checked open after the options'
 * __index ran), then run.
 */
int grid_flee(lua_State *L) {
    find_ctx ctx; /* lives on the C stack for the whole pcall */
    find_ctx *c = &ctx;
    start_query(L, c);
    lua_settop(L, 5);
    const lgrid *g = c->grid;
    bool layer = lua_type(L, 4) == LUA_TUSERDATA;
    if (!layer)
        c->flee.threats = read_points(L, 4, g->base.width, g->base.height, "threat", "threats", &c->flee.nthreats);
    query_args a;
    read_options(L, 5, IN_FLEE, "flee", &a, &c->q);
    int d = a.slot[O_DISTANCE];
    lua_Number dist = d ? lua_tonumber(L, d) : 0;
    if (!d || lua_type(L, d) != LUA_TNUMBER || !(dist > 0 && dist <= ASTAR_MAX_VALUE))
        arg_error_fmt(L, 5, "option 'distance' must be a number in (0, " MAX_VALUE_STR "], got %s",
                      d ? value_str(L, d) : "nil");
    c->flee.distance = dist;
    c->flee.radius = a.slot[O_RADIUS] ? lua_tonumber(L, a.slot[O_RADIUS]) : 2 * dist;
    c->flee.threshold = a.slot[O_THRESHOLD] ? lua_tonumber(L, a.slot[O_THRESHOLD]) : 0.0;
    if (a.slot[O_THRESHOLD] && !layer)
        arg_error_fmt(L, 5, "option 'threshold' needs threats given as an influence layer");
    resolve_grid_query(L, c, &a);
    if (layer) {
        llayer *l = (llayer *)resolve_object(L, 4, 4, LAYER_MT, "threats");
        if (l->base.width != g->base.width || l->base.height != g->base.height)
            arg_error_fmt(L, 4, "threats is %dx%d but the grid is %dx%d", (int)l->base.width, (int)l->base.height,
                          (int)g->base.width, (int)g->base.height);
        c->flee.layer = l->layer;
        mark_read(&c->run, &l->base);
    }
    return run_grid_query(L, c);
}

/*
 * grid:wander(x, y, cost [, opts]) -> path, info: to a cell reached for a cost within
 * [cost * (1 - t), cost * (1 + t)] (t = opts.tolerance, default 0.25), picked by opts.seed.
 */
int grid_wander(lua_State *L) {
    find_ctx ctx;
    find_ctx *c = &ctx;
    start_query(L, c);
    lua_Number cost = lua_tonumber(L, 4);
    if (lua_type(L, 4) != LUA_TNUMBER || !(cost >= 0 && cost <= ASTAR_MAX_VALUE))
        arg_error_fmt(L, 4, "cost must be a number in 0.." MAX_VALUE_STR ", got %s", value_str(L, 4));
    lua_settop(L, 5);
    query_args a;
    read_options(L, 5, IN_WANDER, "wander", &a, &c->q);
    c->wander_cost = cost;
    c->tolerance = a.slot[O_TOLERANCE] ? lua_tonumber(L, a.slot[O_TOLERANCE]) : 0.25;
    resolve_grid_query(L, c, &a);
    return run_grid_query(L, c);
}
