//! pollwake's run: the rounds, each mode's rows as they finish, and the
//! summary (means, spread, the differences against `none`, the idle and
//! waiter facts, the checks line and the verdict). See docs/pollwake.md.

use core::fmt::Write;

use super::commit_shape;
use super::waiter::{Watchdog, FAIL_PIN};
use super::{Mode, Options, Pollwake, SetupFail, GRACE_MS, HIST, MODES, WATCHDOG_MS};
use crate::app::{self, exit, VERSION};
use crate::check::Ledger;
use crate::cli::RunConfig;
use crate::cpu::{self, Choice};
use crate::facts::Facts;
use crate::report::{Bytes, Dec, Line, Out, Ratio6};
use crate::ring::SetupError;
use crate::stats;
use crate::sys::clock::Clock;
use crate::sys::signal;
use crate::sys::uapi::{IORING_OP_MSG_RING, IORING_OP_NOP};
use crate::sys::{self, CpuSet, Errno};

/// Per-mode results of the measured rounds.
struct ModeRows {
    ns_per_pair: [f64; crate::cli::MAX_ROUNDS as usize],
    rounds: usize,
    total_ns: u64,
    total_pairs: u64,
}

/// Runs the pollwake profile (app::run dispatches here after pinning).
#[inline(never)]
pub fn run(cfg: &RunConfig, clock: &Clock, choice: Choice, allowed: &CpuSet, out: &mut Out) -> i32 {
    let wcpu = cfg.waiter_cpu.unwrap_or(choice.cpu());
    if !cpu::contains(allowed, wcpu) {
        return app::fail(
            exit::USAGE,
            format_args!(
                "--waiter-cpu {wcpu}: CPU {wcpu} is not online or not allowed (allowed: {})",
                cpu::Ranges(allowed)
            ),
        );
    }
    let o = Options {
        burst: cfg.burst,
        flags: cfg.ring_flags,
        waiter_cpu: wcpu,
        cpu: choice.cpu(),
        dog: Watchdog {
            timeout_ms: WATCHDOG_MS,
            grace_ms: GRACE_MS,
        },
        timeout_ns: cfg.timeout_s as u64 * 1_000_000_000,
    };
    let mut pw = match Pollwake::new(o) {
        Ok(p) => p,
        Err(e) => return setup_failed(e),
    };
    let ops = [
        (IORING_OP_MSG_RING, "IORING_OP_MSG_RING"),
        (IORING_OP_NOP, "IORING_OP_NOP"),
    ];
    let mut cause = Line::new();
    if let Err(code) = app::probe(pw.source(), &ops, &mut cause) {
        return app::fail(code, format_args!("{cause}"));
    }
    let mut l = Ledger::default();
    let ev = match pw.eventfd_pass(&mut l) {
        Ok(c) => c,
        Err(e) => return setup_failed(e),
    };
    if let Err(code) = pw.start_waiter() {
        drop(pw);
        let (exit, e) = match code {
            FAIL_PIN => (exit::USAGE, Errno::EINVAL),
            e => (exit::SKIP, Errno(e as i32)),
        };
        return app::fail(
            exit,
            format_args!("the waiter thread cannot start on CPU {wcpu}: {e}"),
        );
    }
    banner(&pw, cfg, choice, clock, &ev, out);

    let mut rows = [const {
        ModeRows {
            ns_per_pair: [0.0; crate::cli::MAX_ROUNDS as usize],
            rounds: 0,
            total_ns: 0,
            total_pairs: 0,
        }
    }; 4];
    let mut seq = 1u32;
    let mut sig = 0;
    'rounds: for r in 0..cfg.warmups + cfg.rounds {
        for m in MODES {
            let row = (r >= cfg.warmups).then(|| (r - cfg.warmups, &mut rows[m as usize]));
            match pw.mode_round(
                m,
                cfg.cycles,
                choice.cpu(),
                &mut seq,
                clock,
                &mut l,
                row,
                out,
            ) {
                Next::Go => {}
                Next::Stop => break 'rounds,
                Next::Interrupted(s) => {
                    sig = s;
                    break 'rounds;
                }
            }
        }
    }
    // Every path joins the waiter here, an interrupted one too.
    pw.finish(&mut l);
    report(&pw, &rows, &l, sig, out)
}

/// How a mode's share of a round ended.
enum Next {
    Go,
    /// A check failed or stdout is gone: the run ends.
    Stop,
    /// SIGINT or SIGTERM was caught: the run ends, this share unreported.
    Interrupted(u32),
}

