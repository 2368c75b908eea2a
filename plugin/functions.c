/*
 * Kernel functions from a System.map, and counts per function. See
 * functions.h; the choice among aliases is perf's choose_best_symbol()
 * (tools/perf/util/symbol.c) but for its first rule, a symbol with a size
 * before one without: System.map has no sizes.
 */
#define _POSIX_C_SOURCE 200809L
#include "functions.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct symbol {
    uint64_t addr;
    /* index into names (1..), 0 for UNKNOWN_FUNCTION */
    size_t name;
};

struct functions {
    /* by address, one a distinct address */
    struct symbol *symbols;
    size_t n_symbols;
    /* distinct names in byte order, names[0] UNKNOWN_FUNCTION */
    char **names;
    size_t n_names;
};

/* A text symbol as read, with what ranks it among its aliases. */
struct read_symbol {
    uint64_t addr;
    /* 1 T, 2 t, 3 W, 4 w: not weak before weak, global before local */
    int type_rank;
    size_t underscores, len;
    char *name;
};

static int type_rank(char type)
{
    switch (type) {
    case 'T': return 1;
    case 't': return 2;
    case 'W': return 3;
    case 'w': return 4;
    }
    return 0;
}

/* By address, then the alias to keep first. */
static int by_address_best_first(const void *pa, const void *pb)
{
    const struct read_symbol *a = pa, *b = pb;
    if (a->addr != b->addr) {
        return a->addr < b->addr ? -1 : 1;
    }
    if (a->type_rank != b->type_rank) {
        return a->type_rank - b->type_rank;
    }
    if (a->underscores != b->underscores) {
        return a->underscores < b->underscores ? -1 : 1;
    }
    if (a->len != b->len) {
        return a->len > b->len ? -1 : 1;
    }
    return strcmp(a->name, b->name);
}

static int by_name(const void *pa, const void *pb)
{
    return strcmp(*(char *const *)pa, *(char *const *)pb);
}

static void fail(char *why, size_t why_len, const char *path, const char *what, size_t line)
{
    if (line) {
        snprintf(why, why_len, "%s:%zu: %s", path, line, what);
    } else {
        snprintf(why, why_len, "%s: %s", path, what);
    }
}

/* Parses "ADDRESS TYPE NAME" into s (the name copied); 1 a text symbol,
 * 0 another line, -1 a text symbol whose address is not hex, -2 out of
 * memory. */
static int parse(char *line, struct read_symbol *s)
{
    char *addr = strtok(line, " \t\r\n");
    char *type = strtok(NULL, " \t\r\n");
    char *name = strtok(NULL, " \t\r\n");
    if (!addr || !type || !name || type[1] != '\0' || !type_rank(type[0])) {
        return 0;
    }
    size_t digits = strspn(addr, "0123456789abcdefABCDEF");
    if (digits == 0 || digits > 16 || addr[digits] != '\0') {
        return -1;
    }
    s->addr = strtoull(addr, NULL, 16);
    s->type_rank = type_rank(type[0]);
    s->underscores = strspn(name, "_");
    s->len = strlen(name);
    s->name = strdup(name);
    return s->name ? 1 : -2;
}

/* The symbols read, sorted: keeps the first of each address, and gives
 * every kept one the index of its name among the distinct names. */
static int keep_best(struct functions *f, struct read_symbol *all, size_t n)
{
    qsort(all, n, sizeof *all, by_address_best_first);
    f->symbols = malloc(n * sizeof *f->symbols);
    f->names = malloc((n + 1) * sizeof *f->names);
    if (!f->symbols || !f->names) {
        return -1;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && all[i].addr == all[i - 1].addr) {
            continue;
        }
        f->symbols[kept].addr = all[i].addr;
        f->names[1 + kept] = all[i].name;
        all[i].name = NULL;
        kept++;
    }
    f->n_symbols = kept;
    f->names[0] = NULL;
    /* functions_free() frees these from here on */
    f->n_names = 1 + kept;
    /* Distinct names: sorted, each kept once (the duplicates freed). */
    char **sorted = malloc(kept * sizeof *sorted);
    if (!sorted) {
        return -1;
    }
    memcpy(sorted, f->names + 1, kept * sizeof *sorted);
    qsort(sorted, kept, sizeof *sorted, by_name);
    size_t distinct = 0;
    for (size_t i = 0; i < kept; i++) {
        if (distinct > 0 && strcmp(sorted[i], sorted[distinct - 1]) == 0) {
            continue;
        }
        sorted[distinct++] = sorted[i];
    }
    for (size_t i = 0; i < kept; i++) {
        char *name = f->names[1 + i];
        char **at = bsearch(&name, sorted, distinct, sizeof *sorted, by_name);
        f->symbols[i].name = 1 + (size_t)(at - sorted);
        if (*at != name) {
            free(name);
        }
    }
    memcpy(f->names + 1, sorted, distinct * sizeof *sorted);
    free(sorted);
    f->n_names = 1 + distinct;
    return 0;
}

