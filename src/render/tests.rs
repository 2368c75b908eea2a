//! The formatting toolkit against printf, hand-made cases and its edges.

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
    assert_eq!(
        Ratio6 {
            num: 19_999_999,
            den: 10_000_000
        }
        .to_string(),
        "2.000000"
    );
    assert_eq!(
        Ratio6 {
            num: u64::MAX,
            den: 1
        }
        .to_string(),
        "18446744073709551615.000000"
    );
    // 18446744073709551615 = 7 * 2635249153387078802 + 1.
    assert_eq!(
        Ratio6 {
            num: u64::MAX,
            den: 7
        }
        .to_string(),
        "2635249153387078802.142857"
    );
    for (num, den) in [
        (2_950_366_123u64, 2_621_440_000_000u64),
        (123_456_789, 16_384),
        (7, 3),
        (1, 2_000_000),
        (1, 1_999_999),
    ] {
        let exact = num as f64 / den as f64;
        let got: f64 = Ratio6 { num, den }.to_string().parse().unwrap();
        assert!(
            (got - exact).abs() <= 0.5e-6 + 1e-12,
            "{num}/{den}: {got} vs {exact}"
        );
    }
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
fn ratio_six_matches_printf_on_ties() {
    // 128 / 16384 = 0.0078125 exactly: printf("%.6f") rounds the tie to
    // even (0.007812); half up gave 0.007813. A round of the default
    // contract (16384 pairs) hits such a tie when its ns = 128 mod 256.
    assert_eq!(
        Ratio6 {
            num: 128,
            den: 16384
        }
        .to_string(),
        "0.007812"
    );
    assert_eq!(
        Ratio6 {
            num: 2_950_365_056 + 128,
            den: 16384
        }
        .to_string(),
        format!("{:.6}", (2_950_365_056u64 + 128) as f64 / 16384.0)
    );
    // Every den a run or its mean row can have, against core's exact
    // formatting of the same double (what the C tool prints).
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for den in [16384u64, 245_760, 320, 3, 7, 1, 2_000_000, 49_152] {
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Mostly realistic sums, some exact ties (num = 128 mod 256).
            let num = match x & 1 {
                0 => x % 4_000_000_000,
                _ => (x % 4_000_000_000) & !0xff | 128,
            };
            let want = format!("{:.6}", num as f64 / den as f64);
            assert_eq!(Ratio6 { num, den }.to_string(), want, "{num}/{den}");
        }
    }
}

#[test]
fn dec_formats_fixed_point() {
    assert_eq!(Dec(0.126_4, 3).to_string(), "0.126");
    // 9.2685 is 9.26849999999999951... as an f64: printf says 9.268.
    assert_eq!(Dec(9.2685, 3).to_string(), "9.268");
    assert_eq!(Dec(9.2685, 3).to_string(), format!("{:.3}", 9.2685));
    assert_eq!(Dec(-0.1244, 3).to_string(), "-0.124");
    assert_eq!(Dec(-0.0001, 3).to_string(), "0.000");
    assert_eq!(Dec(180.0, 6).to_string(), "180.000000");
    assert_eq!(Dec(2.5, 0).to_string(), "2"); // printf: a tie, to even
    assert_eq!(Dec(3.5, 0).to_string(), "4");
    // Random values and ties at every precision, against core's exact
    // formatting (glibc's digits); the rows' ties print alike.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for d in 0..=9u32 {
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = match x % 3 {
                0 => (x >> 11) as f64 / (1u64 << 53) as f64 * 1000.0,
                1 => (x % 4_000_000_000) as f64 / 16384.0,
                _ => (x % 1_000_000) as f64 + 0.5,
            };
            assert_eq!(Dec(v, d).to_string(), format!("{v:.0$}", d as usize));
            if Dec(v, d)
                .to_string()
                .bytes()
                .any(|b| (b'1'..=b'9').contains(&b))
            {
                assert_eq!(Dec(-v, d).to_string(), format!("{:.1$}", -v, d as usize));
            }
        }
    }
    let row = Ratio6 {
        num: 2_949_120_128,
        den: 16384,
    };
    assert_eq!(
        Dec(2_949_120_128.0 / 16384.0, 6).to_string(),
        row.to_string()
    );
    assert_eq!(Dec(f64::NAN, 2).to_string(), "nan");
    assert_eq!(Dec(f64::INFINITY, 2).to_string(), "inf");
}

#[test]
fn signed_shows_the_sign_of_what_it_prints() {
    assert_eq!(Signed(9.2685, 3).to_string(), "+9.268");
    assert_eq!(Signed(-0.1244, 3).to_string(), "-0.124");
    // What prints as zero has no sign, whichever side of it it is.
    for v in [0.0, -0.0, 0.0004, -0.0004, 0.000_499_999] {
        assert_eq!(Signed(v, 3).to_string(), "0.000", "{v}");
    }
    assert_eq!(Signed(0.0005, 3).to_string(), "+0.001");
    // A tie to even that prints 0 is zero too; 1.5 prints 2.
    assert_eq!(Signed(0.5, 0).to_string(), "0");
    assert_eq!(Signed(1.5, 0).to_string(), "+2");
    assert_eq!(Signed(f64::INFINITY, 1).to_string(), "+inf");
    assert_eq!(Signed(f64::NAN, 2).to_string(), "nan");
    assert_eq!(
        Signed(-1e17, 9).to_string(),
        "-100000000000000000.000000000"
    );
}

