-- grid:flee with the threats as an influence layer on an open 1024x1024 grid: the mean time per
-- call when the layer holds 0.5 everywhere and one threat cell of 5 (threshold 1), against the
-- same single threat given as a point. The layer's per-tile bounds let the scan of the cells
-- above threshold skip every tile at or below it: work grows with the threats, not the map.
--   lua5.4 bench/flee_layer.lua            (ASTAR_BUILD=dir: the build holding astar/core.so)
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local N, CALLS = 1024, 200
local grid = astar.grid(N, N)
local low = astar.influence(N, N)
low:fill(0.5)
low:set(500, 500, 5)
local alone = astar.influence(N, N)
alone:set(500, 500, 5)
local opts = { distance = 10, threshold = 1 }

local function per_call(threats, o)
  grid:flee(505, 505, threats, o or opts) -- the first call sizes the workspace
  local t0 = os.clock()
  for _ = 1, CALLS do grid:flee(505, 505, threats, o or opts) end
  return (os.clock() - t0) / CALLS * 1e3
end

print(("flee, 1024x1024, distance 10, one threat (ms a call, mean of %d):"):format(CALLS))
print(("  layer 0.5 everywhere + one cell 5, threshold 1: %.4f"):format(per_call(low)))
print(("  layer +0 everywhere + one cell 5, threshold 1:  %.4f"):format(per_call(alone)))
print(("  the point alone:                               %.4f"):format(per_call({ { 500, 500 } }, { distance = 10 })))
