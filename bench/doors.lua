-- A living world (issue 26), as a game runs it: a frame loop at 60 frames per second of game
-- time on Moving AI maps, doors toggling every 2 s, 200 units walking flat paths. Per frame,
-- timed with os.clock (CPU time):
--   1. every 2 s, the doors toggle (all closed, then all open, ...);
--   2. every unit's path is checked from where it stands (grid:check_path, with { since = v }
--      when the grid offers it: grid:version() and the option);
--   3. up to QUERIES_PER_FRAME (2) units re-plan (find with the influence layer, a flat path into
--      the unit's own table): first, in a frame the doors toggled in, the door units (one on each
--      gate's problem, as a game re-plans the units at a door that moved), then those whose path
--      broke and those that arrived (they walk back);
--   4. every unit moves on a quarter of a cell.
-- Doors: the gate bench_c's workload `doors` finds (1-3 cells across a narrow passage on a
-- scenario's path, found the same way) and up to 3 more, each on another scenario's path.
-- Reported per map: the frame's CPU time (median, max), the other frames that re-planned a unit
-- (median), the frames in which the doors toggled (median, and over the median frame: it holds
-- the door units' re-plans, long queries), the paths' check per frame, and the first query after
-- a toggle over the same query run again (outside the frame's time). With grid:prepare (issue 26)
-- present, it runs at level load and its time is reported. Checked: every path a re-plan
-- returns passes check_path, and the query after a toggle gives the same cost again and the
-- cost of the same query with dead_ends = false (exit status 1 otherwise).
--
--   lua5.4 bench/doors.lua [--quick] [MAP.map ...]
-- Default maps: brc202d, Aurora and Paris_0_1024 from ../shared/data/movingai ($ASTAR_MOVINGAI
-- for another folder). --quick: 6 s of game time instead of 20. Runs on Lua 5.1-5.4 and LuaJIT.
-- Prints a table, then "figure lua doors <map> <name> <value>" lines.
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath
local astar = require("astar")

local clock = os.clock
local FPS, TOGGLE_EVERY, UNITS, QUERIES_PER_FRAME, SPEED, GATES = 60, 120, 200, 2, 0.25, 4

local function median(list)
  local sorted = {}
  for i = 1, #list do sorted[i] = list[i] end
  table.sort(sorted)
  return sorted[math.floor(#sorted / 2) + 1] or 0
end

local function max_of(list)
  local m = 0
  for i = 1, #list do if list[i] > m then m = list[i] end end
  return m
end

-- bench_c's danger_layer: a quarter of the cells, in blocks of 8, valued 0.5 .. 2.
local function danger_layer(grid)
  local danger = astar.influence(grid.width, grid.height)
  for y = 0, grid.height - 1 do
    for x = 0, grid.width - 1 do
      if (math.floor(x / 8) + math.floor(y / 8)) % 4 == 0 then danger:set(x + 1, y + 1, 0.5 + (x * 7 + y * 13) % 4 * 0.5) end
    end
  end
  return danger
end

-- The grid's change counter, when it has one (issue 26: grid:version()); else nil.
local function version_of(grid)
  local v = grid.version
  if type(v) == "function" then return v(grid) end
  return type(v) == "number" and v or nil
end

-- Whether check_path takes { since = v } (issue 26), v the grid's version or find's
-- info.version: main has neither, and refuses unknown options by name.
local function has_since(grid, x, y)
  local v = version_of(grid) or select(2, grid:find(x, y, x, y)).version
  return v ~= nil and (pcall(grid.check_path, grid, { x, y }, 1, { since = v }))
end

local function set_cells(grid, cells, costs)
  for i = 1, #cells, 2 do grid:set_cost(cells[i], cells[i + 1], costs and costs[(i + 1) / 2] or false) end
end

-- The walkable cells in line with (x, y) along (dx, dy), both ways, as a flat list; nil when
-- there are more than 3 (bench_c's door_run).
local function run_across(grid, x, y, dx, dy)
  local cells = { x, y }
  for side = -1, 1, 2 do
    local k = 1
    while true do
      local cx, cy = x + side * k * dx, y + side * k * dy
      if cx < 1 or cy < 1 or cx > grid.width or cy > grid.height or not grid:is_walkable(cx, cy) then break end
      if #cells == 6 then return nil end
      cells[#cells + 1], cells[#cells + 2] = cx, cy
      k = k + 1
    end
  end
  return cells
end

-- Gates as bench_c's door_find_gate finds them: on the A* paths of the scenarios from the last
-- back, from each path's middle out, the walkable run across a step (the other axis for a
-- straight one, the shorter of the two for a diagonal), at most 3 cells, that the problem can go
-- around when it is closed. The first is bench_c's gate; each next one on another scenario's
-- path, at least 16 cells from those before; too few among the last 300 scenarios, and gates
-- that cut their problem off (as a room's door does) fill up to `count`.
local function find_gates(grid, problems, count)
  local gates, scanned, cut, cut_at = {}, 0, {}, {} -- cut: per scenario, its first gate that cuts it off
  local plan = { jump = false, dead_ends = false, path = "flat" }
  local function far(x, y)
    for _, g in ipairs(gates) do
      if math.abs(g.cells[1] - x) < 16 and math.abs(g.cells[2] - y) < 16 then return false end
    end
    return true
  end
  for i = #problems, 1, -1 do
    if #gates == count or scanned == 300 then break end
    local p = problems[i]
    if grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) then
      scanned = scanned + 1
      local path = grid:find(p.sx, p.sy, p.gx, p.gy, plan)
      local n = path and #path / 2 or 0
      for j = 0, n - 1 do
        local k = math.floor(n / 2) + (j % 2 == 1 and -math.floor((j + 1) / 2) or math.floor(j / 2)) -- 0-based
        if k >= 16 and k < n - 16 then
          local x, y, nx, ny = path[2 * k + 1], path[2 * k + 2], path[2 * k + 3], path[2 * k + 4]
          local best
          if ny ~= y then best = run_across(grid, x, y, 1, 0) end -- a row, across a step in y
          if nx ~= x then
            local col = run_across(grid, x, y, 0, 1)
            if col and (not best or #col < #best) then best = col end
          end
          if best and far(x, y) then
            local was = {}
            for c = 1, #best, 2 do was[#was + 1] = grid:get_cost(best[c], best[c + 1]) end
            set_cells(grid, best)
            local around = grid:reachable(p.sx, p.sy, p.gx, p.gy)
            set_cells(grid, best, was)
            if around then
              gates[#gates + 1] = { cells = best, was = was, problem = i }
              break
            elseif not cut_at[i] then
              cut_at[i] = true
              cut[#cut + 1] = { cells = best, was = was, problem = i }
            end
          end
        end
      end
    end
  end
  for _, g in ipairs(cut) do -- too few: doors that cut their problem off, as a room's door does
    if #gates < count and far(g.cells[1], g.cells[2]) then gates[#gates + 1] = g end
  end
  return gates
end

local function run_map(map, frames)
  local base = map:match("[^/]*$")
  local grid = astar.load_movingai(map)
  local problems = astar.load_scen(map .. ".scen")
  local r = { map = base, frame = {}, toggle_frame = {}, query_frame = {}, check = {}, first_over_again = {}, wrong = 0,
              queries = 0, broken = 0 }
  local gates = find_gates(grid, problems, GATES)
  local danger = danger_layer(grid)
  if type(grid.prepare) == "function" then -- issue 26: the lazy tables built at level load
    local t0 = clock()
    grid:prepare()
    r.prepare = clock() - t0
  end

  -- Units: one on each gate's problem (they re-plan first whenever the doors toggle: the first
  -- query after a toggle is theirs), the others on problems spread over the scenario list; each
  -- walks between its problem's two ends.
  local units, queue, head, urgent = {}, {}, 1, {}
  local find_opts = { influence = danger, path = "flat" }
  local function plan(u)
    find_opts.into = u.path
    local path, info = grid:find(u.x, u.y, u.gx, u.gy, find_opts)
    find_opts.into = nil
    r.queries = r.queries + 1
    u.i, u.n, u.acc = 1, path and #path / 2 or 0, 0
    u.version = info.version or version_of(grid)
    if path and grid:check_path(path, 1) then r.wrong = r.wrong + 1 end
    return path, info
  end
  for k = 1, UNITS do
    local p = gates[k] and problems[gates[k].problem]
              or problems[math.floor((k - 1 - #gates) * #problems / (UNITS - #gates)) + 1]
    if grid:is_walkable(p.sx, p.sy) and grid:is_walkable(p.gx, p.gy) then
      local u = { x = p.sx, y = p.sy, gx = p.gx, gy = p.gy, ox = p.sx, oy = p.sy, path = {}, queued = false,
                  door = gates[k] ~= nil }
      units[#units + 1] = u
      plan(u)
    end
  end

  local since = units[1] and has_since(grid, units[1].x, units[1].y)
  local closed, toggles = false, 0
  local check_opts = {}
  for frame = 1, frames do
    local t0 = clock()
    local toggled = frame % TOGGLE_EVERY == 0
    if toggled then
      closed, toggles = not closed, toggles + 1
      for _, g in ipairs(gates) do set_cells(grid, g.cells, not closed and g.was or nil) end
      for _, u in ipairs(units) do
        if u.door and not u.queued then
          u.queued = true
          urgent[#urgent + 1] = u
        end
      end
    end
    local c0 = clock()
    local now = since and version_of(grid) -- nil without grid:version(): since stays the find's
    for _, u in ipairs(units) do
      if not u.queued and (u.waiting or -1) < toggles then
        local bad
        if u.n == 0 then
          bad = true -- no path (unreachable when planned): try again after a toggle
        elseif since then
          check_opts.since = u.version
          bad = grid:check_path(u.path, u.i, check_opts)
          if not bad and now then u.version = now end
        else
          bad = grid:check_path(u.path, u.i)
        end
        if bad then r.broken = r.broken + 1 end
        if bad or u.i == u.n then -- broken, or arrived: walk back
          if not bad then u.gx, u.gy, u.ox, u.oy = u.ox, u.oy, u.gx, u.gy end
          u.queued = true
          queue[#queue + 1] = u
        end
      end
    end
    local checked = clock() - c0
    local first_query -- after a toggle: its endpoints, to time the same query again
    local planned = r.queries
    for _ = 1, QUERIES_PER_FRAME do
      local u = table.remove(urgent, 1)
      if not u then
        u = queue[head]
        if not u then break end
        queue[head], head = nil, head + 1
      end
      u.queued = false
      local qx, qy = u.x, u.y
      local q0 = clock()
      local _, info = plan(u)
      if toggled and not first_query then
        first_query = { x = qx, y = qy, gx = u.gx, gy = u.gy, took = clock() - q0, info = info }
      end
      if u.n == 0 then u.waiting = toggles end
    end
    for _, u in ipairs(units) do -- walk on
      if not u.queued and u.n > 0 then
        u.acc = u.acc + SPEED
        while u.acc >= 1 and u.i < u.n do
          u.i, u.acc = u.i + 1, u.acc - 1
        end
        u.x, u.y = u.path[2 * u.i - 1], u.path[2 * u.i]
      end
    end
    local took = clock() - t0
    r.frame[#r.frame + 1] = took
    r.check[#r.check + 1] = checked
    if toggled then
      r.toggle_frame[#r.toggle_frame + 1] = took
    elseif r.queries > planned then
      r.query_frame[#r.query_frame + 1] = took
    end
    if first_query then -- outside the frame: the same query again, and with dead_ends = false
      local q, opts = first_query, { influence = danger, path = "flat" }
      local a0 = clock()
      local _, again = grid:find(q.x, q.y, q.gx, q.gy, opts)
      local again_took = clock() - a0
      r.first_over_again[#r.first_over_again + 1] = again_took > 0 and q.took / again_took or 0
      opts.dead_ends = false
      local _, ref = grid:find(q.x, q.y, q.gx, q.gy, opts)
      if again.status ~= q.info.status or again.cost ~= q.info.cost or ref.status ~= q.info.status
          or ref.cost ~= q.info.cost then
        r.wrong = r.wrong + 1
      end
    end
  end
  r.gates, r.since, r.units = gates, since, #units
  return r
end

local function main(args)
  local maps, quick = {}, false
  local dir = os.getenv("ASTAR_MOVINGAI") or "../shared/data/movingai"
  for _, a in ipairs(args) do
    if a == "--quick" then
      quick = true
    elseif a:match("%.map$") then
      maps[#maps + 1] = a
    else
      io.stderr:write("usage: lua5.4 bench/doors.lua [--quick] [MAP.map ...]\n")
      os.exit(2)
    end
  end
  if #maps == 0 then
    for _, m in ipairs({ "brc202d", "Aurora", "Paris_0_1024" }) do maps[#maps + 1] = dir .. "/" .. m .. ".map" end
  end
  local frames = (quick and 6 or 20) * FPS
  local figures, bad = {}, 0
  local jit = rawget(_G, "jit")
  print(string.format("%s, %d frames (%d s at %d/s), %d units, doors toggling every %.0f s, %d queries a frame",
    jit and jit.version or _VERSION, frames, frames / FPS, FPS, UNITS, TOGGLE_EVERY / FPS, QUERIES_PER_FRAME))
  print(string.format("%-18s %5s %7s %9s %9s %9s %9s %9s %7s %9s %9s %8s %6s", "map", "gates", "queries", "frame_ms",
    "max_ms", "replan_ms", "toggle_ms", "tog/frame", "check", "first/ag", "fa_max", "prepare", "wrong"))
  for _, map in ipairs(maps) do
    local r = run_map(map, frames)
    local frame, tog, replan = median(r.frame), median(r.toggle_frame), median(r.query_frame)
    local fa = median(r.first_over_again)
    local row = {
      frame_ms = frame * 1e3, frame_max_ms = max_of(r.frame) * 1e3, toggle_frame_ms = tog * 1e3,
      toggle_over_frame = frame > 0 and tog / frame or 0, check_ms = median(r.check) * 1e3, query_frame_ms = replan * 1e3,
      first_over_again = fa, first_over_again_max = max_of(r.first_over_again), queries = r.queries,
      broken = r.broken, wrong = r.wrong, gates = #r.gates, units = r.units,
      prepare_ms = r.prepare and r.prepare * 1e3 or -1, since = r.since and 1 or 0,
    }
    print(string.format("%-18s %5d %7d %9.3f %9.3f %9.3f %9.3f %8.2fx %7.3f %8.2fx %8.2fx %8s %6d", r.map, row.gates,
      row.queries, row.frame_ms, row.frame_max_ms, row.query_frame_ms, row.toggle_frame_ms, row.toggle_over_frame,
      row.check_ms,
      row.first_over_again, row.first_over_again_max, r.prepare and string.format("%.1f", row.prepare_ms) or "-",
      row.wrong))
    local names = {}
    for name in pairs(row) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
      figures[#figures + 1] = string.format("figure lua doors %s %s %.4f", r.map, name, row[name])
    end
    local where = {}
    for _, g in ipairs(r.gates) do
      where[#where + 1] = string.format("(%d,%d) %d cells on problem %d", g.cells[1], g.cells[2], #g.cells / 2, g.problem)
    end
    print("  gates: " .. table.concat(where, "; ") .. "; check_path since: " .. (r.since and "yes" or "no")
      .. "; grid:prepare: " .. (r.prepare and "yes" or "no"))
    bad = bad + r.wrong
  end
  print("frame_ms: median frame; replan_ms: median of the other frames that re-planned a unit; toggle_ms: median"
    .. " of the frames the doors toggled in (their re-plans: the door units' long queries); check: median ms a"
    .. " frame of check_path over every unit; first/ag: first query after a toggle over the same again (median, max)")
  for _, f in ipairs(figures) do print(f) end
  os.exit(bad == 0 and 0 or 1)
end

main({ ... })
