//! scripts/boot-point.sh, bisect-step.sh and build-kernel.sh around QEMU
//! and the kernel build, without booting or building anything: a stand-in
//! `qemu-system-x86_64` (a shell script written here) logs its argv,
//! answers the accelerator probe and "boots" by printing a console with a
//! real point from a 6.12 guest (tests/fixtures/witnessed/a.txt). What is
//! tested is the scripts' own part: the QEMU command line `--accel icount`
//! makes, what they refuse before booting or building, and that nothing
//! half-written or overwritten is left behind. The scripts run under dash
//! when it is installed (they are POSIX sh). Real boots and builds are
//! tests/boot/run.sh's and tests/kernel/run.sh's.

mod utils;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;
use utils::{skip, Run, Scratch, BIN};

const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// The stand-in QEMU. `--version` and the `-M none` probe answer as QEMU
/// does (the probe fails like a QEMU built without TCG when
/// FAKE_QEMU_NO_TCG is set); anything else is a boot: its argv, one `[word]`
/// each, is logged, FAKE_QEMU_CREATE (if set) is created as if by someone
/// else meanwhile, and the console is a kernel line, FAKE_QEMU_REPORT with
/// CRs, and the verdict line.
const FAKE_QEMU: &str = r#"#!/bin/sh
log=${FAKE_QEMU_LOG:?}
case " $* " in
*" --version "*)
	echo "QEMU emulator version 7.2.99 (stand-in)"
	exit 0
	;;
*" -M none "*)
	echo "probe: $*" >>"$log"
	cat >/dev/null
	if [ -n "${FAKE_QEMU_NO_TCG:-}" ]; then
		echo "qemu-system-x86_64: -accel tcg,thread=single: invalid accelerator tcg" >&2
		exit 1
	fi
	exit 0
	;;
esac
printf 'boot:' >>"$log"
for a in "$@"; do printf ' [%s]' "$a" >>"$log"; done
echo >>"$log"
[ -z "${FAKE_QEMU_CREATE:-}" ] || echo "made meanwhile" >"$FAKE_QEMU_CREATE"
printf '[    0.000000] Linux version 6.12.117 (stand-in)\r\n'
sed 's/$/\r/' "${FAKE_QEMU_REPORT:?}"
printf 'uring-repro: exit 0\r\n'
"#;

/// A scratch directory with the stand-in QEMU in `bin/`, its log, and the
/// report it prints.
struct Box {
    dir: Scratch,
    env: Vec<(String, String)>,
}

impl Box {
    fn new(name: &str) -> Box {
        let dir = Scratch::new(&format!("scripts-{name}"));
        let bin = dir.join("bin");
        fs::create_dir(&bin).unwrap();
        let qemu = bin.join("qemu-system-x86_64");
        fs::write(&qemu, FAKE_QEMU).unwrap();
        chmod_x(&qemu);
        let report = dir.file("report.txt");
        let a = fs::read_to_string(format!("{REPO}/tests/fixtures/witnessed/a.txt")).unwrap();
        fs::write(&report, a).unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let env = vec![
            ("PATH".into(), path),
            ("FAKE_QEMU_LOG".into(), dir.file("qemu.log")),
            ("FAKE_QEMU_REPORT".into(), report),
        ];
        Box { dir, env }
    }

    /// The report as an icount run prints it: `timebase=icount` on its
    /// banner, right after `clock=`.
    fn icount_report(&self) {
        let report = self.dir.join("report.txt");
        let text = fs::read_to_string(&report).unwrap();
        let text = text.replacen(" clock=vdso", " clock=vdso timebase=icount", 1);
        fs::write(&report, text).unwrap();
    }

    fn set(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
    }

