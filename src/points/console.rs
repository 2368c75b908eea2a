//! A boot's console as QEMU wrote it (`-serial stdio`), read as lines, and
//! what each line is: the guest's verdict, a kernel log line, the binary's
//! stderr, a suite's line, or part of a point. Pure: bytes in, slices out.
//!
//! The console is made lines first (`clean`): every CR goes, and so does
//! every terminal escape the firmware and the kernel send (CSI sequences
//! such as colours and cursor moves, and the two-byte ones), but a
//! terminal reset (ESC c, the x86 firmware's last act) becomes a line
//! break, so that it does not glue a line to the next. An escape that is
//! neither (`ESC (B`, a CSI cut short) is left as it is, bytes and all.

/// The verdict line's prefix: `uring-repro: exit N`, the last thing the
/// guest's /init prints (N its exit code).
const VERDICT: &[u8] = b"uring-repro: exit ";
/// What the binary writes to stderr starts so; on the console the
/// guest's stderr and stdout are one stream.
const STDERR: &[u8] = b"uring-repro: ";
/// A run's banner, the first line of its point.
const BANNER: &[u8] = b"# uring-repro ";
/// Every line of a suite that is not a point's starts so.
const SUITE: &[u8] = b"# suite: ";

const ESC: u8 = 0x1b;

/// Cleans the console in `buf` in place: CRs deleted; then each `ESC c`
/// a line break; then every CSI sequence (`ESC [`, parameter bytes
/// 0x30-0x3f, intermediate bytes 0x20-0x2f, a final byte 0x40-0x7e)
/// deleted; then every two-byte escape (`ESC` and a byte 0x40-0x7e)
/// deleted, each step over what the one before left. Its new length.
pub fn clean(buf: &mut [u8]) -> usize {
    let mut n = squeeze(buf, buf.len(), |b| (b[0] == b'\r').then_some((1, None)));
    n = squeeze(buf, n, |b| {
        b.starts_with(&[ESC, b'c']).then_some((2, Some(b'\n')))
    });
    n = squeeze(buf, n, |b| csi(b).map(|len| (len, None)));
    squeeze(buf, n, |b| match b {
        [ESC, c, ..] if (0x40..=0x7e).contains(c) => Some((2, None)),
        _ => None,
    })
}

/// One pass over `buf[..len]`, left to right: where `step` matches the
/// bytes from a position on (`Some((taken, put))`), those `taken` bytes
/// become `put` (one byte, or none) and the pass goes on after them; every
/// other byte stays. The new length (never more: `taken` >= 1).
fn squeeze(
    buf: &mut [u8],
    len: usize,
    step: impl Fn(&[u8]) -> Option<(usize, Option<u8>)>,
) -> usize {
    let (mut from, mut to) = (0, 0);
    while from < len {
        match step(&buf[from..len]) {
            Some((taken, put)) => {
                from += taken;
                if let Some(b) = put {
                    buf[to] = b;
                    to += 1;
                }
            }
            None => {
                buf[to] = buf[from];
                (from, to) = (from + 1, to + 1);
            }
        }
    }
    to
}

/// The length of the CSI sequence `b` starts with, if it starts with one.
fn csi(b: &[u8]) -> Option<usize> {
    let rest = b.strip_prefix(&[ESC, b'['])?;
    let params = rest
        .iter()
        .take_while(|c| (0x30..=0x3f).contains(*c))
        .count();
    let inter = rest[params..]
        .iter()
        .take_while(|c| (0x20..=0x2f).contains(*c))
        .count();
    let last = *rest.get(params + inter)?;
    (0x40..=0x7e)
        .contains(&last)
        .then_some(2 + params + inter + 1)
}

/// The lines of cleaned console text, without their line breaks; a last
/// line without one is a line too (none at all in an empty text).
pub fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let split = (!text.is_empty()).then(|| body.split(|&b| b == b'\n'));
    split.into_iter().flatten()
}

/// The exit code a verdict line states, as its digits (`0`, `130`).
pub fn verdict(line: &[u8]) -> Option<&[u8]> {
    let digits = line.strip_prefix(VERDICT)?;
    (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit)).then_some(digits)
}

/// The verdict of the console: the last verdict line's digits.
pub fn last_verdict(text: &[u8]) -> Option<&[u8]> {
    lines(text).filter_map(verdict).last()
}

/// A line the binary wrote to stderr, to be shown where the console's
/// reader reports (every one but a verdict, or `uring-repro: exit ` with
/// no digits).
pub fn shown_on_stderr(line: &[u8]) -> bool {
    match line.strip_prefix(VERDICT) {
        Some(digits) => !digits.iter().all(u8::is_ascii_digit),
        None => line.starts_with(STDERR),
    }
}

