/*
 * lgraph.c -- astar.Graph: astar.graph(), nodes, arcs and queries by node id (1-based here,
 * 0-based in the core): the graph's methods, and graph:find with its resolve
 * (resolve_graph_query). Its claims are in lclaims.c.
 */
#include <math.h>
#include <string.h>

#include "lbinding.h"

lgraph *check_graph(lua_State *L, int arg) { return check_open(L, arg, GRAPH_MT); }

/* A 1-based node id of the Lua API, returned 0-based. */
int32_t check_node(lua_State *L, int arg, const lgraph *g) {
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "node id");
    int32_t count = astar_graph_node_count(g->graph), id = test_node(L, arg, count);
    if (id >= 0) return id;
    if (!is_integral(L, arg)) arg_error_fmt(L, arg, "node id must be an integer, got %s", value_str(L, arg));
    if (count == 0) arg_error_fmt(L, arg, "node %s out of range: the graph has no nodes", value_str(L, arg));
    return arg_error_fmt(L, arg, "node %s out of range 1..%d", value_str(L, arg), (int)count);
}

static void graph_free(lua_State *L, void *o) {
    lgraph *g = o;
    free_pool(L, &g->pool);
    astar_graph_free(g->graph);
    g->graph = NULL;
}

static int graph_tostring(lua_State *L) {
    lgraph *g = luaL_checkudata(L, 1, GRAPH_MT);
    if (!g->graph) return lua_pushliteral(L, "astar.Graph (freed)"), 1;
    lua_pushfstring(L, "astar.Graph(%d nodes, %d arcs)", (int)astar_graph_node_count(g->graph),
                    (int)astar_graph_arc_count(g->graph));
    return 1;
}

static void *make_graph_search(const lobject *graph, const astar_alloc *a) {
    (void)graph;
    return astar_graph_search_new(a);
}

static void drop_graph_search(void *search) { astar_graph_search_free(search); }

static const pool_kind GRAPH_SEARCHES = {make_graph_search, drop_graph_search};

/* astar.graph() -> an empty graph */
int l_graph(lua_State *L) {
    if (!lua_isnoneornil(L, 1)) arg_error_fmt(L, 1, "no argument expected, got %s", luaL_typename(L, 1));
    lgraph *g = new_object(L, sizeof *g, GRAPH_MT);
    g->pool.kind = &GRAPH_SEARCHES;
    astar_alloc a = lua_allocator(L);
    g->graph = astar_graph_new(&a);
    if (!g->graph) return no_memory(L);
    return 1;
}

/* The read-only fields nodes and arcs. */
static int graph_field(lua_State *L, void *o, const char *key) {
    const lgraph *g = o;
    if (!g->graph) return 0;
    if (strcmp(key, "nodes") == 0) return lua_pushinteger(L, astar_graph_node_count(g->graph)), 1;
    if (strcmp(key, "arcs") == 0) return lua_pushinteger(L, astar_graph_arc_count(g->graph)), 1;
    return 0;
}

/* g:size() -> number of nodes */
static int graph_size(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    lua_pushinteger(L, astar_graph_node_count(g->graph));
    return 1;
}

/* g:version() -> the count of changes of nodes, arcs and blocking (info.version of a find now). */
static int graph_version(lua_State *L) {
    push_version(L, astar_graph_version(check_graph(L, 1)->graph));
    return 1;
}

/* g:add_node(x, y [, z]) -> id */
static int graph_add_node(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    double x = check_finite(L, 2, "x"), y = check_finite(L, 3, "y");
    double z = lua_isnoneornil(L, 4) ? 0.0 : check_finite(L, 4, "z");
    for (int arg = 2; arg <= 4; arg++) /* distances between nodes must stay finite */
        if (fabs(arg == 2 ? x : arg == 3 ? y : z) > ASTAR_GRAPH_MAX_COORD)
            arg_error_fmt(L, arg, "coordinate out of range -1e150..1e150, got %s", value_str(L, arg));
    check_writable(L, &g->base, "graph");
    int32_t id;
    astar_status st = astar_graph_add_node(g->graph, x, y, z, &id);
    if (st == ASTAR_ENOMEM) return no_memory(L);
    if (st != ASTAR_OK) return luaL_error(L, "the graph is full (%d nodes)", ASTAR_GRAPH_MAX_NODES);
    lua_pushinteger(L, (lua_Integer)id + 1);
    return 1;
}

