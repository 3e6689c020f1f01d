/*
 * A stand-in for lua-system's system.core on Windows, for the busted suite under Wine only:
 * Debian's source tarball of lua-system is not served, and busted uses just these three
 * functions of it (busted/core.lua: gettime, monotime, sleep). Not lua-system; not shipped.
 *   gettime()  seconds since 1970-01-01 UTC, as a float
 *   monotime() seconds of a monotonic clock, as a float
 *   sleep(s)   sleeps s seconds (to the millisecond)
 */
#include <windows.h>

#include "lauxlib.h"
#include "lua.h"

static int l_gettime(lua_State *L) {
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft); /* 100 ns ticks since 1601-01-01 */
    ULONGLONG t = ((ULONGLONG)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
    lua_pushnumber(L, (double)(t - 116444736000000000ULL) * 1e-7);
    return 1;
}

static int l_monotime(lua_State *L) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    lua_pushnumber(L, (double)c.QuadPart / (double)f.QuadPart);
    return 1;
}

static int l_sleep(lua_State *L) {
    double s = luaL_checknumber(L, 1);
    Sleep(s > 0 ? (DWORD)(s * 1000.0 + 0.5) : 0);
    return 0;
}

__declspec(dllexport) int luaopen_system_core(lua_State *L);
int luaopen_system_core(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"gettime", l_gettime}, {"monotime", l_monotime}, {"sleep", l_sleep}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
