/*
 * The markers uring-repro executes for the cost counter (src/sys/x86_64.rs,
 * cost_mark; docs/cost.md): `nop dword ptr [rax + disp32]`, bytes
 * 0f 1f 80 'u' 'r' KIND SERIES.
 */
#ifndef URING_REPRO_COST_MARKER_H
#define URING_REPRO_COST_MARKER_H

/* Series a marker can name, 0..COST_SERIES-1: the most series a workload
 * has (uring-repro's sys::COST_SERIES, which bounds its MAX_SERIES; a test,
 * tests/cost_counter.rs, fails when the two differ). */
#define COST_SERIES 4

#define MARKER_LEN 7
#define MARKER_PREFIX {0x0f, 0x1f, 0x80, 'u', 'r'}
#define MARKER_PREFIX_LEN 5

/* KIND: a run starts (once, before its warm-ups: the counts from here to
 * the next run's marker are this run's); the window of SERIES opens before
 * a measured share, closes after it; inside it a timed span starts and
 * ends. */
#define MARK_RUN 'r'
#define MARK_OPEN 'o'
#define MARK_CLOSE 'c'
#define MARK_START 's'
#define MARK_END 'e'

#endif
