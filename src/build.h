/* Builds in slices and on threads (build.c): the driver every long build shares. A build
 * is a sequence of stages, each a list of independent units that workers run in parallel,
 * with sequential work on the calling thread between stages; its kind supplies the parts. */
#ifndef ASTAR_BUILD_H
#define ASTAR_BUILD_H

#include "workspace.h"

typedef struct astar_build_ops {
    /* The work between stages (the first call sets up), on the calling thread, at most
     * `budget` units (*used gets them; budget 0: only what costs nothing): ASTAR_RUNNING for
     * more, ASTAR_OK with *units the next stage's unit count (0: the result is complete), or an
     * error. */
    astar_status (*between)(void *self, uint64_t budget, uint64_t *used, int32_t *units);
    /* Unit u of the current stage on workspace s, at most `budget` units of work: ASTAR_RUNNING
     * (more to do: it continues on the same workspace), ASTAR_OK (finished) or an error. Runs
     * on a worker thread alongside other units: it writes only what unit u owns. */
    astar_status (*unit)(void *self, int32_t u, astar_search *s, uint64_t budget, uint64_t *used);
    /* Puts the complete result on the grid (calling thread). */
    void (*install)(void *self);
    /* Drops all work: the next between() sets up again. */
    void (*reset)(void *self);
    /* The work a whole build is expected to take (for progress; may be refined as it goes). */
    uint64_t (*total)(const void *self);
    /* Frees self (after reset). */
    void (*release)(void *self);
    /* Its units search nothing: they get no workspace (NULL), which then is never made. */
    bool bare;
    /* Optional: asked (calling thread, before a step works) for each terrain change since the
     * build last worked, oldest first: false when the build absorbed it (its work so far holds,
     * or it redoes what the change dirtied itself), true when it must start over. NULL, or
     * changes the grid's log no longer holds: it starts over on any change. */
    bool (*changed)(void *self, const astar_change *c);
} astar_build_ops;

/* A build of ops on g with `threads` workers (1..ASTAR_MANY_MAX_THREADS), its memory from g's
 * allocator; NULL on ENOMEM (self is then the caller's to release). */
astar_build *astar_build_new(astar_grid *g, const astar_build_ops *ops, void *self, int threads);
/* The grid's allocator behind the workers' mutex: what a unit allocates with on threads. */
const astar_alloc *astar_build_locked_alloc(const astar_build *b);

#endif
