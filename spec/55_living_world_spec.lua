-- A living world (issue 26): what a change leaves for the next query. Observed by the work the
-- core counts (astar.work_left, never time): after set_cost of a door, fill or load, the first
-- query costs the units the same query costs again (no table is rebuilt inside it), and every
-- answer stays exact against the oracle. grid:load writes a few changed cells one by one (what
-- the grid keeps in step follows them, the version moves once per cell) and anything more as
-- one bulk write (the version moves once; landmarks are set aside). Set ASTAR_SEED to replay
-- another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261127")

local units_of = require("spec.support.work").units_of

-- Rooms off a hall, doors one cell wide, walls of a second cost here and there: dead ends,
-- islands when a door shuts, and a cost range whose cheapest end a door is part of.
local function rows_of(w, h, rng, shut)
  local rows = {}
  for y = 1, h do
    local row = {}
    for x = 1, w do
      local c = "."
      if y == 1 or y == h or x == 1 or x == w then
        c = "#"
      elseif y % 8 == 0 or x % 10 == 0 then
        c = ((x % 10 == 5 and y % 8 == 0) or (y % 8 == 4 and x % 10 == 0)) and "." or "#" -- doors
      elseif rng.next() < 0.05 then
        c = "3"
      end
      row[x] = c
    end
    rows[y] = row
  end
  for _, d in ipairs(shut or {}) do rows[d[2]][d[1]] = "#" end
  for y = 1, h do rows[y] = table.concat(rows[y]) end
  return rows
end

local LEGEND = { ["."] = 1, ["#"] = false, ["3"] = 3 }

local function world_of(rows, diagonal)
  local world = { w = #rows[1], h = #rows, cost = {}, diagonal = diagonal }
  for y, row in ipairs(rows) do
    world.cost[y] = {}
    for x = 1, #row do world.cost[y][x] = LEGEND[row:sub(x, x)] end
  end
  return world
end

local function open_cells(world)
  local cells = {}
  for y = 1, world.h do
    for x = 1, world.w do
      if world.cost[y][x] then cells[#cells + 1] = { x, y } end
    end
  end
  return cells
end

local QUERIES = {
  defaults = function(g, a, b) return g:find(a[1], a[2], b[1], b[2]) end,
  jump_false = function(g, a, b) return g:find(a[1], a[2], b[1], b[2], { jump = false }) end,
  influence = function(g, a, b, layer) return g:find(a[1], a[2], b[1], b[2], { influence = layer }) end,
}

local function check_exact(g, world, a, b, path, info)
  local want = oracle.cost(world, a[1], a[2], b[1], b[2])
  if want == nil then
    assert.is_nil(path)
    assert.are.equal("unreachable", info.status)
  else
    assert.is_table(path)
    assert.is_true(oracle.near(info.cost, want), ("cost %s, oracle %s"):format(info.cost, want))
    assert.is_true(oracle.near(oracle.path_cost(world, path), want))
  end
  return g
end

describe("a living world", function()
  it("a door toggled: the first query after it costs the units of the same query again", function()
    local rng = oracle.rng(SEED)
    local rows = rows_of(41, 33, rng)
    local world = world_of(rows, "no_corner_cut")
    local g = astar.grid(41, 33)
    g:load(rows, LEGEND)
    local layer = astar.influence(41, 33, 0)
    for y = 1, 33, 3 do
      for x = 1, 41, 2 do layer:set(x, y, (x + y) % 5) end
    end
    g:prepare()
    local cells = open_cells(world)
    local doors = { { 5, 8 }, { 10, 4 }, { 25, 16 }, { 30, 12 } }
    for round = 1, scale(24) do
      local door = doors[rng.int(1, #doors)]
      local shut = world.cost[door[2]][door[1]] ~= false
      local cost = 1
      if shut then cost = false end
      g:set_cost(door[1], door[2], cost)
      world.cost[door[2]][door[1]] = cost
      local a, b = cells[rng.int(1, #cells)], cells[rng.int(1, #cells)]
      for name, query in pairs(QUERIES) do
        local path, info
        local first = units_of(function() path, info = query(g, a, b, layer) end)
        local again = units_of(function() query(g, a, b, layer) end)
        assert.are.equal(again, first, ("%s, round %d: %d units first, %d again"):format(name, round, first, again))
        if name ~= "influence" then check_exact(g, world, a, b, path, info) end
      end
    end
  end)

  it("fill and a bulk load build the tables again at the write: none is left for the query", function()
    local rng = oracle.rng(SEED + 1)
    local g = astar.grid(41, 33)
    g:load(rows_of(41, 33, rng), LEGEND)
    g:prepare()
    g:find(2, 2, 40, 32, { jump = false }) -- the query's own workspace
    for round = 1, scale(6) do
      local rows = rows_of(41, 33, rng, { { 5, 8 }, { 30, 12 } })
      if round % 2 == 0 then
        g:fill(1)
        g:load(rows, LEGEND)
      else
        g:load(rows, LEGEND)
      end
      local world = world_of(rows, "no_corner_cut")
      local cells = open_cells(world)
      local a, b = cells[rng.int(1, #cells)], cells[rng.int(1, #cells)]
      for name, query in pairs(QUERIES) do
        if name ~= "influence" then
          local path, info
          local first = units_of(function() path, info = query(g, a, b) end)
          local again = units_of(function() query(g, a, b) end)
          assert.are.equal(again, first, ("%s after a bulk write: %d units first, %d again"):format(name, first, again))
          check_exact(g, world, a, b, path, info)
        end
      end
    end
  end)

  it("load writes a few changed cells one by one, more as one bulk write", function()
    local rng = oracle.rng(SEED + 2)
    local rows = rows_of(41, 33, rng)
    local g = astar.grid(41, 33)
    g:load(rows, LEGEND)
    assert.are.equal(8, g:landmarks(8))
    -- The same level with two doors shut: two writes, the landmarks stay in use.
    local v = g:version()
    local shut = rows_of(41, 33, oracle.rng(SEED + 2), { { 5, 8 }, { 30, 12 } })
    g:load(shut, LEGEND)
    assert.are.equal(v + 2, g:version())
    assert.are.equal(8, g:landmarks())
    -- The same again: nothing changes, nothing moves.
    g:load(shut, LEGEND)
    assert.are.equal(v + 2, g:version())
    -- Another level: one bulk write, the landmarks set aside until built again.
    local other = rows_of(41, 33, oracle.rng(SEED + 3))
    for y = 1, 33 do other[y] = other[y]:reverse() end -- its walls two columns over: 300+ cells
    local world = world_of(other, "no_corner_cut")
    g:load(other, LEGEND)
    assert.are.equal(v + 3, g:version())
    assert.are.equal(0, g:landmarks())
    local cells = open_cells(world)
    for _ = 1, 20 do
      local a, b = cells[rng.int(1, #cells)], cells[rng.int(1, #cells)]
      local path, info = g:find(a[1], a[2], b[1], b[2], { jump = false })
      check_exact(g, world, a, b, path, info)
    end
  end)
end)
