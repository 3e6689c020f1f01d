-- Issue 15, the Lua front: no script's mistake stalls the scheduler or gets another request a
-- wrong answer, and every bad input to astar.smooth, astar.tiled, astar.debug and
-- sched:request raises an error naming what is wrong, at the caller's line.
local astar = require("astar")

local decode = require("spec.support.png").decode

local unpack = table.unpack or unpack

-- What a <close> variable does to an object at the end of its scope (Lua 5.4), on every Lua.
local function close(object)
  getmetatable(object).__gc(object)
end

-- Calls fn(...) and returns its error message without the position, after checking that the
-- position is this very line of this spec: the caller's line, never one inside the library.
local function raised_here(fn, ...)
  local args, n = { ... }, select("#", ...)
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, err = pcall(function() fn(unpack(args, 1, n)) end)
  assert(not ok, "no error")
  assert.are.equal("string", type(err))
  local file, at, msg = err:match("^(.-):(%d+): (.*)$")
  assert(file and file:match("31_front_safety_spec%.lua$") and tonumber(at) == line,
    "the error does not point at the caller's line: " .. err)
  return msg
end

-- raised_here, and the message must match `pattern`.
local function fails(pattern, fn, ...)
  local msg = raised_here(fn, ...)
  assert(msg:find(pattern), "'" .. msg .. "' does not match '" .. pattern .. "'")
end

