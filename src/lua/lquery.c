/*
 * lquery.c -- the machinery every query shares, on a grid or a graph: the option table
 * OPTIONS and its one reader read_options (read); the checks of the objects options name,
 * the marks and the callbacks' trampolines (resolve); the workspace pool and the protected
 * runner run_query (run). Its answers: lanswer.c. The queries themselves: lfind.c, ljob.c,
 * lfield.c (grids), lgraph.c.
 */
#include <math.h>
#include <string.h>

#include "lbinding.h"

/* ------------------------------------------------------------------ read */

typedef enum opt_kind {
    K_NUMBER,    /* a number in lo..hi, to a double */
    K_INTEGER,   /* an integer >= lo, to an int32_t, saturated at hi */
    K_BOUNDED,   /* an integer in lo..hi, to an int32_t */
    K_COUNT,     /* an integer >= 0, to a uint64_t, saturated */
    K_BOOLEAN,   /* to an int */
    K_SEED,      /* an integer, to a uint32_t modulo 2^32 */
    K_JUMP,      /* a boolean, to an astar_jps */
    K_DIAGONAL,  /* a mode's name, to an astar_diagonal */
    K_HEURISTIC, /* a name or a function (resolved) */
    K_CALLBACK,  /* a function (pinned, resolved) */
    K_VALUE,     /* an object, a list of them, a key (pinned, resolved) */
    K_PATH_FORM, /* "points" or "flat", to query_args.flat_path */
    K_TABLE,     /* a table the answer is written into (pinned; resolve_answer) */
    K_REFUSED    /* known, but not here: rule says why */
} opt_kind;

typedef struct option {
    const char *name;
    opt_kind kind;
    unsigned in;         /* the functions it may be given to */
    double lo, hi;       /* K_NUMBER's range; K_INTEGER's least value and saturation */
    const char *rule;    /* what a bad value must be; for K_REFUSED, why not */
    ptrdiff_t grid_at;   /* where a scalar lands: offsetof in astar_query, */
    ptrdiff_t graph_at;  /* and in astar_graph_query; -1 where resolved by hand */
} option;

#define AT(field) offsetof(astar_query, field), offsetof(astar_graph_query, field)
#define GRID_AT(field) offsetof(astar_query, field), -1
#define GRAPH_AT(field) -1, offsetof(astar_graph_query, field)
#define BY_HAND -1, -1

