-- A mountain range with three passes, three units marching to one target.
-- Shown three ways: plain terrain, with a "carnage" danger map, with claims.
--
--   lua5.4 examples/demo.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local MAP = {
  "..............................................",
  "................^^^^^^^^^^^^..................",
  "................^^^^^^^^^^^^..................",
  "..............................................", -- north pass
  "................^^^^^^^^^^^^..................",
  "................^^^^^^^^^^^^..................",
  "................^^^^^^^^^^^^..................",
  "................^^^^^^^^^^^^..................",
  "..............................................", -- the main pass
  "................^^^^^^^^^^^^..................",
  "................^^^^^^^^^^^^..................",
  "................^^^^^^^^^^^^..................",
  "................^^^^^^^^^^^^..................",
  "..............................................", -- south pass
  "................^^^^^^^^^^^^..................",
  "................^^^^^^^^^^^^..................",
  "..............................................",
}
local W, H = #MAP[1], #MAP
local UNITS = {
  { name = "A", x = 3, y = 7 },
  { name = "B", x = 3, y = 9 },
  { name = "C", x = 5, y = 11 },
}
local TARGET = { x = 43, y = 9 }

local grid = astar.grid(W, H)
grid:load(MAP, { ["."] = 1, ["^"] = false })

-- Draws the paths: a unit's letter in lower case on its route, '*' where two
-- or more units would walk the same cell, '!' on dangerous ground.
local function draw(title, paths, danger)
  local canvas, used = {}, {}
  for y = 1, H do
    canvas[y] = {}
    for x = 1, W do
      local ch = MAP[y]:sub(x, x)
      if danger and danger:get(x, y) > 0 and ch == "." then ch = "!" end
      canvas[y][x] = ch
    end
  end
  local shared = 0
  for i, path in ipairs(paths) do
    for _, p in ipairs(path) do
      local key = p.y * W + p.x
      if used[key] and used[key] ~= i then
        if canvas[p.y][p.x] ~= "*" then shared = shared + 1 end
        canvas[p.y][p.x] = "*"
      else
        used[key] = i
        canvas[p.y][p.x] = UNITS[i].name:lower()
      end
    end
  end
  for _, u in ipairs(UNITS) do canvas[u.y][u.x] = u.name end
  canvas[TARGET.y][TARGET.x] = "X"
  print(title)
  for y = 1, H do print("  " .. table.concat(canvas[y])) end
  return shared
end

local function march(opts_for)
  local paths, costs = {}, {}
  for i, u in ipairs(UNITS) do
    local path, info = grid:find(u.x, u.y, TARGET.x, TARGET.y, opts_for(u))
    assert(path, "no path for unit " .. u.name .. ": " .. info.status)
    paths[i], costs[i] = path, info.cost
  end
  return paths, costs
end

local function report(shared, paths, costs)
  local parts = {}
  for i, u in ipairs(UNITS) do
    parts[#parts + 1] = string.format("%s: %d steps, cost %.1f", u.name, #paths[i] - 1, costs[i])
  end
  print("  " .. table.concat(parts, "   "))
  print(string.format("  cells shared by two or more units: %d\n", shared))
end

-- 1. Plain terrain: everyone takes the main pass, single file.
local paths, costs = march(function() return nil end)
report(draw("1. Plain terrain: all three squeeze through the main pass", paths), paths, costs)

-- 2. Carnage in the main pass: a danger map makes the units go around.
local danger = astar.influence(W, H)
for y = 7, 11 do
  for x = 18, 26 do danger:set(x, y, 20) end
end
paths, costs = march(function() return { influence = danger } end)
report(draw("2. Carnage in the main pass (danger map '!'): the units take the side passes",
  paths, danger), paths, costs)

-- 3. Claims: each unit claims its route; the next one pays 5 per claimed cell.
local claims = astar.claims(grid)
paths, costs = {}, {}
for i, u in ipairs(UNITS) do
  local path, info = grid:find(u.x, u.y, TARGET.x, TARGET.y,
    { claims = claims, unit = u.name, claim_penalty = 5 })
  assert(path, info.status)
  claims:claim(u.name, path)
  paths[i], costs[i] = path, info.cost
end
report(draw("3. Claims: each unit avoids the routes the others claimed, so they spread out",
  paths), paths, costs)
