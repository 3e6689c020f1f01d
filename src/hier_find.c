/*
 * The two-tier query (astar_find_hierarchical): start and goal inserted into the abstract
 * graph by Dijkstras inside their clusters, A* over the entrances (terrain costs only), then
 * A* under the query's full cost model inside the corridor of clusters the abstract path
 * crossed, widened by a ring; the whole grid when that corridor fails.
 */
#include "hierarchy.h"
#include "search.h"

#include <string.h>

/*
 * Clusters around the abstract path's that the refinement may enter too. The abstract path
 * is optimal on a graph whose crossings are a few points per border, so the best path often
 * runs beside it; one ring lets the refinement find that one at little cost.
 */
#define CORRIDOR_RING 1

/* Whether the clusters of the two cells are the same or touch: such queries run plain A*. */
static bool near(const struct astar_hierarchy *h, const astar_query *q) {
    int32_t dx = q->sx / h->size - q->gx / h->size, dy = q->sy / h->size - q->gy / h->size;
    return dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1;
}

bool astar_hier_scratch(astar_grid *g, struct astar_hierarchy *h) {
    const astar_alloc *a = &h->alloc;
    int32_t want = h->nodes + 2;
    if (want > h->scratch_nodes) {
        int32_t cap = want + want / 4;
        double *gs = astar_mem(a, NULL, 0, (size_t)cap * sizeof *gs);
        int32_t *parent = gs ? astar_mem(a, NULL, 0, (size_t)cap * sizeof *parent) : NULL;
        uint32_t *seen = parent ? astar_mem(a, NULL, 0, (size_t)cap * sizeof *seen) : NULL;
        if (!seen) {
            astar_mem(a, gs, gs ? (size_t)cap * sizeof *gs : 0, 0);
            astar_mem(a, parent, parent ? (size_t)cap * sizeof *parent : 0, 0);
            return false;
        }
        size_t old = (size_t)h->scratch_nodes;
        astar_mem(a, h->g, old * sizeof *h->g, 0);
        astar_mem(a, h->parent, old * sizeof *h->parent, 0);
        astar_mem(a, h->seen, old * sizeof *h->seen, 0);
        memset(seen, 0, (size_t)cap * sizeof *seen);
        h->g = gs, h->parent = parent, h->seen = seen, h->scratch_nodes = cap, h->stamp = 0;
        if (h->cand_stamp) /* they share the stamp, which starts again */
            memset(h->cand_stamp, 0, (size_t)h->cols * (size_t)h->rows * sizeof *h->cand_stamp);
    }
    int32_t ends = 4 * h->size;
    if (!h->local.nodes && !astar_pool_init(&h->local, a, (size_t)h->size * (size_t)h->size)) return false;
    if (!h->from_start) {
        double *fs = astar_mem(a, NULL, 0, 4 * (size_t)ends * sizeof *fs);
        double *tg = fs ? astar_mem(a, NULL, 0, (size_t)ends * sizeof *tg) : NULL;
        if (!tg) {
            astar_mem(a, fs, fs ? 4 * (size_t)ends * sizeof *fs : 0, 0);
            return false;
        }
        h->from_start = fs, h->to_goal = tg, h->ends_cap = ends;
    }
    if (!h->cand_head) {
        size_t count = (size_t)h->cols * (size_t)h->rows;
        h->cand_head = astar_mem(a, NULL, 0, count * sizeof *h->cand_head);
        uint32_t *st = h->cand_head ? astar_mem(a, NULL, 0, count * sizeof *st) : NULL;
        if (!st) {
            astar_mem(a, h->cand_head, h->cand_head ? count * sizeof *h->cand_head : 0, 0);
            h->cand_head = NULL;
            return false;
        }
        memset(st, 0, count * sizeof *st);
        h->cand_stamp = st;
    }
    if (!h->corridor) {
        h->corridor = astar_mem(a, NULL, 0, g->cells * sizeof *h->corridor);
        if (!h->corridor) return false;
        memset(h->corridor, 0, g->cells * sizeof *h->corridor);
        h->corridor_gen = 0;
    }
    return true;
}

/* A fresh stamp for seen[] and cand_stamp[], which share it: both cleared when it wraps. */
static void next_stamp(struct astar_hierarchy *h) {
    if (++h->stamp != 0) return;
    memset(h->seen, 0, (size_t)h->scratch_nodes * sizeof *h->seen);
    if (h->cand_stamp) memset(h->cand_stamp, 0, (size_t)h->cols * (size_t)h->rows * sizeof *h->cand_stamp);
    h->stamp = 1;
}

/* What the insertions return when they could not finish. */
enum { INSERT_ENOMEM = -1, INSERT_STOPPED = -2 };

/* astar_hier_dijkstra in cluster k, its cells charged to the progress handler first: the cells
 * settled, INSERT_ENOMEM or INSERT_STOPPED. */
static int64_t cluster_dijkstra(astar_grid *g, struct astar_hierarchy *h, int32_t k, int32_t from,
                                bool backward) {
    int32_t x0, y0, w, hh;
    astar_hier_bounds(h, g, k, &x0, &y0, &w, &hh);
    if (astar_stopped_before((uint64_t)w * (uint64_t)hh)) return INSERT_STOPPED;
    int64_t settled = astar_hier_dijkstra(g, h, k, from, backward, &h->local);
    return settled < 0 ? INSERT_ENOMEM : settled;
}

/* The costs from the start (to the goal) of cluster k's entrances, inside it; the cells settled,
 * or what cluster_dijkstra says went wrong. */
static int64_t insert(astar_grid *g, struct astar_hierarchy *h, int32_t k, int32_t cell, bool backward,
                      double *out) {
    int64_t settled = cluster_dijkstra(g, h, k, cell, backward);
    if (settled < 0) return settled;
    const astar_hier_cluster *c = &h->clusters[k];
    for (int32_t i = 0; i < c->n; i++)
        out[i] = astar_pool_g(&h->local, astar_hier_local(h, g, k, c->cell[i]));
    return settled;
}

/*
 * A blocked start is left by one step onto a walkable neighbour, which may lie across its
 * cluster's border where no entrance is: the costs from the start through each such first
 * step to the entrances of that cluster, inside it (from_start's slots after the first).
 */
static int64_t insert_blocked_start(astar_grid *g, struct astar_hierarchy *h, int32_t start, int32_t ks) {
    int64_t settled = 0;
    int32_t sx = start % g->stride - 1, sy = start / g->stride - 1;
    unsigned moves = astar_hier_moves(g, h, start);
    for (int d = 0; d < 8; d++) {
        if (!(moves & (1u << d))) continue;
        int32_t nx = sx + ASTAR_DX[d], ny = sy + ASTAR_DY[d];
        int32_t kn = astar_hier_cluster_of(h, nx, ny);
        if (kn == ks) continue; /* the Dijkstra in the start's cluster took that step */
        int32_t slot = 1;
        while (slot < h->start_clusters && h->start_cluster[slot] != kn) slot++;
        const astar_hier_cluster *c = &h->clusters[kn];
        double *out = &h->from_start[(size_t)slot * h->ends_cap];
        if (slot == h->start_clusters) {
            h->start_cluster[h->start_clusters++] = kn;
            for (int32_t j = 0; j < c->n; j++) out[j] = INFINITY;
        }
        int32_t n = astar_cell(g->stride, nx, ny);
        int64_t got = cluster_dijkstra(g, h, kn, n, false);
        if (got < 0) return got;
        settled += got;
        double first = astar_step_cost(astar_hier_entered(g, h, n, d), d);
        for (int32_t j = 0; j < c->n; j++) {
            double v = first + astar_pool_g(&h->local, astar_hier_local(h, g, kn, c->cell[j]));
            if (v < out[j]) out[j] = v;
        }
    }
    return settled;
}

/* The cluster an abstract node (not the start or goal) belongs to: the last base <= id. */
static int32_t owner(const struct astar_hierarchy *h, int32_t id) {
    int32_t lo = 0, hi = h->cols * h->rows - 1;
    while (lo < hi) {
        int32_t mid = (lo + hi + 1) / 2;
        if (h->base[mid] <= id) lo = mid;
        else hi = mid - 1;
    }
    return lo; /* the last of equal bases: the empty clusters before it share its base */
}

