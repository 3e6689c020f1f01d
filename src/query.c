/* A grid query's workspace and set-up: checks, the context its loop reads, the claims it sees. */
#include "search.h"

#include <string.h>

astar_search *astar_search_new(int32_t width, int32_t height, const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return astar_made(NULL, ASTAR_EINVAL);
    /* A unit per node record (a cell with the border), before anything is allocated. */
    if (astar_stopped_before((uint64_t)(width + 2) * (uint64_t)(height + 2))) return astar_made(NULL, ASTAR_ESTOPPED);
    astar_alloc a;
    astar_search *s = astar_new_zeroed(alloc, sizeof *s, &a);
    if (!s) return astar_made(NULL, ASTAR_ENOMEM);
    s->alloc = a;
    s->width = width;
    s->height = height;
    s->stride = width + 2;
    s->cells = (size_t)(width + 2) * (size_t)(height + 2);
    if (!astar_pool_init(&s->pool, &a, s->cells)) {
        astar_mem(&a, s, sizeof *s, 0);
        return astar_made(NULL, ASTAR_ENOMEM);
    }
    return astar_made(s, ASTAR_OK);
}

/* Every per-node array of a workspace (search.h), for what is done to all of them. */
#define NODE_ARRAYS(X)                                                                             \
    X(penalty) X(custom_h) X(claimed) X(claim_gen) X(target_of) X(target_gen) X(depth) X(step_in) \
    X(window_head) X(interest_of) X(interest_gen)

/* Every per-node array: made again on need, for the pool's count of records. */
static void free_node_arrays(astar_search *s) {
    astar_pool *p = &s->pool;
    astar_alloc a = s->alloc;
#define FREE_ARRAY(name) (astar_pool_array_free(p, &a, s->name, sizeof *s->name), s->name = NULL);
    NODE_ARRAYS(FREE_ARRAY)
#undef FREE_ARRAY
}

/* Once the stamps wrapped: the stamp arrays must read 0 again (stale); the others need not,
 * but zeroed they give their pages back too (astar_pages_zero), so that a workspace holds
 * no more than its searches touched since. */
static void zero_node_arrays(astar_search *s) {
#define ZERO_ARRAY(name) astar_pool_array_zero(&s->pool, &s->alloc, s->name, sizeof *s->name);
    NODE_ARRAYS(ZERO_ARRAY)
#undef ZERO_ARRAY
}

/* At least bytes of the workspace's scratch memory (what it held is lost); NULL on OOM. */
void *astar_scratch(astar_search *s, size_t bytes) {
    if (bytes > s->scratch_bytes) {
        void *p = astar_mem(&s->alloc, s->scratch, s->scratch_bytes, bytes);
        if (!p) return NULL;
        s->scratch = p;
        s->scratch_bytes = bytes;
    }
    return s->scratch;
}

void astar_search_free(astar_search *s) {
    if (!s) return;
    astar_alloc a = s->alloc;
    astar_pool *p = &s->pool;
    free_node_arrays(s);
    astar_mem(&a, s->window, (size_t)s->window_cap * sizeof *s->window, 0);
    astar_path_free(&s->path, &a);
    astar_mem(&a, s->scratch, s->scratch_bytes, 0);
    if (s->flee_free) s->flee_free(s);
    astar_dead_end_view_free(&s->dead_ends, &a);
    astar_pool_free(p, &a);
    astar_mem(&a, s, sizeof *s, 0);
}

void astar_search_trim(astar_search *s) {
    astar_pool *p = &s->pool;
    if (!p->clear_at) return; /* its clears write: that would give nothing back */
    astar_pool_array_zero(p, &s->alloc, p->nodes, sizeof *p->nodes);
    zero_node_arrays(s);
    astar_dead_end_view_trim(&s->dead_ends, &s->alloc);
    p->gen = 0; /* every record stale: the next query's stamp is 1 */
    s->job_live = false;
}

const int32_t *astar_search_path(const astar_search *s, int32_t *length) {
    if (length) *length = s->path.len;
    return s->path.ids;
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
    q->dead_ends = 1;
    q->size = 1;
}

