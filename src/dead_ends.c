/*
 * Dead ends: the blocks of the walkable cells (Hopcroft and Tarjan's biconnected
 * components, by an iterative depth-first search), arranged per island as a block-cut tree
 * rooted at the island's largest block. Each other block is a dead-end area: the cells
 * beyond its parent cut cell, the gateway, which every way between the area and the rest
 * passes. Built on first need; then it follows the terrain's walkability cell by cell (the
 * second half of this file) and is built again only after a bulk write or when asked to.
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

/* area[] of a cell blocked at the build and not opened since. */
#define BLOCKED (-2)

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
    int32_t **arrays[] = {&de->gateway, &de->parent, &de->depth};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
        astar_mem(a, *arrays[i], *arrays[i] ? (size_t)de->nareas * sizeof(int32_t) : 0, 0);
        *arrays[i] = NULL;
    }
    astar_mem(a, de->into, de->into ? (size_t)de->nareas : 0, 0);
    de->into = NULL;
    de->nareas = de->nretired = 0;
}

/* Room for nareas areas in de (its old ones freed); false on OOM (de has none). */
static bool new_areas(const astar_alloc *a, astar_dead_ends *de, int32_t nareas) {
    free_areas(a, de);
    if (nareas == 0) return true;
    size_t bytes = astar_array_size((size_t)nareas, sizeof(int32_t));
    de->nareas = nareas;
    de->gateway = astar_mem(a, NULL, 0, bytes);
    de->parent = de->gateway ? astar_mem(a, NULL, 0, bytes) : NULL;
    de->depth = de->parent ? astar_mem(a, NULL, 0, bytes) : NULL;
    de->into = de->depth ? astar_mem(a, NULL, 0, (size_t)nareas) : NULL;
    if (!de->into) free_areas(a, de);
    return de->into != NULL;
}

/* Each area's depth in the tree, in two walks per chain of areas not yet numbered. */
static void number_depths(astar_dead_ends *de) {
    for (int32_t k = 0; k < de->nareas; k++) de->depth[k] = 0;
    for (int32_t k = 0; k < de->nareas; k++) {
        int32_t a = k, n = 0;
        for (; a >= 0 && de->depth[a] == 0; a = de->parent[a]) n++;
        int32_t base = a >= 0 ? de->depth[a] : 0;
        for (a = k; n > 0; n--, a = de->parent[a]) de->depth[a] = base + n;
    }
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
    if (!new_areas(a, de, nareas)) {
        scratch_free(a, &w, g->cells);
        return ASTAR_ENOMEM;
    }
    for (size_t i = 0; i < g->cells; i++)
        owner[i] = owner[i] >= 0 ? area_of[owner[i]] : g->cost[i] == INFINITY ? BLOCKED : -1;
    for (int32_t b = 0; b < nblocks; b++) {
        if (area_of[b] < 0) continue;
        de->gateway[area_of[b]] = w.top[b];
        de->parent[area_of[b]] = de->area[w.top[b]];
    }
    number_depths(de);
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
    de->edits = 0;
    return ASTAR_OK;
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
        if (!de->log) { /* with the table: a cell write allocates nothing */
            de->log = astar_mem(&g->alloc, NULL, 0, ASTAR_DEAD_END_LOG * sizeof(int32_t));
            if (!de->log) return ASTAR_ENOMEM;
        }
        astar_status st = build(g, kind, de, astar_progress_get());
        if (st != ASTAR_OK) return st;
        de->fresh = true;
    }
    *out = de;
    return ASTAR_OK;
}

/* Frees a table's memory but its log. */
static void free_table(astar_grid *g, astar_dead_ends *de) {
    astar_mem(&g->alloc, de->area, de->area ? g->cells * sizeof(int32_t) : 0, 0);
    astar_mem(&g->alloc, de->open, de->open ? g->cells : 0, 0);
    free_areas(&g->alloc, de);
}