/* The optional cost argument of add_edge / add_arc: nil for the distance, else finite >= 0. */
static double check_arc_cost(lua_State *L, int arg) {
    if (lua_isnoneornil(L, arg)) return ASTAR_GRAPH_LENGTH;
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "number");
    lua_Number c = lua_tonumber(L, arg);
    if (!(c >= 0 && c <= ASTAR_MAX_VALUE))
        arg_error_fmt(L, arg, "cost must be a number in 0.." MAX_VALUE_STR ", got %s", value_str(L, arg));
    return c;
}

static int add_arcs(lua_State *L, bool both) {
    lgraph *g = check_graph(L, 1);
    int32_t a = check_node(L, 2, g), b = check_node(L, 3, g);
    if (a == b) arg_error_fmt(L, 3, "node %d links to itself (loops are not allowed)", (int)a + 1);
    double cost = check_arc_cost(L, 4);
    check_writable(L, &g->base, "graph");
    astar_status st = both ? astar_graph_add_edge(g->graph, a, b, cost)
                           : astar_graph_add_arc(g->graph, a, b, cost);
    if (st == ASTAR_ENOMEM) return no_memory(L);
    if (st != ASTAR_OK) return luaL_error(L, "the graph is full (%d arcs)", ASTAR_GRAPH_MAX_ARCS);
    return 0;
}

/* g:add_edge(a, b [, cost]): both ways; an existing arc gets the new cost. */
static int graph_add_edge(lua_State *L) { return add_arcs(L, true); }
/* g:add_arc(a, b [, cost]): a to b only. */
static int graph_add_arc(lua_State *L) { return add_arcs(L, false); }

static int remove_arcs(lua_State *L, bool both) {
    lgraph *g = check_graph(L, 1);
    int32_t a = check_node(L, 2, g), b = check_node(L, 3, g);
    check_writable(L, &g->base, "graph");
    int ab = 0, ba = 0;
    astar_graph_remove_arc(g->graph, a, b, &ab);
    if (both) astar_graph_remove_arc(g->graph, b, a, &ba);
    lua_pushboolean(L, ab || ba);
    return 1;
}

/* g:remove_edge(a, b) -> whether there was an arc either way */
static int graph_remove_edge(lua_State *L) { return remove_arcs(L, true); }
/* g:remove_arc(a, b) -> whether there was one */
static int graph_remove_arc(lua_State *L) { return remove_arcs(L, false); }

/* g:arc_cost(a, b) -> cost, or nil when there is no arc a -> b */
static int graph_arc_cost(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    int32_t a = check_node(L, 2, g), b = check_node(L, 3, g);
    double c = astar_graph_arc_cost(g->graph, a, b);
    if (isnan(c)) lua_pushnil(L);
    else lua_pushnumber(L, c);
    return 1;
}

static int graph_set_blocked(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    int32_t id = check_node(L, 2, g);
    if (lua_type(L, 3) != LUA_TBOOLEAN) type_error(L, 3, "boolean");
    check_writable(L, &g->base, "graph");
    astar_graph_set_blocked(g->graph, id, lua_toboolean(L, 3));
    return 0;
}

static int graph_is_blocked(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    lua_pushboolean(L, astar_graph_is_blocked(g->graph, check_node(L, 2, g)) == 1);
    return 1;
}

/* g:node(id) -> x, y, z */
static int graph_node(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    double x, y, z;
    astar_graph_node(g->graph, check_node(L, 2, g), &x, &y, &z);
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    lua_pushnumber(L, z);
    return 3;
}

