/*
 * Islands: connected components of the walkable terrain, so that a query to
 * another island is answered without searching.
 *
 * Two kinds of connectivity cover every diagonal mode: with "never",
 * "no_corner_cut" and "one_walkable" two cells are connected exactly when they
 * are 4-connected (a diagonal step needs an open side cell, through which the
 * same two cells are joined by straight steps); with "always" they are
 * 8-connected. Hexes have a kind of their own: straight neighbours plus the
 * two diagonal ones the row leans to. Per-query costs and blocks can only cut paths, never add them,
 * so "different islands" stays a proof of "unreachable" for every query.
 *
 * The labels stay exact through every change, in work bounded by the change
 * (docs/design/living.md, "Islands"). Each cell holds a label; a small
 * union-find over the labels joins islands. Opening a cell joins the labels of
 * its neighbours. Blocking one may cut its island apart, which a union-find
 * cannot undo. Walks from its neighbours along the walls first try to show them
 * still joined (a gate with a way round: about that way's length of work); when
 * they do not, floods from its neighbours, a cell each in turns, tell the
 * sides apart. Floods that meet are one side; a flood that runs dry before
 * meeting the others has gone round a whole side, which takes a fresh label;
 * once one flood is left, what it has not reached keeps the old label. So the
 * work is bounded by the smaller sides (at most 8 floods), never the larger, plus
 * the walks' ASTAR_ISLAND_WALK_STEPS at most.
 */
#include "grid.h"

#include <string.h>

#define FLOODS ASTAR_ISLAND_FLOODS
#define REACHED(f) (-2 - (f))        /* a split's mark of a cell flood f reached; the build's
                                        of a root given label f */
#define CHUNK 32                     /* int32_t per chunk of a flood's list */

/* Whether a cell is ground of these labels: walkable terrain for one cell, an anchor the unit
 * fits on (clearance >= size) for a bigger unit. The rest of this file reads only this, so the
 * same build, joins and splits keep the labels of every size. */
static inline bool ground(const astar_grid *g, const astar_islands *is, int32_t cell) {
    return is->size <= 1 ? g->cost[cell] != INFINITY : g->clearance[cell] >= is->size;
}

/* find with path halving, for the writers (the build and the changes). */
static int32_t find_halving(int32_t *parent, int32_t id) {
    while (parent[id] >= 0) {
        int32_t up = parent[id];
        if (parent[up] >= 0) parent[id] = parent[up];
        id = up;
    }
    return id;
}

/* Union by size of two roots: a root holds minus its island's cells, so trees stay
 * O(log n) deep. Returns the root of the union. */
static int32_t unite(int32_t *parent, int32_t a, int32_t b) {
    if (a == b) return a;
    if (parent[a] > parent[b]) { /* b's island is larger: it becomes the root */
        int32_t t = a;
        a = b;
        b = t;
    }
    parent[a] += parent[b];
    parent[b] = a;
    return a;
}

/* The directions that join a cell of row y to its neighbours under a kind of connectivity. */
static unsigned joined(int kind, int32_t y) {
    return kind == 0 ? 0x0Fu : kind == 1 ? 0xFFu : astar_hex_moves(0xFFu, y);
}
static unsigned joined_at(const astar_grid *g, int kind, int32_t cell) {
    return joined(kind, cell / g->stride - 1);
}

static size_t label_bytes(const astar_grid *g) { return g->cells * sizeof(int32_t); }
/* The floods' pool, in chunks: room for a quarter of the cells (about a byte per cell), and a
 * chunk per flood more. */
static int32_t pool_chunks(const astar_grid *g) { return (int32_t)(g->cells / 4 / (CHUNK - 1)) + FLOODS + 1; }

static void offsets(const astar_grid *g, int32_t off[8]) {
    for (int d = 0; d < 8; d++) off[d] = ASTAR_DY[d] * g->stride + ASTAR_DX[d];
}

/* At most one island per two cells (plus room for a split's new ones): an island's first cell
 * in scan order has a blocked west neighbour, its own. */
static int32_t label_cap(const astar_grid *g) { return (int32_t)(g->cells / 2 + FLOODS); }

/* Room for `need` labels in the union-find (need <= label_cap). */
static bool room_for(const astar_grid *g, astar_islands *is, int32_t need) {
    if (need <= is->room) return true;
    int32_t room = is->room < 32 ? 64 : is->room * 2;
    if (room < need) room = need;
    if (room > label_cap(g)) room = label_cap(g);
    int32_t *p = astar_mem(&g->alloc, is->parent, (size_t)is->room * sizeof *p, (size_t)room * sizeof *p);
    if (!p) return false;
    is->parent = p;
    is->room = room;
    return true;
}

