/*
 * astar.core -- the Lua binding of the C core: userdata, argument checks and
 * callback trampolines. Convenience belongs in lua/astar/init.lua.
 *
 * Memory: core objects allocate through the interpreter's allocator and are
 * owned by userdata whose __gc frees them, so an error (a longjmp) at any point
 * leaks nothing. A query runs inside lua_pcall: an error raised by a script
 * callback unwinds the core, the binding releases the workspace and the
 * "in use" marks, and re-raises the same error value.
 *
 * Mods are untrusted code, and a metamethod of a table we are given (__index of
 * an options or a point table) is Lua code that may close, collect or change
 * anything. So every function here that takes tables follows one rule:
 *   1. Read: every argument, option and point is read exactly once, into C
 *      values; the Lua values needed later (objects, callbacks, the unit key)
 *      are pinned on the stack. Metamethods run here, and only here.
 *   2. Resolve: then every object is checked (of its type, open, of the right
 *      size) and marked "in use" (lobject.readers); no Lua code runs between
 *      this and the work, but the query's own callbacks, which the marks guard
 *      (a marked object refuses to be written or freed). What a function is
 *      building (a distance field) is marked too.
 *   3. Run.
 * read_options (the option table OPTIONS), resolve_grid_query and
 * resolve_graph_query are that rule for queries; functions taking lists of
 * points read them all (read_point) before they resolve their objects.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
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

/* Every userdata starts with this. */
typedef struct lobject {
    int32_t width, height;
    int readers; /* queries (and builds) running now that read this object */
    bool freed;  /* closed (__close, or __gc called by hand): nothing may read it */
} lobject;

/* A search workspace of a grid or a graph, taken by one query at a time. */
typedef struct workspace {
    void *search; /* an astar_search (a grid's pool) or an astar_graph_search (a graph's) */
    bool busy;
    struct workspace *next;
} workspace;

/* How a pool makes and frees the searches of its workspaces: one kind for grids, one for
 * graphs. */
typedef struct pool_kind {
    void *(*make)(const lobject *owner, const astar_alloc *a);
    void (*drop)(void *search);
} pool_kind;

/* The workspaces of one grid or graph: one per query running on it at once (reentrant
 * finds), kept warm between queries. */
typedef struct pool {
    const pool_kind *kind;
    workspace *first;
} pool;

