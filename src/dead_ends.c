/*
 * Dead ends: the blocks of the walkable cells (Hopcroft and Tarjan's biconnected
 * components, by an iterative depth-first search), arranged per island as a block-cut tree
 * rooted at the island's largest block. Each other block is a dead-end area: the cells
 * beyond its parent cut cell, the gateway, which every way between the area and the rest
 * passes. Built on first need, rebuilt after the terrain's walkability changes.
 */
#include "grid.h"

#include <stdatomic.h>
#include <string.h>

static atomic_uint_fast64_t builds; /* serials: a view never mistakes one build for another */

/* The directions of a kind's graph from a cell of row y (0-based). */
static unsigned joined(int kind, int32_t y) {
    return kind == 0 ? 0x0Fu : kind == 1 ? 0xFFu : astar_hex_moves(0xFFu, y);
}

/* The search's memory: 14 bytes a cell, and 8 a block (grown as blocks close). */
typedef struct scratch {
    int32_t *disc, *low, *vstack;
    uint8_t *left; /* per cell on the way down: its directions not yet tried */
    uint8_t *up;   /* per cell: the direction it was reached in (the way back), ROOT for the first */
    int32_t *top, *size; /* per block: its parent cell, its cells (its parent's included) */
    size_t cap;    /* blocks top and size hold */
} scratch;

#define ROOT 0xFFu

static void scratch_free(const astar_alloc *a, scratch *w, size_t cells) {
    int32_t **arrays[] = {&w->disc, &w->low, &w->vstack};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        astar_mem(a, *arrays[i], *arrays[i] ? cells * sizeof(int32_t) : 0, 0);
    astar_mem(a, w->left, w->left ? cells : 0, 0);
    astar_mem(a, w->up, w->up ? cells : 0, 0);
    astar_mem(a, w->top, w->cap * sizeof(int32_t), 0);
    astar_mem(a, w->size, w->cap * sizeof(int32_t), 0);
}

static bool scratch_new(const astar_alloc *a, scratch *w, size_t cells) {
    memset(w, 0, sizeof *w);
    size_t bytes = astar_array_size(cells, sizeof(int32_t));
    int32_t **arrays[] = {&w->disc, &w->low, &w->vstack};
    bool ok = bytes > 0;
    for (size_t i = 0; ok && i < sizeof arrays / sizeof *arrays; i++)
        ok = (*arrays[i] = astar_mem(a, NULL, 0, bytes)) != NULL;
    if (ok) ok = (w->left = astar_mem(a, NULL, 0, cells)) != NULL;
    if (ok) ok = (w->up = astar_mem(a, NULL, 0, cells)) != NULL;
    if (!ok) scratch_free(a, w, cells);
    return ok;
}

/* Room for block number `block` in top and size. */
static bool scratch_block(const astar_alloc *a, scratch *w, int32_t block) {
    if ((size_t)block < w->cap) return true;
    size_t cap = w->cap ? 2 * w->cap : 1024;
    int32_t *top = astar_mem(a, NULL, 0, cap * sizeof(int32_t));
    int32_t *size = top ? astar_mem(a, NULL, 0, cap * sizeof(int32_t)) : NULL;
    if (!size) {
        astar_mem(a, top, top ? cap * sizeof(int32_t) : 0, 0);
        return false;
    }
    if (w->cap) {
        memcpy(top, w->top, w->cap * sizeof(int32_t));
        memcpy(size, w->size, w->cap * sizeof(int32_t));
    }
    astar_mem(a, w->top, w->cap * sizeof(int32_t), 0);
    astar_mem(a, w->size, w->cap * sizeof(int32_t), 0);
    w->top = top;
    w->size = size;
    w->cap = cap;
    return true;
}

/*
 * Turns the tree of one island, rooted by the search at its first cell, round so that block
 * `root` is its root: the parents along the way from root to that cell swap direction.
 * owner[cell] is a cell's parent block, top[block] a block's parent cell (-1: none).
 */
