//! A point's boot: the boot id its run read from
//! /proc/sys/kernel/random/boot_id, a random UUID the kernel draws at each
//! boot. Points of one boot are one draw of a kernel, so compare counts
//! them once; to tell boots apart the ids are read as what they are, 128
//! bits, not as text: letter case and surrounding blanks say nothing.
//!
//! What states no boot counts as none (the point is then a boot of its
//! own): a value left empty, `unknown` (the run could not read it), and
//! the nil UUID (all zeros, what a placeholder writes). Anything else
//! that is not a UUID is no boot id, and the point is refused.

use core::fmt;

/// Why a boot_id value is refused.
pub const NOT_A_BOOT_ID: &str = "boot_id is not a boot id (a UUID as \
/proc/sys/kernel/random/boot_id gives, or unknown)";

/// A boot id: the UUID's 128 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BootId(u128);

impl BootId {
    /// The boot a value states: None when it states none; Err when it is
    /// no boot id.
    pub fn parse(value: &[u8]) -> Result<Option<BootId>, ()> {
        let v = value.trim_ascii();
        if v.is_empty() || v.eq_ignore_ascii_case(b"unknown") {
            return Ok(None);
        }
        // 8-4-4-4-12 hex digits.
        if v.len() != 36 {
            return Err(());
        }
        let mut bits = 0u128;
        for (i, &b) in v.iter().enumerate() {
            if matches!(i, 8 | 13 | 18 | 23) {
                if b != b'-' {
                    return Err(());
                }
                continue;
            }
            let digit = (b as char).to_digit(16).ok_or(())?;
            bits = bits << 4 | digit as u128;
        }
        Ok((bits != 0).then_some(BootId(bits)))
    }

    /// Boot number `n` (tests).
    #[cfg(test)]
    pub fn numbered(n: u128) -> BootId {
        BootId(n)
    }

    /// Its first group (8 hex digits): enough to tell boots apart in prose.
    pub fn head(self) -> FirstGroup {
        FirstGroup(self)
    }
}

/// The UUID as the kernel writes it: lower-case, 8-4-4-4-12.
impl fmt::Display for BootId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            b >> 96,
            b >> 80 & 0xffff,
            b >> 64 & 0xffff,
            b >> 48 & 0xffff,
            b & 0xffff_ffff_ffff
        )
    }
}

/// A boot id's first group.
pub struct FirstGroup(BootId);

impl fmt::Display for FirstGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:08x}", self.0 .0 >> 96)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_boot_id_is_its_bits_whatever_its_case_and_blanks() {
        let id = b"0a0a0a0a-0000-4000-8000-00000000000f";
        let b = BootId::parse(id).unwrap().unwrap();
        assert_eq!(b.to_string().as_bytes(), id);
        assert_eq!(b.head().to_string(), "0a0a0a0a");
        for same in [
            "0A0A0A0A-0000-4000-8000-00000000000F",
            " 0a0a0a0a-0000-4000-8000-00000000000f\t",
            "0a0a0a0a-0000-4000-8000-00000000000f\r",
        ] {
            assert_eq!(BootId::parse(same.as_bytes()), Ok(Some(b)), "{same:?}");
        }
    }

    #[test]
    fn what_states_no_boot_is_none_and_what_is_no_boot_id_is_refused() {
        for nothing in [
            "",
            "  ",
            "unknown",
            "UNKNOWN",
            "00000000-0000-0000-0000-000000000000",
        ] {
            assert_eq!(BootId::parse(nothing.as_bytes()), Ok(None), "{nothing:?}");
        }
        for junk in [
            "b1",
            "aaaa-bbbb",
            "0a0a0a0a00004000800000000000000f",
            "0a0a0a0a-0000-4000-8000-00000000000g",
            "0a0a0a0a-0000-4000-8000-00000000000f0",
            "0a0a0a0a_0000_4000_8000_00000000000f",
            "f0a0a0a0a-0000-4000-8000-00000000000",
            "+a0a0a0a-0000-4000-8000-00000000000f",
        ] {
            assert_eq!(BootId::parse(junk.as_bytes()), Err(()), "{junk:?}");
        }
    }
}
