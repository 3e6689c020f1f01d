/*
 * refastar, the bare A* of ../shared/refastar that issue 17 measures us against,
 * built into bench_c when its source is there (CMake: ASTAR_REFASTAR_SOURCE),
 * so that both search the same problems in one process, query by query.
 */
#ifndef ASTAR_BENCH_REFASTAR_LINK_H
#define ASTAR_BENCH_REFASTAR_LINK_H

#include <stdint.h>

typedef struct refastar_map refastar_map;

/* The map file read by refastar's own loader (it exits on a bad file). */
refastar_map *refastar_load(const char *map_path);
void refastar_free(refastar_map *m);
/* The cost of a shortest path between 0-based cells, INFINITY when there is none. */
double refastar_find(refastar_map *m, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                     uint64_t *expansions);

#endif
