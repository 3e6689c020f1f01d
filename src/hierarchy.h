/*
 * The two-tier search's tables (hierarchy.c; searched by hier_find.c): HPA* clusters of the
 * grid's terrain, their entrances and the terrain costs between the entrances of each
 * cluster. Below the grid, like islands and landmarks: the grid marks the clusters a terrain
 * write touches dirty, and they are rebuilt on the next hierarchical query.
 */
#ifndef ASTAR_HIERARCHY_H
#define ASTAR_HIERARCHY_H

#include "grid.h"
#include "nodes.h"

#include <stdatomic.h>

/* One cluster: its entrance cells and the costs between them, within the cluster. */
typedef struct astar_hier_cluster {
    int32_t *cell;      /* entrance cells (grid cells with the border), ascending */
    uint8_t *sides;     /* per entrance, bit d (0..3): it crosses to the cluster in direction d */
    double *dist;       /* n * n: dist[i * n + j], the terrain cost i -> j inside the cluster,
                           INFINITY where the cluster does not connect them */
    int32_t n;
    int64_t edges;      /* its abstract arcs: pairs its table connects, crossings of its border */
    bool dirty;         /* its terrain changed since it was built (or it never was) */
} astar_hier_cluster;

struct astar_hierarchy {
    int32_t size;               /* cluster side in cells */
    int32_t unit;               /* the unit's side its tables are for: 1 over walkable cells,
                                   n > 1 over the anchors a unit of n fits on (HAA*: entrances
                                   and costs per size, docs/design/clearance.md) */
    /* On the grid's own (unit 1) hierarchy: those of bigger units, [n - 2] for n, each made by
     * the first two-tier query of that size with the same clusters and mode; NULL: none yet.
     * They go with it (a new build of the grid's hierarchy drops them). */
    struct astar_hierarchy *bigger[ASTAR_MAX_SIZE - 1];
    int32_t cols, rows;         /* clusters across and down */
    astar_diagonal mode;        /* the moves its costs were measured under */
    astar_hier_cluster *clusters;
    bool stale;                 /* a cluster is dirty, or numbering (base) is out of date */
    int32_t *base;              /* per cluster, its first node in the abstract graph's numbering */
    int32_t nodes;              /* entrances in all: the abstract graph's nodes */
    /* The sums astar_grid_hierarchy_stats reports, kept as clusters are built and marked dirty
     * (a call reads them, no pass over the tables: a script may call it in a loop); atomic, as
     * distinct clusters may be built on threads at once. */
    atomic_int_fast64_t entrances, edges, table_bytes;
    atomic_int_fast32_t dirty;
    /* The query's scratch (hier_find.c), grown on need. */
    double *g;                  /* per abstract node (+ start and goal): cost so far */
    int32_t *parent;
    uint32_t *seen;             /* per abstract node: the query stamp when g is valid */
    uint32_t stamp;
    int32_t scratch_nodes;      /* what g, parent and seen hold */
    uint16_t *corridor;         /* per grid cell: corridor_gen when inside this query's corridor */
    uint16_t corridor_gen;
    astar_pool local;           /* a cluster's cells (astar_hier_local): the insertions' Dijkstras */
    double *from_start;         /* per entrance of the start's cluster, then (a blocked start's
                                   first step may cross a border) of up to 3 more: ends_cap each */
    int32_t start_cluster[4], start_clusters;
    double *to_goal;            /* per entrance of the goal's cluster */
    int32_t ends_cap;
    astar_lazy_heap heap;       /* the abstract search's (nodes.h says why not the pool's) */
    /* The refinement's guide: the abstract path's nodes (cell, cost still to come along it),
     * and per cluster a list of those in it or around it (guide_head, stamped per query). */
    int32_t *guide_cell;
    double *guide_rest;
    int32_t guide_cap;
    int32_t *cand_node, *cand_next;
    int32_t cand_cap;
    int32_t *cand_head;         /* per cluster */
    uint32_t *cand_stamp;       /* per cluster */
    astar_alloc alloc;
};

