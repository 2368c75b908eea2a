//! `initramfs -o FILE [--init PATH] [--boot-id UUID] [run options]`: a bootable initramfs,
//! an uncompressed newc cpio holding
//!
//! | name | what |
//! | --- | --- |
//! | `dev` | directory 0755 |
//! | `dev/console` | character node 5:1, 0600: the kernel opens it as fds 0, 1, 2 of init |
//! | `proc`, `sys` | directories 0555: PID 1 mounts proc and sysfs there (sysfs brings its own `kernel/debug` and `kernel/tracing`) |
//! | `init` | 0755: this binary (`/proc/self/exe`), or `--init PATH`, e.g. another architecture's build |
//! | `uring-repro.args` | 0644: the run options, one a line (args.rs) |
//! | `uring-repro.boot_id` | 0644, with `--boot-id` only: the boot's identity, a UUID and a newline (boot_id.rs) |
//!
//! Owners, times and inode numbers are fixed, so the same `/init`, options
//! and boot id always give the same bytes, and archives of two boot ids
//! differ in those 36 bytes only. The command line parser has checked
//! the run options as `run` checks them before anything here runs.
//!
//! FILE is complete or absent, whatever happens: the archive is written to
//! `FILE.partial-PID` beside it (O_EXCL), then renamed to FILE without
//! replacing anything (`publish`: renameat2's RENAME_NOREPLACE, else link
//! and unlink), so FILE is never overwritten and never seen half-written.
//! The `/init` is read and checked (an ELF file) first. The partial file
//! goes whatever stops the archive: a write that fails (a full disk,
//! `ulimit -f`: EFBIG), SIGINT or SIGTERM (caught, seen between writes),
//! any other signal that would end the process (removed by its handler,
//! which then lets the signal end it: `RemovedOnFatal`); only SIGKILL can
//! leave it. Every message says what became of it (outfile.rs's words).
//! Exit codes: a path or an `/init` that cannot serve is 2; an archive
//! that could not be written or put in place, 1 (outfile.rs: a disk
//! without room is no usage error); an interruption, 130.

pub mod args;
pub mod boot_id;
mod newc;

use core::ffi::CStr;
use core::fmt::{self, Write};

use crate::exit::{self, Exit};
use crate::outfile::{self, NotCreated, Removal};
use crate::render::{Clean, Text};
use crate::sys::signal::{self, RemovedOnFatal};
use crate::sys::{self, uapi, CPath, Errno, Fd};

use newc::{Head, S_IFCHR, S_IFDIR, S_IFREG};

/// The `/init` embedded when `--init` is not given: this very binary.
pub const DEFAULT_INIT: &[u8] = b"/proc/self/exe";

/// What the command line asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec<'a> {
    /// `-o FILE`.
    pub out: &'a [u8],
    /// `--init PATH`, else DEFAULT_INIT.
    pub init: &'a [u8],
    /// `--boot-id UUID`: a UUID's length of bytes.
    pub boot_id: Option<&'a [u8]>,
    /// The run options as typed (each value its own argument when it was).
    pub args: [&'a [u8]; args::ARGS_MAX],
    pub n: usize,
}

impl Spec<'_> {
    pub fn args(&self) -> &[&[u8]] {
        &self.args[..self.n.min(args::ARGS_MAX)]
    }
}

/// What an entry holds.
#[derive(Clone, Copy, PartialEq)]
enum Data {
    Nothing,
    Init,
    Args,
    BootId,
}

/// One entry of the archive.
struct Entry {
    name: &'static [u8],
    mode: u32,
    rdev: (u32, u32),
    data: Data,
}

const fn entry(name: &'static [u8], mode: u32, rdev: (u32, u32), data: Data) -> Entry {
    Entry {
        name,
        mode,
        rdev,
        data,
    }
}

/// The archive, in order (the boot id only when there is one); the
/// trailer ends it.
const ENTRIES: [Entry; 8] = [
    entry(b"dev", S_IFDIR | 0o755, (0, 0), Data::Nothing),
    entry(b"dev/console", S_IFCHR | 0o600, (5, 1), Data::Nothing),
    entry(b"proc", S_IFDIR | 0o555, (0, 0), Data::Nothing),
    entry(b"sys", S_IFDIR | 0o555, (0, 0), Data::Nothing),
    entry(b"init", S_IFREG | 0o755, (0, 0), Data::Init),
    entry(args::NAME, S_IFREG | 0o644, (0, 0), Data::Args),
    entry(boot_id::NAME, S_IFREG | 0o644, (0, 0), Data::BootId),
    entry(newc::TRAILER, 0, (0, 0), Data::Nothing),
];

