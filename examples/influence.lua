-- Influence maps that live: two squads stamp their presence every frame, the
-- influence spreads along open ground (not through the walls) and decays, and a
-- scout crossing the field avoids the enemy's side of the map.
--
--   lua5.4 examples/influence.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local MAP = {
  "........................................",
  "........................................",
  "..........#########.....................",
  "..................#.....................",
  "..................#.........#########...",
  "..................#.....................",
  "........................................",
  "........................................",
  "...........#############................",
  "........................................",
  "........................................",
  "........................................",
}
local W, H = #MAP[1], #MAP
local grid = astar.grid(W, H)
grid:load(MAP, { ["."] = 1, ["#"] = false })

local threat = astar.influence(W, H)
local friends = { { 5, 2 }, { 6, 3 }, { 4, 4 } }
local enemies = { { 30, 7 }, { 32, 8 }, { 31, 10 }, { 34, 9 } }
for _ = 1, 12 do -- twelve frames of a game's update
  for _, u in ipairs(friends) do threat:stamp(u[1], u[2], 3, -2) end -- friendly ground is cheap
  for _, u in ipairs(enemies) do threat:stamp(u[1], u[2], 4, 3, "quadratic") end
  threat:spread(0.25, 0.6, grid)
  threat:decay(0.95)
end

-- jump = false: plain A*, as the threat-aware query runs, so the two paths differ by the
-- threat alone and not by which of many equally short ways jump point search takes.
local plain = grid:find(1, 12, 40, 1, { jump = false })
local wary, info = grid:find(1, 12, 40, 1, { influence = threat, influence_weight = 2 })

-- The threat a path walks through: what the wary query weighs and the plain one ignores.
local function threat_met(path)
  local sum = 0
  for _, p in ipairs(path) do sum = sum + math.max(0, threat:get(p.x, p.y)) end
  return sum
end

local function draw(path, title)
  local on = {}
  for _, p in ipairs(path) do on[p.y * 1000 + p.x] = true end
  print(title)
  local shades = " .:-=+*%&@"
  local peak = threat:max_abs()
  for y = 1, H do
    local row = {}
    for x = 1, W do
      local v = threat:get(x, y)
      local c
      if not grid:is_walkable(x, y) then c = "#"
      elseif on[y * 1000 + x] then c = "o"
      elseif v > 0 then c = shades:sub(1 + math.floor(v / peak * 9 + 0.5), 1 + math.floor(v / peak * 9 + 0.5))
      else c = v < -0.05 and "~" or " " end
      row[#row + 1] = c
    end
    print("  |" .. table.concat(row) .. "|")
  end
end

draw(plain, string.format("Plain terrain: one of the shortest ways, blind to the enemy: threat met %.2f" ..
  " (o path, # wall, .:-=+*%%&@ threat, ~ friendly)", threat_met(plain)))
draw(wary, string.format("With the threat map (weight 2): threat met %.2f, cost %.1f, %d expansions",
  threat_met(wary), info.cost, info.expansions))
print(string.format("threat peak %.2f after 12 frames of stamp + spread + decay", threat:max_abs()))
