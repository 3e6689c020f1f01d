rockspec_format = "3.0"
package = "astar"
version = "scm-1"
source = {
   url = "git+file:///dev/null/astar.git", -- built from a checkout: luarocks make
}
description = {
   summary = "Fast A* pathfinding in C for game AI, with per-query costs from Lua",
   detailed = [[
A C11 A* core (grids, influence layers, unit claims, C and Lua cost callbacks)
with a thin Lua binding: game scripts decide per query what a step costs.
]],
   license = "MIT",
}
dependencies = {
   "lua >= 5.1",
}
build = {
   type = "builtin",
   modules = {
      ["astar.core"] = {
         sources = {
            "src/core.c",
            "src/pages.c",
            "src/nodes.c",
            "src/cost.c",
            "src/islands.c",
            "src/dead_ends.c",
            "src/clearance.c",
            "src/jps_table.c",
            "src/landmarks.c",
            "src/hierarchy.c",
            "src/grid.c",
            "src/smooth.c",
            "src/layers.c",
            "src/movingai.c",
            "src/graph.c",
            "src/graph_search.c",
            "src/query.c",
            "src/grid_cost.c",
            "src/jps.c",
            "src/search.c",
            "src/grid_loop.c",
            "src/jobs.c",
            "src/repair.c",
            "src/field.c",
            "src/flee.c",
            "src/landmark_build.c",
            "src/hier_build.c",
            "src/prepare.c",
            "src/many.c",
            "src/build.c",
            "src/hier_find.c",
            "src/lua/astar_core.c",
            "src/lua/largs.c",
            "src/lua/lclass.c",
            "src/lua/lquery.c",
            "src/lua/lanswer.c",
            "src/lua/lgrid.c",
            "src/lua/lfind.c",
            "src/lua/lrepair.c",
            "src/lua/ljob.c",
            "src/lua/lbuild.c",
            "src/lua/lfield.c",
            "src/lua/lflee.c",
            "src/lua/llayers.c",
            "src/lua/lclaims.c",
            "src/lua/lgraph.c",
            "src/lua/lload.c",
            "src/lua/lpng.c",
            "src/lua/llimit.c",
         },
         incdirs = { "src" },
         libraries = { "m", "pthread" }, -- find_many's threads
      },
      astar = "lua/astar/init.lua",
      ["astar.args"] = "lua/astar/args.lua", -- argument checks smooth and scheduler share
      ["astar.smooth"] = "lua/astar/smooth.lua",
      ["astar.hex"] = "lua/astar/hex.lua", -- hex geometry for smooth
      ["astar.scheduler"] = "lua/astar/scheduler.lua",
      ["astar.debug"] = "lua/astar/debug.lua",
      ["astar.tiled"] = "lua/astar/tiled.lua", -- JSON through lua-cjson or dkjson, if installed
      ["astar.sandbox"] = "lua/astar/sandbox.lua", -- environments and views for mod scripts
      ["astar.classes"] = "lua/astar/classes.lua", -- class_names
      ["astar.meta"] = "lua/astar/meta.lua", -- LuaCATS annotations for editors, never required
   },
}
test = {
   -- Not type "busted": that wants busted as a rock and goes online for it; this runs the
   -- busted installed on the system (Debian's lua-busted), with LuaRocks' interpreter.
   type = "command",
   script = "spec/luarocks_test.lua",
}
