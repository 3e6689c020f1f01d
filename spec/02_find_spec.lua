local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SQRT2 = math.sqrt(2)

local ROWS = {
  "..........",
  ".######...",
  "......#...",
  ".####.#.#.",
  "......#.#.",
  "########..",
}

local function fixture(diagonal)
  local world = oracle.world_from_rows(ROWS, diagonal)
  return world, oracle.grid(astar, world)
end

describe("grid:find", function()
  it("returns the start alone when start == goal", function()
    local _, g = fixture()
    local path, info = g:find(3, 3, 3, 3)
    assert.are.same({ { x = 3, y = 3 } }, path)
    assert.are.equal("found", info.status)
    assert.are.equal(0, info.cost)
    assert.are.equal(1, info.length)
    assert.are.equal(1, info.expansions)
  end)

  it("includes both endpoints and reports status, cost, expansions, length", function()
    local world, g = fixture()
    local path, info = g:find(1, 5, 10, 6)
    assert.are.same({ x = 1, y = 5 }, path[1])
    assert.are.same({ x = 10, y = 6 }, path[#path])
    assert.are.equal("found", info.status)
    assert.are.equal(#path, info.length)
    assert.are.equal(math.type and "integer" or "number", math.type and math.type(info.expansions) or type(info.expansions))
    assert.is_true(info.expansions >= 1)
    -- A* takes every cell of the path off the open list (jump point search only jump points)
    local _, ainfo = g:find(1, 5, 10, 6, { jump = false })
    assert.is_true(ainfo.expansions >= #path)
    assert.is_true(oracle.near(info.cost, oracle.cost(world, 1, 5, 10, 6)))
    assert.is_true(oracle.near(oracle.path_cost(world, path), info.cost))
  end)

  it("agrees with the oracle for every pair of cells in every diagonal mode", function()
    for _, mode in ipairs(oracle.DIAGONALS) do
      local world, g = fixture(mode)
      for sy = 1, world.h do
        for sx = 1, world.w do
          local dist = oracle.distances(world, sx, sy)
          for gy = 1, world.h do
            for gx = 1, world.w do
              local path, info = g:find(sx, sy, gx, gy)
              local want = world.cost[gy][gx] and dist[gy][gx] < math.huge and dist[gy][gx] or nil
              if want then
                assert(path and oracle.near(info.cost, want), mode)
                oracle.path_cost(world, path)
              else
                assert.is_nil(path)
                assert.are.equal("unreachable", info.status)
              end
            end
          end
        end
      end
    end
  end)

  it("returns nil and 'unreachable' when the open list runs dry", function()
    local g = astar.grid(5, 1)
    local path, info = g:find(1, 1, 5, 1, { node_cost = function(x) return x ~= 3 and 0 or false end })
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
    assert.are.equal(2, info.expansions)
  end)

  it("a goal on another island is unreachable without a search", function()
    local g = astar.grid(5, 1)
    g:set_cost(3, 1, false)
    local path, info = g:find(1, 1, 5, 1)
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
    assert.are.equal(0, info.expansions)
  end)

  it("a blocked goal is unreachable at once, even when it is the start", function()
    local g = astar.grid(5, 5)
    g:set_cost(5, 5, false)
    local path, info = g:find(1, 1, 5, 5)
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
    assert.are.equal(0, info.expansions)
    path, info = g:find(5, 5, 5, 5)
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
  end)

  it("a blocked start may be left, and counts as blocked in corner checks", function()
    local g = astar.grid(3, 3)
    g:set_cost(1, 1, false)
    local path, info = g:find(1, 1, 3, 3)
    assert.is_true(oracle.near(info.cost, 2 * SQRT2))
    assert.are.equal(3, #path)
    -- with the start blocked, the diagonal (2,1)->(1,2) would cut its corner
    local p2, i2 = g:find(2, 1, 1, 2)
    assert.is_true(oracle.near(i2.cost, 2))
    assert.are.equal(3, #p2)
  end)

  it("max_expansions stops with 'limit'", function()
    local g = astar.grid(30, 30)
    -- A* here: jump point search would reach the goal in fewer (23_jps_spec covers it)
    local path, info = g:find(1, 1, 30, 30, { max_expansions = 5, jump = false })
    assert.is_nil(path)
    assert.are.equal("limit", info.status)
    assert.are.equal(5, info.expansions)
    path, info = g:find(1, 1, 30, 30, { max_expansions = 0 })
    assert.is_nil(path)
    assert.are.equal("limit", info.status)
    assert.are.equal(0, info.expansions)
    path = g:find(1, 1, 30, 30, { max_expansions = 10000 })
    assert.is_table(path)
  end)

  it("max_cost treats costlier paths as not found", function()
    local g = astar.grid(10, 1)
    local path, info = g:find(1, 1, 10, 1, { max_cost = 8.5 })
    assert.is_nil(path)
    assert.are.equal("limit", info.status)
    path, info = g:find(1, 1, 10, 1, { max_cost = 9 })
    assert.are.equal(10, #path)
    assert.are.equal(9, info.cost)
    -- a goal that is simply unreachable stays "unreachable" under a generous bound
    g:set_cost(5, 1, false)
    path, info = g:find(1, 1, 10, 1, { max_cost = 100 })
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
  end)

  it("partial returns the path to the expanded node closest to the goal", function()
    local world = fixture()
    -- (9, 4) is walled in; (8, 5) is not reachable from the left part either
    world.cost[4][9] = 1
    for _, mode in ipairs(oracle.DIAGONALS) do
      world.diagonal = mode
      local g = oracle.grid(astar, world)
      g:set_cost(9, 6, false)
      world.cost[6][9] = false
      g:set_cost(10, 6, false)
      world.cost[6][10] = false
      local sx, sy, gx, gy = 1, 5, 10, 6 -- goal blocked now
      local dist = oracle.distances(world, sx, sy)
      local function h(x, y)
        local dx, dy = math.abs(x - gx), math.abs(y - gy)
        if mode == "never" then return dx + dy end
        return math.max(dx, dy) + (SQRT2 - 1) * math.min(dx, dy)
      end
      local best, bh, bg
      for y = 1, world.h do
        for x = 1, world.w do
          local d = dist[y][x]
          if d < math.huge then
            local hv = h(x, y)
            if not best or hv < bh - 1e-12 or (math.abs(hv - bh) <= 1e-12 and d < bg) then
              best, bh, bg = { x = x, y = y }, hv, d
            end
          end
        end
      end
      local path, info = g:find(sx, sy, gx, gy, { partial = true })
      assert.are.equal("partial", info.status, mode)
      assert.are.equal("unreachable", info.reason)
      assert.are.same(best, path[#path], mode)
      assert.is_true(oracle.near(info.cost, bg))
      assert.is_true(oracle.near(oracle.path_cost(world, path), bg))
    end
  end)

  it("partial with a limit reports reason 'limit'", function()
    local g = astar.grid(20, 20)
    local path, info = g:find(1, 1, 20, 20, { partial = true, max_expansions = 10 })
    assert.are.equal("partial", info.status)
    assert.are.equal("limit", info.reason)
    assert.are.same({ x = 1, y = 1 }, path[1])
    assert.is_true(#path > 1)
  end)

  it("partial on a blocked start that is also the goal is partial, not found", function()
    local g = astar.grid(3, 3)
    g:set_cost(2, 2, false)
    local path, info = g:find(2, 2, 2, 2)
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
    path, info = g:find(2, 2, 2, 2, { partial = true })
    assert.are.equal("partial", info.status)
    assert.are.equal("unreachable", info.reason)
    assert.are.same({ { x = 2, y = 2 } }, path)
    assert.are.equal(0, info.cost)
  end)

  it("a found path is returned normally even with partial", function()
    local g = astar.grid(5, 5)
    local _, info = g:find(1, 1, 5, 5, { partial = true })
    assert.are.equal("found", info.status)
  end)

  it("the diagonal option overrides the grid's mode", function()
    local g = astar.grid(5, 5, { diagonal = "always" })
    local _, info = g:find(1, 1, 5, 5, { diagonal = "never" })
    assert.are.equal(8, info.cost)
    _, info = g:find(1, 1, 5, 5)
    assert.is_true(oracle.near(info.cost, 4 * SQRT2))
  end)

  it("diagonal modes treat a single blocked corner as documented", function()
    local costs = {}
    for _, mode in ipairs(oracle.DIAGONALS) do
      local g = astar.grid(2, 2, { diagonal = mode })
      g:set_cost(2, 1, false)
      local _, info = g:find(1, 1, 2, 2)
      costs[mode] = info.cost
    end
    assert.are.equal(2, costs.never)
    assert.are.equal(2, costs.no_corner_cut)
    assert.is_true(oracle.near(costs.always, SQRT2))
    assert.is_true(oracle.near(costs.one_walkable, SQRT2))
    -- both corners blocked: only "always" cuts through
    local g = astar.grid(2, 2, { diagonal = "one_walkable" })
    g:set_cost(2, 1, false)
    g:set_cost(1, 2, false)
    assert.is_nil((g:find(1, 1, 2, 2)))
    g = astar.grid(2, 2, { diagonal = "always" })
    g:set_cost(2, 1, false)
    g:set_cost(1, 2, false)
    assert.is_table((g:find(1, 1, 2, 2)))
  end)

  it("a custom heuristic function is used", function()
    local g = astar.grid(10, 10)
    local calls = 0
    local path, info = g:find(1, 1, 10, 10, {
      heuristic = function(_, _, gx, gy)
        calls = calls + 1
        assert.are.equal(10, gx)
        assert.are.equal(10, gy)
        return 0
      end,
    })
    assert.is_true(calls > 0)
    assert.is_true(oracle.near(info.cost, 9 * SQRT2))
    assert.are.equal(10, #path)
  end)

  -- A 10x10 world, every move allowed, each cell a random cost 1..top.
  local function cost_world(rng, top)
    local world = { w = 10, h = 10, cost = {}, diagonal = "always" }
    for y = 1, 10 do
      world.cost[y] = {}
      for x = 1, 10 do world.cost[y][x] = rng.int(1, top) end
    end
    return world
  end

  -- An admissible but inconsistent heuristic makes the search improve closed nodes; a
  -- partial answer cut off by max_expansions before an improvement reaches its end node
  -- must still report the cost of the path it returns, not the end node's older g.
  it("a partial answer under an inconsistent heuristic costs what its path costs", function()
    local rng = oracle.rng(17)
    local checked = 0
    for _ = 1, scale(40) do
      local world = cost_world(rng, 3)
      local g = oracle.grid(astar, world)
      local factor = {}
      for i = 1, 100 do factor[i] = rng.int(0, 100) / 100 end
      local function h(x, y, gx, gy)
        local dx, dy = math.abs(x - gx), math.abs(y - gy)
        return (math.max(dx, dy) + (SQRT2 - 1) * math.min(dx, dy)) * factor[(y - 1) * 10 + x]
      end
      for limit = 1, 40 do
        local path, info = g:find(1, 1, 10, 10, { heuristic = h, partial = true, max_expansions = limit })
        assert.is_true(oracle.near(info.cost, oracle.path_cost(world, path)),
          string.format("limit %d: reported %.17g, path %.17g", limit, info.cost, oracle.path_cost(world, path)))
        checked = checked + 1
      end
    end
    assert.are.equal(scale(40) * 40, checked)
  end)

  -- Found answers too: the goal can be taken before an improvement of a closed node on its
  -- way is passed on (a weight that swamps g leaves such nodes tied), so the goal's g counts
  -- the dearer way while its chain of parents, the path returned, runs the cheaper one.
  it("a found answer under a weighted inconsistent heuristic costs what its path costs", function()
    local rng = oracle.rng(29)
    local checked = 0
    for _ = 1, scale(200) do
      local world = cost_world(rng, 9)
      local g = oracle.grid(astar, world)
      local guess = {}
      for i = 1, 100 do guess[i] = rng.int(0, 2) end
      local function h(x, y) return guess[(y - 1) * 10 + x] end
      for _, weight in ipairs({ 1, 3, 1e20 }) do
        local sx, sy, gx, gy = rng.int(1, 10), rng.int(1, 10), rng.int(1, 10), rng.int(1, 10)
        local path, info = g:find(sx, sy, gx, gy, { heuristic = h, weight = weight })
        local cost = oracle.path_cost(world, path)
        assert.is_true(oracle.near(info.cost, cost),
          string.format("weight %g: reported %.17g, path %.17g", weight, info.cost, cost))
        checked = checked + 1
      end
    end
    assert.are.equal(scale(200) * 3, checked)
  end)

  it("is deterministic", function()
    local _, g = fixture("always")
    local a = g:find(1, 1, 10, 5)
    local b = g:find(1, 1, 10, 5)
    assert.are.same(a, b)
  end)

  it("finds paths on terrain cheaper than 1 (the heuristic is scaled)", function()
    local g = astar.grid(8, 8)
    g:fill(0.25)
    g:set_cost(4, 4, 3)
    local world = { w = 8, h = 8, cost = {} }
    for y = 1, 8 do
      world.cost[y] = {}
      for x = 1, 8 do world.cost[y][x] = g:get_cost(x, y) end
    end
    local _, info = g:find(1, 1, 8, 8)
    assert.is_true(oracle.near(info.cost, oracle.cost(world, 1, 1, 8, 8)))
  end)
end)
