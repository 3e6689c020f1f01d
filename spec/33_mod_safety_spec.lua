-- Safe for mods (issue 15): a script's metamethods and callbacks may close, collect or change
-- anything while a call reads its tables; every such call ends in a clear error or a right
-- answer, never in a crash (the CI runs this file under ASan + UBSan and valgrind too), and
-- every object not closed stays usable.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer rounds under valgrind

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

local function close(object) getmetatable(object).__gc(object) end

-- How a message names io.stdout: by its __name, which 5.1, 5.2 and LuaJIT do not set.
local FILE = (_VERSION == "Lua 5.1" or _VERSION == "Lua 5.2") and "userdata" or "FILE%*"

-- A table whose every read of a missing key runs `action` first (once).
local function trap(action, fields)
  local done = false
  return setmetatable(fields or {}, { __index = function()
    if not done then done = true; action() end
  end })
end

-- The grid still answers a plain query, and right.
local function works(grid)
  local path, info = grid:find(1, 1, grid.width, grid.height)
  assert.is_truthy(path)
  local world = { w = grid.width, h = grid.height, cost = {} }
  for y = 1, grid.height do
    world.cost[y] = {}
    for x = 1, grid.width do world.cost[y][x] = grid:get_cost(x, y) end
  end
  assert(oracle.near(info.cost, oracle.cost(world, 1, 1, grid.width, grid.height)))
end

describe("an __index that closes what the call reads", function()
  it("closing the grid from find's options: an error, not a crash", function()
    local g = astar.grid(4, 4)
    assert.matches("attempt to use a freed astar.Grid",
      err_of(g.find, g, 1, 1, 4, 4, trap(function() close(g) end)))
    local other = astar.grid(4, 4)
    works(other)
  end)

  it("closing a layer, claims or a mask from the options names it freed", function()
    local g = astar.grid(4, 4)
    local layer, claims, mask = astar.influence(4, 4), astar.claims(g), astar.mask(4, 4)
    assert.matches("option 'influence' is a freed astar.Influence",
      err_of(g.find, g, 1, 1, 4, 4, trap(function() close(layer) end, { influence = layer })))
    assert.matches("option 'claims' is a freed astar.Claims",
      err_of(g.find, g, 1, 1, 4, 4, trap(function() close(claims) end, { claims = claims })))
    assert.matches("option 'known' is a freed astar.Mask",
      err_of(g.find, g, 1, 1, 4, 4, trap(function() close(mask) end, { known = mask })))
    local l1, l2 = astar.influence(4, 4), astar.influence(4, 4)
    assert.matches("option 'influence'%[2%]%[1%] is a freed astar.Influence",
      err_of(g.find, g, 1, 1, 4, 4, trap(function() close(l2) end, { influence = { { l1, 1 }, { l2, 1 } } })))
    works(g)
    -- and a closed object given plainly says so too
    assert.matches("option 'influence' is a freed astar.Influence", err_of(g.find, g, 1, 1, 4, 4, { influence = layer }))
  end)

  it("closing the grid from a point table of find_nearest, find_many, distance_field", function()
    for _, call in ipairs({
      function(g, t) return g:find_nearest(1, 1, { t }) end,
      function(g, t) return g:find_many({ t }) end,
      function(g, t) return g:distance_field({ t }) end,
      function(g, t) return g:range(1, 1, 3, t) end,
      function(g, t) return g:search(1, 1, 4, 4, t) end,
    }) do
      local g = astar.grid(4, 4)
      local point = setmetatable({}, { __index = function(_, k)
        close(g)
        return ({ x = 2, y = 2, sx = 1, sy = 1, gx = 2, gy = 2 })[k]
      end })
      assert.matches("freed astar.Grid", err_of(call, g, point))
      works(astar.grid(3, 3))
    end
  end)

  it("closing the claims from the path claims:claim reads", function()
    local g = astar.grid(4, 4)
    local claims = astar.claims(g)
    local point = setmetatable({}, { __index = function(_, k) close(claims); return ({ x = 1, y = 1 })[k] end })
    assert.matches("freed astar.Claims", err_of(claims.claim, claims, "u", { point }))
    works(g)
  end)

  it("closing the graph from graph:find's options", function()
    local g = astar.graph()
    local a, b = g:add_node(0, 0), g:add_node(1, 0)
    g:add_edge(a, b)
    assert.matches("freed astar.Graph", err_of(g.find, g, a, b, trap(function() close(g) end)))
  end)

  it("closing the grid from a point of smooth: a clear error", function()
    local g = astar.grid(4, 4)
    local path = g:find(1, 1, 4, 4)
    path[2] = setmetatable({}, { __index = function(_, k) close(g); return ({ x = 2, y = 2 })[k] end })
    local ok, err = pcall(astar.smooth, g, path)
    assert.is_false(ok)
    assert.matches("freed", tostring(err))
  end)
end)

