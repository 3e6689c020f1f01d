/* Many queries on a pool of threads: one workspace per worker, paths gathered per worker. */
#define _POSIX_C_SOURCE 200809L /* sysconf, pthreads under -std=c11 */
#include "threads.h"
#include "workspace.h"

#include <stdatomic.h>
#include <string.h>
#ifndef _WIN32 /* no sysconf there: the processor count comes from GetSystemInfo */
#include <unistd.h>
#endif

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
    astar_mutex lock;
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
    atomic_bool stopped;     /* a query was stopped by the progress handler: take no more */
};

/* Workers grow their workspaces and path buffers while others do: the caller's allocator
 * (a Lua state's, say) need not expect that, so its calls are taken one at a time. */
static void *locked_alloc(void *ud, void *p, size_t old_size, size_t new_size) {
    astar_many *m = ud;
    astar_mutex_lock(&m->lock);
    void *r = m->alloc.fn(m->alloc.ud, p, old_size, new_size);
    astar_mutex_unlock(&m->lock);
    return r;
}

astar_many *astar_many_new(int32_t width, int32_t height, const astar_alloc *alloc) {
    if (!astar_size_ok(width, height)) return astar_made(NULL, ASTAR_EINVAL);
    astar_alloc a;
    astar_many *m = astar_new_zeroed(alloc, sizeof *m, &a);
    if (!m) return astar_made(NULL, ASTAR_ENOMEM);
    if (!astar_mutex_init(&m->lock)) {
        astar_mem(&a, m, sizeof *m, 0);
        return astar_made(NULL, ASTAR_ENOMEM);
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
    return astar_made(m, ASTAR_OK);
}

void astar_many_free(astar_many *m) {
    if (!m) return;
    for (int k = 0; k < m->nworkers; k++) {
        worker *w = &m->workers[k];
        astar_search_free(w->search);
        astar_mem(&m->alloc, w->paths, w->paths_cap * sizeof *w->paths, 0);
    }
    astar_mem(&m->alloc, m->where, (size_t)m->where_cap * sizeof *m->where, 0);
    astar_mutex_destroy(&m->lock);
    astar_alloc a = m->alloc;
    astar_mem(&a, m, sizeof *m, 0);
}

int astar_many_default_threads(void) {
#ifdef _WIN32
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    long n = (long)si.dwNumberOfProcessors;
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
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
     * the query) was published by the thread's start. */
    for (int32_t i; !atomic_load_explicit(&m->stopped, memory_order_relaxed) &&
                    (i = atomic_fetch_add_explicit(&m->next, 1, memory_order_relaxed)) < m->n;) {
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
        if (st == ASTAR_ESTOPPED) atomic_store_explicit(&m->stopped, true, memory_order_relaxed);
        if ((st == ASTAR_OK || st == ASTAR_PARTIAL) && !keep_path(w, at)) {
            astar_result_init(res);
            res->status = ASTAR_ENOMEM;
        }
    }
}

/*
 * The caller's progress handler, shared by the threads of one astar_many_run (astar.h): each
 * thread's loops charge a lease of their own, which asks the caller's handler (`target`) for
 * more units under the lock, ASTAR_PROGRESS_LEASE at a time or fewer when fn is due sooner,
 * so that fn is called one thread at a time. What the leases hold at the end goes back.
 */
typedef struct share share;
typedef struct lease {
    astar_progress p;        /* what the thread's loops charge; p.ud is the lease */
    share *share;
} lease;
struct share {
    astar_mutex lock;
    astar_progress *target;
    bool stopped;            /* fn said stop: every lease says so from then on */
    lease leases[ASTAR_MANY_MAX_THREADS];
};

