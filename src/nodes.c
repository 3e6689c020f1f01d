/* The node pool's allocations (nodes.h). */
#include "nodes.h"

bool astar_pool_init(astar_pool *p, const astar_alloc *a, size_t count) {
    memset(p, 0, sizeof *p);
    /* Zeroed: gen 0 is never current, every record starts stale. From the system's zeroed
     * pages (core.h), the records of the cells a search never reaches cost nothing. */
    p->nodes = astar_pages_new(a, astar_array_size(count, sizeof *p->nodes), true);
    if (!p->nodes) return false;
    p->count = count;
    if (astar_pages_dropped(a, count * sizeof *p->nodes)) p->clear_at = ASTAR_POOL_CLEAR_EVERY;
    return true;
}

/* Slots of the open list's array: its capacity and the padding past it (see nodes.h). */
static size_t heap_slots(int32_t cap) { return cap ? (size_t)cap + ASTAR_HEAP_ARITY : 0; }

void astar_pool_free(astar_pool *p, const astar_alloc *a) {
    astar_pages_free(a, p->nodes, p->count * sizeof *p->nodes);
    astar_mem(a, p->heap.items, heap_slots(p->heap.cap) * sizeof *p->heap.items, 0);
    memset(p, 0, sizeof *p);
}

size_t astar_pool_bytes(const astar_pool *p) {
    return p->count * sizeof *p->nodes + heap_slots(p->heap.cap) * sizeof *p->heap.items;
}

/* Stamps are 16 bits to keep a record in 16 bytes; clearing them once in 65535 queries
 * costs far less than a wider record would. Where clearing gives the pages back instead of
 * writing them (astar_pages_dropped), it comes every ASTAR_POOL_CLEAR_EVERY queries: a
 * workspace then holds the pages its last queries touched, not every page any query did
 * (a long search's whole grid stays with it for at most that many short ones after). */
bool astar_pool_begin(astar_pool *p, const astar_alloc *a) {
    for (int32_t i = 0; i < p->heap.len; i++) p->heap.items[i].key = ASTAR_HEAP_PAD; /* what the last query left */
    p->heap.len = 0;
    p->tie_bits = ASTAR_TIE_BITS_MAX;
    p->key_room = ldexp(1.0, 31 - ASTAR_TIE_BITS_MAX);
    if (++p->gen != 0 && p->gen != p->clear_at) return false;
    astar_pool_array_zero(p, a, p->nodes, sizeof *p->nodes); /* stale stamps could look current */
    p->gen = 1;
    return true;
}

uint64_t astar_pool_key_wider(astar_pool *p, double f, double h) {
    if (!(f < ASTAR_EXACT_BELOW)) return astar_heap_key_wide(f);
    int e;
    frexp(f, &e); /* f < 2^e, e <= 21 */
    int tie_bits = 31 - e, shift = p->tie_bits - tie_bits;
    uint64_t mask = (UINT64_C(1) << p->tie_bits) - 1;
    astar_heap_entry *items = p->heap.items;
    for (int32_t i = 0; i < p->heap.len; i++) {
        uint64_t key = items[i].key;
        if (key >> 63) continue;
        items[i].key = (key >> p->tie_bits) << tie_bits | (key & mask) >> shift;
    }
    p->tie_bits = tie_bits;
    p->key_room = ldexp(1.0, e);
    return astar_pool_key(p, f, h);
}

bool astar_pool_grow_heap(astar_pool *p, const astar_alloc *a) {
    astar_heap *hp = &p->heap;
    int32_t cap = hp->cap ? hp->cap * 2 : 256;
    if ((size_t)cap > p->count) cap = (int32_t)p->count; /* a node is in it at most once */
    if (cap <= hp->cap) return false; /* cannot happen */
    size_t old_slots = heap_slots(hp->cap), slots = heap_slots(cap);
    astar_heap_entry *items = astar_mem(a, hp->items, old_slots * sizeof *items, slots * sizeof *items);
    if (!items) return false;
    for (size_t i = old_slots; i < slots; i++) items[i] = (astar_heap_entry){ASTAR_HEAP_PAD, -1};
    hp->items = items;
    hp->cap = cap;
    return true;
}

