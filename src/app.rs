//! Wires the pieces together: argv -> Config -> environment facts -> ring ->
//! profile -> report -> exit code. Every non-zero exit writes one stderr line
//! naming its cause.

use core::fmt::Write;

use crate::check::{Failure, Ledger};
use crate::cli::{self, Command, Mode, ProfileId, RunConfig};
use crate::contract::Contract;
use crate::cpu;
use crate::facts::Facts;
use crate::hist::Histogram;
use crate::profile::{self, account_ring, pollwake, run_round_into, Profile, Round, Workload};
use crate::report::{Bytes, Dec, Line, Out, Ratio6};
use crate::ring::{self, Ring, SetupError};
use crate::rt::{pid1, StartInfo};
use crate::sha256::Hex;
use crate::stats;
use crate::sys::clock::Clock;
use crate::sys::signal;
use crate::sys::uapi::{self, AT_SYSINFO_EHDR};
use crate::sys::{self, Errno, Fd, CPU_SET_BYTES};
use crate::tsv::{self, TsvFile};

/// Exit codes (kselftest-style, DESIGN.md §5).
pub mod exit {
    pub const PASS: i32 = 0;
    pub const FAIL: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const SKIP: i32 = 4;
    /// SIGINT or SIGTERM ended the run (as the shell reports 128 + SIGINT).
    pub const INTERRUPTED: i32 = 130;
    /// stdout was closed under us (as a process killed by SIGPIPE reports).
    pub const STDOUT_CLOSED: i32 = 141;
}

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The report's ring: 64 SQ entries, 128 CQ entries.
pub const RING_ENTRIES: u32 = 64;
pub const CQ_ENTRIES: u32 = 128;

/// The process's entry point after `_start`; returns the exit code.
pub fn main(start: &StartInfo) -> i32 {
    let mut out = Out::new(1);
    let code = match cli::parse(start.args()) {
        Ok(Command::Help) => {
            out.bytes(cli::HELP.as_bytes());
            exit::PASS
        }
        Ok(Command::Version) => {
            let _ = writeln!(out, "uring-repro {VERSION}");
            exit::PASS
        }
        Ok(Command::Compare) => crate::compare::main(start.args().skip(1), &mut out),
        Ok(Command::Run(cfg)) => {
            catch_interrupts();
            let mut cause = Line::new();
            let code = run(&cfg, &clock(start), &mut out, &mut cause);
            if let (Some(path), true) = (cfg.tsv, pid1::is_pid1()) {
                tsv::echo_if_volatile(path, &mut out);
            }
            report(code, &cause)
        }
        Ok(Command::Describe(cfg)) => describe(&cfg, &mut out),
        Ok(Command::Selftest(cfg)) => {
            catch_interrupts();
            selftest(&cfg, &clock(start), &mut out)
        }
        Err(e) => fail(exit::USAGE, format_args!("{e}")),
    };
    out.flush();
    if out.broken() && code == exit::PASS {
        return exit::STDOUT_CLOSED;
    }
    code
}

/// From here on SIGINT and SIGTERM end a run after its current cycle, with
/// the finished rounds reported (exit 130). rt_sigaction cannot fail for
/// these two; if it did, a signal would end the process by its default
/// action, as before.
fn catch_interrupts() {
    let _ = signal::catch_interrupts();
}

/// The run's clock. (Out of line here and below where marked: the binary
/// has a 64 KiB budget, and these run once.)
#[inline(never)]
fn clock(start: &StartInfo) -> Clock {
    // SAFETY: the value is this process's AT_SYSINFO_EHDR (or 0).
    unsafe { Clock::new(start.auxv(AT_SYSINFO_EHDR).unwrap_or(0)) }
}

/// Writes `uring-repro: MSG` to stderr and returns `code`. Out of line:
/// every exit path calls it, and each inlined copy costs binary size.
#[inline(never)]
pub fn fail(code: i32, msg: core::fmt::Arguments<'_>) -> i32 {
    let mut err = Out::new(2);
    let _ = writeln!(err, "uring-repro: {msg}");
    err.flush();
    code
}

