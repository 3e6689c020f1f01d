-- Moving AI maps and scenarios: the loaders, and the scenario runner on maps
-- of our own (spec/maps, made by spec/maps/generate.lua from the oracle).
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local runner = dofile("bench/scen.lua")

local MAPS = { "rooms24x18.map", "forest32x32.map", "crlf17x9.map" }

-- How an argument error names the function: Lua 5.3+ finds 'astar.load_scen' among the loaded
-- modules; 5.1, 5.2 and LuaJIT say '?' for a function called through pcall.
local function fname(name)
  return _VERSION >= "Lua 5.3" and "[%w.]*" .. name or "[%w.?_]*"
end

local read = require("spec.support.files").read

-- The map rows as Lua sees them, independent of the C parser.
local function rows_of(text)
  local rows, in_map = {}, false
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    line = line:gsub("\r$", "")
    if in_map and line ~= "" then rows[#rows + 1] = line end
    if line == "map" then in_map = true end
  end
  return rows
end

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return err
end

local function temp_file(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

local HEADER = "type octile\nheight 3\nwidth 4\nmap\n"

describe("astar.load_movingai", function()
  it("reads every cell with the benchmark legend, 1-based", function()
    for _, name in ipairs(MAPS) do
      local path = "spec/maps/" .. name
      local grid, meta = astar.load_movingai(path)
      local rows = rows_of(read(path))
      assert.are.same({ type = "octile", width = #rows[1], height = #rows }, meta)
      assert.are.equal(#rows[1], grid.width)
      assert.are.equal(#rows, grid.height)
      for y, row in ipairs(rows) do
        for x = 1, #row do
          local walkable = row:sub(x, x):match("[%.GS]") ~= nil
          assert.are.equal(walkable, grid:is_walkable(x, y), name .. " " .. x .. "," .. y)
          assert.are.equal(walkable and 1, grid:get_cost(x, y))
        end
      end
    end
  end)

  it("uses the benchmarks' diagonal rule: no corner cutting", function()
    local grid = astar.load_movingai_string("type octile\nheight 2\nwidth 2\nmap\n..\n@.\n")
    local path, info = grid:find(1, 1, 2, 2)
    assert.are.equal(3, #path)
    assert.are.equal(2, info.cost)
  end)

  it("gives the same grid from a file, from a string, with CRLF line ends and after a UTF-8 BOM", function()
    local text = read("spec/maps/rooms24x18.map")
    local a = astar.load_movingai("spec/maps/rooms24x18.map")
    local b = astar.load_movingai_string(text)
    local c = astar.load_movingai_string((text:gsub("\n", "\r\n")))
    local d = astar.load_movingai_string(text:gsub("\n$", "")) -- no final line end
    -- Windows' Notepad saved it: a byte order mark, CRLF line ends
    local e = astar.load_movingai(temp_file("\239\187\191" .. text:gsub("\n", "\r\n")))
    for y = 1, a.height do
      for x = 1, a.width do
        local w = a:is_walkable(x, y)
        assert.is_true(w == b:is_walkable(x, y) and w == c:is_walkable(x, y) and w == d:is_walkable(x, y)
          and w == e:is_walkable(x, y))
      end
    end
    -- a BOM is taken only where a text starts
    assert.matches("unexpected", err_of(astar.load_movingai_string, "type octile\n\239\187\191height 2\nwidth 2\nmap\n..\n..\n"))
  end)

  it("names the file and the line of a bad row or character", function()
    local path = temp_file(HEADER .. "....\n..x.\n....\n")
    local err = err_of(astar.load_movingai, path)
    os.remove(path)
    assert.are.equal(path .. ": line 6: unknown character 'x' (0x78) in column 3", err)
    assert.matches("^m%.map: line 6: row 2 has 5 characters, expected 4$",
      err_of(astar.load_movingai_string, HEADER .. "....\n.....\n....\n", "m.map"))
    assert.matches("^m%.map: line 7: row 3 has 3 characters, expected 4$",
      err_of(astar.load_movingai_string, HEADER .. "....\r\n....\r\n...\r\n", "m.map"))
    assert.matches("^map: line 6: row 2 has 0 characters",
      err_of(astar.load_movingai_string, HEADER .. "....\n\n....\n....\n"))
    assert.matches("line 8: more rows than the header's height 3",
      err_of(astar.load_movingai_string, HEADER .. "....\n....\n....\n....\n"))
    assert.matches("line 6: the map has 2 rows, expected 3",
      err_of(astar.load_movingai_string, "type octile\nheight 3\nwidth 1\nmap\n.\r\n.\r\n"))
    assert.matches("unknown character '\t'",
      err_of(astar.load_movingai_string, HEADER .. "....\n.\t..\n....\n"))
    -- a NUL or another byte that does not print is named by its code, never written raw
    assert.matches("line 6: unknown character 0x00 in column 2$",
      err_of(astar.load_movingai_string, HEADER .. "....\n.\0..\n....\n"))
    assert.matches("line 6: unknown character 0xff in column 4$",
      err_of(astar.load_movingai_string, HEADER .. "....\n...\255\n....\n"))
    -- trailing blank lines are fine
    assert.are.equal(3, astar.load_movingai_string(HEADER .. "....\n....\n....\n\n\n").height)
  end)

  it("checks the header", function()
    local function header_err(text) return err_of(astar.load_movingai_string, text, "h.map") end
    assert.matches("^h%.map: line 1: unsupported map type 'tile'", header_err("type tile\nheight 1\nwidth 1\nmap\n.\n"))
    assert.matches("^h%.map: line 2: bad height", header_err("type octile\nheight 0\nwidth 1\nmap\n.\n"))
    assert.matches("^h%.map: line 3: bad width", header_err("type octile\nheight 1\nwidth -1\nmap\n.\n"))
    assert.matches("bad width", header_err("type octile\nheight 1\nwidth 32769\nmap\n.\n"))
    assert.matches("bad height", header_err("type octile\nheight 99999999999999999999\nwidth 1\nmap\n"))
    assert.matches("bad width", header_err("type octile\nheight 1\nwidth 1.5\nmap\n.\n"))
    assert.matches("^h%.map: line 2: unexpected header line 'hello'", header_err("type octile\nhello\n"))
    assert.matches("incomplete header", header_err("type octile\nheight 1\nmap\n.\n"))
    assert.matches("incomplete header", header_err("height 1\nwidth 1\nmap\n.\n"))
    assert.matches("incomplete header", header_err(""))
    -- a header that promises more than the file holds is refused before allocating
    assert.matches("too short for a 32768x32768 map",
      header_err("type octile\nheight 32768\nwidth 32768\nmap\n....\n"))
  end)

  it("checks its arguments and the file", function()
    assert.matches("bad argument #1 to '" .. fname("load_movingai") .. "'", err_of(astar.load_movingai))
    assert.matches("bad argument #1 to '" .. fname("load_movingai") .. "'", err_of(astar.load_movingai, {}))
    assert.matches("bad argument #1 to '" .. fname("load_movingai_string") .. "'", err_of(astar.load_movingai_string, nil))
    assert.matches("bad argument #2 to '" .. fname("load_movingai_string") .. "'",
      err_of(astar.load_movingai_string, HEADER, {}))
    assert.matches("^cannot open 'spec/maps/nope%.map': ", err_of(astar.load_movingai, "spec/maps/nope.map"))
    -- a directory: POSIX opens it and the read fails, Windows' fopen refuses it
    local windows = package.config:sub(1, 1) == "\\"
    assert.matches(windows and "^cannot open 'spec/maps': " or "^cannot read 'spec/maps': ",
      err_of(astar.load_movingai, "spec/maps"))
  end)
end)

describe("astar.load_scen", function()
  it("converts every problem to 1-based coordinates and keeps the rest", function()
    for _, name in ipairs(MAPS) do
      local path = "spec/maps/" .. name .. ".scen"
      local problems = astar.load_scen(path)
      local i = 0
      for line in read(path):gmatch("[^\r\n]+") do
        local fields = {}
        for f in line:gmatch("[^\t]+") do fields[#fields + 1] = f end
        if #fields == 9 then
          i = i + 1
          local p = problems[i]
          assert.are.equal(tonumber(fields[1]), p.bucket)
          assert.are.equal(fields[2], p.map)
          assert.are.same({ tonumber(fields[3]), tonumber(fields[4]) }, { p.width, p.height })
          assert.are.same({ fields[5] + 1, fields[6] + 1, fields[7] + 1, fields[8] + 1 },
            { p.sx, p.sy, p.gx, p.gy })
          assert.are.equal(tonumber(fields[9]), p.optimal)
        end
      end
      assert.are.equal(i, #problems)
      assert.is_true(i > 10)
    end
  end)

  it("reads spaces as separators, 'version 1.0' and blank lines", function()
    local p = astar.load_scen_string("version 1.0\r\n\r\n3 a.map 10 20  0 1 9 19 12.5\r\n")
    assert.are.equal(1, #p)
    assert.are.same({ 3, "a.map", 10, 20, 1, 2, 10, 20, 12.5 },
      { p[1].bucket, p[1].map, p[1].width, p[1].height, p[1].sx, p[1].sy, p[1].gx, p[1].gy, p[1].optimal })
    assert.are.equal(0.05, p[1].precision) -- half a unit of the last printed digit
    assert.are.same({}, astar.load_scen_string("version 1\n"))
    assert.are.equal(1, #astar.load_scen_string("\239\187\191version 1\r\n3 a.map 10 20  0 1 9 19 12.5\r\n"))
    -- an exponent never makes the check coarser than half a step
    local e = astar.load_scen_string("version 1\n0 a 4 4 0 0 1 1 1e3\n0 a 4 4 0 0 1 1 0e99999\n")
    assert.are.same({ 1000, 0.5, 0, 0.5 }, { e[1].optimal, e[1].precision, e[2].optimal, e[2].precision })
  end)

  it("names the line of a bad problem", function()
    local function scen_err(text) return err_of(astar.load_scen_string, text, "s.scen") end
    assert.matches("^s%.scen: line 1: expected 'version 1' first", scen_err("0\ta.map\t4\t4\t0\t0\t1\t1\t1\n"))
    assert.matches("^s%.scen: line 1: empty scenario file", scen_err(""))
    assert.matches("^s%.scen: line 3: expected 9 fields, got 8",
      scen_err("version 1\n0\ta.map\t4\t4\t0\t0\t1\t1\t1\n0\ta.map\t4\t4\t0\t0\t1\t1\n"))
    assert.matches("expected 9 fields, got more than 9", scen_err("version 1\n0 a 4 4 0 0 1 1 1 1\n"))
    assert.matches("^s%.scen: line 2: a coordinate is not an integer inside the 4x4 map",
      scen_err("version 1\n0\ta.map\t4\t4\t0\t0\t4\t1\t1\n"))
    assert.matches("a coordinate", scen_err("version 1\n0 a 4 4 -1 0 1 1 1\n"))
    assert.matches("a coordinate", scen_err("version 1\n0 a 4 4 0.5 0 1 1 1\n"))
    assert.matches("bad bucket or map size", scen_err("version 1\n0 a 0 4 0 0 1 1 1\n"))
    assert.matches("bad bucket or map size", scen_err("version 1\nx a 4 4 0 0 1 1 1\n"))
    for _, bad in ipairs({ "-1", "nan", "inf", "1.5x", "0x1p3", "1e-400", string.rep("9", 400) }) do
      assert.matches("optimal length '.-' is not a number >= 0",
        scen_err("version 1\n0 a 4 4 0 0 1 1 " .. bad .. "\n"))
    end
    assert.matches("bad argument #1 to '" .. fname("load_scen") .. "'", err_of(astar.load_scen, 1 > 2))
    assert.matches("^cannot open ", err_of(astar.load_scen, "spec/maps/nope.scen"))
  end)
end)

describe("the scenario runner (bench/scen.lua)", function()
  it("the shipped optimal lengths agree with the oracle", function()
    for _, name in ipairs(MAPS) do
      local rows = rows_of(read("spec/maps/" .. name))
      local world = { w = #rows[1], h = #rows, cost = {}, diagonal = "no_corner_cut" }
      for y, row in ipairs(rows) do
        world.cost[y] = {}
        for x = 1, #row do world.cost[y][x] = row:sub(x, x):match("[%.GS]") and 1 or false end
      end
      for _, p in ipairs(astar.load_scen("spec/maps/" .. name .. ".scen")) do
        if world.cost[p.sy][p.sx] and world.cost[p.gy][p.gx] then
          local d = oracle.cost(world, p.sx, p.sy, p.gx, p.gy)
          assert.is_true(math.abs(d - p.optimal) <= 1e-6, name)
        end
      end
    end
  end)

  it("finds 0 mismatches on our maps and counts the skipped problems", function()
    for _, name in ipairs(MAPS) do
      local r = runner.run(astar, "spec/maps/" .. name)
      assert.are.equal(0, r.mismatches, name .. ": " .. table.concat(r.failures, "; "))
      assert.are.equal(1, r.skipped)
      assert.are.equal(r.problems, r.checked + r.skipped)
      assert.is_true(r.checked > 10)
    end
  end)

  it("reports a wrong optimal length as a mismatch", function()
    local text = read("spec/maps/forest32x32.map.scen")
    -- the first problem's length, made one unit longer
    local tampered, n = text:gsub("\t(%d+%.%d+)\n", function(len)
      return string.format("\t%.8f\n", tonumber(len) + 1)
    end, 1)
    assert.are.equal(1, n)
    local path = temp_file(tampered)
    local r = runner.run(astar, "spec/maps/forest32x32.map", path)
    os.remove(path)
    assert.are.equal(1, r.mismatches)
    assert.matches("^problem 1 ", r.failures[1])
  end)
end)
