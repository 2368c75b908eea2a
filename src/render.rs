//! The text of every printed line, pure: values in, text out (into any
//! `fmt::Write`; the file descriptor writer is `sys::out::Out`). Numbers
//! are rounded exactly as the C tools' printf rounds them, so a row here and
//! a row of the published standalone agree to the last digit.

use core::fmt::{self, Write};

mod columns;

pub use columns::{columns, unit_len, units};

use crate::check::{Counter, Ledger, FAILURES};
use crate::hist::Histogram;
use crate::stats;

/// Text kept in memory (a run's cause, the contract JSON), truncated at
/// N bytes.
#[derive(Clone, Copy)]
pub struct Text<const N: usize = TEXT_MAX> {
    buf: [u8; N],
    len: usize,
}

/// Room for the longest contract JSON (about 420 bytes) and any cause.
pub const TEXT_MAX: usize = 512;
/// A run's cause: the one stderr line.
pub type Line = Text;

impl<const N: usize> Text<N> {
    pub const fn new() -> Self {
        Text {
            buf: [0; N],
            len: 0,
        }
    }
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Appends bytes as they are: `fill` writes them at the end (into
    /// the room left) and says how many. Text from a file, which may be no
    /// UTF-8 (`as_str` then says `?`; `Display` shows invalid bytes as `?`).
    pub fn push_with(&mut self, fill: &mut dyn FnMut(&mut [u8]) -> usize) {
        push_with(&mut self.buf, &mut self.len, fill);
    }

    /// The text; `?` if truncation cut a character in two.
    pub fn as_str(&self) -> &str {
        utf8_or_mark(self.as_bytes())
    }
}

/// `Text::push_with` for every size of Text: `buf` is its whole buffer,
/// `len` the bytes used. Not inlined: one body, not one per size and
/// caller (text is pushed at eighty-odd places, of a dozen sizes).
#[inline(never)]
fn push_with(buf: &mut [u8], len: &mut usize, fill: &mut dyn FnMut(&mut [u8]) -> usize) {
    let room = buf.len() - *len;
    *len += fill(&mut buf[*len..]).min(room);
}

/// `Text`'s `write_str` for every size of Text: as much of `s` as fits.
#[inline(never)]
fn append(buf: &mut [u8], len: &mut usize, s: &str) {
    push_with(buf, len, &mut |room| push_str(room, s));
}

/// `Text::as_str` for every size of Text.
#[inline(never)]
fn utf8_or_mark(bytes: &[u8]) -> &str {
    core::str::from_utf8(bytes).unwrap_or("?")
}

impl<const N: usize> Default for Text<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> fmt::Write for Text<N> {
    /// One body for every size of Text (`append`): text is written at
    /// eighty-odd places, each of which had a copy (the cut at a
    /// character's start and the copy), then each of a dozen sizes did.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        append(&mut self.buf, &mut self.len, s);
        Ok(())
    }

    /// One body for every size of Text (the trait's own would be one per
    /// size).
    fn write_char(&mut self, c: char) -> fmt::Result {
        write_char(self, c)
    }
}

/// `c` as UTF-8 to `w`.
fn write_char(w: &mut dyn Write, c: char) -> fmt::Result {
    w.write_str(c.encode_utf8(&mut [0; 4]))
}

impl<const N: usize> fmt::Display for Text<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Bytes(self.as_bytes()).fmt(f)
    }
}

/// As much of `s` as `room` holds, cut at a character's start (so that
/// the text stays UTF-8); how many bytes.
fn push_str(room: &mut [u8], s: &str) -> usize {
    let mut n = s.len().min(room.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    room[..n].copy_from_slice(&s.as_bytes()[..n]);
    n
}

/// `num / den` with six decimals as the C tool prints it: `%.6f` of the
/// double `(double)num / den`, whose exact value glibc rounds to nearest,
/// ties to even (not half up: 128 / 16384 = 0.0078125 prints 0.007812).
pub struct Ratio6 {
    pub num: u64,
    pub den: u64,
}

impl fmt::Display for Ratio6 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 0 {
            return f.write_str("nan");
        }
        if let Some((int, frac)) = fixed(self.num as f64 / self.den as f64, 1_000_000) {
            return write!(f, "{int}.{frac:06}");
        }
        // Quotients of 2^53 and more (never a real ns/pair): exact
        // rational rounding, half up. rem < den, and rem * 2e6 fits a u64
        // while den < 9.2e12 (pairs per run stay far below: 4096 rounds x
        // 1e7 cycles x 64 = 2.6e12). Larger denominators are scaled down
        // first, losing only digits beyond the sixth decimal's reach.
        let (mut num, mut den) = (self.num, self.den);
        while den >= 9_000_000_000_000 {
            num /= 2;
            den /= 2;
        }
        let (mut int, rem) = (num / den, num % den);
        let mut frac = (rem * 2_000_000 + den) / (2 * den);
        if frac == 1_000_000 {
            int += 1;
            frac = 0;
        }
        write!(f, "{int}.{frac:06}")
    }
}

