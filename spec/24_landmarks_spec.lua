-- Landmarks (grid:landmarks(k)): with them built, every query still costs what the oracle
-- says (they are a lower bound for any query on that terrain, or left out when not), fewer
-- nodes are expanded on open maps, and terrain changes that could make them overestimate
-- put them out of use. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261123")

local function random_world(rng, hex)
  local w, h = rng.int(3, 14), rng.int(3, 14)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  if hex then world.topology, world.diagonal = "hex", nil end
  local density = rng.next() * 0.3
  -- Terrain of one cost keeps one direction of distances (they are equal there).
  local one_cost = rng.next() < 0.3 and 0.5 + rng.next() * 3.5
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local c = false
      if rng.next() >= density then c = one_cost or (rng.next() < 0.4 and 1 or 0.5 + rng.next() * 3.5) end
      world.cost[y][x] = c
    end
  end
  return world
end

-- Per-query extras on the world and the options that ask the same of find.
local function add_extras(rng, world, grid)
  local opts = {}
  if rng.next() < 0.3 then
    local inf = astar.influence(world.w, world.h)
    local vals = {}
    for y = 1, world.h do
      vals[y] = {}
      for x = 1, world.w do
        vals[y][x] = rng.next() * 8 - 4
        inf:set(x, y, vals[y][x])
      end
    end
    local weight = rng.next() * 2
    world.layers = { { vals = vals, weight = weight } }
    opts.influence, opts.influence_weight = inf, weight
  end
  if rng.next() < 0.3 then
    world.claims = {}
    local claims = astar.claims(grid)
    for u = 1, rng.int(1, 3) do
      local path = {}
      for i = 1, rng.int(1, 5) do path[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h) } end
      world.claims[u] = { unit = u, path = path, pos = 1 }
      claims:claim(u, path)
    end
    world.unit, world.claim_penalty = 1, rng.next() * 5
    opts.claims, opts.unit, opts.claim_penalty = claims, 1, world.claim_penalty
  end
  if rng.next() < 0.25 then
    local t = {}
    for y = 1, world.h do
      t[y] = {}
      for x = 1, world.w do
        local r = rng.next()
        if r < 0.1 then t[y][x] = false elseif r >= 0.3 then t[y][x] = rng.next() * 3 end
      end
    end
    world.node_cost = function(x, y) return t[y][x] end
    opts.node_cost = world.node_cost
  end
  if rng.next() < 0.2 then
    local salt = rng.int(1, 1000)
    world.edge_cost = function(x, y, fx, fy)
      local k = (x * 31 + y * 17 + fx * 7 + fy * 3 + salt) % 23
      if k == 0 then return false end
      return (k % 5) * 0.3
    end
    opts.edge_cost = world.edge_cost
  end
  if rng.next() < 0.2 then
    world.noise, world.seed = rng.next() * 3, rng.int(0, 1000)
    opts.noise, opts.seed = world.noise, world.seed
  end
  if rng.next() < 0.2 then -- fog of war: unknown cells cost 1, maybe less than the terrain
    world.known = {}
    for y = 1, world.h do
      world.known[y] = {}
      for x = 1, world.w do world.known[y][x] = rng.next() < 0.5 end
    end
    opts.known = oracle.mask(astar, world)
  end
  if not world.topology and rng.next() < 0.25 then -- any other mode, more moves or fewer
    world.diagonal = oracle.DIAGONALS[rng.int(1, 4)]
    opts.diagonal = world.diagonal
  end
  if rng.next() < 0.15 then opts.weight = 1 + rng.next() * 2 end
  return opts
end

local function check(where, world, grid, opts, sx, sy, gx, gy)
  local want = oracle.cost(world, sx, sy, gx, gy)
  local path, info = grid:find(sx, sy, gx, gy, opts)
  if want == nil then
    assert(path == nil, where .. ": found a path the oracle says does not exist")
    return "unreachable"
  end
  assert(path, where .. ": no path, oracle cost " .. want)
  local bound = (opts.weight or 1) * want
  assert(info.cost >= want - 1e-9 * math.max(1, want), where .. ": cost " .. info.cost .. " below " .. want)
  assert(info.cost <= bound + 1e-9 * math.max(1, bound), where .. ": cost " .. info.cost .. " ~= oracle " .. want)
  assert(oracle.near(oracle.path_cost(world, path, sx, sy), info.cost), where .. ": path walks for another cost")
  return "found"
