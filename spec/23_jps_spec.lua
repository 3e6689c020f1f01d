-- Jump point search: uniform queries take it unless `jump = false`. Its costs must be
-- A*'s (and the oracle's), its paths legal cell by cell, its statuses the same.
-- Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261123")

-- Every walkable cell the same cost; walls of random density, sometimes in runs
-- (corridors and rooms give forced neighbours, noise alone rarely does).
local function uniform_world(rng, diagonal, max_side)
  local w, h = rng.int(1, max_side), rng.int(1, max_side)
  local unit = rng.next() < 0.5 and 1 or 0.25 + rng.next() * 3
  local world = { w = w, h = h, cost = {}, diagonal = diagonal }
  local density = rng.next() * 0.45
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do world.cost[y][x] = rng.next() >= density and unit end
  end
  for _ = 1, rng.int(0, 4) do -- a wall segment, horizontal or vertical
    local x, y, len = rng.int(1, w), rng.int(1, h), rng.int(1, math.max(w, h))
    local horizontal = rng.next() < 0.5
    for i = 0, len - 1 do
      local cx, cy = horizontal and x + i or x, horizontal and y or y + i
      if cx <= w and cy <= h then world.cost[cy][cx] = false end
    end
  end
  return world
end

local function pick_cell(rng, world)
  return rng.int(1, world.w), rng.int(1, world.h)
end

