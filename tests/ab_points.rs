//! scripts/ab.sh's points kept and reused, around the stand-ins
//! (tests/stand_in/ab.rs): a point is kept in the cache under the hash of
//! what made it and reused where all of that is the same (the table says
//! when it was booted); an edit to the head is one build and one boot; a
//! point booted again (--recheck) must be the same line for line, else the
//! run fails loudly; and anything that makes a point another one (the
//! image, the run options, the binary) boots again.

mod stand_in;
mod utils;

use stand_in::ab::*;
use stand_in::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

#[test]
fn an_edit_to_the_head_is_one_build_and_one_boot() {
    let Some(b) = setup("edit") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    let ts = t.to_str().unwrap();
    let patch = one_line_patch(&b.dir, "c.patch", "c.c", "c one", "c two");
    let run = |n: u32| {
        let out = b.dir.file(&format!("out{n}"));
        let r = ab(&b, &["--tree", ts, "--patch", &patch, "-o", &out]);
        assert_eq!(r.code, 0, "run {n}: {}", r.err);
        r
    };
    run(1);
    assert_eq!(b.boots(), 2);
    // The edit: the patch writes c.c otherwise.
    one_line_patch(&b.dir, "c.patch", "c.c", "c one", "c three");
    let made = (compiled(&b, 0).len(), compiled(&b, 1).len());
    let r = run(2);
    // One build: the head's, of c.c alone; the base's slot is as built.
    assert_eq!(compiled(&b, 0).len(), made.0);
    assert_eq!(compiled(&b, 1)[made.1..], ["CC c.c"]);
    assert!(image(&b, 1).contains("c three"));
    assert!(
        r.err.contains("ab.sh: [base] prepared: ") && r.err.contains("built already ("),
        "{}",
        r.err
    );
    assert_eq!(r.err.matches("] build: ").count(), 1, "{}", r.err);
    // One boot: the head's; the base's points are reused, and said to be.
    assert_eq!(booted(&b), ["slot-0", "slot-1", "slot-1"]);
    assert!(
        r.err.contains("ab.sh: [base] its points reused: booted "),
        "{}",
        r.err
    );
    let text = flat(&r.out);
    assert!(text.contains("base: reused from "), "{}", r.out);
    assert!(!text.contains("head: reused from "), "{}", r.out);
    let out2 = b.dir.join("out2");
    let date = fs::read_to_string(out2.join("base/reused")).unwrap();
    let kept = fs::read_to_string(b.dir.join("out1/boot-base.log")).unwrap();
    assert_eq!(
        fs::read_to_string(out2.join("boot-base.log")).unwrap(),
        kept,
        "the reused point's boot log is its own boot's"
    );
    assert!(
        text.contains(&format!("base: reused from {}", date.trim())),
        "{}",
        r.out
    );
    // The reused point is the kept one, boot id and all.
    assert_eq!(
        fs::read_to_string(out2.join("base/s0.txt")).unwrap(),
        fs::read_to_string(b.dir.join("out1/base/s0.txt")).unwrap()
    );
}

/// A box with the parent's tree and the child's, ab run once over them
/// into `out1` (s0 moved: exit 1).
fn measured_once(name: &str) -> Option<(Box, PathBuf, PathBuf)> {
    let b = setup(name)?;
    let base = tree(&b, "base", "parent", &[]);
    let head = tree(&b, "head", "child", &[]);
    let r = ab_trees(&b, &base, &head, &b.dir.file("out1"), &[]);
    assert_eq!(r.code, 1, "{}", r.err);
    Some((b, base, head))
}

