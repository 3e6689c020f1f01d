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

  -- A prepared grid's workspaces keep their pages (the next search would fault them in again):
  -- only their stamps make the cancelled search's records stale.
  for _, prepared in ipairs({ false, true }) do
  it((prepared and "keeps the pages of a prepared workspace" or "gives back the pages") ..
     " of a job closed mid-search, its workspace's answers still exact", function()
    local rng = oracle.rng(127)
    local world = worlds.random_world(rng, { w = 12, h = 10 })
    local g = astar.grid(64, 64, { diagonal = world.diagonal }) -- 68 KiB of records: pages
    g:fill(false)
    for y = 1, world.h do
      for x = 1, world.w do g:set_cost(x, y, world.cost[y][x]) end
    end
    if prepared then g:prepare({ workspaces = 1 }) end
    local dist = oracle.distances(world, 1, 1)
    for round = 1, 6 do
      local job = g:search(1, 1, 12, 10)
      job:step(round) -- its workspace is the grid's first, as the finds' below
      close(job)
      assert.equal(0, select(2, core.workspaces(g)))
      for gy = 1, world.h, 3 do
        for gx = 1, world.w, 2 do
          local path, info = g:find(1, 1, gx, gy)
          local want = world.cost[gy][gx] and dist[gy][gx] or math.huge
          if want == math.huge then
            assert.is_nil(path)
          else
            assert.is_true(oracle.near(info.cost, want))
            assert.is_true(oracle.near(oracle.path_cost(world, path), want))
          end
        end
      end
    end
  end)
  end

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
  -- A stamp left from before a clear (or the 16-bit wrap) looks current to the query that gets
  -- the same stamp after it: the first queries of one cycle meet what the first queries of the
  -- last cycle left, where no later query stamped over it. So each cycle (`period` queries: the
  -- stamps run 1..1,023 between clears, 1..65,535 between wraps) opens with three queries,
  -- each in a region of its own (the world, copied three times side by side, walled off), and
  -- fills the rest with finds in a far corner; the next cycle's three meet their records.
  -- They are a plain find, a find with claims (per-cell stamps: the unit "me" leaves out its own
  -- claims, which change from cycle to cycle) and a find_nearest (per-cell target stamps), each
  -- from another start to another goal, checked against the oracle, path and cost.
  local function run(world, starts, side, period, cycles)
    local g = astar.grid(side, side, { diagonal = world.diagonal })
    g:fill(false)
    local function at(j, x, y) return (j - 1) * (world.w + 1) + x, y end -- region j's cell
    for j = 1, 3 do
      for y = 1, world.h do
        for x = 1, world.w do
          local ax, ay = at(j, x, y)
          g:set_cost(ax, ay, world.cost[y][x])
        end
      end
    end
    for y = side - 2, side do
      for x = side - 2, side do g:set_cost(x, y, 1) end
    end
    local rows = { {}, {} } -- "me" claims one row of region 2 and "other" another, then the other way round
    for x = 1, world.w do
      rows[1][x] = { x = x, y = 2 }
      rows[2][x] = { x = x, y = world.h - 1 }
    end
    local function shifted(list)
      local out = {}
      for i, p in ipairs(list) do out[i] = { x = (at(2, p.x, p.y)), y = p.y } end
      return out
    end
    local configs = { { me = rows[1], other = rows[2] }, { me = rows[2], other = rows[1] } }
    local claims = astar.claims(g)
    local cworlds, dist, cdist, goals = {}, {}, { {}, {} }, {}
    for k = 1, 2 do
      cworlds[k] = setmetatable({ claims = { { unit = "me", path = configs[k].me, pos = 1 },
        { unit = "other", path = configs[k].other, pos = 1 } }, unit = "me", claim_penalty = 5 },
        { __index = world })
    end
    for i, s in ipairs(starts) do
      dist[i] = oracle.distances(world, s[1], s[2])
      for k = 1, 2 do cdist[k][i] = oracle.distances(cworlds[k], s[1], s[2]) end
      goals[i] = {} -- what the start reaches, itself left out: every query searches
      for y = 1, world.h do
        for x = 1, world.w do
          if dist[i][y][x] < math.huge and (x ~= s[1] or y ~= s[2]) then goals[i][#goals[i] + 1] = { x, y } end
        end
      end
      assert(#goals[i] > 10, "a start that reaches too little")
    end
    local wrong, fillers = 0, 0
    for c = 0, cycles - 1 do
      local k = c % 2 + 1
      claims:claim("me", shifted(configs[k].me))
      claims:claim("other", shifted(configs[k].other))
      for j = 1, 3 do
        local i = (c + j) % #starts + 1
        local s = starts[i]
        local goal = goals[i][(c * 7 + j * 3) % #goals[i] + 1]
        local sx, sy = at(j, s[1], s[2])
        local gx, gy = at(j, goal[1], goal[2])
        local path, info, want, seen
        if j == 1 then
          path, info = g:find(sx, sy, gx, gy)
          want, seen = dist[i][goal[2]][goal[1]], world
        elseif j == 2 then
          path, info = g:find(sx, sy, gx, gy, { claims = claims, unit = "me", claim_penalty = 5 })
          want, seen = cdist[k][i][goal[2]][goal[1]], cworlds[k]
        else
          path, info = g:find_nearest(sx, sy, { { x = gx, y = gy } })
          want, seen = dist[i][goal[2]][goal[1]], world
        end
        -- The path itself, walked by the oracle in the world's own coordinates.
        local ok, walked = false, nil
        if path and path[1].x == sx and path[1].y == sy and path[#path].x == gx and path[#path].y == gy then
          local local_path = {}
          for n, p in ipairs(path) do local_path[n] = { x = p.x - (sx - s[1]), y = p.y } end
          ok, walked = pcall(oracle.path_cost, seen, local_path)
        end
        if not (ok and oracle.near(walked, want) and oracle.near(info.cost, want)) then wrong = wrong + 1 end
      end
      for _ = 4, period do
        if not g:find(side - 2, side - 2, side, side) then fillers = fillers + 1 end
      end
    end
    return wrong, fillers
  end

  local rng = oracle.rng(2027)
  local world = worlds.random_world(rng, { w = 11, h = 9 })
  world.diagonal = "always"
  local starts = { { 1, 1 }, { 11, 9 }, { 6, 5 }, { 11, 1 } }

  it("on a workspace of pages, cleared every 1,024 queries", function()
    -- 66x66 records: 68 KiB, past ASTAR_PAGES_MIN
    local wrong, fillers = run(world, starts, 64, 1023, math.max(2, scale(8)))
    assert.equal(0, wrong)
    assert.equal(0, fillers)
  end)

  it("on a small workspace, past the 16-bit wrap", function()
    if scale(4) < 4 then return end -- 131,070 queries: the C test covers the wrap under valgrind
    local wrong, fillers = run(world, starts, 40, 65535, 2) -- 42x42 records: written, not pages
    assert.equal(0, wrong)
    assert.equal(0, fillers)
  end)
end)
