/*
 * llimit.c -- the work limit: astar.set_work_limit(n), astar.work_left(). A host bounds the C
 * work of the calls a mod makes (docs/manual.md, "Bounding a mod's work"); the core's progress
 * handler (astar_set_progress_handler) does the counting.
 *
 * The limit is the thread's, as the handler is: every Lua state on the thread shares it. The
 * handler is installed for a window of at most UINT32_MAX units (its `every` is 32 bits); when
 * a window is used up the core asks next_window, which installs the next one or, with nothing
 * left, says stop, and goes on saying it (the core asks again before every later unit) until
 * the limit is set again.
 */
#include "lbinding.h"

typedef struct work_limit {
    bool on;
    uint64_t rest; /* the units of the limit beyond the window installed */
} work_limit;

/* The thread's (the handler's ud points here: a worker thread of find_many that asks for the
 * next window reaches the limit of the thread that made the call). */
static _Thread_local work_limit limit;

static int next_window(void *ud) {
    work_limit *l = ud;
    if (l->rest == 0) return 1;
    uint32_t window = l->rest < UINT32_MAX ? (uint32_t)l->rest : UINT32_MAX;
    l->rest -= window;
    astar_set_progress_handler(window, next_window, l); /* from inside: the next window */
    return 0;
}

/* 2^53: every integer up to it is a double, on every Lua (as job:step reads n). */
#define MOST ((lua_Integer)1 << 53)

/* astar.set_work_limit(n): at most n more units of C work on this thread (nil: no limit). */
int l_set_work_limit(lua_State *L) {
    if (lua_isnoneornil(L, 1)) {
        astar_set_progress_handler(0, NULL, NULL);
        limit.on = false;
        return 0;
    }
    uint64_t n = (uint64_t)check_integer(L, 1, "n", 0, MOST);
    uint32_t window = n == 0 ? 1 : n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
    limit.on = true;
    limit.rest = n - (n == 0 ? 0 : window);
    astar_set_progress_handler(window, next_window, &limit);
    /* A window holds one unit at least: with no work allowed, it starts used up, so that the
     * first unit of the next call asks next_window, which says stop. */
    if (n == 0) astar_progress_work(1);
    return 0;
}

/* astar.work_left() -> the units the limit still allows on this thread, or nil without one. */
int l_work_left(lua_State *L) {
    if (!limit.on) return lua_pushnil(L), 1;
    uint64_t window = astar_progress_left(); /* what the window installed still holds */
    lua_pushinteger(L, window < (uint64_t)MOST - limit.rest ? (lua_Integer)(limit.rest + window) : MOST);
    return 1;
}

/* "work limit reached" at the position of the Lua code `level` frames up (as luaL_error
 * gives level 1's). */
static int stopped_at(lua_State *L, int level) {
    luaL_where(L, level);
    lua_pushliteral(L, "work limit reached");
    lua_concat(L, 2);
    return lua_error(L);
}

int work_limit_error(lua_State *L) { return stopped_at(L, 1); }

int status_error(lua_State *L, astar_status st) {
    return st == ASTAR_ESTOPPED ? stopped_at(L, 1) : no_memory(L);
}

/* Inside a protected runner the binding function that called it is level 1, its caller 2. */
int runner_status_error(lua_State *L, astar_status st) {
    return st == ASTAR_ESTOPPED ? stopped_at(L, 2) : no_memory(L);
}
