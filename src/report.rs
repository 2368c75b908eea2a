//! Text output: a buffered writer on a file descriptor, and fixed-point
//! number formatting that does not pull in core's float printing.

use core::fmt;

use crate::sys::{self, Errno};

/// A buffered writer on a file descriptor. A closed pipe (EPIPE) marks the
/// writer broken and later writes are dropped, so the caller can end quietly.
pub struct Out {
    fd: i32,
    buf: [u8; 4096],
    len: usize,
    broken: bool,
}

impl Out {
    pub const fn new(fd: i32) -> Out {
        Out {
            fd,
            buf: [0; 4096],
            len: 0,
            broken: false,
        }
    }

    /// True once a write failed (closed pipe, full disk, ...).
    pub fn broken(&self) -> bool {
        self.broken
    }

    #[inline(never)]
    pub fn flush(&mut self) {
        let mut off = 0;
        while off < self.len && !self.broken {
            match sys::write(self.fd, &self.buf[off..self.len]) {
                Ok(n) => off += n,
                Err(Errno::EINTR) => {}
                Err(_) => self.broken = true,
            }
        }
        self.len = 0;
    }

    #[inline(never)]
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

/// `num / den` with six decimals, rounded half up, as the C tool's `%.6f`.
pub struct Ratio6 {
    pub num: u64,
    pub den: u64,
}

impl fmt::Display for Ratio6 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 0 {
            return f.write_str("nan");
        }
        let den = self.den as u128;
        let scaled = (self.num as u128 * 2_000_000 + den) / (2 * den);
        // Both parts fit u64 (num is one): printing them as u64 keeps core's
        // u128 formatting (1 KiB) out of the binary.
        let (int, frac) = ((scaled / 1_000_000) as u64, (scaled % 1_000_000) as u64);
        write!(f, "{int}.{frac:06}")
    }
}

/// An f64 with a fixed number of decimals (at most 9), rounded half away
/// from zero; `nan`/`inf` spelled out.
pub struct Dec(pub f64, pub u32);

impl fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (v, d) = (self.0, self.1.min(9));
        if v.is_nan() {
            return f.write_str("nan");
        }
        if v.is_infinite() || v.abs() >= 1e18 {
            return f.write_str(if v < 0.0 { "-inf" } else { "inf" });
        }
        let scale = 10u64.pow(d);
        let scaled = (v.abs() * scale as f64 + 0.5) as u64;
        let sign = if v < 0.0 && scaled != 0 { "-" } else { "" };
        if d == 0 {
            return write!(f, "{sign}{scaled}");
        }
        write!(
            f,
            "{sign}{}.{:0w$}",
            scaled / scale,
            scaled % scale,
            w = d as usize
        )
    }
}

/// A byte string printed as text, invalid UTF-8 bytes as `?`.
pub struct Bytes<'a>(pub &'a [u8]);

impl fmt::Display for Bytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_str("?")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_six_decimals_rounds_like_printf() {
        assert_eq!(
            Ratio6 {
                num: 2_950_365_000,
                den: 16384
            }
            .to_string(),
            "180075.988770"
        );
        assert_eq!(
            Ratio6 {
                num: 2_950_366,
                den: 16384
            }
            .to_string(),
            "180.076050"
        );
        assert_eq!(Ratio6 { num: 1, den: 3 }.to_string(), "0.333333");
        assert_eq!(Ratio6 { num: 2, den: 3 }.to_string(), "0.666667");
        assert_eq!(Ratio6 { num: 5, den: 0 }.to_string(), "nan");
        let printf = format!("{:.6}", 2_950_366f64 / 16384f64);
        assert_eq!(
            Ratio6 {
                num: 2_950_366,
                den: 16384
            }
            .to_string(),
            printf
        );
    }

    #[test]
    fn dec_formats_fixed_point() {
        assert_eq!(Dec(0.126_4, 3).to_string(), "0.126");
        assert_eq!(Dec(9.2685, 3).to_string(), "9.269");
        assert_eq!(Dec(-0.1244, 3).to_string(), "-0.124");
        assert_eq!(Dec(-0.0001, 3).to_string(), "0.000");
        assert_eq!(Dec(180.0, 6).to_string(), "180.000000");
        assert_eq!(Dec(2.5, 0).to_string(), "3");
        assert_eq!(Dec(f64::NAN, 2).to_string(), "nan");
        assert_eq!(Dec(f64::INFINITY, 2).to_string(), "inf");
    }

    #[test]
    fn bytes_replaces_invalid_utf8() {
        assert_eq!(Bytes(b"ab\xffc").to_string(), "ab?c");
    }
}