/// `d` (finite, 0 <= d < 2^53) as whole part and decimals in units of
/// 1/`scale` (scale = 10^digits, digits <= 9), its exact binary value
/// rounded to nearest, ties to even, as glibc's `%.Nf`; None outside that
/// range. d = m * 2^-k: the decimals are the bits below the point times
/// scale, shifted down (u128: m * 10^9 < 2^83).
fn fixed(d: f64, scale: u64) -> Option<(u64, u64)> {
    if !(0.0..9_007_199_254_740_992.0).contains(&d) {
        return None;
    }
    let bits = d.to_bits();
    let exp = (bits >> 52) as i32; // sign bit is 0
    let mant = bits & ((1 << 52) - 1);
    let (m, k) = match exp {
        0 => (mant, 1074),
        _ => (mant | 1 << 52, 1075 - exp),
    };
    if k <= 0 {
        return Some((m, 0)); // k == 0: below 2^53 there is no k < 0
    }
    if k > 83 {
        return Some((0, 0)); // below 2^-31: under half of 10^-9
    }
    let (int, below) = if k < 64 {
        (m >> k, m & ((1 << k) - 1))
    } else {
        (0, m)
    };
    let p = below as u128 * scale as u128;
    let (mut frac, rem, half) = (p >> k, p & ((1u128 << k) - 1), 1u128 << (k - 1));
    // The last digit kept: the whole part's with no decimals.
    let odd = if scale == 1 { int as u128 } else { frac } & 1 == 1;
    if rem > half || (rem == half && odd) {
        frac += 1;
    }
    Some(match frac as u64 {
        f if f == scale => (int + 1, 0),
        f => (int, f),
    })
}

/// `Dec` with its sign: `+` before a value that prints above zero, `-`
/// before one that prints below (`+0.500`, `-1.250`, and `0.000`, never
/// `+0.000`); `nan` and `inf` spelled out.
pub struct Signed(pub f64, pub u32);

impl fmt::Display for Signed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = Dec(self.0, self.1);
        if self.0 > 0.0 && v.digits() != Some((0, 0)) {
            f.write_str("+")?;
        }
        v.fmt(f)
    }
}

/// An f64 with a fixed number of decimals (at most 9), rounded as printf's
/// `%.Nf` rounds it (its exact value, ties to even: the same digits as the
/// rows' Ratio6 for the same value); `nan`/`inf` spelled out.
pub struct Dec(pub f64, pub u32);

impl Dec {
    /// Its whole part and decimals as printed, of its absolute value;
    /// None for nan and inf (and 1e18 on: no ns/pair or % comes near).
    fn digits(&self) -> Option<(u64, u64)> {
        let (v, d) = (self.0, self.1.min(9));
        if v.is_nan() || v.is_infinite() || v.abs() >= 1e18 {
            return None;
        }
        // From 2^53 up every f64 is a whole number (and fits a u64 here).
        let a = v.abs();
        Some(fixed(a, 10u64.pow(d)).unwrap_or((a as u64, 0)))
    }
}

impl fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (v, d) = (self.0, self.1.min(9));
        let Some((int, frac)) = self.digits() else {
            return f.write_str(match v {
                _ if v.is_nan() => "nan",
                _ if v < 0.0 => "-inf",
                _ => "inf",
            });
        };
        let sign = if v < 0.0 && (int | frac) != 0 {
            "-"
        } else {
            ""
        };
        if d == 0 {
            return write!(f, "{sign}{int}");
        }
        write!(f, "{sign}{int}.{frac:0w$}", w = d as usize)
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

/// Text from argv or an input file, as it may be echoed on a terminal or
/// in a mail (every command echoes such text through this one type):
/// printable characters as they are; tab, newline and carriage return as
/// `\t` `\n` `\r`, every other control byte and each byte of invalid
/// UTF-8 as `\xNN`; C1 controls and the invisible characters that reorder
/// or hide text (bidirectional controls, zero-width characters, line and
/// paragraph separators, the soft hyphen) as `\uNNNN`. So an echoed value
/// is one line, sends no escape sequence to a terminal, shows in a mail
/// what it holds, and its bytes can be read back from it.
pub struct Clean<'a>(pub &'a [u8]);

