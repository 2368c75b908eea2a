//! Every path of the parser, every error's argument and reason.

use super::*;
use crate::compare::Gate;
use crate::config::{RingFlags, Witness, MAX_CYCLES};
use crate::profile::contract::{Contract, Field, FieldValue};
use crate::profile::Takes;
use options::{Figures, CALIBRATE};

fn p(args: &[&'static str]) -> Result<Command<'static>, UsageError<'static>> {
    parse(args.iter().map(|s| s.as_bytes()))
}

fn run(args: &[&'static str]) -> (ProfileId, RunConfig<'static>) {
    match p(args) {
        Ok(Command::Run(id, c)) => (id, c),
        other => panic!("{args:?}: {other:?}"),
    }
}

fn cfg(args: &[&'static str]) -> RunConfig<'static> {
    run(args).1
}

fn profile(args: &[&'static str]) -> ProfileId {
    run(args).0
}

/// The argument as the error names it (`--rounds 0`), and why.
fn why(args: &[&'static str]) -> (String, Why) {
    let e = p(args).unwrap_err();
    let mut arg = String::from_utf8_lossy(e.arg).into_owned();
    if let Some(v) = e.value {
        arg = format!("{arg} {}", String::from_utf8_lossy(v));
    }
    (arg, e.why)
}

/// `args` are refused, naming `arg` (and its value, where it came
/// separately) for `reason`.
#[track_caller]
fn refused(args: &[&'static str], arg: &str, reason: Why) {
    assert_eq!(why(args), (arg.to_string(), reason), "{args:?}");
}

fn help_text() -> String {
    let mut s = String::new();
    help(&mut s);
    s
}

#[test]
fn defaults_are_the_contract() {
    let c = cfg(&[]);
    assert_eq!(c, RunConfig::default());
    assert_eq!(
        (c.rounds, c.cycles, c.warmups, c.slots, c.timeout_s),
        (15, 512, 3, 32, 2)
    );
    assert_eq!(c.cpu, None);
    assert_eq!(cfg(&["run"]), c);
}

#[test]
fn compare_has_its_own_rows_of_the_table() {
    let help = help_text();
    assert!(help.contains("compare [--gate PCT | --gate-insn INSN]"));
    assert!(help.contains("--mode M") && help.contains("(default 5)"));
    let e = p(&["compare", "--bogus", "a"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "compare: --bogus: unknown option (see --help)"
    );
    let e = p(&["compare", "--rounds", "3", "a"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "compare: --rounds: does not apply to compare"
    );
    refused(&["--gate", "5"], "--gate", Why::NotForCommand("run"));
    assert_eq!(p(&["compare", "a", "--help"]), Ok(Command::Help));
}

#[test]
fn smoke_shape_and_overrides() {
    let c = cfg(&["--smoke"]);
    assert_eq!(
        (c.rounds, c.cycles, c.warmups, c.mode),
        (1, 2, 0, Mode::Smoke)
    );
    let c = cfg(&["--cycles", "5", "--smoke"]);
    assert_eq!((c.rounds, c.cycles, c.warmups), (1, 5, 0));
    let c = cfg(&["--trace", "--profile", "l0"]);
    assert_eq!(
        (c.rounds, c.cycles, c.warmups, c.mode),
        (1, 16, 0, Mode::Trace)
    );
    assert_eq!(cfg(&["--trace", "--rounds=2"]).rounds, 2);
    assert_eq!(cfg(&[]).mode, Mode::Point);
}

#[test]
fn every_profile_by_every_name() {
    for id in ProfileId::ALL {
        let n = id.names();
        for name in [n.short, n.long, n.formal] {
            let c = parse([b"--profile".as_slice(), name.as_bytes()]);
            assert!(matches!(c, Ok(Command::Run(got, _)) if got == id), "{name}");
        }
        assert_eq!(id.formal_name(), n.formal);
    }
    assert_eq!(profile(&["--profile=c0"]).formal_name(), "c0_wait_cancel");
    assert_eq!(profile(&["--profile", "nop"]).formal_name(), "n0_nop");
}

#[test]
fn waitv_slots_are_groups() {
    let c = cfg(&["--profile", "v0"]);
    assert_eq!(c.slots, 8);
    assert_eq!(cfg(&["--slots", "3", "--profile", "v0"]).slots, 3);
    refused(
        &["--slots", "9", "--profile", "v0"],
        "--slots 9",
        Why::OutOfRange(1, 8),
    );
    refused(
        &["--profile=v0", "--slots=64"],
        "--slots=64",
        Why::OutOfRange(1, 8),
    );
    assert_eq!(cfg(&["--profile", "s0"]).slots, 32);
}

#[test]
fn shared_scope_only_where_it_means_something() {
    for id in ProfileId::ALL {
        let (short, formal) = (id.names().short, id.formal_name());
        let r = parse([b"--shared".as_slice(), b"--profile", short.as_bytes()]);
        match r {
            Ok(Command::Run(_, c)) => {
                assert!(c.shared && id.takes(Takes::Shared), "{short}");
                assert_eq!(c.futex_scope(), "shared");
            }
            Err(e) => {
                assert!(!id.takes(Takes::Shared), "{short}");
                assert_eq!(e.why, Why::NotForProfile(formal));
                assert_eq!(
                    e.to_string(),
                    format!("--shared: does not apply to profile {formal}")
                );
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(cfg(&[]).futex_scope(), "private");
    assert!(!profile(&["--profile=n0"]).takes(Takes::Shared));
    assert!(!profile(&["--profile=l0"]).takes(Takes::Shared));
}

#[test]
fn tsv_describe_selftest() {
    assert_eq!(cfg(&["--tsv", "a.tsv"]).tsv, Some(b"a.tsv".as_slice()));
    assert_eq!(cfg(&["--tsv=b"]).tsv, Some(b"b".as_slice()));
    refused(&["--tsv="], "--tsv=", Why::MissingValue);
    refused(&["--tsv"], "--tsv", Why::MissingValue);
    match p(&["describe", "--profile", "v0", "--smoke"]) {
        Ok(Command::Describe(id, c)) => {
            assert_eq!(
                (id, c.mode, c.slots),
                (ProfileId::parse(b"v0").unwrap(), Mode::Smoke, 8)
            )
        }
        other => panic!("{other:?}"),
    }
    refused(
        &["describe", "--tsv", "x"],
        "--tsv",
        Why::NotForCommand("describe"),
    );
    match p(&["selftest", "--cpu", "1", "--timeout=3"]) {
        Ok(Command::Selftest(c)) => assert_eq!((c.cpu, c.timeout_s), (Some(1), 3)),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        p(&["selftest"]),
        Ok(Command::Selftest(RunConfig::default()))
    );
    refused(
        &["selftest", "--smoke"],
        "--smoke",
        Why::NotForCommand("selftest"),
    );
    refused(
        &["selftest", "--profile", "s0"],
        "--profile",
        Why::NotForCommand("selftest"),
    );
    refused(&["--smoke", "--trace"], "--trace", Why::Conflict);
    refused(&["--shared=1"], "--shared=1", Why::UnexpectedValue);
    refused(&["--shared", "--shared"], "--shared", Why::Duplicate);
}

#[test]
fn values_both_forms() {
    let c = cfg(&[
        "run",
        "--cpu=1",
        "--rounds",
        "7",
        "--slots=64",
        "--timeout",
        "9",
    ]);
    assert_eq!((c.cpu, c.rounds, c.slots, c.timeout_s), (Some(1), 7, 64, 9));
    assert_eq!(profile(&["--profile", "wait-wake"]), ProfileId::S0);
    assert_eq!(profile(&["--profile=s0_wait_wake"]), ProfileId::S0);
}

#[test]
fn help_and_version() {
    assert_eq!(p(&["--help"]), Ok(Command::Help));
    assert_eq!(p(&["-h"]), Ok(Command::Help));
    assert_eq!(p(&["run", "--version"]), Ok(Command::Version));
    assert_eq!(p(&["--rounds", "3", "--help"]), Ok(Command::Help));
    // They end the command line: a word after them is a usage error.
    for (args, word, after) in [
        (&["--version", "extra"][..], "extra", "--version"),
        (&["--help", "extra"], "extra", "--help"),
        (&["-h", "--smoke"], "--smoke", "--help"),
        (&["compare", "--help", "a.txt"], "a.txt", "--help"),
    ] {
        let e = p(args).unwrap_err();
        assert_eq!(
            (e.arg, e.why),
            (word.as_bytes(), Why::After(after)),
            "{args:?}"
        );
    }
    assert_eq!(
        p(&["--version", "extra"]).unwrap_err().to_string(),
        "extra: unexpected after --version (which ends the command line)"
    );
    let help = help_text();
    for o in [
        "--profile",
        "--smoke",
        "--cpu",
        "--rounds",
        "--cycles",
        "--warmups",
        "--slots",
        "--shared",
        "--trace",
        "--tsv",
        "--timeout",
        "describe",
        "selftest",
    ] {
        assert!(help.contains(o), "{o}");
    }
    for id in ProfileId::ALL {
        let n = id.names();
        let line = format!("\n  {} {}", n.short, n.long);
        let at = help.find(&line).unwrap_or_else(|| panic!("{}", n.short));
        let next = help.as_bytes()[at + line.len()];
        assert!(next == b' ' || next == b'\n', "{}", n.short);
    }
    for (code, _) in crate::exit::MEANINGS {
        assert!(help.contains(&format!("\n  {code} ")), "exit {code}");
    }
    assert!(help.lines().all(|l| l.len() <= 80), "{help}");
}

#[test]
fn every_error_names_its_argument() {
    refused(&["--bogus"], "--bogus", Why::UnknownOption);
    refused(&["bench"], "bench", Why::UnknownCommand);
    refused(&["run", "extra"], "extra", Why::UnknownCommand);
    refused(&["--rounds"], "--rounds", Why::MissingValue);
    refused(&["--rounds", "x1"], "--rounds x1", Why::NotANumber);
    refused(&["--rounds", "-1"], "--rounds -1", Why::NotANumber);
    refused(&["--rounds="], "--rounds=", Why::NotANumber);
    refused(&["--rounds", "0"], "--rounds 0", Why::OutOfRange(1, 4096));
    refused(
        &["--rounds=4097"],
        "--rounds=4097",
        Why::OutOfRange(1, 4096),
    );
    refused(&["--slots", "65"], "--slots 65", Why::OutOfRange(1, 64));
    refused(&["--slots", "0"], "--slots 0", Why::OutOfRange(1, 64));
    refused(&["--timeout", "0"], "--timeout 0", Why::OutOfRange(1, 3600));
    refused(&["--cpu", "1024"], "--cpu 1024", Why::OutOfRange(0, 1023));
    refused(
        &["--cycles", "99999999999999999999999"],
        "--cycles 99999999999999999999999",
        Why::NotANumber,
    );
    refused(
        &["--cycles", "18446744073709551616"],
        "--cycles 18446744073709551616",
        Why::OutOfRange(1, MAX_CYCLES as u64),
    );
    refused(&["--cpu", "1", "--cpu", "1"], "--cpu", Why::Duplicate);
    refused(&["--smoke", "--smoke"], "--smoke", Why::Duplicate);
    refused(&["--smoke=1"], "--smoke=1", Why::UnexpectedValue);
    refused(&["--profile", "zz"], "--profile zz", Why::UnknownProfile);
    refused(&["--cpu", "\u{e9}"], "--cpu \u{e9}", Why::NotANumber);
}

#[test]
fn error_messages_read_well() {
    let e = p(&["--rounds", "0"]).unwrap_err();
    assert_eq!(e.to_string(), "--rounds 0: out of range (1..=4096)");
    let e = p(&["--bogus"]).unwrap_err();
    assert_eq!(e.to_string(), "--bogus: unknown option (see --help)");
}

#[test]
fn arbitrary_bytes_never_panic() {
    let junk: [&[u8]; 8] = [
        b"",
        b"=",
        b"--=",
        b"-",
        b"--",
        b"\xff\xfe",
        b"--cpu=\xff",
        b"run",
    ];
    for a in junk {
        for b in junk {
            let _ = parse([a, b]);
        }
    }
}

#[test]
fn pollwake_options() {
    let (id, c) = run(&[
        "--profile",
        "pollwake",
        "--burst",
        "5",
        "--waiter-cpu=1",
        "--ring-flags",
        "defer-taskrun",
        "--smoke",
    ]);
    assert_eq!(id, ProfileId::parse(b"pollwake").unwrap());
    assert_eq!((c.burst, c.waiter_cpu), (5, Some(1)));
    assert_eq!(c.ring_flags, RingFlags::DeferTaskrun);
    assert_eq!((c.rounds, c.cycles, c.warmups), (1, 2, 0));
    let d = cfg(&["--profile=poll-wake"]);
    assert_eq!(
        (d.burst, d.waiter_cpu, d.ring_flags),
        (32, None, RingFlags::None)
    );
    for (args, arg) in [
        (&["--profile", "pollwake", "--slots", "3"][..], "--slots"),
        (&["--profile", "pollwake", "--shared"][..], "--shared"),
        (&["--tsv", "x", "--profile", "pollwake"][..], "--tsv"),
        (&["--ring-flags=none"][..], "--ring-flags=none"),
        (&["--profile", "s0", "--burst", "4"][..], "--burst"),
    ] {
        let e = p(args).unwrap_err();
        assert_eq!(String::from_utf8_lossy(e.arg), arg, "{args:?}");
        assert!(matches!(e.why, Why::NotForProfile(_)), "{args:?}");
    }
    refused(
        &["--profile", "pollwake", "--ring-flags", "x"],
        "--ring-flags x",
        Why::UnknownRingFlags,
    );
    // describe states pollwake's contract as any workload's.
    match p(&["describe", "--profile", "pollwake", "--burst", "5"]) {
        Ok(Command::Describe(id, c)) => assert_eq!((id.formal_name(), c.burst), ("pollwake", 5)),
        other => panic!("{other:?}"),
    }
    // A trace window applies to pollwake too (16 bursts of each mode).
    let t = cfg(&["--profile", "pollwake", "--trace"]);
    assert_eq!(
        (t.mode, t.rounds, t.cycles, t.warmups),
        (Mode::Trace, 1, 16, 0)
    );
}

#[test]
fn witness_is_a_flag_with_one_optional_word() {
    assert_eq!(cfg(&[]).witness, Witness::Off);
    assert_eq!(cfg(&["--witness", "--trace"]).witness, Witness::Required);
    assert_eq!(cfg(&["--trace", "--witness"]).mode, Mode::Trace);
    assert_eq!(cfg(&["--witness=optional"]).witness, Witness::Optional);
    for profile in ["s0", "c0", "v0", "z0", "e0", "n0", "l0", "pollwake"] {
        for mode in ["--smoke", "--trace", "--rounds=2"] {
            let c = cfg(&["--profile", profile, mode, "--witness"]);
            assert_eq!(c.witness, Witness::Required, "{profile} {mode}");
        }
    }
    // The word is inline only: a following argument is never taken.
    refused(&["--witness=on"], "--witness=on", Why::UnknownWitness);
    assert_eq!(why(&["--witness", "optional"]).1, Why::UnknownCommand);
    assert_eq!(why(&["--witness", "--witness"]).1, Why::Duplicate);
    let e = p(&["describe", "--witness"]).unwrap_err();
    assert!(matches!(e.why, Why::NotForCommand("describe")));
}

fn compare(v: &[&'static str]) -> Result<compare::Args<'static>, (String, String)> {
    let mut args = vec!["compare"];
    args.extend_from_slice(v);
    match p(&args) {
        Ok(Command::Compare(a)) => Ok(a),
        Ok(other) => panic!("{other:?}"),
        Err(e) => Err((String::from_utf8_lossy(e.arg).into_owned(), e.to_string())),
    }
}

fn labels(a: &compare::Args) -> Vec<String> {
    (0..a.n)
        .map(|i| String::from_utf8_lossy(a.label(i)).into_owned())
        .collect()
}

#[test]
fn plain_files_get_sandwich_labels() {
    let a = compare(&["a", "b", "c"]).unwrap();
    assert_eq!(labels(&a), ["A", "B", "A"]);
    assert_eq!(
        (a.gate, a.tsv, a.drop_first),
        (Gate::Pct(5.0), false, false)
    );
    assert_eq!(labels(&compare(&["a", "b"]).unwrap()), ["A", "B"]);
    assert_eq!(labels(&compare(&["a"]).unwrap()), ["A"]);
    let a = compare(&["--tsv", "--gate=2.5", "x", "--drop-first", "y"]).unwrap();
    assert_eq!(
        (a.gate, a.tsv, a.drop_first, a.n),
        (Gate::Pct(2.5), true, true, 2)
    );
    let a = compare(&["--gate", "10", "--", "--odd-name", "./k=v", "-"]).unwrap();
    assert_eq!(a.gate, Gate::Pct(10.0));
    assert_eq!(
        (a.file(0), a.file(1), a.file(2)),
        (&b"--odd-name"[..], &b"./k=v"[..], &b"-"[..])
    );
    let a = compare(&["--mode", "none_aa", "x"]).unwrap();
    assert_eq!(a.mode, Some(&b"pollwake_none_aa"[..]));
    let a = compare(&["base=a", "patch1=b", "full=c", "patch1=d", "base=e"]).unwrap();
    assert_eq!(labels(&a), ["base", "patch1", "full", "patch1", "base"]);
    assert_eq!(a.file(4), b"e");
}

#[test]
fn every_compare_error_names_its_argument() {
    let e = |v: &[&'static str]| compare(v).unwrap_err().1;
    let none = "compare: needs at least one result file (see --help)";
    assert_eq!(e(&[]), none);
    assert_eq!(e(&["--tsv"]), none);
    assert_eq!(
        e(&["--bogus", "a"]),
        "compare: --bogus: unknown option (see --help)"
    );
    assert_eq!(
        e(&["--tsv", "--tsv", "a"]),
        "compare: --tsv: given more than once"
    );
    assert_eq!(e(&["--tsv=1", "a"]), "compare: --tsv=1: takes no value");
    let pct = "needs a percentage in (0, 100], at most 3 decimals";
    assert_eq!(
        e(&["--gate", "0", "a"]),
        format!("compare: --gate 0: {pct}")
    );
    assert_eq!(
        e(&["--gate=101", "a"]),
        format!("compare: --gate=101: {pct}")
    );
    assert_eq!(
        e(&["--gate", "x", "a"]),
        format!("compare: --gate x: {pct}")
    );
    assert_eq!(e(&["--gate="]), format!("compare: --gate=: {pct}"));
    assert_eq!(e(&["--gate"]), "compare: --gate: needs a value");
    assert_eq!(
        e(&["--gate=1", "--gate=2", "a"]),
        "compare: --gate=2: given more than once"
    );
    assert_eq!(
        e(&["--mode", "x", "a"]),
        "compare: --mode x: needs a pollwake mode: none, idle, waiter or none_aa"
    );
    assert_eq!(
        e(&["a", "b", "c", "d"]),
        "compare: d: 4 or more plain files: label them (LABEL=FILE)"
    );
    assert_eq!(e(&["x=a", "b"]), "compare: b: label every file or none");
    assert_eq!(e(&["a", "x=b"]), "compare: x=b: label every file or none");
    assert_eq!(e(&["x="]), "compare: x=: no file name");
    let bad_label = "a label is 1-12 of A-Z a-z 0-9 _ . + - (write ./FILE for a path)";
    for l in ["=a", "thirteen_char=a", "a b=c"] {
        assert_eq!(e(&[l]), format!("compare: {l}: {bad_label}"));
    }
    let many: Vec<String> = (0..17).map(|i| format!("l{i}=f")).collect();
    let many: Vec<&'static str> = many.into_iter().map(|s| &*s.leak()).collect();
    assert_eq!(e(&many), "compare: l16=f: more than 16 files");
    assert!(compare(&many[..16]).is_ok());
}

#[test]
fn kernel_words_before_ours_are_skipped_and_named() {
    let skip = |args: &[&'static str]| {
        let mut it = args.iter().map(|s| s.as_bytes()).peekable();
        let mut said = String::new();
        skip_kernel_words(&mut it, &mut said);
        let rest: Vec<&[u8]> = it.collect();
        (said, rest)
    };
    let (said, rest) = skip(&["nokaslr", "quiet", "--smoke", "x"]);
    assert_eq!(
        said,
        "# ignored kernel parameter: nokaslr\n# ignored kernel parameter: quiet\n"
    );
    assert_eq!(rest, [&b"--smoke"[..], b"x"]);
    // Nothing left: the baked arguments are read, as with no word at all.
    let (said, rest) = skip(&["nokaslr"]);
    assert_eq!((said.lines().count(), rest.len()), (1, 0));
    // A command or an option ends the kernel's words; so does -h.
    for first in ["compare", "initramfs", "-h", "--"] {
        let (said, rest) = skip(&["splash", first, "nokaslr"]);
        assert_eq!((said.lines().count(), rest.len()), (1, 2), "{first}");
    }
    let (said, rest) = skip(&[]);
    assert_eq!((said.as_str(), rest.len()), ("", 0));
}

/// A value for every option a run, describe or calibrate takes:
/// what `every_option_changes_the_contract_or_says_why_not` gives it.
/// An option added to the table without one here fails that test.
pub(super) const SAMPLES: [(&str, &[&str]); 17] = [
    ("--profile", &["--profile", "c0"]),
    ("--smoke", &["--smoke"]),
    ("--trace", &["--trace"]),
    ("--cpu", &["--cpu", "0"]),
    ("--rounds", &["--rounds", "7"]),
    ("--cycles", &["--cycles", "7"]),
    ("--warmups", &["--warmups", "7"]),
    ("--slots", &["--slots", "7"]),
    ("--shared", &["--shared"]),
    ("--timeout", &["--timeout", "7"]),
    ("--tsv", &["--tsv", "x.tsv"]),
    ("--inject-ns", &["--inject-ns", "7"]),
    ("--witness", &["--witness"]),
    ("--burst", &["--burst", "7"]),
    ("--waiter-cpu", &["--waiter-cpu", "0"]),
    ("--ring-flags", &["--ring-flags", "defer-taskrun"]),
    ("--inject-pct", &["--inject-pct", "7"]),
];

/// The fields no option sets: they follow from the workload and the
/// fields options set (the ring, a slot's width, the unit, the waiter's
/// watchdog, a workload's own ring and its SQ thread's CPU and idle).
const DERIVED: [Field; 8] = [
    Field::RingEntries,
    Field::CqEntries,
    Field::VectorWidth,
    Field::PairsPerCycle,
    Field::WatchdogMs,
    Field::SetupFlags,
    Field::SqThreadCpu,
    Field::SqThreadIdleMs,
];

/// The workload and run a run, describe or calibrate command line asks for.
fn asked(args: &[&'static str]) -> (ProfileId, RunConfig<'static>) {
    match p(args) {
        Ok(Command::Run(id, c) | Command::Describe(id, c) | Command::Calibrate(id, c, _)) => {
            (id, c)
        }
        other => panic!("{args:?}: {other:?}"),
    }
}

/// The contract of a command line's run (the CPU a stand-in for the one
/// `run` would choose: 3 unless --cpu says): `describe`'s JSON, and the
/// value of field `f`.
fn contract_of(args: &[&'static str], f: Field) -> (String, Option<FieldValue>) {
    let (id, cfg) = asked(args);
    let c = Contract {
        id,
        cfg: &cfg,
        cpu: cfg.cpu.unwrap_or(3),
    };
    let json = String::from_utf8(c.json().as_bytes().to_vec()).unwrap();
    (json, c.value(f))
}

/// Every option of the table says what it does to a run's figures, and
/// says it truly, for every workload that takes it: one that sets a
/// contract field changes that field, and so `describe` and the hash; one
/// that changes how a point is measured, or no figure, changes neither.
/// So an option that can change a figure cannot be left out of the
/// contract: it must name its field (or why not) to be in the table at
/// all, and the claim is checked here. Every field is set by an option or
/// follows from others (`DERIVED`).
#[test]
fn every_option_changes_the_contract_or_says_why_not() {
    let mut set = Vec::new();
    for o in &OPTIONS {
        let Some(command) = [RUN, DESCRIBE, CALIBRATE]
            .into_iter()
            .find(|&c| o.commands & c != 0)
        else {
            // compare's, report's, initramfs's and selftest's own: they
            // make no point.
            assert!(matches!(o.figures, Figures::None(_)), "{}", o.name);
            continue;
        };
        let Some(&(_, sample)) = SAMPLES.iter().find(|s| s.0 == o.name) else {
            panic!(
                "{}: no sample: add one, and say what it does to figures",
                o.name
            );
        };
        let word = COMMANDS.iter().find(|c| c.1 == command).unwrap().0;
        let takers = ProfileId::ALL
            .into_iter()
            .filter(|&id| options::takes(id, o));
        for id in takers {
            let short = id.names().short;
            let mut base = vec![word];
            if o.name != "--profile" {
                base.extend(["--profile", short]);
            }
            let with = [&base[..], sample].concat();
            let what = format!("{} for {short}", o.name);
            // Field::Profile stands in where the option names none.
            let f = match o.figures {
                Figures::Contract(f) => f,
                _ => Field::Profile,
            };
            let ((before, was), (after, is)) = (contract_of(&base, f), contract_of(&with, f));
            match o.figures {
                Figures::Contract(f) => {
                    set.push(f);
                    let member = match is {
                        Some(FieldValue::Num(n)) => format!("\"{}\":{n},", f.name()),
                        Some(FieldValue::Word(w)) => format!("\"{}\":\"{w}\",", f.name()),
                        None => panic!("{what}: {f:?} not stated"),
                    };
                    assert_ne!(was, is, "{what}: {f:?} did not change");
                    assert!(after.contains(&member), "{what}: {member} in {after}");
                    assert_ne!(before, after, "{what}: the contract did not change");
                }
                Figures::Measured(key) => {
                    assert_eq!(key, "witness", "{what}: the banner's first line states it");
                    assert_ne!(asked(&base).1, asked(&with).1, "{what}: sets nothing");
                    assert_eq!(before, after, "{what}: a measurement is not the contract");
                }
                Figures::None(why) => {
                    assert!(!why.is_empty(), "{what}");
                    assert_eq!(before, after, "{what} changes the contract: {why}?");
                }
            }
        }
    }
    for f in Field::ALL {
        assert!(
            set.contains(&f) != DERIVED.contains(&f),
            "{f:?}: set by an option, or derived, not both nor neither"
        );
    }
}

#[test]
fn one_gate_at_a_time_and_in_instructions_not_for_bisect() {
    let two = p(&["compare", "--gate", "5", "--gate-insn", "0.5", "a"]).unwrap_err();
    assert_eq!(
        two.to_string(),
        "compare: --gate and --gate-insn are two gates: give one"
    );
    let bisect = [
        "compare",
        "--bisect",
        "--gate-insn",
        "1",
        "good=a",
        "bad=b",
        "new=c",
    ];
    assert_eq!(
        p(&bisect).unwrap_err().to_string(),
        "compare: --bisect judges at a gate in % (--gate), not --gate-insn"
    );
    for v in ["0", "-1", "1.2345", "x"] {
        let e = p(&["compare", "--gate-insn", v, "a"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "compare: --gate-insn {v}: needs instructions per pair in (0, 1000000], at \
                 most 3 decimals"
            )
        );
    }
    let Ok(Command::Compare(a)) = p(&["compare", "--gate-insn", "0.25", "a"]) else {
        panic!("--gate-insn refused");
    };
    assert_eq!(a.gate, Gate::Insn(0.25));
}

#[test]
fn ab_takes_labelled_suites_a_gate_and_the_commits() {
    let Ok(Command::Ab(s)) = p(&[
        "ab",
        "--gate-insn",
        "1.5",
        "-o",
        "out",
        "--introduced",
        "abcdef123456",
        "base=b1",
        "head=h",
        "base=b2",
    ]) else {
        panic!("ab refused");
    };
    assert_eq!(
        (s.gate, s.gate_text, s.out),
        (1.5, &b"1.5"[..], Some(&b"out"[..]))
    );
    assert_eq!(s.introduced, Some(&b"abcdef123456"[..]));
    assert_eq!((s.n, s.labels[2], s.dirs[2]), (3, &b"base"[..], &b"b2"[..]));
    assert_eq!(s.steps().collect::<Vec<_>>(), [&b"base"[..], b"head"]);
    let Ok(Command::Ab(s)) = p(&["ab", "base=b", "head=h"]) else {
        panic!("ab refused");
    };
    assert_eq!((s.gate, s.gate_text, s.out), (0.5, &b"0.5"[..], None));
    for (args, msg) in [
        (
            &["ab"][..],
            "ab: needs LABEL=SUITE for each boot (see --help)",
        ),
        (
            &["ab", "b1", "h"],
            "ab: b1: a boot is LABEL=SUITE (its directory of points)",
        ),
        (&["ab"], "ab: needs LABEL=SUITE for each boot (see --help)"),
        (
            &["ab", "base=b1", "base=b2"],
            "ab: needs a base and a label to compare with it",
        ),
        (
            &["ab", "--gate", "5", "base=b", "head=h"],
            "ab: --gate: does not apply to ab",
        ),
        (
            &["ab", "--rounds", "5", "base=b", "head=h"],
            "ab: --rounds: does not apply to ab",
        ),
    ] {
        assert_eq!(p(args).unwrap_err().to_string(), msg, "{args:?}");
    }
}

#[test]
fn help_among_baked_options_is_refused_not_obeyed() {
    // Alone, it is the help; among the options an archive bakes, it would
    // end the booted command line, and nothing would run there.
    assert_eq!(p(&["initramfs", "--help"]), Ok(Command::Help));
    for args in [
        &["initramfs", "-o", "x", "--rounds", "3", "--help"][..],
        &["initramfs", "-o", "x", "suite", "--version"],
        &["initramfs", "suite", "-h"],
    ] {
        let e = p(args).unwrap_err().to_string();
        assert!(e.starts_with("initramfs: "), "{e}");
        assert!(
            e.ends_with("not a run option to bake (it ends a command line: nothing would run)"),
            "{e}"
        );
    }
    // ab's boots are checked before anything is built.
    for (args, msg) in [
        (&["ab", "--check", "--", "--rounds", "1"][..], "ab: --rounds 1: ab's verdict needs 2 rounds or more (each round of the head is paired with the same round of the base)"),
        (&["ab", "--check", "--", "--smoke"], "ab: --smoke: ab's verdict needs 2 rounds or more (each round of the head is paired with the same round of the base)"),
        (&["ab", "--check", "--", "--help"], "ab: --help: not a run option: it ends a command line, nothing is booted"),
        (&["ab", "--check", "--", "--bogus"], "suite: --bogus: unknown option (see --help)"),
    ] {
        assert_eq!(p(args).unwrap_err().to_string(), msg, "{args:?}");
    }
    assert_eq!(
        p(&["ab", "--check", "--", "--rounds", "2"]),
        Ok(Command::AbChecked)
    );
    assert_eq!(p(&["ab", "--check", "--"]), Ok(Command::AbChecked));
}
