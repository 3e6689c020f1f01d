-- General graphs at a glance: a small board of named places joined by roads,
-- a river ford you can only cross downstream, and what danger, claims and a
-- burned bridge do to an army's march.
--
--   lua5.4 examples/graph.lua        (after building; see README)
package.path = "./lua/?.lua;./lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("ASTAR_BUILD") or "./build") .. "/?.so;" .. package.cpath

local astar = require("astar")

--            Tower(6,0)
--           /         \
--  Harbor(0,2)-Mill(3,2)-Bridge(6,2)-Keep(9,2)-Castle(12,2)
--           \         /                \       /
--            Marsh(5,4)----Ford(8,4)----Pass(10,4)
local board = astar.graph()
local id, name = {}, {}
for _, place in ipairs({
  { "Harbor", 0, 2 }, { "Mill", 3, 2 }, { "Bridge", 6, 2 }, { "Keep", 9, 2 }, { "Castle", 12, 2 },
  { "Tower", 6, 0 }, { "Marsh", 5, 4 }, { "Ford", 8, 4 }, { "Pass", 10, 4 },
}) do
  local n = board:add_node(place[2], place[3])
  id[place[1]], name[n] = n, place[1]
end
local function road(a, b, cost) board:add_edge(id[a], id[b], cost) end -- cost nil: the distance
road("Harbor", "Mill")
road("Mill", "Bridge")
road("Bridge", "Keep")
road("Keep", "Castle")
road("Mill", "Tower", 4)   -- a steep climb: dearer than its length
road("Tower", "Keep", 4)
road("Mill", "Marsh", 3)   -- mud
road("Ford", "Pass")
road("Pass", "Castle")
board:add_arc(id.Marsh, id.Ford, 2) -- the current carries you downstream, never back

local function show(title, ids, info)
  local names = {}
  for i, n in ipairs(ids or {}) do names[i] = name[n] end
  if ids then
    print(string.format("%-44s %s  (cost %.1f)", title, table.concat(names, " -> "), info.cost))
  else
    print(string.format("%-44s no way (%s)", title, info.status))
  end
end

print(string.format("A board of %d places and %d one-way arcs (a road is two).\n", board.nodes, board.arcs))

local from, to = id.Harbor, id.Castle
show("1. the shortest march:", board:find(from, to))

-- Danger: one number per place (a Lua array), weighted into every step that enters it.
local danger = {}
for n = 1, board.nodes do danger[n] = 0 end
danger[id.Bridge] = 6 -- archers on the bridge
show("2. archers on the Bridge (influence):", board:find(from, to, { influence = danger }))

-- Claims: another army's planned route makes its places dearer to share.
local claims = astar.claims(board)
claims:claim("red army", { id.Marsh, id.Ford, id.Pass })
show("3. ... and the red army marches the Marsh:",
  board:find(from, to, { influence = danger, claims = claims, unit = "blue army", claim_penalty = 4 }))

-- The ford is one-way: going home cannot use it.
show("4. the way back (the ford runs one way):", board:find(to, from, { influence = danger }))

board:set_blocked(id.Bridge, true)
show("5. the Bridge burned (set_blocked):", board:find(from, to))
board:set_blocked(id.Marsh, true)
show("6. ... and the Marsh flooded:", board:find(from, to, { node_cost = function(n)
  if n == id.Tower then return false end -- and a script forbids the Tower
end }))