/* Every query option of grids and graphs: read by read_options, the one reader of them. */
static const option OPTIONS[NOPTIONS] = {
    [O_HEURISTIC] = {"heuristic", K_HEURISTIC, (IN_PATHS & ~IN_CHECK) | IN_GRAPH, 0, 0, NULL, BY_HAND},
    [O_WEIGHT] = {"weight", K_NUMBER, (IN_PATHS & ~IN_CHECK) | IN_GRAPH, 1, ASTAR_MAX_VALUE,
                  "a number in 1.." MAX_VALUE_STR, AT(weight)},
    [O_DIAGONAL] = {"diagonal", K_DIAGONAL, IN_GRID, 0, 0, NULL, GRID_AT(diagonal)},
    [O_INFLUENCE] = {"influence", K_VALUE, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_INFLUENCE_WEIGHT] = {"influence_weight", K_NUMBER, IN_ALL, -ASTAR_MAX_VALUE, ASTAR_MAX_VALUE,
                            "a number in -" MAX_VALUE_STR ".." MAX_VALUE_STR, BY_HAND},
    [O_CLAIMS] = {"claims", K_VALUE, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_UNIT] = {"unit", K_VALUE, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_CLAIM_PENALTY] = {"claim_penalty", K_NUMBER, IN_ALL, 0, ASTAR_MAX_VALUE,
                         "a number in 0.." MAX_VALUE_STR, AT(claim_penalty)},
    [O_CLAIM_RADIUS] = {"claim_radius", K_INTEGER, IN_PATHS | IN_RANGE | IN_AWAY, 0, 2e9, "an integer >= 0",
                        GRID_AT(claim_radius)},
    [O_GRAPH_CLAIM_RADIUS] = {"claim_radius", K_NUMBER, IN_GRAPH, 0, HUGE_VAL,
                              "a number >= 0 (a distance)", GRAPH_AT(claim_radius)},
    [O_FIELD_CLAIM_RADIUS] = {"claim_radius", K_REFUSED, IN_FIELD, 0, 0, " (it has no start)", BY_HAND},
    [O_CLAIM_WINDOW] = {"claim_window", K_INTEGER, IN_PATHS, 0, 1e9, "an integer >= 0",
                        GRID_AT(claim_window)},
    [O_NODE_COST] = {"node_cost", K_CALLBACK, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_EDGE_COST] = {"edge_cost", K_CALLBACK, IN_ALL, 0, 0, NULL, BY_HAND},
    [O_MAX_EXPANSIONS] = {"max_expansions", K_COUNT, IN_ALL & ~IN_CHECK, 0, 0, "an integer >= 0", AT(max_expansions)},
    [O_MAX_COST] = {"max_cost", K_NUMBER, IN_ALL & ~(IN_RANGE | IN_CHECK | IN_AWAY), 0, HUGE_VAL, "a number >= 0", AT(max_cost)},
    [O_RANGE_MAX_COST] = {"max_cost", K_REFUSED, IN_RANGE, 0, 0, ": the budget is it", BY_HAND},
    [O_PARTIAL] = {"partial", K_BOOLEAN, (IN_PATHS & ~IN_WALK) | IN_GRAPH, 0, 0, NULL, AT(partial)},
    [O_WALK_PARTIAL] = {"partial", K_REFUSED, IN_WALK, 0, 0,
                        " (a checked or repaired path runs to its end: nothing stops halfway)", BY_HAND},
    [O_KNOWN] = {"known", K_VALUE, IN_GRID, 0, 0, NULL, BY_HAND},
    [O_NOISE] = {"noise", K_NUMBER, IN_ALL, 0, ASTAR_MAX_VALUE, "a number in 0.." MAX_VALUE_STR, AT(noise)},
    [O_SEED] = {"seed", K_SEED, IN_ALL, 0, 0, NULL, AT(seed)},
    [O_TURN_PENALTY] = {"turn_penalty", K_NUMBER, IN_PATHS, 0, ASTAR_MAX_VALUE,
                        "a number in 0.." MAX_VALUE_STR, GRID_AT(turn_penalty)},
    [O_JUMP] = {"jump", K_JUMP, IN_PATHS & ~IN_CHECK, 0, 0, NULL, GRID_AT(jps)},
    [O_PATH] = {"path", K_PATH_FORM, IN_FIND | IN_NEAREST | IN_REPAIR | IN_AWAY, 0, 0, "\"points\" or \"flat\"", BY_HAND},
    [O_GRAPH_PATH] = {"path", K_REFUSED, IN_GRAPH, 0, 0, ": a graph's path is a flat list of node ids already",
                      BY_HAND},
    [O_INTO] = {"into", K_TABLE, IN_FIND | IN_NEAREST | IN_REPAIR | IN_AWAY | IN_GRAPH, 0, 0, NULL, BY_HAND},
    [O_INFO] = {"info", K_TABLE, IN_FIND | IN_NEAREST | IN_REPAIR | IN_AWAY | IN_GRAPH, 0, 0, NULL, BY_HAND},
    [O_INTERESTS] = {"interests", K_VALUE, (IN_PATHS & ~IN_WALK) | IN_GRAPH, 0, 0, NULL, BY_HAND},
    [O_WALK_INTERESTS] = {"interests", K_REFUSED, IN_WALK, 0, 0,
                          " (the old path's rest collects nothing: find with interests instead)", BY_HAND},
    [O_REJOIN_WITHIN] = {"rejoin_within", K_INTEGER, IN_REPAIR, 1, 2e9, "an integer >= 1", BY_HAND},
    [O_HIERARCHICAL] = {"hierarchical", K_VALUE, IN_FIND, 0, 0, NULL, BY_HAND},
    [O_HIERARCHICAL_ELSEWHERE] = {"hierarchical", K_REFUSED, IN_ALL & ~IN_FIND, 0, 0,
                                  " (two-tier search plans one path from one start to one goal "
                                  "on a grid: use grid:find)", BY_HAND},
    [O_DEAD_ENDS] = {"dead_ends", K_BOOLEAN, IN_PATHS & ~IN_CHECK, 0, 0, NULL, GRID_AT(dead_ends)},
    [O_FIELD_DEAD_ENDS] = {"dead_ends", K_REFUSED, IN_FIELD | IN_RANGE | IN_CHECK | IN_AWAY, 0, 0,
                           " (it may cover every cell it reaches, or walks the path given)", BY_HAND},
    [O_SINCE] = {"since", K_VALUE, IN_CHECK, 0, 0, NULL, BY_HAND}, /* a version: checked in lrepair.c */
    [O_CLASSES] = {"classes", K_VALUE, IN_GRID, 0, 0, NULL, BY_HAND},
    [O_SIZE] = {"size", K_BOUNDED, IN_GRID, 1, ASTAR_MAX_SIZE, "an integer in 1..8", GRID_AT(size)},
    [O_GRAPH_SIZE] = {"size", K_REFUSED, IN_GRAPH, 0, 0, " (a unit's footprint is a square of cells: grid queries)",
                      BY_HAND},
    [O_AWAY_MAX_COST] = {"max_cost", K_REFUSED, IN_AWAY, 0, 0,
                         ": its budget is option 'radius' (flee) or the cost (wander)", BY_HAND},
    [O_DISTANCE] = {"distance", K_VALUE, IN_FLEE, 0, 0, NULL, BY_HAND}, /* required: checked in lflee.c */
    [O_RADIUS] = {"radius", K_NUMBER, IN_FLEE, 0, HUGE_VAL, "a number >= 0", BY_HAND},
    [O_THRESHOLD] = {"threshold", K_NUMBER, IN_FLEE, 0, ASTAR_MAX_VALUE, "a number in 0.." MAX_VALUE_STR, BY_HAND},
    [O_TOLERANCE] = {"tolerance", K_NUMBER, IN_WANDER, 0, 1, "a number in 0..1", BY_HAND},
    /* graph:distance_field only (the others refuse it by hand, lgraph.c): a grid's field is
     * toward its goals already. */
    [O_TOWARD] = {"toward", K_BOOLEAN, IN_GRAPH, 0, 0, NULL, GRAPH_AT(toward)},
};

