/*
 * host.c -- a small game host that embeds Lua 5.4 and lets mods decide how units walk.
 *
 * The host owns the world: a grid loaded from a Moving AI map, a danger layer, the units.
 * Each unit is driven by an AI script from a folder (SCRIPTS/<name>.lua) that returns
 *
 *     return { options = function(unit, world) return { ...find options... } end }
 *
 * Every tick the host reads each script file again and, when its text changed, loads the
 * new version (a broken edit is reported and the old version kept): editing a script while
 * the host runs changes the units' behaviour on the next tick, without recompiling.
 *
 * No script can stop, freeze or break the host or the other units:
 * - Each script runs in an environment of its own (astar.sandbox): the safe parts of the
 *   standard library as its own copies, no io, os.exit, debug, dofile, loadfile, binary chunks,
 *   require of C modules or __gc finalizers (they run where no budget can stop them). The
 *   shared world it sees holds views of the grid and the danger layer: their reading methods
 *   and queries only, so a script can neither change nor close them.
 * - Every call into a script runs inside lua_pcall with a budget: at most BUDGET Lua
 *   instructions (all its coroutines together), MS milliseconds of wall time, C work included,
 *   and U units of astar's C work: astar's long loops call the host's progress handler
 *   (astar_set_progress_handler), which stops them once the time or the units are spent ("work
 *   limit reached"), leaving every object as it was. A script over budget is stopped with "unit NAME stopped: over its budget of BUDGET
 *   instructions" (or "of MS ms"). A new version stopped while loading is rejected like a
 *   broken edit. A unit stopped during its tick stands still for that tick and runs again on
 *   the next one, with a fresh budget: a script that is slow only now and then (a long route
 *   through a Lua node_cost) is not banned for good, and an endless one costs at most its
 *   budget each tick until the modder saves a fix.
 * - All of Lua's memory, astar's included, comes from an allocator capped at MEMORY MiB: a
 *   script that asks for more gets "not enough memory", not the host's death.
 *
 * Commands on stdin, one per line, answers on stdout:
 *   tick [n]   run n ticks (default 1); each prints, per unit, the route its script chose:
 *              "tick T unit NAME script S cost C length L danger D" (D: cells of the route
 *              where the danger layer is above 0), or "tick T unit NAME script S error E";
 *              then "time T unit NAME ms M": the wall time its script call took
 *   quit       exit
 *
 *   astar_host [--budget N] [--ms MS] [--units U] [--memory MIB] MAP SCRIPTS_DIR [LUA_DIR]
 *     N: Lua instructions per script call (default 3000000: 10 to 30 ms here, hook included)
 *     MS: wall-clock milliseconds per script call, C work included (default 50)
 *     U: astar's units of C work per script call (default 4000000: cells or expansions), and
 *        at most 50,000 for each millisecond left of MS (see over_budget)
 *     MIB: all of Lua's memory, the world's and every script's (default 1024)
 *     LUA_DIR: where astar/init.lua lives (default lua)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "astar.h"

int luaopen_astar_core(lua_State *L);


typedef struct unit {
    char name[32];
    char script[64];     /* file name in the scripts folder */
    char *source;        /* the text last loaded, to see edits */
    int ref;             /* registry reference of the script's table */
    int world;           /* registry reference of the world as its script sees it (views) */
    long long held;      /* bytes its script holds: what its calls left after a full collection */
    int sx, sy, gx, gy;  /* where it stands and where it goes */
} unit;

static int route_ref, new_env_ref; /* registry references of the host's functions */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The budget of the script call under way. Each coroutine has a hook count of its own, so
 * the hook fires every `grain` instructions of any of them and they all draw from `used`;
 * the clock is read there too, and by astar's progress handler inside its long loops. */
static struct {
    const char *unit;
    long long used, budget;
    int grain;
    double ms, deadline; /* wall-clock budget of a call, and when the one under way ends */
    long long units, units_left; /* astar's units of C work a call may take, and what is left */
    int stop;            /* registry reference of the stop's message, once the call is stopped */
    double took;         /* the wall time the last call took, in ms */
} meter;

