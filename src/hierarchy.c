/*
 * HPA* tables (Botea, Mueller and Schaeffer 2004): the grid cut into clusters of size x size
 * cells, entrances where the terrain crosses a cluster's border, and per cluster the terrain
 * costs between its entrances. Kept in step by the grid (dirty clusters), rebuilt lazily.
 * The build runs in independent units, one per cluster (astar_hier_job), so
 * that a build (astar_build_hierarchy) may spread them over threads or frames.
 */
#include "hierarchy.h"
#include "loop.h"

#include <string.h>

/*
 * A maximal run of crossable cells along a border this long or longer gets a transition at
 * each end, a shorter one one in its middle (the paper's rule): the ends let a path hug the
 * run's corners instead of bending to its centre. A shorter run's one is its cheapest crossing
 * (terrain costs of the two cells), which both clusters agree on as they see the same run.
 */
#define ENTRANCE_SPLIT 6

/* ------------------------------------------------------------- Dijkstra */

/*
 * The Dijkstras inside a cluster run on a pool of the cluster's cells (nodes.h), their ids
 * local (astar_hier_local), so that their workspace is a cluster's size whatever the map's;
 * h = 0, so the open list's order is g's. They are the search loop's (loop.h) over a cluster
 * space that settles all it reaches: no arrival, no heuristic, no path; its budget is the
 * pops a build's slice allows.
 */

/* A Dijkstra from local cell `at` begun on pool p; false on OOM. */
static bool dijkstra_begin(astar_pool *p, const astar_alloc *a, int32_t at) {
    (void)astar_pool_begin(p, a); /* a wrap zeroes the records, and the pool has no other stamps */
    astar_pool_touch(p, at, NULL, NULL)->g = 0.0;
    return astar_pool_push_key(p, a, at, astar_dijkstra_key(0.0));
}

/* The cluster space: cluster k's cells, by local id (row by row, w wide). */
typedef struct cluster_frame {
    const astar_grid *g;        /* for a bigger unit's moves and steps (astar_hier_moves, _entered) */
    const struct astar_hierarchy *h;
    const double *cost;         /* the grid's terrain, */
    const uint8_t *open;        /* its kind of cell (for legal) */
    const uint8_t *legal;       /* and the hierarchy's mode's moves */
    int32_t stride;             /* the grid's row, in cells */
    int32_t x0, y0, w, hh;
    int32_t step[8], local_step[8]; /* a move's offset in the grid's cells and in the cluster's */
} cluster_frame;

/* Offers the neighbours of local cell at, settled at g_at: forward the moves cell -> other the
 * terrain allows, at other's terrain; backward the moves other -> cell, read at each other, at
 * cell's terrain. A bigger unit's hierarchy reads its moves and steps from the clearance table
 * and the footprints: spaces of their own (below), so that one cell's loop stays as it was. */
static ALWAYS_INLINE int cluster_expand(const cluster_frame *f, astar_loop *L, astar_node *nodes, uint16_t gen,
                                        int32_t at, double g_at, const bool backward, const bool big) {
    const double *cost = f->cost;
    const uint8_t *open = f->open, *legal = f->legal;
    const int32_t w = f->w, hh = f->hh;
    int32_t lx = at % w, ly = at / w;
    int32_t cell = astar_cell(f->stride, f->x0 + lx, f->y0 + ly);
    /* The eight in turn: taking the set bits one by one made fewer instructions but a 14%
     * slower build on Paris_0_1024 (the loop's end mispredicts). */
    unsigned moves = backward ? 0xFFu : big ? astar_hier_moves(f->g, f->h, cell) : legal[open[cell]];
    for (int d = 0; d < 8; d++) {
        if (!(moves >> d & 1u)) continue;
        int32_t nx = lx + (backward ? -ASTAR_DX[d] : ASTAR_DX[d]);
        int32_t ny = ly + (backward ? -ASTAR_DY[d] : ASTAR_DY[d]);
        if (nx < 0 || ny < 0 || nx >= w || ny >= hh) continue;
        int32_t other = cell + f->step[d];
        if (backward && (big ? !astar_hier_ground(f->g, f->h, other) || !(astar_hier_moves(f->g, f->h, other) >> d & 1u)
                             : cost[other] == INFINITY || !(legal[open[other]] >> d & 1u)))
            continue;
        int32_t onto = backward ? cell : other;
        double nd = g_at + astar_step_cost(big ? astar_hier_entered(f->g, f->h, onto, d) : cost[onto], d);
        int32_t n = at + f->local_step[d];
        astar_node *rec = astar_node_touch(nodes, gen, n);
        if (!(nd < rec->g)) continue;
        rec->g = nd;
        if (!astar_pool_open_key(L->pool, L->alloc, rec, n, astar_dijkstra_key(nd))) return ASTAR_OFFER_ENOMEM;
    }
    return ASTAR_OFFER_DONE;
}

