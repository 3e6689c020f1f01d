-- astar.debug: pictures of a grid for looking at what a search did. ascii() for a terminal
-- or a test's message, png() for a file (the encoder is astar.core.png_encode: stored
-- deflate, so the files are big and need no library). Runs on every Lua (no integer ops).
local core = require("astar.core")
local args = require("astar.args")
local list_length, read_path = args.list_length, args.read_path

local M = {}

-- The palette of png(), by layer from the bottom; documented in docs/manual.md.
M.colors = {
  blocked = { 40, 40, 48 },
  open = { 235, 235, 225 },       -- walkable at cost 1; dearer terrain is darker, cheaper lighter
  positive = { 220, 40, 30 },     -- influence > 0 (danger), blended in by |v| / max |v|
  negative = { 40, 90, 220 },     -- influence < 0 (friendly ground)
  explored = { 180, 150, 230 },   -- blended in half way
  claimed = { 255, 160, 0 },
  path = { 20, 170, 60 },
  start = { 30, 80, 230 },
  goal = { 200, 0, 120 },
  background = { 255, 255, 255 }, -- hex pictures: the half cell beside every other row
}

-- The most pixels png() draws: 2^25, about 100 MB of RGB (more for the copies the encoder
-- makes). Checked before anything is built: the scale multiplies what a grid's size would
-- allow. (ascii() needs no limit: a few bytes a cell, less than the grid itself holds.)
local MAX_PIXELS = 2 ^ 25

-- The metatables of the objects a picture reads: a table or another userdata with the same
-- methods would be read as if it were one.
local MT = {}
do
  local g = core.grid(1, 1)
  MT.grid, MT.influence = getmetatable(g), getmetatable(core.influence(1, 1))
  MT.claims, MT.field = getmetatable(core.claims(g)), getmetatable(g:distance_field({ { x = 1, y = 1 } }))
end

-- v's type as Lua's own messages name it: its metatable's __name (an astar object, a FILE*),
-- else type(v). Any metatable may be a mod's: reading it may raise.
local function type_name(v)
  local ok, name = pcall(function() return getmetatable(v).__name end)
  return ok and type(name) == "string" and name or type(v)
end

-- Whether v is a live astar object of kind `kind` (a freed one fails reading `read` at 1, 1),
-- w x h when w is given.
local function object(v, kind, read, w, h)
  if type(v) ~= "userdata" or getmetatable(v) ~= MT[kind] or not pcall(v[read], v, 1, 1) then
    return false
  end
  return not w or (v.width == w and v.height == h)
end

-- msg when v is an astar object of kind `kind` that was closed (reading `read` fails), else nil.
local function freed(v, kind, read, msg)
  if type(v) == "userdata" and getmetatable(v) == MT[kind] and not object(v, kind, read) then return msg end
  return nil
end

-- Argument errors name the function and the argument, as the C functions' do. Only
-- picture() calls fail(): level 4 is the caller of ascii() or png().
local function fail(fn, arg, msg)
  error(string.format("bad argument #%d to '%s' (%s)", arg, fn, msg), 4)
end

-- The cell x, y of point p, each read once (an __index of p may answer anything, and
-- differently each time), or nil when it is not a cell of a w x h grid.
local function cell_of(p, w, h)
  if type(p) ~= "table" then return nil end
  local x, y = p.x, p.y
  if type(x) == "number" and type(y) == "number" and x % 1 == 0 and y % 1 == 0 and x >= 1 and y >= 1
    and x <= w and y <= h then
    return x, y
  end
  return nil
end

-- Is p (a table) a list of paths rather than one? Its first entry is then a path: of points
-- (its own first entry a table), or flat of two cells or more (a point {x, y} has two numbers).
local function is_path_list(p)
  local first = rawget(p, 1) -- lists are read raw, as list_length reads them
  if type(first) ~= "table" or first.x ~= nil then return false end
  local inner = rawget(first, 1)
  return type(inner) == "table" or (type(inner) == "number" and list_length(first) > 2)
end

