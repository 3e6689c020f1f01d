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
 * `from` direction and its parent jump point give the cells in between.
 *
 * The workspace's node records and open list are reused as they are.
 */
#include "internal.h"

#include <math.h>

#define SQRT2 1.4142135623730951
#define FROM_START 8

typedef struct jps_ctx {
    const uint8_t *open;      /* the grid's neighbour bits */
    const uint8_t *legal;     /* moves allowed per neighbour byte under the query's mode */
    int32_t offset[8];
    int32_t goal;
    bool four;                /* ASTAR_DIAG_NEVER */
} jps_ctx;

/* The two straight directions across straight direction d. */
static inline unsigned sides_of(int d) {
    return (1u << ((d + 1) & 3)) | (1u << ((d + 3) & 3));
}

/*
 * Scans from cell a along straight direction d: the number of steps to the
 * first jump point, 0 when the line ends in a wall first. A cell is one when it
 * is the goal, or when a side cell is walkable whose neighbour behind is not
 * (the side cell could not be reached as cheaply around this line). Going
 * vertically on a 4-connected grid, a cell from which a horizontal scan finds
 * one is one too: horizontal runs branch off vertical ones anywhere.
 */
static int32_t jump_straight(const jps_ctx *j, int32_t a, int d) {
    const uint8_t *open = j->open;
    const unsigned sides = sides_of(d);
    const int32_t off = j->offset[d], goal = j->goal;
    const bool branch = j->four && !(d & 1);
    unsigned prev = open[a];
    for (int32_t k = 1; prev >> d & 1u; k++) {
        a += off;
        unsigned here = open[a];
        if (a == goal || (here & ~prev & sides)) return k;
        if (branch && (jump_straight(j, a, 1) || jump_straight(j, a, 3))) return k;
        prev = here;
    }
    return 0;
}

/*
 * Scans from a along diagonal 4 + i. Without corner cutting a diagonal step has
 * both side cells walkable, so nothing is forced on a diagonal: a cell on it is
 * a jump point when it is the goal or a straight scan along either side's
 * direction finds one.
 */
static int32_t jump_diagonal(const jps_ctx *j, int32_t a, int dir) {
    const int i = dir - 4;
    const int32_t off = j->offset[dir], goal = j->goal;
    for (int32_t k = 1; j->legal[j->open[a]] >> dir & 1u; k++) {
        a += off;
        if (a == goal || jump_straight(j, a, i) || jump_straight(j, a, (i + 1) & 3)) return k;
    }
    return 0;
}

