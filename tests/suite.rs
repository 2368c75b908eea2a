//! `suite`: several workloads' points from one process, on the real kernel.
//! Split before each banner line, its stdout is one ordinary point per item
//! (what `run --profile P` prints, the contract `describe` gives), which
//! `compare` reads as it is; an item the kernel cannot run (a probe that
//! finds no opcode, io_uring refused: faked with strace) or that fails
//! leaves the others running; exit codes; a lost stdout; SIGINT and SIGTERM.

mod utils;

use utils::{
    assert_usage_error, interrupt, line, ran, run, sha256sum, skip, started, with_injected_fault,
    with_stdout_full, write, Run, Scratch,
};

/// stdout cut before each `# uring-repro ` banner line: what precedes the
/// first banner, then one part per banner.
fn split(out: &str) -> (String, Vec<String>) {
    let mut parts = vec![String::new()];
    for l in out.lines() {
        if l.starts_with("# uring-repro ") {
            parts.push(String::new());
        }
        let last = parts.last_mut().unwrap();
        last.push_str(l);
        last.push('\n');
    }
    let head = parts.remove(0);
    (head, parts)
}

/// The `# suite:` lines of `out`.
fn suite_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("# suite: ")).collect()
}

/// `--profile P`, and `--shared` for item `P:shared`.
fn run_args(item: &str) -> Vec<&str> {
    match item.split_once(':') {
        Some((p, _)) => vec!["--profile", p, "--shared"],
        None => vec!["--profile", item],
    }
}

/// A point's lines up to its table's header (banner, contract, series,
/// facts, the header), and its number of rows: what does not depend on time.
fn skeleton(point: &str) -> (Vec<&str>, usize) {
    let mut lines = point.lines().filter(|l| !l.starts_with("# suite: "));
    let head: Vec<&str> = lines.by_ref().take_while(|l| l.starts_with('#')).collect();
    let rows = lines.filter(|l| !l.starts_with('#')).count();
    (head, rows)
}

/// Every item's point is the one `run` prints with the same options (its
/// banner, contract, series, facts and table alike), with the contract
/// hash `describe` gives; the `# suite:` lines around the points say which
/// item each is and how it ended; each part reads in `compare` as it is,
/// as a point of the same contract as `run`'s.
#[test]
fn each_item_is_the_point_run_prints_and_compare_reads_it() {
    let items = ["s0", "s0:shared", "c0", "n0", "pollwake"];
    let list = items.join(",");
    let Some(r) = ran(&["suite", "--profiles", &list, "--smoke", "--cycles", "3"]) else {
        return;
    };
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    let (head, parts) = split(&r.out);
    assert_eq!(head, "# suite: 1/5 s0\n");
    assert_eq!(parts.len(), items.len());
    let dir = Scratch::new("suite-points");
    for (k, (item, part)) in items.iter().zip(&parts).enumerate() {
        let args = [&run_args(item)[..], &["--smoke", "--cycles", "3"]].concat();
        let alone = run(&[&["run"], &args[..]].concat());
        assert_eq!(alone.code, 0, "{item}: {}", alone.err);
        let (want, got) = (skeleton(&alone.out), skeleton(part));
        assert_eq!(got, want, "{item}: the point run prints");
        let checks = line(part, "# checks: ");
        assert!(checks.ends_with(" -> PASS"), "{item}: {checks}");
        // The contract's hash, as `describe` states the contract.
        let described = run(&[&["describe"], &args[..]].concat());
        let sha = format!("input_sha256={}", sha256sum(described.out.as_bytes()));
        assert!(part.lines().nth(1).unwrap().contains(&sha), "{item}: {sha}");
        // The part as it is (the next item's line, or the summary, at its
        // end) is a point compare reads, of the same contract as run's.
        let file = write(&dir, &format!("part{k}"), part);
        let solo = write(&dir, &format!("run{k}"), &alone.out);
        let mode = if *item == "pollwake" { "idle" } else { "" };
        // One label: points of one boot are not independent between labels.
        for files in [
            vec![file.clone()],
            vec![format!("A={file}"), format!("A={solo}")],
        ] {
            let mut args = vec!["compare"];
            if !mode.is_empty() {
                args.extend(["--mode", mode]);
            }
            args.extend(files.iter().map(String::as_str));
            let c = run(&args);
            assert!(c.code == 0 || c.code == 1, "{item} {files:?}: {}", c.err);
            assert!(!c.err.contains("contract"), "{item}: {}", c.err);
        }
    }
    // And compare tells the items apart: s0's shared variant is another
    // contract than s0's.
    let (a, b) = (write(&dir, "a", &parts[0]), write(&dir, "b", &parts[1]));
    let c = run(&["compare", &format!("A={a}"), &format!("A={b}")]);
    assert_eq!(c.code, 2, "{}", c.err);
    assert!(c.err.contains("futex"), "{}", c.err);
    let n = items.len();
    let mut want: Vec<String> = (1..=n)
        .map(|k| format!("# suite: {k}/{n} {}", items[k - 1]))
        .collect();
    want.extend((1..=n).map(|k| format!("# suite: {k}/{n} {} exit=0 pass", items[k - 1])));
    want.push(format!(
        "# suite: items={n} passed={n} failed=0 skipped=0 interrupted=0 not_run=0 exit=0"
    ));
    assert_eq!(suite_lines(&r.out), want);
    // The last line of stdout is the counts.
    assert!(r.out.ends_with(" exit=0\n"));
}

