#!/bin/sh
# Builds astar.core with ASan + UBSan into build-lfuzz/ and runs the binding fuzzer
# (fuzz/lua/fuzz_binding.lua) under lua5.4 for the given number of seconds (default 30): the
# seeds of fuzz/lua/seeds.txt first, then new seeds from $FUZZ_SEED (default: the time, so
# that every run explores new ones; the seed of a failure is printed).
#
#   sh fuzz/lua/run.sh [seconds]
#
# Prints the fuzzer's line "fuzz_binding: N runs, M calls, K errors caught" and exits 0, or
# the failing seed and step with the fuzzer's message or the sanitizer's report, and exits 1.
# $FUZZ_ARGS adds fuzzer options (e.g. "--bombs", "--strict").
set -u

usage() {
    echo "usage: sh fuzz/lua/run.sh [seconds]" >&2
    exit 2
}

secs=${1:-30}
case $secs in
'' | *[!0-9]*) usage ;;
esac
[ "$secs" -gt 0 ] || usage

root=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$root" || exit 1
build="build-lfuzz"
work=$(mktemp -d "${TMPDIR:-/tmp}/astar-lfuzz.XXXXXX") || exit 1

if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DASTAR_SANITIZE=ON &&
       cmake --build "$build" --parallel 2 --target astar_lua; } >"$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log" >&2
    echo "fuzz/lua/run.sh: configuring or building failed (log: $work/build.log)" >&2
    exit 1
fi

seed=${FUZZ_SEED:-$(date +%s)}
# The stock lua5.4 is not instrumented: the sanitizer runtimes are preloaded into it, as
# .ci/setup.sh does for the busted suite. A leak makes LeakSanitizer fail the exit.
# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LUA_CPATH="./$build/?.so" LUA_PATH='./lua/?.lua;./lua/?/init.lua;;' \
    lua5.4 fuzz/lua/fuzz_binding.lua --seconds "$secs" --seed "$seed" --state "$work/state" ${FUZZ_ARGS:-} \
    >"$work/log" 2>&1
rc=$?

if [ "$rc" -eq 0 ]; then
    tail -n 1 "$work/log"
    rm -rf "$work"
    exit 0
fi
# An invariant the fuzzer checks prints its own report; a crash leaves the seed and step it
# was at in the state file, and the sanitizer's report in the log.
if grep -q "^fuzz_binding: FAILED" "$work/log"; then
    sed -n '/^fuzz_binding: FAILED/,$p' "$work/log"
elif grep -q "ERROR: LeakSanitizer" "$work/log"; then
    # Found at exit, after every run: the allocation stacks say what leaked.
    echo "fuzz_binding: LeakSanitizer found leaks (exit $rc); replay the seeds with run.sh's command to bisect"
    sed -n '/ERROR: LeakSanitizer/,$p' "$work/log" | head -n 40
else
    # shellcheck disable=SC2046 # the state file holds "seed step"
    set -- $(cat "$work/state" 2>/dev/null)
    echo "fuzz_binding: crashed (exit $rc) at seed ${1:-?}, step ${2:-?}"
    echo "replay: LD_PRELOAD=... lua5.4 fuzz/lua/fuzz_binding.lua --no-replay --seed ${1:-?} --runs 1 --trace ${FUZZ_ARGS:-}"
    grep -m 1 -E "ERROR: (Address|Leak)Sanitizer|runtime error" "$work/log"
    grep -E "^ +#[0-9]+ " "$work/log" | head -n 12
fi
echo "fuzz/lua/run.sh: log kept in $work/log" >&2
exit 1
