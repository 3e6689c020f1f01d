-- grid:find_many: many queries at once, on threads when no Lua callback is given;
-- every answer must be what grid:find gives for the same query.
local astar = require("astar")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = 20261123

local function random_world(rng, hex)
  local w, h = rng(12, 40), rng(10, 36)
  local g = hex and astar.grid(w, h, { topology = "hex" })
    or astar.grid(w, h, { diagonal = ({ "never", "always", "one_walkable", "no_corner_cut" })[rng(1, 4)] })
  local walls = rng(0, 35) / 100
  for y = 1, h do
    for x = 1, w do
      local r = math.random()
      if r < walls then g:set_cost(x, y, false)
      elseif r < walls + 0.15 then g:set_cost(x, y, rng(2, 5)) end
    end
  end
  return g, w, h
end

local function random_options(rng, g, w, h)
  local opts = {}
  if rng(1, 3) == 1 then
    local danger = astar.influence(w, h)
    for _ = 1, 4 do danger:stamp(rng(1, w), rng(1, h), rng(1, 5), rng(-3, 6)) end
    opts.influence = danger
  end
  if rng(1, 3) == 1 then
    local claims = astar.claims(g)
    for u = 1, 4 do
      local p = g:find(rng(1, w), rng(1, h), rng(1, w), rng(1, h))
      if p then claims:claim("u" .. u, p) end
    end
    opts.claims, opts.unit = claims, "u" .. rng(1, 5)
    if rng(1, 2) == 1 then opts.claim_window = rng(0, 4) end
    if rng(1, 3) == 1 then opts.claim_radius = rng(0, 8) end
  end
  if rng(1, 4) == 1 then
    local seen = astar.mask(w, h)
    for _ = 1, 3 do seen:reveal(rng(1, w), rng(1, h), rng(2, 6)) end
    opts.known = seen
  end
  if rng(1, 4) == 1 then opts.noise, opts.seed = rng(1, 4), rng(1, 1000) end
  if rng(1, 4) == 1 then opts.turn_penalty = rng(1, 3) / 2 end
  if rng(1, 4) == 1 then opts.partial = true end
  if rng(1, 5) == 1 then opts.max_expansions = rng(0, 60) end
  if rng(1, 5) == 1 then opts.max_cost = rng(5, 40) end
  if rng(1, 5) == 1 then opts.weight = 1.5 end
  return opts
end

local function random_queries(rng, w, h, n)
  local qs = {}
  for i = 1, n do
    local q = { rng(1, w), rng(1, h), rng(1, w), rng(1, h) }
    if i % 3 == 0 then q = { sx = q[1], sy = q[2], gx = q[3], gy = q[4] } end
    qs[i] = q
  end
  return qs
end

local function find(g, q, opts)
  if q.sx then return g:find(q.sx, q.sy, q.gx, q.gy, opts) end
  return g:find(q[1], q[2], q[3], q[4], opts)
end