#[test]
fn recheck_boots_a_kept_point_again_and_fails_loudly_when_it_differs() {
    let Some((b, base, head)) = measured_once("recheck") else {
        return;
    };
    let out = |n: u32| b.dir.file(&format!("out{n}"));
    // Booted again, the same: the table says so, and its verdicts stand.
    let r = ab_trees(&b, &base, &head, &out(2), &["--recheck"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(b.boots(), 4, "{}", r.err);
    let text = flat(&r.out);
    for said in [
        "base: reused from ",
        "base: booted again: its 4 files the same, line for line, but the boot's identity (--exact).",
        "head: booted again: its 4 files the same,",
    ] {
        assert!(text.contains(said), "no {said:?} in {}", r.out);
    }
    for f in [
        "base/s0.txt",
        "base-recheck/s0.txt",
        "head-recheck/suite.txt",
    ] {
        assert!(Path::new(&out(2)).join(f).exists(), "no {f}");
    }
    assert_eq!(verdicts(Path::new(&out(2))), verdicts(Path::new(&out(1))));
    // A QEMU that no longer gives the kept figures (one round of the
    // child's s0 one instruction higher): NOT EXACT, 125, the line named.
    let consoles = b.dir.join("consoles");
    let child = fs::read_to_string(consoles.join("child")).unwrap();
    let point = guest_point("s0-child-1");
    let bumped = shifted(&point, &[1.0, 0.0, 0.0, 0.0, 0.0]);
    fs::write(consoles.join("child"), child.replace(&point, &bumped)).unwrap();
    let r = ab_trees(&b, &base, &head, &out(3), &["--recheck"]);
    assert_eq!(r.code, 125, "{}", r.err);
    assert!(
        r.out
            .starts_with("NOT EXACT: head's boots differ, where the instruction clock gives"),
        "{}",
        r.out
    );
    assert!(
        r.err
            .contains("uring-repro: ab: NOT EXACT: head's boots differ: s0.txt line "),
        "{}",
        r.err
    );
    let text = flat(&r.out);
    assert!(
        text.contains("head: booted again: NOT THE SAME: s0.txt line "),
        "{}",
        r.out
    );
    // Without --recheck the kept point is what the table is made of.
    let r = ab_trees(&b, &base, &head, &out(4), &[]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(verdicts(Path::new(&out(4))), verdicts(Path::new(&out(1))));
}

#[test]
fn what_makes_a_point_another_one_boots_it_again() {
    let Some((b, base, head)) = measured_once("key") else {
        return;
    };
    let out = |n: u32| b.dir.file(&format!("out{n}"));
    assert_eq!(b.boots(), 2);
    // Other run options: other points.
    let r = ab_trees(
        &b,
        &base,
        &head,
        &out(2),
        &["--", "--cycles", "32", "--rounds", "3"],
    );
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(b.boots(), 4);
    // Another binary (this one with a byte more: another hash).
    let bin = b.dir.join("uring-repro");
    let mut bytes = fs::read(utils::BIN).unwrap();
    bytes.push(0);
    fs::write(&bin, bytes).unwrap();
    chmod_x(&bin);
    let r = ab_trees(&b, &base, &head, &out(3), &["--bin", bin.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(b.boots(), 6);
    // Another image: the head's c.c changed (its console, and so its
    // figures, the same): the head boots again, the base is reused.
    fs::write(head.join("c.c"), "c two\n").unwrap();
    let r = ab_trees(&b, &base, &head, &out(4), &[]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(booted(&b)[6..], ["slot-1"]);
    // The key's text is kept beside each point: what made it.
    let points = b.dir.join("cache/points");
    let key = fs::read_dir(&points)
        .unwrap()
        .flatten()
        .map(|e| fs::read_to_string(e.path().join("key.txt")).unwrap())
        .next()
        .unwrap();
    for word in [
        "image ",
        "bin ",
        "boot-point.sh ",
        "qemu ",
        "accel icount, cpus 1",
        "run suite --profiles",
    ] {
        assert!(key.contains(word), "no {word:?} in {key}");
    }
}

#[test]
fn two_trees_written_at_one_instant_are_told_apart_by_content() {
    // The same file names, the same sizes, the same modification times,
    // another content: only the content tells them apart (a tree made by
    // a script, both copies in one clock tick).
    let Some(b) = setup("same-time") else {
        return;
    };
    let base = tree(&b, "base", "parent", &[]);
    let head = tree(&b, "head", "parent", &[]);
    let when = SystemTime::now() - Duration::from_secs(60);
    for (dir, console) in [(&base, "console=base2\n"), (&head, "console=head2\n")] {
        let f = fs::File::options()
            .write(true)
            .open(dir.join("a.c"))
            .unwrap();
        f.set_len(0).unwrap();
        use std::io::Write;
        (&f).write_all(console.as_bytes()).unwrap();
        f.set_modified(when).unwrap();
    }
    let consoles = b.dir.join("consoles");
    let items = [("s0", Some("s0-parent-1")), ("n0", Some("n0-parent"))];
    let moved = shifted(&guest_point("s0-parent-1"), &[3.0]);
    fs::write(consoles.join("base2"), suite_console(&items)).unwrap();
    fs::write(
        consoles.join("head2"),
        suite_console(&items).replace(&guest_point("s0-parent-1"), &moved),
    )
    .unwrap();
    let out = b.dir.file("out");
    let r = ab_trees(&b, &base, &head, &out, &["--profiles", "s0,n0"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(table(Path::new(&out))["s0"]["verdict"], "moved");
    assert!(
        image(&b, 1).starts_with("console=head2"),
        "{}",
        image(&b, 1)
    );
}

#[test]
fn one_tree_against_itself_is_every_row_unmoved_however_its_boots_fall() {
    // The same image on both sides: the head's points are the base's very
    // points (one boot), every row no change, exit 0; booted again, each
    // boot its own identity, and still the same points.
    let Some(b) = setup("itself") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    let out = b.dir.file("out1");
    let r = ab_trees(&b, &t, &t, &out, &[]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(b.boots(), 1, "{}", r.err);
    for (row, v) in table(Path::new(&out)) {
        assert_eq!(
            (v["verdict"].as_str(), v["why"].as_str()),
            ("unmoved", "no_change"),
            "{row}"
        );
        assert_eq!(v["delta"], "0.000000", "{row}");
    }
    let out = b.dir.file("out2");
    let r = ab_trees(&b, &t, &t, &out, &["--recheck"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(b.boots(), 3, "{}", r.err);
    let id = |dir: &str| {
        let p = fs::read_to_string(Path::new(&out).join(dir).join("s0.txt")).unwrap();
        p.split_whitespace()
            .find(|w| w.starts_with("boot_id="))
            .unwrap()
            .to_string()
    };
    assert_ne!(id("base-recheck"), id("head-recheck"));
    assert_ne!(id("base"), id("base-recheck"));
    assert!(table(Path::new(&out))
        .values()
        .all(|v| v["verdict"] == "unmoved"));
}

/// The texts of the keys kept in the box's cache, sorted.
fn keys(b: &Box) -> Vec<String> {
    let mut keys: Vec<String> = fs::read_dir(b.dir.join("cache/points"))
        .unwrap()
        .flatten()
        .map(|e| fs::read_to_string(e.path().join("key.txt")).unwrap())
        .collect();
    keys.sort();
    keys
}

/// The `-smp` of each boot the box's QEMU made, in order.
fn smp_of_boots(b: &Box) -> Vec<String> {
    b.qemu_log()
        .lines()
        .filter(|l| l.starts_with("boot:"))
        .map(|l| {
            let smp = l.split(" [-smp] [").nth(1).expect("a boot without -smp");
            smp.split(']').next().unwrap().to_string()
        })
        .collect()
}

#[test]
fn the_vcpus_are_the_boots_and_part_of_the_key() {
    let Some((b, base, head)) = measured_once("cpus") else {
        return;
    };
    let out = |n: u32| b.dir.file(&format!("out{n}"));
    assert_eq!(smp_of_boots(&b), ["1", "1"]);
    // Two vCPUs: other points, booted with -smp 2, their key saying so.
    let r = ab_trees(&b, &base, &head, &out(2), &["--cpus", "2"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(smp_of_boots(&b), ["1", "1", "2", "2"]);
    let keys = keys(&b);
    assert_eq!(keys.len(), 4, "{keys:?}");
    let with = |line: &str| keys.iter().filter(|k| k.contains(line)).count();
    assert_eq!(with("\naccel icount, cpus 1\n"), 2, "{keys:?}");
    assert_eq!(with("\naccel icount, cpus 2\n"), 2, "{keys:?}");
    // The keys of one image differ in that line alone.
    let drop_cpus = |k: &String| k.replace("cpus 2", "cpus 1");
    let mut same: Vec<String> = keys.iter().map(drop_cpus).collect();
    same.sort();
    same.dedup();
    assert_eq!(same.len(), 2, "{keys:?}");
    // Again with two: both reused, no boot.
    let r = ab_trees(&b, &base, &head, &out(3), &["--cpus", "2"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(b.boots(), 4, "{}", r.err);
    assert_eq!(verdicts(Path::new(&out(3))), verdicts(Path::new(&out(2))));
    // Not a count of CPUs: refused before anything is built.
    for bad in ["0", "two", ""] {
        let r = ab_trees(&b, &base, &head, &out(4), &["--cpus", bad]);
        assert_eq!(r.code, 2, "--cpus {bad:?}: {}", r.err);
        assert!(r.err.contains("--cpus: a positive number"), "{}", r.err);
    }
    assert!(!Path::new(&out(4)).exists());
}

/// The guest's date (`-rtc base=DATE...`) of each boot the box's QEMU made,
/// in order.
fn dates_of_boots(b: &Box) -> Vec<String> {
    b.qemu_log()
        .lines()
        .filter(|l| l.starts_with("boot:"))
        .map(|l| {
            let rtc = l
                .split(" [-rtc] [base=")
                .nth(1)
                .expect("a boot without -rtc");
            rtc[..10].to_string()
        })
        .collect()
}

#[test]
fn draws_boot_each_step_at_a_date_of_its_own_and_keep_each() {
    let Some((b, base, head)) = measured_once("draws") else {
        return;
    };
    let out = |n: u32| b.dir.file(&format!("out{n}"));
    // What cannot be drawn is refused before anything is built or booted.
    for (args, said) in [
        (
            &["--draws", "2"][..],
            "--draws 2: the schedules two vCPUs or more draw (--cpus 2); one vCPU draws one",
        ),
        (
            &["--cpus", "2", "--draws", "2", "--recheck"],
            "--draws with --recheck: ",
        ),
        (
            &["--cpus", "2", "--draws", "9"],
            "--draws: at most 8 boots of a step, not 9",
        ),
        (
            &["--cpus", "2", "--draws", "0"],
            "--draws: a positive number",
        ),
    ] {
        let r = ab_trees(&b, &base, &head, &out(2), args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.err);
        assert!(r.err.contains(said), "{args:?}: no {said:?} in {}", r.err);
        assert!(!Path::new(&out(2)).exists(), "{args:?}");
    }
    assert_eq!(b.boots(), 2);
    // Three draws on two vCPUs: each step booted three times, on the 1st, 2nd
    // and 3rd of June, each kept under a key of its own; the judge takes
    // every draw as a boot of its step.
    let r = ab_trees(&b, &base, &head, &out(2), &["--cpus", "2", "--draws", "3"]);
    assert_eq!(r.code, 1, "{}", r.err);
    let june = |d: u32| format!("2024-06-0{d}");
    let drawn: Vec<String> = [1, 2, 3, 1, 2, 3].into_iter().map(june).collect();
    assert_eq!(dates_of_boots(&b)[2..], drawn[..], "{}", b.qemu_log());
    for (label, d) in [("base", 2), ("head", 3)] {
        let said = format!("] boot draw {d} ({}): ", june(d));
        assert!(
            r.err
                .lines()
                .any(|l| l.starts_with(&format!("ab.sh: [{label}")) && l.contains(&said)),
            "no {said:?} for {label} in {}",
            r.err
        );
    }
    for dir in ["base", "base-d2", "base-d3", "head", "head-d2", "head-d3"] {
        assert!(
            Path::new(&out(2)).join(dir).join("s0.txt").is_file(),
            "{dir}"
        );
    }
    let keys = keys(&b);
    assert_eq!(keys.len(), 8, "{keys:?}");
    let with = |line: &str| keys.iter().filter(|k| k.contains(line)).count();
    assert_eq!(with("\naccel icount, cpus 2\n"), 6, "{keys:?}");
    assert_eq!(with("\nrtc 2024-06-02\n"), 2, "{keys:?}");
    assert_eq!(with("\nrtc 2024-06-03\n"), 2, "{keys:?}");
    assert_eq!(
        with("\nrtc "),
        4,
        "draw 1 is the usual date, its key a run's without draws"
    );
    // Again: every draw reused; and two vCPUs without draws reuse draw 1's.
    let r = ab_trees(&b, &base, &head, &out(3), &["--cpus", "2", "--draws", "3"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(b.boots(), 8, "{}", r.err);
    assert!(
        r.err
            .contains("] draw 3 (2024-06-03): its points reused: booted "),
        "{}",
        r.err
    );
    assert_eq!(verdicts(Path::new(&out(3))), verdicts(Path::new(&out(2))));
    let r = ab_trees(&b, &base, &head, &out(4), &["--cpus", "2"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(b.boots(), 8, "{}", r.err);
}

#[test]
fn events_are_the_counters_and_refused_without_it() {
    let Some(b) = setup("events-no-cost") else {
        return;
    };
    let t = tree(&b, "linux", "parent", &[]);
    let patch = one_line_patch(&b.dir, "c.patch", "c.c", "c one", "c two");
    let out = b.dir.file("out");
    let r = ab(
        &b,
        &[
            "--tree",
            t.to_str().unwrap(),
            "--patch",
            &patch,
            "-o",
            &out,
            "--events",
            "__schedule",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(
        r.err
            .contains("--events: the events are the counter's, and --no-cost boots without it"),
        "{}",
        r.err
    );
    assert_eq!(b.boots(), 0);
    assert!(!Path::new(&out).exists());
}

/// ab.sh with the cost counter (the stand-in QEMU takes its plugin and
/// writes its counts), the box's cache, the stand-ins' profiles, and
/// `args`: the trees `base` and `head` into `out`.
fn ab_counted(b: &Box, base: &Path, head: &Path, out: &str, more: &[&str]) -> utils::Run {
    let cache = b.dir.file("cache");
    let (bs, hs) = (base.to_str().unwrap(), head.to_str().unwrap());
    let mut a = vec![
        "--bin",
        utils::BIN,
        "--cache",
        &cache,
        "--profiles",
        PROFILES,
        "--base-src",
        bs,
        "--head-src",
        hs,
        "-o",
        out,
    ];
    a.extend(more);
    b.run("ab.sh", &a)
}

/// The counter's default events (scripts/common.sh's COST_EVENTS).
fn default_events() -> String {
    let common = fs::read_to_string(format!("{REPO}/scripts/common.sh")).unwrap();
    let line = common.lines().find_map(|l| l.strip_prefix("COST_EVENTS="));
    line.expect("COST_EVENTS in common.sh").to_string()
}

/// The `events=` of each boot's `-plugin` option, in order (empty: none).
fn events_of_boots(b: &Box) -> Vec<String> {
    b.qemu_log()
        .lines()
        .filter(|l| l.starts_with("boot:"))
        .map(|l| {
            let plugin = l
                .split(" [-plugin] [")
                .nth(1)
                .expect("a boot without -plugin");
            let plugin = plugin.split(']').next().unwrap();
            let events = plugin.split(',').find_map(|w| w.strip_prefix("events="));
            events.unwrap_or("").to_string()
        })
        .collect()
}

#[test]
fn the_events_counted_are_the_boots_and_part_of_the_key() {
    if std::process::Command::new("gcc")
        .arg("--version")
        .output()
        .is_err()
    {
        utils::skip("gcc cannot run: the counter (plugin/*.c) is built with it");
        return;
    }
    let Some(b) = setup("events") else {
        return;
    };
    let base = tree(&b, "base", "parent", &[]);
    let head = tree(&b, "head", "child", &[]);
    let out = |n: u32| b.dir.file(&format!("out{n}"));
    // The default list: passed to the counter, in the key, the table's.
    let all = default_events();
    let r = ab_counted(&b, &base, &head, &out(1), &[]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(events_of_boots(&b), [all.clone(), all.clone()]);
    let t = table(Path::new(&out(1)));
    assert_eq!(t["s0"]["verdict"], "moved");
    for (row, cols) in &t {
        // The stand-in counts no entry: nothing moved.
        assert_eq!(cols["events_moved"], "-", "{row}");
        for name in all.split(':') {
            assert_eq!(
                cols[&format!("ev_{name}_delta")],
                "0.000000",
                "{row} {name}"
            );
        }
    }
    let point = fs::read_to_string(Path::new(&out(1)).join("head/s0.txt")).unwrap();
    assert!(
        point.contains(&format!(" events={all}\n")),
        "no events= on the method line"
    );
    // Two of them: booted again, under keys of their own.
    let two = "__schedule:do_idle";
    let r = ab_counted(&b, &base, &head, &out(2), &["--events", two]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(events_of_boots(&b)[2..], [two, two]);
    let t = table(Path::new(&out(2)));
    let cols: Vec<&String> = t["n0"].keys().filter(|c| c.starts_with("ev_")).collect();
    assert_eq!(
        cols,
        [
            "ev___schedule_base",
            "ev___schedule_delta",
            "ev___schedule_head",
            "ev_do_idle_base",
            "ev_do_idle_delta",
            "ev_do_idle_head"
        ]
    );
    // None: no events= for the counter, no event columns.
    let r = ab_counted(&b, &base, &head, &out(3), &["--events", "none"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(events_of_boots(&b)[4..], ["", ""]);
    let t = table(Path::new(&out(3)));
    assert!(!t["s0"].contains_key("events_moved"), "{:?}", t["s0"]);
    // Each key says its events; the same again is reused.
    let keys = keys(&b);
    assert_eq!(keys.len(), 6, "{keys:?}");
    for line in [
        format!("\nevents {all}\n"),
        format!("\nevents {two}\n"),
        "\nevents none\n".into(),
    ] {
        assert_eq!(
            keys.iter().filter(|k| k.contains(&line)).count(),
            2,
            "{line}: {keys:?}"
        );
    }
    let r = ab_counted(&b, &base, &head, &out(4), &["--events", two]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(b.boots(), 6, "{}", r.err);
    // Not a list of names: refused before anything is built.
    for bad in ["a,b", "a::b", "a:a", ""] {
        let r = ab_counted(&b, &base, &head, &out(5), &["--events", bad]);
        assert_eq!(r.code, 2, "--events {bad:?}: {}", r.err);
        assert!(r.err.contains("--events: "), "{}", r.err);
        assert!(!Path::new(&out(5)).exists());
    }
    assert_eq!(b.boots(), 6);
}
