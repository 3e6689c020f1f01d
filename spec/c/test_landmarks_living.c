/*
 * Landmarks under a stream of single-cell writes (issue 26): raises, decreases, cells opened
 * and blocked, doors toggled. After every write the landmark heuristic a query would use
 * (landmarks.h, internal) is checked directly against an oracle written here (a plain
 * Dijkstra over the moves of the mode, step = length x cost of the cell entered): at every
 * walkable cell it never exceeds the cell's distance to the goal, and it is consistent (h(n)
 * <= step + h(m) on every move). The landmarks must stay in use all along (no bulk write), a
 * door opened again after it was closed must change nothing (the serial stays), the work of
 * a repair is counted on the progress handler (a stop puts them out of use, the write
 * itself stands), a suspended search that reads them restarts on a repair and answers
 * exactly, and a sliced build goes on under raises and decreases alike.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "landmarks.h"

#define MAXW 24
#define MAXH 24
#define TOL 1e-7 /* the library rounds steps up to 2^-32 quanta; an overestimate is far larger */

static const astar_diagonal MODES[] = {ASTAR_DIAG_NEVER, ASTAR_DIAG_NO_CORNER_CUT, ASTAR_DIAG_ONE_WALKABLE,
                                       ASTAR_DIAG_ALWAYS, ASTAR_DIAG_HEX};

/* The world as the oracle sees it: costs (INFINITY blocked), w x h, a mode. */
typedef struct world {
    int32_t w, h;
    astar_diagonal mode;
    double cost[MAXH][MAXW];
} world;

static bool open_at(const world *wd, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < wd->w && y < wd->h && wd->cost[y][x] != INFINITY;
}

/* The moves from (x, y) to walkable cells, with their lengths; returns how many. */
static int moves_of(const world *wd, int32_t x, int32_t y, int32_t *mx, int32_t *my, double *len) {
    int n = 0;
    if (wd->mode == ASTAR_DIAG_HEX) { /* odd-r: odd rows lean right */
        static const int32_t odd[6][2] = {{-1, 0}, {1, 0}, {0, -1}, {1, -1}, {0, 1}, {1, 1}};
        static const int32_t even[6][2] = {{-1, 0}, {1, 0}, {-1, -1}, {0, -1}, {-1, 1}, {0, 1}};
        const int32_t(*t)[2] = (y & 1) ? odd : even;
        for (int i = 0; i < 6; i++)
            if (open_at(wd, x + t[i][0], y + t[i][1])) mx[n] = x + t[i][0], my[n] = y + t[i][1], len[n++] = 1.0;
        return n;
    }
    for (int32_t dy = -1; dy <= 1; dy++)
        for (int32_t dx = -1; dx <= 1; dx++) {
            if ((!dx && !dy) || !open_at(wd, x + dx, y + dy)) continue;
            if (dx && dy) {
                bool a = open_at(wd, x + dx, y), b = open_at(wd, x, y + dy);
                if (wd->mode == ASTAR_DIAG_NEVER) continue;
                if (wd->mode == ASTAR_DIAG_NO_CORNER_CUT && !(a && b)) continue;
                if (wd->mode == ASTAR_DIAG_ONE_WALKABLE && !(a || b)) continue;
            }
            mx[n] = x + dx, my[n] = y + dy, len[n++] = dx && dy ? sqrt(2.0) : 1.0;
        }
    return n;
}

/* d(n, goal) for every cell: a Dijkstra backwards from the goal (O(n^2) selection: tiny maps). */
static void oracle_to(const world *wd, int32_t gx, int32_t gy, double dist[MAXH][MAXW]) {
    static bool done[MAXH][MAXW];
    for (int32_t y = 0; y < wd->h; y++)
        for (int32_t x = 0; x < wd->w; x++) dist[y][x] = INFINITY, done[y][x] = false;
    dist[gy][gx] = 0.0;
    for (;;) {
        int32_t bx = -1, by = -1;
        for (int32_t y = 0; y < wd->h; y++)
            for (int32_t x = 0; x < wd->w; x++)
                if (!done[y][x] && dist[y][x] < INFINITY && (bx < 0 || dist[y][x] < dist[by][bx])) bx = x, by = y;
        if (bx < 0) return;
        done[by][bx] = true;
        int32_t mx[8], my[8];
        double len[8];
        int n = moves_of(wd, bx, by, mx, my, len); /* moves are symmetric: m -> b costs len * cost(b) */
        for (int i = 0; i < n; i++) {
            double d = dist[by][bx] + len[i] * wd->cost[by][bx];
            if (d < dist[my[i]][mx[i]]) dist[my[i]][mx[i]] = d;
        }
    }
}