/// The suite s0, c0, n0 (smokes) with a fault injected (strace's
/// `inject=`); None, after a loud SKIP, where io_uring or strace cannot run.
fn three_with(inject: &str) -> Option<Run> {
    let args = ["suite", "--profiles", "s0,c0,n0", "--smoke"];
    ran(&args)?;
    with_injected_fault(inject, &args)
}

/// A probe that finds no opcode (the kernel before the opcode: faked by
/// an IORING_REGISTER_PROBE that returns 0 and writes nothing) skips that
/// item alone; the others run, and the suite passes, the skip named.
#[test]
fn an_item_the_kernel_cannot_run_is_skipped_and_the_rest_run() {
    // c0's probe is the second.
    let Some(r) = three_with("io_uring_register:retval=0:when=2") else {
        return;
    };
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    let (_, parts) = split(&r.out);
    let profiles: Vec<&str> = parts.iter().map(|p| p.split(' ').nth(3).unwrap()).collect();
    assert_eq!(profiles, ["profile=s0_wait_wake", "profile=n0_nop"]);
    let summary = &suite_lines(&r.out)[3..];
    assert_eq!(
        summary,
        [
            "# suite: 1/3 s0 exit=0 pass",
            "# suite: 2/3 c0 exit=4 skip: kernel lacks IORING_OP_FUTEX_WAIT (51) \
             IORING_OP_ASYNC_CANCEL (14) (probe last_op=0)",
            "# suite: 3/3 n0 exit=0 pass",
            "# suite: items=3 passed=2 failed=0 skipped=1 interrupted=0 not_run=0 exit=0",
        ]
    );
    // io_uring refused every time (as kernel.io_uring_disabled does): every
    // item skipped, the suite too.
    let r = three_with("io_uring_setup:error=EPERM").unwrap();
    assert_eq!(
        (r.code, r.err.as_str()),
        (
            4,
            "uring-repro: suite: every item skipped: io_uring unavailable: io_uring_setup: \
             EPERM (1)\n"
        )
    );
    assert!(!r.out.contains("# uring-repro "), "{}", r.out);
    assert!(
        r.out
            .ends_with(" skipped=3 interrupted=0 not_run=0 exit=4\n"),
        "{}",
        r.out
    );
}

/// An item that fails its checks fails the suite (1), which still runs the
/// items after it; one stderr line names the item.
#[test]
fn a_failed_item_fails_the_suite_and_the_rest_run() {
    // An io_uring_enter of s0's (two a cycle, two cycles) that fails.
    let Some(r) = three_with("io_uring_enter:error=EIO:when=3") else {
        return;
    };
    assert_eq!(
        (r.code, r.err.as_str()),
        (1, "uring-repro: suite: 1 of 3 failed: s0 (see stdout)\n"),
        "{}",
        r.out
    );
    let (_, parts) = split(&r.out);
    assert_eq!(parts.len(), 3);
    assert!(line(&parts[0], "# checks: ").ends_with(" -> FAIL"));
    for p in &parts[1..] {
        assert!(line(p, "# checks: ").ends_with(" -> PASS"), "{p}");
    }
    let summary = &suite_lines(&r.out)[3..];
    assert!(
        summary[0].starts_with("# suite: 1/3 s0 exit=1 fail: FAIL: submit_error in cycle 1: "),
        "{summary:?}"
    );
    assert_eq!(
        summary[1..3],
        ["# suite: 2/3 c0 exit=0 pass", "# suite: 3/3 n0 exit=0 pass"]
    );
}

