-- A scout spotted by two archers runs for cover: grid:flee takes it to the cheapest cell at
-- least 8 from both, never stepping nearer either than it stood (it does not run past one).
-- Then it wanders: a seeded random goal about 10 away, the same for the same seed.
--
--   lua5.4 examples/flee.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local MAP = {
  "##########################",
  "#........................#",
  "#........#######.........#",
  "#..............#.........#",
  "#..............#.........#",
  "#........#######.........#",
  "#........................#",
  "##########################",
}
local W, H = #MAP[1], #MAP
local grid = astar.grid(W, H)
grid:load(MAP)

local SCOUT = { x = 12, y = 4 }
local ARCHERS = { { x = 6, y = 2 }, { x = 7, y = 7 } }
local SAFE = 8

-- How far the nearest archer is from (x, y): what flee measures (a field over the terrain).
local threat = grid:distance_field(ARCHERS)

local function show(path)
  local mark = {}
  for _, p in ipairs(path) do mark[p.y * 1000 + p.x] = "o" end
  for _, a in ipairs(ARCHERS) do mark[a.y * 1000 + a.x] = "A" end
  mark[SCOUT.y * 1000 + SCOUT.x] = "S"
  for y = 1, H do
    local row = {}
    for x = 1, W do row[x] = mark[y * 1000 + x] or MAP[y]:sub(x, x) end
    print(table.concat(row))
  end
end

local path, info = grid:flee(SCOUT.x, SCOUT.y, ARCHERS, { distance = SAFE })
local nearest = math.huge
for _, p in ipairs(path) do nearest = math.min(nearest, threat:distance(p.x, p.y)) end
print(("Scout at (%d,%d), %.2f from the nearest archer, flees to (%d,%d): cost %.2f, %.2f away (%s)")
  :format(SCOUT.x, SCOUT.y, threat:distance(SCOUT.x, SCOUT.y), info.x, info.y, info.cost,
    threat:distance(info.x, info.y), info.safe and "safe" or "not safe"))
print(("Nearest it came to an archer on the way: %.2f"):format(nearest))
show(path)

for seed = 1, 3 do
  local _, w = grid:wander(SCOUT.x, SCOUT.y, 10, { seed = seed })
  local _, again = grid:wander(SCOUT.x, SCOUT.y, 10, { seed = seed })
  print(("Wander seed %d: to (%d,%d), cost %.2f, one of %d cells in the band; again: (%d,%d)")
    :format(seed, w.x, w.y, w.cost, w.candidates, again.x, again.y))
end
