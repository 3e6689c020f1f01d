-- Graph distance fields and ranges (graph:distance_field, graph:range) and the nearest of many
-- targets (graph:find_nearest), checked against the
-- plain Dijkstra of spec/support/graph_oracle.lua on random graphs with every per-query cost
-- option; hostile input (closed graphs, callbacks that close or error, bad ids).
local astar = require("astar")
local oracle = require("spec.support.graph_oracle")
local rng_of = require("spec.support.dijkstra").rng
local scale = require("spec.support.scale")

local function near(a, b) return math.abs(a - b) <= 1e-9 * math.max(1, math.abs(b)) end

local function close(object) getmetatable(object).__gc(object) end

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local function random_options(rng, world, g, range) return oracle.random_options(astar, rng, world, g, range) end

-- The field answers exactly the oracle's costs, nothing more; its ways are legal and cost that;
-- its list is cheapest first.
local function check_field(world, field, want, where)
  local listed = 0
  local last = -math.huge
  for _, e in ipairs(field:nodes()) do
    listed = listed + 1
    assert(want[e.id], where .. ": node " .. e.id .. " reached, the oracle does not reach it")
    assert(near(e.cost, want[e.id]), where .. ": node " .. e.id .. " costs " .. e.cost .. ", oracle " .. want[e.id])
    assert(e.cost >= last, where .. ": not cheapest first")
    last = e.cost
    assert.are.equal(e.cost, field:get(e.id))
    local way = field:path(e.id)
    assert.are.equal(e.id, way[#way])
    assert(near(oracle.path_cost(world, way, way[1]), e.cost), where .. ": the way to " .. e.id .. " differs")
    assert.are.equal(e.cost == 0 and #way == 1 and nil or way[#way - 1], field:next(e.id))
  end
  for id in pairs(want) do
    assert(field:get(id) ~= nil, where .. ": node " .. id .. " (oracle " .. want[id] .. ") not reached")
  end
  return listed
end

describe("graph:distance_field and graph:range", function()
  it("a line: costs from the nearest source, next, path, nodes and info", function()
    local g = astar.graph()
    for i = 1, 5 do g:add_node(i, 0) end
    g:add_edge(1, 2, 1)
    g:add_edge(2, 3, 2)
    g:add_arc(3, 4, 1)
    g:add_edge(4, 5, 10)
    local f, info = g:distance_field({ 1, 5 })
    assert.are.same({ status = "done", reached = 5, expansions = 5 }, info)
    assert.are.same({ 0, 1, 3, 4, 0 }, { f:get(1), f:get(2), f:get(3), f:get(4), f:get(5) })
    assert.are.same({ 1, 2, 3 }, f:path(3))
    assert.is_nil(f:next(1))
    assert.are.equal(2, f:next(3))
    local one = g:distance_field(4) -- a single id too; arcs are followed forward only
    assert.is_nil(one:get(3))
    assert.are.equal(10, one:get(5))
    assert.is_nil(f:get(0))
    assert.is_nil(f:get(1.5))
    local cells, range, rinfo = g:range(3, 2)
    assert.are.same({ { id = 3, cost = 0 }, { id = 4, cost = 1 }, { id = 2, cost = 2 } }, cells)
    assert.are.equal(3, rinfo.reached)
    assert.is_nil(range:get(1))
  end)

  it("random graphs with every cost option: the oracle's costs, legal ways", function()
    local rng = rng_of(6301)
    local total = 0
    for round = 1, scale(250) do
      local n = rng.int(1, 24)
      local world, g = oracle.random_world(astar, rng, n)
      local is_range = rng.next() < 0.5
      local opts = random_options(rng, world, g, is_range)
      local where = string.format("round %d (%d nodes)", round, n)
      local field, info, want
      if is_range then
        local s, budget = rng.int(1, n), rng.next() * 30
        want = oracle.field(world, { s }, budget)
        local cells
        cells, field, info = g:range(s, budget, opts)
        assert.are.equal(#cells, info.reached)
        assert.are.same(cells, field:nodes())
        where = where .. string.format(" range from %d, budget %g", s, budget)
      else
        local sources = {}
        for k = 1, rng.int(1, 3) do sources[k] = rng.int(1, n) end
        local cap
        if rng.next() < 0.4 then
          cap = rng.next() * 25
          opts.max_cost = cap
        end
        want = oracle.field(world, sources, cap)
        field, info = g:distance_field(sources, opts)
        where = where .. " field from " .. table.concat(sources, ",")
      end
      assert.are.equal("done", info.status)
      local listed = check_field(world, field, want, where)
      assert.are.equal(listed, info.reached)
      assert.are.equal(listed, info.expansions, where .. ": settles each node once")
      total = total + listed
    end
    assert.is_true(total > scale(250) * 3, "reached " .. total)
  end)

  it("max_expansions stops a field (status limit) with what it settled", function()
    local rng = rng_of(6302)
    local world, g = oracle.random_world(astar, rng, 60)
    local f, info = g:distance_field({ 1 }, { max_expansions = 5 })
    local full = oracle.field(world, { 1 })
    local count = 0
    for _, e in ipairs(f:nodes()) do
      count = count + 1
      assert(near(e.cost, full[e.id]))
    end
    assert.is_true(count <= 5)
    local n = 0
    for _ in pairs(full) do n = n + 1 end
    if n > 5 then assert.are.equal("limit", info.status) end
  end)

  it("a range touches what it reaches, not the graph", function()
    -- a long line: a range of 3 steps settles 4 nodes whatever the length
    local g = astar.graph()
    for i = 1, 20000 do g:add_node(i, 0) end
    for i = 1, 19999 do g:add_edge(i, i + 1, 1) end
    local cells, _, info = g:range(1, 3)
    assert.are.equal(4, #cells)
    assert.are.equal(4, info.expansions)
    local _, finfo = g:distance_field({ 10000 }, { max_cost = 2 })
    assert.are.equal(5, finfo.reached)
  end)

  it("refuses the options of a path search, and bad sources", function()
    local g = astar.graph()
    for i = 1, 3 do g:add_node(i, 0) end
    g:add_edge(1, 2)
    for _, o in ipairs({ { heuristic = "zero" }, { weight = 2 }, { partial = true },
                         { interests = { { id = 1, value = 1 } } }, { into = {} }, { info = {} } }) do
      local k = next(o)
      assert.matches("option '" .. k .. "' does not apply to distance_field", err_of(g.distance_field, g, { 1 }, o))
      assert.matches("option '" .. k .. "' does not apply to range", err_of(g.range, g, 1, 2, o))
    end
    assert.matches("'claim_radius' does not apply to distance_field",
      err_of(g.distance_field, g, { 1 }, { claims = astar.claims(g), claim_radius = 2 }))
    assert.matches("'max_cost' does not apply to range", err_of(g.range, g, 1, 2, { max_cost = 1 }))
    assert.matches("sources%[2%] must be a node id 1..3", err_of(g.distance_field, g, { 1, 4 }))
    assert.matches("sources is empty", err_of(g.distance_field, g, {}))
    assert.matches("out of range", err_of(g.range, g, 0, 2))
    assert.matches("budget must be a number >= 0", err_of(g.range, g, 1, -1))
    assert.matches("budget must be a number >= 0", err_of(g.range, g, 1, 0 / 0))
    assert.matches("node id", err_of(g.distance_field, g, "x"))
  end)

  it("hostile input: callbacks that close the graph or error, metamethods, tampered fields", function()
    local g = astar.graph()
    for i = 1, 6 do g:add_node(i, 0) end
    for i = 1, 5 do g:add_edge(i, i + 1, 1) end
    -- an error in a callback leaves the graph usable
    assert.matches("boom", err_of(g.distance_field, g, { 1 }, { node_cost = function() error("boom") end }))
    assert.matches("boom", err_of(g.range, g, 1, 9, { edge_cost = function() error("boom") end }))
    assert.are.equal(5, g:distance_field({ 1 }):get(6))
    -- closing the graph from a callback is refused while it runs
    local closed = pcall(g.distance_field, g, { 1 }, { node_cost = function() close(g) end })
    assert.is_false(closed)
    assert.are.equal(5, g:distance_field({ 1 }):get(6))
    -- an options table whose metamethods close the graph: read before the graph is checked
    local g2 = astar.graph()
    g2:add_node(0, 0)
    local opts = setmetatable({}, { __index = function() close(g2) end })
    assert.matches("freed astar.Graph", err_of(g2.distance_field, g2, { 1 }, opts))
    -- sources read raw: a list's metamethods are not run
    local list = setmetatable({ 1 }, { __index = function() error("not raw") end })
    assert.are.equal(1, g:distance_field(list):get(2))
    -- a field whose tables a script changed errors or answers nil, never hangs
    local f = g:distance_field({ 1 })
    f.prev[1] = 6
    assert.matches("loops", err_of(f.path, f, 6))
    f.cost = nil
    assert.matches("GraphField", err_of(f.get, f, 1))
    assert.matches("GraphField", err_of(f.get, {}, 1))
    assert.matches("node id", err_of(f.next, f, "x"))
  end)

  it("find_nearest on random graphs with every cost option and target costs: the oracle's best", function()
    local rng = rng_of(6303)
    local found = 0
    for round = 1, scale(250) do
      local n = rng.int(1, 24)
      local world, g = oracle.random_world(astar, rng, n)
      local opts = random_options(rng, world, g, true)
      local s = rng.int(1, n)
      local targets, plain = {}, {}
      local costs = rng.next() < 0.5
      for k = 1, rng.int(1, 5) do
        plain[k] = { id = rng.int(1, n), cost = costs and rng.next() * 8 or 0 }
        targets[k] = costs and plain[k] or plain[k].id
      end
      local cap
      if rng.next() < 0.3 then
        cap = rng.next() * 25
        opts.max_cost = cap
      end
      local from = oracle.distances(world, s)
      local want
      for _, t in ipairs(plain) do
        if oracle.enterable(world, t.id) and from[t.id] < math.huge then
          local v = from[t.id] + t.cost
          if v <= (cap or math.huge) and (not want or v < want) then want = v end
        end
      end
      local ids, info = g:find_nearest(s, targets, opts)
      local where = string.format("round %d (%d nodes) from %d", round, n, s)
      if not want then
        assert(ids == nil, where .. ": found a path the oracle does not know")
        assert(info.status == "unreachable" or (cap and info.status == "limit"), where .. ": " .. info.status)
      else
        found = found + 1
        assert(ids, where .. ": nothing found, oracle " .. want)
        local t = plain[info.target]
        assert.are.equal(s, ids[1])
        assert.are.equal(t.id, ids[#ids])
        assert(near(info.cost + t.cost, want), where .. ": cost " .. info.cost .. " + " .. t.cost .. ", oracle " .. want)
        assert(near(oracle.path_cost(world, ids, s), info.cost), where .. ": the path's own cost differs")
      end
    end
    assert.is_true(found > scale(250) / 3, "found " .. found)
  end)

  it("find_nearest refuses a heuristic function, partial, interests and bad targets", function()
    local g = astar.graph()
    for i = 1, 3 do g:add_node(i, 0) end
    g:add_edge(1, 2)
    for _, o in ipairs({ { partial = true }, { interests = { { id = 1, value = 1 } } } }) do
      assert.matches("option '" .. next(o) .. "' does not apply to find_nearest", err_of(g.find_nearest, g, 1, { 2 }, o))
    end
    assert.matches("option 'heuristic' must be a name for find_nearest",
      err_of(g.find_nearest, g, 1, { 2 }, { heuristic = function() return 0 end }))
    assert.matches("targets%[2%] must be a node id 1..3", err_of(g.find_nearest, g, 1, { 2, 4 }))
    assert.matches("targets%[1%] must be a node id", err_of(g.find_nearest, g, 1, { { cost = 1 } }))
    assert.matches("targets%[1%].cost must be a number", err_of(g.find_nearest, g, 1, { { id = 2, cost = -1 } }))
    assert.matches("targets%[1%].cost must be a number", err_of(g.find_nearest, g, 1, { { id = 2, cost = 0 / 0 } }))
    assert.matches("targets is empty", err_of(g.find_nearest, g, 1, {}))
    local close_it = { node_cost = function() close(g) end }
    assert.is_false(pcall(g.find_nearest, g, 1, { 2 }, close_it))
    local ids, info = g:find_nearest(1, { 3, 2 }) -- still usable; 3 cannot be reached
    assert.are.same({ 1, 2 }, ids)
    assert.are.equal(2, info.target)
  end)

  it("the work limit stops a field, a range and find_nearest; they change nothing", function()
    local g = astar.graph()
    for i = 1, 50 do g:add_node(i, 0) end
    for i = 1, 49 do g:add_edge(i, i + 1, 1) end
    local calls = {
      function() return g:distance_field(1) end,
      function() return g:range(1, 30) end,
      function() return g:find_nearest(1, { 50 }) end,
    }
    for _, call in ipairs(calls) do
      astar.set_work_limit(10)
      local ok, err = pcall(call)
      astar.set_work_limit(nil)
      assert.is_false(ok)
      assert.matches("work limit reached", tostring(err))
    end
    g:find(1, 2) -- the first query packs the graph (counted once, per node and arc)
    astar.set_work_limit(6)
    local _, _, info = g:range(1, 5) -- 6 nodes settled: a unit each, within the limit
    astar.set_work_limit(nil)
    assert.are.equal(6, info.expansions)
    assert.are.equal(49, g:distance_field(1):get(50))
  end)
end)
