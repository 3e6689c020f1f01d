---@meta astar
-- LuaCATS annotations of the whole public API, for lua-language-server (completion, hover and
-- type checks in editors). Never loaded at run time: the functions live in astar.core (C) and
-- the Lua front, lua/astar/*.lua (init.lua gathers smooth.lua, scheduler.lua, debug.lua and
-- tiled.lua). spec/28_annotations_spec.lua checks that every function the module and its
-- objects offer is annotated here. The contract itself is docs/contract.md.
-- luacheck: ignore

---@alias astar.Diagonal "never"|"always"|"one_walkable"|"no_corner_cut"
---@alias astar.Status "found"|"unreachable"|"limit"|"partial"
---@alias astar.Heuristic "octile"|"manhattan"|"euclidean"|"chebyshev"|"zero"|"hex"|fun(x: integer, y: integer, gx: integer, gy: integer): number
---@alias astar.Falloff "linear"|"quadratic"|"constant"
---@alias astar.Unit integer|string
---@alias astar.Extra number|false|nil a cost to add (>= 0), nil for none, false to block

---@class astar.Point
---@field x integer
---@field y integer

---@alias astar.Path astar.Point[] start and goal included
---@alias astar.FlatPath integer[] path = "flat": { x1, y1, x2, y2, ... }, two numbers per cell
---@alias astar.AnyPath astar.Path|astar.FlatPath|integer[][] every form find returns (points {x=, y=} or {x, y}, flat, an into table); every function taking a grid path takes each

---@class astar.Info
---@field status astar.Status|"running"|"error"|"done" "error": a scheduler's request whose search raised an error; "done": a distance field or range built to the end
---@field cost number? total cost of the path (found and partial)
---@field expansions integer nodes taken off the open list (absent with status "error")
---@field error any? status "error": the error value the search raised
---@field length integer? number of points of the path
---@field reason "unreachable"|"limit"? why a partial answer is partial
---@field target integer? find_nearest: index of the target reached
---@field restarts integer? a resumable search: times it started over after a terrain change it could not follow
---@field repairs integer? a resumable search: terrain changes under its nodes it repaired without starting over
---@field reached integer? a distance field or range: how many cells it reached
---@field score number? with interests: what the answer minimised, cost minus the value collected
---@field interest integer? with interests, found: index of the interest the path collects (nil: none)
---@field rejoin integer? repair: the index in the old path where the new one rejoins it
---@field replanned true? repair: no rejoin cell could be reached; the path (if any) is a fresh find's
---@field abstract_expansions integer? find with hierarchical = true: abstract nodes expanded (also counted in expansions, with the insertions and the refinement)
---@field fallback boolean? find with hierarchical = true: true when the corridor failed and a search of the whole grid answered
---@field version integer every grid or graph answer: the grid's (graph's) version it was computed on (grid:version()); what check_path's option since takes

---@class astar.GridOptions
---@field diagonal astar.Diagonal? default "no_corner_cut"
---@field cost number? every cell's cost at the start (default 1)
---@field topology "square"|"hex"? "hex": odd-r offset hexes, six neighbours

---@class astar.FindOptions
---@field heuristic astar.Heuristic? default octile (manhattan for "never", hex on hexes)
---@field weight number? >= 1; the cost is at most weight x the optimum
---@field diagonal astar.Diagonal? overrides the grid's mode for this query
---@field influence astar.Influence|{ [1]: astar.Influence, [2]: number }[]? penalty layers
---@field influence_weight number? weight of a single influence layer (default 1)
---@field claims astar.Claims? other units' claimed nodes cost claim_penalty each
---@field unit astar.Unit? the querying unit: its own claim never counts
---@field claim_penalty number? default 5
---@field claim_radius integer? count only units within this Chebyshev distance of the start
---@field claim_window integer? a claim counts only when the two units would meet within w steps
---@field node_cost fun(x: integer, y: integer): astar.Extra? once per node per query
---@field edge_cost fun(x: integer, y: integer, from_x: integer, from_y: integer): astar.Extra?
---@field max_expansions integer? stop with "limit" after this many expansions
---@field max_cost number? paths dearer than this are not found ("limit")
---@field partial boolean? when not found, the path to the expanded node nearest the goal
---@field known astar.Mask? fog of war: unknown cells are walkable at cost 1
---@field turn_penalty number? added to every step that changes direction
---@field noise number? adds noise x a deterministic value in [0, 1) per cell
---@field seed integer? the noise's seed
---@field jump boolean? false: never jump point search (default: on for uniform queries)
---@field classes table<integer, number|false>? terrain classes (grid:set_class): { [class] = factor or false }; a cell's terrain cost is multiplied by its class's factor (in (0, 1e100]; 1 for a class not listed), false blocks the class; read raw (no metamethods). Every grid query: find, find_nearest, find_many, their jobs, distance_field, field_job, range, check_path (the whole path is walked: since is not used), repair, flee and wander. Names: astar.class_names
---@field size integer? a unit of size x size cells (1..8, default 1), the path's cells its top-left: every cell it covers must be walkable, a step costs the dearest cell it newly covers (docs/contract.md, Units bigger than one cell). Every grid query and job, flee and wander included (with known or classes: the footprint as the query sees it; hierarchical: the clusters of that size); not on hexes
---@field path "points"|"flat"? the path's form (find, find_nearest, their jobs search and search_nearest, repair): default "points"
---@field into table? find, find_nearest, search, search_nearest, repair, graph:find: the path is written into this table (raw), returned; emptied when there is no path
---@field info table? find, find_nearest, search, search_nearest, repair, graph:find: the info is written into this table (raw), returned
---@field interests (astar.Interest|astar.GraphInterest)[]? pick-ups: the path may pass one to collect its value; the answer minimises cost minus the value collected (not with partial, distance fields, check_path or repair)
---@field since integer? check_path only: a version the whole path was allowed at (info.version of the find that made it); only the cells near those blocked since are read (nil at once when none was). Terrain only: with node_cost, edge_cost, known or classes the full walk runs. Needs a grid path as find returns it (a chain of neighbours; a smoothed one is refused where seen)
---@field rejoin_within integer? repair only: rejoin the old path only at the k cells beyond the blockage (a local repair, much cheaper); default every later cell
---@field toward boolean? graph:distance_field only: true, each node's cost *to* the nearest source over the arcs reversed (a flow field on one-way arcs: next(id) is its next step, path(id) the way from id); a source the query cannot enter is none. Default false: the cost from the sources along the arcs. A grid's field is toward its goals already

---@class astar.FleeOptions: astar.FindOptions
---@field distance number required, in (0, 1e100]: a cell is safe when its threat distance (its terrain cost to the nearest threat, under the query's diagonal: one cell on the plain terrain, whatever classes or size) is at least this; with size, an anchor's threat distance is the least of its footprint's cells
---@field radius number? >= 0, default 2 * distance: the most the unit spends getting there (max_cost is refused: this is the budget)
---@field threshold number? threats given as an influence layer: its cells whose value is above this (>= 0, default 0) are the threats

---@class astar.WanderOptions: astar.FindOptions
---@field tolerance number? in 0..1, default 0.25: the band is cost * (1 - tolerance) .. cost * (1 + tolerance)

---@class astar.FleeInfo: astar.Info
---@field x integer the path's last cell
---@field y integer
---@field safe boolean its threat distance is at least distance
---@field threat_distance number? its threat distance (with size: the least of its footprint's cells; nil: beyond distance)

---@class astar.WanderInfo: astar.Info
---@field x integer the path's last cell
---@field y integer
---@field in_band boolean its cost is within the band (false: none was; one of the dearest reached)
---@field candidates integer the cells the seed picked among

---@class astar.Interest
---@field x integer
---@field y integer
---@field value number in (0, 1048576] (2^20, so that scores stay exact): what collecting it is worth, in cost units ({x, y, value} works too)

---@class astar.GraphInterest
---@field id integer a node
---@field value number in (0, 1048576] (2^20) ({id, value} works too)
---@field path "points"|"flat"? the path's form (find, find_nearest): default "points"
---@field into table? find, find_nearest, graph:find: the path is written into this table (raw), returned; emptied when there is no path
---@field info table? find, find_nearest, graph:find: the info is written into this table (raw), returned
---@field hierarchical boolean? find and search only (a job runs it whole in its first step): two-tier search on the grid's hierarchy (built with cluster size 12 when there is none): abstract path, then A* under every option inside its corridor of clusters; approximate (docs/design/hierarchy.md)
---@field dead_ends boolean? false: search dead ends too (default: skip every area behind one gateway that holds nothing the query needs; the same cost)

---@class astar.FindResult
---@field path astar.Path?
---@field info astar.Info

---@class astar.Query
---@field [1] integer sx
---@field [2] integer sy
---@field [3] integer gx
---@field [4] integer gy

---@class astar.RangeCell: astar.Point
---@field cost number

---@class astar.MapMeta
---@field width integer
---@field height integer
---@field type string the map's "type" line (octile)

---@class astar.Scenario
---@field bucket integer
---@field map string
---@field width integer
---@field height integer
---@field sx integer
---@field sy integer
---@field gx integer
---@field gy integer
---@field optimal number the scenario's optimal path length

---@class astar.DebugOptions
---@field path astar.AnyPath|astar.AnyPath[]? one path or several, in any form
---@field explored astar.Point[]|astar.Field|(fun(x: integer, y: integer): boolean)?
---@field influence astar.Influence? a heat map: red above 0, blue below
---@field claims astar.Claims? claimed cells
---@field scale integer? png: pixels per cell, 1..64 (2..64 on hexes); at most 2^25 pixels in all

---@class astar
---@field version string
---@field _VERSION string
---@field debug astar.debug pictures of a grid
---@field tiled astar.tiled Tiled maps
---@field sandbox astar.sandbox environments and read-only views for untrusted mod scripts
local astar = {}

---A grid of cells with terrain costs.
---@param width integer 1..32768
---@param height integer 1..32768
---@param opts astar.GridOptions?
---@return astar.Grid
function astar.grid(width, height, opts) end

---A layer of numbers, one per cell, passed to queries by reference (influence maps).
---@param width integer
---@param height integer
---@param initial number? default 0
---@return astar.Influence
function astar.influence(width, height, initial) end

---Units' claimed paths over a grid (or a graph: claims by node id).
---@param grid astar.Grid|astar.Graph
---@return astar.Claims
function astar.claims(grid) end

---A player's knowledge of the map (fog of war); everything starts unknown.
---@param width integer
---@param height integer
---@return astar.Mask
function astar.mask(width, height) end

---A general graph of nodes and arcs.
---@return astar.Graph
function astar.graph() end

---Jobs for many units sharing a per-tick budget: `budget` expansions (default 5000; none with
---`budget_us` alone) and `budget_us` microseconds of `clock` (default astar.core.clock: os.clock's CPU seconds, a
---performance counter's on Windows, where os.clock counts milliseconds), a tick
---overrunning it by at most one small slice.
---@param opts { budget: integer?, budget_us: number?, concurrent: integer?, aging: number?, clock: (fun(): number)? }?
---@return astar.Scheduler
function astar.scheduler(opts) end

---Line-of-sight string pulling: the path's turning points, never through a blocked cell. Greedy farthest visible; on squares in the core, about linear in the path (counts its work).
---@param grid astar.Grid
---@param path astar.AnyPath any form find returns
---@param opts { diagonal: astar.Diagonal? }?
---@return astar.Path
function astar.smooth(grid, path, opts) end

---grid:flee as a function (the same C function): astar.flee(grid, x, y, threats, opts).
---@param grid astar.Grid
---@param x integer
---@param y integer
---@param threats astar.Point[]|astar.Influence
---@param opts astar.FleeOptions
---@return (astar.Path|astar.FlatPath) path
---@return astar.FleeInfo info
function astar.flee(grid, x, y, threats, opts) end

---grid:wander as a function (the same C function): astar.wander(grid, x, y, cost, opts).
---@param grid astar.Grid
---@param x integer
---@param y integer
---@param cost number
---@param opts astar.WanderOptions?
---@return (astar.Path|astar.FlatPath) path
---@return astar.WanderInfo info
function astar.wander(grid, x, y, cost, opts) end

---Names for terrain classes: `T.water` is its id (an unknown name is an error), and `T({ water = false, forest = 2 })` a `classes` table keyed by ids (ids may be given as they are; a class given twice is an error). Tables are read raw (no metamethods); the object is read-only.
---@param names table<string, integer> name -> class id 0..255
---@return astar.ClassNames names
function astar.class_names(names) end

---Loads a Moving AI .map file.
---@param path string
---@return astar.Grid grid
---@return astar.MapMeta meta
function astar.load_movingai(path) end

---Parses a Moving AI map held in a string.
---@param text string
---@param name string? for error messages
---@return astar.Grid grid
---@return astar.MapMeta meta
function astar.load_movingai_string(text, name) end

---Loads a Moving AI .scen file (coordinates converted to 1-based).
---@param path string
---@return astar.Scenario[]
function astar.load_scen(path) end

---Parses a Moving AI scenario list held in a string.
---@param text string
---@param name string? for error messages
---@return astar.Scenario[]
function astar.load_scen_string(text, name) end

---Bounds the C work of the astar calls made on this thread from now on (shared by every Lua
---state on the thread): at most n more units in all (a unit: a node a search expands, a cell
---a pass over a grid reads or writes; docs/manual.md, "Bounding a mod's work"). A call that
---would exceed it raises "work limit reached" and changes nothing: its objects stay usable, a
---search or build can be stepped again; every later call that does work raises the same at
---once, until the limit is set again. nil removes the limit.
---@param n integer? >= 0, or nil for none
function astar.set_work_limit(n) end

---The units of work the limit still allows on this thread, or nil when there is no limit.
---@return integer?
function astar.work_left() end

---@class astar.ClassNames: { [string]: integer }
---@overload fun(classes: table<string|integer, number|false>): table<integer, number|false>

---@class astar.Grid
---@field width integer
---@field height integer
---@field diagonal astar.Diagonal|"hex" the grid's diagonal mode (read-only); "hex" on a hex grid
---@field topology "square"|"hex"
local Grid = {}

---@return integer width
---@return integer height
function Grid:size() end

---The grid's version: a count of its terrain changes (every cost write that changes a cell, a
---bulk write). info.version of an answer computed now; what check_path's option since takes.
---@return integer
function Grid:version() end

---@param x integer
---@param y integer
---@param cost number|false > 0 walkable with that cost; false or math.huge blocked
function Grid:set_cost(x, y, cost) end

---@param x integer
---@param y integer
---@return number|false cost false when blocked
function Grid:get_cost(x, y) end

---Sets a cell's terrain class, which a query's `classes` option weighs or blocks; the terrain
---cost stays. The first class other than 0 makes a byte per cell. Not a terrain change: the
---version stays, islands and tables stay; a job with `classes` (a search or a field job) follows it as a
---terrain write (repaired where it reached, else unread).
---@param x integer
---@param y integer
---@param class integer 0..255 (every cell is 0 until set)
function Grid:set_class(x, y, class) end

---@param x integer
---@param y integer
---@return integer class 0..255
function Grid:get_class(x, y) end

---@param x integer
---@param y integer
---@param blocked boolean unblocking a blocked cell restores cost 1
function Grid:set_blocked(x, y, blocked) end

---@param x integer
---@param y integer
---@return boolean
function Grid:is_walkable(x, y) end

---@param cost number|false every cell
function Grid:fill(cost) end

---Writes a whole level: up to 256 changed cells one by one (as set_cost: tables, landmarks,
---jobs and builds follow them), more as one bulk write (tables built again now, landmarks set
---aside, jobs and builds start over).
---@param rows string[] exactly height strings of exactly width characters
---With legend entries `{ cost = c, class = k }` (k default 0), every cell also gets its entry's
---class (0 where an entry gives none), written first (a class write is O(1) and moves no version); without them,
---classes stay as they are.
---@param legend table<string, number|false|{ cost: number|false, class: integer }>? character -> cost, or cost and class; default '.' = 1, '#' = false
function Grid:load(rows, legend) end

---The cheapest path, or nil and why not.
---@param sx integer
---@param sy integer
---@param gx integer
---@param gy integer
---@param opts astar.FindOptions?
---@return (astar.Path|astar.FlatPath)? path
---@return astar.Info info
function Grid:find(sx, sy, gx, gy, opts) end

---The path to the nearest of several targets (info.target says which).
---@param sx integer
---@param sy integer
---@param targets astar.Point[]
---@param opts astar.FindOptions?
---@return (astar.Path|astar.FlatPath)? path
---@return astar.Info info
function Grid:find_nearest(sx, sy, targets, opts) end

---The first index after from whose cell the query no longer lets a path enter, or whose step
---from the one before is no longer legal; nil when the rest of the path is still allowed.
---path[from] is where the unit stands: its own cell is not checked (a search may leave a blocked start).
---Without node_cost, edge_cost and known the answer is the terrain's (influence, claims, noise
---and turns never block), computed in C without a search set up; opts.since = v then reads
---only the cells near those blocked since version v.
---@param path astar.AnyPath a path as find returns it, in any form
---@param from integer? default 1
---@param opts astar.FindOptions? the costs to check against (not heuristic, weight, jump, max_expansions, max_cost); since
---@return integer? index
function Grid:check_path(path, from, opts) end

---From path[i] (where the unit stands) to path[#path]: the cheapest way that leaves the old
---path there and rejoins it at a later cell from which its rest is still allowed (info.rejoin);
---exact over every such cell (the goal is one: the cost is a fresh find's), or over the
---opts.rejoin_within cells beyond the blockage (a local repair). If none can be reached, a
---fresh find (info.replanned = true).
---@param path astar.AnyPath a path as find returns it, in any form
---@param i integer 1..#path
---@param opts astar.FindOptions? not partial, interests
---@return (astar.Path|astar.FlatPath)? path
---@return astar.Info info
function Grid:repair(path, i, opts) end

---Many queries at once, on native threads when opts hold no Lua callbacks.
---@param queries (astar.Query|{ sx: integer, sy: integer, gx: integer, gy: integer })[]
---@param opts astar.FindOptions?
---@param run { threads: integer? }? default: one thread per processor, at most 64
---@return astar.FindResult[]
function Grid:find_many(queries, opts, run) end

---A resumable search of what find would answer with the same options (every option find takes),
---to be stepped in slices: the engine find runs (jump point search in slices of jump points where
---find jumps; hierarchical = true: the two-tier search whole in the first step), the same bits.
---@param sx integer
---@param sy integer
---@param gx integer
---@param gy integer
---@param opts astar.FindOptions?
---@return astar.Search
function Grid:search(sx, sy, gx, gy, opts) end

---A resumable search of what find_nearest would answer with the same options.
---@param sx integer
---@param sy integer
---@param targets astar.Point[]
---@param opts astar.FindOptions?
---@return astar.Search
function Grid:search_nearest(sx, sy, targets, opts) end

---A distance field built in slices: once "done" or "limit", result() is what
---distance_field(goals, opts) returns (field, info). A unit of step(n) is an expansion, then 16
---cells of the field written; a field kept sparse (as distance_field keeps it: its search
---expanded fewer than 1 cell in 64 of the grid) is listed in one step, 16 cells a unit, which may
---pass n. It goes on past a terrain change outside what it reached, starts
---over for one under it (info.restarts).
---@param goals astar.Point[]
---@param opts astar.FindOptions? distance_field's
---@return astar.Search
function Grid:field_job(goals, opts) end

---Every cell's cost to the nearest goal and its next step there (a flow field).
---@param goals astar.Point[]
---@param opts astar.FindOptions?
---@return astar.Field field
---@return astar.Info info
function Grid:distance_field(goals, opts) end

---Every cell reachable from (sx, sy) for at most budget, cheapest first. Costs what it reaches, not the map (its field keeps only the cells reached).
---@param sx integer
---@param sy integer
---@param budget number
---@param opts astar.FindOptions?
---@return astar.RangeCell[] cells
---@return astar.Field field its path(x, y) is the way there
---@return astar.Info info
function Grid:range(sx, sy, budget, opts) end

---A path away from the threats to the cheapest cell at least `distance` from every one, never entering a cell nearer a threat than the unit stands (it never runs past one); within `radius`. None safe within reach: the reachable cell farthest from the threats (then the cheapest, then the first by row, column). Already safe: its own cell. One search in C that stops at the first safe cell (docs/design/flee.md, contract "Flee and wander"). Options of find that apply to the unit's walk: diagonal, influence, claims, node_cost, edge_cost, known, classes, size, noise, seed, max_expansions, path, into, info; the others are refused by name. Threat distances are the threats': the plain terrain, one cell; a unit of size n is as near a threat as its nearest cell (safe: its whole footprint at least distance away).
---@param x integer
---@param y integer
---@param threats astar.Point[]|astar.Influence points, or a layer whose cells above opts.threshold are threats
---@param opts astar.FleeOptions
---@return (astar.Path|astar.FlatPath) path
---@return astar.FleeInfo info
function Grid:flee(x, y, threats, opts) end

---A path to a random reachable cell whose cost is within cost * (1 -+ tolerance), picked by opts.seed (default 0; also the noise's) among them by row then column: the same cell for the same seed, map and options on every Lua (lockstep). None in the band: one of the dearest reached. Options as flee's.
---@param x integer
---@param y integer
---@param cost number 0..1e100
---@param opts astar.WanderOptions?
---@return (astar.Path|astar.FlatPath) path
---@return astar.WanderInfo info
function Grid:wander(x, y, cost, opts) end

---The island of a cell (an id), or false for a blocked cell.
---@param x integer
---@param y integer
---@return integer|false
function Grid:component(x, y) end

---Whether a path can exist (islands: O(1) after terrain changes).
---@param sx integer
---@param sy integer
---@param gx integer
---@param gy integer
---@return boolean
function Grid:reachable(sx, sy, gx, gy) end

---The innermost dead end holding a cell: an area behind one gateway cell (a room with one
---door, an alcove, a corridor's end) under the grid's diagonal mode, as an id and the
---gateway's x, y; false when the cell is in none or blocked. Follows walkability changes (an area a new opening may join is retired); grid:prepare() rebuilds.
---@param x integer
---@param y integer
---@return integer|false area
---@return integer? gateway_x
---@return integer? gateway_y
function Grid:dead_end(x, y) end

---Builds k landmarks (0 drops them), or asks how many queries use now. With threads, the
---build of grid:build_landmarks run to the end (the same tables).
---@param k integer? 0..64
---@param opts astar.BuildOptions?
---@return integer count
---@return integer bytes
function Grid:landmarks(k, opts) end

---A build of what grid:landmarks(k) builds, run in steps (b:step(n)) for a loading screen or
---a frame budget; its tables are installed on the grid at once by the step that completes it
---(queries use the old landmarks, or none, until then). Raised costs and blocked cells let it
---go on; so do up to 64 cells made cheaper or opened before then, which that step repairs;
---more (or, on terrain of one cost, another cost) start it over (b:restarts() counts it):
---tables that could overestimate are never installed.
---@param k integer 0..64
---@param opts astar.BuildOptions?
---@return astar.Build
function Grid:build_landmarks(k, opts) end

---@class astar.HierarchyInfo
---@field cluster_size integer cells per cluster side
---@field clusters integer
---@field entrances integer abstract nodes
---@field edges integer abstract arcs (within clusters and across borders)
---@field dirty integer clusters a terrain change left to rebuild (the next hierarchical find does)
---@field bytes integer memory of the tables and the query scratch (those of bigger units, `size`, included)
---@field diagonal astar.Diagonal the mode it was built under (queries must move under it)

---Builds the two-tier search's clusters (HPA*) on the terrain, replacing any (0 drops them),
---or asks; find's option hierarchical = true uses them. Not on "always" or hex grids. With
---threads, the build of grid:build_hierarchy run to the end (the same hierarchy).
---@param cluster_size integer? 2..256 (0 drops); none: only asks
---@param opts astar.BuildOptions?
---@return astar.HierarchyInfo? info nil when the grid has none
function Grid:hierarchy(cluster_size, opts) end

---A build of what grid:hierarchy(cluster_size) builds, run in steps (b:step(n)); its clusters
---are built aside (on threads: one cluster per worker at a time) and installed on the grid
---at once by the step that completes it (hierarchical finds use the old hierarchy, or none,
---until then). A terrain write between steps makes it redo the clusters the write touched and
---go on (what it installs is a fresh build's on the final terrain); a bulk write (fill, load)
---or more than 1024 writes between two steps start it over (b:restarts() counts it).
---@param cluster_size integer 2..256 (0: drops the grid's when it completes)
---@param opts astar.BuildOptions?
---@return astar.Build
function Grid:build_hierarchy(cluster_size, opts) end

---@class astar.PrepareOptions
---@field workspaces integer? 0..64 search workspaces made ready and kept in the pool (default 1): their per-cell arrays made (zeroed pages, committed as searches touch them)
---@field hierarchy (boolean|integer)? also the hierarchy a hierarchical find reads: true (cluster size 12, what such a find builds) or a size 2..256
---@field diagonal astar.Diagonal? the tables of another square mode's queries (default: the grid's mode)
---@field build boolean? true: return an astar.Build that makes the tables in steps (one table a unit), for a loading screen

---Builds now what the grid's queries would build on their first use, so that a level's load
---pays for it instead of a frame: the cost range, the island labels, the dead-end areas and,
---on uniform terrain, the JPS+ table; ready workspaces; with `hierarchy`, the hierarchy and its
---query scratch. Fresh tables are left as they are. With build = true returns an astar.Build
---whose steps make one table each (coarse units); a write between its steps never restarts it.
---@param opts astar.PrepareOptions?
---@return astar.Build? build with build = true
function Grid:prepare(opts) end

---Builds now the table jump point search reads (JPS+), which the first jumping query would
---build: for the grid's mode, or the one named. Returns the bytes the grid's tables take.
---@param diagonal string? "no_corner_cut" or "never" (default: the grid's mode)
---@return integer bytes
function Grid:prepare_jumps(diagonal) end

---@class astar.Influence
---@field width integer
---@field height integer
local Influence = {}

---@return integer width
---@return integer height
function Influence:size() end

---@param x integer
---@param y integer
---@param value number
function Influence:set(x, y, value) end

---@param x integer
---@param y integer
---@return number
function Influence:get(x, y) end

---@param x integer
---@param y integer
---@param value number
function Influence:add(x, y, value) end

---@param value number
function Influence:fill(value) end

---Adds strength x falloff(distance) to every cell within radius of (x, y).
---@param x integer
---@param y integer
---@param radius number
---@param strength number
---@param falloff astar.Falloff? default "linear"
function Influence:stamp(x, y, radius, strength, falloff) end

---Multiplies every value by factor. Visits only the 8x8 tiles holding influence (issue 27).
---@param factor number
function Influence:decay(factor) end

---One step of propagation: momentum x v + (1 - momentum) x the strongest neighbour's v x exp(-decay).
---Visits the 8x8 tiles holding influence and the cells around them (issue 27).
---@param decay number
---@param momentum number
---@param grid astar.Grid? spread around its walls
function Influence:spread(decay, momentum, grid) end

---@return number the largest absolute value
function Influence:max_abs() end

---Adds another layer, times weight, cell by cell.
---@param other astar.Influence
---@param weight number? default 1
function Influence:add_layer(other, weight) end

---@class astar.Mask
---@field width integer
---@field height integer
local Mask = {}

---@return integer width
---@return integer height
function Mask:size() end

---@param x integer
---@param y integer
---@param radius number? default 0: the cell alone
function Mask:reveal(x, y, radius) end

---@param x integer
---@param y integer
---@return boolean
function Mask:is_known(x, y) end

---@class astar.Claims
---@field width integer
---@field height integer
local Claims = {}

---@return integer width
---@return integer height
function Claims:size() end

---Replaces the unit's claim; the first node is where it stands now.
---@param unit astar.Unit
---@param path astar.AnyPath|integer[] a grid path in any form find returns; node ids on a graph
function Claims:claim(unit, path) end

---The unit moved steps nodes along its claim: the nodes left behind are released.
---@param unit astar.Unit
---@param steps integer
function Claims:advance(unit, steps) end

---@param unit astar.Unit
function Claims:release(unit) end

---How many units claim the node now.
---@param x integer a cell's x, or a graph's node id
---@param y integer? a cell's y (grids)
---@return integer
function Claims:count(x, y) end

---Where the unit stands now (x, y on a grid; a node id on a graph), or nil.
---@param unit astar.Unit
---@return integer? x_or_id
---@return integer? y
function Claims:position(unit) end

---@class astar.Search
local Search = {}

---Runs at most n more units (default: to the end): expansions (jump points where it jumps;
---a field job's also 16 cells written a unit). A two-tier job's first step runs it whole.
---@param n integer?
---@return astar.Status|"running"|"done" status "done": a field job's end (or "limit")
---@return integer used units this step used
function Search:step(n) end

---What its call answers once it has ended (a field job's: field, info); nil, {status = "running"} before.
---@return (astar.Path|astar.FlatPath|astar.Field)? path the path, or a field job's field
---@return astar.Info info
function Search:result() end

---@return astar.Status|"running"|"done"
function Search:status() end

---@return integer width
---@return integer height
function Search:size() end

---@class astar.BuildOptions
---@field threads integer? 1..64 workers share each step (default 1; the calling thread is one)

---@class astar.Build
local Build = {}

---Does at most n units of work (default: to the end): a unit is a node a Dijkstra expands,
---or 8 cells of a pass over the grid (a hierarchy: 8 cells of a cluster's border scan or
---copy, or 8 clusters of the numbering; grid:prepare's: a whole table). The step that
---completes the build installs it.
---@param n integer?
---@return "running"|"done" status
---@return integer work done by this step (at most n)
function Build:step(n) end

---Runs the build to the end and installs it; returns what grid:landmarks() returns, or for a
---hierarchy build what grid:hierarchy() returns (grid:prepare's: nothing).
---@return integer|astar.HierarchyInfo? count landmarks queries use now, or the hierarchy's figures
---@return integer? bytes landmarks only
function Build:finish() end

---The fraction of the work done: grows to 1 (1 once installed); back to 0 on a restart.
---@return number
function Build:progress() end

---@return boolean done installed
function Build:done() end

---@return "running"|"done"
function Build:status() end

---@return integer restarts times the terrain changed under it and it started over
function Build:restarts() end

---@return integer threads
function Build:threads() end

---@return integer width
---@return integer height
function Build:size() end

---A field keeps only the cells it reached (found by binary search), unless its search expanded one cell in 64 of the grid: then a grid of its own (O(1) reads).
---@class astar.Field
---@field width integer
---@field height integer
local Field = {}

---@return integer width
---@return integer height
function Field:size() end

---The cost from (x, y) to the nearest goal (a distance field), or from the start (a range).
---@param x integer
---@param y integer
---@return number? nil when not reached
function Field:distance(x, y) end

---The next step from (x, y) toward the nearest goal (or back toward the start).
---@param x integer
---@param y integer
---@return integer? nx
---@return integer? ny
function Field:next(x, y) end

---The whole way, in walking order.
---@param x integer
---@param y integer
---@return astar.Path?
function Field:path(x, y) end

---Every reached cell with its distance.
---@return astar.RangeCell[]
function Field:cells() end

---@class astar.Graph
local Graph = {}

---@return integer nodes
function Graph:size() end

---The graph's version: a count of its changes (nodes, arcs, blocking); info.version of a find now.
---@return integer
function Graph:version() end

---@param x number
---@param y number
---@param z number? default 0
---@return integer id 1..n in insertion order
function Graph:add_node(x, y, z) end

---Arcs both ways.
---@param a integer
---@param b integer
---@param cost number? default: the distance between the nodes
function Graph:add_edge(a, b, cost) end

---One arc, a to b.
---@param a integer
---@param b integer
---@param cost number? default: the distance between the nodes
function Graph:add_arc(a, b, cost) end

---@param a integer
---@param b integer
function Graph:remove_edge(a, b) end

---@param a integer
---@param b integer
function Graph:remove_arc(a, b) end

---@param a integer
---@param b integer
---@return number? cost nil when there is no such arc
function Graph:arc_cost(a, b) end

---@param id integer
---@param blocked boolean
function Graph:set_blocked(id, blocked) end

---@param id integer
---@return boolean
function Graph:is_blocked(id) end

---@param id integer
---@return number x
---@return number y
---@return number z
function Graph:node(id) end

---The arcs leaving a node.
---@param id integer
---@return integer[] to the nodes they lead to
---@return number[] costs their costs, in the same order
function Graph:neighbours(id) end

---The cheapest way between two nodes (the same options as Grid:find; per-node layers as arrays; no `path`: ids are flat).
---@param a integer
---@param b integer
---@param opts astar.FindOptions?
---@return integer[]? ids
---@return astar.Info info
function Graph:find(a, b, opts) end

---The cheapest way to the nearest of several targets (info.target says which): node ids, or
---{id =, cost =} whose cost (>= 0) is added where the path ends there (info.cost leaves it out,
---max_cost counts it). Aimed by the least scaled Euclidean distance to a target plus its cost up
---to 64 targets ("zero" or beyond: Dijkstra); heuristic a name only; not partial, interests, toward.
---@param a integer
---@param targets (integer|{ id: integer, cost: number? })[]
---@param opts astar.FindOptions?
---@return integer[]? ids
---@return astar.Info info
function Graph:find_nearest(a, targets, opts) end

---Every node's cost from the nearest source along the arcs (one Dijkstra under the query's
---costs; max_cost and max_expansions bound it, and it costs what it reaches); with toward = true
---its cost to the nearest source (the arcs reversed, packed on first need after a change of arcs:
---O(nodes + arcs)). Not heuristic, weight, partial, interests, claim_radius, into, info.
---@param sources integer|integer[]
---@param opts astar.FindOptions?
---@return astar.GraphField field
---@return astar.Info info status ("done" or "limit"), reached, expansions
function Graph:distance_field(sources, opts) end

---Every node reachable from id for at most budget, cheapest first (a field from id capped at
---budget: it costs what it reaches). Not max_cost (the budget is it), toward, nor a path search's options.
---@param id integer
---@param budget number
---@param opts astar.FindOptions?
---@return astar.GraphNode[] nodes
---@return astar.GraphField field its path(id) is the way there
---@return astar.Info info
function Graph:range(id, budget, opts) end

---@class astar.GraphNode
---@field id integer
---@field cost number

---A graph's distance field: the nodes its Dijkstra settled (a table of its own).
---@class astar.GraphField
local GraphField = {}

---The cost from (toward: to) the nearest source, nil when not reached.
---@param id integer
---@return number?
function GraphField:get(id) end

---The node id is reached from (one step back toward the nearest source; toward: its next step
---there); nil at a source or when not reached.
---@param id integer
---@return integer?
function GraphField:next(id) end

---The way from the nearest source to id (toward: from id to it), as find's ids; nil when not reached.
---@param id integer
---@return integer[]?
function GraphField:path(id) end

---Every reached node with its cost, cheapest first (a new list).
---@return astar.GraphNode[]
function GraphField:nodes() end

---@class astar.Scheduler
local Scheduler = {}

---Queues a search; callback(path, info) is told when it ends. If the search raises an error (a
---cost callback fails, an object it reads was freed), the request ends there and its callback
---gets nil, { status = "error", error = <the error value> }; the other requests go on.
---@param grid astar.Grid
---@param sx integer
---@param sy integer
---@param gx integer
---@param gy integer
---@param opts astar.FindOptions?
---@param callback fun(path: astar.Path?, info: astar.Info)
---@param priority number? higher first (default 0)
---@return integer ticket
function Scheduler:request(grid, sx, sy, gx, gy, opts, callback, priority) end

---Queues any job: `job:step(n)` returns a status ("running" until done) and the expansions it
---used, `job:result()` the answer and its info (grid:search jobs, grid:field_job,
---grid:search_nearest, a table of your own), or a build (run as `build` runs it). The job stays
---yours: the scheduler never closes it. A step of your own that yields (in a coroutine) is left
---behind by the next tick, which steps the job again.
---@param job { step: fun(self, n: integer): string, integer; result: fun(self): any, table }|astar.Build
---@param callback fun(answer: any, info: table)
---@param priority number? higher first (default 0)
---@return integer ticket
function Scheduler:run(job, callback, priority) end

---Queues a distance field built in slices (grid:field_job); callback(field, info) as
---grid:distance_field answers. Raises if this grid has no field_job.
---@param grid astar.Grid
---@param goals astar.Point[]
---@param opts astar.FindOptions?
---@param callback fun(field: astar.Field?, info: astar.Info)
---@param priority number? higher first (default 0)
---@return integer ticket
function Scheduler:request_field(grid, goals, opts, callback, priority) end

---Queues find_nearest in slices (grid:search_nearest); callback(path, info) as
---grid:find_nearest answers. Raises if this grid has no search_nearest.
---@param grid astar.Grid
---@param sx integer
---@param sy integer
---@param targets astar.Point[]
---@param opts astar.FindOptions?
---@param callback fun(path: astar.Path?, info: astar.Info)
---@param priority number? higher first (default 0)
---@return integer ticket
function Scheduler:request_nearest(grid, sx, sy, targets, opts, callback, priority) end

---Re-aims a request made by `request` (a moving goal): a fresh search to (gx, gy) from its start
---(or from (sx, sy) when given) with its grid and options, keeping its ticket, callback,
---priority and place in line; the old search is closed. Made during a tick, it runs from the next.
---@param ticket integer
---@param gx integer
---@param gy integer
---@param sx integer?
---@param sy integer?
---@return boolean live false when the ticket was told, cancelled or unknown (nothing changes)
function Scheduler:retarget(ticket, gx, gy, sx, sy) end

---@class astar.SchedulerStats
---@field ticks integer ticks so far
---@field last_tick_us number the last tick's time by the scheduler's clock, callbacks included
---@field most_tick_us number the longest tick so far
---@field last_expansions integer expanded by the last tick
---@field expansions integer expanded by every tick
---@field steps integer job steps made
---@field finished integer requests told
---@field us_per_expansion number the measured cost of an expansion (what slices are sized by)
---@field running integer
---@field waiting integer
---@field untold integer finished, not told yet (a callback raised before them)
---@field budget integer? nil with budget_us alone (no expansion budget)
---@field budget_us number?
---@field concurrent integer

---What the scheduler did, for a game's AI-time graph.
---@param into table? filled (raw: its metamethods never run) and returned (no garbage per frame)
---@return astar.SchedulerStats
function Scheduler:stats(into) end

---Queues a build (grid:build_landmarks, grid:build_hierarchy) to run in the ticks' budgets beside the searches (it
---counts as one of the `concurrent`); callback(build, { status = "done", restarts = n }) is
---told by the tick that completes it. A build that raises ends as a failed search does, and
---so does one an earlier callback closed: callback(nil, { status = "error", error = <why> }).
---@param build astar.Build
---@param callback fun(build: astar.Build?, info: table)
---@param priority number? higher first (default 0)
---@return integer ticket
function Scheduler:build(build, callback, priority) end

---Runs the jobs for at most budget expansions (default: the scheduler's) and about budget_us
---microseconds (one small slice more at most), and tells every request that finished, each
---once (see tell). Requests made or retargeted during the tick wait for the next one; every
---step is charged at least budget / (4 * concurrent), so a tick's work is bounded whatever its
---callbacks do.
---@param budget integer?
---@return integer spent expansions
---@return integer finished requests whose callbacks ran
function Scheduler:tick(budget) end

---Safe at any time, from any callback too. Closes the request's job when the scheduler made it
---(request, request_field, request_nearest): its workspace goes back to the grid at once.
---@param ticket integer
---@return boolean cancelled true when the request's callback was still to be called (it never will be)
function Scheduler:cancel(ticket) end

---@return integer requests not yet answered
function Scheduler:pending() end

---Calls the callbacks of finished requests, oldest first, each exactly once (tick does it). A
---callback that raises does not keep the others from being called: once all were, the first
---error is raised, unchanged. A request whose answer can no longer be read (an earlier callback
---closed its build or job) gets nil, { status = "error", error = <why> }.
---@return integer told
function Scheduler:tell() end

---Starts waiting requests while fewer than `concurrent` run (tick does it).
function Scheduler:admit() end

---@class astar.debug
---@field colors table<string, integer[]> png's palette: blocked, open, positive, negative, explored, claimed, path, start, goal, background
local Debug = {}

---One line per row: '#' blocked, '.' cost 1, 2-9 dearer, ',' cheaper, influence ':;+*%@' or
---'~', 'x' explored, 'c' claimed, 'o' path, 'S' start, 'G' goal.
---@param grid astar.Grid
---@param opts astar.DebugOptions?
---@return string
function Debug.ascii(grid, opts) end

---The picture as a PNG: written to filename (returns the bytes written) or returned. Hex grids
---shift rows 2, 4, ... right by half a cell. At most 2^25 pixels.
---@param grid astar.Grid
---@param opts astar.DebugOptions?
---@param filename string?
---@return string|integer
function Debug.png(grid, opts, filename) end

---find, and the cells the search looked at (for opts.explored).
---@param grid astar.Grid
---@param sx integer
---@param sy integer
---@param gx integer
---@param gy integer
---@param opts astar.FindOptions?
---@return astar.Path? path
---@return astar.Info info
---@return astar.Point[] looked_at
function Debug.explore(grid, sx, sy, gx, gy, opts) end

---@class astar.TiledOptions
---@field layer string|integer? tile layer name, or index among tile layers (default: the first)
---@field legend table<integer, number|false>? gid (firstgid + tile id) -> cost, false = blocked
---@field property string? a tile property holding the cost (a number, false or "blocked")
---@field default number|false? cost of a tile neither names (default 1)
---@field empty number|false? cost of an empty cell, gid 0 (default 1)
---@field diagonal astar.Diagonal? the grid's mode (square maps)
---@field class_property string? a tile property holding the cell's terrain class (default "class"): an integer 0..255 or a name of class_names
---@field class_names astar.ClassNames|table<string, integer>? the names a class property may use

---@class astar.TiledInfo
---@field width integer
---@field height integer
---@field layer string
---@field orientation "orthogonal"|"hexagonal"
---@field tiles integer distinct gids seen

---@class astar.tiled
local Tiled = {}

---A tile layer of a Tiled map as a grid (JSON through lua-cjson or dkjson, when installed). A map
---it cannot read raises an error saying what is wrong with it.
---@param map string|table the JSON text, or the decoded table
---@param opts astar.TiledOptions?
---@return astar.Grid grid
---@return astar.TiledInfo info
function Tiled.grid(map, opts) end

---@class astar.SandboxOptions
---@field print (fun(...: any))? what the script's print calls (default: nothing is printed)
---@field world table? what the script sees as its global `world` (views of the shared objects)

---@class astar.sandbox
---@field LIMIT integer the longest string or range a script's guarded string and table functions make or scan (1 MiB)
local Sandbox = {}

---Guards the string functions of every string of the state (("x"):rep(n) included) as a script's
---`string` is (rep, find, match, gmatch, gsub, upper, lower, reverse refuse work beyond LIMIT or a
---pattern that could backtrack for too long), and hides the string metatable. A host calls it
---once; the game's own strings meet the same limits.
function Sandbox.guard_strings() end

---A new environment for one untrusted script: copies of the safe standard library (no io,
---os.exit, debug, dofile, loadfile, binary chunks, __gc finalizers, collectgarbage but "count";
---require("astar") only, answering Sandbox.library()); the string metatable is hidden.
---@param opts astar.SandboxOptions?
---@return table env
function Sandbox.env(opts) end

---A read-only view of a grid, influence layer, mask, claims, graph or field: its reading
---methods and queries, its width and height; a new table each call. Given back to astar (an
---option's influence, claims or known; an argument of Sandbox.library()'s functions), it stands
---for its object.
---@param obj userdata
---@return table view
function Sandbox.view(obj) end

---The astar library a script gets: a new table whose functions take views; without load_movingai,
---load_scen, tiled, debug.png's file name and the work limit.
---@return table
function Sandbox.library() end

---Loads text (never a binary chunk) as a function whose globals are env (Lua 5.1: setfenv).
---@param text string
---@param chunkname string
---@param env table
---@return function? chunk
---@return string? error
function Sandbox.load(text, chunkname, env) end

---The arguments as astar reads them: views replaced by their objects (top level, option values
---and influence lists, in copies; the caller's tables are not changed).
---@param ... any
---@return any ...
function Sandbox.unwrap(...) end

return astar