/* The abstract search's lower bound: octile (Manhattan when 4-connected) steps on the cheapest terrain. */
static double bound(const astar_grid *g, const struct astar_hierarchy *h, double unit, int32_t cell, int32_t goal) {
    int32_t dx = cell % g->stride - goal % g->stride, dy = cell / g->stride - goal / g->stride;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    double lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    double steps = h->mode == ASTAR_DIAG_NEVER ? hi + lo : hi + lo * (ASTAR_SQRT2 - 1.0);
    return steps * unit * (1.0 - 1e-9);
}

typedef struct abstract_query {
    int32_t start, goal, ks, kg, S, G;
    double unit;
    uint64_t expansions;
} abstract_query;

static bool relax(struct astar_hierarchy *h, const astar_grid *g, const abstract_query *aq, int32_t v,
                  int32_t cell, int32_t from, double ng) {
    if (h->seen[v] == h->stamp && !(ng < h->g[v])) return true;
    h->seen[v] = h->stamp;
    h->g[v] = ng;
    h->parent[v] = from;
    return astar_lazy_heap_push(&h->heap, &h->alloc, ng + bound(g, h, aq->unit, cell, aq->goal), v);
}

static int32_t node_cell(const struct astar_hierarchy *h, const abstract_query *aq, int32_t v, int32_t *k,
                         int32_t *i) {
    if (v == aq->S) return *k = aq->ks, *i = -1, aq->start;
    if (v == aq->G) return *k = aq->kg, *i = -1, aq->goal;
    *k = owner(h, v);
    *i = v - h->base[*k];
    return h->clusters[*k].cell[*i];
}

/* A* over the entrances, an expansion a unit of the progress handler; true when the goal was
 * reached (parent[] then holds the way); *err gets ASTAR_ENOMEM or ASTAR_ESTOPPED, else
 * ASTAR_OK. */
static bool abstract_search(astar_grid *g, struct astar_hierarchy *h, abstract_query *aq, uint64_t budget,
                            astar_status *err) {
    *err = ASTAR_OK;
    next_stamp(h);
    h->heap.len = 0;
    h->seen[aq->S] = h->stamp;
    h->g[aq->S] = 0.0;
    h->parent[aq->S] = -1;
    if (!astar_lazy_heap_push(&h->heap, &h->alloc, 0.0, aq->S)) {
        *err = ASTAR_ENOMEM;
        return false;
    }
    astar_progress *progress = astar_progress_get();
    const int32_t stride = g->stride;
    const int32_t offset[4] = {-stride, 1, stride, -1};
    double key;
    int32_t u;
    while ((u = astar_lazy_heap_pop(&h->heap, &key)) >= 0) {
        int32_t k, i, cell = node_cell(h, aq, u, &k, &i);
        if (key > h->g[u] + bound(g, h, aq->unit, cell, aq->goal)) continue; /* stale */
        if (aq->expansions == budget) return false;
        if (astar_progress_charge(progress, 1)) {
            *err = ASTAR_ESTOPPED;
            return false;
        }
        aq->expansions++;
        if (u == aq->G) return true;
        double gu = h->g[u];
        const astar_hier_cluster *c = &h->clusters[k];
        bool ok = true;
        if (u == aq->S) {
            for (int32_t slot = 0; slot < h->start_clusters; slot++) {
                int32_t ko = h->start_cluster[slot];
                const astar_hier_cluster *co = &h->clusters[ko];
                const double *cost = &h->from_start[(size_t)slot * h->ends_cap];
                for (int32_t j = 0; j < co->n && ok; j++)
                    if (cost[j] != INFINITY) ok = relax(h, g, aq, h->base[ko] + j, co->cell[j], u, gu + cost[j]);
            }
        } else {
            const double *row = &c->dist[(size_t)i * c->n];
            for (int32_t j = 0; j < c->n && ok; j++)
                if (j != i && row[j] != INFINITY) ok = relax(h, g, aq, h->base[k] + j, c->cell[j], u, gu + row[j]);
            for (int d = 0; d < 4 && ok; d++) {
                if (!(c->sides[i] & (1u << d))) continue;
                int32_t across = cell + offset[d];
                int32_t k2 = astar_hier_cluster_of(h, across % stride - 1, across / stride - 1);
                int32_t j2 = astar_hier_find_entrance(&h->clusters[k2], across);
                if (j2 >= 0)
                    ok = relax(h, g, aq, h->base[k2] + j2, across, u,
                               gu + astar_step_cost(astar_hier_entered(g, h, across, d), d));
            }
            if (k == aq->kg && ok && h->to_goal[i] != INFINITY)
                ok = relax(h, g, aq, aq->G, aq->goal, u, gu + h->to_goal[i]);
        }
        if (!ok) {
            *err = ASTAR_ENOMEM;
            return false;
        }
    }
    return false;
}

