/*
 * lclaims.c -- claims: the paths units have claimed, which queries with option 'claims' avoid.
 * astar.Claims (cells of a grid) and astar.GraphClaims (nodes of a graph) share their unit
 * keys and writes (set_claim, advance_claim, release_claim); astar.claims makes either.
 */
#include <math.h>

#include "lbinding.h"

static lclaims *check_claims(lua_State *L, int arg) { return check_open(L, arg, CLAIMS_MT); }

static void claims_free(lua_State *L, void *o) {
    lclaims *c = o;
    (void)L;
    astar_claims_free(c->claims);
    c->claims = NULL;
}

/* The claims' slot of the unit keyed at idx, or -1 (no code runs: the table is read raw). */
int32_t unit_slot(lua_State *L, int claims, int key) {
    astar_getuservalue(L, claims);
    lua_pushvalue(L, key);
    lua_rawget(L, -2);
    int32_t slot = lua_type(L, -1) == LUA_TNUMBER ? (int32_t)lua_tointeger(L, -1) : -1;
    lua_pop(L, 2);
    return slot;
}

static void check_unit_key(lua_State *L, int arg) {
    int t = lua_type(L, arg);
    if (t == LUA_TSTRING) return;
    if (t != LUA_TNUMBER) type_error(L, arg, "integer or string");
    if (!is_integral(L, arg)) arg_error_fmt(L, arg, "unit must be an integer or a string, got %s", value_str(L, arg));
}

/*
 * The claim of the unit keyed at 2 (claims object at 1, checked and writable) becomes
 * ids[0..n-1]; grid and graph claims share it.
 */
static int set_claim(lua_State *L, astar_claims *claims, const int32_t *ids, int32_t n) {
    int32_t slot = unit_slot(L, 1, 2);
    astar_getuservalue(L, 1);
    int units = lua_gettop(L);
    bool fresh = slot < 0;
    if (fresh) {
        /* The key goes in first (this may raise on OOM, before anything changed): setting
         * an existing key never allocates, so once the core holds the claim nothing fails
         * and no claim is left that no key refers to. */
        lua_pushvalue(L, 2);
        lua_pushboolean(L, 0);
        lua_rawset(L, units);
        slot = astar_claims_unit_new(claims);
    }
    if (slot < 0 || astar_claims_set(claims, slot, ids, n) != ASTAR_OK) {
        if (fresh) {
            if (slot >= 0) astar_claims_release(claims, slot);
            lua_pushvalue(L, 2);
            lua_pushnil(L);
            lua_rawset(L, units);
        }
        return no_memory(L);
    }
    if (fresh) {
        lua_pushvalue(L, 2);
        lua_pushinteger(L, slot);
        lua_rawset(L, units);
    }
    return 0;
}

/* claims:advance(unit, steps) of grid and graph claims (the object at 1, already checked). */
static int advance_claim(lua_State *L, astar_claims *claims) {
    check_unit_key(L, 2);
    int32_t steps = (int32_t)check_integer(L, 3, "steps", 0, INT32_MAX);
    check_writable(L, lua_touserdata(L, 1), "claims");
    int32_t slot = unit_slot(L, 1, 2);
    lua_pushboolean(L, slot >= 0);
    if (slot >= 0) astar_claims_advance(claims, slot, steps);
    return 1;
}

/* claims:release(unit) of grid and graph claims (the object at 1, already checked). */
static int release_claim(lua_State *L, astar_claims *claims) {
    check_unit_key(L, 2);
    check_writable(L, lua_touserdata(L, 1), "claims");
    int32_t slot = unit_slot(L, 1, 2);
    if (slot >= 0) {
        astar_claims_release(claims, slot);
        astar_getuservalue(L, 1);
        lua_pushvalue(L, 2);
        lua_pushnil(L);
        lua_rawset(L, -3);
    }
    lua_pushboolean(L, slot >= 0);
    return 1;
}

