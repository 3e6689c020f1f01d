-- Path repair (issue 18, item 2): grid:check_path finds the first step a query no longer
-- allows; grid:repair leaves the old path where the unit stands and rejoins it at the best
-- later cell. Checked against the oracle: the repaired cost is the least over every detour
-- that rejoins (d(s, path[j]) + the old rest from j), never below a fresh find's. Set
-- ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local worlds = require("spec.support.worlds")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261125")
local near = oracle.near

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(e)
end

-- The oracle's view of an old path from index from: the first index after it whose step the
-- world no longer allows (nil if none); rest[j], what the old path costs from j to its end
-- for every j it can rejoin at (legal from there on, j > from, its cell enterable); and the
-- first j of the legal rest (entered or not), where a window of rejoin_within cells starts.
local function walk(world, path, from)
  local s = path[from]
  local first_bad
  for k = from + 1, #path do
    local a, b = path[k - 1], path[k]
    if not oracle.step(world, a.x, a.y, b.x, b.y, s.x, s.y, k - from) then
      first_bad = k
      break
    end
  end
  local rest, sum = {}, 0
  local n = #path
  if oracle.walkable(world, path[n].x, path[n].y) then rest[n] = 0 end
  local first = n
  for j = n - 1, from + 1, -1 do
    local a, b = path[j], path[j + 1]
    local step = oracle.step(world, a.x, a.y, b.x, b.y, s.x, s.y, j + 1 - from)
    if not step then break end
    sum = sum + step
    first = j
    if oracle.walkable(world, a.x, a.y) then rest[j] = sum end
  end
  return first_bad, rest, first
end

-- The best repair: min over rejoin cells j (below `last` if given) of d(path[from], path[j]) +
-- rest[j].
local function best_repair(world, path, from, rest, last)
  local s = path[from]
  local dist = oracle.distances(world, s.x, s.y)
  local best
  for j, r in pairs(rest) do
    local d = dist[path[j].y][path[j].x]
    if d < math.huge and (not last or j <= last) and (not best or d + r < best) then best = d + r end
  end
  return best
end

local random_features = worlds.random_features