-- Node id -> "start", "goal" or "path" for opts.path (one path or a list of them, each in any
-- form find returns: read_path); nil and why not when it is neither.
local function path_marks(p, w, h)
  if p == nil then return {} end
  if type(p) ~= "table" then return nil, "a path or a list of paths expected, got " .. type(p) end
  local many = is_path_list(p)
  local paths = many and p or { p }
  local marks = {}
  for k = 1, list_length(paths) do
    local path = rawget(paths, k)
    local where = many and string.format("path %d: ", k) or ""
    if type(path) ~= "table" then return nil, string.format("path %d is not a path (a table)", k) end
    local xs, ys, n, cells_ok = read_path(path)
    local why = ys -- read_path's message when xs is nil
    if xs then why = cells_ok(w, h) end
    if why then return nil, where .. why end
    for i = 1, n do
      local id = (ys[i] - 1) * w + xs[i]
      local kind = i == 1 and "start" or i == n and "goal" or "path"
      if marks[id] ~= "start" and marks[id] ~= "goal" then marks[id] = kind end
    end
  end
  return marks
end

-- (x, y) -> boolean from opts.explored: a list of points (read now), a field (the cells it
-- reached: checked by explored_of) or a function; nil and why not otherwise.
local function explored_list(e, w, h)
  if type(e) ~= "table" then return e end
  local set = {}
  for i = 1, list_length(e) do
    local x, y = cell_of(rawget(e, i), w, h)
    if not x then
      return nil, string.format("point %d is not a cell of the %dx%d grid", i, w, h)
    end
    set[(y - 1) * w + x] = true
  end
  return function(x, y) return set[(y - 1) * w + x] == true end
end

local function explored_of(e, w, h)
  if e == nil then return function() return false end end
  if type(e) == "function" then return e end
  if object(e, "field", "distance", w, h) then
    return function(x, y) return e:distance(x, y) ~= nil end
  end
  if object(e, "field", "distance") then return nil, string.format("a field of another size than %dx%d", w, h) end
  if type(e) == "userdata" and getmetatable(e) == MT.field then return nil, "attempt to use a freed astar.Field" end
  return nil, "a list of points, an astar.Field or a function expected, got " .. type_name(e)
end

local OPTIONS = { path = true, explored = true, influence = true, claims = true }

-- Everything a picture reads, checked: { w, h, marks, explored, inf, top, claims, extra }.
-- Read, then resolve (as the C functions do): the options, the points of the paths and of
-- explored are read first (an __index of theirs may close anything), then the objects checked.
local function picture(fn, grid, opts, extra)
  if type(grid) ~= "userdata" or getmetatable(grid) ~= MT.grid then
    fail(fn, 1, "astar.Grid expected, got " .. type_name(grid))
  end
  if opts == nil then opts = {} end
  if type(opts) ~= "table" then fail(fn, 2, "options table or nil expected, got " .. type(opts)) end
  for k in pairs(opts) do
    if not OPTIONS[k] and k ~= extra then fail(fn, 2, "unknown option '" .. tostring(k) .. "'") end
  end
  local w, h = grid.width, grid.height -- a closed grid's size still reads
  local path, explored, inf, claims = opts.path, opts.explored, opts.influence, opts.claims
  local more = extra and opts[extra]
  local marks, why = path_marks(path, w, h)
  if not marks then fail(fn, 2, "option 'path': " .. why) end
  explored, why = explored_list(explored, w, h)
  if why then fail(fn, 2, "option 'explored': " .. why) end
  if not object(grid, "grid", "get_cost") then fail(fn, 1, "attempt to use a freed astar.Grid") end
  explored, why = explored_of(explored, w, h)
  if not explored then fail(fn, 2, "option 'explored': " .. why) end
  if inf ~= nil and not object(inf, "influence", "get", w, h) then
    fail(fn, 2, freed(inf, "influence", "get", "option 'influence' is a freed astar.Influence")
      or string.format("option 'influence' must be an astar.Influence of %dx%d", w, h))
  end
  if claims ~= nil and not object(claims, "claims", "count", w, h) then
    fail(fn, 2, freed(claims, "claims", "count", "option 'claims' is a freed astar.Claims")
      or string.format("option 'claims' must be the astar.Claims of a %dx%d grid", w, h))
  end
  return { w = w, h = h, marks = marks, explored = explored, inf = inf, top = inf and inf:max_abs() or 0,
           claims = claims, extra = more }
