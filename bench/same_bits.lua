-- The same bits from two builds: prints every answer field (numbers with %a), error message and
-- step trace of many random small worlds and queries through every feature, for a diff of two
-- builds' outputs (written for issue 28's refactor, against d1df2e4). Lua 5.3+.
--   for r in /tmp/old .; do lua5.4 bench/same_bits.lua $r 7 300 | grep -v ^KNOWN | md5sum; done
-- (ROOT holds lua/ and build/astar/core.so, or core.dll; ASTAR_BUILD=dir names another build of
-- it, as spec/same_windows.sh does; seed; worlds; SAME_BITS_MAPS=dir adds Moving AI maps;
-- per-feature counts go to stderr.) Lines tagged KNOWN differ from d1df2e4 on purpose: a
-- hierarchy build's units (no pass to reset a cluster's distances, no stale heap pops).
-- luacheck: no max line length, no unused (a tool of long one-line cases)
local root = assert(arg[1], "usage: same_bits.lua ROOT [seed]")
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
local build = os.getenv("ASTAR_BUILD") or root .. "/build"
package.cpath = build .. "/?.so;" .. build .. "/?.dll;" .. package.cpath
local astar = require("astar")

local seed = tonumber(arg[2] or "12345")
local state = seed
local function rnd() -- LCG, exact in doubles and integers
  state = (state * 1103515245 + 12345) % 2147483648
  return state / 2147483648
