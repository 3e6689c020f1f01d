/*
 * fuzz_movingai.c -- libFuzzer target for the Moving AI .map and .scen parsers.
 *
 * Input layout:
 *   byte 0   control bits
 *            0-1  error buffer: 0 = 256 bytes, 1 = none (err NULL or errlen 0),
 *                 2 = 1 byte, 3 = 17 bytes (messages get truncated)
 *            2-3  allocator: 0 = counting, never refuses; 1 = refuse request k
 *                 only; 2 = refuse k and every later one; 3 = none (malloc,
 *                 leaks left to LeakSanitizer): NULL, or {NULL, NULL} when
 *                 k is odd
 *            7    do not split: both parsers get the whole text
 *   byte 1   k - 1 (k in 1..16: the parsers make at most three requests each)
 *   rest     text; the part before the first NUL byte is the .map text, the
 *            part after it the .scen text (without a NUL both get all of it)
 *
 * Each part is copied into a block of exactly its size so that ASan sees any
 * read past the length the parser was given.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astar.h"
#include "fuzz_alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ERRBUF 300
#define CANARY 0xA5
#define SQRT2 1.4142135623730951

/* A step's cost rounded up to quanta of 2^-32, as the contract says the core rounds it. */
static double round_up(double x) {
    return x < 524288.0 ? ceil(x * 4294967296.0) / 4294967296.0 : x;
}
/* Searches on bigger maps would slow the fuzzer down without covering more parser code. */
#define FIND_MAX_CELLS 4096

static fuzz_heap heap;

static void fail_if(bool bad, const char *what) {
    if (bad) fuzz_die(what);
}

static char *copy_exact(const char *text, size_t len) {
    char *p = malloc(len ? len : 1);
    if (!p) fuzz_die("malloc failed");
    if (len) memcpy(p, text, len);
    return p;
}

typedef struct errbuf {
    char buf[ERRBUF];
    char *err;      /* what the parser gets: buf or NULL */
    size_t errlen;
} errbuf;

static void errbuf_init(errbuf *e, unsigned mode) {
    memset(e->buf, CANARY, sizeof e->buf);
    static const size_t lens[4] = {256, 0, 1, 17};
    e->errlen = lens[mode & 3];
    e->err = e->buf;
}

/* After a failed parse: a terminated message inside errlen, nothing written past it. */
static void errbuf_check_failed(const errbuf *e, bool oom) {
    for (size_t i = e->errlen; i < ERRBUF; i++)
        fail_if((unsigned char)e->buf[i] != CANARY, "error message written past errlen");
    if (e->errlen == 0) return;
    fail_if(!memchr(e->buf, '\0', e->errlen), "error message not NUL-terminated inside errlen");
    if (e->errlen >= 2) fail_if(e->buf[0] == '\0', "failed without an error message");
    if (oom && e->errlen >= 256)
        fail_if(!strstr(e->buf, "memory"), "an allocation failed but the message does not say so");
}

/* '.', 'G', 'S' walk at cost 1; '@', 'O', 'T', 'W' block; anything else is an error. */
static int map_char_cost(char ch, double *cost) {
    switch (ch) {
    case '.': case 'G': case 'S': *cost = 1.0; return 1;
    case '@': case 'O': case 'T': case 'W': *cost = INFINITY; return 1;
    default: return 0;
    }
}

/*
 * Checks a successfully parsed grid against the text, reading the rows
 * independently: they follow the first line that says "map" (after dropping
 * one '\r' before the line end and trailing blanks).
 */
static void check_grid_against_text(astar_grid *g, const char *text, size_t len) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    fail_if(w < 1 || h < 1 || w > ASTAR_MAX_SIDE || h > ASTAR_MAX_SIDE, "grid size out of range");
    fail_if((size_t)w * (size_t)h > len, "grid larger than its text");
    fail_if(astar_grid_diagonal(g) != ASTAR_DIAG_NO_CORNER_CUT, "map grid not no_corner_cut");
    size_t pos = 0;
    bool in_map = false;
    int32_t y = 0;
    bool any_walkable = false;
    while (pos < len && y < h) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        if (n > 0 && line[n - 1] == '\r') n--;
        if (!in_map) {
            size_t m = n;
            while (m > 3 && (line[m - 1] == ' ' || line[m - 1] == '\t')) m--;
            in_map = m == 3 && memcmp(line, "map", 3) == 0;
            continue;
        }
        fail_if(n != (size_t)w, "accepted a row of the wrong width");
        for (int32_t x = 0; x < w; x++) {
            double want;
            fail_if(!map_char_cost(line[x], &want), "accepted an unknown map character");
            double got = astar_grid_get_cost(g, x, y);
            fail_if(got != want, "cell cost differs from the map character");
            any_walkable |= want == 1.0;
        }
        y++;
    }
    fail_if(y != h, "accepted a map with missing rows");
    fail_if(!isnan(astar_grid_get_cost(g, -1, 0)) || !isnan(astar_grid_get_cost(g, w, h - 1)),
            "get_cost outside the grid is not NaN");
    double min = astar_grid_min_cost(g);
    fail_if(min != (any_walkable ? 1.0 : INFINITY), "min_cost of a parsed map is wrong");
}

