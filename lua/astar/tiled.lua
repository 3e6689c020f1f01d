-- astar.tiled: a tile layer of a Tiled map (JSON, the format of the Tiled editor) as a grid.
-- The JSON is read with lua-cjson or dkjson when one is installed (optional dependencies);
-- a map already decoded into a table needs neither. Plain arithmetic only: every Lua.
local core = require("astar.core")

local M = {}

local FLAGS = 0x10000000 -- gids carry flip / rotation flags in their top four bits

local function decode_json(text)
  local ok, cjson = pcall(require, "cjson")
  if ok then
    local decoded, map = pcall(cjson.decode, text)
    if not decoded then error("astar.tiled: bad JSON: " .. tostring(map), 3) end
    return map
  end
  local has_dk, dkjson = pcall(require, "dkjson")
  if has_dk then
    local map, _, err = dkjson.decode(text)
    if map == nil then error("astar.tiled: bad JSON: " .. tostring(err), 3) end
    return map
  end
  error("astar.tiled: reading JSON needs lua-cjson or dkjson (or pass the decoded map table)", 3)
end

local B64 = {}
do
  local chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for i = 1, #chars do B64[chars:sub(i, i)] = i - 1 end
end

-- Base64 layer data: little-endian unsigned 32-bit gids.
local function base64_gids(text, count, name)
  local bytes, acc, bits = {}, 0, 0
  for c in text:gmatch("[^%s=]") do
    local v = B64[c]
    if not v then error("astar.tiled: layer '" .. name .. "': bad base64 data", 4) end
    acc, bits = acc * 64 + v, bits + 6
    if bits >= 8 then
      bits = bits - 8
      local p = 2 ^ bits
      bytes[#bytes + 1] = math.floor(acc / p)
      acc = acc % p
    end
  end
  if #bytes ~= count * 4 then
    error(string.format("astar.tiled: layer '%s': %d bytes of data for %d tiles", name, #bytes, count), 4)
  end
  local gids = {}
  for i = 1, count do
    local b = (i - 1) * 4
    gids[i] = bytes[b + 1] + bytes[b + 2] * 256 + bytes[b + 3] * 65536 + bytes[b + 4] * 16777216
  end
  return gids
end

-- The tile layer asked for: by name, by 1-based index among tile layers, or the first.
local function find_layer(map, which)
  local n = 0
  for _, layer in ipairs(map.layers or {}) do
    if layer.type == "tilelayer" then
      n = n + 1
      if which == nil or which == layer.name or which == n then return layer end
    end
  end
  error("astar.tiled: no tile layer " .. (which == nil and "in the map" or "'" .. tostring(which) .. "'"), 3)
end

-- gid -> the tile's properties (name -> value), for tilesets embedded in the map.
local function tile_properties(map)
  local props = {}
  -- (an external tileset, `source` = a .tsx file, lists no tiles here: only a legend by gid
  -- can describe its tiles)
  for _, set in ipairs(map.tilesets or {}) do
    for _, tile in ipairs(set.tiles or {}) do
      local p = {}
      for _, prop in ipairs(tile.properties or {}) do p[prop.name] = prop.value end
      props[set.firstgid + tile.id] = p
    end
  end
  return props
end

--- astar.tiled.grid(map [, opts]) -> grid, info. map: the JSON text of a Tiled map, or the
--- table it decodes to. opts:
---   layer    tile layer name or index among tile layers (default: the first)
---   legend   { [gid] = cost | false } (gid as Tiled numbers tiles: firstgid + tile id)
---   property name of a tile property holding the cost (a number, or false / "blocked")
---   default  cost of a tile neither names (default 1)
---   empty    cost of an empty cell, gid 0 (default 1; false to block)
---   diagonal the grid's mode (square maps)
--- info = { width, height, layer = name, orientation, tiles = distinct gids seen }
local OPTIONS = { layer = true, legend = true, property = true, default = true, empty = true, diagonal = true }

local function check_options(opts)
  local function bad(msg) error("bad argument #2 to 'grid' (" .. msg .. ")", 3) end
  if type(opts) ~= "table" then bad("options table or nil expected, got " .. type(opts)) end
  for k in pairs(opts) do
    if not OPTIONS[k] then bad("unknown option '" .. tostring(k) .. "'") end
  end
  local layer = opts.layer
  if layer ~= nil and type(layer) ~= "string" and not (type(layer) == "number" and layer >= 1 and layer % 1 == 0) then
    bad("option 'layer' must be a layer name or a positive integer, got " .. tostring(layer))
  end
  if opts.legend ~= nil and type(opts.legend) ~= "table" then
    bad("option 'legend' must be a table gid -> cost, got " .. type(opts.legend))
  end
  if opts.property ~= nil and type(opts.property) ~= "string" then
    bad("option 'property' must be a property name, got " .. type(opts.property))
  end
  local modes = { never = true, always = true, one_walkable = true, no_corner_cut = true }
  if opts.diagonal ~= nil and not modes[opts.diagonal] then
    bad("option 'diagonal' must be \"never\", \"always\", \"one_walkable\" or \"no_corner_cut\", got "
      .. tostring(opts.diagonal))
  end
  for _, k in ipairs({ "default", "empty" }) do
    local v = opts[k]
    if v ~= nil and v ~= false and type(v) ~= "number" then
      bad("option '" .. k .. "' must be a cost or false, got " .. type(v))
    end
  end
end

function M.grid(map, opts)
  if opts == nil then opts = {} end
  check_options(opts)
  if type(map) == "string" then map = decode_json(map) end
  if type(map) ~= "table" then error("bad argument #1 to 'grid' (Tiled map table or JSON text expected)", 2) end
  if map.infinite then error("astar.tiled: infinite maps (chunks) are not supported", 2) end
  local layer = find_layer(map, opts.layer)
  local w, h = layer.width or map.width, layer.height or map.height
  local gridopts = { diagonal = opts.diagonal }
  local orientation = map.orientation or "orthogonal"
  if orientation == "hexagonal" then
    if map.staggeraxis ~= "y" or map.staggerindex ~= "odd" then
      error("astar.tiled: hexagonal maps must stagger rows (staggeraxis y), odd ones shifted (staggerindex odd)", 2)
    end
    gridopts = { topology = "hex" }
  elseif orientation ~= "orthogonal" then
    error("astar.tiled: orientation '" .. tostring(orientation) .. "' is not supported (orthogonal or hexagonal)", 2)
  end
  local gids
  if layer.encoding == "base64" then
    if layer.compression and layer.compression ~= "" then
      error("astar.tiled: layer '" .. tostring(layer.name) .. "': compressed data (" .. layer.compression
        .. ") is not supported; save with 'CSV' or uncompressed 'Base64' layer format", 2)
    end
    gids = base64_gids(layer.data, w * h, tostring(layer.name))
  else
    gids = layer.data
    if type(gids) ~= "table" or #gids ~= w * h then
      error("astar.tiled: layer '" .. tostring(layer.name) .. "': data must hold " .. w * h .. " tiles", 2)
    end
  end
  local legend, property, props = opts.legend or {}, opts.property, nil
  if property then props = tile_properties(map) end
  local default = opts.default == nil and 1 or opts.default
  local empty = opts.empty == nil and 1 or opts.empty

  local grid = core.grid(w, h, gridopts)
  local seen, kinds = {}, 0
  for y = 1, h do
    for x = 1, w do
      local gid = gids[(y - 1) * w + x] % FLAGS
      local cost
      if gid == 0 then
        cost = empty
      else
        if not seen[gid] then
          seen[gid] = true
          kinds = kinds + 1
        end
        cost = legend[gid]
        if cost == nil and props and props[gid] then
          cost = props[gid][property]
          if cost == "blocked" then cost = false end
        end
        if cost == nil then cost = default end
      end
      if cost ~= 1 then
        local ok, err = pcall(grid.set_cost, grid, x, y, cost)
        if not ok then
          error(string.format("astar.tiled: tile %d at (%d, %d): %s", gid, x, y, tostring(err)), 2)
        end
      end
    end
  end
  return grid, { width = w, height = h, layer = layer.name, orientation = orientation, tiles = kinds }
end

return M
