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

local function is_path(t) return type(t) == "table" and type(t[1]) == "table" and t[1].x ~= nil end

-- The paths of opts.path: one path, or a list of them.
local function paths_of(opts)
  local p = opts.path
  if p == nil then return {} end
  if is_path(p) then return { p } end
  if type(p) == "table" and (p[1] == nil or is_path(p[1])) then return p end
  error("bad option 'path' (a path {{x=, y=}, ...} or a list of paths expected)", 3)
end

-- A function (x, y) -> boolean from opts.explored: a list of points, a field (the cells it
-- reached) or a function.
local function explored_of(opts, w)
  local e = opts.explored
  if e == nil then return function() return false end end
  if type(e) == "function" then return e end
  if type(e) == "table" then
    local set = {}
    for _, p in ipairs(e) do set[(p.y - 1) * w + p.x] = true end
    return function(x, y) return set[(y - 1) * w + x] == true end
  end
  if type(e) == "userdata" and type(e.distance) == "function" then
    return function(x, y) return e:distance(x, y) ~= nil end
  end
  error("bad option 'explored' (a list of points, a field or a function expected)", 3)
end

-- Marks of the paths: "start", "goal" or "path" per node id.
local function path_marks(paths, w)
  local marks = {}
  for _, path in ipairs(paths) do
    for i, p in ipairs(path) do
      local id = (p.y - 1) * w + p.x
      local kind = i == 1 and "start" or i == #path and "goal" or "path"
      if marks[id] ~= "start" and marks[id] ~= "goal" then marks[id] = kind end
    end
  end
  return marks
end

local function check_grid(grid)
  if type(grid) ~= "userdata" or type(grid.get_cost) ~= "function" then
    error("bad argument #1 (astar.Grid expected, got " .. type(grid) .. ")", 3)
  end
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
  check_grid(grid)
  opts = opts or {}
  local w, h = grid:size()
  local marks = path_marks(paths_of(opts), w)
  local explored = explored_of(opts, w)
  local inf, claims = opts.influence, opts.claims
  local top = inf and inf:max_abs() or 0
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
  check_grid(grid)
  opts = opts or {}
  local w, h = grid:size()
  local scale = opts.scale
  if scale == nil then
    local side = math.max(w, h)
    scale = side >= 256 and 1 or math.max(1, math.min(8, math.floor(512 / side)))
  end
  if type(scale) ~= "number" or scale < 1 or scale > 64 or scale % 1 ~= 0 then
    error("bad option 'scale' (an integer 1..64 expected, got " .. tostring(scale) .. ")", 2)
  end
  local marks = path_marks(paths_of(opts), w)
  local explored = explored_of(opts, w)
  local inf, claims = opts.influence, opts.claims
  local top = inf and inf:max_abs() or 0
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
  check_grid(grid)
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