/* g:neighbours(id) -> { ids }, { costs }: the arcs leaving id, oldest first */
static int graph_neighbours(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    int32_t id = check_node(L, 2, g);
    int32_t n = astar_graph_neighbours(g->graph, id, NULL, NULL, 0);
    lua_settop(L, 2);
    check_stack(L, 6);
    /* Scratch in userdata: collected whatever error comes. */
    int32_t *to = astar_newuserdata(L, (size_t)(n ? n : 1) * sizeof *to);
    double *cost = astar_newuserdata(L, (size_t)(n ? n : 1) * sizeof *cost);
    check_graph(L, 1); /* again: making the scratch may have run a finalizer */
    astar_graph_neighbours(g->graph, id, to, cost, n);
    lua_createtable(L, n, 0);
    lua_createtable(L, n, 0);
    for (int32_t i = 0; i < n; i++) {
        lua_pushinteger(L, (lua_Integer)to[i] + 1);
        lua_rawseti(L, -3, i + 1);
        lua_pushnumber(L, cost[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 2;
}

/* -------------------------------------------------------- graph:find */

/* A Lua array of per-node values, read node by node (raw) as the search reaches them. */
typedef struct lua_values {
    const run_ctx *run;
    int slot;        /* its stack slot in the runner (one of run_ctx.pass) */
    int list_index;  /* its index in a list of layers, 0 when given alone */
} lua_values;

/* The Lua arrays of a graph query are the slots of its run.pass, in the order of values. */
typedef struct graph_find_ctx {
    run_ctx run;
    lgraph *graph;
    astar_graph_query q;
    astar_graph_layer layers[ASTAR_MAX_LAYERS];
    lua_values values[ASTAR_MAX_LAYERS];
    const int32_t *sources;  /* distance_field and range: 0-based, in a userdata on the stack */
    int32_t nsources;
} graph_find_ctx;

static double lua_values_trampoline(void *ud, int32_t node) {
    const lua_values *v = ud;
    lua_State *L = v->run->L;
    lua_rawgeti(L, v->slot, node + 1);
    lua_Number x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(fabs(x) <= ASTAR_MAX_VALUE)) {
        const char *value = value_str(L, -1);
        if (v->list_index)
            luaL_error(L, "option 'influence'[%d][1] holds %s for node %d: expected a number in -"
                       MAX_VALUE_STR ".." MAX_VALUE_STR, v->list_index, value, (int)node + 1);
        luaL_error(L, "option 'influence' holds %s for node %d: expected a number in -" MAX_VALUE_STR
                   ".." MAX_VALUE_STR, value, (int)node + 1);
    }
    lua_pop(L, 1);
    return x;
}

/*
 * Resolves a graph query: the graph (open, start and goal still its nodes), then the layers
 * (an astar.Influence of n x 1 or a Lua array of one value per node), the claims and the
 * unit's slot, the heuristic and the callbacks, and where the answer goes. Runs no Lua code.
 */
static void resolve_graph_query(lua_State *L, graph_find_ctx *c, const query_args *a) {
    lgraph *g = c->graph;
    if (g->base.freed) freed_error(L, GRAPH_MT);
    astar_graph_query *q = &c->q;
    int arg = a->arg;
    int32_t n = astar_graph_node_count(g->graph);
    for (int i = 0; i < a->nlayers; i++) {
        int idx = a->layer_slot[i];
        int list_index = a->slot[O_INFLUENCE] == idx ? 0 : i + 1;
        astar_graph_layer *l = &c->layers[i];
        l->weight = a->layer_weight[i];
        if (lua_type(L, idx) == LUA_TTABLE) {
            /* A compare, not a walk: the values are read (raw) as the search reaches their nodes. */
            size_t len = astar_rawlen(L, idx);
            if (len != (size_t)n) {
                lua_pushnumber(L, (lua_Number)len); /* any border: beyond an int */
                const char *count = value_str(L, -1); /* before the name: both push a string */
                arg_error_fmt(L, arg, "%s has %s values but the graph has %d nodes", influence_name(L, a, i),
                              count, (int)n);
            }
            lua_values *v = &c->values[c->run.npass];
            v->run = &c->run;
            v->slot = RUN_NARGS + 1 + c->run.npass;
            v->list_index = list_index;
            c->run.pass[c->run.npass++] = idx;
            l->value_fn = lua_values_trampoline;
            l->value_ud = v;
            continue;
        }
        llayer *layer = test_object(L, idx, LAYER_MT);
        if (!layer)
            arg_error_fmt(L, arg, "%s must be an array of numbers (one per node) or an astar.Influence, got %s",
                          influence_name(L, a, i), type_name(L, idx));
        if (layer->base.freed) resolve_object(L, arg, idx, LAYER_MT, influence_name(L, a, i));
        if (layer->base.height != 1 || layer->base.width != n)
            arg_error_fmt(L, arg, "%s is %dx%d but the graph needs %dx1 (one value per node)", influence_name(L, a, i),
                          (int)layer->base.width, (int)layer->base.height, (int)n);
        l->values = astar_layer_row(layer->layer, 0);
        mark_read(&c->run, &layer->base);
    }
    q->layers = c->layers;
    q->nlayers = a->nlayers;
    if (a->slot[O_CLAIMS]) {
        int idx = a->slot[O_CLAIMS];
        lgraph_claims *cl = test_object(L, idx, GRAPH_CLAIMS_MT);
        if (!cl)
            arg_error_fmt(L, arg, "option 'claims' must be an astar.GraphClaims (astar.claims(graph)), got %s",
                          type_name(L, idx));
        resolve_object(L, arg, idx, GRAPH_CLAIMS_MT, "option 'claims'");
        if (cl->graph != g) arg_error_fmt(L, arg, "option 'claims' belongs to another graph");
        q->claims = cl->claims;
        q->unit = a->slot[O_UNIT] ? unit_slot(L, idx, a->slot[O_UNIT]) : -1;
        mark_read(&c->run, &cl->base);
    }
    if (a->ninterests > 0) { /* the ids read against the graph, no Lua code run */
        for (int32_t i = 0; i < a->ninterests; i++) {
            double id = a->interest_place[2 * i];
            if (id > n)
                arg_error_fmt(L, arg, "option 'interests'[%d] names node %d of a graph of %d nodes", (int)i + 1,
                              (int)(id < INT32_MAX ? id : INT32_MAX), (int)n);
            a->interest_ids[i] = (int32_t)id - 1;
        }
        q->interests = a->interest_ids;
        q->interest_values = a->interest_values;
        q->ninterests = a->ninterests;
    }
    if (a->slot[O_HEURISTIC]) q->heuristic = a->heuristic;
    resolve_graph_callbacks(&c->run, q, a);
    resolve_answer(&c->run, a); /* after the Lua arrays of values: their slots come first */
    mark_read(&c->run, &g->base);
}

/* Option toward: a field's (graph:distance_field); a path search or a range refuses it. */
static void refuse_toward(lua_State *L, const query_args *a, const char *fn) {
    if (a->slot[O_TOWARD])
        arg_error_fmt(L, a->arg, "option 'toward' does not apply to %s (graph:distance_field's only)", fn);
}

/* Runs inside lua_pcall: the search, then the result tables. */
static int graph_find_run(lua_State *L) {
    graph_find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->run.L = L;
    astar_result res;
    astar_status st = astar_graph_find(c->run.ws->search, c->graph->graph, &c->q, &res);
    check_answer(L, st, "find");
    int32_t n = 0;
    const int32_t *ids = astar_graph_search_path(c->run.ws->search, &n);
    push_answer(L, &res, ids, n, 0, astar_graph_version(c->graph->graph), &c->run.answer);
    return 2;
}

/* g:find(a, b [, opts]) -> ids, info | nil, info */
static int graph_find(lua_State *L) {
    graph_find_ctx ctx; /* on the C stack for the whole pcall: nothing allocated per query */
    graph_find_ctx *c = &ctx;
    lgraph *g = check_graph(L, 1);
    memset(c, 0, sizeof *c);
    c->graph = g;
    astar_graph_query_init(&c->q);
    c->q.start = check_node(L, 2, g); /* nodes are never removed: still nodes once resolved */
    c->q.goal = check_node(L, 3, g);
    lua_settop(L, 4);
    query_args a;
    read_options(L, 4, IN_GRAPH, "find", &a, &c->q);
    refuse_toward(L, &a, "find");
    resolve_graph_query(L, c, &a);
    return run_query(L, &c->run, &g->pool, &g->base);
}

/* ------------------------------------------- graph:distance_field and graph:range */

#define GRAPH_FIELD_MT "astar.GraphField"

/* A graph field is a plain table {cost = {[id] = cost}, prev = {[id] = id}, list = {{id=, cost=},
 * ...} cheapest first, toward = bool} with this class's methods: what it answers is read raw from its own
 * tables, checked, so a script that changes them gets errors or nils, never a hang. */
static void check_graph_field(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_getmetatable(L, 1)) luaL_error(L, "bad self: astar.GraphField expected");
    luaL_getmetatable(L, GRAPH_FIELD_MT);
    if (!lua_rawequal(L, -1, -2)) luaL_error(L, "bad self: astar.GraphField expected");
    lua_pop(L, 2);
}

/* The number field[table][id] (field:get, field:next), nil when there is none. */
static int graph_field_lookup(lua_State *L, const char *table) {
    check_graph_field(L);
    if (lua_type(L, 2) != LUA_TNUMBER) type_error(L, 2, "node id");
    lua_settop(L, 2);
    lua_pushstring(L, table);
    lua_rawget(L, 1);
    if (lua_type(L, -1) != LUA_TTABLE) return luaL_error(L, "not an astar.GraphField (its '%s' is gone)", table);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    if (lua_type(L, -1) != LUA_TNUMBER) lua_pushnil(L);
    return 1;
}

/* field:get(id) -> the cost from (toward: to) the nearest source, nil when not reached */
static int graph_field_get(lua_State *L) { return graph_field_lookup(L, "cost"); }

/* field:next(id) -> the next node toward the nearest source (from it: the node id is reached
 * from), nil at a source or when not reached */
static int graph_field_next(lua_State *L) { return graph_field_lookup(L, "prev"); }

/* field:path(id) -> {source, ..., id}, the way from the nearest source (toward: {id, ...,
 * source}, the way there), as find's path; nil when not reached. At most as many steps as the
 * field has nodes. */
static int graph_field_path(lua_State *L) {
    check_graph_field(L);
    if (lua_type(L, 2) != LUA_TNUMBER) type_error(L, 2, "node id");
    lua_settop(L, 2);
    lua_pushliteral(L, "cost");
    lua_rawget(L, 1); /* 3 */
    lua_pushliteral(L, "prev");
    lua_rawget(L, 1); /* 4 */
    lua_pushliteral(L, "list");
    lua_rawget(L, 1); /* 5 */
    if (lua_type(L, 3) != LUA_TTABLE || lua_type(L, 4) != LUA_TTABLE || lua_type(L, 5) != LUA_TTABLE)
        return luaL_error(L, "not an astar.GraphField (its tables are gone)");
    lua_pushvalue(L, 2);
    lua_rawget(L, 3);
    if (lua_type(L, -1) != LUA_TNUMBER) return lua_pushnil(L), 1;
    lua_pop(L, 1);
    size_t bound = astar_rawlen(L, 5);
    lua_newtable(L); /* 6: walked back, then reversed */
    lua_pushvalue(L, 2);
    size_t n = 0;
    while (lua_type(L, -1) == LUA_TNUMBER) {
        if (n++ > bound) return luaL_error(L, "not an astar.GraphField (its 'prev' loops)");
        lua_pushvalue(L, -1);
        lua_rawseti(L, 6, (int)n);
        lua_rawget(L, 4);
    }
    lua_pop(L, 1);
    lua_pushliteral(L, "toward");
    lua_rawget(L, 1);
    if (lua_toboolean(L, -1)) return lua_pop(L, 1), 1; /* walked in walking order already */
    lua_pop(L, 1);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, 6, (int)(n + 1 - i));
        lua_rawseti(L, -2, (int)i);
    }
    return 1;
}

