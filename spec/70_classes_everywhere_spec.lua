-- Terrain classes everywhere a grid query runs: distance_field (and field_job), range,
-- check_path and repair weigh the terrain by the query's classes as find does (spec 64).
-- Every answer is checked against the oracle (spec/support/dijkstra.lua), which applies the
-- classes itself (cost * factor, a wall where false).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261170")

-- Classes 0..3 on the world's cells and a query's table: a wall, left out (1), cheaper or
-- dearer than the terrain.
local function add_classes(rng, world)
  world.class = {}
  for y = 1, world.h do
    world.class[y] = {}
    for x = 1, world.w do world.class[y][x] = rng.int(0, 3) end
  end
  local classes = {}
  for c = 0, 3 do
    local r = rng.next()
    if r < 0.2 then classes[c] = false
    elseif r < 0.4 then classes[c] = nil
    elseif r < 0.6 then classes[c] = 0.1 + rng.next() * 0.8
    else classes[c] = 1 + rng.next() * 4 end
  end
  world.classes = classes
  return classes
end

-- A world with some per-query options on (those fields and walks take), its classes, and
-- the grid and options that see what the oracle sees.
local function classed_world(rng)
  local world = worlds.random_world(rng, { layers = rng.next() < 0.3, known = rng.next() < 0.2,
                                           node_cost = rng.next() < 0.15, hex = rng.next() < 0.2 })
  local classes = add_classes(rng, world)
  local grid = oracle.grid(astar, world)
  local opts = worlds.query_opts(astar, grid, world)
  opts.classes = classes
  return world, grid, opts
end

local function same_cost(got, want, where)
  assert(got == want, string.format("%s: cost %.17g, the oracle %.17g", where, tostring(got), want))
end

