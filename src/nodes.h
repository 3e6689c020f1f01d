/*
 * The one node pool and open list every search uses (grid A*, jump point
 * search, distance fields, graph A*), after Detour's DetourNode.h: per-node
 * records stamped by query, an indexed 4-ary min-heap with decrease-key, and
 * the buffer the last path is kept in. Inline, so that each search loop
 * compiles them into itself.
 *
 * Order: by key (see astar_heap_entry); entries with equal keys come out in an
 * order fixed by the sequence of operations, so every run of the same query
 * expands the same nodes.
 */
#ifndef ASTAR_NODES_H
#define ASTAR_NODES_H

#include "core.h"

#include <string.h>

/*
 * Per-node search record, 16 bytes: what an expansion reads and writes of a
 * neighbour shares one cache line. heap: the node's slot in the open list, or
 * ASTAR_NOT_OPEN (reached, or not, but never on it), or ASTAR_CLOSED (taken off it: one
 * integer test tells a closed node, where "not open and g finite" took a float's too).
 */
typedef struct astar_node {
    union {
        double g;
        int64_t quanta; /* g in quanta (core.h), for the loop that counts in integers */
    };
    int32_t heap;
    uint16_t gen;       /* the query that last touched it; other values are stale */
    uint8_t from;       /* grids: the direction of the step that reached it */
    uint8_t spare;
} astar_node;

#define ASTAR_NOT_OPEN (-1)
#define ASTAR_CLOSED (-2)

/*
 * An entry's key packs f and h into one integer, so that a comparison is one
 * instruction: f above, in quanta (core.h), and below it, in tie_bits bits, h
 * (astar_heap_tie), so that entries of equal f come out smaller h first, that
 * is larger g: the search runs on along its newest, deepest nodes, which
 * finishes sooner on open ground and touches fewer cache lines (a tie of 10
 * bits instead of 17 made a bare A* 9% slower at the same count of
 * expansions). f must stay below 2^(31 - tie_bits), where its quanta fill the
 * other 63 - tie_bits bits; the top bit marks keys of f from ASTAR_EXACT_BELOW
 * up (see astar_pool_key).
 */
typedef struct astar_heap_entry {
    uint64_t key;
    int32_t cell;
} astar_heap_entry;

#define ASTAR_TIE_BITS_MAX 29

/*
 * h >= 0, in quanta, below 2^54, as tie_bits bits (at most ASTAR_TIE_BITS_MAX): h as a float
 * counted from one quantum up (its exponent and top mantissa bits; 0 for h = 0), so monotone
 * in h, and the same bits as with more tie bits shifted right.
 */
static inline uint64_t astar_heap_tie(int64_t h, int tie_bits) {
    float hf = (float)h;
    uint32_t bits;
    memcpy(&bits, &hf, sizeof bits);
    const uint32_t one = UINT32_C(127) << 23; /* 1.0f: h < 2^54, so bits - one < 2^29 */
    uint32_t from_one = bits > one ? bits - one : 0;
    return from_one >> (ASTAR_TIE_BITS_MAX - tie_bits);
}

/* A key from f and h in quanta, f below 2^(63 - tie_bits). */
static inline uint64_t astar_heap_key_fine(int64_t f, int64_t h, int tie_bits) {
    return (uint64_t)f << tie_bits | astar_heap_tie(h, tie_bits);
}

/* The open list: items[0 .. len) a heap; cap + ASTAR_HEAP_ARITY slots, those from len on
 * holding the key ASTAR_HEAP_PAD (see astar_heap_pop). */
typedef struct astar_heap {
    astar_heap_entry *items;
    int32_t len, cap;
} astar_heap;

#define ASTAR_HEAP_PAD UINT64_MAX /* above every key: f is finite */

/* The records and the open list of one workspace. */
typedef struct astar_pool {
    astar_node *nodes;
    astar_heap heap;
    size_t count;           /* records; the open list never needs more slots */
    uint16_t gen;           /* this query's stamp: wraps after 65535 queries (astar_pool_begin) */
    uint16_t clear_at;      /* or once it reaches this, when that gives pages back (0: never) */
    int tie_bits;           /* of the keys astar_pool_key makes this query, */
    double key_room;        /* while f stays below this: 2^(31 - tie_bits) */
} astar_pool;

