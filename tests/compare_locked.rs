//! Locked instructions beside the instructions: compare's "Where the cost
//! went", its `--tsv` and the mail, on real points whose counter counted
//! them (tests/fixtures/locked: s0 on the kernel tests' parent and child),
//! on the kernel tests' points whose counter did not (tests/fixtures/kernel:
//! "not counted", never 0), and on points of both kinds at once (no change).

mod utils;

use std::collections::HashMap;

use utils::cost::{joined, section, uncounted};
use utils::{assert_contains, assert_narrow, run, write, Run, Scratch};

fn locked(name: &str) -> String {
    format!(
        "{}/tests/fixtures/locked/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Real points whose counter did not count locked instructions (booted
/// before it did): the fix series' fixtures of report --steps.
fn uncounted_point(name: &str) -> String {
    format!("{}/tests/fixtures/steps/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn text(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// What a point's own cost lines say, per pair: the kernel's locked
/// instructions, and each function's (read here with no code of the
/// binary's).
fn lines_of(point: &str) -> (f64, HashMap<String, f64>) {
    let series = point
        .lines()
        .find(|l| l.starts_with("# cost: series "))
        .expect("a series line");
    let value = |key: &str| -> f64 {
        let w = series.split(' ').find_map(|w| w.strip_prefix(key)).unwrap();
        w.parse().unwrap()
    };
    let pairs = value("pairs=");
    let per_fn = point
        .lines()
        .filter_map(|l| l.strip_prefix("# cost: locked "))
        .map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            (w[3].to_owned(), w[2].parse::<f64>().unwrap() / pairs)
        })
        .collect();
    (value("kernel_locked=") / pairs, per_fn)
}

/// The table's row of `what` (a function, or a total), split in columns:
/// the control's figure, the change, the locked change.
fn row<'a>(section: &'a str, what: &str) -> Vec<&'a str> {
    let line = section
        .lines()
        .find(|l| l.ends_with(&format!("  {what}")))
        .unwrap_or_else(|| panic!("no row {what:?} in:\n{section}"));
    line[..line.len() - what.len()].split_whitespace().collect()
}

/// compare's `--tsv` rows, by column name.
fn tsv(args: &[&str]) -> Vec<HashMap<String, String>> {
    let r = run(&[&["compare", "--tsv"], args].concat());
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    let mut lines = r.out.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|l| {
            let cells = l.split('\t').map(str::to_owned);
            head.iter().map(|h| h.to_string()).zip(cells).collect()
        })
        .collect()
}