bool astar_pool_array(const astar_pool *p, const astar_alloc *a, void **slot, size_t elem,
                      bool zeroed) {
    if (!*slot) *slot = astar_pages_new(a, astar_array_size(p->count, elem), zeroed);
    return *slot != NULL;
}

void astar_pool_array_zero(const astar_pool *p, const astar_alloc *a, void *array, size_t elem) {
    astar_pages_zero(a, array, p->count * elem);
}

void astar_pool_array_free(const astar_pool *p, const astar_alloc *a, void *array, size_t elem) {
    astar_pages_free(a, array, p->count * elem);
}

bool astar_lazy_heap_push(astar_lazy_heap *hp, const astar_alloc *a, double key, int32_t at) {
    if (hp->len == hp->cap) {
        int32_t cap = hp->cap ? 2 * hp->cap : 256;
        double *k = astar_mem(a, NULL, 0, (size_t)cap * sizeof *k);
        int32_t *i = k ? astar_mem(a, NULL, 0, (size_t)cap * sizeof *i) : NULL;
        if (!i) {
            astar_mem(a, k, k ? (size_t)cap * sizeof *k : 0, 0);
            return false;
        }
        int32_t len = hp->len;
        if (len) {
            memcpy(k, hp->key, (size_t)len * sizeof *k);
            memcpy(i, hp->at, (size_t)len * sizeof *i);
        }
        astar_lazy_heap_free(hp, a);
        hp->key = k, hp->at = i, hp->cap = cap, hp->len = len;
    }
    int32_t n = hp->len++;
    while (n > 0) {
        int32_t p = (n - 1) / 2;
        if (!(key < hp->key[p])) break;
        hp->key[n] = hp->key[p];
        hp->at[n] = hp->at[p];
        n = p;
    }
    hp->key[n] = key;
    hp->at[n] = at;
    return true;
}

int32_t astar_lazy_heap_pop(astar_lazy_heap *hp, double *key) {
    if (hp->len == 0) return -1;
    int32_t top = hp->at[0];
    *key = hp->key[0];
    double k = hp->key[--hp->len];
    int32_t at = hp->at[hp->len];
    int32_t n = 0;
    for (;;) {
        int32_t c = 2 * n + 1;
        if (c >= hp->len) break;
        if (c + 1 < hp->len && hp->key[c + 1] < hp->key[c]) c++;
        if (!(hp->key[c] < k)) break;
        hp->key[n] = hp->key[c];
        hp->at[n] = hp->at[c];
        n = c;
    }
    hp->key[n] = k;
    hp->at[n] = at;
    return top;
}

void astar_lazy_heap_free(astar_lazy_heap *hp, const astar_alloc *a) {
    astar_mem(a, hp->key, (size_t)hp->cap * sizeof *hp->key, 0);
    astar_mem(a, hp->at, (size_t)hp->cap * sizeof *hp->at, 0);
    memset(hp, 0, sizeof *hp);
}

bool astar_path_reserve(astar_path_buf *b, const astar_alloc *a, int32_t len) {
    if (len > b->cap) {
        int32_t *ids = astar_mem(a, b->ids, (size_t)b->cap * sizeof *ids, (size_t)len * sizeof *ids);
        if (!ids) return false;
        b->ids = ids;
        b->cap = len;
    }
    b->len = len;
    return true;
}

void astar_path_free(astar_path_buf *b, const astar_alloc *a) {
    astar_mem(a, b->ids, (size_t)b->cap * sizeof *b->ids, 0);
    b->ids = NULL;
    b->len = b->cap = 0;
}
