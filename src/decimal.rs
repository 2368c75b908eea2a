//! Decimal numbers written as text, read back from bytes: the one reader
//! of every number the tool parses (its command line, a point's rows and
//! cost lines, the trace and the tracer's stats, the thread ids in /proc).
//! ASCII digits only: no space, no `+`, no exponent, no digit separator.
//! Each caller states its limits: how many digits it takes (leading zeros
//! count), whether a `-` may lead, how many digits may follow a dot.
//! Pure: bytes in, a number or why not out.

/// Why bytes are not the number asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Empty, more digits than the caller takes, or a byte that is no
    /// digit where one must be (a sign or a dot out of place, a dot with
    /// no digit on one side of it).
    NotANumber,
    /// Digits that are a number, but one too large: past u64 (whole), past
    /// i64 (signed), an integer part past 18 significant digits (decimal).
    TooLarge,
    /// More digits after the dot than the caller takes.
    TooManyDecimals,
}

/// Digits of which every number fits a u64 (10^19 - 1 < 2^64): a caller
/// that takes no more needs no overflow of its own.
pub const U64_DIGITS: usize = 19;

/// No limit on the digits (or decimals) taken: the value alone decides.
pub const UNBOUNDED: usize = usize::MAX;

/// Significant digits a decimal keeps: past them, a fraction's digits are
/// ignored (far below any printed precision) and an integer part is too
/// large (no figure the tool writes has one that long).
const SIGNIFICANT: u32 = 18;

/// A whole number of 1 to `max_digits` digits.
pub fn whole(s: &[u8], max_digits: usize) -> Result<u64, Refused> {
    if s.is_empty() || s.len() > max_digits || !s.iter().all(u8::is_ascii_digit) {
        return Err(Refused::NotANumber);
    }
    s.iter()
        .try_fold(0u64, |n, &d| {
            n.checked_mul(10)?.checked_add((d - b'0') as u64)
        })
        .ok_or(Refused::TooLarge)
}

/// A whole number of 1 to `max_digits` digits, a `-` before them or none.
pub fn signed(s: &[u8], max_digits: usize) -> Result<i64, Refused> {
    let (negative, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    let n = whole(digits, max_digits)? as i128;
    i64::try_from(if negative { -n } else { n }).map_err(|_| Refused::TooLarge)
}

/// A non-negative plain decimal, `123` or `123.456` (digits on both sides
/// of a dot, if there is one), with at most `max_decimals` digits after
/// the dot; digits past the 18th significant one are ignored after the
/// dot, and too many before it.
pub fn decimal(s: &[u8], max_decimals: usize) -> Result<f64, Refused> {
    let dot = s.iter().position(|&b| b == b'.').unwrap_or(s.len());
    let (mut m, mut scale, mut sig) = (0u64, 1f64, 0);
    for (i, &d) in s.iter().enumerate() {
        if i == dot {
            continue;
        }
        if !d.is_ascii_digit() {
            return Err(Refused::NotANumber);
        }
        if sig == SIGNIFICANT {
            if i < dot {
                return Err(Refused::TooLarge);
            }
            continue;
        }
        m = m * 10 + (d - b'0') as u64;
        sig += (m != 0) as u32;
        if i > dot {
            scale *= 10.0;
        }
    }
    if dot == 0 || dot + 1 == s.len() {
        return Err(Refused::NotANumber);
    }
    if s.len().saturating_sub(dot + 1) > max_decimals {
        return Err(Refused::TooManyDecimals);
    }
    Ok(m as f64 / scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Refused::*;

    #[test]
    fn a_whole_number_is_digits_within_the_callers_limit() {
        assert_eq!(whole(b"0", 1), Ok(0));
        assert_eq!(whole(b"16384", U64_DIGITS), Ok(16384));
        // Leading zeros are digits: they count against the limit.
        assert_eq!(whole(b"007", 3), Ok(7));
        assert_eq!(whole(b"007", 2), Err(NotANumber));
        assert_eq!(
            whole(b"9999999999999999999", U64_DIGITS),
            Ok(10u64.pow(19) - 1)
        );
        assert_eq!(whole(b"18446744073709551615", 20), Ok(u64::MAX));
        assert_eq!(whole(b"18446744073709551616", 20), Err(TooLarge));
        assert_eq!(whole(b"18446744073709551616", U64_DIGITS), Err(NotANumber));
        let long_zeros = format!("{}1", "0".repeat(40));
        assert_eq!(whole(long_zeros.as_bytes(), UNBOUNDED), Ok(1));
        for junk in [
            "", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "1_000", "١",
        ] {
            assert_eq!(whole(junk.as_bytes(), UNBOUNDED), Err(NotANumber), "{junk}");
        }
    }

    #[test]
    fn a_signed_number_takes_a_minus_and_no_plus() {
        assert_eq!(signed(b"-11", U64_DIGITS), Ok(-11));
        assert_eq!(signed(b"0", U64_DIGITS), Ok(0));
        assert_eq!(signed(b"-0", U64_DIGITS), Ok(0));
        assert_eq!(signed(b"-9223372036854775808", U64_DIGITS), Ok(i64::MIN));
        assert_eq!(signed(b"9223372036854775807", U64_DIGITS), Ok(i64::MAX));
        assert_eq!(signed(b"9223372036854775808", U64_DIGITS), Err(TooLarge));
        assert_eq!(signed(b"-9999999999999999999", U64_DIGITS), Err(TooLarge));
        for junk in ["", "-", "+5", "--1", "1-", "- 1"] {
            assert_eq!(
                signed(junk.as_bytes(), U64_DIGITS),
                Err(NotANumber),
                "{junk}"
            );
        }
    }

    #[test]
    fn a_decimal_has_digits_on_both_sides_of_its_dot() {
        assert_eq!(decimal(b"180.078890", UNBOUNDED), Ok(180.07889));
        assert_eq!(decimal(b"180", 0), Ok(180.0));
        assert_eq!(decimal(b"007.25", UNBOUNDED), Ok(7.25));
        // Past the 18th significant digit a fraction's digits are ignored,
        // an integer part's are too many.
        assert_eq!(decimal(b"1.0000000000000000000001", UNBOUNDED), Ok(1.0));
        assert_eq!(decimal(b"0.000000000000000000005", UNBOUNDED), Ok(5e-21));
        assert_eq!(decimal(b"1234567890123456789012", UNBOUNDED), Err(TooLarge));
        for junk in [
            "", ".", ".5", "5.", "-1", "+1", "1e3", "nan", "1.2.3", " 1", "1,5",
        ] {
            assert_eq!(
                decimal(junk.as_bytes(), UNBOUNDED),
                Err(NotANumber),
                "{junk}"
            );
        }
    }

    #[test]
    fn a_decimal_has_at_most_the_decimals_its_caller_takes() {
        assert_eq!(decimal(b"1.234", 3), Ok(1.234));
        assert_eq!(decimal(b"1.2340", 3), Err(TooManyDecimals));
        assert_eq!(decimal(b"100", 3), Ok(100.0));
        // A decimal with no digit after its dot is no decimal, however many
        // the caller takes.
        assert_eq!(decimal(b"1.", 3), Err(NotANumber));
    }
}