typedef struct lgrid {
    lobject base;
    astar_grid *grid;
    pool pool;
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

/* The type a message names: the metatable's __name (read raw) where it has one, as Lua's own
 * luaL_typeerror does ("astar.Grid", "FILE*"). */
static const char *type_name(lua_State *L, int idx) {
    if (luaL_getmetafield(L, idx, "__name")) {
        if (lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1); /* anchored on the stack */
        lua_pop(L, 1);
    }
    if (lua_type(L, idx) == LUA_TLIGHTUSERDATA) return "light userdata";
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
    return arg_error_fmt(L, arg, "%s expected, got %s", expected, type_name(L, arg));
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

/* A string without NUL bytes: C would read "a.map\0x" as "a.map". */
static const char *check_c_string(lua_State *L, int arg, const char *what) {
    size_t len;
    const char *s = luaL_checklstring(L, arg, &len);
    if (strlen(s) != len) arg_error_fmt(L, arg, "%s contains a NUL byte", what);
    return s;
}

/* Is the string at idx exactly `name` (no trailing "\0junk")? */
static bool string_is(lua_State *L, int idx, const char *name) {
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    return len == strlen(name) && memcmp(s, name, len) == 0;
}

/* The index of the string at idx in names (NULL-terminated), or -1 (also for non-strings). */
static int name_index(lua_State *L, int idx, const char *const names[]) {
    if (lua_type(L, idx) != LUA_TSTRING) return -1;
    for (int i = 0; names[i]; i++)
        if (string_is(L, idx, names[i])) return i;
    return -1;
}

static bool is_callable(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TFUNCTION) return true;
    if (!luaL_getmetafield(L, idx, "__call")) return false;
    lua_pop(L, 1);
    return true;
}

/* The userdata at arg if it is of class mt, open or not; a type error otherwise. */
static void *check_object(lua_State *L, int arg, const char *mt) {
    void *p = astar_testudata(L, arg, mt);
    if (!p) type_error(L, arg, mt);
    return p;
}

static int freed_error(lua_State *L, const char *mt) {
    return luaL_error(L, "attempt to use a freed %s", mt);
}

/* check_object, and open. */
static void *check_open(lua_State *L, int arg, const char *mt) {
    lobject *o = check_object(L, arg, mt);
    if (o->freed) freed_error(L, mt);
    return o;
}

static lgrid *check_grid(lua_State *L, int arg) { return check_open(L, arg, GRID_MT); }
static llayer *check_layer(lua_State *L, int arg) { return check_open(L, arg, LAYER_MT); }
static lclaims *check_claims(lua_State *L, int arg) { return check_open(L, arg, CLAIMS_MT); }

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

/*
 * A free workspace of pool p, whose object is owner: the first that is not busy, else a new
 * one (made at the end, so that the outermost query always takes the first, warm one).
 */
static workspace *acquire_workspace(lua_State *L, pool *p, const lobject *owner) {
    for (workspace *w = p->first; w; w = w->next)
        if (!w->busy) {
            w->busy = true;
            return w;
        }
    astar_alloc a = lua_allocator(L);
    workspace *w = a.fn(a.ud, NULL, 0, sizeof *w);
    if (!w) no_memory(L);
    w->search = p->kind->make(owner, &a);
    if (!w->search) {
        a.fn(a.ud, w, sizeof *w, 0);
        no_memory(L);
    }
    w->busy = true;
    w->next = NULL;
    workspace **tail = &p->first;
    while (*tail) tail = &(*tail)->next;
    *tail = w;
    return w;
}

/* Frees every workspace of p (its object is being freed: none is busy). */
static void free_pool(lua_State *L, pool *p) {
    astar_alloc a = lua_allocator(L);
    while (p->first) {
        workspace *w = p->first;
        p->first = w->next;
        p->kind->drop(w->search);
        a.fn(a.ud, w, sizeof *w, 0);
    }
}

/* The Moving AI parsers report failure as text only; a memory failure must still read as one. */
static int parse_error(lua_State *L, const char *name, const char *err) {
    if (strncmp(err, "not enough memory", strlen("not enough memory")) == 0) return no_memory(L);
    return luaL_error(L, "%s: %s", name, err);
}

#define MAX_VALUE_STR "1e100"

/* Terrain cost of a Lua value: 0 < number <= ASTAR_MAX_VALUE, or math.huge or false (blocks). */
static bool to_cost(lua_State *L, int idx, double *cost) {
    if (lua_type(L, idx) == LUA_TBOOLEAN && !lua_toboolean(L, idx)) {
        *cost = INFINITY;
        return true;
    }
    lua_Number c = lua_tonumber(L, idx);
    *cost = c;
    return lua_type(L, idx) == LUA_TNUMBER && (c == HUGE_VAL || (c > 0 && c <= ASTAR_MAX_VALUE));
}

static double check_cost(lua_State *L, int arg) {
    double c;
    if (lua_type(L, arg) != LUA_TNUMBER && lua_type(L, arg) != LUA_TBOOLEAN)
        type_error(L, arg, "number or false");
    if (!to_cost(L, arg, &c))
        arg_error_fmt(L, arg, "cost must be a number in (0, " MAX_VALUE_STR "], false or math.huge, got %s",
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
#define DIAGONAL_RULE "\"never\", \"always\", \"one_walkable\" or \"no_corner_cut\""

/*
 * The keys of the options table at arg (read raw: no metamethod runs), each checked against
 * names: "unknown option 'k'". The table itself must be one.
 */
static void check_option_keys(lua_State *L, int arg, const char *const names[]) {
    if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table");
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        lua_pop(L, 1);
        if (name_index(L, -1, names) < 0) arg_error_fmt(L, arg, "unknown option %s", value_str(L, -1));
    }
}

/* ------------------------------------------------------------- classes */

/*
 * One class of userdata, registered like liolib's createmeta: its metatable holds
 * exactly its metamethods, and __index its methods, then its read-only fields.
 */
typedef struct lclass {
    const char *name;            /* registry key and __name */
    const luaL_Reg *methods;
    const luaL_Reg *metamethods; /* __gc (also __close), __tostring */
    /* Pushes field `key` of the open or freed object o and returns 1, or returns 0. */
    int (*field)(lua_State *L, void *o, const char *key);
} lclass;

/* __index: upvalue 1 the methods, 2 the lclass. Checks self: a metamethod can be called on
 * anything (getmetatable(grid).__index(io.stdout, "width")). */
static int class_index(lua_State *L) {
    const lclass *cls = lua_touserdata(L, lua_upvalueindex(2));
    void *o = check_object(L, 1, cls->name);
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    if (cls->field && lua_type(L, 2) == LUA_TSTRING) return cls->field(L, o, lua_tostring(L, 2));
    return 0;
}

static int class_newindex(lua_State *L) {
    const char *key = astar_tolstring(L, 2, NULL);
    return luaL_error(L, "cannot set field '%s' of %s: its fields are read-only", key,
                      astar_tolstring(L, 1, NULL));
}

static int protected_metatable(lua_State *L) {
    return luaL_error(L, "the metatables of astar objects are read-only");
}

/*
 * Makes the metatable of cls. Scripts see a stand-in (__metatable) that reads through to it
 * but takes no writes: a mod may look at the functions, not change other mods' objects.
 */
static void register_class(lua_State *L, const lclass *cls) {
    luaL_newmetatable(L, cls->name);
    int mt = lua_gettop(L);
#if LUA_VERSION_NUM < 503 /* 5.3 sets it: messages name the type by it (type_name) */
    lua_pushstring(L, cls->name);
    lua_setfield(L, mt, "__name");
#endif
    astar_setfuncs(L, cls->metamethods);
#if LUA_VERSION_NUM >= 504
    lua_getfield(L, mt, "__gc");
    lua_setfield(L, mt, "__close");
#endif
    lua_newtable(L);
    astar_setfuncs(L, cls->methods);
    lua_pushlightuserdata(L, (void *)cls);
    lua_pushcclosure(L, class_index, 2);
    lua_setfield(L, mt, "__index");
    lua_pushcfunction(L, class_newindex);
    lua_setfield(L, mt, "__newindex");
    lua_newtable(L); /* the stand-in */
    lua_createtable(L, 0, 3);
    lua_pushvalue(L, mt);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, protected_metatable);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_setfield(L, mt, "__metatable");
    lua_pop(L, 1);
}

/* width and height, the fields of every class but graphs. */
static int size_field(lua_State *L, void *o, const char *key) {
    const lobject *b = o;
    if (strcmp(key, "width") == 0) return lua_pushinteger(L, b->width), 1;
    if (strcmp(key, "height") == 0) return lua_pushinteger(L, b->height), 1;
    return 0;
}

/* A zeroed userdata of `size` with its metatable (and so its __gc) set before any init. */
static void *new_object(lua_State *L, size_t size, const char *mt) {
    void *p = astar_newuserdata(L, size);
    memset(p, 0, size);
    astar_setmetatable(L, mt);
    return p;
}

/* obj:size() -> width, height, for the class mt (self checked: each class has its own). */
static int push_size(lua_State *L, const char *mt) {
    const lobject *o = check_object(L, 1, mt);
    lua_pushinteger(L, o->width);
    lua_pushinteger(L, o->height);
    return 2;
}

static void check_size_args(lua_State *L, int32_t *w, int32_t *h) {
    *w = (int32_t)check_integer(L, 1, "width", 1, ASTAR_MAX_SIDE);
    *h = (int32_t)check_integer(L, 2, "height", 1, ASTAR_MAX_SIDE);
}
/* --------------------------------------------------------------- grid */

static int grid_gc(lua_State *L) {
    lgrid *g = luaL_checkudata(L, 1, GRID_MT);
    check_writable(L, &g->base, "grid"); /* only a direct __close/__gc call can get here */
    free_pool(L, &g->pool);
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

static int grid_field(lua_State *L, void *o, const char *key) {
    const lgrid *g = o;
    if (size_field(L, o, key)) return 1;
    if (!g->grid) return 0;
    astar_diagonal mode = astar_grid_diagonal(g->grid);
    if (strcmp(key, "diagonal") == 0) return lua_pushstring(L, MODE_NAMES[mode]), 1;
    if (strcmp(key, "topology") == 0)
        return lua_pushstring(L, mode == ASTAR_DIAG_HEX ? "hex" : "square"), 1;
    return 0;
}

static int grid_size(lua_State *L) { return push_size(L, GRID_MT); }

static void *make_grid_search(const lobject *grid, const astar_alloc *a) {
    return astar_search_new(grid->width, grid->height, a);
}

static void drop_grid_search(void *search) { astar_search_free(search); }

static const pool_kind GRID_SEARCHES = {make_grid_search, drop_grid_search};

/* A new grid userdata, its core grid still to be made (and its size to be set). */
static lgrid *new_grid(lua_State *L) {
    lgrid *g = new_object(L, sizeof *g, GRID_MT);
    g->pool.kind = &GRID_SEARCHES;
    return g;
}

/*
 * Reads the table at arg as a few named options: its keys raw (each must be one of names),
 * then each name once (an __index may run), pushed in the order of names; a missing table
 * gives nils. Returns the stack index of the first.
 */
static int read_fields(lua_State *L, int arg, const char *const names[]) {
    int n = 0;
    while (names[n]) n++;
    check_stack(L, n + 4);
    bool given = !lua_isnoneornil(L, arg);
    if (given) check_option_keys(L, arg, names);
    int first = lua_gettop(L) + 1;
    for (int i = 0; i < n; i++) {
        if (given) lua_getfield(L, arg, names[i]);
        else lua_pushnil(L);
    }
    return first;
}

static const char *const GRID_OPTIONS[] = {"diagonal", "cost", "topology", NULL};

static int l_grid(lua_State *L) {
    int32_t w, h;
    check_size_args(L, &w, &h);
    int opt = read_fields(L, 3, GRID_OPTIONS);
    int diagonal = opt, cost_at = opt + 1, topology = opt + 2;
    astar_diagonal diag = ASTAR_DIAG_NO_CORNER_CUT;
    if (!lua_isnil(L, diagonal)) {
        int i = name_index(L, diagonal, DIAGONAL_NAMES);
        if (i < 0)
            arg_error_fmt(L, 3, "option 'diagonal' must be " DIAGONAL_RULE ", got %s",
                          value_str(L, diagonal));
        diag = (astar_diagonal)i;
    }
    if (!lua_isnil(L, topology)) {
        static const char *const TOPOLOGIES[] = {"square", "hex", NULL};
        int t = name_index(L, topology, TOPOLOGIES);
        if (t < 0)
            arg_error_fmt(L, 3, "option 'topology' must be \"square\" or \"hex\", got %s",
                          value_str(L, topology));
        if (t == 1) {
            if (!lua_isnil(L, diagonal))
                arg_error_fmt(L, 3, "option 'diagonal' cannot be used with topology \"hex\"");
            diag = ASTAR_DIAG_HEX;
        }
    }
    double cost = 1.0;
    if (!lua_isnil(L, cost_at) && !to_cost(L, cost_at, &cost))
        arg_error_fmt(L, 3, "option 'cost' must be a number in (0, " MAX_VALUE_STR "] or false, got %s",
                      value_str(L, cost_at));
    lgrid *g = new_grid(L);
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
            double c;
            if (!to_cost(L, -1, &c))
                arg_error_fmt(L, 3, "legend['%s'] must be a number in (0, " MAX_VALUE_STR "] or false, got %s",
                              k, value_str(L, -1));
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


/* ------------------------------------------------------- query options */

/* The functions a query option may be given to. */
enum {
    IN_FIND = 1 << 0,
    IN_NEAREST = 1 << 1,
    IN_SEARCH = 1 << 2,
    IN_MANY = 1 << 3,
    IN_FIELD = 1 << 4,
    IN_RANGE = 1 << 5,
    IN_GRAPH = 1 << 6
};
#define IN_PATHS (IN_FIND | IN_NEAREST | IN_SEARCH | IN_MANY)
#define IN_GRID (IN_PATHS | IN_FIELD | IN_RANGE)
#define IN_ALL (IN_GRID | IN_GRAPH)

typedef enum opt_kind {
    K_NUMBER,    /* a number in lo..hi, to a double */
    K_INTEGER,   /* an integer >= lo, to an int32_t, saturated at hi */
    K_COUNT,     /* an integer >= 0, to a uint64_t, saturated */
    K_BOOLEAN,   /* to an int */
    K_SEED,      /* an integer, to a uint32_t modulo 2^32 */
    K_JUMP,      /* a boolean, to an astar_jps */
    K_DIAGONAL,  /* a mode's name, to an astar_diagonal */
    K_HEURISTIC, /* a name or a function (resolved) */
    K_CALLBACK,  /* a function (pinned, resolved) */
    K_VALUE,     /* an object, a list of them, a key (pinned, resolved) */
    K_REFUSED    /* known, but not here: rule says why */
} opt_kind;

typedef struct option {
    const char *name;
    opt_kind kind;
    unsigned in;         /* the functions it may be given to */
    double lo, hi;       /* K_NUMBER's range; K_INTEGER's least value and saturation */
    const char *rule;    /* what a bad value must be; for K_REFUSED, why not */
    ptrdiff_t grid_at;   /* where a scalar lands: offsetof in astar_query, */
    ptrdiff_t graph_at;  /* and in astar_graph_query; -1 where resolved by hand */
} option;

#define AT(field) offsetof(astar_query, field), offsetof(astar_graph_query, field)
#define GRID_AT(field) offsetof(astar_query, field), -1
#define GRAPH_AT(field) -1, offsetof(astar_graph_query, field)
#define BY_HAND -1, -1

typedef enum option_id {
    O_HEURISTIC, O_WEIGHT, O_DIAGONAL, O_INFLUENCE, O_INFLUENCE_WEIGHT, O_CLAIMS, O_UNIT,
    O_CLAIM_PENALTY, O_CLAIM_RADIUS, O_GRAPH_CLAIM_RADIUS, O_FIELD_CLAIM_RADIUS, O_CLAIM_WINDOW,
    O_NODE_COST, O_EDGE_COST, O_MAX_EXPANSIONS, O_MAX_COST, O_RANGE_MAX_COST, O_PARTIAL, O_KNOWN,
    O_NOISE, O_SEED, O_TURN_PENALTY, O_JUMP, NOPTIONS
} option_id;

/* Every query option of grids and graphs: read by read_options, the one reader of them. */
static const option OPTIONS[NOPTIONS] = {
    [O_HEURISTIC] = {"heuristic", K_HEURISTIC, IN_PATHS | IN_GRAPH, 0, 0, NULL, BY_HAND},
    [O_WEIGHT] = {"weight", K_NUMBER, IN_PATHS | IN_GRAPH, 1, ASTAR_MAX_VALUE,
                  "a number in 1.." MAX_VALUE_STR, AT(weight)},
    [O_DIAGONAL] = {"diagonal", K_DIAGONAL, IN_GRID, 0, 0, NULL, GRID_AT(diagonal)},
    [O_INFLUENCE] = {"influence", K_VALUE, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_INFLUENCE_WEIGHT] = {"influence_weight", K_NUMBER, IN_ALL, -ASTAR_MAX_VALUE, ASTAR_MAX_VALUE,
                            "a number in -" MAX_VALUE_STR ".." MAX_VALUE_STR, BY_HAND},
    [O_CLAIMS] = {"claims", K_VALUE, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_UNIT] = {"unit", K_VALUE, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_CLAIM_PENALTY] = {"claim_penalty", K_NUMBER, IN_ALL, 0, ASTAR_MAX_VALUE,
                         "a number in 0.." MAX_VALUE_STR, AT(claim_penalty)},
    [O_CLAIM_RADIUS] = {"claim_radius", K_INTEGER, IN_PATHS | IN_RANGE, 0, 2e9, "an integer >= 0",
                        GRID_AT(claim_radius)},
    [O_GRAPH_CLAIM_RADIUS] = {"claim_radius", K_NUMBER, IN_GRAPH, 0, HUGE_VAL,
                              "a number >= 0 (a distance)", GRAPH_AT(claim_radius)},
    [O_FIELD_CLAIM_RADIUS] = {"claim_radius", K_REFUSED, IN_FIELD, 0, 0, " (it has no start)", BY_HAND},
    [O_CLAIM_WINDOW] = {"claim_window", K_INTEGER, IN_PATHS, 0, 1e9, "an integer >= 0",
                        GRID_AT(claim_window)},
    [O_NODE_COST] = {"node_cost", K_CALLBACK, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_EDGE_COST] = {"edge_cost", K_CALLBACK, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_MAX_EXPANSIONS] = {"max_expansions", K_COUNT, IN_ALL, 0, 0, "an integer >= 0", AT(max_expansions)},
    [O_MAX_COST] = {"max_cost", K_NUMBER, IN_ALL & ~IN_RANGE, 0, HUGE_VAL, "a number >= 0", AT(max_cost)},
    [O_RANGE_MAX_COST] = {"max_cost", K_REFUSED, IN_RANGE, 0, 0, ": the budget is it", BY_HAND},
    [O_PARTIAL] = {"partial", K_BOOLEAN, IN_PATHS | IN_GRAPH, 0, 0, NULL, AT(partial)},
    [O_KNOWN] = {"known", K_VALUE, IN_GRID, 0, 0, NULL, BY_HAND},
    [O_NOISE] = {"noise", K_NUMBER, IN_ALL, 0, ASTAR_MAX_VALUE, "a number in 0.." MAX_VALUE_STR, AT(noise)},
    [O_SEED] = {"seed", K_SEED, IN_ALL, 0, 0, NULL, AT(seed)},
    [O_TURN_PENALTY] = {"turn_penalty", K_NUMBER, IN_PATHS, 0, ASTAR_MAX_VALUE,
                        "a number in 0.." MAX_VALUE_STR, GRID_AT(turn_penalty)},
    [O_JUMP] = {"jump", K_JUMP, IN_PATHS, 0, 0, NULL, GRID_AT(jps)},
};

static const char *const HEURISTIC_NAMES[] = {"octile", "manhattan", "euclidean", "chebyshev",
                                              "zero", "hex", NULL};

/* What read_options found, before its objects are resolved. */
typedef struct query_args {
    int arg;                       /* the options' argument number, for messages */
    unsigned in;
    const char *fn;
    int slot[NOPTIONS];            /* stack index of each option given, pinned; 0: not given */
    astar_heuristic heuristic;     /* a name's, or ASTAR_H_CUSTOM */
    int nlayers;                   /* influence: 1 for one, the length of a list */
    int layer_slot[ASTAR_MAX_LAYERS]; /* each layer (a graph's: or Lua array), pinned */
    double layer_weight[ASTAR_MAX_LAYERS];
} query_args;

/* The row for the key at idx in the functions `in`; NULL if there is none: *known says whether
 * the name is an option elsewhere. */
static const option *option_row(lua_State *L, int idx, unsigned in, bool *known) {
    *known = false;
    if (lua_type(L, idx) != LUA_TSTRING) return NULL;
    for (int id = 0; id < NOPTIONS; id++) {
        if (!string_is(L, idx, OPTIONS[id].name)) continue;
        *known = true;
        if (OPTIONS[id].in & in) return &OPTIONS[id];
    }
    return NULL;
}

static int option_error(lua_State *L, const query_args *a, const option *o, int idx) {
    return arg_error_fmt(L, a->arg, "option '%s' must be %s, got %s", o->name, o->rule,
                         value_str(L, idx));
}

static void read_count(lua_State *L, const query_args *a, const option *o, int idx, double lo) {
    lua_Number n = lua_tonumber(L, idx);
    if (lua_type(L, idx) != LUA_TNUMBER || !(n >= lo) || n != floor(n)) option_error(L, a, o, idx);
}

/* Option 'influence' at idx: one layer, or a list { {layer, weight}, ... } whose layers are
 * pinned on the stack in turn. A graph also takes a Lua array of values per node for a layer;
 * then a list is told by its first entry being a table. */
static void read_influence(lua_State *L, query_args *a, int idx) {
    bool list = lua_type(L, idx) == LUA_TTABLE;
    if (list && a->in == IN_GRAPH) {
        lua_rawgeti(L, idx, 1);
        list = lua_type(L, -1) == LUA_TTABLE;
        lua_pop(L, 1);
    }
    const char *entry = a->in == IN_GRAPH ? "{values, weight}" : "{layer, weight}";
    if (!list) {
        if (lua_type(L, idx) != LUA_TUSERDATA && !(a->in == IN_GRAPH && lua_type(L, idx) == LUA_TTABLE))
            arg_error_fmt(L, a->arg, "option 'influence' must be an astar.Influence or a list of %s, got %s",
                          entry, type_name(L, idx));
        a->nlayers = 1;
        a->layer_slot[0] = idx;
        a->layer_weight[0] = 1.0;
        return;
    }
    if (a->slot[O_INFLUENCE_WEIGHT])
        arg_error_fmt(L, a->arg, "option 'influence_weight' cannot be used with a list of "
                                 "layers: give each layer its weight");
    size_t n = astar_rawlen(L, idx);
    if (n > ASTAR_MAX_LAYERS)
        arg_error_fmt(L, a->arg, "option 'influence' lists %d layers, at most %d are allowed", (int)n,
                      ASTAR_MAX_LAYERS);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, (int)i);
        if (lua_type(L, -1) != LUA_TTABLE)
            arg_error_fmt(L, a->arg, "option 'influence'[%d] must be a table %s, got %s", (int)i,
                          entry, type_name(L, -1));
        lua_rawgeti(L, -1, 2);
        double w = 1.0;
        if (!lua_isnil(L, -1)) {
            w = lua_tonumber(L, -1);
            if (lua_type(L, -1) != LUA_TNUMBER || !(fabs(w) <= ASTAR_MAX_VALUE))
                arg_error_fmt(L, a->arg, "option 'influence'[%d][2] (weight) must be a number in -"
                              MAX_VALUE_STR ".." MAX_VALUE_STR ", got %s", (int)i, value_str(L, -1));
        }
        lua_pop(L, 1);
        lua_rawgeti(L, -1, 1);
        lua_remove(L, -2); /* the entry goes, its layer stays: pinned for the query */
        a->layer_slot[i - 1] = lua_gettop(L);
        a->layer_weight[i - 1] = w;
    }
    a->nlayers = (int)n;
}

/*
 * Reads the options table at arg (none or nil: no options) of a query of `in` (fn names it
 * in messages): its keys raw, then each option it may hold exactly once (an __index of the
 * table may run then, and nothing of ours is resolved yet), then their values. Scalars land
 * in query (an astar_query, or an astar_graph_query when in is IN_GRAPH); objects,
 * callbacks and the unit key stay pinned on the stack, their slots in a, for the resolve.
 */
static void read_options(lua_State *L, int arg, unsigned in, const char *fn, query_args *a,
                         void *query) {
    memset(a, 0, sizeof *a);
    a->arg = arg;
    a->in = in;
    a->fn = fn;
    if (lua_isnoneornil(L, arg)) return;
    if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table");
    check_stack(L, NOPTIONS + ASTAR_MAX_LAYERS + 8);
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        lua_pop(L, 1);
        bool known;
        const option *o = option_row(L, -1, in, &known);
        if (!o && known && in != IN_GRAPH) /* a graph's options are its own */
            arg_error_fmt(L, arg, "option %s does not apply to %s", value_str(L, -1), fn);
        if (!o) arg_error_fmt(L, arg, "unknown option %s", value_str(L, -1));
        if (o->kind == K_REFUSED)
            arg_error_fmt(L, arg, "option '%s' does not apply to %s%s", o->name, fn, o->rule);
    }
    for (int id = 0; id < NOPTIONS; id++) {
        if (!(OPTIONS[id].in & in) || OPTIONS[id].kind == K_REFUSED) continue;
        lua_getfield(L, arg, OPTIONS[id].name);
        if (lua_isnil(L, -1)) lua_pop(L, 1);
        else a->slot[id] = lua_gettop(L);
    }

    char *land = query;
    for (int id = 0; id < NOPTIONS; id++) {
        const option *o = &OPTIONS[id];
        int v = a->slot[id];
        if (!v) continue;
        ptrdiff_t at = in == IN_GRAPH ? o->graph_at : o->grid_at;
        lua_Number n = lua_tonumber(L, v);
        switch (o->kind) {
        case K_NUMBER:
            if (lua_type(L, v) != LUA_TNUMBER || !(n >= o->lo && n <= o->hi)) option_error(L, a, o, v);
            if (at >= 0) *(double *)(void *)(land + at) = n;
            break;
        case K_INTEGER:
            read_count(L, a, o, v, o->lo);
            *(int32_t *)(void *)(land + at) = n > o->hi ? (int32_t)o->hi : (int32_t)n;
            break;
        case K_COUNT:
            read_count(L, a, o, v, 0);
            *(uint64_t *)(void *)(land + at) = n >= 1.8e19 ? UINT64_MAX : (uint64_t)n;
            break;
        case K_BOOLEAN:
        case K_JUMP:
            if (lua_type(L, v) != LUA_TBOOLEAN)
                arg_error_fmt(L, arg, "option '%s' must be a boolean, got %s", o->name, type_name(L, v));
            if (o->kind == K_BOOLEAN) *(int *)(void *)(land + at) = lua_toboolean(L, v);
            else *(astar_jps *)(void *)(land + at) = lua_toboolean(L, v) ? ASTAR_JPS_AUTO : ASTAR_JPS_OFF;
            break;
        case K_SEED: {
            int isint;
            lua_Integer seed = astar_tointegerx(L, v, &isint);
            if (!isint) arg_error_fmt(L, arg, "option 'seed' must be an integer, got %s", value_str(L, v));
            *(uint32_t *)(void *)(land + at) = (uint32_t)(uint64_t)seed; /* modulo 2^32 */
            break;
        }
        case K_DIAGONAL: {
            int i = name_index(L, v, DIAGONAL_NAMES);
            if (i < 0) arg_error_fmt(L, arg, "option 'diagonal' must be " DIAGONAL_RULE ", got %s", value_str(L, v));
            *(astar_diagonal *)(void *)(land + at) = (astar_diagonal)i;
            break;
        }
        case K_HEURISTIC:
            if (lua_type(L, v) == LUA_TSTRING) {
                int i = name_index(L, v, HEURISTIC_NAMES);
                bool graph_name = i == ASTAR_H_EUCLIDEAN || i == ASTAR_H_ZERO;
                if (in == IN_GRAPH && !graph_name)
                    arg_error_fmt(L, arg, "option 'heuristic' must be \"euclidean\", \"zero\" or a function, got %s",
                                  value_str(L, v));
                if (i < 0)
                    arg_error_fmt(L, arg, "option 'heuristic' must be \"octile\", \"manhattan\", "
                                  "\"euclidean\", \"chebyshev\", \"zero\", \"hex\" or a function, got %s",
                                  value_str(L, v));
                a->heuristic = (astar_heuristic)i;
            } else if (is_callable(L, v)) {
                if (in == IN_NEAREST) arg_error_fmt(L, arg, "option 'heuristic' must be a name for find_nearest");
                a->heuristic = ASTAR_H_CUSTOM;
            } else {
                arg_error_fmt(L, arg, "option 'heuristic' must be a string or a function, got %s", type_name(L, v));
            }
            break;
        case K_CALLBACK:
            if (!is_callable(L, v))
                arg_error_fmt(L, arg, "option '%s' must be a function, got %s", o->name, type_name(L, v));
            break;
        case K_VALUE:
        case K_REFUSED:
            break;
        }
    }
    if (a->slot[O_INFLUENCE]) read_influence(L, a, a->slot[O_INFLUENCE]);
    else if (a->slot[O_INFLUENCE_WEIGHT]) arg_error_fmt(L, arg, "option 'influence_weight' needs option 'influence'");
    if (a->slot[O_INFLUENCE_WEIGHT] && a->nlayers == 1)
        a->layer_weight[0] = lua_tonumber(L, a->slot[O_INFLUENCE_WEIGHT]);
    if (!a->slot[O_CLAIMS]) {
        static const option_id NEED_CLAIMS[] = {O_UNIT, O_CLAIM_PENALTY, O_CLAIM_RADIUS,
                                                O_GRAPH_CLAIM_RADIUS, O_CLAIM_WINDOW};
        for (size_t i = 0; i < sizeof NEED_CLAIMS / sizeof *NEED_CLAIMS; i++)
            if (a->slot[NEED_CLAIMS[i]])
                arg_error_fmt(L, arg, "option '%s' needs option 'claims'", OPTIONS[NEED_CLAIMS[i]].name);
    }
    if (a->slot[O_UNIT]) {
        int key = a->slot[O_UNIT], t = lua_type(L, key);
        if (!(t == LUA_TSTRING || (t == LUA_TNUMBER && lua_tonumber(L, key) == floor(lua_tonumber(L, key)))))
            arg_error_fmt(L, arg, "option 'unit' must be an integer or a string, got %s", value_str(L, key));
    }
}

