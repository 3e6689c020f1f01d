-- Island labels in a living world (issue 26): what a door or a gate costs.
--   lua5.4 bench/islands_doors.lua [MAP ...]      (ASTAR_BUILD=./build by default)
-- Per map:
-- * a room behind a one-cell door (the largest area grid:dead_end reports): the door closed
--   with set_cost, then the first find from outside into the room (it must answer
--   "unreachable" at once) and grid:reachable; the door opened again; 5 rounds, medians;
-- * gates: runs of 1-3 cells across a passage, on a loop (a way round joins the two sides; also
--   the 8 with the longest way round) and ones that cut an area off, each closed and opened 12
--   times: the closing's median (per gate, then over the gates) and worst.
-- CPU time (os.clock), medians from one run; the warm-up query builds every lazy table first.
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local function clock_ms(f, ...)
  local t0 = os.clock()
  local a, b = f(...)
  return (os.clock() - t0) * 1e3, a, b
end

-- The cells the room behind `door` holds (door closed): a flood from one of its cells.
local function room_size(grid, x, y)
  local w, h = grid:size()
  local seen, stack, n = { [y * w + x] = true }, { x, y }, 0
  while #stack > 0 do
    local cy, cx = table.remove(stack), table.remove(stack)
    n = n + 1
    for _, d in ipairs({ { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } }) do
      local nx, ny = cx + d[1], cy + d[2]
      if nx >= 1 and ny >= 1 and nx <= w and ny <= h and not seen[ny * w + nx] and grid:is_walkable(nx, ny) then
        seen[ny * w + nx] = true
        stack[#stack + 1] = nx
        stack[#stack + 1] = ny
      end
    end
  end
  return n
end

-- A door closed: set_cost, then the first find from outside into the room (the defaults, then
-- A* with jump = false) and reachable; the door opened again and a path found; 5 rounds each,
-- medians.
local function door(grid, what, ox, oy, rx, ry, dx, dy)
  local warm = grid:find(ox, oy, rx, ry) -- builds the lazy tables (islands, dead ends, JPS+...)
  assert(warm, "the room is reachable before")
  grid:find(ox, oy, rx, ry, { jump = false })
  astar.set_work_limit(1e12) -- counts the C work of the closing: the islands' floods
  grid:set_cost(dx, dy, false)
  local units = 1e12 - astar.work_left()
  astar.set_work_limit(nil)
  local size = room_size(grid, rx, ry)
  grid:set_cost(dx, dy, 1)
  print(string.format("%s: closing the door of a room of %d cells: %d units of work", what, size, units))
  for _, opts in ipairs({ {}, { jump = false } }) do
    grid:find(ox, oy, rx, ry, opts)
    local set_ms, find_ms, reach_ms, total, expansions, status = {}, {}, {}, {}, 0, nil
    for round = 1, 5 do
      local a = clock_ms(grid.set_cost, grid, dx, dy, false)
      local b, p, info = clock_ms(grid.find, grid, ox, oy, rx, ry, opts)
      local c, yes = clock_ms(grid.reachable, grid, ox, oy, rx, ry)
      assert(p == nil and info.status == "unreachable" and yes == false)
      set_ms[round], find_ms[round], reach_ms[round], total[round] = a, b, c, a + b
      expansions, status = info.expansions, info.status
      grid:set_cost(dx, dy, 1)
      assert(grid:find(ox, oy, rx, ry, opts))
    end
    print(string.format("%s: room of %d cells behind door (%d,%d), from (%d,%d)%s: set_cost %.3f ms + first " ..
      "find %.3f ms = %.3f ms (%s, %d expansions); reachable after %.4f ms (medians of 5)", what, size, dx, dy,
      ox, oy, opts.jump == false and ", jump = false" or "", median(set_ms), median(find_ms), median(total),
      status, expansions, median(reach_ms)))
  end
end

local function bench(path)
  local grid = astar.load_movingai(path)
  local w, h = grid:size()
  -- Areas by their cells (innermost), with a cell of each and its gateway.
  local count, cell, gate = {}, {}, {}
  for y = 1, h do
    for x = 1, w do
      local area, gx, gy = grid:dead_end(x, y)
      if area then
        count[area] = (count[area] or 0) + 1
        cell[area] = cell[area] or { x, y }
        gate[area] = { gx, gy }
      end
    end
  end
  -- An area's cells with those of the areas nested in it: a gateway lies in the area above.
  local total = {}
  for area, n in pairs(count) do
    local a = area
    while a do
      total[a] = (total[a] or 0) + n
      local up = grid:dead_end(gate[a][1], gate[a][2])
      a = up ~= a and up or nil
    end
  end
  local best
  for area in pairs(count) do
    if not best or total[area] > total[best] then best = area end
  end
  local rx, ry = cell[best][1], cell[best][2]
  local dx, dy = gate[best][1], gate[best][2]
  -- An outside cell far from the door: the first walkable cell of the map outside the area.
  local ox, oy
  for y = 1, h do
    for x = 1, w do
      if not ox and grid:is_walkable(x, y) and grid:dead_end(x, y) == false then ox, oy = x, y end
    end
  end
  door(grid, path:match("[^/]+$") .. ": the largest dead end", ox, oy, rx, ry, dx, dy)

  -- A room built: the largest all-walkable square (side <= 201), walled, its door on the top.
  local side, best_side, bx, by = {}, 0, nil, nil
  for y = 1, h do
    side[y] = {}
    for x = 1, w do
      local s = 0
      if grid:is_walkable(x, y) then
        s = 1
        if x > 1 and y > 1 then s = 1 + math.min(side[y - 1][x], side[y][x - 1], side[y - 1][x - 1]) end
      end
      side[y][x] = math.min(s, 201)
      if side[y][x] > best_side then best_side, bx, by = side[y][x], x, y end
    end
  end
  local x0, y0 = bx - best_side + 1, by - best_side + 1
  for i = 0, best_side - 1 do
    grid:set_cost(x0 + i, y0, false)
    grid:set_cost(x0 + i, by, false)
    grid:set_cost(x0, y0 + i, false)
    grid:set_cost(bx, y0 + i, false)
  end
  -- The door: a wall cell (not a corner) with open ground outside it, nearest a side's middle.
  local doors = {}
  for i = 1, best_side - 2 do
    doors[#doors + 1] = { x0 + i, y0, x0 + i, y0 - 1, x0 + i, y0 + 1 }
    doors[#doors + 1] = { x0 + i, by, x0 + i, by + 1, x0 + i, by - 1 }
    doors[#doors + 1] = { x0, y0 + i, x0 - 1, y0 + i, x0 + 1, y0 + i }
    doors[#doors + 1] = { bx, y0 + i, bx + 1, y0 + i, bx - 1, y0 + i }
  end
  table.sort(doors, function(a, b)
    local ma = math.abs(a[1] - x0 - best_side / 2) + math.abs(a[2] - y0 - best_side / 2)
    local mb = math.abs(b[1] - x0 - best_side / 2) + math.abs(b[2] - y0 - best_side / 2)
    return ma < mb
  end)
  local d = doors[1]
  for _, c in ipairs(doors) do
    if grid:is_walkable(c[3], c[4]) then d = c break end
  end
  -- From the first cell (in rows) that reaches the door's outside: the room and the other side.
  local sx, sy
  for y = 1, h do
    for x = 1, w do
      if not sx and grid:is_walkable(x, y) and grid:reachable(x, y, d[3], d[4]) then sx, sy = x, y end
    end
  end
  grid:set_cost(d[1], d[2], 1)
  door(grid, path:match("[^/]+$") .. ": a room built in its largest open square", sx, sy, d[5], d[6], d[1], d[2])

  -- Gates: runs of 1-3 walkable cells across a passage (walls at both ends, open above and
  -- below), each toggled 12 times, a set_cost per cell; sorted by whether closing one leaves
  -- its two sides joined (the floods meet round a loop) or cuts an area off.
  local loops, cuts = {}, {}
  local function open(x, y) return x >= 1 and y >= 1 and x <= w and y <= h and grid:is_walkable(x, y) end
  for y = 2, h - 1 do
    local x = 2
    while x < w do
      local len = 0
      while open(x + len, y) and open(x + len, y - 1) and open(x + len, y + 1) and len < 4 do len = len + 1 end
      if len >= 1 and len <= 3 and not open(x - 1, y) and not open(x + len, y) then
        for i = 0, len - 1 do grid:set_cost(x + i, y, false) end
        local joined = grid:reachable(x, y - 1, x, y + 1)
        local round = joined and #grid:find(x, y - 1, x, y + 1, { diagonal = "never", jump = false })
        for i = 0, len - 1 do grid:set_cost(x + i, y, 1) end
        local list = joined and loops or cuts
        list[#list + 1] = { x, y, len, round }
      end
      x = x + math.max(len, 1)
    end
  end
  -- The longest ways round: the gates whose two sides the floods had to grow farthest to join.
  local long = {}
  for i, g in ipairs(loops) do long[i] = g end
  table.sort(long, function(a, b) return a[4] > b[4] end)
  for i = 9, #long do long[i] = nil end
  local rounds = {}
  for i, g in ipairs(long) do rounds[i] = g[4] end
  for _, kind in ipairs({ { "on a loop", loops }, { "on a loop, the 8 longest ways round (" ..
    table.concat(rounds, ", ") .. " cells)", long }, { "cutting an area off", cuts } }) do
    local list = kind[2]
    local medians, worst, n, picked = {}, 0, 0, {}
    for i = 1, math.min(8, #list) do
      local g = list[1 + (i - 1) * #list // math.min(8, #list)]
      if not picked[g] then
        picked[g], n = true, n + 1
        local times = {}
        for t = 1, 12 do -- the closings timed (a gate's cells, each a set_cost), not the openings
          local t0 = os.clock()
          for c = 0, g[3] - 1 do grid:set_cost(g[1] + c, g[2], false) end
          times[t] = (os.clock() - t0) * 1e3
          worst = math.max(worst, times[t])
          for c = 0, g[3] - 1 do grid:set_cost(g[1] + c, g[2], 1) end
        end
        medians[#medians + 1] = median(times)
      end
    end
    if n > 0 then
      table.sort(medians)
      print(string.format("  gates %s (%d of %d gates of 1-3 cells, closed 12 times each): closing median %.4f ms " ..
        "(the worst gate's median %.4f), worst closing %.3f ms", kind[1], n, #list, median(medians),
        medians[#medians], worst))
    end
  end
end

local maps = #arg > 0 and arg or { "../shared/data/movingai/Paris_0_1024.map", "../shared/data/movingai/Aurora.map" }
for _, m in ipairs(maps) do bench(m) end
