//! `suite`'s command line: its items, and each item's run as `run` makes
//! it from the suite's options the item's workload takes.

use super::super::tests::SAMPLES;
use super::super::{parse, Command, UsageError};
use super::*;
use crate::cli::options::SUITE;
use crate::config::RunConfig;
use crate::initramfs::args;

fn p(args: &[&'static str]) -> Result<Command<'static>, UsageError<'static>> {
    parse(args.iter().map(|s| s.as_bytes()))
}

/// The items a suite command line asks for: (label, run).
fn items(args: &[&'static str]) -> Vec<(String, RunConfig<'static>)> {
    match p(&[&["suite"], args].concat()) {
        Ok(Command::Suite(s)) => s
            .items()
            .iter()
            .map(|i| (format!("{}", i.label()), i.cfg))
            .collect(),
        other => panic!("{args:?}: {other:?}"),
    }
}

/// The run `run --profile P [--shared] ARGS` makes, for item `P[:shared]`.
fn run_of(item: &str, args: &[&'static str]) -> RunConfig<'static> {
    let (name, shared) = match item.split_once(':') {
        Some((n, _)) => (n, true),
        None => (item, false),
    };
    let name: &'static str = name.to_owned().leak();
    let head: &[&'static str] = if shared {
        &["--profile", name, "--shared"]
    } else {
        &["--profile", name]
    };
    match p(&[head, args].concat()) {
        Ok(Command::Run(_, cfg)) => cfg,
        other => panic!("{item} {args:?}: {other:?}"),
    }
}

/// The message a suite command line is refused with.
fn refused(args: &[&'static str]) -> String {
    match p(&[&["suite"], args].concat()) {
        Err(e) => format!("{e}"),
        other => panic!("{args:?}: {other:?}"),
    }
}

#[test]
fn the_default_items_are_every_workload_and_its_shared_variant() {
    let got = items(&[]);
    let want: Vec<String> = ProfileId::variants()
        .map(|(id, shared)| {
            let variant = if shared { ":shared" } else { "" };
            format!("{}{variant}", id.names().short)
        })
        .collect();
    assert_eq!(
        got.iter().map(|i| &i.0).collect::<Vec<_>>(),
        want.iter().collect::<Vec<_>>()
    );
    assert!(want.contains(&"s0:shared".to_owned()), "{want:?}");
    for (label, cfg) in &got {
        assert_eq!(*cfg, run_of(label, &[]), "{label}");
    }
}

/// Every option of a suite, for every item: the item's run is exactly
/// `run --profile P` with the option where P takes it, and without it
/// where P does not (pollwake keeps its ring flags to itself).
#[test]
fn each_item_gets_the_options_its_workload_takes_and_no_other() {
    let every = items(&[]);
    for o in OPTIONS
        .iter()
        .filter(|o| o.commands & SUITE != 0 && o.commands & RUN != 0)
    {
        let Some(&(_, sample)) = SAMPLES.iter().find(|s| s.0 == o.name) else {
            panic!("{}: no sample in cli/tests.rs", o.name);
        };
        for (label, cfg) in items(sample) {
            let id = ProfileId::parse(label.split(':').next().unwrap().as_bytes()).unwrap();
            let want = if options::takes(id, o) {
                run_of(&label, sample)
            } else {
                run_of(&label, &[])
            };
            assert_eq!(cfg, want, "{} for {label}", o.name);
        }
        // An option only some workloads take: a suite of one that does
        // not take it refuses it, naming those that do.
        let Some(other) = every.iter().find(|(l, _)| {
            let id = ProfileId::parse(l.split(':').next().unwrap().as_bytes()).unwrap();
            !options::takes(id, o)
        }) else {
            continue;
        };
        let list: &'static str = other.0.clone().leak();
        let e = refused(&[&["--profiles", list], sample].concat());
        let why = format!(
            "suite: {}: no profile of the suite takes it (taken by ",
            sample[0]
        );
        assert!(e.starts_with(&why), "{e}");
    }
}

/// The options of `run` a suite does not take are refused with the way to
/// say it in a suite; the rest of the table is the suite's.
#[test]
fn run_options_a_suite_does_not_take_say_why() {
    let not: Vec<&str> = OPTIONS
        .iter()
        .filter(|o| o.commands & RUN != 0 && o.commands & SUITE == 0)
        .map(|o| o.name)
        .collect();
    assert_eq!(not, ["--profile", "--shared", "--tsv"]);
    assert_eq!(
        refused(&["--shared"]),
        "suite: --shared: does not apply to suite: an item names its shared variant \
         (--profiles s0:shared)"
    );
    assert_eq!(
        refused(&["--profile", "s0"]),
        "suite: --profile: does not apply to suite: --profiles LIST names its profiles"
    );
    assert!(refused(&["--tsv", "x"]).starts_with("suite: --tsv: does not apply to suite: "));
    assert_eq!(
        refused(&["--gate", "5"]),
        "suite: --gate: does not apply to suite"
    );
}

#[test]
fn items_by_any_name_once_each() {
    let got = items(&["--profiles", "n0,wait-wake:shared,pollwake,s0_wait_wake"]);
    let labels: Vec<&str> = got.iter().map(|i| i.0.as_str()).collect();
    assert_eq!(labels, ["n0", "s0:shared", "pollwake", "s0"]);
    let bad = [
        (
            "s0,x9",
            "suite: --profiles x9: unknown profile (the profiles: s0 c0 v0 z0 e0 n0 l0 pollwake a0 r0 p0 t0 m0 u0 k0 b0 q0 g0; P:shared where P takes --shared)",
        ),
        ("s0,,c0", "suite: --profiles s0,,c0: an empty item"),
        (",", "suite: --profiles ,: an empty item"),
        (
            "s0:foo",
            "suite: --profiles s0:foo: unknown variant (P, or P:shared)",
        ),
        (
            "s0,wait-wake",
            "suite: --profiles wait-wake: given more than once",
        ),
        (
            "c0:shared,c0:shared",
            "suite: --profiles c0:shared: given more than once",
        ),
    ];
    for (list, want) in bad {
        assert_eq!(refused(&["--profiles", list]), want, "{list}");
    }
    assert_eq!(
        refused(&["--profiles="]),
        "suite: --profiles=: needs a value"
    );
    let e = refused(&["--profiles", "n0:shared"]);
    assert!(
        e.starts_with(
            "suite: --profiles n0:shared: no shared variant (P:shared is for a \
             profile that takes --shared: s0 c0"
        ),
        "{e}"
    );
}

/// `run`'s checks of one workload, made for each item, name the item.
#[test]
fn an_items_own_check_names_it() {
    assert_eq!(
        refused(&["--profiles", "s0,v0", "--slots", "9"]),
        "suite: --slots 9: out of range (1..=8) for v0"
    );
    assert_eq!(items(&["--profiles", "s0", "--slots", "9"])[0].1.slots, 9);
    assert_eq!(
        refused(&["--smoke", "--trace"]),
        "suite: --trace: --smoke and --trace exclude each other"
    );
}

/// `initramfs ... suite ...` bakes the suite's words as typed, `suite`
/// first, checked as `suite` checks them; the file, read back as `/init`
/// reads it, is the same suite.
#[test]
fn initramfs_bakes_a_suite_checked_as_suite_checks_it() {
    let line: [&'static str; 8] = [
        "initramfs",
        "-o",
        "x.cpio",
        "suite",
        "--profiles=s0,n0",
        "--smoke",
        "--cycles",
        "3",
    ];
    let Ok(Command::Initramfs(spec)) = p(&line) else {
        panic!("{:?}", p(&line));
    };
    let baked: Vec<&[u8]> = spec.args().to_vec();
    let want: [&[u8]; 5] = [b"suite", b"--profiles=s0,n0", b"--smoke", b"--cycles", b"3"];
    assert_eq!(baked, want);
    let mut file = Vec::new();
    for a in &baked {
        file.extend_from_slice(a);
        file.push(b'\n');
    }
    let read = parse(args::decode(&file).unwrap());
    assert_eq!(read, p(&line[3..]));
    assert!(matches!(read, Ok(Command::Suite(s)) if s.items().len() == 2));
    // Refused as suite refuses it, with initramfs's name.
    let e = |args: &[&'static str]| format!("{}", p(args).unwrap_err());
    assert_eq!(
        e(&["initramfs", "-o", "x", "suite", "--tsv", "t"]),
        "initramfs: --tsv: does not apply to suite: one file cannot hold several points' rows"
    );
    assert_eq!(
        e(&[
            "initramfs",
            "-o",
            "x",
            "suite",
            "--profiles",
            "v0",
            "--slots",
            "9"
        ]),
        "initramfs: --slots 9: out of range (1..=8) for v0"
    );
    // `suite` comes first, once.
    for args in [
        &["initramfs", "-o", "x", "--smoke", "suite"][..],
        &["initramfs", "suite", "suite", "-o", "x"],
    ] {
        assert_eq!(
            e(args),
            "initramfs: suite: comes once, before the options it bakes",
            "{args:?}"
        );
    }
    // A run's options are still a run's.
    assert!(e(&["initramfs", "-o", "x", "--profiles", "s0"]).starts_with("initramfs: --profiles"));
}
