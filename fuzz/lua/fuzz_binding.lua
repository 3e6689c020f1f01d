-- A Lua-level fuzzer of the binding (issue 15, "Safe for mods"): random sequences of public
-- calls whose option tables, point tables and cost callbacks misbehave on purpose -- close
-- objects mid-call, collect garbage, answer differently on every read, return wrong types,
-- raise, call back into the library -- each call under pcall. An error is fine; a crash, a
-- sanitizer report, a leak or a wrong answer is not. After every step, invariants: objects
-- not closed still work (a fresh query on a small grid must match a plain Dijkstra written
-- here), closed objects raise errors.
--
--   lua5.4 fuzz/lua/fuzz_binding.lua [--seconds N] [--seed S] [--runs N] [--steps K]
--        [--seeds FILE] [--no-replay] [--crashers] [--strict] [--disable a,b] [--bombs]
--        [--trace] [--errors] [--state FILE]
--
-- The seeds of fuzz/lua/seeds.txt are replayed first (--crashers: also its "#!" lines, the
-- seeds that crashed the binding), then seeds S, S+1, ... (default 1) are explored for
-- --seconds (default 10) or --runs runs, --steps actions each (default 40). The seeds file's
-- "known" line disables checks the current binding is known to fail (--strict: keeps them);
-- --disable turns off more checks or actions by name, to look past a known bug. --bombs
-- adds garbage whose finalizers run chaos (not reproducible: see plant_bombs). --trace
-- prints every call, --errors a histogram of the errors caught, --state FILE keeps the
-- current seed and step in FILE (a crash leaves no chance to print them).
-- Plain Lua for 5.1-5.4 and LuaJIT: its own PRNG, no pairs() where order would matter, so a
-- seed replays the same calls on every run of the same binding. The path options of issue 17
-- (path, into, info: "forms") came after the seeds of seeds.txt: those lines disable them, and
-- with forms off the fuzzer draws what it drew before, so they replay the calls they found.
-- Issue 18's interests, check_path and repair ("walks") came later still: the seeds found
-- before them disable them too; and so do the seeds found before issue 25's interest values
-- near and beyond the bound, and the oracle's check of those answers ("bound"), all the seeds
-- found before issue 25's work limit ("limits": a random astar.set_work_limit, after which any
-- call may raise "work limit reached"; the invariants, checked with the limit lifted, see every
-- object still work), and those found before issue 25's attacks ("mods2": builds and the
-- options of landmarks and hierarchies, option tables that close what the call uses, tables
-- whose border is far beyond their keys, scheduler callbacks that close other scheduled
-- objects). Issue 26's ("living": grid:prepare and its Build among the writes and the steps of
-- other builds; paths in every form, versions and check_path's since) came after all of them:
-- every seed of seeds.txt disables it. So does every seed for issue 27's scheduler ("frame":
-- retarget from callbacks and between ticks, sched:run of search jobs and jobs of our own that
-- answer nonsense, stats, schedulers with budget_us and a clock of our own) and jobs ("engines":
-- grid:search with every option find takes, grid:search_nearest and grid:field_job, and jobs
-- against their calls). Terrain classes ("classes": set_class, find with classes tables good and
-- hostile) and graph fields ("gfields": graph:distance_field, graph:range and graph:find_nearest
-- with the query options and bad sources, targets and budgets, and the field's methods) came
-- after all of them: every seed of seeds.txt disables both, and flee and wander ("flee":
-- grid:flee from points or a layer, grid:wander, their own options good and weird), and units
-- bigger than one cell ("size": every grid query and a job with size, good and hostile, checked
-- by the oracle) too.
-- As a module (spec/32): loadfile(this)("--module") returns { run = ..., read_seeds = ... }.
local astar = require("astar")

local M = {}

local NAN = 0 / 0
local HUGE = math.huge
local floor = math.floor
-- 5.1 and LuaJIT can make a userdata of size 0: the smallest foreign self there is.
local newproxy_fn = rawget(_G, "newproxy")
-- A light userdata: lua_touserdata gives a pointer to something that is no astar object.
local upvalueid = debug and debug.upvalueid

local function pack(...) return { n = select("#", ...), ... } end
local rawlen_of = rawget(_G, "rawlen") or function(t) return #t end -- 5.1: # ignores __len on tables

-- ------------------------------------------------------------------- PRNG
-- L'Ecuyer's combined LCG (1988): every product stays below 2^53, so doubles (5.1, LuaJIT)
-- and integers (5.3+) give the same stream.
local function new_rng(seed)
  seed = floor(tonumber(seed) or 0)
  if seed < 0 then seed = -seed end
  local s1 = seed % 2147483562 + 1
  local s2 = (floor(seed / 2147483562) * 7919 + seed % 65521 * 31 + 12345) % 2147483398 + 1
  local r = {}
  function r.next() -- [0, 1)
    s1 = 40014 * s1 % 2147483563
    s2 = 40692 * s2 % 2147483399
    return (s1 - s2) % 2147483562 / 2147483562
  end
  for _ = 1, 8 do r.next() end -- neighbouring seeds start far apart
  function r.int(lo, hi) return lo + floor(r.next() * (hi - lo + 1)) end
  function r.chance(p) return r.next() < p end
  function r.pick(list) return list[r.int(1, #list)] end
  return r
end
M.new_rng = new_rng

-- ------------------------------------------------------------------ oracle
-- The spec's plain Dijkstra (spec/support/dijkstra.lua), run on the terrain and penalties a
-- query sees, read through the public API after the call: cost[y][x] a number or false,
-- pen[y][x] the summed layer penalties.
local oracle = require("spec.support.dijkstra")

local function grid_world(g, layers, mask, diagonal)
  local w, h = g.width, g.height
  local hex = g.topology == "hex"
  local world = { w = w, h = h, hex = hex, topology = hex and "hex" or nil, mode = diagonal or g.diagonal,
                  cost = {}, pen = {} }
  world.diagonal = world.mode
  for y = 1, h do
    local row, prow = {}, {}
    for x = 1, w do
      local c = g:get_cost(x, y)
      if mask and not mask:is_known(x, y) then c = 1 end
      row[x] = c
      local p = 0
      for _, l in ipairs(layers or {}) do p = p + l[1]:get(x, y) * l[2] end
      prow[x] = p
    end
    world.cost[y], world.pen[y] = row, prow
  end
  world.layers = { { vals = world.pen, weight = 1 } }
  return world
end

local open_cell = oracle.walkable
local function oracle_step(world, ax, ay, bx, by) return oracle.step(world, ax, ay, bx, by) end
local oracle_cost = oracle.cost
M.oracle_cost = oracle_cost

-- Readable values for failure messages and traces.
local function describe(v, depth)
  local t = type(v)
  if t == "string" then return string.format("%q", v) end
  if t ~= "table" then return tostring(v) end
  if (depth or 0) >= 2 then return "{...}" end
  local parts = {}
  for i = 1, math.min(rawlen_of(v), 50) do parts[#parts + 1] = describe(rawget(v, i), (depth or 0) + 1) end
  for _, k in ipairs({ "x", "y", "sx", "sy", "gx", "gy" }) do
    if rawget(v, k) ~= nil then parts[#parts + 1] = k .. "=" .. describe(rawget(v, k), (depth or 0) + 1) end
  end
  return "{" .. table.concat(parts, ", ") .. (getmetatable(v) and ", <metatable>}" or "}")
end
M.describe = describe

-- The world as rows of costs ('#' blocked) and penalties, to rebuild a failing case by hand.
local function dump_world(world)
  local lines = {}
  for y = 1, world.h do
    local row = {}
    for x = 1, world.w do
      local c = world.cost[y][x]
      local p = world.pen[y][x]
      row[x] = (c == false and "#" or string.format("%g", c)) .. (p ~= 0 and string.format("+%g", p) or "")
    end
    lines[y] = table.concat(row, " ")
  end
  return table.concat(lines, "\n")
end

local function near(a, b)
  return a == b or math.abs(a - b) <= 1e-9 * math.max(1, math.abs(a), math.abs(b))
end

-- Graph: the spec's graph oracle on the arcs read with neighbours(), blocked nodes and an
-- optional per-node penalty layer.
local graph_oracle_cost = require("spec.support.graph_oracle").cost

local function graph_oracle(g, s, t, values, weight)
  local world = { n = g:size(), arcs = {}, blocked = {} }
  for id = 1, world.n do
    local to, cost = g:neighbours(id)
    world.arcs[id] = {}
    for i = 1, #to do world.arcs[id][to[i]] = cost[i] end
    world.blocked[id] = g:is_blocked(id)
  end
  if values then world.layers = { { vals = values, weight = weight } } end
  return graph_oracle_cost(world, s, t)
end

-- ---------------------------------------------------------------- run state
local St = {}
St.__index = St

local DIAGS = { "never", "always", "one_walkable", "no_corner_cut" }
local STATUSES = { found = true, unreachable = true, limit = true, partial = true }
local JOB_STATUSES = { running = true, found = true, unreachable = true, limit = true, partial = true,
  done = true } -- done: a field job's end (issue 27)
local SIZES = { { 1, 1 }, { 3, 3 }, { 4, 4 }, { 5, 3 }, { 6, 6 }, { 8, 8 }, { 2, 7 }, { 10, 10 } }
local MAX_DEPTH = 3   -- chaos inside chaos inside a call: deep enough for re-entrant queries
local MAX_CHAOS = 400 -- per run, so that callbacks cannot make a run take minutes
local MAX_NODES = 48  -- graphs stay small enough for the graph oracle

local function new_state(seed, cfg)
  local st = setmetatable({
    seed = seed, cfg = cfg, rng = new_rng(seed), pool = {}, next_id = 1, step = 0, depth = 0,
    calls = 0, errors = 0, chaos_left = MAX_CHAOS, failures = {},
    raised = setmetatable({}, { __mode = "k" }), raised_msgs = {}, tag = 0, ctx = {},
    answer_pool = {}, answer_writes = 0,
  }, St)
  local size = st.rng.pick(SIZES)
  st.W, st.H = size[1], size[2] -- the run's usual size, so layers, masks and claims fit grids
  return st
end

function St:on(name) return not self.cfg.disabled[name] end
function St:int(lo, hi) return self.rng.int(lo, hi) end
function St:chance(p) return self.rng.chance(p) end
function St:choice(list) return self.rng.pick(list) end

function St:log(fmt, ...)
  if self.cfg.trace then
    io.stderr:write(string.format("[%s:%d]%s ", tostring(self.seed), self.step, string.rep("  ", self.depth)),
      string.format(fmt, ...), "\n")
    io.stderr:flush()
  end
end

function St:failure(msg)
  self.failures[#self.failures + 1] = debug.traceback(msg, 2)
end

-- An error value of our own: a callback or __index raises it, and pcall must get it back as is.
function St:our_error()
  self.tag = self.tag + 1
  if self:chance(0.5) then
    local e = { fuzz_error = self.tag }
    self.raised[e] = true
    return e
  end
  local msg = "fuzz-chaos#" .. self.tag
  self.raised_msgs[msg] = true
  return msg
end

function St:note_error(e)
  self.errors = self.errors + 1
  -- Only a limit stops a call (bombs may lift it between the stop and here: not with them).
  if type(e) == "string" and e:find("work limit reached", 1, true) and not astar.work_left() and
      not self.cfg.bombs then
    self:failure("a call raised \"work limit reached\" with no limit set: " .. e)
  end
  if type(e) == "table" and not self.raised[e] then
    self:failure("an error value came back as a table we never raised: " .. tostring(e))
  elseif type(e) == "string" and e:find("fuzz-chaos#", 1, true) and not self.raised_msgs[e] then
    self:failure("a callback's error message came back changed: " .. e)
  end
  if self.cfg.error_counts then
    local key = type(e) == "string" and e:gsub("^[^:]*:%d+: ", ""):gsub("%-?%d+[%.%d]*", "N"):sub(1, 110)
      or ("<" .. type(e) .. ">")
    self.cfg.error_counts[key] = (self.cfg.error_counts[key] or 0) + 1
  end
end

-- `armed`: control is in the library (a call of the fuzzed sequence runs), where finalizers
-- (bombs) may strike; never in the fuzzer's own bookkeeping or checks. St:call arms, the
-- hooks the library calls back (St:hook) disarm while they run.
local function disarm(st, ...)
  st.armed = false -- before pack() allocates: a finalizer there would strike after the call
  return pack(...)
end

-- Every call into the library goes through here: counted, protected.
function St:call(label, f, ...)
  self.calls = self.calls + 1
  self:log("%s", label)
  self.armed = not self.checking
  local r = disarm(self, pcall(f, ...))
  if not r[1] then self:note_error(r[2]) end
  return r
end

local function rearm(st, armed, ok, ...)
  st.armed = armed
  if not ok then error((...), 0) end
  return ...
end

-- f as the library may call it (a callback, an __index): disarmed while it runs, armed again
-- when it returns or raises into the library.
function St:hook(f)
  local st = self
  return function(...)
    local armed = st.armed
    st.armed = false
    return rearm(st, armed, pcall(f, ...))
  end
end

-- Garbage whose finalizer runs chaos: the collector calls it at whatever allocation comes
-- next, which may be in the middle of a C function of the binding, between a check and the
-- use it guards. Only with --bombs: when the collector runs depends on table layouts, and so
-- on string hashes and addresses, which change from run to run (5.4 seeds its string hash
-- at random): a seed then no longer replays the same calls.
function St:plant_bombs()
  local n = self:int(1, 4) -- drawn either way: the calls that follow stay the same without bombs
  if not self.cfg.bombs then return end
  local st = self
  local function boom()
    if not st.armed or st.rng.next() >= 0.5 then return end
    st.armed = false
    st:chaos() -- never raises
    st.armed = true
  end
  for _ = 1, n do
    if newproxy_fn then
      local p = newproxy_fn(true)
      getmetatable(p).__gc = boom
    else
      setmetatable({}, { __gc = boom })
    end
  end
end

-- ------------------------------------------------------------------- pool
function St:add(kind, obj, fields)
  local e = fields or {}
  e.kind, e.obj, e.id, e.closed = kind, obj, self.next_id, false
  self.next_id = self.next_id + 1
  self.pool[#self.pool + 1] = e
  return e
end

function St:list(kind, filter)
  local out = {}
  for _, e in ipairs(self.pool) do
    if (kind == nil or e.kind == kind) and (filter == nil or filter(e)) then out[#out + 1] = e end
  end
  return out
end

-- A random entry of the kind: a live one mostly, now and then a closed one.
function St:pick(kind, filter)
  local live = self:list(kind, function(e) return not e.closed and (filter == nil or filter(e)) end)
  if #live > 0 and not self:chance(0.08) then return self:choice(live) end
  local any = self:list(kind, filter)
  if #any > 0 then return self:choice(any) end
  return nil
end

local CLOSABLE = { grid = true, influence = true, mask = true, claims = true, gclaims = true, graph = true,
  field = true, job = true, build = true }

-- ---------------------------------------------------------------- values
function St:foreign()
  local r = self:int(1, 7)
  if r == 1 and newproxy_fn then return newproxy_fn(false) end
  if r == 2 and upvalueid then return upvalueid(new_rng, 1) end
  if r == 3 then return coroutine.create(function() end) end
  if r == 4 then return {} end
  if r == 5 then return "astar.Grid" end
  return io.stdout
end

local WEIRD_NUMBERS = { 0, -1, 0.5, 1.5, -0.0, NAN, HUGE, -HUGE, 2 ^ 31, 2 ^ 53, 2 ^ 63, -2 ^ 63, 1e308, 1e-300 }

-- A value of no particular use: wrong type, out of range, NaN, a closed object...
function St:weird()
  local r = self:int(1, 10)
  if r <= 3 then return self:choice(WEIRD_NUMBERS) end
  if r == 4 then return nil end
  if r == 5 then return self:choice({ true, false }) end
  if r == 6 then return self:choice({ "", "1", "x", "octile", "hex", "never" }) end
  if r == 7 then return function() end end
  if r == 8 then
    local e = self:pick(nil)
    if e then return e.obj end
  end
  return self:foreign()
end

function St:dims()
  if self:chance(0.75) then return self.W, self.H end
  local s = self:choice(SIZES)
  return s[1], s[2]
end

local BAD_SIDES = { 0, -1, 2.5, NAN, HUGE, 32769, 2 ^ 40, "4" }

-- A coordinate of a w-wide axis: valid mostly.
function St:coord(w)
  if self:chance(0.93) then return self:int(1, w) end
  local r = self:int(1, 6)
  if r == 1 then return 0 end
  if r == 2 then return w + 1 end
  if r == 3 then return 1.5 end
  if r == 4 then return NAN end
  if r == 5 then return tostring(self:int(1, w)) end
  return self:weird()
end

local UNITS = { "a", "b", 1, 2, 3.0, "archer7", 17 }
function St:unit()
  if self:chance(0.9) then return self:choice(UNITS) end
  return self:weird()
end

-- ------------------------------------------------------------------ chaos
-- What a misbehaving script does in the middle of a call: `ctx` holds the entries the call
-- uses (its grid, layers, claims, graph...), which chaos prefers to close or change.
function St:chaos()
  if self.depth >= MAX_DEPTH or self.chaos_left <= 0 then return end
  self.chaos_left = self.chaos_left - 1
  self.depth = self.depth + 1
  -- Every library call in here is protected: what escapes is a bug of the fuzzer itself,
  -- which must not pass for a callback's error.
  local ok, err = pcall(self.chaos_now, self)
  self.depth = self.depth - 1
  if not ok then self:failure("the fuzzer failed in chaos: " .. tostring(err)) end
end

function St:chaos_now()
  local r = self:int(1, 100)
  if r <= 28 then
    if self:on("chaos_close") then self:close_something(true) end
  elseif r <= 40 then
    self:log("collectgarbage")
    collectgarbage(self:chance(0.7) and "collect" or "step")
  elseif r <= 55 then
    self:mutate_context()
  elseif r <= 68 then
    self:reentrant_check()
  elseif r <= 94 then
    self:action(true)
  elseif r <= 97 then
    self:drop_something()
  else
    self:foreign_abuse()
  end
end

function St:context_entries()
  local top = self.ctx[#self.ctx]
  return top and top.entries or {}
end

function St:close_entry(e)
  if not self:on("close") then return end
  local mt = getmetatable(e.obj)
  -- an astar object's metatable is a read-only stand-in, a userdata; a Lua object's a table
  local readable = type(mt) == "table" or type(mt) == "userdata"
  local fn = readable and (self:chance(0.5) and mt.__close or mt.__gc) or nil
  if not fn then fn = mt and mt.__gc end
  if type(fn) ~= "function" then return end
  -- Closed before the call returns: a finalizer striking in between must not take it for live.
  local was = e.closed
  e.closed = true
  local r = self:call("close " .. e.kind .. "#" .. e.id, fn, e.obj)
  if not r[1] then e.closed = was end
end

function St:close_something(prefer_context)
  local ctx = self:context_entries()
  local e
  if prefer_context and #ctx > 0 and self:chance(0.7) then
    e = self:choice(ctx)
  else
    local list = self:list(nil, function(x) return CLOSABLE[x.kind] end)
    if #list > 0 then e = self:choice(list) end
  end
  if e then self:close_entry(e) end
end

function St:drop_something()
  if #self.pool == 0 then return end
  local i = self:int(1, #self.pool)
  self:log("drop %s#%d", self.pool[i].kind, self.pool[i].id)
  table.remove(self.pool, i)
  collectgarbage()
end

-- Changes something the current call reads: terrain, a layer, claims, a graph's shape.
function St:mutate_context()
  local ctx = self:context_entries()
  local e = #ctx > 0 and self:choice(ctx) or self:pick(nil)
  if not e then return end
  local o = e.obj
  if e.kind == "grid" then
    local w, h = e.w, e.h
    local r = self:int(1, 4)
    if r == 1 then self:call("grid:set_cost", o.set_cost, o, self:int(1, w), self:int(1, h), self:choice({ 1, 2, false }))
    elseif r == 2 then self:call("grid:fill", o.fill, o, self:choice({ 1, 3 }))
    elseif r == 3 then self:call("grid:landmarks", o.landmarks, o, self:int(0, 4))
    else self:call("grid:set_blocked", o.set_blocked, o, self:int(1, w), self:int(1, h), self:chance(0.5)) end
  elseif e.kind == "influence" then
    self:call("influence:fill", o.fill, o, self:choice({ 0, 2, -3 }))
  elseif e.kind == "mask" then
    self:call("mask:reveal", o.reveal, o, self:int(1, e.w), self:int(1, e.h), self:choice({ 0, 2, 100 }))
  elseif e.kind == "claims" then
    self:call("claims:claim", o.claim, o, self:unit(), self:path_list(e.w, e.h, false))
  elseif e.kind == "graph" then
    self:grow_graph(e, self:int(1, 8))
  elseif e.kind == "gclaims" then
    self:call("gclaims:release", o.release, o, self:unit())
  elseif e.kind == "sched" then
    local t = e.tickets[#e.tickets]
    if t then self:cancel_ticket(e, t) end
  elseif e.kind == "job" then
    self:call("job:step", o.step, o, self:int(1, 5))
  end
end

-- Adds nodes (each linked to an older one) to a graph: what a query sized by the node count
-- when it read its options must not be surprised by.
function St:grow_graph(e, k)
  local g = e.obj
  for _ = 1, k do
    local r = self:call("graph:size", g.size, g)
    local n = r[1] and r[2] or 0
    if type(n) ~= "number" or n >= MAX_NODES then return end
    local a = self:call("graph:add_node", g.add_node, g, self:int(0, 9), self:int(0, 9))
    if not a[1] then return end
    if n >= 1 then
      self:call("graph:add_edge", g.add_edge, g, a[2], self:int(1, n), self:chance(0.5) and self:int(0, 4) or nil)
    end
  end
end

-- A re-entrant query must answer correctly (docs/contract.md, Reentrancy).
function St:reentrant_check()
  self:quietly(function()
    local e = self:pick("grid", function(x) return x.w * x.h <= 100 end)
    if e and not e.closed then self:grid_oracle_check_now(e, true) end
  end)
end

-- Metamethods and methods called with a self that is no astar object, or the wrong one.
function St:foreign_abuse()
  if not self:on("foreign") then return end
  local e = self:pick(nil, function(x) return type(x.obj) == "userdata" end)
  if not e then return end
  local mt = getmetatable(e.obj)
  if type(mt) ~= "table" and type(mt) ~= "userdata" then return end -- astar's stand-in: a userdata
  local other_e = self:chance(0.5) and (self:pick(nil) or e) or nil
  local other = other_e and other_e.obj or self:foreign()
  local r = self:int(1, 6)
  local keys = { "width", "height", "diagonal", "topology", "nodes", "arcs", "size", "find", 1, "claim" }
  if r <= 2 and mt.__index then
    local k = self:choice(keys)
    local got = self:call("__index(foreign)", mt.__index, other, k)
    if got[1] and type(got[2]) == "function" then
      self:call("method(foreign self)", got[2], other, 1, 1, 1, 1)
    end
  elseif r == 3 and mt.__tostring then
    self:call("__tostring(foreign)", mt.__tostring, other)
  elseif r == 4 and mt.__newindex then
    self:call("__newindex(foreign)", mt.__newindex, other, self:choice(keys), 1)
  elseif r >= 5 and (mt.__close or mt.__gc) then
    local fn = r == 6 and mt.__close or mt.__gc
    -- The same class's __gc closes another object of that class (see close_entry).
    local same = other_e and CLOSABLE[other_e.kind] and getmetatable(other) == mt
    local was = other_e and other_e.closed
    if same then other_e.closed = true end
    local res = self:call("__gc/__close(other)", fn, other, nil)
    if same and not res[1] then other_e.closed = was end
  end
end

-- ---------------------------------------------------------------- callbacks
-- A cost callback: mostly sane (deterministic nil / false / small numbers), sometimes evil.
function St:callback(kind)
  local salt = self:int(0, 99)
  local evil = self:on("evilcb") and self:chance(0.45)
  local st = self
  local function sane(a, b)
    if kind == "heur" or kind == "gheur" then return 0 end
    local v = ((a or 0) * 31 + (b or 0) * 17 + salt) % 9
    if v == 0 then return false end
    if v < 4 then return nil end
    return (v - 3) * 0.5
  end
  local fn = self:hook(function(a, b, ...)
    if evil then
      local r = st.rng.next()
      if r < 0.25 then
        st:chaos()
      elseif r < 0.28 then
        error(st:our_error(), 0)
      elseif r < 0.31 then
        return st:weird()
      elseif r < 0.33 then
        return -1
      elseif r < 0.34 and (st.in_coroutine or 0) > 0 then
        coroutine.yield() -- cost callbacks run inside C: refused, with an error
      end
    end
    return sane(a, b, ...)
  end)
  if self:chance(0.1) then
    return setmetatable({}, { __call = function(_, ...) return fn(...) end })
  end
  return fn
end

-- ----------------------------------------------------------------- tables
-- A table that answers key k with plan[k]. Styles: plain; some keys raw and the rest through
-- __index, which may run chaos, raise, or answer differently on a later read (shift(k, v)
-- says with what); or an __index table.
local FORM_KEYS = { path = true, into = true, info = true }

function St:present(plan, keys, shift)
  local r = self:int(1, 10)
  if r <= 6 or not self:on("proxy") then
    local t = {}
    for _, k in ipairs(keys) do t[k] = plan[k] end
    return t, "plain"
  end
  if r == 7 then
    local t = setmetatable({}, { __index = {} })
    local base = getmetatable(t).__index
    for _, k in ipairs(keys) do base[k] = plan[k] end
    return t, "inherit"
  end
  local raw = {}
  for _, k in ipairs(keys) do
    if self:chance(0.3) then raw[k] = plan[k] end
  end
  local reads = {}
  local chaos_p = self:choice({ 0, 0.15, 0.4 })
  local raise_p = self:choice({ 0, 0, 0.05 })
  local shifty = self:chance(0.6) and self:on("shift")
  local st = self
  setmetatable(raw, { __index = self:hook(function(_, k)
    if FORM_KEYS[k] and not st:on("forms") then return nil end -- read since issue 17: no draws
    reads[k] = (reads[k] or 0) + 1
    if st.rng.next() < chaos_p then st:chaos() end
    if st.rng.next() < raise_p then error(st:our_error(), 0) end
    local v = plan[k]
    if shifty and reads[k] > 1 and st.rng.next() < 0.5 then v = shift(k, v) end
    return v
  end) })
  return raw, "proxy"
end

-- A point {x=, y=} (or {x, y}), or a proxy for one.
function St:point(x, y, evil)
  if not evil or not self:on("proxy") or self:chance(0.6) then
    if self:chance(0.3) then return { x, y } end
    return { x = x, y = y }
  end
  local st = self
  local reads = 0
  local chaos_p = self:choice({ 0.2, 0.6 })
  return setmetatable({}, { __index = self:hook(function(_, k)
    reads = reads + 1
    if st.rng.next() < chaos_p then st:chaos() end
    if reads > 2 and st.rng.next() < 0.3 then return st:weird() end
    if k == "x" or k == 1 then return x end
    if k == "y" or k == 2 then return y end
    return nil
  end) })
end

-- A path-like list of points, mostly neighbours of each other.
function St:path_list(w, h, evil)
  local n = self:int(1, 6)
  local out = {}
  local x, y = self:int(1, w), self:int(1, h)
  for i = 1, n do
    if self:chance(0.05) then
      out[i] = self:weird()
    else
      out[i] = self:point(x, y, evil)
    end
    x = math.max(1, math.min(w, x + self:int(-1, 1)))
    y = math.max(1, math.min(h, y + self:int(-1, 1)))
  end
  return self:far(out)
end

-- --------------------------------------------- hostile tables (issue 25: "mods2")
-- Keys 2^k and 2^k + 1 for k = from .. 52, set raw: the raw length of such a table may be
-- any border, 2^52 on Lua 5.4 for a few dozen keys. Nothing may walk it: a reader must cost
-- the keys present, and an into table must end with #t the path's length.
local tointeger = math.tointeger or function(v) return v end
local function add_far_keys(t, from)
  for k = from, 52 do
    rawset(t, tointeger(2 ^ k), true)
    rawset(t, tointeger(2 ^ k + 1), true)
  end
  return t
end

-- t, now and then with far keys after its entries (a gap after them: the first nil is the
-- bad entry a reader reports), when issue 25's attacks are on.
function St:far(t, p)
  if not self:on("mods2") or type(t) ~= "table" or not self:chance(p or 0.05) then return t end
  local n = rawlen_of(t)
  local from = 0
  while 2 ^ from <= n + 1 do from = from + 1 end
  return add_far_keys(t, from)
end

-- A table holding some of plan's keys (in the order of keys) raw, whose first read of a
-- missing key (or its __pairs) closes something the call uses (or runs other chaos), then
-- answers plan[k]: an option table that closes its own call's objects, the attack of issue 25
-- on every option-taking function.
function St:closing(plan, keys)
  local t, done, st = {}, false, self
  plan = plan or {}
  for _, k in ipairs(keys or {}) do
    if self:chance(0.5) then t[k] = plan[k] end
  end
  local function strike()
    if done then return end
    done = true
    if st.rng.next() < 0.8 then st:close_something(true) else st:chaos() end
  end
  return setmetatable(t, {
    __index = self:hook(function(_, k) strike(); return plan[k] end),
    __pairs = self:hook(function(tt) strike(); return next, tt, nil end),
  })
end

-- opts, or now and then (issue 25's attacks on) a closing table of the same plan and keys.
function St:maybe_closing(opts, plan, keys)
  if not self:on("mods2") or not self:chance(0.15) then return opts end
  return self:closing(plan, keys)
end

-- sched:cancel, remembering what it cancelled: a cancelled request is never told.
function St:cancel_ticket(e, t)
  local r = self:call("sched:cancel", e.obj.cancel, e.obj, t)
  if r[1] and r[2] == true and e.cancelled then e.cancelled[t] = true end
  return r
end

-- A scheduler callback that counts its calls: every finished request is told exactly once
-- (issue 25, defect 6), and never after a cancel took it. box.ticket is set when its request
-- returns.
function St:counted(e, box, f)
  local st = self
  return function(...)
    local t = box.ticket
    if t == nil then
      st:failure("a scheduler callback ran before its request returned its ticket")
    elseif e.told then
      e.told[t] = (e.told[t] or 0) + 1
      if e.told[t] > 1 then st:failure("scheduler ticket " .. tostring(t) .. " told " .. e.told[t] .. " times") end
      if e.cancelled[t] then st:failure("scheduler ticket " .. tostring(t) .. " told after it was cancelled") end
    end
    return f(...)
  end
end

-- Closes something another scheduled request uses: a job or build the scheduler holds (a
-- scheduler is a plain table: a mod can reach them), a build or a grid of the pool; or
-- cancels a ticket. What an earlier callback of the same tick does to the later ones.
function St:close_scheduled(e)
  local s = e.obj
  local r = self:int(1, 4)
  if r == 1 then -- mostly a request finished beside this one, to be told after it
    local jobs = {}
    for _, name in ipairs(self:chance(0.6) and { "untold" } or { "running", "untold", "waiting" }) do
      local list = rawget(s, name)
      if type(list) == "table" then
        for _, entry in ipairs(list) do
          if type(entry) == "table" and type(entry.job) == "userdata" then jobs[#jobs + 1] = entry.job end
        end
      end
    end
    if #jobs > 0 then
      local j = self:choice(jobs)
      self:call("close a scheduled job", getmetatable(j).__gc, j)
    end
  elseif r == 2 then -- mostly a build this scheduler runs: it may have finished beside this one
    local b = self:pick("build", function(x) return not x.closed and x.sched == e end)
    if not b or self:chance(0.3) then b = self:pick("build", function(x) return not x.closed end) end
    if b then self:close_entry(b) end
  elseif r == 3 then
    local g = self:pick("grid", function(x) return not x.closed end)
    if g then self:close_entry(g) end
  elseif #e.tickets > 0 then
    self:cancel_ticket(e, self:choice(e.tickets))
  end
end

local GRID_KEYS = { "heuristic", "weight", "diagonal", "influence", "influence_weight", "claims", "unit",
  "claim_penalty", "claim_radius", "node_cost", "edge_cost", "max_expansions", "max_cost", "partial", "known",
  "noise", "seed", "turn_penalty", "claim_window", "jump" }
local GRAPH_KEYS = { "heuristic", "weight", "influence", "influence_weight", "claims", "unit", "claim_penalty",
  "claim_radius", "node_cost", "edge_cost", "max_expansions", "max_cost", "partial", "noise", "seed" }

local function same_size(e, w, h) return e.w == w and e.h == h end

-- A live layer of w x h (made now and pooled when there is none).
function St:layer_for(w, h)
  local e = self:pick("influence", function(x) return same_size(x, w, h) end)
  if e and (not e.closed or self:chance(0.5)) then return e end
  local r = self:call("astar.influence", astar.influence, w, h, self:choice({ 0, 1, -2, 4 }))
  if r[1] then
    e = self:add("influence", r[2], { w = w, h = h })
    if self:chance(0.7) then self:call("influence:stamp", r[2].stamp, r[2], 1, 1, 3, 5) end
    return e
  end
  return nil
end

-- The value of option k for a query on target (a grid or graph entry); used entries go to uses.
function St:option_value(k, target, uses)
  if self:chance(0.05) then return self:weird() end
  local graph = target.kind == "graph"
  local w, h = target.w, target.h
  if k == "heuristic" then
    if graph then return self:chance(0.25) and self:callback("gheur") or self:choice({ "euclidean", "zero", "octile" }) end
    if self:chance(0.25) then return self:callback("heur") end
    return self:choice(target.hex and { "hex", "chebyshev", "zero", "octile" }
      or { "octile", "manhattan", "euclidean", "chebyshev", "zero", "hex" })
  elseif k == "weight" then return self:choice({ 1, 1, 1.5, 3, 0.5 })
  elseif k == "diagonal" then return self:choice(DIAGS)
  elseif k == "influence" then
    if graph then return self:graph_values(target, uses) end
    local n = self:chance(0.6) and 0 or self:int(1, 3)
    if n == 0 then
      local e = self:layer_for(w, h)
      if e then uses[#uses + 1] = e; return e.obj end
      return nil
    end
    local list = {}
    for i = 1, n do
      local e = self:layer_for(w, h)
      if e then uses[#uses + 1] = e end
      list[i] = { e and e.obj or self:weird(), self:choice({ 1, 0.5, -1, 2 }) }
    end
    return self:far(list)
  elseif k == "influence_weight" then return self:choice({ 1, 0.5, -2, 3 })
  elseif k == "claims" then
    local e
    if graph then
      e = self:pick("gclaims", function(x) return x.graph == target end)
      if not e and not target.closed then
        local r = self:call("astar.claims(graph)", astar.claims, target.obj)
        if r[1] then e = self:add("gclaims", r[2], { graph = target }) end
      end
    else
      e = self:pick("claims", function(x) return same_size(x, w, h) end)
    end
    if e then uses[#uses + 1] = e; return e.obj end
    return nil
  elseif k == "unit" then return self:unit()
  elseif k == "claim_penalty" then return self:choice({ 0, 5, 2.5, 100 })
  elseif k == "claim_radius" then return self:choice({ 0, 1, 3, 1e12 })
  elseif k == "claim_window" then return self:choice({ 0, 1, 4, 2e9 })
  elseif k == "node_cost" then return self:callback(graph and "gnode" or "node")
  elseif k == "edge_cost" then return self:callback(graph and "gedge" or "edge")
  elseif k == "max_expansions" then return self:choice({ 0, 1, 5, 50, 2 ^ 60 })
  elseif k == "max_cost" then return self:choice({ 0, 1.5, 4, 100 })
  elseif k == "partial" then return self:chance(0.5)
  elseif k == "known" then
    local e = self:pick("mask", function(x) return same_size(x, w, h) end)
    if e then uses[#uses + 1] = e; return e.obj end
    return nil
  elseif k == "noise" then return self:choice({ 0, 0.5, 3 })
  elseif k == "seed" then return self:choice({ 0, 1, 12345, -7, 2 ^ 40 })
  elseif k == "turn_penalty" then return self:choice({ 0, 0.5, 2 })
  elseif k == "jump" then return self:chance(0.5)
  end
  return self:weird()
end

-- Per-node values for a graph query: a Lua array, an n x 1 layer, or a list of {values, w}.
function St:graph_values(target, uses)
  local r0 = self:call("graph:size", target.obj.size, target.obj)
  local n = r0[1] and type(r0[2]) == "number" and r0[2] or 1
  local function array()
    local a = {}
    for i = 1, n do a[i] = self:choice({ 0, 1, 2, -1, 0.5 }) end
    if self:chance(0.05) then a[self:int(1, n)] = self:weird() end
    return a
  end
  local r = self:int(1, 4)
  if r == 1 then return array() end
  if r == 2 then
    local e = self:layer_for(math.max(1, n), 1)
    if e then uses[#uses + 1] = e; return e.obj end
    return array()
  end
  local list = {}
  for i = 1, self:int(1, 3) do
    local v = array()
    if self:chance(0.4) then
      local e = self:layer_for(math.max(1, n), 1)
      if e then uses[#uses + 1] = e; v = e.obj end
    end
    list[i] = { v, self:choice({ 1, 2, -0.5 }) }
  end
  return list
end

-- The options of a query on target: a plan (key -> value), the keys in order, the table.
-- info.plain: a plain table whose values the oracle can follow (terrain, layers, fog).
function St:options(target)
  local uses = { target }
  if self:chance(0.25) then return nil, uses, { plain = true, keys = {}, plan = {} } end
  if self:chance(0.03) then return self:weird(), uses, { keys = {}, plan = {} } end
  local pool = target.kind == "graph" and GRAPH_KEYS or GRID_KEYS
  local keys, plan, seen = {}, {}, {}
  local n = self:int(0, 5)
  for _ = 1, n do
    local k = self:choice(pool)
    if not seen[k] then
      seen[k] = true
      keys[#keys + 1] = k
      plan[k] = self:option_value(k, target, uses)
    end
  end
  -- A unit or a claim option mostly comes with the claims it is about (else it is an error).
  if not seen.claims and (seen.unit or seen.claim_penalty or seen.claim_radius or seen.claim_window) and
      self:chance(0.7) then
    keys[#keys + 1] = "claims"
    plan.claims = self:option_value("claims", target, uses)
  end
  if self:chance(0.03) then
    keys[#keys + 1] = "influnce" -- a typo is an error
    plan.influnce = 1
  end
  local st = self
  local function shift(k, v)
    local r = st:int(1, 4)
    if r == 1 then return nil end
    if r == 2 then return st:weird() end
    if r == 3 then return st:option_value(k, target, uses) end
    if type(v) == "userdata" then return st:foreign() end
    return st:choice({ 42, {}, "x" })
  end
  local t, style = self:present(plan, keys, shift)
  if self:on("mods2") and self:chance(0.1) then t, style = self:closing(plan, keys), "closing" end
  -- Now and then an answer option where it does not apply (find_many, search, fields, graphs'
  -- path): refused by name. Raw: t may be a proxy.
  if type(t) == "table" and self:on("forms") and self:chance(0.03) then
    rawset(t, self:choice({ "path", "into", "info" }), self:choice({ "flat", {} }))
  end
  return t, uses, { plain = style == "plain", keys = keys, plan = plan }
end

-- ------------------------------------------------- answer options (issue 17)
-- A metatable none of whose metamethods may ever run: the binding writes the tables given as
-- into and info, and the points in them, raw.
function St:sealed_mt()
  local st = self
  local function ran(name)
    return function() st:failure("a metamethod of a table given as into or info ran: " .. name) end
  end
  return { __index = ran("__index"), __newindex = ran("__newindex"), __len = ran("__len") }
end

-- A table to answer into: mostly one of a few reused ones (holding numbers, points, sealed
-- points, strings; sealed themselves now and then), or a value the option must refuse.
function St:answer_table(opts)
  local r = self:int(1, 20)
  if r == 1 and type(opts) == "table" then return opts end -- refused: the options table itself
  if r == 2 then
    local e = self:pick(nil, function(x) return type(x.obj) == "userdata" end)
    return self:choice({ 5, "into", true, e and e.obj or io.stdout })
  end
  local pool = self.answer_pool
  if #pool > 0 and self:chance(0.6) then return self:choice(pool) end
  local t = {}
  for i = 1, self:int(0, 8) do
    local k = self:int(1, 4)
    if k == 1 then t[i] = self:int(1, 9)
    elseif k == 2 then t[i] = { x = 0, y = 0, mine = true }
    elseif k == 3 then t[i] = setmetatable({}, self:sealed_mt())
    else t[i] = "junk" end
  end
  if self:chance(0.2) then t.status, t.cost, t.reason, t.target, t.mine = "stale", -1, "old", 7, true end
  if self:on("mods2") and self:chance(0.25) then add_far_keys(t, self:int(0, 5)) end
  if self:chance(0.3) then setmetatable(t, self:sealed_mt()) end
  if #pool < 4 then pool[#pool + 1] = t end
  return t
end

-- Adds answer options to a query's options t (raw: t may be a proxy; nil becomes a table), for
-- grid:find and find_nearest (graph: into and info; path refused). Returns t and the answer
-- options it holds raw (St:options may have put one there), or nil for none.
function St:answer_options(t, target)
  if not self:on("forms") or (t ~= nil and type(t) ~= "table") then return t, nil end
  local want = {}
  if t then
    for k in pairs(FORM_KEYS) do want[k] = rawget(t, k) end
  end
  if not self:chance(0.6) then
    if next(want) == nil then return t, nil end
  else
    t = t or {}
    self:add_answer_options(t, target, want)
  end
  want.graph = target.kind == "graph"
  -- The caller's tables before the call: an error must leave them as they were. Every key,
  -- read raw by next (#v may be a border far beyond its keys: see add_far_keys).
  want.before, want.writes = {}, self.answer_writes
  for _, k in ipairs({ "into", "info" }) do
    local v = want[k]
    if type(v) == "table" then
      local snap, n = {}, 0
      for key, val in next, v do snap[key], n = val, n + 1 end
      want.before[k] = { keys = snap, n = n }
    end
  end
  self.answer_writes = self.answer_writes + 1
  return t, want
end

function St:add_answer_options(t, target, want)
  if target.kind ~= "graph" or self:chance(0.1) then
    if self:chance(0.6) then
      want.path = self:chance(0.9) and self:choice({ "flat", "flat", "points" }) or self:choice({ "xy", 2, true })
    end
  end
  if self:chance(0.7) then want.into = self:answer_table(t) end
  if self:chance(0.6) then want.info = self:chance(0.15) and want.into or self:answer_table(t) end
  for _, k in ipairs({ "path", "into", "info" }) do
    if want[k] ~= nil then rawset(t, k, want[k]) end
  end
end

-- The answer r (of St:call) of a query given answer options `want`, as plain tables the checks
-- may read (a flat path as points; everything read raw: the tables may be sealed). Checks what
-- the options promise: refused when bad, t and t2 returned, t emptied when there is no path,
-- the tables untouched by a call that raised. Third result: true when a query nested in this one
-- (chaos in a callback, or a finalizer's with --bombs) may have written the same tables
-- meanwhile, so that their contents prove nothing.
function St:plain_answer(what, want, r)
  if not want then return r[2], r[3] end
  local nested = want.writes + 1 ~= self.answer_writes
  local function bad(v) return v ~= nil and (type(v) ~= "table" or rawequal(v, want.options)) end
  local path_ok = want.path == nil or want.path == "flat" or want.path == "points"
  if want.graph then path_ok = want.path == nil end
  local refused = not path_ok or bad(want.into) or bad(want.info)
  if not r[1] then
    if not nested then
      for k, snap in pairs(want.before) do
        local t, n, same = want[k], 0, true
        for key, val in next, t do
          n = n + 1
          local was = snap.keys[key]
          same = same and (was == val or (was ~= was and val ~= val)) -- NaN: the options table itself
        end
        if not same or n ~= snap.n then self:failure(what .. ": a call that raised changed the table given as " .. k) end
      end
    end
    return nil, nil
  end
  if refused then
    self:failure(what .. ": a bad answer option was taken: path=" .. tostring(want.path) .. " into=" ..
      tostring(want.into) .. " info=" .. tostring(want.info))
    return nil, nil
  end
  local path, info = r[2], r[3]
  if nested then return nil, nil, true end
  if want.into ~= nil and path ~= nil and not rawequal(path, want.into) then
    self:failure(what .. ": the path is not the table given as into")
  end
  if want.info ~= nil and not rawequal(info, want.info) then self:failure(what .. ": info is not the table given") end
  if want.into ~= nil and path == nil and rawlen_of(want.into) ~= 0 then
    self:failure(what .. ": no path, but the table given as into still holds " .. rawlen_of(want.into) .. " entries")
  end
  local plain_info = nil
  if type(info) == "table" then
    plain_info = {}
    for _, k in ipairs({ "status", "expansions", "cost", "length", "reason", "target" }) do
      plain_info[k] = rawget(info, k)
    end
  end
  if type(path) ~= "table" then return path, plain_info end
  local n = rawlen_of(path)
  -- (#t is the path's length: a length any longer is a border the binding left, issue 25)
  if type(plain_info) == "table" and plain_info.length then
    local len = want.path == "flat" and not want.graph and 2 * plain_info.length or plain_info.length
    if n ~= len or rawget(path, n + 1) ~= nil then
      self:failure(string.format("%s: #path is %.0f, the path has %d entries", what, n, len))
      return nil, nil
    end
  elseif n > 4096 then
    self:failure(string.format("%s: #path is %.0f", what, n))
    return nil, nil
  end
  local plain = {}
  if want.graph then
    for i = 1, n do plain[i] = rawget(path, i) end
  elseif want.path == "flat" then
    if n % 2 ~= 0 then self:failure(what .. ": a flat path of odd length " .. n) end
    for i = 1, n / 2 do plain[i] = { x = rawget(path, 2 * i - 1), y = rawget(path, 2 * i) } end
  else
    for i = 1, n do
      local p = rawget(path, i)
      plain[i] = type(p) == "table" and { x = rawget(p, "x"), y = rawget(p, "y") } or p
    end
  end
  return plain, plain_info
end

-- The layers and mask an oracle must follow for a plain plan, or nil when it cannot.
local ORACLE_KEYS = { diagonal = true, influence = true, influence_weight = true, jump = true, known = true,
  heuristic = true, weight = true }
local function oracle_view(info)
  if not info or not info.plain then return nil end
  local plan = info.plan or {}
  for _, k in ipairs(info.keys) do
    if not ORACLE_KEYS[k] then return nil end
  end
  if plan.weight ~= nil and plan.weight ~= 1 then return nil end
  if plan.heuristic ~= nil and type(plan.heuristic) ~= "string" then return nil end
  local layers = {}
  local inf = plan.influence
  if type(inf) == "userdata" then
    layers[1] = { inf, plan.influence_weight or 1 }
  elseif type(inf) == "table" then
    for i, l in ipairs(inf) do layers[i] = { l[1], l[2] } end
  end
  return { layers = layers, mask = plan.known, diagonal = plan.diagonal }
end

-- --------------------------------------------------------------- checking
local function is_int(v) return type(v) == "number" and v == floor(v) and v == v end

local function hex_neighbours(ax, ay, bx, by)
  local dx, dy = bx - ax, by - ay
  if dy == 0 then return dx == 1 or dx == -1 end
  if dy ~= 1 and dy ~= -1 then return false end
  if dx == 0 then return true end
  return (ay % 2 == 0) == (dx == 1)
end

-- A path and info as find answers them: shape, start, goal, steps between neighbours.
-- goal nil: any end (partial, find_nearest); known: fog, so blocked cells may be walked.
function St:check_answer(what, e, sx, sy, goal, path, info, known)
  if type(info) ~= "table" then return self:failure(what .. ": info is " .. type(info)) end
  if not STATUSES[info.status] then return self:failure(what .. ": bad status " .. tostring(info.status)) end
  if not is_int(info.expansions) or info.expansions < 0 then
    return self:failure(what .. ": bad expansions " .. tostring(info.expansions))
  end
  local has = info.status == "found" or info.status == "partial"
  if has ~= (path ~= nil) then
    return self:failure(what .. ": status " .. info.status .. " with path " .. tostring(path))
  end
  if not has then return end
  if type(path) ~= "table" or #path < 1 then return self:failure(what .. ": path is not a list") end
  if type(info.cost) ~= "number" or info.cost < 0 or info.cost ~= info.cost then
    return self:failure(what .. ": bad cost " .. tostring(info.cost))
  end
  if info.length ~= #path then return self:failure(what .. ": length " .. tostring(info.length) .. " ~= #path") end
  for i, p in ipairs(path) do
    if type(p) ~= "table" or not is_int(p.x) or not is_int(p.y) or p.x < 1 or p.y < 1 or p.x > e.w or p.y > e.h then
      return self:failure(what .. ": point " .. i .. " is not a cell")
    end
    if i > 1 then
      local q = path[i - 1]
      local ok
      if e.hex then ok = hex_neighbours(q.x, q.y, p.x, p.y)
      else ok = math.abs(p.x - q.x) <= 1 and math.abs(p.y - q.y) <= 1 and (p.x ~= q.x or p.y ~= q.y) end
      if not ok then return self:failure(string.format("%s: step %d is no move (%d,%d)->(%d,%d)", what, i - 1,
        q.x, q.y, p.x, p.y)) end
      if not known and not e.closed and e.obj:get_cost(p.x, p.y) == false then
        return self:failure(string.format("%s: the path enters blocked cell (%d,%d)", what, p.x, p.y))
      end
    end
  end
  if sx and (path[1].x ~= sx or path[1].y ~= sy) then return self:failure(what .. ": path does not start at the start") end
  if goal and info.status == "found" and (path[#path].x ~= goal[1] or path[#path].y ~= goal[2]) then
    return self:failure(what .. ": a found path does not end at the goal")
  end
end

-- The answer of a query the oracle can follow: optimal cost, legal steps summing to it.
function St:check_optimal(what, world, sx, sy, gx, gy, path, info)
  local want = oracle_cost(world, sx, sy, gx, gy)
  local got = info and info.status == "found" and info.cost or nil
  if want == nil and got == nil then
    if info and info.status ~= "unreachable" then
      return self:failure(string.format("%s (%d,%d)->(%d,%d): status %s, oracle says unreachable", what, sx, sy, gx,
        gy, tostring(info.status)))
    end
    return
  end
  if want == nil or got == nil or not near(want, got) then
    local steps = {}
    for i, p in ipairs(path or {}) do steps[i] = p.x .. "," .. p.y end
    return self:failure(string.format("%s (%d,%d)->(%d,%d) on %dx%d%s: cost %s, oracle %s\npath %s\n%s", what, sx,
      sy, gx, gy, world.w, world.h, world.hex and " hex" or " " .. tostring(world.mode), tostring(got), tostring(want),
      table.concat(steps, " "), dump_world(world)))
  end
  if path then
    local sum = 0
    for i = 2, #path do
      local s = oracle_step(world, path[i - 1].x, path[i - 1].y, path[i].x, path[i].y)
      if not s then return self:failure(what .. ": illegal step " .. (i - 1) .. " in the path") end
      sum = sum + s
    end
    if not near(sum, got) then
      return self:failure(what .. ": the path's steps cost " .. sum .. " but info.cost is " .. got)
    end
  end
end

-- Runs f with finalizers kept from striking: a check must see what it reads stay put.
-- f with the work limit lifted: a check must see the objects as they are, whatever limit the
-- run set; what was left of the limit is set again after.
local function unlimited(f)
  local left = astar.work_left()
  if left then astar.set_work_limit(nil) end
  local ok, err = pcall(f)
  if left then astar.set_work_limit(left) end
  if not ok then error(err, 0) end
end

function St:quietly(f)
  local checking, armed = self.checking, self.armed
  self.checking, self.armed = true, false
  local ok, err = pcall(unlimited, f)
  self.checking, self.armed = checking, armed
  if not ok then error(err, 0) end
end

-- One fresh query on a live small grid by one of the ways to ask, checked against the oracle.
function St:grid_oracle_check(e, reentrant)
  self:quietly(function() self:grid_oracle_check_now(e, reentrant) end)
end

function St:grid_oracle_check_now(e, reentrant)
  local g = e.obj
  local w, h = e.w, e.h
  local sx, sy, gx, gy = self:int(1, w), self:int(1, h), self:int(1, w), self:int(1, h)
  local layers, mask, opts = {}, nil, {}
  local le = self:chance(0.3) and self:list("influence", function(x) return not x.closed and same_size(x, w, h) end)
  if le and #le > 0 then
    local l = self:choice(le).obj
    local wt = self:choice({ 1, 0.5, 2 })
    layers[1] = { l, wt }
    opts.influence, opts.influence_weight = l, wt
  end
  local me = self:chance(0.2) and self:list("mask", function(x) return not x.closed and same_size(x, w, h) end)
  if me and #me > 0 then
    mask = self:choice(me).obj
    opts.known = mask
  end
  local ways = { "find", "find_nojump", "search", "many", "nearest", "field", "range", "sched" }
  local way = self:choice(ways)
  if reentrant and way == "sched" then way = "find" end
  local label = "oracle " .. way .. " grid#" .. e.id .. (reentrant and " (re-entrant)" or "")
  local path, info
  if way == "find" or way == "find_nojump" then
    if way == "find_nojump" then opts.jump = false end
    local r = self:call(label, g.find, g, sx, sy, gx, gy, opts)
    if not r[1] then return self:failure(label .. " raised: " .. tostring(r[2])) end
    path, info = r[2], r[3]
  elseif way == "search" then
    local r = self:call(label, g.search, g, sx, sy, gx, gy, opts)
    if not r[1] then return self:failure(label .. " raised: " .. tostring(r[2])) end
    local job = r[2]
    local s = self:call("job:step", job.step, job, self:int(1, 3))
    while s[1] and s[2] == "running" do s = self:call("job:step", job.step, job, self:int(1, 20)) end
    if not s[1] then return self:failure(label .. " step raised: " .. tostring(s[2])) end
    local res = self:call("job:result", job.result, job)
    path, info = res[2], res[3]
  elseif way == "many" then
    local r = self:call(label, g.find_many, g, { { sx, sy, gx, gy }, { gx, gy, sx, sy } }, opts,
      { threads = self:int(1, 3) })
    if not r[1] then return self:failure(label .. " raised: " .. tostring(r[2])) end
    if type(r[2]) ~= "table" or type(r[2][1]) ~= "table" then return self:failure(label .. ": no results") end
    path, info = r[2][1].path, r[2][1].info
  elseif way == "nearest" then
    local r = self:call(label, g.find_nearest, g, sx, sy, { { x = gx, y = gy } }, opts)
    if not r[1] then return self:failure(label .. " raised: " .. tostring(r[2])) end
    path, info = r[2], r[3]
    if info and info.status == "found" and info.target ~= 1 then return self:failure(label .. ": target ~= 1") end
  elseif way == "field" or way == "range" then
    local r
    if way == "field" then
      r = self:call(label, g.distance_field, g, { { x = gx, y = gy } }, opts)
    else
      r = self:call(label, g.range, g, sx, sy, HUGE, opts)
    end
    if not r[1] then return self:failure(label .. " raised: " .. tostring(r[2])) end
    local field = way == "field" and r[2] or r[3]
    local d = self:call("field:distance", field.distance, field, way == "field" and sx or gx, way == "field" and sy or gy)
    if not d[1] then return self:failure(label .. " distance raised: " .. tostring(d[2])) end
    local world = grid_world(g, layers, mask)
    if not open_cell(world, gx, gy) then return end -- what a field says of a blocked goal is its own business
    info = d[2] and { status = "found", cost = d[2] } or { status = "unreachable" }
    return self:check_optimal(label, world, sx, sy, gx, gy, nil, info)
  else
    local sched = astar.scheduler({ budget = self:int(1, 9) })
    local got
    local r = self:call(label, sched.request, sched, g, sx, sy, gx, gy, opts, function(p, i) got = { p, i } end)
    if not r[1] then return self:failure(label .. " raised: " .. tostring(r[2])) end
    local ticks = 0
    while not got and ticks < 10000 do
      local t = self:call("sched:tick", sched.tick, sched)
      if not t[1] then return self:failure(label .. " tick raised: " .. tostring(t[2])) end
      ticks = ticks + 1
    end
    if not got then return self:failure(label .. ": never answered") end
    path, info = got[1], got[2]
  end
  self:check_answer(label, e, sx, sy, { gx, gy }, path, info, mask ~= nil)
  self:check_optimal(label, grid_world(g, layers, mask), sx, sy, gx, gy, path, info)
end

function St:graph_oracle_check(e)
  local g = e.obj
  local n = g:size()
  if n < 1 or n > 64 then return end
  local s, t = self:int(1, n), self:int(1, n)
  local values, weight
  local opts = nil
  if self:chance(0.3) then
    values, weight = {}, self:choice({ 1, 2 })
    for i = 1, n do values[i] = self:choice({ 0, 1, -1, 0.5 }) end
    opts = { influence = values, influence_weight = weight }
  end
  local r = self:call("oracle graph#" .. e.id .. ":find", g.find, g, s, t, opts)
  if not r[1] then return self:failure("graph find raised: " .. tostring(r[2])) end
  local ids, info = r[2], r[3]
  local want = graph_oracle(g, s, t, values, weight)
  local got = info and info.status == "found" and info.cost or nil
  if (want == nil) ~= (got == nil) or (want and not near(want, got)) then
    return self:failure(string.format("graph find %d->%d (%d nodes): cost %s, oracle %s", s, t, n, tostring(got),
      tostring(want)))
  end
  if ids then
    if ids[1] ~= s or ids[#ids] ~= t then return self:failure("graph path does not join start and goal") end
    for i = 2, #ids do
      if g:arc_cost(ids[i - 1], ids[i]) == nil then return self:failure("graph path uses a missing arc") end
    end
  end
end

-- A closed object must refuse to work, with an error.
local CLOSED_PROBES = {
  grid = function(o) return o:get_cost(1, 1) end,
  influence = function(o) return o:get(1, 1) end,
  mask = function(o) return o:is_known(1, 1) end,
  claims = function(o) return o:count(1, 1) end,
  gclaims = function(o) return o:position("a") end,
  graph = function(o) return o:size() end,
  field = function(o) return o:distance(1, 1) end,
  job = function(o) return o:step(1) end,
  build = function(o) return o:progress() end,
}

function St:check_closed(e)
  local probe = CLOSED_PROBES[e.kind]
  if not probe then return end
  if e.kind == "job" and not self:on("closed_job") then return end
  local r = self:call("closed " .. e.kind .. "#" .. e.id, probe, e.obj)
  if r[1] then self:failure(string.format("closed %s#%d still works (returned %s)", e.kind, e.id, tostring(r[2]))) end
  self:call("tostring(closed)", tostring, e.obj)
end

function St:check_job(e)
  local job = e.obj
  local r = self:call("job:status", job.status, job)
  if not r[1] or not JOB_STATUSES[r[2]] then
    return self:failure("job#" .. e.id .. ":status() gave " .. tostring(r[2]))
  end
  local before = r[2]
  local freed = false
  for _, u in ipairs(e.reads) do freed = freed or u.closed end
  if before ~= "running" then return end
  if freed and e.plain then
    local s = self:call("job:step (freed reads)", job.step, job, 1)
    if s[1] then self:failure("job#" .. e.id .. " stepped although an object it reads was closed") end
    return
  end
  if not e.simple or self:chance(0.5) then return end
  local s = self:call("job:step", job.step, job)
  if not s[1] then
    local reads = {}
    for i, u in ipairs(e.reads) do reads[i] = u.kind .. "#" .. u.id .. (u.closed and " (closed)" or "") end
    return self:failure(string.format("job#%d (%d,%d)->(%d,%d), reading %s: a step of a plain search raised: %s", e.id,
      e.sx, e.sy, e.gx, e.gy, table.concat(reads, ", "), tostring(s[2])))
  end
  if s[2] == "running" then return self:failure("job#" .. e.id .. ": step() without n is still running") end
  local res = self:call("job:result", job.result, job)
  local ge = e.grid
  self:check_answer("job#" .. e.id, ge, e.sx, e.sy, { e.gx, e.gy }, res[2], res[3], false)
  if not ge.closed and ge.w * ge.h <= 100 then
    -- A plain search answers for the terrain of its last (re)start: the current one.
    self:check_optimal("job#" .. e.id, grid_world(ge.obj), e.sx, e.sy, e.gx, e.gy, res[2], res[3])
  end
end

-- size() is annotated for every class with a width and height (meta.lua).
local SIZED = { grid = true, influence = true, mask = true, claims = true, field = true, job = true, build = true }

function St:check_live(e)
  local o = e.obj
  if SIZED[e.kind] and self:on("size") then
    local r = self:call(e.kind .. ":size", function() return o:size() end)
    if not r[1] or r[2] ~= e.w or r[3] ~= e.h then
      return self:failure(string.format("live %s#%d:size() gave %s, %s", e.kind, e.id, tostring(r[2]), tostring(r[3])))
    end
  end
  if e.kind == "grid" then
    local r = self:call("grid:get_cost", o.get_cost, o, 1, 1)
    if not r[1] then return self:failure("live grid#" .. e.id .. " fails: " .. tostring(r[2])) end
    if o.width ~= e.w or o.height ~= e.h then return self:failure("grid#" .. e.id .. " changed size") end
  elseif e.kind == "influence" then
    local r = self:call("influence:get", o.get, o, e.w, e.h)
    if not r[1] or type(r[2]) ~= "number" or r[2] ~= r[2] or math.abs(r[2]) == HUGE then
      return self:failure("live influence#" .. e.id .. " get gave " .. tostring(r[2]))
    end
  elseif e.kind == "mask" then
    local r = self:call("mask:is_known", o.is_known, o, 1, 1)
    if not r[1] or type(r[2]) ~= "boolean" then return self:failure("live mask#" .. e.id .. ": " .. tostring(r[2])) end
  elseif e.kind == "claims" then
    local c0 = self:call("claims:count", o.count, o, 1, 1)
    if not c0[1] or not is_int(c0[2]) or c0[2] < 0 then return self:failure("claims count gave " .. tostring(c0[2])) end
    local probe = "fuzz-probe"
    self:call("claims:claim", o.claim, o, probe, { { x = 1, y = 1 } })
    local p = self:call("claims:position", o.position, o, probe)
    local c1 = self:call("claims:count", o.count, o, 1, 1)
    self:call("claims:release", o.release, o, probe)
    local c2 = self:call("claims:count", o.count, o, 1, 1)
    if p[2] ~= 1 or p[3] ~= 1 or c1[2] ~= c0[2] + 1 or c2[2] ~= c0[2] then
      return self:failure(string.format("claims#%d probe: position %s,%s counts %s %s %s", e.id, tostring(p[2]),
        tostring(p[3]), tostring(c0[2]), tostring(c1[2]), tostring(c2[2])))
    end
  elseif e.kind == "gclaims" then
    local r = self:call("gclaims:position", o.position, o, "a")
    if not r[1] then return self:failure("live graph claims#" .. e.id .. " fail: " .. tostring(r[2])) end
  elseif e.kind == "graph" then
    local r = self:call("graph:size", o.size, o)
    if not r[1] or not is_int(r[2]) then return self:failure("live graph#" .. e.id .. " fails: " .. tostring(r[2])) end
  elseif e.kind == "field" then
    local r = self:call("field:distance", o.distance, o, 1, 1)
    if not r[1] or (r[2] ~= nil and (type(r[2]) ~= "number" or r[2] < 0 or r[2] ~= r[2])) then
      return self:failure("live field#" .. e.id .. " distance gave " .. tostring(r[2]))
    end
  elseif e.kind == "job" then
    self:check_job(e)
  elseif e.kind == "build" then
    local r = self:call("build:progress", o.progress, o)
    if not r[1] or type(r[2]) ~= "number" or not (r[2] >= 0 and r[2] <= 1) then
      return self:failure("live build#" .. e.id .. " progress gave " .. tostring(r[2]))
    end
  elseif e.kind == "sched" then
    local r = self:call("sched:pending", o.pending, o)
    if not r[1] or not is_int(r[2]) or r[2] < 0 then return self:failure("scheduler pending gave " .. tostring(r[2])) end
    if r[2] == 0 and e.told then
      -- Nothing pending: every request it took was told exactly once, unless cancelled.
      for _, t in ipairs(e.tickets) do
        if e.counted[t] and not e.cancelled[t] and e.told[t] ~= 1 then
          return self:failure(string.format("scheduler#%d: ticket %s told %d times, nothing pending", e.id, tostring(t),
            e.told[t] or 0))
        end
      end
    end
    if e.sane and self:chance(0.2) and self:on("sched_usable") then self:check_scheduler(e) end
  end
end

-- A scheduler that went through errors must still serve: its other requests cancelled, a
-- plain one on a fresh grid is answered with the right cost.
function St:check_scheduler(e)
  local s = e.obj
  for _, t in ipairs(e.tickets) do self:cancel_ticket(e, t) end
  e.tickets = {}
  local g = astar.grid(4, 4)
  g:set_cost(2, 2, false)
  local got
  local r = self:call("sched:request (check)", s.request, s, g, 1, 1, 4, 4, nil, function(_, i) got = i end)
  if not r[1] then return self:failure("scheduler#" .. e.id .. " refuses a plain request: " .. tostring(r[2])) end
  for _ = 1, 200 do
    if got then break end
    local t = self:call("sched:tick (check)", s.tick, s, 1000)
    if not t[1] then return self:failure("scheduler#" .. e.id .. ": tick raised " .. tostring(t[2])) end
  end
  local want = oracle_cost(grid_world(g), 1, 1, 4, 4)
  if not got or got.status ~= "found" or not near(got.cost, want) then
    return self:failure("scheduler#" .. e.id .. " answered " .. describe(got and got.cost))
  end
end

function St:check_invariants()
  self.checking = true
  self.armed = false
  unlimited(function()
    for _, e in ipairs(self.pool) do
      if e.closed then self:check_closed(e) else self:check_live(e) end
    end
    local grids = self:list("grid", function(x) return not x.closed and x.w * x.h <= 100 end)
    for _ = 1, math.min(2, #grids) do self:grid_oracle_check(self:choice(grids), false) end
    local graphs = self:list("graph", function(x) return not x.closed end)
    if #graphs > 0 then self:graph_oracle_check(self:choice(graphs)) end
  end)
  self.checking = false
end

-- ---------------------------------------------------------------- actions
local A = {}

local function terrain(st, g, w, h)
  for _ = 1, st:int(0, math.floor(w * h / 3)) do
    local c = st:choice({ false, false, 2, 3, 0.5, 1 })
    st:call("grid:set_cost", g.set_cost, g, st:int(1, w), st:int(1, h), c)
  end
end

function A.new_grid(st)
  local w, h = st:dims()
  if st:chance(0.05) then w = st:choice(BAD_SIDES) end
  local opts
  local r = st:int(1, 10)
  if r == 5 or r == 6 then opts = { diagonal = st:choice(DIAGS) }
  elseif r == 7 then opts = { topology = "hex" }
  elseif r == 8 then opts = { cost = st:choice({ 1, 2, 0.5, false, 0, -1, NAN, "x" }) }
  elseif r == 9 then
    local plan = { diagonal = st:choice(DIAGS), topology = st:choice({ "square", "hex" }), cost = st:choice({ 1, 2 }) }
    opts = st:present(plan, { "diagonal", "topology", "cost" }, function() return st:weird() end)
  elseif r == 10 then opts = st:weird() end
  local res = st:call("astar.grid", astar.grid, w, h, opts)
  if res[1] and type(res[2]) == "userdata" then
    local g = res[2]
    local e = st:add("grid", g, { w = g.width, h = g.height, hex = g.topology == "hex" })
    terrain(st, g, e.w, e.h)
  end
end

local MAP_FILES = { "spec/maps/rooms24x18.map", "spec/maps/crlf17x9.map", "/nonexistent/x.map", "spec/maps",
  "spec/maps/rooms24x18.map.scen" }

function A.load_map(st)
  if st:chance(0.05) then
    local path = st:chance(0.8) and st:choice(MAP_FILES) or st:weird()
    local res = st:call("astar.load_movingai", astar.load_movingai, path)
    if res[1] and type(res[2]) == "userdata" then
      st:add("grid", res[2], { w = res[2].width, h = res[2].height, hex = false })
    end
    return
  end
  local w, h = st:dims()
  local rows = {}
  for y = 1, h do
    local row = {}
    for x = 1, w do row[x] = st:choice({ ".", ".", ".", "@", "T", "G", "S", "O", "W" }) end
    rows[y] = table.concat(row)
  end
  local head = { "type octile", "height " .. h, "width " .. w, "map" }
  local r = st:int(1, 10)
  if r == 1 then head[2] = "height " .. st:choice({ 0, -1, 32769, h + 1, "x" })
  elseif r == 2 then rows[st:int(1, h)] = "#$%"
  elseif r == 3 then rows[h] = nil
  elseif r == 4 then head[1] = "type hex" end
  local text = table.concat(head, "\n") .. "\n" .. table.concat(rows, "\n") .. (st:chance(0.5) and "\n" or "")
  if st:chance(0.05) then text = st:weird() end
  local res = st:call("astar.load_movingai_string", astar.load_movingai_string, text, st:chance(0.2) and st:weird() or nil)
  if res[1] and type(res[2]) == "userdata" then
    local g = res[2]
    st:add("grid", g, { w = g.width, h = g.height, hex = false })
    if type(res[3]) ~= "table" or res[3].width ~= g.width or res[3].height ~= g.height then
      st:failure("load_movingai_string: meta does not match the grid")
    end
  end
end

function A.load_scen(st)
  if st:chance(0.1) then
    local path = st:chance(0.8) and st:choice(MAP_FILES) .. st:choice({ "", ".scen" }) or st:weird()
    st:call("astar.load_scen", astar.load_scen, path)
    return
  end
  local lines = { "version 1" }
  for i = 1, st:int(0, 4) do
    local f = { st:int(0, 3), "m.map", st:int(1, 40), st:int(1, 40), st:int(0, 39), st:int(0, 39), st:int(0, 39),
      st:int(0, 39), st:int(0, 5000) / 100 }
    if st:chance(0.15) then f[st:int(1, #f)] = st:choice({ "x", "-1", "1e999", "", "99999999999" }) end
    lines[i + 1] = table.concat(f, "\t")
  end
  if st:chance(0.1) then lines[1] = "version x" end
  local text = table.concat(lines, "\n")
  local res = st:call("astar.load_scen_string", astar.load_scen_string, text)
  if res[1] then
    if type(res[2]) ~= "table" then return st:failure("load_scen_string gave " .. type(res[2])) end
    for _, s in ipairs(res[2]) do
      if not is_int(s.sx) or not is_int(s.gy) or type(s.optimal) ~= "number" then
        return st:failure("load_scen_string: a scenario with bad fields")
      end
    end
  end
end

function A.new_influence(st)
  local w, h = st:dims()
  if st:chance(0.05) then h = st:choice(BAD_SIDES) end
  local init = st:chance(0.9) and st:choice({ 0, 1, -2, 3.5 }) or st:weird()
  local res = st:call("astar.influence", astar.influence, w, h, init)
  if res[1] and type(res[2]) == "userdata" then st:add("influence", res[2], { w = res[2].width, h = res[2].height }) end
end

function A.new_mask(st)
  local w, h = st:dims()
  if st:chance(0.05) then w = st:choice(BAD_SIDES) end
  local res = st:call("astar.mask", astar.mask, w, h)
  if res[1] and type(res[2]) == "userdata" then st:add("mask", res[2], { w = res[2].width, h = res[2].height }) end
end

function A.new_claims(st)
  local r = st:int(1, 10)
  if r <= 6 then
    local g = st:pick("grid")
    if not g then return end
    local res = st:call("astar.claims(grid)", astar.claims, g.obj)
    if res[1] then st:add("claims", res[2], { w = g.w, h = g.h }) end
  elseif r <= 9 then
    local g = st:pick("graph")
    if not g then return end
    local res = st:call("astar.claims(graph)", astar.claims, g.obj)
    if res[1] then st:add("gclaims", res[2], { graph = g }) end
  else
    st:call("astar.claims(weird)", astar.claims, st:weird())
  end
end

function A.new_graph(st)
  local res = st:call("astar.graph", astar.graph, st:chance(0.05) and st:weird() or nil)
  if not res[1] then return end
  local e = st:add("graph", res[2], {})
  st:grow_graph(e, st:int(0, 10))
end

function A.new_sched(st)
  local plan = { budget = st:choice({ 1, 5, 50, 5000 }), concurrent = st:choice({ 1, 2, 8 }), aging = st:choice({ 0, 1 }) }
  local keys = { "budget", "concurrent", "aging" }
  if st:chance(0.3) then
    keys[#keys + 1] = "budget_us"
    plan.budget_us = st:choice({ 1, 1000, 1e9 })
    keys[#keys + 1] = "clock"
    local t = 0
    plan.clock = st:hook(function()
      if st.rng.next() < 0.1 then st:chaos() end
      if st.rng.next() < 0.03 then return st:weird() end
      t = t + 0.0001
      return t
    end)
  end
  local opts, style = st:present(plan, keys, function() return st:weird() end)
  if st:chance(0.05) then opts = st:weird() end
  local res = st:call("astar.scheduler", astar.scheduler, opts)
  -- Its own clock or options that shifted under it: no promise left to check.
  local sane = style == "plain" and plan.clock == nil
  if res[1] and type(res[2]) == "table" then
    st:add("sched", res[2], { tickets = {}, sane = sane, told = {}, cancelled = {}, counted = {} })
  end
end

function A.grid_write(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local r = st:int(1, 6)
  if r <= 2 then
    local c = st:chance(0.9) and st:choice({ 1, 2, 3, false, HUGE, 0.25 }) or st:weird()
    st:call("grid:set_cost", g.set_cost, g, st:coord(e.w), st:coord(e.h), c)
  elseif r == 3 then
    st:call("grid:set_blocked", g.set_blocked, g, st:coord(e.w), st:coord(e.h), st:chance(0.9) and st:chance(0.5) or st:weird())
  elseif r == 4 then
    st:call("grid:fill", g.fill, g, st:chance(0.9) and st:choice({ 1, 2, false }) or st:weird())
  elseif r == 5 then
    local rows = {}
    for y = 1, e.h do
      local row = {}
      for x = 1, e.w do row[x] = st:choice({ ".", ".", "#", "2" }) end
      rows[y] = table.concat(row)
    end
    if st:chance(0.1) then rows[st:int(1, e.h)] = st:weird() end
    local legend = st:chance(0.5) and { ["."] = 1, ["#"] = false, ["2"] = 2 } or nil
    if legend and st:chance(0.1) then legend["2"] = st:weird() end
    st:call("grid:load", g.load, g, rows, legend)
  else
    st:call("grid:landmarks", g.landmarks, g, st:chance(0.9) and st:int(0, 8) or st:weird())
  end
end

function A.grid_read(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local r = st:int(1, 7)
  if r == 1 then st:call("grid:get_cost", g.get_cost, g, st:coord(e.w), st:coord(e.h))
  elseif r == 2 then st:call("grid:is_walkable", g.is_walkable, g, st:coord(e.w), st:coord(e.h))
  elseif r == 3 then st:call("grid:component", g.component, g, st:coord(e.w), st:coord(e.h))
  elseif r == 4 then
    st:call("grid:reachable", g.reachable, g, st:coord(e.w), st:coord(e.h), st:coord(e.w), st:coord(e.h))
  elseif r == 5 then st:call("grid:landmarks()", g.landmarks, g)
  elseif r == 6 then st:call("grid:size", g.size, g)
  else
    st:call("grid fields", function() return g.width, g.height, g.diagonal, g.topology, g.nope, tostring(g) end)
  end
end

-- Runs a query with ctx set, so that chaos inside it prefers the query's own objects.
function St:with_ctx(entries, f)
  self.ctx[#self.ctx + 1] = { entries = entries }
  local ok, err = pcall(f)
  self.ctx[#self.ctx] = nil
  if not ok then error(err, 0) end
end

-- A grid query's arguments: a grid, a start, a goal and options, drawn in this order.
function St:grid_query()
  local e = self:pick("grid")
  if not e then return nil end
  local sx, sy, gx, gy = self:coord(e.w), self:coord(e.h), self:coord(e.w), self:coord(e.h)
  local opts, uses, info = self:options(e)
  return e, sx, sy, gx, gy, opts, uses, info
end

function A.find(st)
  local e, sx, sy, gx, gy, opts, uses, info = st:grid_query()
  if not e then return end
  local g = e.obj
  local want
  opts, want = st:answer_options(opts, e)
  if want then want.options = opts end
  st:with_ctx(uses, function()
    local r = st:call("grid:find", g.find, g, sx, sy, gx, gy, opts)
    local path, pinfo, unknown = st:plain_answer("find", want, r)
    if not r[1] or e.closed or unknown then return end
    r = { r[1], path, pinfo }
    local known = info.plan and info.plan.known ~= nil or not info.plain
    st:check_answer("find", e, sx, sy, { gx, gy }, r[2], r[3], known)
    local view = oracle_view(info)
    if view and e.w * e.h <= 100 then
      for _, l in ipairs(view.layers) do
        if type(l[1]) ~= "userdata" then return end
      end
      -- Manhattan overestimates a diagonal step: optimal only on 4-connected grids.
      if info.plan.heuristic == "manhattan" and (info.plan.diagonal or g.diagonal) ~= "never" then return end
      local keys = {}
      for i, k in ipairs(info.keys) do keys[i] = k .. "=" .. describe(info.plan[k]) end
      st:check_optimal("find {" .. table.concat(keys, ", ") .. "}", grid_world(g, view.layers, view.mask, view.diagonal),
        sx, sy, gx, gy, r[2], r[3])
    end
  end)
end

function A.find_nearest(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local targets = {}
  for i = 1, st:int(0, 4) do targets[i] = st:point(st:coord(e.w), st:coord(e.h), true) end
  if st:chance(0.05) then targets = st:weird() end
  targets = st:far(targets)
  local sx, sy = st:coord(e.w), st:coord(e.h)
  local opts, uses, info = st:options(e)
  local want
  opts, want = st:answer_options(opts, e)
  if want then want.options = opts end
  st:with_ctx(uses, function()
    local r = st:call("grid:find_nearest", g.find_nearest, g, sx, sy, targets, opts)
    local path, pinfo, unknown = st:plain_answer("find_nearest", want, r)
    if r[1] and not e.closed and not unknown then
      st:check_answer("find_nearest", e, sx, sy, nil, path, pinfo, not info.plain or (info.plan and info.plan.known))
    end
  end)
end

function A.find_many(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local queries = {}
  for i = 1, st:int(0, 5) do
    local q = { st:coord(e.w), st:coord(e.h), st:coord(e.w), st:coord(e.h) }
    if st:chance(0.3) then q = { sx = q[1], sy = q[2], gx = q[3], gy = q[4] } end
    if st:chance(0.1) and st:on("proxy") then
      local plain = q
      q = setmetatable({}, { __index = st:hook(function(_, k)
        if st.rng.next() < 0.5 then st:chaos() end
        return plain[k]
      end) })
    end
    queries[i] = q
  end
  queries = st:far(queries)
  local opts, uses = st:options(e)
  local run = st:chance(0.5) and { threads = st:chance(0.9) and st:int(1, 4) or st:weird() } or nil
  run = st:maybe_closing(run, run, { "threads" })
  st:with_ctx(uses, function()
    local r = st:call("grid:find_many", g.find_many, g, queries, opts, run)
    if r[1] and (type(r[2]) ~= "table" or #r[2] ~= rawlen_of(queries)) then
      st:failure("find_many: " .. tostring(r[2]) .. " for " .. rawlen_of(queries) .. " queries")
    end
  end)
end

function A.search(st)
  local e, sx, sy, gx, gy, opts, uses, info = st:grid_query()
  if not e then return end
  local g = e.obj
  st:with_ctx(uses, function()
    local r = st:call("grid:search", g.search, g, sx, sy, gx, gy, opts)
    if r[1] and type(r[2]) == "userdata" then
      local reads = {}
      for _, u in ipairs(uses) do reads[#reads + 1] = u end
      -- simple: no options at all; plain: options the job reads exactly as planned.
      st:add("job", r[2], { grid = e, reads = reads, simple = opts == nil, plain = info.plain or opts == nil,
        sx = sx, sy = sy, gx = gx, gy = gy, w = e.w, h = e.h })
    end
  end)
end

function A.job(st)
  local e = st:pick("job")
  if not e then return end
  local j = e.obj
  local r = st:int(1, 6)
  local ctx = { e }
  for _, u in ipairs(e.reads) do ctx[#ctx + 1] = u end
  st:with_ctx(ctx, function()
    if r <= 3 then
      local n = st:chance(0.9) and st:choice({ 1, 2, 5, 100 }) or st:choice({ 0, -1, 1.5, NAN, 2 ^ 60, "3" })
      if st:chance(0.1) then n = nil end
      st:call("job:step", j.step, j, n)
    elseif r == 4 then
      local res = st:call("job:result", j.result, j)
      if res[1] and type(res[3]) ~= "table" then st:failure("job:result gave no info") end
    elseif r == 5 then
      st:call("job:status", j.status, j)
    else
      st:call("job:size", j.size, j)
    end
  end)
end

function A.field(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local opts, uses = st:options(e)
  st:with_ctx(uses, function()
    local r
    if st:chance(0.5) then
      local goals = {}
      for i = 1, st:int(0, 3) do goals[i] = st:point(st:coord(e.w), st:coord(e.h), true) end
      goals = st:far(goals)
      r = st:call("grid:distance_field", g.distance_field, g, goals, opts)
      if r[1] then st:add("field", r[2], { w = e.w, h = e.h }) end
    else
      local budget = st:chance(0.9) and st:choice({ 0, 1, 3.5, 10, 1e9 }) or st:weird()
      r = st:call("grid:range", g.range, g, st:coord(e.w), st:coord(e.h), budget, opts)
      if r[1] then
        st:add("field", r[3], { w = e.w, h = e.h })
        if type(r[2]) ~= "table" then st:failure("range: cells is " .. type(r[2])) end
      end
    end
  end)
end

-- Every engine as a job (issue 27: "engines"): grid:search with find's answer options and
-- hierarchical, grid:search_nearest and grid:field_job under St:options' hostile tables (the
-- jobs join the others: stepped, closed, their reads closed); and with clean options, a job
-- stepped in random slices against the call it stands for, answer for answer.
local function same_value(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b or (a ~= a and b ~= b) end
  for k, v in next, a do
    if k ~= "restarts" and k ~= "repairs" and not same_value(v, rawget(b, k)) then return false end
  end
  for k in next, b do
    if k ~= "restarts" and k ~= "repairs" and rawget(a, k) == nil then return false end
  end
  return true
end

-- Steps job to its end in slices of 1..5; its result, or nil when a step raised (a work limit).
function St:run_job(job)
  local s = self:call("job:step", job.step, job, self:int(1, 5))
  while s[1] and s[2] == "running" do s = self:call("job:step", job.step, job, self:int(1, 5)) end
  if not s[1] then return nil end
  return self:call("job:result", job.result, job)
end

function St:same_job(e)
  local g = e.obj
  if e.closed or e.w * e.h > 400 then return end
  local way = self:choice({ "search", "nearest", "field" })
  local opts = {}
  if way ~= "field" then
    if self:chance(0.5) then opts.path = "flat" end
    if self:chance(0.3) then opts.jump = false end
    if self:chance(0.3) then opts.dead_ends = self:chance(0.5) end
    if way == "search" and self:chance(0.3) then opts.hierarchical = true end
  end
  local sx, sy, gx, gy = self:coord(e.w), self:coord(e.h), self:coord(e.w), self:coord(e.h)
  local targets = { { x = gx, y = gy }, { x = self:coord(e.w), y = self:coord(e.h) } }
  local a, j
  if way == "search" then
    a = self:call("grid:find", g.find, g, sx, sy, gx, gy, opts)
    j = self:call("grid:search", g.search, g, sx, sy, gx, gy, opts)
  elseif way == "nearest" then
    a = self:call("grid:find_nearest", g.find_nearest, g, sx, sy, targets, opts)
    j = self:call("grid:search_nearest", g.search_nearest, g, sx, sy, targets, opts)
  else
    a = self:call("grid:distance_field", g.distance_field, g, targets, opts)
    j = self:call("grid:field_job", g.field_job, g, targets, opts)
  end
  if not a[1] or not j[1] or type(j[2]) ~= "userdata" then return end -- refused (hex, a work limit)
  local b = self:run_job(j[2])
  if not b or not b[1] then return end
  local what = string.format("%s job (%s,%s)->(%s,%s) on grid#%s", way, tostring(sx), tostring(sy), tostring(gx),
    tostring(gy), tostring(e.id))
  if not same_value(a[3], b[3]) then return self:failure(what .. ": its info differs from the call's") end
  if way ~= "field" then
    if not same_value(a[2], b[2]) then return self:failure(what .. ": its path differs from the call's") end
    return
  end
  for y = 1, e.h do
    for x = 1, e.w do
      local d1, d2 = a[2]:distance(x, y), b[2]:distance(x, y)
      local x1, y1 = a[2]:next(x, y)
      local x2, y2 = b[2]:next(x, y)
      if d1 ~= d2 or x1 ~= x2 or y1 ~= y2 then
        return self:failure(string.format("%s: its field differs at (%s,%s)", what, tostring(x), tostring(y)))
      end
    end
  end
end

function A.engines(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local way = st:choice({ "search", "nearest", "field", "same", "same" })
  if way == "same" then
    -- The call and its job are compared: no finalizer (--bombs) may write the grid between them.
    local checking = st.checking
    st.checking = true
    local ok, err = pcall(st.same_job, st, e)
    st.checking = checking
    if not ok then error(err, 0) end
    return
  end
  local opts, uses, info = st:options(e)
  if way ~= "field" then opts = st:answer_options(opts, e) end
  if type(opts) == "table" and way == "search" and st:chance(0.3) then
    rawset(opts, "hierarchical", st:chance(0.9) and st:chance(0.5) or st:weird())
  end
  local sx, sy, gx, gy = st:coord(e.w), st:coord(e.h), st:coord(e.w), st:coord(e.h)
  local points = {}
  for i = 1, st:int(0, 3) do points[i] = st:point(st:coord(e.w), st:coord(e.h), true) end
  if st:chance(0.05) then points = st:weird() end
  points = st:far(points)
  st:with_ctx(uses, function()
    local r
    if way == "search" then
      r = st:call("grid:search", g.search, g, sx, sy, gx, gy, opts)
    elseif way == "nearest" then
      r = st:call("grid:search_nearest", g.search_nearest, g, sx, sy, points, opts)
    else
      r = st:call("grid:field_job", g.field_job, g, points, opts)
    end
    if r[1] and type(r[2]) == "userdata" then
      local reads = {}
      for _, u in ipairs(uses) do reads[#reads + 1] = u end
      st:add("job", r[2], { grid = e, reads = reads, simple = false, plain = info.plain or opts == nil,
        sx = sx, sy = sy, gx = gx, gy = gy, w = e.w, h = e.h })
    end
  end)
end

function A.field_ops(st)
  local e = st:pick("field")
  if not e then return end
  local f = e.obj
  local r = st:int(1, 5)
  local x, y = st:coord(e.w), st:coord(e.h)
  if r == 1 then st:call("field:distance", f.distance, f, x, y)
  elseif r == 2 then st:call("field:next", f.next, f, x, y)
  elseif r == 3 then st:call("field:path", f.path, f, x, y)
  elseif r == 4 then st:call("field:cells", f.cells, f)
  else st:call("field:size", f.size, f) end
end

function A.layer(st)
  local e = st:pick("influence")
  if not e then return end
  local l = e.obj
  local x, y = st:coord(e.w), st:coord(e.h)
  local v = st:chance(0.9) and st:choice({ 0, 1, -1, 2.5, 100 }) or st:weird()
  local r = st:int(1, 10)
  if r == 1 then st:call("influence:set", l.set, l, x, y, v)
  elseif r == 2 then st:call("influence:get", l.get, l, x, y)
  elseif r == 3 then st:call("influence:add", l.add, l, x, y, v)
  elseif r == 4 then st:call("influence:fill", l.fill, l, v)
  elseif r == 5 then
    st:call("influence:stamp", l.stamp, l, x, y, st:choice({ 0, 1, 2.5, 1e6 }), v,
      st:chance(0.9) and st:choice({ "linear", "quadratic", "constant" }) or st:weird())
  elseif r == 6 then st:call("influence:decay", l.decay, l, st:chance(0.9) and st:choice({ 0, 0.5, 1, 2 }) or st:weird())
  elseif r == 7 then
    local g = st:chance(0.5) and st:pick("grid", function(x2) return same_size(x2, e.w, e.h) end) or nil
    st:call("influence:spread", l.spread, l, st:choice({ 0, 0.5, 3 }), st:choice({ 0, 0.5, 1, 1.5 }), g and g.obj)
  elseif r == 8 then st:call("influence:max_abs", l.max_abs, l)
  elseif r == 9 then
    local o = st:pick("influence")
    st:call("influence:add_layer", l.add_layer, l, o and o.obj or st:weird(), st:choice({ 1, -1, 0.5 }))
  else st:call("influence:size", l.size, l) end
end

function A.mask(st)
  local e = st:pick("mask")
  if not e then return end
  local m = e.obj
  if st:chance(0.5) then
    st:call("mask:reveal", m.reveal, m, st:coord(e.w), st:coord(e.h), st:chance(0.9) and st:choice({ 0, 1, 2.5, 1e9 }) or
      st:weird())
  else
    st:call("mask:is_known", m.is_known, m, st:coord(e.w), st:coord(e.h))
  end
end

function A.claims(st)
  local e = st:pick("claims")
  if not e then return end
  local c = e.obj
  local r = st:int(1, 6)
  st:with_ctx({ e }, function()
    if r <= 2 then
      local path = st:path_list(e.w, e.h, true)
      if st:chance(0.05) then path = st:chance(0.5) and {} or st:weird() end
      st:call("claims:claim", c.claim, c, st:unit(), path)
    elseif r == 3 then st:call("claims:advance", c.advance, c, st:unit(), st:chance(0.9) and st:int(0, 4) or st:weird())
    elseif r == 4 then st:call("claims:release", c.release, c, st:unit())
    elseif r == 5 then st:call("claims:count", c.count, c, st:coord(e.w), st:coord(e.h))
    else st:call("claims:position", c.position, c, st:unit()) end
  end)
end

function A.gclaims(st)
  local e = st:pick("gclaims")
  if not e then return end
  local c = e.obj
  local sz = st:call("graph:size", e.graph.obj.size, e.graph.obj)
  local n = sz[1] and type(sz[2]) == "number" and sz[2] or 3
  local r = st:int(1, 5)
  if r <= 2 then
    local ids = {}
    for i = 1, st:int(1, 5) do ids[i] = st:chance(0.95) and st:int(1, math.max(1, n)) or st:weird() end
    ids = st:far(ids)
    st:call("gclaims:claim", c.claim, c, st:unit(), ids)
  elseif r == 3 then st:call("gclaims:advance", c.advance, c, st:unit(), st:int(0, 3))
  elseif r == 4 then st:call("gclaims:release", c.release, c, st:unit())
  else st:call("gclaims:count", c.count, c, st:chance(0.9) and st:int(1, math.max(1, n + 1)) or st:weird()) end
end

function A.graph_write(st)
  local e = st:pick("graph")
  if not e then return end
  local g = e.obj
  local r0 = st:call("graph:size", g.size, g)
  local n = r0[1] and r0[2] or 1
  local function id() return st:chance(0.93) and st:int(1, math.max(1, n)) or st:choice({ 0, n + 1, 1.5, NAN, "1" }) end
  local r = st:int(1, 6)
  if r == 1 then st:grow_graph(e, st:int(1, 3))
  elseif r == 2 then
    st:call("graph:add_node", g.add_node, g, st:chance(0.9) and st:int(-5, 5) or st:choice({ NAN, HUGE, 1e200, "1" }),
      st:int(-5, 5), st:chance(0.5) and st:int(0, 3) or nil)
  elseif r == 3 then
    local f = st:chance(0.5) and g.add_edge or g.add_arc
    st:call("graph:add_edge/arc", f, g, id(), id(), st:chance(0.5) and st:choice({ 0, 1, 2.5, -1, NAN, HUGE }) or nil)
  elseif r == 4 then
    st:call("graph:remove_edge/arc", st:chance(0.5) and g.remove_edge or g.remove_arc, g, id(), id())
  elseif r == 5 then st:call("graph:set_blocked", g.set_blocked, g, id(), st:chance(0.9) and st:chance(0.3) or st:weird())
  else
    local r2 = st:int(1, 5)
    if r2 == 1 then st:call("graph:arc_cost", g.arc_cost, g, id(), id())
    elseif r2 == 2 then st:call("graph:node", g.node, g, id())
    elseif r2 == 3 then st:call("graph:neighbours", g.neighbours, g, id())
    elseif r2 == 4 then st:call("graph:is_blocked", g.is_blocked, g, id())
    else st:call("graph fields", function() return g.nodes, g.arcs, tostring(g) end) end
  end
end

function A.graph_find(st)
  local e = st:pick("graph")
  if not e then return end
  local g = e.obj
  local r0 = st:call("graph:size", g.size, g)
  local n = r0[1] and r0[2] or 1
  local a = st:chance(0.93) and st:int(1, math.max(1, n)) or st:weird()
  local b = st:chance(0.93) and st:int(1, math.max(1, n)) or st:weird()
  local opts, uses = st:options(e)
  local want
  opts, want = st:answer_options(opts, e)
  if want then want.options = opts end
  st:with_ctx(uses, function()
    local r = st:call("graph:find", g.find, g, a, b, opts)
    local plain_ids, plain_info, unknown = st:plain_answer("graph:find", want, r)
    if r[1] and not e.closed and not unknown then
      local ids, info = plain_ids, plain_info
      if type(info) ~= "table" or not STATUSES[info.status] then return st:failure("graph find: bad info") end
      if ids ~= nil then
        if type(ids) ~= "table" or ids[1] ~= a then return st:failure("graph find: the path does not start at a") end
        if info.status == "found" and ids[#ids] ~= b then return st:failure("graph find: the path does not end at b") end
        for i = 2, #ids do
          local c = st:call("graph:arc_cost", g.arc_cost, g, ids[i - 1], ids[i])
          if not c[1] or c[2] == nil then return st:failure("graph find: the path uses a missing arc") end
        end
      end
    end
  end)
end

-- Graph fields, ranges and the nearest (gfields): any answer's field answers its methods, and a
-- find_nearest path starts at a and ends at one of the targets. Fields toward their sources
-- (toward = true; refused by range and find_nearest): a node's way starts at it.
function A.graph_fields(st)
  local e = st:pick("graph")
  if not e then return end
  local g = e.obj
  local r0 = st:call("graph:size", g.size, g)
  local n = r0[1] and r0[2] or 1
  local function id() return st:chance(0.93) and st:int(1, math.max(1, n)) or st:weird() end
  local opts, uses = st:options(e)
  local toward = type(opts) == "table" and getmetatable(opts) == nil and st:chance(0.4)
  if toward then opts.toward = true end
  st:with_ctx(uses, function()
    local k = st:int(1, 3)
    if toward and k ~= 1 and st:chance(0.8) then k = 1 end -- mostly a field; else refused by name
    local r
    if k == 1 then
      local sources = st:chance(0.3) and id() or { id(), st:chance(0.5) and id() or nil }
      r = st:call("graph:distance_field", g.distance_field, g, sources, opts)
    elseif k == 2 then
      r = st:call("graph:range", g.range, g, id(), st:chance(0.9) and st:int(0, 12) or st:weird(), opts)
      if r[1] then r = { true, r[3], r[4] } end
    else
      local a = id()
      local targets = { id(), st:chance(0.5) and { id = id(), cost = st:chance(0.8) and st:int(0, 5) or st:weird() } or nil }
      r = st:call("graph:find_nearest", g.find_nearest, g, a, targets, opts)
      if r[1] and r[2] ~= nil and not e.closed then
        local ids, info = r[2], r[3]
        if type(ids) ~= "table" or ids[1] ~= a then return st:failure("graph find_nearest: the path does not start at a") end
        if type(info) ~= "table" or type(info.target) ~= "number" then return st:failure("graph find_nearest: no target") end
      end
      return
    end
    if r[1] and type(r[2]) == "table" then
      local f = r[2]
      local list = st:call("field:nodes", f.nodes, f)
      if not list[1] or type(list[2]) ~= "table" then return st:failure("graph field: nodes() failed") end
      for i = 1, math.min(#list[2], 8) do
        local node = list[2][i]
        local way = st:call("field:path", f.path, f, node.id)
        if not way[1] or type(way[2]) ~= "table" or way[2][toward and 1 or #way[2]] ~= node.id then
          return st:failure("graph field: path() does not " .. (toward and "start" or "end") .. " at its node")
        end
        if f:get(node.id) ~= node.cost then return st:failure("graph field: get() differs from nodes()") end
      end
      st:call("field:get", f.get, f, st:weird())
    end
  end)
end

function A.sched_request(st)
  local e = st:pick("sched")
  local ge = st:pick("grid")
  if not e or not ge then return end
  local s = e.obj
  local opts, uses = st:options(ge)
  local box = {}
  local cb = st:hook(st:counted(e, box, function(path, info)
    if st:on("mods2") and st.rng.next() < 0.3 then st:close_scheduled(e) end
    if st:on("frame") and st.rng.next() < 0.3 then A.sched_frame_op(st, e) end
    if st.rng.next() < 0.3 then st:chaos() end
    if st.rng.next() < 0.1 then error(st:our_error(), 0) end
    -- A request whose search raised ends with status "error" (meta.lua, Scheduler:request).
    local failed = type(info) == "table" and info.status == "error" and path == nil
    -- (options() now and then sets path = "flat", which a search, and so a request, takes:
    -- a flat answer is not a list of points)
    local flat = type(path) == "table" and type(path[1]) == "number"
    if st.rng.next() < 0.2 and not ge.closed and not failed and not flat then
      st:check_answer("scheduler callback", ge, nil, nil, nil, path, info, true)
    end
  end))
  local counted = cb
  if st:chance(0.05) then cb = st:weird() end -- (which may be a function that counts nothing)
  local prio = st:chance(0.9) and st:int(-3, 3) or st:weird()
  uses[#uses + 1] = e
  st:with_ctx(uses, function()
    local r = st:call("sched:request", s.request, s, ge.obj, st:coord(ge.w), st:coord(ge.h), st:coord(ge.w),
      st:coord(ge.h), opts, cb, prio)
    if r[1] then
      e.tickets[#e.tickets + 1], box.ticket = r[2], r[2]
      if e.counted then e.counted[r[2]] = rawequal(cb, counted) end
    end
  end)
end

function A.sched_tick(st)
  local e = st:pick("sched")
  if not e then return end
  st:with_ctx({ e }, function() A.sched_op(st, e) end)
end

function A.sched_op(st, e)
  local s = e.obj
  local r = st:int(1, 6)
  if r <= 3 then
    st:call("sched:tick", s.tick, s, st:chance(0.8) and nil or st:choice({ 0, 1, 10, -1, 1.5 }))
  elseif r == 4 then
    local t = #e.tickets > 0 and st:chance(0.9) and st:choice(e.tickets) or st:weird()
    st:cancel_ticket(e, t)
  elseif r == 5 then st:call("sched:tell", s.tell, s)
  else st:call("sched:admit", s.admit, s) end
end

-- Issue 27's scheduler ("frame"): re-aim a ticket (live, told, cancelled or weird; coordinates
-- in and out of the grid, with and without a new start), read its stats, run a grid:search job
-- or a job of our own (which may answer nonsense: the request ends with status "error"), on a
-- scheduler that may have budget_us and a clock of our own. From a callback too (sched_request).
function A.sched_frame_op(st, e)
  local s = e.obj
  local r = st:int(1, 4)
  if r == 1 then
    local t = #e.tickets > 0 and st:chance(0.9) and st:choice(e.tickets) or st:weird()
    local w, h = st:dims()
    if st:chance(0.6) then
      st:call("sched:retarget", s.retarget, s, t, st:coord(w), st:coord(h))
    else
      st:call("sched:retarget", s.retarget, s, t, st:coord(w), st:coord(h), st:coord(w), st:coord(h))
    end
  elseif r == 2 then
    st:call("sched:stats", s.stats, s, st:chance(0.7) and {} or st:weird())
  else
    local job
    if r == 3 then
      local ge = st:pick("grid")
      if not ge then return end
      local j = st:call("grid:search", ge.obj.search, ge.obj, st:coord(ge.w), st:coord(ge.h), st:coord(ge.w),
        st:coord(ge.h))
      if not j[1] then return end
      job = j[2]
    else
      local steps, answer = st:int(0, 3), st:chance(0.8)
      job = {
        step = st:hook(function(_, n)
          steps = steps - 1
          if st.rng.next() < 0.1 then return st:weird(), st:weird() end
          return steps > 0 and "running" or "done", math.min(n, st:int(0, 5))
        end),
        result = st:hook(function()
          if not answer then error(st:our_error(), 0) end
          return "answer", { status = "done" }
        end),
      }
    end
    local box = {}
    local cb = st:hook(st:counted(e, box, function() end))
    local rr = st:call("sched:run", s.run, s, st:chance(0.95) and job or st:weird(), cb,
      st:chance(0.9) and st:int(-3, 3) or st:weird())
    if rr[1] then
      e.tickets[#e.tickets + 1], box.ticket = rr[2], rr[2]
      if e.counted then e.counted[rr[2]] = true end
    end
  end
end

function A.sched_frame(st)
  local e = st:pick("sched")
  if not e then return end
  st:with_ctx({ e }, function()
    A.sched_frame_op(st, e)
    if st:chance(0.5) then st:call("sched:tick", e.obj.tick, e.obj) end
  end)
end

-- Landmarks and hierarchies (issue 25): built at once or as builds, their options now and
-- then closing the grid (or anything) after its type was checked.
function St:build_options()
  local r = self:int(1, 6)
  if r <= 2 then return nil end
  local plan = { threads = self:chance(0.9) and self:int(1, 3) or self:weird() }
  if r == 6 then return self:weird() end
  if r == 5 or r == 4 then return self:closing(plan, { "threads" }) end
  return plan
end

function A.build(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local which = st:int(1, 4)
  local hierarchy = which % 2 == 0
  local k = st:chance(0.92) and (hierarchy and st:choice({ 0, 2, 3, 4, 8 }) or st:int(0, 6)) or st:weird()
  local opts = st:build_options()
  st:with_ctx({ e }, function()
    if which <= 2 then
      local r = st:call(hierarchy and "grid:hierarchy(k, opts)" or "grid:landmarks(k, opts)",
        hierarchy and g.hierarchy or g.landmarks, g, k, opts)
      if r[1] and e.closed and not st.cfg.bombs then
        st:failure("grid:" .. (hierarchy and "hierarchy" or "landmarks") .. " built on a closed grid")
      end
    else
      local r = st:call(hierarchy and "grid:build_hierarchy" or "grid:build_landmarks",
        hierarchy and g.build_hierarchy or g.build_landmarks, g, k, opts)
      if r[1] and e.closed and not st.cfg.bombs then st:failure("a build was made on a closed grid") end
      if r[1] and type(r[2]) == "userdata" then st:add("build", r[2], { grid = e, w = e.w, h = e.h }) end
    end
  end)
end

function A.build_ops(st)
  local e = st:pick("build")
  if not e then return end
  local b = e.obj
  local r = st:int(1, 8)
  st:with_ctx({ e, e.grid }, function()
    if r <= 3 then
      local n = st:chance(0.9) and st:choice({ 1, 5, 50, 1000 }) or st:choice({ 0, -1, 1.5, NAN, "3" })
      st:call("build:step", b.step, b, n)
    elseif r == 4 then st:call("build:finish", b.finish, b)
    elseif r == 5 then st:call("build:progress", b.progress, b)
    elseif r == 6 then st:call("build:status", b.status, b)
    elseif r == 7 then st:call("build:restarts", b.restarts, b)
    else st:call("build fields", function() return b:done(), b:threads(), b:size(), tostring(b) end) end
  end)
end

-- grid:prepare (issue 26): the lazy tables, workspaces, a hierarchy, or a Build of the tables.
function A.prepare(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local plan = {}
  if st:chance(0.6) then plan.workspaces = st:chance(0.9) and st:int(0, 3) or st:weird() end
  if st:chance(0.3) then plan.hierarchy = st:chance(0.9) and st:choice({ true, false, 2, 3, 4, 12 }) or st:weird() end
  if st:chance(0.3) then plan.diagonal = st:chance(0.9) and st:choice(DIAGS) or st:weird() end
  if st:chance(0.4) then plan.build = st:chance(0.9) and st:chance(0.5) or st:weird() end
  local opts = plan
  local r = st:int(1, 10)
  if r == 1 then opts = nil
  elseif r == 2 then opts = st:weird()
  elseif r <= 4 then opts = st:closing(plan, { "workspaces", "hierarchy", "diagonal", "build" }) end
  st:with_ctx({ e }, function()
    local res = st:call("grid:prepare", g.prepare, g, opts)
    if res[1] and e.closed and not st.cfg.bombs then st:failure("grid:prepare ran on a closed grid") end
    if res[1] and type(res[2]) == "userdata" then st:add("build", res[2], { grid = e, w = e.w, h = e.h }) end
  end)
end

-- A build under a scheduler, beside its searches; its callback and theirs may close what the
-- others use (issue 25, defect 6).
function A.sched_build(st)
  local e = st:pick("sched")
  if not e then return end
  local s = e.obj
  local be = st:chance(0.5) and st:pick("build") or nil
  if not be then
    local ge = st:pick("grid")
    if not ge then return end
    local g = ge.obj
    local hierarchy = st:chance(0.5)
    local r = st:call("grid:build_*", hierarchy and g.build_hierarchy or g.build_landmarks, g,
      hierarchy and st:choice({ 0, 2, 3 }) or st:int(0, 3))
    if not r[1] or type(r[2]) ~= "userdata" then return end
    be = st:add("build", r[2], { grid = ge, w = ge.w, h = ge.h })
  end
  local box = {}
  local cb = st:hook(st:counted(e, box, function(build, info)
    if st.rng.next() < 0.4 then st:close_scheduled(e) end
    if st.rng.next() < 0.15 then st:chaos() end
    if st.rng.next() < 0.1 then error(st:our_error(), 0) end
    local ok = type(info) == "table" and (info.status == "done" and build == be.obj or
      info.status == "error" and build == nil and info.error ~= nil)
    if not ok then st:failure("a scheduled build answered " .. describe(build) .. ", " .. describe(info)) end
  end))
  st:with_ctx({ e, be }, function()
    local r = st:call("sched:build", s.build, s, be.obj, cb, st:int(-2, 2))
    if r[1] then
      e.tickets[#e.tickets + 1], box.ticket = r[2], r[2]
      if e.counted then e.counted[r[2]] = true end
      be.sched = e
    end
  end)
end

-- Several requests and builds on one scheduler, ticked until they are told: many finish in
-- the same tick, and each callback may close what the ones told after it use (issue 25,
-- defect 6: the second build's callback was never called).
function A.sched_burst(st)
  local e = st:pick("sched")
  local ge = st:pick("grid")
  if not e or not ge or e.closed then return end
  local s = e.obj
  for _ = 1, st:int(2, 4) do
    local box = {}
    local cb = st:hook(st:counted(e, box, function()
      if st.rng.next() < 0.5 then st:close_scheduled(e) end
      if st.rng.next() < 0.1 then error(st:our_error(), 0) end
    end))
    local r
    if st:chance(0.3) then
      local g = ge.obj
      local b = st:call("grid:build_landmarks", g.build_landmarks, g, st:int(0, 2))
      if b[1] and type(b[2]) == "userdata" then
        st:add("build", b[2], { grid = ge, w = ge.w, h = ge.h, sched = e })
        r = st:call("sched:build", s.build, s, b[2], cb)
      end
    else
      r = st:call("sched:request", s.request, s, ge.obj, st:coord(ge.w), st:coord(ge.h), st:coord(ge.w),
        st:coord(ge.h), nil, cb)
    end
    if r and r[1] then
      e.tickets[#e.tickets + 1], box.ticket = r[2], r[2]
      if e.counted then e.counted[r[2]] = true end
    end
  end
  st:with_ctx({ e, ge }, function()
    for _ = 1, 20 do
      local p = st:call("sched:pending", s.pending, s)
      if not p[1] or p[2] == 0 then break end
      st:call("sched:tick", s.tick, s, st:choice({ 100, 10000 }))
    end
  end)
end

function A.smooth(st)
  local e = st:pick("grid")
  if not e then return end
  local path = st:path_list(e.w, e.h, true)
  local opts = nil
  if st:chance(0.3) then opts = { diagonal = st:choice(DIAGS) } end
  if st:chance(0.05) then opts = st:weird() end
  if type(opts) == "table" or opts == nil then opts = st:maybe_closing(opts, opts, { "diagonal" }) end
  st:with_ctx({ e }, function() st:call("astar.smooth", astar.smooth, e.obj, path, opts) end)
end

function A.debug(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local plan = {}
  local keys = {}
  if st:chance(0.5) then keys[#keys + 1] = "path"; plan.path = st:path_list(e.w, e.h, true) end
  if st:chance(0.3) then
    keys[#keys + 1] = "influence"
    local l = st:layer_for(e.w, e.h)
    plan.influence = l and l.obj
  end
  if st:chance(0.3) then
    keys[#keys + 1] = "claims"
    local c = st:pick("claims")
    plan.claims = c and c.obj or st:weird()
  end
  if st:chance(0.3) then
    keys[#keys + 1] = "explored"
    local f = st:pick("field")
    plan.explored = f and f.obj or st:path_list(e.w, e.h, true)
  end
  local opts = st:present(plan, keys, function() return st:weird() end)
  opts = st:maybe_closing(opts, plan, keys)
  local r = st:int(1, 5)
  st:with_ctx({ e }, function()
    if r <= 3 then
      st:call("debug.ascii", astar.debug.ascii, g, opts)
    elseif r == 4 then
      st:call("debug.png", astar.debug.png, g, opts)
    else
      local fopts = st:options(e)
      st:call("debug.explore", astar.debug.explore, g, st:coord(e.w), st:coord(e.h), st:coord(e.w), st:coord(e.h), fopts)
    end
  end)
end

function A.close(st) st:close_something(false) end

-- The PNG encoder behind astar.debug.png, called directly as a script could.
function A.png(st)
  local core = require("astar.core")
  local w, h = st:int(1, 5), st:int(1, 5)
  local n = w * h * 3
  if st:chance(0.2) then n = n + st:choice({ -1, 1, -n }) end
  if st:chance(0.1) then w = st:choice({ 0, -1, 65537, 2 ^ 40, 1.5, NAN }) end
  local rgb = string.rep(string.char(st:int(0, 255)), math.max(0, n))
  st:call("core.png_encode", core.png_encode, w, h, st:chance(0.95) and rgb or st:weird())
end

-- A call from inside a coroutine, whose callbacks may then try to yield.
function A.coroutine(st)
  local co = coroutine.create(function() st:action(true) end)
  local depth, nctx = st.depth, #st.ctx
  st.in_coroutine = (st.in_coroutine or 0) + 1
  local ok, err = coroutine.resume(co)
  -- A yield leaves the coroutine suspended for good, in the middle of whatever it ran.
  st.in_coroutine, st.depth = st.in_coroutine - 1, depth
  for i = #st.ctx, nctx + 1, -1 do st.ctx[i] = nil end
  if not ok then error(err, 0) end
end
function A.drop(st) st:drop_something() end
function A.gc(st) st:call("collectgarbage", collectgarbage, st:chance(0.5) and "collect" or "step") end
function A.foreign(st) st:foreign_abuse() end

-- Interests (issue 18): a find with pick-ups, their entries now and then proxies or weird.
-- Since issue 25 ("bound"; the seeds found before it disable it, so they draw what they drew
-- then) values are drawn near and beyond the bound too (2^20: beyond is an error naming it),
-- and an answer the oracle can follow is held to it to the bit: its score, and its cost as the
-- path's steps summed (below 2^20, where costs are exact; near it above).
local INTEREST_MAX = 2 ^ 20
local GOOD_VALUES = { 1, 0.5, 20, 3.5, 999999.25, 2 ^ 19 + 2 ^ -33, INTEREST_MAX * 0.75, INTEREST_MAX - 2 ^ -32,
  INTEREST_MAX }
local BIG_VALUES = { INTEREST_MAX, INTEREST_MAX - 2 ^ -32, INTEREST_MAX - 0.5, 2 ^ 19 + 2 ^ -33, 999999.25, 3.5,
  INTEREST_MAX + 2 ^ -32, INTEREST_MAX + 1, 1e9, 1e12, 1e15, 1e17, 2 ^ 60, 1e100 }
function A.interests(st)
  local e, sx, sy, gx, gy, opts, uses, info = st:grid_query()
  if not e then return end
  local list, values = {}, {}
  local plain, beyond = true, nil -- every entry a table of ours; a value beyond the bound in one
  -- 1: good values on cells of the grid (the oracle gets to check most answers), 2: near and
  -- beyond the bound,
  -- 3 (and without "bound"): the draws of issue 18
  local mode = st:on("bound") and st:int(1, 3) or 3
  for i = 1, st:int(0, 4) do
    if mode ~= 1 and st:chance(0.05) then
      list[i] = st:weird()
      plain = false
    else
      local v = st:choice(mode == 1 and GOOD_VALUES or mode == 2 and BIG_VALUES or { 1, 0.5, 20, 0, -1, NAN, 1e101 })
      local p = mode == 1 and st:point(st:int(1, e.w), st:int(1, e.h)) or st:point(st:coord(e.w), st:coord(e.h), true)
      if type(p) == "table" and getmetatable(p) == nil then
        if p.x then p.value = v else p[3] = v end
        values[i] = v
      else
        plain = false
      end
      list[i] = p
    end
  end
  -- (The binding reads entries up to the first nil: a weird entry may be nil, and what follows
  -- unread.)
  for i = 1, rawlen_of(list) do
    if rawget(list, i) == nil then break end
    local v = values[i]
    if v and v > INTEREST_MAX and v < HUGE then beyond = beyond or v end
  end
  list = st:far(list)
  if type(opts) == "table" then rawset(opts, "interests", list) else opts = { interests = list } end
  st:with_ctx(uses, function()
    local r = st:call("grid:find interests", e.obj.find, e.obj, sx, sy, gx, gy, opts)
    if st:on("bound") then -- (these checks came with the draws above)
      if r[1] and beyond then
        st:failure(string.format("find interests: a value beyond 2^20 was taken: %.17g", beyond))
      elseif not r[1] and tostring(r[2]):find("%.value must be") and not tostring(r[2]):find("(0, 1048576]", 1, true) then
        st:failure("find interests: the error does not name the bound: " .. tostring(r[2]))
      end
    end
    -- (Points only: the options may ask for the flat form.)
    if r[1] and not e.closed and (r[2] == nil or type(r[2][1]) == "table") then
      -- (Fog of war may lead a path through a blocked cell it does not know.)
      local known = info.plan and info.plan.known ~= nil or not info.plain
      st:check_answer("find interests", e, sx, sy, { gx, gy }, r[2], r[3], known)
      local i = r[3]
      if r[2] and i.status == "found" and #list > 0 and (type(i.score) ~= "number" or i.score > i.cost + 1e-9) then
        st:failure("find interests: score " .. tostring(i.score) .. " above cost " .. tostring(i.cost))
      end
      if plain and #list > 0 and st:on("bound") then st:check_interests(e, sx, sy, gx, gy, list, info, r[2], r[3]) end
    end
  end)
end

-- Terrain classes ("classes"; every seed found before them disables it): set_class with good and
-- weird values, then a find with a classes table, good (checked: no path ends on a cell its
-- classes wall) or hostile (keys and factors out of range, NaN, metatables, weird values), and
-- the same options for a distance field or a range, and a check and a repair of the path found.
local CLASS_FACTORS = { 1, 0.5, 3, 0.01, 1e100, false, 0, -1, NAN, HUGE, 1e101, true, "2" }
function A.classes(st)
  local e, sx, sy, gx, gy, opts, uses = st:grid_query()
  if not e then return end
  for _ = 1, st:int(0, 6) do
    local c = st:chance(0.8) and st:int(0, 5) or st:weird()
    st:call("grid:set_class", e.obj.set_class, e.obj, st:coord(e.w), st:coord(e.h), c)
  end
  local classes, good = {}, st:chance(0.6)
  for _ = 1, st:int(0, 4) do
    local k = good and st:int(0, 5) or st:choice({ 0, 3, 255, 256, -1, 1.5, "x", NAN })
    local v = good and st:choice({ 1, 0.5, 3, 0.01, false }) or st:choice(CLASS_FACTORS)
    if k == k then rawset(classes, k, v) end
  end
  if not good and st:chance(0.3) then setmetatable(classes, { __index = function() return false end }) end
  local given = st:chance(0.9) and classes or st:weird()
  if type(opts) == "table" then rawset(opts, "classes", given) else opts = { classes = given } end
  st:with_ctx(uses, function()
    local r = st:call("grid:find classes", e.obj.find, e.obj, sx, sy, gx, gy, opts)
    local plain = type(opts) == "table" and getmetatable(opts) == nil and rawget(opts, "known") == nil and
      rawget(opts, "partial") == nil
    if r[1] and r[2] and good and plain and not e.closed and type(gx) == "number" and type(gy) == "number" then
      local ok, c = pcall(e.obj.get_class, e.obj, gx, gy)
      if ok and classes[c] == false and not (gx == sx and gy == sy) then
        st:failure(string.format("find classes: a path ends on (%s,%s), whose class %d is a wall", tostring(gx),
          tostring(gy), c))
      end
    end
    -- the same classes where a field is made or a path walked (options these refuse: errors)
    if st:chance(0.5) then
      st:call("grid:distance_field classes", e.obj.distance_field, e.obj, { { x = gx, y = gy } }, opts)
    else
      st:call("grid:range classes", e.obj.range, e.obj, sx, sy, st:int(0, 12), opts)
    end
    if type(r[1]) == "table" then
      st:call("grid:check_path classes", e.obj.check_path, e.obj, r[1], 1, opts)
      st:call("grid:repair classes", e.obj.repair, e.obj, r[1], 1, opts)
    end
  end)
end

-- Flee and wander ("flee"; every seed found before them disables it): grid:flee from points or
-- an influence layer, grid:wander, with the query's options (good and hostile) and their own
-- (distance, radius, threshold, tolerance) good or weird. A found answer starts at the start.
local AWAY_NUMBERS = { 3.3, 1, 0.5, 10, 0, -1, NAN, HUGE, 1e101, true, "2" }
function A.flee(st)
  local e, sx, sy, _, _, opts, uses = st:grid_query()
  if not e then return end
  local g = e.obj
  local threats
  if st:chance(0.3) then
    local l = st:pick("influence")
    threats = l and l.obj or st:weird()
    if l then uses[#uses + 1] = l end
  else
    threats = {}
    for i = 1, st:int(0, 3) do threats[i] = st:point(st:coord(e.w), st:coord(e.h), true) end
    if st:chance(0.05) then threats = st:weird() end
  end
  local wander, good = st:chance(0.35), st:chance(0.7)
  local function number(v) if good then return v end return st:choice(AWAY_NUMBERS) end
  local own = {}
  if wander then
    own[1] = { "tolerance", st:chance(0.5) and number(0.25) or nil }
  else
    own[1] = { "distance", number(st:int(1, 6) + 0.3) }
    own[2] = { "radius", st:chance(0.3) and number(8) or nil }
    own[3] = { "threshold", st:chance(0.2) and number(0.5) or nil }
  end
  if opts == nil then opts = {} end
  if type(opts) == "table" then
    for _, kv in ipairs(own) do rawset(opts, kv[1], kv[2]) end
  end
  st:with_ctx(uses, function()
    local r
    if wander then
      r = st:call("grid:wander", g.wander, g, sx, sy, number(st:int(0, 8) + 0.3), opts)
    else
      r = st:call("grid:flee", g.flee, g, sx, sy, threats, opts)
    end
    local path = r[2]
    if r[1] and type(path) == "table" and type(path[1]) == "table" and (path[1].x ~= sx or path[1].y ~= sy) then
      st:failure(string.format("%s: the path starts at (%s,%s), not (%d,%d)", wander and "wander" or "flee",
        tostring(path[1].x), tostring(path[1].y), sx, sy))
    end
  end)
end

-- Units bigger than one cell ("size"; every seed found before them disables it): a size good
-- (1..3) or hostile (0, 9, fractions, strings, NaN, weird values) given to every grid query and
-- a job stepped with terrain writes between its slices; a good one on a small square grid,
-- with or without a fog mask, held to the oracle (which checks every footprint cell itself).
local UNIT_SIZES = { 0, 9, -1, 1.5, "2", NAN, HUGE, 2 ^ 53 }
function A.size(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local good = st:chance(0.7)
  local n = good and st:int(1, 3) or st:choice(UNIT_SIZES)
  if not good and st:chance(0.3) then n = st:weird() end
  local sx, sy, gx, gy = st:coord(e.w), st:coord(e.h), st:coord(e.w), st:coord(e.h)
  local mask = st:chance(0.25) and st:pick("mask") or nil
  local diagonal = st:chance(0.5) and st:choice({ "never", "always", "one_walkable", "no_corner_cut" }) or nil
  local opts = { size = n, diagonal = diagonal, known = mask and mask.obj or nil }
  local kind = st:choice({ "find", "find", "nearest", "range", "field", "search", "check" })
  if kind == "find" then
    local r = st:call("grid:find size", g.find, g, sx, sy, gx, gy, opts)
    local square = type(e.w) == "number" and e.w * e.h <= 100 and g.topology ~= "hex"
    if r[1] and good and square and not e.closed and not (mask and mask.closed) and
       type(sx) == "number" and type(sy) == "number" and type(gx) == "number" and type(gy) == "number" then
      local world = grid_world(g, nil, mask and mask.obj, diagonal)
      world.size = n
      st:check_optimal("find size " .. n, world, sx, sy, gx, gy, r[2], r[3])
    end
  elseif kind == "nearest" then
    st:call("grid:find_nearest size", g.find_nearest, g, sx, sy, { { x = gx, y = gy }, { x = sy, y = sx } }, opts)
  elseif kind == "range" then
    st:call("grid:range size", g.range, g, sx, sy, st:choice({ 0, 3, 12.5, HUGE, -1 }), opts)
  elseif kind == "field" then
    st:call("grid:distance_field size", g.distance_field, g, { { x = gx, y = gy } }, opts)
  elseif kind == "check" then
    local r = st:call("grid:find", g.find, g, sx, sy, gx, gy)
    if r[1] and type(r[2]) == "table" then
      st:call("grid:set_cost", g.set_cost, g, st:coord(e.w), st:coord(e.h), false)
      st:call("grid:check_path size", g.check_path, g, r[2], 1, opts)
      st:call("grid:repair size", g.repair, g, r[2], 1, opts)
    end
  else
    local r = st:call("grid:search size", g.search, g, sx, sy, gx, gy, opts)
    local job = r[1] and r[2]
    for _ = 1, job and st:int(1, 6) or 0 do
      st:call("job:step", job.step, job, st:int(1, 5))
      st:call("grid:set_cost", g.set_cost, g, st:coord(e.w), st:coord(e.h), st:choice({ false, 1, 2.5 }))
    end
    if job then
      st:call("job:step", job.step, job)
      st:call("job:result", job.result, job)
    end
  end
end

-- A find with interests (list: plain entries) held to the oracle when it can follow the query:
-- the best score (oracle.interest_score), the path's steps summing to info.cost, the score that
-- cost less the value collected. Exact below a cost of 2^20 (docs/contract.md, "Interests").
function St:check_interests(e, sx, sy, gx, gy, list, qinfo, path, info)
  local view = oracle_view(qinfo)
  if not view or e.w * e.h > 100 or (path ~= nil and type(path[1]) ~= "table") then return end
  for _, l in ipairs(view.layers) do
    if type(l[1]) ~= "userdata" then return end
  end
  local g = e.obj
  if qinfo.plan.heuristic == "manhattan" and (qinfo.plan.diagonal or g.diagonal) ~= "never" then return end
  local interests = {}
  for i, p in ipairs(list) do interests[i] = { x = p.x or p[1], y = p.y or p[2], value = p.value or p[3] } end
  self:quietly(function()
    local world = grid_world(g, view.layers, view.mask, view.diagonal)
    local want = oracle.interest_score(world, sx, sy, { { x = gx, y = gy } }, interests)
    local what = string.format("find interests (%d,%d)->(%d,%d) on %dx%d%s", sx, sy, gx, gy, e.w, e.h,
      e.hex and " hex" or " " .. tostring(world.mode))
    if want == nil or info.status ~= "found" then
      if (want == nil) ~= (info.status ~= "found") then
        self:failure(what .. ": status " .. tostring(info.status) .. ", oracle score " .. tostring(want))
      end
      return
    end
    local sum = 0
    for i = 2, #path do
      local s = oracle_step(world, path[i - 1].x, path[i - 1].y, path[i].x, path[i].y)
      if not s then return self:failure(what .. ": illegal step " .. (i - 1) .. " in the path") end
      sum = sum + s
    end
    local exact = info.cost < INTEREST_MAX
    local function same(a, b) return a == b or (not exact and near(a, b)) end
    local v = info.interest and interests[info.interest] and oracle.round_down(interests[info.interest].value) or 0
    if not same(info.cost, sum) or not same(info.score, want) or not same(info.score, info.cost - v) then
      self:failure(string.format("%s: cost %.17g (steps %.17g), score %.17g (oracle %.17g), interest %s\n%s", what,
        info.cost, sum, info.score, want, tostring(info.interest), dump_world(world)))
    end
  end)
end

-- check_path and repair (issue 18) of a path, mostly a real one found before a change.
function A.walk(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local path
  if st:chance(0.7) and not e.closed then
    local ok, p = pcall(g.find, g, st:coord(e.w), st:coord(e.h), st:coord(e.w), st:coord(e.h))
    path = ok and p or nil
  end
  path = path or st:path_list(e.w, e.h, true)
  if st:chance(0.05) then path = st:weird() end
  path = st:far(path)
  local n = type(path) == "table" and rawlen_of(path) or 1
  local from = st:chance(0.1) and st:weird() or st:int(1, math.max(1, n))
  local opts, uses = st:options(e)
  if type(opts) == "table" and st:chance(0.3) then rawset(opts, "rejoin_within", st:choice({ 1, 3, 64, 0, 2.5 })) end
  st:with_ctx(uses, function()
    st:call("grid:check_path", g.check_path, g, path, from, opts)
    local r = st:call("grid:repair", g.repair, g, path, from, opts)
    -- (Points only: options may ask for the flat form.)
    if r[1] and not e.closed and type(path) == "table" and (r[2] == nil or type(r[2][1]) == "table") then
      local start = r[2] and r[2][1]
      st:check_answer("repair", e, start and start.x, start and start.y, nil, r[2], r[3], true)
    end
  end)
end

-- Paths in every form, versions and check_path's option since (issue 26: "living"): a path
-- found in a random form (or a list drawn at random), info.version against grid:version(),
-- a few writes, then check_path with since (the path's version, or anything) against
-- check_path without: the same answer for a path find made; and the other functions taking a
-- path (smooth, claims:claim, debug) given the same form.
local PATH_FORMS = { "points", "flat", "into_points", "into_flat", "xy" }
function A.living(st)
  local e = st:pick("grid")
  if not e then return end
  local g = e.obj
  local form = st:choice(PATH_FORMS)
  local fopts = { path = form:find("flat") and "flat" or "points" }
  if form:find("into") then fopts.into = st:far({ 9, 9, 9, 9, 9 }, 0.3) end
  local r = st:call("grid:find", g.find, g, st:coord(e.w), st:coord(e.h), st:coord(e.w), st:coord(e.h), fopts)
  local path, v = r[2], r[1] and type(r[3]) == "table" and r[3].version
  local real = type(path) == "table" and type(v) == "number"
  if real and form == "xy" then
    local xy = {}
    for i, q in ipairs(path) do xy[i] = { q.x, q.y } end
    path = xy
  end
  if not real then path = st:path_list(e.w, e.h, true) end
  if st:chance(0.03) then path = st:weird() end
  local now = st:call("grid:version", g.version, g)
  if real and now[1] and now[2] ~= v then
    st:failure("find's info.version " .. tostring(v) .. " is not grid:version() " .. tostring(now[2]))
  end
  for _ = 1, st:int(0, 3) do
    st:call("grid:set_cost", g.set_cost, g, st:coord(e.w), st:coord(e.h), st:choice({ 1, 2, false, false }))
  end
  local since = v
  if not real or st:chance(0.1) then since = st:chance(0.5) and st:weird() or st:int(0, 8) end
  local n = type(path) == "table" and rawlen_of(path) or 1
  if real and form:find("flat") then n = math.floor(n / 2) end
  local from = st:chance(0.05) and st:weird() or st:int(1, math.max(1, n))
  st:with_ctx({ e }, function()
    local a = st:call("grid:check_path since", g.check_path, g, path, from, { since = since })
    local b = st:call("grid:check_path", g.check_path, g, path, from)
    if real and since == v and a[1] and b[1] and a[2] ~= b[2] then
      st:failure(string.format("check_path since %s: %s, without: %s (%s path of %d cells)", tostring(since),
        tostring(a[2]), tostring(b[2]), form, n))
    end
    if a[1] ~= b[1] and real and since == v then
      st:failure("check_path since and without: one raised: " .. tostring(a[2]) .. " / " .. tostring(b[2]))
    end
    -- (smooth tries every leg: a long path would take minutes)
    if st:chance(0.3) and n <= 64 then st:call("astar.smooth", astar.smooth, g, path) end
    local c = st:pick("claims", function(x) return x.w == e.w and x.h == e.h end)
    if c and st:chance(0.3) then st:call("claims:claim", c.obj.claim, c.obj, st:unit(), path) end
    if st:chance(0.1) and e.w * e.h <= 4096 then st:call("astar.debug.ascii", astar.debug.ascii, g, { path = path }) end
  end)
end

function A.newindex(st)
  local e = st:pick(nil, function(x) return type(x.obj) == "userdata" end)
  if not e then return end
  st:call("obj.field = v", function() e.obj[st:choice({ "width", "x", "find" })] = 1 end)
end

-- A work limit on this thread's C work (issue 25), or none: small ones stop the calls that
-- follow anywhere in their work (lazy tables, searches, builds, writes), which must leave
-- every object usable (the invariants); now and then a value set_work_limit refuses.
local LIMITS = { 0, 1, 3, 10, 40, 200, 1000, 5000, 50000 }
function A.work_limit(st)
  local r = st:int(1, 10)
  local n
  if r <= 2 then n = nil
  elseif r == 3 then n = st:weird()
  else n = st:choice(LIMITS) end
  st:call("astar.set_work_limit", astar.set_work_limit, n)
end

-- The weights of the top-level actions: queries and their options carry most of the chaos.
local ACTIONS = {
  { "new_grid", 6 }, { "load_map", 2 }, { "load_scen", 1 }, { "new_influence", 4 }, { "new_mask", 3 },
  { "new_claims", 4 }, { "new_graph", 3 }, { "new_sched", 2 }, { "grid_write", 6 }, { "grid_read", 4 },
  { "find", 14 }, { "find_nearest", 5 }, { "find_many", 5 }, { "search", 7 }, { "job", 8 }, { "field", 5 },
  { "field_ops", 3 }, { "layer", 5 }, { "mask", 3 }, { "claims", 5 }, { "gclaims", 3 }, { "graph_write", 6 },
  { "graph_find", 8 }, { "sched_request", 4 }, { "sched_tick", 5 }, { "smooth", 2 }, { "debug", 2 },
  { "close", 4 }, { "drop", 2 }, { "gc", 2 }, { "foreign", 3 }, { "newindex", 1 }, { "coroutine", 2 },
  { "png", 1 }, { "interests", 5, "walks" }, { "walk", 5, "walks" }, { "work_limit", 4, "limits" },
  { "build", 4, "mods2" }, { "build_ops", 3, "mods2" }, { "sched_build", 3, "mods2" }, { "sched_burst", 2, "mods2" },
  { "prepare", 3, "living" }, { "living", 4, "living" }, { "sched_frame", 4, "frame" },
  { "engines", 5, "engines" }, { "classes", 4, "classes" }, { "graph_fields", 5, "gfields" },
  { "flee", 4, "flee" },
  { "size", 4, "size" },
}
local NESTED = { new_grid = false, load_map = false, load_scen = false, new_sched = false, new_graph = false,
  sched_burst = false }
-- The weights of the actions a run draws from: a feature turned off takes its actions out.
local function total_of(st)
  local total = 0
  for _, a in ipairs(ACTIONS) do
    if not a[3] or st:on(a[3]) then total = total + a[2] end
  end
  return total
end

-- One random action; nested (from chaos) skips the constructors that only grow the pool.
function St:action(nested)
  local name
  repeat
    local r = self:int(1, total_of(self))
    for _, a in ipairs(ACTIONS) do
      if not a[3] or self:on(a[3]) then
        r = r - a[2]
        if r <= 0 then name = a[1]; break end
      end
    end
  until not (nested and NESTED[name] == false)
  if not self:on(name) then return end
  self:log("action %s", name)
  if not nested and self:chance(0.3) then self:plant_bombs() end
  A[name](self)
end

-- ------------------------------------------------------------------- runs
-- One seed: `steps` actions, the invariants after each. Returns nil, or the failure text.
function M.run(seed, steps, cfg)
  cfg = cfg or {}
  cfg.disabled = cfg.disabled or {}
  astar.set_work_limit(nil) -- a run starts without one, whatever the last left
  local st = new_state(seed, cfg)
  -- A busier collector makes finalizers run at more of the binding's allocations.
  local pause = collectgarbage("setpause", st:choice({ 200, 120, 60 }))
  local stepmul = collectgarbage("setstepmul", st:choice({ 100, 200, 400 }))
  local failure
  for step = 1, steps do
    st.step = step
    if cfg.on_step then cfg.on_step(seed, step) end
    st.depth, st.ctx = 0, {}
    local ok, err = xpcall(function()
      st:action(false)
      if #st.failures == 0 then
        st.depth = 0
        st:check_invariants()
      end
    end, debug.traceback)
    if not ok then st:failure("the fuzzer itself failed: " .. tostring(err)) end
    if #st.failures > 0 then
      failure = string.format("seed %s, step %d:\n%s", tostring(seed), step, st.failures[1])
      break
    end
  end
  -- Let the collector take this run's objects now, so their __gc runs under the sanitizers.
  local calls, errors = st.calls, st.errors
  st.armed = false
  astar.set_work_limit(nil)
  st = nil -- luacheck: ignore 311
  collectgarbage("setpause", pause)
  collectgarbage("setstepmul", stepmul)
  collectgarbage()
  collectgarbage()
  return failure, calls, errors
end

-- A seeds file: "<seed> [steps] [disable=name,...]" per line, '#' starts a comment (the
-- disable list: what was off when the seed was found). "#! <seed> ..." lines are seeds that
-- crashed the binding: replayed only when `crashers` is true. "known <name>,..." names checks
-- the current binding is known to fail: returned as a set to disable.
function M.read_seeds(path, crashers)
  local f = io.open(path, "r")
  if not f then return {}, {} end
  local out, known = {}, {}
  for line in f:lines() do
    local body = line
    if crashers then body = body:gsub("^#!%s*", "") end
    body = body:gsub("#.*$", "")
    local seed, steps = body:match("^%s*(%d+)%s*(%d*)")
    if seed then
      local off = {}
      for name in (body:match("disable=(%S+)") or ""):gmatch("[^,]+") do off[name] = true end
      out[#out + 1] = { seed = tonumber(seed), steps = tonumber(steps), disable = off }
    end
    local names = body:match("^%s*known%s+(%S+)")
    if names then
      for name in names:gmatch("[^,]+") do known[name] = true end
    end
  end
  f:close()
  return out, known
end

local DEFAULT_STEPS = 40

local function usage()
  io.stderr:write("usage: fuzz_binding.lua [--seconds N] [--seed S] [--runs N] [--steps K] [--seeds FILE]\n",
    "       [--no-replay] [--crashers] [--strict] [--disable name,...] [--bombs] [--trace] [--errors]\n",
    "       [--state FILE]\n")
  os.exit(2)
end

local function main(argv)
  local opt = { seconds = 10, seed = 1, runs = nil, steps = DEFAULT_STEPS, replay = true,
    seeds = "fuzz/lua/seeds.txt", disabled = {} }
  local i = 1
  while i <= #argv do
    local a, v = argv[i], argv[i + 1]
    local function num()
      i = i + 1
      return tonumber(v) or usage()
    end
    if a == "--seconds" then opt.seconds = num()
    elseif a == "--seed" then opt.seed = num()
    elseif a == "--runs" then opt.runs = num()
    elseif a == "--steps" then opt.steps = num()
    elseif a == "--seeds" then opt.seeds = v or usage(); i = i + 1
    elseif a == "--state" then opt.state = v or usage(); i = i + 1
    elseif a == "--disable" then
      for name in (v or usage()):gmatch("[^,]+") do opt.disabled[name] = true end
      i = i + 1
    elseif a == "--no-replay" then opt.replay = false
    elseif a == "--crashers" then opt.crashers = true
    elseif a == "--bombs" then opt.bombs = true
    elseif a == "--strict" then opt.strict = true
    elseif a == "--trace" then opt.trace = true
    elseif a == "--errors" then opt.errors = true
    else usage() end
    i = i + 1
  end
  local seeds, known = M.read_seeds(opt.seeds, opt.crashers)
  if not opt.strict then
    for name in pairs(known) do opt.disabled[name] = true end
  end
  local cfg = { disabled = opt.disabled, trace = opt.trace, bombs = opt.bombs, error_counts = opt.errors and {} or nil }
  -- Where a crash happened: the seed and step, rewritten before every step (a crash leaves no
  -- chance to print them).
  if opt.state then
    local sf = assert(io.open(opt.state, "w"))
    cfg.on_step = function(seed, step)
      sf:seek("set")
      sf:write(string.format("%-22s %-8d\n", tostring(seed), step))
      sf:flush()
    end
  end
  local names = {}
  for name in pairs(opt.disabled) do names[#names + 1] = name end
  table.sort(names)
  local disable_arg = #names > 0 and " --disable " .. table.concat(names, ",") or ""
  local runs, calls, errors = 0, 0, 0
  local baseline
  local function one(seed, steps, off)
    local run_cfg = cfg
    if off and next(off) then
      run_cfg = { trace = cfg.trace, bombs = cfg.bombs, error_counts = cfg.error_counts, on_step = cfg.on_step,
        disabled = {} }
      for name in pairs(cfg.disabled) do run_cfg.disabled[name] = true end
      for name in pairs(off) do run_cfg.disabled[name] = true end
    end
    local failure, c, e = M.run(seed, steps, run_cfg)
    runs, calls, errors = runs + 1, calls + c, errors + e
    -- Everything a run made is garbage once it ends: a Lua heap that keeps growing run after
    -- run is a leak LeakSanitizer cannot see (it is all freed by lua_close).
    if not failure and runs % 50 == 0 then
      collectgarbage()
      local kb = collectgarbage("count")
      if not baseline then baseline = kb
      elseif kb > baseline + 4096 then
        failure = string.format("seed %s: the Lua heap grew from %.0f KB to %.0f KB in %d runs", tostring(seed),
          baseline, kb, runs)
      end
    end
    if failure then
      io.stdout:write("fuzz_binding: FAILED at ", failure, "\n",
        string.format("replay: lua5.4 fuzz/lua/fuzz_binding.lua --no-replay --seed %s --runs 1 --steps %d%s --trace\n",
          tostring(seed), steps, disable_arg))
      io.stdout:flush()
      os.exit(1)
    end
  end
  if opt.replay then
    for _, s in ipairs(seeds) do one(s.seed, s.steps or opt.steps, s.disable) end
  end
  local start = os.clock()
  local n = 0
  while (opt.runs == nil or n < opt.runs) and os.clock() - start < opt.seconds do
    one(opt.seed + n, opt.steps)
    n = n + 1
  end
  if cfg.error_counts then
    local list = {}
    for k, c in pairs(cfg.error_counts) do list[#list + 1] = { k, c } end
    table.sort(list, function(a, b) return a[2] > b[2] or (a[2] == b[2] and a[1] < b[1]) end)
    for _, kc in ipairs(list) do io.stderr:write(string.format("%7d  %s\n", kc[2], kc[1])) end
  end
  print(string.format("fuzz_binding: %d runs, %d calls, %d errors caught", runs, calls, errors))
  io.stdout:flush()
  collectgarbage()
  os.exit(0, true)
end

if ... == "--module" then return M end
main(arg or {})
