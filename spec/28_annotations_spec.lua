-- lua/astar/meta.lua (LuaCATS, for lua-language-server) must annotate every function the
-- module and its objects offer, and nothing that does not exist: the list of functions is
-- read off the live objects here, not written down twice.
local astar = require("astar")

local read = require("spec.support.files").read

-- "Class.name" -> true for each annotated function, each with a ---@ line right above it.
local function annotated()
  local found, previous = {}, ""
  for line in read("lua/astar/meta.lua"):gmatch("[^\n]*") do
    local owner, sep, name = line:match("^function ([%w_]+)([.:])([%w_]+)%(")
    if owner then
      assert(previous:match("^%-%-%-"), owner .. sep .. name .. " has no annotation above it")
      found[owner .. "." .. name] = true
    end
    if line ~= "" then previous = line end
  end
  return found
end

-- The methods of a C object live in a table its metatable's __index closes over. Lua 5.1 and
-- LuaJIT do not let Lua read a C function's upvalues: there, nil (see below).
local function methods_of(object)
  local index = getmetatable(object).__index
  if type(index) == "table" then return index end
  local _, methods = debug.getupvalue(index, 1)
  if methods == nil and _VERSION == "Lua 5.1" then return nil end
  assert(type(methods) == "table", "cannot read the methods of " .. tostring(object))
  return methods
end

describe("LuaCATS annotations (lua/astar/meta.lua)", function()
  it("cover every function of the module and of each object, and only those", function()
    local grid = astar.grid(3, 3)
    local objects = {
      astar = astar,
      Grid = grid,
      Influence = astar.influence(3, 3),
      Mask = astar.mask(3, 3),
      Claims = astar.claims(grid),
      Search = grid:search(1, 1, 3, 3),
      Build = grid:build_landmarks(1),
      Field = (grid:distance_field({ { x = 1, y = 1 } })),
      Graph = astar.graph(),
      GraphField = (function()
        local g = astar.graph()
        g:add_node(0, 0)
        return (g:distance_field(1))
      end)(),
      Scheduler = astar.scheduler({ budget = 10 }),
      Debug = astar.debug,
      Tiled = astar.tiled,
      Sandbox = astar.sandbox,
    }
    local want = annotated()
    local live = { astar = astar }
    for class, object in pairs(objects) do
      if type(object) == "table" and not getmetatable(object) then live[class] = object
      elseif class ~= "astar" then live[class] = methods_of(object) end
      if not live[class] then
        -- Lua 5.1 / LuaJIT: only that each annotated method exists (5.2+ check both ways)
        for key in pairs(want) do
          local owner, name = key:match("^(%w+)%.([%w_]+)$")
          if owner == class then
            assert.are.equal("function", type(object[name]), key .. " is annotated but not offered")
            want[key] = nil
          end
        end
        live[class] = {}
      end
    end
    local seen = 0
    for class, functions in pairs(live) do
      for name, value in pairs(functions) do
        if type(value) == "function" and name:sub(1, 2) ~= "__" then
          assert(want[class .. "." .. name], class .. "." .. name .. " is not annotated")
          want[class .. "." .. name] = nil
          seen = seen + 1
        end
      end
    end
    assert(seen > (_VERSION == "Lua 5.1" and 10 or 60), seen .. " functions seen")
    assert.are.same({}, want) -- annotated but not offered
  end)

  it("docs/api.md is what docs/gen_api.lua makes of them", function()
    local gen = assert(loadfile("docs/gen_api.lua"))("module")
    assert.are.equal(gen.render(read("lua/astar/meta.lua")), read("docs/api.md"),
      "docs/api.md is stale: lua5.4 docs/gen_api.lua > docs/api.md")
  end)
end)
