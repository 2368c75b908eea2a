//! Wires the pieces together: argv -> Config -> environment facts -> ring ->
//! profile -> report -> exit code. Every non-zero exit writes one stderr line
//! naming its cause.

use core::fmt::Write;

use crate::check::Ledger;
use crate::cli::{self, Command, RunConfig};
use crate::cpu;
use crate::hist::Histogram;
use crate::profile::wait_wake::WaitWake;
use crate::profile::{run_round, run_round_into, Profile, Round};
use crate::report::{Bytes, Dec, Out, Ratio6};
use crate::ring::{self, Ring, SetupError};
use crate::rt::StartInfo;
use crate::stats;
use crate::sys::clock::Clock;
use crate::sys::uapi::{self, AT_SYSINFO_EHDR, IORING_SQ_CQ_OVERFLOW};
use crate::sys::{self, Errno, CPU_SET_BYTES};

/// Exit codes (kselftest-style, DESIGN.md §5).
pub mod exit {
    pub const PASS: i32 = 0;
    pub const FAIL: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const SKIP: i32 = 4;
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
            // SAFETY: the value is this process's AT_SYSINFO_EHDR (or 0).
            let clock = unsafe { Clock::new(start.auxv(AT_SYSINFO_EHDR).unwrap_or(0)) };
            run(&cfg, &clock, &mut out)
        }
        Err(e) => fail(exit::USAGE, format_args!("{e}")),
    };
    out.flush();
    if out.broken() && code == exit::PASS {
        return exit::STDOUT_CLOSED;
    }
    code
}

/// Writes `uring-repro: MSG` to stderr and returns `code`.
pub fn fail(code: i32, msg: core::fmt::Arguments<'_>) -> i32 {
    let mut err = Out::new(2);
    let _ = writeln!(err, "uring-repro: {msg}");
    err.flush();
    code
}

/// Facts about the box that the banner states.
struct Facts {
    uts: uapi::Utsname,
    boot_id: [u8; 64],
    boot_id_len: usize,
}

impl Facts {
    fn read() -> Facts {
        let mut uts = uapi::Utsname {
            sysname: [0; 65],
            nodename: [0; 65],
            release: [0; 65],
            version: [0; 65],
            machine: [0; 65],
            domainname: [0; 65],
        };
        let _ = sys::uname(&mut uts);
        let mut boot_id = [0u8; 64];
        let len = match sys::read_file(b"/proc/sys/kernel/random/boot_id\0", &mut boot_id) {
            Ok(s) => s.iter().position(|&b| b == b'\n').unwrap_or(s.len()),
            Err(_) => 0,
        };
        Facts {
            uts,
            boot_id,
            boot_id_len: len,
        }
    }

    fn release(&self) -> &[u8] {
        let r = &self.uts.release;
        let n = r.iter().position(|&b| b == 0).unwrap_or(r.len());
        if n == 0 {
            b"unknown"
        } else {
            &r[..n]
        }
    }

    fn boot_id(&self) -> &[u8] {
        if self.boot_id_len == 0 {
            b"unknown"
        } else {
            &self.boot_id[..self.boot_id_len]
        }
    }
}

/// Runs a configured benchmark and reports it; returns the exit code.
pub fn run(cfg: &RunConfig, clock: &Clock, out: &mut Out) -> i32 {
    // CPU first: a bad --cpu is a usage error, whatever the kernel can do.
    let mut allowed = [0u8; CPU_SET_BYTES];
    if let Err(e) = sys::sched_getaffinity(&mut allowed) {
        return fail(exit::SKIP, format_args!("sched_getaffinity failed: {e}"));
    }
    let choice = match cpu::choose(cfg.cpu, &allowed) {
        Ok(c) => c,
        Err(c) => {
            return fail(
                exit::USAGE,
                format_args!(
                "--cpu {c}: CPU {c} is not online or not allowed for this process (allowed: {})",
                cpu::Ranges(&allowed)
            ),
            )
        }
    };
    if let Err(e) = cpu::pin(choice.cpu()) {
        return fail(
            exit::USAGE,
            format_args!("--cpu {}: cannot pin: {e}", choice.cpu()),
        );
    }

    let mut ring = match Ring::new(RING_ENTRIES, CQ_ENTRIES, 0) {
        Ok(r) => r,
        Err(SetupError::Setup(e)) if e == Errno::EPERM || e == Errno::ENOSYS => {
            return fail(
                exit::SKIP,
                format_args!("io_uring unavailable: io_uring_setup: {e}"),
            )
        }
        Err(SetupError::Setup(e)) => {
            return fail(exit::SKIP, format_args!("io_uring_setup failed: {e}"))
        }
        Err(SetupError::Mmap(e)) => {
            return fail(exit::SKIP, format_args!("mapping the rings failed: {e}"))
        }
        Err(SetupError::Feature(f)) => {
            return fail(
                exit::SKIP,
                format_args!("kernel lacks {f} (needed to bound waits)"),
            )
        }
    };
    ring.set_wait_timeout_ns(cfg.timeout_s as u64 * 1_000_000_000);

    let mut profile = match WaitWake::new(cfg.slots, true) {
        Ok(p) => p,
        Err(e) => {
            return fail(
                exit::SKIP,
                format_args!("mapping the futex words failed: {e}"),
            )
        }
    };
    if let Some(code) = probe(&ring, profile.opcodes()) {
        return code;
    }

    let facts = Facts::read();
    let _ = writeln!(
        out,
        "# uring-repro {VERSION} profile={} kernel={} boot_id={} cpu={} cpu_choice={} clock={}",
        cfg.profile.formal_name(),
        Bytes(facts.release()),
        Bytes(facts.boot_id()),
        choice.cpu(),
        choice.how(),
        clock.source().name(),
    );
    let _ = writeln!(
        out,
        "# ring_entries={} cq_entries={} slots={} cycles={} warmups={} rounds={} futex=private \
         timeout_s={} features={:#x}",
        ring.sq_entries(),
        ring.cq_entries(),
        cfg.slots,
        cfg.cycles,
        cfg.warmups,
        cfg.rounds,
        cfg.timeout_s,
        ring.features(),
    );
    let _ = writeln!(out, "round\tpairs\tns_per_pair\tsemantic_pass");
    out.flush();

    let outcome = measure(cfg, &mut profile, &mut ring, clock, choice.cpu(), out);
    finish(outcome, &ring, out)
}

