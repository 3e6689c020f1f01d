/*
 * Grid A*: a search's life. Its start (checks, islands, interests, dead ends, the engine
 * chosen per query: A* or jump point search), its slices (find = start + step) and what they
 * follow between them (changes, restarts). The loop itself is grid_loop.c's.
 */
#include "loop.h"
#include "search.h"

#include <string.h>

/*
 * Whether a query of this mode and heuristic on terrain of one cost (uniform) takes jump
 * point search, whatever its endpoints (it also needs a walkable start). Partial answers
 * would need every cell ranked, so those stay with A*; so do budgeted ones: JPS counts jump
 * points, not cells, and meets a path's costs in another order, so max_expansions or
 * max_cost would cut it elsewhere than A*, and a query's answer must not depend on which
 * engine ran it. Anything that makes a step's cost other than the cell's takes A* too (a
 * bigger unit's steps among them); classes only where every class on the map has one walkable
 * factor (query.c: uniform then).
 */
static bool jps_applies(const astar_query *q, astar_diagonal mode, astar_heuristic h, bool uniform) {
    return q->jps != ASTAR_JPS_OFF && uniform && q->size <= 1 && q->weight == 1.0 && !q->partial &&
           q->max_expansions == UINT64_MAX && q->max_cost == INFINITY && !q->node_cost &&
           !q->edge_cost && !q->known && q->ntargets == 0 && !(q->noise > 0) &&
           !(q->turn_penalty > 0) && q->nlayers == 0 && !q->claims && q->ninterests == 0 &&
           ((mode == ASTAR_DIAG_NO_CORNER_CUT && h == ASTAR_H_OCTILE) ||
            (mode == ASTAR_DIAG_NEVER && h == ASTAR_H_MANHATTAN));
}

/*
 * Marks the cells of q's interests that the query can enter, each with the largest value
 * among those there (the first of equals), and sets up the second copy of the grid (search.h).
 * When the query has island labels (c->islands), an interest on another island than the
 * start's is left out: no path reaches it, and its value in twin_shift would only make the
 * search go as much further in the first copy before it takes the sink. False when a callback
 * aborted.
 */
static bool mark_interests(query_ctx *c) {
    astar_search *s = c->s;
    const astar_query *q = c->q;
    const int32_t width = c->g->width;
    const int32_t home = c->islands ? astar_islands_root(c->islands, c->start) : 0;
    c->twin = (int32_t)s->cells;
    c->twin_shift = 0.0;
    for (int32_t i = 0; i < q->ninterests; i++) {
        int32_t x = q->interests[i] % width, y = q->interests[i] / width;
        int32_t cell = astar_cell(c->stride, x, y);
        if (c->islands && astar_islands_root(c->islands, cell) != home) continue;
        if (!astar_walkable(c, cell, x, y)) {
            if (c->aborted) return false;
            continue;
        }
        astar_loop_mark_interest(s->interest_of, s->interest_gen, s->pool.gen, q->interest_values, cell, i,
                                 &c->twin_shift);
    }
    return true;
}

/* Whether q may skip dead ends: not where a path's cost depends on more than its cells and
 * steps (claim_window, turn_penalty), where the query sees other walls or costs than the
 * terrain's (a mask, classes), or where every reached cell counts (partial).
 * docs/design/dead_ends.md. */
static bool dead_ends_apply(const astar_query *q) {
    return q->dead_ends && q->size <= 1 && !q->partial && !q->known && !q->classes && q->claim_window < 0 &&
           !(q->turn_penalty > 0);
}

/*
 * Points the loops at the workspace's copy of the neighbour bits, in which the moves into
 * every dead end are closed but those into the areas holding the start, the goal or targets,
 * and the interests. A blocked start keeps its neighbours' areas: it is left through them.
 */
