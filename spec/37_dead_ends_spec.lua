-- Dead ends (issue 18 item 3): areas behind one gateway cell, found on the terrain and
-- skipped by queries that need nothing inside them. The areas are checked against the
-- terrain by spec/support/dead_ends.lua, the costs against the brute-force oracle and against
-- the same query with dead_ends = false. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local worlds = require("spec.support.worlds")
local dead = require("spec.support.dead_ends")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261124")

-- A random world with dead ends (a maze or rooms off a corridor two times in three, else
-- random terrain, which has alcoves of its own) and random features.
local function world_with_dead_ends(rng, features)
  local world = worlds.random_world(rng, features)
  if rng.next() < 0.67 then
    dead.carve(rng, world)
    -- a fog of war or a node_cost table made for the old terrain still fits its size
  end
  return world
end

local function random_features(rng)
  return {
    layers = rng.next() < 0.3, claims = rng.next() < 0.3, windows = rng.next() < 0.1,
    node_cost = rng.next() < 0.25, edge_cost = rng.next() < 0.25, known = rng.next() < 0.1,
    noise = rng.next() < 0.25, hex = rng.next() < 0.2, turns = rng.next() < 0.1,
  }
end

local function open_cell(rng, world)
  for _ = 1, 50 do
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    if world.cost[y][x] then return x, y end
  end
  return rng.int(1, world.w), rng.int(1, world.h)
end

-- The oracle's cost under the world's options (turns and windows need the state search).
local function oracle_cost(world, sx, sy, gx, gy)
  if world.turn_penalty or world.claim_window then return nil end
  return oracle.cost(world, sx, sy, gx, gy)
end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

