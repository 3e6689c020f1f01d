-- Islands per unit size, and the two-tier search (hierarchical) for units bigger than one
-- cell. A query of size n whose goal anchor lies in another component of the anchors the unit
-- fits on is answered "no path" by the labels of that size, without expanding a node
-- (info.expansions == 0); terrain writes after the labels are made must keep them exact. The
-- oracle is a breadth-first walk over spec/support/dijkstra.lua's own legal steps, which
-- checks every footprint cell and knows nothing of clearance or labels.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261168")

-- Every goal anchor against the oracle from one start: returns the goals the labels answered
-- (unreachable for the unit, though a single cell gets there).
local function check_from(grid, world, sx, sy, where)
  local seen = oracle.reachable(world, sx, sy)
  local one = world.size
  world.size = 1
  local seen_one = oracle.reachable(world, sx, sy)
  world.size = one
  local proved = 0
  for gy = 1, world.h do
    for gx = 1, world.w do
      if (gx ~= sx or gy ~= sy) and oracle.stands(world, gx, gy) then
        local path, info = grid:find(sx, sy, gx, gy, { size = world.size, info = {} })
        local at = string.format("%s: %d,%d -> %d,%d", where, sx, sy, gx, gy)
        assert((seen[gy][gx] == true) == (path ~= nil), at .. (path and ": a path the oracle has not" or ": no path"))
        if not seen[gy][gx] then
          assert(info.expansions == 0, at .. ": searched " .. info.expansions .. " nodes for no path")
          if seen_one[gy][gx] then proved = proved + 1 end
        end
      end
    end
  end
  return proved
end

-- A start the unit fits on (or nil).
local function some_anchor(rng, world)
  for _ = 1, 20 do
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    if oracle.stands(world, x, y) then return x, y end
  end
end

describe("islands per unit size", function()
  it("a gap a 2x2 unit cannot pass is 'no path' without a search, through writes", function()
    -- a wall down column 5, with a gap of one cell at row 3
    local g = astar.grid(9, 8)
    for y = 1, 8 do g:set_cost(5, y, false) end
    g:set_cost(5, 3, 1)
    local info = {}
    assert.is_not_nil(g:find(1, 3, 8, 3, { info = info })) -- one cell passes
    assert.is_nil(g:find(1, 3, 8, 3, { size = 2, info = info }))
    assert.are.equal(0, info.expansions)
    g:set_cost(5, 6, 1) -- a gap of two: the labels of size 2 join
    g:set_cost(5, 7, 1)
    assert.is_not_nil(g:find(1, 3, 8, 3, { size = 2, info = info }))
    assert.is_nil(g:find(1, 3, 6, 3, { size = 3, info = info }))
    assert.are.equal(0, info.expansions)
    g:set_cost(5, 7, false) -- closed again: they split
    assert.is_nil(g:find(1, 3, 8, 3, { size = 2, info = info }))
    assert.are.equal(0, info.expansions)
    g:fill(1) -- a bulk write builds them again at the write
    g:set_cost(5, 1, false)
    assert.is_not_nil(g:find(1, 3, 6, 3, { size = 3, info = info }))
  end)

  it("corners: a diagonal between two anchors joins them only with 'always'", function()
    -- 2x2 units at (1,1) and (2,2): the only step between them is the diagonal whose side
    -- anchors (2,1) and (1,2) do not fit
    for _, mode in ipairs(oracle.DIAGONALS) do
      local g = astar.grid(3, 3, { diagonal = mode })
      g:set_cost(3, 1, false)
      g:set_cost(1, 3, false)
      local info = {}
      local path = g:find(1, 1, 2, 2, { size = 2, info = info })
      assert.are.equal(mode == "always", path ~= nil, mode)
      if not path then assert.are.equal(0, info.expansions, mode) end
    end
  end)

  it("agree with the oracle on random worlds, through writes (" .. scale(30) .. " worlds)", function()
    local rng = oracle.rng(SEED)
    local proved = 0
    for n = 1, scale(30) do
      local world = { w = rng.int(6, 14), h = rng.int(6, 14), cost = {}, diagonal = oracle.DIAGONALS[(n - 1) % 4 + 1],
                      size = rng.int(2, 4) }
      local density = 0.05 + rng.next() * 0.15
      for y = 1, world.h do
        world.cost[y] = {}
        for x = 1, world.w do world.cost[y][x] = rng.next() >= density and rng.int(1, 3) end
      end
      local grid = oracle.grid(astar, world)
      for round = 1, 4 do
        local sx, sy = some_anchor(rng, world)
        local where = string.format("world %d round %d (%dx%d %s size %d)", n, round, world.w, world.h,
          world.diagonal, world.size)
        if sx then proved = proved + check_from(grid, world, sx, sy, where) end
        -- writes after the labels are made: they must follow (opening joins, closing splits)
        for _ = 1, rng.int(1, 6) do
          local x, y = rng.int(1, world.w), rng.int(1, world.h)
          local c = world.cost[y][x] and false or rng.int(1, 3)
          world.cost[y][x] = c
          grid:set_cost(x, y, c)
        end
      end
    end
    -- the check is not empty: many goals a single cell reaches were proved out of reach
    assert.is_true(proved > scale(30) * 3, "proved " .. proved)
  end)
end)

