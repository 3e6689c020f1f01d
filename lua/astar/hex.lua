-- Hex geometry for astar.smooth on hex grids (odd-r: pointy-top, rows 2, 4, ... half a
-- cell right). Internal: not part of the API.
local M = {}

-- trace(x0, y0, x1, y1, visit): calls visit(x, y) for every hex other than the
-- first that the segment between two hex centres touches, an edge or a vertex
-- included, each once; stops early, returning false, when a call returns false.
-- Candidates are a sample point's hex and its six neighbours, samples one unit
-- apart (a hex that touches the segment is within half a unit of a sample, and so
-- borders that sample's hex: hexes that do not border each other are a whole unit
-- apart); each candidate is tested exactly by clipping the segment to its six sides.
local SQRT3 = math.sqrt(3)
local function hex_centre(x, y)
  return SQRT3 * ((x - 1) + ((y - 1) % 2) / 2), 1.5 * (y - 1)
end

local HEX_NORMALS = {}
for k = 0, 5 do HEX_NORMALS[k + 1] = { math.cos(k * math.pi / 3), math.sin(k * math.pi / 3) } end
local INRADIUS = SQRT3 / 2 + 1e-9 -- a hair more: touching counts

local function touches(x, y, ax, ay, dx, dy)
  local cx, cy = hex_centre(x, y)
  local lo, hi = 0, 1
  for k = 1, 6 do
    local n = HEX_NORMALS[k]
    local off = (ax - cx) * n[1] + (ay - cy) * n[2] - INRADIUS
    local rate = dx * n[1] + dy * n[2]
    if rate == 0 then
      if off > 0 then return false end
    elseif rate > 0 then
      hi = math.min(hi, -off / rate)
    else
      lo = math.max(lo, -off / rate)
    end
    if lo > hi then return false end
  end
  return true
end

-- The odd-r hex (1-based) a point of the plane lies in: cube rounding.
local function hex_of(px, py)
  local r = py / 1.5
  local q = px / SQRT3 - r / 2
  local s = -q - r
  local rq, rr, rs = math.floor(q + 0.5), math.floor(r + 0.5), math.floor(s + 0.5)
  local dq, dr, ds = math.abs(rq - q), math.abs(rr - r), math.abs(rs - s)
  if dq > dr and dq > ds then rq = -rr - rs elseif dr > ds then rr = -rq - rs end
  return rq + (rr - rr % 2) / 2 + 1, rr + 1
end

local function hex_trace(x0, y0, x1, y1, visit)
  local ax, ay = hex_centre(x0, y0)
  local bx, by = hex_centre(x1, y1)
  local dx, dy = bx - ax, by - ay
  local samples = math.max(1, math.ceil(math.sqrt(dx * dx + dy * dy))) -- a leg back to its start: 1
  local seen = { [y0 * 65536 + x0] = true }
  for i = 0, samples do
    local hx, hy = hex_of(ax + dx * i / samples, ay + dy * i / samples)
    local lean = hy % 2 == 0 and 0 or -1
    for k = 0, 6 do
      local x, y = hx, hy
      if k == 1 then x = hx - 1 elseif k == 2 then x = hx + 1
      elseif k >= 3 then
        y = k <= 4 and hy - 1 or hy + 1
        x = hx + lean + (k % 2 == 0 and 1 or 0)
      end
      local key = y * 65536 + x
      if not seen[key] and touches(x, y, ax, ay, dx, dy) then
        seen[key] = true
        if not visit(x, y) then return false end
      end
    end
  end
  return true
end
M.trace = hex_trace

return M
