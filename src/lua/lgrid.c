/*
 * lgrid.c -- astar.Grid: astar.grid, the grid's cells, landmarks and rows, and its class,
 * whose methods include the queries of lfind.c, ljob.c and lfield.c.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "lbinding.h"

/* The modes a user may name (DIAGONAL_RULE); a grid's diagonal field also reads "hex"
 * (ASTAR_DIAG_HEX). */
const char *const DIAGONAL_NAMES[] = {"never", "always", "one_walkable", "no_corner_cut", NULL};
static const char *const MODE_NAMES[] = {"never", "always", "one_walkable", "no_corner_cut", "hex"};

lgrid *check_grid(lua_State *L, int arg) { return check_open(L, arg, GRID_MT); }

static void grid_free(lua_State *L, void *o) {
    lgrid *g = o;
    free_pool(L, &g->pool);
    astar_many_free(g->many);
    g->many = NULL;
    astar_grid_free(g->grid);
    g->grid = NULL;
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

/* grid:version() -> the count of terrain changes (info.version of an answer computed now):
 * what check_path's option 'since' takes. */
static int grid_version(lua_State *L) {
    push_version(L, astar_grid_version(check_grid(L, 1)->grid));
    return 1;
}

/* Through the default allocator, not Lua's: the workspace's per-cell arrays are then the
 * system's zeroed pages (core.h's astar_pages_new), committed as searches touch them, so that
 * a short search costs the pages it touches, not 16 bytes a cell and a pass over them. */
static void *make_grid_search(const lobject *grid, const astar_alloc *a) {
    (void)a;
    return astar_search_new(grid->width, grid->height, NULL);
}

static void drop_grid_search(void *search) { astar_search_free(search); }

static const pool_kind GRID_SEARCHES = {make_grid_search, drop_grid_search};

/* A new grid userdata, its core grid still to be made (and its size to be set). */
lgrid *new_grid(lua_State *L) {
    lgrid *g = new_object(L, sizeof *g, GRID_MT);
    g->pool.kind = &GRID_SEARCHES;
    return g;
}

static const char *const GRID_OPTIONS[] = {"diagonal", "cost", "topology", NULL};

int l_grid(lua_State *L) {
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
    if (!g->grid) return status_error(L, astar_last_status());
    g->base.width = w;
    g->base.height = h;
    if (cost != 1.0) {
        astar_status st = astar_grid_fill(g->grid, cost);
        if (st != ASTAR_OK) return status_error(L, st); /* the new grid is collected */
    }
    return 1;
}

static int grid_set_cost(lua_State *L) {
    int32_t x, y;
    lgrid *g = check_cell(L, GRID_MT, &x, &y);
    double c = check_cost(L, 4);
    check_writable(L, &g->base, "grid");
    astar_grid_set_cost(g->grid, x, y, c);
    return 0;
}

static int grid_get_cost(lua_State *L) {
    int32_t x, y;
    lgrid *g = check_cell(L, GRID_MT, &x, &y);
    push_cost(L, astar_grid_get_cost(g->grid, x, y));
    return 1;
}

/* grid:set_class(x, y, c): a class 0..255, which a query's `classes` table weighs or blocks. */
static int grid_set_class(lua_State *L) {
    int32_t x, y;
    lgrid *g = check_cell(L, GRID_MT, &x, &y);
    int c = (int)check_integer(L, 4, "class", 0, 255);
    check_writable(L, &g->base, "grid");
    if (astar_grid_set_class(g->grid, x, y, c) != ASTAR_OK) return no_memory(L);
    return 0;
}

static int grid_get_class(lua_State *L) {
    int32_t x, y;
    lgrid *g = check_cell(L, GRID_MT, &x, &y);
    lua_pushinteger(L, astar_grid_get_class(g->grid, x, y));
    return 1;
}

static int grid_set_blocked(lua_State *L) {
    int32_t x, y;
    lgrid *g = check_cell(L, GRID_MT, &x, &y);
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
    int32_t x, y;
    lgrid *g = check_cell(L, GRID_MT, &x, &y);
    lua_pushboolean(L, astar_grid_get_cost(g->grid, x, y) != INFINITY);
    return 1;
}

static int grid_component(lua_State *L) {
    int32_t x, y;
    lgrid *g = check_cell(L, GRID_MT, &x, &y);
    int32_t id;
    astar_status st = astar_grid_component(g->grid, x, y, &id);
    if (st != ASTAR_OK) return status_error(L, st);
    if (id < 0)
        lua_pushboolean(L, 0);
    else
        lua_pushinteger(L, (lua_Integer)id + 1);
    return 1;
}

/* grid:dead_end(x, y): the innermost dead-end area holding the cell (an integer >= 1) and its
 * gateway's x, y; false when the cell is in none (astar_grid_dead_end). */
static int grid_dead_end(lua_State *L) {
    int32_t x, y;
    lgrid *g = check_cell(L, GRID_MT, &x, &y);
    int32_t area, gateway;
    astar_status st = astar_grid_dead_end(g->grid, x, y, &area, &gateway);
    if (st != ASTAR_OK) return status_error(L, st);
    if (area < 0) {
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_pushinteger(L, (lua_Integer)area + 1);
    lua_pushinteger(L, (lua_Integer)(gateway % g->base.width) + 1);
    lua_pushinteger(L, (lua_Integer)(gateway / g->base.width) + 1);
    return 3;
}

static int grid_reachable(lua_State *L) {
    int32_t sx, sy, gx, gy;
    lgrid *g = check_cell(L, GRID_MT, &sx, &sy);
    check_xy(L, 4, &g->base, &gx, &gy);
    int yes;
    astar_status st = astar_grid_reachable(g->grid, sx, sy, gx, gy, &yes);
    if (st != ASTAR_OK) return status_error(L, st);
    lua_pushboolean(L, yes);
    return 1;
}

/*
 * grid:landmarks(k [, {threads = n}]): builds k landmarks (0 drops them; see
 * astar_grid_landmarks; with threads, the build of grid:build_landmarks run to the end), and
 * grid:landmarks() asks; both return how many queries use now (0 once stale) and the bytes
 * they hold. The grid is resolved after its options are read (their __index may close it).
 */
static int grid_landmarks(lua_State *L) {
    check_object(L, 1, GRID_MT);
    if (!lua_isnoneornil(L, 2)) build_now(L, false);
    lgrid *g = check_grid(L, 1);
    lua_pushinteger(L, astar_grid_landmark_count(g->grid));
    lua_pushinteger(L, (lua_Integer)astar_grid_landmark_bytes(g->grid));
    return 2;
}

/* The hierarchy's figures as a table, or nil when there is none. */
int push_hierarchy(lua_State *L, astar_grid *grid) {
    astar_hierarchy_stats hs;
    astar_grid_hierarchy_stats(grid, &hs);
    if (!hs.cluster_size) return lua_pushnil(L), 1;
    lua_createtable(L, 0, 7);
    lua_pushinteger(L, hs.cluster_size);
    lua_setfield(L, -2, "cluster_size");
    lua_pushinteger(L, hs.clusters);
    lua_setfield(L, -2, "clusters");
    lua_pushinteger(L, (lua_Integer)hs.entrances);
    lua_setfield(L, -2, "entrances");
    lua_pushinteger(L, (lua_Integer)hs.edges);
    lua_setfield(L, -2, "edges");
    lua_pushinteger(L, hs.dirty);
    lua_setfield(L, -2, "dirty");
    lua_pushinteger(L, (lua_Integer)hs.bytes);
    lua_setfield(L, -2, "bytes");
    lua_pushstring(L, MODE_NAMES[hs.diagonal]);
    lua_setfield(L, -2, "diagonal");
    return 1;
}

/*
 * grid:hierarchy(cluster_size [, {threads = n}]): builds the two-tier search's clusters
 * (2..ASTAR_HIER_MAX_SIZE; 0 drops them; see astar_grid_hierarchy) and returns their figures;
 * grid:hierarchy() only returns them (nil when there is none). The grid is resolved after its
 * options are read, as grid:landmarks does.
 */
static int grid_hierarchy(lua_State *L) {
    check_object(L, 1, GRID_MT);
    if (!lua_isnoneornil(L, 2)) build_now(L, true);
    return push_hierarchy(L, check_grid(L, 1)->grid);
}

void check_hierarchy_mode(lua_State *L, astar_grid *grid) {
    astar_diagonal mode = astar_grid_diagonal(grid);
    if (mode == ASTAR_DIAG_ALWAYS || mode == ASTAR_DIAG_HEX)
        luaL_error(L, "hierarchy: a grid whose diagonal mode is \"%s\" has none (its moves "
                      "cross cluster corners, which the entrances do not model); use \"never\", "
                      "\"one_walkable\" or \"no_corner_cut\"", MODE_NAMES[mode]);
}

/*
 * grid:prepare_jumps([diagonal]): builds now the table jump point search reads (JPS+), which
 * the first jumping query would build, for the grid's mode or the one named ("no_corner_cut"
 * or "never"); returns the bytes the grid's tables take.
 */
static int grid_prepare_jumps(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    astar_diagonal mode = ASTAR_DIAG_DEFAULT;
    if (!lua_isnoneornil(L, 2)) {
        static const char *const JUMP_MODES[] = {"no_corner_cut", "never", NULL};
        int i = name_index(L, 2, JUMP_MODES);
        if (i < 0)
            arg_error_fmt(L, 2, "diagonal must be \"no_corner_cut\" or \"never\" (the modes jump point "
                                "search runs under), got %s", value_str(L, 2));
        mode = i == 0 ? ASTAR_DIAG_NO_CORNER_CUT : ASTAR_DIAG_NEVER;
    }
    check_writable(L, &g->base, "grid");
    astar_status st = astar_grid_prepare_jumps(g->grid, mode);
    if (st == ASTAR_EINVAL)
        return luaL_error(L, "prepare_jumps: jump point search does not run on a %s grid "
                             "(name \"no_corner_cut\" or \"never\")",
                          MODE_NAMES[astar_grid_diagonal(g->grid)]);
    if (st != ASTAR_OK) return status_error(L, st);
    lua_pushinteger(L, (lua_Integer)astar_grid_jump_bytes(g->grid));
    return 1;
}

static int grid_fill(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    double c = check_cost(L, 2);
    check_writable(L, &g->base, "grid");
    astar_status st = astar_grid_fill(g->grid, c);
    if (st != ASTAR_OK) return status_error(L, st);
    return 0;
}

/* The most cells grid:load changes one by one (see grid_load). */
#define LOAD_CELL_BY_CELL 256

/* grid:load(rows [, legend]): every row checked before any cell changes. A legend entry is a
 * cost, or { cost = c, class = k } (read raw: no metamethod runs; k default 0), which sets the
 * class too; when some entry is one, every cell is given its entry's class (0 where none is
 * said). */
static int grid_load(lua_State *L) {
    lgrid *g = check_grid(L, 1);
    int32_t w = g->base.width, h = g->base.height;
    luaL_checktype(L, 2, LUA_TTABLE);
    double legend[256];
    bool known[256] = {false};
    uint8_t classes[256] = {0};
    bool classed = false;
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
            unsigned char ch = (unsigned char)k[0];
            if (lua_type(L, -1) == LUA_TTABLE) { /* { cost = c, class = k } */
                lua_pushliteral(L, "class");
                lua_rawget(L, -2);
                lua_Number cls = 0; /* (none said: 0) */
                if (!lua_isnil(L, -1) && !test_integer(L, -1, 0, 255, &cls))
                    arg_error_fmt(L, 3, "legend['%s'].class must be an integer in 0..255, got %s", k, value_str(L, -1));
                lua_pop(L, 1);
                classes[ch] = (uint8_t)cls;
                classed = true;
                lua_pushliteral(L, "cost");
                lua_rawget(L, -2);
                lua_replace(L, -2); /* the entry's cost where the entry was */
            }
            if (!to_cost(L, -1, &c))
                arg_error_fmt(L, 3, "legend['%s'] must be a number in (0, " MAX_VALUE_STR "], false or "
                              "{ cost = c, class = k }, got %s",
                              k, value_str(L, -1));
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
    /* The classes first: only the first class write can fail (its memory), and then nothing
     * has changed yet. A class write is O(1) and moves no version (astar_grid_set_class). */
    for (int32_t y = 0; classed && y < h; y++) {
        lua_rawgeti(L, 2, y + 1);
        const char *row = lua_tostring(L, -1);
        for (int32_t x = 0; x < w; x++)
            if (astar_grid_set_class(g->grid, x, y, classes[(unsigned char)row[x]]) != ASTAR_OK) return no_memory(L);
        lua_pop(L, 1);
    }
    /* The new costs in one buffer, and how many cells they change. */
    double *costs = astar_newuserdata_plain(L, (size_t)w * (size_t)h * sizeof *costs);
    size_t changed = 0;
    for (int32_t y = 0; y < h; y++) {
        lua_rawgeti(L, 2, y + 1);
        const char *row = lua_tostring(L, -1);
        for (int32_t x = 0; x < w; x++) {
            double c = legend[(unsigned char)row[x]];
            costs[(size_t)y * (size_t)w + (size_t)x] = c;
            changed += astar_grid_get_cost(g->grid, x, y) != c;
        }
        lua_pop(L, 1);
    }
    /* A few doors of a level loaded again: written cell by cell, so that what the grid keeps in
     * step (islands, dead ends, JPS+ tables, landmarks, jobs and builds in flight) follows them
     * as it follows set_cost. Anything more: one bulk write (set_all), which builds the tables
     * again at the write, sets landmarks aside and starts jobs and builds over, instead of a
     * cell-by-cell update (a landmark repair per opened cell) that could cost far more. */
    if (changed > LOAD_CELL_BY_CELL) {
        astar_status st = astar_grid_set_all(g->grid, costs);
        if (st != ASTAR_OK) return status_error(L, st);
        return 0;
    }
    /* A unit per cell, counted before any changes (as astar_grid_set_all counts them). */
    if (astar_progress_work((uint64_t)w * (uint64_t)h) != ASTAR_OK) return work_limit_error(L);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) astar_grid_set_cost(g->grid, x, y, costs[(size_t)y * (size_t)w + (size_t)x]);
    return 0;
}

/*
 * astar.core.smooth(grid, xs, ys, sides) -> kept: astar.smooth on a square grid, for the front
 * (lua/astar/smooth.lua reads the path and the options and gives their meaning): xs, ys the
 * path's cells (1-based columns and rows, read raw), sides the corner rule's walkable sides
 * (0..3); kept the 1-based indices of the waypoints (astar_grid_smooth).
 */
int l_smooth(lua_State *L) {
    lgrid *g = check_object(L, 1, GRID_MT); /* its size is kept when it is closed: checked open below */
    for (int arg = 2; arg <= 3; arg++)
        if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table");
    int sides = (int)check_integer(L, 4, "sides", 0, 3);
    lua_Integer n = list_length(L, 2);
    if (list_length(L, 3) != n) arg_error_fmt(L, 3, "xs and ys must be lists of the same length");
    if (n > INT32_MAX / 16) arg_error_fmt(L, 2, "too many cells");
    size_t room = (size_t)(n > 0 ? n : 1);
    double *limits = astar_newuserdata_plain(L, room * (sizeof *limits + 2 * sizeof(int32_t)));
    int32_t *cells = (int32_t *)(limits + room), *keep = cells + room;
    for (lua_Integer i = 0; i < n; i++) {
        lua_Integer at[2];
        for (int k = 0; k < 2; k++) {
            int isint, size = k ? g->base.height : g->base.width;
            lua_rawgeti(L, 2 + k, i + 1);
            at[k] = astar_tointegerx(L, -1, &isint);
            lua_pop(L, 1);
            if (!isint || at[k] < 1 || at[k] > size)
                arg_error_fmt(L, 2 + k, "entry %d is not a %s of the grid", (int)(i + 1), k ? "row" : "column");
        }
        cells[i] = (int32_t)((at[1] - 1) * g->base.width + at[0] - 1);
    }
    g = check_grid(L, 1); /* then resolve: the scratch above may have run a finalizer */
    int32_t kept = astar_grid_smooth(g->grid, cells, (int32_t)n, sides, limits, keep);
    if (kept < 0) return work_limit_error(L);
    lua_createtable(L, kept, 0);
    for (int32_t i = 0; i < kept; i++) {
        lua_pushinteger(L, (lua_Integer)keep[i] + 1);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static const luaL_Reg GRID_METHODS[] = {
    {"size", grid_size}, {"version", grid_version}, {"set_cost", grid_set_cost}, {"get_cost", grid_get_cost},
    {"set_class", grid_set_class}, {"get_class", grid_get_class},
    {"set_blocked", grid_set_blocked}, {"is_walkable", grid_is_walkable}, {"fill", grid_fill},
    {"load", grid_load}, {"component", grid_component}, {"reachable", grid_reachable},
    {"dead_end", grid_dead_end},
    {"landmarks", grid_landmarks}, {"prepare_jumps", grid_prepare_jumps}, {"search", grid_search},
    {"search_nearest", grid_search_nearest}, {"field_job", grid_field_job},
    {"build_landmarks", grid_build_landmarks},
    {"build_hierarchy", grid_build_hierarchy},
    {"hierarchy", grid_hierarchy}, {"prepare", grid_prepare},
    {NULL, NULL}};
static const lquery_method GRID_QUERIES[] = {
    {"find", grid_find, find_run},
    {"find_nearest", grid_find_nearest, find_run},
    {"find_many", grid_find_many, many_run},
    {"check_path", grid_check_path, check_run},
    {"repair", grid_repair, repair_run},
    {"distance_field", grid_distance_field, field_run},
    {"range", grid_range, field_run},
    {"flee", grid_flee, flee_run},
    {"wander", grid_wander, wander_run},
    {NULL, NULL, NULL}};

const lclass GRID_CLASS = {
    .name = GRID_MT, .what = "grid", .methods = GRID_METHODS, .queries = GRID_QUERIES,
    .field = grid_field, .free = grid_free};