/* The landmark h of the cell (x, y) for a query to (gx, gy), as the search takes it. */
static double lm_h(const astar_grid *g, int32_t x, int32_t y, int32_t gx, int32_t gy) {
    const astar_landmarks *lm = astar_landmarks_for(g, astar_grid_diagonal(g));
    if (!lm) return 0.0;
    astar_landmark_h h;
    int32_t cell = astar_cell(g->stride, x, y);
    astar_landmarks_aim(&h, lm, astar_cell(g->stride, gx, gy), cell);
    return astar_cost_down(astar_landmarks_h(&h, cell));
}

static long bound_checks, bad_bound, bad_slope;

/* Every walkable cell against a few goals: h <= oracle distance, and h consistent. */
static void check_h(const astar_grid *g, const world *wd, int goals) {
    static double dist[MAXH][MAXW], hv[MAXH][MAXW];
    for (int k = 0; k < goals; k++) {
        int32_t gx = (int32_t)(rnd() % (uint32_t)wd->w), gy = (int32_t)(rnd() % (uint32_t)wd->h);
        if (!open_at(wd, gx, gy)) continue;
        oracle_to(wd, gx, gy, dist);
        for (int32_t y = 0; y < wd->h; y++)
            for (int32_t x = 0; x < wd->w; x++) hv[y][x] = open_at(wd, x, y) ? lm_h(g, x, y, gx, gy) : 0.0;
        for (int32_t y = 0; y < wd->h; y++)
            for (int32_t x = 0; x < wd->w; x++) {
                if (!open_at(wd, x, y)) continue;
                bound_checks++;
                if (!(hv[y][x] <= dist[y][x] + TOL)) bad_bound++;
                int32_t mx[8], my[8];
                double len[8];
                int n = moves_of(wd, x, y, mx, my, len);
                for (int i = 0; i < n; i++)
                    if (!(hv[y][x] <= len[i] * wd->cost[my[i]][mx[i]] + hv[my[i]][mx[i]] + TOL)) bad_slope++;
            }
    }
}

static double pick_cost(bool one_cost, double unit) {
    static const double costs[] = {1.0, 0.5, 2.0, 3.25, 1.75, 0.25};
    return one_cost ? unit : costs[rnd() % 6];
}

static void set(astar_grid *g, world *wd, int32_t x, int32_t y, double c) {
    wd->cost[y][x] = c;
    CHECK(astar_grid_set_cost(g, x, y, c) == ASTAR_OK);
}

static void random_world(world *wd, astar_grid **g, bool *one_cost, double *unit) {
    wd->w = 4 + (int32_t)(rnd() % (MAXW - 3));
    wd->h = 4 + (int32_t)(rnd() % (MAXH - 3));
    wd->mode = MODES[rnd() % 5];
    *one_cost = rnd() % 3 == 0;
    *unit = *one_cost ? (rnd() % 2 ? 1.0 : 2.5) : 1.0;
    int density = (int)(rnd() % 35);
    *g = astar_grid_new(wd->w, wd->h, wd->mode, NULL);
    for (int32_t y = 0; y < wd->h; y++)
        for (int32_t x = 0; x < wd->w; x++) {
            double c = (int)(rnd() % 100) < density ? INFINITY : pick_cost(*one_cost, *unit);
            set(*g, wd, x, y, c);
        }
    /* a wall across with a one-cell door, the doors' usual shape */
    int32_t wx = wd->w / 2;
    for (int32_t y = 0; y < wd->h; y++) set(*g, wd, wx, y, INFINITY);
}

