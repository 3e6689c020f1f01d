/* Data the cost model reads: influence layers, fog-of-war masks and claims. */
#include "layers.h"
#include "grid.h"

#include <string.h>

/* ---------------------------------------------------------------- layers */

/* spread's two rows: the new values of the row being computed, the old values of the row above. */
static size_t scratch_size(const astar_layer *l) { return 2 * (size_t)l->stride; }

/* A cell with the border each: what a constructor counts. */
static uint64_t bordered(int32_t width, int32_t height) {
    return (uint64_t)(width + 2) * (uint64_t)(height + 2);
}

/* Every cell (not the border) to v. */
static void fill_rows(astar_layer *l, double v) {
    for (int32_t y = 0; y < l->height; y++) {
        double *row = &l->value[astar_cell(l->stride, 0, y)];
        for (int32_t x = 0; x < l->width; x++) row[x] = v;
    }
}

astar_layer *astar_layer_new(int32_t width, int32_t height, double initial,
                             const astar_alloc *alloc) {
    if (!astar_size_ok(width, height) || !astar_value_ok(initial)) return astar_made(NULL, ASTAR_EINVAL);
    if (astar_stopped_before(bordered(width, height))) return astar_made(NULL, ASTAR_ESTOPPED);
    astar_alloc a;
    astar_layer *l = astar_new_zeroed(alloc, sizeof *l, &a);
    if (!l) return astar_made(NULL, ASTAR_ENOMEM);
    l->alloc = a;
    l->width = width;
    l->height = height;
    l->stride = width + 2;
    l->cells = (size_t)(width + 2) * (size_t)(height + 2);
    size_t bytes = astar_array_size(l->cells, sizeof(double));
    l->value = bytes ? astar_mem(&a, NULL, 0, bytes) : NULL;
    if (!l->value) {
        astar_mem(&a, l, sizeof *l, 0);
        return astar_made(NULL, ASTAR_ENOMEM);
    }
    for (size_t i = 0; i < l->cells; i++) l->value[i] = 0.0;
    fill_rows(l, initial);
    return astar_made(l, ASTAR_OK);
}

void astar_layer_free(astar_layer *l) {
    if (!l) return;
    astar_alloc a = l->alloc;
    astar_mem(&a, l->value, l->cells * sizeof(double), 0);
    astar_mem(&a, l->scratch, scratch_size(l) * sizeof(double), 0);
    astar_mem(&a, l, sizeof *l, 0);
}

int32_t astar_layer_width(const astar_layer *l) { return l->width; }
int32_t astar_layer_height(const astar_layer *l) { return l->height; }

static bool layer_inside(const astar_layer *l, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < l->width && y < l->height;
}

astar_status astar_layer_set(astar_layer *l, int32_t x, int32_t y, double v) {
    if (!layer_inside(l, x, y) || !astar_value_ok(v)) return ASTAR_EINVAL;
    l->value[astar_cell(l->stride, x, y)] = v;
    return ASTAR_OK;
}

astar_status astar_layer_add(astar_layer *l, int32_t x, int32_t y, double v) {
    if (!layer_inside(l, x, y) || !astar_value_ok(v)) return ASTAR_EINVAL;
    double *cell = &l->value[astar_cell(l->stride, x, y)];
    if (!astar_value_ok(*cell + v)) return ASTAR_EINVAL;
    *cell += v;
    return ASTAR_OK;
}

double astar_layer_get(const astar_layer *l, int32_t x, int32_t y) {
    if (!layer_inside(l, x, y)) return NAN;
    return l->value[astar_cell(l->stride, x, y)];
}

/* A cell of the layer each (no border): what a bulk write over it counts. */
static uint64_t layer_cells(const astar_layer *l) { return (uint64_t)l->width * (uint64_t)l->height; }

astar_status astar_layer_fill(astar_layer *l, double v) {
    if (!astar_value_ok(v)) return ASTAR_EINVAL;
    if (astar_stopped_before(layer_cells(l))) return ASTAR_ESTOPPED;
    fill_rows(l, v);
    return ASTAR_OK;
}

const double *astar_layer_row(const astar_layer *l, int32_t y) {
    if (y < 0 || y >= l->height) return NULL;
    return l->value + astar_cell(l->stride, 0, y);
}

