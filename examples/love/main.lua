-- astar in LÖVE: a crowd in a frame budget. 200 units walk a town (examples/crowd/town.map):
-- blue walkers go from place to place around the danger (red) that four purple monsters spread,
-- orange hunters chase the monsters (their goals move: requests re-aimed), every path comes
-- through one scheduler whose tick gets 1.5 ms a frame, and doors shut and open under them
-- (their paths checked with `since`, planned again). The graph on the right is the AI's time
-- per frame (checks, danger, the tick) against that budget. The world is examples/crowd/world.lua;
-- this file draws it.
--   love examples/love [file.map]   (after: cmake -S . -B build-luajit -DASTAR_LUA_VERSION=luajit &&
--                                    cmake --build build-luajit --target astar_lua)
-- Left click: open or shut the door under the mouse. Right drag: paint danger. P: which paths
-- are drawn. Space: pause. A Moving AI map file given on the command line replaces the town.
-- ASTAR_LOVE_CPATH: the directory holding astar/core.so (default: ../../build-luajit).
-- ASTAR_LOVE_SHOT=file.png: the headless test (spec/love_test.sh): a fixed budget of expansions
-- (no clock: the same run on any machine), fixed frames; a screenshot; checks that units moved
-- and are drawn where they stand, that the danger and the graph are drawn; exit code 0 or 4.
io.stdout:setvbuf("no")
local root = love.filesystem.getSource() .. "/../.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. root .. "/examples/?.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_LOVE_CPATH") or root .. "/build-luajit") .. "/?.so;" .. package.cpath
local astar = require("astar")
local crowd = require("crowd.world")

local shot = os.getenv("ASTAR_LOVE_SHOT")
local BUDGET_US = 1500
local MAP_W, MAP_H, PANEL_X = 768, 528, 776
local world, CELL, map_image, danger_data, danger_image
local show_paths, paused = 2, false -- paths: 1 none, 2 every 8th unit's, 3 all
local live -- the box of cells whose danger was visible at the last refresh
local painted = {} -- cells painted with danger this frame
local draw_ms = 0

local TERRAIN = { -- the map's colours by Moving AI character
  ["."] = { 0.86, 0.84, 0.78 }, G = { 0.86, 0.84, 0.78 }, S = { 0.5, 0.65, 0.6 },
  ["@"] = { 0.25, 0.23, 0.22 }, O = { 0.25, 0.23, 0.22 }, T = { 0.25, 0.48, 0.22 }, W = { 0.3, 0.5, 0.85 },
}
local COLOR = { walker = { 0.15, 0.35, 0.95 }, hunter = { 0.95, 0.55, 0.1 }, monster = { 0.6, 0.1, 0.7 } }
local GRAPH = { x = PANEL_X, y = 44, w = crowd.HISTORY, h = 120, ms = 3 } -- 3 ms full height
local BAR_TICK, BAR_REST, BAR_OVER = { 0.3, 0.8, 0.35 }, { 0.3, 0.55, 0.95 }, { 0.95, 0.25, 0.2 }
local BUDGET_LINE = { 1, 0.85, 0.1 }

function love.load(args)
  world = crowd.new(astar, {
    map = args[1] or root .. "/examples/crowd/town.map",
    budget_us = not shot and BUDGET_US or false, budget = shot and 4000 or 20000,
    door_every = shot and 20 or 30, clock = love.timer.getTime,
  })
  CELL = math.max(1, math.min(math.floor(MAP_W / world.W), math.floor(MAP_H / world.H)))
  -- The map is drawn once into an image of a pixel per cell, drawn scaled; doors go on top.
  local data = love.image.newImageData(world.W, world.H)
  for y = 1, world.H do
    for x = 1, world.W do
      local c = TERRAIN[world.rows[y]:sub(x, x)] or TERRAIN["@"]
      data:setPixel(x - 1, y - 1, c[1], c[2], c[3], 1)
    end
  end
  map_image = love.graphics.newImage(data)
  map_image:setFilter("nearest", "nearest")
  danger_data = love.image.newImageData(world.W, world.H)
  danger_image = love.graphics.newImage(danger_data)
  danger_image:setFilter("nearest", "nearest")
end

local function cell_at(px, py)
  local x, y = math.floor(px / CELL) + 1, math.floor(py / CELL) + 1
  if x < 1 or y < 1 or x > world.W or y > world.H then return nil end
  return x, y
end

