/*
 * What every file of the core shares: allocation helpers (core.c, the bottom of
 * the core's calls), the bound on values and a few compiler helpers. Not
 * installed; hosts use astar.h.
 */
#ifndef ASTAR_CORE_H
#define ASTAR_CORE_H

#include "astar.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *astar_mem(const astar_alloc *a, void *p, size_t old_size, size_t new_size);
/* n * size, or 0 when it overflows (callers treat 0 as OOM). */
size_t astar_array_size(size_t n, size_t size);
bool astar_size_ok(int32_t width, int32_t height);
/* The given allocator, or one over malloc when alloc or alloc->fn is NULL. */
astar_alloc astar_pick_alloc(const astar_alloc *alloc);
/* A zeroed object of `size` bytes from alloc (picked as astar_pick_alloc does, and stored in
 * *picked for the object to keep); NULL on OOM. */
void *astar_new_zeroed(const astar_alloc *alloc, size_t size, astar_alloc *picked);

/*
 * Big per-node arrays (pages.c): with the default allocator (malloc), from ASTAR_PAGES_MIN
 * bytes up, zeroed pages of the system's (mmap, VirtualAlloc) that it commits when first
 * touched, so that a search's memory grows with the pages it touches, not with the grid;
 * otherwise from the allocator (a host's own allocator keeps every byte). astar_pages_new:
 * `bytes` bytes, zeroed if `zeroed` (always, from the system); NULL on OOM or for 0 bytes.
 * astar_pages_zero: zeroed again, the pages given back to the system where it can (Linux);
 * astar_pages_free: freed. Each takes the allocator and size the array was made with.
 */
#define ASTAR_PAGES_MIN ((size_t)64 << 10)
void *astar_pages_new(const astar_alloc *a, size_t bytes, bool zeroed);
void astar_pages_zero(const astar_alloc *a, void *p, size_t bytes);
void astar_pages_free(const astar_alloc *a, void *p, size_t bytes);
/* Whether astar_pages_zero gives such an array's pages back rather than writing it. */
bool astar_pages_dropped(const astar_alloc *a, size_t bytes);
/* Whether a is the allocator over malloc that astar_pick_alloc gives for none. */
bool astar_alloc_is_default(const astar_alloc *a);

/* obj, noting for astar_last_status why it is NULL (why) or that it is not: what the
 * constructors that can be stopped return through. */
void *astar_made(void *obj, astar_status why);

/*
 * The progress handler (astar_set_progress_handler) as the loops meet it. Each thread has
 * one (core.c); a call takes it once (astar_progress_get) and charges its units against
 * `left`, the units it may still do before fn is asked again. Without fn, left is all but
 * endless (asking then only sets it so again).
 */
typedef struct astar_progress {
    astar_progress_fn fn;
    void *ud;
    uint32_t every;
    uint64_t left;
} astar_progress;

/* The handler the calling thread's loops charge (on a worker thread, its lease: many.c). */
astar_progress *astar_progress_get(void);
/* While the calling thread works for a call that shares a handler among threads (many.c):
 * its loops charge `active` and fn's calls of astar_set_progress_handler change `home`
 * (NULL, NULL: its own again); what they were goes to *was_active and *was_home. */
void astar_progress_redirect(astar_progress *active, astar_progress *home, astar_progress **was_active,
                             astar_progress **was_home);
/* A handler that never stops, for work another meter counts (a build's Dijkstras). */
astar_progress *astar_progress_none(void);
/* left is 0 and another unit is wanted: asks fn. true: stop (left stays 0, so that the next
 * unit asks again); else left = every (as it is after fn: fn may have changed it). */
bool astar_progress_ask(astar_progress *p);
bool astar_progress_charge_slow(astar_progress *p, uint64_t n);

/* Charges n units about to be done, asking fn at the boundaries they cross. true: stop, and
 * do none of them. */
static inline bool astar_progress_charge(astar_progress *p, uint64_t n) {
    if (n <= p->left) {
        p->left -= n;
        return false;
    }
    return astar_progress_charge_slow(p, n);
}

/* The units of a constructor or a bulk write, counted on the calling thread's handler before
 * it makes or changes anything (so that a stop changes nothing): true when it must stop. */
static inline bool astar_stopped_before(uint64_t units) {
    return astar_progress_charge(astar_progress_get(), units);
}

/* What a piece of work that takes a budget (a build, a hierarchy job) may do now: left, after
 * asking fn if none is; 0: stop. astar_progress_spent then charges what it did. */
static inline uint64_t astar_progress_allow(astar_progress *p) {
    return p->left > 0 || !astar_progress_ask(p) ? p->left : 0;
}
static inline void astar_progress_spent(astar_progress *p, uint64_t n) {
    p->left = n < p->left ? p->left - n : 0;
}

/*
 * The searches count their expansions anyway: they charge them after the fact, at no cost per
 * expansion. A meter is such a loop's handler and its count when last charged (base);
 * astar_meter_stop gives the count at which the loop must stop and call astar_meter_check (at
 * most `limit`, where it stops anyway, base <= limit), astar_meter_sync charges what it
 * counted when it returns. A loop whose callbacks may run other queries or longjmp charges
 * ahead instead, one expansion at a time (astar_meter_ahead), so that nothing it did is
 * uncounted when a callback runs.
 */
typedef struct astar_meter {
    astar_progress *p;
    uint64_t base;
} astar_meter;

