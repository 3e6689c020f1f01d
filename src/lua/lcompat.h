/*
 * The few differences between Lua 5.1, 5.2, 5.3, 5.4 and LuaJIT that the
 * binding meets, behind names of our own (never luaL_* / lua_* names).
 */
#ifndef ASTAR_COMPAT_H
#define ASTAR_COMPAT_H

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if LUA_VERSION_NUM >= 504
#define astar_newuserdata(L, size) lua_newuserdatauv((L), (size), 1)
#define astar_getuservalue(L, idx) ((void)lua_getiuservalue((L), (idx), 1))
#define astar_setuservalue(L, idx) ((void)lua_setiuservalue((L), (idx), 1))
#elif LUA_VERSION_NUM >= 502
#define astar_newuserdata(L, size) lua_newuserdata((L), (size))
#define astar_getuservalue(L, idx) ((void)lua_getuservalue((L), (idx)))
#define astar_setuservalue(L, idx) lua_setuservalue((L), (idx))
#else
#define astar_newuserdata(L, size) lua_newuserdata((L), (size))
#define astar_getuservalue(L, idx) lua_getfenv((L), (idx))
#define astar_setuservalue(L, idx) ((void)lua_setfenv((L), (idx)))
#endif

#if LUA_VERSION_NUM >= 502
#define astar_rawlen(L, idx) lua_rawlen((L), (idx))
#define astar_setfuncs(L, l) luaL_setfuncs((L), (l), 0)
#else
#define astar_rawlen(L, idx) lua_objlen((L), (idx))
#define astar_setfuncs(L, l) luaL_register((L), NULL, (l))
#endif

#ifndef LUA_OK
#define LUA_OK 0
#endif

/* A full userdata with no user value (5.4 would otherwise give it one). */
#if LUA_VERSION_NUM >= 504
#define astar_newuserdata_plain(L, size) lua_newuserdatauv((L), (size), 0)
#else
#define astar_newuserdata_plain(L, size) lua_newuserdata((L), (size))
#endif

/*
 * The value at idx as an integer, *isint telling whether it is a number with an integral
 * value in range. Numbers only, on every version (5.3's lua_tointegerx also takes strings,
 * 5.2's truncates fractions).
 */
static inline lua_Integer astar_tointegerx(lua_State *L, int idx, int *isint) {
#if LUA_VERSION_NUM >= 503
    if (lua_type(L, idx) != LUA_TNUMBER) {
        *isint = 0;
        return 0;
    }
    return lua_tointegerx(L, idx, isint);
#else
    lua_Number n = lua_type(L, idx) == LUA_TNUMBER ? lua_tonumber(L, idx) : 0.5;
    /* -PTRDIFF_MIN (2^63 on 64-bit) is the first double out of range */
    *isint = n == floor(n) && n >= (lua_Number)PTRDIFF_MIN && n < -(lua_Number)PTRDIFF_MIN;
    return *isint ? (lua_Integer)n : 0;
#endif
}

#if LUA_VERSION_NUM >= 502
#define astar_setmetatable(L, tname) luaL_setmetatable((L), (tname))
#define astar_tolstring(L, idx, len) luaL_tolstring((L), (idx), (len))
#else
static inline void astar_setmetatable(lua_State *L, const char *tname) {
    luaL_getmetatable(L, tname);
    lua_setmetatable(L, -2);
}

/* What tostring() would show, pushed on the stack (5.2's luaL_tolstring). */
static inline const char *astar_tolstring(lua_State *L, int idx, size_t *len) {
    if (luaL_callmeta(L, idx, "__tostring")) {
        if (!lua_isstring(L, -1)) luaL_error(L, "'__tostring' must return a string");
        return lua_tolstring(L, -1, len);
    }
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
    case LUA_TSTRING: lua_pushvalue(L, idx); break;
    case LUA_TBOOLEAN: lua_pushstring(L, lua_toboolean(L, idx) ? "true" : "false"); break;
    case LUA_TNIL: lua_pushliteral(L, "nil"); break;
    default: lua_pushfstring(L, "%s: %p", luaL_typename(L, idx), lua_topointer(L, idx)); break;
    }
    return lua_tolstring(L, -1, len);
}
#endif

#endif