/* Random writes between checks: the heuristic stays admissible and consistent, in use. */
static void test_random_writes(void) {
    long writes = 0, worlds = 0, lowered = 0;
    for (int round = 0; round < 160; round++) {
        world wd;
        astar_grid *g;
        bool one_cost;
        double unit;
        random_world(&wd, &g, &one_cost, &unit);
        int32_t k = 1 + (int32_t)(rnd() % 8);
        if (astar_grid_landmarks(g, k) != ASTAR_OK || astar_grid_landmark_count(g) == 0) { /* no cell */
            astar_grid_free(g);
            continue;
        }
        worlds++;
        int32_t door = (int32_t)(rnd() % (uint32_t)wd.h), wx = wd.w / 2;
        check_h(g, &wd, 2);
        for (int step = 0; step < 40; step++) {
            int32_t x = (int32_t)(rnd() % (uint32_t)wd.w), y = (int32_t)(rnd() % (uint32_t)wd.h);
            double c;
            switch (rnd() % 5) {
            case 0: /* the door toggles */
                x = wx, y = door;
                c = wd.cost[y][x] == INFINITY ? unit : INFINITY;
                break;
            case 1: c = INFINITY; break;                    /* block */
            case 2: c = pick_cost(false, unit) * 0.5; break; /* cheaper terrain (maybe no longer one cost) */
            default: c = pick_cost(one_cost, unit); break;  /* open, or any cost */
            }
            if (c < wd.cost[y][x]) lowered++;
            set(g, &wd, x, y, c);
            writes++;
            CHECK(astar_grid_landmark_count(g) > 0); /* repaired, never put out of use */
            if (step % 4 == 3) check_h(g, &wd, 1);
        }
        check_h(g, &wd, 2);
        astar_grid_free(g);
    }
    printf("random writes: %ld worlds, %ld writes (%ld lowered), %ld bound checks\n", worlds, writes, lowered,
           bound_checks);
    CHECK(worlds > 100 && lowered > 1000);
    CHECK(bad_bound == 0);
    CHECK(bad_slope == 0);
    if (bad_bound || bad_slope) printf("  %ld overestimates, %ld inconsistent moves\n", bad_bound, bad_slope);
}

/* Searches with landmarks answer exactly what the oracle says after the writes. */
static void test_exact_answers(void) {
    long finds = 0, wrong = 0;
    for (int round = 0; round < 80; round++) {
        world wd;
        astar_grid *g;
        bool one_cost;
        double unit;
        random_world(&wd, &g, &one_cost, &unit);
        astar_search *s = astar_search_new(wd.w, wd.h, NULL);
        astar_grid_landmarks(g, 1 + (int32_t)(rnd() % 6));
        for (int step = 0; step < 30; step++) {
            int32_t x = (int32_t)(rnd() % (uint32_t)wd.w), y = (int32_t)(rnd() % (uint32_t)wd.h);
            set(g, &wd, x, y, rnd() % 4 == 0 ? INFINITY : pick_cost(false, unit));
            int32_t sx = (int32_t)(rnd() % (uint32_t)wd.w), sy = (int32_t)(rnd() % (uint32_t)wd.h);
            int32_t gx = (int32_t)(rnd() % (uint32_t)wd.w), gy = (int32_t)(rnd() % (uint32_t)wd.h);
            if (!open_at(&wd, sx, sy) || !open_at(&wd, gx, gy)) continue;
            static double dist[MAXH][MAXW];
            oracle_to(&wd, gx, gy, dist);
            astar_query q;
            astar_query_init(&q);
            q.sx = sx, q.sy = sy, q.gx = gx, q.gy = gy;
            q.jps = ASTAR_JPS_OFF; /* A*, the engine landmarks guide */
            astar_result res;
            astar_status st = astar_find(s, g, &q, &res);
            finds++;
            bool ok = dist[sy][sx] == INFINITY ? st == ASTAR_UNREACHABLE
                                               : st == ASTAR_OK && fabs(res.cost - dist[sy][sx]) <= TOL;
            if (!ok && wrong < 3)
                printf("  find %d,%d -> %d,%d: %d %.9g, oracle %.9g\n", sx, sy, gx, gy, st, res.cost, dist[sy][sx]);
            wrong += !ok;
        }
        astar_search_free(s);
        astar_grid_free(g);
    }
    printf("exact answers: %ld finds, %ld wrong\n", finds, wrong);
    CHECK(finds > 500 && wrong == 0);
}

static long units;
static int count_units(void *ud) {
    (void)ud;
    units++;
    return 0;
}
static int stop_now(void *ud) {
    (void)ud;
    return 1;
}

/* A door: closing it changes nothing stored, opening it again neither; a repair's work is
 * bounded by the block and what changes, counted on the handler; a stop puts them out of use. */