/* Records for count nodes, every one stale; false on OOM. No pass over them: see
 * astar_pages_new. */
#define ASTAR_POOL_CLEAR_EVERY 1024
bool astar_pool_init(astar_pool *p, const astar_alloc *a, size_t count);
void astar_pool_free(astar_pool *p, const astar_alloc *a);
/* What the records and the open list hold, in bytes. */
size_t astar_pool_bytes(const astar_pool *p);
/* A fresh stamp and an empty open list for a new query. True when the stamps wrapped and
 * every record was made stale again (zeroed: astar_pool_array_zero): the caller then clears
 * its own stamp arrays. a: the allocator the records were made with. */
bool astar_pool_begin(astar_pool *p, const astar_alloc *a);
/* Doubles the open list, up to one slot per record; false on OOM. */
bool astar_pool_grow_heap(astar_pool *p, const astar_alloc *a);
/* A per-node array (count elements), made the first time a query needs it and kept for the
 * next ones: *slot stays as it is when already there; false on OOM. Big ones are the
 * system's pages, committed as a search touches them (astar_pages_new). */
bool astar_pool_array(const astar_pool *p, const astar_alloc *a, void **slot, size_t elem,
                      bool zeroed);
/* astar_pool_array for the member `array` of a workspace s that has a `pool` and an `alloc`. */
#define ASTAR_POOL_NEED(s, array, zeroed) \
    astar_pool_array(&(s)->pool, &(s)->alloc, (void **)&(s)->array, sizeof *(s)->array, zeroed)
/* Zeroes what astar_pool_array made (NULL: nothing), giving its pages back where it can. */
void astar_pool_array_zero(const astar_pool *p, const astar_alloc *a, void *array, size_t elem);
/* Frees what astar_pool_array made. */
void astar_pool_array_free(const astar_pool *p, const astar_alloc *a, void *array, size_t elem);

/*
 * The record of node id for this query: a stale one becomes "not reached yet",
 * and so do the values a query memoises per node (memo_a, memo_b: NULL when it
 * keeps none).
 */
static inline astar_node *astar_pool_touch(astar_pool *p, int32_t id, double *memo_a,
                                           double *memo_b) {
    astar_node *n = &p->nodes[id];
    if (n->gen != p->gen) {
        n->gen = p->gen;
        n->g = INFINITY;
        n->heap = ASTAR_NOT_OPEN;
        if (memo_a) memo_a[id] = NAN;
        if (memo_b) memo_b[id] = NAN;
    }
    return n;
}

/* The g of node id this query: INFINITY where it was not reached. */
static inline double astar_pool_g(const astar_pool *p, int32_t id) {
    const astar_node *n = &p->nodes[id];
    return n->gen == p->gen ? n->g : INFINITY;
}

/* The same for a loop that keeps the records and the stamp in locals: through the pool the
 * compiler would reload the stamp after every store to a record (both are 16-bit). */
static inline astar_node *astar_node_touch(astar_node *nodes, uint16_t gen, int32_t id) {
    astar_node *n = &nodes[id];
    if (n->gen != gen) {
        n->gen = gen;
        n->g = INFINITY;
        n->heap = ASTAR_NOT_OPEN;
    }
    return n;
}

/* astar_pool_key for an f at or above the pool's key_room. */
uint64_t astar_pool_key_wider(astar_pool *p, double f, double h);

/* The key of an f from ASTAR_EXACT_BELOW up: its bits (f >= 0 orders like them), the top bit
 * set, above every key of a smaller f. */
static inline uint64_t astar_heap_key_wide(double f) {
    uint64_t fbits;
    memcpy(&fbits, &f, sizeof fbits);
    return UINT64_C(1) << 63 | fbits >> 1;
}