/*
 * Labels every cell afresh, in three passes of a unit per cell: the first joins each walkable
 * cell to the neighbours scanned before it (W, N, NE, NW where the kind joins them: every
 * adjacent pair once) in a union-find over the cells held in `label` itself; the second gives
 * each root a label (its island's size into parent[]), the third the other cells their root's.
 * Labels run 0 .. islands - 1, and a sixteenth of the cells more are left for changes to take.
 */
static astar_status build(const astar_grid *g, int kind, astar_islands *is, astar_progress *p) {
    is->fresh = false;
    int32_t *link = is->label;
    if (astar_progress_charge(p, g->cells)) return ASTAR_ESTOPPED;
    const int32_t stride = g->stride;
    for (int32_t at = 0; at < (int32_t)g->cells; at++) {
        if (!ground(g, is, at)) {
            link[at] = ASTAR_ISLAND_NONE;
            continue;
        }
        link[at] = -1; /* a root, one cell; the border is blocked: the neighbours are inside */
        unsigned back = joined_at(g, kind, at) & ((1u << 3) | (1u << 0) | (1u << 4) | (1u << 7));
        for (int d = 0; d < 8; d++) {
            int32_t next = at + ASTAR_DY[d] * stride + ASTAR_DX[d];
            if ((back >> d & 1u) && link[next] != ASTAR_ISLAND_NONE)
                unite(link, find_halving(link, at), find_halving(link, next));
        }
    }
    /* Roots become REACHED(label): negative, told from the cells that point at a root. */
    if (astar_progress_charge(p, g->cells)) return ASTAR_ESTOPPED;
    is->labels = 0;
    for (int32_t at = 0; at < (int32_t)g->cells; at++) {
        int32_t v = link[at];
        if (v == ASTAR_ISLAND_NONE) continue;
        if (v >= 0) {
            link[at] = find_halving(link, at); /* stops at a root, relabelled or not */
            continue;
        }
        if (!room_for(g, is, is->labels + 1)) return ASTAR_ENOMEM;
        is->parent[is->labels] = v;
        link[at] = REACHED(is->labels++);
    }
    if (astar_progress_charge(p, g->cells)) return ASTAR_ESTOPPED;
    for (int32_t at = 0; at < (int32_t)g->cells; at++) {
        int32_t v = link[at];
        if (v == ASTAR_ISLAND_NONE) continue;
        if (v < 0) v = at; /* a root */
        int32_t root = link[v];
        link[at] = root < 0 ? -2 - root : root; /* the root done already: its label */
    }
    int32_t spare = is->labels + (int32_t)(g->cells / 16) + FLOODS;
    if (!room_for(g, is, spare < label_cap(g) ? spare : label_cap(g))) return ASTAR_ENOMEM;
    is->fresh = true;
    return ASTAR_OK;
}

/* A cell opened: it joins its neighbours' islands, or makes one of its own. */
static astar_status join(const astar_grid *g, int kind, astar_islands *is, int32_t cell, astar_progress *p) {
    int32_t off[8];
    offsets(g, off);
    unsigned dirs = joined_at(g, kind, cell);
    int32_t id = -1;
    for (int d = 0; d < 8; d++) {
        int32_t next = cell + off[d];
        if (!(dirs >> d & 1u) || !ground(g, is, next)) continue;
        int32_t root = find_halving(is->parent, is->label[next]);
        id = id < 0 ? root : unite(is->parent, id, root);
    }
    if (id < 0) {
        if (is->labels == is->room) return build(g, kind, is, p); /* labels used up: afresh */
        id = is->labels++;
        is->parent[id] = 0;
    }
    is->label[cell] = id;
    is->parent[id]--;
    return ASTAR_OK;
}

/*
 * The floods of a split, a cell of each in turns. A cell a flood reaches is labelled REACHED(f)
 * until the split ends, and appended to the flood's list: chunks of the pool, CHUNK - 1 cells
 * and the next chunk's index each. Floods that met are one side: a union-find of at most 8.
 */
