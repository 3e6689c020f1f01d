#!/bin/sh
# The README's two commands:
#   sh .ci/setup.sh demo   install what is missing, build, run the demo
#   sh .ci/setup.sh test   install what is missing, build, run every test
# Works on a fresh Debian machine as root (or with sudo).
set -eu
cd "$(dirname "$0")/.."

mode=${1:-test}
case "$mode" in demo|test) ;; *) echo "usage: sh .ci/setup.sh demo|test" >&2; exit 2 ;; esac

packages="cmake make gcc libc6-dev lua5.4 liblua5.4-dev lua-busted luarocks"
# The tests also run under valgrind and libFuzzer (clang with its runtime).
[ "$mode" = test ] && packages="$packages valgrind clang libclang-rt-dev"
# ... and on every Lua a game ships: 5.1, 5.2, 5.3 and LuaJIT besides 5.4.
[ "$mode" = test ] && packages="$packages lua5.1 liblua5.1-0-dev lua5.2 liblua5.2-dev lua5.3 liblua5.3-dev luajit libluajit-5.1-dev"
[ "$mode" = test ] && packages="$packages lua-check lua-cjson lua-dkjson" # luacheck; Tiled's JSON, both ways
[ "$mode" = test ] && packages="$packages love xvfb xauth" # the LÖVE demo, headless
[ "$mode" = test ] && packages="$packages gcc-mingw-w64-x86-64 wine64 dpkg-dev" # Windows (tools/windows)
# shellcheck disable=SC2086 # one argument a package
sh .ci/install.sh $packages

jobs=$(nproc 2>/dev/null || echo 2)
if [ "$mode" = demo ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j "$jobs" >/dev/null
  exec lua5.4 examples/demo.lua
fi

# Tests: warnings are errors here, as in CI.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DASTAR_WERROR=ON >/dev/null
cmake --build build -j "$jobs"

passed=0
failed=0
started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started)) s"; } # since the build: where the 15 minutes go
tally() { # name, command...: one check that passes or fails as a whole
  name=$1
  shift
  if "$@"; then passed=$((passed + 1)); echo "ok - $name ($(elapsed))"
  else failed=$((failed + 1)); echo "not ok - $name ($(elapsed))"; fi
}

# C tests (ctest): each test counts once.
run_ctest() { # build-dir label [test-name regex]
  log=$1/ctest.log
  ctest --test-dir "$1" --output-on-failure ${3:+-R "$3"} >"$log" 2>&1 || true
  sed "s/^/[$2] /" "$log"
  c_pass=$(grep -c "Test *#.*Passed" "$log" || true)
  c_fail=$(grep -c -E "Test *#.*(\*\*\*|Failed|Not Run)" "$log" || true)
  if [ "$c_pass" -eq 0 ] && [ "$c_fail" -eq 0 ]; then c_fail=1; echo "not ok - [$2] ctest ran no test"; fi
  passed=$((passed + c_pass))
  failed=$((failed + c_fail))
  echo "# [$2] ctest: $c_pass passed, $c_fail failed ($(elapsed))"
}

