/* Moving AI benchmark formats: .map grids and .scen problem lists, parsed from memory. */
#include "grid.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cursor over lines; '\r' before '\n' (or at the end) is not part of a line. */
typedef struct lines {
    const char *p, *end;
    int32_t number; /* of the line last returned, 1-based */
} lines;

static bool next_line(lines *ls, const char **line, size_t *n) {
    if (ls->p >= ls->end) return false;
    const char *start = ls->p;
    const char *nl = memchr(start, '\n', (size_t)(ls->end - start));
    const char *stop = nl ? nl : ls->end;
    ls->p = nl ? nl + 1 : ls->end;
    if (stop > start && stop[-1] == '\r') stop--;
    *line = start;
    *n = (size_t)(stop - start);
    ls->number++;
    return true;
}

/* The lines of a text; a UTF-8 byte order mark at its start (Windows' Notepad writes one) is not
 * part of the first line. */
static lines lines_of(const char *text, size_t len) {
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3, len -= 3;
    return (lines){text, text + len, 0};
}

static void fail(char *err, size_t errlen, int32_t line, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    int k = line > 0 ? snprintf(err, errlen, "line %d: ", (int)line) : 0;
    if (k < 0 || (size_t)k >= errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
    va_end(ap);
}

static bool is_blank(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t') return false;
    return true;
}

/* "key <int>" header lines: 0 if the line is not about key, 1 if read, -1 if the value is bad. */
static int header_int(const char *line, size_t n, const char *key, int32_t *out) {
    size_t k = strlen(key);
    if (n <= k || memcmp(line, key, k) != 0 || (line[k] != ' ' && line[k] != '\t')) return 0;
    while (n > k && (line[n - 1] == ' ' || line[n - 1] == '\t')) n--;
    size_t i = k;
    while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
    if (i == n) return -1;
    long v = 0;
    for (; i < n; i++) {
        if (line[i] < '0' || line[i] > '9' || v > ASTAR_MAX_SIDE) return -1;
        v = v * 10 + (line[i] - '0');
    }
    if (v < 1 || v > ASTAR_MAX_SIDE) return -1;
    *out = (int32_t)v;
    return 1;
}

static bool line_is(const char *line, size_t n, const char *word) {
    size_t k = strlen(word);
    while (n > k && (line[n - 1] == ' ' || line[n - 1] == '\t')) n--;
    return n == k && memcmp(line, word, k) == 0;
}

astar_grid *astar_movingai_parse(const char *text, size_t len, const astar_alloc *alloc,
                                 char *err, size_t errlen) {
    lines ls = lines_of(text, len);
    const char *line;
    size_t n;
    int32_t width = -1, height = -1;
    bool typed = false, in_map = false;
    int h;
    astar_made(NULL, ASTAR_EINVAL); /* why a NULL below is, unless said otherwise */
    while (!in_map && next_line(&ls, &line, &n)) {
        if (line_is(line, n, "type octile")) {
            typed = true;
        } else if (n >= 5 && memcmp(line, "type ", 5) == 0) {
            fail(err, errlen, ls.number, "unsupported map type '%.*s' (only octile)", (int)(n - 5), line + 5);
            return NULL;
        } else if ((h = header_int(line, n, "height", &height)) != 0 ||
                   (h = header_int(line, n, "width", &width)) != 0) {
            if (h < 0) {
                fail(err, errlen, ls.number, "bad %s: need a whole number in 1..%d",
                     line[0] == 'h' ? "height" : "width", ASTAR_MAX_SIDE);
                return NULL;
            }
        } else if (line_is(line, n, "map")) {
            in_map = true;
        } else {
            fail(err, errlen, ls.number, "unexpected header line '%.*s'", (int)(n > 40 ? 40 : n), line);
            return NULL;
        }
    }
    if (!in_map || !typed || width < 1 || height < 1) {
        fail(err, errlen, ls.number, "incomplete header: need 'type octile', 'height H' and "
                                     "'width W' (1..%d) before 'map'", ASTAR_MAX_SIDE);
        return NULL;
    }
    /* A short file must not make us allocate for the size its header claims. */
    if ((size_t)(ls.end - ls.p) < (size_t)width * (size_t)height) {
        fail(err, errlen, ls.number + 1, "the file is too short for a %dx%d map",
             (int)width, (int)height);
        return NULL;
    }
    astar_grid *g = astar_grid_new(width, height, ASTAR_DIAG_NO_CORNER_CUT, alloc);
    if (!g) { /* astar_grid_new noted why */
        if (astar_last_status() == ASTAR_ESTOPPED) fail(err, errlen, 0, "stopped by the progress handler");
        else fail(err, errlen, 0, "not enough memory for a %dx%d map", (int)width, (int)height);
        return NULL;
    }
    int32_t y = 0;
    astar_progress *progress = astar_progress_get();
    while (y < height && next_line(&ls, &line, &n)) {
        if (astar_progress_charge(progress, (uint64_t)width)) { /* a unit per cell read */
            fail(err, errlen, ls.number, "stopped by the progress handler");
            astar_grid_free(g);
            return astar_made(NULL, ASTAR_ESTOPPED);
        }
        if (n != (size_t)width) {
            fail(err, errlen, ls.number, "row %d has %zu characters, expected %d", (int)y + 1, n, (int)width);
            astar_grid_free(g);
            return NULL;
        }
        double *row = &g->cost[astar_cell(g->stride, 0, y)];
        for (int32_t x = 0; x < width; x++) {
            switch (line[x]) {
            case '.': case 'G': case 'S': row[x] = 1.0; break;
            case '@': case 'O': case 'T': case 'W': row[x] = INFINITY; break;
            default: /* raw only where it prints: a NUL would end the message */
                if (line[x] == '\t' || (line[x] >= ' ' && line[x] <= '~'))
                    fail(err, errlen, ls.number, "unknown character '%c' (0x%02x) in column %d",
                         line[x], (unsigned char)line[x], (int)x + 1);
                else
                    fail(err, errlen, ls.number, "unknown character 0x%02x in column %d",
                         (unsigned char)line[x], (int)x + 1);
                astar_grid_free(g);
                return NULL;
            }
        }
        y++;
    }
    if (y < height) {
        fail(err, errlen, ls.number, "the map has %d rows, expected %d", (int)y, (int)height);
        astar_grid_free(g);
        return NULL;
    }
    while (next_line(&ls, &line, &n)) {
        if (!is_blank(line, n)) {
            fail(err, errlen, ls.number, "more rows than the header's height %d", (int)height);
            astar_grid_free(g);
            return NULL;
        }
    }
    astar_grid_terrain_reset(g);
    return astar_made(g, ASTAR_OK);
}

/* ------------------------------------------------------------------ scen */

/* A parsed file and what only its free needs, kept out of the public astar_scen: the room
 * of items (one per line of the text) and the allocator. */
typedef struct scen_box {
    astar_scen scen; /* first: an astar_scen * handed out is its box's address */
    int32_t capacity;
    astar_alloc alloc;
} scen_box;

void astar_scen_free(astar_scen *scen) {
    if (!scen) return;
    scen_box *box = (scen_box *)scen;
    astar_alloc a = box->alloc;
    astar_mem(&a, scen->items, (size_t)box->capacity * sizeof *scen->items, 0);
    astar_mem(&a, scen->strings, scen->strings_size, 0);
    astar_mem(&a, box, sizeof *box, 0);
}

/* Splits a line into at most max fields on runs of spaces and tabs; returns the count. */
static int split_fields(char *line, char **fields, int max) {
    int k = 0;
    char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) break;
        if (k == max) return max + 1;
        fields[k++] = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        if (*p) *p++ = '\0';
    }
    return k;
}

