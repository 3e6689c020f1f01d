-- Graphs do what grids do: a field toward its sources (graph:distance_field with toward = true,
-- over the arcs reversed, kept in step with arc writes) and find_nearest aimed by a heuristic,
-- each checked against the plain Dijkstra of spec/support/graph_oracle.lua on random one-way
-- graphs with every cost option; and the Rust `pathfinding` crate's cases of dijkstra_all,
-- dijkstra_reach, bfs_reach, bfs with many starts and ends, and dijkstra (github:evenfurther/pathfinding,
-- the files cited at each case), translated to our graph API.
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

-- A random world whose arcs are one-way in part: oracle.random_world's edges, then some of
-- their directions removed and some one-way arcs added or re-costed.
local function one_way_world(rng, n)
  local world, g = oracle.random_world(astar, rng, n)
  for _ = 1, rng.int(0, 2 * n) do
    local a, b = rng.int(1, n), rng.int(1, n)
    if a ~= b then
      if rng.next() < 0.5 then
        g:remove_arc(a, b)
        world.arcs[a][b] = nil
      else
        local cost = oracle.distance(world, a, b) * (1 + rng.next() * 2)
        g:add_arc(a, b, cost)
        world.arcs[a][b] = cost
      end
    end
  end
  return world, g
end

-- Random cost options for a field (no claim_radius: it has no start), the same in the world.
local function random_options(rng, world, g) return oracle.random_options(astar, rng, world, g) end

