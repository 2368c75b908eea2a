//! Numbers in the words of a point and of the cost counter's counts, read
//! as their first reader read them (an awk program, which this command
//! replaced), so that the lines come out the same and a count that is
//! not what it should be is refused in the same words: a word's value is
//! the decimal number it starts with (0 when none), as a double; two words
//! compare as numbers when both are numbers whole, else as bytes; a
//! number shows as a whole number while it is one between -2^31 and 2^31,
//! else with 6 significant digits (`%.6g`).

use core::cmp::Ordering;
use core::fmt::{self, Write};

use crate::render::Text;

/// The length of the decimal number `s` starts with after blanks (an
/// optional sign, digits with an optional point, or a point and digits,
/// then an optional exponent); 0 when it starts with none.
fn prefix(s: &[u8]) -> (usize, usize) {
    let start = s.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    let digits = |at: usize| {
        s[at.min(s.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let mut at = start + usize::from(matches!(s.get(start), Some(b'+' | b'-')));
    let whole = digits(at);
    at += whole;
    let mut frac = 0;
    if s.get(at) == Some(&b'.') {
        frac = digits(at + 1);
        if whole + frac > 0 {
            at += 1 + frac;
        }
    }
    if whole + frac == 0 {
        return (start, start);
    }
    if matches!(s.get(at), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(s.get(at + 1), Some(b'+' | b'-')));
        let exp = digits(at + 1 + sign);
        if exp > 0 {
            at += 1 + sign + exp;
        }
    }
    (start, at)
}

/// The number `s` starts with, 0 when none.
pub fn value(s: &[u8]) -> f64 {
    let (start, end) = prefix(s);
    core::str::from_utf8(&s[start..end])
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0.0)
}

/// `s` is a number whole (blanks around it aside).
pub fn whole(s: &[u8]) -> bool {
    let (start, end) = prefix(s);
    end > start && s[end..].iter().all(|&b| b == b' ' || b == b'\t')
}

/// How two words compare: as numbers when both are numbers, else byte
/// by byte.
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    if whole(a) && whole(b) {
        value(a).partial_cmp(&value(b)).unwrap_or(Ordering::Equal)
    } else {
        a.cmp(b)
    }
}

/// Two words are the same (as `compare` says).
pub fn same(a: &[u8], b: &[u8]) -> bool {
    compare(a, b) == Ordering::Equal
}

/// How a word compares with a number: as numbers when the word is one,
/// else with the number as it shows (`Shown`), byte by byte.
pub fn against(word: &[u8], n: f64) -> Ordering {
    if whole(word) {
        return value(word).partial_cmp(&n).unwrap_or(Ordering::Equal);
    }
    let mut t: Text<32> = Text::new();
    let _ = write!(t, "{}", Shown(n));
    word.cmp(t.as_bytes())
}

/// A number as it shows in a message.
pub struct Shown(pub f64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.is_nan() {
            return f.write_str("nan");
        }
        if v.is_infinite() {
            return f.write_str(if v < 0.0 { "-inf" } else { "inf" });
        }
        const LIMIT: f64 = 2_147_483_648.0;
        if v == (v as i64) as f64 && v > -LIMIT && v < LIMIT {
            return write!(f, "{}", v as i64);
        }
        // Six significant digits, rounded: d.ddddde±X, laid out as %g does.
        let mut e: Text<32> = Text::new();
        let _ = write!(e, "{:.5e}", v.abs());
        let (mantissa, exp) = e.as_str().split_once('e').unwrap_or(("0", "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let digits = without_point(mantissa);
        let digits = digits.as_str();
        let sign = if v < 0.0 { "-" } else { "" };
        let mut body: Text<32> = Text::new();
        if !(-4..6).contains(&exp) {
            let _ = write!(body, "{}.{}", &digits[..1], &digits[1..]);
            let kept = trimmed(body.as_str());
            let esign = if exp < 0 { '-' } else { '+' };
            return write!(f, "{sign}{kept}e{esign}{:02}", exp.abs());
        }
        if exp < 0 {
            let zeros = (-exp - 1) as usize;
            let _ = write!(body, "0.{:0<zeros$}{digits}", "");
        } else {
            let point = exp as usize + 1;
            let _ = write!(body, "{}.{}", &digits[..point], &digits[point..]);
        }
        write!(f, "{sign}{}", trimmed(body.as_str()))
    }
}

/// The six digits of a mantissa `d.ddddd`, without its point.
fn without_point(mantissa: &str) -> Text<8> {
    let mut t = Text::new();
    for c in mantissa.chars().filter(|&c| c != '.') {
        let _ = t.write_char(c);
    }
    t
}

/// `s` (with a point) without its trailing zeros, nor the point when
/// nothing is left after it.
fn trimmed(s: &str) -> &str {
    s.trim_end_matches('0').trim_end_matches('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_worth_the_number_it_starts_with() {
        for (s, v) in [
            ("8", 8.0),
            (" 12 ", 12.0),
            ("08", 8.0),
            ("1e3", 1000.0),
            ("2.5x", 2.5),
            ("-3", -3.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("1e", 1.0),
            ("x", 0.0),
            ("", 0.0),
            ("+", 0.0),
            (".", 0.0),
        ] {
            assert_eq!(value(s.as_bytes()), v, "{s:?}");
        }
        assert!(whole(b"12") && whole(b" 1.5 ") && whole(b"1e3"));
        assert!(!whole(b"12x") && !whole(b"") && !whole(b"x") && !whole(b"1 2"));
    }

    #[test]
    fn words_compare_as_numbers_only_when_both_are() {
        assert!(same(b"01", b"1") && same(b"1.0", b"1"));
        assert!(!same(b"1x", b"1") && same(b"abc", b"abc"));
        assert_eq!(compare(b"10", b"9"), Ordering::Greater);
        assert_eq!(compare(b"10x", b"9"), Ordering::Less);
        assert_eq!(against(b"10", 9.0), Ordering::Greater);
        assert_eq!(against(b"x", 1.0), Ordering::Greater);
    }

    #[test]
    fn a_number_shows_as_awk_shows_it() {
        let shown = |v: f64| Shown(v).to_string();
        assert_eq!(shown(0.0), "0");
        assert_eq!(shown(43443045.0), "43443045");
        assert_eq!(shown(-7.0), "-7");
        assert_eq!(shown(2147483647.0), "2147483647");
        assert_eq!(shown(2147483648.0), "2.14748e+09");
        assert_eq!(shown(-2147483648.0), "-2.14748e+09");
        assert_eq!(shown(9007199254740992.0), "9.0072e+15");
        assert_eq!(shown(1e18), "1e+18");
        assert_eq!(shown(0.5), "0.5");
        assert_eq!(shown(2.25), "2.25");
        assert_eq!(shown(0.0001234567), "0.000123457");
        assert_eq!(shown(0.00001), "1e-05");
        assert_eq!(shown(123456.5), "123456");
        assert_eq!(shown(1234567.5), "1.23457e+06");
    }
}