/*
 * The key of an entry at g for a search without a heuristic (a Dijkstra, h = 0: no ties to
 * order by h): g's quanta alone, exact below ASTAR_EXACT_BELOW. Without tie bits f never
 * outgrows them, so the open list is never rewritten (astar_pool_key_wider).
 */
static ALWAYS_INLINE uint64_t astar_dijkstra_key(double g) {
    return g < ASTAR_EXACT_BELOW ? (uint64_t)(g * (1.0 / ASTAR_QUANTUM)) : astar_heap_key_wide(g);
}

/*
 * The key of an entry at f, h (in cost units) for a search in doubles. Its tie bits start
 * at ASTAR_TIE_BITS_MAX each query and give way to f as it grows (astar_pool_key_wider
 * rewrites the keys on the open list then: the same order, as fewer tie bits are the same
 * bits shifted). f below ASTAR_EXACT_BELOW is a whole number of quanta when the weight is
 * 1, and the key holds it exactly.
 */
static ALWAYS_INLINE uint64_t astar_pool_key(astar_pool *p, double f, double h) {
    if (!(f < p->key_room)) return astar_pool_key_wider(p, f, h);
    int64_t h_quanta = h < ASTAR_EXACT_BELOW ? (int64_t)(h * (1.0 / ASTAR_QUANTUM)) : INT64_C(1) << 53;
    return astar_heap_key_fine((int64_t)(f * (1.0 / ASTAR_QUANTUM)), h_quanta, p->tie_bits);
}

/* astar_pool_key of f and h in whole quanta (f below ASTAR_EXACT_BELOW): the same key, for a
 * loop that counts in quanta and must order its ties as the loop in doubles does. */
static ALWAYS_INLINE uint64_t astar_pool_key_quanta(astar_pool *p, int64_t f, int64_t h) {
    double fd = (double)f * ASTAR_QUANTUM;
    if (!(fd < p->key_room)) return astar_pool_key_wider(p, fd, (double)h * ASTAR_QUANTUM);
    return astar_heap_key_fine(f, h, p->tie_bits);
}

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

/*
 * Removes the smallest entry: the last entry sifts down from the root, along
 * the smallest children, until none is smaller. Every slot past the last entry
 * holds ASTAR_HEAP_PAD, a key no entry has, so a node's four children are
 * compared as four even at the end of the array; and they are compared in
 * arithmetic, without jumps: which child wins is a coin toss, which a branch
 * would mispredict half the time. (Sifting the hole down to a leaf first and the
 * last entry up from there compares less, but ran 3-5% slower per query: it
 * moves every entry on the way, where this stops early.)
 */
static ALWAYS_INLINE astar_heap_entry astar_heap_pop(astar_heap *hp, astar_node *nodes) {
    astar_heap_entry *items = hp->items;
    astar_heap_entry top = items[0];
    nodes[top.cell].heap = ASTAR_CLOSED;
    int32_t len = --hp->len;
    if (len > 0) {
        astar_heap_entry last = items[len];
        items[len].key = ASTAR_HEAP_PAD;
        int32_t i = 0;
        for (int32_t first; (first = i * ASTAR_HEAP_ARITY + 1) < len;) {
            /* Selects on the keys themselves: one round of loads per level (picking indices
             * first and loading their keys again made three, and ran 14% slower). */
            uint64_t k0 = items[first].key, k1 = items[first + 1].key;
            uint64_t k2 = items[first + 2].key, k3 = items[first + 3].key;
            int32_t left = k1 < k0 ? first + 1 : first, right = k3 < k2 ? first + 3 : first + 2;
            uint64_t left_key = k1 < k0 ? k1 : k0, right_key = k3 < k2 ? k3 : k2;
            int32_t best = right_key < left_key ? right : left;
            if (!((right_key < left_key ? right_key : left_key) < last.key)) break;
            items[i] = items[best];
            nodes[items[i].cell].heap = i;
            i = best;
        }
        items[i] = last;
        nodes[last.cell].heap = i;
    } else {
        items[0].key = ASTAR_HEAP_PAD;
    }
    return top;
}

