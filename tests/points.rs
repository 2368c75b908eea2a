//! `uring-repro points`: a boot's console -> its point, or a suite's
//! directory of points, whole or not at all. Real consoles (every point
//! of tests/fixtures as a guest prints it), consoles with what a console
//! holds besides (tests/fixtures/consoles: the points boot-point.sh made
//! of them before this command, byte for byte), suites, consoles without
//! a verdict or a report, icount banners, and outputs that cannot be
//! written: there already, an unwritable directory, a full disk. Its
//! `# cost:` lines are tests/cost_counter.rs's; boot-point.sh around it
//! tests/scripts.rs's.

mod stand_in;
mod utils;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use stand_in::{guest_point, listing, on_full_disk, on_read_only, suite_console, REPO};
use utils::{sha256sum, Run, Scratch, BIN};

/// The boot line the consoles' points were made with.
const BOOT: &str = "qemu-system-x86_64 7.2.99 -accel tcg -smp 1 -m 512M";

fn consoles(name: &str) -> PathBuf {
    Path::new(REPO).join("tests/fixtures/consoles").join(name)
}

/// `uring-repro points ARGS`, its stdin closed.
fn points(args: &[&str]) -> Run {
    let mut a = vec!["points"];
    a.extend(args);
    utils::run(&a)
}

/// A guest's console that prints `report` (its lines with CRs, after a
/// kernel log line) and the verdict `exit`.
fn console(report: &str, exit: u32) -> String {
    let crlf = report.replace('\n', "\r\n");
    format!(
        "[    0.000000] Linux version 6.12.117 (stand-in)\r\n{crlf}uring-repro: exit {exit}\r\n"
    )
}

/// Every uring-repro point of tests/fixtures (they start with its banner).
fn fixture_points() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![Path::new(REPO).join("tests/fixtures")];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "txt")
                && fs::read(&p).unwrap().starts_with(b"# uring-repro ")
            {
                found.push(p);
            }
        }
    }
    found.sort();
    assert!(found.len() > 40, "{found:?}");
    found
}

/// A fixture point as its guest printed it: without the lines added after
/// the boot (`# boot=`, `# cost:`).
fn as_printed(path: &Path) -> Vec<u8> {
    let text = fs::read(path).unwrap();
    let added = |l: &&[u8]| l.starts_with(b"# boot=") || l.starts_with(b"# cost: ");
    let body = text.strip_suffix(b"\n").unwrap_or(&text);
    let mut kept = Vec::new();
    for l in body.split(|&b| b == b'\n').filter(|l| !added(l)) {
        kept.extend_from_slice(l);
        kept.push(b'\n');
    }
    kept
}

/// `console` of bytes.
fn console_of(report: &[u8], exit: u32) -> Vec<u8> {
    let mut c = b"[    0.000000] Linux version 6.12.117 (stand-in)\r\n".to_vec();
    for l in report.split_inclusive(|&b| b == b'\n') {
        c.extend_from_slice(l.strip_suffix(b"\n").unwrap_or(l));
        c.extend_from_slice(b"\r\n");
    }
    c.extend_from_slice(format!("uring-repro: exit {exit}\r\n").as_bytes());
    c
}

#[test]
fn every_fixture_point_comes_back_from_its_console_as_it_was_printed() {
    let dir = Scratch::new("points-fixtures");
    let image = utils::write(&dir, "bzImage", "an image\n");
    let sha = sha256sum(b"an image\n");
    for (i, fixture) in fixture_points().iter().enumerate() {
        let printed = as_printed(fixture);
        let c = dir.file(&format!("{i}.console"));
        fs::write(&c, console_of(&printed, 0)).unwrap();
        let out = dir.file(&format!("{i}.txt"));
        let args = [
            "--console",
            &c,
            "-o",
            &out,
            "--boot",
            BOOT,
            "--image",
            &image,
        ];
        let r = points(&args);
        let name = fixture.display();
        assert_eq!((r.code, r.err.as_str()), (0, ""), "{name}");
        let mut want = printed;
        want.extend_from_slice(format!("# boot={BOOT}\n# kernel_image_sha256={sha}\n").as_bytes());
        assert_eq!(fs::read(&out).unwrap(), want, "{name}");
        let lines = want.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(r.out, format!("{out}: {lines} lines, exit 0\n"), "{name}");
    }
}