/* The object of class mt at idx, named `what` by messages about option arg: open. */
static lobject *resolve_object(lua_State *L, int arg, int idx, const char *mt, const char *what) {
    lobject *o = astar_testudata(L, idx, mt);
    if (!o) arg_error_fmt(L, arg, "%s must be an %s, got %s", what, mt, type_name(L, idx));
    if (o->freed) arg_error_fmt(L, arg, "%s is a freed %s", what, mt);
    return o;
}

/* How messages name layer i of option 'influence' (made only for an error: pushed). */
static const char *influence_name(lua_State *L, const query_args *a, int i) {
    if (a->slot[O_INFLUENCE] == a->layer_slot[i]) return "option 'influence'";
    return lua_pushfstring(L, "option 'influence'[%d][1]", i + 1);
}

/* The claims' slot of the unit keyed at idx, or -1 (no code runs: the table is read raw). */
static int32_t unit_slot(lua_State *L, int claims, int key) {
    astar_getuservalue(L, claims);
    lua_pushvalue(L, key);
    lua_rawget(L, -2);
    int32_t slot = lua_type(L, -1) == LUA_TNUMBER ? (int32_t)lua_tointeger(L, -1) : -1;
    lua_pop(L, 2);
    return slot;
}

/* --------------------------------------------------------------- find */

