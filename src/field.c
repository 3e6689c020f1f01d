/* Distance fields: Dijkstra from (or toward) many sources over a grid query's costs. */
#include "loop.h"
#include "search.h"

#include <stdlib.h>
#include <string.h>

/*
 * A field keeps what its last build reached, in one of two forms chosen by the build: dense
 * (dist and next per node id of the whole grid) when the search settled a good part of the
 * map, so that a flow field answers in O(1); sparse (the reached node ids ascending, dist and
 * next beside them, found by binary search) otherwise, so that a range or a small field costs
 * what it reached, not the map (issue 27). Unbuilt, it is sparse and empty.
 */
struct astar_field {
    int32_t width, height;
    astar_field_kind kind;
    bool dense;
    double *dist;           /* cost to (TO) or from (FROM) the sources; INFINITY (dense only) */
    int8_t *next;           /* the direction of the next step toward the sources (TO: along the
                               way to a goal; FROM: back toward the start); -1 */
    int32_t *ids;           /* sparse: the node ids kept, ascending */
    int32_t reached;        /* cells reached: the entries of a sparse field */
    astar_alloc alloc;
};

/* A dense field is built when the search expanded at least one node per DENSE_SHARE cells of
 * the map: the whole-map pass that writes it (about 1 ns a cell) then costs at most that many
 * times the search's own pops; below, the sparse listing (a flood of 9 reads per cell kept, a
 * sort and a copy: some 60 ns a cell kept, measured on Paris_0_1024) costs about what the pass
 * would, about 1 ms at most on 1024x1024. At 1 in 8 the listing took 7.9 ms. */
#define DENSE_SHARE 64

/* The entries of f's arrays. */
static size_t storage_cells(const astar_field *f) {
    return f->dense ? (size_t)f->width * (size_t)f->height : (size_t)f->reached;
}

static void storage_free(astar_field *f) {
    size_t n = storage_cells(f);
    astar_mem(&f->alloc, f->dist, n * sizeof *f->dist, 0);
    astar_mem(&f->alloc, f->next, n, 0);
    astar_mem(&f->alloc, f->ids, f->dense ? 0 : n * sizeof *f->ids, 0);
    f->dist = NULL;
    f->next = NULL;
    f->ids = NULL;
}

/* Nothing per cell: a build allocates what it keeps (so a constructor counts no cells). */
astar_field *astar_field_new(int32_t width, int32_t height, const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return astar_made(NULL, ASTAR_EINVAL);
    astar_alloc a;
    astar_field *f = astar_new_zeroed(alloc, sizeof *f, &a);
    if (!f) return astar_made(NULL, ASTAR_ENOMEM);
    f->alloc = a;
    f->width = width;
    f->height = height;
    return astar_made(f, ASTAR_OK);
}

void astar_field_free(astar_field *f) {
    if (!f) return;
    astar_alloc a = f->alloc;
    storage_free(f);
    astar_mem(&a, f, sizeof *f, 0);
}

/*
 * Dijkstra backward from the goals: a node's g is its cost to the nearest goal,
 * its `from` the direction of its first step. The steps into a settled node b
 * are tried from each neighbour p that may legally move to b, at what the step
 * p -> b costs a unit walking it (b's terrain and penalties, edge_cost(b, p)).
 * A blocked node gets a distance (a unit may stand there and leave it) but no
 * way leads through it, so it is never queued: its best offer is simply kept.
 * It runs as the loop's space (loop.h) that settles all it reaches: no arrival, no
 * heuristic, no path.
 */
typedef struct toward_frame {
    query_ctx *c;
    bool terrain_only;  /* terrain alone decides the moves and adds nothing: the grid's tables answer */
    bool extras;        /* penalties or edge_cost add to the terrain's steps */
} toward_frame;

