-- astar.tiled: a tile layer of a Tiled JSON map as a grid, cell by cell against what the
-- map file says (spec/maps/tiled_small.json: a 6x4 map, a CSV layer and a base64 one, a
-- tileset whose tiles carry a "cost" property).
local astar = require("astar")

local read = require("spec.support.files").read

local TEXT = read("spec/maps/tiled_small.json")

-- Runs fn with the JSON libraries named in `hidden` made unloadable.
local function without(hidden, fn)
  local saved = {}
  for _, name in ipairs(hidden) do
    saved[name] = { package.loaded[name], package.preload[name] }
    package.loaded[name] = nil
    package.preload[name] = function() error("hidden by the spec") end
  end
  local ok, a, b = pcall(fn)
  for name, s in pairs(saved) do package.loaded[name], package.preload[name] = s[1], s[2] end
  assert(ok, a)
  return a, b
end

-- The costs a grid holds, row by row (false = blocked).
local function costs(grid)
  local w, h = grid:size()
  local rows = {}
  for y = 1, h do
    rows[y] = {}
    for x = 1, w do rows[y][x] = grid:get_cost(x, y) end
  end
  return rows
end

describe("astar.tiled", function()
  -- ground layer (gids): 1 grass (cost 1; the first one flipped), 2 wall ("blocked"),
  -- 3 swamp (cost 3), 0 empty
  local GROUND_BY_PROPERTY = {
    { 1, 1, 1, 1, 1, 1 },
    { 1, false, false, false, 1, 3 },
    { 1, 1, 1, false, 1, 3 },
    { 1, 1, 1, false, 1, 1 },
  }

  it("reads the first tile layer with costs from a tile property, with either JSON library", function()
    local grid, info = astar.tiled.grid(TEXT, { property = "cost" })
    assert.are.same(GROUND_BY_PROPERTY, costs(grid))
    assert.are.same({ width = 6, height = 4, layer = "ground", orientation = "orthogonal", tiles = 3 }, info)
    local dk = without({ "cjson" }, function() return astar.tiled.grid(TEXT, { property = "cost" }) end)
    assert.are.same(GROUND_BY_PROPERTY, costs(dk))
    local cj = without({ "dkjson" }, function() return astar.tiled.grid(TEXT, { property = "cost" }) end)
    assert.are.same(GROUND_BY_PROPERTY, costs(cj))
    -- the same map set by hand answers the same
    local by_hand = astar.grid(6, 4)
    for y, row in ipairs(GROUND_BY_PROPERTY) do
      for x, c in ipairs(row) do by_hand:set_cost(x, y, c) end
    end
    local _, want = by_hand:find(1, 4, 6, 4)
    local _, got = grid:find(1, 4, 6, 4)
    assert.are.equal(want.cost, got.cost)
  end)

  it("a legend by gid, a default and empty cells", function()
    local grid = astar.tiled.grid(TEXT, { legend = { [2] = false, [3] = 2.5 }, empty = false, default = 1.5 })
    assert.are.same({
      { 1.5, 1.5, 1.5, 1.5, 1.5, 1.5 },
      { 1.5, false, false, false, 1.5, 2.5 },
      { 1.5, 1.5, false, false, 1.5, 2.5 },
      { 1.5, 1.5, 1.5, false, 1.5, 1.5 },
    }, costs(grid))
  end)

  it("another layer by name, base64-encoded", function()
    local grid, info = astar.tiled.grid(TEXT, { layer = "objects", legend = { [4] = false } })
    assert.are.equal("objects", info.layer)
    local want = costs(astar.grid(6, 4))
    want[1][6] = false
    assert.are.same(want, costs(grid))
    assert.are.same(costs(grid), costs((astar.tiled.grid(TEXT, { layer = 2, legend = { [4] = false } }))))
  end)

  it("a decoded table needs no JSON library; hexagonal maps become hex grids", function()
    local map = {
      width = 3, height = 2, orientation = "hexagonal", staggeraxis = "y", staggerindex = "odd",
      layers = { { type = "tilelayer", name = "t", width = 3, height = 2, data = { 1, 0, 1, 1, 1, 0 } } },
      tilesets = { { firstgid = 1, tiles = {} } },
    }
    local grid = without({ "cjson", "dkjson" }, function() return astar.tiled.grid(map, { empty = false }) end)
    assert.are.equal("hex", grid.topology)
    assert.are.same({ { 1, false, 1 }, { 1, 1, false } }, costs(grid))
    map.staggerindex = "even"
    assert.has_error(function() astar.tiled.grid(map) end)
  end)

  it("says clearly what it cannot read", function()
    local function fails(pattern, map, opts)
      local ok, err = pcall(astar.tiled.grid, map, opts)
      assert.is_false(ok)
      assert.matches(pattern, tostring(err))
    end
    local function map(changes)
      local m = {
        width = 2, height = 1, layers = { { type = "tilelayer", name = "l", width = 2, height = 1, data = { 1, 1 } } },
      }
      for k, v in pairs(changes.top or {}) do m[k] = v end
      for k, v in pairs(changes.layer or {}) do m.layers[1][k] = v end
      return m
    end
    fails("no tile layer 'roads'", TEXT, { layer = "roads" })
    fails("infinite maps", map({ top = { infinite = true } }))
    fails("orientation 'isometric'", map({ top = { orientation = "isometric" } }))
    fails("compressed data %(zlib%)", map({ layer = { encoding = "base64", compression = "zlib", data = "AA==" } }))
    fails("must hold 2 tiles", map({ layer = { data = { 1 } } }))
    fails("2 tiles", map({ layer = { encoding = "base64", data = "AQAAAA==" } })) -- 4 bytes: one tile
    fails("tile 1 at %(1, 1%)", map({}), { legend = { [1] = -3 } })
    fails("Tiled map table or JSON text", 42)
    without({ "cjson", "dkjson" }, function() fails("needs lua%-cjson or dkjson", TEXT) end)
    fails("bad JSON", "{ not json", nil)
    fails("bad argument #2 to 'grid' %(options table or nil expected, got string%)", TEXT, "cost")
    fails("bad argument #2 to 'grid' %(unknown option 'propety'%)", TEXT, { propety = "cost" })
    fails("option 'layer' must be a layer name or a positive integer, got 0", TEXT, { layer = 0 })
    fails("option 'layer' must be a layer name or a positive integer, got 1.5", TEXT, { layer = 1.5 })
    fails("option 'legend' must be a table gid %-> cost, got number", TEXT, { legend = 2 })
    fails("option 'property' must be a property name, got boolean", TEXT, { property = true })
    fails("option 'default' must be a cost or false, got string", TEXT, { default = "1" })
    fails("option 'empty' must be a cost or false, got table", TEXT, { empty = {} })
    fails("tile 0 at %(3, 3%)", TEXT, { empty = -1 }) -- a number the grid refuses
    fails("bad argument #2 to 'grid' %(option 'diagonal' must be \"never\".*got sideways%)", TEXT,
      { diagonal = "sideways" })
  end)
end)
