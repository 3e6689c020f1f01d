#!/bin/sh
# The LÖVE demo headless: under Xvfb, with the module built for LuaJIT, the crowd runs a fixed
# number of frames on a budget of expansions (no clock), takes a screenshot, checks that the
# units walked and are drawn where they stand, the danger around the monsters and the AI-time
# graph, and quits by itself (exit code 0; 4 when a check failed).
#   sh spec/love_test.sh BUILD_DIR_FOR_LUAJIT SHOT.png
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
shot=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
SDL_AUDIODRIVER=dummy ALSOFT_DRIVERS=null XDG_DATA_HOME="$tmp" HOME="$tmp" \
  ASTAR_LOVE_CPATH="$build" ASTAR_LOVE_SHOT="$shot" \
  timeout 120 xvfb-run -a -s "-screen 0 1024x768x24" love "$root/examples/love" >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
[ "$rc" -eq 0 ] || { echo "love demo: exit code $rc"; exit 1; }
[ -s "$shot" ] || { echo "love demo: no screenshot"; exit 1; }
echo "love demo: ok"
