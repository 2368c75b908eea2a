//! SIGINT and SIGTERM in the middle of a run: exit 130, one
//! stderr line naming the signal, the finished rounds reported as usual
//! (rows, mean, spread, checks line ending `-> INTERRUPTED`) and on disk
//! (`--tsv`); selftest stops its TAP stream with `Bail out!`.
//!
//! Signals go through kill(1); the run starts with them at their defaults
//! (utils::signals), whatever `cargo test` inherited.

mod utils;

use std::path::Path;

use utils::{
    assert_zero, interrupt, line, num, rows, run, skip, started, tsv_rows, Ended, Scratch,
    FAILURES, POLLWAKE_MODES,
};

/// Exit 130, exactly one stderr line naming `sig`, and a checks line that
/// ends `-> INTERRUPTED` with every failure counter at 0; returns it.
fn assert_interrupted<'a>(e: &'a Ended, sig: &str) -> &'a str {
    let ctx = format!("stdout:\n{}\nstderr:\n{}", e.stdout, e.stderr);
    assert_eq!(e.code, Some(130), "{ctx}");
    assert_eq!(e.stderr, format!("uring-repro: interrupted by {sig}\n"));
    let checks = line(&e.stdout, "# checks:");
    assert!(checks.ends_with(" -> INTERRUPTED"), "{checks}");
    assert_zero(checks, &FAILURES);
    assert_eq!(e.stdout.matches("# checks:").count(), 1);
    checks
}

/// The s0 table after an interruption: rounds 0..n-1, each finished and
/// passed; the `partial` row (never `mean`: the point is incomplete) sums
/// them; `# interrupted: n of 4096 rounds`; the per-cycle line counts their
/// cycles. Returns n.
fn assert_finished_rows(stdout: &str, cycles: u64) -> u64 {
    assert!(!stdout.lines().any(|l| l.starts_with("mean\t")), "{stdout}");
    let (mean, rows): (Vec<_>, Vec<_>) = rows(stdout).into_iter().partition(|r| r[0] == "partial");
    let n = rows.len() as u64;
    assert!((1..4096).contains(&n), "{n} rows");
    let mut pairs = 0;
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.len(), 4, "{r:?}");
        assert_eq!(r[0], i.to_string());
        assert_eq!(r[1], (cycles * 32).to_string(), "a short round: {r:?}");
        assert_eq!(r[3], "1");
        pairs += cycles * 32;
    }
    assert_eq!(mean.len(), 1, "one partial row:\n{stdout}");
    assert_eq!((mean[0][1], mean[0][3]), (pairs.to_string().as_str(), "1"));
    let said = format!("# interrupted: {n} of 4096 rounds");
    assert_eq!(line(stdout, "# interrupted:"), said);
    assert!(stdout.lines().any(|l| l.starts_with("# median=")));
    let tail = line(stdout, "# per_cycle_ns_per_pair:");
    assert_eq!(num(tail, "cycles"), n * cycles, "{tail}");
    n
}

#[test]
fn sigint_reports_the_finished_rounds_and_their_tsv_rows() {
    let dir = Scratch::new("sigint");
    let tsv = dir.file("rows.tsv");
    let args = ["--rounds", "4096", "--cycles", "64", "--tsv", &tsv];
    let Some(e) = started(interrupt(&args, "INT", |l| l.starts_with("0\t")), "s0") else {
        return;
    };
    let checks = assert_interrupted(&e, "SIGINT");
    let n = assert_finished_rows(&e.stdout, 64);
    // The ledger holds the finished rounds, warm-ups included: 2 CQEs per pair.
    assert_eq!(num(checks, "cqes"), (3 + n) * 64 * 32 * 2, "{checks}");
    // On disk: the header, 3 warm-ups, exactly the finished rounds, and
    // the row that says the point is incomplete.
    let mut on_disk = tsv_rows(Path::new(&tsv));
    assert_eq!(on_disk.len() as u64, 3 + n + 1);
    let last = on_disk.pop().unwrap();
    let cols = [
        "phase",
        "round",
        "pairs",
        "timed_ns",
        "ns_per_pair",
        "semantic_pass",
    ];
    let got = cols.map(|c| &last[c]);
    let round = n.to_string();
    assert_eq!(got, ["interrupted", &round, "0", "0", "0.000000", "0"]);
    assert_eq!(last["rounds_planned"], "4096");
    for (i, m) in on_disk.iter().enumerate() {
        assert_eq!(m["rounds_planned"], "4096");
        let (want_phase, want_round) = if i < 3 {
            ("warmup", i)
        } else {
            ("measured", i - 3)
        };
        assert_eq!(
            (
                m["phase"].as_str(),
                m["round"].as_str(),
                m["semantic_pass"].as_str()
            ),
            (want_phase, want_round.to_string().as_str(), "1")
        );
    }
    // Neither file passes for a point: compare refuses both, naming how far
    // the run got.
    let out = dir.file("stdout.txt");
    std::fs::write(&out, &e.stdout).unwrap();
    for f in [&out, &tsv] {
        let r = run(&["compare", f]);
        assert_eq!(r.code, 2, "{}", r.err);
        let want = format!("uring-repro: {f}: interrupted run: {n} of 4096 rounds\n");
        assert_eq!(r.err, want);
    }
}

