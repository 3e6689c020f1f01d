/*
 * astar.core -- the Lua binding of the C core: userdata, argument checks and
 * callback trampolines. Convenience belongs in lua/astar/init.lua.
 *
 * Memory: core objects allocate through the interpreter's allocator and are
 * owned by userdata whose __gc frees them, so an error (a longjmp) at any point
 * leaks nothing. A query runs inside lua_pcall: an error raised by a script
 * callback unwinds the core, the binding releases the workspace and the
 * "in use" marks, and re-raises the same error value.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "compat.h"
#include "png.h"

#if defined(__GNUC__)
#define ASTAR_EXPORT __attribute__((visibility("default")))
#else
#define ASTAR_EXPORT
#endif

#define GRID_MT "astar.Grid"
#define LAYER_MT "astar.Influence"
#define CLAIMS_MT "astar.Claims"
#define MASK_MT "astar.Mask"
#define FIELD_MT "astar.Field"
#define JOB_MT "astar.Search"
#define GRAPH_MT "astar.Graph"
#define GRAPH_CLAIMS_MT "astar.GraphClaims"

/* Every userdata starts with this, so one __index serves width/height for all. */
typedef struct lobject {
    int32_t width, height;
    int readers; /* queries running now that read this object */
    bool freed;  /* closed (__close or an explicit __gc): a suspended search must not read it */
} lobject;

typedef struct workspace {
    astar_search *search;
    bool busy;
    struct workspace *next;
} workspace;

typedef struct lgrid {
    lobject base;
    astar_grid *grid;
    workspace *pool; /* one per query running at once (reentrant finds) */
    astar_many *many; /* find_many's workspaces, made on its first threaded call */
} lgrid;

typedef struct llayer {
    lobject base;
    astar_layer *layer;
} llayer;

typedef struct lclaims {
    lobject base;
    astar_claims *claims; /* uservalue: { [unit key] = slot } */
} lclaims;

typedef struct lfield {
    lobject base;
    astar_field *field;
} lfield;

typedef struct lmask {
    lobject base;
    astar_mask *mask;
} lmask;

/* ------------------------------------------------------------ helpers */

static astar_alloc lua_allocator(lua_State *L) {
    astar_alloc a;
    a.fn = lua_getallocf(L, &a.ud);
    return a;
}

/* Pushes a number as Lua prints it, but integers without a ".0" on every version. */
static const char *num_str(lua_State *L, lua_Number n) {
    if (n == floor(n) && fabs(n) <= 2147483647.0) return lua_pushfstring(L, "%d", (int)n);
    return lua_pushfstring(L, "%f", n);
}

static const char *value_str(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TNUMBER) return num_str(L, lua_tonumber(L, idx));
    if (lua_type(L, idx) == LUA_TSTRING) return lua_pushfstring(L, "'%s'", lua_tostring(L, idx));
    return luaL_typename(L, idx);
}

static int arg_error_fmt(lua_State *L, int arg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const char *msg = lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return luaL_argerror(L, arg, msg);
}

static int type_error(lua_State *L, int arg, const char *expected) {
    return arg_error_fmt(L, arg, "%s expected, got %s", expected, luaL_typename(L, arg));
}

/* An integral number (2.0 is fine, 2.5 and "2" are not) within lo..hi. */
static lua_Integer check_integer(lua_State *L, int arg, const char *what, lua_Integer lo,
                                 lua_Integer hi) {
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "integer");
    lua_Number n = lua_tonumber(L, arg);
    if (n != floor(n) || n != n)
        arg_error_fmt(L, arg, "%s must be an integer, got %s", what, value_str(L, arg));
    if (n < (lua_Number)lo || n > (lua_Number)hi)
        arg_error_fmt(L, arg, "%s out of range %s..%s, got %s", what, num_str(L, (lua_Number)lo),
                      num_str(L, (lua_Number)hi), value_str(L, arg));
    return (lua_Integer)n;
}

/* A 1-based coordinate of the Lua API, returned 0-based. */
static int32_t check_coord(lua_State *L, int arg, const char *what, int32_t size) {
    return (int32_t)check_integer(L, arg, what, 1, size) - 1;
}

static bool is_callable(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TFUNCTION) return true;
    if (!luaL_getmetafield(L, idx, "__call")) return false;
    lua_pop(L, 1);
    return true;
}

static void *check_object(lua_State *L, int arg, const char *mt, const char *name) {
    void *p = astar_testudata(L, arg, mt);
    if (!p) type_error(L, arg, name);
    return p;
}

static lgrid *check_grid(lua_State *L, int arg) {
    lgrid *g = check_object(L, arg, GRID_MT, GRID_MT);
    if (!g->grid) luaL_error(L, "attempt to use a freed astar.Grid");
    return g;
}

static llayer *check_layer(lua_State *L, int arg) {
    llayer *l = check_object(L, arg, LAYER_MT, LAYER_MT);
    if (!l->layer) luaL_error(L, "attempt to use a freed astar.Influence");
    return l;
}

static lclaims *check_claims(lua_State *L, int arg) {
    lclaims *c = check_object(L, arg, CLAIMS_MT, CLAIMS_MT);
    if (!c->claims) luaL_error(L, "attempt to use a freed astar.Claims");
    return c;
}

/* Writers call this: a callback may not change what its own query reads. */
static void check_writable(lua_State *L, const lobject *o, const char *what) {
    if (o->readers > 0)
        luaL_error(L, "%s is in use by a running query (a callback cannot change what its query reads)",
                   what);
}

/*
 * The error Lua raises itself when its allocator fails: the bare message, with no
 * "chunk:line:" prefix (luaL_error would add the caller's position). The string is
 * Lua's own preallocated one, so pushing it allocates nothing.
 */
static int no_memory(lua_State *L) {
    lua_pushliteral(L, "not enough memory");
    return lua_error(L);
}

/* luaL_checkstack would report a failed stack reallocation as "stack overflow". */
static void check_stack(lua_State *L, int n) {
    if (!lua_checkstack(L, n)) no_memory(L);
}

/* The Moving AI parsers report failure as text only; a memory failure must still read as one. */
static int parse_error(lua_State *L, const char *name, const char *err) {
    if (strncmp(err, "not enough memory", strlen("not enough memory")) == 0) return no_memory(L);
    return luaL_error(L, "%s: %s", name, err);
}

/* Terrain cost of a Lua value: number > 0 (math.huge blocks) or false (blocks). */
static double check_cost(lua_State *L, int arg) {
    if (lua_type(L, arg) == LUA_TBOOLEAN && !lua_toboolean(L, arg)) return INFINITY;
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "number or false");
    lua_Number c = lua_tonumber(L, arg);
    if (!(c > 0))
        arg_error_fmt(L, arg, "cost must be a number > 0, false or math.huge, got %s",
                      value_str(L, arg));
    return c;
}

static void push_cost(lua_State *L, double c) {
    if (c == INFINITY)
        lua_pushboolean(L, 0);
    else
        lua_pushnumber(L, c);
}

/* The modes a user may name; a grid's diagonal field also reads "hex" (ASTAR_DIAG_HEX). */
static const char *const DIAGONAL_NAMES[] = {"never", "always", "one_walkable", "no_corner_cut", NULL};
static const char *const MODE_NAMES[] = {"never", "always", "one_walkable", "no_corner_cut", "hex"};

static astar_diagonal check_diagonal(lua_State *L, int arg, int value_idx) {
    const char *s = lua_type(L, value_idx) == LUA_TSTRING ? lua_tostring(L, value_idx) : NULL;
    for (int i = 0; s && DIAGONAL_NAMES[i]; i++)
        if (strcmp(s, DIAGONAL_NAMES[i]) == 0) return (astar_diagonal)i;
    arg_error_fmt(L, arg,
                  "option 'diagonal' must be \"never\", \"always\", \"one_walkable\" or "
                  "\"no_corner_cut\", got %s",
                  value_str(L, value_idx));
    return ASTAR_DIAG_NO_CORNER_CUT;
}

/* Fails with "unknown option 'k'" for a key outside names. Leaves the stack as it was. */
static void check_option_keys(lua_State *L, int arg, const char *const names[]) {
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        lua_pop(L, 1);
        bool known = false;
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *k = lua_tostring(L, -1);
            for (int i = 0; names[i] && !known; i++) known = strcmp(k, names[i]) == 0;
        }
        if (!known) {
            const char *v = value_str(L, -1);
            arg_error_fmt(L, arg, "unknown option %s", v);
        }
    }
}

/* Reads option `name` of the table at arg onto the stack top; returns whether it is non-nil. */
static bool get_option(lua_State *L, int arg, const char *name) {
    lua_getfield(L, arg, name);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return false;
    }
    return true;
}

static lua_Number option_number(lua_State *L, int arg, const char *name, lua_Number lo,
                                const char *rule) {
    lua_Number n = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(n >= lo))
        arg_error_fmt(L, arg, "option '%s' must be %s, got %s", name, rule, value_str(L, -1));
    return n;
}

/* __index for every type: methods first, then the read-only fields width/height (and a
 * grid's diagonal mode). */
static int object_index(lua_State *L) {
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    const char *k = lua_tostring(L, 2);
    const lobject *o = lua_touserdata(L, 1);
    if (k && o && lua_type(L, 2) == LUA_TSTRING) {
        if (strcmp(k, "width") == 0) return lua_pushinteger(L, o->width), 1;
        if (strcmp(k, "height") == 0) return lua_pushinteger(L, o->height), 1;
        const lgrid *g = astar_testudata(L, 1, GRID_MT);
        if (g && g->grid && strcmp(k, "diagonal") == 0)
            return lua_pushstring(L, MODE_NAMES[astar_grid_diagonal(g->grid)]), 1;
        if (g && g->grid && strcmp(k, "topology") == 0)
            return lua_pushstring(L, astar_grid_diagonal(g->grid) == ASTAR_DIAG_HEX ? "hex" : "square"), 1;
    }
    return 0;
}

static int object_newindex(lua_State *L) {
    const char *key = astar_tolstring(L, 2, NULL);
    return luaL_error(L, "cannot set field '%s' of %s: its fields are read-only", key,
                      astar_tolstring(L, 1, NULL));
}

static int object_size(lua_State *L) {
    const lobject *o = astar_testudata(L, 1, GRID_MT);
    if (!o) o = astar_testudata(L, 1, LAYER_MT);
    if (!o) o = astar_testudata(L, 1, CLAIMS_MT);
    if (!o) return type_error(L, 1, "astar object");
    lua_pushinteger(L, o->width);
    lua_pushinteger(L, o->height);
    return 2;
}

/* Makes the metatable `name` with methods in __index and `gc` as __gc (and __close). */
static void new_class(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc,
                      lua_CFunction tostring) {
    luaL_newmetatable(L, name);
    lua_newtable(L);
    astar_setfuncs(L, methods);
    lua_pushcfunction(L, object_size);
    lua_setfield(L, -2, "size");
    lua_pushcclosure(L, object_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, object_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
#if LUA_VERSION_NUM >= 504
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__close");
#endif
    lua_pushcfunction(L, tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}

/* A zeroed userdata of `size` with its metatable (and so its __gc) set before any init. */
static void *new_object(lua_State *L, size_t size, const char *mt) {
    void *p = astar_newuserdata(L, size);
    memset(p, 0, size);
    astar_setmetatable(L, mt);
    return p;
}

static void check_size_args(lua_State *L, int32_t *w, int32_t *h) {
    *w = (int32_t)check_integer(L, 1, "width", 1, ASTAR_MAX_SIDE);
    *h = (int32_t)check_integer(L, 2, "height", 1, ASTAR_MAX_SIDE);
}

/* --------------------------------------------------------------- grid */

static int grid_gc(lua_State *L) {
    lgrid *g = luaL_checkudata(L, 1, GRID_MT);
    check_writable(L, &g->base, "grid"); /* only a direct __close/__gc call can get here */
    astar_alloc a = lua_allocator(L);
    while (g->pool) {
        workspace *w = g->pool;
        g->pool = w->next;
        astar_search_free(w->search);
        a.fn(a.ud, w, sizeof *w, 0);
    }
    astar_many_free(g->many);
    g->many = NULL;
    astar_grid_free(g->grid);
    g->grid = NULL;
    g->base.freed = true;
    return 0;
}

static int grid_tostring(lua_State *L) {
    lgrid *g = luaL_checkudata(L, 1, GRID_MT);
    lua_pushfstring(L, "astar.Grid(%dx%d)%s", (int)g->base.width, (int)g->base.height,
                    g->grid ? "" : " (freed)");
    return 1;
}

static const char *const GRID_OPTIONS[] = {"diagonal", "cost", "topology", NULL};

static int l_grid(lua_State *L) {
    int32_t w, h;
    check_size_args(L, &w, &h);
    astar_diagonal diag = ASTAR_DIAG_NO_CORNER_CUT;
    double cost = 1.0;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        check_option_keys(L, 3, GRID_OPTIONS);
        if (get_option(L, 3, "diagonal")) diag = check_diagonal(L, 3, lua_gettop(L));
        if (get_option(L, 3, "topology")) {
            const char *t = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
            if (strcmp(t, "hex") == 0) {
                lua_getfield(L, 3, "diagonal");
                if (!lua_isnil(L, -1))
                    arg_error_fmt(L, 3, "option 'diagonal' cannot be used with topology \"hex\"");
                diag = ASTAR_DIAG_HEX;
            } else if (strcmp(t, "square") != 0) {
                arg_error_fmt(L, 3, "option 'topology' must be \"square\" or \"hex\", got %s",
                              value_str(L, -1));
            }
        }
        if (get_option(L, 3, "cost")) {
            if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1))
                cost = INFINITY;
            else
                cost = option_number(L, 3, "cost", 0, "a number > 0 or false");
            if (!(cost > 0))
                arg_error_fmt(L, 3, "option 'cost' must be a number > 0 or false, got %s",
                              value_str(L, -1));
        }
    }
    lgrid *g = new_object(L, sizeof *g, GRID_MT);
    astar_alloc a = lua_allocator(L);
    g->grid = astar_grid_new(w, h, diag, &a);
    if (!g->grid) return no_memory(L);
    if (cost != 1.0) astar_grid_fill(g->grid, cost);
    g->base.width = w;
    g->base.height = h;
    return 1;
}

static int grid_set_cost(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    int32_t x = check_coord(L, 2, "x", g->base.width), y = check_coord(L, 3, "y", g->base.height);
    double c = check_cost(L, 4);
    check_writable(L, &g->base, "grid");
    astar_grid_set_cost(g->grid, x, y, c);
    return 0;
}