struct functions *functions_load(const char *path, char *why, size_t why_len)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fail(why, why_len, path, strerror(errno), 0);
        return NULL;
    }
    struct functions *f = calloc(1, sizeof *f);
    struct read_symbol *all = NULL;
    size_t n = 0, cap = 0, line_no = 0, len = 0;
    char *line = NULL;
    const char *bad = NULL;
    while (f && !bad && getline(&line, &len, in) >= 0) {
        line_no++;
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            struct read_symbol *grown = realloc(all, cap * sizeof *all);
            if (!grown) {
                bad = "out of memory";
                break;
            }
            all = grown;
        }
        int got = parse(line, &all[n]);
        if (got == 1) {
            n++;
        } else if (got == -1) {
            bad = "a text symbol whose address is not 1 to 16 hex digits";
        } else if (got == -2) {
            bad = "out of memory";
        }
    }
    if (!f) {
        fail(why, why_len, path, "out of memory", 0);
    } else if (bad) {
        fail(why, why_len, path, bad, line_no);
    } else if (ferror(in)) {
        fail(why, why_len, path, "read error", 0);
        bad = "read error";
    } else if (n == 0) {
        fail(why, why_len, path, "no text symbols (T, t, W, w)", 0);
        bad = "empty";
    } else if (keep_best(f, all, n) != 0) {
        fail(why, why_len, path, "out of memory", 0);
        bad = "out of memory";
    }
    for (size_t i = 0; i < n; i++) {
        free(all[i].name);
    }
    free(all);
    free(line);
    fclose(in);
    if (f && bad) {
        functions_free(f);
        f = NULL;
    }
    return f;
}

void functions_free(struct functions *f)
{
    if (!f) {
        return;
    }
    for (size_t i = 1; i < f->n_names; i++) {
        free(f->names[i]);
    }
    free(f->names);
    free(f->symbols);
    free(f);
}

size_t functions_addresses(const struct functions *f)
{
    return f->n_symbols;
}

size_t functions_names(const struct functions *f)
{
    return f->n_names;
}

size_t functions_find(const struct functions *f, uint64_t addr)
{
    /* the last symbol at or below addr: lo symbols are at or below it */
    size_t lo = 0, hi = f->n_symbols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->symbols[mid].addr <= addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo == 0 ? 0 : f->symbols[lo - 1].name;
}

const char *functions_name(const struct functions *f, size_t name)
{
    return name == 0 ? UNKNOWN_FUNCTION : f->names[name];
}

int tally_init(struct tally *t, size_t names)
{
    t->names = names;
    t->count = calloc(names, sizeof *t->count);
    return t->count ? 0 : -1;
}

void tally_clear(struct tally *t)
{
    memset(t->count, 0, t->names * sizeof *t->count);
}

void tally_add(struct tally *t, size_t name, int series, uint64_t execs, int locked)
{
    t->count[name][series][TALLY_INSNS] += execs;
    if (locked) {
        t->count[name][series][TALLY_LOCKED] += execs;
    }
}

size_t tally_functions(const struct tally *t, int series, int kind)
{
    size_t n = 0;
    for (size_t i = 0; i < t->names; i++) {
        n += t->count[i][series][kind] != 0;
    }
    return n;
}

struct row {
    uint64_t count;
    const char *name;
};

static int most_first(const void *pa, const void *pb)
{
    const struct row *a = pa, *b = pb;
    if (a->count != b->count) {
        return a->count > b->count ? -1 : 1;
    }
    return strcmp(a->name, b->name);
}

int tally_write(FILE *out, const struct tally *t, const struct functions *f,
                int series, int kind, const char *word)
{
    size_t n = tally_functions(t, series, kind);
    struct row *rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows) {
        return -1;
    }
    n = 0;
    for (size_t i = 0; i < t->names; i++) {
        if (t->count[i][series][kind]) {
            rows[n].count = t->count[i][series][kind];
            rows[n].name = functions_name(f, i);
            n++;
        }
    }
    qsort(rows, n, sizeof *rows, most_first);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s %d %" PRIu64 " %s\n", word, series, rows[i].count, rows[i].name);
    }
    free(rows);
    return 0;
}

static int by_address_then_event(const void *pa, const void *pb)
{
    const struct event_at *a = pa, *b = pb;
    if (a->addr != b->addr) {
        return a->addr < b->addr ? -1 : 1;
    }
    return a->event < b->event ? -1 : a->event > b->event;
}

/* The names of list, split at its colons (copies); their count in *n, or
 * -1 with why filled in. */
static char **split_names(const char *list, size_t *n, char *why, size_t why_len)
{
    size_t cap = 1;
    for (const char *c = list; *c; c++) {
        cap += *c == ':';
    }
    char **names = calloc(cap, sizeof *names);
    *n = 0;
    if (!names) {
        snprintf(why, why_len, "events: out of memory");
        return NULL;
    }
    for (const char *c = list; *list != '\0';) {
        size_t len = strcspn(c, ":");
        const char *bad = NULL;
        if (len == 0) {
            bad = "an empty name (events=NAME:NAME:...)";
        }
        for (size_t i = 0; !bad && i < *n; i++) {
            if (strlen(names[i]) == len && strncmp(names[i], c, len) == 0) {
                bad = "a name given twice";
            }
        }
        if (!bad && !(names[*n] = strndup(c, len))) {
            bad = "out of memory";
        }
        if (bad) {
            snprintf(why, why_len, "events: %s: '%s'", bad, list);
            for (size_t i = 0; i < *n; i++) {
                free(names[i]);
            }
            free(names);
            return NULL;
        }
        (*n)++;
        if (c[len] == '\0') {
            break;
        }
        c += len + 1;
    }
    return names;
}