static const char *const PATH_FORMS[] = {"points", "flat", NULL};

const char *const HEURISTIC_NAMES[] = {"octile", "manhattan", "euclidean", "chebyshev",
                                       "zero", "hex", NULL};

/* The row for the key at idx in the functions `in`; NULL if there is none: *known says whether
 * the name is an option elsewhere. */
static const option *option_row(lua_State *L, int idx, unsigned in, bool *known) {
    *known = false;
    if (lua_type(L, idx) != LUA_TSTRING) return NULL;
    for (int id = 0; id < NOPTIONS; id++) {
        if (!string_is(L, idx, OPTIONS[id].name)) continue;
        *known = true;
        if (OPTIONS[id].in & in) return &OPTIONS[id];
    }
    return NULL;
}

static int option_error(lua_State *L, const query_args *a, const option *o, int idx) {
    return arg_error_fmt(L, a->arg, "option '%s' must be %s, got %s", o->name, o->rule,
                         value_str(L, idx));
}

static void read_count(lua_State *L, const query_args *a, const option *o, int idx, double lo) {
    lua_Number n;
    if (!test_integer(L, idx, lo, HUGE_VAL, &n)) option_error(L, a, o, idx);
}

/* Option 'influence' at idx: one layer, or a list { {layer, weight}, ... } whose layers are
 * pinned on the stack in turn. A graph also takes a Lua array of values per node for a layer;
 * then a list is told by its first entry being a table. */
static void read_influence(lua_State *L, query_args *a, int idx) {
    bool list = lua_type(L, idx) == LUA_TTABLE;
    if (list && a->in == IN_GRAPH) {
        lua_rawgeti(L, idx, 1);
        list = lua_type(L, -1) == LUA_TTABLE;
        lua_pop(L, 1);
    }
    const char *entry = a->in == IN_GRAPH ? "{values, weight}" : "{layer, weight}";
    if (!list) {
        if (lua_type(L, idx) != LUA_TUSERDATA && !(a->in == IN_GRAPH && lua_type(L, idx) == LUA_TTABLE))
            arg_error_fmt(L, a->arg, "option 'influence' must be an astar.Influence or a list of %s, got %s",
                          entry, type_name(L, idx));
        a->nlayers = 1;
        a->layer_slot[0] = idx;
        a->layer_weight[0] = 1.0;
        return;
    }
    if (a->slot[O_INFLUENCE_WEIGHT])
        arg_error_fmt(L, a->arg, "option 'influence_weight' cannot be used with a list of "
                                 "layers: give each layer its weight");
    size_t n = (size_t)list_length(L, idx);
    if (n > ASTAR_MAX_LAYERS)
        arg_error_fmt(L, a->arg, "option 'influence' lists %d layers, at most %d are allowed", (int)n,
                      ASTAR_MAX_LAYERS);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, (int)i);
        if (lua_type(L, -1) != LUA_TTABLE)
            arg_error_fmt(L, a->arg, "option 'influence'[%d] must be a table %s, got %s", (int)i,
                          entry, type_name(L, -1));
        lua_rawgeti(L, -1, 2);
        double w = 1.0;
        if (!lua_isnil(L, -1)) {
            w = lua_tonumber(L, -1);
            if (lua_type(L, -1) != LUA_TNUMBER || !(fabs(w) <= ASTAR_MAX_VALUE))
                arg_error_fmt(L, a->arg, "option 'influence'[%d][2] (weight) must be a number in -"
                              MAX_VALUE_STR ".." MAX_VALUE_STR ", got %s", (int)i, value_str(L, -1));
        }
        lua_pop(L, 1);
        lua_rawgeti(L, -1, 1);
        lua_remove(L, -2); /* the entry goes, its layer stays: pinned for the query */
        a->layer_slot[i - 1] = lua_gettop(L);
        a->layer_weight[i - 1] = w;
    }
    a->nlayers = (int)n;
}

/*
 * Option 'interests' at idx: a list of {x=, y=, value=} or {x, y, value} (a graph's: {id=,
 * value=} or {id, value}), each field read once, into a userdata pinned on the stack. The
 * places are checked against the grid or graph by the resolve.
 */