static ALWAYS_INLINE int toward_expand(void *ctx, astar_loop *L, astar_node *nodes, uint16_t gen, bool *pruned,
                                       int32_t b, int32_t node, bool upper, double gb, int64_t gb_quanta) {
    const toward_frame *f = ctx;
    query_ctx *c = f->c;
    const bool terrain_only = f->terrain_only, extras = f->extras;
    (void)nodes, (void)gen, (void)pruned, (void)node, (void)upper, (void)gb_quanta;
    int32_t by = astar_row_of(c, b) - 1, bx = b - (by + 1) * c->stride - 1;
    for (int d = 0; d < 8; d++) { /* p steps in direction d onto b */
        int32_t p = b - c->offset[d], px = bx - ASTAR_DX[d], py = by - ASTAR_DY[d];
        if (px < 0 || py < 0 || px >= c->g->width || py >= c->g->height) continue;
        astar_node *n = astar_touch(c, p);
        if (n->heap == ASTAR_CLOSED && astar_walkable(c, p, px, py)) continue; /* settled */
        unsigned moves = terrain_only ? astar_legal_row(c->g, c->diagonal, py)[c->g->open[p]]
                                      : astar_query_moves(c, p, px, py);
        if (c->aborted) return ASTAR_OFFER_EABORT;
        if (!(moves >> d & 1u)) continue;
        double extra = extras ? astar_step_extra(c, p, px, py, b, bx, by, 0) : 0.0;
        if (c->aborted) return ASTAR_OFFER_EABORT;
        if (extra == INFINITY) continue;
        /* The step's cost as the search loop composes it (no turns: fields refuse them). */
        double ng = gb + astar_grid_step(c, b, d, extra, false);
        if (!(ng < n->g) || ng > L->max_cost) continue;
        n->g = ng;
        n->from = (uint8_t)d;
        bool stand_only = !astar_walkable(c, p, px, py);
        if (c->aborted) return ASTAR_OFFER_EABORT;
        if (stand_only) continue;
        if (!astar_pool_open(L->pool, L->alloc, n, p, ng, 0.0)) return ASTAR_OFFER_ENOMEM;
    }
    return ASTAR_OFFER_DONE;
}

/* Callbacks (node_cost, edge_cost) may run other queries or longjmp: charged ahead then (the
 * general space, loop.h). */
static const astar_space TOWARD = {false, false, NULL, NULL, NULL, NULL, NULL, NULL, toward_expand};
static const astar_space TOWARD_AHEAD = {true, false, NULL, NULL, NULL, NULL, NULL, NULL, toward_expand};

static astar_status run_toward(query_ctx *c, uint64_t budget, astar_result *res) {
    astar_search *s = c->s;
    astar_loop L = {&s->pool, &s->alloc, &s->path, NULL, NULL, NULL, NULL, 0, 0.0, false, 0, false, false,
                    c->q->max_cost, 1.0, c->q->max_expansions, &c->meter, c->expansions, false, c->start, 0,
                    INFINITY, 0.0};
    /* (a class the query walls is a wall the grid's tables do not know; a bigger unit's moves
     * come from the clearance table, not the grid's bits) */
    toward_frame f = {c, !c->q->node_cost && !c->q->known && !c->class_walls && c->size <= 1,
                      c->penalties || c->q->edge_cost};
    astar_status st = c->q->node_cost || c->q->edge_cost ? astar_loop_run(&TOWARD_AHEAD, &f, &L, budget, res)
                                                         : astar_loop_run(&TOWARD, &f, &L, budget, res);
    c->expansions = L.expansions; /* where a paused slice left off */
    return st;
}

/* The checks of a field's query and sources, and its context on s (c) with the sources
 * queued. fq is the field's own query (no heuristic, goal = start), alive as long as c. */