static int grid_get_cost(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    int32_t x = check_coord(L, 2, "x", g->base.width), y = check_coord(L, 3, "y", g->base.height);
    push_cost(L, astar_grid_get_cost(g->grid, x, y));
    return 1;
}

static int grid_set_blocked(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    int32_t x = check_coord(L, 2, "x", g->base.width), y = check_coord(L, 3, "y", g->base.height);
    if (lua_type(L, 4) != LUA_TBOOLEAN) type_error(L, 4, "boolean");
    check_writable(L, &g->base, "grid");
    double old = astar_grid_get_cost(g->grid, x, y);
    if (lua_toboolean(L, 4))
        astar_grid_set_cost(g->grid, x, y, INFINITY);
    else if (old == INFINITY)
        astar_grid_set_cost(g->grid, x, y, 1.0);
    return 0;
}

static int grid_is_walkable(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    int32_t x = check_coord(L, 2, "x", g->base.width), y = check_coord(L, 3, "y", g->base.height);
    lua_pushboolean(L, astar_grid_get_cost(g->grid, x, y) != INFINITY);
    return 1;
}

static int grid_component(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    int32_t x = check_coord(L, 2, "x", g->base.width), y = check_coord(L, 3, "y", g->base.height);
    int32_t id;
    if (astar_grid_component(g->grid, x, y, &id) != ASTAR_OK) return no_memory(L);
    if (id < 0)
        lua_pushboolean(L, 0);
    else
        lua_pushinteger(L, (lua_Integer)id + 1);
    return 1;
}

static int grid_reachable(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    int32_t sx = check_coord(L, 2, "x", g->base.width), sy = check_coord(L, 3, "y", g->base.height);
    int32_t gx = check_coord(L, 4, "x", g->base.width), gy = check_coord(L, 5, "y", g->base.height);
    int yes;
    if (astar_grid_reachable(g->grid, sx, sy, gx, gy, &yes) != ASTAR_OK) return no_memory(L);
    lua_pushboolean(L, yes);
    return 1;
}

/*
 * grid:landmarks(k): builds k landmarks (0 drops them; see astar_grid_landmarks), and
 * grid:landmarks() asks; both return how many queries use now (0 once stale) and the
 * bytes they hold.
 */
static int grid_landmarks(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    if (!lua_isnoneornil(L, 2)) {
        int32_t k = (int32_t)check_integer(L, 2, "k", 0, ASTAR_MAX_LANDMARKS);
        check_writable(L, &g->base, "grid");
        if (astar_grid_landmarks(g->grid, k) != ASTAR_OK) return no_memory(L);
    }
    lua_pushinteger(L, astar_grid_landmark_count(g->grid));
    lua_pushinteger(L, (lua_Integer)astar_grid_landmark_bytes(g->grid));
    return 2;
}

static int grid_fill(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    double c = check_cost(L, 2);
    check_writable(L, &g->base, "grid");
    astar_grid_fill(g->grid, c);
    return 0;
}

/* grid:load(rows [, legend]): every row checked before any cell changes. */
static int grid_load(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    int32_t w = g->base.width, h = g->base.height;
    luaL_checktype(L, 2, LUA_TTABLE);
    double legend[256];
    bool known[256] = {false};
    if (lua_isnoneornil(L, 3)) {
        legend['.'] = 1.0;
        known['.'] = true;
        legend['#'] = INFINITY;
        known['#'] = true;
    } else {
        luaL_checktype(L, 3, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            size_t len = 0;
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &len) : NULL;
            if (!k || len != 1)
                arg_error_fmt(L, 3, "legend keys must be one-character strings, got %s",
                              value_str(L, -2));
            double c = INFINITY;
            if (!(lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1))) {
                c = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
                if (!(c > 0))
                    arg_error_fmt(L, 3, "legend['%s'] must be a number > 0 or false, got %s", k,
                                  value_str(L, -1));
            }
            unsigned char ch = (unsigned char)k[0];
            legend[ch] = c;
            known[ch] = true;
            lua_pop(L, 1);
        }
    }
    size_t nrows = astar_rawlen(L, 2);
    if (nrows != (size_t)h)
        arg_error_fmt(L, 2, "expected %d rows, got %d", (int)h, (int)nrows);
    for (int32_t y = 0; y < h; y++) {
        lua_rawgeti(L, 2, y + 1);
        size_t len = 0;
        const char *row = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (!row) arg_error_fmt(L, 2, "row %d must be a string, got %s", (int)y + 1, luaL_typename(L, -1));
        if (len != (size_t)w)
            arg_error_fmt(L, 2, "row %d has %d characters, expected %d", (int)y + 1, (int)len, (int)w);
        for (int32_t x = 0; x < w; x++)
            if (!known[(unsigned char)row[x]])
                arg_error_fmt(L, 2, "row %d, column %d: character '%c' is not in the legend",
                              (int)y + 1, (int)x + 1, row[x]);
        lua_pop(L, 1);
    }
    check_writable(L, &g->base, "grid");
    for (int32_t y = 0; y < h; y++) {
        lua_rawgeti(L, 2, y + 1);
        const char *row = lua_tostring(L, -1);
        for (int32_t x = 0; x < w; x++)
            astar_grid_set_cost(g->grid, x, y, legend[(unsigned char)row[x]]);
        lua_pop(L, 1);
    }
    return 0;
}

/* --------------------------------------------------------------- find */

typedef struct find_ctx {
    lua_State *L;
    lgrid *grid;
    workspace *ws;
    astar_query q;
    astar_layer_ref layers[ASTAR_MAX_LAYERS];
    lobject *read[ASTAR_MAX_LAYERS + 3]; /* marked "in use" while the query runs: layers, claims,
                                         mask and the grid */
    int nread;
    astar_field *field;                 /* distance_field and range: what to fill */
    const int32_t *cells;
    int32_t ncells;
    astar_field_kind kind;
    const int32_t *endpoints;           /* find_many: 4 per query, 0-based */
    int32_t nqueries;
    astar_result *results;
    int threads;                        /* 0: one per processor */
} find_ctx;

/* Stack slots of the protected runner: 1 ctx, then the callbacks (or nil). */
enum { RUN_CTX = 1, RUN_NODE_COST, RUN_EDGE_COST, RUN_HEURISTIC, RUN_NARGS = 4 };

/* Reads a cost callback's result; raises (naming the callback) on a bad one. */
/* Where a callback was asked: cell (x, y), or graph node x when y < 0 (0-based in, 1-based out). */
static const char *callback_place(lua_State *L, int32_t x, int32_t y) {
    if (y < 0) return lua_pushfstring(L, "node %d", (int)x + 1);
    return lua_pushfstring(L, "(%d, %d)", (int)x + 1, (int)y + 1);
}

static int callback_result(lua_State *L, const char *name, int32_t x, int32_t y, double *extra) {
    int t = lua_type(L, -1);
    int r = ASTAR_CB_PASS;
    *extra = 0.0;
    if (t == LUA_TNUMBER) {
        lua_Number v = lua_tonumber(L, -1);
        if (!(v >= 0)) {
            const char *value = value_str(L, -1); /* before the place: both push a string */
            luaL_error(L, "%s returned %s for %s: expected a number >= 0, nil or false", name,
                       value, callback_place(L, x, y));
        }
        *extra = v;
    } else if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
        r = ASTAR_CB_BLOCK;
    } else if (t != LUA_TNIL) {
        const char *type = luaL_typename(L, -1);
        luaL_error(L, "%s returned a %s for %s: expected a number >= 0, nil or false", name, type,
                   callback_place(L, x, y));
    }
    lua_pop(L, 1);
    return r;
}

static int node_cost_trampoline(void *ud, int32_t x, int32_t y, double *extra) {
    lua_State *L = ((find_ctx *)ud)->L;
    lua_pushvalue(L, RUN_NODE_COST);
    lua_pushinteger(L, x + 1);
    lua_pushinteger(L, y + 1);
    lua_call(L, 2, 1);
    return callback_result(L, "node_cost", x, y, extra);
}

static int edge_cost_trampoline(void *ud, int32_t x, int32_t y, int32_t fx, int32_t fy,
                                double *extra) {
    lua_State *L = ((find_ctx *)ud)->L;
    lua_pushvalue(L, RUN_EDGE_COST);
    lua_pushinteger(L, x + 1);
    lua_pushinteger(L, y + 1);
    lua_pushinteger(L, fx + 1);
    lua_pushinteger(L, fy + 1);
    lua_call(L, 4, 1);
    return callback_result(L, "edge_cost", x, y, extra);
}

static double heuristic_trampoline(void *ud, int32_t x, int32_t y, int32_t gx, int32_t gy) {
    lua_State *L = ((find_ctx *)ud)->L;
    lua_pushvalue(L, RUN_HEURISTIC);
    lua_pushinteger(L, x + 1);
    lua_pushinteger(L, y + 1);
    lua_pushinteger(L, gx + 1);
    lua_pushinteger(L, gy + 1);
    lua_call(L, 4, 1);
    lua_Number h = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(h >= 0) || h == HUGE_VAL)
        luaL_error(L, "heuristic returned %s for (%d, %d): expected a finite number >= 0",
                   value_str(L, -1), (int)x + 1, (int)y + 1);
    lua_pop(L, 1);
    return h;
}

static const char *const FIND_OPTIONS[] = {
    "heuristic", "weight",     "diagonal",      "influence",    "influence_weight",
    "claims",    "unit",       "claim_penalty", "claim_radius", "node_cost",
    "edge_cost", "max_expansions", "max_cost",  "partial",      "known",
    "noise",     "seed",       "turn_penalty",  "claim_window", "jump",     NULL};

static const char *const HEURISTIC_NAMES[] = {"octile", "manhattan", "euclidean", "chebyshev",
                                              "zero", "hex", NULL};

static void mark_read(find_ctx *c, lobject *o) {
    for (int i = 0; i < c->nread; i++)
        if (c->read[i] == o) return;
    c->read[c->nread++] = o;
}

static llayer *option_layer(lua_State *L, int arg, int idx, const lgrid *g, const char *what) {
    llayer *l = astar_testudata(L, idx, LAYER_MT);
    if (!l || !l->layer)
        arg_error_fmt(L, arg, "%s must be an astar.Influence, got %s", what, luaL_typename(L, idx));
    if (l->base.width != g->base.width || l->base.height != g->base.height)
        arg_error_fmt(L, arg, "%s is %dx%d but the grid is %dx%d", what, (int)l->base.width,
                      (int)l->base.height, (int)g->base.width, (int)g->base.height);
    return l;
}

/*
 * Reads the options table at `arg` into c->q. Callbacks go to the stack slots
 * cb[0..2] (node_cost, edge_cost, heuristic), which hold nil otherwise.
 */
