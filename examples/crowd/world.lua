-- A crowd in a frame budget: the world both crowd examples run (examples/crowd.lua prints it,
-- the LÖVE demo examples/love draws it). Every frame (world:frame):
--  * a door may open or close (grid:set_cost): doors are the one-cell gaps in walls;
--  * the danger layer decays and each monster stamps it again where it now stands;
--  * every unit asks whether the world broke its path (check_path with since: a few cells
--    read near what changed) and, if so, asks the scheduler for a new one; a hunter whose prey
--    (a monster) moved away re-aims its request at the prey's new cell;
--  * the scheduler ticks once, within its budget; the paths it finishes come back through each
--    unit's callback.
-- Units walk their paths (flat: x1, y1, x2, y2, ...) at a speed and wait where they asked for a new path until it comes
-- (a unit asking while it walks asks from a cell ahead and walks on to it). Walkers avoid the
-- danger; hunters and monsters ignore it.
--   local world = require("crowd.world").new(astar, { map = "examples/crowd/town.map" })
--   world:frame(1 / 60)   -- one frame: the AI's work, then the units move
local M = {}

-- Moving AI map characters (movingai.com/benchmarks/formats.html): ground at cost 1, swamp
-- passable at a higher cost, the rest blocked.
local LEGEND = { ["."] = 1, G = 1, S = 3, ["@"] = false, O = false, T = false, W = false }
M.LEGEND = LEGEND