/// A kernel log line: `[` and a timestamp, seconds and decimals, `]`
/// (`[    1.234567] ...`).
fn kernel_log(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"[") else {
        return false;
    };
    let rest = &rest[rest.iter().take_while(|&&b| b == b' ').count()..];
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let whole = digits(rest);
    let Some(after) = rest[whole..].strip_prefix(b".").filter(|_| whole > 0) else {
        return false;
    };
    let frac = digits(after);
    frac > 0 && after[frac..].starts_with(b"]")
}

/// A line that belongs to no point wherever it stands: a kernel log
/// line, or one of the binary's stderr lines.
fn aside(line: &[u8]) -> bool {
    kernel_log(line) || line.starts_with(STDERR)
}

/// The lines of the point a run printed, each to `f`: from its banner on,
/// up to the first verdict line, without the lines that stand aside
/// (`aside`).
pub fn run<'t>(text: &'t [u8], f: &mut dyn FnMut(&'t [u8])) {
    let mut on = false;
    for l in lines(text).take_while(|l| verdict(l).is_none()) {
        on |= l.starts_with(BANNER);
        if on && !aside(l) {
            f(l);
        }
    }
}

/// Where a line of a suite's console goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part<'t> {
    /// `# suite: K/N ITEM`, the line before item K's point: K's digits,
    /// and ITEM.
    Begin(&'t [u8], &'t [u8]),
    /// A line of the point of item K (its digits).
    Point(&'t [u8]),
    /// One of the suite's lines after its items: a line per item, the
    /// counts.
    Lines,
}

/// A suite's console, line by line up to the first verdict line, each
/// line that is a part of it to `f`, the lines that stand aside left out:
/// each `# suite: K/N ITEM` begins item K (until the first of the suite's
/// lines after its items), whose point runs from its banner to the next
/// `# suite:` line; every other `# suite:` line is one of the suite's
/// lines.
pub fn suite<'t>(text: &'t [u8], f: &mut dyn FnMut(Part<'t>, &'t [u8])) {
    let (mut after_items, mut on, mut item) = (false, false, None);
    for l in lines(text).take_while(|l| verdict(l).is_none()) {
        if aside(l) {
            continue;
        }
        if let Some((k, name)) = begin(l).filter(|_| !after_items) {
            (item, on) = (Some(k), false);
            f(Part::Begin(k, name), l);
        } else if l.starts_with(SUITE) {
            (after_items, on) = (true, false);
            f(Part::Lines, l);
        } else if let Some(k) = item {
            on |= l.starts_with(BANNER);
            if on {
                f(Part::Point(k), l);
            }
        }
    }
}

/// The suite's lines after its items, each to `f`.
pub fn suite_lines<'t>(text: &'t [u8], f: &mut dyn FnMut(&'t [u8])) {
    suite(text, &mut |p, l| {
        if p == Part::Lines {
            f(l);
        }
    });
}

/// `# suite: K/N ITEM` (K and N digits, ITEM of `A-Za-z0-9_:`): K and ITEM.
fn begin(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = line.strip_prefix(SUITE)?;
    let space = rest.iter().position(|&b| b == b' ')?;
    let (place, item) = (&rest[..space], &rest[space + 1..]);
    let slash = place.iter().position(|&b| b == b'/')?;
    let (k, n) = (&place[..slash], &place[slash + 1..]);
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let name = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b':';
    (digits(k) && digits(n) && !item.is_empty() && item.iter().all(name)).then_some((k, item))
}

/// What a suite's line per item says of item K's exit: the fifth word of
/// the first of its lines (`suite_lines`) whose place is K's (`# suite:
/// K/N ITEM exit=CODE WORD`), without `exit=`; None when no line is K's,
/// or it has no fifth word.
pub fn item_exit<'t>(text: &'t [u8], k: &[u8]) -> Option<&'t [u8]> {
    let mut line = None;
    suite_lines(text, &mut |l| {
        let place = words(l).nth(2).unwrap_or(b"");
        let first = place.split(|&b| b == b'/').next().unwrap_or(b"");
        if line.is_none() && super::num::same(first, k) {
            line = Some(l);
        }
    });
    let word = words(line?).nth(4)?;
    Some(word.strip_prefix(b"exit=").unwrap_or(word))
}

/// The blank-separated words of a line.
pub fn words(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b' ' || b == b'\t')
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests;