local function check_path(world, path, info, sx, sy, gx, gy, where)
  assert.are.same({ x = sx, y = sy }, path[1], where)
  assert.are.same({ x = gx, y = gy }, path[#path], where)
  assert.are.equal(#path, info.length, where)
  local walked = oracle.path_cost(world, path, sx, sy) -- errors on an illegal step
  assert(oracle.near(walked, info.cost), where .. ": path walks for " .. walked .. ", cost " .. info.cost)
end

describe("jump point search", function()
  for _, diagonal in ipairs(oracle.DIAGONALS) do
    it("costs what A* and the oracle say on random uniform grids (" .. diagonal .. ")", function()
      local rng = oracle.rng(SEED + #diagonal)
      local seen = { found = 0, unreachable = 0, blocked_start = 0, same = 0, fewer = 0 }
      for n = 1, scale(400) do
        -- lines longer than 64 cells cross the words JPS scans them by
        local world = uniform_world(rng, diagonal, n % 40 == 0 and 100 or n % 5 == 0 and 40 or 14)
        local grid = oracle.grid(astar, world)
        local sx, sy = pick_cell(rng, world)
        local gx, gy = pick_cell(rng, world)
        if rng.next() < 0.05 then gx, gy = sx, sy end
        local where = string.format("world %d (%dx%d %s) %d,%d -> %d,%d", n, world.w, world.h,
          diagonal, sx, sy, gx, gy)
        local path, info = grid:find(sx, sy, gx, gy)
        local apath, ainfo = grid:find(sx, sy, gx, gy, { jump = false })
        -- The oracle's plain Dijkstra is quadratic in the cells: the wide worlds (whose lines
        -- cross the scan words) are held to A*, which the oracle checks everywhere else.
        local want
        if world.w * world.h <= 1600 then
          want = oracle.cost(world, sx, sy, gx, gy)
        else
          want = ainfo.status == "found" and ainfo.cost or nil
        end
        assert.are.equal(ainfo.status, info.status, where)
        if not world.cost[sy][sx] then seen.blocked_start = seen.blocked_start + 1 end
        if sx == gx and sy == gy then seen.same = seen.same + 1 end
        if want == nil then
          assert.is_nil(path, where)
          assert.is_nil(apath, where)
          assert.are.equal("unreachable", info.status, where)
          seen.unreachable = seen.unreachable + 1
        else
          assert(path, where .. ": no path, oracle cost " .. want)
          -- steps in whole quanta (docs/contract.md): every sum of the optimum is the same number
          assert(info.cost == want, where .. ": cost " .. info.cost .. " ~= oracle " .. want)
          assert(ainfo.cost == want, where .. ": A* cost " .. ainfo.cost)
          check_path(world, path, info, sx, sy, gx, gy, where)
          seen.found = seen.found + 1
          if info.expansions < ainfo.expansions then seen.fewer = seen.fewer + 1 end
        end
      end
      local covered = string.format("found %d, unreachable %d, blocked starts %d, start = goal %d",
        seen.found, seen.unreachable, seen.blocked_start, seen.same)
      assert(seen.found > scale(150) and seen.unreachable > scale(20) and seen.blocked_start > scale(10)
        and seen.same > scale(5),
        covered)
      -- JPS runs where it is defined (fewer expansions on most queries) and only there
      if diagonal == "no_corner_cut" or diagonal == "never" then
        assert(seen.fewer > seen.found / 3, "JPS did not run: " .. seen.fewer .. " of " .. seen.found)
      else
        assert.are.equal(0, seen.fewer, "JPS ran under " .. diagonal)
      end
    end)
  end

  it("expands jump points only on open ground, and jump = false expands cells", function()
    for _, diagonal in ipairs({ "no_corner_cut", "never" }) do
      local g = astar.grid(64, 64, { diagonal = diagonal })
      local path, info = g:find(1, 1, 64, 50)
      local _, ainfo = g:find(1, 1, 64, 50, { jump = false })
      assert.are.equal(ainfo.cost, info.cost) -- to the last bit
      assert.is_true(info.expansions <= 4, diagonal .. ": " .. info.expansions)
      assert.is_true(ainfo.expansions >= 63, diagonal .. ": " .. ainfo.expansions)
      assert.are.equal(info.length, #path)
      assert.are.equal(diagonal == "never" and 63 + 49 + 1 or 64, #path)
    end
  end)

  it("leaves non-uniform terrain and anything on top of it to A*", function()
    local g = astar.grid(40, 40)
    local _, info = g:find(1, 1, 40, 40)
    assert.is_true(info.expansions <= 4)
    local others = {
      { weight = 1.5 }, { heuristic = "euclidean" }, { partial = true }, { noise = 0.1 },
      { node_cost = function() return 0 end }, { turn_penalty = 0.5 }, { jump = false },
    }
    for i, opts in ipairs(others) do
      local _, oinfo = g:find(1, 1, 40, 40, opts)
      assert.is_true(oinfo.expansions >= 39, "option set " .. i .. ": " .. oinfo.expansions)
    end
    g:set_cost(20, 20, 2)
    _, info = g:find(1, 1, 40, 40)
    assert.is_true(info.expansions >= 39)
  end)

  it("says unreachable at once for a goal on another island or a blocked goal", function()
    for _, diagonal in ipairs({ "no_corner_cut", "never" }) do
      local g = astar.grid(20, 10, { diagonal = diagonal })
      for y = 1, 10 do g:set_cost(10, y, false) end
      local path, info = g:find(1, 1, 20, 10)
      assert.is_nil(path)
      assert.are.equal("unreachable", info.status)
      assert.are.equal(0, info.expansions)
      g:set_cost(20, 10, false)
      path = g:find(1, 1, 5, 5)
      assert.is_truthy(path)
      path, info = g:find(1, 1, 20, 10)
      assert.is_nil(path)
      assert.are.equal("unreachable", info.status)
    end
  end)

  it("max_cost: found within it, 'limit' beyond, as A* says", function()
    local rng = oracle.rng(SEED + 101)
    local found, limited = 0, 0
    for n = 1, scale(300) do
      local world = uniform_world(rng, rng.next() < 0.5 and "no_corner_cut" or "never", 16)
      local grid = oracle.grid(astar, world)
      local sx, sy = pick_cell(rng, world)
      local gx, gy = pick_cell(rng, world)
      local want = oracle.cost(world, sx, sy, gx, gy)
      if want and world.cost[sy][sx] then
        local cap = want * (0.5 + rng.next())
        -- at the optimum itself: JPS adds a line's length at once, A* step by step, so
        -- their costs may differ in the last bits; a hair above it both must find
        if rng.next() < 0.2 then cap = want * (1 + 1e-12) end
        local where = string.format("world %d: cost %g, max_cost %g", n, want, cap)
        local path, info = grid:find(sx, sy, gx, gy, { max_cost = cap })
        local _, ainfo = grid:find(sx, sy, gx, gy, { max_cost = cap, jump = false })
        assert.are.equal(ainfo.status, info.status, where)
        if want <= cap then
          assert.is_truthy(path, where)
          assert(oracle.near(info.cost, want), where)
          check_path(world, path, info, sx, sy, gx, gy, where)
          found = found + 1
        else
          assert.is_nil(path, where)
          assert.are.equal("limit", info.status, where)
          limited = limited + 1
        end
      end
    end
    assert(found > scale(50) and limited > scale(25), found .. " found, " .. limited .. " limited")
  end)

  it("a budgeted query runs A*: max_expansions counts A*'s cells, whichever engine would run it", function()
    local rng = oracle.rng(SEED + 202)
    local checked = 0
    for n = 1, scale(200) do
      local world = uniform_world(rng, rng.next() < 0.5 and "no_corner_cut" or "never", 16)
      local grid = oracle.grid(astar, world)
      local sx, sy = pick_cell(rng, world)
      local gx, gy = pick_cell(rng, world)
      local want = oracle.cost(world, sx, sy, gx, gy)
      if want and world.cost[sy][sx] then
        local where = "world " .. n
        local _, ainfo = grid:find(sx, sy, gx, gy, { jump = false })
        local path, linfo = grid:find(sx, sy, gx, gy, { max_expansions = ainfo.expansions })
        assert.is_truthy(path, where)
        assert.are.equal(ainfo.cost, linfo.cost, where)
        assert.are.equal(ainfo.expansions, linfo.expansions, where)
        path, linfo = grid:find(sx, sy, gx, gy, { max_expansions = ainfo.expansions - 1 })
        assert.is_nil(path, where)
        assert.are.equal("limit", linfo.status, where)
        assert.are.equal(ainfo.expansions - 1, linfo.expansions, where)
        checked = checked + 1
      end
    end
    assert(checked > scale(40), "checked " .. checked)
    local g = astar.grid(10, 10)
    local path, info = g:find(1, 1, 10, 10, { max_expansions = 0 })
    assert.is_nil(path)
    assert.are.equal("limit", info.status)
  end)

  it("gives a budgeted query the answer A* gives (issue 15's two reproducers)", function()
    local corridor = astar.grid(60, 1)
    local _, jinfo = corridor:find(1, 1, 60, 1, { max_expansions = 10 })
    local _, ainfo = corridor:find(1, 1, 60, 1, { max_expansions = 10, jump = false })
    assert.are.equal("limit", ainfo.status)
    assert.are.same(ainfo, jinfo)
    local open = astar.grid(20, 20)
    local cap = 19 * math.sqrt(2)
    local jpath, jcost = open:find(1, 1, 20, 20, { max_cost = cap })
    local apath, acost = open:find(1, 1, 20, 20, { max_cost = cap, jump = false })
    assert.are.same(acost, jcost)
    assert.are.same(apath, jpath)
  end)

  it("matches A* on every problem of the shipped Moving AI maps", function()
    local fewer, total = 0, 0
    for _, name in ipairs({ "rooms24x18.map", "forest32x32.map", "crlf17x9.map" }) do
      local grid = astar.load_movingai("spec/maps/" .. name)
      local problems = astar.load_scen("spec/maps/" .. name .. ".scen")
      for i, p in ipairs(problems) do
        local where = name .. " problem " .. i
        local path, info = grid:find(p.sx, p.sy, p.gx, p.gy)
        local _, ainfo = grid:find(p.sx, p.sy, p.gx, p.gy, { jump = false })
        assert.are.equal(ainfo.status, info.status, where)
        if path then
          assert(info.cost == ainfo.cost, where) -- to the last bit
          assert(math.abs(info.cost - p.optimal) <= 1e-4 * p.optimal + 1e-3, where)
          total, fewer = total + 1, fewer + (info.expansions < ainfo.expansions and 1 or 0)
        end
      end
    end
    assert(total > 40 and fewer > total / 2, fewer .. " of " .. total)
  end)

  -- JPS+ (jump = true) reads a table of jumps the grid keeps in step cell by cell: after
  -- every write the answers must still be A*'s (jump = false) and the oracle's.
  for _, diagonal in ipairs({ "no_corner_cut", "never" }) do
    it("costs what A* and the oracle say while cells open and close one at a time (" .. diagonal .. ")", function()
      local rng = oracle.rng(SEED + 17 + #diagonal)
      local checked, writes = 0, 0
      for n = 1, scale(12) do
        local world = uniform_world(rng, diagonal, n % 4 == 0 and 90 or 24)
        local grid = oracle.grid(astar, world)
        local unit
        for y = 1, world.h do
          for x = 1, world.w do unit = unit or world.cost[y][x] or nil end
        end
        unit = unit or 1
        for round = 1, 25 do
          for _ = 1, rng.int(1, 8) do -- single cells: blocked, opened, or rewritten as they are
            local x, y = pick_cell(rng, world)
            local c = rng.next() < 0.5 and unit or false
            if rng.next() < 0.5 and (unit == 1 or not c) then -- unblocking restores cost 1
              grid:set_blocked(x, y, not c)
              if not c or not world.cost[y][x] then world.cost[y][x] = c end
            else
              grid:set_cost(x, y, c)
              world.cost[y][x] = c
            end
            writes = writes + 1
          end
          if round == 13 then -- a whole-grid write in the middle: the table is rebuilt
            local rows = {}
            for y = 1, world.h do
              local row = {}
              for x = 1, world.w do
                local open = rng.next() < 0.8
                world.cost[y][x] = open and unit
                row[x] = open and "." or "#"
              end
              rows[y] = table.concat(row)
            end
            grid:load(rows, { ["."] = unit, ["#"] = false })
          end
          for _ = 1, 4 do
            local sx, sy = pick_cell(rng, world)
            local gx, gy = pick_cell(rng, world)
            if rng.next() < 0.3 then gy = sy elseif rng.next() < 0.3 then gx = sx end
            local where = string.format("world %d round %d (%dx%d %s) %d,%d -> %d,%d", n, round, world.w,
              world.h, diagonal, sx, sy, gx, gy)
            local path, info = grid:find(sx, sy, gx, gy)
            local _, ainfo = grid:find(sx, sy, gx, gy, { jump = false })
            assert.are.equal(ainfo.status, info.status, where)
            if path then
              assert(oracle.near(info.cost, ainfo.cost), where .. ": cost " .. info.cost .. ", A* " .. ainfo.cost)
              if world.w * world.h <= 1600 then
                local want = oracle.cost(world, sx, sy, gx, gy)
                assert(oracle.near(info.cost, want), where .. ": oracle " .. tostring(want))
              end
              check_path(world, path, info, sx, sy, gx, gy, where)
              checked = checked + 1
            end
          end
        end
      end
      assert(checked > scale(300) and writes > scale(1000), checked .. " paths, " .. writes .. " writes")
    end)
  end

  it("keeps the table when a walkable cost changes and back, and A* runs between", function()
    local g = astar.grid(50, 30)
    for y = 1, 25 do g:set_cost(25, y, false) end
    local _, before = g:find(1, 1, 50, 1)
    g:set_cost(10, 10, 3) -- the terrain is no longer uniform: A*
    local _, mixed = g:find(1, 1, 50, 1)
    assert.is_true(mixed.expansions > before.expansions * 5)
    g:set_cost(10, 10, 1)
    g:set_cost(25, 12, 1) -- a gap in the wall
    local path, after = g:find(1, 1, 50, 1)
    local _, ainfo = g:find(1, 1, 50, 1, { jump = false })
    assert.is_true(oracle.near(after.cost, ainfo.cost))
    assert.is_true(after.cost < before.cost)
    local through = false
    for _, p in ipairs(path) do through = through or (p.x == 25 and p.y == 12) end
    assert.is_true(through)
    g:fill(1)
    local _, open = g:find(1, 1, 50, 1)
    assert.are.equal(49, open.cost)
  end)

  it("checks the jump option", function()
    local g = astar.grid(4, 4)
    local ok, err = pcall(g.find, g, 1, 1, 4, 4, { jump = 1 })
    assert.is_false(ok)
    assert.matches("option 'jump' must be a boolean", err)
    assert.is_truthy(g:find(1, 1, 4, 4, { jump = true }))
  end)

  it("prepare_jumps builds the table ahead (no frame pays for it) and says its bytes", function()
    local rng = oracle.rng(SEED + 404)
    local world = uniform_world(rng, "no_corner_cut", 40)
    local g = oracle.grid(astar, world)
    local bordered = (world.w + 2) * (world.h + 2)
    assert.are.equal(16 * bordered, g:prepare_jumps())
    assert.are.equal(16 * bordered, g:prepare_jumps()) -- a fresh table stays as it is
    assert.are.equal(24 * bordered, g:prepare_jumps("never")) -- plus the 4-connected one
    for _ = 1, 30 do
      local sx, sy = pick_cell(rng, world)
      local gx, gy = pick_cell(rng, world)
      local _, info = g:find(sx, sy, gx, gy)
      local _, ainfo = g:find(sx, sy, gx, gy, { jump = false })
      assert.are.equal(ainfo.status, info.status)
      assert.are.equal(ainfo.cost, info.cost)
    end
    local function err_of(f, ...)
      local ok, err = pcall(f, ...)
      assert.is_false(ok)
      return err
    end
    assert.matches('diagonal must be "no_corner_cut" or "never"', err_of(g.prepare_jumps, g, "always"))
    assert.matches('diagonal must be "no_corner_cut" or "never"', err_of(g.prepare_jumps, g, 4))
    assert.matches("does not run on a always grid", err_of(astar.grid(4, 4, { diagonal = "always" }).prepare_jumps,
      astar.grid(4, 4, { diagonal = "always" })))
    local hex = astar.grid(4, 4, { topology = "hex" })
    assert.matches("does not run on a hex grid", err_of(hex.prepare_jumps, hex))
    local open = astar.grid(6, 6)
    assert.matches("in use", err_of(open.find, open, 1, 1, 6, 6, {
      node_cost = function() open:prepare_jumps() end }))
    assert.is_truthy(open:find(1, 1, 6, 6)) -- still usable
  end)
end)