static bool parse_int(const char *s, int32_t lo, int32_t hi, int32_t *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = (int32_t)v;
    return true;
}

/*
 * Half a unit of the last digit printed in s ("244.95" -> 0.005, "3" -> 0.5), never coarser
 * than 0.5: "1e3" still has to match to half a step, and "0e99999" must not match anything.
 */
static double print_precision(const char *s) {
    const char *dot = strchr(s, '.');
    const char *e = strpbrk(s, "eE");
    int decimals = 0;
    if (dot) {
        const char *stop = e ? e : s + strlen(s);
        decimals = (int)(stop - dot - 1);
    }
    /* strtol clamps where atoi overflows; the difference is formed in double for the same reason. */
    long exponent = e ? strtol(e + 1, NULL, 10) : 0;
    return fmin(0.5, 0.5 * pow(10.0, (double)exponent - (double)decimals));
}

astar_scen *astar_scen_parse(const char *text, size_t len, const astar_alloc *alloc, char *err,
                             size_t errlen) {
    astar_alloc a = astar_pick_alloc(alloc);
    scen_box *box = astar_mem(&a, NULL, 0, sizeof *box);
    if (!box) {
        fail(err, errlen, 0, "not enough memory");
        return NULL;
    }
    memset(box, 0, sizeof *box);
    box->alloc = a;
    astar_scen *scen = &box->scen;
    /* One copy of the text: lines are split in place and map fields point into it. */
    scen->strings_size = len + 1;
    scen->strings = astar_mem(&a, NULL, 0, scen->strings_size);
    int32_t lines_total = 1;
    for (size_t i = 0; i < len; i++) lines_total += text[i] == '\n';
    if (lines_total > INT32_MAX / 2) lines_total = INT32_MAX / 2;
    box->capacity = lines_total;
    size_t bytes = astar_array_size((size_t)lines_total, sizeof *scen->items);
    scen->items = bytes ? astar_mem(&a, NULL, 0, bytes) : NULL;
    if (!scen->strings || !scen->items) {
        fail(err, errlen, 0, "not enough memory");
        astar_scen_free(scen);
        return NULL;
    }
    memcpy(scen->strings, text, len);
    scen->strings[len] = '\0';

    lines ls = lines_of(scen->strings, len);
    const char *cline;
    size_t n;
    bool versioned = false;
    while (next_line(&ls, &cline, &n)) {
        char *line = (char *)cline; /* points into our own copy */
        line[n] = '\0';              /* the '\n' or '\r' (or the final NUL) */
        if (is_blank(line, n)) continue;
        if (!versioned) {
            if (!line_is(line, n, "version 1") && !line_is(line, n, "version 1.0")) {
                fail(err, errlen, ls.number, "expected 'version 1' first, got '%.*s'",
                     (int)(n > 40 ? 40 : n), line);
                astar_scen_free(scen);
                return NULL;
            }
            versioned = true;
            continue;
        }
        char *f[9];
        int k = split_fields(line, f, 9);
        if (k != 9) {
            fail(err, errlen, ls.number, "expected 9 fields, got %s%d", k > 9 ? "more than " : "",
                 k > 9 ? 9 : k);
            astar_scen_free(scen);
            return NULL;
        }
        astar_scenario *s = &scen->items[scen->count];
        char *end;
        s->map = f[1];
        if (!parse_int(f[0], 0, INT32_MAX, &s->bucket) ||
            !parse_int(f[2], 1, ASTAR_MAX_SIDE, &s->map_width) ||
            !parse_int(f[3], 1, ASTAR_MAX_SIDE, &s->map_height)) {
            fail(err, errlen, ls.number, "bad bucket or map size");
            astar_scen_free(scen);
            return NULL;
        }
        if (!parse_int(f[4], 0, s->map_width - 1, &s->sx) ||
            !parse_int(f[5], 0, s->map_height - 1, &s->sy) ||
            !parse_int(f[6], 0, s->map_width - 1, &s->gx) ||
            !parse_int(f[7], 0, s->map_height - 1, &s->gy)) {
            fail(err, errlen, ls.number, "a coordinate is not an integer inside the %dx%d map",
                 (int)s->map_width, (int)s->map_height);
            astar_scen_free(scen);
            return NULL;
        }
        errno = 0;
        s->optimal = strtod(f[8], &end);
        /* Plain decimal only: strtod would also take hex floats, whose precision means nothing. */
        if (errno || end == f[8] || *end || f[8][strspn(f[8], "0123456789.eE+-")] ||
            !(s->optimal >= 0) || s->optimal == INFINITY) {
            fail(err, errlen, ls.number, "optimal length '%.24s' is not a number >= 0", f[8]);
            astar_scen_free(scen);
            return NULL;
        }
        s->precision = print_precision(f[8]);
        scen->count++;
    }
    if (!versioned) {
        fail(err, errlen, ls.number > 0 ? ls.number : 1, "empty scenario file (no 'version' line)");
        astar_scen_free(scen);
        return NULL;
    }
    return scen;
}
