/*
 * A job in flight under terrain changes (docs/design/living.md, "Jobs in flight"): what the
 * changes since the job's version mean to it, read from the grid's change log. A change whose
 * block holds none of the cells the job reached lets it go on (a cell it has not reached is
 * read at its new cost when reached); one under them is repaired where that is exact and
 * bounded by the job's own work; anything else, or anything the job resolved from the terrain
 * at its start that no longer holds, starts it over.
 */
#include "search.h"

/* The node of a grid's cell 0, a corner of the blocked border: the sink's (ASTAR_GRID_SINK), and
 * no cell's. */
#define BORDER_CORNER ASTAR_GRID_SINK

static bool closed_node(const astar_pool *p, int32_t id) {
    const astar_node *n = &p->nodes[id];
    return n->gen == p->gen && n->heap == ASTAR_CLOSED;
}

static bool touched_node(const astar_pool *p, int32_t id) { return p->nodes[id].gen == p->gen; }

/*
 * Whether the job has reached cell (in either copy with interests): every cell it expanded,
 * whose steps it read, is one (a repair may have put an expanded node back on the open list:
 * it is still one).
 */
static bool reached_cell(const query_ctx *c, int32_t cell) {
    const astar_pool *p = &c->s->pool;
    return cell != BORDER_CORNER && (touched_node(p, cell) || (c->twin && touched_node(p, cell + c->twin)));
}

/* The most cells a change's block holds: (ASTAR_MAX_SIZE + 2)^2 (block_cells). */
#define BLOCK_MAX ((ASTAR_MAX_SIZE + 2) * (ASTAR_MAX_SIZE + 2))

/*
 * The cells of the block of a change of cell x: those holding the first cell of every step the
 * change alters (its cost or legality), into out[] (BLOCK_MAX); their count. The loop reads a
 * step only when it expands the step's first cell, so a job that reached none of the block
 * read none of them, and none of its nodes has a way in through them. One cell: the 3x3 block
 * around x (the step onto x, the diagonals whose corner rule sees x; on hexes a subset). A unit
 * of size n (docs/design/clearance.md): a change of x alters the anchors whose footprint covers
 * it, the n x n square up-left of x (whether they hold the unit, what a step onto them costs,
 * the diagonals that pass them as a side anchor), and every step that reads one starts at a
 * neighbour of it: that square widened by one cell each way. Rows and columns outside the
 * bordered arrays are left out.
 */
static int block_cells(const query_ctx *c, int32_t x, int32_t *out) {
    int count = 0;
    if (c->size <= 1) {
        out[count++] = x;
        for (int d = 0; d < 8; d++) out[count++] = x + c->offset[d];
        return count;
    }
    const int32_t n = c->size, row = x / c->stride, col = x % c->stride;
    for (int32_t r = row - n; r <= row + 1; r++) {
        if (r < 0 || r > c->g->height + 1) continue;
        for (int32_t k = col - n; k <= col + 1; k++)
            if (k >= 0 && k <= c->g->width + 1) out[count++] = r * c->stride + k;
    }
    return count;
}

/* Whether the job has reached a cell of the block of a change of cell x (block_cells). */
static bool block_reached(const query_ctx *c, int32_t x) {
    int32_t block[BLOCK_MAX];
    const int count = block_cells(c, x, block);
    for (int i = 0; i < count; i++)
        if (reached_cell(c, block[i])) return true;
    return false;
}

/* Whether the step into node b (its `from`) passes cell x, now blocked, at a corner: a
 * diagonal whose corner rule sees the two cells (anchors) beside it (astar_legal_moves), one
 * of which is x or, for a bigger unit, has x under its footprint. */
static bool step_past(const query_ctx *c, int32_t b, int from, int32_t x) {
    if (from < 4 || (c->diagonal != ASTAR_DIAG_NO_CORNER_CUT && c->diagonal != ASTAR_DIAG_ONE_WALKABLE))
        return false;
    int32_t p = b - c->offset[from];
    return astar_covers(c, p + c->offset[from - 4], x) || astar_covers(c, p + c->offset[(from - 3) & 3], x);
}

/* Whether cell is one of the job's targets, as its start marked them (walkable ones) or might
 * have (one that was blocked: it was left out). */
static bool target_cell(const query_ctx *c, int32_t cell, double before) {
    const astar_search *s = c->s;
    if (!c->ntargets) return false;
    if (c->size <= 1 && s->target_gen[cell] == s->pool.gen) return true;
    if (before != INFINITY && c->size <= 1) return false;
    /* (A bigger unit: every target whose footprint covers the cell, marked or left out.) */
    const astar_query *q = c->q;
    for (int32_t i = 0; i < q->ntargets; i++)
        if (astar_covers(c, astar_cell(c->stride, q->targets[i] % c->g->width, q->targets[i] / c->g->width), cell))
            return true;
    return false;
}

bool astar_job_changes_unread(const astar_search *s) {
    const query_ctx *c = &s->job;
    const astar_grid *g = c->g;
    if (!astar_grid_changes_known(g, s->job_version)) return false; /* a bulk write */
    for (uint32_t v = s->job_version + 1; v != g->version + 1; v++)
        if (block_reached(c, astar_grid_change(g, v)->cell)) return false;
    return true;
}

bool astar_job_class_changes_unread(const astar_search *s) {
    const query_ctx *c = &s->job;
    const astar_grid *g = c->g;
    if (!astar_grid_class_changes_known(g, s->job_class_version)) return false;
    for (uint32_t v = s->job_class_version + 1; v != g->class_version + 1; v++)
        if (block_reached(c, astar_grid_class_change(g, v)->cell)) return false;
    return true;
}

bool astar_job_landmarks_held(const astar_search *s) {
    /* The grid's landmarks as they were when the job aimed at them: a repair that lowered
     * their distances, a rebuild, a drop or going out of use moves their serial. */
    return !s->job.lm.dist || astar_landmarks_serial(s->job.g) == s->job_landmarks;
}

/* Puts node id, closed, back on the open list at its g, so that its next expansion offers its
 * steps again (with the terrain as it is now). False on OOM. */
static bool reopen_node(query_ctx *c, int32_t id) {
    astar_pool *p = &c->s->pool;
    astar_node *n = &p->nodes[id];
    int32_t cell = c->twin && id >= c->twin ? id - c->twin : id;
    int32_t row = astar_row_of(c, cell);
    int32_t x = cell - row * c->stride - 1, y = row - 1;
    if (c->exact) { /* the keys of the loop in quanta (grid_loop.c) */
        int64_t card = (int64_t)(c->h_card * (1.0 / ASTAR_QUANTUM)), diag = (int64_t)(c->h_diag * (1.0 / ASTAR_QUANTUM));
        int64_t h = astar_octile_quanta(x - c->gx, y - c->gy, card, diag);
        return astar_pool_push_key(p, &c->s->alloc, id, astar_heap_key_fine(n->quanta + h, h, c->tie_bits));
    }
    double h = astar_heuristic_at(c, cell, x, y); /* memoised where it is a callback's */
    return astar_pool_push(p, &c->s->alloc, id, n->g + astar_rounded(c->weight * h), h);
}

/* Moves the entry at slot i of the open list down until no child is smaller. */
static void heap_down(astar_pool *p, int32_t i) {
    astar_heap_entry *items = p->heap.items;
    const int32_t len = p->heap.len;
    for (;;) {
        int32_t best = i;
        for (int32_t k = i * ASTAR_HEAP_ARITY + 1; k <= i * ASTAR_HEAP_ARITY + ASTAR_HEAP_ARITY && k < len; k++)
            if (items[k].key < items[best].key) best = k;
        if (best == i) return;
        astar_heap_entry e = items[i];
        items[i] = items[best];
        items[best] = e;
        p->nodes[items[i].cell].heap = i;
        p->nodes[e.cell].heap = best;
        i = best;
    }
}

/* Takes the entry at slot i off the open list. */
static void heap_remove(astar_pool *p, int32_t i) {
    astar_heap *hp = &p->heap;
    astar_heap_entry *items = hp->items;
    int32_t len = --hp->len;
    astar_heap_entry last = items[len];
    items[len].key = ASTAR_HEAP_PAD;
    if (i == len) return;
    items[i] = last;
    astar_heap_up(hp, i, p->nodes);
    heap_down(p, p->nodes[last.cell].heap); /* if it did not go up */
}

