/*
 * JPS+ (Rabin, "JPS+: Over 100x Faster than A*", GDC 2015; Game AI Pro 2, ch. 14):
 * the scans of online jump point search, done ahead of the queries. Written from
 * the description, for this library's JPS rules (jps.c): no corner cutting, and
 * 4-connected runs that branch off vertical lines.
 *
 * Every entry follows from the one a step further along its line:
 *
 *     entry(p, d) = 0                 the step p -> p + d is not legal (p blocked too)
 *                 = 1                 p + d is a jump point for direction d
 *                 = entry(p + d, d) extended by one step, otherwise
 *
 * and "p + d is a jump point" reads the neighbours of p and, for the directions
 * whose scans branch (diagonals; 4-connected vertical lines), whether the straight
 * entries at p + d find something. So a build fills each direction from the far
 * end of its lines, straight (or horizontal) directions first; and a cell that
 * opens or closes changes, directly, only entries of its 3x3 neighbourhood. From
 * those, a change runs back along its line while entries keep changing, and a
 * straight entry that starts or stops finding a jump point sets off the same at
 * the cell behind it on each diagonal (or vertical line) that branches there.
 * Nothing else can change: a local update visits the entries that change plus
 * a few, never the table.
 *
 * Long lines: an entry holds 16 bits. Past ASTAR_JPS_TABLE_FAR steps without a stop it
 * says "look again there" (grid sides are at most 32768 cells today, so only a
 * whole line gets there, where it is also the wall's distance); such an entry also counts as "finds something" for the
 * scans that branch off it, which puts a (harmless) jump point on a diagonal that
 * meets it, and keeps the branching rule local.
 */
#include "grid.h"

#include <string.h>

static inline int32_t offset_of(const astar_grid *g, int d) {
    return ASTAR_DY[d] * g->stride + ASTAR_DX[d];
}

/* The two straight directions across straight direction d. */
static inline unsigned sides_of(int d) {
    return (1u << ((d + 1) & 3)) | (1u << ((d + 3) & 3));
}

static inline bool finds(int16_t v) { return v > 0 || v == -ASTAR_JPS_TABLE_FAR; }

/* Whether cell a, reached moving d, is a jump point for direction d (the goal aside). */
static bool stops_at(const astar_grid *g, const int16_t *dist, int kind, int32_t a, int d, int32_t off) {
    const int16_t *e = dist + (size_t)a * (size_t)astar_jps_table_dirs(kind);
    if (d >= 4) { /* a diagonal branches into its two sides everywhere */
        int i = d - 4;
        return finds(e[i]) || finds(e[(i + 1) & 3]);
    }
    if (g->open[a] & ~g->open[a - off] & sides_of(d)) return true; /* a forced neighbour */
    return kind == 1 && !(d & 1) && (finds(e[1]) || finds(e[3])); /* 4-connected vertical */
}

static int16_t entry_of(const astar_grid *g, const int16_t *dist, int kind, int32_t p, int d, int32_t off) {
    if (g->cost[p] == INFINITY) return 0; /* no jump starts there; keeps updates from running on */
    unsigned moves = kind ? g->open[p] & 0xFu : g->legal[ASTAR_DIAG_NO_CORNER_CUT][g->open[p]];
    if (!(moves >> d & 1u)) return 0;
    int32_t a = p + off;
    if (stops_at(g, dist, kind, a, d, off)) return 1;
    int32_t v = dist[(size_t)a * (size_t)astar_jps_table_dirs(kind) + (size_t)d];
    if (v > 0) return (int16_t)(v < ASTAR_JPS_TABLE_FAR ? v + 1 : -ASTAR_JPS_TABLE_FAR);
    return (int16_t)(v > -ASTAR_JPS_TABLE_FAR ? v - 1 : -ASTAR_JPS_TABLE_FAR);
}

/* The directions in the order a build fills them: what a direction reads comes first. */
static const int ORDER[ASTAR_JPS_TABLE_KINDS][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 3, 0, 2}};

/* A pass per direction, a unit per cell (charged row by row); false when the progress
 * handler said stop (the table is then half built). */
static bool build(const astar_grid *g, int kind, int16_t *dist, astar_progress *pr) {
    const int n = astar_jps_table_dirs(kind);
    memset(dist, 0, g->cells * (size_t)n * sizeof *dist); /* the border: no jumps */
    for (int k = 0; k < n; k++) {
        int d = ORDER[kind][k];
        int32_t off = offset_of(g, d);
        /* p + off before p: down the cell indices when off > 0, up otherwise. */
        for (int32_t r = 0; r < g->height; r++) {
            if (astar_progress_charge(pr, (uint64_t)g->width)) return false;
            if (off > 0) {
                int32_t y = g->height - r;
                for (int32_t p = y * g->stride + g->width; p > y * g->stride; p--)
                    dist[(size_t)p * (size_t)n + (size_t)d] = entry_of(g, dist, kind, p, d, off);
            } else {
                int32_t y = r + 1;
                for (int32_t p = y * g->stride + 1; p <= y * g->stride + g->width; p++)
                    dist[(size_t)p * (size_t)n + (size_t)d] = entry_of(g, dist, kind, p, d, off);
            }
        }
    }
    return true;
}

static void settle(const astar_grid *g, int16_t *dist, int kind, int32_t p, int d);

