-- What search workspaces cost in memory and on first use (issue 27). Resident memory is
-- VmRSS from /proc/self/status (Linux), so this bench says "n/a" elsewhere.
--   lua5.4 bench/workspace_memory.lua [MAP] [rounds]
-- 1. eight jobs of a few hundred expanded cells each, all holding a workspace at once, on the
--    map (goals within 100 cells): RSS beyond the grid and its tables (grid:prepare({workspaces =
--    0}) made those);
--    then 300 more such rounds all over the map, one after the other (pages a workspace
--    touched stay with it until it is freed or its stamps wrap);
-- 2. `rounds` rounds (default 30) of 200 units retargeting: every unit's job is closed (a
--    cancel) and a new one made, toward a random goal; 16 of them run at once, 3 steps of
--    2,000 expansions each a round (long searches, as units crossing the map);
-- 3. the first use of a workspace on a fresh 1024x1024 grid and on the map: the first short
--    find (which makes the workspace) and grid:prepare({workspaces = 1}), each against a second
--    find.
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")
local unpack = table.unpack or unpack -- luacheck: ignore 143
local core = require("astar.core")

local map = arg[1] or "../shared/data/movingai/Paris_0_1024.map"
local rounds = tonumber(arg[2] or "30")

local function rss_mib()
  local f = io.open("/proc/self/status")
  if not f then return nil end
  local kb = f:read("a"):match("VmRSS:%s*(%d+)")
  f:close()
  return kb and tonumber(kb) / 1024
end
local function mib(x) return x and string.format("%.1f MiB", x) or "n/a" end
local function close(obj) getmetatable(obj).__gc(obj) end
local function full_gc() collectgarbage("collect"); collectgarbage("collect") end

local grid = astar.load_movingai(map)
local w, h = grid:size()
grid:prepare({ workspaces = 0 }) -- its tables, no workspace
full_gc()
local base = rss_mib()
print(string.format("%s: %dx%d, RSS with the grid and its tables %s", map:match("[^/]+$"), w, h, mib(base)))

-- Walkable cells, and a goal about `r` cells from a start, both walkable.
local rng = 12345
local function rand(n) rng = (rng * 1103515245 + 12345) % 2147483648; return rng % n + 1 end
local function walkable_point()
  while true do
    local x, y = rand(w), rand(h)
    if grid:is_walkable(x, y) then return x, y end
  end
end
local function near_pair(r)
  while true do
    local sx, sy = walkable_point()
    local gx, gy = sx + rand(2 * r + 1) - r - 1, sy + rand(2 * r + 1) - r - 1
    if gx >= 1 and gy >= 1 and gx <= w and gy <= h and grid:is_walkable(gx, gy) then return sx, sy, gx, gy end
  end
end

-- 1. Eight short searches at once.
local function eight_short(opts)
  local jobs, expanded = {}, 0
  for i = 1, 8 do
    local sx, sy, gx, gy = near_pair(100)
    jobs[i] = grid:search(sx, sy, gx, gy, opts)
    local _, n = jobs[i]:step(1) -- takes its workspace, holds it until done
    expanded = expanded + n
  end
  local held = rss_mib()
  for i = 1, 8 do
    local _, n = jobs[i]:step()
    expanded = expanded + n
    close(jobs[i])
  end
  return held, expanded
end
-- A* (jump = false, as with influence or claims) reads the dead-end view: its pages copied as
-- the search reads them (issue 27; the whole view was a byte a cell per workspace).
local astar_held, astar_expanded = eight_short({ jump = false })
print(string.format("8 short A* jobs at once (%d expansions each on average): RSS beyond the grid %s once " ..
  "each holds its workspace, %s once all are done", math.floor(astar_expanded / 8), mib(astar_held - base),
  mib(rss_mib() - base)))
local held, expanded = eight_short()
-- Once done, each job's workspace is idle in the pool with the pages its search touched: what the
-- eight searches took at once.
print(string.format("then 8 short jobs at once, JPS where it applies (%d expansions each on average): " ..
  "RSS beyond the grid %s once each holds its workspace, %s once all are done", math.floor(expanded / 8),
  mib(held - base), mib(rss_mib() - base)))
local t0 = os.clock()
local total = 0
for _ = 1, 300 do
  local _, n = eight_short()
  total = total + n
end
print(string.format("300 more rounds of 8 (%d expansions, %.1f us each search): RSS %s beyond the grid",
  total, (os.clock() - t0) * 1e6 / 2400, mib(rss_mib() - base)))
local function pool() return core.workspaces and core.workspaces(grid) or -1 end
print(string.format("the grid's pool: %d workspaces", pool()))

-- 2. Retargeting.
local units, jobs = 200, {}
local start = rss_mib()
local times = {}
for round = 1, rounds do
  local r0 = os.clock()
  for u = 1, units do
    if jobs[u] then close(jobs[u]) end -- cancel: gives its workspace back at once
    local sx, sy = walkable_point()
    local gx, gy = walkable_point()
    jobs[u] = grid:search(sx, sy, gx, gy)
  end
  for _ = 1, 3 do
    for u = 1, 16 do jobs[u]:step(2000) end
  end
  times[#times + 1] = (os.clock() - r0) * 1e3
  if round == 1 or round % 10 == 0 then
    print(string.format("round %d: RSS %s (start %s)%s", round, mib(rss_mib()), mib(start),
      string.format(", pool %d", pool())))
  end
end
for u = 1, units do close(jobs[u]) end
full_gc()
table.sort(times)
print(string.format("%d rounds of %d units: RSS %s after (%s over the start), median round %.1f ms",
  rounds, units, mib(rss_mib()), mib(rss_mib() - start), times[math.floor((#times + 1) / 2)]))

-- 3. First use of a workspace on 1024x1024: an empty grid, and the map (whose queries also copy
-- the dead-end areas' bits into the workspace, a byte a cell, at its first use).
local sx, sy, gx, gy = near_pair(10)
local function first_use(make, prepare, ax, ay, bx, by)
  local g = make()
  g:prepare({ workspaces = 0 })
  full_gc()
  local r0 = rss_mib()
  local t = os.clock()
  if prepare then g:prepare({ workspaces = 1 }) end
  local p = os.clock() - t
  t = os.clock()
  g:find(ax, ay, bx, by)
  local first = os.clock() - t
  t = os.clock()
  g:find(ax, ay, bx, by)
  local second = os.clock() - t
  local r1 = rss_mib()
  close(g)
  return p, first, second, r1 and r0 and r1 - r0
end
local cases = {
  { "1024x1024 empty", function() return astar.grid(1024, 1024) end, { 500, 500, 510, 505 } },
  { map:match("[^/]+$"), function() return (astar.load_movingai(map)) end, { sx, sy, gx, gy } },
}
for _, case in ipairs(cases) do
  for _, prepare in ipairs({ false, true }) do
    local best
    for _ = 1, 5 do
      local p, first, second, grew = first_use(case[2], prepare, unpack(case[3]))
      if not best or p + first < best[1] + best[2] then best = { p, first, second, grew } end
    end
    print(string.format("%s, %s: %.3f ms prepare, first find %.3f ms, second %.3f ms; RSS +%s (best of 5)",
      case[1], prepare and "prepare({workspaces = 1})" or "no prepare", best[1] * 1e3, best[2] * 1e3,
      best[3] * 1e3, mib(best[4])))
  end
end
