/*
 * lbinding.h -- what the files of the binding (module astar.core) share: the userdata types,
 * their class names, the query machinery's types and the functions more than one file calls.
 * Everything else stays static in its file. The rules every file follows (memory, and read ->
 * resolve -> run) are written at the top of astar_core.c.
 *
 * Private to src/lua/: only astar_core.c's luaopen_astar_core is exported. What is declared
 * here is hidden as well, also where the files are built without -fvisibility=hidden (a
 * LuaRocks build).
 */
#ifndef ASTAR_LUA_BINDING_H
#define ASTAR_LUA_BINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "astar.h"
#include "lcompat.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* The class names (lclass.c): registry keys of the metatables and __name, as strings; and
 * each as an address, the key test_object finds its metatable by. */
extern const char GRID_MT[], LAYER_MT[], CLAIMS_MT[], MASK_MT[], FIELD_MT[], JOB_MT[], GRAPH_MT[],
    GRAPH_CLAIMS_MT[];
extern const char BUILD_MT[];

/* ASTAR_MAX_VALUE as messages write it. */
#define MAX_VALUE_STR "1e100"
/* ASTAR_MAX_INTEREST (2^20) as messages write it. */
#define MAX_INTEREST_STR "1048576"
/* The diagonal modes a user may name (DIAGONAL_NAMES), as messages list them. */
#define DIAGONAL_RULE "\"never\", \"always\", \"one_walkable\" or \"no_corner_cut\""

/* ------------------------------------------------------------ userdata */

/* Every userdata starts with this. */
typedef struct lobject {
    int32_t width, height;
    int readers; /* queries (and builds) running now that read this object */
    bool freed;  /* closed (__close, or __gc called by hand): nothing may read it */
} lobject;

/* A search workspace of a grid or a graph, taken by one query at a time. */
typedef struct workspace {
    void *search; /* an astar_search (a grid's pool) or an astar_graph_search (a graph's) */
    bool busy;
    struct workspace *next;
} workspace;

/* How a pool makes and frees the searches of its workspaces: one kind for grids, one for
 * graphs. */
typedef struct pool_kind {
    void *(*make)(const lobject *owner, const astar_alloc *a);
    void (*drop)(void *search);
} pool_kind;

/* The workspaces of one grid or graph: one per query running on it at once (reentrant
 * finds, jobs between their first step and their end), kept warm between queries, as many
 * idle as release_workspace's rule keeps. */
#define POOL_WINDOW 64 /* acquisitions over which a pool counts its busiest moment */
#define POOL_MARGIN 2  /* idle workspaces a pool keeps at least */

typedef struct pool {
    const pool_kind *kind;
    workspace *first;
    int busy;                /* taken now */
    int reserved;            /* grid:prepare's `workspaces`: kept however few are busy */
    int peak, last_peak;     /* the most busy at once in this window of acquisitions, the last */
    int acquired;            /* acquisitions in this window (POOL_WINDOW) */
} pool;

typedef struct lgrid {
    lobject base;
    astar_grid *grid;
    pool pool;
    astar_many *many; /* find_many's workspaces, made on its first threaded call */
} lgrid;

typedef struct llayer {
    lobject base;
    astar_layer *layer;
} llayer;

typedef struct lclaims {
    lobject base;
    astar_claims *claims; /* uservalue: { [unit key] = slot } */
} lclaims;

typedef struct lmask {
    lobject base;
    astar_mask *mask;
} lmask;

typedef struct lgraph {
    lobject base;              /* width and height unused */
    astar_graph *graph;
    pool pool;
} lgraph;

/* Claims on a graph's nodes. Uservalue: { [unit key] = slot, [true] = the graph }. */
typedef struct lgraph_claims {
    lobject base;
    astar_claims *claims;
    lgraph *graph;
} lgraph_claims;

/* ------------------------------------------------------------- classes */

/* A method that runs a query: registered with its protected runner as upvalue 1, so that no
 * closure is made per query. */
typedef struct lquery_method {
    const char *name;
    lua_CFunction fn, runner;
} lquery_method;

