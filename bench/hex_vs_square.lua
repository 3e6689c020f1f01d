-- Hex against square grids, same terrain and queries: expansions per second of each.
-- A 256x256 grid with 12,000 random blocked cells (about 17 %), 300 random queries.
--   lua5.4 bench/hex_vs_square.lua        (after building; see README)
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local function run(topology)
  local grid = astar.grid(256, 256, { topology = topology })
  local seed = 5
  local function rand(n)
    seed = (seed * 48271) % 2147483647
    return 1 + seed % n
  end
  for _ = 1, 12000 do grid:set_cost(rand(256), rand(256), false) end
  seed = 99
  local expansions, t0 = 0, os.clock()
  for _ = 1, 300 do
    local _, info = grid:find(rand(256), rand(256), rand(256), rand(256))
    expansions = expansions + info.expansions
  end
  return expansions / (os.clock() - t0) / 1e6
end

local square, hex = run("square"), run("hex")
print(string.format("square %.2f M expansions/s, hex %.2f M expansions/s, hex/square %.2f", square, hex, hex / square))
