-- Decodes the PNGs astar writes, with a decoder written from the PNG and zlib specifications
-- (signature, IHDR, chunk CRCs, stored deflate blocks, Adler-32): spec/29_debug_spec.lua and
-- spec/31_front_safety_spec.lua read pixels back with it.
local assert = require("luassert")

local floor = math.floor

local bxor = require("spec.support.bits").bxor

local CRC = {}
for n = 0, 255 do
  local c = n
  for _ = 1, 8 do
    if c % 2 == 1 then c = bxor(0xEDB88320, floor(c / 2)) else c = floor(c / 2) end
  end
  CRC[n] = c
end
local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do c = bxor(CRC[bxor(c, s:byte(i)) % 256], floor(c / 256)) end
  return bxor(c, 0xFFFFFFFF)
end

local function u32(s, i)
  local a, b, c, d = s:byte(i, i + 3)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

local M = {}

-- 8-bit RGB, stored deflate blocks. Returns width, height and pixel(x, y) -> r, g, b (0-based
-- pixels).
function M.decode(png)
  assert.are.equal("\137PNG\r\n\26\n", png:sub(1, 8))
  local at, ihdr, idat, ended = 9, nil, {}, false
  while at <= #png do
    local len, kind = u32(png, at), png:sub(at + 4, at + 7)
    local data = png:sub(at + 8, at + 7 + len)
    assert.are.equal(crc32(kind .. data), u32(png, at + 8 + len), kind .. " CRC")
    if kind == "IHDR" then ihdr = data
    elseif kind == "IDAT" then idat[#idat + 1] = data
    elseif kind == "IEND" then ended = true end
    at = at + 12 + len
  end
  assert(ihdr and ended, "IHDR or IEND missing")
  local w, h = u32(ihdr, 1), u32(ihdr, 5)
  assert.are.same({ 8, 2, 0, 0, 0 }, { ihdr:byte(9, 13) }) -- 8-bit truecolour, no interlace
  local z = table.concat(idat)
  assert.are.equal(0, (z:byte(1) * 256 + z:byte(2)) % 31) -- zlib header check bits
  local raw, i, final = {}, 3, false
  while not final do
    local head = z:byte(i)
    final = head % 2 == 1
    assert.are.equal(0, floor(head / 2) % 4, "a stored block")
    local n, nn = z:byte(i + 1) + z:byte(i + 2) * 256, z:byte(i + 3) + z:byte(i + 4) * 256
    assert.are.equal(65535, n + nn) -- NLEN is the complement of LEN
    raw[#raw + 1] = z:sub(i + 5, i + 4 + n)
    i = i + 5 + n
  end
  raw = table.concat(raw)
  local a, b = 1, 0
  for k = 1, #raw do
    a = (a + raw:byte(k)) % 65521
    b = (b + a) % 65521
  end
  assert.are.equal(b * 65536 + a, u32(z, i), "Adler-32")
  assert.are.equal((w * 3 + 1) * h, #raw)
  return w, h, function(x, y)
    local row = y * (w * 3 + 1) + 1
    assert.are.equal(0, raw:byte(row), "filter type none")
    return raw:byte(row + 1 + x * 3, row + 3 + x * 3)
  end
end

return M