/*
 * cell / stride as a multiply and a shift: cells are below 2^31 and the stride
 * below 2^16, so floor(cell * ceil(2^s / stride) / 2^s) with
 * s = 32 + ceil(log2 stride) is exact.
 */
static void init_row_division(query_ctx *c) {
    int bits = 0;
    while ((1 << bits) < c->stride) bits++;
    c->row_shift = 32 + bits;
    c->row_magic = ((UINT64_C(1) << c->row_shift) + (uint64_t)c->stride - 1) / (uint64_t)c->stride;
}

static astar_status check_query(const astar_search *s, const astar_grid *g, const astar_query *q) {
    if (s->width != g->width || s->height != g->height) return ASTAR_EINVAL;
    if (q->sx < 0 || q->sy < 0 || q->sx >= g->width || q->sy >= g->height) return ASTAR_EINVAL;
    if (q->gx < 0 || q->gy < 0 || q->gx >= g->width || q->gy >= g->height) return ASTAR_EINVAL;
    if (q->diagonal < ASTAR_DIAG_DEFAULT || q->diagonal > ASTAR_DIAG_HEX) return ASTAR_EINVAL;
    if (q->heuristic < ASTAR_H_DEFAULT || q->heuristic > ASTAR_H_CUSTOM) return ASTAR_EINVAL;
    if (q->heuristic == ASTAR_H_CUSTOM && !q->heuristic_fn) return ASTAR_EINVAL;
    if (!astar_costs_ok(q->weight, q->max_cost, q->noise, q->claims ? q->claim_penalty : 0.0))
        return ASTAR_EINVAL;
    if (q->nlayers < 0 || q->nlayers > ASTAR_MAX_LAYERS || (q->nlayers > 0 && !q->layers))
        return ASTAR_EINVAL;
    for (int i = 0; i < q->nlayers; i++) {
        const astar_layer *l = q->layers[i].layer;
        if (!l || l->width != g->width || l->height != g->height || !astar_value_ok(q->layers[i].weight))
            return ASTAR_EINVAL;
    }
    if (q->claims && (q->claims->width != g->width || q->claims->height != g->height))
        return ASTAR_EINVAL;
    if (q->known && (q->known->width != g->width || q->known->height != g->height)) return ASTAR_EINVAL;
    if (!(q->turn_penalty >= 0 && q->turn_penalty <= ASTAR_MAX_VALUE) || q->claim_window < -1)
        return ASTAR_EINVAL;
    if (q->jps != ASTAR_JPS_AUTO && q->jps != ASTAR_JPS_OFF && q->jps != ASTAR_JPS_ONLINE)
        return ASTAR_EINVAL;
    /* Hexes have no square footprint (docs/design/clearance.md). */
    if (q->size < 0 || q->size > ASTAR_MAX_SIZE || /* 0: a query made without astar_query_init, one cell */
        (q->size > 1 && (q->diagonal == ASTAR_DIAG_HEX || (q->diagonal == ASTAR_DIAG_DEFAULT && g->diagonal == ASTAR_DIAG_HEX))))
        return ASTAR_EINVAL;
    if (q->ntargets < 0 ||
        (q->ntargets > 0 && (!q->targets || (q->heuristic == ASTAR_H_CUSTOM && !s->job_aim))))
        return ASTAR_EINVAL;
    for (int32_t i = 0; i < q->ntargets; i++) {
        if (q->targets[i] < 0 || q->targets[i] / g->width >= g->height) return ASTAR_EINVAL;
        if (q->target_costs && !(q->target_costs[i] >= 0 && q->target_costs[i] <= ASTAR_MAX_VALUE))
            return ASTAR_EINVAL;
    }
    if (q->target_costs && (q->ntargets == 0 || q->partial)) return ASTAR_EINVAL;
    for (int i = 0; q->classes && i < 256; i++)
        if (!(q->classes[i] == INFINITY || (q->classes[i] > 0 && q->classes[i] <= ASTAR_MAX_VALUE)))
            return ASTAR_EINVAL;
    /* A partial answer ranks nodes by h alone, which cannot weigh a value against a detour. */
    if (q->ninterests < 0 || (q->ninterests > 0 && (!q->interests || !q->interest_values || q->partial)))
        return ASTAR_EINVAL;
    for (int32_t i = 0; i < q->ninterests; i++)
        if (q->interests[i] < 0 || q->interests[i] / g->width >= g->height ||
            !astar_interest_ok(q->interest_values[i]))
            return ASTAR_EINVAL;
    return ASTAR_OK;
}

