/*
 * Out-of-memory test for the Lua binding (issue 3).
 *
 * A C host embeds Lua 5.4 with an allocator that can be told to refuse
 * allocations, and links src/lua/astar_core.c in directly. For each scenario
 * it counts the K allocations one run makes, then reruns it with allocation
 * number N refused, for every N in 1..K + margin, and requires that
 *   - the run either succeeds with the same results as an unhindered run, or
 *     fails with the Lua error "not enough memory" (exactly);
 *   - after a full collection the live bytes are back at their baseline (no
 *     leak), and the objects the scenario keeps still work, can be written to
 *     (nothing left "in use") and give the same answers as before;
 *   - no __gc raises (Lua turns that into a warning, which fails the test);
 *   - every free or realloc passes the true old size of its block;
 *   - after lua_close, not one byte is left.
 *
 * Three ways to fail, because Lua itself retries a failed allocation once
 * after an emergency collection:
 *   once       only allocation N fails: Lua's own allocations recover through
 *              the retry, so this hits the binding's and the core's direct
 *              allocations, and runs the emergency collector at every point;
 *   twice      N and N + 1 fail: Lua's retry fails too, so the error is raised
 *              while later allocations (error messages, cleanup) succeed;
 *   from-N-on  every allocation from N on fails until the run ends.
 *
 * Usage: test_lua_oom [source dir]   (the default is ASTAR_SOURCE_DIR)
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#if LUA_VERSION_NUM != 504
#error "test_lua_oom needs the Lua 5.4 headers"
#endif

#ifndef ASTAR_SOURCE_DIR
#define ASTAR_SOURCE_DIR "."
#endif

/* src/lua/astar_core.c, compiled into this executable. */
int luaopen_astar_core(lua_State *L);

#define OOM_MESSAGE "not enough memory"
#define MAX_REPORTS 12 /* problems printed per scenario and mode; the rest are only counted */

/* ------------------------------------------------------------ allocator */

/* Each block carries its size, so a wrong old size passed to free/realloc is caught. */
typedef union header {
    max_align_t align; /* keeps the block aligned as Lua requires */
    size_t size;
} header;

typedef struct memory {
    long long live_bytes;    /* signed: a wrong old size would drive it below zero */
    long long live_blocks;
    unsigned long growths;   /* growth requests since the last call() began */
    unsigned long fail_from; /* 0: disarmed; else the first growth request refused */
    unsigned long fail_len;  /* how many growth requests are refused from there */
    unsigned long refused;   /* growth requests refused since the last call() began */
    unsigned long bad_sizes; /* frees and reallocs given a wrong old size */
    unsigned long warnings;  /* Lua warnings: a __gc that raised, for one */
} memory;

static void *test_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    memory *m = ud;
    header *h = ptr ? (header *)ptr - 1 : NULL;
    size_t old = h ? h->size : 0;
    /* With ptr == NULL, osize is a Lua type tag, not a size. */
    if (h && osize != old) {
        if (m->bad_sizes++ < 5)
            fprintf(stderr, "allocator: block of %zu bytes freed or resized as %zu bytes\n", old,
                    osize);
    }
    if (nsize == 0) {
        if (h) {
            m->live_bytes -= (long long)old;
            m->live_blocks--;
            free(h);
        }
        return NULL;
    }
    /* Only growth may fail: Lua assumes that shrinking a block always succeeds. */
    if (nsize > old) {
        m->growths++;
        if (m->fail_from && m->growths >= m->fail_from && m->growths - m->fail_from < m->fail_len) {
            m->refused++;
            return NULL;
        }
    }
    header *nh = realloc(h, sizeof *h + nsize);
    if (!nh) {
        if (nsize > old) return NULL;
        nh = h; /* a shrink the C library refused: the old, larger block still serves */
    }
    if (!h) m->live_blocks++;
    m->live_bytes += (long long)nsize - (long long)old;
    nh->size = nsize;
    return nh + 1;
}

static void on_warning(void *ud, const char *msg, int tocont) {
    memory *m = ud;
    static bool continuing = false;
    /* "@on"/"@off" and friends are control messages, not warnings. */
    if (!continuing && msg[0] == '@') return;
    if (!continuing) {
        m->warnings++;
        fputs("Lua warning: ", stderr);
    }
    fputs(msg, stderr);
    if (!tocont) fputc('\n', stderr);
    continuing = tocont != 0;
}

static int on_panic(lua_State *L) {
    fprintf(stderr, "PANIC: unprotected Lua error: %s\n", lua_tostring(L, -1));
    abort();
}

/* ------------------------------------------------------------- scenarios */

/*
 * Loaded once, before any scenario: the module, a map, and signature(...),
 * which turns results into a string so two runs can be compared.
 */
