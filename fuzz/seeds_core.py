#!/usr/bin/env python3
"""Writes the hand-made seeds of fuzz/corpus/core that reach hexes, noise, turns,
claim windows, distance fields, landmarks and the largest grids (see the input layout
in fuzz_core.c).

    python3 fuzz/seeds_core.py fuzz/corpus/core

fuzz_core stops an input once its work budget is spent (WORK_BUDGET), so a scenario
with more queries than one input affords is written as several seeds, NAME-1, NAME-2,
..., each with the scenario's set-up (terrain, claims, landmarks) and some of its
queries in their order. Each must run whole: with ASTAR_FUZZ_TRACE=1 the fuzzer's
last line, "N operations, work W of B", must not say "(bytes left)". The older seeds
not written here (blocked_and_limits, callbacks, claims, layers, maze_all_diagonals,
regress-from-fuzz-merge-efde021, regress-turns-overflow-unreachable) were split the
same way, by the byte ranges of their operations (the trace prints them, "op N: bytes
A..B"); claims-2 and -3 claim, with claims_set, the paths claims-1's finds claim with
claims_set_path.
"""
import os
import sys

INF = 9  # rd_cost's table index of INFINITY


def setup(w, h, diagonal, alloc=0, index=0, eager=0):
    return [w - 1, h - 1, diagonal, alloc, index, eager]


def wall(cells):
    out = []
    for x, y in cells:
        out += [0, x, y, INF]  # op_set_cost
    return out


def costs(layers=0, claims=15, unit=254, penalty=0, radius=9, callbacks=0, seed=0):
    # rd_costs: no layers, no claims (15), unit -1, penalty 5, radius -1, no callbacks
    return [layers, claims, unit, penalty, radius, callbacks, seed & 255, seed >> 8]


def find(s, g, diagonal=0, heuristic=20, flags=0, ways=None, cost_bytes=None, maxexp=1, maxcost=0):
    out = [15, flags | (0x04 if ways is not None else 0), s[0], s[1], g[0], g[1], diagonal, heuristic, 0]
    out += cost_bytes if cost_bytes is not None else costs()
    out += [maxexp, maxcost]
    if ways is not None:
        out += ways
    return out


def ways(noise=None, seed=0, turn=None, window=None):
    b = (1 if noise is not None else 0) | (2 if turn is not None else 0) | (4 if window is not None else 0)
    out = [b]
    if noise is not None:
        out += [noise, seed & 255, seed >> 8 & 255, seed >> 16 & 255, seed >> 24 & 255]
    if turn is not None:
        out += [turn]
    if window is not None:
        out += [window]
    return out


def field(kind_from, cells, s=(0, 0), g=(0, 0), diagonal=7, cost_bytes=None, maxexp=1, maxcost=0,
          spoil=63, fog=False, noise=None):
    n = len(cells)
    b = 1 if kind_from else 0
    b |= ((n - 1) if not kind_from else (3 if n == 2 else 0)) << 1
    if fog:
        b |= 0x40
    if noise is not None:
        b |= 0x20
    out = [232, b, spoil]
    for x, y in cells:
        out += [x, y]
    if not kind_from:
        out += [s[0], s[1]]
    out += [g[0], g[1], diagonal]
    out += cost_bytes if cost_bytes is not None else costs()
    out += [maxexp, maxcost]
    if noise is not None:
        out += [noise, 1, 2, 3, 4]
    return out


def parts(name, head, *groups):
    """Seeds NAME-1, NAME-2, ...: each the set-up `head` and then one group of operations."""
    return {"%s-%d" % (name, i + 1): head + group for i, group in enumerate(groups)}


WALL = [(4, y) for y in range(1, 9)] + [(x, 4) for x in range(6, 10)]

SEEDS = {}

