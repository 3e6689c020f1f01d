-- Seeded random worlds: find's cost against the brute-force oracle, and every
-- step of every path checked. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261122")
local WORLDS = scale(600)

local worlds = require("spec.support.worlds")
local random_world, query_opts = worlds.random_world, worlds.query_opts

describe("random worlds against the oracle", function()
  it("find is optimal and every path is legal (" .. WORLDS .. " worlds, seed " .. SEED .. ")", function()
    local rng = oracle.rng(SEED)
    local seen = { found = 0, unreachable = 0, blocked_start = 0 }
    local modes = {}
    for n = 1, WORLDS do
      local features = worlds.random_features(rng)
      local world = random_world(rng, features)
      local mode = world.topology or world.diagonal
      modes[mode] = (modes[mode] or 0) + 1
      local grid = oracle.grid(astar, world)
      local opts = query_opts(astar, grid, world)
      local sx, sy = rng.int(1, world.w), rng.int(1, world.h)
      local gx, gy = rng.int(1, world.w), rng.int(1, world.h)
      if not world.cost[sy][sx] then seen.blocked_start = seen.blocked_start + 1 end
      local want = oracle.cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      local where = string.format("world %d (%dx%d %s) %d,%d -> %d,%d", n, world.w, world.h,
        mode, sx, sy, gx, gy)
      if want == nil then
        assert(path == nil, where .. ": found a path the oracle says does not exist")
        assert.are.equal("unreachable", info.status, where)
        seen.unreachable = seen.unreachable + 1
      else
        assert(path, where .. ": no path, oracle cost " .. want)
        assert(oracle.near(info.cost, want), where .. ": cost " .. info.cost .. " ~= oracle " .. want)
        assert.are.same({ x = sx, y = sy }, path[1])
        assert.are.same({ x = gx, y = gy }, path[#path])
        assert.are.equal(#path, info.length)
        local walked = oracle.path_cost(world, path, sx, sy)
        assert(oracle.near(walked, info.cost), where .. ": path walks for " .. walked)
        seen.found = seen.found + 1
      end
    end
    -- the generator really covers what it claims to
    local covered = string.format("found %d, unreachable %d, blocked starts %d", seen.found,
      seen.unreachable, seen.blocked_start)
    assert(seen.found > scale(250) and seen.unreachable > scale(20) and seen.blocked_start > scale(10), covered)
    for _, mode in ipairs(oracle.DIAGONALS) do assert.is_true((modes[mode] or 0) > scale(60), mode) end
    assert.is_true((modes.hex or 0) > scale(60), "hex")
  end)

  -- turn_penalty and claim_window are approximate (docs/design/c_api.md says why): the path's cost is
  -- exact and never below the optimum over every way in, and most of the time it is it.
  it("turn_penalty and claim_window: exact cost of the path, never below the optimum", function()
    local rng = oracle.rng(SEED + 3)
    local optimal, found, worst = 0, 0, 1
    for n = 1, scale(300) do
      local features = { turns = rng.next() < 0.7, claims = true, hex = rng.next() < 0.25,
                         layers = rng.next() < 0.3, node_cost = rng.next() < 0.2 }
      features.windows = not features.turns or rng.next() < 0.5
      local world = random_world(rng, features)
      local grid = oracle.grid(astar, world)
      local opts = query_opts(astar, grid, world)
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.exact_cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      local where = "world " .. n
      if want == nil then
        assert(path == nil, where .. ": found a path the oracle says does not exist")
      else
        assert(path, where .. ": no path, oracle cost " .. want)
        assert(oracle.near(oracle.path_cost(world, path, sx, sy), info.cost), where .. ": path cost")
        assert(info.cost >= want - 1e-9, where .. ": below the optimum")
        found = found + 1
        if oracle.near(info.cost, want) then optimal = optimal + 1 else worst = math.max(worst, info.cost / want) end
      end
    end
    assert(found > scale(150), "found " .. found)
    -- how approximate, for this seed (docs/manual.md quotes it)
    assert(optimal >= 0.75 * found, string.format("optimal %d of %d, worst %.3fx", optimal, found, worst))
  end)

  it("weighted search costs at most weight x optimal", function()
    local rng = oracle.rng(SEED + 1)
    for n = 1, scale(150) do
      local world = random_world(rng, { layers = rng.next() < 0.5 })
      local grid = oracle.grid(astar, world)
      local opts = query_opts(astar, grid, world)
      opts.weight = 1 + rng.next() * 3
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.cost(world, sx, sy, gx, gy)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      if want then
        assert(path, "world " .. n)
        assert.is_true(info.cost <= opts.weight * want + 1e-9 and info.cost >= want - 1e-9)
        assert(oracle.near(oracle.path_cost(world, path), info.cost))
      else
        assert.is_nil(path)
      end
    end
  end)

  it("every heuristic name keeps paths optimal", function()
    local rng = oracle.rng(SEED + 2)
    for n = 1, scale(120) do
      local world = random_world(rng, { hex = rng.next() < 0.25 })
      local grid = oracle.grid(astar, world)
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local want = oracle.cost(world, sx, sy, gx, gy)
      local names = { "octile", "euclidean", "chebyshev", "zero" }
      if world.diagonal == "never" then names[#names + 1] = "manhattan" end
      if world.topology == "hex" then names = { "hex", "chebyshev", "zero" } end
      for _, h in ipairs(names) do
        local path, info = grid:find(sx, sy, gx, gy, { heuristic = h })
        if want then
          assert(path and oracle.near(info.cost, want), "world " .. n .. " heuristic " .. h)
        else
          assert.is_nil(path)
        end
      end
    end
  end)
end)
