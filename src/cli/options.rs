//! The options table: one row per option (perf bench's `OPT_UINTEGER`
//! shape: name, value and range, where it applies, what it sets, help).
//! It drives the parser, every range check and `--help` alike.

use core::fmt::Write;

use super::{Parsed, Why};
use crate::compare::{self, Gate};
use crate::config::*;
use crate::exit;
use crate::profile::contract::Field;
use crate::profile::{ProfileId, Takes};
use crate::render::{self, Line};

/// The commands, as bits of `Opt::commands`.
pub const RUN: u16 = 1;
pub const DESCRIBE: u16 = 2;
pub const SELFTEST: u16 = 4;
pub const COMPARE: u16 = 8;
pub const CALIBRATE: u16 = 16;
/// `initramfs`: its own options and every option of `run` (parsed as `run`).
pub const INITRAMFS: u16 = 32;
pub const REPORT: u16 = 64;
/// `suite`: `--profiles` and the options of `run` a suite's items take.
pub const SUITE: u16 = 128;
/// `ab`: the boots' suites of scripts/ab.sh in, its table out.
pub const AB: u16 = 256;
/// `points`: a boot's console to its point, or a suite's directory.
pub const POINTS: u16 = 512;

/// What an option does to a run's figures: each option says, so that an
/// option that changes them cannot be left out of the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figures {
    /// It sets a field of the run's contract: the banner states it, and
    /// `describe` and so `input_sha256`.
    Contract(Field),
    /// It changes how a point is measured, not what runs: the first banner
    /// line states it under this key (as it states the timebase).
    Measured(&'static str),
    /// It changes no figure, for this reason.
    None(&'static str),
}

/// What follows an option, and what it sets.
#[derive(Clone, Copy)]
pub enum Value {
    Flag(fn(&mut Parsed)),
    /// `--smoke` or `--trace`: the run's mode (one of them at most).
    Mode(Mode),
    /// A decimal number in `lo..=hi`, named `meta` in the help.
    Number {
        meta: &'static str,
        lo: u32,
        hi: u32,
        set: fn(&mut Parsed, u32),
    },
    /// A flag that may carry a word inline only (`--opt` or `--opt=WORD`),
    /// shown as `--opt[=meta]`.
    Choice {
        meta: &'static str,
        set: fn(&mut Parsed, Option<&[u8]>) -> Result<(), Why>,
    },
    /// A word, named `meta` in the help.
    Text {
        meta: &'static str,
        set: for<'a> fn(&mut Parsed<'a>, &'a [u8]) -> Result<(), Why>,
    },
}

/// The default `--help` shows for an option.
#[derive(Clone, Copy)]
pub enum Shown {
    None,
    /// A number, and what follows it.
    Num(u32, &'static str),
    Word(&'static str),
}

pub struct Opt {
    pub name: &'static str,
    pub value: Value,
    pub commands: u16,
    /// The workloads it applies to: those that take it (None: every one).
    pub only: Option<Takes>,
    // Read by the tests that hold the contract to the table.
    #[allow(dead_code)]
    pub figures: Figures,
    /// One line; `{}` stands for the range of a number, `{takers}` for
    /// the workloads that take the option, `{modes}` for the `--mode`
    /// words of the tables of several series, `{tagged}` for their
    /// workloads.
    pub help: &'static str,
    pub default: Shown,
}

const fn opt(
    name: &'static str,
    value: Value,
    commands: u16,
    (only, figures): (Option<Takes>, Figures),
    help: &'static str,
    default: Shown,
) -> Opt {
    Opt {
        name,
        value,
        commands,
        only,
        figures,
        help,
        default,
    }
}

/// An option every workload takes, setting contract field `f`.
const fn every(f: Field) -> (Option<Takes>, Figures) {
    (None, Figures::Contract(f))
}

/// An option only the workloads that take `t` take, setting field `f`.
const fn only(t: Takes, f: Field) -> (Option<Takes>, Figures) {
    (Some(t), Figures::Contract(f))
}

/// An option that changes no figure, and why.
const fn none(why: &'static str) -> (Option<Takes>, Figures) {
    (None, Figures::None(why))
}

const fn num(meta: &'static str, lo: u32, hi: u32, set: fn(&mut Parsed, u32)) -> Value {
    Value::Number { meta, lo, hi, set }
}

const fn text(
    meta: &'static str,
    set: for<'a> fn(&mut Parsed<'a>, &'a [u8]) -> Result<(), Why>,
) -> Value {
    Value::Text { meta, set }
}

fn profile(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    p.profile = ProfileId::parse(v).ok_or(Why::UnknownProfile)?;
    Ok(())
}

fn profiles<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    p.profiles = Some(Some(v).filter(|v| !v.is_empty()).ok_or(Why::MissingValue)?);
    Ok(())
}

fn tsv<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    p.cfg.tsv = Some(v).filter(|v| !v.is_empty());
    p.cfg.tsv.map(|_| ()).ok_or(Why::MissingValue)
}

fn output<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    p.initramfs.out = Some(Some(v).filter(|v| !v.is_empty()).ok_or(Why::MissingValue)?);
    Ok(())
}

