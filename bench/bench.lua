-- Lua benchmark over Moving AI maps: grid:find for every scenario (path tables
-- included), checked in the same run, side by side with the C benchmark on the
-- same map, and the ratios the performance targets are stated in.
--
--   lua5.4 bench/bench.lua ../shared/data/movingai            (every *.map in a folder)
--   lua5.4 bench/bench.lua [--no-c] [--forms] a.map [b.map ...]
--   ASTAR_BENCH_EVERY=k ...    every k-th scenario of each map only (bench_c reads it too)
-- Runs on Lua 5.1-5.4 and LuaJIT.
--
-- Workloads (each query checked):
--   plain      terrain only, A* (jump = false)      cost == optimum
--   penalties  one influence layer + claims of 8 units (as bench_c)   cost >= optimum
--   node_cost  a Lua node_cost (a table lookup, 0 everywhere): one call per node reached
--   edge_cost  a Lua edge_cost returning 0: one call per step considered
--   dead_ends  plain with dead ends skipped (the default; issue 18)    cost == optimum
-- The others set dead_ends = false, as bench_c's workloads do, so that Lua and C run the same loop.
-- Per map it also runs build/bench_c (plain, penalties) unless --no-c is given, and
-- passes its figure lines on. (The yardstick, refastar, is bench_c's own workload.)
-- --forms runs instead the path forms of grid:find (issue 17), each under A* (jump = false,
-- "astar") and by default (jump point search where it applies, "jps"), query by query:
--   points     the default path, a table {x=, y=} per cell
--   flat       path = "flat": { x1, y1, x2, y2, ... }
--   reuse      path = "flat" into one table, info into one table, one options table
-- beside bench_c's workload jps (its rows astar and jps: the same queries in C, timed in CPU
-- time as os.clock times Lua), with the ratios "lua_over_c_<form>_<engine>".
-- Prints a table, then "figure lua <workload> <map> <name> <value>",
-- "figure c ..." and "figure ratio <name> <map> <value>" lines, the last with
-- map "all" for the geometric mean over the maps (and C's overall M exp/s).
-- Exit status 1 on any mismatch.
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
local build = os.getenv("ASTAR_BUILD") or "./build"
package.cpath = build .. "/?.so;" .. package.cpath
local astar = require("astar")

local clock = os.clock

-- Every k-th problem of a scenario ($ASTAR_BENCH_EVERY, as bench_c reads it): the same ones.
local EVERY = math.max(1, math.floor(tonumber(os.getenv("ASTAR_BENCH_EVERY") or "1") or 1))
local function sample(problems)
  if EVERY == 1 then return problems end
  local out = {}
  for i = 1, #problems, EVERY do out[#out + 1] = problems[i] end
  return out
end

local function mean(times)
  local sum = 0
  for _, t in ipairs(times) do sum = sum + t end
  return #times > 0 and sum / #times or 0
end

local function median(times)
  local sorted = {}
  for i = 1, #times do sorted[i] = times[i] end -- not unpack: LuaJIT stops at some thousands
  table.sort(sorted)
  return sorted[math.floor(#sorted / 2) + 1] or 0
end

-- The same influence pattern and claims as bench_c's "penalties" workload.
local function penalty_options(grid, problems)
  local w, h = grid.width, grid.height
  local danger = astar.influence(w, h)
  for y = 0, h - 1 do
    for x = 0, w - 1 do
      if (math.floor(x / 8) + math.floor(y / 8)) % 4 == 0 then danger:set(x + 1, y + 1, 0.5 + (x * 7 + y * 13) % 4 * 0.5) end
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
  return { influence = danger, claims = claims, dead_ends = false }
end

local function workloads(grid, problems)
  local zero = {}
  for i = 1, grid.width * grid.height do zero[i] = 0 end
  local w = grid.width
  local exact = function(info, p) return math.abs(info.cost - p.optimal) <= math.max(1e-4 * p.optimal, p.precision) end
  return {
    { name = "plain", opts = { jump = false, dead_ends = false }, check = exact }, -- A*, as bench_c's plain
    { name = "penalties", opts = penalty_options(grid, problems),
      check = function(info, p) return info.cost >= p.optimal - math.max(1e-4 * p.optimal, p.precision) end },
    { name = "node_cost", opts = { node_cost = function(x, y) return zero[(y - 1) * w + x] end, dead_ends = false },
      check = exact },
    { name = "edge_cost", opts = { edge_cost = function() return 0 end, dead_ends = false }, check = exact },
    { name = "dead_ends", opts = { jump = false }, check = exact },
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
-- cpu: in CPU time, as os.clock times Lua here (bench_c's default is the wall clock).
local function c_figures(map, list, cpu)
  local fig = { lines = {} }
  local cmd = string.format('%s"%s/bench_c" --workloads %s "%s"', cpu and "ASTAR_BENCH_CLOCK=cpu " or "", build,
    list or "plain,penalties", map)
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

local FORMS = { "points", "flat", "reuse" }
local ENGINES = { { name = "astar", jump = false }, { name = "jps", jump = nil } }

-- The path forms under one engine, each problem asked in the three forms in turn (so that they
-- share the machine's state; the first of them, with colder caches, in rotation), each answer
-- checked: its cost the optimum, its length the path's.
local function run_forms(grid, problems, jump)
  local into, info = {}, {}
  local opts = {
    points = { jump = jump, dead_ends = false },
    flat = { jump = jump, path = "flat", dead_ends = false },
    reuse = { jump = jump, path = "flat", into = into, info = info, dead_ends = false },
  }
  local r = {}
  for _, f in ipairs(FORMS) do r[f] = { times = {}, expansions = 0, wrong = 0 } end
  for n, p in ipairs(problems) do
    if grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) then
      for k = 1, #FORMS do
        local f = FORMS[(n + k) % #FORMS + 1]
        local rf = r[f]
        local t0 = clock()
        local path, i = grid:find(p.sx, p.sy, p.gx, p.gy, opts[f])
        rf.times[#rf.times + 1] = clock() - t0
        rf.expansions = rf.expansions + i.expansions
        local per = f == "points" and 1 or 2
        if not path or #path ~= per * i.length or math.abs(i.cost - p.optimal) > math.max(1e-4 * p.optimal, p.precision)
            or (f == "reuse" and (path ~= into or i ~= info)) then
          rf.wrong = rf.wrong + 1
        end
      end
    end
  end
  for _, f in ipairs(FORMS) do r[f].mean, r[f].median = mean(r[f].times), median(r[f].times) end
  return r
end

-- Per-map ratios and their geometric mean over the maps, with a figure line for each into
-- `figures`: add(ratios, map[, label]) returns the map's "name value" parts (label shortens the
-- names), means(title, always) prints the means under title (always, or when there are some).
local function ratio_means(figures)
  local sums, order = {}, {} -- ratio name -> { sum of logs, count }, in first-seen order
  local means = {}
  function means.add(ratios, base, label)
    local line = {}
    for _, kv in ipairs(ratios) do
      line[#line + 1] = string.format("%s %.2f", label and label(kv[1]) or kv[1], kv[2])
      figures[#figures + 1] = string.format("figure ratio %s %s %.3f", kv[1], base, kv[2])
      if not sums[kv[1]] then
        sums[kv[1]] = { 0, 0 }
        order[#order + 1] = kv[1]
      end
      sums[kv[1]][1] = sums[kv[1]][1] + math.log(kv[2])
      sums[kv[1]][2] = sums[kv[1]][2] + 1
    end
    return line
  end
  function means.print(title, always)
    if always or #order > 0 then print(title) end
    for _, name in ipairs(order) do
      local g = math.exp(sums[name][1] / sums[name][2])
      print(string.format("  %-40s %.2f", name, g))
      figures[#figures + 1] = string.format("figure ratio %s all %.3f", name, g)
    end
  end
  return means
end

local function main_forms(maps, with_c)
  local figures, bad = {}, 0
  local means = ratio_means(figures)
  print(string.format("%-14s %-20s %8s %12s %10s %10s %6s", "form", "map", "problems", "expansions", "median_us",
    "mean_us", "wrong"))
  for _, map in ipairs(maps) do
    local base = map:match("[^/]*$")
    local grid = astar.load_movingai(map)
    local problems = sample(astar.load_scen(map .. ".scen"))
    local ratios = {}
    -- C in CPU time (os.clock's), before and after Lua: the lower mean of each engine (a shared
    -- machine slows one run or the other now and then, never speeds one up).
    local c = with_c and c_figures(map, "jps", true) or nil
    local function failed(fig) return not fig or fig.failed or not fig.astar or not fig.jps end
    local runs = {}
    for _, engine in ipairs(ENGINES) do runs[engine.name] = run_forms(grid, problems, engine.jump) end
    local c2 = with_c and c_figures(map, "jps", true) or nil
    if with_c and (failed(c) or failed(c2)) then
      print("  bench_c failed on " .. base)
      bad = bad + 1
      c = nil
    elseif c then
      for _, e in ipairs(ENGINES) do
        if c2[e.name].mean_us < c[e.name].mean_us then c[e.name] = c2[e.name] end
      end
    end
    for _, engine in ipairs(ENGINES) do
      local r = runs[engine.name]
      for _, f in ipairs(FORMS) do
        local rf = r[f]
        print(string.format("%-14s %-20s %8d %12d %10.1f %10.1f %6d", f .. " " .. engine.name, base, #rf.times,
          rf.expansions, rf.median * 1e6, rf.mean * 1e6, rf.wrong))
        figures[#figures + 1] = string.format("figure lua %s_%s %s mean_us %.3f", f, engine.name, base, rf.mean * 1e6)
        figures[#figures + 1] = string.format("figure lua %s_%s %s mismatches %d", f, engine.name, base, rf.wrong)
        bad = bad + rf.wrong
        if c then ratios[#ratios + 1] = { "lua_over_c_" .. f .. "_" .. engine.name, rf.mean * 1e6 / c[engine.name].mean_us } end
      end
      if c then
        local fc = c[engine.name]
        print(string.format("%-14s %-20s %8d %12d %10.1f %10.1f %6d", "c " .. engine.name, base, fc.problems,
          fc.expansions, fc.median_us, fc.mean_us, fc.mismatches))
        bad = bad + fc.mismatches
      end
    end
    if c then for _, l in ipairs(c.lines) do figures[#figures + 1] = l end end
    local line = means.add(ratios, base, function(name) return (name:gsub("^lua_over_c_", "")) end)
    if #line > 0 then print("  Lua / C (mean time per query): " .. table.concat(line, ", ")) end
  end
  local jit = rawget(_G, "jit")
  means.print("all maps (geometric mean of the per-map ratios), " .. (jit and jit.version or _VERSION) .. ":")
  for _, f in ipairs(figures) do print(f) end
  os.exit(bad == 0 and 0 or 1)
end

local function main(args)
  local maps, with_c, forms = {}, true, false
  for _, a in ipairs(args) do
    if a == "--no-c" then
      with_c = false
    elseif a == "--forms" then
      forms = true
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
    io.stderr:write("usage: lua5.4 bench/bench.lua [--no-c] [--forms] DIR | MAP.map ...\n")
    os.exit(2)
  end
  if forms then return main_forms(maps, with_c) end
  local figures, bad = {}, 0
  local function figure(line) figures[#figures + 1] = line end
  local means = ratio_means(figures)
  local c_total = { plain = { 0, 0 } } -- expansions, seconds
  print(string.format("%-10s %-20s %8s %12s %10s %10s %8s %6s", "workload", "map", "problems",
    "expansions", "median_us", "mean_us", "Mexp/s", "wrong"))
  for _, map in ipairs(maps) do
    local base = map:match("[^/]*$")
    local grid = astar.load_movingai(map)
    local problems = sample(astar.load_scen(map .. ".scen"))
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
      { "lua_dead_ends_over_plain", results.dead_ends.mean / plain },
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
    local line = means.add(ratios, base)
    print("  ratios (mean time per query): " .. table.concat(line, ", "))
  end
  means.print("all maps (geometric mean of the per-map ratios):", true)
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
