-- Builds under a changing world (issue 26 item 2): a sliced hierarchy build told of terrain
-- writes between its steps (the grid's change log) redoes only the clusters they dirtied and
-- goes on: it never restarts, it finishes under a cell toggled before every step, and what it
-- installs is what a build from scratch on the final terrain gives (the same figures, the same
-- hierarchical answers, checked against the oracle), with no cluster dirty. A bulk write, or
-- more writes than the log holds, still starts it over. The grid's own hierarchy, rebuilt by a
-- query, follows cost changes on cluster borders too. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local oracle = require("spec.support.dijkstra")
local builds = require("spec.support.builds")
local random_world, same_answers, figures = builds.hier_world, builds.same_hier_answers, builds.hier_figures

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261126")

-- A real change of one cell, written to the world and the grid; near a cluster border (of
-- `size`) more often than not, where a change reaches the cluster across.
local function change(rng, world, g, size)
  local x, y = rng.int(1, world.w), rng.int(1, world.h)
  if rng.next() < 0.6 then
    local function border(v, n)
      local b = (rng.int(0, math.floor((n - 1) / size))) * size + rng.pick({ 0, 1 })
      return math.max(1, math.min(n, b + (v % 2)))
    end
    if rng.next() < 0.5 then x = border(x, world.w) else y = border(y, world.h) end
  end
  local c = rng.pick({ false, 0.5, 1, 1, 2.5, 4 })
  if c == world.cost[y][x] then c = c == false and 2 or false end
  world.cost[y][x] = c
  g:set_cost(x, y, c)
end

local function fresh_hierarchy(world, size)
  local fresh = oracle.grid(astar, world)
  fresh:hierarchy(size)
  return fresh
end

describe("a hierarchy build under changes", function()
  it("redoes the dirtied clusters only and installs what a fresh build gives", function()
    local rng = oracle.rng(SEED)
    for round = 1, scale(40) do
      local world = random_world(rng, rng.int(4, 26), rng.int(4, 26))
      local size = rng.pick({ 2, 3, 4, 5, 8 })
      local g = oracle.grid(astar, world)
      local b = g:build_hierarchy(size, { threads = rng.int(1, 2) })
      local steps, rate = 0, rng.pick({ 0.2, 0.5, 1 })
      while not b:done() do
        if rng.next() < rate then
          for _ = 1, rng.int(1, 3) do change(rng, world, g, size) end
        end
        b:step(rng.int(1, rng.pick({ 10, 60, 400 })))
        steps = steps + 1
        assert(steps < 1e5, "round " .. round .. ": the build never ends")
      end
      assert.are.equal(0, b:restarts(), "round " .. round)
      local h = g:hierarchy()
      assert.are.equal(0, h.dirty, "round " .. round)
      local fresh = fresh_hierarchy(world, size)
      assert.are.same(figures(fresh), figures(g), "round " .. round)
      same_answers(rng, world, fresh, g, 6)
    end
  end)

  it("finishes with one cell toggled before every step", function()
    local rng = oracle.rng(SEED + 1)
    local world = random_world(rng, 40, 40)
    local g = oracle.grid(astar, world)
    local b = g:build_hierarchy(8)
    local x, y, steps = 8, 20, 0 -- on a border: it dirties two clusters each time
    while not b:done() do
      if steps % 5 == 0 then -- more often than the whole build's work, less than a cluster's
        world.cost[y][x] = world.cost[y][x] == false and 1 or false
        g:set_cost(x, y, world.cost[y][x])
      end
      b:step(400)
      steps = steps + 1
      assert(steps < 5000, "the build never ends")
    end
    assert.are.equal(0, b:restarts())
    assert.are.equal(0, g:hierarchy().dirty)
    local fresh = fresh_hierarchy(world, 8)
    assert.are.same(figures(fresh), figures(g))
    same_answers(rng, world, fresh, g, 10)
  end)

  it("starts over after a bulk write or more writes than the log holds", function()
    local rng = oracle.rng(SEED + 2)
    for _, how in ipairs({ "fill", "many" }) do
      local world = random_world(rng, 40, 40)
      local g = oracle.grid(astar, world)
      local b = g:build_hierarchy(4)
      b:step(300)
      if how == "fill" then
        g:fill(1)
        for y = 1, world.h do for x = 1, world.w do world.cost[y][x] = 1 end end
      else
        for _ = 1, 1100 do change(rng, world, g, 4) end
      end
      b:step(1)
      assert.are.equal(1, b:restarts(), how)
      b:finish()
      assert.are.equal(0, g:hierarchy().dirty)
      local fresh = fresh_hierarchy(world, 4)
      assert.are.same(figures(fresh), figures(g), how)
      same_answers(rng, world, fresh, g, 6)
    end
  end)

  it("a built hierarchy follows cost changes on cluster borders (queries rebuild what they dirty)", function()
    local rng = oracle.rng(SEED + 3)
    for _ = 1, scale(30) do
      local world = random_world(rng, rng.int(6, 24), rng.int(6, 24))
      local size = rng.pick({ 2, 3, 4, 6 })
      local g = oracle.grid(astar, world)
      g:hierarchy(size)
      for _ = 1, rng.int(1, 8) do change(rng, world, g, size) end
      local fresh = fresh_hierarchy(world, size)
      same_answers(rng, world, fresh, g, 12) -- a query rebuilds g's dirty clusters
    end
  end)
end)