static void read_find_options(lua_State *L, int arg, find_ctx *c, const int cb[3]) {
    astar_query *q = &c->q;
    luaL_checktype(L, arg, LUA_TTABLE);
    check_option_keys(L, arg, FIND_OPTIONS);
    check_stack(L, ASTAR_MAX_LAYERS + 16);
    int top = lua_gettop(L);

    if (get_option(L, arg, "heuristic")) {
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *s = lua_tostring(L, -1);
            int i = 0;
            while (HEURISTIC_NAMES[i] && strcmp(s, HEURISTIC_NAMES[i]) != 0) i++;
            if (!HEURISTIC_NAMES[i])
                arg_error_fmt(L, arg,
                              "option 'heuristic' must be \"octile\", \"manhattan\", "
                              "\"euclidean\", \"chebyshev\", \"zero\", \"hex\" or a function, got %s",
                              value_str(L, -1));
            q->heuristic = (astar_heuristic)i;
            /* A step to a diagonal hex neighbour is 1 but a square diagonal: the square
             * distances overestimate on hexes, and hex steps on squares. */
            bool hex = astar_grid_diagonal(c->grid->grid) == ASTAR_DIAG_HEX;
            bool fits = q->heuristic == ASTAR_H_ZERO || q->heuristic == ASTAR_H_CHEBYSHEV ||
                        hex == (q->heuristic == ASTAR_H_HEX);
            if (!fits)
                arg_error_fmt(L, arg, "option 'heuristic' %s is not admissible on a %s grid (use %s)",
                              value_str(L, -1), hex ? "hex" : "square",
                              hex ? "\"hex\", \"chebyshev\", \"zero\" or a function"
                                  : "\"octile\", \"manhattan\", \"euclidean\", \"chebyshev\" or \"zero\"");
        } else if (is_callable(L, -1)) {
            q->heuristic = ASTAR_H_CUSTOM;
            q->heuristic_fn = heuristic_trampoline;
            q->heuristic_ud = c;
            lua_replace(L, cb[2]);
        } else {
            arg_error_fmt(L, arg, "option 'heuristic' must be a string or a function, got %s",
                          luaL_typename(L, -1));
        }
    }
    if (get_option(L, arg, "weight")) {
        q->weight = option_number(L, arg, "weight", 1, "a finite number >= 1");
        if (q->weight == HUGE_VAL)
            arg_error_fmt(L, arg, "option 'weight' must be a finite number >= 1, got %s",
                          value_str(L, -1));
    }
    if (get_option(L, arg, "diagonal")) {
        if (astar_grid_diagonal(c->grid->grid) == ASTAR_DIAG_HEX)
            arg_error_fmt(L, arg, "option 'diagonal' does not apply to a hex grid");
        q->diagonal = check_diagonal(L, arg, lua_gettop(L));
    }

    bool have_weight = get_option(L, arg, "influence_weight");
    double single_weight = 1.0;
    if (have_weight) {
        single_weight = option_number(L, arg, "influence_weight", -HUGE_VAL, "a finite number");
        if (!isfinite(single_weight))
            arg_error_fmt(L, arg, "option 'influence_weight' must be a finite number, got %s",
                          value_str(L, -1));
    }
    if (get_option(L, arg, "influence")) {
        int inf = lua_gettop(L);
        if (astar_testudata(L, inf, LAYER_MT)) {
            llayer *l = option_layer(L, arg, inf, c->grid, "option 'influence'");
            c->layers[0].layer = l->layer;
            c->layers[0].weight = single_weight;
            q->nlayers = 1;
            mark_read(c, &l->base);
        } else if (lua_type(L, inf) == LUA_TTABLE) {
            if (have_weight)
                arg_error_fmt(L, arg, "option 'influence_weight' cannot be used with a list of "
                                      "layers: give each layer its weight");
            size_t n = astar_rawlen(L, inf);
            if (n > ASTAR_MAX_LAYERS)
                arg_error_fmt(L, arg, "option 'influence' lists %d layers, at most %d are allowed",
                              (int)n, ASTAR_MAX_LAYERS);
            for (size_t i = 1; i <= n; i++) {
                lua_rawgeti(L, inf, (int)i);
                if (lua_type(L, -1) != LUA_TTABLE)
                    arg_error_fmt(L, arg, "option 'influence'[%d] must be a table {layer, weight}, got %s",
                                  (int)i, luaL_typename(L, -1));
                int entry = lua_gettop(L);
                lua_rawgeti(L, entry, 1);
                const char *what = lua_pushfstring(L, "option 'influence'[%d][1]", (int)i);
                llayer *l = option_layer(L, arg, entry + 1, c->grid, what);
                lua_rawgeti(L, entry, 2);
                double w = 1.0;
                if (!lua_isnil(L, -1)) {
                    w = lua_tonumber(L, -1);
                    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(w))
                        arg_error_fmt(L, arg, "option 'influence'[%d][2] (weight) must be a finite number, got %s",
                                      (int)i, value_str(L, -1));
                }
                c->layers[i - 1].layer = l->layer;
                c->layers[i - 1].weight = w;
                mark_read(c, &l->base);
                lua_settop(L, entry - 1);
                lua_rawgeti(L, inf, (int)i); /* pin the layer (see below) */
                lua_rawgeti(L, -1, 1);
                lua_remove(L, -2);
            }
            q->nlayers = (int)n;
        } else {
            arg_error_fmt(L, arg, "option 'influence' must be an astar.Influence or a list of {layer, weight}, got %s",
                          luaL_typename(L, inf));
        }
        q->layers = c->layers;
        /* The layers stay on the stack until the query ends: a callback may drop every
         * other reference to them (opts.influence = nil) and run the collector. */
        if (lua_type(L, inf) == LUA_TTABLE) { /* stack: [weight] list L1 .. Ln */
            lua_remove(L, inf);
            if (have_weight) lua_remove(L, top + 1);
        } else if (have_weight) { /* stack: weight layer; without a weight the layer is
                                    already where it stays */
            lua_replace(L, top + 1);
        }
        top += q->nlayers;
    } else if (have_weight) {
        arg_error_fmt(L, arg, "option 'influence_weight' needs option 'influence'");
    }
    lua_settop(L, top);

    lclaims *cl = NULL;
    if (get_option(L, arg, "claims")) {
        cl = astar_testudata(L, -1, CLAIMS_MT);
        if (!cl || !cl->claims)
            arg_error_fmt(L, arg, "option 'claims' must be an astar.Claims, got %s",
                          luaL_typename(L, -1));
        if (cl->base.width != c->grid->base.width || cl->base.height != c->grid->base.height)
            arg_error_fmt(L, arg, "option 'claims' is for a %dx%d grid but this grid is %dx%d",
                          (int)cl->base.width, (int)cl->base.height, (int)c->grid->base.width,
                          (int)c->grid->base.height);
        q->claims = cl->claims;
        mark_read(c, &cl->base);
        top++; /* pinned for the query, like the layers */
    }
    static const char *const CLAIM_OPTIONS[] = {"unit", "claim_penalty", "claim_radius"};
    for (int i = 0; i < 3 && !cl; i++)
        if (get_option(L, arg, CLAIM_OPTIONS[i]))
            arg_error_fmt(L, arg, "option '%s' needs option 'claims'", CLAIM_OPTIONS[i]);
    if (cl && get_option(L, arg, "unit")) {
        int key = lua_gettop(L);
        int t = lua_type(L, key);
        if (!(t == LUA_TSTRING ||
              (t == LUA_TNUMBER && lua_tonumber(L, key) == floor(lua_tonumber(L, key)))))
            arg_error_fmt(L, arg, "option 'unit' must be an integer or a string, got %s",
                          value_str(L, key));
        lua_getfield(L, arg, "claims");
        astar_getuservalue(L, -1);
        lua_pushvalue(L, key);
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TNUMBER) q->unit = (int32_t)lua_tointeger(L, -1);
    }
    lua_settop(L, top);
    if (cl && get_option(L, arg, "claim_penalty")) {
        q->claim_penalty = option_number(L, arg, "claim_penalty", 0, "a finite number >= 0");
        if (q->claim_penalty == HUGE_VAL)
            arg_error_fmt(L, arg, "option 'claim_penalty' must be a finite number >= 0, got %s",
                          value_str(L, -1));
    }
    if (cl && get_option(L, arg, "claim_radius")) {
        lua_Number r = option_number(L, arg, "claim_radius", 0, "an integer >= 0");
        if (r != floor(r))
            arg_error_fmt(L, arg, "option 'claim_radius' must be an integer >= 0, got %s",
                          value_str(L, -1));
        q->claim_radius = r > 2e9 ? 2000000000 : (int32_t)r;
    }
    if (get_option(L, arg, "claim_window")) {
        if (!cl) arg_error_fmt(L, arg, "option 'claim_window' needs option 'claims'");
        lua_Number w = option_number(L, arg, "claim_window", 0, "an integer >= 0");
        if (w != floor(w))
            arg_error_fmt(L, arg, "option 'claim_window' must be an integer >= 0, got %s",
                          value_str(L, -1));
        q->claim_window = w > 1e9 ? 1000000000 : (int32_t)w;
    }
    lua_settop(L, top);

    static const char *const CALLBACKS[] = {"node_cost", "edge_cost"};
    for (int i = 0; i < 2; i++) {
        if (!get_option(L, arg, CALLBACKS[i])) continue;
        if (!is_callable(L, -1))
            arg_error_fmt(L, arg, "option '%s' must be a function, got %s", CALLBACKS[i],
                          luaL_typename(L, -1));
        lua_replace(L, cb[i]);
        if (i == 0) {
            q->node_cost = node_cost_trampoline;
            q->node_cost_ud = c;
        } else {
            q->edge_cost = edge_cost_trampoline;
            q->edge_cost_ud = c;
        }
    }
    if (get_option(L, arg, "max_expansions")) {
        lua_Number n = option_number(L, arg, "max_expansions", 0, "an integer >= 0");
        if (n != floor(n))
            arg_error_fmt(L, arg, "option 'max_expansions' must be an integer >= 0, got %s",
                          value_str(L, -1));
        q->max_expansions = n >= 1.8e19 ? UINT64_MAX : (uint64_t)n;
    }
    if (get_option(L, arg, "max_cost"))
        q->max_cost = option_number(L, arg, "max_cost", 0, "a number >= 0");
    if (get_option(L, arg, "partial")) {
        if (lua_type(L, -1) != LUA_TBOOLEAN)
            arg_error_fmt(L, arg, "option 'partial' must be a boolean, got %s", luaL_typename(L, -1));
        q->partial = lua_toboolean(L, -1);
    }
    if (get_option(L, arg, "noise")) {
        q->noise = option_number(L, arg, "noise", 0, "a number >= 0");
        if (q->noise == HUGE_VAL)
            arg_error_fmt(L, arg, "option 'noise' must be a finite number >= 0, got %s", value_str(L, -1));
    }
    if (get_option(L, arg, "turn_penalty")) {
        q->turn_penalty = option_number(L, arg, "turn_penalty", 0, "a number >= 0");
        if (q->turn_penalty == HUGE_VAL)
            arg_error_fmt(L, arg, "option 'turn_penalty' must be a finite number >= 0, got %s",
                          value_str(L, -1));
    }
    if (get_option(L, arg, "jump")) {
        if (lua_type(L, -1) != LUA_TBOOLEAN)
            arg_error_fmt(L, arg, "option 'jump' must be a boolean, got %s", luaL_typename(L, -1));
        q->jps = lua_toboolean(L, -1) ? ASTAR_JPS_AUTO : ASTAR_JPS_OFF;
    }
    if (get_option(L, arg, "seed")) {
        int isint;
        lua_Integer seed = astar_tointegerx(L, -1, &isint);
        if (!isint || lua_type(L, -1) != LUA_TNUMBER)
            arg_error_fmt(L, arg, "option 'seed' must be an integer, got %s", value_str(L, -1));
        q->seed = (uint32_t)(uint64_t)seed; /* modulo 2^32 */
    }
    if (get_option(L, arg, "known")) {
        lmask *m = astar_testudata(L, -1, MASK_MT);
        if (!m || !m->mask)
            arg_error_fmt(L, arg, "option 'known' must be an astar.Mask, got %s", luaL_typename(L, -1));
        if (m->base.width != c->grid->base.width || m->base.height != c->grid->base.height)
            arg_error_fmt(L, arg, "option 'known' is %dx%d but the grid is %dx%d", (int)m->base.width,
                          (int)m->base.height, (int)c->grid->base.width, (int)c->grid->base.height);
        q->known = m->mask;
        mark_read(c, &m->base);
        lua_insert(L, ++top); /* pinned for the query below the other options, like the layers */
    }
    lua_settop(L, top);
}

static workspace *acquire_workspace(lua_State *L, lgrid *g) {
    for (workspace *w = g->pool; w; w = w->next)
        if (!w->busy) {
            w->busy = true;
            return w;
        }
    astar_alloc a = lua_allocator(L);
    workspace *w = a.fn(a.ud, NULL, 0, sizeof *w);
    if (!w) no_memory(L);
    w->search = astar_search_new(g->base.width, g->base.height, &a);
    if (!w->search) {
        a.fn(a.ud, w, sizeof *w, 0);
        no_memory(L);
    }
    w->busy = true;
    w->next = NULL;
    /* At the end, so the outermost query always takes the first, warm workspace. */
    workspace **tail = &g->pool;
    while (*tail) tail = &(*tail)->next;
    *tail = w;
    return w;
}

static void push_point(lua_State *L, int32_t id, int32_t width) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, id % width + 1);
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, id / width + 1);
    lua_setfield(L, -2, "y");
}

/* Pushes find's two results (path or nil, info) for a result and its path. */
static void push_answer(lua_State *L, const astar_result *r, const int32_t *ids, int32_t n,
                        int32_t width) {
    astar_status st = r->status;
    const astar_result res = *r;
    if (st == ASTAR_OK || st == ASTAR_PARTIAL) {
        lua_createtable(L, n, 0);
        for (int32_t i = 0; i < n; i++) {
            push_point(L, ids[i], width);
            lua_rawseti(L, -2, i + 1);
        }
    } else {
        lua_pushnil(L);
    }
    lua_createtable(L, 0, 5);
    lua_pushstring(L, astar_status_name(st));
    lua_setfield(L, -2, "status");
    lua_pushinteger(L, (lua_Integer)res.expansions);
    lua_setfield(L, -2, "expansions");
    if (st == ASTAR_OK || st == ASTAR_PARTIAL) {
        lua_pushnumber(L, res.cost);
        lua_setfield(L, -2, "cost");
        lua_pushinteger(L, res.length);
        lua_setfield(L, -2, "length");
    }
    if (st == ASTAR_PARTIAL) {
        lua_pushstring(L, astar_status_name(res.reason));
        lua_setfield(L, -2, "reason");
    }
    if (st == ASTAR_OK && res.target >= 0) {
        lua_pushinteger(L, res.target + 1);
        lua_setfield(L, -2, "target");
    }
}

/* find's errors: the statuses that are no answer. */
static void check_answer(lua_State *L, astar_status st, const char *fn) {
    if (st == ASTAR_ENOMEM) no_memory(L);
    if (st == ASTAR_EINVAL || st == ASTAR_EABORT) luaL_error(L, "%s failed: %s", fn, astar_status_name(st));
}

/* Runs inside lua_pcall: the search, then the result tables. */
static int find_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->L = L;
    astar_result res;
    astar_status st = astar_find(c->ws->search, c->grid->grid, &c->q, &res);
    check_answer(L, st, "find");
    int32_t n = 0;
    const int32_t *ids = astar_search_path(c->ws->search, &n);
    push_answer(L, &res, ids, n, c->grid->base.width);
    return 2;
}

/*
 * The query in c, with the options at opts_arg: callbacks in the stack slots
 * find_run expects, the objects it reads marked "in use", then the search in a
 * protected call. Returns find_run's two results or re-raises its error.
 */
static int run_query(lua_State *L, find_ctx *c, int opts_arg) {
    lgrid *g = c->grid;
    check_stack(L, RUN_NARGS + 8);
    int cb[3];
    for (int i = 0; i < 3; i++) {
        lua_pushnil(L);
        cb[i] = lua_gettop(L);
    }
    if (!lua_isnoneornil(L, opts_arg)) read_find_options(L, opts_arg, c, cb);

    c->ws = acquire_workspace(L, g);
    /* From here to the end of lua_pcall nothing may raise: the marks must be undone. */
    mark_read(c, &g->base);
    for (int i = 0; i < c->nread; i++) c->read[i]->readers++;
    lua_pushvalue(L, lua_upvalueindex(1)); /* find_run */
    lua_pushlightuserdata(L, c);
    for (int i = 0; i < 3; i++) lua_pushvalue(L, cb[i]);
    int rc = lua_pcall(L, RUN_NARGS, 2, 0);
    for (int i = 0; i < c->nread; i++) c->read[i]->readers--;
    c->ws->busy = false;
    if (rc != LUA_OK) return lua_error(L); /* the callback's own error value, unchanged */
    return 2;
}

/* The grid at 1 and the start at 2, 3 of find and find_nearest. */
static void start_query(lua_State *L, find_ctx *c) {
    lgrid *g = check_grid(L, 1);
    memset(c, 0, sizeof *c);
    c->grid = g;
    astar_query_init(&c->q);
    c->q.sx = check_coord(L, 2, "x", g->base.width);
    c->q.sy = check_coord(L, 3, "y", g->base.height);
}

/* grid:find(sx, sy, gx, gy [, opts]) -> path, info | nil, info */
static int grid_find(lua_State *L) {
    find_ctx ctx; /* lives on the C stack for the whole pcall: nothing allocated per query */
    find_ctx *c = &ctx;
    start_query(L, c);
    const lgrid *g = c->grid;
    c->q.gx = check_coord(L, 4, "x", g->base.width);
    c->q.gy = check_coord(L, 5, "y", g->base.height);
    return run_query(L, c, 6);
}