static void read_interests(lua_State *L, query_args *a, int idx) {
    bool graph = a->in == IN_GRAPH;
    if (lua_type(L, idx) != LUA_TTABLE)
        arg_error_fmt(L, a->arg, "option 'interests' must be a list of %s, got %s",
                      graph ? "{id=, value=}" : "{x=, y=, value=}", type_name(L, idx));
    size_t n = (size_t)list_length(L, idx);
    if (n > (size_t)INT32_MAX / (3 * sizeof(double) + sizeof(int32_t)))
        arg_error_fmt(L, a->arg, "option 'interests' lists too many");
    static const char *const GRID_FIELDS[] = {"x", "y", "value"}, *const GRAPH_FIELDS[] = {"id", "value"};
    const char *const *fields = graph ? GRAPH_FIELDS : GRID_FIELDS;
    int nfields = graph ? 2 : 3;
    /* A userdata on the stack: freed with it, whatever error comes. */
    char *block = astar_newuserdata_plain(L, n * (3 * sizeof(double) + sizeof(int32_t)) + 1);
    a->interest_slot = lua_gettop(L);
    a->interest_place = (double *)(void *)block;
    a->interest_values = a->interest_place + 2 * n;
    a->interest_ids = (int32_t *)(void *)(a->interest_values + n);
    a->ninterests = (int32_t)n;
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i);
        if (lua_type(L, -1) != LUA_TTABLE)
            arg_error_fmt(L, a->arg, "option 'interests'[%d] must be a table %s, got %s", (int)i,
                          graph ? "{id=, value=}" : "{x=, y=, value=}", type_name(L, -1));
        double got[3] = {0, 0, 0};
        for (int k = 0; k < nfields; k++) {
            push_entry_field(L, -1 - k, fields[k], k);
            bool value = k == nfields - 1;
            bool ok = value ? lua_type(L, -1) == LUA_TNUMBER && (got[k] = lua_tonumber(L, -1)) > 0 &&
                                  got[k] <= ASTAR_MAX_INTEREST
                            : test_integer(L, -1, 1, HUGE_VAL, &got[k]);
            if (!ok) /* values: ASTAR_MAX_INTEREST keeps scores exact (astar.h) */
                arg_error_fmt(L, a->arg, "option 'interests'[%d].%s must be %s, got %s", (int)i, fields[k],
                              value ? "a number in (0, " MAX_INTEREST_STR "]" : "an integer >= 1",
                              value_str(L, -1));
        }
        lua_pop(L, nfields + 1);
        a->interest_place[2 * (i - 1)] = got[0];
        a->interest_place[2 * (i - 1) + 1] = graph ? 0 : got[1];
        a->interest_values[i - 1] = got[nfields - 1];
    }
}

/*
 * Option 'classes' at idx: { [class] = factor or false, ... }, read raw (lua_next: no
 * metamethod runs, so nothing can change under the read), into 256 factors in a userdata
 * pinned on the stack: 1 for a class not listed, INFINITY for false.
 */
static void read_classes(lua_State *L, query_args *a, int idx) {
    if (lua_type(L, idx) != LUA_TTABLE)
        arg_error_fmt(L, a->arg, "option 'classes' must be a table { [class] = factor or false }, got %s",
                      type_name(L, idx));
    double *f = astar_newuserdata_plain(L, 256 * sizeof *f);
    a->class_slot = lua_gettop(L);
    a->class_factor = f;
    for (int i = 0; i < 256; i++) f[i] = 1.0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_Number k, v = lua_tonumber(L, -1);
        if (!test_integer(L, -2, 0, 255, &k))
            arg_error_fmt(L, a->arg, "option 'classes' has key %s: a class is an integer in 0..255",
                          value_str(L, -2));
        if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) v = HUGE_VAL;
        else if (lua_type(L, -1) != LUA_TNUMBER || !(v > 0 && v <= ASTAR_MAX_VALUE))
            arg_error_fmt(L, a->arg, "option 'classes'[%d] must be a number in (0, " MAX_VALUE_STR
                          "] or false, got %s", (int)k, value_str(L, -1));
        f[(int)k] = v;
        lua_pop(L, 1);
    }
}

/*
 * Reads the options table at arg (none or nil: no options) of a query of `in` (fn names it
 * in messages): its keys raw, then each option it may hold exactly once (an __index of the
 * table may run then, and nothing of ours is resolved yet), then their values. Scalars land
 * in query (an astar_query, or an astar_graph_query when in is IN_GRAPH); objects,
 * callbacks and the unit key stay pinned on the stack, their slots in a, for the resolve.
 */
