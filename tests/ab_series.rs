//! scripts/ab.sh's series around the stand-ins (tests/stand_in/ab.rs): a
//! tree and its patches, each a step (`--each`), and a range of commits
//! (`--series A..B`). Each step is built from the step before's objects
//! (only what the step changes is compiled), booted once, and judged
//! against the step measured before it: a table per step, the matrix,
//! series.tsv, each step's texts and drafts, the reply on the series. A
//! step whose image is the one before's, byte for byte, reuses its points;
//! a step that does not build is named and the series goes on past it
//! (or, with --stop-on-failure, ends there).

mod stand_in;
mod utils;

use stand_in::ab::*;
use stand_in::*;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// A patch in the form a series' mail has it: its subject, then the diff of
/// FILE from `was` (a line, or a new file when None) to `is` (a line, or
/// the file removed when None).
fn mail_patch(
    dir: &Path,
    name: &str,
    subject: &str,
    file: &str,
    was: Option<&str>,
    is: Option<&str>,
) -> String {
    let head =
        format!("From: A Developer <a@example.invalid>\nSubject: [PATCH] {subject}\n\n---\n");
    let diff = match (was, is) {
        (Some(w), Some(i)) => format!("--- a/{file}\n+++ b/{file}\n@@ -1 +1 @@\n-{w}\n+{i}\n"),
        (None, Some(i)) => format!("--- /dev/null\n+++ b/{file}\n@@ -0,0 +1 @@\n+{i}\n"),
        (Some(w), None) => format!("--- a/{file}\n+++ /dev/null\n@@ -1 +0,0 @@\n-{w}\n"),
        (None, None) => unreachable!(),
    };
    utils::write(dir, name, &(head + &diff))
}

/// series.tsv of DIR: (step, profile) -> its row.
fn series(dir: &Path) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    utils::tsv_rows(&dir.join("series.tsv"))
        .into_iter()
        .map(|r| {
            (
                (r["step"].clone(), r["profile"].clone()),
                r.into_iter().collect(),
            )
        })
        .collect()
}

/// The patches of the first series: the child's console (s0 and n0 move),
/// a change that compiles and moves nothing, and one that changes no
/// object (the image is the one before's, byte for byte).
fn three_patches(b: &Box) -> [String; 3] {
    [
        mail_patch(
            &b.dir,
            "01-child.patch",
            "io_uring: the child",
            "a.c",
            Some("console=parent"),
            Some("console=child"),
        ),
        mail_patch(
            &b.dir,
            "02-c.patch",
            "io_uring: c two",
            "c.c",
            Some("c one"),
            Some("c two"),
        ),
        mail_patch(
            &b.dir,
            "03-doc.patch",
            "io_uring: a word of documentation",
            "README",
            None,
            Some("a word"),
        ),
    ]
}

/// ab.sh --each over the tree TS with `patches`, into OUT, the reply on
/// the series answering its cover letter.
fn each(b: &Box, ts: &str, patches: &[String], out: &str) -> utils::Run {
    let mut a = vec![
        "--tree",
        ts,
        "--each",
        "-o",
        out,
        "--re",
        "[PATCH 0/3] io_uring: a series",
    ];
    for p in patches {
        a.extend(["--patch", p.as_str()]);
    }
    ab(b, &a)
}

