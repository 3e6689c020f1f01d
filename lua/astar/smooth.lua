-- astar.smooth: line-of-sight string pulling over a grid's terrain (square grids here,
-- hex grids through astar.hex).
local args = require("astar.args")
local check_grid, check_grid_type, read_path = args.check_grid, args.check_grid_type, args.read_path
local hex_trace = require("astar.hex").trace
local core_smooth = require("astar.core").smooth

local M = {}

local SIDES_NEEDED = { never = 3, always = 0, one_walkable = 1, no_corner_cut = 2 }

--- Line-of-sight string pulling: the waypoints of `path` (from grid:find, in any of its forms:
-- points or flat; the waypoints are points) that a
-- unit walking straight from one to the next needs. A straight leg replaces a
-- run of path cells only if every cell it passes through is walkable terrain,
-- costs no more than the dearest cell of that run (so a leg never cuts through
-- a swamp the path went around), and no corner it passes is one the diagonal
-- mode forbids ("never": no corner at all). On hexes, where a leg runs along
-- the edge between two hexes, both must be clear. Terrain only: influence,
-- claims and callbacks of the query are not consulted. Greedy farthest visible:
-- from each waypoint the next is the last cell of the path it may walk straight
-- to. On squares the core does it (astar_grid_smooth): a test of each later cell
-- per waypoint, in O(1) when a blocker met before hides it, else a walk along its
-- line; worst case O(waypoints x path length x line length), about linear in the
-- path in practice (a 1,000-cell path on Paris_0_1024: well under a millisecond).
-- Hexes: every later cell's line is walked (quadratic in the path).
-- opts.diagonal: the mode to respect (default: the grid's; not on hexes).
function M.smooth(grid, path, opts)
  -- Read, then resolve (as the C functions do): the options and every point are read once
  -- (an __index or __pairs of theirs may close the grid) before the grid is checked open.
  check_grid_type(grid, "smooth", 1, 2)
  if type(path) ~= "table" then
    error("bad argument #2 to 'smooth' (table expected, got " .. type(path) .. ")", 2)
  end
  opts = opts or {}
  if type(opts) ~= "table" then
    error("bad argument #3 to 'smooth' (options table or nil expected, got " .. type(opts) .. ")", 2)
  end
  for k in pairs(opts) do
    if k ~= "diagonal" then error("bad argument #3 to 'smooth' (unknown option '" .. tostring(k) .. "')", 2) end
  end
  local diagonal = opts.diagonal
  local xs, ys, n, cells_ok = read_path(path) -- every form find returns; a nil within is a bad point
  if not xs then error("bad argument #2 to 'smooth' (" .. ys .. ")", 2) end
  check_grid(grid, "smooth", 1, 2)
  local hex = grid.topology == "hex"
  if hex and diagonal ~= nil then
    error("bad argument #3 to 'smooth' (option 'diagonal' does not apply to a hex grid)", 2)
  end
  local mode = diagonal or grid.diagonal
  local needed = SIDES_NEEDED[mode]
  if not needed and not hex then
    error("bad argument #3 to 'smooth' (option 'diagonal' must be \"never\", \"always\", " ..
      "\"one_walkable\" or \"no_corner_cut\", got " .. args.shown(mode) .. ")", 2)
  end
  local w, h = grid.width, grid.height
  local why = cells_ok(w, h)
  if why then error("bad argument #2 to 'smooth' (" .. why .. ")", 2) end
  if n == 0 then return {} end
  local out = {}
  if not hex then
    for i, k in ipairs(core_smooth(grid, xs, ys, needed)) do out[i] = { x = xs[k], y = ys[k] } end
    return out
  end
  local function cost(x, y)
    if x < 1 or y < 1 or x > w or y > h then return false end
    return grid:get_cost(x, y)
  end
  local function clear(from, to, limit)
    local function passable(x, y)
      local c = cost(x, y)
      return c and c <= limit
    end
    return hex_trace(xs[from], ys[from], xs[to], ys[to], passable)
  end
  local from = 1
  out[1] = { x = xs[1], y = ys[1] }
  while from < n do
    local best, limit = from + 1, cost(xs[from + 1], ys[from + 1]) or math.huge
    for to = from + 2, n do
      limit = math.max(limit, cost(xs[to], ys[to]) or math.huge)
      if clear(from, to, limit) then best = to end
    end
    out[#out + 1] = { x = xs[best], y = ys[best] }
    from = best
  end
  return out
end

return M