/* Stamps cluster k's cells (and those of its ring) into the corridor, a unit of the progress
 * handler per cell: false when it said stop. */
static bool stamp_cluster(astar_grid *g, struct astar_hierarchy *h, int32_t k) {
    int32_t kx = k % h->cols, ky = k / h->cols;
    for (int32_t cy = ky - CORRIDOR_RING; cy <= ky + CORRIDOR_RING; cy++) {
        for (int32_t cx = kx - CORRIDOR_RING; cx <= kx + CORRIDOR_RING; cx++) {
            if (cx < 0 || cy < 0 || cx >= h->cols || cy >= h->rows) continue;
            int32_t x0, y0, w, hh;
            astar_hier_bounds(h, g, cy * h->cols + cx, &x0, &y0, &w, &hh);
            uint16_t *first = &h->corridor[astar_cell(g->stride, x0, y0)];
            if (*first == h->corridor_gen) continue; /* whole clusters only: done already */
            if (astar_stopped_before((uint64_t)w * (uint64_t)hh)) return false;
            for (int32_t y = 0; y < hh; y++)
                for (int32_t x = 0; x < w; x++) first[y * g->stride + x] = h->corridor_gen;
        }
    }
    return true;
}

/* The corridor of the guide's clusters under a new stamp; false when the progress handler said
 * stop (the query's scratch only is half written). */
static bool mark_corridor(astar_grid *g, struct astar_hierarchy *h, int32_t len) {
    if (++h->corridor_gen == 0) {
        memset(h->corridor, 0, g->cells * sizeof *h->corridor);
        h->corridor_gen = 1;
    }
    for (int32_t i = 0; i < len; i++) {
        int32_t cell = h->guide_cell[i];
        if (!stamp_cluster(g, h, astar_hier_cluster_of(h, cell % g->stride - 1, cell / g->stride - 1)))
            return false;
    }
    return true;
}

/* Two arrays of *cap entries each grown together to hold want: both or neither. */
static bool grow_pair(const astar_alloc *a, void **p, size_t p_each, void **q, size_t q_each, int32_t *cap,
                      int32_t want) {
    if (want <= *cap) return true;
    int32_t to = want + want / 2;
    void *np = astar_mem(a, NULL, 0, (size_t)to * p_each);
    void *nq = np ? astar_mem(a, NULL, 0, (size_t)to * q_each) : NULL;
    if (!nq) {
        astar_mem(a, np, np ? (size_t)to * p_each : 0, 0);
        return false;
    }
    astar_mem(a, *p, (size_t)*cap * p_each, 0); /* the old contents are rewritten by the caller */
    astar_mem(a, *q, (size_t)*cap * q_each, 0);
    *p = np, *q = nq, *cap = to;
    return true;
}

/*
 * The abstract path as the refinement's guide: its nodes from the start on, each with the
 * abstract cost from it to the goal along the path, listed in the clusters around it.
 * Returns the nodes (0 on OOM).
 */
