/*
 *   doors      a living world (issue 26), timed in CPU time. A gate: 1-3 cells across a narrow
 *              passage on a scenario's A* path (found the same way every run: the scenarios from
 *              the last back, each path from its middle out, preferring a gate the path can go
 *              around), and up to 3 problems whose paths cross it. Toggled 12 times (closed,
 *              open, ...) for each query kind, "defaults" (astar_query_init's: dead ends on, JPS+
 *              on uniform maps), "influence" (penalties' layer) and "nojump" (A*): set_cost of
 *              the gate's cells, the first query, the same query again (median of 3); prints the
 *              median and max of first / again, and set_cost's median and max. A room: the
 *              largest dead-end area (astar_grid_dead_end) with at most a quarter of the open
 *              cells, its gateway the only door; closed, set_cost + the first find from outside
 *              into it (must be unreachable), then reopened; 3 times per kind. First use: on a
 *              fresh copy of the map per kind, the first query and the same again, without and
 *              after preparing the grid (door_prepare: astar_grid_prepare and
 *              astar_search_prepare, what grid:prepare() does). Checked: every answer equals the
 *              same query's with dead ends off (to the bit; the defaults against A*, to 1e-9),
 *              the repeats the first to the bit, and with the gate open the scenario's optimum
 *              (influence: not below it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/*
 * Doors (issue 26, "a living world"): see the top. Timed in CPU time, the clock, whatever
 * ASTAR_BENCH_CLOCK says. Every answer is checked against the same query with dead ends off
 * (and A* for the defaults' JPS): after a toggle the scenario's optimum no longer holds, so
 * that is the oracle there; with the gate open, the cost must also be the scenario's optimum
 * (the influence kind: not below it).
 */
enum { DOOR_TOGGLES = 12, DOOR_AGAIN = 3, DOOR_QUERIES = 3, DOOR_KINDS = 3, DOOR_SCAN = 100, DOOR_CYCLES = 3 };
static const char *const door_kinds[DOOR_KINDS] = {"defaults", "influence", "nojump"};

typedef struct door_world {
    astar_grid *g;
    astar_search *s;
    astar_layer_ref layers[1]; /* the influence kind's */
    int32_t w;
} door_world;

/* A query of a kind between two node ids: defaults (astar_query_init's: dead ends on, JPS+ on a
 * uniform map), influence (danger_layer) or nojump (A*). The reference: the same with dead ends
 * off, and A* for the defaults. */
static void door_query(astar_query *q, const door_world *d, int kind, bool reference, int32_t from, int32_t to) {
    astar_query_init(q);
    q->sx = from % d->w, q->sy = from / d->w, q->gx = to % d->w, q->gy = to / d->w;
    if (kind == 1) q->layers = d->layers, q->nlayers = 1;
    if (kind == 2 || (reference && kind == 0)) q->jps = ASTAR_JPS_OFF;
    if (reference) q->dead_ends = 0;
}

/* One find, its CPU time in seconds. */
static double door_find(const door_world *d, const astar_query *q, astar_result *res) {
    double t0 = cpu_now();
    astar_find(d->s, d->g, q, res);
    return cpu_now() - t0;
}

/* The same status and, when found, the same cost: to the bit, or within 1e-9 where JPS and A*
 * are compared (they add a line's diagonal steps in another order). */
static bool door_same(const astar_result *a, const astar_result *b, bool relative) {
    if (a->status != b->status) return false;
    if (a->status != ASTAR_OK) return true;
    return relative ? fabs(a->cost - b->cost) <= 1e-9 * b->cost : a->cost == b->cost;
}

/* A* 's path (no dead ends, no JPS) between two node ids, copied; NULL when none. */
static int32_t *door_path(const door_world *d, int32_t from, int32_t to, int32_t *n) {
    astar_query q;
    door_query(&q, d, 2, true, from, to);
    astar_result res;
    if (astar_find(d->s, d->g, &q, &res) != ASTAR_OK) return NULL;
    const int32_t *found = astar_search_path(d->s, n);
    int32_t *path = malloc((size_t)*n * sizeof *path);
    memcpy(path, found, (size_t)*n * sizeof *path);
    return path;
}

static int32_t node_of(const astar_grid *g, int32_t x, int32_t y) { return y * astar_grid_width(g) + x; }

/* The walkable cells in line with node `at` along (dx, dy), both ways from it, into run (room
 * for max + 1): how many, counting no further than max + 1. */