#[test]
fn crs_escapes_kernel_lines_and_stderr_lines_come_out_as_boot_point_sh_left_them() {
    let dir = Scratch::new("points-mixed");
    let out = dir.file("p.txt");
    let c = consoles("mixed.console");
    let r = points(&["--console", c.to_str().unwrap(), "-o", &out, "--boot", BOOT]);
    // The last verdict is the run's.
    assert_eq!(r.code, 4, "{}", r.err);
    assert_eq!(
        fs::read(&out).unwrap(),
        fs::read(consoles("mixed.txt")).unwrap()
    );
    // The binary's stderr lines, all of them, but the verdicts.
    assert_eq!(r.err, fs::read_to_string(consoles("mixed.stderr")).unwrap());
    assert_eq!(listing(&dir), ["p.txt"]);
}

#[test]
fn a_suite_is_its_items_points_and_its_lines_as_boot_point_sh_made_them() {
    let dir = Scratch::new("points-suite");
    let out = dir.file("points");
    let c = consoles("suite.console");
    let args = [
        "--console",
        c.to_str().unwrap(),
        "-o",
        &out,
        "--suite",
        "--boot",
        BOOT,
    ];
    let r = points(&args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.err, "uring-repro: warn\n");
    assert_eq!(r.out, format!("{out}: 2 points of 2 items, exit 0\n"));
    let made = Path::new(&out);
    assert_eq!(listing(made), ["pollwake.txt", "s0.txt", "suite.txt"]);
    for f in listing(made) {
        let want = fs::read(consoles("suite").join(&f)).unwrap();
        assert_eq!(fs::read(made.join(&f)).unwrap(), want, "{f}");
    }
}

#[test]
fn a_skipped_item_is_a_line_of_the_suite_and_no_point() {
    let dir = Scratch::new("points-skip");
    let items = [
        ("s0", Some("s0-parent-1")),
        ("n0", None),
        ("s0:shared", Some("s0-parent-2")),
    ];
    let c = utils::write(&dir, "console", &suite_console(&items));
    let image = utils::write(&dir, "bzImage", "k");
    let out = dir.file("points");
    let r = points(&["--console", &c, "-o", &out, "--suite", "--image", &image]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, format!("{out}: 2 points of 3 items, exit 0\n"));
    let made = Path::new(&out);
    assert_eq!(listing(made), ["s0-shared.txt", "s0.txt", "suite.txt"]);
    let image_line = format!("# kernel_image_sha256={}\n", sha256sum(b"k"));
    let s0 = fs::read_to_string(made.join("s0.txt")).unwrap();
    assert_eq!(s0, guest_point("s0-parent-1") + &image_line);
    let shared = fs::read_to_string(made.join("s0-shared.txt")).unwrap();
    assert_eq!(shared, guest_point("s0-parent-2") + &image_line);
    let lines = fs::read_to_string(made.join("suite.txt")).unwrap();
    assert!(
        lines.starts_with("# suite: 1/3 s0 exit=0 pass\n# suite: 2/3 n0 exit=4 skip: "),
        "{lines}"
    );
    assert!(
        lines.ends_with(&format!(" exit=0\n{image_line}")),
        "{lines}"
    );
    // compare reads an item's point as any other.
    let c = utils::run(&["compare", made.join("s0.txt").to_str().unwrap()]);
    assert_eq!(c.code, 0, "{}", c.err);
}

/// `points` refuses `console` with `code` and a first stderr line that
/// has `why`; nothing is written (nor left beside where it would be).
fn refused(name: &str, console: &str, extra: &[&str], code: i32, why: &str) -> Run {
    let dir = Scratch::new(&format!("points-{name}"));
    let c = utils::write(&dir, "console", console);
    let out = dir.file("p");
    let r = points(&[&["--console", &c, "-o", &out][..], extra].concat());
    assert_eq!(r.code, code, "{name}: {}", r.err);
    let first = r
        .err
        .lines()
        .find(|l| l.starts_with("uring-repro: points: "));
    assert!(
        first.is_some_and(|l| l.contains(why)),
        "{name}: want {why:?} in {}",
        r.err
    );
    assert_eq!(r.out, "", "{name}");
    assert_eq!(listing(&dir), ["console"], "{name}");
    r
}

