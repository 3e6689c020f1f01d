-- Issue 27's frame benchmark: 200 units on the scheduler (budget_us = 1500, concurrent 8)
-- walking to goals that move every 3-5 s of game time (the request re-aimed: sched:retarget,
-- or cancel + request for a scheduler without it), a danger layer decayed and re-stamped every
-- frame (40 moving threats), claims (each unit claims its path and advances along it, one cell
-- a frame), 60 frames a second. Per map and scheduler: the tick's CPU time per frame (median,
-- p99, max), paths delivered per second of game time, CPU ms of ticks per delivered path, the
-- frames from request to path (median), and the layer's update time per frame (median). The
-- grid is prepared first (grid:prepare, `concurrent` workspaces), as a loading screen would.
--   lua5.4 bench/crowd.lua [--old FILE] [--frames N] [--units N] [--budget N] [--concurrent N] [--flat] [MAP...]
-- --flat: requests ask for flat paths (path = "flat"), one table a path instead of a table a cell:
-- the collector's steps in the ticks are what took the max over 4 ms (issue 27, performance).
-- --old FILE: also runs the scheduler module in FILE (e.g. `git show main:lua/astar/scheduler.lua
-- > /tmp/old.lua`), in the same run, on the same worlds. Maps default to Paris_0_1024, brc202d
-- and lak303d from ../shared/data/movingai/ (or /work/shared/data/movingai/).
-- Runs on Lua 5.1-5.4 and LuaJIT.
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local FRAMES, UNITS, BUDGET_US, CONCURRENT, THREATS = 600, 200, 1500, 8, 40
local HIERARCHICAL -- --hierarchical: requests run the two-tier search (near-optimal, not exact)
local NO_PREPARE -- --no-prepare: no loading screen (the first ticks make tables and workspaces)
local LANDMARKS -- landmarks built on the loading screen (--landmarks K), none by default
local FLAT -- --flat: paths as flat arrays (path = "flat"): one table a path instead of one a cell
local BUDGET -- expansions a tick: none by default (budget_us alone; the old scheduler's default 5000)
local old_file, maps = nil, {}
local i = 1
while arg[i] do
  if arg[i] == "--old" then old_file, i = arg[i + 1], i + 2
  elseif arg[i] == "--frames" then FRAMES, i = tonumber(arg[i + 1]), i + 2
  elseif arg[i] == "--units" then UNITS, i = tonumber(arg[i + 1]), i + 2
  elseif arg[i] == "--budget" then BUDGET, i = tonumber(arg[i + 1]), i + 2
  elseif arg[i] == "--concurrent" then CONCURRENT, i = tonumber(arg[i + 1]), i + 2
  elseif arg[i] == "--budget-us" then BUDGET_US, i = tonumber(arg[i + 1]), i + 2 -- 0: no time cap
  elseif arg[i] == "--no-prepare" then NO_PREPARE, i = true, i + 1
  elseif arg[i] == "--landmarks" then LANDMARKS, i = tonumber(arg[i + 1]), i + 2
  elseif arg[i] == "--hierarchical" then HIERARCHICAL, i = true, i + 1
  elseif arg[i] == "--flat" then FLAT, i = true, i + 1
  else maps[#maps + 1], i = arg[i], i + 1 end
end
if #maps == 0 then
  for _, dir in ipairs({ "../shared/data/movingai/", "/work/shared/data/movingai/" }) do
    local f = io.open(dir .. "brc202d.map")
    if f then
      f:close()
      maps = { dir .. "Paris_0_1024.map", dir .. "brc202d.map", dir .. "lak303d.map" }
      break
    end
  end
end
assert(#maps > 0, "no maps: give their paths")

-- CROWD_GC=generational (Lua 5.4) or stop: the collector's part in the max (a check, not a figure).
local gc_mode = os.getenv("CROWD_GC")
if gc_mode then collectgarbage(gc_mode) end

local variants = { { name = "new", make = astar.scheduler } }
if old_file then
  local old = assert(loadfile(old_file))()
  table.insert(variants, 1, { name = "old", make = old.scheduler })
end

-- Resident memory in MiB (Linux), to stop a run that leaks (today's cancel left every
-- workspace to the collector: 3.5 GiB on Paris).
local function rss_mib()
  local f = io.open("/proc/self/statm")
  if not f then return 0 end
  local _, resident = f:read("*n", "*n")
  f:close()
  return (resident or 0) * 4096 / 1048576
end
local RSS_STOP = 3000

-- Park-Miller: its products stay below 2^53, so every Lua (doubles on 5.1 and LuaJIT) draws the
-- same worlds.
local function rng(seed)
  local state = seed
  return function(lo, hi)
    state = (state * 48271) % 2147483647
    return lo + state % (hi - lo + 1)
  end
end

local function quantile(sorted, q) return sorted[math.max(1, math.ceil(q * #sorted))] or 0 end

local function run(map, variant)
  local grid = astar.load_movingai(map)
  local w, h = grid.width, grid.height
  -- the loading screen: every lazy table and the scheduler's workspaces (a game pays them there;
  -- without it the first ticks make them, 9 ms a workspace on Paris, which is a p99 of its own)
  local p0 = os.clock()
  if not NO_PREPARE then grid:prepare({ workspaces = CONCURRENT, hierarchy = HIERARCHICAL }) end
  if LANDMARKS then grid:landmarks(LANDMARKS, { threads = 2 }) end
  local prepare_ms = (os.clock() - p0) * 1e3
  local rand = rng(2718)
  local function walkable_cell()
    while true do
      local x, y = rand(1, w), rand(1, h)
      if grid:is_walkable(x, y) then return x, y end
    end
  end
  local danger, claims = astar.influence(w, h), astar.claims(grid)
  local threats = {}
  for t = 1, THREATS do
    local x, y = walkable_cell()
    threats[t] = { x = x, y = y }
  end
  local sched = variant.make({ budget = BUDGET, budget_us = BUDGET_US > 0 and BUDGET_US or nil, concurrent = CONCURRENT })
  local units, delivered, waits, frame = {}, 0, {}, 0
  local useful = 0
  local function goal_for(u)
    for _ = 1, 50 do
      local gx, gy = walkable_cell()
      if grid:reachable(u.x, u.y, gx, gy) and (gx ~= u.x or gy ~= u.y) then return gx, gy end
    end
    return u.x, u.y
  end
  local function ask(u)
    u.gx, u.gy = goal_for(u)
    u.path, u.at, u.asked = nil, nil, frame
    claims:release(u.id)
    if u.ticket and sched.retarget and sched:retarget(u.ticket, u.gx, u.gy, u.x, u.y) then return end
    if u.ticket then sched:cancel(u.ticket) end
    u.ticket = sched:request(grid, u.x, u.y, u.gx, u.gy, u.opts, u.answer)
  end
  for id = 1, UNITS do
    local u = { id = id }
    u.x, u.y = walkable_cell()
    u.opts = { influence = danger, claims = claims, unit = id, hierarchical = HIERARCHICAL,
               path = FLAT and "flat" or nil }
    u.answer = function(path, info)
      u.ticket = nil
      useful = useful + (info and info.expansions or 0)
      delivered = delivered + 1
      waits[#waits + 1] = frame - u.asked
      if path and #path > (FLAT and 2 or 1) then
        u.path, u.at = path, 1
        claims:claim(id, path)
      else
        u.retarget_at = frame + 1 -- no way: another goal next frame
      end
    end
    u.retarget_at = rand(180, 300)
    units[id] = u
    ask(u)
  end
  local ticks, layer, stopped = {}, {}, nil
  local t_all = 0
  for f = 1, FRAMES do
    frame = f
    -- the danger layer: decayed, the threats moved and stamped again
    local l0 = os.clock()
    danger:decay(0.8)
    for _, t in ipairs(threats) do
      local nx, ny = t.x + rand(-1, 1), t.y + rand(-1, 1)
      if nx >= 1 and ny >= 1 and nx <= w and ny <= h and grid:is_walkable(nx, ny) then t.x, t.y = nx, ny end
      danger:stamp(t.x, t.y, 6, 10)
    end
    layer[#layer + 1] = (os.clock() - l0) * 1e3
    -- the units: walk one cell, re-aim when their goal moves or they arrive
    for _, u in ipairs(units) do
      if u.path then
        u.at = u.at + 1
        if FLAT then
          u.x, u.y = u.path[2 * u.at - 1], u.path[2 * u.at]
        else
          local p = u.path[u.at]
          u.x, u.y = p.x, p.y
        end
        claims:advance(u.id, 1)
        if u.at == (FLAT and #u.path / 2 or #u.path) then ask(u) end
      end
      if f >= u.retarget_at then
        u.retarget_at = f + rand(180, 300)
        ask(u)
      end
    end
    local t0 = os.clock()
    sched:tick()
    local ms = (os.clock() - t0) * 1e3
    ticks[#ticks + 1] = ms
    t_all = t_all + ms
    if f % 30 == 0 and rss_mib() > RSS_STOP then
      stopped = f
      break
    end
  end
  local frames = #ticks
  table.sort(ticks)
  table.sort(waits)
  table.sort(layer)
  local rss = rss_mib()
  -- Where the time goes (a scheduler with stats): expansions, the share of them in delivered
  -- paths (the rest: searches cancelled or retargeted), per path, and the tick time of one.
  local st = sched.stats and sched:stats()
  if st and st.expansions > 0 then
    print(string.format("  expansions %d, in delivered paths %d (%.0f%%), per path %.0f, ns per expansion %.0f, steps %d",
      st.expansions, useful, 100 * useful / st.expansions, st.expansions / math.max(1, delivered),
      t_all * 1e6 / st.expansions, st.steps))
  end
  print(string.format("%-16s %-3s tick ms median %6.2f p99 %6.2f max %7.2f | %6.1f paths/s | %7.2f CPU ms/path | " ..
    "wait median %4d frames | layer %5.2f ms | RSS %5.0f MiB | prepare %.0f ms%s",
    map:match("([^/]+)%.map$"), variant.name, quantile(ticks, 0.5), quantile(ticks, 0.99), ticks[#ticks],
    delivered / (frames / 60), delivered > 0 and t_all / delivered or 0 / 0, quantile(waits, 0.5), quantile(layer, 0.5),
    rss, prepare_ms, stopped and string.format(" (stopped at frame %d: RSS over %d MiB)", stopped, RSS_STOP) or ""))
  io.stdout:flush()
  for _, u in ipairs(units) do if u.ticket then sched:cancel(u.ticket) end end
end

print(string.format("%s, %d units, %d frames (%.0f s at 60 fps), budget_us %d, budget %s, concurrent %d",
  _VERSION .. (jit and " (" .. jit.version .. ")" or ""), UNITS, FRAMES, FRAMES / 60, BUDGET_US, tostring(BUDGET),
  CONCURRENT))
for _, map in ipairs(maps) do
  for _, variant in ipairs(variants) do
    run(map, variant)
    collectgarbage()
    collectgarbage()
  end
end
