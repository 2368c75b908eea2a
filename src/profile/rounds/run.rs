//! A run from start to verdict: choose and pin the CPU, set up the ring and
//! the workload (every reason not to start is an exit code and one line),
//! print the banner and the facts, drive the rounds (driver.rs), print the
//! summary and the checks line, and judge.

use core::ffi::CStr;
use core::fmt::Write;

use super::contract;
use super::driver::{self, Sinks};
use super::output::{self, RunInfo};
use super::witnessed::RunWitness;
use crate::check::Ledger;
use crate::config::{Mode, RunConfig};
use crate::cpu::{self, Choice, PinError};
use crate::exit::{self, Exit};
use crate::facts::Facts;
use crate::outfile::Removal;
use crate::profile::parts::process::{self, Before, GiveBack};
use crate::profile::parts::setup::{self, Step, Whose};
use crate::profile::registry::ProfileId;
use crate::profile::vocabulary::{Outcome, SetUp, Workload};
use crate::render::{self, Clean};
use crate::ring::Ring;
use crate::sys::clock::Clock;
use crate::sys::out::Out;
use crate::sys::signal;
use crate::sys::uapi::O_WRONLY;
use crate::sys::{self, CpuSet, Errno, Fd, SysResult, CPU_SET_BYTES};
use crate::tsv::{self, TsvFile};

/// Runs workload `id` with `cfg` and reports it on `out` (and `--tsv`).
pub fn run(id: ProfileId, cfg: &RunConfig, clock: &Clock, out: &mut Out) -> Exit {
    run_point(id, cfg, clock, out, &mut |_| {})
}

/// `run`, handing what the rounds produced to `keep` once they are
/// reported (calibrate reads its points' rounds there).
pub fn run_point(
    id: ProfileId,
    cfg: &RunConfig,
    clock: &Clock,
    out: &mut Out,
    keep: &mut dyn FnMut(&Outcome),
) -> Exit {
    // The cost counter's counts of this run start here (docs/cost.md).
    sys::cost_mark(sys::Mark::Run, 0);
    match attempt(id, cfg, clock, out, keep) {
        Ok(e) | Err(e) => e,
    }
}

/// `run_point`, with every reason not to start as an `Err`.
fn attempt(
    id: ProfileId,
    cfg: &RunConfig,
    clock: &Clock,
    out: &mut Out,
    keep: &mut dyn FnMut(&Outcome),
) -> Result<Exit, Exit> {
    // An earlier run of this process left it changed (process.rs): this
    // run would measure under what it left, and its point would not be the
    // one `run` prints. It fails, naming why; so does each later run in
    // the process (a suite's items, selftest's, calibrate's points), rather
    // than the suite stopping: each item's line then says why it has no
    // point, and one rule holds for every caller that runs several.
    if let Some(f) = process::left() {
        let why = "an earlier run of this process could not give back what it changed";
        return Err(Exit::new(exit::FAIL, format_args!("{why}: {f}")));
    }
    // CPU first: a bad --cpu is a usage error, whatever the kernel can do.
    let mut allowed = [0u8; CPU_SET_BYTES];
    let choice = choose_cpu(cfg.cpu, &mut allowed)?;
    let pinned = choice.cpu();
    // However the run ends, what runs next in this process (a suite's
    // next item, calibrate's next point) must find the CPUs this run found
    // (pollwake's `--waiter-cpu` may name another than the one pinned).
    let mut cpus = GiveBack::new(Before::Cpus(allowed));
    cpu::pin(pinned).map_err(|e| match e {
        // No usage error: the kernel failed the call that proves the pin.
        PinError::Getcpu(e) => setup::step_failed(Step::run("getcpu"), e),
        e => Exit::new(exit::USAGE, format_args!("--cpu {pinned}: cannot pin: {e}")),
    })?;
    // The run's ring, its waits bounded by --timeout.
    let mut ring = setup::ring(Whose::Run, cfg.ring_flags, cfg.timeout_ns())?;
    let profile = id.profile();
    probe(&ring, profile.opcodes)?;
    // Before the workload's set-up: pollwake's waiter thread, started
    // there, is followed from its first instruction.
    let mut witness = RunWitness::open(id, cfg, pinned)?;
    let s = SetUp {
        cfg,
        shape: id.shape(cfg),
        cpu: choice,
        allowed: &allowed,
    };
    let mut ledger = Ledger::default();
    // The workload lives in its set-up's frame: the rest of the run is
    // handed to it, and gets the ring and the ledger back with it.
    (profile.start)(&s, &mut ring, &mut ledger, &mut |w, ring, ledger| {
        let mut tsv = tsv_file(cfg)?;
        let mut facts = Facts::read(pinned);
        facts.booted(cfg.boot_id);
        let info = RunInfo {
            id,
            cfg,
            shape: s.shape,
            cpu: choice,
            clock: clock.source(),
            facts: &facts,
            ring_entries: ring.sq_entries(),
            cq_entries: ring.cq_entries(),
            features: ring.features(),
            input_sha256: contract::Contract {
                id,
                cfg,
                cpu: pinned,
            }
            .sha256(),
            witness: witness.banner(),
        };
        let mut o = Outcome::new(*ledger, profile.series, s.shape.pairs);
        let seen = measure(
            w,
            ring,
            &info,
            clock,
            &mut o,
            out,
            tsv.as_mut(),
            &mut witness,
            &mut cpus,
        );
        keep(&o);
        let dropped = tsv.and_then(|t| settle(t, o.stdout_cut));
        let e = judge(w, &o, out.error(), cfg.tsv.zip(dropped));
        Ok(match seen {
            Err(why) if e.code == exit::PASS => {
                Exit::new(exit::FAIL, format_args!("witness: {why}"))
            }
            _ => e,
        })
    })
}

