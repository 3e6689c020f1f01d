/* The PNG writer behind astar.debug.png (see lpng.c). */
#ifndef ASTAR_LUA_PNG_H
#define ASTAR_LUA_PNG_H

#include <lua.h>

/* Hidden, as lbinding.h's declarations: only luaopen_astar_core is exported, also where the
 * files are built without -fvisibility=hidden (a LuaRocks build). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif
int astar_lua_png_encode(lua_State *L);
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
