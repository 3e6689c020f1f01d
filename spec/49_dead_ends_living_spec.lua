-- Dead ends in a living world (issue 26): the areas follow the terrain cell by cell instead of
-- being built again inside the next query. Random small worlds full of dead ends (mazes, rooms
-- off corridors) get random gates toggled, costs written and fills between queries; every
-- query's cost (dead_ends at its default) is the brute-force oracle's, and every area
-- grid:dead_end names is cut off from the rest by its gateway (a flood here, on the terrain).
-- Set ASTAR_SEED to replay another sequence.
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local worlds = require("spec.support.worlds")
local dead = require("spec.support.dead_ends")
local scale = require("spec.support.scale")

local SEED = tonumber(os.getenv("ASTAR_SEED") or "20261126")

local function open(world, x, y)
  if x < 1 or y < 1 or x > world.w or y > world.h then return false end
  local c = world.cost[y][x]
  return c ~= false and c ~= math.huge
end

-- The areas grid:dead_end names, as a tree: an area's parent is the one its gateway is in
-- (a gateway is a cell of the area around it). Every area A must be cut off by its gateway G:
-- a flood from the cells in A (in it or in an area inside it) that never enters G reaches no
-- cell outside A. Returns the number of cells in areas.
local function check_separated(grid, world)
  local rep, gate, parent, inside = {}, {}, {}, 0
  local function key(x, y) return y * 65536 + x end
  for y = 1, world.h do
    for x = 1, world.w do
      local area, gx, gy = grid:dead_end(x, y)
      if area then
        assert(open(world, x, y), ("(%d,%d) is blocked but in area %d"):format(x, y, area))
        assert(open(world, gx, gy), ("area %d's gateway (%d,%d) is blocked"):format(area, gx, gy))
        local g = gate[area]
        assert(not g or (g[1] == gx and g[2] == gy), ("area %d has two gateways"):format(area))
        gate[area] = { gx, gy }
        rep[key(x, y)] = area
        inside = inside + 1
      end
    end
  end
  for area, g in pairs(gate) do parent[area] = rep[key(g[1], g[2])] or false end
  local function within(cell, area) -- whether the cell's chain of areas holds `area`
    local a, steps = rep[cell], 0
    while a do
      if a == area then return true end
      a, steps = parent[a], steps + 1
      assert(steps <= world.w * world.h, "the areas' parents go round")
    end
    return false
  end
  for area, g in pairs(gate) do
    assert(not within(key(g[1], g[2]), area), ("area %d holds its own gateway"):format(area))
    local seen, todo = {}, {}
    for y = 1, world.h do
      for x = 1, world.w do
        if within(key(x, y), area) then
          seen[key(x, y)] = true
          todo[#todo + 1] = { x, y }
        end
      end
    end
    while #todo > 0 do
      local c = table.remove(todo)
      for _, n in ipairs(dead.neighbours(world, c[1], c[2])) do
        local k = key(n[1], n[2])
        if open(world, n[1], n[2]) and not seen[k] and not (n[1] == g[1] and n[2] == g[2]) then
          assert(within(k, area), ("area %d (gateway %d,%d) reaches (%d,%d) without its gateway")
            :format(area, g[1], g[2], n[1], n[2]))
          seen[k] = true
          todo[#todo + 1] = n
        end
      end
    end
  end
  return inside
end

local function open_cell(rng, world)
  for _ = 1, 50 do
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    if open(world, x, y) then return x, y end
  end
  return rng.int(1, world.w), rng.int(1, world.h)
end

local function write(grid, world, x, y, c)
  world.cost[y][x] = c
  grid:set_cost(x, y, c)
end

-- One random change of the terrain: a gate of 1 to 3 cells in a row shut or opened (most of
-- the time), a cell's cost, or (rarely) a fill followed by new terrain cell by cell.
local function change(rng, grid, world)
  local r = rng.next()
  if r < 0.7 then
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    local across, shut = rng.next() < 0.5, rng.next() < 0.5
    for i = 0, rng.int(0, 2) do
      local cx, cy = across and x + i or x, across and y or y + i
      if cx <= world.w and cy <= world.h then write(grid, world, cx, cy, not shut and 1 or false) end
    end
  elseif r < 0.95 then
    local x, y = rng.int(1, world.w), rng.int(1, world.h)
    write(grid, world, x, y, rng.next() < 0.5 and false or 0.5 + rng.next() * 3)
  else
    grid:fill(1)
    for y = 1, world.h do for x = 1, world.w do world.cost[y][x] = 1 end end
    local fresh = dead.carve(rng, { w = world.w, h = world.h })
    for y = 1, world.h do
      for x = 1, world.w do write(grid, world, x, y, fresh.cost[y][x]) end
    end
  end
end

describe("dead ends in a living world", function()
  it("queries between terrain changes cost what the oracle says (every mode, hexes, influence, claims)",
    function()
      local rng = oracle.rng(SEED)
      local checked, modes, inside = 0, {}, 0
      for n = 1, scale(90) do
        local features = { layers = rng.next() < 0.35, claims = rng.next() < 0.35, hex = rng.next() < 0.2 }
        local world = worlds.random_world(rng, features)
        dead.carve(rng, world)
        local grid = oracle.grid(astar, world)
        local opts = worlds.query_opts(astar, grid, world)
        if not world.topology and rng.next() < 0.3 then -- a mode of its own: that mode's areas
          world.diagonal = oracle.DIAGONALS[rng.int(1, 4)]
          opts.diagonal = world.diagonal
        end
        local mode = world.topology or world.diagonal
        modes[mode] = (modes[mode] or 0) + 1
        opts.jump = rng.next() < 0.5 and false or nil
        grid:find(1, 1, world.w, world.h, opts) -- the first use builds the areas
        for step = 1, 14 do
          for _ = 1, rng.int(1, 3) do change(rng, grid, world) end
          local sx, sy = open_cell(rng, world)
          local gx, gy = open_cell(rng, world)
          local where = ("world %d (%dx%d %s) step %d: %d,%d -> %d,%d"):format(n, world.w, world.h,
            mode, step, sx, sy, gx, gy)
          local want = oracle.cost(world, sx, sy, gx, gy)
          local path, info = grid:find(sx, sy, gx, gy, opts)
          if want then
            assert(path and oracle.near(info.cost, want), where .. ": " .. tostring(info and info.cost)
              .. " ~= " .. want)
            assert(oracle.near(oracle.path_cost(world, path), want), where .. ": the path walks another cost")
            checked = checked + 1
          else
            assert(path == nil, where .. ": a path where the oracle has none")
          end
          if step % 5 == 0 and not opts.diagonal then inside = inside + check_separated(grid, world) end
        end
      end
      assert.is_true(checked > scale(600), "only " .. checked .. " paths")
      assert.is_true(inside > scale(500), "only " .. inside .. " cells in dead ends")
      for _, m in ipairs({ "never", "always", "one_walkable", "no_corner_cut", "hex" }) do
        assert.is_true((modes[m] or 0) > scale(4), m)
      end
    end)

  it("jobs and find_nearest follow the changes too", function()
    local rng = oracle.rng(SEED + 1)
    for n = 1, scale(40) do
      local world = worlds.random_world(rng, { hex = rng.next() < 0.2 })
      dead.carve(rng, world)
      local grid = oracle.grid(astar, world)
      grid:find(1, 1, world.w, world.h, { jump = false })
      for step = 1, 8 do
        change(rng, grid, world)
        local sx, sy = open_cell(rng, world)
        local gx, gy = open_cell(rng, world)
        local tx, ty = open_cell(rng, world)
        local where = ("world %d step %d"):format(n, step)
        local job = grid:search(sx, sy, gx, gy)
        while job:status() == "running" do job:step(rng.int(1, 5)) end
        local path, info = job:result()
        local want = oracle.cost(world, sx, sy, gx, gy)
        if want then assert(path and oracle.near(info.cost, want), where .. " (job)") else assert.is_nil(path) end
        local best
        for _, t in ipairs({ { gx, gy }, { tx, ty } }) do
          local c = oracle.cost(world, sx, sy, t[1], t[2])
          if c and (not best or c < best) then best = c end
        end
        path, info = grid:find_nearest(sx, sy, { { x = gx, y = gy }, { x = tx, y = ty } })
        if best then assert(path and oracle.near(info.cost, best), where .. " (nearest)") else assert.is_nil(path) end
      end
      check_separated(grid, world)
    end
  end)

  -- The oracle's distances (its steps: oracle.step) with a binary heap instead of its scan for
  -- the nearest cell, which costs a quarter of a second on a world of several thousand cells.
  local function distances(world, sx, sy)
    local dist, heap = {}, { { 0, sx, sy } }
    for y = 1, world.h do
      dist[y] = {}
      for x = 1, world.w do dist[y][x] = math.huge end
    end
    dist[sy][sx] = 0
    local function less(a, b) return a[1] < b[1] end
    while #heap > 0 do
      local top = heap[1]
      local last = table.remove(heap)
      if #heap > 0 then -- sift last down from the root
        local i = 1
        while true do
          local l, r, m = 2 * i, 2 * i + 1, i
          heap[i] = last
          if heap[l] and less(heap[l], heap[m]) then m = l end
          if heap[r] and less(heap[r], heap[m]) then m = r end
          if m == i then break end
          heap[i], heap[m] = heap[m], last
          i = m
        end
      end
      local d, bx, by = top[1], top[2], top[3]
      if d == dist[by][bx] then
        for dy = -1, 1 do
          for dx = -1, 1 do
            local nx, ny = bx + dx, by + dy
            local st = oracle.step(world, bx, by, nx, ny, sx, sy)
            if st and d + st < dist[ny][nx] then
              dist[ny][nx] = d + st
              heap[#heap + 1] = { d + st, nx, ny } -- sift up
              local i = #heap
              local up = math.floor(i / 2) -- (no // before Lua 5.3)
              while i > 1 and less(heap[i], heap[up]) do
                heap[i], heap[up] = heap[up], heap[i]
                i, up = up, math.floor(up / 2)
              end
            end
          end
        end
      end
    end
    return dist
  end

  -- A workspace's view of the areas' bits is copied a page (4,096 cells) at a time as searches
  -- read it (issue 27): worlds of several pages, searches that start, end and stop in different
  -- ones, jobs stepped in slices across changes (which leave the view) and fills (a rebuild).
  it("worlds of several pages of the view: finds and jobs in slices across changes", function()
    local rng = oracle.rng(SEED + 2)
    local checked = 0
    for n = 1, scale(4) do
      local world = worlds.random_world(rng, { w = rng.int(150, 220), h = rng.int(80, 120) })
      dead.carve(rng, world)
      local grid = oracle.grid(astar, world)
      local opts = { jump = false }
      grid:find(1, 1, world.w, world.h, opts)
      for step = 1, 4 do
        local sx, sy = open_cell(rng, world)
        local gx, gy = open_cell(rng, world)
        local tx, ty = open_cell(rng, world)
        local job = grid:search(sx, sy, gx, gy, opts)
        job:step(rng.int(1, 40))
        if rng.next() < 0.7 then change(rng, grid, world) end -- between its slices
        while job:status() == "running" do job:step(rng.int(20, 400)) end
        local dist = distances(world, sx, sy) -- the terrain as it is now
        local where = ("world %d (%dx%d) step %d"):format(n, world.w, world.h, step)
        for _, q in ipairs({ { gx, gy, job:result() }, { tx, ty, grid:find(sx, sy, tx, ty, opts) } }) do
          local want = world.cost[q[2]][q[1]] and dist[q[2]][q[1]] or math.huge
          if want < math.huge then
            assert(q[3] and oracle.near(q[4].cost, want), where)
            checked = checked + 1
          else
            assert.is_nil(q[3], where)
          end
        end
      end
    end
    assert.is_true(checked > scale(4) * 3, "only " .. checked .. " paths")
  end)

  it("the first query after a gate toggles does no whole-map work (work units, not time)", function()
    -- A corridor three cells wide along 200 x 25 cells, a room with one door every four cells
    -- on either side (100 areas); the gate: two cells across the corridor at x = 100, of cost 2
    -- when open (neither the cheapest nor the dearest: the cost range stays as it was, whose
    -- recount is a pass over the cells of its own).
    local rows = {}
    for y = 1, 25 do
      local row = {}
      for x = 1, 200 do
        local room = x % 4 ~= 0 and (y <= 10 or y >= 16)
        local door = x % 4 == 2 and (y == 11 or y == 15)
        row[x] = (y >= 12 and y <= 14 or room or door) and "." or "#"
      end
      rows[y] = table.concat(row)
    end
    local world = oracle.world_from_rows(rows, "no_corner_cut")
    world.cost[1][1] = 3
    world.cost[12][100], world.cost[13][100] = 2, 2
    local grid = oracle.grid(astar, world)
    local mid = 13
    local inf = astar.influence(world.w, world.h)
    for y = 1, world.h do for x = 1, world.w do inf:set(x, y, (x * 7 + y * 3) % 5) end end
    local function units(opts)
      local path
      local used = require("spec.support.work").units_of(function() path = grid:find(1, mid, world.w, mid, opts) end)
      return used, path
    end
    assert.is_truthy(grid:dead_end(2, 2))
    for _, opts in ipairs({ { jump = false }, { influence = inf } }) do
      units(opts) -- the first use of a workspace (and of the areas): whole-map work
      for toggle = 1, 6 do
        local shut = toggle % 2 == 1
        for y = 12, 13 do grid:set_cost(100, y, shut and math.huge or 2) end
        local first, path = units(opts)
        local again = units(opts)
        assert.is_truthy(path)
        -- the old rebuild alone was two units a cell (10.9k) plus one per open cell
        assert.is_true(first <= again + 64, ("toggle %d: %d units, then %d"):format(toggle, first, again))
      end
    end
  end)
end)
