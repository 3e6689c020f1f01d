-- Dead ends: rooms with one door, alcoves, corridor ends. The library finds them on the
-- terrain and a search skips every one that holds neither its start nor its goal, with the
-- same cost as a search of everything. This prints the areas, then what a search looked at
-- with and without them.
--
--   lua5.4 examples/dead_ends.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local MAP = {
  "##################################",
  "#.....#.....#......#.....#.......#",
  "#.....#.....#......#.....#.......#",
  "#.....#.....#......#.....###.#####",
  "###.#####.#####.######.#####.....#",
  "#................................#",
  "#................................#",
  "#####.#####.######.######.####.###",
  "#.......#......#.......#.....#...#",
  "#.......#......#.......#.....#...#",
  "#.......#......#.......#.....#...#",
  "##################################",
}
local W, H = #MAP[1], #MAP
local grid = astar.grid(W, H)
grid:load(MAP, { ["."] = 1, ["#"] = false })

-- Each area as a letter (nested ones get their own), gateways as '+', the main part '.'.
local LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
local gateway = {}
for y = 1, H do
  for x = 1, W do
    local area, gx, gy = grid:dead_end(x, y)
    if area then gateway[gy * 1000 + gx] = true end
  end
end
print("Dead ends: a letter per area, '+' a gateway, '.' the main part")
local count = {}
for y = 1, H do
  local row = {}
  for x = 1, W do
    local area = grid:dead_end(x, y)
    if not grid:is_walkable(x, y) then
      row[x] = "#"
    elseif gateway[y * 1000 + x] then
      row[x] = "+"
    elseif area then
      local i = (area - 1) % #LETTERS + 1
      row[x] = LETTERS:sub(i, i)
      count[area] = true
    else
      row[x] = "."
    end
  end
  print("  " .. table.concat(row))
end
local areas = 0
for _ in pairs(count) do areas = areas + 1 end
print(("%d areas"):format(areas))

-- A unit crosses the hall from the west room to the east; the heuristic "zero" (Dijkstra)
-- makes the search look everywhere it may, so the difference shows.
local SX, SY, GX, GY = 3, 10, 33, 9
for _, skip in ipairs({ false, true }) do
  local path, info, looked = astar.debug.explore(grid, SX, SY, GX, GY,
    { dead_ends = skip, heuristic = "zero" })
  local seen = {}
  for _, c in ipairs(looked) do seen[c.y * 1000 + c.x] = true end
  local on = {}
  for _, p in ipairs(path) do on[p.y * 1000 + p.x] = true end
  print(("dead_ends = %s: cost %.2f, %d expansions, %d cells looked at"):format(
    tostring(skip), info.cost, info.expansions, #looked))
  for y = 1, H do
    local row = {}
    for x = 1, W do
      local k = y * 1000 + x
      row[x] = not grid:is_walkable(x, y) and "#" or on[k] and "o" or seen[k] and "x" or " "
    end
    print("  " .. table.concat(row))
  end
end
