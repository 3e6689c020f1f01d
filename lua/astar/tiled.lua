-- astar.tiled: a tile layer of a Tiled map (JSON, the format of the Tiled editor) as a grid.
-- The JSON is read with lua-cjson or dkjson when one is installed (optional dependencies);
-- a map already decoded into a table needs neither. Plain arithmetic only: every Lua.
local core = require("astar.core")
local shown = require("astar.args").shown

local M = {}

local FLAGS = 0x10000000 -- gids carry flip / rotation flags in their top four bits

-- lua-cjson decodes every number as a float (10.0): sizes and gids become integers again on
-- the Lua versions that have them (5.3+).
local tointeger = math.tointeger or function(v) return v end

-- The value the JSON text holds; nil and why not.
local function decode_json(text)
  local ok, cjson = pcall(require, "cjson")
  if ok then
    local decoded, map = pcall(cjson.decode, text)
    if not decoded then return nil, "bad JSON: " .. tostring(map) end
    return map
  end
  local has_dk, dkjson = pcall(require, "dkjson")
  if has_dk then
    local map, _, err = dkjson.decode(text)
    if err then return nil, "bad JSON: " .. tostring(err) end
    return map
  end
  return nil, "reading JSON needs lua-cjson or dkjson (or pass the decoded map table)"
end

-- An integer >= least (and below 2^32, beyond any size or gid).
local function is_count(v, least)
  return type(v) == "number" and v >= least and v < 2 ^ 32 and v % 1 == 0
end

-- A JSON array, as both decoders give it (an object such as {"a": 1} has no [1]).
local function is_list(v)
  return type(v) == "table" and (v[1] ~= nil or next(v) == nil)
end

local B64 = {}
do
  local chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for i = 1, #chars do B64[chars:sub(i, i)] = i - 1 end
end

