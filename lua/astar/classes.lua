-- astar.class_names: terrain classes by name. The C core knows classes as ids 0..255 (grid:set_class,
-- the query option classes); a game names them once and writes names where it would write ids:
--
--   local T = astar.class_names({ water = 1, forest = 2, road = 3 })
--   grid:set_class(x, y, T.water)                             -- an unknown name is an error
--   grid:find(sx, sy, gx, gy, { classes = T({ water = false, forest = 2.5 }) })
--
-- T(t) is a new classes table with every name key replaced by its id (ids may stay as they are).
-- Everything is read raw (next, rawget: no metamethod of the caller's tables runs) and checked
-- when made; the names object is read-only.
local shown = require("astar.args").shown
local M = {}

-- (no tostring of a table: its __tostring would run)
local function describe(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "number" then return shown(v) end
  return "a " .. type(v)
end

local function is_class(v)
  return type(v) == "number" and v >= 0 and v <= 255 and v == math.floor(v)
end

--- The names object of `names` ({ [name] = id }, ids integers in 0..255, names strings).
function M.class_names(names)
  if type(names) ~= "table" then
    error("bad argument #1 to 'class_names' (table { name = class } expected, got " .. type(names) .. ")", 2)
  end
  local ids = {}
  for name, id in next, names do
    if type(name) ~= "string" then
      error("bad argument #1 to 'class_names' (a name is a string, got " .. describe(name) .. ")", 2)
    end
    if not is_class(id) then
      error("bad argument #1 to 'class_names' (class '" .. name .. "' must be an integer in 0..255, got "
        .. describe(id) .. ")", 2)
    end
    ids[name] = math.floor(id) -- (an integer on 5.3+; 2.0 reads as 2)
  end
  local object = {}
  setmetatable(object, {
    __index = function(_, name)
      local id = ids[name]
      if id == nil then error("no terrain class named " .. describe(name), 2) end
      return id
    end,
    __newindex = function() error("class names are read-only", 2) end,
    __call = function(_, t) -- a classes table keyed by names (or ids) -> keyed by ids
      if type(t) ~= "table" then error("bad argument #1 to 'class names' (table expected, got " .. type(t) .. ")", 2) end
      local out = {}
      for k, v in next, t do
        local id = k
        if type(k) == "string" then
          id = ids[k]
          if id == nil then error("bad argument #1 to 'class names' (no terrain class named " .. describe(k) .. ")", 2) end
        end
        if out[id] ~= nil then
          error("bad argument #1 to 'class names' (class " .. describe(id) .. " is given twice)", 2)
        end
        out[id] = v
      end
      return out
    end,
    __metatable = "astar.class_names",
  })
  return object
end

return M