/* ------------------------------------------------------- influence maps */

static double falloff_weight(astar_falloff f, double d, double radius) {
    double t = 1.0 - d / (radius + 1.0);
    switch (f) {
    case ASTAR_FALLOFF_CONSTANT: return 1.0;
    case ASTAR_FALLOFF_QUADRATIC: return t * t;
    default: return t;
    }
}

/* The box around a disc of `radius` cells at (x, y), clipped to a width x height map;
 * callers then test each cell's distance. */
typedef struct disc_box {
    int32_t x0, x1, y0, y1;
} disc_box;

static disc_box disc_bounds(int32_t width, int32_t height, int32_t x, int32_t y, double radius) {
    double limit = (double)width + (double)height;
    int32_t k = (int32_t)floor(radius < limit ? radius : limit);
    disc_box b = {x - k, x + k, y - k, y + k};
    if (b.x0 < 0) b.x0 = 0;
    if (b.y0 < 0) b.y0 = 0;
    if (b.x1 >= width) b.x1 = width - 1;
    if (b.y1 >= height) b.y1 = height - 1;
    return b;
}

astar_status astar_layer_stamp(astar_layer *l, int32_t x, int32_t y, double radius,
                               double strength, astar_falloff falloff) {
    if (!layer_inside(l, x, y) || !(radius >= 0) || radius == INFINITY || !astar_value_ok(strength) ||
        falloff < ASTAR_FALLOFF_LINEAR || falloff > ASTAR_FALLOFF_CONSTANT)
        return ASTAR_EINVAL;
    disc_box b = disc_bounds(l->width, l->height, x, y, radius);
    if (astar_stopped_before((uint64_t)(b.x1 - b.x0 + 1) * (uint64_t)(b.y1 - b.y0 + 1))) return ASTAR_ESTOPPED;
    /* Two passes, so that a sum that would overflow changes nothing. */
    for (int pass = 0; pass < 2; pass++)
        for (int32_t cy = b.y0; cy <= b.y1; cy++)
            for (int32_t cx = b.x0; cx <= b.x1; cx++) {
                double dx = cx - x, dy = cy - y, d = sqrt(dx * dx + dy * dy);
                if (d > radius) continue;
                double *v = &l->value[astar_cell(l->stride, cx, cy)];
                /* rounded before the sum, as query costs are (core.h): the same map on every build */
                double sum = *v + astar_rounded(strength * falloff_weight(falloff, d, radius));
                if (pass == 0 && !astar_value_ok(sum)) return ASTAR_EINVAL;
                if (pass == 1) *v = sum;
            }
    return ASTAR_OK;
}

static double max_abs(const astar_layer *l) {
    double m = 0.0;
    for (size_t i = 0; i < l->cells; i++) { /* the border is 0 */
        double a = fabs(l->value[i]);
        if (a > m) m = a;
    }
    return m;
}

double astar_layer_max_abs(const astar_layer *l) {
    return astar_stopped_before(layer_cells(l)) ? NAN : max_abs(l);
}

astar_status astar_layer_scale(astar_layer *l, double factor) {
    if (!(factor >= 0) || !astar_value_ok(factor)) return ASTAR_EINVAL;
    if (astar_stopped_before(layer_cells(l))) return ASTAR_ESTOPPED;
    if (!astar_value_ok(max_abs(l) * factor)) return ASTAR_EINVAL;
    for (size_t i = 0; i < l->cells; i++) l->value[i] *= factor;
    return ASTAR_OK;
}

astar_status astar_layer_add_layer(astar_layer *l, const astar_layer *other, double weight) {
    if (!other || other->width != l->width || other->height != l->height || !astar_value_ok(weight))
        return ASTAR_EINVAL;
    if (astar_stopped_before(layer_cells(l))) return ASTAR_ESTOPPED;
    for (size_t i = 0; i < l->cells; i++)
        if (!astar_value_ok(l->value[i] + astar_rounded(weight * other->value[i]))) return ASTAR_EINVAL;
    for (size_t i = 0; i < l->cells; i++) l->value[i] += astar_rounded(weight * other->value[i]);
    return ASTAR_OK;
}

