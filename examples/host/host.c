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
 * Commands on stdin, one per line, answers on stdout:
 *   tick [n]   run n ticks (default 1); each prints, per unit, the route its script chose:
 *              "tick T unit NAME script S cost C length L danger D" (D: cells of the route
 *              where the danger layer is above 0)
 *   quit       exit
 *
 *   astar_host MAP SCRIPTS_DIR [LUA_DIR]   (LUA_DIR: where astar/init.lua lives, default lua)
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
    if (luaL_loadbuffer(L, text, strlen(text), path) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "host: %s: %s (keeping the loaded version)\n", u->script, lua_tostring(L, -1));
        lua_pop(L, 1);
        free(text);
        return;
    }
    if (!lua_istable(L, -1)) {
        fprintf(stderr, "host: %s must return a table (keeping the loaded version)\n", u->script);
        lua_pop(L, 1);
        free(text);
        return;
    }
    luaL_unref(L, LUA_REGISTRYINDEX, u->ref);
    u->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    free(u->source);
    u->source = text;
    printf("loaded %s for %s\n", u->script, u->name);
}

/* One tick for one unit: ask its script for options, find, report. The world table is at
 * the top of the stack. */
static void step(lua_State *L, unit *u, int tick) {
    int world = lua_gettop(L);
    if (u->ref == LUA_NOREF) return;
    lua_getfield(L, world, "route");
    lua_rawgeti(L, LUA_REGISTRYINDEX, u->ref);
    lua_getfield(L, -1, "options");
    lua_remove(L, -2);
    lua_createtable(L, 0, 4);
    lua_pushstring(L, u->name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, u->sx);
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, u->sy);
    lua_setfield(L, -2, "y");
    lua_pushvalue(L, world);
    lua_pushinteger(L, u->gx);
    lua_pushinteger(L, u->gy);
    /* route(options, unit, world, gx, gy) -> cost, length, danger cells (WORLD below) */
    if (lua_pcall(L, 5, 3, 0) != LUA_OK) {
        printf("tick %d unit %s script %s error %s\n", tick, u->name, u->script, lua_tostring(L, -1));
        lua_settop(L, world);
        return;
    }
    printf("tick %d unit %s script %s cost %.3f length %d danger %d\n", tick, u->name, u->script,
           lua_tonumber(L, -3), (int)lua_tointeger(L, -2), (int)lua_tointeger(L, -1));
    lua_settop(L, world);
}

/* The world, built in Lua from the host's arguments: the grid, a danger stamp in the middle,
 * and route(), which runs a unit's script and its query. */
static const char *WORLD =
    "local map = ...\n"
    "local astar = require('astar')\n"
    "local grid = astar.load_movingai(map)\n"
    "local w, h = grid:size()\n"
    "local danger = astar.influence(w, h)\n"
    "danger:stamp(math.floor(w / 2), math.floor(h / 2), math.max(2, math.floor(w / 5)), 20, 'constant')\n"
    "local world = { grid = grid, danger = danger, width = w, height = h }\n"
    "function world.route(options, unit, world, gx, gy)\n"
    "  local opts = options(unit, world) or {}\n"
    "  local path, info = grid:find(unit.x, unit.y, gx, gy, opts)\n"
    "  if not path then return -1, 0, 0 end\n"
    "  local hot = 0\n"
    "  for _, p in ipairs(path) do if danger:get(p.x, p.y) > 0 then hot = hot + 1 end end\n"
    "  return info.cost, #path, hot\n"
    "end\n"
    "return world\n";

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s MAP SCRIPTS_DIR [LUA_DIR]\n", argv[0]);
        return 2;
    }
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

    if (luaL_loadstring(L, WORLD) != LUA_OK) return 1;
    lua_pushstring(L, map);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "host: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    lua_getfield(L, -1, "width");
    lua_getfield(L, -2, "height");
    int w = (int)lua_tointeger(L, -2), h = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);

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
