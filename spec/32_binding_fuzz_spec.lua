-- The binding fuzzer's seeds (fuzz/lua/seeds.txt), replayed by the default suite: each seed is
-- a sequence of calls whose options, points and callbacks misbehave (close objects, collect
-- garbage, answer differently on every read, call back in), with the fuzzer's invariants
-- checked after every step (fuzz/lua/fuzz_binding.lua). A few seconds at most.
local fuzz = assert(loadfile("fuzz/lua/fuzz_binding.lua"))("--module")

local STEPS = 40 -- the fuzzer's default: a seed replays the calls that found its bug
local BUDGET = 3 -- seconds of CPU; under valgrind the later seeds are left to the fuzzer

describe("the binding fuzzer's seeds", function()
  it("replay without a crash or a broken invariant", function()
    local seeds, disabled = fuzz.read_seeds("fuzz/lua/seeds.txt")
    assert.is_true(#seeds > 0)
    local start = os.clock()
    for _, s in ipairs(seeds) do
      local off = {}
      for name in pairs(disabled) do off[name] = true end
      for name in pairs(s.disable) do off[name] = true end
      local failure = fuzz.run(s.seed, math.min(s.steps or STEPS, STEPS), { disabled = off })
      assert(failure == nil, failure)
      if os.clock() - start > BUDGET then break end
    end
  end)
end)