astar_status astar_layer_spread(astar_layer *l, double decay, double momentum,
                                const astar_grid *walk) {
    if (!(decay >= 0) || !isfinite(decay) || !(momentum >= 0 && momentum <= 1)) return ASTAR_EINVAL;
    if (walk && (walk->width != l->width || walk->height != l->height)) return ASTAR_EINVAL;
    if (astar_stopped_before(layer_cells(l))) return ASTAR_ESTOPPED;
    if (!l->scratch && !(l->scratch = astar_mem(&l->alloc, NULL, 0, scratch_size(l) * sizeof(double))))
        return ASTAR_ENOMEM;
    /* Over a hex grid, influence flows to the six hex neighbours, each one step away. */
    const bool hex = walk && walk->diagonal == ASTAR_DIAG_HEX;
    const double straight = exp(-decay), diagonal = hex ? straight : exp(-decay * sqrt(2.0));
    const double keep = momentum, take = 1.0 - momentum;
    const int32_t stride = l->stride;
    double *v = l->value;
    double *fresh = l->scratch, *above = l->scratch + stride;
    memset(above, 0, (size_t)stride * sizeof *above); /* the border row */
    for (int32_t y = 0; y < l->height; y++) {
        int32_t row = astar_cell(stride, -1, y); /* the row's border cell on the left */
        /* Old values of the three rows: above[] (its own row is overwritten already), v[]. */
        const double *rows[3] = {above, v + row, v + row + stride};
        for (int32_t x = 1; x <= l->width; x++) {
            /* The grid's border and the layer's share the layout: blocked and 0. */
            if (walk && walk->cost[row + x] == INFINITY) {
                fresh[x] = v[row + x];
                continue;
            }
            double best = 0.0;
            unsigned open = walk ? walk->open[row + x] : 0xFFu; /* the border holds 0 */
            if (hex) open = astar_hex_moves(open, y);
            for (int d = 0; d < 8; d++) {
                if (!(open >> d & 1u)) continue;
                double c = rows[1 + ASTAR_DY[d]][x + ASTAR_DX[d]] * (d < 4 ? straight : diagonal);
                if (fabs(c) > fabs(best)) best = c;
            }
            fresh[x] = astar_rounded(keep * v[row + x]) + astar_rounded(take * best);
        }
        memcpy(above, v + row, (size_t)stride * sizeof *above);
        memcpy(v + row + 1, fresh + 1, (size_t)l->width * sizeof *fresh);
    }
    return ASTAR_OK;
}

/* ----------------------------------------------------------- fog of war */

astar_mask *astar_mask_new(int32_t width, int32_t height, const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return astar_made(NULL, ASTAR_EINVAL);
    if (astar_stopped_before(bordered(width, height))) return astar_made(NULL, ASTAR_ESTOPPED);
    astar_alloc a;
    astar_mask *m = astar_new_zeroed(alloc, sizeof *m, &a);
    if (!m) return astar_made(NULL, ASTAR_ENOMEM);
    m->alloc = a;
    m->width = width;
    m->height = height;
    m->stride = width + 2;
    m->cells = (size_t)(width + 2) * (size_t)(height + 2);
    m->known = astar_mem(&a, NULL, 0, m->cells);
    if (!m->known) {
        astar_mem(&a, m, sizeof *m, 0);
        return astar_made(NULL, ASTAR_ENOMEM);
    }
    memset(m->known, 1, m->cells); /* the border: known, so queries never step onto it */
    for (int32_t y = 0; y < height; y++) memset(&m->known[astar_cell(m->stride, 0, y)], 0, (size_t)width);
    return astar_made(m, ASTAR_OK);
}

void astar_mask_free(astar_mask *m) {
    if (!m) return;
    astar_alloc a = m->alloc;
    astar_mem(&a, m->known, m->cells, 0);
    astar_mem(&a, m, sizeof *m, 0);
}

int32_t astar_mask_width(const astar_mask *m) { return m->width; }
int32_t astar_mask_height(const astar_mask *m) { return m->height; }

