//! `uring-repro compare` as a user runs it: the published sandwich from
//! synthetic fixtures in every input format, the error paths with their exit
//! codes, and three real `--smoke` runs compared end to end.

mod utils;

use utils::{
    assert_contains, assert_narrow, field, fields, line, published, ran, run, write, Run, Scratch,
};

/// A real run's stdout as if from a boot of its own: its boot id replaced
/// by `n`'s (runs of one test share this machine's boot, and compare
/// refuses one boot under two labels).
fn own_boot(out: &str, n: u8) -> String {
    let id = fields(line(out, "# uring-repro "))["boot_id"].to_owned();
    out.replace(
        &id,
        &format!("{n:02x}{n:02x}{n:02x}{n:02x}-0000-4000-8000-0000000000{n:02x}"),
    )
}

/// The published sandwich in our stdout format: parent A, child, parent B.
fn sandwich() -> [String; 3] {
    ["parent_a.txt", "child.txt", "parent_b.txt"].map(published)
}

#[test]
fn published_sandwich_from_our_stdout() {
    let [a, b, c] = sandwich();
    let Run { code, out, err } = run(&["compare", &a, &b, &c]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    // The report's figures: A 180.079, child 196.647, B 179.856 ns/pair.
    let means: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("  pass  "))
        .map(|l| l.split_whitespace().nth(3).unwrap())
        .collect();
    assert_eq!(means, ["180.079", "196.647", "179.856"]);
    assert_eq!(field(&out, "change"), "+9.268%");
    assert_eq!(field(&out, "drop-first"), "+9.269%");
    assert_eq!(field(&out, "control drift"), "-0.124%");
    assert_eq!(field(&out, "max CV"), "0.169%");
    // Within points (Welch over rounds), cross-checked with mpmath: df
    // 19.488, t 2.089481.
    assert_contains(
        &out,
        &[
            "within-point    +9.159% .. +9.377%  95% CI\n",
            "Welch, df 19.5, 15 vs 30 rounds",
        ],
    );
    // Between points: the parents' means 180.079 and 179.856 (s^2
    // 0.0248645) stand for the child's one point too: var s^2 (1/2 + 1)
    // on 1 df, t 12.706205: +-2.4539 ns, +-1.3635% of 179.9675.
    assert_contains(
        &out,
        &[
            "between-point   +7.905% .. +10.632%  95% CI\n",
            "Welch, df 1.0, 1 vs 2 points",
            "verdict         CONFIRMED at the 5.000% gate",
        ],
    );
    // The paragraph names kernels and boots and says what the verdict is.
    let para = out.split("To paste:").nth(1).unwrap();
    for s in [
        "kernel 6.15.0-synthetic-child",
        "boot 0a0a0a0a.",
        "each on its own boot",
        "16384 pairs per round",
        "+9.268%",
        "95% CI within points +9.159% to +9.377%, Welch, 15 vs 30 rounds;",
        "between points +7.905% to +10.632%, 1 vs 2 points);",
        "Verdict: CONFIRMED at the 5.000% gate.",
    ] {
        assert!(para.replace('\n', " ").contains(s), "{s:?} in {para}");
    }
}