/* Finds the names' text symbols in the map at path: (address, name) pairs
 * into e->at, and found[i] set for each name with one; 0, or -1 with why. */
static int find_names(struct events *e, char **names, size_t n, int *found,
                      const char *path, char *why, size_t why_len)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fail(why, why_len, path, strerror(errno), 0);
        return -1;
    }
    char *line = NULL;
    size_t len = 0, line_no = 0, cap = 0;
    const char *bad = NULL;
    while (!bad && getline(&line, &len, in) >= 0) {
        struct read_symbol s;
        line_no++;
        int got = parse(line, &s);
        if (got == -1) {
            bad = "a text symbol whose address is not 1 to 16 hex digits";
        } else if (got == -2) {
            bad = "out of memory";
        }
        for (size_t i = 0; got == 1 && !bad && i < n; i++) {
            if (strcmp(s.name, names[i]) != 0) {
                continue;
            }
            if (e->n_at == cap) {
                cap = cap ? 2 * cap : 16;
                struct event_at *grown = realloc(e->at, cap * sizeof *grown);
                if (!grown) {
                    bad = "out of memory";
                    break;
                }
                e->at = grown;
            }
            e->at[e->n_at].addr = s.addr;
            e->at[e->n_at].event = i;
            e->n_at++;
            found[i] = 1;
        }
        if (got == 1) {
            free(s.name);
        }
    }
    if (!bad && ferror(in)) {
        bad = "read error";
        line_no = 0;
    }
    free(line);
    fclose(in);
    if (bad) {
        fail(why, why_len, path, bad, line_no);
        return -1;
    }
    return 0;
}

int events_load(struct events *e, const char *path, const char *list, char *why,
                size_t why_len)
{
    size_t n;
    memset(e, 0, sizeof *e);
    char **names = split_names(list, &n, why, why_len);
    if (!names) {
        return -1;
    }
    int *found = calloc(n ? n : 1, sizeof *found);
    /* new index of each name among the watched ones */
    size_t *watched = calloc(n ? n : 1, sizeof *watched);
    size_t missing_len = 1;
    int rc = -1;
    if (!found || !watched) {
        snprintf(why, why_len, "events: out of memory");
        goto out;
    }
    if (find_names(e, names, n, found, path, why, why_len) != 0) {
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        missing_len += found[i] ? 0 : strlen(names[i]) + 1;
    }
    e->names = calloc(n ? n : 1, sizeof *e->names);
    e->count = calloc(n ? n : 1, sizeof *e->count);
    e->missing = missing_len > 1 ? calloc(missing_len, 1) : NULL;
    if (!e->names || !e->count || (missing_len > 1 && !e->missing)) {
        snprintf(why, why_len, "events: out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (found[i]) {
            watched[i] = e->n;
            e->names[e->n++] = names[i];
        } else {
            if (*e->missing) {
                strcat(e->missing, ":");
            }
            strcat(e->missing, names[i]);
            free(names[i]);
        }
        names[i] = NULL;
    }
    for (size_t i = 0; i < e->n_at; i++) {
        e->at[i].event = watched[e->at[i].event];
    }
    if (e->n_at) {
        qsort(e->at, e->n_at, sizeof *e->at, by_address_then_event);
    }
    rc = 0;
out:
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
    free(found);
    free(watched);
    if (rc != 0) {
        events_free(e);
    }
    return rc;
}

void events_free(struct events *e)
{
    for (size_t i = 0; e->names && i < e->n; i++) {
        free(e->names[i]);
    }
    free(e->names);
    free(e->count);
    free(e->missing);
    free(e->at);
    memset(e, 0, sizeof *e);
}

void events_add(struct events *e, uint64_t addr, int series, uint64_t execs)
{
    /* the first pair at addr or above it */
    size_t lo = 0, hi = e->n_at;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->at[mid].addr < addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (; lo < e->n_at && e->at[lo].addr == addr; lo++) {
        e->count[e->at[lo].event][series] += execs;
    }
}

void events_clear(struct events *e)
{
    if (e->count) {
        memset(e->count, 0, e->n * sizeof *e->count);
    }
}

void events_write_header(FILE *out, const struct events *e)
{
    fputs("events watched=", out);
    for (size_t i = 0; i < e->n; i++) {
        fprintf(out, "%s%s", i ? ":" : "", e->names[i]);
    }
    fprintf(out, "%s missing=%s\n", e->n ? "" : "-", e->missing ? e->missing : "-");
}

void events_write(FILE *out, const struct events *e, int series, const char *word)
{
    for (size_t i = 0; i < e->n; i++) {
        fprintf(out, "%s %d %" PRIu64 " %s\n", word, series, e->count[i][series], e->names[i]);
    }
}
