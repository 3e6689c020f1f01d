-- Builds in slices (issue 18 item 5): grid:build_landmarks(k, {threads = n}) run a budget at
-- a time gives the tables of grid:landmarks(k) (the same expansions for every query, and
-- the oracle's costs), within each step's budget, with a progress that only grows to 1,
-- installed at once when complete; terrain changed mid-build starts it over; a collected or
-- closed grid, errors and the scheduler. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261124")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

local function random_world(rng, w, h)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  if rng.next() < 0.2 then world.topology, world.diagonal = "hex", nil end
  local density = rng.next() * 0.35
  local one_cost = rng.next() < 0.4 and 0.5 + rng.next() * 3.5 -- one direction stored
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local c = false
      if rng.next() >= density then c = one_cost or (rng.next() < 0.4 and 1 or 0.5 + rng.next() * 3.5) end
      world.cost[y][x] = c
    end
  end
  return world
end

local step_through = require("spec.support.builds").step_through

-- The same queries on two grids: the same costs and expansions (the heuristic is the
-- tables'; other_tables: a build that went on, whose tables are its own), and the oracle's cost.
local function same_answers(rng, world, a, b, queries, other_tables)
  for _ = 1, queries do
    local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
    local pa, ia = a:find(sx, sy, gx, gy)
    local pb, ib = b:find(sx, sy, gx, gy)
    local where = ("(%d,%d)->(%d,%d)"):format(sx, sy, gx, gy)
    assert.are.equal(ia.status, ib.status, where)
    if not other_tables then assert.are.equal(ia.expansions, ib.expansions, where .. ": other tables") end
    local want = oracle.cost(world, sx, sy, gx, gy)
    if want then
      assert(pa and pb, where .. ": no path where the oracle has one")
      assert(oracle.near(ia.cost, want) and oracle.near(ib.cost, want), where .. ": not optimal")
    end
  end
end

describe("builds in slices", function()
  it("give the one-call build's tables, on 1 and 2 threads, within each budget", function()
    local rng = oracle.rng(SEED)
    for round = 1, scale(40) do
      local world = random_world(rng, rng.int(2, 16), rng.int(2, 16))
      local k = rng.pick({ 1, 2, 3, 4, 5, 7, 9, 12, 64 })
      local whole, sliced = oracle.grid(astar, world), oracle.grid(astar, world)
      local placed = whole:landmarks(k)
      local b = sliced:build_landmarks(k, { threads = rng.int(1, 2) })
      assert.are.equal(0, (sliced:landmarks())) -- nothing before it completes
      step_through(b, rng, rng.pick({ 2, 20, 200, 2000 }))
      assert.are.same({ whole:landmarks() }, { sliced:landmarks() }, "round " .. round)
      assert(placed <= k)
      same_answers(rng, world, whole, sliced, 4)
    end
  end)

  it("a map in many batches: threads 1 and 2, slices and one call agree", function()
    local rng = oracle.rng(SEED + 1)
    local world = random_world(rng, 30, 24)
    world.topology, world.diagonal = nil, "no_corner_cut"
    local grids = {}
    for i = 1, 4 do grids[i] = oracle.grid(astar, world) end
    grids[1]:landmarks(11)
    grids[2]:landmarks(11, { threads = 2 })
    local one = grids[3]:build_landmarks(11, { threads = 1 })
    local two = grids[4]:build_landmarks(11, { threads = 2 })
    assert.are.equal(2, two:threads())
    local s1 = step_through(one, rng, 300)
    local s2 = step_through(two, rng, 300)
    assert(s1 > 10 and s2 > 10, "the budget did not slice the build")
    for i = 2, 4 do
      assert.are.same({ grids[1]:landmarks() }, { grids[i]:landmarks() })
      same_answers(rng, world, grids[1], grids[i], 5)
    end
  end)

  it("keeps the old landmarks in use until it completes; k = 0 drops them", function()
    local rng = oracle.rng(SEED + 2)
    local g = astar.grid(30, 30)
    for y = 5, 25 do g:set_blocked(15, y, true) end
    assert.are.equal(3, (g:landmarks(3)))
    local b = g:build_landmarks(8)
    b:step(100)
    assert.are.equal(3, (g:landmarks()))
    local before = select(2, g:find(1, 15, 30, 15)).expansions
    b:step(1000)
    assert.are.equal(before, select(2, g:find(1, 15, 30, 15)).expansions)
    assert.are.same({ 8 }, { (b:finish()) })
    assert.are.equal(8, (g:landmarks()))
    local drop = g:build_landmarks(0)
    assert.are.equal(8, (g:landmarks()))
    step_through(drop, rng, 1)
    assert.are.same({ 0, 0 }, { g:landmarks() })
  end)

  it("goes on or starts over when a cost goes down under it, and never installs stale tables", function()
    local rng = oracle.rng(SEED + 3)
    for round = 1, scale(12) do
      local world = random_world(rng, rng.int(6, 14), rng.int(6, 14))
      local g = oracle.grid(astar, world)
      local b = g:build_landmarks(5, { threads = rng.int(1, 2) })
      for _ = 1, rng.int(1, 6) do b:step(rng.int(1, 40)) end
      local finished = b:done() -- then installed on the terrain before the change
      -- lower a cost or open a cell (raises and blocks let it go on: spec 50)
      local x, y, c
      repeat
        x, y = rng.int(1, world.w), rng.int(1, world.h)
        c = rng.pick({ 0.5, 1, 4 })
      until world.cost[y][x] == false or c < world.cost[y][x] -- a real decrease
      world.cost[y][x] = c
      g:set_cost(x, y, c)
      if not b:done() then
        -- in its first passes (or on terrain of one cost, for another cost) it starts over;
        -- past them it goes on, and its install repairs the decrease (spec 50)
        local was = b:progress()
        b:step(1)
        assert(b:restarts() <= 1, "round " .. round)
        if b:restarts() == 1 then assert(b:progress() <= was) end
      end
      b:finish()
      if finished then
        assert.are.equal(0, b:restarts())
      else
        local fresh = oracle.grid(astar, world)
        fresh:landmarks(5)
        if b:restarts() == 1 then
          assert.are.same({ fresh:landmarks() }, { g:landmarks() })
        else -- went on: its own tables (two where the terrain was of more costs), repaired
          assert.are.equal((fresh:landmarks()), (g:landmarks()))
        end
        same_answers(rng, world, fresh, g, 4, b:restarts() == 0)
      end
    end
  end)

  it("holds its grid: a collected handle or a closed grid cannot crash it", function()
    local b
    do
      local g = astar.grid(20, 20)
      b = g:build_landmarks(4, { threads = 2 })
      b:step(50)
    end
    collectgarbage()
    collectgarbage()
    assert.are.equal("done", (b:step()))
    local g = astar.grid(20, 20)
    local b2 = g:build_landmarks(4)
    b2:step(10)
    getmetatable(g).__gc(g)
    assert.matches("grid has been freed", err_of(b2.step, b2))
    assert.matches("grid has been freed", err_of(b2.finish, b2))
    assert(b2:progress() < 1)
    getmetatable(b2).__gc(b2)
    assert.matches("freed astar.Build", err_of(b2.step, b2))
    assert.matches("freed astar.Build", err_of(b2.progress, b2))
    local g3 = astar.grid(10, 10)
    do g3:build_landmarks(2):step(3) end -- dropped mid-build
    collectgarbage() -- freed mid-build: its workspaces and tables go with it
    assert.are.equal(0, (g3:landmarks()))
  end)

  it("checks every argument", function()
    local g = astar.grid(5, 5)
    assert.matches("integer expected", err_of(g.build_landmarks, g))
    assert.matches("out of range", err_of(g.build_landmarks, g, 65))
    assert.matches("out of range", err_of(g.build_landmarks, g, -1))
    assert.matches("must be an integer", err_of(g.build_landmarks, g, 1.5))
    assert.matches("table or nil expected", err_of(g.build_landmarks, g, 2, 3))
    assert.matches("unknown option", err_of(g.build_landmarks, g, 2, { thread = 2 }))
    for _, t in ipairs({ 0, 65, 1.5, "2" }) do
      assert.matches("threads", err_of(g.build_landmarks, g, 2, { threads = t }))
      assert.matches("threads", err_of(g.landmarks, g, 2, { threads = t }))
    end
    assert.matches("astar.Grid expected", err_of(g.build_landmarks, {}, 2))
    local b = g:build_landmarks(2)
    for _, n in ipairs({ 0, -1, 1.5, "x", {} }) do assert.has_error(function() b:step(n) end) end
    assert.matches("astar.Build expected", err_of(b.step, g))
    assert.matches("read%-only", err_of(function() b.step = 1 end))
    -- from a callback of a query on the same grid: the install would write what it reads
    local seen
    g:find(1, 1, 5, 5, { node_cost = function()
      seen = seen or err_of(b.step, b)
      return 0
    end })
    assert.matches("in use", seen)
    assert.are.equal("done", (b:step()))
    assert.are.equal(2, (g:landmarks()))
  end)

  it("runs under the scheduler's budget beside searches", function()
    local scheduler = require("astar.scheduler")
    local sched = scheduler.scheduler({ budget = 200 })
    local g = astar.grid(40, 40)
    for y = 1, 30 do g:set_blocked(20, y, true) end
    local b = g:build_landmarks(6, { threads = 2 })
    local built, found
    sched:build(b, function(build, info)
      built = { build = build, info = info }
    end)
    sched:request(g, 1, 1, 40, 1, nil, function(path) found = path end)
    local ticks = 0
    while sched:pending() > 0 do
      local spent = sched:tick()
      assert(spent <= 200)
      ticks = ticks + 1
      assert(ticks < 10000)
    end
    assert(found and built and built.build == b and built.info.status == "done")
    assert(ticks > 5, "the build was not sliced")
    assert.are.equal(6, (g:landmarks()))
    assert.matches("astar.Build expected", err_of(sched.build, sched, {}, function() end))
    assert.matches("function expected", err_of(sched.build, sched, b))
  end)
end)

describe("examples/loading_screen.lua", function()
  it("shows a bar that fills to 100% and a build that pays", function()
    local lines, real_print = {}, print
    local saved_arg, cpath = _G.arg, package.cpath
    _G.arg = { [1] = nil }
    _G.print = function(...) lines[#lines + 1] = table.concat({ ... }, "\t") end
    local ok, err = pcall(dofile, "examples/loading_screen.lua")
    _G.print, _G.arg, package.cpath = real_print, saved_arg, cpath
    assert(ok, err)
    local out = table.concat(lines, "\n")
    assert.truthy(out:match("%[#+%] 100%%"))
    local before, after, same = out:match("(%d+) expansions before, (%d+) after, cost [%d.]+ both times: (%a+)")
    assert.are.equal("true", same)
    assert.is_true(tonumber(after) < tonumber(before))
    assert.truthy(out:match("build of 17 landmarks completed at tick %d+"))
  end)
end)
