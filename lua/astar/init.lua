--- astar: fast A* pathfinding for game AI.
-- The C module astar.core does the work; this front is where convenience lives.
local core = require("astar.core")

local astar = {
  _VERSION = "astar " .. core.version,
  version = core.version,
  grid = core.grid,
  influence = core.influence,
  claims = core.claims,
  mask = core.mask,
  graph = core.graph,
  load_movingai = core.load_movingai,
  load_movingai_string = core.load_movingai_string,
  load_scen = core.load_scen,
  load_scen_string = core.load_scen_string,
  debug = require("astar.debug"), -- pictures: ascii(), png(), explore()
  tiled = require("astar.tiled"), -- Tiled maps: grid()
}

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

-- The same for odd-r hexes (pointy-top, rows 2, 4, ... half a cell right): every
-- hex other than the first that the segment between two hex centres touches, an
-- edge or a vertex included, each once. Candidates are a sample point's hex and
-- its six neighbours, samples one unit apart (a hex that touches the segment is
-- within half a unit of a sample, and so borders that sample's hex: hexes that
-- do not border each other are a whole unit apart); each candidate is tested
-- exactly by clipping the segment to its six sides.
local SQRT3 = math.sqrt(3)
local function hex_centre(x, y)
  return SQRT3 * ((x - 1) + ((y - 1) % 2) / 2), 1.5 * (y - 1)
end

local HEX_NORMALS = {}
for k = 0, 5 do HEX_NORMALS[k + 1] = { math.cos(k * math.pi / 3), math.sin(k * math.pi / 3) } end
local INRADIUS = SQRT3 / 2 + 1e-9 -- a hair more: touching counts

local function touches(x, y, ax, ay, dx, dy)
  local cx, cy = hex_centre(x, y)
  local lo, hi = 0, 1
  for k = 1, 6 do
    local n = HEX_NORMALS[k]
    local off = (ax - cx) * n[1] + (ay - cy) * n[2] - INRADIUS
    local rate = dx * n[1] + dy * n[2]
    if rate == 0 then
      if off > 0 then return false end
    elseif rate > 0 then
      hi = math.min(hi, -off / rate)
    else
      lo = math.max(lo, -off / rate)
    end
    if lo > hi then return false end
  end
  return true
end

-- The odd-r hex (1-based) a point of the plane lies in: cube rounding.
local function hex_of(px, py)
  local r = py / 1.5
  local q = px / SQRT3 - r / 2
  local s = -q - r
  local rq, rr, rs = math.floor(q + 0.5), math.floor(r + 0.5), math.floor(s + 0.5)
  local dq, dr, ds = math.abs(rq - q), math.abs(rr - r), math.abs(rs - s)
  if dq > dr and dq > ds then rq = -rr - rs elseif dr > ds then rr = -rq - rs end
  return rq + (rr - rr % 2) / 2 + 1, rr + 1
end

local function hex_trace(x0, y0, x1, y1, visit)
  local ax, ay = hex_centre(x0, y0)
  local bx, by = hex_centre(x1, y1)
  local dx, dy = bx - ax, by - ay
  local samples = math.max(1, math.ceil(math.sqrt(dx * dx + dy * dy))) -- a leg back to its start: 1
  local seen = { [y0 * 65536 + x0] = true }
  for i = 0, samples do
    local hx, hy = hex_of(ax + dx * i / samples, ay + dy * i / samples)
    local lean = hy % 2 == 0 and 0 or -1
    for k = 0, 6 do
      local x, y = hx, hy
      if k == 1 then x = hx - 1 elseif k == 2 then x = hx + 1
      elseif k >= 3 then
        y = k <= 4 and hy - 1 or hy + 1
        x = hx + lean + (k % 2 == 0 and 1 or 0)
      end
      local key = y * 65536 + x
      if not seen[key] and touches(x, y, ax, ay, dx, dy) then
        seen[key] = true
        if not visit(x, y) then return false end
      end
    end
  end
  return true
end

local SIDES_NEEDED = { never = 3, always = 0, one_walkable = 1, no_corner_cut = 2 }

