/*
 * Jump point search for uniform-cost queries (see astar_jps in astar.h).
 *
 * On a grid where every walkable cell costs the same, most optimal paths are
 * interchangeable: A* spends its time queueing cells that symmetric paths reach
 * at equal cost. JPS queues only the cells where an optimal path may have to
 * turn ("jump points") and finds them by scanning lines without touching the
 * open list, after Harabor and Grastien, "Online Graph Pruning for Pathfinding
 * on Grid Maps" (AAAI 2011) and its no-corner-cutting rules (ICAPS 2014).
 *
 * Paths are taken in a canonical order -- diagonal moves before straight ones
 * (8-connected), vertical runs before horizontal ones (4-connected) -- so a
 * line can be skipped unless a wall beside it ends there: then the cell just
 * past the wall's end is reachable optimally only through this one (a "forced"
 * neighbour). Every jump covers a straight line or a diagonal, so a node's
 * `from` direction and the node it jumped from (found again by g, see
 * parent_of) give the cells in between.
 *
 * The workspace's node pool (nodes.h) serves as it does A*.
 *
 * JPS+ (jps_table.c) replaces the scans by the grid's table of their outcomes; only
 * the goal, which the table cannot know, is looked for on the way (goal_on_way).
 * Both find the same jump points, so they push the same nodes in the same order.
 */
#include "search.h"

typedef struct jps_ctx {
    const uint8_t *open;      /* the grid's neighbour bits */
    const uint8_t *legal;     /* moves allowed per neighbour byte under the query's mode */
    const uint64_t *rows, *cols; /* the grid's line bits, at row (column) 0's first word */
    size_t row_words, col_words;
    int32_t offset[8];
    int32_t goal, gx, gy;     /* bordered coordinates */
    bool four;                /* ASTAR_DIAG_NEVER */
    const int16_t *dist;      /* JPS+: the grid's JPS+ table (jps_table.h), dirs entries per cell */
    size_t dirs;
    bool exact;               /* g counted in quanta (astar_node.quanta), as A*'s integer loop */
    int64_t step_quanta[8];   /* then the rounded steps in quanta */
    uint64_t *scanned;        /* online: cells stepped along diagonals and 4-connected vertical
                                 lines, each scanning two lines (units of the progress handler) */
} jps_ctx;

/* The two straight directions across straight direction d. */
static inline unsigned sides_of(int d) {
    return (1u << ((d + 1) & 3)) | (1u << ((d + 3) & 3));
}

#if defined(__GNUC__)
static inline int first_up(uint64_t m) { return __builtin_ctzll(m); }
static inline int first_down(uint64_t m) { return __builtin_clzll(m); }
#else
static inline int first_up(uint64_t m) {
    int i = 0;
    while (!(m >> i & 1u)) i++;
    return i;
}
static inline int first_down(uint64_t m) {
    int i = 0;
    while (!(m >> (63 - i) & 1u)) i++;
    return i;
}
#endif

/* 64 cells of a line from p on: bit i is cell p + i. */
static inline uint64_t ahead(const uint64_t *line, int32_t p) {
    int32_t w = p >> 6, o = p & 63;
    uint64_t v = line[w] >> o;
    if (o) v |= line[w + 1] << (64 - o);
    return v;
}

/* 64 cells of a line from p back: bit 63 - i is cell p - i. */
static inline uint64_t behind(const uint64_t *line, int32_t p) {
    int32_t w = p >> 6, o = p & 63;
    uint64_t v = line[w] << (63 - o);
    if (o != 63) v |= line[w - 1] >> (o + 1);
    return v;
}

/*
 * Scans a line from position p0 toward higher (up) or lower positions: the
 * number of steps to the first jump point, 0 when the line ends in a wall
 * first. A cell is one when it is the goal (goal_p, or -1), or when a side cell
 * is walkable whose neighbour behind is not: the side cell could not be reached
 * as cheaply around this line. 64 cells per round: the walls, the sides and the
 * goal as bit masks, the first stop found by counting zeros.
 */
