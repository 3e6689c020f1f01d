-- Distance fields (flow fields) and range queries, against the oracle.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local worlds = require("spec.support.worlds")

local function random_world(rng) return worlds.halves_world(rng, 1, 7) end

-- Query options drawn at random, mirrored in the world for the oracle.
local function random_options(rng, world, grid, with_unit)
  local opts = {}
  if rng.next() < 0.4 then
    local layer, vals = astar.influence(world.w, world.h), {}
    for y = 1, world.h do
      vals[y] = {}
      for x = 1, world.w do
        vals[y][x] = rng.next() * 6 - 2
        layer:set(x, y, vals[y][x])
      end
    end
    world.layers, opts.influence = { { vals = vals, weight = 1 } }, layer
  end
  if rng.next() < 0.3 then
    local claims, path = astar.claims(grid), {}
    for i = 1, 3 do path[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h) } end
    claims:claim("other", path)
    world.claims, world.claim_penalty = { { unit = "other", path = path, pos = 1 } }, 2
    opts.claims, opts.claim_penalty = claims, 2
    if with_unit then -- a range has a start: who is near it, and whose claims are mine
      local mine = { { x = rng.int(1, world.w), y = rng.int(1, world.h) } }
      claims:claim("me", mine)
      world.claims[2] = { unit = "me", path = mine, pos = 1 }
      world.unit, opts.unit = "me", "me"
      if rng.next() < 0.5 then
        world.claim_radius = rng.int(0, 3)
        opts.claim_radius = world.claim_radius
      end
    end
  end
  if rng.next() < 0.3 then
    local salt = rng.int(1, 50)
    world.node_cost = function(x, y)
      local k = (x * 5 + y * 11 + salt) % 9
      if k == 0 then return false end
      return k * 0.2
    end
    opts.node_cost = world.node_cost
  end
  if rng.next() < 0.3 then
    local salt = rng.int(1, 50)
    world.edge_cost = function(x, y, fx, fy)
      local k = (x * 3 + y * 7 + fx * 13 + fy + salt) % 11
      if k == 0 then return false end
      return k * 0.1
    end
    opts.edge_cost = world.edge_cost
  end
  if rng.next() < 0.2 then
    world.known = {}
    for y = 1, world.h do
      world.known[y] = {}
      for x = 1, world.w do world.known[y][x] = rng.next() < 0.6 end
    end
    opts.known = oracle.mask(astar, world)
  end
  if rng.next() < 0.2 then
    world.noise, world.seed = 1.5, rng.int(0, 1000)
    opts.noise, opts.seed = world.noise, world.seed
  end
  return opts
end