/* A list of node ids in the workspace's scratch memory (repair.c's too: one user at a time). */
typedef struct id_list {
    int32_t *ids;
    size_t len, cap;
} id_list;

static bool list_push(astar_search *s, id_list *l, int32_t id) {
    if (l->len == l->cap) {
        size_t cap = l->cap < 64 ? 64 : 2 * l->cap;
        if (cap * sizeof(int32_t) > s->scratch_bytes) {
            void *p = astar_mem(&s->alloc, s->scratch, s->scratch_bytes, cap * sizeof(int32_t));
            if (!p) return false;
            s->scratch = p;
            s->scratch_bytes = cap * sizeof(int32_t);
        }
        l->ids = s->scratch;
        l->cap = s->scratch_bytes / sizeof(int32_t);
    }
    l->ids[l->len++] = id;
    return true;
}

/*
 * Appends to l the nodes reached through node root, root first: its subtree of `from` links
 * (a node's children are the neighbours whose step in came from it). visit(c, id), if any, runs
 * on each before its children are looked for. False on OOM.
 */
static bool walk_subtree(query_ctx *c, int32_t root, id_list *l, void (*visit)(query_ctx *c, int32_t id)) {
    astar_search *s = c->s;
    const astar_node *nodes = s->pool.nodes;
    size_t i = l->len;
    if (!list_push(s, l, root)) return false;
    for (; i < l->len; i++) { /* breadth first */
        int32_t id = l->ids[i];
        if (visit) visit(c, id);
        for (int d = 0; d < 8; d++) {
            int32_t m = id + c->offset[d];
            if (nodes[m].gen == s->pool.gen && nodes[m].from == d && !list_push(s, l, m)) return false;
        }
    }
    return true;
}

/* Forgets a node: off the open list, and "not reached" (a stale stamp). */
static void forget(query_ctx *c, int32_t id) {
    astar_pool *p = &c->s->pool;
    astar_node *n = &p->nodes[id];
    if (n->heap >= 0) heap_remove(p, n->heap);
    n->gen = (uint16_t)(p->gen - 1);
}

/*
 * A raise or a block: forgets node `root` and every node reached through it, closed or open,
 * as never reached; then puts back on the open list every closed node that borders a forgotten
 * one, so that the search offers those cells again. Work: the subtree and its border. False
 * on OOM. *work counts the nodes it visited.
 */
static bool forget_subtree(query_ctx *c, int32_t root, uint64_t *work) {
    id_list l = {c->s->scratch, 0, c->s->scratch_bytes / sizeof(int32_t)};
    if (!walk_subtree(c, root, &l, forget)) return false;
    for (size_t i = 0; i < l.len; i++)
        for (int d = 0; d < 8; d++) {
            int32_t m = l.ids[i] + c->offset[d];
            if (closed_node(&c->s->pool, m) && !reopen_node(c, m)) return false; /* open now */
        }
    *work += 9 * (uint64_t)l.len;
    return true;
}

/* A node of the loop that counts in quanta, in the loops that count in doubles. */
static void to_double(query_ctx *c, int32_t id) {
    astar_node *n = &c->s->pool.nodes[id];
    n->g = (double)n->quanta * ASTAR_QUANTUM;
}

/*
 * A job of the loop that counts in quanta (grid_loop.c's `exact`) that must leave it: a cell got
 * another cost than the uniform one, a repair needs closed nodes reopened (that loop keeps
 * them closed), or its layers or claims grew past what it counts exactly (search.c's
 * continue_search). From here on it runs the octile loop in doubles. Its records hold g in
 * quanta, which that loop reads as doubles: every node it reached (its tree from the start)
 * gets g in doubles, every open one the key of that loop. Work: what the job reached, once.
 */