function love.mousepressed(px, py, button)
  local x, y = cell_at(px, py)
  if x and button == 1 then
    local door = world:door_near(x, y, math.max(1, math.floor(6 / CELL)))
    if door then world:toggle_door(door) end
  end
end

function love.mousemoved(px, py)
  local x, y = cell_at(px, py)
  if x and love.mouse.isDown(2) then
    world.danger:stamp(x, y, 3, 3)
    painted[#painted + 1] = { x, y, 3 }
  end
end

function love.keypressed(key)
  if key == "space" then paused = not paused end
  if key == "p" then show_paths = show_paths % 3 + 1 end
  if key == "escape" then love.event.quit() end
end

function love.update(dt)
  if paused then return end
  world:frame(shot and 1 / 60 or math.min(dt, 1 / 20))
end

-- The danger overlay, read only where it can be visible: the cells visible last time and the
-- boxes stamped since (danger only fades elsewhere).
local function refresh_danger()
  local x0, y0, x1, y1 = world.W + 1, world.H + 1, 0, 0
  local function extend(ax, ay, bx, by)
    x0, y0, x1, y1 = math.min(x0, ax), math.min(y0, ay), math.max(x1, bx), math.max(y1, by)
  end
  if live then extend(live[1], live[2], live[3], live[4]) end
  for _, m in ipairs(world.monsters) do extend(m.x - 6, m.y - 6, m.x + 6, m.y + 6) end
  for _, p in ipairs(painted) do extend(p[1] - p[3], p[2] - p[3], p[1] + p[3], p[2] + p[3]) end
  painted = {}
  x0, y0, x1, y1 = math.max(1, x0), math.max(1, y0), math.min(world.W, x1), math.min(world.H, y1)
  local nx0, ny0, nx1, ny1 = world.W + 1, world.H + 1, 0, 0
  local danger = world.danger
  for y = y0, y1 do
    for x = x0, x1 do
      local a = math.min(0.65, danger:get(x, y) * 0.16)
      if a < 0.02 then a = 0 end
      danger_data:setPixel(x - 1, y - 1, 0.9, 0.1, 0.1, a)
      if a > 0 then
        nx0, ny0, nx1, ny1 = math.min(nx0, x), math.min(ny0, y), math.max(nx1, x), math.max(ny1, y)
      end
    end
  end
  live = nx1 > 0 and { nx0, ny0, nx1, ny1 } or nil
  danger_image:replacePixels(danger_data)
end

-- Where a unit is drawn: between its cell and the next, as far as it has walked.
local function unit_pixel(u)
  local x, y = u.x, u.y
  if u.path and u.t > 0 then -- flat: x1, y1, x2, y2, ...
    x, y = x + (u.path[2 * u.step + 1] - x) * u.t, y + (u.path[2 * u.step + 2] - y) * u.t
  end
  return (x - 0.5) * CELL, (y - 0.5) * CELL
end

local function draw_path(u)
  local path = u.path
  if not path or 2 * u.step >= #path then return end
  local points = {}
  for i = 2 * u.step - 1, #path do points[#points + 1] = (path[i] - 0.5) * CELL end
  love.graphics.line(points)
end

local function draw_graph()
  local g = GRAPH
  love.graphics.setColor(0.12, 0.12, 0.14)
  love.graphics.rectangle("fill", g.x, g.y, g.w, g.h)
  local ai, tick = world:history()
  local scale, budget_ms = g.h / g.ms, BUDGET_US / 1000
  for i = 1, #ai do
    local x = g.x + i - 1
    -- every frame gets at least a pixel: a frame whose AI took no measurable time still shows
    local total = math.max(1, math.min(g.h, math.floor(ai[i] * scale + 0.5)))
    local part = math.min(total, math.floor(tick[i] * scale + 0.5))
    love.graphics.setColor(ai[i] > budget_ms and BAR_OVER or BAR_REST)
    love.graphics.rectangle("fill", x, g.y + g.h - total, 1, total - part)
    love.graphics.setColor(ai[i] > budget_ms and BAR_OVER or BAR_TICK)
    love.graphics.rectangle("fill", x, g.y + g.h - part, 1, part)
  end
  love.graphics.setColor(BUDGET_LINE)
  local by = g.y + g.h - math.floor(budget_ms * scale + 0.5)
  love.graphics.rectangle("fill", g.x, by, g.w, 1)
  love.graphics.setColor(0.9, 0.9, 0.9)
  love.graphics.print(string.format("AI ms per frame (last %d), %d ms high", g.w, g.ms), g.x, g.y - 16)
  love.graphics.print(string.format("budget %.1f ms", budget_ms), g.x + g.w - 90, by - 15)
  local median, p99, max = crowd.summary(ai)
  love.graphics.setColor(BAR_TICK)
  love.graphics.print("tick", g.x, g.y + g.h + 2)
  love.graphics.setColor(BAR_REST)
  love.graphics.print("checks, danger", g.x + 34, g.y + g.h + 2)
  love.graphics.setColor(BAR_OVER)
  love.graphics.print("over budget", g.x + 140, g.y + g.h + 2)
  love.graphics.setColor(0.9, 0.9, 0.9)
  love.graphics.print(string.format("median %.2f  p99 %.2f  max %.2f ms", median, p99, max), g.x, g.y + g.h + 18)
end

local function draw_panel()
  draw_graph()
  local c, waiting, shut = world.count, 0, 0
  for _, u in ipairs(world.units) do
    if u.ticket then waiting = waiting + 1 end
  end
  for _, d in ipairs(world.doors) do
    if not d.open then shut = shut + 1 end
  end
  local lines = {
    string.format("%d units: %d walkers, %d hunters", #world.units, #world.units - world.hunters, world.hunters),
    string.format("%d monsters spreading danger", #world.monsters),
    string.format("paths delivered %d (%.1f/s)", c.delivered, c.delivered / math.max(1, world.frames) * 60),
    string.format("waiting for a path: %d", waiting),
    string.format("doors shut: %d of %d", shut, #world.doors),
    string.format("paths a door broke: %d", c.door_replans),
    string.format("hunter goals re-aimed: %d", c.retargets),
    world.sched.retarget and "  (in flight: sched:retarget)" or "  (in flight: cancel, request)",
    string.format("budget: %s", world.budget_us and (world.budget_us .. " us a tick")
      or (world.budget .. " expansions a tick")),
    string.format("draw %.2f ms, %d fps", draw_ms, love.timer.getFPS()),
  }
  local stats = world:sched_stats()
  if type(stats) == "table" then -- the scheduler's own figures, where it keeps them
    local keys = {}
    for k, v in pairs(stats) do
      if type(v) == "number" then keys[#keys + 1] = k end
    end
    table.sort(keys)
    for i = 1, math.min(#keys, 12) do lines[#lines + 1] = string.format("sched %s: %.4g", keys[i], stats[keys[i]]) end
  end
  love.graphics.setColor(0.9, 0.9, 0.9)
  for i, line in ipairs(lines) do love.graphics.print(line, PANEL_X, GRAPH.y + GRAPH.h + 44 + (i - 1) * 16) end
  love.graphics.print((jit and jit.version or _VERSION) .. (paused and "   PAUSED" or ""), PANEL_X, 540)
end

function love.draw()
  local t0 = love.timer.getTime()
  love.graphics.clear(0.08, 0.08, 0.1)
  love.graphics.setColor(1, 1, 1)
  love.graphics.draw(map_image, 0, 0, 0, CELL, CELL)
  refresh_danger()
  love.graphics.draw(danger_image, 0, 0, 0, CELL, CELL)
  for _, d in ipairs(world.doors) do
    if d.open then love.graphics.setColor(0.75, 0.6, 0.35) else love.graphics.setColor(0.5, 0.25, 0.05) end
    love.graphics.rectangle(d.open and "line" or "fill", (d.x - 1) * CELL + 0.5, (d.y - 1) * CELL + 0.5, CELL - 1, CELL - 1)
  end
  if show_paths > 1 then
    love.graphics.setLineWidth(1)
    for i, u in ipairs(world.units) do
      if show_paths == 3 or i % 8 == 0 then
        local col = COLOR[u.kind]
        love.graphics.setColor(col[1], col[2], col[3], 0.45)
        draw_path(u)
      end
    end
  end
  local half = math.max(1, math.floor(CELL / 2))
  for _, u in ipairs(world.units) do
    local px, py = unit_pixel(u)
    love.graphics.setColor(COLOR[u.kind])
    love.graphics.rectangle("fill", math.floor(px) - half + 1, math.floor(py) - half + 1, 2 * half - 1, 2 * half - 1)
  end
  love.graphics.setColor(COLOR.monster)
  for _, m in ipairs(world.monsters) do
    local px, py = unit_pixel(m)
    love.graphics.circle("fill", px, py, CELL)
  end
  draw_panel()
  love.graphics.setColor(0.9, 0.9, 0.9)
  love.graphics.print("left click: open/shut a door   right drag: paint danger   P: paths   space: pause",
    8, MAP_H + 8)
  draw_ms = (love.timer.getTime() - t0) * 1000
end

-- The headless test: fixed frames of a run without a clock; a screenshot, then checks on what
-- it shows against the world's state.
if shot then
  local FIRST, LAST = 100, 160
  local frame, update, before = 0, love.update, {}
  love.update = function(dt)
    frame = frame + 1
    update(dt)
    if frame == FIRST then
      for i, u in ipairs(world.units) do before[i] = u.moves end
    end
    if frame == LAST then
      love.graphics.captureScreenshot(function(img)
        local f = assert(io.open(shot, "wb"))
        f:write(img:encode("png"):getString())
        f:close()
        local function near(r, g, b, want) -- a pixel of this colour, within rounding
          return math.abs(r - want[1]) < 0.03 and math.abs(g - want[2]) < 0.03 and math.abs(b - want[3]) < 0.03
        end
        -- 1. units walked between the two frames (the world's state)
        local moved = 0
        for i, u in ipairs(world.units) do
          if u.moves > before[i] then moved = moved + 1 end
        end
        -- 2. each unit is drawn where the world has it: its colour at the point it has walked to
        -- between its cell and the next (a monster or another unit may cover a few)
        local shown = 0
        for _, u in ipairs(world.units) do
          local x, y = u.x, u.y
          if u.t > 0 then x, y = x + (u.path[2 * u.step + 1] - x) * u.t, y + (u.path[2 * u.step + 2] - y) * u.t end
          local r, g, b = img:getPixel(math.floor((x - 0.5) * CELL), math.floor((y - 0.5) * CELL))
          if near(r, g, b, COLOR[u.kind]) then shown = shown + 1 end
        end
        -- 3. the graph: a bar in the column of every recorded frame, and the budget line
        local bars, line = 0, 0
        local by = GRAPH.y + GRAPH.h - math.floor(BUDGET_US / 1000 * GRAPH.h / GRAPH.ms + 0.5)
        for x = GRAPH.x, GRAPH.x + GRAPH.w - 1 do
          for y = GRAPH.y, GRAPH.y + GRAPH.h - 1 do
            local r, g, b = img:getPixel(x, y)
            if y ~= by and (near(r, g, b, BAR_TICK) or near(r, g, b, BAR_REST) or near(r, g, b, BAR_OVER)) then
              bars = bars + 1
              break
            end
          end
          local r, g, b = img:getPixel(x, by)
          if near(r, g, b, BUDGET_LINE) then line = line + 1 end
        end
        -- 4. the danger: a red cell two cells from each monster, in some direction
        local red = 0
        for _, m in ipairs(world.monsters) do
          local found = false
          for _, o in ipairs({ { 2, 0 }, { -2, 0 }, { 0, 2 }, { 0, -2 }, { 2, 2 }, { -2, -2 }, { 2, -2 }, { -2, 2 } }) do
            local x, y = m.x + o[1], m.y + o[2]
            if x >= 1 and y >= 1 and x <= world.W and y <= world.H then
              local r, g, b = img:getPixel(math.floor((x - 0.5) * CELL), math.floor((y - 0.5) * CELL))
              if r > 0.6 and g < 0.45 and b < 0.45 then found = true end
            end
          end
          if found then red = red + 1 end
        end
        local c = world.count
        print(string.format("frames %d-%d: %d of %d units walked, %d drawn at their place; graph bars in %d of "
          .. "%d columns, budget line %d px; danger around %d of %d monsters; %d paths delivered, %d broken "
          .. "by a door, %d goals re-aimed", FIRST, LAST, moved, #world.units, shown, bars, GRAPH.w, line, red,
          #world.monsters, c.delivered, c.door_replans, c.retargets))
        local ok = moved >= #world.units / 2 and shown >= #world.units * 0.8 and bars >= math.min(LAST, GRAPH.w) * 0.95
          and line >= GRAPH.w * 0.8 and red == #world.monsters and c.delivered >= #world.units
          and c.door_replans > 0 and c.retargets > 0 and c.invalid == 0
        love.event.quit(ok and 0 or 4)
      end)
    end
    if frame > LAST + 60 then love.event.quit(5) end
  end
end
