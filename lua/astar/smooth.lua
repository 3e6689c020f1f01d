-- astar.smooth: line-of-sight string pulling over a grid's terrain (square grids here,
-- hex grids through astar.hex).
local args = require("astar.args")
local check_grid, check_grid_type, read_path = args.check_grid, args.check_grid_type, args.read_path
local hex_trace = require("astar.hex").trace

local M = {}

-- The cells a segment between two cell centres passes through, in order, as
-- visit(x, y) calls; a step through a grid vertex (a diagonal move between two
-- cells that share only a corner) first calls corner(x1, y1, x2, y2) with the
-- two side cells. Stops early, returning false, when a call returns false.
-- Integer arithmetic: the boundary crossings are compared as (1 + 2i) * |dy|
-- against (1 + 2j) * |dx|.
local function trace(x0, y0, x1, y1, visit, corner)
  local dx, dy = x1 - x0, y1 - y0
  local sx, sy = dx < 0 and -1 or 1, dy < 0 and -1 or 1
  local ax, ay = math.abs(dx), math.abs(dy)
  local x, y, i, j = x0, y0, 0, 0
  while i < ax or j < ay do
    local tx, ty = (1 + 2 * i) * ay, (1 + 2 * j) * ax -- when the next x / y boundary comes
    if j >= ay or (i < ax and tx < ty) then
      x, i = x + sx, i + 1
    elseif i >= ax or ty < tx then
      y, j = y + sy, j + 1
    else
      if not corner(x + sx, y, x, y + sy) then return false end
      x, y, i, j = x + sx, y + sy, i + 1, j + 1
    end
    if not visit(x, y) then return false end
  end
  return true
end

local SIDES_NEEDED = { never = 3, always = 0, one_walkable = 1, no_corner_cut = 2 }

--- Line-of-sight string pulling: the waypoints of `path` (from grid:find, in any of its forms:
-- points or flat; the waypoints are points) that a
-- unit walking straight from one to the next needs. A straight leg replaces a
-- run of path cells only if every cell it passes through is walkable terrain,
-- costs no more than the dearest cell of that run (so a leg never cuts through
-- a swamp the path went around), and no corner it passes is one the diagonal
-- mode forbids ("never": no corner at all). On hexes, where a leg runs along
-- the edge between two hexes, both must be clear. Terrain only: influence,
-- claims and callbacks of the query are not consulted.
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
      "\"one_walkable\" or \"no_corner_cut\", got " .. tostring(mode) .. ")", 2)
  end
  local w, h = grid.width, grid.height
  local why = cells_ok(w, h)
  if why then error("bad argument #2 to 'smooth' (" .. why .. ")", 2) end
  local function cost(x, y)
    if x < 1 or y < 1 or x > w or y > h then return false end
    return grid:get_cost(x, y)
  end
  local function corner(ax, ay, bx, by)
    local open = (cost(ax, ay) and 1 or 0) + (cost(bx, by) and 1 or 0)
    return open >= needed
  end
  local function clear(from, to, limit)
    local function passable(x, y)
      local c = cost(x, y)
      return c and c <= limit
    end
    if hex then return hex_trace(xs[from], ys[from], xs[to], ys[to], passable) end
    return trace(xs[from], ys[from], xs[to], ys[to], passable, corner)
  end
  if n == 0 then return {} end
  local out, from = { { x = xs[1], y = ys[1] } }, 1
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