/// Writes `msg` into `cause` (the one stderr line, or selftest's TAP
/// diagnostic) and returns `code`. Out of line: it runs only when a run
/// cannot start or fails, and each inlined copy would cost binary size.
#[inline(never)]
fn stop(cause: &mut Line, code: i32, msg: core::fmt::Arguments<'_>) -> i32 {
    cause.clear();
    let _ = cause.write_fmt(msg);
    code
}

/// Writes a run's cause to stderr unless it passed; returns its exit code.
/// Out of line (binary size).
#[inline(never)]
fn report(code: i32, cause: &Line) -> i32 {
    if code == exit::PASS || cause.as_bytes().is_empty() {
        return code;
    }
    fail(code, format_args!("{cause}"))
}

/// The CPU a run with `cfg` pins to (a bad --cpu is a usage error).
fn choose_cpu(cfg: &RunConfig, cause: &mut Line) -> Result<cpu::Choice, i32> {
    let mut allowed = [0u8; CPU_SET_BYTES];
    if let Err(e) = sys::sched_getaffinity(&mut allowed) {
        return Err(stop(
            cause,
            exit::SKIP,
            format_args!("sched_getaffinity failed: {e}"),
        ));
    }
    cpu::choose(cfg.cpu, &allowed).map_err(|c| {
        stop(
            cause,
            exit::USAGE,
            format_args!(
                "--cpu {c}: CPU {c} is not online or not allowed for this process (allowed: {})",
                cpu::Ranges(&allowed)
            ),
        )
    })
}

/// `describe`: the contract of the run these options make, as JSON.
fn describe(cfg: &RunConfig, out: &mut Out) -> i32 {
    let mut cause = Line::new();
    match choose_cpu(cfg, &mut cause) {
        Ok(c) => {
            out.bytes(Contract { cfg, cpu: c.cpu() }.json().as_bytes());
            exit::PASS
        }
        Err(code) => report(code, &cause),
    }
}

/// `selftest`: every profile's smoke, in both futex scopes where it has
/// one, in this process; TAP 13 on stdout. Exit 0 when none failed (skips
/// allowed), 1 when any failed, 4 when every one was skipped.
fn selftest(cfg: &RunConfig, clock: &Clock, out: &mut Out) -> i32 {
    let mut cause = Line::new();
    if let Err(code) = choose_cpu(cfg, &mut cause) {
        return report(code, &cause);
    }
    // Every profile in the private scope, and in the shared one where it
    // has futex words.
    let total = ProfileId::ALL.len()
        + ProfileId::ALL
            .iter()
            .filter(|p| p.0.has_futex_scope())
            .count();
    let _ = writeln!(out, "TAP version 13\n1..{total}");
    out.flush();
    let (mut n, mut failed, mut skipped, mut first_skip) = (0, 0, 0, Line::new());
    for &(id, ..) in ProfileId::ALL.iter() {
        for shared in [false, true] {
            if shared && !id.has_futex_scope() {
                continue;
            }
            n += 1;
            let c = cfg.smoke(id, shared);
            let code = run(&c, clock, &mut Out::null(), &mut cause);
            if code == exit::INTERRUPTED {
                return bail_out(out, &cause);
            }
            let name = format_args!("{n} - {} {}", id.formal_name(), c.futex_scope());
            let _ = match code {
                exit::PASS => writeln!(out, "ok {name}"),
                exit::SKIP => {
                    skipped += 1;
                    if skipped == 1 {
                        first_skip = cause;
                    }
                    writeln!(out, "ok {name} # SKIP {cause}")
                }
                code => {
                    failed += 1;
                    writeln!(out, "not ok {name}\n# exit {code}: {cause}")
                }
            };
            out.flush();
            // Caught after the test had finished (or before it started).
            if signal::caught() != 0 {
                interrupted(&mut cause, signal::caught());
                return bail_out(out, &cause);
            }
        }
    }
    if failed > 0 {
        fail(
            exit::FAIL,
            format_args!("selftest: {failed} of {total} failed (see stdout)"),
        )
    } else if skipped == total {
        fail(
            exit::SKIP,
            format_args!("selftest: every test skipped: {first_skip}"),
        )
    } else {
        exit::PASS
    }
}

/// Ends selftest's TAP stream early: `Bail out! <cause>`, and the same cause
/// on stderr; exit 130.
fn bail_out(out: &mut Out, cause: &Line) -> i32 {
    let _ = writeln!(out, "Bail out! {cause}");
    out.flush();
    fail(exit::INTERRUPTED, format_args!("{cause}"))
}

