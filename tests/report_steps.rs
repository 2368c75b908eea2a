//! `report --steps`: a fix series' reply, drafted from real points: s0 on
//! the kernel tests' parent and child and the child with fix 1 and with
//! fixes 1 and 2, two boots each (tests/fixtures/steps, their counter
//! before locked instructions were counted), and the parent and child
//! booted with the counter that counts them (tests/fixtures/locked).

mod utils;

use utils::cost::{joined, uncounted};
use utils::draft::report_in;
use utils::{assert_contains, assert_narrow, assert_usage_error, run, write, Run, Scratch};

fn dir(which: &str) -> String {
    format!("{}/tests/fixtures/{which}", env!("CARGO_MANIFEST_DIR"))
}

/// A point's mean row's figure, read here with no code of the binary's.
fn mean(path: &str) -> f64 {
    let text = std::fs::read_to_string(path).unwrap();
    let row = text.lines().find(|l| l.starts_with("mean\t")).unwrap();
    row.split('\t').nth(2).unwrap().parse().unwrap()
}

/// The fix series, in the order booted: LABEL=FILE, two boots a step.
const SERIES: [&str; 8] = [
    "parent=s0-parent-1.txt",
    "child=s0-child-1.txt",
    "child+fix1=s0-fix1-1.txt",
    "child+fix1+2=s0-fix2-1.txt",
    "parent=s0-parent-2.txt",
    "child=s0-child-2.txt",
    "child+fix1=s0-fix1-2.txt",
    "child+fix1+2=s0-fix2-2.txt",
];

const RE: &str = "[PATCH 2/2] io_uring/futex: only mark private futex waits as inflight";

/// The rows of a table of the draft whose header starts `header`, split
/// in columns, up to the blank line or a sentence under it.
fn table_rows<'o>(out: &'o str, header: &str) -> Vec<Vec<&'o str>> {
    let at = out.find(&format!("\n{header}")).expect("the table") + 1;
    let table = &out[at..out[at..].find("\n\n").unwrap() + at];
    let rows = table
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("  A step"));
    rows.map(|l| l.split_whitespace().collect()).collect()
}

/// The rows of the table of steps.
fn steps_rows(out: &str) -> Vec<Vec<&str>> {
    table_rows(out, "  step          boots")
}

/// Each row's verdict: the words after its figures.
fn verdicts(rows: &[Vec<&str>]) -> Vec<String> {
    let after = |k: usize| if k == 0 { 3 } else { 5 };
    let words = |(k, r): (usize, &Vec<&str>)| r[after(k)..].join(" ");
    rows.iter().enumerate().map(words).collect()
}