-- A world of 12..18 cells a side, walls with gaps of 2..4 cells (so that a bigger unit's way
-- bends through them), terrain costs 1..3, under a mode a hierarchy is built for.
local MODES = { "never", "one_walkable", "no_corner_cut" }
local function walled_world(rng, size)
  local world = { w = rng.int(12, 18), h = rng.int(12, 18), cost = {}, diagonal = MODES[rng.int(1, 3)], size = size }
  for y = 1, world.h do
    world.cost[y] = {}
    for x = 1, world.w do world.cost[y][x] = rng.next() >= 0.03 and rng.int(1, 3) end
  end
  for _ = 1, rng.int(1, 3) do
    local across, at, gap, wide = rng.next() < 0.5, rng.int(3, 10), rng.int(1, 9), rng.int(2, 4)
    for i = 1, across and world.h or world.w do
      if i < gap or i >= gap + wide then
        if across then world.cost[i][at] = false else world.cost[at][i] = false end
      end
    end
  end
  return world
end

-- A hierarchical answer against the oracle's optimum (nil: none): legal, the cost of its own
-- steps, never below the optimum; the ratio to it.
local function check_tiered(world, dist, path, info, gx, gy, where)
  local want = dist[gy][gx]
  if want == math.huge or not oracle.stands(world, gx, gy) then
    assert(path == nil, where .. ": a path the oracle says does not exist")
    return nil
  end
  assert(path, where .. ": no path (" .. tostring(info.status) .. "), the oracle's costs " .. want)
  local walked = oracle.path_cost(world, path, path[1].x, path[1].y) -- errors on an illegal step
  assert(oracle.near(walked, info.cost), where .. ": walks for " .. walked .. ", info says " .. info.cost)
  assert(info.cost >= want - 1e-9 * math.max(1, want), where .. ": below the optimum " .. want)
  return want > 0 and info.cost / want or 1
end