/// Runs a configured benchmark and reports it on `out` (and `--tsv`);
/// returns the exit code, with its cause in `cause` unless it passed.
pub fn run(cfg: &RunConfig, clock: &Clock, out: &mut Out, cause: &mut Line) -> i32 {
    cause.clear();
    attempt(cfg, clock, out, cause).unwrap_or_else(|code| code)
}

/// `run`, with every reason not to start as an `Err`.
fn attempt(cfg: &RunConfig, clock: &Clock, out: &mut Out, cause: &mut Line) -> Result<i32, i32> {
    // CPU first: a bad --cpu is a usage error, whatever the kernel can do.
    let choice = choose_cpu(cfg, cause)?;
    // Before pinning narrows it: pollwake may put its waiter elsewhere.
    let mut allowed = [0u8; CPU_SET_BYTES];
    let _ = sys::sched_getaffinity(&mut allowed);
    if let Err(e) = cpu::pin(choice.cpu()) {
        return Err(stop(
            cause,
            exit::USAGE,
            format_args!("--cpu {}: cannot pin: {e}", choice.cpu()),
        ));
    }
    if cfg.profile == ProfileId::Pollwake {
        // Its own rings, thread and output (docs/pollwake.md); it reports
        // its own errors, all but an interruption (the caller prints that).
        return Ok(match pollwake::run(cfg, clock, choice, &allowed, out) {
            exit::INTERRUPTED => interrupted(cause, signal::caught()),
            code => code,
        });
    }
    let timeout_ns = cfg.timeout_s as u64 * 1_000_000_000;
    let mut ring = Ring::new(RING_ENTRIES, CQ_ENTRIES, 0).map_err(|e| {
        let mut skip = |m| stop(cause, exit::SKIP, m);
        match e {
            SetupError::Setup(e) if e == Errno::EPERM || e == Errno::ENOSYS => {
                skip(format_args!("io_uring unavailable: io_uring_setup: {e}"))
            }
            SetupError::Setup(e) => skip(format_args!("io_uring_setup failed: {e}")),
            SetupError::Mmap(e) => skip(format_args!("mapping the rings failed: {e}")),
            SetupError::Feature(f) => {
                skip(format_args!("kernel lacks {f} (needed to bound waits)"))
            }
        }
    })?;
    ring.set_wait_timeout_ns(timeout_ns);
    let mut work = Workload::new(cfg.profile, cfg.slots, !cfg.shared, timeout_ns).map_err(|e| {
        stop(
            cause,
            exit::SKIP,
            format_args!("mapping the futex words failed: {e}"),
        )
    })?;
    probe(&ring, profile::opcodes(cfg.profile), cause)?;
    let input_sha256 = Contract {
        cfg,
        cpu: choice.cpu(),
    }
    .sha256();
    let mut tsv = match cfg.tsv {
        None => None,
        Some(path) => Some(TsvFile::create(path).map_err(|e| {
            let why = if e == Errno::EEXIST {
                "exists (never overwritten)"
            } else {
                "cannot be created"
            };
            stop(
                cause,
                exit::USAGE,
                format_args!("--tsv {}: {why}: {e}", Bytes(path)),
            )
        })?),
    };

    let facts = Facts::read(choice.cpu());
    let shape = profile::shape(cfg.profile, cfg.slots);
    let _ = writeln!(
        out,
        "# uring-repro {VERSION} profile={} mode={} kernel={} boot_id={} cpu={} cpu_choice={} \
         clock={}",
        cfg.profile.formal_name(),
        cfg.mode.name(),
        Bytes(facts.release()),
        Bytes(facts.boot_id.get()),
        choice.cpu(),
        choice.how(),
        clock.source().name(),
    );
    let _ = writeln!(
        out,
        "# ring_entries={} cq_entries={} slots={} vector_width={} cycles={} warmups={} rounds={} \
         futex={} timeout_s={} features={:#x} input_sha256={}",
        ring.sq_entries(),
        ring.cq_entries(),
        shape.slots,
        shape.vector_width,
        cfg.cycles,
        cfg.warmups,
        cfg.rounds,
        cfg.futex_scope(),
        cfg.timeout_s,
        ring.features(),
        Hex(&input_sha256),
    );
    facts.print(out);
    let _ = writeln!(out, "round\tpairs\tns_per_pair\tsemantic_pass");
    out.flush();

    let ctx = tsv::Context {
        kernel_release: facts.release(),
        boot_id: facts.boot_id.get(),
        mode: cfg.mode.name(),
        profile: cfg.profile.formal_name(),
        ring_entries: ring.sq_entries(),
        slots: shape.slots,
        vector_width: shape.vector_width,
        cpu: choice.cpu(),
        input_sha256,
        trace_enabled: cfg.mode == Mode::Trace,
        futex_scope: cfg.futex_scope(),
        clock_source: clock.source().name(),
        tool_version: VERSION,
        ring_features: ring.features(),
        facts: &facts,
    };
    let trace =
        (cfg.mode == Mode::Trace).then(|| trace_mark(None, "uring-repro trace begin", cfg, out));
    let outcome = measure(
        cfg,
        work.profile(),
        &mut ring,
        clock,
        choice.cpu(),
        out,
        tsv.as_mut().map(|f| (f, &ctx)),
    );
    work.profile().finish();
    if let Some(marker) = trace {
        trace_mark(marker, "uring-repro trace end", cfg, out);
    }
    Ok(finish(
        outcome,
        out,
        tsv.as_ref().is_some_and(|t| t.broken()),
        cause,
    ))
}

