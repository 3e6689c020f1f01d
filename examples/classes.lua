-- One map, three kinds of unit, each seeing it differently through terrain classes: a boat that
-- only sails the river, cavalry fast on the road and slow in the forest, infantry that walks
-- straight through the forest. The classes come from the map's legend by name; each unit is a
-- `classes` table of its own, all in C (no callback per node).
--
--   lua5.4 examples/classes.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local T = astar.class_names({ water = 1, forest = 2, road = 3 }) -- class 0: open ground

local MAP = {
  "################################",
  "#~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~#",
  "#~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~#",
  "#..==========================..#",
  "#..=FFFFFFFFFFFFFFFFFFFFFFFF=..#",
  "#..=FFFFFFFFFFFFFFFFFFFFFFFF=..#",
  "#...FFFFFFFFFFFFFFFFFFFFFFFF...#",
  "#..=FFFFFFFFFFFFFFFFFFFFFFFF=..#",
  "#..=FFFFFFFFFFFFFFFFFFFFFFFF=..#",
  "#..==========================..#",
  "#..............................#",
  "################################",
}
local LEGEND = {
  ["#"] = false, ["."] = 1,
  ["~"] = { cost = 1, class = T.water },
  F = { cost = 1, class = T.forest },
  ["="] = { cost = 1, class = T.road },
}
local W, H = #MAP[1], #MAP
local grid = astar.grid(W, H)
grid:load(MAP, LEGEND)

local UNITS = {
  { name = "boat", from = { x = 2, y = 2 }, to = { x = 31, y = 3 },
    classes = T({ [0] = false, water = 1, forest = false, road = false }) },
  { name = "cavalry", from = { x = 2, y = 7 }, to = { x = 31, y = 7 },
    classes = T({ water = false, forest = 4, road = 0.5 }) },
  { name = "infantry", from = { x = 2, y = 7 }, to = { x = 31, y = 7 },
    classes = T({ water = false, forest = 1, road = 1 }) },
}

local NAMES = { [0] = "ground", [T.water] = "water", [T.forest] = "forest", [T.road] = "road" }

for _, u in ipairs(UNITS) do
  local path, info = grid:find(u.from.x, u.from.y, u.to.x, u.to.y, { classes = u.classes })
  local cells, mark = {}, {}
  for _, p in ipairs(path) do
    local c = NAMES[grid:get_class(p.x, p.y)]
    cells[c] = (cells[c] or 0) + 1
    mark[p.y * 1000 + p.x] = true
  end
  print(("%s: %d steps, cost %.2f; cells: water %d, ground %d, road %d, forest %d"):format(u.name, #path - 1,
    info.cost, cells.water or 0, cells.ground or 0, cells.road or 0, cells.forest or 0))
  for y = 1, H do
    local row = {}
    for x = 1, W do row[x] = mark[y * 1000 + x] and "o" or MAP[y]:sub(x, x) end
    print("  " .. table.concat(row))
  end
end

-- How far each land unit gets in 12 (a range under its own classes): cavalry farther on the road.
for _, u in ipairs({ UNITS[2], UNITS[3] }) do
  local cells = grid:range(u.from.x, u.from.y, 12, { classes = u.classes })
  local east = 0
  for _, c in ipairs(cells) do east = math.max(east, c.x) end
  print(("%s reaches %d cells within 12, as far east as x = %d"):format(u.name, #cells, east))
end