/*
 * What running a query takes, on a grid or a graph: the first member of find_ctx and
 * graph_find_ctx, so that the callbacks' ud (the ctx) is one too.
 */
typedef struct run_ctx {
    lua_State *L;                  /* the runner's: the callbacks run on it */
    workspace *ws;                 /* of the grid's or graph's pool, while the query runs */
    int callback[3];               /* stack slots of node_cost, edge_cost, heuristic; 0: none */
    int pass[ASTAR_MAX_LAYERS];    /* more stack slots the runner gets, after the callbacks */
    int npass;
    lobject *read[ASTAR_MAX_LAYERS + 4]; /* marked "in use" while the query runs: layers,
                                           claims, mask, the grid or graph, a field being built */
    int nread;
} run_ctx;

typedef struct find_ctx {
    run_ctx run;
    lgrid *grid;
    astar_query q;
    astar_layer_ref layers[ASTAR_MAX_LAYERS];
    astar_field *field;                 /* distance_field and range: what to fill */
    const int32_t *cells;
    int32_t ncells;
    astar_field_kind kind;
    const int32_t *endpoints;           /* find_many: 4 per query, 0-based */
    int32_t nqueries;
    astar_result *results;
    int threads;                        /* 0: one per processor */
} find_ctx;

/* Stack slots of the protected runner: 1 ctx, then the callbacks (or nil), then the slots
 * of run_ctx.pass (RUN_NARGS + 1 ...). */
enum { RUN_CTX = 1, RUN_NODE_COST, RUN_EDGE_COST, RUN_HEURISTIC, RUN_NARGS = 4 };

/* Where a callback was asked: cell (x, y), or graph node x when y < 0 (0-based in, 1-based out). */
static const char *callback_place(lua_State *L, int32_t x, int32_t y) {
    if (y < 0) return lua_pushfstring(L, "node %d", (int)x + 1);
    return lua_pushfstring(L, "(%d, %d)", (int)x + 1, (int)y + 1);
}

/* Reads a cost callback's result; raises (naming the callback) on a bad one. */
static int callback_result(lua_State *L, const char *name, int32_t x, int32_t y, double *extra) {
    int t = lua_type(L, -1);
    int r = ASTAR_CB_PASS;
    *extra = 0.0;
    if (t == LUA_TNUMBER) {
        lua_Number v = lua_tonumber(L, -1);
        if (!(v >= 0 && (v <= ASTAR_MAX_VALUE || v == HUGE_VAL))) {
            const char *value = value_str(L, -1); /* before the place: both push a string */
            luaL_error(L, "%s returned %s for %s: expected a number in 0.." MAX_VALUE_STR
                          ", math.huge, nil or false", name, value, callback_place(L, x, y));
        }
        *extra = v;
    } else if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
        r = ASTAR_CB_BLOCK;
    } else if (t != LUA_TNIL) {
        const char *type = type_name(L, -1);
        luaL_error(L, "%s returned a %s for %s: expected a number in 0.." MAX_VALUE_STR
                      ", math.huge, nil or false", name, type, callback_place(L, x, y));
    }
    lua_settop(L, -2);
    return r;
}

/* A custom heuristic's result at the stack top, popped; raises on a bad one. */
static double heuristic_result(lua_State *L, int32_t x, int32_t y) {
    lua_Number h = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(h >= 0 && h <= ASTAR_MAX_VALUE)) {
        const char *value = value_str(L, -1);
        luaL_error(L, "heuristic returned %s for %s: expected a number in 0.." MAX_VALUE_STR, value,
                   callback_place(L, x, y));
    }
    lua_settop(L, -2);
    return h;
}

/*
 * Calls the runner's callback at slot (RUN_NODE_COST...) of the query whose run_ctx is ud
 * with the n node ids or coordinates in v, 1-based, and leaves its one result. Returns the
 * thread.
 */
static lua_State *call_back(void *ud, int slot, int n, const int32_t *v) {
    lua_State *L = ((run_ctx *)ud)->L;
    lua_pushvalue(L, slot);
    for (int i = 0; i < n; i++) lua_pushinteger(L, (lua_Integer)v[i] + 1);
    lua_call(L, n, 1);
    return L;
}

static int node_cost_trampoline(void *ud, int32_t x, int32_t y, double *extra) {
    lua_State *L = call_back(ud, RUN_NODE_COST, 2, (const int32_t[]){x, y});
    return callback_result(L, "node_cost", x, y, extra);
}

static int edge_cost_trampoline(void *ud, int32_t x, int32_t y, int32_t fx, int32_t fy,
                                double *extra) {
    lua_State *L = call_back(ud, RUN_EDGE_COST, 4, (const int32_t[]){x, y, fx, fy});
    return callback_result(L, "edge_cost", x, y, extra);
}