static int32_t make_guide(const astar_grid *g, struct astar_hierarchy *h, const abstract_query *aq) {
    int32_t len = 0;
    for (int32_t v = aq->G; v >= 0; v = h->parent[v]) len++;
    const astar_alloc *a = &h->alloc;
    if (!grow_pair(a, (void **)&h->guide_cell, sizeof *h->guide_cell, (void **)&h->guide_rest,
                   sizeof *h->guide_rest, &h->guide_cap, len) ||
        !grow_pair(a, (void **)&h->cand_node, sizeof *h->cand_node, (void **)&h->cand_next,
                   sizeof *h->cand_next, &h->cand_cap, 9 * len))
        return 0;
    double total = h->g[aq->G];
    int32_t i = len;
    for (int32_t v = aq->G; v >= 0; v = h->parent[v]) {
        int32_t k, j;
        h->guide_cell[--i] = node_cell(h, aq, v, &k, &j);
        h->guide_rest[i] = total - h->g[v];
    }
    next_stamp(h); /* the abstract search's stamp ended: a new one for the lists */
    int32_t n = 0;
    for (i = 0; i < len; i++) {
        int32_t cell = h->guide_cell[i];
        int32_t kx = (cell % g->stride - 1) / h->size, ky = (cell / g->stride - 1) / h->size;
        for (int32_t cy = ky - 1; cy <= ky + 1; cy++) {
            for (int32_t cx = kx - 1; cx <= kx + 1; cx++) {
                if (cx < 0 || cy < 0 || cx >= h->cols || cy >= h->rows) continue;
                int32_t k = cy * h->cols + cx;
                if (h->cand_stamp[k] != h->stamp) h->cand_stamp[k] = h->stamp, h->cand_head[k] = -1;
                h->cand_node[n] = i;
                h->cand_next[n] = h->cand_head[k];
                h->cand_head[k] = n++;
            }
        }
    }
    return len;
}

typedef struct guide {
    const astar_grid *g;
    const struct astar_hierarchy *h;
    double unit;
} guide;

/*
 * The refinement's heuristic: the cheapest of (the octile bound to a nearby node of the
 * abstract path + the abstract cost from there on). Not a lower bound: it leads the search
 * along the abstract path, which is what saves the expansions; the path found may then be
 * a little dearer than the corridor's best (reopening keeps its cost exact).
 */
static double guide_h(void *ud, int32_t x, int32_t y, int32_t gx, int32_t gy) {
    const guide *gd = ud;
    const struct astar_hierarchy *h = gd->h;
    int32_t cell = astar_cell(gd->g->stride, x, y);
    int32_t k = astar_hier_cluster_of(h, x, y);
    if (h->cand_stamp[k] != h->stamp) return bound(gd->g, h, gd->unit, cell, astar_cell(gd->g->stride, gx, gy));
    double best = INFINITY;
    for (int32_t e = h->cand_head[k]; e >= 0; e = h->cand_next[e]) {
        int32_t i = h->cand_node[e];
        double v = bound(gd->g, h, gd->unit, cell, h->guide_cell[i]) + h->guide_rest[i];
        if (v < best) best = v;
    }
    return best;
}

static uint64_t left_of(uint64_t budget, uint64_t used) {
    return budget == UINT64_MAX ? UINT64_MAX : budget > used ? budget - used : 0;
}

static astar_status done(astar_result *res, astar_status st, uint64_t expansions, uint64_t abstract) {
    res->status = st;
    res->tiered = 1;
    res->expansions = expansions;
    res->abstract_expansions = abstract;
    return st;
}

