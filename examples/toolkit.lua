-- The game-AI toolkit at a glance: fog of war, string pulling, the nearest of
-- many targets, and a squad spread out by noise.
--
--   lua5.4 examples/toolkit.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local MAP = {
  "..............................",
  "..............................",
  "..........#######.............",
  "................#.............",
  "................#.............",
  "................#.............",
  "..........#######.............",
  "..............................",
  "..............................",
}
local W, H = #MAP[1], #MAP
local grid = astar.grid(W, H)
grid:load(MAP, { ["."] = 1, ["#"] = false })

local function draw(title, marks)
  print(title)
  for y = 1, H do
    local row = {}
    for x = 1, W do row[x] = MAP[y]:sub(x, x) == "#" and "#" or "." end
    for _, m in ipairs(marks) do
      for _, p in ipairs(m.points) do
        if p.y == y then row[p.x] = MAP[y]:sub(p.x, p.x) == "#" and "!" or m.char end
      end
    end
    print("  " .. table.concat(row))
  end
end

-- 1. Fog of war: the scout has seen nothing and walks into the pocket; once it
--    has seen the wall it plans around it.
local seen = astar.mask(W, H)
local blind, binfo = grid:find(3, 5, 28, 5, { known = seen })
for y = 1, H do
  for x = 11, 17 do seen:reveal(x, y) end
end
local aware, ainfo = grid:find(3, 5, 28, 5, { known = seen })
draw(string.format("1. Fog of war: before seeing the pocket (b) the plan runs into its wall (!), cost %.2f;\n" ..
  "   after (a) it goes around, cost %.2f", binfo.cost, ainfo.cost),
  { { char = "a", points = aware }, { char = "b", points = blind } })
local full, finfo = grid:find(3, 5, 28, 5)
print(string.format("   with the true terrain: %d steps, cost %.2f\n", #full - 1, finfo.cost))

-- 2. String pulling: the waypoints a unit needs to walk the same route straight.
local way = astar.smooth(grid, full)
draw(string.format("2. astar.smooth: %d path cells -> %d waypoints (W)", #full, #way),
  { { char = "o", points = full }, { char = "W", points = way } })
print()

-- 3. The nearest of many: which well is cheapest to reach from the camp (C)?
local wells = { { x = 28, y = 1 }, { x = 24, y = 9 }, { x = 13, y = 5 }, { x = 2, y = 9 } }
local to_well, winfo = grid:find_nearest(20, 5, wells)
draw(string.format("3. find_nearest: well %d of %d (X), cost %.2f", winfo.target, #wells, winfo.cost),
  { { char = "w", points = wells }, { char = "o", points = to_well },
    { char = "X", points = { wells[winfo.target] } }, { char = "C", points = { { x = 20, y = 5 } } } })
print()

-- 4. A squad with noise: each unit its own seed, so they do not march single file.
local marks, cells = {}, {}
for i, seed in ipairs({ 11, 22, 33 }) do
  local path = grid:find(1, 9, 30, 1, { noise = 1.5, seed = seed })
  marks[i] = { char = tostring(i), points = path }
  for _, p in ipairs(path) do cells[p.y * 100 + p.x] = (cells[p.y * 100 + p.x] or 0) + 1 end
end
local shared = 0
for _, n in pairs(cells) do if n > 1 then shared = shared + 1 end end
draw(string.format("4. noise = 1.5 with seeds 11, 22, 33: cells shared by two or more units: %d", shared), marks)
