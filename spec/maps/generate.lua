-- Makes the small Moving AI maps and scenarios under spec/maps, with optimal
-- lengths from the spec oracle (spec/support/dijkstra.lua), never from the
-- library. Run from the repository root:  lua5.4 spec/maps/generate.lua
-- The outputs are committed; spec/09_movingai_spec.lua checks them again.
package.path = "./?.lua;" .. package.path
local oracle = require("spec.support.dijkstra")

local function world_of(rows)
  local world = { w = #rows[1], h = #rows, cost = {}, diagonal = "no_corner_cut" }
  for y, row in ipairs(rows) do
    world.cost[y] = {}
    for x = 1, #row do
      world.cost[y][x] = row:sub(x, x):match("[%.GS]") and 1 or false
    end
  end
  return world
end

-- A map: rows of width w, walls and obstacles drawn with a seeded generator.
local function make_rows(w, h, seed, density)
  local r = oracle.rng(seed)
  local rows = {}
  for y = 1, h do
    local row = {}
    for x = 1, w do
      local c = "."
      local v = r.next()
      if v < density * 0.5 then c = "@"
      elseif v < density * 0.7 then c = "T"
      elseif v < density * 0.8 then c = "W"
      elseif v < density * 0.85 then c = "O"
      elseif v > 0.97 then c = "G"
      elseif v > 0.95 then c = "S" end
      row[x] = c
    end
    -- a wall with a door every few rows, so that paths must go around
    if y % 6 == 0 then
      for x = 1, w do row[x] = "@" end
      row[r.int(1, w)] = "."
      row[r.int(1, w)] = "."
    end
    rows[y] = table.concat(row)
  end
  return rows
end

local function write_map(path, rows, eol)
  local f = assert(io.open(path, "wb"))
  f:write("type octile", eol, "height ", #rows, eol, "width ", #rows[1], eol, "map", eol)
  for _, row in ipairs(rows) do f:write(row, eol) end
  f:close()
end

-- Problems between random walkable cells; unreachable pairs are not written
-- (Moving AI files hold reachable problems only), but one pair with a blocked
-- endpoint is, so that the runner's skip count is exercised.
local function write_scen(path, map_name, rows, seed, count, eol)
  local world = world_of(rows)
  local r = oracle.rng(seed)
  local f = assert(io.open(path, "wb"))
  f:write("version 1", eol)
  local written, tries = 0, 0
  while written < count and tries < count * 50 do
    tries = tries + 1
    local sx, sy, gx, gy = r.int(1, world.w), r.int(1, world.h), r.int(1, world.w), r.int(1, world.h)
    if world.cost[sy][sx] and world.cost[gy][gx] then
      local d = oracle.distances(world, sx, sy)[gy][gx]
      if d < math.huge then
        f:write(string.format("%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.8f%s", math.floor(d / 4), map_name,
          world.w, world.h, sx - 1, sy - 1, gx - 1, gy - 1, d, eol))
        written = written + 1
      end
    end
  end
  for y = 1, world.h do -- the first blocked cell, as a goal
    for x = 1, world.w do
      if not world.cost[y][x] then
        f:write(string.format("0\t%s\t%d\t%d\t0\t0\t%d\t%d\t0%s", map_name, world.w, world.h,
          x - 1, y - 1, eol))
        f:close()
        return
      end
    end
  end
  f:close()
end

local maps = {
  { name = "rooms24x18.map", w = 24, h = 18, seed = 11, density = 0.15, eol = "\n", problems = 24 },
  { name = "forest32x32.map", w = 32, h = 32, seed = 23, density = 0.30, eol = "\n", problems = 24 },
  { name = "crlf17x9.map", w = 17, h = 9, seed = 5, density = 0.20, eol = "\r\n", problems = 12 },
}
for _, m in ipairs(maps) do
  local rows = make_rows(m.w, m.h, m.seed, m.density)
  write_map("spec/maps/" .. m.name, rows, m.eol)
  write_scen("spec/maps/" .. m.name .. ".scen", m.name, rows, m.seed * 7, m.problems, m.eol)
  print("wrote spec/maps/" .. m.name)
end
