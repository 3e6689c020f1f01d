-- How many random worlds (rounds, queries) a spec draws: scale(n) is n, or a share of it when
-- ASTAR_SPEC_SCALE (in (0, 1]) says so. Every loop of the suite over random worlds or repeated
-- rounds counts through it (spec/README.md says so; loops that wait for a job or a scheduler to
-- finish are bounds, not counts, and do not). The test command (.ci/setup.sh) sets 0.25 for the
-- busted suite under valgrind, where the interpreter runs some 40 times slower than plain, and
-- for the Lua 5.1-5.3 suites; the release Lua 5.4, LuaJIT and ASan + UBSan suites draw them
-- all. Each spec's world-count checks scale alike, and its seed is fixed, so a scaled run checks
-- the first worlds of the full run, the same way.
local share = tonumber(os.getenv("ASTAR_SPEC_SCALE") or "")
if not share or share <= 0 or share > 1 then share = 1 end

return function(n) return math.max(1, math.ceil(n * share)) end