static void meter_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    meter.used += lua_gethookcount(L);
    int late = now_ms() > meter.deadline;
    if (meter.used <= meter.budget && !late) {
        if (lua_gethookcount(L) != meter.grain) lua_sethook(L, meter_hook, LUA_MASKCOUNT, meter.grain);
        return;
    }
    /* From now on every instruction fails, with the first stop's message (where the script
     * was): a script's own pcall cannot swallow the stop, nor code on the error's way out
     * (astar.sandbox's) change where it says the script was. */
    lua_sethook(L, meter_hook, LUA_MASKCOUNT, 1);
    if (meter.stop != LUA_NOREF) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, meter.stop);
        lua_error(L);
    }
    luaL_where(L, 0);
    if (late)
        lua_pushfstring(L, "%sunit %s stopped: over its budget of %d ms", lua_tostring(L, -1), meter.unit,
                        (int)meter.ms);
    else
        lua_pushfstring(L, "%sunit %s stopped: over its budget of %I instructions", lua_tostring(L, -1),
                        meter.unit, (lua_Integer)meter.budget);
    lua_pushvalue(L, -1);
    meter.stop = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_error(L);
}

/* astar's progress handler: astar's long loops (searches, fields, builds, a big grid's
 * set-up) call it every PROGRESS_EVERY units of work; past the deadline, or past the call's
 * units, the C call stops there ("work limit reached") and the hook stops the script at its next
 * instructions. The units matter where the clock cannot: a constructor or a bulk write counts
 * all its units before it makes or changes anything, and then runs to its end. So the units
 * left are bounded by the time left too, at UNITS_PER_MS, the pace of the slowest such work
 * (a grid's construction: about 100,000 units a millisecond on docs/performance.md's machine),
 * halved for slower ones: one started just before the deadline (a 1990x1990 grid, 40 ms, with
 * 5 ms left) is refused instead of running that far past it. */
enum { PROGRESS_EVERY = 1024, UNITS_PER_MS = 50000 };
static int over_budget(void *ud) {
    (void)ud;
    meter.units_left -= PROGRESS_EVERY;
    double left_ms = meter.deadline - now_ms();
    if ((double)meter.units_left > left_ms * UNITS_PER_MS) meter.units_left = (long long)(left_ms * UNITS_PER_MS);
    return meter.units_left < 0 || left_ms < 0;
}

/* Lua's memory, capped: astar's objects come from it too (lua_getallocf). While a script
 * call runs, it may grow the heap by call_cap at most, and no block of 64 KiB or more is
 * given once its time is up: Lua's own C functions (string.rep, s .. s, table.concat) run
 * where no hook can stop them, and what they make is what they cost. */
static struct {
    size_t used, cap;
    int in_call;              /* a script call runs */
    size_t call_base, call_cap; /* used when it began; what it may add */
    size_t unit_cap;          /* what a unit's script may hold between its calls */
} memory;

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    size_t old = ptr ? osize : 0; /* without ptr, osize is the kind of object */
    if (nsize == 0) {
        free(ptr);
        memory.used -= old;
        return NULL;
    }
    if (nsize > old) {
        size_t after = memory.used - old + nsize;
        if (after > memory.cap) return NULL;
        if (memory.in_call && (after > memory.call_base + memory.call_cap ||
                               (nsize - old >= 65536 && now_ms() > meter.deadline)))
            return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p) memory.used = memory.used - old + nsize;
    return p;
}

/* The text of an error value, as lua.c's msghandler makes it. */
static int describe(lua_State *L) {
    if (lua_isstring(L, 1)) {
        lua_tostring(L, 1);
        lua_settop(L, 1);
        return 1;
    }
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    return 1;
}

/* Replaces the error value at the top by its text, still under the unit's budget since a
 * __tostring is the script's code; when that fails too, the value's type will do. */
