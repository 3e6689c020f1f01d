-- astar.sandbox (issue 25): an environment per mod script and read-only views of the shared
-- world. A script in it can neither stop the game (os.exit), reach files or C modules, nor
-- change what other scripts and the game see (the world's objects, `string`, the libraries);
-- views answer as their objects do (checked against the oracle).
local astar = require("astar")
local sandbox = require("astar.sandbox")
local oracle = require("spec.support.dijkstra")

-- Runs text in a new environment (opts as sandbox.env takes them): true and its results, or
-- false and the error.
local function run(text, opts)
  local f, err = sandbox.load(text, "=mod", sandbox.env(opts))
  if not f then return false, err end
  return pcall(f)
end

local function refused(text, pattern, opts)
  local ok, err = run(text, opts)
  assert.is_false(ok, "expected an error for: " .. text)
  if pattern then assert.matches(pattern, tostring(err)) end
end

local ROWS = { "........", ".######.", "......#.", ".####.#.", "......#.", "#####.#.", "........" }

-- A world of the oracle's with a danger layer, and the real grid and layer made from it.
local function world_and_objects()
  local world = oracle.world_from_rows(ROWS)
  local grid = oracle.grid(astar, world)
  local danger = astar.influence(world.w, world.h)
  local vals = {}
  for y = 1, world.h do
    vals[y] = {}
    for x = 1, world.w do
      vals[y][x] = (x * 7 + y * 3) % 5
      danger:set(x, y, vals[y][x])
    end
  end
  return world, grid, danger, vals
end

describe("a sandboxed script's environment", function()
  it("has no way to stop the host, reach files, the debugger or C modules", function()
    refused("os.exit(3)", "exit")
    refused("return io.open('/tmp/astar-sandbox', 'w')", "io")
    refused("debug.sethook()", "debug")
    refused("return dofile('/etc/passwd')", "dofile")
    refused("return loadfile('/etc/passwd')", "loadfile")
    refused("return require('astar.core')", 'scripts may require "astar" only')
    refused("return require('io')", 'scripts may require "astar" only')
    refused("return package.loaded", "package")
    refused("return os.getenv('HOME')", "getenv")
    refused("os.remove('/tmp/x')", "remove")
  end)

  it("loads text only: no binary chunk, from load or the loader", function()
    local dumped = string.dump(function() return 1 end)
    assert.is_nil((sandbox.load(dumped, "=bin", sandbox.env())))
    refused("return string.dump(function() end)", "dump")
    local env = sandbox.env()
    local g = assert(sandbox.load("return load", "=mod", env))()
    assert.is_nil((g(dumped)))
    assert.has_error(function() g(dumped, "=b", "b") end, "load: scripts may load text only")
    assert.equals(3, g("return 1 + 2")())
  end)

  it("runs no __gc finalizer and asks the collector for its count only", function()
    refused("setmetatable({}, { __gc = function() end })", "scripts may not set __gc")
    refused("collectgarbage('stop')", 'only ask "count"')
    refused("collectgarbage()", nil)
    local ok, kib = run("return collectgarbage('count')")
    assert.is_true(ok)
    assert.is_number(kib)
  end)

  it("changes only its own copies of the libraries", function()
    local before_rep, before_floor, before_insert = string.rep, math.floor, table.insert
    local ok = run("string.rep = nil; math.floor = nil; table.insert = nil; os = nil; _G.print = nil")
    assert.is_true(ok)
    assert.equals(before_rep, string.rep)
    assert.equals(before_floor, math.floor)
    assert.equals(before_insert, table.insert)
    assert.equals("xx", ("x"):rep(2))
    -- and never reaches the string metatable every string shares
    refused("getmetatable('').__index.rep = nil")
    assert.equals("xx", ("x"):rep(2))
    local ok2, s = run("return ('ab'):upper()") -- methods on strings still work
    assert.is_true(ok2)
    assert.equals("AB", s)
  end)

  it("gets a library of its own from require('astar'), without files or the work limit", function()
    local ok, lib = run("return require('astar')")
    assert.is_true(ok)
    assert.is_nil(lib.load_movingai)
    assert.is_nil(lib.load_scen)
    assert.is_nil(lib.tiled)
    assert.is_nil(lib.set_work_limit)
    assert.is_function(lib.grid)
    lib.grid = nil -- its own table: astar's stays whole
    assert.is_function(astar.grid)
    refused("require('astar').debug.png(require('astar').grid(2, 2), nil, '/tmp/astar-sandbox.png')",
      "may not write files")
    local ok2, png = run("local a = require('astar'); return a.debug.png(a.grid(2, 2))")
    assert.is_true(ok2)
    assert.equals("\137PNG", png:sub(1, 4))
  end)

  it("prints through the host's print only", function()
    local said = {}
    assert.is_true((run("print('hello', 1)", { print = function(...) said[#said + 1] = { ... } end })))
    assert.same({ { "hello", 1 } }, said)
    assert.is_true((run("print('nobody hears this')")))
  end)
end)

describe("a sandboxed script's C library calls", function()
  it("refuse what no hook could stop, and answer as the library within bounds", function()
    refused("string.rep('', 2^62)", "rep: a result of 4611686018427387904 copies")
    refused("string.rep('ab', 2^20)", "more than a script may ask")
    if table.move then refused("table.move({}, 1, 2^40, 1, {})", "move: a range of 1099511627776") end
    refused("string.find(string.rep('a', 3000), '.-.-.-.-b')", "find: the pattern")
    -- (Lua 5.1 and LuaJIT read a table's length raw: there a __len cannot make the list long.)
    if #setmetatable({}, { __len = function() return 1 end }) == 1 then
      refused("table.insert(setmetatable({}, { __len = function() return 2^40 end }), 1, 5)",
        "insert: a list of 1099511627776 entries")
      refused("table.sort(setmetatable({}, { __len = function() return 2^30 end }))", "sort: a list")
    end
    refused("string.upper(string.rep('x', 2^20) .. 'x')", "upper: a string of 1048577 bytes")
    refused("load(string.rep(' ', 2^19) .. string.rep(' ', 2^19 + 1))", "load: a chunk")
    local ok, a, b, c, d = run([[
      local s = ("  hello  "):match("^%s*(.-)%s*$")
      local t = { 3, 1, 2 }
      table.sort(t)
      table.insert(t, 1, 0)
      return s, table.concat(t, ","), (string.gsub("a,b", ",", ";")), string.rep("ab", 3)
    ]])
    assert.is_true(ok, a)
    assert.same({ "hello", "0,1,2,3", "a;b", "ababab" }, { a, b, c, d })
  end)

  it("guards the methods of every string once guard_strings is called", function()
    local STRING_MT = debug.getmetatable("")
    local index = STRING_MT.__index
    sandbox.guard_strings()
    local ok, err = pcall(function() return ("a"):rep(3000):find(".-.-.-.-b") end)
    assert.is_false(ok)
    assert.matches("find: the pattern", err)
    assert.equals("xx", ("x"):rep(2))
    STRING_MT.__index = index -- the rest of the suite runs on the plain library
  end)
end)

describe("a view of a shared object", function()
  it("answers as its object: queries against the oracle, readers and fields", function()
    local world, grid, danger, vals = world_and_objects()
    local g, d = sandbox.view(grid), sandbox.view(danger)
    assert.equals(world.w, g.width)
    assert.equals(world.h, g.height)
    assert.equals("no_corner_cut", g.diagonal)
    assert.same({ world.w, world.h }, { g:size() })
    assert.equals(false, g:get_cost(2, 2))
    assert.equals(vals[3][4], d:get(4, 3))
    local _, info = g:find(1, 1, 8, 7)
    assert.is_true(oracle.near(info.cost, oracle.cost(world, 1, 1, 8, 7)))
    -- a view given back as a layer, alone or weighted, counts as its layer
    world.layers = { { vals = vals, weight = 2 } }
    local want = oracle.cost(world, 1, 1, 8, 7)
    for _, opts in ipairs({ { influence = d, influence_weight = 2 }, { influence = { { d, 2 } } },
      setmetatable({ influence = d }, { __index = { influence_weight = 2 } }) }) do
      local _, i = g:find(1, 1, 8, 7, opts)
      assert.is_true(oracle.near(i.cost, want), tostring(i.cost) .. " vs " .. want)
      local _, i2 = grid:find(1, 1, 8, 7, sandbox.unwrap(opts))
      assert.is_true(oracle.near(i2.cost, want))
    end
    -- and to the library a script gets
    local ok, n = run("local a = require('astar'); return #a.smooth(world.grid, (world.grid:find(1, 1, 8, 1)))",
      { world = { grid = g } })
    assert.is_true(ok, n)
    assert.equals(2, n)
    -- flee and wander too, with a view given back as the influence they walk under: the same
    -- answers as the host's own calls with the objects
    local ok2, fc, wc = run("local a = require('astar'); local _, i = a.flee(world.grid, 1, 1, { { x = 2, y = 1 } }, "
      .. "{ distance = 3.3, influence = world.danger }); local _, j = a.wander(world.grid, 1, 1, 6.3, "
      .. "{ seed = 5, influence = world.danger }); return i.x * 100 + i.y, j.x * 100 + j.y",
      { world = { grid = g, danger = d } })
    assert.is_true(ok2, fc)
    -- and as the view's methods, as the grid's own
    local ok3, fm, wm = run("local _, i = world.grid:flee(1, 1, { { x = 2, y = 1 } }, "
      .. "{ distance = 3.3, influence = world.danger }); local _, j = world.grid:wander(1, 1, 6.3, "
      .. "{ seed = 5, influence = world.danger }); return i.x * 100 + i.y, j.x * 100 + j.y",
      { world = { grid = g, danger = d } })
    assert.is_true(ok3, fm)
    assert.are.same({ fc, wc }, { fm, wm })
    local _, fi = astar.flee(grid, 1, 1, { { x = 2, y = 1 } }, { distance = 3.3, influence = danger })
    local _, wi = astar.wander(grid, 1, 1, 6.3, { seed = 5, influence = danger })
    assert.are.same({ fi.x * 100 + fi.y, wi.x * 100 + wi.y }, { fc, wc })
    assert.is_true(fc ~= 101 and wc ~= 101)
  end)

  it("can neither change nor close its object", function()
    local world, grid, danger = world_and_objects()
    local g, d = sandbox.view(grid), sandbox.view(danger)
    assert.is_nil(g.set_cost)
    assert.is_nil(g.fill)
    assert.is_nil(g.load)
    assert.is_nil(g.hierarchy)
    assert.is_nil(g.build_landmarks)
    assert.is_nil(d.set)
    assert.is_nil(d.stamp)
    assert.equals("astar.sandbox view", getmetatable(g))
    assert.has_error(function() g.find = print end)
    assert.has_error(function() setmetatable(g, nil) end)
    local ok = pcall(function() getmetatable(g).__gc(g) end)
    assert.is_false(ok)
    -- a view changed by hand is that view alone
    local other = sandbox.view(grid)
    rawset(g, "find", function() return "mine" end)
    assert.equals("mine", g:find(1, 1, 8, 7))
    local _, info = other:find(1, 1, 8, 7)
    assert.is_true(oracle.near(info.cost, oracle.cost(world, 1, 1, 8, 7)))
    -- a method called on something else is an error, not a call on the object
    assert.has_error(function() other.find({}, 1, 1, 8, 7) end, "bad self to 'find' (a view expected: call it as view:find(...))")
    assert.equals(false, grid:get_cost(2, 2)) -- the grid is as it was
  end)

  it("refuses bad arguments to env and load", function()
    assert.has_error(function() sandbox.env(5) end, "bad argument #1 to 'env' (table expected, got number)")
    assert.has_error(function() sandbox.env({ prnt = print }) end, "bad argument #1 to 'env' (unknown option prnt)")
    assert.has_error(function() sandbox.env({ print = 1 }) end,
      "bad argument #1 to 'env' (option 'print' must be a function, got number)")
    assert.has_error(function() sandbox.load(function() end, "=x", {}) end,
      "bad argument #1 to 'load' (string expected, got function)")
    assert.has_error(function() sandbox.load("return 1", "=x") end, "bad argument #3 to 'load' (table expected, got nil)")
  end)

  it("is refused for what is not an astar object", function()
    assert.has_error(function() sandbox.view({}) end, "bad argument #1 to 'view' (an astar object expected, got table)")
    assert.has_error(function() sandbox.view(io.stdout) end)
  end)
end)