/// ftrace's marker file: what is written there lands in the trace, with
/// the writer's PID.
const TRACE_MARKER: &[u8] = b"/sys/kernel/tracing/trace_marker\0";

/// `--trace`: marks the start or end of the traced cycles on stdout (with
/// the PID, flushed) and, where this process may write it, in ftrace's
/// buffer. Returns the marker file opened at "begin" for "end".
fn trace_mark(marker: Option<Fd>, what: &str, cfg: &RunConfig, out: &mut Out) -> Option<Fd> {
    let marker = marker.or_else(|| sys::open(TRACE_MARKER, uapi::O_WRONLY, 0).ok());
    if let Some(m) = &marker {
        let _ = sys::write(m.raw(), what.as_bytes());
    }
    let _ = writeln!(
        out,
        "# {what} pid={} profile={} ftrace_marker={}",
        sys::getpid(),
        cfg.profile.formal_name(),
        marker.is_some() as u8
    );
    out.flush();
    marker
}

/// Probes the ring for `needed` opcodes; a missing one is a skip naming it.
pub fn probe(ring: &Ring, needed: &[(u8, &str)], cause: &mut Line) -> Result<(), i32> {
    let mut p = ring::empty_probe();
    if let Err(e) = ring.probe(&mut p) {
        return Err(stop(
            cause,
            exit::SKIP,
            format_args!("IORING_REGISTER_PROBE failed: {e}"),
        ));
    }
    if needed.iter().all(|&(op, _)| ring::probe_supports(&p, op)) {
        return Ok(());
    }
    let code = stop(cause, exit::SKIP, format_args!("kernel lacks"));
    for &(op, name) in needed
        .iter()
        .filter(|&&(op, _)| !ring::probe_supports(&p, op))
    {
        let _ = write!(cause, " {name} ({op})");
    }
    let _ = write!(cause, " (probe last_op={})", p.last_op);
    Err(code)
}

/// What the measured part of a run produced.
struct Outcome {
    ledger: Ledger,
    rounds: usize,
    ns_per_pair: [f64; cli::MAX_ROUNDS as usize],
    total_ns: u64,
    total_pairs: u64,
    /// Per-cycle ns of the measured rounds, and the pairs one cycle does.
    hist: Histogram,
    pairs_per_cycle: u64,
    /// The signal (SIGINT, SIGTERM) that ended the run early; 0: none.
    interrupted: u32,
}

