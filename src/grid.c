/* Grid topology: terrain costs with a blocked border, kept in step with the caches built on it. */
#include "grid.h"
#include "hierarchy.h"
#include "landmarks.h"

#include <string.h>

static bool valid_cost(double c) {
    return c == INFINITY || (c > 0 && c <= ASTAR_MAX_VALUE); /* +inf blocks */
}

/* Bytes of row_bits (rows) or col_bits. */
static size_t line_bytes(const astar_grid *g, bool rows) {
    return rows ? (size_t)(g->height + 2) * g->row_words * sizeof(uint64_t)
                : (size_t)g->stride * g->col_words * sizeof(uint64_t);
}

/* Sets every cell (cost checked) and what follows from it. */
static void fill_cells(astar_grid *g, double cost) {
    for (int32_t y = 0; y < g->height; y++) {
        double *row = &g->cost[astar_cell(g->stride, 0, y)];
        for (int32_t x = 0; x < g->width; x++) row[x] = cost;
    }
    astar_grid_terrain_reset(g);
}

/*
 * Keeps the cost range in step with one cell going from `old` to `cost`: the counts of cells
 * at either end tell whether the end moved. Only when the last cell at an end leaves it, for a
 * cost inside the range, is the new end unknown (a pass when next asked).
 */
static void range_changed(astar_grid *g, double old, double cost) {
    if (g->range_dirty) return;
    if (old != INFINITY) {
        if (old == g->min_cost) g->min_count--;
        if (old == g->max_cost) g->max_count--;
    }
    bool walkable = cost != INFINITY;
    if (walkable && (cost < g->min_cost || g->min_count == 0) && cost <= g->min_cost) {
        g->min_cost = cost;
        g->min_count = 1;
    } else if (walkable && cost == g->min_cost) {
        g->min_count++;
    }
    if (walkable && (cost > g->max_cost || g->max_count == 0) && cost >= g->max_cost) {
        g->max_cost = cost;
        g->max_count = 1;
    } else if (walkable && cost == g->max_cost) {
        g->max_count++;
    }
    if (g->min_count == 0 || g->max_count == 0) g->range_dirty = true;
}

astar_grid *astar_grid_new(int32_t width, int32_t height, astar_diagonal diagonal,
                           const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return astar_made(NULL, ASTAR_EINVAL);
    if (diagonal < ASTAR_DIAG_NEVER || diagonal > ASTAR_DIAG_HEX) return astar_made(NULL, ASTAR_EINVAL);
    /* A unit per cell (with the border), before anything is allocated. */
    if (astar_stopped_before((uint64_t)(width + 2) * (uint64_t)(height + 2))) return astar_made(NULL, ASTAR_ESTOPPED);
    astar_alloc a;
    astar_grid *g = astar_new_zeroed(alloc, sizeof *g, &a);
    if (!g) return astar_made(NULL, ASTAR_ENOMEM);
    g->alloc = a;
    g->width = width;
    g->height = height;
    g->stride = width + 2;
    g->cells = (size_t)(width + 2) * (size_t)(height + 2);
    g->diagonal = diagonal;
    for (unsigned bits = 0; bits < 256; bits++) {
        for (int mode = ASTAR_DIAG_NEVER; mode <= ASTAR_DIAG_NO_CORNER_CUT; mode++)
            g->legal[mode][bits] = (uint8_t)astar_legal_moves((astar_diagonal)mode, bits);
        g->legal[4][bits] = (uint8_t)astar_hex_moves(bits, 0);
        g->legal[5][bits] = (uint8_t)astar_hex_moves(bits, 1);
    }
    size_t bytes = astar_array_size(g->cells, sizeof(double));
    g->cost = bytes ? astar_mem(&a, NULL, 0, bytes) : NULL;
    g->open = g->cost ? astar_mem(&a, NULL, 0, g->cells) : NULL;
    g->row_words = ((size_t)g->stride + 63) / 64 + 2;
    g->col_words = ((size_t)height + 2 + 63) / 64 + 2;
    g->row_bits = g->open ? astar_mem(&a, NULL, 0, line_bytes(g, true)) : NULL;
    g->col_bits = g->row_bits ? astar_mem(&a, NULL, 0, line_bytes(g, false)) : NULL;
    /* With the grid, not on the first change: a write to one cell never allocates (nor fails). */
    g->log = g->col_bits ? astar_mem(&a, NULL, 0, ASTAR_CHANGE_LOG * sizeof *g->log) : NULL;
    if (!g->log) {
        astar_mem(&a, g->col_bits, g->col_bits ? line_bytes(g, false) : 0, 0);
        astar_mem(&a, g->row_bits, line_bytes(g, true), 0);
        astar_mem(&a, g->open, g->open ? g->cells : 0, 0);
        astar_mem(&a, g->cost, bytes, 0);
        astar_mem(&a, g, sizeof *g, 0);
        return astar_made(NULL, ASTAR_ENOMEM);
    }
    for (size_t i = 0; i < g->cells; i++) g->cost[i] = INFINITY;
    fill_cells(g, 1.0);
    return astar_made(g, ASTAR_OK);
}