#define CLUSTER_EXPAND(name, backward, big)                                                                  \
    static ALWAYS_INLINE int name(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned,      \
                                  int32_t at, int32_t node, bool upper, double g_at, int64_t quanta) {          \
        (void)pruned, (void)node, (void)upper, (void)quanta;                                                    \
        return cluster_expand(ctx, L, nodes, gen, at, g_at, backward, big);                                     \
    }
CLUSTER_EXPAND(forward_expand, false, false)
CLUSTER_EXPAND(backward_expand, true, false)
CLUSTER_EXPAND(forward_big_expand, false, true)
CLUSTER_EXPAND(backward_big_expand, true, true)

static const astar_space FORWARD = {false, false, NULL, NULL, NULL, NULL, NULL, NULL, forward_expand};
static const astar_space BACKWARD = {false, false, NULL, NULL, NULL, NULL, NULL, NULL, backward_expand};
static const astar_space FORWARD_BIG = {false, false, NULL, NULL, NULL, NULL, NULL, NULL, forward_big_expand};
static const astar_space BACKWARD_BIG = {false, false, NULL, NULL, NULL, NULL, NULL, NULL, backward_big_expand};

/* Settles cells of a Dijkstra begun on pool p inside cluster k, at most `most`; *settled gets
 * them. Returns false on OOM; *done when the open list ran dry. */
static ALWAYS_INLINE bool dijkstra_run(const astar_grid *g, const struct astar_hierarchy *h, int32_t k, bool backward,
                         astar_pool *p, const astar_alloc *a, uint64_t most, uint64_t *settled, bool *done) {
    cluster_frame f = {g, h, g->cost, g->open, g->legal[(int)h->mode], g->stride, 0, 0, 0, 0, {0}, {0}};
    astar_hier_bounds(h, g, k, &f.x0, &f.y0, &f.w, &f.hh);
    for (int d = 0; d < 8; d++) {
        int sign = backward ? -1 : 1;
        f.step[d] = sign * (ASTAR_DY[d] * g->stride + ASTAR_DX[d]);
        f.local_step[d] = sign * (ASTAR_DY[d] * f.w + ASTAR_DX[d]);
    }
    /* No handler: a build's units or an insertion's cells are charged by its caller. */
    astar_meter meter = astar_meter_begin(astar_progress_none(), 0);
    astar_loop L = {.pool = p, .alloc = a, .max_cost = INFINITY, .weight = 1.0, .max_expansions = UINT64_MAX,
                    .meter = &meter, .best = -1, .best_h = INFINITY};
    astar_result res;
    astar_status st;
    if (h->unit > 1) /* each call its own instance of the loop, its space known at compile time */
        st = backward ? astar_loop_run(&BACKWARD_BIG, &f, &L, most, &res) : astar_loop_run(&FORWARD_BIG, &f, &L, most, &res);
    else
        st = backward ? astar_loop_run(&BACKWARD, &f, &L, most, &res) : astar_loop_run(&FORWARD, &f, &L, most, &res);
    *settled = res.expansions;
    *done = p->heap.len == 0;
    return st != ASTAR_ENOMEM;
}