# a hex grid with a wall; finds under every heuristic, a square query on it, and back; islands,
# blocked starts
SEEDS.update(parts(
    "seed-hex", setup(10, 10, 4) + wall(WALL),
    find((0, 5), (9, 9)) + find((0, 0), (9, 2), heuristic=12),
    find((1, 8), (8, 1), heuristic=0),
    find((9, 9), (0, 0), heuristic=3),
    find((0, 5), (9, 9), diagonal=9, flags=2),
    [4, 1] + find((0, 5), (9, 9), diagonal=12) + [4, 6] + find((2, 2), (7, 7), flags=2),
    [4, 1, 4, 6] + wall([(4, 0), (4, 9)]) + [234, 4, 2, 9, 9] + [234, 0, 0, 9, 9],
    [4, 1, 4, 6] + wall([(4, 0), (4, 9)]) + [4, 5] + [234, 4, 2, 5, 0]))

# noise on squares and hexes, several seeds and amounts
SEEDS.update(parts(
    "seed-noise", setup(12, 8, 1) + wall(WALL[:5]),
    find((0, 0), (11, 7), ways=ways(noise=0, seed=7)),
    find((0, 0), (11, 7), ways=ways(noise=4, seed=99)),
    find((0, 7), (11, 0), diagonal=12, ways=ways(noise=3, seed=123456789), flags=2)))

# turn penalties: 8 neighbours, 4, hexes, with a custom heuristic too
SEEDS.update(parts(
    "seed-turns", setup(10, 10, 3) + wall(WALL),
    find((0, 0), (9, 9), ways=ways(turn=0)),
    find((0, 9), (9, 0), diagonal=8, ways=ways(turn=4)),
    find((0, 5), (9, 9), diagonal=12, ways=ways(turn=3)),
    find((1, 1), (8, 8), heuristic=5, ways=ways(turn=0)),
    find((0, 0), (9, 9), diagonal=9, ways=ways(turn=0, noise=2, seed=5), flags=2)))

# two units claim a corridor; queries see their claims in time, with narrow and huge windows
SEEDS.update(parts(
    "seed-window", setup(8, 5, 0) + wall([(x, 1) for x in range(0, 7)] + [(x, 3) for x in range(1, 8)])
    + [9, 0, 10, 10]
    + [11, 0, 8] + sum([[y * 8 + x, 0] for x, y in [(0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)]], [])
    + [11, 1, 4] + sum([[y * 8 + x, 0] for x, y in [(7, 0), (7, 1), (7, 2), (6, 2)]], []),
    find((0, 0), (0, 4), cost_bytes=costs(claims=0), ways=ways(window=0))
    + find((0, 0), (0, 4), cost_bytes=costs(claims=0), ways=ways(window=1)),
    find((0, 0), (0, 4), cost_bytes=costs(claims=0), ways=ways(window=8)),
    find((0, 0), (0, 4), cost_bytes=costs(claims=0, unit=0), ways=ways(window=2, turn=0)),
    find((7, 4), (0, 0), diagonal=9, cost_bytes=costs(claims=0, penalty=3), ways=ways(window=3))))

# flow fields to one and to four goals, on squares and hexes, one with a budget; a refused build
# right after one stopped by max_expansions, then a find on the workspace the fields used
SEEDS.update(parts(
    "seed-field-to", setup(10, 10, 3) + wall(WALL),
    field(False, [(9, 9)]),
    field(False, [(0, 0), (9, 0), (0, 9), (9, 9)], diagonal=4),
    field(False, [(5, 5), (2, 7)], diagonal=0, maxcost=3 + 4 * 2),
    field(False, [(1, 1)], maxexp=8 * 20) + field(False, [(4, 4)], spoil=0) + find((0, 0), (9, 9))))

# movement ranges from a start, with a budget, on hexes, from a blocked cell and with noise
SEEDS.update(parts(
    "seed-field-from", setup(10, 10, 4) + wall(WALL),
    field(True, [(2, 2)]),
    field(True, [(2, 2)], maxcost=3 + 4 * 3),
    field(True, [(4, 4)], diagonal=1),
    field(True, [(0, 0), (9, 9)], diagonal=2, noise=0),
    field(True, [(5, 5)], spoil=8) + field(True, [(7, 7)], maxexp=8 * 30)))

