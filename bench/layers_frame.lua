-- Influence layers in a frame (issue 27): what decay and spread of a 1024x1024 layer holding 40
-- stamps cost, what a frame of a game that decays and re-stamps its danger layer costs, and what
-- a query with an influence layer and claims costs per expansion against a plain one (lak303d).
--
--   lua5.4 bench/layers_frame.lua [MAP] [BUILD ...]
--
-- Each BUILD (default ./build) is a directory holding astar/core.so; given several (say the
-- build before a change and after), the rounds alternate between them in one run, each in a
-- child process of its own (two cores in one Lua state would share metatables), and the report
-- gives medians per build and their ratios. CPU time (os.clock), medians of rounds.
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path

local ROUNDS = tonumber(os.getenv("ROUNDS") or "5")

if arg[1] == "--child" then
  package.cpath = arg[2] .. "/?.so;" .. package.cpath
  local astar = require("astar")
  local map = arg[3]
  local clock = os.clock

  local function median(t)
    table.sort(t)
    return t[(#t + 1) // 2]
  end

  -- 40 stamps of radius 8 (17x17 boxes), the same every run.
  local function stamped(side, shift)
    local inf = astar.influence(side, side)
    for i = 1, 40 do
      inf:stamp(20 + (i * 97 + shift) % (side - 40), 20 + (i * 61 + 3 * shift) % (side - 40), 8, 10)
    end
    return inf
  end

  local out = {}
  -- decay of a layer holding 40 stamps (decay keeps what it holds: the same layer each call)
  local inf = stamped(1024, 0)
  local t = {}
  for _ = 1, 100 do
    local t0 = clock()
    inf:decay(0.95)
    t[#t + 1] = (clock() - t0) * 1e3
  end
  out.decay_ms = median(t)
  -- one spread step of a freshly stamped layer (spread widens what it holds by a ring a step)
  t = {}
  for _ = 1, 30 do
    inf:fill(0)
    for i = 1, 40 do inf:stamp(20 + (i * 97) % 984, 20 + (i * 61) % 984, 8, 10) end
    local t0 = clock()
    inf:spread(0.2, 0.5)
    t[#t + 1] = (clock() - t0) * 1e3
  end
  out.spread_ms = median(t)
  -- a game's frame: decay, then 40 units stamped where they stand now (they walk a cell a frame);
  -- decayed values reach 0 only by underflow, so what the layer holds grows with the trail.
  inf:fill(0)
  local frames, last = {}, {}
  for f = 1, 300 do
    local t0 = clock()
    inf:decay(0.9)
    for i = 1, 40 do inf:stamp(20 + (i * 97 + f) % 984, 20 + (i * 61) % 984, 6, 10) end
    local ms = (clock() - t0) * 1e3
    frames[#frames + 1] = ms
    if f > 250 then last[#last + 1] = ms end
  end
  out.frame_ms = median(frames)
  out.frame_late_ms = median(last)

  -- queries: plain, then one influence layer (bench_c's danger pattern) and claims of 8 units
  local grid = astar.load_movingai(map)
  local scen = astar.load_scen(map .. ".scen")
  local w, h = grid:size()
  local danger = astar.influence(w, h)
  for y = 1, h do
    for x = 1, w do
      if ((x - 1) // 8 + (y - 1) // 8) % 4 == 0 then danger:set(x, y, 0.5 + ((x - 1) * 7 + (y - 1) * 13) % 4 * 0.5) end
    end
  end
  local claims = astar.claims(grid)
  local problems = {}
  for i = 1, #scen do
    local p = scen[i]
    if grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) then problems[#problems + 1] = p end
  end
  for u = 1, 8 do
    local p = problems[u]
    claims:claim(u, (grid:find(p.sx, p.sy, p.gx, p.gy)))
  end
  local function run(opts)
    local spent, expanded = 0, 0
    for _, p in ipairs(problems) do
      local t0 = clock()
      local _, info = grid:find(p.sx, p.sy, p.gx, p.gy, opts)
      spent = spent + (clock() - t0)
      expanded = expanded + info.expansions
    end
    return spent * 1e9 / expanded
  end
  local plain_opts = { jump = false }
  local layered_opts = { jump = false, influence = danger, claims = claims }
  -- Both warmed first (a layered query's first run commits its workspace's penalty and claim
  -- arrays: page faults that are no part of an expansion's cost), then interleaved, medians.
  run(plain_opts)
  run(layered_opts)
  local plain, layered, ratios = {}, {}, {}
  for i = 1, 5 do
    plain[i], layered[i] = run(plain_opts), run(layered_opts)
    ratios[i] = layered[i] / plain[i]
  end
  out.plain_ns, out.layered_ns = median(plain), median(layered)
  out.layered_ratio = median(ratios)
  for k, v in pairs(out) do print(k, v) end
  os.exit(0)
end

local map = arg[1] or "../shared/data/movingai/lak303d.map"
local builds = {}
for i = 2, #arg do builds[#builds + 1] = arg[i] end
if #builds == 0 then builds[1] = os.getenv("ASTAR_BUILD") or "./build" end
local lua = os.getenv("LUA") or "lua5.4"

local results = {}
for round = 1, ROUNDS do
  for b, dir in ipairs(builds) do
    local pipe = assert(io.popen(string.format("%s %s --child %q %q", lua, arg[0], dir, map)))
    for line in pipe:lines() do
      local k, v = line:match("^(%S+)%s+(%S+)$")
      if k then
        results[b] = results[b] or {}
        results[b][k] = results[b][k] or {}
        table.insert(results[b][k], tonumber(v))
      end
    end
    assert(pipe:close(), "the child for " .. dir .. " failed")
  end
  io.stderr:write(string.format("round %d of %d\n", round, ROUNDS))
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end
local KEYS = {
  { "decay_ms", "decay of 1024x1024 holding 40 stamps, ms" },
  { "spread_ms", "spread of 1024x1024 holding 40 stamps, ms" },
  { "frame_ms", "frame (decay + 40 stamps), median of 300 frames, ms" },
  { "frame_late_ms", "frame, frames 251-300 (trail of decayed stamps), ms" },
  { "plain_ns", "plain A* on " .. map:match("[^/]+$") .. ", ns per expansion" },
  { "layered_ns", "influence + claims, ns per expansion" },
  { "layered_ratio", "influence + claims / plain per expansion" },
}
for _, k in ipairs(KEYS) do
  local row = string.format("%-58s", k[2])
  local first
  for b = 1, #builds do
    local m = median(results[b][k[1]])
    first = first or m
    row = row .. string.format(" %12.4f", m)
    if b > 1 then row = row .. string.format(" (%.2fx)", m / first) end
    print(string.format("figure lua layers_frame %s %s %.6f", builds[b]:gsub("%s", "_"), k[1], m))
  end
  print(row)
end
