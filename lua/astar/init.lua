--- astar: fast A* pathfinding for game AI.
-- The C module astar.core does the work; this front is where convenience lives.
local core = require("astar.core")

local astar = {
  _VERSION = "astar " .. core.version,
  version = core.version,
  grid = core.grid,
  influence = core.influence,
  claims = core.claims,
  mask = core.mask,
  load_movingai = core.load_movingai,
  load_movingai_string = core.load_movingai_string,
  load_scen = core.load_scen,
  load_scen_string = core.load_scen_string,
}

return astar
