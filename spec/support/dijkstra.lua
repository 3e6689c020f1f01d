-- The independent oracle: a brute-force Dijkstra written plainly from the step-cost
-- formula of docs/contract.md. It never calls the library's search.
--
-- A "world" is plain Lua data:
--   { w =, h =, cost = { [y] = { [x] = number or false } }, diagonal = "...",
--     layers = { {vals = {[y] = {[x] = v}}, weight = w}, ... },
--     claims = { {unit = key, path = {{x=,y=},...}, pos = i}, ... },
--     unit = key, claim_penalty = p, claim_radius = r,
--     node_cost = function(x, y), edge_cost = function(x, y, fx, fy),
--     known = { [y] = { [x] = true or false } },  -- fog of war: unknown cells cost 1
--     noise = amount, seed = s,                     -- P(b) += amount * M.noise(s, x, y)
--     topology = "hex",                             -- odd-r hexes: even rows (1-based) sit
--                                                   -- half a cell right; 6 neighbours, L = 1
--     turn_penalty = t,                             -- added to a step that changes heading
--     claim_window = w,                             -- claims count by time (see claim_count)
--     class = { [y] = { [x] = 0..255 } },           -- terrain classes (nil: every cell 0)
--     classes = { [c] = factor or false },          -- the query's: cost * factor (1 when not
--                                                   -- listed); false: the cell is a wall
--     size = n }                                    -- a unit of n x n cells, the path's cell
--                                                   -- its top-left: every cell it covers must
--                                                   -- be walkable (checked one by one), a
--                                                   -- step costs the dearest cell it newly
--                                                   -- covers, a diagonal needs both (or one)
--                                                   -- side positions free as for one cell
local M = {}

local SQRT2 = math.sqrt(2)

-- Costs are fixed point (docs/contract.md): a step's cost is rounded up to a multiple of
-- 2^-32 (steps from 2^19 up stay as they are), so that sums below 2^20 are exact.
local QUANTA = 4294967296 -- 2^32
function M.round_up(x)
  if x < 524288 then return math.ceil(x * QUANTA) / QUANTA end
  return x
end

-- An interest's value as the search counts it: rounded down to a multiple of 2^-32, every
-- allowed value (up to 2^20) included.
function M.round_down(x) return math.floor(x * QUANTA) / QUANTA end

-- Value of a callback: nil -> 0, false or math.huge -> blocked (nil returned).
local function extra_of(v)
  if v == nil then return 0 end
  if v == false or v == math.huge then return nil end
  return v
end

