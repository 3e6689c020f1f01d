-- A crowd in a frame budget: 80 units on a 128x128 level of rooms walk to goals that move
-- every few seconds, through one scheduler given 0.2 ms of AI a frame (budget_us). Re-aimed
-- requests keep their ticket (sched:retarget), a danger layer is re-stamped every frame, and
-- sched:stats() gives what a game draws as its AI-time graph. Every delivered path is checked
-- to be a legal walk from the unit to its goal.
--   lua5.4 examples/crowd.lua
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = "./build/?.so;" .. package.cpath
local astar = require("astar")

local W, H, UNITS, FRAMES = 128, 128, 80, 300
local grid = astar.grid(W, H)
-- Rooms of 16x16 with a door in each wall.
for y = 1, H do
  for x = 1, W do
    local wall_x, wall_y = x % 16 == 0, y % 16 == 0
    local door = (wall_x and y % 16 == 8) or (wall_y and x % 16 == 8)
    if (wall_x or wall_y) and not door then grid:set_cost(x, y, false) end
  end
end
grid:prepare({ workspaces = 4 }) -- the loading screen: tables and the scheduler's workspaces

local seed = 42
local function rand(lo, hi)
  seed = (seed * 48271) % 2147483647
  return lo + seed % (hi - lo + 1)
end
local function open_cell()
  while true do
    local x, y = rand(1, W), rand(1, H)
    if grid:is_walkable(x, y) then return x, y end
  end
end

local danger = astar.influence(W, H)
local sched = astar.scheduler({ budget_us = 200, concurrent = 4 })
local units, delivered, wrong, retargeted, frame = {}, 0, 0, 0, 0
for id = 1, UNITS do
  local u = { id = id }
  u.x, u.y = open_cell()
  u.opts = { influence = danger }
  u.answer = function(path, info)
    u.ticket = nil
    delivered = delivered + 1
    -- A legal walk from the unit to its goal (its cost is exact for the danger values its
    -- search read: the layer changes every frame, between the search's slices).
    local ok = info.status == "found" and path[1].x == u.x and path[1].y == u.y and
      path[#path].x == u.gx and path[#path].y == u.gy
    for i = 2, ok and #path or 0 do
      local a, b = path[i - 1], path[i]
      ok = ok and math.abs(a.x - b.x) <= 1 and math.abs(a.y - b.y) <= 1 and grid:is_walkable(b.x, b.y)
    end
    if not ok then wrong = wrong + 1 end
    u.path, u.at = path, 1
  end
  u.move_at = rand(60, 240)
  units[id] = u
end

local function aim(u)
  u.gx, u.gy = open_cell()
  u.path = nil
  if u.ticket and sched:retarget(u.ticket, u.gx, u.gy, u.x, u.y) then
    retargeted = retargeted + 1
  else
    u.ticket = sched:request(grid, u.x, u.y, u.gx, u.gy, u.opts, u.answer)
  end
end
for _, u in ipairs(units) do aim(u) end

local ai_us, stats = {}, {}
for f = 1, FRAMES do
  frame = f
  danger:decay(0.5)
  danger:stamp(64 + math.floor(40 * math.sin(f / 30)), 64, 6, 8) -- a patrol crossing the level
  for _, u in ipairs(units) do
    if u.path then -- walk a cell a frame; a new goal on arrival
      u.at = u.at + 1
      u.x, u.y = u.path[u.at].x, u.path[u.at].y
      if u.at == #u.path then aim(u) end
    end
    if f >= u.move_at then -- the goal moved
      u.move_at = f + rand(120, 240)
      aim(u)
    end
  end
  sched:tick()
  sched:stats(stats) -- no garbage: the same table every frame
  ai_us[#ai_us + 1] = stats.last_tick_us
end
table.sort(ai_us)
print(string.format("%d frames, %d units: %d paths delivered (%d wrong), %d requests re-aimed in flight",
  frame, UNITS, delivered, wrong, retargeted))
print(string.format("AI time a frame: median %.0f us, budget %d us; %.2f us an expansion; %d waiting, %d running",
  ai_us[math.ceil(#ai_us / 2)], stats.budget_us, stats.us_per_expansion, stats.waiting, stats.running))
