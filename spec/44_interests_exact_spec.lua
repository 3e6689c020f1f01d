-- Interests in the fixed point (issue 25, defects 3 and 4): info.cost is the returned path's
-- steps summed, and info.score the best cost - value to the last bit, for every value allowed
-- (up to 2^20, docs/contract.md "Interests"); larger values are refused by name. Checked with
-- == against the oracles (spec/support/dijkstra.lua, graph_oracle.lua: steps rounded up to
-- quanta, values rounded down), on the issue's worlds, at the bound with path costs near 2^20
-- and max_cost, under custom heuristics (closed nodes reopened, a memo the second copy reads),
-- and on random worlds with values drawn over the whole range; an interest on another island
-- costs no work. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local graph_oracle = require("spec.support.graph_oracle")
local worlds = require("spec.support.worlds")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261125")
local MAX = 2 ^ 20 -- ASTAR_MAX_INTEREST
local Q = 2 ^ -32  -- the cost quantum
local round_down = oracle.round_down

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(e)
end

-- The answer of every grid query that takes interests, by name: find, find_nearest, a search
-- job stepped in slices, a scheduler request and find_many.
local WAYS = { "find", "find_nearest", "search", "scheduler", "find_many" }
local function ask(way, grid, sx, sy, gx, gy, opts)
  if way == "find" then return grid:find(sx, sy, gx, gy, opts) end
  if way == "find_nearest" then return grid:find_nearest(sx, sy, { { x = gx, y = gy } }, opts) end
  if way == "search" then
    local job = grid:search(sx, sy, gx, gy, opts)
    while job:step(7) == "running" do end
    return job:result()
  end
  if way == "scheduler" then
    local sched, got = astar.scheduler({ budget = 9 }), nil
    sched:request(grid, sx, sy, gx, gy, opts, function(p, i) got = { p, i } end)
    for _ = 1, 100000 do
      if got then break end
      sched:tick()
    end
    assert(got, "the scheduler never answered")
    return got[1], got[2]
  end
  local r = grid:find_many({ { sx = sx, sy = sy, gx = gx, gy = gy } }, opts, { threads = 2 })[1]
  return r.path, r.info
end

-- One grid answer held to the oracle with ==: the score is the best, the path legal, its cost
-- its steps summed, the score that cost less the (rounded) value of the interest it collects,
-- which lies on it.
local function check_exact(where, world, sx, sy, goals, interests, path, info)
  local want = oracle.interest_score(world, sx, sy, goals, interests)
  if want == nil then
    assert(path == nil, where .. ": a path the oracle does not know")
    return nil
  end
  assert(path, where .. ": no path, the oracle's score is " .. want)
  assert.are.equal("found", info.status, where)
  local walked = oracle.path_cost(world, path, sx, sy)
  assert(walked == info.cost, string.format("%s: info.cost %.17g, the path's steps sum to %.17g", where, info.cost, walked))
  assert(info.score == want, string.format("%s: info.score %.17g, the oracle's %.17g", where, info.score, want))
  if info.interest == nil then
    assert(info.score == info.cost, where .. ": nothing collected, yet score ~= cost")
  else
    local it = interests[info.interest]
    assert(info.score == info.cost - round_down(it.value), where .. ": score ~= cost - value")
    local on = false
    for _, p in ipairs(path) do on = on or (p.x == it.x and p.y == it.y) end
    assert(on, where .. ": the collected interest is not on the path")
  end
  return info.interest
end

-- The issue's world: a corridor from (1, 1) to (20, 1) (19 straight steps), a pick-up worth 10
-- one row off it at (10, 2) (a detour of 2 diagonals for 2 straight steps: score 9.83), and a
-- cell (18, 4) the start cannot reach: walled off by the terrain (another island), or else
-- (`by_query`) by node_cost, which the island labels do not see.
local function issue_world(by_query)
  local rows = {
    "....................",
    "....................",
    "................###.",
    "................#.#.",
    "................###.",
  }
  local world = oracle.world_from_rows(rows, "no_corner_cut")
  if by_query then
    for _, c in ipairs({ { 17, 3 }, { 18, 3 }, { 19, 3 }, { 17, 4 }, { 19, 4 }, { 17, 5 }, { 18, 5 }, { 19, 5 } }) do
      world.cost[c[2]][c[1]] = 1
    end
    world.node_cost = function(x, y)
      if (x >= 17 and x <= 19 and y >= 3) and not (x == 18 and y == 4) then return false end
    end
  end
  return world
end

