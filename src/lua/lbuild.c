/*
 * lbuild.c -- astar.Build: grid:build_landmarks and grid:build_hierarchy, builds run in steps (build:step)
 * that a loading screen or a frame budget spreads over frames, on threads if asked.
 */
#include "lbinding.h"

/*
 * Its uservalue holds the grid (the build writes the tables into it when it completes), so
 * the grid is never collected first; a grid closed by hand (__close) is refused at the next
 * step. The core build keeps a copy of the grid's allocator and touches nothing of the grid
 * when freed, whatever the order of collection.
 */
typedef struct lbuild {
    lobject base;
    astar_build *build;
    lgrid *grid;
    int32_t k;               /* the landmarks, or the cluster size */
    bool hierarchy;
    bool prepare;            /* grid:prepare({build = true}): the lazy tables */
} lbuild;

static void build_free(lua_State *L, void *o) {
    (void)L;
    lbuild *b = o;
    astar_build_free(b->build);
    b->build = NULL;
}

static int build_tostring(lua_State *L) {
    lbuild *b = luaL_checkudata(L, 1, BUILD_MT);
    if (b->base.freed) lua_pushliteral(L, "astar.Build (freed)");
    else if (b->prepare) lua_pushfstring(L, "astar.Build(prepare, %d%%)", (int)(astar_build_progress(b->build) * 100.0));
    else lua_pushfstring(L, "astar.Build(%s %d, %d%%)", b->hierarchy ? "hierarchy" : "landmarks", (int)b->k,
                         (int)(astar_build_progress(b->build) * 100.0));
    return 1;
}

/* The build object on the grid at 1 (kept in its uservalue): its core build still to set. */
static lbuild *new_build(lua_State *L, lgrid *g, int32_t k, bool hierarchy) {
    lua_settop(L, 1);
    lbuild *b = new_object(L, sizeof *b, BUILD_MT);
    b->base.width = g->base.width;
    b->base.height = g->base.height;
    b->grid = g;
    b->k = k;
    b->hierarchy = hierarchy;
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    astar_setuservalue(L, 2);
    return b;
}

/* The cluster size at arg: 2..ASTAR_HIER_MAX_SIZE, or 0 (the hierarchy dropped). */
static int32_t check_cluster_size(lua_State *L, int arg) {
    lua_Integer size = check_integer(L, arg, "cluster_size", 0, ASTAR_HIER_MAX_SIZE);
    if (size == 1) arg_error_fmt(L, arg, "cluster_size must be 0 (drop) or 2..%d, got 1", ASTAR_HIER_MAX_SIZE);
    return (int32_t)size;
}

/*
 * The arguments of a build of landmarks or of a hierarchy (grid:build_landmarks,
 * build_hierarchy, landmarks(k), hierarchy(size)): k or the cluster size at 2 and the
 * threads at 3 read, then the grid at 1 resolved (their __index may close it), and its mode
 * checked for a hierarchy.
 */
static lgrid *read_build_args(lua_State *L, bool hierarchy, int32_t *k, int *threads) {
    check_object(L, 1, GRID_MT);
    *k = hierarchy ? check_cluster_size(L, 2) : (int32_t)check_integer(L, 2, "k", 0, ASTAR_MAX_LANDMARKS);
    *threads = read_threads(L, 3, 1);
    lgrid *g = check_grid(L, 1);
    if (hierarchy && *k > 0) check_hierarchy_mode(L, g->grid);
    return g;
}

/* A core build of k landmarks or of a hierarchy of clusters k on `threads` threads, or NULL
 * (*st says why). */
static astar_build *core_build(astar_grid *grid, int32_t k, bool hierarchy, int threads, astar_status *st) {
    return hierarchy ? astar_build_hierarchy(grid, k, threads, st) : astar_build_landmarks(grid, k, threads, st);
}

/* grid:landmarks(k [, {threads = n}]) and grid:hierarchy(size [, {threads = n}]): the tables
 * built now, on this thread, or by a build on n threads run to its end. */
void build_now(lua_State *L, bool hierarchy) {
    int32_t k;
    int threads;
    lgrid *g = read_build_args(L, hierarchy, &k, &threads);
    check_writable(L, &g->base, "grid");
    astar_status st = ASTAR_ENOMEM;
    if (threads == 1) {
        st = hierarchy ? astar_grid_hierarchy(g->grid, k) : astar_grid_landmarks(g->grid, k);
    } else {
        astar_build *b = core_build(g->grid, k, hierarchy, threads, &st);
        st = b ? astar_build_step(b, UINT64_MAX, NULL) : st;
        astar_build_free(b);
    }
    if (st != ASTAR_OK) status_error(L, st);
}

