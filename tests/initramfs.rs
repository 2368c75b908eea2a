//! `initramfs -o FILE`: the archive read back entry by entry with a newc
//! reader of its own (names, modes, links, the console's device number,
//! the embedded /init against the binary, the arguments file), the same
//! bytes twice, O_EXCL, and no file after a usage error.

mod utils;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use utils::{
    assert_usage_error, run, skip, with_file_size_limit, with_injected_fault, Scratch, BIN,
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

/// SIGINT or SIGTERM while the archive is written: exit 130 naming the
/// signal, and neither FILE nor a partial file is left. strace slows every
/// write down (0.1 s) so the signal lands mid-archive.
#[test]
fn an_interrupted_archive_leaves_no_file() {
    for sig in ["INT", "TERM"] {
        let dir = Scratch::new(&format!("initramfs-sig{sig}"));
        let file = dir.file("a.cpio");
        let Some(mut slowed) = utils::under_strace("write:delay_enter=100000") else {
            return;
        };
        let mut strace = slowed
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
                return skip("no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)");
            };
            if let (Some(pid), false) = (kids.split_whitespace().next(), listing(&dir).is_empty()) {
                break pid.to_owned();
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let killed = Command::new("kill")
            .args([&format!("-{sig}"), &pid])
            .status();
        assert!(killed.unwrap().success());
        let err = utils::drain(strace.stderr.take());
        let status = strace.wait().unwrap();
        let name = format!("SIG{sig}");
        assert_eq!(status.code(), Some(130), "{status:?} {err}");
        let want = format!("uring-repro: initramfs: {file}: interrupted by {name}; not written\n");
        assert_eq!(err, want);
        assert_nothing_left(&dir);
    }
}

/// A write that fails leaves no archive, and says why: past `ulimit -f`
/// (EFBIG; SIGXFSZ is ignored, it used to kill the process and leave a
/// 1 KiB cpio), or a write(2) that takes nothing (strace makes the 3rd,
/// inside the archive, return 0; written again it would spin for ever),
/// EIO.
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
        let why = format!("initramfs: {file}: write failed: {errno}; removed");
        assert_usage_error(&r, &why);
        assert_nothing_left(&dir);
    }
}

/// Where renameat2's RENAME_NOREPLACE is refused (EINVAL: a filesystem
/// without it), link and unlink publish the archive; where link fails
/// too, nothing is left and the cause is named.
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
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.starts_with(&why), "{}", r.err);
    assert!(
        r.err
            .ends_with(" into place failed: EINVAL (22); removed\n"),
        "{}",
        r.err
    );
    assert_nothing_left(&dir);
}
