#!/bin/sh
# Instructions and mispredicted conditional branches per expansion, ours against the bare
# reference A* (../shared/refastar), side by side on one map: callgrind's branch simulator
# (--branch-sim=yes) over the searches only (astar_find; refastar's astar_indexed). Counts,
# not times: stable on a noisy shared machine.
#
#   sh bench/branches.sh [path/to/bench_c] [map.map] [path/to/refastar.c]
set -eu
bench=${1:-./build/bench_c}
map=${2:-../shared/data/movingai/lak303d.map}
ref_src=${3:-../shared/refastar/refastar.c}
command -v valgrind >/dev/null || { echo "branches.sh: valgrind is not installed" >&2; exit 1; }
[ -f "$ref_src" ] || { echo "branches.sh: no $ref_src (the reference A*)" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/astar-branches.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# refastar's own flags (its Makefile), built here: ../shared may be read-only.
${CC:-cc} -O2 -std=c11 -o "$dir/refastar" "$ref_src" -lm

count() { # name, function to count, command...: prints "name instructions branches mispredicted"
  name=$1 fn=$2
  shift 2
  valgrind --tool=callgrind --branch-sim=yes --callgrind-out-file="$dir/$name.out" \
      --toggle-collect="$fn" "$@" >"$dir/$name.txt" 2>"$dir/$name.log"
  sed -n "s/.*Collected : \([0-9]*\) \([0-9]*\) \([0-9]*\).*/$name \1 \2 \3/p" "$dir/$name.log"
}
ours=$(count ours astar_find "$bench" --workloads plain "$map")
ref=$(count refastar astar_indexed "$dir/refastar" "$map")
ours_exp=$(sed -n 's/^figure c plain [^ ]* expansions \([0-9]*\)$/\1/p' "$dir/ours.txt" | head -n 1)
ours_wrong=$(sed -n 's/^figure c plain [^ ]* mismatches \([0-9]*\)$/\1/p' "$dir/ours.txt" | head -n 1)
ref_exp=$(awk '$3 ~ /^[0-9]+$/ && NF == 10 {print $7}' "$dir/refastar.txt")
ref_wrong=$(awk '$3 ~ /^[0-9]+$/ && NF == 10 {print $4}' "$dir/refastar.txt")
[ -n "$ours" ] && [ -n "$ref" ] && [ -n "$ours_exp" ] && [ -n "$ref_exp" ] || {
  cat "$dir"/*.log "$dir"/*.txt >&2
  exit 1
}
echo "map: $(basename "$map")"
printf '%-9s %12s %10s %10s %14s\n' system expansions mismatches instr/exp mispredicts/exp
printf '%s %s %s\n%s %s %s\n' "$ours" "$ours_exp" "$ours_wrong" "$ref" "$ref_exp" "$ref_wrong" |
  awk '{ printf "%-9s %12d %10d %10.1f %14.2f\n", $1, $5, $6, $2 / $5, $4 / $5 }'
[ "$ours_wrong" = 0 ] && [ "$ref_wrong" = 0 ]