/* claim_radius: whether another unit standing on cell is within it of the start (Chebyshev). */
static bool near_start(const void *ud, int32_t cell) {
    const query_ctx *c = ud;
    const astar_query *q = c->q;
    int32_t dx = cell % c->stride - 1 - q->sx, dy = cell / c->stride - 1 - q->sy;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    return dx <= q->claim_radius && dy <= q->claim_radius;
}

/* Chains, per cell, the claims this query sees with their times (claim_window), a unit of the
 * progress handler per claim cell read: ASTAR_ENOMEM, ASTAR_ESTOPPED or ASTAR_OK. */
static astar_status prepare_window(query_ctx *c) {
    const astar_query *q = c->q;
    const astar_claims *cl = q->claims;
    astar_search *s = c->s;
    s->window_len = 0;
    for (int32_t k = 0; k < cl->nunits; k++) {
        const astar_unit_claim *u = &cl->units[k];
        if (k == q->unit || u->pos < 0) continue;
        if (q->claim_radius >= 0 && !near_start(c, u->cells[u->pos])) continue;
        if (astar_progress_charge(astar_progress_get(), (uint64_t)(u->n - u->pos))) return ASTAR_ESTOPPED;
        if (u->n - u->pos > s->window_cap - s->window_len) {
            int64_t cap = (int64_t)s->window_cap * 2;
            if (cap < (int64_t)s->window_len + (u->n - u->pos)) cap = (int64_t)s->window_len + (u->n - u->pos);
            if (cap < 64) cap = 64;
            if (cap > INT32_MAX) return ASTAR_ENOMEM;
            window_claim *w = astar_mem(&s->alloc, s->window, (size_t)s->window_cap * sizeof *w,
                                        (size_t)cap * sizeof *w);
            if (!w) return ASTAR_ENOMEM;
            s->window = w;
            s->window_cap = (int32_t)cap;
        }
        for (int32_t i = u->pos; i < u->n; i++) {
            int32_t cell = u->cells[i];
            if (s->claim_gen[cell] != s->pool.gen) {
                s->claim_gen[cell] = s->pool.gen;
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
    return ASTAR_OK;
}

/*
 * Records for two copies of the grid (interests: search.h), kept for the workspace's next
 * queries. False on OOM, the workspace as it was.
 */
static bool make_twin(astar_search *s) {
    if (s->pool.count >= 2 * s->cells) return true;
    if (2 * s->cells > (size_t)INT32_MAX) return false;
    astar_pool twin;
    if (!astar_pool_init(&twin, &s->alloc, 2 * s->cells)) return false;
    free_node_arrays(s);
    astar_pool_free(&s->pool, &s->alloc);
    s->pool = twin;
    return true;
}

/* Whether every class some cell holds has the same walkable factor under q. */
static bool uniform_classes(const astar_grid *g, const astar_query *q) {
    double f = 0.0; /* none seen yet */
    for (int i = 0; g->cls && i < 256; i++) {
        if (g->class_cells[i] == 0) continue;
        if (f == 0.0) f = q->classes[i];
        else if (q->classes[i] != f) return false;
    }
    return f > 0.0 && f != INFINITY;
}

double astar_class_dearest(const query_ctx *c) {
    double diag = 0.0;
    for (int i = 0; i < 256; i++) {
        double step = c->s->class_step[i][1];
        if (c->g->class_cells[i] > 0 && step != INFINITY && step > diag) diag = step;
    }
    return diag;
}

astar_status astar_query_begin(query_ctx *c, astar_search *s, astar_grid *g, const astar_query *q,
                               bool general, bool *callbacks_out) {
    astar_status st = check_query(s, g, q);
    if (st != ASTAR_OK) return st;
    /* c is built in place: the context is large, a copy per query is not free */
    memset(c, 0, sizeof *c);
    c->s = s;
    c->aim_goal = q->ntargets > 0 && s->job_aim;
    c->g = g;
    c->open = g->open;
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
    st = astar_grid_cost_range(g, &min_cost, &max_cost);
    if (st != ASTAR_OK) return st;
    c->h_scale = isfinite(min_cost) ? min_cost : 0.0;
    if (q->classes) {
        /* The cheapest cell the query may see costs min_cost times its cheapest walkable factor
         * among the classes on the map, rounded as astar_terrain_cost rounds: admissible. */
        double least = INFINITY;
        for (int i = 0; i < 256; i++) {
            if (q->classes[i] < least && (g->cls ? g->class_cells[i] > 0 : i == 0)) least = q->classes[i];
            c->class_walls |= q->classes[i] == INFINITY;
        }
        c->class_factor = q->classes;
        c->cls = g->cls;
        c->h_scale = isfinite(least) ? astar_rounded(c->h_scale * least) : 0.0;
    }
    if (q->known && !(c->h_scale < 1.0)) c->h_scale = 1.0; /* unknown cells cost 1 */
    /* A hex step has length 1: its cost on the cheapest terrain is h_card too. */
    c->h_card = astar_step_cost(c->h_scale, 0);
    c->h_diag = astar_step_cost(c->h_scale, 4) - c->h_card;
    c->uniform_cost = min_cost == max_cost && !q->classes ? min_cost : 0.0;
    /* Landmarks bound the terrain's distances under their moves. Fog of war may make a cell
     * cheaper than its terrain, classes too, a mode with more moves a way shorter; a named heuristic is
     * used as given; many targets would need a bound per target. */
    const astar_landmarks *lm = astar_landmarks_for(g, c->diagonal);
    /* (Nor for a unit bigger than a cell: its steps cost the cells its footprint enters.) */
    if (lm && q->heuristic == ASTAR_H_DEFAULT && !q->known && !q->classes && q->size <= 1 &&
        (q->ntargets == 0 || c->aim_goal))
        astar_landmarks_aim(&c->lm, lm, c->goal, astar_cell(g->stride, q->sx, q->sy));
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
    if (q->ninterests > 0 && !make_twin(s)) return ASTAR_ENOMEM;
    c->size = q->size;
    if (q->size > 1 && (st = astar_clearance_get(g, &c->clearance)) != ASTAR_OK) return st;
    c->size_walls = q->size > 1 && (q->known || c->class_walls);
    /* A unit bigger than a cell takes the plain or layered loop's instances for it (grid_loop.c's
     * run_sized: its moves from the clearance table, its steps from the cells it enters), or with
     * classes the general loop (astar_query_moves, astar_entered_cost), as with fog. */
    bool callbacks = general || (q->size > 1 && q->classes) || q->node_cost || q->edge_cost ||
                     c->heuristic == ASTAR_H_CUSTOM || q->ninterests > 0 ||
                     q->known || q->ntargets > 0 || q->noise > 0 || c->diagonal == ASTAR_DIAG_HEX ||
                     /* classes: the plain loop reads them (the classed one) under octile on a
                      * classed grid, without layers or claims; else the general loop */
                     (q->classes && (!g->cls || c->heuristic != ASTAR_H_OCTILE || q->nlayers > 0 || q->claims)) ||
                     q->turn_penalty > 0 || (q->claims && q->claim_window >= 0);
    /* Nothing but a bigger unit's classes in the general loop: no callback, no memo a terrain
     * write alters (a layer's penalty is not one), a consistent heuristic, one copy, no bound
     * but the loop's: what the plain loops' repair needs (docs/design/clearance.md). */
    c->general_repairable = callbacks && q->size > 1 && q->classes && !general && !q->node_cost && !q->edge_cost &&
                            c->heuristic != ASTAR_H_CUSTOM && q->ninterests == 0 && !q->known && q->ntargets == 0 &&
                            !(q->noise > 0) && c->diagonal != ASTAR_DIAG_HEX && !(q->turn_penalty > 0) &&
                            !(q->claims && q->claim_window >= 0);
    if (q->classes && !callbacks && !q->nlayers && !q->claims && uniform_classes(g, q) && min_cost == max_cost &&
        isfinite(min_cost)) {
        /* Every class on the map walkable at one factor, on terrain of one cost: the query is a
         * plain one on terrain of that cost times the factor (h_scale is it), so it takes what
         * uniform terrain takes (jump point search, the loop in quanta), the same bits. (Only
         * where the plain loop would run: octile, as `callbacks` says; the loops of the other
         * heuristics, and the general one, read cost[].) */
        c->class_factor = NULL;
        c->class_walls = false;
        c->uniform_cost = c->h_scale;
        c->h_card = astar_step_cost(c->h_scale, 0);
        c->h_diag = astar_step_cost(c->h_scale, 4) - c->h_card;
    } else if (q->classes && !callbacks && min_cost == max_cost && isfinite(min_cost)) {
        /* Terrain of one cost: a class's step is the same everywhere, composed here once as the
         * classed loop would compose it (the same bits), and read there with one load. */
        for (int i = 0; i < 256; i++)
            for (int k = 0; k < 2; k++) {
                double step = astar_step_of(k ? ASTAR_SQRT2 : 1.0, astar_rounded(min_cost * q->classes[i]), false,
                                            0.0, false, 0.0);
                s->class_step[i][k] = step;
                /* whole quanta below ASTAR_QUANTA_BELOW; the loop in quanta runs only when every
                 * class on the map is (search.c's exact_room), the others are never read */
                s->class_quanta[i][k] = step < ASTAR_QUANTA_BELOW ? (int64_t)(step * (1.0 / ASTAR_QUANTUM)) : 0;
            }
        c->class_steps = true;
        c->class_terrain = min_cost;
    }
    c->windowed = q->claims && q->claim_window >= 0;
    bool layered = q->nlayers > 0 || q->claims;
    c->penalties = callbacks && (layered || q->node_cost || q->noise > 0);
    /* (not c->reopen later: a repaired job's nodes before the repair kept no step_in) */
    c->steps_kept = c->reopen || q->ninterests > 0;
    if ((c->penalties && !ASTAR_POOL_NEED(s, penalty, false)) ||
        (c->heuristic == ASTAR_H_CUSTOM && !ASTAR_POOL_NEED(s, custom_h, false)) ||
        (q->claims && (!ASTAR_POOL_NEED(s, claimed, false) || !ASTAR_POOL_NEED(s, claim_gen, true))) ||
        (c->windowed &&
         (!ASTAR_POOL_NEED(s, depth, false) || !ASTAR_POOL_NEED(s, window_head, false))) ||
        (c->steps_kept && !ASTAR_POOL_NEED(s, step_in, false)) ||
        (q->ntargets &&
         (!ASTAR_POOL_NEED(s, target_of, false) || !ASTAR_POOL_NEED(s, target_gen, true))) ||
        (q->ninterests &&
         (!ASTAR_POOL_NEED(s, interest_of, false) || !ASTAR_POOL_NEED(s, interest_gen, true))))
        return ASTAR_ENOMEM;
    c->memo_penalty = c->penalties ? s->penalty : NULL;
    c->memo_h = c->heuristic == ASTAR_H_CUSTOM ? s->custom_h : NULL;

    if (astar_pool_begin(&s->pool, &s->alloc)) zero_node_arrays(s); /* wrapped */
    c->pv.nlayers = q->nlayers;
    if (q->nlayers > 0) {
        c->pv.value0 = c->layer_value[0];
        c->pv.weight0 = c->layer_weight[0];
    }
    if (c->windowed) {
        if ((st = prepare_window(c)) != ASTAR_OK) return st;
    } else if (q->claims) {
        c->pv.claims = true;
        if (!astar_claim_view_init(&c->pv.claim, q->claims, 0, (int32_t)s->cells, q->unit,
                                   q->claim_radius < 0 ? NULL : near_start, c, s->claimed, s->claim_gen,
                                   s->pool.gen, q->claim_penalty, astar_progress_get()))
            return ASTAR_ESTOPPED;
    }
    *callbacks_out = callbacks;
    return ASTAR_OK;
}