/* The directions worth scanning from jump point n, reached moving `from`. */
static unsigned successors(const jps_ctx *j, int32_t n, int from) {
    unsigned here = j->open[n], moves = j->legal[here];
    if (from == FROM_START) return moves;
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

static inline double jps_h(bool four, int32_t dx, int32_t dy) {
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    if (four) return (double)dx + (double)dy;
    return dx < dy ? dy + (SQRT2 - 1.0) * dx : dx + (SQRT2 - 1.0) * dy;
}

/*
 * The jump point before c on its way from the start. Nodes keep no parent (a
 * record stays 16 bytes): c was reached along a line in direction `from`, from a
 * node on that line whose g plus the line's length is c's g. Any touched node
 * on the line that adds up so serves as well: its own way is as cheap.
 */
static int32_t parent_of(const astar_search *s, const jps_ctx *j, int32_t c, int32_t start,
                         double unit) {
    const astar_node *nodes = s->nodes;
    int d = nodes[c].from;
    const int32_t off = j->offset[d];
    const double step = d < 4 ? unit : unit * SQRT2, gc = nodes[c].g, tol = 1e-9 * gc;
    int32_t x = c - off;
    for (int32_t k = 1; x != start; k++, x -= off) {
        const astar_node *n = &nodes[x];
        if (n->gen == s->gen && fabs(n->g + (double)k * step - gc) <= tol) break;
    }
    return x;
}

/* Lays out the path cell by cell: each jump's line walked back to its parent. */
static bool store_jps_path(astar_search *s, const jps_ctx *j, int32_t end, int32_t start,
                           double unit) {
    const astar_node *nodes = s->nodes;
    int64_t len = 1;
    for (int32_t c = end, p; c != start; c = p) {
        p = parent_of(s, j, c, start, unit);
        for (int32_t x = c; x != p; x -= j->offset[nodes[c].from]) len++;
    }
    if (len > INT32_MAX) return false;
    if (len > s->path_cap) {
        int32_t *p = astar_mem(&s->alloc, s->path, (size_t)s->path_cap * sizeof *p,
                               (size_t)len * sizeof *p);
        if (!p) return false;
        s->path = p;
        s->path_cap = (int32_t)len;
    }
    s->path_len = (int32_t)len;
    int32_t i = (int32_t)len - 1, c = end;
    for (;;) {
        int32_t x = c, stop = c == start ? c : parent_of(s, j, c, start, unit);
        do {
            int32_t row = x / s->stride;
            s->path[i--] = (row - 1) * s->width + (x - row * s->stride - 1);
            if (x == stop) break;
            x -= j->offset[nodes[c].from];
        } while (x != stop);
        if (c == start) break;
        c = stop;
    }
    return true;
}

astar_status astar_jps_find(astar_search *s, const astar_grid *g, astar_diagonal mode,
                            int32_t start, int32_t goal, double unit, uint64_t max_expansions,
                            double max_cost, astar_result *res) {
    jps_ctx j;
    j.open = g->open;
    j.legal = g->legal[mode];
    for (int d = 0; d < 8; d++) j.offset[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
    j.goal = goal;
    j.four = mode == ASTAR_DIAG_NEVER;
    const int32_t stride = g->stride;
    const int32_t gx = goal % stride, gy = goal / stride;
    astar_node *nodes = s->nodes;
    const uint16_t gen = s->gen;
    double step[8];
    for (int d = 0; d < 8; d++) step[d] = d < 4 ? unit : unit * SQRT2;

    astar_node *sn = &nodes[start];
    sn->gen = gen;
    sn->g = 0.0;
    sn->heap = ASTAR_NOT_OPEN;
    sn->from = FROM_START;
    if (s->heap.cap == 0 && !astar_search_grow_heap(s)) return ASTAR_ENOMEM;
    {
        double h = jps_h(j.four, start % stride - gx, start / stride - gy) * unit;
        s->heap.items[0] = (astar_heap_entry){astar_heap_key(h, h), start};
        s->heap.len = 1;
        sn->heap = 0;
    }
    uint64_t expansions = 0;
    bool pruned = false;
    astar_status outcome = ASTAR_UNREACHABLE;
    while (s->heap.len > 0) {
        if (expansions >= max_expansions) {
            outcome = ASTAR_LIMIT;
            break;
        }
        int32_t n = astar_heap_pop(&s->heap, nodes).cell;
        expansions++;
        double gn = nodes[n].g;
        if (n == goal) {
            res->expansions = expansions;
            if (!store_jps_path(s, &j, n, start, unit)) return ASTAR_ENOMEM;
            res->cost = gn;
            res->length = s->path_len;
            return ASTAR_OK;
        }
        int32_t nx = n % stride, ny = n / stride;
        for (unsigned dirs = successors(&j, n, nodes[n].from); dirs; dirs &= dirs - 1) {
            int d = 0;
            while (!(dirs >> d & 1u)) d++;
            int32_t k = d < 4 ? jump_straight(&j, n, d) : jump_diagonal(&j, n, d);
            if (!k) continue;
            int32_t m = n + k * j.offset[d];
            double ng = gn + (double)k * step[d];
            astar_node *r = &nodes[m];
            if (r->gen != gen) {
                r->gen = gen;
                r->g = INFINITY;
                r->heap = ASTAR_NOT_OPEN;
            }
            if (!(ng < r->g)) continue;
            if (r->heap == ASTAR_NOT_OPEN && r->g != INFINITY) continue; /* closed: the heuristic
                                                                            is consistent */
            if (ng > max_cost) {
                pruned = true;
                continue;
            }
            r->g = ng;
            r->from = (uint8_t)d;
            double h = jps_h(j.four, nx + k * ASTAR_DX[d] - gx, ny + k * ASTAR_DY[d] - gy) * unit;
            uint64_t key = astar_heap_key(ng + h, h);
            if (r->heap != ASTAR_NOT_OPEN) {
                s->heap.items[r->heap].key = key;
                astar_heap_up(&s->heap, r->heap, nodes);
                continue;
            }
            if (s->heap.len == s->heap.cap && !astar_search_grow_heap(s)) {
                res->expansions = expansions;
                return ASTAR_ENOMEM;
            }
            int32_t i = s->heap.len++;
            s->heap.items[i] = (astar_heap_entry){key, m};
            astar_heap_up(&s->heap, i, nodes);
        }
    }
    res->expansions = expansions;
    if (outcome == ASTAR_UNREACHABLE && pruned) outcome = ASTAR_LIMIT;
    return outcome;
}