astar_status astar_mask_reveal(astar_mask *m, int32_t x, int32_t y, double radius) {
    if (x < 0 || y < 0 || x >= m->width || y >= m->height || !(radius >= 0)) return ASTAR_EINVAL;
    disc_box b = disc_bounds(m->width, m->height, x, y, radius);
    if (astar_stopped_before((uint64_t)(b.x1 - b.x0 + 1) * (uint64_t)(b.y1 - b.y0 + 1))) return ASTAR_ESTOPPED;
    for (int32_t cy = b.y0; cy <= b.y1; cy++)
        for (int32_t cx = b.x0; cx <= b.x1; cx++) {
            double dx = cx - x, dy = cy - y;
            if (sqrt(dx * dx + dy * dy) <= radius) m->known[astar_cell(m->stride, cx, cy)] = 1;
        }
    return ASTAR_OK;
}

int astar_mask_is_known(const astar_mask *m, int32_t x, int32_t y) {
    if (x < 0 || y < 0 || x >= m->width || y >= m->height) return -1;
    return m->known[astar_cell(m->stride, x, y)];
}

/* ---------------------------------------------------------------- claims */

astar_claims *astar_claims_new(int32_t width, int32_t height, const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return astar_made(NULL, ASTAR_EINVAL);
    if (astar_stopped_before(bordered(width, height))) return astar_made(NULL, ASTAR_ESTOPPED);
    astar_alloc a;
    astar_claims *c = astar_new_zeroed(alloc, sizeof *c, &a);
    if (!c) return astar_made(NULL, ASTAR_ENOMEM);
    c->alloc = a;
    c->width = width;
    c->height = height;
    c->stride = width + 2;
    c->cells = (size_t)(width + 2) * (size_t)(height + 2);
    size_t count_bytes = astar_array_size(c->cells, sizeof(int32_t));
    size_t mark_bytes = astar_array_size(c->cells, sizeof(uint32_t));
    c->count = count_bytes ? astar_mem(&a, NULL, 0, count_bytes) : NULL;
    c->mark = mark_bytes ? astar_mem(&a, NULL, 0, mark_bytes) : NULL;
    if (!c->count || !c->mark) {
        astar_claims_free(c);
        return astar_made(NULL, ASTAR_ENOMEM);
    }
    memset(c->count, 0, count_bytes);
    memset(c->mark, 0, mark_bytes);
    return astar_made(c, ASTAR_OK);
}

static void free_unit_buffers(astar_claims *c, astar_unit_claim *u) {
    astar_mem(&c->alloc, u->cells, (size_t)u->cap * sizeof(int32_t), 0);
    astar_mem(&c->alloc, u->last, (size_t)u->cap, 0);
    u->cells = NULL;
    u->last = NULL;
    u->cap = 0;
}

void astar_claims_free(astar_claims *c) {
    if (!c) return;
    for (int32_t i = 0; i < c->nunits; i++) free_unit_buffers(c, &c->units[i]);
    astar_alloc a = c->alloc;
    astar_mem(&a, c->units, (size_t)c->cap_units * sizeof *c->units, 0);
    if (c->count) astar_mem(&a, c->count, c->cells * sizeof(int32_t), 0);
    if (c->mark) astar_mem(&a, c->mark, c->cells * sizeof(uint32_t), 0);
    astar_mem(&a, c, sizeof *c, 0);
}

int32_t astar_claims_width(const astar_claims *c) { return c->width; }
int32_t astar_claims_height(const astar_claims *c) { return c->height; }

int32_t astar_claims_unit_new(astar_claims *c) {
    for (int32_t i = 0; i < c->nunits; i++)
        if (c->units[i].pos == ASTAR_UNIT_FREE) {
            c->units[i].pos = ASTAR_UNIT_IDLE;
            return i;
        }
    if (c->nunits == c->cap_units) {
        if (c->cap_units >= INT32_MAX / 2) return -1;
        int32_t cap = c->cap_units ? c->cap_units * 2 : 8;
        size_t bytes = astar_array_size((size_t)cap, sizeof *c->units);
        astar_unit_claim *units = bytes ? astar_mem(&c->alloc, c->units,
                                                    (size_t)c->cap_units * sizeof *c->units, bytes)
                                        : NULL;
        if (!units) return -1;
        c->units = units;
        c->cap_units = cap;
    }
    astar_unit_claim *u = &c->units[c->nunits];
    memset(u, 0, sizeof *u);
    u->pos = ASTAR_UNIT_IDLE;
    return c->nunits++;
}