/* One point of a list: {x=, y=} or {x, y}, 1-based, inside the grid; its node id. */
static int32_t list_point(lua_State *L, int arg, lua_Integer i, const lgrid *g, const char *what) {
    lua_rawgeti(L, arg, i);
    if (lua_type(L, -1) != LUA_TTABLE)
        arg_error_fmt(L, arg, "%s %d must be a point {x=, y=}, got %s", what, (int)i, luaL_typename(L, -1));
    lua_getfield(L, -1, "x");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_rawgeti(L, -1, 1);
    }
    lua_getfield(L, -2, "y");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_rawgeti(L, -2, 2);
    }
    int isx, isy;
    lua_Integer x = astar_tointegerx(L, -2, &isx), y = astar_tointegerx(L, -1, &isy);
    if (!isx || !isy || x < 1 || y < 1 || x > g->base.width || y > g->base.height)
        arg_error_fmt(L, arg, "%s %d is not a cell of the %dx%d grid", what, (int)i, (int)g->base.width,
                      (int)g->base.height);
    lua_pop(L, 3);
    return (int32_t)((y - 1) * g->base.width + (x - 1));
}

/*
 * grid:find_nearest(sx, sy, targets [, opts]) -> path, info | nil, info: one search
 * for the nearest of many goals; info.target is the index of the one reached.
 */
static int grid_find_nearest(lua_State *L) {
    find_ctx ctx;
    find_ctx *c = &ctx;
    start_query(L, c);
    const lgrid *g = c->grid;
    luaL_checktype(L, 4, LUA_TTABLE);
    lua_Integer n = (lua_Integer)astar_rawlen(L, 4);
    if (n < 1) arg_error_fmt(L, 4, "targets must be a non-empty list of points");
    if (n > INT32_MAX / (lua_Integer)sizeof(int32_t)) arg_error_fmt(L, 4, "too many targets");
    lua_settop(L, 5);
    check_stack(L, 8);
    /* A userdata on the stack: freed with it, whatever error comes. */
    int32_t *ids = astar_newuserdata_plain(L, (size_t)n * sizeof *ids);
    for (lua_Integer i = 1; i <= n; i++) ids[i - 1] = list_point(L, 4, i, g, "target");
    c->q.targets = ids;
    c->q.ntargets = (int32_t)n;
    c->q.gx = ids[0] % g->base.width; /* ignored by the search, checked like a goal */
    c->q.gy = ids[0] / g->base.width;
    if (lua_istable(L, 5)) {
        lua_getfield(L, 5, "heuristic");
        if (is_callable(L, -1)) arg_error_fmt(L, 5, "option 'heuristic' must be a name for find_nearest");
        lua_pop(L, 1);
    }
    return run_query(L, c, 5);
}

/* ---------------------------------------------------------------- jobs */

/*
 * A resumable search. Its uservalue table keeps alive what the search reads:
 * [1..3] the callbacks (node_cost, edge_cost, heuristic; false when absent),
 * [4] the grid, [5...] the layers, claims and mask of its options; and, once it
 * is finished, .path and .info (its workspace is then given back).
 */
typedef struct ljob {
    lobject base;
    find_ctx ctx;        /* the query, its layers and the objects a step marks in use;
                            ctx.ws: a workspace of the grid's pool, held from the first step
                            to the end */
    bool finished;
    bool started;        /* astar_search_start ran (false again after an error) */
    bool stepping;       /* a step is running: a callback may not step this job */
    astar_status status;
    uint64_t expansions; /* so far, since the last (re)start */
    uint32_t restarts;
    uint64_t step_expansions; /* what the last step expanded */
} ljob;

enum { JOB_CALLBACKS = 1, JOB_GRID = 4, JOB_PINNED = 5 };

static ljob *check_job(lua_State *L, int arg) {
    return check_object(L, arg, JOB_MT, "astar.Search");
}

/* Gives the workspace back to the grid's pool (unless the grid, and so the pool, is gone). */
static void job_release(ljob *j) {
    if (j->ctx.ws && !j->ctx.grid->base.freed) j->ctx.ws->busy = false;
    j->ctx.ws = NULL;
}

static int job_gc(lua_State *L) {
    ljob *j = luaL_checkudata(L, 1, JOB_MT);
    if (j->stepping) return luaL_error(L, "astar.Search is in use by its own step");
    job_release(j);
    return 0;
}

static int job_tostring(lua_State *L) {
    ljob *j = luaL_checkudata(L, 1, JOB_MT);
    lua_pushfstring(L, "astar.Search(%s)", astar_status_name(j->status));
    return 1;
}

/* Runs inside lua_pcall: start if needed, one step, and the result tables once finished. */
static int job_run(lua_State *L) {
    ljob *j = lua_touserdata(L, RUN_CTX);
    find_ctx *c = &j->ctx;
    c->L = L;
    lua_Integer n = lua_tointeger(L, RUN_NARGS + 1);
    astar_result res;
    astar_status st;
    if (!j->started) {
        st = astar_search_start(c->ws->search, c->grid->grid, &c->q, &res);
        j->started = true;
        j->expansions = 0;
        j->restarts = 0;
        if (st == ASTAR_RUNNING) st = astar_search_step(c->ws->search, (uint64_t)n, &res);
    } else {
        st = astar_search_step(c->ws->search, (uint64_t)n, &res);
    }
    if (st == ASTAR_ENOMEM) return no_memory(L);
    if (st == ASTAR_EINVAL || st == ASTAR_EABORT)
        return luaL_error(L, "search failed: %s", astar_status_name(st));
    j->status = st;
    /* A restart counts from zero again: what this step did is all it has. */
    bool restarted = res.restarts != j->restarts || res.expansions < j->expansions;
    j->step_expansions = restarted ? res.expansions : res.expansions - j->expansions;
    j->expansions = res.expansions;
    j->restarts = res.restarts;
    if (st == ASTAR_RUNNING) return 0;
    int32_t len = 0;
    const int32_t *ids = astar_search_path(c->ws->search, &len);
    push_answer(L, &res, ids, len, c->grid->base.width);
    lua_pushinteger(L, res.restarts);
    lua_setfield(L, -2, "restarts");
    return 2;
}

/* grid:search(sx, sy, gx, gy [, opts]) -> a resumable search of what find would answer */
static int grid_search(lua_State *L) {
    lua_settop(L, 6);
    lgrid *g = check_grid(L, 1);
    int32_t sx = check_coord(L, 2, "x", g->base.width), sy = check_coord(L, 3, "y", g->base.height);
    int32_t gx = check_coord(L, 4, "x", g->base.width), gy = check_coord(L, 5, "y", g->base.height);
    check_stack(L, ASTAR_MAX_LAYERS + 24);
    ljob *j = new_object(L, sizeof *j, JOB_MT);
    int job = lua_gettop(L);
    find_ctx *c = &j->ctx;
    c->grid = g;
    astar_query_init(&c->q);
    c->q.sx = sx, c->q.sy = sy, c->q.gx = gx, c->q.gy = gy;
    j->base.width = g->base.width;
    j->base.height = g->base.height;
    j->status = ASTAR_RUNNING;
    int mark = lua_gettop(L);
    int cb[3];
    for (int i = 0; i < 3; i++) {
        lua_pushboolean(L, 0);
        cb[i] = lua_gettop(L);
    }
    lua_pushvalue(L, 1);
    if (!lua_isnil(L, 6)) read_find_options(L, 6, c, cb);
    /* Everything read_find_options left above the mark goes to the uservalue table. */
    int top = lua_gettop(L);
    lua_createtable(L, top - mark, 2);
    for (int i = mark + 1; i <= top; i++) {
        lua_pushvalue(L, i);
        lua_rawseti(L, -2, i - mark);
    }
    astar_setuservalue(L, job);
    lua_settop(L, job);
    mark_read(c, &g->base);
    return 1;
}

/* job:step([n]) -> status ("running" | "found" | "unreachable" | "limit" | "partial"), and
 * the expansions this step made (at most n) */
static int job_step(lua_State *L) {
    ljob *j = check_job(L, 1);
    /* 2^53: every integer up to it is a double, on every Lua */
    const lua_Integer most = (lua_Integer)1 << 53;
    lua_Integer n = lua_isnoneornil(L, 2) ? most : check_integer(L, 2, "n", -most, most);
    if (n < 1) arg_error_fmt(L, 2, "n must be a positive integer, got %s", value_str(L, 2));
    if (j->stepping) return luaL_error(L, "astar.Search is in use: a callback of this search stepped it");
    if (j->finished) { /* its result is kept */
        lua_pushstring(L, astar_status_name(j->status));
        lua_pushinteger(L, 0);
        return 2;
    }
    find_ctx *c = &j->ctx;
    for (int i = 0; i < c->nread; i++)
        if (c->read[i]->freed) return luaL_error(L, "astar.Search: an object it reads has been freed");
    check_stack(L, RUN_NARGS + 8);
    /* A workspace only while it runs: a game may queue far more searches than it runs. */
    if (!c->ws) c->ws = acquire_workspace(L, c->grid);
    astar_getuservalue(L, 1);
    int uv = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1)); /* job_run */
    lua_pushlightuserdata(L, j);
    for (int i = 0; i < 3; i++) {
        lua_rawgeti(L, uv, JOB_CALLBACKS + i);
        if (lua_toboolean(L, -1) == 0) {
            lua_pop(L, 1);
            lua_pushnil(L);
        }
    }
    lua_pushinteger(L, n);
    /* From here to the end of lua_pcall nothing may raise: the marks must be undone. */
    for (int i = 0; i < c->nread; i++) c->read[i]->readers++;
    j->stepping = true;
    int rc = lua_pcall(L, RUN_NARGS + 1, 2, 0);
    j->stepping = false;
    for (int i = 0; i < c->nread; i++) c->read[i]->readers--;
    if (rc != LUA_OK) {
        j->started = false; /* the search stopped mid-expansion: the next step starts over */
        return lua_error(L);
    }
    if (j->status != ASTAR_RUNNING) { /* keep the result, give the workspace back */
        lua_setfield(L, uv, "info");
        lua_setfield(L, uv, "path");
        j->finished = true;
        job_release(j);
    }
    lua_pushstring(L, astar_status_name(j->status));
    lua_pushinteger(L, (lua_Integer)j->step_expansions);
    return 2;
}

/* job:result() -> path, info as find gives them once finished; nil, {status = "running"} before */
static int job_result(lua_State *L) {
    ljob *j = check_job(L, 1);
    if (!j->finished) {
        lua_pushnil(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "running");
        lua_setfield(L, -2, "status");
        return 2;
    }
    astar_getuservalue(L, 1);
    lua_getfield(L, -1, "path");
    lua_getfield(L, -2, "info");
    return 2;
}

static int job_status(lua_State *L) {
    lua_pushstring(L, astar_status_name(check_job(L, 1)->status));
    return 1;
}

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
static int many_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->L = L;
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
            astar_status st = astar_find(c->ws->search, g->grid, &c->q, &res);
            c->q = base;
            check_answer(L, st, "find_many");
            int32_t len = 0;
            const int32_t *ids = astar_search_path(c->ws->search, &len);
            push_answer(L, &res, ids, len, width);
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
            push_answer(L, &c->results[i], ids, len, width);
            set_many_entry(L, list, i);
        }
    }
    lua_pushnil(L);
    return 2;
}

static const char *const QUERY_KEYS[] = {"sx", "sy", "gx", "gy"};

/* Query i of the list at arg: {sx, sy, gx, gy} or {sx=, sy=, gx=, gy=}, 1-based, into e 0-based. */
static void read_query(lua_State *L, int arg, lua_Integer i, const lgrid *g, int32_t *e) {
    lua_rawgeti(L, arg, i);
    if (lua_type(L, -1) != LUA_TTABLE)
        arg_error_fmt(L, arg, "query %d must be a table {sx, sy, gx, gy}, got %s", (int)i,
                      luaL_typename(L, -1));
    for (int k = 0; k < 4; k++) {
        lua_getfield(L, -1, QUERY_KEYS[k]);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_rawgeti(L, -1, k + 1);
        }
        int32_t size = k % 2 == 0 ? g->base.width : g->base.height;
        lua_Number v = lua_tonumber(L, -1);
        if (lua_type(L, -1) != LUA_TNUMBER || v != floor(v) || v < 1 || v > size)
            arg_error_fmt(L, arg, "query %d: %s must be an integer in 1..%d, got %s", (int)i,
                          QUERY_KEYS[k], (int)size, value_str(L, -1));
        e[k] = (int32_t)v - 1;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static const char *const MANY_OPTIONS[] = {"threads", NULL};

/*
 * grid:find_many(queries [, opts [, { threads = n }]]) -> results: results[i] =
 * { path = ..., info = ... }, what grid:find(sx, sy, gx, gy, opts) returns for
 * queries[i]. threads defaults to one per processor.
 */
static int grid_find_many(lua_State *L) {
    find_ctx ctx;
    find_ctx *c = &ctx;
    lgrid *g = check_grid(L, 1);
    memset(c, 0, sizeof *c);
    c->grid = g;
    astar_query_init(&c->q);
    if (lua_type(L, 2) != LUA_TTABLE) type_error(L, 2, "table");
    if (!lua_isnoneornil(L, 3) && lua_type(L, 3) != LUA_TTABLE) type_error(L, 3, "table or nil");
    if (!lua_isnoneornil(L, 4)) {
        if (lua_type(L, 4) != LUA_TTABLE) type_error(L, 4, "table or nil");
        check_option_keys(L, 4, MANY_OPTIONS);
        if (get_option(L, 4, "threads")) {
            lua_Number t = lua_tonumber(L, -1);
            if (lua_type(L, -1) != LUA_TNUMBER || t != floor(t) || t < 1 || t > ASTAR_MANY_MAX_THREADS)
                arg_error_fmt(L, 4, "option 'threads' must be an integer in 1..%d, got %s",
                              ASTAR_MANY_MAX_THREADS, value_str(L, -1));
            c->threads = (int)t;
        }
    }
    lua_settop(L, 4);
    lua_Integer n = (lua_Integer)astar_rawlen(L, 2);
    if (n > INT32_MAX / (lua_Integer)(4 * sizeof(int32_t) + sizeof(astar_result)))
        arg_error_fmt(L, 2, "too many queries");
    check_stack(L, 8);
    /* Userdata on the stack: freed with it, whatever error comes. */
    int32_t *e = lua_newuserdata(L, (size_t)n * 4 * sizeof *e + 1);
    astar_result *results = lua_newuserdata(L, (size_t)n * sizeof *results + 1);
    for (lua_Integer i = 1; i <= n; i++) read_query(L, 2, i, g, e + 4 * (i - 1));
    c->endpoints = e;
    c->nqueries = (int32_t)n;
    c->results = results;
    run_query(L, c, 3);
    lua_pop(L, 1);
    return 1;
}

/* -------------------------------------------------------------- fields */

static lfield *check_field(lua_State *L, int arg) {
    lfield *f = check_object(L, arg, FIELD_MT, "astar.Field");
    if (!f->field) luaL_argerror(L, arg, "astar.Field has been freed");
    return f;
}

static int field_gc(lua_State *L) {
    lfield *f = luaL_checkudata(L, 1, FIELD_MT);
    astar_field_free(f->field);
    f->field = NULL;
    return 0;
}

static int field_tostring(lua_State *L) {
    lfield *f = luaL_checkudata(L, 1, FIELD_MT);
    lua_pushfstring(L, "astar.Field(%dx%d)%s", (int)f->base.width, (int)f->base.height,
                    f->field ? "" : " (freed)");
    return 1;
}

/* Runs inside lua_pcall, like find_run: the build, then its info table. */
static int field_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->L = L;
    astar_result res;
    astar_status st = astar_field_build(c->field, c->ws->search, c->grid->grid, &c->q, c->cells,
                                        c->ncells, c->kind, &res);
    if (st == ASTAR_ENOMEM) return no_memory(L);
    if (st != ASTAR_OK && st != ASTAR_LIMIT)
        return luaL_error(L, "field failed: %s", astar_status_name(st));
    lua_createtable(L, 0, 3);
    lua_pushstring(L, st == ASTAR_OK ? "done" : "limit");
    lua_setfield(L, -2, "status");
    lua_pushinteger(L, (lua_Integer)res.expansions);
    lua_setfield(L, -2, "expansions");
    lua_pushinteger(L, astar_field_reached(c->field));
    lua_setfield(L, -2, "reached");
    lua_pushnil(L);
    return 2;
}

