-- Paths that know when they went stale (issue 26, point 4): every function taking a path takes
-- every form find returns (points, {x, y}, flat, into tables) with the same errors; the grid's
-- version (grid:version(), info.version of every answer); grid:check_path(path, from,
-- { since = v }) checked against an oracle written here (each step's legality re-checked on the
-- current terrain), under random changes, bulk writes and more changes than the log holds.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261126")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

-- The oracle: is the step (ax, ay) -> (bx, by) allowed by the terrain of world (cost[y][x],
-- false = blocked) under a square diagonal mode? A neighbour's move onto a walkable cell; a
-- diagonal one needs none ("always"), one ("one_walkable") or both ("no_corner_cut") of its two
-- side cells walkable, and is never allowed under "never".
local function open(world, x, y)
  return x >= 1 and y >= 1 and x <= world.w and y <= world.h and world.cost[y][x] ~= false
end
local function step_ok(world, mode, ax, ay, bx, by)
  local dx, dy = bx - ax, by - ay
  if math.abs(dx) > 1 or math.abs(dy) > 1 or (dx == 0 and dy == 0) then return false end
  if not open(world, bx, by) then return false end
  if mode == "hex" then -- odd-r: odd rows (0-based: even y here) lean right
    if dy == 0 then return true end
    if (ay - 1) % 2 == 1 then return dx >= 0 end
    return dx <= 0
  end
  if dx == 0 or dy == 0 then return true end
  local sides = (open(world, ax + dx, ay) and 1 or 0) + (open(world, ax, ay + dy) and 1 or 0)
  if mode == "never" then return false end
  if mode == "always" then return true end
  if mode == "one_walkable" then return sides >= 1 end
  return sides == 2
end
-- The first index after from whose step the terrain no longer allows, or nil.
local function first_bad(world, mode, xs, ys, from)
  for i = from + 1, #xs do
    if not step_ok(world, mode, xs[i - 1], ys[i - 1], xs[i], ys[i]) then return i end
  end
  return nil
end

local function cells_of(path)
  local xs, ys = {}, {}
  if type(path[1]) == "number" then
    for i = 1, #path / 2 do xs[i], ys[i] = path[2 * i - 1], path[2 * i] end
  else
    for i, p in ipairs(path) do xs[i], ys[i] = p.x, p.y end
  end
  return xs, ys
end

-- A random world with room for long paths.
local function random_world(rng)
  local w, h = rng.int(6, 24), rng.int(6, 24)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  local density = rng.next() * 0.3
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do world.cost[y][x] = rng.next() >= density and (rng.next() < 0.2 and 3 or 1) end
  end
  return world
end

-- One random write to grid and world: mostly single cells (blocked, opened, dearer), at times a
-- burst of more changes than the log holds, or a bulk write (fill).
local function change(rng, grid, world)
  local r = rng.next()
  if r < 0.02 then -- a bulk write: the log cannot describe it
    grid:fill(1)
    for y = 1, world.h do for x = 1, world.w do world.cost[y][x] = 1 end end
    return "bulk"
  end
  if r < 0.04 then -- 1,100 changes of one cell: more than the log's 1024
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    for k = 1, 1100 do grid:set_cost(x, y, k % 2 == 0 and 1 or 2) end
    world.cost[y][x] = 1
    return "overflow"
  end
  local x, y = rng.int(1, world.w), rng.int(1, world.h)
  local c = false
  if rng.next() >= 0.6 then c = rng.next() < 0.5 and 1 or 4 end
  grid:set_cost(x, y, c)
  world.cost[y][x] = c
end

