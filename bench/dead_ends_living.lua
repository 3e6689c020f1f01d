-- Issue 26, dead ends in a living world: a gate of 1 to 3 cells across a narrow passage on a
-- long path is shut and opened 12 times; after each toggle the same query runs twice, and the
-- first run's time is compared with the second's (median and worst ratio), for a find with
-- one influence layer and one with jump = false (dead_ends at its default), and the same with
-- dead_ends = false (what the rest of the library's caches cost after a toggle). Prints the
-- set_cost time of the gate too. One run; times from os.clock.
--   lua5.4 bench/dead_ends_living.lua [MAP ...]
-- GATE_COST=1.5 opens the gate at that cost, with one far cell at 2: then shutting it leaves
-- the grid's cost range as it was, which otherwise the first query after a shut recounts (a
-- pass over the cells that is not the dead ends').
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local DATA = "../shared/data/movingai/"
local maps = #arg > 0 and arg or { DATA .. "brc202d.map", DATA .. "Aurora.map", DATA .. "Paris_0_1024.map" }

local function median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  return s[(#s + 1) // 2]
end

-- The walkable run through (x, y) along (dx, dy) between two walls: its cells, or nil when it
-- is wider than 3.
local function cross(grid, x, y, dx, dy)
  local w, h = grid:size()
  local function open(cx, cy) return cx >= 1 and cy >= 1 and cx <= w and cy <= h and grid:is_walkable(cx, cy) end
  local a, b = 0, 0
  while open(x - (a + 1) * dx, y - (a + 1) * dy) do a = a + 1; if a > 3 then return nil end end
  while open(x + (b + 1) * dx, y + (b + 1) * dy) do b = b + 1; if b > 3 then return nil end end
  if a + b + 1 > 3 then return nil end
  local cells = {}
  for i = -a, b do cells[#cells + 1] = { x + i * dx, y + i * dy } end
  return cells
end

-- A gate: a passage at most 3 cells wide (a run of walkable cells between two blocked ones,
-- with open cells on both sides across it), near the middle of the map, and a long query
-- (from a scenario's start to just past the gate) that the gate's shutting sends around,
-- further: the query (sx, sy, gx, gy) and the gate's cells.
local function pick(grid, scen)
  local w, h = grid:size()
  local function open(x, y) return x >= 1 and y >= 1 and x <= w and y <= h and grid:is_walkable(x, y) end
  local gates = {}
  for y = 1, h do
    for x = 1, w do
      for _, dir in ipairs({ { 1, 0 }, { 0, 1 } }) do
        local dx, dy = dir[1], dir[2]
        -- (x, y) is the run's first cell: blocked before it, and both sides open across
        if open(x, y) and not open(x - dx, y - dy) then
          local gate = cross(grid, x, y, dx, dy)
          if gate and open(x + dy, y + dx) and open(x - dy, y - dx) then
            gates[#gates + 1] = { gate = gate, far = math.abs(x - w / 2) + math.abs(y - h / 2), dx = dy, dy = dx }
          end
        end
      end
    end
  end
  table.sort(gates, function(a, b) return a.far < b.far end)
  local p = scen[#scen]
  for i = 1, math.min(#gates, 300) do
    local gt = gates[i]
    local c = gt.gate[1]
    for _, side in ipairs({ 2, -2 }) do
      local gx, gy = c[1] + side * gt.dx, c[2] + side * gt.dy
      if open(gx, gy) then
        local path, info = grid:find(p.sx, p.sy, gx, gy, { jump = false })
        if path and #path > 100 then
          for _, g in ipairs(gt.gate) do grid:set_blocked(g[1], g[2], true) end
          local around, ainfo = grid:find(p.sx, p.sy, gx, gy, { jump = false })
          for _, g in ipairs(gt.gate) do grid:set_blocked(g[1], g[2], false) end
          if around and ainfo.cost > info.cost + 1 then return { sx = p.sx, sy = p.sy, gx = gx, gy = gy }, gt.gate end
        end
      end
    end
  end
end

for _, map in ipairs(maps) do
  local grid = astar.load_movingai(map)
  local scen = astar.load_scen(map .. ".scen")
  local w, h = grid:size()
  local p, gate = pick(grid, scen)
  assert(p, "no gate found on " .. map)
  local open_cost = tonumber(os.getenv("GATE_COST") or "1")
  if open_cost ~= 1 then
    for _, g in ipairs(gate) do grid:set_cost(g[1], g[2], open_cost) end
    grid:set_cost(scen[1].gx, scen[1].gy, 2)
  end
  local inf = astar.influence(w, h)
  for i = 1, 40 do inf:stamp(1 + (i * 7919) % w, 1 + (i * 104729) % h, 20, (i % 2 == 0) and 3 or -2) end
  local cases = {
    { "influence", { influence = inf } }, { "jump=false", { jump = false } },
    { "influence, dead_ends=false", { influence = inf, dead_ends = false } },
    { "jump=false, dead_ends=false", { jump = false, dead_ends = false } },
  }
  print(("%s (%dx%d): %d,%d -> %d,%d, gate of %d cell(s) at %d,%d"):format(map:match("[^/]+$"), w, h,
    p.sx, p.sy, p.gx, p.gy, #gate, gate[1][1], gate[1][2]))
  for _, case in ipairs(cases) do
    local name, opts = case[1], case[2]
    grid:find(p.sx, p.sy, p.gx, p.gy, opts) -- first use: the areas, the workspace
    local ratios, firsts, agains, sets = {}, {}, {}, {}
    for toggle = 1, 12 do
      local shut = toggle % 2 == 1
      local t0 = os.clock()
      for _, g in ipairs(gate) do grid:set_cost(g[1], g[2], shut and math.huge or open_cost) end
      sets[toggle] = (os.clock() - t0) * 1e6
      t0 = os.clock()
      grid:find(p.sx, p.sy, p.gx, p.gy, opts)
      local first = os.clock() - t0
      t0 = os.clock()
      grid:find(p.sx, p.sy, p.gx, p.gy, opts)
      local again = os.clock() - t0
      firsts[toggle], agains[toggle], ratios[toggle] = first * 1e3, again * 1e3, first / again
    end
    local worst = 0
    for _, r in ipairs(ratios) do worst = math.max(worst, r) end
    print(("  %-28s first %.3f ms, again %.3f ms (medians); first/again median %.2f, max %.2f; gate set_cost %.1f us")
      :format(name, median(firsts), median(agains), median(ratios), worst, median(sets)))
  end
end
