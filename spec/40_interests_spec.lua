-- Valuable interests (issue 18, item 1): the answer minimises cost(path) - value(the interest
-- it collects). Checked against the oracle's min(d(s,g), min_i d(s,i) + d(i,g) - v_i) on random
-- worlds with every other option, on grids (find, find_nearest, search jobs, find_many) and
-- graphs. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local graph_oracle = require("spec.support.graph_oracle")
local worlds = require("spec.support.worlds")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261124")
local near = oracle.near

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(e)
end

-- 1..3 interests on random cells (blocked ones too: never collected), values in (0, 8].
local function random_interests(rng, world)
  local list = {}
  for i = 1, rng.int(1, 3) do
    list[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h), value = 0.05 + rng.next() * 7.95 }
  end
  return list
end

local random_features = worlds.random_features

-- Checks one grid answer against the oracle: the score, the path's legality and cost, and that
-- the interest it names lies on it. Returns "collected", "passed" or "none".
local function check_answer(where, world, sx, sy, goals, interests, path, info)
  local want = oracle.interest_score(world, sx, sy, goals, interests)
  if want == nil then
    assert(path == nil, where .. ": found a path the oracle says does not exist")
    assert.are.equal("unreachable", info.status, where)
    return "none"
  end
  assert(path, where .. ": no path, oracle score " .. want)
  assert.are.equal("found", info.status, where)
  assert(near(info.score, want), where .. ": score " .. info.score .. " ~= oracle " .. want)
  assert.are.same({ x = sx, y = sy }, path[1])
  local walked = oracle.path_cost(world, path, sx, sy)
  assert(near(walked, info.cost), where .. ": path walks for " .. walked .. ", info.cost " .. info.cost)
  if info.interest == nil then
    assert(near(info.score, info.cost), where .. ": nothing collected, yet score ~= cost")
    return "passed"
  end
  local it = interests[info.interest]
  assert(it, where .. ": info.interest " .. tostring(info.interest) .. " names no interest")
  assert(near(info.score, info.cost - it.value), where .. ": score ~= cost - value")
  local on_path = false
  for _, p in ipairs(path) do
    if p.x == it.x and p.y == it.y then on_path = true end
  end
  assert(on_path, where .. ": the collected interest is not on the path")
  return "collected"
end

