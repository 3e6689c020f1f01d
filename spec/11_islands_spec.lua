-- Islands (grid:component, grid:reachable) against the brute-force oracle, through
-- terrain changes that merge and split islands, in every diagonal mode.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261123")

local function random_world(rng, mode)
  local w, h = rng.int(1, 9), rng.int(1, 9)
  local world = { w = w, h = h, cost = {}, diagonal = mode }
  local density = 0.2 + rng.next() * 0.4
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do world.cost[y][x] = rng.next() >= density and rng.int(1, 3) or false end
  end
  return world
end

-- Every (start, goal) pair: reachable, component and find agree with the oracle.
local function check_world(world, g)
  for sy = 1, world.h do
    for sx = 1, world.w do
      local dist = oracle.distances(world, sx, sy)
      for gy = 1, world.h do
        for gx = 1, world.w do
          local open_goal = world.cost[gy][gx] ~= false
          local want = open_goal and dist[gy][gx] < math.huge
          local where = string.format("%s (%d,%d)->(%d,%d)", world.diagonal, sx, sy, gx, gy)
          assert.are.equal(want, g:reachable(sx, sy, gx, gy), where)
          if world.cost[sy][sx] ~= false and open_goal then
            assert.are.equal(want, g:component(sx, sy) == g:component(gx, gy), where)
          end
          local path, info = g:find(sx, sy, gx, gy)
          assert.are.equal(want, path ~= nil, where)
          if not want then assert.are.equal("unreachable", info.status, where) end
        end
      end
    end
  end
end

describe("islands", function()
  it("component is an integer for walkable cells and false for blocked ones", function()
    local g = astar.grid(5, 1)
    g:set_cost(3, 1, false)
    local a, b = g:component(1, 1), g:component(5, 1)
    assert.is_true(a % 1 == 0 and a >= 1)
    assert.are_not.equal(a, b)
    assert.are.equal(a, g:component(2, 1))
    assert.is_false(g:component(3, 1))
    g:set_cost(3, 1, 2) -- opening the wall joins the islands
    assert.are.equal(g:component(1, 1), g:component(5, 1))
  end)

  it("corners: 8-connected only with diagonal 'always'", function()
    for _, mode in ipairs(oracle.DIAGONALS) do
      local g = astar.grid(2, 2, { diagonal = mode })
      g:set_cost(2, 1, false)
      g:set_cost(1, 2, false)
      assert.are.equal(mode == "always", g:reachable(1, 1, 2, 2), mode)
      assert.are.equal(mode == "always", g:component(1, 1) == g:component(2, 2), mode)
    end
  end)

  it("a blocked start leaves through its neighbours; a blocked goal is never reachable", function()
    local g = astar.grid(3, 1)
    g:set_cost(2, 1, false)
    assert.is_true(g:reachable(2, 1, 3, 1))
    assert.is_false(g:reachable(1, 1, 2, 1))
    assert.is_false(g:reachable(2, 1, 2, 1))
    g:set_cost(1, 1, false)
    g:set_cost(3, 1, false)
    assert.is_false(g:reachable(2, 1, 2, 1))
  end)

  it("agrees with the oracle on random worlds, through merges and splits", function()
    local rng = oracle.rng(SEED)
    for round = 1, scale(40) do
      local world = random_world(rng, oracle.DIAGONALS[(round - 1) % 4 + 1])
      local g = oracle.grid(astar, world)
      check_world(world, g)
      -- flip cells one at a time: opening merges islands at once, closing may split them
      for _ = 1, 6 do
        local x, y = rng.int(1, world.w), rng.int(1, world.h)
        local c = world.cost[y][x] and false or rng.int(1, 3)
        world.cost[y][x] = c
        g:set_cost(x, y, c)
        -- queries first: they may use labels that still join what the change split
        local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
        local want = oracle.cost(world, sx, sy, gx, gy)
        local path, info = g:find(sx, sy, gx, gy)
        assert.are.equal(want ~= nil, path ~= nil)
        if want then assert.is_true(oracle.near(info.cost, want)) end
      end
      check_world(world, g)
    end
  end)

  it("checks its arguments", function()
    local g = astar.grid(3, 3)
    assert.has_error(function() g:component(0, 1) end)
    assert.has_error(function() g:component(1, 4) end)
    assert.has_error(function() g:component(1.5, 1) end)
    assert.has_error(function() g:reachable(1, 1, 4, 1) end)
    assert.has_error(function() g:reachable(1, 1, 1) end)
    assert.has_error(function() g.component({}, 1, 1) end)
  end)
end)
