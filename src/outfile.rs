//! A file the user names for output (`--tsv FILE`, `initramfs -o FILE`):
//! made new, never over an existing file (O_EXCL), and complete or absent
//! after any failure the process sees. What its failures are, in exit
//! codes and in words, is said here once for every such file:
//!
//! - a path that cannot be a new file is a usage error (2): the command
//!   line has to change. It exists, its directory does not (ENOENT,
//!   ENOTDIR), it is a directory, the user may not write there (EACCES,
//!   EPERM), the filesystem is read-only (EROFS), it is too long or loops
//!   (ELOOP);
//! - a file that cannot be made or written for want of room, or for an I/O
//!   error, is an output that could not be written (1), at its creation
//!   as at any later write: the same command can succeed once there is
//!   room. ENOSPC (a full disk, or no inode left), EDQUOT, EFBIG (past
//!   `ulimit -f`; SIGXFSZ is ignored), EIO, and the box's own limits
//!   (ENOMEM, EMFILE, ENFILE);
//! - a message says what became of a file that is not whole: `removed`,
//!   or `NOT removed: ERRNO`, with the file's name where the message does
//!   not already show it.

use core::ffi::CStr;
use core::fmt;

use crate::exit;
use crate::render::Clean;
use crate::sys::{self, uapi, Errno, Fd, SysResult};

/// Opens `path` for writing as a new file, mode 0644 (EEXIST if anything
/// is there, a dangling symbolic link included).
pub fn create(path: &CStr) -> SysResult<Fd> {
    let flags = uapi::O_WRONLY | uapi::O_CREAT | uapi::O_EXCL;
    sys::open(path, flags, 0o644)
}

/// True when `e` says the filesystem or the box ran out of room (or
/// failed), not that the path is wrong.
pub fn lacks_room(e: Errno) -> bool {
    matches!(
        e,
        Errno::ENOSPC
            | Errno::EDQUOT
            | Errno::EFBIG
            | Errno::EIO
            | Errno::ENOMEM
            | Errno::EMFILE
            | Errno::ENFILE
    )
}

/// `create` failed with the errno: `exists (never overwritten)` or
/// `cannot be created: ERRNO`, and its exit code (above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NotCreated(pub Errno);

impl NotCreated {
    pub fn code(self) -> i32 {
        if lacks_room(self.0) {
            exit::FAIL
        } else {
            exit::USAGE
        }
    }
}

impl fmt::Display for NotCreated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Errno::EEXIST => f.write_str("exists (never overwritten)"),
            e => write!(f, "cannot be created: {e}"),
        }
    }
}

/// What became of a file that is not whole once its removal was tried:
/// `removed`, or `NOT removed: ERRNO` (`NAME NOT removed: ERRNO` with a
/// name: where the message names another file).
pub struct Removal<'r> {
    pub result: &'r SysResult<()>,
    pub name: Option<&'r [u8]>,
}

impl<'r> Removal<'r> {
    /// The removal of the file the message is about.
    pub fn of(result: &'r SysResult<()>) -> Removal<'r> {
        Removal { result, name: None }
    }
}

impl fmt::Display for Removal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.result, self.name) {
            (Ok(()), _) => f.write_str("removed"),
            (Err(e), None) => write!(f, "NOT removed: {e}"),
            (Err(e), Some(name)) => write!(f, "{} NOT removed: {e}", Clean(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_an_output_failure_and_a_bad_path_a_usage_error() {
        for e in [Errno::ENOSPC, Errno::EDQUOT, Errno::EFBIG, Errno::EIO] {
            assert_eq!(NotCreated(e).code(), exit::FAIL, "{e}");
        }
        for e in [
            Errno::EEXIST,
            Errno::ENOENT,
            Errno(20), // ENOTDIR
            Errno(21), // EISDIR
            Errno::EACCES,
            Errno::EPERM,
            Errno::EROFS,
            Errno::ENAMETOOLONG,
            Errno(40), // ELOOP
        ] {
            assert_eq!(NotCreated(e).code(), exit::USAGE, "{e}");
        }
        assert_eq!(
            NotCreated(Errno::EEXIST).to_string(),
            "exists (never overwritten)"
        );
        assert_eq!(
            NotCreated(Errno::ENOSPC).to_string(),
            "cannot be created: ENOSPC (28)"
        );
    }

    #[test]
    fn a_removal_claims_only_what_happened() {
        let (done, failed) = (Ok(()), Err(Errno::EROFS));
        assert_eq!(Removal::of(&done).to_string(), "removed");
        assert_eq!(Removal::of(&failed).to_string(), "NOT removed: EROFS (30)");
        let named = |result| {
            let name = Some(&b"a.cpio.partial-7"[..]);
            Removal { result, name }.to_string()
        };
        assert_eq!(named(&done), "removed");
        assert_eq!(named(&failed), "a.cpio.partial-7 NOT removed: EROFS (30)");
    }
}
