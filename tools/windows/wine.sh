#!/bin/sh
# Runs a Windows program of a Windows build (tools/windows/build.sh) under Wine, headless: Wine's
# own messages off, lua54.dll found beside lua.exe, in the Wine prefix $ASTAR_WINEPREFIX (by
# default ~/.cache/astar-wine; made on first use): not in the source tree, since a prefix's drive
# z: links to / and a tool walking the tree (luacheck .) would walk the whole disk through it.
#   sh tools/windows/wine.sh BUILD program.exe [argument...]
# It is the build's CMAKE_CROSSCOMPILING_EMULATOR too, so ctest runs the C tests through it.
#   sh tools/windows/wine.sh BUILD --serve    (then ctest, busted...)    ... BUILD --stop
# keeps one Wine server and its services running for the prefix, their descriptors on /dev/null,
# until --stop or 30 s after its last program: otherwise each program's first Wine process starts
# them, they hold its output pipe open until they exit (ctest waits 2.4 s a test for that), and a
# server kept for ever by -p would hold it for ever (ctest hangs).
# Debian's wine64 puts its loader off PATH (dpkg -L wine64): /usr/lib/wine/wine64.
set -eu
build=$(cd "$1" && pwd)
shift
export WINEPREFIX="${ASTAR_WINEPREFIX:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/astar-wine}"
export WINEDEBUG=-all WINEPATH="$build/lua54"
export WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono or Gecko installer when a prefix is made
unset DISPLAY WAYLAND_DISPLAY # no window, ever
wine=${ASTAR_WINE:-/usr/lib/wine/wine64}
case ${1:-} in
  --serve)
    "${wine%/*}/wineserver" -p30 </dev/null >/dev/null 2>&1
    exec "$wine" cmd /c exit </dev/null >/dev/null 2>&1 ;; # the services, started detached
  --stop) exec "${wine%/*}/wineserver" -k ;;
esac
exec "$wine" "$@"