# busted specs, in TAP so that every test is counted here. A non-zero exit
# with every test passing means a sanitizer (or the interpreter) complained.
run_busted() { # build-dir label [busted command...]: by default the host's busted on lua5.4
  dir=$1 label=$2
  shift 2
  [ $# -gt 0 ] || set -- busted --lua=lua5.4 --cpath="./$dir/?.so"
  log=$dir/busted.log
  rc=0
  ASTAR_BUILD="./$dir" "$@" -o TAP >"$log" 2>&1 || rc=$?
  grep -v -E "^ok " "$log" | sed "s/^/[$label] /" || true
  b_pass=$(grep -c -E "^ok " "$log" || true)
  b_fail=$(grep -c -E "^not ok " "$log" || true)
  if [ "$b_pass" -eq 0 ] && [ "$b_fail" -eq 0 ]; then b_fail=1; echo "not ok - [$label] busted ran no test"; fi
  if [ "$rc" -ne 0 ] && [ "$b_fail" -eq 0 ]; then b_fail=1; echo "not ok - [$label] busted exited with $rc"; fi
  passed=$((passed + b_pass))
  failed=$((failed + b_fail))
  echo "# [$label] busted: $b_pass passed, $b_fail failed ($(elapsed))"
}

# valgrind memcheck (see below). The busted suite under it is the longest stage by far (some 15
# minutes of one core): it starts first, as soon as the module is built, and runs beside every
# stage that follows, which leave build/ alone.
memcheck() { # command...: log in build/memcheck.log
  memcheck_to build/memcheck "$@" || { tail -40 build/memcheck.log; return 1; }
}
memcheck_to() { # log-stem command...: exit status in log-stem.rc
  stem=$1
  shift
  rc=0
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$@" >"$stem.log" 2>&1 || rc=$?
  echo "$rc" >"$stem.rc"
  echo "# $stem ended ($(elapsed))"
  return "$rc"
}
memcheck_result() { # log-stem
  [ "$(cat "$1.rc" 2>/dev/null)" = 0 ] || { tail -40 "$1.log"; return 1; }
}
# Under valgrind the property specs draw a quarter of their random worlds (spec/support/scale.lua):
# the interpreter runs some 40x slower there, and all of them run in every other suite. Two
# processes, the odd- and the even-numbered specs (about equal halves): one alone ran on after
# every other stage had ended, the second core idle.
specs_of_parity() { # 1 (odd) or 0 (even): the spec files whose number has that parity
  for f in spec/[0-9][0-9]_*_spec.lua; do
    n=$(basename "$f" | cut -c1-2)
    [ $((1${n} % 2)) -eq "$1" ] && printf '%s\n' "$f"
  done
}
for parity in 1 0; do
  # shellcheck disable=SC2046 # one argument a spec file
  (export ASTAR_SPEC_SCALE=0.25; memcheck_to "build/memcheck-busted-$parity" lua5.4 "$(command -v busted)" \
    --cpath="./build/?.so" $(specs_of_parity "$parity")) &
  eval "memcheck_busted_$parity=\$!"
done

# Windows: the MinGW-w64 cross build, its C tests and the busted suite under Wine (on the
# Windows lua.exe), and the same bits as the Linux build (docs/building.md). It starts when the
# valgrind halves end, on the core they leave idle while the stages below go on; what it counts
# joins the others at the end.
windows_stage() {
  passed=0 failed=0
  while kill -0 "$memcheck_busted_1" 2>/dev/null || kill -0 "$memcheck_busted_0" 2>/dev/null; do sleep 2; done
  echo "# [windows] started ($(elapsed))"
  tally "Windows: Lua 5.4, busted's C modules and astar, cross-built with MinGW-w64" \
    sh -c 'sh tools/windows/build.sh build-windows >build/windows-build.log 2>&1 || { tail -40 build/windows-build.log; exit 1; }'
  sh tools/windows/wine.sh build-windows --serve
  run_ctest build-windows windows
  run_busted build-windows windows sh tools/windows/busted.sh build-windows
  tally "Windows: the same bits as the Linux build" sh spec/same_windows.sh build build-windows
  sh tools/windows/wine.sh build-windows --stop || true
  echo "$passed $failed" >build/windows-counts
}
rm -f build/windows-counts
windows_stage >build/windows-stage.log 2>&1 &
windows_pid=$!

run_ctest build release
run_busted build release
tally "luacheck (.luacheckrc)" luacheck --no-color -q .

# The module and the whole busted suite on the other Luas (src/lua/lcompat.h).
for lua in 5.1 5.2 5.3 luajit; do
  interpreter=lua$lua
  [ "$lua" = luajit ] && interpreter=luajit
  cmake -S . -B "build-$interpreter" -DCMAKE_BUILD_TYPE=Release -DASTAR_WERROR=ON -DASTAR_LUA_VERSION="$lua" \
    -DBUILD_TESTING=OFF >/dev/null
  cmake --build "build-$interpreter" -j "$jobs" --target astar_lua >/dev/null
  # 5.1, 5.2 and 5.3 draw a quarter of the property specs' random worlds: what they check there
  # is the binding's compatibility layer, which every test exercises; 5.4 and LuaJIT (the LÖVE
  # games') draw them all.
  case $lua in 5.1|5.2|5.3) scale=0.25 ;; *) scale=1 ;; esac
  export ASTAR_SPEC_SCALE=$scale
  run_busted "build-$interpreter" "$interpreter" busted --lua="$interpreter" --cpath="./build-$interpreter/?.so"
  unset ASTAR_SPEC_SCALE
done
# The LÖVE demo (LuaJIT) under Xvfb: a screenshot with the units' paths, checked pixel by pixel.
tally "LÖVE demo under Xvfb" sh spec/love_test.sh build-luajit build-luajit/love.png

# The same suites against an ASan + UBSan build of the core and the module.
# The stock lua5.4 is not instrumented, so the runtimes are preloaded into it.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DASTAR_SANITIZE=ON -DASTAR_WERROR=ON >/dev/null
cmake --build build-asan -j "$jobs" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_ctest build-asan asan
# Every random world, as the release and LuaJIT suites (valgrind and Lua 5.1-5.3 draw a quarter:
# spec/support/scale.lua): the sanitizers see all the worlds the oracles check.
run_busted build-asan asan env LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
  busted --lua=lua5.4 --cpath="./build-asan/?.so"