/* field:nodes() -> {{id=, cost=}, ...} cheapest first: a new list each call. */
static int graph_field_nodes(lua_State *L) {
    check_graph_field(L);
    lua_settop(L, 1);
    lua_pushliteral(L, "list");
    lua_rawget(L, 1);
    if (lua_type(L, 2) != LUA_TTABLE) return luaL_error(L, "not an astar.GraphField (its 'list' is gone)");
    size_t n = astar_rawlen(L, 2);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, (int)i);
        lua_rawseti(L, 3, (int)i);
    }
    return 1;
}

/* The class of graph fields, made on first use. */
static void push_graph_field_mt(lua_State *L) {
    static const luaL_Reg methods[] = {{"get", graph_field_get}, {"next", graph_field_next},
                                       {"path", graph_field_path}, {"nodes", graph_field_nodes},
                                       {NULL, NULL}};
    if (luaL_newmetatable(L, GRAPH_FIELD_MT)) {
        lua_createtable(L, 0, 4);
        astar_setfuncs(L, methods);
        lua_setfield(L, -2, "__index");
        lua_pushliteral(L, GRAPH_FIELD_MT);
        lua_setfield(L, -2, "__name");
    }
}

/* Runs inside lua_pcall: the field's Dijkstra, then the field and its info. */
static int graph_field_run(lua_State *L) {
    graph_find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->run.L = L;
    astar_result res;
    astar_graph_search *s = c->run.ws->search;
    astar_status st = astar_graph_field(s, c->graph->graph, &c->q, c->sources, c->nsources, &res);
    check_answer(L, st, "distance_field");
    int32_t n = astar_graph_field_reached(s);
    check_stack(L, 8);
    lua_createtable(L, 0, 4);          /* the field */
    lua_createtable(L, 0, n);          /* cost */
    lua_createtable(L, 0, n);          /* prev */
    lua_createtable(L, n, 0);          /* list */
    int field = lua_gettop(L) - 3, cost = field + 1, prev = field + 2, list = field + 3;
    for (int32_t i = 0; i < n; i++) {
        int32_t id, from;
        double d;
        astar_graph_field_entry(s, i, &id, &d, &from);
        lua_pushnumber(L, d);
        lua_rawseti(L, cost, id + 1);
        if (from >= 0) {
            lua_pushinteger(L, (lua_Integer)from + 1);
            lua_rawseti(L, prev, id + 1);
        }
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, (lua_Integer)id + 1);
        lua_setfield(L, -2, "id");
        lua_pushnumber(L, d);
        lua_setfield(L, -2, "cost");
        lua_rawseti(L, list, i + 1);
    }
    lua_setfield(L, field, "list");
    lua_setfield(L, field, "prev");
    lua_setfield(L, field, "cost");
    lua_pushboolean(L, c->q.toward);
    lua_setfield(L, field, "toward");
    push_graph_field_mt(L);
    lua_setmetatable(L, field);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, st == ASTAR_OK ? "done" : "limit");
    lua_setfield(L, -2, "status");
    lua_pushinteger(L, (lua_Integer)res.expansions);
    lua_setfield(L, -2, "expansions");
    lua_pushinteger(L, (lua_Integer)n);
    lua_setfield(L, -2, "reached");
    return 2;
}