/// An item finds the CPUs the suite started with, not the one the item
/// before it pinned to: pollwake's waiter on another CPU than `--cpu`.
#[test]
fn each_item_finds_the_cpus_the_suite_found() {
    let options = ["--cpu", "1", "--waiter-cpu", "0", "--smoke"];
    let alone = run(&[&["run", "--profile", "pollwake"], &options[..]].concat());
    match alone.code {
        0 => {}
        2 | 4 => return skip(format!("pollwake on CPUs 1 and 0: {}", alone.err.trim())),
        _ => panic!("{}\n{}", alone.out, alone.err),
    }
    let r = run(&[&["suite", "--profiles", "n0,pollwake"], &options[..]].concat());
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
}

#[test]
fn usage_errors_run_nothing() {
    let r = run(&["suite", "--profiles", "s0,nope", "--smoke"]);
    assert_usage_error(&r, "suite: --profiles nope: unknown profile");
    let r = run(&["suite", "--profiles", "s0", "--burst", "4"]);
    assert_usage_error(
        &r,
        "suite: --burst: no profile of the suite takes it (taken by pollwake)",
    );
    // A CPU no item can pin to: refused before the first item.
    let r = run(&["suite", "--profiles", "s0,n0", "--smoke", "--cpu", "1023"]);
    assert_usage_error(&r, "--cpu 1023: CPU 1023 is not online or not allowed");
}

/// A full disk under stdout ends the suite at once (nobody reads the rest):
/// exit 1, one line naming the lost write; a closed pipe, quietly 141.
#[test]
fn a_lost_stdout_ends_the_suite() {
    let args = ["suite", "--profiles", "s0,n0", "--smoke"];
    if ran(&args).is_none() {
        return;
    }
    let r = with_stdout_full(&args);
    assert_eq!(
        (r.code, r.err.as_str()),
        (1, "uring-repro: stdout: write failed: ENOSPC (28)\n")
    );
    // The reader gone after the first line.
    let mut child = utils::spawn(&["suite", "--profiles", "s0,n0", "--rounds", "50"]);
    let mut first = String::new();
    use std::io::BufRead;
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "# suite: 1/2 s0\n");
    let status = child.wait().unwrap();
    let err = utils::drain(child.stderr.take());
    assert_eq!((status.code(), err.as_str()), (Some(141), ""));
}

/// SIGINT or SIGTERM in an item's rounds: that item ends its point as an
/// interrupted run does, the suite stops there (the next item is `not
/// run`), exit 130 with the run's one stderr line.
#[test]
fn a_signal_stops_the_suite_at_once() {
    for sig in ["INT", "TERM"] {
        let args = [
            "suite",
            "--profiles",
            "s0,n0",
            "--rounds",
            "4000",
            "--cycles",
            "64",
            "--warmups",
            "0",
        ];
        let e = interrupt(&args, sig, |l| l.starts_with("0\t"));
        let Some(e) = started(e, "suite") else {
            return;
        };
        let ctx = format!("stdout:\n{}\nstderr:\n{}", e.stdout, e.stderr);
        assert_eq!(e.code, Some(130), "{ctx}");
        assert_eq!(e.stderr, format!("uring-repro: interrupted by SIG{sig}\n"));
        let (_, parts) = split(&e.stdout);
        assert_eq!(parts.len(), 1, "n0 never started: {ctx}");
        assert!(line(&parts[0], "# checks: ").ends_with(" -> INTERRUPTED"));
        assert_eq!(
            suite_lines(&e.stdout),
            [
                "# suite: 1/2 s0",
                "# suite: 1/2 s0 exit=130 interrupted",
                "# suite: 2/2 n0 not run",
                "# suite: items=2 passed=0 failed=0 skipped=0 interrupted=1 not_run=1 exit=130",
            ]
        );
    }
}