static astar_status skip_dead_ends(query_ctx *c, int32_t start) {
    astar_search *s = c->s;
    astar_grid *g = c->g;
    const astar_query *q = c->q;
    if (!dead_ends_apply(q)) return ASTAR_OK;
    astar_dead_ends *de;
    astar_status st = astar_dead_ends_get(g, astar_dead_end_kind(c->diagonal), &de);
    if (st != ASTAR_OK) return st;
    if (de->nareas == 0) return ASTAR_OK;
    astar_dead_end_view *v = &s->dead_ends;
    if (!astar_dead_end_view_begin(v, de, &s->alloc, s->cells)) return ASTAR_ENOMEM;
    astar_dead_end_view_keep(v, de, g->open, start);
    if (g->cost[start] == INFINITY)
        for (int d = 0; d < 8; d++) astar_dead_end_view_keep(v, de, g->open, start + c->offset[d]);
    if (q->ntargets) {
        for (int32_t i = 0; i < q->ntargets; i++)
            astar_dead_end_view_keep(v, de, g->open, astar_cell(c->stride, q->targets[i] % g->width, q->targets[i] / g->width));
    } else {
        astar_dead_end_view_keep(v, de, g->open, c->goal);
    }
    for (int32_t i = 0; i < q->ninterests; i++)
        astar_dead_end_view_keep(v, de, g->open, astar_cell(c->stride, q->interests[i] % g->width, q->interests[i] / g->width));
    c->open = v->open;
    return ASTAR_OK;
}

/*
 * What a layered query's penalties can add along any path, from the bounds its layers and
 * claims keep on every write (layers.h): a path enters each cell at most once, and P(b) of a
 * cell is at most the sum of |weight * value| of its layers and claim_penalty times its claims.
 * Each product and sum is rounded at most 2^-53 off, and each step rounds up by less than a
 * quantum (core.h). Cheap: one term per layer. `stale`: claims the view may still count from
 * the query's start besides today's (its overlay was counted then: cost.h).
 */
static double penalty_bound(const query_ctx *c, int64_t stale) {
    const astar_query *q = c->q;
    if (!c->layered) return 0.0;
    double sum = 0.0;
    for (int i = 0; i < q->nlayers; i++) sum += fabs(q->layers[i].weight) * astar_layer_sum_bound(q->layers[i].layer);
    if (q->claims) sum += q->claim_penalty * ((double)q->claims->total + (double)stale);
    return sum * (1.0 + 0x1p-40) + (double)c->s->cells * ASTAR_QUANTUM;
}

/*
 * Whether the loop may count c's query in quanta: its sums stay below ASTAR_EXACT_BELOW and a
 * step's penalised cost below ASTAR_QUANTA_BELOW, where astar_cost_up rounds it to quanta, so
 * the integers are the doubles' sums to the bit. Sets the keys' tie bits and penalty_room, the
 * bound within which a job keeps counting so when its layers or claims change
 * (astar_search_step).
 */
static bool exact_room(query_ctx *c) {
    const astar_grid *g = c->g;
    double diag = c->uniform_cost > 0 ? astar_step_cost(c->uniform_cost, 4) : astar_class_dearest(c), extra = penalty_bound(c, 0);
    c->quanta_diag = diag;
    c->claims_seen = c->q->claims && c->pv.claim.overlay ? c->q->claims->total : 0;
    if (!(diag + extra < ASTAR_QUANTA_BELOW) || !astar_exact_keys(g, diag, extra, &c->tie_bits)) return false;
    double room = ldexp(1.0, 31 - c->tie_bits);
    if (room > ASTAR_EXACT_BELOW) room = ASTAR_EXACT_BELOW;
    room -= ((double)g->width * g->height + g->width + g->height) * diag;
    c->penalty_room = ASTAR_QUANTA_BELOW - diag < room ? ASTAR_QUANTA_BELOW - diag : room;
    /* The test astar_search_step makes between slices, so that a search counted in quanta is
     * not outgrown at its first step with nothing changed: under max_cost that started it over
     * at every step, for ever (the claims its overlay saw count twice there; fuzz_core). */
    return penalty_bound(c, c->claims_seen) < c->penalty_room;
}

/*
 * Sets up the search of q on s up to its first push. Returns ASTAR_RUNNING when
 * there is a search to run, else its final status (found at once, unreachable at
 * once, or an error).
 */