    /// PATH without any qemu-system-*: a directory of links to everything
    /// else on it.
    fn without_qemu(&mut self) {
        let dir = self.dir.join("noqemu");
        fs::create_dir(&dir).unwrap();
        for d in std::env::var("PATH").unwrap().split(':') {
            let Ok(entries) = fs::read_dir(d) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name();
                let n = name.to_string_lossy();
                if !n.starts_with("qemu-system-") && !dir.join(&name).exists() {
                    symlink(e.path(), dir.join(&name)).unwrap();
                }
            }
        }
        self.set("PATH", dir.to_str().unwrap());
    }

    /// What the stand-in QEMU was asked to do: its log's lines.
    fn qemu_log(&self) -> String {
        fs::read_to_string(self.dir.join("qemu.log")).unwrap_or_default()
    }

    fn boots(&self) -> usize {
        self.qemu_log()
            .lines()
            .filter(|l| l.starts_with("boot:"))
            .count()
    }

    /// `script` (under scripts/) with `args`, run by dash if there is one,
    /// in `cwd`, to its end; optionally wrapped by `wrap` (argv prefix).
    fn run_in(&self, cwd: &Path, wrap: &[&str], script: &str, args: &[&str]) -> Run {
        let sh = if Path::new("/bin/dash").exists() {
            "/bin/dash"
        } else {
            "/bin/sh"
        };
        let path = format!("{REPO}/scripts/{script}");
        let mut argv: Vec<&str> = wrap.to_vec();
        argv.extend([sh, path.as_str()]);
        argv.extend(args);
        Command::new(argv[0])
            .args(&argv[1..])
            .current_dir(cwd)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("spawn the script")
            .into()
    }

    fn run(&self, script: &str, args: &[&str]) -> Run {
        self.run_in(&self.dir, &[], script, args)
    }

    /// boot-point.sh with the binary of this build, a kernel that need not
    /// be one (the stand-in never reads it), and `args`.
    fn boot_point(&self, args: &[&str]) -> Run {
        let kernel = self.dir.file("bzImage");
        fs::write(&kernel, "not read by the stand-in").unwrap();
        let mut a = vec!["--kernel", &kernel, "--bin", BIN];
        a.extend(args);
        self.run("boot-point.sh", &a)
    }
}

fn chmod_x(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The files of `dir`, hidden ones too, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The argv prefix that runs a command in a private mount namespace whose
/// `dir` is a tmpfs filled to the last byte (a full disk), and writes
/// `ls -A dir` to `seen` before the namespace goes; None (after a skip) when
/// this box can mount no tmpfs (it needs root or user namespaces).
fn on_full_disk(dir: &str, seen: &str) -> Option<Vec<String>> {
    const FILL: &str = r#"d=$1 seen=$2; shift 2
mount -t tmpfs -o size=16k uring-repro-full "$d" || exit 99
dd if=/dev/zero of="$d/filler" bs=4096 2>/dev/null
rc=0; "$@" || rc=$?
ls -A "$d" >"$seen"
exit $rc"#;
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let unshare: &[&str] = if root {
        &["unshare", "-m", "--propagation", "private"]
    } else {
        &["unshare", "-r", "-m", "--propagation", "private"]
    };
    let probe = Command::new(unshare[0])
        .args(&unshare[1..])
        .args(["sh", "-c", "mount -t tmpfs t /mnt"])
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        skip("cannot mount a tmpfs in a private mount namespace here (needs root or user namespaces): the full-disk cases are untested");
        return None;
    }
    let mut v: Vec<String> = unshare.iter().map(|s| s.to_string()).collect();
    v.extend(["sh", "-c", FILL, "sh", dir, seen].map(String::from));
    Some(v)
}

// boot-point.sh --accel icount

#[test]
fn icount_boots_tcg_on_the_instruction_clock_with_the_timebase_word_before_dashes() {
    let b = Box::new("icount");
    b.icount_report();
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&["-o", &point, "--accel", "icount", "--append", "-- --smoke"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let log = b.qemu_log();
    let boot = log.lines().find(|l| l.starts_with("boot:")).unwrap();
    for words in [
        "[-accel] [tcg,thread=single] [-icount] [shift=0,sleep=off,align=off] [-cpu] [qemu64] [-smp] [1]",
        "[-append] [console=ttyS0 panic=-1 loglevel=4 norandmaps cryptomgr.notests=1 URING_REPRO_TIMEBASE=icount -- --smoke]",
    ] {
        assert!(boot.contains(words), "no {words} in {boot}");
    }
    // The probe came first, with the same accelerator settings.
    assert!(
        log.starts_with(
            "probe: -M none -accel tcg,thread=single -icount shift=0,sleep=off,align=off "
        ),
        "{log}"
    );
    // The note says what the point is evidence of, and what not.
    let note = utils::line(&r.err, "boot-point.sh: NOTE: icount");
    assert!(note.contains("guest instructions per pair"), "{note}");
    assert!(note.contains("NOT of its speed"), "{note}");
    assert!(!r.err.contains("WARNING: TCG"), "{}", r.err);
    // The point: the report, then how it was made.
    let text = fs::read_to_string(&point).unwrap();
    assert!(text.starts_with("# uring-repro "), "{text}");
    assert!(text.ends_with("# boot=qemu-system-x86_64 7.2.99 -accel tcg,thread=single -icount shift=0,sleep=off,align=off -cpu qemu64 -smp 1 -m 512M\n"), "{text}");
}

#[test]
fn an_icount_point_whose_banner_does_not_say_so_is_not_written() {
    // A binary from before URING_REPRO_TIMEBASE: its banner would read as
    // wall time.
    let b = Box::new("icount-unstated");
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&["-o", &point, "--accel", "icount"]);
    assert_eq!(r.code, 125, "{}", r.err);
    assert_eq!(b.boots(), 1);
    assert!(
        r.err.contains("banner does not say timebase=icount"),
        "{}",
        r.err
    );
    assert!(!Path::new(&point).exists());
    assert_eq!(
        listing(&b.dir)
            .iter()
            .filter(|f| f.starts_with(".p.txt"))
            .count(),
        0
    );
}

