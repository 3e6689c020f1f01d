/* Data the cost model reads: layers, fog-of-war masks and claims. */
#include "layers.h"
#include "grid.h"

#include <string.h>

/* ---------------------------------------------------------------- layers */

/*
 * The active list (layers.h): a tile is on it when it may hold a value other than +0. Writes
 * put the tiles they write on it; the passes over it (decay, spread, add_layer) take off the
 * tiles they leave at +0. -0 counts as a value: today's rules keep it where they kept it.
 */
enum { TILE_ACTIVE = 1, TILE_TODO = 2 };

static inline bool holds(double v) { return v != 0.0 || signbit(v); }

static size_t tile_count(const astar_layer *l) { return (size_t)l->tiles_x * (size_t)l->tiles_y; }

/* A tile's cells, [x0, x1) x [y0, y1) (layer coordinates). */
typedef struct tile_box {
    int32_t x0, x1, y0, y1;
} tile_box;

static tile_box tile_cells(const astar_layer *l, int32_t t) {
    int32_t tx = t % l->tiles_x, ty = t / l->tiles_x;
    tile_box b = {tx << ASTAR_LAYER_TILE_SHIFT, (tx + 1) << ASTAR_LAYER_TILE_SHIFT,
                  ty << ASTAR_LAYER_TILE_SHIFT, (ty + 1) << ASTAR_LAYER_TILE_SHIFT};
    if (b.x1 > l->width) b.x1 = l->width;
    if (b.y1 > l->height) b.y1 = l->height;
    return b;
}

static int32_t tile_of(const astar_layer *l, int32_t x, int32_t y) {
    return (y >> ASTAR_LAYER_TILE_SHIFT) * l->tiles_x + (x >> ASTAR_LAYER_TILE_SHIFT);
}

static void activate_tile(astar_layer *l, int32_t t) {
    if (l->tile_on[t] & TILE_ACTIVE) return;
    l->tile_on[t] |= TILE_ACTIVE;
    l->active[l->nactive++] = t;
}

static void activate_all(astar_layer *l) {
    int32_t n = (int32_t)tile_count(l);
    for (int32_t t = 0; t < n; t++) {
        l->tile_on[t] = TILE_ACTIVE;
        l->active[t] = t;
    }
    l->nactive = n;
}

/*
 * The tile bounds (layers.h): a write that raises a cell above its tile's bound raises the
 * bound, in O(1) (a stamp once per row and tile); one that lowers a cell leaves it above, still
 * a bound (making it exact would cost a pass over the tile per write); fill, add_layer, spread
 * and astar_layer_above, which read whole tiles anyway, make theirs exact (so a tile a moving
 * threat left is read once, by the next flee); scale scales them. The loops that search read
 * values, never bounds.
 */
static void raise_bound(astar_layer *l, int32_t t, double v) {
    if (v > l->tile_max[t]) l->tile_max[t] = v;
}

/* Cell (x, y) now holds v: its tile's flag and bound. */
static void wrote(astar_layer *l, int32_t x, int32_t y, double v) {
    int32_t t = tile_of(l, x, y);
    if (holds(v)) activate_tile(l, t);
    raise_bound(l, t, v);
}

/* The cells of the active tiles: what a pass over them counts (an upper bound: the last row
 * and column of tiles may be narrower). */
static uint64_t active_cells(const astar_layer *l) {
    return (uint64_t)l->nactive << (2 * ASTAR_LAYER_TILE_SHIFT);
}

/*
 * The sum bound (layers.h) stays above the exact sum whatever the rounding: each update is a
 * sum of at most three rounded terms times 1 + 2^-50, more than the (1 - 2^-53)^3 they can lose;
 * a pass's sum of n terms loses less than n * 2^-53 of it (recursive summation), which
 * 1 + (n + 2) * 2^-52 makes up.
 */
static double bound_update(double bound, double less, double more) {
    return (bound - less + more) * (1.0 + 0x1p-50);
}
static double bound_of_sum(double sum, uint64_t n) { return sum * (1.0 + (double)(n + 2) * 0x1p-52); }

