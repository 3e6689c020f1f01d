#!/bin/sh
# Builds the libFuzzer targets with clang into build-fuzz/ and runs each one for
# the given number of seconds (default 60), all at once, on a copy of the
# committed corpus in a temporary directory, so the repository never gains
# generated inputs.
#
#   sh fuzz/run.sh [seconds-per-target]
#
# Prints "fuzz_<name>: <executions> executions, <crashes> crashes" per target
# and exits non-zero if any target crashed; the crashing input is kept and its
# path printed with the end of the log.
set -u

usage() {
    echo "usage: sh fuzz/run.sh [seconds-per-target]" >&2
    exit 2
}

secs=${1:-60}
case $secs in
'' | *[!0-9]*) usage ;;
esac
[ "$secs" -gt 0 ] || usage

root=$(cd "$(dirname "$0")/.." && pwd) || exit 1
cd "$root" || exit 1
build=build-fuzz
targets="movingai core"

work=$(mktemp -d "${TMPDIR:-/tmp}/astar-fuzz.XXXXXX") || exit 1

if ! { CC=clang cmake -S . -B "$build" -DASTAR_FUZZ=ON -DASTAR_LUA=OFF -DBUILD_TESTING=OFF &&
       cmake --build "$build" --parallel 2 --target fuzz_movingai fuzz_core; } >"$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log" >&2
    echo "fuzz/run.sh: configuring or building failed (log: $work/build.log)" >&2
    exit 1
fi

# UBSan aborts on the first report (-fno-sanitize-recover); a stack makes it readable.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS

for t in $targets; do
    mkdir -p "$work/$t/corpus" "$work/$t/artifacts" || exit 1
    cp "fuzz/corpus/$t/"* "$work/$t/corpus/" || exit 1
    dict=
    [ -f "fuzz/$t.dict" ] && dict="-dict=$root/fuzz/$t.dict"
    # Run inside the temp dir: libFuzzer writes new inputs to the corpus dir given
    # and crash inputs under -artifact_prefix, both there.
    (
        cd "$work/$t" &&
            exec "$root/$build/fuzz/fuzz_$t" -max_total_time="$secs" -rss_limit_mb=2048 \
                -timeout=30 -print_final_stats=1 -artifact_prefix="$work/$t/artifacts/" \
                $dict corpus
    ) >"$work/$t/log" 2>&1 &
    eval "pid_$t=\$!"
done

failed=0
for t in $targets; do
    eval "pid=\$pid_$t"
    wait "$pid"
    rc=$?
    log="$work/$t/log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ -z "$execs" ]; then
        # Killed before the final stats: take the last "#N" progress line.
        execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
    fi
    crashes=$(find "$work/$t/artifacts" -type f | wc -l | tr -d ' ')
    if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi
    echo "fuzz_$t: ${execs:-0} executions, $crashes crashes"
    if [ "$rc" -ne 0 ]; then
        failed=1
        echo "--- fuzz_$t failed (exit $rc); reproducer(s):"
        find "$work/$t/artifacts" -type f
        echo "--- replay: $root/$build/fuzz/fuzz_$t <reproducer>"
        echo "--- last lines of $log:"
        tail -n 40 "$log"
    fi
done

if [ "$failed" -ne 0 ]; then
    echo "fuzz/run.sh: crashes found; inputs and logs kept in $work" >&2
    exit 1
fi
rm -rf "$work"
exit 0
