/* The A* engine: workspace, cost composition and the search loop. */
#include "heap.h"
#include "internal.h"

#include <string.h>

#define SQRT2 1.4142135623730951

astar_search *astar_search_new(int32_t width, int32_t height, const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return NULL;
    astar_alloc a = astar_pick_alloc(alloc);
    astar_search *s = astar_mem(&a, NULL, 0, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->alloc = a;
    s->width = width;
    s->height = height;
    s->stride = width + 2;
    s->cells = (size_t)(width + 2) * (size_t)(height + 2);
    size_t node_bytes = astar_array_size(s->cells, sizeof *s->nodes);
    s->nodes = node_bytes ? astar_mem(&a, NULL, 0, node_bytes) : NULL;
    if (!s->nodes) {
        astar_search_free(s);
        return NULL;
    }
    memset(s->nodes, 0, node_bytes); /* gen 0 is never current: every node starts stale */
    return s;
}

void astar_search_free(astar_search *s) {
    if (!s) return;
    astar_alloc a = s->alloc;
    astar_mem(&a, s->nodes, s->cells * sizeof *s->nodes, 0);
    astar_mem(&a, s->heap.items, (size_t)s->heap.cap * sizeof *s->heap.items, 0);
    astar_mem(&a, s->penalty, s->cells * sizeof *s->penalty, 0);
    astar_mem(&a, s->custom_h, s->cells * sizeof *s->custom_h, 0);
    astar_mem(&a, s->claimed, s->cells * sizeof *s->claimed, 0);
    astar_mem(&a, s->claim_gen, s->cells * sizeof *s->claim_gen, 0);
    astar_mem(&a, s->target_of, s->cells * sizeof *s->target_of, 0);
    astar_mem(&a, s->target_gen, s->cells * sizeof *s->target_gen, 0);
    astar_mem(&a, s->depth, s->cells * sizeof *s->depth, 0);
    astar_mem(&a, s->window_head, s->cells * sizeof *s->window_head, 0);
    astar_mem(&a, s->window, (size_t)s->window_cap * sizeof *s->window, 0);
    astar_mem(&a, s->path, (size_t)s->path_cap * sizeof *s->path, 0);
    astar_mem(&a, s, sizeof *s, 0);
}

const int32_t *astar_search_path(const astar_search *s, int32_t *length) {
    if (length) *length = s->path_len;
    return s->path;
}

void astar_query_init(astar_query *q) {
    memset(q, 0, sizeof *q);
    q->diagonal = ASTAR_DIAG_DEFAULT;
    q->heuristic = ASTAR_H_DEFAULT;
    q->weight = 1.0;
    q->unit = -1;
    q->claim_penalty = 5.0;
    q->claim_radius = -1;
    q->claim_window = -1;
    q->max_cost = INFINITY;
    q->max_expansions = UINT64_MAX;
}

/* A per-cell array, allocated the first time a query needs it and kept for the next ones. */
static void *cell_array(astar_search *s, size_t elem, bool zeroed) {
    size_t bytes = astar_array_size(s->cells, elem);
    void *p = bytes ? astar_mem(&s->alloc, NULL, 0, bytes) : NULL;
    if (p && zeroed) memset(p, 0, bytes);
    return p;
}

/* Doubles the open list, up to one slot per cell (a cell is in it at most once). */
bool astar_search_grow_heap(astar_search *s) {
    astar_heap *hp = &s->heap;
    int32_t cap = hp->cap ? hp->cap * 2 : 256;
    if ((size_t)cap > s->cells) cap = (int32_t)s->cells;
    if (cap <= hp->cap) return false; /* cannot happen */
    astar_heap_entry *items = astar_mem(&s->alloc, hp->items, (size_t)hp->cap * sizeof *items,
                                        (size_t)cap * sizeof *items);
    if (!items) return false;
    hp->items = items;
    hp->cap = cap;
    return true;
}

/* The `from` of the start: no direction, and (FROM_START ^ 2) masks no move. */
#define FROM_START 8

static const double STEP[8] = {1.0, 1.0, 1.0, 1.0, SQRT2, SQRT2, SQRT2, SQRT2};

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
static inline int lowest_bit(unsigned m) { return __builtin_ctz(m); }
#else
#define ALWAYS_INLINE inline
static inline int lowest_bit(unsigned m) {
    int d = 0;
    while (!(m & 1u)) m >>= 1, d++;
    return d;
}
#endif

/*
 * A division by the stride costs more than the rest of an expansion's
 * bookkeeping; cells are below 2^31 and the stride below 2^16, so
 * floor(cell * ceil(2^s / stride) / 2^s) with s = 32 + ceil(log2 stride) is exact.
 */
static void init_row_division(query_ctx *c) {
    int bits = 0;
    while ((1 << bits) < c->stride) bits++;
    c->row_shift = 32 + bits;
    c->row_magic = ((UINT64_C(1) << c->row_shift) + (uint64_t)c->stride - 1) / (uint64_t)c->stride;
}

static inline int32_t row_of(const query_ctx *c, int32_t cell) {
    return (int32_t)(((uint64_t)(uint32_t)cell * c->row_magic) >> c->row_shift);
}

/* The octile distance, the default heuristic, for the loop that knows it is the one. */
static inline double octile_h(int32_t dx, int32_t dy) {
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    return dx < dy ? dy + (SQRT2 - 1.0) * dx : dx + (SQRT2 - 1.0) * dy;
}

static double distance(astar_heuristic h, int32_t ax, int32_t ay, int32_t bx, int32_t by);

/* The distance to the nearest target (0 when there are too many to scan: Dijkstra). */
static double target_distance(const query_ctx *c, astar_heuristic h, int32_t x, int32_t y) {
    if (!c->target_h) return 0.0;
    double best = INFINITY;
    for (int32_t i = 0; i < c->ntargets; i++) {
        double d = distance(h, x, y, c->target_xy[2 * i], c->target_xy[2 * i + 1]);
        if (d < best) best = d;
    }
    return best;
}

/* Hex steps between two odd-r cells: in cube coordinates (q, r) half the sum of |dq|, |dr|
 * and |dq + dr|. */
static double hex_distance(int32_t ax, int32_t ay, int32_t bx, int32_t by) {
    int32_t dq = (bx - (by - (by & 1)) / 2) - (ax - (ay - (ay & 1)) / 2), dr = by - ay;
    int32_t ds = dq + dr;
    return (double)(((dq < 0 ? -dq : dq) + (dr < 0 ? -dr : dr) + (ds < 0 ? -ds : ds)) / 2);
}

static double distance(astar_heuristic h, int32_t ax, int32_t ay, int32_t bx, int32_t by) {
    if (h == ASTAR_H_HEX) return hex_distance(ax, ay, bx, by);
    int32_t dx = bx - ax, dy = by - ay;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    double lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    switch (h) {
    case ASTAR_H_OCTILE: return hi + (SQRT2 - 1.0) * lo;
    case ASTAR_H_MANHATTAN: return hi + lo;
    case ASTAR_H_EUCLIDEAN: return sqrt(hi * hi + lo * lo);
    case ASTAR_H_CHEBYSHEV: return hi;
    default: return 0.0;
    }
}

/* The landmarks' bound on the cost from a cell to the goal (see landmarks.c). A NaN
 * (unknown) distance makes its term NaN, which loses every comparison. */
static double landmark_h(const query_ctx *c, int32_t cell) {
    const float *v = c->lm + (size_t)cell * (size_t)c->lm_stride;
    const float *back = v + c->lm_back;
    double best = 0.0, behind = 0.0; /* two chains: the terms do not wait for each other */
    for (int32_t j = 0; j < c->lm_active; j++) {
        int32_t i = c->lm_index[j];
        double t = c->lm_from[j] - (double)v[i] * ASTAR_LANDMARK_UP;
        double u = (double)back[i] - c->lm_to[j];
        if (t > best) best = t;
        if (u > behind) behind = u;
    }
    if (behind > best) best = behind;
    return best * c->lm_shrink;
}

/* h of a touched cell. A custom heuristic is asked once per node per query. */
static inline double heuristic(query_ctx *c, int32_t cell, int32_t x, int32_t y) {
    if (c->ntargets) return target_distance(c, c->heuristic, x, y) * c->h_scale;
    if (c->heuristic != ASTAR_H_CUSTOM) {
        double h = distance(c->heuristic, x, y, c->gx, c->gy) * c->h_scale;
        if (c->lm) {
            double alt = landmark_h(c, cell);
            if (alt > h) h = alt;
        }
        return h;
    }
    double *slot = &c->s->custom_h[cell];
    if (isnan(*slot)) {
        const astar_query *q = c->q;
        double h = q->heuristic_fn(q->heuristic_ud, x, y, q->gx, q->gy);
        if (!(h >= 0 && h <= ASTAR_MAX_VALUE)) {
            c->aborted = true;
            return 0.0;
        }
        *slot = h;
    }
    return *slot;
}

/* Touches a cell for this query: stale records become "not reached yet". */
static inline astar_node *touch(query_ctx *c, int32_t cell) {
    astar_node *n = &c->s->nodes[cell];
    if (n->gen != c->s->gen) {
        n->gen = c->s->gen;
        n->g = INFINITY;
        n->heap = ASTAR_NOT_OPEN;
        if (c->penalties) c->s->penalty[cell] = NAN; /* computed on first need */
        if (c->heuristic == ASTAR_H_CUSTOM) c->s->custom_h[cell] = NAN;
    }
    return n;
}

/*
 * P(b) of influence layers and claims. The loop without callbacks computes it
 * again each time: cheaper than memoising. Finite: every term is bounded
 * (ASTAR_MAX_VALUE).
 */
static ALWAYS_INLINE double layer_penalty(const penalty_view *v, const query_ctx *c, int32_t cell) {
    double p = 0.0;
    if (v->nlayers > 0) {
        p += v->weight0 * v->value0[cell];
        for (int i = 1; i < v->nlayers; i++) p += c->layer_weight[i] * c->layer_value[i][cell];
    }
    if (v->claims) {
        int32_t n = v->count[cell]; /* 0 on most cells, and then the query's count is 0 too */
        if (n != 0 && v->overlay)
            n = v->claim_gen[cell] == v->gen ? v->claimed[cell] : v->only_overlay ? 0 : n;
        p += v->claim_penalty * n;
    }
    return p;
}

/* P(b) + node_cost(b) for a walkable cell, memoised per query; INFINITY when the query blocks it. */
static double node_penalty(query_ctx *c, int32_t cell, int32_t x, int32_t y) {
    touch(c, cell);
    double *slot = &c->s->penalty[cell];
    if (!isnan(*slot)) return *slot;
    const astar_query *q = c->q;
    double p = layer_penalty(&c->pv, c, cell);
    if (q->noise > 0) p += q->noise * astar_noise(q->seed, x, y);
    if (q->node_cost) {
        double extra = 0.0;
        int r = q->node_cost(q->node_cost_ud, x, y, &extra);
        if (r == ASTAR_CB_BLOCK || (r == ASTAR_CB_PASS && extra == INFINITY)) {
            p = INFINITY;
        } else if (r != ASTAR_CB_PASS || !(extra >= 0 && extra <= ASTAR_MAX_VALUE)) {
            c->aborted = true;
            p = INFINITY;
        } else {
            p += extra;
        }
    }
    *slot = p;
    return p;
}

/* The terrain as the query sees it: with a fog-of-war mask, unknown cells cost 1. */
static inline double terrain_cost(const query_ctx *c, int32_t cell) {
    const astar_mask *m = c->q->known;
    return m && !m->known[cell] ? 1.0 : c->cost[cell];
}

/* Bit d: the neighbour in direction d is walkable terrain as the query sees it. */
static unsigned terrain_bits(const query_ctx *c, int32_t a) {
    if (!c->q->known) return c->g->open[a];
    unsigned bits = 0;
    for (int d = 0; d < 8; d++) bits |= (unsigned)(terrain_cost(c, a + c->offset[d]) != INFINITY) << d;
    return bits;
}

/* Effective walkability of a cell: terrain, then what the query's node_cost blocks. */
static bool walkable(query_ctx *c, int32_t cell, int32_t x, int32_t y) {
    if (terrain_cost(c, cell) == INFINITY) return false;
    if (!c->q->node_cost) return true;
    return node_penalty(c, cell, x, y) != INFINITY;
}

/* Clears the directions of `moves` whose cell node_cost blocks for this query. */
static unsigned drop_blocked(query_ctx *c, int32_t a, int32_t ax, int32_t ay, unsigned moves) {
    for (unsigned m = moves; m; m &= m - 1) {
        int d = lowest_bit(m);
        if (!walkable(c, a + c->offset[d], ax + ASTAR_DX[d], ay + ASTAR_DY[d]))
            moves &= ~(1u << d);
    }
    return moves;
}

/* The legal moves from a under this query: the corner rule sees what node_cost blocks. */
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
    if (s->claim_gen[cell] != s->gen) return 0.0;
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
    return c->q->claim_penalty * units;
}

