/*
 * The open list's keys (nodes.h, internal): entries come out in order of f, and of h
 * among equal f, while astar_pool_key gives tie bits away to f as it grows (rewriting
 * the keys already on the list) and, from ASTAR_EXACT_BELOW up, keys by f's bits. The
 * order is checked against f and h themselves, kept beside the pool.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "nodes.h"

enum { NODES = 4096 };

static double f_of[NODES], h_of[NODES];
static counting counter;
static const astar_alloc alloc = {count_alloc, &counter};

/* A cost in whole quanta (as every sum of rounded steps is), from 0 to about `scale`. */
static double some_cost(double scale) {
    double x = scale * (rnd() / 4294967296.0);
    return x < ASTAR_EXACT_BELOW ? floor(x * 4294967296.0) / 4294967296.0 : x;
}

/* Pushes and decreases at f values that grow like a search's (each one above the last
 * popped), up to `scale`, popping as it goes; checks every pop against the one before. */
static void run_pool(double scale, int rounds) {
    astar_pool pool;
    CHECK(astar_pool_init(&pool, &alloc, NODES));
    for (int round = 0; round < rounds; round++) {
        astar_pool_begin(&pool, &alloc);
        double floor_f = 0.0, last_f = -1.0, last_h = 0.0;
        int32_t next = 0;
        bool ordered = true, tie_ordered = true;
        while (next < NODES || pool.heap.len > 0) {
            unsigned what = rnd() % 8;
            if (what < 4 && next < NODES) { /* push at or above the last popped f */
                int32_t id = next++;
                astar_node *n = astar_node_touch(pool.nodes, pool.gen, id);
                h_of[id] = some_cost(scale / 4);
                f_of[id] = floor_f + h_of[id] + some_cost(scale / 16);
                n->g = f_of[id] - h_of[id];
                CHECK(astar_pool_push(&pool, &alloc, id, f_of[id], h_of[id]));
            } else if (what < 6 && pool.heap.len > 0) { /* decrease one, never below floor_f */
                int32_t id = pool.heap.items[rnd() % (uint32_t)pool.heap.len].cell;
                double lower = f_of[id] - some_cost(f_of[id] - floor_f - h_of[id]);
                if (lower >= floor_f + h_of[id] && lower < f_of[id]) {
                    f_of[id] = lower;
                    astar_pool_decrease(&pool, &pool.nodes[id], lower, h_of[id]);
                }
            } else if (pool.heap.len > 0) {
                int32_t id = astar_heap_pop(&pool.heap, pool.nodes).cell;
                double f = f_of[id], h = h_of[id];
                if (f < last_f) ordered = false;
                /* Equal f: smaller h first, where the tie bits tell the two apart (h an
                 * exponent apart in quanta always is, down to the fewest tie bits). */
                if (f == last_f && f < ASTAR_EXACT_BELOW && h * 2.0 + 1.0 < last_h) tie_ordered = false;
                last_f = f;
                last_h = h;
                floor_f = f;
            }
        }
        CHECK(ordered);
        CHECK(tie_ordered);
        CHECK(pool.tie_bits >= 10 && pool.tie_bits <= ASTAR_TIE_BITS_MAX);
    }
    astar_pool_free(&pool, &alloc);
}

/* Many entries of one f and different h: they come out smaller h first. */
static void equal_f(double f) {
    astar_pool pool;
    CHECK(astar_pool_init(&pool, &alloc, NODES));
    astar_pool_begin(&pool, &alloc);
    for (int32_t id = 0; id < 512; id++) {
        astar_node_touch(pool.nodes, pool.gen, id);
        h_of[id] = ldexp(1.0, (int)(rnd() % 20)) * (f / 2e6); /* 0 < h < f, an exponent apart */
        CHECK(astar_pool_push(&pool, &alloc, id, f, h_of[id]));
    }
    double last_h = 0.0;
    bool ordered = true;
    while (pool.heap.len > 0) {
        int32_t id = astar_heap_pop(&pool.heap, pool.nodes).cell;
        if (h_of[id] < last_h) ordered = false;
        last_h = h_of[id];
    }
    CHECK(ordered);
    astar_pool_free(&pool, &alloc);
}

int main(void) {
    run_pool(3.0, 20);        /* f stays in the first key room: 29 tie bits */
    run_pool(5000.0, 20);     /* the room widens a dozen times during a query */
    run_pool(2.0e6, 10);      /* up to ASTAR_EXACT_BELOW: 10 tie bits */
    run_pool(1.0e9, 10);      /* and beyond it: keys by f's bits */
    equal_f(3.5);
    equal_f(1234.5);
    CHECK(counter.live == 0);
    return check_summary();
}