/* The options a field or range refuses: those of a path search, and the caller's. */
static void refuse_path_options(lua_State *L, const query_args *a, const char *fn, bool range) {
    static const struct { option_id id; const char *name, *why; } refused[] = {
        {O_HEURISTIC, "heuristic", ""}, {O_WEIGHT, "weight", ""}, {O_PARTIAL, "partial", ""},
        {O_INTERESTS, "interests", ""}, {O_INTO, "into", ""}, {O_INFO, "info", ""}};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        if (a->slot[refused[i].id]) arg_error_fmt(L, a->arg, "option '%s' does not apply to %s", refused[i].name, fn);
    if (!range && a->slot[O_GRAPH_CLAIM_RADIUS])
        arg_error_fmt(L, a->arg, "option 'claim_radius' does not apply to %s (it has no start)", fn);
    if (range && a->slot[O_MAX_COST])
        arg_error_fmt(L, a->arg, "option 'max_cost' does not apply to %s: the budget is it", fn);
}

/* The sources at arg: a node id or a list of them, read raw into a userdata scratch pinned on
 * the stack (collected with the call). */
static void read_sources(lua_State *L, graph_find_ctx *c, int arg) {
    int32_t count = astar_graph_node_count(c->graph->graph);
    if (lua_type(L, arg) == LUA_TNUMBER) {
        int32_t *ids = astar_newuserdata(L, sizeof *ids);
        ids[0] = check_node(L, arg, c->graph);
        c->sources = ids;
        c->nsources = 1;
        return;
    }
    if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "node id or list of node ids");
    size_t n = (size_t)list_length(L, arg);
    if (n < 1) arg_error_fmt(L, arg, "sources is empty");
    if (n > (size_t)INT32_MAX / 4) arg_error_fmt(L, arg, "sources is too long");
    int32_t *ids = astar_newuserdata(L, n * sizeof *ids);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, arg, (int)i);
        if ((ids[i - 1] = test_node(L, -1, count)) < 0)
            arg_error_fmt(L, arg, "sources[%d] must be a node id 1..%d, got %s", (int)i, (int)count,
                          value_str(L, -1));
        lua_pop(L, 1);
    }
    c->sources = ids;
    c->nsources = (int32_t)n;
}

