-- The hierarchy as a build in slices (issue 18 item 5): grid:build_hierarchy(size, {threads = n})
-- run a budget at a time gives what grid:hierarchy(size) gives (the same figures, the same
-- hierarchical answers, each checked against the oracle), within each step's budget, with a
-- progress that only grows to 1, installed at once when complete; terrain changed mid-build
-- redoes the clusters it dirtied (spec/53); a collected or closed grid, errors and the
-- scheduler. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261124")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

local builds = require("spec.support.builds")
local step_through, random_world = builds.step_through, builds.hier_world
local same_answers, figures = builds.same_hier_answers, builds.hier_figures

describe("hierarchy builds in slices", function()
  it("give the one-call build's hierarchy, on 1 and 2 threads, within each budget", function()
    local rng = oracle.rng(SEED)
    for round = 1, scale(30) do
      local world = random_world(rng, rng.int(2, 24), rng.int(2, 24))
      local size = rng.pick({ 2, 3, 4, 7, 16, 256 })
      local whole, sliced = oracle.grid(astar, world), oracle.grid(astar, world)
      whole:hierarchy(size)
      local b = sliced:build_hierarchy(size, { threads = rng.int(1, 2) })
      assert.is_nil(sliced:hierarchy()) -- nothing before it completes
      step_through(b, rng, rng.pick({ 1, 5, 50, 500 }))
      assert.are.same(figures(whole), figures(sliced), "round " .. round)
      same_answers(rng, world, whole, sliced, 4)
    end
  end)

  it("a map in many clusters: threads 1 and 2, slices and one call agree", function()
    local rng = oracle.rng(SEED + 1)
    local world = random_world(rng, 40, 30)
    local grids = {}
    for i = 1, 4 do grids[i] = oracle.grid(astar, world) end
    grids[1]:hierarchy(8)
    grids[2]:hierarchy(8, { threads = 2 })
    local one = grids[3]:build_hierarchy(8, { threads = 1 })
    local two = grids[4]:build_hierarchy(8, { threads = 2 })
    assert.are.equal(2, two:threads())
    assert.matches("astar.Build%(hierarchy 8, 0%%%)", tostring(two))
    local s1 = step_through(one, rng, 300)
    local s2 = step_through(two, rng, 300)
    assert(s1 > 10 and s2 > 10, "the budget did not slice the build")
    for i = 2, 4 do
      assert.are.same(figures(grids[1]), figures(grids[i]))
      same_answers(rng, world, grids[1], grids[i], 6)
    end
  end)

  it("keeps the old hierarchy in use until it completes; size 0 drops it", function()
    local g = astar.grid(30, 30, { diagonal = "never" })
    g:hierarchy(5)
    local b = g:build_hierarchy(10)
    b:step(20)
    assert.are.equal(5, g:hierarchy().cluster_size)
    local _, info = g:find(1, 1, 30, 30, { hierarchical = true })
    assert.are.equal(58, info.cost)
    local h = b:finish()
    assert.are.equal(10, h.cluster_size)
    assert.are.same(figures(g), h and (function() h.bytes = nil return h end)())
    local drop = g:build_hierarchy(0)
    assert.are.equal(10, g:hierarchy().cluster_size)
    assert.is_nil(drop:finish())
    assert.is_nil(g:hierarchy())
  end)

  it("goes on when the terrain changes under it (spec/53 has more), and never installs a stale one", function()
    local rng = oracle.rng(SEED + 3)
    for round = 1, scale(12) do
      local world = random_world(rng, rng.int(6, 20), rng.int(6, 20))
      local g = oracle.grid(astar, world)
      local b = g:build_hierarchy(rng.pick({ 3, 4, 6 }), { threads = rng.int(1, 2) })
      for _ = 1, rng.int(1, 6) do b:step(rng.int(1, 60)) end
      local finished = b:done()
      local x, y = rng.int(1, world.w), rng.int(1, world.h)
      local c = rng.pick({ false, 0.5, 1, 4 })
      if c == world.cost[y][x] then c = c == false and 2 or false end -- a real change
      world.cost[y][x] = c
      g:set_cost(x, y, c)
      local h = b:finish()
      assert.are.equal(0, b:restarts(), "round " .. round) -- it redid the clusters the write dirtied
      if finished then
        assert(h.dirty >= 1) -- the write marked it, as on any built hierarchy
      else
        assert.are.equal(0, h.dirty)
        local fresh = oracle.grid(astar, world)
        fresh:hierarchy(h.cluster_size)
        assert.are.same(figures(fresh), figures(g))
      end
      local fresh = oracle.grid(astar, world)
      fresh:hierarchy(h.cluster_size)
      same_answers(rng, world, fresh, g, 4)
    end
  end)

  it("holds its grid: a collected handle or a closed grid cannot crash it", function()
    local b
    do
      local g = astar.grid(40, 40)
      b = g:build_hierarchy(8, { threads = 2 })
      b:step(50)
    end
    collectgarbage()
    collectgarbage()
    assert.are.equal("done", (b:step()))
    local g = astar.grid(20, 20)
    local b2 = g:build_hierarchy(4)
    b2:step(10)
    getmetatable(g).__gc(g)
    assert.matches("grid has been freed", err_of(b2.step, b2))
    getmetatable(b2).__gc(b2)
    assert.matches("freed astar.Build", err_of(b2.step, b2))
    local g3 = astar.grid(30, 30)
    do g3:build_hierarchy(4, { threads = 2 }):step(300) end -- dropped mid-build
    collectgarbage() -- its jobs and the clusters built so far go with it
    assert.is_nil(g3:hierarchy())
  end)

  it("checks every argument", function()
    local g = astar.grid(5, 5)
    assert.matches("integer expected", err_of(g.build_hierarchy, g))
    assert.matches("out of range", err_of(g.build_hierarchy, g, 257))
    assert.matches("out of range", err_of(g.build_hierarchy, g, -1))
    assert.matches("got 1", err_of(g.build_hierarchy, g, 1))
    assert.matches("table or nil expected", err_of(g.build_hierarchy, g, 2, 3))
    assert.matches("unknown option", err_of(g.build_hierarchy, g, 2, { thread = 2 }))
    for _, t in ipairs({ 0, 65, 1.5, "2" }) do
      assert.matches("threads", err_of(g.build_hierarchy, g, 2, { threads = t }))
      assert.matches("threads", err_of(g.hierarchy, g, 2, { threads = t }))
    end
    assert.matches("astar.Grid expected", err_of(g.build_hierarchy, {}, 2))
    local hex = astar.grid(5, 5, { topology = "hex" })
    assert.matches("has none", err_of(hex.build_hierarchy, hex, 2))
    assert.is_truthy(hex:build_hierarchy(0)) -- dropping is always possible
    local b = g:build_hierarchy(2)
    for _, n in ipairs({ 0, -1, 1.5, "x", {} }) do assert.has_error(function() b:step(n) end) end
    local seen
    g:find(1, 1, 5, 5, { node_cost = function()
      seen = seen or err_of(b.step, b)
      return 0
    end })
    assert.matches("in use", seen)
    assert.are.equal("done", (b:step()))
    assert.are.equal(2, g:hierarchy().cluster_size)
  end)

  it("runs under the scheduler's budget beside searches", function()
    local scheduler = require("astar.scheduler")
    local sched = scheduler.scheduler({ budget = 200 })
    local g = astar.grid(40, 40)
    for y = 1, 30 do g:set_blocked(20, y, true) end
    local b = g:build_hierarchy(8, { threads = 2 })
    local built, found
    sched:build(b, function(build, info) built = { build = build, info = info } end)
    sched:request(g, 1, 1, 40, 1, nil, function(path) found = path end)
    local ticks = 0
    while sched:pending() > 0 do
      assert(sched:tick() <= 200)
      ticks = ticks + 1
      assert(ticks < 10000)
    end
    assert(found and built and built.build == b and built.info.status == "done")
    assert(ticks > 5, "the build was not sliced")
    assert.are.equal(8, g:hierarchy().cluster_size)
  end)
end)