/* claims:position(unit) of grid and graph claims (the object at 1, already checked): the
 * node the unit stands on now, or -1. */
static int32_t unit_node(lua_State *L, astar_claims *claims) {
    check_unit_key(L, 2);
    int32_t slot = unit_slot(L, 1, 2);
    return slot >= 0 ? astar_claims_current(claims, slot) : -1;
}

/* claims:claim(unit, path): the path, in any form find returns (read_path), is read first (an
 * __index of a point may run), then the claims resolved and written. */
static int claims_claim(lua_State *L) {
    lclaims *c = check_object(L, 1, CLAIMS_MT);
    check_unit_key(L, 2);
    lua_settop(L, 3);
    int32_t n;
    const int32_t *ids = read_path(L, 3, c->base.width, c->base.height, &n); /* collected with the call */
    check_claims(L, 1);
    check_writable(L, &c->base, "claims");
    return set_claim(L, c->claims, ids, n);
}

static int claims_advance(lua_State *L) {
    return advance_claim(L, check_claims(L, 1)->claims);
}

static int claims_release(lua_State *L) {
    return release_claim(L, check_claims(L, 1)->claims);
}

static int claims_count(lua_State *L) {
    int32_t x, y;
    lclaims *c = check_cell(L, CLAIMS_MT, &x, &y);
    lua_pushinteger(L, astar_claims_count(c->claims, x, y));
    return 1;
}

/* claims:position(unit) -> x, y of the unit's current node, or nil. */
static int claims_position(lua_State *L) {
    lclaims *c = check_claims(L, 1);
    int32_t id = unit_node(L, c->claims);
    if (id < 0) return lua_pushnil(L), 1;
    lua_pushinteger(L, id % c->base.width + 1);
    lua_pushinteger(L, id / c->base.width + 1);
    return 2;
}

static int claims_size(lua_State *L) { return push_size(L, CLAIMS_MT); }

static const luaL_Reg CLAIMS_METHODS[] = {
    {"size", claims_size},   {"claim", claims_claim}, {"advance", claims_advance},
    {"release", claims_release}, {"count", claims_count}, {"position", claims_position},
    {NULL, NULL}};

const lclass CLAIMS_CLASS = {
    .name = CLAIMS_MT, .what = "claims", .methods = CLAIMS_METHODS,
    .field = size_field, .free = claims_free};

/* ------------------------------------------------------ graph claims */

static lgraph_claims *check_graph_claims(lua_State *L, int arg) {
    return check_open(L, arg, GRAPH_CLAIMS_MT);
}

/* The open graph of open claims c. */
static lgraph *claims_graph(lua_State *L, const lgraph_claims *c) {
    if (c->graph->base.freed) freed_error(L, GRAPH_MT);
    return c->graph;
}

static void graph_claims_free(lua_State *L, void *o) {
    lgraph_claims *c = o;
    (void)L;
    astar_claims_free(c->claims);
    c->claims = NULL;
}

static int graph_claims_tostring(lua_State *L) {
    lgraph_claims *c = luaL_checkudata(L, 1, GRAPH_CLAIMS_MT);
    lua_pushstring(L, c->claims ? "astar.GraphClaims" : "astar.GraphClaims (freed)");
    return 1;
}

/* astar.claims(graph): claims whose paths are lists of node ids. */
static int l_graph_claims(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    lgraph_claims *c = new_object(L, sizeof *c, GRAPH_CLAIMS_MT);
    lua_createtable(L, 0, 1);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rawset(L, -3);       /* [true] = graph: keeps it alive as long as its claims */
    astar_setuservalue(L, -2);
    c->graph = check_graph(L, 1); /* again: making the tables may have run a finalizer */
    astar_alloc a = lua_allocator(L);
    c->claims = astar_graph_claims_new(g->graph, &a);
    if (!c->claims) return status_error(L, astar_last_status());
    return 1;
}

