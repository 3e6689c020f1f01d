-- A living world: doors open and close while 40 units walk and a long search runs in slices.
-- The level is prepared at load (grid:prepare), so the first frame builds nothing; each frame
-- every unit asks check_path with the version its path was found at (since), which reads only
-- the cells near what changed; a unit whose path a door broke repairs it; a unit that wants
-- into a room whose only door just shut is told "unreachable" without a search; the long
-- search (grid:search, stepped a slice a frame) goes on when a door closes outside its reach.
--
--   lua5.4 examples/living_world.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

-- Two rows of rooms off a long hall; each room has a door onto the hall, and every other wall
-- between two rooms a door too.
local W, H = 120, 41
local rows, doors = {}, {}
for y = 1, H do
  local row = {}
  for x = 1, W do
    local wall = y == 1 or y == H or x == 1 or x == W
    if (y == 15 or y == 27) and x % 12 ~= 6 then wall = true end -- room walls; doors at x = 6, 18, ...
    if x % 12 == 0 and (y < 15 or y > 27) then wall = not (x % 24 == 0 and (y == 8 or y == 34)) end
    row[x] = wall and "#" or "."
  end
  rows[y] = table.concat(row)
end
for x = 6, W, 12 do
  doors[#doors + 1] = { x = x, y = 15, open = true }
  doors[#doors + 1] = { x = x, y = 27, open = true }
end
local grid = astar.grid(W, H)
grid:load(rows)

-- Level load: every table the queries below would build on first use, and two workspaces.
astar.set_work_limit(2 ^ 40)
grid:prepare({ workspaces = 2 })
print(string.format("Prepared at load: %d units of work (island labels, dead ends, JPS+ table, workspaces)",
  2 ^ 40 - astar.work_left()))
astar.set_work_limit(nil)

-- 40 units, each walking between two rooms, its path flat and the version it was found at.
local rng = 12345
local function random(n) -- the same draws on every Lua (products stay below 2^53)
  rng = rng * 48271 % 2147483647
  return 1 + rng % n
end
local function room_cell()
  local room = random(math.floor(W / 12)) - 1
  return room * 12 + 2 + random(9), random(2) == 1 and 2 + random(11) or 28 + random(11)
end
local units = {}
for i = 1, 40 do
  local u = { step = 1 }
  u.gx, u.gy = room_cell()
  local sx, sy = room_cell()
  local path, info = grid:find(sx, sy, u.gx, u.gy, { path = "flat" })
  u.path, u.version = path, info.version
  units[i] = u
end

-- A long influence-aware search in slices, from one end of the hall to the other, shunning
-- its guarded middle (through the rooms, where their side doors allow).
local danger = astar.influence(W, H, 0)
for x = 20, 100 do
  for y = 16, 26 do danger:set(x, y, 4) end
end
local job = grid:search(2, 21, W - 1, 21, { influence = danger })

local checked, broken, repaired, unreachable, searched = 0, 0, 0, 0, 0
local job_end
local opts = { since = 0 }
for frame = 1, 120 do
  if frame % 20 == 0 then -- a door toggles
    local door = doors[random(#doors)]
    door.open = not door.open
    grid:set_cost(door.x, door.y, door.open and 1 or false)
    print(string.format("frame %d: door (%d,%d) %s; grid version %d", frame, door.x, door.y,
      door.open and "opens" or "closes", grid:version()))
  end
  for _, u in ipairs(units) do
    u.step = math.min(u.step + 1, math.floor(#u.path / 2)) -- a cell a frame
    opts.since = u.version
    checked = checked + 1
    if grid:check_path(u.path, u.step, opts) then
      broken = broken + 1
      local i = 2 * u.step - 1
      local path, info = grid:repair(u.path, u.step, { path = "flat" })
      if path then
        repaired = repaired + 1
        u.path, u.version, u.step = path, info.version, 1
      else -- its room's only door is shut: told at once, no search
        unreachable = unreachable + 1
        searched = searched + info.expansions
        u.path, u.version, u.step = { u.path[i], u.path[i + 1] }, info.version, 1
      end
    elseif u.step == math.floor(#u.path / 2) then -- arrived: off to another room
      u.gx, u.gy = room_cell()
      local path, info = grid:find(u.path[#u.path - 1], u.path[#u.path], u.gx, u.gy, { path = "flat" })
      if path then u.path, u.version, u.step = path, info.version, 1 end
    end
  end
  if job:status() == "running" and job:step(60) ~= "running" then
    -- Exact for the terrain it ended on: the same cost as a find on that terrain, now.
    local _, now = grid:find(2, 21, W - 1, 21, { influence = danger, jump = false })
    job_end = string.format("A find on the terrain the search ended on (frame %d): cost %.2f", frame, now.cost)
  end
end
print(string.format("%d path checks, %d found broken: %d repaired, %d told unreachable after %d expansions",
  checked, broken, repaired, unreachable, searched))
local path, info = job:result()
print(string.format("Long search: %s, cost %.2f, %d expansions; while doors toggled it restarted %d times, "
  .. "repaired %d changes under its nodes", info.status, info.cost or 0, info.expansions, info.restarts, info.repairs))
assert(path, "the hall stays open: the long search finds its way")
print(job_end)