void astar_grid_free(astar_grid *g) {
    if (!g) return;
    astar_alloc a = g->alloc;
    astar_islands_free(g);
    astar_dead_ends_free(g);
    astar_clearance_free(g);
    astar_jps_table_free(g);
    astar_landmarks_free(g);
    astar_hierarchy_free(g);
    astar_mem(&a, g->cost, g->cells * sizeof(double), 0);
    astar_mem(&a, g->open, g->cells, 0);
    astar_mem(&a, g->cls, g->cls ? g->cells : 0, 0);
    astar_mem(&a, g->class_cells, g->class_cells ? 256 * sizeof *g->class_cells : 0, 0);
    astar_mem(&a, g->class_log, g->class_log ? ASTAR_CHANGE_LOG * sizeof *g->class_log : 0, 0);
    astar_mem(&a, g->row_bits, line_bytes(g, true), 0);
    astar_mem(&a, g->col_bits, line_bytes(g, false), 0);
    astar_mem(&a, g->log, ASTAR_CHANGE_LOG * sizeof *g->log, 0);
    astar_mem(&a, g, sizeof *g, 0);
}

int32_t astar_grid_width(const astar_grid *g) { return g->width; }
int32_t astar_grid_height(const astar_grid *g) { return g->height; }
astar_diagonal astar_grid_diagonal(const astar_grid *g) { return g->diagonal; }

void astar_grid_set_diagonal(astar_grid *g, astar_diagonal d) {
    if (d >= ASTAR_DIAG_NEVER && d <= ASTAR_DIAG_HEX) g->diagonal = d;
}

static bool inside(const astar_grid *g, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < g->width && y < g->height;
}

/* Bumps the version with one cell's change, kept in the log. */
static void log_change(astar_grid *g, int32_t cell, double before, double after) {
    g->version++;
    astar_change *e = &g->log[g->version & (ASTAR_CHANGE_LOG - 1u)];
    e->version = g->version;
    e->cell = cell;
    e->before = before;
    e->after = after;
}

void astar_grid_changed_all(astar_grid *g) {
    g->version++;
    g->known_since = g->version;
}

astar_status astar_grid_set_cost(astar_grid *g, int32_t x, int32_t y, double cost) {
    if (!inside(g, x, y) || !valid_cost(cost)) return ASTAR_EINVAL;
    int32_t at = astar_cell(g->stride, x, y);
    double old = g->cost[at];
    if (old == cost) return ASTAR_OK;
    g->cost[at] = cost;
    log_change(g, at, old, cost);
    if ((old == INFINITY) != (cost == INFINITY)) {
        bool walkable = cost != INFINITY;
        for (int d = 0; d < 8; d++) { /* the neighbour in direction d sees this cell at d ^ 2 */
            uint8_t *bits = &g->open[at + ASTAR_DY[d] * g->stride + ASTAR_DX[d]];
            *bits = (uint8_t)(walkable ? *bits | 1u << (d ^ 2) : *bits & ~(1u << (d ^ 2)));
        }
        astar_grid_line_bits(g, at, walkable);
        astar_islands_cell_changed(g, at, walkable);
        astar_dead_ends_cell_changed(g, at, walkable);
        astar_clearance_cell_changed(g, at);
        astar_jps_table_cell_changed(g, at);
    }
    /* Dearer terrain leaves the landmarks' bound as it is; a cheaper (or opened) cell may make
     * some distances overestimate: they are repaired here, on the moves now legal. */
    if (cost < old && g->landmarks) astar_landmarks_lowered(g, at);
    if (g->hierarchy) astar_hierarchy_cell_changed(g, at, (old == INFINITY) != (cost == INFINITY));
    range_changed(g, old, cost);
    return ASTAR_OK;
}

double astar_grid_get_cost(const astar_grid *g, int32_t x, int32_t y) {
    if (!inside(g, x, y)) return NAN;
    return g->cost[astar_cell(g->stride, x, y)];
}

/* A class is no terrain: what the grid builds on its costs (islands, dead ends, JPS+,
 * landmarks, clusters) stays as it is, and a query with `classes` does not read what those
 * would get wrong (search.c). Only jobs with classes follow class_version (they start over). */
astar_status astar_grid_set_class(astar_grid *g, int32_t x, int32_t y, int cls) {
    if (!inside(g, x, y) || cls < 0 || cls > 255) return ASTAR_EINVAL;
    int32_t at = astar_cell(g->stride, x, y);
    if ((g->cls ? g->cls[at] : 0) == cls) return ASTAR_OK;
    if (!g->cls) {
        int32_t *counts = astar_mem(&g->alloc, NULL, 0, 256 * sizeof *counts);
        astar_class_change *log = counts ? astar_mem(&g->alloc, NULL, 0, ASTAR_CHANGE_LOG * sizeof *log) : NULL;
        g->cls = log ? astar_mem(&g->alloc, NULL, 0, g->cells) : NULL;
        if (!g->cls) {
            astar_mem(&g->alloc, log, log ? ASTAR_CHANGE_LOG * sizeof *log : 0, 0);
            astar_mem(&g->alloc, counts, counts ? 256 * sizeof *counts : 0, 0);
            return ASTAR_ENOMEM;
        }
        memset(g->cls, 0, g->cells);
        memset(counts, 0, 256 * sizeof *counts);
        counts[0] = g->width * g->height;
        g->class_cells = counts;
        g->class_log = log;
    }
    uint8_t before = g->cls[at];
    g->class_cells[before]--;
    g->class_cells[cls]++;
    g->cls[at] = (uint8_t)cls;
    g->class_version++;
    g->class_log[g->class_version & (ASTAR_CHANGE_LOG - 1u)] = (astar_class_change){at, before, (uint8_t)cls};
    return ASTAR_OK;
}

