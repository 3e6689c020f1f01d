-- The demos the README points at must keep running: each is run here with its
-- output captured, and what it claims to show is checked in that output.
require("astar") -- loaded once; the demos' own package.cpath then changes nothing
local scale = require("spec.support.scale")

local function run(path, args)
  local saved_arg = _G.arg
  _G.arg = args or saved_arg
  local lines, real_print = {}, _G.print
  _G.print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(parts, "\t")
  end
  local cpath = package.cpath -- a demo points it at ./build; other specs may use another build
  local ok, err = pcall(dofile, path)
  _G.print = real_print
  _G.arg = saved_arg
  package.cpath = cpath
  assert(ok, err)
  return lines
end

describe("examples", function()
  it("influence.lua: the scout's path keeps off the enemy's threat", function()
    local lines = run("examples/influence.lua")
    local plain = tonumber(lines[1]:match("^Plain terrain:.-threat met ([%d.]+)"))
    local wary, cost = lines[14]:match("^With the threat map.-threat met ([%d.]+), cost ([%d.]+)")
    assert.is_number(plain)
    -- wary minimises length + 2 x threat, plain length alone: wary meets no more threat, and
    -- on this map (the example's point) less; its cost counts the threat it still meets
    assert.is_true(tonumber(wary) < plain)
    assert.is_true(tonumber(cost) > 0)
    for i = 2, 13 do assert.truthy(lines[i]:match("^  |")) end -- two maps of 12 rows
    for i = 15, 26 do assert.truthy(lines[i]:match("^  |")) end
    assert.truthy(lines[#lines]:match("^threat peak"))
  end)

  it("toolkit.lua: fog, smooth, find_nearest and noise show what they claim", function()
    local out = table.concat(run("examples/toolkit.lua"), "\n")
    local blind, aware = out:match("runs into its wall %(!%), cost ([%d.]+);.-goes around, cost ([%d.]+)")
    local truth = out:match("with the true terrain: %d+ steps, cost ([%d.]+)")
    assert.is_true(tonumber(blind) < tonumber(aware))
    assert.are.equal(truth, aware)
    assert.truthy(out:find("!", 1, true)) -- the blind plan crosses the unseen wall
    local cells, points = out:match("(%d+) path cells %-> (%d+) waypoints")
    assert.is_true(tonumber(points) >= 2 and tonumber(points) < tonumber(cells) / 3)
    local well = tonumber(out:match("find_nearest: well (%d+) of 4"))
    assert.is_true(well >= 1 and well <= 4)
    local shared = tonumber(out:match("cells shared by two or more units: (%d+)"))
    assert.is_true(shared < 20) -- three routes of about 30 cells each
  end)

  it("graph.lua: danger, claims, a one-way ford and blocked places change the march", function()
    local out = table.concat(run("examples/graph.lua"), "\n")
    local function route(n)
      local line = out:match("\n" .. n .. "%. [^\n]*")
      assert(line, "no line " .. n)
      return line:match(":%s+(.*)$") -- the route, after the title
    end
    assert.truthy(route(1):find("Harbor -> Mill -> Bridge -> Keep -> Castle", 1, true))
    assert.falsy(route(2):find("Bridge", 1, true))           -- the archers are avoided
    assert.truthy(route(2):find("Marsh -> Ford", 1, true))
    assert.falsy(route(3):find("Marsh", 1, true))            -- the red army's road is left to it
    assert.falsy(route(4):find("Ford", 1, true))             -- no way back up the ford
    assert.falsy(route(5):find("Bridge", 1, true))
    assert.truthy(route(6):find("no way (unreachable)", 1, true))
    local c1, c3 = tonumber(route(1):match("cost ([%d.]+)")), tonumber(route(3):match("cost ([%d.]+)"))
    assert.is_true(c3 > c1)
  end)

  it("graph_fields.lua: a range, the nearest healer with queues, the way out through the nearer gate", function()
    local out = table.concat(run("examples/graph_fields.lua"), "\n")
    -- the streets' lengths by hand: the Tower is 10 + 11.2 + 10 + 11.2 = 42.4 from the Square
    local range = out:match("guard's range 30 from the Square: ([^\n]*)")
    local places = {}
    for place, cost in range:gmatch("(%a+) ([%d.]+)") do
      places[#places + 1] = place
      assert.is_true(tonumber(cost) <= 30)
    end
    assert.are.equal(7, #places)
    assert.falsy(range:find("Tower", 1, true))
    assert.truthy(out:find("nearest healer by walking: Church (walk 10.0)", 1, true))
    -- the Church's queue of 12 makes it 22, the Barracks 21.2 away with none
    assert.truthy(out:find("nearest healer with the queues: Barracks (walk 21.2): Market -> Square -> Barracks", 1, true))
    assert.truthy(out:find("way out from the Market (21.2): Market -> Square -> WestGate", 1, true))
    assert.truthy(out:find("way out from the Inn (21.2): Inn -> Tower -> EastGate", 1, true))
    -- the one-way ferry: only the field toward the gates takes it
    assert.truthy(out:find("from the Inn with the ferry: field from the gates 21.2, toward them 8.0: Inn -> WestGate", 1, true))
  end)

  it("demo.lua runs", function()
    local lines = run("examples/demo.lua")
    assert.is_true(#lines > 10)
  end)
  it("tactics.lua: hex range, flow field, claim windows and turns show what they claim", function()
    local out = table.concat(run("examples/tactics.lua"), "\n")
    local reach = tonumber(out:match("(%d+) hexes in reach"))
    assert.is_true(reach > 10 and reach < 40)
    assert.truthy(out:find("hex path to %(9,4%): %d+ hexes, cost [%d.]+"))
    assert.is_nil(out:match("%?")) -- every walkable cell of the flow field has its next step
    local crowd = tonumber(out:match("a crowd of (%d+) units followed the arrows home"))
    assert.is_true(crowd >= 20)
    local far = out:match("far away.-every claim counted: (%a+), cost [%d.]+; claim_window = 2: (%a+)")
    assert.are.equal("bypass", far)
    assert.truthy(out:match("far away.-claim_window = 2: corridor"))
    assert.truthy(out:match("near: they would meet inside\n.-claim_window = 2: bypass"))
    local fewer, plain = out:match("(%d+) turns instead of (%d+)")
    assert.is_true(tonumber(fewer) < tonumber(plain))
  end)

  it("dead_ends.lua: areas drawn, the same cost with fewer expansions when skipped", function()
    local out = table.concat(run("examples/dead_ends.lua"), "\n")
    local areas = tonumber(out:match("\n(%d+) areas\n"))
    assert.is_true(areas and areas >= 8)
    local c1, e1 = out:match("dead_ends = false: cost ([%d.]+), (%d+) expansions")
    local c2, e2 = out:match("dead_ends = true: cost ([%d.]+), (%d+) expansions")
    assert.are.equal(c1, c2)
    assert.is_true(tonumber(e2) < tonumber(e1) / 2)
  end)

  it("picture.lua: writes the PNG it names, the path around the danger", function()
    local out = os.tmpname()
    local lines = run("examples/picture.lua", { "spec/maps/forest32x32.map", out })
    local bytes = tonumber(lines[1]:match("%((%d+) bytes%)$"))
    local f = assert(io.open(out, "rb"))
    local png = f:read("*a")
    f:close()
    os.remove(out)
    assert.are.equal(bytes, #png)
    assert.are.equal("\137PNG\r\n\26\n", png:sub(1, 8))
    assert.truthy(lines[1]:match("path of %d+ cells"))
  end)

  it("classes.lua: the boat keeps to water, cavalry takes the road round the forest, infantry the forest", function()
    local out = table.concat(run("examples/classes.lua"), "\n")
    local units = {}
    for name, cost, water, ground, road, forest in out:gmatch(
      "(%a+): %d+ steps, cost ([%d.]+); cells: water (%d+), ground (%d+), road (%d+), forest (%d+)") do
      units[name] = { cost = tonumber(cost), water = tonumber(water), ground = tonumber(ground),
                      road = tonumber(road), forest = tonumber(forest) }
    end
    local boat, cavalry, infantry = units.boat, units.cavalry, units.infantry
    assert.is_true(boat.water > 20 and boat.ground + boat.road + boat.forest == 0)
    assert.is_true(cavalry.forest == 0 and cavalry.road > 20 and cavalry.water == 0)
    assert.is_true(infantry.forest > 20 and infantry.water == 0)
    assert.is_true(cavalry.cost < infantry.cost) -- the same trip, cheaper for horses on the road
    local reach = {}
    for name, east in out:gmatch("(%a+) reaches %d+ cells within 12, as far east as x = (%d+)") do
      reach[name] = tonumber(east)
    end
    assert.is_true(reach.cavalry > reach.infantry)
  end)

  it("tank_and_infantry.lua: the soldier takes the 1-cell gap, the 2x2 tank the gate, and none once it is shut", function()
    local lines = run("examples/tank_and_infantry.lua")
    local ssteps, scost, sgap = lines[1]:match("^Soldier: (%d+) steps, cost ([%d.]+), through the gap: (%a+)")
    local tsteps, tcost, tgap, tgate =
      lines[2]:match("^Tank %(2x2%): (%d+) steps, cost ([%d.]+), through the gap: (%a+), through the gate: (%a+)")
    assert.are.equal("true", sgap)
    assert.are.same({ "false", "true" }, { tgap, tgate })
    assert.is_true(tonumber(tcost) > tonumber(scost) and tonumber(tsteps) > tonumber(ssteps))
    local drawn = table.concat(lines, "\n", 3, 14)
    local _, walls = drawn:gsub("#", "")
    assert.are.equal(67, walls) -- every wall cell of the map still drawn: no footprint covers one
    local tank_reach, soldier_reach = lines[15]:match("^The tank reaches (%d+) anchors for 12; the soldier (%d+) cells")
    assert.is_true(tonumber(tank_reach) < tonumber(soldier_reach))
    assert.truthy(lines[16]:match("^Gate half shut: tank unreachable, soldier walks %d+ steps"))
  end)

  it("flee.lua: the scout ends safe, never nearer an archer than it stood; wander repeats per seed", function()
    local lines = run("examples/flee.lua")
    local from, away, safe = lines[1]:match("^Scout at %(%d+,%d+%), ([%d.]+) from .- cost [%d.]+, ([%d.]+) away %((%a+)%)")
    local nearest = tonumber(lines[2]:match("on the way: ([%d.]+)"))
    assert.are.equal("safe", safe)
    assert.is_true(tonumber(away) >= 8 and tonumber(from) < 8)
    assert.is_true(math.abs(nearest - tonumber(from)) < 1e-9)
    local seen = 0
    for _, line in ipairs(lines) do
      local x, y, cost, ax, ay = line:match("^Wander seed %d: to %((%d+),(%d+)%), cost ([%d.]+), .- again: %((%d+),(%d+)%)")
      if x then
        seen = seen + 1
        assert.are.same({ x, y }, { ax, ay })
        assert.is_true(tonumber(cost) >= 7.5 and tonumber(cost) <= 12.5)
      end
    end
    assert.are.equal(3, seen)
  end)

  it("pickups.lua: the pack is grabbed only when the detour costs less than it is worth", function()
    local lines = run("examples/pickups.lua")
    local plain = tonumber(lines[1]:match("cost ([%d.]+)"))
    local seen = 0
    for _, line in ipairs(lines) do
      local value, what, cost, score, detour =
        line:match("^Pack %a+, worth ([%d.]+): (%a+), cost ([%d.]+), score ([%d.]+) %(detour ([%d.]+)%)")
      if value then
        seen = seen + 1
        value, cost, score, detour = tonumber(value), tonumber(cost), tonumber(score), tonumber(detour)
        if what == "grabbed" then
          assert.is_true(detour < value) -- worth it
          assert.is_true(math.abs(score - (cost - value)) < 0.01)
        else
          assert.are.equal("left", what)
          assert.is_true(math.abs(cost - plain) < 0.01 and math.abs(score - cost) < 0.01)
        end
      end
    end
    assert.are.equal(6, seen)
    assert.truthy(lines[#lines]:match("^Three packs: grabs pack 2"))
  end)

  it("repair.lua: the local repair rejoins past the blockage for a fraction of a fresh find's work", function()
    local out = table.concat(run("examples/repair.lua"), "\n")
    local bad = tonumber(out:match("check_path from cell 30: cell (%d+) is no longer allowed"))
    assert.are.equal(36, bad)
    local rejoin, cost, local_work =
      out:match("Local repair %(rejoin_within = 12%): found, rejoins at cell (%d+), cost ([%d.]+), (%d+) expansions")
    local all_cost = out:match("Repair over every later cell: rejoins at cell %d+, cost ([%d.]+), %d+ expansions")
    local fresh_cost, fresh_work = out:match("A fresh find from there: cost ([%d.]+), (%d+) expansions")
    assert.is_true(tonumber(rejoin) > bad)
    assert.are.equal(fresh_cost, all_cost) -- every later cell: the goal too, so a fresh find's cost
    assert.is_true(tonumber(cost) >= tonumber(fresh_cost))
    assert.is_true(tonumber(local_work) * 2 < tonumber(fresh_work))
    assert.truthy(out:match("The repaired path is clear: true"))
  end)

  it("living_world.lua: a prepared level, paths checked with since, a shut room told at once", function()
    local out = table.concat(run("examples/living_world.lua"), "\n")
    assert.is_true(tonumber(out:match("Prepared at load: (%d+) units of work")) > 0)
    local doors = 0
    for _ in out:gmatch("frame %d+: door %(%d+,%d+%) %a+; grid version %d+") do doors = doors + 1 end
    assert.are.equal(6, doors)
    local checks, broken, repaired, told, spent =
      out:match("(%d+) path checks, (%d+) found broken: (%d+) repaired, (%d+) told unreachable after (%d+) expansions")
    assert.are.equal(4800, tonumber(checks))
    assert.is_true(tonumber(repaired) > 0 and tonumber(told) > 0)
    assert.are.equal(tonumber(broken), tonumber(repaired) + tonumber(told))
    assert.are.equal(0, tonumber(spent)) -- the labels split at the write: no search
    local cost, restarts =
      out:match("Long search: found, cost ([%d.]+), %d+ expansions; while doors toggled it restarted (%d+) times")
    assert.are.equal(0, tonumber(restarts)) -- the doors it crossed were repaired, the others not its business
    local fresh = out:match("A find on the terrain the search ended on %(frame %d+%): cost ([%d.]+)")
    assert.are.equal(fresh, cost) -- exact for the terrain at the job's end
  end)

  it("crowd.lua: 200 units through one scheduler: every one walks, doors and moving goals replan", function()
    -- A budget of expansions, not of time: the same run on every machine and build. Under
    -- valgrind (spec/support/scale.lua) half the frames: every count below holds from frame 120.
    local frames = math.max(120, scale(240))
    local out = table.concat(run("examples/crowd.lua", { tostring(frames), "4000" }), "\n")
    local units, doors = out:match("Town 128x88: (%d+) units %(40 hunters%), 4 monsters, (%d+) doors")
    assert.are.equal(200, tonumber(units))
    assert.is_true(tonumber(doors) >= 20)
    local requests, delivered, invalid =
      out:match(frames .. " frames: (%d+) requests, (%d+) paths delivered %(%d+ found none%), (%d+) found broken")
    assert.is_true(tonumber(delivered) >= 204) -- every unit and monster planned at least once
    assert.is_true(tonumber(delivered) <= tonumber(requests))
    assert.are.equal(0, tonumber(invalid)) -- each path allowed by the terrain it was delivered on
    local toggles, replans, aimed =
      out:match("(%d+) door toggles, (%d+) paths a door broke planned again, (%d+) hunter goals re%-aimed")
    assert.is_true(tonumber(toggles) >= frames / 30 - 2) -- one every 30 frames, unless a unit stands in the door
    assert.is_true(tonumber(replans) > 0)
    assert.is_true(tonumber(aimed) > 0)
    assert.are.equal("0", out:match("Units that never moved: (%d+) of 200"))
    assert.truthy(out:match("AI ms per frame: median [%d.]+, p99 [%d.]+, max [%d.]+"))
  end)

  it("hierarchy.lua: two-tier search expands less, costs a little more, rebuilds what a wall touched", function()
    local out = table.concat(run("examples/hierarchy.lua"), "\n")
    local flat_cost, flat_exp = out:match("A%*: +cost ([%d.]+), (%d+) expansions")
    local cost, tiered_exp = out:match("two%-tier: +cost ([%d.]+) %([%d.]+x%), (%d+) expansions")
    assert.is_true(tonumber(tiered_exp) < tonumber(flat_exp))
    assert.is_true(tonumber(cost) >= tonumber(flat_cost) - 1e-6)
    local exact, danger = out:match("with danger: A%* cost ([%d.]+); two%-tier cost ([%d.]+)")
    assert.is_true(tonumber(danger) >= tonumber(exact) - 1e-6)
    assert.truthy(out:match("after closing a street: [1-9]%d* clusters dirty"))
    assert.truthy(out:match("replanned: .- 0 clusters dirty now"))
  end)
end)
