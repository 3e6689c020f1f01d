/*
 * ljob.c -- astar.Search: a query run in steps (job:step) that a game spreads over frames,
 * keeping alive what it reads between them: grid:search (what find answers),
 * grid:search_nearest (find_nearest) and grid:field_job (distance_field).
 */
#include "lbinding.h"

/* What a job runs: the engine find would take, in slices (A* or jump point search, targets);
 * a two-tier find (hierarchical = true), run whole in its first step; a distance field. */
typedef enum job_kind { JOB_PATH, JOB_TIERED, JOB_FIELD } job_kind;

/*
 * A resumable query. Its uservalue table keeps alive what the query reads:
 * [1..3] the callbacks (node_cost, edge_cost, heuristic; false when absent),
 * [4] the grid, [5...] the layers and mask of its options, .claims and
 * .unit (the unit's slot is looked up at every step: the unit may claim a path
 * after the search was made), .interests (the block its query's interests are
 * in), .classes (its factors), .cells (its targets or goals), .field (what a field job fills), .to_path and
 * .to_info (the options into and info); and, once it is finished, .path and .info
 * (its workspace is then given back).
 */
typedef struct ljob {
    lobject base;
    find_ctx ctx;        /* the query, its layers and the objects a step marks in use;
                            ctx.run.ws: a workspace of the grid's pool, held from the first
                            step to the end */
    job_kind kind;
    bool finished;
    bool started;        /* the core's start ran (false again after an error) */
    bool stepping;       /* a step is running: a callback may not step or close this job */
    bool stopped;        /* the work limit stopped the step: it raises once the runner is out */
    astar_status status;
    uint64_t expansions; /* so far, since the last (re)start */
    uint32_t restarts;
    uint64_t step_expansions; /* what the last step expanded (a field: its units) */
} ljob;

enum { JOB_CALLBACKS = 1, JOB_GRID = 4, JOB_PINNED = 5 };

/* Gives the workspace back to the grid's pool (unless the grid, and so the pool, is gone),
 * which may free it at once (release_workspace). */
static void job_release(lua_State *L, ljob *j) {
    if (j->ctx.run.ws && !j->ctx.grid->base.freed) release_workspace(L, &j->ctx.grid->pool, j->ctx.run.ws);
    j->ctx.run.ws = NULL;
}

/* A job is read by no query (never marked), but its own step may close it. Closed in the
 * middle of its search (a cancel), it gives back the memory that search touched, too, unless
 * its workspace is one grid:prepare keeps warm: the next search on that one would fault the
 * same pages in again (a crowd retargeting on Paris_0_1024: about 20 ns of its 120-130 an
 * expansion, bench/crowd.lua), and a finished search's pages stay there anyway. */
static void job_free(lua_State *L, void *o) {
    ljob *j = o;
    if (j->stepping) luaL_error(L, "astar.Search is in use by its own step");
    if (j->ctx.run.ws && !j->ctx.grid->base.freed && !pool_keeps_warm(&j->ctx.grid->pool, j->ctx.run.ws))
        astar_search_trim(j->ctx.run.ws->search);
    job_release(L, j);
}

/* Its status as a word: a field's end is "done" or "limit", as distance_field's info says. */
static const char *job_status_name(const ljob *j) {
    if (j->kind == JOB_FIELD && j->status == ASTAR_OK) return "done";
    return astar_status_name(j->status);
}

static int job_tostring(lua_State *L) {
    ljob *j = luaL_checkudata(L, 1, JOB_MT);
    lua_pushfstring(L, "astar.Search(%s)%s", job_status_name(j), j->base.freed ? " (freed)" : "");
    return 1;
}

static int job_size(lua_State *L) { return push_size(L, JOB_MT); }

/* Sets field k of the table on top to integer v, raw: it may be the caller's (option info). */
static void set_integer(lua_State *L, const char *k, lua_Integer v) {
    lua_pushstring(L, k);
    lua_pushinteger(L, v);
    lua_rawset(L, -3);
}

/* One step of a path job (JOB_PATH, JOB_TIERED) on the workspace: its status, *res. */
static astar_status path_step(ljob *j, uint64_t n, astar_result *res) {
    find_ctx *c = &j->ctx;
    astar_search *s = c->run.ws->search;
    if (j->kind == JOB_TIERED) { /* whole, in the first step: its scratch is the grid's */
        astar_status st = find_engine(c, res);
        j->started = st != ASTAR_ESTOPPED;
        return st;
    }
    if (j->started) return astar_search_step(s, n, res);
    astar_status st = astar_search_start(s, c->grid->grid, &c->q, res);
    j->started = st != ASTAR_ESTOPPED; /* a stopped start started nothing */
    return st == ASTAR_RUNNING ? astar_search_step(s, n, res) : st;
}

