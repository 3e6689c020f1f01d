/*
 * Paths that were found before the world changed: what each step costs now (and which
 * steps the query no longer allows), and their repair: from where the unit stands, the
 * cheapest way back onto the rest of the old path, in one search to many targets.
 */
#include "search.h"

#include <string.h>

/* The move d with (dx, dy), or -1 when the cells are not neighbours. */
static int move_of(int32_t dx, int32_t dy) {
    for (int d = 0; d < 8; d++)
        if (ASTAR_DX[d] == dx && ASTAR_DY[d] == dy) return d;
    return -1;
}

static bool path_ok(const astar_grid *g, const int32_t *ids, int32_t n, int32_t from) {
    if (!ids || n < 1 || from < 0 || from >= n) return false;
    for (int32_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] / g->width >= g->height) return false;
    return true;
}

/* The query q as seen from ids[from] toward the path's end: its costs, none of its targets. */
static astar_query walk_query(const astar_grid *g, const astar_query *q, const int32_t *ids, int32_t n,
                              int32_t from) {
    astar_query w = *q;
    w.sx = ids[from] % g->width;
    w.sy = ids[from] / g->width;
    w.gx = ids[n - 1] % g->width;
    w.gy = ids[n - 1] / g->width;
    w.targets = NULL;
    w.ntargets = 0;
    w.target_costs = NULL;
    w.partial = 0;
    return w;
}

astar_status astar_path_costs(astar_search *s, astar_grid *g, const astar_query *q, const int32_t *ids,
                              int32_t n, int32_t from, double *cost) {
    if (!s || !g || !q || !cost || !path_ok(g, ids, n, from)) return ASTAR_EINVAL;
    if (q->ninterests > 0 || q->ntargets > 0) return ASTAR_EINVAL;
    astar_query w = walk_query(g, q, ids, n, from);
    query_ctx *c = &s->job; /* a walk, like a search, ends any search stepped on s */
    s->job_live = false;
    bool callbacks;
    astar_status st = astar_query_begin(c, s, g, &w, true, &callbacks);
    if (st != ASTAR_OK) return st;
    const int32_t width = g->width;
    cost[from] = 0.0;
    int prev = -1; /* the step into ids[i - 1], where it has a cost */
    for (int32_t i = from + 1; i < n; i++) {
        int32_t ax = ids[i - 1] % width, ay = ids[i - 1] / width;
        int32_t bx = ids[i] % width, by = ids[i] / width;
        int32_t a = astar_cell(g->stride, ax, ay), b = astar_cell(g->stride, bx, by);
        int d = move_of(bx - ax, by - ay);
        cost[i] = INFINITY;
        if (d >= 0 && astar_terrain_cost(c, b) != INFINITY && (astar_query_moves(c, a, ax, ay) >> d & 1u)) {
            double extra = astar_step_extra(c, a, ax, ay, b, bx, by, i - from);
            bool turns = q->turn_penalty > 0 && astar_turns(c, prev, ay, d);
            if (extra != INFINITY) cost[i] = astar_grid_step(c, b, d, extra, turns);
        }
        if (c->aborted) return ASTAR_EABORT;
        prev = cost[i] == INFINITY ? -1 : d;
    }
    return ASTAR_OK;
}

/* Changes blocked since a version beyond which astar_path_terrain reads every cell instead:
 * each cell it reads is measured against each of them. */
#define STALE_CHANGES 64

/* The move index (ASTAR_DX) of a step (dx + 1) + 3 (dy + 1); -1 for none. */
static const int8_t MOVE_OF[9] = {7, 0, 4, 3, -1, 1, 6, 2, 5};

/* A path cell as the check carries it: its node id and coordinates (one division per cell). */
typedef struct path_at {
    int32_t id, x, y;
} path_at;

static path_at cell_at(int32_t w, int32_t id) {
    path_at p = {id, 0, id / w};
    p.x = id - p.y * w;
    return p;
}

/* Is the terrain at (x, y) walkable (-1 and width or height: the border, blocked)? From the
 * bit per cell of row_bits: a path's cells are scattered over the map, and a bit is 64 times
 * more likely than a cost to be in cache already. */
static unsigned walkable(const astar_grid *g, int32_t x, int32_t y) {
    int32_t c = x + 1;
    return (unsigned)(g->row_bits[(size_t)(y + 1) * g->row_words + 1 + (size_t)(c >> 6)] >> (c & 63)) & 1u;
}

