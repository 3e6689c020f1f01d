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
 * No script can stop the host or the other units. Every call into a script runs inside
 * lua_pcall, and each one -- loading a new version, or a unit's tick: its options, the query
 * with its callbacks, any metamethod -- may run at most BUDGET Lua instructions (all its
 * coroutines together). A script over budget is stopped with "unit NAME stopped: over its
 * budget of BUDGET instructions". A new version stopped while loading is rejected like a
 * broken edit. A unit stopped during its tick stands still for that tick and runs again on
 * the next one, with a fresh budget: a script that is slow only now and then (a long route
 * through a Lua node_cost) is not banned for good, and an endless one costs at most its
 * budget each tick until the modder saves a fix. Scripts get no debug library (its sethook
 * would lift the budget) and no __gc metamethods (finalizers run with hooks off, where no
 * budget can stop them).
 *
 * Commands on stdin, one per line, answers on stdout:
 *   tick [n]   run n ticks (default 1); each prints, per unit, the route its script chose:
 *              "tick T unit NAME script S cost C length L danger D" (D: cells of the route
 *              where the danger layer is above 0), or "tick T unit NAME script S error E"
 *   quit       exit
 *
 *   astar_host [--budget N] MAP SCRIPTS_DIR [LUA_DIR]
 *     N: Lua instructions per script call (default 3000000: 10 to 30 ms here, hook included)
 *     LUA_DIR: where astar/init.lua lives (default lua)
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int luaopen_astar_core(lua_State *L);


typedef struct unit {
    char name[32];
    char script[64];     /* file name in the scripts folder */
    char *source;        /* the text last loaded, to see edits */
    int ref;             /* registry reference of the script's table */
    int sx, sy, gx, gy;  /* where it stands and where it goes */
} unit;

static int world_ref, route_ref; /* registry references: route() is not in the world scripts get */

/* The budget of the script call under way. Each coroutine has a hook count of its own, so
 * the hook fires every `grain` instructions of any of them and they all draw from `used`. */
static struct {
    const char *unit;
    long long used, budget;
    int grain;
} meter;

static void meter_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    meter.used += lua_gethookcount(L);
    if (meter.used <= meter.budget) {
        if (lua_gethookcount(L) != meter.grain) lua_sethook(L, meter_hook, LUA_MASKCOUNT, meter.grain);
        return;
    }
    /* From now on every instruction fails: a script's own pcall cannot swallow the stop. */
    lua_sethook(L, meter_hook, LUA_MASKCOUNT, 1);
    luaL_where(L, 0);
    lua_pushfstring(L, "%sunit %s stopped: over its budget of %I instructions", lua_tostring(L, -1),
                    meter.unit, (lua_Integer)meter.budget);
    lua_error(L);
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

