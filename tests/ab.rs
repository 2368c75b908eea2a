//! scripts/ab.sh around the stand-ins of tests/stand_in: kernel trees whose
//! build follows make's rule on modification times (each `.c` file an
//! object, rebuilt when the file is newer: every object made is logged),
//! and a QEMU whose console is a whole suite, chosen by the image built
//! (each a real point of tests/fixtures/kernel, with a fresh boot id each
//! boot). What is tested is ab's own part: the forms, the copies (the
//! user's trees never written, a build rebuilding exactly what differs,
//! also when a file goes back to an older content), the boots and the
//! table they give, points reused and checked again, every bad input
//! refused before anything is built, and a kernel that cannot be built or
//! booted. A series is tests/ab_series.rs's; real kernels are
//! tests/kernel/run.sh's; the signals are tests/script_signals.rs's.

mod stand_in;
mod utils;

use stand_in::ab::*;
use stand_in::*;
use std::fs;
use std::path::Path;

#[test]
fn the_profile_a_change_moves_is_the_row_that_moves() {
    let Some(b) = setup("moves") else {
        return;
    };
    let (base, head) = (
        tree(&b, "base", "parent", &[]),
        tree(&b, "head", "child", &[]),
    );
    let out = b.dir.join("out");
    let r = ab_trees(&b, &base, &head, out.to_str().unwrap(), &[]);
    assert_eq!(
        r.code,
        1,
        "{}{}",
        r.err,
        fs::read_to_string(out.join("failed.txt")).unwrap_or_default()
    );
    // Base and head: a boot each, of the two images (a point is exact: the
    // base is not booted again).
    assert_eq!(booted(&b), ["slot-0", "slot-1"], "{}", b.qemu_log());
    let want = [
        ("n0", "unmoved"),
        ("pollwake/idle", "unmoved"),
        ("pollwake/none", "unmoved"),
        ("pollwake/none_aa", "unmoved"),
        ("pollwake/waiter", "unmoved"),
        ("s0", "moved"),
    ];
    let got = verdicts(&out);
    assert_eq!(
        got,
        want.map(|(p, v)| (p.to_string(), v.to_string())),
        "{}",
        r.out
    );
    // ab.tsv: the columns scripts read, by name; the figures compare's.
    let header = fs::read_to_string(out.join("ab.tsv")).unwrap();
    let header = header.lines().next().unwrap();
    for c in "profile unit base head delta delta_pct locked_base locked_head locked_delta verdict"
        .split(' ')
    {
        assert!(header.split('\t').any(|h| h == c), "no {c} in {header}");
    }
    let s0 = &table(&out)["s0"];
    assert_eq!(s0["unit"], "WAIT/WAKE pair");
    assert_eq!(s0["locked_base"], "NA");
    let delta: f64 = s0["delta"].parse().unwrap();
    assert!(delta > 50.0, "{s0:?}");
    // Identical points are no change at all; n0's is inside its interval.
    assert_eq!(table(&out)["pollwake/idle"]["why"], "no_change");
    assert_eq!(table(&out)["n0"]["why"], "interval_includes_zero");
    // Printed: the table, then how the verdict is reached.
    let s0_line = r.out.lines().find(|l| l.starts_with("s0 ")).unwrap();
    assert!(
        s0_line.contains(" moved ") && s0_line.ends_with("WAIT/WAKE pair"),
        "{s0_line}"
    );
    assert!(!r.out.contains("reused"), "{}", r.out);
    assert!(
        r.out
            .contains("Locked instructions: not counted (no point carries them: boot-point.sh --cost counts them)."),
        "{}",
        r.out
    );
    // Kept: every point, log, compare's text per row, the moved row's mail.
    for f in [
        "ab.txt",
        "steps.tsv",
        "base/s0.txt",
        "head/pollwake.txt",
        "base/suite.txt",
        "build-base.log",
        "build-head.log",
        "boot-base.log",
        "boot-head.log",
        "compare/pollwake-waiter.txt",
        "mail/s0.txt",
    ] {
        assert!(out.join(f).exists(), "no {f} in {:?}", listing(&out));
    }
    let mails = listing(&out.join("mail"));
    assert_eq!(
        mails
            .iter()
            .filter(|f| f.ends_with(".txt"))
            .collect::<Vec<_>>(),
        ["s0.txt"]
    );
    let mail = fs::read_to_string(out.join("mail/s0.txt")).unwrap();
    assert!(mail.starts_with("Subject: "), "{mail}");
    // The progress: a line per step, named, timed.
    for step in [
        "[base] prepared: ",
        "[head] prepared: ",
        "[base] build: ",
        "[base] boot: ",
        "[head] boot: ",
        "[table] ",
    ] {
        assert!(
            r.err.contains(&format!("ab.sh: {step}")),
            "no {step} in {}",
            r.err
        );
    }
}