describe("grid:distance_field", function()
  it("gives every cell its cost to the nearest goal, and a way there that costs it", function()
    local rng = oracle.rng(2026)
    local checked, unreached = 0, 0
    for n = 1, scale(80) do
      local world = random_world(rng)
      local grid = oracle.grid(astar, world)
      local opts = random_options(rng, world, grid)
      local goals = {}
      for i = 1, rng.int(1, 3) do goals[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h) } end
      local field, info = grid:distance_field(goals, opts)
      assert.are.equal("done", info.status)
      for y = 1, world.h do
        for x = 1, world.w do
          local want = math.huge
          for _, goal in ipairs(goals) do want = math.min(want, oracle.cost(world, x, y, goal.x, goal.y) or math.huge) end
          local got = field:distance(x, y)
          local where = ("world %d cell (%d,%d)"):format(n, x, y)
          if want == math.huge then
            assert(got == nil, where .. ": reached, the oracle says not")
            assert.is_nil(field:next(x, y))
            assert.is_nil(field:path(x, y))
            unreached = unreached + 1
          else
            assert(got and oracle.near(got, want), where .. ": " .. tostring(got) .. " vs " .. want)
            local path = field:path(x, y)
            assert.are.same({ x = x, y = y }, path[1])
            local last, at_goal = path[#path], false
            for _, goal in ipairs(goals) do at_goal = at_goal or (goal.x == last.x and goal.y == last.y) end
            assert(at_goal, where .. ": path ends off the goals")
            assert(oracle.near(oracle.path_cost(world, path), want), where .. ": path cost")
            if #path > 1 then
              local nx, ny = field:next(x, y)
              assert.are.same(path[2], { x = nx, y = ny })
            end
            checked = checked + 1
          end
        end
      end
    end
    assert.is_true(checked > scale(800) and unreached >= scale(4), checked .. " reached, " .. unreached .. " not")
  end)

  it("serves a crowd: every unit that follows next arrives", function()
    local g = astar.grid(40, 30)
    for y = 5, 25 do g:set_cost(20, y, false) end
    local field = g:distance_field({ { x = 38, y = 15 } })
    for i = 1, 30 do
      local x, y = 1 + (i * 7) % 19, 1 + (i * 11) % 30
      local steps = 0
      while true do
        local nx, ny = field:next(x, y)
        if not nx then break end
        assert.is_true(field:distance(nx, ny) < field:distance(x, y))
        x, y, steps = nx, ny, steps + 1
      end
      assert.are.same({ 38, 15 }, { x, y })
      assert.is_true(steps > 0)
      assert.are.equal(0, field:distance(x, y))
      assert.are.same({ { x = 38, y = 15 } }, field:path(38, 15))
    end
  end)

  it("stops at max_cost and max_expansions, leaving only settled cells", function()
    local world = { w = 12, h = 12, cost = {}, diagonal = "no_corner_cut" }
    for y = 1, 12 do
      world.cost[y] = {}
      for x = 1, 12 do world.cost[y][x] = ((x * y) % 5 == 0) and false or 1 + (x + y) % 3 end
    end
    local grid = oracle.grid(astar, world)
    local near, info = grid:distance_field({ { x = 6, y = 6 } }, { max_cost = 5 })
    assert.are.equal("done", info.status)
    local limited, linfo = grid:distance_field({ { x = 6, y = 6 } }, { max_expansions = 20 })
    assert.are.equal("limit", linfo.status)
    assert.are.equal(20, linfo.expansions)
    local settled = 0
    for y = 1, 12 do
      for x = 1, 12 do
        local want = oracle.cost(world, x, y, 6, 6)
        local d = near:distance(x, y)
        if want and want <= 5 then assert(d and oracle.near(d, want)) else assert.is_nil(d) end
        local l = limited:distance(x, y)
        if l then
          settled = settled + 1
          assert(oracle.near(l, want))
        end
      end
    end
    assert.are.equal(linfo.reached, settled)
    assert.is_true(settled > 5 and settled <= 20)
  end)

  it("checks its arguments", function()
    local g = astar.grid(5, 5)
    assert.has_error(function() g:distance_field({}) end,
      "bad argument #1 to 'distance_field' (goals must be a non-empty list of points)")
    assert.has_error(function() g:distance_field({ { x = 6, y = 1 } }) end,
      "bad argument #1 to 'distance_field' (goal 1 is not a cell of the 5x5 grid)")
    assert.has_error(function() g:distance_field("x") end)
    for _, key in ipairs({ "heuristic", "weight", "partial", "turn_penalty", "claim_window" }) do
      assert.has_error(function() g:distance_field({ { x = 1, y = 1 } }, { [key] = 1 }) end,
        "bad argument #2 to 'distance_field' (option '" .. key .. "' does not apply to distance_field)")
    end
    assert.has_error(function() g:distance_field({ { x = 1, y = 1 } }, { claims = astar.claims(g), claim_radius = 2 }) end,
      "bad argument #2 to 'distance_field' (option 'claim_radius' does not apply to distance_field (it has no start))")
    assert.has_error(function() g:distance_field({ { x = 1, y = 1 } }, { influnce = 1 }) end,
      "bad argument #2 to 'distance_field' (unknown option 'influnce')")
    local f = g:distance_field({ { 1, 1 } })
    assert.has_error(function() f:distance(0, 1) end, "bad argument #1 to 'distance' (x out of range 1..5, got 0)")
    assert.has_error(function() f:next(1, 6) end)
    assert.has_error(function() f:path(1.5, 1) end)
    assert.has_error(function() f.distance(g, 1, 1) end)
  end)

  it("survives errors in callbacks and refuses changes to what it reads", function()
    local g = astar.grid(6, 6)
    assert.has_error(function()
      g:distance_field({ { x = 6, y = 6 } }, { node_cost = function(x) if x == 3 then error("boom") end end })
    end, "boom")
    assert.has_error(function()
      g:distance_field({ { x = 6, y = 6 } }, { node_cost = function() g:set_cost(1, 1, 2) end })
    end)
    local f = g:distance_field({ { x = 6, y = 6 } })
    assert.are.equal(5 * oracle.round_up(math.sqrt(2)), f:distance(1, 1)) -- steps in quanta
    g:set_cost(1, 1, 2) -- usable again
  end)
end)