describe("grid:version() and info.version", function()
  it("counts the terrain changes, and every answer says which it was computed on", function()
    local g = astar.grid(8, 8)
    local v0 = g:version()
    assert.are.equal(math.type and "integer" or "number", math.type and math.type(v0) or type(v0))
    g:set_cost(3, 3, 1) -- the same cost: no change
    assert.are.equal(v0, g:version())
    g:set_cost(3, 3, false)
    assert.are.equal(v0 + 1, g:version())
    g:set_cost(3, 3, 2)
    assert.are.equal(v0 + 2, g:version())
    g:fill(1)
    assert.is_true(g:version() > v0 + 2)
    local v = g:version()
    local _, info = g:find(1, 1, 8, 8)
    assert.are.equal(v, info.version)
    _, info = g:find(1, 1, 8, 8, { path = "flat", info = {} })
    assert.are.equal(v, info.version)
    _, info = g:find_nearest(1, 1, { { x = 8, y = 1 } })
    assert.are.equal(v, info.version)
    local r = g:find_many({ { 1, 1, 8, 8 }, { 1, 1, 1, 1 } })
    assert.are.same({ v, v }, { r[1].info.version, r[2].info.version })
    local path = g:find(1, 1, 8, 1)
    g:set_cost(4, 1, false)
    _, info = g:repair(path, 1)
    assert.are.equal(v + 1, info.version)
    local job = g:search(1, 1, 8, 8)
    local done, jinfo
    repeat done, jinfo = job:step(1000) until done ~= nil or (jinfo and jinfo.status ~= "running")
    assert.are.equal(g:version(), select(2, job:result()).version)
    local _, unreachable = g:find(1, 1, 4, 1)
    assert.are.equal("unreachable", unreachable.status)
    assert.are.equal(g:version(), unreachable.version)
  end)

  it("graph:version() too, on a graph's answers", function()
    local gr = astar.graph()
    local v0 = gr:version()
    local a, b = gr:add_node(0, 0), gr:add_node(1, 0)
    gr:add_edge(a, b)
    assert.is_true(gr:version() > v0)
    local _, info = gr:find(a, b)
    assert.are.equal(gr:version(), info.version)
    gr:set_blocked(b, true)
    _, info = gr:find(a, b)
    assert.are.equal(gr:version(), info.version)
  end)
end)

