--- astar: fast A* pathfinding for game AI.
-- The front: what `require("astar")` returns. The C module astar.core does the work; the
-- conveniences written in Lua live in modules of their own, gathered here:
--   astar/smooth.lua     astar.smooth (string pulling; hex geometry in astar/hex.lua)
--   astar/scheduler.lua  astar.scheduler (a frame budget over grid:search jobs)
--   astar/debug.lua      astar.debug (ascii and PNG pictures)
--   astar/tiled.lua      astar.tiled (Tiled maps as grids)
--   astar/sandbox.lua    astar.sandbox (environments and read-only views for mod scripts)
--   astar/classes.lua    astar.class_names (terrain classes by name)
-- astar/args.lua holds the argument checks they share; astar/meta.lua the annotations.
local core = require("astar.core")

local astar = {
  _VERSION = "astar " .. core.version,
  version = core.version,
  grid = core.grid,
  influence = core.influence,
  claims = core.claims,
  mask = core.mask,
  graph = core.graph,
  load_movingai = core.load_movingai,
  load_movingai_string = core.load_movingai_string,
  load_scen = core.load_scen,
  load_scen_string = core.load_scen_string,
  set_work_limit = core.set_work_limit, -- a bound on the C work of this thread's calls (mods)
  work_left = core.work_left,
  smooth = require("astar.smooth").smooth, -- line-of-sight string pulling
  scheduler = require("astar.scheduler").scheduler, -- a frame budget over grid:search jobs
  debug = require("astar.debug"), -- pictures: ascii(), png(), explore()
  tiled = require("astar.tiled"), -- Tiled maps: grid()
  sandbox = require("astar.sandbox"), -- for mods: env(), view(), library(), load(), unwrap()
  flee = core.flee, -- flee(grid, x, y, threats, opts): grid:flee, a path to safety
  wander = core.wander, -- wander(grid, x, y, cost, opts): grid:wander, to a seeded random cell
  class_names = require("astar.classes").class_names, -- names for terrain classes: T.water, T{ water = 2 }
}

return astar