/* Every cell (not the border) to v. */
static void fill_rows(astar_layer *l, double v) {
    for (int32_t y = 0; y < l->height; y++) {
        double *row = &l->value[astar_cell(l->stride, 0, y)];
        for (int32_t x = 0; x < l->width; x++) row[x] = v;
    }
}

/* A cell with the border each: what a constructor counts. */
static uint64_t bordered(int32_t width, int32_t height) {
    return (uint64_t)(width + 2) * (uint64_t)(height + 2);
}

/* A cell of the layer each (no border): what a bulk write over it counts. */
static uint64_t layer_cells(const astar_layer *l) { return (uint64_t)l->width * (uint64_t)l->height; }

/* Every cell to v (finite): the active list and the sum bound with it. */
static void fill_all(astar_layer *l, double v) {
    if (holds(v)) {
        fill_rows(l, v);
        activate_all(l);
        for (size_t t = 0; t < tile_count(l); t++) l->tile_max[t] = v;
        l->sum_bound = bound_of_sum(fabs(v) * (double)layer_cells(l), 1);
        return;
    }
    for (int32_t i = 0; i < l->nactive; i++) { /* the others hold +0 already */
        int32_t t = l->active[i];
        tile_box b = tile_cells(l, t);
        for (int32_t y = b.y0; y < b.y1; y++)
            for (int32_t x = b.x0; x < b.x1; x++) l->value[astar_cell(l->stride, x, y)] = 0.0;
        l->tile_on[t] = 0;
        l->tile_max[t] = 0.0;
    }
    l->nactive = 0;
    l->sum_bound = 0.0;
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
    l->tiles_x = (width + ASTAR_LAYER_TILE - 1) >> ASTAR_LAYER_TILE_SHIFT;
    l->tiles_y = (height + ASTAR_LAYER_TILE - 1) >> ASTAR_LAYER_TILE_SHIFT;
    size_t bytes = astar_array_size(l->cells, sizeof(double));
    l->value = bytes ? astar_mem(&a, NULL, 0, bytes) : NULL;
    l->tile_on = l->value ? astar_mem(&a, NULL, 0, tile_count(l)) : NULL;
    l->active = l->tile_on ? astar_mem(&a, NULL, 0, tile_count(l) * sizeof(int32_t)) : NULL;
    l->tile_max = l->active ? astar_mem(&a, NULL, 0, tile_count(l) * sizeof(double)) : NULL;
    if (!l->tile_max) {
        astar_layer_free(l);
        return astar_made(NULL, ASTAR_ENOMEM);
    }
    for (size_t i = 0; i < l->cells; i++) l->value[i] = 0.0;
    memset(l->tile_on, 0, tile_count(l));
    for (size_t t = 0; t < tile_count(l); t++) l->tile_max[t] = 0.0;
    fill_all(l, initial);
    return astar_made(l, ASTAR_OK);
}

void astar_layer_free(astar_layer *l) {
    if (!l) return;
    astar_alloc a = l->alloc;
    if (l->value) astar_mem(&a, l->value, l->cells * sizeof(double), 0);
    if (l->tile_on) astar_mem(&a, l->tile_on, tile_count(l), 0);
    if (l->active) astar_mem(&a, l->active, tile_count(l) * sizeof(int32_t), 0);
    if (l->tile_max) astar_mem(&a, l->tile_max, tile_count(l) * sizeof(double), 0);
    if (l->todo) astar_mem(&a, l->todo, tile_count(l) * sizeof(int32_t), 0);
    if (l->scratch) astar_mem(&a, l->scratch, l->scratch_cap * sizeof(double), 0);
    astar_mem(&a, l, sizeof *l, 0);
}

int32_t astar_layer_width(const astar_layer *l) { return l->width; }
int32_t astar_layer_height(const astar_layer *l) { return l->height; }

static bool layer_inside(const astar_layer *l, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < l->width && y < l->height;
}

/* Cell (x, y) from old to v: the value, its tile, its tile's bound and the sum bound. */
static void write_cell(astar_layer *l, int32_t x, int32_t y, double *cell, double v) {
    l->sum_bound = bound_update(l->sum_bound, fabs(*cell), fabs(v));
    *cell = v;
    wrote(l, x, y, v);
}