void read_options(lua_State *L, int arg, unsigned in, const char *fn, query_args *a,
                  void *query) {
    memset(a, 0, sizeof *a);
    a->arg = arg;
    a->in = in;
    a->fn = fn;
    if (lua_isnoneornil(L, arg)) return;
    if (lua_type(L, arg) != LUA_TTABLE) type_error(L, arg, "table");
    check_stack(L, NOPTIONS + ASTAR_MAX_LAYERS + 8);
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        lua_pop(L, 1);
        bool known;
        const option *o = option_row(L, -1, in, &known);
        if (!o && known && in != IN_GRAPH) /* a graph's options are its own */
            arg_error_fmt(L, arg, "option %s does not apply to %s", value_str(L, -1), fn);
        if (!o) arg_error_fmt(L, arg, "unknown option %s", value_str(L, -1));
        if (o->kind == K_REFUSED)
            arg_error_fmt(L, arg, "option '%s' does not apply to %s%s", o->name, fn, o->rule);
    }
    for (int id = 0; id < NOPTIONS; id++) {
        if (!(OPTIONS[id].in & in) || OPTIONS[id].kind == K_REFUSED) continue;
        lua_getfield(L, arg, OPTIONS[id].name);
        if (lua_isnil(L, -1)) lua_pop(L, 1);
        else a->slot[id] = lua_gettop(L);
    }

    char *land = query;
    for (int id = 0; id < NOPTIONS; id++) {
        const option *o = &OPTIONS[id];
        int v = a->slot[id];
        if (!v) continue;
        ptrdiff_t at = in == IN_GRAPH ? o->graph_at : o->grid_at;
        lua_Number n = lua_tonumber(L, v);
        switch (o->kind) {
        case K_NUMBER:
            if (lua_type(L, v) != LUA_TNUMBER || !(n >= o->lo && n <= o->hi)) option_error(L, a, o, v);
            if (at >= 0) *(double *)(void *)(land + at) = n;
            break;
        case K_INTEGER:
            read_count(L, a, o, v, o->lo);
            if (at >= 0) *(int32_t *)(void *)(land + at) = n > o->hi ? (int32_t)o->hi : (int32_t)n;
            break;
        case K_BOUNDED:
            read_count(L, a, o, v, o->lo);
            if (n > o->hi) option_error(L, a, o, v);
            *(int32_t *)(void *)(land + at) = (int32_t)n;
            break;
        case K_COUNT:
            read_count(L, a, o, v, 0);
            *(uint64_t *)(void *)(land + at) = n >= 1.8e19 ? UINT64_MAX : (uint64_t)n;
            break;
        case K_BOOLEAN:
        case K_JUMP:
            if (lua_type(L, v) != LUA_TBOOLEAN)
                arg_error_fmt(L, arg, "option '%s' must be a boolean, got %s", o->name, type_name(L, v));
            if (o->kind == K_BOOLEAN) *(int *)(void *)(land + at) = lua_toboolean(L, v);
            else *(astar_jps *)(void *)(land + at) = lua_toboolean(L, v) ? ASTAR_JPS_AUTO : ASTAR_JPS_OFF;
            break;
        case K_SEED: {
            int isint;
            lua_Integer seed = astar_tointegerx(L, v, &isint);
            if (!isint) arg_error_fmt(L, arg, "option 'seed' must be an integer, got %s", value_str(L, v));
            *(uint32_t *)(void *)(land + at) = (uint32_t)(uint64_t)seed; /* modulo 2^32 */
            break;
        }
        case K_DIAGONAL: {
            int i = name_index(L, v, DIAGONAL_NAMES);
            if (i < 0) arg_error_fmt(L, arg, "option 'diagonal' must be " DIAGONAL_RULE ", got %s", value_str(L, v));
            *(astar_diagonal *)(void *)(land + at) = (astar_diagonal)i;
            break;
        }
        case K_HEURISTIC:
            if (lua_type(L, v) == LUA_TSTRING) {
                int i = name_index(L, v, HEURISTIC_NAMES);
                bool graph_name = i == ASTAR_H_EUCLIDEAN || i == ASTAR_H_ZERO;
                if (in == IN_GRAPH && !graph_name)
                    arg_error_fmt(L, arg, "option 'heuristic' must be \"euclidean\", \"zero\" or a function, got %s",
                                  value_str(L, v));
                if (i < 0)
                    arg_error_fmt(L, arg, "option 'heuristic' must be \"octile\", \"manhattan\", "
                                  "\"euclidean\", \"chebyshev\", \"zero\", \"hex\" or a function, got %s",
                                  value_str(L, v));
                a->heuristic = (astar_heuristic)i;
            } else if (is_callable(L, v)) {
                /* the nearest of many aims at no one goal a function could be asked about */
                if (in == IN_NEAREST || (in == IN_GRAPH && strcmp(a->fn, "find_nearest") == 0))
                    arg_error_fmt(L, arg, "option 'heuristic' must be a name for %s", a->fn);
                a->heuristic = ASTAR_H_CUSTOM;
            } else {
                arg_error_fmt(L, arg, "option 'heuristic' must be a string or a function, got %s", type_name(L, v));
            }
            break;
        case K_CALLBACK:
            if (!is_callable(L, v))
                arg_error_fmt(L, arg, "option '%s' must be a function, got %s", o->name, type_name(L, v));
            break;
        case K_PATH_FORM: {
            int i = name_index(L, v, PATH_FORMS);
            if (i < 0) option_error(L, a, o, v);
            a->flat_path = i == 1;
            break;
        }
        case K_TABLE:
            if (lua_type(L, v) != LUA_TTABLE)
                arg_error_fmt(L, arg, "option '%s' must be a table, got %s", o->name, type_name(L, v));
            /* Its path entries or info fields would be read as unknown options next time. */
            if (lua_rawequal(L, v, arg))
                arg_error_fmt(L, arg, "option '%s' cannot be the options table itself", o->name);
            break;
        case K_VALUE:
        case K_REFUSED:
            break;
        }
    }
    if (a->slot[O_INTERESTS]) {
        read_interests(L, a, a->slot[O_INTERESTS]);
        if (a->slot[O_PARTIAL] && lua_toboolean(L, a->slot[O_PARTIAL]))
            arg_error_fmt(L, arg, "option 'interests' cannot be used with 'partial' (a partial path "
                                  "is ranked by its distance to the goal, not by a value)");
    }
    if (a->slot[O_CLASSES]) read_classes(L, a, a->slot[O_CLASSES]);
    if (a->slot[O_INFLUENCE]) read_influence(L, a, a->slot[O_INFLUENCE]);
    else if (a->slot[O_INFLUENCE_WEIGHT]) arg_error_fmt(L, arg, "option 'influence_weight' needs option 'influence'");
    if (a->slot[O_INFLUENCE_WEIGHT] && a->nlayers == 1)
        a->layer_weight[0] = lua_tonumber(L, a->slot[O_INFLUENCE_WEIGHT]);
    if (!a->slot[O_CLAIMS]) {
        static const option_id NEED_CLAIMS[] = {O_UNIT, O_CLAIM_PENALTY, O_CLAIM_RADIUS,
                                                O_GRAPH_CLAIM_RADIUS, O_CLAIM_WINDOW};
        for (size_t i = 0; i < sizeof NEED_CLAIMS / sizeof *NEED_CLAIMS; i++)
            if (a->slot[NEED_CLAIMS[i]])
                arg_error_fmt(L, arg, "option '%s' needs option 'claims'", OPTIONS[NEED_CLAIMS[i]].name);
    }
    if (a->slot[O_UNIT]) {
        int key = a->slot[O_UNIT];
        if (lua_type(L, key) != LUA_TSTRING && !is_integral(L, key))
            arg_error_fmt(L, arg, "option 'unit' must be an integer or a string, got %s", value_str(L, key));
    }
}