/* An astar.Build of k landmarks, or of a hierarchy of clusters k (0: the tables dropped). */
static int push_build(lua_State *L, bool hierarchy) {
    int32_t k;
    int threads;
    lgrid *g = read_build_args(L, hierarchy, &k, &threads);
    lbuild *b = new_build(L, g, k, hierarchy);
    check_grid(L, 1); /* again: making the build may have run a finalizer */
    astar_status st;
    b->build = core_build(g->grid, k, hierarchy, threads, &st);
    if (!b->build) return no_memory(L); /* the arguments were checked: nothing else fails */
    return 1;
}

/* grid:build_landmarks(k [, {threads = n}]) -> a build of what grid:landmarks(k) builds */
int grid_build_landmarks(lua_State *L) { return push_build(L, false); }

/* grid:build_hierarchy(cluster_size [, {threads = n}]) -> a build of what grid:hierarchy(size) builds */
int grid_build_hierarchy(lua_State *L) { return push_build(L, true); }

/* The most workspaces grid:prepare makes ready: each holds 36 bytes a cell. */
#define PREPARE_MAX_WORKSPACES 64

static const char *const PREPARE_OPTIONS[] = {"workspaces", "hierarchy", "diagonal", "build", NULL};

/*
 * grid:prepare([{workspaces = n, hierarchy = true | size, diagonal = mode, build = true}]):
 * the lazy tables the grid's queries would build on first use, built now (astar_grid_prepare),
 * n (default 1) workspaces of its pool made and ready (astar_search_prepare), the hierarchy a hierarchical
 * query reads (true: the size such a query builds when there is none); with build = true, an
 * astar.Build that makes the tables in steps (the workspaces are made at the call).
 */
int grid_prepare(lua_State *L) {
    check_object(L, 1, GRID_MT); /* resolved once the options are read: their __index may close it */
    if (!lua_isnoneornil(L, 2) && lua_type(L, 2) != LUA_TTABLE) type_error(L, 2, "table or nil");
    int at = read_fields(L, 2, PREPARE_OPTIONS);
    lua_Number n = 1; /* workspaces: the one every query takes first */
    if (!lua_isnil(L, at) && !test_integer(L, at, 0, PREPARE_MAX_WORKSPACES, &n))
        arg_error_fmt(L, 2, "option 'workspaces' must be an integer in 0..%d, got %s", PREPARE_MAX_WORKSPACES,
                      value_str(L, at));
    int workspaces = (int)n;
    int32_t size = 0;
    if (lua_type(L, at + 1) == LUA_TBOOLEAN) {
        size = lua_toboolean(L, at + 1) ? HIERARCHY_DEFAULT_SIZE : 0;
    } else if (!lua_isnil(L, at + 1)) {
        if (!test_integer(L, at + 1, 2, ASTAR_HIER_MAX_SIZE, &n))
            arg_error_fmt(L, 2, "option 'hierarchy' must be a boolean or a cluster size in 2..%d, got %s",
                          ASTAR_HIER_MAX_SIZE, value_str(L, at + 1));
        size = (int32_t)n;
    }
    astar_diagonal mode = ASTAR_DIAG_DEFAULT;
    if (!lua_isnil(L, at + 2)) {
        int i = name_index(L, at + 2, DIAGONAL_NAMES);
        if (i < 0)
            arg_error_fmt(L, 2, "option 'diagonal' must be " DIAGONAL_RULE ", got %s", value_str(L, at + 2));
        mode = (astar_diagonal)i;
    }
    if (!lua_isnil(L, at + 3) && lua_type(L, at + 3) != LUA_TBOOLEAN)
        arg_error_fmt(L, 2, "option 'build' must be a boolean, got %s", value_str(L, at + 3));
    bool build = lua_toboolean(L, at + 3);
    if (build && size > 0)
        arg_error_fmt(L, 2, "option 'hierarchy' cannot be used with 'build' (grid:build_hierarchy is its build)");
    lgrid *g = check_grid(L, 1);
    if (mode != ASTAR_DIAG_DEFAULT && astar_grid_diagonal(g->grid) == ASTAR_DIAG_HEX)
        arg_error_fmt(L, 2, "option 'diagonal': a hex grid has no diagonal modes");
    if (size > 0) check_hierarchy_mode(L, g->grid);
    check_writable(L, &g->base, "grid");
    astar_status st = ASTAR_OK;
    if (!build) {
        st = astar_grid_prepare(g->grid, mode);
        if (st == ASTAR_OK && size > 0) st = astar_grid_prepare_hierarchy(g->grid, size);
        if (st != ASTAR_OK) return status_error(L, st);
    }
    /* After the tables: a workspace copies the dead-end areas' bits. One a job in flight holds
     * (busy) is left alone: that copy is the job's view, with its own patches and marks. */
    workspace *w = pool_reserve(L, &g->pool, &g->base, workspaces);
    for (int i = 0; i < workspaces && st == ASTAR_OK; i++, w = w->next)
        if (!w->busy) st = astar_search_prepare(w->search, g->grid, mode);
    if (st != ASTAR_OK) return status_error(L, st);
    if (!build) return 0;
    lbuild *b = new_build(L, g, 0, false);
    b->prepare = true;
    check_grid(L, 1); /* again: making the build may have run a finalizer */
    b->build = astar_build_prepare(g->grid, mode, &st);
    if (!b->build) return no_memory(L); /* the arguments were checked: nothing else fails */
    return 1;
}