describe("every option is read once", function()
  it("an __index answering differently on a second read is not asked twice", function()
    local g = astar.grid(4, 4)
    local c = astar.claims(g)
    local reads = {}
    local opts = setmetatable({}, { __index = function(_, k)
      reads[k] = (reads[k] or 0) + 1
      if k == "claims" then return reads[k] == 1 and c or 42 end
      if k == "unit" then return "me" end
    end })
    local path = g:find(1, 1, 4, 4, opts)
    assert.is_truthy(path)
    for k, n in pairs(reads) do assert.are.equal(1, n, k) end
    assert.are.equal(1, reads.claims)
  end)

  it("options inherited through __index apply, as plain ones do", function()
    local g = astar.grid(5, 1)
    local defaults = { max_expansions = 2 }
    local _, info = g:find(1, 1, 5, 1, setmetatable({}, { __index = defaults }))
    assert.are.equal("limit", info.status)
  end)
end)

describe("metamethods check self", function()
  it("each class's metamethods and methods refuse a foreign self", function()
    local g = astar.grid(3, 3)
    local graph = astar.graph()
    local objects = {
      g, astar.influence(3, 3), astar.mask(3, 3), astar.claims(g), g:search(1, 1, 3, 3),
      (g:distance_field({ { x = 1, y = 1 } })), graph, astar.claims(graph),
    }
    for _, o in ipairs(objects) do
      local mt = getmetatable(o)
      assert.matches("expected, got " .. FILE, err_of(mt.__index, io.stdout, "width"))
      assert.matches("expected, got table", err_of(mt.__index, {}, "size"))
      assert.has_error(function() mt.__gc(io.stdout) end)
      assert.has_error(function() mt.__tostring(io.stdout) end)
      assert.matches("expected, got " .. FILE, err_of(o.size, io.stdout))
    end
    assert.has_error(function() getmetatable(astar.graph()).__index(io.stdout, "nodes") end)
  end)

  it("a script cannot change the metatables other scripts' objects use", function()
    local g = astar.grid(3, 3)
    local mt = getmetatable(g)
    assert.has_error(function() mt.__index = function() return "hacked" end end)
    -- nor raw: the stand-in is shared by every script that reads it (spec 47)
    assert.has_error(function() rawset(mt, "__index", function() return "hacked" end) end)
    assert.are.equal("function", type(astar.grid(2, 2).find))
    assert.are.equal(3, astar.grid(3, 3).width)
  end)

  it("every documented size() works on its own class", function()
    local g = astar.grid(5, 4)
    for _, o in ipairs({ g, astar.influence(5, 4), astar.mask(5, 4), astar.claims(g), g:search(1, 1, 2, 2),
                         (g:distance_field({ { x = 1, y = 1 } })) }) do
      local w, h = o:size()
      assert.are.same({ 5, 4 }, { w, h }, tostring(o))
    end
    local graph = astar.graph()
    graph:add_node(0, 0)
    graph:add_node(1, 1)
    assert.are.equal(2, graph:size())
    assert.are.equal(2, astar.claims(graph):size())
  end)
end)