/*
 * What a step's direction is for turn_penalty. On squares, the move itself; on
 * hexes a move's square direction depends on the row it leaves (see
 * astar_hex_moves), so the direction is its step in cube coordinates (dq, dr).
 */
static inline int heading(const query_ctx *c, int d, int32_t y) {
    if (c->diagonal != ASTAR_DIAG_HEX) return d;
    int dr = ASTAR_DY[d], dq = ASTAR_DX[d];
    if (dr < 0 && !(y & 1)) dq++;
    if (dr > 0 && (y & 1)) dq--;
    return (dq + 1) * 3 + (dr + 1);
}

/* The extra cost of the step a -> b beyond terrain; INFINITY when the query blocks it. */
static double step_extra(query_ctx *c, int32_t a, int32_t ax, int32_t ay, int32_t b, int32_t bx,
                         int32_t by) {
    const astar_query *q = c->q;
    double extra = c->penalties ? node_penalty(c, b, bx, by) : 0.0;
    if (c->windowed && extra != INFINITY) extra += window_penalty(c, a, b, c->s->depth[a] + 1);
    if (q->edge_cost) {
        double e = 0.0;
        int r = q->edge_cost(q->edge_cost_ud, bx, by, ax, ay, &e);
        if (r == ASTAR_CB_BLOCK || (r == ASTAR_CB_PASS && e == INFINITY)) return INFINITY;
        if (r != ASTAR_CB_PASS || !(e >= 0 && e <= ASTAR_MAX_VALUE)) {
            c->aborted = true;
            return INFINITY;
        }
        extra += e;
    }
    return extra > 0 ? extra : 0.0;
}