bool astar_job_leave_exact(query_ctx *c, uint64_t *work) {
    astar_pool *p = &c->s->pool;
    id_list l = {c->s->scratch, 0, c->s->scratch_bytes / sizeof(int32_t)};
    if (!walk_subtree(c, c->start, &l, to_double)) return false;
    c->exact = false;
    astar_heap_entry *items = p->heap.items;
    const int32_t len = p->heap.len;
    double top = 0.0, f[2];
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t i = 0; i < len; i++) {
            int32_t cell = items[i].cell, row = astar_row_of(c, cell);
            double h = astar_octile_h(cell - row * c->stride - 1 - c->gx, row - 1 - c->gy, c->h_card, c->h_diag);
            f[pass] = p->nodes[cell].g + h;
            if (pass == 0 && f[0] > top) top = f[0];
            if (pass == 1) items[i].key = astar_pool_key(p, f[1], h);
        }
        /* Keys as wide as the largest f needs before any is made (astar_pool_key_wider
         * rewrites those on the list, which are not of its kind yet). */
        if (pass == 0) {
            p->heap.len = 0;
            (void)astar_pool_key(p, top, 0.0);
            p->heap.len = len;
        }
    }
    for (int32_t i = (len - 2) / ASTAR_HEAP_ARITY; i >= 0 && len > 1; i--) heap_down(p, i);
    *work += l.len + 2 * (uint64_t)len;
    return true;
}

/*
 * Repairs the job for a change of cell x under the nodes it reached (block_reached), with the
 * terrain as it is now. A cheaper or opened cell: the closed nodes of the block go back on the
 * open list, so that the steps they read that the change altered (onto x or, for a bigger unit,
 * onto the anchors whose footprint covers x, and the diagonals past those) are offered again,
 * and the loop reopens every closed node that improves (c->reopen; loop.h). A dearer or
 * blocked one: every node whose way in took a step the change altered is forgotten with what
 * was reached through it (forget_subtree). docs/design/living.md proves both exact. Work: the
 * block, plus what is forgotten.
 */
static bool repair(query_ctx *c, const astar_change *ch, uint64_t *work) {
    astar_pool *p = &c->s->pool;
    const int32_t x = ch->cell;
    int32_t block[BLOCK_MAX];
    const int count = block_cells(c, x, block);
    /* The quanta loop never reopens (one test less per neighbour in the loop of most finds):
     * the job leaves it. */
    if (c->exact && !astar_job_leave_exact(c, work)) return false;
    c->reopen = true;
    *work += (uint64_t)count;
    if (ch->after < ch->before) {
        for (int i = 0; i < count; i++)
            if (closed_node(p, block[i]) && !reopen_node(c, block[i])) return false;
        return true;
    }
    for (int i = 0; i < count; i++) {
        const int32_t b = block[i];
        const astar_node *n = &p->nodes[b];
        if (n->gen != p->gen || n->from == ASTAR_FROM_START) continue;
        /* A raise alters only the steps onto the cells it covers; a block, the diagonals past
         * them too. */
        bool altered = astar_covers(c, b, x) || (ch->after == INFINITY && step_past(c, b, n->from, x));
        if (altered && !forget_subtree(c, b, work)) return false;
    }
    return true;
}

/* Whether the job's loop can be repaired: the plain, layered and sized loops, and the general
 * one where only a bigger unit's classes took it there (query.c), of an exact A* (weight 1)
 * whose answer is the goal's g, with no bound that cuts nodes or ranks the closed ones. */
static bool repairable(const query_ctx *c) {
    return (!c->callbacks || c->general_repairable) && c->weight == 1.0 && !c->q->partial && c->q->max_cost == INFINITY && !c->sink && !c->twin;
}

/*
 * A job reading the workspace's dead-end view (search.c's skip_dead_ends) skipped the areas
 * behind closed gateways. Its closed nodes stay optimal if no changed block holds a cell of
 * such an area behind a gateway it reached (the area may no longer be a dead end, and it never
 * looked in: a way through it may now improve them); either way it reads the grid's own
 * neighbour bits from here on (view_to_grid_bits).
 */
static bool view_allows(const query_ctx *c, const astar_dead_ends *de, int32_t x) {
    const astar_dead_end_view *v = &c->s->dead_ends;
    for (int d = -1; d < 8; d++) {
        int32_t b = d < 0 ? x : x + c->offset[d];
        for (int32_t k = de->area[b]; k >= 0; k = de->parent[k])
            if (v->mark[k] != v->stamp && reached_cell(c, de->gateway[k])) return false;
    }
    return true;
}

