//! `initramfs -o FILE`: the archive read back entry by entry with a newc
//! reader of its own (names, modes, links, the console's device number,
//! the embedded /init against the binary, the arguments file), the same
//! bytes twice, O_EXCL, and no file after a usage error.

mod utils;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use utils::{
    assert_usage_error, run, skip, with_file_size_limit, with_injected_fault, with_injected_faults,
    Scratch, BIN,
};

/// One entry of a newc archive.
#[derive(Debug)]
struct Entry {
    name: String,
    mode: u32,
    uid: u32,
    gid: u32,
    nlink: u32,
    mtime: u32,
    rdev: (u32, u32),
    data: Vec<u8>,
}

/// Every entry up to the trailer; panics on anything that is not newc
/// (070701), and checks the trailer ends the archive.
fn entries(cpio: &[u8]) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut at = 0;
    let align = |n: usize| n.div_ceil(4) * 4;
    loop {
        let h = &cpio[at..at + 110];
        assert_eq!(&h[..6], b"070701", "magic at {at}");
        let f = |i: usize| {
            let s = std::str::from_utf8(&h[6 + 8 * i..14 + 8 * i]).unwrap();
            u32::from_str_radix(s, 16).unwrap()
        };
        let namesize = f(11) as usize;
        let name = &cpio[at + 110..at + 110 + namesize];
        assert_eq!(name.last(), Some(&0), "name NUL-terminated");
        let name = String::from_utf8(name[..namesize - 1].to_vec()).unwrap();
        let data_at = align(at + 110 + namesize);
        assert!(cpio[at + 110 + namesize..data_at].iter().all(|&b| b == 0));
        let size = f(6) as usize;
        let data = cpio[data_at..data_at + size].to_vec();
        at = align(data_at + size);
        assert!(cpio[data_at + size..at].iter().all(|&b| b == 0));
        assert_eq!(f(12), 0, "check field of {name}");
        let e = Entry {
            name,
            mode: f(1),
            uid: f(2),
            gid: f(3),
            nlink: f(4),
            mtime: f(5),
            rdev: (f(9), f(10)),
            data,
        };
        if e.name == "TRAILER!!!" {
            assert_eq!(at, cpio.len(), "the trailer ends the archive");
            return out;
        }
        out.push(e);
    }
}