static ALWAYS_INLINE bool push(astar_search *s, int32_t cell, double f, double h) {
    if (s->heap.len == s->heap.cap && !astar_search_grow_heap(s)) return false;
    int32_t i = s->heap.len++;
    s->heap.items[i] = (astar_heap_entry){astar_heap_key(f, h), cell};
    astar_heap_up(&s->heap, i, s->nodes);
    return true;
}

static bool store_path(query_ctx *c, int32_t end, int32_t start) {
    astar_search *s = c->s;
    int32_t len = 1;
    for (int32_t cell = end; cell != start; cell -= c->offset[s->nodes[cell].from]) len++;
    if (len > s->path_cap) {
        int32_t *p = astar_mem(&s->alloc, s->path, (size_t)s->path_cap * sizeof *p,
                               (size_t)len * sizeof *p);
        if (!p) return false;
        s->path = p;
        s->path_cap = len;
    }
    s->path_len = len;
    int32_t cell = end;
    for (int32_t i = len - 1; i >= 0; i--) {
        int32_t y = row_of(c, cell);
        s->path[i] = (y - 1) * s->width + (cell - y * s->stride - 1);
        if (i > 0) cell -= c->offset[s->nodes[cell].from];
    }
    return true;
}

/*
 * The search loop. `general` is a constant at both call sites, so the compiler
 * makes two loops of it: the plain one (terrain and a built-in heuristic: no
 * penalty array, no callbacks, no per-neighbour walkability test beyond a
 * byte of legal moves) and the general one.
 */
static inline astar_status done(astar_result *res, uint64_t expansions, astar_status st) {
    res->expansions = expansions;
    return st;
}

static ALWAYS_INLINE astar_status run(query_ctx *c, uint64_t budget, astar_result *res,
                                      const bool general, const bool layered, const bool octile,
                                      const bool uniform) {
    const int32_t start = c->start;
    astar_search *s = c->s;
    const astar_query *q = c->q;
    const double *cost = c->cost;
    const uint8_t *open = c->g->open;
    const uint8_t *legal = c->g->legal[c->diagonal];
    astar_node *nodes = s->nodes;
    const uint16_t gen = s->gen;
    const int32_t stride = c->stride;
    int32_t offset[8]; /* a local copy: stores to the node records cannot alias it */
    memcpy(offset, c->offset, sizeof offset);
    double step[8]; /* likewise, and one load where the table needs an address computed */
    for (int d = 0; d < 8; d++) {
        step[d] = c->diagonal == ASTAR_DIAG_HEX ? 1.0 : STEP[d];
        if (uniform) step[d] *= c->uniform_cost;
    }
    const double h_scale = c->h_scale;
    /* The loop's invariants in locals: the compiler cannot keep what c points to in registers
     * across the stores to the node records. */
    const int32_t goal = c->goal, gx = c->gx, gy = c->gy;
    const bool goal_open = c->goal_open;
    const uint64_t row_magic = c->row_magic;
    const int row_shift = c->row_shift;
    const double weight = c->weight, max_cost = q->max_cost;
    const bool partial = q->partial != 0, eight = c->diagonal != ASTAR_DIAG_NEVER;
    const penalty_view pv = c->pv;
    /* Where an earlier step left off (all zero at the start). */
    bool pruned = c->pruned;
    int32_t best = c->best;
    double best_h = c->best_h, best_g = c->best_g;
    astar_status outcome = ASTAR_UNREACHABLE;
    uint64_t expansions = c->expansions; /* a local: res could alias what the loop stores */
    /* One test per expansion serves both the query's limit and this step's budget. */
    const uint64_t stop = budget < q->max_expansions - expansions ? expansions + budget : q->max_expansions;

    while (s->heap.len > 0) {
        if (expansions >= stop) {
            if (expansions >= q->max_expansions) {
                outcome = ASTAR_LIMIT;
                break;
            }
            c->expansions = expansions;
            c->pruned = pruned;
            c->best = best;
            c->best_h = best_h;
            c->best_g = best_g;
            return done(res, expansions, ASTAR_RUNNING);
        }
        astar_heap_entry top = astar_heap_pop(&s->heap, nodes);
        int32_t a = top.cell;
        expansions++;
        double ga = nodes[a].g;
        bool arrived = general && c->ntargets ? s->target_gen[a] == gen
                                              : a == goal && goal_open; /* a blocked goal is only
                                                                          expanded as the start */
        if (arrived) {
            if (!store_path(c, a, start)) return done(res, expansions, ASTAR_ENOMEM);
            if (general && c->ntargets) res->target = s->target_of[a];
            res->cost = ga;
            res->length = s->path_len;
            return done(res, expansions, ASTAR_OK);
        }
        int32_t row = (int32_t)(((uint64_t)(uint32_t)a * row_magic) >> row_shift); /* row_of */
        int32_t ax = a - row * stride - 1, ay = row - 1;
        if (partial) {
            astar_heuristic rank = c->heuristic != ASTAR_H_ZERO ? c->heuristic
                                   : c->diagonal == ASTAR_DIAG_HEX ? ASTAR_H_HEX
                                   : eight ? ASTAR_H_OCTILE : ASTAR_H_MANHATTAN;
            double h;
            if (c->heuristic == ASTAR_H_CUSTOM) {
                h = s->custom_h[a];
            } else {
                h = c->ntargets ? target_distance(c, rank, ax, ay) : distance(rank, ax, ay, c->gx, c->gy);
                if (c->heuristic != ASTAR_H_ZERO) h *= c->h_scale;
            }
            if (h < best_h || (h == best_h && ga < best_g)) {
                best = a;
                best_h = h;
                best_g = ga;
            }
        }
        unsigned moves = general ? query_moves(c, a, ax, ay) : legal[open[a]];
        if (general && c->aborted) return done(res, expansions, ASTAR_EABORT);
        moves &= ~(1u << (nodes[a].from ^ 2)); /* the way back leads to a closed node (none at the start) */
        for (; moves; moves &= moves - 1) {
            int d = lowest_bit(moves);
            int32_t b = a + offset[d];
            double ng = ga + (uniform ? step[d] : step[d] * (general ? terrain_cost(c, b) : cost[b]));
            if (layered) {
                double p = layer_penalty(&pv, c, b);
                if (p > 0) ng += p;
            }
            if (general) {
                double extra = step_extra(c, a, ax, ay, b, ax + ASTAR_DX[d], ay + ASTAR_DY[d]);
                if (c->aborted) return done(res, expansions, ASTAR_EABORT);
                if (extra == INFINITY) continue;
                ng += extra;
                int from = nodes[a].from;
                if (q->turn_penalty > 0 && from != FROM_START &&
                    heading(c, from, ay - ASTAR_DY[from]) != heading(c, d, ay))
                    ng += q->turn_penalty;
            }
            astar_node *n = general ? touch(c, b) : &nodes[b];
            if (!general && n->gen != gen) { /* first reached */
                n->gen = gen;
                n->g = INFINITY;
                n->heap = ASTAR_NOT_OPEN;
            }
            if (!(ng < n->g)) continue;
            if (ng > max_cost) {
                pruned = true;
                continue;
            }
            if (n->heap != ASTAR_NOT_OPEN) { /* decrease-key */
                astar_heap_entry *e = &s->heap.items[n->heap];
                double h = octile ? octile_h(ax + ASTAR_DX[d] - gx, ay + ASTAR_DY[d] - gy) * h_scale
                                  : heuristic(c, b, ax + ASTAR_DX[d], ay + ASTAR_DY[d]);
                n->g = ng;
                n->from = (uint8_t)d;
                if (general && c->windowed) s->depth[b] = s->depth[a] + 1;
                e->key = astar_heap_key(ng + weight * h, h);
                astar_heap_up(&s->heap, n->heap, nodes);
                continue;
            }
            /* A closed node can improve only under a custom (maybe inconsistent) heuristic. A
             * weighted search stays within its bound without reopening, and improvements that
             * are just rounding of equal-cost routes are ignored. */
            if (n->g != INFINITY && !(c->reopen && ng < n->g - 1e-10 * n->g)) continue;
            double h = octile ? octile_h(ax + ASTAR_DX[d] - gx, ay + ASTAR_DY[d] - gy) * h_scale
                              : heuristic(c, b, ax + ASTAR_DX[d], ay + ASTAR_DY[d]);
            if (general && c->aborted) return done(res, expansions, ASTAR_EABORT);
            n->g = ng;
            n->from = (uint8_t)d;
            if (general && c->windowed) s->depth[b] = s->depth[a] + 1;
            if (!push(s, b, ng + weight * h, h)) return done(res, expansions, ASTAR_ENOMEM);
        }
    }
    if (outcome == ASTAR_UNREACHABLE && pruned) outcome = ASTAR_LIMIT;
    if (partial) {
        if (!store_path(c, best, start)) return done(res, expansions, ASTAR_ENOMEM);
        res->cost = nodes[best].g;
        res->length = s->path_len;
        res->reason = outcome;
        return done(res, expansions, ASTAR_PARTIAL);
    }
    return done(res, expansions, outcome);
}

