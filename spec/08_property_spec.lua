-- Seeded random worlds: find's cost against the brute-force oracle, and every
-- step of every path checked. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261122")
local WORLDS = 600

local function random_world(rng, features)
  local w, h = rng.int(2, 11), rng.int(2, 11)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  if features.hex then world.topology, world.diagonal = "hex", nil end
  local density = rng.next() * 0.35
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local c = false -- blocked
      if rng.next() >= density then c = rng.next() < 0.4 and 1 or 0.5 + rng.next() * 3.5 end
      world.cost[y][x] = c
    end
  end
  if features.layers then
    world.layers = {}
    for i = 1, rng.int(1, 2) do
      local vals = {}
      for y = 1, h do
        vals[y] = {}
        for x = 1, w do vals[y][x] = rng.next() * 8 - 4 end -- negative values too
      end
      world.layers[i] = { vals = vals, weight = rng.next() * 2 }
    end
  end
  if features.claims then
    world.claims = {}
    for u = 1, rng.int(1, 4) do
      local path = {}
      for i = 1, rng.int(1, 6) do path[i] = { x = rng.int(1, w), y = rng.int(1, h) } end
      world.claims[u] = { unit = (u % 2 == 0) and u or ("u" .. u), path = path, pos = 1 }
    end
    if features.windows then world.claim_window = rng.int(0, 3) end
    world.unit = world.claims[1].unit
    world.claim_penalty = rng.next() * 6
    if rng.next() < 0.5 then world.claim_radius = rng.int(0, 4) end
  end
  if features.node_cost then
    local t = {}
    for y = 1, h do
      t[y] = {}
      for x = 1, w do
        local r = rng.next()
        if r < 0.1 then t[y][x] = false
        elseif r < 0.2 then t[y][x] = math.huge
        elseif r >= 0.3 then t[y][x] = rng.next() * 3 end -- else nil
      end
    end
    world.node_cost = function(x, y) return t[y][x] end
  end
  if features.noise then
    world.noise, world.seed = rng.next() * 3, rng.int(-5, 2 ^ 33)
  end
  if features.known then
    world.known = {}
    local share = rng.next()
    for y = 1, h do
      world.known[y] = {}
      for x = 1, w do world.known[y][x] = rng.next() < share end
    end
  end
  if features.turns then world.turn_penalty = rng.next() * 3 end
  if features.edge_cost then
    local salt = rng.int(1, 1000)
    world.edge_cost = function(x, y, fx, fy)
      local k = (x * 31 + y * 17 + fx * 7 + fy * 3 + salt) % 23
      if k == 0 then return false end
      if k == 1 then return nil end
      return (k % 5) * 0.3
    end
  end
  return world
end

local function query_opts(astar_mod, grid, world)
  local opts = {}
  if world.layers then
    local list = {}
    for i, l in ipairs(world.layers) do
      local inf = astar_mod.influence(world.w, world.h)
      for y = 1, world.h do
        for x = 1, world.w do inf:set(x, y, l.vals[y][x]) end
      end
      list[i] = { inf, l.weight }
    end
    if #list == 1 then
      opts.influence, opts.influence_weight = list[1][1], list[1][2]
    else
      opts.influence = list
    end
  end
  if world.claims then
    local claims = astar_mod.claims(grid)
    for _, c in ipairs(world.claims) do claims:claim(c.unit, c.path) end
    opts.claims, opts.unit = claims, world.unit
    opts.claim_penalty, opts.claim_radius = world.claim_penalty, world.claim_radius
    opts.claim_window = world.claim_window
  end
  opts.turn_penalty = world.turn_penalty
  opts.node_cost, opts.edge_cost = world.node_cost, world.edge_cost
  opts.noise, opts.seed = world.noise, world.seed
  if world.known then opts.known = oracle.mask(astar_mod, world) end
  return opts
end

