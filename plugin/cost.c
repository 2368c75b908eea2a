/*
 * uring-repro's cost counter: a QEMU TCG plugin (API version 1, QEMU 7.2's)
 * that counts the guest instructions executed inside each run's measured
 * rounds, and of them the locked ones, per kernel function. docs/cost.md
 * says what it counts and why; scripts/cost.sh builds it, loads it and
 * turns its counts into a point's `# cost:` lines.
 *
 * The window. uring-repro executes markers (marker.h; src/sys/x86_64.rs,
 * cost_mark): `nop dword ptr [rax + disp32]`, bytes 0f 1f 80 'u' 'r' KIND
 * SERIES. KIND 'r' starts a run (before its warm-ups): the counts from
 * there to the next run's marker are that run's, written as one section.
 * 'o' opens the window of SERIES (0..3, the workload's series: one for the
 * futex profiles, pollwake's four modes) before a measured share's cycles,
 * 'c' closes it after them; inside it, 's' just before a timed span's first
 * clock read and 'e' just after its last (src/profile/span.rs) delimit what
 * is counted (nested spans count once; outside a window, in warm-ups, they
 * mean nothing). The markers lie outside the timed spans and a NOP changes
 * no state: the point is the same with or without this plugin. When QEMU
 * translates a block of user code, each marker in it gets an execution
 * callback; no other instruction does.
 *
 * The count. Every other instruction of every block, kernel and user, gets
 * an inline counter (one add before it executes): an instruction's and not
 * its block's, because when QEMU abandons a block part way (an MMIO access
 * under icount re-runs that instruction alone, uninstrumented) a block
 * counter would count the instructions after it twice. Each block also
 * counts its entries, so a marker looks only at the blocks entered since
 * the last marker: for each of their instructions the executions since
 * then go to the series' window total when a span ends, and nowhere when
 * one starts. The markers themselves are counted nowhere. Whether an
 * instruction is a locked read-modify-write is decided from its bytes when
 * it is translated (locked.c).
 *
 * The functions. map=SYSTEM.MAP is read at install (functions.c); when a
 * run ends (the next run's marker, or exit) its kernel instructions' counts
 * are added up per function and written to out=FILE (format in
 * docs/cost.md), then cleared for the next run. probe=on only says whether
 * this QEMU accepts the plugin (scripts/cost.sh asks before a boot; with
 * map= it reads the map too) and refuses to load, so QEMU stops at once.
 *
 * The events. events=NAME:NAME:... names kernel functions whose entries are
 * counted: an entry is an execution of the instruction at the function's
 * address, which the counts above already hold (every translation of that
 * address has its own counter), so they cost nothing while the guest runs;
 * a run's end adds them up per series and writes them.
 *
 * The vCPUs. The counters are shared by all vCPUs and bumped without
 * atomics: right only when one host thread runs every vCPU, in turn. With
 * one vCPU that is so; with more, QEMU must run them on one thread
 * (-accel tcg,thread=single, which icount needs anyway), and the caller
 * says so with threads=single; the plugin refuses several vCPUs otherwise.
 * Then a span counts every vCPU's instructions executed between its two
 * markers, in the order the one thread ran them. The plugin also notes
 * which host threads translate blocks: more than one, and the counts raced
 * (the end line says how many; the reader refuses them).
 * Built by scripts/cost.sh (gcc -shared, C11, every warning an error).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "functions.h"
#include "locked.h"
#include "marker.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86_64: the kernel's half of the address space starts here. */
#define KERNEL_START 0xffff800000000000ull
/* The windows of a run whose totals are kept one by one (a point has at
 * most 4096 rounds of COST_SERIES series); more are still counted, in the
 * series totals. */
#define MAX_WINDOWS (4096 * COST_SERIES)
/* The counts file's first words: its format, which the lines check. */
#define COUNTS_FORMAT "# uring-repro cost counts format=3"

/* One instruction of one translation (QEMU may translate an address more
 * than once: each translation has its own counter). */
struct insn {
    uint64_t vaddr;
    /* executions so far, bumped inline by the translated code */
    uint64_t execs;
    /* execs when a marker last looked at this block */
    uint64_t seen;
    /* executions inside this run's windows of each series */
    uint64_t in_windows[COST_SERIES];
    /* a locked read-modify-write (locked.c) */
    int locked;
};

/* A translated block's instructions, allocated once and never moved: the
 * translated code holds the counters' addresses. */
struct block {
    size_t n;
    int kernel;
    struct insn insns[];
};

/* Blocks by translation order, CHUNK at a time, with their entry counters
 * side by side, so a marker reads them in one sweep of memory rather than
 * one cache miss a block. Chunks never move (the translated code holds the
 * counters' addresses); the table of chunks grows. */
#define CHUNK 4096
struct chunk {
    /* entries so far (bumped inline), and when a marker last looked */
    uint64_t entries[CHUNK], seen[CHUNK];
    struct block *blocks[CHUNK];
};

/* A marker found at translation: what it does, for which series. */
struct marker {
    unsigned char kind;
    unsigned char series;
};

/* Instructions of a window or a series: user [0] and kernel [1], all of
 * them and the locked ones. */
struct insns {
    uint64_t all[2], locked[2];
};

struct window {
    int series;
    struct insns insns;
};

static struct chunk **chunks;
static size_t n_chunks, n_blocks, n_insns;
/* translated instructions by kind (enum lock_kind), for the record */
static size_t n_kind[4];
static FILE *out;
static struct functions *functions;
static struct tally tally;
static struct events events;
/* the host threads that translated blocks: the first, and how many (at most
 * 2 are told apart) */
static pthread_t translator;
static int translators;

/* The run in force (1.., 0 before the first run's marker), and of it: */
static unsigned run;
/* the window in force: its series, or -1; the timed spans open in it */
static int open_series = -1, depth;
/* the current window's instructions so far */
static struct insns this_window;
static uint64_t windows[COST_SERIES];
static struct insns in_series[COST_SERIES];
static struct window window_log[MAX_WINDOWS];
static uint64_t n_windows, unbalanced, spans;
/* windows opened before any run's marker (not counted) */
static uint64_t stray_windows;
/* a marker found in kernel code (never expected: only counted) */
static uint64_t kernel_markers;

static void say(const char *what)
{
    /* stderr: qemu_plugin_outs() prints only with -d plugin. */
    fprintf(stderr, "uring-repro cost plugin: %s\n", what);
}

static void out_of_memory(void)
{
    say("out of memory: the counts are incomplete");
    abort();
}

/* A span ends (count = 1: the executions since the last look go to the
 * series) or starts (count = 0: they go nowhere). Only the blocks entered
 * since the last look have any. */
static void look(int count)
{
    for (size_t at = 0; at < n_blocks; at++) {
        struct chunk *c = chunks[at / CHUNK];
        size_t j = at % CHUNK;
        if (c->entries[j] == c->seen[j]) {
            continue;
        }
        c->seen[j] = c->entries[j];
        struct block *b = c->blocks[j];
        for (size_t i = 0; i < b->n; i++) {
            struct insn *in = &b->insns[i];
            uint64_t d = in->execs - in->seen;
            in->seen = in->execs;
            if (count) {
                in->in_windows[open_series] += d;
                this_window.all[b->kernel] += d;
                if (in->locked) {
                    this_window.locked[b->kernel] += d;
                }
            }
        }
    }
}

static void add(struct insns *to, const struct insns *from)
{
    for (int k = 0; k < 2; k++) {
        to->all[k] += from->all[k];
        to->locked[k] += from->locked[k];
    }
}

/* Writes the run's section and clears its counts for the next. */
static void end_run(void)
{
    fprintf(out, "run %u windows=%" PRIu64 " unbalanced=%" PRIu64 " open_at_end=%d "
                 "spans=%" PRIu64 "\n",
            run, n_windows, unbalanced, open_series >= 0, spans);
    for (uint64_t i = 0; i < n_windows && i < MAX_WINDOWS; i++) {
        const struct window *w = &window_log[i];
        fprintf(out, "window %" PRIu64 " series=%d user=%" PRIu64 " kernel=%" PRIu64 "\n",
                i, w->series, w->insns.all[0], w->insns.all[1]);
    }
    for (size_t at = 0; at < n_blocks; at++) {
        struct block *b = chunks[at / CHUNK]->blocks[at % CHUNK];
        for (size_t i = 0; i < b->n; i++) {
            struct insn *in = &b->insns[i];
            for (int k = 0; k < COST_SERIES; k++) {
                if (b->kernel && in->in_windows[k]) {
                    tally_add(&tally, functions_find(functions, in->vaddr), k,
                              in->in_windows[k], in->locked);
                    events_add(&events, in->vaddr, k, in->in_windows[k]);
                }
                in->in_windows[k] = 0;
            }
        }
    }
    for (int k = 0; k < COST_SERIES; k++) {
        const struct insns *s = &in_series[k];
        if (!windows[k]) {
            continue;
        }
        fprintf(out, "series %d windows=%" PRIu64 " user=%" PRIu64 " kernel=%" PRIu64
                     " functions=%zu user_locked=%" PRIu64 " kernel_locked=%" PRIu64
                     " locked_functions=%zu\n",
                k, windows[k], s->all[0], s->all[1],
                tally_functions(&tally, k, TALLY_INSNS), s->locked[0], s->locked[1],
                tally_functions(&tally, k, TALLY_LOCKED));
        if (tally_write(out, &tally, functions, k, TALLY_INSNS, "fn") != 0 ||
            tally_write(out, &tally, functions, k, TALLY_LOCKED, "locked") != 0) {
            out_of_memory();
        }
        events_write(out, &events, k, "event");
    }
    tally_clear(&tally);
    events_clear(&events);
    memset(windows, 0, sizeof windows);
    memset(in_series, 0, sizeof in_series);
    n_windows = unbalanced = spans = 0;
    open_series = -1;
    depth = 0;
}

/* The window of series closes: its instructions go to the series. */
static void close_window(int series)
{
    if (open_series != series) {
        unbalanced++;
        return;
    }
    if (depth != 0) {
        /* A span left open: counted to here, and the counts refused. */
        unbalanced++;
        look(1);
        depth = 0;
    }
    add(&in_series[series], &this_window);
    if (n_windows < MAX_WINDOWS) {
        window_log[n_windows].series = series;
        window_log[n_windows].insns = this_window;
    }
    n_windows++;
    windows[series]++;
    open_series = -1;
}

static void on_marker(unsigned int vcpu, void *userdata)
{
    const struct marker *m = userdata;
    (void)vcpu;
    if (m->kind == MARK_RUN) {
        if (run > 0) {
            end_run();
        }
        run++;
        return;
    }
    if (run == 0) {
        /* a binary without the run marker: nothing is counted */
        stray_windows += m->kind == MARK_OPEN;
        return;
    }
    switch (m->kind) {
    case MARK_OPEN:
        if (open_series >= 0) {
            unbalanced++;
            return;
        }
        open_series = m->series;
        depth = 0;
        memset(&this_window, 0, sizeof this_window);
        return;
    case MARK_CLOSE:
        close_window(m->series);
        return;
    case MARK_START:
        if (open_series >= 0 && depth++ == 0) {
            look(0);
        }
        return;
    case MARK_END:
        if (open_series < 0) {
            return;
        }
        if (depth == 0) {
            unbalanced++;
        } else if (--depth == 0) {
            look(1);
            spans++;
        }
        return;
    }
}

/* The markers' kinds, and per kind and series the marker's callback data. */
static const unsigned char marker_kinds[] = {MARK_RUN, MARK_OPEN, MARK_CLOSE, MARK_START,
                                             MARK_END};
static struct marker markers[sizeof marker_kinds][COST_SERIES];

/* The marker this instruction is, or NULL. */
static const struct marker *marker(const struct qemu_plugin_insn *insn)
{
    static const unsigned char prefix[MARKER_PREFIX_LEN] = MARKER_PREFIX;
    const unsigned char *b = qemu_plugin_insn_data(insn);
    if (qemu_plugin_insn_size(insn) != MARKER_LEN ||
        memcmp(b, prefix, sizeof prefix) != 0 || b[6] >= COST_SERIES) {
        return NULL;
    }
    for (size_t k = 0; k < sizeof marker_kinds; k++) {
        if (b[5] == marker_kinds[k]) {
            return &markers[k][b[6]];
        }
    }
    return NULL;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct block *b = calloc(1, sizeof *b + n * sizeof b->insns[0]);
    (void)id;
    if (!b) {
        out_of_memory();
    }
    if (translators == 0) {
        translator = pthread_self();
        translators = 1;
    } else if (translators == 1 && !pthread_equal(translator, pthread_self())) {
        translators = 2;
    }
    b->n = n;
    b->kernel = qemu_plugin_tb_vaddr(tb) >= KERNEL_START;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const struct marker *m = marker(insn);
        enum lock_kind kind = lock_kind(qemu_plugin_insn_data(insn),
                                        qemu_plugin_insn_size(insn));
        b->insns[i].vaddr = qemu_plugin_insn_vaddr(insn);
        /* Unlocked LOCK_PREFIX sites are the kernel's only. */
        b->insns[i].locked = kind == LOCK_PREFIXED || kind == LOCK_XCHG ||
                             (kind == LOCK_UNLOCKED_SITE && b->kernel);
        n_kind[kind]++;
        if (m && b->kernel) {
            kernel_markers++;
        } else if (m) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
                                                   QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)m);
            continue;
        }
        qemu_plugin_register_vcpu_insn_exec_inline(
            insn, QEMU_PLUGIN_INLINE_ADD_U64, &b->insns[i].execs, 1);
    }
    if (n_blocks == n_chunks * CHUNK) {
        struct chunk **grown = realloc(chunks, (n_chunks + 1) * sizeof *chunks);
        if (!grown || !(grown[n_chunks] = calloc(1, sizeof **grown))) {
            out_of_memory();
        }
        chunks = grown;
        n_chunks++;
    }
    struct chunk *c = chunks[n_blocks / CHUNK];
    c->blocks[n_blocks % CHUNK] = b;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
                                             &c->entries[n_blocks % CHUNK], 1);
    n_blocks++;
    n_insns += n;
}

static void at_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    if (run > 0) {
        end_run();
    }
    fprintf(out, "end runs=%u stray_windows=%" PRIu64 " kernel_markers=%" PRIu64
                 " translating_threads=%d translated_blocks=%zu translated_insns=%zu"
                 " translated_lock_prefixed=%zu translated_xchg=%zu"
                 " translated_unlocked_sites=%zu\n",
            run, stray_windows, kernel_markers, translators, n_blocks, n_insns,
            n_kind[LOCK_PREFIXED], n_kind[LOCK_XCHG], n_kind[LOCK_UNLOCKED_SITE]);
    if (fclose(out) != 0) {
        say("could not write the counts (out=)");
    }
}

static int is_sha256(const char *s)
{
    return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    const char *path = NULL, *map = NULL, *map_sha256 = NULL, *event_list = "";
    int probe = 0, one_thread = 0;
    char why[400];
    int api_min = info->version.min, api_cur = info->version.cur;
    const char *target = info->target_name;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            path = argv[i] + 4;
        } else if (strncmp(argv[i], "map=", 4) == 0) {
            map = argv[i] + 4;
        } else if (strncmp(argv[i], "map_sha256=", 11) == 0) {
            map_sha256 = argv[i] + 11;
        } else if (strncmp(argv[i], "events=", 7) == 0) {
            event_list = argv[i] + 7;
        } else if (strcmp(argv[i], "threads=single") == 0) {
            one_thread = 1;
        } else if (strcmp(argv[i], "probe=on") == 0) {
            probe = 1;
        } else {
            snprintf(why, sizeof why, "unknown argument '%s' (out=FILE, map=SYSTEM.MAP, "
                     "map_sha256=HEX, events=NAME:NAME:..., threads=single, probe=on)", argv[i]);
            say(why);
            return 1;
        }
    }
    if (api_min > QEMU_PLUGIN_VERSION || api_cur < QEMU_PLUGIN_VERSION) {
        snprintf(why, sizeof why, "written for plugin API %d, this QEMU accepts %d..%d",
                 QEMU_PLUGIN_VERSION, api_min, api_cur);
        say(why);
        return 1;
    }
    if (!info->system_emulation || strcmp(target, "x86_64") != 0) {
        snprintf(why, sizeof why, "counts x86_64 system emulation only, not %s%s", target,
                 info->system_emulation ? "" : " linux-user");
        say(why);
        return 1;
    }
    if ((info->system.smp_vcpus != 1 || info->system.max_vcpus != 1) && !one_thread) {
        snprintf(why, sizeof why, "counts one vCPU, or several that QEMU runs on one thread "
                 "(threads=single: -accel tcg,thread=single, as under icount), not %d "
                 "(at most %d) each on a thread of its own: the counters are shared and "
                 "would race", info->system.smp_vcpus, info->system.max_vcpus);
        say(why);
        return 1;
    }
    if (!probe && (!path || !*path || !map || !map_sha256)) {
        say("out=FILE, map=SYSTEM.MAP and map_sha256=HEX (its SHA-256) are required");
        return 1;
    }
    if (map_sha256 && !is_sha256(map_sha256)) {
        say("map_sha256= takes the map's SHA-256: 64 hex digits, lower case");
        return 1;
    }
    if (map && !(functions = functions_load(map, why, sizeof why))) {
        say(why);
        return 1;
    }
    if (*event_list && !map) {
        say("events= needs map=SYSTEM.MAP (the functions' addresses)");
        return 1;
    }
    if (map && events_load(&events, map, event_list, why, sizeof why) != 0) {
        say(why);
        functions_free(functions);
        return 1;
    }
    if (probe) {
        snprintf(why, sizeof why, "probe: accepted (plugin API %d, QEMU accepts %d..%d, %s",
                 QEMU_PLUGIN_VERSION, api_min, api_cur, target);
        if (functions) {
            size_t at = strlen(why);
            snprintf(why + at, sizeof why - at, "; the map: %zu functions at %zu addresses",
                     functions_names(functions) - 1, functions_addresses(functions));
            at = strlen(why);
            snprintf(why + at, sizeof why - at, "; events: %zu watched, not in the map: %s",
                     events.n, events.missing ? events.missing : "none");
        }
        strncat(why, ")", sizeof why - strlen(why) - 1);
        say(why);
        functions_free(functions);
        events_free(&events);
        return 1;
    }
    for (size_t k = 0; k < sizeof marker_kinds; k++) {
        for (int series = 0; series < COST_SERIES; series++) {
            markers[k][series].kind = marker_kinds[k];
            markers[k][series].series = (unsigned char)series;
        }
    }
    if (tally_init(&tally, functions_names(functions)) != 0) {
        say("out of memory");
        return 1;
    }
    out = fopen(path, "wx");
    if (!out) {
        snprintf(why, sizeof why, "cannot create %s (it must not exist)", path);
        say(why);
        return 1;
    }
    fprintf(out, COUNTS_FORMAT ": qemu plugin api %d (qemu accepts %d..%d), target %s, "
                 "locked=x86-lock\n",
            QEMU_PLUGIN_VERSION, api_min, api_cur, target);
    fprintf(out, "map sha256=%s addresses=%zu functions=%zu path=%s\n", map_sha256,
            functions_addresses(functions), functions_names(functions), map);
    events_write_header(out, &events);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, at_qemu_exit, NULL);
    return 0;
}