/* One step of a field job: its status, *res, and the units it used in *used. */
static astar_status field_step(ljob *j, uint64_t n, astar_result *res, uint64_t *used) {
    find_ctx *c = &j->ctx;
    astar_search *s = c->run.ws->search;
    *used = 0;
    if (j->started) return astar_field_step(s, n, used, res);
    astar_status st = astar_field_start(c->field, s, c->grid->grid, &c->q, c->cells, c->ncells, c->kind, res);
    j->started = st != ASTAR_ESTOPPED;
    return st == ASTAR_RUNNING ? astar_field_step(s, n, used, res) : st;
}

/* Runs inside lua_pcall: start if needed, one step, and the result tables once finished. */
static int job_run(lua_State *L) {
    ljob *j = lua_touserdata(L, RUN_CTX);
    find_ctx *c = &j->ctx;
    c->run.L = L;
    uint64_t n = (uint64_t)lua_tointeger(L, RUN_NARGS + 1);
    if (!j->started) {
        j->expansions = 0;
        j->restarts = 0;
    }
    astar_result res;
    uint64_t used = 0;
    astar_status st = j->kind == JOB_FIELD ? field_step(j, n, &res, &used) : path_step(j, n, &res);
    if (st == ASTAR_ENOMEM) return no_memory(L);
    if (st == ASTAR_EINVAL || st == ASTAR_EABORT)
        return luaL_error(L, "%s failed: %s", j->kind == JOB_FIELD ? "field" : "search", astar_status_name(st));
    /* Stopped by the work limit: a step cut short, the search kept on its workspace to go on
     * from there; job_step raises (an error here would make the next step start over). */
    j->stopped = st == ASTAR_ESTOPPED;
    if (j->stopped) st = ASTAR_RUNNING;
    j->status = st;
    if (j->kind == JOB_FIELD) {
        j->step_expansions = used;
    } else {
        /* A restart counts from zero again: what this step did is all it has. */
        bool restarted = res.restarts != j->restarts || res.expansions < j->expansions;
        j->step_expansions = restarted ? res.expansions : res.expansions - j->expansions;
        j->expansions = res.expansions;
    }
    j->restarts = res.restarts;
    if (st == ASTAR_RUNNING) return 0;
    if (j->kind == JOB_FIELD) {
        lua_pushnil(L); /* the field: job_step puts it in */
        push_field_info(L, st, &res, c->field);
    } else {
        int32_t len = 0;
        const int32_t *ids = astar_search_path(c->run.ws->search, &len);
        push_answer(L, &res, ids, len, c->grid->base.width, astar_grid_version(c->grid->grid), &c->run.answer);
    }
    set_integer(L, "restarts", res.restarts);
    set_integer(L, "repairs", res.repairs);
    return 2;
}

/* A new job of the grid at 1 (not checked open: the resolve does), at nargs + 1, after the
 * call's nargs arguments. */
static ljob *new_job(lua_State *L, int nargs, job_kind kind) {
    lua_settop(L, nargs);
    lgrid *g = check_object(L, 1, GRID_MT);
    ljob *j = new_object(L, sizeof *j, JOB_MT);
    j->kind = kind;
    j->ctx.grid = g;
    astar_query_init(&j->ctx.q);
    j->base.width = g->base.width;
    j->base.height = g->base.height;
    j->status = ASTAR_RUNNING;
    return j;
}

/* Sets field k of the table at t to the value at slot v, if any. */
static void pin(lua_State *L, int t, const char *k, int v) {
    if (!v) return;
    lua_pushvalue(L, v);
    lua_setfield(L, t, k);
}

/*
 * After the resolve: the job new_job made after nargs arguments keeps alive what it reads
 * (its uservalue, above), and keeps of this call's stack slots nothing. cells, field: slots of
 * its targets or goals and of the field it fills, or 0.
 */
static int keep_alive(lua_State *L, int nargs, const query_args *a, int cells, int field) {
    int job = nargs + 1;
    ljob *j = lua_touserdata(L, job);
    find_ctx *c = &j->ctx;
    check_stack(L, 8);
    lua_createtable(L, JOB_PINNED + a->nlayers + 2, 8);
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
    for (int i = 0; i < a->nlayers; i++) {
        lua_pushvalue(L, a->layer_slot[i]);
        lua_rawseti(L, uv, pinned++);
    }
    if (a->slot[O_KNOWN]) {
        lua_pushvalue(L, a->slot[O_KNOWN]);
        lua_rawseti(L, uv, pinned++);
    }
    pin(L, uv, "claims", a->slot[O_CLAIMS]);
    pin(L, uv, "interests", a->ninterests > 0 ? a->interest_slot : 0); /* what its query points into */
    pin(L, uv, "classes", a->class_slot);
    pin(L, uv, "unit", a->slot[O_UNIT]);
    pin(L, uv, "cells", cells);
    pin(L, uv, "field", field);
    pin(L, uv, "to_path", a->slot[O_INTO]);
    pin(L, uv, "to_info", a->slot[O_INFO]);
    c->run.npass = 0; /* slots of this call only: a step passes n, into and info anew */
    c->run.answer.into = c->run.answer.info = 0;
    astar_setuservalue(L, job);
    lua_settop(L, job);
    return 1;
}

