-- Island labels in a living world (issue 26): exact after every set_cost, fill and load, in
-- every diagonal mode and on hexes, against an independent flood fill over the oracle's own
-- moves; a goal cut off by a change is "unreachable" with no search; a change costs work in
-- proportion to the side it cuts off, not to the map (counted with the work limit).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261126")
local MODES = { "never", "always", "one_walkable", "no_corner_cut", "hex" }

local function new_world(w, h, mode, value)
  local world = { w = w, h = h, cost = {} }
  if mode == "hex" then world.topology = "hex" else world.diagonal = mode end
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do world.cost[y][x] = value end
  end
  return world
end

local function grid_of(world)
  local g = oracle.grid(astar, world)
  g:component(1, 1) -- the labels built now: what follows changes them
  return g
end

-- The oracle: islands by a flood over the moves oracle.step allows (the corner rules and the
-- hex rows are its, not the library's). comp[y][x] = a number per island, false when blocked.
local function islands(world)
  local comp, n = {}, 0
  for y = 1, world.h do comp[y] = {} end
  for y = 1, world.h do
    for x = 1, world.w do
      if comp[y][x] == nil and oracle.walkable(world, x, y) then
        n = n + 1
        comp[y][x] = n
        local stack = { { x, y } }
        while #stack > 0 do
          local c = table.remove(stack)
          for dy = -1, 1 do
            for dx = -1, 1 do
              local nx, ny = c[1] + dx, c[2] + dy
              if oracle.step(world, c[1], c[2], nx, ny) and comp[ny][nx] == nil then
                comp[ny][nx] = n
                stack[#stack + 1] = { nx, ny }
              end
            end
          end
        end
      end
      if comp[y][x] == nil then comp[y][x] = false end
    end
  end
  return comp, n
end

-- Does the terrain lead from (sx, sy) (blocked or not: a blocked start is left by its moves)
-- to (gx, gy)?
local function oracle_reachable(world, comp, sx, sy, gx, gy)
  local target = comp[gy][gx]
  if not target then return false end
  if comp[sy][sx] then return comp[sy][sx] == target end
  for dy = -1, 1 do
    for dx = -1, 1 do
      local nx, ny = sx + dx, sy + dy
      if oracle.step(world, sx, sy, nx, ny) and comp[ny][nx] == target then return true end
    end
  end
  return false
end

-- find, component and reachable agree with the oracle; a goal on another island costs no
-- search. The finds come first: they see the labels as the change left them.
local function check(world, g, rng, where)
  local comp, n = islands(world)
  local pairs_ = {}
  for i = 1, 12 do
    local sx, sy, gx, gy = rng.int(1, world.w), rng.int(1, world.h), rng.int(1, world.w), rng.int(1, world.h)
    local want = oracle_reachable(world, comp, sx, sy, gx, gy)
    local at = string.format("%s: (%d,%d)->(%d,%d)", where, sx, sy, gx, gy)
    local path, info = g:find(sx, sy, gx, gy)
    assert.are.equal(want, path ~= nil, at)
    if not want then
      assert.are.equal("unreachable", info.status, at)
      -- the labels prove it from a walkable start: no node expanded
      if comp[sy][sx] then assert.are.equal(0, info.expansions, at) end
    end
    pairs_[i] = { sx, sy, gx, gy, want, at }
  end
  local seen, back = {}, {}
  for y = 1, world.h do
    for x = 1, world.w do
      local id = g:component(x, y)
      local want = comp[y][x]
      local at = string.format("%s: component(%d, %d)", where, x, y)
      if not want then
        assert.is_false(id, at)
      else
        assert(type(id) == "number", at)
        -- one library id per oracle island and back: the same partition
        assert.are.equal(seen[want] or id, id, at)
        assert.are.equal(back[id] or want, want, at)
        seen[want], back[id] = id, want
      end
    end
  end
  for _, p in ipairs(pairs_) do
    assert.are.equal(p[5], g:reachable(p[1], p[2], p[3], p[4]), p[6])
  end
  return n
end

local function set(world, g, x, y, v)
  world.cost[y][x] = v
  g:set_cost(x, y, v)
end

-- The units a function's C work takes (the work limit counts them).
local units_of = require("spec.support.work").units_of
local unpack = table.unpack or unpack -- luacheck: ignore 143
local function units(f, ...)
  local args = { n = select("#", ...), ... }
  return units_of(function() f(unpack(args, 1, args.n)) end)
end

describe("island labels through changes", function()
  after_each(function() astar.set_work_limit(nil) end)

  it("random set_cost, fill and load between queries, against a flood fill (every mode, hexes)", function()
    local rng = oracle.rng(SEED)
    local checks = 0
    for _, mode in ipairs(MODES) do
      for wi = 1, scale(14) do
        local w, h = rng.int(3, 10), rng.int(3, 10)
        local world = new_world(w, h, mode, 1)
        local density = 0.2 + rng.next() * 0.4
        for y = 1, h do
          for x = 1, w do world.cost[y][x] = rng.next() >= density and rng.int(1, 3) or false end
        end
        local g = grid_of(world)
        for step = 1, 30 do
          local r = rng.next()
          if r < 0.04 then -- a bulk write
            local v = rng.next() < 0.3 and false or rng.int(1, 2)
            for y = 1, h do for x = 1, w do world.cost[y][x] = v end end
            g:fill(v)
          elseif r < 0.08 then
            local rows = {}
            for y = 1, h do
              local row = {}
              for x = 1, w do
                local blocked = rng.next() < density
                world.cost[y][x] = not blocked and 1
                row[x] = blocked and "#" or "."
              end
              rows[y] = table.concat(row)
            end
            g:load(rows)
          else -- a cell blocked (more often where it is open), opened or re-costed
            local x, y = rng.int(1, w), rng.int(1, h)
            local v = rng.next() < 0.55 and false or rng.int(1, 3)
            set(world, g, x, y, v)
          end
          check(world, g, rng, string.format("%s world %d step %d", mode, wi, step))
          checks = checks + 1
        end
      end
    end
    assert.are.equal(#MODES * scale(14) * 30, checks)
  end)

  -- A room of 5x4 cells in a 40x30 field, its only door at (20, 10) on its top wall.
  local function room_world(mode)
    local world = new_world(40, 30, mode, 1)
    for x = 17, 23 do
      world.cost[10][x] = false
      world.cost[15][x] = false
    end
    for y = 10, 15 do
      world.cost[y][17] = false
      world.cost[y][23] = false
    end
    world.cost[10][20] = 1 -- the door
    return world
  end

  it("a room's only door closes: the room is another island at once, for the cost of the room", function()
    local rng = oracle.rng(SEED + 1)
    for _, mode in ipairs(MODES) do
      local world = room_world(mode)
      local g = grid_of(world)
      assert.is_truthy(g:find(2, 2, 20, 12))
      local used = units(set, world, g, 20, 10, false)
      local _, n = islands(world)
      assert.are.equal(2, n, mode) -- the scene is what it says
      -- The flood of the room (20 cells) in turns with as many of the outside's, and its labels:
      -- far below one pass over the 42 x 32 cells a rebuild would take thrice.
      assert(used <= 8 * 21, mode .. ": set_cost took " .. used .. " units")
      -- No labels rebuilt in a query (a find may pay for other tables: the cost range...).
      assert.are.equal(0, units(function() assert.is_false(g:reachable(2, 2, 20, 12)) end), mode)
      local path, info = g:find(2, 2, 20, 12)
      assert.is_nil(path)
      assert.are.equal("unreachable", info.status)
      assert.are.equal(0, info.expansions, mode) -- not a flood of the outside
      check(world, g, rng, mode .. " door closed")
      set(world, g, 20, 10, 2) -- re-opened
      assert.is_true(g:reachable(2, 2, 20, 12))
      assert.are.equal(g:component(2, 2), g:component(20, 12))
      check(world, g, rng, mode .. " door open")
    end
  end)

  it("a cell whose arms are otherwise apart splits its island in 3 or 4, and joins them again", function()
    local rng = oracle.rng(SEED + 2)
    local cx, cy = 8, 8
    for _, mode in ipairs(MODES) do
      local world = new_world(15, 15, mode, false)
      world.cost[cy][cx] = 1
      local arms
      if mode == "hex" then -- west, and straight up and down from the centre's right diagonals
        local ux = (cy % 2 == 0) and cx + 1 or cx -- even rows (1-based) lean right
        arms = 3
        for i = 1, 6 do
          world.cost[cy][cx - i] = 1
          world.cost[cy - i][ux] = 1
          world.cost[cy + i][ux] = 1
        end
      elseif mode == "always" then -- the diagonals: straight arms would touch at the corners
        arms = 4
        for i = 1, 6 do
          for _, d in ipairs({ { 1, 1 }, { 1, -1 }, { -1, 1 }, { -1, -1 } }) do
            world.cost[cy + d[2] * i][cx + d[1] * i] = 1
          end
        end
      else
        arms = 4
        for i = 1, 6 do
          for _, d in ipairs({ { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } }) do
            world.cost[cy + d[2] * i][cx + d[1] * i] = 1
          end
        end
      end
      local g = grid_of(world)
      assert.are.equal(1, check(world, g, rng, mode .. " whole"))
      set(world, g, cx, cy, false)
      assert.are.equal(arms, check(world, g, rng, mode .. " cut"))
      local ids = {}
      for y = 1, 15 do
        for x = 1, 15 do
          local id = g:component(x, y)
          if id then ids[id] = true end
        end
      end
      local count = 0
      for _ in pairs(ids) do count = count + 1 end
      assert.are.equal(arms, count, mode)
      set(world, g, cx, cy, 1)
      assert.are.equal(1, check(world, g, rng, mode .. " joined"))
      -- cut again, then an arm's end cut off too: islands inside islands
      set(world, g, cx, cy, false)
      set(world, g, cx - 3, cy, false)
      check(world, g, rng, mode .. " cut twice")
    end
  end)

  it("a gate across a passage with a way round costs about the way round, not a ball on each side", function()
    local rng = oracle.rng(SEED + 4)
    for _, mode in ipairs(MODES) do
      -- A wall across a 40 x 40 field from the west border to x = 30, its gate at x = 15: the
      -- way round its free end is about 35 cells.
      local world = new_world(40, 40, mode, 1)
      for x = 1, 30 do world.cost[20][x] = false end
      world.cost[20][15] = 1
      local g = grid_of(world)
      local used = units(set, world, g, 15, 20, false)
      assert.are.equal(1, check(world, g, rng, mode .. " gate closed")) -- still one island
      -- Floods in turns from both sides grew a ball of about 17 cells' radius on each (some
      -- 700 units); walks along the wall's edge take about the way round.
      assert(used > 0 and used <= 4 * 35, mode .. ": set_cost took " .. used .. " units")
      set(world, g, 15, 20, 1)
      check(world, g, rng, mode .. " gate open")
    end
  end)

  it("bulk writes build the labels again at the write: the next query builds nothing", function()
    for _, mode in ipairs(MODES) do
      local world = room_world(mode)
      local g = grid_of(world)
      g:fill(2)
      assert.are.equal(0, units(g.reachable, g, 1, 1, 40, 30), mode)
      local rows = {}
      for y = 1, 30 do rows[y] = (y == 15 and string.rep("#", 40)) or string.rep(".", 40) end
      g:load(rows)
      assert.are.equal(0, units(function() assert.is_false(g:reachable(1, 1, 40, 30)) end), mode)
      assert.are.equal(0, select(2, g:find(1, 1, 40, 30)).expansions, mode)
    end
  end)

  it("a set_cost stopped mid-flood by the work limit still writes; the labels are built on next use", function()
    local rng = oracle.rng(SEED + 3)
    for _, mode in ipairs(MODES) do
      local world = room_world(mode)
      local g = grid_of(world)
      astar.set_work_limit(3) -- the flood needs more: it stops, and set_cost does not raise
      set(world, g, 20, 10, false)
      assert.is_false(g:get_cost(20, 10))
      assert.has_error(function() g:reachable(2, 2, 20, 12) end, "work limit reached")
      astar.set_work_limit(nil)
      assert.is_false(g:reachable(2, 2, 20, 12))
      check(world, g, rng, mode .. " after a stop")
    end
  end)
end)
