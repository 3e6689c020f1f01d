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

#endif