describe("check_path with since", function()
  it("answers what the oracle does, after random changes, bulk writes and log overflows", function()
    local rng = oracle.rng(SEED)
    local checked, stale, unlogged = 0, 0, 0
    for _ = 1, scale(160) do
      local world = random_world(rng)
      local g = oracle.grid(astar, world)
      local paths = {}
      for _ = 1, 6 do
        local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
        local form = ({ "points", "flat", "into_points", "into_flat" })[rng.int(1, 4)]
        local opts = { path = form:find("flat") and "flat" or "points", into = form:find("into") and {} or nil }
        local p, info = g:find(sx, sy, gx, gy, opts)
        if p and #p > 2 then paths[#paths + 1] = { p = p, v = info.version } end
      end
      for _ = 1, rng.int(0, 6) do
        if change(rng, g, world) then unlogged = unlogged + 1 end
        local before = g:version()
        for _, e in ipairs(paths) do
          local xs, ys = cells_of(e.p)
          local from = rng.int(1, #xs)
          local want = first_bad(world, world.diagonal, xs, ys, from)
          assert.are.equal(want, g:check_path(e.p, from, { since = e.v }))
          assert.are.equal(want, g:check_path(e.p, from))
          checked = checked + 1
          if want then stale = stale + 1 end
        end
        assert.are.equal(before, g:version()) -- checking changes nothing
      end
    end
    assert.is_true(checked > scale(1000) and stale > scale(60) and unlogged > scale(10),
      checked .. " checked, " .. stale .. " stale, " .. unlogged .. " changes the log lost")
  end)

  it("on hex grids too", function()
    local rng = oracle.rng(SEED + 2)
    local stale = 0
    for _ = 1, scale(80) do
      local world = random_world(rng)
      local g = astar.grid(world.w, world.h, { topology = "hex" })
      for y = 1, world.h do for x = 1, world.w do g:set_cost(x, y, world.cost[y][x]) end end
      local p, info = g:find(1, 1, world.w, world.h, { path = "flat" })
      if p then
        for _ = 1, rng.int(1, 4) do change(rng, g, world) end
        local xs, ys = cells_of(p)
        local from = rng.int(1, #xs)
        local want = first_bad(world, "hex", xs, ys, from)
        assert.are.equal(want, g:check_path(p, from, { since = info.version }))
        assert.are.equal(want, g:check_path(p, from))
        if want then stale = stale + 1 end
      end
    end
    -- Some stale paths (the first worlds of a scaled run may hold only one or two).
    assert.is_true(stale > (scale(80) == 80 and 5 or 0), stale .. " stale")
  end)

  it("under another diagonal mode too (the full check), and with since at the current version", function()
    local rng = oracle.rng(SEED + 1)
    for _ = 1, scale(80) do
      local world = random_world(rng)
      local g = oracle.grid(astar, world)
      local p = g:find(1, 1, world.w, world.h, { path = "flat" })
      if p then
        change(rng, g, world)
        local xs, ys = cells_of(p)
        local mode = oracle.DIAGONALS[rng.int(1, 4)]
        assert.are.equal(first_bad(world, mode, xs, ys, 1), g:check_path(p, 1, { diagonal = mode }))
        -- nothing changed since now: nothing to read, nothing stale
        assert.is_nil(g:check_path(p, 1, { since = g:version() }))
      end
    end
  end)

  it("reads only the cells near a change: entries far from it are not even read", function()
    local g = astar.grid(40, 3)
    local p = g:find(1, 2, 40, 2, { path = "flat" })
    assert.are.equal(80, #p)
    local _, info = g:find(1, 2, 40, 2)
    g:set_cost(30, 1, false) -- beside the path: it stays good
    local v1 = g:version()
    g:set_cost(30, 2, false) -- on it: cell 30 of the path
    -- Cells 2 to 20 are spoilt: a full check reads them and raises, since does not need them.
    for i = 3, 40 do p[i] = "spoilt" end
    assert.matches("flat path cell 2 is not a cell of the 40x3 grid", err_of(g.check_path, g, p))
    assert.is_nil(g:check_path(p, 1, { since = g:version() }))
    p = g:find(1, 3, 40, 3, { path = "flat" }) -- the row below, found after the changes
    g:set_cost(30, 2, 1)
    g:set_cost(30, 1, 1)
    local v2 = g:version()
    g:set_cost(29, 2, false) -- beside row 3's path: a diagonal rule may now forbid nothing there
    for i = 3, 40 do p[i] = "spoilt" end
    assert.is_nil(g:check_path(p, 1, { since = v2 }))
    assert.truthy(info.version < v1)
  end)

  it("ignores since (the full walk runs) where callbacks or fog may block without a change", function()
    local g = astar.grid(6, 1)
    local p = g:find(1, 1, 6, 1, { path = "flat" })
    local v = g:version()
    local function wall(x) return x ~= 4 and 0 or false end
    assert.is_nil(g:check_path(p, 1, { since = v }))
    assert.are.equal(4, g:check_path(p, 1, { since = v, node_cost = wall }))
    assert.are.equal(4, g:check_path(p, 1, { since = v, edge_cost = function(x) return wall(x) end }))
    local known = astar.mask(6, 1)
    known:reveal(4, 1)
    g:set_cost(4, 1, false)
    assert.are.equal(4, g:check_path(p, 1, { since = v })) -- the change itself
    assert.is_nil(g:check_path(p, 1, { since = g:version(), known = astar.mask(6, 1) })) -- unknown: open
    assert.are.equal(4, g:check_path(p, 1, { since = g:version(), known = known })) -- known: blocked
  end)

  it("refuses a smoothed path it can tell is not a chain of neighbours, and bad versions", function()
    local g = astar.grid(12, 12)
    local v = g:version()
    g:set_cost(4, 4, false)
    local smoothed = { { x = 1, y = 1 }, { x = 12, y = 1 }, { x = 12, y = 12 }, { x = 1, y = 12 }, { x = 1, y = 2 },
      { x = 2, y = 2 }, { x = 3, y = 3 }, { x = 3, y = 4 } }
    assert.matches("option 'since' needs a path of neighbouring cells", err_of(g.check_path, g, smoothed, 1, { since = v }))
    assert.are.equal(2, g:check_path(smoothed)) -- the full check: that step is not a move
    for _, bad in ipairs({ -1, 2 ^ 32, 1.5, "3", true }) do
      assert.matches("option 'since' must be a version", err_of(g.check_path, g, smoothed, 1, { since = bad }))
    end
    assert.matches("option 'since' does not apply to find", err_of(g.find, g, 1, 1, 2, 2, { since = v }))
  end)
end)

describe("every function taking a path takes every form", function()
  local function forms(g, sx, sy, gx, gy)
    local stale_into = {} -- an into table that held a longer path before: its tail is cleared
    for i = 1, 60 do stale_into[i] = 9 end
    local pts = g:find(sx, sy, gx, gy)
    local pairs_form = {}
    for i, p in ipairs(pts) do pairs_form[i] = { p.x, p.y } end
    return {
      points = pts,
      xy = pairs_form,
      flat = g:find(sx, sy, gx, gy, { path = "flat" }),
      into_points = g:find(sx, sy, gx, gy, { into = {} }),
      into_flat = g:find(sx, sy, gx, gy, { into = stale_into, path = "flat" }),
    }
  end

  it("check_path, repair, claims:claim, astar.smooth and astar.debug answer the same for each", function()
    local g = astar.grid(10, 6)
    g:load({ "..........", "..######..", "..........", "..........", ".######...", ".........." })
    local want_smooth
    local all = forms(g, 1, 1, 10, 6)
    local n = #all.points
    g:set_cost(5, 3, false)
    g:set_cost(6, 3, false)
    g:set_cost(7, 4, false)
    local want_bad = g:check_path(all.points)
    local want_fixed = g:repair(all.points, 1)
    for name, p in pairs(all) do
      assert.are.equal(want_bad, g:check_path(p), name)
      assert.are.equal(want_bad, g:check_path(p, 1, { since = 0 }), name)
      assert.are.same(want_fixed, g:repair(p, 1), name)
      local claims = astar.claims(g)
      claims:claim("u", p)
      local x, y = claims:position("u")
      assert.are.same({ 1, 1 }, { x, y }, name)
      assert.are.equal(1, claims:count(all.points[n].x, all.points[n].y), name)
      local s = astar.smooth(g, p)
      want_smooth = want_smooth or s
      assert.are.same(want_smooth, s, name)
      assert.are.equal(astar.debug.ascii(g, { path = all.points }), astar.debug.ascii(g, { path = p }), name)
    end
    -- a list of paths in several forms
    assert.are.equal(astar.debug.ascii(g, { path = { all.points, all.points } }),
      astar.debug.ascii(g, { path = { all.flat, all.xy } }))
  end)

  it("the same bad input gets the same error from each", function()
    local g = astar.grid(5, 5)
    local claims = astar.claims(g)
    local cases = {
      { { 1, 1, 2 }, "a flat path needs two numbers per cell, got 3" },
      { { 1, 1, 2, 0 }, "flat path cell 2 is not a cell of the 5x5 grid" },
      { { 1, 1, 6, 1 }, "flat path cell 2 is not a cell of the 5x5 grid" },
      { { 1, 1, 2, 2, nil, 3, 3, 3 }, "flat path cell 3 is not a cell of the 5x5 grid" },
      { { { x = 1, y = 1 }, { x = 6, y = 1 } }, "path point 2 is not a cell of the 5x5 grid" },
      { { { 1, 1 }, { 2.5, 1 } }, "path point 2 is not a cell of the 5x5 grid" },
      { { { x = 1, y = 1 }, 7 }, "path point 2 must be a point {x=, y=}, got number" },
    }
    for _, case in ipairs(cases) do
      local p, want = case[1], case[2]
      local function has(e) assert.is_truthy(e:find(want, 1, true), e .. " lacks " .. want) end
      has(err_of(g.check_path, g, p))
      has(err_of(g.repair, g, p, 1))
      has(err_of(claims.claim, claims, "u", p))
      has(err_of(astar.smooth, g, p))
      has(err_of(astar.debug.ascii, g, { path = p }))
    end
  end)
end)

describe("a sandbox view", function()
  it("answers version and check_path with since as its grid does", function()
    local sandbox = require("astar.sandbox")
    local g = astar.grid(8, 3)
    local p, info = g:find(1, 2, 8, 2, { path = "flat" })
    local view = sandbox.view(g)
    assert.are.equal(g:version(), view:version())
    g:set_cost(4, 2, false)
    assert.are.equal(g:version(), view:version())
    assert.are.equal(4, view:check_path(p, 1, { since = info.version }))
  end)
end)
