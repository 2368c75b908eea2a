//! The run options an initramfs carries: `/uring-repro.args`, one argument
//! a line, every line ended by `\n` (so no argument holds a newline; an
//! empty file is no options, the default run). `initramfs` writes it from
//! its command line; as `/init` of a fresh boot with no arguments from the
//! kernel command line (nothing after `--`), the binary runs what it says.
//! Arguments after `--` win: the file is then not even opened.

use core::ffi::CStr;
use core::iter::Peekable;

use crate::exit::{self, Exit};
use crate::sys::{self, Errno};

/// Where the file is at boot (the root of the initramfs).
pub const PATH: &CStr = c"/uring-repro.args";
/// Its name in the archive.
pub const NAME: &[u8] = b"uring-repro.args";
/// Longest file accepted, in bytes: `initramfs` refuses to write a longer one.
pub const FILE_MAX: usize = 4096;
/// Most arguments baked (the kernel itself passes init at most 31).
pub const ARGS_MAX: usize = 64;

/// Why baked arguments are refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bad {
    TooMany,
    TooLong,
    /// An argument with a newline (it would read back as two).
    Newline,
    /// The file's last line lacks its `\n` (cut short?).
    Unterminated,
    Unreadable(Errno),
}

impl Bad {
    pub fn text(self) -> &'static str {
        match self {
            Bad::TooMany => "more than 64 arguments to bake",
            Bad::TooLong => "the arguments exceed 4096 bytes, one a line",
            Bad::Newline => "an argument with a newline cannot be baked",
            Bad::Unterminated => "the last line has no newline (cut short?)",
            Bad::Unreadable(_) => "cannot be read",
        }
    }
}

/// Checks that `args` can be baked; returns the file's length.
pub fn check(args: &[&[u8]]) -> Result<usize, Bad> {
    if args.len() > ARGS_MAX {
        return Err(Bad::TooMany);
    }
    if args.iter().any(|a| a.contains(&b'\n')) {
        return Err(Bad::Newline);
    }
    let len = args.iter().map(|a| a.len() + 1).sum();
    if len > FILE_MAX {
        return Err(Bad::TooLong);
    }
    Ok(len)
}

/// The file's lines, as arguments.
#[derive(Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        let i = self.rest.iter().position(|&b| b == b'\n')?;
        let line = &self.rest[..i];
        self.rest = &self.rest[i + 1..];
        Some(line)
    }
}

/// The arguments in a file's bytes.
pub fn decode(file: &[u8]) -> Result<Lines<'_>, Bad> {
    if file.len() > FILE_MAX {
        return Err(Bad::TooLong);
    }
    if !file.is_empty() && !file.ends_with(b"\n") {
        return Err(Bad::Unterminated);
    }
    Ok(Lines { rest: file })
}

/// The arguments a run gets: the kernel's (or a shell's), or the baked ones.
pub enum Argv<'a, I: Iterator> {
    Given(Peekable<I>),
    Baked(Lines<'a>),
}

impl<'a, 'g: 'a, I: Iterator<Item = &'g [u8]>> Iterator for Argv<'a, I> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        match self {
            Argv::Given(i) => i.next(),
            Argv::Baked(l) => l.next(),
        }
    }
}

/// argv[1..] as given; but for the init of a fresh boot given none, the
/// baked ones (none either when the archive has no such file). `buf` holds
/// the file.
pub fn argv<'a, 'g: 'a, I: Iterator<Item = &'g [u8]>>(
    given: I,
    init: bool,
    buf: &'a mut [u8; FILE_MAX + 1],
) -> Result<Argv<'a, I>, Exit> {
    let mut given = given.peekable();
    if !init || given.peek().is_some() {
        return Ok(Argv::Given(given));
    }
    let bad = |b: Bad| {
        let path = "/uring-repro.args";
        match b {
            Bad::Unreadable(e) => Exit::new(exit::USAGE, format_args!("{path}: {}: {e}", b.text())),
            _ => Exit::new(exit::USAGE, format_args!("{path}: {}", b.text())),
        }
    };
    match sys::read_file(PATH, buf) {
        Err(Errno::ENOENT) => Ok(Argv::Given(given)),
        Err(e) => Err(bad(Bad::Unreadable(e))),
        Ok(file) => decode(file).map(Argv::Baked).map_err(bad),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(file: &[u8]) -> Vec<&[u8]> {
        decode(file).unwrap().collect()
    }

    #[test]
    fn one_argument_a_line_empty_ones_too() {
        assert_eq!(lines(b""), Vec::<&[u8]>::new());
        assert_eq!(lines(b"--smoke\n"), vec![&b"--smoke"[..]]);
        assert_eq!(
            lines(b"--rounds\n3\n\n--cpu=0\n"),
            vec![&b"--rounds"[..], b"3", b"", b"--cpu=0"]
        );
        assert_eq!(decode(b"--smoke").err(), Some(Bad::Unterminated));
        assert_eq!(decode(&[b'\n'; FILE_MAX + 1]).err(), Some(Bad::TooLong));
        assert_eq!(lines(&[b'\n'; FILE_MAX]).len(), FILE_MAX);
    }

    #[test]
    fn what_cannot_be_baked() {
        assert_eq!(check(&[b"--smoke", b""]), Ok(9));
        assert_eq!(check(&[]), Ok(0));
        assert_eq!(check(&[b"a\nb"]), Err(Bad::Newline));
        assert_eq!(check(&[&b"x"[..]; ARGS_MAX + 1]), Err(Bad::TooMany));
        let long = [b'x'; FILE_MAX];
        assert_eq!(check(&[&long[..]]), Err(Bad::TooLong));
        assert_eq!(check(&[&long[..FILE_MAX - 1]]), Ok(FILE_MAX));
    }

    #[test]
    fn given_arguments_win_and_only_init_reads_the_file() {
        let mut buf = [0u8; FILE_MAX + 1];
        let given: [&[u8]; 1] = [b"--smoke"];
        let a: Vec<_> = argv(given.into_iter(), true, &mut buf)
            .ok()
            .unwrap()
            .collect();
        assert_eq!(a, vec![&b"--smoke"[..]]);
        // Not init: no file is read (the test process has none at /).
        let none: [&[u8]; 0] = [];
        let mut buf = [0u8; FILE_MAX + 1];
        let a = argv(none.into_iter(), false, &mut buf).ok().unwrap();
        assert_eq!(a.count(), 0);
    }
}
