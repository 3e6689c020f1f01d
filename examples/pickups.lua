-- Is the health pack worth the detour? A scout crosses a room; a pack lies off its way. The
-- scout's query offers the pack as an interest worth `value`: the path takes the detour only
-- when it costs less than the pack is worth (info.score = cost - value collected).
--
--   lua5.4 examples/pickups.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

local MAP = {
  "##############################",
  "#............................#",
  "#............................#",
  "#.........########...........#",
  "#............................#",
  "#............................#",
  "#............................#",
  "##############################",
}
local W, H = #MAP[1], #MAP
local grid = astar.grid(W, H)
grid:load(MAP)

local START, GOAL = { x = 2, y = 6 }, { x = 29, y = 6 }

local function show(path, pack)
  local on = {}
  for _, p in ipairs(path or {}) do on[p.y * 1000 + p.x] = true end
  for y = 1, H do
    local row = {}
    for x = 1, W do
      local c = MAP[y]:sub(x, x)
      if pack and x == pack.x and y == pack.y then c = "+"
      elseif on[y * 1000 + x] then c = "*" end
      row[x] = c
    end
    print("  " .. table.concat(row))
  end
end

local plain_path, plain = grid:find(START.x, START.y, GOAL.x, GOAL.y)
print(string.format("No pack offered: cost %.2f", plain.cost))

-- Near the way (one row up) and far from it (behind the wall): the same values offered.
for _, pack in ipairs({ { x = 15, y = 5, name = "near" }, { x = 14, y = 2, name = "far" } }) do
  for _, value in ipairs({ 0.5, 3, 8 }) do
    local path, info = grid:find(START.x, START.y, GOAL.x, GOAL.y, {
      interests = { { x = pack.x, y = pack.y, value = value } },
    })
    print(string.format("Pack %s, worth %.1f: %s, cost %.2f, score %.2f (detour %.2f)", pack.name, value,
      info.interest and "grabbed" or "left", info.cost, info.score, info.cost - plain.cost))
    if value == 8 then show(path, pack) end
  end
end

-- Several pick-ups: at most one is collected, the one that pays best.
local _, info = grid:find(START.x, START.y, GOAL.x, GOAL.y, {
  interests = { { x = 15, y = 5, value = 1 }, { x = 14, y = 2, value = 9 }, { x = 20, y = 7, value = 2 } },
})
print(string.format("Three packs: grabs pack %d, cost %.2f, score %.2f", info.interest, info.cost, info.score))
assert(plain_path)