static double heuristic_trampoline(void *ud, int32_t x, int32_t y, int32_t gx, int32_t gy) {
    lua_State *L = call_back(ud, RUN_HEURISTIC, 4, (const int32_t[]){x, y, gx, gy});
    return heuristic_result(L, x, y);
}

/* Object o is read by the query: marked "in use" while it runs (once, however often read). */
static void mark_read(run_ctx *c, lobject *o) {
    for (int i = 0; i < c->nread; i++)
        if (c->read[i] == o) return;
    c->read[c->nread++] = o;
}

/* The stack slots of the callbacks a read (read_options) gave, for the runner. */
static void resolve_callbacks(run_ctx *c, const query_args *a) {
    c->callback[0] = a->slot[O_NODE_COST];
    c->callback[1] = a->slot[O_EDGE_COST];
    c->callback[2] = a->heuristic == ASTAR_H_CUSTOM ? a->slot[O_HEURISTIC] : 0;
}

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
 * and c->run. Runs no Lua code.
 */
static void resolve_grid_query(lua_State *L, find_ctx *c, const query_args *a) {
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
    if (a->heuristic == ASTAR_H_CUSTOM) q->heuristic_fn = heuristic_trampoline, q->heuristic_ud = c;
    for (int i = 0; i < a->nlayers; i++) {
        llayer *l = astar_testudata(L, a->layer_slot[i], LAYER_MT);
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
    if (a->slot[O_NODE_COST]) q->node_cost = node_cost_trampoline, q->node_cost_ud = c;
    if (a->slot[O_EDGE_COST]) q->edge_cost = edge_cost_trampoline, q->edge_cost_ud = c;
    resolve_callbacks(&c->run, a);
    mark_read(&c->run, &g->base);
}

static void push_point(lua_State *L, int32_t id, int32_t width) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, id % width + 1);
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, id / width + 1);
    lua_setfield(L, -2, "y");
}

/*
 * Pushes find's two results (path or nil, info) for a result and its path: the cells of a
 * grid `width` wide as points {x=, y=}, or a graph's nodes (width 0) as their ids.
 */
