-- grid:prepare (issue 26 item 3): the lazy tables a grid's queries build on first use (cost
-- range, island labels, dead-end areas, JPS+ table), its hierarchy and its workspaces made at
-- a level's load. Observed by the work the core counts (astar.work_left, never time): after
-- prepare, the first query of each kind costs the units the second does (without prepare it
-- costs more: the test could fail), grid:dead_end and grid:component cost none. Queries after
-- prepare and changes stay exact against the oracle; the options are checked as every options
-- table is; the Build variant steps to the end with a rising progress; an options table that
-- closes the grid cannot crash it. Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind
local worlds = require("spec.support.worlds")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261126")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

local function close(object) getmetatable(object).__gc(object) end

local units_of = require("spec.support.work").units_of

-- A 60x40 map of rooms and corridors with dead ends, uniform (JPS+) or with costs.
local function level(uniform)
  local rows = {}
  for y = 1, 40 do
    local row = {}
    for x = 1, 60 do
      local c = "."
      if (x % 12 == 0 and y % 10 ~= 5) or (y % 10 == 0 and x % 12 ~= 6) then c = "#" end
      if not uniform and (x * 7 + y * 3) % 11 == 0 and c == "." then c = "3" end
      row[x] = c
    end
    rows[y] = table.concat(row)
  end
  local g = astar.grid(60, 40)
  g:load(rows, { ["."] = 1, ["#"] = false, ["3"] = 3 }) -- a bulk write: every table stale
  return g
end

-- The kinds of query, each a function of the grid (and what it reads, made once per grid).
local KINDS = {
  defaults = function(g) return g:find(2, 2, 58, 38) end,
  jump_false = function(g) return g:find(2, 2, 58, 38, { jump = false }) end,
  influence = function(g, t)
    t.layer = t.layer or astar.influence(60, 40, 0.5)
    return g:find(2, 2, 58, 38, { influence = t.layer })
  end,
  claims = function(g, t)
    if not t.claims then
      t.claims = astar.claims(g)
      t.claims:claim(1, { { x = 30, y = 20 }, { x = 31, y = 20 } })
    end
    return g:find(2, 2, 58, 38, { claims = t.claims })
  end,
  find_nearest = function(g) return g:find_nearest(2, 2, { { x = 58, y = 38 }, { x = 40, y = 3 } }) end,
  search = function(g)
    local job = g:search(2, 2, 58, 38)
    while job:step(50) == "running" do end
    return job:result()
  end,
  hierarchical = function(g) return g:find(2, 2, 58, 38, { hierarchical = true }) end,
}

