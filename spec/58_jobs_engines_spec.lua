-- Every engine as a job (issue 27): grid:search runs what grid:find runs with the same options
-- (jump point search and JPS+ in slices, the two-tier search, dead ends, flat paths, into and
-- info, interests) and answers the same bits; grid:search_nearest is find_nearest in slices,
-- grid:field_job distance_field in slices. Each against find and the oracle.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

-- Steps a job to its end in slices of 1..most expansions drawn at random; how many steps it
-- took. Every step reports at most its n (a two-tier job runs whole in its first: spec below),
-- but a field job's last, which may list a sparse field whole: less than n + a unit per 16
-- cells it reached.
local function drive(job, rng, most, tiered)
  local status, steps, over = job:status(), 0, nil
  while status == "running" do
    local n = rng.int(1, most)
    local used
    status, used = job:step(n)
    if not tiered and used > n then
      assert(status ~= "running", "a step of " .. n .. " used " .. used)
      over = used - n
    end
    steps = steps + 1
  end
  if over then
    local _, info = job:result()
    assert(info and info.reached and over < math.ceil(info.reached / 16), "the last step was " .. over .. " over")
  end
  return status, steps
end

-- A random world: uniform (where jumps apply) half the time, else costs 1..3; walls.
local function random_world(rng, most)
  local w, h = rng.int(2, most), rng.int(2, most)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  local uniform = rng.next() < 0.5
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      world.cost[y][x] = rng.next() < 0.25 and false or (uniform and 1 or rng.int(1, 3))
    end
  end
  return world
end

-- An influence layer of random values, in the world's oracle too.
local function random_layer(rng, world)
  local layer, vals = astar.influence(world.w, world.h), {}
  for y = 1, world.h do
    vals[y] = {}
    for x = 1, world.w do
      vals[y][x] = rng.int(0, 3)
      layer:set(x, y, vals[y][x])
    end
  end
  world.layers = { { vals = vals, weight = 1 } }
  return layer
end

-- info without what only a job says (restarts, repairs).
local function bare(info)
  local t = {}
  for k, v in pairs(info) do t[k] = v end
  t.restarts, t.repairs = nil, nil
  return t
end

