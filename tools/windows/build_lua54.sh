#!/bin/sh
# Lua 5.4 for Windows, cross-built with MinGW-w64 from Debian's own source package (nothing
# vendored): lua54.dll, its import library liblua54.dll.a, and lua.exe, in OUT.
#   sh tools/windows/build_lua54.sh OUT
# Needs a deb-src entry for the Debian suite in apt's sources (tools/windows/build.sh adds one).
# Lua's own `make mingw` strips with the host's strip, which cannot read PE files: the few
# compiler calls are written out here instead.
set -eu
out=$(mkdir -p "$1" && cd "$1" && pwd)
cc=${CC:-x86_64-w64-mingw32-gcc}
cd "$out"
[ -d lua5.4-src ] || { apt-get source lua5.4 >/dev/null && mv lua5.4-5.4.*/ lua5.4-src; }
src=lua5.4-src/src
lib=
for f in "$src"/*.c; do
  case $(basename "$f") in lua.c|luac.c) ;; *) lib="$lib $f" ;; esac
done
mkdir -p include
cp "$src"/lua.h "$src"/luaconf.h "$src"/lualib.h "$src"/lauxlib.h "$src"/lua.hpp include/
# shellcheck disable=SC2086 # $lib is a list of paths without spaces
"$cc" -O2 -DLUA_COMPAT_5_3 -DLUA_BUILD_AS_DLL -shared -static -s -o lua54.dll \
  -Wl,--out-implib,liblua54.dll.a $lib
"$cc" -O2 -DLUA_COMPAT_5_3 -DLUA_BUILD_AS_DLL -static -s -o lua.exe "$src"/lua.c liblua54.dll.a
echo "$out: lua54.dll lua.exe liblua54.dll.a include/"