--- Line-of-sight string pulling: the waypoints of `path` (from grid:find) that a
-- unit walking straight from one to the next needs. A straight leg replaces a
-- run of path cells only if every cell it passes through is walkable terrain,
-- costs no more than the dearest cell of that run (so a leg never cuts through
-- a swamp the path went around), and no corner it passes is one the diagonal
-- mode forbids ("never": no corner at all). On hexes, where a leg runs along
-- the edge between two hexes, both must be clear. Terrain only: influence,
-- claims and callbacks of the query are not consulted.
-- opts.diagonal: the mode to respect (default: the grid's; not on hexes).
function astar.smooth(grid, path, opts)
  check_grid(grid, "smooth", 1, 2)
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
  local hex = grid.topology == "hex"
  if hex and opts.diagonal ~= nil then
    error("bad argument #3 to 'smooth' (option 'diagonal' does not apply to a hex grid)", 2)
  end
  local mode = opts.diagonal or grid.diagonal
  local needed = SIDES_NEEDED[mode]
  if not needed and not hex then
    error("bad argument #3 to 'smooth' (option 'diagonal' must be \"never\", \"always\", " ..
      "\"one_walkable\" or \"no_corner_cut\", got " .. tostring(mode) .. ")", 2)
  end
  local w, h = grid.width, grid.height
  for i, p in ipairs(path) do
    if type(p) ~= "table" or type(p.x) ~= "number" or type(p.y) ~= "number" or p.x % 1 ~= 0 or
       p.y % 1 ~= 0 or p.x < 1 or p.y < 1 or p.x > w or p.y > h then
      error("bad argument #2 to 'smooth' (point " .. i .. " is not an {x=, y=} cell of the grid)", 2)
    end
  end
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
    if hex then return hex_trace(path[from].x, path[from].y, path[to].x, path[to].y, passable) end
    return trace(path[from].x, path[from].y, path[to].x, path[to].y, passable, corner)
  end
  if #path == 0 then return {} end
  local out, from = { { x = path[1].x, y = path[1].y } }, 1
  while from < #path do
    local best, limit = from + 1, cost(path[from + 1].x, path[from + 1].y) or math.huge
    for to = from + 2, #path do
      limit = math.max(limit, cost(path[to].x, path[to].y) or math.huge)
      if clear(from, to, limit) then best = to end
    end
    out[#out + 1] = { x = path[best].x, y = path[best].y }
    from = best
  end
  return out
end

--- A frame-budget scheduler over resumable searches (grid:search).
-- Each tick spends at most `budget` expansions (and, with budget_us, stops
-- starting new slices once that much time went by: a slice in progress is
-- finished, so a tick may overrun the time by one slice). Policy:
--  * at most `concurrent` searches run at once (each holds a workspace, about
--    16 bytes per grid cell); the others wait;
--  * a waiting request's rank is its priority plus `aging` for every tick it
--    has waited, so a low priority is served late but never starves; ties go
--    to the older request;
--  * the running searches share a tick's budget round-robin in equal slices,
--    the first one served rotating from tick to tick.
-- A finished request's callback(path, info) runs inside tick, after the
-- scheduler has forgotten the request. A request whose search raises an error
-- (a cost callback fails, an object it reads was freed) ends there, so that
-- one mod's mistake cannot stall everyone else's searches: its callback gets
-- nil, { status = "error", error = <the error value> } and the other requests
-- go on in the same tick. An error in a callback(path, info) propagates out of
-- tick and leaves the scheduler usable: the requests still to be told are told
-- by the next tick (or sched:tell()). cancel may be called at any time, from
-- any callback too.
local Scheduler = {}
Scheduler.__index = Scheduler

local SCHEDULER_OPTIONS = { budget = true, budget_us = true, concurrent = true, aging = true, clock = true }

local function check_positive(value, what, integer, level)
  if type(value) ~= "number" or value <= 0 or value ~= value or value == math.huge or
      (integer and value % 1 ~= 0) then
    error("bad argument #1 to 'scheduler' (option '" .. what .. "' must be a positive " ..
      (integer and "integer" or "number") .. ", got " .. tostring(value) .. ")", level)
  end
end

function astar.scheduler(opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    error("bad argument #1 to 'scheduler' (options table or nil expected, got " .. type(opts) .. ")", 2)
  end
  for k in pairs(opts) do
    if not SCHEDULER_OPTIONS[k] then
      error("bad argument #1 to 'scheduler' (unknown option '" .. tostring(k) .. "')", 2)
    end
  end
  local self = setmetatable({
    budget = opts.budget or 5000, budget_us = opts.budget_us, concurrent = opts.concurrent or 8,
    aging = opts.aging or 1, clock = opts.clock or os.clock,
    waiting = {}, running = {}, by_ticket = {}, next_ticket = 1, ticks = 0, turn = 0,
    untold = {}, -- finished, their callbacks not called yet (one failed before them)
  }, Scheduler)
  check_positive(self.budget, "budget", true, 3)
  check_positive(self.concurrent, "concurrent", true, 3)
  if self.budget_us ~= nil then check_positive(self.budget_us, "budget_us", false, 3) end
  if type(self.aging) ~= "number" or self.aging < 0 or self.aging ~= self.aging then
    error("bad argument #1 to 'scheduler' (option 'aging' must be a number >= 0, got " .. tostring(self.aging) .. ")", 2)
  end
  if type(self.clock) ~= "function" then
    error("bad argument #1 to 'scheduler' (option 'clock' must be a function, got " .. type(self.clock) .. ")", 2)
  end
  return self
end

-- Level 3: the caller of request.
local function request_error(arg, msg)
  error("bad argument #" .. arg .. " to 'request' (" .. msg .. ")", 3)
end

--- sched:request(grid, sx, sy, gx, gy, opts, callback [, priority]) -> ticket
-- The search is checked (and its options read) now; callback(path, info) is
-- called by the tick that finishes it.
function Scheduler:request(grid, sx, sy, gx, gy, opts, callback, priority)
  check_grid(grid, "request", 1, 2)
  local point = { sx, sy, gx, gy }
  for i = 1, 4 do
    if type(point[i]) ~= "number" then request_error(i + 1, "number expected, got " .. type(point[i])) end
  end
  if opts ~= nil and type(opts) ~= "table" then request_error(6, "options table or nil expected, got " .. type(opts)) end
  if type(callback) ~= "function" then request_error(7, "function expected, got " .. type(callback)) end
  if priority == nil then priority = 0 end
  if type(priority) ~= "number" then request_error(8, "number expected, got " .. type(priority)) end
  if priority ~= priority or math.abs(priority) == math.huge then
    request_error(8, "priority must be a finite number, got " .. tostring(priority))
  end
  -- Called as a plain function (not a method) search numbers its arguments as request does,
  -- grid being #1; only the function's name is not request's.
  local ok, job = pcall(grid.search, grid, sx, sy, gx, gy, opts)
  if not ok then
    if type(job) == "string" then job = job:gsub("^bad argument #(%d+) to '[^']*'", "bad argument #%1 to 'request'") end
    error(job, 2)
  end
  local ticket = self.next_ticket
  self.next_ticket = ticket + 1
  local entry = { ticket = ticket, job = job, callback = callback, priority = priority, since = self.ticks }
  self.by_ticket[ticket] = entry
  self.waiting[#self.waiting + 1] = entry
  return ticket
end

--- sched:cancel(ticket) -> true if the request's callback was still to be called (it never
-- will be now)
function Scheduler:cancel(ticket)
  local entry = self.by_ticket[ticket]
  if not entry then return false end
  self.by_ticket[ticket] = nil
  entry.cancelled = true -- for a tick going through its copy of the running list
  for _, list in ipairs({ self.waiting, self.running, self.untold }) do
    for i = #list, 1, -1 do
      if list[i] == entry then table.remove(list, i) end
    end
  end
  return true
end

--- sched:pending() -> requests whose callback has not run yet
function Scheduler:pending()
  return #self.waiting + #self.running + #self.untold
end

-- Calls the callbacks of finished requests, oldest first. If one fails, the
-- rest wait for the next tick.
function Scheduler:tell()
  local told = 0
  while #self.untold > 0 do
    local entry = table.remove(self.untold, 1)
    self.by_ticket[entry.ticket] = nil
    told = told + 1
    if entry.failed then
      entry.callback(nil, { status = "error", error = entry.error })
    else
      entry.callback(entry.job:result())
    end
  end
  return told
end

-- Moves the best-ranked waiting requests into free running slots.
function Scheduler:admit()
  while #self.running < self.concurrent and #self.waiting > 0 do
    local best, best_rank
    for i, entry in ipairs(self.waiting) do
      local rank = entry.priority + (self.ticks - entry.since) * self.aging
      if not best or rank > best_rank or (rank == best_rank and entry.ticket < self.waiting[best].ticket) then
        best, best_rank = i, rank
      end
    end
    self.running[#self.running + 1] = table.remove(self.waiting, best)
  end
end

--- sched:tick([budget]) -> expansions spent, requests finished
function Scheduler:tick(budget)
  if self.stepping then
    -- it would step the search that is running the callback
    error("astar.Scheduler: tick called from a cost callback of one of its searches", 2)
  end
  budget = budget or self.budget
  if type(budget) ~= "number" then
    error("bad argument #1 to 'tick' (number expected, got " .. type(budget) .. ")", 2)
  end
  if budget < 0 or budget % 1 ~= 0 then
    error("bad argument #1 to 'tick' (budget must be an integer >= 0, got " .. tostring(budget) .. ")", 2)
  end
  self.ticks = self.ticks + 1
  local spent, finished = 0, self:tell()
  local started = self.budget_us and self.clock()
  self:admit()
  self.turn = self.turn + 1
  while spent < budget and #self.running > 0 do
    if started and (self.clock() - started) * 1e6 >= self.budget_us then break end
    local list = {} -- a copy: a cost callback may cancel requests while we go through it
    for i, entry in ipairs(self.running) do list[i] = entry end
    local n = #list
    local slice = math.max(1, math.floor((budget - spent) / n))
    local first = self.turn % n + 1
    local served = 0
    for k = 0, n - 1 do
      if spent >= budget then break end
      if started and k > 0 and (self.clock() - started) * 1e6 >= self.budget_us then break end
      local entry = list[(first - 1 + k) % n + 1]
      if not entry.cancelled then
        served = served + 1
        self.stepping = true
        local ok, status, used = pcall(entry.job.step, entry.job, math.min(slice, budget - spent))
        self.stepping = false
        if ok then
          spent = spent + used
          entry.done = status ~= "running"
        else
          entry.done, entry.failed, entry.error = true, true, status
        end
      end
    end
    -- Take the finished ones out first, then tell their owners (a callback may fail).
    local kept = {}
    for _, entry in ipairs(self.running) do
      if entry.done then self.untold[#self.untold + 1] = entry else kept[#kept + 1] = entry end
    end
    self.running = kept
    self:admit()
    finished = finished + self:tell()
    if served == 0 then break end
  end
  return spent, finished
end

return astar
