-- Resumable searches: grid:search, job:step(n), job:result().
local astar = require("astar")
local oracle = require("spec.support.dijkstra")
local scale = require("spec.support.scale") -- fewer worlds under valgrind

local function drive(job, slice)
  local status, steps = job:status(), 0
  while status == "running" do
    status = job:step(slice)
    steps = steps + 1
  end
  return status, steps
end

describe("grid:search", function()
  it("answers in slices exactly what find answers at once (random worlds, every option)", function()
    local rng = oracle.rng(808)
    local sliced = 0
    for n = 1, scale(150) do
      local w, h = rng.int(2, 12), rng.int(2, 12)
      local world = { w = w, h = h, cost = {}, diagonal = oracle.DIAGONALS[rng.int(1, 4)] }
      if rng.next() < 0.2 then world.topology, world.diagonal = "hex", nil end
      for y = 1, h do
        world.cost[y] = {}
        for x = 1, w do world.cost[y][x] = rng.next() < 0.25 and false or rng.int(1, 3) end
      end
      local grid = oracle.grid(astar, world)
      local opts = { jump = false } -- searches in slices are A*; find would jump on uniform ground
      if rng.next() < 0.4 then
        local layer = astar.influence(w, h)
        for y = 1, h do for x = 1, w do layer:set(x, y, rng.next() * 4 - 1) end end
        opts.influence = layer
      end
      if rng.next() < 0.3 then
        local claims = astar.claims(grid)
        claims:claim("a", { { x = rng.int(1, w), y = rng.int(1, h) }, { x = rng.int(1, w), y = rng.int(1, h) } })
        opts.claims = claims
        if rng.next() < 0.5 then opts.claim_window = rng.int(0, 2) end
      end
      if rng.next() < 0.3 then
        local salt = rng.int(1, 9)
        opts.node_cost = function(x, y) return (x * y + salt) % 4 == 0 and false or 0.25 end
      end
      if rng.next() < 0.2 then opts.turn_penalty = 1 end
      if rng.next() < 0.2 then opts.noise, opts.seed = 1, n end
      if rng.next() < 0.2 then opts.partial = true end
      if rng.next() < 0.2 then opts.max_expansions = rng.int(0, 30) end
      local sx, sy, gx, gy = rng.int(1, w), rng.int(1, h), rng.int(1, w), rng.int(1, h)
      local path, info = grid:find(sx, sy, gx, gy, opts)
      local job = grid:search(sx, sy, gx, gy, opts)
      assert.is_nil((job:result()))
      local status, steps = drive(job, rng.int(1, 5))
      if steps > 1 then sliced = sliced + 1 end
      local jpath, jinfo = job:result()
      assert.are.equal(info.status, status, "world " .. n)
      assert.are.same(path, jpath, "world " .. n)
      jinfo.restarts, jinfo.repairs = nil, nil
      assert.are.same(info, jinfo, "world " .. n)
      assert.are.equal(status, job:step(10)) -- a finished job answers again, harmlessly
    end
    assert.is_true(sliced > scale(50), "only " .. sliced .. " searches took more than one step")
  end)

  it("reports running, then the result; step() without n runs to the end", function()
    local g = astar.grid(30, 30)
    local job = g:search(1, 1, 30, 30, { jump = false }) -- A*: jumps would end in one step
    assert.are.equal("running", job:status())
    local p, i = job:result()
    assert.is_nil(p)
    assert.are.same({ status = "running" }, i)
    assert.are.equal("running", job:step(3))
    assert.are.equal("found", job:step())
    local path, info = job:result()
    assert.are.equal(30, #path)
    assert.are.equal(0, info.restarts)
    assert.truthy(tostring(job):find("astar.Search(found)", 1, true))
  end)

  it("follows a terrain change made while it was suspended (spec 51: going on, repairs, restarts)", function()
    local g = astar.grid(40, 20)
    local job = g:search(1, 10, 40, 10, { jump = false }) -- A* follows changes; a jumping job starts over
    job:step(15)
    for y = 1, 19 do g:set_cost(20, y, false) end -- a wall ahead, open at the bottom
    assert.are.equal("found", job:step())
    local path, info = job:result()
    local _, winfo = g:find(1, 10, 40, 10, { jump = false })
    assert.are.equal(0, info.restarts) -- it had not reached the wall: it goes on
    assert.are.equal(winfo.cost, info.cost)
    assert.is_nil(g:check_path(path)) -- every step still allowed
  end)

  it("starts over when the landmarks its heuristic reads are rebuilt or dropped; one without goes on", function()
    local g = astar.grid(60, 60)
    for y = 1, 50 do g:set_cost(30, y, false) end
    local plain = g:search(1, 1, 60, 1, { jump = false })
    plain:step(20)
    g:landmarks(4) -- it reads none: it goes on
    local job = g:search(1, 1, 60, 1, { jump = false }) -- reads them
    job:step(30)
    plain:step(30)
    g:landmarks(5) -- the suspended search must not keep reading the old distances
    job:step(30)
    g:landmarks(0)
    assert.are.equal("found", job:step())
    assert.are.equal("found", plain:step())
    local want = select(2, g:find(1, 1, 60, 1, { jump = false })).cost
    local _, info = job:result()
    assert.are.equal(2, info.restarts)
    assert.are.equal(want, info.cost)
    _, info = plain:result()
    assert.are.equal(0, info.restarts)
    assert.are.equal(want, info.cost)
  end)

  it("survives an error in a callback: the next step starts over and finishes", function()
    local g = astar.grid(20, 20)
    local fail = true
    local job = g:search(1, 1, 20, 20, {
      node_cost = function(x, y)
        if fail and x == 10 then error("boom at " .. x .. "," .. y, 0) end
        return 0
      end,
    })
    local ok, err = pcall(job.step, job)
    assert.is_false(ok)
    assert.truthy(err:find("^boom at 10,"))
    assert.are.equal("running", job:status())
    fail = false
    assert.are.equal("found", job:step())
    local _, info = job:result()
    assert.are.equal(select(2, g:find(1, 1, 20, 20, { jump = false })).cost, info.cost)
    g:set_cost(1, 2, 3) -- not in use any more
  end)

  it("can be driven from a coroutine, a few expansions per resume", function()
    local g = astar.grid(50, 50)
    for y = 5, 45 do g:set_cost(25, y, false) end
    local job = g:search(1, 25, 50, 25, { jump = false })
    local co = coroutine.wrap(function()
      while job:step(20) == "running" do coroutine.yield("running") end
      return "done"
    end)
    local resumes = 0
    repeat resumes = resumes + 1 until co() == "done"
    assert.is_true(resumes > 5)
    local path, info = job:result()
    local want, winfo = g:find(1, 25, 50, 25, { jump = false })
    assert.are.same(want, path)
    assert.are.equal(winfo.expansions, info.expansions)
  end)

  it("refuses to be stepped by its own callback, or to read what was freed", function()
    local g = astar.grid(10, 10)
    local job
    job = g:search(1, 1, 10, 10, { node_cost = function() job:step(1) end })
    local ok, err = pcall(job.step, job)
    assert.is_false(ok)
    assert.truthy(err:find("in use", 1, true))
    local layer = astar.influence(10, 10)
    local j2 = g:search(1, 1, 10, 10, { influence = layer })
    j2:step(2)
    getmetatable(layer).__gc(layer)
    assert.has_error(function() j2:step() end, "astar.Search: an object it reads has been freed")
    -- g is written between steps freely
    local j3 = g:search(1, 1, 10, 10, { influence = astar.influence(10, 10) })
    j3:step(2)
    g:set_cost(5, 5, 2)
    assert.are.equal("found", j3:step())
  end)

  it("keeps its grid and options alive on its own", function()
    local job
    do
      local g = astar.grid(20, 20)
      local inf = astar.influence(20, 20, 1)
      job = g:search(1, 1, 20, 20, { influence = inf })
    end
    collectgarbage()
    collectgarbage()
    assert.are.equal("found", job:step())
    local _, info = job:result()
    assert.is_true(oracle.near(info.cost, 19 * math.sqrt(2) + 19))
  end)

  it("checks its arguments", function()
    local g = astar.grid(5, 5)
    assert.has_error(function() g:search(0, 1, 5, 5) end, "bad argument #1 to 'search' (x out of range 1..5, got 0)")
    assert.has_error(function() g:search(1, 1, 5, 5, { influnce = 1 }) end,
      "bad argument #5 to 'search' (unknown option 'influnce')")
    local job = g:search(1, 1, 5, 5)
    assert.has_error(function() job:step(0) end, "bad argument #1 to 'step' (n must be a positive integer, got 0)")
    assert.has_error(function() job:step(1.5) end)
    assert.has_error(function() job:step("x") end)
    assert.has_error(function() job.step(g) end)
    assert.are.equal("found", job:step(100))
  end)
end)
