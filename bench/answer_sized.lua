-- Work that grows with the answer (issue 27, point 3): calls whose answer is small on a big
-- map must cost what the answer costs. Medians of:
--   smooth    astar.smooth of paths of about 1,000 cells (Paris_0_1024)
--   range     grid:range(x, y, 10) at 50 walkable points of Paris
--   nearest   grid:find_nearest toward 8 targets within 12 cells, at the same points
--   field     grid:distance_field({p}, { max_cost = 10 }) at the same points
--   full      grid:distance_field({p}) reaching the whole map (a few runs: dense storage)
-- Run it on two builds to compare (the Lua front is taken from the working directory's lua/,
-- or from ASTAR_LUA):
--   ASTAR_BUILD=./build lua5.4 bench/answer_sized.lua [MAP]      (or luajit, with its build)
local lua_dir = os.getenv("ASTAR_LUA") or "./lua"
package.path = lua_dir .. "/?/init.lua;" .. lua_dir .. "/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local map = arg[1] or "../shared/data/movingai/Paris_0_1024.map"
local grid = astar.load_movingai(map)
local scen = astar.load_scen(map .. ".scen")

local function median(t)
  table.sort(t)
  local n = #t
  local h = math.floor(n / 2)
  return n % 2 == 1 and t[h + 1] or (t[h] + t[h + 1]) / 2
end

-- ms of each call of fn(i) for i = 1..n, after one warm-up call (it makes the workspace).
local function times(n, fn)
  fn(1)
  local t = {}
  for i = 1, n do
    local t0 = os.clock()
    fn(i)
    t[i] = (os.clock() - t0) * 1e3
  end
  return t
end

local function report(name, t, extra)
  table.sort(t)
  print(string.format("%-8s median %8.3f ms  max %8.3f ms  (%d runs)%s", name, median(t), t[#t], #t,
    extra or ""))
end

-- Paths of 900..1100 cells from the scenarios, the last ones first (the longest).
local paths = {}
for i = #scen, 1, -1 do
  local p = scen[i]
  local path = grid:find(p.sx, p.sy, p.gx, p.gy)
  if path and #path >= 900 and #path <= 1100 then paths[#paths + 1] = path end
  if #paths == 5 then break end
end
local cells = 0
for _, p in ipairs(paths) do cells = cells + #p end
report("smooth", times(#paths, function(i) astar.smooth(grid, paths[i]) end),
  string.format("  paths of %d cells on average", math.floor(cells / #paths)))

-- 50 walkable points spread over the map (a fixed stride: the same points every run).
local points, w, h = {}, grid.width, grid.height
local k = 0
while #points < 50 do
  k = k + 1
  local x, y = (k * 7919) % w + 1, (k * 104729) % h + 1
  if grid:is_walkable(x, y) then points[#points + 1] = { x = x, y = y } end
end

local reached = 0
report("range", times(#points, function(i)
  local got = grid:range(points[i].x, points[i].y, 10)
  reached = reached + #got
end), string.format("  %d cells reached on average", math.floor(reached / (#points + 1))))

local targets = {}
for i, p in ipairs(points) do
  local t = {}
  for j = 1, 8 do
    local a = j * math.pi / 4
    t[j] = { x = math.max(1, math.min(w, p.x + math.floor(12 * math.cos(a)))),
             y = math.max(1, math.min(h, p.y + math.floor(12 * math.sin(a)))) }
  end
  targets[i] = t
end
report("nearest", times(#points, function(i) grid:find_nearest(points[i].x, points[i].y, targets[i]) end))

report("field", times(#points, function(i)
  grid:distance_field({ points[i] }, { max_cost = 10 })
end))

report("full", times(3, function(i) grid:distance_field({ points[i] }) end))