static const char PRELUDE[] =
    "astar = require('astar')\n"
    "ROWS = {\n"
    "  '................',\n"
    "  '.######.........',\n"
    "  '......#..####...',\n"
    "  '..#...#.....#...',\n"
    "  '..#...####..#...',\n"
    "  '..#.........#...',\n"
    "  '..#####..####...',\n"
    "  '........#.......',\n"
    "  '.####...#..###..',\n"
    "  '....#...#....#..',\n"
    "  '....#.......##.#',\n"
    "  '....#.......#...',\n"
    "}\n"
    "function world(diagonal)\n"
    "  local g = astar.grid(16, 12, diagonal and {diagonal = diagonal} or nil)\n"
    "  g:load(ROWS)\n"
    "  return g\n"
    "end\n"
    "local function before(a, b)\n"
    "  if type(a) ~= type(b) then return type(a) < type(b) end\n"
    "  return a < b\n"
    "end\n"
    "local function put(v, out)\n"
    "  local t = type(v)\n"
    "  if t == 'table' then\n"
    "    local keys = {}\n"
    "    -- (not info.version: a run that builds or writes moves it on; spec 54 checks it)\n"
    "    for k in pairs(v) do if k ~= 'version' then keys[#keys + 1] = k end end\n"
    "    table.sort(keys, before)\n"
    "    out[#out + 1] = '{'\n"
    "    for _, k in ipairs(keys) do\n"
    "      put(k, out); out[#out + 1] = '='; put(v[k], out); out[#out + 1] = ','\n"
    "    end\n"
    "    out[#out + 1] = '}'\n"
    "  elseif math.type(v) == 'float' then out[#out + 1] = string.format('%.17g', v)\n"
    "  elseif t == 'string' then out[#out + 1] = string.format('%q', v)\n"
    "  else out[#out + 1] = tostring(v) end\n"
    "end\n"
    "function signature(...)\n"
    "  local out = {}\n"
    "  for i = 1, select('#', ...) do put((select(i, ...)), out); out[#out + 1] = '; ' end\n"
    "  return table.concat(out)\n"
    "end\n";

/*
 * A scenario is a chunk, run with nothing armed, that makes what the scenario
 * keeps and returns two functions: run, the part run under failing
 * allocations (it keeps nothing: everything it makes is local), and check,
 * which uses and writes to the kept objects to show they still work.
 */
typedef struct scenario {
    const char *name;
    const char *code;
} scenario;

