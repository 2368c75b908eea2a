//! `compare --bisect` as `git bisect run` calls it: the published parents
//! as good references, the published child as the bad one, and new points
//! made here: good, bad, half-way, failed, interrupted, missing; references
//! closer than the gate; a usage error. Exit codes 0, 1, 125, 128, and the
//! one stdout line.

mod utils;

use std::path::Path;

use utils::{published, run, with_stdout_full, Run, Scratch};

/// A uring-repro stdout point of 15 rounds around `ns`, the last round's
/// semantic_pass `last_pass`; `rounds` rows of 15 when it was interrupted.
fn point(dir: &Path, name: &str, ns: f64, last_pass: u8, rounds: usize) -> String {
    let mut t = String::from(
        "# uring-repro 0.1.0 profile=s0_wait_wake mode=point kernel=6.15.0-new \
         boot_id=0a0a0a0a-0000-4000-8000-0000000000ff cpu=2 cpu_choice=default clock=vdso\n\
         # ring_entries=64 cq_entries=128 slots=32 vector_width=1 cycles=512 warmups=3 \
         rounds=15 futex=private timeout_s=2\n\
         round\tpairs\tns_per_pair\tsemantic_pass\n",
    );
    let mut sum = 0.0;
    for r in 0..rounds {
        let v = ns + [0.05, -0.05, 0.1, -0.1, 0.0][r % 5];
        let pass = if r + 1 == rounds { last_pass } else { 1 };
        t += &format!("{r}\t16384\t{v:.6}\t{pass}\n");
        sum += v;
    }
    let done = rounds == 15;
    let label = if done { "mean" } else { "partial" };
    let pass = if last_pass == 1 { 1 } else { 0 };
    t += &format!(
        "{label}\t{}\t{:.6}\t{pass}\n",
        16384 * rounds,
        sum / rounds as f64
    );
    if !done {
        t += &format!("# interrupted: {rounds} of 15 rounds\n");
    }
    let verdict = match (done, last_pass) {
        (false, _) => "INTERRUPTED",
        (true, 1) => "PASS",
        _ => "FAIL",
    };
    t += &format!("# checks: made up -> {verdict}\n");
    let p = dir.join(name);
    std::fs::write(&p, t).unwrap();
    p.to_string_lossy().into_owned()
}

/// `compare --bisect` with the published references and `new`.
fn step(new: &str) -> Run {
    let (a, b, child) = (
        published("parent_a.txt"),
        published("parent_b.txt"),
        published("child.txt"),
    );
    run(&[
        "compare",
        "--bisect",
        &format!("good={a}"),
        &format!("good={b}"),
        &format!("bad={child}"),
        &format!("new={new}"),
    ])
}

#[test]
fn good_bad_and_half_way() {
    let d = Scratch::new("bisect-verdicts");
    for (ns, code, word) in [(180.2, 0, "good"), (196.3, 1, "bad"), (188.3, 125, "skip")] {
        let r = step(&point(&d, &format!("{ns}.txt"), ns, 1, 15));
        assert_eq!(r.code, code, "{ns}: {}{}", r.out, r.err);
        assert_eq!(r.out.lines().count(), 1, "{}", r.out);
        let line = r.out.trim_end();
        assert!(line.len() <= 72, "{} columns: {line}", line.len());
        let head = format!("bisect: {word}: new {ns:.2} (good 179.97, bad 196.65) at ");
        assert!(line.starts_with(&head), "{line}");
        if code == 0 {
            assert!(r.err.is_empty(), "{}", r.err);
        } else {
            assert_eq!(r.err.lines().count(), 1, "{}", r.err);
            assert!(
                r.err.starts_with("uring-repro: compare --bisect: "),
                "{}",
                r.err
            );
        }
    }
}

#[test]
fn a_new_point_that_cannot_be_judged_is_a_skip() {
    let d = Scratch::new("bisect-skip");
    let failed = point(&d, "failed.txt", 180.2, 0, 15);
    let interrupted = point(&d, "interrupted.txt", 180.2, 1, 3);
    let missing = d.file("missing.txt");
    for (new, why) in [
        (&failed, "failed its checks".to_string()),
        (&interrupted, "interrupted run: 3 of 15 rounds".to_string()),
        (&missing, "cannot read: ENOENT (2)".to_string()),
    ] {
        let r = step(new);
        assert_eq!(r.code, 125, "{new}: {}", r.err);
        assert!(r.out.is_empty(), "{}", r.out);
        assert_eq!(r.err, format!("uring-repro: {new}: {why}\n"));
    }
}

#[test]
fn unusable_references_stop_the_bisect() {
    let d = Scratch::new("bisect-stop");
    let new = point(&d, "new.txt", 180.2, 1, 15);
    // The two parents are 0.2% apart: no gate of 5% between them.
    let (a, b) = (published("parent_a.txt"), published("parent_b.txt"));
    let r = run(&[
        "compare",
        "--bisect",
        &format!("good={a}"),
        &format!("bad={b}"),
        &format!("new={new}"),
    ]);
    assert_eq!(r.code, 128, "{}", r.err);
    assert!(
        r.err.contains("the references are closer than the gate"),
        "{}",
        r.err
    );
    // A reference that failed its checks, and one that cannot be read.
    let failed = point(&d, "failed-ref.txt", 196.6, 0, 15);
    let missing = d.file("missing-ref.txt");
    for bad in [&failed, &missing] {
        let r = run(&[
            "compare",
            "--bisect",
            &format!("good={a}"),
            &format!("bad={bad}"),
            &format!("new={new}"),
        ]);
        assert_eq!(r.code, 128, "{bad}: {}", r.err);
        assert!(
            r.err.starts_with(&format!("uring-repro: {bad}: ")),
            "{}",
            r.err
        );
    }
    // A usage error stops it too (exit 2 would mark the commit bad).
    for args in [
        &["compare", "--bisect", "good=a", "bad=b"][..],
        &["compare", "--bisect", "good=a", "bad=b", "new=c", "new=d"],
        &["compare", "--bisect", "--tsv", "good=a", "bad=b", "new=c"],
        &[
            "compare", "--bisect", "--gate", "0", "good=a", "bad=b", "new=c",
        ],
    ] {
        let r = run(args);
        assert_eq!(r.code, 128, "{args:?}: {}", r.err);
        assert_eq!(r.err.lines().count(), 1);
    }
}

/// A step whose stdout cannot be written (a full disk) stops the bisect
/// (128) naming why: its verdict is there, its record is not, and exit 1
/// would mark the commit bad.
#[test]
fn a_step_whose_stdout_is_lost_stops_the_bisect() {
    let d = Scratch::new("bisect-stdout");
    let new = point(&d, "good.txt", 180.2, 1, 15);
    let (a, b, child) = (
        published("parent_a.txt"),
        published("parent_b.txt"),
        published("child.txt"),
    );
    let args = [
        "compare".to_string(),
        "--bisect".into(),
        format!("good={a}"),
        format!("good={b}"),
        format!("bad={child}"),
        format!("new={new}"),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(run(&args).code, 0, "the step itself is good");
    let r = with_stdout_full(&args);
    assert_eq!(r.code, 128, "{}", r.err);
    assert_eq!(r.err, "uring-repro: stdout: write failed: ENOSPC (28)\n");
}
