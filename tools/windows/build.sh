#!/bin/sh
# The Windows build, cross-compiled on Debian with MinGW-w64 and run under Wine:
#   sh tools/windows/build.sh [BUILD]        (BUILD: build-windows by default)
# installs what is missing (gcc-mingw-w64-x86-64, wine64, and a deb-src entry for this Debian
# suite) and the Wine prefix (tools/windows/wine.sh says where), then makes, inside BUILD:
#   lua54/           Lua 5.4 for Windows from Debian's source package: lua.exe, lua54.dll,
#                    liblua54.dll.a, include/; clib/ busted's C dependencies (build_busted_deps.sh)
#   astar/core.dll   the Lua module; libastar.a, the C tests, the example and bench_c (.exe)
#   share/, lib/     astar installed where lua54/lua.exe finds it
# Then, for instance:
#   sh tools/windows/wine.sh BUILD BUILD/lua54/lua.exe script.lua   (require("astar") just works)
#   ctest --test-dir BUILD                                            (the C tests, under Wine)
#   sh tools/windows/busted.sh BUILD                                  (the busted suite, under Wine)
# docs/building.md says more.
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build-windows}
here=tools/windows

sh .ci/install.sh gcc-mingw-w64-x86-64 wine64 dpkg-dev
# Lua's, lfs', lua-term's and lua-cjson's sources come from Debian (apt-get source), which needs
# a deb-src entry for the suite this machine runs.
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  . /etc/os-release
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$VERSION_CODENAME" | $sudo tee /etc/apt/sources.list.d/astar-deb-src.sources >/dev/null
  $sudo apt-get update -qq
fi

mkdir -p "$build"
build=$(cd "$build" && pwd)
sh $here/wine.sh "$build" wineboot -i >/dev/null 2>&1 # the Wine prefix, made or brought up to date
[ -f "$build/lua54/lua.exe" ] || sh $here/build_lua54.sh "$build/lua54" >/dev/null
[ -f "$build/lua54/clib/lfs.dll" ] || sh $here/build_busted_deps.sh "$build/lua54" >/dev/null

lua=$build/lua54
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake -DCMAKE_BUILD_TYPE=Release \
  -DASTAR_WERROR=ON -DLUA_INCDIR="$lua/include" -DLUA_LIBRARY="$lua/liblua54.dll.a" \
  -DASTAR_LUA54_LIBRARY="$lua/liblua54.dll.a" -DASTAR_TARGET_LUA="$lua/lua.exe" \
  "-DCMAKE_CROSSCOMPILING_EMULATOR=sh;$PWD/$here/wine.sh;$build" >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
# Installed into BUILD itself: share/lua/5.4/astar/*.lua and lib/lua/5.4/astar/core.dll are where
# the Windows lua.exe looks by default (its luaconf.h: !\..\share\lua\5.4, !\..\lib\lua\5.4),
# so `lua.exe script.lua` finds require("astar") with no LUA_PATH or LUA_CPATH.
cmake --install "$build" --prefix "$build" >/dev/null
echo "$build: astar/core.dll, lua54/lua.exe; run with sh $here/wine.sh $build PROGRAM.exe"
