-- Tactics at a glance: a hex board with a unit's movement range, a flow field
-- that walks a crowd home from one search, two units sharing a corridor by
-- timing (claim windows), and fewer turns (turn_penalty).
--
--   lua5.4 examples/tactics.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

-- 1. Hexes and a movement budget (turn-based): forest costs 2, water blocks.
local BOARD = {
  "..........",
  "...FF.....",
  "..FFF~~...",
  "....~~~...",
  "......F...",
  "..........",
}
local board = astar.grid(#BOARD[1], #BOARD, { topology = "hex" })
board:load(BOARD, { ["."] = 1, F = 2, ["~"] = false })
local cells = board:range(3, 4, 3)
local cost_at = {}
for _, c in ipairs(cells) do cost_at[c.y * 100 + c.x] = c.cost end
print(string.format("1. Hex board (rows 2, 4, 6 sit half a hex right), unit U at (3,4) with 3 movement points:\n" ..
  "   %d hexes in reach, digits = points spent, F forest (2), ~ water", #cells))
for y = 1, #BOARD do
  local row = {}
  for x = 1, #BOARD[1] do
    local c = cost_at[y * 100 + x]
    local ch = BOARD[y]:sub(x, x)
    if x == 3 and y == 4 then ch = "U" elseif c then ch = tostring(math.floor(c)) end
    row[x] = ch
  end
  print((y % 2 == 0 and "    " or "   ") .. table.concat(row, " "))
end
local path, info = board:find(3, 4, 9, 4)
print(string.format("   hex path to (9,4): %d hexes, cost %g", #path, info.cost))

-- 2. A flow field: one search, and every unit of a crowd knows its next step.
local MAP = {
  "....................",
  "..######............",
  ".......#.....####...",
  ".......#........#...",
  "..####.#........#...",
  ".......#..###...#...",
  "....................",
}
local W, H = #MAP[1], #MAP
local grid = astar.grid(W, H)
grid:load(MAP)
local field, finfo = grid:distance_field({ { x = 20, y = 4 } })
local ARROW = { ["0,-1"] = "^", ["1,0"] = ">", ["0,1"] = "v", ["-1,0"] = "<",
                ["1,-1"] = "/", ["1,1"] = "\\", ["-1,1"] = "/", ["-1,-1"] = "\\" }
print(string.format("\n2. Flow field to G: one search (%d expansions) gives every cell its next step", finfo.expansions))
for y = 1, H do
  local row = {}
  for x = 1, W do
    local nx, ny = field:next(x, y)
    row[x] = MAP[y]:sub(x, x) == "#" and "#" or (x == 20 and y == 4) and "G" or
      (nx and ARROW[(nx - x) .. "," .. (ny - y)] or "?")
  end
  print("   " .. table.concat(row))
end
local arrived, steps = 0, 0
for i = 1, 40 do
  local x, y = 1 + (i * 7) % 7, 1 + (i * 3) % H
  if grid:is_walkable(x, y) then
    while true do
      local nx, ny = field:next(x, y)
      if not nx then break end
      x, y, steps = nx, ny, steps + 1
    end
    if x == 20 and y == 4 then arrived = arrived + 1 end
  end
end
print(string.format("   a crowd of %d units followed the arrows home in %d steps, no search of their own", arrived, steps))

-- 3. Claims over time: A walks east through a corridor (row 4) that has a
--    longer bypass over the top; B comes west through it, starting far away or
--    near.
local hall_rows = {}
for y = 1, 6 do
  local row = {}
  for x = 1, 70 do
    local open
    if y == 1 then open = x <= 30
    elseif y <= 3 then open = x == 1 or x == 30
    elseif y == 4 then open = true
    else open = x >= 31 end
    row[x] = open and "." or "#"
  end
  hall_rows[y] = table.concat(row)
end
local hall = astar.grid(70, 6)
hall:load(hall_rows)
local claims = astar.claims(hall)
claims:claim("A", hall:find(1, 4, 31, 6))
local function route(p)
  for _, q in ipairs(p) do
    if q.y == 1 then return "bypass" end
  end
  return "corridor"
end
print("\n3. Claims over time: A walks east through a corridor; B comes west.")
for _, case in ipairs({ { 70, "far away: A has left when B gets there" }, { 40, "near: they would meet inside" } }) do
  local stiff_path, stiff = hall:find(case[1], 4, 1, 4, { claims = claims, unit = "B" })
  local timed_path, timed = hall:find(case[1], 4, 1, 4, { claims = claims, unit = "B", claim_window = 2 })
  print(string.format("   B starts %s\n     every claim counted: %s, cost %.1f; claim_window = 2: %s, cost %.1f",
    case[2], route(stiff_path), stiff.cost, route(timed_path), timed.cost))
end

-- 4. turn_penalty: the same trips through rubble, with fewer turns.
local rubble = astar.grid(24, 24, { diagonal = "never" })
local seed = 7
for _ = 1, 80 do
  seed = (seed * 48271) % 2147483647
  local x = 2 + seed % 22
  seed = (seed * 48271) % 2147483647
  rubble:set_cost(x, 2 + seed % 22, false)
end
local function turns(p)
  local n = 0
  for i = 3, #p do
    if p[i].x - p[i - 1].x ~= p[i - 1].x - p[i - 2].x or p[i].y - p[i - 1].y ~= p[i - 1].y - p[i - 2].y then n = n + 1 end
  end
  return n
end
local plain_turns, fewer_turns, plain_cost, turn_cost = 0, 0, 0, 0
for y = 1, 24, 4 do
  local p, i = rubble:find(1, y, 24, 25 - y)
  local q, j = rubble:find(1, y, 24, 25 - y, { turn_penalty = 3 })
  if p and q then
    plain_turns, fewer_turns = plain_turns + turns(p), fewer_turns + turns(q)
    plain_cost, turn_cost = plain_cost + i.cost, turn_cost + (j.cost - 3 * turns(q))
  end
end
print(string.format("\n4. turn_penalty = 3 through rubble: %d turns instead of %d, for %d steps instead of %d",
  fewer_turns, plain_turns, turn_cost, plain_cost))
