//! `uring-repro compare` as a user runs it: the published sandwich from
//! synthetic fixtures in every input format, the error paths with their exit
//! codes, and three real `--smoke` runs compared end to end.

mod utils;

use std::path::Path;

use utils::{assert_narrow, fields, icount, line, published, ran, run, Run, Scratch};

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

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// The value after `label` on its line of the text report.
fn field<'a>(text: &'a str, label: &str) -> &'a str {
    let l = text
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} line in\n{text}"));
    l.trim_start()[label.len()..]
        .split_whitespace()
        .next()
        .unwrap()
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
    assert!(
        out.contains("within-point    +9.159% .. +9.377%  95% CI\n"),
        "{out}"
    );
    assert!(out.contains("Welch, df 19.5, 15 vs 30 rounds"), "{out}");
    // Between points: the parents' means 180.079 and 179.856 (s^2
    // 0.0248645) stand for the child's one point too: var s^2 (1/2 + 1)
    // on 1 df, t 12.706205: +-2.4539 ns, +-1.3635% of 179.9675.
    assert!(
        out.contains("between-point   +7.905% .. +10.632%  95% CI\n"),
        "{out}"
    );
    assert!(out.contains("Welch, df 1.0, 1 vs 2 points"), "{out}");
    assert!(
        out.contains("verdict         CONFIRMED at the 5.000% gate"),
        "{out}"
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
    assert!(
        out.contains("no drift: one control boot (run A B A)"),
        "{out}"
    );
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
    assert!(
        para.contains("between points n/a, one point per label: the claim rests on the within-point interval only"),
        "{para}"
    );
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
    assert!(out.contains("FAIL    "), "{out}");
    assert!(
        out.contains("point 2 FAILED: 1 round(s) with semantic_pass 0, run FAIL"),
        "{out}"
    );
    assert!(out.contains("a point failed its checks"), "{out}");
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
    assert!(out.contains("compare [--gate PCT] [--tsv] [--drop-first] [--mode M]"));
    let Run { code, err, .. } = run(&["compare", "--gate", "0", &a]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "uring-repro: compare: --gate 0: needs a percentage in (0, 100]\n"
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
    assert!(
        err.contains(": points of one boot are not independent\n"),
        "{err}"
    );
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
    assert!(out.contains("its own boot"), "{out}");
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
    assert!(para.contains("Point 16 (label_000000)"), "{para}");
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
    assert!(
        err.contains("pick one with --mode none|idle|waiter|none_aa"),
        "{err}"
    );
    for (mode, profile) in [("none", "pollwake_none"), ("waiter", "pollwake_waiter")] {
        let Run { code, out, err } = run(&["compare", "--mode", mode, a, b, c]);
        assert_eq!((code, err.as_str()), (0, ""), "{out}");
        assert!(out.contains(&format!("profile {profile},")), "{out}");
        // Three points of two rounds each (the rounds column of the table).
        let rounds: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("  pass  "))
            .map(|l| l.split_whitespace().nth(2).unwrap())
            .collect();
        assert_eq!(rounds, ["2", "2", "2"], "{out}");
    }
    let Run { code, err, .. } = run(&["compare", "--mode", "bogus", a, b, c]);
    assert_eq!(code, 2);
    assert!(err.contains("none, idle, waiter or none_aa"), "{err}");
    // --mode on a futex workload's result is a usage error too.
    let Some(s0) = ran(&["--smoke"]) else {
        return;
    };
    assert_eq!(s0.code, 0, "{}", s0.err);
    let f = write(&dir, "s0.txt", &s0.out);
    let Run { code, err, .. } = run(&["compare", "--mode", "idle", &f, &f]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--mode applies to pollwake results only"),
        "{err}"
    );
}

/// Our TSV of the published child with the `rounds_planned` column (15),
/// its first `keep` measured rows, the last of them failed when `fail`
/// (the contract hash ours writes, where the formal tool's is zeros).
fn child_tsv(keep: usize, fail: bool) -> String {
    let formal = std::fs::read_to_string(published("child.tsv"))
        .unwrap()
        .replace(&"0".repeat(64), CONTRACT);
    let mut out = String::new();
    let mut measured = 0;
    for (i, l) in formal.lines().enumerate() {
        if i == 0 {
            out += &format!("{l}\ttool_version\trounds_planned\n");
            continue;
        }
        if l.contains("\tmeasured\t") {
            measured += 1;
            if measured > keep {
                break;
            }
        }
        let l = match fail && measured == keep {
            // semantic_pass is the third cell from the end.
            true => l.replace("\t2\t1\t4038", "\t2\t0\t4038"),
            false => l.to_string(),
        };
        out += &format!("{l}\t0.1.0\t15\n");
    }
    out
}