describe("grid:prepare", function()
  after_each(function() astar.set_work_limit(nil) end)

  it("makes the first query of each kind cost what the second does", function()
    for _, uniform in ipairs({ true, false }) do
      for kind, query in pairs(KINDS) do
        local where = kind .. (uniform and " (uniform)" or "")
        local cold, t = level(uniform), {}
        query(cold, t) -- the inputs made outside the count
        cold = level(uniform)
        local cold_first = units_of(function() query(cold, t) end)
        local cold_second = units_of(function() query(cold, t) end)
        assert(cold_first > cold_second, where .. ": without prepare, the first query builds tables")
        local g = level(uniform)
        local prep = units_of(function()
          assert.is_nil(g:prepare({ workspaces = 1, hierarchy = kind == "hierarchical" or nil }))
        end)
        assert(prep > 0, where)
        local first = units_of(function() query(g, t) end)
        local second = units_of(function() query(g, t) end)
        assert.are.equal(second, first, where)
        assert.are.equal(cold_second, second, where)
      end
    end
  end)

  it("gives back the dead-end areas that writes retired (they stay retired until then)", function()
    -- A room (x 2..4, y 2..4) whose only door is (3, 5), off a hall below; (5, 3) is wall
    -- between the room and the hall's side corridor. Opening it gives the room a second way in:
    -- its area is retired; shutting it again leaves the room a dead end that only a rebuild
    -- finds again, and prepare is that rebuild's place.
    local g = astar.grid(9, 9)
    g:load({
      "#########",
      "#...#...#",
      "#...#.#.#",
      "#...#.#.#",
      "##.##.#.#",
      "#.......#",
      "#.......#",
      "#.......#",
      "#########",
    }, { ["."] = 1, ["#"] = false })
    g:prepare()
    local area, gx, gy = g:dead_end(3, 3)
    assert.is_truthy(area)
    assert.are.same({ 3, 4 }, { gx, gy }) -- the room's own cell by the door: the cut above its block
    g:set_cost(5, 3, 1) -- a second way in
    assert.is_false(g:dead_end(3, 3))
    g:set_cost(5, 3, false) -- shut again: still retired
    assert.is_false(g:dead_end(3, 3))
    g:prepare()
    local again, gx2, gy2 = g:dead_end(3, 3)
    assert.is_truthy(again)
    assert.are.same({ 3, 4 }, { gx2, gy2 })
    assert.are.equal(0, units_of(function() g:prepare() end)) -- and then nothing to do
  end)

  it("builds what it says: dead_end and component cost nothing after it, a second prepare nothing", function()
    local g = level(true)
    assert(units_of(function() g:dead_end(5, 5) end) > 0) -- the areas: built by the first ask
    g = level(true)
    g:prepare()
    assert.are.equal(0, units_of(function() g:dead_end(5, 5) end))
    assert.are.equal(0, units_of(function() g:component(5, 5) end))
    assert.are.equal(0, units_of(function() g:prepare() end))
    assert.are.equal(0, units_of(function() g:prepare_jumps() end))
    -- another mode's tables: the 4-connected ones
    local never = units_of(function() g:prepare({ diagonal = "never" }) end)
    assert(never > 0)
    assert.are.equal(units_of(function() g:find(2, 2, 58, 38, { diagonal = "never", jump = false }) end),
      units_of(function() g:find(2, 2, 58, 38, { diagonal = "never", jump = false }) end))
    -- a hierarchy of the size asked, kept when it is already built and clean
    g:prepare({ hierarchy = 6 })
    assert.are.equal(6, g:hierarchy().cluster_size)
    assert.are.equal(0, units_of(function() g:prepare({ hierarchy = 6 }) end))
    g:set_cost(7, 7, 2) -- dirties one cluster (or those across its border)
    assert(g:hierarchy().dirty >= 1)
    g:prepare({ hierarchy = 6 })
    assert.are.equal(0, g:hierarchy().dirty)
    g:prepare({ hierarchy = true }) -- the size a hierarchical find builds when there is none
    assert.are.equal(12, g:hierarchy().cluster_size)
  end)

  it("leaves every answer exact, with changes after it", function()
    local rng = oracle.rng(SEED)
    for round = 1, scale(60) do
      local features = worlds.random_features(rng)
      features.known, features.noise = false, false
      local world = worlds.random_world(rng, features)
      local g = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, g, world)
      g:prepare({ workspaces = rng.int(0, 3) })
      for q = 1, 8 do
        if q > 1 and rng.next() < 0.5 then
          local x, y = rng.int(1, world.w), rng.int(1, world.h)
          local c = rng.pick({ false, 1, 2.5 })
          world.cost[y][x] = c
          g:set_cost(x, y, c)
          if rng.next() < 0.5 then g:prepare() end
        end
        local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
        local path, info = g:find(sx, sy, gx, gy, opts)
        local want = oracle.cost(world, sx, sy, gx, gy)
        local where = ("round %d query %d (%d,%d)->(%d,%d)"):format(round, q, sx, sy, gx, gy)
        assert.are.equal(want ~= nil, path ~= nil, where)
        if want then assert(oracle.near(info.cost, want), where .. ": " .. info.cost .. " vs " .. want) end
      end
    end
  end)

  it("as a build: steps to the end with a rising progress, and leaves the tables made", function()
    for _, changes in ipairs({ false, true }) do
      local g = level(true)
      local b = g:prepare({ build = true, workspaces = 2 })
      assert.matches("astar.Build%(prepare, 0%%%)", tostring(b))
      local last, steps = b:progress(), 0
      while not b:done() do
        local status, used = b:step(1)
        assert(used <= 1)
        steps = steps + 1
        local p = b:progress()
        assert(p >= last and p <= 1)
        assert.are.equal(status == "done", p == 1)
        last = p
        if changes then g:set_cost(6, 3 + steps, steps % 2 == 0 and 1 or false) end
        assert(steps < 100)
      end
      assert(steps >= 3, "coarse, but in steps")
      assert.are.equal(0, b:restarts())
      assert.is_nil(b:finish())
      assert.are.same({ "done", 0 }, { b:step(5) })
      -- fresh, unless a write came after the last step
      if changes then g:prepare() end
      local first = units_of(function() KINDS.defaults(g) end)
      assert.are.equal(units_of(function() KINDS.defaults(g) end), first)
      assert.are.equal(0, units_of(function() g:dead_end(5, 5) end))
    end
  end)

  it("checks its options by name before it resolves the grid", function()
    local g = astar.grid(8, 8)
    assert.matches("table or nil expected", err_of(g.prepare, g, 3))
    assert.matches("unknown option 'workspace'", err_of(g.prepare, g, { workspace = 1 }))
    for _, n in ipairs({ -1, 1.5, 65, "2" }) do
      assert.matches("option 'workspaces' must be an integer in 0..64", err_of(g.prepare, g, { workspaces = n }))
    end
    for _, s in ipairs({ 1, 257, "12", 2.5 }) do
      assert.matches("option 'hierarchy' must be a boolean or a cluster size", err_of(g.prepare, g, { hierarchy = s }))
    end
    assert.matches("option 'diagonal' must be", err_of(g.prepare, g, { diagonal = "hex" }))
    assert.matches("option 'build' must be a boolean", err_of(g.prepare, g, { build = 1 }))
    assert.matches("cannot be used with 'build'", err_of(g.prepare, g, { build = true, hierarchy = 4 }))
    assert.matches("astar.Grid expected", err_of(g.prepare, {}, {}))
    local hex = astar.grid(8, 8, { topology = "hex" })
    assert.is_nil(hex:prepare({ workspaces = 1 }))
    assert.matches("hex grid has no diagonal modes", err_of(hex.prepare, hex, { diagonal = "never" }))
    assert.matches("has none", err_of(hex.prepare, hex, { hierarchy = true }))
    local always = astar.grid(8, 8, { diagonal = "always" })
    assert.is_nil(always:prepare())
    assert.matches("has none", err_of(always.prepare, always, { hierarchy = 4 }))
    -- not while a query reads the grid
    local inside
    g:find(1, 1, 8, 8, { node_cost = function() inside = inside or err_of(g.prepare, g); return 0 end })
    assert.matches("grid", inside)
  end)

  it("an options table whose metamethods close the grid cannot crash it", function()
    for _, key in ipairs({ "workspaces", "hierarchy", "diagonal", "build" }) do
      local g = level(true)
      local opts = setmetatable({}, { __index = function(_, k)
        if k == key then close(g) end
      end })
      assert.matches("freed astar.Grid", err_of(g.prepare, g, opts))
      collectgarbage()
    end
    local g = level(true)
    local b = g:prepare({ build = true })
    close(g)
    assert.matches("grid has been freed", err_of(b.step, b))
  end)
end)