static int32_t scan_line(const uint64_t *line, const uint64_t *s1, const uint64_t *s2, int32_t p0,
                         int32_t goal_p, bool up) {
    if (up) {
        for (int32_t p = p0 + 1;; p += 64) {
            uint64_t open = ahead(line, p);
            uint64_t stop = ~open | (ahead(s1, p) & ~ahead(s1, p - 1)) | (ahead(s2, p) & ~ahead(s2, p - 1));
            if ((uint32_t)(goal_p - p) < 64u) stop |= UINT64_C(1) << (goal_p - p);
            if (stop) {
                int i = first_up(stop);
                return open >> i & 1u ? p + i - p0 : 0;
            }
        }
    }
    for (int32_t p = p0 - 1;; p -= 64) {
        uint64_t open = behind(line, p);
        uint64_t stop = ~open | (behind(s1, p) & ~behind(s1, p + 1)) | (behind(s2, p) & ~behind(s2, p + 1));
        if (goal_p >= 0 && (uint32_t)(p - goal_p) < 64u) stop |= UINT64_C(1) << (63 - (p - goal_p));
        if (stop) {
            int i = first_down(stop);
            return open >> (63 - i) & 1u ? p0 - (p - i) : 0;
        }
    }
}

/* A row or column as scan_line reads it. */
static inline const uint64_t *row_line(const jps_ctx *j, int32_t y) {
    return j->rows + (size_t)y * j->row_words;
}
static inline const uint64_t *col_line(const jps_ctx *j, int32_t x) {
    return j->cols + (size_t)x * j->col_words;
}

/*
 * Scans from cell a = (x, y) (bordered coordinates) along straight direction d
 * (see scan_line). Going vertically on a 4-connected grid, a cell from which a
 * horizontal scan finds a jump point is one too: horizontal runs branch off
 * vertical ones anywhere.
 */
static int32_t jump_straight(const jps_ctx *j, int32_t a, int32_t x, int32_t y, int d) {
    if (d & 1) /* east or west: along the row */
        return scan_line(row_line(j, y), row_line(j, y - 1), row_line(j, y + 1), x,
                         y == j->gy ? j->gx : -1, d == 1);
    if (!j->four)
        return scan_line(col_line(j, x), col_line(j, x - 1), col_line(j, x + 1), y,
                         x == j->gx ? j->gy : -1, d == 2);
    const uint8_t *open = j->open;
    const unsigned sides = sides_of(d);
    const int32_t off = j->offset[d], dy = ASTAR_DY[d];
    unsigned prev = open[a];
    for (int32_t k = 1; prev >> d & 1u; k++) {
        ++*j->scanned;
        a += off;
        y += dy;
        unsigned here = open[a];
        if (a == j->goal || (here & ~prev & sides)) return k;
        if (jump_straight(j, a, x, y, 1) || jump_straight(j, a, x, y, 3)) return k;
        prev = here;
    }
    return 0;
}

/*
 * Scans from a = (x, y) along diagonal 4 + i. Without corner cutting a diagonal
 * step has both side cells walkable, so nothing is forced on a diagonal: a cell
 * on it is a jump point when it is the goal or a straight scan along either
 * side's direction finds one.
 */
static int32_t jump_diagonal(const jps_ctx *j, int32_t a, int32_t x, int32_t y, int dir) {
    const int i = dir - 4;
    const int32_t off = j->offset[dir], goal = j->goal, dx = ASTAR_DX[dir], dy = ASTAR_DY[dir];
    for (int32_t k = 1; j->legal[j->open[a]] >> dir & 1u; k++) {
        ++*j->scanned;
        a += off;
        x += dx;
        y += dy;
        if (a == goal || jump_straight(j, a, x, y, i) || jump_straight(j, a, x, y, (i + 1) & 3))
            return k;
    }
    return 0;
}

/* ---- JPS+: the scans' outcomes read from the table */

static inline int32_t table_entry(const jps_ctx *j, int32_t p, int d) {
    return j->dist[(size_t)p * j->dirs + (size_t)d];
}

/*
 * Where a jump from p = (x, y) along d meets the goal within `reach` steps that the
 * table knows hold no jump point: the step count, or 0. On a straight line (other than
 * a 4-connected vertical one) the goal must lie on it. A diagonal, like a 4-connected
 * vertical line, stops where it meets the goal's row or column if a straight scan from
 * there toward the goal gets there: such a cell is no jump point (the table says so), so
 * its straight entry is the distance to the wall. A diagonal meets first the line of the
 * goal that is nearer, and only from there can the goal lie ahead of a side.
 */
