/* Many queries on a pool of threads: one workspace per worker, paths gathered per worker. */
#define _POSIX_C_SOURCE 200809L /* sysconf, pthreads under -std=c11 */
#include "search.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

typedef struct worker {
    struct astar_many *m;
    int index;
    astar_search *search;
    int32_t *paths;          /* the paths this worker found, one after the other */
    size_t paths_len, paths_cap;
    char pad[64];            /* workers write their own fields per query: not on a shared line */
} worker;

typedef struct where {
    int32_t worker;          /* -1: no path */
    int32_t length;
    size_t offset;
} where;

struct astar_many {
    int32_t width, height;
    astar_alloc alloc;       /* the caller's */
    astar_alloc locked;      /* the same behind the mutex: what workers allocate with */
    pthread_mutex_t lock;
    worker workers[ASTAR_MANY_MAX_THREADS];
    int nworkers;            /* workspaces made so far */
    where *where;            /* per query of the last call */
    int32_t where_cap;
    /* The call in progress. */
    astar_grid *g;
    const astar_query *base;
    const int32_t *endpoints;
    int32_t n;
    astar_result *results;
    atomic_int next;
};

/* Workers grow their workspaces and path buffers while others do: the caller's allocator
 * (a Lua state's, say) need not expect that, so its calls are taken one at a time. */
static void *locked_alloc(void *ud, void *p, size_t old_size, size_t new_size) {
    astar_many *m = ud;
    pthread_mutex_lock(&m->lock);
    void *r = m->alloc.fn(m->alloc.ud, p, old_size, new_size);
    pthread_mutex_unlock(&m->lock);
    return r;
}

astar_many *astar_many_new(int32_t width, int32_t height, const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return NULL;
    astar_alloc a;
    astar_many *m = astar_new_zeroed(alloc, sizeof *m, &a);
    if (!m) return NULL;
    if (pthread_mutex_init(&m->lock, NULL) != 0) {
        astar_mem(&a, m, sizeof *m, 0);
        return NULL;
    }
    m->width = width;
    m->height = height;
    m->alloc = a;
    m->locked.fn = locked_alloc;
    m->locked.ud = m;
    for (int k = 0; k < ASTAR_MANY_MAX_THREADS; k++) {
        m->workers[k].m = m;
        m->workers[k].index = k;
    }
    return m;
}

void astar_many_free(astar_many *m) {
    if (!m) return;
    for (int k = 0; k < m->nworkers; k++) {
        worker *w = &m->workers[k];
        astar_search_free(w->search);
        astar_mem(&m->alloc, w->paths, w->paths_cap * sizeof *w->paths, 0);
    }
    astar_mem(&m->alloc, m->where, (size_t)m->where_cap * sizeof *m->where, 0);
    pthread_mutex_destroy(&m->lock);
    astar_alloc a = m->alloc;
    astar_mem(&a, m, sizeof *m, 0);
}

int astar_many_default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) return 1;
    return n > ASTAR_MANY_MAX_THREADS ? ASTAR_MANY_MAX_THREADS : (int)n;
}

/* Keeps the path the worker's workspace holds; false on OOM. */
static bool keep_path(worker *w, where *at) {
    int32_t len;
    const int32_t *path = astar_search_path(w->search, &len);
    if (w->paths_cap - w->paths_len < (size_t)len) {
        size_t cap = w->paths_cap ? w->paths_cap * 2 : 1024;
        while (cap - w->paths_len < (size_t)len) cap *= 2;
        size_t bytes = astar_array_size(cap, sizeof *w->paths);
        int32_t *p = bytes ? astar_mem(&w->m->locked, w->paths, w->paths_cap * sizeof *w->paths, bytes)
                           : NULL;
        if (!p) return false;
        w->paths = p;
        w->paths_cap = cap;
    }
    memcpy(w->paths + w->paths_len, path, (size_t)len * sizeof *path);
    at->worker = w->index;
    at->offset = w->paths_len;
    at->length = len;
    w->paths_len += (size_t)len;
    return true;
}

static void answer_queries(astar_many *m, int index) {
    worker *w = &m->workers[index];
    /* Relaxed: the index is all a worker takes from the counter; what it reads (the grid,
     * the query) was published by pthread_create. */
    for (int32_t i; (i = atomic_fetch_add_explicit(&m->next, 1, memory_order_relaxed)) < m->n;) {
        astar_query q = *m->base;
        q.sx = m->endpoints[4 * (size_t)i];
        q.sy = m->endpoints[4 * (size_t)i + 1];
        q.gx = m->endpoints[4 * (size_t)i + 2];
        q.gy = m->endpoints[4 * (size_t)i + 3];
        astar_result *res = &m->results[i];
        where *at = &m->where[i];
        at->worker = -1;
        at->length = 0;
        at->offset = 0;
        astar_status st = astar_find(w->search, m->g, &q, res);
        if ((st == ASTAR_OK || st == ASTAR_PARTIAL) && !keep_path(w, at)) {
            astar_result_init(res);
            res->status = ASTAR_ENOMEM;
        }
    }
}

