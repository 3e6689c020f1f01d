-- Landmarks in a living world (issue 26): costs raised and lowered, cells opened and blocked,
-- doors toggled between queries and between a job's slices. The landmarks stay in use (a
-- lowered cost is repaired at the change, not put aside until a rebuild) and every answer
-- stays exactly what the oracle says. The heuristic itself is checked against the oracle,
-- cell by cell and move by move, in spec/c/test_landmarks_living.c (Lua cannot read h).
-- Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261126")

local COSTS = { 1, 0.5, 2, 3.25, 1.75, 0.25 }

-- A small world with a wall across and a one-cell door in it; a third of them of one cost
-- (one table serves both ways there, until a write makes costs differ).
local function random_world(rng)
  local w, h = rng.int(4, 13), rng.int(4, 13)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  if rng.next() < 0.2 then world.topology, world.diagonal = "hex", nil end
  local one = rng.next() < 0.35 and rng.pick({ 1, 2.5 })
  local density = rng.next() * 0.3
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      world.cost[y][x] = rng.next() >= density and (one or rng.pick(COSTS))
    end
  end
  local wx, door = math.floor(w / 2) + 1, rng.int(1, h)
  for y = 1, h do world.cost[y][wx] = false end
  world.door = { x = wx, y = door, cost = one or 1 }
  world.one = one
  return world
end

-- A write as a game makes them: the door toggles, a cell is blocked, gets cheaper (maybe
-- below every cost so far), opens, or takes any cost.
local function random_write(rng, world)
  local r = rng.int(1, 5)
  if r == 1 then
    local d = world.door
    return d.x, d.y, world.cost[d.y][d.x] == false and d.cost or false
  end
  local x, y = rng.int(1, world.w), rng.int(1, world.h)
  if r == 2 then return x, y, false end
  if r == 3 then return x, y, rng.pick(COSTS) * 0.5 end
  return x, y, world.one or rng.pick(COSTS)
end

local function lower(before, after)
  return after ~= false and (before == false or after < before)
end

local function open_cell(rng, world)
  for _ = 1, 50 do
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    if world.cost[y][x] then return x, y end
  end
end

