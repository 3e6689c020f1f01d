/* Building landmarks: Dijkstra from and to each, farthest-point placement a batch at a time
 * (see landmarks.c for why the stored distances keep every heuristic they give consistent),
 * as a build in slices (build.c): each batch's Dijkstras are the units of a stage, and the
 * passes over the cells that place the next batch the work between stages. */
#include "build.h"
#include "landmarks.h"

#include <stdlib.h>
#include <string.h>

/* The cell (bordered index) of node id `id`. */
static int32_t cell_of(const astar_grid *g, int32_t id) {
    return astar_cell(g->stride, id % g->width, id / g->width);
}

/* A pass over the cells costs one unit of work per this many (eighths of a unit per cell). */
#define CELLS_PER_UNIT 8
/* Filling the tables costs a unit per 64 bytes: a big table's pages are first touched there. */
#define FLOATS_PER_UNIT 16

/* How far a pass from `at` may go on `budget` units, each cell costing `eighths` eighths
 * of a unit (at least one cell when the budget allows any), and what that costs. */
static int32_t pass_by(int32_t at, int32_t n, uint64_t budget, uint64_t eighths, uint64_t *cost) {
    uint64_t left = (uint64_t)(n - at);
    uint64_t afford = budget >= UINT64_MAX / CELLS_PER_UNIT ? UINT64_MAX : budget * CELLS_PER_UNIT / eighths;
    uint64_t cells = afford < left ? afford : left;
    *cost = (cells * eighths + CELLS_PER_UNIT - 1) / CELLS_PER_UNIT;
    return at + (int32_t)cells;
}

static int32_t pass_end(int32_t at, int32_t n, uint64_t budget, uint64_t *cost) {
    return pass_by(at, n, budget, 1, cost);
}

/* One Dijkstra: from (dir 0) or to (dir 1) landmark `landmark`'s cell, or from the seed
 * (landmark -1, into near), and then its distances copied out. */
typedef struct measure {
    astar_query q;
    int32_t landmark;
    int32_t id;              /* the node id it measures from or to */
    int dir;
    bool begun, measured;
    int32_t copied;          /* node ids copied so far */
    double largest;          /* the largest distance it stored */
} measure;

enum phase { SETUP, FILL, LARGEST, SEED, PICK, FINAL, COMPLETE };

/* Lowered cells a build carries to its install; one more starts it over. */
#define LM_LOWERED 64

typedef struct lm_build {
    astar_grid *g;
    astar_alloc alloc;       /* the grid's, kept: a build freed after its grid touches nothing of it */
    int32_t k;
    /* From the setup on. */
    int32_t n, dirs;
    size_t stride;           /* floats per cell while building: dirs * k */
    double lo;               /* the smallest walkable cost */
    astar_landmarks *lm;
    void *block;
    size_t bytes;
    float *dist;
    float *near;             /* per node id: the distance from the nearest landmark measured */
    int32_t seed, size;      /* a cell of the largest island, and its cells */
    int32_t placed;          /* landmarks measured, or being measured in the current stage */
    int32_t batch_first, batch_len; /* the stage's landmarks */
    measure units[2 * ASTAR_LANDMARK_BATCH];
    double largest;
    /* The work between stages. */
    enum phase phase;
    int32_t cursor;          /* the pass's next node id (FINAL: cell) */
    size_t filled;           /* FILL: floats of the tables set to NaN so far */
    int32_t picking;         /* which candidate of the next batch the pass picks */
    int32_t best;
    float top;
    int32_t cand[ASTAR_LANDMARK_BATCH];
    /* Cells lowered or opened since the measures began (lm_changed), each once: repaired at
     * the install as astar_landmarks_lowered repairs installed tables. */
    int32_t lowered[LM_LOWERED];
    int32_t nlowered;
} lm_build;

static void lm_reset(void *self) {
    lm_build *b = self;
    astar_alloc *a = &b->alloc;
    if (b->lm) {
        astar_mem(a, b->block, b->bytes, 0);
        astar_mem(a, b->lm, sizeof *b->lm, 0);
    }
    if (b->near) astar_mem(a, b->near, (size_t)b->n * sizeof *b->near, 0);
    astar_grid *g = b->g;
    astar_alloc alloc = b->alloc;
    int32_t k = b->k;
    memset(b, 0, sizeof *b);
    b->g = g;
    b->alloc = alloc;
    b->k = k;
    b->phase = SETUP;
}

static void lm_release(void *self) {
    lm_build *b = self;
    astar_alloc a = b->alloc;
    astar_mem(&a, b, sizeof *b, 0);
}

