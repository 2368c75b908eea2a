//! The boot's identity an initramfs carries: `/uring-repro.boot_id`, a
//! UUID and a newline (config.rs, HostBootId). `initramfs --boot-id UUID`
//! writes it; boot-point.sh draws a fresh UUID for every boot's archive.
//! Not on the kernel command line: the kernel mixes its command line into
//! its random pool, so a word that differs from boot to boot makes every
//! boot with two vCPUs or more schedule differently under QEMU's
//! instruction clock (docs/smp-icount.md); a file of the same length in
//! the archive moves nothing. As `/init` of a fresh boot the binary reads
//! it; anywhere else it is not opened.

use core::ffi::CStr;

use crate::config::HostBootId;
use crate::sys::{self, Errno};

/// Where the file is at boot (the root of the initramfs).
pub const PATH: &CStr = c"/uring-repro.boot_id";
/// Its name in the archive.
pub const NAME: &[u8] = b"uring-repro.boot_id";
/// Its length: the id and a newline, the same for every boot.
pub const FILE_LEN: usize = HostBootId::LEN + 1;

/// Why the file gives no boot id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unusable {
    Unreadable(Errno),
    /// Not a UUID's length of bytes and a newline.
    NotAnId,
}

/// The boot id the archive gives the init of a fresh boot (`init`); None
/// anywhere else, or without the file. `buf` holds the file (one byte more
/// than it may have, to see a longer one).
pub fn read(init: bool, buf: &mut [u8; FILE_LEN + 1]) -> Result<Option<HostBootId<'_>>, Unusable> {
    if !init {
        return Ok(None);
    }
    match sys::read_file(PATH, buf) {
        Err(Errno::ENOENT) => Ok(None),
        Err(e) => Err(Unusable::Unreadable(e)),
        Ok(file) => HostBootId::from_file(file)
            .map(Some)
            .ok_or(Unusable::NotAnId),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_init_reads_the_file() {
        // Not init: no file is read (the test process has none at /).
        let mut buf = [0u8; FILE_LEN + 1];
        assert_eq!(read(false, &mut buf), Ok(None));
        assert_eq!(
            (PATH.to_bytes(), FILE_LEN),
            (&b"/uring-repro.boot_id"[..], 37)
        );
        assert_eq!(&PATH.to_bytes()[1..], NAME);
        assert_eq!(PATH.to_bytes(), HostBootId::FILE.as_bytes());
    }
}
