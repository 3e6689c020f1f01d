/* The claims a query sees, and the checks every query's numbers pass (cost.h). */
#include "cost.h"

bool astar_claim_view_init(astar_claim_view *v, const astar_claims *cl, int32_t base, int32_t limit,
                           int32_t unit, bool (*near)(const void *ud, int32_t index), const void *ud,
                           int32_t *claimed, uint16_t *claim_gen, uint16_t gen, double penalty,
                           astar_progress *p) {
    v->count = cl->count + base;
    v->penalty = penalty;
    v->overlay = v->only_overlay = false;
    v->claimed = claimed;
    v->claim_gen = claim_gen;
    v->gen = gen;
    if (!near) { /* everyone's claims but the unit's own */
        if (unit < 0 || unit >= cl->nunits) return true;
        v->overlay = true;
        const astar_unit_claim *u = &cl->units[unit];
        for (int32_t i = u->pos < 0 ? u->n : u->pos; i < u->n; i++) {
            int32_t at = u->cells[i] - base;
            if (!u->last[i] || at >= limit) continue;
            claimed[at] = v->count[at] - 1;
            claim_gen[at] = gen;
        }
        return true;
    }
    v->overlay = true;
    v->only_overlay = true;
    for (int32_t k = 0; k < cl->nunits; k++) {
        const astar_unit_claim *u = &cl->units[k];
        if (k == unit || u->pos < 0 || !near(ud, u->cells[u->pos] - base)) continue;
        if (astar_progress_charge(p, (uint64_t)(u->n - u->pos))) return false;
        for (int32_t i = u->pos; i < u->n; i++) {
            int32_t at = u->cells[i] - base;
            if (!u->last[i] || at >= limit) continue;
            claimed[at] = (claim_gen[at] == gen ? claimed[at] : 0) + 1;
            claim_gen[at] = gen;
        }
    }
    return true;
}

bool astar_costs_ok(double weight, double max_cost, double noise, double claim_penalty) {
    return weight >= 1.0 && weight <= ASTAR_MAX_VALUE && !isnan(max_cost) && max_cost >= 0 &&
           noise >= 0 && noise <= ASTAR_MAX_VALUE && claim_penalty >= 0 &&
           claim_penalty <= ASTAR_MAX_VALUE;
}