/* The tables and what the workers will read: everything but the passes and Dijkstras. */
static astar_status setup(lm_build *b) {
    astar_grid *g = b->g;
    b->n = g->width * g->height;
    if (b->k == 0) return ASTAR_OK;
    /* The island labels the seed is chosen by: exact, so they stay as they are until a write
     * (which starts the build over). */
    astar_islands *is;
    astar_status st = astar_islands_get(g, astar_island_kind(g->diagonal), &is);
    if (st != ASTAR_OK) return st;
    /* Where every walkable cell costs the same, a way back costs what the way there does:
     * one direction serves both terms and halves the memory. */
    double lo, hi;
    if ((st = astar_grid_cost_range(g, &lo, &hi)) != ASTAR_OK) return st;
    b->lo = lo;
    b->dirs = lo == hi ? 1 : 2;
    b->stride = (size_t)b->dirs * (size_t)b->k;
    /* What a query may make on the grid lazily is made here, before workers read it. */
    astar_query q;
    astar_query_init(&q);
    q.heuristic = ASTAR_H_ZERO;
    q.dead_ends = 0; /* the measures are distance fields, which skip none: no areas to make */
    if ((st = astar_find_prepare(g, &q)) != ASTAR_OK) return st;
    /* 64 bytes more, to start the cells on a cache line. */
    size_t bytes = astar_array_size(g->cells, b->stride * sizeof(float));
    bytes = bytes && bytes <= SIZE_MAX - 64 ? bytes + 64 : 0;
    b->lm = astar_mem(&g->alloc, NULL, 0, sizeof *b->lm);
    b->block = b->lm && bytes ? astar_mem(&g->alloc, NULL, 0, bytes) : NULL;
    if (!b->block) {
        if (b->lm) astar_mem(&g->alloc, b->lm, sizeof *b->lm, 0);
        b->lm = NULL;
        return ASTAR_ENOMEM;
    }
    b->bytes = bytes;
    b->near = astar_mem(&g->alloc, NULL, 0, (size_t)b->n * sizeof *b->near);
    if (!b->near) return ASTAR_ENOMEM;
    b->dist = (float *)(((uintptr_t)b->block + 63) & ~(uintptr_t)63);
    memset(b->lm, 0, sizeof *b->lm);
    b->lm->dist = b->dist;
    b->lm->block = b->block;
    b->lm->bytes = bytes;
    b->lm->mode = g->diagonal;
    b->lm->dirs = b->dirs;
    b->seed = -1;
    return ASTAR_OK;
}

/* The passes before the seed's Dijkstra, a budget at a time: the tables filled with NaN
 * (the border keeps it; it is also where a big table's pages are first touched, which
 * costs more than the writes: a unit per 64 bytes), then
 * the largest island's size, then its first cell (not its root: the labels' roots
 * depend on the order of past writes, the tables must not). */
static astar_status before_seed(lm_build *b, uint64_t budget, uint64_t *used) {
    astar_grid *g = b->g;
    while (*used < budget) {
        uint64_t cost;
        if (b->phase == FILL) {
            size_t floats = b->g->cells * b->stride, left = floats - b->filled;
            uint64_t afford = budget - *used;
            afford = afford > left / FLOATS_PER_UNIT ? left : (size_t)afford * FLOATS_PER_UNIT;
            for (size_t i = b->filled; i < b->filled + afford; i++) b->dist[i] = NAN;
            b->filled += afford;
            *used += (afford + FLOATS_PER_UNIT - 1) / FLOATS_PER_UNIT;
            if (b->filled == floats) b->phase = LARGEST, b->cursor = 0;
            continue;
        }
        const astar_islands *is = &g->islands[astar_island_kind(g->diagonal)];
        if (b->phase == LARGEST) {
            int32_t cells = (int32_t)g->cells;
            int32_t end = pass_end(b->cursor, cells, budget - *used, &cost);
            for (int32_t at = b->cursor; at < end; at++) {
                int32_t root = astar_islands_root(is, at);
                if (root >= 0 && astar_islands_size(is, root) > b->size) b->size = astar_islands_size(is, root);
            }
            b->cursor = end;
            *used += cost;
            if (end == cells) b->phase = SEED, b->cursor = 0;
            continue;
        }
        int32_t end = pass_end(b->cursor, b->n, budget - *used, &cost);
        for (int32_t id = b->cursor; id < end && b->seed < 0; id++) {
            int32_t root = astar_islands_root(is, cell_of(g, id));
            if (root >= 0 && astar_islands_size(is, root) == b->size) b->seed = id;
        }
        b->cursor = end;
        *used += cost;
        if (b->seed >= 0 || end == b->n) return ASTAR_OK;
    }
    return ASTAR_RUNNING;
}

