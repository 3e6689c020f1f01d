/*
 * What the C tests share: CHECK and its counts, a small deterministic generator,
 * an allocator that counts and can refuse, and a check of a path's steps. Each test
 * program includes it once.
 */
#ifndef ASTAR_SPEC_CHECK_H
#define ASTAR_SPEC_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#include "astar.h"

static int failures, checks;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        checks++;                                                                   \
        if (!(cond)) {                                                              \
            failures++;                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                           \
    } while (0)

/* The summary line the test command counts, and the exit status. */
static inline int check_summary(void) {
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}

/* xorshift64; a test that wants its own sequence defines CHECK_RNG_SEED first. */
#ifndef CHECK_RNG_SEED
#define CHECK_RNG_SEED 0x2545F4914F6CDD1Dull
#endif
static uint64_t rng_state = CHECK_RNG_SEED;
static inline uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* A counting allocator: live blocks and bytes (from the sizes the core passes), and the
 * fail_at-th request refused (0: none), or with sticky every one from it on. */
typedef struct counting {
    long allocs, fail_at, live;
    long long bytes;
    bool sticky;
} counting;

static inline void *count_alloc(void *ud, void *p, size_t old_size, size_t new_size) {
    counting *c = ud;
    if (new_size == 0) {
        if (p) c->live--, c->bytes -= (long long)old_size;
        free(p);
        return NULL;
    }
    c->allocs++;
    if (c->fail_at && (c->sticky ? c->allocs >= c->fail_at : c->allocs == c->fail_at)) return NULL;
    void *q = realloc(p, new_size);
    if (!q) return NULL;
    if (!p) c->live++;
    c->bytes += (long long)new_size - (long long)(p ? old_size : 0);
    return q;
}

/* Whether consecutive node ids of a path are neighbours the mode lets one step between, every
 * cell after the first walkable (A* may start on a blocked cell). */
static inline bool path_legal(const astar_grid *g, astar_diagonal mode, const int32_t *path, int32_t n) {
    int32_t w = astar_grid_width(g);
    for (int32_t i = 1; i < n; i++) {
        int32_t ax = path[i - 1] % w, ay = path[i - 1] / w, bx = path[i] % w, by = path[i] / w;
        int32_t dx = bx - ax, dy = by - ay;
        if (dx < -1 || dx > 1 || dy < -1 || dy > 1 || (dx == 0 && dy == 0)) return false;
        if (astar_grid_get_cost(g, bx, by) == INFINITY) return false;
        if (dx != 0 && dy != 0) {
            if (mode == ASTAR_DIAG_NEVER) return false;
            if (astar_grid_get_cost(g, ax + dx, ay) == INFINITY ||
                astar_grid_get_cost(g, ax, ay + dy) == INFINITY)
                return false;
        }
    }
    return true;
}

#endif