#[test]
fn a_fix_series_is_one_reply_step_by_step() {
    let d = dir("steps");
    let mut args = vec!["--steps", "--re", RE];
    args.extend(SERIES);
    let Run { code, out, err } = report_in(&d, &args);
    assert_eq!(code, 0, "{err}");
    assert_narrow(&out);
    // A reply to the patch, its Subject folded as a mail header is.
    assert!(
        out.starts_with(&format!("Subject: Re: {}\n {}\n\n", &RE[..57], &RE[58..])),
        "{out}"
    );
    // Each step's figure the mean of its two boots, its change against the
    // step before and the first, from the points' own mean rows.
    let step = |name: &str| {
        let files = SERIES
            .iter()
            .filter_map(|a| a.strip_prefix(&format!("{name}=")));
        let v: Vec<f64> = files.map(|f| mean(&format!("{d}/{f}"))).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let names = ["parent", "child", "child+fix1", "child+fix1+2"];
    let values: Vec<f64> = names.iter().map(|n| step(n)).collect();
    let pct = |a: f64, b: f64| format!("{:+.3}%", (b - a) / a * 100.0);
    let rows = steps_rows(&out);
    assert_eq!(rows.len(), 4, "{out}");
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(
            row[..3],
            [names[k], "2", &format!("{:.3}", values[k])],
            "{out}"
        );
        if k > 0 {
            assert_eq!(row[3], pct(values[k - 1], values[k]), "{out}");
            assert_eq!(row[4], pct(values[0], values[k]), "{out}");
        }
    }
    // Exact points under the 5% gate: clear of zero, said so.
    assert_eq!(
        verdicts(&rows),
        ["", "under gate", "under gate", "under gate"]
    );
    assert_eq!(rows[1][3], "+3.866%");
    assert_eq!(rows[2][3], "-2.759%");
    let j = joined(&out);
    assert_contains(
        &j,
        &[
            // The unit, named.
            "Steps, guest instructions per pair under QEMU TCG icount, not time, each against \
             the step before it and against the first, parent; the verdict is a step's against \
             the one before it at the 5.000% gate:",
            "The steps, in order: parent, child, child+fix1, child+fix1+2; each is compared \
             with the step before it and with the first",
            // Their counter did not count locked instructions: said, no 0.
            "Locked instructions: not counted (the points' cost lines were made by a counter \
             that did not count them).",
            "child+fix1 vs child (midpoint of 2 points, 1559.087 instructions/pair): -2.759%",
            "The change is clear of zero but under the 5.000% gate: no change is claimed at \
             this gate.",
            "Over the series, child+fix1+2 vs parent (midpoint of 2 points",
            "All 120 timing rows passed",
        ],
    );
    // Each step's sentence and its cost against the step before, in order.
    let at = |s: &str| j.find(s).unwrap_or_else(|| panic!("{s}: {out}"));
    assert!(at("child vs parent (") < at("child+fix1 vs child ("));
    assert!(at("child+fix1 vs child (") < at("child+fix1+2 vs child+fix1 ("));
    assert!(
        at("Where the cost went, child against parent")
            < at("Where the cost went, child+fix1 against child")
    );
    assert!(
        at("Where the cost went, child+fix1 against child")
            < at("Where the cost went, child+fix1+2 against child+fix1")
    );
    // Fix 1 takes the WAKE request's tracking away: half the helper.
    assert!(
        out.contains("\n        22.000     -11.000  io_req_track_inflight\n"),
        "{out}"
    );
    // No regression mail's words: no tag, no regzbot.
    assert!(
        !out.contains("#regzbot") && !out.contains("[REGRESSION]"),
        "{out}"
    );
    // At a 2% gate the child and fix 1 clear it; fix 2 does not.
    let mut args = vec!["--steps", "--gate", "2"];
    args.extend(SERIES);
    let r = report_in(&d, &args);
    assert_eq!(r.code, 0, "{}", r.err);
    let rows = steps_rows(&r.out);
    assert_eq!(
        verdicts(&rows),
        ["", "CONFIRMED", "CONFIRMED", "under gate"]
    );
    // Without --re, a plain Subject that says what was measured.
    assert_contains(
        &r.out,
        &["Subject: s0_wait_wake step by step: parent to child+fix1+2\n"],
    );
    // docs/report.md shows the reply as the tool prints it.
    let path = format!("{}/docs/report.md", env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(path).unwrap();
    assert!(
        docs.contains(&format!("```\n{out}```\n")),
        "docs/report.md:\n{out}"
    );
}

/// The rows of the table of locked instructions.
fn locked_rows(out: &str) -> Vec<Vec<&str>> {
    table_rows(out, "  step                     locked")
}

#[test]
fn locked_instructions_per_step_where_the_points_count_them() {
    let d = dir("locked");
    let r = report_in(
        &d,
        &["--steps", "parent=s0-parent.txt", "child=s0-child.txt"],
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    assert_eq!(
        locked_rows(&r.out),
        [
            vec!["parent", "6.691"],
            vec!["child", "10.691", "+4.000", "+4.000"]
        ]
    );
    assert_contains(
        &joined(&r.out),
        &[
            "Locked instructions per WAIT/WAKE pair in the kernel (x86: a LOCK prefix, or \
           XCHG with memory)",
        ],
    );
    // A third step whose points' counter did not count them: no figure, no
    // change against it, and why.
    let s = Scratch::new("steps-locked");
    let smp = std::fs::read_to_string(format!("{d}/s0-parent-smp.txt")).unwrap();
    let back = write(&s, "back.txt", &uncounted(&smp));
    let r = report_in(
        &d,
        &[
            "--steps",
            "parent=s0-parent.txt",
            "child=s0-child.txt",
            &format!("back={back}"),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    let rows = locked_rows(&r.out);
    assert_eq!(rows[2], ["back", "-", "-", "-"], "{}", r.out);
    assert_contains(
        &joined(&r.out),
        &[
            "A step shown - has no figure: some of its points did not count locked \
             instructions (not counted, which is not 0)",
            "Locked instructions: point 2 counted them, point 3 did not, so no change is shown",
        ],
    );
}

#[test]
fn a_step_whose_point_failed_is_not_evidence() {
    let d = dir("steps");
    let s = Scratch::new("steps-failed");
    // Round 3 of fix 1's second boot failed, and its checks line says so.
    let text = std::fs::read_to_string(format!("{d}/s0-fix1-2.txt")).unwrap();
    let row3 = text.lines().find(|l| l.starts_with("3\t")).unwrap();
    let failed = text
        .replace(row3, &format!("{}0", &row3[..row3.len() - 1]))
        .replace(
            "outstanding=0 migrations=0 -> PASS",
            "outstanding=1 migrations=0 -> FAIL",
        );
    let bad = write(&s, "fix1-2.txt", &failed);
    let mut args: Vec<String> = SERIES.iter().map(|a| a.to_string()).collect();
    args[6] = format!("child+fix1={bad}");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = report_in(&d, &[&["--steps"], &args[..]].concat());
    assert_eq!(r.code, 1, "{}", r.err);
    assert_narrow(&r.out);
    assert!(
        joined(&r.out).starts_with(
            "NOT EVIDENCE: point 7 failed its checks (see below); no step of theirs, and no \
             change against one, is evidence. Subject: [NOT EVIDENCE] s0_wait_wake step by \
             step:"
        ),
        "{}",
        r.out
    );
    // Its own step and the one compared with it.
    let rows = steps_rows(&r.out);
    assert_eq!(
        verdicts(&rows),
        ["", "under gate", "NOT EVIDENCE", "NOT EVIDENCE"]
    );
    assert_contains(
        &joined(&r.out),
        &["point 7 (child+fix1): 1 of 15 rows failed (outstanding=1)"],
    );
}

#[test]
fn the_steps_command_line_is_checked() {
    let (p, c) = (
        format!("parent={}/s0-parent.txt", dir("locked")),
        format!("child={}/s0-child.txt", dir("locked")),
    );
    let (a, b) = (
        format!("{}/s0-parent.txt", dir("locked")),
        format!("{}/s0-child.txt", dir("locked")),
    );
    for (args, msg) in [
        (
            vec!["report", "--re", "[PATCH] x", &p, &c],
            "uring-repro: report: --re is the subject a --steps draft replies to\n",
        ),
        (
            vec!["report", "--steps", &a, &b],
            "uring-repro: report: --steps names each step: LABEL=FILE\n",
        ),
        (
            vec!["report", "--steps", "--introduced", "079afb081c42", &p, &c],
            "uring-repro: report: --introduced and --parent are the regression mail's, not \
             --steps'\n",
        ),
        (
            vec![
                "report",
                "--steps",
                "--re",
                "[PATCH] x",
                "--title",
                "t",
                &p,
                &c,
            ],
            "uring-repro: report: --re and --title both make the Subject: give one\n",
        ),
        (
            vec!["report", "--steps", "--re", "a\tb", &p, &c],
            "uring-repro: report: --re a\\tb: needs 1 to 128 printable ASCII characters: the \
             patch's subject\n",
        ),
    ] {
        let r = run(&args);
        assert_usage_error(&r, "report: ");
        assert_eq!(r.err, msg, "{args:?}");
    }
    // --help names both, from the options table.
    let help = run(&["--help"]).out;
    assert_contains(
        &help,
        &[
            "uring-repro report --steps [--re SUBJECT]",
            "\n  --steps         a fix series' reply",
            "\n  --re SUBJECT    with --steps: the patch's subject",
        ],
    );
}
