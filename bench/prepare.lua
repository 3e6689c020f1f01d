-- The first query of each kind after grid:prepare() against the second (issue 26 target:
-- first <= 1.5x second). Each run is a fresh process: the map loaded, its inputs made (a
-- layer, claims on start cells: no query), grid:prepare({workspaces = 1}) (with hierarchy =
-- true for the hierarchical kind), then two long queries A and B of the kind; CPU time
-- (os.clock). The same query as a first and as a second: A's time when it runs first (A, B)
-- against its time when it runs second (B, A), each the median of REPS processes, so that a
-- query's second run finding its own cells in the cache does not flatter the ratio. Without
-- prepare too, for comparison. Prints per map and kind: prepare's ms, A first, A second, the
-- ratio, and the ratio without prepare.
--   lua5.4 bench/prepare.lua [MAP ...]          (REPS=n in the environment: default 5)
--   lua5.4 bench/prepare.lua --one MAP KIND prepare|none ab|ba    (one process's run)
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local KINDS = { "defaults", "influence", "jump_false", "claims", "hierarchical", "search", "find_nearest" }

-- The longest walkable problems of the scenario (the last ones listed): the last, and the
-- one `back` before it.
local function problems(grid, map, back)
  local scen = astar.load_scen(map .. ".scen")
  local found = {}
  for i = #scen, 1, -1 do
    local p = scen[i]
    if grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) then found[#found + 1] = p end
    if #found > back then break end
  end
  return found[1], found[back + 1], scen
end

local function one(map, kind, prepare, order)
  local grid = astar.load_movingai(map)
  local a, b, scen = problems(grid, map, 5)
  local p
  local query
  if kind == "influence" then
    local layer = astar.influence(grid.width, grid.height)
    for y = 1, grid.height, 3 do for x = 1, grid.width, 3 do layer:set(x, y, 0.5) end end
    query = function() return grid:find(p.sx, p.sy, p.gx, p.gy, { influence = layer }) end
  elseif kind == "claims" then
    local claims = astar.claims(grid)
    for u = 1, 8 do
      local q = scen[#scen - 10 * u]
      claims:claim(u, { { x = q.sx, y = q.sy }, { x = q.gx, y = q.gy } })
    end
    query = function() return grid:find(p.sx, p.sy, p.gx, p.gy, { claims = claims }) end
  elseif kind == "jump_false" then
    query = function() return grid:find(p.sx, p.sy, p.gx, p.gy, { jump = false }) end
  elseif kind == "hierarchical" then
    query = function() return grid:find(p.sx, p.sy, p.gx, p.gy, { hierarchical = true }) end
  elseif kind == "search" then
    query = function()
      local job = grid:search(p.sx, p.sy, p.gx, p.gy)
      while job:step(5000) == "running" do end
      return job:result()
    end
  elseif kind == "find_nearest" then
    local others = {} -- the goals of 7 other long problems, and p's
    for i = 1, 7 do others[i] = { x = scen[#scen - 20 * i].gx, y = scen[#scen - 20 * i].gy } end
    query = function()
      others[8] = { x = p.gx, y = p.gy }
      return grid:find_nearest(p.sx, p.sy, others)
    end
  else
    query = function() return grid:find(p.sx, p.sy, p.gx, p.gy) end
  end
  collectgarbage()
  local t0 = os.clock()
  if prepare then grid:prepare({ workspaces = 1, hierarchy = kind == "hierarchical" or nil }) end
  local t1 = os.clock()
  p = order == "ab" and a or b
  query()
  local t2 = os.clock()
  p = order == "ab" and b or a
  query()
  local t3 = os.clock()
  -- prepare, then A's time (first or second)
  io.write(string.format("%.3f %.3f\n", (t1 - t0) * 1e3, ((order == "ab" and t2 - t1) or t3 - t2) * 1e3))
end

if arg[1] == "--one" then
  one(arg[2], arg[3], arg[4] == "prepare", arg[5])
  return
end

local maps = { ... }
if #maps == 0 then
  local dir = "/work/shared/data/movingai/"
  maps = { dir .. "brc202d.map", dir .. "Aurora.map", dir .. "Paris_0_1024.map" }
end
local lua = os.getenv("LUA") or "lua5.4"
local REPS = tonumber(os.getenv("REPS") or "5")
local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end
-- Medians over REPS processes: prepare's ms, A's ms as the first query, A's as the second.
local function run(map, kind, how)
  local got = { {}, {}, {} }
  for _ = 1, REPS do
    for i, order in ipairs({ "ab", "ba" }) do
      local f = assert(io.popen(("%s %s --one %q %s %s %s"):format(lua, arg[0], map, kind, how, order)))
      local out = f:read("a")
      f:close()
      local prep, t = out:match("([%d.]+) ([%d.]+)")
      assert(prep, out)
      if i == 1 then got[1][#got[1] + 1] = tonumber(prep) end
      got[i + 1][#got[i + 1] + 1] = tonumber(t)
    end
  end
  return median(got[1]), median(got[2]), median(got[3])
end
print(("%-16s %-13s %10s %10s %10s %7s %14s"):format("map", "kind", "prepare ms", "first ms", "second ms",
  "ratio", "unprepared"))
for _, map in ipairs(maps) do
  for _, kind in ipairs(KINDS) do
    local prep, first, second = run(map, kind, "prepare")
    local _, cold, cold2 = run(map, kind, "none")
    print(("%-16s %-13s %10.2f %10.3f %10.3f %6.2fx %13.2fx"):format(map:match("([^/]+)%.map$"), kind, prep, first,
      second, first / second, cold / cold2))
  end
end