static astar_status start_search(astar_search *s, astar_grid *g, const astar_query *q,
                                 bool jps_ok, const uint16_t *corridor, uint16_t corridor_gen,
                                 astar_result *res) {
    astar_result_init(res);
    res->scored = q->ninterests > 0;
    s->path.len = 0;
    query_ctx *c = &s->job; /* the live search's context, set up where it will stay */
    bool callbacks;
    astar_status st = astar_query_begin(c, s, g, q, corridor != NULL, &callbacks);
    if (st != ASTAR_OK) return st;
    c->corridor = corridor;
    c->corridor_gen = corridor_gen;
    c->callbacks = callbacks;
    c->layered = q->nlayers > 0 || q->claims;
    /* Counting in quanta (grid_loop.c's `exact`): for uniform terrain (or classes on terrain of
     * one cost, each class a uniform step: astar_class_dearest) under the octile bound alone (with
     * landmarks astar_run_plain takes another loop; jobs.c reads this flag as the loop's), with or
     * without layers and claims (no callbacks), while sums stay exact (exact_room). */
    c->exact = !callbacks && c->heuristic == ASTAR_H_OCTILE && (c->uniform_cost > 0 || c->class_steps) && !c->lm.dist &&
               q->weight == 1.0 && !q->partial && exact_room(c);

    int32_t start = astar_cell(g->stride, q->sx, q->sy);
    c->start = start;
    c->best = start;
    c->best_h = INFINITY;
    c->ntargets = q->ntargets;
    c->target_h = q->ntargets <= ASTAR_HEURISTIC_TARGETS && !c->aim_goal;
    /* Mark the walkable targets; of duplicates the first names the cell, or with target costs the
     * cheapest. */
    if (q->ntargets) {
        c->goal_open = false;
        for (int32_t i = q->ntargets - 1; i >= 0; i--) {
            int32_t x = q->targets[i] % g->width, y = q->targets[i] / g->width;
            int32_t cell = astar_cell(g->stride, x, y);
            if (c->target_h) {
                c->target_xy[2 * i] = x;
                c->target_xy[2 * i + 1] = y;
            }
            if (!astar_walkable(c, cell, x, y)) continue;
            if (q->target_costs && s->target_gen[cell] == s->pool.gen &&
                q->target_costs[s->target_of[cell]] < q->target_costs[i])
                continue;
            s->target_gen[cell] = s->pool.gen;
            s->target_of[cell] = i;
            c->goal_open = true;
        }
    } else {
        c->goal_open = astar_walkable(c, c->goal, q->gx, q->gy);
    }
    if (c->aborted) return ASTAR_EABORT;
    if (!c->goal_open && !q->partial) return ASTAR_UNREACHABLE;

    /* Another island: no search. (The labels' only lazy writes, with the JPS+ tables below;
     * astar_find_prepare makes them ahead for the threads of astar_find_many.) */
    /* (Not with fog of war: the unknown cells the labels count as blocked may be open.) */
    /* A bigger unit: the labels of its size, over the anchors it fits on (a start it does not
     * fit on gets no check, as a blocked one). */
    bool start_fits = c->size > 1 ? c->clearance[start] >= c->size : g->cost[start] != INFINITY;
    if (!q->partial && !q->known && start_fits && (q->ntargets || start != c->goal)) {
        st = astar_islands_sized(g, astar_island_kind(c->diagonal), c->size, &c->islands);
        if (st != ASTAR_OK) return st;
        bool same = false;
        int32_t home = astar_islands_root(c->islands, start);
        if (q->ntargets) {
            for (int32_t i = 0; i < q->ntargets && !same; i++) {
                int32_t cell = astar_cell(g->stride, q->targets[i] % g->width, q->targets[i] / g->width);
                same = s->target_gen[cell] == s->pool.gen && astar_islands_root(c->islands, cell) == home;
            }
        } else {
            same = home == astar_islands_root(c->islands, c->goal);
        }
        if (!same) return ASTAR_UNREACHABLE;
    }
    if (q->ninterests > 0 && !mark_interests(c)) return ASTAR_EABORT; /* after the labels: it reads them */
    c->sink = q->ninterests > 0 || q->target_costs;

    /* Uniform terrain and nothing on top: jump point search gives the same cost for far fewer
     * expansions (docs/performance.md), whole or in slices. A blocked start gets no island
     * check, so it stays with A*. */
    if (jps_ok && !callbacks && !c->layered && g->cost[start] != INFINITY &&
        jps_applies(q, c->diagonal, c->heuristic, c->uniform_cost > 0)) {
        astar_jps_table *table = NULL; /* ASTAR_JPS_ONLINE: scan the lines */
        if (q->jps == ASTAR_JPS_AUTO) {
            st = astar_jps_table_get(g, astar_jps_table_kind(c->diagonal), &table); /* JPS+; built on first need */
            if (st != ASTAR_OK) return st;
        }
        return astar_jps_begin(s, c->diagonal, start, c->goal, c->uniform_cost, table);
    }

    st = skip_dead_ends(c, start);
    if (st != ASTAR_OK) return st;
    if (c->sink) astar_touch(c, ASTAR_GRID_SINK);
    astar_touch(c, start); /* before its heuristic, which it memoises */
    double h0 = astar_heuristic_at(c, start, q->sx, q->sy);
    if (c->aborted) return ASTAR_EABORT;
    /* The start in the first copy, and in the second when it collects an interest there. */
    for (int copy = 0; copy < 2; copy++) {
        int32_t id = start;
        double g0 = 0.0;
        if (copy == 1) {
            if (!c->twin || s->interest_gen[start] != s->pool.gen) break;
            id = start + c->twin;
            g0 = c->twin_shift - astar_interest_value(q->interest_values[s->interest_of[start]]);
        }
        astar_node *sn = astar_touch(c, id);
        sn->g = g0;
        sn->from = ASTAR_FROM_START;
        sn->spare = 0;
        if (c->windowed) s->depth[id] = 0;
        if (!astar_pool_open(&s->pool, &s->alloc, sn, id, g0 + c->weight * h0, h0)) return ASTAR_ENOMEM;
    }
    return ASTAR_RUNNING;
}

