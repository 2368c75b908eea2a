//! The one round driver: warm-ups, then measured rounds, for every
//! workload alike. Each round runs `--cycles` cycles of each of the
//! workload's series (one for the futex workloads, pollwake's four modes),
//! and each series' share of a round is one row. Around a share: the CPU
//! check (a getcpu that fails is the run's own fault, not a migration: it
//! ends the run); after it: what the kernel reports of the rings, the TSV
//! row, the stdout row (measured rounds). The first failing share ends the
//! run, its row printed with semantic_pass 0. A share that SIGINT or SIGTERM
//! interrupts leaves no trace: no row, and neither its counts nor its
//! cycles in the summary.

use core::fmt::Write;

use crate::check::Ledger;
use crate::config::RunConfig;
use crate::hist::Histogram;
use crate::profile::parts::collect::{account, check_cpu};
use crate::profile::vocabulary::{Fault, Outcome, Workload, MAX_SERIES};
use crate::render;
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::out::Out;
use crate::sys::signal;
use crate::sys::{self, Mark};
use crate::tsv::{self, TsvFile};

/// One share of a round: `cycles` cycles of one series.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Share {
    pub timed_ns: u64,
    pub cycles: u32,
    pub pairs: u64,
    pub passed: bool,
    /// SIGINT or SIGTERM was caught during it: the share is unfinished
    /// (its last cycle may have stopped waiting), and the run ends.
    pub interrupted: bool,
}

/// Runs up to `cycles` cycles of `series`, each `pairs` pairs, stopping
/// at the first unclean one (the ring's state is then unknown, and the run
/// fails anyway), or after the cycle that saw SIGINT or SIGTERM. Every
/// timed cycle's ns also goes to `hist` (after its closing clock read:
/// outside the timed span).
#[allow(clippy::too_many_arguments)]
pub fn run_share(
    work: &mut dyn Workload,
    series: usize,
    ring: &mut Ring,
    clock: &Clock,
    ledger: &mut Ledger,
    cycles: u32,
    pairs: u64,
    seq: &mut u32,
    mut hist: Option<&mut Histogram>,
) -> Share {
    let mut t = Share {
        passed: true,
        ..Share::default()
    };
    work.select(series);
    for _ in 0..cycles {
        let (ns, ok) = work.cycle(ring, clock, ledger, *seq);
        *seq = seq.wrapping_add(1);
        if let Some(h) = hist.as_deref_mut() {
            h.record(ns);
        }
        t.timed_ns += ns;
        t.cycles += 1;
        t.pairs += pairs;
        // Outside the timed span: one relaxed load per cycle. Before the
        // clean check: a cycle the signal cut short is not a failure.
        if signal::caught() != 0 {
            t.interrupted = true;
            break;
        }
        if !ok {
            t.passed = false;
            break;
        }
    }
    t
}

/// The cost counter's marker opening or closing series `k`'s window, out of
/// line: one call on either side of a measured share.
#[inline(never)]
fn mark_share(mark: Mark, k: usize) {
    sys::cost_mark(mark, k);
}

