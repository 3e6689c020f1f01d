-- The loop for units bigger than one cell (src/grid_loop.c's run_sized) against the general loop
-- the same queries took before it: the same status, cost to the bit, path and expansions, over
-- random worlds and sizes 1..8, every diagonal mode and built-in heuristic, uniform terrain (the
-- loop in quanta) or not, layers and claims, weight, partial, max_cost and max_expansions, whole
-- and in slices with terrain writes between them. A no-op node_cost (0 everywhere, which changes
-- no cost) sends a query to the general loop, as spec 36 and spec 58 force their engines. The
-- footprint oracle (spec/support/dijkstra.lua) checks the optimum besides.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261173")
local HEURISTICS = { "octile", "octile", "euclidean", "chebyshev", "zero" }

local function zero() return 0 end

-- A world of 6..16 cells a side with a few blocked rectangles, so that big units fit somewhere;
-- its terrain of one cost (the loop in quanta) or mixed.
local function sized_world(rng)
  local w, h = rng.int(6, 16), rng.int(6, 16)
  local uniform = rng.next() < 0.5 and (rng.int(1, 4) / 2)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)], size = rng.int(1, 8) }
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do world.cost[y][x] = uniform or (rng.next() < 0.4 and 1 or rng.int(2, 40) / 8) end
  end
  for _ = 1, rng.int(0, 5) do
    local x0, y0 = rng.int(1, w), rng.int(1, h)
    for y = y0, math.min(h, y0 + rng.int(0, 3)) do
      for x = x0, math.min(w, x0 + rng.int(0, 3)) do world.cost[y][x] = false end
    end
  end
  if rng.next() < 0.35 then -- layers and claims: the layered loop's instances, kept light so that
    -- on terrain of one cost they leave it room to count in quanta (search.c's exact_room)
    if rng.next() < 0.7 then
      local vals = {}
      for y = 1, h do
        vals[y] = {}
        for x = 1, w do vals[y][x] = rng.next() < 0.1 and rng.int(-4, 8) / 4 or 0 end
      end
      world.layers = { { vals = vals, weight = rng.int(1, 4) / 2 } }
    end
    if not world.layers or rng.next() < 0.5 then
      local extra = worlds.random_world(rng, { w = w, h = h, claims = true })
      world.claims, world.unit, world.claim_radius = extra.claims, extra.unit, extra.claim_radius
      world.claim_penalty = rng.int(1, 8) / 4
    end
  end
  return world
end

-- A cell where the unit stands, mostly.
local function standing_cell(rng, world)
  local x, y = rng.int(1, world.w), rng.int(1, world.h)
  for _ = 1, 30 do
    if oracle.stands(world, x, y) then break end
    x, y = rng.int(1, world.w), rng.int(1, world.h)
  end
  return x, y
end

local function same_path(a, b)
  if (a == nil) ~= (b == nil) then return false end
  if a == nil then return true end
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i].x ~= b[i].x or a[i].y ~= b[i].y then return false end
  end
  return true
end

-- One cell takes the plain loop's engines (jump point search, dead ends, keys in quanta): the
-- same optimal cost, not the same expansions, path or bounded answer; a bigger unit's loop is
-- the general loop's to the expansion.
local function same_answer(at, path, info, gpath, ginfo, size, bounded)
  if size == 1 and bounded then return end
  assert(info.status == ginfo.status, at .. ": status " .. tostring(info.status) .. ", general " .. tostring(ginfo.status))
  assert(info.cost == ginfo.cost, string.format("%s: cost %.17g, general %.17g", at, info.cost or -1, ginfo.cost or -1))
  if size == 1 then return end
  assert(info.reason == ginfo.reason, at .. ": reason")
  assert(info.expansions == ginfo.expansions,
    string.format("%s: %d expansions, general %d", at, info.expansions, ginfo.expansions))
  assert(same_path(path, gpath), at .. ": another path than the general loop's")
end

local function sliced(grid, q, opts, between)
  local job = grid:search(q[1], q[2], q[3], q[4], opts)
  local k = 0
  while job:status() == "running" do
    job:step(5)
    k = k + 1
    if between then between(k) end
  end
  return job:result()
end

