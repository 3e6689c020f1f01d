/*
 * The open list: an indexed 4-ary min-heap with decrease-key. Each node record
 * keeps its heap position so decrease-key needs no search. Header-only so the
 * search loop can inline it.
 *
 * Order: smaller f first; on equal f the smaller h (that is, the larger g:
 * deeper nodes finish sooner on open ground). Entries equal in both come out
 * in an order fixed by the sequence of operations, so every run of the same
 * query expands the same nodes.
 */
#ifndef ASTAR_HEAP_H
#define ASTAR_HEAP_H

#include <stdbool.h>
#include <stdint.h>

/* Per-cell search record. heap: the node's slot in the open list, or ASTAR_NOT_OPEN. */
typedef struct astar_node {
    double g;
    uint32_t gen;       /* the query that last touched it; other values are stale */
    int32_t heap;
} astar_node;

#define ASTAR_NOT_OPEN (-1)

/* 16 bytes: h only breaks ties, so a float is enough (decrease-key recomputes f from g). */
typedef struct astar_heap_entry {
    double f;
    float h;
    int32_t cell;
} astar_heap_entry;

typedef struct astar_heap {
    astar_heap_entry *items;
    int32_t len, cap;
} astar_heap;

static inline bool astar_heap_less(const astar_heap_entry *a, const astar_heap_entry *b) {
    return a->f < b->f || (a->f == b->f && a->h < b->h);
}

#define ASTAR_HEAP_ARITY 4

/* Moves the entry at slot i up until its parent is not larger. */
static inline void astar_heap_up(astar_heap *hp, int32_t i, astar_node *nodes) {
    astar_heap_entry e = hp->items[i];
    while (i > 0) {
        int32_t parent = (i - 1) / ASTAR_HEAP_ARITY;
        if (!astar_heap_less(&e, &hp->items[parent])) break;
        hp->items[i] = hp->items[parent];
        nodes[hp->items[i].cell].heap = i;
        i = parent;
    }
    hp->items[i] = e;
    nodes[e.cell].heap = i;
}

static inline void astar_heap_down(astar_heap *hp, int32_t i, astar_node *nodes) {
    astar_heap_entry e = hp->items[i];
    for (;;) {
        int32_t first = i * ASTAR_HEAP_ARITY + 1;
        if (first >= hp->len) break;
        int32_t best = first;
        int32_t end = first + ASTAR_HEAP_ARITY < hp->len ? first + ASTAR_HEAP_ARITY : hp->len;
        for (int32_t c = first + 1; c < end; c++)
            if (astar_heap_less(&hp->items[c], &hp->items[best])) best = c;
        if (!astar_heap_less(&hp->items[best], &e)) break;
        hp->items[i] = hp->items[best];
        nodes[hp->items[i].cell].heap = i;
        i = best;
    }
    hp->items[i] = e;
    nodes[e.cell].heap = i;
}

#endif