static const char *error_text(lua_State *L) {
    static char fallback[64];
    snprintf(fallback, sizeof fallback, "(error object is a %s value)", luaL_typename(L, -1));
    lua_pushcfunction(L, describe);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TSTRING) return fallback;
    return lua_tostring(L, -1);
}

/* Forgets the unit's script and its environment (what it held goes with the next collection);
 * the next refresh loads it again. */
static void unload(lua_State *L, unit *u) {
    luaL_unref(L, LUA_REGISTRYINDEX, u->ref);
    luaL_unref(L, LUA_REGISTRYINDEX, u->world);
    u->ref = u->world = LUA_NOREF;
    free(u->source);
    u->source = NULL;
}

/* f(u, p) protected, with a fresh budget for u's script. What the call leaves held, measured
 * between two full collections, is the unit's; a script holding more than unit_cap is unloaded
 * (and loaded again, fresh, on the next tick): one that hoards memory across ticks cannot take
 * the other units' share. Two full collections a call is the price of knowing: fine for a few
 * units over a small heap, as here; a game with many would account incrementally. */
static int run(lua_State *L, lua_CFunction f, unit *u, void *p, int nresults) {
    lua_gc(L, LUA_GCCOLLECT, 0);
    size_t base = memory.used;
    meter.unit = u->name;
    meter.used = 0;
    meter.deadline = now_ms() + meter.ms;
    meter.units_left = meter.units;
    luaL_unref(L, LUA_REGISTRYINDEX, meter.stop);
    meter.stop = LUA_NOREF;
    lua_sethook(L, meter_hook, LUA_MASKCOUNT, meter.grain); /* also leaves the every-instruction mode */
    lua_pushcfunction(L, f);
    lua_pushlightuserdata(L, u);
    lua_pushlightuserdata(L, p);
    memory.in_call = 1;
    memory.call_base = base;
    double start = now_ms();
    int st = lua_pcall(L, 2, nresults, 0);
    meter.took = now_ms() - start;
    memory.in_call = 0;
    lua_gc(L, LUA_GCCOLLECT, 0);
    u->held += (long long)memory.used - (long long)base;
    if (u->held > (long long)memory.unit_cap) {
        fprintf(stderr, "host: unit %s: its script holds %.1f MiB, over %.0f: unloaded, loaded again next tick\n",
                u->name, (double)u->held / 1048576, (double)memory.unit_cap / 1048576);
        lua_gc(L, LUA_GCCOLLECT, 0);
        size_t before = memory.used;
        unload(L, u);
        lua_gc(L, LUA_GCCOLLECT, 0);
        u->held -= (long long)before - (long long)memory.used;
    }
    return st;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        if (len + 1 == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

/* Protected: runs the text (text only: a binary chunk could crash the host) in a new
 * environment of its own, and keeps the table it returns as the unit's script and that
 * environment's world as the one its script is given. */
static int load_script(lua_State *L) {
    unit *u = lua_touserdata(L, 1);
    const char *text = lua_touserdata(L, 2);
    char chunkname[80];
    snprintf(chunkname, sizeof chunkname, "@%s", u->script);
    if (luaL_loadbufferx(L, text, strlen(text), chunkname, "t") != LUA_OK) return lua_error(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, new_env_ref);
    lua_pushstring(L, u->name);
    lua_call(L, 1, 2); /* env, world */
    lua_insert(L, -3);
    lua_setupvalue(L, -2, 1); /* the chunk's _ENV */
    lua_call(L, 0, 1);
    if (!lua_istable(L, -1)) return luaL_error(L, "must return a table, not a %s", luaL_typename(L, -1));
    int ref = luaL_ref(L, LUA_REGISTRYINDEX), world = luaL_ref(L, LUA_REGISTRYINDEX);
    luaL_unref(L, LUA_REGISTRYINDEX, u->ref);
    luaL_unref(L, LUA_REGISTRYINDEX, u->world);
    u->ref = ref;
    u->world = world;
    return 0;
}

/* Loads the unit's script again if its text changed; keeps the old one when the new one fails. */
static void refresh(lua_State *L, unit *u, const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, u->script);
    char *text = read_file(path);
    if (!text) {
        fprintf(stderr, "host: cannot read %s: keeping the loaded version\n", path);
        return;
    }
    if (u->source && strcmp(text, u->source) == 0) {
        free(text);
        return;
    }
    if (run(L, load_script, u, text, 0) != LUA_OK) {
        fprintf(stderr, "host: %s: %s (keeping the loaded version)\n", u->script, error_text(L));
        lua_pop(L, 1);
        free(text);
        return;
    }
    free(u->source);
    u->source = text;
    printf("loaded %s for %s\n", u->script, u->name);
}

/* Protected: route(options, unit, world, gx, gy) -> cost, length, danger cells. */
static int choose_route(lua_State *L) {
    unit *u = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, route_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, u->ref);
    lua_getfield(L, -1, "options");
    lua_remove(L, -2);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, u->name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, u->sx);
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, u->sy);
    lua_setfield(L, -2, "y");
    lua_rawgeti(L, LUA_REGISTRYINDEX, u->world);
    lua_pushinteger(L, u->gx);
    lua_pushinteger(L, u->gy);
    lua_call(L, 5, 3);
    return 3;
}