static void test_door_work(void) {
    /* Two rooms joined by a door at (20, 10) in a wall x = 20; the landmarks see both. */
    counting cnt = {0};
    astar_alloc a = {count_alloc, &cnt};
    astar_grid *g = astar_grid_new(41, 21, ASTAR_DIAG_ALWAYS, &a);
    astar_grid *twin = astar_grid_new(41, 21, ASTAR_DIAG_ALWAYS, NULL); /* the same, no landmarks */
    for (int32_t y = 0; y < 21; y++)
        if (y != 10) astar_grid_set_cost(g, 20, y, INFINITY), astar_grid_set_cost(twin, 20, y, INFINITY);
    CHECK(astar_grid_landmarks(g, 8) == ASTAR_OK && astar_grid_landmark_count(g) == 8);
    /* The same build, then dropped: its island labels made as g's were. */
    CHECK(astar_grid_landmarks(twin, 8) == ASTAR_OK && astar_grid_landmarks(twin, 0) == ASTAR_OK);
    uint64_t serial = astar_landmarks_serial(g);
    astar_set_progress_handler(1, count_units, NULL);
    astar_grid_set_cost(twin, 20, 10, INFINITY); /* once, so that the handler's first call is */
    astar_grid_set_cost(twin, 20, 10, 1.0);      /* not counted on one side only */
    long allocs = -1;
    for (int t = 0; t < 6; t++) {
        if (t == 1) allocs = cnt.allocs; /* the first opening made the repairs' heap: kept */
        /* Closes: a raise, nothing for the landmarks to do; the island labels' flood of the
         * side it cuts off is all the work, as on the twin. */
        units = 0;
        astar_grid_set_cost(twin, 20, 10, INFINITY);
        long labels = units;
        units = 0;
        astar_grid_set_cost(g, 20, 10, INFINITY);
        CHECK(units == labels);
        astar_grid_set_cost(twin, 20, 10, 1.0);
        units = 0;
        astar_grid_set_cost(g, 20, 10, 1.0); /* opens again: the block checked, nothing lowered */
        CHECK(units > 0 && units <= 9 * 8); /* walkable cells of the block, one table each (one cost) */
    }
    CHECK(astar_landmarks_serial(g) == serial && astar_grid_landmark_count(g) == 8);
    CHECK(cnt.allocs == allocs); /* a door that opens allocates nothing */
    /* A shortcut through the wall lowers many values: counted per cell lowered. */
    units = 0;
    astar_grid_set_cost(g, 20, 3, 1.0);
    CHECK(units > 9 * 8 && astar_landmarks_serial(g) != serial && astar_grid_landmark_count(g) == 8);
    /* Stopped half-way: the write stands, the landmarks are put out of use. */
    astar_set_progress_handler(1, stop_now, NULL);
    CHECK(astar_grid_set_cost(g, 20, 17, 1.0) == ASTAR_OK);
    astar_set_progress_handler(0, NULL, NULL);
    CHECK(astar_grid_get_cost(g, 20, 17) == 1.0 && astar_grid_landmark_count(g) == 0);
    astar_grid_free(g);
    astar_grid_free(twin);
    CHECK(cnt.live == 0 && cnt.bytes == 0); /* the heap is freed with them */
}

/* Out of memory in a repair (its heap): the write stands, the landmarks go out of use. */
static void test_oom(void) {
    counting cnt = {0};
    astar_alloc a = {count_alloc, &cnt};
    astar_grid *g = astar_grid_new(30, 10, ASTAR_DIAG_NO_CORNER_CUT, &a);
    for (int32_t y = 0; y < 10; y++) astar_grid_set_cost(g, 15, y, INFINITY);
    CHECK(astar_grid_landmarks(g, 3) == ASTAR_OK && astar_grid_landmark_count(g) == 3);
    cnt.fail_at = cnt.allocs + 1;
    CHECK(astar_grid_set_cost(g, 15, 5, 1.0) == ASTAR_OK);
    cnt.fail_at = 0;
    CHECK(astar_grid_get_cost(g, 15, 5) == 1.0 && astar_grid_landmark_count(g) == 0);
    astar_grid_free(g);
    CHECK(cnt.live == 0 && cnt.bytes == 0);
}