static void reroot(int32_t *owner, int32_t *top, int32_t root) {
    int32_t block = root, below = -1;
    for (;;) {
        int32_t cell = top[block];
        top[block] = below;
        int32_t next = owner[cell];
        owner[cell] = block;
        if (next < 0) return;
        below = cell;
        block = next;
    }
}

/* What island_blocks returns when it could not finish. */
enum { BLOCKS_ENOMEM = -1, BLOCKS_STOPPED = -2 };

/* The blocks of one island from cell r: owner[] and top[] as reroot() reads them; the new
 * count of blocks, or BLOCKS_ENOMEM, or BLOCKS_STOPPED (p said stop: a unit per cell reached). */
static int32_t island_blocks(const astar_grid *g, int kind, const int32_t *offset, scratch *w,
                             int32_t *owner, int32_t r, int32_t *t, int32_t nblocks, astar_progress *progress) {
    int32_t vsp = 0, v = r;
    w->disc[r] = w->low[r] = ++*t;
    w->left[r] = (uint8_t)(joined(kind, r / g->stride - 1) & g->open[r]);
    w->up[r] = ROOT;
    for (;;) {
        if (w->left[v]) {
            int d = astar_lowest_bit(w->left[v]);
            w->left[v] &= (uint8_t)(w->left[v] - 1);
            int32_t n = v + offset[d];
            if (w->disc[n] == 0) {
                if (astar_progress_charge(progress, 1)) return BLOCKS_STOPPED;
                w->disc[n] = w->low[n] = ++*t;
                w->left[n] = (uint8_t)(joined(kind, n / g->stride - 1) & g->open[n]);
                w->up[n] = (uint8_t)d;
                w->vstack[vsp++] = n;
                v = n;
            } else if (w->disc[n] < w->low[v]) {
                /* The edge back to the parent counts too: low[v] >= disc[parent] is still
                 * exactly "the parent cuts v's subtree off". */
                w->low[v] = w->disc[n];
            }
            continue;
        }
        if (w->up[v] == ROOT) break;
        int32_t p = v - offset[w->up[v]];
        if (w->low[v] < w->low[p]) w->low[p] = w->low[v];
        if (w->low[v] >= w->disc[p]) { /* p cuts off v's subtree: a block with p on top */
            if (!scratch_block(&g->alloc, w, nblocks)) return BLOCKS_ENOMEM;
            int32_t block = nblocks++, count = 1, x;
            do {
                x = w->vstack[--vsp];
                owner[x] = block;
                count++;
            } while (x != v);
            w->top[block] = p;
            w->size[block] = count;
        }
        v = p;
    }
    return nblocks;
}

static void free_areas(const astar_alloc *a, astar_dead_ends *de) {
    astar_mem(a, de->gateway, (size_t)de->nareas * sizeof(int32_t), 0);
    astar_mem(a, de->parent, (size_t)de->nareas * sizeof(int32_t), 0);
    astar_mem(a, de->into, (size_t)de->nareas, 0);
    de->gateway = de->parent = NULL;
    de->into = NULL;
    de->nareas = 0;
}

/* Two passes over the cells (the first, and the numbering with the copy of the neighbour
 * bits) a unit per cell each, and a unit per walkable cell the search reaches. ASTAR_ENOMEM
 * or ASTAR_ESTOPPED leave de half built (and not fresh). */
