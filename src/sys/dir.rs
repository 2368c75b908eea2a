//! A directory's entries (getdents64): the witness reads the threads of
//! this process that way, the names in `/proc/self/task`.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_lists_every_entry_and_a_file_is_no_directory() {
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
