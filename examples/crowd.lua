-- A crowd in a frame budget: 200 units (40 of them hunting 4 monsters) walk a 128x88 town for
-- ten seconds of game time at 60 frames a second, every path through one scheduler whose tick
-- gets 1.5 ms a frame. Doors shut and open under them (their paths are checked with since and
-- planned again), the monsters' danger layer decays and is stamped again every frame (walkers
-- plan around it), and the hunters' goals move (their requests re-aimed). It prints what the
-- crowd did and what the AI's frame cost. The LÖVE demo (examples/love) draws the same world.
--   lua5.4 examples/crowd.lua [frames] [budget]   (after building; see README)
-- budget: "us" (default: 1500 microseconds per tick) or a number of expansions per tick (a run
-- that is the same on every machine, as the tests use).
package.path = "./lua/?.lua;./lua/?/init.lua;./examples/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")
local crowd = require("crowd.world")

local args = arg or {}
local frames = tonumber(args[1]) or 600
local expansions = tonumber(args[2])
local world = crowd.new(astar, {
  map = "examples/crowd/town.map", units = 200, hunters = 40, monsters = 4,
  budget_us = not expansions and 1500 or false, budget = expansions or 20000,
})
print(string.format("Town %dx%d: %d units (%d hunters), %d monsters, %d doors; budget %s per tick",
  world.W, world.H, #world.units, world.hunters, #world.monsters, #world.doors,
  expansions and (expansions .. " expansions") or (world.budget_us .. " us")))

local ai = {}
for f = 1, frames do ai[f] = world:frame(1 / 60) end

local c = world.count
print(string.format("%d frames: %d requests, %d paths delivered (%d found none), %d found broken at delivery",
  frames, c.requests, c.delivered, c.no_path, c.invalid))
print(string.format("%d door toggles, %d paths a door broke planned again, %d hunter goals re-aimed, %d arrivals",
  c.door_toggles, c.door_replans, c.retargets, c.arrivals))
local still = 0
for _, u in ipairs(world.units) do
  if u.moves == 0 then still = still + 1 end
end
print(string.format("Units that never moved: %d of %d", still, #world.units))
local median, p99, max = crowd.summary(ai)
print(string.format("AI ms per frame: median %.2f, p99 %.2f, max %.2f (checks, danger, the tick)", median, p99, max))
local stats = world:sched_stats()
if type(stats) == "table" then -- the scheduler's own figures, where it keeps them
  local keys = {}
  for k, v in pairs(stats) do
    if type(v) == "number" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  for _, k in ipairs(keys) do print(string.format("  sched:stats().%s = %.6g", k, stats[k])) end
end
