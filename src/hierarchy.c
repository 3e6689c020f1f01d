/*
 * HPA* tables (Botea, Mueller and Schaeffer 2004): the grid cut into clusters of size x size
 * cells, entrances where the terrain crosses a cluster's border, and per cluster the terrain
 * costs between its entrances. Kept in step by the grid (dirty clusters), rebuilt lazily.
 * The build runs in independent units, one per cluster (astar_hierarchy_build_cluster), so
 * that a host may spread them over threads or frames.
 */
#include "hierarchy.h"

#include <string.h>

/*
 * A maximal run of crossable cells along a border this long or longer gets a transition at
 * each end, a shorter one one in its middle (the paper's rule): the ends let a path hug the
 * run's corners instead of bending to its centre. A shorter run's one is its cheapest crossing
 * (terrain costs of the two cells), which both clusters agree on as they see the same run.
 */
#define ENTRANCE_SPLIT 6

/* ------------------------------------------------------------------ heap */

bool astar_hier_heap_push(astar_hier_heap *hp, const astar_alloc *a, double key, int32_t at) {
    if (hp->len == hp->cap) {
        int32_t cap = hp->cap ? 2 * hp->cap : 256;
        double *k = astar_mem(a, NULL, 0, (size_t)cap * sizeof *k);
        int32_t *i = k ? astar_mem(a, NULL, 0, (size_t)cap * sizeof *i) : NULL;
        if (!i) {
            astar_mem(a, k, k ? (size_t)cap * sizeof *k : 0, 0);
            return false;
        }
        int32_t len = hp->len;
        if (len) {
            memcpy(k, hp->key, (size_t)len * sizeof *k);
            memcpy(i, hp->at, (size_t)len * sizeof *i);
        }
        astar_hier_heap_free(hp, a);
        hp->key = k, hp->at = i, hp->cap = cap, hp->len = len;
    }
    int32_t n = hp->len++;
    while (n > 0) {
        int32_t p = (n - 1) / 2;
        if (!(key < hp->key[p])) break;
        hp->key[n] = hp->key[p];
        hp->at[n] = hp->at[p];
        n = p;
    }
    hp->key[n] = key;
    hp->at[n] = at;
    return true;
}

int32_t astar_hier_heap_pop(astar_hier_heap *hp, double *key) {
    if (hp->len == 0) return -1;
    int32_t top = hp->at[0];
    *key = hp->key[0];
    double k = hp->key[--hp->len];
    int32_t at = hp->at[hp->len];
    int32_t n = 0;
    for (;;) {
        int32_t c = 2 * n + 1;
        if (c >= hp->len) break;
        if (c + 1 < hp->len && hp->key[c + 1] < hp->key[c]) c++;
        if (!(hp->key[c] < k)) break;
        hp->key[n] = hp->key[c];
        hp->at[n] = hp->at[c];
        n = c;
    }
    hp->key[n] = k;
    hp->at[n] = at;
    return top;
}

void astar_hier_heap_free(astar_hier_heap *hp, const astar_alloc *a) {
    astar_mem(a, hp->key, (size_t)hp->cap * sizeof *hp->key, 0);
    astar_mem(a, hp->at, (size_t)hp->cap * sizeof *hp->at, 0);
    memset(hp, 0, sizeof *hp);
}

/* ------------------------------------------------------------- Dijkstra */

/* The step cost of search.h's astar_step_cost, which this file sits below. */
static double step_cost(double cost, int d) {
    return astar_cost_up(d < 4 ? cost : astar_rounded(ASTAR_SQRT2 * cost));
}