/* Options of find that mean nothing to a field: an error, not silently ignored. */
static void reject_search_options(lua_State *L, int arg, const char *fn) {
    static const char *const NAMES[] = {"heuristic", "weight", "partial", "turn_penalty", "claim_window"};
    if (!lua_istable(L, arg)) return;
    for (int i = 0; i < 5; i++)
        if (get_option(L, arg, NAMES[i]))
            arg_error_fmt(L, arg, "option '%s' does not apply to %s", NAMES[i], fn);
}

/* Builds into a new field (left on the stack below the info table) from the ctx's cells. */
static void build_field(lua_State *L, find_ctx *c, int opts_arg) {
    lfield *f = new_object(L, sizeof *f, FIELD_MT);
    astar_alloc a = lua_allocator(L);
    f->field = astar_field_new(c->grid->base.width, c->grid->base.height, &a);
    if (!f->field) no_memory(L);
    f->base.width = c->grid->base.width;
    f->base.height = c->grid->base.height;
    c->field = f->field;
    int field_idx = lua_gettop(L);
    run_query(L, c, opts_arg); /* info, nil */
    lua_pop(L, 1);
    lua_pushvalue(L, field_idx);
    lua_insert(L, -2); /* field, info */
}

/*
 * grid:distance_field(goals [, opts]) -> field, info: every cell's cost to the nearest
 * goal and its next step there, from one search.
 */
static int grid_distance_field(lua_State *L) {
    find_ctx ctx;
    find_ctx *c = &ctx;
    lgrid *g = check_grid(L, 1);
    memset(c, 0, sizeof *c);
    c->grid = g;
    astar_query_init(&c->q);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = (lua_Integer)astar_rawlen(L, 2);
    if (n < 1) arg_error_fmt(L, 2, "goals must be a non-empty list of points");
    if (n > INT32_MAX / (lua_Integer)sizeof(int32_t)) arg_error_fmt(L, 2, "too many goals");
    lua_settop(L, 3);
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    reject_search_options(L, 3, "distance_field");
    /* claim_radius counts the units near where a unit starts; a field has no one start. */
    if (lua_istable(L, 3) && get_option(L, 3, "claim_radius"))
        arg_error_fmt(L, 3, "option 'claim_radius' does not apply to distance_field (it has no start)");
    check_stack(L, 8);
    int32_t *ids = astar_newuserdata_plain(L, (size_t)n * sizeof *ids);
    for (lua_Integer i = 1; i <= n; i++) ids[i - 1] = list_point(L, 2, i, g, "goal");
    c->cells = ids;
    c->ncells = (int32_t)n;
    c->kind = ASTAR_FIELD_TO;
    c->q.sx = c->q.gx = ids[0] % g->base.width; /* claim_radius is measured from here */
    c->q.sy = c->q.gy = ids[0] / g->base.width;
    build_field(L, c, 3);
    return 2;
}

/* Reached cells of a field in order of cost (ties: node id), as {x=, y=, cost=}. */
static int compare_by_cost(const void *a, const void *b) {
    const double *da = a, *db = b;
    if (da[0] != db[0]) return da[0] < db[0] ? -1 : 1;
    return (da[1] > db[1]) - (da[1] < db[1]);
}

static void push_cells(lua_State *L, const lfield *f) {
    int32_t w = f->base.width, h = f->base.height, n = astar_field_reached(f->field);
    double *pairs = astar_newuserdata_plain(L, (size_t)(n > 0 ? n : 1) * 2 * sizeof *pairs);
    int32_t k = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            double d = astar_field_distance(f->field, x, y);
            if (d == HUGE_VAL || k >= n) continue;
            pairs[2 * k] = d;
            pairs[2 * k + 1] = (double)y * w + x;
            k++;
        }
    qsort(pairs, (size_t)k, 2 * sizeof *pairs, compare_by_cost);
    lua_createtable(L, k, 0);
    for (int32_t i = 0; i < k; i++) {
        int32_t id = (int32_t)pairs[2 * i + 1];
        push_point(L, id, w);
        lua_pushnumber(L, pairs[2 * i]);
        lua_setfield(L, -2, "cost");
        lua_rawseti(L, -2, i + 1);
    }
    lua_remove(L, -2);
}

/*
 * grid:range(sx, sy, budget [, opts]) -> cells, field, info: every cell a unit at (sx, sy)
 * reaches for at most `budget`, cheapest first, as {x=, y=, cost=}; field:path(x, y)
 * is the way there.
 */
static int grid_range(lua_State *L) {
    find_ctx ctx;
    find_ctx *c = &ctx;
    start_query(L, c);
    lua_Number budget = lua_tonumber(L, 4);
    if (lua_type(L, 4) != LUA_TNUMBER || !(budget >= 0)) arg_error_fmt(L, 4, "budget must be a number >= 0, got %s", value_str(L, 4));
    lua_settop(L, 5);
    if (!lua_isnoneornil(L, 5)) {
        luaL_checktype(L, 5, LUA_TTABLE);
        if (get_option(L, 5, "max_cost")) arg_error_fmt(L, 5, "option 'max_cost' does not apply to range: the budget is it");
    }
    reject_search_options(L, 5, "range");
    int32_t *start = astar_newuserdata_plain(L, sizeof *start);
    *start = c->q.sy * c->grid->base.width + c->q.sx;
    c->cells = start;
    c->ncells = 1;
    c->kind = ASTAR_FIELD_FROM;
    c->q.gx = c->q.sx;
    c->q.gy = c->q.sy;
    c->q.max_cost = budget; /* options may not set it (checked above) */
    build_field(L, c, 5); /* field, info */
    push_cells(L, lua_touserdata(L, -2));
    lua_insert(L, -3);
    return 3;
}

static int field_distance(lua_State *L) {
    lfield *f = check_field(L, 1);
    int32_t x = check_coord(L, 2, "x", f->base.width), y = check_coord(L, 3, "y", f->base.height);
    double d = astar_field_distance(f->field, x, y);
    if (d == HUGE_VAL) return lua_pushnil(L), 1;
    lua_pushnumber(L, d);
    return 1;
}

static int field_next(lua_State *L) {
    lfield *f = check_field(L, 1);
    int32_t x = check_coord(L, 2, "x", f->base.width), y = check_coord(L, 3, "y", f->base.height);
    int32_t nx, ny;
    if (astar_field_next(f->field, x, y, &nx, &ny) != 1) return lua_pushnil(L), 1;
    lua_pushinteger(L, nx + 1);
    lua_pushinteger(L, ny + 1);
    return 2;
}

/* field:path(x, y): in walking order, to the nearest goal (TO) or from the start (FROM). */
static int field_path(lua_State *L) {
    lfield *f = check_field(L, 1);
    int32_t x = check_coord(L, 2, "x", f->base.width), y = check_coord(L, 3, "y", f->base.height);
    if (astar_field_distance(f->field, x, y) == HUGE_VAL) return lua_pushnil(L), 1;
    lua_newtable(L);
    lua_Integer n = 0;
    int32_t nx, ny;
    for (;;) {
        push_point(L, y * f->base.width + x, f->base.width);
        lua_rawseti(L, -2, ++n);
        if (astar_field_next(f->field, x, y, &nx, &ny) != 1) break;
        x = nx;
        y = ny;
    }
    if (astar_field_get_kind(f->field) == ASTAR_FIELD_FROM) /* walked back: reverse */
        for (lua_Integer i = 1, j = n; i < j; i++, j--) {
            lua_rawgeti(L, -1, i);
            lua_rawgeti(L, -2, j);
            lua_rawseti(L, -3, i);
            lua_rawseti(L, -2, j);
        }
    return 1;
}

static int field_cells(lua_State *L) {
    push_cells(L, check_field(L, 1));
    return 1;
}

/* -------------------------------------------------------------- layers */

static int layer_gc(lua_State *L) {
    llayer *l = luaL_checkudata(L, 1, LAYER_MT);
    check_writable(L, &l->base, "influence layer");
    astar_layer_free(l->layer);
    l->layer = NULL;
    l->base.freed = true;
    return 0;
}

static int layer_tostring(lua_State *L) {
    llayer *l = luaL_checkudata(L, 1, LAYER_MT);
    lua_pushfstring(L, "astar.Influence(%dx%d)%s", (int)l->base.width, (int)l->base.height,
                    l->layer ? "" : " (freed)");
    return 1;
}

static double check_finite(lua_State *L, int arg, const char *what) {
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "number");
    lua_Number v = lua_tonumber(L, arg);
    if (!isfinite(v)) arg_error_fmt(L, arg, "%s must be a finite number, got %s", what, value_str(L, arg));
    return v;
}

static int l_influence(lua_State *L) {
    int32_t w, h;
    check_size_args(L, &w, &h);
    double initial = lua_isnoneornil(L, 3) ? 0.0 : check_finite(L, 3, "initial value");
    llayer *l = new_object(L, sizeof *l, LAYER_MT);
    astar_alloc a = lua_allocator(L);
    l->layer = astar_layer_new(w, h, initial, &a);
    if (!l->layer) return no_memory(L);
    l->base.width = w;
    l->base.height = h;
    return 1;
}

static int layer_set(lua_State *L) {
    llayer *l = check_layer(L, 1);
    int32_t x = check_coord(L, 2, "x", l->base.width), y = check_coord(L, 3, "y", l->base.height);
    double v = check_finite(L, 4, "value");
    check_writable(L, &l->base, "influence layer");
    astar_layer_set(l->layer, x, y, v);
    return 0;
}

static int layer_add(lua_State *L) {
    llayer *l = check_layer(L, 1);
    int32_t x = check_coord(L, 2, "x", l->base.width), y = check_coord(L, 3, "y", l->base.height);
    double v = check_finite(L, 4, "value");
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_add(l->layer, x, y, v) != ASTAR_OK)
        arg_error_fmt(L, 4, "the sum is not a finite number");
    lua_pushnumber(L, astar_layer_get(l->layer, x, y));
    return 1;
}

static int layer_get(lua_State *L) {
    llayer *l = check_layer(L, 1);
    int32_t x = check_coord(L, 2, "x", l->base.width), y = check_coord(L, 3, "y", l->base.height);
    lua_pushnumber(L, astar_layer_get(l->layer, x, y));
    return 1;
}

static int layer_fill(lua_State *L) {
    llayer *l = check_layer(L, 1);
    double v = check_finite(L, 2, "value");
    check_writable(L, &l->base, "influence layer");
    astar_layer_fill(l->layer, v);
    return 0;
}

static int layer_stamp(lua_State *L) {
    static const char *const FALLOFFS[] = {"linear", "quadratic", "constant", NULL};
    llayer *l = check_layer(L, 1);
    int32_t x = check_coord(L, 2, "x", l->base.width), y = check_coord(L, 3, "y", l->base.height);
    double radius = check_finite(L, 4, "radius");
    if (radius < 0) arg_error_fmt(L, 4, "radius must be >= 0, got %s", value_str(L, 4));
    double strength = check_finite(L, 5, "strength");
    astar_falloff falloff = (astar_falloff)luaL_checkoption(L, 6, "linear", FALLOFFS);
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_stamp(l->layer, x, y, radius, strength, falloff) != ASTAR_OK)
        arg_error_fmt(L, 5, "a stamped value would not be a finite number");
    return 0;
}

static int layer_decay(lua_State *L) {
    llayer *l = check_layer(L, 1);
    double factor = check_finite(L, 2, "factor");
    if (factor < 0) arg_error_fmt(L, 2, "factor must be >= 0, got %s", value_str(L, 2));
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_scale(l->layer, factor) != ASTAR_OK)
        arg_error_fmt(L, 2, "a decayed value would not be a finite number");
    return 0;
}

static int layer_spread(lua_State *L) {
    llayer *l = check_layer(L, 1);
    double decay = check_finite(L, 2, "decay");
    if (decay < 0) arg_error_fmt(L, 2, "decay must be >= 0, got %s", value_str(L, 2));
    double momentum = check_finite(L, 3, "momentum");
    if (momentum < 0 || momentum > 1)
        arg_error_fmt(L, 3, "momentum must be between 0 and 1, got %s", value_str(L, 3));
    const astar_grid *walk = NULL;
    if (!lua_isnoneornil(L, 4)) {
        lgrid *g = check_grid(L, 4);
        if (g->base.width != l->base.width || g->base.height != l->base.height)
            arg_error_fmt(L, 4, "the grid is %dx%d, the layer %dx%d", (int)g->base.width,
                          (int)g->base.height, (int)l->base.width, (int)l->base.height);
        walk = g->grid;
    }
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_spread(l->layer, decay, momentum, walk) != ASTAR_OK) return no_memory(L);
    return 0;
}

static int layer_max_abs(lua_State *L) {
    llayer *l = check_layer(L, 1);
    lua_pushnumber(L, astar_layer_max_abs(l->layer));
    return 1;
}