astar_status astar_dead_ends_refresh(astar_grid *g, bool whole) {
    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) {
        astar_dead_ends *de = &g->dead_ends[k];
        if (!de->area || (de->fresh && (whole ? de->edits : (uint64_t)de->nretired) == 0))
            continue; /* never used, or nothing to restore */
        astar_status st;
        if (!de->fresh) {
            if ((st = astar_dead_ends_get(g, k, &de)) != ASTAR_OK) return st;
            continue;
        }
        /* Built into a second table, so that a stop leaves this one as it was (still exact). */
        astar_dead_ends next = {0};
        size_t bytes = astar_array_size(g->cells, sizeof(int32_t));
        next.area = astar_mem(&g->alloc, NULL, 0, bytes);
        next.open = next.area ? astar_mem(&g->alloc, NULL, 0, g->cells) : NULL;
        st = next.open ? build(g, k, &next, astar_progress_get()) : ASTAR_ENOMEM;
        if (st == ASTAR_OK) {
            astar_dead_ends old = *de;
            next.log = old.log; /* edits count from 0 again: views see the new serial */
            next.fresh = true;
            *de = next;
            next = old;
        }
        free_table(g, &next);
        if (st != ASTAR_OK) return st;
    }
    return ASTAR_OK;
}

/* Whether a table has its memory (an allocation that failed part-way leaves some of it): what a
 * bulk write builds again. */
static bool table_made(const astar_dead_ends *de) { return de->area && de->open && de->log; }

uint64_t astar_dead_ends_reset_units(const astar_grid *g) {
    uint64_t units = 0;
    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++)
        if (table_made(&g->dead_ends[k])) units += 3 * (uint64_t)g->cells; /* a build's at most */
    return units;
}

void astar_dead_ends_bulk_changed(astar_grid *g) {
    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) {
        astar_dead_ends *de = &g->dead_ends[k];
        de->fresh = false;
        /* Built before: built again here, at the write's own cost (counted by the write, see
         * astar_dead_ends_reset_units), not in the next query. Out of memory: its next use. */
        if (table_made(de) && build(g, k, de, astar_progress_none()) == ASTAR_OK) de->fresh = true;
    }
}

void astar_dead_ends_free(astar_grid *g) {
    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) {
        astar_dead_ends *de = &g->dead_ends[k];
        free_table(g, de);
        astar_mem(&g->alloc, de->log, de->log ? ASTAR_DEAD_END_LOG * sizeof(int32_t) : 0, 0);
        memset(de, 0, sizeof *de);
    }
}

/*
 * Following the terrain (docs/design/dead_ends.md, "A living world"). S(A), the cells of area
 * A, are the walkable cells whose chain of areas (area[cell], its parent, ...) holds A. A
 * table is exact while every area not retired keeps the property the build gave it: every
 * move from a cell of S(A) ends in S(A) or at A's gateway. Blocking a cell only removes
 * cells and moves. Opening one, c, adds c to the areas of its own chain and adds its moves;
 * retiring an area drops its property, so the areas that would break it are retired.
 */

/* The byte of de->open at `cell` changed: views copy it again. */
static void note(astar_dead_ends *de, int32_t cell) {
    de->log[de->edits++ & (ASTAR_DEAD_END_LOG - 1u)] = cell;
}

static void retire(astar_grid *g, astar_dead_ends *de, int32_t k) {
    if (!de->into[k]) return;
    int32_t gate = de->gateway[k];
    de->open[gate] |= (uint8_t)(de->into[k] & g->open[gate]);
    de->into[k] = 0;
    de->nretired++;
    note(de, gate);
}

static int32_t depth_of(const astar_dead_ends *de, int32_t k) { return k < 0 ? 0 : de->depth[k]; }

/*
 * The first area above k that is not retired (-1: none), which becomes k's parent: a retired
 * area's cells are its parent's, so the chains lose nothing, and a walk never crosses the same
 * retired areas twice (each is retired once per build, which paid for it: a set_cost's walks
 * are the areas it retires and a few more). Depths stay: they still fall along every chain,
 * which is all meet() needs.
 */
static int32_t up(astar_dead_ends *de, int32_t k) {
    int32_t p = de->parent[k];
    while (p >= 0 && !de->into[p]) p = de->parent[p];
    for (int32_t q = de->parent[k], next; q != p; q = next) { /* the retired ones passed, too */
        next = de->parent[q];
        de->parent[q] = p;
    }
    return de->parent[k] = p;
}

