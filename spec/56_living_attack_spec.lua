-- Attacking issue 26 ("A living world"): random set_cost, set_blocked, fill and load
-- interleaved with every kind of query, job slices, scheduler ticks and builds, each answer
-- compared with the oracle (spec/support/dijkstra.lua) on the terrain it claims to be for (a
-- job's: the terrain at its end); check_path's since against a re-walk written here.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "5626")

-- The legend load writes with: every cost a change below may give a cell.
local PALETTE = { ["."] = 1, ["#"] = false, a = 0.5, b = 2, c = 3.25, d = 1.75, e = 4 }
local CHARS = { ".", "#", "a", "b", "c", "d", "e" }

local function palette_cost(rng)
  return PALETTE[CHARS[rng.int(1, #CHARS)]]
end

-- The world's terrain with every cost rounded to the palette (load writes only those).
local function to_palette(world)
  for y = 1, world.h do
    for x = 1, world.w do
      local c, best, bd = world.cost[y][x], false, math.huge
      if c then
        for _, ch in ipairs(CHARS) do
          local p = PALETTE[ch]
          if p and math.abs(p - c) < bd then best, bd = p, math.abs(p - c) end
        end
      end
      world.cost[y][x] = best
    end
  end
end

local function rows_of(world)
  local rows = {}
  for y = 1, world.h do
    local r = {}
    for x = 1, world.w do
      for _, ch in ipairs(CHARS) do
        if PALETTE[ch] == world.cost[y][x] then r[x] = ch break end
      end
    end
    rows[y] = table.concat(r)
  end
  return rows
end

-- One random terrain change, written to the grid and the oracle's world.
local function change(rng, grid, world)
  local r = rng.next()
  if r < 0.55 then
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    local c = palette_cost(rng)
    grid:set_cost(x, y, c)
    world.cost[y][x] = c
  elseif r < 0.8 then
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    local b = rng.next() < 0.5
    grid:set_blocked(x, y, b)
    if b then world.cost[y][x] = false elseif not world.cost[y][x] then world.cost[y][x] = 1 end
  elseif r < 0.85 then
    local c = rng.next() < 0.8 and 1 or 2
    grid:fill(c)
    for y = 1, world.h do for x = 1, world.w do world.cost[y][x] = c end end
  else
    -- load: a few cells changed (one by one) or, now and then, every cell drawn again
    local all = rng.next() < 0.3
    for _ = 1, all and world.w * world.h or rng.int(1, 6) do
      local x, y = rng.int(1, world.w), rng.int(1, world.h)
      world.cost[y][x] = palette_cost(rng)
    end
    grid:load(rows_of(world), PALETTE)
  end
end

local function open_cell(rng, world)
  for _ = 1, 20 do
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    if world.cost[y][x] then return x, y end
  end
  return rng.int(1, world.w), rng.int(1, world.h)
end

local function approximate(world) return world.turn_penalty or world.claim_window end

-- An answer (path, info) against the oracle on the world's terrain now.
local function check(world, sx, sy, gx, gy, path, info, what)
  local want
  if approximate(world) then want = oracle.exact_cost(world, sx, sy, gx, gy) else want = oracle.cost(world, sx, sy, gx, gy) end
  if want == nil then
    assert.are.equal("unreachable", info.status, what)
    return
  end
  assert.are.equal("found", info.status, what)
  local walked = oracle.path_cost(world, path)
  assert(oracle.near(walked, info.cost), what .. (": walked %.10g, info.cost %.10g"):format(walked, info.cost))
  if approximate(world) then
    assert(info.cost >= want - 1e-9 * want, what)
  else
    assert(oracle.near(info.cost, want), what .. (": cost %.10g, optimum %.10g"):format(info.cost, want))
  end
end

local function random_setup(rng, small)
  local features = worlds.random_features(rng)
  if small then features.w, features.h = rng.int(2, 9), rng.int(2, 9) end
  features.turns = rng.next() < 0.05
  local world = worlds.random_world(rng, features)
  to_palette(world)
  local grid = oracle.grid(astar, world)
  return world, grid
end

describe("a living world under attack", function()
  it("finds, find_nearest and jobs interleaved with random writes answer what the oracle does", function()
    local rng = oracle.rng(SEED)
    local jobs_done = 0
    for n = 1, scale(250) do
      local world, grid = random_setup(rng, true)
      if not world.known and rng.next() < 0.3 then grid:landmarks(rng.int(1, 3)) end
      if rng.next() < 0.3 then grid:prepare({ workspaces = rng.int(0, 2) }) end
      local opts = worlds.query_opts(astar, grid, world)
      local live = {} -- jobs in flight: { job, sx, sy, gx, gy }
      for step = 1, 14 do
        local what = ("world %d step %d"):format(n, step)
        local r = rng.next()
        if r < 0.35 then
          change(rng, grid, world)
        elseif r < 0.42 then
          -- what a game does between frames, with jobs in flight: prepare, landmarks, hierarchy
          local t = rng.next()
          if t < 0.5 then
            grid:prepare({ workspaces = rng.int(0, 3) })
          elseif t < 0.8 and not world.known then
            grid:landmarks(rng.int(0, 3))
          elseif not world.topology and world.diagonal ~= "always" then
            grid:hierarchy(rng.int(2, 4))
          end
        elseif r < 0.55 then
          local sx, sy = open_cell(rng, world)
          local gx, gy = open_cell(rng, world)
          local o = {}
          for k, v in pairs(opts) do o[k] = v end
          o.dead_ends = rng.next() < 0.7
          if rng.next() < 0.3 then o.jump = false end
          o.path = rng.next() < 0.5 and "flat" or nil
          local path, info = grid:find(sx, sy, gx, gy, o)
          if o.path == "flat" and path then
            local pts = {}
            for i = 1, #path / 2 do pts[i] = { x = path[2 * i - 1], y = path[2 * i] } end
            path = pts
          end
          check(world, sx, sy, gx, gy, path, info, what .. " (find)")
          assert.are.equal(grid:version(), info.version)
        elseif r < 0.65 and not approximate(world) then
          local sx, sy = open_cell(rng, world)
          local targets, best = {}, nil
          for i = 1, rng.int(1, 3) do
            local tx, ty = open_cell(rng, world)
            targets[i] = { x = tx, y = ty }
            local c = oracle.cost(world, sx, sy, tx, ty)
            if c and (not best or c < best) then best = c end
          end
          local path, info = grid:find_nearest(sx, sy, targets, opts)
          if best then
            assert(path and oracle.near(info.cost, best), what .. " (nearest)")
            assert(oracle.near(oracle.path_cost(world, path), info.cost), what .. " (nearest path)")
          else
            assert.is_nil(path, what .. " (nearest)")
          end
        elseif r < 0.75 then
          local sx, sy = open_cell(rng, world)
          local gx, gy = open_cell(rng, world)
          local o = {}
          for k, v in pairs(opts) do o[k] = v end
          o.dead_ends = rng.next() < 0.7
          live[#live + 1] = { grid:search(sx, sy, gx, gy, o), sx, sy, gx, gy }
        else
          -- a slice of each job in flight; one that ends is checked on the terrain now
          for i, j in ipairs(live) do
            if j[1]:status() == "running" then
              j[1]:step(rng.int(1, 4))
              if j[1]:status() ~= "running" then
                local path, info = j[1]:result()
                check(world, j[2], j[3], j[4], j[5], path, info, ("world %d job %d (%s)"):format(n, i, what))
                assert.are.equal(grid:version(), info.version)
                jobs_done = jobs_done + 1
              end
            end
          end
        end
      end
      -- every job still in flight to its end, on the terrain as it is now
      for i, j in ipairs(live) do
        if j[1]:status() == "running" then
          j[1]:step()
          local path, info = j[1]:result()
          check(world, j[2], j[3], j[4], j[5], path, info, ("world %d job %d"):format(n, i))
          jobs_done = jobs_done + 1
        end
      end
    end
    assert(jobs_done > scale(100), jobs_done .. " jobs")
  end)

  it("sliced builds (landmarks, hierarchy, prepare) with writes between their steps leave finds exact", function()
    local rng = oracle.rng(SEED + 1)
    for n = 1, scale(150) do
      local world, grid = random_setup(rng, true)
      local kind = rng.int(1, 3)
      if world.known then kind = 3 end
      local b
      if kind == 1 then
        b = grid:build_landmarks(rng.int(1, 4))
      elseif kind == 2 and not world.topology and world.diagonal ~= "always" then
        b = grid:build_hierarchy(rng.int(2, 4))
      else
        b = grid:prepare({ build = true, workspaces = rng.int(0, 2) })
      end
      local opts = worlds.query_opts(astar, grid, world)
      local guard = 0
      while not b:done() do
        b:step(rng.int(1, 20))
        -- Writes in the first steps only: a landmark build starts over at every decrease, and
        -- a hierarchy build needs a cluster's work between writes, by design (docs/contract.md).
        if rng.next() < 0.6 and guard < 10 then change(rng, grid, world) end
        guard = guard + 1
        assert(guard < 10000, "world " .. n .. ": the build never finishes " .. tostring(b) .. " restarts " .. b:restarts())
        if rng.next() < 0.3 then
          local sx, sy = open_cell(rng, world)
          local gx, gy = open_cell(rng, world)
          local path, info = grid:find(sx, sy, gx, gy, opts)
          check(world, sx, sy, gx, gy, path, info, ("world %d (during the build)"):format(n))
        end
      end
      for k = 1, 4 do
        if rng.next() < 0.5 then change(rng, grid, world) end
        local sx, sy = open_cell(rng, world)
        local gx, gy = open_cell(rng, world)
        local path, info = grid:find(sx, sy, gx, gy, opts)
        check(world, sx, sy, gx, gy, path, info, ("world %d after the build, find %d"):format(n, k))
        if kind == 2 and grid:hierarchy() and not world.known and not world.topology then
          -- two-tier: approximate cost, exact reachability, a legal path
          local hp, hinfo = grid:find(sx, sy, gx, gy, { hierarchical = true })
          local want = oracle.cost({ w = world.w, h = world.h, cost = world.cost, diagonal = world.diagonal },
            sx, sy, gx, gy)
          if want then
            assert(hp, ("world %d: hierarchical finds nothing"):format(n))
            assert(hinfo.cost >= want - 1e-9 * want)
          else
            assert.is_nil(hp)
          end
        end
      end
    end
  end)

  it("scheduler ticks interleaved with writes: every answer exact for the terrain it was given at", function()
    local rng = oracle.rng(SEED + 2)
    for n = 1, scale(60) do
      local world, grid = random_setup(rng, true)
      local opts = worlds.query_opts(astar, grid, world)
      local sched = astar.scheduler({ budget = rng.int(1, 30), concurrent = rng.int(1, 4) })
      local answers = {}
      for u = 1, rng.int(1, 8) do
        local sx, sy = open_cell(rng, world)
        local gx, gy = open_cell(rng, world)
        sched:request(grid, sx, sy, gx, gy, opts, function(path, info)
          -- the terrain now is the terrain of the answer
          check(world, sx, sy, gx, gy, path, info, ("world %d unit %d"):format(n, u))
          answers[#answers + 1] = u
        end)
      end
      local ticks = 0
      while sched:pending() > 0 do
        sched:tick()
        -- Writes in the first ticks only: a job the general loop runs (fog, noise, hexes,
        -- callbacks) starts over at a change under its reach, which a tiny budget may never outrun.
        if rng.next() < 0.4 and ticks < 200 then change(rng, grid, world) end
        ticks = ticks + 1
        assert(ticks < 20000, "world " .. n .. ": the scheduler never finishes")
      end
      assert(#answers > 0)
    end
  end)

  it("grid:prepare leaves the dead-end view of a job in flight alone", function()
    -- A room with one door, the goal inside: the job opens the room in its view of the dead
    -- ends; a prepare between its slices copied the grid's view over the job's (its own
    -- workspace), shutting the room again: "unreachable".
    local world = oracle.world_from_rows({
      "..........",
      "..........",
      "....####..",
      "....#..#..",
      "....#.....",
      "....####..",
      "..........",
    }, "no_corner_cut")
    for _, ends in ipairs({ { 1, 1, 6, 4 }, { 6, 4, 1, 1 }, { 1, 7, 6, 5 } }) do
      for steps = 1, 6 do
        local grid = oracle.grid(astar, world)
        grid:prepare()
        local job = grid:search(ends[1], ends[2], ends[3], ends[4])
        job:step(steps)
        grid:prepare({ workspaces = 2 })
        job:step()
        local path, info = job:result()
        check(world, ends[1], ends[2], ends[3], ends[4], path, info, "after " .. steps .. " expansions")
      end
    end
  end)

  it("check_path since: paths of find, find_nearest and repair, any from, any version, against a re-walk", function()
    local rng = oracle.rng(SEED + 3)
    local stale, checked = 0, 0
    -- The first index after from whose step the world's terrain no longer allows, or nil.
    local function first_bad(world, path, from)
      for i = from + 1, #path do
        if not oracle.step(world, path[i - 1].x, path[i - 1].y, path[i].x, path[i].y) then return i end
      end
    end
    local function flat_of(path)
      local f = {}
      for i, p in ipairs(path) do f[2 * i - 1], f[2 * i] = p.x, p.y end
      return f
    end
    for n = 1, scale(200) do
      local world = worlds.random_world(rng, { hex = rng.next() < 0.2, w = rng.int(3, 14), h = rng.int(3, 14) })
      to_palette(world)
      local grid = oracle.grid(astar, world)
      local paths = {}
      local function keep(p, info)
        if p and #p > 1 then paths[#paths + 1] = { p = p, v = info.version } end
      end
      for _ = 1, 4 do
        local sx, sy = open_cell(rng, world)
        local gx, gy = open_cell(rng, world)
        keep(grid:find(sx, sy, gx, gy))
        local tx, ty = open_cell(rng, world)
        keep(grid:find_nearest(sx, sy, { { x = gx, y = gy }, { x = tx, y = ty } }))
      end
      for round = 1, 6 do
        for _ = 1, rng.int(0, 3) do
          if rng.next() < 0.9 then -- mostly single writes: the sparse check
            local x, y = rng.int(1, world.w), rng.int(1, world.h)
            local c = rng.next() < 0.5 and false or palette_cost(rng)
            grid:set_cost(x, y, c)
            world.cost[y][x] = c
          else
            change(rng, grid, world)
          end
        end
        for k, e in ipairs(paths) do
          local from = rng.int(1, #e.p)
          local want = first_bad(world, e.p, from)
          local what = ("world %d round %d path %d from %d"):format(n, round, k, from)
          assert.are.equal(want, grid:check_path(e.p, from, { since = e.v }), what)
          assert.are.equal(want, grid:check_path(flat_of(e.p), from, { since = e.v }), what .. " (flat)")
          -- a version in the future, or one wrapped around: the full walk
          local v = grid:version()
          assert.are.equal(want, grid:check_path(e.p, from, { since = (v + rng.int(1, 5)) % 4294967296 }), what)
          assert.are.equal(want, grid:check_path(e.p, from, { since = 4294967295 }), what)
          checked = checked + 1
          if want then stale = stale + 1 end
        end
        -- a stale path repaired: the repair's path is one more to check from its version on
        if #paths > 0 and round % 2 == 0 then
          local e = paths[rng.int(1, #paths)]
          local i = rng.int(1, #e.p)
          local p, info = grid:repair(e.p, i)
          keep(p, info)
        end
      end
    end
    assert(checked > scale(1000) and stale > scale(100), checked .. " checked, " .. stale .. " stale")
  end)

  it("a hostile mod's metamethods around the new API cannot crash, hang or leak", function()
    local function close(object) getmetatable(object).__gc(object) end
    local function level()
      local g = astar.grid(12, 9)
      g:load({
        "............", "............", "....####....", "....#..#....", "....#.......",
        "....####....", "............", "............", "............" })
      return g
    end
    local tricks = {
      function(g) close(g) end,
      function(_, path) for i = 1, #path do path[i] = nil end end,
      function(_, path) for i = 1, 2000 do path[i] = "x" end end,
      function(_, path) for i = #path + 1, #path + 4000 do path[i] = 1 end end,
      function(g) g:set_cost(5, 5, false); g:fill(2) end,
      function(g) g:load({ "############", "............", "....####....", "....#..#....", "....#.......",
        "....####....", "............", "............", "............" }) end,
      function() collectgarbage() end,
      function() error("mod") end,
    }
    for t, trick in ipairs(tricks) do
      for _, form in ipairs({ "flat", "points" }) do
        for _, call in ipairs({ "check_path", "repair", "claim", "smooth", "debug" }) do
          local g = level()
          local path, info = g:find(1, 1, 12, 9, { path = form })
          local opts = setmetatable({}, { __index = function(_, k)
            if k == "since" or k == "diagonal" or k == "max_expansions" then trick(g, path) end
          end })
          if form == "points" then
            -- a point whose x reads run the trick too
            path[2] = setmetatable({}, { __index = function(_, k)
              trick(g, path)
              return ({ x = 2, y = 2 })[k]
            end })
          end
          pcall(function()
            if call == "check_path" then
              opts.since = nil
              local o = setmetatable({}, { __index = function(_, k)
                if k == "since" then trick(g, path) return info.version end
              end })
              g:check_path(path, 1, o)
            elseif call == "repair" then
              g:repair(path, 1, opts)
            elseif call == "claim" then
              local c = astar.claims(g)
              c:claim("u", path)
            elseif call == "smooth" then
              astar.smooth(g, path)
            else
              astar.debug(g, { path = path })
            end
          end)
          collectgarbage()
          -- the grid, if still open, answers as before
          if pcall(g.version, g) then
            assert.is_number(g:version(), ("trick %d %s %s"):format(t, form, call))
            pcall(g.find, g, 1, 1, 12, 9)
          end
        end
      end
    end
  end)
end)
