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
-- see what the oracle sees (layers, claims, noise and node_cost now and then: they count at the
-- anchor).
local function sized_world(rng, side)
  local features = { w = rng.int(side or 3, side or 9), h = rng.int(side or 3, side or 9), layers = rng.next() < 0.2,
                     claims = rng.next() < 0.2, noise = rng.next() < 0.15, node_cost = rng.next() < 0.2 }
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

-- A cell that can hold the unit, mostly (a few tries).
local function standing_cell(rng, world)
  local c = random_cell(rng, world)
  for _ = 1, 20 do
    if oracle.stands(world, c.x, c.y) then return c end
    c = random_cell(rng, world)
  end
  return c
end

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

  -- Jobs: writes between slices, near the start (where the job has looked) or anywhere; a
  -- write at (x, y) touches every anchor whose footprint covers it, up to n - 1 cells up-left
  -- of it, so writes land there too. The answer is checked on the terrain at the job's end.
  local function write_near(rng, world, grid, x0, y0, anywhere)
    local n = world.size
    local x = math.max(1, math.min(world.w, x0 + rng.int(-1, n)))
    local y = math.max(1, math.min(world.h, y0 + rng.int(-1, n)))
    for _ = 1, anywhere and 10 or 0 do -- far from it, mostly
      x, y = rng.int(1, world.w), rng.int(1, world.h)
      if math.max(math.abs(x - x0), math.abs(y - y0)) > 6 then break end
    end
    local c = world.cost[y][x]
    local new = c and (rng.next() < 0.4 and false or c + 1 + rng.next()) or (0.5 + rng.next() * 2)
    world.cost[y][x] = new
    grid:set_cost(x, y, new)
  end

  it("search, search_nearest and field_job follow writes between slices, against the oracle (" ..
     scale(80) .. " worlds)", function()
    local rng = oracle.rng(SEED + 3)
    local went_on, restarted, found = 0, 0, 0
    for n = 1, scale(80) do
      local world, grid, opts = sized_world(rng, 13)
      world.size = rng.int(2, 3)
      opts.size = world.size
      local s, goal = standing_cell(rng, world), standing_cell(rng, world)
      local targets = { goal, random_cell(rng, world) }
      local kind = ({ "search", "nearest", "field" })[n % 3 + 1]
      if kind == "field" then world.claim_radius, opts.claim_radius = nil, nil end
      local job
      if kind == "search" then job = grid:search(s.x, s.y, goal.x, goal.y, opts)
      elseif kind == "nearest" then job = grid:search_nearest(s.x, s.y, targets, opts)
      else job = grid:field_job({ goal }, opts) end
      local writes, anywhere = 0, rng.next() < 0.5
      for _ = 1, rng.int(1, 12) do
        job:step(rng.int(1, 4))
        if job:status() ~= "running" then break end
        for _ = 1, rng.int(0, 2) do
          write_near(rng, world, grid, kind == "field" and goal.x or s.x, kind == "field" and goal.y or s.y, anywhere)
          writes = writes + 1
        end
      end
      job:step()
      local answer, info = job:result()
      local at = where(n, world, string.format("%s %d,%d -> %d,%d", kind, s.x, s.y, goal.x, goal.y))
      if kind == "field" then
        local to = oracle.distances_to(world, goal.x, goal.y)
        for y = 1, world.h do
          for x = 1, world.w do
            local want, got = to[y][x], answer:distance(x, y)
            assert((want == math.huge and got == nil) or got == want,
              at .. string.format(" at %d,%d: %s, the oracle %s", x, y, tostring(got), tostring(want)))
          end
        end
      else
        local dist = oracle.distances(world, s.x, s.y)
        local want = math.huge
        for i, t in ipairs(kind == "nearest" and targets or { goal }) do
          if oracle.stands(world, t.x, t.y) and i > 0 then want = math.min(want, dist[t.y][t.x]) end
        end
        if want == math.huge then
          assert(answer == nil, at .. ": a path the oracle says does not exist")
        else
          assert(answer and info.cost == want, at .. ": cost " .. tostring(info.cost) .. ", the oracle " .. want)
          assert(oracle.path_cost(world, answer, s.x, s.y) == want, at .. ": the path's own cost")
          found = found + 1
        end
      end
      if writes > 0 and info.restarts == 0 then went_on = went_on + 1 end
      restarted = restarted + info.restarts
    end
    assert.is_true(went_on >= scale(80) / 20 and restarted >= scale(80) / 20 and found > scale(80) / 8,
      "went on " .. went_on .. ", restarts " .. restarted .. ", found " .. found)
  end)

  it("a 2x2 job does not go on past a write two cells from what it expanded", function()
    -- a corridor of rows 1-2 with (4, 2) blocked: a 2x2 unit goes round by rows 3-4. The job has
    -- expanded (1, 1) and (2, 1) (it touched (1, 2) and (2, 2)) when (4, 2) opens: no cell it
    -- reached is next to (4, 2), but (2, 1) read the step onto (3, 1), whose footprint covers it
    local rows = { "..........", "...#......", "..........", ".........." }
    local world = oracle.world_from_rows(rows, "never")
    world.size = 2
    local g = oracle.grid(astar, world)
    local job = g:search(1, 1, 8, 1, { size = 2 })
    job:step(2)
    assert.are.equal("running", job:status())
    g:set_cost(4, 2, 1)
    world.cost[2][4] = 1
    job:step()
    local path, info = job:result()
    assert.are.equal(oracle.cost(world, 1, 1, 8, 1), info.cost) -- 7, straight along row 1
    assert.are.equal(info.cost, oracle.path_cost(world, path))
    -- it saw the write: repaired in place (had it gone on, it would answer by rows 3-4)
    assert.are.equal(0, info.restarts)
    assert.is_true(info.repairs >= 1)
  end)

  it("search jobs of sizes 2..4 are repaired in place under writes between slices, against the oracle (" ..
     scale(40) .. " worlds)", function()
    -- Terrain or class writes near the start between slices, where the job has looked: the loop
    -- for bigger units (with layers now and then) or, with classes, the general loop repair it
    -- in place; its answer is checked on the terrain at its end.
    local rng = oracle.rng(SEED + 6)
    local repaired, found = 0, 0
    for n = 1, scale(40) do
      local world = worlds.random_world(rng, { w = rng.int(8, 13), h = rng.int(8, 13), layers = rng.next() < 0.3 })
      world.size = rng.int(2, 4)
      if rng.next() < 0.35 then
        world.classes, world.class = { [0] = 1, [1] = rng.next() < 0.5 and 2 or false }, {}
        for y = 1, world.h do
          world.class[y] = {}
          for x = 1, world.w do world.class[y][x] = rng.next() < 0.15 and 1 or 0 end
        end
      end
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      opts.size, opts.classes = world.size, world.classes
      local s, goal = standing_cell(rng, world), standing_cell(rng, world)
      local job = grid:search(s.x, s.y, goal.x, goal.y, opts)
      for _ = 1, rng.int(2, 10) do
        job:step(rng.int(1, 4))
        if job:status() ~= "running" then break end
        if world.classes and rng.next() < 0.5 then -- a class write (no terrain write with it)
          local x = math.max(1, math.min(world.w, s.x + rng.int(-world.size, world.size)))
          local y = math.max(1, math.min(world.h, s.y + rng.int(-world.size, world.size)))
          world.class[y][x] = 1 - world.class[y][x]
          grid:set_class(x, y, world.class[y][x])
        else
          write_near(rng, world, grid, s.x, s.y, false)
        end
      end
      job:step()
      local path, info = job:result()
      local at = where(n, world, string.format("search %d,%d -> %d,%d%s", s.x, s.y, goal.x, goal.y,
        world.classes and " classes" or ""))
      local want = oracle.stands(world, goal.x, goal.y) and oracle.distances(world, s.x, s.y)[goal.y][goal.x] or math.huge
      if want == math.huge then
        assert(path == nil, at .. ": a path the oracle says does not exist")
      else
        assert(path and oracle.near(info.cost, want), at .. ": cost " .. tostring(info.cost) .. ", the oracle " .. want)
        assert(oracle.near(oracle.path_cost(world, path, s.x, s.y), want), at .. ": the path's own cost")
        found = found + 1
      end
      if info.repairs > 0 then repaired = repaired + 1 end
    end
    assert.is_true(repaired > scale(40) / 8 and found > scale(40) / 4, "repaired " .. repaired .. ", found " .. found)
  end)

  it("the scheduler's requests with size follow writes between ticks, against the oracle", function()
    local rng = oracle.rng(SEED + 4)
    local sched = astar.scheduler({ budget = 6, concurrent = 4 })
    local cases = {}
    for n = 1, scale(20) do
      local world, grid, opts = sized_world(rng, 13)
      world.size = rng.int(2, 3)
      opts.size = world.size
      local s, goal = standing_cell(rng, world), standing_cell(rng, world)
      local case = { world = world, s = s, goal = goal, n = n }
      cases[n] = case
      sched:request(grid, s.x, s.y, goal.x, goal.y, opts, function(path, info) case.path, case.info = path, info end)
      for _ = 1, 3 do
        sched:tick()
        if not case.info then write_near(rng, world, grid, s.x, s.y) end -- while it runs
      end
    end
    for _ = 1, 10000 do
      if sched:pending() == 0 then break end
      sched:tick()
    end
    assert.are.equal(0, sched:pending())
    for _, c in ipairs(cases) do
      local want = oracle.cost(c.world, c.s.x, c.s.y, c.goal.x, c.goal.y)
      local at = where(c.n, c.world, "scheduler")
      if want == nil then
        assert(c.path == nil and c.info.status == "unreachable", at .. ": " .. tostring(c.info.status))
      else
        assert(c.path and c.info.cost == want, at .. ": cost " .. tostring(c.info.cost) .. ", the oracle " .. want)
      end
    end
  end)

  -- Walls of the query's own: fog (an unknown cell is open at cost 1, whatever its terrain) and
  -- classes (a class set to false is a wall). The oracle checks every footprint cell as the
  -- query sees it; the library checks, from a cell the unit fits on, only the cells a step
  -- newly covers.
  local function fogged_or_classed(rng, world, grid, opts)
    if rng.next() < 0.5 then
      world.known = {}
      local share = rng.next()
      for y = 1, world.h do
        world.known[y] = {}
        for x = 1, world.w do world.known[y][x] = rng.next() < share end
      end
      opts.known = oracle.mask(astar, world)
      return "known"
    end
    world.class = {}
    for y = 1, world.h do
      world.class[y] = {}
      for x = 1, world.w do
        world.class[y][x] = rng.int(0, 3)
        grid:set_class(x, y, world.class[y][x])
      end
    end
    world.classes = { [0] = 1, [1] = rng.next() < 0.5 and false or 0.5, [2] = false, [3] = 1 + rng.next() * 3 }
    if rng.next() < 0.3 then world.classes[2] = 2 end -- no wall: the table alone says where it fits
    opts.classes = world.classes
    return "classes"
  end

  it("known and classes with size: find, find_nearest, fields and jobs equal the footprint oracle (" ..
     scale(80) .. " worlds)", function()
    local rng = oracle.rng(SEED + 5)
    local found, none = 0, 0
    for n = 1, scale(80) do
      local world, grid, opts = sized_world(rng)
      world.size = rng.int(2, 3)
      opts.size = world.size
      local kind = fogged_or_classed(rng, world, grid, opts)
      local s, goal = standing_cell(rng, world), standing_cell(rng, world)
      local at = where(n, world, string.format("%s %d,%d -> %d,%d", kind, s.x, s.y, goal.x, goal.y))
      local want = oracle.cost(world, s.x, s.y, goal.x, goal.y)
      -- first on threads, before any query made the grid's table (astar_find_prepare makes it)
      local many = grid:find_many({ { sx = s.x, sy = s.y, gx = goal.x, gy = goal.y },
        { sx = goal.x, sy = goal.y, gx = s.x, gy = s.y } }, opts, { threads = 2 })
      assert(many[1].info.cost == want, at .. ": find_many's cost " .. tostring(many[1].info.cost))
      local path, info = grid:find(s.x, s.y, goal.x, goal.y, opts)
      if want == nil then
        assert(path == nil, at .. ": a path the oracle says does not exist")
        none = none + 1
      else
        assert(path and info.cost == want, at .. ": cost " .. tostring(info.cost) .. ", the oracle " .. want)
        assert(oracle.path_cost(world, path, s.x, s.y) == want, at .. ": the path's own cost")
        found = found + 1
      end
      -- the same as a job, stepped in slices, and as find_nearest with a second target
      local job = grid:search(s.x, s.y, goal.x, goal.y, opts)
      while job:step(3) == "running" do end
      local _, jinfo = job:result()
      assert(jinfo.cost == want, at .. ": the job's cost " .. tostring(jinfo.cost))
      local other = random_cell(rng, world)
      local dist = oracle.distances(world, s.x, s.y)
      local near = want or math.huge
      if oracle.stands(world, other.x, other.y) then near = math.min(near, dist[other.y][other.x]) end
      local _, ninfo = grid:find_nearest(s.x, s.y, { goal, other }, opts)
      assert((near == math.huge and ninfo.cost == nil) or ninfo.cost == near,
        at .. ": nearest " .. tostring(ninfo.cost) .. ", the oracle " .. near)
      -- fields take known, not classes
      if kind == "known" then
        world.claim_radius, opts.claim_radius = nil, nil
        local to = oracle.distances_to(world, goal.x, goal.y)
        local field = grid:distance_field({ goal }, opts)
        for y = 1, world.h do
          for x = 1, world.w do
            local w, got = to[y][x], field:distance(x, y)
            assert((w == math.huge and got == nil) or got == w,
              at .. string.format(" field at %d,%d: %s, the oracle %s", x, y, tostring(got), tostring(w)))
          end
        end
      end
    end
    assert.is_true(found > scale(80) / 5 and none > 0, found .. " found, " .. none .. " not")
  end)

  -- Translated from Jumper (github.com/Yonaba/Jumper), specs/pathfinder_specs.lua,
  -- "Pathfinder:annotateGrid() calculates clearance for the entire grid" (the map of
  -- examples/makeClearance.lua, after aigamedev.com's clearance-based pathfinding, figure 10).
  -- Jumper's clearance is ours: the largest free square anchored top-left at a cell, the map's
  -- edge counting as blocked; its walkable test is value ~= 2. We do not expose the table: a
  -- unit of size n can stand on a cell (find from the cell to itself answers) exactly when the
  -- cell's clearance is at least n.
  it("Jumper's clearance cases: a unit of size n stands where Jumper's clearance is >= n", function()
    local map = {
      { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
      { 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 },
      { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
      { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 },
      { 0, 0, 1, 0, 0, 0, 0, 0, 2, 0 },
      { 0, 0, 1, 1, 1, 0, 0, 2, 0, 0 },
      { 0, 0, 0, 1, 1, 0, 2, 0, 0, 2 },
      { 0, 0, 0, 0, 1, 0, 0, 0, 0, 2 },
      { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
      { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    }
    local clearances = {
      { 6, 6, 5, 5, 4, 4, 4, 3, 2, 1 },
      { 6, 5, 5, 4, 4, 3, 3, 3, 2, 1 },
      { 6, 5, 4, 4, 3, 3, 2, 2, 2, 1 },
      { 6, 5, 4, 3, 3, 2, 2, 1, 1, 1 },
      { 6, 5, 4, 3, 2, 2, 1, 1, 0, 1 },
      { 5, 5, 4, 3, 2, 1, 1, 0, 1, 1 },
      { 4, 4, 4, 3, 2, 1, 0, 2, 1, 0 },
      { 3, 3, 3, 3, 3, 3, 3, 2, 1, 0 },
      { 2, 2, 2, 2, 2, 2, 2, 2, 2, 1 },
      { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 },
    }
    local g = astar.grid(10, 10)
    for y = 1, 10 do
      for x = 1, 10 do g:set_cost(x, y, map[y][x] ~= 2 and 1 or false) end
    end
    for y = 1, 10 do
      for x = 1, 10 do
        for n = 1, 8 do
          local stands = g:find(x, y, x, y, { size = n }) ~= nil
          assert(stands == (clearances[y][x] >= n),
            string.format("(%d,%d) size %d: stands %s, Jumper's clearance %d", x, y, n, tostring(stands), clearances[y][x]))
        end
      end
    end
    -- and its neighbour pruning (grid.lua getNeighbours with a clearance): a 2x2 unit at (7, 8)
    -- (clearance 3) may step right onto (8, 8) (2) but not up onto (7, 7) (0)
    assert.is_not_nil(g:find(7, 8, 8, 8, { size = 2 }))
    assert.are.equal(2, #g:find(7, 8, 8, 8, { size = 2 }))
    local around = g:find(7, 8, 7, 7, { size = 2 })
    assert.is_nil(around)
  end)

  -- Rule 6: size is read once with the other options, before the grid is checked; an options
  -- table whose metamethods free the grid makes each call raise, never crash (ASan run).
  it("reads size once, and an options table that frees the grid makes every call raise", function()
    local function close(object) getmetatable(object).__gc(object) end
    local calls = {
      function(g, o) return g:find(1, 1, 5, 5, o) end,
      function(g, o) return g:find_nearest(1, 1, { { x = 5, y = 5 } }, o) end,
      function(g, o) return g:find_many({ { sx = 1, sy = 1, gx = 5, gy = 5 } }, o) end,
      function(g, o) return g:distance_field({ { x = 5, y = 5 } }, o) end,
      function(g, o) return g:range(1, 1, 4, o) end,
      function(g, o) return g:check_path({ { x = 1, y = 1 }, { x = 2, y = 2 } }, 1, o) end,
      function(g, o) return g:repair({ { x = 1, y = 1 }, { x = 2, y = 2 } }, 1, o) end,
      function(g, o) return g:search(1, 1, 5, 5, o) end,
      function(g, o) return g:search_nearest(1, 1, { { x = 5, y = 5 } }, o) end,
      function(g, o) return g:field_job({ { x = 5, y = 5 } }, o) end,
    }
    for i, call in ipairs(calls) do
      local g = astar.grid(6, 6)
      local reads = 0
      local once = setmetatable({}, { __index = function(_, k)
        if k == "size" then reads = reads + 1; return reads == 1 and 2 or 9 end
      end })
      assert(pcall(call, g, once), "call " .. i .. " with size read through __index")
      assert(reads == 1, "call " .. i .. " read size " .. reads .. " times")
      local freeing = setmetatable({}, { __index = function(_, k)
        if k == "size" then close(g) return 2 end
      end })
      local ok, err = pcall(call, g, freeing)
      assert(not ok and tostring(err):find("freed"), "call " .. i .. ": " .. tostring(err))
    end
  end)
end)