impl fmt::Display for Clean<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        escape(f, self.0, false)
    }
}

/// `Clean` text cut to its first `max` display columns, between the
/// units it shows (never inside an escape); a cut one ends with `mark`
/// (within `max`), e.g. `...`, or nothing when it is a prefix by
/// convention (a commit's first 12 digits).
pub struct Clip<'a> {
    pub text: &'a [u8],
    pub max: usize,
    pub mark: &'static str,
}

impl<'a> Clip<'a> {
    /// At most `max` columns, `...` at the end of a cut.
    pub fn new(text: &'a [u8], max: usize) -> Self {
        Clip {
            text,
            max,
            mark: "...",
        }
    }

    /// The first `n` columns.
    pub fn head(text: &'a [u8], n: usize) -> Self {
        Clip {
            text,
            max: n,
            mark: "",
        }
    }
}

impl fmt::Display for Clip<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Cut between the units `Clean` shows, never inside an escape.
        let mut all = 0;
        shown(self.text, false, &mut |unit| {
            all += columns(unit);
            Ok(())
        })?;
        if all <= self.max {
            return escape(f, self.text, false);
        }
        let keep = self.max.saturating_sub(columns(self.mark));
        let mut used = 0;
        shown(self.text, false, &mut |unit| {
            used += columns(unit);
            if used <= keep {
                f.write_str(unit)
            } else {
                Ok(())
            }
        })?;
        f.write_str(self.mark)
    }
}

/// A character `Clean` shows as `\uNNNN`: it moves, hides or breaks text.
fn hidden(c: char) -> bool {
    matches!(
        c as u32,
        0x80..=0x9f | 0xad | 0x61c | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x2064
            | 0x2066..=0x2069 | 0xfeff
    )
}

/// Whether `Clean` shows `bytes` other than as they are.
pub fn needs_escape(bytes: &[u8]) -> bool {
    bytes
        .utf8_chunks()
        .any(|c| !c.invalid().is_empty() || c.valid().chars().any(|c| c.is_control() || hidden(c)))
}

/// `bytes` as `Clean` shows them; `quoted`: inside the shell's `$'...'`,
/// where `\` and `'` are escaped too and a character shown as `\uNNNN`
/// is its UTF-8 bytes as `\xNN` instead (bash reads `\u` only in a UTF-8
/// locale), so that the shell reads back the very bytes in any locale.
pub fn escape(w: &mut dyn Write, bytes: &[u8], quoted: bool) -> fmt::Result {
    shown(bytes, quoted, &mut |unit| w.write_str(unit))
}

/// `bytes` as `escape` shows them, one unit at a time: a character as it
/// is, or an escape whole (a character that hides as its `\uNNNN`, or,
/// quoted, its bytes' `\xNN` each).
fn shown(bytes: &[u8], quoted: bool, unit: &mut dyn FnMut(&str) -> fmt::Result) -> fmt::Result {
    let mut t = Text::<8>::new();
    let mut esc = |args: fmt::Arguments| {
        t = Text::new();
        let _ = t.write_fmt(args);
        unit(t.as_str())
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\t' => esc(format_args!("\\t"))?,
                '\n' => esc(format_args!("\\n"))?,
                '\r' => esc(format_args!("\\r"))?,
                '\\' | '\'' if quoted => esc(format_args!("\\{c}"))?,
                c if c.is_ascii_control() => esc(format_args!("\\x{:02x}", c as u32))?,
                c if (c.is_control() || hidden(c)) && quoted => {
                    for b in c.encode_utf8(&mut [0; 4]).bytes() {
                        esc(format_args!("\\x{b:02x}"))?;
                    }
                }
                c if c.is_control() || hidden(c) => esc(format_args!("\\u{:04x}", c as u32))?,
                c => esc(format_args!("{c}"))?,
            }
        }
        for b in chunk.invalid() {
            esc(format_args!("\\x{b:02x}"))?;
        }
    }
    Ok(())
}