describe("landmarks in a living world", function()
  it("stay in use and exact through random raises, decreases, openings, blocks and doors", function()
    local rng = oracle.rng(SEED)
    local finds, lowered, worlds = 0, 0, 0
    for _ = 1, scale(120) do
      local world = random_world(rng)
      local grid = oracle.grid(astar, world)
      local k = rng.int(1, 6)
      local placed = grid:landmarks(k)
      if placed > 0 then
        worlds = worlds + 1
        for _ = 1, 25 do
          local x, y, c = random_write(rng, world)
          if lower(world.cost[y][x], c) then lowered = lowered + 1 end
          world.cost[y][x] = c
          grid:set_cost(x, y, c)
          assert.are.equal(placed, (grid:landmarks())) -- never put out of use
          local sx, sy = open_cell(rng, world)
          local gx, gy = open_cell(rng, world)
          if sx and gx then
            local path, info = grid:find(sx, sy, gx, gy, { jump = false })
            local want = oracle.cost(world, sx, sy, gx, gy)
            if want then
              assert(path, "no path where the oracle has one")
              assert.are.equal(want, info.cost) -- exact, to the bit
              assert.are.equal(want, oracle.path_cost(world, path))
            else
              assert.is_nil(path)
            end
            finds = finds + 1
          end
        end
      end
    end
    assert(worlds > scale(100), worlds .. " worlds")
    assert(finds > scale(2000) and lowered > scale(800), finds .. " finds, " .. lowered .. " decreases")
  end)

  it("a job that reads them answers exactly with decreases and raises between its slices", function()
    local rng = oracle.rng(SEED + 1)
    local jobs = 0
    for _ = 1, scale(80) do
      local world = random_world(rng)
      local grid = oracle.grid(astar, world)
      if grid:landmarks(rng.int(1, 5)) > 0 then
        local sx, sy = open_cell(rng, world)
        local gx, gy = open_cell(rng, world)
        if sx and gx then
          local job = grid:search(sx, sy, gx, gy)
          local status = job:step(rng.int(1, 5))
          while status == "running" do
            local x, y, c = random_write(rng, world)
            if rng.next() < 0.5 then c = world.one or rng.pick(COSTS) * 0.5 end -- mostly decreases
            world.cost[y][x] = c
            grid:set_cost(x, y, c)
            status = job:step(rng.int(1, 8))
          end
          jobs = jobs + 1
          local path, info = job:result()
          local want = oracle.cost(world, sx, sy, gx, gy)
          if want then
            assert.are.equal("found", status)
            assert.are.equal(want, info.cost)
            assert.are.equal(want, oracle.path_cost(world, path))
          else
            assert.are.equal("unreachable", status)
          end
        end
      end
    end
    assert(jobs > scale(50), jobs .. " jobs")
  end)

  it("a door closed and opened again changes nothing; a shortcut keeps them useful", function()
    -- 64 x 64: a wall at x = 32 with one door; the landmarks see both halves through it.
    local rows = {}
    for y = 1, 64 do
      local row = {}
      for x = 1, 64 do row[x] = (x == 32 and y ~= 8) and "#" or "." end
      rows[y] = table.concat(row)
    end
    local world = oracle.world_from_rows(rows, "always")
    local grid = oracle.grid(astar, world)
    assert.are.equal(8, grid:landmarks(8))
    local _, first = grid:find(2, 60, 62, 60, { jump = false })
    for _ = 1, 12 do
      grid:set_cost(32, 8, false)
      grid:set_cost(32, 8, 1)
    end
    local _, again = grid:find(2, 60, 62, 60, { jump = false })
    assert.are.equal(first.cost, again.cost)
    assert.are.equal(first.expansions, again.expansions) -- the same distances, the same search
    -- A second door near the query: the repaired distances guide the search through it.
    grid:set_cost(32, 60, 1)
    world.cost[60][32] = 1
    assert.are.equal(8, (grid:landmarks()))
    local _, with = grid:find(2, 20, 62, 60, { jump = false })
    assert.are.equal(oracle.cost(world, 2, 20, 62, 60), with.cost)
    grid:landmarks(0)
    local _, without = grid:find(2, 20, 62, 60, { jump = false })
    assert.are.equal(with.cost, without.cost)
    assert(with.expansions * 2 < without.expansions, with.expansions .. " with, " .. without.expansions .. " without")
  end)

  it("a sliced build goes on when costs rise or fall under it (a door toggled under it)", function()
    local world = { w = 40, h = 40, cost = {}, diagonal = "always" }
    for y = 1, 40 do
      world.cost[y] = {}
      for x = 1, 40 do world.cost[y][x] = x == 20 and 2 or 1 end
    end
    local g = oracle.grid(astar, world)
    local b = g:build_landmarks(6)
    while b:progress() < 0.3 do b:step(50) end
    local function set(x, y, c) g:set_cost(x, y, c) world.cost[y][x] = c end
    set(5, 5, false) -- raises: what it measured stays a lower bound
    set(6, 6, 4)
    b:step(50)
    assert.are.equal(0, b:restarts())
    -- lower: distances measured across the dear column may overestimate; repaired at the
    -- install, as a write repairs installed landmarks
    set(20, 20, 1)
    local steps = 0
    while not b:done() do
      b:step(50)
      steps = steps + 1
      if steps % 3 == 0 then set(20, 30, world.cost[30][20] and false or 0.5) end -- a door
    end
    assert.are.equal(0, b:restarts())
    assert.are.equal(6, (g:landmarks()))
    local rng = oracle.rng(SEED)
    for _ = 1, scale(40) do
      local sx, sy, gx, gy = rng.int(1, 40), rng.int(1, 40), rng.int(1, 40), rng.int(1, 40)
      local _, info = g:find(sx, sy, gx, gy)
      local want = oracle.cost(world, sx, sy, gx, gy)
      if want then assert(oracle.near(info.cost, want), info.cost .. " vs " .. want) end
    end
  end)

  it("under a used-up work limit a repairing write is done and puts them out of use", function()
    local g = astar.grid(20, 20)
    for y = 1, 20 do g:set_cost(10, y, false) end
    assert.are.equal(4, (g:landmarks(4)))
    astar.set_work_limit(0)
    local raised = pcall(g.set_cost, g, 10, 15, 3) -- a raise: no work, they stay
    local lowered = pcall(g.set_cost, g, 10, 5, 1) -- an opening: its repair is stopped
    astar.set_work_limit(nil)
    assert.is_true(raised and lowered)
    assert.are.equal(3, g:get_cost(10, 15))
    assert.are.equal(1, g:get_cost(10, 5))
    assert.are.equal(0, (g:landmarks()))
    local world = { w = 20, h = 20, cost = {}, diagonal = "no_corner_cut" }
    for y = 1, 20 do
      world.cost[y] = {}
      for x = 1, 20 do world.cost[y][x] = g:get_cost(x, y) end
    end
    local _, info = g:find(1, 20, 20, 20)
    assert.are.equal(oracle.cost(world, 1, 20, 20, 20), info.cost)
  end)
end)
