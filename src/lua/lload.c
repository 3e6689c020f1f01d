/*
 * lload.c -- Moving AI benchmark files: astar.load_movingai (a map: a grid) and
 * astar.load_scen (its scenarios), from a file or a string.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lbinding.h"

/* The Moving AI parsers report failure as text only; a memory failure must still read as one. */
static int parse_error(lua_State *L, const char *name, const char *err) {
    if (strncmp(err, "not enough memory", strlen("not enough memory")) == 0) return no_memory(L);
    return luaL_error(L, "%s: %s", name, err);
}

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
    if (!g->grid) return astar_last_status() == ASTAR_ESTOPPED ? work_limit_error(L) : parse_error(L, name, err);
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

/*
 * A loader: the text is the file named at 1 (string_name NULL), or the string at 1, which
 * messages call by the optional 2 (default string_name); push parses it into its results.
 */
static int load(lua_State *L, int (*push)(lua_State *, const char *, size_t, const char *),
                const char *string_name) {
    size_t len;
    const char *text, *name;
    if (!string_name) {
        name = check_c_string(L, 1, "path");
        text = read_file(L, name, &len);
    } else {
        text = luaL_checklstring(L, 1, &len);
        name = luaL_optstring(L, 2, string_name);
    }
    return push(L, text, len, name);
}

/* astar.load_movingai(path) -> grid, meta */
int l_load_movingai(lua_State *L) { return load(L, push_movingai, NULL); }

/* astar.load_movingai_string(text [, name]) -> grid, meta */
int l_load_movingai_string(lua_State *L) { return load(L, push_movingai, "map"); }

/* astar.load_scen(path) -> { {bucket=, map=, width=, height=, sx=, sy=, gx=, gy=, optimal=}, ... } */
int l_load_scen(lua_State *L) { return load(L, push_scen, NULL); }

/* astar.load_scen_string(text [, name]) */
int l_load_scen_string(lua_State *L) { return load(L, push_scen, "scen"); }
