-- claim_window: claims over time, and turn_penalty. Both make a step's cost depend
-- on the way in, so the oracle here is the state-space Dijkstra (oracle.exact_cost).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

-- A corridor (row 4, x = 1..30) with a longer bypass over the top (rows 1-3) and an
-- open yard to the right (x = 31..80, rows 4-6).
local function corridor_world()
  local rows = {}
  for y = 1, 6 do
    local row = {}
    for x = 1, 80 do
      local open
      if y == 1 then open = x <= 30
      elseif y <= 3 then open = x == 1 or x == 30
      elseif y == 4 then open = true
      else open = x >= 31 end
      row[x] = open and "." or "#"
    end
    rows[y] = table.concat(row)
  end
  return oracle.world_from_rows(rows, "no_corner_cut"), rows
end

-- Where a unit that follows path stands at step t (it stays on its last node).
local function at(path, t)
  return path[math.min(t + 1, #path)]
end

-- The first step at which two units following their paths from the same moment share a
-- node or swap nodes, or nil.
local function collision(a, b)
  for t = 0, math.max(#a, #b) do
    local a0, b0, a1, b1 = at(a, t), at(b, t), at(a, t + 1), at(b, t + 1)
    if a0.x == b0.x and a0.y == b0.y then return t end
    if a0.x == b1.x and a0.y == b1.y and a1.x == b0.x and a1.y == b0.y then return t end
  end
  return nil
end

local function uses_corridor(path)
  for _, p in ipairs(path) do
    if p.y == 4 and p.x >= 2 and p.x <= 29 then return true end
  end
  return false
end

describe("claim_window", function()
  local world, rows = corridor_world()
  local grid = astar.grid(80, 6)
  grid:load(rows)
  local claims = astar.claims(grid)
  local a_path = assert(grid:find(1, 4, 31, 6))
  claims:claim("A", a_path)
  world.claims = { { unit = "A", path = a_path, pos = 1 } }
  world.unit, world.claim_penalty = "B", 5

  it("lets a unit use a corridor the other has left by the time it gets there", function()
    -- B starts 50 steps from the corridor: A, 29 steps through it, is long gone.
    local plain = assert(grid:find(80, 4, 1, 4))
    local stiff, sinfo = grid:find(80, 4, 1, 4, { claims = claims, unit = "B" })
    local timed, tinfo = grid:find(80, 4, 1, 4, { claims = claims, unit = "B", claim_window = 2 })
    assert.is_false(uses_corridor(stiff)) -- without windows every claimed node repels B
    assert.is_true(uses_corridor(timed))
    assert.is_true(sinfo.cost > tinfo.cost + 5)
    assert.are.equal(#plain - 1, tinfo.cost) -- no penalty left: no claim is near in time
    assert.is_nil(collision(a_path, timed))
    world.claim_window = 2
    assert(oracle.near(tinfo.cost, oracle.exact_cost(world, 80, 4, 1, 4)))
    assert(oracle.near(oracle.path_cost(world, timed), tinfo.cost))
    world.claim_window = nil
    assert(oracle.near(sinfo.cost, oracle.cost(world, 80, 4, 1, 4)))
  end)

  it("still keeps two units from meeting head-on inside it", function()
    -- B starts 9 steps from the corridor: straight through, it would meet A in the middle.
    local plain = assert(grid:find(40, 4, 1, 4))
    assert.is_not_nil(collision(a_path, plain))
    local timed, tinfo = grid:find(40, 4, 1, 4, { claims = claims, unit = "B", claim_window = 2 })
    assert.is_nil(collision(a_path, timed))
    assert.is_false(uses_corridor(timed))
    world.claim_window = 2
    assert(oracle.near(tinfo.cost, oracle.exact_cost(world, 40, 4, 1, 4)))
    world.claim_window = nil
  end)

  it("counts a unit's last node for every later step, and window 0 exactly at its time", function()
    local g = astar.grid(5, 1)
    local c = astar.claims(g)
    c:claim("parked", { { x = 3, y = 1 } }) -- stands on (3,1) for good
    local _, info = g:find(1, 1, 5, 1, { claims = c, claim_window = 0, claim_penalty = 7 })
    assert.are.equal(4 + 7, info.cost)
    c:claim("walker", { { x = 5, y = 1 }, { x = 4, y = 1 }, { x = 3, y = 1 }, { x = 2, y = 1 }, { x = 1, y = 1 } })
    c:release("parked")
    -- we enter (2,1) at step 1, (3,1) at 2, (4,1) at 3, (5,1) at 4; walker is there at
    -- steps 3, 2, 1, 0: we meet on (3,1), and within 2 steps on (2,1) and (4,1)
    local want = { [0] = 1, 1, 3, 3, 4 }
    for w = 0, 4 do
      local _, windowed = g:find(1, 1, 5, 1, { claims = c, claim_window = w, claim_penalty = 7 })
      assert.are.equal(4 + 7 * want[w], windowed.cost, "window " .. w)
    end
    -- own claims never count
    local _, own = g:find(1, 1, 5, 1, { claims = c, unit = "walker", claim_window = 1 })
    assert.are.equal(4, own.cost)
  end)

  it("rejects bad values", function()
    local g = astar.grid(3, 3)
    local c = astar.claims(g)
    for _, bad in ipairs({ -1, 1.5, "2", math.huge * 0, true }) do
      assert.has_error(function() g:find(1, 1, 3, 3, { claims = c, claim_window = bad }) end)
    end
    assert.has_error(function() g:find(1, 1, 3, 3, { claim_window = 2 }) end,
      "bad argument #5 to 'find' (option 'claim_window' needs option 'claims')")
  end)
end)

describe("turn_penalty", function()
  local function turns(path)
    local n = 0
    for i = 3, #path do
      local dx1, dy1 = path[i - 1].x - path[i - 2].x, path[i - 1].y - path[i - 2].y
      local dx2, dy2 = path[i].x - path[i - 1].x, path[i].y - path[i - 1].y
      if dx1 ~= dx2 or dy1 ~= dy2 then n = n + 1 end
    end
    return n
  end

  it("takes fewer turns among obstacles", function()
    local rng = oracle.rng(17)
    local plain_turns, fewer_turns = 0, 0
    for _ = 1, scale(30) do
      local g = astar.grid(24, 24, { diagonal = "never" })
      for _ = 1, 60 do g:set_cost(rng.int(2, 23), rng.int(2, 23), false) end
      local plain = g:find(1, 1, 24, 24)
      local smooth = g:find(1, 1, 24, 24, { turn_penalty = 3 })
      plain_turns, fewer_turns = plain_turns + turns(plain), fewer_turns + turns(smooth)
    end
    assert.is_true(fewer_turns < 0.5 * plain_turns, fewer_turns .. " turns vs " .. plain_turns)
  end)

  it("costs what the state-space oracle says on open ground", function()
    local g = astar.grid(30, 30, { diagonal = "never" })
    local _, pinfo = g:find(1, 1, 30, 30)
    local straight, sinfo = g:find(1, 1, 30, 30, { turn_penalty = 2 })
    assert.are.equal(1, turns(straight))
    assert.are.equal(pinfo.cost + 2, sinfo.cost)
    local world = oracle.world_from_rows((function()
      local r = {}
      for y = 1, 30 do r[y] = string.rep(".", 30) end
      return r
    end)(), "never")
    world.turn_penalty = 2
    assert(oracle.near(sinfo.cost, oracle.exact_cost(world, 1, 1, 30, 30)))
  end)

  it("0 is the plain search; hex turns are turns between hex directions", function()
    local g = astar.grid(12, 9)
    local a, ai = g:find(1, 1, 12, 9)
    local b, bi = g:find(1, 1, 12, 9, { turn_penalty = 0 })
    assert.are.same(a, b)
    assert.are.equal(ai.cost, bi.cost)
    -- a straight hex line changes square direction every row but never turns
    local hex = astar.grid(9, 9, { topology = "hex" })
    local line, info = hex:find(1, 1, 5, 9, { turn_penalty = 5 })
    assert.are.equal(8, info.cost)
    assert.are.equal(9, #line)
  end)

  it("keeps info.cost the cost of the path under an inconsistent heuristic too", function()
    -- A custom heuristic may be inconsistent, which makes the search reopen nodes; a node
    -- reopened with a new heading would leave what was reached through it costed for the
    -- old one.
    local rng = oracle.rng(555)
    for n = 1, scale(200) do
      local w, h = rng.int(3, 9), rng.int(3, 9)
      local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)], turn_penalty = rng.next() * 4 }
      for y = 1, h do
        world.cost[y] = {}
        for x = 1, w do world.cost[y][x] = rng.next() < 0.2 and false or rng.int(1, 4) end
      end
      local grid = oracle.grid(astar, world)
      local salt = rng.int(1, 100)
      local function wobble(x, y, gx, gy)
        return ((x * 31 + y * 17 + salt) % 7) / 7 * math.max(math.abs(x - gx), math.abs(y - gy))
      end
      local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
      local path, info = grid:find(sx, sy, gx, gy, { heuristic = wobble, turn_penalty = world.turn_penalty })
      if path then
        assert(oracle.near(oracle.path_cost(world, path), info.cost), "world " .. n)
        assert(info.cost >= oracle.exact_cost(world, sx, sy, gx, gy) - 1e-9, "world " .. n)
      else
        assert.is_nil(oracle.exact_cost(world, sx, sy, gx, gy))
      end
    end
  end)

  it("rejects bad values", function()
    local g = astar.grid(3, 3)
    for _, bad in ipairs({ -1, math.huge, 0 / 0, "1" }) do
      assert.has_error(function() g:find(1, 1, 3, 3, { turn_penalty = bad }) end)
    end
  end)
end)
