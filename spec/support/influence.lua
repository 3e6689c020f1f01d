-- A plain influence-map oracle: values in a Lua table v[y][x], written from the
-- definitions in docs/contract.md / astar.h, not from the C code.
local M = {}

function M.new(w, h)
  local v = { w = w, h = h }
  for y = 1, h do
    v[y] = {}
    for x = 1, w do v[y][x] = 0 end
  end
  return v
end

local function weight(falloff, d, radius)
  local t = 1 - d / (radius + 1)
  if falloff == "constant" then return 1 end
  if falloff == "quadratic" then return t * t end
  return t
end

function M.stamp(v, x, y, radius, strength, falloff)
  for cy = 1, v.h do
    for cx = 1, v.w do
      local d = math.sqrt((cx - x) ^ 2 + (cy - y) ^ 2)
      if d <= radius then v[cy][cx] = v[cy][cx] + strength * weight(falloff, d, radius) end
    end
  end
end

-- walkable(x, y) or nil: blocked cells neither give nor take, and keep their values.
-- hex: the cells are odd-r hexes (rows 2, 4, ... half a cell right): six neighbours,
-- each one step away.
function M.spread(v, decay, momentum, walkable, hex)
  local open = function(x, y)
    return x >= 1 and y >= 1 and x <= v.w and y <= v.h and (not walkable or walkable(x, y))
  end
  local new = {}
  for y = 1, v.h do
    new[y] = {}
    for x = 1, v.w do
      if walkable and not walkable(x, y) then
        new[y][x] = v[y][x]
      else
        local best = 0
        -- the order of astar.h's directions: N, E, S, W, NE, SE, SW, NW (first wins a tie)
        for _, d in ipairs({ { 0, -1 }, { 1, 0 }, { 0, 1 }, { -1, 0 }, { 1, -1 }, { 1, 1 }, { -1, 1 }, { -1, -1 } }) do
          local nx, ny = x + d[1], y + d[2]
          local neighbour = not hex or d[2] == 0 or d[1] == 0 or (d[1] == 1) == (y % 2 == 0)
          if neighbour and open(nx, ny) then
            local len = hex and 1 or math.sqrt(d[1] * d[1] + d[2] * d[2])
            local c = v[ny][nx] * math.exp(-decay * len)
            if math.abs(c) > math.abs(best) then best = c end
          end
        end
        new[y][x] = momentum * v[y][x] + (1 - momentum) * best
      end
    end
  end
  for y = 1, v.h do v[y] = new[y] end
end

function M.max_abs(v)
  local m = 0
  for y = 1, v.h do
    for x = 1, v.w do m = math.max(m, math.abs(v[y][x])) end
  end
  return m
end

return M
