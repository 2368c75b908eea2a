//! scripts/bisect-step.sh and build-kernel.sh without building a kernel:
//! what a step refuses before building (128, so git stops the bisect), that
//! no log or point is overwritten, and what build-kernel.sh takes for a
//! kernel tree. The stand-in QEMU of tests/stand_in boots; real builds are
//! tests/kernel/run.sh's.

mod stand_in;
mod utils;

use stand_in::*;
use std::fs;
use std::path::Path;
use utils::BIN;

#[test]
fn a_commit_tested_again_gets_its_own_log_and_point() {
    let b = Box::new("logs");
    let tree = b.git_tree();
    let points = b.dir.file("points");
    let step = |build: &str| {
        let args = functional_step(build, &points);
        b.run_in(&tree, &[], "bisect-step.sh", &args)
    };
    // First attempt: the build fails, and leaves only its log.
    let r = step("echo first attempt; exit 1");
    assert_eq!(r.code, 125, "{}", r.err);
    let first = listing(Path::new(&points));
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].ends_with(".build.log"), "{first:?}");
    // Second attempt at the same commit: builds, boots, passes.
    let r = step("echo second attempt; echo k >vmlinuz");
    assert_eq!(r.code, 0, "{}", r.err);
    let commit = first[0].trim_end_matches(".build.log");
    let read = |n: &str| fs::read_to_string(format!("{points}/{n}")).unwrap();
    assert_eq!(
        read(&first[0]),
        "first attempt\n",
        "the first log was overwritten"
    );
    assert_eq!(read(&format!("{commit}.2.build.log")), "second attempt\n");
    assert!(read(&format!("{commit}.2.txt")).starts_with("# uring-repro "));
    // The verdict line: what git bisect is told, the step's times, the point.
    let verdict = utils::line(&r.err, &format!("bisect-step.sh: {commit}: good"));
    assert!(
        verdict.starts_with(&format!(
            "bisect-step.sh: {commit}: good: the run passed (exit 0) after "
        )) && verdict.contains(" s (build ")
            && verdict.contains(" s, boot ")
            && verdict.ends_with(&format!(" s); point: {points}/{commit}.2.txt")),
        "{verdict}"
    );
    assert_eq!(listing(Path::new(&points)).len(), 3);
}

#[test]
fn the_trees_own_kernel_parameters_and_run_options_are_read_at_every_step() {
    let b = Box::new("from-tree");
    let tree = b.git_tree();
    let points = b.dir.file("points");
    fs::write(tree.join("append"), "audit=1\n\nquiet").unwrap();
    fs::write(tree.join("options"), "--cycles\n8\n").unwrap();
    let mut args = vec![
        "--functional",
        "--build",
        "echo k >vmlinuz",
        "--image",
        "vmlinuz",
    ];
    args.extend(["--points", &points, "--bin", BIN, "--append", "loglevel=7"]);
    args.extend(["--append-from", "append", "--options-from", "options"]);
    let r = b.run_in(&tree, &[], "bisect-step.sh", &args);
    assert_eq!(r.code, 0, "{}", r.err);
    let log = b.qemu_log();
    // boot-point.sh's words, then the step's (the boot's identity is in
    // the initramfs, not among them).
    assert!(
        log.contains("[console=ttyS0 panic=-1 loglevel=4 loglevel=7 audit=1 quiet]"),
        "{log}"
    );
    // A file the tree lacks at this commit, or a bad option in it, stops the bisect.
    let step = |extra: &[&str]| {
        let mut a = vec![
            "--functional",
            "--build",
            "touch built",
            "--image",
            "vmlinuz",
        ];
        a.extend(["--points", &points, "--bin", BIN]);
        a.extend(extra);
        b.run_in(&tree, &[], "bisect-step.sh", &a)
    };
    let r = step(&["--append-from", "no-such-file"]);
    assert_eq!(r.code, 128, "{}", r.err);
    assert!(
        r.err
            .contains("--append-from: no-such-file is not in the tree at "),
        "{}",
        r.err
    );
    fs::write(tree.join("options"), "--bogus\n").unwrap();
    let r = step(&["--options-from", "options"]);
    assert_eq!(r.code, 128, "{}", r.err);
    assert!(r.err.contains("--bogus"), "{}", r.err);
    assert!(!tree.join("built").exists(), "it built first");
    assert_eq!(b.boots(), 1);
}