#[test]
fn the_timebase_word_is_the_accelerators_not_appended_by_hand() {
    let b = Box::new("icount-by-hand");
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&[
        "-o",
        &point,
        "--append",
        "quiet URING_REPRO_TIMEBASE=icount",
    ]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(
        r.err
            .contains("--append: URING_REPRO_TIMEBASE is set by --accel icount, not by hand"),
        "{}",
        r.err
    );
    assert_eq!(b.boots(), 0);
}

#[test]
fn tcg_has_no_instruction_clock_and_its_warning_names_icount() {
    let b = Box::new("tcg");
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&["-o", &point]);
    assert_eq!(r.code, 0, "{}", r.err);
    let log = b.qemu_log();
    assert!(!log.contains("icount") && !log.contains("probe:"), "{log}");
    assert!(!log.contains("URING_REPRO_TIMEBASE"), "{log}");
    let warning = utils::line(&r.err, "boot-point.sh: WARNING: TCG");
    assert!(
        warning.contains("NOT evidence") && warning.contains("--accel icount"),
        "{warning}"
    );
    assert!(log.contains(" [-accel] [tcg] "), "{log}");
}

#[test]
fn tcg_with_more_than_one_cpu_names_one_host_thread_each() {
    let b = Box::new("mttcg");
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&["-o", &point, "--cpus", "2"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let log = b.qemu_log();
    assert!(log.contains(" [-accel] [tcg,thread=multi] "), "{log}");
    assert!(log.contains(" [-smp] [2] "), "{log}");
    let text = fs::read_to_string(&point).unwrap();
    assert!(
        text.ends_with("# boot=qemu-system-x86_64 7.2.99 -accel tcg,thread=multi -smp 2 -m 512M\n"),
        "{text}"
    );
}

#[test]
fn icount_on_a_qemu_without_it_is_one_clear_line_and_no_boot() {
    let mut b = Box::new("no-tcg");
    b.set("FAKE_QEMU_NO_TCG", "1");
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&["-o", &point, "--accel", "icount"]);
    assert_eq!(r.code, 125, "{}", r.err);
    assert_eq!(r.err.lines().count(), 1, "{}", r.err);
    assert!(
        r.err.starts_with("boot-point.sh: --accel icount: qemu-system-x86_64 cannot run TCG on the instruction clock (qemu-system-x86_64: -accel tcg,thread=single: invalid accelerator tcg)"),
        "{}",
        r.err
    );
    assert_eq!(b.boots(), 0);
    assert!(!listing(&b.dir).contains(&"p.txt".to_string()));
}

#[test]
fn no_qemu_is_one_clear_line() {
    let mut b = Box::new("no-qemu");
    b.without_qemu();
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&["-o", &point, "--accel", "icount"]);
    assert_eq!(r.code, 125, "{}", r.err);
    assert_eq!(r.err.lines().count(), 1, "{}", r.err);
    assert!(
        r.err
            .starts_with("boot-point.sh: qemu-system-x86_64 not found"),
        "{}",
        r.err
    );
}