#[test]
fn every_input_format_gives_the_same_numbers() {
    let stdout = [
        published("parent_a.txt"),
        published("child.txt"),
        published("parent_b.txt"),
    ];
    let formal = [
        published("parent_a.tsv"),
        published("child.tsv"),
        published("parent_b.tsv"),
    ];
    let mixed = [
        published("parent_a.tsv"),
        published("child_standalone.txt"),
        published("parent_b.txt"),
    ];
    let mut rows = Vec::new();
    for files in [&stdout, &formal, &mixed] {
        let Run { code, out, err } = run(&["compare", "--tsv", &files[0], &files[1], &files[2]]);
        assert_eq!((code, err.as_str()), (0, ""), "{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        let head: Vec<&str> = lines[0].split('\t').collect();
        let row: Vec<&str> = lines[1].split('\t').collect();
        assert_eq!(head.len(), row.len());
        let get = |name: &str| row[head.iter().position(|h| *h == name).unwrap()].to_string();
        rows.push((get("implementation"), {
            let mut v: Vec<String> = [
                "control_means",
                "test_means",
                "change_pct",
                "within_ci95_low_pct",
                "within_ci95_high_pct",
                "between_ci95_low_pct",
                "between_ci95_high_pct",
                "between_df",
                "drop_first_pct",
                "control_drift_pct",
                "max_cv_pct",
                "confirmed",
                "reasons",
            ]
            .iter()
            .map(|n| get(n))
            .collect();
            v.push(get("profile"));
            v
        }));
    }
    assert_eq!(rows[0].0, "uring-repro");
    assert_eq!(rows[1].0, "the formal C reproducer");
    assert_eq!(rows[2].0, "mixed tools");
    let want = [
        "180.079000,179.856000",
        "196.647000",
        "9.268062",
        "9.159408",
        "9.376716",
        "7.904556",
        "10.631569",
        "1.000000",
        "9.268896",
        "-0.123835",
        "0.168885",
        "yes",
        "-",
        "s0_wait_wake",
    ];
    for (_, r) in &rows {
        assert_eq!(r, &want);
    }
}

#[test]
fn labelled_series_and_a_plain_ratio() {
    let (a, b, c) = (
        published("parent_a.tsv"),
        published("child.tsv"),
        published("parent_b.txt"),
    );
    let Run { code, out, .. } = run(&[
        "compare",
        &format!("base={a}"),
        &format!("patch={b}"),
        &format!("full={}", published("child_standalone.txt")),
        &format!("base={c}"),
    ]);
    assert_eq!(code, 0, "{out}");
    assert_narrow(&out);
    assert!(
        out.contains("\npatch vs base\n") && out.contains("\nfull vs base\n"),
        "{out}"
    );
    // Two plain files: a ratio, stated as having no drift.
    let Run { code, out, .. } = run(&["compare", &a, &b]);
    assert_eq!(code, 0);
    assert_eq!(field(&out, "change"), "+9.200%"); // 196.647 / 180.079
    assert_eq!(field(&out, "control drift"), "n/a");
    assert_contains(&out, &["no drift: one control boot (run A B A)"]);
    // One point a label: no between-point interval, and the text says what
    // the claim rests on.
    assert!(
        out.contains(
            "  between-point   n/a (one point per label): the claim rests\n                  \
             on the within-point interval only\n"
        ),
        "{out}"
    );
    let para = out.split("To paste:").nth(1).unwrap().replace('\n', " ");
    assert_contains(&para, &["between points n/a, one point per label: the claim rests on the within-point interval only"]);
    // One file: just its statistics.
    let Run { code, out, .. } = run(&["compare", &a]);
    assert_eq!(code, 0);
    assert!(out.contains("180.079") && !out.contains(" vs "), "{out}");
}

#[test]
fn failed_checks_exit_1_and_say_so() {
    let dir = Scratch::new("failed");
    let bad = write(
        &dir,
        "bad.txt",
        "round\tpairs\tns_per_pair\tsemantic_pass\n0\t16384\t200.0\t1\n1\t16384\t201.0\t0\n\
         mean\t32768\t200.5\t0\n",
    );
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    let Run { code, out, err } = run(&["compare", &a, &bad, &c]);
    assert_eq!(code, 1, "{out}");
    assert_contains(
        &out,
        &[
            "FAIL    ",
            "point 2 FAILED: 1 round(s) with semantic_pass 0, run FAIL",
            "a point failed its checks",
        ],
    );
    assert_eq!(
        err,
        "uring-repro: compare: 1 point(s) failed their checks: not evidence (see the table)\n"
    );
}

#[test]
fn unusable_input_exits_2_naming_file_and_line() {
    let dir = Scratch::new("bad-input");
    let a = published("parent_a.txt");
    let cases = [
        ("empty.txt", "", ": empty file"),
        ("junk.txt", "# hi\n{\"x\": 1}\n", ":2: not a result of uring-repro, the C standalone or the formal C reproducer: `{\"x\": 1}`"),
        ("cells.txt", "round\tpairs\tns_per_pair\tsemantic_pass\n0\t64\tfast\t1\n", ":2: ns_per_pair is not a positive decimal number: `fast`"),
        ("cut.txt", "round\tpairs\tns_per_pair\tsemantic_pass\n0\t64\t1.0\t1\n", ": no mean row (was the run cut short?)"),
    ];
    for (name, text, why) in cases {
        let f = write(&dir, name, text);
        let Run { code, out, err } = run(&["compare", &a, &f, &a]);
        assert_eq!((code, out.as_str()), (2, ""), "{name}");
        assert_eq!(err, format!("uring-repro: {f}{why}\n"), "{name}");
    }
    let missing = dir.join("missing.txt").to_string_lossy().into_owned();
    let Run { code, err, .. } = run(&["compare", &missing]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("uring-repro: {missing}: cannot read: ENOENT (2)\n")
    );
    let Run { code, err, .. } = run(&["compare", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.ends_with(": cannot read: EISDIR (21)\n"), "{err}");
    // Another workload in one of the files.
    let v0 = write(
        &dir,
        "v0.txt",
        &std::fs::read_to_string(&a)
            .unwrap()
            .replace("profile=s0_wait_wake", "profile=v0_waitv"),
    );
    let Run { code, err, .. } = run(&["compare", &a, &v0, &a]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "uring-repro: {v0}: another profile than the first file's (one workload at a time): `v0_waitv`\n"
        )
    );
    // Exactly 4 MiB is read; one byte more is too much.
    let full = write(&dir, "full.txt", &"#\n".repeat(2 << 20));
    let Run { code, err, .. } = run(&["compare", &full]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("uring-repro: {full}: no result header (only comments)\n")
    );
    let big = write(&dir, "big.txt", &"#\n".repeat((2 << 20) + 1));
    let Run { code, err, .. } = run(&["compare", &big]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("uring-repro: {big}: the files exceed 4 MiB together (compare's limit)\n")
    );
    let Run { code, err, .. } = run(&["compare"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "uring-repro: compare: needs at least one result file (see --help)\n"
    );
    let Run { code, out, .. } = run(&["compare", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("compare [--gate PCT | --gate-insn INSN] [--tsv]"));
    let Run { code, err, .. } = run(&["compare", "--gate", "0", &a]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "uring-repro: compare: --gate 0: needs a percentage in (0, 100], at most 3 decimals\n"
    );
}

/// The end-to-end path: three real runs on this kernel, saved as a user
/// would (`uring-repro --smoke > a.txt`), then compared.
#[test]
fn three_real_smoke_runs_compare_end_to_end() {
    let dir = Scratch::new("e2e");
    let mut files = Vec::new();
    let mut means = Vec::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        let Some(Run { code, out, err }) = ran(&["--smoke", "--rounds", "3"]) else {
            return;
        };
        assert_eq!(code, 0, "{err}");
        // The per-cycle distribution is in the summary, ordered.
        let dist = line(&out, "# per_cycle_ns_per_pair: ");
        let q: Vec<f64> = dist
            .split_whitespace()
            .filter_map(|w| w.split_once('='))
            .filter(|(k, _)| k.starts_with('p') || *k == "max")
            .map(|(_, v)| v.parse().unwrap())
            .collect();
        assert_eq!(q.len(), 5, "{dist}");
        assert!(q.windows(2).all(|w| w[0] <= w[1]) && q[0] > 0.0, "{dist}");
        assert!(dist.ends_with(" cycles=6"), "{dist}");
        let mean_row = line(&out, "mean\t");
        let mean: f64 = mean_row.split('\t').nth(2).unwrap().parse().unwrap();
        means.push(mean);
        files.push(write(&dir, name, &out));
    }
    // All three come from this boot: not independent, refused as A B A.
    let Run { code, err, .. } = run(&["compare", &files[0], &files[1], &files[2]]);
    assert_eq!(code, 2);
    assert_contains(&err, &[": points of one boot are not independent\n"]);
    // Each made to look like its own boot, the rounds as measured.
    for (i, f) in files.iter().enumerate() {
        let text = own_boot(&std::fs::read_to_string(f).unwrap(), i as u8 + 1);
        std::fs::write(f, text).unwrap();
    }
    let Run { code, out, err } = run(&["compare", &files[0], &files[1], &files[2]]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    let shown: Vec<f64> = out
        .lines()
        .filter(|l| l.contains("  pass  "))
        .map(|l| l.split_whitespace().nth(3).unwrap().parse().unwrap())
        .collect();
    // Three decimals of each run's own mean row (rounding aside).
    assert_eq!(shown.len(), 3, "{out}");
    for (s, m) in shown.iter().zip(&means) {
        assert!((s - m).abs() <= 0.000_501, "{s} vs {m}\n{out}");
    }
    for f in ["change", "drop-first", "control drift", "max CV", "verdict"] {
        field(&out, f);
    }
    // The boot ids differ now: separate boots are claimed.
    assert_contains(&out, &["its own boot"]);
    let Run { code, out: tsv, .. } = run(&["compare", "--tsv", &files[0], &files[1], &files[2]]);
    assert_eq!(code, 0);
    assert_eq!(tsv.lines().count(), 2, "{tsv}");
    assert!(tsv
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("uring-repro\ts0_wait_wake\tA\tB\t2\t1\t"));
}

/// The widest case: 16 points, 12-byte labels, long kernel releases and
/// file names. Every line still fits, and the paragraph is whole.
#[test]
fn sixteen_points_stay_within_72_columns() {
    let dir = Scratch::new("wide");
    let base = std::fs::read_to_string(published("parent_a.txt")).unwrap();
    let mut args = vec!["compare".to_string()];
    for i in 0..16 {
        let text = base
            .replace(
                "kernel=6.15.0-synthetic-parent",
                &format!("kernel=6.15.0-rc{i}-00123-g079afb081c42-a-rather-long-local-version"),
            )
            .replace("0a0a0a0a-", &format!("{i:08x}-"));
        let name = format!("a-long-file-name-for-point-{i:02}.txt");
        args.push(format!("label_{:06}={}", i % 5, write(&dir, &name, &text)));
    }
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let Run { code, out, err } = run(&args);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    let headings = out
        .lines()
        .filter(|l| l.starts_with("label_") && l.ends_with(" vs label_000000"));
    assert_eq!(headings.count(), 4, "{out}");
    let para = out.split("To paste:").nth(1).unwrap();
    assert_contains(para, &["Point 16 (label_000000)"]);
    // Whole: every comparison's verdict, to its last reason.
    assert_eq!(para.matches("Verdict: ").count(), 4, "{para}");
    assert!(para.trim_end().ends_with("includes 0."), "{para}");
}

/// `--drop-first`'s header, a 5000-character kernel release and profile,
/// a path in a deep directory: every line still fits.
#[test]
fn drop_first_and_long_values_stay_within_72_columns() {
    let [a, b, c] = sandwich();
    let Run { code, out, err } = run(&["compare", "--drop-first", &a, &b, &c]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert!(out.starts_with("uring-repro compare: 3 point(s), gate 5.000%, first round"));
    let dir = Scratch::new("long-values");
    let deep = dir.join("a-directory-of-points-with-a-name-long-enough-to-wrap".repeat(3));
    std::fs::create_dir_all(&deep).unwrap();
    let long = "y".repeat(5000);
    let text = std::fs::read_to_string(&b)
        .unwrap()
        .replace("kernel=6.15.0-synthetic-child", &format!("kernel={long}"))
        .replace("profile=s0_wait_wake", &format!("profile=s0_{long}"));
    let b = write(&deep, "child.txt", &text);
    let a = write(
        &deep,
        "parent_a.txt",
        &std::fs::read_to_string(&a)
            .unwrap()
            .replace("profile=s0_wait_wake", &format!("profile=s0_{long}")),
    );
    let Run { code, out, err } = run(&["compare", "--drop-first", &a, &b]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    let para = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        para.contains(&format!("kernel {}...", &long[..61])),
        "{out}"
    );
}

#[test]
fn pollwake_runs_compare_one_mode_at_a_time() {
    let dir = Scratch::new("pollwake");
    let mut files = Vec::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        let Some(Run { code, out, err }) =
            ran(&["--profile", "pollwake", "--smoke", "--rounds", "2"])
        else {
            return;
        };
        assert_eq!(code, 0, "{err}");
        let n = files.len() as u8 + 1;
        files.push(write(&dir, name, &own_boot(&out, n)));
    }
    let (a, b, c) = (&files[0][..], &files[1][..], &files[2][..]);
    // Several modes in one table: compare must be told which.
    let Run { code, err, .. } = run(&["compare", a, b, c]);
    assert_eq!(code, 2);
    assert_contains(&err, &["pick one with --mode none|idle|waiter|none_aa"]);
    for (mode, profile) in [("none", "pollwake_none"), ("waiter", "pollwake_waiter")] {
        let Run { code, out, err } = run(&["compare", "--mode", mode, a, b, c]);
        assert_eq!((code, err.as_str()), (0, ""), "{out}");
        assert_contains(&out, &[&format!("profile {profile},")]);
        // Three points of two rounds each (the rounds column of the table).
        let rounds: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("  pass  "))
            .map(|l| l.split_whitespace().nth(2).unwrap())
            .collect();
        assert_eq!(rounds, ["2", "2", "2"], "{out}");
    }
    // A mode no profile has: a usage error naming them.
    let Run { code, err, .. } = run(&["compare", "--mode", "bogus", a, b, c]);
    assert_eq!(code, 2);
    assert_contains(&err, &["none, idle, waiter or none_aa"]);
    // --mode on a futex workload's result is a usage error too.
    let Some(s0) = ran(&["--smoke"]) else {
        return;
    };
    assert_eq!(s0.code, 0, "{}", s0.err);
    let f = write(&dir, "s0.txt", &s0.out);
    let Run { code, err, .. } = run(&["compare", "--mode", "idle", &f, &f]);
    assert_eq!(code, 2);
    assert_contains(&err, &["--mode applies to a table of several modes only"]);
}