astar_status astar_layer_set(astar_layer *l, int32_t x, int32_t y, double v) {
    if (!layer_inside(l, x, y) || !astar_value_ok(v)) return ASTAR_EINVAL;
    write_cell(l, x, y, &l->value[astar_cell(l->stride, x, y)], v);
    return ASTAR_OK;
}

astar_status astar_layer_add(astar_layer *l, int32_t x, int32_t y, double v) {
    if (!layer_inside(l, x, y) || !astar_value_ok(v)) return ASTAR_EINVAL;
    double *cell = &l->value[astar_cell(l->stride, x, y)];
    if (!astar_value_ok(*cell + v)) return ASTAR_EINVAL;
    write_cell(l, x, y, cell, *cell + v);
    return ASTAR_OK;
}

double astar_layer_get(const astar_layer *l, int32_t x, int32_t y) {
    if (!layer_inside(l, x, y)) return NAN;
    return l->value[astar_cell(l->stride, x, y)];
}

astar_status astar_layer_fill(astar_layer *l, double v) {
    if (!astar_value_ok(v)) return ASTAR_EINVAL;
    if (astar_stopped_before(holds(v) ? layer_cells(l) : active_cells(l))) return ASTAR_ESTOPPED;
    fill_all(l, v);
    return ASTAR_OK;
}

const double *astar_layer_row(const astar_layer *l, int32_t y) {
    if (y < 0 || y >= l->height) return NULL;
    return l->value + astar_cell(l->stride, 0, y);
}

/* ----------------------------------- stamps, sums, scaling and spreading */

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
    uint64_t box = (uint64_t)(b.x1 - b.x0 + 1) * (uint64_t)(b.y1 - b.y0 + 1);
    if (astar_stopped_before(box)) return ASTAR_ESTOPPED;
    /* Two passes, so that a sum that would overflow changes nothing. */
    for (int pass = 0; pass < 2; pass++)
        for (int32_t cy = b.y0; cy <= b.y1; cy++) {
            /* the row's largest sum in the tile it crosses, raising that tile's bound once */
            int32_t seg = -1;
            double most = -INFINITY;
            for (int32_t cx = b.x0; cx <= b.x1; cx++) {
                double dx = cx - x, dy = cy - y, d = sqrt(dx * dx + dy * dy);
                if (d > radius) continue;
                double *v = &l->value[astar_cell(l->stride, cx, cy)];
                /* rounded before the sum, as query costs are (core.h): the same map on every build */
                double sum = *v + astar_rounded(strength * falloff_weight(falloff, d, radius));
                if (pass == 0 && !astar_value_ok(sum)) return ASTAR_EINVAL;
                if (pass == 1) {
                    *v = sum;
                    int32_t t = tile_of(l, cx, cy);
                    if (t != seg) {
                        if (seg >= 0) raise_bound(l, seg, most);
                        seg = t, most = sum;
                    } else if (sum > most) most = sum;
                    if (holds(sum)) activate_tile(l, t);
                }
            }
            if (seg >= 0) raise_bound(l, seg, most);
        }
    /* Each term is at most |strength| (its weight is at most 1). */
    l->sum_bound = bound_update(l->sum_bound, 0.0, fabs(strength) * (double)box);
    return ASTAR_OK;
}

/* The largest |value| of the active tiles' cells (the others hold +0). */
static double max_abs(const astar_layer *l) {
    double m = 0.0;
    for (int32_t i = 0; i < l->nactive; i++) {
        tile_box b = tile_cells(l, l->active[i]);
        for (int32_t y = b.y0; y < b.y1; y++) {
            const double *row = &l->value[astar_cell(l->stride, 0, y)];
            for (int32_t x = b.x0; x < b.x1; x++) {
                double a = fabs(row[x]);
                if (a > m) m = a;
            }
        }
    }
    return m;
}

double astar_layer_max_abs(const astar_layer *l) {
    return astar_stopped_before(active_cells(l)) ? NAN : max_abs(l);
}

/* The cells of l above threshold (>= 0: a cell of a tile off the active list is +0, never
 * above), as node ids in no fixed order, into ids (NULL: counted only): work in proportion to
 * the active tiles whose bound is above threshold, not the layer (flee's threats), the bounds
 * of those made exact. Returns how many. */
_Thread_local uint64_t astar_layer_above_reads;