/*
 * One class of userdata, registered like liolib's createmeta (register_class): its
 * metatable holds exactly its metamethods, and __index its methods, then its read-only
 * fields. Each class's file defines its class and its tables. Its __gc (also __close) is
 * the one of every class, which calls its free, as liolib's calls a stream's closef.
 */
typedef struct lclass {
    const char *name;                /* registry key and __name */
    const char *what;                /* how messages name one: "grid", "influence layer" */
    const luaL_Reg *methods;
    const lquery_method *queries;    /* more methods, NULL-terminated; or NULL */
    lua_CFunction tostring;          /* __tostring; NULL: the size's, "astar.Grid(8x8)" */
    /* Pushes field `key` of the open or freed object o and returns 1, or returns 0. */
    int (*field)(lua_State *L, void *o, const char *key);
    /* Frees what the open or freed object o owns (and may refuse, raising). */
    void (*free)(lua_State *L, void *o);
} lclass;

extern const lclass GRID_CLASS, LAYER_CLASS, JOB_CLASS, FIELD_CLASS, MASK_CLASS, CLAIMS_CLASS,
    GRAPH_CLASS, GRAPH_CLAIMS_CLASS;
extern const lclass BUILD_CLASS;

/* -------------------------------------------------------- query options */

/* The functions a query option may be given to. */
enum {
    IN_FIND = 1 << 0,    /* grid:search reads these too (a job answers what find answers) */
    IN_NEAREST = 1 << 1, /* and grid:search_nearest these */
    IN_MANY = 1 << 3,
    IN_FIELD = 1 << 4,
    IN_RANGE = 1 << 5,
    IN_GRAPH = 1 << 6,
    IN_CHECK = 1 << 7,
    IN_REPAIR = 1 << 8,
    IN_FLEE = 1 << 9,
    IN_WANDER = 1 << 10
};
/* check_path and repair walk an old path under a query's costs. */
#define IN_WALK (IN_CHECK | IN_REPAIR)
#define IN_PATHS (IN_FIND | IN_NEAREST | IN_MANY | IN_WALK)
/* flee and wander: a unit's walk that a range may have to cover (flee.c). */
#define IN_AWAY (IN_FLEE | IN_WANDER)
#define IN_GRID (IN_PATHS | IN_FIELD | IN_RANGE | IN_AWAY)
#define IN_ALL (IN_GRID | IN_GRAPH)

/* The rows of OPTIONS (lquery.c). */
typedef enum option_id {
    O_HEURISTIC, O_WEIGHT, O_DIAGONAL, O_INFLUENCE, O_INFLUENCE_WEIGHT, O_CLAIMS, O_UNIT,
    O_CLAIM_PENALTY, O_CLAIM_RADIUS, O_GRAPH_CLAIM_RADIUS, O_FIELD_CLAIM_RADIUS, O_CLAIM_WINDOW,
    O_NODE_COST, O_EDGE_COST, O_MAX_EXPANSIONS, O_MAX_COST, O_RANGE_MAX_COST, O_PARTIAL, O_WALK_PARTIAL, O_KNOWN,
    O_NOISE, O_SEED, O_TURN_PENALTY, O_JUMP, O_PATH, O_GRAPH_PATH, O_INTO, O_INFO, O_INTERESTS,
    O_WALK_INTERESTS, O_REJOIN_WITHIN, O_HIERARCHICAL, O_HIERARCHICAL_ELSEWHERE, O_DEAD_ENDS, O_FIELD_DEAD_ENDS,
    O_SINCE, O_CLASSES, O_SIZE, O_GRAPH_SIZE,
    O_AWAY_MAX_COST, O_DISTANCE, O_RADIUS, O_THRESHOLD, O_TOLERANCE, O_TOWARD, NOPTIONS
} option_id;

