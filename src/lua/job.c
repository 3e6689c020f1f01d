/*
 * job.c -- astar.Search: grid:search, a find run in steps (job:step) that a game spreads
 * over frames, keeping alive what it reads between them.
 */
#include "binding.h"

/*
 * A resumable search. Its uservalue table keeps alive what the search reads:
 * [1..3] the callbacks (node_cost, edge_cost, heuristic; false when absent),
 * [4] the grid, [5...] the layers, claims and mask of its options, .claims and
 * .unit (the unit's slot is looked up at every step: the unit may claim a path
 * after the search was made), .interests (the block its query's interests are
 * in); and, once it is finished, .path and .info (its workspace is then given
 * back).
 */
typedef struct ljob {
    lobject base;
    find_ctx ctx;        /* the query, its layers and the objects a step marks in use;
                            ctx.run.ws: a workspace of the grid's pool, held from the first
                            step to the end */
    bool finished;
    bool started;        /* astar_search_start ran (false again after an error) */
    bool stepping;       /* a step is running: a callback may not step or close this job */
    bool stopped;        /* the work limit stopped the step: it raises once the runner is out */
    astar_status status;
    uint64_t expansions; /* so far, since the last (re)start */
    uint32_t restarts;
    uint64_t step_expansions; /* what the last step expanded */
} ljob;

enum { JOB_CALLBACKS = 1, JOB_GRID = 4, JOB_PINNED = 5 };

/* Gives the workspace back to the grid's pool (unless the grid, and so the pool, is gone),
 * which may free it at once (release_workspace). */
static void job_release(lua_State *L, ljob *j) {
    if (j->ctx.run.ws && !j->ctx.grid->base.freed) release_workspace(L, &j->ctx.grid->pool, j->ctx.run.ws);
    j->ctx.run.ws = NULL;
}

/* A job is read by no query (never marked), but its own step may close it. Closed in the
 * middle of its search (a cancel), it gives back the memory that search touched, too. */
static void job_free(lua_State *L, void *o) {
    ljob *j = o;
    if (j->stepping) luaL_error(L, "astar.Search is in use by its own step");
    if (j->ctx.run.ws && !j->ctx.grid->base.freed) astar_search_trim(j->ctx.run.ws->search);
    job_release(L, j);
}

static int job_tostring(lua_State *L) {
    ljob *j = luaL_checkudata(L, 1, JOB_MT);
    lua_pushfstring(L, "astar.Search(%s)%s", astar_status_name(j->status), j->base.freed ? " (freed)" : "");
    return 1;
}

static int job_size(lua_State *L) { return push_size(L, JOB_MT); }

/* Runs inside lua_pcall: start if needed, one step, and the result tables once finished. */
static int job_run(lua_State *L) {
    ljob *j = lua_touserdata(L, RUN_CTX);
    find_ctx *c = &j->ctx;
    c->run.L = L;
    lua_Integer n = lua_tointeger(L, RUN_NARGS + 1);
    astar_result res;
    astar_status st;
    if (!j->started) {
        st = astar_search_start(c->run.ws->search, c->grid->grid, &c->q, &res);
        j->started = st != ASTAR_ESTOPPED; /* a stopped start started nothing */
        j->expansions = 0;
        j->restarts = 0;
        if (st == ASTAR_RUNNING) st = astar_search_step(c->run.ws->search, (uint64_t)n, &res);
    } else {
        st = astar_search_step(c->run.ws->search, (uint64_t)n, &res);
    }
    if (st == ASTAR_ENOMEM) return no_memory(L);
    if (st == ASTAR_EINVAL || st == ASTAR_EABORT)
        return luaL_error(L, "search failed: %s", astar_status_name(st));
    /* Stopped by the work limit: a step cut short, the search kept on its workspace to go on
     * from there; job_step raises (an error here would make the next step start over). */
    j->stopped = st == ASTAR_ESTOPPED;
    if (j->stopped) st = ASTAR_RUNNING;
    j->status = st;
    /* A restart counts from zero again: what this step did is all it has. */
    bool restarted = res.restarts != j->restarts || res.expansions < j->expansions;
    j->step_expansions = restarted ? res.expansions : res.expansions - j->expansions;
    j->expansions = res.expansions;
    j->restarts = res.restarts;
    if (st == ASTAR_RUNNING) return 0;
    int32_t len = 0;
    const int32_t *ids = astar_search_path(c->run.ws->search, &len);
    push_answer(L, &res, ids, len, c->grid->base.width, astar_grid_version(c->grid->grid), NULL);
    lua_pushinteger(L, res.restarts);
    lua_setfield(L, -2, "restarts");
    lua_pushinteger(L, res.repairs);
    lua_setfield(L, -2, "repairs");
    return 2;
}