#[test]
fn a_console_without_a_verdict_is_no_report_and_shows_its_last_lines() {
    let report = guest_point("s0-parent-1");
    let cut = console(&report, 0).replace("uring-repro: exit 0\r\n", "");
    let r = refused(
        "no-verdict",
        &cut,
        &[],
        125,
        "no report came back (no `uring-repro: exit N` line); ",
    );
    let lines: Vec<&str> = r.err.lines().collect();
    assert!(
        lines[1].starts_with("uring-repro: points: the console's last lines (20 of "),
        "{}",
        r.err
    );
    assert_eq!(lines.len(), 22, "{}", r.err);
    let last = report.lines().last().unwrap();
    assert_eq!(lines[21], format!("  | {last}"));
    // Stopped by its timeout, says the caller: a boot that timed out.
    let r = refused(
        "timed-out",
        &cut,
        &["--timed-out", "300"],
        124,
        "timed out after 300s with no verdict from the guest",
    );
    assert_eq!(r.err.lines().count(), 22, "{}", r.err);
    refused("empty", "", &[], 125, "no report came back");
}

#[test]
fn a_run_that_printed_no_report_ends_with_its_own_code_but_a_pass() {
    let only_stderr = |code| console("uring-repro: skip: no io_uring\n", code);
    for (code, want) in [(4, 4), (1, 1), (0, 125)] {
        let r = refused(
            &format!("no-report-{code}"),
            &only_stderr(code),
            &[],
            want,
            &format!("the run ended with exit {code} but printed no report; "),
        );
        assert!(
            r.err.starts_with("uring-repro: skip: no io_uring\n"),
            "{}",
            r.err
        );
    }
    let no_lines = console("# suite: 1/1 s0\n", 0);
    refused(
        "no-suite-lines",
        &no_lines,
        &["--suite"],
        125,
        "the suite ended with exit 0 but printed no line per item; ",
    );
}