/// `--tsv FILE`, created (never overwritten) before anything runs.
fn tsv_file(cfg: &RunConfig) -> Result<Option<TsvFile>, Exit> {
    cfg.tsv.map(tsv::open).transpose()
}

/// A `--tsv` file that is not the whole run, removed: why (its own write
/// failed, else stdout's cut the rounds short), and how the removal went.
struct Dropped {
    write: Option<Errno>,
    removed: SysResult<()>,
}

/// Keeps a `--tsv` file that holds the whole run (passed, failed or
/// interrupted, with its last row); removes one that does not.
fn settle(t: TsvFile, stdout_cut: bool) -> Option<Dropped> {
    let write = t.error();
    (write.is_some() || stdout_cut).then(|| Dropped {
        write,
        removed: t.remove(),
    })
}

/// The banner, the rounds (between `--trace`'s markers, with the witness
/// tracing) into `o`, the workload's end and the CPUs given back, the
/// summary, the checks line and the witness's lines (Err: why the witness
/// fails the run).
#[allow(clippy::too_many_arguments)]
fn measure(
    w: &mut dyn Workload,
    ring: &mut Ring,
    info: &RunInfo,
    clock: &Clock,
    o: &mut Outcome,
    out: &mut Out,
    mut tsv: Option<&mut TsvFile>,
    witness: &mut RunWitness,
    cpus: &mut GiveBack,
) -> Result<(), &'static str> {
    let (cfg, facts) = (info.cfg, info.facts);
    output::banner(out, info, w.own_output());
    if info.id.tagged() {
        out.bytes(b"profile\t");
    }
    let _ = writeln!(out, "round\tpairs\tns_per_pair\tsemantic_pass");
    out.flush();
    let ctx = tsv::Context {
        kernel_release: facts.release(),
        boot_id: facts.boot_id.get(),
        mode: cfg.mode.name(),
        profile: info.id.formal_name(),
        ring_entries: info.ring_entries,
        slots: info.shape.slots,
        vector_width: info.shape.vector_width,
        cpu: info.cpu.cpu(),
        input_sha256: info.input_sha256,
        trace_enabled: cfg.mode == Mode::Trace,
        futex_scope: cfg.futex_scope(),
        clock_source: info.clock.name(),
        ring_features: info.features,
        facts,
        rounds_planned: cfg.rounds,
        inject_ns: cfg.inject_ns,
        witness: info.witness.unwrap_or(("off", "none")),
        timebase: cfg.timebase.name(),
    };
    let trace = (cfg.mode == Mode::Trace).then(|| trace_mark(None, "begin", info.id, out));
    let sinks = Sinks {
        out,
        tsv: tsv.as_deref_mut().map(|f| (f, &ctx)),
    };
    // The witness counts exactly the rounds: what the ledger adds from here.
    let before = o.ledger;
    witness.start();
    driver::rounds(cfg, w, ring, clock, info.cpu.cpu(), o, sinks);
    witness.stop();
    let window = o.ledger.since(&before);
    // Before the summary: what the run could not give back fails it.
    let finished = w.finish(ring, &mut o.ledger);
    let given = cpus.give_back();
    o.fault = o.fault.or(finished.err()).or(given.err());
    if let Some(marker) = trace {
        trace_mark(marker, "end", info.id, out);
    }
    output::summary(out, w, o);
    if o.interrupted != 0 {
        let done = o.complete_rounds();
        let _ = writeln!(out, "# interrupted: {done} of {} rounds", cfg.rounds);
    }
    let interrupted = o.interrupted != 0;
    let account = witness.settle(&window, interrupted, tsv.as_deref_mut().map(|f| (f, &ctx)));
    // An output asked for and lost (the witness's row, its last, written): the run cannot pass.
    let lost = tsv.as_ref().and_then(|f| f.error());
    if let (Some(e), Some(path)) = (lost, cfg.tsv) {
        let _ = writeln!(out, "# --tsv {}: write failed: {e}", Clean(path));
    }
    if let Some(f) = o.fault {
        let _ = writeln!(out, "# {f}");
    }
    let passed = o.passed() && lost.is_none();
    let verdict = render::verdict(passed, interrupted);
    let p = info.id.profile();
    render::checks(out, [p.totals, p.failures], &o.ledger, verdict);
    out.flush();
    account.print(out)
}

