//! The real kernels' points (tests/fixtures/kernel, made by
//! tests/kernel/run.sh on QEMU's instruction clock) and what
//! docs/reproduction.md says of them: the s0 sandwich's mail drafted by
//! `report` is the one kept there and shown in the doc; compare reads the
//! sandwich as exact (identical boots) and the child clear of zero above
//! the parent; the NOP control does not move; every point states its
//! timebase; the two tables of where the cost went (the points' cost
//! lines diffed) are the ones the doc shows; the real `git bisect run`
//! named the tracking change, its steps' points judged now give the
//! verdicts it gave, and the doc shows its transcript. The kernels
//! themselves are built and booted by tests/kernel/run.sh, not here.

mod utils;

use std::process::Command;

use utils::{assert_narrow, Run, BIN};

fn dir() -> String {
    format!("{}/tests/fixtures/kernel", env!("CARGO_MANIFEST_DIR"))
}

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{}/{name}", dir())).unwrap()
}

fn docs() -> String {
    std::fs::read_to_string(format!(
        "{}/docs/reproduction.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// The binary with `args`, run in the fixtures' directory (the names as
/// typed, so a draft's own command line is the same on every clone).
fn run_in_fixtures(args: &[&str]) -> Run {
    Command::new(BIN)
        .args(args)
        .current_dir(dir())
        .output()
        .expect("spawn uring-repro")
        .into()
}

const SANDWICH: [&str; 4] = [
    "parent=s0-parent-1.txt",
    "child=s0-child-1.txt",
    "child=s0-child-2.txt",
    "parent=s0-parent-2.txt",
];

/// compare --tsv's one comparison, as column name -> value.
fn compare_tsv(points: &[&str]) -> std::collections::HashMap<String, String> {
    let mut args = vec!["compare", "--tsv"];
    args.extend(points);
    let r = run_in_fixtures(&args);
    assert_eq!(r.code, 0, "{}", r.err);
    let mut lines = r.out.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let row: Vec<&str> = lines.next().unwrap().split('\t').collect();
    head.iter()
        .zip(row)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn every_point_counts_guest_instructions() {
    for e in std::fs::read_dir(dir()).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if !name.ends_with(".txt") || name.starts_with("report") {
            continue;
        }
        let text = read(&name);
        let banner = text.lines().next().unwrap();
        assert!(banner.contains(" timebase=icount"), "{name}: {banner}");
        assert!(
            text.contains("\n# unit=guest_instructions_per_pair "),
            "{name}"
        );
        assert!(
            text.contains("\n# boot=qemu-system-x86_64 ")
                && text.contains(" -icount shift=0,sleep=off"),
            "{name}: no # boot= line with the instruction clock"
        );
    }
}

/// The profiles' points, booted with --cost.
const COUNTED: [&str; 19] = [
    "s0-parent-1",
    "s0-child-1",
    "s0-child-2",
    "s0-parent-2",
    "n0-parent",
    "n0-child",
    "v0-parent",
    "v0-child",
    "c0-parent",
    "c0-child",
    "pollwake-parent",
    "pollwake-poll",
    "pollwake-child",
    "s0-shared-parent",
    "s0-shared-child",
    "s0-fix1",
    "s0-shared-fix1",
    "s0-fix2",
    "s0-shared-fix2",
];

#[test]
fn the_profiles_points_end_with_their_cost_lines() {
    for name in COUNTED {
        let text = read(&format!("{name}.txt"));
        assert!(
            text.contains("\n# cost: method counter=qemu-tcg-plugin ")
                && text.ends_with('\n')
                && text.lines().last().unwrap().starts_with("# cost: "),
            "{name}: no # cost: lines at its end"
        );
    }
}

#[test]
fn the_s0_sandwich_is_exact_and_the_child_clear_of_zero_above() {
    let t = compare_tsv(&SANDWICH);
    assert_eq!(t["timebase"], "icount");
    assert_eq!(
        (t["control_boots"].as_str(), t["test_boots"].as_str()),
        ("2", "2")
    );
    // Identical boots: the between-boot interval is the change itself.
    assert_eq!(t["between_ci95_low_pct"], t["between_ci95_high_pct"]);
    assert_eq!(t["between_ci95_low_pct"], t["change_pct"]);
    let change: f64 = t["change_pct"].parse().unwrap();
    let within_low: f64 = t["within_ci95_low_pct"].parse().unwrap();
    assert!(change > 0.0 && within_low > 0.0, "{t:?}");
    assert_eq!(t["control_drift_pct"], "0.000000");
    assert_eq!(t["test_drift_pct"], "0.000000");
}

#[test]
fn the_nop_control_does_not_move() {
    let t = compare_tsv(&["parent=n0-parent.txt", "child=n0-child.txt"]);
    assert_eq!(t["timebase"], "icount");
    assert!(
        t["reasons"].split(',').any(|r| r == "ci_includes_zero"),
        "{t:?}"
    );
    // Within one instruction per NOP (tests/kernel/run.sh's N0_TOLERANCE): the tick's share,
    // or a context switch into a kthread inside the spans (the child's boot has one into
    // RCU's grace-period kthread: +0.843, all of it in functions the NOP path never runs).
    let value = |k: &str| t[k].parse::<f64>().unwrap();
    assert!(
        (value("test_value") - value("control_value")).abs() < 1.0,
        "{t:?}"
    );
}

#[test]
fn the_s0_mail_is_the_one_kept_and_shown() {
    let mut args = vec!["report", "--introduced", "079afb081c42"];
    args.extend(SANDWICH);
    let r = run_in_fixtures(&args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    assert_eq!(r.out, read("report-s0.txt"));
    assert!(
        docs().contains(&format!("```\n{}```\n", r.out)),
        "docs/reproduction.md does not show this draft:\n{}",
        r.out
    );
}

/// The references of the bisect, as bisect-step.sh passed them.
const BISECT_REFS: [&str; 4] = [
    "good=bisect-good-1.txt",
    "good=bisect-good-2.txt",
    "bad=bisect-bad-1.txt",
    "bad=bisect-bad-2.txt",
];
/// Its --gate (tests/kernel/run.sh's BISECT_GATE).
const BISECT_GATE: &str = "2";

/// The lines of the bisect's transcript that say what happened: git's
/// (the commit checked out, how much is left, the first bad commit),
/// compare's verdict and bisect-step.sh's, without the point's path.
fn bisect_story(transcript: &str) -> Vec<&str> {
    transcript
        .lines()
        .filter(|l| {
            l.starts_with("Bisecting: ")
                || l.starts_with('[')
                || l.starts_with("bisect: ")
                || (l.starts_with("bisect-step.sh: ") && l.contains(" (exit "))
                || l.ends_with(" is the first bad commit")
        })
        .map(|l| l.split("; point: ").next().unwrap())
        .collect()
}

#[test]
fn the_bisect_named_the_tracking_change_and_its_steps_judge_the_same_now() {
    let transcript = read("bisect-transcript.log");
    let story = bisect_story(&transcript);
    // git named a commit, and it is the one the series made of the child's patch.
    let first = story.last().unwrap();
    let sha = first.strip_suffix(" is the first bad commit").unwrap();
    let series = std::fs::read_to_string(format!(
        "{}/kernel/bisect/series",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let subject = series
        .lines()
        .find_map(|l| l.strip_prefix("child-futex-inflight.patch\t"))
        .unwrap();
    assert!(
        story.contains(&format!("[{sha}] {subject}").as_str()),
        "{story:#?}"
    );
    // Every step: its point, judged now against the references, gives the
    // verdict line and the exit code the step gave.
    let mut steps = 0;
    for (i, line) in story.iter().enumerate() {
        let Some(rest) = line.strip_prefix("bisect-step.sh: ") else {
            continue;
        };
        let (commit, verdict) = rest.split_once(": ").unwrap();
        let code = match verdict.split(' ').next().unwrap() {
            "good" => 0,
            "bad" => 1,
            other => panic!("step {commit}: {other}"),
        };
        let new = format!("new=bisect-step-{commit}.txt");
        let mut args = vec!["compare", "--bisect", "--gate", BISECT_GATE];
        args.extend(BISECT_REFS);
        args.push(&new);
        let r = run_in_fixtures(&args);
        assert_eq!(r.code, code, "{commit}: {}", r.err);
        assert_eq!(r.out, format!("{}\n", story[i - 1]), "{commit}");
        steps += 1;
    }
    assert!(steps >= 2, "{story:#?}");
    // The doc shows this transcript.
    let shown = format!("```\n{}\n```\n", story.join("\n"));
    assert!(
        docs().contains(&shown),
        "docs/reproduction.md does not show the bisect:\n{shown}"
    );
}

/// compare's cost section for `args` (run in the fixtures' directory), as
/// printed: from its heading to the blank line after it.
fn cost_section(args: &[&str]) -> String {
    let r = run_in_fixtures(&[&["compare"], args].concat());
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    let at = r.out.find("Where the cost went, ").expect("a cost section");
    let end = r.out[at..].find("\n\n").expect("its end") + at + 1;
    r.out[at..end].to_string()
}

#[test]
fn the_cost_tables_are_the_ones_shown() {
    let docs = std::fs::read_to_string(format!(
        "{}/docs/reproduction.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let idle = [
        "--mode",
        "idle",
        "parent=pollwake-parent.txt",
        "poll=pollwake-poll.txt",
    ];
    for args in [&SANDWICH[..], &idle[..]] {
        let s = cost_section(args);
        assert!(
            docs.contains(&format!("```\n{s}```\n")),
            "docs/reproduction.md does not show this table:\n{s}"
        );
    }
    // docs/compare.md shows the s0 one too.
    let path = format!("{}/docs/compare.md", env!("CARGO_MANIFEST_DIR"));
    let compare = std::fs::read_to_string(path).unwrap();
    let s = cost_section(&SANDWICH);
    assert!(
        compare.contains(&format!("```\n{s}```\n")),
        "docs/compare.md:\n{s}"
    );
}

/// Whether `doc` (a path in the repository) shows ab's table NAME (ab-NAME.out here) as ab
/// printed it: the table and what it says of the verdict, up to the first table of where
/// the cost went, between the markers `<!-- ab-NAME -->` and `<!-- /ab-NAME -->`.
fn assert_shows_ab_table(doc: &str, name: &str) {
    let out = read(&format!("ab-{name}.out"));
    let shown: Vec<&str> = out.splitn(3, "\n\n").take(2).collect();
    let text = std::fs::read_to_string(format!("{}/{doc}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let want = format!(
        "<!-- ab-{name} -->\n```\n{}\n```\n<!-- /ab-{name} -->",
        shown.join("\n\n")
    );
    assert!(text.contains(&want), "{doc} does not show:\n{want}");
}

/// README's "Check a change" shows ab's table of the child against the parent, as the
/// kernel tests' ab printed it.
#[test]
fn the_readme_shows_abs_table_of_the_child() {
    assert_shows_ab_table("README.md", "child");
}

/// docs/fixes.md shows ab's table of the disputed patch against the parent, as ab printed
/// it (the run its text gives, kept in ab-flags.out).
#[test]
fn the_disputed_patchs_table_is_the_one_ab_printed() {
    assert_shows_ab_table("docs/fixes.md", "flags");
}

/// docs/fixes.md's table of the fix series is the one tests/kernel/fixes-table.sh prints
/// from the kernel tests' ab tables (parent→child, child→fix1, fix1→fix2) and the
/// published figures, between its markers.
#[test]
fn the_fix_series_table_is_the_one_printed_from_the_ab_tables() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(format!("{root}/tests/kernel/fixes-table.sh"))
        .args(["ab-child.tsv", "ab-fix1.tsv", "ab-fix2.tsv"])
        .current_dir(dir())
        .output()
        .expect("spawn fixes-table.sh");
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = std::fs::read_to_string(format!("{root}/docs/fixes.md")).unwrap();
    let want = format!("<!-- fixes-table -->\n{table}<!-- /fixes-table -->");
    assert!(docs.contains(&want), "docs/fixes.md does not show:\n{want}");
    // Every step's locked instructions, counted, are the ones its source says it moves: the
    // kernel's, all functions, within a timer interrupt's few that may fall into the spans
    // (about 20, 0.002 a pair; tests/kernel/ab-checks.sh's LOCKED_TICK).
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 8, "{table}");
    for r in rows {
        let source: f64 = r[8].parse().unwrap();
        let counted: f64 = r[9].parse().unwrap_or(f64::NAN);
        assert!((source - counted).abs() <= 0.01, "{r:?}");
    }
}

/// docs/fixes.md's mail tables are what `report --steps` drafts from the series' s0 points.
#[test]
fn the_fix_series_mail_is_the_one_shown() {
    let r = run_in_fixtures(&[
        "report",
        "--steps",
        "--re",
        "[PATCH 0/2] io_uring/futex: inflight tracking fixes",
        "parent=s0-parent-1.txt",
        "child=s0-child-1.txt",
        "fix1=s0-fix1.txt",
        "fix2=s0-fix2.txt",
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    let at = r
        .out
        .find("Steps, guest instructions")
        .expect("a table of steps");
    let end = r
        .out
        .find("\nchild vs parent")
        .expect("the first step's paragraph");
    let shown = format!("```\n{}```\n", &r.out[at..end]);
    let docs =
        std::fs::read_to_string(format!("{}/docs/fixes.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(
        docs.contains(&shown),
        "docs/fixes.md does not show:\n{shown}"
    );
}

/// Max Kellermann's io-wq series, as the kernel tests' ab run measured it
/// patch by patch (ab-kellermann: its table and series.tsv): what the
/// source makes certain, and docs/series.md shows the matrix ab printed.
#[test]
fn the_kellermann_series_moves_what_its_source_says() {
    let rows = utils::tsv_rows(std::path::Path::new(&format!(
        "{}/ab-kellermann.tsv",
        dir()
    )));
    let get = |step: &str, row: &str| {
        rows.iter()
            .find(|r| r["step"] == step && r["profile"] == row)
            .unwrap_or_else(|| panic!("no {row} at step {step}"))
    };
    let num =
        |r: &std::collections::HashMap<String, String>, c: &str| -> f64 { r[c].parse().unwrap() };
    // Patches 1-6 each save a0 (NOP with IOSQE_ASYNC, the author's own
    // benchmark) instructions; only 5 its locked ones, exactly the four
    // of the hash bucket's lock taken and released after every NOP. 4 and
    // 6 save one to three, within where a tick lands when the image
    // changes (docs/series.md): they must not raise it.
    for step in ["1", "2", "3", "4", "5", "6"] {
        let a0 = get(step, "a0");
        if step != "4" && step != "6" || a0["verdict"] == "moved" {
            assert_eq!(a0["verdict"], "moved", "step {step}: {a0:?}");
            assert!(num(a0, "delta") < 0.0, "step {step}: {a0:?}");
        }
        let want = if step == "5" { -4.0 } else { 0.0 };
        assert!((num(a0, "locked_delta") - want).abs() <= 0.01, "{a0:?}");
    }
    // 8 (skip redundant poll wakeups) moves pollwake's wake-up modes and
    // nothing else; no step moves n0, the plain NOP control.
    let moved8: Vec<&str> = rows
        .iter()
        .filter(|r| r["step"] == "8" && r["verdict"] == "moved")
        .map(|r| r["profile"].as_str())
        .collect();
    assert_eq!(moved8, ["pollwake/idle", "pollwake/waiter"]);
    assert!(num(get("8", "pollwake/idle"), "delta") < -200.0);
    assert!(rows
        .iter()
        .filter(|r| r["profile"] == "n0")
        .all(|r| r["verdict"] == "unmoved"));
    // 3 moves the workers' lists into each acct: cancelling walks both,
    // each under its own lock (c0, one locked instruction a pair more).
    let c0 = get("3", "c0");
    assert!(c0["verdict"] == "moved" && num(c0, "delta") > 0.0, "{c0:?}");
    assert!((num(c0, "locked_delta") - 1.0).abs() <= 0.01, "{c0:?}");
    // docs/series.md shows the matrix as ab printed it.
    let out = read("ab-kellermann.out");
    let matrix: Vec<&str> = out
        .split("The series, step by step")
        .nth(1)
        .unwrap()
        .lines()
        .skip_while(|l| !l.starts_with("profile "))
        .take_while(|l| !l.is_empty())
        .collect();
    let doc =
        std::fs::read_to_string(format!("{}/docs/series.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let want = format!(
        "<!-- kellermann-matrix -->\n```\n{}\n```\n<!-- /kellermann-matrix -->",
        matrix.join("\n")
    );
    assert!(doc.contains(&want), "docs/series.md does not show:\n{want}");
}
