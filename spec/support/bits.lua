-- 32-bit XOR with plain arithmetic, a nibble at a time: Lua 5.1, 5.2 and LuaJIT have no
-- integer operators (and 5.1 no bit library), so the specs' hashes and CRCs use this.
local floor = math.floor

local XOR4 = {}
for a = 0, 15 do
  XOR4[a] = {}
  for b = 0, 15 do
    local r, bit, x, y = 0, 1, a, b
    for _ = 1, 4 do
      if x % 2 ~= y % 2 then r = r + bit end
      x, y, bit = floor(x / 2), floor(y / 2), bit * 2
    end
    XOR4[a][b] = r
  end
end

local M = {}

-- a ~ b for a, b in [0, 2^32)
function M.bxor(a, b)
  local r, scale = 0, 1
  for _ = 1, 8 do
    r = r + XOR4[a % 16][b % 16] * scale
    a, b, scale = floor(a / 16), floor(b / 16), scale * 16
  end
  return r
end

return M