/// bisect-step.sh with `args` in a fresh tree whose build would leave a
/// mark: it must stop (128) with `why` before building.
fn stops_before_building(b: &Box, args: &[&str], why: &str) {
    let tree = b.git_tree();
    let mut a = vec![
        "--build",
        "touch built; echo k >vmlinuz",
        "--image",
        "vmlinuz",
        "--bin",
        BIN,
    ];
    a.extend(args);
    let r = b.run_in(&tree, &[], "bisect-step.sh", &a);
    assert_eq!(r.code, 128, "{args:?}: {}", r.err);
    assert!(r.err.contains(why), "{args:?}: no {why:?} in {}", r.err);
    assert!(!tree.join("built").exists(), "{args:?}: it built first");
    assert_eq!(b.boots(), 0);
}

#[test]
fn permanent_problems_stop_the_bisect_before_the_build() {
    let good = format!("{REPO}/tests/fixtures/witnessed/a.txt");
    let bad = format!("{REPO}/tests/fixtures/witnessed/b.txt");
    let b = Box::new("stop-refs");
    let points = b.dir.file("points");
    stops_before_building(
        &b,
        &[
            "--good",
            &good,
            "--bad",
            "/nonexistent/bad1.txt",
            "--points",
            &points,
        ],
        "not a readable file: /nonexistent/bad1.txt",
    );
    // The gate is compare's to judge, by its own rule (".5" and "5." are
    // not its numbers), before anything is built.
    let b = Box::new("stop-gate");
    for gate in ["0", "101", "5%", "1.2.3", "x", ".5", "5.", ""] {
        stops_before_building(
            &b,
            &[
                "--good", &good, "--bad", &bad, "--gate", gate, "--points", &points,
            ],
            &format!("compare: --gate {gate}: needs a percentage in (0, 100], at most 3 decimals (compare --bisect, before the build: nothing built)"),
        );
        fs::remove_dir_all(b.dir.join("tree")).unwrap();
    }
    let mut b = Box::new("stop-qemu");
    b.without_qemu();
    let points = b.dir.file("points");
    stops_before_building(
        &b,
        &["--functional", "--points", &points],
        "qemu-system-x86_64 not found",
    );
    let mut b = Box::new("stop-icount");
    b.set("FAKE_QEMU_NO_TCG", "1");
    let points = b.dir.file("points");
    stops_before_building(
        &b,
        &["--functional", "--accel", "icount", "--points", &points],
        "cannot run TCG on the instruction clock",
    );
    let b = Box::new("stop-options");
    let points = b.dir.file("points");
    stops_before_building(
        &b,
        &["--functional", "--points", &points, "--", "--bogus"],
        "--bogus",
    );
    let b = Box::new("stop-timeout");
    let points = b.dir.file("points");
    stops_before_building(
        &b,
        &["--functional", "--timeout", "5m", "--points", &points],
        "--timeout",
    );
    let b = Box::new("stop-points-file");
    let points = b.dir.file("a-file");
    fs::write(&points, "").unwrap();
    stops_before_building(
        &b,
        &["--functional", "--points", &points],
        &format!("--points: not a directory: {points}"),
    );
}

#[test]
fn references_compare_cannot_use_stop_the_bisect_before_the_build() {
    let k = |n: &str| format!("{REPO}/tests/fixtures/kernel/{n}.txt");
    let (good1, good2) = (k("bisect-good-1"), k("bisect-good-2"));
    let (bad1, bad2) = (k("bisect-bad-1"), k("bisect-bad-2"));
    // 3.9% apart: under compare's default gate of 5%.
    let b = Box::new("stop-close");
    let points = b.dir.file("points");
    stops_before_building(
        &b,
        &[
            "--good", &good1, "--good", &good2, "--bad", &bad1, "--bad", &bad2, "--accel",
            "icount", "--points", &points,
        ],
        "compare --bisect: the references are closer than the gate: bad vs good +3.865%, gate 5.000% (compare --bisect, before the build: nothing built)",
    );
    // Another workload on one side.
    let b = Box::new("stop-contract");
    let points = b.dir.file("points");
    let n0 = k("n0-child");
    stops_before_building(
        &b,
        &[
            "--good", &good1, "--bad", &n0, "--gate", "1", "--accel", "icount", "--points", &points,
        ],
        "another profile than the first file's",
    );
    // Far enough apart, but a good reference is not good as a new point: the
    // good side's two boots are the two kernels, and its spread swallows the
    // difference.
    let b = Box::new("stop-undecided");
    let points = b.dir.file("points");
    stops_before_building(
        &b,
        &[
            "--good", &bad1, "--good", &good1, "--bad", &bad2, "--gate", "1", "--accel",
            "icount", "--points", &points,
        ],
        &format!("{bad1}, a good reference, is not good as a new point (compare --bisect: cannot judge: its 95% interval holds the midpoint): the references cannot decide; nothing built"),
    );
    // References that are no printed point (TSV files): plain compare
    // judges all it can (here the gate) before the build.
    let b = Box::new("stop-tsv");
    let points = b.dir.file("points");
    let p = |n: &str| format!("{REPO}/tests/fixtures/published/{n}");
    let (pa, pb, child) = (p("parent_a.tsv"), p("parent_b.tsv"), p("child.tsv"));
    stops_before_building(
        &b,
        &[
            "--good", &pa, "--good", &pb, "--bad", &child, "--gate", "5.", "--points", &points,
        ],
        "compare: --gate 5.: needs a percentage in (0, 100], at most 3 decimals (compare, before the build: nothing built)",
    );
    // And the same references, apart by more than the gate: they are used.
    let b = Box::new("refs-usable");
    let tree = b.git_tree();
    let points = b.dir.file("points");
    b.icount_report();
    let args = [
        "--good",
        &good1,
        "--good",
        &good2,
        "--bad",
        &bad1,
        "--bad",
        &bad2,
        "--gate",
        "2",
        "--accel",
        "icount",
        "--points",
        &points,
        "--build",
        "echo k >vmlinuz",
        "--image",
        "vmlinuz",
        "--bin",
        BIN,
    ];
    let r = b.run_in(&tree, &[], "bisect-step.sh", &args);
    assert_eq!(b.boots(), 1, "{}", r.err);
}

