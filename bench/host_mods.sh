#!/bin/sh
# The hostile mods of issue 25 against the modding host (examples/host): each runs as the
# scout's script for TICKS ticks; prints, per mod, the scout's wall time per tick (median and
# max, from the host's "time T unit scout ms M" lines) against the --ms budget, and whether the
# runner kept its route.
#   sh bench/host_mods.sh BUILD_DIR [TICKS]      (BUILD_DIR holds astar_host: a Release build)
set -eu
build=${1:?usage: sh bench/host_mods.sh BUILD_DIR [TICKS]}
ticks=${2:-10}
ms=50
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root"/examples/host/scripts/*.lua "$tmp/"
runner=""
mod() { # name, script text
  printf '%s\n' "$2" >"$tmp/scout.lua"
  printf 'tick %s\nquit\n' "$ticks" |
    "$build/astar_host" --ms $ms "$root/examples/host/arena.map" "$tmp" "$root/lua" >"$tmp/out" 2>/dev/null
  r=$(sed -n 's/^tick [0-9]* unit runner script runner.lua //p' "$tmp/out" | sort -u)
  [ -n "$runner" ] || runner=$r
  same=$([ "$r" = "$runner" ] && echo yes || echo NO)
  sed -n 's/^time [0-9]* unit scout ms //p' "$tmp/out" | sort -n |
    awk -v name="$1" -v ms=$ms -v same="$same" '{ t[NR] = $1 } END {
      printf "%-22s ticks %3d  median %7.1f ms  max %7.1f ms  (budget %d ms)  runner kept its route: %s\n",
        name, NR, t[int((NR + 1) / 2)], t[NR], ms, same }'
}
mod "none (shipped scout)" "$(cat "$root/examples/host/scripts/scout.lua")"
mod "os.exit" 'return { options = function() os.exit(3) end }'
mod "close world.grid" 'return { options = function(u, w) getmetatable(w.grid).__gc(w.grid) end }'
mod "hierarchy crash" 'return { options = function()
  local g = require("astar").grid(8, 8)
  g:hierarchy(4, setmetatable({}, { __index = function() getmetatable(g).__gc(g) end }))
end }'
mod "into hang" 'return { options = function()
  local t = {}; t[2^52], t[2^52 + 1] = true, true
  return { into = t }
end }'
mod "landmarks freeze" 'return { options = function() require("astar").grid(4096, 4096):landmarks(16) end }'
mod "landmarks 1024" 'return { options = function() require("astar").grid(1024, 1024):landmarks(8) end }'
mod "endless Lua" 'return { options = function() while true do end end }'
mod "pcall around C work" 'return { options = function()
  local g = require("astar").grid(512, 512)
  while true do pcall(g.distance_field, g, { { x = 1, y = 1 } }) end
end }'
mod "string.rep 2^62" 'return { options = function() string.rep("", 2^62) end }'
mod "table.move 2^40" 'return { options = function() table.move({}, 1, 2^40, 1, {}) end }'
mod "pattern backtracking" 'return { options = function() ("a"):rep(3000):find(".-.-.-.-b") end }'
mod "doubling + upper" 'return { options = function()
  local s = "x"; for _ = 1, 40 do s = s .. s end; return s:upper()
end }'
mod "hoarding" 'hoard = hoard or {}
return { options = function()
  local size = 2^26
  while size >= 64 do
    local ok, s = pcall(string.rep, "x", size - 24)
    if ok then hoard[#hoard + 1] = s else size = size // 2 end
  end
  return {}
end }'
