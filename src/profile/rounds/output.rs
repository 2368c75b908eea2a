//! What a run prints around the rows: the banner every workload shares
//! (a workload with its own output, pollwake, adds lines to it), and the
//! futex workloads' summary and failure line, or the workload's own.

use core::fmt::Write;

use super::contract::{Contract, Field, Stated};
use crate::check::Failure;
use crate::config::{RunConfig, VERSION};
use crate::cpu::Choice;
use crate::facts::Facts;
use crate::profile::registry::ProfileId;
use crate::profile::vocabulary::{Outcome, OwnOutput, Profile, Shape, Workload};
use crate::render::{self, Bytes};
use crate::sha256::Hex;
use crate::sys::clock::ClockSource;

/// What the banner, the summary and the verdict know of a run besides the
/// workload itself.
pub struct RunInfo<'r> {
    pub id: ProfileId,
    pub cfg: &'r RunConfig<'r>,
    pub shape: Shape,
    pub cpu: Choice,
    pub clock: ClockSource,
    pub facts: &'r Facts,
    /// io_uring_params of the run's ring, as the banner states them.
    pub ring_entries: u32,
    pub cq_entries: u32,
    pub features: u32,
    /// SHA-256 of the run's contract (`describe`): `input_sha256`.
    pub input_sha256: [u8; 32],
    /// `--witness`: `on` or `unavailable`, and what records (`events`,
    /// `events+functions`, `none`); None: not asked for.
    pub witness: Option<(&'static str, &'static str)>,
}

impl RunInfo<'_> {
    /// The run's contract.
    pub fn contract(&self) -> Contract<'_, '_> {
        Contract {
            id: self.id,
            cfg: self.cfg,
            cpu: self.cpu.cpu(),
        }
    }
}

/// The banner: the first line, the contract line, the workload's `own`
/// lines after it (pollwake: its modes), the unit (icount), the series,
/// the facts, and its own lines after those (pollwake: the eventfd pass).
pub fn banner(w: &mut dyn Write, run: &RunInfo, own: Option<&dyn OwnOutput>) {
    let c = run.contract();
    head(w, run, &c);
    contract_line(w, run, &c);
    if let Some(own) = own {
        own.after_contract_line(w);
    }
    if let Some(unit) = run.cfg.timebase.unit_line() {
        let _ = writeln!(w, "{unit}");
    }
    series(w, run.id.profile());
    run.facts.print(w);
    if let Some(own) = own {
        own.after_banner(w);
    }
}

/// The lines between the last row and the checks line: the workload's
/// own, or the futex workloads' (`table_summary`) and the workload's
/// remarks.
pub fn summary(w: &mut dyn Write, work: &dyn Workload, o: &Outcome) {
    match work.own_output() {
        Some(own) => own.summary(w, o),
        None => {
            table_summary(w, o);
            work.remarks(w);
        }
    }
}

/// The stderr line of a failed run: the workload's own, or the futex
/// workloads' (`failed_cycle`).
pub fn cause(w: &mut dyn Write, work: &dyn Workload, o: &Outcome) {
    match work.own_output() {
        Some(own) => own.cause(w, o),
        None => failed_cycle(w, o),
    }
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
fn table_summary(w: &mut dyn Write, o: &Outcome) {
    let rows = &o.rows[0];
    let passed = o.passed();
    let (ns, pairs) = (rows.total_ns, rows.total_pairs);
    let label = o.mean_label();
    render::mean_and_spread(w, "", label, ns, pairs, passed, rows.per_round());
    render::per_cycle(w, &o.hist, o.pairs);
}

/// The futex workloads' stderr line: the first failure and its cycle.
fn failed_cycle(w: &mut dyn Write, o: &Outcome) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CQ_ENTRIES, RING_ENTRIES};
    use crate::profile::rounds::contract::FieldValue;

    /// The banner of a run of `id` with `cfg` on CPU 3, witnessed.
    fn banner_of(id: ProfileId, cfg: &RunConfig) -> String {
        let facts = Facts::read(3);
        let run = RunInfo {
            id,
            cfg,
            shape: id.shape(cfg),
            cpu: Choice::Requested(3),
            clock: ClockSource::Vdso,
            facts: &facts,
            ring_entries: RING_ENTRIES,
            cq_entries: CQ_ENTRIES,
            features: 0x3ffff,
            input_sha256: Contract { id, cfg, cpu: 3 }.sha256(),
            witness: Some(("on", "events")),
        };
        let mut s = String::new();
        banner(&mut s, &run, None);
        s
    }

    /// Every field of every workload's contract is stated where `stated`
    /// says, with the value `describe` gives it, and in `describe`; a
    /// field the workload does not have, nowhere. The contract line ends
    /// with the hash of `describe`'s bytes; a `# series:` line follows per
    /// series; the witness is stated on the first line, not in the hash.
    #[test]
    fn the_banner_states_every_field_describe_does() {
        for id in ProfileId::ALL {
            let cfg = RunConfig {
                inject_ns: 5,
                slots: id.default_slots(),
                witness: crate::config::Witness::Required,
                ..RunConfig::default()
            };
            let c = Contract {
                id,
                cfg: &cfg,
                cpu: 3,
            };
            let text = banner_of(id, &cfg);
            let lines: Vec<&str> = text.lines().collect();
            let (head, line) = (lines[0], lines[1]);
            let json = String::from_utf8(c.json().as_bytes().to_vec()).unwrap();
            for f in Field::ALL {
                let key = format!(" {}=", f.key());
                let Some(v) = c.value(f) else {
                    assert!(!head.contains(&key) && !line.contains(&key), "{id:?} {f:?}");
                    assert!(
                        !json.contains(&format!("\"{}\":", f.name())),
                        "{id:?} {f:?}"
                    );
                    continue;
                };
                let member = match v {
                    FieldValue::Num(n) => format!("\"{}\":{n},", f.name()),
                    FieldValue::Word(w) => format!("\"{}\":\"{w}\",", f.name()),
                };
                assert!(json.contains(&member), "{id:?} {member} in {json}");
                let word = format!("{key}{v}");
                let want = (
                    f.stated() == Stated::Head,
                    f.stated() == Stated::ContractLine,
                );
                let got = (head.contains(&word), line.contains(&word));
                assert_eq!(got, want, "{id:?} {f:?}:\n{head}\n{line}");
            }
            let hash = format!(" input_sha256={}", Hex(&c.sha256()));
            assert!(line.starts_with("# ") && line.ends_with(&hash), "{line}");
            assert!(head.contains(" witness=on ") && !json.contains("witness"));
            let series: Vec<&str> = lines
                .iter()
                .filter_map(|l| l.strip_prefix("# series: "))
                .collect();
            assert_eq!(series.len(), id.profile().series.len(), "{id:?}");
        }
        let s0 = banner_of(ProfileId::S0, &RunConfig::default());
        let series = "# series: s0_wait_wake option=s0 per=\"WAIT/WAKE pair\" \
                      about=\"io_uring futex WAIT/WAKE\"";
        assert_eq!(s0.lines().nth(2), Some(series));
        let pw = banner_of(
            ProfileId::parse(b"pollwake").unwrap(),
            &RunConfig::default(),
        );
        let idle = "# series: pollwake_idle option=pollwake per=\"MSG_RING completion\" \
                    about=\"io_uring poll wakeup, idle epoll\" mode=idle";
        assert!(pw.lines().any(|l| l == idle), "{pw}");
    }
}
