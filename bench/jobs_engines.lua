-- Every engine as a job (issue 27): the worst single step of grid:search (A*, JPS+, dead ends,
-- the two-tier search), grid:search_nearest and grid:field_job (and a field kept sparse just under
-- the dense threshold: its listing step), stepped in slices of n units
-- on Moving AI scenario queries, against grid:find's time for the same query at once. Checks
-- every job's cost against find's. Prints, per engine: queries, slices, the median and worst
-- step (ms), the worst step's units, and the whole query's median time as a job and as a find.
--   lua5.4 bench/jobs_engines.lua [MAP] [n] [queries]     (default Paris_0_1024, 1000, 100)
-- The grid's lazy tables (JPS+, dead ends, islands, hierarchy) are made first (grid:prepare),
-- so that no step pays a first use; "first use" lines say what they cost. NO_GC=1 stops Lua's
-- collector: the steps of several ms with few units are its steps (this script keeps every
-- answer's tables), not the library's.
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local map = arg[1] or "/work/shared/data/movingai/Paris_0_1024.map"
local n = tonumber(arg[2] or "1000")
local count = tonumber(arg[3] or "100")
local grid = astar.load_movingai(map)
local scen = astar.load_scen(map .. ".scen")
local clock = os.clock
if os.getenv("NO_GC") then collectgarbage("stop") end

-- Queries spread over the scenario file (its buckets run from short to long).
local queries = {}
for i = 1, #scen, math.max(1, #scen // count) do
  local p = scen[i]
  if #queries < count and grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) then
    queries[#queries + 1] = p
  end
end

local t0 = clock()
grid:prepare({ workspaces = 2 })
local t1 = clock()
grid:prepare({ hierarchy = true })
local t2 = clock()
print(string.format("%s: %d queries, slices of %d units; first use: prepare %.1f ms, hierarchy %.1f ms",
  map:match("[^/]+$"), #queries, n, (t1 - t0) * 1e3, (t2 - t1) * 1e3))

local function median(t)
  local c = {}
  for i, v in ipairs(t) do c[i] = v end
  table.sort(c)
  return c[(#c + 1) // 2] or 0
end

-- Steps job in slices of n; the step times (ms) and units appended to steps, units, and the
-- last step's (which makes the answer's tables) to last; the total.
local last = {}
local function drive(job, steps, units)
  local total = 0
  while true do
    local s0 = clock()
    local status, used = job:step(n)
    local ms = (clock() - s0) * 1e3
    steps[#steps + 1], units[#units + 1] = ms, used
    total = total + ms
    if status ~= "running" then
      last[#last + 1] = ms
      return total
    end
  end
end

local function p99(t)
  local c = {}
  for i, v in ipairs(t) do c[i] = v end
  table.sort(c)
  return c[math.max(1, math.ceil(#c * 0.99))] or 0
end

local wrong = 0
local function report(name, make, find)
  local steps, units, whole, at_once = {}, {}, {}, {}
  last = {}
  for i, p in ipairs(queries) do
    local f0 = clock()
    local _, finfo = find(p, i)
    at_once[#at_once + 1] = (clock() - f0) * 1e3
    local before = #steps
    whole[#whole + 1] = drive(make(p, i), steps, units)
    local job_info = select(2, queries[i].job:result())
    if (finfo.cost or -1) ~= (job_info.cost or -1) and finfo.status ~= job_info.status then wrong = wrong + 1 end
    if finfo.status == "found" and finfo.cost ~= job_info.cost then wrong = wrong + 1 end
    assert(#steps > before)
  end
  local worst, worst_units = 0, 0
  for i, ms in ipairs(steps) do
    if ms > worst then worst, worst_units = ms, units[i] end
  end
  print(string.format("  %-16s %4d queries %6d steps: step median %.3f ms, p99 %.3f ms, worst %.3f ms " ..
    "(%d units); last steps (the answer's tables) median %.3f, worst %.3f ms; whole: job %.2f ms, " ..
    "find %.2f ms (medians)", name, #queries, #steps, median(steps), p99(steps), worst, worst_units,
    median(last), p99(last), median(whole), median(at_once)))
end

-- A job made for query p, kept on it for the check.
local function job_of(fn)
  return function(p, i)
    local job = fn(p, i)
    queries[i].job = job
    return job
  end
end

local ENGINES = {
  { "A*", { jump = false } },
  { "JPS+", {} },
  { "dead ends (A*)", { jump = false, dead_ends = true } },
  { "two-tier", { hierarchical = true } },
}
for _, e in ipairs(ENGINES) do
  local opts = e[2]
  report(e[1], job_of(function(p) return grid:search(p.sx, p.sy, p.gx, p.gy, opts) end),
    function(p) return grid:find(p.sx, p.sy, p.gx, p.gy, opts) end)
end

-- search_nearest: the query's goal and three more of the scenario's goals as targets.
local function targets_of(i)
  local t = { { x = queries[i].gx, y = queries[i].gy } }
  for k = 1, 3 do
    local q = queries[(i + 7 * k - 1) % #queries + 1]
    t[#t + 1] = { x = q.gx, y = q.gy }
  end
  return t
end
report("search_nearest", job_of(function(p, i) return grid:search_nearest(p.sx, p.sy, targets_of(i)) end),
  function(p, i) return grid:find_nearest(p.sx, p.sy, targets_of(i)) end)

-- Fields: a handful (each covers the map).
local fields, saved = {}, queries
for i = 1, math.min(5, #queries) do fields[i] = queries[i * (#queries // 5)] or queries[i] end
queries = fields
local field_steps, field_units, field_whole, field_once = {}, {}, {}, {}
for _, p in ipairs(fields) do
  local f0 = clock()
  local _, finfo = grid:distance_field({ { x = p.gx, y = p.gy } })
  field_once[#field_once + 1] = (clock() - f0) * 1e3
  local m0 = clock()
  local job = grid:field_job({ { x = p.gx, y = p.gy } })
  local made = (clock() - m0) * 1e3
  field_whole[#field_whole + 1] = drive(job, field_steps, field_units) + made
  field_steps[#field_steps + 1] = made -- making it (the field's memory, written when it ends)
  field_units[#field_units + 1] = 0
  local _, jinfo = job:result()
  if jinfo.expansions ~= finfo.expansions or jinfo.reached ~= finfo.reached then wrong = wrong + 1 end
end
local worst, worst_units = 0, 0
for i, ms in ipairs(field_steps) do
  if ms > worst then worst, worst_units = ms, field_units[i] end
end
print(string.format("  %-16s %4d fields  %6d steps: step median %.3f ms, p99 %.3f ms, worst %.3f ms " ..
  "(%d units); whole: job %.2f ms, distance_field %.2f ms (medians)", "field_job", #fields, #field_steps,
  median(field_steps), p99(field_steps), worst, worst_units, median(field_whole), median(field_once)))
-- A field kept sparse (field.c: fewer expansions than 1 in 64 of the map's cells) is listed in one
-- step after its search: its worst case, a max_cost that keeps it just under that threshold.
do
  local goal = { { x = fields[1].gx, y = fields[1].gy } }
  local w, h = grid:size()
  local lo, hi = 0, 1e6
  for _ = 1, 40 do
    local mid = (lo + hi) / 2
    local _, info = grid:distance_field(goal, { max_cost = mid })
    if info.expansions * 64 < w * h then lo = mid else hi = mid end
  end
  local _, finfo = grid:distance_field(goal, { max_cost = lo })
  local job = grid:field_job(goal, { max_cost = lo })
  local steps, units = {}, {}
  drive(job, steps, units)
  local _, jinfo = job:result()
  if jinfo.expansions ~= finfo.expansions or jinfo.reached ~= finfo.reached then wrong = wrong + 1 end
  local top, top_units = 0, 0
  for i, ms in ipairs(steps) do
    if ms > top then top, top_units = ms, units[i] end
  end
  print(string.format("  %-16s max_cost %.1f: %d expansions, %d cells kept, %d steps: worst %.3f ms (%d units), " ..
    "the listing step %.3f ms (%d units)", "field_job sparse", lo, jinfo.expansions, jinfo.reached, #steps, top,
    top_units, steps[#steps], units[#units]))
end
queries = saved
print(wrong == 0 and "every job answered what its call answers" or (wrong .. " jobs answered otherwise"))
os.exit(wrong == 0 and 0 or 1)
