-- astar.debug: pictures of a grid for looking at what a search did. ascii() for a terminal
-- or a test's message, png() for a file (the encoder is astar.core.png_encode: stored
-- deflate, so the files are big and need no library). Runs on every Lua (no integer ops).
local core = require("astar.core")

local M = {}

-- The palette of png(), by layer from the bottom; documented in the README.
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
}

-- Argument errors name the function and the argument, as the C functions' do. Only
-- picture() calls fail(): level 4 is the caller of ascii() or png().
local function fail(fn, arg, msg)
  error(string.format("bad argument #%d to '%s' (%s)", arg, fn, msg), 4)
end

local function is_point(p, w, h)
  return type(p) == "table" and type(p.x) == "number" and type(p.y) == "number" and p.x % 1 == 0
    and p.y % 1 == 0 and p.x >= 1 and p.y >= 1 and p.x <= w and p.y <= h
end

-- Node id -> "start", "goal" or "path" for opts.path (one path or a list of them); nil and
-- why not when it is neither.
local function path_marks(p, w, h)
  if p == nil then return {} end
  if type(p) ~= "table" then return nil, "a path {{x=, y=}, ...} or a list of paths expected" end
  local paths = type(p[1]) == "table" and p[1].x == nil and p or { p }
  local marks = {}
  for k, path in ipairs(paths) do
    for i, pt in ipairs(path) do
      if not is_point(pt, w, h) then
        return nil, string.format("path %d, point %d is not a cell of the %dx%d grid", k, i, w, h)
      end
      local id = (pt.y - 1) * w + pt.x
      local kind = i == 1 and "start" or i == #path and "goal" or "path"
      if marks[id] ~= "start" and marks[id] ~= "goal" then marks[id] = kind end
    end
  end
  return marks
end

-- (x, y) -> boolean from opts.explored: a list of points, a field (the cells it reached) or a
-- function; nil and why not otherwise.
local function explored_of(e, w, h)
  if e == nil then return function() return false end end
  if type(e) == "function" then return e end
  if type(e) == "table" then
    local set = {}
    for i, p in ipairs(e) do
      if not is_point(p, w, h) then
        return nil, string.format("point %d is not a cell of the %dx%d grid", i, w, h)
      end
      set[(p.y - 1) * w + p.x] = true
    end
    return function(x, y) return set[(y - 1) * w + x] == true end
  end
  if type(e) == "userdata" and type(e.distance) == "function" and type(e.cells) == "function" then
    return function(x, y) return e:distance(x, y) ~= nil end
  end
  return nil, "a list of points, a field or a function expected"
end

-- An astar object with `method`, the grid's size (a layer or claims of another grid draw
-- nothing sensible).
local function same_size(v, method, w, h)
  if type(v) ~= "userdata" or type(v[method]) ~= "function" then return false end
  local vw, vh = v:size()
  return vw == w and vh == h
end

local OPTIONS = { path = true, explored = true, influence = true, claims = true }