end

describe("landmarks", function()
  it("every query costs what the oracle says (random worlds, all modes, hexes, every option)", function()
    local rng = oracle.rng(SEED)
    local seen = { found = 0, unreachable = 0 }
    for n = 1, scale(400) do
      local world = random_world(rng, rng.next() < 0.2)
      local grid = oracle.grid(astar, world)
      -- Sometimes more landmarks than a query uses at once (each query picks its own).
      local k = rng.next() < 0.25 and rng.int(33, 64) or rng.int(1, 6)
      local placed = grid:landmarks(k)
      assert(placed <= k)
      local opts = add_extras(rng, world, grid)
      for q = 1, 4 do
        local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
        local where = string.format("world %d query %d (%dx%d %s, k %d) %d,%d -> %d,%d", n, q, world.w,
          world.h, world.topology or world.diagonal, placed, sx, sy, gx, gy)
        local r = check(where, world, grid, opts, sx, sy, gx, gy)
        seen[r] = seen[r] + 1
      end
    end
    assert(seen.found > scale(800) and seen.unreachable > scale(50),
      seen.found .. " found, " .. seen.unreachable .. " unreachable")
  end)

  it("turn_penalty and claim_window: exact cost of the path, never below the optimum", function()
    local rng = oracle.rng(SEED + 1)
    for n = 1, scale(150) do
      local world = random_world(rng, rng.next() < 0.25)
      local grid = oracle.grid(astar, world)
      grid:landmarks(4)
      local opts = {}
      if rng.next() < 0.6 then world.turn_penalty = rng.next() * 3 end
      if not world.turn_penalty or rng.next() < 0.5 then
        local claims = astar.claims(grid)
        world.claims = {}
        for u = 1, 3 do
          local path = {}
          for i = 1, rng.int(1, 5) do path[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h) } end
          world.claims[u] = { unit = u, path = path, pos = 1 }
          claims:claim(u, path)
        end
        world.unit, world.claim_penalty, world.claim_window = 1, rng.next() * 5, rng.int(0, 3)
        opts.claims, opts.unit, opts.claim_penalty, opts.claim_window = claims, 1, world.claim_penalty, world.claim_window
      end
      opts.turn_penalty = world.turn_penalty
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.exact_cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      if want == nil then
        assert(path == nil, "world " .. n .. ": found a path the oracle says does not exist")
      else
        assert(path, "world " .. n .. ": no path")
        assert(oracle.near(oracle.path_cost(world, path, sx, sy), info.cost), "world " .. n .. ": path cost")
        assert(info.cost >= want - 1e-9, "world " .. n .. ": below the optimum")
      end
    end
  end)

  it("expand fewer nodes on an open map with walls, at equal cost", function()
    local rng = oracle.rng(SEED + 2)
    local world = { w = 64, h = 64, cost = {}, diagonal = "no_corner_cut" }
    for y = 1, 64 do
      world.cost[y] = {}
      for x = 1, 64 do
        local wall = (x % 16 == 8 and y % 20 ~= 3) or (y % 16 == 12 and x % 24 ~= 5)
        world.cost[y][x] = (not wall) and (rng.next() < 0.8 and 1 or 2)
      end
    end
    local grid = oracle.grid(astar, world)
    local queries = {}
    while #queries < 60 do
      local q = { rng.int(1, 64), rng.int(1, 64), rng.int(1, 64), rng.int(1, 64) }
      if world.cost[q[2]][q[1]] and world.cost[q[4]][q[3]] then queries[#queries + 1] = q end
    end
    local function run()
      local total, costs = 0, {}
      for i, q in ipairs(queries) do
        local _, info = grid:find(q[1], q[2], q[3], q[4])
        total = total + info.expansions
        costs[i] = info.cost
      end
      return total, costs
    end
    local without, want = run()
    assert.are.equal(8, grid:landmarks(8))
    local with, got = run()
    local found = 0
    for i = 1, #queries do
      assert.are.equal(want[i] == nil, got[i] == nil)
      if want[i] then
        found = found + 1
        assert(oracle.near(got[i], want[i]), "query " .. i)
      end
    end
    assert(found > scale(40), found .. " found")
    assert(with * 2 < without, with .. " expansions with landmarks, " .. without .. " without")
  end)

  it("stay in use and exact when a wall opens or a cell gets cheaper (repaired); fill drops them", function()
    local world = oracle.world_from_rows({
      "..........",
      "..........",
      "#########.",
      "..........",
      "..........",
    }, "always")
    local grid = oracle.grid(astar, world)
    assert.are.equal(4, grid:landmarks(4))
    local function exact()
      for _, q in ipairs({ { 1, 1, 1, 5 }, { 1, 5, 1, 1 }, { 10, 5, 1, 1 }, { 2, 1, 2, 5 }, { 5, 1, 4, 5 } }) do
        local _, info = grid:find(q[1], q[2], q[3], q[4])
        assert(info.cost == oracle.cost(world, q[1], q[2], q[3], q[4]), table.concat(q, ",")) -- to the bit
      end
    end
    grid:set_cost(3, 2, 5) -- dearer: the stored distances are still lower bounds
    world.cost[2][3] = 5
    assert.are.equal(4, grid:landmarks())
    assert(oracle.near(select(2, grid:find(1, 1, 1, 5)).cost, oracle.cost(world, 1, 1, 1, 5)))
    grid:set_blocked(2, 3, false) -- a shortcut: d(L, n) measured around the wall would overestimate
    world.cost[3][2] = 1
    assert.are.equal(4, grid:landmarks())
    exact()
    grid:set_cost(5, 5, 0.5)
    world.cost[5][5] = 0.5
    assert.are.equal(4, grid:landmarks())
    exact()
    grid:fill(1)
    assert.are.equal(0, grid:landmarks())
  end)

  it("are stale when the grid's diagonal mode allows more moves than they were built under", function()
    local grid = astar.grid(8, 8, { diagonal = "no_corner_cut" })
    assert.are.equal(3, grid:landmarks(3))
    local world = { w = 8, h = 8, cost = {}, diagonal = "always" }
    for y = 1, 8 do
      world.cost[y] = {}
      for x = 1, 8 do world.cost[y][x] = 1 end
    end
    local _, info = grid:find(1, 1, 8, 8, { diagonal = "always" })
    assert(oracle.near(info.cost, oracle.cost(world, 1, 1, 8, 8)))
    local _, never = grid:find(1, 1, 8, 8, { diagonal = "never" })
    assert.are.equal(14, never.cost)
  end)

  it("k: an integer 0..64; 0 drops them; a tiny island gets fewer", function()
    local grid = astar.grid(3, 3)
    for _, bad in ipairs({ -1, 65, 1.5, "2", true }) do
      assert.has_error(function() grid:landmarks(bad) end)
    end
    assert.are.equal(0, grid:landmarks())
    assert.are.equal(9, grid:landmarks(64)) -- one per cell at most
    local big = astar.grid(10, 10)
    local placed, bytes = big:landmarks(64)
    assert.are.equal(64, placed)
    -- one cost everywhere: one float per landmark per cell (border included)
    assert(bytes >= 12 * 12 * 4 * 64 and bytes < 12 * 12 * 4 * 64 + 4096, bytes)
    big:set_cost(1, 1, 2)
    placed, bytes = big:landmarks(64) -- costs differ: both directions
    assert.are.equal(64, placed)
    assert(bytes >= 12 * 12 * 8 * 64 and bytes < 12 * 12 * 8 * 64 + 4096, bytes)
    assert.are.same({ 64, bytes }, { big:landmarks() })
    big:landmarks(0)
    assert.are.same({ 0, 0 }, { big:landmarks() })
    assert.are.equal(0, grid:landmarks(0))
    local walled = astar.grid(2, 2)
    for y = 1, 2 do for x = 1, 2 do walled:set_blocked(x, y, true) end end
    assert.are.equal(0, walled:landmarks(4))
    assert.is_nil((walled:find(1, 1, 2, 2)))
  end)
end)