-- Base64 layer data: little-endian unsigned 32-bit gids; nil and why not.
local function base64_gids(text, count)
  local bytes, acc, bits = {}, 0, 0
  for c in text:gmatch("[^%s=]") do
    local v = B64[c]
    if not v then return nil, "bad base64 data (" .. string.format("%q", c) .. ")" end
    acc, bits = acc * 64 + v, bits + 6
    if bits >= 8 then
      bits = bits - 8
      local p = 2 ^ bits
      bytes[#bytes + 1] = math.floor(acc / p)
      acc = acc % p
    end
  end
  if #bytes ~= count * 4 then
    return nil, string.format("%d bytes of data for %d tiles", #bytes, count)
  end
  local gids = {}
  for i = 1, count do
    local b = (i - 1) * 4
    gids[i] = bytes[b + 1] + bytes[b + 2] * 256 + bytes[b + 3] * 65536 + bytes[b + 4] * 16777216
  end
  return gids
end

-- CSV layer data: a list of `count` gids; nil and why not.
local function csv_gids(data, count)
  if not is_list(data) then return nil, "data must be a list of gids, got " .. type(data) end
  if #data ~= count then return nil, "data must hold " .. count .. " tiles, got " .. #data end
  for i = 1, count do
    if not is_count(data[i], 0) then
      return nil, "tile " .. i .. " of the data is not a gid (an integer 0..2^32-1), got " .. shown(data[i])
    end
  end
  return data
end

-- The tile layer asked for: by name, by 1-based index among tile layers, or the first; nil
-- and why not.
local function find_layer(map, which)
  if not is_list(map.layers) then return nil, "the map's 'layers' must be a list, got " .. type(map.layers) end
  local n = 0
  for i, layer in ipairs(map.layers) do
    if type(layer) ~= "table" then return nil, "layers[" .. i .. "] is not a layer, got " .. type(layer) end
    if layer.type == "tilelayer" then
      n = n + 1
      if which == nil or which == layer.name or which == n then return layer end
    end
  end
  return nil, "no tile layer " .. (which == nil and "in the map" or "'" .. tostring(which) .. "'")
end

-- gid -> the tile's properties (name -> value), for tilesets embedded in the map; nil and why
-- not.
local function tile_properties(map)
  local props = {}
  -- (an external tileset, `source` = a .tsx file, lists no tiles here: only a legend by gid
  -- can describe its tiles)
  local sets = map.tilesets
  if sets == nil then return props end
  if not is_list(sets) then return nil, "the map's 'tilesets' must be a list, got " .. type(sets) end
  for i, set in ipairs(sets) do
    local where = "tilesets[" .. i .. "]"
    if type(set) ~= "table" then return nil, where .. " is not a tileset, got " .. type(set) end
    if not is_count(set.firstgid, 1) then
      return nil, where .. ": 'firstgid' must be a positive integer, got " .. shown(set.firstgid)
    end
    if set.tiles ~= nil and not is_list(set.tiles) then
      return nil, where .. ": 'tiles' must be a list, got " .. type(set.tiles)
    end
    for j, tile in ipairs(set.tiles or {}) do
      local at = where .. ".tiles[" .. j .. "]"
      if type(tile) ~= "table" then return nil, at .. " is not a tile, got " .. type(tile) end
      if not is_count(tile.id, 0) then return nil, at .. ": 'id' must be an integer >= 0, got " .. shown(tile.id) end
      if tile.properties ~= nil and not is_list(tile.properties) then
        return nil, at .. ": 'properties' must be a list of {name=, value=}, got " .. type(tile.properties)
      end
      local p = {}
      for k, prop in ipairs(tile.properties or {}) do
        if type(prop) ~= "table" or type(prop.name) ~= "string" then
          return nil, at .. ".properties[" .. k .. "] is not a {name=, value=} property"
        end
        p[prop.name] = prop.value
      end
      props[tointeger(set.firstgid + tile.id)] = p
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
---   class_property name of a tile property holding the cell's terrain class (default "class"):
---            an integer 0..255, or a name of class_names
---   class_names names of classes (astar.class_names, or a table { name = id }) for that property
--- info = { width, height, layer = name, orientation, tiles = distinct gids seen }
--- A map it cannot read raises an error saying what is wrong with it.
local OPTIONS = { layer = true, legend = true, property = true, default = true, empty = true, diagonal = true,
                  class_property = true, class_names = true }
local MODES = { never = true, always = true, one_walkable = true, no_corner_cut = true }

-- Why opts are wrong, or nil.
local function check_options(opts)
  if type(opts) ~= "table" then return "options table or nil expected, got " .. type(opts) end
  for k in pairs(opts) do
    if not OPTIONS[k] then return "unknown option '" .. tostring(k) .. "'" end
  end
  local layer = opts.layer
  if layer ~= nil and type(layer) ~= "string" and not (type(layer) == "number" and layer >= 1 and layer % 1 == 0) then
    return "option 'layer' must be a layer name or a positive integer, got " .. shown(layer)
  end
  if opts.legend ~= nil and type(opts.legend) ~= "table" then
    return "option 'legend' must be a table gid -> cost, got " .. type(opts.legend)
  end
  for _, k in ipairs({ "property", "class_property" }) do
    if opts[k] ~= nil and type(opts[k]) ~= "string" then
      return "option '" .. k .. "' must be a property name, got " .. type(opts[k])
    end
  end
  if opts.class_names ~= nil and type(opts.class_names) ~= "table" then
    return "option 'class_names' must be astar.class_names or a table { name = class }, got " .. type(opts.class_names)
  end
  if opts.diagonal ~= nil and not MODES[opts.diagonal] then
    return "option 'diagonal' must be \"never\", \"always\", \"one_walkable\" or \"no_corner_cut\", got "
      .. shown(opts.diagonal)
  end
  for _, k in ipairs({ "default", "empty" }) do
    local v = opts[k]
    if v ~= nil and v ~= false and type(v) ~= "number" then
      return "option '" .. k .. "' must be a cost or false, got " .. type(v)
    end
  end
end

-- Level 3: the caller of M.grid, the only function that calls it.
local function malformed(msg)
  error("astar.tiled: " .. msg, 3)
end

function M.grid(map, opts)
  if opts == nil then opts = {} end
  local bad_option = check_options(opts)
  if bad_option then error("bad argument #2 to 'grid' (" .. bad_option .. ")", 2) end
  if type(map) == "string" then
    local why
    map, why = decode_json(map)
    if why then malformed(why) end
    if type(map) ~= "table" then malformed("the JSON text is not a map (an object), got " .. type(map)) end
  elseif type(map) ~= "table" then
    error("bad argument #1 to 'grid' (Tiled map table or JSON text expected, got " .. type(map) .. ")", 2)
  end
  if map.infinite then malformed("infinite maps (chunks) are not supported") end
  local layer, why = find_layer(map, opts.layer)
  if not layer then malformed(why) end
  local name = "layer '" .. tostring(layer.name) .. "'"
  local size = {}
  for _, k in ipairs({ "width", "height" }) do
    local v = layer[k]
    if v == nil then v = map[k] end
    if not is_count(v, 1) then malformed(name .. ": " .. k .. " must be a positive integer, got " .. shown(v)) end
    size[k] = tointeger(v)
  end
  local w, h = size.width, size.height
  local gridopts = { diagonal = opts.diagonal }
  local orientation = map.orientation or "orthogonal"
  if orientation == "hexagonal" then
    if map.staggeraxis ~= "y" or map.staggerindex ~= "odd" then
      malformed("hexagonal maps must stagger rows (staggeraxis y), odd ones shifted (staggerindex odd)")
    end
    gridopts = { topology = "hex" }
  elseif orientation ~= "orthogonal" then
    malformed("orientation '" .. tostring(orientation) .. "' is not supported (orthogonal or hexagonal)")
  end
  local gids
  if layer.encoding == "base64" then
    if layer.compression ~= nil and layer.compression ~= "" then
      malformed(name .. ": compressed data (" .. tostring(layer.compression)
        .. ") is not supported; save with 'CSV' or uncompressed 'Base64' layer format")
    end
    if type(layer.data) ~= "string" then malformed(name .. ": base64 data must be a string, got " .. type(layer.data)) end
    gids, why = base64_gids(layer.data, w * h)
  elseif layer.encoding == nil or layer.encoding == "csv" then
    gids, why = csv_gids(layer.data, w * h)
  else
    malformed(name .. ": encoding '" .. tostring(layer.encoding) .. "' is not supported (csv or base64)")
  end
  if not gids then malformed(name .. ": " .. why) end
  local legend, property = opts.legend or {}, opts.property
  -- Tile properties are read for classes too; a map whose tilesets Tiled could not have written
  -- fails only where an option asked for a property (it loads as before, without classes).
  local props
  props, why = tile_properties(map)
  if not props and (property or opts.class_property) then malformed(why) end
  local class_property, class_names = opts.class_property or "class", opts.class_names
  local class_of = {} -- gid -> its class (false: none given)
  local default = opts.default == nil and 1 or opts.default
  local empty = opts.empty == nil and 1 or opts.empty
  local by_property = property and "property '" .. property .. "'" -- where a cost came from

  local made, grid = pcall(core.grid, w, h, gridopts)
  if not made then malformed(string.format("a %dx%d grid: %s", w, h, tostring(grid))) end
  local seen, kinds = {}, 0
  for y = 1, h do
    for x = 1, w do
      local gid = tointeger(gids[(y - 1) * w + x] % FLAGS)
      local cost, from
      if gid == 0 then
        cost, from = empty, "option 'empty'"
      else
        if not seen[gid] then
          seen[gid] = true
          kinds = kinds + 1
        end
        local cls = class_of[gid]
        if cls == nil then
          cls = props and props[gid] and props[gid][class_property]
          if cls == nil then cls = false end
          if type(cls) == "string" then -- a name
            local ok, id = pcall(function() return class_names and class_names[cls] end)
            if not ok or id == nil then
              malformed(string.format("tile %d: class '%s' is not in option 'class_names'", gid, cls))
            end
            cls = id
          end
          class_of[gid] = cls
        end
        if cls then
          local ok, err = pcall(grid.set_class, grid, x, y, cls)
          if not ok then
            err = tostring(err):match("^bad argument #%d+ to '[^']*' %((.*)%)$") or tostring(err)
            malformed(string.format("tile %d at (%d, %d), property '%s': %s", gid, x, y, class_property, err))
          end
        end
        cost, from = legend[gid], "the legend"
        if cost == nil and property and props and props[gid] then
          cost, from = props[gid][property], by_property
          if cost == "blocked" then cost = false end
        end
        if cost == nil then cost, from = default, "option 'default'" end
      end
      if cost ~= 1 then
        local ok, err = pcall(grid.set_cost, grid, x, y, cost)
        if not ok then
          -- the reason only: set_cost's argument number means nothing here
          err = tostring(err):match("^bad argument #%d+ to '[^']*' %((.*)%)$") or tostring(err)
          malformed(string.format("tile %d at (%d, %d), cost from %s: %s", gid, x, y, from, err))
        end
      end
    end
  end
  return grid, { width = w, height = h, layer = layer.name, orientation = orientation, tiles = kinds }
end

return M
