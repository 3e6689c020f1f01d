-- How many random worlds (rounds, queries) a property spec draws: scale(n) is n, or a share of
-- it when ASTAR_SPEC_SCALE (in (0, 1]) says so. The test command sets it to 0.25 for the busted
-- suite under valgrind, where the interpreter itself runs some 40 times slower than plain (the
-- heaviest specs took minutes there); every other run of the suite (plain, ASan + UBSan, each
-- Lua) draws them all. Each spec's world-count checks scale alike, and its seed is fixed, so a
-- scaled run checks the first worlds of the full run, the same way.
local share = tonumber(os.getenv("ASTAR_SPEC_SCALE") or "")
if not share or share <= 0 or share > 1 then share = 1 end

return function(n) return math.max(1, math.ceil(n * share)) end