/* Whether a cell is ground for h's unit: walkable, or an anchor the unit fits on. */
static inline bool astar_hier_ground(const astar_grid *g, const struct astar_hierarchy *h, int32_t cell) {
    return h->unit <= 1 ? g->cost[cell] != INFINITY : g->clearance[cell] >= h->unit;
}

/* The moves from a cell under h's mode for h's unit: for a bigger unit the side anchors take
 * the side cells' part in the diagonal rule, as in a query (grid_cost.c's terrain_bits). */
static inline unsigned astar_hier_moves(const astar_grid *g, const struct astar_hierarchy *h, int32_t cell) {
    const uint8_t *legal = g->legal[(int)h->mode];
    if (h->unit <= 1) return legal[g->open[cell]];
    unsigned bits = 0;
    for (int d = 0; d < 8; d++)
        bits |= (unsigned)(g->clearance[cell + ASTAR_DY[d] * g->stride + ASTAR_DX[d]] >= h->unit) << d;
    return legal[bits];
}

/* The terrain a step in direction d onto cell b pays for h's unit: b's own, or for a bigger
 * unit the dearest of the cells its footprint newly covers (a query reads the same rule through
 * what it sees of the terrain: astar_entered_cost, search.h). */
static inline double astar_hier_entered(const astar_grid *g, const struct astar_hierarchy *h, int32_t b, int d) {
    if (h->unit <= 1) return g->cost[b];
    int32_t n = h->unit, dx = ASTAR_DX[d], dy = ASTAR_DY[d];
    int32_t col = b + (dx > 0 ? n - 1 : 0), row = b + (dy > 0 ? (n - 1) * g->stride : 0);
    double dearest = 0.0;
    for (int32_t i = 0; i < n; i++) {
        double t = dx ? g->cost[col + i * g->stride] : 0.0, u = dy ? g->cost[row + i] : 0.0;
        if (t > dearest) dearest = t;
        if (u > dearest) dearest = u;
    }
    return dearest;
}

/* Cluster k's first cell column and row, and its size (the last ones may be cut short). */
static inline void astar_hier_bounds(const struct astar_hierarchy *h, const astar_grid *g, int32_t k,
                                     int32_t *x0, int32_t *y0, int32_t *w, int32_t *hh) {
    *x0 = (k % h->cols) * h->size;
    *y0 = (k / h->cols) * h->size;
    *w = g->width - *x0 < h->size ? g->width - *x0 : h->size;
    *hh = g->height - *y0 < h->size ? g->height - *y0 : h->size;
}

/* The local id of grid cell `cell` among cluster k's cells, row by row: a cluster's Dijkstras
 * run on a pool of its cells, not of the map's. */
static inline int32_t astar_hier_local(const struct astar_hierarchy *h, const astar_grid *g, int32_t k,
                                       int32_t cell) {
    int32_t x0, y0, w, hh;
    astar_hier_bounds(h, g, k, &x0, &y0, &w, &hh);
    return (cell / g->stride - 1 - y0) * w + (cell % g->stride - 1 - x0);
}

/* The cluster of a cell at 0-based (x, y). */
static inline int32_t astar_hier_cluster_of(const struct astar_hierarchy *h, int32_t x, int32_t y) {
    return (y / h->size) * h->cols + x / h->size;
}

/* The clusters of h a change of `cell` (its walkability or its cost) dirties, each once, into
 * out (at most 5); how many. */
