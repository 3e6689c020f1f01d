/* A graph's layout (graph.c), read by its search (graph_search.c). */
#ifndef ASTAR_GRAPH_H
#define ASTAR_GRAPH_H

#include "core.h"

/*
 * An arc while the graph is built: one slot of its source node's list. Lists
 * are newest first, so a lookup for a duplicate walks only that node's arcs;
 * removed slots are chained into a free list and reused.
 */
typedef struct graph_slot {
    double cost;
    int32_t to;          /* -1 in a free slot */
    int32_t next;        /* the next slot of the list (or of the free list); -1 ends it */
} graph_slot;

/* An arc as the search reads it: a node's arcs lie side by side (CSR). */
typedef struct packed_arc {
    double cost;
    int32_t to;
    int32_t spare;
} packed_arc;

struct astar_graph {
    int32_t nodes, node_cap;
    double *pos;             /* x, y, z of each node */
    uint8_t *blocked;
    int32_t *first;          /* per node: its newest slot, -1 when it has no arc */
    graph_slot *slot;
    int32_t slots, slot_cap; /* slots ever handed out (live or free), slots allocated */
    int32_t free_slot;
    int32_t arcs;
    bool stale;              /* the packed arcs and h_scale predate a change */
    int32_t *start;          /* arcs of node i: packed[start[i] .. start[i + 1] - 1] */
    packed_arc *packed;
    int32_t start_cap, packed_cap;
    double h_scale;
    /* The arcs reversed, for fields toward their sources (astar_graph_prepare_reverse): node
     * i's incoming arcs at rpacked[rstart[i] .. rstart[i + 1] - 1], each `to` the arc's source;
     * made on first need, again after a change of arcs (as the packed arcs are). */
    bool rstale;
    int32_t *rstart;
    packed_arc *rpacked;
    int32_t rstart_cap, rpacked_cap;
    uint32_t version;
    astar_alloc alloc;
};

/* The reversed arcs, packed for the search (after astar_graph_prepare): O(nodes + arcs) when a
 * change of arcs left them stale, nothing otherwise. */
astar_status astar_graph_prepare_reverse(astar_graph *g);

static inline bool astar_graph_valid_id(const astar_graph *g, int32_t id) { return id >= 0 && id < g->nodes; }

static inline double astar_graph_distance(const double *pos, int32_t a, int32_t b) {
    double dx = pos[3 * a] - pos[3 * b], dy = pos[3 * a + 1] - pos[3 * b + 1],
           dz = pos[3 * a + 2] - pos[3 * b + 2];
    return sqrt(astar_rounded(dx * dx) + astar_rounded(dy * dy) + astar_rounded(dz * dz));
}

#endif