static astar_status build(astar_grid *g, int kind, astar_dead_ends *de, astar_progress *p) {
    const astar_alloc *a = &g->alloc;
    if (astar_progress_charge(p, g->cells)) return ASTAR_ESTOPPED;
    scratch w;
    if (!scratch_new(a, &w, g->cells)) return ASTAR_ENOMEM;
    int32_t offset[8];
    for (int d = 0; d < 8; d++) offset[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
    int32_t *owner = de->area; /* the parent block of each cell, then its area */
    for (size_t i = 0; i < g->cells; i++) {
        owner[i] = -1;
        w.disc[i] = 0;
    }
    int32_t t = 0, nblocks = 0;
    for (size_t i = 0; i < g->cells; i++) {
        if (g->cost[i] == INFINITY || w.disc[i] != 0) continue;
        int32_t first = nblocks;
        nblocks = island_blocks(g, kind, offset, &w, owner, (int32_t)i, &t, nblocks, p);
        if (nblocks < 0) {
            scratch_free(a, &w, g->cells);
            return nblocks == BLOCKS_STOPPED ? ASTAR_ESTOPPED : ASTAR_ENOMEM;
        }
        if (nblocks == first) continue; /* a lone cell */
        int32_t root = first;
        for (int32_t b = first + 1; b < nblocks; b++)
            if (w.size[b] > w.size[root]) root = b;
        reroot(owner, w.top, root);
        w.size[root] = -1; /* no area: the island's main part */
    }
    /* Areas numbered in the order blocks were closed; `low` now maps a block to its area. */
    if (astar_progress_charge(p, g->cells)) {
        scratch_free(a, &w, g->cells);
        return ASTAR_ESTOPPED;
    }
    int32_t *area_of = w.low, nareas = 0;
    for (int32_t b = 0; b < nblocks; b++) area_of[b] = w.size[b] < 0 ? -1 : nareas++;
    free_areas(a, de);
    size_t bytes = astar_array_size((size_t)nareas, sizeof(int32_t));
    if (nareas > 0) {
        de->gateway = astar_mem(a, NULL, 0, bytes);
        de->parent = de->gateway ? astar_mem(a, NULL, 0, bytes) : NULL;
        de->into = de->parent ? astar_mem(a, NULL, 0, (size_t)nareas) : NULL;
        if (!de->into) {
            astar_mem(a, de->gateway, de->gateway ? bytes : 0, 0);
            astar_mem(a, de->parent, de->parent ? bytes : 0, 0);
            de->gateway = de->parent = NULL;
            scratch_free(a, &w, g->cells);
            return ASTAR_ENOMEM;
        }
    }
    de->nareas = nareas;
    for (size_t i = 0; i < g->cells; i++)
        if (owner[i] >= 0) owner[i] = area_of[owner[i]];
    for (int32_t b = 0; b < nblocks; b++) {
        if (area_of[b] < 0) continue;
        de->gateway[area_of[b]] = w.top[b];
        de->parent[area_of[b]] = de->area[w.top[b]];
    }
    memcpy(de->open, g->open, g->cells);
    for (int32_t k = 0; k < nareas; k++) {
        int32_t gate = de->gateway[k];
        unsigned into = 0;
        for (int d = 0; d < 8; d++)
            if (de->area[gate + offset[d]] == k) into |= 1u << d;
        de->into[k] = (uint8_t)(into & g->open[gate]);
        de->open[gate] &= (uint8_t)~into;
    }
    scratch_free(a, &w, g->cells);
    de->serial = atomic_fetch_add(&builds, 1) + 1;
    return ASTAR_OK;
}

void astar_dead_ends_stale(astar_grid *g) {
    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) g->dead_ends[k].fresh = false;
}

astar_status astar_dead_ends_get(astar_grid *g, int kind, astar_dead_ends **out) {
    astar_dead_ends *de = &g->dead_ends[kind];
    *out = NULL;
    if (!de->fresh) {
        if (!de->area) {
            size_t bytes = astar_array_size(g->cells, sizeof(int32_t));
            de->area = bytes ? astar_mem(&g->alloc, NULL, 0, bytes) : NULL;
            if (!de->area) return ASTAR_ENOMEM;
        }
        if (!de->open) {
            de->open = astar_mem(&g->alloc, NULL, 0, g->cells);
            if (!de->open) return ASTAR_ENOMEM;
        }
        astar_status st = build(g, kind, de, astar_progress_get());
        if (st != ASTAR_OK) return st;
        de->fresh = true;
    }
    *out = de;
    return ASTAR_OK;
}

