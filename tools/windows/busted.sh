#!/bin/sh
# The busted suite under Wine, against a Windows build's astar/core.dll (tools/windows/build.sh):
# Debian's busted and its pure-Lua dependencies as they are (/usr/share/lua/5.4), under the
# Windows lua.exe, with the C dependencies built for it in BUILD/lua54/clib.
#   sh tools/windows/busted.sh BUILD [busted option...]
set -eu
build=$1
shift
share=/usr/share/lua/5.4
exec sh "$(dirname "$0")/wine.sh" "$build" "$build/lua54/lua.exe" \
  -e "package.path='$share/?.lua;$share/?/init.lua;'..package.path; package.cpath='$build/lua54/clib/?.dll;'..package.cpath" \
  /usr/bin/busted --cpath="$build/?.dll" "$@"