/* grid:search(sx, sy, gx, gy [, opts]) -> a resumable search of what find would answer */
int grid_search(lua_State *L) {
    lua_settop(L, 6);
    lgrid *g = check_object(L, 1, GRID_MT);
    int32_t sx = check_coord(L, 2, "x", g->base.width), sy = check_coord(L, 3, "y", g->base.height);
    int32_t gx = check_coord(L, 4, "x", g->base.width), gy = check_coord(L, 5, "y", g->base.height);
    ljob *j = new_object(L, sizeof *j, JOB_MT);
    int job = lua_gettop(L);
    find_ctx *c = &j->ctx;
    c->grid = g;
    astar_query_init(&c->q);
    c->q.sx = sx, c->q.sy = sy, c->q.gx = gx, c->q.gy = gy;
    j->base.width = g->base.width;
    j->base.height = g->base.height;
    j->status = ASTAR_RUNNING;
    query_args a;
    read_options(L, 6, IN_SEARCH, "search", &a, &c->q);
    resolve_grid_query(L, c, &a);
    /* What the search reads stays alive with the job. */
    check_stack(L, 8);
    lua_createtable(L, JOB_PINNED + a.nlayers + 2, 2);
    int uv = lua_gettop(L);
    for (int i = 0; i < 3; i++) {
        if (c->run.callback[i]) lua_pushvalue(L, c->run.callback[i]);
        else lua_pushboolean(L, 0);
        lua_rawseti(L, uv, JOB_CALLBACKS + i);
        c->run.callback[i] = 0; /* slots of this call only: a step pushes them anew */
    }
    lua_pushvalue(L, 1);
    lua_rawseti(L, uv, JOB_GRID);
    int pinned = JOB_PINNED;
    for (int i = 0; i < a.nlayers; i++) {
        lua_pushvalue(L, a.layer_slot[i]);
        lua_rawseti(L, uv, pinned++);
    }
    if (a.slot[O_KNOWN]) {
        lua_pushvalue(L, a.slot[O_KNOWN]);
        lua_rawseti(L, uv, pinned++);
    }
    if (a.slot[O_CLAIMS]) {
        lua_pushvalue(L, a.slot[O_CLAIMS]);
        lua_setfield(L, uv, "claims");
    }
    if (a.ninterests > 0) { /* the places and values its query points into */
        lua_pushvalue(L, a.interest_slot);
        lua_setfield(L, uv, "interests");
    }
    if (a.slot[O_UNIT]) {
        lua_pushvalue(L, a.slot[O_UNIT]);
        lua_setfield(L, uv, "unit");
    }
    astar_setuservalue(L, job);
    lua_settop(L, job);
    return 1;
}

/* job:step([n]) -> status ("running" | "found" | "unreachable" | "limit" | "partial"), and
 * the expansions this step made (at most n) */