# landmarks: a few where costs differ, then dearer terrain (kept), a cheaper cell (stale),
# k out of range, dropped (a build of k = 3 on 25 cells: within the fuzzer's LANDMARK_WORK_FEW)
SEEDS.update(parts(
    "seed-landmarks", setup(5, 5, 1) + wall([(2, 1), (2, 2), (2, 3)]) + [0, 1, 1, 2, 0, 3, 3, 4] + [255, 3],
    find((0, 0), (4, 4)) + find((4, 0), (0, 4), cost_bytes=costs(claims=0)),
    [0, 1, 3, 7] + find((0, 4), (4, 0)),
    [0, 1, 3, 7, 0, 1, 1, 3] + find((0, 0), (4, 4)),
    [0, 1, 3, 7, 0, 1, 1, 3] + [255, 250] + [255, 252] + [255, 0] + find((0, 0), (4, 4))))

# 35 landmarks on terrain of one cost (each query uses a subset), under other modes (the
# fuzzer builds more than 32 on grids of at most 36 cells, LANDMARK_MANY_CELLS)
SEEDS.update(parts(
    "seed-landmarks-many", setup(6, 6, 1) + wall([(2, 2)]) + [255, 39],
    find((0, 0), (5, 5)) + find((5, 5), (1, 1), ways=ways(turn=0)),
    [4, 5] + find((0, 0), (5, 5)),
    [4, 5, 4, 3] + find((0, 5), (5, 0), diagonal=8),
    [4, 5, 4, 3] + [0, 4, 4, 7] + find((0, 0), (5, 5), cost_bytes=costs(claims=0))))

# astar.h: a field ignores q's goal, so one outside the grid must not make it EINVAL
SEEDS["regress-field-goal-ignored"] = (setup(5, 5, 1)
    + field(False, [(1, 1)], g=(250, 0)) + field(True, [(3, 3)], g=(2, 253)))

# The largest grid (24 x 24): raw-bit node costs, half of them huge, make the open list outgrow
# its first 256 entries (each query alone: one of them spends an input's budget)
BIG = 24
SEEDS.update(parts(
    "open_list_growth", setup(BIG, BIG, 1),
    find((12, 12), (BIG - 1, BIG - 1), diagonal=15, heuristic=4, cost_bytes=costs(claims=7, callbacks=5, seed=9)),
    find((0, 0), (BIG - 1, BIG - 1), diagonal=15, heuristic=4, flags=1, cost_bytes=costs(claims=7, callbacks=5, seed=10))))
# ... and the allocator refuses that growth (request 13: mode 1, index 12)
SEEDS["oom_open_list_growth"] = (setup(BIG, BIG, 1, alloc=1, index=12)
    + find((12, 12), (BIG - 1, BIG - 1), diagonal=15, heuristic=4, cost_bytes=costs(claims=7, callbacks=5, seed=9)))

# set_all on the largest grid: a serpentine wall (one cost per 8 cells), then queries across it
SERPENTINE = [3, 0] + [6, 6, 0, 0, 0, 0, 0, 6, 6, 0, 0, 0] * (BIG // 4) + [0]
SEEDS.update(parts(
    "big_grid_set_all", setup(BIG, BIG, 3) + SERPENTINE,
    find((0, 0), (BIG - 1, BIG - 1), diagonal=15, heuristic=15, cost_bytes=costs(claims=7)),
    find((BIG - 1, 0), (0, BIG - 1), diagonal=15, heuristic=15, flags=2, cost_bytes=costs(claims=7)),
    find((0, 0), (BIG - 1, BIG - 1), diagonal=15, heuristic=4, cost_bytes=costs(claims=7))))

# With reopening (an admissible but inconsistent custom heuristic, sliced), search.c ignores
# improvements of a closed node below 1e-10 * g: the reported cost may exceed the path's by that
# much (29.149494939611667 reported, 29.149494938611667 summed). Found on a 40 x 40 grid; the
# same search happens on 16 x 16.
SEEDS["reopen_below_threshold"] = (setup(16, 16, 1) + [9, 5]
    + find((15, 1), (0, 0), heuristic=32 + 5, flags=1,
           cost_bytes=costs(claims=0, unit=0, radius=0, callbacks=1, seed=2599)))

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "fuzz/corpus/core"
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes(data))
