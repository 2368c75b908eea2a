//! A point appears whole or not at all, and never over anything. A run's
//! point is written to `POINT.partial-PID` beside it (O_EXCL) and given
//! its name with link(2), which fails rather than replace a file; the
//! partial name then goes. A suite's directory is made as
//! `DIR.partial-PID` beside it, filled, and renamed into place with
//! renameat2's RENAME_NOREPLACE, which fails rather than replace anything
//! (an empty directory too); where the filesystem lacks that flag, an
//! empty DIR is made first (mkdir fails on anything there) and replaced
//! by the whole one (rename fails on a DIR that is no longer empty).
//!
//! Whatever stops the writing, the partial file or directory goes: a
//! write that fails, SIGINT or SIGTERM (seen between writes), and for a
//! point any other signal that would end the process (`RemovedOnFatal`);
//! only SIGKILL (and, for a directory, another fatal signal) can leave it.
//! A POINT or DIR that is there when the whole one is to take its name is
//! kept, and so is what was made, under its partial name, which the
//! message gives: the boot that made it cannot be had again. Every failure
//! is exit 2: the run's own exit code 1 is a failed check, and these are
//! boot-point.sh's codes (an output that cannot be written is 2 there).

use core::cell::Cell;
use core::ffi::CStr;
use core::fmt::{self, Write};

use crate::exit::{self, Exit};
use crate::outfile::Removal;
use crate::render::{Clean, Text};
use crate::sys::out::Out;
use crate::sys::signal::{self, RemovedOnFatal};
use crate::sys::{self, uapi, BadPath, CPath, Errno, Fd};

/// Most files in one suite's directory: its items' points and suite.txt.
pub const MAX_FILES: usize = 65;

/// `points: OUT: WHY`, exit 2.
fn refuse(out: &[u8], why: fmt::Arguments) -> Exit {
    let out = Clean(out);
    Exit::new(exit::USAGE, format_args!("points: {out}: {why}"))
}

/// `OUT.partial-PID`.
fn partial(out: &[u8]) -> Result<CPath, Exit> {
    let mut pid: Text<24> = Text::new();
    let _ = write!(pid, ".partial-{}", sys::getpid());
    CPath::concat(&[out, pid.as_bytes()]).map_err(|b| bad_path(out, b))
}

fn bad_path(out: &[u8], b: BadPath) -> Exit {
    refuse(out, format_args!("cannot be a path: {b}"))
}

/// A new file at `path`, mode 0666 less the umask, as the shell's `>`.
fn create(path: &CStr) -> sys::SysResult<Fd> {
    let flags = uapi::O_WRONLY | uapi::O_CREAT | uapi::O_EXCL;
    sys::open(path, flags, 0o666)
}

/// Fills the file open as `fd` with what `fill` writes; a failed write
/// or a caught SIGINT or SIGTERM stops it.
fn write(fd: &Fd, fill: &mut dyn FnMut(&mut Out)) -> Result<(), Stop> {
    let mut out = Out::new(fd.raw());
    fill(&mut out);
    out.flush();
    match (out.error(), signal::caught()) {
        (Some(e), _) => Err(Stop::Failed(e)),
        (None, 0) => Ok(()),
        (None, sig) => Err(Stop::Interrupted(sig)),
    }
}

/// Why writing stopped.
#[derive(Clone, Copy)]
enum Stop {
    Failed(Errno),
    Interrupted(u32),
}

impl Stop {
    fn code(self) -> i32 {
        match self {
            Stop::Failed(_) => exit::USAGE,
            Stop::Interrupted(_) => exit::INTERRUPTED,
        }
    }
}

/// `points: OUT: not written: WHY; REMOVAL`: what stopped the writing of
/// `what` (`it`, or a file of a suite's), and what became of what was
/// made.
fn stopped(out: &[u8], what: &[u8], stop: Stop, removal: Removal) -> Exit {
    let (out, what) = (Clean(out), Clean(what));
    match stop {
        Stop::Failed(e) => Exit::new(
            stop.code(),
            format_args!("points: {out}: not written: writing {what} failed: {e}; {removal}"),
        ),
        Stop::Interrupted(sig) => Exit::new(
            stop.code(),
            format_args!(
                "points: {out}: not written: interrupted by {}; {removal}",
                signal::name(sig)
            ),
        ),
    }
}

/// The point `out` with what `fill` writes: made whole beside it, then
/// linked into place.
pub fn file(out: &[u8], fill: &mut dyn FnMut(&mut Out)) -> Result<(), Exit> {
    let out_z = CPath::new(out).map_err(|b| bad_path(out, b))?;
    let temp = partial(out)?;
    let (fd, armed) = RemovedOnFatal::create(&temp, || create(&temp)).map_err(|e| {
        let temp = Clean(temp.name());
        refuse(out, format_args!("not written: cannot create {temp}: {e}"))
    })?;
    let written = write(&fd, fill);
    drop(fd);
    let removal = |r| Removal {
        result: r,
        name: Some(temp.name()),
    };
    if let Err(stop) = written {
        let removed = sys::unlink(&temp);
        return Err(stopped(out, b"it", stop, removal(&removed)));
    }
    let linked = sys::link(&temp, &out_z);
    // Kept, or linked: no signal may remove it now.
    drop(armed);
    match linked {
        Ok(()) => {}
        Err(Errno::EEXIST) => {
            // The report of a boot is not thrown away.
            let temp = Clean(temp.name());
            return Err(refuse(
                out,
                format_args!("exists (never overwritten); this report is kept as {temp}"),
            ));
        }
        Err(e) => {
            let removed = sys::unlink(&temp);
            let temp = Clean(temp.name());
            return Err(refuse(
                out,
                format_args!(
                    "not written: cannot link {temp} into place: {e}; {}",
                    removal(&removed)
                ),
            ));
        }
    }
    if let Err(e) = sys::unlink(&temp) {
        let (out, temp) = (Clean(out), Clean(temp.name()));
        exit::warn(format_args!(
            "points: {out}: written; {temp} NOT removed: {e}"
        ));
    }
    Ok(())
}

