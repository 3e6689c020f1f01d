-- Writes docs/api.md, the API reference, from the LuaCATS annotations in lua/astar/meta.lua
-- (one source for editors and for readers). spec/28_annotations_spec.lua checks that the
-- committed docs/api.md is what this script makes.
--   lua5.4 docs/gen_api.lua > docs/api.md
local M = {}

-- Splits "TYPE rest" where TYPE may hold spaces inside brackets, and fun(...): R.
local function split_type(s)
  local depth, i = 0, 1
  while i <= #s do
    local c = s:sub(i, i)
    if c == "(" or c == "{" or c == "<" then depth = depth + 1
    elseif c == ")" or c == "}" or c == ">" then depth = depth - 1
    elseif depth == 0 and c == ":" and s:sub(i + 1, i + 1) == " " then
      i = i + 1 -- fun(...): R -- the return type follows
    elseif depth == 0 and c:match("%s") then break end
    i = i + 1
  end
  return s:sub(1, i - 1), (s:sub(i):gsub("^%s+", ""))
end

local CLASS_TITLES = {
  astar = "Module `astar`",
}

-- Markdown for the annotations: classes with their fields, functions with parameters and
-- returns, in the file's order.
function M.render(text)
  local out = {
    "# astar API reference",
    "",
    "Generated from `lua/astar/meta.lua` (LuaCATS) by `docs/gen_api.lua`; the contract with its",
    "semantics is [contract.md](contract.md), the guide [manual.md](manual.md).",
    "",
  }
  local doc, params, returns, fields = {}, {}, {}, {}
  local class
  local function flush_class()
    if not class then return end
    out[#out + 1] = "## " .. (CLASS_TITLES[class.name] or "`" .. class.name .. "`")
    out[#out + 1] = ""
    for _, d in ipairs(class.doc) do out[#out + 1] = d end
    if #class.doc > 0 then out[#out + 1] = "" end
    if #fields > 0 then
      out[#out + 1] = "| field | type | |"
      out[#out + 1] = "|---|---|---|"
      for _, f in ipairs(fields) do
        local ty, what = f[2]:gsub("|", "\\|"), f[3]:gsub("|", "\\|")
        out[#out + 1] = string.format("| `%s` | `%s` | %s |", f[1], ty, what)
      end
      out[#out + 1] = ""
    end
    class, fields = nil, {}
  end
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    local tag, rest = line:match("^%-%-%-@(%w+)%s*(.*)$")
    if tag == "class" then
      flush_class()
      class = { name = rest:match("^([%w._]+)"), doc = doc }
      doc = {}
    elseif tag == "field" then
      local name, tail = rest:match("^([%w_%[%]]+)%s+(.*)$")
      if name then fields[#fields + 1] = { name, split_type(tail) } end
    elseif tag == "alias" then
      flush_class()
      local name, ty = rest:match("^([%w._]+)%s+(.*)$")
      out[#out + 1] = string.format("- alias `%s` = `%s`", name, ty)
      out[#out + 1] = ""
    elseif tag == "param" then
      local name, tail = rest:match("^([%w_]+)%s+(.*)$")
      if not name then name, tail = rest:match("^(%.%.%.)%s+(.*)$") end -- varargs
      params[#params + 1] = { name, split_type(tail) }
    elseif tag == "return" then
      returns[#returns + 1] = { split_type(rest) }
    elseif tag == nil and line:match("^%-%-%-") then
      doc[#doc + 1] = line:sub(4)
    else
      local owner, sep, name, args = line:match("^function ([%w_]+)([.:])([%w_]+)(%b())")
      if owner then
        flush_class()
        out[#out + 1] = "### `" .. owner .. sep .. name .. args .. "`"
        out[#out + 1] = ""
        if #doc > 0 then
          out[#out + 1] = table.concat(doc, " ")
          out[#out + 1] = ""
        end
        for _, p in ipairs(params) do
          out[#out + 1] = (string.format("- `%s`: `%s` %s", p[1], p[2], p[3]):gsub("%s+$", ""))
        end
        for _, r in ipairs(returns) do
          out[#out + 1] = (string.format("- returns `%s` %s", r[1], r[2]):gsub("%s+$", ""))
        end
        if #params + #returns > 0 then out[#out + 1] = "" end
      elseif line:match("^local ") or line == "" then
        if class and line:match("^local ") then flush_class() end
      end
      if not line:match("^%-%-") then doc, params, returns = {}, {}, {} end
    end
  end
  flush_class()
  return (table.concat(out, "\n"):gsub("\n\n+$", "\n")) .. "\n"
end

-- As a script (no arguments): print the reference. loadfile(...)("module") returns M.
if ... == nil then
  local f = assert(io.open("lua/astar/meta.lua", "rb"))
  io.write(M.render(f:read("*a")))
  f:close()
end

return M