#[test]
fn each_patch_is_a_step_built_from_the_one_before_and_judged_against_it() {
    let Some(b) = setup("each") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    let patches = three_patches(&b);
    let out = b.dir.join("out");
    let os = out.to_str().unwrap();
    let ts = t.to_str().unwrap();
    let r = each(&b, ts, &patches, os);
    assert_eq!(r.code, 1, "{}", r.err);
    // Four steps, three boots: p3's image is p2's, byte for byte, and so
    // are its points (reused, not booted again).
    assert_eq!(booted(&b), ["slot-0", "slot-1", "slot-2"], "{}", r.err);
    assert!(
        r.err.contains("ab.sh: [3/3 p3] its points reused: booted "),
        "{}",
        r.err
    );
    // Each step compiled what its patch changed, from the objects of the
    // step before (whose log its own continues).
    let base = compiled(&b, 0);
    assert_eq!(base.len(), 3, "{base:?}");
    assert_eq!(
        compiled(&b, 1),
        [base.clone(), vec!["CC a.c".into()]].concat()
    );
    assert_eq!(
        compiled(&b, 2),
        [compiled(&b, 1), vec!["CC c.c".into()]].concat()
    );
    assert_eq!(compiled(&b, 3), compiled(&b, 2));
    assert_eq!(image(&b, 3), image(&b, 2));
    // A table per step, each against the one before.
    for heading in [
        "step 1/3: p1 (01-child.patch): io_uring: the child, against base:",
        "step 2/3: p2 (02-c.patch): io_uring: c two, against p1:",
        "step 3/3: p3 (03-doc.patch): io_uring: a word of documentation, against p2:",
    ] {
        assert!(
            flat(&r.out).contains(heading),
            "no {heading:?} in {}",
            r.out
        );
    }
    assert!(
        r.out.contains("p3: reused from "),
        "the table says p3's points were reused: {}",
        r.out
    );
    // series.tsv: step 1 moved s0; 2 and 3 moved nothing, 3 exactly nothing.
    let s = series(&out);
    let row = |k: &str, p: &str| s[&(k.to_string(), p.to_string())].clone();
    assert_eq!(row("1", "s0")["verdict"], "moved");
    assert_eq!(row("1", "s0")["label"], "p1");
    assert_eq!(row("1", "s0")["id"], "01-child.patch");
    assert_eq!(row("1", "s0")["subject"], "io_uring: the child");
    assert_eq!(row("1", "pollwake/idle")["verdict"], "unmoved");
    for p in ["s0", "n0", "pollwake/idle"] {
        assert_eq!(row("2", p)["verdict"], "unmoved", "{p}");
        assert_eq!(row("3", p)["verdict"], "unmoved", "{p}");
        assert_eq!(row("3", p)["delta"], "0.000000", "{p}");
        assert_eq!(row("3", p)["why"], "no_change", "{p}");
    }
    // The matrix: s0's change in step 1's column, and the total.
    let matrix = r.out.split("The series, step by step").nth(1).unwrap();
    let s0 = matrix.lines().find(|l| l.starts_with("s0 ")).unwrap();
    let cells: Vec<&str> = s0.split_whitespace().collect();
    assert_eq!(cells.len(), 3, "{s0}");
    assert!(cells[1].starts_with('+') && cells[1] == cells[2], "{s0}");
    // Each step's texts and drafts, and the reply on the series.
    for f in [
        "ab.txt",
        "series.tsv",
        "steps.tsv",
        "compare/p1/s0.txt",
        "compare/p3/n0.txt",
        "mail/p1/s0.txt",
        "mail/series.txt",
        "base/s0.txt",
        "p3/reused",
        "build-p2.log",
        "boot-p1.log",
    ] {
        assert!(out.join(f).exists(), "no {f} in {:?}", listing(&out));
    }
    assert!(!out.join("mail/p2/s0.txt").exists());
    let reply = fs::read_to_string(out.join("mail/series.txt")).unwrap();
    assert!(
        reply.starts_with("Subject: Re: [PATCH 0/3] io_uring: a series\n"),
        "{reply}"
    );
    assert!(
        reply.contains("[1/3] p1 io_uring: the child (01-child.patch): moved s0 +"),
        "{reply}"
    );
    assert!(
        reply.contains("[3/3] p3 io_uring: a word of documentation (03-doc.patch): moved none"),
        "{reply}"
    );
    utils::assert_narrow(&reply);
    // Run again: nothing built, nothing booted, the same table.
    let boots = b.boots();
    let out2 = b.dir.file("out2");
    let r2 = each(&b, ts, &patches, &out2);
    assert_eq!(r2.code, 1, "{}", r2.err);
    assert_eq!(b.boots(), boots);
    assert!(!r2.err.contains("] build"), "{}", r2.err);
    let verdicts = |s: BTreeMap<(String, String), BTreeMap<String, String>>| {
        s.into_iter()
            .map(|(k, r)| (k, r["verdict"].clone(), r["delta"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(series(Path::new(&out2))), verdicts(s));
}

#[test]
fn a_step_that_does_not_build_is_named_and_the_series_goes_on() {
    let Some(b) = setup("each-fails") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    let ts = t.to_str().unwrap();
    let p1 = mail_patch(
        &b.dir,
        "01.patch",
        "one",
        "a.c",
        Some("console=parent"),
        Some("console=child"),
    );
    // The stand-in's build fails where the tree has fail.c.
    let p2 = mail_patch(&b.dir, "02.patch", "two", "fail.c", None, Some("x"));
    let p3 = mail_patch(&b.dir, "03.patch", "three", "fail.c", Some("x"), None);
    let p4 = mail_patch(
        &b.dir,
        "04.patch",
        "four",
        "a.c",
        Some("console=child"),
        Some("console=parent"),
    );
    let out = b.dir.join("out");
    let args = |o: &str| -> Vec<String> {
        [
            "--tree", ts, "--patch", &p1, "--patch", &p2, "--patch", &p3, "--patch", &p4, "--each",
            "-o", o,
        ]
        .map(String::from)
        .to_vec()
    };
    let a = args(out.to_str().unwrap());
    let r = ab(&b, &a.iter().map(String::as_str).collect::<Vec<_>>());
    // Step 2 is left out; step 3 is held against step 1; something moved.
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(
        r.err
            .contains("ab.sh: [2/4 p2] build failed (exit 1) after "),
        "{}",
        r.err
    );
    assert!(
        r.err
            .contains("ab.sh: [2/4 p2] left out of the series (as git bisect skip)"),
        "{}",
        r.err
    );
    let text = flat(&r.out);
    assert!(
        text.contains("step 2/4: p2 (02.patch): two Not measured: build failed (build-p2.log)."),
        "{}",
        r.out
    );
    assert!(
        text.contains("step 3/4: p3 (03.patch): three, against p1:"),
        "{}",
        r.out
    );
    let steps = fs::read_to_string(out.join("steps.tsv")).unwrap();
    assert!(
        steps.contains("p2\t02.patch\ttwo\tbuild failed (build-p2.log)\n"),
        "{steps}"
    );
    let s = series(&out);
    assert_eq!(s[&("2".into(), "s0".into())]["verdict"], "not-measured");
    assert_eq!(s[&("1".into(), "s0".into())]["verdict"], "moved");
    assert_eq!(s[&("4".into(), "s0".into())]["verdict"], "moved");
    let matrix = r.out.split("The series, step by step").nth(1).unwrap();
    let s0 = matrix.lines().find(|l| l.starts_with("s0 ")).unwrap();
    assert_eq!(s0.split_whitespace().nth(2), Some("!"), "{s0}");
    // With --stop-on-failure the run ends at the step: 125, no table.
    let out2 = b.dir.file("out2");
    let mut a = args(&out2);
    a.push("--stop-on-failure".into());
    let r = ab(&b, &a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.code, 125, "{}", r.err);
    let failed = fs::read_to_string(format!("{out2}/failed.txt")).unwrap();
    assert!(failed.starts_with("[2/4 p2] build failed: "), "{failed}");
    assert!(!Path::new(&format!("{out2}/ab.txt")).exists());
}

#[test]
fn a_range_of_commits_is_a_series_of_their_steps() {
    let Some(b) = setup("range") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    git(&t, &["init", "-q"]);
    git(&t, &["add", "-A"]);
    git(&t, &["commit", "-q", "-m", "the base"]);
    fs::write(t.join("a.c"), "console=child\n").unwrap();
    git(&t, &["commit", "-q", "-a", "-m", "io_uring: the child"]);
    fs::write(t.join("b.c"), "b two\n").unwrap();
    git(&t, &["commit", "-q", "-a", "-m", "io_uring: b two"]);
    let ts = t.to_str().unwrap();
    let out = b.dir.join("out");
    let r = ab(
        &b,
        &[
            "--tree",
            ts,
            "--series",
            "HEAD~2..HEAD",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(b.boots(), 3, "{}", r.err);
    let rev = |r: &str| {
        let o = std::process::Command::new("git")
            .args(["rev-parse", "--short=12", r])
            .current_dir(&t)
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    let (one, two) = (rev("HEAD~1"), rev("HEAD"));
    assert!(
        flat(&r.out).contains(&format!(
            "step 1/2: {one}: io_uring: the child, against base:"
        )),
        "{}",
        r.out
    );
    let s = series(&out);
    assert_eq!(s[&("1".into(), "s0".into())]["verdict"], "moved");
    assert_eq!(s[&("2".into(), "s0".into())]["verdict"], "unmoved");
    assert_eq!(s[&("2".into(), "s0".into())]["label"], two);
    // The drafts name the step's commit and its parent.
    let draft = fs::read_to_string(out.join(format!("mail/{one}/s0.txt"))).unwrap();
    assert!(draft.contains(&one), "{draft}");
    // Bad ranges: refused before anything is built.
    let boots = b.boots();
    for (range, says) in [
        ("HEAD..HEAD~2", "is not an ancestor of"),
        ("HEAD..HEAD", "no commit after HEAD"),
        ("HEAD", "a range A..B"),
        ("nosuch..HEAD", "'nosuch' is not a commit of"),
    ] {
        let o = b.dir.file("bad");
        let r = ab(&b, &["--tree", ts, "--series", range, "-o", &o]);
        assert_eq!(r.code, 2, "{range}: {}", r.err);
        assert!(r.err.contains(says), "{range}: no {says:?} in {}", r.err);
        assert!(!Path::new(&o).exists());
    }
    assert_eq!(b.boots(), boots);
}