/* claims:claim(unit, ids): ids = { first node (where the unit stands), ... } */
static int graph_claims_claim(lua_State *L) {
    lgraph_claims *c = check_graph_claims(L, 1);
    check_unit_key(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    if (!c->graph->graph) return luaL_error(L, "attempt to use a freed astar.Graph");
    int32_t count = astar_graph_node_count(c->graph->graph);
    size_t n = (size_t)list_length(L, 3);
    if (n < 1) arg_error_fmt(L, 3, "path is empty");
    if (n > (size_t)INT32_MAX / 4) arg_error_fmt(L, 3, "path is too long");
    int32_t *ids = astar_newuserdata(L, n * sizeof *ids); /* scratch, collected with the call */
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, 3, (int)i);
        if ((ids[i - 1] = test_node(L, -1, count)) < 0)
            arg_error_fmt(L, 3, "path[%d] must be a node id 1..%d, got %s", (int)i, (int)count,
                          value_str(L, -1));
        lua_pop(L, 1);
    }
    check_graph_claims(L, 1); /* again: making the scratch may have run a finalizer */
    claims_graph(L, c);
    check_writable(L, &c->base, "claims");
    if (astar_graph_claims_fit(c->claims, c->graph->graph) != ASTAR_OK) return no_memory(L);
    return set_claim(L, c->claims, ids, (int32_t)n);
}

static int graph_claims_advance(lua_State *L) {
    return advance_claim(L, check_graph_claims(L, 1)->claims);
}

static int graph_claims_release(lua_State *L) {
    return release_claim(L, check_graph_claims(L, 1)->claims);
}

/* claims:count(id) -> units claiming the node now */
static int graph_claims_count(lua_State *L) {
    lgraph_claims *c = check_graph_claims(L, 1);
    if (!c->graph->graph) return luaL_error(L, "attempt to use a freed astar.Graph");
    int32_t id = check_node(L, 2, c->graph);
    lua_pushinteger(L, astar_claims_count(c->claims, id, 0));
    return 1;
}

/* claims:position(unit) -> the unit's current node id, or nil */
static int graph_claims_position(lua_State *L) {
    int32_t id = unit_node(L, check_graph_claims(L, 1)->claims);
    if (id < 0) lua_pushnil(L);
    else lua_pushinteger(L, (lua_Integer)id + 1);
    return 1;
}

/* claims:size() -> the nodes of its graph */
static int graph_claims_size(lua_State *L) {
    lgraph_claims *c = check_object(L, 1, GRAPH_CLAIMS_MT);
    lua_pushinteger(L, astar_graph_node_count(claims_graph(L, c)->graph));
    return 1;
}

static const luaL_Reg GRAPH_CLAIMS_METHODS[] = {
    {"size", graph_claims_size},       {"claim", graph_claims_claim},
    {"advance", graph_claims_advance}, {"release", graph_claims_release},
    {"count", graph_claims_count},     {"position", graph_claims_position}, {NULL, NULL}};

const lclass GRAPH_CLAIMS_CLASS = {
    .name = GRAPH_CLAIMS_MT, .what = "claims", .methods = GRAPH_CLAIMS_METHODS,
    .tostring = graph_claims_tostring, .free = graph_claims_free};

/* ------------------------------------------------------------------ both */

int l_claims(lua_State *L) {
    if (test_object(L, 1, GRAPH_MT)) return l_graph_claims(L);
    if (!test_object(L, 1, GRID_MT)) type_error(L, 1, "astar.Grid or astar.Graph");
    lgrid *g = check_grid(L, 1);
    astar_alloc a;
    lclaims *c = new_sized_object(L, sizeof *c, CLAIMS_MT, g->base.width, g->base.height, &a);
    lua_newtable(L);
    astar_setuservalue(L, -2);
    c->claims = astar_claims_new(g->base.width, g->base.height, &a);
    return c->claims ? 1 : status_error(L, astar_last_status());
}
