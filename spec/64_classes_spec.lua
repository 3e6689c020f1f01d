-- Terrain classes: a class per cell (grid:set_class) and the query option classes, which
-- multiplies a cell's terrain cost by its class's factor or makes it a wall. Every answer is
-- checked against the oracle (spec/support/dijkstra.lua), which applies the classes itself
-- (cost * factor, a wall where false), with the other per-query options on, and against the
-- grid's own shortcuts (jump point search, landmarks, clusters, dead ends), which must not
-- answer for a query whose classes re-weigh the terrain they were built on.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261163")

-- (with now and then a class past 3 that no cell has)
local function add_classes(rng, world) return worlds.add_classes(rng, world, true) end

local function same_cost(got, want, where)
  assert(got == want, string.format("%s: cost %.17g, the oracle %.17g", where, got, want))
end

describe("terrain classes", function()
  it("set_class and get_class: 0 until set, 0..255, refused outside", function()
    local g = astar.grid(4, 3)
    assert.are.equal(0, g:get_class(2, 2))
    g:set_class(2, 2, 255)
    assert.are.equal(255, g:get_class(2, 2))
    assert.are.equal(0, g:get_class(1, 1))
    local version = g:version()
    g:set_class(2, 2, 3)
    assert.are.equal(version, g:version()) -- a class is no terrain write
    assert.are.equal(1, g:get_cost(2, 2))
    for _, bad in ipairs({ -1, 256, 1.5, 0 / 0, math.huge }) do
      assert.has_error(function() g:set_class(1, 1, bad) end)
    end
    assert.has_error(function() g:set_class(1, 1, "1") end)
    assert.has_error(function() g:set_class(5, 1, 1) end)
    assert.has_error(function() g:get_class(0, 1) end)
    assert.are.equal(3, g:get_class(2, 2))
  end)

  it("find equals the oracle on random worlds, with other options on (" .. scale(300) .. " worlds)", function()
    local rng = oracle.rng(SEED)
    local seen = { found = 0, unreachable = 0, blocked_by_class = 0 }
    for n = 1, scale(300) do
      local features = { hex = rng.next() < 0.2, layers = rng.next() < 0.3, claims = rng.next() < 0.3,
                         known = rng.next() < 0.15, noise = rng.next() < 0.15, node_cost = rng.next() < 0.1 }
      local world = worlds.random_world(rng, features)
      local classes = add_classes(rng, world)
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      opts.classes = classes
      opts.info = {}
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local where = string.format("world %d (%dx%d %s) %d,%d -> %d,%d", n, world.w, world.h,
        world.topology or world.diagonal, sx, sy, gx, gy)
      local want = oracle.cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      if want == nil then
        assert(path == nil, where .. ": a path the oracle says does not exist")
        seen.unreachable = seen.unreachable + 1
        if world.cost[gy][gx] and classes[world.class[gy][gx]] == false then
          seen.blocked_by_class = seen.blocked_by_class + 1
        end
      else
        assert(path, where .. ": no path, oracle cost " .. want)
        same_cost(info.cost, want, where)
        same_cost(oracle.path_cost(world, path, sx, sy), info.cost, where .. " (walked)")
        seen.found = seen.found + 1
      end
    end
    assert(seen.found > scale(100) and seen.unreachable > scale(20) and seen.blocked_by_class > scale(5),
      string.format("found %d, unreachable %d (%d at a class wall)", seen.found, seen.unreachable,
        seen.blocked_by_class))
  end)

  it("turn_penalty with classes: the path's exact cost, never below the optimum", function()
    local rng = oracle.rng(SEED + 1)
    local found = 0
    for n = 1, scale(80) do
      local world = worlds.random_world(rng, { turns = true, hex = rng.next() < 0.25 })
      local classes = add_classes(rng, world)
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      opts.classes = classes
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.exact_cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      if want == nil then
        assert.is_nil(path, "world " .. n)
      else
        assert(path, "world " .. n)
        same_cost(oracle.path_cost(world, path, sx, sy), info.cost, "world " .. n)
        assert(info.cost >= want - 1e-9, "world " .. n .. ": below the optimum")
        found = found + 1
      end
    end
    assert(found > scale(30), "found " .. found)
  end)

  it("find_nearest, find_many and jobs answer as find, by the oracle", function()
    local rng = oracle.rng(SEED + 2)
    for n = 1, scale(60) do
      local world = worlds.random_world(rng, { hex = rng.next() < 0.2 })
      local classes = add_classes(rng, world)
      local grid = oracle.grid(astar, world)
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local dist = oracle.distances(world, sx, sy)
      local targets, best = {}, nil
      for i = 1, 3 do
        local t = { x = rng.int(1, world.w), y = rng.int(1, world.h) }
        targets[i] = t
        if oracle.walkable(world, t.x, t.y) and dist[t.y][t.x] < math.huge then
          best = math.min(best or math.huge, dist[t.y][t.x])
        end
      end
      local where = "world " .. n
      local path, info = grid:find_nearest(sx, sy, targets, { classes = classes })
      if best then same_cost(info.cost, best, where .. " nearest") else assert.is_nil(path, where) end
      local gx, gy = targets[1].x, targets[1].y
      local want = oracle.cost(world, sx, sy, gx, gy)
      local many = grid:find_many({ { sx, sy, gx, gy }, { gx, gy, sx, sy } }, { classes = classes }, { threads = 2 })
      if want then same_cost(many[1].info.cost, want, where .. " many") else assert.is_nil(many[1].path, where) end
      local job = grid:search(sx, sy, gx, gy, { classes = classes })
      while job:step(3) == "running" do end
      local jpath, jinfo = job:result()
      if want then same_cost(jinfo.cost, want, where .. " job") else assert.is_nil(jpath, where) end
    end
  end)

  it("a job with classes follows a class write", function()
    local rng = oracle.rng(SEED + 3)
    for n = 1, scale(30) do
      local world = worlds.random_world(rng, { w = 10, h = 10 })
      local classes = add_classes(rng, world)
      local grid = oracle.grid(astar, world)
      local sx, sy, gx, gy = 1, 1, 10, 10
      local job = grid:search(sx, sy, gx, gy, { classes = classes })
      local running = job:step(4) == "running" -- (one that ended answers for the map it saw)
      for _ = 1, 6 do -- reclass a few cells mid-search (a road turned to a wall, say)
        local x, y, c = rng.int(1, 10), rng.int(1, 10), rng.int(0, 3)
        world.class[y][x] = c
        grid:set_class(x, y, c)
      end
      while job:step(5) == "running" do end
      local path, info = job:result()
      local want = oracle.cost(world, sx, sy, gx, gy)
      if running and want then same_cost(info.cost, want, "world " .. n)
      elseif running then assert.is_nil(path, "world " .. n) end
    end
  end)

  it("jump point search, landmarks, clusters and dead ends do not answer for classes", function()
    -- Uniform terrain (jump point search's and JPS+'s), landmarks and clusters built on it, a
    -- corridor into a dead end: classes that make a road ten times cheaper and wall a row.
    local rng = oracle.rng(SEED + 4)
    for n = 1, scale(12) do
      local w, h = 24, 24
      local world = { w = w, h = h, cost = {}, class = {}, diagonal = "no_corner_cut" }
      for y = 1, h do
        world.cost[y], world.class[y] = {}, {}
        for x = 1, w do
          world.cost[y][x] = (x == 12 and y > 3) and false or 1
          world.class[y][x] = (y == 20 or x == 20) and 1 or (y == 6 and x < 12) and 2 or 0
        end
      end
      local grid = oracle.grid(astar, world)
      grid:landmarks(4)
      grid:hierarchy(6)
      grid:prepare_jumps()
      local classes = { [1] = 0.1, [2] = rng.next() < 0.5 and false or 3 }
      world.classes = classes
      for _ = 1, 6 do
        local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
        local want = oracle.cost(world, sx, sy, gx, gy)
        for _, opts in ipairs({ { classes = classes }, { classes = classes, hierarchical = true } }) do
          local path, info = grid:find(sx, sy, gx, gy, opts)
          local where = string.format("world %d %d,%d -> %d,%d%s", n, sx, sy, gx, gy,
            opts.hierarchical and " hierarchical" or "")
          if want then same_cost(info.cost, want, where) else assert.is_nil(path, where) end
        end
      end
    end
  end)

  it("classes that leave the costs uniform: the engine of uniform terrain, the same answer", function()
    -- Every class on the map at factor 2 (a class no cell holds may differ): the query is the
    -- plain one on terrain of cost 2, jump point search included; one cell of the cheap class
    -- makes it A* on re-weighted terrain again, by the oracle.
    local rng = oracle.rng(SEED + 5)
    for n = 1, scale(10) do
      local w, h = 20, 20
      local world = { w = w, h = h, cost = {}, class = {}, diagonal = n % 2 == 0 and "never" or "no_corner_cut" }
      local twin = astar.grid(w, h, { diagonal = world.diagonal })
      for y = 1, h do
        world.cost[y], world.class[y] = {}, {}
        for x = 1, w do
          world.cost[y][x] = rng.next() < 0.2 and false or 1
          world.class[y][x] = rng.next() < 0.5 and 5 or 6
          twin:set_cost(x, y, world.cost[y][x] and 2 or false)
        end
      end
      local grid = oracle.grid(astar, world)
      world.classes = { [5] = 2, [6] = 2, [7] = 0.25 }
      for _ = 1, 5 do
        local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
        local where = string.format("world %d %d,%d -> %d,%d", n, sx, sy, gx, gy)
        local want = oracle.cost(world, sx, sy, gx, gy)
        local path, info = grid:find(sx, sy, gx, gy, { classes = world.classes })
        local tpath, tinfo = twin:find(sx, sy, gx, gy)
        if want then
          same_cost(info.cost, want, where)
          if world.diagonal ~= "never" then -- (4-connected, classes take A*: another path of that cost)
            assert.are.same(tpath, path, where)
            assert.are.equal(tinfo.expansions, info.expansions, where) -- the same engine
          end
        else
          assert.is_nil(path, where)
        end
      end
      world.class[10][10] = 7
      grid:set_class(10, 10, 7)
      for _ = 1, 5 do
        local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
        local want = oracle.cost(world, sx, sy, gx, gy)
        local path, info = grid:find(sx, sy, gx, gy, { classes = world.classes })
        if want then same_cost(info.cost, want, "world " .. n .. " reclassed") else assert.is_nil(path) end
      end
    end
  end)

  it("a grid never classed is class 0 everywhere", function()
    local g = astar.grid(6, 1)
    local _, info = g:find(1, 1, 6, 1, { classes = { [0] = 2.5 } })
    same_cost(info.cost, oracle.round_up(2.5) * 5, "class 0")
    assert.is_nil((g:find(1, 1, 6, 1, { classes = { [0] = false } })))
    local _, plain = g:find(1, 1, 6, 1, { classes = { [1] = false } }) -- no cell of class 1
    same_cost(plain.cost, 5, "class 1 absent")
  end)

  it("refuses hostile classes tables and reads them raw", function()
    local g = astar.grid(5, 5)
    g:set_class(3, 3, 4)
    local bad = {
      { [256] = 1 }, { [-1] = 1 }, { [1.5] = 1 }, { x = 1 }, { [1] = 0 }, { [1] = -2 },
      { [1] = 0 / 0 }, { [1] = math.huge }, { [1] = 1e101 }, { [1] = true }, { [1] = "2" }, { [1] = {} },
    }
    for i, classes in ipairs(bad) do
      assert.has_error(function() g:find(1, 1, 5, 5, { classes = classes }) end, nil, "table " .. i)
    end
    assert.has_error(function() g:find(1, 1, 5, 5, { classes = 3 }) end)
    -- metamethods are not consulted: a __index that would say "wall" and a __pairs are not run
    local ran = false
    local mt = { __index = function() ran = true; return false end,
                 __pairs = function() ran = true; return next, {}, nil end }
    local holes = setmetatable({ [4] = false, [9] = 2 }, mt) -- holes: classes 0..3, 5..8 absent
    local path = g:find(1, 1, 5, 5, { classes = holes, diagonal = "never" })
    assert.is_false(ran)
    for _, p in ipairs(path) do assert.is_false(p.x == 3 and p.y == 3) end
    -- (fields, ranges and walked paths take them too: spec 70)
    -- a callback of a query with classes cannot write a class (its query reads them)
    local ok, err = pcall(g.find, g, 1, 1, 5, 5, { classes = { [1] = false },
      node_cost = function(x, y) g:set_class(x, y, 1) end })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("in use", 1, true), tostring(err))
    assert.are.equal(0, g:get_class(2, 2))
    -- the grid still answers
    local _, info = g:find(1, 1, 5, 5, { classes = { [4] = 2 } })
    assert.are.equal("found", info.status)
  end)
end)