/// Probes the ring for `needed` opcodes; Some(exit code) when any is missing.
fn probe(ring: &Ring, needed: &[(u8, &str)]) -> Option<i32> {
    let mut p = ring::empty_probe();
    if let Err(e) = ring.probe(&mut p) {
        return Some(fail(
            exit::SKIP,
            format_args!("IORING_REGISTER_PROBE failed: {e}"),
        ));
    }
    if needed.iter().all(|&(op, _)| ring::probe_supports(&p, op)) {
        return None;
    }
    let mut err = Out::new(2);
    let _ = write!(err, "uring-repro: kernel lacks");
    for &(op, name) in needed
        .iter()
        .filter(|&&(op, _)| !ring::probe_supports(&p, op))
    {
        let _ = write!(err, " {name} ({op})");
    }
    let _ = writeln!(err, " (probe last_op={})", p.last_op);
    err.flush();
    Some(exit::SKIP)
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
}

/// Warm-ups, then measured rounds, a row printed and flushed after each.
fn measure<P: Profile>(
    cfg: &RunConfig,
    profile: &mut P,
    ring: &mut Ring,
    clock: &Clock,
    cpu: u32,
    out: &mut Out,
) -> Outcome {
    let mut o = Outcome {
        ledger: Ledger::default(),
        rounds: 0,
        ns_per_pair: [0.0; cli::MAX_ROUNDS as usize],
        total_ns: 0,
        total_pairs: 0,
        hist: Histogram::default(),
        pairs_per_cycle: profile.pairs_per_cycle(),
    };
    let mut seq = 0u32;
    for _ in 0..cfg.warmups {
        check_cpu(cpu, &mut o.ledger);
        if !run_round(profile, ring, clock, &mut o.ledger, cfg.cycles, &mut seq).passed {
            return o;
        }
    }
    for r in 0..cfg.rounds {
        check_cpu(cpu, &mut o.ledger);
        let before = o.ledger.failures();
        let round: Round = run_round_into(
            profile,
            ring,
            clock,
            &mut o.ledger,
            cfg.cycles,
            &mut seq,
            Some(&mut o.hist),
        );
        check_cpu(cpu, &mut o.ledger);
        let passed = round.passed && o.ledger.failures() == before;
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

/// End-of-run checks, the summary and the verdict.
fn finish(mut o: Outcome, ring: &Ring, out: &mut Out) -> i32 {
    let l = &mut o.ledger;
    l.sq_dropped += ring.sq_dropped() as u64;
    l.cq_overflow += ring.cq_overflow() as u64;
    if ring.sq_flags() & IORING_SQ_CQ_OVERFLOW != 0 {
        l.cq_overflow += 1;
    }
    l.outstanding += ring.sq_outstanding() as u64 + ring.cq_ready() as u64;
    if l.sq_dropped + l.cq_overflow + l.outstanding != 0 {
        l.note("end_of_run_state", 0, None);
    }
    let passed = l.passed();
    let _ = writeln!(
        out,
        "mean\t{}\t{}\t{}",
        o.total_pairs,
        Ratio6 {
            num: o.total_ns,
            den: o.total_pairs
        },
        passed as u8
    );
    let s = stats::summarize(&o.ns_per_pair[..o.rounds]);
    let _ = writeln!(
        out,
        "# median={} min={} max={} cv={}%",
        Dec(s.median, 6),
        Dec(s.min, 6),
        Dec(s.max, 6),
        Dec(s.cv_pct, 3)
    );
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
    for (name, v) in l.counters() {
        let _ = write!(out, " {name}={v}");
    }
    let _ = writeln!(out, " -> {}", if passed { "PASS" } else { "FAIL" });
    out.flush();
    if out.broken() {
        return exit::STDOUT_CLOSED;
    }
    if passed {
        return exit::PASS;
    }
    match l.first {
        Some(f) => fail(
            exit::FAIL,
            format_args!(
                "FAIL: {} (cycle seq {}, user_data={:#x}, res={}, flags={:#x}); counters on stdout",
                f.what, f.seq, f.user_data, f.res, f.flags
            ),
        ),
        None => fail(
            exit::FAIL,
            format_args!("FAIL: see the checks line on stdout"),
        ),
    }
}