typedef struct splitting {
    int k;
    int side[FLOODS];
    int32_t cells[FLOODS];           /* reached (0 once its side is labelled) */
    int32_t first[FLOODS];           /* its first chunk */
    int32_t put[FLOODS], put_n[FLOODS];  /* the chunk it appends to, and the cells there */
    int32_t take[FLOODS], take_i[FLOODS]; /* the chunk it takes its next cell from, and where */
    int32_t used;                    /* chunks handed out */
} splitting;

static int side_of(const splitting *sp, int f) {
    while (sp->side[f] != f) f = sp->side[f];
    return f;
}

/* Flood f reaches a cell; false when the pool is used up. */
static bool reach(astar_islands *is, splitting *sp, int f, int32_t cell) {
    if (sp->cells[f] == 0 || sp->put_n[f] == CHUNK - 1) {
        if (sp->used == is->chunks) return false;
        int32_t c = sp->used++;
        if (sp->cells[f] == 0) sp->first[f] = sp->take[f] = c, sp->take_i[f] = 0;
        else is->pool[sp->put[f] * CHUNK + CHUNK - 1] = c;
        sp->put[f] = c;
        sp->put_n[f] = 0;
    }
    is->pool[sp->put[f] * CHUNK + sp->put_n[f]++] = cell;
    sp->cells[f]++;
    is->label[cell] = REACHED(f);
    return true;
}

/* Whether flood f has taken every cell it reached. */
static bool dry(const splitting *sp, int f) {
    return sp->cells[f] == 0 || (sp->take[f] == sp->put[f] && sp->take_i[f] == sp->put_n[f]);
}

/* The next cell flood f takes (not dry). */
static int32_t take(const astar_islands *is, splitting *sp, int f) {
    if (sp->take_i[f] == CHUNK - 1) { /* on to the next chunk: there is one, it is not dry */
        sp->take[f] = is->pool[sp->take[f] * CHUNK + CHUNK - 1];
        sp->take_i[f] = 0;
    }
    return is->pool[sp->take[f] * CHUNK + sp->take_i[f]++];
}

/* Whether every flood of side s has run dry. */
static bool closed(const splitting *sp, int s) {
    for (int f = 0; f < sp->k; f++)
        if (side_of(sp, f) == s && !dry(sp, f)) return false;
    return true;
}

/* Labels the cells flood f reached: `id`. */
static void label_flood(astar_islands *is, const splitting *sp, int f, int32_t id) {
    for (int32_t c = sp->first[f];; c = is->pool[c * CHUNK + CHUNK - 1]) {
        int32_t n = c == sp->put[f] ? sp->put_n[f] : CHUNK - 1;
        for (int32_t i = 0; i < n; i++) is->label[is->pool[c * CHUNK + i]] = id;
        if (c == sp->put[f]) return;
    }
}

/* The cells the floods of side s reached: a unit each, to label them. */
static int32_t side_cells(const splitting *sp, int s) {
    int32_t n = 0;
    for (int f = 0; f < sp->k; f++)
        if (side_of(sp, f) == s) n += sp->cells[f];
    return n;
}

/*
 * The walks of a split: whether the blocked cell's neighbours (the seeds) are still joined
 * round it. A walk from each seed follows the edge of the open ground: from a cell it steps to
 * the first joined open neighbour clockwise after the one it came from (from its seed: after
 * the blocked cell). It ends when it steps past the blocked cell again, at a seed: the edge of
 * the hole the cell left runs from one seed to the next, so the two are joined; and every step
 * is a legal one, so this is a proof whatever the terrain (a seed a walk passes through
 * otherwise is joined too). Round a gate across a passage with a way round, a walk follows the
 * wall on one side of the gate to the other side of the gate: work about the length of that
 * wall's edge, where the floods would grow a ball on each side until they meet.
 *
 * Seeds next to each other are joined at once: an arc of the ring round the blocked cell. A walk
 * goes round the hole counterclockwise, so only the walk from an arc's counterclockwise end
 * leaves it (the others step onto the next seed of their arc and end). When the terrain is
 * still joined, the edge of the hole is one closed walk through every arc (4-connected ground
 * and hexes are planar): each walk joins an arc to the next, and the last arc is joined before
 * its walk closes the ring. So a walk that ends at an arc already joined to its own has closed
 * a ring of sides short of the others, which are cut off: then, when a seed cannot move, or
 * after ASTAR_ISLAND_WALK_STEPS steps in all, the floods decide. The walks take a step each
 * in turns, a unit per step, so that one that closes costs the others no more than itself;
 * they write nothing (so readers never see a half-made label).
 */