/// The user's trees as they were, after a run of each form (every file's
/// inode, size, time and content); and each side's build made exactly the
/// objects its content asked for, also when a file went back to an older
/// content under an older time.
#[test]
fn the_copies_rebuild_what_differs_and_the_users_trees_stay_as_they_are() {
    let Some(b) = setup("copies") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    git(&t, &["init", "-q"]);
    git(&t, &["add", "-A"]);
    git(&t, &["commit", "-q", "-m", "one"]);
    fs::write(t.join("b.c"), "b two\n").unwrap();
    git(&t, &["commit", "-q", "-a", "-m", "two"]);
    let before = snapshot(&t);
    let ts = t.to_str().unwrap();
    let run = |n: u32, args: &[&str]| {
        let out = b.dir.file(&format!("out{n}"));
        let mut a = vec!["-o", &out];
        a.extend(args);
        let r = ab(&b, &a);
        assert_eq!(r.code, 0, "run {n}: {}", r.err);
        r
    };
    // HEAD~1 and HEAD: the base from nothing, the head from the base's
    // objects, only b.c rebuilt.
    run(1, &["--tree", ts]);
    let mut base = compiled(&b, 0);
    base.sort();
    assert_eq!(base, ["CC a.c", "CC b.c", "CC c.c"]);
    // (make -jN: the objects in any order; the head's log is the base's, copied.)
    assert_eq!(
        compiled(&b, 1),
        [compiled(&b, 0), vec!["CC b.c".into()]].concat()
    );
    assert!(image(&b, 0).contains("b one") && image(&b, 1).contains("b two"));
    // Again: nothing to rebuild on either side (make is not even run), and
    // nothing to boot: both points are reused.
    let boots = b.boots();
    let r = run(2, &["--tree", ts]);
    assert_eq!(compiled(&b, 0).len(), 3);
    assert_eq!(compiled(&b, 1).len(), 4);
    assert!(!r.err.contains("] build"), "{}", r.err);
    assert_eq!(b.boots(), boots, "{}", r.err);
    // Swapped: each side's b.c goes back to the other content, whose file
    // (the work tree's, for the base) is older than the objects: rebuilt.
    let r = run(3, &["--tree", ts, "--base", "HEAD", "--head", "HEAD~1"]);
    assert_eq!(
        compiled(&b, 0).last().unwrap(),
        "CC b.c",
        "{:?} {}",
        compiled(&b, 0),
        r.err
    );
    assert_eq!(compiled(&b, 0).len(), 4);
    assert_eq!(compiled(&b, 1).len(), 5);
    assert!(image(&b, 0).contains("b two") && image(&b, 1).contains("b one"));
    // A patch: the tree as it is (b two) and with c.c changed: c.c alone.
    let patch = utils::write(
        &b.dir,
        "c.patch",
        "--- a/c.c\n+++ b/c.c\n@@ -1 +1 @@\n-c one\n+c two\n",
    );
    let earlier = compiled(&b, 1).len();
    run(4, &["--tree", ts, "--patch", &patch]);
    assert_eq!(compiled(&b, 0).len(), 4, "{:?}", compiled(&b, 0));
    // The head was HEAD~1: b.c goes back to b two, and c.c is patched
    // (make -jN: in any order).
    let mut made = compiled(&b, 1)[earlier..].to_vec();
    made.sort();
    assert_eq!(made, ["CC b.c", "CC c.c"]);
    assert!(image(&b, 1).contains("c two") && image(&b, 0).contains("c one"));
    // Run again, the patched file is not rebuilt: its copy is as it was.
    let n = compiled(&b, 1).len();
    run(5, &["--tree", ts, "--patch", &patch]);
    assert_eq!(compiled(&b, 1).len(), n);
    // A cache from nothing, with the patch: the head starts from the base's
    // objects, built after the patch was applied, and rebuilds c.c.
    let cache2 = b.dir.file("cache2");
    run(7, &["--tree", ts, "--patch", &patch, "--cache", &cache2]);
    let head = fs::read_to_string(format!(
        "{cache2}/slot-1/tree/.uring-repro-obj/arch/x86/boot/bzImage"
    ));
    assert!(
        head.unwrap().contains("c two"),
        "the head was built without its patch"
    );
    // Two trees: the other tree's content is rebuilt, and nothing else.
    let other = tree(&b, "other", "parent", &[("c.c", "c three\n")]);
    run(
        6,
        &["--base-src", ts, "--head-src", other.to_str().unwrap()],
    );
    assert!(image(&b, 1).contains("c three"));
    assert_eq!(snapshot(&t), before, "the user's tree was written");
}