/// The longest name of a file in a suite's directory.
const NAME_MAX: usize = 128;

/// A suite's directory being made beside its name; dropped before it is
/// in place (a point of it refused, a write that failed), it goes with
/// everything in it.
pub struct Dir<'a> {
    out: &'a [u8],
    temp: CPath,
    /// The names of the files made in it.
    names: [Text<NAME_MAX>; MAX_FILES],
    n: usize,
    /// In place, kept, or removed: nothing left for `drop` to do.
    settled: Cell<bool>,
}

impl<'a> Dir<'a> {
    /// `out.partial-PID`, a new directory (mode 0777 less the umask).
    /// Not inlined: inlined into its caller, the Dir (a path and 65
    /// names, 13 KiB) was copied there field by field, 14 KB of moves;
    /// returned from a call it is built in place.
    #[inline(never)]
    pub fn begin(out: &'a [u8]) -> Result<Dir<'a>, Exit> {
        let temp = partial(out)?;
        sys::mkdir(&temp, 0o777).map_err(|e| {
            let temp = Clean(temp.name());
            refuse(out, format_args!("not written: cannot create {temp}: {e}"))
        })?;
        Ok(Dir {
            out,
            temp,
            names: [Text::new(); MAX_FILES],
            n: 0,
            settled: Cell::new(false),
        })
    }

    /// The file `name` in it, with what `fill` writes; on a failure
    /// everything made goes.
    pub fn add(&mut self, name: &str, fill: &mut dyn FnMut(&mut Out)) -> Result<(), Exit> {
        let path = CPath::concat(&[self.temp.name(), b"/", name.as_bytes()]);
        let path = match path {
            Ok(p) if self.n < MAX_FILES && name.len() <= NAME_MAX => p,
            _ => {
                let why = format_args!("no room for a file named {name} in it");
                return Err(self.abandon(exit::USAGE, why));
            }
        };
        let fd = match create(&path) {
            Ok(fd) => fd,
            Err(e) => {
                let why = format_args!("cannot create {name}: {e}");
                return Err(self.abandon(exit::USAGE, why));
            }
        };
        let _ = self.names[self.n].write_str(name);
        self.n += 1;
        let written = write(&fd, fill);
        drop(fd);
        if let Err(stop) = written {
            let removed = self.remove();
            let removal = Removal {
                result: &removed,
                name: Some(self.temp.name()),
            };
            return Err(stopped(self.out, name.as_bytes(), stop, removal));
        }
        Ok(())
    }

    /// Renamed into place whole, never over anything.
    pub fn finish(self) -> Result<(), Exit> {
        let out = CPath::new(self.out).map_err(|b| bad_path(self.out, b))?;
        let placed = match sys::rename_noreplace(&self.temp, &out) {
            Err(Errno::EINVAL | Errno::ENOSYS) => {
                sys::mkdir(&out, 0o700).and_then(|()| sys::rename(&self.temp, &out))
            }
            placed => placed,
        };
        let temp = Clean(self.temp.name());
        match placed {
            Ok(()) => {
                self.settled.set(true);
                Ok(())
            }
            Err(Errno::EEXIST | Errno::ENOTEMPTY) => {
                // The points of a boot are not thrown away.
                self.settled.set(true);
                Err(refuse(
                    self.out,
                    format_args!("exists (never overwritten); these points are kept in {temp}"),
                ))
            }
            Err(e) => {
                let why = format_args!("cannot rename {temp} into place: {e}");
                Err(self.abandon(exit::USAGE, why))
            }
        }
    }

    /// Everything made removed; `points: OUT: not written: WHY; REMOVAL`.
    fn abandon(&self, code: i32, why: fmt::Arguments) -> Exit {
        let removed = self.remove();
        let removal = Removal {
            result: &removed,
            name: Some(self.temp.name()),
        };
        let out = Clean(self.out);
        Exit::new(
            code,
            format_args!("points: {out}: not written: {why}; {removal}"),
        )
    }

    /// Every file made removed, then the directory.
    fn remove(&self) -> sys::SysResult<()> {
        self.settled.set(true);
        let mut result = Ok(());
        for name in &self.names[..self.n] {
            if let Ok(p) = CPath::concat(&[self.temp.name(), b"/", name.as_bytes()]) {
                result = result.and(sys::unlink(&p));
            }
        }
        result.and(sys::rmdir(&self.temp))
    }
}

impl Drop for Dir<'_> {
    fn drop(&mut self) {
        if !self.settled.get() {
            let _ = self.remove();
        }
    }
}
