-- Bad input gets a clear error ("bad argument #n to 'name' (...)") and loses nothing.
local astar = require("astar")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return err
end

describe("argument errors", function()
  local g = astar.grid(64, 32)

  it("coordinates out of range name the argument and the range (self not counted)", function()
    assert.matches("bad argument #1 to 'find' %(x out of range 1..64, got 0%)",
      err_of(function() g:find(0, 1, 1, 1) end))
    assert.matches("bad argument #2 to 'find' %(y out of range 1..32, got 33%)",
      err_of(function() g:find(1, 33, 1, 1) end))
    assert.matches("bad argument #3 to 'find'", err_of(function() g:find(1, 1, 65, 1) end))
    assert.matches("bad argument #4 to 'find'", err_of(function() g:find(1, 1, 1, -1) end))
    assert.matches("bad argument #2 to 'set_cost'", err_of(function() g:set_cost(1, 0, 1) end))
    assert.matches("bad argument #1 to 'get_cost'", err_of(function() g:get_cost(99, 1) end))
  end)

  it("non-integer, NaN and non-number coordinates", function()
    assert.matches("bad argument #1 to 'find'.*2.5", err_of(function() g:find(2.5, 1, 1, 1) end))
    assert.matches("bad argument #2 to 'find'", err_of(function() g:find(1, 0 / 0, 1, 1) end))
    assert.matches("bad argument #3 to 'find' %(integer expected, got nil%)",
      err_of(function() g:find(1, 1, nil, 1) end))
    assert.matches("bad argument #4 to 'find' %(integer expected, got string%)",
      err_of(function() g:find(1, 1, 1, "2") end))
    assert.matches("bad argument #1 to 'find'", err_of(function() g:find(math.huge, 1, 1, 1) end))
  end)

  it("a NaN or an infinity reads the same in a message on every platform, whatever its sign", function()
    -- (tostring(0 / 0) is "-nan" with glibc and "nan" on Windows: the messages spell it themselves)
    local nan, huge = 0 / 0, math.huge
    for _, v in ipairs({ nan, -nan }) do
      assert.are.equal("bad argument #2 to 'find' (y must be an integer, got nan)",
        err_of(function() g:find(1, v, 1, 1) end):match("bad argument.*"))
      assert.are.equal("bad argument #3 to 'smooth' (option 'diagonal' must be \"never\", \"always\", "
        .. "\"one_walkable\" or \"no_corner_cut\", got nan)",
        err_of(function() astar.smooth(g, { { x = 1, y = 1 } }, { diagonal = v }) end):match("bad argument.*"))
    end
    assert.matches("got inf%)", err_of(function() g:find(1, huge, 1, 1) end))
    assert.matches("got %-inf%)", err_of(function() g:find(1, -huge, 1, 1) end))
    assert.matches("got %-inf%)", err_of(function() astar.smooth(g, { { x = 1, y = 1 } }, { diagonal = -huge }) end))
  end)

  it("unknown option keys are errors naming the key", function()
    assert.matches("bad argument #5 to 'find' %(unknown option 'influnce'%)",
      err_of(function() g:find(1, 1, 2, 2, { influnce = 1 }) end))
    assert.matches("unknown option", err_of(function() g:find(1, 1, 2, 2, { [1] = true }) end))
    assert.matches("bad argument #3 to 'grid'.*unknown option 'diagnal'",
      err_of(function() astar.grid(2, 2, { diagnal = "never" }) end))
    assert.matches("bad argument #5 to 'find' %(table expected",
      err_of(function() g:find(1, 1, 2, 2, "fast") end))
  end)

  it("bad option values", function()
    local cases = {
      { weight = 0.5 }, { weight = 0 / 0 }, { weight = math.huge }, { weight = "2" },
      { heuristic = "foo" }, { heuristic = 3 }, { diagonal = "bar" }, { diagonal = 1 },
      { max_expansions = -1 }, { max_expansions = 1.5 }, { max_cost = -1 }, { max_cost = 0 / 0 },
      { partial = 1 }, { node_cost = 3 }, { edge_cost = "f" }, { influence = g },
      { claims = g }, { claim_penalty = 1 },
    }
    for _, opts in ipairs(cases) do
      local k = next(opts)
      assert.matches("bad argument #5 to 'find'.*" .. k, err_of(function() g:find(1, 1, 2, 2, opts) end))
    end
  end)

  it("costs: 0, negative, NaN, -inf, true and strings are errors; false and math.huge block", function()
    for _, bad in ipairs({ 0, -1, 0 / 0, -math.huge, true, "x" }) do
      assert.matches("bad argument #3 to 'set_cost'", err_of(function() g:set_cost(1, 1, bad) end))
      assert.matches("bad argument #1 to 'fill'", err_of(function() g:fill(bad) end))
    end
    assert.are.equal(1, g:get_cost(1, 1))
    assert.matches("bad argument #3 to 'set_blocked'", err_of(function() g:set_blocked(1, 1, 1) end))
    g:set_cost(1, 1, false)
    assert.is_false(g:is_walkable(1, 1))
    g:set_cost(1, 1, math.huge)
    assert.is_false(g:is_walkable(1, 1))
    g:set_cost(1, 1, 1)
  end)

  it("grid sizes", function()
    assert.matches("bad argument #1 to 'grid' %(width out of range", err_of(function() astar.grid(0, 5) end))
    assert.matches("bad argument #2 to 'grid'", err_of(function() astar.grid(5, -1) end))
    assert.matches("bad argument #1 to 'grid'.*2.5", err_of(function() astar.grid(2.5, 3) end))
    assert.matches("bad argument #1 to 'grid'", err_of(function() astar.grid(1e6, 1e6) end))
    assert.matches("bad argument #1 to 'grid'", err_of(function() astar.grid(2 ^ 40, 2) end))
    assert.matches("bad argument #1 to 'grid'", err_of(function() astar.grid("3", 3) end))
    assert.matches("bad argument #1 to 'influence'", err_of(function() astar.influence(0, 3) end))
    assert.matches("bad argument #3 to 'grid'.*cost", err_of(function() astar.grid(3, 3, { cost = 0 }) end))
  end)

  it("a method called on the wrong object", function()
    assert.matches("bad argument #1 to 'find'", err_of(function() g.find(nil, 1, 1, 1, 1) end))
    assert.matches("astar.Grid expected", err_of(function() g.find({}, 1, 1, 1, 1) end))
    local inf = astar.influence(2, 2)
    assert.matches("astar.Grid expected", err_of(function() g.find(inf, 1, 1, 1, 1) end))
    assert.has_error(function() inf.set(g, 1, 1, 1) end)
    assert.has_error(function() g.size({}) end)
  end)

  it("leaves the objects as they were", function()
    local path, info = g:find(1, 1, 64, 32)
    assert.is_table(path)
    assert.are.equal("found", info.status)
  end)
end)