int64_t astar_hier_dijkstra(const astar_grid *g, struct astar_hierarchy *h, int32_t k, int32_t from,
                            bool backward, astar_pool *pool) {
    uint64_t settled;
    bool done;
    if (!dijkstra_begin(pool, &h->alloc, astar_hier_local(h, g, k, from)) ||
        !dijkstra_run(g, h, k, backward, pool, &h->alloc, UINT64_MAX, &settled, &done))
        return -1;
    return (int64_t)settled;
}

/* ------------------------------------------------------------ entrances */

int32_t astar_hier_find_entrance(const astar_hier_cluster *c, int32_t cell) {
    int32_t lo = 0, hi = c->n - 1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        if (c->cell[mid] == cell) return mid;
        if (c->cell[mid] < cell) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* A job's allowance: `budget` units buy 8 cell visits each (a pass over cells, as in the
 * landmark build); what `cells` visits cost. */
#define CELLS_PER_UNIT 8
static uint64_t allowance(uint64_t budget) {
    return budget >= UINT64_MAX / CELLS_PER_UNIT ? UINT64_MAX : budget * CELLS_PER_UNIT;
}
static uint64_t visits_cost(uint64_t cells) { return (cells + CELLS_PER_UNIT - 1) / CELLS_PER_UNIT; }

/*
 * The scan for the entrances of cluster k, resumed at j->side, j->at (j->run: the open run
 * in progress), at most *visits cell positions: cells on its side d whose neighbour across
 * (in the next cluster) is walkable with them, one or two per maximal run. Both clusters of
 * a border see the same runs, so they agree on the transitions' positions without talking.
 * Appends to j->cell, j->side_of (j->found); returns true when all four sides are scanned.
 */
static bool scan_entrances(const astar_grid *g, const struct astar_hierarchy *h, astar_hier_job *j,
                           uint64_t *visits) {
    int32_t x0, y0, w, hh;
    astar_hier_bounds(h, g, j->k, &x0, &y0, &w, &hh);
    uint64_t left = *visits;
    for (; j->side < 4; j->side++, j->at = 0, j->run = -1) {
        int d = j->side;
        /* The side's first cell and the step along it. */
        int32_t len = d == 0 || d == 2 ? w : hh;
        int32_t sx = d == 1 ? x0 + w - 1 : x0, sy = d == 2 ? y0 + hh - 1 : y0;
        int32_t ax = sx + ASTAR_DX[d], ay = sy + ASTAR_DY[d];
        if (ax < 0 || ay < 0 || ax >= g->width || ay >= g->height) continue; /* the grid's edge */
        int32_t step = d == 0 || d == 2 ? 1 : g->stride;
        int32_t first = astar_cell(g->stride, sx, sy), across = astar_cell(g->stride, ax, ay) - first;
        for (; j->at <= len; j->at++) {
            if (left == 0) {
                *visits -= left;
                return false;
            }
            left--;
            int32_t i = j->at;
            bool open = i < len && astar_hier_ground(g, h, first + i * step) &&
                        astar_hier_ground(g, h, first + i * step + across);
            if (open && j->run < 0) j->run = i;
            if (open || j->run < 0) continue;
            int32_t run = j->run, last = i - 1, n = j->found;
            if (last - run + 1 >= ENTRANCE_SPLIT) {
                j->cell[n] = first + run * step, j->side_of[n++] = (uint8_t)(1u << d);
                j->cell[n] = first + last * step, j->side_of[n++] = (uint8_t)(1u << d);
            } else { /* the cheapest crossing, nearest the middle among equals */
                int32_t best = run + (last - run) / 2;
                double best_cost = INFINITY;
                for (int32_t c = run; c <= last; c++) {
                    int32_t at = first + c * step;
                    double cost = g->cost[at] + g->cost[at + across];
                    int32_t off = 2 * c - (run + last), best_off = 2 * best - (run + last);
                    if (cost < best_cost ||
                        (cost == best_cost && (off < 0 ? -off : off) < (best_off < 0 ? -best_off : best_off)))
                        best = c, best_cost = cost;
                }
                j->cell[n] = first + best * step, j->side_of[n++] = (uint8_t)(1u << d);
            }
            j->found = n;
            j->run = -1;
        }
    }
    *visits -= left;
    return true;
}