/// A step whose boot gave no point: the verdict line says what happened
/// instead, and names no file that is not there.
#[test]
fn a_verdict_without_a_point_says_why_and_names_no_point() {
    for (case, env, why) in [
        (
            "hung",
            ("FAKE_QEMU_HANG", "60"),
            "no point: the boot timed out",
        ),
        (
            "silent",
            ("FAKE_QEMU_REPORT", "/dev/null"),
            "no point: no report came back",
        ),
    ] {
        let mut b = Box::new(&format!("no-point-{case}"));
        b.set(env.0, env.1);
        let tree = b.git_tree();
        let points = b.dir.file("points");
        let mut args = functional_step("echo k >vmlinuz", &points);
        args.extend(["--timeout", "1"]);
        let r = b.run_in(&tree, &[], "bisect-step.sh", &args);
        assert_eq!(r.code, 125, "{case}: {}", r.err);
        let verdict = r.err.lines().rfind(|l| l.contains(" (exit 125) after "));
        let verdict = verdict.unwrap_or_else(|| panic!("{case}: no verdict in {}", r.err));
        assert!(verdict.contains(&format!("; {why}")), "{case}: {verdict}");
        assert!(!verdict.contains("point: /"), "{case}: {verdict}");
        let left = listing(Path::new(&points));
        assert!(
            left.iter().all(|f| f.ends_with(".build.log")),
            "{case}: {left:?}"
        );
    }
}

#[test]
fn a_full_points_directory_stops_the_bisect_before_the_build() {
    let b = Box::new("stop-full");
    let tree = b.git_tree();
    let points = b.dir.join("points");
    fs::create_dir(&points).unwrap();
    let (points_s, seen) = (points.to_str().unwrap(), b.dir.file("seen.txt"));
    let Some(wrap) = on_full_disk(points_s, &seen) else {
        return;
    };
    let wrap: Vec<&str> = wrap.iter().map(String::as_str).collect();
    let args = [
        "--functional",
        "--build",
        "touch built; echo k >vmlinuz",
        "--image",
        "vmlinuz",
        "--points",
        points_s,
        "--bin",
        BIN,
    ];
    let r = b.run_in(&tree, &wrap, "bisect-step.sh", &args);
    assert_eq!(r.code, 128, "{}", r.err);
    assert!(
        r.err.contains("--points: cannot write 64 KiB in ")
            && r.err.contains("(No space left on device)"),
        "{}",
        r.err
    );
    assert!(!tree.join("built").exists(), "it built first");
    assert_eq!(fs::read_to_string(&seen).unwrap(), "filler\n");
}

// build-kernel.sh: what it refuses before configuring anything

#[test]
fn build_kernel_refuses_what_is_not_a_kernel_tree() {
    let b = Box::new("not-a-tree");
    let src = b.dir.join("src");
    fs::create_dir(&src).unwrap();
    fs::write(src.join("Makefile"), "all:\n\ttrue\n").unwrap();
    let r = b.run("build-kernel.sh", &["--src", src.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(r.err.lines().count(), 1, "{}", r.err);
    assert!(r.err.contains("is not a kernel tree"), "{}", r.err);
    assert!(r.out.is_empty());
    assert_eq!(
        listing(&src),
        ["Makefile"],
        "it wrote into what is not a tree"
    );
    let r = b.run(
        "build-kernel.sh",
        &["--src", src.to_str().unwrap(), "--arch", "aarch64"],
    );
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(
        r.err.contains("--arch aarch64: not supported yet"),
        "{}",
        r.err
    );
}