static void check_scen(const astar_scen *sc, const char *text, size_t len) {
    size_t newlines = 0;
    for (size_t i = 0; i < len; i++) newlines += text[i] == '\n';
    /* One line at least is the version line, so there is one problem fewer than lines. */
    fail_if(sc->count < 0 || (size_t)sc->count > newlines, "scenario count exceeds the lines");
    fail_if(sc->strings_size != len + 1, "scenario string storage has an odd size");
    for (int32_t i = 0; i < sc->count; i++) {
        const astar_scenario *s = &sc->items[i];
        fail_if(s->bucket < 0, "negative bucket");
        fail_if(s->map_width < 1 || s->map_width > ASTAR_MAX_SIDE || s->map_height < 1 ||
                    s->map_height > ASTAR_MAX_SIDE,
                "scenario map size out of range");
        fail_if(s->sx < 0 || s->sx >= s->map_width || s->gx < 0 || s->gx >= s->map_width ||
                    s->sy < 0 || s->sy >= s->map_height || s->gy < 0 || s->gy >= s->map_height,
                "scenario coordinates outside the map");
        fail_if(!(s->optimal >= 0) || s->optimal == INFINITY, "scenario optimal not a number >= 0");
        fail_if(isnan(s->precision) || s->precision < 0 || s->precision > 0.5,
                "scenario precision not a number in [0, 0.5]");
        fail_if(s->map < sc->strings || s->map >= sc->strings + sc->strings_size,
                "scenario map name points outside the string storage");
        size_t room = (size_t)(sc->strings + sc->strings_size - s->map);
        const char *end = memchr(s->map, '\0', room);
        fail_if(!end, "scenario map name not terminated inside the storage");
        fail_if(end == s->map, "empty scenario map name");
        fail_if(strpbrk(s->map, " \t") != NULL, "scenario map name holds a separator");
    }
}

/* Walkable as the map search sees it: inside and not blocked terrain. */
static bool open_cell(const astar_grid *g, int32_t x, int32_t y) {
    return astar_grid_get_cost(g, x, y) == 1.0; /* NaN outside, INFINITY blocked */
}

/* Runs one search and checks the path step by step (no_corner_cut, unit costs). */
static void find_and_check(astar_search *s, astar_grid *g, int32_t sx, int32_t sy, int32_t gx,
                           int32_t gy) {
    astar_query q;
    astar_query_init(&q);
    q.sx = sx;
    q.sy = sy;
    q.gx = gx;
    q.gy = gy;
    astar_result res;
    uint64_t failures = heap.failures;
    astar_status st = astar_find(s, g, &q, &res);
    fail_if(st != res.status, "astar_find returned a status other than res.status");
    bool oom = heap.failures != failures;
    fail_if((st == ASTAR_ENOMEM) != oom, "ENOMEM without a refused allocation, or the reverse");
    if (oom) return;
    if (!open_cell(g, gx, gy)) {
        fail_if(st != ASTAR_UNREACHABLE, "a blocked goal was not unreachable");
        return;
    }
    fail_if(st != ASTAR_OK && st != ASTAR_UNREACHABLE, "unexpected status on a plain query");
    int32_t len;
    const int32_t *path = astar_search_path(s, &len);
    if (st != ASTAR_OK) {
        fail_if(len != 0 || res.length != 0, "a path after a failed search");
        return;
    }
    int32_t w = astar_grid_width(g);
    fail_if(len < 1 || len != res.length, "path length disagrees with the result");
    fail_if(path[0] != sy * w + sx || path[len - 1] != gy * w + gx, "path endpoints wrong");
    double cost = 0.0;
    for (int32_t i = 1; i < len; i++) {
        int32_t ax = path[i - 1] % w, ay = path[i - 1] / w, bx = path[i] % w, by = path[i] / w;
        int32_t dx = bx - ax, dy = by - ay;
        fail_if(dx < -1 || dx > 1 || dy < -1 || dy > 1 || (dx == 0 && dy == 0),
                "path step between cells that are not neighbours");
        fail_if(!open_cell(g, bx, by), "path enters a blocked cell");
        if (dx != 0 && dy != 0) {
            fail_if(!open_cell(g, ax + dx, ay) || !open_cell(g, ax, ay + dy),
                    "path cuts a corner on a no_corner_cut map");
            cost = cost + round_up(SQRT2 * 1.0 + 0.0);
        } else {
            cost = cost + round_up(1.0 * 1.0 + 0.0);
        }
    }
    fail_if(cost != res.cost, "reported cost differs from the path's cost");
}