static int32_t door_run(const astar_grid *g, int32_t at, int dx, int dy, int32_t *run, int32_t max) {
    int32_t w = astar_grid_width(g), n = 0;
    run[n++] = at;
    for (int side = -1; side <= 1; side += 2)
        for (int32_t k = 1; n <= max; k++) {
            int32_t x = at % w + side * k * dx, y = at / w + side * k * dy;
            if (!(astar_grid_get_cost(g, x, y) < INFINITY)) break; /* blocked, or outside (NaN) */
            run[n++] = y * w + x;
        }
    return n;
}

static void door_set(astar_grid *g, const int32_t *cells, int32_t n, const double *cost) {
    int32_t w = astar_grid_width(g);
    for (int32_t i = 0; i < n; i++) astar_grid_set_cost(g, cells[i] % w, cells[i] / w, cost ? cost[i] : INFINITY);
}

typedef struct door_gate {
    int32_t n, cells[3]; /* node ids */
    double was[3];       /* their costs, open */
    int32_t problem;     /* the scenario whose path it was found on */
} door_gate;

/*
 * A gate, the same every run: on the A* paths of the scenarios from the last (the longest)
 * back, from each path's middle outwards, a cell whose walkable run across the path's step (the
 * other axis for a straight step, the shorter of the two for a diagonal one) is at most 3
 * cells, walls at both ends: closed, the path cannot pass there. Preferred: a gate the path
 * can go around (the problem stays reachable, so the query after a toggle searches); else
 * the first found.
 */
static bool door_find_gate(const door_world *d, const astar_scen *sc, door_gate *gate) {
    astar_grid *g = d->g;
    bool have = false;
    int scanned = 0;
    for (int32_t i = sc->count - 1; i >= 0 && scanned < DOOR_SCAN; i--) {
        const astar_scenario *p = &sc->items[i];
        if (!endpoints_open(g, p)) continue;
        scanned++;
        int32_t n, *path = door_path(d, node_of(g, p->sx, p->sy), node_of(g, p->gx, p->gy), &n);
        for (int32_t j = 0; path && j < n; j++) {
            int32_t k = n / 2 + (j % 2 ? -(j + 1) / 2 : j / 2); /* the middle first */
            if (k < 16 || k >= n - 16) continue; /* away from the endpoints */
            int32_t a = path[k], b = path[k + 1], run[4], best[4], nb = 4;
            int dx = b % d->w - a % d->w, dy = b / d->w - a / d->w;
            for (int axis = 0; axis < 2; axis++) { /* 0: a row, across a step that moves in y */
                if (axis == 0 ? dy == 0 : dx == 0) continue;
                int32_t m = door_run(g, a, axis == 0, axis == 1, run, 3);
                if (m < nb) nb = m, memcpy(best, run, (size_t)m * sizeof *run);
            }
            if (nb > 3) continue;
            door_gate found = {nb, {0}, {0}, i};
            for (int32_t c = 0; c < nb; c++) found.cells[c] = best[c], found.was[c] = astar_grid_get_cost(g, best[c] % d->w, best[c] / d->w);
            door_set(g, found.cells, nb, NULL);
            int around = 0;
            astar_grid_reachable(g, p->sx, p->sy, p->gx, p->gy, &around);
            door_set(g, found.cells, nb, found.was);
            if (!have || around) *gate = found, have = true;
            if (around) {
                free(path);
                return true;
            }
        }
        free(path);
    }
    return have;
}

/* The scenarios the toggles query: the gate's own, then those (from the last back) whose A*
 * path crosses the gate, with no endpoint on it; up to DOOR_QUERIES. */
static int door_queries(const door_world *d, const astar_scen *sc, const door_gate *gate, int32_t *which) {
    int n = 0, scanned = 0;
    which[n++] = gate->problem;
    for (int32_t i = sc->count - 1; i >= 0 && n < DOOR_QUERIES && scanned < DOOR_SCAN; i--) {
        const astar_scenario *p = &sc->items[i];
        if (i == gate->problem || !endpoints_open(d->g, p)) continue;
        scanned++;
        int32_t from = node_of(d->g, p->sx, p->sy), to = node_of(d->g, p->gx, p->gy), len;
        bool crosses = false, on = false;
        for (int32_t c = 0; c < gate->n; c++) on |= gate->cells[c] == from || gate->cells[c] == to;
        int32_t *path = on ? NULL : door_path(d, from, to, &len);
        for (int32_t k = 0; path && k < len && !crosses; k++)
            for (int32_t c = 0; c < gate->n; c++) crosses |= path[k] == gate->cells[c];
        free(path);
        if (crosses) which[n++] = i;
    }
    return n;
}

