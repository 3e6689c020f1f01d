/*
 * The few differences between Lua 5.1, 5.2, 5.3, 5.4 and LuaJIT that the
 * binding meets, behind names of our own (never luaL_* / lua_* names).
 */
#ifndef ASTAR_COMPAT_H
#define ASTAR_COMPAT_H

#include <lauxlib.h>
#include <lua.h>

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

#endif
