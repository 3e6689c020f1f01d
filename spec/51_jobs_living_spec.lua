-- Jobs in a living world (issue 26): a search in flight goes on when a terrain change is
-- outside what it expanded, is repaired when a change is under its expanded nodes, and starts
-- over only when neither is possible; its answer is exact for the terrain at its end
-- (docs/contract.md, "Jobs under terrain changes"; docs/design/living.md).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local worlds = require("spec.support.worlds")

-- An influence layer of one value everywhere, in the world's oracle too.
local function flat_layer(world, v)
  local vals = {}
  for y = 1, world.h do
    vals[y] = {}
    for x = 1, world.w do vals[y][x] = v end
  end
  world.layers = { { vals = vals, weight = 1 } }
  return astar.influence(world.w, world.h, v)
end

-- A cell's new cost for a change of the given kind, from its cost now (false: blocked).
local function new_cost(rng, kind, now, uniform)
  if kind == "block" then return false end
  if kind == "open" or not now then return uniform and 1 or (rng.next() < 0.5 and 1 or 0.5 + rng.next() * 3) end
  if kind == "raise" then return uniform and (rng.next() < 0.7 and 1 or 2) or now + 0.5 + rng.next() * 2 end
  return uniform and 1 or math.max(0.25, now * (0.3 + rng.next() * 0.6)) -- a decrease
end

-- A cell for a change: near the start (where the job has expanded), on the way to the goal
-- (its open nodes), or anywhere (mostly outside its reach).
local function pick_cell(rng, world, sx, sy, gx, gy)
  local r = rng.next()
  local x, y
  if r < 0.4 then
    x, y = sx + rng.int(-3, 3), sy + rng.int(-3, 3)
  elseif r < 0.7 then
    local t = rng.next()
    x, y = math.floor(sx + t * (gx - sx) + 0.5) + rng.int(-1, 1), math.floor(sy + t * (gy - sy) + 0.5) + rng.int(-1, 1)
  else
    x, y = rng.int(1, world.w), rng.int(1, world.h)
  end
  return math.max(1, math.min(world.w, x)), math.max(1, math.min(world.h, y))
end

-- Writes a change to the grid and to the oracle's world.
local function set(grid, world, x, y, cost)
  grid:set_cost(x, y, cost)
  world.cost[y][x] = cost
end

-- The answer a job gave against the oracle on the terrain at its end. With turn penalties and
-- claim windows a search is not exact (docs/contract.md): its cost is then its path's, at least
-- the optimum.
local function check(world, sx, sy, gx, gy, path, info, what)
  local approximate = world.turn_penalty or world.claim_window
  local want
  if approximate then want = oracle.exact_cost(world, sx, sy, gx, gy) else want = oracle.cost(world, sx, sy, gx, gy) end
  if want == nil then
    assert.are.equal("unreachable", info.status, what)
    return
  end
  assert.are.equal("found", info.status, what)
  local walked = oracle.path_cost(world, path)
  assert.is_true(oracle.near(walked, info.cost),
    what .. string.format(": the path's cost %.10g, info.cost %.10g, optimum %.10g", walked, info.cost, want))
  if approximate then
    assert.is_true(info.cost >= want - 1e-9 * want, what)
  else
    assert.is_true(oracle.near(info.cost, want), what .. string.format(": cost %.10g, optimum %.10g", info.cost, want))
  end
end