/* A stage of the measures of cells `ids` (landmarks from b->placed on), or of the seed. */
static int32_t stage(lm_build *b, const int32_t *ids, int32_t count, bool seed) {
    astar_grid *g = b->g;
    int32_t dirs = seed ? 1 : b->dirs, units = 0;
    b->batch_first = b->placed;
    b->batch_len = seed ? 0 : count;
    for (int32_t j = 0; j < count; j++) {
        if (!seed) b->lm->cells[b->placed++] = ids[j];
        for (int dir = 0; dir < dirs; dir++) {
            measure *m = &b->units[units++];
            memset(m, 0, sizeof *m);
            astar_query_init(&m->q);
            m->q.diagonal = g->diagonal;
            m->q.heuristic = ASTAR_H_ZERO;
            m->q.sx = m->q.gx = ids[j] % g->width;
            m->q.sy = m->q.gy = ids[j] / g->width;
            m->landmark = seed ? -1 : b->batch_first + j;
            m->id = ids[j];
            m->dir = dir;
        }
    }
    return units;
}

static astar_status lm_unit(void *self, int32_t u, astar_search *s, uint64_t budget, uint64_t *used) {
    lm_build *b = self;
    measure *m = &b->units[u];
    astar_field_kind kind = m->dir == 0 ? ASTAR_FIELD_FROM : ASTAR_FIELD_TO;
    *used = 0;
    if (!m->begun) {
        astar_status st = astar_field_begin(s, b->g, &m->q, m->id, kind);
        if (st != ASTAR_OK) return st;
        m->begun = true;
    }
    if (!m->measured) {
        astar_status st = astar_field_continue(s, kind, budget, used);
        if (st == ASTAR_RUNNING) return st;
        if (st != ASTAR_OK) return st == ASTAR_LIMIT ? ASTAR_EINVAL : st; /* no limit was set */
        m->measured = true;
    }
    /* A cell a unit: each write lands on a line of its own of a large table (k >= 16). */
    uint64_t cost;
    int32_t end = pass_by(m->copied, b->n, budget - *used, CELLS_PER_UNIT, &cost);
    const astar_grid *g = b->g;
    size_t column = (size_t)(m->dir * b->k + m->landmark);
    for (int32_t id = m->copied; id < end; id++) {
        double d = astar_field_g(s, cell_of(g, id));
        float v = astar_landmark_down(d);
        if (m->landmark < 0) {
            b->near[id] = v;
            continue;
        }
        b->dist[(size_t)cell_of(g, id) * b->stride + column] = v;
        if (!isnan(v) && d > m->largest) m->largest = d;
    }
    m->copied = end;
    *used += cost;
    return end == b->n ? ASTAR_OK : ASTAR_RUNNING;
}

/* The candidate `picking` of the next batch over [from, to): the cell whose distance from
 * the landmarks (near), or from the batch's candidates before it (straight-line times the
 * smallest cost, a lower bound of the way), is largest. The first candidate after a
 * stage also takes the stage's distances into near (the first batch's replace the seed's). */
static void pick_pass(lm_build *b, int32_t from, int32_t to) {
    const astar_grid *g = b->g;
    bool fold = b->picking == 0 && b->batch_len > 0;
    bool replace = b->batch_first == 0;
    for (int32_t id = from; id < to; id++) {
        float v = b->near[id];
        if (fold) {
            const float *at = b->dist + (size_t)cell_of(g, id) * b->stride;
            for (int32_t j = 0; j < b->batch_len; j++) {
                float d = at[b->batch_first + j];
                if (replace && j == 0) v = d;
                else if (d < v) v = d;
            }
            b->near[id] = v;
        }
        int32_t x = id % g->width, y = id / g->width;
        for (int32_t j = 0; j < b->picking && v > b->top; j++) {
            int32_t dx = abs(x - b->cand[j] % g->width), dy = abs(y - b->cand[j] / g->width);
            float apart = (float)(b->lo * (double)(dx > dy ? dx : dy));
            if (apart < v) v = apart;
        }
        if (v > b->top) { /* NaN (unreached) never wins */
            b->top = v;
            b->best = id;
        }
    }
}