#[test]
fn dec_keeps_large_values_whole() {
    // v * 10^d past u64::MAX used to saturate: 1e14 with six decimals
    // printed as 18446744073709.551615.
    assert_eq!(Dec(1e14, 6).to_string(), "100000000000000.000000");
    assert_eq!(Dec(-1e14, 6).to_string(), "-100000000000000.000000");
    assert_eq!(
        Dec(123_456_789_012.5, 9).to_string(),
        "123456789012.500000000"
    );
    assert_eq!(Dec(9.9e17, 3).to_string(), "990000000000000000.000");
    assert_eq!(Dec(1e18, 3).to_string(), "inf");
    // Scaled past 2^53 the product itself rounds away units (this one
    // printed .500416); the split keeps what the f64 holds, as printf.
    assert_eq!(
        Dec(18_446_744_073_709.5, 6).to_string(),
        "18446744073709.500000"
    );
    let v = 9_999_999_999.999_999; // 9999999999.9999980926... as f64
    assert_eq!(Dec(v, 6).to_string(), format!("{v:.6}"));
    assert_eq!(Dec(99.5, 0).to_string(), "100");
}

#[test]
fn line_truncates() {
    let mut l = Line::new();
    write!(l, "{}", "x".repeat(600)).unwrap();
    assert_eq!(l.as_bytes().len(), TEXT_MAX);
    let mut l = Line::new();
    write!(l, "a{}[{:>4}|{:é<3}]", 1, "ab", 2).unwrap();
    assert_eq!(l.to_string(), "a1[  ab|2éé]");
}

#[test]
fn rows_spread_and_the_checks_line() {
    use crate::check::{Fail, TOTALS};
    let mut w = String::new();
    row(&mut w, "", 3, 16384, 2_950_366, true);
    row(&mut w, "pollwake_idle", 0, 64, 128, false);
    mean_and_spread(&mut w, "", "mean", 4, 2, true, &[1.0, 3.0]);
    mean_and_spread(&mut w, "x", "partial", 4, 2, false, &[2.0]);
    assert_eq!(
        w,
        "3\t16384\t180.076050\t1\npollwake_idle\t0\t64\t2.000000\t0\n\
         mean\t2\t2.000000\t1\n# median=2.000000 min=1.000000 max=3.000000 cv=70.711%\n\
         x\tpartial\t2\t2.000000\t0\n# profile=x median=2.000000 min=2.000000 max=2.000000 cv=0.000%\n"
    );
    let mut l = Ledger::default();
    l.cqes = 7;
    l.add(Fail::Missing, 2);
    let own: [Counter; 1] = [("lost_wakeups", |l| l.count(Fail::LostWakeup))];
    let mut w = String::new();
    checks(&mut w, [&TOTALS[..1], &own], &l, verdict(l.passed(), false));
    assert_eq!(
        w,
        "# checks: cqes=7 bad_results=0 bad_flags=0 unknown_tags=0 duplicates=0 missing=2 \
         timeouts=0 submit_errors=0 sq_dropped=0 cq_overflow=0 outstanding=0 migrations=0 \
         lost_wakeups=0 -> FAIL\n"
    );
    assert_eq!(verdict(true, true), "INTERRUPTED");
}

#[test]
fn clean_shows_what_would_hide_or_break_a_line() {
    assert_eq!(
        Clean(b"6.12\x1b[31m red\n\t\r\x7f").to_string(),
        "6.12\\x1b[31m red\\n\\t\\r\\x7f"
    );
    assert_eq!(
        Clean("a\u{202e}b\u{200b}c\u{85}\u{2066}é ü".as_bytes()).to_string(),
        "a\\u202eb\\u200bc\\u0085\\u2066é ü"
    );
    assert_eq!(Clean(b"ab\xffc\xe2\x80").to_string(), "ab\\xffc\\xe2\\x80");
    assert_eq!(Clean(b"/tmp/a b-1.txt").to_string(), "/tmp/a b-1.txt");
    assert!(needs_escape(b"x\x1b") && needs_escape(b"\xff") && needs_escape(b"\t"));
    assert!(!needs_escape("café 'x' \\".as_bytes()));
    // Inside $'...': the quote and the backslash are escaped as well.
    let mut s = String::new();
    escape(&mut s, "a'b\\c\n\u{202e}".as_bytes(), true).unwrap();
    assert_eq!(s, "a\\'b\\\\c\\n\\xe2\\x80\\xae");
}