/// Warm-ups, then measured rounds. After each round: the ring's state is
/// checked, its TSV row written and flushed, and (measured rounds) its
/// stdout row printed; the first failing round ends the run. A round
/// interrupted by SIGINT or SIGTERM ends it too, leaving no trace: no row,
/// and neither its counts nor its cycles in the summary.
fn measure(
    cfg: &RunConfig,
    profile: &mut dyn Profile,
    ring: &mut Ring,
    clock: &Clock,
    cpu: u32,
    out: &mut Out,
    mut tsv: Option<(&mut TsvFile, &tsv::Context<'_>)>,
) -> Outcome {
    let mut o = Outcome {
        ledger: Ledger::default(),
        rounds: 0,
        ns_per_pair: [0.0; cli::MAX_ROUNDS as usize],
        total_ns: 0,
        total_pairs: 0,
        hist: Histogram::default(),
        pairs_per_cycle: profile.pairs_per_cycle(),
        interrupted: 0,
    };
    // The round's cycles join `o.hist` once the round has finished.
    let mut round_hist = Histogram::default();
    let mut seq = 0u32;
    let mut seen = [0u32; 2];
    for i in 0..cfg.warmups + cfg.rounds {
        let warmup = i < cfg.warmups;
        let r = if warmup { i } else { i - cfg.warmups };
        let before = o.ledger;
        check_cpu(cpu, &mut o.ledger);
        // Only measured rounds feed the per-cycle distribution.
        let hist = (!warmup).then_some(&mut round_hist);
        let round: Round = run_round_into(
            profile,
            ring,
            clock,
            &mut o.ledger,
            cfg.cycles,
            &mut seq,
            hist,
        );
        if round.interrupted {
            o.ledger = before;
            o.interrupted = signal::caught();
            break;
        }
        o.hist.absorb(&mut round_hist);
        check_cpu(cpu, &mut o.ledger);
        account_ring(ring, &mut o.ledger, &mut seen, seq);
        let passed = round.passed && o.ledger.failures() == before.failures();
        if let Some((file, ctx)) = tsv.as_mut() {
            let row = tsv::Row {
                phase: if warmup { "warmup" } else { "measured" },
                round: r,
                cycles: round.cycles,
                pairs: round.pairs,
                timed_ns: round.timed_ns,
                pass: passed,
                counts: &o.ledger.since(&before),
            };
            file.row(ctx, &row);
        }
        if warmup {
            if !passed {
                let _ = writeln!(out, "# warm-up round {r} failed");
                break;
            }
            continue;
        }
        let _ = writeln!(
            out,
            "{r}\t{}\t{}\t{}",
            round.pairs,
            Ratio6 {
                num: round.timed_ns,
                den: round.pairs
            },
            passed as u8
        );
        out.flush();
        if round.pairs > 0 {
            o.ns_per_pair[o.rounds] = round.timed_ns as f64 / round.pairs as f64;
            o.rounds += 1;
            o.total_ns += round.timed_ns;
            o.total_pairs += round.pairs;
        }
        if !passed || out.broken() {
            break;
        }
    }
    o
}

/// Counts a migration when getcpu does not report the pinned CPU.
fn check_cpu(cpu: u32, ledger: &mut Ledger) {
    if sys::getcpu() != Ok(cpu) {
        ledger.migrations += 1;
        ledger.note("migration", 0, None);
    }
}

/// The summary and the verdict (the ring's state was checked per round).
/// A table's mean row and the spread of its rounds, without the final
/// newline: `[TAG\t]mean\tPAIRS\tNS_PER_PAIR\tPASS` and `# [profile=TAG
/// ]median=... min=... max=... cv=...%`. One copy for every profile's table
/// (binary size).
#[inline(never)]
pub fn mean_and_spread(
    out: &mut Out,
    tag: Option<&str>,
    ns: u64,
    pairs: u64,
    passed: bool,
    per_round: &[f64],
) {
    if let Some(t) = tag {
        let _ = write!(out, "{t}\t");
    }
    let mean = Ratio6 {
        num: ns,
        den: pairs,
    };
    let _ = write!(out, "mean\t{pairs}\t{mean}\t{}\n# ", passed as u8);
    if let Some(t) = tag {
        let _ = write!(out, "profile={t} ");
    }
    let s = stats::summarize(per_round);
    let _ = write!(
        out,
        "median={} min={} max={} cv={}%",
        Dec(s.median, 6),
        Dec(s.min, 6),
        Dec(s.max, 6),
        Dec(s.cv_pct, 3)
    );
}

/// ` name=value` for each value and its name in the space-separated
/// `names` (the checks lines). black_box keeps the optimiser from
/// unrolling one formatting call per element (binary size).
#[inline(never)]
pub fn pairs(out: &mut Out, names: &str, values: &[u64]) {
    let names = names.as_bytes().split(|&b| b == b' ');
    for (name, v) in names.zip(core::hint::black_box(values)) {
        out.bytes(b" ");
        out.bytes(name);
        let _ = write!(out, "={v}");
    }
}

/// The checks line's last word.
pub fn verdict(passed: bool, interrupted: u32) -> &'static str {
    match (interrupted, passed) {
        (0, true) => "PASS",
        (0, false) => "FAIL",
        _ => "INTERRUPTED",
    }
}