/* Runs the live search of s for up to `budget` expansions, charged to the calling thread's
 * progress handler. */
static astar_status continue_search(astar_search *s, uint64_t budget, astar_result *res) {
    query_ctx *c = &s->job;
    if (c->jps) return astar_jps_step(s, budget, res);
    c->meter = astar_meter_begin(astar_progress_get(), c->expansions);
    astar_status st = c->callbacks ? astar_run_general(c, budget, res)
                      : c->layered ? astar_run_layered(c, budget, res)
                                   : astar_run_plain(c, budget, res);
    astar_meter_sync(&c->meter, res->expansions);
    return st;
}

/* Records a step's outcome: a final one ends the search and is kept for later steps. A stop
 * (ASTAR_ESTOPPED) is final only for a search that never started. */
static astar_status settle(astar_search *s, astar_result *res, astar_status st) {
    res->status = st;
    if (res->interest < 0) res->score = res->cost;
    res->restarts = s->job_restarts;
    res->repairs = s->job_repairs;
    if (st != ASTAR_RUNNING && (st != ASTAR_ESTOPPED || !s->job_live)) {
        s->job_live = false;
        s->job_result = *res;
    }
    return st;
}

/* A new search on s; jps_ok lets a uniform query take jump point search (then its restarts may
 * too). */
static astar_status begin_search(astar_search *s, astar_grid *g, const astar_query *q, bool jps_ok,
                                 const uint16_t *corridor, uint16_t corridor_gen, astar_result *res) {
    s->job_live = false;
    s->job_field = false;
    s->job_jps_ok = jps_ok;
    s->job_restarts = 0;
    s->job_repairs = 0;
    s->job_restart_due = false;
    s->job_aim = s->aim_next;
    s->aim_next = false;
    astar_status st = start_search(s, g, q, jps_ok, corridor, corridor_gen, res);
    s->job_live = st == ASTAR_RUNNING;
    s->job_version = g->version;
    s->job_class_version = g->class_version;
    s->job_landmarks = astar_landmarks_serial(g);
    return settle(s, res, st);
}

astar_status astar_search_start(astar_search *s, astar_grid *g, const astar_query *q,
                                 astar_result *res) {
    return begin_search(s, g, q, true, NULL, 0, res); /* the engine astar_find takes */
}