static inline int32_t goal_on_way(const jps_ctx *j, int32_t p, int32_t x, int32_t y, int d,
                                  int32_t reach) {
    const int32_t dx = ASTAR_DX[d], dy = ASTAR_DY[d];
    const int32_t ux = (j->gx - x) * dx, uy = (j->gy - y) * dy; /* steps to the goal's column, row */
    if (d < 4 && (d & 1 || !j->four)) {
        int32_t t = dx ? ux : uy;
        return (dx ? y == j->gy : x == j->gx) && t >= 1 && t <= reach ? t : 0;
    }
    if (dx == 0) { /* 4-connected, vertical: the goal's row, then along it either way */
        if (uy < 1 || uy > reach) return 0;
        int32_t u = j->gx - x;
        return u == 0 || (u < 0 ? -u : u) <= -table_entry(j, p + uy * j->offset[d], u > 0 ? 1 : 3) ? uy : 0;
    }
    int32_t t = ux < uy ? ux : uy;
    if (t < 1 || t > reach) return 0;
    if (ux == uy) return t; /* on the diagonal */
    const int32_t a = p + t * j->offset[d];
    return (ux < uy ? uy - ux <= -table_entry(j, a, dy > 0 ? 2 : 0) : ux - uy <= -table_entry(j, a, dx > 0 ? 1 : 3))
               ? t
               : 0;
}

/* The steps from p = (x, y) along d to the next jump point, the goal included; 0 for a wall. */
static int32_t table_jump(const jps_ctx *j, int32_t p, int32_t x, int32_t y, int d) {
    const int32_t off = j->offset[d];
    for (int32_t done = 0;; done += ASTAR_JPS_TABLE_FAR) {
        int32_t v = table_entry(j, p, d);
        int32_t t = goal_on_way(j, p, x, y, d, v > 0 ? v - 1 : -v);
        if (t) return done + t;
        if (v > 0) return done + v;
        if (v != -ASTAR_JPS_TABLE_FAR) return 0;
        p += ASTAR_JPS_TABLE_FAR * off; /* a long line: its next stretch */
        x += ASTAR_JPS_TABLE_FAR * ASTAR_DX[d];
        y += ASTAR_JPS_TABLE_FAR * ASTAR_DY[d];
    }
}

/* The directions worth scanning from jump point n, reached moving `from`. */
static inline unsigned successors(const jps_ctx *j, int32_t n, int from) {
    unsigned here = j->open[n], moves = j->legal[here];
    if (from == ASTAR_FROM_START) return moves;
    if (from >= 4) { /* on a diagonal: on along it, or along either of its sides */
        int i = from - 4;
        return moves & ((1u << from) | (1u << i) | (1u << ((i + 1) & 3)));
    }
    if (j->four) return moves & ((1u << from) | sides_of(from));
    unsigned forced = here & ~j->open[n - j->offset[from]] & sides_of(from);
    unsigned dirs = (1u << from) | forced;
    /* The diagonal between `from` and a forced side: 4 + from for side from + 1,
     * 4 + side for side from + 3 (diagonal 4 + i lies between i and i + 1). */
    if (forced >> ((from + 1) & 3) & 1u) dirs |= 1u << (4 + from);
    if (forced >> ((from + 3) & 3) & 1u) dirs |= 1u << (4 + ((from + 3) & 3));
    return moves & dirs;
}

/* A*'s bound to the goal (search.h): octile, or Manhattan 4-connected, in rounded steps. */
static inline double jps_h(bool four, int32_t dx, int32_t dy, const double *step) {
    if (four) {
        if (dx < 0) dx = -dx;
        if (dy < 0) dy = -dy;
        return astar_rounded(((double)dx + (double)dy) * step[0]);
    }
    return astar_octile_h(dx, dy, step[0], step[4] - step[0]);
}

/* The same in quanta, where every g and f of the query stays below ASTAR_EXACT_BELOW. */
static inline int64_t jps_h_quanta(bool four, int64_t dx, int64_t dy, const int64_t *step) {
    if (!four) return astar_octile_quanta(dx, dy, step[0], step[4] - step[0]);
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    return (dx + dy) * step[0];
}

