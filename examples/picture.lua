-- A picture of a search for the README: a Moving AI map, a danger stamp, another unit's
-- claimed path, the cells the search looked at and the path it found, as a PNG.
--   lua5.4 examples/picture.lua [MAP [OUT.png [SCALE]]]   (default: spec/maps/forest32x32.map)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local map, out = arg and arg[1] or "spec/maps/forest32x32.map", arg and arg[2] or "picture.png"
local scale = arg and tonumber(arg[3])
local grid = astar.load_movingai(map)
local w, h = grid:size()

-- The first walkable cell in reading order, and the last one reachable from it.
local function first(x0, y0, dx, dy, ok)
  local x, y = x0, y0
  while not ok(x, y) do
    x = x + dx
    if x < 1 or x > w then x, y = x0, y + dy end
  end
  return x, y
end
local sx, sy = first(1, 1, 1, 1, function(x, y) return grid:is_walkable(x, y) end)
local gx, gy = first(w, h, -1, -1, function(x, y) return grid:reachable(sx, sy, x, y) end)

-- Danger in the middle of the map, and a unit already walking the plain route.
local danger = astar.influence(w, h)
danger:stamp(math.floor(w / 2), math.floor(h / 2), math.max(3, math.floor(w / 6)), 30, "quadratic")
local claims = astar.claims(grid)
claims:claim("scout", (grid:find(sx, sy, gx, gy)))

local path, info, looked = astar.debug.explore(grid, sx, sy, gx, gy, {
  influence = danger, claims = claims, unit = "me", jump = false,
})
local n = astar.debug.png(grid, { path = path, influence = danger, claims = claims, explored = looked,
  scale = scale }, out)
print(string.format("%s: %dx%d, path of %d cells (cost %.1f) around the danger and the scout's claim, "
  .. "%d cells looked at; %s (%d bytes)", map, w, h, #path, info.cost, #looked, out, n))