/// points' file and path options: a value that is not empty.
fn given(v: &[u8]) -> Result<&[u8], Why> {
    Some(v).filter(|v| !v.is_empty()).ok_or(Why::MissingValue)
}

/// points' `--boot`: one line of the point.
fn boot<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    if v.contains(&b'\n') {
        return Err(Why::Points("a newline in it (it is one line of the point)"));
    }
    p.points.boot = Some(given(v)?);
    Ok(())
}

fn init<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    p.initramfs.init = Some(Some(v).filter(|v| !v.is_empty()).ok_or(Why::MissingValue)?);
    Ok(())
}

/// initramfs's `--boot-id`: a UUID's length, as `/init` will take it.
fn boot_id<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    if v.len() != HostBootId::LEN {
        return Err(Why::Initramfs("not a boot id (36 characters, a UUID)"));
    }
    p.initramfs.boot_id = Some(v);
    Ok(())
}

fn witness(p: &mut Parsed, v: Option<&[u8]>) -> Result<(), Why> {
    p.cfg.witness = match v {
        None => Witness::Required,
        Some(b"optional") => Witness::Optional,
        Some(_) => return Err(Why::UnknownWitness),
    };
    Ok(())
}

fn ring_flags(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    p.cfg.ring_flags = RingFlags::parse(v).ok_or(Why::UnknownRingFlags)?;
    Ok(())
}

/// A percentage in (0, 100] of at most 3 decimals: `--gate`, `--inject-pct`.
fn percent(v: &[u8]) -> Result<f64, Why> {
    compare::percent(v).ok_or(Why::Gate)
}

fn inject_pct(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    p.inject_pct = percent(v)?;
    Ok(())
}

fn gate(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    p.compare.gate = Gate::Pct(percent(v)?);
    Ok(())
}

/// `--gate-insn`: instructions per pair, above 0, at most 3 decimals (one
/// given beside `--gate` is refused once the command line is read).
fn gate_insn<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    let insn = compare::instructions(v).ok_or(Why::Files(
        "needs instructions per pair in (0, 1000000], at most 3 decimals",
    ))?;
    p.compare.gate = Gate::Insn(insn);
    (p.ab.gate, p.ab.gate_text) = (insn, v);
    Ok(())
}

/// ab's `-o DIR`.
fn ab_out<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    p.ab.out = Some(Some(v).filter(|v| !v.is_empty()).ok_or(Why::MissingValue)?);
    Ok(())
}

fn commit(v: &[u8]) -> Result<Option<&[u8]>, Why> {
    let hex = (7..=40).contains(&v.len()) && v.iter().all(u8::is_ascii_hexdigit);
    hex.then_some(Some(v)).ok_or(Why::Commit)
}

fn title<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    let ok =
        (1..=compare::MAX_TITLE).contains(&v.len()) && v.iter().all(|b| (b' '..=b'~').contains(b));
    p.draft.title = ok.then_some(v).ok_or(Why::Title)?.into();
    Ok(())
}