describe("the scheduler, whatever its requests do", function()
  it("ends a request whose search fails, answers the others in the same tick", function()
    local g, doomed = astar.grid(20, 20), astar.grid(20, 20)
    local sched = astar.scheduler({ budget = 100000, concurrent = 1 })
    local answers = {}
    local function note(name)
      return function(path, info) answers[name] = { path = path, info = info } end
    end
    local value = { code = 7 } -- an error value need not be a string
    sched:request(g, 1, 1, 20, 20, { node_cost = function() error(value) end }, note("cost"), 9)
    sched:request(doomed, 1, 1, 20, 20, nil, note("freed"), 8)
    sched:request(g, 1, 1, 20, 20, nil, note("healthy"), 0)
    close(doomed)
    local _, finished = sched:tick() -- one at a time (concurrent = 1): each failure makes room
    assert.are.equal(3, finished)
    assert.are.equal(0, sched:pending())
    assert.is_nil(answers.cost.path)
    assert.are.equal("error", answers.cost.info.status)
    assert.are.equal(value, answers.cost.info.error)
    assert.is_nil(answers.freed.path)
    assert.are.equal("error", answers.freed.info.status)
    assert.matches("freed", answers.freed.info.error)
    local want, info = g:find(1, 1, 20, 20)
    assert.are.equal("found", answers.healthy.info.status)
    assert.are.equal(info.cost, answers.healthy.info.cost)
    assert.are.equal(#want, #answers.healthy.path)
  end)

  it("tells the rest in the same tick when a callback raises, then raises it", function()
    -- (Until issue 25 the rest waited for the next tick: a host that stopped ticking on the
    -- error left them untold.)
    local g = astar.grid(10, 10)
    local sched = astar.scheduler({ budget = 100000 })
    local told = {}
    sched:request(g, 1, 1, 10, 10, nil, function() error("callback boom", 0) end)
    sched:request(g, 1, 1, 10, 10, { edge_cost = function() error("edge boom", 0) end },
      function(_, info) told[#told + 1] = info.status .. ": " .. info.error end)
    sched:request(g, 1, 1, 10, 10, nil, function() error({ "second boom" }) end)
    sched:request(g, 1, 1, 10, 10, nil, function(_, info) told[#told + 1] = info.status end)
    local ok, err = pcall(sched.tick, sched)
    assert.is_false(ok)
    assert.are.equal("callback boom", err) -- the first, unchanged
    assert.are.same({ "error: edge boom", "found" }, told)
    assert.are.equal(0, sched:pending())
    assert.are.same({ 0, 0 }, { sched:tick() })
    assert.are.same({ "error: edge boom", "found" }, told)
  end)

  it("cancels at any time: from a cost callback, from a callback, twice, unknown tickets", function()
    local g = astar.grid(30, 30)
    local sched = astar.scheduler({ budget = 100000, concurrent = 3 })
    local told, tickets, cancelled = {}, {}, nil
    -- The first node any of the running three looks at cancels all four requests, itself
    -- included, while the tick is going through the running ones.
    local function hook()
      if cancelled then return end
      cancelled = {}
      for _, t in ipairs({ tickets[1], tickets[2], tickets[3], tickets[4], tickets[2], 12345 }) do
        cancelled[#cancelled + 1] = sched:cancel(t)
      end
      cancelled[#cancelled + 1] = sched:cancel(nil)
    end
    for i, p in ipairs({ { 1, 1, 30, 30 }, { 30, 30, 1, 1 }, { 1, 30, 30, 1 }, { 1, 1, 2, 2 } }) do
      tickets[i] = sched:request(g, p[1], p[2], p[3], p[4], { node_cost = hook },
        function() told[#told + 1] = i end, -i) -- 4 waits: 3 run at once
    end
    local _, finished = sched:tick()
    assert.are.same({ true, true, true, true, false, false, false }, cancelled)
    assert.are.same({}, told)
    assert.are.equal(0, finished)
    assert.are.equal(0, sched:pending())
    sched:request(g, 1, 1, 30, 30, nil, function() told[#told + 1] = "after" end)
    sched:tick()
    assert.are.same({ "after" }, told)
    -- a callback cancels a request that finished in the same tick, not told yet: never told
    told = {}
    local second
    sched:request(g, 1, 1, 2, 2, nil, function() told[#told + 1] = "first"; assert.is_true(sched:cancel(second)) end)
    second = sched:request(g, 1, 1, 3, 3, nil, function() told[#told + 1] = "second" end)
    sched:tick()
    assert.are.same({ "first" }, told)
    assert.is_false(sched:cancel(second))
    assert.are.equal(0, sched:pending())
  end)

  it("ends a request whose cost callback ticks its own scheduler", function()
    local g = astar.grid(10, 10)
    local sched = astar.scheduler({ budget = 1000 })
    local answer
    sched:request(g, 1, 1, 10, 10, { node_cost = function() sched:tick() end }, function(_, info) answer = info end)
    sched:tick()
    assert.are.equal("error", answer.status)
    assert.matches("tick called from a cost callback", answer.error)
  end)

  it("request: errors name 'request' and its own argument numbers, at the caller's line", function()
    local sched = astar.scheduler()
    local g, freed = astar.grid(5, 5), astar.grid(5, 5)
    close(freed)
    local ok = function() end
    local rq = sched.request
    -- (#2 to #6 past their types: search's reasons, in the C module's words, matched loosely)
    fails("^bad argument #1 to 'request' %(astar.Grid expected, got table%)$", rq, sched, {}, 1, 1, 5, 5, nil, ok)
    fails("^bad argument #1 to 'request' %(astar.Grid expected, got astar.Graph%)$", rq, sched, astar.graph(), 1, 1, 5, 5,
      nil, ok)
    fails("^bad argument #1 to 'request' %(attempt to use a freed astar.Grid%)$", rq, sched, freed, 1, 1, 5, 5, nil, ok)
    fails("^bad argument #2 to 'request' %(number expected, got string%)$", rq, sched, g, "1", 1, 5, 5, nil, ok)
    fails("^bad argument #5 to 'request' %(number expected, got nil%)$", rq, sched, g, 1, 1, 5, nil, nil, ok)
    fails("^bad argument #4 to 'request' %(.*got 0%)$", rq, sched, g, 1, 1, 0, 5, nil, ok)
    fails("^bad argument #3 to 'request' %(.*1%.5", rq, sched, g, 1, 1.5, 5, 5, nil, ok)
    fails("^bad argument #6 to 'request' %(.*'influnce'", rq, sched, g, 1, 1, 5, 5,
      { influnce = astar.influence(5, 5) }, ok)
    fails("^bad argument #6 to 'request' %(options table or nil expected, got number%)$", rq, sched, g, 1, 1, 5, 5, 7, ok)
    fails("^bad argument #7 to 'request' %(function expected, got nil%)$", rq, sched, g, 1, 1, 5, 5)
    fails("^bad argument #8 to 'request' %(number expected, got string%)$", rq, sched, g, 1, 1, 5, 5, nil, ok, "high")
    fails("^bad argument #8 to 'request' %(priority must be a finite number", rq, sched, g, 1, 1, 5, 5, nil, ok, 1 / 0)
    fails("^bad argument #1 to 'tick' %(number expected, got string%)$", sched.tick, sched, "all")
    assert.are.equal(0, sched:pending())
  end)
end)

describe("astar.smooth's errors", function()
  it("point at the caller's line and name what is wrong", function()
    local g, freed, hex = astar.grid(5, 5), astar.grid(5, 5), astar.grid(5, 5, { topology = "hex" })
    close(freed)
    local path = { { x = 1, y = 1 }, { x = 5, y = 5 } }
    local s = astar.smooth
    fails("^bad argument #1 to 'smooth' %(astar.Grid expected, got number%)$", s, 5, path)
    fails("^bad argument #1 to 'smooth' %(astar.Grid expected, got table%)$", s, { width = 5, height = 5 }, path)
    fails("^bad argument #1 to 'smooth' %(attempt to use a freed astar.Grid%)$", s, freed, path)
    fails("^bad argument #2 to 'smooth' %(table expected, got string%)$", s, g, "path")
    fails("^bad argument #2 to 'smooth' %(path point 2 is not a cell of the 5x5 grid%)$", s, g,
      { { x = 1, y = 1 }, { x = 6, y = 1 } })
    fails("^bad argument #3 to 'smooth' %(options table or nil expected, got number%)$", s, g, path, 3)
    fails("^bad argument #3 to 'smooth' %(unknown option 'diagnoal'%)$", s, g, path, { diagnoal = "never" })
    fails("^bad argument #3 to 'smooth' %(option 'diagonal' must be", s, g, path, { diagonal = "sideways" })
    fails("^bad argument #3 to 'smooth' %(option 'diagonal' does not apply to a hex grid%)$", s, hex, path,
      { diagonal = "never" })
  end)
end)

describe("astar.tiled on malformed maps", function()
  -- A good 2x1 map; changes.top / changes.layer / changes.set replace fields of the map, its
  -- one tile layer and its one tileset (NONE removes one).
  local NONE = {}
  local function map(changes)
    local m = {
      width = 2, height = 1,
      layers = { { type = "tilelayer", name = "l", width = 2, height = 1, data = { 1, 2 } } },
      tilesets = { { firstgid = 1, tiles = { { id = 0, properties = { { name = "cost", value = 2 } } } } } },
    }
    for part, target in pairs({ top = m, layer = m.layers[1], set = m.tilesets[1] }) do
      for k, v in pairs(changes[part] or {}) do
        if v == NONE then target[k] = nil else target[k] = v end
      end
    end
    return m
  end
  local grid = astar.tiled.grid

  it("reads the good one (the base of the malformed ones below)", function()
    local g, info = grid(map({}), { property = "cost" })
    assert.are.same({ 2, 1 }, { g:get_cost(1, 1), g:get_cost(2, 1) })
    assert.are.same({ width = 2, height = 1, layer = "l", orientation = "orthogonal", tiles = 2 }, info)
  end)

  it("names what is wrong, at the caller's line", function()
    local nan = 0 / 0
    local cases = {
      -- { pattern, changes [, opts] }
      { "the map's 'layers' must be a list, got nil", { top = { layers = NONE } } },
      { "the map's 'layers' must be a list, got string", { top = { layers = "ground" } } },
      { "the map's 'layers' must be a list, got table", { top = { layers = { ground = {} } } } },
      { "layers%[1%] is not a layer, got number", { top = { layers = { 5 } } } },
      { "no tile layer in the map", { top = { layers = { { type = "objectgroup" } } } } },
      { "layer 'l': width must be a positive integer, got nil", { top = { width = NONE }, layer = { width = NONE } } },
      { "layer 'l': width must be a positive integer, got 2", { layer = { width = "2" } } },
      { "layer 'l': width must be a positive integer, got 0", { layer = { width = 0 } } },
      { "layer 'l': width must be a positive integer, got %-2", { layer = { width = -2 } } },
      { "layer 'l': width must be a positive integer, got 1.5", { layer = { width = 1.5 } } },
      { "layer 'l': height must be a positive integer, got .*nan", { layer = { height = nan } } },
      { "layer 'l': height must be a positive integer, got inf", { layer = { height = math.huge } } },
      { "layer 'l': height must be a positive integer, got table", { top = { height = {} }, layer = { height = NONE } } },
      { "layer 'l': data must be a list of gids, got nil", { layer = { data = NONE } } },
      { "layer 'l': data must be a list of gids, got string", { layer = { data = "1,2" } } },
      { "layer 'l': data must be a list of gids, got table", { layer = { data = { a = 1 } } } },
      { "layer 'l': data must hold 2 tiles, got 1", { layer = { data = { 1 } } } },
      { "layer 'l': data must hold 2 tiles, got 3", { layer = { data = { 1, 1, 1 } } } },
      { "layer 'l': tile 2 of the data is not a gid %(an integer 0..2^32%-1%), got x", { layer = { data = { 1, "x" } } } },
      { "layer 'l': tile 2 of the data is not a gid.*got %-1", { layer = { data = { 1, -1 } } } },
      { "layer 'l': tile 1 of the data is not a gid.*got 0.5", { layer = { data = { 0.5, 1 } } } },
      { "layer 'l': tile 2 of the data is not a gid.*nan", { layer = { data = { 1, nan } } } },
      { "layer 'l': tile 2 of the data is not a gid.*got 4294967296", { layer = { data = { 1, 2 ^ 32 } } } },
      { "layer 'l': encoding 'xml' is not supported %(csv or base64%)", { layer = { encoding = "xml" } } },
      { "layer 'l': base64 data must be a string, got table", { layer = { encoding = "base64" } } },
      { "layer 'l': base64 data must be a string, got nil", { layer = { encoding = "base64", data = NONE } } },
      { "layer 'l': bad base64 data", { layer = { encoding = "base64", data = "AQAA*AAA" } } },
      { "layer 'l': 4 bytes of data for 2 tiles", { layer = { encoding = "base64", data = "AQAAAA==" } } },
      { "layer 'l': 12 bytes of data for 2 tiles", { layer = { encoding = "base64", data = "AQAAAAEAAAABAAAA" } } },
      { "layer 'l': compressed data %(gzip%)", { layer = { encoding = "base64", compression = "gzip", data = "" } } },
      { "layer 'l': compressed data %(true%)", { layer = { encoding = "base64", compression = true, data = "" } } },
      { "infinite maps %(chunks%) are not supported", { top = { infinite = true } } },
      { "orientation '5' is not supported", { top = { orientation = 5 } } },
      { "hexagonal maps must stagger rows", { top = { orientation = "hexagonal", staggeraxis = "x" } } },
      { "a 40000x1 grid: .*width out of range", { layer = { width = 40000, data = (function()
        local d = {}
        for i = 1, 40000 do d[i] = 1 end
        return d
      end)() } } },
      -- tilesets, read for a tile property
      { "the map's 'tilesets' must be a list, got string", { top = { tilesets = "terrain" } }, { property = "cost" } },
      { "tilesets%[1%] is not a tileset, got boolean", { top = { tilesets = { true } } }, { property = "cost" } },
      { "tilesets%[1%]: 'firstgid' must be a positive integer, got nil", { set = { firstgid = NONE } }, { property = "cost" } },
      { "tilesets%[1%]: 'firstgid' must be a positive integer, got 0", { set = { firstgid = 0 } }, { property = "cost" } },
      { "tilesets%[1%]: 'firstgid' must be a positive integer, got 1", { set = { firstgid = "1" } }, { property = "cost" } },
      { "tilesets%[1%]: 'tiles' must be a list, got number", { set = { tiles = 3 } }, { property = "cost" } },
      { "tilesets%[1%].tiles%[1%] is not a tile, got string", { set = { tiles = { "grass" } } }, { property = "cost" } },
      { "tilesets%[1%].tiles%[1%]: 'id' must be an integer >= 0, got nil", { set = { tiles = { {} } } },
        { property = "cost" } },
      { "tilesets%[1%].tiles%[1%]: 'properties' must be a list of {name=, value=}, got table",
        { set = { tiles = { { id = 0, properties = { cost = 2 } } } } }, { property = "cost" } },
      { "tilesets%[1%].tiles%[1%].properties%[1%] is not a {name=, value=} property",
        { set = { tiles = { { id = 0, properties = { { value = 2 } } } } } }, { property = "cost" } },
      { "tile 1 at %(1, 1%), cost from property 'cost': .*got string",
        { set = { tiles = { { id = 0, properties = { { name = "cost", value = "cheap" } } } } } }, { property = "cost" } },
      { "tile 1 at %(1, 1%), cost from the legend: .*%-3$", {}, { legend = { [1] = -3 } } },
      { "tile 2 at %(2, 1%), cost from option 'default': .*got 0$", {}, { legend = { [1] = 2 }, default = 0 } },
    }
    for _, case in ipairs(cases) do
      fails("^astar%.tiled: " .. case[1], grid, map(case[2]), case[3])
    end
  end)

  it("JSON text and options: errors at the caller's line", function()
    fails("^astar%.tiled: bad JSON", grid, "{ \"width\": ")
    fails("^astar%.tiled: the JSON text is not a map %(an object%), got number", grid, "42")
    fails("^astar%.tiled: the JSON text is not a map", grid, "null")
    fails("^astar%.tiled: the map's 'layers' must be a list, got nil", grid, "{}")
    fails("^bad argument #1 to 'grid' %(Tiled map table or JSON text expected, got number%)$", grid, 42)
    fails("^bad argument #2 to 'grid' %(options table or nil expected, got string%)$", grid, map({}), "cost")
    fails("^bad argument #2 to 'grid' %(unknown option 'propety'%)$", grid, map({}), { propety = "cost" })
  end)

  it("gives sizes as integers, floats in the map or not (lua-cjson decodes every number as one)", function()
    local m = map({ top = { width = 2.0, height = 1.0 }, layer = { width = 2.0, height = 1.0, data = { 1.0, 2.0 } } })
    local _, info = grid(m, { legend = { [2] = 3 } })
    assert.are.same({ 2, 1 }, { info.width, info.height })
    if math.type then
      assert.are.equal("integer", math.type(info.width))
      assert.are.equal("integer", math.type(info.height))
    end
    local _, from_text = grid('{"width": 2, "height": 1, "layers": [{"type": "tilelayer", "name": "l", ' ..
      '"width": 2, "height": 1, "data": [1, 2]}]}')
    if math.type then assert.are.equal("integer", math.type(from_text.width)) end
  end)
end)

describe("astar.debug, whatever it is given", function()
  it("png refuses a picture over 2^25 pixels before drawing any of it", function()
    local big = astar.grid(1100, 1100)
    -- called for the first cell drawn: drawing a picture this big would run out of memory
    local function drawing() error("png began drawing before it checked the size", 0) end
    fails("^bad argument #2 to 'png' %(70400x70400 pixels %(1100x1100 cells at scale 64%), more than 2%^25",
      astar.debug.png, big, { scale = 64, explored = drawing })
    fails("^bad argument #2 to 'png' %(6600x6600 pixels %(1100x1100 cells at scale 6%), more than 2%^25",
      astar.debug.png, big, { scale = 6, explored = drawing })
  end)

  it("ascii and png: a wall stays a wall, whatever `explored` says", function()
    local g = astar.grid(5, 3)
    g:load({ ".....", ".###.", "....." })
    local field = g:distance_field({ { x = 5, y = 3 } })
    assert.is_not_nil(field:distance(3, 2)) -- a field has a distance on walls: the cost of leaving them
    local function rows(picture)
      local out = {}
      for line in picture:gmatch("[^\n]+") do out[#out + 1] = line end
      return out
    end
    assert.are.same({ "xxxxx", "x###x", "xxxxx" }, rows(astar.debug.ascii(g, { explored = field })))
    local listed = { { x = 2, y = 2 }, { x = 3, y = 1 } }
    assert.are.same({ "..x..", ".###.", "....." }, rows(astar.debug.ascii(g, { explored = listed })))
    assert.are.same({ "xxxxx", "x###x", "xxxxx" }, rows(astar.debug.ascii(g, { explored = function() return true end })))
    local _, _, pixel = decode(astar.debug.png(g, { explored = field, scale = 1 }))
    assert.are.same(astar.debug.colors.blocked, { pixel(2, 1) })
  end)

  it("png draws hexes with rows 2, 4, ... half a cell to the right (odd-r)", function()
    local g = astar.grid(3, 3, { topology = "hex" })
    g:set_cost(1, 2, false) -- a wall at the start of the shifted row
    g:set_cost(3, 1, false) -- and at the end of an unshifted one
    local w, h, pixel = decode(astar.debug.png(g, { scale = 4 }))
    assert.are.same({ 3 * 4 + 2, 3 * 4 }, { w, h }) -- 2 pixels more for the shift
    local C = astar.debug.colors
    local function at(x, y) return { pixel(x, y) } end
    -- row 2 (pixels 4..7): the margin, then (1, 2) blocked from pixel 2 to 5, (2, 2) open
    assert.are.same(C.background, at(0, 4))
    assert.are.same(C.background, at(1, 7))
    assert.are.same(C.blocked, at(2, 4))
    assert.are.same(C.blocked, at(5, 7))
    assert.are.same(C.open, at(6, 4))
    assert.are.same(C.open, at(13, 5)) -- (3, 2) ends at the last pixel
    -- rows 1 and 3 are not shifted: (3, 1) blocked from pixel 8 to 11, then the margin
    assert.are.same(C.open, at(7, 0))
    assert.are.same(C.blocked, at(8, 0))
    assert.are.same(C.blocked, at(11, 3))
    assert.are.same(C.background, at(12, 0))
    assert.are.same(C.background, at(13, 11))
    assert.are.same(C.open, at(0, 8))
    -- so the wall (1, 2) touches its neighbours above, (1, 1) and (2, 1), and not (3, 1)'s left one
    -- a half pixel is no shift: hex pictures take scale 2 at least (and by default)
    fails("^bad argument #2 to 'png' %(option 'scale' must be an integer 2..64 on a hex grid, got 1%)$",
      astar.debug.png, g, { scale = 1 })
    local big = astar.grid(300, 2, { topology = "hex" })
    local bw = decode(astar.debug.png(big))
    assert.are.equal(300 * 2 + 1, bw)
  end)

  it("png refuses a file name with a NUL byte (it would write another file)", function()
    local name = os.tmpname()
    os.remove(name)
    fails("^bad argument #3 to 'png' %(file name contains a NUL byte%)$", astar.debug.png, astar.grid(2, 2), nil,
      name .. "\0.png")
    assert.is_nil(io.open(name, "rb"))
  end)

  it("errors name the type expected, at the caller's line", function()
    local g = astar.grid(4, 4)
    local d = astar.debug
    local freed_grid, freed_layer = astar.grid(4, 4), astar.influence(4, 4)
    local freed_field = g:distance_field({ { x = 1, y = 1 } })
    close(freed_grid)
    close(freed_layer)
    close(freed_field)
    fails("^bad argument #1 to 'ascii' %(astar.Grid expected, got table%)$", d.ascii, { get_cost = function() end })
    fails("^bad argument #1 to 'png' %(attempt to use a freed astar.Grid%)$", d.png, freed_grid)
    fails("^bad argument #1 to 'explore' %(attempt to use a freed astar.Grid%)$", d.explore, freed_grid, 1, 1, 2, 2)
    fails("^bad argument #2 to 'ascii' %(option 'path': a path or a list of paths expected, got string%)$",
      d.ascii, g, { path = "S" })
    fails("^bad argument #2 to 'ascii' %(option 'explored': a list of points, an astar.Field or a function expected, " ..
      "got number%)$", d.ascii, g, { explored = 3 })
    fails("option 'explored': a list of points, an astar.Field or a function expected, got astar.Graph", d.ascii, g,
      { explored = astar.graph() })
    fails("option 'explored': attempt to use a freed astar.Field", d.ascii, g, { explored = freed_field })
    fails("option 'explored': a field of another size than 4x4", d.png, g,
      { explored = astar.grid(5, 4):distance_field({ { x = 1, y = 1 } }) })
    fails("option 'influence' is a freed astar.Influence", d.ascii, g, { influence = freed_layer }) -- as the binding says
    fails("option 'influence' must be an astar.Influence of 4x4", d.ascii, g, { influence = astar.influence(4, 5) })
    fails("option 'claims' must be the astar.Claims of a 4x4 grid", d.ascii, g, { claims = astar.claims(astar.graph()) })
    fails("^bad argument #2 to 'explore' %(.*got 0%)$", d.explore, g, 0, 1, 2, 2)
    fails("^bad argument #6 to 'explore' %(option 'node_cost' must be a function, got number%)$", d.explore, g,
      1, 1, 2, 2, { node_cost = 3 })
    -- a callback's error comes out of explore unchanged
    local ok, err = pcall(d.explore, g, 1, 1, 4, 4, { node_cost = function() error("mine", 0) end })
    assert.is_false(ok)
    assert.are.equal("mine", err)
  end)
end)