/*
 * The jump point before c on its way from the start. Nodes keep no parent (a
 * record stays 16 bytes): c was reached along a line in direction `from`, from a
 * node on that line whose g plus the line's length is c's g. Any touched node
 * on the line that adds up so serves as well: its own way is as cheap. The
 * true parent adds up exactly (the same sum made c's g); the tolerance only lets
 * an equal-cost node met first pass despite rounding.
 */
static int32_t parent_of(const astar_search *s, const jps_ctx *j, int32_t c, int32_t start,
                         const double *steps) {
    const astar_node *nodes = s->pool.nodes;
    int d = nodes[c].from;
    const int32_t off = j->offset[d];
    int32_t x = c - off;
    if (j->exact) { /* sums without rounding: the true parent adds up to the quantum */
        const int64_t step = j->step_quanta[d], gc = nodes[c].quanta;
        for (int64_t k = 1; x != start; k++, x -= off) {
            const astar_node *n = &nodes[x];
            if (n->gen == s->pool.gen && n->quanta + k * step == gc) break;
        }
        return x;
    }
    const double step = steps[d], gc = nodes[c].g, tol = 1e-12 * gc;
    for (int32_t k = 1; x != start; k++, x -= off) {
        const astar_node *n = &nodes[x];
        if (n->gen == s->pool.gen && fabs(n->g + (double)k * step - gc) <= tol) break;
    }
    return x;
}

/*
 * Lays out the path cell by cell, each jump's line walked back to its parent: from the
 * end, in one pass (the buffer doubling as needed), then turned around. Node ids step
 * like cells along a line, so only a jump's first cell needs a division.
 */
static bool store_jps_path(astar_search *s, const jps_ctx *j, int32_t end, int32_t start,
                           const double *step) {
    const astar_node *nodes = s->pool.nodes;
    astar_path_buf *path = &s->path;
    int32_t n = 0;
    for (int32_t c = end;;) {
        int32_t stop = c == start ? c : parent_of(s, j, c, start, step);
        int d = c == start ? 0 : nodes[c].from;
        int32_t row = c / s->stride;
        int32_t id = (row - 1) * s->width + (c - row * s->stride - 1);
        const int32_t id_step = ASTAR_DY[d] * s->width + ASTAR_DX[d];
        for (int32_t x = c;; x -= j->offset[d], id -= id_step) {
            if (n == path->cap) {
                int32_t more = path->cap < INT32_MAX / 2 ? 2 * path->cap + 64 : INT32_MAX;
                if (n == INT32_MAX || !astar_path_reserve(path, &s->alloc, more)) {
                    path->len = 0;
                    return false;
                }
            }
            path->ids[n++] = id;
            if (x == stop || x - j->offset[d] == stop) break;
        }
        if (c == start) break;
        c = stop;
    }
    for (int32_t i = 0, k = n - 1; i < k; i++, k--) {
        int32_t t = path->ids[i];
        path->ids[i] = path->ids[k];
        path->ids[k] = t;
    }
    path->len = n;
    return true;
}

/*
 * The cost of the stored path summed step by step from the start, as A* sums it: below
 * ASTAR_EXACT_BELOW a jump's steps added at once give the same sum, above it they may round
 * differently, and the cost must be the path's to the last bit. A step is straight when its
 * ids differ by the width, or by one within a row (a width of 2 is the one where one apart
 * may be a diagonal: w - 1).
 */
static double stored_path_cost(const astar_search *s, const double *step) {
    const int32_t *ids = s->path.ids, w = s->width;
    double sum = 0.0;
    for (int32_t i = 1; i < s->path.len; i++) {
        int32_t apart = ids[i] - ids[i - 1];
        if (apart < 0) apart = -apart;
        bool straight = apart == w || (apart == 1 && (w != 2 || ids[i] / 2 == ids[i - 1] / 2));
        sum += straight ? step[0] : step[4];
    }
    return sum;
}

/*
 * The search, compiled once scanning lines (online) and once reading the table (plus), each
 * with g in doubles or, where a query's sums stay below ASTAR_EXACT_BELOW, in quanta as
 * A*'s integer loop counts (the same sums; integer keys with finer ties, astar_heap_key_fine).
 * It runs the live search of s (astar_jps_begin) for up to `budget` expansions more: all it
 * keeps between two steps is in the workspace (the node records, the open list, and in s->job
 * the query's constants, the expansions and the cells scanned), so a step stops between two
 * expansions and the next goes on as if it had not.
 */