int32_t astar_layer_above(astar_layer *l, double threshold, int32_t *ids) {
    int32_t n = 0;
    for (int32_t i = 0; i < l->nactive; i++) {
        int32_t t = l->active[i];
        if (!(l->tile_max[t] > threshold)) continue;
        tile_box b = tile_cells(l, t);
        astar_layer_above_reads += (uint64_t)(b.x1 - b.x0) * (uint64_t)(b.y1 - b.y0);
        double m = -INFINITY;
        for (int32_t y = b.y0; y < b.y1; y++) {
            const double *row = &l->value[astar_cell(l->stride, 0, y)];
            for (int32_t x = b.x0; x < b.x1; x++) {
                m = row[x] > m ? row[x] : m;
                if (!(row[x] > threshold)) continue;
                if (ids) ids[n] = y * l->width + x;
                n++;
            }
        }
        l->tile_max[t] = m;
    }
    return n;
}

/* After a pass that wrote the active tiles' cells: off the list the tiles left at +0 (bound 0),
 * the others' bounds exact when `exact` (else the caller's are kept), and the sum bound from
 * what they hold. */
static void settle_active(astar_layer *l, bool exact) {
    int32_t kept = 0;
    double sum = 0.0;
    uint64_t n = 0;
    for (int32_t i = 0; i < l->nactive; i++) {
        int32_t t = l->active[i];
        tile_box b = tile_cells(l, t);
        bool any = false;
        double m = -INFINITY;
        for (int32_t y = b.y0; y < b.y1; y++) {
            const double *row = &l->value[astar_cell(l->stride, 0, y)];
            if (exact)
                for (int32_t x = b.x0; x < b.x1; x++) m = row[x] > m ? row[x] : m;
            for (int32_t x = b.x0; x < b.x1; x++) {
                sum += fabs(row[x]);
                any |= holds(row[x]);
            }
            n += (uint64_t)(b.x1 - b.x0);
        }
        if (exact || !any) l->tile_max[t] = any ? m : 0.0;
        if (any) l->active[kept++] = t;
        else l->tile_on[t] &= (uint8_t)~TILE_ACTIVE;
    }
    l->nactive = kept;
    l->sum_bound = bound_of_sum(sum, n);
}

astar_status astar_layer_scale(astar_layer *l, double factor) {
    if (!(factor >= 0) || !astar_value_ok(factor)) return ASTAR_EINVAL;
    if (astar_stopped_before(active_cells(l))) return ASTAR_ESTOPPED;
    if (!astar_value_ok(max_abs(l) * factor)) return ASTAR_EINVAL;
    for (int32_t i = 0; i < l->nactive; i++) {
        tile_box b = tile_cells(l, l->active[i]);
        for (int32_t y = b.y0; y < b.y1; y++) {
            double *row = &l->value[astar_cell(l->stride, 0, y)];
            for (int32_t x = b.x0; x < b.x1; x++) row[x] *= factor;
        }
        /* v <= bound gives v * factor <= bound * factor (factor >= 0, rounding is monotone):
         * the bounds stay bounds, at no cost per cell (decay runs every frame); a loose bound
         * is capped at the largest value, so that it never grows to infinity (then NaN) */
        double *m = &l->tile_max[l->active[i]];
        *m = fmin(*m * factor, ASTAR_MAX_VALUE);
    }
    settle_active(l, false);
    return ASTAR_OK;
}

astar_status astar_layer_add_layer(astar_layer *l, const astar_layer *other, double weight) {
    if (!other || other->width != l->width || other->height != l->height || !astar_value_ok(weight))
        return ASTAR_EINVAL;
    /* Where other holds +0, l's cell is v + (+-0): v, or +0 for -0 where the product is +0 (as
     * before); so the cells to write are those of l's active tiles and other's. */
    if (astar_stopped_before(active_cells(l) + active_cells(other))) return ASTAR_ESTOPPED;
    /* as a superset (the same tiles: the same size): settle_active takes off those left at +0 */
    for (int32_t i = 0; i < other->nactive; i++) activate_tile(l, other->active[i]);
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < l->nactive; i++) {
            tile_box b = tile_cells(l, l->active[i]);
            for (int32_t y = b.y0; y < b.y1; y++)
                for (int32_t x = b.x0; x < b.x1; x++) {
                    size_t c = astar_cell(l->stride, x, y);
                    double sum = l->value[c] + astar_rounded(weight * other->value[c]);
                    if (pass == 0 && !astar_value_ok(sum)) return ASTAR_EINVAL;
                    if (pass == 1) l->value[c] = sum;
                }
        }
    settle_active(l, true);
    return ASTAR_OK;
}