describe("what a callback can reach", function()
  it("a field being built refuses to be freed or read by its own node_cost", function()
    local g = astar.grid(6, 6)
    local seen = {}
    local function node_cost()
      for level = 2, 12 do
        for i = 1, 30 do
          local ok, name, value = pcall(debug.getlocal, level, i)
          if not ok or not name then break end
          if type(value) == "userdata" and tostring(value):match("^astar%.Field") then
            seen[#seen + 1] = err_of(function() getmetatable(value).__gc(value) end)
            seen[#seen + 1] = err_of(function() return value:distance(1, 1) end)
            return 0
          end
        end
      end
    end
    local field = g:distance_field({ { x = 1, y = 1 } }, { node_cost = node_cost })
    assert.are.equal(5 * oracle.round_up(math.sqrt(2)), field:distance(6, 6)) -- steps in quanta
    -- Lua 5.4 lets a callback see a C function's values (5.1 and LuaJIT may not)
    if _VERSION == "Lua 5.4" then assert(#seen > 0, "the callback did not reach the field") end
    if #seen > 0 then
      assert.matches("in use", seen[1])
      assert.matches("being built", seen[2])
    end
  end)

  it("a closed search does not step, and does not answer with another query's path", function()
    local g = astar.grid(4, 4)
    local j = g:search(1, 1, 4, 4)
    j:step(1)
    getmetatable(j).__gc(j)
    g:find(2, 2, 3, 3)
    assert.matches("freed astar.Search", err_of(j.step, j))
    assert.matches("freed astar.Search", err_of(j.result, j))
    works(g)
  end)

  it("a unit that claims after its search was made is still itself", function()
    local g = astar.grid(10, 1)
    local claims = astar.claims(g)
    local opts = { claims = claims, unit = "me", claim_penalty = 100 }
    local job = g:search(1, 1, 10, 1, opts)
    local path = g:find(1, 1, 10, 1)
    claims:claim("me", path)
    assert.are.equal("found", (job:step()))
    local _, info = job:result()
    local _, finfo = g:find(1, 1, 10, 1, opts)
    assert.are.equal(9, finfo.cost)
    assert.are.equal(finfo.cost, info.cost)
    -- and another unit's claim made between steps counts
    local job2 = g:search(1, 1, 10, 1, { claims = claims, unit = "you", claim_penalty = 100 })
    job2:step(1)
    local _, info2 = g:find(1, 1, 10, 1, { claims = claims, unit = "you", claim_penalty = 100 })
    job2:step()
    assert.are.equal(info2.cost, select(2, job2:result()).cost)
    assert.are.equal(909, info2.cost)
  end)
end)

describe("unbounded inputs are refused up front", function()
  it("load_movingai refuses a file that is no text, before reading it all", function()
    -- A file of NUL bytes on every platform; and an endless one where there is /dev/zero (POSIX:
    -- Windows has none).
    local name = os.tmpname()
    local f = assert(io.open(name, "wb"))
    f:write(string.rep("\0", 100000))
    f:close()
    local files = { name }
    local zero = io.open("/dev/zero", "rb")
    if zero then
      zero:close()
      files[2] = "/dev/zero"
    end
    for _, file in ipairs(files) do
      assert.matches("not a text file", err_of(astar.load_movingai, file))
      assert.matches("not a text file", err_of(astar.load_scen, file))
    end
    os.remove(name)
  end)
end)

describe("extreme values", function()
  it("numbers beyond 1e100 are refused where they enter, so no sum overflows", function()
    local g = astar.grid(4, 4)
    local a = astar.influence(4, 4)
    assert.matches("1e100", err_of(a.set, a, 1, 1, 1e308))
    assert.matches("1e100", err_of(g.set_cost, g, 1, 1, 1e308))
    assert.matches("1e100", err_of(g.find, g, 1, 1, 4, 4, { influence = { { a, 1e101 } } }))
    assert.matches("1e100", err_of(g.find, g, 1, 1, 4, 4, { claims = astar.claims(g), claim_penalty = 1e200 }))
    assert.matches("node_cost returned .* for %(%d, 1%)",
      err_of(g.find, g, 1, 1, 4, 1, { node_cost = function() return 1e308 end }))
    assert.matches("heuristic returned",
      err_of(g.find, g, 1, 1, 4, 1, { heuristic = function() return 1e200 end }))
    works(g)
  end)

  it("the largest values give right answers, not a silent 'unreachable'", function()
    local g = astar.grid(30, 30)
    local a, b = astar.influence(30, 30, 1e100), astar.influence(30, 30, 1e100)
    local path, info = g:find(1, 1, 30, 30, { influence = { { a, 1e100 }, { b, -1e100 } } })
    assert.is_truthy(path)
    assert(oracle.near(info.cost, 29 * math.sqrt(2)), info.cost)
    g:fill(1e100)
    path, info = g:find(1, 1, 30, 30, { influence = a, node_cost = function() return 1e100 end })
    assert.is_truthy(path)
    assert(oracle.near(info.cost, 29 * (1e100 * math.sqrt(2) + 1e100 * 1e0 + 1e100)), info.cost)
    local far = astar.grid(2000, 1, { cost = 1e100 })
    path, info = far:find(1, 1, 2000, 1, { turn_penalty = 1e100, noise = 1e100 })
    assert.is_truthy(path)
    assert(info.cost >= 1999e100 and info.cost < math.huge)
  end)
end)

describe("embedded NUL bytes", function()
  it("are refused in paths, option keys and names", function()
    local g = astar.grid(4, 4)
    assert.matches("NUL", err_of(astar.load_movingai, "spec/maps/rooms24x18.map\0x"))
    assert.matches("NUL", err_of(astar.load_scen, "spec/maps/rooms24x18.map.scen\0x"))
    assert.matches("unknown option 'max_cost", err_of(g.find, g, 1, 1, 4, 4, { ["max_cost\0x"] = 3 }))
    assert.matches("option 'diagonal' must be", err_of(g.find, g, 1, 1, 4, 4, { diagonal = "never\0junk" }))
    assert.matches("option 'diagonal' must be", err_of(astar.grid, 2, 2, { diagonal = "never\0junk" }))
    assert.matches("option 'heuristic' must be", err_of(g.find, g, 1, 1, 4, 4, { heuristic = "zero\0" }))
    local layer = astar.influence(3, 3)
    assert.has_error(function() layer:stamp(1, 1, 1, 1, "linear\0junk") end)
  end)
end)

describe("defects a new user hit", function()
  it("claim_window = 0 counts two units swapping cells head-on", function()
    local g = astar.grid(10, 3)
    for x = 1, 10 do g:set_blocked(x, 1, true); g:set_blocked(x, 3, true) end
    local claims = astar.claims(g)
    local theirs = {}
    for x = 10, 1, -1 do theirs[#theirs + 1] = { x = x, y = 2 } end
    claims:claim("them", theirs)
    local _, info = g:find(1, 2, 10, 2, { claims = claims, unit = "me", claim_window = 0 })
    assert(info.cost > 9, "passed through each other at no cost: " .. info.cost)
    assert.are.equal(9 + 5, info.cost) -- they meet once, between two steps
  end)

  it("manhattan on an 8-connected grid is refused as hex grids refuse square distances", function()
    local g = astar.grid(5, 5)
    assert.matches("not admissible", err_of(g.find, g, 1, 1, 5, 5, { heuristic = "manhattan" }))
    assert.matches("not admissible",
      err_of(g.find, g, 1, 1, 5, 5, { heuristic = "manhattan", diagonal = "always" }))
    assert.is_truthy(g:find(1, 1, 5, 5, { heuristic = "manhattan", diagonal = "never" }))
    local four = astar.grid(5, 5, { diagonal = "never" })
    assert.is_truthy(four:find(1, 1, 5, 5, { heuristic = "manhattan" }))
  end)

  it("type errors name the expected type and what was given by its __name", function()
    local g = astar.grid(3, 3)
    assert.matches("astar.Grid expected, got " .. FILE, err_of(g.find, io.stdout, 1, 1, 2, 2))
    assert.matches("must be an astar.Claims, got astar.Grid", err_of(g.find, g, 1, 1, 2, 2, { claims = g }))
  end)
end)

describe("finalizers", function()
  -- Making a table or a userdata may run the collector, and so a finalizer: Lua code that may
  -- close what a call already checked. Each call checks again after what it makes.
  it("a __gc that closes an object while a call makes its tables is an error, not a crash", function()
    collectgarbage("setpause", 10)
    collectgarbage("setstepmul", 1000)
    local function bomb(o) setmetatable({}, { __gc = function() pcall(getmetatable(o).__gc, o) end }) end
    local function graph()
      local gr = astar.graph()
      gr:add_node(0, 0)
      gr:add_node(1, 0)
      gr:add_edge(1, 2)
      return gr
    end
    for _ = 1, scale(300) do
      local g = astar.grid(3, 3); bomb(g); pcall(g.distance_field, g, { { x = 1, y = 1 } })
      g = astar.grid(3, 3); bomb(g); pcall(g.range, g, 1, 1, 3)
      local f = astar.grid(3, 3):distance_field({ { x = 1, y = 1 } })
      bomb(f); pcall(f.path, f, 3, 3); bomb(f); pcall(f.cells, f)
      local gr = graph(); bomb(gr); pcall(astar.claims, gr)
      gr = graph()
      local c = astar.claims(gr); bomb(c); pcall(c.claim, c, "u", { 1, 2 })
      c = astar.claims(gr); bomb(gr); pcall(c.claim, c, "u", { 1, 2 })
      gr = graph(); bomb(gr); pcall(gr.neighbours, gr, 1)
    end
    collectgarbage("setpause", 200)
    collectgarbage("setstepmul", 100)
    collectgarbage()
    works(astar.grid(4, 4))
  end)
end)
