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
 *      values; the Lua values needed later (objects, callbacks, the unit key,
 *      the tables an answer is written into) are pinned on the stack.
 *      Metamethods run here, and only here: the tables we write (options into
 *      and info) are written raw.
 *   2. Resolve: then every object is checked (of its type, open, of the right
 *      size) and marked "in use" (lobject.readers); no Lua code runs between
 *      this and the work, but the query's own callbacks, which the marks guard
 *      (a marked object refuses to be written or freed). What a function is
 *      building (a distance field) is marked too.
 *   3. Run.
 * read_options (the option table OPTIONS), resolve_grid_query and
 * resolve_graph_query are that rule for queries; functions taking lists of
 * points read them all (read_point) before they resolve their objects. One
 * exception, sound for its reason: check_path without callbacks reads a flat
 * path's cells on demand while it runs (open_path, largs.c), raw reads of numbers
 * with nothing else running, so it reads what an up-front read would have. Making a
 * table or a userdata may run the collector, and so a finalizer, which is Lua
 * code too: a function makes what it needs before it resolves (new_field, the
 * scratch of range), or checks its objects again after (field:path,
 * field:cells, graph:neighbours, astar.claims(graph), graph claims' claim).
 *
 * The files, by object type; lbinding.h holds what they share. Their names take an `l`
 * (as LPeg's lp*.c, Lua's l*lib.c), so that none is the basename of a core file of src/;
 * this one is named after the module it opens (luaopen_astar_core), as lfs.c is.
 *   astar_core.c  this module: its classes and functions (luaopen_astar_core)
 *   largs.c       reading arguments, and the errors about them
 *   lclass.c      what every userdata shares; the classes (register_class)
 *   lquery.c      options (OPTIONS, read_options), resolve, the workspace pool,
 *                 the protected runner (run_query)
 *   lanswer.c     the result tables (push_answer), in the caller's into and info
 *   lgrid.c       astar.Grid          lfind.c    grid:find, find_nearest, find_many
 *   ljob.c        astar.Search        lfield.c   astar.Field: distance_field, range
 *   lrepair.c     grid:check_path, grid:repair
 *   lbuild.c      astar.Build: grid:build_landmarks, build_hierarchy, prepare
 *   llayers.c     astar.Influence, astar.Mask
 *   lclaims.c     astar.Claims, astar.GraphClaims
 *   lgraph.c      astar.Graph and graph:find
 *   lload.c       Moving AI maps and scenarios
 *   llimit.c      the work limit (astar.set_work_limit), the core's progress handler
 *   lpng.c        the PNG writer of astar.debug
 */
#include "lbinding.h"
#include "lpng.h"

#include <time.h>
#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#endif

/* The scheduler's default clock, in seconds: os.clock's CPU time where clock() is that, with
 * its resolution (POSIX: microseconds). On Windows clock() counts the process's wall time in
 * whole milliseconds, too coarse to size the slices of a tick of 1.5 ms (measured slices of 0
 * ms made the rates 0 and the next slices huge: ticks of 4 ms on average, 11 at worst): there it
 * is the performance counter, wall time too, as os.clock's is. */
static int l_clock(lua_State *L) {
#if defined(_WIN32)
    LARGE_INTEGER f, c;
    if (QueryPerformanceFrequency(&f) && f.QuadPart > 0 && QueryPerformanceCounter(&c)) {
        lua_pushnumber(L, (lua_Number)c.QuadPart / (lua_Number)f.QuadPart);
        return 1;
    }
#endif
    lua_pushnumber(L, (lua_Number)clock() / (lua_Number)CLOCKS_PER_SEC);
    return 1;
}

#if defined(_WIN32) /* a DLL exports what is marked so (MinGW's --exclude-libs,ALL hides the rest) */
#define ASTAR_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define ASTAR_EXPORT __attribute__((visibility("default")))
#else
#define ASTAR_EXPORT
#endif

static const lclass *const CLASSES[] = {
    &GRID_CLASS, &LAYER_CLASS, &JOB_CLASS, &FIELD_CLASS,
    &MASK_CLASS, &CLAIMS_CLASS, &GRAPH_CLASS, &GRAPH_CLAIMS_CLASS,
    &BUILD_CLASS,
};

static const luaL_Reg FUNCTIONS[] = {
    {"grid", l_grid},
    {"influence", l_influence},
    {"mask", l_mask},
    {"claims", l_claims},
    {"clock", l_clock},
    {"graph", l_graph},
    {"load_movingai", l_load_movingai},
    {"load_movingai_string", l_load_movingai_string},
    {"load_scen", l_load_scen},
    {"load_scen_string", l_load_scen_string},
    {"png_encode", astar_lua_png_encode},
    {"smooth", l_smooth},
    {"set_work_limit", l_set_work_limit},
    {"work_left", l_work_left},
    {"workspaces", l_workspaces},
    {NULL, NULL}};

ASTAR_EXPORT int luaopen_astar_core(lua_State *L);

int luaopen_astar_core(lua_State *L) {
    for (size_t i = 0; i < sizeof CLASSES / sizeof *CLASSES; i++) register_class(L, CLASSES[i]);
    lua_newtable(L);
    astar_setfuncs(L, FUNCTIONS);
    /* astar.flee(grid, ...) and astar.wander(grid, ...): the grid's methods themselves (a
     * query method is a closure of its runner, as register_class makes it). */
    lua_pushcfunction(L, flee_run);
    lua_pushcclosure(L, grid_flee, 1);
    lua_setfield(L, -2, "flee");
    lua_pushcfunction(L, wander_run);
    lua_pushcclosure(L, grid_wander, 1);
    lua_setfield(L, -2, "wander");
    lua_pushliteral(L, ASTAR_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}