static astar_status lm_between(void *self, uint64_t budget, uint64_t *used, int32_t *units) {
    lm_build *b = self;
    *used = 0;
    *units = 0;
    if (b->phase == SETUP) {
        if (budget == 0) return ASTAR_RUNNING; /* it costs a unit */
        astar_status st = setup(b);
        if (st != ASTAR_OK) return st;
        *used = 1;
        b->phase = b->k == 0 ? COMPLETE : FILL;
        b->cursor = 0;
        if (b->phase == COMPLETE) return ASTAR_OK;
    }
    if (b->phase == FILL || b->phase == LARGEST || b->phase == SEED) {
        astar_status st = before_seed(b, budget, used);
        if (st != ASTAR_OK) return st;
        if (b->seed < 0) { /* no walkable cell */
            b->phase = COMPLETE;
            return ASTAR_OK;
        }
        b->phase = PICK;
        *units = stage(b, &b->seed, 1, true);
        b->picking = 0;
        b->cursor = 0;
        b->best = -1;
        b->top = 0.0f;
        return ASTAR_OK;
    }
    if (b->phase == PICK) {
        if (b->batch_len > 0 && b->picking == 0 && b->cursor == 0)
            for (int32_t j = 0; j < 2 * ASTAR_LANDMARK_BATCH; j++)
                if (b->units[j].largest > b->largest) b->largest = b->units[j].largest;
        int32_t want = b->k - b->placed < ASTAR_LANDMARK_BATCH ? b->k - b->placed : ASTAR_LANDMARK_BATCH;
        while (b->picking < want) {
            if (*used >= budget) return ASTAR_RUNNING;
            /* The pass that folds a batch into near reads a table line per cell, as copying does. */
            uint64_t cost, eighths = b->picking == 0 && b->batch_len > 0 ? CELLS_PER_UNIT : 1;
            int32_t end = pass_by(b->cursor, b->n, budget - *used, eighths, &cost);
            if (end == b->cursor) return ASTAR_RUNNING;
            pick_pass(b, b->cursor, end);
            b->cursor = end;
            *used += cost;
            if (end < b->n) return ASTAR_RUNNING;
            if (b->best < 0) break; /* every cell left is a landmark or near one: the batch ends */
            b->cand[b->picking++] = b->best;
            b->cursor = 0;
            b->best = -1;
            b->top = 0.0f;
        }
        int32_t count = b->picking;
        if (count == 0 && b->placed == 0) count = 1, b->cand[0] = b->seed; /* a one-cell island */
        b->picking = 0;
        b->cursor = 0;
        b->best = -1;
        b->top = 0.0f;
        if (count > 0) {
            *units = stage(b, b->cand, count, false);
            return ASTAR_OK;
        }
        b->phase = FINAL;
    }
    if (b->phase == FINAL) {
        /* Repacks to `placed` per cell (the search strides by the count): where the island
         * has fewer cells than k. Cell by cell in order: each moves down, never over one
         * not yet moved. */
        int32_t placed = b->placed, cells = (int32_t)b->g->cells;
        if (placed < b->k) {
            while (*used < budget && b->cursor < cells) {
                uint64_t cost;
                int32_t end = pass_end(b->cursor, cells, budget - *used, &cost);
                for (size_t c = (size_t)b->cursor; c < (size_t)end; c++)
                    for (int32_t dir = 0; dir < b->dirs; dir++)
                        for (int32_t i = 0; i < placed; i++)
                            b->dist[c * (size_t)b->dirs * (size_t)placed + (size_t)(dir * placed + i)] =
                                b->dist[c * b->stride + (size_t)(dir * b->k + i)];
                b->cursor = end;
                *used += cost;
            }
            if (b->cursor < cells) return ASTAR_RUNNING;
        }
        b->phase = COMPLETE;
        return ASTAR_OK;
    }
    return ASTAR_OK;
}

static void lm_install(void *self) {
    lm_build *b = self;
    astar_grid *g = b->g;
    if (b->k == 0) { /* (a suspended search that reads them sees the serial move) */
        astar_landmarks_free(g);
        return;
    }
    if (b->placed == 0) { /* no walkable cell: nothing to measure from */
        astar_landmarks_free(g);
        return;
    }
    astar_mem(&g->alloc, b->near, (size_t)b->n * sizeof *b->near, 0); /* only placement needs it */
    b->near = NULL;
    astar_landmarks *lm = b->lm;
    lm->k = b->placed;
    lm->largest = b->largest;
    lm->lo = b->lo; /* the smallest cost at the set-up: the repairs below lower it if need be */
    lm->shrink = astar_landmarks_shrink(lm->largest, lm->lo);
    lm->valid = true;
    b->lm = NULL; /* the grid's now */
    astar_landmarks_free(g);
    g->landmarks = lm;
    g->landmark_serial++; /* a suspended search that reads landmarks starts over */
    /* Decreases during the measures: (I) (landmarks.c) fails only on the moves of their
     * blocks (a Dijkstra closes its nodes in order, so a move elsewhere kept the relaxation it
     * had), which each repair restores, lowering lo and the shrink where needed. */
    for (int32_t i = 0; i < b->nlowered; i++) astar_landmarks_lowered(g, b->lowered[i]);
}