/* What read_options found, before its objects are resolved. */
typedef struct query_args {
    int arg;                       /* the options' argument number, for messages */
    unsigned in;
    const char *fn;
    int slot[NOPTIONS];            /* stack index of each option given, pinned; 0: not given */
    astar_heuristic heuristic;     /* a name's, or ASTAR_H_CUSTOM */
    int nlayers;                   /* influence: 1 for one, the length of a list */
    int layer_slot[ASTAR_MAX_LAYERS]; /* each layer (a graph's: or Lua array), pinned */
    double layer_weight[ASTAR_MAX_LAYERS];
    bool flat_path;                /* path = "flat" */
    int32_t ninterests;            /* interests, as read (read_interests): */
    double *interest_place;        /* x, y per interest (a graph's: id, 0), 1-based */
    double *interest_values;       /* in a userdata pinned on the stack, with */
    int32_t *interest_ids;         /* room for their node ids, which the resolve fills */
    int interest_slot;             /* that userdata's stack slot (a job keeps it) */
    double *class_factor;          /* classes: 256 factors (INFINITY blocks) in a userdata */
    int class_slot;                /* pinned at this stack slot (a job keeps it); 0: none */
} query_args;

/* -------------------------------------------------------------- queries */

/*
 * Where a query's answer goes (the options path, into and info): the runner's stack slots of
 * the caller's tables to fill in place, 0 for a new table; and the path's form.
 */
typedef struct answer_to {
    bool flat;                     /* a grid path as {x1, y1, x2, y2, ...} */
    int into, info;
    const astar_repair_info *repair; /* repair: info.rejoin and info.replanned; else NULL */
} answer_to;

/*
 * What running a query takes, on a grid or a graph: the first member of find_ctx and
 * graph_find_ctx, so that the callbacks' ud (the ctx) is one too.
 */
typedef struct run_ctx {
    lua_State *L;                  /* the runner's: the callbacks run on it */
    workspace *ws;                 /* of the grid's or graph's pool, while the query runs */
    int callback[3];               /* stack slots of node_cost, edge_cost, heuristic; 0: none */
    int pass[ASTAR_MAX_LAYERS + 2]; /* more stack slots the runner gets, after the callbacks:
                                       a graph's Lua arrays of values, then into and info */
    int npass;
    answer_to answer;              /* find, find_nearest, graph:find (resolve_answer) */
    lobject *read[ASTAR_MAX_LAYERS + 4]; /* marked "in use" while the query runs: layers,
                                           claims, mask, the grid or graph, a field being built */
    int nread;
} run_ctx;

/* The cluster size of the hierarchy a find with hierarchical = true builds when the grid has none. */
#define HIERARCHY_DEFAULT_SIZE 12

/* A query on a grid: find, find_nearest, find_many, search (a job's), distance_field, range. */
typedef struct find_ctx {
    run_ctx run;
    lgrid *grid;
    astar_query q;
    astar_layer_ref layers[ASTAR_MAX_LAYERS];
    astar_field *field;                 /* distance_field and range: what to fill */
    const int32_t *cells;
    int32_t ncells;
    astar_field_kind kind;
    const int32_t *endpoints;           /* find_many: 4 per query, 0-based */
    int32_t nqueries;
    astar_result *results;
    int threads;                        /* 0: one per processor */
    bool hierarchical;                  /* find: two-tier (astar_find_hierarchical) */
    astar_flee_opts flee;               /* flee: its threats and distances */
    double wander_cost, tolerance;      /* wander */
} find_ctx;

/* Stack slots of the protected runner: 1 ctx, then the callbacks (or nil), then the slots
 * of run_ctx.pass (RUN_NARGS + 1 ...). */
enum { RUN_CTX = 1, RUN_NODE_COST, RUN_EDGE_COST, RUN_HEURISTIC, RUN_NARGS = 4 };

/* Cell id of a grid `width` wide as a point {x=, y=}, 1-based. Inline: paths and cells make
 * one per cell. */
static inline void push_point(lua_State *L, int32_t id, int32_t width) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, id % width + 1);
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, id / width + 1);
    lua_setfield(L, -2, "y");
}

/* A grid's or graph's version (a uint32_t): an integer where lua_Integer holds it (a 32-bit
 * Lua 5.1's may not). */
