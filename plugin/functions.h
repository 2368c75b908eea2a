/*
 * Kernel functions from a System.map, instruction counts per function and
 * entries into watched functions (events) (docs/cost.md, "The counts",
 * "Events"): what the cost counter writes for each run, free of QEMU so
 * that tests/cost/driver.c can run it on made-up input.
 */
#ifndef URING_REPRO_COST_FUNCTIONS_H
#define URING_REPRO_COST_FUNCTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "marker.h"

/* The name of an address below every text symbol. */
#define UNKNOWN_FUNCTION "[unknown]"

/* A System.map's text symbols, one name per address. */
struct functions;

/* Reads the text symbols (T, t, W, w) of the System.map at path; NULL,
 * with why filled in, if it cannot be read or has none. Of several symbols
 * at one address the one perf's choose_best_symbol() keeps is used: not
 * weak before weak, global before local, the fewest leading underscores,
 * the longest name, then the first in byte order. */
struct functions *functions_load(const char *path, char *why, size_t why_len);
void functions_free(struct functions *f);
/* The addresses of the text symbols read, and the distinct names they
 * give, [unknown] one of them (local functions that share a name are one
 * function). */
size_t functions_addresses(const struct functions *f);
size_t functions_names(const struct functions *f);
/* The function of an address: the name of the last symbol at or below it
 * (UNKNOWN_FUNCTION below them all), as an index below functions_names(). */
size_t functions_find(const struct functions *f, uint64_t addr);
const char *functions_name(const struct functions *f, size_t name);

/* Executions per function and series: all of them, and those of locked
 * instructions. */
struct tally {
    size_t names;
    uint64_t (*count)[COST_SERIES][2];
};
#define TALLY_INSNS 0
#define TALLY_LOCKED 1

/* 0, or -1 when out of memory. */
int tally_init(struct tally *t, size_t names);
void tally_clear(struct tally *t);
void tally_add(struct tally *t, size_t name, int series, uint64_t execs, int locked);
/* The functions with a count of kind (TALLY_INSNS, TALLY_LOCKED) in series. */
size_t tally_functions(const struct tally *t, int series, int kind);
/* One line `WORD SERIES COUNT FUNCTION` per function with a count of kind
 * in series, the most first, ties by name in byte order; 0, or -1 when out
 * of memory. */
int tally_write(FILE *out, const struct tally *t, const struct functions *f,
                int series, int kind, const char *word);

/* Events: kernel functions whose entries are counted, an entry being an
 * execution of the instruction at a text symbol of the function's name (of
 * every symbol of that name: local functions may share one). */
struct events {
    /* the names watched, in the order given, and their counts per series */
    size_t n;
    char **names;
    uint64_t (*count)[COST_SERIES];
    /* the names not in the map (not watched), colon-separated, or NULL */
    char *missing;
    /* (address, event) pairs by address, then event */
    size_t n_at;
    struct event_at {
        uint64_t addr;
        size_t event;
    } *at;
};

/* Reads list (NAME:NAME:..., empty for none) and finds each name's text
 * symbols (T, t, W, w) in the System.map at path; 0, or -1 with why filled
 * in (the map cannot be read, an empty name, a name twice, out of
 * memory). A name with no text symbol is not watched: it goes to missing. */
int events_load(struct events *e, const char *path, const char *list, char *why,
                size_t why_len);
void events_free(struct events *e);
/* Counts execs executions, inside series' windows, of the instruction at
 * addr: an entry into each event whose function starts there. */
void events_add(struct events *e, uint64_t addr, int series, uint64_t execs);
void events_clear(struct events *e);
/* `events watched=A:B missing=C` (`-` for none): the header line. */
void events_write_header(FILE *out, const struct events *e);
/* One line `WORD SERIES COUNT NAME` per event watched, in the order given,
 * 0s too. */
void events_write(FILE *out, const struct events *e, int series, const char *word);

#endif
