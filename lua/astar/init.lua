--- astar: fast A* pathfinding for game AI.
-- The C module astar.core does the work; this front is where convenience lives.
local core = require("astar.core")

local astar = {
  _VERSION = "astar " .. core.version,
  version = core.version,
  grid = core.grid,
  influence = core.influence,
  claims = core.claims,
}

return astar