/*
 * The switch from the dead-end view to the grid's neighbour bits: skipping dead ends is only a
 * speed-up, and once the terrain changed the view's areas may be dead ends no more. The
 * gateways it expanded without their moves into skipped areas go back on the open list, so
 * that every closed node has offered every step, as a search without the view would have.
 * Work: the build's areas, once per job. False on OOM.
 */
static bool view_to_grid_bits(query_ctx *c, const astar_dead_ends *de, uint64_t *work) {
    const astar_dead_end_view *v = &c->s->dead_ends;
    c->open = c->g->open;
    *work += (uint64_t)de->nareas;
    for (int32_t k = 0; k < de->nareas; k++) {
        if (v->mark[k] == v->stamp) continue; /* kept: its gateway's moves were all offered */
        int32_t gate = de->gateway[k];
        if (closed_node(&c->s->pool, gate) && !reopen_node(c, gate)) return false;
        if (c->twin && closed_node(&c->s->pool, gate + c->twin) && !reopen_node(c, gate + c->twin)) return false;
    }
    return true;
}

/*
 * view_to_grid_bits without the build the view was copied from (rebuilt since): the closed
 * nodes whose view bits lack a move the grid's have go back on the open list (the gateways,
 * and cells by a change: harmless). Work: the nodes the job reached (its tree from the start),
 * once per job. False on OOM.
 */
static bool view_to_grid_bits_by_walk(query_ctx *c, uint64_t *work) {
    const uint8_t *view = c->open, *grid = c->g->open;
    id_list l = {c->s->scratch, 0, c->s->scratch_bytes / sizeof(int32_t)};
    if (!walk_subtree(c, c->start, &l, NULL)) return false;
    c->open = grid;
    for (size_t i = 0; i < l.len; i++) {
        int32_t id = l.ids[i];
        /* (a closed node was expanded, so its page of the view was copied; one that was not
         * is reopened: always exact) */
        bool copied = c->s->dead_ends.copied[id >> ASTAR_VIEW_PAGE_SHIFT];
        if (closed_node(&c->s->pool, id) && (!copied || (grid[id] & ~view[id])) && !reopen_node(c, id))
            return false;
    }
    *work += l.len;
    return true;
}

/* A cell's terrain as a query with classes sees it (astar_terrain_cost) for a raw cost and a
 * class. */
static double seen_cost(const query_ctx *c, double cost, uint8_t cls) {
    /* (the query's factors: class_factor is NULL where they all weighed alike) */
    return cost == INFINITY ? INFINITY : astar_rounded(cost * c->q->classes[cls]);
}

/* A terrain write as a job with classes sees it (no class write since: the cell's class now). */
static const astar_change *terrain_change(const query_ctx *c, const astar_change *ch, astar_change *seen) {
    uint8_t cls = c->cls ? c->cls[ch->cell] : 0;
    *seen = (astar_change){ch->version, ch->cell, seen_cost(c, ch->before, cls), seen_cost(c, ch->after, cls)};
    return seen;
}

/* A class write as a job with classes sees it (no terrain write since: the cell's cost now). */
static const astar_change *classed_change(const query_ctx *c, const astar_class_change *cc, astar_change *seen) {
    double cost = c->cost[cc->cell];
    *seen = (astar_change){0, cc->cell, seen_cost(c, cost, cc->before), seen_cost(c, cost, cc->after)};
    return seen;
}

/* Whether the terrain writes since version `since` leave the steps composed per class on
 * terrain of one cost (query.c's class_step) as they are: each walls its cell or opens it at
 * that cost (a door on that terrain). Work: a read per write. */
static bool class_steps_hold(const query_ctx *c, uint32_t since) {
    for (uint32_t v = since + 1; v != c->g->version + 1; v++) {
        double after = astar_grid_change(c->g, v)->after;
        if (after != INFINITY && after != c->class_terrain) return false;
    }
    return true;
}

