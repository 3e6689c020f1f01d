-- Fields, ranges and the nearest on a waypoint graph: a town's streets, a guard who walks at
-- most 30, a wounded soldier choosing among three healers (one with a queue), the way out
-- of town from every place through the nearer of two gates, and then with a one-way ferry.
--
--   lua5.4 examples/graph_fields.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

--                 Church(20,0)---Inn(30,0)
--                /      |               \
-- WestGate(0,5)-Square(10,5)            Tower(40,5)-EastGate(50,5)
--               |  \    |               /
--   Barracks(10,15) Market(20,10)---Smithy(30,10)
local town = astar.graph()
local id, name = {}, {}
for _, place in ipairs({
  { "WestGate", 0, 5 }, { "Square", 10, 5 }, { "Church", 20, 0 }, { "Market", 20, 10 },
  { "Inn", 30, 0 }, { "Smithy", 30, 10 }, { "Tower", 40, 5 }, { "EastGate", 50, 5 },
  { "Barracks", 10, 15 },
}) do
  local n = town:add_node(place[2], place[3])
  id[place[1]], name[n] = n, place[1]
end
for _, street in ipairs({
  { "WestGate", "Square" }, { "Square", "Church" }, { "Square", "Market" }, { "Square", "Barracks" },
  { "Church", "Market" }, { "Church", "Inn" }, { "Market", "Smithy" }, { "Inn", "Tower" },
  { "Smithy", "Tower" }, { "Tower", "EastGate" },
}) do
  town:add_edge(id[street[1]], id[street[2]]) -- cost nil: the street's length
end

local function names(ids)
  local out = {}
  for i, n in ipairs(ids) do out[i] = name[n] end
  return table.concat(out, " -> ")
end

-- 1. A range: every place the guard at the Square reaches for at most 30, cheapest first. It
-- costs what it reaches (here 7 places), not the town.
local reached = town:range(id.Square, 30)
local list = {}
for i, node in ipairs(reached) do list[i] = string.format("%s %.1f", name[node.id], node.cost) end
print("guard's range 30 from the Square: " .. table.concat(list, ", "))

-- 2. The nearest of three healers from the Market. The Church's healer has a queue: a target's
-- cost is added where the path ends there, so the choice changes; info.cost is the walk alone.
local healers = { id.Church, id.Barracks, id.Inn }
local ids, info = town:find_nearest(id.Market, healers)
print(string.format("nearest healer by walking: %s (walk %.1f): %s", name[healers[info.target]], info.cost, names(ids)))
ids, info = town:find_nearest(id.Market, { { id = id.Church, cost = 12 }, id.Barracks, { id = id.Inn, cost = 3 } })
print(string.format("nearest healer with the queues: %s (walk %.1f): %s", name[healers[info.target]], info.cost, names(ids)))

-- 3. A distance field from both gates: every place's cost to the nearer one (streets go both
-- ways, so the cost from a gate is the cost to it), and field:path read backwards is the way out.
local field = town:distance_field({ id.WestGate, id.EastGate })
for _, place in ipairs({ "Market", "Inn", "Barracks" }) do
  local way = field:path(id[place]) -- from the gate to the place
  local out = {}
  for i = #way, 1, -1 do out[#out + 1] = way[i] end
  print(string.format("way out from the %s (%.1f): %s", place, field:get(id[place]), names(out)))
end

-- 4. A ferry that only goes downstream, from the Inn to the WestGate (a one-way arc). A field
-- *from* the gates follows arcs out of them and never sees it; a field toward the gates
-- (toward = true: over the arcs reversed) is each place's cost to the nearer gate, and its
-- next and path are the way to walk. A crowd fleeing town reads it.
town:add_arc(id.Inn, id.WestGate, 8)
local from = town:distance_field({ id.WestGate, id.EastGate })
local out = town:distance_field({ id.WestGate, id.EastGate }, { toward = true })
print(string.format("from the Inn with the ferry: field from the gates %.1f, toward them %.1f: %s",
  from:get(id.Inn), out:get(id.Inn), names(out:path(id.Inn))))