/* --------------------------------------------------------------- resolve */

/* The object of class mt at idx, named `what` by messages about option arg: open. */
lobject *resolve_object(lua_State *L, int arg, int idx, const char *mt, const char *what) {
    lobject *o = test_object(L, idx, mt);
    if (!o) arg_error_fmt(L, arg, "%s must be an %s, got %s", what, mt, type_name(L, idx));
    if (o->freed) arg_error_fmt(L, arg, "%s is a freed %s", what, mt);
    return o;
}

/* How messages name layer i of option 'influence' (made only for an error: pushed). */
const char *influence_name(lua_State *L, const query_args *a, int i) {
    if (a->slot[O_INFLUENCE] == a->layer_slot[i]) return "option 'influence'";
    return lua_pushfstring(L, "option 'influence'[%d][1]", i + 1);
}

/* Object o is read by the query: marked "in use" while it runs (once, however often read). */
void mark_read(run_ctx *c, lobject *o) {
    for (int i = 0; i < c->nread; i++)
        if (c->read[i] == o) return;
    c->read[c->nread++] = o;
}

/* ------------------------------------------------------------- callbacks */

/* Where a callback was asked: cell (x, y), or graph node x when y < 0 (0-based in, 1-based out). */
static const char *callback_place(lua_State *L, int32_t x, int32_t y) {
    if (y < 0) return lua_pushfstring(L, "node %d", (int)x + 1);
    return lua_pushfstring(L, "(%d, %d)", (int)x + 1, (int)y + 1);
}

/* Reads a cost callback's result; raises (naming the callback) on a bad one. */
static int callback_result(lua_State *L, const char *name, int32_t x, int32_t y, double *extra) {
    int t = lua_type(L, -1);
    int r = ASTAR_CB_PASS;
    *extra = 0.0;
    if (t == LUA_TNUMBER) {
        lua_Number v = lua_tonumber(L, -1);
        if (!(v >= 0 && (v <= ASTAR_MAX_VALUE || v == HUGE_VAL))) {
            const char *value = value_str(L, -1); /* before the place: both push a string */
            luaL_error(L, "%s returned %s for %s: expected a number in 0.." MAX_VALUE_STR
                          ", math.huge, nil or false", name, value, callback_place(L, x, y));
        }
        *extra = v;
    } else if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
        r = ASTAR_CB_BLOCK;
    } else if (t != LUA_TNIL) {
        const char *type = type_name(L, -1);
        luaL_error(L, "%s returned a %s for %s: expected a number in 0.." MAX_VALUE_STR
                      ", math.huge, nil or false", name, type, callback_place(L, x, y));
    }
    lua_settop(L, -2);
    return r;
}

/* A custom heuristic's result at the stack top, popped; raises on a bad one. */
static double heuristic_result(lua_State *L, int32_t x, int32_t y) {
    lua_Number h = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(h >= 0 && h <= ASTAR_MAX_VALUE)) {
        const char *value = value_str(L, -1);
        luaL_error(L, "heuristic returned %s for %s: expected a number in 0.." MAX_VALUE_STR, value,
                   callback_place(L, x, y));
    }
    lua_settop(L, -2);
    return h;
}

/*
 * Calls the runner's callback at slot (RUN_NODE_COST...) of the query whose run_ctx is ud
 * with the first n (1..4) of the node ids or coordinates a, b, c, d, 1-based, and leaves its
 * one result. Returns the thread. n is a constant at every call, and the trampolines are in
 * this file with it: they run once per node or step a search considers.
 */
