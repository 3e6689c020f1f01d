-- A 2x2 tank and a soldier on one map: the soldier slips through a 1-cell gap in the wall,
-- the tank (query option size = 2) cannot and drives round by the 2-cell gate; then the gate
-- is shut and the tank finds no way, while the soldier still walks through.
-- A path is a list of anchors: the tank's top-left cell (draw it at anchor + half its size).
--
--   lua5.4 examples/tank_and_infantry.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local MAP = {
  "####################",
  "#.........#........#",
  "#.........#........#",
  "#..................#", -- the gap: one cell at (11, 4)
  "#.........#........#",
  "#.........#........#",
  "#.........#........#",
  "#.........#........#",
  "#..................#", -- the gate: two cells at (11, 9) and (11, 10)
  "#..................#",
  "#.........#........#",
  "####################",
}
local W, H = #MAP[1], #MAP
local grid = astar.grid(W, H)
grid:load(MAP)

local FROM, TO = { x = 3, y = 3 }, { x = 17, y = 3 }

-- The map with the cells a unit's footprint covers along the path marked.
local function draw(path, size, mark)
  local rows = {}
  for y = 1, H do rows[y] = { MAP[y]:byte(1, -1) } end
  for _, p in ipairs(path or {}) do
    for dy = 0, size - 1 do
      for dx = 0, size - 1 do rows[p.y + dy][p.x + dx] = mark:byte() end
    end
  end
  for y = 1, H do print("  " .. string.char((table.unpack or unpack)(rows[y]))) end
end

-- Whether the path passes column 11 (the wall) at row y: through the gap or the gate.
local function crosses(path, y)
  for _, p in ipairs(path) do
    if p.x == 11 and p.y == y then return true end
  end
  return false
end

local soldier, sinfo = grid:find(FROM.x, FROM.y, TO.x, TO.y)
local tank, tinfo = grid:find(FROM.x, FROM.y, TO.x, TO.y, { size = 2 })
print(string.format("Soldier: %d steps, cost %.2f, through the gap: %s", #soldier - 1, sinfo.cost,
  tostring(crosses(soldier, 4))))
print(string.format("Tank (2x2): %d steps, cost %.2f, through the gap: %s, through the gate: %s", #tank - 1,
  tinfo.cost, tostring(crosses(tank, 4)), tostring(crosses(tank, 9))))
draw(tank, 2, "T")

-- Every other query takes size too: how far the tank gets on 12 of fuel.
local reach = grid:range(FROM.x, FROM.y, 12, { size = 2 })
print(string.format("The tank reaches %d anchors for 12; the soldier %d cells", #reach, #grid:range(FROM.x, FROM.y, 12)))

-- The gate shut: the tank has no way; the soldier still squeezes through the gap.
grid:set_cost(11, 9, false)
local shut, shut_info = grid:find(FROM.x, FROM.y, TO.x, TO.y, { size = 2 })
local still = grid:find(FROM.x, FROM.y, TO.x, TO.y)
print(string.format("Gate half shut: tank %s, soldier %s", shut and "drives" or shut_info.status,
  still and ("walks " .. (#still - 1) .. " steps") or "stuck"))
