-- Worlds full of dead ends (mazes, rooms off corridors) for spec/37_dead_ends_spec.lua, and an
-- independent check that what grid:dead_end names really is one. Plain Lua: it never asks the
-- library how cells connect.
local M = {}

-- The neighbours of (x, y) that the move graph of a mode can join it to: 4 under "never" and
-- "no_corner_cut" (a diagonal step there needs both sides open, which join the same two
-- cells), 8 under "always" and "one_walkable" (which cuts a corner past one open side), the
-- six hex neighbours of an odd-r row (even 1-based rows sit half a cell right).
function M.neighbours(world, x, y)
  local out = {}
  local function add(dx, dy) out[#out + 1] = { x + dx, y + dy } end
  add(0, -1); add(1, 0); add(0, 1); add(-1, 0)
  if world.topology == "hex" then
    local lean = (y % 2 == 0) and 1 or -1
    add(lean, -1); add(lean, 1)
  elseif world.diagonal == "always" or world.diagonal == "one_walkable" then
    add(1, -1); add(1, 1); add(-1, 1); add(-1, -1)
  end
  return out
end

local function open(world, x, y)
  if x < 1 or y < 1 or x > world.w or y > world.h then return false end
  local c = world.cost[y][x]
  return c ~= false and c ~= math.huge
end

-- The cells reachable from (x, y) without entering (bx, by): a set keyed y * 65536 + x.
function M.reach_without(world, x, y, bx, by)
  local seen, todo = { [y * 65536 + x] = true }, { { x, y } }
  while #todo > 0 do
    local c = table.remove(todo)
    for _, n in ipairs(M.neighbours(world, c[1], c[2])) do
      local k = n[2] * 65536 + n[1]
      if open(world, n[1], n[2]) and not seen[k] and not (n[1] == bx and n[2] == by) then
        seen[k] = true
        todo[#todo + 1] = n
      end
    end
  end
  return seen
end

-- Checks every cell's answer from grid:dead_end against the world's terrain: the cells of an
-- area stay together once its gateway is removed, and none of them can then reach a cell that
-- is in no dead end (the main part of the island). Returns the number of cells in dead ends;
-- errors with the first cell that breaks the rule.
function M.check_areas(grid, world)
  local inside, areas = 0, {}
  for y = 1, world.h do
    for x = 1, world.w do
      local area, gx, gy = grid:dead_end(x, y)
      if area then
        assert(open(world, x, y), ("(%d,%d) is blocked but in area %d"):format(x, y, area))
        assert(open(world, gx, gy), ("area %d's gateway (%d,%d) is blocked"):format(area, gx, gy))
        inside = inside + 1
        local a = areas[area]
        if not a then
          a = { gx = gx, gy = gy, reach = M.reach_without(world, x, y, gx, gy), x = x, y = y }
          areas[area] = a
        end
        assert(a.gx == gx and a.gy == gy, ("area %d has two gateways"):format(area))
        assert(a.reach[y * 65536 + x], ("(%d,%d) and (%d,%d) of area %d are apart without its gateway")
          :format(x, y, a.x, a.y, area))
      end
    end
  end
  for area, a in pairs(areas) do
    local touches = false
    for k in pairs(a.reach) do
      local x, y = k % 65536, math.floor(k / 65536)
      assert(grid:dead_end(x, y), ("area %d reaches (%d,%d), in no dead end, without its gateway (%d,%d)")
        :format(area, x, y, a.gx, a.gy))
      for _, n in ipairs(M.neighbours(world, x, y)) do
        if n[1] == a.gx and n[2] == a.gy then touches = true end
      end
    end
    assert(touches, ("area %d does not touch its gateway"):format(area))
  end
  return inside
end

-- Overwrites a world's terrain (keeping its size) with a layout full of dead ends: a maze
-- carved on odd cells with a few loops knocked in, or rooms with one door each off a corridor.
-- Costs: 1, or random in 0.5..4.
function M.carve(rng, world)
  local w, h = world.w, world.h
  local cost = {}
  for y = 1, h do
    cost[y] = {}
    for x = 1, w do cost[y][x] = false end
  end
  local function dig(x, y)
    if x >= 1 and y >= 1 and x <= w and y <= h then
      cost[y][x] = rng.next() < 0.6 and 1 or 0.5 + rng.next() * 3.5
    end
  end
  if rng.next() < 0.5 then -- maze
    local seen = {}
    local stack = { { 1, 1 } }
    seen[1 * 65536 + 1] = true
    dig(1, 1)
    while #stack > 0 do
      local c = stack[#stack]
      local options = {}
      for _, d in ipairs({ { 2, 0 }, { -2, 0 }, { 0, 2 }, { 0, -2 } }) do
        local nx, ny = c[1] + d[1], c[2] + d[2]
        if nx >= 1 and ny >= 1 and nx <= w and ny <= h and not seen[ny * 65536 + nx] then
          options[#options + 1] = { nx, ny, d }
        end
      end
      if #options == 0 then
        stack[#stack] = nil
      else
        local o = options[rng.int(1, #options)]
        seen[o[2] * 65536 + o[1]] = true
        dig(c[1] + o[3][1] / 2, c[2] + o[3][2] / 2)
        dig(o[1], o[2])
        stack[#stack + 1] = { o[1], o[2] }
      end
    end
    for _ = 1, rng.int(0, 3) do dig(rng.int(1, w), rng.int(1, h)) end -- a few loops
  else -- a corridor along a middle row, rooms above and below with one door each
    local mid = math.floor((h + 1) / 2)
    for x = 1, w do dig(x, mid) end
    local x = 1
    while x <= w do
      local rw = rng.int(1, 3)
      for _, side in ipairs({ -1, 1 }) do
        if rng.next() < 0.7 then
          local door = x + rng.int(0, rw - 1)
          for y = mid + 2 * side, side < 0 and 1 or h, side do
            if math.abs(y - mid) > 4 then break end
            for rx = x, math.min(w, x + rw - 1) do dig(rx, y) end
          end
          dig(door, mid + side)
        end
      end
      x = x + rw + 1
    end
  end
  world.cost = cost
  return world
end

return M
