//! Connected descriptor pairs: a pipe and an AF_UNIX stream socketpair,
//! the files the rw, poll and net workloads move bytes through.

use super::arch::{nr, syscall2, syscall4};
use super::uapi::O_CLOEXEC;
use super::{Errno, Fd, SysResult};

/// socketpair(2) domain and type: a local, connected byte stream.
pub const AF_UNIX: u32 = 1;
pub const SOCK_STREAM: u32 = 1;
/// socketpair(2) type flag: close on exec (O_CLOEXEC's value).
pub const SOCK_CLOEXEC: u32 = O_CLOEXEC;

/// Two descriptors the kernel filled into `fds`, owned.
fn owned(raw: isize, fds: [i32; 2]) -> SysResult<(Fd, Fd)> {
    Errno::result(raw).map(|_| (Fd::from_raw(fds[0]), Fd::from_raw(fds[1])))
}

/// pipe2(O_CLOEXEC): (read end, write end).
pub fn pipe() -> SysResult<(Fd, Fd)> {
    let mut fds = [-1i32; 2];
    // SAFETY: fds is two writable ints, as pipe2 fills them.
    let raw = unsafe { syscall2(nr::PIPE2, fds.as_mut_ptr() as usize, O_CLOEXEC as usize) };
    owned(raw, fds)
}

/// socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0): two connected ends.
pub fn unix_stream() -> SysResult<(Fd, Fd)> {
    let mut fds = [-1i32; 2];
    // SAFETY: fds is two writable ints, as socketpair fills them.
    let raw = unsafe {
        syscall4(
            nr::SOCKETPAIR,
            AF_UNIX as usize,
            (SOCK_STREAM | SOCK_CLOEXEC) as usize,
            0,
            fds.as_mut_ptr() as usize,
        )
    };
    owned(raw, fds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::{read, write};

    #[test]
    fn a_pipe_carries_bytes_from_its_write_end_to_its_read_end() {
        let (r, w) = pipe().unwrap();
        assert_eq!(write(w.raw(), b"uring"), Ok(5));
        let mut buf = [0u8; 8];
        assert_eq!(read(r.raw(), &mut buf), Ok(5));
        assert_eq!(&buf[..5], b"uring");
    }

    /// Each end reads what the other wrote; a failed call is an Err
    /// (AF_UNIX with a type it lacks: EPROTONOSUPPORT or EINVAL).
    #[test]
    fn a_socketpair_is_connected_both_ways() {
        let (a, b) = unix_stream().unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(write(a.raw(), b"ping"), Ok(4));
        assert_eq!(read(b.raw(), &mut buf), Ok(4));
        assert_eq!(&buf, b"ping");
        assert_eq!(write(b.raw(), b"pong"), Ok(4));
        assert_eq!(read(a.raw(), &mut buf), Ok(4));
        assert_eq!(&buf, b"pong");
    }
}
