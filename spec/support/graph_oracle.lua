-- The independent oracle for graphs: a brute-force Dijkstra written plainly
-- from docs/contract.md's step-cost rule, over plain Lua data. It never calls the
-- library's search.
--
-- A world:
--   { n = node count, pos = { {x, y, z}, ... },
--     arcs = { [a] = { [b] = cost } },             -- directed; an edge is two entries
--     blocked = { [id] = true },
--     layers = { {vals = { [id] = v }, weight = w}, ... },
--     claims = { {unit = key, path = {ids}, pos = i}, ... },
--     unit = key, claim_penalty = p, claim_radius = r,
--     node_cost = function(id), edge_cost = function(id, from_id),
--     noise = amount, seed = s }
local grid_oracle = require("spec.support.dijkstra") -- the noise formula and the rounding
local M = {}

-- A callback's value: nil -> 0, false or math.huge -> nil (blocked).
local function extra_of(v)
  if v == nil then return 0 end
  if v == false or v == math.huge then return nil end
  return v
end

M.round_up = grid_oracle.round_up
M.round_down = grid_oracle.round_down

function M.distance(world, a, b)
  local p, q = world.pos[a], world.pos[b]
  local dx, dy, dz = p[1] - q[1], p[2] - q[2], (p[3] or 0) - (q[3] or 0)
  return math.sqrt(dx * dx + dy * dy + dz * dz)
end

-- Other units claiming node id, as the query from `start` sees them.
local function claim_count(world, id, start)
  local n = 0
  for _, c in ipairs(world.claims or {}) do
    local in_range = world.claim_radius == nil or M.distance(world, c.path[c.pos], start) <= world.claim_radius
    if c.unit ~= world.unit and in_range then
      for i = c.pos, #c.path do
        if c.path[i] == id then
          n = n + 1
          break -- once per unit
        end
      end
    end
  end
  return n
end

-- Can the query enter node id at all (not blocked, node_cost not false)?
function M.enterable(world, id)
  if world.blocked and world.blocked[id] then return false end
  if world.node_cost and extra_of(world.node_cost(id)) == nil then return false end
  return true
end

-- Cost of the step a -> b, or nil when there is no such step.
function M.step(world, a, b, start)
  local cost = world.arcs[a] and world.arcs[a][b]
  if not cost or not M.enterable(world, b) then return nil end
  local p = 0
  for _, layer in ipairs(world.layers or {}) do p = p + layer.vals[b] * (layer.weight or 1) end
  p = p + (world.claim_penalty or 5) * claim_count(world, b, start)
  if world.noise then p = p + world.noise * grid_oracle.noise(world.seed or 0, b - 1, 0) end
  if world.node_cost then p = p + extra_of(world.node_cost(b)) end
  if world.edge_cost then
    local e = extra_of(world.edge_cost(b, a))
    if e == nil then return nil end
    p = p + e
  end
  return grid_oracle.round_up(cost + math.max(0, p))
end

-- Optimal costs from start to every node (math.huge when unreachable). query_start, default
-- start: the start of the query whose costs these are (claim_radius is counted from it), for
-- the legs of a path that starts elsewhere.
function M.distances(world, start, query_start)
  query_start = query_start or start
  local dist, done = {}, {}
  for i = 1, world.n do dist[i] = math.huge end
  dist[start] = 0
  while true do
    local best, a = math.huge, nil
    for i = 1, world.n do
      if not done[i] and dist[i] < best then best, a = dist[i], i end
    end
    if not a then break end
    done[a] = true
    for b in pairs(world.arcs[a] or {}) do
      local s = M.step(world, a, b, query_start)
      if s and best + s < dist[b] then dist[b] = best + s end
    end
  end
  return dist
end

-- A distance field: each node's cost from the nearest of sources (a list of ids; claim_radius
-- counts from sources[1]), only those at most max_cost (default: all reached): { [id] = cost }.
function M.field(world, sources, max_cost)
  local out = {}
  for _, s in ipairs(sources) do
    for id, d in pairs(M.distances(world, s, sources[1])) do
      if d < math.huge and d <= (max_cost or math.huge) and (out[id] == nil or d < out[id]) then out[id] = d end
    end
  end
  return out
end

-- A field toward sources: each node's cost to the nearest source it may enter, as a find from
-- that node would count it (one Dijkstra per node: the oracle knows no reversed arcs), only those
-- at most max_cost: { [id] = cost }.
function M.field_toward(world, sources, max_cost)
  local out = {}
  for v = 1, world.n do
    local from = M.distances(world, v)
    for _, s in ipairs(sources) do
      local d = from[s]
      if M.enterable(world, s) and d < math.huge and d <= (max_cost or math.huge) and (out[v] == nil or d < out[v]) then
        out[v] = d
      end
    end
  end
  return out
end

-- The optimal cost from start to goal, or nil when there is no path.
function M.cost(world, start, goal)
  if not M.enterable(world, goal) then return nil end
  local d = M.distances(world, start)[goal]
  if d == math.huge then return nil end
  return d
end