/* Sorts the found entrances by cell, a cell on two sides merged; returns how many. */
static int32_t sort_entrances(int32_t *cell, uint8_t *side, int32_t n) {
    for (int32_t i = 1; i < n; i++) { /* each side is ascending already: few moves */
        int32_t c = cell[i];
        uint8_t s = side[i];
        int32_t j = i - 1;
        for (; j >= 0 && cell[j] > c; j--) cell[j + 1] = cell[j], side[j + 1] = side[j];
        cell[j + 1] = c, side[j + 1] = s;
    }
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (m > 0 && cell[m - 1] == cell[i]) side[m - 1] |= side[i];
        else cell[m] = cell[i], side[m++] = side[i];
    }
    return m;
}

/* ------------------------------------------------------------- clusters */

static void free_cluster(const astar_alloc *a, astar_hier_cluster *c) {
    astar_mem(a, c->cell, (size_t)c->n * sizeof *c->cell, 0);
    astar_mem(a, c->sides, (size_t)c->n, 0);
    astar_mem(a, c->dist, (size_t)c->n * (size_t)c->n * sizeof *c->dist, 0);
    c->cell = NULL, c->sides = NULL, c->dist = NULL, c->n = 0;
}

static size_t scratch_bytes(const struct astar_hierarchy *h) {
    return (size_t)h->scratch_nodes * (sizeof *h->g + sizeof *h->parent + sizeof *h->seen) +
           astar_pool_bytes(&h->local) + 5 * (size_t)h->ends_cap * sizeof *h->from_start +
           (size_t)h->heap.cap * (sizeof *h->heap.key + sizeof *h->heap.at) +
           (size_t)h->guide_cap * (sizeof *h->guide_cell + sizeof *h->guide_rest) +
           (size_t)h->cand_cap * (sizeof *h->cand_node + sizeof *h->cand_next) +
           (h->cand_head ? (size_t)h->cols * (size_t)h->rows * (sizeof *h->cand_head + sizeof *h->cand_stamp) : 0);
}

/* What a cluster of n entrances holds in its tables. */
static int64_t cluster_bytes(int32_t n) {
    return (int64_t)n * (int64_t)(sizeof(int32_t) + 1) + (int64_t)n * n * (int64_t)sizeof(double);
}

/* The abstract arcs of a cluster's tables: the pairs they connect, and the border crossings. */
static int64_t cluster_edges(const double *dist, const uint8_t *sides, int32_t n) {
    int64_t edges = 0;
    for (int32_t i = 0; i < n * n; i++) edges += dist[i] != INFINITY && i % (n + 1);
    for (int32_t i = 0; i < n; i++)
        for (int d = 0; d < 4; d++) edges += (sides[i] >> d) & 1u;
    return edges;
}

void astar_hierarchy_destroy(const astar_grid *g, struct astar_hierarchy *h) {
    if (!h) return;
    for (int i = 0; i < ASTAR_MAX_SIZE - 1; i++) astar_hierarchy_destroy(g, h->bigger[i]);
    astar_alloc a = h->alloc;
    int32_t count = h->cols * h->rows;
    for (int32_t k = 0; k < count; k++) free_cluster(&a, &h->clusters[k]);
    astar_mem(&a, h->clusters, (size_t)count * sizeof *h->clusters, 0);
    astar_mem(&a, h->base, (size_t)count * sizeof *h->base, 0);
    astar_mem(&a, h->g, (size_t)h->scratch_nodes * sizeof *h->g, 0);
    astar_mem(&a, h->parent, (size_t)h->scratch_nodes * sizeof *h->parent, 0);
    astar_mem(&a, h->seen, (size_t)h->scratch_nodes * sizeof *h->seen, 0);
    astar_mem(&a, h->corridor, h->corridor ? g->cells * sizeof *h->corridor : 0, 0);
    astar_pool_free(&h->local, &a);
    astar_mem(&a, h->from_start, 4 * (size_t)h->ends_cap * sizeof *h->from_start, 0);
    astar_mem(&a, h->to_goal, (size_t)h->ends_cap * sizeof *h->to_goal, 0);
    astar_lazy_heap_free(&h->heap, &a);
    astar_mem(&a, h->guide_cell, (size_t)h->guide_cap * sizeof *h->guide_cell, 0);
    astar_mem(&a, h->guide_rest, (size_t)h->guide_cap * sizeof *h->guide_rest, 0);
    astar_mem(&a, h->cand_node, (size_t)h->cand_cap * sizeof *h->cand_node, 0);
    astar_mem(&a, h->cand_next, (size_t)h->cand_cap * sizeof *h->cand_next, 0);
    astar_mem(&a, h->cand_head, h->cand_head ? (size_t)count * sizeof *h->cand_head : 0, 0);
    astar_mem(&a, h->cand_stamp, h->cand_stamp ? (size_t)count * sizeof *h->cand_stamp : 0, 0);
    astar_mem(&a, h, sizeof *h, 0);
}