void astar_dead_ends_free(astar_grid *g) {
    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) {
        astar_dead_ends *de = &g->dead_ends[k];
        astar_mem(&g->alloc, de->area, de->area ? g->cells * sizeof(int32_t) : 0, 0);
        astar_mem(&g->alloc, de->open, de->open ? g->cells : 0, 0);
        free_areas(&g->alloc, de);
        memset(de, 0, sizeof *de);
    }
}

bool astar_dead_end_view_begin(astar_dead_end_view *v, const astar_dead_ends *de,
                               const astar_alloc *a, size_t cells) {
    if (v->cells != cells) {
        uint8_t *open = astar_mem(a, v->open, v->cells, cells);
        if (!open) return false;
        v->open = open;
        v->cells = cells;
        v->serial = 0;
    }
    if (v->cap < de->nareas) {
        size_t bytes = astar_array_size((size_t)de->nareas, sizeof(int32_t));
        uint32_t *mark = bytes ? astar_mem(a, NULL, 0, bytes) : NULL;
        int32_t *patched = mark ? astar_mem(a, NULL, 0, bytes) : NULL;
        if (!patched) {
            astar_mem(a, mark, mark ? bytes : 0, 0);
            return false;
        }
        astar_mem(a, v->mark, (size_t)v->cap * sizeof(uint32_t), 0);
        astar_mem(a, v->patched, (size_t)v->cap * sizeof(int32_t), 0);
        memset(mark, 0, bytes);
        v->mark = mark;
        v->patched = patched;
        v->cap = de->nareas;
        v->serial = 0; /* the list of patches is gone: copy it all again */
    }
    if (v->serial != de->serial) {
        memcpy(v->open, de->open, cells);
        v->serial = de->serial;
    } else {
        for (int32_t i = 0; i < v->npatched; i++) v->open[v->patched[i]] = de->open[v->patched[i]];
    }
    v->npatched = 0;
    if (++v->stamp == 0) {
        memset(v->mark, 0, (size_t)v->cap * sizeof(uint32_t));
        v->stamp = 1;
    }
    return true;
}

void astar_dead_end_view_keep(astar_dead_end_view *v, const astar_dead_ends *de, int32_t cell) {
    for (int32_t k = de->area[cell]; k >= 0 && v->mark[k] != v->stamp; k = de->parent[k]) {
        v->mark[k] = v->stamp;
        int32_t gate = de->gateway[k];
        v->open[gate] |= de->into[k];
        v->patched[v->npatched++] = gate;
    }
}

void astar_dead_end_view_free(astar_dead_end_view *v, const astar_alloc *a) {
    astar_mem(a, v->open, v->cells, 0);
    astar_mem(a, v->mark, (size_t)v->cap * sizeof(uint32_t), 0);
    astar_mem(a, v->patched, (size_t)v->cap * sizeof(int32_t), 0);
    memset(v, 0, sizeof *v);
}

astar_status astar_grid_dead_end(astar_grid *g, int32_t x, int32_t y, int32_t *area,
                                 int32_t *gateway) {
    if (x < 0 || y < 0 || x >= g->width || y >= g->height) return ASTAR_EINVAL;
    *area = *gateway = -1;
    int32_t cell = astar_cell(g->stride, x, y);
    if (g->cost[cell] == INFINITY) return ASTAR_OK;
    astar_dead_ends *de;
    astar_status st = astar_dead_ends_get(g, astar_dead_end_kind(g->diagonal), &de);
    if (st != ASTAR_OK) return st;
    int32_t k = de->area[cell];
    if (k < 0) return ASTAR_OK;
    int32_t gate = de->gateway[k];
    *area = k;
    *gateway = (gate / g->stride - 1) * g->width + (gate % g->stride - 1);
    return ASTAR_OK;
}
