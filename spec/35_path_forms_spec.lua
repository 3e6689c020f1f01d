-- Paths that cost little to build (issue 17): path = "flat", into = t, info = t2 on
-- grid:find, grid:find_nearest and graph:find. Paths checked against the oracle, the flat form
-- against the points form cell by cell, the caller's tables written raw (no metamethod of theirs
-- runs), and a steady-state find with into, info and one options table allocating nothing.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local graph_oracle = require("spec.support.graph_oracle")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261201")
local rawlen = rawget(_G, "rawlen") or function(t) return #t end -- 5.1: # ignores __len on tables

-- The callers below make no tail calls: LuaJIT could not name the function in the message.
local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

-- A random world of terrain: uniform (jump point search applies) or of mixed costs.
local function random_world(rng)
  local w, h = rng.int(2, 14), rng.int(2, 14)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  local density, mixed = rng.next() * 0.35, rng.next() < 0.3
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local c = false
      if rng.next() >= density then c = mixed and 0.5 + rng.next() * 3.5 or 1 end
      world.cost[y][x] = c
    end
  end
  return world
end

-- The points of a flat path {x1, y1, x2, y2, ...}.
local function points_of(flat)
  assert.are.equal(0, #flat % 2)
  local out = {}
  for i = 1, #flat / 2 do out[i] = { x = flat[2 * i - 1], y = flat[2 * i] } end
  return out
end

-- A path checked against the oracle: legal steps from start to goal, costing info.cost, the optimum.
local function check_path(world, path, info, sx, sy, gx, gy)
  local want = oracle.cost(world, sx, sy, gx, gy)
  if not want then
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
    return
  end
  assert.are.equal("found", info.status)
  assert.are.equal(info.length, #path)
  assert.are.same({ x = sx, y = sy }, path[1])
  assert.are.same({ x = gx, y = gy }, path[#path])
  assert.is_true(oracle.near(info.cost, want))
  assert.is_true(oracle.near(oracle.path_cost(world, path), info.cost))
end

-- A metatable whose every metamethod counts its calls (and raises, so that one running is seen
-- even if the count were lost).
local function counting_mt(calls)
  local function count(name) return function() calls[name] = (calls[name] or 0) + 1; error(name .. " ran", 0) end end
  return { __index = count("__index"), __newindex = count("__newindex"), __len = count("__len") }
end

describe("path = \"flat\"", function()
  it("is the points form cell by cell, and optimal, on random grids, A* and JPS", function()
    local rng = oracle.rng(SEED)
    local found = 0
    for _ = 1, scale(150) do
      local world = random_world(rng)
      local g = oracle.grid(astar, world)
      for _ = 1, 6 do
        local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
        for _, jump in ipairs({ false, true }) do
          local points, pinfo = g:find(sx, sy, gx, gy, { jump = jump })
          local flat, finfo = g:find(sx, sy, gx, gy, { jump = jump, path = "flat" })
          local named, ninfo = g:find(sx, sy, gx, gy, { jump = jump, path = "points" })
          assert.are.same(pinfo, finfo)
          assert.are.same(pinfo, ninfo)
          assert.are.same(points, named)
          check_path(world, points, pinfo, sx, sy, gx, gy)
          if points then
            found = found + 1
            assert.are.equal(2 * #points, #flat)
            assert.are.same(points, points_of(flat))
            for i = 1, #flat do
              assert.are.equal(math.type and "integer" or "number", math.type and math.type(flat[i]) or type(flat[i]))
            end
          else
            assert.is_nil(flat)
          end
        end
      end
    end
    assert.is_true(found > scale(300), "too few paths found: " .. found)
  end)

  it("works for find_nearest, partial paths and hex grids", function()
    local g = astar.grid(8, 8)
    g:load({ "........", ".######.", "......#.", "#####.#.", "......#.", ".######.", "........", "....####" })
    local p, i = g:find_nearest(1, 1, { { x = 8, y = 8 }, { x = 1, y = 7 } })
    local f, fi = g:find_nearest(1, 1, { { x = 8, y = 8 }, { x = 1, y = 7 } }, { path = "flat" })
    assert.are.same(i, fi)
    assert.are.equal(2, fi.target)
    assert.are.same(p, points_of(f))
    p, i = g:find(1, 1, 8, 8, { partial = true, max_expansions = 6 })
    f, fi = g:find(1, 1, 8, 8, { partial = true, max_expansions = 6, path = "flat" })
    assert.are.equal("partial", fi.status)
    assert.are.same(i, fi)
    assert.are.same(p, points_of(f))
    local hex = astar.grid(6, 5, { topology = "hex" })
    p = hex:find(1, 1, 6, 5)
    f = hex:find(1, 1, 6, 5, { path = "flat" })
    assert.are.same(p, points_of(f))
  end)
end)

describe("into = t", function()
  it("returns t holding the path, on random grids, reused across queries of every length", function()
    local rng = oracle.rng(SEED + 1)
    for _ = 1, scale(80) do
      local world = random_world(rng)
      local g = oracle.grid(astar, world)
      local pts, flat, info = {}, {}, {}
      for _ = 1, 8 do
        local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
        local want, winfo = g:find(sx, sy, gx, gy)
        local before = {}
        for i = 1, #pts do before[i] = pts[i] end
        local p, pinfo = g:find(sx, sy, gx, gy, { into = pts, info = info })
        assert.are.equal(info, pinfo)
        assert.are.same(winfo, info)
        local f = g:find(sx, sy, gx, gy, { into = flat, path = "flat" })
        if want then
          assert.are.equal(pts, p)
          assert.are.equal(flat, f)
          assert.are.same(want, pts)
          assert.are.same(want, points_of(flat))
          check_path(world, pts, info, sx, sy, gx, gy)
          -- the point tables t already held were written in place
          for i = 1, math.min(#before, #pts) do assert.are.equal(before[i], pts[i]) end
        else
          assert.is_nil(p)
          assert.is_nil(f)
          assert.are.equal(0, rawlen(pts))
          assert.are.equal(0, rawlen(flat))
          assert.is_nil(next(pts))
          assert.is_nil(next(flat))
        end
      end
    end
  end)

  it("longer, then shorter, then none: #t follows, the spare entries are nil", function()
    local g = astar.grid(20, 3)
    g:set_cost(10, 1, false); g:set_cost(10, 2, false); g:set_cost(10, 3, false)
    for _, form in ipairs({ "points", "flat" }) do
      local per = form == "flat" and 2 or 1
      local t = {}
      local p = g:find(1, 2, 9, 2, { into = t, path = form })
      assert.are.equal(t, p)
      assert.are.equal(9 * per, #t)
      local info
      p, info = g:find(1, 2, 3, 2, { into = t, path = form })
      assert.are.equal(t, p)
      assert.are.equal(3, info.length)
      assert.are.equal(3 * per, #t)
      for i = 3 * per + 1, 9 * per do assert.is_nil(rawget(t, i)) end
      p, info = g:find(1, 2, 20, 2, { into = t, path = form })
      assert.is_nil(p)
      assert.are.equal("unreachable", info.status)
      assert.are.equal(0, #t)
      assert.is_nil(next(t))
      assert.are.equal(t, g:find(1, 1, 1, 1, { into = t, path = form }))
      assert.are.equal(per, #t)
    end
  end)

  it("keeps t's other keys; replaces slot values that are no tables; writes tables in place", function()
    local g = astar.grid(5, 1)
    local kept, other = { x = 9, y = 9, name = "mine" }, { 1 }
    local t = { kept, 7, "s", true, other, 99, 100, unit = "scout", step = 3 }
    local p = g:find(1, 1, 5, 1, { into = t })
    assert.are.equal(t, p)
    assert.are.equal(5, #t)
    assert.are.equal(kept, t[1])
    assert.are.same({ x = 1, y = 1, name = "mine" }, kept)
    for x = 2, 4 do assert.are.same({ x = x, y = 1 }, t[x]) end
    assert.are.equal(other, t[5])
    assert.are.same({ 1, x = 5, y = 1 }, other)
    assert.is_nil(rawget(t, 6))
    assert.are.equal("scout", t.unit)
    assert.are.equal(3, t.step)
    -- a flat answer replaces the point tables by numbers
    g:find(1, 1, 3, 1, { into = t, path = "flat" })
    assert.are.same({ 1, 1, 2, 1, 3, 1, unit = "scout", step = 3 }, t)
  end)

  it("runs no metamethod of t, of the tables in it, or of info", function()
    local calls, alive = {}, {} -- alive: a finalizer of theirs may only run once they are garbage
    local mt = counting_mt(calls)
    mt.__gc = function() calls.__gc = (calls.__gc or 0) + 1 end -- 5.2+: tables have finalizers
    local g = astar.grid(12, 12)
    g:set_cost(6, 6, false)
    for _, form in ipairs({ "points", "flat" }) do
      local slot = setmetatable({}, counting_mt(calls))
      local t = setmetatable({ slot, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 }, mt)
      local info = setmetatable({ reason = "old", target = 2, cost = -1 }, mt)
      alive[#alive + 1] = { t, info, slot }
      local p, i = g:find(1, 1, 12, 12, { into = t, info = info, path = form })
      assert.are.equal(t, p)
      assert.are.equal(info, i)
      assert.are.equal((form == "flat" and 2 or 1) * i.length, rawlen(t))
      if form == "points" then
        assert.are.equal(slot, rawget(t, 1))
        assert.are.equal(1, rawget(slot, "x"))
      end
      assert.are.equal("found", rawget(info, "status"))
      assert.is_nil(rawget(info, "reason"))
      assert.is_nil(rawget(info, "target"))
      -- and no path: t emptied, info cleared, raw too
      g:set_cost(12, 12, false)
      p, i = g:find(1, 1, 12, 12, { into = t, info = info, path = form })
      g:set_cost(12, 12, 1)
      assert.is_nil(p)
      assert.are.equal(info, i)
      assert.are.equal(0, rawlen(t))
      assert.is_nil(rawget(info, "cost"))
      assert.is_nil(rawget(info, "length"))
      assert.are.equal("unreachable", rawget(info, "status"))
      collectgarbage("collect")
      assert.are.same({}, calls)
    end
    assert.are.equal(2, #alive)
  end)

  it("info = t2 is filled in place: fields this answer does not set are cleared, others kept", function()
    local g = astar.grid(10, 10)
    local info = { mine = "kept" }
    local _, i = g:find_nearest(1, 1, { { x = 9, y = 9 }, { x = 3, y = 1 } }, { info = info })
    assert.are.equal(info, i)
    assert.are.same({ status = "found", expansions = i.expansions, cost = 2, length = 3, target = 2, mine = "kept",
      version = g:version() }, info)
    _, i = g:find(1, 1, 10, 10, { partial = true, max_expansions = 3, jump = false, info = info })
    assert.are.equal(info, i)
    assert.are.equal("partial", info.status)
    assert.are.equal("limit", info.reason)
    assert.is_nil(info.target)
    assert.is_number(info.cost)
    _, i = g:find(1, 1, 10, 10, { max_expansions = 3, info = info })
    assert.are.equal(info, i)
    assert.are.same({ status = "limit", expansions = 3, mine = "kept", version = g:version() }, info)
    _, i = g:find(1, 1, 10, 10, { info = info })
    assert.are.same({ status = "found", expansions = i.expansions, cost = i.cost, length = 10, mine = "kept",
      version = g:version() }, info)
  end)

  it("into and info may be one table: the path in its array, the info in its fields", function()
    local g = astar.grid(6, 6)
    local t = {}
    local p, i = g:find(1, 1, 6, 1, { into = t, info = t, path = "flat" })
    assert.are.equal(t, p)
    assert.are.equal(t, i)
    assert.are.equal(12, #t)
    assert.are.equal("found", t.status)
    assert.are.equal(6, t.length)
    g:set_cost(6, 1, false)
    p, i = g:find(1, 1, 6, 1, { into = t, info = t })
    assert.is_nil(p)
    assert.are.equal(t, i)
    assert.are.equal(0, #t)
    assert.are.same({ status = "unreachable", expansions = 0, version = g:version() }, t)
  end)

  it("is written after the search: a callback changing t cannot spoil the answer", function()
    local world = oracle.world_from_rows({ "......", ".####.", "......" })
    local g = oracle.grid(astar, world)
    local t = {}
    local p, info = g:find(1, 1, 6, 3, { into = t, node_cost = function()
      for i = 1, 40 do rawset(t, i, i) end
      setmetatable(t, { __newindex = function() error("ran") end })
      local inner = g:find(1, 3, 6, 1, { into = t }) -- the same table, re-entrant: written now
      assert(inner == t)
    end })
    assert.are.equal(t, p)
    check_path(world, t, info, 1, 1, 6, 3)
  end)
end)

describe("graph:find with into and info", function()
  local function ring(n)
    local world = { n = n, pos = {}, arcs = {} }
    for i = 1, n do
      world.pos[i] = { math.cos(2 * math.pi * i / n) * 10, math.sin(2 * math.pi * i / n) * 10 }
      world.arcs[i] = {}
    end
    for i = 1, n do
      local j = i % n + 1
      local c = 1 + (i * 7) % 5
      world.arcs[i][j], world.arcs[j][i] = c, c
    end
    return world
  end

  it("fills the ids into t and the info into t2, against the oracle", function()
    local world = ring(12)
    local g = graph_oracle.graph(astar, world)
    local t, info = { "junk", "junk" }, {}
    for a = 1, 12 do
      for b = 1, 12 do
        local want, winfo = g:find(a, b)
        local ids, i = g:find(a, b, { into = t, info = info })
        assert.are.equal(t, ids)
        assert.are.equal(info, i)
        assert.are.same(want, t)
        assert.are.same(winfo, info)
        assert.is_true(oracle.near(graph_oracle.path_cost(world, t, a), info.cost))
        assert.is_true(oracle.near(graph_oracle.cost(world, a, b), info.cost))
      end
    end
    g:set_blocked(5, true)
    local ids, i = g:find(1, 5, { into = t, info = info })
    assert.is_nil(ids)
    assert.are.equal(info, i)
    assert.are.equal(0, #t)
    assert.is_nil(info.cost)
  end)

  it("refuses path: a graph's path is node ids already", function()
    local g = graph_oracle.graph(astar, ring(4))
    assert.matches("bad argument #3 to 'find' %(option 'path' does not apply to find: "
      .. "a graph's path is a flat list of node ids already%)", err_of(function() local _ = g:find(1, 2, { path = "flat" }) end))
    assert.matches("option 'path' does not apply to find",
      err_of(function() local _ = g:find(1, 2, { path = "points" }) end))
  end)
end)

describe("bad values", function()
  it("name the option, and lose nothing", function()
    local g = astar.grid(5, 5)
    local t = { 1, 2, 3, k = "v" }
    local function find(opts) return function() local _ = g:find(1, 1, 5, 5, opts) end end
    assert.matches("bad argument #5 to 'find' %(option 'into' must be a table, got number%)", err_of(find({ into = 5 })))
    assert.matches("bad argument #5 to 'find' %(option 'path' must be \"points\" or \"flat\", got 'xy'%)",
      err_of(find({ path = "xy", into = t })))
    assert.matches("option 'path' must be \"points\" or \"flat\", got boolean", err_of(find({ path = true })))
    assert.matches("bad argument #5 to 'find' %(option 'info' must be a table, got string%)",
      err_of(find({ info = "x", into = t })))
    assert.matches("option 'into' must be a table, got astar.Grid", err_of(find({ into = g })))
    local opts = {}
    opts.into = opts
    assert.matches("option 'into' cannot be the options table itself", err_of(find(opts)))
    opts = { into = t }
    opts.info = opts
    assert.matches("option 'info' cannot be the options table itself", err_of(find(opts)))
    assert.are.same({ 1, 2, 3, k = "v" }, t) -- refused before anything was written
    assert.matches("bad argument #4 to 'find_nearest' %(option 'into' must be a table",
      err_of(function() local _ = g:find_nearest(1, 1, { { x = 2, y = 2 } }, { into = 1 }) end))
    local path = g:find(1, 1, 5, 5, { into = t })
    assert.are.equal(t, path)
    assert.are.equal(5, #t)
  end)

  it("are refused by name where they do not apply (a job takes them: spec 58)", function()
    local g = astar.grid(5, 5)
    for _, key in ipairs({ "path", "into", "info" }) do
      local opts = { [key] = key == "path" and "flat" or {} }
      assert.matches("option '" .. key .. "' does not apply to find_many",
        err_of(function() local _ = g:find_many({ { 1, 1, 5, 5 } }, opts) end))
      assert.matches("option '" .. key .. "' does not apply to distance_field",
        err_of(function() local _ = g:distance_field({ { x = 1, y = 1 } }, opts) end))
      assert.matches("option '" .. key .. "' does not apply to range",
        err_of(function() local _ = g:range(1, 1, 3, opts) end))
    end
    assert.is_truthy(g:find(1, 1, 5, 5))
  end)
end)

describe("a steady-state find", function()
  -- How far the Lua heap's size strays, after any query of `n` rounds of `queries`, from its
  -- size after a full collection and a warm-up (a collection shrinks the Lua stack, which the
  -- next call grows back). Memory is freed only by collection steps, and a step runs only when
  -- something is allocated: so any allocation moves the count, and without one it stays put.
  local function measure(g, queries, opts, n)
    for _, q in ipairs(queries) do g:find(q[1], q[2], q[3], q[4], opts) end
    collectgarbage("collect")
    collectgarbage("collect")
    for _, q in ipairs(queries) do g:find(q[1], q[2], q[3], q[4], opts) end
    local before, most = collectgarbage("count"), 0
    for _ = 1, n do
      for _, q in ipairs(queries) do
        g:find(q[1], q[2], q[3], q[4], opts)
        most = math.max(most, math.abs(collectgarbage("count") - before))
      end
    end
    return most
  end

  -- LuaJIT's compiler allocates its traces on the Lua heap as it records loops: off meanwhile,
  -- and the traces it already has flushed (off alone leaves them running: the first measure
  -- after other code then saw the heap grow in about nine runs of ten).
  local jit = rawget(_G, "jit")
  local function growth(...)
    if jit then
      jit.off()
      jit.flush()
    end
    local ok, most = pcall(measure, ...)
    if jit then jit.on() end
    assert(ok, most)
    return most
  end

  local g = astar.grid(64, 64)
  for y = 8, 56, 8 do
    for x = 1, 60 do g:set_cost(y % 16 == 0 and x + 4 or x, y, false) end
  end
  -- Long and short paths, and none: a flat t grows to the longest in the warm-up.
  local MIXED = { { 1, 1, 64, 64 }, { 2, 2, 5, 3 }, { 64, 64, 1, 1 }, { 10, 10, 10, 10 }, { 30, 2, 31, 60 },
                  { 1, 1, 1, 8 } }
  -- A unit planning the same route again: its point tables are all reused.
  local SAME = { { 1, 1, 64, 64 } }

  it("with into, info and one options table allocates nothing (A* and JPS)", function()
    for _, jump in ipairs({ false, true }) do
      local opts = { into = {}, info = {}, path = "flat", jump = jump }
      assert.are.equal(0, growth(g, MIXED, opts, 100), "flat, mixed lengths" .. (jump and ", JPS" or ", A*"))
      assert.are.equal("unreachable", opts.info.status) -- the last query's
      opts = { into = {}, info = {}, jump = jump }
      assert.are.equal(0, growth(g, SAME, opts, 300), "points, one route" .. (jump and ", JPS" or ", A*"))
      assert.are.equal("found", opts.info.status)
    end
  end)

  it("the measure sees allocation: without into or info, and points past the last path's end", function()
    assert.is_true(growth(g, MIXED, { info = {}, path = "flat" }, 100) > 0)
    assert.is_true(growth(g, MIXED, { into = {}, path = "flat" }, 100) > 0)
    assert.is_true(growth(g, SAME, { info = {} }, 300) > 0)
    -- points: a shorter path or none drops the tables past its end, a longer one makes them anew
    assert.is_true(growth(g, MIXED, { into = {}, info = {} }, 100) > 0)
  end)
end)
