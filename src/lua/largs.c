/*
 * largs.c -- reading arguments and raising the errors about them: numbers, coordinates,
 * costs, names, option tables and lists of points, with messages that name what is wrong.
 * One reader per kind of value, as lauxlib's luaL_check*: an integer is tested by
 * test_integer (lbinding.h; check_integer raises), a point or a flat path's cell by
 * push_entry_field and test_cell, a node id by test_node, option 'threads' by read_threads.
 * Callers raise their own messages, which name the argument, option or entry.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "lbinding.h"

/* Pushes a number as Lua prints it, but integers without a ".0" on every version. */
static const char *num_str(lua_State *L, lua_Number n) {
    /* Spelled here, not by the C library: glibc prints a NaN "-nan" or "nan" by its sign bit,
     * Windows' "nan" (and 1.#INF for infinities with older runtimes). */
    if (isnan(n)) return lua_pushfstring(L, "nan"); /* (lua_pushliteral returns nothing on 5.1) */
    if (isinf(n)) return lua_pushfstring(L, n > 0 ? "inf" : "-inf");
    if (n == floor(n) && fabs(n) <= 2147483647.0) return lua_pushfstring(L, "%d", (int)n);
    return lua_pushfstring(L, "%f", n);
}

const char *value_str(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TNUMBER) return num_str(L, lua_tonumber(L, idx));
    if (lua_type(L, idx) == LUA_TSTRING) return lua_pushfstring(L, "'%s'", lua_tostring(L, idx));
    return luaL_typename(L, idx);
}

/* The type a message names: the metatable's __name (read raw) where it has one, as Lua's own
 * luaL_typeerror does ("astar.Grid", "FILE*"). */
const char *type_name(lua_State *L, int idx) {
    if (luaL_getmetafield(L, idx, "__name")) {
        if (lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1); /* anchored on the stack */
        lua_pop(L, 1);
    }
    if (lua_type(L, idx) == LUA_TLIGHTUSERDATA) return "light userdata";
    return luaL_typename(L, idx);
}

int arg_error_fmt(lua_State *L, int arg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const char *msg = lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return luaL_argerror(L, arg, msg);
}

int type_error(lua_State *L, int arg, const char *expected) {
    return arg_error_fmt(L, arg, "%s expected, got %s", expected, type_name(L, arg));
}

/* An integral number (2.0 is fine, 2.5 and "2" are not) within lo..hi: test_integer, and
 * the error that says which of the three it is not. */
lua_Integer check_integer(lua_State *L, int arg, const char *what, lua_Integer lo,
                          lua_Integer hi) {
    lua_Number n;
    if (test_integer(L, arg, (lua_Number)lo, (lua_Number)hi, &n)) return (lua_Integer)n;
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "integer");
    if (!is_integral(L, arg)) arg_error_fmt(L, arg, "%s must be an integer, got %s", what, value_str(L, arg));
    return arg_error_fmt(L, arg, "%s out of range %s..%s, got %s", what, num_str(L, (lua_Number)lo),
                         num_str(L, (lua_Number)hi), value_str(L, arg));
}

/* A string without NUL bytes: C would read "a.map\0x" as "a.map". */
const char *check_c_string(lua_State *L, int arg, const char *what) {
    size_t len;
    const char *s = luaL_checklstring(L, arg, &len);
    if (strlen(s) != len) arg_error_fmt(L, arg, "%s contains a NUL byte", what);
    return s;
}

/* Is the string at idx exactly `name` (no trailing "\0junk")? */
bool string_is(lua_State *L, int idx, const char *name) {
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    return len == strlen(name) && memcmp(s, name, len) == 0;
}

/* The index of the string at idx in names (NULL-terminated), or -1 (also for non-strings). */
int name_index(lua_State *L, int idx, const char *const names[]) {
    if (lua_type(L, idx) != LUA_TSTRING) return -1;
    for (int i = 0; names[i]; i++)
        if (string_is(L, idx, names[i])) return i;
    return -1;
}

