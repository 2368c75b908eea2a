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
        "[-accel] [tcg,thread=single] [-icount] [shift=0,sleep=off,align=off] [-rtc] [base=2024-06-01T00:00:00,clock=vm] [-cpu] [qemu64] [-smp] [1]",
        "[-append] [console=ttyS0 panic=-1 loglevel=4 norandmaps cryptomgr.notests=1 URING_REPRO_TIMEBASE=icount -- --smoke]",
    ] {
        assert!(boot.contains(words), "no {words} in {boot}");
    }
    // The boot's identity is in the initramfs, not on the command line.
    assert!(!boot.contains("URING_REPRO_BOOT_ID"), "{boot}");
    let id = boot_id_given(boot);
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
    // The point: the report (of the boot the host named), then how it
    // was made, and of which image.
    let text = fs::read_to_string(&point).unwrap();
    assert!(text.starts_with("# uring-repro "), "{text}");
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(&format!(" boot_id={id} ")),
        "{text}"
    );
    let made = format!("\n# boot=qemu-system-x86_64 7.2.99 -accel tcg,thread=single -icount shift=0,sleep=off,align=off -rtc base=2024-06-01T00:00:00,clock=vm -cpu qemu64 -smp 1 -m 512M\n{}", b.image_line());
    assert!(text.ends_with(&made), "{text}");
}

