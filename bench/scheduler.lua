-- A frame loop: 500 units ask for paths at once on a 512x512 Moving AI map; the
-- scheduler serves them under a per-tick expansion budget. Prints the ticks
-- needed, the largest tick (expansions, never above the budget), the median
-- and worst time per tick, and checks every answer against the scenario's optimum.
--   lua5.4 bench/scheduler.lua [MAP] [budget]
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local map = arg[1] or "../shared/data/movingai/random512-10-0.map"
local budget = tonumber(arg[2] or "5000")
local grid = astar.load_movingai(map)
local scen = astar.load_scen(map .. ".scen")
local sched = astar.scheduler({ budget = budget, concurrent = 16 })
local want, got, units = {}, {}, 0
for i = 1, #scen, math.max(1, #scen // 500) do
  local p = scen[i]
  if grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) and units < 500 then
    units = units + 1
    local u = units
    want[u] = p.optimal
    sched:request(grid, p.sx, p.sy, p.gx, p.gy, nil, function(_, info) got[u] = info end)
  end
end
local times, most, ticks, first = {}, 0, 0, nil
while sched:pending() > 0 do
  local t0 = os.clock()
  local spent = sched:tick()
  local ms = (os.clock() - t0) * 1e3
  if ticks == 0 then first = ms else times[#times + 1] = ms end -- the first makes the workspaces
  most = math.max(most, spent)
  ticks = ticks + 1
end
table.sort(times)
local wrong = 0
for u = 1, units do
  if not got[u] or math.abs(got[u].cost - want[u]) > 1e-4 * want[u] + 1e-3 then wrong = wrong + 1 end
end
print(string.format("%s: %d units, budget %d expansions: %d ticks, largest tick %d expansions, " ..
  "median %.2f ms, worst %.2f ms per tick (the first, which makes the workspaces: %.1f ms), %d wrong",
  map:match("[^/]+$"), units, budget, ticks, most, times[(#times + 1) // 2], times[#times], first, wrong))
os.exit(wrong == 0 and most <= budget and 0 or 1)