static inline void push_version(lua_State *L, uint32_t v) {
    if (sizeof(lua_Integer) > sizeof v) lua_pushinteger(L, (lua_Integer)v);
    else lua_pushnumber(L, (lua_Number)v);
}

/* ---------------------------------------------- largs.c: arguments, errors */

const char *value_str(lua_State *L, int idx);
const char *type_name(lua_State *L, int idx);
int arg_error_fmt(lua_State *L, int arg, const char *fmt, ...);
int type_error(lua_State *L, int arg, const char *expected);
/*
 * Is the value at idx a number whose value is an integer in lo..hi (2.0 is; 2.5, NaN and the
 * string "2" are not)? The number in *v (0 for a non-number). The one test of the integers the
 * binding reads (check_integer, test_cell, test_node, the options): each raises its own
 * message. Inline: cell methods (check_coord) run it in a game's loops.
 */
static inline bool test_integer(lua_State *L, int idx, lua_Number lo, lua_Number hi, lua_Number *v) {
    *v = lua_tonumber(L, idx);
    return lua_type(L, idx) == LUA_TNUMBER && *v == floor(*v) && *v >= lo && *v <= hi;
}
/* test_integer of any range: is the value at idx a number with an integral value (math.huge
 * is one; its range is checked apart)? */
static inline bool is_integral(lua_State *L, int idx) {
    lua_Number v;
    return test_integer(L, idx, -HUGE_VAL, HUGE_VAL, &v);
}
lua_Integer check_integer(lua_State *L, int arg, const char *what, lua_Integer lo, lua_Integer hi);
const char *check_c_string(lua_State *L, int arg, const char *what);
bool string_is(lua_State *L, int idx, const char *name);
int name_index(lua_State *L, int idx, const char *const names[]);
bool is_callable(lua_State *L, int idx);
int no_memory(lua_State *L);
void check_stack(lua_State *L, int n);
bool to_cost(lua_State *L, int idx, double *cost);
double check_cost(lua_State *L, int arg);
void push_cost(lua_State *L, double c);
double check_finite(lua_State *L, int arg, const char *what);
void check_size_args(lua_State *L, int32_t *w, int32_t *h);
int read_fields(lua_State *L, int arg, const char *const names[]);
int read_threads(lua_State *L, int arg, int dflt);
lua_Integer list_length(lua_State *L, int idx);
void push_entry_field(lua_State *L, int idx, const char *name, int k);
int32_t test_cell(lua_State *L, int ix, int iy, int32_t width, int32_t height);
/* The 0-based id of the 1-based node id at idx of a graph of count nodes, or -1. */
static inline int32_t test_node(lua_State *L, int idx, int32_t count) {
    lua_Number v;
    return test_integer(L, idx, 1, count, &v) ? (int32_t)v - 1 : -1;
}
int32_t read_point(lua_State *L, int arg, lua_Integer i, int32_t width, int32_t height,
                   const char *what);
int32_t *read_points(lua_State *L, int arg, int32_t width, int32_t height, const char *what,
                     const char *list, int32_t *count);

/* A path argument being read (open_path): points read up front, flat cells on demand. */
typedef struct path_arg {
    lua_State *L;
    int arg;
    int32_t width, height;
    lua_Integer len;     /* flat: the entries counted; points: the points */
    int32_t n;           /* cells */
    const int32_t *ids;  /* points: every cell's node id; flat: NULL */
    int32_t bad;         /* the cell path_cell could not read, or -1 */
} path_arg;
void open_path(lua_State *L, int arg, int32_t width, int32_t height, bool whole, path_arg *p);
int32_t path_cell(void *ud, int32_t i);
int path_error(path_arg *p);
int32_t *read_path(lua_State *L, int arg, int32_t width, int32_t height, int32_t *count);

/* -------------------------------------------- lclass.c: userdata, classes */

astar_alloc lua_allocator(lua_State *L);
int freed_error(lua_State *L, const char *mt);
void *new_object(lua_State *L, size_t size, const char *mt);
void *new_sized_object(lua_State *L, size_t size, const char *mt, int32_t w, int32_t h, astar_alloc *a);
int push_size(lua_State *L, const char *mt);
int size_field(lua_State *L, void *o, const char *key);
void register_class(lua_State *L, const lclass *cls);

