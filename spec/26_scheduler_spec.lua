-- astar.scheduler: a frame budget shared by many requests.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer units under valgrind

-- A 512x512 map of rooms and rubble, the same on every run.
local function big_map()
  local grid = astar.grid(512, 512)
  local rng = oracle.rng(512)
  for _ = 1, 30000 do grid:set_cost(rng.int(1, 512), rng.int(1, 512), false) end
  for wall = 1, 40 do -- long walls with gaps
    local x, y = rng.int(1, 480), rng.int(1, 480)
    for i = 0, 30 do
      if i % 11 ~= 5 then
        if wall % 2 == 0 then grid:set_cost(x + i, y, false) else grid:set_cost(x, y + i, false) end
      end
    end
  end
  for _ = 1, 2000 do grid:set_cost(rng.int(1, 512), rng.int(1, 512), 2 + rng.int(0, 3)) end
  return grid, rng
end

describe("astar.scheduler", function()
  it("serves 500 units over frames: right costs, no tick over its budget", function()
    local grid, rng = big_map()
    local danger = astar.influence(512, 512)
    for _ = 1, 50 do danger:stamp(rng.int(1, 512), rng.int(1, 512), 8, 3) end
    local sched = astar.scheduler({ budget = 1000, concurrent = 16 })
    local want, got, asked = {}, {}, 0
    for unit = 1, scale(500) do
      local sx, sy = rng.int(1, 512), rng.int(1, 512)
      local gx = math.max(1, math.min(512, sx + rng.int(-40, 40)))
      local gy = math.max(1, math.min(512, sy + rng.int(-40, 40)))
      local opts = unit % 3 == 0 and { influence = danger } or nil
      local _, info = grid:find(sx, sy, gx, gy, opts)
      want[unit] = info
      sched:request(grid, sx, sy, gx, gy, opts, function(path, i)
        assert.is_nil(got[unit])
        got[unit] = { path = path, info = i }
      end, 0)
      asked = asked + 1
    end
    assert.are.equal(scale(500), sched:pending())
    local ticks, total, over = 0, 0, 0
    while sched:pending() > 0 do
      local spent = sched:tick()
      ticks = ticks + 1
      total = total + spent
      if spent > 1000 then over = over + 1 end
      assert(ticks < 100000, "the scheduler does not finish")
    end
    assert.are.equal(0, over)
    local expanded = 0
    for unit = 1, asked do
      local g, w = got[unit], want[unit]
      assert(g, "unit " .. unit .. " never answered")
      assert.are.equal(w.status, g.info.status, "unit " .. unit)
      if w.status == "found" then assert.are.equal(w.cost, g.info.cost, "unit " .. unit) end
      expanded = expanded + g.info.expansions
    end
    assert.are.equal(expanded, total) -- every expansion was paid for by some tick
    assert.is_true(ticks > scale(20), ticks .. " ticks") -- the work really was spread
  end)

  it("gives the longest-running search half of each tick: it finishes however many run", function()
    -- Four long searches of the same work W at once. With equal slices the first would need
    -- 4 W / budget ticks; at half the budget it needs at most 2 W / budget (issue 26: a search
    -- that toggling doors keep repairing must still finish).
    local grid = astar.grid(200, 200)
    local _, alone = grid:find(1, 1, 200, 200, { jump = false })
    local budget = 400
    local sched = astar.scheduler({ budget = budget, concurrent = 4 })
    local done = {}
    for unit = 1, 4 do
      sched:request(grid, 1, unit, 200, 200, { jump = false }, function(path) done[unit] = path ~= nil end)
    end
    local ticks = 0
    while not done[1] do
      sched:tick()
      ticks = ticks + 1
      assert(ticks < 100000)
    end
    assert.is_true(ticks <= math.ceil(2 * alone.expansions / budget) + 1,
      ("the first took %d ticks, W = %d expansions"):format(ticks, alone.expansions))
    assert.is_nil(done[4]) -- the others go on at their share
    while sched:pending() > 0 do sched:tick() end
    for unit = 1, 4 do assert.is_true(done[unit]) end
  end)

  it("ranks by priority, ages the waiting, and cancels", function()
    local g = astar.grid(60, 60)
    local sched = astar.scheduler({ budget = 50, concurrent = 1, aging = 1 })
    local order = {}
    local function note(name) return function() order[#order + 1] = name end end
    sched:request(g, 1, 1, 60, 60, nil, note("first"), 0)
    sched:tick() -- first runs; the others come while it does
    local low = sched:request(g, 1, 1, 60, 60, nil, note("low"), 0)
    sched:request(g, 1, 1, 60, 60, nil, note("high"), 5)
    local dropped = sched:request(g, 1, 1, 60, 60, nil, note("dropped"), 9)
    assert.is_true(sched:cancel(dropped))
    assert.is_false(sched:cancel(dropped))
    while sched:pending() > 0 do sched:tick() end
    assert.are.same({ "first", "high", "low" }, order)
    assert.is_false(sched:cancel(low))
    -- aging: a priority-0 request waiting long enough overtakes a fresh priority-3 one
    order = {}
    sched:request(g, 1, 1, 60, 60, nil, note("busy"), 0)
    sched:request(g, 1, 1, 60, 60, nil, note("patient"), 0)
    sched:tick() -- busy runs, patient waits
    sched:tick()
    sched:tick()
    sched:tick()
    sched:request(g, 1, 1, 60, 60, nil, note("late"), 3)
    while sched:pending() > 0 do sched:tick() end
    assert.are.same({ "busy", "patient", "late" }, order)
  end)

  it("stops starting slices once budget_us is spent (a fake clock)", function()
    local now = 0
    local sched = astar.scheduler({ budget = 1000000, budget_us = 2, concurrent = 4,
                                    clock = function() now = now + 1e-6; return now end })
    local g = astar.grid(200, 200)
    for _ = 1, 4 do sched:request(g, 1, 1, 200, 200, nil, function() end) end
    local spent = sched:tick()
    assert.is_true(spent > 0 and sched:pending() > 0)
  end)

  it("stays usable when a callback fails", function()
    local g = astar.grid(20, 20)
    local sched = astar.scheduler({ budget = 1000 })
    sched:request(g, 1, 1, 20, 20, nil, function() error("callback boom", 0) end)
    local ok_called = false
    sched:request(g, 1, 1, 20, 20, nil, function() ok_called = true end)
    local ok, err = pcall(sched.tick, sched)
    assert.is_false(ok)
    assert.are.equal("callback boom", err)
    while sched:pending() > 0 do sched:tick() end
    assert.is_true(ok_called)
    -- a cost callback failing ends that request (spec/31_front_safety_spec.lua has more)
    local answered
    sched:request(g, 1, 1, 20, 20, { node_cost = function() error("cost boom", 0) end },
      function(path, info) answered = { path = path, info = info } end)
    sched:tick()
    assert.are.same({ info = { status = "error", error = "cost boom" } }, answered)
    assert.are.equal(0, sched:pending())
  end)

  it("checks its arguments", function()
    assert.has_error(function() astar.scheduler({ budget = 0 }) end,
      "bad argument #1 to 'scheduler' (option 'budget' must be a positive integer, got 0)")
    assert.has_error(function() astar.scheduler({ budgte = 5 }) end,
      "bad argument #1 to 'scheduler' (unknown option 'budgte')")
    assert.has_error(function() astar.scheduler({ concurrent = 1.5 }) end)
    assert.has_error(function() astar.scheduler({ budget_us = -1 }) end)
    assert.has_error(function() astar.scheduler("x") end)
    local sched = astar.scheduler()
    local g = astar.grid(5, 5)
    assert.has_error(function() sched:request(g, 1, 1, 5, 5, nil, "no") end,
      "bad argument #7 to 'request' (function expected, got string)")
    assert.has_error(function() sched:request(g, 0, 1, 5, 5, nil, print) end)
    assert.has_error(function() sched:request(g, 1, 1, 5, 5, nil, print, 0 / 0) end)
    assert.has_error(function() sched:request({}, 1, 1, 5, 5, nil, print) end)
    assert.has_error(function() sched:tick(-1) end)
    assert.are.equal(0, sched:pending())
  end)
end)