/// The exit code of a run that started, and its cause: stdout's or the
/// `--tsv` file's failed write (`dropped`: that file, removed) fails a run
/// that passed its checks.
fn judge(
    w: &dyn Workload,
    o: &Outcome,
    stdout: Option<Errno>,
    dropped: Option<(&[u8], Dropped)>,
) -> Exit {
    if o.interrupted != 0 {
        let sig = signal::name(o.interrupted);
        return Exit::new(exit::INTERRUPTED, format_args!("interrupted by {sig}"));
    }
    if !o.ledger.passed() {
        let mut e = Exit::new(exit::FAIL, format_args!(""));
        output::cause(&mut e, w, o);
        return e;
    }
    if let Some(f) = o.fault {
        return Exit::new(exit::FAIL, format_args!("FAIL: {f}"));
    }
    if let Some(e) = stdout {
        let mut x = exit::stdout_failed(e);
        if let Some((path, d)) = dropped {
            if x.cause().as_bytes().is_empty() {
                let _ = write!(x, "stdout was closed");
            }
            let removal = Removal::of(&d.removed);
            let _ = write!(x, "; --tsv {} {removal} (cut short)", Clean(path));
        }
        return x;
    }
    if let Some((path, d)) = dropped {
        let (e, removal) = (d.write.unwrap_or(Errno::EIO), Removal::of(&d.removed));
        let path = Clean(path);
        return Exit::new(
            exit::FAIL,
            format_args!("--tsv {path}: write failed: {e}; {removal}"),
        );
    }
    Exit::pass()
}

/// The CPU a run with `--cpu requested` pins to (a bad --cpu is a usage
/// error); fills `allowed` with the CPUs this process may use.
pub fn choose_cpu(requested: Option<u32>, allowed: &mut CpuSet) -> Result<Choice, Exit> {
    if let Err(e) = sys::sched_getaffinity(allowed) {
        return Err(setup::step_failed(Step::run("sched_getaffinity"), e));
    }
    cpu::choose(requested, allowed).map_err(|c| {
        let set = cpu::Ranges(allowed);
        Exit::new(
            exit::USAGE,
            format_args!(
                "--cpu {c}: CPU {c} is not online or not allowed for this process (allowed: {set})"
            ),
        )
    })
}