static void push_answer(lua_State *L, const astar_result *r, const int32_t *ids, int32_t n,
                        int32_t width) {
    astar_status st = r->status;
    const astar_result res = *r;
    if (st == ASTAR_OK || st == ASTAR_PARTIAL) {
        lua_createtable(L, n, 0);
        for (int32_t i = 0; i < n; i++) {
            if (width) push_point(L, ids[i], width);
            else lua_pushinteger(L, (lua_Integer)ids[i] + 1);
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
    c->run.L = L;
    astar_result res;
    astar_status st = astar_find(c->run.ws->search, c->grid->grid, &c->q, &res);
    check_answer(L, st, "find");
    int32_t n = 0;
    const int32_t *ids = astar_search_path(c->run.ws->search, &n);
    push_answer(L, &res, ids, n, c->grid->base.width);
    return 2;
}

/* Pushes the protected runner (upvalue 1 of the calling function) and its arguments: ud
 * (what the runner reads at RUN_CTX), then c's callbacks (nil for none) and pass slots. */
static void push_run_args(lua_State *L, void *ud, const run_ctx *c) {
    check_stack(L, RUN_NARGS + c->npass + 8);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushlightuserdata(L, ud);
    for (int i = 0; i < 3; i++) {
        if (c->callback[i]) lua_pushvalue(L, c->callback[i]);
        else lua_pushnil(L);
    }
    for (int i = 0; i < c->npass; i++) lua_pushvalue(L, c->pass[i]);
}

/*
 * Calls the runner push_run_args pushed, in lua_pcall, with c's objects marked "in use"
 * (they refuse writers and __gc) from its start to its end. Returns lua_pcall's code: the
 * runner's two results or its error value are on the stack.
 */
static int run_marked(lua_State *L, const run_ctx *c) {
    /* From here to the end of lua_pcall nothing may raise: the marks must be undone. */
    for (int i = 0; i < c->nread; i++) c->read[i]->readers++;
    int rc = lua_pcall(L, RUN_NARGS + c->npass, 2, 0);
    for (int i = 0; i < c->nread; i++) c->read[i]->readers--;
    return rc;
}

/*
 * Runs the resolved query c (the first member of the runner's ctx) on a workspace of pool p
 * (of owner, the grid or graph), given back after. Returns the runner's two results or
 * re-raises its error.
 */
static int run_query(lua_State *L, run_ctx *c, pool *p, const lobject *owner) {
    c->ws = acquire_workspace(L, p, owner);
    push_run_args(L, c, c);
    int rc = run_marked(L, c);
    c->ws->busy = false;
    if (rc != LUA_OK) return lua_error(L); /* the callback's own error value, unchanged */
    return 2;
}

/* run_query of a grid query. */
static int run_grid_query(lua_State *L, find_ctx *c) {
    return run_query(L, &c->run, &c->grid->pool, &c->grid->base);
}

/* The grid at 1 (open or not: resolved after the options) and the start at 2, 3. */
static void start_query(lua_State *L, find_ctx *c) {
    lgrid *g = check_object(L, 1, GRID_MT);
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
    lua_settop(L, 6);
    query_args a;
    read_options(L, 6, IN_FIND, "find", &a, &c->q);
    resolve_grid_query(L, c, &a);
    return run_grid_query(L, c);
}

/*
 * Point i of the list at arg: {x=, y=} or {x, y}, 1-based, inside a width x height grid; its
 * node id. Each coordinate is read once (an __index of the point may run).
 */
static int32_t read_point(lua_State *L, int arg, lua_Integer i, int32_t width, int32_t height,
                          const char *what) {
    lua_rawgeti(L, arg, i);
    if (lua_type(L, -1) != LUA_TTABLE)
        arg_error_fmt(L, arg, "%s %d must be a point {x=, y=}, got %s", what, (int)i, type_name(L, -1));
    lua_Number xy[2];
    bool ok = true;
    for (int k = 0; k < 2; k++) {
        lua_getfield(L, -1 - k, k == 0 ? "x" : "y");
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_rawgeti(L, -1 - k, k + 1);
        }
        xy[k] = lua_tonumber(L, -1);
        ok = ok && lua_type(L, -1) == LUA_TNUMBER && xy[k] == floor(xy[k]) && xy[k] >= 1 &&
             xy[k] <= (k == 0 ? width : height);
    }
    if (!ok)
        arg_error_fmt(L, arg, "%s %d is not a cell of the %dx%d grid", what, (int)i, (int)width,
                      (int)height);
    lua_pop(L, 3);
    return ((int32_t)xy[1] - 1) * width + ((int32_t)xy[0] - 1);
}

/* The points of the non-empty list at arg as node ids, in a userdata left on the stack. */
static int32_t *read_points(lua_State *L, int arg, const lgrid *g, const char *what, const char *list,
                            int32_t *count) {
    if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table");
    lua_Integer n = (lua_Integer)astar_rawlen(L, arg);
    if (n < 1) arg_error_fmt(L, arg, "%s must be a non-empty list of points", list);
    if (n > INT32_MAX / (lua_Integer)sizeof(int32_t)) arg_error_fmt(L, arg, "too many %s", list);
    check_stack(L, 8);
    /* A userdata on the stack: freed with it, whatever error comes. */
    int32_t *ids = astar_newuserdata_plain(L, (size_t)n * sizeof *ids);
    for (lua_Integer i = 1; i <= n; i++)
        ids[i - 1] = read_point(L, arg, i, g->base.width, g->base.height, what);
    *count = (int32_t)n;
    return ids;
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
    lua_settop(L, 5);
    int32_t n;
    int32_t *ids = read_points(L, 4, g, "target", "targets", &n);
    c->q.targets = ids;
    c->q.ntargets = n;
    c->q.gx = ids[0] % g->base.width; /* ignored by the search, checked like a goal */
    c->q.gy = ids[0] / g->base.width;
    query_args a;
    read_options(L, 5, IN_NEAREST, "find_nearest", &a, &c->q);
    resolve_grid_query(L, c, &a);
    return run_grid_query(L, c);
}

/* ---------------------------------------------------------------- jobs */

/*
 * A resumable search. Its uservalue table keeps alive what the search reads:
 * [1..3] the callbacks (node_cost, edge_cost, heuristic; false when absent),
 * [4] the grid, [5...] the layers, claims and mask of its options, .claims and
 * .unit (the unit's slot is looked up at every step: the unit may claim a path
 * after the search was made); and, once it is finished, .path and .info (its
 * workspace is then given back).
 */
typedef struct ljob {
    lobject base;
    find_ctx ctx;        /* the query, its layers and the objects a step marks in use;
                            ctx.run.ws: a workspace of the grid's pool, held from the first
                            step to the end */
    bool finished;
    bool started;        /* astar_search_start ran (false again after an error) */
    bool stepping;       /* a step is running: a callback may not step or close this job */
    astar_status status;
    uint64_t expansions; /* so far, since the last (re)start */
    uint32_t restarts;
    uint64_t step_expansions; /* what the last step expanded */
} ljob;

enum { JOB_CALLBACKS = 1, JOB_GRID = 4, JOB_PINNED = 5 };

/* Gives the workspace back to the grid's pool (unless the grid, and so the pool, is gone). */
static void job_release(ljob *j) {
    if (j->ctx.run.ws && !j->ctx.grid->base.freed) j->ctx.run.ws->busy = false;
    j->ctx.run.ws = NULL;
}

static int job_gc(lua_State *L) {
    ljob *j = luaL_checkudata(L, 1, JOB_MT);
    if (j->stepping) return luaL_error(L, "astar.Search is in use by its own step");
    job_release(j);
    j->base.freed = true;
    return 0;
}

static int job_tostring(lua_State *L) {
    ljob *j = luaL_checkudata(L, 1, JOB_MT);
    lua_pushfstring(L, "astar.Search(%s)%s", astar_status_name(j->status), j->base.freed ? " (freed)" : "");
    return 1;
}

static int job_size(lua_State *L) { return push_size(L, JOB_MT); }

/* Runs inside lua_pcall: start if needed, one step, and the result tables once finished. */
static int job_run(lua_State *L) {
    ljob *j = lua_touserdata(L, RUN_CTX);
    find_ctx *c = &j->ctx;
    c->run.L = L;
    lua_Integer n = lua_tointeger(L, RUN_NARGS + 1);
    astar_result res;
    astar_status st;
    if (!j->started) {
        st = astar_search_start(c->run.ws->search, c->grid->grid, &c->q, &res);
        j->started = true;
        j->expansions = 0;
        j->restarts = 0;
        if (st == ASTAR_RUNNING) st = astar_search_step(c->run.ws->search, (uint64_t)n, &res);
    } else {
        st = astar_search_step(c->run.ws->search, (uint64_t)n, &res);
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
    const int32_t *ids = astar_search_path(c->run.ws->search, &len);
    push_answer(L, &res, ids, len, c->grid->base.width);
    lua_pushinteger(L, res.restarts);
    lua_setfield(L, -2, "restarts");
    return 2;
}

/* grid:search(sx, sy, gx, gy [, opts]) -> a resumable search of what find would answer */
static int grid_search(lua_State *L) {
    lua_settop(L, 6);
    lgrid *g = check_object(L, 1, GRID_MT);
    int32_t sx = check_coord(L, 2, "x", g->base.width), sy = check_coord(L, 3, "y", g->base.height);
    int32_t gx = check_coord(L, 4, "x", g->base.width), gy = check_coord(L, 5, "y", g->base.height);
    ljob *j = new_object(L, sizeof *j, JOB_MT);
    int job = lua_gettop(L);
    find_ctx *c = &j->ctx;
    c->grid = g;
    astar_query_init(&c->q);
    c->q.sx = sx, c->q.sy = sy, c->q.gx = gx, c->q.gy = gy;
    j->base.width = g->base.width;
    j->base.height = g->base.height;
    j->status = ASTAR_RUNNING;
    query_args a;
    read_options(L, 6, IN_SEARCH, "search", &a, &c->q);
    resolve_grid_query(L, c, &a);
    /* What the search reads stays alive with the job. */
    check_stack(L, 8);
    lua_createtable(L, JOB_PINNED + a.nlayers + 2, 2);
    int uv = lua_gettop(L);
    for (int i = 0; i < 3; i++) {
        if (c->run.callback[i]) lua_pushvalue(L, c->run.callback[i]);
        else lua_pushboolean(L, 0);
        lua_rawseti(L, uv, JOB_CALLBACKS + i);
        c->run.callback[i] = 0; /* slots of this call only: a step pushes them anew */
    }
    lua_pushvalue(L, 1);
    lua_rawseti(L, uv, JOB_GRID);
    int pinned = JOB_PINNED;
    for (int i = 0; i < a.nlayers; i++) {
        lua_pushvalue(L, a.layer_slot[i]);
        lua_rawseti(L, uv, pinned++);
    }
    if (a.slot[O_KNOWN]) {
        lua_pushvalue(L, a.slot[O_KNOWN]);
        lua_rawseti(L, uv, pinned++);
    }
    if (a.slot[O_CLAIMS]) {
        lua_pushvalue(L, a.slot[O_CLAIMS]);
        lua_setfield(L, uv, "claims");
    }
    if (a.slot[O_UNIT]) {
        lua_pushvalue(L, a.slot[O_UNIT]);
        lua_setfield(L, uv, "unit");
    }
    astar_setuservalue(L, job);
    lua_settop(L, job);
    return 1;
}

/* job:step([n]) -> status ("running" | "found" | "unreachable" | "limit" | "partial"), and
 * the expansions this step made (at most n) */
static int job_step(lua_State *L) {
    ljob *j = check_open(L, 1, JOB_MT);
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
    /* Resolve: every object it reads is open, and the unit's slot is the one it has now. */
    find_ctx *c = &j->ctx;
    for (int i = 0; i < c->run.nread; i++)
        if (c->run.read[i]->freed) return luaL_error(L, "astar.Search: an object it reads has been freed");
    lua_settop(L, 2);
    check_stack(L, RUN_NARGS + 12);
    astar_getuservalue(L, 1);
    int uv = lua_gettop(L);
    if (c->q.claims) {
        lua_getfield(L, uv, "claims");
        lua_getfield(L, uv, "unit");
        c->q.unit = lua_isnil(L, -1) ? -1 : unit_slot(L, uv + 1, uv + 2);
    }
    for (int i = 0; i < 3; i++) { /* slots of this call only (run_ctx.callback) */
        lua_rawgeti(L, uv, JOB_CALLBACKS + i);
        c->run.callback[i] = lua_toboolean(L, -1) ? lua_gettop(L) : 0;
    }
    lua_pushinteger(L, n);
    c->run.pass[0] = lua_gettop(L); /* the runner's RUN_NARGS + 1 */
    c->run.npass = 1;
    /* A workspace only while it runs: a game may queue far more searches than it runs. */
    if (!c->run.ws) c->run.ws = acquire_workspace(L, &c->grid->pool, &c->grid->base);
    push_run_args(L, j, &c->run);
    /* From here to the end of lua_pcall nothing may raise: the stepping mark must be undone. */
    j->stepping = true;
    int rc = run_marked(L, &c->run);
    j->stepping = false;
    if (rc != LUA_OK) { /* stopped mid-expansion: the next step starts over, on any workspace */
        j->started = false;
        job_release(j);
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
    ljob *j = check_open(L, 1, JOB_MT);
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
    lua_pushstring(L, astar_status_name(((ljob *)check_open(L, 1, JOB_MT))->status));
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

/* Query i of the list at arg: {sx, sy, gx, gy} or {sx=, sy=, gx=, gy=}, 1-based, into e
 * 0-based; each coordinate read once. */
static void read_query(lua_State *L, int arg, lua_Integer i, const lgrid *g, int32_t *e) {
    lua_rawgeti(L, arg, i);
    if (lua_type(L, -1) != LUA_TTABLE)
        arg_error_fmt(L, arg, "query %d must be a table {sx, sy, gx, gy}, got %s", (int)i,
                      type_name(L, -1));
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
    lgrid *g = check_object(L, 1, GRID_MT);
    memset(c, 0, sizeof *c);
    c->grid = g;
    astar_query_init(&c->q);
    if (lua_type(L, 2) != LUA_TTABLE) type_error(L, 2, "table");
    for (int arg = 3; arg <= 4; arg++)
        if (!lua_isnoneornil(L, arg) && lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table or nil");
    lua_settop(L, 4);
    lua_Integer n = (lua_Integer)astar_rawlen(L, 2);
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
    int run = read_fields(L, 4, MANY_OPTIONS);
    if (!lua_isnil(L, run)) {
        lua_Number t = lua_tonumber(L, run);
        if (lua_type(L, run) != LUA_TNUMBER || t != floor(t) || t < 1 || t > ASTAR_MANY_MAX_THREADS)
            arg_error_fmt(L, 4, "option 'threads' must be an integer in 1..%d, got %s",
                          ASTAR_MANY_MAX_THREADS, value_str(L, run));
        c->threads = (int)t;
    }
    resolve_grid_query(L, c, &a);
    run_grid_query(L, c);
    lua_pop(L, 1);
    return 1;
}

/* -------------------------------------------------------------- fields */

static lfield *check_field(lua_State *L, int arg) {
    lfield *f = check_open(L, arg, FIELD_MT);
    if (f->base.readers > 0) luaL_error(L, "astar.Field is being built");
    return f;
}

static int field_gc(lua_State *L) {
    lfield *f = luaL_checkudata(L, 1, FIELD_MT);
    check_writable(L, &f->base, "field"); /* being built: only a direct __close/__gc call */
    astar_field_free(f->field);
    f->field = NULL;
    f->base.freed = true;
    return 0;
}

static int field_tostring(lua_State *L) {
    lfield *f = luaL_checkudata(L, 1, FIELD_MT);
    lua_pushfstring(L, "astar.Field(%dx%d)%s", (int)f->base.width, (int)f->base.height,
                    f->field ? "" : " (freed)");
    return 1;
}

static int field_size(lua_State *L) { return push_size(L, FIELD_MT); }

/* Runs inside lua_pcall, like find_run: the build, then its info table. */
static int field_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->run.L = L;
    astar_result res;
    astar_status st = astar_field_build(c->field, c->run.ws->search, c->grid->grid, &c->q, c->cells,
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

/*
 * A new field for c's grid, left on the stack. Made before the query is resolved: making a
 * userdata may run the collector, and so a finalizer, which is Lua code that may close what
 * the resolve checked.
 */
static void new_field(lua_State *L, find_ctx *c) {
    lfield *f = new_object(L, sizeof *f, FIELD_MT);
    astar_alloc a = lua_allocator(L);
    f->field = astar_field_new(c->grid->base.width, c->grid->base.height, &a);
    if (!f->field) no_memory(L);
    f->base.width = c->grid->base.width;
    f->base.height = c->grid->base.height;
    c->field = f->field;
}

/* Builds the field at field_idx (new_field) from the ctx's cells, leaving field and info
 * on the stack; the field is marked "in use" while it is built, as the objects the query
 * reads are. */
static void build_field(lua_State *L, find_ctx *c, int field_idx) {
    mark_read(&c->run, lua_touserdata(L, field_idx));
    run_grid_query(L, c); /* info, nil */
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
    lgrid *g = check_object(L, 1, GRID_MT);
    memset(c, 0, sizeof *c);
    c->grid = g;
    astar_query_init(&c->q);
    lua_settop(L, 3);
    int32_t n;
    int32_t *ids = read_points(L, 2, g, "goal", "goals", &n);
    c->cells = ids;
    c->ncells = n;
    c->kind = ASTAR_FIELD_TO;
    c->q.sx = c->q.gx = ids[0] % g->base.width; /* claim_radius is measured from here */
    c->q.sy = c->q.gy = ids[0] / g->base.width;
    query_args a;
    read_options(L, 3, IN_FIELD, "distance_field", &a, &c->q);
    new_field(L, c);
    int field = lua_gettop(L);
    resolve_grid_query(L, c, &a);
    build_field(L, c, field);
    return 2;
}

/* Reached cells of a field in order of cost (ties: node id), as {x=, y=, cost=}. */
static int compare_by_cost(const void *a, const void *b) {
    const double *da = a, *db = b;
    if (da[0] != db[0]) return da[0] < db[0] ? -1 : 1;
    return (da[1] > db[1]) - (da[1] < db[1]);
}

/* The cells of the field at idx. Every userdata or table made may run a finalizer that closes
 * the field: it is read only before those, into scratch, and checked again after. */
static void push_cells(lua_State *L, int idx) {
    lfield *f = check_field(L, idx);
    int32_t w = f->base.width, h = f->base.height, n = astar_field_reached(f->field);
    double *pairs = astar_newuserdata_plain(L, (size_t)(n > 0 ? n : 1) * 2 * sizeof *pairs);
    check_field(L, idx);
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
    query_args a;
    read_options(L, 5, IN_RANGE, "range", &a, &c->q);
    int32_t *start = astar_newuserdata_plain(L, sizeof *start);
    new_field(L, c);
    int field = lua_gettop(L);
    resolve_grid_query(L, c, &a);
    *start = c->q.sy * c->grid->base.width + c->q.sx;
    c->cells = start;
    c->ncells = 1;
    c->kind = ASTAR_FIELD_FROM;
    c->q.gx = c->q.sx;
    c->q.gy = c->q.sy;
    c->q.max_cost = budget; /* options may not set it (read_options refuses) */
    build_field(L, c, field); /* field, info */
    push_cells(L, lua_gettop(L) - 1);
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
    /* The way into scratch first: the tables made below may run a finalizer that closes f. */
    int32_t n = 1, nx, ny;
    for (int32_t cx = x, cy = y; astar_field_next(f->field, cx, cy, &nx, &ny) == 1; cx = nx, cy = ny) n++;
    int32_t *ids = astar_newuserdata_plain(L, (size_t)n * sizeof *ids);
    check_field(L, 1);
    bool back = astar_field_get_kind(f->field) == ASTAR_FIELD_FROM; /* walked back: reverse */
    for (int32_t i = 0; i < n; i++) {
        ids[back ? n - 1 - i : i] = y * f->base.width + x;
        astar_field_next(f->field, x, y, &x, &y);
    }
    lua_createtable(L, n, 0);
    for (int32_t i = 0; i < n; i++) {
        push_point(L, ids[i], f->base.width);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int field_cells(lua_State *L) {
    push_cells(L, 1);
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

/* A layer's value, or a weight of one: |v| <= ASTAR_MAX_VALUE, so no query's sum overflows. */
static double check_value(lua_State *L, int arg, const char *what) {
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "number");
    lua_Number v = lua_tonumber(L, arg);
    if (!(fabs(v) <= ASTAR_MAX_VALUE))
        arg_error_fmt(L, arg, "%s must be a number in -" MAX_VALUE_STR ".." MAX_VALUE_STR ", got %s", what,
                      value_str(L, arg));
    return v;
}

static int l_influence(lua_State *L) {
    int32_t w, h;
    check_size_args(L, &w, &h);
    double initial = lua_isnoneornil(L, 3) ? 0.0 : check_value(L, 3, "initial value");
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
    double v = check_value(L, 4, "value");
    check_writable(L, &l->base, "influence layer");
    astar_layer_set(l->layer, x, y, v);
    return 0;
}

static int layer_add(lua_State *L) {
    llayer *l = check_layer(L, 1);
    int32_t x = check_coord(L, 2, "x", l->base.width), y = check_coord(L, 3, "y", l->base.height);
    double v = check_value(L, 4, "value");
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_add(l->layer, x, y, v) != ASTAR_OK)
        arg_error_fmt(L, 4, "the sum would be out of -" MAX_VALUE_STR ".." MAX_VALUE_STR);
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
    double v = check_value(L, 2, "value");
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
    double strength = check_value(L, 5, "strength");
    int falloff = lua_isnoneornil(L, 6) ? ASTAR_FALLOFF_LINEAR : name_index(L, 6, FALLOFFS);
    if (falloff < 0)
        arg_error_fmt(L, 6, "falloff must be \"linear\", \"quadratic\" or \"constant\", got %s", value_str(L, 6));
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_stamp(l->layer, x, y, radius, strength, (astar_falloff)falloff) != ASTAR_OK)
        arg_error_fmt(L, 5, "a stamped value would be out of -" MAX_VALUE_STR ".." MAX_VALUE_STR);
    return 0;
}

static int layer_decay(lua_State *L) {
    llayer *l = check_layer(L, 1);
    double factor = check_value(L, 2, "factor");
    if (factor < 0) arg_error_fmt(L, 2, "factor must be >= 0, got %s", value_str(L, 2));
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_scale(l->layer, factor) != ASTAR_OK)
        arg_error_fmt(L, 2, "a decayed value would be out of -" MAX_VALUE_STR ".." MAX_VALUE_STR);
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
    double weight = lua_isnoneornil(L, 3) ? 1.0 : check_value(L, 3, "weight");
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_add_layer(l->layer, other->layer, weight) != ASTAR_OK)
        arg_error_fmt(L, 3, "a sum would be out of -" MAX_VALUE_STR ".." MAX_VALUE_STR);
    return 0;
}

/* ---------------------------------------------------------- fog of war */

static lmask *check_mask(lua_State *L, int arg) { return check_open(L, arg, MASK_MT); }

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

/* claims:claim(unit, path): the path's points are read first (an __index of one may run),
 * then the claims resolved and written. */
static int claims_claim(lua_State *L) {
    lclaims *c = check_object(L, 1, CLAIMS_MT);
    check_unit_key(L, 2);
    lua_settop(L, 3);
    if (lua_type(L, 3) != LUA_TTABLE) type_error(L, 3, "table");
    size_t n = astar_rawlen(L, 3);
    if (n < 1) arg_error_fmt(L, 3, "path is empty");
    if (n > (size_t)INT32_MAX / 4) arg_error_fmt(L, 3, "path is too long");
    int32_t *ids = astar_newuserdata_plain(L, n * sizeof *ids); /* scratch, collected with the call */
    for (size_t i = 1; i <= n; i++)
        ids[i - 1] = read_point(L, 3, (lua_Integer)i, c->base.width, c->base.height, "path point");
    check_claims(L, 1);
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
 * The largest file load_movingai and load_scen read: a map of 16384 x 16384 cells. Files are
 * refused beyond it before they are read (and a stream that never ends once it is passed).
 */
#define MAX_FILE_BYTES ((size_t)256 << 20)

/*
 * Reads a whole text file into a string left on the stack; a NUL byte (a binary file,
 * /dev/zero) is refused where it is met. The FILE sits in a box whose __gc closes it, so a
 * memory error while reading leaks no handle.
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
    int first = getc(*box); /* a directory opens, but fails here */
    if (first == EOF && ferror(*box)) luaL_error(L, "cannot read '%s': %s", path, strerror(errno));
    if (first != EOF) ungetc(first, *box);
    if (fseek(*box, 0, SEEK_END) == 0) { /* a file with a size: refused before it is read */
        long size = ftell(*box);
        if (size > 0 && (unsigned long)size > MAX_FILE_BYTES)
            luaL_error(L, "'%s' is larger than %d MiB", path, (int)(MAX_FILE_BYTES >> 20));
        rewind(*box);
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t got, total = 0;
    do {
        char *p = luaL_prepbuffer(&b);
        got = fread(p, 1, LUAL_BUFFERSIZE, *box);
        if (memchr(p, '\0', got)) luaL_error(L, "'%s' is not a text file (it holds a NUL byte)", path);
        total += got;
        if (total > MAX_FILE_BYTES)
            luaL_error(L, "'%s' is larger than %d MiB", path, (int)(MAX_FILE_BYTES >> 20));
        luaL_addsize(&b, got);
    } while (got == LUAL_BUFFERSIZE);
    if (ferror(*box)) luaL_error(L, "cannot read '%s': %s", path, strerror(errno));
    luaL_pushresult(&b);
    fclose(*box);
    *box = NULL;
    return lua_tolstring(L, -1, len);
}

static int push_movingai(lua_State *L, const char *text, size_t len, const char *name) {
    lgrid *g = new_grid(L);
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
    const char *path = check_c_string(L, 1, "path");
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
    const char *path = check_c_string(L, 1, "path");
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

typedef struct lgraph {
    lobject base;              /* width and height unused */
    astar_graph *graph;
    pool pool;
} lgraph;

/* Claims on a graph's nodes. Uservalue: { [unit key] = slot, [true] = the graph }. */
typedef struct lgraph_claims {
    lobject base;
    astar_claims *claims;
    lgraph *graph;
} lgraph_claims;

static lgraph *check_graph(lua_State *L, int arg) { return check_open(L, arg, GRAPH_MT); }

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
    free_pool(L, &g->pool);
    astar_graph_free(g->graph);
    g->graph = NULL;
    g->base.freed = true;
    return 0;
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
static int l_graph(lua_State *L) {
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

/* ------------------------------------------------------ graph claims */

static lgraph_claims *check_graph_claims(lua_State *L, int arg) {
    return check_open(L, arg, GRAPH_CLAIMS_MT);
}

/* The open graph of open claims c. */
static lgraph *claims_graph(lua_State *L, const lgraph_claims *c) {
    if (c->graph->base.freed) freed_error(L, GRAPH_MT);
    return c->graph;
}

static int graph_claims_gc(lua_State *L) {
    lgraph_claims *c = luaL_checkudata(L, 1, GRAPH_CLAIMS_MT);
    check_writable(L, &c->base, "claims");
    astar_claims_free(c->claims);
    c->claims = NULL;
    c->base.freed = true;
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
    c->graph = check_graph(L, 1); /* again: making the tables may have run a finalizer */
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
    lgraph_claims *c = check_graph_claims(L, 1);
    check_unit_key(L, 2);
    int32_t slot = unit_slot(L, 1, 2);
    int32_t id = slot >= 0 ? astar_claims_current(c->claims, slot) : -1;
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

static int graph_node_cost_trampoline(void *ud, int32_t node, double *extra) {
    lua_State *L = call_back(ud, RUN_NODE_COST, 1, (const int32_t[]){node});
    return callback_result(L, "node_cost", node, -1, extra);
}

static int graph_edge_cost_trampoline(void *ud, int32_t to, int32_t from, double *extra) {
    lua_State *L = call_back(ud, RUN_EDGE_COST, 2, (const int32_t[]){to, from});
    return callback_result(L, "edge_cost", to, -1, extra);
}

static double graph_heuristic_trampoline(void *ud, int32_t node, int32_t goal) {
    lua_State *L = call_back(ud, RUN_HEURISTIC, 2, (const int32_t[]){node, goal});
    return heuristic_result(L, node, -1);
}

/*
 * Resolves a graph query: the graph (open, start and goal still its nodes), then the layers
 * (an astar.Influence of n x 1 or a Lua array of one value per node), the claims and the
 * unit's slot, the heuristic and the callbacks. Runs no Lua code.
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
            size_t len = astar_rawlen(L, idx);
            if (len != (size_t)n)
                arg_error_fmt(L, arg, "%s has %d values but the graph has %d nodes", influence_name(L, a, i),
                              (int)len, (int)n);
            lua_values *v = &c->values[c->run.npass];
            v->run = &c->run;
            v->slot = RUN_NARGS + 1 + c->run.npass;
            v->list_index = list_index;
            c->run.pass[c->run.npass++] = idx;
            l->value_fn = lua_values_trampoline;
            l->value_ud = v;
            continue;
        }
        llayer *layer = astar_testudata(L, idx, LAYER_MT);
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
        lgraph_claims *cl = astar_testudata(L, idx, GRAPH_CLAIMS_MT);
        if (!cl)
            arg_error_fmt(L, arg, "option 'claims' must be an astar.GraphClaims (astar.claims(graph)), got %s",
                          type_name(L, idx));
        resolve_object(L, arg, idx, GRAPH_CLAIMS_MT, "option 'claims'");
        if (cl->graph != g) arg_error_fmt(L, arg, "option 'claims' belongs to another graph");
        q->claims = cl->claims;
        q->unit = a->slot[O_UNIT] ? unit_slot(L, idx, a->slot[O_UNIT]) : -1;
        mark_read(&c->run, &cl->base);
    }
    if (a->slot[O_HEURISTIC]) q->heuristic = a->heuristic;
    if (a->heuristic == ASTAR_H_CUSTOM) q->heuristic_fn = graph_heuristic_trampoline, q->heuristic_ud = c;
    if (a->slot[O_NODE_COST]) q->node_cost = graph_node_cost_trampoline, q->node_cost_ud = c;
    if (a->slot[O_EDGE_COST]) q->edge_cost = graph_edge_cost_trampoline, q->edge_cost_ud = c;
    resolve_callbacks(&c->run, a);
    mark_read(&c->run, &g->base);
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
    push_answer(L, &res, ids, n, 0);
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
    resolve_graph_query(L, c, &a);
    return run_query(L, &c->run, &g->pool, &g->base);
}

/* -------------------------------------------------------------- module */

static int layer_size(lua_State *L) { return push_size(L, LAYER_MT); }
static int mask_size(lua_State *L) { return push_size(L, MASK_MT); }
static int claims_size(lua_State *L) { return push_size(L, CLAIMS_MT); }

static const luaL_Reg GRID_METHODS[] = {
    {"size", grid_size}, {"set_cost", grid_set_cost}, {"get_cost", grid_get_cost},
    {"set_blocked", grid_set_blocked}, {"is_walkable", grid_is_walkable}, {"fill", grid_fill},
    {"load", grid_load}, {"component", grid_component}, {"reachable", grid_reachable},
    {"landmarks", grid_landmarks}, {"search", grid_search}, {NULL, NULL}};
static const luaL_Reg GRID_META[] = {{"__gc", grid_gc}, {"__tostring", grid_tostring}, {NULL, NULL}};

static const luaL_Reg LAYER_METHODS[] = {
    {"size", layer_size},     {"set", layer_set},         {"get", layer_get},
    {"add", layer_add},       {"fill", layer_fill},       {"stamp", layer_stamp},
    {"decay", layer_decay},   {"spread", layer_spread},   {"max_abs", layer_max_abs},
    {"add_layer", layer_add_layer}, {NULL, NULL}};
static const luaL_Reg LAYER_META[] = {{"__gc", layer_gc}, {"__tostring", layer_tostring}, {NULL, NULL}};

static const luaL_Reg JOB_METHODS[] = {
    {"size", job_size}, {"result", job_result}, {"status", job_status}, {NULL, NULL}};
static const luaL_Reg JOB_META[] = {{"__gc", job_gc}, {"__tostring", job_tostring}, {NULL, NULL}};

static const luaL_Reg FIELD_METHODS[] = {
    {"size", field_size},   {"distance", field_distance}, {"next", field_next},
    {"path", field_path},   {"cells", field_cells},       {NULL, NULL}};
static const luaL_Reg FIELD_META[] = {{"__gc", field_gc}, {"__tostring", field_tostring}, {NULL, NULL}};

static const luaL_Reg MASK_METHODS[] = {
    {"size", mask_size}, {"reveal", mask_reveal}, {"is_known", mask_is_known}, {NULL, NULL}};
static const luaL_Reg MASK_META[] = {{"__gc", mask_gc}, {"__tostring", mask_tostring}, {NULL, NULL}};

static const luaL_Reg CLAIMS_METHODS[] = {
    {"size", claims_size},   {"claim", claims_claim}, {"advance", claims_advance},
    {"release", claims_release}, {"count", claims_count}, {"position", claims_position},
    {NULL, NULL}};
static const luaL_Reg CLAIMS_META[] = {{"__gc", claims_gc}, {"__tostring", claims_tostring}, {NULL, NULL}};

static const luaL_Reg GRAPH_METHODS[] = {
    {"size", graph_size},               {"add_node", graph_add_node},
    {"add_edge", graph_add_edge},       {"add_arc", graph_add_arc},
    {"remove_edge", graph_remove_edge}, {"remove_arc", graph_remove_arc},
    {"arc_cost", graph_arc_cost},       {"set_blocked", graph_set_blocked},
    {"is_blocked", graph_is_blocked},   {"node", graph_node},
    {"neighbours", graph_neighbours},   {NULL, NULL}};
static const luaL_Reg GRAPH_META[] = {{"__gc", graph_gc}, {"__tostring", graph_tostring}, {NULL, NULL}};

static const luaL_Reg GRAPH_CLAIMS_METHODS[] = {
    {"size", graph_claims_size},       {"claim", graph_claims_claim},
    {"advance", graph_claims_advance}, {"release", graph_claims_release},
    {"count", graph_claims_count},     {"position", graph_claims_position}, {NULL, NULL}};
static const luaL_Reg GRAPH_CLAIMS_META[] = {
    {"__gc", graph_claims_gc}, {"__tostring", graph_claims_tostring}, {NULL, NULL}};

static const lclass CLASSES[] = {
    {GRID_MT, GRID_METHODS, GRID_META, grid_field},
    {LAYER_MT, LAYER_METHODS, LAYER_META, size_field},
    {JOB_MT, JOB_METHODS, JOB_META, size_field},
    {FIELD_MT, FIELD_METHODS, FIELD_META, size_field},
    {MASK_MT, MASK_METHODS, MASK_META, size_field},
    {CLAIMS_MT, CLAIMS_METHODS, CLAIMS_META, size_field},
    {GRAPH_MT, GRAPH_METHODS, GRAPH_META, graph_field},
    {GRAPH_CLAIMS_MT, GRAPH_CLAIMS_METHODS, GRAPH_CLAIMS_META, NULL},
};

/* Methods that run a query: each gets its protected runner as upvalue 1, so that no closure
 * is made per query. */
typedef struct query_method {
    const char *class_name, *name;
    lua_CFunction fn, runner;
} query_method;

static const query_method QUERY_METHODS[] = {
    {GRID_MT, "find", grid_find, find_run},
    {GRID_MT, "find_nearest", grid_find_nearest, find_run},
    {GRID_MT, "find_many", grid_find_many, many_run},
    {GRID_MT, "distance_field", grid_distance_field, field_run},
    {GRID_MT, "range", grid_range, field_run},
    {JOB_MT, "step", job_step, job_run},
    {GRAPH_MT, "find", graph_find, graph_find_run},
};

ASTAR_EXPORT int luaopen_astar_core(lua_State *L);

int luaopen_astar_core(lua_State *L) {
    for (size_t i = 0; i < sizeof CLASSES / sizeof *CLASSES; i++) register_class(L, &CLASSES[i]);
    for (size_t i = 0; i < sizeof QUERY_METHODS / sizeof *QUERY_METHODS; i++) {
        const query_method *m = &QUERY_METHODS[i];
        luaL_getmetatable(L, m->class_name);
        lua_getfield(L, -1, "__index");
        lua_getupvalue(L, -1, 1); /* the class's methods */
        lua_pushcfunction(L, m->runner);
        lua_pushcclosure(L, m->fn, 1);
        lua_setfield(L, -2, m->name);
        lua_pop(L, 3);
    }

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
