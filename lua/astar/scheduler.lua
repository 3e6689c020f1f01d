-- astar.scheduler and the objects it makes (sched:request, run, tick, cancel, retarget, stats).
local check_grid = require("astar.args").check_grid
local check_build = require("astar.args").check_build
local shown = require("astar.args").shown
-- os.clock, but for Windows, where it counts milliseconds: the performance counter there (the C
-- module's clock; spec/57).
local default_clock = require("astar.core").clock

local M = {}

--- A frame-budget scheduler over resumable jobs (grid:search, builds, any step/result object).
-- A tick spends at most `budget` expansions and, with budget_us, about that many microseconds:
-- slices are sized from the measured cost of an expansion (per job, and per scheduler for a
-- job not measured yet), a slice is started only while time is left, sized to what is left, so
-- a tick overruns budget_us by at most one small slice (MIN_SLICE expansions, or a new job's
-- first slice of PROBE). Policy:
--  * at most `concurrent` jobs run at once (a search holds a workspace); the others wait;
--  * a waiting request's rank is its priority plus `aging` for every tick it has waited, so a
--    low priority is served late but never starves; ties go to the older request;
--  * the longest-running job takes half of a tick (all of it when alone), the others share the
--    rest round-robin in equal slices, the first of them rotating from tick to tick: every job
--    progresses, and the oldest at half the tick, so a search that a door toggling every few
--    seconds keeps repairing still finishes (issue 26: with equal slices, such searches could
--    hold every slot and never finish);
--  * bounded work whatever callbacks do (issue 27: a tick whose callbacks re-requested a blocked
--    goal never returned): a request made or retargeted during a tick waits for the next one,
--    and every step is charged at least a fixed share of the tick (SHARE of it per concurrent
--    slot), so a tick makes at most about SHARE * concurrent steps even when they expand nothing.
-- A finished request's callback(answer, info) runs inside tick, after the scheduler has
-- forgotten the request. A request whose job raises an error (a cost callback fails, an object
-- it reads was freed) ends there, so that one mod's mistake cannot stall everyone else's
-- searches: its callback gets nil, { status = "error", error = <the error value> } and the
-- other requests go on in the same tick. Every finished request is told exactly once (unless
-- cancelled before its turn), whatever the callbacks told before it did: one whose answer can
-- no longer be read (a callback closed its build or job) gets nil, { status = "error", error =
-- <why> } too; a callback that raises does not stop the others of the same tick from being
-- told, and tick raises the first such error (the value unchanged) once all of them were
-- called, leaving the scheduler usable. cancel and retarget may be called at any time, from
-- any callback too.
-- The jobs the scheduler makes (request, request_field, request_nearest, retarget) are its
-- own: it closes them at cancel, at retarget and once their answer is read, so a workspace goes
-- back to the grid's pool at once, not at the next collection. A job given to run (or a build)
-- stays its owner's: the scheduler never closes it.
local Scheduler = {}
Scheduler.__index = Scheduler
local wait -- (below)

-- The most a step takes (job:step and build:step refuse more than 2^53): a budget may be
-- any integer, and a slice of a larger one is as good as endless.
local MOST_STEP = 2 ^ 53
-- Time slices: the fewest expansions a slice asks for (a step has a fixed cost: a pcall, the
-- clock twice, the C call), and the most a job's first slice asks for, before its own rate is
-- known (a job with Lua cost callbacks may be 50 times slower than the scheduler's average).
local MIN_SLICE, PROBE = 16, 64
-- The first guess of the cost of an expansion, in microseconds, before a scheduler has measured
-- any (plain A* on a big map costs a few tenths; with Lua callbacks, several).
local FIRST_GUESS_US = 1
-- Each step is charged at least budget / (SHARE * concurrent) (expansions, and microseconds with
-- budget_us): a round of every running job is charged at most 1 / SHARE of a tick by that rule.
local SHARE = 4
-- How fast the measured rates forget: per slice, per scheduler and per job.
local DECAY, JOB_DECAY = 0.95, 0.5

-- Every scheduler made (weak keys): stats(into) refuses to write over one.
local SCHEDULERS = setmetatable({}, { __mode = "k" })

local SCHEDULER_OPTIONS = { budget = true, budget_us = true, concurrent = true, aging = true, clock = true }

local function check_positive(value, what, integer, level)
  if type(value) ~= "number" or value <= 0 or value ~= value or value == math.huge or
      (integer and value % 1 ~= 0) then
    error("bad argument #1 to 'scheduler' (option '" .. what .. "' must be a positive " ..
      (integer and "integer" or "number") .. ", got " .. shown(value) .. ")", level)
  end
end

function M.scheduler(opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    error("bad argument #1 to 'scheduler' (options table or nil expected, got " .. type(opts) .. ")", 2)
  end
  for k in pairs(opts) do
    if not SCHEDULER_OPTIONS[k] then
      error("bad argument #1 to 'scheduler' (unknown option '" .. tostring(k) .. "')", 2)
    end
  end
  local budget_us = opts.budget_us
  local self = setmetatable({
    -- With budget_us alone, time is the cap: no expansion budget.
    budget = opts.budget or (budget_us == nil and 5000 or MOST_STEP), budget_us = budget_us,
    concurrent = opts.concurrent or 8, aging = opts.aging or 1, clock = opts.clock or default_clock,
    -- waiting: a binary heap of the waiting requests, best first (see better), with those
    -- cancelled while in it (taken off when they come to the top); held: those made or re-aimed
    -- during a tick, into the heap at the next; nwaiting: the live ones of both.
    waiting = {}, held = {}, nwaiting = 0, running = {}, by_ticket = {}, next_ticket = 1, ticks = 0, turn = 0,
    untold = {}, -- finished, their callbacks not called yet (one failed before them)
    -- The measured cost of an expansion: decayed sums of microseconds and expansions.
    rate_us = FIRST_GUESS_US, rate_n = 1,
    counts = { expansions = 0, finished = 0, steps = 0, last_tick_us = 0, last_expansions = 0,
               most_tick_us = 0 },
  }, Scheduler)
  check_positive(self.budget, "budget", true, 3)
  check_positive(self.concurrent, "concurrent", true, 3)
  if budget_us ~= nil then check_positive(budget_us, "budget_us", false, 3) end
  if type(self.aging) ~= "number" or self.aging < 0 or self.aging ~= self.aging then
    error("bad argument #1 to 'scheduler' (option 'aging' must be a number >= 0, got " .. shown(self.aging) .. ")", 2)
  end
  if type(self.clock) ~= "function" then
    error("bad argument #1 to 'scheduler' (option 'clock' must be a function, got " .. type(self.clock) .. ")", 2)
  end
  SCHEDULERS[self] = true
  return self
end

-- Closes a job the scheduler made (its workspace back to the grid's pool now, not at the next
-- collection: "Closing objects" in the manual). Closing is idempotent; a close that fails
-- (it cannot: the scheduler never closes a job while it steps) must not break the scheduler.
local function close(job)
  -- (an astar object's metatable is a userdata that answers __gc: read it under pcall)
  local ok, gc = pcall(function() return getmetatable(job).__gc end)
  if ok and type(gc) == "function" then pcall(gc, job) end
end

-- A priority or a bad argument error (level 3: the caller of the method).
local function check_priority(priority, fn, arg)
  if priority == nil then return 0 end
  if type(priority) ~= "number" then
    error("bad argument #" .. arg .. " to '" .. fn .. "' (number expected, got " .. type(priority) .. ")", 3)
  end
  if priority ~= priority or math.abs(priority) == math.huge then
    error("bad argument #" .. arg .. " to '" .. fn .. "' (priority must be a finite number, got " ..
      shown(priority) .. ")", 3)
  end
  return priority
end

local function check_callback(callback, fn, arg)
  if type(callback) ~= "function" then
    error("bad argument #" .. arg .. " to '" .. fn .. "' (function expected, got " .. type(callback) .. ")", 3)
  end
end

-- Makes a job with grid's method `method` (a plain call: it numbers its arguments as the
-- scheduler's method does, the grid being #1), its errors renamed to the scheduler's method
-- `fn` and raised at the caller of that method (level 3).
local function make_job(fn, method, grid, ...)
  local ok, job = pcall(grid[method], grid, ...)
  if not ok then
    if type(job) == "string" then job = job:gsub("^bad argument #(%d+) to '[^']*'", "bad argument #%1 to '" .. fn .. "'") end
    error(job, 3)
  end
  return job
end

-- The line of waiting requests. A request's rank is its priority plus `aging` for every tick it
-- has waited: priority + (ticks - since) * aging, whose order is that of priority - since *
-- aging, fixed while it waits (its key); ties go to the older request. A binary heap on it, so
-- that a tick's bookkeeping costs a few steps per request admitted, not a pass over the line
-- (20,000 waiting requests made every tick of a 1.5 ms budget take 18 ms).
local function better(a, b) return a.key > b.key or (a.key == b.key and a.ticket < b.ticket) end

local function heap_push(heap, entry)
  local i = #heap + 1
  heap[i] = entry
  while i > 1 do
    local up = (i - i % 2) / 2
    if not better(entry, heap[up]) then break end
    heap[i], heap[up] = heap[up], entry
    i = up
  end
end

local function heap_pop(heap)
  local n = #heap
  if n == 0 then return nil end
  local top, last = heap[1], heap[n]
  heap[n] = nil
  n = n - 1
  local i = 1
  while n > 0 do
    local c = 2 * i
    if c > n then break end
    if c < n and better(heap[c + 1], heap[c]) then c = c + 1 end
    if not better(heap[c], last) then break end
    heap[i] = heap[c]
    i = c
  end
  if n > 0 then heap[i] = last end
  return top
end

-- Puts entry in line: in the heap, or, made or re-aimed during this tick, with the held.
wait = function(self, entry)
  -- (aging math.huge: every rank is infinite once it has waited a tick, ties to the older; and
  -- 0 * math.huge, for a request made before the first tick, is NaN)
  entry.key = self.aging == math.huge and 0 or entry.priority - entry.since * self.aging
  entry.waiting = true
  self.nwaiting = self.nwaiting + 1
  if entry.held and entry.held >= self.ticks then
    self.held[#self.held + 1] = entry
  else
    heap_push(self.waiting, entry)
  end
end

-- At a tick's start: the requests held by earlier ticks go in line, and the line is rebuilt
-- without the cancelled ones once they are most of it (so it holds at most about twice the
-- requests waiting).
local function release_held(self)
  local line = self.waiting
  if #line > 2 * self.nwaiting + 64 then
    local all = line
    line = {}
    for _, entry in ipairs(all) do
      if entry.waiting then heap_push(line, entry) end
    end
    self.waiting = line
  end
  local held = self.held
  self.held = {}
  for _, entry in ipairs(held) do
    if entry.waiting then heap_push(line, entry) end
  end
end

-- Queues an entry: the job, its step and result (read once, here), who owns the job.
local function queue(self, job, step, result, callback, priority, owned)
  local ticket = self.next_ticket
  self.next_ticket = ticket + 1
  local entry = { ticket = ticket, job = job, step = step, result = result, callback = callback,
                  priority = priority, since = self.ticks, owned = owned }
  -- Made during a tick (from a callback): it waits for the next one.
  if self.ticking then entry.held = self.ticks end
  self.by_ticket[ticket] = entry
  wait(self, entry)
  return ticket
end

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
  check_callback(callback, "request", 7)
  priority = check_priority(priority, "request", 8)
  local job = make_job("request", "search", grid, sx, sy, gx, gy, opts)
  local ticket = queue(self, job, job.step, job.result, callback, priority, true)
  local entry = self.by_ticket[ticket]
  entry.grid, entry.sx, entry.sy, entry.opts = grid, sx, sy, opts -- for retarget
  return ticket
end

-- A grid's job maker that may not exist in this build (grid:field_job, grid:search_nearest).
local function check_maker(grid, fn, method)
  check_grid(grid, fn, 1, 3)
  if type(grid[method]) ~= "function" then
    error("bad argument #1 to '" .. fn .. "' (this astar.Grid has no " .. method .. ")", 3)
  end
end

--- sched:request_field(grid, goals, opts, callback [, priority]) -> ticket
-- A distance field built in slices (grid:field_job); callback(field, info) as
-- grid:distance_field answers.
function Scheduler:request_field(grid, goals, opts, callback, priority)
  check_maker(grid, "request_field", "field_job")
  check_callback(callback, "request_field", 4)
  priority = check_priority(priority, "request_field", 5)
  local job = make_job("request_field", "field_job", grid, goals, opts)
  return queue(self, job, job.step, job.result, callback, priority, true)
end

--- sched:request_nearest(grid, sx, sy, targets, opts, callback [, priority]) -> ticket
-- find_nearest in slices (grid:search_nearest); callback(path, info) as grid:find_nearest answers.
function Scheduler:request_nearest(grid, sx, sy, targets, opts, callback, priority)
  check_maker(grid, "request_nearest", "search_nearest")
  check_callback(callback, "request_nearest", 6)
  priority = check_priority(priority, "request_nearest", 7)
  local job = make_job("request_nearest", "search_nearest", grid, sx, sy, targets, opts)
  return queue(self, job, job.step, job.result, callback, priority, true)
end

-- What the scheduler steps for a build: a table holding it (entry.job of a request is its
-- search; a build's is this table, never closed by the scheduler), the build's step, and its
-- answer once done.
local function build_step(job, n) return job.build:step(n) end
local function build_result(job) return job.build, { status = "done", restarts = job.build:restarts() } end

--- sched:run(job, callback [, priority]) -> ticket
-- Any job: job:step(n) -> status ("running" until done), expansions used; job:result() ->
-- answer, info; or a build (as sched:build). Its step and result are read once, here. The job
-- stays the caller's.
function Scheduler:run(job, callback, priority)
  local is_build = pcall(check_build, job, "run", 1, 1)
  local ok, step, result = true, nil, nil
  if not is_build then ok, step, result = pcall(function() return job.step, job.result end) end
  if not is_build and (not ok or type(step) ~= "function" or type(result) ~= "function") then
    error("bad argument #1 to 'run' (a job with methods step and result expected, got " ..
      (ok and type(job) or tostring(step)) .. ")", 2)
  end
  check_callback(callback, "run", 2)
  priority = check_priority(priority, "run", 3)
  if is_build then return queue(self, { build = job }, build_step, build_result, callback, priority, false) end
  return queue(self, job, step, result, callback, priority, false)
end

--- sched:build(build, callback [, priority]) -> ticket
-- A build (grid:build_landmarks, grid:build_hierarchy) run in the ticks' budgets like a search, sharing them
-- with the running searches (it counts as one of the `concurrent`); callback(build, info)
-- is called by the tick that completes it (its tables then in use), info.status "done".
-- A build that raises (out of memory, its grid freed) ends as a failed search does.
function Scheduler:build(build, callback, priority)
  check_build(build, "build", 1, 2)
  check_callback(callback, "build", 2)
  if priority ~= nil and (type(priority) ~= "number" or priority ~= priority or math.abs(priority) == math.huge) then
    error("bad argument #3 to 'build' (priority must be a finite number, got " .. shown(priority) .. ")", 2)
  end
  return queue(self, { build = build }, build_step, build_result, callback, priority or 0, false)
end

-- Takes entry off every list (off the line it goes when it comes to the top: admit).
local function unlist(self, entry)
  if entry.waiting then
    entry.waiting = false
    self.nwaiting = self.nwaiting - 1
  end
  for _, list in ipairs({ self.running, self.untold }) do
    for i = #list, 1, -1 do
      if list[i] == entry then table.remove(list, i) end
    end
  end
end

-- Closes a job the scheduler owns, unless it is the one stepping (a cancel or retarget from its
-- own cost callback: it cannot be closed from there, "in use by its own step"): tick closes
-- that one after its step returns.
local function drop(self, entry, job)
  if entry.owned and job ~= self.stepping then close(job) end
end

--- sched:cancel(ticket) -> true if the request's callback was still to be called (it never
-- will be now). Closes the job if the scheduler made it.
function Scheduler:cancel(ticket)
  local entry = self.by_ticket[ticket]
  if not entry then return false end
  self.by_ticket[ticket] = nil
  entry.cancelled = true -- for a tick going through its copy of the running list
  unlist(self, entry)
  drop(self, entry, entry.job)
  return true
end

--- sched:retarget(ticket, gx, gy [, sx, sy]) -> true if the ticket was live
-- Re-aims a request made by request: a fresh search to the new goal (and start, when given)
-- with the request's grid and options (read again), keeping its ticket, callback, priority
-- and place in line. The old job is closed. A finished request not told yet is searched again.
function Scheduler:retarget(ticket, gx, gy, sx, sy)
  local entry = self.by_ticket[ticket]
  if not entry then return false end
  if not entry.grid then
    error("bad argument #1 to 'retarget' (ticket " .. shown(ticket) .. " is not a request of a path)", 2)
  end
  local goal = { gx, gy }
  for i = 1, 2 do
    if type(goal[i]) ~= "number" then
      error("bad argument #" .. (i + 1) .. " to 'retarget' (number expected, got " .. type(goal[i]) .. ")", 2)
    end
  end
  if sx ~= nil or sy ~= nil then
    local start = { sx, sy }
    for i = 1, 2 do
      if type(start[i]) ~= "number" then
        error("bad argument #" .. (i + 3) .. " to 'retarget' (number expected, got " .. type(start[i]) .. ")", 2)
      end
    end
  else
    sx, sy = entry.sx, entry.sy
  end
  -- search's arguments: grid #1, sx #2, sy #3, gx #4, gy #5; retarget's: gx #2, gy #3, sx #4, sy #5.
  local ok, job = pcall(entry.grid.search, entry.grid, sx, sy, gx, gy, entry.opts)
  if not ok then
    if type(job) == "string" then
      job = job:gsub("^bad argument #(%d+) to '[^']*'", function(n)
        local ours = ({ "1", "4", "5", "2", "3", "6" })[tonumber(n)] or n
        return "bad argument #" .. ours .. " to 'retarget'"
      end)
    end
    error(job, 2)
  end
  local old = entry.job
  entry.job, entry.step, entry.result, entry.sx, entry.sy = job, job.step, job.result, sx, sy
  entry.done, entry.failed, entry.error, entry.n, entry.t = nil, nil, nil, nil, nil
  if self.ticking then entry.held = self.ticks end
  for i = #self.untold, 1, -1 do -- finished, not told: in line again, with its age
    if self.untold[i] == entry then
      table.remove(self.untold, i)
      wait(self, entry)
    end
  end
  drop(self, entry, old)
  return true
end

--- sched:pending() -> requests whose callback has not run yet
function Scheduler:pending()
  return self.nwaiting + #self.running + #self.untold
end

--- sched:stats([into]) -> { ticks, last_tick_us, most_tick_us, last_expansions, expansions,
-- steps, finished, us_per_expansion, running, waiting, untold, budget, budget_us, concurrent }
function Scheduler:stats(into)
  if into ~= nil and type(into) ~= "table" then
    error("bad argument #1 to 'stats' (table or nil expected, got " .. type(into) .. ")", 2)
  end
  if SCHEDULERS[into] then
    error("bad argument #1 to 'stats' (a scheduler: its own fields would be overwritten)", 2)
  end
  local s, c = into or {}, self.counts
  -- Raw (no garbage either: into is there to make none): an __newindex of into's (a proxy of
  -- the scheduler) could write over the scheduler.
  rawset(s, "ticks", self.ticks)
  rawset(s, "last_tick_us", c.last_tick_us)
  rawset(s, "most_tick_us", c.most_tick_us)
  rawset(s, "last_expansions", c.last_expansions)
  rawset(s, "expansions", c.expansions)
  rawset(s, "steps", c.steps)
  rawset(s, "finished", c.finished)
  rawset(s, "us_per_expansion", self.rate_us / self.rate_n)
  rawset(s, "running", #self.running)
  rawset(s, "waiting", self.nwaiting)
  rawset(s, "untold", #self.untold)
  -- (budget: nil with budget_us alone, which sets no expansion budget)
  rawset(s, "budget", self.budget < MOST_STEP and self.budget or nil)
  rawset(s, "budget_us", self.budget_us)
  rawset(s, "concurrent", self.concurrent)
  return s
end

-- The answer a finished request's callback gets: its job's result, or nil and the error
-- when its job raised or its result can no longer be read (an earlier callback closed the
-- build or the job: the result of a closed object raises).
local function answer(entry)
  if not entry.failed then
    local got = { pcall(entry.result, entry.job) }
    if got[1] then return got[2], got[3] end
    entry.error = got[2]
  end
  return nil, { status = "error", error = entry.error }
end

-- Calls the callbacks of finished requests, oldest first, each once: taken off the list before
-- it runs (a callback may cancel, request, retarget, tick or tell again); a job the scheduler
-- made is closed once its answer is read (the answer's tables stay). Returns the count told
-- and whether a callback raised, with the first error.
local function tell_all(self)
  local told, failed, first = 0, false, nil
  while #self.untold > 0 do
    local entry = table.remove(self.untold, 1)
    self.by_ticket[entry.ticket] = nil
    told = told + 1
    local path, info = answer(entry)
    drop(self, entry, entry.job)
    local ok, err = pcall(entry.callback, path, info)
    if not ok and not failed then failed, first = true, err end
  end
  self.counts.finished = self.counts.finished + told
  return told, failed, first
end

--- sched:tell() -> told. A callback that raises stops none of the others; the first error is
-- raised, unchanged, once every one was called.
function Scheduler:tell()
  local told, failed, first = tell_all(self)
  if failed then error(first, 0) end
  return told
end

-- Moves the best-ranked waiting requests into free running slots (not those made or retargeted
-- during the tick now running: they wait for the next).
function Scheduler:admit()
  while #self.running < self.concurrent do
    local entry = heap_pop(self.waiting)
    if not entry then return end
    -- (one cancelled while in line is dropped here)
    if entry.waiting and entry.held and entry.held >= self.ticks then -- re-aimed during this tick
      self.held[#self.held + 1] = entry
    elseif entry.waiting then
      entry.waiting = false
      self.nwaiting = self.nwaiting - 1
      self.running[#self.running + 1] = entry
    end
  end
end

-- The time a clock reading says, in microseconds (a number of seconds, or an error). Below
-- 2^53 microseconds (285 years), where the difference of two readings is exact: a larger one
-- (1e303 seconds is finite, its microseconds are not) would make the measured rates infinite
-- for good.
local function read_clock(clock)
  local t = clock()
  if type(t) ~= "number" or t ~= t or math.abs(t) * 1e6 >= MOST_STEP then
    error("astar.Scheduler: its clock returned " .. shown(t) .. " (a number of seconds expected)", 0)
  end
  return t * 1e6
end

-- One step of entry: a slice of n. Measures it, charges it (at least `share` expansions and
-- `share_us` microseconds: tick.charged, tick.penalty) and notes whether it finished.
local function step(self, entry, n, t)
  local job, clock = entry.job, self.clock
  local c0 = read_clock(clock)
  local prev, prev_in = self.stepping, self.stepping_in
  self.stepping, self.stepping_in = job, coroutine.running() -- (nil: Lua 5.1's main thread)
  local ok, status, used = pcall(entry.step, job, math.min(n, MOST_STEP))
  self.stepping, self.stepping_in = prev, prev_in
  -- (a clock that raises now raises once the step is accounted for)
  local clock_ok, c1 = pcall(read_clock, clock)
  local clock_error
  if not clock_ok then clock_error, c1 = c1, c0 end
  if ok and (type(used) ~= "number" or not (used >= 0 and used < math.huge) or type(status) ~= "string") then
    ok, status = false, "astar.Scheduler: a job's step returned " .. shown(status) .. ", " .. shown(used) ..
      " (a status and the expansions used expected)"
  end
  used = ok and used or 0
  local dt = math.max(0, c1 - c0)
  t.spent = t.spent + used
  t.charged = t.charged + math.max(used, t.share)
  t.penalty = t.penalty + math.max(0, t.share_us - dt)
  t.steps = t.steps + 1
  -- The rates, in decayed sums (an expansion at least, so a step of none still counts its time).
  local counted = math.max(used, 1)
  self.rate_us, self.rate_n = self.rate_us * DECAY + dt, self.rate_n * DECAY + counted
  entry.t, entry.n = (entry.t or 0) * JOB_DECAY + dt, (entry.n or 0) * JOB_DECAY + counted
  if entry.cancelled or entry.job ~= job then
    -- Cancelled or retarget from inside its step: close the old job now that it returned.
    if entry.owned then close(job) end
  elseif ok then
    entry.done = status ~= "running"
  else
    entry.done, entry.failed, entry.error = true, true, status
  end
  if not clock_ok then error(clock_error, 0) end
end

-- A tick's work, inside a pcall (tick restores the scheduler's state whatever happens).
local function run_tick(self, budget, t)
  local told, failed, first = tell_all(self)
  t.finished = told
  if failed then return failed, first end
  local budget_us = self.budget_us
  release_held(self)
  self:admit()
  self.turn = self.turn + 1
  local stepped = false
  while t.charged < budget and #self.running > 0 do
    local list = {} -- a copy: a cost callback may cancel requests while we go through it
    for i, entry in ipairs(self.running) do list[i] = entry end
    local n = #list
    -- The longest-running job takes half of what is left (all of it when alone), the others
    -- share the rest in equal slices, the first of them rotating from tick to tick.
    local left = budget - t.charged
    local head = n > 1 and math.max(1, math.floor(left / 2)) or left
    local slice = n > 1 and math.max(1, math.floor((left - head) / (n - 1))) or 0
    local left_us = budget_us and budget_us - (read_clock(self.clock) - t.start + t.penalty)
    if left_us and left_us <= 0 and stepped then break end
    local first_k = self.turn % math.max(1, n - 1)
    local served = 0
    for k = 0, n - 1 do
      if t.charged >= budget then break end
      local entry = k == 0 and list[1] or list[(first_k + k - 1) % (n - 1) + 2]
      local size = math.min(k == 0 and head or slice, budget - t.charged)
      if budget_us then
        -- Time left now (the first slice of a tick runs whatever: every tick progresses).
        local now_left = budget_us - (read_clock(self.clock) - t.start + t.penalty)
        if now_left <= 0 and stepped then break end
        local share_us = n > 1 and (k == 0 and left_us / 2 or left_us / 2 / (n - 1)) or left_us
        local rate = entry.n and entry.t / entry.n or self.rate_us / self.rate_n
        rate = math.max(rate, 1e-3)
        local want = math.floor(math.min(share_us, now_left) / rate)
        if not entry.n then want = math.min(want, PROBE) end
        size = math.min(size, math.max(want, MIN_SLICE))
      end
      if not entry.cancelled and not (entry.held and entry.held >= self.ticks) and not entry.done then
        served = served + 1
        stepped = true
        step(self, entry, size, t)
      end
    end
    -- Take the finished ones out first, then tell their owners (a callback may fail).
    local kept = {}
    for _, entry in ipairs(self.running) do
      if entry.done then self.untold[#self.untold + 1] = entry else kept[#kept + 1] = entry end
    end
    self.running = kept
    self:admit()
    told, failed, first = tell_all(self)
    t.finished = t.finished + told
    if failed then return failed, first end
    if served == 0 then break end
  end
  return false
end

--- sched:tick([budget]) -> expansions spent, requests finished
function Scheduler:tick(budget)
  -- A step that yielded (a job of one's own, in a coroutine: Lua 5.2+ yields across pcall) is
  -- not running: its coroutine is suspended or dead, not on the way here. It is left behind (it
  -- kept every later tick refused); the job is stepped again.
  local within = self.stepping_in
  if self.stepping and within and coroutine.status(within) ~= "running" and coroutine.status(within) ~= "normal" then
    self.stepping, self.stepping_in = nil, nil
  end
  if self.stepping then
    -- it would step the search that is running the callback
    error("astar.Scheduler: tick called from a cost callback of one of its searches", 2)
  end
  budget = budget or self.budget
  if type(budget) ~= "number" then
    error("bad argument #1 to 'tick' (number expected, got " .. type(budget) .. ")", 2)
  end
  if budget < 0 or budget % 1 ~= 0 then
    error("bad argument #1 to 'tick' (budget must be an integer >= 0, got " .. shown(budget) .. ")", 2)
  end
  self.ticks = self.ticks + 1
  local was_ticking = self.ticking
  self.ticking = true
  local start = read_clock(self.clock)
  -- share: what a step is charged at least (module comment).
  local t = { start = start, spent = 0, charged = 0, penalty = 0, steps = 0, finished = 0,
              share = math.max(1, math.floor(budget / (SHARE * self.concurrent))),
              share_us = self.budget_us and self.budget_us / (SHARE * self.concurrent) or 0 }
  local ok, failed, first = pcall(run_tick, self, budget, t)
  self.ticking = was_ticking
  local c = self.counts
  local clock_ok, now = pcall(read_clock, self.clock)
  c.last_tick_us = clock_ok and math.max(0, now - start) or 0 -- (a clock may go backwards)
  c.most_tick_us = math.max(c.most_tick_us, c.last_tick_us)
  c.last_expansions, c.expansions, c.steps = t.spent, c.expansions + t.spent, c.steps + t.steps
  if not ok then error(failed, 0) end -- the clock failed
  if failed then error(first, 0) end
  return t.spent, t.finished
end

return M