astar_status astar_find_hierarchical(astar_search *s, astar_grid *g, const astar_query *q,
                                     astar_result *res) {
    astar_result_init(res);
    struct astar_hierarchy *h = g->hierarchy;
    if (!h || q->ntargets || q->ninterests || s->width != g->width || s->height != g->height ||
        q->sx < 0 || q->sy < 0 || q->sx >= g->width || q->sy >= g->height || q->gx < 0 || q->gy < 0 ||
        q->gx >= g->width || q->gy >= g->height)
        return astar_finish(res, ASTAR_EINVAL);
    astar_diagonal mode = q->diagonal == ASTAR_DIAG_DEFAULT ? g->diagonal : q->diagonal;
    if (mode != h->mode) return astar_finish(res, ASTAR_EINVAL);
    int32_t start = astar_cell(g->stride, q->sx, q->sy), goal = astar_cell(g->stride, q->gx, q->gy);
    astar_status st;
    /* Its clusters' costs are the terrain's: a query with classes takes A* (the same answer).
     * A bigger unit (HAA*) searches the hierarchy of its size; one astar_find refuses (fog or
     * classes with a size, a size out of range) is refused there. */
    bool big = q->size > 1;
    if (big && (q->size > ASTAR_MAX_SIZE || q->known || q->classes)) {
        st = astar_find(s, g, q, res);
        return done(res, st, res->expansions, 0);
    }
    if (big && (st = astar_hierarchy_sized(g, q->size, &h)) != ASTAR_OK) return astar_finish(res, st);
    /* Another island of its size (islands.c): A* answers at once, from the labels. */
    bool apart = false;
    if (big && !q->partial && astar_hier_ground(g, h, start) && astar_hier_ground(g, h, goal)) {
        astar_islands *is;
        if ((st = astar_islands_sized(g, astar_island_kind(mode), q->size, &is)) != ASTAR_OK)
            return astar_finish(res, st);
        apart = astar_islands_root(is, start) != astar_islands_root(is, goal);
    }
    if (apart || near(h, q) || start == goal || !astar_hier_ground(g, h, goal) || q->classes) {
        st = astar_find(s, g, q, res);
        return done(res, st, res->expansions, 0);
    }
    st = astar_hierarchy_refresh(g, h);
    if (st != ASTAR_OK) return astar_finish(res, st);
    if (!astar_hier_scratch(g, h)) return astar_finish(res, ASTAR_ENOMEM);
    double lo, hi;
    if ((st = astar_grid_cost_range(g, &lo, &hi)) != ASTAR_OK) return astar_finish(res, st);

    abstract_query aq = {start, goal, astar_hier_cluster_of(h, q->sx, q->sy),
                         astar_hier_cluster_of(h, q->gx, q->gy), h->nodes, h->nodes + 1, lo, 0};
    h->start_clusters = 1;
    h->start_cluster[0] = aq.ks;
    int64_t in = insert(g, h, aq.ks, start, false, h->from_start);
    if (in >= 0 && !astar_hier_ground(g, h, start)) {
        int64_t more = insert_blocked_start(g, h, start, aq.ks);
        in = more < 0 ? more : in + more;
    }
    int64_t out = in < 0 ? in : insert(g, h, aq.kg, goal, true, h->to_goal);
    if (out < 0) return astar_finish(res, out == INSERT_STOPPED ? ASTAR_ESTOPPED : ASTAR_ENOMEM);
    uint64_t inserted = (uint64_t)in + (uint64_t)out;
    bool found = abstract_search(g, h, &aq, left_of(q->max_expansions, inserted), &st);
    if (st != ASTAR_OK) return astar_finish(res, st);
    uint64_t used = inserted + aq.expansions;
    if (q->max_expansions != UINT64_MAX && used >= q->max_expansions) {
        astar_query bq = *q; /* the budget is spent: what find says of a search cut at once */
        bq.max_expansions = 0;
        st = astar_find(s, g, &bq, res);
        return done(res, st, used + res->expansions, aq.expansions);
    }

    astar_result refined;
    int32_t len = found ? make_guide(g, h, &aq) : 0;
    if (found && len == 0) return astar_finish(res, ASTAR_ENOMEM);
    guide gd = {g, h, aq.unit};
    if (found) {
        if (!mark_corridor(g, h, len)) return astar_finish(res, ASTAR_ESTOPPED);
        astar_query rq = *q;
        if (rq.heuristic != ASTAR_H_CUSTOM) {
            rq.heuristic = ASTAR_H_CUSTOM;
            rq.heuristic_fn = guide_h;
            rq.heuristic_ud = &gd;
        }
        rq.max_cost = INFINITY; /* judged on the answer: the corridor's cost may exceed the best */
        rq.max_expansions = left_of(q->max_expansions, used);
        st = astar_find_within(s, g, &rq, h->corridor, h->corridor_gen, &refined);
        used += refined.expansions;
        bool budget_out = st == ASTAR_LIMIT || (st == ASTAR_PARTIAL && refined.reason == ASTAR_LIMIT);
        if ((st == ASTAR_OK && refined.cost <= q->max_cost) || budget_out || st >= ASTAR_EINVAL) {
            *res = refined;
            return done(res, st, used, aq.expansions);
        }
    }
    /* No abstract way (fog or callbacks may open what the terrain closes), a corridor without
     * a path, or one dearer than max_cost: the whole grid, exactly. */
    astar_query fq = *q;
    fq.max_expansions = left_of(q->max_expansions, used);
    st = astar_find(s, g, &fq, res);
    res->fallback = 1;
    return done(res, st, used + res->expansions, aq.expansions);
}
