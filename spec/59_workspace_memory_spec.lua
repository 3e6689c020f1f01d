-- A grid's workspaces (issue 27): the pool keeps at most the most that were busy at once
-- lately (at least 2, at least grid:prepare's `workspaces`) and frees the rest when one is
-- given back; a closed or finished job gives its workspace back at once; a callback that
-- closes jobs mid-query frees none in use. Counted by astar.core.workspaces (total, busy).
-- Answers stay exact, against the oracle, across the stamps' clears (every 1,024 queries of
-- a workspace made of the system's pages, Linux) and their 16-bit wrap (65,536 queries).
local astar = require("astar")
local core = require("astar.core")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local scale = require("spec.support.scale")

local function close(object) getmetatable(object).__gc(object) end

local function open_grid(w, h)
  local g = astar.grid(w, h)
  for y = 2, h - 1, 4 do
    for x = 1, w - 2 do g:set_cost(x, y, false) end -- walls with a gap at the east end
  end
  return g
end

describe("a grid's workspace pool", function()
  it("frees the idle workspaces of a burst once fewer are busy", function()
    local g = open_grid(40, 40)
    local jobs = {}
    for i = 1, 30 do
      jobs[i] = g:search(1, 1, 40, 40)
      assert.equal("running", (jobs[i]:step(1)))
    end
    local total, busy = core.workspaces(g)
    assert.equal(30, total)
    assert.equal(30, busy)
    for i = 1, 30 do close(jobs[i]) end
    total, busy = core.workspaces(g)
    assert.equal(0, busy)
    assert.equal(30, total) -- the burst is recent: its workspaces are kept for now
    for _ = 1, 130 do g:find(1, 1, 3, 1) end -- two windows of 64 with one busy at a time
    total, busy = core.workspaces(g)
    assert.equal(2, total) -- the margin
    assert.equal(0, busy)
  end)

  it("keeps grid:prepare's workspaces", function()
    local g = open_grid(20, 20)
    g:prepare({ workspaces = 5 })
    assert.equal(5, (core.workspaces(g)))
    for _ = 1, 200 do g:find(1, 1, 3, 1) end
    assert.equal(5, (core.workspaces(g)))
    g:prepare({ workspaces = 0 }) -- the last call says how many are kept
    g:find(1, 1, 3, 1)
    assert.equal(2, (core.workspaces(g)))
  end)

  it("takes a workspace back from a closed or finished job at once", function()
    local g = open_grid(40, 40)
    local job = g:search(1, 1, 40, 40)
    assert.equal(0, select(2, core.workspaces(g)))
    job:step(1)
    assert.equal(1, select(2, core.workspaces(g)))
    close(job)
    assert.equal(0, select(2, core.workspaces(g)))
    local done = g:search(1, 1, 40, 40)
    done:step(1)
    assert.equal(1, select(2, core.workspaces(g)))
    assert.equal("found", (done:step()))
    assert.equal(0, select(2, core.workspaces(g)))
  end)

  it("frees no workspace a query holds when a callback closes jobs and nests finds", function()
    local rng = oracle.rng(59)
    local world = worlds.random_world(rng, { w = 12, h = 12, node_cost = true })
    local g = oracle.grid(astar, world)
    local jobs = {}
    for i = 1, 20 do
      jobs[i] = g:search(1, 1, 12, 12)
      jobs[i]:step(1)
    end
    for i = 1, 20 do close(jobs[i]) end -- 20 idle now, a peak of 20
    local calls = 0
    local node_cost = world.node_cost
    local opts = {
      node_cost = function(x, y)
        calls = calls + 1
        if calls % 3 == 0 then g:find(1, 1, 2, 2) end -- nested: takes and gives back another
        if calls % 7 == 0 then
          local j = g:search(1, 1, 12, 12)
          j:step(1)
          close(j)
        end
        return node_cost(x, y)
      end,
    }
    for _ = 1, 150 do g:find(1, 1, 2, 2) end -- the peak of 20 leaves the windows
    for sx = 1, 12, 5 do
      for gx = 1, 12, 4 do
        local want = oracle.cost(world, sx, 1, gx, 12)
        local path, info = g:find(sx, 1, gx, 12, opts)
        if want then
          assert.is_truthy(path)
          assert.is_true(oracle.near(info.cost, want))
        else
          assert.is_nil(path)
        end
      end
    end
    local total, busy = core.workspaces(g)
    assert.equal(0, busy)
    assert.is_true(total <= 3, "pool of " .. total)
  end)

  it("refuses what is not a grid or graph, and a closed one", function()
    assert.has_error(function() core.workspaces({}) end)
    local g = astar.grid(4, 4)
    close(g)
    assert.has_error(function() core.workspaces(g) end)
    assert.equal(0, (core.workspaces(astar.graph())))
  end)
end)

describe("answers across the stamps' clears", function()
  -- Queries on one workspace, each against the oracle's distances from its start (computed
  -- once per start): plain ones, claims (their per-cell stamps) and targets (theirs). Queries
  -- `period` apart (the stamps' cycle: 1,023 between clears, 65,535 between wraps) are of the
  -- same kind, but their targets and the claims differ: a stamp left from the last cycle
  -- would count a cell that is no target or no longer claimed.
  -- The world sits in the corner of a grid of side `side` (walled off from the rest), so that
  -- the workspace is as big as the grid while the oracle scans the world only.
  local function run(world, queries, starts, side, period)
    local g = astar.grid(side, side, { diagonal = world.diagonal })
    for y = 1, side do
      for x = 1, side do
        local c = false
        if x <= world.w and y <= world.h then c = world.cost[y][x] end
        g:set_cost(x, y, c)
      end
    end
    -- The unit "me" claims one row and "other" another, then the other way round: a query
    -- leaves out its unit's own claims through per-cell stamps (claimed, claim_gen), which
    -- would otherwise still say that me's old row counts none.
    local claims = astar.claims(g)
    local rows = { {}, {} }
    for x = 1, world.w do
      rows[1][x] = { x = x, y = 2 }
      rows[2][x] = { x = x, y = world.h - 1 }
    end
    local configs = { { me = rows[1], other = rows[2] }, { me = rows[2], other = rows[1] } }
    local dist, cdist = {}, { {}, {} }
    for i, s in ipairs(starts) do
      dist[i] = oracle.distances(world, s[1], s[2])
      for k = 1, 2 do
        local cworld = setmetatable({ claims = { { unit = "me", path = configs[k].me, pos = 1 },
          { unit = "other", path = configs[k].other, pos = 1 } }, unit = "me", claim_penalty = 5 },
          { __index = world })
        cdist[k][i] = oracle.distances(cworld, s[1], s[2])
      end
    end
    -- Goals the start reaches, itself left out: every query then searches (one stamp each),
    -- none is answered before (a blocked or unreachable goal), so that queries `period`
    -- apart share a stamp.
    local goals = {}
    for i, s in ipairs(starts) do
      goals[i] = {}
      for y = 1, world.h do
        for x = 1, world.w do
          if dist[i][y][x] < math.huge and (x ~= s[1] or y ~= s[2]) then goals[i][#goals[i] + 1] = { x, y } end
        end
      end
      assert(#goals[i] > 10, "a start that reaches too little")
    end
    local wrong, claimed = 0, nil
    for q = 1, queries do
      local cycle = math.floor(q / period)
      local i = math.floor(q / 3) % #starts + 1 -- every start for every kind
      local s = starts[i]
      local goal = goals[i][(q * 7 + cycle * 3) % #goals[i] + 1]
      local gx, gy = goal[1], goal[2]
      local kind = q % 3
      local path, info, want
      if kind == 0 then
        path, info = g:find(s[1], s[2], gx, gy)
        want = dist[i][gy][gx]
      elseif kind == 1 then
        local k = cycle % 2 + 1
        if claimed ~= k then
          claims:claim("me", configs[k].me)
          claims:claim("other", configs[k].other)
          claimed = k
        end
        path, info = g:find(s[1], s[2], gx, gy, { claims = claims, unit = "me", claim_penalty = 5 })
        want = cdist[k][i][gy][gx]
      else
        path, info = g:find_nearest(s[1], s[2], { { x = gx, y = gy } })
        want = dist[i][gy][gx]
      end
      if not path or not oracle.near(info.cost, want) then
        wrong = wrong + 1
      end
    end
    return wrong
  end

  it("on a workspace of pages, cleared every 1,024 queries", function()
    local rng = oracle.rng(2027)
    local world = worlds.random_world(rng, { w = 11, h = 9 })
    world.diagonal = "always"
    -- 66x66 records: 68 KiB, past ASTAR_PAGES_MIN
    assert.equal(0, run(world, math.max(1100, scale(2100)), { { 1, 1 }, { 11, 9 }, { 6, 5 } }, 64, 1023))
  end)

  it("on a small workspace, past the 16-bit wrap", function()
    if scale(4) < 4 then return end -- 65,536 queries: the C test covers it under valgrind
    local rng = oracle.rng(2027)
    local world = worlds.random_world(rng, { w = 11, h = 9 })
    world.diagonal = "always"
    assert.equal(0, run(world, 70000, { { 1, 1 }, { 11, 9 }, { 6, 5 } }, 11, 65535)) -- 13x11 records
  end)
end)
