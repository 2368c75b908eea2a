//! What a run prints around the rows: the banner every workload shares
//! (pollwake adds lines of its own), and the futex workloads' summary and
//! failure line (the `Workload` trait's defaults; pollwake has its own).

use core::fmt::Write;

use super::contract::{Contract, Field, Stated};
use super::{Outcome, Profile, RunInfo};
use crate::check::Failure;
use crate::config::VERSION;
use crate::render::{self, Bytes};
use crate::sha256::Hex;

/// The banner: the first line, the contract line, what `more` adds (pollwake:
/// its modes), the unit (icount), the series, the facts.
pub fn banner(w: &mut dyn Write, run: &RunInfo, more: &dyn Fn(&mut dyn Write)) {
    let c = run.contract();
    head(w, run, &c);
    contract_line(w, run, &c);
    more(w);
    if let Some(unit) = run.cfg.timebase.unit_line() {
        let _ = writeln!(w, "{unit}");
    }
    series(w, run.id.profile());
    run.facts.print(w);
}

/// The first banner line: tool, workload and mode, kernel, boot, CPU and
/// how it was chosen, clock and timebase, `inject_ns=N` when the run is a
/// positive control, and `witness=on|unavailable witness_sources=...`
/// with `--witness` (tracepoints cost time: such a point is not a plain
/// one). Every field stated `Head` is here.
fn head(w: &mut dyn Write, run: &RunInfo, c: &Contract) {
    let _ = write!(w, "# uring-repro {VERSION}");
    c.word(w, Field::Profile);
    c.word(w, Field::Mode);
    let f = run.facts;
    let _ = write!(
        w,
        " kernel={} boot_id={}",
        Bytes(f.release()),
        Bytes(f.boot_id.get())
    );
    c.word(w, Field::Cpu);
    let _ = write!(
        w,
        " cpu_choice={} clock={} timebase={}",
        run.cpu.how(),
        run.clock.name(),
        run.cfg.timebase.name(),
    );
    c.word(w, Field::InjectNs);
    if let Some((state, sources)) = run.witness {
        let _ = write!(w, " witness={state} witness_sources={sources}");
    }
    let _ = writeln!(w);
}

/// The contract line: every field stated there, in the contract's order
/// (the ring's sizes as the kernel set the ring up), then the ring's
/// feature bits and the contract's SHA-256.
fn contract_line(w: &mut dyn Write, run: &RunInfo, c: &Contract) {
    let _ = w.write_str("#");
    for f in Field::ALL {
        if f.stated() != Stated::ContractLine {
            continue;
        }
        match f {
            Field::RingEntries => {
                let _ = write!(w, " {}={}", f.key(), run.ring_entries);
            }
            Field::CqEntries => {
                let _ = write!(w, " {}={}", f.key(), run.cq_entries);
            }
            _ => c.word(w, f),
        }
    }
    let _ = writeln!(
        w,
        " features={:#x} input_sha256={}",
        run.features,
        Hex(&run.input_sha256)
    );
}

/// One `# series:` line per series of `p`, in table order: what its rows
/// are named, the `--profile` that runs it, what a figure is per, the
/// workload in kernel words, and the `--mode` word that selects it in a
/// table of several (compare, report and the mail read these).
fn series(w: &mut dyn Write, p: &Profile) {
    for s in p.series {
        let _ = write!(
            w,
            "# series: {} option={} per=\"{}\" about=\"{}\"",
            s.name, p.names.short, p.per, s.about
        );
        if let Some(m) = s.mode {
            let _ = write!(w, " mode={m}");
        }
        let _ = writeln!(w);
    }
}

/// The futex workloads' summary: the mean row, the spread of the rounds,
/// the per-cycle tail.
pub fn table_summary(w: &mut dyn Write, o: &Outcome, pairs_per_cycle: u64) {
    let rows = &o.rows[0];
    let passed = o.ledger.passed();
    let (ns, pairs) = (rows.total_ns, rows.total_pairs);
    let label = o.mean_label();
    render::mean_and_spread(w, "", label, ns, pairs, passed, rows.per_round());
    render::per_cycle(w, &o.hist, pairs_per_cycle);
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
