-- 200 units' paths kept fresh: after one gate toggles, every path is asked whether it is still
-- good (grid:check_path) with option since (the version the path was found at) and without
-- (the whole path read). Issue 26's target: 200 flat paths of 500-1,500 cells checked after
-- one gate toggle in <= 2 ms in all, on Paris_0_1024. Prints the median over 12 toggles of the
-- 200 checks' CPU time, both ways, how many paths each toggle made stale, and checks that both
-- ways answer the same index for every path.
--   lua5.4 bench/check_paths.lua [MAP]
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local map = arg[1] or "../shared/data/movingai/Paris_0_1024.map"
local grid = astar.load_movingai(map)
local scen = astar.load_scen(map .. ".scen")
-- A build before issue 26 (no grid:version, no option since): the whole-path check only.
local has_since = grid.version ~= nil

-- 200 paths of 500-1,500 cells, as find returns them flat, each with the version it was found at.
local paths, versions, uses = {}, {}, {}
for _, p in ipairs(scen) do
  local path, info = grid:find(p.sx, p.sy, p.gx, p.gy, { path = "flat" })
  local n = path and #path // 2 or 0
  if n >= 500 and n <= 1500 then
    paths[#paths + 1], versions[#versions + 1] = path, info.version
    for i = 3, #path - 2, 2 do -- not the ends: a gate there would not be one to walk through
      local id = (path[i + 1] - 1) * grid.width + path[i]
      uses[id] = (uses[id] or 0) + 1
    end
  end
  if #paths == 200 then break end
end
assert(#paths == 200, "fewer than 200 paths of 500-1,500 cells on " .. map)

-- The gate: the cell most of the paths cross (so it is on some and near others).
local gate, most = nil, 0
for id, n in pairs(uses) do
  if n > most or (n == most and id < gate) then gate, most = id, n end
end
local gx, gy = (gate - 1) % grid.width + 1, (gate - 1) // grid.width + 1

local function check_all(since)
  local stale, opts = 0, {}
  local t0 = os.clock()
  for i = 1, #paths do
    opts.since = since and versions[i] or nil
    if grid:check_path(paths[i], 1, opts) then stale = stale + 1 end
  end
  return (os.clock() - t0) * 1e3, stale
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local with, without, open_with, stale_counts = {}, {}, {}, {}
for k = 1, 12 do
  grid:set_cost(gx, gy, false)
  local full_ms, full_stale = check_all(false)
  local ms = full_ms
  if has_since then
    local stale
    ms, stale = check_all(true)
    for i = 1, #paths do -- the same answer both ways, path by path
      assert(grid:check_path(paths[i], 1, { since = versions[i] }) == grid:check_path(paths[i]), "path " .. i)
    end
    assert(stale == full_stale)
  end
  with[k], without[k], stale_counts[k] = ms, full_ms, full_stale
  grid:set_cost(gx, gy, 1)
  open_with[k] = has_since and check_all(true) or 0 -- the gate open again: every path good
end

local cells = 0
for i = 1, #paths do cells = cells + #paths[i] // 2 end
print(string.format("%s: 200 flat paths (%d cells in all), gate (%d, %d) on %d of them, toggled 12 times; " ..
  "%d paths stale per closing", map:match("[^/]*$"), cells, gx, gy, most, stale_counts[1]))
if has_since then
  print(string.format("check_path(p, 1, {since = v}) x 200, gate closed: median %.3f ms (worst %.3f)",
    median(with), with[#with]))
  print(string.format("check_path(p, 1, {since = v}) x 200, gate open again: median %.3f ms", median(open_with)))
end
print(string.format("check_path(p) x 200 (the whole path read): median %.3f ms", median(without)))
