-- astar.smooth: line-of-sight string pulling.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

-- An independent look at one straight leg: points sampled densely along it
-- (never exactly on a cell border) must lie in walkable cells no dearer than limit
-- (the first cell excepted: it is where the unit stands).
local function leg_ok(grid, a, b, limit)
  local n = 2000
  for k = 0, n do
    local t = (k + 0.37) / (n + 1)
    local x, y = a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t
    local cx, cy = math.floor(x + 0.5), math.floor(y + 0.5)
    local c = grid:get_cost(cx, cy)
    local first = cx == a.x and cy == a.y -- where the unit stands (a path may start blocked)
    if not first and (not c or c > limit) then return false, cx, cy end
  end
  return true
end

describe("astar.smooth", function()
  it("pulls a path on open ground straight", function()
    local g = astar.grid(20, 10)
    local path = g:find(1, 1, 20, 5)
    local w = astar.smooth(g, path)
    assert.are.same({ { x = 1, y = 1 }, { x = 20, y = 5 } }, w)
  end)

  it("keeps the corners a wall needs", function()
    local g = astar.grid(9, 7)
    for y = 1, 5 do g:set_cost(5, y, false) end -- a wall open at the bottom
    local path = g:find(1, 1, 9, 1)
    local w = astar.smooth(g, path)
    assert.is_true(#w >= 3 and #w < #path)
    for i = 2, #w do assert.is_true((leg_ok(g, w[i - 1], w[i], math.huge))) end
  end)

  it("does not cut a corner the diagonal mode forbids", function()
    -- The leg (1,1) -> (3,3) passes the vertex between (2,2) and (3,3), whose sides
    -- are (3,2) and (2,3).
    local hand_made = { { x = 1, y = 1 }, { x = 2, y = 2 }, { x = 3, y = 3 } }
    local cases = {
      { rows = { "....", "..#.", ".#..", "...." }, always = 2, one_walkable = 3, no_corner_cut = 3 },
      { rows = { "....", "..#.", "....", "...." }, always = 2, one_walkable = 2, no_corner_cut = 3 },
      { rows = { "....", "....", "....", "...." }, always = 2, one_walkable = 2, no_corner_cut = 2, never = 3 },
    }
    for n, case in ipairs(cases) do
      for _, mode in ipairs({ "always", "one_walkable", "no_corner_cut", "never" }) do
        if case[mode] then
          local g = astar.grid(4, 4, { diagonal = mode })
          g:load(case.rows)
          assert.are.equal(case[mode], #astar.smooth(g, hand_made), "case " .. n .. ", " .. mode)
        end
      end
    end
  end)

  it("never leaves a path's cost class: no shortcut through a swamp", function()
    local g = astar.grid(7, 5)
    for x = 2, 6 do g:set_cost(x, 3, 9) end -- a swamp row the path went around
    local path = { { x = 1, y = 3 }, { x = 2, y = 2 }, { x = 3, y = 2 }, { x = 4, y = 2 }, { x = 5, y = 2 },
                   { x = 6, y = 2 }, { x = 7, y = 3 } }
    local w = astar.smooth(g, path)
    for i = 2, #w do
      assert.is_true((leg_ok(g, w[i - 1], w[i], 1)), "leg " .. i)
    end
  end)

  it("random worlds: waypoints are a subsequence of the path and every leg is clear", function()
    local rng = oracle.rng(4242)
    local legs = 0
    for n = 1, scale(200) do
      local w, h = rng.int(4, 16), rng.int(4, 16)
      local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
      for y = 1, h do
        world.cost[y] = {}
        for x = 1, w do world.cost[y][x] = rng.next() < 0.2 and false or (rng.next() < 0.7 and 1 or 3) end
      end
      local g = oracle.grid(astar, world)
      local path = g:find(rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h))
      if path then
        local way = astar.smooth(g, path)
        assert.are.same(path[1], way[1])
        assert.are.same(path[#path], way[#way])
        local at = 1
        for i = 2, #way do
          local from = at
          repeat at = at + 1 until path[at].x == way[i].x and path[at].y == way[i].y or at > #path
          assert(at <= #path, "world " .. n .. ": waypoint " .. i .. " is not on the path in order")
          local limit = 0
          for k = from + 1, at do limit = math.max(limit, g:get_cost(path[k].x, path[k].y)) end
          local ok, cx, cy = leg_ok(g, way[i - 1], way[i], limit)
          assert(ok, string.format("world %d (%s): leg %d crosses %s,%s", n, world.diagonal, i, tostring(cx), tostring(cy)))
          legs = legs + 1
        end
      end
    end
    assert.is_true(legs > scale(100))
  end)

  it("rejects bad arguments", function()
    local g = astar.grid(4, 4)
    assert.has_error(function() astar.smooth(g, nil) end)
    assert.has_error(function() astar.smooth(g, { { x = 0, y = 1 } }) end)
    assert.has_error(function() astar.smooth(g, { { x = 1.5, y = 1 } }) end)
    assert.has_error(function() astar.smooth(g, {}, { diagonal = "sideways" }) end)
    assert.has_error(function() astar.smooth(g, {}, { dialog = "never" }) end)
    assert.are.same({}, astar.smooth(g, {}))
    assert.are.equal("no_corner_cut", g.diagonal)
  end)
end)