describe("interests", function()
  it("find: the oracle's best score on random worlds with every option, the path legal", function()
    local rng = oracle.rng(SEED)
    local seen = { collected = 0, passed = 0, none = 0 }
    for n = 1, scale(300) do
      local world = worlds.random_world(rng, random_features(rng))
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      local interests = random_interests(rng, world)
      opts.interests = interests
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local gx, gy = rng.int(1, world.w), rng.int(1, world.h)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      local where = string.format("world %d (%dx%d %s) %d,%d -> %d,%d", n, world.w, world.h,
        world.topology or world.diagonal, sx, sy, gx, gy)
      local got = check_answer(where, world, sx, sy, { { x = gx, y = gy } }, interests, path, info)
      if path then assert.are.same({ x = gx, y = gy }, path[#path], where) end
      seen[got] = seen[got] + 1
    end
    -- the worlds really exercise both answers
    assert(seen.collected > scale(40) and seen.passed > scale(40) and seen.none > scale(10),
      string.format("collected %d, passed %d, none %d", seen.collected, seen.passed, seen.none))
  end)

  it("find_nearest: the best score over every target, info.target and info.interest", function()
    local rng = oracle.rng(SEED + 1)
    local collected = 0
    for n = 1, scale(150) do
      local world = worlds.random_world(rng, random_features(rng))
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      local interests = random_interests(rng, world)
      opts.interests = interests
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local targets = {}
      for i = 1, rng.int(1, 3) do targets[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h) } end
      local path, info = grid:find_nearest(sx, sy, targets, opts)
      local where = string.format("world %d, %d targets", n, #targets)
      if check_answer(where, world, sx, sy, targets, interests, path, info) == "collected" then
        collected = collected + 1
      end
      if path then
        local t = targets[info.target]
        assert.are.same({ x = t.x, y = t.y }, path[#path], where)
      end
    end
    assert(collected > scale(20), "collected " .. collected)
  end)

  it("search jobs stepped in slices and find_many answer as find does", function()
    local rng = oracle.rng(SEED + 2)
    for n = 1, scale(60) do
      local features = random_features(rng)
      features.node_cost, features.edge_cost = false, false -- find_many runs them on threads
      local world = worlds.random_world(rng, features)
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      local interests = random_interests(rng, world)
      opts.interests = interests
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local gx, gy = rng.int(1, world.w), rng.int(1, world.h)
      local goals = { { x = gx, y = gy } }
      local job = grid:search(sx, sy, gx, gy, opts)
      local status = job:step(1)
      while status == "running" do status = job:step(rng.int(1, 4)) end
      local path, info = job:result()
      check_answer("job, world " .. n, world, sx, sy, goals, interests, path, info)
      local many = grid:find_many({ { sx = sx, sy = sy, gx = gx, gy = gy } }, opts, { threads = 2 })
      check_answer("find_many, world " .. n, world, sx, sy, goals, interests, many[1].path, many[1].info)
    end
  end)

  -- Turns and claim windows make a step's cost depend on the way in: approximate there, as
  -- without interests (docs/contract.md). The path's cost and score still add up.
  it("turn_penalty and claim_window: the path's own cost and score; with turns, never below the optimum without", function()
    local rng = oracle.rng(SEED + 3)
    local checked = 0
    for n = 1, scale(80) do
      local features = random_features(rng)
      features.turns, features.claims = true, rng.next() < 0.5
      features.windows = features.claims and rng.next() < 0.5
      features.hex = false
      local world = worlds.random_world(rng, features)
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      local interests = random_interests(rng, world)
      opts.interests = interests
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local gx, gy = rng.int(1, world.w), rng.int(1, world.h)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      if path then
        local where = "world " .. n
        assert(near(oracle.path_cost(world, path, sx, sy), info.cost), where .. ": the path's own cost")
        local value = info.interest and interests[info.interest].value or 0
        assert(near(info.score, info.cost - value), where .. ": score = cost - value")
        -- turns only add (windows may take a claim off): never below the optimum without them
        if not world.claim_window then
          local plain = {}
          for k, v in pairs(world) do plain[k] = v end
          plain.turn_penalty = nil
          local best = oracle.interest_score(plain, sx, sy, { { x = gx, y = gy } }, interests)
          assert(best and info.score >= best - 1e-9, where .. ": score below the optimum")
          checked = checked + 1
        end
      end
    end
    assert(checked > scale(15), "checked " .. checked)
  end)

  it("a scout grabs the pack only when the detour costs less than it is worth", function()
    local grid = astar.grid(21, 9)
    -- the pack sits 4 rows off the straight line: the detour costs about 3.3 more
    local pack = { x = 11, y = 1 }
    local straight, detour = 20, nil
    for _, value in ipairs({ 1, 3, 4, 10 }) do
      local path, info = grid:find(1, 5, 21, 5, { interests = { { x = pack.x, y = pack.y, value = value } } })
      assert.are.equal("found", info.status)
      if value < 3 then
        assert.is_nil(info.interest)
        assert(near(info.cost, straight))
      elseif value >= 4 then
        assert.are.equal(1, info.interest)
        detour = info.cost
        assert(near(info.score, info.cost - value))
        local passes = false
        for _, p in ipairs(path) do passes = passes or (p.x == pack.x and p.y == pack.y) end
        assert.is_true(passes)
      end
    end
    assert(detour > straight and detour - straight < 4, "detour " .. tostring(detour))
  end)

  it("of several interests at most one is collected, the best one; blocked ones never", function()
    local grid = astar.grid(10, 3)
    grid:set_cost(5, 1, false)
    local list = {
      { x = 5, y = 1, value = 100 }, -- blocked: ignored
      { x = 3, y = 2, value = 2 }, -- on the straight line
      { x = 8, y = 2, value = 5 }, -- on the straight line too, worth more
    }
    local path, info = grid:find(1, 2, 10, 2, { interests = list })
    assert.are.equal(3, info.interest)
    assert(near(info.cost, 9))
    assert(near(info.score, 4))
    assert.are.equal(10, #path)
    -- the start's own cell and the goal's count too
    local _, at_start = grid:find(3, 2, 10, 2, { interests = list })
    assert.are.equal(3, at_start.interest)
    local _, at_goal = grid:find(1, 2, 8, 2, { interests = list })
    assert.are.equal(3, at_goal.interest)
    assert(near(at_goal.score, 2))
    -- start == goal: a round trip through a pick-up worth more than the way there and back
    local round, trip = grid:find(7, 2, 7, 2, { interests = { { x = 8, y = 2, value = 5 } } })
    assert.are.equal(1, trip.interest)
    assert(near(trip.cost, 2) and near(trip.score, -3))
    assert.are.equal(3, #round)
  end)

  it("the reused info table loses score and interest when the next answer has none", function()
    local grid = astar.grid(5, 1)
    local info = {}
    grid:find(1, 1, 5, 1, { interests = { { 3, 1, 2 } }, info = info })
    assert.are.equal(1, info.interest)
    assert.is_number(info.score)
    grid:find(1, 1, 5, 1, { info = info })
    assert.is_nil(info.interest)
    assert.is_nil(info.score)
    grid:set_cost(4, 1, false)
    grid:find(1, 1, 5, 1, { interests = { { 3, 1, 2 } }, info = info })
    assert.are.equal("unreachable", info.status)
    assert.is_nil(info.interest)
    assert.is_nil(info.score)
  end)

  it("graphs: the oracle's best score on random graphs with layers, claims and callbacks", function()
    local rng = oracle.rng(SEED + 4)
    local collected = 0
    for round = 1, scale(200) do
      local n = rng.int(2, 12)
      local world, g = graph_oracle.random_world(astar, rng, n)
      local opts = {}
      if rng.next() < 0.4 then
        local vals = {}
        for i = 1, n do vals[i] = rng.next() * 6 - 2 end
        world.layers = { { vals = vals, weight = 1 } }
        opts.influence = vals
      end
      if rng.next() < 0.3 then
        local claims = astar.claims(g)
        world.claims = { { unit = 2, path = { rng.int(1, n), rng.int(1, n) }, pos = 1 } }
        claims:claim(2, world.claims[1].path)
        opts.claims = claims
        if rng.next() < 0.5 then opts.claim_radius, world.claim_radius = rng.next() * 20, nil end
        world.claim_radius = opts.claim_radius
      end
      if rng.next() < 0.3 then
        local t = {}
        for i = 1, n do t[i] = rng.next() < 0.1 and false or rng.next() * 3 end
        world.node_cost = function(id) return t[id] end
        opts.node_cost = world.node_cost
      end
      local interests = {}
      for i = 1, rng.int(1, 3) do interests[i] = { id = rng.int(1, n), value = 0.1 + rng.next() * 15 } end
      opts.interests = interests
      local s, t = rng.int(1, n), rng.int(1, n)
      local want = graph_oracle.interest_score(world, s, t, interests)
      local ids, info = g:find(s, t, opts)
      local where = string.format("round %d (%d nodes, %d -> %d)", round, n, s, t)
      if not want then
        assert(ids == nil, where .. ": found a path the oracle does not know")
      else
        assert(ids, where .. ": nothing found, oracle " .. want)
        assert(near(info.score, want), where .. ": score " .. info.score .. ", oracle " .. want)
        assert(near(graph_oracle.path_cost(world, ids, s), info.cost), where .. ": the path's own cost")
        assert.are.equal(s, ids[1])
        assert.are.equal(t, ids[#ids])
        if info.interest then
          collected = collected + 1
          local it = interests[info.interest]
          assert(near(info.score, info.cost - it.value), where)
          local on = false
          for _, id in ipairs(ids) do on = on or id == it.id end
          assert(on, where .. ": the collected interest is not on the path")
        else
          assert(near(info.score, info.cost), where)
        end
      end
    end
    assert(collected > scale(30), "collected " .. collected)
  end)

  it("bad interests get clear errors and the grid stays usable", function()
    local grid = astar.grid(4, 4)
    local function find(opts) return grid:find(1, 1, 4, 4, opts) end
    assert.matches("'interests' must be a list", err_of(find, { interests = 3 }))
    assert.matches("'interests'%[1%] must be a table", err_of(find, { interests = { 5 } }))
    local function bad(list) return err_of(find, { interests = list }) end
    assert.matches("'interests'%[1%]%.value must be a number in %(0", bad({ { x = 2, y = 2, value = 0 } }))
    assert.matches("%.value must be", err_of(find, { interests = { { x = 2, y = 2, value = -1 } } }))
    assert.matches("%.value must be", err_of(find, { interests = { { x = 2, y = 2, value = 0 / 0 } } }))
    assert.matches("%.value must be", err_of(find, { interests = { { x = 2, y = 2, value = math.huge } } }))
    assert.matches("%.value must be", err_of(find, { interests = { { x = 2, y = 2 } } }))
    assert.matches("'interests'%[2%]%.x must be an integer", bad({ { 1, 1, 1 }, { x = 1.5, y = 2, value = 1 } }))
    assert.matches("'interests'%[1%] is not a cell of the 4x4 grid", bad({ { x = 5, y = 1, value = 1 } }))
    assert.matches("cannot be used with 'partial'", err_of(find, { interests = { { 2, 2, 1 } }, partial = true }))
    assert.matches("cannot be used with 'partial'",
      err_of(grid.find_nearest, grid, 1, 1, { { x = 4, y = 4 } }, { interests = { { 2, 2, 1 } }, partial = true }))
    local g = astar.graph()
    g:add_node(0, 0)
    g:add_node(1, 0)
    g:add_edge(1, 2)
    assert.matches("names node 3 of a graph of 2 nodes", err_of(g.find, g, 1, 2, { interests = { { id = 3, value = 1 } } }))
    assert.matches("'interests'%[1%]%.id must be an integer", err_of(g.find, g, 1, 2, { interests = { { id = 0, value = 1 } } }))
    -- fields rank every cell by its distance, not by a score: no interests there
    assert.matches("interests", err_of(grid.distance_field, grid, { { x = 1, y = 1 } }, { interests = { { 2, 2, 1 } } }))
    local path, info = find({ interests = {} })
    assert.is_table(path)
    assert(near(info.cost, 3 * math.sqrt(2)))
    local _, again = find()
    assert.are.equal("found", again.status)
  end)

  it("a metamethod on an interest that blocks its cell is read first: the query sees the cell blocked", function()
    local grid = astar.grid(5, 3)
    local pack = setmetatable({ x = 3, y = 1 }, {
      __index = function(_, k)
        if k == "value" then
          grid:set_cost(3, 1, false)
          return 50
        end
      end,
    })
    local path, info = grid:find(1, 2, 5, 2, { interests = { pack } })
    assert.is_nil(info.interest)
    assert.are.equal(4, info.cost)
    assert.are.equal(5, #path)
  end)
end)
