-- Two-tier search on a big map: a city of blocks and streets, crossed corner to corner.
-- grid:hierarchy(12) cuts it into 12x12 clusters once; then find's hierarchical = true plans
-- on the clusters' entrances first and refines inside the corridor it chose, for far fewer
-- expansions than A* over the whole map, at a cost a little above the best. Danger (an
-- influence layer) is honoured while refining; a street closed later only rebuilds the
-- clusters it touches.
--
--   lua5.4 examples/hierarchy.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local SIZE = 512
local grid = astar.grid(SIZE, SIZE, { diagonal = "no_corner_cut" })
-- Blocks of buildings 9..14 cells wide, streets 2..3 wide, some blocks knocked into plazas.
local seed = 7
local function rand(n) -- a small LCG: the same city on every Lua
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end
local y = 1
while y <= SIZE do
  local bh, street_y = 9 + rand(6), 2 + rand(2)
  local x = 1
  while x <= SIZE do
    local bw, street_x = 9 + rand(6), 2 + rand(2)
    if rand(5) > 0 then -- a building; else a plaza
      for by = y, math.min(SIZE, y + bh - 1) do
        for bx = x, math.min(SIZE, x + bw - 1) do grid:set_blocked(bx, by, true) end
      end
    end
    x = x + bw + street_x
  end
  y = y + bh + street_y
end
-- the corners are open ground
for i = 1, 4 do
  for j = 1, 4 do
    grid:set_cost(i, j, 1)
    grid:set_cost(SIZE + 1 - i, SIZE + 1 - j, 1)
  end
end

local t0 = os.clock()
local h = grid:hierarchy(12)
print(string.format("hierarchy: %d clusters of 12x12, %d entrances, %d arcs, %.1f KiB, built in %.0f ms",
  h.clusters, h.entrances, h.edges, h.bytes / 1024, (os.clock() - t0) * 1000))

local function cross(opts)
  opts = opts or {}
  local flat_opts = { jump = false }
  for k, v in pairs(opts) do flat_opts[k] = v end
  local _, exact = grid:find(1, 1, SIZE, SIZE, flat_opts)
  opts.hierarchical = true
  local path, tiered = grid:find(1, 1, SIZE, SIZE, opts)
  return exact, tiered, path
end

local exact, tiered = cross()
print(string.format("A*:         cost %.1f, %d expansions", exact.cost, exact.expansions))
print(string.format("two-tier:   cost %.1f (%.3fx), %d expansions (%d abstract): %.1fx fewer",
  tiered.cost, tiered.cost / exact.cost, tiered.expansions, tiered.abstract_expansions,
  exact.expansions / tiered.expansions))

-- A danger zone in the middle of the city: the refinement pays for it, the abstract tier
-- (terrain only) does not see it, so the answer may cost more than A*'s exact one.
local danger = astar.influence(SIZE, SIZE)
danger:stamp(math.floor(SIZE / 2), math.floor(SIZE / 2), 40, 3)
exact, tiered = cross({ influence = danger })
print(string.format("with danger: A* cost %.1f; two-tier cost %.1f (%.3fx), %d expansions, fallback %s",
  exact.cost, tiered.cost, tiered.cost / exact.cost, tiered.expansions, tostring(tiered.fallback)))

-- A street closes: only the clusters around it go dirty, and the next query rebuilds them.
for i = 150, 170 do grid:set_blocked(i, 100, true) end
print(string.format("after closing a street: %d clusters dirty", grid:hierarchy().dirty))
local path
exact, tiered, path = cross()
print(string.format("replanned: cost %.1f (%.3fx), %d cells, %d clusters dirty now",
  tiered.cost, tiered.cost / exact.cost, #path, grid:hierarchy().dirty))