/* A terrain change during the build (build.c): whether it must start over. What it measured
 * stays a valid table under raised costs and blocked cells, and so does a Dijkstra in
 * flight, which reads the terrain as it goes (see landmarks.c: (I) holds on each move it
 * relaxed at a cost no higher than the move's now). A lowered cost or an opened cell breaks
 * (I) only on the moves of its block: it goes on, and the install repairs those (up to
 * LM_LOWERED cells, so that a door toggled under a long build does not keep it from ever
 * finishing). It starts over while it reads the island labels its set-up made exact (the
 * passes before the seed); and, for one table serving both ways, on a finite cost other than
 * the one cost (a way back may then be cheaper than the way there). */
static bool lm_changed(void *self, const astar_change *c) {
    lm_build *b = self;
    if (b->phase == SETUP) return false; /* nothing done yet */
    if (b->phase == FILL || b->phase == LARGEST || b->phase == SEED) return true;
    if (b->dirs == 1 && c->after != INFINITY && c->after != b->lo) return true;
    if (c->after < c->before) {
        int32_t i = 0;
        while (i < b->nlowered && b->lowered[i] != c->cell) i++;
        if (i == LM_LOWERED) return true;
        if (i == b->nlowered) b->lowered[b->nlowered++] = c->cell;
    }
    /* The workers' Dijkstras read the cost range when they begin (query.c): brought up to
     * date here, on the calling thread, as the set-up does. */
    double lo, hi;
    return astar_grid_cost_range(b->g, &lo, &hi) != ASTAR_OK;
}

static uint64_t lm_total(const void *self) {
    const lm_build *b = self;
    uint64_t n = (uint64_t)b->g->width * (uint64_t)b->g->height, size = b->size > 0 ? (uint64_t)b->size : n;
    uint64_t pass = n / CELLS_PER_UNIT + 1, k = (uint64_t)b->k, dirs = b->dirs > 0 ? (uint64_t)b->dirs : 1;
    uint64_t batches = (k + ASTAR_LANDMARK_BATCH - 1) / ASTAR_LANDMARK_BATCH;
    uint64_t fill = (uint64_t)b->g->cells * k * dirs / FLOATS_PER_UNIT;
    /* setup, the fill, the seed's passes and Dijkstra, the picks, the measures */
    return 1 + fill + 3 * pass + size + (batches + 1) * ASTAR_LANDMARK_BATCH * pass + batches * n +
           k * dirs * (size + n);
}

static const astar_build_ops LANDMARK_OPS = {lm_between, lm_unit, lm_install, lm_reset, lm_total, lm_release, false,
                                             lm_changed};

astar_build *astar_build_landmarks(astar_grid *g, int32_t k, int threads, astar_status *st) {
    astar_status dummy;
    if (!st) st = &dummy;
    *st = ASTAR_EINVAL;
    if (!g || k < 0 || k > ASTAR_MAX_LANDMARKS || threads < 0 || threads > ASTAR_MANY_MAX_THREADS) return NULL;
    if (threads == 0) threads = astar_many_default_threads();
    *st = ASTAR_ENOMEM;
    lm_build *b = astar_mem(&g->alloc, NULL, 0, sizeof *b);
    if (!b) return NULL;
    memset(b, 0, sizeof *b);
    b->g = g;
    b->alloc = g->alloc;
    b->k = k;
    b->phase = SETUP;
    astar_build *build = astar_build_new(g, &LANDMARK_OPS, b, threads);
    if (!build) {
        lm_release(b);
        return NULL;
    }
    *st = ASTAR_OK;
    return build;
}

astar_status astar_grid_landmarks(astar_grid *g, int32_t k) {
    astar_status st;
    astar_build *b = astar_build_landmarks(g, k, 1, &st);
    if (!b) return st;
    st = astar_build_step(b, UINT64_MAX, NULL);
    astar_build_free(b);
    return st;
}