#[test]
fn an_icount_point_must_say_so_on_its_banner() {
    let dir = Scratch::new("points-icount");
    let plain = guest_point("s0-parent-1").replace(" timebase=icount", "");
    let said = plain.replacen(" clock=vdso", " clock=vdso timebase=icount", 1);
    assert_ne!(plain, said);
    let c = utils::write(&dir, "said", &console(&said, 0));
    let out = dir.file("p.txt");
    let r = points(&["--console", &c, "-o", &out, "--icount"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(fs::read_to_string(&out).unwrap(), said);
    let why = "not written: the booted binary's banner does not say timebase=icount";
    refused("icount-plain", &console(&plain, 0), &["--icount"], 125, why);
    let other = said.replacen("timebase=icount", "timebase=icountx", 1);
    refused("icount-other", &console(&other, 0), &["--icount"], 125, why);
    let items = suite_console(&[("s0", Some("s0-parent-1"))]).replace(" timebase=icount", "");
    refused("icount-suite", &items, &["--icount", "--suite"], 125, why);
}

#[test]
fn a_point_there_already_stays_and_so_does_the_report() {
    let dir = Scratch::new("points-there");
    let c = utils::write(&dir, "console", &console(&guest_point("s0-parent-1"), 0));
    let out = utils::write(&dir, "p.txt", "there first\n");
    let r = points(&["--console", &c, "-o", &out]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(r.err.lines().count(), 1, "{}", r.err);
    assert_eq!(fs::read_to_string(&out).unwrap(), "there first\n");
    let kept = r
        .err
        .trim_end()
        .split("this report is kept as ")
        .nth(1)
        .unwrap();
    assert_eq!(
        fs::read_to_string(kept).unwrap(),
        guest_point("s0-parent-1")
    );
    // A suite's directory, even empty.
    let items = suite_console(&[("s0", Some("s0-parent-1"))]);
    let c = utils::write(&dir, "suite", &items);
    let out = dir.join("points");
    fs::create_dir(&out).unwrap();
    let r = points(&["--console", &c, "-o", out.to_str().unwrap(), "--suite"]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(listing(&out).is_empty());
    let kept = r
        .err
        .trim_end()
        .split("these points are kept in ")
        .nth(1)
        .unwrap();
    assert_eq!(listing(Path::new(kept)), ["s0.txt", "suite.txt"]);
}

/// `points ARGS` run under `wrap` (an argv prefix: on_full_disk's,
/// on_read_only's).
fn points_in(wrap: &[String], args: &[&str]) -> Run {
    let mut argv: Vec<&str> = wrap.iter().map(String::as_str).collect();
    argv.extend([BIN, "points"]);
    argv.extend(args);
    Command::new(argv[0])
        .args(&argv[1..])
        .output()
        .unwrap()
        .into()
}

#[test]
fn a_point_that_cannot_be_written_leaves_nothing() {
    let dir = Scratch::new("points-unwritable");
    let c = utils::write(&dir, "console", &console(&guest_point("s0-parent-1"), 0));
    let items = suite_console(&[("s0", Some("s0-parent-1"))]);
    let suite = utils::write(&dir, "suite", &items);
    let file = utils::write(&dir, "file", "");
    let out = format!("{file}/p.txt");
    let r = points(&["--console", &c, "-o", &out]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(
        r.err.contains("p.txt: not written: cannot create ") && r.err.contains("ENOTDIR"),
        "{}",
        r.err
    );
    // A directory this user may not write to (a read-only mount: root
    // writes wherever the modes say no).
    let ro = dir.join("ro");
    fs::create_dir(&ro).unwrap();
    let seen = dir.file("seen");
    let Some(wrap) = on_read_only(ro.to_str().unwrap(), &seen) else {
        return;
    };
    for (console, out, suite) in [
        (&c, ro.join("p.txt"), None),
        (&suite, ro.join("points"), Some("--suite")),
    ] {
        let mut args = vec!["--console", console, "-o", out.to_str().unwrap()];
        args.extend(suite);
        let r = points_in(&wrap, &args);
        assert_eq!(r.code, 2, "{}", r.err);
        utils::assert_contains(&r.err, &["not written: cannot create", "EROFS"]);
        assert_eq!(fs::read_to_string(&seen).unwrap(), "");
    }
}

#[test]
fn a_full_disk_leaves_no_point_and_nothing_beside_it() {
    let dir = Scratch::new("points-full");
    let out = dir.join("out");
    fs::create_dir(&out).unwrap();
    let (out_s, seen) = (out.to_str().unwrap(), dir.file("seen"));
    let Some(wrap) = on_full_disk(out_s, &seen) else {
        return;
    };
    let run = |console: &str, dest: &str, extra: &[&str]| -> Run {
        let c = utils::write(&dir, "console", console);
        points_in(&wrap, &[&["--console", &c, "-o", dest][..], extra].concat())
    };
    let point = console(&guest_point("s0-parent-1"), 0);
    let items = suite_console(&[("s0", Some("s0-parent-1")), ("n0", None)]);
    for (console, dest, extra, why) in [
        (
            &point,
            "p.txt",
            None,
            "p.txt: not written: writing it failed: ENOSPC (28); removed",
        ),
        (
            &items,
            "points",
            Some("--suite"),
            "points: not written: writing s0.txt failed: ENOSPC",
        ),
    ] {
        let r = run(console, &format!("{out_s}/{dest}"), &Vec::from_iter(extra));
        assert_eq!(r.code, 2, "{}", r.err);
        utils::assert_contains(&r.err, &[why]);
        assert_eq!(fs::read_to_string(&seen).unwrap(), "filler\n");
    }
}

#[test]
fn the_image_line_is_the_images_sha256() {
    let dir = Scratch::new("points-image");
    // Larger than a read: the hash goes a chunk at a time.
    let image: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
    fs::write(dir.join("bzImage"), &image).unwrap();
    let c = utils::write(&dir, "console", &console(&guest_point("s0-parent-1"), 0));
    let out = dir.file("p.txt");
    let r = points(&["--console", &c, "-o", &out, "--image", &dir.file("bzImage")]);
    assert_eq!(r.code, 0, "{}", r.err);
    let text = fs::read_to_string(&out).unwrap();
    assert!(
        text.ends_with(&format!("\n# kernel_image_sha256={}\n", sha256sum(&image))),
        "{text}"
    );
    let r = points(&[
        "--console",
        &c,
        "-o",
        &dir.file("q.txt"),
        "--image",
        "/nonexistent/bzImage",
    ]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(
        r.err,
        "uring-repro: points: /nonexistent/bzImage: cannot be read: ENOENT (2)\n"
    );
}

#[test]
fn its_command_line_is_checked_whole() {
    for (args, why) in [
        (
            &["-o", "p"][..],
            "points: --console FILE and -o PATH are required (see --help)",
        ),
        (
            &["--console", "c"],
            "points: --console FILE and -o PATH are required (see --help)",
        ),
        (
            &["--console", "c", "-o", "p", "--map", "m"],
            "points: --map checks the counts: it needs --counts",
        ),
        (
            &["--console", "c", "-o", "p", "--boot", "a\nb"],
            "points: --boot a\\nb: a newline in it",
        ),
        (
            &["--console", "c", "-o", "p", "--timed-out", "0"],
            "points: --timed-out 0: out of range",
        ),
    ] {
        utils::assert_usage_error(&points(args), why);
    }
    let r = points(&["--console", "/nonexistent/console", "-o", "/nonexistent/p"]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(
        r.err,
        "uring-repro: points: /nonexistent/console: cannot be read: ENOENT (2)\n"
    );
}