/* ---------------------------------- lquery.c: options, resolve, pool, runner */

extern const char *const HEURISTIC_NAMES[];
void read_options(lua_State *L, int arg, unsigned in, const char *fn, query_args *a, void *query);
lobject *resolve_object(lua_State *L, int arg, int idx, const char *mt, const char *what);
const char *influence_name(lua_State *L, const query_args *a, int i);
void mark_read(run_ctx *c, lobject *o);
void resolve_grid_callbacks(run_ctx *c, astar_query *q, const query_args *a);
void resolve_graph_callbacks(run_ctx *c, astar_graph_query *q, const query_args *a);
workspace *acquire_workspace(lua_State *L, pool *p, const lobject *owner);
void release_workspace(lua_State *L, pool *p, workspace *w);
int l_workspaces(lua_State *L);
void free_pool(lua_State *L, pool *p);
workspace *pool_reserve(lua_State *L, pool *p, const lobject *owner, int n);
/* Whether w is one of the first `reserved` workspaces of p (grid:prepare's: kept warm). */
bool pool_keeps_warm(const pool *p, const workspace *w);
void push_run_args(lua_State *L, void *ud, const run_ctx *c);
int run_marked(lua_State *L, const run_ctx *c);
int run_query(lua_State *L, run_ctx *c, pool *p, const lobject *owner);

/* ------------------------------------------------------- lanswer.c: answers */

void resolve_answer(run_ctx *c, const query_args *a);
void push_answer(lua_State *L, const astar_result *r, const int32_t *ids, int32_t n, int32_t width,
                 uint32_t version, const answer_to *to);
void check_answer(lua_State *L, astar_status st, const char *fn);

/*
 * The checks every method makes first, inline: a game calls cell methods (get_cost, set,
 * is_known...) in loops, and these calls, across files, cost 2.7% of such a loop.
 */

/* A 1-based coordinate of the Lua API, returned 0-based. */
static inline int32_t check_coord(lua_State *L, int arg, const char *what, int32_t size) {
    return (int32_t)check_integer(L, arg, what, 1, size) - 1;
}

/* The cell x, y at arg, arg + 1 (1-based) of object o (a grid, layer, mask...), 0-based. */
static inline void check_xy(lua_State *L, int arg, const lobject *o, int32_t *x, int32_t *y) {
    *x = check_coord(L, arg, "x", o->width);
    *y = check_coord(L, arg + 1, "y", o->height);
}

/*
 * The userdata at idx if it is of class mt (one of the *_MT above), else NULL: what
 * luaL_testudata answers, but its metatable is found by the address mt (register_class
 * keys it so) rather than by name, so no string is made or compared. By name, Lua 5.4
 * looks the C string up in a cache of string pointers (luaS_new), and every method call
 * cost up to 5% more or less as the linker placed the names in it.
 */
static inline void *test_object(lua_State *L, int idx, const char *mt) {
    void *p = lua_touserdata(L, idx);
    if (!p || !lua_getmetatable(L, idx)) return NULL;
    lua_pushlightuserdata(L, (void *)mt);
    lua_rawget(L, LUA_REGISTRYINDEX);
    if (!lua_rawequal(L, -1, -2)) p = NULL;
    lua_pop(L, 2);
    return p;
}

/* The userdata at arg if it is of class mt, open or not; a type error otherwise. */
static inline void *check_object(lua_State *L, int arg, const char *mt) {
    void *p = test_object(L, arg, mt);
    if (!p) type_error(L, arg, mt);
    return p;
}

/* check_object, and open. */
static inline void *check_open(lua_State *L, int arg, const char *mt) {
    lobject *o = check_object(L, arg, mt);
    if (o->freed) freed_error(L, mt);
    return o;
}

/* The open object of class mt at 1 and the cell at 2, 3 (0-based in *x, *y): what every cell
 * method (get_cost, set, is_known...) reads first. */
