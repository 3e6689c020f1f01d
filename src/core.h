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

#endif