/* A worker thread of astar_many_run: its index and the work it shares with the others. */
typedef struct thread_arg {
    int index;
    void (*fn)(void *ud, int index);
    void *ud;
} thread_arg;

static void *thread_main(void *arg) {
    thread_arg *t = arg;
    t->fn(t->ud, t->index);
    return NULL;
}

int astar_many_run(int threads, void (*fn)(void *ud, int index), void *ud) {
    if (threads < 1) threads = 1;
    if (threads > ASTAR_MANY_MAX_THREADS) threads = ASTAR_MANY_MAX_THREADS;
    pthread_t tid[ASTAR_MANY_MAX_THREADS];
    thread_arg args[ASTAR_MANY_MAX_THREADS];
    int started = 0;
    for (int k = 1; k < threads; k++) {
        args[k] = (thread_arg){k, fn, ud};
        if (pthread_create(&tid[started], NULL, thread_main, &args[k]) != 0) break;
        started++;
    }
    /* Indices 1..started run on threads; the calling thread takes 0 and, if a thread could
     * not be started, the indices it would have taken, so every index runs once. */
    fn(ud, 0); /* may longjmp out with one thread (Lua callbacks): nothing to undo */
    for (int k = started + 1; k < threads; k++) fn(ud, k);
    for (int k = 0; k < started; k++) pthread_join(tid[k], NULL);
    return started + 1;
}

const astar_alloc *astar_many_locked(const astar_many *m) { return &m->locked; }

astar_search *astar_many_workspace(astar_many *m, int index) {
    if (index < 0 || index >= ASTAR_MANY_MAX_THREADS) return NULL;
    while (m->nworkers <= index) {
        worker *w = &m->workers[m->nworkers];
        w->search = astar_search_new(m->width, m->height, &m->locked);
        if (!w->search) return NULL;
        m->nworkers++;
    }
    return m->workers[index].search;
}

static void answer_share(void *ud, int index) { answer_queries(ud, index); }

astar_status astar_find_many(astar_many *m, astar_grid *g, const astar_query *base,
                             const int32_t *endpoints, int32_t n, int threads,
                             astar_result *results) {
    if (n < 0 || threads < 0 || threads > ASTAR_MANY_MAX_THREADS) return ASTAR_EINVAL;
    if (g->width != m->width || g->height != m->height) return ASTAR_EINVAL;
    if (n > 0 && (!base || !endpoints || !results)) return ASTAR_EINVAL;
    if (threads == 0) threads = astar_many_default_threads();
    if (threads > n) threads = n > 0 ? (int)n : 1;
    for (int k = 0; k < m->nworkers; k++) m->workers[k].paths_len = 0;
    if (n > m->where_cap) {
        size_t bytes = astar_array_size((size_t)n, sizeof *m->where);
        where *p = bytes ? astar_mem(&m->alloc, m->where, (size_t)m->where_cap * sizeof *p, bytes) : NULL;
        if (!p) return ASTAR_ENOMEM;
        m->where = p;
        m->where_cap = n;
    }
    m->n = 0; /* until this call runs: astar_many_path finds no stale path */
    if (!astar_many_workspace(m, threads - 1)) return ASTAR_ENOMEM;
    for (int32_t i = 0; i < n; i++) m->where[i].worker = -1;
    if (n == 0) return ASTAR_OK;
    if (astar_find_prepare(g, base) != ASTAR_OK) return ASTAR_ENOMEM;

    m->g = g;
    m->base = base;
    m->endpoints = endpoints;
    m->n = n;
    m->results = results;
    atomic_store(&m->next, 0);
    astar_many_run(threads, answer_share, m);

    for (int32_t i = 0; i < n; i++) {
        astar_status st = results[i].status;
        if (st == ASTAR_EINVAL || st == ASTAR_ENOMEM || st == ASTAR_EABORT) return st;
    }
    return ASTAR_OK;
}

const int32_t *astar_many_path(const astar_many *m, int32_t i, int32_t *length) {
    if (length) *length = 0;
    if (i < 0 || i >= m->n || m->where[i].worker < 0) return NULL;
    const where *at = &m->where[i];
    if (length) *length = at->length;
    return m->workers[at->worker].paths + at->offset;
}