/// The `#` lines before the table.
#[inline(never)]
fn banner(
    pw: &Pollwake,
    cfg: &RunConfig,
    choice: Choice,
    clock: &Clock,
    ev: &[u64; 3],
    out: &mut Out,
) {
    let o = &pw.o;
    let facts = Facts::read(choice.cpu());
    let _ = writeln!(
        out,
        "# uring-repro {VERSION} profile=pollwake kernel={} boot_id={} cpu={} cpu_choice={} clock={}",
        Bytes(facts.release()),
        Bytes(facts.boot_id.get()),
        choice.cpu(),
        choice.how(),
        clock.source().name(),
    );
    let s = pw.source();
    let _ = writeln!(
        out,
        "# burst={} cycles={} warmups={} rounds={} ring_flags={} waiter_cpu={} watchdog_ms={} \
         ring_entries={} cq_entries={} timeout_s={} features={:#x}\n\
         # modes in this order each round, each on its own target ring: none idle waiter \
         none_aa; a pair is one MSG_RING message and its target CQE",
        o.burst,
        cfg.cycles,
        cfg.warmups,
        cfg.rounds,
        o.flags.name(),
        o.waiter_cpu,
        o.dog.timeout_ms,
        s.sq_entries(),
        s.cq_entries(),
        cfg.timeout_s,
        s.features(),
    );
    facts.print(out);
    let _ = writeln!(
        out,
        "# eventfd pass (untimed, own ring): {} MSG_RING -> +{} on send, +{} on flush: {}; \
         {} NOP in one enter -> +{}\n\
         profile\tround\tpairs\tns_per_pair\tsemantic_pass",
        o.burst,
        ev[0],
        ev[1],
        commit_shape(ev, o.burst, o.flags.deferred()).unwrap_or("UNEXPECTED"),
        o.burst,
        ev[2],
    );
    out.flush();
}

impl Pollwake {
    /// One mode's share of a round: `cycles` bursts, then its row when
    /// measured (`row` = round number and where to keep it). Checks for
    /// SIGINT or SIGTERM after each clean burst (its waits retry EINTR, so
    /// every burst completes): once caught, the share ends without a row.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn mode_round(
        &mut self,
        m: Mode,
        cycles: u32,
        cpu: u32,
        seq: &mut u32,
        clock: &Clock,
        l: &mut Ledger,
        row: Option<(u32, &mut ModeRows)>,
        out: &mut Out,
    ) -> Next {
        check_cpu(cpu, l);
        let before = l.failures() + self.checks.failures();
        let (mut ns, mut pairs) = (0u64, 0u64);
        for _ in 0..cycles {
            let (t, clean) = self.burst(m, *seq, clock, l);
            *seq = seq.wrapping_add(1);
            ns += t;
            pairs += self.o.burst as u64;
            if !clean {
                break;
            }
            let sig = signal::caught();
            if sig != 0 {
                return Next::Interrupted(sig);
            }
        }
        check_cpu(cpu, l);
        let ok = l.failures() + self.checks.failures() == before;
        if !ok && self.first_mode.is_none() {
            self.first_mode = Some(m);
        }
        if let Some((r, row)) = row {
            let _ = writeln!(
                out,
                "{}\t{r}\t{pairs}\t{}\t{}",
                m.profile(),
                Ratio6 {
                    num: ns,
                    den: pairs
                },
                ok as u8
            );
            out.flush();
            row.ns_per_pair[row.rounds] = ns as f64 / pairs as f64;
            row.rounds += 1;
            row.total_ns += ns;
            row.total_pairs += pairs;
        }
        if ok && !out.broken() {
            Next::Go
        } else {
            Next::Stop
        }
    }
}

/// Counts a migration when getcpu does not report the pinned CPU.
fn check_cpu(cpu: u32, l: &mut Ledger) {
    if sys::getcpu() != Ok(cpu) {
        l.migrations += 1;
        l.note("migration", 0, None);
    }
}

#[inline(never)]
fn setup_failed(e: SetupFail) -> i32 {
    let (what, e) = match e {
        SetupFail::Ring(SetupError::Setup(e)) => ("io_uring_setup", e),
        SetupFail::Ring(SetupError::Mmap(e)) => ("mapping a ring", e),
        SetupFail::Ring(SetupError::Feature(_)) => ("IORING_FEAT_EXT_ARG", Errno::EOPNOTSUPP),
        SetupFail::Sys(what, e) => (what, e),
    };
    app::fail(
        exit::SKIP,
        format_args!("pollwake set-up: {what} failed: {e}"),
    )
}

/// `+1.234` / `-1.234`: deltas always carry their sign.
struct Signed(f64);

impl core::fmt::Display for Signed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.0 >= 0.0 {
            f.write_str("+")?;
        }
        write!(f, "{}", Dec(self.0, 3))
    }
}

impl ModeRows {
    fn mean(&self) -> f64 {
        self.total_ns as f64 / self.total_pairs.max(1) as f64
    }
}