-- Everything a picture reads, checked: { w, h, marks, explored, inf, top, claims }.
local function picture(fn, grid, opts, extra)
  if type(grid) ~= "userdata" or type(grid.get_cost) ~= "function" then
    fail(fn, 1, "astar.Grid expected, got " .. type(grid))
  end
  if opts == nil then opts = {} end
  if type(opts) ~= "table" then fail(fn, 2, "options table or nil expected, got " .. type(opts)) end
  for k in pairs(opts) do
    if not OPTIONS[k] and k ~= extra then fail(fn, 2, "unknown option '" .. tostring(k) .. "'") end
  end
  local w, h = grid:size()
  local marks, why = path_marks(opts.path, w, h)
  if not marks then fail(fn, 2, "option 'path': " .. why) end
  local explored, why_not = explored_of(opts.explored, w, h)
  if not explored then fail(fn, 2, "option 'explored': " .. why_not) end
  local inf, claims = opts.influence, opts.claims
  if inf ~= nil and not same_size(inf, "max_abs", w, h) then
    fail(fn, 2, string.format("option 'influence' must be an astar.Influence of %dx%d", w, h))
  end
  if claims ~= nil and not same_size(claims, "claim", w, h) then
    fail(fn, 2, string.format("option 'claims' must be the astar.Claims of a %dx%d grid", w, h))
  end
  return { w = w, h = h, marks = marks, explored = explored, inf = inf, top = inf and inf:max_abs() or 0,
           claims = claims }
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
      if mark then
        c = mark == "start" and "S" or mark == "goal" and "G" or "o"
      elseif claims and claims:count(x, y) > 0 then
        c = "c"
      elseif explored(x, y) then
        c = "x"
      else
        local cost = grid:get_cost(x, y)
        if not cost then
          c = "#"
        else
          c = inf and shade(inf:get(x, y), top)
          if not c then
            c = cost == 1 and "." or cost < 1 and "," or tostring(math.min(9, math.floor(cost)))
          end
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

--- astar.debug.png(grid [, opts [, filename]]): the picture as PNG, written to filename
--- (returns the number of bytes written) or returned as a string. opts as ascii(), and
--- scale = pixels per cell (default: 1 from 256 cells across, else up to 8).
function M.png(grid, opts, filename)
  local p = picture("png", grid, opts, "scale")
  local w, h, marks, explored, inf, top, claims = p.w, p.h, p.marks, p.explored, p.inf, p.top, p.claims
  local scale = opts and opts.scale
  if scale == nil then
    local side = math.max(w, h)
    scale = side >= 256 and 1 or math.max(1, math.min(8, math.floor(512 / side)))
  end
  if type(scale) ~= "number" or scale < 1 or scale > 64 or scale % 1 ~= 0 then
    error("bad argument #2 to 'png' (option 'scale' must be an integer 1..64, got " .. tostring(scale) .. ")", 2)
  end
  if filename ~= nil and type(filename) ~= "string" then
    error("bad argument #3 to 'png' (file name or nil expected, got " .. type(filename) .. ")", 2)
  end
  local C = M.colors
  local char = string.char
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
      local px = char(math.floor(rgb[1] + 0.5), math.floor(rgb[2] + 0.5), math.floor(rgb[3] + 0.5))
      cells[x] = scale == 1 and px or px:rep(scale)
    end
    local line = table.concat(cells)
    for _ = 1, scale do rows[#rows + 1] = line end
  end
  local bytes = core.png_encode(w * scale, h * scale, table.concat(rows))
  if filename == nil then return bytes end
  local f, err = io.open(filename, "wb")
  if not f then error(err, 2) end
  f:write(bytes)
  f:close()
  return #bytes
end

--- astar.debug.explore(grid, sx, sy, gx, gy [, opts]) -> path, info, looked_at: find, and the
--- cells the search looked at (each cell it generated, once: a node_cost wrapper records
--- them, so the query runs the callback loop and never jump point search).
function M.explore(grid, sx, sy, gx, gy, opts)
  if type(grid) ~= "userdata" or type(grid.get_cost) ~= "function" then
    error("bad argument #1 to 'explore' (astar.Grid expected, got " .. type(grid) .. ")", 2)
  end
  if opts ~= nil and type(opts) ~= "table" then
    error("bad argument #6 to 'explore' (options table or nil expected, got " .. type(opts) .. ")", 2)
  end
  local seen, list = {}, {}
  local q = {}
  for k, v in pairs(opts or {}) do q[k] = v end
  local user = q.node_cost
  local w = grid:size()
  q.node_cost = function(x, y)
    local id = (y - 1) * w + x
    if not seen[id] then
      seen[id] = true
      list[#list + 1] = { x = x, y = y }
    end
    if user then return user(x, y) end
  end
  local path, info = grid:find(sx, sy, gx, gy, q)
  return path, info, list
end

return M
