//! Paths as the kernel reads them: `&CStr`, the bytes up to a NUL, at most
//! PATH_MAX of them with it. Every wrapper that takes a path takes a
//! `&CStr`, so none checks its argument at run time: a literal is
//! `c"/proc/self/stat"` (the compiler refuses a NUL inside), and a path
//! made at run time (an argument, a name with a PID in it) is a `CPath`,
//! checked once when it is made. Bytes no file can be named by (one that
//! holds a NUL would name another file: the one before it) are refused
//! there, the same way wherever they come from.

use core::ffi::CStr;
use core::fmt::{self, Write};
use core::ops::Deref;

use super::uapi::PATH_MAX;
use super::Errno;

/// Why bytes cannot be a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadPath {
    /// PATH_MAX bytes or more with the NUL: the kernel's ENAMETOOLONG.
    TooLong,
    /// A NUL byte inside.
    Nul,
}

impl fmt::Display for BadPath {
    /// What the kernel says of a path so long (as it did when it was the
    /// one to refuse it); a NUL, in words: there is no errno for it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadPath::TooLong => Errno::ENAMETOOLONG.fmt(f),
            BadPath::Nul => f.write_str("a NUL byte in the path"),
        }
    }
}

/// For callers that report errnos: EINVAL for a NUL, as rustix says it.
impl From<BadPath> for Errno {
    fn from(b: BadPath) -> Errno {
        match b {
            BadPath::TooLong => Errno::ENAMETOOLONG,
            BadPath::Nul => Errno::EINVAL,
        }
    }
}

/// A path made at run time, with the NUL a system call needs after it;
/// a `&CStr` wherever one is taken.
pub struct CPath {
    buf: [u8; PATH_MAX],
    len: usize,
}

impl CPath {
    /// `path` and a NUL.
    pub fn new(path: &[u8]) -> Result<CPath, BadPath> {
        CPath::concat(&[path])
    }

    /// The parts one after the other, and a NUL. Not inlined: cold (a path
    /// is made before a file is opened), and inlined it was copied into
    /// twenty-odd callers.
    #[inline(never)]
    pub fn concat(parts: &[&[u8]]) -> Result<CPath, BadPath> {
        let mut p = CPath::empty();
        for part in parts {
            p.push(part)?;
        }
        Ok(p)
    }

    /// The formatted text, and a NUL.
    pub fn format(args: fmt::Arguments<'_>) -> Result<CPath, BadPath> {
        struct Formatting(CPath, Result<(), BadPath>);
        impl Write for Formatting {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                self.1 = self.0.push(s.as_bytes());
                self.1.map_err(|_| fmt::Error)
            }
        }
        let mut w = Formatting(CPath::empty(), Ok(()));
        let _ = w.write_fmt(args);
        w.1.map(|()| w.0)
    }

    fn empty() -> CPath {
        CPath {
            buf: [0; PATH_MAX],
            len: 0,
        }
    }

    fn push(&mut self, part: &[u8]) -> Result<(), BadPath> {
        let end = self.len + part.len();
        if end >= PATH_MAX {
            return Err(BadPath::TooLong);
        }
        if part.contains(&0) {
            return Err(BadPath::Nul);
        }
        self.buf[self.len..end].copy_from_slice(part);
        self.len = end;
        Ok(())
    }

    /// The path without its NUL.
    pub fn name(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Deref for CPath {
    type Target = CStr;

    fn deref(&self) -> &CStr {
        // SAFETY: buf[len] is a NUL (the buffer starts zeroed and `push`
        // stops short of its last byte) and no byte before it is one
        // (`push` refuses them).
        unsafe { CStr::from_bytes_with_nul_unchecked(&self.buf[..=self.len]) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_checked_once_when_made() {
        let p = CPath::concat(&[b"/tmp/a", b".partial-7"]).unwrap();
        assert_eq!(p.to_bytes_with_nul(), b"/tmp/a.partial-7\0");
        assert_eq!(p.name(), b"/tmp/a.partial-7");
        let p = CPath::format(format_args!("/proc/self/task/{}/stat", 42)).unwrap();
        assert_eq!(p.to_bytes(), b"/proc/self/task/42/stat");
        assert_eq!(CPath::new(b"").unwrap().to_bytes_with_nul(), b"\0");
        // A NUL inside, wherever it is made from.
        assert_eq!(CPath::new(b"a\0b").err(), Some(BadPath::Nul));
        assert_eq!(CPath::new(b"a\0").err(), Some(BadPath::Nul));
        assert_eq!(CPath::concat(&[b"a", b"\0"]).err(), Some(BadPath::Nul));
        let nul = CPath::format(format_args!("a{}b", '\0'));
        assert_eq!(nul.err(), Some(BadPath::Nul));
        // PATH_MAX counts the NUL: 4095 bytes are a path, 4096 are not.
        let long = [b'x'; PATH_MAX];
        assert_eq!(
            CPath::new(&long[..PATH_MAX - 1]).unwrap().name().len(),
            4095
        );
        assert_eq!(CPath::new(&long).err(), Some(BadPath::TooLong));
        let halves = [&long[..2048], &long[..2048]];
        assert_eq!(CPath::concat(&halves).err(), Some(BadPath::TooLong));
        let s = core::str::from_utf8(&long).unwrap();
        let formatted = CPath::format(format_args!("{s}"));
        assert_eq!(formatted.err(), Some(BadPath::TooLong));
    }

    #[test]
    fn what_a_bad_path_says() {
        assert_eq!(BadPath::TooLong.to_string(), "ENAMETOOLONG (36)");
        assert_eq!(BadPath::Nul.to_string(), "a NUL byte in the path");
        assert_eq!(Errno::from(BadPath::Nul), Errno::EINVAL);
        assert_eq!(Errno::from(BadPath::TooLong), Errno::ENAMETOOLONG);
    }

    /// The kernel draws the line where CPath does: 4095 bytes and a NUL
    /// are looked up (ENOENT), 4096 and a NUL refused (ENAMETOOLONG).
    #[test]
    fn the_kernel_agrees_on_path_max() {
        use crate::sys::{open, uapi::O_RDONLY};
        let mut long = [b'/'; PATH_MAX + 1];
        long[PATH_MAX - 2] = b'x';
        let p = CPath::new(&long[..PATH_MAX - 1]).unwrap();
        assert_eq!(open(&p, O_RDONLY, 0).err(), Some(Errno::ENOENT));
        long[PATH_MAX - 2] = b'/';
        long[PATH_MAX - 1] = b'x';
        long[PATH_MAX] = 0;
        let too_long = CStr::from_bytes_with_nul(&long).unwrap();
        assert_eq!(open(too_long, O_RDONLY, 0).err(), Some(Errno::ENAMETOOLONG));
    }
}