static lua_State *call_back(void *ud, int slot, int n, int32_t a, int32_t b, int32_t c, int32_t d) {
    lua_State *L = ((run_ctx *)ud)->L;
    lua_pushvalue(L, slot);
    lua_pushinteger(L, (lua_Integer)a + 1);
    if (n > 1) lua_pushinteger(L, (lua_Integer)b + 1);
    if (n > 2) lua_pushinteger(L, (lua_Integer)c + 1);
    if (n > 3) lua_pushinteger(L, (lua_Integer)d + 1);
    lua_call(L, n, 1);
    return L;
}

/* The trampolines of grid queries: the core calls them with 0-based cells. */
static int grid_node_cost(void *ud, int32_t x, int32_t y, double *extra) {
    lua_State *L = call_back(ud, RUN_NODE_COST, 2, x, y, 0, 0);
    return callback_result(L, "node_cost", x, y, extra);
}

static int grid_edge_cost(void *ud, int32_t x, int32_t y, int32_t fx, int32_t fy, double *extra) {
    lua_State *L = call_back(ud, RUN_EDGE_COST, 4, x, y, fx, fy);
    return callback_result(L, "edge_cost", x, y, extra);
}

static double grid_heuristic(void *ud, int32_t x, int32_t y, int32_t gx, int32_t gy) {
    lua_State *L = call_back(ud, RUN_HEURISTIC, 4, x, y, gx, gy);
    return heuristic_result(L, x, y);
}

/* ... and of graph queries, with 0-based nodes. */
static int graph_node_cost(void *ud, int32_t node, double *extra) {
    lua_State *L = call_back(ud, RUN_NODE_COST, 1, node, 0, 0, 0);
    return callback_result(L, "node_cost", node, -1, extra);
}

static int graph_edge_cost(void *ud, int32_t to, int32_t from, double *extra) {
    lua_State *L = call_back(ud, RUN_EDGE_COST, 2, to, from, 0, 0);
    return callback_result(L, "edge_cost", to, -1, extra);
}

static double graph_heuristic(void *ud, int32_t node, int32_t goal) {
    lua_State *L = call_back(ud, RUN_HEURISTIC, 2, node, goal, 0, 0);
    return heuristic_result(L, node, -1);
}

/* The stack slots of the callbacks read_options found, for the runner (push_run_args). */
static void callback_slots(run_ctx *c, const query_args *a) {
    c->callback[0] = a->slot[O_NODE_COST];
    c->callback[1] = a->slot[O_EDGE_COST];
    c->callback[2] = a->heuristic == ASTAR_H_CUSTOM ? a->slot[O_HEURISTIC] : 0;
}

/*
 * The callbacks of a grid query c (the first member of the ctx the trampolines get), for
 * its astar_query q: their slots, and the trampolines of those given.
 */
void resolve_grid_callbacks(run_ctx *c, astar_query *q, const query_args *a) {
    callback_slots(c, a);
    if (c->callback[0]) q->node_cost = grid_node_cost, q->node_cost_ud = c;
    if (c->callback[1]) q->edge_cost = grid_edge_cost, q->edge_cost_ud = c;
    if (c->callback[2]) q->heuristic_fn = grid_heuristic, q->heuristic_ud = c;
}

/* resolve_grid_callbacks of a graph query. */
void resolve_graph_callbacks(run_ctx *c, astar_graph_query *q, const query_args *a) {
    callback_slots(c, a);
    if (c->callback[0]) q->node_cost = graph_node_cost, q->node_cost_ud = c;
    if (c->callback[1]) q->edge_cost = graph_edge_cost, q->edge_cost_ud = c;
    if (c->callback[2]) q->heuristic_fn = graph_heuristic, q->heuristic_ud = c;
}

/* ------------------------------------------------------------------ pool */

/* A new workspace at the end of pool p (free), whose object is owner. */
static workspace *new_workspace(lua_State *L, pool *p, const lobject *owner) {
    astar_alloc a = lua_allocator(L);
    workspace *w = a.fn(a.ud, NULL, 0, sizeof *w);
    if (!w) no_memory(L);
    w->search = p->kind->make(owner, &a);
    if (!w->search) {
        a.fn(a.ud, w, sizeof *w, 0);
        status_error(L, astar_last_status()); /* a grid's workspace counts its cells first */
    }
    w->busy = false;
    w->next = NULL;
    workspace **tail = &p->first;
    while (*tail) tail = &(*tail)->next;
    *tail = w;
    return w;
}

/*
 * A free workspace of pool p, whose object is owner: the first that is not busy, else a new
 * one (made at the end, so that the outermost query always takes the first, warm one).
 */
workspace *acquire_workspace(lua_State *L, pool *p, const lobject *owner) {
    workspace *w = p->first;
    while (w && w->busy) w = w->next;
    if (!w) w = new_workspace(L, p, owner);
    w->busy = true;
    if (++p->busy > p->peak) p->peak = p->busy;
    if (++p->acquired == POOL_WINDOW) { /* the next window starts from what is busy now */
        p->last_peak = p->peak;
        p->peak = p->busy;
        p->acquired = 0;
    }
    return w;
}

