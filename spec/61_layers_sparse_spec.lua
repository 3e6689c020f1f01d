-- Issue 27, influence layers: decay, spread, max_abs and add_layer visit only the tiles that
-- hold influence (and spread their rim), the loop without callbacks counts influence and claims
-- in quanta where a per-query bound keeps the sums exact. Neither may change a bit of what the
-- documented rules give: every layer is checked against a plain Lua reference (spec/support/
-- influence.lua, written from astar.h's rules) cell by cell with ==, every query against the
-- oracle Dijkstra (spec/support/dijkstra.lua) to the bit. Work is observed in the core's units
-- (the work limit), never timed.
local astar = require("astar")
local ref = require("spec.support.influence")
local dijkstra = require("spec.support.dijkstra")
local work = require("spec.support.work")
local scale = require("spec.support.scale")

-- Every cell of the layer equals the reference's, bit for bit (1/v tells -0 from +0).
local function assert_bits(inf, v, what)
  for y = 1, v.h do
    for x = 1, v.w do
      local a, b = inf:get(x, y), v[y][x]
      if not (a == b and 1 / a == 1 / b) then
        error(string.format("%s: cell %d,%d is %.17g, the reference says %.17g", what, x, y, a, b), 2)
      end
    end
  end
end

local function ref_decay(v, f)
  for y = 1, v.h do
    for x = 1, v.w do v[y][x] = v[y][x] * f end
  end
end

local function ref_add_layer(v, o, w)
  for y = 1, v.h do
    for x = 1, v.w do v[y][x] = v[y][x] + w * o[y][x] end
  end
end

local function ref_fill(v, value)
  for y = 1, v.h do
    for x = 1, v.w do v[y][x] = value end
  end
end

local FALLOFFS = { "linear", "quadratic", "constant" }

-- A grid of w x h with a few walls, and its walkable(x, y) for the reference.
local function walled(w, h, rng, hex)
  local g = hex and astar.grid(w, h, { topology = "hex" }) or astar.grid(w, h)
  local open = {}
  for y = 1, h do
    open[y] = {}
    for x = 1, w do
      open[y][x] = rng.int(1, 100) > 15
      if not open[y][x] then g:set_cost(x, y, false) end
    end
  end
  return g, function(x, y) return open[y][x] end
end

describe("influence layers, sparse (issue 27)", function()
  it("random sequences of writes, decays and spreads equal the reference bit for bit", function()
    local rng = dijkstra.rng(61)
    -- sizes on both sides of the tiles' edges (8 cells), thin ones too
    local sizes = { { 1, 1 }, { 1, 19 }, { 17, 1 }, { 8, 8 }, { 9, 7 }, { 23, 17 }, { 33, 16 } }
    for round = 1, scale(28) do
      local size = sizes[(round - 1) % #sizes + 1]
      local w, h = size[1], size[2]
      local hex = round % 5 == 0
      local g, walkable = walled(w, h, rng, hex)
      local with_walls = round % 3 == 0
      local inf, v = astar.influence(w, h), ref.new(w, h)
      local other, o = astar.influence(w, h), ref.new(w, h)
      for _ = 1, 14 do
        local op = rng.int(1, 10)
        local x, y = rng.int(1, w), rng.int(1, h)
        if op <= 3 then
          local r, s, f = rng.int(0, 60) / 10, rng.int(-40, 40) / 4, FALLOFFS[rng.int(1, 3)]
          inf:stamp(x, y, r, s, f)
          ref.stamp(v, x, y, r, s, f)
        elseif op == 4 then
          local value = ({ 0, -0.0, 2.5, -1e-300, 7 })[rng.int(1, 5)]
          inf:set(x, y, value)
          v[y][x] = value
        elseif op == 5 then
          local d = rng.int(-8, 8) / 2
          inf:add(x, y, d)
          v[y][x] = v[y][x] + d
        elseif op == 6 then
          local f = ({ 0, 0.5, 0.95, 1, 3 })[rng.int(1, 5)]
          inf:decay(f)
          ref_decay(v, f)
        elseif op <= 8 then
          local decay, momentum = rng.int(0, 20) / 10, rng.int(0, 10) / 10
          if with_walls then
            inf:spread(decay, momentum, g)
            ref.spread(v, decay, momentum, walkable, hex)
          else
            inf:spread(decay, momentum)
            ref.spread(v, decay, momentum)
          end
        elseif op == 9 then
          local r, s = rng.int(0, 30) / 10, rng.int(-9, 9)
          other:stamp(x, y, r, s)
          ref.stamp(o, x, y, r, s, "linear")
          assert_bits(other, o, "the other layer")
          local wt = ({ 1, -0.5, 0, 2 })[rng.int(1, 4)]
          inf:add_layer(other, wt)
          ref_add_layer(v, o, wt)
        else
          local value = ({ 0, 0, 1.5, -0.0 })[rng.int(1, 4)]
          inf:fill(value)
          ref_fill(v, value)
        end
        assert_bits(inf, v, "round " .. round)
        assert.are.equal(ref.max_abs(v), inf:max_abs())
      end
    end
  end)

  it("spread carries influence across tiles, one ring a step, and stops at walls", function()
    local inf, v = astar.influence(40, 30), ref.new(40, 30)
    inf:set(8, 8, 5) -- the corner of a tile: its neighbours are in three other tiles
    v[8][8] = 5
    for step = 1, 12 do
      inf:spread(0.1, 0.5)
      ref.spread(v, 0.1, 0.5)
      assert_bits(inf, v, "step " .. step)
    end
    assert.is_true(inf:get(20, 20) ~= 0) -- 12 rings out
    assert.are.equal(0, inf:get(21, 21))
  end)

  it("decay, max_abs, spread and fill(0) work in proportion to the cells holding influence, not the map", function()
    local inf = astar.influence(512, 512)
    for i = 1, 10 do inf:stamp(20 + (i * 97) % 470, 20 + (i * 61) % 470, 8, 10) end
    local stamped = 10 * 17 * 17
    -- before issue 27 each of these counted the layer's 262,144 cells
    assert.is_true(work.units_of(function() inf:decay(0.9) end) <= 4 * stamped)
    assert.is_true(work.units_of(function() inf:max_abs() end) <= 4 * stamped)
    assert.is_true(work.units_of(function() inf:spread(0.2, 0.5) end) <= 8 * stamped)
    assert.is_true(work.units_of(function() inf:fill(0) end) <= 8 * stamped)
    assert.is_true(work.units_of(function() inf:decay(0.9) end) == 0) -- nothing left to visit
    assert.are.equal(0, inf:max_abs())
    inf:set(512, 512, 1)
    assert.is_true(work.units_of(function() inf:decay(0.5) end) <= 64)
    assert.are.equal(0.5, inf:get(512, 512))
  end)

  it("a stop by the work limit changes nothing", function()
    local inf = astar.influence(64, 64)
    inf:stamp(30, 30, 10, 4)
    local before = {}
    for y = 1, 64 do
      for x = 1, 64 do before[#before + 1] = inf:get(x, y) end
    end
    for _, f in ipairs({
      function() inf:spread(0.3, 0.5) end, function() inf:decay(0.5) end, function() inf:fill(0) end,
    }) do
      astar.set_work_limit(10)
      local ok, err = pcall(f)
      astar.set_work_limit(nil)
      assert.is_false(ok)
      assert.truthy(tostring(err):find("work limit", 1, true))
      local i, changed = 0, 0
      for y = 1, 64 do
        for x = 1, 64 do
          i = i + 1
          if before[i] ~= inf:get(x, y) then changed = changed + 1 end
        end
      end
      assert.are.equal(0, changed)
    end
  end)
end)

-- A world for the oracle with one influence layer and claims, and the same as library objects.
local function penalised_world(w, h, rng, values, weight, penalty)
  local rows = {}
  for y = 1, h do
    local row = {}
    for x = 1, w do row[x] = rng.int(1, 100) <= 15 and "#" or "." end
    rows[y] = table.concat(row)
  end
  local world = dijkstra.world_from_rows(rows, "no_corner_cut")
  local g = dijkstra.grid(astar, world)
  local inf = astar.influence(w, h)
  local vals = {}
  for y = 1, h do
    vals[y] = {}
    for x = 1, w do
      local v = rng.int(1, 100) <= 30 and values[rng.int(1, #values)] or 0
      vals[y][x] = v
      inf:set(x, y, v)
    end
  end
  world.layers = { { vals = vals, weight = weight } }
  world.claim_penalty = penalty
  world.claims = {}
  local claims = astar.claims(g)
  for u = 1, 3 do
    local path, x, y = {}, rng.int(1, w), rng.int(1, h)
    for _ = 1, rng.int(2, 8) do
      path[#path + 1] = { x = x, y = y }
      x = math.max(1, math.min(w, x + rng.int(-1, 1)))
      y = math.max(1, math.min(h, y + rng.int(-1, 1)))
    end
    local flat = {}
    for _, p in ipairs(path) do flat[#flat + 1] = { p.x, p.y } end
    claims:claim(u, flat)
    world.claims[u] = { unit = u, path = path, pos = 1 }
  end
  world.unit = 2
  return world, g, inf, claims
end

local function open_pair(world, rng)
  while true do
    local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
    if world.cost[sy][sx] and world.cost[gy][gx] then return sx, sy, gx, gy end
  end
end

describe("influence and claims counted in quanta (issue 27)", function()
  -- values and weights of every magnitude: the exact loop where the bound allows it, the loop
  -- in doubles where it does not; both must give the oracle's cost to the bit.
  local CASES = {
    { values = { 0.5, 1, 2, -1 }, weight = 1, penalty = 5, exact = true },
    { values = { 0.1, 0.3, 2.7 }, weight = 0.7, penalty = 0.1, exact = true },
    { values = { 3, 1e-9 }, weight = 1e-12, penalty = 1e-12, exact = true }, -- a quantum a step
    { values = { 1e100, -1e100 }, weight = 1e-100, penalty = 1, exact = true },
    { values = { 1e5, 3e5 }, weight = 1, penalty = 5, exact = false }, -- past the exact range
    { values = { 1e100, 5e99 }, weight = 1, penalty = 1e100, exact = false },
    { values = { 2 }, weight = 1e100, penalty = 0, exact = false },
    { values = { -3, -1 }, weight = -2, penalty = 0, exact = true }, -- negative weight: a penalty
  }
  it("every case equals the oracle Dijkstra's cost and a path of that cost", function()
    local rng = dijkstra.rng(6127)
    for ci, case in ipairs(CASES) do
      for round = 1, scale(3) do
        local world, g, inf, claims = penalised_world(14, 11, rng, case.values, case.weight, case.penalty)
        for _ = 1, 4 do
          local sx, sy, gx, gy = open_pair(world, rng)
          local want = dijkstra.cost(world, sx, sy, gx, gy)
          local path, info = g:find(sx, sy, gx, gy, {
            influence = inf, influence_weight = case.weight, claims = claims, unit = 2,
            claim_penalty = case.penalty,
          })
          local what = string.format("case %d round %d: %d,%d -> %d,%d", ci, round, sx, sy, gx, gy)
          if want == nil then
            assert.is_nil(path, what)
          else
            assert.is_truthy(path, what)
            if case.exact then
              assert.are.equal(want, info.cost, what)
            else
              assert.is_true(dijkstra.near(info.cost, want), what)
            end
            local walked = dijkstra.path_cost(world, path, sx, sy)
            assert.is_true(dijkstra.near(walked, info.cost), what)
          end
        end
      end
    end
  end)

  it("a search in slices whose layer grows past the exact range goes on to the oracle's answer", function()
    for _, max_cost in ipairs({ math.huge, 1e9 }) do
      -- a corridor, and a walled-off room that takes the big values (never reached)
      local rows = {
        "..............................",
        "..............................",
        "..............................",
        "##############################",
        "......########################",
      }
      local world = dijkstra.world_from_rows(rows, "no_corner_cut")
      local g = dijkstra.grid(astar, world)
      local inf = astar.influence(30, 5)
      local vals = {}
      for y = 1, 5 do
        vals[y] = {}
        for x = 1, 30 do vals[y][x] = 0 end
      end
      for x = 5, 25 do
        inf:set(x, 2, 1.5)
        vals[2][x] = 1.5
      end
      world.layers = { { vals = vals, weight = 1 } }
      world.claims = {}
      local job = g:search(1, 2, 30, 2, { influence = inf, max_cost = max_cost })
      job:step(5)
      for x = 1, 6 do inf:set(x, 5, 3e5) end -- the bound outgrows the quanta
      for x = 1, 6 do vals[5][x] = 3e5 end
      job:step()
      local path, info = job:result()
      assert.is_truthy(path)
      assert.are.equal(dijkstra.cost(world, 1, 2, 30, 2), info.cost)
    end
  end)

  it("hostile: a layer closed or refilled between slices, claims dropped, a layer of 1e100 everywhere", function()
    local g = astar.grid(20, 20)
    local inf = astar.influence(20, 20, 1e100)
    local path = g:find(1, 1, 20, 20, { influence = inf, influence_weight = 1e-100 })
    assert.is_truthy(path)
    local _, info = g:find(1, 1, 20, 20, { influence = inf })
    assert.is_true(info.cost > 1e100)
    inf:fill(0)
    local claims = astar.claims(g)
    claims:claim(1, { { 2, 2 }, { 3, 3 }, { 4, 4 } })
    local job = g:search(1, 1, 20, 20, { influence = inf, claims = claims })
    job:step(3)
    inf:fill(1e100) -- every cell now dearer than the exact range
    claims:release(1)
    job:step()
    local p2, i2 = job:result()
    assert.is_truthy(p2)
    assert.is_true(i2.cost > 1e100)
    local job2 = g:search(1, 1, 20, 20, { influence = inf })
    job2:step(2)
    getmetatable(inf).__gc(inf) -- closed (Lua 5.4's <close> does the same)
    local ok, err = pcall(function() return job2:step() end)
    assert.is_false(ok) -- refused (the contract's closed objects), never a crash
    assert.truthy(tostring(err):find("freed", 1, true))
  end)
end)