/* A suspended search that reads landmarks, a repair between its slices: exact answer. */
static void test_job(void) {
    astar_grid *g = astar_grid_new(50, 30, ASTAR_DIAG_NO_CORNER_CUT, NULL);
    for (int32_t y = 0; y < 30; y++)
        if (y != 2) astar_grid_set_cost(g, 25, y, INFINITY);
    astar_grid_landmarks(g, 6);
    astar_search *s = astar_search_new(50, 30, NULL), *fresh = astar_search_new(50, 30, NULL);
    astar_query q;
    astar_query_init(&q);
    q.sx = 0, q.sy = 28, q.gx = 49, q.gy = 28;
    q.jps = ASTAR_JPS_OFF; /* A*, which reads the landmarks (a uniform grid would jump) */
    astar_result res, want;
    CHECK(astar_search_start(s, g, &q, &res) == ASTAR_RUNNING);
    CHECK(astar_search_step(s, 30, &res) == ASTAR_RUNNING);
    astar_grid_set_cost(g, 25, 27, 1.0); /* a shortcut: repaired, the job must not keep old bounds */
    astar_status st = ASTAR_RUNNING;
    while (st == ASTAR_RUNNING) st = astar_search_step(s, 30, &res);
    CHECK(astar_find(fresh, g, &q, &want) == ASTAR_OK);
    CHECK(st == ASTAR_OK && res.cost == want.cost && res.restarts >= 1);
    CHECK(astar_grid_landmark_count(g) == 6);
    astar_search_free(fresh);
    astar_search_free(s);
    astar_grid_free(g);
}

/* A sliced build goes on under raises, blocks, decreases and opened cells (once past the
 * passes before the seed, which read the island labels): a door toggled under a long build
 * must not keep it from ever finishing. What it installs (the decreases repaired at the
 * install) keeps h admissible and consistent on the terrain as it is. One table serving both
 * ways (one cost) is only given blocks and cells at that cost (another finite cost starts it
 * over: a way back may be cheaper than the way there). */
static void test_build(void) {
    long went_on = 0, lowered_builds = 0;
    for (int round = 0; round < 80; round++) {
        world wd;
        astar_grid *g;
        bool one_cost;
        double unit;
        random_world(&wd, &g, &one_cost, &unit);
        astar_build *b = astar_build_landmarks(g, 1 + (int32_t)(rnd() % 8), 1 + (int)(rnd() % 2), NULL);
        astar_status st = ASTAR_RUNNING;
        int32_t door = (int32_t)(rnd() % (uint32_t)wd.h), wx = wd.w / 2;
        bool lowered = false, changed = false;
        int writes = 0; /* at most 32: fewer cells than a build carries to its install */
        for (int step = 0; st == ASTAR_RUNNING; step++) {
            st = astar_build_step(b, 1 + rnd() % 60, NULL);
            if (st != ASTAR_RUNNING || astar_build_progress(b) < 0.25 || writes == 32) continue;
            int32_t x = (int32_t)(rnd() % (uint32_t)wd.w), y = (int32_t)(rnd() % (uint32_t)wd.h);
            double was = wd.cost[y][x], c;
            switch (rnd() % 4) {
            case 0: /* the door toggles */
                x = wx, y = door, was = wd.cost[y][x];
                c = was == INFINITY ? unit : INFINITY;
                break;
            case 1: c = INFINITY; break;
            case 2: c = one_cost ? unit : (was == INFINITY ? 0.25 : was * 0.5); break; /* opens, or cheaper */
            default: c = one_cost ? unit : pick_cost(false, unit); break;
            }
            if (c == was) continue;
            lowered |= c < was;
            changed = true;
            writes++;
            set(g, &wd, x, y, c);
        }
        CHECK(st == ASTAR_OK);
        CHECK(astar_build_restarts(b) == 0);
        went_on += changed;
        lowered_builds += lowered;
        astar_build_free(b);
        CHECK(astar_grid_landmark_count(g) > 0);
        check_h(g, &wd, 3);
        astar_grid_free(g);
    }
    printf("sliced builds: %ld went on under writes, %ld of them with decreases\n", went_on, lowered_builds);
    CHECK(went_on > 30 && lowered_builds > 20);
    CHECK(bad_bound == 0 && bad_slope == 0);
}

int main(void) {
    test_random_writes();
    test_exact_answers();
    test_door_work();
    test_oom();
    test_job();
    test_build();
    return check_summary();
}