-- A field toward its sources answers the oracle's costs exactly, nothing more; each node's way
-- (field:path) starts there, is legal, costs that and ends at a source; next is its second node.
local function check_toward(world, field, want, sources, where)
  local is_source = {}
  for _, s in ipairs(sources) do is_source[s] = true end
  local last = -math.huge
  for _, e in ipairs(field:nodes()) do
    assert(want[e.id], where .. ": node " .. e.id .. " reached, the oracle does not reach it")
    assert(near(e.cost, want[e.id]), where .. ": node " .. e.id .. " costs " .. e.cost .. ", oracle " .. want[e.id])
    assert(e.cost >= last, where .. ": not cheapest first")
    last = e.cost
    local way = field:path(e.id)
    assert.are.equal(e.id, way[1])
    assert(is_source[way[#way]], where .. ": the way from " .. e.id .. " ends at " .. way[#way] .. ", no source")
    assert(near(oracle.path_cost(world, way, e.id), e.cost), where .. ": the way from " .. e.id .. " differs")
    assert.are.equal(way[2], field:next(e.id))
  end
  for id in pairs(want) do
    assert(field:get(id) ~= nil, where .. ": node " .. id .. " (oracle " .. want[id] .. ") not reached")
  end
end

describe("graph:distance_field toward its sources", function()
  it("a one-way ring: costs to the source, next steps, the way there", function()
    local g = astar.graph()
    for i = 1, 5 do g:add_node(i, 0) end
    g:add_arc(1, 2, 1)
    g:add_arc(2, 3, 2)
    g:add_arc(3, 4, 1)
    g:add_arc(4, 1, 7)
    g:add_arc(5, 4, 10)
    local f, info = g:distance_field(4, { toward = true })
    assert.are.same({ status = "done", reached = 5, expansions = 5 }, info)
    assert.are.same({ 4, 3, 1, 0, 10 }, { f:get(1), f:get(2), f:get(3), f:get(4), f:get(5) })
    assert.are.same({ 1, 2, 3, 4 }, f:path(1))
    assert.are.equal(2, f:next(1))
    assert.is_nil(f:next(4))
    local from = g:distance_field(4) -- the default follows the arcs forward: the cost from 4
    assert.are.same({ 7, 8, 10, 0 }, { from:get(1), from:get(2), from:get(3), from:get(4) })
    assert.is_nil(from:get(5))
    -- a blocked node keeps its cost (a unit may stand there and leave) but leads no way on
    g:set_blocked(2, true)
    f = g:distance_field(4, { toward = true })
    assert.are.equal(3, f:get(2))
    assert.is_nil(f:get(1))
    -- a blocked source is no goal: nothing reaches it
    f = g:distance_field({ 2 }, { toward = true })
    assert.are.same({}, f:nodes())
    -- max_cost and max_expansions as in the forward field
    g:set_blocked(2, false)
    f, info = g:distance_field(4, { toward = true, max_cost = 3 })
    assert.are.same({ { id = 4, cost = 0 }, { id = 3, cost = 1 }, { id = 2, cost = 3 } }, f:nodes())
    assert.are.equal("done", info.status)
    f, info = g:distance_field(4, { toward = true, max_expansions = 2 })
    assert.are.equal("limit", info.status)
    assert.are.same({ { id = 4, cost = 0 }, { id = 3, cost = 1 } }, f:nodes()) -- settled until then, exact
  end)

  it("the reversed arcs follow every arc write", function()
    local g = astar.graph()
    for i = 1, 4 do g:add_node(i, 0) end
    g:add_arc(1, 2, 1)
    g:add_arc(2, 3, 1)
    assert.are.equal(2, g:distance_field(3, { toward = true }):get(1))
    g:add_arc(1, 3, 1.5) -- a new arc
    assert.are.equal(1.5, g:distance_field(3, { toward = true }):get(1))
    g:add_arc(1, 3, 5) -- a new cost
    assert.are.equal(2, g:distance_field(3, { toward = true }):get(1))
    g:remove_arc(2, 3)
    assert.are.equal(5, g:distance_field(3, { toward = true }):get(1))
    g:add_node(9, 9) -- a new node with its arc
    g:add_edge(4, 3, 1)
    local f = g:distance_field(3, { toward = true })
    assert.are.same({ 5, 1 }, { f:get(1), f:get(4) })
    assert.is_nil(f:get(2))
  end)

  it("random one-way graphs with every cost option: the oracle's costs, legal ways", function()
    local rng = rng_of(7101)
    for round = 1, scale(200) do
      local n = rng.int(1, 16)
      local world, g = one_way_world(rng, n)
      local opts = random_options(rng, world, g)
      opts.toward = true
      local sources = {}
      for k = 1, rng.int(1, 3) do sources[k] = rng.int(1, n) end
      local cap
      if rng.next() < 0.3 then
        cap = rng.next() * 30
        opts.max_cost = cap
      end
      local where = string.format("round %d (%d nodes)", round, n)
      local field, info = g:distance_field(sources, opts)
      assert.are.equal("done", info.status)
      assert.are.equal(#field:nodes(), info.reached)
      check_toward(world, field, oracle.field_toward(world, sources, cap), sources, where)
      -- every node's find to its nearest source costs what the field says (the crowd's walk)
      for _, e in ipairs(field:nodes()) do
        local _, finfo = g:find_nearest(e.id, sources, { influence = opts.influence,
          influence_weight = opts.influence_weight, claims = opts.claims, unit = opts.unit,
          claim_penalty = opts.claim_penalty, node_cost = opts.node_cost, edge_cost = opts.edge_cost,
          noise = opts.noise, seed = opts.seed })
        assert(near(finfo.cost, e.cost), where .. ": find_nearest from " .. e.id .. " costs " .. finfo.cost)
      end
    end
  end)

  it("is refused by find, range and find_nearest; hostile callbacks leave the graph usable", function()
    local g = astar.graph()
    for i = 1, 4 do g:add_node(i, 0) end
    for i = 1, 3 do g:add_arc(i, i + 1, 1) end
    assert.matches("option 'toward' does not apply to find", err_of(g.find, g, 1, 2, { toward = true }))
    assert.matches("option 'toward' does not apply to range", err_of(g.range, g, 1, 2, { toward = true }))
    assert.matches("option 'toward' does not apply to find_nearest",
      err_of(g.find_nearest, g, 1, { 2 }, { toward = true }))
    assert.matches("option 'toward' must be", err_of(g.distance_field, g, 4, { toward = "yes" }))
    assert.matches("boom", err_of(g.distance_field, g, 4, { toward = true, edge_cost = function() error("boom") end }))
    assert.is_false(pcall(g.distance_field, g, 4, { toward = true, node_cost = function() close(g) end }))
    assert.are.equal(3, g:distance_field(4, { toward = true }):get(1))
    local f = g:distance_field(4, { toward = true })
    f.prev[4] = 1 -- a way that loops: an error, never a hang
    assert.matches("loops", err_of(f.path, f, 1))
    astar.set_work_limit(3) -- the reversed arcs count (a unit per node and arc), then the field
    g:add_arc(4, 1, 1)
    assert.matches("work limit reached", err_of(g.distance_field, g, 4, { toward = true }))
    astar.set_work_limit(nil)
    assert.are.equal(3, g:distance_field(4, { toward = true }):get(1))
  end)
end)

describe("graph:find_nearest aimed by a heuristic", function()
  it("the oracle's best on random graphs, in no more expansions than without one", function()
    local rng = rng_of(7102)
    local fewer = 0
    for round = 1, scale(250) do
      local n = rng.int(2, 30)
      local world, g = one_way_world(rng, n)
      local s = rng.int(1, n)
      local targets, plain = {}, {}
      local costs = rng.next() < 0.5
      for k = 1, rng.int(1, 6) do
        plain[k] = { id = rng.int(1, n), cost = costs and rng.next() * 8 or 0 }
        targets[k] = costs and plain[k] or plain[k].id
      end
      local from = oracle.distances(world, s)
      local want
      for _, t in ipairs(plain) do
        if oracle.enterable(world, t.id) and from[t.id] < math.huge then
          local v = from[t.id] + t.cost
          if not want or v < want then want = v end
        end
      end
      local where = string.format("round %d (%d nodes) from %d", round, n, s)
      local ids, info = g:find_nearest(s, targets)
      local _, zinfo = g:find_nearest(s, targets, { heuristic = "zero" })
      assert(info.expansions <= zinfo.expansions, where .. ": " .. info.expansions .. " > " .. zinfo.expansions)
      if info.expansions < zinfo.expansions then fewer = fewer + 1 end
      if not want then
        assert(ids == nil, where .. ": found a path the oracle does not know")
      else
        assert(ids, where .. ": nothing found, oracle " .. want)
        local t = plain[info.target]
        assert(near(info.cost + t.cost, want), where .. ": cost " .. info.cost .. " + " .. t.cost .. ", oracle " .. want)
        assert(near(oracle.path_cost(world, ids, s), info.cost), where .. ": the path's own cost differs")
      end
    end
    assert(fewer > 0, "the heuristic never saved an expansion")
  end)

  it("a corridor: the heuristic goes straight to the near target", function()
    local g = astar.graph()
    for i = 1, 41 do g:add_node(i - 21, 0) end -- node 21 at 0, a line from -20 to 20
    for i = 1, 40 do g:add_edge(i, i + 1) end
    local ids, info = g:find_nearest(21, { 41 })
    assert.are.equal(41, ids[#ids])
    assert.are.equal(22, info.expansions) -- only the way there (21 nodes), then the targets' sink
    local _, zinfo = g:find_nearest(21, { 41 }, { heuristic = "zero" })
    assert.are.equal(42, zinfo.expansions) -- Dijkstra: both sides, all 41
  end)
end)

-- The Rust `pathfinding` crate's cases (github:evenfurther/pathfinding), on our graph API:
-- dijkstra_all and dijkstra_reach are a field (or a range), bfs_reach a field over arcs of cost
-- 1, bfs with many starts a field from them all, dijkstra toward any goal find_nearest.
describe("the pathfinding crate's cases", function()
  -- A graph of count nodes at one place (no heuristic to help), id = value + 1 - first.
  local function numbers(count)
    local g = astar.graph()
    for _ = 1, count do g:add_node(0, 0) end
    return g
  end

  -- tests/dijkstra-all.rs's random network of size nodes: an arc a -> b (a ~= b) with probability
  -- 2/3 (random_ratio(2, 3); the crate's loops aside) at a cost that is a u16 other than 0; the
  -- graph and the oracle's world of it.
  local function random_network(rng, size)
    local g = numbers(size)
    local world = { n = size, pos = {}, arcs = {} }
    for a = 1, size do
      world.pos[a] = { 0, 0, 0 }
      world.arcs[a] = {}
      for b = 1, size do
        if a ~= b and rng.next() < 2 / 3 then
          local cost = rng.int(1, 65535)
          g:add_arc(a, b, cost)
          world.arcs[a][b] = cost
        end
      end
    end
    return g, world
  end

  it("dijkstra_all: 1..9, n -> 2n and 2n + 1 at 10 (src/directed/dijkstra.rs, its example)", function()
    local g = numbers(9)
    for n = 1, 4 do
      g:add_arc(n, 2 * n, 10)
      g:add_arc(n, 2 * n + 1, 10)
    end
    local f, info = g:distance_field(1)
    assert.are.equal(9, info.reached) -- the crate's 8, and the start
    local want = { [2] = { 1, 10 }, [3] = { 1, 10 }, [4] = { 2, 20 }, [5] = { 2, 20 }, [6] = { 3, 20 },
      [7] = { 3, 20 }, [8] = { 4, 30 }, [9] = { 4, 30 } }
    for id, pc in pairs(want) do assert.are.same(pc, { f:next(id), f:get(id) }) end
    assert.are.same({ 1, 2, 4, 9 }, f:path(9)) -- build_path
  end)

  it("dijkstra_all against dijkstra: a random network of 30 (tests/dijkstra-all.rs all_paths)", function()
    local rng = rng_of(7103)
    local size = 30
    local g, world = random_network(rng, size)
    for start = 1, size do
      local paths = g:distance_field(start)
      local want = oracle.distances(world, start)
      for target = 1, size do
        local ids, info = g:find(start, target)
        if start == target then
          assert.are.equal(0, paths:get(target))
        elseif ids then
          assert.are.equal(info.cost, paths:get(target))
          assert.are.equal(want[target], info.cost)
          assert.are.equal(info.cost, oracle.path_cost(world, paths:path(target)))
        else
          assert.is_nil(paths:get(target))
          assert.are.equal(math.huge, want[target])
        end
      end
    end
  end)

  it("dijkstra_partial: the nearest multiple of start (tests/dijkstra-all.rs partial_paths)", function()
    local rng = rng_of(7104)
    local size = 40
    local g, world = random_network(rng, size)
    for start = 2, size - 1 do -- node id = value + 1: value start - 1 >= 1
      local value = start - 1
      local targets = {}
      for m = 2 * value, size - 1, value do targets[#targets + 1] = m + 1 end
      if #targets > 0 then
        local ids, info = g:find_nearest(start, targets)
        local from = oracle.distances(world, start)
        local best = math.huge
        for _, t in ipairs(targets) do best = math.min(best, from[t]) end
        if ids then
          assert.are.equal(0, (ids[#ids] - 1) % value) -- the stop condition holds
          assert.are.equal(best, info.cost)
          assert.are.equal(from[ids[#ids]], info.cost)
        else
          assert.are.equal(math.huge, best)
        end
      end
    end
  end)

  it("dijkstra_reach: n -> n + 1 at 1, n -> 2n at n, below 100 (tests/dijkstra-reach.rs numbers)", function()
    local g = numbers(200) -- values 0..199
    for v = 0, 99 do
      g:add_arc(v + 1, v + 2, 1)
      if v > 0 then g:add_arc(v + 1, 2 * v + 1, v) end -- 0 -> 0 is a loop; 1 -> 2 at 1 twice
    end
    local reach = g:range(1, 99) -- total_cost < 100, in whole costs
    assert.are.equal(100, #reach)
    local last = -1
    for _, e in ipairs(reach) do
      assert.are.equal(e.id - 1, e.cost) -- the cost is the node's value
      assert.is_true(e.cost >= last) -- in order of cost
      last = e.cost
    end
  end)

  it("dijkstra_reach: A -> B 2, A -> C 5, B -> C 2 (tests/dijkstra-reach.rs graph)", function()
    local g = astar.graph()
    local a, b, c = g:add_node(0, 0), g:add_node(0, 0), g:add_node(0, 0)
    g:add_arc(a, b, 2)
    g:add_arc(a, c, 5)
    g:add_arc(b, c, 2)
    local f = g:distance_field(a)
    assert.are.same({ { id = a, cost = 0 }, { id = b, cost = 2 }, { id = c, cost = 4 } }, f:nodes())
    assert.are.same({ nil, a, b }, { f:next(a), f:next(b), f:next(c) }) -- no node twice
  end)

  it("bfs_reach: 3 -> 1..5, and n -> 2n, 3n (src/directed/bfs.rs, its examples)", function()
    local g = numbers(5)
    for from = 1, 5 do
      for to = 1, 5 do
        if from ~= to then g:add_arc(from, to, 1) end
      end
    end
    local reach = g:range(3, math.huge)
    assert.are.same({ id = 3, cost = 0 }, reach[1])
    assert.are.equal(5, #reach)
    for i = 2, 5 do assert.are.equal(1, reach[i].cost) end
    -- the multiples of 2 and 3 up to 27 by levels of the BFS: 2 3 | 4 6 9 | 8 12 18 27
    local m = numbers(28) -- id = value
    for v = 1, 13 do
      m:add_arc(v, 2 * v, 1)
      if 3 * v <= 28 then m:add_arc(v, 3 * v, 1) end
    end
    local f = m:distance_field(1)
    local levels = { [2] = 1, [3] = 1, [4] = 2, [6] = 2, [9] = 2, [8] = 3, [12] = 3, [18] = 3, [27] = 3 }
    for v, level in pairs(levels) do assert.are.equal(level, f:get(v)) end
    local order = {}
    for _, e in ipairs(f:nodes()) do if levels[e.id] then order[#order + 1] = levels[e.id] end end
    for i = 2, #order do assert.is_true(order[i] >= order[i - 1]) end
  end)

  it("bfs from many starts to many ends: a -> b -> c -> d -> e (tests/test_bfs_multiple_starts.rs)", function()
    local g = astar.graph()
    for i = 1, 5 do g:add_node(i, 0) end -- a..e
    for i = 1, 4 do g:add_arc(i, i + 1, 1) end
    -- single start and end
    assert.are.same({ 1, 2, 3, 4, 5 }, (g:find(1, 5)))
    -- starts {a, b}, ends {d, e}: a field from the starts, the nearest end
    local from = g:distance_field({ 1, 2 })
    local best
    for _, e in ipairs({ 4, 5 }) do
      if from:get(e) and (not best or from:get(e) < from:get(best)) then best = e end
    end
    assert.are.same({ 2, 3, 4 }, from:path(best))
    -- or a field toward the ends, read at the starts
    local to = g:distance_field({ 4, 5 }, { toward = true })
    local start = to:get(2) < to:get(1) and 2 or 1
    assert.are.same({ 2, 3, 4 }, to:path(start))
  end)

  it("dijkstra: a knight from (1, 1) to (4, 6) in 4 moves (src/directed/dijkstra.rs, its example)", function()
    local g, at = astar.graph(), {}
    for x = -2, 10 do
      at[x] = {}
      for y = -2, 10 do at[x][y] = g:add_node(x, y) end
    end
    local jumps = { { 1, 2 }, { 1, -2 }, { -1, 2 }, { -1, -2 }, { 2, 1 }, { 2, -1 }, { -2, 1 }, { -2, -1 } }
    for x = -2, 10 do
      for y = -2, 10 do
        for _, d in ipairs(jumps) do
          local tx, ty = x + d[1], y + d[2]
          if at[tx] and at[tx][ty] then g:add_arc(at[x][y], at[tx][ty], 1) end
        end
      end
    end
    local _, info = g:find(at[1][1], at[4][6])
    assert.are.equal(4, info.cost)
    -- the success function as many goals: the nearest of (4, 6) and (9, 9)
    local ids, ninfo = g:find_nearest(at[1][1], { at[9][9], at[4][6] })
    assert.are.equal(4, ninfo.cost)
    assert.are.equal(2, ninfo.target)
    assert.are.equal(at[4][6], ids[#ids])
    assert.are.equal(4, g:distance_field(at[4][6], { toward = true }):get(at[1][1]))
  end)
end)