static const scenario SCENARIOS[] = {
    {"grid: create, set_cost, fill, load",
     "local G = world()\n"
     "local function run()\n"
     "  local g = astar.grid(16, 12, {diagonal = 'always', cost = 2})\n"
     "  g:set_cost(3, 4, 5)\n"
     "  g:set_blocked(5, 5, true)\n"
     "  g:fill(1.5)\n"
     "  g:load(ROWS, {['.'] = 1, ['#'] = false})\n"
     "  g:set_cost(1, 1, 3)\n"
     "  G:load(ROWS)\n" /* the kept grid is written with what it holds already */
     "  G:set_cost(1, 1, G:get_cost(1, 1))\n"
     "  return g:get_cost(1, 1), g:get_cost(2, 2), g:is_walkable(5, 5), g.width, g:size(),\n"
     "         tostring(g)\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 4); G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 16, 12), G:get_cost(1, 1)\n"
     "end\n"
     "return run, check\n"},

    {"grid:find, default options",
     "local G = world()\n"
     "local function run()\n"
     "  local p, i = G:find(1, 1, 16, 12)\n"
     "  local q, j = G:find(1, 1, 2, 2)\n" /* blocked goal: nil, unreachable */
     "  local r, k = G:find(3, 3, 3, 3)\n"
     "  return p, i, q, j, r, k\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 16, 12)\n"
     "end\n"
     "return run, check\n"},

    /* The first query on a grid allocates its search workspace. */
    {"new grid, first find",
     "local function run()\n"
     "  local g = world('never')\n"
     "  return g:find(1, 1, 16, 12, {heuristic = 'manhattan', weight = 1.5})\n"
     "end\n"
     "local function check() return world():find(16, 12, 1, 1) end\n"
     "return run, check\n"},

    {"find with node_cost, edge_cost, heuristic callbacks (and a nested find)",
     "local G = world()\n"
     "local function run()\n"
     "  local seen = {}\n"
     "  local p, i = G:find(1, 1, 16, 12, {\n"
     "    node_cost = function(x, y)\n"
     "      seen[#seen + 1] = x .. ',' .. y\n"
     "      if x == 8 and y == 8 then\n"
     "        assert(G:find(1, 1, 3, 1), 'nested find')\n"
     "      end\n"
     "      return (x * 7 + y * 3) % 4\n"
     "    end,\n"
     "    edge_cost = function(x, y, fx, fy)\n"
     "      if x == 9 and y == 6 then return false end\n"
     "      if x ~= fx and y ~= fy then return 0.25 end\n"
     "    end,\n"
     "    heuristic = function(x, y, gx, gy)\n"
     "      return ({math.max(math.abs(gx - x), math.abs(gy - y))})[1]\n"
     "    end,\n"
     "  })\n"
     "  return p, i, #seen\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 16, 12, {node_cost = function(x, y) return x % 2 end})\n"
     "end\n"
     "return run, check\n"},

    {"find with influence layers",
     "local G = world()\n"
     "local A = astar.influence(16, 12, 0)\n"
     "local B = astar.influence(16, 12, 1)\n"
     "for x = 4, 11 do A:set(x, 6, 5) end\n"
     "B:set(12, 3, -2)\n"
     "local function run()\n"
     "  local p, i = G:find(1, 1, 16, 12, {influence = A, influence_weight = 2})\n"
     "  local q, j = G:find(1, 1, 16, 12, {influence = {{A, 1}, {B, 0.5}}})\n"
     "  return p, i, q, j\n"
     "end\n"
     "local function check()\n"
     "  A:set(1, 1, A:get(1, 1)); B:add(2, 2, 0); G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 16, 12, {influence = {{A, 1}, {B, 0.5}}})\n"
     "end\n"
     "return run, check\n"},

    {"fog of war: a mask, reveal, find with known",
     "local G = world()\n"
     "local M = astar.mask(16, 12)\n"
     "M:reveal(4, 4, 3)\n"
     "local function run()\n"
     "  local m = astar.mask(16, 12)\n"
     "  m:reveal(8, 6, 2.5)\n"
     "  local p, i = G:find(1, 1, 16, 12, {known = m})\n"
     "  local q, j = G:find(1, 1, 16, 12, {known = M, partial = true})\n"
     "  return p, i, q, j, m:is_known(8, 6), tostring(m)\n"
     "end\n"
     "local function check()\n"
     "  M:reveal(1, 1); G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 16, 12, {known = M})\n"
     "end\n"
     "return run, check\n"},

    /* The first find_nearest on a workspace allocates its target arrays. */
    {"find_nearest",
     "local G = world()\n"
     "local T = {{x = 16, y = 12}, {x = 2, y = 2}, {9, 7}, {x = 16, y = 1}}\n"
     "local function run()\n"
     "  local p, i = G:find_nearest(1, 1, T)\n"
     "  local q, j = world():find_nearest(16, 12, T, {heuristic = 'zero'})\n"
     "  return p, i, q, j\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:find_nearest(1, 1, T)\n"
     "end\n"
     "return run, check\n"},

    /* A grid's first threaded find_many makes its workspaces (from worker threads too). The
     * kept grid runs on one thread only: which worker takes which query varies, and so would
     * what its workspaces grow to, which the baseline check would take for a leak. */
    {"find_many: threads, and callbacks on the calling thread",
     "local G = world()\n"
     "local Q = {{1, 1, 16, 12}, {sx = 16, sy = 12, gx = 2, gy = 3}, {1, 1, 2, 2}, {4, 4, 4, 4}}\n"
     "local function run()\n"
     "  local r = world():find_many(Q, nil, {threads = 2})\n"
     "  local s = G:find_many(Q, {node_cost = function(x, y) return x % 3 end})\n"
     "  local t = world():find_many(Q, {max_expansions = 5, partial = true}, {threads = 3})\n"
     "  return r, s, t\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:find_many(Q, nil, {threads = 1})\n"
     "end\n"
     "return run, check\n"},

    /* A new layer's first spread allocates its scratch rows. */
    {"influence maps: stamp, spread, decay, add_layer",
     "local G = world()\n"
     "local K = astar.influence(16, 12, 0)\n"
     "local function run()\n"
     "  local a = astar.influence(16, 12)\n"
     "  a:stamp(5, 5, 3, 8, 'quadratic')\n"
     "  a:spread(0.3, 0.5, G)\n"
     "  a:spread(0.3, 0.5)\n"
     "  a:decay(0.9)\n"
     "  K:add_layer(a, 0)\n"
     "  return a:get(5, 5), a:get(7, 6), a:max_abs(), K:max_abs()\n"
     "end\n"
     "local function check()\n"
     "  K:stamp(1, 1, 2, 1); K:spread(0.5, 0.5, G); K:decay(0)\n"
     "  return K:max_abs(), G:find(1, 1, 16, 12, {influence = K})\n"
     "end\n"
     "return run, check\n"},

    /*
     * After any failure the claims objects must hold exactly what the run claimed
     * and has not released: check() releases that, then compares every cell's
     * count. F is replaced by a fresh object after each check, so that the run's
     * first claim on it has to grow its table of unit keys (the kept C reuses
     * the slots of keys released earlier and never grows).
     */
    {"find with claims (claim, advance, release)",
     "local G = world()\n"
     "local C, F = astar.claims(G), astar.claims(G)\n"
     "C:claim('other', (G:find(16, 1, 1, 12)))\n"
     "local mine = G:find(1, 1, 16, 12)\n"
     "local function run()\n"
     "  C:claim('me', mine)\n"
     "  F:claim('me', mine)\n"
     "  F:claim(7, {{x = 1, y = 1}, {2, 1}})\n"
     "  local p, i = G:find(1, 12, 16, 1, {claims = C, unit = 'me', claim_penalty = 3})\n"
     "  local q, j = G:find(1, 12, 16, 1, {claims = C, unit = 'other', claim_radius = 30})\n"
     "  local r, k = G:find(1, 12, 16, 1, {claims = F, unit = 7})\n"
     "  C:advance('me', 3); F:advance('me', 3)\n"
     "  F:release(7)\n"
     "  C:release('me')\n"
     "  return p, i, q, j, r, k\n"
     "end\n"
     "local function counts(claims)\n"
     "  local t = {}\n"
     "  for y = 1, 12 do for x = 1, 16 do t[#t + 1] = claims:count(x, y) end end\n"
     "  return table.concat(t)\n"
     "end\n"
     "local function check()\n"
     "  C:release('me'); F:release('me'); F:release(7)\n"
     "  local x, y = C:position('other')\n"
     "  local c, f = counts(C), counts(F)\n"
     "  F = astar.claims(G)\n"
     "  return c, f, x, y, G:find(1, 12, 16, 1, {claims = C, unit = 'me'})\n"
     "end\n"
     "return run, check\n"},

    /* A field's first build allocates the field; range sorts its cells in a userdata. */
    {"distance_field and range",
     "local G = world()\n"
     "local function run()\n"
     "  local f, i = G:distance_field({{x = 16, y = 12}, {1, 12}})\n"
     "  local cells, r, j = G:range(1, 1, 6, {node_cost = function(x) return x * 0.1 end})\n"
     "  return f:distance(1, 1), f:path(1, 1), f:next(2, 1), i, cells, r:path(3, 3), j, tostring(f)\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  local f = G:distance_field({{x = 16, y = 12}})\n"
     "  return f:path(1, 1), G:range(16, 12, 3)\n"
     "end\n"
     "return run, check\n"},

    /* flee's first call makes the workspace's two fields, its scratch and the targets' arrays;
     * wander's its range; the answers are tables. */
    {"flee and wander",
     "local G = world()\n"
     "local L = astar.influence(16, 12)\n"
     "L:set(3, 3, 2)\n"
     "local function run()\n"
     "  local p, i = G:flee(2, 2, {{x = 1, y = 1}, {3, 1}}, {distance = 4.3, node_cost = function(x) return x * 0.1 end})\n"
     "  local q, j = G:flee(4, 4, L, {distance = 5.3, path = 'flat'})\n"
     "  local w, k = G:wander(8, 6, 5, {seed = 3})\n"
     "  return p, i, q, j, w, k\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:flee(2, 2, {{x = 1, y = 1}}, {distance = 4.3}), G:wander(8, 6, 5, {seed = 3})\n"
     "end\n"
     "return run, check\n"},

    /* A first windowed query allocates the workspace's depth and window arrays. */
    {"hex grid, turn_penalty, claim_window",
     "local G = world()\n"
     "local C = astar.claims(G)\n"
     "C:claim('other', G:find(16, 12, 1, 1))\n"
     "local function run()\n"
     "  local h = astar.grid(16, 12, {topology = 'hex'})\n"
     "  h:load(ROWS)\n"
     "  local p, i = h:find(1, 1, 16, 12, {turn_penalty = 1})\n"
     "  local q, j = G:find(1, 1, 16, 12, {claims = C, claim_window = 2, turn_penalty = 0.5})\n"
     "  return p, i, q, j, h.topology, h:reachable(1, 1, 16, 12)\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 16, 12, {claims = C, claim_window = 1})\n"
     "end\n"
     "return run, check\n"},

    /* A job borrows a workspace at its first step and makes its result tables when it ends. */
    {"grid:search stepped to the end",
     "local G = world()\n"
     "local L = astar.influence(16, 12, 0.5)\n"
     "local function run()\n"
     "  local job = G:search(1, 1, 16, 12, {influence = L})\n"
     "  local s1 = job:step(5)\n"
     "  local s2 = job:step()\n"
     "  local p, i = job:result()\n"
     "  return s1, s2, p, i, job:status(), tostring(job)\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  local job = G:search(1, 1, 16, 12)\n"
     "  job:step()\n"
     "  return job:result()\n"
     "end\n"
     "return run, check\n"},

    /* A build allocates its distances, a workspace, a field and a scratch array. */
    {"landmarks",
     "local G = world()\n"
     "local function run()\n"
     "  local n = G:landmarks(3)\n"
     "  local p, i = G:find(1, 1, 16, 12)\n"
     "  return n, p, i, G:landmarks()\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:landmarks(2), G:find(1, 1, 16, 12)\n"
     "end\n"
     "return run, check\n"},

    {"find with partial, max_expansions, max_cost",
     "local G = world()\n"
     "local function run()\n"
     "  local p, i = G:find(1, 1, 2, 2, {partial = true})\n"
     "  local q, j = G:find(1, 1, 16, 12, {partial = true, max_expansions = 10})\n"
     "  local r, k = G:find(1, 1, 16, 12, {max_cost = 3})\n"
     "  return p, i, q, j, r, k\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 2, 2, {partial = true})\n"
     "end\n"
     "return run, check\n"},

    {"create influence layers and claims",
     "local G = world()\n"
     "local function run()\n"
     "  local l = astar.influence(16, 12, 0.5)\n"
     "  l:set(1, 1, 2); l:add(2, 2, 3); l:fill(1); l:set(3, 3, -1)\n"
     "  local c = astar.claims(G)\n"
     "  c:claim('u', {{x = 1, y = 1}, {x = 2, y = 1}, {x = 3, y = 1}})\n"
     "  c:claim('v', {{x = 3, y = 1}})\n"
     "  c:advance('u', 1)\n"
     "  local x, y = c:position('u')\n"
     "  return l:get(3, 3), l:get(2, 2), c:count(2, 1), c:count(3, 1), x, y, tostring(l),\n"
     "         tostring(c), l:size()\n"
     "end\n"
     "local function check()\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 16, 12)\n"
     "end\n"
     "return run, check\n"},

    {"astar.load_movingai_string",
     "local MAP = 'type octile\\nheight 5\\nwidth 8\\nmap\\n'\n"
     "  .. '........\\n.@@@@.T.\\n.G...@..\\n.....@S.\\nW.......\\n'\n"
     "local function run()\n"
     "  local g, meta = astar.load_movingai_string(MAP, 'tiny.map')\n"
     "  return meta, tostring(g), g:find(1, 1, 8, 4)\n"
     "end\n"
     "local function check() return astar.load_movingai_string(MAP):find(8, 5, 1, 1) end\n"
     "return run, check\n"},

    {"astar.load_scen_string",
     "local SCEN = 'version 1\\n'\n"
     "  .. '0\\ttiny.map\\t8\\t5\\t0\\t0\\t7\\t3\\t9.24264069\\n'\n"
     "  .. '1\\ttiny.map\\t8\\t5\\t2\\t2\\t6\\t3\\t4.41421356\\n'\n"
     "  .. '2\\tother.map\\t8\\t5\\t7\\t4\\t0\\t0\\t10.65685425\\n'\n"
     "local function run() return astar.load_scen_string(SCEN, 'tiny.scen') end\n"
     "local function check() return #astar.load_scen_string(SCEN) end\n"
     "return run, check\n"},

    /* The file loaders read through a luaL_Buffer and keep the FILE in a box. */
    {"astar.load_movingai, astar.load_scen (files)",
     "local MAP = SOURCE_DIR .. '/spec/maps/crlf17x9.map'\n"
     "local function run()\n"
     "  local g, meta = astar.load_movingai(MAP)\n"
     "  local s = astar.load_scen(MAP .. '.scen')\n"
     "  return meta, #s, s[#s], g:find(s[1].sx, s[1].sy, s[1].gx, s[1].gy)\n"
     "end\n"
     "local function check() return (astar.load_movingai(MAP)) end\n"
     "return run, check\n"},

    /* A graph: building grows its arrays, the first query packs the arcs and makes a
     * workspace, claims widen when the graph grew; options read Lua arrays node by node. */
    {"graph: build, claims, find with every option (and a nested find)",
     "local G = astar.graph()\n"
     "for y = 0, 5 do for x = 0, 5 do G:add_node(x, y) end end\n"
     "for i = 1, 36 do\n"
     "  if i % 6 ~= 0 then G:add_edge(i, i + 1) end\n"
     "  if i <= 30 then G:add_edge(i, i + 6, 1.5) end\n"
     "end\n"
     "local C = astar.claims(G)\n"
     "C:claim('other', {8, 9, 10})\n"
     "local INF = {}\n"
     "for i = 1, 36 do INF[i] = i % 5 - 1 end\n"
     "local function run()\n"
     "  local g = astar.graph()\n"
     "  for i = 1, 12 do g:add_node(i, i % 3, i % 2) end\n"
     "  for i = 1, 11 do g:add_edge(i, i + 1) end\n"
     "  g:add_arc(1, 12, 30); g:set_blocked(6, true); g:remove_arc(12, 11)\n"
     "  local c = astar.claims(g)\n"
     "  c:claim('u', {1, 2, 3}); c:advance('u', 1)\n"
     "  local e = g:add_node(0, 0); g:add_edge(e, 1); c:claim('w', {e, 1})\n"
     "  local p, i = g:find(1, 12, {claims = c, unit = 'u'})\n"
     "  local q, j = G:find(1, 36, {influence = INF, claims = C, unit = 'me', heuristic = 'zero',\n"
     "    node_cost = function(id)\n"
     "      if id == 20 then assert(G:find(1, 2), 'nested find') end\n"
     "      return id % 3\n"
     "    end,\n"
     "    edge_cost = function(id, from) if id == 15 then return false end end})\n"
     "  C:claim('me', q)\n"
     "  local r, k = G:find(36, 1, {claims = C, unit = 'other', claim_radius = 3, partial = true,\n"
     "    max_expansions = 10, noise = 1, seed = 3, influence = {{INF, 2}, {INF, -1}}})\n"
     "  local s, l = G:find(1, 36, {heuristic = function(id, goal) return 0 end, weight = 2})\n"
     "  C:release('me')\n"
     "  G:add_edge(1, 2)\n"
     "  local ids, costs = g:neighbours(2)\n"
     "  return p, i, q, j, r, k, s, l, ids, costs, c:count(2), c:position('u'), g.nodes, g.arcs,\n"
     "         tostring(g), g:node(3)\n"
     "end\n"
     "local function check()\n"
     "  C:release('me'); G:add_edge(1, 2)\n"
     "  local t = {}\n"
     "  for i = 1, 36 do t[i] = C:count(i) end\n"
     "  return table.concat(t, ','), G:find(1, 36, {claims = C, influence = INF})\n"
     "end\n"
     "return run, check\n"},

    /*
     * init.lua and luaopen_astar_core under failure. init.lua is compiled before
     * arming: a parse error inside require() comes back wrapped as "error loading
     * module", which is Lua's wording, not the binding's.
     */
    {"astar front (init.lua) and luaopen_astar_core",
     "local G = world()\n"
     "local front = assert(loadfile(SOURCE_DIR .. '/lua/astar/init.lua'))\n"
     "local function reload()\n"
     "  package.loaded['astar.core'] = nil\n"
     "  return front('astar')\n"
     "end\n"
     "local function run()\n"
     "  local m = reload()\n"
     "  return m._VERSION, m.grid(2, 2):find(1, 1, 2, 2)\n"
     "end\n"
     "local function check()\n" /* leaves one module loaded, as before the run */
     "  astar = reload()\n"
     "  package.loaded['astar'] = astar\n"
     "  G:set_cost(1, 1, 1)\n"
     "  return G:find(1, 1, 16, 12)\n"
     "end\n"
     "return run, check\n"},
};

