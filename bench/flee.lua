-- grid:flee and grid:wander on a Moving AI map: the mean time per call and the expansions
-- (every search's: the threat field's and the unit's), for distance (flee) and cost (wander)
-- 5, 10, 20, over 100 units placed by a fixed seed, each fleeing a threat in the next cell.
-- Work grows with the distance, not the map: run it on a 512 and a 1024 map and compare.
-- FLEE_OLD=dir runs dir/astar/flee.lua's astar.flee and astar.wander instead (the Lua front
-- of before, for a before/after row). FLEE_SIZE=n gives every call size = n; FLEE_CLASSES=1
-- classes the map first (class 1 on 4x4 blocks of a third of the map, class 2 on one cell in
-- 16 of the rest) and gives every call classes = { [1] = 2, [2] = false }.
--   lua5.4 bench/flee.lua [MAP]
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")
local old = os.getenv("FLEE_OLD")
local flee, wander = astar.flee, astar.wander
if old then
  package.path = old .. "/?.lua;" .. package.path
  flee, wander = require("astar.flee").flee, require("astar.flee").wander
end

local grid = astar.load_movingai(arg[1] or "../shared/data/movingai/Boston_0_512.map")
local w, h = grid:size()
local extra = { size = tonumber(os.getenv("FLEE_SIZE") or "") }
if os.getenv("FLEE_CLASSES") then
  for y = 1, h do
    for x = 1, w do
      local c = ((x // 4 + y // 4) % 3 == 0) and 1 or ((x * 7 + y * 13) % 16 == 0 and 2 or 0)
      if c > 0 then grid:set_class(x, y, c) end
    end
  end
  extra.classes = { [1] = 2, [2] = false }
end
local function with(opts)
  for k, v in pairs(extra) do opts[k] = v end
  return opts
end
local state = 12345
local function rnd(n)
  state = (state * 48271) % 2147483647
  return 1 + state % n
end
local units = {}
while #units < 100 do
  local x, y = rnd(w), rnd(h)
  if grid:is_walkable(x, y) then units[#units + 1] = { x = x, y = y } end
end
-- First use: what the grid builds once on its first find to targets (its islands' labels, the
-- workspace's arrays), then reuses; timed apart from the rows.
local first = os.clock()
flee(grid, units[1].x, units[1].y, { units[1] }, with({ distance = 5 }))
print(("first call: %.2f ms"):format((os.clock() - first) * 1000))
for _, d in ipairs({ 5, 10, 20 }) do
  local t, reached, safe = os.clock(), 0, 0
  for _, u in ipairs(units) do
    local tx = u.x < w and grid:is_walkable(u.x + 1, u.y) and u.x + 1 or u.x
    local _, info = flee(grid, u.x, u.y, { { x = tx, y = u.y } }, with({ distance = d }))
    reached, safe = reached + (info.reached or info.expansions), safe + (info.safe and 1 or 0)
  end
  local flee_ms = (os.clock() - t) * 1000 / #units
  local wt, wr = os.clock(), 0
  for i, u in ipairs(units) do
    local _, info = wander(grid, u.x, u.y, d, with({ seed = i }))
    wr = wr + (info.reached or info.expansions)
  end
  print(("%2d: flee %.3f ms (%.0f cells or expansions, %d/%d safe), wander %.3f ms (%.0f)"):format(d, flee_ms,
    reached / #units, safe, #units, (os.clock() - wt) * 1000 / #units, wr / #units))
end