/* What one spread step reads: the rule's constants and the layer's old values. */
typedef struct spread_rule {
    const double *v;
    const astar_grid *walk;
    bool hex;
    int32_t offset[8];
    double straight, diagonal, keep, take;
} spread_rule;

/* The new value of cell (x, y), index i, from the old values around it (astar.h's rule). */
static double spread_cell(const spread_rule *r, int32_t i, int32_t y) {
    /* The grid's border and the layer's share the layout: blocked and 0. */
    if (r->walk && r->walk->cost[i] == INFINITY) return r->v[i];
    double best = 0.0;
    unsigned open = r->walk ? r->walk->open[i] : 0xFFu; /* the border holds 0 */
    if (r->hex) open = astar_hex_moves(open, y);
    for (int d = 0; d < 8; d++) {
        if (!(open >> d & 1u)) continue;
        double c = r->v[i + r->offset[d]] * (d < 4 ? r->straight : r->diagonal);
        if (fabs(c) > fabs(best)) best = c;
    }
    return astar_rounded(r->keep * r->v[i]) + astar_rounded(r->take * best);
}

/*
 * The cells of tile t that a spread step computes: all of an active tile's; of another, those
 * next to an active tile (the others, +0 among +0s, stay +0). Empty: x0 >= x1.
 */
static tile_box spread_box(const astar_layer *l, int32_t t) {
    tile_box whole = tile_cells(l, t);
    if (l->tile_on[t] & TILE_ACTIVE) return whole;
    tile_box b = {whole.x1, whole.x0, whole.y1, whole.y0};
    int32_t tx = t % l->tiles_x, ty = t / l->tiles_x;
    for (int d = 0; d < 8; d++) {
        int32_t nx = tx + ASTAR_DX[d], ny = ty + ASTAR_DY[d];
        if (nx < 0 || ny < 0 || nx >= l->tiles_x || ny >= l->tiles_y) continue;
        if (!(l->tile_on[ny * l->tiles_x + nx] & TILE_ACTIVE)) continue;
        /* its row or column of cells facing that tile (a tile with a neighbour past it is whole) */
        int32_t x0 = ASTAR_DX[d] > 0 ? whole.x1 - 1 : whole.x0, x1 = ASTAR_DX[d] < 0 ? whole.x0 + 1 : whole.x1;
        int32_t y0 = ASTAR_DY[d] > 0 ? whole.y1 - 1 : whole.y0, y1 = ASTAR_DY[d] < 0 ? whole.y0 + 1 : whole.y1;
        if (x0 < b.x0) b.x0 = x0;
        if (x1 > b.x1) b.x1 = x1;
        if (y0 < b.y0) b.y0 = y0;
        if (y1 > b.y1) b.y1 = y1;
    }
    return b;
}

/* Room for spread's lists and n tiles of new values; false on OOM (nothing changed). */
static bool spread_room(astar_layer *l, size_t n) {
    if (!l->todo && !(l->todo = astar_mem(&l->alloc, NULL, 0, tile_count(l) * sizeof(int32_t)))) return false;
    size_t want = n << (2 * ASTAR_LAYER_TILE_SHIFT);
    if (want <= l->scratch_cap) return true;
    size_t cap = l->scratch_cap * 2 > want ? l->scratch_cap * 2 : want;
    size_t most = tile_count(l) << (2 * ASTAR_LAYER_TILE_SHIFT);
    if (cap > most) cap = most;
    double *s = astar_mem(&l->alloc, l->scratch, l->scratch_cap * sizeof(double), cap * sizeof(double));
    if (!s) return false;
    l->scratch = s;
    l->scratch_cap = cap;
    return true;
}

