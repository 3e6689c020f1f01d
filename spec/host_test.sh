#!/bin/sh
# The modding host (examples/host): start it, edit a unit's AI script while it runs, and see
# the unit take another route on the next tick; a broken edit keeps the last good version.
#   sh spec/host_test.sh HOST_BINARY SOURCE_DIR
set -eu
host=$1
root=$2
tmp=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
cp "$root"/examples/host/scripts/*.lua "$tmp/"
mkfifo "$tmp/in"
"$host" "$root/examples/host/arena.map" "$tmp" "$root/lua" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 3>"$tmp/in"

fail() {
  echo "host test: $1"
  echo "--- stdout"; cat "$tmp/out"
  echo "--- stderr"; cat "$tmp/err"
  exit 1
}
wait_for() { # a line the host will print
  i=0
  until grep -q "^$1\$" "$tmp/out"; do
    i=$((i + 1))
    [ "$i" -lt 400 ] || fail "no '$1' within 20 s"
    sleep 0.05
  done
}
route() { # tick unit -> "cost C length L danger D"
  sed -n "s/^tick $1 unit $2 script [a-z.]* //p" "$tmp/out"
}
danger() { route "$1" "$2" | sed 's/.* danger //'; }

echo "tick 2" >&3
wait_for "ticked 2"
[ "$(danger 2 scout)" = 0 ] || fail "the shipped scout walks through danger: $(route 2 scout)"
[ "$(danger 2 runner)" -gt 0 ] || fail "the runner avoids danger: $(route 2 runner)"
before=$(route 2 scout)

# The modder makes the scout bold: the runner's script, under the scout's name.
cp "$tmp/runner.lua" "$tmp/scout.lua.new"
mv "$tmp/scout.lua.new" "$tmp/scout.lua"
echo "tick 1" >&3
wait_for "ticked 3"
[ "$(grep -c '^loaded scout.lua for scout$' "$tmp/out")" = 2 ] || fail "the edited script was not reloaded"
[ "$(danger 3 scout)" -gt 0 ] || fail "the edited scout still avoids danger: $(route 3 scout)"
[ "$(route 3 scout)" != "$before" ] || fail "the route did not change"

# A broken edit: reported, and the last good version goes on.
echo "return {" >"$tmp/scout.lua"
echo "tick 1" >&3
wait_for "ticked 4"
grep -q "scout.lua: .*keeping the loaded version" "$tmp/err" || fail "a broken script was not reported"
[ "$(route 4 scout)" = "$(route 3 scout)" ] || fail "a broken edit changed the route"

# A script that fails at run time: the error is the unit's answer, the host goes on.
printf 'return { options = function() error("mod bug") end }\n' >"$tmp/scout.lua"
echo "tick 1" >&3
wait_for "ticked 5"
grep -q "^tick 5 unit scout script scout.lua error .*mod bug" "$tmp/out" || fail "a failing script was not reported"
[ "$(route 5 runner)" = "$(route 4 runner)" ] || fail "the runner was disturbed"

echo quit >&3
exec 3>&-
wait "$pid" || fail "the host exited with $?"
pid=""
echo "host test: ok (scout: '$before' -> '$(route 3 scout)')"
