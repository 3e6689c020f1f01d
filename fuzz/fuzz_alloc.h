/*
 * fuzz_alloc.h -- the astar_alloc every fuzz target hands to the core.
 *
 * It keeps a size header in front of each block so that a wrong old_size on
 * free or realloc is caught at once (the core promises lua_Alloc semantics,
 * and the Lua binding's allocator trusts old_size), counts live bytes and
 * blocks so a leak shows up as a non-zero count after everything is freed,
 * and can refuse a chosen request to drive the out-of-memory paths.
 */
#ifndef ASTAR_FUZZ_ALLOC_H
#define ASTAR_FUZZ_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "astar.h"

/* Inputs are small, so a request this big means a size computed from garbage. */
#define FUZZ_ALLOC_HUGE ((size_t)256 << 20)

typedef struct fuzz_heap {
    size_t live_bytes;
    size_t live_blocks;
    uint64_t requests;  /* allocation requests (new_size > 0) seen so far */
    uint64_t fail_at;   /* 1-based request index to refuse; 0 = refuse none */
    bool fail_after;    /* refuse every request after fail_at too */
    uint64_t failures;  /* requests refused so far */
} fuzz_heap;

/* The header keeps the user block aligned like malloc's. */
typedef union fuzz_block_header {
    max_align_t align;
    size_t size;
} fuzz_block_header;

static inline void fuzz_die(const char *what) {
    fprintf(stderr, "fuzz: %s\n", what);
    abort();
}

static inline fuzz_block_header *fuzz_header_of(void *p, size_t old_size) {
    fuzz_block_header *h = (fuzz_block_header *)p - 1;
    if (h->size != old_size) {
        fprintf(stderr, "fuzz: block %p has %zu bytes but the core passed old_size %zu\n", p,
                h->size, old_size);
        abort();
    }
    return h;
}

static inline void *fuzz_alloc_fn(void *ud, void *ptr, size_t old_size, size_t new_size) {
    fuzz_heap *heap = ud;
    if (new_size == 0) {
        if (ptr) {
            fuzz_block_header *h = fuzz_header_of(ptr, old_size);
            heap->live_bytes -= old_size;
            heap->live_blocks--;
            free(h);
        }
        return NULL;
    }
    if (new_size > FUZZ_ALLOC_HUGE) fuzz_die("the core asked for a huge block");
    heap->requests++;
    if (heap->fail_at != 0 &&
        (heap->requests == heap->fail_at || (heap->fail_after && heap->requests > heap->fail_at))) {
        heap->failures++;
        return NULL; /* like lua_Alloc: the old block (if any) stays valid */
    }
    fuzz_block_header *h;
    if (ptr) {
        h = fuzz_header_of(ptr, old_size);
        h = realloc(h, sizeof *h + new_size);
        if (!h) fuzz_die("realloc failed");
        heap->live_bytes = heap->live_bytes - old_size + new_size;
    } else {
        h = malloc(sizeof *h + new_size);
        if (!h) fuzz_die("malloc failed");
        heap->live_bytes += new_size;
        heap->live_blocks++;
    }
    h->size = new_size;
    return h + 1;
}

static inline void fuzz_heap_reset(fuzz_heap *heap, uint64_t fail_at, bool fail_after) {
    heap->live_bytes = 0;
    heap->live_blocks = 0;
    heap->requests = 0;
    heap->fail_at = fail_at;
    heap->fail_after = fail_after;
    heap->failures = 0;
}

static inline void fuzz_heap_check_empty(const fuzz_heap *heap) {
    if (heap->live_bytes != 0 || heap->live_blocks != 0) {
        fprintf(stderr, "fuzz: leak: %zu bytes in %zu blocks still live after freeing everything\n",
                heap->live_bytes, heap->live_blocks);
        abort();
    }
}

#endif