static inline void *check_cell(lua_State *L, const char *mt, int32_t *x, int32_t *y) {
    lobject *o = check_open(L, 1, mt);
    check_xy(L, 2, o, x, y);
    return o;
}

/* Writers call this: a callback may not change what its own query reads. */
static inline void check_writable(lua_State *L, const lobject *o, const char *what) {
    if (o->readers > 0)
        luaL_error(L, "%s is in use by a running query (a callback cannot change what its query reads)",
                   what);
}

/* ------------------------------------------------------- the object types */

/* lgrid.c */
extern const char *const DIAGONAL_NAMES[];
lgrid *check_grid(lua_State *L, int arg);
lgrid *new_grid(lua_State *L);
int l_grid(lua_State *L);
int l_smooth(lua_State *L);

/* lfind.c: grid:find, find_nearest, find_many, and what every grid query shares */
lgrid *begin_grid_query(lua_State *L, find_ctx *c);
void start_query(lua_State *L, find_ctx *c);
int read_targets(lua_State *L, find_ctx *c, int arg);
void resolve_grid_query(lua_State *L, find_ctx *c, const query_args *a);
int run_grid_query(lua_State *L, find_ctx *c);
int grid_find(lua_State *L);
int grid_find_nearest(lua_State *L);
int grid_find_many(lua_State *L);
bool read_hierarchical(lua_State *L, const query_args *a);
void resolve_hierarchical(lua_State *L, find_ctx *c);
astar_status find_engine(find_ctx *c, astar_result *res);

/* ---- lrepair.c */
int grid_check_path(lua_State *L);
int grid_repair(lua_State *L);
int check_run(lua_State *L);
int repair_run(lua_State *L);
int find_run(lua_State *L);
int many_run(lua_State *L);

/* ljob.c: grid:search, search_nearest and field_job (astar.Search) */
int grid_search(lua_State *L);
int grid_search_nearest(lua_State *L);
int grid_field_job(lua_State *L);

/* lbuild.c */
int grid_build_landmarks(lua_State *L);
void build_now(lua_State *L, bool hierarchy);
int grid_build_hierarchy(lua_State *L);
int grid_prepare(lua_State *L);
int push_hierarchy(lua_State *L, astar_grid *grid);
/* The mode check of grid:hierarchy and grid:build_hierarchy (a Lua error when it has none). */
void check_hierarchy_mode(lua_State *L, astar_grid *grid);

/* lfield.c */
int grid_flee(lua_State *L);
int grid_wander(lua_State *L);
int flee_run(lua_State *L);
int wander_run(lua_State *L);
int grid_distance_field(lua_State *L);
int grid_range(lua_State *L);
int field_run(lua_State *L);
int read_goals(lua_State *L, find_ctx *c, int arg);
void new_field(lua_State *L, find_ctx *c);
void push_field_info(lua_State *L, astar_status st, const astar_result *res, const astar_field *f);

/* llayers.c */
int l_influence(lua_State *L);
int l_mask(lua_State *L);

/* lclaims.c */
int l_claims(lua_State *L);
int32_t unit_slot(lua_State *L, int claims, int key);

/* lgraph.c */
lgraph *check_graph(lua_State *L, int arg);
int32_t check_node(lua_State *L, int arg, const lgraph *g);
int l_graph(lua_State *L);

/* llimit.c: the work limit, and the errors of the calls it stops */
int l_set_work_limit(lua_State *L);
int l_work_left(lua_State *L);
/* "work limit reached": a call the core stopped (ASTAR_ESTOPPED); it changed nothing. */
int work_limit_error(lua_State *L);
/* The error of a core call that can only fail for want of memory or of work allowed. */
int status_error(lua_State *L, astar_status st);
/* The same from inside a protected runner (run_query): the position is its caller's caller's. */
int runner_status_error(lua_State *L, astar_status st);

/* lload.c */
int l_load_movingai(lua_State *L);
int l_load_movingai_string(lua_State *L);
int l_load_scen(lua_State *L);
int l_load_scen_string(lua_State *L);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
