-- Makes examples/crowd/town.map, the crowd examples' level (examples/crowd.lua, the LÖVE demo):
-- a 128x88 town in the Moving AI format, made here so that the repository owns it. A river
-- with shallow banks and three bridges, blocks of houses whose rooms open onto the streets and
-- onto each other through one-cell doors (gaps in one-cell walls, which the crowd finds and
-- opens and closes), and parks of trees. Run from the repository root; the output is committed:
--   lua5.4 examples/crowd/make_town.lua > examples/crowd/town.map
local W, H = 128, 88
local rng = 20270
local function random(n) -- the same draws on every Lua (products stay below 2^53)
  rng = rng * 48271 % 2147483647
  return 1 + rng % n
end

local cell = {}
for y = 1, H do
  cell[y] = {}
  for x = 1, W do cell[y][x] = (x == 1 or y == 1 or x == W or y == H) and "@" or "." end
end

-- The river: a wavy band of water between shallow banks, crossed by three bridges.
for y = 2, H - 1 do
  local cx = 46 + math.floor(3.5 * math.sin(y / 9) + 0.5)
  for x = cx - 3, cx + 3 do
    local bridge = (y >= 13 and y <= 15) or (y >= 43 and y <= 45) or (y >= 73 and y <= 75)
    cell[y][x] = bridge and "." or (math.abs(x - cx) == 3 and "S" or "W")
  end
end

local function wall(x0, y0, x1, y1)
  for y = y0, y1 do for x = x0, x1 do cell[y][x] = "@" end end
end
local function door(x, y) cell[y][x] = "." end

-- A block: a house of one, two or four rooms (outer doors onto the street, inner doors between
-- rooms), or a park.
local function block(x0, y0, x1, y1)
  local kind = random(6)
  if kind == 1 then
    for y = y0, y1 do
      for x = x0, x1 do if random(4) == 1 then cell[y][x] = "T" end end
    end
    return
  end
  wall(x0, y0, x1, y0); wall(x0, y1, x1, y1); wall(x0, y0, x0, y1); wall(x1, y0, x1, y1)
  local mx, my = math.floor((x0 + x1) / 2), math.floor((y0 + y1) / 2)
  if kind >= 4 then -- split in two, left and right
    wall(mx, y0, mx, y1)
    door(mx, y0 + 2 + random(y1 - y0 - 5))
    door(x0 + 2 + random(mx - x0 - 4), random(2) == 1 and y0 or y1)
    door(mx + 2 + random(x1 - mx - 4), random(2) == 1 and y0 or y1)
    if kind == 6 then -- and top and bottom: four rooms
      wall(x0, my, x1, my)
      door(x0 + 1 + random(mx - x0 - 3), my)
      door(mx + 1 + random(x1 - mx - 3), my)
      door(x0, my + 1 + random(y1 - my - 3))
      door(x1, y0 + 1 + random(my - y0 - 3))
    end
  else -- one hall, a door on two sides
    door(x0 + 2 + random(x1 - x0 - 5), y0)
    door(random(2) == 1 and x0 or x1, y0 + 2 + random(y1 - y0 - 5))
  end
end

for _, x0 in ipairs({ 4, 22, 56, 74, 92, 110 }) do
  for _, y0 in ipairs({ 4, 20, 36, 52, 68 }) do
    block(x0, y0, x0 + 14, y0 + 12)
  end
end

print("type octile")
print("height " .. H)
print("width " .. W)
print("map")
for y = 1, H do print(table.concat(cell[y])) end
