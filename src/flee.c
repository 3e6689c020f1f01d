/*
 * Flee and wander (docs/design/flee.md has the rule exactly). No loop of their own: flee is a
 * distance field toward the threats (field.c, bounded by the safe distance), then one
 * multi-target astar_find from the unit whose targets are the safe cells bordering that field
 * (the search stops at the first it settles), the cells nearer a threat than the unit stands
 * blocked by a node_cost of C; only when no safe cell is within reach a range (a field from
 * the unit) gives the farthest cell. A bigger unit (size n) walks anchors, and is as near a
 * threat as the nearest cell of its footprint; the threat field stays one cell's, on the
 * plain terrain (the threats' own walk). Wander is a range and a seeded pick. What they keep
 * between calls (two fields, the scratch) is the workspace's: a Lua callback's error may
 * leave them at any point, and nothing leaks.
 */
#include "layers.h"
#include "workspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The threat distance of a unit of n x n cells anchored at (x, y): the least over its
 * footprint's cells inside the map (a unit is as near a threat as its nearest part; n = 1:
 * its cell's). */
static double footprint_threat(const astar_field *threat, int32_t x, int32_t y, int32_t n) {
    double t = INFINITY;
    for (int32_t j = 0; j < n; j++)
        for (int32_t i = 0; i < n; i++) {
            double c = astar_field_distance(threat, x + i, y + j); /* NaN outside: skipped */
            if (c < t) t = c;
        }
    return t;
}

/* The footprint's side of a query (0 from a query made without astar_query_init: one cell). */
static int32_t size_of(const astar_query *q) { return q->size > 1 ? q->size : 1; }

/* The unit's walk refuses the anchors nearer a threat than it stands (footprint threat
 * distance < t0); the query's own node_cost, if any, is asked about the others only. */
typedef struct flee_filter {
    const astar_field *threat;
    double t0;
    int32_t n;
    astar_node_cost_fn own;
    void *own_ud;
} flee_filter;

static int flee_node_cost(void *ud, int32_t x, int32_t y, double *extra) {
    const flee_filter *f = ud;
    if (footprint_threat(f->threat, x, y, f->n) < f->t0) return ASTAR_CB_BLOCK;
    if (f->own) return f->own(f->own_ud, x, y, extra);
    *extra = 0.0;
    return ASTAR_CB_PASS;
}

/* astar_search_free's hook for the fields below. */
static void free_fields(astar_search *s) {
    astar_field_free(s->flee_threat);
    astar_field_free(s->flee_range);
}

/* The field at *at, made on first need (the workspace's size). */
static astar_field *field_of(astar_search *s, astar_field **at) {
    if (!*at) *at = astar_field_new(s->width, s->height, &s->alloc);
    if (*at) s->flee_free = free_fields;
    return *at;
}

/* Whether the unit's options are ones both a multi-target find and a range take (its size
 * checked here too: a unit safe where it stands runs no search that would refuse it). */
static bool unit_query_ok(const astar_grid *g, const astar_query *q) {
    astar_diagonal mode = q->diagonal == ASTAR_DIAG_DEFAULT ? astar_grid_diagonal(g) : q->diagonal;
    return q->sx >= 0 && q->sy >= 0 && q->sx < astar_grid_width(g) && q->sy < astar_grid_height(g) &&
           q->heuristic == ASTAR_H_DEFAULT && q->weight == 1.0 && !q->partial && q->ntargets == 0 &&
           q->ninterests == 0 && !(q->turn_penalty > 0) && q->claim_window < 0 && q->size >= 0 &&
           q->size <= ASTAR_MAX_SIZE && !(q->size > 1 && mode == ASTAR_DIAG_HEX);
}

/* The cells the field at f reached, listed into the scratch: dist (doubles first, for their
 * alignment), then ids, then room for `extra` more ids per cell. NULL on OOM (or when the
 * progress handler stopped the listing: *st says which). */
