#!/bin/sh
# Instructions per expansion of the C core, counted by callgrind (stable on a
# noisy shared machine, unlike wall-clock time): every scenario of one map,
# plain workload (or another bench_c workload: penalties is an influence layer
# and claims, graph the map as a waypoint graph), only instructions inside the
# workload's entry into the search (and what it calls): the problems' astar_graph_find
# calls (bench_graph_find) for graph, astar_field_build for field, astar_find for every
# other workload.
#
#   sh bench/callgrind.sh [path/to/bench_c] [map.map] [workload]
#   cmake --build build --target callgrind        (the same, with the defaults)
set -eu
bench=${1:-./build/bench_c}
map=${2:-../shared/data/movingai/lak303d.map}
workload=${3:-plain}
case $workload in
  graph) entry=bench_graph_find ;;
  field) entry=astar_field_build ;;
  *) entry=astar_find ;;
esac
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 1; }
out=$(mktemp "${TMPDIR:-/tmp}/astar-callgrind.XXXXXX")
trap 'rm -f "$out" "$out.log"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="$entry" \
    "$bench" --workloads "$workload" "$map" >"$out.log" 2>&1
instructions=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.log")
expansions=$(sed -n "s/^figure c $workload [^ ]* expansions \([0-9]*\)\$/\1/p" "$out.log" | head -n 1)
wrong=$(sed -n "s/^figure c $workload [^ ]* mismatches \([0-9]*\)\$/\1/p" "$out.log" | head -n 1)
[ -n "$instructions" ] && [ -n "$expansions" ] || { cat "$out.log" >&2; exit 1; }
# A workload that never calls the entry counts nothing: say so rather than print 0 per expansion.
[ "$instructions" -gt 0 ] || { echo "callgrind.sh: workload $workload never called $entry" >&2; exit 1; }
echo "map: $(basename "$map")  workload: $workload  mismatches: $wrong"
echo "instructions in $entry: $instructions"
echo "expansions: $expansions"
awk -v i="$instructions" -v e="$expansions" 'BEGIN { printf "instructions per expansion: %.1f\n", i / e }'
[ "$wrong" = 0 ]