/* A straight entry at p began or ceased to find a jump point: the scans that branch off p. */
static void pass_on(const astar_grid *g, int16_t *dist, int kind, int32_t p, int d) {
    if (kind == 0 && d < 4) { /* diagonal 4 + i lies between i and i + 1 */
        int left = 4 + d, right = 4 + ((d + 3) & 3);
        settle(g, dist, kind, p - offset_of(g, left), left);
        settle(g, dist, kind, p - offset_of(g, right), right);
    } else if (kind == 1 && (d & 1)) {
        settle(g, dist, kind, p - offset_of(g, 0), 0);
        settle(g, dist, kind, p - offset_of(g, 2), 2);
    }
}

/*
 * Recomputes direction d's entry at p, and while it changes, those behind p on its
 * line. Ends at a blocked cell at the latest (its entries stay 0), so on the border.
 * Order does not matter: every entry is recomputed after the last change of anything
 * it reads.
 */
static void settle(const astar_grid *g, int16_t *dist, int kind, int32_t p, int d) {
    const size_t n = (size_t)astar_jps_table_dirs(kind);
    const int32_t off = offset_of(g, d);
    for (;; p -= off) {
        int16_t *e = &dist[(size_t)p * n + (size_t)d];
        int16_t v = entry_of(g, dist, kind, p, d, off);
        if (v == *e) return;
        bool found = finds(*e);
        *e = v;
        if (found != finds(v)) pass_on(g, dist, kind, p, d);
    }
}

void astar_jps_table_cell_changed(astar_grid *g, int32_t cell) {
    for (int kind = 0; kind < ASTAR_JPS_TABLE_KINDS; kind++) {
        astar_jps_table *t = &g->jps_tables[kind];
        if (!t->dist || !t->fresh) continue;
        for (int k = 0; k < astar_jps_table_dirs(kind); k++) {
            int d = ORDER[kind][k];
            bool down = offset_of(g, d) > 0; /* the far cells of the 3x3 first: fewer repeats */
            for (int r = 0; r < 9; r++) {
                int at = down ? 8 - r : r;
                settle(g, t->dist, kind, cell + (at / 3 - 1) * g->stride + (at % 3 - 1), d);
            }
        }
    }
}

uint64_t astar_jps_table_reset_units(const astar_grid *g) {
    uint64_t units = 0;
    for (int kind = 0; kind < ASTAR_JPS_TABLE_KINDS; kind++)
        if (g->jps_tables[kind].dist)
            units += (uint64_t)g->width * (uint64_t)g->height * (uint64_t)astar_jps_table_dirs(kind);
    return units;
}

void astar_jps_table_bulk_changed(astar_grid *g) {
    for (int kind = 0; kind < ASTAR_JPS_TABLE_KINDS; kind++) {
        astar_jps_table *t = &g->jps_tables[kind];
        if (t->dist) t->fresh = build(g, kind, t->dist, astar_progress_none());
    }
}

static size_t table_bytes(const astar_grid *g, int kind) {
    return astar_array_size(g->cells, (size_t)astar_jps_table_dirs(kind) * sizeof(int16_t));
}

astar_status astar_jps_table_get(astar_grid *g, int kind, astar_jps_table **out) {
    astar_jps_table *t = &g->jps_tables[kind];
    *out = NULL;
    if (!t->dist) {
        size_t bytes = table_bytes(g, kind);
        t->dist = bytes ? astar_mem(&g->alloc, NULL, 0, bytes) : NULL;
        if (!t->dist) return ASTAR_ENOMEM;
        t->fresh = false;
    }
    if (!t->fresh) {
        if (!build(g, kind, t->dist, astar_progress_get())) return ASTAR_ESTOPPED;
        t->fresh = true;
    }
    *out = t;
    return ASTAR_OK;
}

astar_status astar_grid_prepare_jumps(astar_grid *g, astar_diagonal mode) {
    if (!g) return ASTAR_EINVAL;
    if (mode == ASTAR_DIAG_DEFAULT) mode = g->diagonal;
    if (mode != ASTAR_DIAG_NO_CORNER_CUT && mode != ASTAR_DIAG_NEVER) return ASTAR_EINVAL;
    astar_jps_table *t;
    return astar_jps_table_get(g, astar_jps_table_kind(mode), &t);
}

size_t astar_grid_jump_bytes(const astar_grid *g) { return g ? astar_jps_table_bytes(g) : 0; }

void astar_jps_table_free(astar_grid *g) {
    for (int kind = 0; kind < ASTAR_JPS_TABLE_KINDS; kind++) {
        if (g->jps_tables[kind].dist) astar_mem(&g->alloc, g->jps_tables[kind].dist, table_bytes(g, kind), 0);
        g->jps_tables[kind].dist = NULL;
    }
}

int64_t astar_jps_table_mismatches(astar_grid *g, int kind) {
    const astar_jps_table *t = &g->jps_tables[kind];
    if (!t->dist || !t->fresh) return -1;
    size_t bytes = table_bytes(g, kind);
    int16_t *fresh = bytes ? astar_mem(&g->alloc, NULL, 0, bytes) : NULL;
    if (!fresh) return -1;
    build(g, kind, fresh, astar_progress_none());
    int64_t differ = 0;
    for (size_t i = 0; i < bytes / sizeof *fresh; i++) differ += fresh[i] != t->dist[i];
    astar_mem(&g->alloc, fresh, bytes, 0);
    return differ;
}

size_t astar_jps_table_bytes(const astar_grid *g) {
    size_t sum = 0;
    for (int kind = 0; kind < ASTAR_JPS_TABLE_KINDS; kind++)
        if (g->jps_tables[kind].dist) sum += table_bytes(g, kind);
    return sum;
}
