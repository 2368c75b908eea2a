//! A buffered writer on a file descriptor: the run's stdout, stderr, the
//! `--tsv` file. A failed write (a closed pipe, a full disk) marks the
//! writer broken, keeping its errno, and later writes are dropped, so the
//! caller can end with the right exit code and name the cause instead of
//! dying of SIGPIPE.

use core::fmt;

use super::{write_all, Errno};

pub struct Out {
    fd: i32,
    buf: [u8; 4096],
    len: usize,
    /// Why the first failed write failed.
    error: Option<Errno>,
}

impl Out {
    /// Not inlined: each of its fifteen-odd callers cleared the 4 KiB
    /// buffer with its own memset call and set the fields around it.
    #[inline(never)]
    pub const fn new(fd: i32) -> Out {
        Out {
            fd,
            buf: [0; 4096],
            len: 0,
            error: None,
        }
    }

    /// A writer that discards everything without a system call (selftest
    /// runs each workload with its table going nowhere).
    pub const fn null() -> Out {
        Out::new(-1)
    }

    /// True once a write failed.
    pub fn broken(&self) -> bool {
        self.error.is_some()
    }

    /// The errno of the first write that failed.
    pub fn error(&self) -> Option<Errno> {
        self.error
    }

    /// Writes out what is buffered (a row is flushed as its round ends).
    pub fn flush(&mut self) {
        if self.fd >= 0 && self.error.is_none() {
            self.error = write_all(self.fd, &self.buf[..self.len]).err();
        }
        self.len = 0;
    }

    pub fn bytes(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            if self.len == self.buf.len() {
                self.flush();
            }
            let n = b.len().min(self.buf.len() - self.len);
            self.buf[self.len..self.len + n].copy_from_slice(&b[..n]);
            self.len += n;
            b = &b[n..];
        }
    }
}

impl fmt::Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_discards_and_a_closed_fd_breaks() {
        let mut o = Out::null();
        o.bytes(&[b'z'; 10_000]);
        o.flush();
        assert!(!o.broken());
        // fd 1023 is not open in the test process: the write fails (EBADF).
        let mut o = Out::new(1023);
        o.bytes(b"x");
        o.flush();
        assert_eq!(o.error(), Some(Errno(9)));
        assert!(o.broken());
    }
}
