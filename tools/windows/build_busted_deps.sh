#!/bin/sh
# busted's C dependencies for Windows, next to the Lua of build_lua54.sh (LUA = its OUT):
# lfs.dll and term/core.dll from Debian's source packages unchanged, and system/core.dll from
# tools/windows/system_core.c (what busted uses of lua-system; Debian does not serve its
# source). Also cjson.dll (Debian's lua-cjson with its patches), which spec/30 loads.
# busted's pure-Lua files are Debian's own (/usr/share/lua/5.4), used as they are.
#   sh tools/windows/build_busted_deps.sh LUA
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lua=$(cd "$1" && pwd)
cc=${CC:-x86_64-w64-mingw32-gcc}
mkdir -p "$lua/deps" && cd "$lua/deps"
for p in lua-filesystem lua-term; do
  ls -d "$p"-*/ >/dev/null 2>&1 && continue
  apt-get source --download-only "$p" >/dev/null 2>&1 || true # lua-term's .debian.tar is not served: the orig tarball serves
  tar xzf "$p"_*.orig.tar.gz
done
if ! ls -d lua-cjson-*/ >/dev/null 2>&1; then
  apt-get source --download-only lua-cjson >/dev/null 2>&1
  dpkg-source -x lua-cjson_*.dsc >/dev/null # applies Debian's patches (Lua 5.2+ names)
fi
flags="-O2 -shared -static -s -I$lua/include"
mkdir -p "$lua/clib/term" "$lua/clib/system"
# shellcheck disable=SC2086 # $flags is a list of options without spaces
"$cc" $flags -o "$lua/clib/lfs.dll" lua-filesystem-*/src/lfs.c "$lua/liblua54.dll.a"
# shellcheck disable=SC2086
"$cc" $flags -o "$lua/clib/term/core.dll" lua-term-*/core.c "$lua/liblua54.dll.a"
# shellcheck disable=SC2086
"$cc" $flags -o "$lua/clib/system/core.dll" "$here/system_core.c" "$lua/liblua54.dll.a"
# shellcheck disable=SC2086 # (its own warnings, not ours: pointer casts in debug output)
"$cc" $flags -w -o "$lua/clib/cjson.dll" lua-cjson-*/lua_cjson.c lua-cjson-*/strbuf.c lua-cjson-*/fpconv.c \
  "$lua/liblua54.dll.a"
echo "$lua/clib: lfs.dll term/core.dll system/core.dll cjson.dll"