/* One tick for one unit: ask its script for options, find, report. */
static void step(lua_State *L, unit *u, int tick) {
    if (u->ref == LUA_NOREF) return;
    int st = run(L, choose_route, u, NULL, 3);
    double took = meter.took;
    if (st != LUA_OK) {
        printf("tick %d unit %s script %s error %s\n", tick, u->name, u->script, error_text(L));
        lua_pop(L, 1);
    } else {
        printf("tick %d unit %s script %s cost %.3f length %d danger %d\n", tick, u->name, u->script,
               lua_tonumber(L, -3), (int)lua_tointeger(L, -2), (int)lua_tointeger(L, -1));
        lua_pop(L, 3);
    }
    printf("time %d unit %s ms %.1f\n", tick, u->name, took);
}

/* The world, built in Lua from the host's arguments: the grid, a danger stamp in the middle;
 * new_env(name), which makes a script's environment and its world (views of the grid and
 * the danger layer: astar.sandbox); and route(), which runs a unit's script and its query. */
static const char *WORLD =
    "local map = ...\n"
    "local astar = require('astar')\n"
    "local sandbox = require('astar.sandbox')\n"
    "sandbox.guard_strings() -- ('x'):rep(n) and the rest, as each script's string library\n"
    "local grid = astar.load_movingai(map)\n"
    "local w, h = grid:size()\n"
    "local danger = astar.influence(w, h)\n"
    "danger:stamp(math.floor(w / 2), math.floor(h / 2), math.max(2, math.floor(w / 5)), 20, 'constant')\n"
    "local function new_env(name)\n"
    "  local world = { grid = sandbox.view(grid), danger = sandbox.view(danger), width = w, height = h }\n"
    "  local function say(...)\n"
    "    local t = table.pack(...)\n"
    "    for i = 1, t.n do t[i] = tostring(t[i]) end\n"
    "    io.stderr:write(name, ': ', table.concat(t, '\\t', 1, t.n), '\\n')\n"
    "  end\n"
    "  return sandbox.env({ world = world, print = say }), world\n"
    "end\n"
    "local function route(options, unit, world, gx, gy)\n"
    "  local opts = options(unit, world) or {}\n"
    "  local path, info = grid:find(unit.x, unit.y, gx, gy, sandbox.unwrap(opts))\n"
    "  if not path then return -1, 0, 0 end\n"
    "  local hot = 0\n"
    "  for _, p in ipairs(path) do if danger:get(p.x, p.y) > 0 then hot = hot + 1 end end\n"
    "  return info.cost, #path, hot\n"
    "end\n"
    "return new_env, route, w, h\n";

