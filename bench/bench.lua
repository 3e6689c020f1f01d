-- Lua benchmark over Moving AI maps: grid:find for every scenario (path tables
-- included), checked in the same run, side by side with the C benchmark on the
-- same map, and the ratios the performance targets are stated in.
--
--   lua5.4 bench/bench.lua ../shared/data/movingai            (every *.map in a folder)
--   lua5.4 bench/bench.lua [--no-c] a.map [b.map ...]
--
-- Workloads (each query checked):
--   plain      terrain only, A* (jump = false)      cost == optimum
--   penalties  one influence layer + claims of 8 units (as bench_c)   cost >= optimum
--   node_cost  a Lua node_cost (a table lookup, 0 everywhere): one call per node reached
--   edge_cost  a Lua edge_cost returning 0: one call per step considered
-- Per map it also runs build/bench_c (plain, penalties) unless --no-c is given, and
-- passes its figure lines on. (The yardstick, refastar, is bench_c's own workload.)
-- Prints a table, then "figure lua <workload> <map> <name> <value>",
-- "figure c ..." and "figure ratio <name> <map> <value>" lines, the last with
-- map "all" for the geometric mean over the maps (and C's overall M exp/s).
-- Exit status 1 on any mismatch.
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
local build = os.getenv("ASTAR_BUILD") or "./build"
package.cpath = build .. "/?.so;" .. package.cpath
local astar = require("astar")

local clock = os.clock

local function mean(times)
  local sum = 0
  for _, t in ipairs(times) do sum = sum + t end
  return #times > 0 and sum / #times or 0
end

local function median(times)
  local sorted = { table.unpack(times) }
  table.sort(sorted)
  return sorted[#sorted // 2 + 1] or 0
end

-- The same influence pattern and claims as bench_c's "penalties" workload.
local function penalty_options(grid, problems)
  local w, h = grid.width, grid.height
  local danger = astar.influence(w, h)
  for y = 0, h - 1 do
    for x = 0, w - 1 do
      if (x // 8 + y // 8) % 4 == 0 then danger:set(x + 1, y + 1, 0.5 + (x * 7 + y * 13) % 4 * 0.5) end
    end
  end
  local claims = astar.claims(grid)
  local units = 0
  for _, p in ipairs(problems) do
    if units == 8 then break end
    if grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) then
      local path = grid:find(p.sx, p.sy, p.gx, p.gy, { jump = false }) -- as bench_c's claims
      if path then
        units = units + 1
        claims:claim(units, path)
      end
    end
  end
  return { influence = danger, claims = claims }
end

local function workloads(grid, problems)
  local zero = {}
  for i = 1, grid.width * grid.height do zero[i] = 0 end
  local w = grid.width
  local exact = function(info, p) return math.abs(info.cost - p.optimal) <= math.max(1e-4 * p.optimal, p.precision) end
  return {
    { name = "plain", opts = { jump = false }, check = exact }, -- A*, as bench_c's plain
    { name = "penalties", opts = penalty_options(grid, problems),
      check = function(info, p) return info.cost >= p.optimal - math.max(1e-4 * p.optimal, p.precision) end },
    { name = "node_cost", opts = { node_cost = function(x, y) return zero[(y - 1) * w + x] end }, check = exact },
    { name = "edge_cost", opts = { edge_cost = function() return 0 end }, check = exact },
  }
end

local function run(grid, problems, work)
  local r = { times = {}, expansions = 0, wrong = 0 }
  local opts = work.opts
  for _, p in ipairs(problems) do
    if grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) then
      local t0 = clock()
      local path, info = grid:find(p.sx, p.sy, p.gx, p.gy, opts)
      r.times[#r.times + 1] = clock() - t0
      r.expansions = r.expansions + info.expansions
      if not path or not work.check(info, p) then r.wrong = r.wrong + 1 end
    end
  end
  r.mean, r.median = mean(r.times), median(r.times)
  return r
end

-- bench_c's figures for one map: fig[workload][name] = number; fig.lines = its figure lines.
local function c_figures(map)
  local fig = { lines = {} }
  local cmd = string.format('"%s/bench_c" --workloads plain,penalties "%s"', build, map)
  local out = assert(io.popen(cmd))
  for line in out:lines() do
    local workload, map_name, name, value = line:match("^figure c (%S+) (%S+) (%S+) (%S+)$")
    if workload and map_name ~= "all" then
      fig[workload] = fig[workload] or {}
      fig[workload][name] = tonumber(value)
      fig.lines[#fig.lines + 1] = line
    end
  end
  local ok = out:close()
  if not ok then fig.failed = true end
  return fig
end

local function main(args)
  local maps, with_c = {}, true
  for _, a in ipairs(args) do
    if a == "--no-c" then
      with_c = false
    elseif a:match("%.map$") then
      maps[#maps + 1] = a
    else
      local ls = io.popen('ls "' .. a .. '"')
      for name in ls:lines() do
        if name:match("%.map$") then maps[#maps + 1] = a .. "/" .. name end
      end
      ls:close()
    end
  end
  if #maps == 0 then
    io.stderr:write("usage: lua5.4 bench/bench.lua [--no-c] DIR | MAP.map ...\n")
    os.exit(2)
  end
  local figures, bad = {}, 0
  local function figure(line) figures[#figures + 1] = line end
  local log_sums, order = {}, {} -- ratio name -> { sum of logs, count }
  local c_total = { plain = { 0, 0 } } -- expansions, seconds
  print(string.format("%-10s %-20s %8s %12s %10s %10s %8s %6s", "workload", "map", "problems",
    "expansions", "median_us", "mean_us", "Mexp/s", "wrong"))
  for _, map in ipairs(maps) do
    local base = map:match("[^/]*$")
    local grid = astar.load_movingai(map)
    local problems = astar.load_scen(map .. ".scen")
    local results = {}
    for _, work in ipairs(workloads(grid, problems)) do
      local r = run(grid, problems, work)
      results[work.name] = r
      local total = r.mean * #r.times
      print(string.format("%-10s %-20s %8d %12d %10.1f %10.1f %8.2f %6d", work.name, base, #r.times,
        r.expansions, r.median * 1e6, r.mean * 1e6, total > 0 and r.expansions / total / 1e6 or 0, r.wrong))
      for name, v in pairs({ problems = #r.times, expansions = r.expansions, median_us = r.median * 1e6,
                             mean_us = r.mean * 1e6, mismatches = r.wrong,
                             mexp_s = total > 0 and r.expansions / total / 1e6 or 0 }) do
        figure(string.format("figure lua %s %s %s %.3f", work.name, base, name, v))
      end
      bad = bad + r.wrong
    end
    local plain = results.plain.mean
    local ratios = {
      { "lua_penalties_over_plain", results.penalties.mean / plain },
      { "lua_node_cost_over_plain", results.node_cost.mean / plain },
      { "lua_edge_cost_over_plain", results.edge_cost.mean / plain },
    }
    if with_c then
      local c = c_figures(map)
      if c.failed or not c.plain then
        print("  bench_c failed on " .. base)
        bad = bad + 1
      else
        table.insert(ratios, 1, { "lua_over_c_plain", plain * 1e6 / c.plain.mean_us })
        table.insert(ratios, 2, { "c_penalties_over_plain", c.penalties.mean_us / c.plain.mean_us })
        for _, w in ipairs({ "plain", "penalties" }) do
          local f = c[w]
          print(string.format("%-10s %-20s %8d %12d %10.1f %10.1f %8.2f %6d", "c " .. w, base,
            f.problems, f.expansions, f.median_us, f.mean_us, f.mexp_s, f.mismatches))
          bad = bad + f.mismatches
          if c_total[w] then
            c_total[w][1] = c_total[w][1] + f.expansions
            c_total[w][2] = c_total[w][2] + f.mean_us * f.problems * 1e-6
          end
        end
        for _, l in ipairs(c.lines) do figure(l) end
      end
    end
    local line = {}
    for _, kv in ipairs(ratios) do
      line[#line + 1] = string.format("%s %.2f", kv[1], kv[2])
      figure(string.format("figure ratio %s %s %.3f", kv[1], base, kv[2]))
      if not log_sums[kv[1]] then
        log_sums[kv[1]] = { 0, 0 }
        order[#order + 1] = kv[1]
      end
      log_sums[kv[1]][1] = log_sums[kv[1]][1] + math.log(kv[2])
      log_sums[kv[1]][2] = log_sums[kv[1]][2] + 1
    end
    print("  ratios (mean time per query): " .. table.concat(line, ", "))
  end
  print("all maps (geometric mean of the per-map ratios):")
  for _, name in ipairs(order) do
    local g = math.exp(log_sums[name][1] / log_sums[name][2])
    print(string.format("  %-40s %.2f", name, g))
    figure(string.format("figure ratio %s all %.3f", name, g))
  end
  for _, w in ipairs({ "plain" }) do
    local t = c_total[w]
    if t[2] > 0 then
      print(string.format("  C %-9s all maps: %d expansions, %.2f M expansions/s", w, t[1], t[1] / t[2] / 1e6))
      figure(string.format("figure c %s all mexp_s %.3f", w, t[1] / t[2] / 1e6))
    end
  end
  for _, f in ipairs(figures) do print(f) end
  os.exit(bad == 0 and 0 or 1)
end

main({ ... })
