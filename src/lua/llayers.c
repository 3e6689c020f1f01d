/*
 * llayers.c -- what a grid query may read besides the grid: astar.Influence (influence
 * layers, a cost per cell) and astar.Mask (fog of war: the cells a unit knows).
 */
#include <math.h>

#include "lbinding.h"

static llayer *check_layer(lua_State *L, int arg) { return check_open(L, arg, LAYER_MT); }

static void layer_free(lua_State *L, void *o) {
    llayer *l = o;
    (void)L;
    astar_layer_free(l->layer);
    l->layer = NULL;
}

/* A layer's value, or a weight of one: |v| <= ASTAR_MAX_VALUE, so no query's sum overflows. */
static double check_value(lua_State *L, int arg, const char *what) {
    if (lua_type(L, arg) != LUA_TNUMBER) type_error(L, arg, "number");
    lua_Number v = lua_tonumber(L, arg);
    if (!(fabs(v) <= ASTAR_MAX_VALUE))
        arg_error_fmt(L, arg, "%s must be a number in -" MAX_VALUE_STR ".." MAX_VALUE_STR ", got %s", what,
                      value_str(L, arg));
    return v;
}

/* What a write to a layer answered: ESTOPPED, the work limit's error; another failure, a
 * value out of range (`what`, named as argument arg's). */
static int layer_status(lua_State *L, astar_status st, int arg, const char *what) {
    if (st == ASTAR_ESTOPPED) return work_limit_error(L);
    if (st != ASTAR_OK) arg_error_fmt(L, arg, "%s would be out of -" MAX_VALUE_STR ".." MAX_VALUE_STR, what);
    return 0;
}

/* astar.influence(width, height [, initial]) */
int l_influence(lua_State *L) {
    int32_t w, h;
    check_size_args(L, &w, &h);
    double initial = lua_isnoneornil(L, 3) ? 0.0 : check_value(L, 3, "initial value");
    astar_alloc a;
    llayer *l = new_sized_object(L, sizeof *l, LAYER_MT, w, h, &a);
    l->layer = astar_layer_new(w, h, initial, &a);
    return l->layer ? 1 : status_error(L, astar_last_status());
}

static int layer_set(lua_State *L) {
    int32_t x, y;
    llayer *l = check_cell(L, LAYER_MT, &x, &y);
    double v = check_value(L, 4, "value");
    check_writable(L, &l->base, "influence layer");
    astar_layer_set(l->layer, x, y, v);
    return 0;
}

static int layer_add(lua_State *L) {
    int32_t x, y;
    llayer *l = check_cell(L, LAYER_MT, &x, &y);
    double v = check_value(L, 4, "value");
    check_writable(L, &l->base, "influence layer");
    layer_status(L, astar_layer_add(l->layer, x, y, v), 4, "the sum"); /* EINVAL only */
    lua_pushnumber(L, astar_layer_get(l->layer, x, y));
    return 1;
}

static int layer_get(lua_State *L) {
    int32_t x, y;
    llayer *l = check_cell(L, LAYER_MT, &x, &y);
    lua_pushnumber(L, astar_layer_get(l->layer, x, y));
    return 1;
}

static int layer_fill(lua_State *L) {
    llayer *l = check_layer(L, 1);
    double v = check_value(L, 2, "value");
    check_writable(L, &l->base, "influence layer");
    if (astar_layer_fill(l->layer, v) != ASTAR_OK) return work_limit_error(L); /* v was checked */
    return 0;
}

static int layer_stamp(lua_State *L) {
    static const char *const FALLOFFS[] = {"linear", "quadratic", "constant", NULL};
    int32_t x, y;
    llayer *l = check_cell(L, LAYER_MT, &x, &y);
    double radius = check_finite(L, 4, "radius");
    if (radius < 0) arg_error_fmt(L, 4, "radius must be >= 0, got %s", value_str(L, 4));
    double strength = check_value(L, 5, "strength");
    int falloff = lua_isnoneornil(L, 6) ? ASTAR_FALLOFF_LINEAR : name_index(L, 6, FALLOFFS);
    if (falloff < 0)
        arg_error_fmt(L, 6, "falloff must be \"linear\", \"quadratic\" or \"constant\", got %s", value_str(L, 6));
    check_writable(L, &l->base, "influence layer");
    return layer_status(L, astar_layer_stamp(l->layer, x, y, radius, strength, (astar_falloff)falloff), 5,
                        "a stamped value");
}

static int layer_decay(lua_State *L) {
    llayer *l = check_layer(L, 1);
    double factor = check_value(L, 2, "factor");
    if (factor < 0) arg_error_fmt(L, 2, "factor must be >= 0, got %s", value_str(L, 2));
    check_writable(L, &l->base, "influence layer");
    return layer_status(L, astar_layer_scale(l->layer, factor), 2, "a decayed value");
}

