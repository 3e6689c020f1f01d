-- Argument checks the Lua front's modules share (astar.smooth, astar.scheduler). Internal:
-- not part of the API.
local core = require("astar.core")

local M = {}

-- v's type as Lua's own messages name it: its metatable's __name (an astar object, a FILE*),
-- else type(v). Any metatable may be a mod's: reading it may raise.
local function type_name(v)
  local ok, name = pcall(function() return getmetatable(v).__name end)
  return ok and type(name) == "string" and name or type(v)
end

-- A live grid, or an argument error at `level` (from the caller of check_grid) naming fn. A
-- freed grid (closed by __close) would otherwise fail at its first read, inside this file.
local GRID_MT = getmetatable(core.grid(1, 1))
local function check_grid(grid, fn, arg, level)
  local why
  if type(grid) ~= "userdata" or getmetatable(grid) ~= GRID_MT then
    why = "astar.Grid expected, got " .. type_name(grid)
  elseif not pcall(grid.get_cost, grid, 1, 1) then
    why = "attempt to use a freed astar.Grid"
  end
  if why then error("bad argument #" .. arg .. " to '" .. fn .. "' (" .. why .. ")", level + 1) end
end
M.check_grid = check_grid

-- A build (grid:build_landmarks), or an argument error as check_grid gives.
local BUILD_MT = getmetatable(core.grid(1, 1):build_landmarks(0))
function M.check_build(build, fn, arg, level)
  if type(build) ~= "userdata" or getmetatable(build) ~= BUILD_MT then
    error("bad argument #" .. arg .. " to '" .. fn .. "' (astar.Build expected, got " .. type_name(build) .. ")",
      level + 1)
  end
end

return M