fn link<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    let ok =
        (1..=compare::MAX_LINK).contains(&v.len()) && v.iter().all(|b| (b'!'..=b'~').contains(b));
    let d = &mut p.draft;
    if d.n_links == compare::MAX_LINKS {
        return Err(Why::Files("at most 4 links"));
    }
    d.links[d.n_links] = Some(ok.then_some(v).ok_or(Why::Link)?);
    d.n_links += 1;
    Ok(())
}

/// report's `--re`: a patch's subject, printable ASCII.
fn re<'a>(p: &mut Parsed<'a>, v: &'a [u8]) -> Result<(), Why> {
    let ok =
        (1..=compare::MAX_RE).contains(&v.len()) && v.iter().all(|b| (b' '..=b'~').contains(b));
    let why = Why::Files("needs 1 to 128 printable ASCII characters: the patch's subject");
    p.draft.re = Some(ok.then_some(v).ok_or(why)?);
    Ok(())
}

/// compare's `--mode`: the series of a table of several that the word
/// selects (its rows' name, `pollwake_idle`).
fn series_mode(p: &mut Parsed, v: &[u8]) -> Result<(), Why> {
    let series = ProfileId::ALL.iter().flat_map(|id| id.profile().series);
    let s = series
        .into_iter()
        .find(|s| s.mode.is_some_and(|m| m.as_bytes() == v));
    p.compare.mode = Some(s.ok_or(Why::UnknownMode)?.name.as_bytes());
    Ok(())
}

/// What shapes a run, and each run of a suite.
const RUNS: u16 = RUN | DESCRIBE | SUITE;
/// What shapes a point: `run`, `describe`, the points of `calibrate`, and
/// each point of a suite.
const MEASURE: u16 = RUN | DESCRIBE | CALIBRATE | SUITE;
const ALL: u16 = RUN | DESCRIBE | SELFTEST | CALIBRATE | SUITE;
use Shown::{Num, Word};

