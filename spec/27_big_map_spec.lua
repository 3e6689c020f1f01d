-- Big maps: a 2048x2048 grid in the default suite (docs/performance.md states the 4096x4096 figure).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")

describe("a 2048x2048 grid", function()
  local N = 2048
  local grid = astar.grid(N, N)
  for y = 1, N - 1 do grid:set_cost(N / 2, y, false) end -- a wall with one gap, at the bottom

  it("finds the way through the wall's only gap at the cost the oracle gives a small copy", function()
    -- The same geometry near the gap, shifted: wall at x = 25 with its gap in the last row.
    local rows = {}
    for y = 1, 10 do rows[y] = y < 10 and (string.rep(".", 24) .. "#" .. string.rep(".", 39)) or string.rep(".", 64) end
    local small = oracle.world_from_rows(rows, "no_corner_cut")
    local want = oracle.cost(small, 1, 2, 51, 2)
    local dx, dy = N / 2 - 25, N - 10
    local path, info = grid:find(1 + dx, 2 + dy, 51 + dx, 2 + dy)
    assert(path and oracle.near(info.cost, want), tostring(info.cost) .. " vs " .. want)
    assert.are.same({ x = N / 2, y = N }, path[25]) -- the gap (the 25th cell of 51)
  end)

  it("crosses an open one corner to corner, and knows the islands", function()
    local open = astar.grid(N, N)
    local _, plain = open:find(1, 1, N, N, { jump = false })
    assert(oracle.near(plain.cost, (N - 1) * math.sqrt(2)))
    assert.are.equal(N, plain.expansions) -- octile is exact here: straight down the diagonal
    local _, jumped = open:find(1, 1, N, N)
    assert(oracle.near(plain.cost, jumped.cost))
    assert.is_true(grid:reachable(1, 1, N, 1))
    local closed = astar.grid(N, N)
    for y = 1, N do closed:set_cost(N / 2, y, false) end
    local none, ninfo = closed:find(1, 1, N, 1)
    assert.is_nil(none)
    assert.are.equal(0, ninfo.expansions) -- another island: no search at all
  end)
end)
