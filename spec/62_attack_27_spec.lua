-- Issue 27's merged work attacked as a hostile mod and a demanding game programmer would: each
-- test here failed on the merged code before its fix. Cheap: small grids, no timed assertion
-- (a fake clock stands for time).
local astar = require("astar")

-- A corridor grid and n requests along it, whose callbacks count their calls.
local function corridor_requests(sched, n, length)
  local grid = astar.grid(length, 1)
  local told = {}
  for i = 1, n do
    sched:request(grid, 1, 1, length, 1, nil, function() told[i] = (told[i] or 0) + 1 end)
  end
  return grid, told
end

local function drain(sched, most)
  for _ = 1, most do
    if sched:pending() == 0 then return end
    pcall(sched.tick, sched)
  end
end

describe("the scheduler against a lying clock (issue 27 attack)", function()
  it("refuses a reading whose microseconds are not exact (huge but finite seconds), and its rates stay finite", function()
    -- 1e303 seconds is finite, but 1e303 * 1e6 microseconds is not: the measured rate became
    -- infinite for good (slices of 16 expansions forever after, stats reporting inf and nan).
    -- 2^60 seconds is finite in microseconds too, but no difference of two readings is exact.
    for _, lie in ipairs({ 1e303, 2 ^ 60, -1e303 }) do
      local now, lying = 0, false
      local sched = astar.scheduler({ budget_us = 1000, concurrent = 2, clock = function()
        now = now + 1e-5
        return lying and lie + now or now
      end })
      corridor_requests(sched, 3, 200)
      lying = true
      local ok, err = pcall(sched.tick, sched)
      assert.is_false(ok, tostring(lie))
      assert.matches("its clock returned", tostring(err))
      lying = false
      drain(sched, 1000)
      assert.are.equal(0, sched:pending())
      local s = sched:stats()
      for _, k in ipairs({ "us_per_expansion", "last_tick_us", "most_tick_us" }) do
        assert.is_true(s[k] >= 0 and s[k] < 1e6, k .. " = " .. tostring(s[k]))
      end
    end
  end)

  it("reports no negative tick time when the clock goes backwards", function()
    local now = 100
    local sched = astar.scheduler({ budget_us = 1000, clock = function()
      now = now - 1e-4
      return now
    end })
    corridor_requests(sched, 2, 50)
    drain(sched, 100)
    assert.are.equal(0, sched:pending())
    local s = sched:stats()
    assert.is_true(s.last_tick_us >= 0, tostring(s.last_tick_us))
    assert.is_true(s.most_tick_us >= 0, tostring(s.most_tick_us))
  end)
end)

describe("sched:stats(into) against a hostile into (issue 27 attack)", function()
  it("writes into's own fields: an __newindex cannot send them over the scheduler or raise", function()
    local sched = astar.scheduler({ budget = 100, concurrent = 2 })
    local _, told = corridor_requests(sched, 3, 40)
    -- a proxy of the scheduler: stats(sched) itself is refused, this one wrote running = 0 etc.
    -- into the scheduler, whose next tick then failed
    local proxy = setmetatable({}, { __newindex = sched })
    assert.are.equal(proxy, sched:stats(proxy))
    local raising = setmetatable({}, { __newindex = function() error("no writes here") end })
    sched:stats(raising)
    assert.are.equal(0, rawget(proxy, "ticks"))
    assert.are.equal(3, rawget(raising, "waiting"))
    assert.is_table(sched.running)
    drain(sched, 100)
    assert.are.equal(0, sched:pending())
    for i = 1, 3 do assert.are.equal(1, told[i]) end
    sched:stats(proxy)
    assert.are.equal(3, rawget(proxy, "finished"))
  end)
end)
