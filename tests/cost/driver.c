/*
 * Runs the cost counter's QEMU-free parts (plugin/locked.c,
 * plugin/functions.c) on made-up input, for tests/cost_counter.rs, which
 * builds it with gcc and compares what it prints with what it should.
 *
 *   driver limits
 *       `series N`: the series a marker can name (COST_SERIES)
 *   driver locked HEX...
 *       one line per instruction given as hex bytes: none, prefixed, xchg
 *       or unlocked-site (enum lock_kind)
 *   driver functions SYSTEM.MAP
 *       reads `ADDRESS SERIES EXECUTIONS LOCKED` lines (LOCKED 0 or 1) on
 *       stdin, one per instruction, and writes what the plugin writes of a
 *       run's functions: per series with any, `series K functions=N
 *       locked_functions=M`, its `fn` lines, its `locked` lines
 *   driver events SYSTEM.MAP LIST
 *       reads `ADDRESS SERIES EXECUTIONS` lines on stdin, one per kernel
 *       instruction counted in a run's windows, and writes what the plugin
 *       writes of the events LIST (NAME:NAME:...): the header's `events`
 *       line, then per series with any input its `event` lines
 *
 * Exit 0; 1 with one line on stderr for bad input or a map not loaded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "locked.h"
#include "marker.h"

static int bad(const char *what)
{
    fprintf(stderr, "driver: %s\n", what);
    return 1;
}

static int locked(int argc, char **argv)
{
    static const char *const names[] = {
        [LOCK_NONE] = "none",
        [LOCK_PREFIXED] = "prefixed",
        [LOCK_XCHG] = "xchg",
        [LOCK_UNLOCKED_SITE] = "unlocked-site",
    };
    for (int i = 0; i < argc; i++) {
        unsigned char bytes[16];
        size_t n = strlen(argv[i]) / 2;
        if (strlen(argv[i]) % 2 != 0 || n > sizeof bytes) {
            return bad("an instruction is 0 to 16 bytes, two hex digits each");
        }
        for (size_t j = 0; j < n; j++) {
            unsigned byte;
            if (sscanf(argv[i] + 2 * j, "%2x", &byte) != 1) {
                return bad("not hex");
            }
            bytes[j] = (unsigned char)byte;
        }
        printf("%s\n", names[lock_kind(bytes, n)]);
    }
    return 0;
}

static int functions(const char *map)
{
    char why[400];
    struct functions *f = functions_load(map, why, sizeof why);
    struct tally t;
    if (!f) {
        return bad(why);
    }
    if (tally_init(&t, functions_names(f)) != 0) {
        return bad("out of memory");
    }
    uint64_t addr, execs;
    int series, is_locked, got;
    while ((got = scanf("%" SCNx64 " %d %" SCNu64 " %d", &addr, &series, &execs,
                        &is_locked)) == 4) {
        if (series < 0 || series >= COST_SERIES) {
            return bad("a series out of range");
        }
        tally_add(&t, functions_find(f, addr), series, execs, is_locked);
    }
    if (got != EOF) {
        return bad("want ADDRESS SERIES EXECUTIONS LOCKED lines");
    }
    for (int k = 0; k < COST_SERIES; k++) {
        size_t n = tally_functions(&t, k, TALLY_INSNS);
        if (n == 0) {
            continue;
        }
        printf("series %d functions=%zu locked_functions=%zu\n", k, n,
               tally_functions(&t, k, TALLY_LOCKED));
        if (tally_write(stdout, &t, f, k, TALLY_INSNS, "fn") != 0 ||
            tally_write(stdout, &t, f, k, TALLY_LOCKED, "locked") != 0) {
            return bad("out of memory");
        }
    }
    functions_free(f);
    free(t.count);
    return 0;
}

static int events(const char *map, const char *list)
{
    char why[400];
    struct events e;
    int seen[COST_SERIES] = {0};
    if (events_load(&e, map, list, why, sizeof why) != 0) {
        return bad(why);
    }
    uint64_t addr, execs;
    int series, got;
    while ((got = scanf("%" SCNx64 " %d %" SCNu64, &addr, &series, &execs)) == 3) {
        if (series < 0 || series >= COST_SERIES) {
            return bad("a series out of range");
        }
        seen[series] = 1;
        events_add(&e, addr, series, execs);
    }
    if (got != EOF) {
        return bad("want ADDRESS SERIES EXECUTIONS lines");
    }
    events_write_header(stdout, &e);
    for (int k = 0; k < COST_SERIES; k++) {
        if (seen[k]) {
            events_write(stdout, &e, k, "event");
        }
    }
    events_free(&e);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "limits") == 0) {
        printf("series %d\n", COST_SERIES);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "locked") == 0) {
        return locked(argc - 2, argv + 2);
    }
    if (argc == 3 && strcmp(argv[1], "functions") == 0) {
        return functions(argv[2]);
    }
    if (argc == 4 && strcmp(argv[1], "events") == 0) {
        return events(argv[2], argv[3]);
    }
    return bad("usage: driver limits | locked HEX... | functions SYSTEM.MAP | "
               "events SYSTEM.MAP LIST");
}