typedef struct mode {
    const char *name;
    unsigned long burst; /* growth requests refused in a row */
} mode;

static const mode MODES[] = {{"once", 1}, {"twice", 2}, {"from-N-on", ULONG_MAX}};

/* ---------------------------------------------------------------- runner */

static char *copy_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) {
        fputs("test_lua_oom: out of memory in the host\n", stderr);
        exit(2);
    }
    return memcpy(p, s, n);
}

/* A full collection, repeated while it frees something (finalized objects go the next cycle). */
static long long settle(lua_State *L, const memory *m) {
    for (int i = 0; i < 10; i++) {
        long long before = m->live_bytes;
        lua_gc(L, LUA_GCCOLLECT, 0);
        if (m->live_bytes == before) break;
    }
    return m->live_bytes;
}

typedef struct outcome {
    bool ok;               /* the call returned normally */
    char *text;            /* the signature of its results, or its error message */
    unsigned long growths; /* growth requests it made */
    unsigned long refused; /* of those, how many were refused */
} outcome;

/*
 * Calls the function at stack index fn with allocations fail_from ..
 * fail_from + fail_len - 1 refused (fail_from 0: none). It runs in a thread of
 * its own, so whatever stack it grows goes away with the thread.
 */
static outcome call(lua_State *L, memory *m, int fn, unsigned long fail_from,
                    unsigned long fail_len) {
    outcome o = {false, NULL, 0, 0};
    lua_State *T = lua_newthread(L);
    lua_pushvalue(L, fn);
    lua_xmove(L, T, 1);
    m->growths = 0;
    m->refused = 0;
    m->fail_from = fail_from;
    m->fail_len = fail_len;
    int rc = lua_pcall(T, 0, LUA_MULTRET, 0);
    m->fail_from = 0;
    o.growths = m->growths;
    o.refused = m->refused;
    if (rc == LUA_OK) {
        lua_getglobal(T, "signature");
        lua_insert(T, 1);
        if (lua_pcall(T, lua_gettop(T) - 1, 1, 0) != LUA_OK) {
            fprintf(stderr, "test_lua_oom: signature() failed: %s\n", lua_tostring(T, -1));
            exit(2);
        }
        o.ok = true;
        o.text = copy_string(lua_tostring(T, -1));
    } else if (lua_type(T, -1) == LUA_TSTRING) {
        o.text = copy_string(lua_tostring(T, -1));
    } else {
        char buf[64];
        snprintf(buf, sizeof buf, "(an error object of type %s)", luaL_typename(T, -1));
        o.text = copy_string(buf);
    }
    lua_pop(L, 1); /* the thread, and all it holds, is garbage now */
    return o;
}