--- The rows of a Moving AI map file (CRLF or LF), its width and height.
function M.read_map(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  local rows, width, height, body = {}, nil, nil, false
  for line in (text:gsub("\r", "") .. "\n"):gmatch("([^\n]*)\n") do
    if body then
      if #line > 0 then rows[#rows + 1] = line end
    elseif line == "map" then body = true
    else
      width = width or tonumber(line:match("^width (%d+)"))
      height = height or tonumber(line:match("^height (%d+)"))
    end
  end
  assert(width and height and #rows == height, path .. ": not a Moving AI map")
  return rows, width, height
end

-- A door: an open cell between two '@' walls (left and right, or above and below) whose other
-- two sides are open, and not the middle of a corridor (the cells beyond it are no gap).
local function find_doors(rows, W, H)
  local function at(x, y) return rows[y]:sub(x, x) end
  local function open(x, y) return x >= 1 and y >= 1 and x <= W and y <= H and LEGEND[at(x, y)] end
  local function wall(x, y) return x >= 1 and y >= 1 and x <= W and y <= H and at(x, y) == "@" end
  local doors = {}
  for y = 1, H do
    for x = 1, W do
      if open(x, y) then
        local across = wall(x - 1, y) and wall(x + 1, y) and open(x, y - 1) and open(x, y + 1)
          and not (wall(x - 1, y - 1) and wall(x + 1, y - 1)) and not (wall(x - 1, y + 1) and wall(x + 1, y + 1))
        local along = wall(x, y - 1) and wall(x, y + 1) and open(x - 1, y) and open(x + 1, y)
          and not (wall(x - 1, y - 1) and wall(x - 1, y + 1)) and not (wall(x + 1, y - 1) and wall(x + 1, y + 1))
        if across or along then doors[#doors + 1] = { x = x, y = y, open = true } end
      end
    end
  end
  return doors
end

local World = {}
World.__index = World

--- opts: map (a Moving AI map file), units (200), hunters (of them, 40), monsters (4),
-- seed, budget_us (1500; false: none), budget (expansions per tick), concurrent (8),
-- door_every (frames between door toggles, 30), clock (seconds; default os.clock).
function M.new(astar, opts)
  opts = opts or {}
  local rows, W, H = M.read_map(opts.map)
  local self = setmetatable({
    rows = rows, W = W, H = H, clock = opts.clock or os.clock, budget = opts.budget or 20000,
    rng = opts.seed or 27, frames = 0, door_every = opts.door_every or 30,
    budget_us = opts.budget_us == nil and 1500 or opts.budget_us or nil,
    units = {}, monsters = {}, places = {},
    -- what happened: paths delivered, broken by a door, goals re-aimed, ...
    count = { requests = 0, delivered = 0, no_path = 0, invalid = 0, door_replans = 0, retargets = 0,
      arrivals = 0, door_toggles = 0 },
    -- the AI's time of the last HISTORY frames (ms), a ring: [1 + (frame - 1) % HISTORY]
    ai_ms = {}, tick_ms = {},
  }, World)
  self.grid = astar.grid(W, H)
  self.grid:load(rows, LEGEND)
  self.doors = find_doors(rows, W, H)
  self.danger = astar.influence(W, H)
  -- Level load: every table a query would build on first use, and the scheduler's workspaces.
  self.grid:prepare({ workspaces = opts.concurrent or 8 })
  -- Goals and starts: the cells of the largest island (all doors open), not a pocket walled in
  -- by trees.
  local size, largest = {}, nil
  for y = 1, H do
    for x = 1, W do
      local id = self.grid:component(x, y)
      if id then
        size[id] = (size[id] or 0) + 1
        if not largest or size[id] > size[largest] then largest = id end
      end
    end
  end
  for y = 1, H do
    for x = 1, W do
      if self.grid:component(x, y) == largest then self.places[#self.places + 1] = { x = x, y = y } end
    end
  end
  -- The scheduler: a time budget (budget_us) and a cap in expansions; without budget_us the
  -- work per tick is a fixed count of expansions, and a run is the same on every machine.
  local sched_opts = { budget = self.budget, budget_us = self.budget_us or nil,
    concurrent = opts.concurrent or 8 }
  if self.budget_us then sched_opts.clock = self.clock end
  self.sched = astar.scheduler(sched_opts)
  self.check_opts = { since = 0 } -- reused every frame: no garbage
  -- Units keep flat paths ({x1, y1, x2, y2, ...}): check_path reads a flat path without
  -- making a table per cell (0.7 us against 7.5 us for a point path of 120 cells). Asked of the
  -- scheduler where its requests take path = "flat", else made from the points it gives.
  local p = self.places[1]
  local ok, ticket = pcall(self.sched.request, self.sched, self.grid, p.x, p.y, p.x, p.y, { path = "flat" },
    function() end)
  if ok then self.sched:cancel(ticket) end
  self.flat = ok and "flat" or nil
  self.walker_opts = { influence = self.danger, influence_weight = 2, path = self.flat }
  self.hunter_opts = { path = self.flat }

  local n, hunters = opts.units or 200, opts.hunters or 40
  self.hunters = hunters
  for _ = 1, opts.monsters or 4 do self:add_unit("monster", 3) end
  for i = 1, n do
    local u = self:add_unit(i <= hunters and "hunter" or "walker", i <= hunters and 5 or 4)
    u.prey = i <= hunters and self.monsters[1 + i % #self.monsters] or nil
  end
  return self
end

function World:random(n) -- the same draws on every Lua (products stay below 2^53)
  self.rng = self.rng * 48271 % 2147483647
  return 1 + self.rng % n
end

function World:place()
  local p = self.places[self:random(#self.places)]
  return p.x, p.y
end

function World:add_unit(kind, speed)
  local u = { kind = kind, speed = speed, step = 1, t = 0, wait = 0, version = 0, moves = 0 }
  u.x, u.y = self:place()
  u.sx, u.sy = u.x, u.y -- where it started
  u.opts = kind == "walker" and self.walker_opts or self.hunter_opts
  -- Called by the tick that finishes the unit's request (inside sched:tick).
  u.on_path = function(path, info)
    u.ticket = nil
    self.count.delivered = self.count.delivered + 1
    if path and #path > 0 then
      if not self.flat then path = M.flatten(path) end
      -- Found on the terrain of this moment: checking it must find nothing.
      if self.grid:check_path(path, 1) then self.count.invalid = self.count.invalid + 1 end
      u.answer, u.version = path, info.version or self.grid:version()
    else -- unreachable (a room whose doors are shut): another goal, a little later
      self.count.no_path = self.count.no_path + 1
      u.answer = false
    end
  end
  if kind == "monster" then self.monsters[#self.monsters + 1] = u else self.units[#self.units + 1] = u end
  return u
end

-- Asks for a path to (u.gx, u.gy): from where the unit stands, or from the cell it is walking
-- into (it walks on to it and waits there: u.join).
function World:plan(u, priority)
  local sx, sy = u.x, u.y
  if u.path then
    u.join = math.min(u.step + (u.t > 0 and 1 or 0), #u.path / 2)
    sx, sy = u.path[2 * u.join - 1], u.path[2 * u.join]
  end
  if u.ticket then self.sched:cancel(u.ticket) end
  u.answer = nil
  u.ticket = self.sched:request(self.grid, sx, sy, u.gx, u.gy, u.opts, u.on_path, priority)
  self.count.requests = self.count.requests + 1
end

-- A pending request re-aimed at a goal that moved: retarget where the scheduler has it (the
-- search keeps what it can), else cancelled and made again.
function World:retarget(u, gx, gy)
  u.gx, u.gy = gx, gy
  self.count.retargets = self.count.retargets + 1
  if u.ticket and self.sched.retarget and self.sched:retarget(u.ticket, gx, gy) then return end
  self:plan(u, 1)
end

local function chebyshev(ax, ay, bx, by) return math.max(math.abs(ax - bx), math.abs(ay - by)) end

-- Whether a unit stands in the cell or is stepping into it (a door does not shut on it).
function World:occupied(x, y)
  for _, list in ipairs({ self.units, self.monsters }) do
    for _, u in ipairs(list) do
      if u.x == x and u.y == y then return true end
      if u.path and u.t > 0 and u.path[2 * u.step + 1] == x and u.path[2 * u.step + 2] == y then return true end
    end
  end
  return false
end

--- Opens or shuts a door; false when a unit stands in it.
function World:toggle_door(door)
  if door.open and self:occupied(door.x, door.y) then return false end
  door.open = not door.open
  self.grid:set_cost(door.x, door.y, door.open and 1 or false)
  self.count.door_toggles = self.count.door_toggles + 1
  return true
end

--- The door within r cells of (x, y), nearest first, or nil.
function World:door_near(x, y, r)
  local best, best_d
  for _, d in ipairs(self.doors) do
    local dist = chebyshev(d.x, d.y, x, y)
    if dist <= r and (not best or dist < best_d) then best, best_d = d, dist end
  end
  return best
end

-- One unit's AI for this frame: take a path that came, check the one it walks, re-aim, or
-- choose a new goal.
function World:think(u)
  if u.answer ~= nil and (not u.path or u.step >= u.join) then -- it reached the cell it asked from
    if u.answer then u.path, u.step = u.answer, 1 else u.path, u.wait = nil, 30 end
    u.t, u.answer, u.join = 0, nil, nil
  end
  if u.ticket or u.answer ~= nil then return end
  if u.wait > 0 then u.wait = u.wait - 1; return end
  if u.path then
    self.check_opts.since = u.version
    if self.grid:check_path(u.path, u.step, self.check_opts) then -- a door shut on it
      self.count.door_replans = self.count.door_replans + 1
      return self:plan(u, 2)
    end
  end
  local prey = u.prey
  if prey then -- a hunter: after its prey, re-aimed when the prey got 5 cells from the goal
    if not u.gx or chebyshev(prey.x, prey.y, u.gx, u.gy) > 4 then
      if u.gx then self.count.retargets = self.count.retargets + 1 end
      u.gx, u.gy = prey.x, prey.y
      return self:plan(u, 1)
    end
  elseif not u.path or 2 * u.step == #u.path then -- arrived (or never left): somewhere else
    if u.path then self.count.arrivals = self.count.arrivals + 1 end
    u.gx, u.gy = self:place()
    return self:plan(u, 0)
  end
end

-- A hunter walking toward where its prey was: a prey far from that goal re-aims the request
-- in flight (the unit is waiting for it anyway).
function World:chase(u)
  local prey = u.prey
  if prey and u.ticket and chebyshev(prey.x, prey.y, u.gx, u.gy) > 4 then
    self:retarget(u, prey.x, prey.y)
  end
end

--- A point path as a flat one.
function M.flatten(points)
  local flat = {}
  for i, p in ipairs(points) do flat[2 * i - 1], flat[2 * i] = p.x, p.y end
  return flat
end

-- The length of the step from cell i of a flat path to the next.
local function step_length(path, i)
  return (path[2 * i - 1] ~= path[2 * i + 1] and path[2 * i] ~= path[2 * i + 2]) and 1.4142 or 1
end

-- Walks a unit along its path at its speed, up to the cell it waits at while it asks (u.join).
local function walk(u, dt)
  if not u.path then return end
  local limit = #u.path / 2
  if u.ticket or u.answer ~= nil then limit = math.min(limit, u.join) end
  if u.step >= limit then u.t = 0; return end
  u.t = u.t + u.speed * dt / step_length(u.path, u.step)
  while u.t >= 1 and u.step < limit do
    u.step = u.step + 1
    u.x, u.y = u.path[2 * u.step - 1], u.path[2 * u.step]
    u.moves = u.moves + 1
    u.t = u.step < limit and (u.t - 1) * step_length(u.path, u.step - 1) / step_length(u.path, u.step) or 0
  end
end

local HISTORY = 240
M.HISTORY = HISTORY

--- One frame of dt seconds: the AI (timed), then the units walk. Returns the AI's ms.
function World:frame(dt)
  local clock = self.clock
  self.frames = self.frames + 1
  if self.door_every > 0 and #self.doors > 0 and self.frames % self.door_every == 0 then
    self:toggle_door(self.doors[self:random(#self.doors)])
  end
  local t0 = clock()
  self.danger:decay(0.9)
  for _, m in ipairs(self.monsters) do self.danger:stamp(m.x, m.y, 6, 4) end
  for _, m in ipairs(self.monsters) do self:think(m) end
  for _, u in ipairs(self.units) do
    self:think(u)
    self:chase(u)
  end
  local t1 = clock()
  self.sched:tick()
  local t2 = clock()
  local slot = 1 + (self.frames - 1) % HISTORY
  self.ai_ms[slot], self.tick_ms[slot] = (t2 - t0) * 1000, (t2 - t1) * 1000
  for _, m in ipairs(self.monsters) do walk(m, dt) end
  for _, u in ipairs(self.units) do walk(u, dt) end
  return self.ai_ms[slot]
end

--- The recorded AI ms of the last frames (up to HISTORY), oldest first, and the tick's share.
function World:history()
  local ai, tick, n = {}, {}, math.min(self.frames, HISTORY)
  for i = 1, n do
    local slot = 1 + (self.frames - n + i - 1) % HISTORY
    ai[i], tick[i] = self.ai_ms[slot], self.tick_ms[slot]
  end
  return ai, tick
end

--- Median, 99th percentile and max of a list of numbers.
function M.summary(list)
  local sorted = {}
  for i, v in ipairs(list) do sorted[i] = v end
  table.sort(sorted)
  local n = #sorted
  if n == 0 then return 0, 0, 0 end
  return sorted[math.ceil(n / 2)], sorted[math.ceil(n * 0.99)], sorted[n]
end

--- The scheduler's own figures when it has sched:stats() (a table), else nil.
function World:sched_stats()
  if self.sched.stats then return self.sched:stats() end
  return nil
end

return M
