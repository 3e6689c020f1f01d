/*
 * The open list: an indexed 4-ary min-heap with decrease-key. Each node record
 * keeps its heap position so decrease-key needs no search. Header-only so the
 * search loop can inline it.
 *
 * Order: by key (see astar_heap_key); entries with equal keys come out in an
 * order fixed by the sequence of operations, so every run of the same query
 * expands the same nodes.
 */
#ifndef ASTAR_HEAP_H
#define ASTAR_HEAP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * Per-cell search record, 16 bytes: what an expansion reads and writes of a
 * neighbour shares one cache line. heap: the node's slot in the open list, or
 * ASTAR_NOT_OPEN.
 */
typedef struct astar_node {
    double g;
    int32_t heap;
    uint16_t gen;       /* the query that last touched it; other values are stale */
    uint8_t from;       /* the direction of the step that reached it */
    uint8_t spare;
} astar_node;

#define ASTAR_NOT_OPEN (-1)

/*
 * An entry's key packs f and h into one integer, so that a comparison is one
 * instruction. f >= +0 and h >= +0, and the bits of non-negative IEEE numbers
 * order like the numbers: the key is f with its last 12 mantissa bits replaced
 * by the top bits of h as a float. f is thus ordered to 2^-40 of its value
 * (equal-cost routes already differ by rounding in the last bits), and entries
 * within that of each other come out smaller h first, that is larger g: deeper
 * nodes finish sooner on open ground.
 */
typedef struct astar_heap_entry {
    uint64_t key;
    int32_t cell;
} astar_heap_entry;

static inline uint64_t astar_heap_key(double f, double h) {
    uint64_t fbits;
    memcpy(&fbits, &f, sizeof fbits);
    float hf = (float)h + 0.0f; /* + 0 turns -0 into +0 */
    uint32_t hbits;
    memcpy(&hbits, &hf, sizeof hbits);
    return (fbits & ~UINT64_C(0xFFF)) | (hbits >> 19);
}

typedef struct astar_heap {
    astar_heap_entry *items;
    int32_t len, cap;
} astar_heap;

static inline bool astar_heap_less(const astar_heap_entry *a, const astar_heap_entry *b) {
    return a->key < b->key;
}

#define ASTAR_HEAP_ARITY 4

/*
 * The functions below keep the array and its length in locals: stores to
 * nodes[].heap (int32) could otherwise alias hp->len and force reloads.
 */

/* Moves the entry at slot i up until its parent is not larger. */
static inline void astar_heap_up(astar_heap *hp, int32_t i, astar_node *nodes) {
    astar_heap_entry *items = hp->items;
    astar_heap_entry e = items[i];
    while (i > 0) {
        int32_t parent = (int32_t)((uint32_t)(i - 1) / ASTAR_HEAP_ARITY);
        if (!astar_heap_less(&e, &items[parent])) break;
        items[i] = items[parent];
        nodes[items[i].cell].heap = i;
        i = parent;
    }
    items[i] = e;
    nodes[e.cell].heap = i;
}

/* The smallest of the children of slot i in a heap of len entries, or -1 when it has none. */
static inline int32_t astar_heap_min_child(const astar_heap_entry *items, int32_t len, int32_t i) {
    int32_t first = i * ASTAR_HEAP_ARITY + 1;
    if (first >= len) return -1;
    if (first + ASTAR_HEAP_ARITY <= len) { /* all four: a tournament, no loop */
        int32_t l = astar_heap_less(&items[first + 1], &items[first]) ? first + 1 : first;
        int32_t r = astar_heap_less(&items[first + 3], &items[first + 2]) ? first + 3 : first + 2;
        return astar_heap_less(&items[r], &items[l]) ? r : l;
    }
    int32_t best = first;
    for (int32_t c = first + 1; c < len; c++)
        if (astar_heap_less(&items[c], &items[best])) best = c;
    return best;
}

/*
 * Removes the smallest entry. The hole at the root moves down along the
 * smaller children to a leaf without comparing against the entry that will
 * fill it (the last one, which nearly always belongs near the bottom), then
 * that entry moves up from there: fewer comparisons than a plain sift-down.
 */
static inline astar_heap_entry astar_heap_pop(astar_heap *hp, astar_node *nodes) {
    astar_heap_entry *items = hp->items;
    astar_heap_entry top = items[0];
    nodes[top.cell].heap = ASTAR_NOT_OPEN;
    int32_t len = --hp->len;
    if (len > 0) {
        int32_t i = 0;
        for (int32_t best; (best = astar_heap_min_child(items, len, i)) >= 0; i = best) {
            items[i] = items[best];
            nodes[items[i].cell].heap = i;
        }
        items[i] = items[len];
        astar_heap_up(hp, i, nodes);
    }
    return top;
}

#endif