/* f(u, p) protected, with a fresh budget for u's script. */
static int run(lua_State *L, lua_CFunction f, unit *u, void *p, int nresults) {
    meter.unit = u->name;
    meter.used = 0;
    lua_sethook(L, meter_hook, LUA_MASKCOUNT, meter.grain); /* also leaves the every-instruction mode */
    lua_pushcfunction(L, f);
    lua_pushlightuserdata(L, u);
    lua_pushlightuserdata(L, p);
    return lua_pcall(L, 2, nresults, 0);
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

/* Protected: runs the text (text only: a binary chunk could crash the host) and keeps the
 * table it returns as the unit's script. */
static int load_script(lua_State *L) {
    unit *u = lua_touserdata(L, 1);
    const char *text = lua_touserdata(L, 2);
    char chunkname[80];
    snprintf(chunkname, sizeof chunkname, "@%s", u->script);
    if (luaL_loadbufferx(L, text, strlen(text), chunkname, "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, 1);
    if (!lua_istable(L, -1)) return luaL_error(L, "must return a table, not a %s", luaL_typename(L, -1));
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    luaL_unref(L, LUA_REGISTRYINDEX, u->ref);
    u->ref = ref;
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
    lua_rawgeti(L, LUA_REGISTRYINDEX, world_ref);
    lua_pushinteger(L, u->gx);
    lua_pushinteger(L, u->gy);
    lua_call(L, 5, 3);
    return 3;
}

/* One tick for one unit: ask its script for options, find, report. */
static void step(lua_State *L, unit *u, int tick) {
    if (u->ref == LUA_NOREF) return;
    if (run(L, choose_route, u, NULL, 3) != LUA_OK) {
        printf("tick %d unit %s script %s error %s\n", tick, u->name, u->script, error_text(L));
        lua_pop(L, 1);
        return;
    }
    printf("tick %d unit %s script %s cost %.3f length %d danger %d\n", tick, u->name, u->script,
           lua_tonumber(L, -3), (int)lua_tointeger(L, -2), (int)lua_tointeger(L, -1));
    lua_pop(L, 3);
}

/* The world, built in Lua from the host's arguments: the grid, a danger stamp in the middle,
 * and route(), which runs a unit's script and its query; then what scripts may not have (the
 * debug library, __gc: see the top). A __gc added to a metatable after setmetatable is never
 * called, so checking it there is enough. */
static const char *WORLD =
    "local map = ...\n"
    "local astar = require('astar')\n"
    "local grid = astar.load_movingai(map)\n"
    "local w, h = grid:size()\n"
    "local danger = astar.influence(w, h)\n"
    "danger:stamp(math.floor(w / 2), math.floor(h / 2), math.max(2, math.floor(w / 5)), 20, 'constant')\n"
    "local world = { grid = grid, danger = danger, width = w, height = h }\n"
    "local function route(options, unit, world, gx, gy)\n"
    "  local opts = options(unit, world) or {}\n"
    "  local path, info = grid:find(unit.x, unit.y, gx, gy, opts)\n"
    "  if not path then return -1, 0, 0 end\n"
    "  local hot = 0\n"
    "  for _, p in ipairs(path) do if danger:get(p.x, p.y) > 0 then hot = hot + 1 end end\n"
    "  return info.cost, #path, hot\n"
    "end\n"
    "debug, package.loaded.debug = nil, nil\n"
    "local setmetatable_ = setmetatable\n"
    "function setmetatable(t, mt)\n"
    "  if type(mt) == 'table' and rawget(mt, '__gc') ~= nil then\n"
    "    error('setmetatable: scripts may not set __gc', 2)\n"
    "  end\n"
    "  return setmetatable_(t, mt)\n"
    "end\n"
    "return world, route\n";

int main(int argc, char **argv) {
    meter.budget = 3000000;
    if (argc > 2 && strcmp(argv[1], "--budget") == 0) {
        char *end;
        meter.budget = strtoll(argv[2], &end, 10);
        if (*end || meter.budget <= 0) meter.budget = -1;
        argc -= 2;
        argv += 2;
    }
    if (argc < 3 || meter.budget <= 0) {
        fprintf(stderr, "usage: astar_host [--budget N] MAP SCRIPTS_DIR [LUA_DIR]\n");
        return 2;
    }
    meter.grain = meter.budget < 1000 ? (int)meter.budget : 1000;
    const char *map = argv[1], *dir = argv[2], *luadir = argc > 3 ? argv[3] : "lua";
    setvbuf(stdout, NULL, _IOLBF, 0); /* a driver reads the answers line by line */
    lua_State *L = luaL_newstate();
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
    if (lua_pcall(L, 1, 2, 0) != LUA_OK) {
        fprintf(stderr, "host: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    route_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getfield(L, -1, "width");
    lua_getfield(L, -2, "height");
    int w = (int)lua_tointeger(L, -2), h = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
    world_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    /* Two units crossing the map, one script each. */
    unit units[2] = {
        {"scout", "scout.lua", NULL, LUA_NOREF, 1, 1, w, h},
        {"runner", "runner.lua", NULL, LUA_NOREF, 1, h, w, 1},
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
