-- astar.scheduler keeps the frame (issue 27, point 1): budget_us is a cap (slices sized from
-- the measured cost of an expansion), a tick's work is bounded whatever its callbacks do,
-- cancel and finished requests close their jobs, retarget, run, stats. Time is a fake clock
-- here: no timed assertion (bench/crowd.lua measures).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")

-- A fake clock in microseconds, and a node_cost that advances it by `us` per node reached: on
-- a one-row corridor a search reaches exactly one new node per expansion, so an expansion costs
-- exactly `us` of the fake clock (and `count[name]` counts them).
local function fake_time()
  local t = { now = 0, count = {} }
  function t.clock() return t.now / 1e6 end
  function t.cost(name, us)
    t.count[name] = 0
    return function()
      t.now = t.now + us
      t.count[name] = t.count[name] + 1
    end
  end
  return t
end

-- A small random world (the oracle's) and its grid.
local function world_and_grid(seed, w, h)
  local rng = oracle.rng(seed)
  local world = { w = w, h = h, cost = {}, diagonal = "no_corner_cut" }
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local r = rng.next()
      world.cost[y][x] = r < 0.2 and false or (r < 0.4 and 3 or 1)
    end
  end
  world.cost[1][1], world.cost[h][w], world.cost[1][w], world.cost[h][1] = 1, 1, 1, 1
  return world, oracle.grid(astar, world), rng
end

local function near(a, b) return math.abs(a - b) <= 1e-6 * math.max(1, math.abs(b)) end

describe("the scheduler keeps the frame (issue 27)", function()
  it("budget_us is a cap: a tick ends within it plus one small slice, sized from the measured rate", function()
    -- Until issue 27 a slice was budget / concurrent expansions whatever the time: one slice of
    -- a search costing 10 us an expansion took 2.5 s of a 1 ms budget.
    local t = fake_time()
    local grid = astar.grid(3000, 1)
    local budget_us, us = 1000, 10
    local sched = astar.scheduler({ budget = 1000000, budget_us = budget_us, concurrent = 4, clock = t.clock })
    for unit = 1, 4 do
      sched:request(grid, unit, 1, 3000, 1, { node_cost = t.cost(unit, us) }, function() end)
    end
    local ticks, over, most = 0, 0, 0
    local seen = {}
    while sched:pending() > 0 and ticks < 200 do
      local before, counts = t.now, {}
      for unit = 1, 4 do counts[unit] = t.count[unit] end
      local spent = sched:tick()
      ticks = ticks + 1
      local took = t.now - before
      most = math.max(most, took)
      -- one small slice at most beyond the budget: 64 expansions (a job's first probe)
      if took > budget_us + 64 * us then over = over + 1 end
      if sched:pending() == 4 and ticks > 1 then
        -- every running search progresses; the longest-running takes about half
        local head = t.count[1] - counts[1]
        for unit = 2, 4 do assert.is_true(t.count[unit] > counts[unit], "unit " .. unit .. " starved") end
        assert.is_true(head >= 0.4 * spent and head <= 0.75 * spent, head .. " of " .. spent)
        seen.steady = true
      end
    end
    assert.are.equal(0, over, "ticks over the cap; the longest took " .. most .. " us")
    assert.is_true(seen.steady)
    assert.are.equal(0, sched:pending())
    assert.is_true(ticks > 40, ticks .. " ticks") -- 12,000 expansions of 10 us in 1 ms ticks
    local s = sched:stats()
    assert.is_true(near(s.us_per_expansion, us) or math.abs(s.us_per_expansion - us) < 0.5, tostring(s.us_per_expansion))
  end)

  it("budget stays a cap beside budget_us", function()
    local t = fake_time()
    local grid = astar.grid(2000, 1)
    local sched = astar.scheduler({ budget = 300, budget_us = 1e6, concurrent = 3, clock = t.clock })
    for unit = 1, 3 do sched:request(grid, unit, 1, 2000, 1, { node_cost = t.cost(unit, 1) }, function() end) end
    for _ = 1, 5 do assert.is_true(sched:tick() <= 300) end
  end)

  it("bounds a tick whose callbacks re-request a blocked goal (the hang)", function()
    -- Until issue 27 this tick never returned: each answer (0 expansions: the goal is blocked)
    -- freed a slot that the callback's new request took in the same tick (200,008 callbacks
    -- before a guard stopped it). The guard here makes the old code fail instead of hang.
    local grid = astar.grid(20, 20)
    grid:set_cost(20, 20, false)
    for _, opts in ipairs({ {}, { budget_us = 1500, clock = function() return 0 end } }) do
      opts.concurrent = 8
      local sched = astar.scheduler(opts)
      local calls = 0
      local function again(_, info)
        calls = calls + 1
        assert.are.equal("unreachable", info.status)
        if calls < 5000 then sched:request(grid, 1, 1, 20, 20, nil, again) end
      end
      for _ = 1, 200 do sched:request(grid, 1, 1, 20, 20, nil, again) end
      local _, finished = sched:tick()
      -- at most about 4 * concurrent steps a tick (each is charged a share), and nothing
      -- requested by a callback runs in the tick that made it
      assert.is_true(calls <= 2 * (4 * 8 + 1), calls .. " callbacks in one tick")
      assert.are.equal(calls, finished)
      assert.are.equal(200, sched:pending())
      sched:tick()
      assert.is_true(calls <= 4 * (4 * 8 + 1), calls .. " callbacks in two ticks")
      assert.are.equal(200, sched:pending())
    end
  end)

  it("cancel closes the job at once; a finished request's job is closed once its answer is read", function()
    local world, grid = world_and_grid(57, 30, 30)
    local sched = astar.scheduler({ budget = 20, concurrent = 2 })
    local running = sched:request(grid, 1, 1, 30, 30, nil, function() error("cancelled: never told") end)
    local waiting = sched:request(grid, 30, 30, 1, 1, nil, function() error("cancelled: never told") end, -1)
    local third = sched:request(grid, 1, 30, 30, 1, nil, function() error("cancelled: never told") end, -2)
    sched:tick()
    local jobs = { sched.by_ticket[running].job, sched.by_ticket[waiting].job, sched.by_ticket[third].job }
    assert.are.equal("running", jobs[1]:status())
    assert.is_true(sched:cancel(running))
    assert.is_true(sched:cancel(third)) -- waiting, never stepped
    assert.has_error(function() jobs[1]:status() end, "attempt to use a freed astar.Search")
    assert.has_error(function() jobs[3]:status() end, "attempt to use a freed astar.Search")
    assert.are.equal("running", jobs[2]:status())
    local got
    sched:cancel(waiting)
    local ticket = sched:request(grid, 1, 1, 30, 30, nil, function(path, info) got = { path = path, info = info } end)
    local job = sched.by_ticket[ticket].job
    while sched:pending() > 0 do sched:tick(1000) end
    assert.has_error(function() job:status() end, "attempt to use a freed astar.Search")
    -- the answer's tables stay: a legal path of the optimal cost
    assert.is_true(near(oracle.cost(world, 1, 1, 30, 30), got.info.cost))
    assert.is_true(near(oracle.path_cost(world, got.path), got.info.cost))
    -- a job given to run stays its owner's: cancel drops it, does not close it
    local own = grid:search(1, 1, 30, 30)
    local t = sched:run(own, function() end)
    sched:tick(5)
    assert.is_true(sched:cancel(t))
    assert.are.equal("running", own:status())
  end)

  it("retarget: the answer is the new goal's, the ticket and the place in line kept", function()
    local world, grid, rng = world_and_grid(5701, 24, 24)
    local sched = astar.scheduler({ budget = 40, concurrent = 2 })
    local answers, tickets = {}, {}
    for unit = 1, 6 do
      local sx, sy
      repeat sx, sy = rng.int(2, 24), rng.int(2, 24) until oracle.cost(world, sx, sy, 1, 1)
      tickets[unit] = sched:request(grid, sx, sy, 1, 1, nil, function(path, info)
        assert.is_nil(answers[unit])
        answers[unit] = { path = path, info = info }
      end)
    end
    sched:tick(4) -- two run (a few expansions each), four wait
    local want = {}
    for unit = 1, 6 do
      local gx, gy = rng.int(1, 24), rng.int(1, 24)
      local entry = sched.by_ticket[tickets[unit]]
      local old = entry.job
      local sx, sy = entry.sx, entry.sy
      if unit == 6 then -- a new start too
        sx, sy = 24, 24
        assert.is_true(sched:retarget(tickets[unit], gx, gy, sx, sy))
      else
        assert.is_true(sched:retarget(tickets[unit], gx, gy))
      end
      assert.has_error(function() old:status() end, "attempt to use a freed astar.Search")
      want[unit] = { oracle.cost(world, sx, sy, gx, gy), sx, sy }
    end
    -- the first two kept their running slots: they answer first
    local order = {}
    for unit = 1, 6 do
      local cb = sched.by_ticket[tickets[unit]].callback
      sched.by_ticket[tickets[unit]].callback = function(...) order[#order + 1] = unit; return cb(...) end
    end
    for _ = 1, 1000 do
      if sched:pending() == 0 then break end
      sched:tick()
    end
    assert.are.equal(0, sched:pending())
    for unit = 1, 6 do
      local a, w = answers[unit], want[unit]
      if w[1] == nil then
        assert.are.equal("unreachable", a.info.status)
      else
        assert.is_true(near(w[1], a.info.cost), unit .. ": " .. a.info.cost .. " vs " .. w[1])
        assert.are.same({ w[2], w[3] }, { a.path[1].x, a.path[1].y })
      end
    end
    assert.is_true(order[1] <= 2 and order[2] <= 2, table.concat(order, " "))
    -- a told ticket is not live any more
    assert.is_false(sched:retarget(tickets[1], 2, 2))
    assert.is_false(sched:retarget(12345, 2, 2))
  end)

  it("callbacks that cancel, retarget and request during a tick: bounded, each told once", function()
    local world, grid = world_and_grid(5702, 20, 20)
    local sched = astar.scheduler({ budget = 100000, concurrent = 3 })
    local told, tickets, reached = {}, {}, {}
    local function note(i) return function(_, info) told[i] = (told[i] or 0) + 1; reached[i] = info end end
    local function counting(i) reached[i] = 0; return { node_cost = function() reached[i] = reached[i] + 1 end } end
    tickets[1] = sched:request(grid, 1, 1, 2, 2, nil, function(p, info)
      note(1)(p, info)
      assert.is_true(sched:retarget(tickets[2], 20, 1))  -- running: starts over next tick
      assert.is_true(sched:cancel(tickets[3]))
      tickets[4] = sched:request(grid, 20, 20, 1, 20, counting(4), note(4))
    end, 9)
    tickets[2] = sched:request(grid, 20, 20, 1, 1, counting(2), note(2), 5)
    tickets[3] = sched:request(grid, 20, 1, 1, 20, nil, note(3), 4)
    sched:tick()
    assert.are.same({ 1 }, { told[1], told[2], told[3], told[4] })
    assert.are.equal(0, reached[4]) -- requested in the tick: not started in it
    for _ = 1, 100 do
      if sched:pending() == 0 then break end
      sched:tick()
    end
    assert.are.same({ 1, 1, nil, 1 }, { told[1], told[2], told[3], told[4] })
    assert.is_true(near(oracle.cost(world, 20, 20, 20, 1), reached[2].cost))
    assert.is_true(near(oracle.cost(world, 20, 20, 1, 20), reached[4].cost))
  end)

  it("a cost callback that cancels or retargets its own request", function()
    local world, grid = world_and_grid(5703, 20, 20)
    local sched = astar.scheduler({ budget = 100000 })
    local ticket, job, told = nil, nil, false
    ticket = sched:request(grid, 1, 1, 20, 20, { node_cost = function()
      if ticket then
        job = sched.by_ticket[ticket].job
        assert.is_true(sched:cancel(ticket))
        ticket = nil
      end
    end }, function() told = true end)
    sched:tick()
    assert.is_false(told)
    assert.are.equal(0, sched:pending())
    assert.has_error(function() job:status() end, "attempt to use a freed astar.Search") -- closed after its step
    -- retarget from its own step: the old job closed after the step, the new one from the next tick
    local answer, first = nil, true
    ticket = sched:request(grid, 1, 1, 20, 20, { node_cost = function()
      if first then
        first = false
        job = sched.by_ticket[ticket].job
        assert.is_true(sched:retarget(ticket, 1, 20))
      end
    end }, function(_, info) answer = info end)
    sched:tick()
    assert.is_nil(answer)
    assert.has_error(function() job:status() end, "attempt to use a freed astar.Search")
    sched:tick()
    assert.is_true(near(oracle.cost(world, 1, 1, 1, 20), answer.cost))
  end)

  it("run: any job with step and result; stats", function()
    local sched = astar.scheduler({ budget = 100 })
    local steps = 0
    local job = {
      step = function(_, n) steps = steps + 1; return steps < 3 and "running" or "done", math.min(n, 7) end,
      result = function() return "answer", { status = "done" } end,
    }
    local got
    sched:run(job, function(a, info) got = { a, info.status } end)
    local junk
    sched:run({ step = function() return "running", "lots" end, result = function() end },
      function(a, info) junk = { a, info } end)
    local total = 0
    for _ = 1, 5 do total = total + sched:tick() end
    assert.are.same({ "answer", "done" }, got)
    assert.is_nil(junk[1])
    assert.are.equal("error", junk[2].status)
    assert.matches("a job's step returned running, lots", junk[2].error)
    -- a build runs as sched:build runs it (a build has no result: its answer is itself)
    local built
    local b = astar.grid(12, 12):build_landmarks(2)
    sched:run(b, function(build, info) built = { build, info.status } end)
    for _ = 1, 1000 do
      if built then break end
      total = total + sched:tick()
    end
    assert.are.same({ b, "done" }, built)
    local into = {}
    local s = sched:stats(into)
    assert.are.equal(into, s)
    assert.are.equal(total, s.expansions)
    assert.are.equal(3, s.finished)
    assert.are.equal(0, s.running + s.waiting + s.untold)
    assert.are.equal(100, s.budget)
    assert.is_true(s.us_per_expansion > 0)
  end)

  it("fields and nearest targets as requests (when the grid makes their jobs)", function()
    local world, grid = world_and_grid(5704, 16, 16)
    local sched = astar.scheduler({ budget = 50 })
    if not grid.field_job then
      assert.has_error(function() sched:request_field(grid, { { x = 1, y = 1 } }, nil, function() end) end,
        "bad argument #1 to 'request_field' (this astar.Grid has no field_job)")
    else
      local field
      sched:request_field(grid, { { x = 1, y = 1 } }, nil, function(f) field = f end)
      while sched:pending() > 0 do sched:tick() end
      for y = 1, 16 do
        for x = 1, 16 do -- a field toward its goals: the cost of the way from (x, y) to (1, 1)
          local d, want = field:distance(x, y), oracle.cost(world, x, y, 1, 1)
          if want == nil or want == math.huge then assert.is_nil(d) else assert.is_true(near(want, d)) end
        end
      end
    end
    if not grid.search_nearest then
      assert.has_error(function() sched:request_nearest(grid, 1, 1, { { x = 2, y = 2 } }, nil, function() end) end,
        "bad argument #1 to 'request_nearest' (this astar.Grid has no search_nearest)")
    else
      local info
      local targets = { { x = 16, y = 16 }, { x = 16, y = 1 } }
      sched:request_nearest(grid, 1, 1, targets, nil, function(_, i) info = i end)
      while sched:pending() > 0 do sched:tick() end
      local a, b = oracle.cost(world, 1, 1, 16, 16), oracle.cost(world, 1, 1, 16, 1)
      assert.is_true(near(math.min(a or math.huge, b or math.huge), info.cost))
    end
  end)

  it("errors: retarget, run, stats, request_field and request_nearest name themselves", function()
    local grid = astar.grid(10, 10)
    local sched = astar.scheduler()
    local t = sched:request(grid, 1, 1, 10, 10, nil, function() end)
    assert.has_error(function() sched:retarget(t, "x", 1) end, "bad argument #2 to 'retarget' (number expected, got string)")
    assert.has_error(function() sched:retarget(t, 1, 1, 2) end, "bad argument #5 to 'retarget' (number expected, got nil)")
    assert.matches("bad argument #2 to 'retarget'", select(2, pcall(sched.retarget, sched, t, 11, 1)))
    assert.matches("bad argument #5 to 'retarget'", select(2, pcall(sched.retarget, sched, t, 1, 1, 1, 0)))
    local b = sched:build(grid:build_landmarks(1), function() end)
    assert.has_error(function() sched:retarget(b, 1, 1) end,
      "bad argument #1 to 'retarget' (ticket " .. b .. " is not a request of a path)")
    assert.has_error(function() sched:run({}, function() end) end,
      "bad argument #1 to 'run' (a job with methods step and result expected, got table)")
    assert.has_error(function() sched:run(grid:search(1, 1, 2, 2)) end,
      "bad argument #2 to 'run' (function expected, got nil)")
    assert.has_error(function() sched:run(grid:search(1, 1, 2, 2), function() end, 0 / 0) end,
      "bad argument #3 to 'run' (priority must be a finite number, got nan)")
    assert.has_error(function() sched:stats(5) end, "bad argument #1 to 'stats' (table or nil expected, got number)")
    assert.has_error(function() sched:stats(sched) end,
      "bad argument #1 to 'stats' (a scheduler: its own fields would be overwritten)")
    assert.has_error(function() sched:request_field({}, {}, nil, function() end) end,
      "bad argument #1 to 'request_field' (astar.Grid expected, got table)")
    assert.has_error(function() sched:request_nearest(grid, 1, 1, {}, nil, nil) end)
    -- a clock that answers nonsense: tick raises, the scheduler stays usable
    local bad = astar.scheduler({ budget_us = 100, clock = function() return "soon" end })
    bad:request(grid, 1, 1, 10, 10, nil, function() end)
    assert.has_error(function() bad:tick() end,
      "astar.Scheduler: its clock returned soon (a number of seconds expected)")
    bad.clock = os.clock
    while bad:pending() > 0 do bad:tick() end
    -- the first request and the build, unharmed by the errors above
    while sched:pending() > 0 do sched:tick() end
  end)

  it("keeps time by default with a clock finer than a millisecond, on Windows too", function()
    -- os.clock counts whole milliseconds on Windows: slices of a tick of budget_us = 1500
    -- measured as 0 ms made the rates 0 and the next slices huge (ticks of 4 ms on average,
    -- 11 at worst, under Wine). The default clock is astar.core.clock: os.clock's CPU seconds
    -- where clock() has microseconds, the performance counter on Windows.
    local sched = astar.scheduler({ budget_us = 1500 })
    assert.are.equal(require("astar.core").clock, sched.clock)
    assert.is_number(sched.clock())
    -- Its smallest of five steps (one step may be long: the process was descheduled, or runs
    -- under valgrind): half a millisecond would still tell 1 ms ticks apart.
    local smallest = math.huge
    for _ = 1, 5 do
      local t0 = sched.clock()
      local t1, calls = t0, 0
      while t1 == t0 and calls < 1e7 do t1, calls = sched.clock(), calls + 1 end
      assert.is_true(t1 > t0, "the default clock stood still")
      smallest = math.min(smallest, t1 - t0)
    end
    assert.is_true(smallest < 0.5e-3, ("the default clock ticks by %g s"):format(smallest))
  end)
end)
