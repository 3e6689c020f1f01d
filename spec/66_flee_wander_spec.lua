-- grid:flee and grid:wander (astar.flee, astar.wander) against the oracle: the rule of docs/design/flee.md checked by
-- brute force (every cell's threat distance and cost to reach, then the qualifying cells).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local worlds = require("spec.support.worlds")

-- Costs are multiples of 0.5 (and of sqrt 2 diagonally) and every bound below is k + 0.3 or a
-- multiple of it by 0.75 or 1.25, 1 or 2: no cost lands on a bound, where rounding would decide.
local function random_world(rng) return worlds.halves_world(rng, 2, 8) end

local function walkable_cells(world)
  local cells = {}
  for y = 1, world.h do
    for x = 1, world.w do
      if oracle.walkable(world, x, y) then cells[#cells + 1] = { x = x, y = y } end
    end
  end
  return cells
end

-- The query's own options, each some of the time: a node_cost callback (composed with flee's
-- filter), an influence layer and a fog-of-war mask (values on the 0.5 grid, so costs stay off
-- the bounds). The oracle world gets the same.
local function maybe_options(rng, world, opts)
  if rng.next() < 0.5 then
    local salt = rng.int(1, 50)
    world.node_cost = function(x, y)
      local k = (x * 5 + y * 11 + salt) % 7
      if k == 0 then return false end
      return k * 0.5
    end
    opts.node_cost = world.node_cost
  end
  if rng.next() < 0.3 then
    local vals, layer = {}, astar.influence(world.w, world.h)
    for y = 1, world.h do
      vals[y] = {}
      for x = 1, world.w do
        vals[y][x] = rng.int(0, 4) / 2
        layer:set(x, y, vals[y][x])
      end
    end
    world.layers = { { vals = vals, weight = 1 } }
    opts.influence = layer
  end
  if rng.next() < 0.3 then -- terrain classes: 1 dearer (x2 or x3), 2 a wall for this unit
    world.class, world.classes = {}, { [1] = rng.int(2, 3), [2] = false }
    for y = 1, world.h do
      world.class[y] = {}
      for x = 1, world.w do
        local r = rng.next()
        world.class[y][x] = r < 0.15 and 2 or (r < 0.45 and 1 or 0)
      end
    end
    opts.classes = world.classes
  end
  if not world.topology and rng.next() < 0.4 then -- a unit of 2x2 or 3x3 cells (no footprint on hexes)
    world.size = rng.int(2, 3)
    opts.size = world.size
  end
  if rng.next() < 0.25 then
    world.known = {}
    for y = 1, world.h do
      world.known[y] = {}
      for x = 1, world.w do world.known[y][x] = rng.next() < 0.7 end
    end
    opts.known = oracle.mask(astar, world)
  end
end

-- The terrain alone: what threat distances are measured on (no classes, one cell).
local function terrain_of(world)
  return { w = world.w, h = world.h, cost = world.cost, diagonal = world.diagonal, topology = world.topology }
end

-- The threat distance of the unit anchored at (x, y): the least of T over the cells of its
-- footprint inside the map (docs/design/flee.md: a unit is as near a threat as its nearest part).
local function footprint_threat(world, T, x, y)
  local n, t = world.size or 1, math.huge
  for j = 0, n - 1 do
    for i = 0, n - 1 do
      local v = T[y + j] and T[y + j][x + i]
      if v and v < t then t = v end
    end
  end
  return t
end

-- The threats as a list of points, or a third of the time as an influence layer: 2 on each
-- threat, 0.5 on some other cells, threshold 1 (only the threats are above it).
local function threats_arg(rng, world, threats)
  if rng.next() < 0.67 then return threats, nil end
  local layer = astar.influence(world.w, world.h)
  for _ = 1, 3 do layer:set(rng.int(1, world.w), rng.int(1, world.h), 0.5) end
  for _, t in ipairs(threats) do layer:set(t.x, t.y, 2) end
  return layer, 1
end

local function copy_world(world, node_cost)
  local c = {}
  for k, v in pairs(world) do c[k] = v end
  c.node_cost = node_cost
  return c
end

describe("astar.flee", function()
  it("reaches the cheapest cell at least `distance` from every threat, never nearer to one than it stood", function()
    local rng = oracle.rng(65)
    local safe, unsafe, already, big, classed = 0, 0, 0, 0, 0
    for n = 1, scale(60) do
      local world = random_world(rng)
      local opts = {}
      maybe_options(rng, world, opts)
      local cells = walkable_cells(terrain_of(world))
      if #cells >= 2 then
        local start = rng.pick(cells)
        local threats = {}
        for i = 1, rng.int(1, 2) do threats[i] = rng.pick(cells) end
        local d = rng.int(1, 4) + 0.3
        opts.distance = d
        opts.diagonal = world.diagonal
        local grid = oracle.grid(astar, world)
        local given
        given, opts.threshold = threats_arg(rng, world, threats)
        local path, info = grid:flee(start.x, start.y, given, opts)
        local where = ("world %d"):format(n)
        -- Threat distances on the terrain alone (the threats' own walk), from the oracle.
        local terrain = terrain_of(world)
        local T = {}
        for y = 1, world.h do
          T[y] = {}
          for x = 1, world.w do T[y][x] = math.huge end
        end
        for _, t in ipairs(threats) do
          local to = oracle.distances_to(terrain, t.x, t.y)
          for y = 1, world.h do
            for x = 1, world.w do T[y][x] = math.min(T[y][x], to[y][x]) end
          end
        end
        -- The unit's threat distances: its footprint's nearest cell.
        local F = {}
        for y = 1, world.h do
          F[y] = {}
          for x = 1, world.w do F[y][x] = footprint_threat(world, T, x, y) end
        end
        T = F
        local t0 = T[start.y][start.x]
        local last = path[#path]
        assert.are.same({ x = start.x, y = start.y }, path[1])
        assert.are.same({ last.x, last.y }, { info.x, info.y })
        if t0 >= d then
          assert(#path == 1 and info.safe and info.cost == 0, where .. ": already safe, yet moved")
          already = already + 1
        else
          if world.size then big = big + 1 end
          if world.classes then classed = classed + 1 end
          -- The unit's walk, with every anchor nearer a threat than t0 a wall.
          local own = world.node_cost
          local walk = copy_world(world, function(x, y)
            if T[y][x] < t0 then return false end
            if own then return own(x, y) end
          end)
          local D = oracle.distances(walk, start.x, start.y)
          assert(oracle.near(oracle.path_cost(walk, path), info.cost), where .. ": the path's cost")
          assert(oracle.near(D[last.y][last.x], info.cost), where .. ": not a cheapest way there")
          local r = 2 * d
          local best_safe, best_far = math.huge, -1
          for y = 1, world.h do
            for x = 1, world.w do
              if D[y][x] <= r then
                if T[y][x] >= d then best_safe = math.min(best_safe, D[y][x]) end
                best_far = math.max(best_far, T[y][x])
              end
            end
          end
          if best_safe < math.huge then
            assert(info.safe and T[last.y][last.x] >= d, where .. ": a safe cell was reachable")
            assert(oracle.near(info.cost, best_safe), where .. ": " .. info.cost .. " vs " .. best_safe)
            safe = safe + 1
          else
            assert(info.safe == false, where .. ": no safe cell, yet safe")
            assert(T[last.y][last.x] == best_far, where .. ": not the farthest from the threats")
            local cheapest = math.huge
            for y = 1, world.h do
              for x = 1, world.w do
                if D[y][x] <= r and T[y][x] == best_far then cheapest = math.min(cheapest, D[y][x]) end
              end
            end
            assert(oracle.near(info.cost, cheapest), where .. ": not the cheapest of the farthest")
            unsafe = unsafe + 1
          end
        end
      end
    end
    assert(safe >= scale(10) and unsafe >= scale(3) and already >= scale(3) and big >= scale(5) and classed >= scale(5),
      ("safe %d, unsafe %d, already %d, size %d, classes %d"):format(safe, unsafe, already, big, classed))
  end)

  it("reads its options once and checks the grid after", function()
    local grid = astar.grid(10, 10)
    local reads = {}
    local opts = setmetatable({}, { __index = function(_, k)
      reads[k] = (reads[k] or 0) + 1
      if k == "distance" then return 4.3 end
    end })
    local path, info = grid:flee(2, 2, { { x = 1, y = 1 } }, opts)
    assert.is_true(info.safe)
    for k, n in pairs(reads) do assert.are.equal(1, n, k) end
    assert.are.equal(1, reads.distance)
    assert.are.equal(1, reads.radius)
    assert.is_true(#path > 1)
    local closing = setmetatable({}, { __index = function(_, k)
      if k == "distance" then getmetatable(grid).__gc(grid) return 3 end
    end })
    assert.has_error(function() grid:flee(2, 2, { { x = 1, y = 1 } }, closing) end,
      "attempt to use a freed astar.Grid")
    assert.has_error(function() astar.flee(astar.grid(3, 3), 1, 1, { { x = 1, y = 1 } }, {}) end,
      "bad argument #5 to 'flee' (option 'distance' must be a number in (0, 1e100], got nil)")
    local small = astar.grid(3, 3)
    assert.has_error(function() small:flee(1, 1, { { x = 1, y = 1 } }, { distance = 2, max_cost = 3 }) end,
      "bad argument #4 to 'flee' (option 'max_cost' does not apply to flee: its budget is option 'radius' (flee) "
        .. "or the cost (wander))")
  end)

  it("takes the options of find that weigh the unit's walk, and refuses the others by name", function()
    local grid = astar.grid(8, 8)
    for _, name in ipairs({ "heuristic", "weight", "partial", "max_cost", "turn_penalty", "claim_window",
      "interests", "jump", "dead_ends", "hierarchical", "since", "rejoin_within" }) do
      local ok, err = pcall(grid.flee, grid, 2, 2, { { x = 1, y = 1 } }, { distance = 3.3, [name] = true })
      assert.is_false(ok, name)
      assert.matches("option '" .. name .. "' does not apply to flee", err, 1, true)
      ok, err = pcall(grid.wander, grid, 2, 2, 3, { [name] = true })
      assert.is_false(ok, name)
      assert.matches("option '" .. name .. "' does not apply to wander", err, 1, true)
    end
    assert.has_error(function() grid:flee(2, 2, { { x = 1, y = 1 } }, { distance = 3.3, tolerance = 1 }) end,
      "bad argument #4 to 'flee' (option 'tolerance' does not apply to flee)")
    assert.has_error(function() grid:wander(2, 2, 3, { distance = 3.3 }) end,
      "bad argument #4 to 'wander' (option 'distance' does not apply to wander)")
    assert.has_error(function() grid:flee(2, 2, { { x = 1, y = 1 } }, { distance = 3.3, threshold = 1 }) end,
      "bad argument #4 to 'flee' (option 'threshold' needs threats given as an influence layer)")
    -- every option that applies, at once: the answer comes in find's forms
    local claims, mask, layer = astar.claims(grid), astar.mask(8, 8), astar.influence(8, 8)
    mask:reveal(2, 2, 8)
    claims:claim(1, { { x = 3, y = 3 }, { x = 4, y = 4 } })
    local into, info = {}, {}
    local all = {
      diagonal = "always", influence = layer, influence_weight = 2, claims = claims, unit = 2, claim_penalty = 1,
      claim_radius = 3, node_cost = function() return 0.5 end, edge_cost = function() return nil end, known = mask,
      noise = 0.5, seed = 3, max_expansions = 10000, path = "flat", into = into, info = info,
    }
    all.distance = 3.3
    local path, got = grid:flee(2, 2, { { x = 1, y = 1 } }, all)
    assert.are.equal(into, path)
    assert.are.equal(info, got)
    assert.is_true(got.safe and #path >= 4 and #path == 2 * got.length and got.status == "found")
    assert.are.same({ got.x, got.y }, { path[#path - 1], path[#path] })
    all.distance = nil
    path, got = grid:wander(2, 2, 3, all)
    assert.is_true(got.in_band and #path == 2 * got.length and got.cost >= 2.25 and got.cost <= 3.75)
    -- max_expansions 0: nothing searched, the unit stays (cost 0, not the unreached range's)
    path, got = grid:flee(2, 2, { { x = 1, y = 1 } }, { distance = 3.3, max_expansions = 0 })
    assert.are.same({ { { x = 2, y = 2 } }, 0, false }, { path, got.cost, got.safe })
    path, got = grid:wander(2, 2, 3, { max_expansions = 0 })
    assert.are.same({ { { x = 2, y = 2 } }, 0, false }, { path, got.cost, got.in_band })
  end)

  it("measures a bigger unit's safety over its whole footprint, and walls what its classes wall", function()
    local grid = astar.grid(20, 20, { diagonal = "never" })
    -- Anchored at (3, 3), the threat at (6, 6): the anchor is 6 away, its cell (4, 4) only 4. Every
    -- cell 6 away: the nearest, (x + 1, y + 1), is 10 - x - y away, so x + y = 4, 2 steps.
    local path, info = grid:flee(3, 3, { { x = 6, y = 6 } }, { distance = 5.5, size = 2 })
    assert.is_true(info.safe and info.cost == 2 and info.x + info.y == 4 and #path == 3)
    info = select(2, grid:flee(3, 3, { { x = 6, y = 6 } }, { distance = 5.5 })) -- one cell: safe where it stands
    assert.is_true(info.safe and info.cost == 0)
    -- A 2x2 unit whose footprint covers (4, 4), 4 from the threat: not safe beyond the field either
    info = select(2, grid:flee(3, 3, { { x = 6, y = 6 } }, { distance = 5.5, size = 2, radius = 1 }))
    assert.is_true(info.safe == false and info.cost == 1 and info.threat_distance == 5)
    -- A corridor: the threat at 5, the unit at 4, safe at 2 unless class 1 (cell 3) is a wall to it.
    local line = astar.grid(9, 1)
    line:set_class(3, 1, 1)
    info = select(2, line:flee(4, 1, { { x = 5, y = 1 } }, { distance = 2.5 }))
    assert.are.same({ 2, 1, 2, true }, { info.x, info.y, info.cost, info.safe })
    info = select(2, line:flee(4, 1, { { x = 5, y = 1 } }, { distance = 2.5, classes = { [1] = false } }))
    assert.are.same({ 4, 1, 0, false }, { info.x, info.y, info.cost, info.safe })
    info = select(2, line:flee(4, 1, { { x = 5, y = 1 } }, { distance = 2.5, classes = { [1] = 3 } }))
    assert.are.same({ 2, 1, 4, true }, { info.x, info.y, info.cost, info.safe })
    -- the threats walk the plain terrain: a class wall between one and the unit does not shield
    -- it (2 away through cell 3, it is not safe where it stands)
    info = select(2, line:flee(2, 1, { { x = 4, y = 1 } }, { distance = 2.5, classes = { [1] = false } }))
    assert.are.same({ 1, 1, 1, true }, { info.x, info.y, info.cost, info.safe })
    info = select(2, line:wander(1, 1, 4, { tolerance = 0, classes = { [1] = false } }))
    assert.are.same({ 2, 1, false }, { info.x, info.y, info.in_band })
    info = select(2, line:wander(1, 1, 4, { tolerance = 0 }))
    assert.are.same({ 5, 1, true }, { info.x, info.y, info.in_band })
    assert.has_error(function() line:wander(1, 1, 4, { size = 9 }) end,
      "bad argument #4 to 'wander' (option 'size' must be an integer in 1..8, got 9)")
    -- no footprint on hexes, as for every query; even where the unit stands safe already
    assert.has_error(function() astar.grid(4, 4, { topology = "hex" }):flee(1, 1, { { x = 4, y = 4 } },
      { distance = 1, size = 2 }) end, "flee failed: invalid argument")
    -- graphs still refuse it by name
    local graph = astar.graph()
    graph:add_node(0, 0)
    assert.has_error(function() graph:range(1, 1, { size = 2 }) end,
      "bad argument #3 to 'range' (option 'size' does not apply to range (a unit's footprint is a square of "
        .. "cells: grid queries))")
  end)

  it("keeps the layer of threats and the grid from being closed while it runs", function()
    local grid, layer = astar.grid(10, 10), astar.influence(10, 10)
    layer:set(1, 1, 3)
    local ok, err = pcall(grid.flee, grid, 2, 2, layer, { distance = 4.3, node_cost = function()
      getmetatable(layer).__gc(layer)
    end })
    assert.is_false(ok)
    assert.matches("in use by a running query", err)
    local _, info = grid:flee(2, 2, layer, { distance = 4.3 })
    assert.is_true(info.safe and info.cost > 0)
    assert.has_error(function() grid:flee(2, 2, astar.influence(3, 3), { distance = 4.3 }) end,
      "bad argument #3 to 'flee' (threats is 3x3 but the grid is 10x10)")
    local closing = setmetatable({}, { __index = function(_, k)
      if k == "distance" then getmetatable(layer).__gc(layer) return 3 end
    end })
    assert.has_error(function() grid:flee(2, 2, layer, closing) end)
    assert.matches("freed", select(2, pcall(grid.flee, grid, 2, 2, layer, { distance = 3 })))
    ok, err = pcall(grid.wander, grid, 2, 2, 5, { edge_cost = function() error("boom") end })
    assert.is_false(ok)
    assert.matches("boom", err)
    assert.are.equal("found", select(2, grid:wander(2, 2, 5)).status)
  end)

  it("leaves the grid usable when the query's node_cost raises or closes it", function()
    local grid = astar.grid(12, 12)
    local threats = { { x = 1, y = 1 } }
    assert.has_error(function()
      astar.flee(grid, 2, 2, threats, { distance = 5.3, node_cost = function() error("boom") end })
    end)
    local path, info = astar.flee(grid, 2, 2, threats, { distance = 5.3 })
    assert.is_true(info.safe and #path > 1)
    local ok, err = pcall(astar.flee, grid, 2, 2, threats, { distance = 5.3, node_cost = function()
      getmetatable(grid).__gc(grid)
    end })
    assert.is_false(ok)
    assert.matches("grid is in use by a running query", err)
    assert.are.same(path, (astar.flee(grid, 2, 2, threats, { distance = 5.3 })))
  end)
end)

describe("astar.wander", function()
  it("goes to a reachable cell whose cost is in the band, the same one for the same seed", function()
    local rng = oracle.rng(6565)
    local in_band, out, differ, big, classed = 0, 0, 0, 0, 0
    for n = 1, scale(60) do
      local world = random_world(rng)
      local opts = {}
      maybe_options(rng, world, opts)
      local cells = walkable_cells(terrain_of(world))
      if #cells >= 1 then
        local start = rng.pick(cells)
        local cost = rng.int(0, 4) + 0.3
        opts.diagonal, opts.seed = world.diagonal, rng.int(0, 1000)
        local grid = oracle.grid(astar, world)
        local path, info = grid:wander(start.x, start.y, cost, opts)
        local where = ("world %d"):format(n)
        local D = oracle.distances(world, start.x, start.y)
        local lo, hi = cost * 0.75, cost * 1.25
        local band, far = 0, -1
        for y = 1, world.h do
          for x = 1, world.w do
            if D[y][x] <= hi then
              if D[y][x] >= lo then band = band + 1 end
              far = math.max(far, D[y][x])
            end
          end
        end
        local last = path[#path]
        assert.are.same({ x = start.x, y = start.y }, path[1])
        assert(oracle.near(oracle.path_cost(world, path), info.cost), where .. ": the path's cost")
        assert(oracle.near(D[last.y][last.x], info.cost), where .. ": not a cheapest way there")
        if band > 0 then
          assert(info.in_band and info.cost >= lo and info.cost <= hi, where .. ": off the band")
          assert.are.equal(band, info.candidates)
          in_band = in_band + 1
        else
          assert(not info.in_band and oracle.near(info.cost, far), where .. ": not the farthest reached")
          out = out + 1
        end
        if world.size then big = big + 1 end
        if world.classes then classed = classed + 1 end
        local again = astar.wander(grid, start.x, start.y, cost, opts)
        assert.are.same(path, again)
        opts.seed = opts.seed + 1
        local other = astar.wander(grid, start.x, start.y, cost, opts)
        if other[#other].x ~= last.x or other[#other].y ~= last.y then differ = differ + 1 end
      end
    end
    assert(in_band >= scale(20) and out >= scale(2) and differ >= scale(5) and big >= scale(5) and classed >= scale(5),
      ("in band %d, out %d, differ %d, size %d, classes %d"):format(in_band, out, differ, big, classed))
  end)

  it("reads its own options once, passes the rest raw, and refuses a bad cost or seed", function()
    local grid = astar.grid(10, 10)
    local reads = {}
    local opts = setmetatable({ seed = 3 }, { __index = function(_, k)
      reads[k] = (reads[k] or 0) + 1
      if k == "tolerance" then return 0.5 end
    end })
    local _, info = astar.wander(grid, 5, 5, 3.3, opts)
    for k, n in pairs(reads) do assert.are.equal(1, n, k) end
    assert.are.equal(1, reads.tolerance)
    assert.is_true(info.in_band and info.cost >= 3.3 * 0.5 and info.cost <= 3.3 * 1.5)
    assert.has_error(function() astar.wander(grid, 5, 5, -1) end,
      "bad argument #4 to 'wander' (cost must be a number in 0..1e100, got -1)")
    assert.has_error(function() astar.wander(grid, 5, 5, 2, { seed = 1.5 }) end,
      "bad argument #5 to 'wander' (option 'seed' must be an integer, got 1.5)")
    assert.has_error(function() astar.wander(grid, 5, 5, 2, { tolerance = 2 }) end,
      "bad argument #5 to 'wander' (option 'tolerance' must be a number in 0..1, got 2)")
  end)
end)