-- The best score of a query from start to goal that may collect one of interests
-- ({{id=, value=}, ...}) on the way: min(d(s, g), min_i d(s, i) + d(i, g) - value_i), each
-- value rounded down as the search counts it, or nil when the goal cannot be reached.
function M.interest_score(world, start, goal, interests)
  if not M.enterable(world, goal) then return nil end
  local from_start = M.distances(world, start)
  local best = from_start[goal]
  for _, it in ipairs(interests) do
    if from_start[it.id] < math.huge and M.enterable(world, it.id) then
      local score = from_start[it.id] + M.distances(world, it.id, start)[goal] - grid_oracle.round_down(it.value)
      if score < best then best = score end
    end
  end
  if best == math.huge then return nil end
  return best
end

-- Checks a path of node ids step by step and returns its cost; errors on an illegal step.
function M.path_cost(world, ids, start)
  start = start or ids[1]
  local total = 0
  for i = 2, #ids do
    local s = M.step(world, ids[i - 1], ids[i], start)
    if not s then error(string.format("illegal step %d: %d -> %d", i - 1, ids[i - 1], ids[i]), 2) end
    total = total + s
  end
  return total
end

-- A real graph with the world's nodes, arcs and blocked nodes. Arcs with a
-- `default` mark are added without a cost (the library's default: the distance).
function M.graph(astar, world)
  local g = astar.graph()
  for i = 1, world.n do
    local p = world.pos[i]
    assert(g:add_node(p[1], p[2], p[3]) == i)
  end
  for a = 1, world.n do
    for b, cost in pairs(world.arcs[a] or {}) do
      if world.default and world.default[a] and world.default[a][b] then
        g:add_arc(a, b)
      else
        g:add_arc(a, b, cost)
      end
    end
  end
  for id in pairs(world.blocked or {}) do g:set_blocked(id, true) end
  return g
end

-- A random world of n nodes (in a 20 x 20 square) and its real graph, drawn from rng: n to 3n
-- edges, each costing its length times 1 to 2 times `scale` (default 1), and about one node in
-- ten blocked. The interests specs (40, 44) draw theirs so.
function M.random_world(astar, rng, n, scale)
  local world = { n = n, pos = {}, arcs = {}, blocked = {} }
  local g = astar.graph()
  for i = 1, n do
    world.pos[i] = { rng.next() * 20, rng.next() * 20, 0 }
    world.arcs[i] = {}
    g:add_node(world.pos[i][1], world.pos[i][2])
  end
  for _ = 1, rng.int(n, 3 * n) do
    local a, b = rng.int(1, n), rng.int(1, n)
    if a ~= b then
      local cost = M.distance(world, a, b) * (1 + rng.next()) * (scale or 1)
      g:add_edge(a, b, cost)
      world.arcs[a][b], world.arcs[b][a] = cost, cost
    end
  end
  for i = 1, n do
    if rng.next() < 0.1 then
      world.blocked[i] = true
      g:set_blocked(i, true)
    end
  end
  return world, g
end

-- Draws a random world's callbacks and noise into opts (and the same into world, for the
-- oracle): a node_cost (some nodes blocked, some nil), an edge_cost memoised per arc (some
-- arcs blocked), noise with a seed, each or none.
function M.random_callbacks(rng, world, opts)
  local n = world.n
  if rng.next() < 0.3 then
    local t = {}
    for i = 1, n do t[i] = rng.next() < 0.1 and false or (rng.next() < 0.3 and nil or rng.next() * 3) end
    world.node_cost = function(id) return t[id] end
    opts.node_cost = world.node_cost
  end
  if rng.next() < 0.25 then
    local e = {}
    world.edge_cost = function(id, from)
      local k = from * (n + 1) + id
      if e[k] == nil then e[k] = rng.next() < 0.1 and math.huge or rng.next() * 2 end
      return e[k]
    end
    opts.edge_cost = world.edge_cost
  end
  if rng.next() < 0.15 then
    world.noise, world.seed = rng.next() * 3, rng.int(0, 1000)
    opts.noise, opts.seed = world.noise, world.seed
  end
end

-- Random per-query cost options for a graph query on g (astar's) and the same in world, for the
-- oracle: a layer, claims, callbacks; range: claim_radius may be drawn (a range has a start).
function M.random_options(astar, rng, world, g, range)
  local n, opts = world.n, {}
  if rng.next() < 0.3 then
    local vals = {}
    for i = 1, n do vals[i] = rng.next() * 6 - 2 end
    local w = 0.5 + rng.next() * 2
    world.layers = { { vals = vals, weight = w } }
    opts.influence, opts.influence_weight = vals, w
  end
  if rng.next() < 0.3 then
    local claims = astar.claims(g)
    world.claims = {}
    for u = 1, rng.int(1, 3) do
      local path = {}
      for k = 1, rng.int(1, 4) do path[k] = rng.int(1, n) end
      claims:claim(u, path)
      world.claims[u] = { unit = u, path = path, pos = 1 }
    end
    opts.claims = claims
    if rng.next() < 0.5 then opts.unit, world.unit = 1, 1 end
    if rng.next() < 0.5 then
      opts.claim_penalty = rng.next() * 6
      world.claim_penalty = opts.claim_penalty
    end
    if range and rng.next() < 0.4 then
      opts.claim_radius = rng.next() * 15
      world.claim_radius = opts.claim_radius
    end
  end
  M.random_callbacks(rng, world, opts)
  return opts
end

return M