/* grid:search(sx, sy, gx, gy [, opts]) -> a resumable search of what find would answer */
int grid_search(lua_State *L) {
    ljob *j = new_job(L, 6, JOB_PATH);
    find_ctx *c = &j->ctx;
    check_xy(L, 2, &c->grid->base, &c->q.sx, &c->q.sy);
    check_xy(L, 4, &c->grid->base, &c->q.gx, &c->q.gy);
    query_args a;
    read_options(L, 6, IN_FIND, "search", &a, &c->q);
    bool tiered = read_hierarchical(L, &a);
    resolve_grid_query(L, c, &a);
    if (tiered) {
        resolve_hierarchical(L, c);
        j->kind = JOB_TIERED;
    }
    return keep_alive(L, 6, &a, 0, 0);
}

/* grid:search_nearest(sx, sy, targets [, opts]) -> a resumable search of what find_nearest
 * would answer */
int grid_search_nearest(lua_State *L) {
    ljob *j = new_job(L, 5, JOB_PATH);
    find_ctx *c = &j->ctx;
    check_xy(L, 2, &c->grid->base, &c->q.sx, &c->q.sy);
    int cells = read_targets(L, c, 4);
    query_args a;
    read_options(L, 5, IN_NEAREST, "search_nearest", &a, &c->q);
    resolve_grid_query(L, c, &a);
    return keep_alive(L, 5, &a, cells, 0);
}

/* grid:field_job(goals [, opts]) -> a resumable build of what distance_field would answer */
int grid_field_job(lua_State *L) {
    ljob *j = new_job(L, 3, JOB_FIELD);
    find_ctx *c = &j->ctx;
    int cells = read_goals(L, c, 2);
    query_args a;
    read_options(L, 3, IN_FIELD, "field_job", &a, &c->q);
    new_field(L, c); /* before the resolve: making it may run a finalizer */
    int field = lua_gettop(L);
    resolve_grid_query(L, c, &a);
    mark_read(&c->run, lua_touserdata(L, field)); /* marked while a step builds it */
    return keep_alive(L, 3, &a, cells, field);
}

/* Pushes the table at field k of the table at uv as a slot the runner gets; its runner slot,
 * or 0 when there is none. */
static int pass_slot(lua_State *L, int uv, const char *k, run_ctx *run) {
    lua_getfield(L, uv, k);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    run->pass[run->npass++] = lua_gettop(L);
    return RUN_NARGS + run->npass;
}

/* job:step([n]) -> status ("running" | "found" | "unreachable" | "limit" | "partial"; a
 * field's: "running" | "done" | "limit"), and the expansions this step made (at most n) */
static int job_step(lua_State *L) {
    ljob *j = check_open(L, 1, JOB_MT);
    /* 2^53: every integer up to it is a double, on every Lua */
    const lua_Integer most = (lua_Integer)1 << 53;
    lua_Integer n = lua_isnoneornil(L, 2) ? most : check_integer(L, 2, "n", -most, most);
    if (n < 1) arg_error_fmt(L, 2, "n must be a positive integer, got %s", value_str(L, 2));
    if (j->stepping) return luaL_error(L, "astar.Search is in use: a callback of this search stepped it");
    if (j->finished) { /* its result is kept */
        lua_pushstring(L, job_status_name(j));
        lua_pushinteger(L, 0);
        return 2;
    }
    /* Resolve: every object it reads is open, and the unit's slot is the one it has now. */
    find_ctx *c = &j->ctx;
    for (int i = 0; i < c->run.nread; i++)
        if (c->run.read[i]->freed) return luaL_error(L, "astar.Search: an object it reads has been freed");
    lua_settop(L, 2);
    check_stack(L, RUN_NARGS + 16);
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
    c->run.answer.into = pass_slot(L, uv, "to_path", &c->run); /* then into and info, if given */
    c->run.answer.info = pass_slot(L, uv, "to_info", &c->run);
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
        if (j->kind == JOB_FIELD) {
            lua_getfield(L, uv, "field");
            lua_replace(L, -3);
        }
        lua_setfield(L, uv, "info");
        lua_setfield(L, uv, "path");
        j->finished = true;
        job_release(L, j);
    }
    lua_pushstring(L, job_status_name(j));
    lua_pushinteger(L, (lua_Integer)j->step_expansions);
    return 2;
}

/* job:result() -> what find (find_nearest, distance_field) gives, once finished; nil,
 * {status = "running"} before */
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
    lua_pushstring(L, job_status_name(check_open(L, 1, JOB_MT)));
    return 1;
}

static const luaL_Reg JOB_METHODS[] = {
    {"size", job_size}, {"result", job_result}, {"status", job_status}, {NULL, NULL}};
static const lquery_method JOB_QUERIES[] = {{"step", job_step, job_run}, {NULL, NULL, NULL}};

const lclass JOB_CLASS = {
    .name = JOB_MT, .what = "search", .methods = JOB_METHODS, .queries = JOB_QUERIES,
    .tostring = job_tostring, .field = size_field, .free = job_free};
