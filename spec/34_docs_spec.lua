-- The docs a newcomer reads: the README stays short and opens with the two commands, its tour
-- runs, every relative link in the README, docs/ and spec/README.md leads to a file (and
-- heading) of this repository, and the lists of contents (the manual's chapters and examples,
-- the tests' index) are complete.
local read = require("spec.support.files").read
local lfs = require("lfs")

local function lines_of(text)
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  if lines[#lines] == "" then lines[#lines] = nil end
  return lines
end

-- The files some space-separated patterns name ("dir/*.[ch]": a star and a class in the last
-- part only), sorted. Read with lfs (busted's own dependency), not `ls`: Windows has none.
local function ls(patterns)
  local names = {}
  for pattern in patterns:gmatch("%S+") do
    local dir, glob = pattern:match("^(.-)/?([^/]*)$")
    local lua_pattern = "^" .. glob:gsub("[%^%$%(%)%%%.%+%-%?]", "%%%0"):gsub("%*", ".*") .. "$"
    local ok, iter, state = pcall(lfs.dir, dir == "" and "." or dir)
    for name in ok and iter or function() end, state do
      if name ~= "." and name ~= ".." and name:match(lua_pattern) then
        names[#names + 1] = (dir == "" and "" or dir .. "/") .. name
      end
    end
  end
  table.sort(names)
  return names
end

-- The Markdown files of the repository's docs: the root's, the tests' index and those under docs/.
local function markdown_files()
  local files = { "README.md", "CHANGES.md", "spec/README.md" }
  for _, name in ipairs(ls("docs/*.md docs/design/*.md")) do files[#files + 1] = name end
  return files
end

-- GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens.
local function slug(heading)
  return (heading:lower():gsub("Ö", "ö"):gsub("[^%w%s%-_\128-\255]", ""):gsub("%s", "-"))
end

-- The links of a Markdown text outside code: { target, line } for every [text](target).
local function links(text)
  local found, fenced = {}, false
  for n, line in ipairs(lines_of(text)) do
    if line:match("^```") then fenced = not fenced
    elseif not fenced then
      for target in line:gsub("`[^`]*`", ""):gmatch("%]%(([^)%s]+)%)") do
        found[#found + 1] = { target = target, line = n }
      end
    end
  end
  return found
end

local function anchors(text)
  local set, fenced = {}, false
  for _, line in ipairs(lines_of(text)) do
    if line:match("^```") then fenced = not fenced
    elseif not fenced and line:match("^#+ ") then set[slug(line:gsub("^#+%s+", ""))] = true end
  end
  return set
end

-- dir/../x -> x; nil when the path leaves the repository.
local function normalise(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then
      if #parts == 0 then return nil end
      parts[#parts] = nil
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return table.concat(parts, "/")
end

local function exists(path) -- a file or a directory
  return lfs.attributes(path, "mode") ~= nil
end

describe("the docs", function()
  it("README.md is short and opens with what astar is, then the two commands", function()
    local readme = read("README.md")
    assert(#lines_of(readme) <= 200, "README.md has " .. #lines_of(readme) .. " lines (at most 200)")
    assert.truthy(readme:find("^# astar\n\n[^#`]+\n```sh\nsh %.ci/setup%.sh demo [^\n]*\nsh %.ci/setup%.sh test [^\n]*\n```\n"))
  end)

  it("every relative link in README.md and docs/ leads to a file of the repository", function()
    local bad = {}
    for _, file in ipairs(markdown_files()) do
      local text = read(file)
      local dir = file:match("^(.*)/") or ""
      for _, link in ipairs(links(text)) do
        local target = link.target
        local where = file .. ":" .. link.line .. ": " .. target
        if target:match("^%a[%w+.-]*:") then -- a URL: fine, unless it points at this machine
          if target:match("^file:") then bad[#bad + 1] = where .. " (a local file)" end
        else
          local path, anchor = target:match("^([^#]*)#?(.*)$")
          local full = path == "" and file or normalise((dir ~= "" and dir .. "/" or "") .. path)
          if path:match("^/") or not full then
            bad[#bad + 1] = where .. " (outside the repository)"
          elseif not exists(full) then
            bad[#bad + 1] = where .. " (no such file)"
          elseif anchor ~= "" and full:match("%.md$") and not anchors(read(full))[anchor] then
            bad[#bad + 1] = where .. " (no such heading)"
          end
        end
      end
    end
    assert(#bad == 0, "broken links:\n" .. table.concat(bad, "\n"))
  end)

  -- The reference speaks of the library: what changed is said by subject (the project's tracker
  -- is not the reader's), and the history is CHANGES.md's.
  it("the contract and the manual cite no issue of the project's tracker", function()
    for _, file in ipairs({ "docs/contract.md", "docs/manual.md" }) do
      for n, line in ipairs(lines_of(read(file))) do
        assert(not line:lower():find("issues? %d"), file .. ":" .. n .. ": " .. line)
      end
    end
  end)

  -- A merge's conflict left in a text is a silent lie in the contract; a fresh clone has no
  -- build directories, and the sources beside the docs are checked too.
  it("no file of the repository holds a merge conflict's markers", function()
    local files = markdown_files()
    for _, pattern in ipairs({ "src/*.[ch] src/lua/*.[ch] lua/astar/*.lua spec/*.lua spec/support/*.lua",
                               "spec/c/*.c fuzz/lua/*.lua fuzz/lua/seeds.txt examples/*.lua bench/*.lua",
                               "CMakeLists.txt .ci/setup.sh" }) do
      for _, name in ipairs(ls(pattern)) do files[#files + 1] = name end
    end
    for _, file in ipairs(files) do
      for n, line in ipairs(lines_of(read(file))) do
        assert(not (line:match("^<<<<<<< ") or line:match("^>>>>>>> ") or line == "======="),
               file .. ":" .. n .. ": a merge conflict's marker")
      end
    end
  end)

  it("the README's tour runs", function()
    local code = read("README.md"):match("\n## A tour\n```lua\n(.-)\n```\n")
    assert(code, "no tour in README.md")
    local printed, real_print = {}, _G.print
    _G.print = function(...)
      local parts = {}
      for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
      printed[#printed + 1] = table.concat(parts, "\t")
    end
    local ok, err = pcall(assert((loadstring or load)(code, "=README tour")))
    _G.print = real_print
    assert(ok, err)
    assert.matches("^found\t52%.25", printed[1])
    assert.matches("^found\t59%.91", printed[2])
    assert.are.equal("13\tcells within 3.5", printed[4])
  end)
end)

-- Lists that must name everything there is: a chapter or a file added without its entry left
-- the manual's contents and the tests' index behind (the link check above finds what they name
-- that does not exist).
describe("the lists of contents", function()
  local function missing_from(names, set)
    local missing = {}
    for _, name in ipairs(names) do
      if not set[name] then missing[#missing + 1] = name end
    end
    return missing
  end

  it("spec/README.md names every spec, C test, fuzzer and support file", function()
    local named = {}
    for _, link in ipairs(links(read("spec/README.md"))) do
      local full = normalise("spec/" .. link.target:match("^[^#]*"))
      if full then named[full] = true end
    end
    local files = ls("spec/*.lua spec/*.sh spec/c/*.c spec/c/*.h spec/c/*.sh spec/support/*.lua "
      .. "fuzz/*.c fuzz/*.sh fuzz/*.py fuzz/lua/*")
    assert.is_true(#files > 90)
    local missing = missing_from(files, named)
    assert(#missing == 0, "not in spec/README.md:\n" .. table.concat(missing, "\n"))
  end)

  it("docs/manual.md's contents list every chapter, its examples table every example", function()
    local manual, contents, chapters, fenced = read("docs/manual.md"), {}, {}, false
    for _, line in ipairs(lines_of(manual)) do
      if line:match("^```") then fenced = not fenced
      elseif not fenced and line:match("^## ") then chapters[#chapters + 1] = slug(line:sub(4))
      elseif #chapters == 0 and line:match("^%d+%. %[") then contents[line:match("%]%(#([^)]+)%)")] = true
      end
    end
    assert.is_true(#chapters > 20)
    local missing = missing_from(chapters, contents)
    assert(#missing == 0, "chapters not in the manual's contents: " .. table.concat(missing, ", "))

    local listed = {}
    for name in (manual:match("\n## Examples\n(.*)$") or ""):gmatch("\n| `([^`/]+/?)") do listed[name] = true end
    local examples = {}
    for _, path in ipairs(ls("examples/*")) do
      local name = path:sub(#"examples/" + 1)
      if lfs.attributes(path, "mode") == "directory" then name = name .. "/" end -- listed as "name/..."
      examples[#examples + 1] = name
    end
    assert.is_true(#examples > 10)
    missing = missing_from(examples, listed)
    assert(#missing == 0, "examples not in the manual's table: " .. table.concat(missing, ", "))
  end)
end)

describe("the build files", function()
  -- CMake's and LuaRocks' lists of C sources are written by hand: a file added to one only built
  -- a module that failed to load (undefined symbol) after `luarocks make`, found late in CI.
  local function sources(text)
    local set, list = {}, {}
    for file in text:gmatch("src/[%w_/]+%.c") do
      if not set[file] then set[file], list[#list + 1] = true, file end
    end
    table.sort(list)
    return list
  end
  it("the rockspec builds every C source CMake builds, and no other", function()
    local cmake = sources(read("CMakeLists.txt"))
    assert.is_true(#cmake > 20)
    assert.are.same(cmake, sources(read("rockspec/astar-scm-1.rockspec")))
  end)
end)
