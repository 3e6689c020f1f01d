-- Which file of the core calls which, read off the compiled library with nm, and whether
-- any calls run in a circle (the core is layered: allocation helpers at the bottom, data,
-- caches, searches on top; see docs/design/architecture.md).
--   lua5.4 tools/core_calls.lua build/libastar.a        (ctest runs it: core_layers)
-- Prints each file with the files it calls, lowest first, and exits 1 on a circle.
local archive = assert(arg[1], "usage: core_calls.lua libastar.a")
local nm = assert(io.popen("nm -A " .. archive .. " 2>&1"))
local defined, needs, files = {}, {}, {}
for line in nm:lines() do
  -- "lib.a:file.c.o:0000000000000000 T name" or "lib.a:file.c.o:                 U name"
  local file, kind, name = line:match("^[^:]*:([^:]+)%.o:%s*%x*%s+(%a)%s+(%S+)$")
  if file then
    if not files[file] then files[file] = true; needs[file] = {} end
    if kind == "U" then needs[file][name] = true
    elseif kind:match("[TDBR]") then defined[name] = file end
  end
end
assert(nm:close(), "nm failed on " .. archive)

local calls = {}
for file in pairs(files) do
  calls[file] = {}
  for name in pairs(needs[file]) do
    local owner = defined[name]
    if owner and owner ~= file then calls[file][owner] = true end
  end
end

-- Depth-first search: a file met again while still on the path closes a circle.
local state, depth, circles = {}, {}, {}
local function visit(file, path)
  if state[file] == "done" then return depth[file] end
  if state[file] == "open" then
    local i = #path
    while path[i] ~= file do i = i - 1 end
    circles[#circles + 1] = table.concat(path, " -> ", i) .. " -> " .. file
    return 0
  end
  state[file] = "open"
  path[#path + 1] = file
  local d = 0
  for callee in pairs(calls[file]) do d = math.max(d, visit(callee, path) + 1) end
  path[#path] = nil
  state[file], depth[file] = "done", d
  return d
end
local order = {}
for file in pairs(files) do order[#order + 1] = file end
table.sort(order)
for _, file in ipairs(order) do visit(file, {}) end
table.sort(order, function(a, b)
  if depth[a] ~= depth[b] then return depth[a] < depth[b] end
  return a < b
end)
for _, file in ipairs(order) do
  local callees = {}
  for callee in pairs(calls[file]) do callees[#callees + 1] = callee end
  table.sort(callees)
  print(string.format("%d  %-18s -> %s", depth[file], file, table.concat(callees, " ")))
end
if #circles > 0 then
  for _, c in ipairs(circles) do print("circle: " .. c) end
  os.exit(1)
end
print(string.format("%d files, no circle", #order))