describe("grid:range", function()
  it("lists every cell within the budget with its cost, cheapest first, and the way there", function()
    local rng = oracle.rng(77)
    local total = 0
    for n = 1, scale(80) do
      local world = random_world(rng)
      local grid = oracle.grid(astar, world)
      local opts = random_options(rng, world, grid, true)
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local budget = rng.next() * 6
      local cells, field, info = grid:range(sx, sy, budget, opts)
      assert.are.equal("done", info.status)
      local dist = oracle.distances(world, sx, sy)
      local listed = {}
      for i, c in ipairs(cells) do
        local where = ("world %d cell (%d,%d)"):format(n, c.x, c.y)
        assert(oracle.near(c.cost, dist[c.y][c.x]), where .. ": cost " .. c.cost .. " vs " .. dist[c.y][c.x])
        assert(c.cost <= budget, where)
        if i > 1 then assert.is_true(cells[i - 1].cost <= c.cost) end
        assert.are.equal(c.cost, field:distance(c.x, c.y))
        local path = field:path(c.x, c.y)
        assert.are.same({ x = sx, y = sy }, path[1])
        assert.are.same({ x = c.x, y = c.y }, path[#path])
        assert(oracle.near(oracle.path_cost(world, path, sx, sy), c.cost), where .. ": path cost")
        listed[c.y * 100 + c.x] = true
      end
      for y = 1, world.h do
        for x = 1, world.w do
          if dist[y][x] <= budget - 1e-9 then assert(listed[y * 100 + x], ("world %d misses (%d,%d)"):format(n, x, y)) end
        end
      end
      assert.are.same({ x = sx, y = sy, cost = 0 }, cells[1])
      total = total + #cells
    end
    assert.is_true(total > scale(200), "only " .. total .. " cells listed")
  end)

  it("checks its arguments", function()
    local g = astar.grid(5, 5)
    assert.has_error(function() g:range(0, 1, 3) end, "bad argument #1 to 'range' (x out of range 1..5, got 0)")
    assert.has_error(function() g:range(1, 1, -1) end, "bad argument #3 to 'range' (budget must be a number >= 0, got -1)")
    assert.has_error(function() g:range(1, 1, 0 / 0) end)
    assert.has_error(function() g:range(1, 1, "x") end)
    assert.has_error(function() g:range(1, 1, "3") end, "bad argument #3 to 'range' (budget must be a number >= 0, got '3')")
    assert.has_error(function() g:range(1, 1, 3, { max_cost = 2 }) end,
      "bad argument #4 to 'range' (option 'max_cost' does not apply to range: the budget is it)")
    assert.has_error(function() g:range(1, 1, 3, { heuristic = "zero" }) end)
    local cells = g:range(3, 3, 0)
    assert.are.same({ { x = 3, y = 3, cost = 0 } }, cells)
    local all = g:range(3, 3, math.huge)
    assert.are.equal(25, #all)
  end)
end)