/// The copy's chunk.
const CHUNK: usize = 16 * 1024;

const BAD_PATH: &str = "a path too long or holding a NUL";

/// `initramfs: WHAT: WHY`, exit 2.
fn refuse(what: &[u8], why: fmt::Arguments<'_>) -> Exit {
    Exit::new(
        exit::USAGE,
        format_args!("initramfs: {}: {why}", Clean(what)),
    )
}

/// Writes the archive `spec` describes.
pub fn write(spec: &Spec<'_>) -> Exit {
    let args_len = match args::check(spec.args()) {
        Ok(n) => n,
        Err(b) => return refuse(b"run options", format_args!("{}", b.text())),
    };
    let Ok(init_z) = CPath::new(spec.init) else {
        return refuse(spec.init, format_args!("{BAD_PATH}"));
    };
    let mut pid: Text = Text::new();
    let _ = write!(pid, ".partial-{}", sys::getpid());
    let (Ok(out_z), Ok(temp)) = (
        CPath::new(spec.out),
        CPath::concat(&[spec.out, pid.as_bytes()]),
    ) else {
        return refuse(spec.out, format_args!("{BAD_PATH}"));
    };
    let init = match open_init(&init_z) {
        Ok(v) => v,
        Err(Fault::Read(e)) => return refuse(spec.init, format_args!("cannot be read: {e}")),
        Err(_) => return refuse(spec.init, format_args!("not an ELF file, or over 4 GiB")),
    };
    // The rename refuses an existing FILE too (one made meanwhile); this
    // says so before anything is written.
    if sys::file_id(&out_z, false).is_ok() {
        return refuse(spec.out, format_args!("{}", NotCreated(Errno::EEXIST)));
    }
    let (fd, _armed) = match RemovedOnFatal::create(&temp, || outfile::create(&temp)) {
        Ok(made) => made,
        Err(e) => {
            let no = NotCreated(e);
            let out = Clean(spec.out);
            return Exit::new(no.code(), format_args!("initramfs: {out}: {no}"));
        }
    };
    let written = archive(fd.raw(), &init, spec, args_len);
    drop(fd);
    let Err(f) = written.and_then(|()| publish(&temp, &out_z)) else {
        return Exit::pass();
    };
    // Half an archive must not pass for one. A published one whose
    // partial name could not go was tried already.
    let removed = match f {
        Fault::Unlink(e) => Err(e),
        _ => sys::unlink(&temp),
    };
    let removal = Removal {
        result: &removed,
        name: Some(temp.name()),
    };
    // Where the message does not otherwise speak of the partial file, a
    // failed removal is still told.
    let left = Left(&removal);
    let (code, out) = (f.code(), Clean(spec.out));
    match f {
        Fault::Rename(Errno::EEXIST) => Exit::new(
            code,
            format_args!("initramfs: {out}: {}{left}", NotCreated(Errno::EEXIST)),
        ),
        Fault::Rename(e) => Exit::new(
            code,
            format_args!(
                "initramfs: {out}: renaming {} into place failed: {e}; {removal}",
                Clean(temp.name())
            ),
        ),
        Fault::Unlink(_) => Exit::new(code, format_args!("initramfs: {out}: written; {removal}")),
        Fault::Write(e) => Exit::new(
            code,
            format_args!("initramfs: {out}: write failed: {e}; {removal}"),
        ),
        Fault::Read(e) => Exit::new(
            code,
            format_args!(
                "initramfs: {out}: {} cannot be read: {e}; {removal}",
                Clean(spec.init)
            ),
        ),
        Fault::Shape => Exit::new(
            code,
            format_args!(
                "initramfs: {out}: {} changed while copied; {removal}",
                Clean(spec.init)
            ),
        ),
        Fault::Interrupted(sig) => Exit::new(
            code,
            format_args!(
                "initramfs: {out}: interrupted by {}; not written{left}",
                signal::name(sig)
            ),
        ),
    }
}

/// `; NAME NOT removed: ERRNO` when the removal failed, else nothing.
struct Left<'r>(&'r Removal<'r>);

impl fmt::Display for Left<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.result {
            Ok(()) => Ok(()),
            Err(_) => write!(f, "; {}", self.0),
        }
    }
}