describe("random worlds against the oracle", function()
  it("find is optimal and every path is legal (" .. WORLDS .. " worlds, seed " .. SEED .. ")", function()
    local rng = oracle.rng(SEED)
    local seen = { found = 0, unreachable = 0, blocked_start = 0 }
    local modes = {}
    for n = 1, WORLDS do
      local features = {
        layers = rng.next() < 0.35, claims = rng.next() < 0.35,
        node_cost = rng.next() < 0.3, edge_cost = rng.next() < 0.3, known = rng.next() < 0.25,
        noise = rng.next() < 0.25, hex = rng.next() < 0.2,
      }
      local world = random_world(rng, features)
      local mode = world.topology or world.diagonal
      modes[mode] = (modes[mode] or 0) + 1
      local grid = oracle.grid(astar, world)
      local opts = query_opts(astar, grid, world)
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local gx, gy = rng.int(1, world.w), rng.int(1, world.h)
      if not world.cost[sy][sx] then seen.blocked_start = seen.blocked_start + 1 end
      local want = oracle.cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      local where = string.format("world %d (%dx%d %s) %d,%d -> %d,%d", n, world.w, world.h,
        mode, sx, sy, gx, gy)
      if want == nil then
        assert(path == nil, where .. ": found a path the oracle says does not exist")
        assert.are.equal("unreachable", info.status, where)
        seen.unreachable = seen.unreachable + 1
      else
        assert(path, where .. ": no path, oracle cost " .. want)
        assert(oracle.near(info.cost, want), where .. ": cost " .. info.cost .. " ~= oracle " .. want)
        assert.are.same({ x = sx, y = sy }, path[1])
        assert.are.same({ x = gx, y = gy }, path[#path])
        assert.are.equal(#path, info.length)
        local walked = oracle.path_cost(world, path, sx, sy)
        assert(oracle.near(walked, info.cost), where .. ": path walks for " .. walked)
        seen.found = seen.found + 1
      end
    end
    -- the generator really covers what it claims to
    local covered = string.format("found %d, unreachable %d, blocked starts %d", seen.found,
      seen.unreachable, seen.blocked_start)
    assert(seen.found > 250 and seen.unreachable > 20 and seen.blocked_start > 10, covered)
    for _, mode in ipairs(oracle.DIAGONALS) do assert.is_true((modes[mode] or 0) > 60, mode) end
    assert.is_true((modes.hex or 0) > 60, "hex")
  end)

  -- turn_penalty and claim_window are approximate (astar.h says why): the path's cost is
  -- exact and never below the optimum over every way in, and most of the time it is it.
  it("turn_penalty and claim_window: exact cost of the path, never below the optimum", function()
    local rng = oracle.rng(SEED + 3)
    local optimal, found, worst = 0, 0, 1
    for n = 1, 300 do
      local features = { turns = rng.next() < 0.7, claims = true, hex = rng.next() < 0.25,
                         layers = rng.next() < 0.3, node_cost = rng.next() < 0.2 }
      features.windows = not features.turns or rng.next() < 0.5
      local world = random_world(rng, features)
      local grid = oracle.grid(astar, world)
      local opts = query_opts(astar, grid, world)
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.exact_cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      local where = "world " .. n
      if want == nil then
        assert(path == nil, where .. ": found a path the oracle says does not exist")
      else
        assert(path, where .. ": no path, oracle cost " .. want)
        assert(oracle.near(oracle.path_cost(world, path, sx, sy), info.cost), where .. ": path cost")
        assert(info.cost >= want - 1e-9, where .. ": below the optimum")
        found = found + 1
        if oracle.near(info.cost, want) then optimal = optimal + 1 else worst = math.max(worst, info.cost / want) end
      end
    end
    assert(found > 150, "found " .. found)
    -- how approximate, for this seed (docs/manual.md quotes it)
    assert(optimal >= 0.75 * found, string.format("optimal %d of %d, worst %.3fx", optimal, found, worst))
  end)

  it("weighted search costs at most weight x optimal", function()
    local rng = oracle.rng(SEED + 1)
    for n = 1, 150 do
      local world = random_world(rng, { layers = rng.next() < 0.5 })
      local grid = oracle.grid(astar, world)
      local opts = query_opts(astar, grid, world)
      opts.weight = 1 + rng.next() * 3
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      if want then
        assert(path, "world " .. n)
        assert.is_true(info.cost <= opts.weight * want + 1e-9 and info.cost >= want - 1e-9)
        assert(oracle.near(oracle.path_cost(world, path), info.cost))
      else
        assert.is_nil(path)
      end
    end
  end)

  it("every heuristic name keeps paths optimal", function()
    local rng = oracle.rng(SEED + 2)
    for n = 1, 120 do
      local world = random_world(rng, { hex = rng.next() < 0.25 })
      local grid = oracle.grid(astar, world)
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.cost(world, sx, sy, gx, gy)
      local names = { "octile", "euclidean", "chebyshev", "zero" }
      if world.diagonal == "never" then names[#names + 1] = "manhattan" end
      if world.topology == "hex" then names = { "hex", "chebyshev", "zero" } end
      for _, h in ipairs(names) do
        local path, info = grid:find(sx, sy, gx, gy, { heuristic = h })
        if want then
          assert(path and oracle.near(info.cost, want), "world " .. n .. " heuristic " .. h)
        else
          assert.is_nil(path)
        end
      end
    end
  end)
end)
