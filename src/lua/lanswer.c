/*
 * lanswer.c -- a query's answer, on a grid or a graph: where it goes (options into and info,
 * resolve_answer), the path and info tables find returns (push_answer), written in place
 * into the caller's tables, and the statuses that are no answer (check_answer).
 */
#include <math.h>

#include "lbinding.h"

/* Options into and info of a resolved query: their slots go to the runner after the others. */
void resolve_answer(run_ctx *c, const query_args *a) {
    c->answer.flat = a->flat_path;
    if (a->slot[O_INTO]) {
        c->answer.into = RUN_NARGS + 1 + c->npass;
        c->pass[c->npass++] = a->slot[O_INTO];
    }
    if (a->slot[O_INFO]) {
        c->answer.info = RUN_NARGS + 1 + c->npass;
        c->pass[c->npass++] = a->slot[O_INFO];
    }
}

/*
 * The caller's tables are written raw only (rawset, rawseti, rawlen, rawget): a metamethod
 * of theirs (__newindex, __index, __len) never runs, as the rule at the top of astar_core.c
 * asks of every table we are given.
 */

/* Is the key at idx an integer above n (a key #t may count)? */
static bool integer_above(lua_State *L, int idx, lua_Integer n) {
#if LUA_VERSION_NUM >= 503
    return lua_isinteger(L, idx) && lua_tointeger(L, idx) > n;
#else
    lua_Number k;
    return test_integer(L, idx, (lua_Number)n + 1, HUGE_VAL, &k);
#endif
}

/*
 * Ends the sequence in t (the path, t[1..n], just written) at n: afterwards #t == n (raw).
 * In time bounded by the keys t holds, never by #t: #t may be any border of t, 2^52 for a
 * table of a few dozen keys {[2^k] = ..., [2^k + 1] = ...}, and counting down from it would
 * never end. First the run of entries after n goes (what a longer path written before left,
 * and whatever else follows on without a gap); if #t still says more, t holds integer keys
 * beyond a gap, and every integer key above n goes, found by lua_next (clearing a field
 * during a traversal is allowed).
 */
static void end_sequence(lua_State *L, int t, lua_Integer n) {
    for (lua_Integer i = n + 1;; i++) {
        lua_rawgeti(L, t, i);
        bool held = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (!held) break;
        lua_pushnil(L);
        lua_rawseti(L, t, i);
    }
    if ((lua_Integer)astar_rawlen(L, t) <= n) return;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (!integer_above(L, -1, n)) continue;
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, t);
    }
}

/* Sets field k of table t to the value on top, popped (raw). */
static void set_field(lua_State *L, int t, const char *k) {
    lua_pushstring(L, k);
    lua_insert(L, -2);
    lua_rawset(L, t);
}

/* Sets field k of table t to nil where it holds something (so a Lua 5.1 table gets no key
 * for a nil). */
static void clear_field(lua_State *L, int t, const char *k) {
    lua_pushstring(L, k);
    lua_rawget(L, t);
    bool held = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!held) return;
    lua_pushnil(L);
    set_field(L, t, k);
}

/* Field k of the info table t: the value on top (popped) where `set`; else none, cleared in a
 * table of the caller's (reused: option info), which may hold it from an answer before. */
static void put_field(lua_State *L, int t, const char *k, bool set, bool reused) {
    if (set) {
        set_field(L, t, k);
        return;
    }
    lua_pop(L, 1);
    if (reused) clear_field(L, t, k);
}

/*
 * Writes the path into the table t: the points of the cells, written in place where t
 * already holds a table there (raw sets of x and y) and new elsewhere. kx, ky hold "x", "y".
 */
static void points_in_place(lua_State *L, int t, const int32_t *ids, int32_t n, int32_t width) {
    lua_pushliteral(L, "x");
    lua_pushliteral(L, "y");
    int kx = lua_gettop(L) - 1, ky = kx + 1;
    for (int32_t i = 0; i < n; i++) {
        lua_rawgeti(L, t, (lua_Integer)i + 1);
        if (lua_type(L, -1) == LUA_TTABLE) {
            lua_pushvalue(L, kx);
            lua_pushinteger(L, ids[i] % width + 1);
            lua_rawset(L, -3);
            lua_pushvalue(L, ky);
            lua_pushinteger(L, ids[i] / width + 1);
            lua_rawset(L, -3);
            lua_pop(L, 1);
        } else {
            lua_pop(L, 1);
            push_point(L, ids[i], width);
            lua_rawseti(L, t, (lua_Integer)i + 1);
        }
    }
    lua_pop(L, 2);
}

/* Pushes the path: a grid's cells (width > 0) as points or flat, a graph's nodes as ids; in
 * the table to->into (its sequence not ended yet) or a new one. Returns its length. */