static inline astar_meter astar_meter_begin(astar_progress *p, uint64_t count) {
    astar_meter m = {p, count};
    return m;
}
static inline uint64_t astar_meter_stop(const astar_meter *m, uint64_t limit) {
    return m->p->left < limit - m->base ? m->base + m->p->left : limit;
}
static inline void astar_meter_sync(astar_meter *m, uint64_t count) {
    astar_progress_spent(m->p, count - m->base);
    m->base = count;
}
/* At astar_meter_stop's count (below the limit): charges it and asks fn; true: stop. */
static inline bool astar_meter_check(astar_meter *m, uint64_t count) {
    astar_meter_sync(m, count);
    return m->p->left == 0 && astar_progress_ask(m->p);
}
/* Charges the expansion after `count` before it is made; true: stop (nothing charged). */
static inline bool astar_meter_ahead(astar_meter *m, uint64_t count) {
    if (astar_progress_charge(m->p, 1)) return true;
    m->base = count + 1;
    return false;
}

/* |v| <= ASTAR_MAX_VALUE (false for NaN and the infinities). */
static inline bool astar_value_ok(double v) {
    return v >= -ASTAR_MAX_VALUE && v <= ASTAR_MAX_VALUE;
}

#define ASTAR_SQRT2 1.4142135623730951

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
static inline int astar_lowest_bit(unsigned m) { return __builtin_ctz(m); }
#else
#define ALWAYS_INLINE inline
static inline int astar_lowest_bit(unsigned m) {
    int d = 0;
    while (!(m & 1u)) m >>= 1, d++;
    return d;
}
#endif

/*
 * Costs are fixed point (docs/contract.md, "The cost of a step"): a step's cost is rounded up
 * to a multiple of ASTAR_QUANTUM before it is added, and the heuristics are rounded down to
 * one. Below ASTAR_EXACT_BELOW a path's cost is then a sum without rounding: the same number,
 * to the last bit, whichever engine adds it up, in whichever order, along whichever of the
 * paths of equal cost. Up for steps and down for heuristics keeps every heuristic admissible
 * and consistent against the rounded steps.
 */
#define ASTAR_QUANTUM (1.0 / 4294967296.0) /* 2^-32 */
#define ASTAR_EXACT_BELOW 2097152.0         /* 2^21: 53 bits, 32 of them below the point */

/*
 * x rounded to a double as C says, here: a product passed through is not fused with the sum it
 * feeds (-ffp-contract=fast with FMA rounds a * b + c once where other builds round twice), so
 * every build computes the same costs. Costs no instruction.
 */
static ALWAYS_INLINE double astar_rounded(double x) {
#if defined(__GNUC__) && defined(__SSE2_MATH__)
    __asm__("" : "+x"(x));
#elif defined(__GNUC__) && defined(__aarch64__)
    __asm__("" : "+w"(x));
#elif defined(__GNUC__)
    __asm__("" : "+m"(x));
#else
    volatile double v = x;
    x = v;
#endif
    return x;
}

/* 1.5 * 2^20, whose unit in the last place is ASTAR_QUANTUM: x + it - it rounds x to quanta. */
#define ASTAR_QUANTA_SHIFT 1572864.0
/* Steps and heuristics from here up are too large for quanta and stay as they are. */
#define ASTAR_QUANTA_BELOW 524288.0

/* A step's cost (x >= 0) rounded up to quanta. */
static ALWAYS_INLINE double astar_cost_up(double x) {
    x = astar_rounded(x);
    if (!(x < ASTAR_QUANTA_BELOW)) return x;
    double t = (x + ASTAR_QUANTA_SHIFT) - ASTAR_QUANTA_SHIFT;
    return t < x ? t + ASTAR_QUANTUM : t;
}

/*
 * The one step cost (docs/contract.md, "The cost of a step"): the terrain's part, a length
 * times a cost, rounded; plus (more) `extra`, what penalties and callbacks add, and the turn
 * penalty when it turns; rounded up once. Every loop, repair and field composes its steps here
 * (the loops without penalties with more = false, a constant); so do graphs, with the arc's
 * cost as the length and 1 as the cost.
 */
static ALWAYS_INLINE double astar_step_of(double length, double cost, const bool more, double extra, bool turns,
                                          double turn) {
    double t = astar_rounded(length * cost);
    if (more) {
        t += extra;
        if (turns) t += turn;
    }
    return astar_cost_up(t);
}

/*
 * Whether a closed node of g is reopened by a way in at ng < g (a custom heuristic may be
 * inconsistent). Below ASTAR_EXACT_BELOW sums are exact, so a way at least a quantum cheaper is
 * cheaper, and is taken whatever g counts (with interests, up to 2^20 beyond the path's cost);
 * above, a difference of 1e-10 relative or less may be rounding of equal-cost routes.
 */
static inline bool astar_reopens(double ng, double g) {
    return g < ASTAR_EXACT_BELOW ? ng < g : ng < g - 1e-10 * g;
}

/* A heuristic's value (x >= 0) rounded down to quanta. */
static ALWAYS_INLINE double astar_cost_down(double x) {
    x = astar_rounded(x);
    if (!(x < ASTAR_QUANTA_BELOW)) return x;
    double t = (x + ASTAR_QUANTA_SHIFT) - ASTAR_QUANTA_SHIFT;
    return t > x ? t - ASTAR_QUANTUM : t;
}

/*
 * A step's cost in direction d (diagonal from 4 on) onto terrain of cost `cost`, rounded up,
 * penalties aside: A*, jump point search, the query's bounds and the hierarchy's tables all
 * take it from here, so that their sums agree to the bit.
 */
static inline double astar_step_cost(double cost, int d) {
    return astar_step_of(d < 4 ? 1.0 : ASTAR_SQRT2, cost, false, 0.0, false, 0.0);
}

#endif