static int layer_add_layer(lua_State *L) {
    llayer *l = check_layer(L, 1);
    llayer *other = check_layer(L, 2);
    if (other->base.width != l->base.width || other->base.height != l->base.height)
        arg_error_fmt(L, 2, "the layer is %dx%d, this one %dx%d", (int)other->base.width,
                      (int)other->base.height, (int)l->base.width, (int)l->base.height);
    double weight = lua_isnoneornil(L, 3) ? 1.0 : check_finite(L, 3, "weight");
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_add_layer(l->layer, other->layer, weight) != ASTAR_OK)
        arg_error_fmt(L, 3, "a sum would not be a finite number");
    return 0;
}

/* ---------------------------------------------------------- fog of war */

static lmask *check_mask(lua_State *L, int arg) {
    lmask *m = check_object(L, arg, MASK_MT, MASK_MT);
    if (!m->mask) luaL_error(L, "attempt to use a freed astar.Mask");
    return m;
}

static int mask_gc(lua_State *L) {
    lmask *m = luaL_checkudata(L, 1, MASK_MT);
    check_writable(L, &m->base, "mask");
    astar_mask_free(m->mask);
    m->mask = NULL;
    m->base.freed = true;
    return 0;
}

static int mask_tostring(lua_State *L) {
    lmask *m = luaL_checkudata(L, 1, MASK_MT);
    lua_pushfstring(L, "astar.Mask(%dx%d)%s", (int)m->base.width, (int)m->base.height,
                    m->mask ? "" : " (freed)");
    return 1;
}

static int l_mask(lua_State *L) {
    int32_t w, h;
    check_size_args(L, &w, &h);
    lmask *m = new_object(L, sizeof *m, MASK_MT);
    astar_alloc a = lua_allocator(L);
    m->mask = astar_mask_new(w, h, &a);
    if (!m->mask) return no_memory(L);
    m->base.width = w;
    m->base.height = h;
    return 1;
}

static int mask_reveal(lua_State *L) {
    lmask *m = check_mask(L, 1);
    int32_t x = check_coord(L, 2, "x", m->base.width), y = check_coord(L, 3, "y", m->base.height);
    double radius = 0.0;
    if (!lua_isnoneornil(L, 4)) {
        if (lua_type(L, 4) != LUA_TNUMBER) type_error(L, 4, "number");
        radius = lua_tonumber(L, 4);
        if (!(radius >= 0)) arg_error_fmt(L, 4, "radius must be >= 0, got %s", value_str(L, 4));
    }
    check_writable(L, &m->base, "mask");
    astar_mask_reveal(m->mask, x, y, radius);
    return 0;
}

static int mask_is_known(lua_State *L) {
    lmask *m = check_mask(L, 1);
    int32_t x = check_coord(L, 2, "x", m->base.width), y = check_coord(L, 3, "y", m->base.height);
    lua_pushboolean(L, astar_mask_is_known(m->mask, x, y) == 1);
    return 1;
}

/* -------------------------------------------------------------- claims */

static int claims_gc(lua_State *L) {
    lclaims *c = luaL_checkudata(L, 1, CLAIMS_MT);
    check_writable(L, &c->base, "claims");
    astar_claims_free(c->claims);
    c->claims = NULL;
    c->base.freed = true;
    return 0;
}

static int claims_tostring(lua_State *L) {
    lclaims *c = luaL_checkudata(L, 1, CLAIMS_MT);
    lua_pushfstring(L, "astar.Claims(%dx%d)%s", (int)c->base.width, (int)c->base.height,
                    c->claims ? "" : " (freed)");
    return 1;
}

static int l_graph_claims(lua_State *L); /* in the graph section */

static int l_claims(lua_State *L) {
    if (astar_testudata(L, 1, GRAPH_MT)) return l_graph_claims(L);
    if (!astar_testudata(L, 1, GRID_MT)) type_error(L, 1, "astar.Grid or astar.Graph");
    lgrid *g = check_grid(L, 1);
    lclaims *c = new_object(L, sizeof *c, CLAIMS_MT);
    lua_newtable(L);
    astar_setuservalue(L, -2);
    astar_alloc a = lua_allocator(L);
    c->claims = astar_claims_new(g->base.width, g->base.height, &a);
    if (!c->claims) return no_memory(L);
    c->base.width = g->base.width;
    c->base.height = g->base.height;
    return 1;
}

static void check_unit_key(lua_State *L, int arg) {
    int t = lua_type(L, arg);
    if (t == LUA_TSTRING) return;
    if (t != LUA_TNUMBER) type_error(L, arg, "integer or string");
    lua_Number n = lua_tonumber(L, arg);
    if (n != floor(n)) arg_error_fmt(L, arg, "unit must be an integer or a string, got %s", value_str(L, arg));
}

/* The unit's slot, or -1. Leaves the unit table (uservalue) on the stack. */
static int32_t unit_slot(lua_State *L, int self, int key) {
    astar_getuservalue(L, self);
    lua_pushvalue(L, key);
    lua_rawget(L, -2);
    int32_t slot = lua_type(L, -1) == LUA_TNUMBER ? (int32_t)lua_tointeger(L, -1) : -1;
    lua_pop(L, 1);
    return slot;
}

/* Reads point i of a path: {x=, y=} or {x, y}. */
static int32_t path_node(lua_State *L, int path, size_t i, int32_t w, int32_t h) {
    lua_rawgeti(L, path, (int)i);
    if (lua_type(L, -1) != LUA_TTABLE)
        arg_error_fmt(L, path, "path[%d] must be a point {x=, y=}, got %s", (int)i, luaL_typename(L, -1));
    lua_getfield(L, -1, "x");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_rawgeti(L, -1, 1);
    }
    lua_getfield(L, -2, "y");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_rawgeti(L, -2, 2);
    }
    lua_Number x = lua_tonumber(L, -2), y = lua_tonumber(L, -1);
    if (lua_type(L, -2) != LUA_TNUMBER || lua_type(L, -1) != LUA_TNUMBER || x != floor(x) ||
        y != floor(y) || x < 1 || y < 1 || x > w || y > h)
        arg_error_fmt(L, path, "path[%d] is not a cell of the %dx%d grid", (int)i, (int)w, (int)h);
    lua_pop(L, 3);
    return ((int32_t)y - 1) * w + ((int32_t)x - 1);
}

/*
 * The claim of the unit keyed at 2 (claims object at 1, checked and writable) becomes
 * ids[0..n-1]; grid and graph claims share it.
 */
static int set_claim(lua_State *L, astar_claims *claims, const int32_t *ids, int32_t n) {
    int32_t slot = unit_slot(L, 1, 2);
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
        lua_pushvalue(L, 2);
        lua_pushnil(L);
        lua_rawset(L, -3);
    }
    lua_pushboolean(L, slot >= 0);
    return 1;
}

static int claims_claim(lua_State *L) {
    lclaims *c = check_claims(L, 1);
    check_unit_key(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    size_t n = astar_rawlen(L, 3);
    if (n < 1) arg_error_fmt(L, 3, "path is empty");
    if (n > (size_t)INT32_MAX / 4) arg_error_fmt(L, 3, "path is too long");
    int32_t *ids = astar_newuserdata(L, n * sizeof *ids); /* scratch, collected with the call */
    for (size_t i = 1; i <= n; i++) ids[i - 1] = path_node(L, 3, i, c->base.width, c->base.height);
    check_writable(L, &c->base, "claims");
    return set_claim(L, c->claims, ids, (int32_t)n);
}

static int claims_advance(lua_State *L) {
    return advance_claim(L, check_claims(L, 1)->claims);
}

static int claims_release(lua_State *L) {
    return release_claim(L, check_claims(L, 1)->claims);
}

static int claims_count(lua_State *L) {
    lclaims *c = check_claims(L, 1);
    int32_t x = check_coord(L, 2, "x", c->base.width), y = check_coord(L, 3, "y", c->base.height);
    lua_pushinteger(L, astar_claims_count(c->claims, x, y));
    return 1;
}

/* claims:position(unit) -> x, y of the unit's current node, or nil. */
static int claims_position(lua_State *L) {
    lclaims *c = check_claims(L, 1);
    check_unit_key(L, 2);
    int32_t slot = unit_slot(L, 1, 2);
    int32_t id = slot >= 0 ? astar_claims_current(c->claims, slot) : -1;
    if (id < 0) return lua_pushnil(L), 1;
    lua_pushinteger(L, id % c->base.width + 1);
    lua_pushinteger(L, id / c->base.width + 1);
    return 2;
}

/* ----------------------------------------------------------- Moving AI */

static int file_box_gc(lua_State *L) {
    FILE **box = lua_touserdata(L, 1);
    if (box && *box) {
        fclose(*box);
        *box = NULL;
    }
    return 0;
}

/*
 * Reads a whole file into a string left on the stack. The FILE sits in a box
 * whose __gc closes it, so a memory error while reading leaks no handle.
 */
static const char *read_file(lua_State *L, const char *path, size_t *len) {
    FILE **box = lua_newuserdata(L, sizeof *box);
    *box = NULL;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, file_box_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    *box = fopen(path, "rb");
    if (!*box) luaL_error(L, "cannot open '%s': %s", path, strerror(errno));
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t got;
    do {
        char *p = luaL_prepbuffer(&b);
        got = fread(p, 1, LUAL_BUFFERSIZE, *box);
        luaL_addsize(&b, got);
    } while (got == LUAL_BUFFERSIZE);
    if (ferror(*box)) luaL_error(L, "cannot read '%s': %s", path, strerror(errno));
    luaL_pushresult(&b);
    fclose(*box);
    *box = NULL;
    return lua_tolstring(L, -1, len);
}

static int push_movingai(lua_State *L, const char *text, size_t len, const char *name) {
    lgrid *g = new_object(L, sizeof *g, GRID_MT);
    astar_alloc a = lua_allocator(L);
    char err[256];
    err[0] = '\0';
    g->grid = astar_movingai_parse(text, len, &a, err, sizeof err);
    if (!g->grid) return parse_error(L, name, err);
    g->base.width = astar_grid_width(g->grid);
    g->base.height = astar_grid_height(g->grid);
    lua_createtable(L, 0, 3);
    lua_pushliteral(L, "octile");
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, g->base.width);
    lua_setfield(L, -2, "width");
    lua_pushinteger(L, g->base.height);
    lua_setfield(L, -2, "height");
    return 2;
}

/* astar.load_movingai(path) -> grid, meta */
static int l_load_movingai(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    size_t len;
    const char *text = read_file(L, path, &len);
    return push_movingai(L, text, len, path);
}

/* astar.load_movingai_string(text [, name]) -> grid, meta */
static int l_load_movingai_string(lua_State *L) {
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "map");
    return push_movingai(L, text, len, name);
}

static int scen_gc(lua_State *L) {
    astar_scen **box = lua_touserdata(L, 1);
    if (box && *box) {
        astar_scen_free(*box);
        *box = NULL;
    }
    return 0;
}

static int push_scen(lua_State *L, const char *text, size_t len, const char *name) {
    /* The parsed list lives in a box whose __gc frees it if building the tables fails. */
    astar_scen **box = lua_newuserdata(L, sizeof *box);
    *box = NULL;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, scen_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    astar_alloc a = lua_allocator(L);
    char err[256];
    err[0] = '\0';
    *box = astar_scen_parse(text, len, &a, err, sizeof err);
    if (!*box) return parse_error(L, name, err);
    const astar_scen *scen = *box;
    lua_createtable(L, scen->count, 0);
    for (int32_t i = 0; i < scen->count; i++) {
        const astar_scenario *s = &scen->items[i];
        lua_createtable(L, 0, 10);
        lua_pushinteger(L, s->bucket);
        lua_setfield(L, -2, "bucket");
        lua_pushstring(L, s->map);
        lua_setfield(L, -2, "map");
        lua_pushinteger(L, s->map_width);
        lua_setfield(L, -2, "width");
        lua_pushinteger(L, s->map_height);
        lua_setfield(L, -2, "height");
        lua_pushinteger(L, s->sx + 1);
        lua_setfield(L, -2, "sx");
        lua_pushinteger(L, s->sy + 1);
        lua_setfield(L, -2, "sy");
        lua_pushinteger(L, s->gx + 1);
        lua_setfield(L, -2, "gx");
        lua_pushinteger(L, s->gy + 1);
        lua_setfield(L, -2, "gy");
        lua_pushnumber(L, s->optimal);
        lua_setfield(L, -2, "optimal");
        lua_pushnumber(L, s->precision);
        lua_setfield(L, -2, "precision");
        lua_rawseti(L, -2, i + 1);
    }
    astar_scen_free(*box); /* now, rather than at the next collection */
    *box = NULL;
    return 1;
}

/* astar.load_scen(path) -> { {bucket=, map=, width=, height=, sx=, sy=, gx=, gy=, optimal=}, ... } */
static int l_load_scen(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    size_t len;
    const char *text = read_file(L, path, &len);
    return push_scen(L, text, len, path);
}

/* astar.load_scen_string(text [, name]) */
static int l_load_scen_string(lua_State *L) {
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    return push_scen(L, text, len, luaL_optstring(L, 2, "scen"));
}

/* ============================================================== graphs */
/*
 * astar.graph(): nodes, arcs and queries by node id (1-based here, 0-based in
 * the core). Its own block, so that it meets the grid code only in l_claims
 * and luaopen.
 */

typedef struct graph_workspace {
    astar_graph_search *search;
    bool busy;
    struct graph_workspace *next;
} graph_workspace;

typedef struct lgraph {
    lobject base;              /* width and height unused */
    astar_graph *graph;
    graph_workspace *pool;     /* one per query running at once (reentrant finds) */
} lgraph;

/* Claims on a graph's nodes. Uservalue: { [unit key] = slot, [true] = the graph }. */
typedef struct lgraph_claims {
    lobject base;
    astar_claims *claims;
    lgraph *graph;
} lgraph_claims;

static lgraph *check_graph(lua_State *L, int arg) {
    lgraph *g = check_object(L, arg, GRAPH_MT, GRAPH_MT);
    if (!g->graph) luaL_error(L, "attempt to use a freed astar.Graph");
    return g;
}

/* A 1-based node id of the Lua API, returned 0-based. */
static int32_t check_node(lua_State *L, int arg, const lgraph *g) {
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "node id");
    lua_Number n = lua_tonumber(L, arg);
    int32_t count = astar_graph_node_count(g->graph);
    if (n != floor(n) || n != n) arg_error_fmt(L, arg, "node id must be an integer, got %s", value_str(L, arg));
    if (count == 0) arg_error_fmt(L, arg, "node %s out of range: the graph has no nodes", value_str(L, arg));
    if (n < 1 || n > count) arg_error_fmt(L, arg, "node %s out of range 1..%d", value_str(L, arg), (int)count);
    return (int32_t)n - 1;
}

