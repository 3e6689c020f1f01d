-- Hex grids: odd-r offset layout, six neighbours, every query option.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

-- The six neighbours of (x, y), written out from the layout: rows 2, 4, ... (1-based)
-- sit half a cell right, so their diagonal neighbours are at x and x + 1; rows 1, 3, ...
-- at x - 1 and x.
local function six(x, y)
  local l = y % 2 == 0 and 0 or -1
  return { { x - 1, y }, { x + 1, y }, { x + l, y - 1 }, { x + l + 1, y - 1 }, { x + l, y + 1 }, { x + l + 1, y + 1 } }
end

-- Centre of a pointy-top hex of unit size in the plane.
local function centre(x, y)
  return math.sqrt(3) * ((x - 1) + ((y - 1) % 2) / 2), 1.5 * (y - 1)
end

-- The hex a point of the plane lies in: the one with the nearest centre (hexes are the
-- Voronoi cells of their centres), by brute force around it.
local function hex_at(px, py, w, h)
  local best, bx, by = math.huge, nil, nil
  local row = math.floor(py / 1.5 + 0.5) + 1
  for y = row - 2, row + 2 do
    local col = math.floor(px / math.sqrt(3)) + 1
    for x = col - 2, col + 2 do
      local cx, cy = centre(x, y)
      local d = (cx - px) ^ 2 + (cy - py) ^ 2
      if d < best then best, bx, by = d, x, y end
    end
  end
  if bx < 1 or by < 1 or bx > w or by > h then return nil end
  return bx, by
end

