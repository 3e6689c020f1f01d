-- A loading screen that stays responsive while landmarks are built: the build runs a
-- budget of work per frame (build:step), the bar shows build:progress(), and the game's
-- queries keep answering (without the landmarks) until the step that completes the build
-- installs them at once. Then the same build, scheduled beside searches (sched:build).
--
--   lua5.4 examples/loading_screen.lua [map.map [k [threads]]]   (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local map_path, k, threads = arg and arg[1], tonumber(arg and arg[2]) or 16, tonumber(arg and arg[3]) or 2
local grid
if map_path then
  grid = astar.load_movingai(map_path)
else -- a 200 x 200 city of blocks, so the example needs no file
  grid = astar.grid(200, 200)
  for y = 1, 200 do
    for x = 1, 200 do
      if x % 20 > 3 and y % 20 > 3 and (x * 7 + y * 13) % 5 ~= 0 then grid:set_blocked(x, y, true) end
    end
  end
  for y = 1, 180 do grid:set_blocked(101, y, true) end -- a river, bridged at the south end only
end
local w, h = grid:size()
local sx, sy, gx, gy = math.floor(w / 2) - 10, 2, math.floor(w / 2) + 10, 2 -- across the river

local function bar(p, width)
  local full = math.floor(p * width + 0.5)
  return "[" .. string.rep("#", full) .. string.rep(".", width - full) .. "]"
end

-- A frame: one slice of the build (20,000 units: a few milliseconds on a 1024 x 1024 map).
local BUDGET = 20000
local build = grid:build_landmarks(k, { threads = threads })
local frames, shown = 0, -1
local AStar = { jump = false } -- A* (jump point search, which uniform maps take, uses no landmarks)
local _, before = grid:find(sx, sy, gx, gy, AStar)
while not build:done() do
  build:step(BUDGET)
  frames = frames + 1
  local pct = math.floor(build:progress() * 100)
  if pct >= shown + 10 or build:done() then -- a line per tenth: the text stands in for a drawn bar
    shown = pct
    print(("frame %4d  %s %3d%%"):format(frames, bar(build:progress(), 30), pct))
  end
end
local count, bytes = grid:landmarks()
local _, after = grid:find(sx, sy, gx, gy, AStar)
print(("built %d landmarks (%.1f MiB) in %d frames of %d units on %d threads"):format(count, bytes / 2 ^ 20,
  frames, BUDGET, build:threads()))
print(("a query across the river: %d expansions before, %d after, cost %.2f both times: %s"):format(
  before.expansions, after.expansions, after.cost, tostring(math.abs(before.cost - after.cost) < 1e-9)))

-- The same from the scheduler: the build shares each tick's budget with the searches.
local sched = astar.scheduler({ budget = BUDGET })
local built_at, found_at
local ticks = 0
sched:build(grid:build_landmarks(k + 1, { threads = threads }), function() built_at = ticks end)
sched:request(grid, 1, h, w, 1, nil, function() found_at = ticks end)
while sched:pending() > 0 do
  ticks = ticks + 1
  sched:tick()
end
print(("scheduled: the search answered at tick %d, the build of %d landmarks completed at tick %d"):format(
  found_at, (grid:landmarks()), built_at))