describe("grid:search with every engine", function()
  it("answers in random slices exactly what find answers, and the oracle's cost (random worlds)", function()
    local rng = oracle.rng(5827)
    local counts, sliced = {}, 0
    for n = 1, scale(220) do
      local world = random_world(rng, 12)
      local grid = oracle.grid(astar, world)
      local opts = {}
      local r = rng.next()
      if r < 0.15 then -- the two-tier search, on the grid's hierarchy or one it builds
        if world.diagonal ~= "always" then
          opts.hierarchical = true
          if rng.next() < 0.5 then grid:hierarchy(rng.int(2, 4)) end
        end
      elseif r < 0.25 then
        opts.jump = false
      elseif r < 0.35 then
        local interests = {}
        for i = 1, rng.int(1, 3) do
          interests[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h), value = rng.int(1, 4) }
        end
        opts.interests = interests
      elseif r < 0.45 then
        opts.influence = random_layer(rng, world)
      elseif r < 0.5 then
        local salt = rng.int(1, 9)
        world.node_cost = function(x, y) return (x * y + salt) % 5 == 0 and false or 0.5 end
        opts.node_cost = world.node_cost
      end
      if rng.next() < 0.3 then opts.dead_ends = true end
      if rng.next() < 0.3 then opts.path = "flat" end
      if rng.next() < 0.1 and not opts.interests then opts.partial = true end
      if rng.next() < 0.1 then opts.max_expansions = rng.int(0, 20) end
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      local into, into_info = rng.next() < 0.3 and { "old", { x = 9, y = 9 } } or nil, nil
      local jopts = opts
      if into then -- the caller's tables, filled in place as find fills them
        jopts = {}
        for k, v in pairs(opts) do jopts[k] = v end
        into_info = { stale = true }
        jopts.into, jopts.info = into, into_info
      end
      local job = grid:search(sx, sy, gx, gy, jopts)
      assert.is_nil((job:result()))
      local status, steps = drive(job, rng, 4, opts.hierarchical)
      if steps > 1 then sliced = sliced + 1 end
      local jpath, jinfo = job:result()
      local where = "world " .. n
      assert.are.equal(info.status, status, where)
      assert.are.same(path, jpath, where)
      if into then
        assert.are.equal(into_info, jinfo, where)
        if jpath then assert.are.equal(into, jpath, where) end
        assert.are.equal(true, jinfo.stale, where) -- the caller's other keys stay
        jinfo.stale = nil
      end
      assert.are.same(info, bare(jinfo), where)
      assert.are.equal(0, jinfo.restarts, where)
      -- The oracle: exact answers (the two-tier one is a path, at least the optimum).
      if not opts.partial and not opts.max_expansions and info.status ~= "limit" then
        local want
        if opts.interests then
          want = oracle.interest_score(world, sx, sy, { { x = gx, y = gy } }, opts.interests)
        else
          want = oracle.cost(world, sx, sy, gx, gy)
        end
        if want == nil then
          assert.are.equal("unreachable", status, where)
        else
          assert.are.equal("found", status, where)
          local cells = jpath
          if opts.path == "flat" then
            cells = {}
            for i = 1, #jpath, 2 do cells[#cells + 1] = { x = jpath[i], y = jpath[i + 1] } end
          end
          assert.is_true(oracle.near(oracle.path_cost(world, cells), jinfo.cost), where)
          local got = opts.interests and jinfo.score or jinfo.cost
          if opts.hierarchical then assert.is_true(got >= want - 1e-9 * want, where)
          else assert.is_true(oracle.near(got, want), where .. ": " .. got .. " vs " .. want) end
        end
      end
      local kind = opts.hierarchical and "tiered" or opts.jump == false and "astar" or "default"
      counts[kind] = (counts[kind] or 0) + 1
    end
    assert.is_true(sliced > scale(220) / 4, "only " .. sliced .. " jobs took more than one step")
    assert.is_true((counts.tiered or 0) > 0 and (counts.astar or 0) > 0)
  end)

  it("jumps in slices where find jumps: one jump point a step (A*: one cell a step)", function()
    local g = astar.grid(64, 48)
    for y = 1, 40 do g:set_cost(20, y, false) end
    for y = 9, 48 do g:set_cost(44, y, false) end
    for _, jump in ipairs({ true, false }) do
      local opts = { jump = jump }
      local path, info = g:find(1, 1, 64, 48, opts)
      local job = g:search(1, 1, 64, 48, opts)
      local steps = 0
      while job:step(1) == "running" do steps = steps + 1 end
      local jpath, jinfo = job:result()
      assert.are.same(path, jpath)
      assert.are.same(info, bare(jinfo))
      assert.are.equal(info.expansions, steps + 1) -- one expansion a step
      if jump then assert.is_true(info.expansions < 40) else assert.is_true(info.expansions > 400) end
    end
  end)

  it("starts over (as A*) after a terrain change when it jumps, and answers for the terrain at its end", function()
    local g = astar.grid(60, 30)
    for y = 1, 25 do g:set_cost(30, y, false) end
    local job = g:search(1, 1, 60, 1)
    job:step(2)
    g:set_cost(30, 27, false) -- far from what it expanded, but it may have scanned there
    assert.are.equal("found", job:step())
    local path, info = job:result()
    local want, winfo = g:find(1, 1, 60, 1)
    assert.are.same(want, path)
    assert.are.equal(winfo.cost, info.cost)
    assert.are.equal(1, info.restarts)
    -- the second time it starts over as A* (another path of the same cost maybe), which follows
    -- the changes after instead of starting over again (issue 27 attack: a door toggling at
    -- every step kept a jumping job from ever ending)
    job = g:search(1, 1, 60, 1)
    for i, x in ipairs({ 40, 45, 50, 55 }) do
      job:step(2)
      g:set_cost(x, 28, false)
      assert.are.equal("running", job:status(), "change " .. i)
    end
    assert.are.equal("found", job:step())
    path, info = job:result()
    assert.are.equal(select(2, g:find(1, 1, 60, 1)).cost, info.cost)
    assert.is_nil(g:check_path(path, 1)) -- a walkable chain of steps
    assert.are.same({ { x = 1, y = 1 }, { x = 60, y = 1 } }, { path[1], path[#path] })
    assert.are.equal(2, info.restarts)
  end)

  it("runs a two-tier search whole in its first step, whatever n", function()
    local g = astar.grid(48, 48, { diagonal = "no_corner_cut" })
    for y = 1, 40 do g:set_cost(24, y, false) end
    g:hierarchy(8)
    local path, info = g:find(1, 1, 48, 1, { hierarchical = true })
    local job = g:search(1, 1, 48, 1, { hierarchical = true })
    local status, used = job:step(1)
    assert.are.equal("found", status)
    assert.are.equal(info.expansions, used)
    local jpath, jinfo = job:result()
    assert.are.same(path, jpath)
    assert.are.same(info, bare(jinfo))
    assert.is_truthy(jinfo.abstract_expansions)
  end)
end)

describe("grid:search_nearest", function()
  it("answers in random slices what find_nearest answers, and the oracle's (random worlds)", function()
    local rng = oracle.rng(991)
    for n = 1, scale(120) do
      local world = random_world(rng, 10)
      local grid = oracle.grid(astar, world)
      local targets = {}
      for i = 1, rng.int(1, 4) do targets[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h) } end
      local opts = {}
      if rng.next() < 0.3 then opts.influence = random_layer(rng, world) end
      if rng.next() < 0.3 then opts.path = "flat" end
      if rng.next() < 0.3 then opts.dead_ends = true end
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local path, info = grid:find_nearest(sx, sy, targets, opts)
      local job = grid:search_nearest(sx, sy, targets, opts)
      local status = drive(job, rng, 3)
      local jpath, jinfo = job:result()
      local where = "world " .. n
      assert.are.equal(info.status, status, where)
      assert.are.same(path, jpath, where)
      assert.are.same(info, bare(jinfo), where)
      local want
      for _, t in ipairs(targets) do
        local c = oracle.cost(world, sx, sy, t.x, t.y)
        if c and (not want or c < want) then want = c end
      end
      if want then
        assert.is_true(oracle.near(jinfo.cost, want), where)
        local t = targets[jinfo.target]
        assert.is_true(oracle.near(oracle.cost(world, sx, sy, t.x, t.y), want), where)
      else
        assert.are.equal("unreachable", status, where)
      end
    end
  end)
end)

-- Every cell of two fields the same: distance and next step.
local function same_field(a, b, w, h, where)
  for y = 1, h do
    for x = 1, w do
      assert.are.equal(a:distance(x, y), b:distance(x, y), where .. " at " .. x .. "," .. y)
      local ax, ay = a:next(x, y)
      local bx, by = b:next(x, y)
      assert(ax == bx and ay == by, where .. ": next step at " .. x .. "," .. y)
    end
  end
end

describe("grid:field_job", function()
  it("builds in random slices what distance_field builds, cell by cell, and the oracle's (random worlds)", function()
    local rng = oracle.rng(4242)
    local sliced = 0
    for n = 1, scale(80) do
      local world = random_world(rng, 7)
      local grid = oracle.grid(astar, world)
      local goals = {}
      for i = 1, rng.int(1, 3) do goals[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h) } end
      local opts = {}
      if rng.next() < 0.3 then opts.influence = random_layer(rng, world) end
      if rng.next() < 0.3 then
        local salt = rng.int(1, 9)
        world.node_cost = function(x, y) return (x + 2 * y + salt) % 7 == 0 and false or 0.25 end
        opts.node_cost = world.node_cost
      end
      if rng.next() < 0.2 then opts.max_cost = rng.int(1, 6) end
      local field, info = grid:distance_field(goals, opts)
      local job = grid:field_job(goals, opts)
      assert.is_nil((job:result()))
      local status, steps = drive(job, rng, 3)
      if steps > 2 then sliced = sliced + 1 end
      local jfield, jinfo = job:result()
      local where = "world " .. n
      assert.are.equal(info.status, status, where)
      assert.are.same(info, bare(jinfo), where)
      same_field(field, jfield, world.w, world.h, where)
      for y = 1, world.h do
        for x = 1, world.w do
          local want = math.huge
          for _, goal in ipairs(goals) do want = math.min(want, oracle.cost(world, x, y, goal.x, goal.y) or math.huge) end
          if opts.max_cost and want > opts.max_cost then want = math.huge end
          local got = jfield:distance(x, y)
          if want == math.huge then assert(got == nil, where .. " at " .. x .. "," .. y)
          else assert(got and oracle.near(got, want), where .. " at " .. x .. "," .. y) end
        end
      end
    end
    assert.is_true(sliced > scale(80) / 2, "only " .. sliced .. " fields took more than two steps")
  end)

  it("follows terrain changes between its slices: exact for the terrain at its end (random worlds)", function()
    local rng = oracle.rng(31337)
    local went_on = 0
    for n = 1, scale(60) do
      local world = random_world(rng, 9)
      local grid = oracle.grid(astar, world)
      local goals = { { x = rng.int(1, world.w), y = rng.int(1, world.h) } }
      local job = grid:field_job(goals)
      local changes = 0
      while job:status() == "running" do
        job:step(rng.int(1, 4))
        if job:status() == "running" and rng.next() < 0.3 and changes < 4 then -- between two slices
          local x, y = rng.int(1, world.w), rng.int(1, world.h)
          local c = rng.next() < 0.3 and false or rng.int(1, 3)
          grid:set_cost(x, y, c)
          world.cost[y][x] = c
          changes = changes + 1
        end
      end
      local jfield, jinfo = job:result()
      if changes > 0 and jinfo.restarts == 0 then went_on = went_on + 1 end
      local where = "world " .. n
      same_field(grid:distance_field(goals), jfield, world.w, world.h, where)
      for y = 1, world.h do
        for x = 1, world.w do
          local want = oracle.cost(world, x, y, goals[1].x, goals[1].y) or math.huge
          local got = jfield:distance(x, y) or math.huge
          assert(got == want or oracle.near(got, want), where .. " at " .. x .. "," .. y)
        end
      end
    end
    -- (a handful of worlds may hold none: the next test shows it on purpose)
    if scale(60) >= 15 then assert.is_true(went_on > 0, "no field went on past a change") end
  end)

  it("goes on past a change it has not reached, starts over for one it has", function()
    local g = astar.grid(60, 20)
    local job = g:field_job({ { x = 1, y = 10 } })
    job:step(30)
    g:set_cost(58, 3, false) -- far from what it reached
    assert.are.equal("done", job:step())
    local field, info = job:result()
    assert.are.equal(0, info.restarts)
    same_field(g:distance_field({ { x = 1, y = 10 } }), field, 60, 20, "far")
    job = g:field_job({ { x = 1, y = 10 } })
    job:step(30)
    g:set_cost(2, 10, 3) -- under it
    assert.are.equal("done", job:step())
    field, info = job:result()
    assert.are.equal(1, info.restarts)
    same_field(g:distance_field({ { x = 1, y = 10 } }), field, 60, 20, "near")
    -- a goal that was blocked when it started, opened while it runs: a goal now
    g:set_cost(60, 20, false)
    job = g:field_job({ { x = 1, y = 1 }, { x = 60, y = 20 } })
    job:step(5)
    g:set_cost(60, 20, 1)
    job:step()
    field = job:result()
    assert.are.equal(0, field:distance(60, 20))
  end)

  it("writes the field in slices too: every step stays within its n", function()
    local g = astar.grid(64, 64)
    local job = g:field_job({ { x = 32, y = 32 } })
    local steps, total = 0, 0
    while true do
      local status, used = job:step(16)
      assert.is_true(used <= 16)
      total = total + used
      steps = steps + 1
      if status ~= "running" then break end
    end
    local _, info = job:result()
    -- 4096 expansions, then 4096 cells written at ASTAR_FIELD_CELLS_PER_UNIT (16) a unit
    assert.are.equal(4096, info.expansions)
    assert.are.equal(4096 + 4096 / 16, total)
    assert.is_true(steps >= total / 16)
    assert.are.equal("done", job:status())
    assert.are.equal("done", (job:step(5)))
    assert.truthy(tostring(job):find("astar.Search(done)", 1, true))
  end)
end)

