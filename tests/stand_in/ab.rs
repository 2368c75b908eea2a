//! What the tests of scripts/ab.sh share (tests/ab.rs, ab_series.rs): a
//! box whose QEMU prints a whole suite chosen by the image built, stand-in
//! kernel trees, ab.sh run with the box's cache, and readers of what a run
//! left: its table, a slot's objects made and its image, the boots.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{make_tree, suite_console, Box, REPO};
use crate::utils::{self, Run, BIN};

/// The profiles of the stand-in consoles.
pub const PROFILES: &str = "s0,n0,pollwake";

/// A point of one series (`round pairs ns_per_pair pass` rows) with each
/// round moved by the next of `by`, its mean row the new rounds' mean.
pub fn shifted(point: &str, by: &[f64]) -> String {
    let mut rounds = vec![];
    let mut out = String::new();
    for line in point.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[..] {
            [r, pairs, ns, pass] if r.bytes().all(|b| b.is_ascii_digit()) => {
                let v = ns.parse::<f64>().unwrap() + by[rounds.len() % by.len()];
                let v: f64 = format!("{v:.6}").parse().unwrap();
                rounds.push(v);
                out += &format!("{r}\t{pairs}\t{v:.6}\t{pass}\n");
            }
            ["mean", pairs, _, pass] => {
                let mean = rounds.iter().sum::<f64>() / rounds.len() as f64;
                out += &format!("mean\t{pairs}\t{mean:.6}\t{pass}\n");
            }
            _ => out += &format!("{line}\n"),
        }
    }
    out
}

/// A box whose QEMU prints the `parent` console (the parent's s0, n0 and
/// pollwake points) or the `child` one (the child's s0 and n0, the parent's
/// pollwake), and `child-skip` (n0 skipped); None, after a skip, without
/// make.
pub fn setup(name: &str) -> Option<Box> {
    let mut b = Box::new(&format!("ab-{name}"));
    if !b.build_tools() {
        return None;
    }
    let consoles = b.dir.join("consoles");
    fs::create_dir(&consoles).unwrap();
    let parent = [
        ("s0", Some("s0-parent-1")),
        ("n0", Some("n0-parent")),
        ("pollwake", Some("pollwake-parent")),
    ];
    let child = [
        ("s0", Some("s0-child-1")),
        ("n0", Some("n0-child")),
        ("pollwake", Some("pollwake-parent")),
    ];
    let skip = [
        ("s0", Some("s0-parent-1")),
        ("n0", None),
        ("pollwake", Some("pollwake-parent")),
    ];
    fs::write(consoles.join("parent"), suite_console(&parent)).unwrap();
    fs::write(consoles.join("child"), suite_console(&child)).unwrap();
    fs::write(consoles.join("child-skip"), suite_console(&skip)).unwrap();
    b.set("FAKE_QEMU_CONSOLES", consoles.to_str().unwrap());
    let counts = b.dir.join("counts");
    fs::create_dir(&counts).unwrap();
    for (name, items) in [
        ("parent", &parent),
        ("child", &child),
        ("child-skip", &skip),
    ] {
        fs::write(counts.join(name), counts_of(items)).unwrap();
    }
    b.set("FAKE_QEMU_COUNTS", counts.to_str().unwrap());
    Some(b)
}

/// What the cost counter writes after its header lines for a suite of
/// `items` (each the fixture point it prints, or None: skipped): a run's
/// section each, made from the point's `# cost:` lines (its windows the
/// series' instructions split evenly), `@events K` where series K's event
/// lines go (the stand-in QEMU writes them), and the end line.
pub fn counts_of(items: &[(&str, Option<&str>)]) -> String {
    let mut c = String::new();
    for (k, (_, point)) in items.iter().enumerate() {
        let Some(name) = point else {
            c += &format!(
                "run {} windows=0 unbalanced=0 open_at_end=0 spans=0\n",
                k + 1
            );
            continue;
        };
        let text = fs::read_to_string(format!("{REPO}/tests/fixtures/kernel/{name}.txt")).unwrap();
        let lines: Vec<Vec<&str>> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# cost: "))
            .map(|l| l.split(' ').collect())
            .collect();
        let series: Vec<(&str, BTreeMap<&str, u64>)> = lines
            .iter()
            .filter(|w| w[0] == "series")
            .map(|w| {
                let kv = w[2..].iter().filter_map(|kv| kv.split_once('='));
                let whole = kv.filter_map(|(k, v)| Some((k, v.parse().ok()?)));
                (w[1], whole.collect())
            })
            .collect();
        let windows: u64 = series.iter().map(|s| s.1["windows"]).sum();
        c += &format!(
            "run {} windows={windows} unbalanced=0 open_at_end=0 spans={windows}\n",
            k + 1
        );
        let mut at = 0;
        for (j, (_, v)) in series.iter().enumerate() {
            let n = v["windows"];
            for i in 0..n {
                let share = |total: u64| total / n + if i == n - 1 { total % n } else { 0 };
                let (user, kernel) = (share(v["user"]), share(v["kernel"]));
                c += &format!("window {at} series={j} user={user} kernel={kernel}\n");
                at += 1;
            }
        }
        for (j, (name, v)) in series.iter().enumerate() {
            let of = |kind: &str| -> Vec<String> {
                let mine = lines.iter().filter(|w| w[0] == kind && w[1] == *name);
                mine.map(|w| format!("{kind} {j} {} {}\n", w[3], w[4]))
                    .collect()
            };
            let (fns, locked) = (of("fn"), of("locked"));
            c += &format!(
                "series {j} windows={} user={} kernel={} functions={} user_locked={} \
                 kernel_locked={} locked_functions={}\n",
                v["windows"],
                v["user"],
                v["kernel"],
                fns.len(),
                v["user_locked"],
                v["kernel_locked"],
                locked.len()
            );
            c += &fns.concat();
            c += &locked.concat();
            c += &format!("@events {j}\n");
        }
    }
    c + &format!(
        "end runs={} stray_windows=0 kernel_markers=0 translating_threads=1 translated_blocks=1 \
         translated_insns=1 translated_lock_prefixed=0 translated_xchg=0 \
         translated_unlocked_sites=0\n",
        items.len()
    )
}

