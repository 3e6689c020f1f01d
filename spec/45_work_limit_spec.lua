-- The work limit (issue 25): astar.set_work_limit(n) bounds the C work of the calls this
-- thread makes from then on. Every function that can run a long loop in C, under a limit too
-- small for it, raises "work limit reached" and leaves its objects as they were: with the
-- limit lifted, the same call answers what the oracle says, searches in slices and builds go
-- on from where they stood, and every later call raises at once until the limit is set again.
-- Assertions are on units (astar.work_left), never on time.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local graph_oracle = require("spec.support.graph_oracle")

local LIMIT = "work limit reached"

local function raises_limit(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected the work limit to stop the call")
  assert(tostring(err):find(LIMIT, 1, true), "unexpected error: " .. tostring(err))
end

local unpack = table.unpack or unpack -- luacheck: ignore 143

local function pack(...) return { n = select("#", ...), ... } end

-- A world of walls and swamps, the same on every run, with a way from corner to corner (along
-- the first row and the last column, if nothing better).
local function world(w, h, seed)
  local rng = oracle.rng(seed)
  local rows = {}
  for y = 1, h do
    local row = {}
    for x = 1, w do
      local r = rng.int(1, 100)
      row[x] = (y == 1 or x == w) and "." or r <= 18 and "#" or r <= 30 and "3" or "."
    end
    rows[y] = table.concat(row)
  end
  return oracle.world_from_rows(rows, "no_corner_cut"), rows
end

-- The world's grid, its costs as a table (to see that nothing changed), and its oracle cost
-- corner to corner.
local function grid_of(w, h, seed)
  local wd = world(w, h, seed)
  return oracle.grid(astar, wd), wd, oracle.cost(wd, 1, 1, w, h)
end

local function costs_of(grid)
  local w, h = grid:size()
  local t = {}
  for y = 1, h do
    for x = 1, w do t[#t + 1] = grid:get_cost(x, y) end
  end
  return t
end

-- How many units f takes (run under a generous limit).
local units_of = require("spec.support.work").units_of

describe("astar.set_work_limit", function()
  after_each(function() astar.set_work_limit(nil) end)

  it("counts down the units calls use; work_left says how many are left; nil removes it", function()
    assert.is_nil(astar.work_left())
    local grid, _, want = grid_of(30, 20, 1)
    local _, warm = grid:find(1, 1, 30, 20, { jump = false }) -- its lazy tables, before the count
    assert.are.equal(want, warm.cost)
    astar.set_work_limit(100000)
    assert.are.equal(100000, astar.work_left())
    local _, info = grid:find(1, 1, 30, 20, { jump = false })
    assert.are.equal(100000 - info.expansions, astar.work_left()) -- a unit per node expanded
    grid:fill(2)
    -- a unit per cell, and the island labels and dead-end areas the find built, built again at
    -- the write: three per cell with the border each (the areas' at most)
    assert.are.equal(100000 - info.expansions - 30 * 20 - 2 * 3 * 32 * 22, astar.work_left())
    astar.set_work_limit(nil)
    assert.is_nil(astar.work_left())
    grid:fill(1) -- no limit: anything goes
    astar.set_work_limit(0)
    assert.are.equal(0, astar.work_left())
    assert.are.equal(1, grid:get_cost(5, 5)) -- calls that do no work still run
    raises_limit(grid.fill, grid, 3)
    assert.are.equal(1, grid:get_cost(5, 5))
  end)

  it("stops a call at the exact unit: n units pass, n + 1 do not", function()
    local grid = grid_of(40, 30, 2)
    grid:find(1, 1, 40, 30, { jump = false })
    local used = units_of(function() grid:find(1, 1, 40, 30, { jump = false }) end)
    assert(used > 50)
    astar.set_work_limit(used)
    assert.is_table(grid:find(1, 1, 40, 30, { jump = false }))
    assert.are.equal(0, astar.work_left())
    astar.set_work_limit(used - 1)
    raises_limit(grid.find, grid, 1, 1, 40, 30, { jump = false })
    assert.are.equal(0, astar.work_left())
    -- Used up, it raises at once for every call that does work, until set again.
    raises_limit(grid.find, grid, 1, 1, 2, 2, { jump = false })
    raises_limit(grid.fill, grid, 1)
    astar.set_work_limit(used)
    assert.is_table(grid:find(1, 1, 40, 30, { jump = false }))
  end)

  it("raises at the caller's line, from queries (run under pcall inside) and writes alike", function()
    local grid = grid_of(30, 20, 14)
    grid:find(1, 1, 30, 20)
    astar.set_work_limit(0)
    -- (No tail calls: LuaJIT would drop the calling frame, and with it the line.)
    for _, call in ipairs({ function() local p = grid:find(1, 1, 30, 20, { jump = false }) return p end,
                            function() grid:fill(2) end, function() local g = astar.grid(10, 10) return g end }) do
      local ok, err = pcall(call)
      assert.is_false(ok)
      -- (busted names the file with the system's separator: spec\ on Windows)
      assert.truthy(err:match("^spec[/\\]45_work_limit_spec%.lua:%d+: work limit reached$"), err)
    end
  end)

  it("refuses what is not an integer >= 0 (or nil), and keeps the limit it had", function()
    astar.set_work_limit(500)
    for _, bad in ipairs({ -1, 1.5, 0 / 0, math.huge, -math.huge, "10", {}, true, 2 ^ 60 }) do
      local ok, err = pcall(astar.set_work_limit, bad)
      assert.is_false(ok)
      assert.truthy(tostring(err):find("bad argument #1", 1, true), tostring(err))
    end
    assert.are.equal(500, astar.work_left())
  end)

  it("bounds astar.grid(4096, 4096):landmarks(16) to the limit's units", function()
    local big = astar.grid(4096, 4096) -- no limit yet
    astar.set_work_limit(1e6)
    raises_limit(big.landmarks, big, 16)
    assert.are.equal(0, astar.work_left()) -- all the million, not one more
    raises_limit(big.landmarks, big, 16) -- at once now
    astar.set_work_limit(nil)
    assert.are.same({ 0, 0 }, { big:landmarks() }) -- nothing built, nothing half built
    assert.is_true(big:is_walkable(4096, 4096)) -- no query: its tables of 16M cells would take
    getmetatable(big).__gc(big)                  -- minutes under valgrind
  end)
end)

-- Each function, stopped at several points of its work: op(ctx) makes the call on objects
-- setup() makes afresh, under limits of 0, 1 and fractions of the units it takes, up to one
-- short of them. After each stop, with the limit lifted, check(ctx) sees the objects as they
-- were, and op(ctx) again must answer right: verify(ctx, ...) gets its results. Exactly the
-- units it takes are enough (with worker threads, `slack` more: each takes its units a lease
-- at a time, and a stop may come a lease early).
local function stops_everywhere(setup, op, check, verify, slack)
  local first = setup()
  local used = units_of(function() op(first) end)
  assert(used > 8, "too little work to stop anywhere: " .. used)
  local f = math.floor
  for _, part in ipairs({ 0, 1, f(used / 7), f(used / 3), f(used / 2), used - 1 }) do
    local ctx = setup()
    astar.set_work_limit(part)
    raises_limit(op, ctx)
    assert.are.equal(0, astar.work_left()) -- it used them all
    astar.set_work_limit(nil)
    check(ctx)
    verify(ctx, op(ctx))
  end
  local ctx = setup()
  astar.set_work_limit(used + (slack or 0))
  local results = pack(op(ctx))
  astar.set_work_limit(nil)
  verify(ctx, unpack(results, 1, results.n))
end

local function nothing() end

describe("every function with a long loop stops under the limit", function()
  after_each(function() astar.set_work_limit(nil) end)

  it("grid:find (plain, jumping, with a callback; its lazy tables too) and find_nearest", function()
    local wd = world(40, 30, 3)
    for _, opts in ipairs({ { jump = false }, {}, { node_cost = function(x) return x % 3 end } }) do
      local ow = world(40, 30, 3)
      ow.node_cost = opts.node_cost
      local want = oracle.cost(ow, 1, 1, 40, 30)
      stops_everywhere(function()
        local grid = oracle.grid(astar, wd)
        return { grid = grid, costs = costs_of(grid) }
      end, function(c) return c.grid:find(1, 1, 40, 30, opts) end, function(c)
        assert.are.same(c.costs, costs_of(c.grid))
      end, function(_, path, info)
        assert(path and oracle.near(info.cost, want), tostring(info.cost) .. " vs " .. tostring(want))
      end)
    end
    local want = math.min(oracle.cost(wd, 1, 1, 40, 30), oracle.cost(wd, 1, 1, 20, 30) or math.huge)
    stops_everywhere(function() return { grid = oracle.grid(astar, wd) } end,
      function(c) return c.grid:find_nearest(1, 1, { { x = 40, y = 30 }, { x = 20, y = 30 } }) end, nothing,
      function(_, path, info) assert(path and oracle.near(info.cost, want)) end)
  end)

  it("grid:find_many, on the calling thread and on worker threads", function()
    local wd = world(40, 30, 5)
    local queries = { { 1, 1, 40, 30 }, { 40, 1, 1, 30 }, { 5, 5, 35, 25 }, { 1, 30, 40, 1 } }
    for _, threads in ipairs({ 1, 3 }) do
      stops_everywhere(function() return { grid = oracle.grid(astar, wd) } end,
        function(c) return c.grid:find_many(queries, { jump = false }, { threads = threads }) end, nothing,
        function(_, results)
          for i, q in ipairs(queries) do
            local want = oracle.cost(wd, q[1], q[2], q[3], q[4])
            local r = results[i]
            if want then
              assert(r.path and oracle.near(r.info.cost, want), "query " .. i)
            else
              assert.is_nil(r.path)
            end
          end
        end, (threads - 1) * 256)
    end
  end)

  it("a search's step stops between expansions and goes on from there", function()
    local grid, _, want = grid_of(60, 40, 6)
    local _, whole = grid:find(1, 1, 60, 40, { jump = false })
    local job = grid:search(1, 1, 60, 40)
    local _, first = job:step(10)
    assert.are.equal(10, first)
    astar.set_work_limit(25)
    raises_limit(job.step, job, 1000) -- 25 more expansions, then the limit
    raises_limit(job.step, job, 1000) -- at once
    assert.are.equal("running", job:status())
    astar.set_work_limit(nil)
    local status, rest = job:step()
    assert.are.equal("found", status)
    assert.are.equal(whole.expansions - first - 25, rest) -- resumed, not started over
    local path, info = job:result()
    assert(path and oracle.near(info.cost, want))
  end)

  it("a scheduler's request ends with status \"error\" and the limit's error; the next ones run", function()
    local grid, _, want = grid_of(60, 40, 7)
    grid:find(1, 1, 60, 40, { jump = false })
    local sched = astar.scheduler({ budget = 100000 })
    local told = {}
    sched:request(grid, 1, 1, 60, 40, { jump = false }, function(path, info) told[1] = { path, info } end)
    astar.set_work_limit(30)
    sched:tick()
    astar.set_work_limit(nil)
    assert.is_nil(told[1][1])
    assert.are.equal("error", told[1][2].status)
    assert.truthy(tostring(told[1][2].error):find(LIMIT, 1, true))
    sched:request(grid, 1, 1, 60, 40, nil, function(path, info) told[2] = { path, info } end)
    sched:tick()
    assert(told[2][1] and oracle.near(told[2][2].cost, want))
  end)

  it("grid:distance_field, grid:range, field:cells and field:path", function()
    local wd = world(30, 20, 8)
    local field
    stops_everywhere(function() return { grid = oracle.grid(astar, wd) } end,
      function(c) return c.grid:distance_field({ { x = 30, y = 20 } }) end, nothing, function(_, f)
        for _, p in ipairs({ { 1, 1 }, { 15, 10 }, { 2, 19 } }) do
          local want = oracle.cost(wd, p[1], p[2], 30, 20)
          local got = f:distance(p[1], p[2])
          if want then assert(oracle.near(got, want)) else assert.is_nil(got) end
        end
        field = f
      end)
    local from = oracle.distances(wd, 1, 1)
    local n = 0
    for y = 1, 20 do
      for x = 1, 30 do if from[y][x] <= 12 then n = n + 1 end end
    end
    stops_everywhere(function() return { grid = oracle.grid(astar, wd) } end,
      function(c) return c.grid:range(1, 1, 12) end, nothing, function(_, cells) assert.are.equal(n, #cells) end)
    -- Reading a field back: a unit a cell, a read (nothing to undo).
    local reached = #field:cells()
    stops_everywhere(function() return { field = field } end, function(c) return c.field:cells() end, nothing,
      function(_, cells) assert.are.equal(reached, #cells) end)
    stops_everywhere(function() return { field = field } end, function(c) return c.field:path(1, 1) end, nothing,
      function(_, way) assert.are.same({ x = 30, y = 20 }, way[#way]) end)
  end)

  it("grid:check_path and grid:repair", function()
    local wd = world(40, 30, 9)
    local path = oracle.grid(astar, wd):find(1, 1, 40, 30)
    local cut = path[math.floor(#path / 2)]
    wd.cost[cut.y][cut.x] = false
    local function setup()
      local grid = oracle.grid(astar, wd)
      grid:set_cost(3, 1, 5) -- the cost range to compute again, a pass over the cells
      grid:set_cost(3, 1, 1)
      return { grid = grid }
    end
    stops_everywhere(setup, function(c) return c.grid:repair(path, 1, { jump = false }) end, nothing,
      function(_, fixed, info)
        assert(fixed and oracle.near(info.cost, oracle.path_cost(wd, fixed)))
        assert(info.cost >= oracle.cost(wd, 1, 1, 40, 30) - 1e-9)
      end)
    -- check_path walks the path it is given (not counted): its set-up is, which a query with
    -- callbacks has (the terrain check has none: issue 26, it reads only the path and the
    -- cells beside it).
    local function cb() end
    stops_everywhere(setup, function(c) return c.grid:check_path(path, 1, { node_cost = cb }) end, nothing,
      function(_, bad) assert.are.equal(math.floor(#path / 2), bad) end)
    local grid = setup().grid
    assert.are.equal(0, units_of(function() assert.are.equal(math.floor(#path / 2), grid:check_path(path)) end))
  end)

  it("grid:landmarks and grid:hierarchy keep the old tables when stopped", function()
    local wd = world(48, 32, 10)
    local want = oracle.cost(wd, 1, 1, 48, 32)
    stops_everywhere(function()
      local grid = oracle.grid(astar, wd)
      grid:landmarks(2)
      return { grid = grid }
    end, function(c) return c.grid:landmarks(4) end, function(c)
      assert.are.equal(2, (c.grid:landmarks())) -- the old ones, still in use
    end, function(c, count)
      assert.are.equal(4, count)
      local _, info = c.grid:find(1, 1, 48, 32, { jump = false })
      assert(oracle.near(info.cost, want))
    end)
    local stats
    stops_everywhere(function()
      local grid = oracle.grid(astar, wd)
      grid:hierarchy(8)
      return { grid = grid, before = grid:hierarchy() }
    end, function(c) return c.grid:hierarchy(6) end, function(c)
      assert.are.same(c.before, c.grid:hierarchy())
    end, function(c, s)
      assert.are.equal(6, s.cluster_size)
      stats = stats or s
      assert.are.same(stats, s)
      local path, tiered = c.grid:find(1, 1, 48, 32, { hierarchical = true })
      assert(path and tiered.cost >= want - 1e-9)
    end)
  end)

  it("builds in slices, on one and two threads: a stopped step keeps what the build did", function()
    local wd = world(48, 32, 10)
    local twin = oracle.grid(astar, wd)
    local lm = twin:landmarks(4)
    local stats = twin:hierarchy(6)
    for _, threads in ipairs({ 1, 2 }) do
      for _, kind in ipairs({ "build_landmarks", "build_hierarchy" }) do
        local grid = oracle.grid(astar, wd)
        local b = grid[kind](grid, kind == "build_landmarks" and 4 or 6, { threads = threads })
        b:step(50)
        local before = b:progress()
        astar.set_work_limit(40)
        raises_limit(b.step, b, 1000)
        raises_limit(b.step, b, 1000)
        astar.set_work_limit(nil)
        assert(b:progress() >= before)
        b:finish()
        assert.are.equal(0, b:restarts()) -- went on, never over
        assert.is_true(b:done())
        if kind == "build_landmarks" then
          assert.are.equal(lm, (grid:landmarks()))
        else
          assert.are.same(stats, grid:hierarchy())
        end
      end
    end
  end)

  it("the lazy tables: prepare_jumps, component, reachable, dead_end; a hierarchical find's clusters", function()
    local wd, rows = world(40, 30, 11)
    local twin = oracle.grid(astar, wd)
    local ops = {
      function(g) return g:prepare_jumps() end,
      function(g) return g:component(20, 15) end,
      function(g) return g:reachable(1, 1, 40, 30) end,
      function(g) return g:dead_end(20, 15) end,
    }
    for i, op in ipairs(ops) do
      local want = op(twin)
      stops_everywhere(function()
        local grid = astar.grid(40, 30)
        grid:load(rows, { ["."] = 1, ["#"] = false, ["3"] = 3 }) -- a bulk write: the tables stale
        return { grid = grid }
      end, function(c) return op(c.grid) end, nothing, function(_, got) assert.are.equal(want, got, "op " .. i) end)
    end
    assert.is_true(twin:reachable(1, 1, 40, 30))
    -- Dirty clusters, which a hierarchical find rebuilds first.
    local want = oracle.cost(wd, 1, 1, 40, 30)
    stops_everywhere(function()
      local grid = oracle.grid(astar, wd)
      grid:hierarchy(8)
      for x = 2, 39, 3 do grid:set_cost(x, 1, 2) end
      return { grid = grid }
    end, function(c) return c.grid:find(1, 1, 40, 30, { hierarchical = true }) end, nothing,
      function(_, path, info) assert(path and info.cost >= want - 1e-9) end)
  end)

  it("bulk writes change nothing when stopped: fill, load, layers, masks", function()
    local _, rows = world(30, 20, 12)
    local legend = { ["."] = 1, ["#"] = false, ["3"] = 3 }
    local writes = {
      function(c) return c.grid:fill(2) end,
      function(c) return c.grid:load(rows, legend) end,
      function(c) return c.layer:fill(4) end,
      function(c) return c.layer:stamp(15, 10, 40, 2) end,
      function(c) return c.layer:decay(0.5) end,
      function(c) return c.layer:spread(0.2, 0.5, c.grid) end,
      function(c) return c.layer:add_layer(c.other, 2) end,
      function(c) return c.layer:max_abs() end,
      function(c) return c.mask:reveal(3, 3, 100) end,
    }
    local function snapshot(c)
      local t = costs_of(c.grid)
      for y = 1, 20 do
        for x = 1, 30 do
          t[#t + 1] = c.layer:get(x, y)
          t[#t + 1] = c.mask:is_known(x, y)
        end
      end
      return t
    end
    for i, op in ipairs(writes) do
      local done
      stops_everywhere(function()
        local c = { grid = oracle.grid(astar, world(30, 20, 13)), layer = astar.influence(30, 20, 1),
          other = astar.influence(30, 20, -0.5), mask = astar.mask(30, 20) }
        for y = 1, 20 do c.layer:set(y, y, y) end
        c.before = snapshot(c)
        return c
      end, op, function(c) assert.are.same(c.before, snapshot(c), "write " .. i) end,
        function(c) done = done or snapshot(c) end)
      assert(i == 8 or done, "write " .. i .. " never wrote")
    end
  end)

  it("constructors: astar.grid, influence, mask, claims, load_movingai_string", function()
    local map = "type octile\nheight 20\nwidth 30\nmap\n" .. string.rep(string.rep(".", 30) .. "\n", 20)
    local grid = astar.grid(30, 20)
    local graph = astar.graph()
    for i = 1, 50 do graph:add_node(i, 0) end
    local makers = {
      function() return astar.grid(30, 20) end,
      function() return astar.grid(30, 20, { cost = 2 }) end,
      function() return astar.influence(30, 20, 1) end,
      function() return astar.mask(30, 20) end,
      function() return astar.claims(grid) end,
      function() return astar.claims(graph) end,
      function() return astar.load_movingai_string(map) end,
    }
    for i, make in ipairs(makers) do
      stops_everywhere(function() return {} end, make, nothing,
        function(_, made) assert(made and made:size(), "maker " .. i) end)
    end
    -- A grid's first query makes its workspace: a unit per cell (with the border) too.
    local fresh = astar.grid(30, 20)
    astar.set_work_limit(32 * 22 - 1)
    raises_limit(fresh.find, fresh, 1, 1, 30, 20)
    astar.set_work_limit(nil)
    assert.are.equal("found", select(2, fresh:find(1, 1, 30, 20)).status)
  end)

  it("graph:find, the packing of its arcs included", function()
    local wd = { n = 0, pos = {}, arcs = {} }
    for y = 1, 15 do
      for x = 1, 15 do
        wd.n = wd.n + 1
        wd.pos[wd.n] = { x, y, 0 }
        wd.arcs[wd.n] = {}
      end
    end
    local function link(a, b)
      wd.arcs[a][b] = graph_oracle.distance(wd, a, b)
      wd.arcs[b][a] = wd.arcs[a][b]
    end
    for id = 1, wd.n do
      if id % 15 ~= 0 then link(id, id + 1) end
      if id + 15 <= wd.n and id % 4 ~= 0 then link(id, id + 15) end
    end
    local want = graph_oracle.cost(wd, 1, wd.n)
    stops_everywhere(function() return { graph = graph_oracle.graph(astar, wd) } end,
      function(c) return c.graph:find(1, wd.n) end, function(c) assert.are.equal(wd.n, c.graph:size()) end,
      function(_, ids, info) assert(ids and oracle.near(info.cost, want)) end)
  end)
end)