/* distance_field (sources at 2, options at 3) or range (node at 2, budget at 3, options at 4). */
static int graph_field_query(lua_State *L, bool range) {
    graph_find_ctx ctx;
    graph_find_ctx *c = &ctx;
    lgraph *g = check_graph(L, 1);
    memset(c, 0, sizeof *c);
    c->graph = g;
    astar_graph_query_init(&c->q);
    int opts = range ? 4 : 3;
    lua_settop(L, opts);
    if (range) c->q.start = check_node(L, 2, g);
    double budget = 0.0;
    if (range) {
        if (lua_type(L, 3) != LUA_TNUMBER) type_error(L, 3, "number");
        budget = lua_tonumber(L, 3);
        if (!(budget >= 0)) arg_error_fmt(L, 3, "budget must be a number >= 0, got %s", value_str(L, 3));
    }
    read_sources(L, c, 2); /* pinned above the options */
    query_args a;
    const char *fn = range ? "range" : "distance_field";
    read_options(L, opts, IN_GRAPH, fn, &a, &c->q);
    refuse_path_options(L, &a, fn, range);
    if (range) refuse_toward(L, &a, fn);
    if (range) c->q.max_cost = budget;
    resolve_graph_query(L, c, &a);
    return run_query(L, &c->run, &g->pool, &g->base);
}