#[test]
fn sigterm_ends_a_run_the_same_way() {
    let args = ["--rounds", "4096", "--cycles", "64"];
    let Some(e) = started(interrupt(&args, "TERM", |l| l.starts_with("0\t")), "s0") else {
        return;
    };
    assert_interrupted(&e, "SIGTERM");
    assert_finished_rows(&e.stdout, 64);
}

#[test]
fn pollwake_stops_at_a_burst_and_joins_its_waiter() {
    let args = [
        "--profile",
        "pollwake",
        "--rounds",
        "4096",
        "--cycles",
        "64",
    ];
    let Some(e) = started(
        interrupt(&args, "INT", |l| l.starts_with("pollwake_none\t0\t")),
        "pollwake",
    ) else {
        return;
    };
    let checks = assert_interrupted(&e, "SIGINT");
    // The waiter was joined (not leaked) and left nothing behind.
    assert_zero(
        checks,
        &["waiter_errors", "lost_wakeups", "epoll_bad", "bad_events"],
    );
    // Each mode's rows: whole shares (64 bursts of 32), numbered from 0,
    // passed; its mean row sums them. A round may end after any mode.
    let mut counts = Vec::new();
    let all = rows(&e.stdout);
    for m in POLLWAKE_MODES {
        let (mean, table): (Vec<_>, Vec<_>) = all
            .iter()
            .filter(|r| r[0] == m)
            .partition(|r| r[1] == "partial");
        for (i, r) in table.iter().enumerate() {
            assert_eq!((r[1], r[2], r[4]), (i.to_string().as_str(), "2048", "1"));
        }
        assert_eq!(mean.len(), 1, "{m}: one partial row");
        assert_eq!(mean[0][2], (2048 * table.len()).to_string(), "{m}");
        counts.push(table.len());
    }
    assert!((1..4096).contains(&counts[0]), "{counts:?}");
    // Modes run in order: later ones have as many rows or one fewer.
    assert!(
        counts.windows(2).all(|w| w[1] == w[0] || w[1] + 1 == w[0]),
        "{counts:?}"
    );
    // Complete rounds: those the last mode finished too.
    let said = format!("# interrupted: {} of 4096 rounds", counts[3]);
    assert_eq!(line(&e.stdout, "# interrupted:"), said);
}

#[test]
fn selftest_bails_out() {
    // The whole selftest takes ~0.2 s (l0 lingers 200 ms): the signal is
    // sent at its first line, and the rare run that still finishes first
    // is tried again.
    for _ in 0..5 {
        let e = interrupt(&["selftest"], "INT", |l| l.starts_with("TAP version 13"));
        if e.code == Some(0) {
            continue;
        }
        if e.code == Some(4) && !e.stdout.contains("Bail out!") {
            skip(format!("selftest cannot run here: {}", e.stderr.trim()));
            return;
        }
        assert_eq!(e.code, Some(130), "{}\n{}", e.stdout, e.stderr);
        assert_eq!(e.stderr, "uring-repro: interrupted by SIGINT\n");
        let lines: Vec<&str> = e.stdout.lines().collect();
        assert_eq!(lines[0], "TAP version 13", "{}", e.stdout);
        let plan: usize = lines[1].strip_prefix("1..").unwrap().parse().unwrap();
        assert_eq!(lines.last(), Some(&"Bail out! interrupted by SIGINT"));
        // Between them: finished tests only, in order, none failed.
        let tests = &lines[2..lines.len() - 1];
        assert!(tests.len() < plan, "{}", e.stdout);
        for (i, l) in tests.iter().enumerate() {
            assert!(l.starts_with(&format!("ok {} - ", i + 1)), "{l}");
        }
        return;
    }
    panic!("selftest finished before SIGINT in 5 tries");
}