/* Where two chains meet: the innermost area on both that is not retired (or either start). */
static int32_t meet(astar_dead_ends *de, int32_t a, int32_t b) {
    while (a != b) {
        if (depth_of(de, a) >= depth_of(de, b)) a = up(de, a);
        else b = up(de, b);
    }
    return a;
}

static int32_t area_at(const astar_dead_ends *de, int32_t cell) {
    return de->area[cell] < 0 ? -1 : de->area[cell];
}

/*
 * The move between c (just opened, area x) and its walkable neighbour n, which n sees in
 * direction e. Walks the two chains up to where they meet: an area holding n but not c must be
 * entered through c; one holding c but not n through n; any other is retired. Returns whether
 * the move n -> c is an area's way in that stays shut. (Retired areas on the way need nothing:
 * up() skips them. An area whose gateway is c, or n, is at most one on each chain: areas with
 * the same gateway are siblings. So the walks are the areas retired, and a few.)
 */
static bool join(astar_grid *g, astar_dead_ends *de, int32_t c, int32_t x, int32_t n, int e,
                 unsigned *own) {
    int32_t a = area_at(de, n), b = x;
    bool shut = false;
    while (a != b) {
        if (depth_of(de, a) >= depth_of(de, b)) {
            if (de->gateway[a] != c) retire(g, de, a);
            else *own |= de->into[a]; /* c's way into a: shut in c's own byte */
            a = up(de, a);
        } else {
            if (de->gateway[b] == n) shut |= (de->into[b] >> e) & 1u;
            else retire(g, de, b);
            b = up(de, b);
        }
    }
    return shut;
}

static void cell_opened(astar_grid *g, int kind, astar_dead_ends *de, int32_t c, const int32_t *offset) {
    unsigned near = joined(kind, c / g->stride - 1) & g->open[c];
    if (de->area[c] == BLOCKED) { /* its area: the innermost holding all its neighbours */
        int32_t x = -2;
        for (int d = 0; d < 8; d++)
            if (near >> d & 1u) x = x == -2 ? area_at(de, c + offset[d]) : meet(de, x, area_at(de, c + offset[d]));
        de->area[c] = x < 0 ? -1 : x;
    }
    int32_t x = de->area[c];
    unsigned own = 0;
    for (int d = 0; d < 8; d++) {
        /* A move out of the kind's graph (a diagonal of kind 0, two of a hex) is not one the
         * areas are about, nor one from a blocked neighbour (its byte is set again when it
         * opens): opened as in the grid's bits. A move left open is always exact (it only
         * skips less); under no_corner_cut a diagonal into an area mostly stays shut anyway,
         * by its straight sides. */
        int32_t n = c + offset[d];
        int e = d ^ 2;
        if (!(near >> d & 1u) || !join(g, de, c, x, n, e, &own)) de->open[n] |= (uint8_t)(1u << e);
        note(de, n);
    }
    /* c's own byte: the grid's, but the ways into the areas c is the gateway of (those that
     * hold a neighbour; the others' cells by c are blocked). While c was blocked, bits were
     * only set in it. */
    de->open[c] = (uint8_t)(g->open[c] & ~own);
    note(de, c);
}