/* g:distance_field(sources [, opts]) -> field, info */
static int graph_distance_field(lua_State *L) { return graph_field_query(L, false); }

/* g:range(id, budget [, opts]) -> nodes, field, info: nodes = field:nodes() */
static int graph_range(lua_State *L) {
    graph_field_query(L, true);
    lua_pushcfunction(L, graph_field_nodes);
    lua_pushvalue(L, -3);
    lua_call(L, 1, 1);
    lua_insert(L, -3);
    return 3;
}

/* ---------------------------------------------------------- graph:find_nearest */

/* The targets at arg: node ids, or entries {id =, cost =} (cost >= 0, added when the path
 * ends there), read raw into a userdata scratch pinned on the stack. */
static void read_graph_targets(lua_State *L, graph_find_ctx *c, int arg) {
    luaL_checktype(L, arg, LUA_TTABLE);
    int32_t count = astar_graph_node_count(c->graph->graph);
    size_t n = (size_t)list_length(L, arg);
    if (n < 1) arg_error_fmt(L, arg, "targets is empty");
    if (n > (size_t)INT32_MAX / 16) arg_error_fmt(L, arg, "targets is too long");
    double *costs = astar_newuserdata(L, n * (sizeof(double) + sizeof(int32_t)));
    int32_t *ids = (int32_t *)(void *)(costs + n);
    bool any_cost = false;
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, arg, (int)i);
        costs[i - 1] = 0.0;
        if (lua_type(L, -1) == LUA_TTABLE) {
            lua_pushliteral(L, "cost");
            lua_rawget(L, -2);
            if (!lua_isnil(L, -1)) {
                double v = lua_tonumber(L, -1);
                if (lua_type(L, -1) != LUA_TNUMBER || !(v >= 0 && v <= ASTAR_MAX_VALUE))
                    arg_error_fmt(L, arg, "targets[%d].cost must be a number in 0.." MAX_VALUE_STR ", got %s",
                                  (int)i, value_str(L, -1));
                costs[i - 1] = v;
                any_cost = true;
            }
            lua_pop(L, 1);
            lua_pushliteral(L, "id");
            lua_rawget(L, -2);
            lua_remove(L, -2);
        }
        if ((ids[i - 1] = test_node(L, -1, count)) < 0)
            arg_error_fmt(L, arg, "targets[%d] must be a node id 1..%d or {id =, cost =}, got %s", (int)i,
                          (int)count, value_str(L, -1));
        lua_pop(L, 1);
    }
    c->q.targets = ids;
    c->q.ntargets = (int32_t)n;
    c->q.target_costs = any_cost ? costs : NULL;
    c->q.goal = ids[0]; /* ignored by the search, checked like a goal */
}

