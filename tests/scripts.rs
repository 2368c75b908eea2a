//! scripts/boot-point.sh around QEMU, without booting anything: the
//! stand-in QEMU of tests/stand_in logs what it was asked. What is tested is
//! the script's own part: the QEMU command line `--accel icount` makes, what
//! it refuses before booting, and that nothing half-written or overwritten is
//! left behind. Real boots are tests/boot/run.sh's and tests/kernel/run.sh's;
//! bisect-step.sh and build-kernel.sh are tests/bisect_step.rs's.

mod stand_in;
mod utils;

use stand_in::*;
use std::fs;
use std::path::Path;
use utils::BIN;

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