/* The eight directions clockwise from north (grid.h's order: N E S W NE SE SW NW), and where
 * each direction stands in that order; hexes keep the same order among their six. */
static const uint8_t CLOCKWISE[8] = {0, 4, 1, 5, 2, 6, 3, 7};
static const uint8_t CLOCK_AT[8] = {0, 2, 4, 6, 1, 3, 5, 7};

static int group_of(const int *group, int f) {
    while (group[f] != f) f = group[f];
    return f;
}

/* 1: the seeds are joined without `cell`; 0: not shown; -1: stopped. */
static int walks_join(const astar_grid *g, const astar_islands *is, int kind, int32_t cell, const int32_t *seed, int k, const int32_t off[8],
                      astar_progress *p) {
    int group[FLOODS], arc[FLOODS], groups = k;
    int32_t at[FLOODS];
    int gap[FLOODS];  /* where the blocked cell stands clockwise from seed f */
    int back[FLOODS]; /* where the cell walk f came from stands; -1: the walk ended */
    for (int f = 0; f < k; f++) {
        group[f] = f;
        at[f] = seed[f];
        gap[f] = back[f] = 0;
        for (int d = 0; d < 8; d++)
            if (seed[f] + off[d] == cell) gap[f] = back[f] = CLOCK_AT[d];
    }
    for (int a = 0; a < k; a++) { /* the arcs */
        unsigned to = joined_at(g, kind, seed[a]);
        for (int d = 0; d < 8; d++)
            for (int b = 0; b < k; b++) {
                int x = group_of(group, a), y = group_of(group, b);
                if ((to >> d & 1u) && seed[a] + off[d] == seed[b] && x != y) group[y] = x, groups--;
            }
    }
    for (int f = 0; f < k; f++) arc[f] = group_of(group, f);
    int32_t steps = 0;
    for (int live = k; live > 0 && groups > 1;) {
        for (int f = 0; f < k && groups > 1; f++) {
            if (back[f] < 0) continue;
            if (steps++ == ASTAR_ISLAND_WALK_STEPS) return 0;
            if (astar_progress_charge(p, 1)) return -1;
            unsigned dirs = joined_at(g, kind, at[f]);
            int turn = 1; /* clockwise from where it came from */
            while (turn <= 8 && !((dirs >> CLOCKWISE[(back[f] + turn) & 7] & 1u) &&
                                  ground(g, is, at[f] + off[CLOCKWISE[(back[f] + turn) & 7]])))
                turn++;
            if (turn > 8) return 0; /* a seed alone: a side of its own */
            bool first = at[f] == seed[f] && back[f] == gap[f];
            int32_t from_cell = at[f] - cell;
            if (!first && from_cell >= -g->stride - 1 && from_cell <= g->stride + 1)
                for (int b = 0; b < k; b++) {
                    if (seed[b] != at[f]) continue;
                    int past = (gap[b] - back[f]) & 7, x = group_of(group, f), y = group_of(group, b);
                    bool hole = past != 0 && past < turn; /* it steps past the blocked cell */
                    if (hole && x == y) return 0; /* round sides of their own */
                    if (x != y) group[y] = x, groups--;
                    if (hole) back[f] = -1, live--; /* at the hole again: ended */
                    break;
                }
            if (back[f] < 0) continue;
            int d = CLOCKWISE[(back[f] + turn) & 7];
            at[f] += off[d];
            back[f] = (CLOCK_AT[d] + 4) & 7;
            if (first) /* onto the next seed of its arc: that one's walk goes on from there */
                for (int b = 0; b < k; b++)
                    if (seed[b] == at[f] && arc[b] == arc[f]) back[f] = -1, live--;
        }
    }
    return groups == 1;
}

/* A cell blocked (its label still set): it leaves its island, whose other cells may now lie on
 * up to 8 islands, one per side its neighbours' floods find. A unit per cell a flood takes and
 * per cell it labels. */