unset ASAN_OPTIONS UBSAN_OPTIONS

# ThreadSanitizer: the C tests, find_many's threads among them, must run without a report.
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASTAR_TSAN=ON -DASTAR_WERROR=ON -DASTAR_LUA=OFF >/dev/null
cmake --build build-tsan -j "$jobs" --target test_core test_threads test_hierarchy test_progress astar_example >/dev/null
export TSAN_OPTIONS=halt_on_error=1:exitcode=66
run_ctest build-tsan tsan '^(core|threads|hierarchy|progress|example)$'
unset TSAN_OPTIONS

# valgrind memcheck: the C tests and the whole busted suite.
tally "valgrind: test_core" memcheck build/test_core
tally "valgrind: test_progress" memcheck build/test_progress
# (test_lua_oom, the failing-allocator host, runs in the release and ASan ctest suites, with
# LeakSanitizer: under valgrind it took a minute and a half of the 15.)

# The binding fuzzer: random calls whose options, points and callbacks close, collect and
# change things, under ASan + UBSan (its seeds replay in the busted suite too).
tally "binding fuzzer under ASan + UBSan, ${ASTAR_FUZZ_SECONDS:-20} s" sh fuzz/lua/run.sh "${ASTAR_FUZZ_SECONDS:-20}"

# libFuzzer: each target for a bounded time (ASTAR_FUZZ_SECONDS, default 20).
tally "fuzzers, ${ASTAR_FUZZ_SECONDS:-20} s each" sh fuzz/run.sh "${ASTAR_FUZZ_SECONDS:-20}"

# The busted suite under valgrind (started above) is the longest stage: the fuzzers, bounded in
# time, ran beside it; the installs below build in the source tree, so they wait for it.
wait "$memcheck_busted_1" "$memcheck_busted_0" || true
tally "valgrind: busted suite, odd-numbered specs" memcheck_result build/memcheck-busted-1
tally "valgrind: busted suite, even-numbered specs" memcheck_result build/memcheck-busted-0

# Both install routes must give a working require("astar"): CMake's for 5.4, LuaRocks' for
# every Lua (LuaJIT loads the 5.1 rock), so neither source list can drift.
check_require() { # prefix lua-abi interpreter
  LUA_PATH="$1/share/lua/$2/?.lua;$1/share/lua/$2/?/init.lua" LUA_CPATH="$1/lib/lua/$2/?.so" \
    "$3" -e 'local a = require("astar"); local p, i = a.grid(4, 4):find(1, 1, 4, 4);
             assert(p and i.status == "found" and #p == 4, "astar does not work")'
}
cmake_install() { cmake --install build --prefix "$1" >/dev/null; }
rocks_install() { # tree lua-abi
  luarocks --lua-version="$2" make --tree "$1" rockspec/astar-scm-1.rockspec >"$1.log" 2>&1 ||
    { cat "$1.log"; return 1; }
}
# `luarocks test`: the rockspec's test section runs the busted suite against the module that
# `luarocks make` just built in the source tree.
rocks_test() { # lua-abi
  luarocks --lua-version="$1" test rockspec/astar-scm-1.rockspec >"$tmp/test-$1.log" 2>&1 ||
    { tail -40 "$tmp/test-$1.log"; return 1; }
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tally "cmake --install" cmake_install "$tmp/cmake"
tally "require('astar') after cmake --install" check_require "$tmp/cmake" 5.4 lua5.4
for abi in 5.1 5.2 5.3 5.4; do
  tally "luarocks make, offline, Lua $abi" rocks_install "$tmp/rocks$abi" "$abi"
  tally "require('astar') after luarocks make, lua$abi" check_require "$tmp/rocks$abi" "$abi" "lua$abi"
done
tally "require('astar') after luarocks make, luajit" check_require "$tmp/rocks5.1" 5.1 luajit
# (A quarter of the random worlds: the suite ran whole on this module's sources above.)
export ASTAR_SPEC_SCALE=0.25
tally "luarocks test, Lua 5.4" rocks_test 5.4
unset ASTAR_SPEC_SCALE
rm -rf astar src/*.o src/lua/*.o # luarocks' in-tree build products

# The Windows stage (started above).
wait "$windows_pid" || true
cat build/windows-stage.log
if read -r w_pass w_fail <build/windows-counts 2>/dev/null; then
  passed=$((passed + w_pass))
  failed=$((failed + w_fail))
  echo "# [windows] $w_pass passed, $w_fail failed ($(elapsed))"
else
  failed=$((failed + 1)); echo "not ok - the Windows stage did not finish"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
