-- Issue 26's scheduler target: 8 long influence paths in flight (each re-issued as it finishes),
-- a budget of 5000 expansions a tick at 60 ticks a second, 20 s of game time; a door (1-3 cells
-- across a passage that the long paths use) toggled every 2 s. Counts the long paths finished
-- with and without the door; the target is a ratio of at least 0.8. Game time, not CPU time:
-- the counts are the same on every machine.
--   lua5.4 bench/scheduler_doors.lua [MAP...]
-- DOOR_RANK=k takes the k-th busiest such passage instead of the busiest (default 1).
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local DIR = "../shared/data/movingai/"
local maps = #arg > 0 and arg or { DIR .. "Paris_0_1024.map", DIR .. "Aurora.map", DIR .. "brc202d.map" }
local TICKS, TOGGLE, IN_FLIGHT, BUDGET = 20 * 60, 2 * 60, 8, 5000

-- The longest tenth of the scenario's pairs, in a fixed shuffled order.
local function long_pairs(scen)
  local sorted = {}
  for i = 1, #scen do sorted[i] = scen[i] end
  table.sort(sorted, function(a, b) return a.optimal > b.optimal end)
  local pairs_, seed = {}, 12345
  for i = 1, math.max(16, #sorted // 10) do pairs_[i] = sorted[i] end
  for i = #pairs_, 2, -1 do
    seed = (seed * 1103515245 + 12345) % 2147483648
    local j = seed % i + 1
    pairs_[i], pairs_[j] = pairs_[j], pairs_[i]
  end
  return pairs_
end

-- A threat map: a few stamps, the same every run.
local function influence(grid)
  local w, h = grid.width, grid.height
  local layer = astar.influence(w, h)
  local seed = 777
  for _ = 1, 24 do
    seed = (seed * 1103515245 + 12345) % 2147483648
    local x = seed % w
    seed = (seed * 1103515245 + 12345) % 2147483648
    local y = seed % h
    layer:stamp(x, y, 12, 4)
  end
  return layer
end

-- The walkable run through (x, y) along (dx, dy), as cells; nil when longer than 3.
local function run_across(grid, x, y, dx, dy)
  local cells = { { x, y } }
  for _, s in ipairs({ -1, 1 }) do
    local i = 1
    while grid:is_walkable(x + s * i * dx, y + s * i * dy) do
      cells[#cells + 1] = { x + s * i * dx, y + s * i * dy }
      if #cells > 3 then return nil end
      i = i + 1
    end
  end
  return cells
end

-- Whether the two sides of a door (its run along (dx, dy)) stay connected when it is closed: a
-- door that cuts the map in two measures unreachable answers, not detours.
local function detour(grid, run, dx, dy)
  local x, y = run[1][1], run[1][2]
  local ax, ay, bx, by = x - dy, y - dx, x + dy, y + dx -- the cells before and after it
  if not (grid:is_walkable(ax, ay) and grid:is_walkable(bx, by)) then return false end
  for _, c in ipairs(run) do grid:set_cost(c[1], c[2], math.huge) end
  local ok = grid:reachable(ax, ay, bx, by)
  for _, c in ipairs(run) do grid:set_cost(c[1], c[2], 1) end
  return ok
end

-- The narrow passage (a run of at most 3 walkable cells between walls, with a way around) that
-- most of the long pairs' paths pass.
local function find_door(grid, pairs_, opts)
  local hits, w = {}, grid.width
  for i = 1, math.min(40, #pairs_) do
    local p = pairs_[i]
    local path = grid:find(p.sx, p.sy, p.gx, p.gy, opts)
    if path then
      for _, pt in ipairs(path) do
        local id = pt.y * w + pt.x
        hits[id] = (hits[id] or 0) + 1
      end
    end
  end
  local ranked = {}
  for id, n in pairs(hits) do ranked[#ranked + 1] = { id = id, n = n } end
  table.sort(ranked, function(a, b) return a.n > b.n or (a.n == b.n and a.id < b.id) end)
  local skip, seen = (tonumber(os.getenv("DOOR_RANK")) or 1) - 1, {}
  for _, r in ipairs(ranked) do
    local x, y = r.id % w, r.id // w
    for _, d in ipairs({ { 1, 0 }, { 0, 1 } }) do
      local across = run_across(grid, x, y, d[1], d[2])
      if across and detour(grid, across, d[1], d[2]) then
        local key = math.huge -- a passage's smallest cell id: each counted once
        for _, c in ipairs(across) do key = math.min(key, c[2] * w + c[1]) end
        if not seen[key] then
          seen[key] = true
          if skip == 0 then return across, r.n end
          skip = skip - 1
        end
      end
    end
  end
end

local function run(map, with_door)
  local grid = astar.load_movingai(map)
  local pairs_ = long_pairs(astar.load_scen(map .. ".scen"))
  local opts = { influence = influence(grid), influence_weight = 1 }
  local door, used = find_door(grid, pairs_, opts)
  local sched = astar.scheduler({ budget = BUDGET, concurrent = IN_FLIGHT })
  local next_pair, found, finished, restarts, repairs = 0, 0, 0, 0, 0
  local function issue()
    next_pair = next_pair % #pairs_ + 1
    local p = pairs_[next_pair]
    sched:request(grid, p.sx, p.sy, p.gx, p.gy, opts, function(path, info)
      finished = finished + 1
      if path then found = found + 1 end
      restarts = restarts + (info.restarts or 0)
      repairs = repairs + (info.repairs or 0)
    end)
  end
  for _ = 1, IN_FLIGHT do issue() end
  local closed = false
  local t0 = os.clock()
  for tick = 1, TICKS do
    if with_door and tick % TOGGLE == 0 then
      closed = not closed
      for _, c in ipairs(door) do grid:set_cost(c[1], c[2], closed and math.huge or 1) end
    end
    local before = finished
    sched:tick()
    for _ = 1, finished - before do issue() end
  end
  return found, finished, restarts, repairs, os.clock() - t0, #door, used
end

for _, map in ipairs(maps) do
  local name = map:match("[^/]+$")
  local f0, n0, r0, p0, t0 = run(map, false)
  local f1, n1, r1, p1, t1, cells, used = run(map, true)
  print(string.format("%s: long paths found in 20 s: %d without a door (%d finished, %d restarts, " ..
    "%d repairs, %.1f s CPU), %d with a %d-cell door on %d of 40 paths (%d finished, %d restarts, " ..
    "%d repairs, %.1f s CPU): ratio %.2f",
    name, f0, n0, r0, p0, t0, f1, cells, used, n1, r1, p1, t1, f0 > 0 and f1 / f0 or 0))
end
