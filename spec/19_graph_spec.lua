-- astar.graph: general graphs (waypoints, navmesh polygons, boards), checked
-- against the brute-force oracle of spec/support/graph_oracle.lua.
local astar = require("astar")
local oracle = require("spec.support.graph_oracle")
local rng_of = require("spec.support.dijkstra").rng
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local function near(a, b) return math.abs(a - b) <= 1e-9 * math.max(1, math.abs(b)) end

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return err
end

-- a - b - c in a line, d off to the side: a -> d -> c is a cheap detour one way only.
local function small()
  local g = astar.graph()
  local a, b, c, d = g:add_node(0, 0), g:add_node(3, 4), g:add_node(6, 8), g:add_node(6, 0)
  g:add_edge(a, b)
  g:add_edge(b, c)
  return g, a, b, c, d
end

describe("astar.graph: building", function()
  it("ids are 1..n in insertion order; node, nodes, arcs, size", function()
    local g = astar.graph()
    assert.are.equal(0, g.nodes)
    assert.are.equal(1, g:add_node(1, 2))
    assert.are.equal(2, g:add_node(-1.5, 0, 7))
    assert.are.same({ 1, 2, 0 }, { g:node(1) })
    assert.are.same({ -1.5, 0, 7 }, { g:node(2) })
    assert.are.equal(2, g.nodes)
    assert.are.equal(2, g:size())
    g:add_edge(1, 2)
    assert.are.equal(2, g.arcs)
    assert.matches("astar.Graph%(2 nodes, 2 arcs%)", tostring(g))
  end)

  it("the default cost is the distance between the nodes, 3D when z is given", function()
    local g = astar.graph()
    g:add_node(0, 0)
    g:add_node(3, 4)
    g:add_node(3, 4, 12)
    g:add_edge(1, 2)
    g:add_arc(2, 3)
    assert.are.equal(5, g:arc_cost(1, 2))
    assert.are.equal(5, g:arc_cost(2, 1))
    assert.are.equal(12, g:arc_cost(2, 3))
    assert.is_nil(g:arc_cost(3, 2))
  end)

  it("a second add_edge / add_arc between the same nodes replaces the cost", function()
    local g, a, b = small()
    g:add_edge(a, b, 2)
    assert.are.equal(2, g:arc_cost(a, b))
    assert.are.equal(2, g:arc_cost(b, a))
    g:add_arc(b, a, 9)
    assert.are.equal(2, g:arc_cost(a, b))
    assert.are.equal(9, g:arc_cost(b, a))
    assert.are.equal(4, g.arcs)
  end)

  it("neighbours lists the arcs leaving a node, oldest first, with their costs", function()
    local g, a, b, c, d = small()
    g:add_arc(b, d, 1.5)
    local ids, costs = g:neighbours(b)
    assert.are.same({ a, c, d }, ids)
    assert.are.same({ 5, 5, 1.5 }, costs)
    assert.are.same({}, (g:neighbours(d)))
  end)

  it("remove_edge and remove_arc say whether there was anything to remove", function()
    local g, a, b, c = small()
    assert.is_true(g:remove_arc(a, b))
    assert.is_false(g:remove_arc(a, b))
    assert.is_nil(g:arc_cost(a, b))
    assert.are.equal(5, g:arc_cost(b, a))
    assert.is_true(g:remove_edge(a, b))
    assert.is_false(g:remove_edge(a, b))
    assert.is_nil((g:find(a, c)))
    g:add_edge(a, b) -- slots are reused
    assert.are.same({ a, b, c }, (g:find(a, c)))
  end)

  it("zero-cost arcs are allowed (portals), and keep the search optimal", function()
    local g = astar.graph()
    for i = 0, 9 do g:add_node(i * 10, 0) end
    for i = 1, 9 do g:add_edge(i, i + 1) end
    local portal = g:add_node(0, 50)
    g:add_arc(1, portal, 0)
    g:add_arc(portal, 10, 0)
    local ids, info = g:find(1, 10)
    assert.are.same({ 1, portal, 10 }, ids)
    assert.are.equal(0, info.cost)
  end)
end)