end
local function int(a, b) return a + math.floor(rnd() * (b - a + 1)) end
local function pick(t) return t[int(1, #t)] end

local out = io.stdout
local counts = {}
local cblog = {} -- every callback call, in order: the loops call them when and as often as before
local ncalls = 0
local function count(k) counts[k] = (counts[k] or 0) + 1 end

local function ser(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "number" then
    if math.type and math.type(v) == "integer" then return "i" .. v end
    return string.format("%a", v)
  elseif t == "string" then return string.format("%q", v)
  elseif t == "table" then
    if depth > 6 then return "{...}" end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
      local ta, tb = type(a), type(b)
      if ta ~= tb then return ta < tb end
      return a < b
    end)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = ser(k) .. "=" .. ser(v[k], depth + 1) end
    return "{" .. table.concat(parts, ",") .. "}"
  elseif t == "nil" or t == "boolean" then return tostring(v)
  else return t end -- userdata/function: type only (addresses differ)
end

local function emit(tag, ...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = ser((select(i, ...))) end
  out:write(tag, " ", table.concat(parts, " "), "\n")
end

-- pcall and print the result or the message
local function try(tag, feature, f, ...)
  count(feature)
  local res = table.pack(pcall(f, ...))
  if #cblog > 0 then out:write(tag, " calls ", table.concat(cblog, " "), "\n"); cblog = {} end
  ncalls = ncalls + 1 -- reseed: a difference inside one call never shifts the rest
  state = (seed * 7919 + ncalls * 104729) % 2147483648
  if res[1] then emit(tag, table.unpack(res, 2, res.n))
  else emit(tag .. " ERR", type(res[2]) == "string" and (res[2]:gsub(": 0x%x+", ": 0xADDR"):gsub(": %x%x%x%x%x%x%x%x+", ": 0xADDR")) or ser(res[2])) end
  return res
end

local DIAG = { "never", "always", "one_walkable", "no_corner_cut" }
local HEUR = { "octile", "manhattan", "euclidean", "chebyshev", "zero" }

local function world(hex)
  local w, h = int(4, 18), int(4, 18)
  local diag = nil
  if not hex then diag = pick(DIAG) end
  local g = astar.grid(w, h, { diagonal = diag, topology = hex and "hex" or "square", cost = pick({ 1, 1, 1.5, 2 }) })
  local uniform = rnd() < 0.4
  local cells = {}
  for y = 1, h do
    for x = 1, w do
      if rnd() < 0.22 then g:set_blocked(x, y, true)
      elseif not uniform then g:set_cost(x, y, int(5, 40) / 10) end
      cells[#cells + 1] = { x, y }
    end
  end
  return { g = g, w = w, h = h, diag = diag, hex = hex, uniform = uniform }
end

local function cell(W) return int(1, W.w), int(1, W.h) end
local function opencell(W)
  for _ = 1, 50 do
    local x, y = cell(W)
    if W.g:is_walkable(x, y) then return x, y end
  end
  return cell(W)
end

local function layer(W)
  local L = astar.influence(W.w, W.h)
  for _ = 1, int(1, 4) do L:stamp(int(1, W.w), int(1, W.h), int(1, 4), int(-20, 40) / 10, pick({ "linear", "quadratic", "constant" })) end
  return L
end

-- random find options; `what` selects features
local function options(W, feature, extra)
  local o = {}
  if feature == "heuristic" then
    if W.hex then o.heuristic = pick({ "hex", "zero" })
    elseif (o.diagonal or W.diag) == "never" then o.heuristic = pick(HEUR)
    else o.heuristic = pick({ "octile", "euclidean", "chebyshev", "zero" }) end
  elseif feature == "custom_h" then
    o.heuristic = function(x, y, gx, gy)
      cblog[#cblog + 1] = "h" .. x .. "," .. y
      return (math.abs(x - gx) + math.abs(y - gy)) * 0.5
    end
  elseif feature == "weight" then o.weight = pick({ 1, 1.5, 2, 3.7 })
  elseif feature == "max_cost" then o.max_cost = int(1, 30)
  elseif feature == "max_expansions" then o.max_expansions = int(1, 40)
  elseif feature == "partial" then o.partial = true; o.max_expansions = pick({ 5, 20, nil })
  elseif feature == "layer1" then o.influence = layer(W); o.influence_weight = int(1, 20) / 10
  elseif feature == "layers" then o.influence = { { layer(W), 0.5 }, { layer(W), 1.3 }, { layer(W), -0.4 } }
  elseif feature == "turn" then o.turn_penalty = int(1, 30) / 10
  elseif feature == "node_cost" then
    o.node_cost = function(x, y)
      cblog[#cblog + 1] = "n" .. x .. "," .. y
      local v = (x * 7 + y * 3) % 5
      if v == 0 then return false elseif v == 1 then return nil end
      return v * 0.3
    end
  elseif feature == "edge_cost" then
    o.edge_cost = function(x, y, fx, fy)
      cblog[#cblog + 1] = "e" .. x .. "," .. y .. "," .. fx .. "," .. fy
      local v = (x * 5 + y + fx * 2 + fy) % 6
      if v == 0 then return false end
      return v * 0.25
    end
  elseif feature == "known" then
    local m = astar.mask(W.w, W.h)
    for _ = 1, int(0, 4) do m:reveal(int(1, W.w), int(1, W.h), int(0, 3)) end
    o.known = m
  elseif feature == "noise" then o.noise = int(1, 30) / 10; o.seed = int(0, 1000)
  elseif feature == "jump_off" then o.jump = false
  elseif feature == "dead_ends_off" then o.dead_ends = false
  elseif feature == "diag_override" and not W.hex then o.diagonal = pick(DIAG)
  elseif feature == "flat" then o.path = "flat"
  elseif feature == "mix" then
    o.influence = layer(W); o.turn_penalty = 0.7; o.weight = 1.2; o.max_expansions = 60; o.partial = true
  end
  if extra then for k, v in pairs(extra) do o[k] = v end end
  return o
end

local FEATURES = { "none", "heuristic", "custom_h", "weight", "max_cost", "max_expansions", "partial",
  "layer1", "layers", "turn", "node_cost", "edge_cost", "known", "noise", "jump_off", "dead_ends_off",
  "diag_override", "flat", "mix" }

local function claims_for(W, o, windowed)
  local c = astar.claims(W.g)
  for u = 1, int(1, 3) do
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    local p = W.g:find(sx, sy, gx, gy)
    if p then c:claim("u" .. u, p); if rnd() < 0.5 then c:advance("u" .. u, int(0, 3)) end end
  end
  o.claims = c; o.unit = pick({ "u1", "me", 7 }); o.claim_penalty = int(1, 60) / 10
  if rnd() < 0.3 then o.claim_radius = int(1, 6) end
  if windowed then o.claim_window = int(1, 8) end
  return o
end

local function sliced(tag, feature, W, sx, sy, gx, gy, o, change)
  try(tag, feature, function()
    local job = W.g:search(sx, sy, gx, gy, o)
    local log = {}
    local n = 0
    while job:status() == "running" do
      local st, used = job:step(int(1, 6))
      log[#log + 1] = st .. ":" .. used
      n = n + 1
      if change and n == 2 then
        local x, y = cell(W)
        if rnd() < 0.5 then W.g:set_blocked(x, y, not W.g:is_walkable(x, y) and false or true)
        else W.g:set_cost(x, y, int(5, 40) / 10) end
      end
      if n > 100000 then break end
    end
    local p, info = job:result()
    return table.concat(log, ","), p, info
  end)
end

local nworlds = tonumber(arg[3] or "150")
for wi = 1, nworlds do
  local hex = wi % 6 == 0
  local W = world(hex)
  local g = W.g
  emit("world", wi, W.w, W.h, W.diag or "hex", W.uniform)
  -- JPS+ on some worlds
  if not hex and (W.diag == "never" or W.diag == "no_corner_cut") and wi % 3 == 0 then
    try("prepare_jumps", "jps+", g.prepare_jumps, g)
  end
  if wi % 4 == 0 then try("landmarks", "landmarks", g.landmarks, g, int(1, 6)) end
  -- finds
  for q = 1, 14 do
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    local f = pick(FEATURES)
    local o = options(W, f)
    try("find " .. f, "find:" .. f, g.find, g, sx, sy, gx, gy, o)
    if q % 3 == 0 then
      local o2 = options(W, pick(FEATURES))
      claims_for(W, o2, q % 2 == 0)
      try("find claims", q % 2 == 0 and "find:claim_window" or "find:claims", g.find, g, sx, sy, gx, gy, o2)
    end
    if q % 4 == 0 then
      local ints = {}
      for k = 1, int(1, 4) do local x, y = opencell(W); ints[k] = { x = x, y = y, value = int(1, 80) / 10 } end
      local o3 = options(W, pick({ "none", "layer1", "turn", "weight", "heuristic" }), { interests = ints })
      try("find interests", "find:interests", g.find, g, sx, sy, gx, gy, o3)
    end
  end
  -- landmarks-guided (if built) vs none is implicit above; hierarchy
  if not hex and W.diag ~= "always" and wi % 2 == 0 then
    local hr = try("hierarchy", "hierarchy", function() local i = g:hierarchy(int(2, 6)); if i then i.bytes = nil end; return i end)
    for _ = 1, 6 do
      local sx, sy = opencell(W)
      local gx, gy = opencell(W)
      local o = options(W, pick({ "none", "layer1", "turn", "weight", "max_expansions" }), { hierarchical = true })
      try("hfind", "hierarchical", g.find, g, sx, sy, gx, gy, o)
    end
    local x, y = cell(W); g:set_blocked(x, y, true)
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    try("hfind dirty", "hierarchical", g.find, g, sx, sy, gx, gy, { hierarchical = true })
    try("hierarchy info", "hierarchy", function() local i = g:hierarchy(); if i then i.bytes = nil end; return i end)
  end
  -- find_nearest
  for _ = 1, 4 do
    local sx, sy = opencell(W)
    local targets = {}
    for k = 1, int(1, 5) do local x, y = opencell(W); targets[k] = rnd() < 0.5 and { x = x, y = y } or { x, y, cost = int(0, 30) / 10 } end
    local o = options(W, pick(FEATURES))
    try("nearest", "find_nearest", g.find_nearest, g, sx, sy, targets, o)
    try("search_nearest", "search_nearest", function()
      local job = g:search_nearest(sx, sy, targets, o)
      local log = {}
      while job:status() == "running" do local s, u = job:step(int(1, 5)); log[#log + 1] = s .. u end
      return table.concat(log, ","), job:result()
    end)
  end
  -- find_many
  do
    local qs = {}
    for k = 1, int(1, 8) do local sx, sy = opencell(W); local gx, gy = opencell(W); qs[k] = { sx, sy, gx, gy } end
    local f = pick({ "none", "layer1", "layers", "turn", "weight", "heuristic", "noise", "known", "partial" })
    try("many", "find_many", g.find_many, g, qs, options(W, f), { threads = int(1, 3) })
  end
  -- fields and ranges
  for _ = 1, 2 do
    local goals = {}
    for k = 1, int(1, 3) do local x, y = opencell(W); goals[k] = { x = x, y = y } end
    local o = options(W, pick({ "none", "layer1", "layers", "known", "noise", "max_expansions", "node_cost", "edge_cost", "diag_override" }))
    try("field", "distance_field", function()
      local fld, info = g:distance_field(goals, o)
      local cells = fld:cells()
      local x, y = opencell(W)
      return info, cells, fld:path(x, y), fld:distance(x, y), fld:next(x, y)
    end)
    try("field_job", "field_job", function()
      local job = g:field_job(goals, o)
      local log, n = {}, 0
      while job:status() == "running" do
        local s, u = job:step(int(1, 8)); log[#log + 1] = s .. u; n = n + 1
        if n == 2 then local x, y = cell(W); g:set_cost(x, y, 3) end
      end
      local fld, info = job:result()
      return table.concat(log, ","), info, fld and fld:cells()
    end)
    local sx, sy = opencell(W)
    try("range", "range", function()
      local cells, fld, info = g:range(sx, sy, int(1, 20) + int(0, 9) / 10, o)
      return cells, info, fld:path(opencell(W))
    end)
  end
  -- repair
  for _ = 1, 3 do
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    local p = g:find(sx, sy, gx, gy)
    if p and #p > 3 then
      local bi = int(2, #p - 1)
      g:set_blocked(p[bi].x, p[bi].y, true)
      local o = options(W, pick({ "none", "layer1", "turn", "weight", "node_cost", "known", "edge_cost", "noise" }))
      local oc = {}
      for k, v in pairs(o) do if k ~= "weight" then oc[k] = v end end
      try("check_path", "check_path", g.check_path, g, p, 1, oc)
      if rnd() < 0.4 then o.rejoin_within = int(1, 4) end
      try("repair", "repair", g.repair, g, p, int(1, bi - 1), o)
      g:set_blocked(p[bi].x, p[bi].y, false)
    end
  end
  -- jobs in slices, with a change between steps
  for _ = 1, 4 do
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    local f = pick(FEATURES)
    sliced("job " .. f, "search:" .. f, W, sx, sy, gx, gy, options(W, f), rnd() < 0.5)
  end
  -- smooth
  for _ = 1, 2 do
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    local p = g:find(sx, sy, gx, gy)
    if p then try("smooth", "smooth", astar.smooth, g, p) end
  end
  -- dead ends & islands
  for _ = 1, 4 do
    local x, y = cell(W)
    try("dead_end", "dead_end", g.dead_end, g, x, y)
    try("component", "component", function() return g:component(x, y) ~= false end)
    local gx, gy = cell(W)
    try("reachable", "reachable", g.reachable, g, x, y, gx, gy)
  end
end

-- graphs
for gi = 1, math.floor(nworlds / 2) do
  local G = astar.graph()
  local n = int(3, 30)
  for i = 1, n do G:add_node(int(0, 20), int(0, 20), rnd() < 0.2 and int(0, 5) or nil) end
  for _ = 1, n * 2 do
    local a, b = int(1, n), int(1, n)
    if a ~= b then
      if rnd() < 0.6 then G:add_edge(a, b, rnd() < 0.5 and int(0, 40) / 4 or nil)
      else G:add_arc(a, b, rnd() < 0.5 and int(0, 40) / 4 or nil) end
    end
  end
  if rnd() < 0.3 then G:set_blocked(int(1, n), true) end
  emit("graph", gi, n, G.arcs)
  for q = 1, 8 do
    local a, b = int(1, n), int(1, n)
    local o = {}
    local f = pick({ "none", "zero", "custom_h", "layer", "layers", "claims", "node_cost", "edge_cost", "interests", "limits", "partial", "weight" })
    if f == "zero" then o.heuristic = "zero"
    elseif f == "custom_h" then o.heuristic = function(i, gid) cblog[#cblog + 1] = "h" .. i; return math.abs(i - gid) * 0.1 end
    elseif f == "layer" then local t = {}; for i = 1, n do t[i] = int(-10, 30) / 10 end; o.influence = t; o.influence_weight = 0.8
    elseif f == "layers" then
      local L = astar.influence(n, 1); for i = 1, n do L:set(i, 1, int(0, 30) / 10) end
      local t = {}; for i = 1, n do t[i] = int(0, 30) / 10 end
      o.influence = { { L, 0.7 }, { t, 1.2 } }
    elseif f == "claims" then
      local c = astar.claims(G)
      local p = G:find(int(1, n), int(1, n))
      if p then c:claim("x", p) end
      o.claims = c; o.unit = "y"; o.claim_penalty = 2.5
      if rnd() < 0.5 then o.claim_radius = int(1, 10) end
    elseif f == "node_cost" then
      o.node_cost = function(id) cblog[#cblog + 1] = "n" .. id; if id % 5 == 0 then return false end return (id % 3) * 0.5 end
    elseif f == "edge_cost" then
      o.edge_cost = function(id, from)
        cblog[#cblog + 1] = "e" .. id .. "," .. from
        if (id + from) % 7 == 0 then return false end
        return ((id * from) % 4) * 0.3
      end
    elseif f == "interests" then o.interests = { { id = int(1, n), value = int(1, 50) / 10 }, { int(1, n), 2 } }
    elseif f == "limits" then o.max_expansions = int(1, 10); o.max_cost = int(1, 30)
    elseif f == "partial" then o.partial = true; o.max_expansions = int(1, 10)
    elseif f == "weight" then o.weight = 1.5 end
    try("gfind " .. f, "graph:" .. f, G.find, G, a, b, o)
  end
end


-- part 2: bigger worlds, expansion order (debug.explore), callbacks that fail or write, work
-- limits, builds in steps, the scheduler
for wi = 1, math.floor(nworlds / 5) do
  local hex = wi % 7 == 0
  local W = world(hex)
  if not hex and wi % 2 == 0 then -- bigger
    local w, h = int(30, 70), int(30, 70)
    local g = astar.grid(w, h, { diagonal = pick(DIAG) })
    for _ = 1, int(2, 12) do -- walls with doors, rooms: dead ends, jps
      local x0, y0 = int(1, w), int(1, h)
      if rnd() < 0.5 then for x = x0, math.min(w, x0 + int(3, 30)) do g:set_blocked(x, y0, true) end
      else for y = y0, math.min(h, y0 + int(3, 30)) do g:set_blocked(x0, y, true) end end
    end
    for _ = 1, int(0, w * h // 6) do g:set_blocked(int(1, w), int(1, h), true) end
    W = { g = g, w = w, h = h, uniform = true }
    W.diag = nil
  end
  local g = W.g
  emit("world2", wi, W.w, W.h)
  if wi % 3 == 0 then try("prepare", "prepare", function() return g:prepare({ hierarchy = rnd() < 0.5 }) end) end
  if wi % 4 == 1 then try("prepare_jumps", "jps+", function() return g:prepare_jumps() end) end
  for _ = 1, 8 do
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    local f = pick(FEATURES)
    local o = options(W, f)
    try("explore " .. f, "explore:" .. f, astar.debug.explore, g, sx, sy, gx, gy, o)
  end
  -- callbacks that raise, then the grid reused
  do
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    local k = 0
    try("cb error", "cb_error", g.find, g, sx, sy, gx, gy, { node_cost = function() k = k + 1; if k == 5 then error("stop at 5") end return 0.5 end })
    k = 0
    try("cb error edge", "cb_error", g.find, g, sx, sy, gx, gy, { edge_cost = function() k = k + 1; if k == 9 then error({ code = 9 }) end end })
    try("after error", "cb_error", g.find, g, sx, sy, gx, gy)
    -- a callback that writes the grid it searches
    try("cb write", "cb_write", g.find, g, sx, sy, gx, gy, { node_cost = function(x, y)
      if (x + y) % 3 == 0 then g:set_cost(x, y, 2.5) end
      return nil end })
    try("cb write job", "cb_write", function()
      local j = g:search(sx, sy, gx, gy, { node_cost = function(x, y) if (x * y) % 4 == 1 then g:set_blocked(x, y, true) end end })
      local log = {}
      while j:status() == "running" do local st, u = j:step(3); log[#log + 1] = st .. u end
      return table.concat(log, ","), j:result()
    end)
    -- work limits
    for _, lim in ipairs({ 1, 5, 17, 60, 300 }) do
      try("work limit " .. lim, "work_limit", function()
        astar.set_work_limit(lim)
        local ok, a, b = pcall(g.find, g, sx, sy, gx, gy, { jump = rnd() < 0.5 })
        local left = astar.work_left()
        astar.set_work_limit(nil)
        return ok, a, b, left
      end)
    end
    pcall(astar.set_work_limit, nil)
  end
  -- builds in steps, with a write between steps
  if not hex and W.diag ~= "always" then
    try("build_landmarks", "build_landmarks", function()
      local b = g:build_landmarks(int(1, 5))
      local log, n = {}, 0
      while not b:done() do
        local st, u = b:step(int(1, 40)); n = n + 1
        log[#log + 1] = st .. u .. ":" .. string.format("%a", b:progress())
        if n == 3 then local x, y = cell(W); g:set_cost(x, y, 2) end
      end
      return table.concat(log, ","), b:restarts(), g:landmarks()
    end)
    for _ = 1, 4 do
      local sx, sy = opencell(W)
      local gx, gy = opencell(W)
      try("lm find", "landmark_find", g.find, g, sx, sy, gx, gy, { jump = false })
    end
    try("build_hierarchy", "build_hierarchy", function()
      local b = g:build_hierarchy(int(2, 9), { threads = int(1, 2) })
      local log, n = {}, 0
      while not b:done() do
        local st, u = b:step(int(1, 30)); n = n + 1
        log[#log + 1] = st .. u .. ":" .. string.format("%a", b:progress())
        if n == 2 then local x, y = cell(W); g:set_blocked(x, y, true) end
      end
      local i = g:hierarchy(); if i then i.bytes = nil end
      -- the write lands before or after the end as the units fall: dirty follows them
      emit("KNOWN build_hierarchy units", table.concat(log, ","), i and i.dirty)
      if i then i.dirty = nil end
      return b:restarts(), i
    end)
    try("work limit builds", "work_limit", function()
      local res = {}
      for _, lim in ipairs({ 10, 100, 1000, 5000 }) do
        g:hierarchy(0)
        astar.set_work_limit(lim)
        local r = { pcall(g.find, g, 1, 1, W.w, W.h, { hierarchical = true }) }
        emit("KNOWN hier work left", lim, astar.work_left(), r)
        astar.set_work_limit(lim)
        res[#res + 1] = { pcall(g.landmarks, g, 3) }
        res[#res + 1] = astar.work_left()
        astar.set_work_limit(nil)
      end
      return res
    end)
    for _ = 1, 4 do
      local sx, sy = opencell(W)
      local gx, gy = opencell(W)
      try("h find2", "hierarchical", g.find, g, sx, sy, gx, gy, options(W, pick({ "none", "layer1", "turn", "noise", "known", "node_cost" }), { hierarchical = true }))
      try("h job", "hierarchical", function()
        local j = g:search(sx, sy, gx, gy, { hierarchical = true })
        local st, u = j:step(5)
        return st, u, j:result()
      end)
    end
  end
  -- scheduler
  try("scheduler", "scheduler", function()
    local sc = astar.scheduler({ budget = int(5, 50) })
    local got = {}
    for k = 1, 5 do
      local sx, sy = opencell(W)
      local gx, gy = opencell(W)
      sc:request(g, sx, sy, gx, gy, options(W, pick({ "none", "layer1", "turn" })), function(p, info) got[#got + 1] = { k, p, info } end, k % 3)
    end
    local ticks = 0
    while sc:pending() > 0 and ticks < 10000 do sc:tick(int(3, 30)); ticks = ticks + 1 end
    return ticks, got
  end)
end

-- part 4: extreme values (the step cost's clamp and rounding edges) and mixed options
local EXT = { 1e-9, 0.1, 1 / 3, 2 ^ 18.9, 2 ^ 19, 2 ^ 19 + 0.5, 1e6, 1e30, 1e100, 1, 1, 1, 7 / 3 }
for wi = 1, math.floor(nworlds / 3) do
  local hex = wi % 5 == 0
  local w, h = int(3, 14), int(3, 14)
  local d4 = pick(DIAG)
  local g = astar.grid(w, h, hex and { topology = "hex" } or { diagonal = d4 })
  for y = 1, h do for x = 1, w do
    if rnd() < 0.15 then g:set_blocked(x, y, true) else g:set_cost(x, y, pick(EXT)) end
  end end
  local W = { g = g, w = w, h = h, hex = hex }
  emit("world4", wi, w, h)
  local L = astar.influence(w, h)
  for y = 1, h do for x = 1, w do L:set(x, y, pick({ 0, -1e100, 1e100, -0.5, 1e-9, 3, -2 ^ 19 })) end end
  for _ = 1, 10 do
    local sx, sy = opencell(W)
    local gx, gy = opencell(W)
    local inf = rnd() < 0.7
    local o = { influence = inf and L or nil, influence_weight = inf and pick({ 1, 0.3, 1e-9 }) or nil,
      turn_penalty = rnd() < 0.4 and pick({ 1e-9, 0.5, 2 ^ 19, 1e100 }) or nil,
      noise = rnd() < 0.3 and pick({ 0.5, 1e6 }) or nil,
      weight = rnd() < 0.3 and pick({ 1.25, 1e6 }) or nil, jump = rnd() < 0.5 }
    if rnd() < 0.3 then claims_for(W, o, rnd() < 0.5) end
    try("ext find", "ext:find", g.find, g, sx, sy, gx, gy, o)
    local o2 = {}
    for k, v in pairs(o) do o2[k] = v end
    o2.interests = { { x = gx, y = sy, value = pick({ 2 ^ 20, 1e-9, 3 }) }, { sx, gy, 1 } }
    try("ext interests", "ext:interests", g.find, g, sx, sy, gx, gy, o2)
    try("ext many", "ext:many", g.find_many, g, { { sx, sy, gx, gy }, { gx, gy, sx, sy } }, o2, { threads = 2 })
    try("ext job", "ext:search", function()
      local j = g:search(sx, sy, gx, gy, o2)
      while j:status() == "running" do j:step(3) end
      return j:result()
    end)
    local p = g:find(sx, sy, gx, gy)
    if p and #p > 2 then
      local bi = int(2, #p - 1)
      g:set_blocked(p[bi].x, p[bi].y, true)
      local o3 = {}
      for k, v in pairs(o) do if k ~= "weight" and k ~= "jump" then o3[k] = v end end
      try("ext check", "ext:check_path", g.check_path, g, p, 1, o3)
      try("ext repair", "ext:repair", g.repair, g, p, 1, o)
      g:set_blocked(p[bi].x, p[bi].y, false)
    end
    local fo = { influence = o.influence, noise = o.noise }
    try("ext field", "ext:field", function() local f, i = g:distance_field({ { gx, gy } }, fo); return i, f:cells() end)
    try("ext range", "ext:range", function() local c, _, i = g:range(sx, sy, pick({ 1, 2 ^ 19, 1e30 }), fo); return c, i end)
  end
  if not hex then
    try("ext lm", "ext:landmarks", g.landmarks, g, 3)
    for _ = 1, 3 do
      local sx, sy = opencell(W)
      local gx, gy = opencell(W)
      try("ext lm find", "ext:landmarks", g.find, g, sx, sy, gx, gy, { jump = false })
    end
    if d4 ~= "always" then
      try("ext hier", "ext:hier", function() local i = g:hierarchy(3); if i then i.bytes = nil end; return i end)
      for _ = 1, 3 do
        local sx, sy = opencell(W)
        local gx, gy = opencell(W)
        try("ext hfind", "ext:hier", g.find, g, sx, sy, gx, gy, { hierarchical = true, turn_penalty = 0.5 })
      end
    end
  end
end
-- graphs with extreme costs, zero arcs, everything at once
for gi = 1, math.floor(nworlds / 4) do
  local G = astar.graph()
  local n = int(2, 25)
  for _ = 1, n do G:add_node(int(0, 9), int(0, 9), int(0, 2)) end
  for _ = 1, n * 3 do
    local a, b = int(1, n), int(1, n)
    if a ~= b then G:add_arc(a, b, rnd() < 0.7 and pick({ 0, 1e-9, 1, 2 ^ 19, 1e30, 1e100, 0.1 }) or nil) end
  end
  local c = astar.claims(G)
  local p = G:find(int(1, n), int(1, n))
  if p then c:claim(1, p) end
  local vals = {}
  for i = 1, n do vals[i] = pick({ 0, -1e100, 5, 1e-9 }) end
  for _ = 1, 6 do
    local a, b = int(1, n), int(1, n)
    local o = { influence = vals, claims = c, unit = 2, claim_penalty = pick({ 0, 1e-9, 3, 1e100 }),
      interests = { { id = int(1, n), value = pick({ 1, 2 ^ 20 }) } },
      edge_cost = rnd() < 0.5 and function(i, f) return ((i + f) % 3) * 1e-9 end or nil,
      heuristic = rnd() < 0.5 and function(i, gid) return 0 end or nil,
      weight = rnd() < 0.3 and 2 or nil }
    try("gx find", "graph:extreme", G.find, G, a, b, o)
  end
end

-- part 3: Moving AI maps (env SAME_BITS_MAPS=dir)
local mapdir = os.getenv("SAME_BITS_MAPS")
if mapdir then
  for _, name in ipairs({ "lak303d.map", "AR0011SR.map", "32room_000.map", "maze512-1-0.map" }) do
    local ok, g = pcall(astar.load_movingai, mapdir .. "/" .. name)
    if ok then
      local w, h = g:size()
      local W = { g = g, w = w, h = h }
      emit("map", name, w, h)
      for q = 1, 60 do
        local sx, sy = opencell(W)
        local gx, gy = opencell(W)
        local f = pick({ "none", "none", "jump_off", "layer1", "turn", "weight", "dead_ends_off", "noise", "max_expansions", "partial" })
        try("mfind " .. f, "map:" .. f, g.find, g, sx, sy, gx, gy, options(W, f, { path = "flat" }))
        if q == 20 then g:prepare_jumps() end
        if q == 30 then g:landmarks(4) end
        if q == 40 then g:hierarchy(12) end
        if q > 40 then try("mhfind", "map:hierarchical", g.find, g, sx, sy, gx, gy, { hierarchical = true, path = "flat" }) end
      end
      try("mfield", "map:field", function() local f, i = g:distance_field({ { opencell(W) } }, { max_expansions = 20000 }); return i, #f:cells() end)
    end
  end
end

-- bad calls: messages
do
local W = world(false)
local g = W.g
local bad = {
  function() return g:find("a", 1, 2, 2) end,
  function() return g:find(0, 1, 2, 2) end,
  function() return g:find(1.5, 1, 2, 2) end,
  function() return g:find(1, 1, 99999, 2) end,
  function() return g:find(1, 1, 2, 2, { heuristic = "nope" }) end,
  function() return g:find(1, 1, 2, 2, { weight = 0.5 }) end,
  function() return g:find(1, 1, 2, 2, { bogus = 1 }) end,
  function() return g:find(1, 1, 2, 2, { max_expansions = -1 }) end,
  function() return g:find(1, 1, 2, 2, { influence = 3 }) end,
  function() return g:find(1, 1, 2, 2, { influence = astar.influence(2, 2) }) end,
  function() return g:find(1, 1, 2, 2, { known = astar.mask(1, 1) }) end,
  function() return g:find(1, 1, 2, 2, { interests = { { x = 0, y = 1, value = 1 } } }) end,
  function() return g:find(1, 1, 2, 2, { interests = { { x = 1, y = 1, value = 0 } } }) end,
  function() return g:find(1, 1, 2, 2, { claim_window = -2, claims = astar.claims(g) }) end,
  function() return g:find(1, 1, 2, 2, { turn_penalty = -1 }) end,
  function() return g:find(1, 1, 2, 2, { node_cost = function() error("boom") end }) end,
  function() return g:find(1, 1, 2, 2, { node_cost = function() return "x" end }) end,
  function() return g:find(1, 1, 2, 2, { edge_cost = function() return -1 end }) end,
  function() return g:find(1, 1, 2, 2, { path = "nope" }) end,
  function() return g:find_nearest(1, 1, {}) end,
  function() return g:find_nearest(1, 1, { { 0, 0 } }) end,
  function() return g:find_nearest(1, 1, "x") end,
  function() return g:find_many({ { 1, 1, 2 } }) end,
  function() return g:find_many({ { 1, 1, 2, 2 } }, nil, { threads = 0 }) end,
  function() return g:find_many({ { 1, 1, 2, 2 } }, nil, { threads = 1.5 }) end,
  function() return g:find_many({ { 1, 1, 2, 2 } }, nil, { threads = "x" }) end,
  function() return g:distance_field({}) end,
  function() return g:distance_field({ { x = 0, y = 0 } }) end,
  function() return g:range(1, 1, -1) end,
  function() return g:range(1, 1, "x") end,
  function() return g:repair({ { x = 1, y = 1 } }, 5) end,
  function() return g:repair("x", 1) end,
  function() return g:check_path({ { x = 1, y = 1 }, { x = 5, y = 5 } }) end,
  function() return g:set_cost(0, 1, 1) end,
  function() return g:set_cost(1, 1, -1) end,
  function() return g:set_cost(1, 1, 0 / 0) end,
  function() return g:set_cost(1, 1, "a") end,
  function() return g:get_cost(1, 1e10) end,
  function() return g:landmarks(65) end,
  function() return g:landmarks(-1) end,
  function() return g:hierarchy(1) end,
  function() return g:hierarchy(257) end,
  function() return g:hierarchy(4, { threads = 0 }) end,
  function() return g:build_landmarks(2, { threads = 65 }) end,
  function() return g:prepare_jumps("always") end,
  function() return g:prepare({ workspaces = 65 }) end,
  function() return g:prepare({ hierarchy = 1 }) end,
  function() return g:dead_end(0, 0) end,
  function() return g:component("x", 1) end,
  function() return g:reachable(1, 1, 1) end,
  function() return g:search(1, 1, 2, 2, { bogus = true }) end,
  function() local j = g:search(1, 1, 2, 2); return j:step(-1) end,
  function() local j = g:search(1, 1, 2, 2); return j:step(1.5) end,
  function() return astar.grid(0, 1) end,
  function() return astar.grid(1, 40000) end,
  function() return astar.grid(2, 2, { diagonal = "x" }) end,
  function() return astar.grid(2, 2, { topology = "tri" }) end,
  function() return astar.influence(2, 2):set(3, 1, 1) end,
  function() return astar.influence(2, 2):stamp(1, 1, -1, 1) end,
  function() return astar.influence(2, 2):stamp(1, 1, 1, 1, "cubic") end,
  function() return astar.influence(2, 2):add_layer(astar.influence(3, 3), 1) end,
  function() return astar.mask(2, 2):reveal(3, 3, 1) end,
  function() return astar.claims(g):claim("u", { { x = 0, y = 0 } }) end,
  function() return astar.claims(g):claim(nil, {}) end,
  function() return astar.claims(g):advance("u", -1) end,
  function() return astar.claims("x") end,
  function() local G = astar.graph(); G:add_node(0, 0); return G:add_edge(1, 1) end,
  function() local G = astar.graph(); G:add_node(0, 0); return G:add_edge(1, 2) end,
  function() local G = astar.graph(); G:add_node(0, 0); G:add_node(1, 1); return G:add_edge(1, 2, -1) end,
  function() local G = astar.graph(); G:add_node(0, 0); return G:find(1, 3) end,
  function() local G = astar.graph(); G:add_node(0, 0); return G:find(1, 1, { claim_window = 2 }) end,
  function() local G = astar.graph(); G:add_node(0, 0); return G:find(1, 1, { path = "flat" }) end,
  function() local G = astar.graph(); G:add_node(0, 0); return G:find(1, 1, { influence = { 1, 2 } }) end,
  function() local G = astar.graph(); G:add_node(0, 0); return G:node(2) end,
  function() local G = astar.graph(); return G:add_node("x", 0) end,
  function() return astar.smooth(g, "x") end,
  function() return astar.load_movingai_string("junk") end,
  function() return astar.load_scen_string("junk") end,
  function() return astar.set_work_limit(-5) end,
  function() return g.find(astar.influence(2, 2), 1, 1, 1, 1) end,
  function() return g.find(nil) end,
  function() return astar.influence(2, 2).get(g, 1, 1) end,
}
for i, f in ipairs(bad) do try("bad " .. i, "bad", f) end
-- closed objects: if close exists
local closers = { "close", "__close", "__gc" }
for _, name in ipairs(closers) do
  local g2 = astar.grid(3, 3)
  local mt = getmetatable(g2)
  local c = (type(mt) == "table" and (mt[name] or (type(mt.__index) == "table" and mt.__index[name])))
  if c then
    try("closed " .. name, "closed", function() c(g2); return g2:find(1, 1, 3, 3) end)
    try("closed2 " .. name, "closed", function() return g2:size() end)
    try("closed3 " .. name, "closed", function() return g2:set_cost(1, 1, 2) end)
    try("closed4 " .. name, "closed", function() return g2:search(1, 1, 3, 3) end)
  end
end
-- a finished job; a field after its grid is gone
try("job after", "closed", function()
  local j = g:search(1, 1, 2, 2); j:step(); j:step(); return j:step(3), j:result()
end)

end

-- part 5: every integer/coordinate/option reader against odd values (the shared checkers)
do
  local VALS = { "nil", true, "3", " 3 ", "0x3", "3.0", "3.5", "1e1", 3.0, 3.5, -0.0, 0 / 0, 1 / 0, -1 / 0,
    2 ^ 31, 2 ^ 31 - 1, -2 ^ 31, 2 ^ 53, 2 ^ 63, math.mininteger, math.maxinteger, {}, print, 0, 1, 2, 65, 257,
    -1, 32768, 32769 }
  local function V(v) if v == "nil" then return nil end return v end
  local g = astar.grid(6, 5, { diagonal = "no_corner_cut" })
  local L = astar.influence(6, 5)
  local M = astar.mask(6, 5)
  local C = astar.claims(g)
  local G = astar.graph(); for i = 1, 4 do G:add_node(i, 0) end; G:add_edge(1, 2); G:add_edge(2, 3)
  local F = g:distance_field({ { x = 1, y = 1 } })
  local calls = {
    set_cost_x = function(v) return g:set_cost(V(v), 1, 1) end,
    set_cost_y = function(v) return g:set_cost(1, V(v), 1) end,
    set_cost_c = function(v) return g:set_cost(1, 1, V(v)) end,
    get_cost = function(v) return g:get_cost(V(v), 2) end,
    set_blocked = function(v) return g:set_blocked(V(v), 2, true) end,
    is_walkable = function(v) return g:is_walkable(2, V(v)) end,
    fill = function(v) return g:fill(V(v)) end,
    find_sx = function(v) return g:find(V(v), 1, 6, 5) end,
    find_gy = function(v) return g:find(1, 1, 6, V(v)) end,
    nearest_t = function(v) return g:find_nearest(1, 1, { { x = V(v), y = 2 } }) end,
    nearest_tc = function(v) return g:find_nearest(1, 1, { { 3, 2, cost = V(v) } }) end,
    max_exp = function(v) return g:find(1, 1, 6, 5, { max_expansions = V(v) }) end,
    max_cost = function(v) return g:find(1, 1, 6, 5, { max_cost = V(v) }) end,
    weight = function(v) return g:find(1, 1, 6, 5, { weight = V(v) }) end,
    turn = function(v) return g:find(1, 1, 6, 5, { turn_penalty = V(v) }) end,
    noise = function(v) return g:find(1, 1, 6, 5, { noise = V(v), seed = 1 }) end,
    seed = function(v) return g:find(1, 1, 6, 5, { noise = 1, seed = V(v) }) end,
    claim_radius = function(v) return g:find(1, 1, 6, 5, { claims = C, claim_radius = V(v) }) end,
    claim_window = function(v) return g:find(1, 1, 6, 5, { claims = C, claim_window = V(v) }) end,
    claim_penalty = function(v) return g:find(1, 1, 6, 5, { claims = C, claim_penalty = V(v) }) end,
    unit = function(v) return g:find(1, 1, 6, 5, { claims = C, unit = V(v) }) end,
    inf_w = function(v) return g:find(1, 1, 6, 5, { influence = L, influence_weight = V(v) }) end,
    layers_w = function(v) return g:find(1, 1, 6, 5, { influence = { { L, V(v) } } }) end,
    interest_v = function(v) return g:find(1, 1, 6, 5, { interests = { { x = 2, y = 2, value = V(v) } } }) end,
    interest_x = function(v) return g:find(1, 1, 6, 5, { interests = { { x = V(v), y = 2, value = 1 } } }) end,
    jump = function(v) return g:find(1, 1, 6, 5, { jump = V(v) }) end,
    partial = function(v) return g:find(1, 1, 6, 5, { partial = V(v) }) end,
    hierarchical = function(v) return g:find(1, 1, 6, 5, { hierarchical = V(v) }) end,
    dead_ends = function(v) return g:find(1, 1, 6, 5, { dead_ends = V(v) }) end,
    into = function(v) return g:find(1, 1, 6, 5, { into = V(v) }) end,
    info = function(v) return g:find(1, 1, 6, 5, { info = V(v) }) end,
    path = function(v) return g:find(1, 1, 6, 5, { path = V(v) }) end,
    heuristic = function(v) return g:find(1, 1, 6, 5, { heuristic = V(v) }) end,
    diagonal = function(v) return g:find(1, 1, 6, 5, { diagonal = V(v) }) end,
    known = function(v) return g:find(1, 1, 6, 5, { known = V(v) }) end,
    node_cost_ret = function(v) return g:find(1, 1, 6, 5, { node_cost = function() return V(v) end }) end,
    edge_cost_ret = function(v) return g:find(1, 1, 6, 5, { edge_cost = function() return V(v) end }) end,
    custom_h_ret = function(v) return g:find(1, 1, 6, 5, { heuristic = function() return V(v) end }) end,
    threads = function(v) return g:find_many({ { 1, 1, 6, 5 } }, nil, { threads = V(v) }) end,
    many_q = function(v) return g:find_many({ { 1, V(v), 6, 5 } }) end,
    many_qk = function(v) return g:find_many({ { sx = 1, sy = 1, gx = V(v), gy = 5 } }) end,
    lm_k = function(v) return g:landmarks(V(v)) end,
    lm_threads = function(v) return g:landmarks(1, { threads = V(v) }) end,
    hier = function(v) local i = g:hierarchy(V(v)); if type(i) == "table" then i.bytes = nil end; return i end,
    build_lm = function(v) return (g:build_landmarks(V(v))) ~= nil end,
    build_h = function(v) return (g:build_hierarchy(V(v))) ~= nil end,
    bstep = function(v) local b = g:build_landmarks(2); return b:step(V(v)) end,
    prepare_ws = function(v) return g:prepare({ workspaces = V(v) }) end,
    prepare_h = function(v) return g:prepare({ hierarchy = V(v) }) end,
    jstep = function(v) local j = g:search(1, 1, 6, 5); return j:step(V(v)) end,
    range_b = function(v) local c = g:range(1, 1, V(v)); return c end,
    range_x = function(v) local c = g:range(V(v), 1, 3); return c end,
    field_goal = function(v) return (g:distance_field({ { x = V(v), y = 1 } })) ~= nil end,
    field_dist = function(v) return F:distance(V(v), 2) end,
    field_next = function(v) return F:next(2, V(v)) end,
    field_path = function(v) return F:path(V(v), 5) end,
    component = function(v) return g:component(V(v), 1) ~= false end,
    reachable = function(v) return g:reachable(1, 1, V(v), 1) end,
    dead_end = function(v) return g:dead_end(1, V(v)) end,
    check_from = function(v) return g:check_path({ { 1, 1 }, { 2, 2 } }, V(v)) end,
    check_pt = function(v) return g:check_path({ { 1, 1 }, { V(v), 2 } }) end,
    check_since = function(v) return g:check_path({ { 1, 1 }, { 2, 2 } }, 1, { since = V(v) }) end,
    repair_i = function(v) return g:repair({ { 1, 1 }, { 2, 2 }, { 3, 3 } }, V(v)) end,
    rejoin = function(v) return g:repair({ { 1, 1 }, { 2, 2 }, { 3, 3 } }, 1, { rejoin_within = V(v) }) end,
    inf_set = function(v) return L:set(V(v), 1, 1) end,
    inf_setv = function(v) return L:set(1, 1, V(v)) end,
    inf_add = function(v) return L:add(1, 1, V(v)) end,
    inf_get = function(v) return L:get(1, V(v)) end,
    inf_fill = function(v) return L:fill(V(v)) end,
    inf_stamp_r = function(v) return L:stamp(2, 2, V(v), 1) end,
    inf_stamp_s = function(v) return L:stamp(2, 2, 1, V(v)) end,
    inf_decay = function(v) return L:decay(V(v)) end,
    inf_spread = function(v) return L:spread(V(v), 0.5) end,
    inf_addlayer = function(v) return L:add_layer(L, V(v)) end,
    new_inf = function(v) return (astar.influence(V(v), 2)) ~= nil end,
    new_inf_init = function(v) return (astar.influence(2, 2, V(v))) ~= nil end,
    new_grid = function(v) return (astar.grid(2, V(v))) ~= nil end,
    new_grid_cost = function(v) return (astar.grid(2, 2, { cost = V(v) })) ~= nil end,
    new_mask = function(v) return (astar.mask(V(v), 2)) ~= nil end,
    reveal = function(v) return M:reveal(2, 2, V(v)) end,
    is_known = function(v) return M:is_known(V(v), 2) end,
    claim_unit = function(v) return C:claim(V(v), { { 1, 1 } }) end,
    claim_pt = function(v) return C:claim("a", { { 1, V(v) } }) end,
    advance = function(v) C:claim("b", { { 1, 1 }, { 2, 2 } }); return C:advance("b", V(v)) end,
    ccount = function(v) return C:count(V(v), 1) end,
    position = function(v) return C:position(V(v)) end,
    release = function(v) return C:release(V(v)) end,
    g_add_node = function(v) return G:add_node(V(v), 1) end,
    g_add_edge = function(v) return G:add_edge(1, V(v)) end,
    g_add_edge_c = function(v) return G:add_edge(1, 3, V(v)) end,
    g_arc_cost = function(v) return G:arc_cost(V(v), 2) end,
    g_set_blocked = function(v) return G:set_blocked(V(v), false) end,
    g_node = function(v) return G:node(V(v)) end,
    g_neigh = function(v) return G:neighbours(V(v)) end,
    g_find = function(v) return G:find(1, V(v)) end,
    g_find_h = function(v) return G:find(1, 3, { heuristic = function() return V(v) end }) end,
    g_infl = function(v) return G:find(1, 3, { influence = { 1, V(v), 1, 1 } }) end,
    g_interest = function(v) return G:find(1, 3, { interests = { { id = V(v), value = 1 } } }) end,
    g_claims = function(v) local c = astar.claims(G); c:claim(1, { 2 }); return G:find(1, 3, { claims = c, claim_radius = V(v) }) end,
    work_limit = function(v) local r = astar.set_work_limit(V(v)); astar.set_work_limit(nil); return r end,
    smooth_diag = function(v) return astar.smooth(g, { { 1, 1 }, { 2, 2 } }, { diagonal = V(v) }) end,
    smooth_pt = function(v) return astar.smooth(g, { { 1, 1 }, { V(v), 2 } }) end,
  }
  local names = {}
  for k in pairs(calls) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do
    for vi, v in ipairs(VALS) do try("odd " .. k .. " " .. vi, "odd:" .. k, calls[k], v) end
    g:fill(1); L:fill(0)
  end
  -- closed objects
  local function close(o) getmetatable(o).__gc(o) end
  local mk = {
    grid = function() local x = astar.grid(4, 4); close(x); return x:find(1, 1, 4, 4) end,
    grid_tostring = function() local x = astar.grid(4, 4); close(x); return tostring(x):match("%(freed%)") ~= nil, x.width end,
    layer = function() local x = astar.influence(4, 4); close(x); return astar.grid(4, 4):find(1, 1, 4, 4, { influence = x }) end,
    layer_list = function() local x = astar.influence(4, 4); close(x); return astar.grid(4, 4):find(1, 1, 4, 4, { influence = { { x, 1 } } }) end,
    mask = function() local x = astar.mask(4, 4); close(x); return astar.grid(4, 4):find(1, 1, 4, 4, { known = x }) end,
    claims = function() local gg = astar.grid(4, 4); local x = astar.claims(gg); close(x); return gg:find(1, 1, 4, 4, { claims = x }) end,
    claims_use = function() local x = astar.claims(astar.grid(4, 4)); close(x); return x:claim(1, {}) end,
    field = function() local x = astar.grid(4, 4):distance_field({ { 1, 1 } }); close(x); return x:distance(1, 1) end,
    job = function() local x = astar.grid(4, 4):search(1, 1, 4, 4); close(x); return x:step(1) end,
    job_result = function() local x = astar.grid(4, 4):search(1, 1, 4, 4); close(x); return x:result() end,
    job_grid = function() local gg = astar.grid(4, 4); local x = gg:search(1, 1, 4, 4); close(gg); return x:step(1) end,
    job_layer = function() local L2 = astar.influence(4, 4); local x = astar.grid(4, 4):search(1, 1, 4, 4, { influence = L2 }); x:step(1); close(L2); return x:step(1) end,
    graph = function() local x = astar.graph(); close(x); return x:add_node(1, 1) end,
    gclaims = function() local gg = astar.graph(); gg:add_node(0, 0); local x = astar.claims(gg); close(x); return gg:find(1, 1, { claims = x }) end,
    build = function() local x = astar.grid(4, 4):build_landmarks(2); close(x); return x:step(1) end,
    build_grid = function() local gg = astar.grid(8, 8); local x = gg:build_hierarchy(4); x:step(1); close(gg); return x:step(5) end,
    field_job = function() local gg = astar.grid(8, 8); local x = gg:field_job({ { 1, 1 } }); x:step(1); close(gg); return x:step(5) end,
    idem = function() local x = astar.grid(4, 4); close(x); close(x); return x:size() end,
    cb_close = function() local gg = astar.grid(4, 4); return gg:find(1, 1, 4, 4, { node_cost = function() close(gg) end }) end,
    cb_close_layer = function() local L2 = astar.influence(4, 4); return astar.grid(4, 4):find(1, 1, 4, 4, { influence = L2, node_cost = function() close(L2) end }) end,
    cb_step_self = function() local gg = astar.grid(4, 4); local x; x = gg:search(1, 1, 4, 4, { node_cost = function() x:step(1) end }); return x:step(10) end,
    cb_close_self = function() local gg = astar.grid(4, 4); local x; x = gg:search(1, 1, 4, 4, { node_cost = function() close(x) end }); return x:step(10) end,
    cb_build = function() local gg = astar.grid(4, 4); local b = gg:build_landmarks(1); return gg:find(1, 1, 4, 4, { node_cost = function() b:step(1) end }) end,
    cb_field_read = function() local gg = astar.grid(4, 4); local x; x = gg:field_job({ { 1, 1 } }, { node_cost = function() local f = x:result(); return nil end }); return x:step(10) end,
    opts_close = function() local gg = astar.grid(4, 4); return gg:find(1, 1, 4, 4, setmetatable({}, { __index = function() close(gg) end })) end,
    opts_close_h = function() local gg = astar.grid(8, 8); return gg:hierarchy(4, setmetatable({}, { __index = function() close(gg) end })) end,
    pt_close = function() local gg = astar.grid(4, 4); return gg:find_nearest(1, 1, { setmetatable({}, { __index = function(_, k) close(gg); return 2 end }) }) end,
  }
  local ks2 = {}
  for k in pairs(mk) do ks2[#ks2 + 1] = k end
  table.sort(ks2)
  for _, k in ipairs(ks2) do try("closed " .. k, "closed", mk[k]) end
end

local ks = {}
for k in pairs(counts) do ks[#ks + 1] = k end
table.sort(ks)
for _, k in ipairs(ks) do io.stderr:write(string.format("%-28s %d\n", k, counts[k])) end