static ALWAYS_INLINE astar_status run_jps(astar_search *s, uint64_t budget, astar_result *res, const bool plus,
                                          const bool exact) {
    query_ctx *c = &s->job;
    const astar_grid *g = c->g;
    const astar_diagonal mode = c->diagonal;
    const int32_t start = c->start, goal = c->goal;
    const int tie_bits = c->tie_bits;
    jps_ctx j;
    j.scanned = &c->jps_scanned;
    j.dist = plus ? c->jps_table->dist : NULL;
    j.dirs = (size_t)astar_jps_table_dirs(astar_jps_table_kind(mode));
    j.open = g->open;
    j.legal = g->legal[mode];
    for (int d = 0; d < 8; d++) j.offset[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
    j.goal = goal;
    j.four = mode == ASTAR_DIAG_NEVER;
    const int32_t stride = g->stride;
    const int32_t gx = goal % stride, gy = goal / stride;
    j.gx = gx;
    j.gy = gy;
    j.rows = g->row_bits + 1;
    j.cols = g->col_bits + 1;
    j.row_words = g->row_words;
    j.col_words = g->col_words;
    astar_pool *pool = &s->pool;
    astar_node *nodes = pool->nodes;
    const uint16_t gen = pool->gen;
    const uint64_t row_magic = c->row_magic; /* cell / stride without a division (query.c) */
    const int row_shift = c->row_shift;
    double step[8]; /* A*'s rounded steps on uniform terrain (astar_step_cost) */
    for (int d = 0; d < 8; d++) step[d] = astar_step_cost(c->uniform_cost, d);
    j.exact = exact;
    for (int d = 0; d < 8; d++) j.step_quanta[d] = exact ? (int64_t)(step[d] * (1.0 / ASTAR_QUANTUM)) : 0;
    const int64_t *step_quanta = j.step_quanta;

    uint64_t expansions = c->expansions; /* where an earlier step left off */
    const uint64_t limit = budget < UINT64_MAX - expansions ? expansions + budget : UINT64_MAX;
    astar_meter *const meter = &c->meter;
    /* The progress handler's units (expansions and scanned cells), charged after the fact. */
    uint64_t stop = astar_meter_stop(meter, UINT64_MAX);
    while (pool->heap.len > 0) {
        if (expansions >= limit) return astar_done(res, expansions, ASTAR_RUNNING);
        if (expansions + c->jps_scanned >= stop) {
            if (astar_meter_check(meter, expansions + c->jps_scanned)) return astar_done(res, expansions, ASTAR_ESTOPPED);
            stop = astar_meter_stop(meter, UINT64_MAX);
        }
        int32_t n = astar_heap_pop(&pool->heap, nodes).cell;
        expansions++;
#if defined(__GNUC__)
        /* The table line of the node likely next (the new top): a read it would wait for. */
        if (plus && pool->heap.len > 0) __builtin_prefetch(&j.dist[(size_t)pool->heap.items[0].cell * j.dirs]);
#endif
        const double gn = exact ? 0.0 : nodes[n].g;
        const int64_t gn_quanta = exact ? nodes[n].quanta : 0;
        if (n == goal) {
            res->expansions = expansions;
            if (!store_jps_path(s, &j, n, start, step)) return ASTAR_ENOMEM;
            res->cost = stored_path_cost(s, step);
            res->length = s->path.len;
            return ASTAR_OK;
        }
        int32_t ny = (int32_t)(((uint64_t)(uint32_t)n * row_magic) >> row_shift), nx = n - ny * stride;
        for (unsigned dirs = successors(&j, n, nodes[n].from); dirs; dirs &= dirs - 1) {
            int d = astar_lowest_bit(dirs);
            int32_t k = plus    ? table_jump(&j, n, nx, ny, d)
                        : d < 4 ? jump_straight(&j, n, nx, ny, d)
                                : jump_diagonal(&j, n, nx, ny, d);
            if (!k) continue;
            int32_t m = n + k * j.offset[d];
            if (exact) {
                int64_t ng = gn_quanta + k * step_quanta[d];
                astar_node *r = &nodes[m];
                if (r->gen != gen) {
                    r->gen = gen;
                    r->heap = ASTAR_NOT_OPEN;
                } else if (!(ng < r->quanta) || r->heap == ASTAR_CLOSED) {
                    continue; /* no better, or closed: the heuristic is consistent */
                } else { /* on the open list: h is the same, f drops as g does */
                    uint64_t key = pool->heap.items[r->heap].key - ((uint64_t)(r->quanta - ng) << tie_bits);
                    r->quanta = ng;
                    r->from = (uint8_t)d;
                    astar_pool_decrease_key(pool, r, key);
                    continue;
                }
                r->quanta = ng;
                r->from = (uint8_t)d;
                int64_t h = jps_h_quanta(j.four, nx + k * ASTAR_DX[d] - gx, ny + k * ASTAR_DY[d] - gy, step_quanta);
                if (!astar_pool_push_key(pool, &s->alloc, m, astar_heap_key_fine(ng + h, h, tie_bits)))
                    return astar_done(res, expansions, ASTAR_ENOMEM);
                continue;
            }
            double ng = gn + (double)k * step[d];
            astar_node *r = astar_node_touch(nodes, gen, m);
            if (!(ng < r->g)) continue;
            if (r->heap == ASTAR_CLOSED) continue; /* closed: the heuristic
                                                                            is consistent */
            r->g = ng;
            r->from = (uint8_t)d;
            double h = jps_h(j.four, nx + k * ASTAR_DX[d] - gx, ny + k * ASTAR_DY[d] - gy, step);
            if (!astar_pool_open(pool, &s->alloc, r, m, ng + h, h))
                return astar_done(res, expansions, ASTAR_ENOMEM);
        }
    }
    res->expansions = expansions;
    return ASTAR_UNREACHABLE;
}

astar_status astar_jps_begin(astar_search *s, astar_diagonal mode, int32_t start, int32_t goal, double unit,
                             const astar_jps_table *table) {
    query_ctx *c = &s->job;
    c->jps = true;
    c->jps_table = table;
    c->diagonal = mode;
    c->start = start;
    c->goal = goal;
    c->uniform_cost = unit;
    c->expansions = 0;
    c->jps_scanned = 0;
    c->exact = astar_exact_keys(c->g, astar_step_cost(unit, 4), 0.0, &c->tie_bits);
    astar_pool *pool = &s->pool;
    const int32_t stride = c->g->stride;
    const bool four = mode == ASTAR_DIAG_NEVER;
    const int32_t dx = start % stride - goal % stride, dy = start / stride - goal / stride;
    astar_node *sn = astar_pool_touch(pool, start, NULL, NULL);
    sn->from = ASTAR_FROM_START;
    if (c->exact) {
        int64_t step_quanta[8];
        for (int d = 0; d < 8; d++) step_quanta[d] = (int64_t)(astar_step_cost(unit, d) * (1.0 / ASTAR_QUANTUM));
        sn->quanta = 0;
        int64_t h0 = jps_h_quanta(four, dx, dy, step_quanta);
        if (!astar_pool_push_key(pool, &s->alloc, start, astar_heap_key_fine(h0, h0, c->tie_bits)))
            return ASTAR_ENOMEM;
    } else {
        double step[8];
        for (int d = 0; d < 8; d++) step[d] = astar_step_cost(unit, d);
        sn->g = 0.0;
        double h0 = jps_h(four, dx, dy, step);
        if (!astar_pool_open(pool, &s->alloc, sn, start, h0, h0)) return ASTAR_ENOMEM;
    }
    return ASTAR_RUNNING;
}

astar_status astar_jps_step(astar_search *s, uint64_t budget, astar_result *res) {
    query_ctx *c = &s->job;
    c->meter = astar_meter_begin(astar_progress_get(), c->expansions + c->jps_scanned);
    astar_status st;
    bool plus = c->jps_table != NULL;
    if (c->exact)
        st = plus ? run_jps(s, budget, res, true, true) : run_jps(s, budget, res, false, true);
    else
        st = plus ? run_jps(s, budget, res, true, false) : run_jps(s, budget, res, false, false);
    c->expansions = res->expansions;
    astar_meter_sync(&c->meter, c->expansions + c->jps_scanned);
    return st;
}
