-- grid:find_nearest: one search for the nearest of many goals.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

describe("grid:find_nearest", function()
  it("reaches the nearest target and says which", function()
    local g = astar.grid(10, 10)
    local path, info = g:find_nearest(1, 1, { { x = 9, y = 9 }, { x = 5, y = 1 }, { 3, 8 } })
    assert.are.equal("found", info.status)
    assert.are.equal(2, info.target)
    assert.are.equal(4, info.cost)
    assert.are.same({ x = 5, y = 1 }, path[#path])
  end)

  it("skips blocked targets; unreachable when none is left", function()
    local g = astar.grid(5, 5)
    g:set_cost(3, 3, false)
    local path, info = g:find_nearest(1, 1, { { x = 3, y = 3 } })
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
    assert.are.equal(0, info.expansions)
    path, info = g:find_nearest(1, 1, { { x = 3, y = 3 }, { x = 5, y = 5 } })
    assert.are.same({ x = 5, y = 5 }, path[#path])
    assert.are.equal(2, info.target)
  end)

  it("the start itself can be the nearest target", function()
    local g = astar.grid(4, 4)
    local path, info = g:find_nearest(2, 2, { { x = 4, y = 4 }, { x = 2, y = 2 } })
    assert.are.equal(2, info.target)
    assert.are.equal(0, info.cost)
    assert.are.equal(1, #path)
  end)

  it("islands: a target on another island is skipped, not searched for", function()
    local g = astar.grid(7, 3)
    for y = 1, 3 do g:set_cost(4, y, false) end
    local _, info = g:find_nearest(1, 1, { { x = 7, y = 1 }, { x = 6, y = 3 } })
    assert.are.equal("unreachable", info.status)
    assert.are.equal(0, info.expansions)
    local _, found = g:find_nearest(1, 1, { { x = 7, y = 1 }, { x = 2, y = 3 } })
    assert.are.equal(2, found.target)
  end)

  it("random worlds with every option: the cost is the oracle's minimum over the targets", function()
    local rng = oracle.rng(77)
    local found, many = 0, 0
    for n = 1, scale(250) do
      local w, h = rng.int(2, 10), rng.int(2, 10)
      local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
      for y = 1, h do
        world.cost[y] = {}
        for x = 1, w do
          world.cost[y][x] = rng.next() < 0.25 and false or (rng.next() < 0.5 and 1 or 0.5 + rng.next() * 3)
        end
      end
      local opts = {}
      if rng.next() < 0.3 then
        local vals = {}
        local inf = astar.influence(w, h)
        for y = 1, h do
          vals[y] = {}
          for x = 1, w do vals[y][x] = rng.next() * 4 - 1; inf:set(x, y, vals[y][x]) end
        end
        world.layers = { { vals = vals, weight = 1 } }
        opts.influence = inf
      end
      if rng.next() < 0.3 then
        local t = {}
        for y = 1, h do
          t[y] = {}
          for x = 1, w do t[y][x] = rng.next() < 0.1 and false or rng.next() * 2 end
        end
        world.node_cost = function(x, y) return t[y][x] end
        opts.node_cost = world.node_cost
      end
      if rng.next() < 0.2 then
        world.known = {}
        for y = 1, h do
          world.known[y] = {}
          for x = 1, w do world.known[y][x] = rng.next() < 0.5 end
        end
        opts.known = oracle.mask(astar, world)
      end
      if rng.next() < 0.3 then opts.heuristic = "zero" end
      local k = rng.next() < 0.1 and rng.int(65, 90) or rng.int(1, 6) -- past 64: no heuristic
      if k > 64 then many = many + 1 end
      local targets = {}
      for i = 1, k do targets[i] = { x = rng.int(1, w), y = rng.int(1, h) } end
      local sx, sy = rng.int(1, w), rng.int(1, h)
      local grid = oracle.grid(astar, world)
      local dist = oracle.distances(world, sx, sy)
      local best = math.huge
      for _, t in ipairs(targets) do
        if oracle.walkable(world, t.x, t.y) then best = math.min(best, dist[t.y][t.x]) end
      end
      local path, info = grid:find_nearest(sx, sy, targets, opts)
      local where = string.format("world %d (%dx%d %s, %d targets)", n, w, h, world.diagonal, k)
      if best == math.huge then
        assert(path == nil, where .. ": found a path to no reachable target")
      else
        found = found + 1
        assert(path, where .. ": nothing found, oracle " .. best)
        assert(oracle.near(info.cost, best), where .. ": cost " .. info.cost .. ", oracle " .. best)
        local t = targets[info.target]
        assert.are.same({ x = t.x, y = t.y }, path[#path])
        assert(oracle.near(oracle.path_cost(world, path, sx, sy), info.cost), where)
      end
    end
    assert.is_true(found > scale(120) and many > scale(5))
  end)

  it("rejects bad arguments", function()
    local g = astar.grid(4, 4)
    assert.has_error(function() g:find_nearest(1, 1, {}) end,
      "bad argument #3 to 'find_nearest' (targets must be a non-empty list of points)")
    assert.has_error(function() g:find_nearest(1, 1, nil) end)
    assert.has_error(function() g:find_nearest(1, 1, { { x = 5, y = 1 } }) end)
    assert.has_error(function() g:find_nearest(1, 1, { 7 }) end)
    assert.has_error(function() g:find_nearest(1, 1, { { x = 1.5, y = 1 } }) end)
    assert.has_error(function() g:find_nearest(1, 1, { { 2, 2 } }, { heuristic = function() return 0 end }) end)
    assert.has_error(function() g:find_nearest(1, 1, { { 2, 2 } }, { goal = 1 }) end)
    assert.has_error(function() g:find_nearest(1, 1, { { 2, 2 } }, 5) end)
    local path = g:find_nearest(1, 1, { { 2, 2 } }) -- still fine
    assert.are.equal(2, #path)
  end)
end)
