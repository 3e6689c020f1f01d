/* The PNG writer behind astar.debug.png (see png.c). */
#ifndef ASTAR_LUA_PNG_H
#define ASTAR_LUA_PNG_H

#include <lua.h>

int astar_lua_png_encode(lua_State *L);

#endif