void astar_dead_ends_cell_changed(astar_grid *g, int32_t cell, bool walkable) {
    int32_t offset[8];
    for (int d = 0; d < 8; d++) offset[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
    for (int k = 0; k < ASTAR_DEAD_END_KINDS; k++) {
        astar_dead_ends *de = &g->dead_ends[k];
        if (!de->fresh) continue; /* built from the terrain on next use */
        if (walkable) {
            cell_opened(g, k, de, cell, offset);
            continue;
        }
        for (int d = 0; d < 8; d++) { /* as the grid's bits: a blocked cell is never entered */
            de->open[cell + offset[d]] &= (uint8_t)~(1u << (d ^ 2));
            note(de, cell + offset[d]);
        }
    }
}

static size_t view_pages(size_t cells) { return (cells >> ASTAR_VIEW_PAGE_SHIFT) + 1; }

void astar_dead_end_view_copy(astar_dead_end_view *v, int32_t cell) {
    size_t page = (size_t)cell >> ASTAR_VIEW_PAGE_SHIFT, first = page << ASTAR_VIEW_PAGE_SHIFT;
    size_t n = (size_t)1 << ASTAR_VIEW_PAGE_SHIFT;
    if (n > v->cells - first) n = v->cells - first;
    memcpy(v->open + first, v->from + first, n);
    v->copied[page] = 1;
}

bool astar_dead_end_view_begin(astar_dead_end_view *v, const astar_dead_ends *de,
                               const astar_alloc *a, size_t cells) {
    if (v->cells != cells) {
        /* The system's pages where it can (core.h): only the pages copied are committed. */
        uint8_t *open = astar_pages_new(a, cells, false);
        uint8_t *copied = open ? astar_mem(a, NULL, 0, view_pages(cells)) : NULL;
        if (!copied) {
            astar_pages_free(a, open, cells);
            return false;
        }
        astar_pages_free(a, v->open, v->cells);
        astar_mem(a, v->copied, v->cells ? view_pages(v->cells) : 0, 0);
        v->open = open;
        v->copied = copied;
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
    v->from = de->open;
    if (v->serial != de->serial || de->edits - v->edits > ASTAR_DEAD_END_LOG) {
        /* Every page copied again on touch: a byte per 2^ASTAR_VIEW_PAGE_SHIFT cells cleared here. */
        memset(v->copied, 0, view_pages(cells));
        v->serial = de->serial;
    } else { /* the pages copied so far: the last query's patches undone, the edits since */
        for (int32_t i = 0; i < v->npatched; i++) v->open[v->patched[i]] = de->open[v->patched[i]];
        for (uint64_t e = v->edits; e != de->edits; e++) {
            int32_t cell = de->log[e & (ASTAR_DEAD_END_LOG - 1u)];
            if (v->copied[cell >> ASTAR_VIEW_PAGE_SHIFT]) v->open[cell] = de->open[cell];
        }
    }
    v->edits = de->edits;
    v->npatched = 0;
    if (++v->stamp == 0) {
        memset(v->mark, 0, (size_t)v->cap * sizeof(uint32_t));
        v->stamp = 1;
    }
    return true;
}

void astar_dead_end_view_keep(astar_dead_end_view *v, const astar_dead_ends *de,
                              const uint8_t *terrain, int32_t cell) {
    for (int32_t k = de->area[cell]; k >= 0 && v->mark[k] != v->stamp; k = de->parent[k]) {
        v->mark[k] = v->stamp;
        int32_t gate = de->gateway[k];
        if (!de->into[k]) continue; /* retired: nothing shut */
        v->open[gate] = (uint8_t)(astar_dead_end_view_at(v, gate) | (de->into[k] & terrain[gate]));
        v->patched[v->npatched++] = gate;
    }
}

void astar_dead_end_view_trim(astar_dead_end_view *v, const astar_alloc *a) {
    if (!v->cells || !astar_pages_dropped(a, v->cells)) return; /* writing it would give nothing back */
    astar_pages_zero(a, v->open, v->cells);
    memset(v->copied, 0, view_pages(v->cells));
}

void astar_dead_end_view_free(astar_dead_end_view *v, const astar_alloc *a) {
    astar_pages_free(a, v->open, v->cells);
    astar_mem(a, v->copied, v->cells ? view_pages(v->cells) : 0, 0);
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
    /* The innermost area that still is one: retired areas, and those whose gateway is blocked
     * (cut off, nothing to skip), give their cells to their parent. */
    int32_t k = de->area[cell];
    while (k >= 0 && (!de->into[k] || g->cost[de->gateway[k]] == INFINITY)) k = de->parent[k];
    if (k < 0) return ASTAR_OK;
    int32_t gate = de->gateway[k];
    *area = k;
    *gateway = (gate / g->stride - 1) * g->width + (gate % g->stride - 1);
    return ASTAR_OK;
}