static int layer_spread(lua_State *L) {
    llayer *l = check_layer(L, 1);
    double decay = check_finite(L, 2, "decay");
    if (decay < 0) arg_error_fmt(L, 2, "decay must be >= 0, got %s", value_str(L, 2));
    double momentum = check_finite(L, 3, "momentum");
    if (momentum < 0 || momentum > 1)
        arg_error_fmt(L, 3, "momentum must be between 0 and 1, got %s", value_str(L, 3));
    const astar_grid *walk = NULL;
    if (!lua_isnoneornil(L, 4)) {
        lgrid *g = check_grid(L, 4);
        if (g->base.width != l->base.width || g->base.height != l->base.height)
            arg_error_fmt(L, 4, "the grid is %dx%d, the layer %dx%d", (int)g->base.width,
                          (int)g->base.height, (int)l->base.width, (int)l->base.height);
        walk = g->grid;
    }
    check_writable(L, &l->base, "influence layer");
    astar_status st = astar_layer_spread(l->layer, decay, momentum, walk);
    if (st != ASTAR_OK) return status_error(L, st);
    return 0;
}

static int layer_max_abs(lua_State *L) {
    llayer *l = check_layer(L, 1);
    double m = astar_layer_max_abs(l->layer);
    if (m != m) return work_limit_error(L); /* NaN: stopped */
    lua_pushnumber(L, m);
    return 1;
}

static int layer_add_layer(lua_State *L) {
    llayer *l = check_layer(L, 1);
    llayer *other = check_layer(L, 2);
    if (other->base.width != l->base.width || other->base.height != l->base.height)
        arg_error_fmt(L, 2, "the layer is %dx%d, this one %dx%d", (int)other->base.width,
                      (int)other->base.height, (int)l->base.width, (int)l->base.height);
    double weight = lua_isnoneornil(L, 3) ? 1.0 : check_value(L, 3, "weight");
    check_writable(L, &l->base, "influence layer");
    return layer_status(L, astar_layer_add_layer(l->layer, other->layer, weight), 3, "a sum");
}

static int layer_size(lua_State *L) { return push_size(L, LAYER_MT); }

static const luaL_Reg LAYER_METHODS[] = {
    {"size", layer_size},     {"set", layer_set},         {"get", layer_get},
    {"add", layer_add},       {"fill", layer_fill},       {"stamp", layer_stamp},
    {"decay", layer_decay},   {"spread", layer_spread},   {"max_abs", layer_max_abs},
    {"add_layer", layer_add_layer}, {NULL, NULL}};

const lclass LAYER_CLASS = {
    .name = LAYER_MT, .what = "influence layer", .methods = LAYER_METHODS,
    .field = size_field, .free = layer_free};

/* ---------------------------------------------------------- fog of war */

static void mask_free(lua_State *L, void *o) {
    lmask *m = o;
    (void)L;
    astar_mask_free(m->mask);
    m->mask = NULL;
}

/* astar.mask(width, height): nothing known */
int l_mask(lua_State *L) {
    int32_t w, h;
    check_size_args(L, &w, &h);
    astar_alloc a;
    lmask *m = new_sized_object(L, sizeof *m, MASK_MT, w, h, &a);
    m->mask = astar_mask_new(w, h, &a);
    return m->mask ? 1 : status_error(L, astar_last_status());
}

static int mask_reveal(lua_State *L) {
    int32_t x, y;
    lmask *m = check_cell(L, MASK_MT, &x, &y);
    double radius = 0.0;
    if (!lua_isnoneornil(L, 4)) {
        if (lua_type(L, 4) != LUA_TNUMBER) type_error(L, 4, "number");
        radius = lua_tonumber(L, 4);
        if (!(radius >= 0)) arg_error_fmt(L, 4, "radius must be >= 0, got %s", value_str(L, 4));
    }
    check_writable(L, &m->base, "mask");
    if (astar_mask_reveal(m->mask, x, y, radius) != ASTAR_OK) return work_limit_error(L); /* checked */
    return 0;
}

static int mask_is_known(lua_State *L) {
    int32_t x, y;
    lmask *m = check_cell(L, MASK_MT, &x, &y);
    lua_pushboolean(L, astar_mask_is_known(m->mask, x, y) == 1);
    return 1;
}

static int mask_size(lua_State *L) { return push_size(L, MASK_MT); }

static const luaL_Reg MASK_METHODS[] = {
    {"size", mask_size}, {"reveal", mask_reveal}, {"is_known", mask_is_known}, {NULL, NULL}};

const lclass MASK_CLASS = {
    .name = MASK_MT, .what = "mask", .methods = MASK_METHODS,
    .field = size_field, .free = mask_free};