/* Unlinks and frees workspace *at of p (not busy). */
static void drop_workspace(lua_State *L, pool *p, workspace **at) {
    astar_alloc a = lua_allocator(L);
    workspace *w = *at;
    *at = w->next;
    p->kind->drop(w->search);
    a.fn(a.ud, w, sizeof *w, 0);
}

/*
 * Gives w back to p, then frees the idle workspaces beyond the first `keep`: keep is the most
 * that were busy at once over the last POOL_WINDOW to 2 * POOL_WINDOW acquisitions, at least
 * POOL_MARGIN and at least the reserved ones. So the pool holds what its busiest recent
 * moment needed (a frame's jobs and nested finds), and a burst's workspaces go with the next
 * windows; the first ones, the warm ones the outermost queries take, stay.
 */
void release_workspace(lua_State *L, pool *p, workspace *w) {
    w->busy = false;
    p->busy--;
    int keep = p->peak > p->last_peak ? p->peak : p->last_peak;
    if (keep < POOL_MARGIN) keep = POOL_MARGIN;
    if (keep < p->reserved) keep = p->reserved;
    workspace **at = &p->first;
    for (int i = 0; *at; i++) {
        if (i >= keep && !(*at)->busy) drop_workspace(L, p, at);
        else at = &(*at)->next;
    }
}

/* Makes p hold at least n workspaces (the new ones free, at its end) and keep n however few
 * are busy; its first. An error leaves those made so far in the pool. */
workspace *pool_reserve(lua_State *L, pool *p, const lobject *owner, int n) {
    int have = 0;
    for (workspace *w = p->first; w; w = w->next) have++;
    p->reserved = n;
    for (; have < n; have++) new_workspace(L, p, owner);
    return p->first;
}

bool pool_keeps_warm(const pool *p, const workspace *w) {
    int i = 0;
    for (const workspace *at = p->first; at && i < p->reserved; at = at->next, i++)
        if (at == w) return true;
    return false;
}

/* astar.core.workspaces(grid or graph) -> the workspaces its pool holds, and how many are
 * busy: for specs and benchmarks (the sandbox gives scripts no astar.core). */
int l_workspaces(lua_State *L) {
    lgrid *g = test_object(L, 1, GRID_MT);
    lgraph *gr = g ? NULL : test_object(L, 1, GRAPH_MT);
    if (!g && !gr) return arg_error_fmt(L, 1, "astar.Grid or astar.Graph expected, got %s", value_str(L, 1));
    const lobject *o = g ? &g->base : &gr->base;
    if (o->freed) return freed_error(L, g ? GRID_MT : GRAPH_MT);
    const pool *p = g ? &g->pool : &gr->pool;
    int n = 0;
    for (const workspace *w = p->first; w; w = w->next) n++;
    lua_pushinteger(L, n);
    lua_pushinteger(L, p->busy);
    return 2;
}

/* Frees every workspace of p (its object is being freed: none is busy). */
void free_pool(lua_State *L, pool *p) {
    while (p->first) drop_workspace(L, p, &p->first);
}

/* ------------------------------------------------------------------- run */

/* Pushes the protected runner (upvalue 1 of the calling function) and its arguments: ud
 * (what the runner reads at RUN_CTX), then c's callbacks (nil for none) and pass slots. */
void push_run_args(lua_State *L, void *ud, const run_ctx *c) {
    check_stack(L, RUN_NARGS + c->npass + 8);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushlightuserdata(L, ud);
    for (int i = 0; i < 3; i++) {
        if (c->callback[i]) lua_pushvalue(L, c->callback[i]);
        else lua_pushnil(L);
    }
    for (int i = 0; i < c->npass; i++) lua_pushvalue(L, c->pass[i]);
}

/*
 * Calls the runner push_run_args pushed, in lua_pcall, with c's objects marked "in use"
 * (they refuse writers and __gc) from its start to its end. Returns lua_pcall's code: the
 * runner's two results or its error value are on the stack.
 */
int run_marked(lua_State *L, const run_ctx *c) {
    /* From here to the end of lua_pcall nothing may raise: the marks must be undone. */
    for (int i = 0; i < c->nread; i++) c->read[i]->readers++;
    int rc = lua_pcall(L, RUN_NARGS + c->npass, 2, 0);
    for (int i = 0; i < c->nread; i++) c->read[i]->readers--;
    return rc;
}

/*
 * Runs the resolved query c (the first member of the runner's ctx) on a workspace of pool p
 * (of owner, the grid or graph), given back after. Returns the runner's two results or
 * re-raises its error.
 */
int run_query(lua_State *L, run_ctx *c, pool *p, const lobject *owner) {
    push_run_args(L, c, c); /* first: its stack check may raise, and a taken workspace stays taken */
    c->ws = acquire_workspace(L, p, owner);
    int rc = run_marked(L, c);
    release_workspace(L, p, c->ws);
    if (rc != LUA_OK) return lua_error(L); /* the callback's own error value, unchanged */
    return 2;
}
