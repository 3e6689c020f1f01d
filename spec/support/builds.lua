-- What the specs of builds in slices share (spec/39, spec/42, spec/53).
local assert = require("luassert")
local oracle = require("spec.support.dijkstra")

local M = {}

-- Steps b with random budgets to the end: every step within its budget, the progress in
-- [0, 1] and never going back, 1 once done. Returns the steps taken.
function M.step_through(b, rng, most)
  local steps, last = 0, b:progress()
  assert.are.equal(0, last)
  while not b:done() do
    local n = rng.int(1, most)
    local status, used = b:step(n)
    steps = steps + 1
    assert(used >= 0 and used <= n, "a step of budget " .. n .. " did " .. used)
    local p = b:progress()
    assert(p >= last and p <= 1, "progress went from " .. last .. " to " .. p)
    assert.are.equal(status == "done", p == 1)
    last = p
    assert(steps < 1e6, "the build never ends")
  end
  assert.are.equal(1, b:progress())
  assert.are.equal("done", b:status())
  assert.are.same({ "done", 0 }, { b:step(5) })
  return steps
end

local MODES = { "never", "one_walkable", "no_corner_cut" } -- the modes with a hierarchy

-- A world for hierarchies: blocked cells and costs at random, and walls with gaps so that
-- paths cross clusters.
function M.hier_world(rng, w, h)
  local world = { w = w, h = h, cost = {}, diagonal = MODES[rng.int(1, 3)] }
  local density = rng.next() * 0.3
  local one_cost = rng.next() < 0.4 and 0.5 + rng.next() * 3.5
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local c = false
      if rng.next() >= density then c = one_cost or (rng.next() < 0.4 and 1 or 0.5 + rng.next() * 3.5) end
      world.cost[y][x] = c
    end
  end
  for _ = 1, rng.int(0, 3) do
    local x, gap = rng.int(2, w - 1), rng.int(1, h)
    for y = 1, h do if y ~= gap then world.cost[y][x] = false end end
  end
  return world
end

-- The same hierarchical queries on two grids: the same status, cost and expansions, a cost
-- never below the oracle's, found iff the oracle finds a path.
function M.same_hier_answers(rng, world, a, b, queries)
  for _ = 1, queries do
    local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
    local pa, ia = a:find(sx, sy, gx, gy, { hierarchical = true })
    local pb, ib = b:find(sx, sy, gx, gy, { hierarchical = true })
    local where = ("(%d,%d)->(%d,%d)"):format(sx, sy, gx, gy)
    assert.are.equal(ia.status, ib.status, where)
    assert.are.equal(ia.expansions, ib.expansions, where .. ": other tables")
    assert.are.equal(ia.abstract_expansions, ib.abstract_expansions, where)
    local want = oracle.cost(world, sx, sy, gx, gy)
    assert.are.equal(want ~= nil, pa ~= nil, where)
    if want then
      assert(pb and ia.cost == ib.cost, where)
      assert(oracle.near(ia.cost, oracle.path_cost(world, pa, sx, sy)), where .. ": cost is not its steps")
      assert(ia.cost >= want - 1e-9 * math.max(1, want), where .. ": below the optimum")
    end
  end
end

-- The figures of a grid's hierarchy, but the bytes (queries grow their scratch).
function M.hier_figures(g)
  local h = g:hierarchy()
  if h then h.bytes = nil end
  return h
end

return M