/// What cannot be, refused before anything is built or booted: one line,
/// exit 2, no DIR and nothing beside it, the trees as they were.
#[test]
fn bad_input_is_one_line_and_nothing_is_built() {
    let Some(b) = setup("bad") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    let plain = tree(&b, "plain", "parent", &[]);
    git(&t, &["init", "-q"]);
    git(&t, &["add", "-A"]);
    git(&t, &["commit", "-q", "-m", "one"]);
    fs::create_dir(b.dir.join("empty")).unwrap();
    fs::create_dir(b.dir.join("exists")).unwrap();
    let patch = utils::write(
        &b.dir,
        "bad.patch",
        "--- a/b.c\n+++ b/b.c\n@@ -1 +1 @@\n-b was never this\n+b two\n",
    );
    let before = snapshot(&t);
    let ts = t.to_str().unwrap();
    let ps = plain.to_str().unwrap();
    let empty = b.dir.file("empty");
    let inside = format!("{ts}/cache");
    let cases: [(&[&str], &str); 9] = [
        (
            &["--base-src", &empty, "--head-src", ts],
            "is not a kernel tree",
        ),
        (&["--tree", ps], "is not a git tree (revisions need one"),
        (
            &["--tree", ts, "--base", "nosuch"],
            "--base: 'nosuch' is not a commit of",
        ),
        (&["--tree", ts], "--base: 'HEAD~1' is not a commit of"),
        (
            &["--tree", ts, "--patch", &patch],
            "bad.patch does not apply to",
        ),
        (
            &["--base-src", ps, "--head-src", ps, "--profiles", "s0,x9"],
            "unknown profile (the profiles: s0 c0 ",
        ),
        (
            &["--base-src", ps, "--head-src", ps, "--gate", "5%"],
            "--gate: instructions per pair",
        ),
        (
            &["--base-src", ts, "--head-src", ps, "--cache", &inside],
            "is inside",
        ),
        (
            &["--tree", ts, "--base", "HEAD", "--patch", &patch],
            "--patch takes the tree as it is",
        ),
    ];
    for (args, says) in cases {
        let out = b.dir.file("out");
        let mut a = vec!["-o", &out];
        a.extend(args);
        let r = ab(&b, &a);
        assert_eq!(r.code, 2, "{args:?}: {}", r.err);
        assert!(r.err.contains(says), "{args:?}: no {says:?} in {}", r.err);
        assert!(r
            .err
            .lines()
            .all(|l| l.starts_with("ab.sh: ") || l.starts_with("uring-repro: ")));
        assert_eq!(b.boots(), 0, "{args:?}");
        assert!(!Path::new(&out).exists(), "{args:?}");
        assert!(
            !listing(&b.dir).iter().any(|f| f.starts_with(".out.")),
            "{args:?}"
        );
    }
    // The patch's failure names its file and its first hunk that failed.
    let out = b.dir.file("out");
    let r = ab(&b, &["-o", &out, "--tree", ts, "--patch", &patch]);
    assert!(
        r.err.contains("bad.patch does not apply to")
            && r.err.contains(": b.c, hunk #1 (at line 1)"),
        "{}",
        r.err
    );
    // An -o that exists.
    let exists = b.dir.file("exists");
    let r = ab(&b, &["-o", &exists, "--tree", ts, "--patch", &patch]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("exists (never overwritten)"), "{}", r.err);
    assert_eq!(snapshot(&t), before);
    assert!(b.temp_files().is_empty(), "{:?}", b.temp_files());
}

