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
-- The metatable every string shares, read before anything hides it (M.guard_strings, M.env).
local STRING_MT = getmetatable("")

-- The methods a view has, by class: the ones that only read the object (and queries, which
-- read it and answer in new tables or the caller's own). Writers, builds and closing are not
-- there.
local READERS = {
  ["astar.Grid"] = { "size", "version", "get_cost", "get_class", "is_walkable", "component", "reachable", "dead_end", "find",
    "find_nearest", "find_many", "check_path", "repair", "distance_field", "range", "search", "flee", "wander" },
  ["astar.Influence"] = { "size", "get", "max_abs" },
  ["astar.Mask"] = { "size", "is_known" },
  ["astar.Claims"] = { "size", "count", "position" },
  ["astar.GraphClaims"] = { "size", "count", "position" },
  ["astar.Graph"] = { "size", "version", "arc_cost", "is_blocked", "node", "neighbours", "find" },
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
    "load_scen_string", "smooth", "flee", "wander" }) do
    lib[name] = through(astar[name], name)
  end
  lib.class_names = astar.class_names -- plain Lua over plain tables: no object to unwrap
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

-- Lua's own C functions run where no instruction hook can stop them: string.rep("", 2^62),
-- table.move({}, 1, 2^40, 1, {}) or ("a"):rep(3000):find(".-.-.-.-b") never return. A script
-- gets them guarded: each refuses work beyond what an AI script needs (a string or a range of
-- M.LIMIT, a pattern whose backtracking could take more than about 10^7 steps), with an error
-- that says so; within those bounds it is the function itself.
M.LIMIT = 1048576

-- The error of a guarded function fn, at the line of the script that called it: `depth` is
-- how many functions of this file lie between (1: the guarded function itself).
local function refuse(depth, fn, what) error(fn .. ": " .. what .. " (more than a script may ask)", depth + 2) end

local function count(n) return string.format("%.0f", n) end

local function length_of(depth, fn, s)
  local n = string.len(s) -- errors as the function would for a non-string
  if n > M.LIMIT then refuse(depth + 1, fn, "a string of " .. n .. " bytes, over " .. M.LIMIT) end
  return n
end

-- How many steps a match of pattern p on n characters may backtrack through, at worst: each
-- repetition (*, + or - after a single-character class) nests a scan of what is left.
local function pattern_steps(p, n)
  local k, i, len = 0, 1, #p
  while i <= len do
    local c = p:sub(i, i)
    if c == "%" then
      i = i + 1
      local d = p:sub(i, i)
      if d == "b" then i = i + 2 elseif d == "f" then i = i + 1 end
    elseif c == "[" then -- a set: to its closing ], which may be first or escaped
      i = i + 1
      if p:sub(i, i) == "^" then i = i + 1 end
      repeat
        if p:sub(i, i) == "%" then i = i + 1 end
        i = i + 1
      until i > len or p:sub(i, i) == "]"
    elseif c == "*" or c == "+" or c == "-" then
      k = k + 1
    end
    i = i + 1
  end
  local steps = 1
  for j = 1, k do steps = steps * (n + 1) / j end
  return steps
end

local function check_match(fn, s, p, plain)
  local n = length_of(2, fn, s)
  local m = string.len(p)
  if plain then
    if n * m > 1e8 then refuse(2, fn, "a plain search of " .. m .. " bytes in " .. n) end
  elseif pattern_steps(p, n) > 1e7 then
    refuse(2, fn, "the pattern " .. string.format("%q", p:sub(1, 40)) .. " on " .. n .. " characters could backtrack too long")
  end
end

local GUARDED_STRING = {
  rep = function(s, n, sep)
    local len, copies = string.len(s) + (sep and string.len(sep) or 0), tonumber(n)
    if copies and copies > 0 and (copies > M.LIMIT or copies * len > M.LIMIT) then
      refuse(1, "rep", "a result of " .. count(n) .. " copies")
    end
    return string.rep(s, n, sep)
  end,
  find = function(s, p, init, plain)
    check_match("find", s, p, plain)
    return string.find(s, p, init, plain)
  end,
  match = function(s, p, init)
    check_match("match", s, p)
    return string.match(s, p, init)
  end,
  gmatch = function(s, p, ...)
    check_match("gmatch", s, p)
    return string.gmatch(s, p, ...)
  end,
  gsub = function(s, p, r, n)
    check_match("gsub", s, p)
    return string.gsub(s, p, r, n)
  end,
  upper = function(s) length_of(1, "upper", s) return string.upper(s) end,
  lower = function(s) length_of(1, "lower", s) return string.lower(s) end,
  reverse = function(s) length_of(1, "reverse", s) return string.reverse(s) end,
}