/* What a step may touch: its own build open, its grid open and read by no running query. */
static lbuild *check_build(lua_State *L) {
    lbuild *b = check_open(L, 1, BUILD_MT);
    if (b->grid->base.freed) luaL_error(L, "astar.Build: its grid has been freed");
    return b;
}

/* build:step([n]) -> "running" | "done", and the work this step did (at most n units: a node
 * expanded by a Dijkstra, or 8 cells of a pass over the grid) */
static int build_step(lua_State *L) {
    const lua_Integer most = (lua_Integer)1 << 53; /* every integer up to it is a double */
    lbuild *b = check_build(L);
    lua_Integer n = lua_isnoneornil(L, 2) ? most : check_integer(L, 2, "n", -most, most);
    if (n < 1) arg_error_fmt(L, 2, "n must be a positive integer, got %s", value_str(L, 2));
    /* The step that completes installs the tables: a write to the grid. */
    check_writable(L, &b->grid->base, "grid");
    uint64_t used = 0;
    astar_status st = astar_build_step(b->build, n == most ? UINT64_MAX : (uint64_t)n, &used);
    /* ENOMEM: the work is dropped, the next step starts over; ESTOPPED: it goes on from here */
    if (st == ASTAR_ENOMEM || st == ASTAR_ESTOPPED) return status_error(L, st);
    if (st != ASTAR_OK && st != ASTAR_RUNNING) return luaL_error(L, "build failed: %s", astar_status_name(st));
    lua_pushstring(L, st == ASTAR_OK ? "done" : "running");
    lua_pushinteger(L, (lua_Integer)used);
    return 2;
}

/* build:finish() -> what grid:landmarks() (or grid:hierarchy()) returns after running the
 * build to the end */
static int build_finish(lua_State *L) {
    lua_settop(L, 1);
    lbuild *b = check_build(L);
    check_writable(L, &b->grid->base, "grid");
    astar_status st = astar_build_step(b->build, UINT64_MAX, NULL);
    if (st == ASTAR_ENOMEM || st == ASTAR_ESTOPPED) return status_error(L, st);
    if (st != ASTAR_OK) return luaL_error(L, "build failed: %s", astar_status_name(st));
    if (b->prepare) return 0;
    if (b->hierarchy) return push_hierarchy(L, b->grid->grid);
    lua_pushinteger(L, astar_grid_landmark_count(b->grid->grid));
    lua_pushinteger(L, (lua_Integer)astar_grid_landmark_bytes(b->grid->grid));
    return 2;
}

/* The core build of the open build at 1 (its getters: progress, done, status, restarts, threads). */
static astar_build *open_build(lua_State *L) { return ((lbuild *)check_open(L, 1, BUILD_MT))->build; }

static int build_progress(lua_State *L) { return lua_pushnumber(L, astar_build_progress(open_build(L))), 1; }
static int build_done(lua_State *L) { return lua_pushboolean(L, astar_build_progress(open_build(L)) == 1.0), 1; }
static int build_status(lua_State *L) {
    return lua_pushstring(L, astar_build_progress(open_build(L)) == 1.0 ? "done" : "running"), 1;
}
static int build_restarts(lua_State *L) { return lua_pushinteger(L, astar_build_restarts(open_build(L))), 1; }
static int build_threads(lua_State *L) { return lua_pushinteger(L, astar_build_threads(open_build(L))), 1; }

static int build_size(lua_State *L) { return push_size(L, BUILD_MT); }

static const luaL_Reg BUILD_METHODS[] = {
    {"step", build_step}, {"finish", build_finish}, {"progress", build_progress},
    {"done", build_done}, {"status", build_status}, {"restarts", build_restarts},
    {"threads", build_threads}, {"size", build_size}, {NULL, NULL}};

const lclass BUILD_CLASS = {
    .name = BUILD_MT, .what = "build", .methods = BUILD_METHODS, .queries = NULL,
    .tostring = build_tostring, .field = size_field, .free = build_free};