/// A head that does not build, and a boot that hangs: 125, the log named
/// with its last lines, DIR kept with the logs and failed.txt.
#[test]
fn a_kernel_that_cannot_be_built_or_booted_is_125_and_its_log() {
    let Some(mut b) = setup("cannot") else {
        return;
    };
    let base = tree(&b, "base", "parent", &[]);
    let head = tree(&b, "head", "child", &[("fail.c", "x\n")]);
    let out = b.dir.file("out");
    let r = ab_trees(&b, &base, &head, &out, &[]);
    assert_eq!(r.code, 125, "{}", r.err);
    let log = format!("{out}/build-head.log");
    assert!(
        r.err.contains(&format!("the last lines of {log}:")),
        "{}",
        r.err
    );
    assert!(
        r.err.contains("  | fail.c:1: error: a stand-in failure"),
        "{}",
        r.err
    );
    assert!(fs::read_to_string(&log)
        .unwrap()
        .contains("a stand-in failure"));
    let failed = fs::read_to_string(format!("{out}/failed.txt")).unwrap();
    assert_eq!(failed, format!("[head] build failed: {log}\n"));
    assert!(!Path::new(&format!("{out}/ab.tsv")).exists());
    // A boot that hangs: boot-point.sh's timeout.
    b.set("FAKE_QEMU_HANG", "600");
    let out = b.dir.file("out2");
    let r = ab_trees(&b, &base, &base, &out, &["--timeout", "2"]);
    assert_eq!(r.code, 125, "{}", r.err);
    // The boots come one after another: the base's is the first to hang.
    assert!(
        r.err.contains("[base] boot timed out (--timeout 2)"),
        "{}",
        r.err
    );
    assert!(Path::new(&format!("{out}/failed.txt")).exists());
    assert!(b.processes().is_empty(), "{:?}", b.processes());
}

/// An item one side skips and the other runs is a change of the kernel's
/// behaviour: outcome-changed, exit 1; rows of an item both skip are
/// skipped, never a change.
#[test]
fn an_item_skipped_on_one_side_only_changed_its_outcome() {
    let Some(b) = setup("skip") else {
        return;
    };
    let base = tree(&b, "base", "parent", &[]);
    let head = tree(&b, "head", "child-skip", &[]);
    let out = b.dir.file("out");
    let r = ab_trees(&b, &base, &head, &out, &[]);
    assert_eq!(r.code, 1, "{}", r.err);
    let t = table(Path::new(&out));
    assert_eq!(t["n0"]["verdict"], "outcome-changed");
    assert_eq!(t["n0"]["why"], "base pass, head skip");
    assert_eq!(t["s0"]["verdict"], "unmoved");
    // Skipped on every boot: no figure to judge, so no 0 either.
    let r = ab_trees(&b, &head, &head, &b.dir.file("out2"), &[]);
    assert_eq!(r.code, 125, "{}", r.err);
    assert_eq!(table(&b.dir.join("out2"))["n0"]["verdict"], "skipped");
    assert!(
        r.err
            .contains("uring-repro: ab: no row moved, but 1 could not be judged: n0 (skipped)"),
        "{}",
        r.err
    );
}