static int graph_gc(lua_State *L) {
    lgraph *g = luaL_checkudata(L, 1, GRAPH_MT);
    check_writable(L, &g->base, "graph"); /* only a direct __close/__gc call can get here */
    astar_alloc a = lua_allocator(L);
    while (g->pool) {
        graph_workspace *w = g->pool;
        g->pool = w->next;
        astar_graph_search_free(w->search);
        a.fn(a.ud, w, sizeof *w, 0);
    }
    astar_graph_free(g->graph);
    g->graph = NULL;
    return 0;
}

static int graph_tostring(lua_State *L) {
    lgraph *g = luaL_checkudata(L, 1, GRAPH_MT);
    if (!g->graph) return lua_pushliteral(L, "astar.Graph (freed)"), 1;
    lua_pushfstring(L, "astar.Graph(%d nodes, %d arcs)", (int)astar_graph_node_count(g->graph),
                    (int)astar_graph_arc_count(g->graph));
    return 1;
}

/* astar.graph() -> an empty graph */
static int l_graph(lua_State *L) {
    if (!lua_isnoneornil(L, 1)) arg_error_fmt(L, 1, "no argument expected, got %s", luaL_typename(L, 1));
    lgraph *g = new_object(L, sizeof *g, GRAPH_MT);
    astar_alloc a = lua_allocator(L);
    g->graph = astar_graph_new(&a);
    if (!g->graph) return no_memory(L);
    return 1;
}

/* __index: methods, then the read-only fields nodes and arcs. */
static int graph_index(lua_State *L) {
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    const lgraph *g = lua_touserdata(L, 1);
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    if (k && g && g->graph) {
        if (strcmp(k, "nodes") == 0) return lua_pushinteger(L, astar_graph_node_count(g->graph)), 1;
        if (strcmp(k, "arcs") == 0) return lua_pushinteger(L, astar_graph_arc_count(g->graph)), 1;
    }
    return 0;
}

/* g:size() -> number of nodes */
static int graph_size(lua_State *L) {
    lgraph *g = check_graph(L, 1);
    lua_pushinteger(L, astar_graph_node_count(g->graph));
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
    if (!(c >= 0) || c == HUGE_VAL)
        arg_error_fmt(L, arg, "cost must be a finite number >= 0, got %s", value_str(L, arg));
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

/* ------------------------------------------------------ graph claims */

static lgraph_claims *check_graph_claims(lua_State *L, int arg) {
    lgraph_claims *c = check_object(L, arg, GRAPH_CLAIMS_MT, GRAPH_CLAIMS_MT);
    if (!c->claims) luaL_error(L, "attempt to use a freed astar.GraphClaims");
    return c;
}

static int graph_claims_gc(lua_State *L) {
    lgraph_claims *c = luaL_checkudata(L, 1, GRAPH_CLAIMS_MT);
    check_writable(L, &c->base, "claims");
    astar_claims_free(c->claims);
    c->claims = NULL;
    return 0;
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
    c->graph = g;
    astar_alloc a = lua_allocator(L);
    c->claims = astar_graph_claims_new(g->graph, &a);
    if (!c->claims) return no_memory(L);
    return 1;
}

/* claims:claim(unit, ids): ids = { first node (where the unit stands), ... } */
static int graph_claims_claim(lua_State *L) {
    lgraph_claims *c = check_graph_claims(L, 1);
    check_unit_key(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    if (!c->graph->graph) return luaL_error(L, "attempt to use a freed astar.Graph");
    int32_t count = astar_graph_node_count(c->graph->graph);
    size_t n = astar_rawlen(L, 3);
    if (n < 1) arg_error_fmt(L, 3, "path is empty");
    if (n > (size_t)INT32_MAX / 4) arg_error_fmt(L, 3, "path is too long");
    int32_t *ids = astar_newuserdata(L, n * sizeof *ids); /* scratch, collected with the call */
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, 3, (int)i);
        lua_Number v = lua_tonumber(L, -1);
        if (lua_type(L, -1) != LUA_TNUMBER || v != floor(v) || v < 1 || v > count)
            arg_error_fmt(L, 3, "path[%d] must be a node id 1..%d, got %s", (int)i, (int)count,
                          value_str(L, -1));
        ids[i - 1] = (int32_t)v - 1;
        lua_pop(L, 1);
    }
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
    lgraph_claims *c = check_graph_claims(L, 1);
    check_unit_key(L, 2);
    int32_t slot = unit_slot(L, 1, 2);
    int32_t id = slot >= 0 ? astar_claims_current(c->claims, slot) : -1;
    if (id < 0) lua_pushnil(L);
    else lua_pushinteger(L, (lua_Integer)id + 1);
    return 1;
}

/* -------------------------------------------------------- graph:find */

/* Stack slots of the protected runner: the context, the callbacks (or nil), then the
 * Lua arrays of influence values. */
enum { GRUN_CTX = 1, GRUN_NODE_COST, GRUN_EDGE_COST, GRUN_HEURISTIC, GRUN_LAYERS };

typedef struct graph_find_ctx graph_find_ctx;

/* A Lua array of per-node values, read node by node as the search reaches them. */
typedef struct lua_values {
    graph_find_ctx *ctx;
    int slot;        /* its stack slot in the runner */
    int list_index;  /* its index in a list of layers, 0 when given alone */
} lua_values;

struct graph_find_ctx {
    lua_State *L;
    lgraph *graph;
    graph_workspace *ws;
    astar_graph_query q;
    astar_graph_layer layers[ASTAR_MAX_LAYERS];
    lua_values values[ASTAR_MAX_LAYERS];
    int value_index[ASTAR_MAX_LAYERS]; /* caller's stack index of each Lua array (0: none) */
    int nvalues;
    lobject *read[ASTAR_MAX_LAYERS + 2];
    int nread;
};

static void mark_graph_read(graph_find_ctx *c, lobject *o) {
    for (int i = 0; i < c->nread; i++)
        if (c->read[i] == o) return;
    c->read[c->nread++] = o;
}

static double lua_values_trampoline(void *ud, int32_t node) {
    const lua_values *v = ud;
    lua_State *L = v->ctx->L;
    lua_rawgeti(L, v->slot, node + 1);
    lua_Number x = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(x)) {
        if (v->list_index)
            luaL_error(L, "option 'influence'[%d][1] holds %s for node %d: expected a finite number",
                       v->list_index, value_str(L, -1), (int)node + 1);
        luaL_error(L, "option 'influence' holds %s for node %d: expected a finite number",
                   value_str(L, -1), (int)node + 1);
    }
    lua_pop(L, 1);
    return x;
}

static int graph_callback_result(lua_State *L, const char *name, int32_t node, double *extra) {
    return callback_result(L, name, node, -1, extra);
}

static int graph_node_cost_trampoline(void *ud, int32_t node, double *extra) {
    lua_State *L = ((graph_find_ctx *)ud)->L;
    lua_pushvalue(L, GRUN_NODE_COST);
    lua_pushinteger(L, (lua_Integer)node + 1);
    lua_call(L, 1, 1);
    return graph_callback_result(L, "node_cost", node, extra);
}

static int graph_edge_cost_trampoline(void *ud, int32_t to, int32_t from, double *extra) {
    lua_State *L = ((graph_find_ctx *)ud)->L;
    lua_pushvalue(L, GRUN_EDGE_COST);
    lua_pushinteger(L, (lua_Integer)to + 1);
    lua_pushinteger(L, (lua_Integer)from + 1);
    lua_call(L, 2, 1);
    return graph_callback_result(L, "edge_cost", to, extra);
}

static double graph_heuristic_trampoline(void *ud, int32_t node, int32_t goal) {
    lua_State *L = ((graph_find_ctx *)ud)->L;
    lua_pushvalue(L, GRUN_HEURISTIC);
    lua_pushinteger(L, (lua_Integer)node + 1);
    lua_pushinteger(L, (lua_Integer)goal + 1);
    lua_call(L, 2, 1);
    lua_Number h = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(h >= 0) || h == HUGE_VAL)
        luaL_error(L, "heuristic returned %s for node %d: expected a finite number >= 0",
                   value_str(L, -1), (int)node + 1);
    lua_pop(L, 1);
    return h;
}

static const char *const GRAPH_FIND_OPTIONS[] = {
    "heuristic", "weight",         "influence", "influence_weight", "claims",
    "unit",      "claim_penalty",  "claim_radius", "node_cost",     "edge_cost",
    "max_expansions", "max_cost",  "partial",   "noise",            "seed",
    NULL};

/*
 * One entry of option 'influence' (the value at idx): a Lua array of one
 * number per node, or an astar.Influence of n x 1. The value stays on the
 * stack, pinned for the query.
 */
static void graph_influence_entry(lua_State *L, int arg, int idx, graph_find_ctx *c, double weight,
                                  int list_index) {
    int32_t n = astar_graph_node_count(c->graph->graph);
    char what[48];
    if (list_index) snprintf(what, sizeof what, "option 'influence'[%d][1]", list_index);
    else snprintf(what, sizeof what, "option 'influence'");
    astar_graph_layer *l = &c->layers[c->q.nlayers];
    l->weight = weight;
    llayer *layer = astar_testudata(L, idx, LAYER_MT);
    if (layer && layer->layer) {
        if (layer->base.height != 1 || layer->base.width != n)
            arg_error_fmt(L, arg, "%s is %dx%d but the graph needs %dx1 (one value per node)", what,
                          (int)layer->base.width, (int)layer->base.height, (int)n);
        l->values = astar_layer_row(layer->layer, 0);
        mark_graph_read(c, &layer->base);
    } else if (lua_type(L, idx) == LUA_TTABLE) {
        size_t len = astar_rawlen(L, idx);
        if (len != (size_t)n)
            arg_error_fmt(L, arg, "%s has %d values but the graph has %d nodes", what, (int)len, (int)n);
        lua_values *v = &c->values[c->nvalues];
        v->ctx = c;
        v->list_index = list_index;
        c->value_index[c->nvalues++] = idx;
        l->value_fn = lua_values_trampoline;
        l->value_ud = v;
    } else {
        arg_error_fmt(L, arg, "%s must be an array of numbers (one per node) or an astar.Influence, got %s",
                      what, luaL_typename(L, idx));
    }
    c->q.nlayers++;
}