static astar_status field_setup(query_ctx *c, astar_search *s, astar_grid *g, const astar_query *fq,
                                const int32_t *cells, int32_t ncells, astar_field_kind kind) {
    s->path.len = 0;
    s->job_live = false; /* the workspace is this build's now */
    if (ncells < 1 || !cells || (kind != ASTAR_FIELD_TO && kind != ASTAR_FIELD_FROM) ||
        fq->weight != 1.0 || fq->partial || fq->ntargets || fq->turn_penalty > 0 || fq->claim_window >= 0)
        return ASTAR_EINVAL;
    for (int32_t i = 0; i < ncells; i++)
        if (cells[i] < 0 || cells[i] / g->width >= g->height) return ASTAR_EINVAL;
    bool callbacks;
    astar_status st = astar_query_begin(c, s, g, fq, true, &callbacks);
    if (st != ASTAR_OK) return st;
    c->goal = -1; /* FROM: the loop settles every node it can reach */
    c->goal_open = false;
    for (int32_t i = 0; i < ncells; i++) {
        int32_t x = cells[i] % g->width, y = cells[i] / g->width, cell = astar_cell(g->stride, x, y);
        /* A goal a unit cannot stand on is no goal (find says "unreachable"); a start is
         * where the unit stands, blocked or not. */
        if (kind == ASTAR_FIELD_TO && !astar_walkable(c, cell, x, y)) continue;
        astar_node *n = astar_touch(c, cell);
        if (n->g == 0.0) continue; /* listed twice */
        n->g = 0.0;
        n->from = ASTAR_FROM_START;
        if (!astar_pool_open(&s->pool, &s->alloc, n, cell, 0.0, 0.0)) return ASTAR_ENOMEM;
    }
    if (c->aborted) return ASTAR_EABORT;
    int32_t first = astar_cell(g->stride, cells[0] % g->width, cells[0] / g->width);
    c->start = c->best = first;
    c->best_h = INFINITY;
    return ASTAR_OK;
}

/* Runs a set-up field for up to `budget` expansions, charged to p: ASTAR_RUNNING, ASTAR_OK
 * (nothing left open), ASTAR_LIMIT (max_cost or max_expansions left some open), or an error. */
static astar_status field_run(query_ctx *c, astar_field_kind kind, uint64_t budget, astar_progress *p,
                              astar_result *res) {
    c->meter = astar_meter_begin(p, c->expansions);
    astar_status st = kind == ASTAR_FIELD_TO ? run_toward(c, budget, res) : astar_run_general(c, budget, res);
    astar_meter_sync(&c->meter, res->expansions);
    if (st == ASTAR_RUNNING) return st;
    if (st != ASTAR_OK && st != ASTAR_UNREACHABLE && st != ASTAR_LIMIT) return st;
    /* Done when nothing is left open; max_cost only leaves dearer nodes out. */
    return c->s->pool.heap.len > 0 ? ASTAR_LIMIT : ASTAR_OK;
}

astar_status astar_field_begin(astar_search *s, astar_grid *g, const astar_query *q, int32_t id,
                               astar_field_kind kind) {
    if (q->heuristic != ASTAR_H_ZERO || q->gx != q->sx || q->gy != q->sy) return ASTAR_EINVAL;
    return field_setup(&s->job, s, g, q, &id, 1, kind);
}

astar_status astar_field_continue(astar_search *s, astar_field_kind kind, uint64_t budget,
                                  uint64_t *expanded) {
    query_ctx *c = &s->job;
    uint64_t before = c->expansions;
    astar_result res;
    astar_result_init(&res);
    /* A build's Dijkstra: its budget counts it (build.c charges the progress handler). */
    astar_status st = field_run(c, kind, budget, astar_progress_none(), &res);
    *expanded = res.expansions - before;
    c->expansions = res.expansions;
    return st;
}

/* Whether the build keeps node `cell` (x, y) of its finished search c: settled (closed, or
 * blocked with a distance), and for TO not a cell that only took offers dearer than the
 * cheapest still open (its walkability was worked out when it took them: no callback). */
static bool settled_at(query_ctx *c, int32_t cell, int32_t x, int32_t y, astar_field_kind kind,
                       double open_min) {
    const astar_node *n = &c->s->pool.nodes[cell];
    if (n->gen != c->s->pool.gen || n->heap >= 0 || n->g == INFINITY) return false;
    return !(kind == ASTAR_FIELD_TO && n->g > open_min && !astar_walkable(c, cell, x, y));
}