/* Does the terrain under mode (resolved) allow the step a -> b? The legal-move table of a's
 * row, given the bits it reads for move d: b's, and for a diagonal its two side cells'. */
static bool step_allowed(const astar_grid *g, astar_diagonal mode, path_at a, path_at b) {
    int32_t dx = b.x - a.x, dy = b.y - a.y;
    if (dx < -1 || dx > 1 || dy < -1 || dy > 1) return false;
    int d = MOVE_OF[(dy + 1) * 3 + (dx + 1)];
    if (d < 0 || !walkable(g, b.x, b.y)) return false;
    unsigned open = 1u << d;
    if (d >= 4) {
        int s1 = d - 4, s2 = (d - 3) & 3; /* diagonal 4 + i is flanked by i and (i + 1) % 4 */
        open |= walkable(g, a.x + ASTAR_DX[s1], a.y + ASTAR_DY[s1]) << s1;
        open |= walkable(g, a.x + ASTAR_DX[s2], a.y + ASTAR_DY[s2]) << s2;
    }
    return astar_legal_row(g, mode, a.y)[open] >> d & 1u;
}

static int32_t chebyshev(path_at a, path_at b) {
    int32_t dx = a.x - b.x, dy = a.y - b.y;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    return dx > dy ? dx : dy;
}

astar_status astar_path_terrain(const astar_grid *g, astar_diagonal mode, int32_t n, int32_t from,
                                const uint32_t *since, astar_path_reader read, void *ud,
                                int32_t *index) {
    if (!index) return ASTAR_EINVAL;
    *index = -1;
    if (!g || !read || n < 1 || from < 0 || from >= n || mode < ASTAR_DIAG_DEFAULT || mode > ASTAR_DIAG_HEX)
        return ASTAR_EINVAL;
    if (mode == ASTAR_DIAG_DEFAULT) mode = g->diagonal;
    if (since && g->version == *since) return ASTAR_OK; /* nothing changed: nothing to read */
    /* The cells blocked since: only a blocked cell can make a step that was allowed not be
     * (a dearer or an opened cell never does). A cell toggled back open drops out here. */
    path_at changed[STALE_CHANGES];
    int32_t nchanged = 0;
    bool sparse = since && astar_grid_changes_known(g, *since);
    for (uint32_t v = since ? *since + 1u : 0u; sparse && v != g->version + 1u; v++) {
        const astar_change *e = astar_grid_change(g, v);
        if (g->cost[e->cell] != INFINITY) continue;
        if (nchanged == STALE_CHANGES) sparse = false;
        else changed[nchanged++] = (path_at){-1, e->cell % g->stride - 1, e->cell / g->stride - 1};
    }
    if (sparse && nchanged == 0) return ASTAR_OK;
    const int32_t w = g->width, cells = g->width * g->height;
    int32_t j = from, id = read(ud, from);
    if (id < 0 || id >= cells) return *index = from, ASTAR_EINVAL;
    path_at at = cell_at(w, id);
    while (j < n - 1) {
        int32_t near = 0; /* the Chebyshev distance from ids[j] to the nearest change */
        if (sparse) {
            near = INT32_MAX;
            for (int32_t k = 0; k < nchanged && near > 1; k++) {
                int32_t d = chebyshev(at, changed[k]);
                if (d < near) near = d;
            }
        }
        /* The step out of ids[j] reads the 3x3 around it: it can only have changed when a
         * change lies within 1, and from D away the chain needs D - 1 steps to get there. */
        if (near > 1) {
            int64_t to = (int64_t)j + (near - 1);
            if (to >= n - 1) break; /* no step left that starts near a change */
            if ((id = read(ud, (int32_t)to)) < 0 || id >= cells) return *index = (int32_t)to, ASTAR_EINVAL;
            path_at b = cell_at(w, id);
            if (chebyshev(at, b) > to - j) return *index = (int32_t)to, ASTAR_EINVAL; /* no chain */
            j = (int32_t)to;
            at = b;
            continue;
        }
        if ((id = read(ud, j + 1)) < 0 || id >= cells) return *index = j + 1, ASTAR_EINVAL;
        path_at b = cell_at(w, id);
        if (!step_allowed(g, mode, at, b)) return *index = j + 1, ASTAR_OK;
        j++;
        at = b;
    }
    return ASTAR_OK;
}