#[test]
fn a_whole_run_is_a_point_a_cut_one_is_refused_a_failed_one_is_invalid() {
    let dir = Scratch::new("cut");
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    // All 15 rounds of the 15 planned: the published numbers.
    let whole = write(&dir, "whole.tsv", &child_tsv(15, false));
    let Run { code, out, err } = run(&["compare", &a, &whole, &c]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(field(&out, "change"), "+9.268%");
    // Killed after 14: every row passed, no trailer.
    let killed = write(&dir, "killed.tsv", &child_tsv(14, false));
    let Run { code, out, err } = run(&["compare", &a, &killed, &c]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!("uring-repro: {killed}: interrupted run: 14 of 15 rounds\n")
    );
    // Failed in round 6 (the run stops there): a point, an invalid one.
    let failed = write(&dir, "failed.tsv", &child_tsv(7, true));
    let Run { code, out, err } = run(&["compare", &a, &failed, &c]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("point 2 FAILED: 1 round(s) with semantic_pass 0"),
        "{out}"
    );
    // An older TSV (no rounds_planned) of 14 rounds is read as before.
    let old: String = child_tsv(14, false)
        .lines()
        .map(|l| format!("{}\n", l.rsplit_once('\t').unwrap().0))
        .collect();
    let old = write(&dir, "old.tsv", &old);
    let Run { code, out, err } = run(&["compare", &a, &old, &c]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(out.contains("  2  B                14  "), "{out}");
}

/// A witnessed run (tracepoints on around its rounds) is not comparable
/// with plain ones: refused, naming the first point that differs.
#[test]
fn witnessed_and_plain_points_are_not_mixed() {
    let dir = Scratch::new("witness-mix");
    let a = std::fs::read_to_string(published("parent_a.txt")).unwrap();
    let first = a.lines().find(|l| l.starts_with("# uring-repro ")).unwrap();
    let witnessed = a.replacen(first, &format!("{first} witness=on"), 1);
    let w = write(&dir, "witnessed.txt", &witnessed);
    let (b, c) = (published("child.txt"), published("parent_b.txt"));
    let Run { code, out, err } = run(&["compare", &b, &w, &c]);
    assert_eq!(code, 2, "{out}");
    assert_eq!(
        err,
        format!(
            "uring-repro: {w}: a witnessed run beside plain ones (enabled tracepoints cost \
             time: compare like with like)\n"
        )
    );
    // All witnessed, or all plain: compared as usual.
    let c_text = std::fs::read_to_string(&c).unwrap();
    let first_c = c_text
        .lines()
        .find(|l| l.starts_with("# uring-repro "))
        .unwrap();
    let w2 = write(
        &dir,
        "witnessed2.txt",
        &c_text.replacen(first_c, &format!("{first_c} witness=on"), 1),
    );
    assert_eq!(run(&["compare", &w, &w2]).code, 0);
}

/// Points of different contracts are never compared: every field the
/// banners (or TSV columns) state must agree, and the error names the
/// field, both values and the file it disagrees with. A point that states
/// less (the formal C reproducer's TSV) is checked on what it states; no
/// `timebase` word means wall time, no `inject_ns` in our banner none.
#[test]
fn points_of_different_contracts_are_refused() {
    let dir = Scratch::new("contract");
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    let child = std::fs::read_to_string(published("child.txt")).unwrap();
    let why = "another contract (compare like with like)";
    for (i, (from, to, said)) in [
        ("futex=private", "futex=shared", format!("futex=shared beside futex=private in {a}: {why}")),
        (" clock=vdso\n", " clock=vdso inject_ns=100\n", format!("inject_ns=100 beside inject_ns=0 in {a}: {why}")),
        ("warmups=3", "warmups=0", format!("warmups=0 beside warmups=3 in {a}: {why}")),
        (" cpu=2 ", " cpu=3 ", format!("cpu=3 beside cpu=2 in {a}: {why}")),
        ("slots=32", "slots=16", format!("slots=16 beside slots=32 in {a}: {why}")),
        ("cycles=512", "cycles=256", format!("cycles=256 beside cycles=512 in {a}: {why}")),
        ("timeout_s=2", "timeout_s=5", format!("timeout_s=5 beside timeout_s=2 in {a}: {why}")),
        ("input_sha256=4", "input_sha256=5", format!("input_sha256=5{} beside input_sha256=4{} in {a}: {why}", &CONTRACT[1..], &CONTRACT[1..])),
        (
            " clock=vdso\n",
            " clock=vdso timebase=icount\n",
            format!("timebase=icount beside timebase=wall in {a}: icount counts guest instructions, not time (compare like with like)"),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(child.contains(from), "{from}");
        let b = write(&dir, &format!("b{i}.txt"), &child.replacen(from, to, 1));
        let Run { code, out, err } = run(&["compare", &a, &b, &c]);
        assert_eq!((code, out.as_str()), (2, ""), "{to}");
        assert_eq!(err, format!("uring-repro: {b}: {said}\n"));
    }
    // The formal TSV states cycles (and no futex scope, inject_ns or
    // warm-ups): checked on that.
    let formal = std::fs::read_to_string(published("child.tsv")).unwrap();
    let b = write(
        &dir,
        "b.tsv",
        &formal.replace("\t512\t16384\t", "\t256\t16384\t"),
    );
    let Run { code, err, .. } = run(&["compare", &a, &b, &c]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("uring-repro: {b}: cycles=256 beside cycles=512 in {a}: {why}\n")
    );
    // Our TSV's timebase column: icount beside a wall-clock stdout point.
    let ours: String = formal
        .lines()
        .enumerate()
        .map(|(i, l)| {
            format!(
                "{l}\t{}\n",
                ["tool_version\ttimebase", "0.1.0\ticount"][(i > 0) as usize]
            )
        })
        .collect();
    let b = write(&dir, "icount.tsv", &ours);
    let Run { code, err, .. } = run(&["compare", &a, &b, &c]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "uring-repro: {b}: timebase=icount beside timebase=wall in {a}: "
        )),
        "{err}"
    );
    // The same contract stated twice ways: compared.
    let wall = write(
        &dir,
        "wall.txt",
        &child.replacen(" clock=vdso\n", " clock=vdso timebase=wall\n", 1),
    );
    assert_eq!(run(&["compare", &a, &wall, &c]).code, 0);
    let b = write(
        &dir,
        "b.txt",
        &child.replacen(" clock=vdso\n", " clock=vdso inject_ns=0\n", 1),
    );
    assert_eq!(run(&["compare", &a, &b, &c]).code, 0);
}

/// The published points' contract hash.
const CONTRACT: &str = "40383f68e91cc249d50cd7cb5170861f61d6f0991bf93c2dbf6edd549520f072";

/// Points from one boot are not independent. The same file twice is
/// refused; so is one boot under two labels, or as both parents of a plain
/// sandwich. One boot twice within a label (a run's stdout beside its own
/// --tsv) counts once in the between-point spread, and the text says so.
#[test]
fn a_boot_counts_once() {
    let [a, b, c] = sandwich();
    // The published parent twice: no drift, no spread, CONFIRMED before.
    let Run { code, out, err } = run(&["compare", &a, &b, &a]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!("uring-repro: {a}: the same file as {a} (a point counts once)\n")
    );
    // A run's stdout and its TSV (one boot) as the two parents.
    let a_tsv = published("parent_a.tsv");
    let Run { code, err, .. } = run(&["compare", &a, &b, &a_tsv]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "uring-repro: {a_tsv}: boot 0a0a0a0a-0000-4000-8000-000000000001 is also {a}'s: \
             the parents of a sandwich need a boot each\n"
        )
    );
    // One boot under two labels.
    let dir = Scratch::new("one-boot");
    let same_boot = write(
        &dir,
        "child-on-a.txt",
        &std::fs::read_to_string(&b).unwrap().replace(
            "0c0c0c0c-0000-4000-8000-000000000002",
            "0a0a0a0a-0000-4000-8000-000000000001",
        ),
    );
    let Run { code, err, .. } = run(&[
        "compare",
        &format!("base={a}"),
        &format!("patch={same_boot}"),
        &format!("base={c}"),
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "uring-repro: {same_boot}: boot 0a0a0a0a-0000-4000-8000-000000000001 is also {a}'s, \
             under another label: points of one boot are not independent\n"
        )
    );
    // Within one label: the stdout and the TSV of parent A are one boot,
    // so the control is the midpoint of two boots, as in the published
    // sandwich: the same figures, to the last digit.
    let Run { code, out, err } = run(&[
        "compare",
        &format!("base={a}"),
        &format!("base={a_tsv}"),
        &format!("patch={b}"),
        &format!("base={c}"),
    ]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert_eq!(field(&out, "change"), "+9.268%");
    assert!(out.contains("control, midpoint of 2 boots\n"), "{out}");
    assert!(
        out.contains("between-point   +7.905% .. +10.632%  95% CI\n"),
        "{out}"
    );
    assert!(out.contains("Welch, df 1.0, 1 vs 2 boots\n"), "{out}");
    assert!(
        out.contains("  one boot        points 1 and 2 (counted once)\n"),
        "{out}"
    );
    let para = out.split("To paste:").nth(1).unwrap().replace('\n', " ");
    assert!(
        para.contains("Points 1 and 2 share a boot (0a0a0a0a): counted once between points."),
        "{para}"
    );
    assert!(
        para.contains("(midpoint of 2 boots, 179.968 ns/pair)"),
        "{para}"
    );
    // Fifteen runs of one boot under one label: one boot, and the line
    // naming them still fits.
    let dir = Scratch::new("one-boot-15");
    let text = std::fs::read_to_string(&a).unwrap();
    let mut args = vec!["compare".to_string()];
    for i in 0..15 {
        let copy = format!("# run {i} of this boot\n{text}");
        args.push(format!(
            "base={}",
            write(&dir, &format!("run{i}.txt"), &copy)
        ));
    }
    args.push(format!("patch={b}"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Run { code, out, err } = run(&args);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert!(out.contains("control, 1 boot\n"), "{out}");
    assert!(out.contains("  one boot        points 1, 2, 3,"), "{out}");
}

/// The published point `name` cut to its first round (the banner says
/// `rounds=1`), in `dir`.
fn one_round(dir: &Path, name: &str) -> String {
    let text = std::fs::read_to_string(published(name)).unwrap();
    let mut out = String::new();
    for l in text.lines() {
        let cells: Vec<&str> = l.split('\t').collect();
        match cells[0] {
            "0" => out += &format!("{l}\n"),
            "mean" => {
                out += &format!(
                    "mean\t16384\t{}\t1\n",
                    line(&text, "0\t").split('\t').nth(2).unwrap()
                )
            }
            c if c.parse::<u32>().is_ok() => {}
            _ => out += &format!("{}\n", l.replace("rounds=15", "rounds=1")),
        }
    }
    write(dir, name, &out)
}

/// One-round points: `--drop-first` would leave nothing and is refused;
/// without it, what needs two rounds (the within-point interval, drop-first,
/// a CV) reads n/a with the reason, never `nan`, and the verdict is NOT
/// CONFIRMED for that reason alone.
#[test]
fn one_round_points_never_give_nan() {
    let dir = Scratch::new("one-round");
    let (a, b, c) = (
        one_round(&dir, "parent_a.txt"),
        one_round(&dir, "child.txt"),
        one_round(&dir, "parent_b.txt"),
    );
    for extra in [&["--drop-first"][..], &["--drop-first", "--tsv"]] {
        let mut args = vec!["compare"];
        args.extend(extra);
        args.extend([&a[..], &b, &c]);
        let Run { code, out, err } = run(&args);
        assert_eq!((code, out.as_str()), (2, ""), "{extra:?}");
        assert_eq!(
            err,
            format!("uring-repro: {a}: 1 round: --drop-first leaves none (it needs 2 or more)\n")
        );
    }
    let Run { code, out, err } = run(&["compare", &a, &b, &c]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert!(!out.contains("nan"), "{out}");
    assert!(
        out.contains("  within-point    n/a (a point has 1 round)\n"),
        "{out}"
    );
    assert!(out.contains("between-point   "), "{out}");
    assert_eq!(field(&out, "drop-first"), "n/a");
    assert_eq!(field(&out, "max CV"), "n/a");
    assert!(
        out.contains("verdict         NOT CONFIRMED at the 5.000% gate:\n                  a point has 1 round: no drop-first, no spread\n"),
        "{out}"
    );
    let para = out.split("To paste:").nth(1).unwrap().replace('\n', " ");
    assert!(para.contains("over 1 round, CV n/a"), "{para}");
    assert!(
        para.contains("95% CI within points n/a, a point has 1 round; between points"),
        "{para}"
    );
    let Run { code, out, .. } = run(&["compare", "--tsv", &a, &b, &c]);
    assert_eq!(code, 0);
    assert!(!out.contains("nan"), "{out}");
    assert!(
        out.lines().nth(1).unwrap().contains("\tno\tfew_rounds\t"),
        "{out}"
    );
    let Run { code, out, .. } = run(&[
        "report",
        &format!("A={a}"),
        &format!("B={b}"),
        &format!("A={c}"),
    ]);
    assert_eq!(code, 0);
    assert_narrow(&out);
    assert!(!out.contains("nan"), "{out}");
}

/// Points on QEMU TCG's instruction clock: exact across boots. Zero spread
/// reads as exact (no NaN, no `inf`), a change clear of zero but under the
/// gate is named as such, the unchanged NOP control reads "no change", and
/// every figure is in instructions, never ns.
#[test]
fn icount_points_are_exact_and_counted_in_instructions() {
    let (p1, c1, p2, c2) = (
        icount("s0_parent_1.txt"),
        icount("s0_child_1.txt"),
        icount("s0_parent_2.txt"),
        icount("s0_child_2.txt"),
    );
    let args = [
        format!("parent={p1}"),
        format!("child={c1}"),
        format!("parent={p2}"),
        format!("child={c2}"),
    ];
    let mut argv = vec!["compare"];
    argv.extend(args.iter().map(String::as_str));
    let Run { code, out, err } = run(&argv);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    for bad in ["nan", "df inf", "inf%", " ns/pair"] {
        assert!(!out.contains(bad), "{bad:?} in\n{out}");
    }
    assert!(
        out.contains("  parent            1500.745 insn/pair  control, midpoint of 2 points\n"),
        "{out}"
    );
    assert_eq!(field(&out, "change"), "+3.865%");
    assert!(
        out.contains("  between-point   +3.865% exact (no spread)\n                  identical across 2 vs 2 boots\n"),
        "{out}"
    );
    assert!(
        out.contains("NOT CONFIRMED at the 5.000% gate:\n                  |change| is under the gate, though clear of zero\n"),
        "{out}"
    );
    let para = out
        .split("To paste:")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for s in [
        "so every figure is guest instructions per pair (user + kernel), not time.",
        "Point 1 (parent): 1500.745 instructions/pair over 15 rounds",
        "child vs parent (midpoint of 2 points, 1500.745 instructions/pair): +3.865%",
        "between points +3.865% exact, identical across 2 vs 2 boots)",
    ] {
        assert!(para.contains(s), "{s:?} in {para}");
    }
    // At a gate the change clears: CONFIRMED.
    let mut gated = vec!["compare", "--gate", "1"];
    gated.extend(args.iter().map(String::as_str));
    let Run { code, out, .. } = run(&gated);
    assert_eq!(code, 0);
    assert!(
        out.contains("verdict         CONFIRMED at the 1.000% gate\n"),
        "{out}"
    );
    // The TSV: exact intervals have no df (NA), and the timebase is named.
    let mut tsv = vec!["compare", "--tsv"];
    tsv.extend(args.iter().map(String::as_str));
    let Run { code, out, .. } = run(&tsv);
    assert_eq!(code, 0);
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    let get = |name: &str| lines[1][lines[0].iter().position(|h| *h == name).unwrap()];
    assert_eq!(
        (
            get("between_ci95_low_pct"),
            get("between_ci95_high_pct"),
            get("between_df")
        ),
        ("3.864768", "3.864768", "NA")
    );
    assert_eq!(
        (get("timebase"), get("reasons")),
        ("icount", "under_gate,second_under_gate")
    );
    assert!(!out.contains("nan") && !out.contains("\tinf"), "{out}");
    // n0, the NOP control, on both kernels: no change, said so.
    let Run { code, out, err } =
        run(&["compare", &icount("n0_parent.txt"), &icount("n0_child.txt")]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_narrow(&out);
    assert!(
        out.contains("  change          0.000%  (no change)\n"),
        "{out}"
    );
    assert!(
        out.contains("  within-point    0.000% exact (no spread)\n                  every round alike, 15 vs 15 rounds\n"),
        "{out}"
    );
    assert!(
        out.contains("NOT CONFIRMED at the 5.000% gate:\n                  no drift: one control boot (run A B A)\n                  no change: the values are identical\n"),
        "{out}"
    );
    assert!(
        !out.contains("nan") && !out.contains("df inf") && !out.contains("other sign"),
        "{out}"
    );
    let Run { out, .. } = run(&[
        "compare",
        "--tsv",
        &icount("n0_parent.txt"),
        &icount("n0_child.txt"),
    ]);
    assert!(out.contains("\tno_drift,no_change\t"), "{out}");
}

/// An icount point beside a wall-clock one (the published parents):
/// refused, naming the timebase.
#[test]
fn icount_and_wall_clock_points_are_not_mixed() {
    let (a, c) = (published("parent_a.txt"), published("parent_b.txt"));
    let b = icount("s0_child_1.txt");
    let Run { code, out, err } = run(&["compare", &a, &b, &c]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "uring-repro: {b}: timebase=icount beside timebase=wall in {a}: icount counts \
             guest instructions, not time (compare like with like)\n"
        )
    );
}