/// Exit 130 with `interrupted by SIGINT` (or SIGTERM) as its cause.
#[inline(never)]
pub fn interrupted(cause: &mut Line, sig: u32) -> i32 {
    stop(
        cause,
        exit::INTERRUPTED,
        format_args!("interrupted by {}", signal::name(sig)),
    )
}

fn finish(o: Outcome, out: &mut Out, tsv_broken: bool, cause: &mut Line) -> i32 {
    let l = &o.ledger;
    let passed = l.passed();
    let per_round = &o.ns_per_pair[..o.rounds];
    mean_and_spread(out, None, o.total_ns, o.total_pairs, passed, per_round);
    out.bytes(b"\n");
    // The per-cycle tail, in the unit of the table (cycle ns / pairs).
    let per_pair = o.pairs_per_cycle.max(1) as f64;
    let h = &o.hist;
    let _ = write!(out, "# per_cycle_ns_per_pair:");
    for (name, num, den) in [
        ("p50", 1, 2),
        ("p90", 9, 10),
        ("p99", 99, 100),
        ("p99.9", 999, 1000),
    ] {
        let _ = write!(out, " {name}={}", Dec(h.quantile(num, den) / per_pair, 3));
    }
    let _ = writeln!(
        out,
        " max={} cycles={}",
        Dec(h.max() as f64 / per_pair, 3),
        h.count()
    );
    let _ = write!(out, "# checks:");
    pairs(out, Ledger::COUNTER_NAMES, &l.counters());
    let _ = writeln!(out, " -> {}", verdict(passed, o.interrupted));
    out.flush();
    match l.first {
        _ if o.interrupted != 0 => interrupted(cause, o.interrupted),
        _ if passed && out.broken() => exit::STDOUT_CLOSED,
        _ if passed && tsv_broken => stop(
            cause,
            exit::FAIL,
            format_args!("writing the --tsv file failed"),
        ),
        _ if passed => exit::PASS,
        Some(Failure {
            what,
            seq,
            cqe: Some(c),
        }) => stop(
            cause,
            exit::FAIL,
            format_args!(
                "FAIL: {what} in cycle {seq}: user_data={:#x} res={} flags={:#x}; counters on stdout",
                c.user_data, c.res, c.flags
            ),
        ),
        Some(Failure { what, seq, cqe: None }) => stop(
            cause,
            exit::FAIL,
            format_args!("FAIL: {what} in cycle {seq}; counters on stdout"),
        ),
        None => stop(
            cause,
            exit::FAIL,
            format_args!("FAIL: see the checks line on stdout"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Kind;

    #[test]
    fn pairs_names_each_value() {
        let l = Ledger::default();
        assert_eq!(Ledger::COUNTER_NAMES.split(' ').count(), l.counters().len());
        let path = std::env::temp_dir().join(format!("uring-repro-pairs-{}", std::process::id()));
        let f = std::fs::File::create(&path).unwrap();
        let mut o = Out::new(std::os::fd::AsRawFd::as_raw_fd(&f));
        pairs(&mut o, "a bb ccc", &[1, 22, 333]);
        o.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(text, " a=1 bb=22 ccc=333");
    }

    /// A workload that fails at its `fail_at`-th cycle (1-based), with
    /// made-up counts: it drives `measure` and `finish` without a kernel
    /// failure having to be provoked.
    struct FailAt {
        done: u32,
        fail_at: u32,
    }

    impl Profile for FailAt {
        fn pairs_per_cycle(&self) -> u64 {
            4
        }
        fn cycle(&mut self, _: &mut Ring, _: &Clock, l: &mut Ledger, seq: u32) -> (u64, bool) {
            self.done += 1;
            l.submitted[Kind::Nop as usize] += 4;
            l.kind_cqes[Kind::Nop as usize] += 4;
            l.cqes += 4;
            if self.done == self.fail_at {
                l.bad_results += 1;
                l.note("bad_result", seq, None);
                return (10, false);
            }
            (10, true)
        }
    }

    /// Runs `measure` + `finish` with FailAt into a fresh TSV file; returns
    /// the exit code, the cause and the file's rows as columns.
    fn run_failing(
        warmups: u32,
        rounds: u32,
        fail_at: u32,
    ) -> Option<(i32, String, Vec<Vec<String>>)> {
        let mut ring = match Ring::new(RING_ENTRIES, CQ_ENTRIES, 0) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("SKIP: io_uring unavailable here: {e:?}");
                return None;
            }
        };
        // measure checks the CPU does not change: pin this test thread.
        let cpu = sys::getcpu().unwrap();
        cpu::pin(cpu).unwrap();
        let dir = std::env::temp_dir().join(format!(
            "uring-repro-app-{}-{warmups}-{fail_at}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.tsv");
        let mut file = TsvFile::create(path.to_str().unwrap().as_bytes()).unwrap();
        let cfg = RunConfig {
            warmups,
            rounds,
            cycles: 3,
            ..RunConfig::default()
        };
        let ctx = tsv::Context {
            kernel_release: b"k",
            boot_id: b"b",
            mode: "point",
            profile: "n0_nop",
            ring_entries: 64,
            slots: 4,
            vector_width: 1,
            cpu,
            input_sha256: [0; 32],
            trace_enabled: false,
            futex_scope: "private",
            clock_source: "syscall",
            tool_version: VERSION,
            ring_features: 0,
            facts: &Facts::read(cpu),
        };
        let mut fake = FailAt { done: 0, fail_at };
        let mut out = Out::null();
        let o = measure(
            &cfg,
            &mut fake,
            &mut ring,
            &Clock::syscall(),
            cpu,
            &mut out,
            Some((&mut file, &ctx)),
        );
        // The rows are on disk before the verdict, and before the close.
        let text = std::fs::read_to_string(&path).unwrap();
        let mut cause = Line::new();
        let code = finish(o, &mut out, false, &mut cause);
        drop(file);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(text.starts_with(tsv::HEADER) && text.ends_with('\n'));
        let rows = text
            .lines()
            .skip(1)
            .map(|l| l.split('\t').map(String::from).collect())
            .collect();
        Some((code, cause.to_string(), rows))
    }

    fn col(name: &str) -> usize {
        tsv::HEADER
            .trim_end()
            .split('\t')
            .position(|c| c == name)
            .unwrap()
    }

    #[test]
    fn a_failing_round_row_is_written_with_semantic_pass_0() {
        // 1 warm-up of 3 cycles, then the 2nd cycle of measured round 1 fails.
        let Some((code, cause, rows)) = run_failing(1, 4, 3 + 3 + 2) else {
            return;
        };
        assert_eq!(code, exit::FAIL);
        assert!(cause.starts_with("FAIL: bad_result"), "{cause}");
        let got: Vec<(&str, &str, &str, &str, &str)> = rows
            .iter()
            .map(|r| {
                (
                    r[col("phase")].as_str(),
                    r[col("round")].as_str(),
                    r[col("cycles")].as_str(),
                    r[col("semantic_pass")].as_str(),
                    r[col("bad_results")].as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("warmup", "0", "3", "1", "0"),
                ("measured", "0", "3", "1", "0"),
                ("measured", "1", "2", "0", "1"),
            ]
        );
        for r in &rows {
            assert_eq!(r.len(), col("io_uring_disabled") + 1);
            assert_eq!(
                r[col("nop_submitted")],
                (4 * r[col("cycles")].parse::<u64>().unwrap()).to_string()
            );
        }
    }

    #[test]
    fn a_failing_warmup_stops_the_run_after_its_row() {
        let Some((code, _, rows)) = run_failing(2, 15, 2) else {
            return;
        };
        assert_eq!(code, exit::FAIL);
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (
                rows[0][col("phase")].as_str(),
                rows[0][col("semantic_pass")].as_str()
            ),
            ("warmup", "0")
        );
    }
}