/// Probes the ring for `needed` opcodes; a missing one is a skip naming it.
fn probe(ring: &Ring, needed: &[(u8, &str)]) -> Result<(), Exit> {
    let p = ring
        .probe()
        .map_err(|e| setup::step_failed(Step::run("IORING_REGISTER_PROBE"), e))?;
    if needed.iter().all(|&(op, _)| p.supports(op)) {
        return Ok(());
    }
    let mut e = Exit::new(exit::SKIP, format_args!("kernel lacks"));
    for &(op, name) in needed.iter().filter(|&&(op, _)| !p.supports(op)) {
        let _ = write!(e, " {name} ({op})");
    }
    let _ = write!(e, " (probe last_op={})", p.last_op());
    Err(e)
}

/// ftrace's marker file: what is written there lands in the trace, with
/// the writer's PID.
const TRACE_MARKER: &CStr = c"/sys/kernel/tracing/trace_marker";

/// `--trace`: marks the start or end of the traced cycles on stdout (with
/// the PID, flushed) and, where this process may write it, in ftrace's
/// buffer. Returns the marker file opened at "begin" for "end".
fn trace_mark(marker: Option<Fd>, what: &str, id: ProfileId, out: &mut Out) -> Option<Fd> {
    let marker = marker.or_else(|| sys::open(TRACE_MARKER, O_WRONLY, 0).ok());
    if let Some(m) = &marker {
        let mut line = render::Line::new();
        let _ = write!(line, "uring-repro trace {what}");
        let _ = sys::write(m.raw(), line.as_bytes());
    }
    let _ = writeln!(
        out,
        "# uring-repro trace {what} pid={} profile={} ftrace_marker={}",
        sys::getpid(),
        id.formal_name(),
        marker.is_some() as u8
    );
    out.flush();
    marker
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RingFlags, SMOKE_CYCLES};
    use crate::testing::skip;

    /// A run pins its thread to one CPU; whatever ends it (a pass, a
    /// failure after the pin: pollwake's waiter CPU refused), it gives the
    /// thread back the CPUs it found, so that what runs next in the same
    /// process (a suite's next item, calibrate's next point) finds them
    /// too: pollwake's `--waiter-cpu` may name a CPU other than `--cpu`.
    #[test]
    fn a_run_gives_back_the_cpus_it_found() {
        let mut before = [0u8; CPU_SET_BYTES];
        sys::sched_getaffinity(&mut before).unwrap();
        let smoke = RunConfig {
            mode: Mode::Smoke,
            rounds: 1,
            cycles: SMOKE_CYCLES,
            warmups: 0,
            ..RunConfig::default()
        };
        let refused = RunConfig {
            waiter_cpu: Some(crate::config::MAX_CPU),
            ring_flags: RingFlags::None,
            ..smoke
        };
        for (name, cfg, code) in [
            (&b"n0"[..], smoke, exit::PASS),
            (b"pollwake", smoke, exit::PASS),
            (b"pollwake", refused, exit::USAGE),
        ] {
            let id = ProfileId::parse(name).unwrap();
            let e = run(id, &cfg, &Clock::syscall(), &mut Out::null());
            if e.code == exit::SKIP {
                return skip(&format!("io_uring cannot run here: {}", e.cause()));
            }
            assert_eq!(e.code, code, "{id:?}: {}", e.cause());
            let mut after = [0u8; CPU_SET_BYTES];
            sys::sched_getaffinity(&mut after).unwrap();
            assert!(
                after == before,
                "{id:?}: {} after {}",
                cpu::Ranges(&after),
                cpu::Ranges(&before)
            );
        }
    }

    /// `--tsv` names what is wrong with a path no file can have (one too
    /// long is refused as the kernel refuses it; its cause line, 512
    /// bytes, is all path).
    #[test]
    fn a_tsv_path_no_file_can_have_is_refused_by_name() {
        let cfg = |tsv| RunConfig {
            tsv: Some(tsv),
            ..RunConfig::default()
        };
        let e = tsv_file(&cfg(b"a\0b")).err().unwrap();
        let why = "--tsv a\\x00b: cannot be created: a NUL byte in the path";
        assert_eq!((e.code, e.cause().as_str()), (exit::USAGE, why));
        let e = tsv_file(&cfg(&[b'x'; 4096])).err().unwrap();
        assert_eq!(e.code, exit::USAGE);
        assert!(e.cause().as_str().starts_with("--tsv xxxxxxxx"));
    }
}
