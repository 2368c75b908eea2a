//! What a run prints around the rows: the first banner line every workload
//! shares, and the futex workloads' contract line, summary and failure
//! line (the `Workload` trait's defaults; pollwake has its own).

use core::fmt::Write;

use super::{Outcome, RunInfo};
use crate::check::Failure;
use crate::config::{Mode, VERSION};
use crate::fmt::{self, Bytes};
use crate::sha256::Hex;

/// The first banner line: tool, workload, kernel, boot, CPU, clock and
/// timebase (`mode` is left out where None), `inject_ns=N` when the run is a
/// positive control, and `witness=on|unavailable witness_sources=...` with
/// `--witness` (tracepoints cost time: such a point is not a plain one).
pub fn banner_head(w: &mut dyn Write, run: &RunInfo, mode: Option<Mode>) {
    let _ = write!(
        w,
        "# uring-repro {VERSION} profile={}",
        run.id.formal_name()
    );
    if let Some(m) = mode {
        let _ = write!(w, " mode={}", m.name());
    }
    let f = run.facts;
    let _ = write!(
        w,
        " kernel={} boot_id={} cpu={} cpu_choice={} clock={} timebase={}",
        Bytes(f.release()),
        Bytes(f.boot_id.get()),
        run.cpu.cpu(),
        run.cpu.how(),
        run.clock.name(),
        run.cfg.timebase.name(),
    );
    if run.cfg.inject_ns != 0 {
        let _ = write!(w, " inject_ns={}", run.cfg.inject_ns);
    }
    if let Some((state, sources)) = run.witness {
        let _ = write!(w, " witness={state} witness_sources={sources}");
    }
    let _ = writeln!(w);
}

/// After the banner lines of a point whose ns are not time (icount), the
/// line that says what they are.
pub fn unit_line(w: &mut dyn Write, run: &RunInfo) {
    if let Some(unit) = run.cfg.timebase.unit_line() {
        let _ = writeln!(w, "{unit}");
    }
}

/// The futex workloads' banner: the first line, the contract, the unit
/// (icount), the facts.
pub fn contract_banner(w: &mut dyn Write, run: &RunInfo) {
    banner_head(w, run, Some(run.cfg.mode));
    let (c, s) = (run.cfg, &run.shape);
    let _ = writeln!(
        w,
        "# ring_entries={} cq_entries={} slots={} vector_width={} cycles={} warmups={} rounds={} \
         futex={} timeout_s={} features={:#x} input_sha256={}",
        run.ring_entries,
        run.cq_entries,
        s.slots,
        s.vector_width,
        c.cycles,
        c.warmups,
        c.rounds,
        c.futex_scope(),
        c.timeout_s,
        run.features,
        Hex(&run.input_sha256),
    );
    unit_line(w, run);
    run.facts.print(w);
}

/// The futex workloads' summary: the mean row, the spread of the rounds,
/// the per-cycle tail.
pub fn table_summary(w: &mut dyn Write, o: &Outcome, pairs_per_cycle: u64) {
    let rows = &o.rows[0];
    let passed = o.ledger.passed();
    let (ns, pairs) = (rows.total_ns, rows.total_pairs);
    let label = o.mean_label();
    fmt::mean_and_spread(w, "", label, ns, pairs, passed, rows.per_round());
    fmt::per_cycle(w, &o.hist, pairs_per_cycle);
}

/// The futex workloads' stderr line: the first failure and its cycle.
pub fn failed_cycle(w: &mut dyn Write, o: &Outcome) {
    let Some(Failure {
        what,
        seq,
        cqe,
        call,
    }) = o.ledger.first
    else {
        let _ = write!(w, "FAIL: see the checks line on stdout");
        return;
    };
    let _ = write!(w, "FAIL: {what} in cycle {seq}");
    if let Some(c) = cqe {
        let (data, res, flags) = (c.user_data, c.res, c.flags);
        let _ = write!(w, ": user_data={data:#x} res={res} flags={flags:#x}");
    }
    if let Some(c) = call {
        let _ = write!(w, ": {c}");
    }
    let _ = write!(w, "; counters on stdout");
}