/// The verdict rests on the change round by round: one exact instruction
/// more in every round is a move, below the rounds' own spread (which an
/// interval between the points' rounds would need); sixteen more on
/// average, from rounds that go up and down, is not.
#[test]
fn a_small_change_in_every_round_moves_a_spread_one_does_not() {
    let Some(b) = setup("paired") else {
        return;
    };
    let consoles = b.dir.join("consoles");
    let s0 = shifted(&guest_point("s0-parent-1"), &[1.0]);
    let n0 = shifted(&guest_point("n0-parent"), &[40.0, -20.0]);
    let items = [("s0", Some("s0-parent-1")), ("n0", Some("n0-parent"))];
    let mut head = suite_console(&items);
    head = head.replace(&guest_point("s0-parent-1"), &s0);
    head = head.replace(&guest_point("n0-parent"), &n0);
    fs::write(consoles.join("base2"), suite_console(&items)).unwrap();
    fs::write(consoles.join("head2"), head).unwrap();
    let base = tree(&b, "base", "base2", &[]);
    let head = tree(&b, "head", "head2", &[]);
    let out = b.dir.file("out");
    let r = ab_trees(&b, &base, &head, &out, &["--profiles", "s0,n0"]);
    assert_eq!(r.code, 1, "{}", r.err);
    let t = table(Path::new(&out));
    assert_eq!(
        (t["s0"]["verdict"].as_str(), t["s0"]["delta"].as_str()),
        ("moved", "1.000000")
    );
    assert_eq!(t["s0"]["delta_low"], "1.000000");
    let delta: f64 = t["n0"]["delta"].parse().unwrap();
    assert!(delta > 15.9, "{:?}", t["n0"]);
    assert_eq!(t["n0"]["verdict"], "unmoved");
    assert_eq!(t["n0"]["why"], "interval_includes_zero");
}

