//! `uring-repro report` as a user runs it: the published sandwich drafted
//! into a mail and checked against a golden file (and against the example
//! in docs/report.md), then the draft's warnings: a shared boot, a failed
//! point, a missing fact, witness lines, and the usage errors.

mod utils;

use utils::draft::{
    aba, assert_drafted, assert_never_says, assert_says, fixture, flat, published_dir, report_in,
    write,
};
use utils::{
    assert_contains, assert_narrow, assert_starts_with, assert_usage_error, made_with, shell_words,
    Run, Scratch,
};

const SANDWICH: [&str; 4] = [
    "--introduced",
    "079afb081c42",
    "parent=parent_a.txt",
    "child=child.txt",
];

fn sandwich(extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = SANDWICH.iter().map(|s| s.to_string()).collect();
    v.push("parent=parent_b.txt".into());
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

#[test]
fn published_sandwich_drafts_the_golden_mail() {
    let args = sandwich(&[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Run { code, out, err } = report_in(&published_dir(), &args);
    assert_eq!(code, 0, "{err}");
    // The facts the fixtures leave `unknown`: named, once, on one line.
    assert_eq!(
        err,
        "uring-repro: report: left out of the draft, not stated: smt (no point), \
         governor (no point)\n"
    );
    assert_narrow(&out);
    let golden = std::fs::read_to_string(format!(
        "{}/tests/fixtures/report/published.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert_eq!(out, golden);
    // The published figures, as they must print.
    let f = flat(&out);
    for phrase in [
        "Subject: [REGRESSION] io_uring futex WAIT/WAKE +9.268% at 079afb081c42",
        "child vs parent (midpoint of 2 points, 179.968 ns/pair): +9.268% (95% CI within points +9.159% to +9.377%",
        "drop-first +9.269%",
        "control drift -0.124%",
        "max CV 0.169%",
        "between points +7.905% to +10.632%",
        "Verdict: CONFIRMED at the 5.000% gate.",
        "Each point was a fresh boot (distinct boot_ids 0a0a0a0a 0c0c0c0c 0b0b0b0b)",
        "All 45 timing rows passed the CQE, result, timeout, overflow, \
         outstanding-request and CPU checks.",
        "pinned to CPU 2",
        "12th Gen Intel(R) Core(TM) i7-12700KF",
        "preempt full (from debugfs)",
        "uring-repro run --profile s0 --cpu 2 --slots 32 --cycles 512 \\ \
         --rounds 15 --warmups 3 --timeout 2 > point.txt",
    ] {
        assert!(f.contains(phrase), "{phrase:?} in\n{out}");
    }
    assert!(out.contains(
        "\n#regzbot introduced: 079afb081c42\n\
         #regzbot title: io_uring futex WAIT/WAKE +9.268% at 079afb081c42\n"
    ));
    assert!(!f.contains("NOT EVIDENCE") && !f.contains("WARNING"));
    // docs/report.md shows this very draft.
    let docs =
        std::fs::read_to_string(format!("{}/docs/report.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(
        docs.contains(&format!("```\n{golden}```\n")),
        "docs/report.md"
    );
}

#[test]
fn title_links_and_the_command_line_as_typed() {
    let args = sandwich(&[
        "--title",
        "io_uring/futex: WAIT->WAKE 9% slower",
        "--link",
        "https://example.org/a",
        "--link=https://example.org/b",
        "--parent",
        "0123456789ab",
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Run { code, out, .. } = report_in(&published_dir(), &args);
    assert_eq!(code, 0);
    assert_narrow(&out);
    assert!(out.starts_with("Subject: [REGRESSION] io_uring/futex: WAIT->WAKE 9% slower\n"));
    assert!(out.contains("#regzbot title: io_uring/futex: WAIT->WAKE 9% slower\n"));
    assert!(out.ends_with("\nLink: https://example.org/a\nLink: https://example.org/b\n"));
    let f = flat(&out);
    assert!(
        f.contains("kernel 6.15.0-synthetic-parent, commit 0123456789ab;"),
        "{out}"
    );
    assert!(
        f.contains("kernel 6.15.0-synthetic-child, commit 079afb081c42;"),
        "{out}"
    );
    // The title is quoted for the shell.
    assert!(
        f.contains("--title \\ 'io_uring/futex: WAIT->WAKE 9% slower' --link"),
        "{out}"
    );
    // No --introduced: no regzbot lines, a title without a commit.
    let r = report_in(
        &published_dir(),
        &["A=parent_a.txt", "B=child.txt", "A=parent_b.txt"],
    );
    assert_eq!(r.code, 0);
    assert!(r
        .out
        .starts_with("Subject: [REGRESSION] io_uring futex WAIT/WAKE +9.268%\n"));
    assert!(!r.out.contains("#regzbot"));
}

#[test]
fn points_sharing_a_boot_id_give_the_warning() {
    let d = Scratch::new("report-boot");
    let dir = d.to_str().unwrap();
    let a = write(&d, "a.txt", &fixture("parent_a.txt"));
    let b = write(&d, "b.txt", &fixture("child.txt"));
    let same = fixture("parent_b.txt").replace(
        "0b0b0b0b-0000-4000-8000-000000000003",
        "0a0a0a0a-0000-4000-8000-000000000001",
    );
    let c = write(&d, "c.txt", &same);
    let r = aba(dir, [&a, &b, &c]);
    assert_drafted(&r, 0);
    assert_says(
        &r.out,
        &[
            "A: 2 points on 1 boot, B: 1 point on 1 boot.",
            "WARNING: points 1 and 3 share boot_id 0a0a0a0a: they are not a fresh boot each",
        ],
    );
    assert_never_says(&r.out, &["Each point was a fresh boot"]);
}

#[test]
fn a_failing_point_is_not_evidence_and_exits_1() {
    let d = Scratch::new("report-fail");
    let dir = d.to_str().unwrap();
    let a = write(&d, "a.txt", &fixture("parent_a.txt"));
    // Round 3 of the child failed; its checks line says why.
    let child = fixture("child.txt")
        .replace("\n3\t16384\t196.797000\t1\n", "\n3\t16384\t196.797000\t0\n")
        .replace(
            "# checks: synthetic -> PASS",
            "# checks: cqes=98304 bad_results=2 timeouts=0 -> FAIL",
        );
    assert!(
        child.contains("196.797000\t0"),
        "fixture changed: pick another row"
    );
    let b = write(&d, "b.txt", &child);
    let c = write(&d, "c.txt", &fixture("parent_b.txt"));
    let r = aba(dir, [&a, &b, &c]);
    assert_drafted(&r, 1);
    assert_starts_with(&r.out, "NOT EVIDENCE: point 2 failed its checks");
    assert_says(
        &r.out,
        &[
            "point 2 (B): 1 of 15 rows failed (bad_results=2)",
            "NOT CONFIRMED at the 5.000% gate: a point failed its checks. No regression is claimed",
        ],
    );
    assert_never_says(&r.out, &["All 45 timing rows passed"]);
    assert!(r.err.ends_with(
        "uring-repro: report: 1 point(s) failed their checks: the draft is NOT EVIDENCE\n"
    ));
}

#[test]
fn a_missing_banner_fact_is_named_and_left_out() {
    let d = Scratch::new("report-missing");
    let dir = d.to_str().unwrap();
    let drop_model = |name| {
        fixture(name)
            .lines()
            .filter(|l| !l.starts_with("# cpu_model="))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    // One point without it: stated for the others, and says for which.
    let a = write(&d, "a.txt", &fixture("parent_a.txt"));
    let b = write(&d, "b.txt", &drop_model("child.txt"));
    let c = write(&d, "c.txt", &fixture("parent_b.txt"));
    let r = aba(dir, [&a, &b, &c]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.err.contains("cpu_model (not in point 2)") && r.err.lines().count() == 1,
        "{}",
        r.err
    );
    assert_says(
        &r.out,
        &["a 12th Gen Intel(R) Core(TM) i7-12700KF (points 1 and 3)"],
    );
    // The claim names only what every point states.
    assert_says(&r.out, &["on CPU 2, with these kernels"]);
    // No point with it: not in the draft at all.
    let a = write(&d, "a.txt", &drop_model("parent_a.txt"));
    let c = write(&d, "c.txt", &drop_model("parent_b.txt"));
    let r = aba(dir, [&a, &b, &c]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.err.contains("cpu_model (no point)"), "{}", r.err);
    assert!(!r.out.contains("i7-12700KF"), "{}", r.out);
    // The C standalone states no fact at all: each named once.
    let r = report_in(
        &published_dir(),
        &["A=parent_a.txt", "B=child_standalone.txt", "A=parent_b.txt"],
    );
    assert_drafted(&r, 0);
    assert_eq!(r.err.lines().count(), 1, "{}", r.err);
    assert_eq!(r.err.matches("cpu_model").count(), 1, "{}", r.err);
    assert!(r.err.contains("kernel (not in point 2)"), "{}", r.err);
    assert_says(
        &r.out,
        &["Point 2 states none of this.", "Point 2 states no boot_id"],
    );
}

#[test]
fn witness_lines_are_carried_wrapped() {
    let d = Scratch::new("report-witness");
    let dir = d.to_str().unwrap();
    let events = "# witness: events FUTEX_WAIT=512 FUTEX_WAKE=512 complete=1024 res0=512 \
                  res1=512 async=0 overflow=0 other_cpu=0 -> MATCH";
    let functions = "# witness: functions io_futex_prep=1024 io_futexv_prep=0 \
                     io_futex_wait=512 io_futex_wake=512 io_futex_complete=512 -> MATCH";
    let witnessed = |name: &str, functions: &str| {
        fixture(name)
            .replace(" clock=vdso\n", " clock=vdso witness=on\n")
            .replace("# checks:", &format!("{events}\n{functions}\n# checks:"))
    };
    let a = write(&d, "a.txt", &witnessed("parent_a.txt", functions));
    let b = write(&d, "b.txt", &witnessed("child.txt", functions));
    let c = write(&d, "c.txt", &witnessed("parent_b.txt", functions));
    let r = aba(dir, [&a, &b, &c]);
    assert_drafted(&r, 0);
    assert_eq!(r.out.matches("witness: events").count(), 1, "{}", r.out);
    assert!(
        r.out.contains(
            "The kernel's own counts (the same on every point):\n  \
             witness: events FUTEX_WAIT=512 FUTEX_WAKE=512 complete=1024 res0=512\n    \
             res1=512 async=0 overflow=0 other_cpu=0 -> MATCH\n"
        ),
        "{}",
        r.out
    );
    assert_says(
        &r.out,
        &[
            "io_futex_complete=512 -> MATCH",
            "the kernel witness on.",
            "--timeout 2 --witness > point.txt",
        ],
    );
    // Different on one point: per point.
    let other = functions.replace(
        "io_futex_complete=512 -> MATCH",
        "io_futex_complete=0 -> MISMATCH",
    );
    let b = write(&d, "b.txt", &witnessed("child.txt", &other));
    let r = aba(dir, [&a, &b, &c]);
    assert_narrow(&r.out);
    assert_eq!(r.out.matches("witness: events").count(), 3, "{}", r.out);
    assert_contains(&r.out, &["The kernel's own counts, point 2 (B):\n"]);
    assert!(
        flat(&r.out).contains("io_futex_complete=0 -> MISMATCH"),
        "{}",
        r.out
    );
}

#[test]
fn usage_errors_and_unusable_input_exit_2() {
    let dir = published_dir();
    let ok = ["A=parent_a.txt", "B=child.txt"];
    for (args, msg) in [
        (
            &["--introduced", "xyz"][..],
            "report: --introduced xyz: needs a commit id",
        ),
        (
            &["--parent=12345"][..],
            "report: --parent=12345: needs a commit id",
        ),
        (&["--title", &"x".repeat(51)][..], "report: --title"),
        (&["--link", "a b"][..], "report: --link a b: needs a URL"),
        (&["--gate", "0"][..], "report: --gate 0: needs a percentage"),
        (
            &["--drop-first"][..],
            "report: --drop-first: does not apply to report",
        ),
        (
            &["--bisect"][..],
            "report: --bisect: does not apply to report",
        ),
    ] {
        let mut v = args.to_vec();
        v.extend(ok);
        assert_usage_error(&report_in(&dir, &v), msg);
    }
    assert_usage_error(
        &report_in(&dir, &[]),
        "report: needs at least one result file",
    );
    assert_usage_error(
        &report_in(&dir, &["A=parent_a.txt", "A=parent_b.txt"]),
        "report: needs a control and a label to compare with it",
    );
    // Bad input: compare's messages.
    assert_usage_error(
        &report_in(&dir, &["A=parent_a.txt", "B=nonexistent.txt"]),
        "nonexistent.txt: cannot read: ENOENT (2)",
    );
    let bad = format!(
        "{}/tests/fixtures/bad/no-mean-row.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    assert_usage_error(
        &report_in(&dir, &["A=parent_a.txt", &format!("B={bad}")]),
        &format!("{bad}: no mean row"),
    );
    // Five links are one too many.
    let mut v = vec!["A=parent_a.txt", "B=child.txt"];
    for _ in 0..5 {
        v.extend(["--link", "https://example.org/"]);
    }
    assert_usage_error(
        &report_in(&dir, &v),
        "report: --link https://example.org/: at most 4 links",
    );
}

/// Real witnessed points (three boots of 6.12 under QEMU, as
/// boot-point.sh wrote them): the kernel's counts reach the draft, the
/// clean-up line does not, and the rebuilt command asks for the witness.
#[test]
fn real_witnessed_points_from_a_guest() {
    let d = Scratch::new("report-guest");
    let f = |n: &str| {
        format!(
            "{}/tests/fixtures/witnessed/{n}",
            env!("CARGO_MANIFEST_DIR")
        )
    };
    let r = report_in(
        d.to_str().unwrap(),
        &[
            &format!("A={}", f("a.txt")),
            &format!("B={}", f("b.txt")),
            &format!("A={}", f("c.txt")),
        ],
    );
    assert_drafted(&r, 0);
    let flat = flat(&r.out);
    assert!(
        flat.contains("The kernel's own counts (the same on every point):"),
        "{}",
        r.out
    );
    assert!(
        flat.contains(
            "witness: events FUTEX_WAIT=1536 FUTEX_WAKE=1536 complete=3072 res0=1536 \
             res1=1536 async=0 overflow=0 other_cpu=0 -> MATCH"
        ),
        "{}",
        r.out
    );
    assert!(flat.contains("io_req_track_inflight=not_traceable(inlined) -> MATCH"));
    assert!(!r.out.contains("removed"), "{}", r.out);
    assert!(flat.contains("--witness > point.txt"), "{}", r.out);
}

/// A bisect's absolute `--points` paths and a banner value of 5000
/// characters: every line of the draft still fits 72 columns, and the
/// command line it was made with, pasted into a shell, gives back the very
/// arguments.
#[test]
fn long_paths_and_long_values_stay_within_72_columns() {
    let d = Scratch::new("report-wide");
    let deep = d.join("points-of-a-bisect-kept-by-commit-in-a-deep-directory-tree".repeat(2));
    std::fs::create_dir_all(&deep).unwrap();
    let copy = |name: &str, text: String| {
        let p = deep.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let long = "x".repeat(5000);
    let a = copy("parent_a.txt", fixture("parent_a.txt"));
    let b = copy(
        "child.txt",
        fixture("child.txt").replace(
            "kernel=6.15.0-synthetic-child",
            &format!("kernel=6.15.0-{long}"),
        ),
    );
    let c = copy(
        "parent_b.txt",
        fixture("parent_b.txt").replace(
            "cpu_model=12th Gen Intel(R) Core(TM) i7-12700KF",
            &format!("cpu_model={long}"),
        ),
    );
    let args = [
        "report".to_string(),
        "--introduced".into(),
        "079afb081c42".into(),
        format!("parent={a}"),
        format!("child={b}"),
        format!("parent={c}"),
    ];
    let r = utils::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_drafted(&r, 0);
    // A kernel release is at most 64 characters (uname's limit): a longer
    // one is shown cut, and says so.
    assert!(flat(&r.out).contains("kernel 6.15.0-xxxx"), "{}", r.out);
    assert!(r.out.contains("x..."), "{}", r.out);
    let Some(words) = shell_words(made_with(&r.out)) else {
        return;
    };
    let want: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    assert_eq!(words, want, "{}", made_with(&r.out));
}

/// The command to reproduce carries only what every point states alike:
/// a positive control's `--inject-ns`, stated by the child alone (the
/// parents are the formal C reproducer's TSV, which states none), is not
/// the parents' command.
#[test]
fn the_reproduce_command_carries_only_what_every_point_states() {
    let d = Scratch::new("report-inject");
    let dir = d.to_str().unwrap();
    let a = write(&d, "a.tsv", &fixture("parent_a.tsv"));
    let injected = fixture("child.txt").replace(" clock=vdso\n", " clock=vdso inject_ns=100\n");
    let b = write(&d, "b.txt", &injected);
    let c = write(&d, "c.tsv", &fixture("parent_b.tsv"));
    let r = aba(dir, [&a, &b, &c]);
    assert_drafted(&r, 0);
    let f = flat(&r.out).replace("\\ ", "");
    let run = &f[f.find("uring-repro run").expect("the run command")..];
    let run = &run[..run.find("point.txt").unwrap()];
    assert!(!run.contains("--inject-ns"), "{run}");
    assert!(run.contains("--cpu 2 --slots 32 --cycles 512"), "{run}");
    // The prose says which point injected.
    assert_says(
        &r.out,
        &["a positive control: 100 ns injected per pair (point 2)"],
    );
}

/// Words as English has them: `an` before a vowel sound (`an AMD EPYC`),
/// the singular after 1 (`1 untimed warm-up round`), and a gate printed
/// as it is applied (one of more decimals than any figure shows is no
/// gate: it was printed `the 0.000% gate`).
#[test]
fn wording_articles_plurals_and_the_gate() {
    let d = Scratch::new("report-wording");
    let dir = d.to_str().unwrap();
    let edit = |name: &str| {
        fixture(name)
            .replace(
                "12th Gen Intel(R) Core(TM) i7-12700KF",
                "AMD EPYC 7763 64-Core Processor",
            )
            .replace(" slots=32 ", " slots=1 ")
            .replace(" cycles=512 ", " cycles=1 ")
            .replace(" warmups=3 ", " warmups=1 ")
    };
    let (a, b, c) = (
        write(&d, "a.txt", &edit("parent_a.txt")),
        write(&d, "b.txt", &edit("child.txt")),
        write(&d, "c.txt", &edit("parent_b.txt")),
    );
    let r = aba(dir, [&a, &b, &c]);
    assert_drafted(&r, 0);
    assert_says(
        &r.out,
        &[
            "1 request a cycle, 1 cycle a round, 15 measured rounds after 1 untimed warm-up round,",
            "(cpu_choice default), an AMD EPYC 7763 64-Core Processor (x86_64)",
            "on CPU 2 of one AMD EPYC",
        ],
    );
    assert_never_says(
        &r.out,
        &[
            "a AMD",
            "1 untimed warm-up rounds",
            "1 requests",
            "1 cycles",
        ],
    );
    // The published box: a 12th Gen Intel.
    let r = aba(
        &published_dir(),
        ["parent_a.txt", "child.txt", "parent_b.txt"],
    );
    assert_says(&r.out, &[", a 12th Gen Intel(R)"]);
    // A gate finer than every figure is printed: refused, saying why.
    for gate in ["0.0000000001", "1.2345"] {
        let r = report_in(dir, &["--gate", gate, &format!("A={a}"), &format!("B={b}")]);
        assert_usage_error(
            &r,
            &format!("report: --gate {gate}: needs a percentage in (0, 100], at most 3 decimals"),
        );
        let r = utils::run(&["compare", "--gate", gate, &format!("{dir}/{a}")]);
        assert_eq!(r.code, 2, "{}", r.out);
    }
    let r = report_in(
        dir,
        &[
            "--gate",
            "0.001",
            &format!("A={a}"),
            &format!("B={b}"),
            &format!("A={c}"),
        ],
    );
    assert_says(&r.out, &["at the 0.001% gate"]);
}
