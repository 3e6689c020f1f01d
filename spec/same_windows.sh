#!/bin/sh
# The same bits from the Windows build as from the Linux one (the identical-answers check across
# builds, as spec/c/same_builds.sh is across compilers): the digest of test_same_answer (thousands
# of queries' statuses, cost bits and paths) from both, and every answer field, error message
# and step trace of bench/same_bits.lua's random worlds from both modules (the Windows lua.exe
# under Wine; lines tagged KNOWN, a threaded build's progress units, vary from run to run).
#   sh spec/same_windows.sh LINUX_BUILD WINDOWS_BUILD      (from the repository's root)
set -u
linux=$1
windows=$2
wine="sh tools/windows/wine.sh $windows"
failed=0
dir=$(mktemp -d "${TMPDIR:-/tmp}/astar-windows.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

lin=$("$linux/test_same_answer" --digest) || { echo "not ok - the Linux test_same_answer failed"; exit 1; }
win=$($wine "$windows/test_same_answer.exe" --digest | tr -d '\r') ||
  { echo "not ok - the Windows test_same_answer failed"; exit 1; }
echo "test_same_answer: Linux $lin, Windows $win"
[ "$lin" = "$win" ] || { echo "not ok - the digests differ"; failed=1; }

seed=7 worlds=300
ASTAR_BUILD=$linux lua5.4 bench/same_bits.lua . $seed $worlds 2>"$dir/linux.err" | grep -v '^KNOWN' >"$dir/linux"
ASTAR_BUILD=$windows $wine "$windows/lua54/lua.exe" bench/same_bits.lua . $seed $worlds 2>"$dir/windows.err" |
  tr -d '\r' | grep -v '^KNOWN' >"$dir/windows"
for os in linux windows; do # a run that stopped early prints fewer lines (and says why)
  lines=$(wc -l <"$dir/$os")
  [ "$lines" -gt 30000 ] || { echo "not ok - same_bits.lua printed $lines lines on $os"; tail -5 "$dir/$os.err"; exit 1; }
done
if cmp -s "$dir/linux" "$dir/windows"; then
  echo "same_bits.lua: $lines lines, identical"
else
  echo "not ok - same_bits.lua: the Windows answers differ:"
  diff "$dir/linux" "$dir/windows" | head -20 | cut -c1-300
  failed=1
fi
[ "$failed" = 0 ] && echo "ok - the same bits from the Windows build"
exit "$failed"
