-- Random worlds for the property specs, and the query options that make the library see
-- what the oracle (dijkstra.lua) sees in them.
local oracle = require("spec.support.dijkstra")

local M = {}

-- A random world (see dijkstra.lua) of 2..11 x 2..11 cells with the features asked for:
-- layers, claims (windows), node_cost, noise, known, turns, edge_cost, hex; features.w and
-- features.h, when given, fix its size.
function M.random_world(rng, features)
  local w, h = features.w or rng.int(2, 11), features.h or rng.int(2, 11)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  if features.hex then world.topology, world.diagonal = "hex", nil end
  local density = rng.next() * 0.35
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local c = false -- blocked
      if rng.next() >= density then c = rng.next() < 0.4 and 1 or 0.5 + rng.next() * 3.5 end
      world.cost[y][x] = c
    end
  end
  if features.layers then
    world.layers = {}
    for i = 1, rng.int(1, 2) do
      local vals = {}
      for y = 1, h do
        vals[y] = {}
        for x = 1, w do vals[y][x] = rng.next() * 8 - 4 end -- negative values too
      end
      world.layers[i] = { vals = vals, weight = rng.next() * 2 }
    end
  end
  if features.claims then
    world.claims = {}
    for u = 1, rng.int(1, 4) do
      local path = {}
      for i = 1, rng.int(1, 6) do path[i] = { x = rng.int(1, w), y = rng.int(1, h) } end
      world.claims[u] = { unit = (u % 2 == 0) and u or ("u" .. u), path = path, pos = 1 }
    end
    if features.windows then world.claim_window = rng.int(0, 3) end
    world.unit = world.claims[1].unit
    world.claim_penalty = rng.next() * 6
    if rng.next() < 0.5 then world.claim_radius = rng.int(0, 4) end
  end
  if features.node_cost then
    local t = {}
    for y = 1, h do
      t[y] = {}
      for x = 1, w do
        local r = rng.next()
        if r < 0.1 then t[y][x] = false
        elseif r < 0.2 then t[y][x] = math.huge
        elseif r >= 0.3 then t[y][x] = rng.next() * 3 end -- else nil
      end
    end
    world.node_cost = function(x, y) return t[y][x] end
  end
  if features.noise then
    world.noise, world.seed = rng.next() * 3, rng.int(-5, 2 ^ 33)
  end
  if features.known then
    world.known = {}
    local share = rng.next()
    for y = 1, h do
      world.known[y] = {}
      for x = 1, w do world.known[y][x] = rng.next() < share end
    end
  end
  if features.turns then world.turn_penalty = rng.next() * 3 end
  if features.edge_cost then
    local salt = rng.int(1, 1000)
    world.edge_cost = function(x, y, fx, fy)
      local k = (x * 31 + y * 17 + fx * 7 + fy * 3 + salt) % 23
      if k == 0 then return false end
      if k == 1 then return nil end
      return (k % 5) * 0.3
    end
  end
  return world
end

-- Each of the features random_world can give, drawn on its own (every option combined, now
-- and then): the mix of the property specs.
-- A world of min..max x min..max cells (a fifth of them hexes) whose costs are walls (a fifth)
-- or multiples of 0.5 up to 3.5: sums that stay exact, for specs whose bounds must not land on
-- a cost.
function M.halves_world(rng, min, max)
  local w, h = rng.int(min, max), rng.int(min, max)
  local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
  if rng.next() < 0.2 then world.topology, world.diagonal = "hex", nil end
  for y = 1, h do
    world.cost[y] = {}
    for x = 1, w do
      local r = rng.next()
      world.cost[y][x] = r < 0.2 and false or (r < 0.5 and 0.5 + rng.int(0, 6) / 2 or 1)
    end
  end
  return world
end

-- Classes 0..3 on every cell of the world, and a query's table of factors (world.classes, also
-- returned): a class walled (false), left out (factor 1), cheaper than the terrain (the
-- heuristic must scale) or dearer; with `unheld`, now and then a class past 3 that no cell has.
function M.add_classes(rng, world, unheld)
  world.class = {}
  for y = 1, world.h do
    world.class[y] = {}
    for x = 1, world.w do world.class[y][x] = rng.int(0, 3) end
  end
  local classes = {}
  for c = 0, 3 do
    local r = rng.next()
    if r < 0.2 then classes[c] = false
    elseif r < 0.4 then classes[c] = nil
    elseif r < 0.6 then classes[c] = 0.1 + rng.next() * 0.8
    else classes[c] = 1 + rng.next() * 4 end
  end
  if unheld and rng.next() < 0.2 then classes[200] = 0.05 end
  world.classes = classes
  return classes
end

function M.random_features(rng)
  return {
    layers = rng.next() < 0.35, claims = rng.next() < 0.35,
    node_cost = rng.next() < 0.3, edge_cost = rng.next() < 0.3, known = rng.next() < 0.25,
    noise = rng.next() < 0.25, hex = rng.next() < 0.2,
  }
end

-- The options of a query on grid that sees what the world's oracle sees.
function M.query_opts(astar_mod, grid, world)
  local opts = {}
  if world.layers then
    local list = {}
    for i, l in ipairs(world.layers) do
      local inf = astar_mod.influence(world.w, world.h)
      for y = 1, world.h do
        for x = 1, world.w do inf:set(x, y, l.vals[y][x]) end
      end
      list[i] = { inf, l.weight }
    end
    if #list == 1 then
      opts.influence, opts.influence_weight = list[1][1], list[1][2]
    else
      opts.influence = list
    end
  end
  if world.claims then
    local claims = astar_mod.claims(grid)
    for _, c in ipairs(world.claims) do claims:claim(c.unit, c.path) end
    opts.claims, opts.unit = claims, world.unit
    opts.claim_penalty, opts.claim_radius = world.claim_penalty, world.claim_radius
    opts.claim_window = world.claim_window
  end
  opts.turn_penalty = world.turn_penalty
  opts.node_cost, opts.edge_cost = world.node_cost, world.edge_cost
  opts.noise, opts.seed = world.noise, world.seed
  if world.known then opts.known = oracle.mask(astar_mod, world) end
  return opts
end

return M