#[test]
fn clip_cuts_by_characters_after_escaping() {
    assert_eq!(Clip::new(b"6.15.0", 64).to_string(), "6.15.0");
    assert_eq!(Clip::new(b"abcdefgh", 6).to_string(), "abc...");
    assert_eq!(Clip::new(b"abcdef", 6).to_string(), "abcdef");
    // An escape counts as what it shows.
    assert_eq!(Clip::new(b"\x1b\x1bxyz", 7).to_string(), "\\x1b...");
    assert_eq!(
        Clip::head("éééééééééé".as_bytes(), 8).to_string(),
        "éééééééé"
    );
    assert_eq!(Clip::head(b"0a0a0a0a-0000", 8).to_string(), "0a0a0a0a");
}

#[test]
fn wrap_breaks_a_word_longer_than_the_line() {
    let mut w = String::new();
    let long = "x".repeat(150);
    wrap(&mut w, &format!("kernel {long} end"), 0, 2, 72);
    let lines: Vec<&str> = w.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= 72), "{w}");
    assert_eq!(lines[0], "kernel");
    assert_eq!(w.replace(['\n', ' '], ""), format!("kernel{long}end"));
    // Columns are not bytes: 36 two-byte letters fit 72.
    let mut w = String::new();
    let e = "é".repeat(35);
    wrap(&mut w, &format!("{e} a"), 0, 0, 72);
    assert_eq!(w, format!("{e} a\n"));
    // No room at all: one character a line, never a hang.
    let mut w = String::new();
    wrap(&mut w, "abc", 5, 5, 3);
    assert_eq!(w, "a\n     b\n     c\n");
}

#[test]
fn columns_count_wide_characters_twice() {
    for (s, n) in [
        ("abc", 3),
        ("é", 1),
        ("内核", 4),
        ("ｆｕｌｌ", 8),
        ("😀x", 3),
        ("한국어", 6),
        ("⌚", 2),
    ] {
        // As glibc's wcwidth counts them (tests/compare_narrow.rs holds
        // the binary's output to `wc -L`).
        assert_eq!(columns(s), n, "{s}");
    }
}

#[test]
fn wrap_counts_columns_and_never_splits_an_escape() {
    // CJK and emoji: two columns each; no line past 72.
    for word in ["内核版本", "😀😀😀", "x内"] {
        let long = word.repeat(40);
        let mut w = String::new();
        wrap(&mut w, &format!("kernel {long} and {word} end"), 0, 2, 72);
        for l in w.lines() {
            assert!(columns(l) <= 72, "{}: {l}", columns(l));
        }
        assert_eq!(
            w.replace(['\n', ' '], ""),
            format!("kernel{long}and{word}end")
        );
    }
    // Escaped text: every escape whole on one line, whatever the column.
    let shown = Clean(&[1u8; 40]).to_string();
    for col in 0..8 {
        let mut w = String::new();
        wrap(&mut w, &shown, col, 2, 30);
        for l in w.lines() {
            let l = l.trim_start();
            assert!(
                l.len() % 4 == 0 && l.split("\\x01").all(str::is_empty),
                "{col}: {l:?}"
            );
        }
    }
    let mut w = String::new();
    wrap(&mut w, "a\\x1b\\u202e\\tz", 0, 0, 4);
    assert_eq!(w, "a\n\\x1b\n\\u202e\n\\tz\n");
}

#[test]
fn clip_never_splits_an_escape_and_counts_columns() {
    // An escape is cut whole or kept whole.
    for max in 4..12 {
        let c = Clip::new(b"ab\x01\x02\x03\x04", max).to_string();
        let body = c.strip_suffix("...").unwrap_or(&c);
        assert!(
            body.strip_prefix("ab")
                .unwrap_or(body)
                .split("\\x0")
                .all(|p| p.is_empty() || p.len() == 1),
            "{max}: {c}"
        );
        assert!(columns(&c) <= max, "{max}: {c}");
    }
    // Wide characters count two columns.
    assert_eq!(
        Clip::new("内核内核内核".as_bytes(), 9).to_string(),
        "内核内..."
    );
}

#[test]
fn text_truncates_between_characters() {
    let mut t = Text::<5>::new();
    write!(t, "abcé").unwrap();
    assert_eq!(t.as_str(), "abcé");
    write!(t, "é").unwrap();
    assert_eq!(t.as_str(), "abcé");
}

#[test]
fn text_takes_bytes_as_they_are() {
    let mut t = Text::<4>::new();
    t.push_with(&mut |b| {
        b[..3].copy_from_slice(b"a\xffb");
        3
    });
    assert_eq!(t.as_bytes(), b"a\xffb");
    assert_eq!((t.as_str(), t.to_string()), ("?", "a?b".to_string()));
    // Never past N, whatever `fill` says.
    t.push_with(&mut |b| b.len() + 5);
    assert_eq!(t.as_bytes().len(), 4);
}

#[test]
fn bytes_replaces_invalid_utf8() {
    assert_eq!(Bytes(b"ab\xffc").to_string(), "ab?c");
}
