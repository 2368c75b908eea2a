//! Numbers in the words of a point and of the cost counter's counts: whole
//! decimal numbers (docs/cost.md: every count is exact), read as their
//! first reader (an awk program, which this command replaced) read them,
//! so that the lines come out the same and a count that is not what it
//! should be is refused in the same words: a word is worth the number it
//! starts with (after blanks, a sign and digits; 0 when none), held as a
//! double; two words compare as numbers when both are numbers whole, else
//! as bytes; a number shows whole between -2^31 and 2^31, else with 6
//! significant digits (`%.6g`: `2.14748e+09`). Fractions and exponents,
//! which no count has, are not read (`1.5` is worth 1, as `1x` is).

use core::cmp::Ordering;
use core::fmt::{self, Write};

use crate::decimal::{self, Refused};
use crate::render::Text;

/// Where the number `s` starts with lies, after blanks: (start, end),
/// end == start when there is none.
fn prefix(s: &[u8]) -> (usize, usize) {
    let start = s.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    let sign = usize::from(matches!(s.get(start), Some(b'+' | b'-')));
    let digits = s[(start + sign).min(s.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    match digits {
        0 => (start, start),
        n => (start, start + sign + n),
    }
}

/// The number `s` starts with, 0 when none (its digits as a u64, past
/// which it stays at u64::MAX, rounded once to a double).
pub fn value(s: &[u8]) -> f64 {
    let (start, end) = prefix(s);
    let (negative, number) = (s.get(start) == Some(&b'-'), &s[start..end]);
    let digits = number.strip_prefix(b"-").or(number.strip_prefix(b"+"));
    let n = match decimal::whole(digits.unwrap_or(number), decimal::UNBOUNDED) {
        Ok(n) => n,
        Err(Refused::TooLarge) => u64::MAX,
        Err(_) => 0,
    };
    if negative {
        -(n as f64)
    } else {
        n as f64
    }
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

/// A number (a count, or a sum of counts: whole) as it shows in a message.
pub struct Shown(pub f64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const LIMIT: f64 = 2_147_483_648.0;
        let v = self.0;
        if v > -LIMIT && v < LIMIT {
            return write!(f, "{}", v as i64);
        }
        // Six significant digits of the whole number, rounded to nearest,
        // ties to even, as printf rounds its exact value: d.ddddde+X.
        let sign = if v < 0.0 { "-" } else { "" };
        let mut digits: Text<24> = Text::new();
        let _ = write!(digits, "{}", (if v < 0.0 { -v } else { v }) as u64);
        let d = digits.as_bytes();
        let mut exp = d.len() - 1;
        let mut head = d[..6].iter().fold(0u64, |n, &b| n * 10 + (b - b'0') as u64);
        let (next, rest) = (d[6], d[7..].iter().any(|&b| b != b'0'));
        if next > b'5' || next == b'5' && (rest || head % 2 == 1) {
            head += 1;
        }
        if head == 1_000_000 {
            (head, exp) = (100_000, exp + 1);
        }
        let mut mantissa: Text<16> = Text::new();
        let _ = write!(mantissa, "{}.{:05}", head / 100_000, head % 100_000);
        let kept = mantissa
            .as_str()
            .trim_end_matches('0')
            .trim_end_matches('.');
        write!(f, "{sign}{kept}e+{exp:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_worth_the_whole_number_it_starts_with() {
        for (s, v) in [
            ("8", 8.0),
            (" 12 ", 12.0),
            ("08", 8.0),
            ("2x", 2.0),
            ("-3", -3.0),
            ("+4", 4.0),
            ("1.5", 1.0),
            ("x", 0.0),
            ("", 0.0),
            ("+", 0.0),
            ("99999999999999999999999", u64::MAX as f64),
        ] {
            assert_eq!(value(s.as_bytes()), v, "{s:?}");
        }
        assert!(whole(b"12") && whole(b" 12 ") && whole(b"-1"));
        assert!(!whole(b"12x") && !whole(b"") && !whole(b"x") && !whole(b"1 2") && !whole(b"1.5"));
    }

    #[test]
    fn words_compare_as_numbers_only_when_both_are() {
        assert!(same(b"01", b"1") && same(b" 1", b"1"));
        assert!(!same(b"1x", b"1") && same(b"abc", b"abc"));
        assert_eq!(compare(b"10", b"9"), Ordering::Greater);
        assert_eq!(compare(b"10x", b"9"), Ordering::Less);
        assert_eq!(against(b"10", 9.0), Ordering::Greater);
        assert_eq!(against(b"x", 1.0), Ordering::Greater);
    }

    #[test]
    fn a_number_shows_as_awk_shows_it() {
        // mawk: print x "" of each.
        let shown = |v: f64| Shown(v).to_string();
        assert_eq!(shown(0.0), "0");
        assert_eq!(shown(43443045.0), "43443045");
        assert_eq!(shown(-7.0), "-7");
        assert_eq!(shown(2147483647.0), "2147483647");
        assert_eq!(shown(2147483648.0), "2.14748e+09");
        assert_eq!(shown(-2147483648.0), "-2.14748e+09");
        assert_eq!(shown(9007199254740992.0), "9.0072e+15");
        assert_eq!(shown(1e18), "1e+18");
        assert_eq!(shown(3000000000.0), "3e+09");
        assert_eq!(shown(9999995000.0), "1e+10");
        assert_eq!(shown(2147485000.0), "2.14748e+09");
        assert_eq!(shown(2147495000.0), "2.1475e+09");
    }
}