/* g:find_nearest(a, targets [, opts]) -> ids, info | nil, info: info.target is the index of
 * the target reached. */
static int graph_find_nearest(lua_State *L) {
    graph_find_ctx ctx;
    graph_find_ctx *c = &ctx;
    lgraph *g = check_graph(L, 1);
    memset(c, 0, sizeof *c);
    c->graph = g;
    astar_graph_query_init(&c->q);
    c->q.start = check_node(L, 2, g);
    lua_settop(L, 4);
    read_graph_targets(L, c, 3);
    query_args a;
    read_options(L, 4, IN_GRAPH, "find_nearest", &a, &c->q);
    static const struct { option_id id; const char *name; } refused[] = {
        {O_PARTIAL, "partial"}, {O_INTERESTS, "interests"}};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        if (a.slot[refused[i].id]) arg_error_fmt(L, 4, "option '%s' does not apply to find_nearest", refused[i].name);
    refuse_toward(L, &a, "find_nearest");
    resolve_graph_query(L, c, &a);
    return run_query(L, &c->run, &g->pool, &g->base);
}

static const luaL_Reg GRAPH_METHODS[] = {
    {"size", graph_size},               {"version", graph_version}, {"add_node", graph_add_node},
    {"add_edge", graph_add_edge},       {"add_arc", graph_add_arc},
    {"remove_edge", graph_remove_edge}, {"remove_arc", graph_remove_arc},
    {"arc_cost", graph_arc_cost},       {"set_blocked", graph_set_blocked},
    {"is_blocked", graph_is_blocked},   {"node", graph_node},
    {"neighbours", graph_neighbours},   {NULL, NULL}};
static const lquery_method GRAPH_QUERIES[] = {{"find", graph_find, graph_find_run},
                                              {"distance_field", graph_distance_field, graph_field_run},
                                              {"range", graph_range, graph_field_run},
                                              {"find_nearest", graph_find_nearest, graph_find_run},
                                              {NULL, NULL, NULL}};

const lclass GRAPH_CLASS = {
    .name = GRAPH_MT, .what = "graph", .methods = GRAPH_METHODS, .queries = GRAPH_QUERIES,
    .tostring = graph_tostring, .field = graph_field, .free = graph_free};
