-- Units bigger than one cell (size = n) in every grid query besides find (spec 65): find_nearest,
-- find_many, distance_field, range, check_path and repair. Every answer is checked against the
-- oracle (spec/support/dijkstra.lua with world.size), which checks each footprint cell itself
-- and knows nothing of the grid's clearance table.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261167")

-- A small random world with a unit of size 1..3, its grid and the options that make the grid
-- see what the oracle sees (layers, claims and noise now and then: they count at the anchor).
local function sized_world(rng)
  local features = { w = rng.int(3, 9), h = rng.int(3, 9), layers = rng.next() < 0.2,
                     claims = rng.next() < 0.2, noise = rng.next() < 0.15 }
  local world = worlds.random_world(rng, features)
  world.size = rng.int(1, 3)
  local grid = oracle.grid(astar, world)
  local opts = worlds.query_opts(astar, grid, world)
  opts.size = world.size
  return world, grid, opts
end

local function where(n, world, what)
  return string.format("world %d (%dx%d %s size %d) %s", n, world.w, world.h, world.diagonal, world.size, what)
end

local function random_cell(rng, world) return { x = rng.int(1, world.w), y = rng.int(1, world.h) } end

describe("units bigger than one cell in every grid query", function()
  it("find_nearest and find_many equal the footprint oracle (" .. scale(60) .. " worlds)", function()
    local rng = oracle.rng(SEED)
    local found, none = 0, 0
    for n = 1, scale(60) do
      local world, grid, opts = sized_world(rng)
      local s = random_cell(rng, world)
      local targets = {}
      for i = 1, rng.int(1, 4) do targets[i] = random_cell(rng, world) end
      local dist = oracle.distances(world, s.x, s.y)
      local want = math.huge
      for _, t in ipairs(targets) do
        if oracle.stands(world, t.x, t.y) then want = math.min(want, dist[t.y][t.x]) end
      end
      local path, info = grid:find_nearest(s.x, s.y, targets, opts)
      local at = where(n, world, string.format("nearest from %d,%d", s.x, s.y))
      if want == math.huge then
        assert(path == nil, at .. ": a path the oracle says does not exist")
        none = none + 1
      else
        assert(path, at .. ": no path, the oracle's costs " .. want)
        assert(info.cost == want, at .. ": cost " .. info.cost .. ", the oracle " .. want)
        local t = targets[info.target]
        assert(path[#path].x == t.x and path[#path].y == t.y, at .. ": ends off its target")
        assert(oracle.path_cost(world, path, s.x, s.y) == want, at .. ": the path's own cost")
        found = found + 1
      end
      -- find_many: each query its own find, on threads (no callbacks here)
      local queries = {}
      for i = 1, 3 do
        local a, b = random_cell(rng, world), random_cell(rng, world)
        queries[i] = { sx = a.x, sy = a.y, gx = b.x, gy = b.y }
      end
      local results = grid:find_many(queries, opts, { threads = 2 })
      for i, q in ipairs(queries) do
        local cost = oracle.cost(world, q.sx, q.sy, q.gx, q.gy)
        local r = results[i]
        local qat = where(n, world, string.format("many %d,%d -> %d,%d", q.sx, q.sy, q.gx, q.gy))
        if cost == nil then
          assert(r.path == nil, qat .. ": a path the oracle says does not exist")
        else
          assert(r.path and r.info.cost == cost, qat .. ": cost " .. tostring(r.info.cost) .. ", the oracle " .. cost)
          assert(oracle.path_cost(world, r.path, q.sx, q.sy) == cost, qat .. ": the path's own cost")
        end
      end
    end
    assert.is_true(found > scale(60) / 3 and none > 0, found .. " found, " .. none .. " not")
  end)

  it("distance_field and range equal the footprint oracle (" .. scale(40) .. " worlds)", function()
    local rng = oracle.rng(SEED + 1)
    local reached, unreached = 0, 0
    for n = 1, scale(40) do
      local world, grid, opts = sized_world(rng)
      world.claim_radius, opts.claim_radius = nil, nil -- a field has no start to count it from
      -- a field toward goals: each cell's cost to the nearest goal that can hold the unit
      local goals = {}
      for i = 1, rng.int(1, 2) do goals[i] = random_cell(rng, world) end
      local to = {}
      for i, goal in ipairs(goals) do to[i] = oracle.distances_to(world, goal.x, goal.y) end
      local field = grid:distance_field(goals, opts)
      for y = 1, world.h do
        for x = 1, world.w do
          local want = math.huge
          for i = 1, #goals do want = math.min(want, to[i][y][x]) end
          local got = field:distance(x, y)
          local at = where(n, world, string.format("field at %d,%d", x, y))
          if want == math.huge then
            assert(got == nil, at .. ": reached, the oracle says not")
            unreached = unreached + 1
          else
            assert(got == want, at .. ": " .. tostring(got) .. " vs the oracle's " .. want)
            local path = field:path(x, y)
            assert(oracle.path_cost(world, path) == want, at .. ": its way's cost")
            reached = reached + 1
          end
        end
      end
      -- a range from a start: every cell within the budget, at its cost from the start
      local s = random_cell(rng, world)
      local budget = rng.next() * 8
      local from = oracle.distances(world, s.x, s.y)
      local cells = grid:range(s.x, s.y, budget, opts)
      local seen = {}
      for _, c in ipairs(cells) do
        local at = where(n, world, string.format("range from %d,%d at %d,%d", s.x, s.y, c.x, c.y))
        assert(c.cost == from[c.y][c.x] and c.cost <= budget, at .. ": " .. c.cost .. " vs " .. from[c.y][c.x])
        seen[c.y * 100 + c.x] = true
      end
      for y = 1, world.h do
        for x = 1, world.w do
          if from[y][x] <= budget then
            assert(seen[y * 100 + x], where(n, world, string.format("range from %d,%d misses %d,%d", s.x, s.y, x, y)))
          end
        end
      end
    end
    assert.is_true(reached > scale(400) and unreached > scale(40), reached .. " reached, " .. unreached .. " not")
  end)

  it("check_path and repair see the footprint: a wall beside a 1-cell path blocks a 2x2 unit", function()
    local g = astar.grid(8, 4, { diagonal = "never" })
    local path = g:find(1, 1, 7, 1, { size = 2 })
    assert.are.equal(7, #path)
    assert.is_nil(g:check_path(path, 1, { size = 2 }))
    g:set_cost(4, 2, false) -- under the unit's lower row at anchor 3 and 4, not on the path itself
    assert.is_nil(g:check_path(path)) -- one cell still passes
    assert.are.equal(3, g:check_path(path, 1, { size = 2 }))
    local fixed, info = g:repair(path, 1, { size = 2 })
    assert.is_not_nil(fixed)
    local world = oracle.world_from_rows({ "........", "...#....", "........", "........" }, "never")
    world.size = 2
    assert.are.equal(oracle.cost(world, 1, 1, 7, 1), info.cost)
    assert.are.equal(info.cost, oracle.path_cost(world, fixed))
  end)

  it("check_path and repair equal the footprint oracle after random writes (" .. scale(60) .. " worlds)", function()
    local rng = oracle.rng(SEED + 2)
    local broken = 0
    for n = 1, scale(60) do
      local world, grid, opts = sized_world(rng)
      local a, b = random_cell(rng, world), random_cell(rng, world)
      local path = grid:find(a.x, a.y, b.x, b.y, opts)
      if path then
        for _ = 1, rng.int(1, 3) do -- near the path: under a footprint, or beside one
          local p = path[rng.int(1, #path)]
          local x = math.min(world.w, math.max(1, p.x + rng.int(-1, world.size)))
          local y = math.min(world.h, math.max(1, p.y + rng.int(-1, world.size)))
          world.cost[y][x] = false
          grid:set_cost(x, y, false)
        end
        -- the first step (from index 1) the oracle finds illegal, or nil
        local want
        for i = 2, #path do
          if not oracle.step(world, path[i - 1].x, path[i - 1].y, path[i].x, path[i].y, a.x, a.y, i - 1) then
            want = i
            break
          end
        end
        local at = where(n, world, string.format("%d,%d -> %d,%d", a.x, a.y, b.x, b.y))
        assert(grid:check_path(path, 1, opts) == want, at .. ": check_path " ..
          tostring(grid:check_path(path, 1, opts)) .. ", the oracle " .. tostring(want))
        if want then
          broken = broken + 1
          local fixed, info = grid:repair(path, 1, opts)
          if oracle.cost(world, a.x, a.y, b.x, b.y) == nil then
            assert(fixed == nil, at .. ": repaired where the oracle finds no way")
          else
            assert(fixed, at .. ": no repair, the oracle finds a way")
            assert(oracle.path_cost(world, fixed, a.x, a.y) == info.cost, at .. ": the repaired path's cost")
            assert(fixed[#fixed].x == b.x and fixed[#fixed].y == b.y, at .. ": ends off the goal")
          end
        end
      end
    end
    assert.is_true(broken > scale(60) / 6, broken .. " broken paths")
  end)
end)
