local astar = require("astar")
local oracle = require("spec.support.dijkstra")

local SQRT2 = math.sqrt(2)

describe("cost callbacks", function()
  it("node_cost is called at most once per node per query", function()
    local g = astar.grid(12, 12)
    g:set_cost(6, 3, false)
    local calls = {}
    local path = g:find(1, 1, 12, 12, {
      node_cost = function(x, y)
        local k = y * 100 + x
        calls[k] = (calls[k] or 0) + 1
        return (x + y) % 3
      end,
    })
    assert.is_table(path)
    local n = 0
    for _, c in pairs(calls) do
      assert.are.equal(1, c)
      n = n + 1
    end
    assert.is_true(n > 10)
    assert.is_nil(calls[3 * 100 + 6]) -- a blocked cell's callback is never asked
  end)

  it("edge_cost is called per step with the step's both ends", function()
    local g = astar.grid(4, 2)
    local steps = 0
    local _, info = g:find(1, 1, 4, 1, {
      edge_cost = function(x, y, fx, fy)
        steps = steps + 1
        assert.is_true(math.abs(x - fx) <= 1 and math.abs(y - fy) <= 1)
        assert.is_false(x == fx and y == fy)
        if fy == y and x == fx + 1 then return 0.5 end -- moving east costs extra
      end,
    })
    assert.is_true(steps > 3)
    -- east steps cost 1.5, so two diagonals and one east step win
    assert.is_true(oracle.near(info.cost, 2 * SQRT2 + 1.5))
  end)

  it("nil adds 0, false and math.huge block, numbers add", function()
    local g = astar.grid(3, 3)
    local _, info = g:find(1, 2, 3, 2, { diagonal = "never", node_cost = function() return nil end })
    assert.are.equal(2, info.cost)
    _, info = g:find(1, 2, 3, 2, { diagonal = "never",
      node_cost = function(x, y) if x == 2 and y == 2 then return false end end })
    assert.are.equal(4, info.cost)
    _, info = g:find(1, 2, 3, 2, { diagonal = "never",
      node_cost = function(x, y) if x == 2 and y == 2 then return math.huge end end })
    assert.are.equal(4, info.cost)
    _, info = g:find(1, 2, 3, 2, { diagonal = "never",
      edge_cost = function(x, y) if x == 2 and y == 2 then return false end end })
    assert.are.equal(4, info.cost)
    _, info = g:find(1, 2, 3, 2, { diagonal = "never", node_cost = function() return 0.25 end })
    assert.are.equal(2.5, info.cost)
  end)

  it("a node_cost of false blocks corners too", function()
    local g = astar.grid(2, 2)
    local _, info = g:find(1, 1, 2, 2, { node_cost = function(x, y) if x == 2 and y == 1 then return false end end })
    assert.are.equal(2, info.cost)
    _, info = g:find(1, 1, 2, 2, { diagonal = "one_walkable",
      node_cost = function(x, y) if x == 2 and y == 1 then return false end end })
    assert.is_true(oracle.near(info.cost, SQRT2))
  end)

  it("a blocked goal (by node_cost) is unreachable", function()
    local g = astar.grid(3, 3)
    local path, info = g:find(1, 1, 3, 3, { node_cost = function(x, y) if x == 3 and y == 3 then return false end end })
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
  end)

  it("bad return values are errors that name the callback", function()
    local g = astar.grid(3, 3)
    for _, bad in ipairs({ -1, 0 / 0, "1", {}, true }) do
      local ok, err = pcall(g.find, g, 1, 1, 3, 3, { node_cost = function() return bad end })
      assert.is_false(ok)
      assert.matches("node_cost", err)
      ok, err = pcall(g.find, g, 1, 1, 3, 3, { edge_cost = function() return bad end })
      assert.is_false(ok)
      assert.matches("edge_cost", err)
    end
    local ok, err = pcall(g.find, g, 1, 1, 3, 3, { heuristic = function() return -1 end })
    assert.is_false(ok)
    assert.matches("heuristic", err)
  end)

  it("an error inside a callback propagates unchanged and leaves everything usable", function()
    local g = astar.grid(8, 8)
    local inf = astar.influence(8, 8, 1)
    local claims = astar.claims(g)
    claims:claim("a", { { x = 2, y = 2 }, { x = 3, y = 3 } })
    local opts = { influence = inf, claims = claims }
    local _, before = g:find(1, 1, 8, 8, opts)

    local marker = { code = 42 }
    opts.node_cost = function(x) if x == 4 then error(marker) end end
    local ok, err = pcall(g.find, g, 1, 1, 8, 8, opts)
    assert.is_false(ok)
    assert.are.equal(marker, err) -- the very same table

    opts.node_cost = nil
    opts.edge_cost = function() error("boom") end
    ok, err = pcall(g.find, g, 1, 1, 8, 8, opts)
    assert.is_false(ok)
    assert.matches("^.-06_callbacks_spec.lua:%d+: boom$", err)

    opts.edge_cost = nil
    local _, after = g:find(1, 1, 8, 8, opts)
    assert.are.equal(before.cost, after.cost)
    inf:set(1, 1, 3) -- not "in use" any more
    claims:claim("b", { { x = 5, y = 5 } })
    g:set_cost(8, 1, 2)
  end)

  it("a callback may call find on the same grid and on another", function()
    local g = astar.grid(10, 10)
    local other = astar.grid(5, 5)
    local inner_costs = {}
    local path, info = g:find(1, 1, 10, 10, {
      node_cost = function(x, y)
        local _, i = g:find(1, 1, x, y)
        local _, j = other:find(1, 1, 5, 5)
        inner_costs[#inner_costs + 1] = { i.cost, math.max(x - 1, y - 1) + (SQRT2 - 1) * math.min(x - 1, y - 1), j.cost }
        return 0
      end,
    })
    assert.is_table(path)
    assert.is_true(oracle.near(info.cost, 9 * SQRT2))
    for _, c in ipairs(inner_costs) do
      assert.is_true(oracle.near(c[1], c[2]))
      assert.is_true(oracle.near(c[3], 4 * SQRT2))
    end
  end)

  it("refuses changes to what the running query reads", function()
    local g = astar.grid(5, 5)
    local inf = astar.influence(5, 5)
    local claims = astar.claims(g)
    local free_layer = astar.influence(5, 5)
    local attempts = {
      function() g:set_cost(2, 2, 3) end,
      function() g:set_blocked(2, 2, true) end,
      function() g:fill(2) end,
      function() g:load({ ".....", ".....", ".....", ".....", "....." }) end,
      function() inf:set(1, 1, 2) end,
      function() inf:add(1, 1, 2) end,
      function() inf:fill(2) end,
      function() claims:claim("x", { { x = 1, y = 1 } }) end,
      function() claims:advance("x", 1) end,
      function() claims:release("x") end,
      function() getmetatable(g).__gc(g) end, -- freeing by hand while the query runs
      function() getmetatable(inf).__gc(inf) end,
      function() getmetatable(claims).__gc(claims) end,
    }
    for i, attempt in ipairs(attempts) do
      local seen
      g:find(1, 1, 5, 5, { influence = inf, claims = claims, node_cost = function()
        if not seen then
          local ok, err = pcall(attempt)
          seen = { ok, err }
        end
      end })
      assert.is_false(seen[1], "attempt " .. i)
      assert.matches("in use", seen[2])
    end
    -- what the query does not read may change
    local changed = false
    g:find(1, 1, 5, 5, { node_cost = function()
      if not changed then free_layer:set(1, 1, 5); changed = true end
    end })
    assert.are.equal(5, free_layer:get(1, 1))
    -- and afterwards everything is writable again
    g:set_cost(2, 2, 3)
    inf:set(1, 1, 2)
    claims:claim("x", { { x = 1, y = 1 } })
    assert.are.equal(3, g:get_cost(2, 2))
  end)

  it("collectgarbage inside a callback is safe", function()
    local g = astar.grid(10, 10)
    local opts
    opts = {
      influence = { { astar.influence(10, 10, 1), 1 } },
      claims = astar.claims(g),
      node_cost = function()
        opts.influence, opts.claims = nil, nil -- drop the only references
        collectgarbage()
        collectgarbage()
      end,
    }
    local _, info = g:find(1, 1, 10, 10, opts)
    assert.is_true(oracle.near(info.cost, 9 * SQRT2 + 9))
  end)

  it("coroutine.yield inside a callback is an error, not a crash", function()
    local g = astar.grid(5, 5)
    local co = coroutine.create(function()
      return g:find(1, 1, 5, 5, { node_cost = function() coroutine.yield(1) end })
    end)
    local ok, err = coroutine.resume(co)
    assert.is_false(ok)
    assert.matches("yield", err)
    local path = g:find(1, 1, 5, 5)
    assert.are.equal(5, #path)
  end)

  it("callable tables work as callbacks", function()
    local g = astar.grid(3, 1)
    local cb = setmetatable({}, { __call = function() return 1 end })
    local _, info = g:find(1, 1, 3, 1, { node_cost = cb })
    assert.are.equal(4, info.cost)
  end)
end)
