//! How wide text is on a terminal or in a mail, in display columns: a
//! wide character (CJK, Hangul, fullwidth forms, most emoji) takes two,
//! every other character one. Counting characters (or bytes) instead let
//! a line of CJK or emoji pass 72 columns. A character is never counted
//! narrower than it shows: combining marks and the like count one, which
//! can only make a line shorter than the count says.
//!
//! And where escaped text (`Clean`'s) may be cut: at a unit, an escape
//! (`\xNN`, `\uNNNN`, `\t`, `\n`, `\r`, `\\`, `\'`) being one, so that no
//! cut leaves `\x0` on one line and `1` on the next.

/// The East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt,
/// W and F), with the emoji shown wide; unassigned points inside a block
/// count as its neighbours do.
const WIDE: [(u32, u32); 46] = [
    (0x1100, 0x115f),   // Hangul Jamo initial consonants
    (0x231a, 0x231b),   // watch, hourglass
    (0x2329, 0x232a),   // angle brackets
    (0x23e9, 0x23ec),   // media controls
    (0x23f0, 0x23f0),   // alarm clock
    (0x23f3, 0x23f3),   // hourglass flowing
    (0x25fd, 0x25fe),   // medium small squares
    (0x2614, 0x2615),   // umbrella, hot beverage
    (0x2648, 0x2653),   // zodiac
    (0x267f, 0x267f),   // wheelchair
    (0x2693, 0x2693),   // anchor
    (0x26a1, 0x26a1),   // high voltage
    (0x26aa, 0x26ab),   // circles
    (0x26bd, 0x26be),   // balls
    (0x26c4, 0x26c5),   // snowman, sun
    (0x26ce, 0x26ce),   // ophiuchus
    (0x26d4, 0x26d4),   // no entry
    (0x26ea, 0x26ea),   // church
    (0x26f2, 0x26f3),   // fountain, flag
    (0x26f5, 0x26f5),   // sailboat
    (0x26fa, 0x26fa),   // tent
    (0x26fd, 0x26fd),   // fuel pump
    (0x2705, 0x2705),   // check mark
    (0x270a, 0x270b),   // fists
    (0x2728, 0x2728),   // sparkles
    (0x274c, 0x274c),   // cross mark
    (0x274e, 0x274e),   // cross mark button
    (0x2753, 0x2755),   // question marks
    (0x2757, 0x2757),   // exclamation mark
    (0x2795, 0x2797),   // plus, minus, divide
    (0x27b0, 0x27b0),   // curly loop
    (0x27bf, 0x27bf),   // double curly loop
    (0x2b1b, 0x2b1c),   // large squares
    (0x2b50, 0x2b50),   // star
    (0x2b55, 0x2b55),   // circle
    (0x2e80, 0xa4cf),   // CJK radicals .. Yi (0x303f, narrow, counts two)
    (0xa960, 0xa97f),   // Hangul Jamo extended A
    (0xac00, 0xd7a3),   // Hangul syllables
    (0xf900, 0xfaff),   // CJK compatibility ideographs
    (0xfe10, 0xfe19),   // vertical forms
    (0xfe30, 0xfe6f),   // CJK compatibility and small forms
    (0xff00, 0xff60),   // fullwidth forms
    (0xffe0, 0xffe6),   // fullwidth signs
    (0x16fe0, 0x1b2ff), // Tangut, Khitan, Nushu, Kana supplements
    (0x1f000, 0x1faff), // mahjong .. symbols and pictographs (emoji)
    (0x20000, 0x3fffd), // CJK ideographs, planes 2 and 3
];

/// The columns a character takes.
pub fn char_columns(c: char) -> usize {
    let c = c as u32;
    if WIDE.iter().any(|&(lo, hi)| lo <= c && c <= hi) {
        2
    } else {
        1
    }
}

/// The columns `s` takes.
pub fn columns(s: &str) -> usize {
    s.chars().map(char_columns).sum()
}

/// The length in bytes of the unit `s` starts with, as escaped text is
/// cut: an escape whole, else one character (0 for empty text).
pub fn unit_len(s: &str) -> usize {
    let b = s.as_bytes();
    let hex = |from: usize, n: usize| {
        b.get(from..from + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_hexdigit))
    };
    match (b.first(), b.get(1)) {
        (None, _) => 0,
        (Some(b'\\'), Some(b'x')) if hex(2, 2) => 4,
        (Some(b'\\'), Some(b'u')) if hex(2, 4) => 6,
        (Some(b'\\'), Some(b't' | b'n' | b'r' | b'\\' | b'\'')) => 2,
        _ => s.chars().next().map_or(0, char::len_utf8),
    }
}

/// The units of `s`, in order.
pub fn units(mut s: &str) -> impl Iterator<Item = &str> {
    core::iter::from_fn(move || {
        let n = unit_len(s);
        let (unit, rest) = s.split_at_checked(n)?;
        s = rest;
        (n > 0).then_some(unit)
    })
}