/* Terrain and a built-in heuristic. */
static astar_status run_plain(query_ctx *c, uint64_t budget, astar_result *res) {
    /* With landmarks the loop that calls heuristic() (it combines them with the built-in one):
     * no instantiation of its own, which would crowd the others out of inlining. */
    if (c->heuristic == ASTAR_H_OCTILE && c->uniform_cost > 0 && !c->lm)
        return run(c, budget, res, false, false, true, true);
    if (c->heuristic == ASTAR_H_OCTILE && !c->lm) return run(c, budget, res, false, false, true, false);
    return run(c, budget, res, false, false, false, false);
}

/* Plus influence layers and claims, but no callbacks. */
static astar_status run_layered(query_ctx *c, uint64_t budget, astar_result *res) {
    if (c->heuristic == ASTAR_H_OCTILE && c->uniform_cost > 0 && !c->lm)
        return run(c, budget, res, false, true, true, true);
    if (c->heuristic == ASTAR_H_OCTILE && !c->lm) return run(c, budget, res, false, true, true, false);
    return run(c, budget, res, false, true, false, false);
}

static astar_status run_general(query_ctx *c, uint64_t budget, astar_result *res) {
    return run(c, budget, res, true, false, false, false);
}

/* Counts the claims this query sees where they differ from claims->count. */
static void prepare_claims(query_ctx *c) {
    const astar_query *q = c->q;
    const astar_claims *cl = q->claims;
    astar_search *s = c->s;
    uint16_t gen = s->gen;
    c->pv.count = cl->count;
    if (q->claim_radius < 0) {
        if (q->unit < 0 || q->unit >= cl->nunits) return;
        c->pv.overlay = true;
        const astar_unit_claim *u = &cl->units[q->unit];
        for (int32_t i = u->pos < 0 ? u->n : u->pos; i < u->n; i++)
            if (u->last[i]) {
                s->claimed[u->cells[i]] = cl->count[u->cells[i]] - 1;
                s->claim_gen[u->cells[i]] = gen;
            }
        return;
    }
    c->pv.overlay = true;
    c->pv.only_overlay = true;
    for (int32_t k = 0; k < cl->nunits; k++) {
        const astar_unit_claim *u = &cl->units[k];
        if (k == q->unit || u->pos < 0) continue;
        int32_t here = u->cells[u->pos];
        int32_t dx = here % cl->stride - 1 - q->sx, dy = here / cl->stride - 1 - q->sy;
        if (dx < 0) dx = -dx;
        if (dy < 0) dy = -dy;
        if (dx > q->claim_radius || dy > q->claim_radius) continue;
        for (int32_t i = u->pos; i < u->n; i++)
            if (u->last[i]) {
                int32_t cell = u->cells[i];
                s->claimed[cell] = (s->claim_gen[cell] == gen ? s->claimed[cell] : 0) + 1;
                s->claim_gen[cell] = gen;
            }
    }
}

/* Chains, per cell, the claims this query sees with their times (claim_window). */
static bool prepare_window(query_ctx *c) {
    const astar_query *q = c->q;
    const astar_claims *cl = q->claims;
    astar_search *s = c->s;
    s->window_len = 0;
    for (int32_t k = 0; k < cl->nunits; k++) {
        const astar_unit_claim *u = &cl->units[k];
        if (k == q->unit || u->pos < 0) continue;
        if (q->claim_radius >= 0) {
            int32_t here = u->cells[u->pos];
            int32_t dx = here % cl->stride - 1 - q->sx, dy = here / cl->stride - 1 - q->sy;
            if (dx < -q->claim_radius || dx > q->claim_radius || dy < -q->claim_radius ||
                dy > q->claim_radius)
                continue;
        }
        if (u->n - u->pos > s->window_cap - s->window_len) {
            int64_t cap = (int64_t)s->window_cap * 2;
            if (cap < (int64_t)s->window_len + (u->n - u->pos)) cap = (int64_t)s->window_len + (u->n - u->pos);
            if (cap < 64) cap = 64;
            if (cap > INT32_MAX) return false;
            window_claim *w = astar_mem(&s->alloc, s->window, (size_t)s->window_cap * sizeof *w,
                                        (size_t)cap * sizeof *w);
            if (!w) return false;
            s->window = w;
            s->window_cap = (int32_t)cap;
        }
        for (int32_t i = u->pos; i < u->n; i++) {
            int32_t cell = u->cells[i];
            if (s->claim_gen[cell] != s->gen) {
                s->claim_gen[cell] = s->gen;
                s->window_head[cell] = -1;
            }
            window_claim *e = &s->window[s->window_len];
            e->unit = k;
            e->lo = i - u->pos;
            e->hi = i == u->n - 1 ? INT32_MAX : e->lo; /* it stays on its last node */
            e->then = i == u->n - 1 ? -1 : u->cells[i + 1];
            e->next = s->window_head[cell];
            s->window_head[cell] = s->window_len++;
        }
    }
    return true;
}