static double *list_field(astar_search *s, const astar_field *f, int32_t extra, int32_t **ids, astar_status *st) {
    size_t m = (size_t)astar_field_reached(f);
    double *dist = astar_scratch(s, (m ? m : 1) * (sizeof *dist + (size_t)(1 + extra) * sizeof **ids));
    *st = dist ? astar_field_list(f, (int32_t *)(dist + m), dist) : ASTAR_ENOMEM;
    *ids = dist ? (int32_t *)(dist + m) : NULL;
    return *st == ASTAR_OK ? dist : NULL;
}

/* The range's way from its start to (x, y) as s's path; its cost and length in res. */
static astar_status path_from_range(astar_search *s, const astar_field *range, int32_t x, int32_t y,
                                    astar_result *res) {
    int32_t n = 1, nx, ny, w = s->width;
    for (int32_t cx = x, cy = y; astar_field_next(range, cx, cy, &nx, &ny) == 1; cx = nx, cy = ny) n++;
    if (!astar_path_reserve(&s->path, &s->alloc, n)) return astar_finish(res, ASTAR_ENOMEM);
    res->cost = astar_field_distance(range, x, y);
    res->length = n;
    for (int32_t i = n - 1; i >= 0; i--) { /* walked back: written from the end */
        s->path.ids[i] = y * w + x;
        astar_field_next(range, x, y, &x, &y);
    }
    return astar_finish(res, ASTAR_OK);
}

/* The range from the unit under q within budget (its max_cost), into s->flee_range. */
static astar_status build_range(astar_search *s, astar_grid *g, const astar_query *q, double budget,
                                astar_result *res) {
    astar_field *range = field_of(s, &s->flee_range);
    if (!range) return ASTAR_ENOMEM;
    astar_query rq = *q;
    rq.max_cost = budget;
    rq.gx = q->sx;
    rq.gy = q->sy;
    int32_t start = q->sy * astar_grid_width(g) + q->sx;
    astar_result rr;
    astar_status st = astar_field_build(range, s, g, &rq, &start, 1, ASTAR_FIELD_FROM, &rr);
    res->expansions += rr.expansions;
    return st == ASTAR_LIMIT ? ASTAR_OK : st;
}

/* The path that stays where it stands: the start alone, cost 0. */
static astar_status stay(astar_search *s, const astar_query *q, astar_result *res) {
    if (!astar_path_reserve(&s->path, &s->alloc, 1)) return astar_finish(res, ASTAR_ENOMEM);
    s->path.ids[0] = q->sy * s->width + q->sx;
    res->cost = 0.0;
    res->length = 1;
    return astar_finish(res, ASTAR_OK);
}

