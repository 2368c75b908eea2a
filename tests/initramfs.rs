//! `initramfs -o FILE`: the archive read back entry by entry with a newc
//! reader of its own (names, modes, links, the console's device number,
//! the embedded /init against the binary, the arguments file), the same
//! bytes twice, O_EXCL, and no file after a usage error.

mod utils;

use utils::{assert_usage_error, run, Scratch, BIN};

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