#[test]
fn check_boots_nothing_and_leaves_nothing() {
    let b = Box::new("check");
    let out = b.dir.join("out");
    fs::create_dir(&out).unwrap();
    let point = out.join("p.txt");
    let missing = b.dir.file("not-built-yet/bzImage");
    let args = [
        "--kernel",
        &missing,
        "--bin",
        BIN,
        "-o",
        point.to_str().unwrap(),
        "--accel",
        "icount",
        "--check",
    ];
    let r = b.run("boot-point.sh", &args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.err.contains("checked: "), "{}", r.err);
    assert_eq!(b.boots(), 0);
    assert!(listing(&out).is_empty(), "{:?}", listing(&out));
    // A bad run option is the binary's usage error, still before any boot.
    let mut bad = args.to_vec();
    bad.extend(["--", "--bogus"]);
    let r = b.run("boot-point.sh", &bad);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("--bogus"), "{}", r.err);
    assert_eq!(b.boots(), 0);
}

// boot-point.sh: POINT whole or not at all

#[test]
fn a_missing_point_directory_is_refused_before_the_boot() {
    let b = Box::new("nodir");
    let point = b.dir.file("nodir/p.txt");
    let r = b.boot_point(&["-o", &point]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("-o: no such directory: "), "{}", r.err);
    assert_eq!(b.boots(), 0, "booted before finding out: {}", b.qemu_log());
}

#[test]
fn a_full_disk_leaves_no_point_and_no_partial_file() {
    let b = Box::new("full");
    let out = b.dir.join("out");
    fs::create_dir(&out).unwrap();
    let (out_s, seen) = (out.to_str().unwrap(), b.dir.file("seen.txt"));
    let Some(wrap) = on_full_disk(out_s, &seen) else {
        return;
    };
    let wrap: Vec<&str> = wrap.iter().map(String::as_str).collect();
    let kernel = b.dir.file("bzImage");
    fs::write(&kernel, "k").unwrap();
    let point = format!("{out_s}/p.txt");
    let args = ["--kernel", &kernel, "--bin", BIN, "-o", &point];
    let r = b.run_in(&b.dir, &wrap, "boot-point.sh", &args);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(b.boots(), 1);
    assert!(
        r.err.contains(
            "p.txt: not written: writing it failed (No space left on device); nothing left at"
        ),
        "{}",
        r.err
    );
    // Only the filler: no POINT, cut or empty, and no temporary file.
    assert_eq!(fs::read_to_string(&seen).unwrap(), "filler\n");
}

#[test]
fn a_point_that_appears_during_the_boot_is_kept_and_so_is_the_report() {
    let mut b = Box::new("race");
    let point = b.dir.file("p.txt");
    b.set("FAKE_QEMU_CREATE", &point);
    let r = b.boot_point(&["-o", &point]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(fs::read_to_string(&point).unwrap(), "made meanwhile\n");
    let kept = r
        .err
        .lines()
        .find_map(|l| l.split("this report is kept as ").nth(1));
    let kept = kept.unwrap_or_else(|| panic!("{}", r.err));
    assert!(fs::read_to_string(kept)
        .unwrap()
        .starts_with("# uring-repro "));
}

// bisect-step.sh

/// A git tree of one commit, for bisect-step to build.
fn git_tree(b: &Box) -> std::path::PathBuf {
    let tree = b.dir.join("tree");
    fs::create_dir(&tree).unwrap();
    for args in [
        &["init", "-q"][..],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "one",
        ],
    ] {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&tree)
            .status()
            .unwrap();
        assert!(ok.success());
    }
    tree
}

#[test]
fn a_commit_tested_again_gets_its_own_log_and_point() {
    let b = Box::new("logs");
    let tree = git_tree(&b);
    let points = b.dir.file("points");
    let step = |build: &str| {
        let args = [
            "--functional",
            "--build",
            build,
            "--image",
            "vmlinuz",
            "--points",
            &points,
            "--bin",
            BIN,
        ];
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
    let tree = git_tree(&b);
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
    let tree = git_tree(b);
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
    let b = Box::new("stop-gate");
    for gate in ["0", "101", "5%", "1.2.3", "x"] {
        stops_before_building(
            &b,
            &[
                "--good", &good, "--bad", &bad, "--gate", gate, "--points", &points,
            ],
            "--gate: a percentage in (0, 100]",
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
    let b = Box::new("stop-points-file");
    let points = b.dir.file("a-file");
    fs::write(&points, "").unwrap();
    stops_before_building(
        &b,
        &["--functional", "--points", &points],
        "--points: cannot create",
    );
}

#[test]
fn a_full_points_directory_stops_the_bisect_before_the_build() {
    let b = Box::new("stop-full");
    let tree = git_tree(&b);
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