bool astar_job_follow(astar_search *s, uint32_t *repairs) {
    query_ctx *c = &s->job;
    const astar_grid *g = c->g;
    /* Jump point search read lines of cells it never touched (jps.c): any change may be on
     * one. */
    if (c->jps) return false;
    if (!astar_job_landmarks_held(s)) return false;
    if (!astar_grid_changes_known(g, s->job_version)) return false; /* a bulk write */
    /* On the view: its build's areas, if they are still those. Where the view may have kept it
     * from a way that now improves closed nodes (view_allows), or the areas are not known any
     * more, a job that can reopen them does (repair's argument: docs/design/living.md). */
    const bool on_view = c->open != g->open;
    const astar_dead_ends *de = NULL;
    bool reopen = false;
    if (on_view) {
        de = &g->dead_ends[astar_dead_end_kind(c->diagonal)];
        if (de->serial != s->dead_ends.serial) {
            if (!repairable(c)) return false;
            de = NULL;
            reopen = true;
        }
    }
    uint64_t work = 0;
    /* With classes, a change is what the query sees: the terrain times the class's factor
     * (classed_change). The loop that has them composed per class on terrain of one cost
     * reads the costs from a terrain write on. Terrain and class writes both since: which came
     * first at a cell is not known, so it starts over. */
    const bool classed = c->q->classes != NULL, reclassed = classed && g->class_version != s->job_class_version;
    if (reclassed) c->cls = g->cls; /* (made by the first class write, if after its start) */
    if (classed) {
        /* Classes of one factor ran as plain terrain (query.c): a class write may end that; a
         * terrain write is followed below while its cost is the terrain's one cost or a wall. */
        if (!c->class_factor && reclassed) return false;
        if (reclassed && (g->version != s->job_version || !astar_grid_class_changes_known(g, s->job_class_version)))
            return false;
        if (g->version != s->job_version && c->class_steps && !class_steps_hold(c, s->job_version)) {
            if (c->exact && (c->q->max_cost != INFINITY || !astar_job_leave_exact(c, &work))) return false;
            c->class_steps = false;
        }
        /* A class may come onto the map whose steps the quanta were not bounded for (one no
         * dearer than those at its start keeps them: under max_cost it could not go on else). */
        if (reclassed && c->exact && !(astar_class_dearest(c) <= c->quanta_diag) &&
            (c->q->max_cost != INFINITY || !astar_job_leave_exact(c, &work)))
            return false;
    }
    uint32_t from = reclassed ? s->job_class_version : s->job_version, to = reclassed ? g->class_version : g->version;
    for (uint32_t v = from + 1; v != to + 1; v++) {
        astar_change seen;
        const astar_change *ch = reclassed ? classed_change(c, astar_grid_class_change(g, v), &seen)
                               : classed   ? terrain_change(c, astar_grid_change(g, v), &seen)
                                           : astar_grid_change(g, v);
        const int32_t x = ch->cell;
        const bool walkable = ch->after != INFINITY;
        if (ch->before == ch->after) continue; /* (a class of the same factor) */
        /* What the job resolved from the terrain at its start. */
        if (walkable && ch->after < c->h_scale) return false; /* its heuristic would overestimate */
        if (!c->callbacks && c->uniform_cost > 0 && walkable && ch->after != c->uniform_cost) {
            if (classed && !c->class_factor) return false; /* its loop would read cost[] without them */
            /* Its loop reads no costs: one that does from here on (the same sums). */
            if (c->exact && (c->q->max_cost != INFINITY || !astar_job_leave_exact(c, &work))) return false;
            c->uniform_cost = 0.0;
        }
        if (astar_covers(c, c->start, x) || (c->goal >= 0 && astar_covers(c, c->goal, x)) || target_cell(c, x, ch->before))
            return false;
        if (c->twin && ch->before == INFINITY) return false; /* its interests, marked by island */
        if (de && !view_allows(c, de, x)) {
            if (!repairable(c)) return false;
            reopen = true;
        }
        if (!block_reached(c, x)) continue; /* it has not looked there: it reads x when it does */
        if (!repairable(c) || !repair(c, ch, &work)) return false;
        (*repairs)++;
    }
    if (reopen) {
        if (c->exact && !astar_job_leave_exact(c, &work)) return false;
        c->reopen = true;
    }
    if (on_view && !(de ? view_to_grid_bits(c, de, &work) : view_to_grid_bits_by_walk(c, &work))) return false;
    (void)astar_progress_charge(astar_progress_get(), work); /* the loop's next check sees a stop */
    return true;
}
