local astar = require("astar")
local oracle = require("spec.support.influence")
local dijkstra = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

-- dijkstra.rng's integers: rng(n) in 1..n, rng(lo, hi) in lo..hi.
local function seeded(seed)
  local r = dijkstra.rng(seed)
  return function(lo, hi)
    if hi == nil then return r.int(1, lo) end
    return r.int(lo, hi)
  end
end

local function near(a, b) return math.abs(a - b) <= 1e-9 * math.max(1, math.abs(b)) end

-- Every cell of the layer against the oracle's table.
local function assert_same(inf, v, what)
  for y = 1, v.h do
    for x = 1, v.w do
      if not near(inf:get(x, y), v[y][x]) then
        error(string.format("%s: cell %d,%d is %.17g, the oracle says %.17g", what, x, y, inf:get(x, y), v[y][x]), 2)
      end
    end
  end
end

describe("influence maps", function()
  it("stamp: each falloff, clipped at the edges, against the oracle", function()
    local rng = seeded(7)
    for _, falloff in ipairs({ "linear", "quadratic", "constant" }) do
      local inf, v = astar.influence(9, 7), oracle.new(9, 7)
      for _ = 1, 6 do
        local x, y, r, s = rng(9), rng(7), rng(0, 40) / 10, rng(-30, 30) / 4
        inf:stamp(x, y, r, s, falloff)
        oracle.stamp(v, x, y, r, s, falloff)
      end
      assert_same(inf, v, falloff)
    end
  end)

  it("stamp: linear is the default; the centre gets the full strength, radius 0 only the centre", function()
    local inf = astar.influence(5, 5)
    inf:stamp(3, 3, 0, 4)
    assert.are.equal(4, inf:get(3, 3))
    assert.are.equal(0, inf:get(3, 2))
    inf:fill(0)
    inf:stamp(3, 3, 2, 3)
    assert.are.equal(3, inf:get(3, 3))
    assert.is_true(near(inf:get(3, 1), 3 * (1 - 2 / 3)))
    assert.are.equal(0, inf:get(1, 1)) -- sqrt 8 > 2
  end)

  it("decay scales every value; max_abs sees negative values", function()
    local inf = astar.influence(4, 4)
    inf:set(1, 1, 2)
    inf:set(4, 4, -6)
    assert.are.equal(6, inf:max_abs())
    inf:decay(0.5)
    assert.are.equal(1, inf:get(1, 1))
    assert.are.equal(-3, inf:get(4, 4))
    assert.are.equal(3, inf:max_abs())
    inf:decay(0)
    assert.are.equal(0, inf:max_abs())
  end)

  it("add_layer combines layers with a weight", function()
    local a, b = astar.influence(3, 2, 1), astar.influence(3, 2)
    b:set(2, 2, 4)
    a:add_layer(b, -0.5)
    assert.are.equal(-1, a:get(2, 2))
    assert.are.equal(1, a:get(1, 1))
    a:add_layer(b) -- weight 1
    assert.are.equal(3, a:get(2, 2))
    a:add_layer(a, 1) -- itself: doubles
    assert.are.equal(6, a:get(2, 2))
  end)

  it("spread: many steps on random layers, with and without a grid (square or hex), against the oracle", function()
    local rng = seeded(11)
    for world = 1, scale(45) do
      local w, h = rng(2, 9), rng(2, 8)
      local inf, v = astar.influence(w, h), oracle.new(w, h)
      for y = 1, h do
        for x = 1, w do
          local value = rng(3) == 1 and rng(-50, 50) / 5 or 0
          inf:set(x, y, value)
          v[y][x] = value
        end
      end
      local grid, walkable
      local hex = world % 3 == 1
      if world % 3 ~= 0 then
        grid = astar.grid(w, h, { topology = hex and "hex" or "square" })
        for y = 1, h do
          for x = 1, w do
            if rng(4) == 1 then grid:set_blocked(x, y, true) end
          end
        end
        walkable = function(x, y) return grid:is_walkable(x, y) end
      end
      for step = 1, 5 do
        local decay, momentum = rng(0, 20) / 10, rng(0, 10) / 10
        inf:spread(decay, momentum, grid)
        oracle.spread(v, decay, momentum, walkable, hex)
        assert_same(inf, v, string.format("world %d (%dx%d) step %d", world, w, h, step))
      end
    end
  end)

  it("spread carries influence along corridors, not through walls", function()
    local grid = astar.grid(5, 3)
    for y = 1, 3 do grid:set_blocked(3, y, true) end -- a wall down the middle
    local inf = astar.influence(5, 3)
    inf:set(1, 2, 10)
    for _ = 1, 10 do inf:spread(0.1, 0.5, grid) end
    assert.is_true(inf:get(2, 2) > 0)
    assert.are.equal(0, inf:get(4, 2))
    assert.are.equal(0, inf:get(5, 2))
    local open = astar.influence(5, 3)
    open:set(1, 2, 10)
    for _ = 1, 10 do open:spread(0.1, 0.5) end
    assert.is_true(open:get(5, 2) > 0)
  end)

  it("queries read the updated layer", function()
    local grid = astar.grid(5, 1)
    local inf = astar.influence(5, 1)
    inf:stamp(3, 1, 0, 7, "constant")
    local _, info = grid:find(1, 1, 5, 1, { influence = inf })
    assert.is_true(near(info.cost, 4 + 7))
  end)

  it("rejects bad arguments and changes nothing", function()
    local inf = astar.influence(4, 4)
    inf:set(2, 2, 1)
    assert.has_error(function() inf:stamp(0, 1, 1, 1) end)
    assert.has_error(function() inf:stamp(1, 5, 1, 1) end)
    assert.has_error(function() inf:stamp(1, 1, -1, 1) end, "bad argument #3 to 'stamp' (radius must be >= 0, got -1)")
    assert.has_error(function() inf:stamp(1, 1, math.huge, 1) end)
    assert.has_error(function() inf:stamp(1, 1, 1, 0 / 0) end)
    assert.has_error(function() inf:stamp(1, 1, 1, 1, "cubic") end)
    assert.has_error(function() inf:stamp(1, 1, 1, 1e100) ; inf:stamp(1, 1, 1, 1e100) end)
    assert.has_error(function() inf:decay(-1) end)
    assert.has_error(function() inf:decay(0 / 0) end)
    assert.has_error(function() inf:spread(-0.1, 0.5) end)
    assert.has_error(function() inf:spread(0.1, 1.5) end)
    assert.has_error(function() inf:spread(0.1, 0.5, astar.grid(3, 4)) end)
    assert.has_error(function() inf:spread(0.1, 0.5, inf) end)
    assert.has_error(function() inf:add_layer(astar.influence(4, 3)) end)
    assert.has_error(function() inf:add_layer(inf, math.huge) end)
    assert.has_error(function() inf:add_layer({}) end)
    -- the overflowing second stamp changed nothing: the first one is there, alone
    assert.are.equal(1e100, inf:get(1, 1))
    assert.are.equal(0.5e100, inf:get(2, 1))
    assert.are.equal(1, inf:get(2, 2)) -- sqrt 2 away: outside radius 1
  end)

  it("a callback cannot change a layer its query reads", function()
    local grid = astar.grid(4, 1)
    local inf = astar.influence(4, 1)
    for _, change in ipairs({
      function() inf:stamp(1, 1, 1, 1) end, function() inf:decay(0.5) end,
      function() inf:spread(0.1, 0.5) end, function() inf:add_layer(inf) end,
    }) do
      assert.has_error(function()
        grid:find(1, 1, 4, 1, { influence = inf, node_cost = function() change() return 0 end })
      end)
    end
    inf:stamp(2, 1, 0, 1) -- usable afterwards
    assert.are.equal(1, inf:get(2, 1))
  end)
end)