typedef struct tally {
    unsigned long clean;     /* failed with "not enough memory" */
    unsigned long succeeded; /* returned the expected results */
    unsigned long problems;
} tally;

static void problem(tally *t, const char *scenario_name, const char *mode_name, unsigned long n,
                    const char *what, const char *detail) {
    if (t->problems++ < MAX_REPORTS)
        fprintf(stderr, "FAIL [%s] %s N=%lu: %s%s%s\n", scenario_name, mode_name, n, what,
                detail ? ": " : "", detail ? detail : "");
}

/* One armed run at N, then the check of the kept objects, then the leak check. */
static void try_failure_at(lua_State *L, memory *m, const scenario *s, const mode *md,
                           unsigned long n, int run, int check, const char *expect_run,
                           const char *expect_check, long long baseline, tally *t) {
    unsigned long warnings = m->warnings;
    outcome o = call(L, m, run, n, md->burst);
    if (o.ok) {
        if (strcmp(o.text, expect_run) == 0)
            t->succeeded++;
        else
            problem(t, s->name, md->name, n, "succeeded with other results", o.text);
    } else if (strcmp(o.text, OOM_MESSAGE) != 0) {
        problem(t, s->name, md->name, n, "failed with another error", o.text);
    } else if (o.refused == 0) {
        problem(t, s->name, md->name, n, "\"not enough memory\" with no allocation refused", NULL);
    } else {
        t->clean++;
    }
    free(o.text);

    /* Collect first: check() must also work on objects that met an emergency collection. */
    settle(L, m);
    outcome c = call(L, m, check, 0, 0);
    if (!c.ok)
        problem(t, s->name, md->name, n, "the kept objects fail afterwards", c.text);
    else if (strcmp(c.text, expect_check) != 0)
        problem(t, s->name, md->name, n, "the kept objects answer differently afterwards", c.text);
    free(c.text);

    /* After check(), because a run may stop halfway through changing what is kept. */
    long long live = settle(L, m);
    if (live != baseline) {
        char detail[96];
        snprintf(detail, sizeof detail, "%lld bytes live after a full collection, baseline %lld",
                 live, baseline);
        problem(t, s->name, md->name, n, "memory not back to its baseline", detail);
    }
    if (m->warnings != warnings) problem(t, s->name, md->name, n, "Lua warning (see above)", NULL);
}

