-- The scenario runner: loads Moving AI maps and their .scen files, runs every
-- problem with grid:find and checks each cost against the optimal length.
-- Tolerance: 1e-4 relative, widened to half a unit of the last printed digit.
-- Problems whose endpoints are not walkable under the loader's legend are
-- counted as skipped.
--
--   lua5.4 bench/scen.lua ../shared/data/movingai            (every *.map in a folder)
--   lua5.4 bench/scen.lua path/to/a.map [path/to/b.map ...]
local M = {}

-- Runs every problem of one map; returns a summary table.
function M.run(astar, map_path, scen_path)
  local grid = astar.load_movingai(map_path)
  local problems = astar.load_scen(scen_path or map_path .. ".scen")
  local r = { map = map_path:match("[^/]*$"), problems = #problems, checked = 0, skipped = 0,
              mismatches = 0, expansions = 0, worst = 0, failures = {} }
  for i, p in ipairs(problems) do
    if p.width ~= grid.width or p.height ~= grid.height then
      error(string.format("%s: problem %d is for a %dx%d map", r.map, i, p.width, p.height))
    end
    if not grid:is_walkable(p.sx, p.sy) or not grid:is_walkable(p.gx, p.gy) then
      r.skipped = r.skipped + 1
    else
      local path, info = grid:find(p.sx, p.sy, p.gx, p.gy)
      local tolerance = math.max(1e-4 * p.optimal, p.precision)
      local err = path and math.abs(info.cost - p.optimal) or math.huge
      r.checked = r.checked + 1
      r.expansions = r.expansions + info.expansions
      if err > tolerance then
        r.mismatches = r.mismatches + 1
        if #r.failures < 5 then
          r.failures[#r.failures + 1] = string.format("problem %d (%d,%d)->(%d,%d): %s, optimal %s",
            i, p.sx, p.sy, p.gx, p.gy, path and string.format("%.6f", info.cost) or info.status, p.optimal)
        end
      elseif err / math.max(p.optimal, 1e-12) > r.worst then
        r.worst = err / math.max(p.optimal, 1e-12)
      end
    end
  end
  return r
end

local function main(args)
  package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
  package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
  local astar = require("astar")
  local maps = {}
  for _, a in ipairs(args) do
    if a:match("%.map$") then
      maps[#maps + 1] = a
    else -- a folder
      local ls = io.popen('ls "' .. a .. '"')
      for name in ls:lines() do
        if name:match("%.map$") then maps[#maps + 1] = a .. "/" .. name end
      end
      ls:close()
    end
  end
  if #maps == 0 then
    io.stderr:write("usage: lua5.4 bench/scen.lua DIR | MAP.map ...\n")
    os.exit(2)
  end
  local total = { problems = 0, checked = 0, skipped = 0, mismatches = 0 }
  print(string.format("%-20s %9s %9s %8s %10s %14s %12s", "map", "problems", "checked", "skipped",
    "mismatches", "expansions", "max_rel_err"))
  for _, map in ipairs(maps) do
    local r = M.run(astar, map)
    print(string.format("%-20s %9d %9d %8d %10d %14d %12.2e", r.map, r.problems, r.checked, r.skipped,
      r.mismatches, r.expansions, r.worst))
    for _, f in ipairs(r.failures) do print("  MISMATCH " .. f) end
    for k in pairs(total) do total[k] = total[k] + r[k] end
  end
  print(string.format("total: %d maps, %d problems, %d checked, %d skipped, %d mismatches",
    #maps, total.problems, total.checked, total.skipped, total.mismatches))
  os.exit(total.mismatches == 0 and 0 or 1)
end

if arg and arg[0] and arg[0]:match("scen%.lua$") and select("#", ...) > 0 then
  main({ ... })
end
return M