/* Reads the options at `arg` into c->q; callbacks go to the stack slots cb[0..2]. */
static void read_graph_options(lua_State *L, int arg, graph_find_ctx *c, const int cb[3]) {
    astar_graph_query *q = &c->q;
    luaL_checktype(L, arg, LUA_TTABLE);
    check_option_keys(L, arg, GRAPH_FIND_OPTIONS);
    check_stack(L, 2 * ASTAR_MAX_LAYERS + 16);
    int top = lua_gettop(L);

    if (get_option(L, arg, "heuristic")) {
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (s && strcmp(s, "euclidean") == 0) {
            q->heuristic = ASTAR_H_EUCLIDEAN;
        } else if (s && strcmp(s, "zero") == 0) {
            q->heuristic = ASTAR_H_ZERO;
        } else if (!s && is_callable(L, -1)) {
            q->heuristic = ASTAR_H_CUSTOM;
            q->heuristic_fn = graph_heuristic_trampoline;
            q->heuristic_ud = c;
            lua_replace(L, cb[2]);
        } else {
            arg_error_fmt(L, arg, "option 'heuristic' must be \"euclidean\", \"zero\" or a function, got %s",
                          value_str(L, -1));
        }
    }
    lua_settop(L, top);
    if (get_option(L, arg, "weight")) {
        q->weight = option_number(L, arg, "weight", 1, "a finite number >= 1");
        if (q->weight == HUGE_VAL)
            arg_error_fmt(L, arg, "option 'weight' must be a finite number >= 1, got %s", value_str(L, -1));
    }
    lua_settop(L, top);

    bool have_weight = get_option(L, arg, "influence_weight");
    double single_weight = 1.0;
    if (have_weight) {
        single_weight = option_number(L, arg, "influence_weight", -HUGE_VAL, "a finite number");
        if (!isfinite(single_weight))
            arg_error_fmt(L, arg, "option 'influence_weight' must be a finite number, got %s", value_str(L, -1));
    }
    lua_settop(L, top);
    q->layers = c->layers;
    if (get_option(L, arg, "influence")) {
        int inf = lua_gettop(L);
        bool list = false;
        if (lua_type(L, inf) == LUA_TTABLE) { /* a list's first entry is a {values, weight} table */
            lua_rawgeti(L, inf, 1);
            list = lua_type(L, -1) == LUA_TTABLE;
            lua_pop(L, 1);
        }
        if (!list) {
            graph_influence_entry(L, arg, inf, c, single_weight, 0); /* pinned where it is */
        } else {
            if (have_weight)
                arg_error_fmt(L, arg, "option 'influence_weight' cannot be used with a list of "
                                      "layers: give each layer its weight");
            size_t n = astar_rawlen(L, inf);
            if (n > ASTAR_MAX_LAYERS)
                arg_error_fmt(L, arg, "option 'influence' lists %d layers, at most %d are allowed",
                              (int)n, ASTAR_MAX_LAYERS);
            for (size_t i = 1; i <= n; i++) {
                lua_rawgeti(L, inf, (int)i);
                if (lua_type(L, -1) != LUA_TTABLE)
                    arg_error_fmt(L, arg, "option 'influence'[%d] must be a table {values, weight}, got %s",
                                  (int)i, luaL_typename(L, -1));
                lua_rawgeti(L, -1, 2);
                double w = 1.0;
                if (!lua_isnil(L, -1)) {
                    w = lua_tonumber(L, -1);
                    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(w))
                        arg_error_fmt(L, arg, "option 'influence'[%d][2] (weight) must be a finite number, got %s",
                                      (int)i, value_str(L, -1));
                }
                lua_pop(L, 1);
                lua_rawgeti(L, -1, 1);
                lua_remove(L, -2); /* the values stay, pinned; the entry table goes */
                graph_influence_entry(L, arg, lua_gettop(L), c, w, (int)i);
            }
        }
    } else if (have_weight) {
        arg_error_fmt(L, arg, "option 'influence_weight' needs option 'influence'");
    }
    top = lua_gettop(L); /* keeps what the layers pinned */

    lgraph_claims *cl = NULL;
    if (get_option(L, arg, "claims")) {
        cl = astar_testudata(L, -1, GRAPH_CLAIMS_MT);
        if (!cl || !cl->claims)
            arg_error_fmt(L, arg, "option 'claims' must be an astar.GraphClaims (astar.claims(graph)), got %s",
                          luaL_typename(L, -1));
        if (cl->graph != c->graph) arg_error_fmt(L, arg, "option 'claims' belongs to another graph");
        q->claims = cl->claims;
        mark_graph_read(c, &cl->base);
        top++; /* pinned for the query */
    }
    static const char *const CLAIM_OPTIONS[] = {"unit", "claim_penalty", "claim_radius"};
    for (int i = 0; i < 3 && !cl; i++)
        if (get_option(L, arg, CLAIM_OPTIONS[i]))
            arg_error_fmt(L, arg, "option '%s' needs option 'claims'", CLAIM_OPTIONS[i]);
    if (cl && get_option(L, arg, "unit")) {
        int key = lua_gettop(L);
        int t = lua_type(L, key);
        if (!(t == LUA_TSTRING || (t == LUA_TNUMBER && lua_tonumber(L, key) == floor(lua_tonumber(L, key)))))
            arg_error_fmt(L, arg, "option 'unit' must be an integer or a string, got %s", value_str(L, key));
        astar_getuservalue(L, top);
        lua_pushvalue(L, key);
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TNUMBER) q->unit = (int32_t)lua_tointeger(L, -1);
    }
    lua_settop(L, top);
    if (cl && get_option(L, arg, "claim_penalty")) {
        q->claim_penalty = option_number(L, arg, "claim_penalty", 0, "a finite number >= 0");
        if (q->claim_penalty == HUGE_VAL)
            arg_error_fmt(L, arg, "option 'claim_penalty' must be a finite number >= 0, got %s", value_str(L, -1));
    }
    lua_settop(L, top);
    if (cl && get_option(L, arg, "claim_radius"))
        q->claim_radius = option_number(L, arg, "claim_radius", 0, "a number >= 0 (a distance)");
    lua_settop(L, top);

    static const char *const CALLBACKS[] = {"node_cost", "edge_cost"};
    for (int i = 0; i < 2; i++) {
        if (!get_option(L, arg, CALLBACKS[i])) continue;
        if (!is_callable(L, -1))
            arg_error_fmt(L, arg, "option '%s' must be a function, got %s", CALLBACKS[i], luaL_typename(L, -1));
        lua_replace(L, cb[i]);
        if (i == 0) {
            q->node_cost = graph_node_cost_trampoline;
            q->node_cost_ud = c;
        } else {
            q->edge_cost = graph_edge_cost_trampoline;
            q->edge_cost_ud = c;
        }
    }
    if (get_option(L, arg, "max_expansions")) {
        lua_Number n = option_number(L, arg, "max_expansions", 0, "an integer >= 0");
        if (n != floor(n))
            arg_error_fmt(L, arg, "option 'max_expansions' must be an integer >= 0, got %s", value_str(L, -1));
        q->max_expansions = n >= 1.8e19 ? UINT64_MAX : (uint64_t)n;
    }
    lua_settop(L, top);
    if (get_option(L, arg, "max_cost")) q->max_cost = option_number(L, arg, "max_cost", 0, "a number >= 0");
    lua_settop(L, top);
    if (get_option(L, arg, "partial")) {
        if (lua_type(L, -1) != LUA_TBOOLEAN)
            arg_error_fmt(L, arg, "option 'partial' must be a boolean, got %s", luaL_typename(L, -1));
        q->partial = lua_toboolean(L, -1);
    }
    lua_settop(L, top);
    if (get_option(L, arg, "noise")) {
        q->noise = option_number(L, arg, "noise", 0, "a number >= 0");
        if (q->noise == HUGE_VAL)
            arg_error_fmt(L, arg, "option 'noise' must be a finite number >= 0, got %s", value_str(L, -1));
    }
    lua_settop(L, top);
    if (get_option(L, arg, "seed")) {
        int isint;
        lua_Integer seed = astar_tointegerx(L, -1, &isint);
        if (!isint || lua_type(L, -1) != LUA_TNUMBER)
            arg_error_fmt(L, arg, "option 'seed' must be an integer, got %s", value_str(L, -1));
        q->seed = (uint32_t)(uint64_t)seed; /* modulo 2^32 */
    }
    lua_settop(L, top);
}

static graph_workspace *acquire_graph_workspace(lua_State *L, lgraph *g) {
    for (graph_workspace *w = g->pool; w; w = w->next)
        if (!w->busy) {
            w->busy = true;
            return w;
        }
    astar_alloc a = lua_allocator(L);
    graph_workspace *w = a.fn(a.ud, NULL, 0, sizeof *w);
    if (!w) no_memory(L);
    w->search = astar_graph_search_new(&a);
    if (!w->search) {
        a.fn(a.ud, w, sizeof *w, 0);
        no_memory(L);
    }
    w->busy = true;
    w->next = NULL;
    graph_workspace **tail = &g->pool; /* at the end: the outermost query takes the warm one */
    while (*tail) tail = &(*tail)->next;
    *tail = w;
    return w;
}

/* Runs inside lua_pcall: the search, then the result tables. */
static int graph_find_run(lua_State *L) {
    graph_find_ctx *c = lua_touserdata(L, GRUN_CTX);
    c->L = L;
    for (int i = 0; i < c->nvalues; i++) c->values[i].slot = GRUN_LAYERS + i;
    astar_result res;
    astar_status st = astar_graph_find(c->ws->search, c->graph->graph, &c->q, &res);
    if (st == ASTAR_ENOMEM) return no_memory(L);
    if (st == ASTAR_EINVAL || st == ASTAR_EABORT)
        return luaL_error(L, "find failed: %s", astar_status_name(st));
    if (st == ASTAR_OK || st == ASTAR_PARTIAL) {
        int32_t n = 0;
        const int32_t *ids = astar_graph_search_path(c->ws->search, &n);
        lua_createtable(L, n, 0);
        for (int32_t i = 0; i < n; i++) {
            lua_pushinteger(L, (lua_Integer)ids[i] + 1);
            lua_rawseti(L, -2, i + 1);
        }
    } else {
        lua_pushnil(L);
    }
    lua_createtable(L, 0, 4);
    lua_pushstring(L, astar_status_name(st));
    lua_setfield(L, -2, "status");
    lua_pushinteger(L, (lua_Integer)res.expansions);
    lua_setfield(L, -2, "expansions");
    if (st == ASTAR_OK || st == ASTAR_PARTIAL) {
        lua_pushnumber(L, res.cost);
        lua_setfield(L, -2, "cost");
        lua_pushinteger(L, res.length);
        lua_setfield(L, -2, "length");
    }
    if (st == ASTAR_PARTIAL) {
        lua_pushstring(L, astar_status_name(res.reason));
        lua_setfield(L, -2, "reason");
    }
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
    c->q.start = check_node(L, 2, g);
    c->q.goal = check_node(L, 3, g);
    lua_settop(L, 4);
    check_stack(L, ASTAR_MAX_LAYERS + 16);
    int cb[3];
    for (int i = 0; i < 3; i++) {
        lua_pushnil(L);
        cb[i] = lua_gettop(L);
    }
    if (!lua_isnil(L, 4)) read_graph_options(L, 4, c, cb);

    c->ws = acquire_graph_workspace(L, g);
    check_stack(L, GRUN_LAYERS + c->nvalues + 2);
    /* From here to the end of lua_pcall nothing may raise: the marks must be undone. */
    mark_graph_read(c, &g->base);
    for (int i = 0; i < c->nread; i++) c->read[i]->readers++;
    lua_pushvalue(L, lua_upvalueindex(1)); /* graph_find_run */
    lua_pushlightuserdata(L, c);
    for (int i = 0; i < 3; i++) lua_pushvalue(L, cb[i]);
    for (int i = 0; i < c->nvalues; i++) lua_pushvalue(L, c->value_index[i]);
    int rc = lua_pcall(L, GRUN_LAYERS - 1 + c->nvalues, 2, 0);
    for (int i = 0; i < c->nread; i++) c->read[i]->readers--;
    c->ws->busy = false;
    if (rc != LUA_OK) return lua_error(L); /* the callback's own error value, unchanged */
    return 2;
}

static const luaL_Reg GRAPH_METHODS[] = {
    {"add_node", graph_add_node},       {"add_edge", graph_add_edge},
    {"add_arc", graph_add_arc},         {"remove_edge", graph_remove_edge},
    {"remove_arc", graph_remove_arc},   {"arc_cost", graph_arc_cost},
    {"set_blocked", graph_set_blocked}, {"is_blocked", graph_is_blocked},
    {"node", graph_node},               {"neighbours", graph_neighbours},
    {"size", graph_size},               {NULL, NULL}};

static const luaL_Reg GRAPH_CLAIMS_METHODS[] = {
    {"claim", graph_claims_claim},   {"advance", graph_claims_advance},
    {"release", graph_claims_release}, {"count", graph_claims_count},
    {"position", graph_claims_position}, {NULL, NULL}};

/* The graph's metatables; astar.graph itself is set by luaopen. */
static void register_graph(lua_State *L) {
    new_class(L, GRAPH_CLAIMS_MT, GRAPH_CLAIMS_METHODS, graph_claims_gc, graph_claims_tostring);
    new_class(L, GRAPH_MT, GRAPH_METHODS, graph_gc, graph_tostring);
    luaL_getmetatable(L, GRAPH_MT);
    lua_getfield(L, -1, "__index");
    lua_getupvalue(L, -1, 1); /* the methods */
    lua_pushcfunction(L, graph_size); /* new_class put the grids' size there */
    lua_setfield(L, -2, "size");
    lua_pushcfunction(L, graph_find_run);
    lua_pushcclosure(L, graph_find, 1);
    lua_setfield(L, -2, "find");
    lua_pushcclosure(L, graph_index, 1); /* over the same methods */
    lua_setfield(L, -3, "__index");
    lua_pop(L, 2);
}

/* -------------------------------------------------------------- module */

static const luaL_Reg GRID_METHODS[] = {
    {"set_cost", grid_set_cost}, {"get_cost", grid_get_cost}, {"set_blocked", grid_set_blocked},
    {"is_walkable", grid_is_walkable}, {"fill", grid_fill}, {"load", grid_load},
    {"component", grid_component}, {"reachable", grid_reachable},
    {"landmarks", grid_landmarks}, {NULL, NULL}};

static const luaL_Reg LAYER_METHODS[] = {
    {"set", layer_set},       {"get", layer_get},         {"add", layer_add},
    {"fill", layer_fill},     {"stamp", layer_stamp},     {"decay", layer_decay},
    {"spread", layer_spread}, {"max_abs", layer_max_abs}, {"add_layer", layer_add_layer},
    {NULL, NULL}};

static const luaL_Reg JOB_METHODS[] = {
    {"result", job_result}, {"status", job_status}, {NULL, NULL}};

static const luaL_Reg FIELD_METHODS[] = {
    {"distance", field_distance}, {"next", field_next}, {"path", field_path},
    {"cells", field_cells},       {NULL, NULL}};

static const luaL_Reg MASK_METHODS[] = {
    {"reveal", mask_reveal}, {"is_known", mask_is_known}, {NULL, NULL}};

static const luaL_Reg CLAIMS_METHODS[] = {
    {"claim", claims_claim}, {"advance", claims_advance}, {"release", claims_release},
    {"count", claims_count}, {"position", claims_position}, {NULL, NULL}};

ASTAR_EXPORT int luaopen_astar_core(lua_State *L);

int luaopen_astar_core(lua_State *L) {
    new_class(L, GRID_MT, GRID_METHODS, grid_gc, grid_tostring);
    /* find gets its protected runner as an upvalue: no closure is made per query. */
    luaL_getmetatable(L, GRID_MT);
    lua_getfield(L, -1, "__index");
    lua_getupvalue(L, -1, 1);
    lua_pushcfunction(L, find_run);
    lua_pushcclosure(L, grid_find, 1);
    lua_setfield(L, -2, "find");
    lua_pushcfunction(L, find_run);
    lua_pushcclosure(L, grid_find_nearest, 1);
    lua_setfield(L, -2, "find_nearest");
    lua_pushcfunction(L, many_run);
    lua_pushcclosure(L, grid_find_many, 1);
    lua_setfield(L, -2, "find_many");
    lua_pushcfunction(L, field_run);
    lua_pushcclosure(L, grid_distance_field, 1);
    lua_setfield(L, -2, "distance_field");
    lua_pushcfunction(L, field_run);
    lua_pushcclosure(L, grid_range, 1);
    lua_setfield(L, -2, "range");
    lua_pushcfunction(L, grid_search);
    lua_setfield(L, -2, "search");
    lua_pop(L, 3);
    new_class(L, FIELD_MT, FIELD_METHODS, field_gc, field_tostring);
    new_class(L, JOB_MT, JOB_METHODS, job_gc, job_tostring);
    luaL_getmetatable(L, JOB_MT);
    lua_getfield(L, -1, "__index");
    lua_getupvalue(L, -1, 1);
    lua_pushcfunction(L, job_run);
    lua_pushcclosure(L, job_step, 1);
    lua_setfield(L, -2, "step");
    lua_pop(L, 3);
    new_class(L, LAYER_MT, LAYER_METHODS, layer_gc, layer_tostring);
    new_class(L, CLAIMS_MT, CLAIMS_METHODS, claims_gc, claims_tostring);
    new_class(L, MASK_MT, MASK_METHODS, mask_gc, mask_tostring);
    register_graph(L);

    lua_newtable(L);
    lua_pushcfunction(L, l_grid);
    lua_setfield(L, -2, "grid");
    lua_pushcfunction(L, l_influence);
    lua_setfield(L, -2, "influence");
    lua_pushcfunction(L, l_mask);
    lua_setfield(L, -2, "mask");
    lua_pushcfunction(L, l_claims);
    lua_setfield(L, -2, "claims");
    lua_pushcfunction(L, l_graph);
    lua_setfield(L, -2, "graph");
    lua_pushcfunction(L, l_load_movingai);
    lua_setfield(L, -2, "load_movingai");
    lua_pushcfunction(L, l_load_movingai_string);
    lua_setfield(L, -2, "load_movingai_string");
    lua_pushcfunction(L, l_load_scen);
    lua_setfield(L, -2, "load_scen");
    lua_pushcfunction(L, l_load_scen_string);
    lua_setfield(L, -2, "load_scen_string");
    lua_pushcfunction(L, astar_lua_png_encode);
    lua_setfield(L, -2, "png_encode");
    lua_pushliteral(L, ASTAR_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}