static astar_unit_claim *unit_slot(const astar_claims *c, int32_t unit) {
    if (unit < 0 || unit >= c->nunits || c->units[unit].pos == ASTAR_UNIT_FREE) return NULL;
    return &c->units[unit];
}

/* Adds delta to the count of every distinct node in u's claim from index `from` to `to`-1. */
static void count_range(astar_claims *c, const astar_unit_claim *u, int32_t from, int32_t to,
                        int32_t delta) {
    for (int32_t i = from; i < to; i++)
        if (u->last[i]) c->count[u->cells[i]] += delta;
}

static void drop_claim(astar_claims *c, astar_unit_claim *u) {
    if (u->pos >= 0) count_range(c, u, u->pos, u->n, -1);
    u->pos = ASTAR_UNIT_IDLE;
    u->n = 0;
}

astar_status astar_claims_set(astar_claims *c, int32_t unit, const int32_t *nodes, int32_t n) {
    astar_unit_claim *u = unit_slot(c, unit);
    if (!u || n < 1 || !nodes) return ASTAR_EINVAL;
    int64_t size = (int64_t)c->width * c->height;
    for (int32_t i = 0; i < n; i++)
        if (nodes[i] < 0 || nodes[i] >= size) return ASTAR_EINVAL;
    if (n > u->cap) {
        int32_t *cells = astar_mem(&c->alloc, NULL, 0, astar_array_size((size_t)n, sizeof(int32_t)));
        uint8_t *last = cells ? astar_mem(&c->alloc, NULL, 0, (size_t)n) : NULL;
        if (!last) {
            if (cells) astar_mem(&c->alloc, cells, (size_t)n * sizeof(int32_t), 0);
            return ASTAR_ENOMEM;
        }
        drop_claim(c, u); /* while u->cells and u->last still hold the old claim */
        free_unit_buffers(c, u);
        u->cells = cells;
        u->last = last;
        u->cap = n;
    }
    drop_claim(c, u);
    for (int32_t i = 0; i < n; i++)
        u->cells[i] = astar_cell(c->stride, nodes[i] % c->width, nodes[i] / c->width);
    if (++c->mark_gen == 0) { /* wrapped: old stamps could collide */
        memset(c->mark, 0, c->cells * sizeof(uint32_t));
        c->mark_gen = 1;
    }
    for (int32_t i = n - 1; i >= 0; i--) {
        uint32_t *m = &c->mark[u->cells[i]];
        u->last[i] = *m != c->mark_gen;
        *m = c->mark_gen;
    }
    u->n = n;
    u->pos = 0;
    count_range(c, u, 0, n, +1);
    return ASTAR_OK;
}

astar_status astar_claims_advance(astar_claims *c, int32_t unit, int32_t steps) {
    astar_unit_claim *u = unit_slot(c, unit);
    if (!u || steps < 0) return ASTAR_EINVAL;
    if (u->pos < 0) return ASTAR_OK; /* nothing claimed: nothing to move along */
    int64_t target = (int64_t)u->pos + steps;
    int32_t to = target > u->n - 1 ? u->n - 1 : (int32_t)target;
    /* A node's last occurrence before `to` means it is no longer ahead of the unit. */
    count_range(c, u, u->pos, to, -1);
    u->pos = to;
    return ASTAR_OK;
}

astar_status astar_claims_release(astar_claims *c, int32_t unit) {
    astar_unit_claim *u = unit_slot(c, unit);
    if (!u) return ASTAR_EINVAL;
    drop_claim(c, u);
    u->pos = ASTAR_UNIT_FREE;
    return ASTAR_OK;
}

int32_t astar_claims_count(const astar_claims *c, int32_t x, int32_t y) {
    if (x < 0 || y < 0 || x >= c->width || y >= c->height) return 0;
    return c->count[astar_cell(c->stride, x, y)];
}

int32_t astar_claims_current(const astar_claims *c, int32_t unit) {
    const astar_unit_claim *u = unit_slot(c, unit);
    if (!u || u->pos < 0) return -1;
    int32_t cell = u->cells[u->pos];
    return (cell / c->stride - 1) * c->width + (cell % c->stride - 1);
}