local function guarded(lib, guards, without)
  local c = copy(lib, without)
  for k, f in pairs(guards) do c[k] = f end
  return c
end

-- Functions of `table` whose C loops run as long as the range or the list they are given.
local function check_list(fn, t)
  local n = #t -- as the function reads it (a __len included)
  if type(n) == "number" and n > M.LIMIT / 16 then
    refuse(2, fn, "a list of " .. count(n) .. " entries, over " .. count(M.LIMIT / 16))
  end
end

local GUARDED_TABLE = {
  move = function(a1, f, e, t, a2)
    if tonumber(e) and tonumber(f) and e - f >= M.LIMIT then refuse(1, "move", "a range of " .. count(e - f + 1)) end
    return table.move(a1, f, e, t, a2)
  end,
  insert = function(t, ...)
    if select("#", ...) > 1 then check_list("insert", t) end -- a position: the entries after it shift
    return table.insert(t, ...)
  end,
  remove = function(t, ...)
    if select("#", ...) > 0 then check_list("remove", t) end
    return table.remove(t, ...)
  end,
  sort = function(t, less)
    check_list("sort", t)
    return table.sort(t, less)
  end,
}

--- The string functions of every string of the state (("x"):rep(n) included) guarded as a
-- script's `string` is (see M.LIMIT), and the string metatable hidden from getmetatable(""):
-- a host calls it once, before it runs scripts. It changes the game's own strings too: its
-- code then meets the same limits.
function M.guard_strings()
  local mt = STRING_MT
  if type(mt) ~= "table" then return end
  local index = rawget(mt, "__index")
  if type(index) == "table" and not rawget(index, "?guarded") then
    local g = guarded(index, GUARDED_STRING)
    g["?guarded"] = true
    rawset(mt, "__index", g)
  end
  rawset(mt, "__metatable", "string")
end

-- The string metatable is shared by every string of the state: a script that reached it could
-- change what ("x"):rep means for the game. Hidden once, before the first environment is made.
local function hide_string_metatable()
  if type(STRING_MT) == "table" then rawset(STRING_MT, "__metatable", "string") end
end

--- Loads text (never a binary chunk) as a function whose globals are env.
function M.load(text, chunkname, env)
  if type(text) ~= "string" then error("bad argument #1 to 'load' (string expected, got " .. type(text) .. ")", 2) end
  if type(env) ~= "table" then error("bad argument #3 to 'load' (table expected, got " .. type(env) .. ")", 2) end
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
  if type(opts) ~= "table" then error("bad argument #1 to 'env' (table expected, got " .. type(opts) .. ")", 2) end
  for k in pairs(opts) do
    if k ~= "print" and k ~= "world" then error("bad argument #1 to 'env' (unknown option " .. tostring(k) .. ")", 2) end
  end
  if opts.print ~= nil and type(opts.print) ~= "function" then
    error("bad argument #1 to 'env' (option 'print' must be a function, got " .. type(opts.print) .. ")", 2)
  end
  hide_string_metatable()
  local env = {}
  for _, k in ipairs({ "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber",
    "tostring", "type", "xpcall", "rawequal", "rawget", "rawlen", "rawset", "unpack", "getmetatable",
    "_VERSION" }) do
    env[k] = _G[k]
  end
  env.string = guarded(string, GUARDED_STRING, { dump = true })
  env.table = guarded(table, table.move and GUARDED_TABLE or { insert = GUARDED_TABLE.insert,
    remove = GUARDED_TABLE.remove, sort = GUARDED_TABLE.sort })
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
    if #chunk > M.LIMIT then error("load: a chunk of " .. #chunk .. " bytes (more than a script may ask)", 2) end
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