void astar_hierarchy_free(astar_grid *g) {
    astar_hierarchy_destroy(g, g->hierarchy);
    g->hierarchy = NULL;
}

astar_status astar_hierarchy_make(const astar_grid *g, int32_t cluster_size, struct astar_hierarchy **out) {
    *out = NULL;
    if (cluster_size < 2 || cluster_size > ASTAR_HIER_MAX_SIZE) return ASTAR_EINVAL;
    astar_diagonal mode = g->diagonal;
    if (mode != ASTAR_DIAG_NEVER && mode != ASTAR_DIAG_ONE_WALKABLE && mode != ASTAR_DIAG_NO_CORNER_CUT)
        return ASTAR_EINVAL;
    astar_alloc a = g->alloc;
    struct astar_hierarchy *h = astar_mem(&a, NULL, 0, sizeof *h);
    if (!h) return ASTAR_ENOMEM;
    memset(h, 0, sizeof *h);
    h->alloc = a;
    h->size = cluster_size;
    h->unit = 1;
    h->cols = (g->width + cluster_size - 1) / cluster_size;
    h->rows = (g->height + cluster_size - 1) / cluster_size;
    h->mode = mode;
    size_t count = (size_t)h->cols * (size_t)h->rows;
    h->clusters = astar_mem(&a, NULL, 0, count * sizeof *h->clusters);
    h->base = h->clusters ? astar_mem(&a, NULL, 0, count * sizeof *h->base) : NULL;
    if (!h->base) {
        astar_mem(&a, h->clusters, h->clusters ? count * sizeof *h->clusters : 0, 0);
        astar_mem(&a, h, sizeof *h, 0);
        return ASTAR_ENOMEM;
    }
    memset(h->clusters, 0, count * sizeof *h->clusters);
    for (size_t k = 0; k < count; k++) h->clusters[k].dirty = true;
    h->stale = true;
    atomic_init(&h->entrances, 0);
    atomic_init(&h->edges, 0);
    atomic_init(&h->table_bytes, 0);
    atomic_init(&h->dirty, (int_fast32_t)count);
    *out = h;
    return ASTAR_OK;
}

int32_t astar_hierarchy_clusters(const astar_grid *g) {
    return g->hierarchy ? g->hierarchy->cols * g->hierarchy->rows : 0;
}

void astar_hier_job_init(astar_hier_job *j, int32_t k) {
    memset(j, 0, sizeof *j);
    j->k = k;
    j->run = -1;
}

void astar_hier_job_drop(astar_hier_job *j, const astar_alloc *a) {
    size_t most = (size_t)j->most, n = (size_t)j->n;
    astar_mem(a, j->cell, j->cell ? most * sizeof *j->cell : 0, 0);
    astar_mem(a, j->side_of, j->side_of ? most : 0, 0);
    astar_pool_free(&j->pool, a);
    astar_mem(a, j->keep_cell, j->keep_cell ? n * sizeof *j->keep_cell : 0, 0);
    astar_mem(a, j->keep_side, j->keep_side ? n : 0, 0);
    astar_mem(a, j->table, j->table ? n * n * sizeof *j->table : 0, 0);
    astar_hier_job_init(j, j->k);
}