describe("grid:field_job, small or large", function()
  local work = require("spec.support.work")

  -- Drives job in steps of n; the units its steps used in all.
  local function total_of(job, n)
    local total = 0
    repeat
      local status, used = job:step(n)
      total = total + used
    until status ~= "running"
    return total
  end

  it("keeps what distance_field keeps: a small field only the cells it reached, a large one the grid", function()
    local g = astar.grid(200, 200)
    g:set_cost(101, 100, false)
    local goals = { { x = 100, y = 100 } }
    for _, opts in ipairs({ { max_cost = 3 }, {} }) do
      local field, info = g:distance_field(goals, opts)
      local job = g:field_job(goals, opts)
      local total = total_of(job, 7)
      local jfield, jinfo = job:result()
      assert.are.same(info, bare(jinfo))
      local cells = field:cells()
      assert.are.same(cells, jfield:cells())
      assert.are.equal(info.reached, #cells)
      -- its form: field:cells() reads what it keeps (the cells reached, or the grid)
      local units = work.units_of(function() jfield:cells() end)
      assert.are.equal(work.units_of(function() field:cells() end), units)
      if opts.max_cost then
        assert.is_true(#cells < 50, #cells .. " cells")
        assert.are.equal(#cells, units)
        -- its work: the expansions, then a unit per 16 cells kept (not per 16 of the grid's)
        assert.are.equal(info.expansions + math.ceil(#cells / 16), total)
      else
        assert.are.equal(200 * 200, units)
        assert.are.equal(info.expansions + 200 * 200 / 16, total)
      end
      same_field(field, jfield, 200, 200, opts.max_cost and "small" or "large")
    end
  end)

  it("lists a small field again in the next step when the work limit stopped its listing", function()
    local g = astar.grid(100, 100)
    local goals = { { x = 50, y = 50 } }
    local field, info = g:distance_field(goals, { max_cost = 4 })
    local job = g:field_job(goals, { max_cost = 4 })
    assert.are.equal("running", (job:step(info.expansions))) -- the search, every unit of it
    astar.set_work_limit(1)
    finally(function() astar.set_work_limit(nil) end)
    assert.matches("work limit", tostring(select(2, pcall(job.step, job)))) -- its listing
    astar.set_work_limit(nil)
    assert.are.equal("done", (job:step()))
    local jfield, jinfo = job:result()
    assert.are.same(info, bare(jinfo))
    assert.are.same(field:cells(), jfield:cells())
    same_field(field, jfield, 100, 100, "listed again")
  end)
end)

describe("jobs of every kind", function()
  it("check their arguments as the calls they stand for", function()
    local g = astar.grid(5, 5)
    local function err_of(f)
      local ok, err = pcall(f)
      assert.is_false(ok)
      return tostring(err)
    end
    assert.matches("bad argument #2 to 'field_job' %(option 'heuristic' does not apply to field_job%)",
      err_of(function() g:field_job({ { x = 1, y = 1 } }, { heuristic = "octile" }) end))
    assert.matches("option 'path' does not apply to field_job",
      err_of(function() g:field_job({ { x = 1, y = 1 } }, { path = "flat" }) end))
    assert.matches("goals must be a non%-empty list", err_of(function() g:field_job({}) end))
    assert.matches("goal 1 is not a cell of the 5x5 grid", err_of(function() g:field_job({ { x = 9, y = 1 } }) end))
    assert.matches("option 'heuristic' must be a name for search_nearest",
      err_of(function() g:search_nearest(1, 1, { { x = 2, y = 2 } }, { heuristic = function() return 0 end }) end))
    assert.matches("option 'hierarchical' does not apply to search_nearest",
      err_of(function() g:search_nearest(1, 1, { { x = 2, y = 2 } }, { hierarchical = true }) end))
    assert.matches("option 'hierarchical' must be a boolean", err_of(function() g:search(1, 1, 5, 5, { hierarchical = 1 }) end))
    assert.matches("option 'into' must be a table", err_of(function() g:search(1, 1, 5, 5, { into = 1 }) end))
    assert.matches("cannot be used with 'interests'", err_of(function()
      g:search(1, 1, 5, 5, { hierarchical = true, interests = { { x = 2, y = 2, value = 1 } } })
    end))
    assert.matches("n must be a positive integer", err_of(function() g:field_job({ { x = 1, y = 1 } }):step(0) end))
    local hex = astar.grid(6, 6, { topology = "hex" })
    assert.matches("cross cluster corners", err_of(function() hex:search(1, 1, 6, 6, { hierarchical = true }) end))
  end)

  it("give their workspace back when closed mid-way", function()
    -- A new workspace counts its cells to the work limit first (200x200 with the border:
    -- 40804 units): what a step charges says whether it took one from the pool or made one.
    astar.set_work_limit(1e12)
    finally(function() astar.set_work_limit(nil) end)
    for _, kind in ipairs({ "path", "field" }) do
      local g = astar.grid(200, 200) -- a pool of its own
      local function running()
        local job = kind == "field" and g:field_job({ { x = 1, y = 1 } }) or g:search(1, 1, 200, 200, { jump = false })
        local left = astar.work_left()
        assert.are.equal("running", (job:step(10)))
        return job, left - astar.work_left()
      end
      local a, charged = running()
      assert.is_true(charged > 40000, kind .. ": " .. charged) -- the pool's first
      getmetatable(a).__gc(a) -- closed mid-way: its workspace goes back to the grid's pool
      local b, c
      b, charged = running()
      assert.is_true(charged < 1000, kind .. ": " .. charged) -- a's workspace, no new one
      c, charged = running()
      assert.is_true(charged > 40000, kind .. ": " .. charged) -- b holds it: a new one
      assert.has_error(function() a:step() end)
      local ended = b:step()
      assert.is_true(ended == "found" or ended == "done", kind)
      getmetatable(c).__gc(c)
    end
    astar.set_work_limit(nil)
  end)

  it("survive a callback that closes things, and go on after its error", function()
    local g = astar.grid(20, 20)
    local other = g:search(1, 1, 20, 20, { jump = false })
    other:step(3)
    local job, field
    local mode = "other"
    local function node_cost()
      if mode == "other" then getmetatable(other).__gc(other) -- allowed: another job
      elseif mode == "self" then getmetatable(job).__gc(job) -- refused: it is stepping
      elseif mode == "grid" then getmetatable(g).__gc(g) -- refused: in use
      elseif mode == "field" then getmetatable(field).__gc(field)
      end
      return 0
    end
    job = g:search(1, 1, 20, 20, { node_cost = node_cost })
    field = g:field_job({ { x = 20, y = 20 } }, { node_cost = node_cost })
    assert.are.equal("running", (job:step(2)))
    assert.has_error(function() other:step() end)
    mode = "self"
    assert.matches("in use", select(2, pcall(job.step, job)))
    mode = "grid"
    assert.matches("in use", select(2, pcall(job.step, job)))
    assert.matches("in use", select(2, pcall(field.step, field)))
    mode = "field" -- the field job closing itself from its own callback: refused
    assert.matches("in use", select(2, pcall(field.step, field)))
    mode = nil
    assert.are.equal("found", (job:step()))
    assert.are.equal("done", (field:step()))
    local path, info = job:result()
    assert.are.equal(select(2, g:find(1, 1, 20, 20)).cost, info.cost)
    assert.are.equal(20, #path)
    local f = field:result()
    assert.are.equal(select(2, g:find(1, 1, 20, 20)).cost, f:distance(1, 1))
  end)
end)
