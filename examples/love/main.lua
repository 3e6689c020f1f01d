-- astar in LÖVE: units walk to the cell you click; right-drag paints danger they avoid; each
-- unit claims its path, so the next one looks for another way.
--   love examples/love      (after: cmake -S . -B build-luajit -DASTAR_LUA_VERSION=luajit &&
--                            cmake --build build-luajit --target astar_lua)
-- ASTAR_LOVE_CPATH: the directory holding astar/core.so (default: ../../build-luajit).
-- ASTAR_LOVE_SHOT=file.png: the headless test mode (spec/love_test.sh): send the units to a
-- fixed goal, take a screenshot, check path pixels and quit with 0 (or the failed check).
io.stdout:setvbuf("no")
local root = love.filesystem.getSource() .. "/../.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_LOVE_CPATH") or root .. "/build-luajit") .. "/?.so;" .. package.cpath
local astar = require("astar")

local CELL, W, H = 20, 40, 26
local MAP = {
  "........................................",
  "........................................",
  "........##########......................",
  "........#........#..........######......",
  "........#........#..........#....#......",
  "........#........#..........#....#......",
  "........####..####..........#....#......",
  "............................##..##......",
  "........................................",
  "...~~~~.................................",
  "...~~~~~~...............................",
  "....~~~~~.........#############.........",
  ".....~~~..........#...........#.........",
  "..................#...........#.........",
  "..................#####...#####.........",
  "........................................",
  "...............................~~~~.....",
  ".....#######..................~~~~~~....",
  ".....#.....#...................~~~~.....",
  ".....#.....#............................",
  ".....##...##............................",
  "........................................",
  "........................................",
  "..................######................",
  "........................................",
  "........................................",
}

local grid = astar.grid(W, H)
grid:load(MAP, { ["."] = 1, ["#"] = false, ["~"] = 4 })
local danger = astar.influence(W, H)
danger:stamp(24, 9, 4, 12, "quadratic")
local claims = astar.claims(grid)

local COLORS = { { 0.95, 0.3, 0.2 }, { 0.2, 0.5, 0.95 }, { 0.95, 0.75, 0.1 }, { 0.6, 0.3, 0.9 } }
local units = {}
for i, start in ipairs({ { 2, 2 }, { 2, 24 }, { 38, 2 }, { 38, 24 } }) do
  units[i] = { id = i, x = start[1], y = start[2], color = COLORS[i], path = nil, step = 1, clock = 0 }
end

-- Every unit plans to (gx, gy): around danger, and around the paths already claimed.
local function send_all(gx, gy)
  if not grid:is_walkable(gx, gy) then return end
  for _, u in ipairs(units) do claims:release(u.id) end
  for _, u in ipairs(units) do
    local path = grid:find(u.x, u.y, gx, gy, {
      influence = danger, influence_weight = 1, claims = claims, unit = u.id, claim_penalty = 3,
    })
    u.path, u.step = path, 1
    if path then claims:claim(u.id, path) end
  end
end

function love.mousepressed(px, py, button)
  local x, y = math.floor(px / CELL) + 1, math.floor(py / CELL) + 1
  if x < 1 or y < 1 or x > W or y > H then return end
  if button == 1 then send_all(x, y) end
end

function love.mousemoved(px, py)
  if love.mouse.isDown(2) then
    local x, y = math.floor(px / CELL) + 1, math.floor(py / CELL) + 1
    if x >= 1 and y >= 1 and x <= W and y <= H then danger:stamp(x, y, 2, 1.5) end
  end
end

function love.update(dt)
  danger:decay(1 - 0.02 * dt) -- painted danger fades slowly
  for _, u in ipairs(units) do
    if u.path and u.step < #u.path then
      u.clock = u.clock + dt
      if u.clock > 0.08 then
        u.clock = 0
        u.step = u.step + 1
        u.x, u.y = u.path[u.step].x, u.path[u.step].y
        claims:advance(u.id, 1)
      end
    end
  end
end

local function cell_rect(x, y, inset)
  love.graphics.rectangle("fill", (x - 1) * CELL + inset, (y - 1) * CELL + inset, CELL - 2 * inset, CELL - 2 * inset)
end

function love.draw()
  local top = math.max(danger:max_abs(), 1e-9)
  for y = 1, H do
    for x = 1, W do
      local c = grid:get_cost(x, y)
      if not c then love.graphics.setColor(0.15, 0.15, 0.18)
      elseif c > 1 then love.graphics.setColor(0.55, 0.7, 0.85)
      else love.graphics.setColor(0.9, 0.9, 0.85) end
      cell_rect(x, y, 0)
      local d = danger:get(x, y)
      if c and d > 0 then
        love.graphics.setColor(0.9, 0.1, 0.1, 0.6 * math.min(1, d / top))
        cell_rect(x, y, 0)
      end
    end
  end
  for _, u in ipairs(units) do
    if u.path then
      love.graphics.setColor(u.color[1], u.color[2], u.color[3], 0.55)
      for i = u.step, #u.path do cell_rect(u.path[i].x, u.path[i].y, 6) end
    end
  end
  for _, u in ipairs(units) do
    love.graphics.setColor(u.color)
    love.graphics.circle("fill", (u.x - 0.5) * CELL, (u.y - 0.5) * CELL, CELL * 0.45)
  end
  love.graphics.setColor(0, 0, 0)
  love.graphics.print("left click: send the units   right drag: paint danger   (" .. _VERSION .. ", "
    .. (jit and jit.version or "no JIT") .. ")", 8, H * CELL + 4)
end

-- The headless test: a click on a fixed goal, two frames, a screenshot and pixel checks.
local shot = os.getenv("ASTAR_LOVE_SHOT")
if shot then
  local frame, update = 0, love.update
  love.update = function(dt)
    frame = frame + 1
    if frame == 1 then love.mousepressed((20 - 0.5) * CELL, (25 - 0.5) * CELL, 1) end
    if frame == 3 then
      local u = units[1]
      love.graphics.captureScreenshot(function(img)
        local f = assert(io.open(shot, "wb"))
        f:write(img:encode("png"):getString())
        f:close()
        -- unit 1's path cells ahead of it show its colour over the floor (where no later
        -- unit's path covers them); a wall stays dark
        local want, hits = u.color, 0
        for i = u.step + 1, #u.path - 1 do
          local p = u.path[i]
          local r, g = img:getPixel((p.x - 0.5) * CELL + 3, (p.y - 0.5) * CELL + 3)
          if math.abs(r - (0.9 + (want[1] - 0.9) * 0.55)) < 0.06
            and math.abs(g - (0.9 + (want[2] - 0.9) * 0.55)) < 0.06 then hits = hits + 1 end
        end
        local wr = img:getPixel(9 * CELL + 10, 2 * CELL + 10)
        print(string.format("unit 1: %d of its %d path cells show its colour; wall pixel %.2f", hits, #u.path, wr))
        love.event.quit((hits >= 10 and wr < 0.3) and 0 or 4)
      end)
    end
    if frame > 60 then love.event.quit(5) end
    return update(dt)
  end
end