/* The job's scratch and, once its entrances are known, its tables (the tables pass to the
 * cluster when the job finishes; the scratch is dropped). */
static astar_status job_memory(const struct astar_hierarchy *h, astar_hier_job *j, const astar_alloc *a,
                               int32_t w, int32_t hh) {
    j->most = 4 * h->size;
    j->cell = astar_mem(a, NULL, 0, (size_t)j->most * sizeof *j->cell);
    j->side_of = j->cell ? astar_mem(a, NULL, 0, (size_t)j->most) : NULL;
    return j->side_of && astar_pool_init(&j->pool, a, (size_t)w * (size_t)hh) ? ASTAR_OK : ASTAR_ENOMEM;
}

static astar_status job_tables(astar_hier_job *j, const astar_alloc *a) {
    size_t n = (size_t)j->n;
    if (n == 0) return ASTAR_OK;
    j->keep_cell = astar_mem(a, NULL, 0, n * sizeof *j->keep_cell);
    j->keep_side = j->keep_cell ? astar_mem(a, NULL, 0, n) : NULL;
    j->table = j->keep_side ? astar_mem(a, NULL, 0, n * n * sizeof *j->table) : NULL;
    if (!j->table) return ASTAR_ENOMEM;
    memcpy(j->keep_cell, j->cell, n * sizeof *j->cell);
    memcpy(j->keep_side, j->side_of, n);
    return ASTAR_OK;
}

enum { JOB_SCAN, JOB_BEGIN, JOB_SEARCH, JOB_COPY };

astar_status astar_hier_job_run(const astar_grid *g, struct astar_hierarchy *h, astar_hier_job *j,
                                const astar_alloc *a, uint64_t budget, uint64_t *used) {
    *used = 0;
    int32_t x0, y0, w, hh;
    astar_hier_bounds(h, g, j->k, &x0, &y0, &w, &hh);
    if (!j->pool.nodes && job_memory(h, j, a, w, hh) != ASTAR_OK) goto oom;
    /* Each stage's cell visits cost an eighth of a unit, a Dijkstra's pop a unit; the sort
     * of the entrances and the tables' allocation one unit. */
    while (*used < budget) {
        uint64_t left = budget - *used;
        if (j->stage == JOB_SCAN) {
            uint64_t visits = allowance(left);
            bool scanned = scan_entrances(g, h, j, &visits);
            *used += visits_cost(visits);
            if (!scanned) continue;
            if (*used >= budget) break; /* the sort and allocation: next time */
            *used += 1;
            j->n = sort_entrances(j->cell, j->side_of, j->found);
            if (job_tables(j, a) != ASTAR_OK) goto oom;
            j->stage = JOB_BEGIN;
            j->source = 0;
            j->cursor = 0;
        } else if (j->source == j->n) {
            break;
        } else if (j->stage == JOB_BEGIN) { /* no pass: the pool's stamp makes its cells fresh */
            if (!dijkstra_begin(&j->pool, a, astar_hier_local(h, g, j->k, j->cell[j->source]))) goto oom;
            j->stage = JOB_SEARCH;
        } else if (j->stage == JOB_SEARCH) {
            uint64_t pops;
            bool done;
            if (!dijkstra_run(g, h, j->k, false, &j->pool, a, left, &pops, &done)) goto oom;
            *used += pops;
            if (!done) continue;
            j->stage = JOB_COPY;
            j->cursor = 0;
        } else { /* JOB_COPY: the source's row of the table */
            uint64_t most = allowance(left), todo = (uint64_t)(j->n - j->cursor);
            int32_t end = j->cursor + (int32_t)(todo < most ? todo : most);
            double *row = j->table + (size_t)j->source * (size_t)j->n;
            for (int32_t i = j->cursor; i < end; i++)
                row[i] = astar_pool_g(&j->pool, astar_hier_local(h, g, j->k, j->cell[i]));
            *used += visits_cost((uint64_t)(end - j->cursor));
            j->cursor = end;
            if (end < j->n) continue;
            j->source++;
            j->stage = JOB_BEGIN;
            j->cursor = 0;
        }
    }
    if (j->stage == JOB_SCAN || j->source < j->n) return ASTAR_RUNNING;
    astar_hier_cluster *c = &h->clusters[j->k];
    int64_t edges = j->n ? cluster_edges(j->table, j->keep_side, j->n) : 0;
    atomic_fetch_add_explicit(&h->entrances, j->n - c->n, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->edges, edges - c->edges, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->table_bytes, cluster_bytes(j->n) - cluster_bytes(c->n), memory_order_relaxed);
    if (c->dirty) atomic_fetch_sub_explicit(&h->dirty, 1, memory_order_relaxed);
    free_cluster(a, c);
    c->cell = j->keep_cell, c->sides = j->keep_side, c->dist = j->table, c->n = j->n;
    c->edges = edges;
    c->dirty = false;
    j->keep_cell = NULL, j->keep_side = NULL, j->table = NULL;
    astar_hier_job_drop(j, a);
    return ASTAR_OK;
oom:
    astar_hier_job_drop(j, a);
    return ASTAR_ENOMEM;
}

