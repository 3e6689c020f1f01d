local astar = require("astar")

local function line(x1, x2, y)
  local path = {}
  for x = x1, x2 do path[#path + 1] = { x = x, y = y } end
  return path
end

describe("astar.claims", function()
  it("counts units per node; claim replaces the unit's previous claim", function()
    local g = astar.grid(6, 2)
    local claims = astar.claims(g)
    claims:claim("a", line(1, 4, 1))
    claims:claim(7, line(3, 6, 1))
    assert.are.equal(1, claims:count(1, 1))
    assert.are.equal(2, claims:count(3, 1))
    assert.are.equal(1, claims:count(6, 1))
    claims:claim("a", line(1, 2, 2))
    assert.are.equal(0, claims:count(1, 1))
    assert.are.equal(1, claims:count(3, 1))
    assert.are.equal(1, claims:count(2, 2))
  end)

  it("a unit's new, longer claim replaces the short one and counts stay right", function()
    local g = astar.grid(40, 3)
    local claims = astar.claims(g)
    claims:claim("a", line(1, 2, 1))
    claims:claim("b", line(1, 3, 1))
    claims:claim("a", line(1, 40, 2)) -- outgrows the buffers of the first claim
    assert.are.equal(1, claims:count(1, 1))
    assert.are.equal(1, claims:count(3, 1))
    for x = 1, 40 do assert.are.equal(1, claims:count(x, 2)) end
    claims:claim("a", line(5, 6, 3))
    for x = 1, 40 do assert.are.equal(0, claims:count(x, 2)) end
    assert.is_true(claims:release("b"))
    assert.are.equal(0, claims:count(1, 1))
  end)

  it("advance releases the nodes left behind; past the end it stays on the last", function()
    local g = astar.grid(5, 1)
    local claims = astar.claims(g)
    claims:claim("a", line(1, 5, 1))
    claims:advance("a", 2)
    assert.are.equal(0, claims:count(1, 1))
    assert.are.equal(0, claims:count(2, 1))
    assert.are.equal(1, claims:count(3, 1))
    claims:advance("a", 100)
    assert.are.equal(0, claims:count(4, 1))
    assert.are.equal(1, claims:count(5, 1))
    local x, y = claims:position("a")
    assert.are.equal(5, x)
    assert.are.equal(1, y)
  end)

  it("a node twice in one path counts once, and stays claimed while still ahead", function()
    local g = astar.grid(3, 1)
    local claims = astar.claims(g)
    claims:claim("a", { { x = 1, y = 1 }, { x = 2, y = 1 }, { x = 1, y = 1 }, { x = 3, y = 1 } })
    assert.are.equal(1, claims:count(1, 1))
    claims:advance("a", 1)
    assert.are.equal(1, claims:count(1, 1)) -- still ahead at index 3
    claims:advance("a", 2)
    assert.are.equal(0, claims:count(1, 1))
  end)

  it("release drops the claim", function()
    local g = astar.grid(3, 1)
    local claims = astar.claims(g)
    claims:claim("a", line(1, 3, 1))
    assert.is_true(claims:release("a"))
    assert.are.equal(0, claims:count(2, 1))
    assert.is_false(claims:release("a"))
    assert.is_false(claims:advance("nobody", 1))
  end)

  it("penalises nodes other units claim, by claim_penalty (default 5) per unit", function()
    local g = astar.grid(3, 1)
    local claims = astar.claims(g)
    claims:claim("a", line(1, 3, 1))
    claims:claim("b", line(2, 3, 1))
    local _, info = g:find(1, 1, 3, 1, { claims = claims })
    assert.are.equal(2 + 5 * (2 + 2), info.cost)
    _, info = g:find(1, 1, 3, 1, { claims = claims, claim_penalty = 1 })
    assert.are.equal(2 + 4, info.cost)
  end)

  it("ignores the querying unit's own claim", function()
    local g = astar.grid(3, 1)
    local claims = astar.claims(g)
    claims:claim("a", line(1, 3, 1))
    claims:claim(2, line(1, 3, 1))
    local _, info = g:find(1, 1, 3, 1, { claims = claims, unit = "a" })
    assert.are.equal(2 + 5 * 2, info.cost)
    _, info = g:find(1, 1, 3, 1, { claims = claims, unit = 2 })
    assert.are.equal(2 + 5 * 2, info.cost)
    _, info = g:find(1, 1, 3, 1, { claims = claims, unit = "stranger" })
    assert.are.equal(2 + 5 * 4, info.cost)
  end)

  it("with claim_radius counts only units whose current node is near the start", function()
    local g = astar.grid(10, 3)
    local claims = astar.claims(g)
    claims:claim("near", { { x = 3, y = 1 }, { x = 5, y = 2 } })
    claims:claim("far", { { x = 10, y = 3 }, { x = 5, y = 2 } })
    local opts = { claims = claims, claim_radius = 2, claim_penalty = 1.5, diagonal = "never" }
    local _, info = g:find(1, 2, 6, 2, opts)
    assert.are.equal(5 + 1.5, info.cost) -- only "near" counts at (5,2)
    opts.claim_radius = 9
    _, info = g:find(1, 2, 6, 2, opts)
    assert.are.equal(5 + 2, info.cost) -- both: going around (2 extra steps) is cheaper
    claims:advance("near", 1) -- near's current node is now (5,2), 4 from the start
    opts.claim_radius = 4
    _, info = g:find(1, 2, 6, 2, opts)
    assert.are.equal(5 + 1.5, info.cost)
    opts.claim_radius = 3
    _, info = g:find(1, 2, 6, 2, opts)
    assert.are.equal(5, info.cost)
  end)

  it("never blocks a node", function()
    local g = astar.grid(3, 1)
    local claims = astar.claims(g)
    for u = 1, 20 do claims:claim(u, line(1, 3, 1)) end
    local path, info = g:find(1, 1, 3, 1, { claims = claims, claim_penalty = 1000 })
    assert.are.equal(3, #path)
    assert.are.equal(2 + 2 * 20 * 1000, info.cost)
  end)

  it("spreads units out", function()
    local g = astar.grid(9, 5)
    local claims = astar.claims(g)
    local used = {}
    for u = 1, 3 do
      local path = g:find(1, 3, 9, 3, { claims = claims, unit = u })
      claims:claim(u, path)
      for i = 2, #path - 1 do
        local k = path[i].y * 100 + path[i].x
        used[k] = (used[k] or 0) + 1
      end
    end
    local shared = 0
    for _, n in pairs(used) do if n > 1 then shared = shared + 1 end end
    assert.is_true(shared <= 2)
  end)

  it("checks its arguments", function()
    local g = astar.grid(3, 3)
    local claims = astar.claims(g)
    assert.has_error(function() claims:claim("a", {}) end)
    assert.has_error(function() claims:claim("a", { { x = 4, y = 1 } }) end)
    assert.has_error(function() claims:claim("a", { { x = 1.5, y = 1 } }) end)
    assert.has_error(function() claims:claim("a", { 5 }) end)
    assert.has_error(function() claims:claim(1.5, { { x = 1, y = 1 } }) end)
    assert.has_error(function() claims:claim({}, { { x = 1, y = 1 } }) end)
    assert.has_error(function() claims:advance("a", -1) end)
    assert.has_error(function() claims:count(0, 1) end)
    assert.has_error(function() astar.claims({}) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { claims = astar.claims(astar.grid(2, 2)) }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { claims = claims, unit = 1.5 }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { claims = claims, claim_penalty = -1 }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { claims = claims, claim_radius = -1 }) end)
    assert.has_error(function() g:find(1, 1, 3, 3, { unit = "a" }) end)
    assert.are.equal(0, claims:count(1, 1))
  end)
end)