/* A lease ran out: more units from the target, or stop. */
static int renew_lease(void *ud) {
    lease *l = ud;
    share *s = l->share;
    astar_mutex_lock(&s->lock);
    astar_progress *t = s->target;
    uint64_t n = t->left > 0 && t->left < ASTAR_PROGRESS_LEASE ? t->left : ASTAR_PROGRESS_LEASE;
    if (!s->stopped) s->stopped = astar_progress_charge(t, n);
    if (!s->stopped) l->p.every = (uint32_t)n; /* what astar_progress_ask sets left to */
    bool stop = s->stopped;
    astar_mutex_unlock(&s->lock);
    return stop;
}

/* A worker thread of astar_many_run: its index, the work it shares with the others, and the
 * lease it charges (NULL: no handler to share). */
typedef struct thread_arg {
    int index;
    void (*fn)(void *ud, int index);
    void *ud;
    lease *lease;
} thread_arg;

static void thread_main(void *arg) {
    thread_arg *t = arg;
    if (t->lease) astar_progress_redirect(&t->lease->p, t->lease->share->target, NULL, NULL);
    t->fn(t->ud, t->index);
}

int astar_many_run(int threads, void (*fn)(void *ud, int index), void *ud) {
    if (threads < 1) threads = 1;
    if (threads > ASTAR_MANY_MAX_THREADS) threads = ASTAR_MANY_MAX_THREADS;
    share sh; /* its leases are a worker's each, and the calling thread's (0) */
    sh.target = astar_progress_get();
    bool shared = threads > 1 && sh.target->fn;
    if (threads == 1 || (shared && !astar_mutex_init(&sh.lock))) {
        /* The calling thread alone, on its own handler (with no lock for it to be shared). */
        for (int k = 0; k < threads; k++) fn(ud, k); /* may longjmp out with one thread (Lua
                                                        callbacks): nothing to undo */
        return 1;
    }
    astar_progress *was_active = NULL, *was_home = NULL;
    if (shared) {
        sh.stopped = false;
        for (int k = 0; k < threads; k++)
            sh.leases[k] = (lease){{renew_lease, &sh.leases[k], ASTAR_PROGRESS_LEASE, 0}, &sh};
        astar_progress_redirect(&sh.leases[0].p, sh.target, &was_active, &was_home);
    }
    astar_thread tid[ASTAR_MANY_MAX_THREADS];
    thread_arg args[ASTAR_MANY_MAX_THREADS];
    int started = 0;
    for (int k = 1; k < threads; k++) {
        args[k] = (thread_arg){k, fn, ud, shared ? &sh.leases[k] : NULL};
        if (!astar_thread_start(&tid[started], thread_main, &args[k])) break;
        started++;
    }
    /* Indices 1..started run on threads; the calling thread takes 0 and, if a thread could
     * not be started, the indices it would have taken, so every index runs once. */
    fn(ud, 0);
    for (int k = started + 1; k < threads; k++) fn(ud, k);
    for (int k = 0; k < started; k++) astar_thread_join(&tid[k]);
    if (shared) {
        astar_progress_redirect(was_active, was_home, NULL, NULL);
        if (!sh.stopped) /* the units leased and not used */
            for (int k = 0; k < threads; k++) {
                uint64_t back = sh.leases[k].p.left;
                sh.target->left = back < UINT64_MAX - sh.target->left ? sh.target->left + back : UINT64_MAX;
            }
        astar_mutex_destroy(&sh.lock);
    }
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
    if (!astar_many_workspace(m, threads - 1)) return astar_last_status(); /* ENOMEM or ESTOPPED */
    for (int32_t i = 0; i < n; i++) m->where[i].worker = -1;
    if (n == 0) return ASTAR_OK;
    astar_status st = astar_find_prepare(g, base);
    if (st != ASTAR_OK) return st;

    m->g = g;
    m->base = base;
    m->endpoints = endpoints;
    m->n = n;
    m->results = results;
    atomic_store(&m->next, 0);
    atomic_store(&m->stopped, false);
    astar_many_run(threads, answer_share, m);
    if (atomic_load(&m->stopped)) { /* some queries never ran: no answers, no paths */
        m->n = 0;
        return ASTAR_ESTOPPED;
    }

    for (int32_t i = 0; i < n; i++) {
        st = results[i].status;
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