describe("terrain classes everywhere", function()
  it("distance_field and field_job give every cell the oracle's cost to the goal", function()
    local rng = oracle.rng(SEED)
    local reached, walled = 0, 0
    for n = 1, scale(60) do
      local world, grid, opts = classed_world(rng)
      local gx, gy = rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.distances_to(world, gx, gy)
      local field = grid:distance_field({ { x = gx, y = gy } }, opts)
      local job = grid:field_job({ { x = gx, y = gy } }, opts)
      while job:step(3) == "running" do end
      local sliced = job:result()
      for y = 1, world.h do
        for x = 1, world.w do
          local where = ("world %d cell (%d,%d)"):format(n, x, y)
          if want[y][x] == math.huge then
            assert(field:distance(x, y) == nil, where .. ": reached, the oracle says not")
            assert(sliced:distance(x, y) == nil, where .. " (job)")
          else
            assert(oracle.near(field:distance(x, y), want[y][x]), where)
            assert.are.equal(field:distance(x, y), sliced:distance(x, y), where .. " (job)")
            assert(oracle.near(oracle.path_cost(world, field:path(x, y)), want[y][x]), where .. ": path")
            reached = reached + 1
          end
          if world.cost[y][x] and world.classes[world.class[y][x]] == false then walled = walled + 1 end
        end
      end
    end
    assert(reached > scale(400) and walled > scale(100), reached .. " reached, " .. walled .. " walled")
  end)

  it("a field job with classes starts over at a class write, and answers for the new classes", function()
    local rng = oracle.rng(SEED + 1)
    local restarted = 0
    for n = 1, scale(20) do
      local world = worlds.random_world(rng, { w = 9, h = 9 })
      local classes = add_classes(rng, world)
      local grid = oracle.grid(astar, world)
      local job = grid:field_job({ { x = 5, y = 5 } }, { classes = classes })
      job:step(5)
      for _ = 1, 4 do
        local x, y, c = rng.int(1, 9), rng.int(1, 9), rng.int(0, 3)
        world.class[y][x] = c
        grid:set_class(x, y, c)
      end
      while job:step(4) == "running" do end
      local field, info = job:result()
      if info.restarts > 0 then restarted = restarted + 1 end
      local want = oracle.distances_to(world, 5, 5)
      for y = 1, 9 do
        for x = 1, 9 do
          local got = field:distance(x, y)
          if want[y][x] == math.huge then assert.is_nil(got, "world " .. n)
          else assert(oracle.near(got, want[y][x]), ("world %d (%d,%d)"):format(n, x, y)) end
        end
      end
    end
    assert(restarted > scale(10), "restarted " .. restarted)
  end)

  it("range lists the cells within budget at the oracle's cost", function()
    local rng = oracle.rng(SEED + 2)
    local listed = 0
    for n = 1, scale(60) do
      local world, grid, opts = classed_world(rng)
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local budget = rng.next() * 8
      local cells = grid:range(sx, sy, budget, opts)
      local dist = oracle.distances(world, sx, sy)
      local seen = {}
      for _, c in ipairs(cells) do
        assert(oracle.near(c.cost, dist[c.y][c.x]), ("world %d (%d,%d)"):format(n, c.x, c.y))
        seen[c.y * 100 + c.x] = true
      end
      for y = 1, world.h do
        for x = 1, world.w do
          if dist[y][x] <= budget - 1e-9 then assert(seen[y * 100 + x], ("world %d misses (%d,%d)"):format(n, x, y)) end
        end
      end
      listed = listed + #cells
    end
    assert(listed > scale(300), "listed " .. listed)
  end)

  it("check_path names the first step the classes wall, since or not; repair goes round it", function()
    local rng = oracle.rng(SEED + 3)
    local bad, fine, repaired = 0, 0, 0
    for n = 1, scale(150) do
      local world = worlds.random_world(rng, { hex = rng.next() < 0.2 })
      local grid = oracle.grid(astar, world)
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local path, info = grid:find(sx, sy, gx, gy)
      if path and #path >= 3 then
        local classes = add_classes(rng, world) -- written after the find: no terrain version moves
        for y = 1, world.h do
          for x = 1, world.w do grid:set_class(x, y, world.class[y][x]) end
        end
        local first_bad
        for k = 2, #path do
          local a, b = path[k - 1], path[k]
          if not oracle.step(world, a.x, a.y, b.x, b.y, sx, sy) then first_bad = k break end
        end
        local where = "world " .. n
        assert.are.equal(first_bad, grid:check_path(path, 1, { classes = classes }), where)
        assert.are.equal(first_bad, grid:check_path(path, 1, { classes = classes, since = info.version }), where)
        if first_bad then bad = bad + 1 else fine = fine + 1 end
        -- repair from the start: the least over the cells it may rejoin at of the oracle's way
        -- there plus the old path's rest from there (legal to the end under the classes)
        local dist = oracle.distances(world, sx, sy)
        local best, rest = nil, 0
        if oracle.walkable(world, gx, gy) then
          for j = #path, 2, -1 do
            local a, b = path[j - 1], path[j]
            local d = dist[b.y][b.x]
            if oracle.walkable(world, b.x, b.y) and d < math.huge and (not best or d + rest < best) then best = d + rest end
            local step = oracle.step(world, a.x, a.y, b.x, b.y, sx, sy)
            if not step then break end
            rest = rest + step
          end
        end
        local fixed, finfo = grid:repair(path, 1, { classes = classes })
        if best then
          assert(fixed, where .. ": no repair, the oracle's costs " .. best)
          assert(oracle.near(finfo.cost, best), where .. ": " .. finfo.cost .. " vs " .. best)
          assert(oracle.near(oracle.path_cost(world, fixed, sx, sy), finfo.cost), where .. " (walked)")
          repaired = repaired + 1
        else
          assert.is_nil(fixed, where)
        end
      end
    end
    assert(bad > scale(15) and fine > scale(15) and repaired > scale(30),
      ("bad %d, fine %d, repaired %d"):format(bad, fine, repaired))
  end)
end)