-- A world, its grid and a path found on the terrain alone, then a door closed on it: one to
-- three of its cells blocked (in the world and on the grid). nil when no path was found.
local function world_with_old_path(rng, features)
  local world = worlds.random_world(rng, features)
  local grid = oracle.grid(astar, world)
  local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
  local gx, gy = rng.int(1, world.w), rng.int(1, world.h)
  local path = grid:find(sx, sy, gx, gy)
  if not path or #path < 3 then return nil end
  for _ = 1, rng.int(0, 3) do
    local k = rng.int(2, #path - 1)
    local c = path[k]
    world.cost[c.y][c.x] = false
    grid:set_cost(c.x, c.y, false)
  end
  return world, grid, path
end

describe("check_path", function()
  it("names the first step after from that the query no longer allows (the oracle's)", function()
    local rng = oracle.rng(SEED)
    local bad, fine = 0, 0
    for n = 1, scale(300) do
      local world, grid, path = world_with_old_path(rng, random_features(rng))
      if world then
        local opts = worlds.query_opts(astar, grid, world)
        local from = rng.int(1, #path)
        local want = walk(world, path, from)
        local got = grid:check_path(path, from, opts)
        assert.are.equal(want, got, "world " .. n .. " from " .. from)
        if got then bad = bad + 1 else fine = fine + 1 end
        if from == 1 then assert.are.equal(got, grid:check_path(path, nil, opts)) end
      end
    end
    assert(bad > scale(40) and fine > scale(40), "bad " .. bad .. ", fine " .. fine)
  end)

  it("reads flat paths too, and a path of one cell is always fine", function()
    local grid = astar.grid(6, 3)
    local flat = grid:find(1, 2, 6, 2, { path = "flat" })
    assert.is_nil(grid:check_path(flat))
    grid:set_cost(4, 2, false)
    assert.are.equal(4, grid:check_path(flat))
    assert.is_nil(grid:check_path({ { x = 4, y = 2 } }))
    -- the cell the unit stands on is left as a search leaves a blocked start
    assert.is_nil(grid:check_path({ { x = 4, y = 2 }, { x = 5, y = 2 } }))
    -- a step that is not a move
    assert.are.equal(2, grid:check_path({ { x = 1, y = 1 }, { x = 3, y = 1 } }))
  end)
end)

describe("repair", function()
  -- The end is a rejoin cell too: with every cell a rejoin, the cost is a fresh find's, and
  -- it replans only when there is no way; rejoin_within = k keeps the k cells beyond the
  -- blockage, and replans when none of them is reached.
  it("the best detour that rejoins (oracle), never below a fresh find; the path legal", function()
    local rng = oracle.rng(SEED + 1)
    local rejoined, replanned, none = 0, 0, 0
    for n = 1, scale(300) do
      local world, grid, path = world_with_old_path(rng, random_features(rng))
      if world then
        local opts = worlds.query_opts(astar, grid, world)
        local from = rng.int(1, #path - 1)
        local s, goal = path[from], path[#path]
        local _, rest, first = walk(world, path, from)
        local within = rng.next() < 0.5 and rng.int(1, 4) or nil
        opts.rejoin_within = within
        local want = best_repair(world, path, from, rest, within and first + within - 1)
        local fresh = oracle.cost(world, s.x, s.y, goal.x, goal.y)
        local new, info = grid:repair(path, from, opts)
        local where = string.format("world %d (%dx%d %s), from %d of %d", n, world.w, world.h,
          world.topology or world.diagonal, from, #path)
        if want then
          rejoined = rejoined + 1
          assert(new, where .. ": no path, oracle " .. want)
          assert.is_nil(info.replanned, where)
          assert(near(info.cost, want), where .. ": cost " .. info.cost .. " ~= oracle " .. want)
          assert(info.cost >= fresh - 1e-9, where .. ": below a fresh find")
          -- it rejoins: the old path's rest from info.rejoin ends the new one
          local j = info.rejoin
          assert(j and j > from and j <= #path, where .. ": rejoin " .. tostring(j))
          if within then assert(j >= first and j < first + within, where .. ": rejoin outside the window") end
          if not within then assert(near(info.cost, fresh), where .. ": every cell a rejoin, yet not a fresh find's cost") end
          local tail = #new - (#path - j)
          for k = j, #path do assert.are.same(path[k], new[tail + k - j], where) end
        elseif fresh then
          replanned = replanned + 1
          assert.is_true(info.replanned, where)
          assert.is_nil(info.rejoin, where)
          assert(near(info.cost, fresh), where .. ": replanned cost " .. info.cost .. " ~= " .. fresh)
        else
          none = none + 1
          assert.is_nil(new, where)
          assert.are.equal("unreachable", info.status, where)
        end
        if new then
          assert.are.same({ x = s.x, y = s.y }, new[1], where)
          assert.are.same({ x = goal.x, y = goal.y }, new[#new], where)
          assert.are.equal(#new, info.length, where)
          assert(near(oracle.path_cost(world, new, s.x, s.y), info.cost), where .. ": the path's own cost")
        end
      end
    end
    assert(rejoined > scale(80) and replanned >= scale(3) and none > scale(5),
      string.format("rejoined %d, replanned %d, none %d", rejoined, replanned, none))
  end)

  it("turn_penalty and claim_window: the path's own cost, legal, never below the optimum without them", function()
    local rng = oracle.rng(SEED + 2)
    local checked = 0
    for n = 1, scale(100) do
      local features = random_features(rng)
      features.hex, features.turns, features.claims = false, true, rng.next() < 0.5
      features.windows = features.claims and rng.next() < 0.5
      local world, grid, path = world_with_old_path(rng, features)
      if world then
        local opts = worlds.query_opts(astar, grid, world)
        local from = rng.int(1, #path - 1)
        local new, info = grid:repair(path, from, opts)
        if new then
          local s = path[from]
          assert(near(oracle.path_cost(world, new, s.x, s.y), info.cost), "world " .. n)
          if not world.claim_window then
            local plain = {}
            for k, v in pairs(world) do plain[k] = v end
            plain.turn_penalty = nil
            local best = oracle.cost(plain, s.x, s.y, path[#path].x, path[#path].y)
            assert(info.cost >= best - 1e-9, "world " .. n .. ": below the optimum")
            checked = checked + 1
          end
        end
      end
    end
    assert(checked > scale(16), "checked " .. checked)
  end)

  it("a unit standing in the way: node_cost blocks a cell only for this query", function()
    local grid = astar.grid(12, 5)
    local path = grid:find(1, 3, 12, 3)
    local occupied = { [7] = true }
    local function node_cost(x, y) if y == 3 and occupied[x] then return false end end
    assert.are.equal(7, grid:check_path(path, 1, { node_cost = node_cost }))
    local new, info = grid:repair(path, 2, { node_cost = node_cost })
    assert.are.equal("found", info.status)
    assert(info.rejoin >= 8)
    assert(near(info.cost, 8 + 2 * math.sqrt(2)))
    for _, p in ipairs(new) do assert.is_false(p.y == 3 and p.x == 7) end
    -- the grid itself is untouched
    assert.is_nil(grid:check_path(path))
  end)

  -- A rest dearer than a target cost may be (1e100) on terrain that dear: those cells do not
  -- rejoin, the nearer ones do; the answer is the oracle's best (it failed "invalid argument").
  it("terrain so dear that the old path's rest costs more than 1e100", function()
    local grid = astar.grid(30, 3, { diagonal = "never" })
    local world = { w = 30, h = 3, cost = { {}, {}, {} }, diagonal = "never" }
    local function set(x, y, c) grid:set_cost(x, y, c); world.cost[y][x] = c ~= math.huge and c end
    for x = 1, 30 do set(x, 1, math.huge); set(x, 2, 1e100); set(x, 3, math.huge) end
    for x = 14, 16 do set(x, 1, 1) end
    local path = grid:find(1, 2, 30, 2)
    set(15, 2, math.huge)
    local new, info = grid:repair(path, 1)
    assert.are.equal("found", info.status)
    assert(near(info.cost, oracle.path_cost(world, new)))
    assert(near(info.cost, oracle.cost(world, 1, 2, 30, 2)))
  end)

  it("fills into and info in place, with the path form asked for", function()
    local grid = astar.grid(8, 3)
    local path = grid:find(1, 2, 8, 2)
    grid:set_cost(5, 2, false)
    local into, info = {}, { mine = 1 }
    for i = 1, 11 do into[i] = "stale" end
    local got, got_info = grid:repair(path, 1, { into = into, info = info, path = "flat" })
    assert.are.equal(into, got)
    assert.are.equal(info, got_info)
    assert.are.equal(2 * info.length, #got)
    assert.are.equal(1, info.mine)
    assert.are.equal(1, got[1])
    assert.are.equal(8, got[#got - 1])
    assert.is_number(info.rejoin)
    -- a second repair that must replan clears rejoin
    for y = 1, 3 do grid:set_cost(7, y, false) end
    grid:repair(path, 1, { info = info })
    assert.is_nil(info.rejoin)
    assert.are.equal("unreachable", info.status)
    assert.is_true(info.replanned)
  end)

  it("rejoin_within must be an integer >= 1", function()
    local grid = astar.grid(5, 5)
    local path = grid:find(1, 1, 5, 5)
    assert.matches("'rejoin_within' must be an integer >= 1", err_of(grid.repair, grid, path, 1, { rejoin_within = 0 }))
    assert.matches("'rejoin_within' must be an integer >= 1", err_of(grid.repair, grid, path, 1, { rejoin_within = 1.5 }))
    assert.matches("does not apply to check_path", err_of(grid.check_path, grid, path, 1, { rejoin_within = 2 }))
    local _, info = grid:repair(path, 1, { rejoin_within = 2 ^ 40 })
    assert.are.equal("found", info.status)
  end)

  it("bad arguments get clear errors, and the grid stays usable", function()
    local grid = astar.grid(5, 5)
    local path = grid:find(1, 1, 5, 5)
    assert.matches("table", err_of(grid.repair, grid, 5, 1))
    assert.matches("non%-empty", err_of(grid.repair, grid, {}, 1))
    assert.matches("path point 2", err_of(grid.repair, grid, { { x = 1, y = 1 }, 7 }, 1))
    assert.matches("not a cell of the 5x5 grid", err_of(grid.check_path, grid, { { x = 9, y = 1 } }))
    assert.matches("two numbers per cell", err_of(grid.check_path, grid, { 1, 1, 2 }))
    assert.matches("flat path cell 2", err_of(grid.check_path, grid, { 1, 1, 2, 0 }))
    assert.matches("index", err_of(grid.repair, grid, path))
    assert.matches("index", err_of(grid.repair, grid, path, 0))
    assert.matches("index", err_of(grid.repair, grid, path, #path + 1))
    assert.matches("index", err_of(grid.check_path, grid, path, 1.5))
    assert.matches("'partial' does not apply to repair", err_of(grid.repair, grid, path, 1, { partial = true }))
    assert.matches("'interests' does not apply to repair", err_of(grid.repair, grid, path, 1, { interests = {} }))
    assert.matches("'weight' does not apply to check_path", err_of(grid.check_path, grid, path, 1, { weight = 2 }))
    assert.matches("unknown option", err_of(grid.repair, grid, path, 1, { colour = 1 }))
    local err = err_of(grid.repair, grid, path, 1, { node_cost = function() error("boom") end })
    assert.matches("boom", err)
    local new, info = grid:repair(path, 1)
    assert.are.equal("found", info.status)
    assert.are.equal(#path, #new)
  end)

  it("a metamethod on a path point that blocks the way is read before the walk", function()
    local grid = astar.grid(6, 3)
    local path = grid:find(1, 2, 6, 2)
    path[3] = setmetatable({}, { __index = function(_, k)
      grid:set_cost(4, 2, false)
      return k == "x" and 3 or 2
    end })
    assert.are.equal(4, grid:check_path(path))
    local new, info = grid:repair(path, 1)
    assert.are.equal("found", info.status)
    for _, p in ipairs(new) do assert.is_false(p.x == 4 and p.y == 2) end
  end)
end)