astar_status astar_search_step(astar_search *s, uint64_t n, astar_result *res) {
    if (s->job_live && s->job_field) return astar_finish(res, ASTAR_EINVAL); /* a field's (field.c) */
    if (!s->job_live) { /* finished (or never started): the same answer again */
        *res = s->job_result;
        return res->status;
    }
    query_ctx *c = &s->job;
    astar_result_init(res);
    res->scored = c->q->ninterests > 0;
    /* The terrain changed under it (or the landmarks it reads): go on where the changes allow
     * (jobs.c), else start over. Its layers and claims grown past what it counts exactly in
     * quanta: on in doubles (without max_cost, whose cut records hold no g), else start over. */
    /* A job with classes follows class writes as terrain writes (jobs.c). */
    bool reclassed = c->q->classes && c->g->class_version != s->job_class_version;
    bool moved = s->job_restart_due || c->g->version != s->job_version || !astar_job_landmarks_held(s) ||
                 reclassed;
    bool outgrown = c->exact && c->layered && !(penalty_bound(c, c->claims_seen) < c->penalty_room);
    if (moved || outgrown) {
        uint32_t repairs = 0;
        bool go_on = !s->job_restart_due && (!moved || astar_job_follow(s, &repairs));
        if (go_on && outgrown && c->exact) {
            uint64_t work = 0;
            go_on = c->q->max_cost == INFINITY && astar_job_leave_exact(c, &work);
            (void)astar_progress_charge(astar_progress_get(), work); /* the loop's next check sees a stop */
        }
        if (go_on) {
            s->job_version = c->g->version;
            s->job_class_version = c->g->class_version;
            s->job_repairs += repairs;
        } else {
            /* A job that jumps follows no change (its scans read cells it never reached): it
             * starts over as JPS once (a few hundred jump points on a big map), then as A*,
             * which follows the changes after. Started over as JPS at every change anywhere, it
             * never ended under a door toggling at each of its steps. */
            if (c->jps && s->job_restarts > 0) s->job_jps_ok = false;
            s->job_restart_due = true;
            astar_status st = start_search(s, c->g, c->q, s->job_jps_ok, c->corridor, c->corridor_gen, res);
            if (st == ASTAR_ESTOPPED) return settle(s, res, st); /* still to start over: next step */
            s->job_restart_due = false;
            s->job_restarts++;
            s->job_version = c->g->version;
            s->job_class_version = c->g->class_version;
            s->job_landmarks = astar_landmarks_serial(c->g);
            if (st != ASTAR_RUNNING) return settle(s, res, st);
        }
    }
    return settle(s, res, continue_search(s, n, res));
}

/* A whole search: begun, then stepped to its end (a stop ends it too: q may be gone after). */
static astar_status whole_search(astar_search *s, astar_grid *g, const astar_query *q, bool jps_ok,
                                 const uint16_t *corridor, uint16_t gen, astar_result *res) {
    astar_status st = begin_search(s, g, q, jps_ok, corridor, gen, res);
    if (st != ASTAR_RUNNING) return st;
    st = astar_search_step(s, UINT64_MAX, res);
    if (st == ASTAR_ESTOPPED) {
        s->job_live = false;
        s->job_result = *res;
    }
    return st;
}

astar_status astar_find(astar_search *s, astar_grid *g, const astar_query *q, astar_result *res) {
    return whole_search(s, g, q, true, NULL, 0, res);
}

astar_status astar_find_within(astar_search *s, astar_grid *g, const astar_query *q,
                               const uint16_t *corridor, uint16_t gen, astar_result *res) {
    return whole_search(s, g, q, false, corridor, gen, res);
}

astar_status astar_find_prepare(astar_grid *g, const astar_query *q) {
    double lo, hi;
    astar_status st = astar_grid_cost_range(g, &lo, &hi);
    const uint8_t *clearance; /* a bigger unit's table, made here, not by the threads (with
                                 partial and known too: every such query fetches it) */
    if (st == ASTAR_OK && q->size > 1) st = astar_clearance_get(g, &clearance);
    if (st != ASTAR_OK || q->partial || q->known) return st; /* astar_find leaves the labels alone then */
    astar_diagonal mode = q->diagonal == ASTAR_DIAG_DEFAULT ? g->diagonal : q->diagonal;
    astar_islands *is;
    if ((st = astar_islands_sized(g, astar_island_kind(mode), q->size, &is)) != ASTAR_OK) return st;
    astar_dead_ends *de;
    if (dead_ends_apply(q) && (st = astar_dead_ends_get(g, astar_dead_end_kind(mode), &de)) != ASTAR_OK)
        return st;
    astar_heuristic h = q->heuristic != ASTAR_H_DEFAULT ? q->heuristic
                        : mode == ASTAR_DIAG_NEVER    ? ASTAR_H_MANHATTAN
                                                      : ASTAR_H_OCTILE; /* as astar_query_begin */
    astar_jps_table *table;
    if (q->jps == ASTAR_JPS_AUTO && jps_applies(q, mode, h, lo == hi && isfinite(lo)))
        return astar_jps_table_get(g, astar_jps_table_kind(mode), &table);
    return ASTAR_OK;
}