bool is_callable(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TFUNCTION) return true;
    if (!luaL_getmetafield(L, idx, "__call")) return false;
    lua_pop(L, 1);
    return true;
}

/*
 * The error Lua raises itself when its allocator fails: the bare message, with no
 * "chunk:line:" prefix (luaL_error would add the caller's position). The string is
 * Lua's own preallocated one, so pushing it allocates nothing.
 */
int no_memory(lua_State *L) {
    lua_pushliteral(L, "not enough memory");
    return lua_error(L);
}

/* luaL_checkstack would report a failed stack reallocation as "stack overflow". */
void check_stack(lua_State *L, int n) {
    if (!lua_checkstack(L, n)) no_memory(L);
}

/* Terrain cost of a Lua value: 0 < number <= ASTAR_MAX_VALUE, or math.huge or false (blocks). */
bool to_cost(lua_State *L, int idx, double *cost) {
    if (lua_type(L, idx) == LUA_TBOOLEAN && !lua_toboolean(L, idx)) {
        *cost = INFINITY;
        return true;
    }
    lua_Number c = lua_tonumber(L, idx);
    *cost = c;
    return lua_type(L, idx) == LUA_TNUMBER && (c == HUGE_VAL || (c > 0 && c <= ASTAR_MAX_VALUE));
}

double check_cost(lua_State *L, int arg) {
    double c;
    if (lua_type(L, arg) != LUA_TNUMBER && lua_type(L, arg) != LUA_TBOOLEAN)
        type_error(L, arg, "number or false");
    if (!to_cost(L, arg, &c))
        arg_error_fmt(L, arg, "cost must be a number in (0, " MAX_VALUE_STR "], false or math.huge, got %s",
                      value_str(L, arg));
    return c;
}

void push_cost(lua_State *L, double c) {
    if (c == INFINITY)
        lua_pushboolean(L, 0);
    else
        lua_pushnumber(L, c);
}

double check_finite(lua_State *L, int arg, const char *what) {
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "number");
    lua_Number v = lua_tonumber(L, arg);
    if (!isfinite(v)) arg_error_fmt(L, arg, "%s must be a finite number, got %s", what, value_str(L, arg));
    return v;
}

void check_size_args(lua_State *L, int32_t *w, int32_t *h) {
    *w = (int32_t)check_integer(L, 1, "width", 1, ASTAR_MAX_SIDE);
    *h = (int32_t)check_integer(L, 2, "height", 1, ASTAR_MAX_SIDE);
}

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

/*
 * Reads the table at arg as a few named options: its keys raw (each must be one of names),
 * then each name once (an __index may run), pushed in the order of names; a missing table
 * gives nils. Returns the stack index of the first.
 */