static int job_step(lua_State *L) {
    ljob *j = check_open(L, 1, JOB_MT);
    /* 2^53: every integer up to it is a double, on every Lua */
    const lua_Integer most = (lua_Integer)1 << 53;
    lua_Integer n = lua_isnoneornil(L, 2) ? most : check_integer(L, 2, "n", -most, most);
    if (n < 1) arg_error_fmt(L, 2, "n must be a positive integer, got %s", value_str(L, 2));
    if (j->stepping) return luaL_error(L, "astar.Search is in use: a callback of this search stepped it");
    if (j->finished) { /* its result is kept */
        lua_pushstring(L, astar_status_name(j->status));
        lua_pushinteger(L, 0);
        return 2;
    }
    /* Resolve: every object it reads is open, and the unit's slot is the one it has now. */
    find_ctx *c = &j->ctx;
    for (int i = 0; i < c->run.nread; i++)
        if (c->run.read[i]->freed) return luaL_error(L, "astar.Search: an object it reads has been freed");
    lua_settop(L, 2);
    check_stack(L, RUN_NARGS + 12);
    astar_getuservalue(L, 1);
    int uv = lua_gettop(L);
    if (c->q.claims) {
        lua_getfield(L, uv, "claims");
        lua_getfield(L, uv, "unit");
        c->q.unit = lua_isnil(L, -1) ? -1 : unit_slot(L, uv + 1, uv + 2);
    }
    for (int i = 0; i < 3; i++) { /* slots of this call only (run_ctx.callback) */
        lua_rawgeti(L, uv, JOB_CALLBACKS + i);
        c->run.callback[i] = lua_toboolean(L, -1) ? lua_gettop(L) : 0;
    }
    lua_pushinteger(L, n);
    c->run.pass[0] = lua_gettop(L); /* the runner's RUN_NARGS + 1 */
    c->run.npass = 1;
    /* A workspace only while it runs: a game may queue far more searches than it runs. */
    push_run_args(L, j, &c->run); /* first: its stack check may raise (see run_query) */
    if (!c->run.ws) c->run.ws = acquire_workspace(L, &c->grid->pool, &c->grid->base);
    /* From here to the end of lua_pcall nothing may raise: the stepping mark must be undone. */
    j->stepping = true;
    int rc = run_marked(L, &c->run);
    j->stepping = false;
    if (rc != LUA_OK) { /* stopped mid-expansion: the next step starts over, on any workspace */
        j->started = false;
        job_release(L, j);
        return lua_error(L);
    }
    if (j->stopped) {
        j->stopped = false;
        return work_limit_error(L);
    }
    if (j->status != ASTAR_RUNNING) { /* keep the result, give the workspace back */
        lua_setfield(L, uv, "info");
        lua_setfield(L, uv, "path");
        j->finished = true;
        job_release(L, j);
    }
    lua_pushstring(L, astar_status_name(j->status));
    lua_pushinteger(L, (lua_Integer)j->step_expansions);
    return 2;
}

/* job:result() -> path, info as find gives them once finished; nil, {status = "running"} before */
static int job_result(lua_State *L) {
    ljob *j = check_open(L, 1, JOB_MT);
    if (!j->finished) {
        lua_pushnil(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "running");
        lua_setfield(L, -2, "status");
        return 2;
    }
    astar_getuservalue(L, 1);
    lua_getfield(L, -1, "path");
    lua_getfield(L, -2, "info");
    return 2;
}

static int job_status(lua_State *L) {
    lua_pushstring(L, astar_status_name(((ljob *)check_open(L, 1, JOB_MT))->status));
    return 1;
}

static const luaL_Reg JOB_METHODS[] = {
    {"size", job_size}, {"result", job_result}, {"status", job_status}, {NULL, NULL}};
static const lquery_method JOB_QUERIES[] = {{"step", job_step, job_run}, {NULL, NULL, NULL}};
static const luaL_Reg JOB_META[] = {{"__tostring", job_tostring}, {NULL, NULL}};

const lclass JOB_CLASS = {
    .name = JOB_MT, .what = "search", .methods = JOB_METHODS, .queries = JOB_QUERIES,
    .metamethods = JOB_META, .field = size_field, .free = job_free};