/// Every option, in `--help` order. `--help`/`-h` and `--version` are the
/// parser's own (they end it wherever they stand).
#[rustfmt::skip]
pub const OPTIONS: [Opt; 47] = [
    opt("--profile", text("P", profile), MEASURE & !SUITE, every(Field::Profile),
        "workload, see above", Word("s0")),
    opt("--profiles", text("LIST", profiles), SUITE, none("each point states its own"),
        "items, comma-separated: P, or P:shared (P --shared)",
        Word("every P, and P:shared where P takes --shared")),
    opt("--smoke", Value::Mode(Mode::Smoke), MEASURE, every(Field::Mode),
        "2 cycles, 1 round, no warm-up (explicit options still win)", Shown::None),
    opt("--trace", Value::Mode(Mode::Trace), RUNS, every(Field::Mode),
        "16 cycles, 1 round, no warm-up: a window with ftrace markers", Shown::None),
    opt("--cpu", num("N", 0, MAX_CPU, |p, v| p.cfg.cpu = Some(v)), ALL, every(Field::Cpu),
        "CPU to pin to", Num(DEFAULT_CPU, ", else the highest allowed")),
    opt("--rounds", num("N", 1, MAX_ROUNDS, |p, v| p.cfg.rounds = v), MEASURE,
        every(Field::Rounds), "measured rounds, {}", Num(DEFAULT_ROUNDS, "")),
    opt("--cycles", num("N", 1, MAX_CYCLES, |p, v| p.cfg.cycles = v), MEASURE,
        every(Field::Cycles), "cycles per round, {}", Num(DEFAULT_CYCLES, "")),
    opt("--warmups", num("N", 0, MAX_WARMUPS, |p, v| p.cfg.warmups = v), MEASURE,
        every(Field::Warmups), "untimed warm-up rounds, {}", Num(DEFAULT_WARMUPS, "")),
    opt("--slots", num("N", 1, MAX_SLOTS, |p, v| p.cfg.slots = v), MEASURE,
        only(Takes::Slots, Field::Slots),
        "requests a cycle, {}; v0: groups, 1..=8", Num(DEFAULT_SLOTS, "; v0 8")),
    opt("--shared", Value::Flag(|p| p.cfg.shared = true), MEASURE & !SUITE,
        only(Takes::Shared, Field::FutexScope),
        "no FUTEX2_PRIVATE, memory still private ({takers})", Shown::None),
    opt("--timeout", num("SECS", 1, MAX_TIMEOUT_S, |p, v| p.cfg.timeout_s = v), ALL,
        every(Field::Timeout),
        "bound on every io_uring wait in seconds, {}", Num(DEFAULT_TIMEOUT_S, "")),
    opt("--tsv", text("FILE", tsv), RUN, (Some(Takes::Tsv), Figures::None("an output")),
        "also the formal TSV rows, to FILE (never overwritten)", Shown::None),
    opt("--inject-ns", num("N", 0, MAX_INJECT_NS, |p, v| p.cfg.inject_ns = v), RUNS,
        every(Field::InjectNs), "positive control: N ns more per pair, {}", Num(0, "")),
    opt("--witness", Value::Choice { meta: "optional", set: witness }, RUN | SUITE,
        (None, Figures::Measured("witness")),
        "the kernel's own counts: ftrace events, functions", Shown::None),
    opt("--burst", num("N", 1, MAX_BURST, |p, v| p.cfg.burst = v), MEASURE,
        only(Takes::Burst, Field::Burst), "MSG_RING messages per burst, {}",
        Num(DEFAULT_BURST, "")),
    opt("--waiter-cpu", num("N", 0, MAX_CPU, |p, v| p.cfg.waiter_cpu = Some(v)), MEASURE,
        only(Takes::WaiterCpu, Field::WaiterCpu), "CPU of the waiter thread", Word("--cpu's")),
    opt("--ring-flags", text("F", ring_flags), MEASURE, only(Takes::RingFlags, Field::RingFlags),
        "none | single-issuer | defer-taskrun", Word("none")),
    opt("--inject-pct", text("PCT", inject_pct), CALIBRATE, none("calibrate's B points"),
        "B's injected change, 0 < PCT <= 100", Num(DEFAULT_GATE_PCT, ", the gate")),
    opt("--gate", text("PCT", gate), COMPARE | REPORT, none("reads points"),
        "the preregistered gate, 0 < PCT <= 100", Num(DEFAULT_GATE_PCT, "")),
    opt("--gate-insn", text("INSN", gate_insn), COMPARE | REPORT | AB, none("reads points"),
        "ab's gate, for icount points: instructions per pair", Word("ab: 0.5")),
    opt("--drop-first", Value::Flag(|p| p.compare.drop_first = true), COMPARE,
        none("reads points"), "figures without each point's first round", Word("all rounds")),
    opt("--tsv", Value::Flag(|p| p.compare.tsv = true), COMPARE, none("reads points"),
        "the result summary as TSV instead of text", Shown::None),
    opt("--mode", text("M", series_mode), COMPARE | REPORT, none("reads points"),
        "{tagged} results: the mode compared, {modes}", Shown::None),
    opt("--bisect", Value::Flag(|p| p.compare.bisect = true), COMPARE, none("reads points"),
        "git bisect run: judge new= against good= and bad=", Shown::None),
    opt("--introduced", text("SHA", |p, v| { p.draft.introduced = commit(v)?; Ok(()) }),
        REPORT | AB, none("reads points"), "the commit the regression is claimed for, the test's",
        Shown::None),
    opt("--parent", text("SHA", |p, v| { p.draft.parent = commit(v)?; Ok(()) }), REPORT | AB,
        none("reads points"), "the control's commit", Shown::None),
    opt("--title", text("TEXT", title), REPORT, none("reads points"),
        "the subject, at most 50 characters", Word("derived")),
    opt("--link", text("URL", link), REPORT, none("reads points"),
        "a Link: line, at most 66 characters; up to 4", Shown::None),
    opt("--steps", Value::Flag(|p| p.draft.steps = true), REPORT, none("reads points"),
        "a fix series' reply: the labels are its steps, in order", Shown::None),
    opt("--re", text("SUBJECT", re), REPORT | AB, none("reads points"),
        "with --steps: the patch's subject, replied to", Shown::None),
    opt("--steps", text("FILE", |p, v| { p.ab.steps_file = Some(v); Ok(()) }), AB,
        none("reads points"), "each step's LABEL, id and subject, tab-separated, a line each",
        Shown::None),
    opt("--", Value::Flag(|p| p.files_only = true), COMPARE | REPORT, none("reads points"),
        "every argument after it is a FILE", Shown::None),
    opt("--exact", Value::Flag(|p| p.ab.exact = true), AB, none("reads points"),
        "a label's boots give the same points, line for line, or 125", Shown::None),
    opt("--check", Value::Flag(|p| p.ab.check = true), AB, none("reads points"),
        "with -- RUN-OPTIONS: can ab's boots be judged? (exit 0 or 2)", Shown::None),
    opt("-o", text("FILE", output), INITRAMFS, none("an archive"),
        "the cpio to write, required (never overwritten)", Shown::None),
    opt("-o", text("DIR", ab_out), AB, none("reads points"),
        "where ab.tsv, ab.txt, compare/ and mail/ go (none there yet)", Word(".")),
    opt("--init", text("PATH", init), INITRAMFS, none("an archive"),
        "the /init to embed", Word("/proc/self/exe")),
    opt("--boot-id", text("UUID", boot_id), INITRAMFS, none("an archive"),
        "/uring-repro.boot_id: the boot's identity, its points' boot_id", Shown::None),
    opt("--console", text("FILE", |p, v| { p.points.console = Some(given(v)?); Ok(()) }),
        POINTS, none("reads a boot"), "the boot's console as QEMU wrote it, required", Shown::None),
    opt("-o", text("PATH", |p, v| { p.points.out = Some(given(v)?); Ok(()) }), POINTS,
        none("an output"), "the point to write, required (never overwritten)", Shown::None),
    opt("--suite", Value::Flag(|p| p.points.suite = true), POINTS, none("reads a boot"),
        "the boot ran a suite: PATH is a directory", Shown::None),
    opt("--icount", Value::Flag(|p| p.points.icount = true), POINTS, none("reads a boot"),
        "on QEMU's instruction clock: banners must say so", Shown::None),
    opt("--boot", text("WORDS", boot), POINTS, none("reads a boot"),
        "how QEMU booted: each point's `# boot=` line", Shown::None),
    opt("--image", text("FILE", |p, v| { p.points.image = Some(given(v)?); Ok(()) }),
        POINTS, none("reads a boot"), "the kernel booted: its SHA-256 on each point",
        Shown::None),
    opt("--counts", text("FILE", |p, v| { p.points.counts = Some(given(v)?); Ok(()) }),
        POINTS, none("reads a boot"), "the cost counter's: `# cost:` lines (docs/cost.md)",
        Shown::None),
    opt("--map", text("FILE", |p, v| { p.points.map = Some(given(v)?); Ok(()) }), POINTS,
        none("reads a boot"), "with --counts: the System.map they were made with",
        Shown::None),
    opt("--timed-out", num("SECS", 1, 999_999_999, |p, v| p.points.timed_out = Some(v)),
        POINTS, none("reads a boot"), "QEMU's timeout stopped the boot: no verdict is 124",
        Shown::None),
];

