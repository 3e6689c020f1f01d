--- astar.sandbox: what a game's modding layer hands untrusted AI scripts.
-- A mod is Lua the game did not write: it may call os.exit, close the world's grid, patch
-- `string` under the game's feet or load a binary chunk that crashes the interpreter. This
-- module gives each script
--   * an environment of its own (M.env): the safe parts of the standard library, as copies the
--     script may change without touching anybody else's; no io, os.exit, debug, dofile,
--     loadfile, binary chunks, require of C modules or __gc finalizers; `require("astar")`
--     answers a library of its own (M.library) without the functions that read or write files;
--   * views of the shared world objects (M.view): a table per script that reads through to a
--     grid, layer, mask, claims or graph with its reading methods and queries only, so a
--     script can query the world but neither change it nor close it. Views given back to
--     astar (as a query's `influence`, `claims` or `known`, or to a function of M.library)
--     stand for their objects.
-- What it cannot bound is the time and memory a script takes: the host does that, with an
-- instruction hook (lua_sethook), astar's work limit (astar_set_progress_handler in C,
-- astar.set_work_limit in Lua) and its lua_Alloc; examples/host/host.c does all three.
local M = {}

local real = setmetatable({}, { __mode = "k" }) -- view -> the object it shows

-- The methods a view has, by class: the ones that only read the object (and queries, which
-- read it and answer in new tables or the caller's own). Writers, builds and closing are not
-- there.
local READERS = {
  ["astar.Grid"] = { "size", "get_cost", "is_walkable", "component", "reachable", "dead_end", "find",
    "find_nearest", "find_many", "check_path", "repair", "distance_field", "range", "search" },
  ["astar.Influence"] = { "size", "get", "max_abs" },
  ["astar.Mask"] = { "size", "is_known" },
  ["astar.Claims"] = { "size", "count", "position" },
  ["astar.GraphClaims"] = { "size", "count", "position" },
  ["astar.Graph"] = { "size", "arc_cost", "is_blocked", "node", "neighbours", "find" },
  ["astar.Field"] = { "size", "distance", "next", "path", "cells" },
}
-- Read-only fields a view copies (they never change while the object lives).
local FIELDS = { "width", "height", "diagonal", "topology" }

local function class_of(v)
  if type(v) ~= "userdata" then return nil end
  local ok, name = pcall(function() return getmetatable(v).__name end)
  return ok and READERS[name] and name or nil
end

-- A table argument with views in it, as astar reads it: a copy whose views are their objects
-- (also in an `influence` list: layers, or {layer, weight} pairs). The copy reads any key it
-- lacks from the original, so options given through an __index still count.
local function unwrap_table(t)
  local function list_has_view(l)
    for _, e in next, l do
      if real[e] or (type(e) == "table" and real[rawget(e, 1)]) then return true end
    end
    return false
  end
  local found = false
  for k, v in next, t do
    if real[v] or (k == "influence" and type(v) == "table" and not real[v] and list_has_view(v)) then
      found = true
      break
    end
  end
  if not found then return t end
  local copy = {}
  for k, v in next, t do
    if real[v] then
      v = real[v]
    elseif k == "influence" and type(v) == "table" then
      local l = {}
      for i, e in next, v do
        if real[e] then
          e = real[e]
        elseif type(e) == "table" and real[rawget(e, 1)] then
          e = { real[rawget(e, 1)], rawget(e, 2) }
        end
        l[i] = e
      end
      v = l
    end
    copy[k] = v
  end
  return setmetatable(copy, { __index = t })
end

local function unwrap(v)
  if real[v] then return real[v] end
  if type(v) == "table" then return unwrap_table(v) end
  return v
end

-- The arguments a script passed, as astar reads them.
local function unwrap_args(...)
  local n = select("#", ...)
  if n == 0 then return end
  if n == 1 then return unwrap((...)) end
  local args = { ... }
  for i = 1, n do args[i] = unwrap(args[i]) end
  return (table.unpack or unpack)(args, 1, n)
end
M.unwrap = unwrap_args

-- The level of the script's call for error() in pass, which its callers call as their last
-- act: Lua 5.1 keeps a "(tail call)" frame there, later Luas and LuaJIT do not.
local SCRIPT_LEVEL = (_VERSION == "Lua 5.1" and not rawget(_G, "jit")) and 3 or 2

-- The results of pcall(f, ...) in a function `name` of a view (self_arg 1: its self is not
-- counted) or of the library (0), called by a script: f's results, or f's error raised again.
-- astar's own argument errors, which under pcall know neither the function's name nor the
-- script's line, get both; any other error value, a callback's included, goes on unchanged.
local function pass(name, self_arg, ok, ...)
  if ok then return ... end
  local e = ...
  -- the work limit's error, raised under pcall, has no position: the script's, as a direct
  -- call's has
  if e == "work limit reached" then error(e, SCRIPT_LEVEL) end
  if type(e) == "string" and e:match("^bad argument #%d+ to '[^']*'") then
    e = e:gsub("^bad argument #(%d+) to '[^']*'", function(n)
      return "bad argument #" .. (tonumber(n) - self_arg) .. " to '" .. name .. "'"
    end)
    error(e, SCRIPT_LEVEL)
  end
  error(e, 0)
end

local function read_only() error("a view of a shared astar object is read-only", 2) end

--- A read-only view of an astar object (a grid, influence layer, mask, claims, graph or
-- field): a new table each call, so one script changing its own view (rawset) changes no other
-- script's. Its methods are the object's readers and queries; its fields width, height
-- (and a grid's diagonal and topology) are copies.
function M.view(obj)
  local class = class_of(obj)
  if not class then
    error("bad argument #1 to 'view' (an astar object expected, got " .. type(obj) .. ")", 2)
  end
  local members = {}
  for _, name in ipairs(READERS[class]) do
    members[name] = function(self, ...)
      local o = real[self]
      if o == nil then
        error("bad self to '" .. name .. "' (a view expected: call it as view:" .. name .. "(...))", 2)
      end
      return pass(name, 1, pcall(o[name], o, unwrap_args(...)))
    end
  end
  for _, f in ipairs(FIELDS) do
    local ok, v = pcall(function() return obj[f] end)
    if ok then members[f] = v end
  end
  local name = "view of " .. tostring(obj)
  local view = setmetatable({}, {
    __index = members, __newindex = read_only, __metatable = "astar.sandbox view",
    __tostring = function() return name end,
  })
  real[view] = obj
  return view
end

-- f with its arguments unwrapped.
local function through(f, name)
  return function(...) return pass(name, 0, pcall(f, unwrap_args(...))) end
end

--- The astar library a script gets from require("astar"): a new table each call, whose
-- functions take views for objects. Left out: what reads or writes files (load_movingai,
-- load_scen, astar.tiled, astar.debug.png with a file name) and the work limit (the host's).
function M.library()
  local astar = require("astar")
  local lib = { _VERSION = astar._VERSION, version = astar.version }
  for _, name in ipairs({ "grid", "influence", "claims", "mask", "graph", "load_movingai_string",
    "load_scen_string", "smooth" }) do
    lib[name] = through(astar[name], name)
  end
  -- Schedulers are Lua tables whose metatable (and __index) is one class table, the game's
  -- schedulers' too: a script that changed it (getmetatable(s).tick = f, s.__index.tick = f)
  -- would run f inside the game's own ticks, on the game's requests and callbacks, outside any
  -- budget. This library's schedulers get a copy of their own.
  local class = {}
  for k, v in pairs(getmetatable(astar.scheduler())) do
    if k ~= "__index" then class[k] = v end
  end
  class.__index = class
  local scheduler = through(astar.scheduler, "scheduler")
  lib.scheduler = function(...) return setmetatable(scheduler(...), class) end
  local colors = {}
  for k, v in pairs(astar.debug.colors) do colors[k] = v end
  lib.debug = {
    colors = colors,
    ascii = through(astar.debug.ascii, "ascii"),
    explore = through(astar.debug.explore, "explore"),
    png = function(grid, opts, filename)
      if filename ~= nil then error("bad argument #3 to 'png' (scripts may not write files)", 2) end
      return pass("png", 0, pcall(astar.debug.png, unwrap_args(grid, opts)))
    end,
  }
  return lib
end

local function copy(t, without)
  local c = {}
  for k, v in pairs(t) do
    if not (without and without[k]) then c[k] = v end
  end
  return c
end

-- The string metatable is shared by every string of the state: a script that reached it could
-- change what ("x"):rep means for the game. Hidden once, before the first environment is made.
local function hide_string_metatable()
  local mt = getmetatable("")
  if type(mt) == "table" then rawset(mt, "__metatable", "string") end
end

--- Loads text (never a binary chunk) as a function whose globals are env.
function M.load(text, chunkname, env)
  if setfenv then -- Lua 5.1, LuaJIT
    if type(text) == "string" and text:byte(1) == 27 then return nil, "attempt to load a binary chunk" end
    local f, err = loadstring(text, chunkname)
    if f then setfenv(f, env) end
    return f, err
  end
  return load(text, chunkname, "t", env)
end

--- A new environment for one script. opts (all optional):
-- print: what the script's print calls (default: nothing is printed: a host may read its
--   stdout); world: a table of values the script sees as the global `world`.
function M.env(opts)
  opts = opts or {}
  hide_string_metatable()
  local env = {}
  for _, k in ipairs({ "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber",
    "tostring", "type", "xpcall", "rawequal", "rawget", "rawlen", "rawset", "unpack", "getmetatable",
    "_VERSION" }) do
    env[k] = _G[k]
  end
  env.string = copy(string, { dump = true })
  env.table = copy(table)
  env.math = copy(math)
  env.coroutine = copy(coroutine)
  if utf8 then env.utf8 = copy(utf8) end
  env.os = { clock = os.clock, time = os.time, difftime = os.difftime }
  env.print = opts.print or function() end
  env.setmetatable = function(t, mt)
    if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      error("setmetatable: scripts may not set __gc", 2) -- finalizers run where no hook can stop them
    end
    return setmetatable(t, mt)
  end
  env.collectgarbage = function(what)
    if what == "count" then return collectgarbage("count") end
    error("collectgarbage: scripts may only ask \"count\"", 2)
  end
  env.load = function(chunk, chunkname, mode, e)
    if type(chunk) ~= "string" then error("load: scripts may load strings only", 2) end
    if mode ~= nil and mode ~= "t" then error("load: scripts may load text only", 2) end
    return M.load(chunk, chunkname or "=(load)", e == nil and env or e)
  end
  local lib
  env.require = function(name)
    if name ~= "astar" then error("require: scripts may require \"astar\" only, not " .. tostring(name), 2) end
    lib = lib or M.library()
    return lib
  end
  env.world = opts.world
  env._G = env
  return env
end

return M