/// `text`'s words from column `col` on, wrapped before `width`, each new
/// line indented to `indent`, then a newline. Columns are display columns
/// (`columns`: a wide character takes two). A word longer than a line
/// starts one and is cut where it ends, at a unit (`units`: an escape is
/// never split), so no line is wider than `width` whatever the text.
pub fn wrap(w: &mut dyn Write, text: &str, mut col: usize, indent: usize, width: usize) {
    let mut first = true;
    for mut word in text.split(' ').filter(|w| !w.is_empty()) {
        if !first && col + 1 + columns(word) > width {
            let _ = write!(w, "\n{:indent$}", "");
            col = indent;
        } else if !first {
            let _ = w.write_str(" ");
            col += 1;
        }
        // The part of the word past the line's end goes on the next one:
        // the units that fit (one at least, so that every line takes some).
        while col + columns(word) > width {
            let room = width.saturating_sub(col).max(1);
            let (mut at, mut used) = (0, 0);
            for unit in units(word) {
                if at > 0 && used + columns(unit) > room {
                    break;
                }
                (at, used) = (at + unit.len(), used + columns(unit));
            }
            if at == word.len() {
                break;
            }
            let (head, rest) = word.split_at(at);
            let _ = write!(w, "{head}\n{:indent$}", "");
            (word, col) = (rest, indent);
        }
        let _ = w.write_str(word);
        col += columns(word);
        first = false;
    }
    let _ = w.write_str("\n");
}

/// `s`, unless there is one: `{n} round{}`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The last word of the checks line.
pub fn verdict(passed: bool, interrupted: bool) -> &'static str {
    if interrupted {
        "INTERRUPTED"
    } else if passed {
        "PASS"
    } else {
        "FAIL"
    }
}

/// A round's row, as the C standalone prints it (`%u\t%u\t%.6f\t%d`),
/// after the series' tag when the table has one (pollwake's modes).
pub fn row(w: &mut dyn Write, tag: &str, round: u32, pairs: u64, timed_ns: u64, pass: bool) {
    if !tag.is_empty() {
        let _ = write!(w, "{tag}\t");
    }
    let ns = Ratio6 {
        num: timed_ns,
        den: pairs,
    };
    let _ = writeln!(w, "{round}\t{pairs}\t{ns}\t{}", pass as u8);
}

/// The mean row (total ns over total pairs of the measured rounds) and the
/// spread of the rounds' ns/pair: `[TAG\t]LABEL\tPAIRS\tNS\tPASS` and
/// `# [profile=TAG ]median=... min=... max=... cv=...%`; LABEL is `mean`,
/// or `partial` for an interrupted run.
pub fn mean_and_spread(
    w: &mut dyn Write,
    tag: &str,
    label: &str,
    ns: u64,
    pairs: u64,
    passed: bool,
    per_round: &[f64],
) {
    let mean = Ratio6 {
        num: ns,
        den: pairs,
    };
    if !tag.is_empty() {
        let _ = write!(w, "{tag}\t");
    }
    let _ = write!(w, "{label}\t{pairs}\t{mean}\t{}\n# ", passed as u8);
    if !tag.is_empty() {
        let _ = write!(w, "profile={tag} ");
    }
    let s = stats::summarize(per_round);
    let _ = writeln!(
        w,
        "median={} min={} max={} cv={}%",
        Dec(s.median, 6),
        Dec(s.min, 6),
        Dec(s.max, 6),
        Dec(s.cv_pct, 3)
    );
}

/// The tail of the per-cycle times, in the table's unit (a cycle's ns over
/// its pairs): `# per_cycle_ns_per_pair: p50=... max=... cycles=N`.
pub fn per_cycle(w: &mut dyn Write, h: &Histogram, pairs_per_cycle: u64) {
    let per_pair = pairs_per_cycle.max(1) as f64;
    let _ = write!(w, "# per_cycle_ns_per_pair:");
    for (name, num, den) in [
        ("p50", 1, 2),
        ("p90", 9, 10),
        ("p99", 99, 100),
        ("p99.9", 999, 1000),
    ] {
        let _ = write!(w, " {name}={}", Dec(h.quantile(num, den) / per_pair, 3));
    }
    let max = Dec(h.max() as f64 / per_pair, 3);
    let _ = writeln!(w, " max={max} cycles={}", h.count());
}

/// `# checks: NAME=VALUE ... -> VERDICT`: a workload's `totals`, every
/// failure class all workloads share, the workload's `own` failures.
pub fn checks(w: &mut dyn Write, [totals, own]: [&[Counter]; 2], l: &Ledger, verdict: &str) {
    let _ = write!(w, "# checks:");
    for (name, value) in totals.iter().chain(&FAILURES).chain(own) {
        let _ = write!(w, " {name}={}", value(l));
    }
    let _ = writeln!(w, " -> {verdict}");
}

#[cfg(test)]
mod tests;