/// What `--help` says above and between the option lists.
const USAGE: &str = "\
usage: uring-repro [run] [options]       measure (the default command)
       uring-repro describe [options]  the contract they run, as JSON
       uring-repro selftest [--cpu N] [--timeout SECS]
                                       every workload's smoke (TAP 13)
       uring-repro compare [--gate PCT | --gate-insn INSN] [--tsv]
                           [--drop-first] [--mode M] [LABEL=]FILE...
                                       saved runs: the A B A sandwich, series
       uring-repro compare --bisect [--gate PCT] [--mode M]
                           good=FILE... bad=FILE... new=FILE
                                       one git bisect run step: 0 1 125 128
       uring-repro calibrate [options] [--inject-pct PCT]
                                       positive control: can this box see it?
       uring-repro suite [--profiles LIST] [options]
                                       several profiles in turn, a point each
       uring-repro initramfs -o FILE [--init PATH] [--boot-id UUID]
                             [suite] [options]
                                       a bootable cpio: /init runs the options
       uring-repro report [--gate PCT | --gate-insn INSN] [--mode M]
                          [--introduced SHA] [--parent SHA] [--title TEXT]
                          [--link URL]... LABEL=FILE...
                                       the regression mail, drafted
       uring-repro report --steps [--re SUBJECT] [--gate PCT | --gate-insn INSN]
                          [--mode M] [--title TEXT] [--link URL]...
                          LABEL=FILE...
                                       a fix series' reply, step by step
       uring-repro ab [--gate-insn INSN] [--introduced SHA] [--parent SHA]
                      [-o DIR] LABEL=SUITE...
                                       scripts/ab.sh's table, from its boots
       uring-repro ab --check [--gate-insn INSN] -- RUN-OPTIONS
                                       before any build: can they be judged?
       uring-repro points --console FILE -o PATH [--suite] [--icount]
                          [--boot WORDS] [--image FILE] [--timed-out SECS]
                          [--counts FILE [--map FILE]]
                                       a boot's console: the point it holds
       uring-repro --help | --version

