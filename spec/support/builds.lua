-- What the specs of builds in slices share (spec/39, spec/42).
local assert = require("luassert")

local M = {}

-- Steps b with random budgets to the end: every step within its budget, the progress in
-- [0, 1] and never going back, 1 once done. Returns the steps taken.
function M.step_through(b, rng, most)
  local steps, last = 0, b:progress()
  assert.are.equal(0, last)
  while not b:done() do
    local n = rng.int(1, most)
    local status, used = b:step(n)
    steps = steps + 1
    assert(used >= 0 and used <= n, "a step of budget " .. n .. " did " .. used)
    local p = b:progress()
    assert(p >= last and p <= 1, "progress went from " .. last .. " to " .. p)
    assert.are.equal(status == "done", p == 1)
    last = p
    assert(steps < 1e6, "the build never ends")
  end
  assert.are.equal(1, b:progress())
  assert.are.equal("done", b:status())
  assert.are.same({ "done", 0 }, { b:step(5) })
  return steps
end

return M