describe("astar.graph: find", function()
  it("returns node ids start..goal and the info of grid:find", function()
    local g, a, _, c = small()
    local ids, info = g:find(a, c)
    assert.are.same({ 1, 2, 3 }, ids)
    assert.are.equal("found", info.status)
    assert.are.equal(10, info.cost)
    assert.are.equal(3, info.length)
    assert.is_true(info.expansions >= 3)
  end)

  it("start == goal gives one node at cost 0", function()
    local g = small()
    local ids, info = g:find(2, 2)
    assert.are.same({ 2 }, ids)
    assert.are.equal(0, info.cost)
  end)

  it("arcs are directed", function()
    local g, a, _, c, d = small()
    g:add_arc(a, d, 1)
    g:add_arc(d, c, 1)
    assert.are.same({ a, d, c }, (g:find(a, c)))
    assert.are.same({ c, 2, a }, (g:find(c, a)))
  end)

  it("blocked nodes: never entered, a blocked goal is unreachable at once, a blocked start is left", function()
    local g, a, b, c = small()
    g:set_blocked(b, true)
    assert.is_true(g:is_blocked(b))
    local ids, info = g:find(a, c)
    assert.is_nil(ids)
    assert.are.equal("unreachable", info.status)
    ids, info = g:find(a, b)
    assert.is_nil(ids)
    assert.are.equal(0, info.expansions)
    assert.are.same({ b, c }, (g:find(b, c)))
    g:set_blocked(b, false)
    assert.are.same({ a, b, c }, (g:find(a, c)))
  end)

  it("max_expansions and max_cost give status limit; partial the way to the nearest node", function()
    local g = astar.graph()
    for i = 1, 20 do g:add_node(i, 0) end
    for i = 1, 19 do g:add_edge(i, i + 1) end
    local ids, info = g:find(1, 20, { max_expansions = 5 })
    assert.is_nil(ids)
    assert.are.same({ status = "limit", expansions = 5, version = g:version() }, info)
    ids, info = g:find(1, 20, { max_cost = 10 })
    assert.is_nil(ids)
    assert.are.equal("limit", info.status)
    ids, info = g:find(1, 20, { max_cost = 10, partial = true })
    assert.are.equal("partial", info.status)
    assert.are.equal("limit", info.reason)
    assert.are.equal(11, ids[#ids])
    g:set_blocked(20, true)
    ids, info = g:find(1, 20, { partial = true })
    assert.are.equal("unreachable", info.reason)
    assert.are.equal(19, ids[#ids])
    assert.are.equal(18, info.cost)
  end)

  it("the heuristic stays admissible when costs are far below the distances", function()
    -- A long detour of cheap arcs against a short direct arc that costs more.
    local g = astar.graph()
    g:add_node(0, 0)
    g:add_node(100, 0)
    for i = 1, 10 do g:add_node(50, 100 * i) end
    g:add_edge(1, 2, 50)
    g:add_edge(1, 3, 1)
    for i = 3, 11 do g:add_edge(i, i + 1, 1) end
    g:add_edge(12, 2, 1)
    local ids, info = g:find(1, 2)
    assert.are.equal(11, info.cost)
    assert.are.equal(12, #ids)
    local _, zero = g:find(1, 2, { heuristic = "zero" })
    assert.are.equal(info.cost, zero.cost)
  end)

  it("a heuristic function is used as given", function()
    local g, a, _, c = small()
    local asked = {}
    local ids = g:find(a, c, { heuristic = function(id, goal)
      asked[#asked + 1] = id
      assert.are.equal(c, goal)
      return 0
    end })
    assert.are.same({ a, 2, c }, ids)
    assert.is_true(#asked >= 2)
  end)

  -- A 10x10 grid as a graph of king moves, each arc its length times a random 1..top.
  local function king_world(rng, top)
    local world = { n = 100, pos = {}, arcs = {} }
    for id = 1, 100 do world.pos[id] = { (id - 1) % 10, math.floor((id - 1) / 10), 0 } end
    for id = 1, 100 do
      world.arcs[id] = {}
      local x, y = (id - 1) % 10, math.floor((id - 1) / 10)
      for dy = -1, 1 do
        for dx = -1, 1 do
          if (dx ~= 0 or dy ~= 0) and x + dx >= 0 and x + dx < 10 and y + dy >= 0 and y + dy < 10 then
            world.arcs[id][id + dy * 10 + dx] = math.sqrt(dx * dx + dy * dy) * rng.int(1, top)
          end
        end
      end
    end
    return world
  end

  -- As on grids (spec 02): closed nodes improve under an inconsistent heuristic, and a
  -- partial answer cut off before an improvement reaches its end reports its path's cost.
  it("a partial answer under an inconsistent heuristic costs what its path costs", function()
    local rng = rng_of(23)
    for _ = 1, scale(30) do
      local world = king_world(rng, 3)
      local g = oracle.graph(astar, world)
      local factor = {}
      for id = 1, 100 do factor[id] = rng.int(0, 100) / 100 end
      local function h(id, goal) return oracle.distance(world, id, goal) * factor[id] end
      for limit = 1, 40 do
        local ids, info = g:find(1, 100, { heuristic = h, partial = true, max_expansions = limit })
        local cost = oracle.path_cost(world, ids)
        assert.is_true(near(info.cost, cost),
          string.format("limit %d: reported %.17g, path %.17g", limit, info.cost, cost))
      end
    end
  end)

  it("a found answer under a weighted inconsistent heuristic costs what its path costs", function()
    local rng = rng_of(31)
    for _ = 1, scale(200) do
      local world = king_world(rng, 9)
      local g = oracle.graph(astar, world)
      local guess = {}
      for id = 1, 100 do guess[id] = rng.int(0, 2) end
      local function h(id) return guess[id] end
      for _, weight in ipairs({ 1, 3, 1e20 }) do
        local from, to = rng.int(1, 100), rng.int(1, 100)
        local ids, info = g:find(from, to, { heuristic = h, weight = weight })
        local cost = oracle.path_cost(world, ids)
        assert.is_true(near(info.cost, cost),
          string.format("weight %g: reported %.17g, path %.17g", weight, info.cost, cost))
      end
    end
  end)

  it("node_cost(id) and edge_cost(id, from_id) add to the step, false blocks", function()
    local g, a, b, c, d = small()
    g:add_edge(a, d)
    g:add_edge(d, c)
    local _, info = g:find(a, c, { node_cost = function(id) if id == b then return 3 end end })
    assert.are.equal(13, info.cost)
    local ids = g:find(a, c, { node_cost = function(id) if id == b then return false end end })
    assert.are.same({ a, d, c }, ids)
    local calls = {}
    ids = g:find(a, c, { edge_cost = function(id, from)
      calls[#calls + 1] = from .. ">" .. id
      if id == c and from == b then return math.huge end
    end })
    assert.are.same({ a, d, c }, ids)
    assert.is_true(#calls > 0)
  end)

  it("influence as a per-node array, as a list with weights, or as an n x 1 astar.influence", function()
    local g, a, b, c, d = small()
    g:add_edge(a, d, 6)
    g:add_edge(d, c, 6)
    local danger = { 0, 5, 0, 0 }
    assert.are.same({ a, d, c }, (g:find(a, c, { influence = danger })))
    assert.are.same({ a, b, c }, (g:find(a, c, { influence = danger, influence_weight = 0.1 })))
    local friendly = { 0, -5, 0, 0 }
    local ids, info = g:find(a, c, { influence = { { danger, 1 }, { friendly, 1 } } })
    assert.are.same({ a, b, c }, ids)
    assert.are.equal(10, info.cost)
    -- negative influence never makes a step cheaper than its arc
    local _, friendly_info = g:find(a, c, { influence = friendly })
    assert.are.equal(10, friendly_info.cost)
    local layer = astar.influence(4, 1)
    layer:set(2, 1, 5)
    assert.are.same({ a, d, c }, (g:find(a, c, { influence = layer })))
    assert.are.same({ a, d, c }, (g:find(a, c, { influence = { { layer, 2 } } })))
  end)

  it("noise is deterministic per seed", function()
    local g = astar.graph()
    for y = 0, 5 do for x = 0, 5 do g:add_node(x, y) end end
    for i = 1, 36 do
      if i % 6 ~= 0 then g:add_edge(i, i + 1) end
      if i <= 30 then g:add_edge(i, i + 6) end
    end
    local one = g:find(1, 36, { noise = 3, seed = 4 })
    assert.are.same(one, (g:find(1, 36, { noise = 3, seed = 4 })))
    local _, plain = g:find(1, 36)
    local _, noisy = g:find(1, 36, { noise = 3, seed = 4 })
    assert.is_true(noisy.cost > plain.cost)
  end)

  it("random graphs with every option: the oracle's cost, valid paths, weight bound", function()
    local rng = rng_of(2024)
    local found, weighted = 0, 0
    for round = 1, scale(300) do
      local n = rng.int(1, 14)
      local world = { n = n, pos = {}, arcs = {}, default = {}, blocked = {} }
      for i = 1, n do
        world.pos[i] = { rng.next() * 20, rng.next() * 20, rng.next() < 0.3 and rng.next() * 5 or 0 }
        world.arcs[i], world.default[i] = {}, {}
      end
      local g = astar.graph()
      for i = 1, n do g:add_node(world.pos[i][1], world.pos[i][2], world.pos[i][3]) end
      for _ = 1, rng.int(0, 3 * n) do
        local a, b = rng.int(1, n), rng.int(1, n)
        if a ~= b then
          local kind, cost = rng.int(1, 4), nil
          if kind == 2 then cost = rng.next() * 10
          elseif kind == 3 then cost = oracle.distance(world, a, b) * (0.2 + rng.next())
          elseif kind == 4 then cost = rng.next() < 0.2 and 0 or math.floor(rng.next() * 5) end
          local real = cost or oracle.distance(world, a, b)
          local both = rng.next() < 0.5
          if both then g:add_edge(a, b, cost) else g:add_arc(a, b, cost) end
          world.arcs[a][b], world.default[a][b] = real, cost == nil
          if both then world.arcs[b][a], world.default[b][a] = real, cost == nil end
        end
      end
      for i = 1, n do
        if rng.next() < 0.1 then
          world.blocked[i] = true
          g:set_blocked(i, true)
        end
      end
      local opts = {}
      if rng.next() < 0.3 then
        local vals = {}
        for i = 1, n do vals[i] = rng.next() * 6 - 2 end
        local w = 0.5 + rng.next() * 2
        world.layers = { { vals = vals, weight = w } }
        if rng.next() < 0.5 then
          opts.influence, opts.influence_weight = vals, w
        else
          local other = {}
          for i = 1, n do other[i] = rng.next() * 3 end
          world.layers[2] = { vals = other, weight = 0.5 }
          opts.influence = { { vals, w }, { other, 0.5 } }
        end
      end
      if rng.next() < 0.3 then
        local claims = astar.claims(g)
        world.claims = {}
        for u = 1, rng.int(1, 3) do
          local path = {}
          for k = 1, rng.int(1, 4) do path[k] = rng.int(1, n) end
          claims:claim(u, path)
          local pos = 1
          if rng.next() < 0.3 then
            local steps = rng.int(0, 3)
            claims:advance(u, steps)
            pos = math.min(#path, 1 + steps)
          end
          world.claims[u] = { unit = u, path = path, pos = pos }
        end
        opts.claims = claims
        if rng.next() < 0.5 then opts.unit, world.unit = 1, 1 end
        if rng.next() < 0.5 then
          opts.claim_penalty = rng.next() * 6
          world.claim_penalty = opts.claim_penalty
        end
        if rng.next() < 0.3 then
          opts.claim_radius = rng.next() * 15
          world.claim_radius = opts.claim_radius
        end
      end
      oracle.random_callbacks(rng, world, opts)
      if rng.next() < 0.2 then opts.heuristic = "zero" end
      local weight = 1
      if rng.next() < 0.2 then
        weight = 1 + rng.next() * 2
        opts.weight = weight
      end
      local s, t = rng.int(1, n), rng.int(1, n)
      local want = oracle.cost(world, s, t)
      local ids, info = g:find(s, t, opts)
      local where = string.format("round %d (%d nodes, %d -> %d)", round, n, s, t)
      if not want then
        assert(ids == nil, where .. ": found a path the oracle does not know")
        assert(info.status == "unreachable", where)
      else
        found = found + 1
        assert(ids, where .. ": nothing found, oracle " .. want)
        assert.are.equal(s, ids[1])
        assert.are.equal(t, ids[#ids])
        assert.are.equal(#ids, info.length)
        if weight == 1 then
          assert(near(info.cost, want), where .. ": cost " .. info.cost .. ", oracle " .. want)
        else
          weighted = weighted + 1
          assert(info.cost >= want - 1e-9 and info.cost <= weight * want + 1e-9,
            where .. ": weighted cost " .. info.cost .. " outside [" .. want .. ", " .. weight * want .. "]")
        end
        assert(near(oracle.path_cost(world, ids, s), info.cost), where .. ": the path's own cost differs")
      end
    end
    assert.is_true(found > scale(120), "found " .. found)
    assert.is_true(weighted > scale(10))
  end)

  it("default costs on random geometric graphs match the oracle (heuristic scale 1)", function()
    local rng = rng_of(99)
    for round = 1, scale(40) do
      local n = 30
      local world = { n = n, pos = {}, arcs = {}, default = {} }
      for i = 1, n do
        world.pos[i] = { rng.next() * 100, rng.next() * 100 }
        world.arcs[i], world.default[i] = {}, {}
      end
      for a = 1, n do
        for b = 1, n do
          if a ~= b and oracle.distance(world, a, b) < 30 then
            world.arcs[a][b], world.default[a][b] = oracle.distance(world, a, b), true
          end
        end
      end
      local g = oracle.graph(astar, world)
      local s, t = rng.int(1, n), rng.int(1, n)
      local want = oracle.cost(world, s, t)
      local ids, info = g:find(s, t)
      assert.are.equal(want == nil, ids == nil, "round " .. round)
      if want then assert(near(info.cost, want), "round " .. round) end
    end
  end)
end)

describe("astar.graph: claims by node id", function()
  it("claim, count, position, advance, release", function()
    local g = small()
    local claims = astar.claims(g)
    assert.matches("astar.GraphClaims", tostring(claims))
    claims:claim("scout", { 1, 2, 3 })
    assert.are.equal(1, claims:count(2))
    assert.are.equal(1, claims:position("scout"))
    assert.is_true(claims:advance("scout", 1))
    assert.are.equal(0, claims:count(1))
    assert.are.equal(2, claims:position("scout"))
    assert.is_true(claims:release("scout"))
    assert.is_false(claims:release("scout"))
    assert.is_nil(claims:position("scout"))
    assert.are.equal(0, claims:count(2))
  end)

  it("others' claims cost claim_penalty per unit; the querying unit's own never counts", function()
    local g, a, b, c, d = small()
    g:add_edge(a, d, 6)
    g:add_edge(d, c, 6)
    local claims = astar.claims(g)
    claims:claim("me", { a, b, c })
    assert.are.same({ a, b, c }, (g:find(a, c, { claims = claims, unit = "me" })))
    claims:claim("other", { b })
    assert.are.same({ a, d, c }, (g:find(a, c, { claims = claims, unit = "me" })))
    local _, info = g:find(a, c, { claims = claims, unit = "me", claim_penalty = 1 })
    assert.are.equal(11, info.cost)
    -- claim_radius: only units whose current node lies within that distance of the start
    assert.are.same({ a, b, c }, (g:find(a, c, { claims = claims, unit = "me", claim_radius = 4 })))
    assert.are.same({ a, d, c }, (g:find(a, c, { claims = claims, unit = "me", claim_radius = 5 })))
  end)

  it("claims made before the graph grew cover the new nodes", function()
    local g = small()
    local claims = astar.claims(g)
    claims:claim(1, { 1, 2 })
    local e = g:add_node(9, 9)
    g:add_edge(3, e)
    claims:claim(2, { 3, e })
    assert.are.equal(1, claims:count(e))
    assert.are.equal(1, claims:count(2))
    local _, info = g:find(1, e, { claims = claims })
    -- 2, 3 and e claimed once each; each step rounded up to quanta (exact sums after)
    assert.are.equal(10 + 10 + oracle.round_up(math.sqrt(10) + 5), info.cost)
  end)
end)

describe("astar.graph: callbacks and safety", function()
  it("an error inside a callback propagates unchanged and leaves the graph usable", function()
    local g, a, _, c = small()
    local boom = {}
    local ok, err = pcall(g.find, g, a, c, { node_cost = function() error(boom) end })
    assert.is_false(ok)
    assert.are.equal(boom, err)
    assert.matches("node_cost returned %-1 for node 3", err_of(g.find, g, a, c, { node_cost = function() return -1 end }))
    assert.matches("edge_cost returned a string for node", err_of(g.find, g, a, c, { edge_cost = function() return "x" end }))
    assert.matches("heuristic returned", err_of(g.find, g, a, c, { heuristic = function() return 0 / 0 end }))
    assert.matches("option 'influence' holds 'x' for node 2",
      err_of(g.find, g, a, c, { influence = { 0, "x", 0, 0 } }))
    g:add_node(1, 1) -- not "in use" any more
    assert.are.same({ a, 2, c }, (g:find(a, c)))
  end)

  it("changing the graph or its claims from inside a callback of its own query is an error", function()
    local g, a, _, c = small()
    local claims = astar.claims(g)
    local changes = {
      function() g:add_node(0, 0) end,
      function() g:add_edge(1, 4) end,
      function() g:add_arc(1, 4) end,
      function() g:remove_edge(1, 2) end,
      function() g:set_blocked(2, true) end,
      function() claims:claim("x", { 1 }) end,
    }
    for _, change in ipairs(changes) do
      assert.matches("in use by a running query", err_of(g.find, g, a, c, { claims = claims, node_cost = change }))
    end
    assert.are.equal(4, g.nodes)
    assert.is_false(g:is_blocked(2))
    assert.are.same({ a, 2, c }, (g:find(a, c)))
  end)

  it("a callback may run find on the same graph (reentrancy)", function()
    local g, a, _, c = small()
    local inner
    local ids = g:find(a, c, { node_cost = function(id)
      if id == 2 then inner = g:find(c, a) end
    end })
    assert.are.same({ a, 2, c }, ids)
    assert.are.same({ c, 2, a }, inner)
  end)

  it("objects a query reads stay alive when a callback drops every other reference", function()
    local g, a, _, c = small()
    local opts = { influence = { 0, 1, 0, 0 } }
    opts.node_cost = function()
      opts.influence = nil
      collectgarbage()
    end
    local _, info = g:find(a, c, opts)
    assert.are.equal(11, info.cost)
  end)
end)

describe("astar.graph: argument errors", function()
  local g = small()

  it("node ids: type, integer, range", function()
    assert.matches("bad argument #1 to 'add_edge' %(node 7 out of range 1..4%)", err_of(function() g:add_edge(7, 1) end))
    assert.matches("bad argument #2 to 'add_arc' %(node 0 out of range 1..4%)", err_of(function() g:add_arc(1, 0) end))
    assert.matches("bad argument #1 to 'find' %(node id must be an integer, got 1.5%)", err_of(function() g:find(1.5, 2) end))
    assert.matches("bad argument #2 to 'find' %(node id expected, got no value%)", err_of(function() g:find(1) end))
    assert.matches("bad argument #1 to 'set_blocked'", err_of(function() g:set_blocked("1", true) end))
    assert.matches("bad argument #1 to 'node'", err_of(function() g:node(0 / 0) end))
    assert.matches("bad argument #1 to 'neighbours'", err_of(function() g:neighbours(5) end))
    assert.matches("bad argument #1 to 'is_blocked'", err_of(function() g:is_blocked(-1) end))
    assert.matches("bad argument #1 to 'remove_edge'", err_of(function() g:remove_edge(9, 1) end))
    assert.matches("bad argument #2 to 'arc_cost'", err_of(function() g:arc_cost(1, 9) end))
    assert.matches("the graph has no nodes", err_of(function() astar.graph():find(1, 1) end))
  end)

  it("costs, positions, loops, flags", function()
    for _, bad in ipairs({ -1, 0 / 0, math.huge, -math.huge, "2", true }) do
      assert.matches("bad argument #3 to 'add_edge'", err_of(function() g:add_edge(1, 2, bad) end))
      assert.matches("bad argument #3 to 'add_arc'", err_of(function() g:add_arc(1, 2, bad) end))
    end
    assert.matches("bad argument #2 to 'add_edge' %(node 1 links to itself", err_of(function() g:add_edge(1, 1) end))
    assert.matches("bad argument #1 to 'add_node' %(x must be a finite number", err_of(function() g:add_node(0 / 0, 1) end))
    assert.matches("bad argument #2 to 'add_node' %(number expected", err_of(function() g:add_node(1) end))
    assert.matches("bad argument #3 to 'add_node'", err_of(function() g:add_node(1, 2, math.huge) end))
    -- the distance between two nodes must stay finite, or a default cost would be inf
    assert.matches("bad argument #1 to 'add_node' %(coordinate out of range", err_of(function() g:add_node(-1e200, 0) end))
    assert.matches("bad argument #3 to 'add_node' %(coordinate out of range", err_of(function() g:add_node(0, 0, 2e150) end))
    local far = astar.graph()
    far:add_node(-1e150, -1e150, -1e150)
    far:add_node(1e150, 1e150, 1e150)
    far:add_edge(1, 2)
    assert.is_true(far:arc_cost(1, 2) < math.huge)
    assert.are.equal("found", select(2, far:find(1, 2)).status)
    assert.matches("bad argument #2 to 'set_blocked' %(boolean expected", err_of(function() g:set_blocked(1, 1) end))
    assert.matches("bad argument #1 to 'graph'", err_of(function() astar.graph(5) end))
    assert.matches("cannot set field", err_of(function() g.nodes = 3 end))
  end)

  it("options: unknown keys and bad values name the option", function()
    assert.matches("bad argument #3 to 'find' %(unknown option 'influnce'%)",
      err_of(function() g:find(1, 3, { influnce = {} }) end))
    assert.matches("unknown option 'diagonal'", err_of(function() g:find(1, 3, { diagonal = "never" }) end))
    assert.matches("bad argument #3 to 'find' %(table expected", err_of(function() g:find(1, 3, "fast") end))
    local cases = {
      { weight = 0.5 }, { weight = math.huge }, { heuristic = "octile" }, { heuristic = 3 },
      { max_expansions = -1 }, { max_expansions = 1.5 }, { max_cost = -1 }, { partial = 1 },
      { node_cost = 3 }, { edge_cost = "f" }, { influence = 5 }, { influence = { 1, 2 } },
      { influence = { 1, 2, 3, 0 / 0 }, influence_weight = 0 / 0 }, { influence_weight = 2 },
      { influence = { { { 1, 2, 3, 4 }, "heavy" } } }, { influence = { 7 } },
      { influence = astar.influence(4, 2) }, { claims = g }, { claims = astar.claims(astar.grid(2, 2)) },
      { unit = 1 }, { claim_penalty = 1 }, { claim_radius = 1 },
      { claims = astar.claims(g), claim_penalty = -1 }, { claims = astar.claims(g), unit = {} },
      { claims = astar.claims(g), claim_radius = 0 / 0 }, { claims = astar.claims(astar.graph()) },
      { noise = -1 }, { seed = 1.5 },
    }
    for i, opts in ipairs(cases) do
      -- not a tail call: LuaJIT names neither the function nor the method in an error from one
      local ok, err = pcall(function() local path = g:find(1, 3, opts) return path end)
      assert(not ok, "case " .. i .. " did not fail")
      assert(err:match("bad argument #3 to 'find'") and err:match("option"), "case " .. i .. ": " .. err)
    end
  end)

  it("claims methods", function()
    local claims = astar.claims(g)
    assert.matches("bad argument #2 to 'claim' %(path is empty%)", err_of(function() claims:claim("u", {}) end))
    assert.matches("path%[2%] must be a node id 1..4, got 9", err_of(function() claims:claim("u", { 1, 9 }) end))
    assert.matches("path%[1%] must be a node id", err_of(function() claims:claim("u", { { x = 1, y = 1 } }) end))
    assert.matches("bad argument #1 to 'claim'", err_of(function() claims:claim(1.5, { 1 }) end))
    assert.matches("bad argument #1 to 'count'", err_of(function() claims:count(5) end))
    assert.matches("bad argument #2 to 'advance'", err_of(function() claims:advance("u", -1) end))
    assert.matches("astar.Grid or astar.Graph expected", err_of(function() astar.claims({}) end))
    claims:claim("u", { 1, 2 })
    assert.are.equal(1, claims:count(2))
  end)
end)
