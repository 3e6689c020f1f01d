-- astar.flee and astar.wander: a path away from threats, a path to a random cell about so far.
-- Built on grid:distance_field, grid:range and range:path only (no loop of their own); the
-- rules, exactly, are in docs/design/flee.md.
local args = require("astar.args")

local M = {}

-- opts read once: each of `own`'s keys by one index (an __index runs once per key), every other
-- option copied raw, so the queries below read only the copy. Returns the copy and the values
-- of `own`'s keys, in order.
local function read_options(opts, fn, own)
  if opts ~= nil and type(opts) ~= "table" then
    error("bad argument #5 to '" .. fn .. "' (table expected, got " .. type(opts) .. ")", 3)
  end
  local copy, mine, skip = {}, {}, {}
  for i, k in ipairs(own) do
    skip[k] = true
    if opts then mine[i] = opts[k] end
  end
  if opts then
    for k, v in next, opts do
      if not skip[k] then copy[k] = v end
    end
  end
  return copy, mine
end

local function number_option(v, name, fn, default, lo, hi)
  if v == nil then return default end
  if type(v) ~= "number" or v ~= v or v < lo or v > hi then
    error("bad argument #5 to '" .. fn .. "' (option '" .. name .. "' must be a number in [" .. lo .. ", "
      .. hi .. "], got " .. tostring(v) .. ")", 3)
  end
  return v
end

-- Cells in a fixed order (y, then x): answers do not depend on the order range lists them in.
local function before(a, b)
  if a.y ~= b.y then return a.y < b.y end
  return a.x < b.x
end

-- The path to cell c of a range, and its info.
local function answer(range, c, info)
  info.status, info.cost, info.x, info.y = "found", c.cost, c.x, c.y
  return range:path(c.x, c.y), info
end

--- A path to a random reachable cell whose cost is about `cost` (docs/design/flee.md).
function M.wander(grid, x, y, cost, opts)
  args.check_grid_type(grid, "wander", 1, 2)
  local q, mine = read_options(opts, "wander", { "tolerance" })
  args.check_grid(grid, "wander", 1, 2)
  if type(cost) ~= "number" or cost ~= cost or cost < 0 or cost == math.huge then
    error("bad argument #4 to 'wander' (cost must be a finite number >= 0, got " .. tostring(cost) .. ")", 2)
  end
  local t = number_option(mine[1], "tolerance", "wander", 0.25, 0, 1)
  local seed = q.seed -- also noise's, when the query has noise: one seed per query
  if seed ~= nil and (type(seed) ~= "number" or seed % 1 ~= 0) then
    error("bad argument #5 to 'wander' (option 'seed' must be an integer, got " .. tostring(seed) .. ")", 2)
  end
  local cells, range, info = grid:range(x, y, cost * (1 + t), q)
  local lo, band, far = cost * (1 - t), {}, {}
  for _, c in ipairs(cells) do
    if c.cost >= lo then band[#band + 1] = c end
    if not far[1] or c.cost > far[1].cost then far = { c } elseif c.cost == far[1].cost then far[#far + 1] = c end
  end
  local pick = #band > 0 and band or far
  table.sort(pick, before)
  -- One Park-Miller step: exact in doubles on every Lua, so lockstep peers pick alike.
  local s = (seed or 0) % 2147483647
  if s == 0 then s = 1 end
  local k = (s * 48271) % 2147483647
  return answer(range, pick[1 + k % #pick],
    { in_band = #band > 0, candidates = #pick, reached = info.reached, expansions = info.expansions })
end

--- A path away from the threats, to a cell at least opts.distance from each (docs/design/flee.md).
function M.flee(grid, x, y, threats, opts)
  args.check_grid_type(grid, "flee", 1, 2)
  local q, mine = read_options(opts, "flee", { "distance", "radius" })
  args.check_grid(grid, "flee", 1, 2)
  local d = number_option(mine[1], "distance", "flee", nil, 0, math.huge)
  if not d or d <= 0 or d == math.huge then
    error("bad argument #5 to 'flee' (option 'distance' must be a finite number > 0, got " .. tostring(d) .. ")", 2)
  end
  local r = number_option(mine[2], "radius", "flee", 2 * d, 0, math.huge)
  -- Threat distances within d only: work grows with d, not with the map.
  local field = grid:distance_field(threats, { max_cost = d, diagonal = q.diagonal })
  local function threat(cx, cy) return field:distance(cx, cy) end
  local t0 = threat(x, y)
  local own_cost = q.node_cost
  if t0 then
    -- Never closer to a threat than the unit stands: cells nearer than t0 are walls.
    q.node_cost = function(cx, cy)
      local extra = own_cost and own_cost(cx, cy)
      if extra == false then return false end
      local tc = threat(cx, cy)
      if tc and tc < t0 then return false end
      return extra
    end
  else
    r = 0 -- already safe: the unit's own cell
  end
  local cells, range, info = grid:range(x, y, r, q)
  local best, best_t
  for _, c in ipairs(cells) do
    local tc = threat(c.x, c.y) or math.huge
    if not best then
      best, best_t = c, tc
    elseif tc >= d then -- safe: the cheapest, then y, x
      if best_t < d or c.cost < best.cost or (c.cost == best.cost and before(c, best)) then best, best_t = c, tc end
    elseif best_t < d then -- none safe yet: the farthest from the threats, then cheapest, y, x
      if tc > best_t or (tc == best_t and (c.cost < best.cost or (c.cost == best.cost and before(c, best)))) then
        best, best_t = c, tc
      end
    end
  end
  return answer(range, best, {
    safe = best_t >= d,
    threat_distance = best_t ~= math.huge and best_t or nil,
    reached = info.reached,
    expansions = info.expansions,
  })
end

return M
