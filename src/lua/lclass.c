/*
 * lclass.c -- what every userdata of the binding shares: its allocator, the checks of
 * self (of its class, open, writable), its creation, its size; and the classes themselves,
 * registered like liolib's createmeta (register_class).
 */
#include <string.h>

#include "lbinding.h"

const char GRID_MT[] = "astar.Grid", LAYER_MT[] = "astar.Influence", CLAIMS_MT[] = "astar.Claims",
           MASK_MT[] = "astar.Mask", FIELD_MT[] = "astar.Field", JOB_MT[] = "astar.Search",
           GRAPH_MT[] = "astar.Graph", GRAPH_CLAIMS_MT[] = "astar.GraphClaims";
const char BUILD_MT[] = "astar.Build";

/* The interpreter's allocator: core objects allocate through it. */
astar_alloc lua_allocator(lua_State *L) {
    astar_alloc a;
    a.fn = lua_getallocf(L, &a.ud);
    return a;
}

int freed_error(lua_State *L, const char *mt) {
    return luaL_error(L, "attempt to use a freed %s", mt);
}

/* A zeroed userdata of `size` with its metatable (and so its __gc) set before any init. */
void *new_object(lua_State *L, size_t size, const char *mt) {
    void *p = astar_newuserdata(L, size);
    memset(p, 0, size);
    astar_setmetatable(L, mt);
    return p;
}

/* new_object of an object w x h (its size set), and in *a the allocator of its core object. */
void *new_sized_object(lua_State *L, size_t size, const char *mt, int32_t w, int32_t h, astar_alloc *a) {
    lobject *o = new_object(L, size, mt);
    o->width = w;
    o->height = h;
    *a = lua_allocator(L);
    return o;
}

/* obj:size() -> width, height, for the class mt (self checked: each class has its own). */
int push_size(lua_State *L, const char *mt) {
    const lobject *o = check_object(L, 1, mt);
    lua_pushinteger(L, o->width);
    lua_pushinteger(L, o->height);
    return 2;
}

/* __tostring of a class with a size (upvalue 1 its lclass): "astar.Grid(8x8)", and
 * " (freed)" once closed. */
static int size_tostring(lua_State *L) {
    const lclass *cls = lua_touserdata(L, lua_upvalueindex(1));
    const lobject *o = luaL_checkudata(L, 1, cls->name);
    lua_pushfstring(L, "%s(%dx%d)%s", cls->name, (int)o->width, (int)o->height, o->freed ? " (freed)" : "");
    return 1;
}

/* width and height, the fields of every class but graphs. */
int size_field(lua_State *L, void *o, const char *key) {
    const lobject *b = o;
    if (strcmp(key, "width") == 0) return lua_pushinteger(L, b->width), 1;
    if (strcmp(key, "height") == 0) return lua_pushinteger(L, b->height), 1;
    return 0;
}

/* -------------------------------------------------------------- classes */

/* __index: upvalue 1 the methods, 2 the lclass. Checks self: a metamethod can be called on
 * anything (getmetatable(grid).__index(io.stdout, "width")). */
static int class_index(lua_State *L) {
    const lclass *cls = lua_touserdata(L, lua_upvalueindex(2));
    void *o = check_object(L, 1, cls->name);
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    if (cls->field && lua_type(L, 2) == LUA_TSTRING) return cls->field(L, o, lua_tostring(L, 2));
    return 0;
}

static int class_newindex(lua_State *L) {
    const char *key = astar_tolstring(L, 2, NULL);
    return luaL_error(L, "cannot set field '%s' of %s: its fields are read-only", key,
                      astar_tolstring(L, 1, NULL));
}

/*
 * __gc and __close of every class (upvalue 1 its lclass). A query marks what it reads and
 * keeps it on the stack, so only a direct __close/__gc call can meet a marked object here:
 * it is refused, as writers are.
 */
static int object_gc(lua_State *L) {
    const lclass *cls = lua_touserdata(L, lua_upvalueindex(1));
    lobject *o = luaL_checkudata(L, 1, cls->name);
    check_writable(L, o, cls->what);
    cls->free(L, o);
    o->freed = true;
    return 0;
}

static int protected_metatable(lua_State *L) {
    return luaL_error(L, "the metatables of astar objects are read-only");
}

/*
 * Makes the metatable of cls: __gc (and __close), __tostring, and __index with its methods,
 * the query methods each a closure of its runner. Scripts see a stand-in (__metatable) that reads through to it
 * but takes no writes: a mod may look at the functions, not change other mods' objects. The
 * stand-in is an empty userdata, not a table: rawset would write a table, and whatever a mod
 * put there (a __gc) every other script and the game would read and call with their objects.
 */
void register_class(lua_State *L, const lclass *cls) {
    luaL_newmetatable(L, cls->name);
    int mt = lua_gettop(L);
    lua_pushlightuserdata(L, (void *)cls->name); /* test_object's key */
    lua_pushvalue(L, mt);
    lua_rawset(L, LUA_REGISTRYINDEX);
#if LUA_VERSION_NUM < 503 /* 5.3 sets it: messages name the type by it (type_name) */
    lua_pushstring(L, cls->name);
    lua_setfield(L, mt, "__name");
#endif
    lua_pushlightuserdata(L, (void *)cls);
    lua_pushcclosure(L, object_gc, 1);
    lua_setfield(L, mt, "__gc");
    if (cls->tostring) {
        lua_pushcfunction(L, cls->tostring);
    } else {
        lua_pushlightuserdata(L, (void *)cls);
        lua_pushcclosure(L, size_tostring, 1);
    }
    lua_setfield(L, mt, "__tostring");
#if LUA_VERSION_NUM >= 504
    lua_getfield(L, mt, "__gc");
    lua_setfield(L, mt, "__close");
#endif
    lua_newtable(L);
    astar_setfuncs(L, cls->methods);
    for (const lquery_method *m = cls->queries; m && m->name; m++) {
        lua_pushcfunction(L, m->runner);
        lua_pushcclosure(L, m->fn, 1);
        lua_setfield(L, -2, m->name);
    }
    lua_pushlightuserdata(L, (void *)cls);
    lua_pushcclosure(L, class_index, 2);
    lua_setfield(L, mt, "__index");
    lua_pushcfunction(L, class_newindex);
    lua_setfield(L, mt, "__newindex");
    astar_newuserdata_plain(L, 0); /* the stand-in */
    lua_createtable(L, 0, 3);
    lua_pushvalue(L, mt);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, protected_metatable);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_setfield(L, mt, "__metatable");
    lua_pop(L, 1);
}