static void run_searches(astar_grid *g, const astar_scen *sc, const astar_alloc *alloc) {
    int32_t w = astar_grid_width(g), h = astar_grid_height(g);
    if ((int64_t)w * h > FIND_MAX_CELLS) return;
    astar_search *s = astar_search_new(w, h, alloc);
    if (!s) {
        fail_if(heap.failures == 0, "astar_search_new returned NULL without an allocation failure");
        return;
    }
    /* The scenarios written for this map size (their cells may be blocked: fine). */
    for (int32_t i = 0, tried = 0; sc && i < sc->count && tried < 3; i++) {
        const astar_scenario *p = &sc->items[i];
        if (p->map_width != w || p->map_height != h) continue;
        find_and_check(s, g, p->sx, p->sy, p->gx, p->gy);
        tried++;
    }
    /* The first and the last walkable cell: usually far apart. */
    int32_t first = -1, last = -1;
    for (int32_t c = 0; c < w * h; c++)
        if (open_cell(g, c % w, c / w)) {
            if (first < 0) first = c;
            last = c;
        }
    if (first >= 0) find_and_check(s, g, first % w, first / w, last % w, last / w);
    astar_search_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    unsigned ctl = data[0];
    unsigned fail_mode = (ctl >> 2) & 3;
    uint64_t fail_at = fail_mode == 1 || fail_mode == 2 ? (uint64_t)(data[1] % 16) + 1 : 0;
    fuzz_heap_reset(&heap, fail_at, fail_mode == 2);
    astar_alloc counting = {fuzz_alloc_fn, &heap};
    static const astar_alloc malloc_alloc = {NULL, NULL};
    const astar_alloc *alloc = fail_mode != 3 ? &counting : (data[1] & 1) ? &malloc_alloc : NULL;

    const char *text = (const char *)data + 2;
    size_t len = size - 2;
    size_t map_len = len, scen_off = 0, scen_len = len;
    const char *nul = (ctl & 0x80) ? NULL : memchr(text, '\0', len);
    if (nul) {
        map_len = (size_t)(nul - text);
        scen_off = map_len + 1;
        scen_len = len - scen_off;
    }
    char *map_text = copy_exact(text, map_len);
    char *scen_text = copy_exact(text + scen_off, scen_len);

    errbuf e;
    errbuf_init(&e, ctl);
    /* errlen 0 is tried both with and without a buffer. */
    if (e.errlen == 0 && (ctl & 0x40)) e.err = NULL;
    uint64_t failures = heap.failures;
    astar_grid *g = astar_movingai_parse(map_text, map_len, alloc, e.err, e.errlen);
    bool oom = heap.failures != failures;
    if (g) {
        fail_if(oom, "parsed a map although an allocation failed");
        check_grid_against_text(g, map_text, map_len);
    } else {
        errbuf_check_failed(&e, oom);
    }

    errbuf_init(&e, ctl);
    if (e.errlen == 0 && (ctl & 0x40)) e.err = NULL;
    failures = heap.failures;
    astar_scen *sc = astar_scen_parse(scen_text, scen_len, alloc, e.err, e.errlen);
    oom = heap.failures != failures;
    if (sc) {
        fail_if(oom, "parsed a scenario file although an allocation failed");
        check_scen(sc, scen_text, scen_len);
    } else {
        errbuf_check_failed(&e, oom);
    }

    if (g) run_searches(g, sc, alloc);

    astar_scen_free(sc);
    astar_grid_free(g);
    fuzz_heap_check_empty(&heap);
    free(map_text);
    free(scen_text);
    return 0;
}