/// A mode's mean row and spread; for all but `none`, its difference from
/// `none`: means, percent, and the sd of the per-round differences (the
/// modes share every round, so round-to-round drift cancels).
#[inline(never)]
fn mode_summary(out: &mut Out, m: Mode, r: &ModeRows, base: &ModeRows, passed: bool) {
    let per_round = &r.ns_per_pair[..r.rounds];
    app::mean_and_spread(
        out,
        Some(m.profile()),
        r.total_ns,
        r.total_pairs,
        passed,
        per_round,
    );
    if m != Mode::None {
        let n = r.rounds.min(base.rounds);
        let mut d = [0f64; crate::cli::MAX_ROUNDS as usize];
        for (k, v) in d[..n].iter_mut().enumerate() {
            *v = r.ns_per_pair[k] - base.ns_per_pair[k];
        }
        let _ = write!(
            out,
            "\n# {}-none: {} ns per completion ({}%), per-round sd {}",
            m.name(),
            Signed(r.mean() - base.mean()),
            Signed(stats::pct_change(r.mean(), base.mean())),
            Dec(stats::summarize(&d[..n]).stddev, 3),
        );
        if m == Mode::NoneAa {
            out.bytes(b" (A/A control: the noise floor)");
        }
    }
    out.bytes(b"\n");
}

/// The checks line's counters, in order: totals, then failure counters
/// (space-separated, as `Ledger::COUNTER_NAMES`).
const CHECKS: &str = "\
    cqes source_cqes target_cqes bad_results bad_flags unknown_tags duplicates missing \
    timeouts submit_errors sq_dropped cq_overflow outstanding migrations epoll_bad \
    lost_wakeups bad_events waiter_errors not_asleep eventfd_bad";

/// The summary, the idle and waiter facts, the checks and the verdict
/// (`sig`: the signal that ended the run early, 0 when none).
#[inline(never)]
fn report(pw: &Pollwake, rows: &[ModeRows; 4], l: &Ledger, sig: u32, out: &mut Out) -> i32 {
    let c = &pw.checks;
    let passed = l.passed() && c.failures() == 0;
    for m in MODES {
        mode_summary(out, m, &rows[m as usize], &rows[0], passed);
    }
    let gap = |m: Mode| Ratio6 {
        num: pw.gap_ns[m as usize],
        den: pw.gap_bursts[m as usize],
    };
    let bursts: u64 = pw.wake_hist.iter().sum();
    let wakes: u64 = pw
        .wake_hist
        .iter()
        .enumerate()
        .map(|(k, v)| k as u64 * v)
        .sum();
    let _ = write!(
        out,
        "# idle: epoll_pwait(0) after each burst, outside the timed span: {} ns per burst \
         (an empty gap in none: {} ns); epoll_bad={}\n\
         # waiter: cpu={} handover={} bursts={bursts} wakes={wakes} wakes_per_burst",
        gap(Mode::Idle),
        gap(Mode::None),
        c.epoll_bad,
        pw.o.waiter_cpu,
        if pw.o.waiter_cpu == pw.o.cpu {
            "futex"
        } else {
            "spin_then_futex"
        },
    );
    for (k, v) in core::hint::black_box(&pw.wake_hist[..]).iter().enumerate() {
        if *v != 0 {
            let more = if k == HIST - 1 { "+" } else { "" };
            let _ = write!(out, " {k}{more}:{v}");
        }
    }
    let _ = write!(
        out,
        " lost_wakeups={} late_wakeups={} empty_wakes={} asleep_check={} not_asleep={} \
         asleep_retries={}\n# checks:",
        c.lost_wakeups,
        c.late_wakeups,
        c.empty_wakes,
        if pw.parked_check() {
            "proc"
        } else {
            "unavailable"
        },
        c.not_parked,
        c.park_retries,
    );
    let values = [
        l.cqes,
        c.source_cqes,
        c.target_cqes,
        l.bad_results,
        l.bad_flags,
        l.unknown_tags,
        l.duplicates,
        l.missing,
        l.timeouts,
        l.submit_errors,
        l.sq_dropped,
        l.cq_overflow,
        l.outstanding,
        l.migrations,
        c.epoll_bad,
        c.lost_wakeups,
        c.bad_events,
        c.waiter_errors,
        c.not_parked,
        c.eventfd_bad,
    ];
    app::pairs(out, CHECKS, &values);
    let _ = writeln!(out, " -> {}", app::verdict(passed, sig));
    out.flush();
    if sig != 0 {
        // The caller prints the cause (app::attempt).
        return exit::INTERRUPTED;
    }
    if out.broken() {
        return exit::STDOUT_CLOSED;
    }
    if passed {
        return exit::PASS;
    }
    let mode = pw.first_mode.map_or("-", |m| m.name());
    let f = l.first.unwrap_or(crate::check::Failure {
        what: "see the checks line",
        seq: 0,
        cqe: None,
    });
    let c = f.cqe.unwrap_or_default();
    let waiter = pw.waiter_error().map_or(0, |e| e as i32);
    app::fail(
        exit::FAIL,
        format_args!(
            "FAIL: {} in mode {mode} (burst seq {}, user_data={:#x}, res={}, flags={:#x}; \
             waiter errno {waiter}); counters on stdout",
            f.what, f.seq, c.user_data, c.res, c.flags
        ),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn checks_names_every_counter() {
        // `report` passes 20 values; `app::pairs` would drop unnamed ones.
        assert_eq!(super::CHECKS.split(' ').count(), 20);
    }
}