static int cmp_int64_desc(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

typedef struct door_room {
    int32_t door, inside, outside; /* node ids: the gateway, a cell in the room, one outside */
    int64_t size;                  /* the room's cells, the areas nested in it included */
    double was;                    /* the door's cost, open */
} door_room;

/*
 * A room with a one-cell door, the same every run: of the dead-end areas (astar_grid_dead_end:
 * everything behind one gateway cell, nested areas included), the largest that holds at most
 * a quarter of the walkable cells, so that its outside is the larger side. Inside: its first
 * cell in row order; outside: the start of the last scenario that reaches it and lies outside.
 * Checked with astar_grid_reachable: reachable with the door open, not with it closed.
 */
static bool door_find_room(const door_world *d, const astar_scen *sc, door_room *room) {
    astar_grid *g = d->g;
    int32_t w = d->w, h = astar_grid_height(g), nareas = 0, area, gate;
    int32_t *of = malloc((size_t)w * (size_t)h * sizeof *of);
    int64_t open = 0;
    for (int32_t c = 0; c < w * h; c++) {
        of[c] = -1;
        if (astar_grid_get_cost(g, c % w, c / w) == INFINITY) continue;
        open++;
        astar_grid_dead_end(g, c % w, c / w, &of[c], &gate);
        if (of[c] + 1 > nareas) nareas = of[c] + 1;
    }
    int32_t *parent = malloc(((size_t)nareas + 1) * sizeof *parent), *door = malloc(((size_t)nareas + 1) * sizeof *door);
    int64_t *size = calloc((size_t)nareas + 1, sizeof *size);
    for (int32_t a = 0; a < nareas; a++) door[a] = parent[a] = -1;
    for (int32_t c = 0; c < w * h; c++)
        if (of[c] >= 0 && door[of[c]] < 0) {
            astar_grid_dead_end(g, c % w, c / w, &area, &door[of[c]]);
            parent[of[c]] = of[door[of[c]]]; /* the area holding its gateway */
            if (parent[of[c]] == of[c]) parent[of[c]] = -1; /* (a gateway is outside its area) */
        }
    for (int32_t c = 0; c < w * h; c++) /* each cell counts in its area and every one around it */
        for (int32_t a = of[c]; a >= 0; a = parent[a]) size[a]++;
    /* The areas by size, largest first; of those with at most a quarter of the open cells, the
     * first with a scenario start outside it on its island (island labels: no search). */
    int64_t *order = malloc(((size_t)nareas + 1) * sizeof *order);
    for (int32_t a = 0; a < nareas; a++) order[a] = size[a] << 32 | a;
    qsort(order, (size_t)nareas, sizeof *order, cmp_int64_desc);
    bool ok = false;
    for (int32_t k = 0; k < nareas && !ok; k++) {
        int32_t best = (int32_t)(order[k] & 0xFFFFFFFF), island, there;
        if (size[best] > open / 4) continue;
        room->door = door[best], room->size = size[best];
        room->was = astar_grid_get_cost(g, room->door % w, room->door / w);
        for (room->inside = 0; of[room->inside] != best; room->inside++) {}
        astar_grid_component(g, room->inside % w, room->inside / w, &island);
        for (int32_t i = sc->count - 1; i >= 0 && !ok; i--) {
            const astar_scenario *p = &sc->items[i];
            int32_t from = node_of(g, p->sx, p->sy);
            bool in = false;
            for (int32_t a = of[from]; a >= 0 && !in; a = parent[a]) in = a == best;
            if (in || from == room->door || astar_grid_component(g, p->sx, p->sy, &there) != ASTAR_OK ||
                there != island)
                continue;
            int no = 1; /* and closed, the door cuts it off */
            astar_grid_set_cost(g, room->door % w, room->door / w, INFINITY);
            astar_grid_reachable(g, p->sx, p->sy, room->inside % w, room->inside / w, &no);
            astar_grid_set_cost(g, room->door % w, room->door / w, room->was);
            ok = !no;
            room->outside = from;
            break; /* the door cuts the room off from every start or none */
        }
    }
    free(order);
    free(of);
    free(parent);
    free(door);
    free(size);
    return ok;
}

/* A distribution's median and largest value (sorted in place), as a line's figures named
 * <before><kind><after>_median and _max. */
static void door_figures(const char *map, const char *before, const char *kind, const char *after, double *v,
                         size_t n, double scale) {
    double med = median_of(v, n) * scale, max = n ? v[n - 1] * scale : 0;
    printf("figure c doors %s %s%s%s_median %.4f\n", map, before, kind, after, med);
    printf("figure c doors %s %s%s%s_max %.4f\n", map, before, kind, after, max);
}

/* grid:prepare() at level load (issue 26): the grid's lazy tables (astar_grid_prepare) and
 * the workspace's per-cell arrays (astar_search_prepare), as the Lua binding's prepare does. */
static astar_status door_prepare(const door_world *d) {
    astar_status st = astar_grid_prepare(d->g, ASTAR_DIAG_DEFAULT);
    return st == ASTAR_OK ? astar_search_prepare(d->s, d->g, ASTAR_DIAG_DEFAULT) : st;
}

/* 1. The gate toggled DOOR_TOGGLES times per kind: set_cost, the first query, the same again.
 * Returns the mismatches. */
static int door_toggles(door_world *d, const bench_map *m, const door_gate *gate, const int32_t *which, int nq) {
    astar_grid *g = d->g;
    const astar_scen *sc = m->scen;
    const char *map = m->name;
    double set[DOOR_KINDS * DOOR_TOGGLES];
    size_t nset = 0;
    int bad = 0;
    for (int kind = 0; kind < DOOR_KINDS; kind++) {
        double ratio[DOOR_TOGGLES], first[DOOR_TOGGLES], again[DOOR_TOGGLES], known[DOOR_TOGGLES];
        int wrong = 0;
        for (int k = 0; k < nq; k++) { /* the tables exist before the first toggle */
            const astar_scenario *p = &sc->items[which[k]];
            astar_query q;
            door_query(&q, d, kind, false, node_of(g, p->sx, p->sy), node_of(g, p->gx, p->gy));
            astar_result res;
            door_find(d, &q, &res);
        }
        for (int t = 0; t < DOOR_TOGGLES; t++) {
            bool closed = t % 2 == 0;
            const astar_scenario *p = &sc->items[which[(t / 2) % nq]]; /* each problem closed and open */
            int32_t from = node_of(g, p->sx, p->sy), to = node_of(g, p->gx, p->gy);
            astar_query q;
            door_query(&q, d, kind, false, from, to);
            astar_result res, rep, ref;
            /* The query once before the toggle, as a unit asks every frame: what the first one
             * after it pays beyond the repeat is the toggle's doing (work it left, or caches its
             * own work evicted), not the previous check's reference search or a new problem. */
            door_find(d, &q, &res);
            double t0 = cpu_now();
            door_set(g, gate->cells, gate->n, closed ? NULL : gate->was);
            set[nset++] = cpu_now() - t0;
            first[t] = door_find(d, &q, &res);
            double times[DOOR_AGAIN];
            for (int r = 0; r < DOOR_AGAIN; r++) {
                times[r] = door_find(d, &q, &rep);
                if (!door_same(&res, &rep, false)) wrong++;
            }
            again[t] = median_of(times, DOOR_AGAIN);
            ratio[t] = again[t] > 0 ? first[t] / again[t] : 0;
            /* The same terrain after two more toggles, its route run before: what the toggle
             * itself leaves, without the cold caches of a route the query had never run. */
            door_set(g, gate->cells, gate->n, closed ? gate->was : NULL);
            door_set(g, gate->cells, gate->n, closed ? NULL : gate->was);
            known[t] = door_find(d, &q, &rep);
            if (!door_same(&res, &rep, false)) wrong++;
            known[t] = again[t] > 0 ? known[t] / again[t] : 0;
            door_query(&q, d, kind, true, from, to);
            astar_find(d->s, g, &q, &ref);
            double slack = fmax(1e-4 * p->optimal, p->precision);
            bool ok = door_same(&res, &ref, kind == 0);
            if (kind != 1 && !closed) ok = ok && res.status == ASTAR_OK && tolerant_equal(res.cost, p);
            else if (res.status == ASTAR_OK) ok = ok && res.cost >= p->optimal - slack;
            wrong += !ok;
        }
        double mr = median_of(ratio, DOOR_TOGGLES), mf = median_of(first, DOOR_TOGGLES) * 1e3,
               ma = median_of(again, DOOR_TOGGLES) * 1e3;
        double mk = median_of(known, DOOR_TOGGLES);
        printf("doors      %-20s %-9s first query after a toggle / the same again: median %.2fx, max %.2fx; "
               "first %.3f ms, again %.3f ms (medians of %d); on a route run before (two more toggles): "
               "median %.2fx, max %.2fx; %d wrong\n",
               map, door_kinds[kind], mr, ratio[DOOR_TOGGLES - 1], mf, ma, DOOR_TOGGLES, mk,
               known[DOOR_TOGGLES - 1], wrong);
        door_figures(map, "", door_kinds[kind], "_known_ratio", known, DOOR_TOGGLES, 1);
        door_figures(map, "", door_kinds[kind], "_ratio", ratio, DOOR_TOGGLES, 1);
        door_figures(map, "", door_kinds[kind], "_first_ms", first, DOOR_TOGGLES, 1e3);
        door_figures(map, "", door_kinds[kind], "_again_ms", again, DOOR_TOGGLES, 1e3);
        printf("figure c doors %s %s_wrong %d\n", map, door_kinds[kind], wrong);
        bad += wrong;
    }
    double mset = median_of(set, nset) * 1e3; /* sorts: the largest is last */
    printf("doors      %-20s set_cost of the gate: median %.4f ms, max %.4f ms\n", map, mset, set[nset - 1] * 1e3);
    door_figures(map, "", "", "set_cost_ms", set, nset, 1e3);
    return bad;
}

/* 2. A room's only door closes: set_cost + the first find into the room, then reopened.
 * Returns the mismatches. */
static int door_cycles(door_world *d, const char *map, const door_room *room) {
    astar_grid *g = d->g;
    int32_t w = d->w;
    int bad = 0;
    printf("doors      %-20s room of %lld cells, door (%d,%d), from (%d,%d) to (%d,%d)\n", map,
           (long long)room->size, (int)(room->door % w), (int)(room->door / w), (int)(room->outside % w),
           (int)(room->outside / w), (int)(room->inside % w), (int)(room->inside / w));
    for (int kind = 0; kind < DOOR_KINDS; kind++) {
        double shut[DOOR_CYCLES], reopen[DOOR_CYCLES];
        uint64_t expanded = 0;
        int wrong = 0;
        astar_query q, ref;
        door_query(&q, d, kind, false, room->outside, room->inside);
        door_query(&ref, d, kind, true, room->outside, room->inside);
        astar_result res, want;
        door_find(d, &q, &res); /* the tables exist before the door moves */
        astar_find(d->s, g, &ref, &want);
        for (int c = 0; c < DOOR_CYCLES; c++) {
            double t0 = cpu_now();
            astar_grid_set_cost(g, room->door % w, room->door / w, INFINITY);
            astar_find(d->s, g, &q, &res);
            shut[c] = cpu_now() - t0;
            expanded = res.expansions;
            wrong += res.status != ASTAR_UNREACHABLE;
            t0 = cpu_now();
            astar_grid_set_cost(g, room->door % w, room->door / w, room->was);
            astar_find(d->s, g, &q, &res);
            reopen[c] = cpu_now() - t0;
            wrong += !door_same(&res, &want, kind == 0) || res.status != ASTAR_OK;
        }
        double ms = median_of(shut, DOOR_CYCLES) * 1e3, mo = median_of(reopen, DOOR_CYCLES) * 1e3;
        printf("doors      %-20s %-9s door closes: set_cost + first find %.3f ms (median of %d, max %.3f), "
               "%s after %llu expansions; reopens: %.3f ms; %d wrong\n",
               map, door_kinds[kind], ms, DOOR_CYCLES, shut[DOOR_CYCLES - 1] * 1e3,
               wrong ? "WRONG" : "unreachable", (unsigned long long)expanded, mo, wrong);
        door_figures(map, "room_", door_kinds[kind], "_close_ms", shut, DOOR_CYCLES, 1e3);
        door_figures(map, "room_", door_kinds[kind], "_open_ms", reopen, DOOR_CYCLES, 1e3);
        printf("figure c doors %s room_%s_wrong %d\n", map, door_kinds[kind], wrong);
        bad += wrong;
    }
    return bad;
}

/* 3. First use: on a fresh copy of the map per kind, its first query and the same again,
 * without and then after door_prepare (grid:prepare()). The workspace is warm, as the Lua
 * binding's are after the first query of a game. Returns the mismatches. */
static int door_first_use(const door_world *d, const bench_map *m, const astar_scenario *p) {
    const char *map = m->name;
    int32_t from = node_of(d->g, p->sx, p->sy), to = node_of(d->g, p->gx, p->gy);
    int bad = 0;
    char err[256];
    for (int kind = 0; kind < DOOR_KINDS; kind++) {
        double ratio[2] = {0}, first[2] = {0}, again[2] = {0}, prep = 0;
        int wrong = 0;
        for (int prepared = 0; prepared < 2; prepared++) {
            door_world fresh = *d;
            fresh.g = load_grid(m->path, err, sizeof err);
            if (!fresh.g) return bad; /* the map could not be read again */
            if (prepared) {
                double t0 = cpu_now();
                wrong += door_prepare(&fresh) != ASTAR_OK;
                prep = cpu_now() - t0;
            }
            astar_query q;
            door_query(&q, &fresh, kind, false, from, to);
            astar_result res, rep;
            first[prepared] = door_find(&fresh, &q, &res);
            double times[DOOR_AGAIN];
            for (int r = 0; r < DOOR_AGAIN; r++) {
                times[r] = door_find(&fresh, &q, &rep);
                wrong += !door_same(&res, &rep, false);
            }
            again[prepared] = median_of(times, DOOR_AGAIN);
            ratio[prepared] = again[prepared] > 0 ? first[prepared] / again[prepared] : 0;
            wrong += res.status != ASTAR_OK || (kind != 1 && !tolerant_equal(res.cost, p));
            astar_grid_free(fresh.g);
        }
        printf("doors      %-20s %-9s first use: first query %.3f ms, again %.3f ms (%.2fx); after prepare "
               "(%.2f ms): %.3f ms, again %.3f ms (%.2fx); %d wrong\n",
               map, door_kinds[kind], first[0] * 1e3, again[0] * 1e3, ratio[0], prep * 1e3, first[1] * 1e3,
               again[1] * 1e3, ratio[1], wrong);
        printf("figure c doors %s %s_cold_ratio %.4f\n", map, door_kinds[kind], ratio[0]);
        printf("figure c doors %s %s_cold_first_ms %.4f\n", map, door_kinds[kind], first[0] * 1e3);
        printf("figure c doors %s %s_prepared_ratio %.4f\n", map, door_kinds[kind], ratio[1]);
        printf("figure c doors %s %s_prepared_first_ms %.4f\n", map, door_kinds[kind], first[1] * 1e3);
        /* What the first query costs more, in ms: after prepare, on a query of a few hundred
         * jump points, mostly cache misses (callgrind counts the same instructions for the two
         * on Paris), which a ratio to 0.05 ms magnifies. */
        printf("figure c doors %s %s_cold_excess_ms %.4f\n", map, door_kinds[kind], (first[0] - again[0]) * 1e3);
        printf("figure c doors %s %s_prepared_excess_ms %.4f\n", map, door_kinds[kind], (first[1] - again[1]) * 1e3);
        printf("figure c doors %s %s_prepare_ms %.4f\n", map, door_kinds[kind], prep * 1e3);
        bad += wrong;
    }
    return bad;
}

int doors_run(const bench_map *m) {
    astar_grid *g = m->grid;
    int32_t w = astar_grid_width(g);
    astar_layer *danger = danger_layer(w, astar_grid_height(g));
    door_world d = {g, m->search, {{danger, 1.0}}, w};
    door_gate gate;
    int32_t which[DOOR_QUERIES];
    int bad = 0;
    if (!door_find_gate(&d, m->scen, &gate)) {
        printf("doors      %-20s no gate of 1-3 cells on the scenarios' paths\n", m->name);
        astar_layer_free(danger);
        return 0;
    }
    int nq = door_queries(&d, m->scen, &gate, which);
    door_room room = {0}; /* chosen before any toggle: the dead ends read on the map as loaded */
    bool have_room = door_find_room(&d, m->scen, &room);
    printf("doors      %-20s gate of %d cells at (%d,%d) on problem %d, %d problems cross it\n", m->name,
           (int)gate.n, (int)(gate.cells[0] % w), (int)(gate.cells[0] / w), (int)gate.problem, nq);
    bad += door_toggles(&d, m, &gate, which, nq);
    if (have_room) bad += door_cycles(&d, m->name, &room);
    else printf("doors      %-20s no room with a one-cell door\n", m->name);
    bad += door_first_use(&d, m, &m->scen->items[which[0]]);
    astar_layer_free(danger);
    return bad;
}