local function issue_opts(world, interests)
  return { interests = interests, node_cost = world.node_cost }
end

describe("interests in the fixed point (issue 25)", function()
  it("a walled-off interest of any allowed value leaves the answer alone: every query, walls of terrain or node_cost", function()
    local want = 17 + 2 * oracle.round_up(math.sqrt(2)) - 10
    for _, by_query in ipairs({ false, true }) do
      local world = issue_world(by_query)
      local grid = oracle.grid(astar, world)
      for _, v in ipairs({ MAX, MAX - Q, MAX - 1.5, 2 ^ 19 + 2 ^ -33, 777777.125, 1e5 }) do
        local interests = { { x = 10, y = 2, value = 10 }, { x = 18, y = 4, value = v } }
        for _, way in ipairs(WAYS) do
          local where = string.format("%s, walls of %s, value %.17g", way, by_query and "node_cost" or "terrain", v)
          local path, info = ask(way, grid, 1, 1, 20, 1, issue_opts(world, interests))
          assert.are.equal(1, check_exact(where, world, 1, 1, { { x = 20, y = 1 } }, interests, path, info), where)
          assert(info.score == want, where .. ": score " .. info.score)
        end
      end
    end
  end)

  it("an interest no path reaches costs nothing: the same expansions as without it (island labels)", function()
    local world = issue_world(false)
    local grid = oracle.grid(astar, world)
    local near_only = { { x = 10, y = 2, value = 10 } }
    local _, plain = grid:find(1, 1, 20, 1, { interests = near_only })
    for _, v in ipairs({ 5, MAX }) do
      local _, info = grid:find(1, 1, 20, 1, { interests = { near_only[1], { x = 18, y = 4, value = v } } })
      assert.are.equal(plain.expansions, info.expansions)
      assert.are.equal(plain.score, info.score)
    end
  end)

  it("values above 2^20 are refused by name, by every query, on grids and graphs", function()
    local world = issue_world(false)
    local grid = oracle.grid(astar, world)
    local g = astar.graph()
    for i = 1, 3 do g:add_node(i, 0) end
    g:add_edge(1, 2)
    g:add_edge(2, 3)
    local msg = "option 'interests'%[2%]%.value must be a number in %(0, 1048576%], got "
    for _, v in ipairs({ MAX + 2 * Q, MAX + 1, 1e9, 1e12, 1e15, 1e17, 2 ^ 60, 1e100 }) do
      local interests = { { 10, 2, 10 }, { x = 18, y = 4, value = v } }
      local opts = { interests = interests }
      for _, way in ipairs(WAYS) do
        assert.matches(msg, err_of(ask, way, grid, 1, 1, 20, 1, opts), 1, false, way)
      end
      local e = err_of(g.find, g, 1, 3, { interests = { { 2, 1 }, { id = 3, value = v } } })
      assert.matches(msg, e)
    end
    -- the bound itself is a value like any other
    local _, info = grid:find(1, 1, 20, 1, { interests = { { 10, 2, MAX } } })
    assert.are.equal(1, info.interest)
    assert.are.equal(19 + 2 * oracle.round_up(math.sqrt(2)) - 2 - MAX, info.score)
    local ids, ginfo = g:find(1, 3, { interests = { { 2, 1 }, { id = 3, value = MAX } } })
    assert.are.same({ 1, 2, 3 }, ids)
    assert.are.equal(2, ginfo.interest)
    assert.are.equal(2 - MAX, ginfo.score)
    -- and the grid is still usable
    local path = grid:find(1, 1, 20, 1)
    assert.are.equal(20, #path)
  end)

  it("a collected value near the bound: info.cost is the path's steps, info.score cost - value, to the bit", function()
    local world = issue_world(false)
    local grid = oracle.grid(astar, world)
    for _, v in ipairs({ MAX, MAX - Q, 2 ^ 19 + 2 ^ -33, 999999.999, 123456.789, 10 + Q / 3 }) do
      local interests = { { x = 10, y = 2, value = v } }
      for _, way in ipairs(WAYS) do
        local where = string.format("%s, value %.17g", way, v)
        local path, info = ask(way, grid, 1, 1, 20, 1, { interests = interests })
        assert.are.equal(1, check_exact(where, world, 1, 1, { { x = 20, y = 1 } }, interests, path, info), where)
        assert(info.cost == 17 + 2 * oracle.round_up(math.sqrt(2)), where .. ": cost " .. info.cost)
      end
    end
  end)

  -- Terrain of 55000..70000 a cell on a corridor of 15: paths cost from 770000 to nearly 2^20,
  -- the largest cost that is exact, and behind walls the largest value, so a node of the
  -- second copy counts nearly 2^21.
  it("path costs near 2^20 with values up to 2^20, and max_cost at the score to the quantum", function()
    local rng = oracle.rng(SEED)
    for round = 1, scale(20) do
      local rows = { "...............", "...............", "...............", "...####........", "...#..#........" }
      local world = oracle.world_from_rows(rows, oracle.DIAGONALS[rng.int(1, 4)])
      for y = 1, world.h do
        for x = 1, world.w do
          if world.cost[y][x] then world.cost[y][x] = 55000 + rng.next() * 15000 end
        end
      end
      local grid = oracle.grid(astar, world)
      local sx, sy, gx, gy = 1, rng.int(1, 3), 15, rng.int(1, 3)
      -- one where the path starts, collected at once (so every node's running score stays at
      -- or below the final one, which max_cost bounds), and the bound itself behind walls
      local interests = {
        { x = sx, y = sy, value = rng.next() * 700000 },
        { x = 5, y = 5, value = MAX },
      }
      for _, way in ipairs(WAYS) do
        local where = string.format("round %d, %s", round, way)
        local path, info = ask(way, grid, sx, sy, gx, gy, { interests = interests })
        assert.are.equal(1, check_exact(where, world, sx, sy, { { x = gx, y = gy } }, interests, path, info), where)
        assert(info.cost > 770000 and info.cost < MAX, where .. ": cost " .. info.cost)
        local _, at = ask(way, grid, sx, sy, gx, gy, { interests = interests, max_cost = info.score })
        assert.are.equal("found", at.status, where)
        assert(at.score == info.score, where)
        local _, below = ask(way, grid, sx, sy, gx, gy, { interests = interests, max_cost = info.score - Q })
        assert.are.equal("limit", below.status, where)
      end
    end
  end)

  -- An inconsistent custom heuristic closes M the dearer way first (through A, dearer by 1e-6),
  -- then finds the way through C, B, D. The interest on the start puts the whole search in the
  -- second copy, where g counts the shift too (2^20, the walled-off interest's): the cheaper
  -- way must still reopen M however large g is.
  it("under an inconsistent heuristic a closed node takes a way cheaper by 1e-6, whatever the second copy counts", function()
    -- (6, 3) is walled off by node_cost: on the start's island, so it counts in the shift
    local world = oracle.world_from_rows({ "....##", "...###", "......" }, "never")
    world.cost[1][2] = 3 + 1e-6
    world.node_cost = function(x, y) if y == 3 and x < 6 then return false end end
    local grid = oracle.grid(astar, world)
    local H = { [2] = { 4, 3, 2 } } -- row 2: C, B, D; 0 elsewhere (admissible: at most the way left)
    local function h(x, y) return H[y] and H[y][x] or 0 end
    for _, v in ipairs({ 5, MAX }) do
      local interests = { { x = 1, y = 1, value = 10 }, { x = 6, y = 3, value = v } }
      for _, way in ipairs({ "find", "search", "scheduler", "find_many" }) do
        local where = string.format("%s, walled-off value %.17g", way, v)
        local path, info = ask(way, grid, 1, 1, 4, 1, { heuristic = h, interests = interests, node_cost = world.node_cost })
        assert.are.equal(1, check_exact(where, world, 1, 1, { { x = 4, y = 1 } }, interests, path, info), where)
        assert(info.score == -5, where .. ": score " .. info.score)
      end
    end
    -- the same on a graph: S=1 A=2 M=3 G=4 C=5 B=6 D=7, and 8 that no arc reaches
    local g = astar.graph()
    local gw = { n = 8, pos = {}, arcs = {}, blocked = {} }
    for i = 1, 8 do
      gw.pos[i] = { i, 0, 0 }
      gw.arcs[i] = {}
      g:add_node(i, 0)
    end
    for _, e in ipairs({ { 1, 2, 3 + 1e-6 }, { 2, 3, 1 }, { 3, 4, 1 }, { 1, 5, 1 }, { 5, 6, 1 }, { 6, 7, 1 }, { 7, 3, 1 } }) do
      g:add_edge(e[1], e[2], e[3])
      gw.arcs[e[1]][e[2]], gw.arcs[e[2]][e[1]] = e[3], e[3]
    end
    local GH = { [5] = 4, [6] = 3, [7] = 2 }
    for _, v in ipairs({ 5, MAX }) do
      local interests = { { id = 1, value = 10 }, { id = 8, value = v } }
      local ids, info = g:find(1, 4, { heuristic = function(id) return GH[id] or 0 end, interests = interests })
      assert.are.same({ 1, 5, 6, 7, 3, 4 }, ids)
      assert(info.score == graph_oracle.interest_score(gw, 1, 4, interests) and info.score == -5, "score " .. info.score)
      assert(info.cost == graph_oracle.path_cost(gw, ids, 1))
    end
  end)

  -- A custom heuristic is asked once per cell and query, and kept in the workspace: a node of
  -- the second copy may ask for a cell that the first copy has not touched yet this query, and
  -- must not get what an earlier query left there (here 1e6 everywhere: the right way looked
  -- hopeless, and a pick-up worth 1.67 next to the start was missed).
  it("a custom heuristic asked from the second copy gets this query's value, not an earlier query's", function()
    local rows = {
      "# 3.520 0.755 3.387 1.090 1.090 2.554 3.872 3.202",
      "1 # 2.732 1 1.638 2.111 1.038 1.753 2.696",
      "1 3.410 2.243 1 2.716 3.230 1 3.687 1",
      "3.027 1.984 1.677 3.476 3.515 # 1.868 1 1",
      "1 1 2.930 1.130 0.909 3.779 # 1.481 2.239",
      "0.943 1.030 1 # 2.666 3.065 1 1 2.330",
      "2.614 3.533 0.585 2.567 2.983 3.407 1 2.489 1",
    }
    local world = { w = 9, h = 7, cost = {}, diagonal = "no_corner_cut" }
    for y, row in ipairs(rows) do
      world.cost[y] = {}
      local x = 0
      for cell in row:gmatch("%S+") do
        x = x + 1
        world.cost[y][x] = cell ~= "#" and tonumber(cell)
      end
    end
    local grid = oracle.grid(astar, world)
    local interests = { { x = 7, y = 2, value = 1.67 } }
    for _, way in ipairs({ "find", "search", "find_many" }) do
      grid:find(1, 1, 9, 7, { heuristic = function() return 1e6 end })
      local path, info = ask(way, grid, 8, 2, 4, 7, { heuristic = function() return 0 end, interests = interests })
      assert.are.equal(1, check_exact(way, world, 8, 2, { { x = 4, y = 7 } }, interests, path, info), way)
    end
  end)

  -- A value drawn over the whole allowed range: small, in cost units, near 2^19 (where doubles
  -- hold halves of quanta) and near or at the bound.
  local function random_value(rng, magnitude)
    local r = rng.next()
    if r < 0.3 then return 0.05 + rng.next() * 8 * magnitude end
    if r < 0.5 then return 2 ^ (rng.next() * 50 - 30) end
    if r < 0.6 then return 2 ^ 19 + (rng.next() - 0.5) * 2 ^ -20 end
    if r < 0.7 then return MAX end
    if r < 0.85 then return MAX - rng.int(0, 1000) * Q - rng.next() * Q end
    return MAX * (0.5 + 0.5 * rng.next())
  end

  it("random worlds, values over the whole range, every query: score and cost to the bit", function()
    local rng = oracle.rng(SEED + 1)
    local seen = { collected = 0, passed = 0, big = 0 }
    for n = 1, scale(250) do
      local features = worlds.random_features(rng)
      local way = WAYS[rng.int(1, #WAYS)]
      if way == "find_many" then features.node_cost, features.edge_cost = false, false end
      local world = worlds.random_world(rng, features)
      -- terrain scaled up now and then: every path of a world below 11x11 stays below 2^20
      local magnify = rng.next() < 0.3 and 1500 or 1
      for y = 1, world.h do
        for x = 1, world.w do
          if world.cost[y][x] then world.cost[y][x] = world.cost[y][x] * magnify end
        end
      end
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      local interests = {}
      for i = 1, rng.int(1, 4) do
        interests[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h), value = random_value(rng, magnify) }
      end
      opts.interests = interests
      if way ~= "find_nearest" and rng.next() < 0.25 then
        -- an inconsistent heuristic (closed nodes reopen): a random share of the Chebyshev
        -- distance over the cheapest terrain, which no step undercuts
        local least = world.known and 1 or math.huge
        for y = 1, world.h do
          for x = 1, world.w do least = math.min(least, world.cost[y][x] or math.huge) end
        end
        local share = {}
        for i = 1, world.w * world.h do share[i] = rng.next() end
        opts.heuristic = function(x, y, hx, hy)
          return share[(y - 1) * world.w + x] * least * math.max(math.abs(hx - x), math.abs(hy - y))
        end
      end
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local gx, gy = rng.int(1, world.w), rng.int(1, world.h)
      local path, info = ask(way, grid, sx, sy, gx, gy, opts)
      local where = string.format("world %d (%dx%d %s, x%d%s) %s %d,%d -> %d,%d", n, world.w, world.h,
        world.topology or world.diagonal, magnify, opts.heuristic and ", h()" or "", way, sx, sy, gx, gy)
      local got = check_exact(where, world, sx, sy, { { x = gx, y = gy } }, interests, path, info)
      if path then
        if got then seen.collected = seen.collected + 1 else seen.passed = seen.passed + 1 end
        if got and interests[got].value > 2 ^ 19 then seen.big = seen.big + 1 end
      end
    end
    assert(seen.collected > scale(60) and seen.passed > scale(10) and seen.big > scale(30),
      string.format("collected %d (%d above 2^19), passed %d", seen.collected, seen.big, seen.passed))
  end)

  it("graphs: the walled-off interest at the bound, and random graphs over the whole range, to the bit", function()
    -- the issue's case on a graph: a line 1..20, a pick-up worth 10 off it, a node no arc reaches
    local g = astar.graph()
    local world = { n = 22, pos = {}, arcs = {}, blocked = {} }
    for i = 1, 22 do
      world.pos[i] = { i <= 20 and i or 10, i <= 20 and 0 or 5, 0 }
      world.arcs[i] = {}
      g:add_node(world.pos[i][1], world.pos[i][2])
    end
    local function edge(a, b, c)
      g:add_edge(a, b, c)
      world.arcs[a][b], world.arcs[b][a] = c, c
    end
    for i = 1, 19 do edge(i, i + 1, 1) end
    edge(9, 21, math.sqrt(2))
    edge(21, 11, math.sqrt(2))
    for _, v in ipairs({ MAX, MAX - Q, 2 ^ 19 + 2 ^ -33, 1e5 }) do
      local interests = { { id = 21, value = 10 }, { id = 22, value = v } }
      local ids, info = g:find(1, 20, { interests = interests })
      local want = graph_oracle.interest_score(world, 1, 20, interests)
      assert(info.score == want, string.format("value %.17g: score %.17g, oracle %.17g", v, info.score, want))
      assert.are.equal(1, info.interest)
      assert(info.cost == graph_oracle.path_cost(world, ids, 1))
      assert(info.score == 17 + 2 * oracle.round_up(math.sqrt(2)) - 10)
    end

    local rng = oracle.rng(SEED + 2)
    local collected = 0
    for round = 1, scale(200) do
      local n = rng.int(2, 12)
      -- arcs up to 2 x 28.3 x magnify, paths of up to 11 of them: below 2^20
      local magnify = rng.next() < 0.3 and 1500 or 1
      world, g = graph_oracle.random_world(astar, rng, n, magnify)
      local opts = {}
      if rng.next() < 0.4 then
        local vals = {}
        for i = 1, n do vals[i] = rng.next() * 6 - 2 end
        world.layers = { { vals = vals, weight = 1 } }
        opts.influence = vals
      end
      if rng.next() < 0.3 then
        local t = {}
        for i = 1, n do t[i] = rng.next() < 0.1 and false or rng.next() * 3 end
        world.node_cost = function(id) return t[id] end
        opts.node_cost = world.node_cost
      end
      local interests = {}
      for i = 1, rng.int(1, 3) do interests[i] = { id = rng.int(1, n), value = random_value(rng, magnify * 2) } end
      opts.interests = interests
      local s, t = rng.int(1, n), rng.int(1, n)
      local want = graph_oracle.interest_score(world, s, t, interests)
      local ids, info = g:find(s, t, opts)
      local where = string.format("round %d (%d nodes, x%d, %d -> %d)", round, n, magnify, s, t)
      if not want then
        assert(ids == nil, where .. ": found a path the oracle does not know")
      else
        assert(ids, where .. ": nothing found, oracle " .. want)
        assert(info.score == want, string.format("%s: score %.17g, oracle %.17g", where, info.score, want))
        local walked = graph_oracle.path_cost(world, ids, s)
        assert(info.cost == walked, string.format("%s: cost %.17g, the path's steps %.17g", where, info.cost, walked))
        if info.interest then
          collected = collected + 1
          assert(info.score == info.cost - round_down(interests[info.interest].value), where)
        else
          assert(info.score == info.cost, where)
        end
      end
    end
    assert(collected > scale(30), "collected " .. collected)
  end)
end)