static astar_status check_query(const astar_search *s, const astar_grid *g, const astar_query *q) {
    if (s->width != g->width || s->height != g->height) return ASTAR_EINVAL;
    if (q->sx < 0 || q->sy < 0 || q->sx >= g->width || q->sy >= g->height) return ASTAR_EINVAL;
    if (q->gx < 0 || q->gy < 0 || q->gx >= g->width || q->gy >= g->height) return ASTAR_EINVAL;
    if (q->diagonal < ASTAR_DIAG_DEFAULT || q->diagonal > ASTAR_DIAG_HEX) return ASTAR_EINVAL;
    if (q->heuristic < ASTAR_H_DEFAULT || q->heuristic > ASTAR_H_CUSTOM) return ASTAR_EINVAL;
    if (q->heuristic == ASTAR_H_CUSTOM && !q->heuristic_fn) return ASTAR_EINVAL;
    if (!(q->weight >= 1.0 && q->weight <= ASTAR_MAX_VALUE)) return ASTAR_EINVAL;
    if (q->nlayers < 0 || q->nlayers > ASTAR_MAX_LAYERS || (q->nlayers > 0 && !q->layers))
        return ASTAR_EINVAL;
    for (int i = 0; i < q->nlayers; i++) {
        const astar_layer *l = q->layers[i].layer;
        if (!l || l->width != g->width || l->height != g->height || !astar_value_ok(q->layers[i].weight))
            return ASTAR_EINVAL;
    }
    if (q->claims) {
        if (q->claims->width != g->width || q->claims->height != g->height) return ASTAR_EINVAL;
        if (!(q->claim_penalty >= 0 && q->claim_penalty <= ASTAR_MAX_VALUE)) return ASTAR_EINVAL;
    }
    if (isnan(q->max_cost) || q->max_cost < 0) return ASTAR_EINVAL;
    if (q->known && (q->known->width != g->width || q->known->height != g->height)) return ASTAR_EINVAL;
    if (!(q->noise >= 0 && q->noise <= ASTAR_MAX_VALUE)) return ASTAR_EINVAL;
    if (!(q->turn_penalty >= 0 && q->turn_penalty <= ASTAR_MAX_VALUE) || q->claim_window < -1)
        return ASTAR_EINVAL;
    if (q->jps != ASTAR_JPS_AUTO && q->jps != ASTAR_JPS_OFF) return ASTAR_EINVAL;
    if (q->ntargets < 0 || (q->ntargets > 0 && (!q->targets || q->heuristic == ASTAR_H_CUSTOM)))
        return ASTAR_EINVAL;
    for (int32_t i = 0; i < q->ntargets; i++)
        if (q->targets[i] < 0 || q->targets[i] / g->width >= g->height) return ASTAR_EINVAL;
    return ASTAR_OK;
}

static astar_status finish(astar_result *res, astar_status st) {
    res->status = st;
    return st;
}

/* The query's landmarks: the goal's distances, and which ones to evaluate. With more than
 * ASTAR_LANDMARKS_ACTIVE, those whose bound is largest at the start (a bound that holds
 * there tends to hold along the way); otherwise all, in any order (h is their maximum). */
static void use_landmarks(query_ctx *c, const astar_landmarks *lm, int32_t start) {
    int32_t stride = lm->dirs * lm->k, back = lm->dirs == 2 ? lm->k : 0;
    const float *at_goal = lm->dist + (size_t)c->goal * (size_t)stride;
    const float *at_start = lm->dist + (size_t)start * (size_t)stride;
    c->lm = lm->dist;
    c->lm_stride = stride;
    c->lm_back = back;
    c->lm_shrink = lm->shrink;
    bool rank = lm->k > ASTAR_LANDMARKS_ACTIVE;
    double bound[ASTAR_LANDMARKS_ACTIVE]; /* ranked: kept in decreasing order (insertion) */
    int32_t m = 0;
    for (int32_t i = 0; i < lm->k; i++) {
        double from = at_goal[i], to = at_goal[back + i];
        from = isnan(from) ? -INFINITY : from;
        to = isnan(to) ? INFINITY : to * ASTAR_LANDMARK_UP;
        int32_t j = m;
        if (rank) {
            double t = from - (double)at_start[i] * ASTAR_LANDMARK_UP;
            double u = (double)at_start[back + i] - to;
            double b = u > t ? u : t;
            if (isnan(b)) b = -INFINITY; /* the start unknown to it: last choice */
            if (m == ASTAR_LANDMARKS_ACTIVE && !(b > bound[m - 1])) continue;
            j = m < ASTAR_LANDMARKS_ACTIVE ? m++ : m - 1;
            for (; j > 0 && bound[j - 1] < b; j--) {
                bound[j] = bound[j - 1];
                c->lm_index[j] = c->lm_index[j - 1];
                c->lm_from[j] = c->lm_from[j - 1];
                c->lm_to[j] = c->lm_to[j - 1];
            }
            bound[j] = b;
        } else {
            m++;
        }
        c->lm_index[j] = i;
        c->lm_from[j] = from;
        c->lm_to[j] = to;
    }
    c->lm_active = m;
}

/*
 * Everything a query needs before its first push: checks, the context, the
 * workspace's per-cell arrays, a fresh stamp and the claims it sees. *callbacks
 * gets whether the query must take the general loop (`general` forces it).
 */