int astar_hier_touched(const struct astar_hierarchy *h, const astar_grid *g, int32_t cell, int32_t out[5]);
/* Marks cluster k of h dirty (to be built again). */
void astar_hier_mark(struct astar_hierarchy *h, int32_t k);
/* Keeps the hierarchy in step with one cell's terrain change (walkability or only its cost). */
void astar_hierarchy_cell_changed(astar_grid *g, int32_t cell, bool walkability);
/* After a bulk write: every cluster dirty. */
void astar_hierarchy_all_dirty(astar_grid *g);
void astar_hierarchy_free(astar_grid *g);
/* A hierarchy for g not yet on it (every cluster dirty), and its freeing (hier_build.c keeps
 * one aside until it is complete). */
astar_status astar_hierarchy_make(const astar_grid *g, int32_t cluster_size, struct astar_hierarchy **out);
void astar_hierarchy_destroy(const astar_grid *g, struct astar_hierarchy *h);
/* Numbers the entrances (base, nodes) after clusters were built; stale if any is dirty. */
void astar_hierarchy_number(struct astar_hierarchy *h);

/*
 * The building of one cluster in resumable pieces: its entrances (a scan of its border),
 * then a Dijkstra from each and its row of the table. It writes only cluster k and its own
 * scratch, allocating through the allocator it is given (on threads, a locked one).
 */
typedef struct astar_hier_job {
    int32_t k;
    int stage;
    int side;                   /* the scan: its side, position and open run in progress */
    int32_t at, run;
    int32_t *cell;              /* the entrances found (most: 4 x the cluster size) */
    uint8_t *side_of;
    int32_t found, most, n;     /* n: after the sort and merge */
    int32_t *keep_cell;         /* the cluster's tables, handed over when the job finishes */
    uint8_t *keep_side;
    double *table;
    astar_pool pool;            /* the Dijkstra's, over the cluster's cells (astar_hier_local) */
    int32_t source;             /* the entrance the Dijkstra in progress starts from */
    int32_t cursor;             /* the fill's or the copy's position */
} astar_hier_job;

void astar_hier_job_init(astar_hier_job *j, int32_t k);
/* At most `budget` units (*used): ASTAR_RUNNING, ASTAR_OK (cluster k built and clean) or
 * ASTAR_ENOMEM (the job dropped, cluster k untouched). A unit: a Dijkstra's pop, or 8 cells
 * of the scan or copy; the sort and allocation of the tables one. */
astar_status astar_hier_job_run(const astar_grid *g, struct astar_hierarchy *h, astar_hier_job *j,
                                const astar_alloc *a, uint64_t budget, uint64_t *used);
/* Frees what the job holds and makes it start over. */
void astar_hier_job_drop(astar_hier_job *j, const astar_alloc *a);
/* Rebuilds h's dirty clusters and the numbering; ASTAR_ENOMEM leaves it stale but usable. */
astar_status astar_hierarchy_refresh(astar_grid *g, struct astar_hierarchy *h);
/* The hierarchy a two-tier query of a unit of `unit` cells reads (the grid's for 1; for more,
 * the one of that size, made on first need with the grid's clusters and mode, every cluster
 * dirty, after the clearance table), not yet refreshed. */
astar_status astar_hierarchy_sized(astar_grid *g, int32_t unit, struct astar_hierarchy **out);

/*
 * Terrain costs inside cluster k from cell `from` (backward: to it) under the hierarchy's
 * mode, on pool (at least the cluster's cells): astar_pool_g(pool, astar_hier_local(...)).
 * Returns the cells settled; -1 on OOM.
 */
int64_t astar_hier_dijkstra(const astar_grid *g, struct astar_hierarchy *h, int32_t k, int32_t from,
                            bool backward, astar_pool *pool);
/* The query scratch (hier_find.c), sized for this grid's abstract graph and clusters; false
 * on OOM. Made by the first hierarchical query, or ahead by astar_grid_prepare_hierarchy. */
bool astar_hier_scratch(astar_grid *g, struct astar_hierarchy *h);
/* Index of an entrance cell in cluster c, or -1. */
int32_t astar_hier_find_entrance(const astar_hier_cluster *c, int32_t cell);

#endif