/// A stand-in kernel tree NAME in the box, its image printing `console`.
pub fn tree(b: &Box, name: &str, console: &str, more: &[(&str, &str)]) -> PathBuf {
    let dir = b.dir.join(name);
    let first = format!("console={console}\n");
    let mut files = vec![
        ("a.c", first.as_str()),
        ("b.c", "b one\n"),
        ("c.c", "c one\n"),
    ];
    files.extend(more);
    make_tree(&dir, &files);
    dir
}

/// ab.sh with this build, the box's cache, no cost counter (the stand-in
/// QEMU takes no plugin), the stand-ins' profiles, and `args`.
pub fn ab(b: &Box, args: &[&str]) -> Run {
    let cache = b.dir.file("cache");
    let mut a = vec![
        "--bin",
        BIN,
        "--cache",
        &cache,
        "--no-cost",
        "--profiles",
        PROFILES,
    ];
    a.extend(args);
    b.run("ab.sh", &a)
}

/// ab.sh over two trees (--base-src, --head-src) into `out`, and `more`.
pub fn ab_trees(b: &Box, base: &Path, head: &Path, out: &str, more: &[&str]) -> Run {
    let (bs, hs) = (base.to_str().unwrap(), head.to_str().unwrap());
    let mut a = vec!["--base-src", bs, "--head-src", hs, "-o", out];
    a.extend(more);
    ab(b, &a)
}

/// ab.tsv of DIR: profile -> its row, column name -> value.
pub fn table(dir: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    utils::tsv_by(&dir.join("ab.tsv"), "profile")
}

pub fn verdicts(dir: &Path) -> Vec<(String, String)> {
    table(dir)
        .into_iter()
        .map(|(p, r)| (p, r["verdict"].clone()))
        .collect()
}

/// Every file of a tree: path -> (inode, size, mtime in ns, content). The
/// ctime is left out: a hard link to a file changes it, not the file.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, u64, i64, Vec<u8>)> {
    let mut m = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let md = fs::symlink_metadata(&p).unwrap();
            if md.is_dir() {
                todo.push(p);
            } else {
                let mtime = md.mtime() * 1_000_000_000 + md.mtime_nsec();
                m.insert(
                    p.clone(),
                    (md.ino(), md.size(), mtime, fs::read(&p).unwrap()),
                );
            }
        }
    }
    m
}

/// The objects step `slot`'s builds made, in order (its objdir's cc.log:
/// a slot started from the step before's objects has its log too).
pub fn compiled(b: &Box, slot: usize) -> Vec<String> {
    compiled_in(&b.dir.file("cache"), slot)
}

/// compiled, of the cache CACHE.
pub fn compiled_in(cache: &str, slot: usize) -> Vec<String> {
    let log = format!("{cache}/slot-{slot}/tree/.uring-repro-obj/cc.log");
    let text = fs::read_to_string(log).unwrap_or_default();
    text.lines().map(String::from).collect()
}

/// Step `slot`'s image.
pub fn image(b: &Box, slot: usize) -> String {
    let p = format!("cache/slot-{slot}/tree/.uring-repro-obj/arch/x86/boot/bzImage");
    fs::read_to_string(b.dir.join(p)).unwrap()
}

/// The boots the box's QEMU made, in order: the slot of each image.
pub fn booted(b: &Box) -> Vec<String> {
    b.qemu_log()
        .lines()
        .filter(|l| l.starts_with("boot:"))
        .map(|l| {
            let image = l.split(" [-kernel] [").nth(1).unwrap();
            let slot = image.split("/cache/").nth(1).unwrap();
            slot.split('/').next().unwrap().to_string()
        })
        .collect()
}

pub fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(ok.success(), "git {args:?}");
}

/// A patch of one line of FILE, from `was` to `is`.
pub fn one_line_patch(dir: &Path, name: &str, file: &str, was: &str, is: &str) -> String {
    utils::write(
        dir,
        name,
        &format!("--- a/{file}\n+++ b/{file}\n@@ -1 +1 @@\n-{was}\n+{is}\n"),
    )
}

/// Text as one line: the table's wrapped lines joined.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