static astar_status begin_query(query_ctx *c_out, astar_search *s, astar_grid *g, const astar_query *q,
                                bool general, bool *callbacks_out) {
    astar_status st = check_query(s, g, q);
    if (st != ASTAR_OK) return st;
    query_ctx *c = c_out; /* built in place: the context is large, a copy per query is not free */
    memset(c, 0, sizeof *c);
    c->s = s;
    c->g = g;
    c->q = q;
    c->cost = g->cost;
    c->stride = g->stride;
    for (int d = 0; d < 8; d++) c->offset[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
    init_row_division(c);
    c->gx = q->gx;
    c->gy = q->gy;
    c->goal = astar_cell(g->stride, q->gx, q->gy);
    c->diagonal = q->diagonal == ASTAR_DIAG_DEFAULT ? g->diagonal : q->diagonal;
    c->heuristic = q->heuristic;
    if (c->heuristic == ASTAR_H_DEFAULT)
        c->heuristic = c->diagonal == ASTAR_DIAG_HEX     ? ASTAR_H_HEX
                      : c->diagonal == ASTAR_DIAG_NEVER ? ASTAR_H_MANHATTAN
                                                       : ASTAR_H_OCTILE;
    double min_cost, max_cost;
    astar_grid_cost_range(g, &min_cost, &max_cost);
    c->h_scale = isfinite(min_cost) ? min_cost : 0.0;
    if (q->known) c->h_scale = min_cost < 1.0 ? min_cost : 1.0; /* unknown cells cost 1 */
    c->uniform_cost = min_cost == max_cost ? min_cost : 0.0;
    /* Landmarks bound the terrain's distances under their moves. Fog of war may make a cell
     * cheaper than its terrain, a mode with more moves a way shorter; a named heuristic is
     * used as given; many targets would need a bound per target. */
    const astar_landmarks *lm = astar_landmarks_for(g, c->diagonal);
    if (lm && q->heuristic == ASTAR_H_DEFAULT && !q->known && q->ntargets == 0)
        use_landmarks(c, lm, astar_cell(g->stride, q->sx, q->sy));
    c->weight = q->weight;
    for (int i = 0; i < q->nlayers; i++) {
        c->layer_value[i] = q->layers[i].layer->value;
        c->layer_weight[i] = q->layers[i].weight;
    }
    /* A reopened node would take a new heading and step count while what was reached through
     * it keeps costs of the old ones: with turns or windows, closed stays closed (the answer is
     * approximate there anyway, and its cost stays that of its path). */
    c->reopen = c->heuristic == ASTAR_H_CUSTOM && !(q->turn_penalty > 0) && !(q->claims && q->claim_window >= 0);
    /* Callbacks, fog of war, many targets, noise and hexes take the general loop; only it memoises
     * per-node penalties (a Lua node_cost is dear, a noise hash not free), which keeps the
     * layered loop lean. */
    bool callbacks = general || q->node_cost || q->edge_cost || c->heuristic == ASTAR_H_CUSTOM ||
                     q->known || q->ntargets > 0 || q->noise > 0 || c->diagonal == ASTAR_DIAG_HEX ||
                     q->turn_penalty > 0 || (q->claims && q->claim_window >= 0);
    c->windowed = q->claims && q->claim_window >= 0;
    bool layered = q->nlayers > 0 || q->claims;
    c->penalties = callbacks && (layered || q->node_cost || q->noise > 0);
    if (c->penalties && !s->penalty && !(s->penalty = cell_array(s, sizeof *s->penalty, false)))
        return ASTAR_ENOMEM;
    if (c->heuristic == ASTAR_H_CUSTOM && !s->custom_h &&
        !(s->custom_h = cell_array(s, sizeof *s->custom_h, false)))
        return ASTAR_ENOMEM;
    if (q->claims && !s->claimed && !(s->claimed = cell_array(s, sizeof *s->claimed, false)))
        return ASTAR_ENOMEM;
    if (q->claims && !s->claim_gen && !(s->claim_gen = cell_array(s, sizeof *s->claim_gen, true)))
        return ASTAR_ENOMEM;
    if (c->windowed && !s->depth && !(s->depth = cell_array(s, sizeof *s->depth, false)))
        return ASTAR_ENOMEM;
    if (c->windowed && !s->window_head &&
        !(s->window_head = cell_array(s, sizeof *s->window_head, false)))
        return ASTAR_ENOMEM;
    if (q->ntargets && !s->target_of && !(s->target_of = cell_array(s, sizeof *s->target_of, false)))
        return ASTAR_ENOMEM;
    if (q->ntargets && !s->target_gen && !(s->target_gen = cell_array(s, sizeof *s->target_gen, true)))
        return ASTAR_ENOMEM;

    /* Stamps are 16 bits to keep a node record in 16 bytes; clearing them once in 65536
     * queries costs far less than a wider record would. */
    if (++s->gen == 0) { /* wrapped: stale stamps could look current */
        for (size_t i = 0; i < s->cells; i++) s->nodes[i].gen = 0;
        if (s->claim_gen) memset(s->claim_gen, 0, s->cells * sizeof *s->claim_gen);
        if (s->target_gen) memset(s->target_gen, 0, s->cells * sizeof *s->target_gen);
        s->gen = 1;
    }
    s->heap.len = 0;
    c->pv.nlayers = q->nlayers;
    if (q->nlayers > 0) {
        c->pv.value0 = c->layer_value[0];
        c->pv.weight0 = c->layer_weight[0];
    }
    if (c->windowed) {
        if (!prepare_window(c)) return ASTAR_ENOMEM;
    } else if (q->claims) {
        c->pv.claims = true;
        c->pv.claim_penalty = q->claim_penalty;
        c->pv.claimed = s->claimed;
        c->pv.claim_gen = s->claim_gen;
        c->pv.gen = s->gen;
        prepare_claims(c);
    }
    *callbacks_out = callbacks;
    return ASTAR_OK;
}

/*
 * Sets up the search of q on s up to its first push. Returns ASTAR_RUNNING when
 * there is a search to run, else its final status (found at once, unreachable at
 * once, or an error).
 */
static astar_status start_search(astar_search *s, astar_grid *g, const astar_query *q,
                                 bool jps_ok, astar_result *res) {
    memset(res, 0, sizeof *res);
    res->target = -1;
    s->path_len = 0;
    query_ctx *c = &s->job; /* the live search's context, set up where it will stay */
    bool callbacks;
    astar_status st = begin_query(c, s, g, q, false, &callbacks);
    if (st != ASTAR_OK) return st;
    c->callbacks = callbacks;
    c->layered = q->nlayers > 0 || q->claims;

    int32_t start = astar_cell(g->stride, q->sx, q->sy);
    c->start = start;
    c->best = start;
    c->best_h = INFINITY;
    c->ntargets = q->ntargets;
    c->target_h = q->ntargets <= ASTAR_HEURISTIC_TARGETS;
    if (q->ntargets) { /* mark the walkable targets; the first of duplicates names the cell */
        c->goal_open = false;
        for (int32_t i = q->ntargets - 1; i >= 0; i--) {
            int32_t x = q->targets[i] % g->width, y = q->targets[i] / g->width;
            int32_t cell = astar_cell(g->stride, x, y);
            if (c->target_h) {
                c->target_xy[2 * i] = x;
                c->target_xy[2 * i + 1] = y;
            }
            if (!walkable(c, cell, x, y)) continue;
            s->target_gen[cell] = s->gen;
            s->target_of[cell] = i;
            c->goal_open = true;
        }
    } else {
        c->goal_open = walkable(c, c->goal, q->gx, q->gy);
    }
    if (c->aborted) return ASTAR_EABORT;
    if (!c->goal_open && !q->partial) return ASTAR_UNREACHABLE;

    /* Another island: no search. (The labels' only lazy writes; astar_find_prepare makes them
     * ahead for the threads of astar_find_many.) */
    /* (Not with fog of war: the unknown cells the labels count as blocked may be open.) */
    if (!q->partial && !q->known && g->cost[start] != INFINITY && (q->ntargets || start != c->goal)) {
        c->islands = astar_islands_get(g, astar_island_kind(c->diagonal), false);
        if (!c->islands) return ASTAR_ENOMEM;
        bool same = false;
        int32_t home = astar_islands_root(c->islands, start);
        if (q->ntargets) {
            for (int32_t i = 0; i < q->ntargets && !same; i++) {
                int32_t cell = astar_cell(g->stride, q->targets[i] % g->width, q->targets[i] / g->width);
                same = s->target_gen[cell] == s->gen && astar_islands_root(c->islands, cell) == home;
            }
        } else {
            same = home == astar_islands_root(c->islands, c->goal);
        }
        if (!same) return ASTAR_UNREACHABLE;
    }

    /* Uniform terrain and nothing on top: jump point search gives the same cost for far fewer
     * expansions (README, Performance). Partial answers would need every cell ranked, and a
     * blocked start no island check, so those stay with A*; so do searches in slices (a jump
     * has no budget to stop at) and budgeted ones: JPS counts jump points, not cells, and
     * meets a path's costs in another order, so max_expansions or max_cost would cut it
     * elsewhere than A*, and a query's answer must not depend on which engine ran it. */
    if (jps_ok && q->jps == ASTAR_JPS_AUTO && !callbacks && !c->layered && c->uniform_cost > 0 &&
        q->weight == 1.0 && !q->partial && g->cost[start] != INFINITY &&
        q->max_expansions == UINT64_MAX && q->max_cost == INFINITY &&
        ((c->diagonal == ASTAR_DIAG_NO_CORNER_CUT && c->heuristic == ASTAR_H_OCTILE) ||
         (c->diagonal == ASTAR_DIAG_NEVER && c->heuristic == ASTAR_H_MANHATTAN))) {
        st = astar_jps_find(s, g, c->diagonal, start, c->goal, c->uniform_cost, res);
        if (st == ASTAR_UNREACHABLE && c->islands && c->islands->state == ASTAR_ISLANDS_OVER)
            c->islands->wasted += res->expansions;
        return st;
    }

    astar_node *sn = touch(c, start);
    sn->g = 0.0;
    sn->from = FROM_START;
    if (c->windowed) s->depth[start] = 0;
    double h0 = heuristic(c, start, q->sx, q->sy);
    if (c->aborted) return ASTAR_EABORT;
    if (!push(s, start, c->weight * h0, h0)) return ASTAR_ENOMEM;
    return ASTAR_RUNNING;
}

/* Runs the live search of s for up to `budget` expansions. */
static astar_status continue_search(astar_search *s, uint64_t budget, astar_result *res) {
    query_ctx *c = &s->job;
    astar_status st = c->callbacks ? run_general(c, budget, res)
                      : c->layered ? run_layered(c, budget, res)
                                   : run_plain(c, budget, res);
    if (st == ASTAR_UNREACHABLE && c->islands && c->islands->state == ASTAR_ISLANDS_OVER)
        c->islands->wasted += res->expansions; /* a fresh build might have spared this search */
    return st;
}

/* Records a step's outcome: a final one ends the search and is kept for later steps. */
static astar_status settle(astar_search *s, astar_result *res, astar_status st) {
    res->status = st;
    res->restarts = s->job_restarts;
    if (st != ASTAR_RUNNING) {
        s->job_live = false;
        s->job_result = *res;
    }
    return st;
}

/* A new search on s; jps_ok lets a uniform query be answered at once by jump point search. */
static astar_status begin_search(astar_search *s, astar_grid *g, const astar_query *q, bool jps_ok,
                                 astar_result *res) {
    s->job_live = false;
    s->job_restarts = 0;
    astar_status st = start_search(s, g, q, jps_ok, res);
    s->job_live = st == ASTAR_RUNNING;
    s->job_version = g->version;
    return settle(s, res, st);
}

astar_status astar_search_start(astar_search *s, astar_grid *g, const astar_query *q,
                                 astar_result *res) {
    return begin_search(s, g, q, false, res);
}

astar_status astar_search_step(astar_search *s, uint64_t n, astar_result *res) {
    if (!s->job_live) { /* finished (or never started): the same answer again */
        *res = s->job_result;
        return res->status;
    }
    query_ctx *c = &s->job;
    memset(res, 0, sizeof *res);
    res->target = -1;
    if (c->g->version != s->job_version) { /* the terrain changed under it: start over */
        uint32_t restarts = s->job_restarts + 1;
        astar_status st = start_search(s, c->g, c->q, false, res);
        s->job_restarts = restarts;
        s->job_version = c->g->version;
        if (st != ASTAR_RUNNING) return settle(s, res, st);
    }
    return settle(s, res, continue_search(s, n, res));
}

astar_status astar_find(astar_search *s, astar_grid *g, const astar_query *q, astar_result *res) {
    astar_status st = begin_search(s, g, q, true, res);
    if (st != ASTAR_RUNNING) return st;
    return astar_search_step(s, UINT64_MAX, res);
}

astar_status astar_find_prepare(astar_grid *g, const astar_query *q) {
    double lo, hi;
    astar_grid_cost_range(g, &lo, &hi);
    if (q->partial || q->known) return ASTAR_OK; /* astar_find leaves the labels alone then */
    astar_diagonal mode = q->diagonal == ASTAR_DIAG_DEFAULT ? g->diagonal : q->diagonal;
    /* Exact: labels left over-joined would count the wasted searches in them (a write). */
    return astar_islands_get(g, astar_island_kind(mode), true) ? ASTAR_OK : ASTAR_ENOMEM;
}

/* ------------------------------------------------------------ fields */

struct astar_field {
    int32_t width, height;
    astar_field_kind kind;
    double *dist;           /* per node id: cost to (TO) or from (FROM) the sources; INFINITY */
    int8_t *next;           /* per node id: the direction of the next step toward the sources
                               (TO: along the way to a goal; FROM: back toward the start); -1 */
    int32_t reached;
    astar_alloc alloc;
};

astar_field *astar_field_new(int32_t width, int32_t height, const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return NULL;
    astar_alloc a = astar_pick_alloc(alloc);
    astar_field *f = astar_mem(&a, NULL, 0, sizeof *f);
    if (!f) return NULL;
    memset(f, 0, sizeof *f);
    f->alloc = a;
    f->width = width;
    f->height = height;
    size_t n = (size_t)width * (size_t)height;
    f->dist = astar_mem(&a, NULL, 0, n * sizeof *f->dist);
    f->next = f->dist ? astar_mem(&a, NULL, 0, n) : NULL;
    if (!f->next) {
        astar_field_free(f);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) f->dist[i] = INFINITY, f->next[i] = -1;
    return f;
}

void astar_field_free(astar_field *f) {
    if (!f) return;
    size_t n = (size_t)f->width * (size_t)f->height;
    astar_alloc a = f->alloc;
    astar_mem(&a, f->dist, n * sizeof *f->dist, 0);
    astar_mem(&a, f->next, n, 0);
    astar_mem(&a, f, sizeof *f, 0);
}

/*
 * Dijkstra backward from the goals: a node's g is its cost to the nearest goal,
 * its `from` the direction of its first step. The steps into a settled node b
 * are tried from each neighbour p that may legally move to b, at what the step
 * p -> b costs a unit walking it (b's terrain and penalties, edge_cost(b, p)).
 * A blocked node gets a distance (a unit may stand there and leave it) but no
 * way leads through it, so it is never queued: its best offer is simply kept.
 */
static astar_status run_toward(query_ctx *c, astar_result *res) {
    astar_search *s = c->s;
    astar_node *nodes = s->nodes;
    uint64_t expansions = 0;
    /* Terrain alone decides the moves and adds nothing: the grid's tables answer. */
    const bool terrain_only = !c->q->node_cost && !c->q->known;
    const bool extras = c->penalties || c->q->edge_cost;
    while (s->heap.len > 0) {
        if (expansions >= c->q->max_expansions) return done(res, expansions, ASTAR_LIMIT);
        astar_heap_entry top = astar_heap_pop(&s->heap, nodes);
        int32_t b = top.cell;
        expansions++;
        int32_t by = row_of(c, b) - 1, bx = b - (by + 1) * c->stride - 1;
        double gb = nodes[b].g;
        for (int d = 0; d < 8; d++) { /* p steps in direction d onto b */
            int32_t p = b - c->offset[d], px = bx - ASTAR_DX[d], py = by - ASTAR_DY[d];
            if (px < 0 || py < 0 || px >= c->g->width || py >= c->g->height) continue;
            astar_node *n = touch(c, p);
            if (n->heap == ASTAR_NOT_OPEN && n->g != INFINITY && walkable(c, p, px, py)) continue; /* settled */
            unsigned moves = terrain_only ? astar_legal_row(c->g, c->diagonal, py)[c->g->open[p]]
                                          : query_moves(c, p, px, py);
            if (c->aborted) return done(res, expansions, ASTAR_EABORT);
            if (!(moves >> d & 1u)) continue;
            double step = c->diagonal == ASTAR_DIAG_HEX ? 1.0 : STEP[d];
            double extra = extras ? step_extra(c, p, px, py, b, bx, by) : 0.0;
            if (c->aborted) return done(res, expansions, ASTAR_EABORT);
            if (extra == INFINITY) continue;
            double ng = gb + step * terrain_cost(c, b) + extra;
            if (!(ng < n->g) || ng > c->q->max_cost) continue;
            n->g = ng;
            n->from = (uint8_t)d;
            bool stand_only = !walkable(c, p, px, py);
            if (c->aborted) return done(res, expansions, ASTAR_EABORT);
            if (stand_only) continue;
            if (n->heap != ASTAR_NOT_OPEN) {
                s->heap.items[n->heap].key = astar_heap_key(ng, 0.0);
                astar_heap_up(&s->heap, n->heap, nodes);
            } else if (!push(s, p, ng, 0.0)) {
                return done(res, expansions, ASTAR_ENOMEM);
            }
        }
    }
    return done(res, expansions, ASTAR_OK);
}

astar_status astar_field_build(astar_field *f, astar_search *s, astar_grid *g, const astar_query *q,
                               const int32_t *cells, int32_t ncells, astar_field_kind kind,
                               astar_result *res) {
    memset(res, 0, sizeof *res);
    res->target = -1;
    s->path_len = 0;
    s->job_live = false; /* the workspace is this build's now */
    if (f->width != g->width || f->height != g->height || ncells < 1 || !cells ||
        (kind != ASTAR_FIELD_TO && kind != ASTAR_FIELD_FROM) || q->heuristic != ASTAR_H_DEFAULT ||
        q->weight != 1.0 || q->partial || q->ntargets || q->turn_penalty > 0 || q->claim_window >= 0)
        return finish(res, ASTAR_EINVAL);
    for (int32_t i = 0; i < ncells; i++)
        if (cells[i] < 0 || cells[i] / g->width >= g->height) return finish(res, ASTAR_EINVAL);
    astar_query fq = *q;
    fq.heuristic = ASTAR_H_ZERO;
    fq.gx = q->sx; /* astar.h: the goal is ignored, so it must not be checked either */
    fq.gy = q->sy;
    query_ctx c;
    bool callbacks;
    astar_status st = begin_query(&c, s, g, &fq, true, &callbacks);
    if (st != ASTAR_OK) return finish(res, st);
    c.goal = -1; /* FROM: run() settles every node it can reach */
    c.goal_open = false;
    for (int32_t i = 0; i < ncells; i++) {
        int32_t x = cells[i] % g->width, y = cells[i] / g->width, cell = astar_cell(g->stride, x, y);
        /* A goal a unit cannot stand on is no goal (find says "unreachable"); a start is
         * where the unit stands, blocked or not. */
        if (kind == ASTAR_FIELD_TO && !walkable(&c, cell, x, y)) continue;
        astar_node *n = touch(&c, cell);
        if (n->g == 0.0) continue; /* listed twice */
        n->g = 0.0;
        n->from = FROM_START;
        if (!push(s, cell, 0.0, 0.0)) return finish(res, ASTAR_ENOMEM);
    }
    if (c.aborted) return finish(res, ASTAR_EABORT);
    int32_t first = astar_cell(g->stride, cells[0] % g->width, cells[0] / g->width);
    c.start = c.best = first;
    c.best_h = INFINITY;
    st = kind == ASTAR_FIELD_TO ? run_toward(&c, res) : run_general(&c, UINT64_MAX, res);
    if (st != ASTAR_OK && st != ASTAR_UNREACHABLE && st != ASTAR_LIMIT) return finish(res, st);
    /* Done when nothing is left open; max_cost only leaves dearer nodes out. */
    st = s->heap.len > 0 ? ASTAR_LIMIT : ASTAR_OK;

    /* Settled nodes only: with a limit, the ones still open may improve, and so may a cell
     * that only took offers (TO: one a unit may only leave, never queued) dearer than the
     * cheapest still open. (Its walkability was worked out when it took them: no callback.) */
    double open_min = s->heap.len > 0 ? s->nodes[s->heap.items[0].cell].g : INFINITY;
    f->kind = kind;
    f->reached = 0;
    for (int32_t y = 0; y < g->height; y++) {
        for (int32_t x = 0; x < g->width; x++) {
            int32_t cell = astar_cell(g->stride, x, y);
            const astar_node *n = &s->nodes[cell];
            int32_t id = y * g->width + x;
            bool settled = n->gen == s->gen && n->g != INFINITY && n->heap == ASTAR_NOT_OPEN;
            if (settled && kind == ASTAR_FIELD_TO && n->g > open_min && !walkable(&c, cell, x, y))
                settled = false;
            f->dist[id] = settled ? n->g : INFINITY;
            f->next[id] = -1;
            if (!settled) continue;
            f->reached++;
            if (n->from != FROM_START) f->next[id] = (int8_t)(kind == ASTAR_FIELD_TO ? n->from : n->from ^ 2);
        }
    }
    return finish(res, st);
}

astar_field_kind astar_field_get_kind(const astar_field *f) { return f->kind; }
int32_t astar_field_reached(const astar_field *f) { return f->reached; }

double astar_field_distance(const astar_field *f, int32_t x, int32_t y) {
    if (x < 0 || y < 0 || x >= f->width || y >= f->height) return NAN;
    return f->dist[(size_t)y * (size_t)f->width + (size_t)x];
}

int astar_field_next(const astar_field *f, int32_t x, int32_t y, int32_t *nx, int32_t *ny) {
    if (x < 0 || y < 0 || x >= f->width || y >= f->height) return -1;
    int d = f->next[(size_t)y * (size_t)f->width + (size_t)x];
    if (d < 0) return 0;
    *nx = x + ASTAR_DX[d];
    *ny = y + ASTAR_DY[d];
    return 1;
}