#[test]
fn the_locked_change_stands_beside_the_instructions() {
    let (p, c) = (locked("s0-parent.txt"), locked("s0-child.txt"));
    let args = [format!("parent={p}"), format!("child={c}")];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Run { code, out, err } = run(&[&["compare"], &args[..]].concat());
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    let s = section(&out);
    assert!(
        s.contains("\n        parent      change  locked  kernel function\n"),
        "{s}"
    );
    // The change from the points' own lines: the tracking counter's
    // increment and decrement, for each of the pair's two requests.
    let ((p_all, p_fn), (c_all, c_fn)) = (lines_of(&text(&p)), lines_of(&text(&c)));
    let moved = |f: &str| c_fn.get(f).unwrap_or(&0.0) - p_fn.get(f).unwrap_or(&0.0);
    assert_eq!(format!("{:+.3}", moved("io_req_track_inflight")), "+2.000");
    assert_eq!(
        format!("{:+.3}", moved("__io_submit_flush_completions")),
        "+2.000"
    );
    for (what, locked) in [
        ("__io_submit_flush_completions", "+2.000"),
        ("io_req_track_inflight (child only)", "+2.000"),
        ("io_futex_prep", "0.000"),
        ("the 3 listed", "+4.000"),
        ("kernel, all functions", &format!("{:+.3}", c_all - p_all)),
        ("user", "0.000"),
        ("counted (kernel + user)", "+4.000"),
    ] {
        assert_eq!(row(s, what)[2], locked, "{what}: {s}");
    }
    // The point's own value counts every instruction: no locked figure.
    assert_eq!(row(s, "the point (timed)")[2], "-", "{s}");
    // The kernel's locked per pair of each side, control and test.
    assert_contains(
        &joined(s),
        &[&format!(
            "The kernel's locked per pair: parent {p_all:.3}, child {c_all:.3}."
        )],
    );
    assert!(!s.contains("Locked instructions:"), "{s}");
    // docs/compare.md shows this table.
    let path = format!("{}/docs/compare.md", env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(path).unwrap();
    assert!(
        docs.contains(&format!("```\n{s}```\n")),
        "docs/compare.md:\n{s}"
    );
    // The mail: the same table.
    let r = run(&[&["report"], &args[..]].concat());
    assert_eq!(r.code, 0, "{}", r.err);
    assert_narrow(&r.out);
    let m = section(&r.out);
    let table = |s: &str| {
        let lines = s.lines().skip_while(|l| !l.ends_with("kernel function"));
        lines.collect::<Vec<_>>().join("\n")
    };
    assert_eq!(table(m), table(s), "{}", r.out);
}

#[test]
fn tsv_gives_the_locked_figures_or_na() {
    let (p, c, smp) = (
        locked("s0-parent.txt"),
        locked("s0-child.txt"),
        locked("s0-parent-smp.txt"),
    );
    let ((p_all, _), (c_all, _), (smp_all, _)) = (
        lines_of(&text(&p)),
        lines_of(&text(&c)),
        lines_of(&text(&smp)),
    );
    let rows = tsv(&[&format!("parent={p}"), &format!("child={c}")]);
    let r = &rows[0];
    let got = |k: &str| r[k].parse::<f64>().unwrap();
    assert_eq!(
        format!("{:.6}", got("control_kernel_locked")),
        format!("{p_all:.6}")
    );
    assert_eq!(
        format!("{:.6}", got("test_kernel_locked")),
        format!("{c_all:.6}")
    );
    assert_eq!(r["kernel_locked_change"], format!("{:.6}", c_all - p_all));
    assert_eq!(&r["kernel_locked_change"][..5], "4.000");
    // Two boots of the parent (the second booted with noreplace-smp, whose
    // timer-tick functions differ a little): the mean of their lines.
    let rows = tsv(&[
        &format!("parent={p}"),
        &format!("child={c}"),
        &format!("parent={smp}"),
    ]);
    let mean = (p_all + smp_all) / 2.0;
    assert_eq!(rows[0]["control_kernel_locked"], format!("{mean:.6}"));
    // Points whose counter did not count them.
    let rows = tsv(&[
        &format!("parent={}", uncounted_point("s0-parent-1.txt")),
        &format!("child={}", uncounted_point("s0-child-1.txt")),
    ]);
    for k in [
        "control_kernel_locked",
        "test_kernel_locked",
        "kernel_locked_change",
    ] {
        assert_eq!(rows[0][k], "NA", "{k}");
    }
    // Points without any cost line.
    let rows = tsv(&[
        &utils::published("parent_a.txt"),
        &utils::published("child.txt"),
    ]);
    assert_eq!(rows[0]["kernel_locked_change"], "NA");
}

#[test]
fn points_without_locked_counts_say_not_counted() {
    let args = [
        format!("parent={}", uncounted_point("s0-parent-1.txt")),
        format!("child={}", uncounted_point("s0-child-1.txt")),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for command in ["compare", "report"] {
        let r = run(&[&[command], &args[..]].concat());
        assert_eq!(r.code, 0, "{}", r.err);
        let s = section(&r.out);
        // The table as it was, no locked column, and what was not counted
        // said so.
        assert!(
            s.contains("\n        parent      change  kernel function\n"),
            "{s}"
        );
        assert_contains(
            &joined(s),
            &[
                "Locked instructions: not counted (the points' cost lines were made by a counter \
               that did not count them).",
            ],
        );
    }
}

#[test]
fn one_side_counted_and_the_other_not_is_no_change() {
    let d = Scratch::new("locked-mixed");
    let p = locked("s0-parent.txt");
    let c = write(&d, "child.txt", &uncounted(&text(&locked("s0-child.txt"))));
    let r = run(&["compare", &format!("parent={p}"), &format!("child={c}")]);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    assert_narrow(&r.out);
    let s = section(&r.out);
    // The instructions are diffed as ever; the locked ones are not.
    assert!(
        s.contains("\n        parent      change  kernel function\n"),
        "{s}"
    );
    assert_eq!(row(s, "io_req_track_inflight (child only)")[1], "+22.000");
    assert_contains(
        &joined(s),
        &[
            "Locked instructions: point 1 counted them, point 2 did not, so no change is \
           shown: what was not counted is not 0.",
        ],
    );
    let rows = tsv(&[&format!("parent={p}"), &format!("child={c}")]);
    let (p_all, _) = lines_of(&text(&p));
    assert_eq!(rows[0]["control_kernel_locked"], format!("{p_all:.6}"));
    assert_eq!(rows[0]["test_kernel_locked"], "NA");
    assert_eq!(rows[0]["kernel_locked_change"], "NA");
    // Within one label: a boot whose lines count them beside one whose do
    // not (the same boot's point, its locked counts taken out) leaves the
    // label with no figure.
    let p2 = write(&d, "parent.txt", &uncounted(&text(&p)));
    let c = locked("s0-child.txt");
    let args = [
        format!("parent={p}"),
        format!("child={c}"),
        format!("parent={p2}"),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&[&["compare"], &args[..]].concat());
    assert_eq!(r.code, 0, "{}", r.err);
    assert_contains(
        &joined(section(&r.out)),
        &["points 1 and 2 counted them, point 3 did not, so no change is shown"],
    );
    let rows = tsv(&args);
    assert_eq!(rows[0]["control_kernel_locked"], "NA");
    assert_eq!(&rows[0]["test_kernel_locked"][..6], "10.691");
}
