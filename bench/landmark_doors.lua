-- Landmarks under a toggling gate (issue 26): a map with k landmarks built, a 1-3-cell gate
-- across a narrow passage on a long scenario's path closed and opened 12 times. Per toggle:
-- the set_cost calls' CPU time (closing raises costs: nothing to do; opening lowers them: the
-- landmarks are repaired at the change), then the long query with landmarks right after
-- ("first") and once more ("again"). Before issue 26 the opening put the landmarks out of use
-- until the game rebuilt them all; the rebuild's time is printed for comparison.
--
--   lua5.4 bench/landmark_doors.lua MAP.map [MAP.map ...]      (its .scen beside it)
--   ASTAR_BENCH_LANDMARKS=k (default 16), ASTAR_BUILD=dir (default ./build)
-- Prints a table per map and "figure landmark_doors <map> <name> <value>" lines; medians
-- from one run. Runs on Lua 5.1-5.4 and LuaJIT.
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
local build = os.getenv("ASTAR_BUILD") or "./build"
package.cpath = build .. "/?.so;" .. package.cpath
local astar = require("astar")

local clock = os.clock
local K = tonumber(os.getenv("ASTAR_BENCH_LANDMARKS") or "16")
local TOGGLES = 12

local function median(t)
  local s = {}
  for i, v in ipairs(t) do s[i] = v end
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) / 2] or (s[n / 2] + s[n / 2 + 1]) / 2
end
local function max(t)
  local m = -math.huge
  for _, v in ipairs(t) do if v > m then m = v end end
  return m
end

-- Blocked (or off the map) at (x, y)?
local function wall(grid, x, y)
  local w, h = grid:size()
  return x < 1 or y < 1 or x > w or y > h or not grid:is_walkable(x, y)
end