end

local SHADES = ":;+*%@" -- positive influence, weakest first
local function shade(v, top)
  if v == 0 or top == 0 then return nil end
  if v < 0 then return "~" end
  local i = math.floor(v / top * #SHADES + 0.5)
  if i < 1 then i = 1 end
  if i > #SHADES then i = #SHADES end
  return SHADES:sub(i, i)
end

--- astar.debug.ascii(grid [, opts]) -> string: one line per row. '#' blocked, '.' cost 1,
--- 2-9 dearer (the cost, rounded down), ',' cheaper; influence ':;+*%@' (stronger) or '~'
--- (negative); 'x' explored; 'c' claimed; 'o' path, 'S' start, 'G' goal. Hex grids shift
--- every second row by half a cell.
function M.ascii(grid, opts)
  local p = picture("ascii", grid, opts)
  local w, h, marks, explored, inf, top, claims = p.w, p.h, p.marks, p.explored, p.inf, p.top, p.claims
  local hex = grid.topology == "hex"
  local lines = {}
  for y = 1, h do
    local row = {}
    for x = 1, w do
      local id = (y - 1) * w + x
      local c
      local mark = marks[id]
      local cost = grid:get_cost(x, y)
      if mark then
        c = mark == "start" and "S" or mark == "goal" and "G" or "o"
      elseif not cost then
        c = "#" -- whatever explored says: a field has a distance on walls (the cost of leaving them)
      elseif claims and claims:count(x, y) > 0 then
        c = "c"
      elseif explored(x, y) then
        c = "x"
      else
        c = inf and shade(inf:get(x, y), top)
        if not c then
          c = cost == 1 and "." or cost < 1 and "," or tostring(math.min(9, math.floor(cost)))
        end
      end
      row[x] = c
    end
    local line = table.concat(row, hex and " " or "")
    if hex and y % 2 == 0 then line = " " .. line end
    lines[y] = line
  end
  return table.concat(lines, "\n")
end

local function blend(a, b, t)
  return { a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t, a[3] + (b[3] - a[3]) * t }
end

local function rgb_bytes(rgb)
  return string.char(math.floor(rgb[1] + 0.5), math.floor(rgb[2] + 0.5), math.floor(rgb[3] + 0.5))
end

--- astar.debug.png(grid [, opts [, filename]]): the picture as PNG, written to filename
--- (returns the number of bytes written) or returned as a string. opts as ascii(), and
--- scale = pixels per cell (default: 1 from 256 cells across, else up to 8; on hexes at
--- least 2). At most 2^25 pixels. Hex grids shift rows 2, 4, ... right by half a cell
--- (scale / 2 pixels, rounded down), as odd-r lays them out, so that neighbours touch.
function M.png(grid, opts, filename)
  local p = picture("png", grid, opts, "scale")
  local w, h, marks, explored, inf, top, claims = p.w, p.h, p.marks, p.explored, p.inf, p.top, p.claims
  local hex = grid.topology == "hex"
  local least = hex and 2 or 1 -- a shift of half a pixel is none: a hex would touch the wrong neighbours
  local scale = p.extra
  if scale == nil then
    local side = math.max(w, h)
    scale = math.max(least, side >= 256 and 1 or math.min(8, math.floor(512 / side)))
  end
  if type(scale) ~= "number" or scale < least or scale > 64 or scale % 1 ~= 0 then
    error("bad argument #2 to 'png' (option 'scale' must be an integer " .. least .. "..64" ..
      (hex and " on a hex grid" or "") .. ", got " .. args.shown(scale) .. ")", 2)
  end
  if filename ~= nil and type(filename) ~= "string" then
    error("bad argument #3 to 'png' (file name or nil expected, got " .. type(filename) .. ")", 2)
  end
  if filename and filename:find("\0", 1, true) then
    -- io.open would cut the name there and write another file
    error("bad argument #3 to 'png' (file name contains a NUL byte)", 2)
  end
  local shift = hex and math.floor(scale / 2) or 0
  local pw, ph = w * scale + shift, h * scale
  if pw * ph > MAX_PIXELS then
    error(string.format("bad argument #2 to 'png' (%dx%d pixels (%dx%d cells at scale %d), more than 2^25;"
      .. " choose a smaller scale)", pw, ph, w, h, scale), 2)
  end
  local C = M.colors
  local margin = rgb_bytes(C.background):rep(shift)
  local rows = {}
  for y = 1, h do
    local cells = {}
    for x = 1, w do
      local id = (y - 1) * w + x
      local cost = grid:get_cost(x, y)
      local rgb
      if not cost then
        rgb = C.blocked
      else
        -- darker with cost (log scale), lighter below 1
        local t = math.log(cost) / math.log(2) / 6
        if t > 0.7 then t = 0.7 elseif t < -0.5 then t = -0.5 end
        rgb = t >= 0 and blend(C.open, { 0, 0, 0 }, t) or blend(C.open, { 255, 255, 255 }, -t)
        if inf and top > 0 then
          local v = inf:get(x, y)
          if v ~= 0 then rgb = blend(rgb, v > 0 and C.positive or C.negative, math.min(1, math.abs(v) / top)) end
        end
        if explored(x, y) then rgb = blend(rgb, C.explored, 0.5) end
        if claims and claims:count(x, y) > 0 then rgb = C.claimed end
      end
      local mark = marks[id]
      if mark then rgb = C[mark] end
      local px = rgb_bytes(rgb)
      cells[x] = scale == 1 and px or px:rep(scale)
    end
    local line = table.concat(cells)
    if shift > 0 then line = y % 2 == 0 and margin .. line or line .. margin end
    for _ = 1, scale do rows[#rows + 1] = line end
  end
  local bytes = core.png_encode(pw, ph, table.concat(rows))
  if filename == nil then return bytes end
  local f, err = io.open(filename, "wb")
  if not f then error(err, 2) end
  local wrote, why = f:write(bytes)
  f:close()
  if not wrote then error(why, 2) end
  return #bytes
end

--- astar.debug.explore(grid, sx, sy, gx, gy [, opts]) -> path, info, looked_at: find, and the
--- cells the search looked at (each cell it generated, once: a node_cost wrapper records
--- them, so the query runs the callback loop and never jump point search).
function M.explore(grid, sx, sy, gx, gy, opts)
  if type(grid) ~= "userdata" or getmetatable(grid) ~= MT.grid then
    error("bad argument #1 to 'explore' (astar.Grid expected, got " .. type_name(grid) .. ")", 2)
  end
  if opts ~= nil and type(opts) ~= "table" then
    error("bad argument #6 to 'explore' (options table or nil expected, got " .. type(opts) .. ")", 2)
  end
  local seen, list, called = {}, {}, false
  local q = {}
  for k, v in pairs(opts or {}) do q[k] = v end -- read first: a __pairs may close the grid
  local user = q.node_cost
  if user ~= nil and type(user) ~= "function" then
    error("bad argument #6 to 'explore' (option 'node_cost' must be a function, got " .. type(user) .. ")", 2)
  end
  if not object(grid, "grid", "get_cost") then
    error("bad argument #1 to 'explore' (attempt to use a freed astar.Grid)", 2)
  end
  local w = grid:size()
  q.node_cost = function(x, y)
    called = true
    local id = (y - 1) * w + x
    if not seen[id] then
      seen[id] = true
      list[#list + 1] = { x = x, y = y }
    end
    if user then return user(x, y) end
  end
  -- Called as a plain function, find numbers its arguments as explore does (grid = #1).
  local ok, path, info = pcall(grid.find, grid, sx, sy, gx, gy, q)
  if not ok then
    local bad_arg = not called and type(path) == "string" and path:match("^bad argument #(%d+) to '[^']*'")
    -- the work limit's error, raised under pcall, has no position: the caller's, as find's has
    if path == "work limit reached" then error(path, 2) end
    if not bad_arg then error(path, 0) end -- a callback's error, unchanged
    error((path:gsub("^bad argument #%d+ to '[^']*'", "bad argument #" .. bad_arg .. " to 'explore'")), 2)
  end
  return path, info, list
end

return M
