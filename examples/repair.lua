-- A unit walks a long path; another unit steps into its way and a crate falls further on.
-- Each frame it asks check_path whether the rest of its path is still allowed, and when not
-- it repairs the path from where it stands: a local repair (rejoin_within) rejoins the old
-- path just past the blockage, for a fraction of a fresh find's work; a repair over every
-- later cell costs what a fresh find costs (the goal is one of them).
--
--   lua5.4 examples/repair.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

-- Rooms along a corridor; the doors are the gaps in the walls.
local W, H = 80, 21
local rows = {}
for y = 1, H do
  local row = {}
  for x = 1, W do
    local wall = y == 1 or y == H or x == 1 or x == W
    if y == 8 or y == 14 then wall = x % 10 ~= 5 end -- room walls with a door per room
    if x % 10 == 0 and (y < 8 or y > 14) then wall = true end -- walls between rooms
    row[x] = wall and "#" or "."
  end
  rows[y] = table.concat(row)
end
local grid = astar.grid(W, H)
grid:load(rows)

local function show(path, mark)
  local on = {}
  for _, p in ipairs(path) do on[p.y * 1000 + p.x] = "*" end
  for _, m in ipairs(mark or {}) do on[m.y * 1000 + m.x] = m.c end
  for y = 1, H do
    local row = {}
    for x = 1, W do row[x] = on[y * 1000 + x] or rows[y]:sub(x, x) end
    print("  " .. table.concat(row))
  end
end

-- From a room in the top-left to one in the bottom-right, through the corridor.
local path, info = grid:find(3, 3, 77, 19)
print(string.format("Planned: %d cells, cost %.2f, %d expansions", #path, info.cost, info.expansions))

-- The unit has walked 30 cells; then someone stands in the corridor 6 cells ahead (a query
-- cost: node_cost blocks that cell for this unit only) and a crate falls on its path 30 cells
-- further (the terrain).
local here = 30
local blocker = path[here + 6]
local crate = path[here + 36]
grid:set_cost(crate.x, crate.y, false)
local function others(x, y) if x == blocker.x and y == blocker.y then return false end end
local opts = { node_cost = others }

local bad = grid:check_path(path, here, opts)
print(string.format("check_path from cell %d: cell %d is no longer allowed (%d,%d)", here, bad, path[bad].x,
  path[bad].y))

local local_path, fix = grid:repair(path, here, { node_cost = others, rejoin_within = 12 })
print(string.format("Local repair (rejoin_within = 12): %s, rejoins at cell %s, cost %.2f, %d expansions",
  fix.status, tostring(fix.rejoin), fix.cost or 0, fix.expansions))
local _, all = grid:repair(path, here, opts)
print(string.format("Repair over every later cell: rejoins at cell %s, cost %.2f, %d expansions", tostring(all.rejoin),
  all.cost, all.expansions))
local _, fresh = grid:find(path[here].x, path[here].y, 77, 19, opts)
print(string.format("A fresh find from there: cost %.2f, %d expansions", fresh.cost, fresh.expansions))
-- The rejoin cells start past the last step the query no longer allows: one repair
-- goes around both the unit and the crate.
print("The repaired path is clear: " .. tostring(grid:check_path(local_path, 1, opts) == nil))
show(local_path, { { x = blocker.x, y = blocker.y, c = "U" }, { x = crate.x, y = crate.y, c = "C" } })