/// Gives the whole archive at `temp` the name `out`, never over an
/// existing file: renameat2's RENAME_NOREPLACE, one atomic step; where the
/// filesystem (EINVAL) or the kernel (ENOSYS) lacks it, link, which never
/// replaces a file either, then unlink of `temp`. `out` is complete or
/// absent all along.
fn publish(temp: &CStr, out: &CStr) -> Result<(), Fault> {
    match sys::rename_noreplace(temp, out) {
        Err(Errno::EINVAL | Errno::ENOSYS) => {}
        renamed => return renamed.map_err(Fault::Rename),
    }
    sys::link(temp, out).map_err(Fault::Rename)?;
    sys::unlink(temp).map_err(Fault::Unlink)
}

/// Why an archive could not be made.
enum Fault {
    /// Reading the `/init`.
    Read(Errno),
    /// Writing the archive.
    Write(Errno),
    /// Not an ELF file, too large, or its size changed under us.
    Shape,
    /// SIGINT or SIGTERM was caught (the signal).
    Interrupted(u32),
    /// The whole archive could not take FILE's name.
    Rename(Errno),
    /// It took FILE's name by link, but its partial name could not go.
    Unlink(Errno),
}

impl Fault {
    /// The exit code: a `/init` that cannot be read or changes is unusable
    /// input (2), and so is a FILE made meanwhile (outfile.rs); an archive
    /// that could not be written or put in place is a lost output (1); an
    /// interruption is 130.
    fn code(&self) -> i32 {
        match self {
            Fault::Read(_) | Fault::Shape | Fault::Rename(Errno::EEXIST) => exit::USAGE,
            Fault::Write(_) | Fault::Rename(_) | Fault::Unlink(_) => exit::FAIL,
            Fault::Interrupted(_) => exit::INTERRUPTED,
        }
    }
}

/// The `/init` to embed: open, an ELF file, its size.
struct Init {
    fd: Fd,
    size: u32,
}

/// Opens the `/init` and reads it through to size it (a file in /proc may
/// say 0 where it has bytes).
fn open_init(path: &CStr) -> Result<Init, Fault> {
    let fd = sys::open(path, uapi::O_RDONLY, 0).map_err(Fault::Read)?;
    let mut buf = [0u8; CHUNK];
    let mut size = 0u64;
    loop {
        let n = sys::read_to_end(fd.raw(), &mut buf).map_err(Fault::Read)?;
        if size == 0 && !buf[..n].starts_with(b"\x7fELF") {
            return Err(Fault::Shape);
        }
        size += n as u64;
        if n < CHUNK {
            break;
        }
    }
    if size > u32::MAX as u64 {
        return Err(Fault::Shape);
    }
    Ok(Init {
        fd,
        size: size as u32,
    })
}

/// Every entry and the trailer, to `fd`.
fn archive(fd: i32, init: &Init, spec: &Spec, args_len: usize) -> Result<(), Fault> {
    let mut head = [0u8; newc::HEAD_MAX];
    for (i, e) in ENTRIES.iter().enumerate() {
        let size = match e.data {
            Data::Nothing => 0,
            Data::Init => init.size,
            Data::Args => args_len as u32,
            Data::BootId => match spec.boot_id {
                Some(id) => id.len() as u32 + 1,
                None => continue,
            },
        };
        let h = Head {
            // The trailer's inode is 0, as cpio writes it.
            ino: if e.name == newc::TRAILER {
                0
            } else {
                i as u32 + 1
            },
            mode: e.mode,
            rdev: e.rdev,
            size,
            name: e.name,
        };
        let n = newc::head(&h, &mut head).ok_or(Fault::Shape)?;
        write_all(fd, &head[..n])?;
        match e.data {
            Data::Nothing => {}
            Data::Init => copy(init, fd)?,
            Data::Args => {
                for a in spec.args() {
                    write_all(fd, a)?;
                    write_all(fd, b"\n")?;
                }
            }
            Data::BootId => {
                write_all(fd, spec.boot_id.unwrap_or_default())?;
                write_all(fd, b"\n")?;
            }
        }
        write_all(fd, &[0; 3][..newc::pad4(size as usize)])?;
    }
    Ok(())
}

/// The `/init`'s bytes from its start again, exactly as many as it had
/// when sized.
fn copy(init: &Init, fd: i32) -> Result<(), Fault> {
    sys::seek(init.fd.raw(), 0).map_err(Fault::Read)?;
    let mut buf = [0u8; CHUNK];
    let mut at = 0u64;
    loop {
        let n = sys::read_to_end(init.fd.raw(), &mut buf).map_err(Fault::Read)?;
        at += n as u64;
        if at > init.size as u64 {
            return Err(Fault::Shape);
        }
        write_all(fd, &buf[..n])?;
        if n < CHUNK {
            break;
        }
    }
    if at != init.size as u64 {
        return Err(Fault::Shape);
    }
    Ok(())
}

