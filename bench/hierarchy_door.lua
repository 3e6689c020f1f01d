-- The grid's own hierarchy after a door toggle: a terrain write marks the clusters it touches
-- dirty, and the next hierarchical find rebuilds them (hierarchy.c, astar_hierarchy_refresh).
-- A door on the longest scenario's path is toggled 12 times; each time the first hierarchical
-- find after the write and the same find again (CPU ms, medians, and the largest first); with
-- dead_ends = false too, which leaves out the dead-end areas a walkability change makes stale
-- (rebuilt whole by the next query that skips them: another part of issue 26).
--   lua5.4 bench/hierarchy_door.lua [MAP]      (default Paris_0_1024)
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local map = arg[1] or "/work/shared/data/movingai/Paris_0_1024.map"
local grid = astar.load_movingai(map)
local scen = astar.load_scen(map .. ".scen")
local p = scen[#scen]
grid:prepare({ hierarchy = true })
local path = grid:find(p.sx, p.sy, p.gx, p.gy, { hierarchical = true })
-- A door: the path cell nearest its middle in a passage (two walkable straight neighbours).
local door
for d = 0, #path // 2 - 1 do
  for _, i in ipairs({ #path // 2 + d, #path // 2 - d }) do
    local c, open = path[i], 0
    for _, o in ipairs({ { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } }) do
      if grid:is_walkable(c.x + o[1], c.y + o[2]) then open = open + 1 end
    end
    if open == 2 and not door then door = c end
  end
  if door then break end
end
door = door or path[#path // 2]
local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end
for _, opts in ipairs({ { hierarchical = true }, { hierarchical = true, dead_ends = false } }) do
local firsts, agains, most, dirty = {}, {}, 0, 0
for i = 1, 12 do
  if i % 2 == 1 then grid:set_cost(door.x, door.y, false) else grid:set_cost(door.x, door.y, 1) end
  dirty = math.max(dirty, grid:hierarchy().dirty)
  local t0 = os.clock()
  grid:find(p.sx, p.sy, p.gx, p.gy, opts)
  local t1 = os.clock()
  grid:find(p.sx, p.sy, p.gx, p.gy, opts)
  local t2 = os.clock()
  firsts[i], agains[i] = (t1 - t0) * 1e3, (t2 - t1) * 1e3
  most = math.max(most, firsts[i])
end
local h = grid:hierarchy()
print(("%s%s: door (%d,%d), cluster size %d, %d clusters; dirty after a toggle: %d; first find after "
  .. "a toggle %.3f ms median (largest %.3f), again %.3f ms: %.2fx"):format(map:match("([^/]+)%.map$"),
  opts.dead_ends == false and " (dead_ends = false)" or "",
  door.x, door.y, h.cluster_size, h.clusters, dirty, median(firsts), most, median(agains),
  median(firsts) / median(agains)))
end
