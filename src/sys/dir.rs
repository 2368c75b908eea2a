//! A directory's entries (getdents64), and what this crate reads that way:
//! the threads of this process, `/proc/self/task`.

use core::ffi::CStr;

use super::arch::{nr, syscall3};
use super::uapi::O_RDONLY;
use super::{open, Errno, SysResult};

/// struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8,
/// then the NUL-terminated name.
const RECLEN_AT: usize = 16;
const NAME_AT: usize = 19;

/// Calls `f` with the name of each entry of the directory `path` ("." and
/// ".." included), in the kernel's order.
pub fn entries(path: &CStr, f: &mut dyn FnMut(&[u8])) -> SysResult<()> {
    let dir = open(path, O_RDONLY, 0)?;
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: buf is writable for its whole length.
        let raw = unsafe {
            syscall3(
                nr::GETDENTS64,
                dir.raw() as usize,
                buf.as_mut_ptr() as usize,
                buf.len(),
            )
        };
        let n = Errno::result(raw)?;
        if n == 0 {
            return Ok(());
        }
        let mut at = 0;
        while at + NAME_AT < n {
            let reclen = u16::from_ne_bytes([buf[at + RECLEN_AT], buf[at + RECLEN_AT + 1]]);
            let end = (at + reclen as usize).min(n);
            if reclen == 0 || end <= at + NAME_AT {
                return Err(Errno::EIO);
            }
            let name = &buf[at + NAME_AT..end];
            let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            f(&name[..len]);
            at = end;
        }
    }
}

/// Calls `f` with the thread id of each thread of this process.
pub fn threads(f: &mut dyn FnMut(u32)) -> SysResult<()> {
    entries(c"/proc/self/task", &mut |name| {
        // Every entry but "." and ".." is a thread id.
        if !name.is_empty() && name.iter().all(u8::is_ascii_digit) {
            f(name
                .iter()
                .fold(0, |n: u32, &d| n.wrapping_mul(10) + (d - b'0') as u32));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threads_of_this_process_include_the_process_itself() {
        let (mut all, mut us) = (0, false);
        threads(&mut |tid| {
            all += 1;
            us |= tid == super::super::getpid();
        })
        .unwrap();
        assert!(us && all >= 1, "{all} threads");
        let mut names = Vec::new();
        entries(c"/proc/self", &mut |n| names.push(n.to_vec())).unwrap();
        for want in [&b"."[..], b"..", b"task", b"status"] {
            assert!(names.iter().any(|n| n == want), "{want:?}");
        }
        assert_eq!(
            entries(c"/proc/self/status", &mut |_| {}),
            Err(Errno(20)),
            "ENOTDIR"
        );
    }
}