Reproduces the io_uring futex WAIT->WAKE microbenchmark behind the regression
report on Linux commit 079afb081c42 and validates every completion.
";

const COMPARE_TEXT: &str = "FILEs are saved runs, one per boot (stdout or --tsv \
    of uring-repro, the C standalone's stdout, the formal C reproducer's TSV, at most 16). \
    Three plain FILEs are the A B A sandwich; LABEL=FILE points with one label form a \
    group, each label compared with the first one (docs/compare.md):";

const REPORT_TEXT: &str = "compare's FILEs and labels, the first label the control; \
    prints a plain-text mail draft of at most 72 columns: the points, the workload from \
    their banners, the table, the verdict as a claim, the checks, witness, `#regzbot` and \
    how to reproduce. With --steps, the labels are the steps of a series in order (a \
    label's points its boots), each against the one before and the first. A fact a point \
    does not state is left out and named on stderr; exit 1 when a point failed its checks \
    (the draft says NOT EVIDENCE; docs/report.md):";

const CALIBRATE_TEXT: &str = "six points A B A B A B in one process, with the run \
    options (not --trace, --tsv, --inject-ns); B spins PCT% of A's mean more per pair. \
    Prints the A/A noise floor, B vs A with its 95% CI, and one `# calibrate:` line; \
    exit 0 when the CI holds the injected change and excludes 0 (docs/calibrate.md):";

const SUITE_TEXT: &str = "runs the items of LIST one after another in this \
    process, each printing the point `run --profile P` (with --shared for P:shared) prints \
    with the same options, after a line `# suite: K/N ITEM`; then a line per item with \
    its exit code, and the counts. An option only some profiles take applies to the items \
    that take it (one no item takes is a usage error); not --profile, --shared, --tsv. A \
    skipped or failed item does not stop the next; SIGINT or SIGTERM does (130). Exit 0 \
    when every item that ran passed, 1 when one did not, 4 when every one skipped \
    (docs/output.md):";

const INITRAMFS_TEXT: &str = "writes FILE, an uncompressed newc cpio: /init (this \
    binary, or --init's, such as another architecture's build), /dev/console, /proc, /sys \
    and /uring-repro.args, the options (checked as run checks them; after the word \
    `suite`, as suite does) one a line; with --boot-id, /uring-repro.boot_id. Booted with nothing after `--` on the kernel \
    command line, /init runs those; arguments after `--` win (README: Boot a kernel into \
    a point):";