/* A positive number option's value, or -1. */
static double positive(const char *text) {
    char *end;
    double v = strtod(text, &end);
    return *end || !(v > 0) ? -1 : v;
}

int main(int argc, char **argv) {
    double budget = 3000000, ms = 50, work = 4000000, mib = 1024, call_mib = 16, unit_mib = 64;
    for (; argc > 2 && strncmp(argv[1], "--", 2) == 0; argc -= 2, argv += 2) {
        double *to = strcmp(argv[1], "--budget") == 0 ? &budget
                     : strcmp(argv[1], "--ms") == 0   ? &ms
                     : strcmp(argv[1], "--units") == 0 ? &work
                     : strcmp(argv[1], "--memory") == 0 ? &mib
                     : strcmp(argv[1], "--call-memory") == 0 ? &call_mib
                     : strcmp(argv[1], "--unit-memory") == 0 ? &unit_mib : NULL;
        if (!to || (*to = positive(argv[2])) < 0) argc = 0;
    }
    if (argc < 3 || budget < 1 || budget > 1e15 || work > 1e15) {
        fprintf(stderr, "usage: astar_host [--budget N] [--ms MS] [--units U] [--memory MIB] [--call-memory MIB]\n"
                        "                  [--unit-memory MIB] MAP SCRIPTS_DIR [LUA_DIR]\n");
        return 2;
    }
    meter.budget = (long long)budget;
    meter.ms = ms;
    meter.units = (long long)work;
    meter.stop = LUA_NOREF;
    meter.grain = meter.budget < 1000 ? (int)meter.budget : 1000;
    memory.cap = mib >= 1e6 ? (size_t)-1 : (size_t)(mib * 1048576);
    memory.call_cap = call_mib >= 1e6 ? (size_t)-1 / 2 : (size_t)(call_mib * 1048576);
    memory.unit_cap = unit_mib >= 1e6 ? (size_t)-1 / 2 : (size_t)(unit_mib * 1048576);
    const char *map = argv[1], *dir = argv[2], *luadir = argc > 3 ? argv[3] : "lua";
    setvbuf(stdout, NULL, _IOLBF, 0); /* a driver reads the answers line by line */
    lua_State *L = lua_newstate(capped_alloc, NULL);
    if (!L) return 1;
    luaL_openlibs(L);
    /* astar.core is linked in; the Lua front comes from LUA_DIR */
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_astar_core);
    lua_setfield(L, -2, "astar.core");
    lua_pop(L, 1);
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua", luadir, luadir);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);

    if (luaL_loadbuffer(L, WORLD, strlen(WORLD), "=world") != LUA_OK) return 1;
    lua_pushstring(L, map);
    if (lua_pcall(L, 1, 4, 0) != LUA_OK) {
        fprintf(stderr, "host: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    int w = (int)lua_tointeger(L, -2), h = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
    route_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    new_env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    astar_set_progress_handler(PROGRESS_EVERY, over_budget, NULL);

    /* Two units crossing the map, one script each. */
    unit units[2] = {
        {"scout", "scout.lua", NULL, LUA_NOREF, LUA_NOREF, 0, 1, 1, w, h},
        {"runner", "runner.lua", NULL, LUA_NOREF, LUA_NOREF, 0, 1, h, w, 1},
    };
    int nunits = 2;

    char line[256];
    int tick = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "quit", 4) == 0) break;
        if (strncmp(line, "tick", 4) != 0) {
            printf("unknown command: %s", line);
            continue;
        }
        int n = atoi(line + 4);
        for (int i = 0; i < (n > 0 ? n : 1); i++) {
            tick++;
            for (int u = 0; u < nunits; u++) refresh(L, &units[u], dir);
            for (int u = 0; u < nunits; u++) step(L, &units[u], tick);
        }
        printf("ticked %d\n", tick);
    }
    for (int u = 0; u < nunits; u++) free(units[u].source);
    lua_close(L);
    return 0;
}