static astar_status split(const astar_grid *g, int kind, astar_islands *is, int32_t cell, astar_progress *p) {
    int32_t off[8];
    offsets(g, off);
    int32_t home = find_halving(is->parent, is->label[cell]);
    is->label[cell] = ASTAR_ISLAND_NONE;
    is->parent[home]++;
    int32_t seed[FLOODS];
    splitting sp;
    sp.k = 0;
    unsigned dirs = joined_at(g, kind, cell);
    for (int d = 0; d < 8; d++)
        if ((dirs >> d & 1u) && ground(g, is, cell + off[d])) seed[sp.k++] = cell + off[d];
    if (sp.k < 2) return ASTAR_OK; /* nothing to cut apart */
    int still = walks_join(g, is, kind, cell, seed, sp.k, off, p);
    if (still) return still > 0 ? ASTAR_OK : ASTAR_ESTOPPED;
    /* Labels used up (after a sixteenth of the cells' splits): all afresh, here at the change. */
    if (is->labels > is->room - FLOODS) return build(g, kind, is, p);
    sp.used = 0;
    for (int f = 0; f < sp.k; f++) {
        sp.side[f] = f;
        sp.cells[f] = 0;
        reach(is, &sp, f, seed[f]); /* a chunk each: the pool has room for 8 */
    }
    int live = sp.k; /* sides neither closed nor met */
    while (live > 1) {
        for (int f = 0; f < sp.k && live > 1; f++) {
            if (dry(&sp, f)) continue;
            if (astar_progress_charge(p, 1)) return ASTAR_ESTOPPED; /* labels REACHED: rebuilt */
            int32_t at = take(is, &sp, f);
            unsigned to = joined_at(g, kind, at);
            for (int d = 0; d < 8; d++) {
                int32_t next = at + off[d];
                if (!(to >> d & 1u) || !ground(g, is, next)) continue;
                int32_t label = is->label[next];
                if (label >= 0) { /* not reached yet */
                    /* The pool used up: the floods reached a quarter of the cells; a build
                     * (three passes) costs at most 12 times what they did. */
                    if (!reach(is, &sp, f, next)) return build(g, kind, is, p);
                    continue;
                }
                int a = side_of(&sp, f), b = side_of(&sp, -2 - label);
                if (a != b) { /* two sides met: one */
                    sp.side[b] = a;
                    live--;
                }
            }
            /* Run dry: its side is closed once all its floods are (a side that met another
             * cannot close: the other's cells border it). Never the last live one. */
            int s = side_of(&sp, f);
            if (dry(&sp, f) && live > 1 && closed(&sp, s)) { /* an island of its own */
                int32_t n = side_cells(&sp, s);
                if (astar_progress_charge(p, (uint64_t)n)) return ASTAR_ESTOPPED;
                int32_t id = is->labels++;
                for (int o = 0; o < sp.k; o++)
                    if (side_of(&sp, o) == s) {
                        label_flood(is, &sp, o, id);
                        sp.cells[o] = 0; /* done with: not labelled again below */
                    }
                is->parent[id] = -n;
                is->parent[home] += n;
                live--;
            }
        }
    }
    /* What the floods of the side left reached stays on `home`, the root of its labels. */
    for (int f = 0; f < sp.k; f++) {
        if (!sp.cells[f]) continue;
        if (astar_progress_charge(p, (uint64_t)sp.cells[f])) return ASTAR_ESTOPPED;
        label_flood(is, &sp, f, home);
    }
    return ASTAR_OK;
}

/* One set of labels follows one cell's (or anchor's) change of ground. */
static void follow(astar_grid *g, int set, int32_t cell, bool now, astar_progress *p) {
    astar_islands *is = &g->islands[set];
    if (!is->fresh) return; /* none, or to be built on their next use */
    int kind = set % ASTAR_ISLAND_KINDS;
    astar_status st = now ? join(g, kind, is, cell, p) : split(g, kind, is, cell, p);
    /* A set_cost cannot fail half-way: stopped (or, building afresh, out of memory), the
     * labels are left to be built again on their next use. */
    if (st != ASTAR_OK) is->fresh = false;
}

void astar_islands_cell_changed(astar_grid *g, int32_t cell, bool walkable) {
    astar_progress *p = astar_progress_get();
    for (int kind = 0; kind < ASTAR_ISLAND_KINDS; kind++) follow(g, kind, cell, walkable, p);
}

void astar_islands_anchor_changed(astar_grid *g, int32_t cell, uint8_t before, uint8_t after) {
    astar_progress *p = astar_progress_get();
    for (int size = 2; size <= ASTAR_MAX_SIZE; size++)
        if ((before >= size) != (after >= size))
            for (int kind = 0; kind < ASTAR_ISLAND_SIZED_KINDS; kind++)
                follow(g, astar_island_set(kind, size), cell, after >= size, p);
}