/// Everything that can be checked without a kernel is, before the first
/// build: run options of one round or that are no run options, a --bin
/// that is no uring-repro, an empty patch, and a patch that does not apply
/// after the ones before it (named with them). One line, exit 2, nothing
/// built or booted, no DIR.
#[test]
fn every_check_that_needs_no_kernel_comes_before_the_build() {
    let Some(b) = setup("early") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    let ts = t.to_str().unwrap();
    let good = utils::write(
        &b.dir,
        "good.patch",
        "--- a/c.c\n+++ b/c.c\n@@ -1 +1 @@\n-c one\n+c two\n",
    );
    // Right on the bare tree, wrong once good.patch changed c.c.
    let after = utils::write(
        &b.dir,
        "after.patch",
        "--- a/c.c\n+++ b/c.c\n@@ -1 +1 @@\n-c one\n+c three\n",
    );
    let empty = utils::write(&b.dir, "empty.patch", "");
    let ab_sh = format!("{REPO}/scripts/ab.sh");
    let cases: [(Vec<&str>, &str); 9] = [
        (
            vec!["--", "--rounds", "1"],
            "uring-repro: ab: --rounds 1: ab's verdict needs 2 rounds or more",
        ),
        (
            vec!["--", "--cycles", "8", "--rounds=1"],
            "uring-repro: ab: --rounds=1: ab's verdict needs 2 rounds or more",
        ),
        (
            vec!["--", "--smoke"],
            "uring-repro: ab: --smoke: ab's verdict needs 2 rounds or more",
        ),
        (
            vec!["--", "--help"],
            "uring-repro: ab: --help: not a run option",
        ),
        (
            vec!["--", "--version"],
            "uring-repro: ab: --version: not a run option",
        ),
        (
            vec!["--bin", "/bin/true"],
            "ab.sh: --bin /bin/true: not a uring-repro binary (its --version printed '",
        ),
        (vec!["--bin", &ab_sh], "not a uring-repro binary"),
        (vec!["--patch", &empty], "ab.sh: --patch "),
        (
            vec!["--patch", &good, "--patch", &after],
            "after.patch does not apply to ",
        ),
    ];
    for (more, says) in cases {
        let out = b.dir.file("out");
        let mut a = vec!["-o", &out, "--tree", ts];
        let patched = more.contains(&"--patch");
        if !patched {
            a.extend(["--patch", &good]);
        }
        a.extend(more.iter().copied());
        let r = ab(&b, &a);
        assert_eq!(r.code, 2, "{more:?}: {}", r.err);
        assert!(r.err.contains(says), "{more:?}: no {says:?} in {}", r.err);
        assert_eq!(r.err.lines().count(), 1, "{more:?}: {}", r.err);
        assert_eq!(b.boots(), 0, "{more:?}");
        assert!(
            compiled(&b, 0).is_empty() && compiled(&b, 1).is_empty(),
            "{more:?}"
        );
        assert!(!Path::new(&out).exists(), "{more:?}");
    }
    let out = b.dir.file("out");
    let r = ab(&b, &["-o", &out, "--tree", ts, "--patch", &empty]);
    assert!(
        r.err
            .ends_with("empty.patch: an empty file (a patch changes something) (try --help)\n"),
        "{}",
        r.err
    );
    let r = ab(
        &b,
        &[
            "-o", &out, "--tree", ts, "--patch", &good, "--patch", &after,
        ],
    );
    assert!(
        r.err.contains(&format!(
            "after.patch does not apply to {ts} with good.patch applied: c.c, hunk #1 (at line 1)"
        )),
        "{}",
        r.err
    );
    assert!(b.temp_files().is_empty(), "{:?}", b.temp_files());
}

/// The slot's record is what was built, not the user's file: a file of the
/// tree rewritten in place (its copy in the cache is a hard link to it)
/// under an older time than its object is rebuilt, and the table is the
/// new content's.
#[test]
fn a_file_rewritten_in_place_under_an_older_time_is_rebuilt() {
    use std::io::Write;
    let Some(b) = setup("inplace") else {
        return;
    };
    let base = tree(&b, "base", "parent", &[]);
    let head = tree(&b, "head", "parent", &[]);
    let (bs, hs) = (base.to_str().unwrap(), head.to_str().unwrap());
    let run = |n: u32| {
        let out = b.dir.file(&format!("out{n}"));
        let r = ab(&b, &["-o", &out, "--base-src", bs, "--head-src", hs]);
        assert_eq!(r.code, 0, "run {n}: {}", r.err);
    };
    run(1);
    let made = compiled(&b, 1).len();
    assert!(image(&b, 1).contains("c one"));
    // As cp -p, rsync --inplace or a restore do: the same file, another
    // content, an older time.
    let c = head.join("c.c");
    let old = fs::metadata(&c).unwrap().modified().unwrap() - std::time::Duration::from_secs(3600);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&c)
        .unwrap();
    f.write_all(b"c in place\n").unwrap();
    f.set_modified(old).unwrap();
    drop(f);
    run(2);
    assert_eq!(compiled(&b, 1)[made..], ["CC c.c"]);
    assert!(image(&b, 1).contains("c in place"), "{}", image(&b, 1));
    // Nothing more to rebuild the next time.
    let made = compiled(&b, 1).len();
    run(3);
    assert_eq!(compiled(&b, 1).len(), made);
}

