-- Fog of war: a mask of what a player knows; unknown cells are walkable at cost 1.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local function mask_of(world) return oracle.mask(astar, world) end

describe("fog of war", function()
  it("a new mask knows nothing; reveal marks a disc", function()
    local m = astar.mask(7, 5)
    assert.are.equal(7, m.width)
    assert.is_false(m:is_known(4, 3))
    m:reveal(4, 3, 1.5)
    for y = 1, 5 do
      for x = 1, 7 do
        local inside = (x - 4) ^ 2 + (y - 3) ^ 2 <= 1.5 ^ 2
        assert.are.equal(inside, m:is_known(x, y), x .. "," .. y)
      end
    end
    m:reveal(1, 1, math.huge)
    assert.is_true(m:is_known(7, 5))
  end)

  it("plans through unseen walls, and around the walls it has seen", function()
    local g = astar.grid(5, 3)
    for y = 1, 3 do g:set_cost(3, y, false) end -- a wall the player has not seen
    local m = astar.mask(5, 3)
    local path, info = g:find(1, 2, 5, 2, { known = m })
    assert.are.equal(5, #path)
    assert.are.equal(4, info.cost)
    m:reveal(3, 1); m:reveal(3, 2); m:reveal(3, 3)
    path, info = g:find(1, 2, 5, 2, { known = m })
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
  end)

  it("islands do not reject a goal that only unseen cells cut off", function()
    local g = astar.grid(6, 4)
    for y = 1, 4 do g:set_cost(3, y, false) end
    local _, plain = g:find(1, 1, 6, 4)
    assert.are.equal("unreachable", plain.status)
    assert.are.equal(0, plain.expansions) -- answered by the island labels
    local path = g:find(1, 1, 6, 4, { known = astar.mask(6, 4) })
    assert.truthy(path)
  end)

  it("the heuristic stays admissible when known terrain is dearer than 1 (random worlds)", function()
    local rng = oracle.rng(515)
    local found = 0
    for n = 1, scale(200) do
      local w, h = rng.int(3, 10), rng.int(3, 10)
      local world = { w = w, h = h, cost = {}, known = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
      for y = 1, h do
        world.cost[y], world.known[y] = {}, {}
        for x = 1, w do
          world.cost[y][x] = rng.next() < 0.2 and false or 2 + rng.next() * 3 -- all dearer than 1
          world.known[y][x] = rng.next() < 0.6
        end
      end
      local grid = oracle.grid(astar, world)
      local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
      local want = oracle.cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, { known = mask_of(world) })
      if want then
        found = found + 1
        assert(path and oracle.near(info.cost, want),
          string.format("world %d: cost %s, oracle %s", n, tostring(info.cost), want))
        assert(oracle.near(oracle.path_cost(world, path), info.cost))
      else
        assert.is_nil(path)
      end
    end
    assert.is_true(found > scale(100))
  end)

  it("works with layers, claims and callbacks", function()
    local world = oracle.world_from_rows({
      "..#..",
      "..#..",
      ".....",
    })
    world.known = { { true, true, false, true, true }, { true, true, true, true, true }, { true, true, true, true, true } }
    local grid = oracle.grid(astar, world)
    local inf = astar.influence(5, 3)
    inf:set(3, 3, 4)
    world.layers = { { vals = { { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 0, 0, 4, 0, 0 } }, weight = 1 } }
    world.node_cost = function(x, y) if x == 2 and y == 1 then return 0.5 end end
    local path, info = grid:find(1, 1, 5, 1, { known = mask_of(world), influence = inf, node_cost = world.node_cost })
    assert(path)
    assert(oracle.near(info.cost, oracle.cost(world, 1, 1, 5, 1)))
    assert(oracle.near(oracle.path_cost(world, path), info.cost))
  end)

  it("rejects bad arguments", function()
    local g, m = astar.grid(4, 4), astar.mask(4, 4)
    assert.has_error(function() g:find(1, 1, 4, 4, { known = astar.mask(4, 3) }) end,
      "bad argument #5 to 'find' (option 'known' is 4x3 but the grid is 4x4)")
    assert.has_error(function() g:find(1, 1, 4, 4, { known = {} }) end)
    assert.has_error(function() g:find(1, 1, 4, 4, { known = astar.influence(4, 4) }) end)
    assert.has_error(function() m:reveal(0, 1) end)
    assert.has_error(function() m:reveal(1, 1, -1) end)
    assert.has_error(function() m:reveal(1, 1, 0 / 0) end)
    assert.has_error(function() m:reveal(1, 1, "2") end)
    assert.has_error(function() m:is_known(5, 1) end)
    assert.has_error(function() astar.mask(0, 3) end)
    assert.is_false(m:is_known(1, 1))
  end)

  it("a callback cannot reveal into the mask its query reads", function()
    local g, m = astar.grid(4, 1), astar.mask(4, 1)
    assert.has_error(function()
      g:find(1, 1, 4, 1, { known = m, node_cost = function() m:reveal(1, 1) end })
    end, "mask is in use by a running query (a callback cannot change what its query reads)")
    m:reveal(2, 1) -- usable afterwards
    assert.is_true(m:is_known(2, 1))
    local other = astar.mask(4, 1)
    local path = g:find(1, 1, 4, 1, { known = m, node_cost = function() other:reveal(1, 1) end })
    assert.truthy(path)
    assert.is_true(other:is_known(1, 1))
  end)
end)
