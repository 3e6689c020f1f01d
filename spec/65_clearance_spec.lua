-- Units bigger than one cell: the query option size = n (grid:find). The unit covers the
-- n x n cells whose top-left is the path's cell. Every answer is checked against the oracle
-- (spec/support/dijkstra.lua with world.size), which checks every footprint cell itself and
-- knows nothing of the grid's clearance table; terrain writes between queries check that the
-- table follows them.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261165")

local function check_answer(grid, world, opts, sx, sy, gx, gy, where)
  local want = oracle.cost(world, sx, sy, gx, gy)
  local path, info = grid:find(sx, sy, gx, gy, opts)
  if want == nil then
    assert(path == nil, where .. ": a path the oracle says does not exist")
    return "unreachable"
  end
  assert(path ~= nil, where .. ": no path, the oracle's costs " .. want)
  assert(info.cost == want, string.format("%s: cost %.17g, the oracle %.17g", where, info.cost, want))
  -- every step legal for the whole footprint, and the path costs what the answer says
  assert(oracle.path_cost(world, path, sx, sy) == want, where .. ": the path's own cost")
  return "found"
end

describe("units bigger than one cell (size)", function()
  it("a 2x2 unit does not squeeze through a gap of one cell", function()
    -- a wall down column 4 with a gap of one cell at row 3, and one of two at rows 6-7
    local g = astar.grid(8, 8)
    for y = 1, 8 do g:set_cost(4, y, false) end
    g:set_cost(4, 3, 1)
    local one = g:find(1, 3, 6, 3)
    assert.are.equal(6, #one) -- straight through the gap
    assert.is_nil(g:find(1, 3, 6, 3, { size = 2 })) -- no way yet: the table is made here
    g:set_cost(4, 6, 1) -- opened after the table was made: it follows
    g:set_cost(4, 7, 1)
    local path, info = g:find(1, 3, 6, 3, { size = 2, diagonal = "never" })
    assert.is_not_nil(path)
    for _, p in ipairs(path) do
      for j = 0, 1 do
        for i = 0, 1 do
          local c = g:get_cost(p.x + i, p.y + j)
          assert.is_true(c ~= false and c ~= math.huge)
        end
      end
    end
    assert.is_true(info.cost > 5)
    g:set_cost(4, 7, false) -- closed again
    assert.is_nil(g:find(1, 3, 6, 3, { size = 2 }))
    -- the footprint must fit inside the map: the last column cannot anchor a 2x2 unit
    assert.is_nil(g:find(1, 1, 8, 1, { size = 2 }))
  end)

  it("a step costs the dearest cell the footprint newly covers", function()
    local g = astar.grid(5, 2, { diagonal = "never" })
    g:set_cost(3, 2, 4) -- under the unit's lower row, entered by the step (1,1) -> (2,1)
    local _, info = g:find(1, 1, 2, 1, { size = 2 })
    assert.are.equal(4, info.cost)
    local _, one = g:find(1, 1, 2, 1)
    assert.are.equal(1, one.cost) -- one cell never covers (3, 2)
  end)

  it("find equals the footprint oracle on random worlds, with writes between queries (" ..
     scale(250) .. " worlds)", function()
    local rng = oracle.rng(SEED)
    local seen = { found = 0, unreachable = 0 }
    for n = 1, scale(250) do
      local features = { w = rng.int(3, 12), h = rng.int(3, 12), layers = rng.next() < 0.25,
                         claims = rng.next() < 0.25, noise = rng.next() < 0.15 }
      local world = worlds.random_world(rng, features)
      world.size = rng.int(1, 3)
      local grid = oracle.grid(astar, world)
      local opts = worlds.query_opts(astar, grid, world)
      opts.size = world.size
      opts.info = {}
      for round = 1, 3 do
        local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
        local where = string.format("world %d round %d (%dx%d %s size %d) %d,%d -> %d,%d", n, round, world.w,
          world.h, world.diagonal, world.size, sx, sy, gx, gy)
        local kind = check_answer(grid, world, opts, sx, sy, gx, gy, where)
        seen[kind] = seen[kind] + 1
        -- a few terrain writes, to the grid and the world alike: the table follows
        for _ = 1, rng.int(1, 4) do
          local x, y = rng.int(1, world.w), rng.int(1, world.h)
          local c = rng.next() < 0.5 and false or 0.5 + rng.next() * 3
          world.cost[y][x] = c
          grid:set_cost(x, y, c)
        end
      end
    end
    assert.is_true(seen.found > scale(250) / 2 and seen.unreachable > scale(250) / 10,
      "found " .. seen.found .. ", unreachable " .. seen.unreachable)
  end)

  it("refuses a size outside 1..8, on graphs and on hexes", function()
    local g = astar.grid(4, 4)
    for _, bad in ipairs({ 0, 9, 1.5, -1, "2", math.huge, 0 / 0 }) do
      assert.has_error(function() g:find(1, 1, 2, 2, { size = bad }) end)
    end
    local graph = astar.graph()
    graph:add_node(0, 0)
    assert.has_error(function() graph:find(1, 1, { size = 2 }) end) -- a footprint of cells: grids only
    local hex = astar.grid(4, 4, { topology = "hex" })
    assert.has_error(function() hex:find(1, 1, 2, 2, { size = 2 }) end)
    assert.is_not_nil(g:find(1, 1, 3, 3, { size = 2 }))
  end)
end)