int astar_grid_get_class(const astar_grid *g, int32_t x, int32_t y) {
    if (!inside(g, x, y)) return -1;
    return g->cls ? g->cls[astar_cell(g->stride, x, y)] : 0;
}

/* A bulk write's units: a cell each, and the tables it builds again (those built before). */
static uint64_t cells_of(const astar_grid *g) {
    return (uint64_t)g->width * (uint64_t)g->height + astar_islands_reset_units(g) +
           astar_dead_ends_reset_units(g) + astar_jps_table_reset_units(g) +
           astar_clearance_reset_units(g);
}

astar_status astar_grid_fill(astar_grid *g, double cost) {
    if (!valid_cost(cost)) return ASTAR_EINVAL;
    if (astar_stopped_before(cells_of(g))) return ASTAR_ESTOPPED;
    fill_cells(g, cost);
    return ASTAR_OK;
}

astar_status astar_grid_set_all(astar_grid *g, const double *costs) {
    size_t n = (size_t)g->width * (size_t)g->height;
    if (astar_stopped_before(cells_of(g))) return ASTAR_ESTOPPED;
    for (size_t i = 0; i < n; i++)
        if (!valid_cost(costs[i])) return ASTAR_EINVAL;
    for (int32_t y = 0; y < g->height; y++) {
        double *row = &g->cost[astar_cell(g->stride, 0, y)];
        memcpy(row, costs + (size_t)y * (size_t)g->width, (size_t)g->width * sizeof(double));
    }
    astar_grid_terrain_reset(g);
    return ASTAR_OK;
}

/* Counting the cost range in a pass: start from range_empty, range_take each walkable cost. */
static void range_empty(astar_grid *g) {
    g->min_cost = INFINITY, g->max_cost = -INFINITY, g->min_count = g->max_count = 0;
    g->range_dirty = false;
}
static inline void range_take(astar_grid *g, double c) {
    if (c < g->min_cost) g->min_cost = c, g->min_count = 0;
    if (c == g->min_cost) g->min_count++;
    if (c > g->max_cost) g->max_cost = c, g->max_count = 0;
    if (c == g->max_cost) g->max_count++;
}

void astar_grid_terrain_reset(astar_grid *g) {
    int32_t offset[8];
    for (int d = 0; d < 8; d++) offset[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
    memset(g->open, 0, g->cells);
    memset(g->row_bits, 0, line_bytes(g, true));
    memset(g->col_bits, 0, line_bytes(g, false));
    range_empty(g); /* the cost range too, in the same pass: none left for the next query */
    for (int32_t y = 0; y < g->height; y++) {
        int32_t row = astar_cell(g->stride, 0, y);
        for (int32_t at = row; at < row + g->width; at++) {
            double c = g->cost[at];
            if (c != INFINITY) {
                astar_grid_line_bits(g, at, true);
                range_take(g, c);
            }
            unsigned bits = 0;
            for (int d = 0; d < 8; d++) bits |= (unsigned)(g->cost[at + offset[d]] != INFINITY) << d;
            g->open[at] = (uint8_t)bits;
        }
    }
    /* The tables built before, built again here at the write's own cost: never in a query. */
    astar_clearance_bulk_changed(g); /* first: bigger units' island labels read it */
    astar_islands_terrain_reset(g);
    astar_dead_ends_bulk_changed(g);
    astar_jps_table_bulk_changed(g);
    astar_landmarks_invalidate(g); /* bulk writes: no telling which way (set aside until built) */
    if (g->hierarchy) astar_hierarchy_all_dirty(g); /* a hierarchical query or prepare rebuilds */
    astar_grid_changed_all(g);
}

astar_status astar_grid_cost_range(astar_grid *g, double *min, double *max) {
    if (g->range_dirty) {
        /* A pass over the cells, a unit each: a lazy table of two numbers. */
        if (astar_progress_charge(astar_progress_get(), g->cells)) return ASTAR_ESTOPPED;
        range_empty(g);
        for (size_t i = 0; i < g->cells; i++)
            if (g->cost[i] != INFINITY) range_take(g, g->cost[i]);
    }
    *min = g->min_cost;
    *max = g->max_cost;
    return ASTAR_OK;
}

double astar_grid_min_cost(astar_grid *g) {
    double lo, hi;
    return astar_grid_cost_range(g, &lo, &hi) == ASTAR_OK ? lo : NAN;
}

uint32_t astar_grid_version(const astar_grid *g) { return g->version; }