describe("dead ends", function()
  it("every area grid:dead_end names is cut off by its gateway (random worlds, every mode)", function()
    local rng = oracle.rng(SEED)
    local inside, modes = 0, {}
    for n = 1, scale(150) do
      local world = world_with_dead_ends(rng, { hex = rng.next() < 0.2 })
      local grid = oracle.grid(astar, world)
      local ok, err = pcall(dead.check_areas, grid, world)
      assert(ok, ("world %d (%dx%d %s): %s"):format(n, world.w, world.h,
        world.topology or world.diagonal, tostring(err)))
      inside = inside + err
      local mode = world.topology or world.diagonal
      modes[mode] = (modes[mode] or 0) + 1
    end
    assert.is_true(inside > scale(1000), "only " .. inside .. " cells in dead ends")
    for _, mode in ipairs({ "never", "always", "one_walkable", "no_corner_cut", "hex" }) do
      assert.is_true((modes[mode] or 0) > scale(10), mode)
    end
  end)

  it("find, find_nearest, jobs and find_many cost what the oracle and dead_ends = false say", function()
    local rng = oracle.rng(SEED + 1)
    local fewer, checked = 0, 0
    for n = 1, scale(260) do
      local world = world_with_dead_ends(rng, random_features(rng))
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      if not world.topology and rng.next() < 0.2 then -- a mode of its own: that mode's areas
        world.diagonal = oracle.DIAGONALS[rng.int(1, 4)]
        opts.diagonal = world.diagonal
      end
      if rng.next() < 0.3 then opts.jump = false end
      if rng.next() < 0.1 then opts.heuristic = "zero" end
      local off = copy(opts)
      off.dead_ends = false
      local sx, sy = open_cell(rng, world)
      if rng.next() < 0.1 then sx, sy = rng.int(1, world.w), rng.int(1, world.h) end -- maybe blocked
      local gx, gy = open_cell(rng, world)
      local where = ("world %d (%dx%d %s) %d,%d -> %d,%d"):format(n, world.w, world.h,
        world.topology or world.diagonal, sx, sy, gx, gy)
      local kind = n % 4
      local path, info, opath, oinfo
      if kind == 0 then -- find
        path, info = grid:find(sx, sy, gx, gy, opts)
        opath, oinfo = grid:find(sx, sy, gx, gy, off)
      elseif kind == 1 then -- find_nearest
        local targets = {}
        for i = 1, rng.int(1, 4) do
          local x, y = open_cell(rng, world)
          targets[i] = { x = x, y = y }
        end
        targets[1] = { x = gx, y = gy }
        path, info = grid:find_nearest(sx, sy, targets, opts)
        opath, oinfo = grid:find_nearest(sx, sy, targets, off)
        local best
        for _, t in ipairs(targets) do
          local c = oracle_cost(world, sx, sy, t.x, t.y)
          if c and (not best or c < best) then best = c end
        end
        if not (world.turn_penalty or world.claim_window) then
          if best then
            assert(path and oracle.near(info.cost, best), where .. ": nearest " .. tostring(info.cost) .. " ~= " .. best)
          else
            assert(path == nil, where)
          end
        end
      elseif kind == 2 then -- a job in slices
        local job = grid:search(sx, sy, gx, gy, opts)
        while job:status() == "running" do job:step(rng.int(1, 7)) end
        path, info = job:result()
        opath, oinfo = grid:find(sx, sy, gx, gy, off)
      else -- find_many, on threads when no callback is given
        local r = grid:find_many({ { sx, sy, gx, gy }, { gx, gy, sx, sy } }, opts, { threads = 2 })
        path, info = r[1].path, r[1].info
        opath, oinfo = grid:find(sx, sy, gx, gy, off)
        local back = grid:find(gx, gy, sx, sy, off)
        assert.are.equal(back == nil, r[2].path == nil, where .. " (back)")
      end
      assert.are.equal(oinfo.status, info.status, where)
      assert.are.equal(opath == nil, path == nil, where)
      if path then
        assert(oracle.near(info.cost, oinfo.cost), where .. ": " .. info.cost .. " ~= " .. oinfo.cost)
        assert(oracle.near(oracle.path_cost(world, path), info.cost), where .. ": the path walks for another cost")
        checked = checked + 1
        if info.expansions < oinfo.expansions then fewer = fewer + 1 end
      end
      if kind ~= 1 then
        local want = oracle_cost(world, sx, sy, gx, gy)
        if want then assert(path and oracle.near(info.cost, want), where .. ": oracle " .. want) end
        if not (world.turn_penalty or world.claim_window) and not want then assert(path == nil, where) end
      end
    end
    if os.getenv("DE_STATS") then print("checked", checked, "fewer", fewer) end
    assert.is_true(checked > scale(120), "only " .. checked .. " paths")
    assert.is_true(fewer > scale(20), "dead ends saved expansions in only " .. fewer .. " queries")
  end)

  it("interests keep their areas: the best score is the oracle's", function()
    local rng = oracle.rng(SEED + 2)
    local collected = 0
    for n = 1, scale(80) do
      local world = world_with_dead_ends(rng, { layers = rng.next() < 0.3, noise = rng.next() < 0.3,
        hex = rng.next() < 0.2 })
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      local sx, sy = open_cell(rng, world)
      local gx, gy = open_cell(rng, world)
      local interests = {}
      for i = 1, rng.int(1, 3) do
        local x, y = open_cell(rng, world)
        interests[i] = { x = x, y = y, value = rng.next() * 12 }
      end
      opts.interests = interests
      local want = oracle.interest_score(world, sx, sy, { { x = gx, y = gy } }, interests)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      local where = ("world %d %d,%d -> %d,%d"):format(n, sx, sy, gx, gy)
      if want then
        assert(path and oracle.near(info.score, want), where .. ": score " .. tostring(info.score) .. " ~= " .. want)
        if info.interest then collected = collected + 1 end
      else
        assert(path == nil, where)
      end
    end
    assert.is_true(collected > scale(10), "only " .. collected .. " paths collected an interest")
  end)

  it("a start or goal deep inside a dead end still finds it; other rooms are skipped", function()
    local world = oracle.world_from_rows({
      "###########",
      "#...#...#.#",
      "#...#...#.#",
      "##.###.##.#",
      "#.........#",
      "#.........#",
      "##.###.####",
      "#...#...#.#",
      "#...#...#.#",
      "###########",
    }, "no_corner_cut")
    local grid = oracle.grid(astar, world)
    assert.is_truthy(grid:dead_end(2, 2))
    assert.is_falsy(grid:dead_end(5, 5))
    for _, q in ipairs({ { 2, 2, 6, 9 }, { 6, 9, 2, 2 }, { 10, 2, 2, 8 }, { 2, 5, 10, 5 }, { 2, 2, 3, 3 } }) do
      local path, info = grid:find(q[1], q[2], q[3], q[4], { jump = false })
      local _, off = grid:find(q[1], q[2], q[3], q[4], { jump = false, dead_ends = false })
      assert(path, table.concat(q, ","))
      assert(oracle.near(info.cost, oracle.cost(world, q[1], q[2], q[3], q[4])))
      assert.is_true(info.expansions <= off.expansions)
    end
    -- along the corridor the rooms off it are never entered; without, the search looks in
    local _, info = grid:find(2, 6, 10, 5, { jump = false, heuristic = "zero" })
    local _, off = grid:find(2, 6, 10, 5, { jump = false, heuristic = "zero", dead_ends = false })
    assert.is_true(info.expansions <= 18, info.expansions .. " expansions") -- the corridor's cells
    assert.is_true(off.expansions > info.expansions)
  end)

  it("one_walkable: the way past a gateway's corner through an alcove stays open", function()
    -- (3, 1) hangs off (3, 2) by straight steps, but one_walkable steps diagonally from (2, 2)
    -- to (3, 1) and on to (4, 2) past the dear gateway's corner: no dead end under this mode.
    local world = oracle.world_from_rows({ "##.##", "..9..", ".999." }, "one_walkable")
    local grid = oracle.grid(astar, world)
    local want = oracle.cost(world, 2, 2, 4, 2)
    assert(want < 3)
    for _, mode in ipairs({ "one_walkable", "always" }) do
      local _, info = grid:find(2, 2, 4, 2, { diagonal = mode })
      assert(oracle.near(info.cost, want), mode .. ": " .. info.cost)
    end
    world.diagonal = "no_corner_cut" -- there the alcove is a dead end, and the cost still right
    local path, info = grid:find(2, 2, 4, 2, { diagonal = "no_corner_cut" })
    assert(path and oracle.near(info.cost, oracle.cost(world, 2, 2, 4, 2)))
    assert.is_falsy(grid:dead_end(3, 1)) -- the grid's own mode: one_walkable
  end)

  it("terrain edits rebuild the areas, and queries follow them", function()
    local rng = oracle.rng(SEED + 3)
    for n = 1, scale(40) do
      local world = world_with_dead_ends(rng, { hex = rng.next() < 0.2 })
      local grid = oracle.grid(astar, world)
      dead.check_areas(grid, world)
      for _ = 1, 6 do
        local x, y = rng.int(1, world.w), rng.int(1, world.h)
        local r = rng.next()
        local c = r < 0.4 and false or r < 0.8 and 1 or 0.5 + rng.next() * 3
        world.cost[y][x] = c
        grid:set_cost(x, y, c)
        local sx, sy = open_cell(rng, world)
        local gx, gy = open_cell(rng, world)
        local want = oracle.cost(world, sx, sy, gx, gy)
        local path, info = grid:find(sx, sy, gx, gy, { jump = false })
        if want then
          assert(path and oracle.near(info.cost, want), ("world %d after edits"):format(n))
        else
          assert.is_nil(path)
        end
        dead.check_areas(grid, world)
      end
      -- a bulk write (fill) marks them stale as well
      grid:fill(1)
      for y = 1, world.h do for x = 1, world.w do world.cost[y][x] = 1 end end
      assert.is_falsy(grid:dead_end(1, 1))
      dead.check_areas(grid, world)
    end
  end)

  it("checks its arguments", function()
    local g = astar.grid(4, 4)
    local ok, err = pcall(g.find, g, 1, 1, 4, 4, { dead_ends = 1 })
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find("option 'dead_ends' must be a boolean, got number", 1, true))
    ok, err = pcall(g.distance_field, g, { { 1, 1 } }, { dead_ends = false })
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find("option 'dead_ends' does not apply to distance_field", 1, true))
    assert.has_error(function() g:dead_end(0, 1) end)
    assert.are.equal(false, astar.grid(4, 4):dead_end(2, 2))
    -- (on g, the areas are found after the writes: blocking cells never makes new areas in a
    -- table already built, spec/49)
    g:set_blocked(2, 1, true)
    g:set_blocked(2, 2, true)
    g:set_blocked(2, 3, true)
    local area, gx, gy = g:dead_end(1, 3) -- the column x = 1 hangs off (1, 4), cell by cell
    assert.is_truthy(area)
    assert.are.same({ 1, 4 }, { gx, gy })
  end)
end)