-- A gate on the path: the first cell from the middle out that sits in a passage at most 3
-- cells wide (walls both ways along a row or a column), with the passage's other cells.
local function find_gate(grid, path)
  local mid = math.floor(#path / 2)
  for off = 0, mid - 2 do
    for _, i in ipairs({ mid + off, mid - off }) do
      local p = path[i]
      for _, d in ipairs({ { 1, 0 }, { 0, 1 } }) do
        local cells = { { x = p.x, y = p.y } }
        for _, sgn in ipairs({ 1, -1 }) do
          local x, y = p.x + sgn * d[1], p.y + sgn * d[2]
          while not wall(grid, x, y) and #cells <= 3 do
            cells[#cells + 1] = { x = x, y = y }
            x, y = x + sgn * d[1], y + sgn * d[2]
          end
        end
        if #cells <= 3 then return cells end
      end
    end
  end
end

local function run(map)
  local grid = astar.load_movingai(map)
  local scen = astar.load_scen(map .. ".scen")
  local t0 = clock()
  local placed = grid:landmarks(K)
  local built = clock() - t0
  -- The longest scenarios first: the first one whose path crosses a narrow passage.
  table.sort(scen, function(a, b) return a.optimal > b.optimal end)
  local q, gate
  for i = 1, math.min(#scen, 200) do
    local s = scen[i]
    local path = grid:find(s.sx, s.sy, s.gx, s.gy, { jump = false })
    gate = path and find_gate(grid, path)
    if gate then q = s break end
  end
  assert(gate, "no narrow passage found on the long scenarios")
  local name = map:match("([^/]+)%.map$")
  local function ms(x) return string.format("%.3f", x * 1000) end
  local function fig(k, v) print(string.format("figure landmark_doors %s %s %.6g", name, k, v)) end
  print(string.format("%s: %d landmarks (built in %.2f s, %.1f MiB), gate of %d cell(s) at (%d,%d), query %d,%d -> %d,%d",
    name, placed, built, select(2, grid:landmarks()) / 2 ^ 20, #gate, gate[1].x, gate[1].y, q.sx, q.sy, q.gx, q.gy))
  -- dead_ends at its default (the areas are rebuilt after a walkability change: another part
  -- of issue 26), and off, which leaves the landmarks' own part alone.
  for _, variant in ipairs({ { "default", { jump = false } }, { "no_dead_ends", { jump = false, dead_ends = false } } }) do
    local label, opts = variant[1], variant[2]
    local function query()
      local t = clock()
      local _, info = grid:find(q.sx, q.sy, q.gx, q.gy, opts)
      return clock() - t, info
    end
    local close, open, first, again, ratio, exp = {}, {}, {}, {}, {}, {}
    local closed_first, closed_again = {}, {}
    query() -- warm: the lazy tables of the terrain as it is
    for _ = 1, TOGGLES do
      local t = clock()
      for _, c in ipairs(gate) do grid:set_cost(c.x, c.y, false) end
      close[#close + 1] = clock() - t
      closed_first[#closed_first + 1] = query()
      closed_again[#closed_again + 1] = query()
      t = clock()
      for _, c in ipairs(gate) do grid:set_cost(c.x, c.y, 1) end
      open[#open + 1] = clock() - t
      assert(grid:landmarks() == placed, "landmarks put out of use")
      local f, info = query()
      local r = query()
      first[#first + 1], again[#again + 1] = f, r
      ratio[#ratio + 1] = f / r
      exp[#exp + 1] = info.expansions
    end
    print(string.format("  [%s] set_cost close (ms): median %s max %s; open (repair): median %s max %s", label,
      ms(median(close)), ms(max(close)), ms(median(open)), ms(max(open))))
    print(string.format("  [%s] after open: first query median %s ms (max %s), again %s ms; " ..
      "first/again median %.2f, max %.2f; %d expansions",
      label, ms(median(first)), ms(max(first)), ms(median(again)), median(ratio), max(ratio), median(exp)))
    print(string.format("  [%s] after close: first query median %s ms, again %s ms", label,
      ms(median(closed_first)), ms(median(closed_again))))
    fig(label .. "_set_cost_open_median_ms", median(open) * 1000)
    fig(label .. "_set_cost_open_max_ms", max(open) * 1000)
    fig(label .. "_set_cost_close_median_ms", median(close) * 1000)
    fig(label .. "_first_over_again_median", median(ratio))
    fig(label .. "_first_over_again_max", max(ratio))
    fig(label .. "_query_ms", median(again) * 1000)
  end
  -- Shortcuts: 12 cells of one-cell-thick walls (walkable both sides, along a row or a column)
  -- opened and closed again: each opening lowers the distances beyond it (real repair work).
  local w, h = grid:size()
  local rng = 12345
  local opened, cells = {}, 0
  while #opened < TOGGLES and cells < 10000000 do
    rng = (rng * 1103515245 + 12345) % 2147483648
    local x, y = rng % w + 1, math.floor(rng / w) % h + 1
    cells = cells + 1
    if wall(grid, x, y) and ((not wall(grid, x - 1, y) and not wall(grid, x + 1, y)) or
                             (not wall(grid, x, y - 1) and not wall(grid, x, y + 1))) then
      local t = clock()
      grid:set_cost(x, y, 1)
      opened[#opened + 1] = clock() - t
      grid:set_cost(x, y, false)
    end
  end
  print(string.format("  a wall cell opened (a shortcut), %d of them: set_cost median %s ms, max %s ms",
    #opened, ms(median(opened)), ms(max(opened))))
  fig("shortcut_set_cost_median_ms", median(opened) * 1000)
  fig("shortcut_set_cost_max_ms", max(opened) * 1000)
  grid:landmarks(0)
  local opts = { jump = false, dead_ends = false }
  local _, none = grid:find(q.sx, q.sy, q.gx, q.gy, opts)
  local times = {}
  for i = 1, 3 do
    local t = clock()
    grid:find(q.sx, q.sy, q.gx, q.gy, opts)
    times[i] = clock() - t
  end
  print(string.format("  [no_dead_ends] without landmarks (what stale ones gave): %s ms, %d expansions; rebuilding them: %.2f s",
    ms(median(times)), none.expansions, built))
  fig("query_without_ms", median(times) * 1000)
  fig("rebuild_s", built)
end

for _, map in ipairs(arg) do run(map) end