uint64_t astar_islands_reset_units(const astar_grid *g) {
    uint64_t units = 0;
    for (int set = 0; set < ASTAR_ISLAND_SETS; set++)
        if (g->islands[set].label) units += 3 * (uint64_t)g->cells; /* a build's at most */
    return units;
}

void astar_islands_terrain_reset(astar_grid *g) {
    for (int set = 0; set < ASTAR_ISLAND_SETS; set++)
        if (g->islands[set].label)
            build(g, set % ASTAR_ISLAND_KINDS, &g->islands[set], astar_progress_none());
}

astar_status astar_islands_sized(astar_grid *g, int kind, int size, astar_islands **out) {
    *out = NULL;
    if (size < 1) size = 1;
    astar_islands *is = &g->islands[astar_island_set(kind, size)];
    /* A bigger unit's ground is the clearance table's, which its caller made (the table tells
     * these labels of its changes: clearance.c is below). */
    if (size > 1 && (!g->clearance || kind >= ASTAR_ISLAND_SIZED_KINDS)) return ASTAR_EINVAL; /* no hexes */
    if (!is->label) {
        /* The floods' scratch with the labels: a change allocates nothing. */
        is->label = astar_mem(&g->alloc, NULL, 0, label_bytes(g));
        is->pool = is->label ? astar_mem(&g->alloc, NULL, 0, (size_t)pool_chunks(g) * CHUNK * sizeof(int32_t)) : NULL;
        if (!is->pool) {
            astar_mem(&g->alloc, is->label, is->label ? label_bytes(g) : 0, 0);
            is->label = NULL;
            return ASTAR_ENOMEM;
        }
        is->chunks = pool_chunks(g);
        is->size = (uint8_t)size;
    }
    if (!is->fresh) {
        astar_status st = build(g, kind, is, astar_progress_get());
        if (st != ASTAR_OK) return st;
    }
    *out = is;
    return ASTAR_OK;
}

astar_status astar_islands_get(astar_grid *g, int kind, astar_islands **out) {
    return astar_islands_sized(g, kind, 1, out);
}

void astar_islands_free(astar_grid *g) {
    for (int set = 0; set < ASTAR_ISLAND_SETS; set++) {
        astar_islands *is = &g->islands[set];
        astar_mem(&g->alloc, is->label, is->label ? label_bytes(g) : 0, 0);
        astar_mem(&g->alloc, is->pool, (size_t)is->chunks * CHUNK * sizeof(int32_t), 0);
        astar_mem(&g->alloc, is->parent, (size_t)is->room * sizeof(int32_t), 0);
        memset(is, 0, sizeof *is);
    }
}

static bool inside(const astar_grid *g, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < g->width && y < g->height;
}

astar_status astar_grid_component(astar_grid *g, int32_t x, int32_t y, int32_t *id) {
    if (!inside(g, x, y)) return ASTAR_EINVAL;
    int32_t cell = astar_cell(g->stride, x, y);
    if (g->cost[cell] == INFINITY) {
        *id = -1;
        return ASTAR_OK;
    }
    astar_islands *is;
    astar_status st = astar_islands_get(g, astar_island_kind(g->diagonal), &is);
    if (st != ASTAR_OK) return st;
    *id = astar_islands_root(is, cell); /* the root label: the same for the whole island */
    return ASTAR_OK;
}

astar_status astar_grid_reachable(astar_grid *g, int32_t sx, int32_t sy, int32_t gx, int32_t gy,
                                  int *yes) {
    if (!inside(g, sx, sy) || !inside(g, gx, gy)) return ASTAR_EINVAL;
    *yes = 0;
    int32_t start = astar_cell(g->stride, sx, sy), goal = astar_cell(g->stride, gx, gy);
    if (g->cost[goal] == INFINITY) return ASTAR_OK;
    astar_islands *is;
    astar_status st = astar_islands_get(g, astar_island_kind(g->diagonal), &is);
    if (st != ASTAR_OK) return st;
    int32_t target = astar_islands_root(is, goal);
    if (g->cost[start] != INFINITY) {
        *yes = astar_islands_root(is, start) == target;
        return ASTAR_OK;
    }
    unsigned moves = astar_legal_row(g, g->diagonal, sy)[g->open[start]];
    for (int d = 0; d < 8; d++)
        if ((moves >> d & 1u) &&
            astar_islands_root(is, start + ASTAR_DY[d] * g->stride + ASTAR_DX[d]) == target)
            *yes = 1;
    return ASTAR_OK;
}
