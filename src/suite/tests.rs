//! The sequencing alone, each item's run a stand-in that ends as told: an
//! item that skips, fails or is interrupted, and a stdout that is lost.
//! (tests/suite.rs runs real suites.)

use std::fs;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::testing::scratch;

/// A suite of these items (`name` or `name:shared`).
fn suite(items: &[&str]) -> Suite<'static> {
    let mut s = Suite::default();
    for item in items {
        let (name, shared) = match item.split_once(':') {
            Some((n, _)) => (n, true),
            None => (*item, false),
        };
        s.push(ProfileId::parse(name.as_bytes()).unwrap(), shared)
            .unwrap();
    }
    s
}

/// What `sequence` printed (on a file) and returned when item k ends with
/// `codes[k]` (cause `why K`): the labels of the items run, stdout, the
/// exit code and its cause.
fn sequenced(items: &[&str], codes: &[i32]) -> (Vec<String>, String, i32, String) {
    // A directory of each call's own: the tests run in parallel.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = scratch(&format!("suite-{}", CALLS.fetch_add(1, Ordering::Relaxed)));
    let path = dir.join("stdout");
    let file = fs::File::create(&path).unwrap();
    let mut out = Out::new(file.as_raw_fd());
    let mut ran = Vec::new();
    let e = sequence(&suite(items), &mut out, &mut |item, out| {
        let k = ran.len();
        ran.push(format!("{}", item.label()));
        let _ = writeln!(out, "# uring-repro point {k}");
        match codes[k] {
            exit::PASS => Exit::pass(),
            code => Exit::new(code, format_args!("why {k}")),
        }
    });
    out.flush();
    let text = fs::read_to_string(&path).unwrap();
    (ran, text, e.code, e.cause().as_str().to_owned())
}

#[test]
fn every_item_runs_in_turn_between_its_lines() {
    let (ran, out, code, cause) = sequenced(&["s0", "s0:shared", "n0"], &[0, 0, 0]);
    assert_eq!(ran, ["s0", "s0:shared", "n0"]);
    assert_eq!(
        out,
        "# suite: 1/3 s0\n# uring-repro point 0\n\
         # suite: 2/3 s0:shared\n# uring-repro point 1\n\
         # suite: 3/3 n0\n# uring-repro point 2\n\
         # suite: 1/3 s0 exit=0 pass\n\
         # suite: 2/3 s0:shared exit=0 pass\n\
         # suite: 3/3 n0 exit=0 pass\n\
         # suite: items=3 passed=3 failed=0 skipped=0 interrupted=0 not_run=0 exit=0\n"
    );
    assert_eq!((code, cause.as_str()), (0, ""));
}

#[test]
fn a_skipped_or_failed_item_does_not_stop_the_next() {
    let (ran, out, code, cause) = sequenced(&["s0", "c0", "n0"], &[4, 1, 0]);
    assert_eq!(ran, ["s0", "c0", "n0"]);
    let summary: Vec<&str> = out.lines().skip(6).collect();
    assert_eq!(
        summary,
        [
            "# suite: 1/3 s0 exit=4 skip: why 0",
            "# suite: 2/3 c0 exit=1 fail: why 1",
            "# suite: 3/3 n0 exit=0 pass",
            "# suite: items=3 passed=1 failed=1 skipped=1 interrupted=0 not_run=0 exit=1",
        ]
    );
    assert_eq!(
        (code, cause.as_str()),
        (1, "suite: 1 of 3 failed: c0 (see stdout)")
    );
    // Any code but pass, skip and interrupted is a failure: the item's own
    // code on its line (a usage error found as it started: 2).
    let (_, out, code, cause) = sequenced(&["s0", "c0", "n0"], &[2, 0, 1]);
    assert!(
        out.contains("# suite: 1/3 s0 exit=2 fail: why 0\n"),
        "{out}"
    );
    assert_eq!(
        (code, cause.as_str()),
        (1, "suite: 2 of 3 failed: s0 n0 (see stdout)")
    );
}

#[test]
fn skips_alone_are_a_skip_and_beside_passes_a_pass() {
    let (_, out, code, cause) = sequenced(&["s0", "c0"], &[4, 4]);
    assert!(
        out.ends_with("skipped=2 interrupted=0 not_run=0 exit=4\n"),
        "{out}"
    );
    assert_eq!(
        (code, cause.as_str()),
        (4, "suite: every item skipped: why 0")
    );
    let (_, out, code, cause) = sequenced(&["s0", "c0"], &[4, 0]);
    assert!(
        out.contains("# suite: 1/2 s0 exit=4 skip: why 0\n"),
        "{out}"
    );
    assert_eq!((code, cause.as_str()), (0, ""));
}

#[test]
fn an_interrupted_item_stops_the_suite() {
    let (ran, out, code, cause) = sequenced(&["s0", "c0", "n0"], &[1, 130, 0]);
    assert_eq!(ran, ["s0", "c0"], "nothing after the interrupted item");
    let summary: Vec<&str> = out.lines().skip(4).collect();
    assert_eq!(
        summary,
        [
            "# suite: 1/3 s0 exit=1 fail: why 0",
            "# suite: 2/3 c0 exit=130 interrupted",
            "# suite: 3/3 n0 not run",
            "# suite: items=3 passed=0 failed=1 skipped=0 interrupted=1 not_run=1 exit=130",
        ]
    );
    // The item's own cause (`interrupted by SIGINT` in a real run).
    assert_eq!((code, cause.as_str()), (130, "why 1"));
}

#[test]
fn a_lost_stdout_ends_the_suite_before_the_next_item() {
    let full = fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut out = Out::new(full.as_raw_fd());
    let mut ran = 0;
    let e = sequence(&suite(&["s0", "n0"]), &mut out, &mut |_, _| {
        ran += 1;
        Exit::pass()
    });
    // The first line was lost: nothing runs, and `with_stdout` tells it.
    assert_eq!(
        (ran, e.code, out.error()),
        (0, 0, Some(crate::sys::Errno::ENOSPC))
    );
    // An item that failed before stdout was lost keeps the suite's failure.
    let mut x = Line::new();
    let _ = x.write_str("x");
    let ends = [
        Some(End {
            code: exit::FAIL,
            cause: x,
        }),
        None,
    ];
    let e = lost(&ends, Some(Exit::pass()));
    assert_eq!(
        (e.code, e.cause().as_str()),
        (1, "suite: 1 failed before stdout was lost")
    );
    assert_eq!(lost(&[None, None], None).code, 0);
}

#[test]
fn an_item_is_refused_twice_and_every_variant_fits() {
    let mut s = Suite::default();
    for (id, shared) in ProfileId::variants() {
        assert_eq!(s.push(id, shared), Ok(()));
        assert_eq!(s.push(id, shared), Err(Again));
    }
    assert!(s.items().len() <= MAX_ITEMS);
    let labels: Vec<String> = s.items().iter().map(|i| format!("{}", i.label())).collect();
    assert_eq!(labels[..3], ["s0", "s0:shared", "c0"]);
}
