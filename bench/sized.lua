-- Units bigger than one cell: what island labels and the two-tier search per size cost.
--   lua5.4 bench/sized.lua [MAP ...]      (ASTAR_BUILD=./build by default; MAPS=/work/shared/data/movingai)
-- Per map:
-- * first use per size n (1, 2, 3, 4, 8): a flat find of size n between two anchors far apart,
--   first (it makes the clearance table, once, and the labels of size n) against the same find
--   again; then the first hierarchical find of size n (it builds that size's clusters) against
--   it again (the grid's own hierarchy of cluster 12 built before, timed apart);
-- * a write: 2,000 random cells toggled (blocked, then restored), per set_cost: with nothing
--   made, with size 1's tables made (a flat and a hierarchical find), with those of sizes 2..4
--   alone (clearance, labels, clusters dirtied); then the first hierarchical find after the
--   writes on the grid with every size made;
-- * queries of size 2: the map's scenarios whose two anchors fit a 2x2 unit (every 10th, at
--   most 300), flat A* against hierarchical: expansions, time, cost against flat's (optimal),
--   and every "no path" answered by the labels (0 expansions).
-- CPU time (os.clock).
package.path = "./lua/?/init.lua;./lua/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local MAPS = os.getenv("MAPS") or "/work/shared/data/movingai"
local maps = { ... }
if #maps == 0 then maps = { MAPS .. "/den312d.map", MAPS .. "/Berlin_0_256.map", MAPS .. "/Paris_0_1024.map" } end

local function ms(f)
  local t0 = os.clock()
  local a, b = f()
  return (os.clock() - t0) * 1e3, a, b
end

-- Does an n x n unit fit with its top-left at (x, y)?
local function fits(grid, x, y, n)
  local w, h = grid:size()
  if x + n - 1 > w or y + n - 1 > h then return false end
  for j = y, y + n - 1 do
    for i = x, x + n - 1 do
      if not grid:is_walkable(i, j) then return false end
    end
  end
  return true
end

-- The scenario of the last bucket whose anchors fit n (far apart), or nil.
local function far_pair(scen, grid, n)
  for i = #scen, 1, -1 do
    local s = scen[i]
    if fits(grid, s.sx, s.sy, n) and fits(grid, s.gx, s.gy, n) then return s end
  end
end

for _, path in ipairs(maps) do
  local name = path:match("([^/]+)%.map$") or path
  local grid = astar.load_movingai(path)
  local scen = astar.load_scen(path .. ".scen")
  local w, h = grid:size()
  print(string.format("\n%s (%dx%d)", name, w, h))
  local t_base = ms(function() return grid:hierarchy(12) end)
  print(string.format("  grid:hierarchy(12): %.1f ms", t_base))
  print("  size | flat first / again (ms) | hierarchical first / again (ms) | status")
  for _, n in ipairs({ 1, 2, 3, 4, 8 }) do
    local s = far_pair(scen, grid, n)
    if s then
      local opts = { size = n, info = {} }
      local t1 = ms(function() return grid:find(s.sx, s.sy, s.gx, s.gy, opts) end)
      local t2 = ms(function() return grid:find(s.sx, s.sy, s.gx, s.gy, opts) end)
      local ho = { size = n, hierarchical = true, info = {} }
      local t3 = ms(function() return grid:find(s.sx, s.sy, s.gx, s.gy, ho) end)
      local t4 = ms(function() return grid:find(s.sx, s.sy, s.gx, s.gy, ho) end)
      print(string.format("  %4d | %8.2f / %8.2f | %8.2f / %8.2f | %s, %s", n, t1, t2, t3, t4, opts.info.status,
        ho.info.status))
    end
  end

  -- writes: the same cells toggled on a fresh grid and on this one (every table made)
  local rng = 12345
  local function rand(k)
    rng = (rng * 1103515245 + 12345) % 2147483648
    return rng % k + 1
  end
  local cells = {}
  while #cells < 2000 do
    local x, y = rand(w), rand(h)
    if grid:is_walkable(x, y) then cells[#cells + 1] = { x, y, grid:get_cost(x, y) } end
  end
  local function toggle(g)
    return ms(function()
      for _, c in ipairs(cells) do
        g:set_cost(c[1], c[2], false)
        g:set_cost(c[1], c[2], c[3])
      end
    end) / (2 * #cells) * 1e3
  end
  -- the tables of sizes least..most made (flat and hierarchical finds), then the writes
  local function made(least, most)
    local g = astar.load_movingai(path)
    if most > 0 then g:hierarchy(12) end
    for n = least, most do
      local s = far_pair(scen, g, n)
      if s then
        g:find(s.sx, s.sy, s.gx, s.gy, { size = n, hierarchical = true })
        g:find(s.sx, s.sy, s.gx, s.gy, { size = n })
      end
    end
    return g
  end
  local bare, one, bigger = toggle(made(1, 0)), toggle(made(1, 1)), toggle(made(2, 4))
  toggle(grid) -- the grid above: sizes 1..4 and 8 made
  print(string.format("  a write (set_cost, toggling walkability): %.2f us with no table, %.2f us with size 1's " ..
    "(labels, dead ends, JPS+, clusters), %.2f us with those of sizes 2..4 (clearance, labels, clusters; and the " ..
    "grid's own clusters)", bare, one, bigger))
  grid:find(1, 1, 1, 1, { size = 2, hierarchical = true }) -- the writes' dirty clusters rebuilt here
  local s2 = far_pair(scen, grid, 2)
  if s2 then
    local t = ms(function() return grid:find(s2.sx, s2.sy, s2.gx, s2.gy, { size = 2, hierarchical = true }) end)
    print(string.format("  the first hierarchical find of size 2 after them (dirty clusters rebuilt): %.2f ms", t))
  end

  -- queries of size 2: flat against hierarchical
  local flat_x, tier_x, flat_t, tier_t, ratio_sum, worst, found, none, none_zero, fallbacks = 0, 0, 0, 0, 0, 1, 0, 0, 0, 0
  local picked = 0
  for i = 1, #scen, 10 do
    local s = scen[i]
    if picked < 300 and fits(grid, s.sx, s.sy, 2) and fits(grid, s.gx, s.gy, 2) then
      picked = picked + 1
      local fi, hi = {}, {}
      local tf = ms(function() return grid:find(s.sx, s.sy, s.gx, s.gy, { size = 2, info = fi }) end)
      local th = ms(function() return grid:find(s.sx, s.sy, s.gx, s.gy, { size = 2, hierarchical = true, info = hi }) end)
      assert(fi.status == hi.status, "flat " .. fi.status .. ", hierarchical " .. hi.status)
      flat_t, tier_t = flat_t + tf, tier_t + th
      if fi.status == "found" then
        found = found + 1
        flat_x, tier_x = flat_x + fi.expansions, tier_x + hi.expansions
        local r = fi.cost > 0 and hi.cost / fi.cost or 1
        assert(r >= 1 - 1e-9, "hierarchical below the optimum")
        ratio_sum, worst = ratio_sum + r, math.max(worst, r)
        if hi.fallback then fallbacks = fallbacks + 1 end
      else
        none = none + 1
        if fi.expansions == 0 and hi.expansions == 0 then none_zero = none_zero + 1 end
      end
    end
  end
  print(string.format("  size 2, %d problems (%d found, %d no path: %d of them answered with 0 expansions by both)",
    picked, found, none, none_zero))
  if found > 0 then
    print(string.format("    expansions: flat %.0f, hierarchical %.0f a found query (%.1fx fewer); " ..
      "cost %.4fx mean, %.3fx worst; %d fallbacks",
      flat_x / found, tier_x / found, flat_x / math.max(1, tier_x), ratio_sum / found, worst, fallbacks))
    print(string.format("    time: flat %.3f ms, hierarchical %.3f ms a query", flat_t / picked, tier_t / picked))
  end
  local stats = grid:hierarchy()
  print(string.format("  grid:hierarchy().bytes with sizes 2..4 and 8: %.1f MiB", stats.bytes / 2 ^ 20))
end
