-- Terrain classes everywhere a grid query runs: distance_field (and field_job), range,
-- check_path and repair weigh the terrain by the query's classes as find does (spec 64).
-- Every answer is checked against the oracle (spec/support/dijkstra.lua), which applies the
-- classes itself (cost * factor, a wall where false).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261170")

local add_classes = worlds.add_classes

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

  it("a field job with classes follows class writes (or starts over where it read them)", function()
    local rng = oracle.rng(SEED + 1)
    local restarted, followed = 0, 0
    for n = 1, scale(30) do
      local world = worlds.random_world(rng, { w = 9, h = 9 })
      local classes = add_classes(rng, world)
      local grid = oracle.grid(astar, world)
      local job = grid:field_job({ { x = 5, y = 5 } }, { classes = classes })
      local running = job:step(3) == "running" -- (one that ended answers for the map it saw)
      for _ = 1, 4 do -- every other world, far from what it has reached: followed, not read
        local x, y, c = n % 2 == 1 and ({ 1, 2, 8, 9 })[rng.int(1, 4)] or rng.int(1, 9), rng.int(1, 9), rng.int(0, 3)
        world.class[y][x] = c
        grid:set_class(x, y, c)
      end
      while job:step(4) == "running" do end
      local field, info = job:result()
      if info.restarts > 0 then restarted = restarted + 1 elseif running then followed = followed + 1 end
      local want = oracle.distances_to(world, 5, 5)
      for y = 1, running and 9 or 0 do
        for x = 1, 9 do
          local got = field:distance(x, y)
          if want[y][x] == math.huge then assert.is_nil(got, "world " .. n)
          else assert(oracle.near(got, want[y][x]), ("world %d (%d,%d)"):format(n, x, y)) end
        end
      end
    end
    assert(restarted > 0 and followed > 0, ("restarted %d, followed %d"):format(restarted, followed))
  end)

  it("a search job with classes repairs what class and terrain writes change under it", function()
    -- Class writes and terrain writes between its steps (never both in one step: which came
    -- first at a cell is not kept, and that starts it over): the answer is the oracle's on the
    -- map as it ends, and most jobs get there by repairs, not by starting over.
    local rng = oracle.rng(SEED + 5)
    local repaired, restarted = 0, 0
    for n = 1, scale(40) do
      local world = worlds.random_world(rng, { w = 12, h = 12, node_cost = n % 5 == 0 })
      local classes = add_classes(rng, world)
      if n % 2 == 0 then -- terrain of one cost: the classed loop in quanta, which leaves it
        for y = 1, 12 do
          for x = 1, 12 do if world.cost[y][x] then world.cost[y][x] = 1 end end
        end
      end
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      opts.classes = classes
      local sx, sy, gx, gy = 1, 1, 12, 12
      local job = grid:search(sx, sy, gx, gy, opts)
      local steps = 0
      while job:step(3) == "running" and steps < 12 do -- (writes only under a running job)
        steps = steps + 1
        for _ = 1, 2 do
          local x, y = rng.int(2, 11), rng.int(2, 11)
          if steps % 2 == 1 then
            local c = rng.int(0, 3)
            world.class[y][x] = c
            grid:set_class(x, y, c)
          elseif world.cost[y][x] then
            local c = rng.next() < 0.3 and false or 1 + rng.int(0, 6) / 2
            world.cost[y][x] = c
            grid:set_cost(x, y, c)
          end
        end
      end
      while job:step(5) == "running" do end
      local path, info = job:result()
      local want = oracle.cost(world, sx, sy, gx, gy)
      local where = "world " .. n
      if want then
        assert(path, where .. ": no path, the oracle's costs " .. want)
        same_cost(info.cost, want, where)
        same_cost(oracle.path_cost(world, path, sx, sy), info.cost, where .. " (walked)")
      else
        assert.is_nil(path, where)
      end
      if info.repairs > 0 and info.restarts == 0 then repaired = repaired + 1 end
      if info.restarts > 0 then restarted = restarted + 1 end
    end
    assert(repaired > scale(4) and restarted > 0, ("repaired %d, restarted %d"):format(repaired, restarted))
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
    assert(listed > scale(150), "listed " .. listed)
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

  it("on terrain of one cost the classed loop counts in quanta: the same path and expansions as in doubles", function()
    -- partial = true takes the loop in doubles (a reachable goal: the same answer); the loop in
    -- quanta must order its ties alike, so the two agree to the last step and expansion
    -- (big enough that the keys' tie bits are few and ties many: lak303d's case)
    local rng = oracle.rng(SEED + 4)
    local compared = 0
    for n = 1, scale(4) do
      local w, h = 160, 160
      local world = { w = w, h = h, cost = {}, class = {}, diagonal = n % 3 == 0 and "always" or "no_corner_cut" }
      for y = 1, h do
        world.cost[y], world.class[y] = {}, {}
        for x = 1, w do
          world.cost[y][x] = rng.next() < 0.15 and false or 1
          world.class[y][x] = (math.floor(x / 5) + math.floor(y / 5)) % 3
        end
      end
      local grid = oracle.grid(astar, world)
      local classes = { [1] = 1.5, [2] = rng.next() < 0.3 and false or 2 }
      for _ = 1, 6 do
        local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
        local path, info = grid:find(sx, sy, gx, gy, { classes = classes })
        local dpath, dinfo = grid:find(sx, sy, gx, gy, { classes = classes, partial = true })
        if path then
          local where = ("world %d %d,%d -> %d,%d"):format(n, sx, sy, gx, gy)
          assert.are.same(dpath, path, where)
          assert.are.equal(dinfo.expansions, info.expansions, where)
          assert.are.equal(dinfo.cost, info.cost, where)
          compared = compared + 1
        end
      end
    end
    assert(compared > scale(12), "compared " .. compared)
  end)

  it("classes from data: a load legend, Tiled tile properties, names", function()
    local T = astar.class_names({ water = 1, forest = 2, road = 3 })
    assert.are.equal(1, T.water)
    assert.are.equal(3, T.road)
    assert.has_error(function() return T.lava end, 'no terrain class named "lava"')
    assert.has_error(function() T.lava = 4 end)
    assert.are.same({ [1] = false, [2] = 2.5, [0] = 3 }, T({ water = false, forest = 2.5, [0] = 3 }))
    assert.has_error(function() T({ water = 1, [1] = 2 }) end) -- class 1 twice
    assert.has_error(function() T({ swamp = 1 }) end)
    for _, bad in ipairs({ { water = 256 }, { water = -1 }, { water = 1.5 }, { [1] = 1 }, { water = "1" } }) do
      assert.has_error(function() astar.class_names(bad) end)
    end
    -- read raw: a table's metamethods are not run
    local ran = false
    local hostile = setmetatable({ water = 1 }, { __index = function() ran = true end,
                                                   __pairs = function() ran = true; return next, {}, nil end })
    assert.are.equal(1, astar.class_names(hostile).water)
    assert.are.same({ [1] = false }, T(setmetatable({ water = false }, getmetatable(hostile))))
    assert.is_false(ran)

    -- grid:load: { cost = c, class = k } sets the class; with such entries every cell gets its
    -- entry's (0 where none is said); without them classes stay as they were
    local rows = { "~~..F", "~#..F", "==.=F" }
    local legend = { ["~"] = { cost = 1, class = T.water }, ["."] = 1, ["#"] = false,
                     F = { cost = 2, class = T.forest }, ["="] = { cost = 0.5, class = T.road } }
    local g = astar.grid(5, 3)
    g:set_class(3, 1, 9)
    g:load(rows, legend)
    local want = { "11002", "10002", "33032" }
    for y = 1, 3 do
      for x = 1, 5 do
        assert.are.equal(tonumber(want[y]:sub(x, x)), g:get_class(x, y), ("(%d,%d)"):format(x, y))
      end
    end
    assert.are.equal(2, g:get_cost(5, 1))
    assert.are.equal(0.5, g:get_cost(1, 3))
    g:load({ ".....", ".....", "....." }) -- costs only: the classes stay
    assert.are.equal(1, g:get_class(1, 1))
    assert.are.equal(1, g:get_cost(5, 1))
    g:load({ "..F..", ".....", "....." }, { ["."] = 1, F = { cost = 3 } }) -- an entry: every class set
    assert.are.same({ 0, 0, 3 }, { g:get_class(1, 1), g:get_class(3, 1), g:get_cost(3, 1) })
    g:load(rows, legend)
    -- a bad entry is an error before any cell changes
    assert.has_error(function() g:load(rows, { ["~"] = { cost = 1, class = 256 }, ["."] = 1, ["#"] = false,
                                               F = 2, ["="] = 1 }) end)
    assert.has_error(function() g:load(rows, { ["~"] = { class = 1 }, ["."] = 1, ["#"] = false, F = 2, ["="] = 1 }) end)
    assert.has_error(function() g:load(rows, { ["~"] = { cost = 1, class = "1" }, ["."] = 1, ["#"] = false, F = 2,
                                               ["="] = 1 }) end)
    assert.are.equal(1, g:get_cost(1, 2))
    assert.are.equal(1, g:get_class(1, 1))
    -- what a boat sees of the loaded map, by the oracle
    g:load(rows, legend)
    local world = { w = 5, h = 3, cost = {}, class = {}, diagonal = "no_corner_cut" }
    for y = 1, 3 do
      world.cost[y], world.class[y] = {}, {}
      for x = 1, 5 do
        world.cost[y][x] = g:get_cost(x, y)
        world.class[y][x] = g:get_class(x, y)
      end
    end
    world.classes = T({ [0] = false, water = 1, forest = false, road = false })
    assert.is_nil((g:find(1, 1, 1, 3, { classes = world.classes }))) -- the road is no boat's
    world.classes = T({ water = 1, forest = 3, road = 0.5 })
    local _, info = g:find(1, 1, 5, 3, { classes = world.classes })
    same_cost(info.cost, oracle.cost(world, 1, 1, 5, 3), "loaded")

    -- Tiled: a tile's property class (an id, or a name of class_names)
    local map = {
      width = 3, height = 1, orientation = "orthogonal",
      layers = { { type = "tilelayer", name = "ground", width = 3, height = 1, data = { 1, 2, 3 } } },
      tilesets = { { firstgid = 1, tiles = {
        { id = 0, properties = { { name = "class", value = "water" } } },
        { id = 1, properties = { { name = "class", value = 7 }, { name = "cost", value = 4 } } },
      } } },
    }
    local tg = astar.tiled.grid(map, { class_names = T, property = "cost" })
    assert.are.same({ 1, 7, 0 }, { tg:get_class(1, 1), tg:get_class(2, 1), tg:get_class(3, 1) })
    assert.are.equal(4, tg:get_cost(2, 1))
    local kg = astar.tiled.grid(map, { class_names = { water = 5 }, class_property = "class" })
    assert.are.equal(5, kg:get_class(1, 1))
    assert.has_error(function() astar.tiled.grid(map) end) -- "water" names no class it was given
    map.tilesets[1].tiles[2].properties[1].value = 300
    assert.has_error(function() astar.tiled.grid(map, { class_names = T }) end)
  end)
end)
