//! The newc cpio format the kernel unpacks as an initramfs
//! (Documentation/driver-api/early-userspace/buffer-format.rst): per entry
//! a 110-byte ASCII header, `070701` and 13 fields of 8 hex digits, then
//! the NUL-terminated name padded so header and name fill a multiple of 4
//! bytes, then the data padded to a multiple of 4; the archive ends with
//! an entry named `TRAILER!!!`. Pure: values in, bytes out.

/// The header's magic: newc without checksums.
pub const MAGIC: &[u8; 6] = b"070701";
/// 6 bytes of magic and 13 fields of 8 hex digits.
pub const HEADER_LEN: usize = 110;
/// The last entry's name.
pub const TRAILER: &[u8] = b"TRAILER!!!";
/// Longest entry name accepted (NUL excluded); the archive's are short.
pub const NAME_MAX: usize = 64;
/// Room for one header, its name, the NUL and the padding.
pub const HEAD_MAX: usize = HEADER_LEN + NAME_MAX + 4;

/// st_mode's file types.
pub const S_IFDIR: u32 = 0o040000;
pub const S_IFCHR: u32 = 0o020000;
pub const S_IFREG: u32 = 0o100000;

/// One entry's header fields (uid, gid, mtime, the device and the check
/// are always 0: the same input gives the same bytes).
pub struct Head<'a> {
    pub ino: u32,
    pub mode: u32,
    /// A character or block node's device number (major, minor).
    pub rdev: (u32, u32),
    pub size: u32,
    pub name: &'a [u8],
}

/// Bytes that bring `n` up to a multiple of 4.
pub const fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// Writes `h`'s header, name, NUL and padding into `buf`; returns their
/// length, or None for a name longer than NAME_MAX or holding a NUL.
pub fn head(h: &Head<'_>, buf: &mut [u8; HEAD_MAX]) -> Option<usize> {
    if h.name.len() > NAME_MAX || h.name.contains(&0) {
        return None;
    }
    let namesize = h.name.len() + 1;
    // A directory has 2 links ("." and its name in the parent), as cpio writes it.
    let nlink = if h.mode & 0o170000 == S_IFDIR { 2 } else { 1 };
    let fields: [u32; 13] = [
        h.ino,
        h.mode,
        0, // uid
        0, // gid
        nlink,
        0, // mtime
        h.size,
        0, // devmajor: the device holding the file
        0, // devminor
        h.rdev.0,
        h.rdev.1,
        namesize as u32,
        0, // check: only the 070702 format has one
    ];
    buf[..6].copy_from_slice(MAGIC);
    for (i, v) in fields.iter().enumerate() {
        hex8(*v, &mut buf[6 + 8 * i..14 + 8 * i]);
    }
    let end = HEADER_LEN + namesize;
    buf[HEADER_LEN..end - 1].copy_from_slice(h.name);
    let padded = end + pad4(end);
    buf[end - 1..padded].fill(0);
    Some(padded)
}

/// `v` as 8 upper-case hex digits.
fn hex8(v: u32, out: &mut [u8]) {
    for (i, o) in out.iter_mut().enumerate() {
        let d = (v >> (28 - 4 * i)) & 0xf;
        *o = b"0123456789ABCDEF"[d as usize];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header of an empty entry (size 0), or None where `head` refuses it.
    fn header(ino: u32, mode: u32, rdev: (u32, u32), name: &[u8]) -> Option<Vec<u8>> {
        let mut buf = [0u8; HEAD_MAX];
        let h = Head {
            ino,
            mode,
            rdev,
            size: 0,
            name,
        };
        head(&h, &mut buf).map(|n| buf[..n].to_vec())
    }

    #[test]
    fn a_character_node_header_byte_for_byte() {
        let h = header(2, S_IFCHR | 0o600, (5, 1), b"dev/console").unwrap();
        // 110 + 12 = 122, padded to 124.
        assert_eq!(h.len(), 124);
        let want = "070701\
            00000002000021800000000000000000000000010000000000000000\
            00000000000000000000000500000001\
            0000000C00000000dev/console\0\0\0";
        assert_eq!(h, want.as_bytes());
    }

    #[test]
    fn directories_have_two_links_and_names_are_padded() {
        let h = header(1, S_IFDIR | 0o755, (0, 0), b"dev").unwrap();
        assert_eq!(h.len(), 116);
        assert_eq!(&h[6 + 32..6 + 40], b"00000002");
        assert_eq!(&h[110..116], b"dev\0\0\0");
        assert_eq!(pad4(0), 0);
        assert_eq!(pad4(5), 3);
    }

    #[test]
    fn bad_names_are_refused() {
        let long = [b'a'; NAME_MAX + 1];
        for name in [&long[..], b"a\0b"] {
            assert_eq!(header(1, S_IFREG, (0, 0), name), None);
        }
        // 110 + 65 = 175, padded to 176.
        let ok = header(1, S_IFREG, (0, 0), &long[..NAME_MAX]).unwrap();
        assert_eq!(ok.len(), 176);
    }
}
