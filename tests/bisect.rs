//! `compare --bisect` as `git bisect run` calls it: the published parents
//! as good references, the published child as the bad one, and new points
//! made here: good, bad, half-way, failed, interrupted, missing; references
//! closer than the gate; a usage error. Exit codes 0, 1, 125, 128, and the
//! one stdout line.

mod utils;

use std::path::Path;

use utils::{
    assert_contains, assert_starts_with, icount, published, run, with_stdout_full, Run, Scratch,
};

/// The published points' contract hash (the default contract at CPU 2).
const CONTRACT: &str = "40383f68e91cc249d50cd7cb5170861f61d6f0991bf93c2dbf6edd549520f072";

/// A uring-repro stdout point of 15 rounds around `ns`, the last round's
/// semantic_pass `last_pass`; `rounds` rows of 15 when it was interrupted.
/// Its boot id is its name's (a boot per file).
fn point(dir: &Path, name: &str, ns: f64, last_pass: u8, rounds: usize) -> String {
    let boot = name
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let mut t = format!(
        "# uring-repro 0.1.0 profile=s0_wait_wake mode=point kernel=6.15.0-new \
         boot_id=0d0d0d0d-0000-4000-8000-{:012x} cpu=2 cpu_choice=default clock=vdso\n\
         # ring_entries=64 cq_entries=128 slots=32 vector_width=1 cycles=512 warmups=3 \
         rounds=15 futex=private timeout_s=2 features=0x3ffff input_sha256={CONTRACT}\n\
         round\tpairs\tns_per_pair\tsemantic_pass\n",
        boot & 0xffff_ffff_ffff
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
    let verdict = if !done {
        "INTERRUPTED"
    } else if last_pass == 1 {
        "PASS"
    } else {
        "FAIL"
    };
    t += &format!("# checks: made up -> {verdict}\n");
    let p = dir.join(name);
    std::fs::write(&p, t).unwrap();
    p.to_string_lossy().into_owned()
}

/// `compare --bisect`, `options` first, then each point as `LABEL=FILE`.
fn bisect(options: &[&str], points: &[(&str, &str)]) -> Run {
    let points: Vec<String> = points.iter().map(|(l, f)| format!("{l}={f}")).collect();
    let mut args = vec!["compare", "--bisect"];
    args.extend(options);
    args.extend(points.iter().map(String::as_str));
    run(&args)
}

/// The published sandwich's points: parent A, parent B, the child.
fn sandwich() -> [String; 3] {
    ["parent_a.txt", "parent_b.txt", "child.txt"].map(published)
}

/// `compare --bisect` with the published references and `new`.
fn step(new: &str) -> Run {
    let [a, b, child] = sandwich();
    bisect(
        &[],
        &[("good", &a), ("good", &b), ("bad", &child), ("new", new)],
    )
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
            assert_starts_with(&r.err, "uring-repro: compare --bisect: ");
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
    assert_contains(&r.err, &["the references are closer than the gate"]);
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
        assert_starts_with(&r.err, &format!("uring-repro: {bad}: "));
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

/// References of one value (the NOP path under icount: the same guest
/// instructions on both kernels) are closer than any gate: the bisect
/// stops, saying their change as compare does, with no sign on a zero.
#[test]
fn references_of_one_value_stop_the_bisect() {
    let d = Scratch::new("bisect-same");
    let text = std::fs::read_to_string(icount("n0_child.txt")).unwrap();
    let new = d.file("n0_new.txt");
    // Its own boot: the first digit of the boot id changed.
    std::fs::write(&new, text.replacen("boot_id=e", "boot_id=f", 1)).unwrap();
    let r = bisect(
        &[],
        &[
            ("good", &icount("n0_parent.txt")),
            ("bad", &icount("n0_child.txt")),
            ("new", &new),
        ],
    );
    assert_eq!(r.code, 128, "{}", r.err);
    assert!(r.out.is_empty(), "{}", r.out);
    assert_eq!(
        r.err,
        "uring-repro: compare --bisect: the references are closer than the gate: \
         bad vs good 0.000%, gate 5.000%\n"
    );
}

/// A reference of another contract than the others stops the bisect
/// (128); a new point of another contract than the references cannot be
/// judged (125). Either way the field and both values are named.
#[test]
fn points_of_another_contract_are_not_judged() {
    let d = Scratch::new("bisect-contract");
    let [a, b, child] = sandwich();
    let shared = |name: &str, from: &str| {
        let t = std::fs::read_to_string(from)
            .unwrap()
            .replace("futex=private", "futex=shared");
        let p = d.join(name);
        std::fs::write(&p, t).unwrap();
        p.to_string_lossy().into_owned()
    };
    let bad = shared("bad.txt", &child);
    let new = point(&d, "new.txt", 180.2, 1, 15);
    let r = bisect(
        &[],
        &[("good", &a), ("good", &b), ("bad", &bad), ("new", &new)],
    );
    assert_eq!(r.code, 128, "{}", r.err);
    let said = "futex=shared beside futex=private in";
    let named = |file: &str| format!("uring-repro: {file}: {said} {a}");
    assert!(r.err.starts_with(&named(&bad)), "{}", r.err);
    // The new point named first on the command line: still the one judged.
    let new = shared("new-shared.txt", &a);
    let r = bisect(
        &[],
        &[("new", &new), ("good", &a), ("good", &b), ("bad", &child)],
    );
    assert_eq!(r.code, 125, "{}", r.err);
    assert!(r.err.starts_with(&named(&new)), "{}", r.err);
    assert!(r.out.is_empty());
}

/// Repeated references are no spread: the same file twice, or one boot
/// under two labels, stops the bisect.
#[test]
fn a_reference_counted_twice_stops_the_bisect() {
    let d = Scratch::new("bisect-twice");
    let [a, b, child] = sandwich();
    let new = point(&d, "new.txt", 196.3, 1, 15);
    let tsv = published("child.tsv");
    for args in [
        [("good", &a), ("good", &a), ("bad", &child), ("new", &new)],
        [("good", &a), ("good", &b), ("bad", &a), ("new", &new)],
        // The new point from the bad reference's boot (its TSV).
        [("good", &a), ("good", &b), ("bad", &child), ("new", &tsv)],
    ] {
        let args = args.map(|(l, f)| (l, f.as_str()));
        let r = bisect(&[], &args);
        assert_eq!(r.code, 128, "{args:?}: {}", r.err);
        assert_eq!(r.err.lines().count(), 1, "{}", r.err);
        assert!(r.out.is_empty());
    }
}

/// A point of one round has no spread to place it by: a new one cannot be
/// judged (125), a reference stops the bisect (128); never `[nan%,nan%]`.
/// (As the C standalone prints it: no banner, so no planned rounds to
/// disagree with the references' contract.)
#[test]
fn one_round_points_are_not_judged() {
    let d = Scratch::new("bisect-one-round");
    let child = published("child.txt");
    let one = |name: &str, ns: f64| {
        let p = d.join(name);
        let t = format!(
            "round\tpairs\tns_per_pair\tsemantic_pass\n0\t16384\t{ns:.6}\t1\n\
             mean\t16384\t{ns:.6}\t1\n"
        );
        std::fs::write(&p, t).unwrap();
        p.to_string_lossy().into_owned()
    };
    let new = one("new.txt", 196.3);
    let r = step(&new);
    assert_eq!(r.code, 125, "{}{}", r.out, r.err);
    assert!(r.out.is_empty(), "{}", r.out);
    assert_eq!(
        r.err,
        format!("uring-repro: {new}: 1 round: no spread within the point (it needs 2 or more)\n")
    );
    let (g, new) = (one("good.txt", 180.0), point(&d, "n2.txt", 196.3, 1, 15));
    let r = bisect(&[], &[("good", &g), ("bad", &child), ("new", &new)]);
    assert_eq!(r.code, 128, "{}{}", r.out, r.err);
    assert_eq!(
        r.err,
        format!("uring-repro: {g}: 1 round: no spread within the point (it needs 2 or more)\n")
    );
}

/// Points on QEMU's instruction clock: the boots of a kernel agree to the
/// last decimal, so only the child's rounds (which differ by one
/// instruction in 2048 pairs) give the position a spread, far inside a
/// percent (an exact one reads `at 100% exact`: the unit tests). An icount
/// point against wall-clock references cannot be judged.
#[test]
fn icount_points_are_placed_exactly() {
    let d = Scratch::new("bisect-icount");
    // A third boot of the child: its own boot id.
    let new = d.join("new.txt");
    let text = std::fs::read_to_string(icount("s0_child_2.txt")).unwrap();
    std::fs::write(&new, text.replace("9c2b7e15-", "0f1e2d3c-")).unwrap();
    let new = new.to_string_lossy().into_owned();
    let r = bisect(
        &["--gate", "1"],
        &[
            ("good", &icount("s0_parent_1.txt")),
            ("good", &icount("s0_parent_2.txt")),
            ("bad", &icount("s0_child_1.txt")),
            ("bad", &icount("s0_child_2.txt")),
            ("new", &new),
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.out, r.err);
    assert_eq!(
        r.out,
        "bisect: bad: new 1558.74 (good 1500.74, bad 1558.74) at 100% [100%,100%]\n"
    );
    let a = published("parent_a.txt");
    let r = step(&new);
    assert_eq!(r.code, 125, "{}", r.err);
    assert_starts_with(
        &r.err,
        &format!("uring-repro: {new}: timebase=icount beside timebase=wall in {a}: "),
    );
}

/// A step whose stdout cannot be written (a full disk) stops the bisect
/// (128) naming why: its verdict is there, its record is not, and exit 1
/// would mark the commit bad.
#[test]
fn a_step_whose_stdout_is_lost_stops_the_bisect() {
    let d = Scratch::new("bisect-stdout");
    let new = point(&d, "good.txt", 180.2, 1, 15);
    let [a, b, child] = sandwich();
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