astar_status astar_layer_spread(astar_layer *l, double decay, double momentum,
                                const astar_grid *walk) {
    if (!(decay >= 0) || !isfinite(decay) || !(momentum >= 0 && momentum <= 1)) return ASTAR_EINVAL;
    if (walk && (walk->width != l->width || walk->height != l->height)) return ASTAR_EINVAL;
    /* The tiles to compute: the active ones and every tile next to one. */
    if (!spread_room(l, 0)) return ASTAR_ENOMEM;
    int32_t n = 0;
    for (int32_t i = 0; i < l->nactive; i++) {
        int32_t t = l->active[i], tx = t % l->tiles_x, ty = t / l->tiles_x;
        for (int d = -1; d < 8; d++) {
            int32_t nx = d < 0 ? tx : tx + ASTAR_DX[d], ny = d < 0 ? ty : ty + ASTAR_DY[d];
            if (nx < 0 || ny < 0 || nx >= l->tiles_x || ny >= l->tiles_y) continue;
            int32_t u = ny * l->tiles_x + nx;
            if (l->tile_on[u] & TILE_TODO) continue;
            l->tile_on[u] |= TILE_TODO;
            l->todo[n++] = u;
        }
    }
    bool stopped = astar_stopped_before((uint64_t)n << (2 * ASTAR_LAYER_TILE_SHIFT));
    if (stopped || !spread_room(l, (size_t)n)) {
        for (int32_t k = 0; k < n; k++) l->tile_on[l->todo[k]] &= (uint8_t)~TILE_TODO;
        return stopped ? ASTAR_ESTOPPED : ASTAR_ENOMEM;
    }
    /* Over a hex grid, a layer's value flows to the six hex neighbours, each one step away. */
    spread_rule r = {l->value, walk, walk && walk->diagonal == ASTAR_DIAG_HEX, {0}, 0, 0, momentum, 1.0 - momentum};
    r.straight = exp(-decay);
    r.diagonal = r.hex ? r.straight : exp(-decay * sqrt(2.0));
    for (int d = 0; d < 8; d++) r.offset[d] = ASTAR_DY[d] * l->stride + ASTAR_DX[d];
    /* Every new value from the old ones first, then written: all cells update at once. */
    for (int32_t k = 0; k < n; k++) {
        tile_box b = spread_box(l, l->todo[k]);
        double *fresh = l->scratch + ((size_t)k << (2 * ASTAR_LAYER_TILE_SHIFT));
        for (int32_t y = b.y0; y < b.y1; y++)
            for (int32_t x = b.x0; x < b.x1; x++)
                fresh[(y - b.y0) * ASTAR_LAYER_TILE + (x - b.x0)] = spread_cell(&r, (int32_t)astar_cell(l->stride, x, y), y);
    }
    /* Then written, each tile's flags kept until all are (spread_box reads them). */
    double sum = 0.0;
    uint64_t cells = 0;
    for (int32_t k = 0; k < n; k++) {
        int32_t t = l->todo[k];
        tile_box b = spread_box(l, t);
        const double *fresh = l->scratch + ((size_t)k << (2 * ASTAR_LAYER_TILE_SHIFT));
        bool any = false;
        /* an active tile's box is whole; another's cells out of its box stay +0 */
        double m = l->tile_on[t] & TILE_ACTIVE ? -INFINITY : 0.0;
        for (int32_t y = b.y0; y < b.y1; y++)
            for (int32_t x = b.x0; x < b.x1; x++) {
                double v = fresh[(y - b.y0) * ASTAR_LAYER_TILE + (x - b.x0)];
                l->value[astar_cell(l->stride, x, y)] = v;
                sum += fabs(v);
                any |= holds(v);
                m = v > m ? v : m;
                cells++;
            }
        l->tile_max[t] = m;
        l->todo[k] = any ? t : -1 - t; /* whether it stays (or becomes) active */
    }
    l->nactive = 0;
    for (int32_t k = 0; k < n; k++) {
        bool on = l->todo[k] >= 0;
        int32_t t = on ? l->todo[k] : -1 - l->todo[k];
        l->tile_on[t] = on ? TILE_ACTIVE : 0;
        if (on) l->active[l->nactive++] = t;
    }
    l->sum_bound = bound_of_sum(sum, cells);
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
        if (u->last[i]) {
            c->count[u->cells[i]] += delta;
            c->total += delta;
        }
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