#[test]
fn the_archive_entry_by_entry() {
    let dir = Scratch::new("initramfs-listing");
    let file = dir.file("a.cpio");
    let r = run(&[
        "initramfs",
        "--smoke",
        "-o",
        &file,
        "--cpu=0",
        "--tsv",
        "/rows.tsv",
    ]);
    assert_eq!((r.code, r.out.as_str(), r.err.as_str()), (0, "", ""));
    let cpio = std::fs::read(&file).unwrap();
    let e = entries(&cpio);
    let listing: Vec<(&str, u32, u32)> = e
        .iter()
        .map(|e| (e.name.as_str(), e.mode, e.nlink))
        .collect();
    assert_eq!(
        listing,
        [
            ("dev", 0o040755, 2),
            ("dev/console", 0o020600, 1),
            ("proc", 0o040555, 2),
            ("sys", 0o040555, 2),
            ("init", 0o100755, 1),
            ("uring-repro.args", 0o100644, 1),
        ]
    );
    assert_eq!(e[1].rdev, (5, 1), "/dev/console is char 5:1");
    for x in &e {
        assert_eq!((x.uid, x.gid, x.mtime), (0, 0, 0), "{}", x.name);
        if x.name != "dev/console" {
            assert_eq!(x.rdev, (0, 0), "{}", x.name);
        }
    }
    assert!(
        e[4].data == std::fs::read(BIN).unwrap(),
        "/init is the binary"
    );
    assert_eq!(
        String::from_utf8_lossy(&e[5].data),
        "--smoke\n--cpu=0\n--tsv\n/rows.tsv\n"
    );
    // The same binary and options: the same bytes.
    let again = dir.file("b.cpio");
    let r = run(&[
        "initramfs",
        "--smoke",
        "-o",
        &again,
        "--cpu=0",
        "--tsv",
        "/rows.tsv",
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(std::fs::read(&again).unwrap() == cpio, "deterministic");
}

#[test]
fn no_options_an_empty_file_and_init_names_the_binary() {
    let dir = Scratch::new("initramfs-init");
    // Any ELF file will do as the /init (the boot tests embed other
    // architectures' builds this way).
    let other = dir.file("other-init");
    let mut elf = std::fs::read(BIN).unwrap();
    elf.truncate(4096);
    std::fs::write(&other, &elf).unwrap();
    let file = dir.file("a.cpio");
    let r = run(&["initramfs", "-o", &file, "--init", &other]);
    assert_eq!(r.code, 0, "{}", r.err);
    let e = entries(&std::fs::read(&file).unwrap());
    assert!(e[4].data == elf);
    assert!(e[5].data.is_empty());
    // Not an ELF file: refused before FILE exists.
    let file = dir.file("b.cpio");
    let r = run(&["initramfs", "-o", &file, "--init", "/proc/self/status"]);
    assert_usage_error(
        &r,
        "initramfs: /proc/self/status: not an ELF file, or over 4 GiB",
    );
    let r = run(&["initramfs", "-o", &file, "--init", "/nonexistent"]);
    assert_usage_error(&r, "initramfs: /nonexistent: cannot be read: ENOENT (2)");
    assert!(!std::path::Path::new(&file).exists());
}

/// `--boot-id UUID`: the boot's identity as a file of the archive, after
/// the arguments file (/init reads it: tests/boot_id.rs), the same length
/// for every id, so that two boots' archives differ in its 36 bytes only.
#[test]
fn the_boot_id_is_a_file_of_the_same_length_every_boot() {
    let dir = Scratch::new("initramfs-boot-id");
    let make = |name: &str, id: &str| {
        let file = dir.file(name);
        let r = run(&["initramfs", "-o", &file, "--boot-id", id, "--smoke"]);
        assert_eq!((r.code, r.out.as_str(), r.err.as_str()), (0, "", ""));
        std::fs::read(&file).unwrap()
    };
    let (a, b) = (
        "5f0c2b1e-0a1b-4c2d-8e3f-0123456789ab",
        "0a0a0a0a-0000-4000-8000-00000000000f",
    );
    let (ca, cb) = (make("a.cpio", a), make("b.cpio", b));
    let e = entries(&ca);
    let names: Vec<&str> = e.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names[5..], ["uring-repro.args", "uring-repro.boot_id"]);
    assert_eq!((e[6].mode, e[6].nlink), (0o100644, 1));
    assert_eq!(e[6].data, format!("{a}\n").as_bytes());
    assert_eq!(ca.len(), cb.len());
    let differ = ca.iter().zip(&cb).filter(|(x, y)| x != y).count();
    assert!((1..=36).contains(&differ), "{differ} bytes differ");
    // Without it, no such file.
    let file = dir.file("none.cpio");
    assert_eq!(run(&["initramfs", "-o", &file, "--smoke"]).code, 0);
    let e = entries(&std::fs::read(&file).unwrap());
    assert!(e.iter().all(|e| e.name != "uring-repro.boot_id"));
    // Not a UUID's length: a usage error, and no file.
    let file = dir.file("bad.cpio");
    for bad in ["b1", "5f0c2b1e-0a1b-4c2d-8e3f-0123456789abc"] {
        let r = run(&["initramfs", "-o", &file, "--boot-id", bad]);
        let why = format!("initramfs: --boot-id {bad}: not a boot id (36 characters, a UUID)");
        assert_usage_error(&r, &why);
    }
    let r = run(&["initramfs", "-o", &file, "--boot-id="]);
    assert_usage_error(
        &r,
        "initramfs: --boot-id=: not a boot id (36 characters, a UUID)",
    );
    assert!(!std::path::Path::new(&file).exists());
}

/// `initramfs ... suite ...` bakes a suite: the word `suite` first, then
/// its options as typed, one a line; those lines as arguments (what `/init`
/// runs) are that suite, a point per item.
#[test]
fn a_suite_is_baked_as_its_command_line() {
    let dir = Scratch::new("initramfs-suite");
    let file = dir.file("s.cpio");
    let bake = |list| {
        run(&[
            "initramfs",
            "-o",
            &file,
            "suite",
            "--profiles",
            list,
            "--smoke",
        ])
    };
    assert_usage_error(
        &bake("s0,n0:"),
        "initramfs: --profiles n0:: unknown variant",
    );
    let r = bake("s0,n0");
    assert_eq!((r.code, r.out.as_str(), r.err.as_str()), (0, "", ""));
    let e = entries(&std::fs::read(&file).unwrap());
    assert_eq!(e[5].name, "uring-repro.args");
    let baked = String::from_utf8(e[5].data.clone()).unwrap();
    assert_eq!(baked, "suite\n--profiles\ns0,n0\n--smoke\n");
    let argv: Vec<&str> = baked.lines().collect();
    let r = run(&argv);
    if r.code == 4 {
        return skip(format!("io_uring cannot run here: {}", r.err.trim()));
    }
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    let banners = r.out.lines().filter(|l| l.starts_with("# uring-repro "));
    assert_eq!(banners.count(), 2, "{}", r.out);
    assert!(r.out.ends_with(
        "# suite: items=2 passed=2 failed=0 skipped=0 interrupted=0 not_run=0 exit=0\n"
    ));
}

#[test]
fn never_overwrites_and_a_usage_error_writes_nothing() {
    let dir = Scratch::new("initramfs-excl");
    let file = dir.file("a.cpio");
    std::fs::write(&file, b"keep").unwrap();
    let r = run(&["initramfs", "-o", &file, "--smoke"]);
    assert_usage_error(
        &r,
        &format!("initramfs: {file}: exists (never overwritten)"),
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"keep");
    let file = dir.file("b.cpio");
    for (args, msg) in [
        (
            &["--bogus"][..],
            "initramfs: --bogus: unknown option (see --help)",
        ),
        (
            &["--rounds", "0"],
            "initramfs: --rounds 0: out of range (1..=4096)",
        ),
        (
            &["--profile", "pollwake", "--shared"],
            "initramfs: --shared: does not apply",
        ),
        (
            &["--gate", "5"],
            "initramfs: --gate: does not apply to initramfs",
        ),
        (
            &["suite", "--profiles", "s0,x9"],
            "initramfs: --profiles x9: unknown profile",
        ),
        (
            &["suite", "--profiles", "s0", "--burst", "4"],
            "initramfs: --burst: no profile of the suite takes it (taken by pollwake)",
        ),
        (
            &["--smoke", "suite"],
            "initramfs: suite: comes once, before",
        ),
    ] {
        let mut argv = vec!["initramfs", "-o", &file];
        argv.extend(args);
        assert_usage_error(&run(&argv), msg);
        assert!(!std::path::Path::new(&file).exists(), "{args:?}");
    }
    assert_usage_error(
        &run(&["initramfs", "--smoke"]),
        "initramfs: -o FILE is required (see --help)",
    );
    let r = run(&["initramfs", "-o", "/nonexistent-dir/a.cpio"]);
    assert_usage_error(
        &r,
        "initramfs: /nonexistent-dir/a.cpio: cannot be created: ENOENT (2)",
    );
}

/// What is in `dir`, by name, sorted.
fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Neither the archive nor its partial file is left in `dir`.
#[track_caller]
fn assert_nothing_left(dir: &std::path::Path) {
    assert_eq!(listing(dir), Vec::<String>::new(), "nothing is left");
}

/// The archive under strace, every write slowed down (0.1 s) so that a
/// signal lands mid-archive: `sig` is sent once its partial file exists.
/// How it ended and its stderr; None (skipped) without strace or
/// /proc/PID/task/TID/children.
fn signalled(dir: &Scratch, sig: u32) -> Option<(std::process::ExitStatus, String)> {
    let file = dir.file("a.cpio");
    let mut slowed = utils::under_strace("write:delay_enter=100000")?;
    let mut strace = utils::signals::default_signals(&mut slowed)
        .args(["initramfs", "-o", &file, "--smoke"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The tracee is strace's child; signal it once its file exists.
    let deadline = Instant::now() + Duration::from_secs(30);
    let pid = loop {
        assert!(Instant::now() < deadline, "no archive started");
        let children = format!("/proc/{}/task/{}/children", strace.id(), strace.id());
        let Ok(kids) = std::fs::read_to_string(children) else {
            let _ = (strace.kill(), strace.wait());
            skip("no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)");
            return None;
        };
        if let (Some(pid), false) = (kids.split_whitespace().next(), listing(dir).is_empty()) {
            break pid.to_owned();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let killed = Command::new("kill")
        .args([&format!("-{sig}"), &pid])
        .status();
    assert!(killed.unwrap().success());
    let err = utils::drain(strace.stderr.take());
    Some((strace.wait().unwrap(), err))
}

/// SIGINT or SIGTERM while the archive is written: exit 130 naming the
/// signal, and neither FILE nor a partial file is left.
#[test]
fn an_interrupted_archive_leaves_no_file() {
    for (sig, name) in [(2, "SIGINT"), (15, "SIGTERM")] {
        let dir = Scratch::new(&format!("initramfs-{name}"));
        let file = dir.file("a.cpio");
        let Some((status, err)) = signalled(&dir, sig) else {
            return;
        };
        assert_eq!(status.code(), Some(130), "{status:?} {err}");
        let want = format!("uring-repro: initramfs: {file}: interrupted by {name}; not written\n");
        assert_eq!(err, want);
        assert_nothing_left(&dir);
    }
}

/// Every other signal whose default action ends a process (signal(7):
/// Term or Core) still ends it, by that signal, but removes the partial
/// file first: SIGHUP (a closed terminal), SIGQUIT, SIGUSR1, SIGALRM, a
/// SIGSEGV sent by kill, every real-time signal... Only SIGKILL, which
/// cannot be caught, can leave one. SIGPIPE and SIGXFSZ are ignored (a
/// write fails instead): the archive is written whole.
#[test]
fn every_signal_that_ends_the_archive_removes_its_partial_file() {
    use std::os::unix::process::ExitStatusExt;
    let fatal = [
        1, 3, 4, 5, 6, 7, 8, 10, 11, 12, 14, 16, 24, 26, 27, 29, 30, 31,
    ];
    for sig in fatal.into_iter().chain(32..=64) {
        let dir = Scratch::new(&format!("initramfs-sig{sig}"));
        let Some((status, err)) = signalled(&dir, sig) else {
            return;
        };
        // strace ends as its tracee did: killed by the same signal (or,
        // where strace itself cannot die by it: glibc keeps 32 and 33,
        // exit 128 + the signal).
        let by_sig = status.signal() == Some(sig as i32);
        assert!(
            by_sig || status.code() == Some(128 + sig as i32),
            "{sig}: {status:?} {err}"
        );
        assert_nothing_left(&dir);
    }
    for sig in [13, 25] {
        let dir = Scratch::new(&format!("initramfs-sig{sig}"));
        let Some((status, err)) = signalled(&dir, sig) else {
            return;
        };
        assert_eq!((status.code(), err.as_str()), (Some(0), ""), "{sig}");
        assert_eq!(listing(&dir), ["a.cpio"], "{sig}");
    }
}

/// A write that fails leaves no archive, and says why, as a lost output
/// (exit 1, as a `--tsv` write): past `ulimit -f` (EFBIG; SIGXFSZ is
/// ignored, it used to kill the process and leave a 1 KiB cpio), or a
/// write(2) that takes nothing (strace makes the 3rd, inside the archive,
/// return 0; written again it would spin for ever), EIO.
#[test]
fn a_write_that_fails_leaves_no_archive() {
    let dir = Scratch::new("initramfs-write");
    let file = dir.file("a.cpio");
    let args = ["initramfs", "-o", &file, "--smoke"];
    let efbig = Some(with_file_size_limit(1, &args));
    let zero = with_injected_fault("write:retval=0:when=3", &args);
    // Without strace the second is skipped (and said so).
    for (r, errno) in [(efbig, "EFBIG (27)"), (zero, "EIO (5)")] {
        let Some(r) = r else { continue };
        let why = format!("uring-repro: initramfs: {file}: write failed: {errno}; removed\n");
        assert_eq!(
            (r.code, r.err.as_str(), r.out.as_str()),
            (1, why.as_str(), "")
        );
        assert_nothing_left(&dir);
    }
}

/// The one partial file left in `dir`, by name; none other.
#[track_caller]
fn partial_left(dir: &std::path::Path, also: &[&str]) -> String {
    let names = listing(dir);
    let partial: Vec<&String> = names.iter().filter(|n| n.contains(".partial-")).collect();
    assert_eq!(partial.len(), 1, "{names:?}");
    let others: Vec<&String> = names.iter().filter(|n| !n.contains(".partial-")).collect();
    assert_eq!(others, also, "{names:?}");
    dir.join(partial[0]).to_str().unwrap().to_owned()
}

/// A message claims only what happened: where the partial file cannot be
/// removed (unlink fails: EROFS), it says so and names it, instead of
/// `removed`. After a failed write, and after a rename that failed.
#[test]
fn a_partial_file_that_could_not_be_removed_is_named() {
    let dir = Scratch::new("initramfs-unremoved");
    let file = dir.file("a.cpio");
    let args = ["initramfs", "-o", &file, "--smoke"];
    for (inject, why) in [
        ("write:error=ENOSPC:when=3", "write failed: ENOSPC (28)"),
        (
            "renameat2:error=EXDEV",
            "renaming {partial} into place failed: EXDEV (18)",
        ),
    ] {
        let injects = [inject, "unlinkat:error=EROFS"];
        let Some(r) = with_injected_faults(&injects, &args) else {
            return;
        };
        let partial = partial_left(&dir, &[]);
        let why = why.replace("{partial}", &partial);
        let want =
            format!("uring-repro: initramfs: {file}: {why}; {partial} NOT removed: EROFS (30)\n");
        assert_eq!((r.code, r.err.as_str()), (1, want.as_str()), "{injects:?}");
        std::fs::remove_file(&partial).unwrap();
    }
}

/// Where renameat2's RENAME_NOREPLACE is refused (EINVAL: a filesystem
/// without it), link and unlink publish the archive; where link fails
/// too, nothing is left and the cause is named (a lost output: 1); where
/// the unlink fails, the archive is in place and whole but its partial
/// name is still there: that is no success (1), and the message names it.
#[test]
fn the_archive_is_published_without_renameat2_too() {
    let dir = Scratch::new("initramfs-link");
    let file = dir.file("a.cpio");
    let args = ["initramfs", "-o", &file, "--smoke"];
    let Some(r) = with_injected_fault("renameat2:error=EINVAL", &args) else {
        return;
    };
    assert_eq!((r.code, r.err.as_str()), (0, ""));
    assert_eq!(listing(&dir), ["a.cpio"]);
    let e = entries(&std::fs::read(&file).unwrap());
    assert!(e[4].data == std::fs::read(BIN).unwrap(), "/init is whole");
    std::fs::remove_file(&file).unwrap();
    let Some(r) = with_injected_fault("renameat2,linkat:error=EINVAL", &args) else {
        return;
    };
    let why = format!("uring-repro: initramfs: {file}: renaming {file}.partial-");
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(r.err.starts_with(&why), "{}", r.err);
    assert!(
        r.err
            .ends_with(" into place failed: EINVAL (22); removed\n"),
        "{}",
        r.err
    );
    assert_nothing_left(&dir);
    let injects = ["renameat2:error=EINVAL", "unlinkat:error=EROFS"];
    let Some(r) = with_injected_faults(&injects, &args) else {
        return;
    };
    let partial = partial_left(&dir, &["a.cpio"]);
    let want =
        format!("uring-repro: initramfs: {file}: written; {partial} NOT removed: EROFS (30)\n");
    assert_eq!((r.code, r.err.as_str()), (1, want.as_str()));
    let e = entries(&std::fs::read(&file).unwrap());
    assert!(e[4].data == std::fs::read(BIN).unwrap(), "/init is whole");
}