/* Returns the number of problems found. */
static unsigned long run_scenario(lua_State *L, memory *m, const scenario *s) {
    int top = lua_gettop(L);
    if (luaL_loadbuffer(L, s->code, strlen(s->code), s->name) != LUA_OK ||
        lua_pcall(L, 0, 2, 0) != LUA_OK) {
        fprintf(stderr, "FAIL [%s] setup: %s\n", s->name, lua_tostring(L, -1));
        lua_settop(L, top);
        return 1;
    }
    int run = top + 1, check = top + 2;

    /* A first run warms up what is kept on purpose: search workspaces, interned strings. */
    outcome warm = call(L, m, run, 0, 0);
    outcome want = call(L, m, check, 0, 0);
    unsigned long problems = 0;
    if (!warm.ok || !want.ok) {
        fprintf(stderr, "FAIL [%s] without failures: %s\n", s->name,
                warm.ok ? want.text : warm.text);
        problems = 1;
    }
    long long baseline = settle(L, m);
    outcome counted = call(L, m, run, 0, 0);
    outcome again = call(L, m, check, 0, 0);
    if (!problems && (!counted.ok || strcmp(counted.text, warm.text) != 0 ||
                      strcmp(again.text, want.text) != 0)) {
        fprintf(stderr, "FAIL [%s] a second run differs: %s / %s\n", s->name, counted.text,
                again.text);
        problems = 1;
    }
    free(again.text);
    if (!problems && settle(L, m) != baseline) {
        fprintf(stderr, "FAIL [%s] a run without failures leaves %lld bytes (baseline %lld)\n",
                s->name, m->live_bytes, baseline);
        problems = 1;
    }
    unsigned long k = counted.growths;
    free(counted.text);

    if (!problems) {
        unsigned long last = k + k / 10 + 8;
        printf("%-72s K=%lu\n", s->name, k);
        for (size_t i = 0; i < sizeof MODES / sizeof MODES[0]; i++) {
            tally t = {0, 0, 0};
            for (unsigned long n = 1; n <= last; n++)
                try_failure_at(L, m, s, &MODES[i], n, run, check, warm.text, want.text, baseline,
                               &t);
            printf("    %-10s N=1..%lu: %lu failed cleanly, %lu succeeded, %lu problems\n",
                   MODES[i].name, last, t.clean, t.succeeded, t.problems);
            problems += t.problems;
        }
    }
    free(warm.text);
    free(want.text);
    lua_settop(L, top);
    return problems;
}

