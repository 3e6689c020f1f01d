-- astar.debug: the ASCII picture cell by cell, and the PNG read back by a decoder written
-- from the PNG and zlib specifications (spec/support/png.lua), its pixels compared with the
-- documented palette at known cells.
local astar = require("astar")

local decode = require("spec.support.png").decode

local function world()
  local g = astar.grid(10, 6)
  g:load({
    "..........",
    "...#......",
    "...#..~~..",
    "...#......",
    "...#......",
    "..........",
  }, { ["."] = 1, ["#"] = false, ["~"] = 4 })
  return g
end

describe("astar.debug", function()
  it("ascii: terrain, influence, explored, claims and paths, each cell in its place", function()
    local g = world()
    local danger = astar.influence(10, 6)
    danger:set(9, 1, 10)
    danger:set(10, 1, 2)
    danger:set(1, 6, -1)
    local claims = astar.claims(g)
    claims:claim("other", { { x = 6, y = 6 }, { x = 7, y = 6 } })
    local path = g:find(1, 2, 10, 2)
    local on_path = {}
    for _, p in ipairs(path) do on_path[p.y * 100 + p.x] = true end
    for _, c in ipairs({ { 9, 1 }, { 10, 1 }, { 1, 6 }, { 7, 6 }, { 10, 3 }, { 8, 3 }, { 2, 5 } }) do
      assert(not on_path[c[2] * 100 + c[1]], "the path runs through a cell this test looks at")
    end
    local rows = {}
    for line in astar.debug.ascii(g, { path = path, influence = danger, claims = claims,
      explored = { { x = 10, y = 3 } } }):gmatch("[^\n]+") do rows[#rows + 1] = line end
    assert.are.equal(6, #rows)
    local function at(x, y) return rows[y]:sub(x, x) end
    assert.are.equal("S", at(1, 2))
    assert.are.equal("G", at(10, 2))
    for i = 2, #path - 1 do assert.are.equal("o", at(path[i].x, path[i].y)) end
    assert.are.equal("#", at(4, 3))
    assert.are.equal("@", at(9, 1))                     -- the strongest influence
    assert.are.equal(":", at(10, 1))                    -- a fifth of it: the weakest shade
    assert.are.equal("~", at(1, 6))                     -- negative
    assert.are.equal("c", at(7, 6))                     -- claimed
    assert.are.equal("x", at(10, 3))
    assert.are.equal("4", at(8, 3))                     -- terrain of cost 4
    assert.are.equal(".", at(2, 5))
    -- hexes: every second row half a cell to the right
    local hex = astar.grid(3, 2, { topology = "hex" })
    assert.are.equal(". . .\n . . .", astar.debug.ascii(hex))
  end)

  it("png: header, CRCs, zlib and the palette at known cells", function()
    local g = world()
    local danger = astar.influence(10, 6)
    danger:set(9, 1, 10)
    local claims = astar.claims(g)
    claims:claim("other", { { x = 1, y = 6 } })
    local path = g:find(1, 3, 10, 5)
    local png = astar.debug.png(g, { path = path, influence = danger, claims = claims, scale = 3 })
    local w, h, pixel = decode(png)
    assert.are.same({ 30, 18 }, { w, h })
    local function cell(x, y) -- the middle pixel of a cell, 1-based cells
      return { pixel((x - 1) * 3 + 1, (y - 1) * 3 + 1) }
    end
    assert.are.same({ 40, 40, 48 }, cell(4, 2))      -- blocked
    assert.are.same({ 235, 235, 225 }, cell(2, 1))   -- open, cost 1
    assert.are.same({ 30, 80, 230 }, cell(1, 3))     -- start
    assert.are.same({ 200, 0, 120 }, cell(10, 5))    -- goal
    assert.are.same({ 20, 170, 60 }, cell(path[3].x, path[3].y))
    assert.are.same({ 220, 40, 30 }, cell(9, 1))     -- the strongest influence, fully red
    assert.are.same({ 255, 160, 0 }, cell(1, 6))     -- claimed
    for _, p in ipairs(path) do assert(not (p.x == 8 and p.y == 3), "the path runs through (8, 3)") end
    local dear = cell(8, 3)
    assert(dear[1] < 235 and dear[1] > 40 and dear[1] == dear[2], "cost 4: a darker grey")
    -- every pixel of a cell has its colour
    assert.are.same(cell(4, 2), { pixel(9, 3) })
    assert.are.same(cell(4, 2), { pixel(11, 5) })
  end)

  it("png: a file, a default scale, big maps over several deflate blocks", function()
    local g = astar.grid(200, 120) -- 200 * 2 * 3 + 1 bytes a row, 240 rows: four blocks
    local name = os.tmpname()
    local n = astar.debug.png(g, { path = g:find(1, 1, 200, 120) }, name)
    local f = assert(io.open(name, "rb"))
    local bytes = f:read("*a")
    f:close()
    os.remove(name)
    assert.are.equal(n, #bytes)
    local w, h, pixel = decode(bytes)
    assert.are.same({ 400, 240 }, { w, h }) -- 512 / 200 cells: scale 2
    assert.are.same({ 30, 80, 230 }, { pixel(0, 0) })
    assert.are.same({ 200, 0, 120 }, { pixel(399, 239) })
  end)

  it("explore: find, and the cells the search looked at; a user's node_cost still counts", function()
    local g = world()
    local path, info, looked = astar.debug.explore(g, 1, 3, 10, 3)
    local want, winfo = g:find(1, 3, 10, 3)
    assert.are.same(want, path)
    assert.are.equal(winfo.cost, info.cost)
    local seen = {}
    for _, p in ipairs(looked) do
      assert.is_nil(seen[p.y * 100 + p.x], "listed twice")
      seen[p.y * 100 + p.x] = true
    end
    for i = 2, #path do assert(seen[path[i].y * 100 + path[i].x], "a path cell was not looked at") end
    local _, blocked = astar.debug.explore(g, 1, 3, 10, 3, {
      node_cost = function(x) if x == 5 then return false end end,
    })
    assert.are.equal("unreachable", blocked.status)
  end)

  it("checks its arguments", function()
    local g = world()
    assert.has_error(function() astar.debug.ascii(5) end)
    assert.has_error(function() astar.debug.png(g, { scale = 0 }) end)
    assert.has_error(function() astar.debug.png(g, { scale = 1.5 }) end)
    assert.has_error(function() astar.debug.ascii(g, { path = 3 }) end)
    assert.has_error(function() astar.debug.ascii(g, { explored = 3 }) end)
    assert.has_error(function() astar.debug.png(g, nil, "/nonexistent-dir/x.png") end)
    local function fails(pattern, fn, ...)
      local ok, err = pcall(fn, ...)
      assert.is_false(ok)
      assert.matches(pattern, tostring(err))
    end
    local d = astar.debug
    fails("bad argument #1 to 'png' %(astar.Grid expected, got table%)", d.png, {})
    fails("bad argument #1 to 'ascii' %(astar.Grid expected, got astar.Graph%)", d.ascii, astar.graph())
    fails("bad argument #2 to 'ascii' %(options table or nil expected, got string%)", d.ascii, g, "path")
    fails("bad argument #2 to 'ascii' %(unknown option 'paht'%)", d.ascii, g, { paht = {} })
    fails("unknown option 'scale'", d.ascii, g, { scale = 2 }) -- pixels: png only
    fails("option 'path': path point 2 is not a cell of the 10x6 grid", d.ascii, g,
      { path = { { x = 1, y = 1 }, { x = 11, y = 1 } } })
    fails("option 'path': path 2: path point 1 is not a cell", d.png, g,
      { path = { { { x = 1, y = 1 } }, { { x = 1.5, y = 1 } } } })
    fails("option 'explored': point 1 is not a cell", d.ascii, g, { explored = { { x = 0, y = 1 } } })
    fails("option 'influence' must be an astar.Influence of 10x6", d.ascii, g, { influence = astar.influence(6, 10) })
    fails("option 'influence' must be an astar.Influence", d.png, g, { influence = astar.mask(10, 6) })
    fails("option 'claims' must be the astar.Claims of a 10x6 grid", d.ascii, g,
      { claims = astar.claims(astar.grid(3, 3)) })
    fails("option 'claims' must be the astar.Claims", d.ascii, g, { claims = 1 })
    fails("bad argument #2 to 'png' %(option 'scale' must be an integer 1..64, got 65%)", d.png, g, { scale = 65 })
    fails("bad argument #3 to 'png' %(file name or nil expected, got number%)", d.png, g, nil, 3)
    fails("bad argument #1 to 'explore' %(astar.Grid expected, got nil%)", d.explore, nil, 1, 1, 2, 2)
    fails("bad argument #6 to 'explore' %(options table or nil expected, got number%)", d.explore, g, 1, 1, 2, 2, 5)
    fails("bad argument #2 to 'explore' %(x out of range", d.explore, g, 0, 1, 2, 2) -- find checks the rest
  end)
end)