/* The direction a field keeps for a settled record: toward the sources. */
static int8_t kept_next(const astar_node *n, astar_field_kind kind) {
    if (n->from == ASTAR_FROM_START) return -1;
    return (int8_t)(kind == ASTAR_FIELD_TO ? n->from : n->from ^ 2);
}

/* Replaces f's storage by the arrays given (f's are freed): what a build does last. */
static void keep(astar_field *f, bool dense, double *dist, int8_t *next, int32_t *ids, int32_t reached) {
    storage_free(f);
    f->dense = dense;
    f->dist = dist;
    f->next = next;
    f->ids = ids;
    f->reached = reached;
}

/* Whether a build whose search made `expansions` keeps f dense: when it expanded at least one
 * node per DENSE_SHARE cells of the map. */
static bool keeps_dense(const astar_field *f, uint64_t expansions) {
    return expansions * DENSE_SHARE >= (uint64_t)f->width * (uint64_t)f->height;
}

/* Makes f dense with nothing written yet: write_cells then writes every cell once. f is as it
 * was on ASTAR_ENOMEM. */
static astar_status dense_storage(astar_field *f) {
    size_t n = (size_t)f->width * (size_t)f->height;
    double *dist = astar_mem(&f->alloc, NULL, 0, n * sizeof *dist);
    int8_t *next = dist ? astar_mem(&f->alloc, NULL, 0, n) : NULL;
    if (!next) {
        astar_mem(&f->alloc, dist, dist ? n * sizeof *dist : 0, 0);
        return ASTAR_ENOMEM;
    }
    keep(f, true, dist, next, NULL, 0);
    return ASTAR_OK;
}

/* Writes cells [from, to) of node ids of dense f from the ended search c (what settled_at
 * keeps), counting those reached: the one pass a build makes at once and a job in slices. Walks
 * the rows without a division per cell. */
static void write_cells(astar_field *f, query_ctx *c, astar_field_kind kind, double open_min, int32_t from,
                        int32_t to) {
    const astar_node *nodes = c->s->pool.nodes;
    const int32_t width = f->width;
    int32_t x = from % width, y = from / width, cell = astar_cell(c->stride, x, y);
    for (int32_t id = from; id < to; id++, cell++, x++) {
        if (x == width) { /* the next row, past the border's two cells */
            x = 0;
            y++;
            cell += 2;
        }
        bool settled = settled_at(c, cell, x, y, kind, open_min);
        f->dist[id] = settled ? nodes[cell].g : INFINITY;
        f->next[id] = settled ? kept_next(&nodes[cell], kind) : -1;
        f->reached += settled;
    }
}

/* f dense, from a pass over the map: a unit per cell, counted before f changes. */
static astar_status keep_dense(astar_field *f, query_ctx *c, astar_field_kind kind, double open_min,
                               astar_progress *p) {
    if (astar_progress_charge(p, (uint64_t)f->width * (uint64_t)f->height)) return ASTAR_ESTOPPED;
    astar_status st = dense_storage(f);
    if (st == ASTAR_OK) write_cells(f, c, kind, open_min, 0, f->width * f->height);
    return st;
}