/* The repaired path: the way the search found to old[join], then the old path's rest. Its
 * cost is summed again step by step: turns at the join and claim windows counted from the
 * new start make it differ from the search's. */
static astar_status join_rest(astar_search *s, astar_grid *g, const astar_query *q, const int32_t *old,
                              int32_t n, int32_t join, astar_result *res) {
    int32_t head = s->path.len, len = head + (n - 1 - join);
    if (len > head) {
        if (!astar_path_reserve(&s->path, &s->alloc, len)) return ASTAR_ENOMEM;
        memcpy(s->path.ids + head, old + join + 1, (size_t)(n - 1 - join) * sizeof *old);
    }
    double *cost = astar_scratch(s, (size_t)len * sizeof *cost);
    if (!cost) return ASTAR_ENOMEM;
    astar_status st = astar_path_costs(s, g, q, s->path.ids, len, 0, cost);
    if (st != ASTAR_OK) return st;
    double sum = 0.0;
    for (int32_t i = 1; i < len; i++) sum += cost[i];
    res->cost = sum;
    res->score = sum;
    res->length = len;
    res->target = -1;
    return ASTAR_OK;
}

astar_status astar_repair(astar_search *s, astar_grid *g, const astar_query *q, const int32_t *ids,
                          int32_t n, int32_t from, int32_t within, astar_result *res,
                          astar_repair_info *info) {
    astar_result_init(res);
    if (info) {
        info->rejoin = -1;
        info->replanned = 0;
    }
    /* (Not s's own path: the search writes over it while the old path is still read.) */
    if (!s || !g || !q || !path_ok(g, ids, n, from) || ids == s->path.ids || q->ninterests > 0 ||
        q->ntargets > 0 || q->partial)
        return astar_finish(res, ASTAR_EINVAL);
    s->path.len = 0;
    /* The old path's step costs, then the rejoin cells' rest costs, and the cells. */
    double *cost = astar_scratch(s, (size_t)n * (sizeof *cost + sizeof(int32_t)));
    if (!cost) return astar_finish(res, ASTAR_ENOMEM);
    int32_t *targets = (int32_t *)(void *)(cost + n);
    astar_status st = astar_path_costs(s, g, q, ids, n, from, cost);
    if (st != ASTAR_OK) return astar_finish(res, st);

    /* The rejoin cells: from the end back while the rest stays legal, beyond ids[from], and
     * while it stays a target cost a query may carry (at most ASTAR_MAX_VALUE: on terrain that
     * dear a path sums past it, and the cells nearer the end still rejoin). Each takes what the
     * rest costs from it, written over the step costs from the end down. */
    int32_t first = n - 1;
    double step = cost[n - 1]; /* the step into ids[first] */
    cost[n - 1] = 0.0;
    while (first - 1 > from && step != INFINITY && cost[first] + step <= ASTAR_MAX_VALUE) {
        double before = cost[first - 1];
        cost[first - 1] = cost[first] + step;
        step = before;
        first--;
    }
    int32_t m = n - first;
    if (within > 0 && within < m) m = within;
    for (int32_t k = 0; k < m; k++) targets[k] = ids[first + k];

    astar_query r = walk_query(g, q, ids, n, from);
    r.targets = targets;
    r.ntargets = m;
    r.target_costs = cost + first;
    /* All of them, or more than the target heuristic scans: aim at the end (workspace.h's
     * aim_next); a few near the blockage: aim at them, each with its rest (search.h). */
    s->aim_next = m > ASTAR_REPAIR_LOCAL || first + m == n;
    st = astar_find(s, g, &r, res);
    uint64_t expansions = res->expansions;
    int32_t join = st == ASTAR_OK ? first + res->target : -1;
    if (st == ASTAR_OK) {
        st = join_rest(s, g, q, ids, n, join, res);
        if (st != ASTAR_OK) return astar_finish(res, st);
        if (info) info->rejoin = join;
        return astar_finish(res, ASTAR_OK);
    }
    if (st != ASTAR_UNREACHABLE && st != ASTAR_LIMIT) return astar_finish(res, st);

    /* No way back onto the old path: a search for the goal itself. */
    r = walk_query(g, q, ids, n, from);
    st = astar_find(s, g, &r, res);
    res->expansions += expansions;
    if (info) info->replanned = 1;
    return astar_finish(res, st);
}