static int compare_ids(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The safe anchors (footprint threat distance >= d) next to an anchor whose footprint holds a
 * cell of the threat field nearer than d, as node ids, each once, into targets (room for
 * 4n + 4 per cell of the field): the first safe anchor on any way out of the threats' reach
 * is one of them, so the cheapest safe anchor is. Its predecessor's footprint holds such a
 * cell c, inside the (n + 2) x (n + 2) square around its own footprint and outside that
 * footprint: it is on the ring of anchors [c - n, c + 1]^2 less [c - n + 1, c]^2 (n = 1: c's
 * 8 neighbours). Work in proportion to the field (times 4n + 4, and n^2 field reads per
 * anchor kept). Returns how many. */
static int32_t safe_border(const astar_field *threat, int32_t w, int32_t h, const int32_t *ids, const double *dist,
                           int32_t m, double d, int32_t n, int32_t *targets) {
    int32_t count = 0;
    for (int32_t i = 0; i < m; i++) {
        if (!(dist[i] < d)) continue;
        int32_t x = ids[i] % w, y = ids[i] / w;
        for (int32_t ay = y - n; ay <= y + 1; ay++)
            for (int32_t ax = x - n; ax <= x + 1; ax++) {
                bool inner = ax > x - n && ax <= x && ay > y - n && ay <= y; /* its footprint holds c */
                if (!inner && ax >= 0 && ay >= 0 && ax < w && ay < h) targets[count++] = ay * w + ax;
            }
    }
    qsort(targets, (size_t)count, sizeof *targets, compare_ids);
    int32_t kept = 0;
    for (int32_t i = 0; i < count; i++)
        if ((kept == 0 || targets[kept - 1] != targets[i]) &&
            footprint_threat(threat, targets[i] % w, targets[i] / w, n) >= d)
            targets[kept++] = targets[i];
    return kept;
}

/* Flee's threat field toward the threats, bounded by the safe distance (terrain only, the
 * query's diagonal: the threats' own walk). *none when there is no threat. */
static astar_status build_threats(astar_search *s, astar_grid *g, const astar_query *q, const astar_flee_opts *o,
                                  astar_field *threat, bool *none, astar_result *res) {
    const int32_t *cells = o->threats;
    int32_t n = o->nthreats;
    if (o->layer) {
        n = astar_layer_above(o->layer, o->threshold, NULL);
        int32_t *ids = astar_scratch(s, (size_t)(n ? n : 1) * sizeof *ids);
        if (!ids) return ASTAR_ENOMEM;
        astar_layer_above(o->layer, o->threshold, ids);
        cells = ids;
    }
    *none = n == 0;
    if (*none) return ASTAR_OK;
    astar_query tq;
    astar_query_init(&tq);
    tq.diagonal = q->diagonal;
    tq.max_cost = o->distance;
    astar_result tr;
    astar_status st = astar_field_build(threat, s, g, &tq, cells, n, ASTAR_FIELD_TO, &tr);
    res->expansions += tr.expansions;
    return st == ASTAR_LIMIT ? ASTAR_OK : st;
}

astar_status astar_flee(astar_search *s, astar_grid *g, const astar_query *q, const astar_flee_opts *o,
                        astar_flee_info *info, astar_result *res) {
    astar_result_init(res);
    memset(info, 0, sizeof *info);
    info->threat_distance = INFINITY;
    s->path.len = 0;
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    if (!o || !(o->distance > 0) || o->distance == INFINITY || !(o->radius >= 0) || !(o->threshold >= 0) ||
        (o->layer ? astar_layer_width(o->layer) != w || astar_layer_height(o->layer) != h
                  : o->nthreats < 1 || !o->threats) ||
        s->width != w || s->height != h || !unit_query_ok(g, q))
        return astar_finish(res, ASTAR_EINVAL);
    for (int32_t i = 0; !o->layer && i < o->nthreats; i++)
        if (o->threats[i] < 0 || o->threats[i] / w >= h) return astar_finish(res, ASTAR_EINVAL);
    astar_field *threat = field_of(s, &s->flee_threat);
    if (!threat) return astar_finish(res, ASTAR_ENOMEM);
    bool none;
    astar_status st = build_threats(s, g, q, o, threat, &none, res);
    if (st != ASTAR_OK) return astar_finish(res, st);
    int32_t n = size_of(q);
    double d = o->distance, t0 = none ? INFINITY : footprint_threat(threat, q->sx, q->sy, n);
    info->x = q->sx;
    info->y = q->sy;
    info->threat_cells = none ? 0 : astar_field_reached(threat);
    if (!(t0 < d)) { /* safe where it stands */
        info->safe = 1;
        info->threat_distance = t0;
        return stay(s, q, res);
    }
    flee_filter filter = {threat, t0, n, q->node_cost, q->node_cost_ud};
    astar_query uq = *q;
    uq.node_cost = flee_node_cost;
    uq.node_cost_ud = &filter;
    uq.max_cost = o->radius;

    /* One search to the nearest safe cell. */
    int32_t m = astar_field_reached(threat);
    if (m > INT32_MAX / (4 * n + 5)) return astar_finish(res, ASTAR_ENOMEM);
    int32_t *ids;
    double *dist = list_field(s, threat, 4 * n + 4, &ids, &st);
    if (!dist) return astar_finish(res, st);
    int32_t *targets = ids + m;
    int32_t nt = safe_border(threat, w, h, ids, dist, m, d, n, targets);
    if (nt > 0) {
        uq.targets = targets;
        uq.ntargets = nt;
        uq.gx = targets[0] % w;
        uq.gy = targets[0] / w;
        astar_result fr;
        uint64_t before = res->expansions;
        st = astar_find(s, g, &uq, &fr);
        if (st == ASTAR_OK) {
            *res = fr;
            res->expansions += before;
            res->target = -1; /* flee's own targets: not the caller's */
            int32_t last = s->path.ids[s->path.len - 1];
            info->x = last % w;
            info->y = last / w;
            info->safe = 1;
            info->threat_distance = footprint_threat(threat, info->x, info->y, n);
            return ASTAR_OK;
        }
        res->expansions += fr.expansions;
        if (st != ASTAR_UNREACHABLE && st != ASTAR_LIMIT) return astar_finish(res, st);
        uq.targets = NULL;
        uq.ntargets = 0;
    }

    /* None within reach: the farthest from the threats the unit reaches (the cheapest of
     * those, then the first in node id order). A safe cell may still turn up (max_expansions
     * cut the search above at another point): the cheapest then. */
    st = build_range(s, g, &uq, o->radius, res);
    if (st != ASTAR_OK) return astar_finish(res, st);
    m = astar_field_reached(s->flee_range);
    dist = list_field(s, s->flee_range, 0, &ids, &st);
    if (!dist) return astar_finish(res, st);
    int32_t best = -1;
    double best_t = -1.0;
    for (int32_t i = 0; i < m; i++) {
        double t = footprint_threat(threat, ids[i] % w, ids[i] / w, n);
        bool safe = t >= d, best_safe = best_t >= d;
        if (best < 0 || (safe && (!best_safe || dist[i] < dist[best])) ||
            (!safe && !best_safe && (t > best_t || (t == best_t && dist[i] < dist[best])))) {
            best = i;
            best_t = t;
        }
    }
    if (best < 0) { /* max_expansions stopped the range before its start: stay */
        info->threat_distance = t0;
        return stay(s, q, res);
    }
    info->x = ids[best] % w;
    info->y = ids[best] / w;
    info->safe = best_t >= d;
    info->threat_distance = best_t;
    return path_from_range(s, s->flee_range, info->x, info->y, res);
}

astar_status astar_wander(astar_search *s, astar_grid *g, const astar_query *q, double cost, double tolerance,
                          astar_flee_info *info, astar_result *res) {
    astar_result_init(res);
    memset(info, 0, sizeof *info);
    info->threat_distance = INFINITY;
    s->path.len = 0;
    int32_t w = astar_grid_width(g);
    if (!(cost >= 0) || cost == INFINITY || !(tolerance >= 0 && tolerance <= 1) || s->width != w ||
        s->height != astar_grid_height(g) || !unit_query_ok(g, q))
        return astar_finish(res, ASTAR_EINVAL);
    astar_status st = build_range(s, g, q, cost * (1 + tolerance), res);
    if (st != ASTAR_OK) return astar_finish(res, st);
    int32_t m = astar_field_reached(s->flee_range), *ids;
    double *dist = list_field(s, s->flee_range, 0, &ids, &st);
    if (!dist) return astar_finish(res, st);
    /* The band's cells, else the dearest reached: counted, then the pick's index among them
     * in node id order (y, then x). */
    double lo = cost * (1 - tolerance), far = -1.0;
    int32_t band = 0, nfar = 0;
    for (int32_t i = 0; i < m; i++) {
        band += dist[i] >= lo;
        if (dist[i] > far) far = dist[i], nfar = 0;
        nfar += dist[i] == far;
    }
    info->in_band = band > 0;
    info->candidates = band > 0 ? band : nfar;
    if (info->candidates == 0) { /* max_expansions stopped the range before its start: stay */
        info->x = q->sx, info->y = q->sy;
        return stay(s, q, res);
    }
    /* One Park-Miller step of the seed: the same pick for the same seed everywhere (lockstep). */
    uint64_t seed = q->seed % 2147483647u;
    uint64_t k = (seed ? seed : 1) * 48271u % 2147483647u % (uint64_t)info->candidates;
    int32_t at = -1;
    for (int32_t i = 0; i < m && at < 0; i++)
        if (info->in_band ? dist[i] >= lo : dist[i] == far) {
            if (k == 0) at = ids[i];
            else k--;
        }
    info->x = at % w;
    info->y = at / w;
    return path_from_range(s, s->flee_range, info->x, info->y, res);
}