/// Where a run's rows go: stdout, and the `--tsv` file with what every row
/// of it repeats.
pub struct Sinks<'s, 'c> {
    pub out: &'s mut Out,
    pub tsv: Option<(&'s mut TsvFile, &'s tsv::Context<'c>)>,
}

/// Warm-ups, then measured rounds (see the module docs), into `o`.
pub fn rounds(
    cfg: &RunConfig,
    work: &mut dyn Workload,
    ring: &mut Ring,
    clock: &Clock,
    cpu: u32,
    o: &mut Outcome,
    sinks: Sinks,
) {
    let Sinks { out, mut tsv } = sinks;
    // A share's cycles join `o.hist` once the share has finished.
    let mut share_hist = Histogram::default();
    let mut seq = 0u32;
    let series = o.series;
    'rounds: for i in 0..cfg.warmups + cfg.rounds {
        let warmup = i < cfg.warmups;
        let r = if warmup { i } else { i - cfg.warmups };
        for (k, s) in series.iter().enumerate().take(MAX_SERIES) {
            let before = o.ledger;
            if let Err(e) = check_cpu(cpu, &mut o.ledger) {
                // The pin cannot be checked: the share is not run (no row).
                (o.fault, o.failed_series) = (Some(Fault::Getcpu(e)), Some(k));
                break 'rounds;
            }
            let hist = (!warmup).then_some(&mut share_hist);
            let l = &mut o.ledger;
            // The cost counter's window (docs/cost.md): a measured share's
            // cycles, and none of the bookkeeping or printing around them;
            // inside it, the counter counts the timed spans (span.rs).
            if !warmup {
                mark_share(Mark::Open, k);
            }
            let (n, pairs) = (cfg.cycles, o.pairs);
            let t = run_share(work, k, ring, clock, l, n, pairs, &mut seq, hist);
            if !warmup {
                mark_share(Mark::Close, k);
            }
            if t.interrupted {
                o.ledger = before;
                o.interrupted = signal::caught();
                break 'rounds;
            }
            o.hist.absorb(&mut share_hist);
            let on_cpu = check_cpu(cpu, &mut o.ledger);
            account(ring, &mut o.ledger, seq);
            work.account(&mut o.ledger, seq);
            if let Err(e) = on_cpu {
                o.fault = Some(Fault::Getcpu(e));
            }
            let passed = t.passed && o.ledger.failures() == before.failures() && on_cpu.is_ok();
            if let Some((file, ctx)) = tsv.as_mut() {
                let row = tsv::Row {
                    phase: if warmup { "warmup" } else { cfg.mode.phase() },
                    round: r,
                    cycles: t.cycles,
                    pairs: t.pairs,
                    timed_ns: t.timed_ns,
                    pass: passed,
                    counts: &o.ledger.since(&before),
                    witness: tsv::NO_WITNESS,
                };
                file.row(ctx, &row);
            }
            if !passed {
                o.failed_series = Some(k);
            }
            if warmup && !passed {
                let _ = writeln!(out, "# warm-up round {r} failed");
            }
            if !warmup {
                // A table of several series tags each row with its own.
                let tag = if series.len() > 1 { s.name } else { "" };
                render::row(out, tag, r, t.pairs, t.timed_ns, passed);
                out.flush();
                if t.pairs > 0 {
                    o.rows[k].add(t.timed_ns, t.pairs);
                }
            }
            if !passed || out.broken() {
                let last =
                    i + 1 == cfg.warmups + cfg.rounds && k + 1 == series.len().min(MAX_SERIES);
                o.stdout_cut = passed && !last;
                break 'rounds;
            }
        }
    }
    if o.interrupted != 0 {
        if let Some((file, ctx)) = tsv.as_mut() {
            // The point is incomplete: one last row says so, and how far it got.
            let row = tsv::Row {
                phase: "interrupted",
                round: o.complete_rounds(),
                cycles: 0,
                pairs: 0,
                timed_ns: 0,
                pass: false,
                counts: &Ledger::default(),
                witness: tsv::NO_WITNESS,
            };
            file.row(ctx, &row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Fail, Kind};
    use crate::config::{CQ_ENTRIES, RING_ENTRIES};
    use crate::cpu;
    use crate::facts::Facts;
    use crate::profile::vocabulary::Timed;
    use crate::sys;

    /// A workload that fails at its `fail_at`-th cycle (1-based), with
    /// made-up counts: it drives `rounds` without a kernel failure having
    /// to be provoked.
    struct FailAt {
        done: u32,
        fail_at: u32,
    }

    impl Workload for FailAt {
        fn cycle(&mut self, _: &mut Ring, _: &Clock, l: &mut Ledger, seq: u32) -> Timed {
            self.done += 1;
            l.submitted[Kind::Nop as usize] += 4;
            l.kind_cqes[Kind::Nop as usize] += 4;
            l.cqes += 4;
            if self.done == self.fail_at {
                l.fail(Fail::BadResult, "bad_result", seq, None);
                return (10, false);
            }
            (10, true)
        }
    }

    /// Runs the rounds with FailAt into a fresh TSV file; returns the
    /// outcome, stdout and the file's rows as columns.
    fn run_failing(
        warmups: u32,
        rounds_: u32,
        fail_at: u32,
    ) -> Option<(Outcome, String, Vec<Vec<String>>)> {
        let mut ring = match Ring::new(RING_ENTRIES, CQ_ENTRIES, 0) {
            Ok(r) => r,
            Err(e) => {
                crate::testing::skip(&format!("io_uring unavailable here: {e:?}"));
                return None;
            }
        };
        // The driver checks the CPU does not change: pin this test thread.
        let cpu = sys::getcpu().unwrap();
        cpu::pin(cpu).unwrap();
        let dir = crate::testing::scratch(&format!("driver-{warmups}-{fail_at}"));
        let path = dir.join("rows.tsv");
        let mut file =
            TsvFile::create(sys::CPath::new(path.to_str().unwrap().as_bytes()).unwrap()).unwrap();
        let cfg = RunConfig {
            warmups,
            rounds: rounds_,
            cycles: 3,
            ..RunConfig::default()
        };
        let facts = Facts::read(cpu);
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
            ring_features: 0,
            facts: &facts,
            rounds_planned: rounds_,
            inject_ns: 0,
            witness: ("off", "none"),
            timebase: "wall",
        };
        let stdout = dir.join("stdout");
        let f = std::fs::File::create(&stdout).unwrap();
        let mut out = Out::new(std::os::fd::AsRawFd::as_raw_fd(&f));
        let mut fake = FailAt { done: 0, fail_at };
        let sinks = Sinks {
            out: &mut out,
            tsv: Some((&mut file, &ctx)),
        };
        let clock = Clock::syscall();
        let n0 = crate::profile::registry::ProfileId::parse(b"n0").unwrap();
        let mut o = Outcome::new(Ledger::default(), n0.profile().series, 4);
        rounds(&cfg, &mut fake, &mut ring, &clock, cpu, &mut o, sinks);
        out.flush();
        // The rows are on disk before the verdict, and before the close.
        let text = std::fs::read_to_string(&path).unwrap();
        drop(file);
        let printed = std::fs::read_to_string(&stdout).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(text.starts_with(tsv::HEADER) && text.ends_with('\n'));
        let rows = text
            .lines()
            .skip(1)
            .map(|l| l.split('\t').map(String::from).collect())
            .collect();
        Some((o, printed, rows))
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
        let Some((o, printed, rows)) = run_failing(1, 4, 3 + 3 + 2) else {
            return;
        };
        assert_eq!(o.ledger.first.unwrap().what, "bad_result");
        assert_eq!(o.failed_series, Some(0));
        assert_eq!(printed, "0\t12\t2.500000\t1\n1\t8\t2.500000\t0\n");
        let got: Vec<[&str; 5]> = rows
            .iter()
            .map(|r| {
                ["phase", "round", "cycles", "semantic_pass", "bad_results"]
                    .map(|c| r[col(c)].as_str())
            })
            .collect();
        assert_eq!(
            got,
            [
                ["warmup", "0", "3", "1", "0"],
                ["measured", "0", "3", "1", "0"],
                ["measured", "1", "2", "0", "1"],
            ]
        );
        for r in &rows {
            assert_eq!(r.len(), col("timebase") + 1);
            assert_eq!(r[col("timebase")], "wall");
            assert_eq!(r[col("rounds_planned")], "4");
            assert_eq!(
                r[col("nop_submitted")],
                (4 * r[col("cycles")].parse::<u64>().unwrap()).to_string()
            );
        }
    }

    #[test]
    fn a_failing_warmup_stops_the_run_after_its_row() {
        let Some((o, printed, rows)) = run_failing(2, 15, 2) else {
            return;
        };
        assert!(!o.ledger.passed());
        assert_eq!(printed, "# warm-up round 0 failed\n");
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
