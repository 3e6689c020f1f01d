/* The yardstick A* of bench/reference.c (not part of the library). */
#ifndef ASTAR_BENCH_REFERENCE_H
#define ASTAR_BENCH_REFERENCE_H

#include <stdint.h>

#include "astar.h"

typedef struct ref_astar ref_astar;

/* Copies the walkability of a unit-cost grid; diagonals never cut corners. */
ref_astar *ref_new(const astar_grid *g);
void ref_free(ref_astar *r);
/* The cost of a shortest path, INFINITY when there is none. */
double ref_find(ref_astar *r, int32_t sx, int32_t sy, int32_t gx, int32_t gy, uint64_t *expansions);

#endif