/// Writes all of `b` (sys::write_all); a caught SIGINT or SIGTERM stops
/// the archive first.
fn write_all(fd: i32, b: &[u8]) -> Result<(), Fault> {
    match signal::caught() {
        0 => sys::write_all(fd, b).map_err(Fault::Write),
        sig => Err(Fault::Interrupted(sig)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{self, Command};

    fn spec(args: &[&'static str]) -> Result<Spec<'static>, String> {
        match cli::parse(args.iter().map(|s| s.as_bytes())) {
            Ok(Command::Initramfs(s)) => Ok(s),
            Ok(other) => panic!("{args:?}: {other:?}"),
            Err(e) => Err(e.to_string()),
        }
    }

    /// `-o` and `--init` refuse a path no file can have before anything
    /// is opened: with a NUL inside it would name another file.
    #[test]
    fn paths_no_file_can_have_are_refused() {
        let refused = |out, init| {
            let args = [&b""[..]; args::ARGS_MAX];
            let e = write(&Spec {
                out,
                init,
                boot_id: None,
                args,
                n: 0,
            });
            (e.code, e.cause().as_str().to_string())
        };
        let why = |shown| format!("initramfs: {shown}: a path too long or holding a NUL");
        let (nul_out, nul_init) = (b"/nonexistent/a\0b", b"/proc/self/exe\0junk");
        let out = refused(nul_out, DEFAULT_INIT);
        assert_eq!(out, (exit::USAGE, why("/nonexistent/a\\x00b")));
        let init = refused(b"/nonexistent/x.cpio", nul_init);
        assert_eq!(init, (exit::USAGE, why("/proc/self/exe\\x00junk")));
    }

    #[test]
    fn run_options_are_kept_as_typed_and_checked_as_run_checks_them() {
        let s = spec(&[
            "initramfs",
            "--smoke",
            "-o",
            "x.cpio",
            "--rounds",
            "2",
            "--cpu=0",
        ]);
        let s = s.unwrap();
        assert_eq!((s.out, s.init), (&b"x.cpio"[..], DEFAULT_INIT));
        let want: [&[u8]; 5] = [b"--smoke", b"--rounds", b"2", b"--cpu=0", b""];
        assert_eq!(s.args(), &want[..4]);
        let s = spec(&["initramfs", "--init", "/b", "-o", "y"]).unwrap();
        assert_eq!((s.out, s.init, s.n), (&b"y"[..], &b"/b"[..], 0));
        // initramfs's command lines (its words split at spaces), and what
        // each is told.
        for (line, why) in [
            ("--smoke", "-o FILE is required (see --help)"),
            ("-o", "-o: needs a value"),
            ("-o ", "-o : needs a value"),
            ("-o a -o b", "-o: given more than once"),
            ("-o a --rounds 0", "--rounds 0: out of range (1..=4096)"),
            (
                "-o a --smoke --trace",
                "--trace: --smoke and --trace exclude each other",
            ),
            (
                "-o a --burst 2",
                "--burst: does not apply to profile s0_wait_wake",
            ),
            ("-o a --gate 2", "--gate: does not apply to initramfs"),
            (
                "-o a --tsv a\nb",
                "--tsv: an argument with a newline cannot be baked",
            ),
        ] {
            let args: Vec<_> = ["initramfs"].into_iter().chain(line.split(' ')).collect();
            let want = format!("initramfs: {why}");
            assert_eq!(spec(&args).unwrap_err(), want, "{line}");
        }
        let not_run = |args| spec(args).unwrap_err();
        assert_eq!(not_run(&["run", "-o", "a"]), "-o: does not apply to run");
        assert_eq!(
            not_run(&["run", "--init", "a"]),
            "--init: does not apply to run"
        );
        // Every option at most once: too many arguments cannot happen,
        // too many bytes can.
        let long: &'static str = "x".repeat(args::FILE_MAX - 10).leak();
        let argv = ["initramfs", "-o", "a", "--smoke", "--tsv", long];
        let why = "initramfs: the arguments exceed 4096 bytes, one a line";
        assert_eq!(spec(&argv).unwrap_err(), why);
        assert_eq!(
            spec(&argv[..5]).unwrap_err(),
            "initramfs: --tsv: needs a value"
        );
    }
}
