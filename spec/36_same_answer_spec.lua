-- The same answer from every engine, bit for bit (issue 17): jump point search, plain A*,
-- a job in slices, find_many's threads and a landmark-guided search give a query the same
-- status and the same info.cost to the last bit, which is the oracle's optimum summed in whole
-- quanta (docs/contract.md, "The cost of a step"). spec/c/same_builds.sh checks the builds.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local function random_world(rng, uniform)
  local w, h = rng.int(8, 24), rng.int(8, 24)
  local base = rng.int(5, 30) / 10
  local world = { w = w, h = h, cost = {}, diagonal = rng.next() < 0.7 and "no_corner_cut" or "never" }
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      if rng.next() < 0.2 then world.cost[y][x] = false
      else world.cost[y][x] = uniform and base or rng.int(5, 50) / 10 end
    end
  end
  return world
end

local function open_cell(rng, world)
  for _ = 1, 200 do
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    if world.cost[y][x] then return x, y end
  end
  return 1, 1
end

local function sliced(grid, sx, sy, gx, gy, opts)
  local job = grid:search(sx, sy, gx, gy, opts)
  while job:status() == "running" do job:step(7) end
  return job:result()
end

describe("the same answer from every engine", function()
  it("find (jump point search), A*, slices, find_many and landmarks: one cost to the bit", function()
    local rng = oracle.rng(35)
    local compared = 0
    for n = 1, scale(60) do
      local uniform = n % 2 == 0
      local world = random_world(rng, uniform)
      local grid = oracle.grid(astar, world)
      local guided = oracle.grid(astar, world)
      guided:landmarks(4)
      local danger = astar.influence(world.w, world.h)
      for _ = 1, 4 do danger:stamp(rng.int(1, world.w), rng.int(1, world.h), 3, rng.int(1, 30) / 10) end
      local queries = {}
      for i = 1, 10 do
        local sx, sy = open_cell(rng, world)
        local gx, gy = open_cell(rng, world)
        queries[i] = { sx, sy, gx, gy }
      end
      for _, opts in ipairs({ {}, { influence = danger, influence_weight = 0.7 } }) do
        local many = grid:find_many(queries, opts, { threads = 2 })
        for i, q in ipairs(queries) do
          local where = string.format("world %d, query %d%s", n, i, opts.influence and ", influence" or "")
          local _, info = grid:find(q[1], q[2], q[3], q[4], opts)
          local astar_opts = { jump = false, influence = opts.influence, influence_weight = opts.influence_weight }
          local _, plain = grid:find(q[1], q[2], q[3], q[4], astar_opts)
          local _, job = sliced(grid, q[1], q[2], q[3], q[4], opts)
          local _, lm = guided:find(q[1], q[2], q[3], q[4], opts)
          for name, other in pairs({ ["A*"] = plain, slices = job, find_many = many[i].info, landmarks = lm }) do
            assert.are.equal(info.status, other.status, where .. ": " .. name)
            assert(info.cost == other.cost, string.format("%s: %s %.17g, find %.17g", where, name,
              other.cost or -1, info.cost or -1))
          end
          if not opts.influence then
            local want = oracle.cost(world, q[1], q[2], q[3], q[4])
            assert(info.cost == want, string.format("%s: find %.17g, oracle %.17g", where, info.cost or -1, want or -1))
          end
          compared = compared + 1
        end
      end
    end
    assert.are.equal(scale(60) * 10 * 2, compared)
  end)
end)