static lua_State *open_state(memory *m, const char *source_dir) {
    lua_State *L = lua_newstate(test_alloc, m);
    if (!L) return NULL;
    lua_atpanic(L, on_panic);
    lua_setwarnf(L, on_warning, m);
    luaL_openlibs(L);

    /* astar.core comes from this executable; astar from the source tree, nothing installed. */
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua", source_dir, source_dir);
    lua_setfield(L, -2, "path");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_astar_core);
    lua_setfield(L, -2, "astar.core");
    lua_pop(L, 2);
    lua_pushstring(L, source_dir);
    lua_setglobal(L, "SOURCE_DIR");

    if (luaL_loadbuffer(L, PRELUDE, sizeof PRELUDE - 1, "prelude") != LUA_OK ||
        lua_pcall(L, 0, 0, 0) != LUA_OK) {
        fprintf(stderr, "test_lua_oom: prelude: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return NULL;
    }
    return L;
}

/*
 * Warm queries allocate nothing but their results (issue 4). The Lua code
 * counts allocations itself (allocations() reads the host's counter), in one
 * thread with the collector stopped and a stack grown beforehand, so that
 * Lua's own stack and call-info growth does not count. After a first query of
 * each kind, a query whose search runs and finds nothing (so no path tables
 * are built) allocates no more than a Lua constructor of its info table, and a
 * path query makes the same allocations (its result tables) each time.
 */
static const char WARM[] =
    "local G = world()\n"
    "local danger = astar.influence(16, 12, 0)\n"
    "danger:set(5, 5, 3)\n"
    "local claims = astar.claims(G)\n"
    "claims:claim('u', {{x = 1, y = 1}, {x = 2, y = 1}})\n"
    "claims:claim('v', {{x = 9, y = 8}, {x = 10, y = 8}})\n"
    "local wall = function(x, y) if x == 10 then return false end end\n"
    "local kinds = {\n"
    "  plain = {},\n"
    "  layers_claims = {influence = danger, claims = claims, unit = 'u'},\n"
    "  claim_radius = {influence = {{danger, 2}}, claims = claims, claim_radius = 3},\n"
    "  callbacks = {node_cost = function(x, y) return 0 end, edge_cost = function() end},\n"
    "  heuristic = {heuristic = function(x, y, gx, gy) return 0 end, diagonal = 'always'},\n"
    "  partial = {partial = true, max_expansions = 20},\n"
    "}\n"
    "collectgarbage('stop') -- a collection may shrink stacks that the next call regrows\n"
    "local function count(f) local a = allocations(); f(); return allocations() - a end\n"
    "local info_alone = count(function() local t = {status = 'unreachable', expansions = 7} end)\n"
    "local failures, report = {}, {}\n"
    "for name, opts in pairs(kinds) do\n"
    "  local blocked = {node_cost = wall}\n"
    "  for k, v in pairs(opts) do if k ~= 'node_cost' then blocked[k] = v end end\n"
    "  local function path() G:find(1, 1, 16, 12, opts) end\n"
    "  local function nothing() local p = G:find(1, 1, 16, 12, blocked); assert(not p == not opts.partial) end\n"
    "  -- warm-up in the shape of the loop below: its extra stack level grows the stack once\n"
    "  local _, _ = count(path), count(nothing)\n"
    "  local first = count(path)\n"
    "  for rep = 1, 5 do\n"
    "    local a, b = count(path), count(nothing)\n"
    "    if a ~= first then failures[#failures + 1] = name .. ': a path query made ' .. a .. ' allocations, the first ' .. first end\n"
    "    if b > info_alone and not opts.partial then failures[#failures + 1] = name .. ': a query finding nothing made ' .. b .. ' allocations, an info table alone ' .. info_alone end\n"
    "  end\n"
    "  report[#report + 1] = string.format('%s: %d allocations with a path, %d without', name, first, count(nothing))\n"
    "end\n"
    "collectgarbage('restart')\n"
    "table.sort(report)\n"
    "return table.concat(failures, '\\n'), table.concat(report, '\\n')\n";

/* The same for graphs: a 6x6 lattice of waypoints; the query finding nothing meets a wall of
 * nodes that node_cost blocks, so its search runs and fails. */
