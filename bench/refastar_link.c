/*
 * refastar's source included as it is (its main renamed, its search called
 * below), not copied: the yardstick stays the one in ../shared.
 */
#define main refastar_main
#include ASTAR_REFASTAR_SOURCE
#undef main

#include "refastar_link.h"

struct refastar_map {
    grid_t grid;
    search_t search;
};

refastar_map *refastar_load(const char *map_path) {
    refastar_map *m = xmalloc(sizeof *m);
    load_map(&m->grid, map_path, NULL);
    /* refastar's main makes the move bytes before it starts its clock: so do we */
    for (int c = 0; c < CLASS_OOB; c++) moves_for(&m->grid, c, 0);
    search_init(&m->search, &m->grid);
    return m;
}

void refastar_free(refastar_map *m) {
    search_free(&m->search);
    for (int c = 0; c < NCLASS; c++) free(m->grid.moves[c]);
    free(m->grid.cls);
    free(m);
}

double refastar_find(refastar_map *m, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                     uint64_t *expansions) {
    const grid_t *G = &m->grid;
    uint32_t start = (uint32_t)(sy + 1) * (uint32_t)G->pw + (uint32_t)(sx + 1);
    uint32_t goal = (uint32_t)(gy + 1) * (uint32_t)G->pw + (uint32_t)(gx + 1);
    int c = G->cls[start];
    m->search.expanded = 0;
    uint64_t cost = c < CLASS_OOB ? astar_indexed(&m->search, G, G->moves[c], start, goal) : NO_PATH;
    *expansions = m->search.expanded;
    return cost == NO_PATH ? INFINITY : (double)cost / (double)UNIT;
}
