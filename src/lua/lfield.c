/*
 * lfield.c -- astar.Field: grid:distance_field (every cell's cost to the nearest goal) and
 * grid:range (every cell a unit reaches within a budget), and the field's methods.
 */
#include <math.h>
#include <stdlib.h>

#include "lbinding.h"

typedef struct lfield {
    lobject base;
    astar_field *field;
} lfield;

static lfield *check_field(lua_State *L, int arg) {
    lfield *f = check_open(L, arg, FIELD_MT);
    if (f->base.readers > 0) luaL_error(L, "astar.Field is being built");
    return f;
}

/* A field being built is marked: object_gc refuses it. */
static void field_free(lua_State *L, void *o) {
    lfield *f = o;
    (void)L;
    astar_field_free(f->field);
    f->field = NULL;
}

static int field_size(lua_State *L) { return push_size(L, FIELD_MT); }

/* A field's info table: status ("done" or "limit"), expansions, reached. */
void push_field_info(lua_State *L, astar_status st, const astar_result *res, const astar_field *f) {
    lua_createtable(L, 0, 4);
    lua_pushstring(L, st == ASTAR_OK ? "done" : "limit");
    lua_setfield(L, -2, "status");
    lua_pushinteger(L, (lua_Integer)res->expansions);
    lua_setfield(L, -2, "expansions");
    lua_pushinteger(L, astar_field_reached(f));
    lua_setfield(L, -2, "reached");
}

/* Runs inside lua_pcall, like find_run: the build, then its info table. */
int field_run(lua_State *L) {
    find_ctx *c = lua_touserdata(L, RUN_CTX);
    c->run.L = L;
    astar_result res;
    astar_status st = astar_field_build(c->field, c->run.ws->search, c->grid->grid, &c->q, c->cells,
                                        c->ncells, c->kind, &res);
    if (st == ASTAR_ENOMEM || st == ASTAR_ESTOPPED) return runner_status_error(L, st);
    if (st != ASTAR_OK && st != ASTAR_LIMIT)
        return luaL_error(L, "field failed: %s", astar_status_name(st));
    push_field_info(L, st, &res, c->field);
    lua_pushnil(L);
    return 2;
}

/*
 * A new field for c's grid, left on the stack. Made before the query is resolved: making a
 * userdata may run the collector, and so a finalizer, which is Lua code that may close what
 * the resolve checked.
 */
void new_field(lua_State *L, find_ctx *c) {
    astar_alloc a;
    lfield *f = new_sized_object(L, sizeof *f, FIELD_MT, c->grid->base.width, c->grid->base.height, &a);
    f->field = astar_field_new(f->base.width, f->base.height, &a);
    if (!f->field) status_error(L, astar_last_status());
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

/* The goals at arg of a distance field c (distance_field, field_job), as node ids in a
 * userdata left on the stack: its slot. */
int read_goals(lua_State *L, find_ctx *c, int arg) {
    const lgrid *g = c->grid;
    int32_t n;
    int32_t *ids = read_points(L, arg, g->base.width, g->base.height, "goal", "goals", &n);
    c->cells = ids;
    c->ncells = n;
    c->kind = ASTAR_FIELD_TO;
    c->q.sx = c->q.gx = ids[0] % g->base.width; /* claim_radius is measured from here */
    c->q.sy = c->q.gy = ids[0] / g->base.width;
    return lua_gettop(L);
}

/*
 * grid:distance_field(goals [, opts]) -> field, info: every cell's cost to the nearest
 * goal and its next step there, from one search.
 */
int grid_distance_field(lua_State *L) {
    find_ctx ctx;
    find_ctx *c = &ctx;
    begin_grid_query(L, c);
    lua_settop(L, 3);
    read_goals(L, c, 2);
    query_args a;
    read_options(L, 3, IN_FIELD, "distance_field", &a, &c->q);
    new_field(L, c);
    int field = lua_gettop(L);
    resolve_grid_query(L, c, &a);
    build_field(L, c, field);
    return 2;
}

/* Reached cells of a field in order of cost (ties: node id), as {x=, y=, cost=}. */
typedef struct cost_cell {
    double cost;
    int32_t id;
} cost_cell;

static int compare_by_cost(const void *a, const void *b) {
    const cost_cell *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The cells of the field at idx. Every userdata or table made may run a finalizer that closes
 * the field: it is read only before those, into scratch, and checked again after. Work in
 * proportion to the cells reached, unless the field is dense (astar_field_list). */
static void push_cells(lua_State *L, int idx) {
    lfield *f = check_field(L, idx);
    int32_t w = f->base.width, n = astar_field_reached(f->field);
    size_t room = (size_t)(n > 0 ? n : 1);
    cost_cell *cells = astar_newuserdata_plain(L, room * (sizeof *cells + sizeof(double) + sizeof(int32_t)));
    double *dist = (double *)(cells + room);
    int32_t *ids = (int32_t *)(dist + room);
    f = check_field(L, idx);
    if (astar_field_list(f->field, ids, dist) != ASTAR_OK) work_limit_error(L); /* a read: nothing to undo */
    for (int32_t i = 0; i < n; i++) cells[i] = (cost_cell){dist[i], ids[i]};
    qsort(cells, (size_t)n, sizeof *cells, compare_by_cost);
    lua_createtable(L, n, 0);
    for (int32_t i = 0; i < n; i++) {
        push_point(L, cells[i].id, w);
        lua_pushnumber(L, cells[i].cost);
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
int grid_range(lua_State *L) {
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
    int32_t x, y;
    check_xy(L, 2, &f->base, &x, &y);
    double d = astar_field_distance(f->field, x, y);
    if (d == HUGE_VAL) return lua_pushnil(L), 1;
    lua_pushnumber(L, d);
    return 1;
}

static int field_next(lua_State *L) {
    lfield *f = check_field(L, 1);
    int32_t x, y;
    check_xy(L, 2, &f->base, &x, &y);
    int32_t nx, ny;
    if (astar_field_next(f->field, x, y, &nx, &ny) != 1) return lua_pushnil(L), 1;
    lua_pushinteger(L, nx + 1);
    lua_pushinteger(L, ny + 1);
    return 2;
}

/* field:path(x, y): in walking order, to the nearest goal (TO) or from the start (FROM). */
static int field_path(lua_State *L) {
    lfield *f = check_field(L, 1);
    int32_t x, y;
    check_xy(L, 2, &f->base, &x, &y);
    if (astar_field_distance(f->field, x, y) == HUGE_VAL) return lua_pushnil(L), 1;
    /* The way into scratch first: the tables made below may run a finalizer that closes f. */
    int32_t n = 1, nx, ny;
    for (int32_t cx = x, cy = y; astar_field_next(f->field, cx, cy, &nx, &ny) == 1; cx = nx, cy = ny) n++;
    /* A unit of the work limit per cell of the way (the tables it takes): a read. */
    if (astar_progress_work((uint64_t)n) != ASTAR_OK) return work_limit_error(L);
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

static const luaL_Reg FIELD_METHODS[] = {
    {"size", field_size},   {"distance", field_distance}, {"next", field_next},
    {"path", field_path},   {"cells", field_cells},       {NULL, NULL}};

const lclass FIELD_CLASS = {
    .name = FIELD_MT, .what = "field", .methods = FIELD_METHODS,
    .field = size_field, .free = field_free};
