-- Issue 25's promises under attack: what a hostile mod and a demanding game programmer found
-- still broken after the issue was closed, each held to an independent oracle
-- (spec/support/dijkstra.lua, graph_oracle.lua) or to the contract's own words. One `it` per
-- defect; docs/contract.md names the promise each checks.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261126")

describe("issue 25 under attack", function()
  -- docs/contract.md, Interests: max_cost "bounds the score: a path whose score exceeds
  -- max_cost is not found", and the answer minimises the score. The search cut a node of the
  -- first copy (nothing collected yet) at g > max_cost, so a path whose score is within
  -- max_cost but whose cost before its pick-up is not was never found: "limit", or a worse
  -- path (a detour worth 100 left for the plain step with max_cost = 5).
  it("max_cost bounds the score, not the cost before the pick-up (grids, jobs, find_many, graphs)", function()
    local grid = astar.grid(20, 1)
    local graph = astar.graph()
    for i = 1, 20 do graph:add_node(i, 0) end
    for i = 1, 19 do graph:add_edge(i, i + 1) end
    for _, mc in ipairs({ 0, 5, 27 }) do
      local opts = { interests = { { x = 15, y = 1, value = 100 } }, max_cost = mc }
      local _, info = grid:find(2, 1, 1, 1, opts)
      assert.are.same({ "found", 27, -73 }, { info.status, info.cost, info.score }, "find, max_cost " .. mc)
      local job = grid:search(2, 1, 1, 1, opts)
      while job:step(3) == "running" do end
      local _, jinfo = job:result()
      assert.are.same({ "found", -73 }, { jinfo.status, jinfo.score }, "search, max_cost " .. mc)
      local r = grid:find_many({ { sx = 2, sy = 1, gx = 1, gy = 1 } }, opts, { threads = 2 })[1]
      assert.are.same({ "found", -73 }, { r.info.status, r.info.score }, "find_many, max_cost " .. mc)
      local _, ginfo = graph:find(2, 1, { interests = { { id = 15, value = 100 } }, max_cost = mc })
      assert.are.same({ "found", 27, -73 }, { ginfo.status, ginfo.cost, ginfo.score }, "graph, max_cost " .. mc)
    end
    -- random worlds: found exactly when the oracle's best score is within max_cost, and then
    -- with that score, to the bit
    local rng = oracle.rng(SEED)
    for round = 1, scale(60) do
      local rows = {}
      for y = 1, 7 do
        local row = {}
        for x = 1, 9 do row[x] = rng.next() < 0.2 and "#" or tostring(rng.int(1, 4)) end
        rows[y] = table.concat(row)
      end
      local world = oracle.world_from_rows(rows, oracle.DIAGONALS[rng.int(1, 4)])
      local g = oracle.grid(astar, world)
      local sx, sy, gx, gy = rng.int(1, 9), rng.int(1, 7), rng.int(1, 9), rng.int(1, 7)
      local interests = {}
      for i = 1, rng.int(1, 3) do
        interests[i] = { x = rng.int(1, 9), y = rng.int(1, 7), value = rng.next() * 40 }
      end
      local best = oracle.interest_score(world, sx, sy, { { x = gx, y = gy } }, interests)
      if best then
        local plain = oracle.cost(world, sx, sy, gx, gy)
        for _, mc in ipairs({ math.max(0, best), best + 1, plain - 1e-3, (best + plain) / 2 }) do
          if mc >= 0 then
            local where = string.format("round %d, max_cost %s", round, mc)
            local _, info = g:find(sx, sy, gx, gy, { interests = interests, max_cost = mc })
            if best <= mc then
              assert.are.equal("found", info.status, where)
              assert(info.score == best, where .. ": score " .. tostring(info.score) .. ", best " .. best)
            else
              assert.are.equal("limit", info.status, where)
            end
          end
        end
      end
    end
  end)

  -- A scheduler takes any positive integer budget (astar.scheduler, tick), but a step refuses
  -- more than 2^53: with a budget of 2^60 every request ended with status "error" ("bad
  -- argument #2 to '?' (n out of range ...)") instead of its answer.
  it("a scheduler budget above 2^53 answers its requests", function()
    local grid = astar.grid(10, 10)
    for _, budget in ipairs({ 2 ^ 53 + 2, 2 ^ 60, math.maxinteger or 2 ^ 63 }) do
      local sched, got = astar.scheduler({ budget = budget }), {}
      sched:request(grid, 1, 1, 10, 10, nil, function(_, info) got[#got + 1] = info end)
      sched:build(grid:build_landmarks(2), function(_, info) got[#got + 1] = info end)
      sched:tick()
      assert.are.same({ "found", "done" }, { got[1] and got[1].status, got[2] and got[2].status }, tostring(budget))
      sched:request(grid, 1, 1, 10, 10, nil, function(_, info) got[#got + 1] = info end)
      sched:tick(budget)
      assert.are.equal("found", got[3] and got[3].status)
    end
  end)

  -- astar.sandbox: a script's library gave it astar.scheduler itself, whose schedulers share
  -- one class table (metatable and __index) with the game's: a script that wrote a method
  -- there ran its function inside the game's ticks, on the game's own requests, outside any
  -- budget, and every other script's schedulers changed too.
  it("a sandboxed script's schedulers have a class of their own", function()
    local sandbox = require("astar.sandbox")
    local function run(text)
      local f = assert(sandbox.load(text, "=mod", sandbox.env()))
      return f()
    end
    run([[local s = require("astar").scheduler(); getmetatable(s).tick = function() return "mod" end]])
    run([[local s = require("astar").scheduler(); s.__index.pending = function() return "mod" end]])
    local grid = astar.grid(5, 5)
    local sched, got = astar.scheduler(), nil
    sched:request(grid, 1, 1, 5, 5, nil, function(_, info) got = info.status end)
    assert.are.same({ 1, 0, "found" }, { select(2, sched:tick()), sched:pending(), got })
    local other = run([[
      local s = require("astar").scheduler()
      local g = require("astar").grid(3, 3)
      local got
      s:request(g, 1, 1, 3, 3, nil, function(_, info) got = info.status end)
      local _, finished = s:tick()
      return { finished, s:pending(), got }
    ]])
    assert.are.same({ 1, 0, "found" }, other)
  end)

  -- docs/contract.md, Safety: astar.smooth and astar.debug read their points once and their
  -- lists as the binding does (up to the raw length, never past the first nil). debug read a
  -- point's x and y up to five times (a point answering differently gave "table index is
  -- NaN" or "attempt to compare string with number" from inside debug.lua), and both read a
  -- list's length through __len (NaN, "3", 2.5: a one-point "smoothing" of a whole path, or
  -- "attempt to compare nil with number" from inside smooth.lua).
  it("astar.smooth and astar.debug read each point once and a list's raw length", function()
    local grid = astar.grid(10, 10)
    local path = grid:find(1, 1, 10, 10)
    local smoothed = astar.smooth(grid, path)
    local picture = astar.debug.ascii(grid, { path = path })
    for _, len in ipairs({ 0 / 0, "3", 2.5, -5, 1e300 }) do
      local t = setmetatable({}, { __len = function() return len end })
      for i, p in ipairs(path) do t[i] = p end
      assert.are.same(smoothed, astar.smooth(grid, t), tostring(len))
      assert.are.equal(picture, astar.debug.ascii(grid, { path = t }), tostring(len))
    end
    -- a point whose reads answer a cell, then (from the ninth read on) something else
    local function fickle(bad)
      local reads = 0
      return setmetatable({}, { __index = function(_, k)
        reads = reads + 1
        if reads > 8 then return bad end
        return k == "x" and 3 or 4
      end })
    end
    for _, bad in ipairs({ 0 / 0, "x" }) do
      local _, marked = pcall(astar.debug.ascii, grid, { path = { { x = 1, y = 1 }, fickle(bad) } })
      assert.are.equal(astar.debug.ascii(grid, { path = { { x = 1, y = 1 }, { x = 3, y = 4 } } }), marked)
      local _, seen = pcall(astar.debug.png, grid, { explored = { fickle(bad) } })
      assert.are.equal(astar.debug.png(grid, { explored = { { x = 3, y = 4 } } }), seen)
    end
  end)

  -- docs/contract.md, Safety: "The metatables of astar objects are read-only: getmetatable(obj)
  -- gives a stand-in that reads through and refuses writes". The stand-in was a table, one per
  -- class: rawset wrote it. A sandboxed script set its __gc, and the game closing its world
  -- grid the documented way (getmetatable(grid).__gc(grid)) handed the script the grid, open,
  -- with every writer: the views were for nothing.
  it("the stand-in metatable of astar objects takes no raw writes", function()
    local sandbox = require("astar.sandbox")
    local env = sandbox.env()
    local mod = assert(sandbox.load([[
      local astar = require("astar")
      local stand_in = getmetatable(astar.grid(1, 1))
      return pcall(rawset, stand_in, "__gc", function(obj) stolen = obj end)
    ]], "=mod", env))
    assert.is_false((mod()))
    local classes = { astar.grid(2, 2), astar.influence(2, 2), astar.mask(2, 2), astar.graph() }
    classes[5] = astar.claims(classes[1])
    for _, o in ipairs(classes) do
      local mt = getmetatable(o)
      assert.has_error(function() rawset(mt, "__index", function() return "hacked" end) end)
      assert.has_error(function() rawset(mt, "__gc", function() end) end)
      assert.are.equal(false, getmetatable(mt))
      assert.is_function(mt.__gc)
      assert.is_function(mt.__tostring)
    end
    local world_grid = astar.grid(8, 8)
    getmetatable(world_grid).__gc(world_grid)
    assert.is_nil(env.stolen)
    assert.matches("%(freed%)", tostring(world_grid))
  end)

  -- docs/contract.md, Errors: a call the work limit stops raises "work limit reached" "with the
  -- caller's position where the function is called directly". astar.debug.explore and a
  -- sandbox's views and library run astar under pcall, and passed the error on bare. (Not
  -- from a tail call: Lua itself then has no caller's frame to name.)
  it("the work limit's error names the caller's line through explore and the sandbox", function()
    local sandbox = require("astar.sandbox")
    local grid = astar.grid(20, 20)
    local env = sandbox.env({ world = { grid = sandbox.view(grid) } })
    local calls = assert(sandbox.load([[
      local a = require("astar")
      return {
        function() local r = world.grid:find(1, 1, 20, 20, { jump = false }) return r end,
        function() local r = a.grid(20, 20) return r end,
        function() local r = a.debug.explore(world.grid, 1, 1, 20, 20) return r end,
      }
    ]], "=mod", env))()
    astar.set_work_limit(0)
    local errs = {}
    for i = 1, 3 do errs[i] = select(2, pcall(calls[i])) end
    local line = debug.getinfo(1, "l").currentline + 1
    local _, direct = pcall(function() local r = astar.debug.explore(grid, 1, 1, 20, 20) return r end)
    astar.set_work_limit(nil)
    for i = 1, 3 do assert.are.equal("mod:" .. (i + 2) .. ": work limit reached", errs[i]) end
    assert.matches("47_attack_spec.lua:" .. line .. ": work limit reached$", direct)
  end)
end)