/* Builds cluster k of h now, in budgets of what the progress handler allows. */
static astar_status build_cluster(astar_grid *g, struct astar_hierarchy *h, int32_t k) {
    if (!h || k < 0 || k >= h->cols * h->rows) return ASTAR_EINVAL;
    astar_hier_job j;
    astar_hier_job_init(&j, k);
    /* In budgets of what the progress handler allows: a stop drops the job, and the cluster
     * stays as it was (dirty). */
    astar_progress *p = astar_progress_get();
    for (;;) {
        uint64_t allow = astar_progress_allow(p), used;
        if (allow == 0) {
            astar_hier_job_drop(&j, &h->alloc);
            return ASTAR_ESTOPPED;
        }
        astar_status st = astar_hier_job_run(g, h, &j, &h->alloc, allow, &used);
        astar_progress_spent(p, used);
        if (st != ASTAR_RUNNING) return st;
    }
}

void astar_hierarchy_number(struct astar_hierarchy *h) {
    int32_t count = h->cols * h->rows, nodes = 0;
    bool dirty = false;
    for (int32_t k = 0; k < count; k++) {
        h->base[k] = nodes;
        nodes += h->clusters[k].n;
        dirty = dirty || h->clusters[k].dirty;
    }
    h->nodes = nodes;
    h->stale = dirty;
}

astar_status astar_hierarchy_refresh(astar_grid *g, struct astar_hierarchy *h) {
    if (!h->stale) return ASTAR_OK;
    int32_t count = h->cols * h->rows;
    for (int32_t k = 0; k < count; k++) {
        if (!h->clusters[k].dirty) continue;
        astar_status st = build_cluster(g, h, k);
        if (st != ASTAR_OK) return st;
    }
    astar_hierarchy_number(h);
    return ASTAR_OK;
}

astar_status astar_hierarchy_sized(astar_grid *g, int32_t unit, struct astar_hierarchy **out) {
    struct astar_hierarchy *base = g->hierarchy;
    *out = base;
    if (unit <= 1) return ASTAR_OK;
    struct astar_hierarchy **slot = &base->bigger[unit - 2];
    if (!*slot) {
        const uint8_t *clearance; /* what its entrances and costs read */
        astar_status st = astar_clearance_get(g, &clearance);
        if (st == ASTAR_OK) st = astar_hierarchy_make(g, base->size, slot);
        if (st != ASTAR_OK) return st;
        (*slot)->unit = unit;
        (*slot)->mode = base->mode; /* the mode the grid's was built under */
    }
    *out = *slot;
    return ASTAR_OK;
}

/* What one hierarchy holds: its clusters, tables and query scratch. */
static size_t hier_bytes(const astar_grid *g, const struct astar_hierarchy *h) {
    size_t count = (size_t)h->cols * (size_t)h->rows;
    size_t bytes = sizeof *h + count * (sizeof *h->clusters + sizeof *h->base) + scratch_bytes(h);
    if (h->corridor) bytes += g->cells * sizeof *h->corridor;
    return bytes + (size_t)atomic_load(&h->table_bytes);
}