describe("the loop for bigger units", function()
  it("answers as the general loop did, to the bit and the expansion (" .. scale(150) .. " worlds)", function()
    local rng = oracle.rng(SEED)
    local compared, found, optimal, repaired, by_size = 0, 0, 0, 0, {}
    for n = 1, scale(150) do
      local world = sized_world(rng)
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      opts.size = world.size
      opts.heuristic = HEURISTICS[rng.int(1, #HEURISTICS)]
      if world.diagonal == "never" and rng.next() < 0.5 then opts.heuristic = "manhattan" end
      local bounded = false
      local r = rng.next()
      if r < 0.1 then opts.weight = 1.5; bounded = true
      elseif r < 0.2 then opts.partial = true; bounded = true
      elseif r < 0.3 then opts.max_cost = rng.int(2, 20); bounded = true
      elseif r < 0.4 then opts.max_expansions = rng.int(1, 30); bounded = true end
      local general = {}
      for k, v in pairs(opts) do general[k] = v end
      general.node_cost = zero
      for i = 1, 3 do
        local sx, sy = standing_cell(rng, world)
        local gx, gy = standing_cell(rng, world)
        local q = { sx, sy, gx, gy }
        local at = string.format("world %d (%dx%d %s size %d %s%s), query %d: %d,%d -> %d,%d", n, world.w, world.h,
          world.diagonal, world.size, opts.heuristic, world.layers and " layers" or "", i, sx, sy, gx, gy)
        local path, info = grid:find(sx, sy, gx, gy, opts)
        local gpath, ginfo = grid:find(sx, sy, gx, gy, general)
        same_answer(at, path, info, gpath, ginfo, world.size, bounded)
        if not bounded then
          local want = oracle.cost(world, sx, sy, gx, gy)
          assert(info.cost == want, string.format("%s: cost %.17g, oracle %.17g", at, info.cost or -1, want or -1))
          optimal = optimal + 1
        end
        -- in slices, with a terrain write between two of them now and then: where the write is
        -- under what it reached, the general loop's job (callbacks) starts over, this loop's is
        -- repaired in place if its query allows (jobs.c's repairable), another count of
        -- expansions and maybe another path of the same cost: then both answer as the oracle
        -- does on the written terrain
        -- (near the start, where the job has looked: the footprints up-left of it too)
        local wx = math.max(1, math.min(world.w, sx + rng.int(-world.size, 2)))
        local wy = math.max(1, math.min(world.h, sy + rng.int(-world.size, 2)))
        local wcost = rng.next() < 0.5 and false or 1
        local wrote = i == 3 and world.size > 1
        local function write(k) if k == 2 and wrote then grid:set_cost(wx, wy, wcost) end end
        local jpath, jinfo = sliced(grid, q, opts, write)
        if i == 3 then grid:set_cost(wx, wy, world.cost[wy][wx]) end
        local gjpath, gjinfo = sliced(grid, q, general, write)
        if i == 3 then grid:set_cost(wx, wy, world.cost[wy][wx]) end
        if wrote and (jinfo.repairs or 0) > 0 then
          assert(not bounded or opts.max_expansions, at .. ": a bounded job repaired in place")
          if not bounded then
            local was = world.cost[wy][wx]
            world.cost[wy][wx] = wcost
            local want = oracle.cost(world, sx, sy, gx, gy)
            local cost = jpath and oracle.path_cost(world, jpath, sx, sy)
            world.cost[wy][wx] = was
            assert(jinfo.cost == want and gjinfo.cost == want and cost == want,
              string.format("%s (slices, repaired): cost %s, general %s, path %s, oracle %s", at, tostring(jinfo.cost),
                tostring(gjinfo.cost), tostring(cost), tostring(want)))
            repaired = repaired + 1
          end
        else
          same_answer(at .. " (slices)", jpath, jinfo, gjpath, gjinfo, world.size, bounded)
        end
        if info.status == "found" then found = found + 1 end
        by_size[world.size] = (by_size[world.size] or 0) + 1
        compared = compared + 1
      end
    end
    assert.are.equal(scale(150) * 3, compared)
    assert(found > compared / 4, "too few paths found to compare: " .. found)
    assert(optimal > compared / 4, "too few answers checked against the oracle: " .. optimal)
    assert(repaired > 0 or scale(150) < 150, "no job repaired in place") -- (2..10 over seeds)
    if scale(150) == 150 then
      for size = 1, 8 do assert((by_size[size] or 0) > 0, "no world of size " .. size) end
    end
  end)
end)