const AB_TEXT: &str = "each SUITE is a boot's directory of points, as \
    `scripts/boot-point.sh -- suite` writes it; LABEL names its kernel, the first the base, \
    a label given again another boot of it (base=base-1 head=head base=base-2). A row per \
    item and mode, the second label against the first, each judged at the gate in \
    instructions per pair (compare --gate-insn); writes ab.tsv, ab.txt (also on stdout), \
    compare/ROW.txt and, for each row that moved, mail/ROW.txt. Exit 0 no row moved, 1 one \
    moved or an item's outcome changed, 125 no row moved and one could not be judged \
    (docs/ab.md):";

const POINTS_TEXT: &str = "reads FILE, a boot's console as QEMU wrote it \
    (scripts/boot-point.sh's), and writes to PATH the point its run printed, or with \
    --suite the directory of its items' points (ITEM.txt) and suite.txt: whole or not at \
    all, never over anything. The binary's stderr lines in the console go to stderr. Exit: \
    the run's own code; 125 when no report came back, or it cannot be a point; 2 when PATH \
    cannot be written (README: Boot a kernel into a point):";

/// The commands with options of their own, in --help's order: what each
/// does (wrapped after its name, then its options follow).
const SECTIONS: [(&str, &str, u16); 7] = [
    ("compare", COMPARE_TEXT, COMPARE),
    ("calibrate", CALIBRATE_TEXT, CALIBRATE),
    ("suite", SUITE_TEXT, SUITE),
    ("initramfs", INITRAMFS_TEXT, INITRAMFS),
    ("report", REPORT_TEXT, REPORT),
    ("ab", AB_TEXT, AB),
    ("points", POINTS_TEXT, POINTS),
];

/// Where help text wraps.
const WIDTH: usize = 80;
/// Where an item's text starts, and its default (from there).
const INDENT: usize = 18;
const DEFAULT_AT: usize = 42;

/// `  LEFT  text`, the text starting at `indent` (on the next line when
/// LEFT is wider) and wrapped at WIDTH.
fn item(w: &mut dyn Write, left: &str, text: &str, indent: usize) {
    let _ = write!(w, "  {left}");
    if 2 + left.len() >= indent {
        let _ = write!(w, "\n{:indent$}", "");
    } else {
        let _ = write!(w, "{:1$}", "", indent - 2 - left.len());
    }
    render::wrap(w, text, indent, indent, WIDTH);
}

/// An option's line: its name and value, its help (the range filled in),
/// and its default in a column of its own.
fn option(w: &mut dyn Write, o: &Opt) {
    let mut left = Line::new();
    let mut text = Line::new();
    let _ = match o.value {
        Value::Flag(_) | Value::Mode(_) => write!(left, "{}", o.name),
        Value::Number { meta, .. } | Value::Text { meta, .. } => write!(left, "{} {meta}", o.name),
        Value::Choice { meta, .. } => write!(left, "{}[={meta}]", o.name),
    };
    help_text(&mut text, o);
    let mut default = Line::new();
    let _ = match o.default {
        Shown::None => Ok(()),
        Shown::Num(n, more) => write!(default, "(default {n}{more})"),
        Shown::Word(s) => write!(default, "(default {s})"),
    };
    // The default in its column where it fits, else after the help, else
    // on a line of its own. (Every option's help fits one line.)
    let (len, dlen) = (text.as_bytes().len(), default.as_bytes().len());
    // A name and value as wide as the column: the help on the next line.
    let _ = if left.as_bytes().len() >= INDENT - 2 {
        write!(w, "  {}\n{:INDENT$}{text}", left.as_str(), "")
    } else {
        write!(w, "  {:<1$}{text}", left.as_str(), INDENT - 2)
    };
    let _ = if dlen == 0 {
        writeln!(w)
    } else if INDENT + len.max(DEFAULT_AT) + dlen <= WIDTH {
        writeln!(
            w,
            "{:1$}{default}",
            "",
            DEFAULT_AT.saturating_sub(len).max(1)
        )
    } else if INDENT + len + 1 + dlen <= WIDTH {
        writeln!(w, " {default}")
    } else {
        writeln!(w, "\n{:1$}{default}", "", WIDTH - dlen)
    };
}

