/*
 * The step cost of a grid query, `L * cost(b) + max(0, P(b) + X(a, b))`
 * (astar.h), beyond what the loops inline (search.h): per-node penalties with
 * callbacks and noise, the moves a query allows, claims in time, and the
 * heuristics that need more than a formula.
 */
#include "search.h"

double astar_target_distance(const query_ctx *c, astar_heuristic h, int32_t x, int32_t y) {
    if (!c->target_h) return 0.0;
    double best = INFINITY;
    const double *extra = c->q->target_costs; /* a way through target i costs at least this more */
    for (int32_t i = 0; i < c->ntargets; i++) {
        double d = astar_h_between(c, h, x, y, c->target_xy[2 * i], c->target_xy[2 * i + 1]);
        if (extra) d += astar_cost_down(extra[i]);
        if (d < best) best = d;
    }
    return best;
}

double astar_custom_h(query_ctx *c, int32_t cell, int32_t x, int32_t y) {
    /* The memo is the cell's first-copy record's: a node of the second copy (interests) may ask
     * before the first copy has touched the cell this query, when the slot is a stale value. */
    astar_touch(c, cell);
    double *slot = &c->s->custom_h[cell];
    if (isnan(*slot)) {
        const astar_query *q = c->q;
        double h = astar_callback_h(q->heuristic_fn(q->heuristic_ud, x, y, q->gx, q->gy), &c->aborted);
        if (h < 0) return 0.0;
        *slot = astar_cost_down(h);
    }
    return *slot;
}

double astar_node_penalty(query_ctx *c, int32_t cell, int32_t x, int32_t y) {
    astar_touch(c, cell);
    double *slot = &c->s->penalty[cell];
    if (!isnan(*slot)) return *slot;
    const astar_query *q = c->q;
    double p = astar_layer_penalty(&c->pv, c, cell);
    if (q->noise > 0) p += astar_rounded(q->noise * astar_noise(q->seed, x, y));
    if (q->node_cost) {
        double extra = 0.0;
        int r = q->node_cost(q->node_cost_ud, x, y, &extra);
        p += astar_callback_cost(r, extra, &c->aborted);
    }
    *slot = p;
    return p;
}

/* Bit d: the neighbour in direction d is walkable terrain as the query sees it (a mask, or a
 * class the query blocks, changes the grid's bits). */
static unsigned terrain_bits(const query_ctx *c, int32_t a) {
    if (c->size > 1) { /* a neighbour the unit fits on; the diagonal rule then reads the side
                          anchors as it reads the side cells (docs/design/clearance.md) */
        if (!c->size_walls) return astar_fits_bits(c->clearance, c->offset, a, c->size);
        /* Walls of the query's own: from an anchor the unit fits on, it fits on a neighbour when
         * the cells the step newly covers are walkable (the 2n - 1 astar_entered_cost reads;
         * the rest of the footprint is a's); from one it does not (a start, a cell a field or
         * a path offers), the whole footprint is read. */
        bool fits = astar_fits(c, a);
        unsigned bits = 0;
        for (int d = 0; d < 8; d++) {
            int32_t b = a + c->offset[d];
            bool ok = fits ? (c->q->known || c->clearance[b] >= c->size) && astar_entered_cost(c, b, d) != INFINITY
                           : astar_fits(c, b);
            bits |= (unsigned)ok << d;
        }
        return bits;
    }
    if (!c->q->known && !c->class_factor) return c->open == c->g->open ? c->open[a] : astar_dead_end_view_at(&c->s->dead_ends, a);
    unsigned bits = 0;
    for (int d = 0; d < 8; d++)
        bits |= (unsigned)(astar_terrain_cost(c, a + c->offset[d]) != INFINITY) << d;
    return bits;
}

/* Clears the directions of `moves` whose cell node_cost blocks for this query. */
static unsigned drop_blocked(query_ctx *c, int32_t a, int32_t ax, int32_t ay, unsigned moves) {
    for (unsigned m = moves; m; m &= m - 1) {
        int d = astar_lowest_bit(m);
        if (!astar_walkable(c, a + c->offset[d], ax + ASTAR_DX[d], ay + ASTAR_DY[d]))
            moves &= ~(1u << d);
    }
    return moves;
}

/* Clears the directions of `moves` whose cell lies outside a two-tier query's corridor. */
static unsigned inside_corridor(const query_ctx *c, int32_t a, unsigned moves) {
    for (unsigned m = moves; m; m &= m - 1) {
        int d = astar_lowest_bit(m);
        if (c->corridor[a + c->offset[d]] != c->corridor_gen) moves &= ~(1u << d);
    }
    return moves;
}

static unsigned query_moves(query_ctx *c, int32_t a, int32_t ax, int32_t ay);

unsigned astar_query_moves(query_ctx *c, int32_t a, int32_t ax, int32_t ay) {
    unsigned moves = query_moves(c, a, ax, ay);
    return c->corridor ? inside_corridor(c, a, moves) : moves;
}

static unsigned query_moves(query_ctx *c, int32_t a, int32_t ax, int32_t ay) {
    unsigned terrain = terrain_bits(c, a);
    if (c->diagonal == ASTAR_DIAG_HEX) {
        unsigned moves = astar_hex_moves(terrain, ay);
        return c->q->node_cost ? drop_blocked(c, a, ax, ay, moves) : moves;
    }
    if (!c->q->node_cost) return astar_legal_moves(c->diagonal, terrain);
    unsigned straight = drop_blocked(c, a, ax, ay, terrain & 0xFu);
    unsigned moves = astar_legal_moves(c->diagonal, straight | (terrain & 0xF0u));
    return straight | drop_blocked(c, a, ax, ay, moves & 0xF0u);
}

/*
 * The claim penalty of the step from -> cell, entering cell at step `step` of this path, under
 * claim_window. Two units swapping cells between two steps meet on the way although neither
 * stands where the other does at any step: a unit that leaves `cell` for `from` just as this
 * path enters it counts too (with a window of 0 nothing else would see it).
 */
static double window_penalty(const query_ctx *c, int32_t from, int32_t cell, int32_t step) {
    const astar_search *s = c->s;
    if (s->claim_gen[cell] != s->pool.gen) return 0.0;
    int64_t w = c->q->claim_window;
    int32_t units = 0, counted = -1;
    /* A cell's claims are chained unit by unit, so one unit's come one after another. */
    for (int32_t i = s->window_head[cell]; i >= 0; i = s->window[i].next) {
        const window_claim *e = &s->window[i];
        bool meets = (step >= (int64_t)e->lo - w && step <= (int64_t)e->hi + w) ||
                     (step == (int64_t)e->hi + 1 && e->then == from);
        if (e->unit != counted && meets) {
            units++;
            counted = e->unit;
        }
    }
    return astar_rounded(c->q->claim_penalty * units);
}

double astar_step_extra(query_ctx *c, int32_t a, int32_t ax, int32_t ay, int32_t b, int32_t bx,
                        int32_t by, int32_t depth) {
    const astar_query *q = c->q;
    double extra = c->penalties ? astar_node_penalty(c, b, bx, by) : 0.0;
    if (c->windowed && extra != INFINITY) extra += window_penalty(c, a, b, depth);
    if (q->edge_cost) {
        double e = 0.0;
        int r = q->edge_cost(q->edge_cost_ud, bx, by, ax, ay, &e);
        e = astar_callback_cost(r, e, &c->aborted);
        if (e == INFINITY) return INFINITY;
        extra += e;
    }
    return extra > 0 ? extra : 0.0;
}