static int compare_ids(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* A settled record the flood of keep_sparse has listed (still "not open": heap < 0). */
#define LISTED (-3)

/* Takes the marks of the flood off the cells of list (back to "closed": heap < 0 as before,
 * which is all settled_at reads), and frees it: a flood that failed leaves the workspace's
 * records as the search left them, so that a field job's next step can list them again. */
static astar_status unlist(astar_field *f, astar_node *nodes, int32_t *list, int32_t len, int32_t cap,
                           astar_status st) {
    for (int32_t i = 0; i < len; i++) nodes[list[i]].heap = ASTAR_CLOSED;
    astar_mem(&f->alloc, list, (size_t)cap * sizeof *list, 0);
    return st;
}

/*
 * f sparse: the settled nodes found by a flood from the sources over settled neighbours (every
 * settled node is: a closed one's way in runs through closed nodes to a source, and a blocked
 * one with a distance took it from a closed neighbour), listed as they are met and marked in
 * the workspace's records (LISTED: the search is over), then sorted by node id. A unit per
 * cell kept, counted before f changes; work and memory in proportion to the cells kept.
 */
static astar_status keep_sparse(astar_field *f, query_ctx *c, astar_field_kind kind, double open_min,
                                const int32_t *sources, int32_t nsources, astar_progress *p) {
    const astar_grid *g = c->g;
    astar_node *nodes = c->s->pool.nodes;
    int32_t len = 0, cap = 64;
    int32_t *list = astar_mem(&f->alloc, NULL, 0, (size_t)cap * sizeof *list);
    if (!list) return ASTAR_ENOMEM;
    for (int32_t i = -nsources; i < len; i++) { /* the sources first, then what they lead to */
        int32_t x, y, cell;
        if (i < 0) {
            x = sources[i + nsources] % g->width, y = sources[i + nsources] / g->width;
            cell = astar_cell(g->stride, x, y);
        } else {
            cell = list[i], y = astar_row_of(c, cell) - 1, x = cell - (y + 1) * c->stride - 1;
        }
        for (int d = i < 0 ? -1 : 0, end = i < 0 ? 0 : 8; d < end; d++) { /* d = -1: the source itself */
            int32_t nx = d < 0 ? x : x + ASTAR_DX[d], ny = d < 0 ? y : y + ASTAR_DY[d];
            if (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height) continue;
            int32_t n = d < 0 ? cell : cell + c->offset[d];
            if (nodes[n].heap == LISTED || !settled_at(c, n, nx, ny, kind, open_min)) continue;
            if (len == cap) {
                int32_t *more = cap <= INT32_MAX / 2
                                    ? astar_mem(&f->alloc, list, (size_t)cap * sizeof *list, (size_t)cap * 2 * sizeof *list)
                                    : NULL;
                if (!more) return unlist(f, nodes, list, len, cap, ASTAR_ENOMEM);
                list = more;
                cap *= 2;
            }
            nodes[n].heap = LISTED;
            list[len++] = n;
        }
    }
    if (astar_progress_charge(p, (uint64_t)len)) return unlist(f, nodes, list, len, cap, ASTAR_ESTOPPED);
    double *dist = len > 0 ? astar_mem(&f->alloc, NULL, 0, (size_t)len * sizeof *dist) : NULL;
    int8_t *next = dist ? astar_mem(&f->alloc, NULL, 0, (size_t)len) : NULL;
    if (len > 0 && !next) {
        astar_mem(&f->alloc, dist, dist ? (size_t)len * sizeof *dist : 0, 0);
        return unlist(f, nodes, list, len, cap, ASTAR_ENOMEM);
    }
    /* To the field's node ids (y * width + x), ascending. */
    for (int32_t i = 0; i < len; i++) {
        int32_t y = astar_row_of(c, list[i]) - 1;
        list[i] = y * g->width + (list[i] - (y + 1) * c->stride - 1);
    }
    qsort(list, (size_t)len, sizeof *list, compare_ids);
    for (int32_t i = 0; i < len; i++) {
        const astar_node *n = &nodes[astar_cell(g->stride, list[i] % g->width, list[i] / g->width)];
        dist[i] = n->g;
        next[i] = kept_next(n, kind);
    }
    int32_t *ids = len > 0 ? astar_mem(&f->alloc, list, (size_t)cap * sizeof *list, (size_t)len * sizeof *list) : NULL;
    if (len == 0) astar_mem(&f->alloc, list, (size_t)cap * sizeof *list, 0);
    if (len > 0 && !ids) { /* a shrink that failed: list is still whole */
        astar_mem(&f->alloc, dist, (size_t)len * sizeof *dist, 0);
        astar_mem(&f->alloc, next, (size_t)len, 0);
        astar_mem(&f->alloc, list, (size_t)cap * sizeof *list, 0);
        return ASTAR_ENOMEM;
    }
    keep(f, false, dist, next, ids, len);
    return ASTAR_OK;
}

/* The cheapest node the search left open (a limit stopped it), or INFINITY. */
static double cheapest_open(const astar_search *s) {
    return s->pool.heap.len > 0 ? s->pool.nodes[s->pool.heap.items[0].cell].g : INFINITY;
}

/* The field's own query for q: no heuristic, the goal where the start is (astar.h: the goal is
 * ignored, so it must not be checked either). */
static astar_query field_query(const astar_query *q) {
    astar_query fq = *q;
    fq.heuristic = ASTAR_H_ZERO;
    fq.gx = q->sx;
    fq.gy = q->sy;
    return fq;
}

astar_status astar_field_build(astar_field *f, astar_search *s, astar_grid *g, const astar_query *q,
                               const int32_t *cells, int32_t ncells, astar_field_kind kind,
                               astar_result *res) {
    astar_result_init(res);
    s->path.len = 0;
    s->job_live = false; /* the workspace is this build's now, even for a bad request */
    if (f->width != g->width || f->height != g->height || q->heuristic != ASTAR_H_DEFAULT)
        return astar_finish(res, ASTAR_EINVAL);
    astar_query fq = field_query(q);
    query_ctx c;
    astar_status st = field_setup(&c, s, g, &fq, cells, ncells, kind);
    if (st != ASTAR_OK) return astar_finish(res, st);
    astar_progress *p = astar_progress_get();
    st = field_run(&c, kind, UINT64_MAX, p, res);
    if (st != ASTAR_OK && st != ASTAR_LIMIT) return astar_finish(res, st);
    /* Settled nodes only: with a limit, the ones still open may improve, and so may a cell
     * that only took offers (TO: one a unit may only leave, never queued) dearer than the
     * cheapest still open. */
    double open_min = cheapest_open(s);
    astar_status kept = keeps_dense(f, res->expansions) ? keep_dense(f, &c, kind, open_min, p)
                                                        : keep_sparse(f, &c, kind, open_min, cells, ncells, p);
    if (kept != ASTAR_OK) return astar_finish(res, kept);
    f->kind = kind;
    return astar_finish(res, st);
}

/* ---- in slices */

/* Sets up (again) the field in slices of s on its grid g: nothing searched, nothing written. */
static astar_status field_job_setup(astar_search *s, astar_grid *g) {
    struct astar_field_job *fj = &s->field;
    astar_status st = field_setup(&s->job, s, g, &fj->q, fj->cells, fj->ncells, fj->kind);
    s->job_live = st == ASTAR_OK; /* (field_setup ended any search on s) */
    s->job_field = true;
    s->job_version = g->version;
    s->job_class_version = g->class_version;
    fj->searched = false;
    fj->written = 0;
    return st;
}

astar_status astar_field_start(astar_field *f, astar_search *s, astar_grid *g, const astar_query *q,
                               const int32_t *cells, int32_t ncells, astar_field_kind kind, astar_result *res) {
    astar_result_init(res);
    s->path.len = 0;
    s->job_live = false; /* the workspace is this field's now, even for a bad request */
    struct astar_field_job *fj = &s->field;
    fj->done = false;
    if (f->width != g->width || f->height != g->height || q->heuristic != ASTAR_H_DEFAULT)
        return astar_finish(res, ASTAR_EINVAL);
    fj->f = f;
    fj->q = field_query(q);
    fj->cells = cells;
    fj->ncells = ncells;
    fj->kind = kind;
    fj->restarts = 0;
    s->job_restart_due = false;
    astar_status st = field_job_setup(s, g);
    if (st != ASTAR_OK) return astar_finish(res, st);
    return astar_finish(res, ASTAR_RUNNING);
}

/*
 * Whether the field may go on after the terrain changes since s->job_version (and with
 * classes the class writes since s->job_class_version): none was under a cell it reached (astar_job_changes_unread: every step it read is as it was, and a cell it
 * has not reached is read as it is now when reached), and none opened a goal (TO) that was
 * blocked (for a bigger unit: a cell under it) at its start (left out then, and never reached).
 */
static bool field_follows(astar_search *s) {
    const struct astar_field_job *fj = &s->field;
    const astar_grid *g = s->job.g;
    if (!astar_job_changes_unread(s)) return false;
    if (fj->q.classes && g->class_version != s->job_class_version) { /* class writes alike */
        if (!astar_job_class_changes_unread(s)) return false;
        for (uint32_t v = s->job_class_version + 1; v != g->class_version + 1 && fj->kind == ASTAR_FIELD_TO; v++) {
            const astar_class_change *cc = astar_grid_class_change(g, v);
            if (fj->q.classes[cc->before] != INFINITY) continue; /* (a goal the class walled: left out) */
            for (int32_t i = 0; i < fj->ncells; i++) /* (a bigger unit's goal: any cell of its footprint) */
                if (astar_covers(&s->job, astar_cell(g->stride, fj->cells[i] % g->width, fj->cells[i] / g->width), cc->cell))
                    return false;
        }
        s->job.cls = g->cls; /* (made by the first class write, if after its start) */
    }
    for (uint32_t v = s->job_version + 1; v != g->version + 1 && fj->kind == ASTAR_FIELD_TO; v++) {
        const astar_change *ch = astar_grid_change(g, v);
        if (ch->before != INFINITY) continue;
        for (int32_t i = 0; i < fj->ncells; i++) /* (a bigger unit's goal: any cell of its footprint) */
            if (astar_covers(&s->job, astar_cell(g->stride, fj->cells[i] % g->width, fj->cells[i] / g->width), ch->cell))
                return false;
    }
    return true;
}

/* The end of a field in slices: the answer kept for later steps. */
static astar_status field_job_end(astar_search *s, astar_result *res, astar_status st) {
    struct astar_field_job *fj = &s->field;
    res->restarts = fj->restarts;
    s->job_live = false;
    if (st == ASTAR_OK || st == ASTAR_LIMIT) {
        fj->done = true;
        fj->result = *res;
        fj->result.status = st;
    }
    return astar_finish(res, st);
}

/* Units of a step for `cells` cells written or kept. */
static uint64_t cell_units(uint64_t cells) {
    return (cells + ASTAR_FIELD_CELLS_PER_UNIT - 1) / ASTAR_FIELD_CELLS_PER_UNIT;
}

astar_status astar_field_step(astar_search *s, uint64_t n, uint64_t *used, astar_result *res) {
    struct astar_field_job *fj = &s->field;
    query_ctx *c = &s->job;
    astar_result_init(res);
    *used = 0;
    if (fj->done) {
        *res = fj->result;
        return res->status;
    }
    if (!s->job_live || !s->job_field) return astar_finish(res, ASTAR_EINVAL); /* ended by another query */
    astar_grid *g = c->g;
    /* A field with classes follows class writes as terrain writes (a class write bumps no
     * terrain version: astar_grid_set_class). */
    bool reclassed = fj->q.classes && g->class_version != s->job_class_version;
    if (s->job_restart_due || g->version != s->job_version || reclassed) {
        if (!s->job_restart_due && field_follows(s)) {
            s->job_version = g->version;
            s->job_class_version = g->class_version;
        } else {
            s->job_restart_due = true;
            astar_status st = field_job_setup(s, g);
            if (st == ASTAR_ESTOPPED) return astar_finish(res, st); /* still to start over: next step */
            s->job_restart_due = false;
            fj->restarts++;
            if (st != ASTAR_OK) return field_job_end(s, res, st);
        }
    }
    astar_progress *p = astar_progress_get();
    if (!fj->searched) {
        uint64_t before = c->expansions;
        astar_status st = field_run(c, fj->kind, n, p, res);
        *used = res->expansions - before;
        c->expansions = res->expansions;
        if (st == ASTAR_RUNNING || st == ASTAR_ESTOPPED) {
            res->restarts = fj->restarts;
            return astar_finish(res, st);
        }
        if (st != ASTAR_OK && st != ASTAR_LIMIT) return field_job_end(s, res, st);
        fj->searched = true;
        fj->st = st;
        fj->open_min = cheapest_open(s);
        fj->dense = keeps_dense(fj->f, c->expansions);
        /* Dense: the grid now (the job's own field: astar.h, no field until the end), written
         * in slices below. */
        st = fj->dense ? dense_storage(fj->f) : ASTAR_OK;
        if (st != ASTAR_OK) return field_job_end(s, res, st);
        fj->f->kind = fj->kind;
    }
    res->expansions = c->expansions;
    res->restarts = fj->restarts;
    if (!fj->dense) {
        if (n <= *used) return astar_finish(res, ASTAR_RUNNING); /* the search took the step */
        /* Sparse: listed at once by the first step with a unit left after the search (after
         * ESTOPPED, the flood undone, by the next), a unit per ASTAR_FIELD_CELLS_PER_UNIT cells
         * kept, which may pass n: its work follows the cells kept (at most 9 per expansion:
         * each was expanded or is a neighbour of one), bounded by the search, not by n. */
        astar_status st = keep_sparse(fj->f, c, fj->kind, fj->open_min, fj->cells, fj->ncells, p);
        if (st == ASTAR_ESTOPPED) return astar_finish(res, st);
        if (st != ASTAR_OK) return field_job_end(s, res, st);
        *used += cell_units((uint64_t)astar_field_reached(fj->f));
        return field_job_end(s, res, fj->st);
    }
    /* Dense: ASTAR_FIELD_CELLS_PER_UNIT cells a unit of n, a unit of the progress handler per
     * cell, counted before they are written. */
    const int32_t total = g->width * g->height;
    uint64_t units = n > *used ? n - *used : 0;
    uint64_t room = units < (uint64_t)total ? units * ASTAR_FIELD_CELLS_PER_UNIT : (uint64_t)total;
    int32_t to = (uint64_t)(total - fj->written) < room ? total : fj->written + (int32_t)room;
    if (to > fj->written) {
        if (astar_progress_charge(p, (uint64_t)(to - fj->written))) return astar_finish(res, ASTAR_ESTOPPED);
        write_cells(fj->f, c, fj->kind, fj->open_min, fj->written, to);
        *used += cell_units((uint64_t)(to - fj->written));
        fj->written = to;
    }
    if (fj->written < total) return astar_finish(res, ASTAR_RUNNING);
    return field_job_end(s, res, fj->st);
}

astar_field_kind astar_field_get_kind(const astar_field *f) { return f->kind; }
int32_t astar_field_reached(const astar_field *f) { return f->reached; }

/* The index of node id `id` in f's arrays, or -1 (sparse, not kept). */
static ptrdiff_t entry_of(const astar_field *f, int32_t id) {
    if (f->dense) return id;
    int32_t lo = 0, hi = f->reached;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (f->ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < f->reached && f->ids[lo] == id ? lo : -1;
}

double astar_field_distance(const astar_field *f, int32_t x, int32_t y) {
    if (x < 0 || y < 0 || x >= f->width || y >= f->height) return NAN;
    ptrdiff_t i = entry_of(f, y * f->width + x);
    return i < 0 ? INFINITY : f->dist[i];
}

int astar_field_next(const astar_field *f, int32_t x, int32_t y, int32_t *nx, int32_t *ny) {
    if (x < 0 || y < 0 || x >= f->width || y >= f->height) return -1;
    ptrdiff_t i = entry_of(f, y * f->width + x);
    int d = i < 0 ? -1 : f->next[i];
    if (d < 0) return 0;
    *nx = x + ASTAR_DX[d];
    *ny = y + ASTAR_DY[d];
    return 1;
}

astar_status astar_field_list(const astar_field *f, int32_t *ids, double *dist) {
    if (astar_progress_work(f->dense ? (uint64_t)f->width * (uint64_t)f->height : (uint64_t)f->reached) != ASTAR_OK)
        return ASTAR_ESTOPPED;
    if (!f->dense) {
        for (int32_t i = 0; i < f->reached; i++) ids[i] = f->ids[i], dist[i] = f->dist[i];
        return ASTAR_OK;
    }
    int32_t k = 0;
    for (int32_t id = 0; id < f->width * f->height; id++)
        if (f->dist[id] != INFINITY) ids[k] = id, dist[k++] = f->dist[id];
    return ASTAR_OK;
}