/// Whatever an interrupted run leaves in the cache, the next run gives the
/// right table: a copy cut short (an objdir, a new slot, a slot never
/// recorded, a point half kept) is removed or made again, never taken for
/// whole; an update or a build cut short is built again; a cache of an
/// older layout is refused, naming what to delete.
#[test]
fn an_interrupted_run_never_leaves_a_cache_that_gives_a_wrong_table() {
    let Some(b) = setup("recover") else {
        return;
    };
    let base = tree(&b, "base", "parent", &[]);
    let head = tree(&b, "head", "child", &[]);
    let (bs, hs) = (base.to_str().unwrap(), head.to_str().unwrap());
    let cache = b.dir.join("cache");
    let run = |n: u32| {
        let out = b.dir.file(&format!("out{n}"));
        let r = ab(&b, &["-o", &out, "--base-src", bs, "--head-src", hs]);
        assert_eq!(r.code, 1, "run {n}: {}", r.err);
        assert_eq!(table(Path::new(&out))["s0"]["verdict"], "moved");
        r
    };
    run(1);
    // A new slot cut short (an objdir copy half made): it goes, the slot
    // stays, nothing is rebuilt.
    let new = cache.join("slot-1/new/tree");
    fs::create_dir_all(new.join(".uring-repro-obj.partial")).unwrap();
    fs::write(
        new.join(".uring-repro-obj.partial/cut.cmd"),
        "cmd_x := $(wildcard",
    )
    .unwrap();
    fs::write(new.join("a.c"), "half").unwrap();
    let made = compiled(&b, 1).len();
    run(2);
    assert!(!cache.join("slot-1/new").exists());
    assert_eq!(
        compiled(&b, 1).len(),
        made,
        "the slot was whole: nothing rebuilt"
    );
    assert!(image(&b, 1).starts_with("console=child"));
    // An update cut short: a file written anew (another content, a new
    // time), the build never begun: rebuilt, and the image the head's.
    fs::write(cache.join("slot-1/tree/a.c"), "console=parent\n").unwrap();
    run(3);
    assert_eq!(compiled(&b, 1)[made..], ["CC a.c"]);
    assert!(image(&b, 1).starts_with("console=child"));
    // A build cut short after its record (its objects half made, no mark of
    // a build that ended): built again, never taken as made.
    fs::remove_file(cache.join("slot-1/tree/.uring-repro-made")).unwrap();
    let r = run(4);
    assert!(r.err.contains("[head] build: "), "{}", r.err);
    // A slot whose copy was never recorded whole: made anew, from the
    // base's objects (their log, then the head's one file).
    fs::remove_file(cache.join("slot-1/tree/.uring-repro-built")).unwrap();
    run(5);
    assert_eq!(
        compiled(&b, 1),
        [compiled(&b, 0), vec!["CC a.c".into()]].concat()
    );
    assert!(image(&b, 1).starts_with("console=child"));
    // A point whose keeping was cut short (never renamed into place): not
    // reused, booted again; the other, whole, is.
    let points = cache.join("points");
    let kept: Vec<_> = fs::read_dir(&points)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    fs::rename(&kept[0], kept[0].with_extension("new")).unwrap();
    let boots = b.boots();
    run(6);
    assert_eq!(b.boots(), boots + 1);
    assert!(kept[0].exists() && !kept[0].with_extension("new").exists());
    // A cache an older ab.sh made: refused, before anything is built.
    fs::remove_file(cache.join(".uring-repro-ab")).unwrap();
    let out = b.dir.file("out7");
    let r = ab(&b, &["-o", &out, "--base-src", bs, "--head-src", hs]);
    assert_eq!(r.code, 2, "{}", r.err);
    let c = cache.to_str().unwrap();
    assert_eq!(
        r.err,
        format!(
            "ab.sh: --cache {c} holds copies an older ab.sh made (another layout): \
             delete it (rm -rf {c}) or name another --cache (try --help)\n"
        )
    );
    assert!(!Path::new(&out).exists());
}
