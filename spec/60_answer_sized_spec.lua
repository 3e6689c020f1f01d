-- Work that grows with the answer (issue 27, point 3): astar.smooth, grid:range, small distance
-- fields and find_nearest give the answers they gave (against a reference and the oracle),
-- and what they cost follows what they reach, not the map (in the core's units of work: no
-- timing here; bench/answer_sized.lua measures).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local work = require("spec.support.work")

-- The reference: astar.smooth as it was written before issue 27, plainly (greedy farthest
-- visible: from each waypoint, every later cell's line is walked and the last clear one kept).
local function reference_smooth(world, path, mode)
  local needed = ({ never = 3, always = 0, one_walkable = 1, no_corner_cut = 2 })[mode]
  local function cost(x, y)
    if x < 1 or y < 1 or x > world.w or y > world.h then return false end
    return world.cost[y][x]
  end
  local function clear(a, b, limit)
    local dx, dy = b.x - a.x, b.y - a.y
    local sx, sy = dx < 0 and -1 or 1, dy < 0 and -1 or 1
    local ax, ay = math.abs(dx), math.abs(dy)
    local x, y, i, j = a.x, a.y, 0, 0
    while i < ax or j < ay do
      local tx, ty = (1 + 2 * i) * ay, (1 + 2 * j) * ax
      if j >= ay or (i < ax and tx < ty) then
        x, i = x + sx, i + 1
      elseif i >= ax or ty < tx then
        y, j = y + sy, j + 1
      else
        local open = (cost(x + sx, y) and 1 or 0) + (cost(x, y + sy) and 1 or 0)
        if open < needed then return false end
        x, y, i, j = x + sx, y + sy, i + 1, j + 1
      end
      local c = cost(x, y)
      if not (c and c <= limit) then return false end
    end
    return true
  end
  local n = #path
  if n == 0 then return {} end
  local out, from = { { x = path[1].x, y = path[1].y } }, 1
  while from < n do
    local best, limit = from + 1, cost(path[from + 1].x, path[from + 1].y) or math.huge
    for to = from + 2, n do
      limit = math.max(limit, cost(path[to].x, path[to].y) or math.huge)
      if clear(path[from], path[to], limit) then best = to end
    end
    out[#out + 1] = { x = path[best].x, y = path[best].y }
    from = best
  end
  return out
end

-- A world of w x h cells: blocked (density), dear (swamps) and plain.
local function world_of(rng, w, h, density)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local r = rng.next()
      world.cost[y][x] = r < density and false or (r < density + 0.2 and 0.5 + rng.int(0, 6) / 2 or 1)
    end
  end
  return world
end

describe("astar.smooth (issue 27: in the core)", function()
  it("keeps exactly the waypoints the plain farthest-visible walk keeps", function()
    local rng = oracle.rng(2701)
    local compared, shortened = 0, 0
    for n = 1, scale(60) do
      local world = world_of(rng, rng.int(2, 16), rng.int(2, 16), rng.next() * 0.4)
      local grid = oracle.grid(astar, world)
      local paths = {}
      -- A path find returns, and cells drawn at random: far apart, blocked, repeated.
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      paths[1] = grid:find(sx, sy, gx, gy) or {}
      local loose = {}
      for i = 1, rng.int(1, 30) do loose[i] = { x = rng.int(1, world.w), y = rng.int(1, world.h) } end
      paths[2] = loose
      for k, path in ipairs(paths) do
        for _, mode in ipairs(oracle.DIAGONALS) do
          local want = reference_smooth(world, path, mode)
          local got = astar.smooth(grid, path, { diagonal = mode })
          assert.are.same(want, got, ("world %d, path %d, %s"):format(n, k, mode))
          compared = compared + 1
          if #got < #path then shortened = shortened + 1 end
        end
      end
    end
    assert.is_true(shortened > scale(60), shortened .. " of " .. compared .. " shortened")
  end)

  it("counts its work: the work limit stops it", function()
    local g = astar.grid(64, 64)
    for y = 2, 64 do g:set_cost(32, y, false) end -- open at the top only
    local path = g:find(1, 64, 64, 64)
    local waypoints
    local used = work.units_of(function() waypoints = astar.smooth(g, path) end)
    assert.is_true(#waypoints >= 3 and #waypoints < #path)
    assert.is_true(used >= #path, used .. " units")
    astar.set_work_limit(math.floor(used / 2))
    local ok, err = pcall(astar.smooth, g, path)
    astar.set_work_limit(nil)
    assert.is_false(ok)
    assert.matches("work limit", tostring(err))
    assert.are.same(waypoints, astar.smooth(g, path)) -- and the grid is as usable as before
  end)
end)

describe("astar.core.smooth, as a script may call it", function()
  local core = require("astar.core")

  it("reads its lists raw, checks every entry, refuses a closed grid", function()
    local g = astar.grid(5, 5)
    local function fails(pattern, ...)
      local ok, err = pcall(core.smooth, ...)
      assert.is_false(ok)
      assert.matches(pattern, tostring(err))
    end
    fails("same length", g, { 1, 2 }, { 1, 2, 3 }, 2)
    fails("entry 2 is not a row", g, { 1, 2 }, { 1, 6 }, 2)
    fails("entry 2 is not a column", g, { 1, 2.5 }, { 1, 2 }, 2)
    fails("entry 1 is not a column", g, { "1" }, { 1 }, 2)
    fails("sides out of range", g, { 1 }, { 1 }, 4)
    fails("astar.Grid expected", {}, { 1 }, { 1 }, 2)
    fails("table expected", g, nil, { 1 }, 2)
    -- Metamethods never run: the lists are what rawget sees.
    local trap = { __index = function() error("ran __index") end, __len = function() error("ran __len") end }
    assert.are.same({ 1, 2 }, core.smooth(g, setmetatable({ 1, 5 }, trap), setmetatable({ 1, 1 }, trap), 2))
    assert.are.same({}, core.smooth(g, setmetatable({}, trap), {}, 2))
    getmetatable(g).__gc(g)
    fails("freed astar.Grid", g, { 1 }, { 1 }, 2)
  end)

  it("survives a finalizer that closes the grid while it makes its scratch", function()
    local ran, refused = 0, 0
    for round = 1, scale(40) do
      local g = astar.grid(30, 30)
      local xs, ys = {}, {}
      for i = 1, 200 do xs[i], ys[i] = 1 + (i * 7) % 30, 1 + (i * 13) % 30 end
      setmetatable({}, { __gc = function() getmetatable(g).__gc(g) end }) -- garbage, finalized soon
      for _ = 1, round do local _ = { {}, {} } end -- the collector's debt varies with the round
      local ok, got = pcall(core.smooth, g, xs, ys, 2)
      if ok then
        ran = ran + 1
        assert.is_true(#got >= 2 and got[1] == 1 and got[#got] == 200)
      else
        refused = refused + 1
        assert.matches("freed astar.Grid", tostring(got))
      end
    end
    assert.are.equal(scale(40), ran + refused)
  end)
end)

describe("grid:range and small fields (issue 27: sparse)", function()
  it("range on a map much larger than the range: the oracle's costs, nil where not reached", function()
    local rng = oracle.rng(2702)
    local listed_total = 0
    for n = 1, scale(6) do
      local world = world_of(rng, 22, 22, 0.25)
      local grid = oracle.grid(astar, world)
      local sx, sy = rng.int(1, 22), rng.int(1, 22)
      local budget = n % 3 == 0 and 9 or rng.next() * 4
      local cells, field, info = grid:range(sx, sy, budget)
      assert.are.equal("done", info.status)
      local dist = oracle.distances(world, sx, sy)
      local listed = {}
      for i, c in ipairs(cells) do
        assert(oracle.near(c.cost, dist[c.y][c.x]), ("world %d (%d,%d)"):format(n, c.x, c.y))
        if i > 1 then assert.is_true(cells[i - 1].cost <= c.cost) end
        listed[c.y * 100 + c.x] = c.cost
      end
      for y = 1, world.h do
        for x = 1, world.w do
          local where = ("world %d (%d,%d)"):format(n, x, y)
          if dist[y][x] <= budget - 1e-9 then assert(listed[y * 100 + x], where .. " missed") end
          assert.are.equal(listed[y * 100 + x], field:distance(x, y), where)
          if not listed[y * 100 + x] then -- not reached: nil from every method
            assert(field:next(x, y) == nil and field:path(x, y) == nil, where)
          else
            local path = field:path(x, y)
            assert.are.same({ x = sx, y = sy }, path[1])
            assert(oracle.near(oracle.path_cost(world, path, sx, sy), listed[y * 100 + x]), where .. ": path")
          end
        end
      end
      assert.are.same(cells, field:cells())
      assert.are.equal(#cells, info.reached)
      listed_total = listed_total + #cells
    end
    assert.is_true(listed_total > scale(6) * 5, listed_total .. " cells listed")
  end)

  it("distance_field under a small max_cost: the oracle's costs toward the goals", function()
    local rng = oracle.rng(2703)
    local reached = 0
    for n = 1, scale(6) do
      local world = world_of(rng, 20, 20, 0.2)
      local grid = oracle.grid(astar, world)
      local gx, gy = rng.int(1, 20), rng.int(1, 20)
      local max_cost = rng.next() * 5
      local field, info = grid:distance_field({ { x = gx, y = gy } }, { max_cost = max_cost })
      local dist = oracle.distances_to(world, gx, gy)
      local count = 0
      for y = 1, world.h do
        for x = 1, world.w do
          local got, want = field:distance(x, y), dist[y][x]
          local where = ("world %d (%d,%d)"):format(n, x, y)
          if want <= max_cost - 1e-9 then
            assert(got and oracle.near(got, want), where .. ": " .. tostring(got) .. " vs " .. want)
          end
          if got then
            assert(oracle.near(got, want) and got <= max_cost, where)
            count = count + 1
            local path = field:path(x, y)
            assert.are.same({ x = gx, y = gy }, path[#path])
            assert(oracle.near(oracle.path_cost(world, path), got), where .. ": path")
          else
            assert(field:next(x, y) == nil and field:path(x, y) == nil, where)
          end
        end
      end
      assert.are.equal(count, info.reached)
      reached = reached + count
    end
    assert.is_true(reached > scale(6) * 3, reached .. " reached")
  end)

  it("costs what it reaches: its units of work follow the range, not the map", function()
    local g = astar.grid(512, 512)
    g:range(256, 256, 3) -- the workspace, made once per grid
    local cells
    local range_units = work.units_of(function() cells = g:range(100, 100, 3) end)
    assert.is_true(#cells > 20 and #cells < 60, #cells .. " cells")
    assert.is_true(range_units < 50 * #cells, range_units .. " units for " .. #cells .. " cells")
    local field_units = work.units_of(function() g:distance_field({ { x = 9, y = 9 } }, { max_cost = 3 }) end)
    assert.is_true(field_units < 50 * #cells, field_units .. " units")
  end)
end)

describe("grid:find_nearest (issue 27)", function()
  it("reaches the target the oracle says is cheapest", function()
    local rng = oracle.rng(2704)
    local found = 0
    for n = 1, scale(8) do
      local world = world_of(rng, 18, 18, 0.25)
      local grid = oracle.grid(astar, world)
      local sx, sy = rng.int(1, 18), rng.int(1, 18)
      local targets = {}
      for i = 1, rng.int(1, 6) do targets[i] = { x = rng.int(1, 18), y = rng.int(1, 18) } end
      local dist = oracle.distances(world, sx, sy)
      local best = math.huge
      for _, t in ipairs(targets) do
        if oracle.walkable(world, t.x, t.y) then best = math.min(best, dist[t.y][t.x]) end
      end
      local path, info = grid:find_nearest(sx, sy, targets)
      local where = "world " .. n
      if best == math.huge then
        assert(path == nil, where .. ": a path the oracle does not have")
      else
        assert(path, where .. ": no path")
        assert(oracle.near(info.cost, best), where .. ": " .. info.cost .. " vs " .. best)
        local t = targets[info.target]
        assert.are.same({ x = t.x, y = t.y }, path[#path])
        assert(oracle.near(oracle.path_cost(world, path, sx, sy), best), where .. ": path")
        found = found + 1
      end
    end
    assert.is_true(found >= math.floor(scale(8) / 2), found .. " found")
  end)

  it("costs its expansions only, on a map much larger than its search", function()
    local g = astar.grid(512, 512)
    g:find_nearest(1, 1, { { x = 5, y = 5 } }) -- the workspace and its target marks, made once
    for _, count in ipairs({ 3, 80 }) do -- the heuristic to the nearest, then Dijkstra (> 64)
      local targets = {}
      for k = 1, count do targets[k] = { x = 200 + k % 9, y = 200 + math.floor(k / 9) } end
      local info
      local units = work.units_of(function() _, info = g:find_nearest(190, 190, targets) end)
      assert.are.equal(info.expansions, units)
      assert.is_true(units < 2000, units .. " units")
    end
  end)
end)
