/*
 * What the C tests share: CHECK and its counts, a small deterministic generator,
 * and an allocator that counts and can refuse. Each test program includes it once.
 */
#ifndef ASTAR_SPEC_CHECK_H
#define ASTAR_SPEC_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif
