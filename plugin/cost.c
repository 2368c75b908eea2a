/*
 * uring-repro's cost counter: a QEMU TCG plugin (API version 1, QEMU 7.2's)
 * that counts the guest instructions executed inside the run's measured
 * rounds, per instruction address. docs/cost.md says what it counts and why;
 * scripts/cost.sh builds it, loads it and maps its counts to functions.
 *
 * The window. uring-repro executes markers (src/sys/x86_64.rs, cost_mark):
 * `nop dword ptr [rax + disp32]`, bytes 0f 1f 80 'u' 'r' KIND SERIES. KIND
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
 * one starts. The markers themselves are counted nowhere.
 *
 * At exit the plugin writes out=FILE (format in docs/cost.md): the windows,
 * per series the user and kernel instructions inside them, and one line per
 * kernel instruction executed inside a window. probe=on only says whether
 * this QEMU accepts the plugin (scripts/cost.sh asks before a boot) and
 * refuses to load, so QEMU stops at once.
 *
 * One vCPU only: the counters are shared, and with several vCPUs a window
 * would also count the others' work; the plugin refuses to load otherwise.
 * Built by scripts/cost.sh (gcc -shared, C11, every warning an error).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86_64: the kernel's half of the address space starts here. */
#define KERNEL_START 0xffff800000000000ull
/* Series a window can be for (uring-repro's MAX_SERIES). */
#define SERIES 4
/* The windows whose totals are kept one by one (a point has at most 4096
 * rounds of 4 series); more are still counted, in the series totals. */
#define MAX_WINDOWS (4096 * SERIES)
/* A marker: nop dword ptr [rax + disp32], disp32 = 'u' 'r' KIND SERIES. */
#define MARKER_LEN 7
static const unsigned char marker_prefix[5] = {0x0f, 0x1f, 0x80, 'u', 'r'};
#define MARK_OPEN 'o'
#define MARK_CLOSE 'c'
#define MARK_START 's'
#define MARK_END 'e'

/* One instruction of one translation (QEMU may translate an address more
 * than once: each translation has its own counter). */
struct insn {
    uint64_t vaddr;
    /* executions so far, bumped inline by the translated code */
    uint64_t execs;
    /* execs when a marker last looked at this block */
    uint64_t seen;
    /* executions inside the windows of each series */
    uint64_t in_windows[SERIES];
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

static struct chunk **chunks;
static size_t n_chunks, n_blocks, n_insns;
static FILE *out;
/* the window in force: its series, or -1; the timed spans open in it */
static int open_series = -1, depth;
/* the current window's user [0] and kernel [1] instructions so far */
static uint64_t this_window[2];
static uint64_t windows[SERIES], in_series[SERIES][2];
struct window {
    int series;
    uint64_t insns[2];
};
static struct window window_log[MAX_WINDOWS];
static uint64_t n_windows, unbalanced, spans;
/* a marker found in kernel code (never expected: only counted) */
static uint64_t kernel_markers;
static char target[32];
static int api_min, api_cur;

static void say(const char *what)
{
    /* stderr: qemu_plugin_outs() prints only with -d plugin. */
    fprintf(stderr, "uring-repro cost plugin: %s\n", what);
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
                this_window[b->kernel] += d;
            }
        }
    }
}

static void on_marker(unsigned int vcpu, void *userdata)
{
    const struct marker *m = userdata;
    (void)vcpu;
    switch (m->kind) {
    case MARK_OPEN:
        if (open_series >= 0) {
            unbalanced++;
            return;
        }
        open_series = m->series;
        depth = 0;
        this_window[0] = this_window[1] = 0;
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
    if (open_series != m->series) {
        unbalanced++;
        return;
    }
    if (depth != 0) {
        /* A span left open: counted to here, and the counts refused. */
        unbalanced++;
        look(1);
        depth = 0;
    }
    for (int k = 0; k < 2; k++) {
        in_series[m->series][k] += this_window[k];
    }
    if (n_windows < MAX_WINDOWS) {
        window_log[n_windows].series = m->series;
        window_log[n_windows].insns[0] = this_window[0];
        window_log[n_windows].insns[1] = this_window[1];
    }
    n_windows++;
    windows[m->series]++;
    open_series = -1;
}

/* The marker this instruction is, or NULL. */
static const struct marker *marker(const struct qemu_plugin_insn *insn)
{
    static const struct marker all[4][SERIES] = {
        {{MARK_OPEN, 0}, {MARK_OPEN, 1}, {MARK_OPEN, 2}, {MARK_OPEN, 3}},
        {{MARK_CLOSE, 0}, {MARK_CLOSE, 1}, {MARK_CLOSE, 2}, {MARK_CLOSE, 3}},
        {{MARK_START, 0}, {MARK_START, 1}, {MARK_START, 2}, {MARK_START, 3}},
        {{MARK_END, 0}, {MARK_END, 1}, {MARK_END, 2}, {MARK_END, 3}},
    };
    static const char kinds[] = {MARK_OPEN, MARK_CLOSE, MARK_START, MARK_END};
    const unsigned char *b = qemu_plugin_insn_data(insn);
    if (qemu_plugin_insn_size(insn) != MARKER_LEN ||
        memcmp(b, marker_prefix, sizeof marker_prefix) != 0 || b[6] >= SERIES) {
        return NULL;
    }
    for (int k = 0; k < 4; k++) {
        if (b[5] == kinds[k]) {
            return &all[k][b[6]];
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
        say("out of memory: the counts are incomplete");
        abort();
    }
    b->n = n;
    b->kernel = qemu_plugin_tb_vaddr(tb) >= KERNEL_START;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const struct marker *m = marker(insn);
        b->insns[i].vaddr = qemu_plugin_insn_vaddr(insn);
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
            say("out of memory: the counts are incomplete");
            abort();
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
    fprintf(out, "# uring-repro cost counts: qemu plugin api %d (qemu accepts %d..%d), "
                 "target %s\n",
            QEMU_PLUGIN_VERSION, api_min, api_cur, target);
    fprintf(out, "translated blocks=%zu insns=%zu kernel_markers=%" PRIu64 "\n",
            n_blocks, n_insns, kernel_markers);
    fprintf(out, "windows %" PRIu64 " unbalanced=%" PRIu64 " open_at_exit=%d spans=%" PRIu64 "\n",
            n_windows, unbalanced, open_series >= 0, spans);
    for (uint64_t i = 0; i < n_windows && i < MAX_WINDOWS; i++) {
        fprintf(out, "window %" PRIu64 " series=%d user=%" PRIu64 " kernel=%" PRIu64 "\n",
                i, window_log[i].series, window_log[i].insns[0], window_log[i].insns[1]);
    }
    for (int k = 0; k < SERIES; k++) {
        if (windows[k]) {
            fprintf(out, "series %d windows=%" PRIu64 " user=%" PRIu64 " kernel=%" PRIu64 "\n",
                    k, windows[k], in_series[k][0], in_series[k][1]);
        }
    }
    for (size_t at = 0; at < n_blocks; at++) {
        const struct block *b = chunks[at / CHUNK]->blocks[at % CHUNK];
        for (size_t i = 0; b->kernel && i < b->n; i++) {
            for (int k = 0; k < SERIES; k++) {
                if (b->insns[i].in_windows[k]) {
                    fprintf(out, "insn %016" PRIx64 " %d %" PRIu64 "\n",
                            b->insns[i].vaddr, k, b->insns[i].in_windows[k]);
                }
            }
        }
    }
    if (fclose(out) != 0) {
        say("could not write the counts (out=)");
    }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    const char *path = NULL;
    int probe = 0;
    char why[200];
    api_min = info->version.min;
    api_cur = info->version.cur;
    snprintf(target, sizeof target, "%s", info->target_name);
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            path = argv[i] + 4;
        } else if (strcmp(argv[i], "probe=on") == 0) {
            probe = 1;
        } else {
            snprintf(why, sizeof why, "unknown argument '%s' (out=FILE, probe=on)", argv[i]);
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
    if (info->system.smp_vcpus != 1 || info->system.max_vcpus != 1) {
        snprintf(why, sizeof why, "counts one vCPU only (this machine has %d, at most %d): "
                 "the counters are shared", info->system.smp_vcpus, info->system.max_vcpus);
        say(why);
        return 1;
    }
    if (probe) {
        snprintf(why, sizeof why, "probe: accepted (plugin API %d, QEMU accepts %d..%d, %s)",
                 QEMU_PLUGIN_VERSION, api_min, api_cur, target);
        say(why);
        return 1;
    }
    if (!path || !*path) {
        say("out=FILE is required");
        return 1;
    }
    out = fopen(path, "wx");
    if (!out) {
        snprintf(why, sizeof why, "cannot create %s (it must not exist)", path);
        say(why);
        return 1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, at_qemu_exit, NULL);
    return 0;
}