describe("grid:find_many", function()
  it("answers as find does, on random worlds and options, with 1, 2, 4 and 8 threads", function()
    math.randomseed(SEED)
    local rng = math.random
    local worlds = 0
    for world = 1, scale(60) do
      local g, w, h = random_world(rng, world % 4 == 0)
      local opts = random_options(rng, g, w, h)
      if world % 5 == 0 then -- labels built, then cells blocked: they are over-joined now
        g:find(1, 1, w, h)
        for _ = 1, 6 do g:set_cost(rng(1, w), rng(1, h), false) end
      end
      local qs = random_queries(rng, w, h, rng(1, 40))
      -- The first find_many brings the island labels up to date, as find would.
      local results = { [1] = g:find_many(qs, opts, { threads = 1 }) }
      for _, t in ipairs({ 2, 4, 8 }) do results[t] = g:find_many(qs, opts, { threads = t }) end
      for i, q in ipairs(qs) do
        local path, info = find(g, q, opts)
        for _, t in ipairs({ 1, 2, 4, 8 }) do
          local r = results[t][i]
          assert.are.same(info, r.info, ("world %d, query %d, %d threads"):format(world, i, t))
          assert.are.same(path, r.path, ("world %d, query %d, %d threads"):format(world, i, t))
        end
      end
      assert.are.equal(#qs, #results[1])
      worlds = worlds + 1
    end
    assert.are.equal(scale(60), worlds)
  end)

  it("the default thread count and the options table are optional", function()
    local g = astar.grid(16, 16)
    local r = g:find_many({ { 1, 1, 16, 16 }, { 16, 16, 1, 1 } })
    assert.are.equal(2, #r)
    assert.are.equal("found", r[1].info.status)
    assert.are.equal(16, #r[1].path)
    assert.are.same({}, g:find_many({}))
    assert.are.same({}, g:find_many({}, nil, { threads = 3 }))
  end)

  it("a query that finds nothing has no path", function()
    local g = astar.grid(9, 5)
    for y = 1, 5 do g:set_cost(5, y, false) end
    local r = g:find_many({ { 1, 1, 9, 5 }, { 1, 1, 5, 3 }, { 1, 1, 4, 5 } }, nil, { threads = 2 })
    assert.is_nil(r[1].path)
    assert.are.same({ status = "unreachable", expansions = 0, version = g:version() }, r[1].info)
    assert.is_nil(r[2].path)
    assert.are.equal("found", r[3].info.status)
  end)

  it("with Lua callbacks, runs them on the calling thread and answers as find does", function()
    math.randomseed(SEED + 1)
    local rng = math.random
    local g, w, h = random_world(rng, false)
    local qs = random_queries(rng, w, h, 25)
    local calls = 0
    local opts = {
      node_cost = function(x, y) calls = calls + 1; return (x * 3 + y) % 4 end,
      edge_cost = function(x, y, fx, fy) if x ~= fx and y ~= fy then return 0.5 end end,
      heuristic = function(x, y, gx, gy) return math.max(math.abs(gx - x), math.abs(gy - y)) end,
    }
    local r = g:find_many(qs, opts, { threads = 4 })
    assert.is_true(calls > 0)
    for i, q in ipairs(qs) do
      local path, info = find(g, q, opts)
      assert.are.same(info, r[i].info)
      assert.are.same(path, r[i].path)
    end
  end)

  it("an error in a callback propagates like find's, and leaves the grid usable", function()
    local g = astar.grid(8, 8)
    local marker = {}
    local ok, err = pcall(g.find_many, g, { { 1, 1, 8, 8 } }, { node_cost = function() error(marker) end })
    assert.is_false(ok)
    assert.are.equal(marker, err)
    ok, err = pcall(g.find_many, g, { { 1, 1, 8, 8 } }, { node_cost = function() return -1 end })
    assert.is_false(ok)
    assert.matches("node_cost returned %-1", err)
    g:set_cost(2, 2, 3) -- not left "in use"
    assert.are.equal("found", g:find_many({ { 1, 1, 8, 8 } })[1].info.status)
  end)

  it("a callback may itself call find_many on the same grid", function()
    local g = astar.grid(8, 8)
    local inner
    local r = g:find_many({ { 1, 1, 8, 8 } }, {
      node_cost = function(x, y)
        if x == 4 and y == 4 and not inner then inner = g:find_many({ { 8, 8, 1, 1 }, { 1, 8, 8, 1 } }) end
        return 0
      end,
    })
    assert.are.equal("found", r[1].info.status)
    assert.are.equal(2, #inner)
    assert.is_true(math.abs(7 * math.sqrt(2) - inner[1].info.cost) < 1e-9)
  end)

  it("objects the queries read are in use while a callback runs", function()
    local g = astar.grid(8, 8)
    local danger = astar.influence(8, 8)
    local ok, err = pcall(g.find_many, g, { { 1, 1, 8, 8 } }, {
      influence = danger,
      node_cost = function() danger:set(1, 1, 1) end,
    })
    assert.is_false(ok)
    assert.matches("in use by a running query", err)
    danger:set(1, 1, 1)
  end)

  it("checks its arguments", function()
    local g = astar.grid(10, 8)
    local function fails(pattern, ...)
      local args = { n = select("#", ...), ... }
      -- not a tail call: LuaJIT names neither the function nor the method in an error from one
      local ok, err = pcall(function()
        local paths = g:find_many((table.unpack or unpack)(args, 1, args.n))
        return paths
      end)
      assert.is_false(ok)
      assert.matches(pattern, err)
    end
    fails("bad argument #1 to 'find_many' %(table expected, got number%)", 3)
    fails("bad argument #1 to 'find_many' %(table expected, got no value%)")
    fails("query 2 must be a table {sx, sy, gx, gy}, got string", { { 1, 1, 2, 2 }, "x" })
    fails("query 1: gx must be an integer in 1..10, got 11", { { 1, 1, 11, 2 } })
    fails("query 1: gy must be an integer in 1..8, got 9", { { sx = 1, sy = 1, gx = 2, gy = 9 } })
    fails("query 3: sx must be an integer in 1..10, got nil", { { 1, 1, 2, 2 }, { 1, 1, 2, 2 }, { sy = 1 } })
    fails("query 1: sy must be an integer in 1..8, got 1.5", { { 1, 1.5, 2, 2 } })
    fails("bad argument #2 to 'find_many' %(table or nil expected, got number%)", { { 1, 1, 2, 2 } }, 5)
    fails("bad argument #2 to 'find_many' %(unknown option 'colour'%)", { { 1, 1, 2, 2 } }, { colour = 1 })
    fails("option 'weight' must be a number in 1..1e100", { { 1, 1, 2, 2 } }, { weight = 0.5 })
    fails("bad argument #3 to 'find_many' %(table or nil expected, got number%)", { { 1, 1, 2, 2 } }, nil, 2)
    fails("bad argument #3 to 'find_many' %(unknown option 'thread'%)", { { 1, 1, 2, 2 } }, nil, { thread = 2 })
    for _, bad in ipairs({ 0, -1, 1.5, 65, "2", true }) do
      fails("bad argument #3 to 'find_many' %(option 'threads' must be an integer in 1..64, got", { { 1, 1, 2, 2 } }, {},
        { threads = bad })
    end
  end)

  it("a big batch on a 256x256 map gives find's answers on 2 and 4 threads", function()
    math.randomseed(SEED + 2)
    local rng = math.random
    local g = astar.grid(256, 256)
    for _ = 1, 9000 do g:set_cost(rng(1, 256), rng(1, 256), false) end
    local danger = astar.influence(256, 256)
    for _ = 1, 30 do danger:stamp(rng(1, 256), rng(1, 256), 10, 3) end
    local qs = random_queries(rng, 256, 256, 200)
    local opts = { influence = danger }
    local two = g:find_many(qs, opts, { threads = 2 })
    local four = g:find_many(qs, opts, { threads = 4 })
    for i, q in ipairs(qs) do
      local path, info = find(g, q, opts)
      assert.are.same(info, two[i].info)
      assert.are.same(info, four[i].info)
      assert.are.same(path, four[i].path)
    end
  end)
end)