/* Puts node id, not on the open list, on it with a key. False on OOM. */
static ALWAYS_INLINE bool astar_pool_push_key(astar_pool *p, const astar_alloc *a, int32_t id,
                                              uint64_t key) {
    if (p->heap.len == p->heap.cap && !astar_pool_grow_heap(p, a)) return false;
    int32_t i = p->heap.len++;
    p->heap.items[i] = (astar_heap_entry){key, id};
    astar_heap_up(&p->heap, i, p->nodes);
    return true;
}

/* Moves a node on the open list, whose record is n, up to its better key. */
static ALWAYS_INLINE void astar_pool_decrease_key(astar_pool *p, astar_node *n, uint64_t key) {
    p->heap.items[n->heap].key = key;
    astar_heap_up(&p->heap, n->heap, p->nodes);
}

/* Puts node id, not on the open list, on it at f (ties by h). False on OOM. */
static ALWAYS_INLINE bool astar_pool_push(astar_pool *p, const astar_alloc *a, int32_t id, double f,
                                          double h) {
    return astar_pool_push_key(p, a, id, astar_pool_key(p, f, h));
}

/* Moves a node on the open list, whose record is n, up to its better f (ties by h). */
static ALWAYS_INLINE void astar_pool_decrease(astar_pool *p, astar_node *n, double f, double h) {
    astar_pool_decrease_key(p, n, astar_pool_key(p, f, h));
}

/* Push or decrease-key, whichever node id (record n) needs, with a key. False on OOM. */
static ALWAYS_INLINE bool astar_pool_open_key(astar_pool *p, const astar_alloc *a, astar_node *n,
                                              int32_t id, uint64_t key) {
    if (n->heap < 0) return astar_pool_push_key(p, a, id, key);
    astar_pool_decrease_key(p, n, key);
    return true;
}

/* The same at f (ties by h). */
static ALWAYS_INLINE bool astar_pool_open(astar_pool *p, const astar_alloc *a, astar_node *n,
                                          int32_t id, double f, double h) {
    return astar_pool_open_key(p, a, n, id, astar_pool_key(p, f, h));
}

/*
 * The other open list: a binary heap of (key, id) pairs without records, an id queued again
 * when its key falls and its older entries skipped by the caller (lazy deletion). Two users:
 * the landmarks' repair after a door opens, a Dijkstra over the handful of the map's cells it
 * lowers, where a pool would hold 16 bytes for every cell of the map; and the hierarchy's
 * abstract search, whose answers follow the order it pops entries of equal f in (the abstract
 * path among those of equal cost guides the refinement): on the pool's heap, 64 of 2,682
 * hierarchical finds on seven Moving AI maps changed their expansions, 26 their path.
 */
typedef struct astar_lazy_heap {
    double *key;
    int32_t *at;
    int32_t len, cap;
} astar_lazy_heap;

/* Queues id `at` at key; false on OOM. */
bool astar_lazy_heap_push(astar_lazy_heap *hp, const astar_alloc *a, double key, int32_t at);
/* Pops the least key: its id, and *key; -1 when empty. */
int32_t astar_lazy_heap_pop(astar_lazy_heap *hp, double *key);
void astar_lazy_heap_free(astar_lazy_heap *hp, const astar_alloc *a);

/* The last path a workspace found, as node ids. */
typedef struct astar_path_buf {
    int32_t *ids;
    int32_t len, cap;
} astar_path_buf;

/* Room for a path of len nodes (len is set too); false on OOM, the old path kept. */
bool astar_path_reserve(astar_path_buf *b, const astar_alloc *a, int32_t len);
void astar_path_free(astar_path_buf *b, const astar_alloc *a);

/* A result before a search: nothing found, no target, no interest. */
static inline void astar_result_init(astar_result *res) {
    memset(res, 0, sizeof *res);
    res->target = -1;
    res->interest = -1;
}

/* A search's end: the work it did and its status. */
static inline astar_status astar_done(astar_result *res, uint64_t expansions, astar_status st) {
    res->expansions = expansions;
    return st;
}

static inline astar_status astar_finish(astar_result *res, astar_status st) {
    res->status = st;
    return st;
}

#endif