astar_status astar_grid_hierarchy_stats(const astar_grid *g, astar_hierarchy_stats *out) {
    memset(out, 0, sizeof *out);
    const struct astar_hierarchy *h = g->hierarchy;
    if (!h) return ASTAR_OK;
    out->cluster_size = h->size;
    out->clusters = h->cols * h->rows;
    out->diagonal = h->mode;
    out->entrances = atomic_load(&h->entrances);
    out->edges = atomic_load(&h->edges);
    out->dirty = (int32_t)atomic_load(&h->dirty);
    out->bytes = hier_bytes(g, h);
    for (int i = 0; i < ASTAR_MAX_SIZE - 1; i++) /* bigger units' tables: memory the grid holds */
        if (h->bigger[i]) out->bytes += hier_bytes(g, h->bigger[i]);
    return ASTAR_OK;
}

/* ----------------------------------------------------------- kept in step */

void astar_hier_mark(struct astar_hierarchy *h, int32_t k) {
    if (!h->clusters[k].dirty) atomic_fetch_add_explicit(&h->dirty, 1, memory_order_relaxed);
    h->clusters[k].dirty = true;
    h->stale = true;
}

int astar_hier_touched(const struct astar_hierarchy *h, const astar_grid *g, int32_t cell, int32_t out[5]) {
    int32_t y = cell / g->stride - 1, x = cell % g->stride - 1;
    int n = 0;
    out[n++] = astar_hier_cluster_of(h, x, y);
    /* A walkability change moves the runs along a border on both sides of it; a cost change of
     * a border cell moves a short run's cheapest crossing, which the cluster across reads too.
     * An inner cell's neighbours are in its own cluster: a cost there changes only its costs. */
    for (int d = 0; d < 4; d++) {
        int32_t nx = x + ASTAR_DX[d], ny = y + ASTAR_DY[d];
        if (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height) continue;
        int32_t k = astar_hier_cluster_of(h, nx, ny);
        if (k == out[0]) continue;
        out[n++] = k; /* each side's cluster differs from the others' */
    }
    return n;
}

static void touch(struct astar_hierarchy *h, const astar_grid *g, int32_t cell) {
    int32_t k[5];
    int n = astar_hier_touched(h, g, cell, k);
    for (int i = 0; i < n; i++) astar_hier_mark(h, k[i]);
}

void astar_hierarchy_cell_changed(astar_grid *g, int32_t cell, bool walkability) {
    (void)walkability; /* both kinds reach across a border (astar_hier_touched) */
    touch(g->hierarchy, g, cell);
    /* A bigger unit's: a cell is in the footprints of the n x n anchors up-left of it, whose
     * ground (clearance >= n) and entered costs are all it can change; each touches what a
     * cell of its own would. At most n^2 anchors, per size made. */
    int32_t y = cell / g->stride - 1, x = cell % g->stride - 1;
    for (int i = 0; i < ASTAR_MAX_SIZE - 1; i++) {
        struct astar_hierarchy *b = g->hierarchy->bigger[i];
        if (!b) continue;
        for (int32_t ay = y - b->unit + 1; ay <= y; ay++)
            for (int32_t ax = x - b->unit + 1; ax <= x; ax++)
                if (ax >= 0 && ay >= 0) touch(b, g, astar_cell(g->stride, ax, ay));
    }
}

static void all_dirty(struct astar_hierarchy *h) {
    for (int32_t k = 0; k < h->cols * h->rows; k++) h->clusters[k].dirty = true;
    atomic_store(&h->dirty, h->cols * h->rows);
    h->stale = true;
}

void astar_hierarchy_all_dirty(astar_grid *g) {
    all_dirty(g->hierarchy);
    for (int i = 0; i < ASTAR_MAX_SIZE - 1; i++)
        if (g->hierarchy->bigger[i]) all_dirty(g->hierarchy->bigger[i]);
}
