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
-- src/lua/args.c). Raw, as there: a __len may answer anything (NaN, "3", 2.5), and the
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

-- A build (grid:build_landmarks), or an argument error as check_grid gives.
local BUILD_MT = getmetatable(core.grid(1, 1):build_landmarks(0))
function M.check_build(build, fn, arg, level)
  if type(build) ~= "userdata" or getmetatable(build) ~= BUILD_MT then
    error("bad argument #" .. arg .. " to '" .. fn .. "' (astar.Build expected, got " .. type_name(build) .. ")",
      level + 1)
  end
end

return M