static const char WARM_GRAPH[] =
    "local g = astar.graph()\n"
    "for y = 0, 5 do for x = 0, 5 do g:add_node(x, y) end end\n"
    "for i = 1, 36 do\n"
    "  if i % 6 ~= 0 then g:add_edge(i, i + 1) end\n"
    "  if i <= 30 then g:add_edge(i, i + 6) end\n"
    "end\n"
    "local claims = astar.claims(g)\n"
    "claims:claim('u', {1, 2}); claims:claim('v', {20, 21})\n"
    "local inf = {}\n"
    "for i = 1, 36 do inf[i] = i % 3 end\n"
    "local wall = function(id) if (id - 1) % 6 == 3 then return false end end\n"
    "local kinds = {\n"
    "  plain = {},\n"
    "  layers_claims = {influence = inf, claims = claims, unit = 'u'},\n"
    "  claim_radius = {influence = {{inf, 2}}, claims = claims, claim_radius = 3},\n"
    "  callbacks = {node_cost = function(id) return 0 end, edge_cost = function() end},\n"
    "  heuristic = {heuristic = function(id, goal) return 0 end},\n"
    "  partial = {partial = true, max_expansions = 5},\n"
    "}\n"
    "collectgarbage('stop')\n"
    "local function count(f) local a = allocations(); f(); return allocations() - a end\n"
    "local info_alone = count(function() local t = {status = 'unreachable', expansions = 7} end)\n"
    "local failures, report = {}, {}\n"
    "for name, opts in pairs(kinds) do\n"
    "  local blocked = {node_cost = wall}\n"
    "  for k, v in pairs(opts) do if k ~= 'node_cost' then blocked[k] = v end end\n"
    "  local function path() g:find(1, 36, opts) end\n"
    "  local function nothing() local p = g:find(1, 36, blocked); assert(not p == not opts.partial) end\n"
    "  local _, _ = count(path), count(nothing)\n"
    "  local first = count(path)\n"
    "  for rep = 1, 5 do\n"
    "    local a, b = count(path), count(nothing)\n"
    "    if a ~= first then failures[#failures + 1] = name .. ': a path query made ' .. a .. ' allocations, the first ' .. first end\n"
    "    if b > info_alone and not opts.partial then failures[#failures + 1] = name .. ': a query finding nothing made ' .. b .. ' allocations, an info table alone ' .. info_alone end\n"
    "  end\n"
    "  report[#report + 1] = string.format('%s: %d allocations with a path, %d without', name, first, count(nothing))\n"
    "end\n"
    "collectgarbage('restart')\n"
    "table.sort(report)\n"
    "return table.concat(failures, '\\n'), table.concat(report, '\\n')\n";

static int allocations(lua_State *L) {
    const memory *m = lua_touserdata(L, lua_upvalueindex(1));
    lua_pushinteger(L, (lua_Integer)m->growths);
    return 1;
}

static unsigned long check_warm_queries(lua_State *L, memory *m, const char *code, const char *what) {
    int top = lua_gettop(L);
    lua_pushlightuserdata(L, m);
    lua_pushcclosure(L, allocations, 1);
    lua_setglobal(L, "allocations");
    /* Room enough that Lua never grows this stack while counting (a growth allocates). */
    if (!lua_checkstack(L, 4000)) return 1;
    if (luaL_loadstring(L, code) != LUA_OK || lua_pcall(L, 0, 2, 0) != LUA_OK) {
        fprintf(stderr, "FAIL [warm queries, %s] %s\n", what, lua_tostring(L, -1));
        lua_settop(L, top);
        return 1;
    }
    printf("warm queries (%s):\n%s\n", what, lua_tostring(L, -1));
    unsigned long problems = 0;
    const char *failures = lua_tostring(L, -2);
    if (failures && *failures) {
        fprintf(stderr, "FAIL [warm queries, %s]\n%s\n", what, failures);
        problems = 1;
    }
    lua_settop(L, top);
    lua_pushnil(L);
    lua_setglobal(L, "allocations");
    return problems;
}

int main(int argc, char **argv) {
    const char *source_dir = argc > 1 ? argv[1] : ASTAR_SOURCE_DIR;
    memory m = {0};
    lua_State *L = open_state(&m, source_dir);
    if (!L) return 1;

    unsigned long problems = 0;
    for (size_t i = 0; i < sizeof SCENARIOS / sizeof SCENARIOS[0]; i++)
        problems += run_scenario(L, &m, &SCENARIOS[i]);
    problems += check_warm_queries(L, &m, WARM, "16x12 map");
    problems += check_warm_queries(L, &m, WARM_GRAPH, "6x6 waypoint graph");

    lua_close(L);
    if (m.live_bytes != 0 || m.live_blocks != 0) {
        fprintf(stderr, "FAIL after lua_close: %lld bytes in %lld blocks still allocated\n",
                m.live_bytes, m.live_blocks);
        problems++;
    }
    if (m.warnings) {
        fprintf(stderr, "FAIL %lu Lua warnings (see above)\n", m.warnings);
        problems++;
    }
    if (m.bad_sizes) {
        fprintf(stderr, "FAIL %lu frees or reallocs passed a wrong old size\n", m.bad_sizes);
        problems++;
    }
    if (problems) {
        printf("lua_oom: %lu problems\n", problems);
        return 1;
    }
    printf("lua_oom: all scenarios clean, nothing left after lua_close\n");
    return 0;
}