-- How many other units claim (x, y), as the query from (sx, sy) sees it when it
-- enters (x, y) at step `depth` of its path. With claim_window w, a unit at step t
-- of its remaining path (t = 0 where it stands) counts only if |depth - t| <= w,
-- and on its last node for every depth >= t - w (it stays there). A unit that swaps cells
-- with the query's path between two steps (at (x, y) at step depth - 1, then at (ax, ay),
-- where the path comes from, at step depth) meets it too, whatever the window.
local function claim_count(world, ax, ay, x, y, sx, sy, depth)
  local n = 0
  local w = world.claim_window
  for _, c in ipairs(world.claims or {}) do
    if c.unit ~= world.unit then
      local here = c.path[c.pos]
      local in_range = world.claim_radius == nil or
        (math.abs(here.x - sx) <= world.claim_radius and math.abs(here.y - sy) <= world.claim_radius)
      if in_range then
        for i = c.pos, #c.path do
          local t = i - c.pos
          local in_time = w == nil or (depth >= t - w and (i == #c.path or depth <= t + w))
          local after = c.path[i + 1]
          local swap = w ~= nil and t == depth - 1 and after ~= nil and after.x == ax and after.y == ay
          if c.path[i].x == x and c.path[i].y == y and (in_time or swap) then
            n = n + 1
            break -- once per unit
          end
        end
      end
    end
  end
  return n
end

-- Is (dx, dy) a move between neighbours leaving row ay?
local function neighbour_move(world, ay, dx, dy)
  if math.abs(dx) > 1 or math.abs(dy) > 1 or (dx == 0 and dy == 0) then return false end
  if world.topology == "hex" and dx ~= 0 and dy ~= 0 then
    -- even rows (1-based) sit half a cell right: their diagonal neighbours are to the right
    return (ay % 2 == 0) == (dx == 1)
  end
  return true
end

-- A move's heading, for turn_penalty: (dx, dy) on squares, the cube step on hexes.
function M.heading(world, ax, ay, bx, by)
  local dx, dy = bx - ax, by - ay
  if world.topology == "hex" and dy ~= 0 then
    -- cube q of an odd-r cell (0-based) is x - (y - y % 2) / 2
    local function q(x, y) return (x - 1) - ((y - 1) - (y - 1) % 2) / 2 end
    dx = q(bx, by) - q(ax, ay)
  end
  return dx * 3 + dy
end

-- The noise of the `noise` option, from the formula documented in astar.h (0-based x, y;
-- all mod 2^32). Plain arithmetic on numbers below 2^53, so the same file runs on every Lua
-- (no integer operators before 5.3, no bit library in 5.1).
local TWO16, TWO32 = 65536, 4294967296

local function mul32(a, b) -- a * b mod 2^32, for a, b in [0, 2^32)
  local alo, ahi = a % TWO16, math.floor(a / TWO16)
  local blo, bhi = b % TWO16, math.floor(b / TWO16)
  return ((alo * bhi + ahi * blo) % TWO16 * TWO16 + alo * blo) % TWO32
end

local bxor = require("spec.support.bits").bxor

local function xor_shift(h, n) -- h ~ (h >> n), for h in [0, 2^32)
  return bxor(h, math.floor(h / 2 ^ n))
end

function M.noise(seed, x, y)
  local h = (mul32(x % TWO32, 0x9E3779B1) + mul32(y % TWO32, 0x85EBCA77)
    + mul32(seed % TWO32, 0xC2B2AE3D)) % TWO32
  h = xor_shift(h, 16)
  h = mul32(h, 0x7FEB352D)
  h = xor_shift(h, 15)
  h = mul32(h, 0x846CA68B)
  h = xor_shift(h, 16)
  return h / TWO32
end

-- The terrain cost the query sees: unknown cells (fog of war) are open at cost 1; with the
-- query's classes, the cost times its class's factor (a wall where the class is false).
local function terrain(world, x, y)
  if world.known and not world.known[y][x] then return 1 end
  local t = world.cost[y][x]
  if world.classes and t ~= false and t ~= math.huge then
    local f = world.classes[world.class and world.class[y][x] or 0]
    if f == false then return false end
    if f ~= nil then t = t * f end
  end
  return t
end

-- Is (x, y) walkable for this query: inside, terrain, and node_cost not false.
local function walkable(world, x, y)
  if x < 1 or y < 1 or x > world.w or y > world.h then return false end
  local t = terrain(world, x, y)
  if t == false or t == math.huge then return false end
  if world.node_cost and extra_of(world.node_cost(x, y)) == nil then return false end
  return true
end
M.walkable = walkable

-- Can the unit stand with its top-left on (x, y): every cell of its footprint inside and of
-- walkable terrain as the query sees it; node_cost counts at the anchor alone (docs/contract.md,
-- "Units bigger than one cell"), so only the anchor asks it.
local function stands(world, x, y)
  if not walkable(world, x, y) then return false end
  local n = world.size or 1
  for j = 0, n - 1 do
    for i = 0, n - 1 do
      local cx, cy = x + i, y + j
      if cx > world.w or cy > world.h then return false end
      local t = terrain(world, cx, cy)
      if t == false or t == math.huge then return false end
    end
  end
  return true
end
M.stands = stands

-- The terrain a step (ax, ay) -> (bx, by) pays: the dearest cell of b's footprint that a's
-- does not cover (for one cell, b's own).
local function entered(world, ax, ay, bx, by)
  local n, dearest = world.size or 1, 0
  for y = by, by + n - 1 do
    for x = bx, bx + n - 1 do
      local old = x >= ax and x < ax + n and y >= ay and y < ay + n
      if not old then dearest = math.max(dearest, terrain(world, x, y)) end
    end
  end
  return dearest
end

-- Cost of the step (ax, ay) -> (bx, by), or nil when the step is illegal.
-- `depth`: the step of the path that enters b (only claim_window reads it); `turn`: the
-- step changes heading (turn_penalty adds to it before the rounding).
function M.step(world, ax, ay, bx, by, sx, sy, depth, turn)
  local dx, dy = bx - ax, by - ay
  if not neighbour_move(world, ay, dx, dy) then return nil end
  if not stands(world, bx, by) then return nil end
  local len = 1
  if dx ~= 0 and dy ~= 0 and world.topology ~= "hex" then
    local mode = world.diagonal or "no_corner_cut"
    local side1, side2 = stands(world, ax + dx, ay), stands(world, ax, ay + dy)
    if mode == "never" then return nil end
    if mode == "no_corner_cut" and not (side1 and side2) then return nil end
    if mode == "one_walkable" and not (side1 or side2) then return nil end
    len = SQRT2
  end
  local p = 0
  for _, layer in ipairs(world.layers or {}) do
    p = p + layer.vals[by][bx] * (layer.weight or 1)
  end
  p = p + (world.claim_penalty or 5) * claim_count(world, ax, ay, bx, by, sx, sy, depth or 1)
  if world.noise then p = p + world.noise * M.noise(world.seed or 0, bx - 1, by - 1) end
  if world.node_cost then p = p + extra_of(world.node_cost(bx, by)) end
  if world.edge_cost then
    local e = extra_of(world.edge_cost(bx, by, ax, ay))
    if e == nil then return nil end
    p = p + e
  end
  local s = len * entered(world, ax, ay, bx, by) + math.max(0, p)
  if turn and world.turn_penalty then s = s + world.turn_penalty end
  return M.round_up(s)
end

-- A brute-force Dijkstra over the cells: dist[y][x] from (sx, sy) (none: every cell at
-- math.huge), settling the cheapest unsettled cell in turn; step(bx, by, nx, ny) is the cost
-- to relax neighbour (nx, ny) of the settled (bx, by) by, or nil.
local function settle(world, sx, sy, step)
  local dist, done = {}, {}
  for y = 1, world.h do
    dist[y], done[y] = {}, {}
    for x = 1, world.w do dist[y][x] = math.huge end
  end
  if not sx then return dist end
  dist[sy][sx] = 0
  while true do
    local best, bx, by = math.huge, nil, nil
    for y = 1, world.h do
      for x = 1, world.w do
        if not done[y][x] and dist[y][x] < best then best, bx, by = dist[y][x], x, y end
      end
    end
    if not bx then return dist end
    done[by][bx] = true
    for dy = -1, 1 do
      for dx = -1, 1 do
        local nx, ny = bx + dx, by + dy
        local c = step(bx, by, nx, ny)
        if c and best + c < dist[ny][nx] then dist[ny][nx] = best + c end
      end
    end
  end
end

-- Optimal costs from (sx, sy) to every cell: dist[y][x] (math.huge when unreachable).
-- (qx, qy), default (sx, sy): the start of the query whose costs these are (claim_radius
-- is counted from it), for the legs of a path that starts elsewhere.
function M.distances(world, sx, sy, qx, qy)
  qx, qy = qx or sx, qy or sy
  -- costs that depend on the way in need the state-space search (exact_cost)
  assert(not world.turn_penalty and not world.claim_window, "use exact_cost with turns or windows")
  return settle(world, sx, sy, function(bx, by, nx, ny) return M.step(world, bx, by, nx, ny, qx, qy) end)
end

-- Cost of walking from every cell to the goal (the oracle's step, taken backward).
function M.distances_to(world, gx, gy)
  if not stands(world, gx, gy) then return settle(world) end
  return settle(world, gx, gy, function(bx, by, px, py)
    if px >= 1 and py >= 1 and px <= world.w and py <= world.h then return M.step(world, px, py, bx, by, px, py) end
  end)
end

-- The anchors a unit can reach from (sx, sy): seen[y][x] true, by a breadth-first walk over
-- the oracle's own legal steps (every footprint cell and swept corner checked by M.step),
-- costs ignored. A start the unit does not fit on may still be left, as in a query.
function M.reachable(world, sx, sy)
  local seen, queue = {}, { { sx, sy } }
  for y = 1, world.h do seen[y] = {} end
  seen[sy][sx] = true
  local head = 1
  while queue[head] do
    local ax, ay = queue[head][1], queue[head][2]
    head = head + 1
    for dy = -1, 1 do
      for dx = -1, 1 do
        local bx, by = ax + dx, ay + dy
        if (dx ~= 0 or dy ~= 0) and bx >= 1 and by >= 1 and bx <= world.w and by <= world.h
          and not seen[by][bx] and M.step(world, ax, ay, bx, by, sx, sy) then
          seen[by][bx] = true
          queue[#queue + 1] = { bx, by }
        end
      end
    end
  end
  return seen
end

-- The optimal cost from start to goal, or nil when there is no path.
function M.cost(world, sx, sy, gx, gy)
  if not stands(world, gx, gy) then return nil end
  local d = M.distances(world, sx, sy)[gy][gx]
  if d == math.huge then return nil end
  return d
end

-- Checks a path step by step and returns its cost; errors on an illegal step.
function M.path_cost(world, path, sx, sy)
  sx, sy = sx or path[1].x, sy or path[1].y
  local total = 0
  for i = 2, #path do
    local a, b = path[i - 1], path[i]
    local turn = i > 2 and
      M.heading(world, path[i - 2].x, path[i - 2].y, a.x, a.y) ~= M.heading(world, a.x, a.y, b.x, b.y)
    local s = M.step(world, a.x, a.y, b.x, b.y, sx, sy, i - 1, turn)
    if not s then
      error(string.format("illegal step %d: (%d,%d) -> (%d,%d)", i - 1, a.x, a.y, b.x, b.y), 2)
    end
    total = total + s
  end
  return total
end

-- The true optimum when a step's cost depends on the way in (turn_penalty, claim_window):
-- Dijkstra over states (cell, heading of the step in, steps so far). Steps are counted up
-- to the last time a claim window can still change (beyond it, every state of a cell costs
-- the same from there on). nil when there is no path.
function M.exact_cost(world, sx, sy, gx, gy)
  if not walkable(world, gx, gy) then return nil end
  local cap = 0
  if world.claim_window then
    for _, c in ipairs(world.claims or {}) do cap = math.max(cap, #c.path - c.pos) end
    cap = cap + world.claim_window + 1
  end
  local heap, best = {}, {}
  local function push(d, x, y, hd, depth)
    local key = x .. ":" .. y .. ":" .. hd .. ":" .. depth
    if best[key] and best[key] <= d then return end
    best[key] = d
    heap[#heap + 1] = { d, x, y, hd, depth }
    local i = #heap
    while i > 1 and heap[math.floor(i / 2)][1] > heap[i][1] do
      local up = math.floor(i / 2)
      heap[i], heap[up] = heap[up], heap[i]
      i = up
    end
  end
  local function pop()
    local top = heap[1]
    heap[1] = heap[#heap]
    heap[#heap] = nil
    local i = 1
    while true do
      local l, r, m = 2 * i, 2 * i + 1, i
      if l <= #heap and heap[l][1] < heap[m][1] then m = l end
      if r <= #heap and heap[r][1] < heap[m][1] then m = r end
      if m == i then break end
      heap[i], heap[m] = heap[m], heap[i]
      i = m
    end
    return top
  end
  local NO_HEADING = 10 -- headings are dx * 3 + dy in -4..4
  push(0, sx, sy, NO_HEADING, 0)
  while #heap > 0 do
    local top = pop()
    local d, x, y, hd, depth = top[1], top[2], top[3], top[4], top[5]
    if x == gx and y == gy then return d end
    for ny = y - 1, y + 1 do
      for nx = x - 1, x + 1 do
        local nh = M.heading(world, x, y, nx, ny)
        local s = M.step(world, x, y, nx, ny, sx, sy, depth + 1, hd ~= NO_HEADING and nh ~= hd)
        if s then
          push(d + s, nx, ny, world.turn_penalty and nh or 0, math.min(depth + 1, cap))
        end
      end
    end
  end
  return nil
end

-- The best score of a query from (sx, sy) to any of goals ({{x=, y=}, ...}) that may collect
-- one of interests ({{x=, y=, value=}, ...}) on the way: min over goals t of
-- min(d(s, t), min_i d(s, i) + d(i, t) - value_i). Returns the score (nil when no goal is
-- reachable) and every candidate's score, keyed "t" for a goal reached directly and "t:i" for
-- one reached through interest i. An interest on a cell the query cannot enter (the start's
-- too) is never collected; a value counts rounded down (round_down).
function M.interest_score(world, sx, sy, goals, interests)
  local from_start = M.distances(world, sx, sy)
  local scores, best = {}, nil
  local function offer(key, score)
    if score == math.huge then return end
    scores[key] = score
    if not best or score < best then best = score end
  end
  local via = {}
  for i, it in ipairs(interests) do
    if walkable(world, it.x, it.y) and from_start[it.y][it.x] < math.huge then via[i] = M.distances(world, it.x, it.y, sx, sy) end
  end
  for t, goal in ipairs(goals) do
    if walkable(world, goal.x, goal.y) then
      offer(tostring(t), from_start[goal.y][goal.x])
      for i, it in ipairs(interests) do
        if via[i] then
          offer(t .. ":" .. i, from_start[it.y][it.x] + via[i][goal.y][goal.x] - M.round_down(it.value))
        end
      end
    end
  end
  return best, scores
end

-- A small deterministic PRNG (LCG on doubles below 2^53) that gives the same
-- numbers on every Lua version, unlike math.random.
function M.rng(seed)
  local state = seed % 2147483647
  if state <= 0 then state = state + 2147483646 end
  local r = {}
  function r.next() -- uniform in [0, 1)
    state = (state * 48271) % 2147483647
    return (state - 1) / 2147483646
  end
  function r.int(lo, hi) return lo + math.floor(r.next() * (hi - lo + 1)) end
  function r.pick(list) return list[r.int(1, #list)] end
  return r
end

-- A real grid with the world's terrain.
function M.grid(astar, world)
  local g = world.topology == "hex" and astar.grid(world.w, world.h, { topology = "hex" })
    or astar.grid(world.w, world.h, { diagonal = world.diagonal or "no_corner_cut" })
  for y = 1, world.h do
    for x = 1, world.w do
      g:set_cost(x, y, world.cost[y][x])
      if world.class then g:set_class(x, y, world.class[y][x]) end
    end
  end
  return g
end

-- A real fog-of-war mask with the world's known cells revealed.
function M.mask(astar, world)
  local mask = astar.mask(world.w, world.h)
  for y = 1, world.h do
    for x = 1, world.w do
      if world.known[y][x] then mask:reveal(x, y) end
    end
  end
  return mask
end

-- A world from ASCII rows: '.' = 1, '#' = blocked, digits = that cost.
function M.world_from_rows(rows, diagonal)
  local world = { w = #rows[1], h = #rows, cost = {}, diagonal = diagonal }
  for y, row in ipairs(rows) do
    world.cost[y] = {}
    for x = 1, #row do
      local ch = row:sub(x, x)
      if ch == "#" then
        world.cost[y][x] = false
      else
        world.cost[y][x] = tonumber(ch) or 1
      end
    end
  end
  return world
end

M.DIAGONALS = { "never", "always", "one_walkable", "no_corner_cut" }

function M.near(a, b) return math.abs(a - b) <= 1e-9 * math.max(1, math.abs(b)) end

return M