int64_t astar_hier_dijkstra(const astar_grid *g, struct astar_hierarchy *h, int32_t k, int32_t from,
                            bool backward, double *dist, astar_hier_heap *heap) {
    int32_t x0, y0, w, hh;
    astar_hier_bounds(h, g, k, &x0, &y0, &w, &hh);
    for (int32_t i = 0; i < w * hh; i++) dist[i] = INFINITY;
    const uint8_t *legal = g->legal[(int)h->mode];
    int32_t fy = from / g->stride - 1, fx = from % g->stride - 1;
    heap->len = 0;
    dist[(fy - y0) * w + (fx - x0)] = 0.0;
    if (!astar_hier_heap_push(heap, &h->alloc, 0.0, (fy - y0) * w + (fx - x0))) return -1;
    int64_t settled = 0;
    double key;
    int32_t at;
    while ((at = astar_hier_heap_pop(heap, &key)) >= 0) {
        if (key > dist[at]) continue;
        settled++;
        int32_t lx = at % w, ly = at / w;
        int32_t cell = astar_cell(g->stride, x0 + lx, y0 + ly);
        for (int d = 0; d < 8; d++) {
            int32_t nx = lx + (backward ? -ASTAR_DX[d] : ASTAR_DX[d]);
            int32_t ny = ly + (backward ? -ASTAR_DY[d] : ASTAR_DY[d]);
            if (nx < 0 || ny < 0 || nx >= w || ny >= hh) continue;
            int32_t other = astar_cell(g->stride, x0 + nx, y0 + ny);
            /* Forward: the move cell -> other; backward: other -> cell, entering cell. */
            int32_t mover = backward ? other : cell, entered = backward ? cell : other;
            if (backward && g->cost[other] == INFINITY) continue;
            if (!(legal[g->open[mover]] & (1u << d))) continue;
            double nd = key + step_cost(g->cost[entered], d);
            int32_t n = ny * w + nx;
            if (nd < dist[n]) {
                dist[n] = nd;
                if (!astar_hier_heap_push(heap, &h->alloc, nd, n)) return -1;
            }
        }
    }
    return settled;
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

/*
 * The entrances of cluster k: cells on its side d whose neighbour across (in the next
 * cluster) is walkable with them, one or two per maximal run. Both clusters of a border
 * see the same runs, so they agree on the transitions' positions without talking.
 * Returns how many (cell[], side[]), cell ascending, a cell on two sides merged.
 */
static int32_t entrances(const astar_grid *g, const struct astar_hierarchy *h, int32_t k, int32_t *cell,
                         uint8_t *side) {
    int32_t x0, y0, w, hh, n = 0;
    astar_hier_bounds(h, g, k, &x0, &y0, &w, &hh);
    for (int d = 0; d < 4; d++) {
        /* The side's first cell and the step along it. */
        int32_t len = d == 0 || d == 2 ? w : hh;
        int32_t sx = d == 1 ? x0 + w - 1 : x0, sy = d == 2 ? y0 + hh - 1 : y0;
        int32_t ax = sx + ASTAR_DX[d], ay = sy + ASTAR_DY[d];
        if (ax < 0 || ay < 0 || ax >= g->width || ay >= g->height) continue; /* the grid's edge */
        int32_t step = d == 0 || d == 2 ? 1 : g->stride;
        int32_t first = astar_cell(g->stride, sx, sy), across = astar_cell(g->stride, ax, ay) - first;
        int32_t run = -1;
        for (int32_t i = 0; i <= len; i++) {
            bool open = i < len && g->cost[first + i * step] != INFINITY &&
                        g->cost[first + i * step + across] != INFINITY;
            if (open && run < 0) run = i;
            if (open || run < 0) continue;
            int32_t last = i - 1;
            if (last - run + 1 >= ENTRANCE_SPLIT) {
                cell[n] = first + run * step, side[n++] = (uint8_t)(1u << d);
                cell[n] = first + last * step, side[n++] = (uint8_t)(1u << d);
            } else { /* the cheapest crossing, nearest the middle among equals */
                int32_t best = run + (last - run) / 2;
                double best_cost = INFINITY;
                for (int32_t j = run; j <= last; j++) {
                    int32_t at = first + j * step;
                    double c = g->cost[at] + g->cost[at + across];
                    int32_t off = 2 * j - (run + last), best_off = 2 * best - (run + last);
                    if (c < best_cost || (c == best_cost && (off < 0 ? -off : off) < (best_off < 0 ? -best_off : best_off)))
                        best = j, best_cost = c;
                }
                cell[n] = first + best * step, side[n++] = (uint8_t)(1u << d);
            }
            run = -1;
        }
    }
    for (int32_t i = 1; i < n; i++) { /* few: insertion sort */
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
           (size_t)h->local_cap * sizeof *h->local + 5 * (size_t)h->ends_cap * sizeof *h->from_start +
           (size_t)h->heap.cap * (sizeof *h->heap.key + sizeof *h->heap.at) +
           (size_t)h->guide_cap * (sizeof *h->guide_cell + sizeof *h->guide_rest) +
           (size_t)h->cand_cap * (sizeof *h->cand_node + sizeof *h->cand_next) +
           (h->cand_head ? (size_t)h->cols * (size_t)h->rows * (sizeof *h->cand_head + sizeof *h->cand_stamp) : 0);
}

void astar_hierarchy_free(astar_grid *g) {
    struct astar_hierarchy *h = g->hierarchy;
    if (!h) return;
    astar_alloc a = h->alloc;
    int32_t count = h->cols * h->rows;
    for (int32_t k = 0; k < count; k++) free_cluster(&a, &h->clusters[k]);
    astar_mem(&a, h->clusters, (size_t)count * sizeof *h->clusters, 0);
    astar_mem(&a, h->base, (size_t)count * sizeof *h->base, 0);
    astar_mem(&a, h->g, (size_t)h->scratch_nodes * sizeof *h->g, 0);
    astar_mem(&a, h->parent, (size_t)h->scratch_nodes * sizeof *h->parent, 0);
    astar_mem(&a, h->seen, (size_t)h->scratch_nodes * sizeof *h->seen, 0);
    astar_mem(&a, h->corridor, h->corridor ? g->cells * sizeof *h->corridor : 0, 0);
    astar_mem(&a, h->local, (size_t)h->local_cap * sizeof *h->local, 0);
    astar_mem(&a, h->from_start, 4 * (size_t)h->ends_cap * sizeof *h->from_start, 0);
    astar_mem(&a, h->to_goal, (size_t)h->ends_cap * sizeof *h->to_goal, 0);
    astar_hier_heap_free(&h->heap, &a);
    astar_mem(&a, h->guide_cell, (size_t)h->guide_cap * sizeof *h->guide_cell, 0);
    astar_mem(&a, h->guide_rest, (size_t)h->guide_cap * sizeof *h->guide_rest, 0);
    astar_mem(&a, h->cand_node, (size_t)h->cand_cap * sizeof *h->cand_node, 0);
    astar_mem(&a, h->cand_next, (size_t)h->cand_cap * sizeof *h->cand_next, 0);
    astar_mem(&a, h->cand_head, h->cand_head ? (size_t)count * sizeof *h->cand_head : 0, 0);
    astar_mem(&a, h->cand_stamp, h->cand_stamp ? (size_t)count * sizeof *h->cand_stamp : 0, 0);
    astar_mem(&a, h, sizeof *h, 0);
    g->hierarchy = NULL;
}

astar_status astar_hierarchy_begin(astar_grid *g, int32_t cluster_size) {
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
    astar_hierarchy_free(g);
    g->hierarchy = h;
    return ASTAR_OK;
}

int32_t astar_hierarchy_clusters(const astar_grid *g) {
    return g->hierarchy ? g->hierarchy->cols * g->hierarchy->rows : 0;
}

astar_status astar_hierarchy_build_cluster(astar_grid *g, int32_t k) {
    struct astar_hierarchy *h = g->hierarchy;
    if (!h || k < 0 || k >= h->cols * h->rows) return ASTAR_EINVAL;
    astar_hier_cluster *c = &h->clusters[k];
    const astar_alloc *a = &h->alloc;
    int32_t x0, y0, w, hh;
    astar_hier_bounds(h, g, k, &x0, &y0, &w, &hh);
    /* This unit's own scratch, so that units of other clusters may run at the same time. */
    size_t most = 4 * (size_t)h->size, local = (size_t)w * (size_t)hh;
    int32_t *cell = astar_mem(a, NULL, 0, most * sizeof *cell);
    uint8_t *side = cell ? astar_mem(a, NULL, 0, most) : NULL;
    double *dist = side ? astar_mem(a, NULL, 0, local * sizeof *dist) : NULL;
    astar_hier_heap heap = {0};
    astar_status st = dist ? ASTAR_OK : ASTAR_ENOMEM;
    int32_t n = st == ASTAR_OK ? entrances(g, h, k, cell, side) : 0;
    int32_t *keep_cell = NULL;
    uint8_t *keep_side = NULL;
    double *table = NULL;
    if (st == ASTAR_OK && n > 0) {
        keep_cell = astar_mem(a, NULL, 0, (size_t)n * sizeof *keep_cell);
        keep_side = keep_cell ? astar_mem(a, NULL, 0, (size_t)n) : NULL;
        table = keep_side ? astar_mem(a, NULL, 0, (size_t)n * (size_t)n * sizeof *table) : NULL;
        if (!table) st = ASTAR_ENOMEM;
    }
    for (int32_t i = 0; st == ASTAR_OK && i < n; i++) {
        if (astar_hier_dijkstra(g, h, k, cell[i], false, dist, &heap) < 0) {
            st = ASTAR_ENOMEM;
            break;
        }
        for (int32_t j = 0; j < n; j++) {
            int32_t jy = cell[j] / g->stride - 1, jx = cell[j] % g->stride - 1;
            table[(size_t)i * n + j] = dist[(jy - y0) * w + (jx - x0)];
        }
    }
    if (st == ASTAR_OK) {
        free_cluster(a, c);
        if (n > 0) {
            memcpy(keep_cell, cell, (size_t)n * sizeof *cell);
            memcpy(keep_side, side, (size_t)n);
        }
        c->cell = keep_cell, c->sides = keep_side, c->dist = table, c->n = n;
        c->dirty = false;
    } else {
        astar_mem(a, keep_cell, keep_cell ? (size_t)n * sizeof *keep_cell : 0, 0);
        astar_mem(a, keep_side, keep_side ? (size_t)n : 0, 0);
        astar_mem(a, table, table ? (size_t)n * (size_t)n * sizeof *table : 0, 0);
    }
    astar_hier_heap_free(&heap, a);
    astar_mem(a, dist, dist ? local * sizeof *dist : 0, 0);
    astar_mem(a, side, side ? most : 0, 0);
    astar_mem(a, cell, cell ? most * sizeof *cell : 0, 0);
    return st;
}

astar_status astar_hierarchy_finish(astar_grid *g) {
    struct astar_hierarchy *h = g->hierarchy;
    if (!h) return ASTAR_EINVAL;
    int32_t count = h->cols * h->rows, nodes = 0;
    bool dirty = false;
    for (int32_t k = 0; k < count; k++) {
        h->base[k] = nodes;
        nodes += h->clusters[k].n;
        dirty = dirty || h->clusters[k].dirty;
    }
    h->nodes = nodes;
    h->stale = dirty;
    return ASTAR_OK;
}

astar_status astar_hierarchy_refresh(astar_grid *g) {
    struct astar_hierarchy *h = g->hierarchy;
    if (!h->stale) return ASTAR_OK;
    int32_t count = h->cols * h->rows;
    for (int32_t k = 0; k < count; k++) {
        if (!h->clusters[k].dirty) continue;
        astar_status st = astar_hierarchy_build_cluster(g, k);
        if (st != ASTAR_OK) return st;
    }
    return astar_hierarchy_finish(g);
}

astar_status astar_grid_hierarchy(astar_grid *g, int32_t cluster_size) {
    if (cluster_size == 0) {
        astar_hierarchy_free(g);
        return ASTAR_OK;
    }
    astar_status st = astar_hierarchy_begin(g, cluster_size);
    if (st != ASTAR_OK) return st;
    for (int32_t k = 0; k < astar_hierarchy_clusters(g) && st == ASTAR_OK; k++)
        st = astar_hierarchy_build_cluster(g, k);
    if (st != ASTAR_OK) {
        astar_hierarchy_free(g);
        return st;
    }
    return astar_hierarchy_finish(g);
}

astar_status astar_grid_hierarchy_stats(const astar_grid *g, astar_hierarchy_stats *out) {
    memset(out, 0, sizeof *out);
    const struct astar_hierarchy *h = g->hierarchy;
    if (!h) return ASTAR_OK;
    int32_t count = h->cols * h->rows;
    out->cluster_size = h->size;
    out->clusters = count;
    out->diagonal = h->mode;
    size_t bytes = sizeof *h + (size_t)count * (sizeof *h->clusters + sizeof *h->base) + scratch_bytes(h);
    if (h->corridor) bytes += g->cells * sizeof *h->corridor;
    for (int32_t k = 0; k < count; k++) {
        const astar_hier_cluster *c = &h->clusters[k];
        out->entrances += c->n;
        out->dirty += c->dirty;
        for (int32_t i = 0; i < c->n * c->n; i++) out->edges += c->dist[i] != INFINITY && i % (c->n + 1);
        for (int32_t i = 0; i < c->n; i++)
            for (int d = 0; d < 4; d++) out->edges += (c->sides[i] >> d) & 1u;
        bytes += (size_t)c->n * (sizeof *c->cell + 1) + (size_t)c->n * (size_t)c->n * sizeof *c->dist;
    }
    out->bytes = bytes;
    return ASTAR_OK;
}

/* ----------------------------------------------------------- kept in step */

static void mark(struct astar_hierarchy *h, int32_t k) {
    h->clusters[k].dirty = true;
    h->stale = true;
}

void astar_hierarchy_cell_changed(astar_grid *g, int32_t cell, bool walkability) {
    struct astar_hierarchy *h = g->hierarchy;
    int32_t y = cell / g->stride - 1, x = cell % g->stride - 1;
    mark(h, astar_hier_cluster_of(h, x, y));
    if (!walkability) return; /* a cost: only its own cluster's inner costs change */
    /* Runs along a border change on both sides of it. */
    for (int d = 0; d < 4; d++) {
        int32_t nx = x + ASTAR_DX[d], ny = y + ASTAR_DY[d];
        if (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height) continue;
        mark(h, astar_hier_cluster_of(h, nx, ny));
    }
}

void astar_hierarchy_all_dirty(astar_grid *g) {
    struct astar_hierarchy *h = g->hierarchy;
    for (int32_t k = 0; k < h->cols * h->rows; k++) h->clusters[k].dirty = true;
    h->stale = true;
}