static lua_Integer push_path(lua_State *L, const int32_t *ids, int32_t n, int32_t width, const answer_to *to) {
    bool flat = width && to->flat;
    lua_Integer len = flat ? 2 * (lua_Integer)n : n;
    if (to->into) lua_pushvalue(L, to->into);
    else lua_createtable(L, (int)len, 0);
    int t = lua_gettop(L);
    if (!width) {
        for (int32_t i = 0; i < n; i++) {
            lua_pushinteger(L, (lua_Integer)ids[i] + 1);
            lua_rawseti(L, t, (lua_Integer)i + 1);
        }
    } else if (flat) {
        for (int32_t i = 0; i < n; i++) {
            lua_pushinteger(L, ids[i] % width + 1);
            lua_rawseti(L, t, 2 * (lua_Integer)i + 1);
            lua_pushinteger(L, ids[i] / width + 1);
            lua_rawseti(L, t, 2 * (lua_Integer)i + 2);
        }
    } else if (to->into) {
        points_in_place(L, t, ids, n, width);
    } else {
        for (int32_t i = 0; i < n; i++) {
            push_point(L, ids[i], width);
            lua_rawseti(L, t, (lua_Integer)i + 1);
        }
    }
    return len;
}

/*
 * Pushes find's two results (path or nil, info) for a result and its path: the cells of a
 * grid `width` wide as points {x=, y=} (or flat: x1, y1, x2, y2, ...), or a graph's nodes
 * (width 0) as their ids; each in the caller's table `to` names (emptied when there is no
 * path), else a new one; info.version is the grid's or graph's version the answer was
 * computed on. to NULL: new tables, points. The sequence in to->into is ended
 * last: into and info may be one table, and a new info key may make it rehash, which may
 * change the border its length answers.
 */
void push_answer(lua_State *L, const astar_result *r, const int32_t *ids, int32_t n,
                 int32_t width, uint32_t version, const answer_to *to) {
    static const answer_to NEW_TABLES = {false, 0, 0, NULL};
    if (!to) to = &NEW_TABLES;
    const astar_result res = *r;
    astar_status st = res.status;
    bool has_path = st == ASTAR_OK || st == ASTAR_PARTIAL;
    lua_Integer len = 0;
    check_stack(L, 8);
    if (has_path) len = push_path(L, ids, n, width, to);
    else lua_pushnil(L);
    if (to->info) lua_pushvalue(L, to->info);
    else lua_createtable(L, 0, 5);
    int info = lua_gettop(L);
    bool reused = to->info != 0;
    lua_pushstring(L, astar_status_name(st));
    set_field(L, info, "status");
    lua_pushinteger(L, (lua_Integer)res.expansions);
    set_field(L, info, "expansions");
    lua_pushnumber(L, res.cost);
    put_field(L, info, "cost", has_path, reused);
    lua_pushinteger(L, res.length);
    put_field(L, info, "length", has_path, reused);
    lua_pushstring(L, st == ASTAR_PARTIAL ? astar_status_name(res.reason) : NULL); /* NULL: nil */
    put_field(L, info, "reason", st == ASTAR_PARTIAL, reused);
    lua_pushnumber(L, res.score);
    put_field(L, info, "score", has_path && res.scored, reused);
    lua_pushinteger(L, (lua_Integer)res.interest + 1);
    put_field(L, info, "interest", st == ASTAR_OK && res.interest >= 0, reused);
    lua_pushinteger(L, (lua_Integer)res.abstract_expansions);
    put_field(L, info, "abstract_expansions", res.tiered, reused);
    lua_pushboolean(L, res.fallback);
    put_field(L, info, "fallback", res.tiered, reused);
    lua_pushinteger(L, (lua_Integer)res.target + 1);
    put_field(L, info, "target", st == ASTAR_OK && res.target >= 0, reused);
    push_version(L, version);
    set_field(L, info, "version");
    if (to->repair) { /* repair's: its table may be one a find filled before */
        lua_pushinteger(L, (lua_Integer)to->repair->rejoin + 1);
        put_field(L, info, "rejoin", to->repair->rejoin >= 0 && st == ASTAR_OK, true);
        lua_pushboolean(L, 1);
        put_field(L, info, "replanned", to->repair->replanned, true);
    }
    if (to->into) end_sequence(L, to->into, len);
}

/* find's errors: the statuses that are no answer. */
void check_answer(lua_State *L, astar_status st, const char *fn) {
    if (st == ASTAR_ENOMEM || st == ASTAR_ESTOPPED) runner_status_error(L, st);
    if (st == ASTAR_EINVAL || st == ASTAR_EABORT) luaL_error(L, "%s failed: %s", fn, astar_status_name(st));
}