describe("two-tier search for bigger units (hierarchical with size)", function()
  it("legal, never below the optimum, within 1.5x (1.03x on average), found iff reachable; " ..
     "after writes the same answers as a fresh build (" .. scale(60) .. " worlds)", function()
    local rng = oracle.rng(SEED + 1)
    local ratios, sum, worst, tiered, unreachable = 0, 0, 1, 0, 0
    for n = 1, scale(60) do
      local size = rng.int(2, 3)
      local world = walled_world(rng, size)
      local grid = oracle.grid(astar, world)
      local clusters = rng.int(3, 6)
      grid:hierarchy(clusters)
      for round = 1, 2 do
        local sx, sy = some_anchor(rng, world)
        if sx then
          local dist = oracle.distances(world, sx, sy)
          for _ = 1, 3 do
            local gx, gy = some_anchor(rng, world)
            gx, gy = gx or 1, gy or 1
            local info = {}
            local path = grid:find(sx, sy, gx, gy, { size = size, hierarchical = true, info = info })
            local where = string.format("world %d round %d (%dx%d %s, cluster %d, size %d) %d,%d -> %d,%d", n, round,
              world.w, world.h, world.diagonal, clusters, size, sx, sy, gx, gy)
            local r = check_tiered(world, dist, path, info, gx, gy, where)
            if r then
              ratios, sum, worst = ratios + 1, sum + r, math.max(worst, r)
              assert(r <= 1.5, where .. string.format(": %.3fx the optimum", r))
              if info.abstract_expansions > 0 then tiered = tiered + 1 end
            else
              unreachable = unreachable + 1
            end
            if round == 1 and n % 4 == 0 then -- a job of the two-tier search: the same answer
              local job = grid:search(sx, sy, gx, gy, { size = size, hierarchical = true })
              job:step(1)
              local jpath, jinfo = job:result()
              check_tiered(world, dist, jpath, jinfo, gx, gy, where .. " (search)")
              assert(jinfo.status == info.status and jinfo.cost == info.cost, where .. ": the job answers otherwise")
            end
            if round == 2 then -- after the writes: what a build from scratch answers
              local fresh = oracle.grid(astar, world)
              fresh:hierarchy(clusters)
              local again = {}
              fresh:find(sx, sy, gx, gy, { size = size, hierarchical = true, info = again })
              assert(again.status == info.status and again.cost == info.cost and
                     again.abstract_expansions == info.abstract_expansions,
                where .. ": " .. tostring(info.cost) .. " after the writes, a fresh build " .. tostring(again.cost))
            end
          end
        end
        -- writes after the tables of this size are made: the clusters they touch go dirty
        for _ = 1, rng.int(2, 8) do
          local x, y = rng.int(1, world.w), rng.int(1, world.h)
          local c = (world.cost[y][x] and rng.next() < 0.6) and false or rng.int(1, 3)
          world.cost[y][x] = c
          grid:set_cost(x, y, c)
        end
      end
    end
    assert(ratios > scale(60) and tiered > scale(60) / 2 and unreachable > 0,
      string.format("found %d (%d through the abstract graph), unreachable %d", ratios, tiered, unreachable))
    if os.getenv("ASTAR_SPEC_VERBOSE") then
      print(string.format("\nhierarchy with size: %d found (%d tiered), %d unreachable, mean %.4fx, worst %.3fx",
        ratios, tiered, unreachable, sum / ratios, worst))
    end
    assert(sum / ratios <= 1.03, string.format("mean %.4fx, worst %.3fx", sum / ratios, worst))
  end)

  it("callbacks: an error, a nested find of another size, a rebuild refused; the grid stays usable", function()
    local grid = astar.grid(48, 48)
    for y = 1, 44 do grid:set_cost(24, y, false) end -- a wall with a gap of 4 at the bottom
    grid:hierarchy(8)
    local _, alone = grid:find(1, 1, 40, 1, { size = 2, hierarchical = true })
    assert.are.equal("found", alone.status)
    local n = 0
    local ok, err = pcall(grid.find, grid, 1, 1, 40, 1, { size = 2, hierarchical = true, node_cost = function()
      n = n + 1
      if n == 30 then error("boom") end
    end })
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find("boom"))
    local inner, refused = {}, nil
    n = 0
    local path, info = grid:find(1, 1, 40, 1, { size = 2, hierarchical = true, node_cost = function()
      n = n + 1
      if n % 50 == 0 then
        local _, i = grid:find(1, 1, 40, 1, { size = 3, hierarchical = true }) -- answered by plain find
        inner[#inner + 1] = i
        local _, none = grid:find(1, 1, 40, 1, { size = 5 }) -- a new size's labels, made in a callback
        inner[#inner + 1] = none
        refused = select(2, pcall(grid.hierarchy, grid, 4))
      end
    end })
    assert.is_truthy(path)
    assert.are.equal(alone.cost, info.cost)
    assert.is_true(#inner > 0)
    for k = 1, #inner, 2 do
      assert.are.equal("found", inner[k].status)
      assert.is_true(inner[k].fallback)
      assert.are.equal("unreachable", inner[k + 1].status) -- a gap of 4 is too narrow for 5
      assert.are.equal(0, inner[k + 1].expansions)
    end
    assert.is_truthy(tostring(refused):find("in use"))
    local _, again = grid:find(1, 1, 40, 1, { size = 2, hierarchical = true })
    assert.are.equal(alone.cost, again.cost)
    local _, five = grid:find(1, 1, 40, 1, { size = 5, hierarchical = true })
    assert.are.equal(0, five.expansions)
  end)
end)