int read_fields(lua_State *L, int arg, const char *const names[]) {
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

static const char *const THREADS_OPTION[] = {"threads", NULL};

/* The table at arg ({threads = n}, or nil): n, 1..ASTAR_MANY_MAX_THREADS, or dflt when it is
 * not given. The one reader of option 'threads' (builds, find_many). */
int read_threads(lua_State *L, int arg, int dflt) {
    if (!lua_isnoneornil(L, arg) && lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table or nil");
    int at = read_fields(L, arg, THREADS_OPTION);
    int threads = dflt;
    if (!lua_isnil(L, at)) {
        lua_Number t;
        if (!test_integer(L, at, 1, ASTAR_MANY_MAX_THREADS, &t))
            arg_error_fmt(L, arg, "option 'threads' must be an integer in 1..%d, got %s",
                          ASTAR_MANY_MAX_THREADS, value_str(L, at));
        threads = (int)t;
    }
    lua_settop(L, at - 1);
    return threads;
}

/*
 * Pushes field `name` of the table at idx (an entry of a list), or where that is nil its
 * entry k + 1: an entry names its fields or lists them in order ({x=, y=} or {x, y}; {sx=,
 * sy=, ...} or {sx, sy, ...}; {id=, value=} or {id, value}). Read once: an __index of the
 * entry may run (arguments are being read).
 */
void push_entry_field(lua_State *L, int idx, const char *name, int k) {
    if (idx < 0) idx = lua_gettop(L) + idx + 1; /* the entry stays where it is */
    lua_getfield(L, idx, name);
    if (!lua_isnil(L, -1)) return;
    lua_pop(L, 1);
    lua_rawgeti(L, idx, k + 1);
}

/* The cell id of the 1-based column and row at ix, iy of a width x height grid, or -1 where
 * either is not one of its coordinates. */
int32_t test_cell(lua_State *L, int ix, int iy, int32_t width, int32_t height) {
    lua_Number x, y;
    bool ok = test_integer(L, ix, 1, width, &x);
    if (!test_integer(L, iy, 1, height, &y) || !ok) return -1;
    return ((int32_t)y - 1) * width + ((int32_t)x - 1);
}

/*
 * Point i of the list at arg: {x=, y=} or {x, y}, 1-based, inside a width x height grid; its
 * node id. Each coordinate is read once (an __index of the point may run).
 */
int32_t read_point(lua_State *L, int arg, lua_Integer i, int32_t width, int32_t height,
                   const char *what) {
    lua_rawgeti(L, arg, i);
    if (lua_type(L, -1) != LUA_TTABLE)
        arg_error_fmt(L, arg, "%s %d must be a point {x=, y=}, got %s", what, (int)i, type_name(L, -1));
    push_entry_field(L, -1, "x", 0);
    push_entry_field(L, -2, "y", 1);
    int32_t id = test_cell(L, -2, -1, width, height);
    if (id < 0)
        arg_error_fmt(L, arg, "%s %d is not a cell of the %dx%d grid", what, (int)i, (int)width,
                      (int)height);
    lua_pop(L, 3);
    return id;
}

/*
 * How far a reader of the list (a table) at idx goes: #t, read raw, but never past its first
 * nil. The raw length may be any border of the table, far beyond what it holds: {[1] = a,
 * [2^k] = b, [2^k + 1] = c} may answer 2^k + 1 (and k = 52 is a few dozen keys). A reader
 * trusting it would make room for, or walk, entries that are not there. This walk costs the
 * entries present. Where #t goes past a nil, the answer is that nil's index: the reader meets
 * it last and reports it as the bad entry it is.
 */
lua_Integer list_length(lua_State *L, int idx) {
    lua_Integer len = (lua_Integer)astar_rawlen(L, idx), i = 0;
    while (i < len) {
        lua_rawgeti(L, idx, i + 1);
        bool held = !lua_isnil(L, -1);
        lua_pop(L, 1);
        i++;
        if (!held) break;
    }
    return i;
}

/* The points of the non-empty list at arg, in a width x height grid, as node ids, in a
 * userdata left on the stack. */
int32_t *read_points(lua_State *L, int arg, int32_t width, int32_t height, const char *what,
                     const char *list, int32_t *count) {
    if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table");
    lua_Integer n = list_length(L, arg);
    if (n < 1) arg_error_fmt(L, arg, "%s must be a non-empty list of points", list);
    if (n > INT32_MAX / (lua_Integer)sizeof(int32_t)) arg_error_fmt(L, arg, "too many %s", list);
    check_stack(L, 8);
    /* A userdata on the stack: freed with it, whatever error comes. */
    int32_t *ids = astar_newuserdata_plain(L, (size_t)n * sizeof *ids);
    for (lua_Integer i = 1; i <= n; i++)
        ids[i - 1] = read_point(L, arg, i, width, height, what);
    *count = (int32_t)n;
    return ids;
}

/*
 * A path argument, in every form find returns (path = "points" or "flat", into = t): points
 * {x=, y=} (or {x, y}), or flat {x1, y1, x2, y2, ...} (told by its first entry, a number).
 * Points are read up front (read_points: a point's __index is Lua code, which may only run
 * while arguments are read). A flat path is read on demand, one cell at a time (path_cell,
 * an astar_path_reader): raw reads of numbers run no Lua code and cannot raise (the stack
 * room is made here), so a reader that runs later, while nothing else runs (no callback:
 * then the table cannot change), reads exactly what an up-front read would have.
 * whole: the length is one the caller will make room for (list_length: the entries
 * present); else #t raw, read in O(1) (what a reader that stops at its first bad entry
 * may trust: its work is bounded by the entries present).
 */
void open_path(lua_State *L, int arg, int32_t width, int32_t height, bool whole, path_arg *p) {
    if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table (a path)");
    p->L = L;
    p->arg = arg;
    p->width = width;
    p->height = height;
    p->bad = -1;
    p->ids = NULL;
    lua_rawgeti(L, arg, 1);
    bool flat = lua_type(L, -1) == LUA_TNUMBER;
    lua_pop(L, 1);
    if (!flat) {
        p->ids = read_points(L, arg, width, height, "path point", "path", &p->n);
        p->len = p->n;
        return;
    }
    lua_Integer len = whole ? 0 : (lua_Integer)astar_rawlen(L, arg);
    if (whole || len < 1 || len / 2 >= INT32_MAX / (lua_Integer)sizeof(int32_t)) len = list_length(L, arg);
    if (len / 2 >= INT32_MAX / (lua_Integer)sizeof(int32_t)) arg_error_fmt(L, arg, "path too long");
    check_stack(L, 4);
    p->len = len;
    p->n = (int32_t)((len + 1) / 2);
}

/* Cell i (0-based) of an open path: its node id, or -1 (then p->bad = i, for path_error). */
int32_t path_cell(void *ud, int32_t i) {
    path_arg *p = ud;
    if (p->ids) return p->ids[i];
    lua_State *L = p->L;
    lua_rawgeti(L, p->arg, 2 * (lua_Integer)i + 1);
    lua_rawgeti(L, p->arg, 2 * (lua_Integer)i + 2);
    int32_t id = test_cell(L, -2, -1, p->width, p->height);
    lua_pop(L, 2);
    if (id < 0) p->bad = i;
    return id;
}

/* Raises the error of the cell path_cell could not read. An odd flat path's last cell lacks
 * its y: the length is named then, as a reader of the whole list sees it first. */
int path_error(path_arg *p) {
    lua_State *L = p->L;
    if (p->len % 2 != 0 && 2 * (lua_Integer)p->bad + 1 == p->len) {
        lua_rawgeti(L, p->arg, p->len);
        bool ends = !lua_isnil(L, -1);
        lua_rawgeti(L, p->arg, p->len + 1);
        bool past = lua_isnil(L, -1);
        lua_pop(L, 2);
        if (ends && past) arg_error_fmt(L, p->arg, "a flat path needs two numbers per cell, got %d", (int)p->len);
    }
    return arg_error_fmt(L, p->arg, "flat path cell %d is not a cell of the %dx%d grid", (int)p->bad + 1,
                         (int)p->width, (int)p->height);
}

/* The path at arg in any form (open_path), every cell read now: its node ids, in a userdata
 * left on the stack (with what open_path left). */
int32_t *read_path(lua_State *L, int arg, int32_t width, int32_t height, int32_t *count) {
    path_arg p;
    open_path(L, arg, width, height, true, &p);
    *count = p.n;
    if (p.ids) return (int32_t *)p.ids;
    int32_t *ids = astar_newuserdata_plain(L, (size_t)p.n * sizeof *ids);
    for (int32_t i = 0; i < p.n; i++)
        if ((ids[i] = path_cell(&p, i)) < 0) path_error(&p);
    return ids;
}
