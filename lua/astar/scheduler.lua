-- astar.scheduler and the objects it makes (sched:request, tick, cancel, pending).
local check_grid = require("astar.args").check_grid
local check_build = require("astar.args").check_build

local M = {}

--- A frame-budget scheduler over resumable searches (grid:search).
-- Each tick spends at most `budget` expansions (and, with budget_us, stops
-- starting new slices once that much time went by: a slice in progress is
-- finished, so a tick may overrun the time by one slice). Policy:
--  * at most `concurrent` searches run at once (each holds a workspace, about
--    16 bytes per grid cell); the others wait;
--  * a waiting request's rank is its priority plus `aging` for every tick it
--    has waited, so a low priority is served late but never starves; ties go
--    to the older request;
--  * the longest-running search takes half of a tick's budget (all of it when
--    alone), the others share the rest round-robin in equal slices, the first
--    of them rotating from tick to tick: every search progresses every tick,
--    and the oldest at half the budget, so a search that a door toggling every
--    few seconds keeps repairing still finishes (issue 26: with equal slices,
--    such searches could hold every slot and never finish).
-- A finished request's callback(path, info) runs inside tick, after the
-- scheduler has forgotten the request. A request whose search raises an error
-- (a cost callback fails, an object it reads was freed) ends there, so that
-- one mod's mistake cannot stall everyone else's searches: its callback gets
-- nil, { status = "error", error = <the error value> } and the other requests
-- go on in the same tick. Every finished request is told exactly once (unless
-- cancelled before its turn), whatever the callbacks told before it did: one
-- whose answer can no longer be read (a callback closed its build or job)
-- gets nil, { status = "error", error = <why> } too; a callback that raises
-- does not stop the others of the same tick from being told, and tick raises
-- the first such error (the value unchanged) once all of them were called,
-- leaving the scheduler usable. cancel may be called at any time, from any
-- callback too.
local Scheduler = {}
Scheduler.__index = Scheduler

-- The most a step takes (job:step and build:step refuse more than 2^53): a budget may be
-- any integer, and a slice of a larger one is as good as endless.
local MOST_STEP = 2 ^ 53

local SCHEDULER_OPTIONS = { budget = true, budget_us = true, concurrent = true, aging = true, clock = true }

local function check_positive(value, what, integer, level)
  if type(value) ~= "number" or value <= 0 or value ~= value or value == math.huge or
      (integer and value % 1 ~= 0) then
    error("bad argument #1 to 'scheduler' (option '" .. what .. "' must be a positive " ..
      (integer and "integer" or "number") .. ", got " .. tostring(value) .. ")", level)
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

-- What the scheduler steps for a build: a build's step, and its answer once done.
local function build_job(build)
  local job = {}
  function job.step(_, n) return build:step(n) end
  function job.result() return build, { status = "done", restarts = build:restarts() } end
  return job
end

--- sched:build(build, callback [, priority]) -> ticket
-- A build (grid:build_landmarks, grid:build_hierarchy) run in the ticks' budgets like a search, sharing them
-- with the running searches (it counts as one of the `concurrent`); callback(build, info)
-- is called by the tick that completes it (its tables then in use), info.status "done".
-- A build that raises (out of memory, its grid freed) ends as a failed search does.
function Scheduler:build(build, callback, priority)
  check_build(build, "build", 1, 2)
  if type(callback) ~= "function" then
    error("bad argument #2 to 'build' (function expected, got " .. type(callback) .. ")", 2)
  end
  if priority == nil then priority = 0 end
  if type(priority) ~= "number" or priority ~= priority or math.abs(priority) == math.huge then
    error("bad argument #3 to 'build' (priority must be a finite number, got " .. tostring(priority) .. ")", 2)
  end
  local ticket = self.next_ticket
  self.next_ticket = ticket + 1
  local entry = { ticket = ticket, job = build_job(build), callback = callback, priority = priority, since = self.ticks }
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

-- The answer a finished request's callback gets: its job's result, or nil and the error
-- when its search raised or its result can no longer be read (an earlier callback closed the
-- build or the job: the result of a closed object raises).
local function answer(entry)
  if not entry.failed then
    local got = { pcall(entry.job.result, entry.job) }
    if got[1] then return got[2], got[3] end
    entry.error = got[2]
  end
  return nil, { status = "error", error = entry.error }
end

-- Calls the callbacks of finished requests, oldest first, each once: taken off the list before
-- it runs (a callback may cancel, request, tick or tell again). A callback that raises stops
-- none of the others; the first error is raised, unchanged, once every one was called.
function Scheduler:tell()
  local told, failed, first = 0, false, nil
  while #self.untold > 0 do
    local entry = table.remove(self.untold, 1)
    self.by_ticket[entry.ticket] = nil
    told = told + 1
    local ok, err = pcall(entry.callback, answer(entry))
    if not ok and not failed then failed, first = true, err end
  end
  if failed then error(first, 0) end
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
    -- The longest-running search takes half of what is left (all of it when alone), the others
    -- share the rest in equal slices, the first of them rotating from tick to tick.
    local left = budget - spent
    local head = n > 1 and math.max(1, math.floor(left / 2)) or left
    local slice = n > 1 and math.max(1, math.floor((left - head) / (n - 1))) or 0
    local first = self.turn % math.max(1, n - 1)
    local served = 0
    for k = 0, n - 1 do
      if spent >= budget then break end
      if started and k > 0 and (self.clock() - started) * 1e6 >= self.budget_us then break end
      local entry = k == 0 and list[1] or list[(first + k - 1) % (n - 1) + 2]
      if not entry.cancelled then
        served = served + 1
        self.stepping = true
        local ok, status, used =
          pcall(entry.job.step, entry.job, math.min(k == 0 and head or slice, budget - spent, MOST_STEP))
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

return M