#[test]
fn icount_with_two_cpus_runs_them_on_one_thread_with_the_guests_date_fixed() {
    // Two vCPUs on the instruction clock: one TCG thread (icount's), and the
    // guest's date fixed and on the virtual clock, since the date the kernel
    // reads seeds the random numbers its scheduler balances by
    // (docs/smp-icount.md). The kernel command line is one vCPU's: nothing
    // on it may differ from boot to boot, as the kernel mixes it into the
    // same random pool; the boot's identity comes in the initramfs.
    let b = Box::new("icount-smp");
    b.icount_report();
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&["-o", &point, "--accel", "icount", "--cpus", "2"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let log = b.qemu_log();
    let boot = log.lines().find(|l| l.starts_with("boot:")).unwrap();
    for words in [
        "[-accel] [tcg,thread=single] [-icount] [shift=0,sleep=off,align=off] [-rtc] [base=2024-06-01T00:00:00,clock=vm] [-cpu] [qemu64] [-smp] [2] [-m] [512M]",
        "[-append] [console=ttyS0 panic=-1 loglevel=4 norandmaps cryptomgr.notests=1 URING_REPRO_TIMEBASE=icount]",
    ] {
        assert!(boot.contains(words), "no {words} in {boot}");
    }
    assert!(!boot.contains("URING_REPRO_BOOT_ID"), "{boot}");
    assert_eq!(boot.matches("[-rtc]").count(), 1, "{boot}");
    assert!(!boot.contains("thread=multi"), "{boot}");
    // The identity still reaches the point.
    let id = boot_id_given(boot);
    let text = fs::read_to_string(&point).unwrap();
    let banner = text.lines().next().unwrap();
    assert!(banner.contains(&format!(" boot_id={id} ")), "{text}");
    let made = format!("\n# boot=qemu-system-x86_64 7.2.99 -accel tcg,thread=single -icount shift=0,sleep=off,align=off -rtc base=2024-06-01T00:00:00,clock=vm -cpu qemu64 -smp 2 -m 512M\n{}", b.image_line());
    assert!(text.ends_with(&made), "{text}");
}

/// Another guest date (`--rtc-date`, what ab.sh's draws give): the boot's
/// `-rtc` and its point say it; what is no date, or no icount boot, is
/// refused before anything boots.
#[test]
fn icount_takes_another_guests_date_and_refuses_what_is_no_date() {
    let b = Box::new("icount-date");
    b.icount_report();
    let point = b.dir.file("p.txt");
    let r = b.boot_point(&[
        "-o",
        &point,
        "--accel",
        "icount",
        "--cpus",
        "2",
        "--rtc-date",
        "2024-06-05",
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    let log = b.qemu_log();
    let boot = log.lines().find(|l| l.starts_with("boot:")).unwrap();
    assert!(
        boot.contains("[-rtc] [base=2024-06-05T00:00:00,clock=vm]"),
        "{boot}"
    );
    let text = fs::read_to_string(&point).unwrap();
    assert!(
        text.contains(" -rtc base=2024-06-05T00:00:00,clock=vm "),
        "{text}"
    );
    for (args, said) in [
        (
            &["--rtc-date", "2024-02-30"][..],
            "--rtc-date: no such date: 2024-02-30",
        ),
        (
            &["--rtc-date", "June 5"],
            "--rtc-date: a date, YYYY-MM-DD, not 'June 5'",
        ),
        (
            &["--rtc-date", ""],
            "--rtc-date: a date, YYYY-MM-DD, not ''",
        ),
    ] {
        let p = b.dir.file("q.txt");
        let mut all = vec!["-o", &p, "--accel", "icount"];
        all.extend(args);
        let r = b.boot_point(&all);
        assert_eq!(r.code, 2, "{args:?}: {}", r.err);
        assert!(r.err.contains(said), "{args:?}: no {said:?} in {}", r.err);
        assert!(!Path::new(&p).exists());
    }
    let p = b.dir.file("q.txt");
    let r = b.boot_point(&["-o", &p, "--accel", "tcg", "--rtc-date", "2024-06-05"]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(
        r.err
            .contains("--rtc-date: the guest's date is fixed under --accel icount only"),
        "{}",
        r.err
    );
    assert_eq!(b.boots(), 1);
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

/// The boot id boot-point.sh gave a boot: its initramfs's
/// `uring-repro.boot_id`, as the stand-in QEMU found it there (the
/// `{boot_id=ID}` at the end of its boot line), checked to be a UUID as
/// the kernel draws one.
fn boot_id_given(boot: &str) -> &str {
    let at = boot.find(" {boot_id=").unwrap_or_else(|| panic!("{boot}")) + 10;
    assert_eq!(&boot[at + 36..], "}", "{boot}");
    let id = &boot[at..at + 36];
    let shape = id.char_indices().all(|(i, c)| match i {
        8 | 13 | 18 | 23 => c == '-',
        _ => c.is_ascii_hexdigit() && !c.is_ascii_uppercase(),
    });
    assert!(shape, "not a UUID: {id}");
    id
}

#[test]
fn two_boots_started_at_once_are_two_boots() {
    // The stand-in prints one report, one kernel boot id, for every boot:
    // as two boots of one image on the instruction clock that start in
    // the same second would. Their points are still of two boots.
    let b = Box::new("two-at-once");
    let kernel = utils::write(&b.dir, "bzImage", "one image\n");
    let args = |point| vec!["--kernel", kernel.as_str(), "--bin", BIN, "-o", point];
    let (p1, p2) = (b.dir.file("1.txt"), b.dir.file("2.txt"));
    let mut first = b.start(&b.dir, "first", "boot-point.sh", &args(&p1));
    let mut second = b.start(&b.dir, "second", "boot-point.sh", &args(&p2));
    for (c, name) in [(&mut first, "first"), (&mut second, "second")] {
        let status = c.wait().unwrap();
        let err = fs::read_to_string(b.dir.join(format!("{name}.err"))).unwrap();
        assert!(status.success(), "{name}: {status}: {err}");
    }
    let banner_id = |p: &str| {
        let text = fs::read_to_string(p).unwrap();
        let banner = text.lines().next().unwrap().to_string();
        let at = banner.find(" boot_id=").unwrap() + 9;
        banner[at..at + 36].to_string()
    };
    let (id1, id2) = (banner_id(&p1), banner_id(&p2));
    assert_ne!(id1, id2);
    // Each the one its boot was given.
    let log = b.qemu_log();
    let given: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("boot:"))
        .map(boot_id_given)
        .collect();
    assert_eq!(given.len(), 2, "{log}");
    assert!(
        given.contains(&id1.as_str()) && given.contains(&id2.as_str()),
        "{given:?}: {id1} {id2}"
    );
    // The same image: the same image line.
    let image = |p: &str| {
        fs::read_to_string(p)
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        image(&p1),
        format!("# kernel_image_sha256={}", utils::sha256sum(b"one image\n"))
    );
    assert_eq!(image(&p1), image(&p2));
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
    // Nor the boot's identity, which is each boot's own.
    let word = "URING_REPRO_BOOT_ID=0a0a0a0a-0000-4000-8000-00000000000f";
    let r = b.boot_point(&["-o", &point, "--append", word]);
    assert_eq!(r.code, 2, "{}", r.err);
    let why = "--append: URING_REPRO_BOOT_ID is drawn for each boot, not set by hand";
    assert!(r.err.contains(why), "{}", r.err);
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
    // The guest's date is the host's but under icount.
    assert!(!log.contains("[-rtc]"), "{log}");
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
    let made = format!(
        "\n# boot=qemu-system-x86_64 7.2.99 -accel tcg,thread=multi -smp 2 -m 512M\n{}",
        b.image_line()
    );
    assert!(text.ends_with(&made), "{text}");
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
    utils::assert_contains(
        &r.err,
        &["p.txt: not written: writing it failed: ENOSPC (28); removed"],
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

// boot-point.sh: a suite, a directory of points

/// A box whose QEMU prints a suite of s0, n0 (skipped) and pollwake, and
/// the kernel image that names it.
fn suite_box(name: &str) -> (Box, String) {
    let mut b = Box::new(name);
    let consoles = b.dir.join("consoles");
    fs::create_dir(&consoles).unwrap();
    let items = [
        ("s0", Some("s0-parent-1")),
        ("n0", None),
        ("pollwake", Some("pollwake-parent")),
    ];
    fs::write(consoles.join("suite"), suite_console(&items)).unwrap();
    b.set("FAKE_QEMU_CONSOLES", consoles.to_str().unwrap());
    let kernel = utils::write(&b.dir, "bzImage", "console=suite\n");
    (b, kernel)
}

const SUITE: [&str; 4] = ["--", "suite", "--profiles", "s0,n0,pollwake"];

#[test]
fn a_suite_is_a_directory_of_its_points_and_its_lines() {
    let (b, kernel) = suite_box("suite");
    let dir = b.dir.join("points");
    // Typed as a directory: the / at its end is no part of its name.
    let typed = format!("{}/", dir.display());
    let mut args = vec!["--kernel", &kernel, "--bin", BIN, "-o", &typed];
    args.extend(SUITE);
    let r = b.run("boot-point.sh", &args);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(b.boots(), 1);
    // A point per item that printed one, as a run's boot would write it.
    assert_eq!(listing(&dir), ["pollwake.txt", "s0.txt", "suite.txt"]);
    let boot = format!(
        "# boot=qemu-system-x86_64 7.2.99 -accel tcg -smp 1 -m 512M\n# kernel_image_sha256={}\n",
        utils::sha256sum(b"console=suite\n")
    );
    // (The stand-in gives each boot a boot id of its own.)
    let no_id = |t: &str| {
        let at = t.find("boot_id=").unwrap() + 8;
        format!("{}{}", &t[..at], &t[at + 36..])
    };
    let s0 = fs::read_to_string(dir.join("s0.txt")).unwrap();
    assert_eq!(no_id(&s0), no_id(&(guest_point("s0-parent-1") + &boot)));
    let pollwake = fs::read_to_string(dir.join("pollwake.txt")).unwrap();
    assert_eq!(
        no_id(&pollwake),
        no_id(&(guest_point("pollwake-parent") + &boot))
    );
    // The skipped item is recorded, with its cause, in the suite's lines.
    let lines = fs::read_to_string(dir.join("suite.txt")).unwrap();
    assert!(
        lines.starts_with("# suite: 1/3 s0 exit=0 pass\n# suite: 2/3 n0 exit=4 skip: "),
        "{lines}"
    );
    assert!(
        lines.contains("\n# suite: items=3 passed=2 failed=0 skipped=1 "),
        "{lines}"
    );
    assert!(lines.ends_with(&boot), "{lines}");
    assert!(
        r.err.contains(": 2 points of 3 items, exit 0, "),
        "{}",
        r.err
    );
    // compare reads an item's point as any other.
    let p = dir.join("s0.txt");
    let c = utils::run(&["compare", p.to_str().unwrap()]);
    assert_eq!(c.code, 0, "{}", c.err);
}

#[test]
fn a_suite_directory_is_never_overwritten_nor_left_half_made() {
    let (mut b, kernel) = suite_box("suite-whole");
    let out = b.dir.join("out");
    fs::create_dir(&out).unwrap();
    let dir = out.join("points");
    let dir_s = dir.to_str().unwrap().to_string();
    let run = |b: &Box, wrap: &[&str]| {
        let mut args = vec!["--kernel", kernel.as_str(), "--bin", BIN, "-o", &dir_s];
        args.extend(SUITE);
        b.run_in(&b.dir, wrap, "boot-point.sh", &args)
    };
    // One that exists, even empty, is refused before the boot.
    fs::create_dir(&dir).unwrap();
    let r = run(&b, &[]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("exists (never overwritten)"), "{}", r.err);
    assert_eq!(b.boots(), 0);
    fs::remove_dir(&dir).unwrap();
    // One that appears during the boot stays, and so do the points.
    b.set("FAKE_QEMU_CREATE", &dir_s);
    let r = run(&b, &[]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(fs::read_to_string(&dir).unwrap(), "made meanwhile\n");
    let kept = r
        .err
        .lines()
        .find_map(|l| l.split("these points are kept in ").nth(1));
    let kept = kept.unwrap_or_else(|| panic!("{}", r.err));
    assert_eq!(
        listing(Path::new(kept)),
        ["pollwake.txt", "s0.txt", "suite.txt"]
    );
    fs::remove_dir_all(kept).unwrap();
    fs::remove_file(&dir).unwrap();
    b.set("FAKE_QEMU_CREATE", "");
    // A full disk: no directory, whole or cut, and nothing beside it.
    let seen = b.dir.file("seen.txt");
    let Some(wrap) = on_full_disk(out.to_str().unwrap(), &seen) else {
        return;
    };
    let wrap: Vec<&str> = wrap.iter().map(String::as_str).collect();
    let r = run(&b, &wrap);
    assert_eq!(r.code, 2, "{}", r.err);
    utils::assert_contains(
        &r.err,
        &["not written: writing s0.txt failed: ENOSPC (28); removed"],
    );
    assert_eq!(fs::read_to_string(&seen).unwrap(), "filler\n");
}

// bisect-step.sh

// tests/kernel/lost-wakeup.sh around the stand-in QEMU: pollwake reports
// chosen by kernel image, the poll kernel's with a lost wake-up.

/// A box whose stand-in QEMU prints, for `poll.img`, the poll kernel's
/// pollwake point with `lost` lost wake-ups, and for `parent.img` and
/// `barrier.img` the parent's (none lost); the images in `rel/`.
fn pollwake_box(name: &str, lost: u32) -> Box {
    let mut b = Box::new(name);
    let reports = b.dir.join("reports");
    fs::create_dir(&reports).unwrap();
    let k = |n: &str| fs::read_to_string(format!("{REPO}/tests/fixtures/kernel/{n}.txt")).unwrap();
    let poll =
        k("pollwake-poll").replacen(" lost_wakeups=0 ", &format!(" lost_wakeups={lost} "), 1);
    fs::write(reports.join("poll.img"), poll).unwrap();
    fs::write(reports.join("parent.img"), k("pollwake-parent")).unwrap();
    fs::write(reports.join("barrier.img"), k("pollwake-parent")).unwrap();
    b.set("FAKE_QEMU_REPORTS", reports.to_str().unwrap());
    fs::create_dir(b.dir.join("rel")).unwrap();
    for img in ["poll.img", "parent.img", "barrier.img"] {
        fs::write(b.dir.join("rel").join(img), "k").unwrap();
    }
    std::os::unix::fs::symlink(BIN, b.dir.join("rel/uring-repro")).unwrap();
    b
}

const LOST_WAKEUP: &str = "tests/kernel/lost-wakeup.sh";
/// lost-wakeup.sh's binary and kernels, from the box's directory.
const HUNT: [&str; 6] = [
    "--bin",
    "rel/uring-repro",
    "--poll",
    "rel/poll.img",
    "--parent",
    "rel/parent.img",
];

#[test]
fn lost_wakeup_hunts_and_runs_its_controls_with_relative_paths() {
    let b = pollwake_box("lost-wakeup", 1);
    let mut args = HUNT.to_vec();
    args.extend([
        "--barrier",
        "rel/barrier.img",
        "--keep",
        "rel/kept",
        "--minutes",
        "1",
    ]);
    let r = b.run_in(&b.dir, &[], LOST_WAKEUP, &args);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    assert_eq!(
        r.out,
        "ok 1 - poll-loses-a-wakeup\nok 2 - parent-loses-none\nok 3 - barrier-loses-none\n3 passed, 0 failed, 0 skipped\n"
    );
    let kept = listing(&b.dir.join("rel/kept"));
    for p in ["poll-1.txt", "parent-1.txt", "barrier-1.txt"] {
        assert!(kept.contains(&p.to_string()), "{kept:?}");
    }
    assert!(b.temp_files().is_empty(), "{:?}", b.temp_files());
}

#[test]
fn lost_wakeup_refuses_bad_input_with_one_clear_line() {
    let b = pollwake_box("lost-wakeup-usage", 1);
    for (extra, says) in [
        (
            &["--poll", "/nonexist"][..],
            "--poll: not a readable file: /nonexist (try --help)",
        ),
        (
            &["--keep", "/proc/x"],
            "--keep: cannot create /proc/x (No such file or directory) (try --help)",
        ),
        (
            &["--minutes", "0"],
            "--minutes: a positive number, not '0' (try --help)",
        ),
    ] {
        let mut args = HUNT.to_vec();
        args.extend(extra);
        let r = b.run_in(&b.dir, &[], LOST_WAKEUP, &args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.err);
        assert_eq!(r.err, format!("lost-wakeup.sh: {says}\n"), "{args:?}");
        assert!(r.out.is_empty(), "{args:?}: {}", r.out);
        assert_eq!(b.boots(), 0);
    }
}

/// A run that ran nothing is not a pass: without QEMU it says so and exits
/// 4 (1 under CI, where a skip fails), never 0.
#[test]
fn lost_wakeup_that_ran_nothing_does_not_pass() {
    let mut b = pollwake_box("lost-wakeup-no-qemu", 1);
    b.without_qemu();
    let args = HUNT;
    for (ci, code) in [(None, 4), (Some("1"), 1)] {
        let mut c = std::process::Command::new("bash");
        c.arg(format!("{REPO}/{LOST_WAKEUP}"))
            .args(args)
            .current_dir(&*b.dir);
        c.envs(b.env.iter().map(|(k, v)| (k, v))).env_remove("CI");
        if let Some(v) = ci {
            c.env("CI", v);
        }
        let r: utils::Run = c.output().unwrap().into();
        assert_eq!(r.code, code, "CI={ci:?}: {}\n{}", r.out, r.err);
        assert!(
            r.out.ends_with("0 passed, 0 failed, 1 skipped\n") || ci.is_some(),
            "{}",
            r.out
        );
        let said = format!("{}{}", r.out, r.err);
        assert!(said.contains("qemu-system-x86_64 is missing"), "{said}");
    }
}

/// Boots that give no point are no hunt: three in a row fail it, and the
/// control, with no bursts to match, is not run (and does not pass).
#[test]
fn lost_wakeup_whose_boots_give_no_point_fails() {
    let mut b = pollwake_box("lost-wakeup-no-point", 1);
    let empty = b.dir.join("reports/poll.img");
    fs::write(&empty, "").unwrap();
    fs::write(b.dir.join("reports/parent.img"), "").unwrap();
    b.set("FAKE_QEMU_REPORT", empty.to_str().unwrap());
    let args = HUNT;
    let r = b.run_in(&b.dir, &[], LOST_WAKEUP, &args);
    assert_eq!(r.code, 1, "{}\n{}", r.out, r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(
        lines[0],
        "not ok 1 - poll-loses-a-wakeup: 3 boots in a row gave no point"
    );
    assert!(
        !lines[1].starts_with("ok 2 - parent-loses-none") || lines[1].contains(" # SKIP "),
        "{}",
        r.out
    );
    assert_eq!(b.boots(), 3);
}