/// An option's help, its placeholders filled in from the table and the
/// workloads (see `Opt::help`).
fn help_text(w: &mut dyn Write, o: &Opt) {
    let tagged = || ProfileId::ALL.into_iter().filter(|id| id.tagged());
    let mut rest = o.help;
    while let Some((before, after)) = rest.split_once('{') {
        let _ = w.write_str(before);
        let (name, after) = after.split_once('}').unwrap_or((after, ""));
        match (name, o.value) {
            ("", Value::Number { lo, hi, .. }) => {
                let _ = write!(w, "{lo}..={hi}");
            }
            ("takers", _) => takers(w, o),
            ("tagged", _) => joined(w, "/", tagged().map(ProfileId::formal_name)),
            ("modes", _) => {
                let series = tagged().flat_map(|id| id.profile().series.iter());
                joined(w, "|", series.filter_map(|s| s.mode));
            }
            _ => {}
        }
        rest = after;
    }
    let _ = w.write_str(rest);
}

/// `words`, `sep` between each two.
fn joined<'w>(w: &mut dyn Write, sep: &str, words: impl Iterator<Item = &'w str>) {
    for (i, word) in words.enumerate() {
        let _ = write!(w, "{}{word}", if i == 0 { "" } else { sep });
    }
}

/// The short names of the workloads that take `o`, a space between each two.
pub fn takers(w: &mut dyn Write, o: &Opt) {
    let takers = ProfileId::ALL.into_iter().filter(|&id| takes(id, o));
    joined(w, " ", takers.map(|id| id.names().short));
}

/// Whether workload `id` takes option `o`.
pub fn takes(id: ProfileId, o: &Opt) -> bool {
    o.only.is_none_or(|t| id.takes(t))
}

/// The options of `commands` that `shown` picks, in table order.
fn options(w: &mut dyn Write, commands: u16, shown: impl Fn(&Opt) -> bool) {
    for o in OPTIONS.iter().filter(|o| o.commands & commands != 0) {
        if shown(o) && o.name != "--" {
            option(w, o);
        }
    }
}

/// The one workload that takes `o`, if only one does.
fn taker(o: &Opt) -> Option<ProfileId> {
    let mut takers = ProfileId::ALL.into_iter().filter(|&id| takes(id, o));
    match (takers.next(), takers.next()) {
        (Some(id), None) if o.only.is_some() => Some(id),
        _ => None,
    }
}

/// `--help`: every command, profile, option with its range and default,
/// and every exit code.
pub fn help(w: &mut dyn Write) {
    let _ = writeln!(w, "{USAGE}\nprofiles (--profile, short or long name):");
    for id in ProfileId::ALL {
        let n = id.names();
        let mut left = Line::new();
        let _ = write!(left, "{} {}", n.short, n.long);
        item(w, left.as_str(), n.help, INDENT);
    }
    let _ = writeln!(w, "\noptions (defaults are the report's contract):");
    options(w, RUN | DESCRIBE, |o| taker(o).is_none());
    item(w, "--help", "this text", INDENT);
    item(w, "--version", "the version", INDENT);
    // The options a workload alone takes, under its name.
    for id in ProfileId::ALL {
        if OPTIONS
            .iter()
            .any(|o| o.commands & RUN != 0 && taker(o) == Some(id))
        {
            let _ = writeln!(w, "\n{} only:", id.names().short);
            options(w, RUN, |o| taker(o) == Some(id));
        }
    }
    for (name, text, command) in SECTIONS {
        let _ = write!(w, "\n{name}: ");
        render::wrap(w, text, name.len() + 2, 0, WIDTH);
        options(w, command, |o| o.only.is_none());
    }
    let _ = writeln!(
        w,
        "\nOptions take their value as `--opt N` or `--opt=N`.\n\nexit codes:"
    );
    for (code, meaning) in exit::MEANINGS {
        let mut left = Line::new();
        let _ = write!(left, "{code}");
        item(w, left.as_str(), meaning, 8);
    }
}
