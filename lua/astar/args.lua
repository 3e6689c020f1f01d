-- Argument checks the Lua front's modules share (astar.smooth, astar.scheduler, astar.debug).
-- Internal: not part of the API.
local core = require("astar.core")

local M = {}

-- v's type as Lua's own messages name it: its metatable's __name (an astar object, a FILE*),
-- else type(v). Any metatable may be a mod's: reading it may raise.
local function type_name(v)
  local ok, name = pcall(function() return getmetatable(v).__name end)
  return ok and type(name) == "string" and name or type(v)
end

-- v as a message shows it: tostring(v), but a NaN is "nan" and the infinities "inf" and "-inf" on
-- every platform, as the binding spells them (tostring says what the C library prints: "-nan" or
-- "nan" by the sign bit with glibc, "1.#INF" with old Windows runtimes).
function M.shown(v)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  return tostring(v)
end

-- A grid, or an argument error at `level` (from the caller) naming fn. Runs no code of the
-- caller's: a function taking tables checks the type of its grid first, reads its tables
-- (whose metamethods may close the grid), then checks it is open (check_grid).
local GRID_MT = getmetatable(core.grid(1, 1))
local function arg_error(fn, arg, why, level)
  error("bad argument #" .. arg .. " to '" .. fn .. "' (" .. why .. ")", level + 1)
end
local function check_grid_type(grid, fn, arg, level)
  if type(grid) ~= "userdata" or getmetatable(grid) ~= GRID_MT then
    arg_error(fn, arg, "astar.Grid expected, got " .. type_name(grid), level + 1)
  end
end
M.check_grid_type = check_grid_type

-- A live grid, or an argument error as check_grid_type gives. A freed grid (closed by __close)
-- would otherwise fail at its first read, inside this file.
function M.check_grid(grid, fn, arg, level)
  check_grid_type(grid, fn, arg, level + 1)
  if not pcall(grid.get_cost, grid, 1, 1) then arg_error(fn, arg, "attempt to use a freed astar.Grid", level + 1) end
end

-- How far a reader of list t goes: its raw length, but never past its first nil (then the last
-- entry read, reported as a bad one). The raw length may be any border of the table, far
-- beyond what it holds (2^52 on Lua 5.4 for a few dozen keys {[2^k] = ..., [2^k + 1] = ...}):
-- reading a list costs the entries present, as the binding's readers do (list_length in
-- src/lua/largs.c). Raw, as there: a __len may answer anything (NaN, "3", 2.5), and the
-- readers take the entries with rawget (M.entry). Lua 5.1 has no rawlen, but its # of a
-- table never calls __len.
local rawlen = rawlen or function(t) return #t end -- luacheck: ignore 143
function M.list_length(t)
  local n = rawlen(t)
  for i = 1, n do
    if rawget(t, i) == nil then return i end
  end
  return n
end

-- The cells of a path in every form find returns (path = "points" or "flat", into = t), as the
-- binding reads them (open_path in src/lua/largs.c), with its messages: points {x=, y=} or
-- {x, y}, or flat {x1, y1, x2, y2, ...}, told by its first entry being a number. Returns xs,
-- ys, n and a check(w, h) that answers nil or why the cells are not all of a w x h grid; or
-- nil and why not (a point that is not a table). The list is read raw to its first hole
-- (list_length), each point's coordinates once: x, else [1] (an __index may run), before the
-- caller checks its grid open.
function M.read_path(path)
  local xs, ys = {}, {}
  local len = M.list_length(path)
  local flat = type(rawget(path, 1)) == "number"
  local n = flat and math.floor((len + 1) / 2) or len
  if flat then
    for i = 1, n do xs[i], ys[i] = rawget(path, 2 * i - 1), rawget(path, 2 * i) end
  else
    for i = 1, n do
      local p = rawget(path, i)
      if type(p) ~= "table" then
        return nil, string.format("path point %d must be a point {x=, y=}, got %s", i, type_name(p))
      end
      local x, y = p.x, p.y
      if x == nil then x = rawget(p, 1) end
      if y == nil then y = rawget(p, 2) end
      xs[i], ys[i] = x, y
    end
  end
  local function check(w, h)
    for i = 1, n do
      local x, y = xs[i], ys[i]
      if type(x) ~= "number" or type(y) ~= "number" or x % 1 ~= 0 or y % 1 ~= 0 or x < 1 or y < 1 or x > w
        or y > h then
        if not flat then return string.format("path point %d is not a cell of the %dx%d grid", i, w, h) end
        if len % 2 == 1 and 2 * i - 1 == len and rawget(path, len + 1) == nil then
          return "a flat path needs two numbers per cell, got " .. len
        end
        return string.format("flat path cell %d is not a cell of the %dx%d grid", i, w, h)
      end
    end
    return nil
  end
  return xs, ys, n, check
end

-- A build (grid:build_landmarks), or an argument error as check_grid gives.
local BUILD_MT = getmetatable(core.grid(1, 1):build_landmarks(0))
function M.check_build(build, fn, arg, level)
  if type(build) ~= "userdata" or getmetatable(build) ~= BUILD_MT then
    error("bad argument #" .. arg .. " to '" .. fn .. "' (astar.Build expected, got " .. type_name(build) .. ")",
      level + 1)
  end
end

return M
