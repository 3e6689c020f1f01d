-- Lua benchmark over Moving AI maps: grid:find for every scenario (path tables
-- included), costs checked against the scenario's optimal length in the same run.
--
--   lua5.4 bench/bench.lua ../shared/data/movingai/lak303d.map [more.map ...]
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local function load_map(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("a")
  f:close()
  local h = tonumber(text:match("height (%d+)"))
  local w = tonumber(text:match("width (%d+)"))
  local body = text:match("\nmap\r?\n(.*)$")
  local rows = {}
  for row in body:gmatch("[^\r\n]+") do rows[#rows + 1] = row end
  local grid = astar.grid(w, h)
  grid:load(rows, { ["."] = 1, G = 1, S = 1, ["@"] = false, O = false, T = false, W = false })
  return grid
end

local function load_scen(path)
  local problems = {}
  for line in io.lines(path) do
    local fields = {}
    for field in line:gmatch("%S+") do fields[#fields + 1] = field end
    if #fields == 9 then
      problems[#problems + 1] = {
        sx = tonumber(fields[5]) + 1, sy = tonumber(fields[6]) + 1,
        gx = tonumber(fields[7]) + 1, gy = tonumber(fields[8]) + 1,
        optimal = tonumber(fields[9]),
      }
    end
  end
  return problems
end

local clock = os.clock
print(string.format("%-16s %8s %12s %10s %10s %10s", "map", "problems", "expansions",
  "median_us", "mean_us", "Mexp/s"))
local bad = 0
for _, map in ipairs(arg) do
  local grid = load_map(map)
  local problems = load_scen(map .. ".scen")
  local times, expansions, total, mismatches, skipped = {}, 0, 0, 0, 0
  for _, p in ipairs(problems) do
    if not grid:is_walkable(p.sx, p.sy) or not grid:is_walkable(p.gx, p.gy) then
      skipped = skipped + 1
    else
      local t0 = clock()
      local path, info = grid:find(p.sx, p.sy, p.gx, p.gy)
      local dt = clock() - t0
      times[#times + 1] = dt
      total = total + dt
      expansions = expansions + info.expansions
      local tol = math.max(1e-4 * p.optimal, 0.005)
      if not path or math.abs(info.cost - p.optimal) > tol then mismatches = mismatches + 1 end
    end
  end
  table.sort(times)
  print(string.format("%-16s %8d %12d %10.1f %10.1f %10.2f   mismatches %d skipped %d",
    map:match("[^/]*$"), #times, expansions, (times[#times // 2 + 1] or 0) * 1e6,
    total / math.max(#times, 1) * 1e6, expansions / total / 1e6, mismatches, skipped))
  bad = bad + mismatches
end
os.exit(bad == 0 and 0 or 1)
