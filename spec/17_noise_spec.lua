-- The noise option: deterministic per-seed costs, so a squad does not march single file.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

describe("noise and seed", function()
  it("is deterministic: the same seed gives the same path, noise 0 the plain one", function()
    local g = astar.grid(30, 20)
    local a = g:find(1, 1, 30, 20, { noise = 2, seed = 7 })
    local b = g:find(1, 1, 30, 20, { noise = 2, seed = 7 })
    assert.are.same(a, b)
    local plain, pinfo = g:find(1, 1, 30, 20)
    local zero, zinfo = g:find(1, 1, 30, 20, { noise = 0, seed = 99 })
    assert.are.same(plain, zero)
    assert.are.equal(pinfo.cost, zinfo.cost)
  end)

  it("different seeds spread a squad over different routes", function()
    local g = astar.grid(40, 30)
    local distinct, seen = 0, {}
    for seed = 1, 8 do
      local path = g:find(1, 15, 40, 15, { noise = 1.5, seed = seed })
      local key = {}
      for i, p in ipairs(path) do key[i] = p.x .. ":" .. p.y end
      key = table.concat(key, " ")
      if not seen[key] then distinct, seen[key] = distinct + 1, true end
    end
    assert.is_true(distinct >= 6, "only " .. distinct .. " distinct routes of 8")
  end)

  it("costs what the oracle's formula says, with claims and influence too", function()
    local rng = oracle.rng(31)
    for n = 1, scale(120) do
      local w, h = rng.int(2, 9), rng.int(2, 9)
      local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)],
                      noise = rng.next() * 4, seed = rng.int(0, 2 ^ 32 - 1) }
      for y = 1, h do
        world.cost[y] = {}
        for x = 1, w do world.cost[y][x] = rng.next() < 0.2 and false or 1 end
      end
      local grid = oracle.grid(astar, world)
      local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
      local want = oracle.cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, { noise = world.noise, seed = world.seed })
      if want then
        assert(path and oracle.near(info.cost, want), "world " .. n)
      else
        assert.is_nil(path)
      end
    end
  end)

  it("rejects bad values", function()
    local g = astar.grid(3, 3)
    assert.has_error(function() g:find(1, 1, 3, 3, { noise = -1 }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { noise = math.huge }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { noise = 0 / 0 }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { noise = "1" }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { noise = 1, seed = 1.5 }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { noise = 1, seed = "x" }) end)
  end)
end)