describe("a job under terrain changes", function()
  it("answers exactly for the terrain at its end, with changes between its slices (random worlds)", function()
    local rng = oracle.rng(2651)
    local went_on, repaired, restarted = 0, 0, 0
    for n = 1, scale(400) do
      local features = worlds.random_features(rng)
      features.w, features.h = rng.int(4, 16), rng.int(4, 16)
      features.windows = features.claims and rng.next() < 0.3
      features.turns = rng.next() < 0.1
      local uniform = not features.hex and rng.next() < 0.3
      if uniform then features = { w = features.w, h = features.h, layers = features.layers } end
      local world = worlds.random_world(rng, features)
      if uniform then
        for y = 1, world.h do
          for x = 1, world.w do
            if world.cost[y][x] then world.cost[y][x] = 1 end
          end
        end
      end
      local grid = oracle.grid(astar, world)
      if not world.known and rng.next() < 0.15 then grid:landmarks(2) end
      local opts = worlds.query_opts(astar, grid, world)
      opts.dead_ends = rng.next() < 0.8
      local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
      local job = grid:search(sx, sy, gx, gy, opts)
      local what = "world " .. n
      local changes = 0
      local door -- a cell toggled now and then, as a door
      -- Changes between the first slices (later ones would keep some jobs from ever ending:
      -- the cells they keep changing are the ones the job has to read again), then to the end.
      for _ = 1, rng.int(1, 40) do
        job:step(rng.int(1, 6))
        if job:status() ~= "running" then break end
        for _ = 1, rng.int(0, 3) do
          local x, y = pick_cell(rng, world, sx, sy, gx, gy)
          if rng.next() < 0.15 then
            door = door or { x, y }
            x, y = door[1], door[2]
            set(grid, world, x, y, not world.cost[y][x] and 1 or false)
          else
            local kinds = { "block", "open", "raise", "decrease" }
            local kind = kinds[rng.int(1, 4)]
            local cost = new_cost(rng, kind, world.cost[y][x], uniform)
            if cost ~= world.cost[y][x] then changes = changes + 1 end
            set(grid, world, x, y, cost)
          end
        end
      end
      job:step()
      local path, info = job:result()
      check(world, sx, sy, gx, gy, path, info, what)
      if changes > 0 and info.restarts == 0 then went_on = went_on + 1 end
      repaired = repaired + info.repairs
      restarted = restarted + info.restarts
    end
    -- Every way is taken often: going on, repairs, restarts.
    assert.is_true(went_on > scale(40), "went on " .. went_on)
    assert.is_true(repaired > scale(40), "repairs " .. repaired)
    assert.is_true(restarted > scale(20), "restarts " .. restarted)
  end)

  it("goes on, never starting over, when a change is outside its reach (a far wall, a far mud cell)", function()
    for _, layered in ipairs({ false, true, "no dead ends" }) do
      local rows = {}
      for y = 1, 64 do rows[y] = string.rep(".", 64) end
      local world = oracle.world_from_rows(rows)
      local g = oracle.grid(astar, world)
      local opts = { dead_ends = layered ~= "no dead ends" }
      if layered == true then opts.influence = flat_layer(world, 0.5) end
      local job = g:search(1, 1, 40, 40, opts)
      job:step(30)
      set(g, world, 64, 1, false) -- far walls and mud: not where it has been
      set(g, world, 63, 2, false)
      set(g, world, 1, 64, 5)
      set(g, world, 60, 60, 3)
      job:step(10)
      set(g, world, 64, 2, 0.5 + 1) -- dearer than the rest: a mud cell
      assert.are.equal("found", job:step())
      local path, info = job:result()
      assert.are.equal(0, info.restarts)
      assert.are.equal(0, info.repairs)
      opts.jump = false
      assert.are.equal(select(2, g:find(1, 1, 40, 40, opts)).cost, info.cost)
      assert.is_true(oracle.near(oracle.path_cost(world, path), info.cost))
    end
  end)

  it("never starts over for another layer's change", function()
    local g = astar.grid(50, 50)
    local danger = astar.influence(50, 50)
    local job = g:search(1, 25, 50, 25, { influence = danger })
    job:step(20)
    danger:stamp(30, 25, 4, 5) -- ahead of it: read when it gets there
    assert.are.equal("found", job:step())
    local _, info = job:result()
    assert.are.equal(0, info.restarts)
    assert.are.equal(select(2, g:find(1, 25, 50, 25, { influence = danger })).cost, info.cost)
  end)

  it("repairs, without starting over, a change under the nodes it expanded", function()
    for _, case in ipairs({
      { cost = false, what = "a wall behind it" }, { cost = 4, what = "mud behind it" },
      { cost = 0.5, what = "a cheaper cell (below the least cost: starts over)", restarts = 1 },
    }) do
      for _, layered in ipairs({ false, true }) do
        -- A wall in front of the start, open at the top: the search floods the start's side.
        local rows = {}
        for y = 1, 20 do rows[y] = string.rep(".", 9) .. (y > 1 and "#" or ".") .. string.rep(".", 30) end
        local world = oracle.world_from_rows(rows)
        local g = oracle.grid(astar, world)
        local opts = { influence = layered and flat_layer(world, 0.25) or nil }
        set(g, world, 6, 12, 2) -- not uniform: a cheaper cell than 2 is no new least cost
        local job = g:search(5, 10, 40, 10, opts)
        job:step(60) -- a flood around the start
        assert.are.equal("running", job:status())
        for y = 8, 12 do set(g, world, 4, y, case.cost) end
        if case.cost == 0.5 then set(g, world, 6, 12, 1) end -- 2 -> 1: cheaper, not below the least
        assert.are.equal("found", job:step())
        local path, info = job:result()
        assert.are.equal(case.restarts or 0, info.restarts, case.what)
        if not case.restarts then assert.is_true(info.repairs > 0, case.what) end
        check(world, 5, 10, 40, 10, path, info, case.what)
      end
    end
  end)

  it("repairs a wall at a corner its diagonal steps passed (the corner rule)", function()
    for _, diagonal in ipairs({ "no_corner_cut", "one_walkable" }) do
      local rows = {}
      for y = 1, 12 do rows[y] = string.rep(".", 12) end
      local world = oracle.world_from_rows(rows, diagonal)
      local g = oracle.grid(astar, world)
      local job = g:search(1, 1, 12, 12, { jump = false }) -- A*: a jumping job starts over
      job:step(6) -- along the diagonal
      set(g, world, 4, 3, false) -- beside its step (3, 3) -> (4, 4): now a corner it may not cut
      if diagonal == "one_walkable" then set(g, world, 3, 4, false) end
      assert.are.equal("found", job:step())
      local path, info = job:result()
      assert.are.equal(0, info.restarts, diagonal)
      check(world, 1, 1, 12, 12, path, info, diagonal)
    end
  end)

  it("repairs a door across its way, toggled between slices, and stays exact", function()
    -- A wall with a door at (20, 10) and a long way around at the bottom.
    local rows = {}
    for y = 1, 20 do rows[y] = y < 19 and (string.rep(".", 19) .. "#" .. string.rep(".", 20)) or string.rep(".", 40) end
    local world = oracle.world_from_rows(rows)
    local g = oracle.grid(astar, world)
    local job = g:search(1, 10, 40, 10, { jump = false })
    local open = false
    for _ = 1, 40 do -- then it stays as it is, and the job ends
      if job:status() ~= "running" then break end
      job:step(7)
      open = not open
      set(g, world, 20, 10, open and 1 or false)
    end
    job:step()
    local path, info = job:result()
    assert.are.equal(0, info.restarts)
    assert.is_true(info.repairs > 0)
    check(world, 1, 10, 40, 10, path, info, "the door")
  end)

  it("stays exact when a change joins a dead end it skipped to the rest (dead_ends)", function()
    -- A corridor from the start's room (a dead end: the door at its end is shut) would be the
    -- short way to the goal's room once the door opens; the long way goes round the top.
    local rows = {
      "..............................",
      ".....########################.",
      ".....########################.",
      ".....################.........",
      ".....................#........",
      ".....################.........",
      ".....#########################",
    }
    for _, far_first in ipairs({ false, true }) do
      local world = oracle.world_from_rows(rows, "no_corner_cut")
      local g = oracle.grid(astar, world)
      assert.is_truthy(g:dead_end(10, 5)) -- the corridor, behind the cell (5, 5)
      local job = g:search(2, 5, 26, 5, { jump = false })
      job:step(10) -- the start's room, its gateway into the corridor too
      if far_first then -- a change far from it first: it goes on, reading the grid's own walls
        set(g, world, 28, 1, 2)
        job:step(5)
      end
      set(g, world, 22, 5, 1) -- the door opens
      assert.are.equal("found", job:step())
      local path, info = job:result()
      check(world, 2, 5, 26, 5, path, info, far_first and "a far change, then the door" or "the door")
    end
  end)

  it("stays exact when a dead end it skipped opens onto nodes it closed the long way", function()
    -- The corridor from the start's room is a dead end until the door at its end opens onto
    -- room A, which the search has reached the long way round (along the bottom) and closed
    -- the one cell into the goal's room: the new way must improve closed nodes.
    local open = {}
    local function carve(x1, y1, x2, y2)
      for y = y1, y2 do for x = x1, x2 do open[y * 100 + x] = true end end
    end
    carve(1, 1, 5, 16) -- the start's room
    carve(6, 3, 20, 3) -- the corridor, shut by the door at (21, 3)
    carve(22, 1, 30, 7) -- room A
    carve(1, 16, 34, 16) carve(34, 7, 34, 16) carve(31, 7, 33, 7) -- the long way into room A
    carve(26, 8, 26, 8) -- the cell into the goal's room
    carve(22, 9, 30, 13) -- the goal's room
    local rows = {}
    for y = 1, 16 do
      local r = {}
      for x = 1, 36 do r[x] = open[y * 100 + x] and "." or "#" end
      rows[y] = table.concat(r)
    end
    for _, diagonal in ipairs({ "no_corner_cut", "never", "always" }) do
      for _, rebuilt in ipairs({ false, true }) do
        local world = oracle.world_from_rows(rows, diagonal)
        local g = oracle.grid(astar, world)
        local job = g:search(3, 3, 26, 12, { jump = false })
        job:step(130) -- room A and the cell into the goal's room closed, the long way
        assert.are.equal("running", job:status())
        set(g, world, 21, 3, 1) -- the door opens
        -- Another query rebuilds the dead ends before the job's next step: the job no longer
        -- knows the areas it skipped.
        if rebuilt then g:find(1, 1, 5, 16, { jump = false }) end
        assert.are.equal("found", job:step())
        local path, info = job:result()
        check(world, 3, 3, 26, 12, path, info, diagonal .. (rebuilt and ", rebuilt" or ""))
      end
    end
  end)

  it("starts over after a bulk write (fill), which the change log cannot describe cell by cell", function()
    local g = astar.grid(30, 30)
    local job = g:search(1, 1, 30, 30, { jump = false })
    job:step(5)
    g:fill(2)
    assert.are.equal("found", job:step())
    local _, info = job:result()
    assert.are.equal(1, info.restarts)
    assert.are.equal(select(2, g:find(1, 1, 30, 30, { jump = false })).cost, info.cost)
  end)
end)