describe("hex grids", function()
  it("have six neighbours in the odd-r layout, each one step of cost 1", function()
    for _, start in ipairs({ { 4, 3 }, { 4, 4 }, { 1, 2 }, { 7, 7 } }) do
      local g = astar.grid(7, 7, { topology = "hex" })
      local sx, sy = start[1], start[2]
      local near = {}
      for _, n in ipairs(six(sx, sy)) do near[n[1] .. ":" .. n[2]] = true end
      for y = 1, 7 do
        for x = 1, 7 do
          local path, info = g:find(sx, sy, x, y)
          local one_step = info.cost == 1
          assert.are.equal(near[x .. ":" .. y] == true, one_step, ("(%d,%d) -> (%d,%d)"):format(sx, sy, x, y))
          if one_step then assert.are.equal(2, #path) end
        end
      end
    end
  end)

  it("report their topology, reject square options and heuristics", function()
    local hex = astar.grid(5, 4, { topology = "hex" })
    local square = astar.grid(5, 4)
    assert.are.equal("hex", hex.topology)
    assert.are.equal("hex", hex.diagonal)
    assert.are.equal("square", square.topology)
    assert.are.equal("square", astar.grid(2, 2, { topology = "square" }).topology)
    assert.has_error(function() astar.grid(5, 4, { topology = "hex", diagonal = "never" }) end,
      "bad argument #3 to 'grid' (option 'diagonal' cannot be used with topology \"hex\")")
    assert.has_error(function() astar.grid(5, 4, { topology = "tri" }) end,
      "bad argument #3 to 'grid' (option 'topology' must be \"square\" or \"hex\", got 'tri')")
    assert.has_error(function() astar.grid(5, 4, { topology = 6 }) end)
    assert.has_error(function() hex:find(1, 1, 5, 4, { diagonal = "always" }) end,
      "bad argument #5 to 'find' (option 'diagonal' does not apply to a hex grid)")
    for _, name in ipairs({ "octile", "manhattan", "euclidean" }) do
      assert.has_error(function() hex:find(1, 1, 5, 4, { heuristic = name }) end)
    end
    assert.has_error(function() square:find(1, 1, 5, 4, { heuristic = "hex" }) end)
    for _, name in ipairs({ "hex", "chebyshev", "zero" }) do
      local _, info = hex:find(1, 1, 5, 4, { heuristic = name })
      assert.are.equal("found", info.status)
    end
  end)

  it("find the optimal cost with every option (oracle)", function()
    local rng = oracle.rng(4242)
    local found = 0
    for n = 1, scale(150) do
      local w, h = rng.int(2, 9), rng.int(2, 9)
      local world = { w = w, h = h, cost = {}, topology = "hex" }
      for y = 1, h do
        world.cost[y] = {}
        for x = 1, w do
          local r = rng.next()
          world.cost[y][x] = r < 0.2 and false or (r < 0.5 and 1 + rng.int(0, 4) / 2 or 1)
        end
      end
      local grid = oracle.grid(astar, world)
      local opts = {}
      local layer = astar.influence(w, h)
      local vals = {}
      for y = 1, h do
        vals[y] = {}
        for x = 1, w do
          vals[y][x] = rng.next() * 4 - 1
          layer:set(x, y, vals[y][x])
        end
      end
      world.layers, opts.influence = { { vals = vals, weight = 1 } }, layer
      local claims = astar.claims(grid)
      world.claims = {}
      local cp = {}
      for i = 1, 4 do cp[i] = { x = rng.int(1, w), y = rng.int(1, h) } end
      claims:claim("other", cp)
      world.claims[1] = { unit = "other", path = cp, pos = 1 }
      world.claim_penalty = 3
      opts.claims, opts.claim_penalty = claims, 3
      local salt = rng.int(1, 100)
      world.node_cost = function(x, y) return ((x * 7 + y * 13 + salt) % 5) * 0.25 end
      world.edge_cost = function(x, _, _, fy) return (x + fy + salt) % 7 == 0 and false or 0.1 end
      opts.node_cost, opts.edge_cost = world.node_cost, world.edge_cost
      world.noise, world.seed = 0.5, n
      opts.noise, opts.seed = 0.5, n
      world.known = {}
      for y = 1, h do
        world.known[y] = {}
        for x = 1, w do world.known[y][x] = rng.next() < 0.7 end
      end
      opts.known = oracle.mask(astar, world)
      local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
      local want = oracle.cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      if want then
        assert(path and oracle.near(info.cost, want), "world " .. n)
        assert(oracle.near(oracle.path_cost(world, path), info.cost), "world " .. n .. " path")
        found = found + 1
      else
        assert.is_nil(path, "world " .. n)
      end
    end
    assert.is_true(found > scale(80), "found " .. found)
  end)

  it("find_nearest, partial, max_cost and islands agree with the oracle", function()
    local rng = oracle.rng(99)
    for n = 1, scale(100) do
      local w, h = rng.int(3, 9), rng.int(3, 9)
      local world = { w = w, h = h, cost = {}, topology = "hex" }
      for y = 1, h do
        world.cost[y] = {}
        for x = 1, w do world.cost[y][x] = rng.next() >= 0.3 and 1 or false end
      end
      local grid = oracle.grid(astar, world)
      local sx, sy = rng.int(1, w), rng.int(1, h)
      local dist = oracle.distances(world, sx, sy)
      local targets, best = {}, math.huge
      for i = 1, 3 do
        targets[i] = { x = rng.int(1, w), y = rng.int(1, h) }
        if world.cost[targets[i].y][targets[i].x] then best = math.min(best, dist[targets[i].y][targets[i].x]) end
      end
      local path, info = grid:find_nearest(sx, sy, targets)
      if best < math.huge then
        assert(path and oracle.near(info.cost, best), "nearest " .. n)
      else
        assert.is_nil(path)
      end
      local gx, gy = rng.int(1, w), rng.int(1, h)
      local want = world.cost[gy][gx] and dist[gy][gx] < math.huge and dist[gy][gx] or nil
      assert.are.equal(want ~= nil, grid:reachable(sx, sy, gx, gy), "reachable " .. n)
      if world.cost[sy][sx] and world.cost[gy][gx] then
        assert.are.equal(want ~= nil, grid:component(sx, sy) == grid:component(gx, gy), "component " .. n)
      end
      local p, pinfo = grid:find(sx, sy, gx, gy, { partial = true })
      assert.is_table(p)
      assert(oracle.near(oracle.path_cost(world, p), pinfo.cost), "partial " .. n)
      if want and want > 1 then
        local _, linfo = grid:find(sx, sy, gx, gy, { max_cost = want - 0.5 })
        assert.are.equal("limit", linfo.status)
      end
    end
  end)

  it("smooth keeps every leg inside clear hexes no dearer than what it replaces", function()
    local rng = oracle.rng(7)
    local shortened = 0
    for n = 1, scale(60) do
      local w, h = rng.int(6, 14), rng.int(6, 14)
      local grid = astar.grid(w, h, { topology = "hex" })
      for y = 1, h do
        for x = 1, w do
          local r = rng.next()
          if r < 0.15 then grid:set_cost(x, y, false) elseif r < 0.25 then grid:set_cost(x, y, 3) end
        end
      end
      local path = grid:find(rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h))
      if path then
        local legs = astar.smooth(grid, path)
        if #legs < #path then shortened = shortened + 1 end
        assert.are.same(path[1], legs[1])
        assert.are.same(path[#path], legs[#legs])
        -- each leg's dearest cell is no dearer than the path cells it replaces
        local at = 1
        for i = 2, #legs do
          local limit = 0
          repeat
            at = at + 1
            limit = math.max(limit, grid:get_cost(path[at].x, path[at].y))
          until path[at].x == legs[i].x and path[at].y == legs[i].y
          local ax, ay = centre(legs[i - 1].x, legs[i - 1].y)
          local bx, by = centre(legs[i].x, legs[i].y)
          for k = 1, 999 do
            local t = k / 1000
            local x, y = hex_at(ax + (bx - ax) * t, ay + (by - ay) * t, w, h)
            local first = x == legs[i - 1].x and y == legs[i - 1].y
            local c = x and grid:get_cost(x, y)
            assert(first or (c and c <= limit), ("world %d leg %d crosses (%s,%s)"):format(n, i, x, y))
          end
        end
      end
    end
    assert.is_true(shortened > scale(20), "smooth shortened only " .. shortened)
    -- the leg (2,1) -> (2,3) runs exactly along the edge between (1,2) and (2,2): it is
    -- taken only while both are clear, and a path that comes back on itself is fine
    local g = astar.grid(4, 4, { topology = "hex" })
    local path = { { x = 2, y = 1 }, { x = 2, y = 2 }, { x = 2, y = 3 } }
    assert.are.same({ path[1], path[3] }, astar.smooth(g, path))
    g:set_cost(1, 2, false)
    assert.are.same(path, astar.smooth(g, path))
    local back = { { x = 1, y = 1 }, { x = 2, y = 1 }, { x = 1, y = 1 } }
    assert.are.same({ back[1], back[3] }, astar.smooth(g, back)) -- it may as well stay
    assert.has_error(function() astar.smooth(astar.grid(3, 3, { topology = "hex" }), {}, { diagonal = "never" }) end)
  end)
end)
