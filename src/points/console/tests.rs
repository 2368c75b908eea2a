use super::*;

fn cleaned(raw: &[u8]) -> Vec<u8> {
    let mut buf = raw.to_vec();
    let n = clean(&mut buf);
    buf.truncate(n);
    buf
}

#[test]
fn crs_and_escapes_go_and_a_terminal_reset_breaks_the_line() {
    let cases: [(&[u8], &[u8]); 13] = [
        (b"a\r\nb\r\n", b"a\nb\n"),
        (b"ab\rcd", b"abcd"),
        (
            b"\x1b[0m\x1b[?25lbanner\x1b[1;31m red\x1b[0m",
            b"banner red",
        ),
        (b"firmware\x1bcbanner", b"firmware\nbanner"),
        (b"\x1b\rc", b"\n"),
        (b"\x1bMup\x1bD", b"up"),
        // ESC 7 and ESC 8 (0x37, 0x38) are below 0x40: kept.
        (b"\x1b7saved\x1b8", b"\x1b7saved\x1b8"),
        // Not an escape these remove: kept, bytes and all.
        (b"\x1b(Bcharset", b"\x1b(Bcharset"),
        // A CSI cut short: its ESC [ goes as a two-byte escape.
        (b"x\x1b[12\n", b"x12\n"),
        (b"\x1b\x1b[m", b"\x1b"),
        (b"\x1b[1;2\x1b[mz", b"1;2z"),
        (b"\x1b[ \x20@k", b"k"),
        (b"end\x1b", b"end\x1b"),
    ];
    for (raw, want) in cases {
        assert_eq!(cleaned(raw), want, "{:?}", String::from_utf8_lossy(raw));
    }
}

#[test]
fn lines_are_awks_records() {
    let l = |t: &'static [u8]| lines(t).collect::<Vec<_>>();
    assert!(l(b"").is_empty());
    assert_eq!(l(b"\n"), [b""]);
    assert_eq!(l(b"a"), [b"a"]);
    assert_eq!(l(b"a\n\nb\n"), [&b"a"[..], b"", b"b"]);
}

#[test]
fn the_verdict_is_the_last_exit_line_with_digits() {
    assert_eq!(verdict(b"uring-repro: exit 0"), Some(&b"0"[..]));
    assert_eq!(verdict(b"uring-repro: exit 130"), Some(&b"130"[..]));
    for not in [
        &b"uring-repro: exit "[..],
        b"uring-repro: exit 1x",
        b"uring-repro: exit",
        b" uring-repro: exit 1",
    ] {
        assert_eq!(verdict(not), None, "{:?}", String::from_utf8_lossy(not));
    }
    let text = b"uring-repro: exit 1\nx\nuring-repro: exit 4\nuring-repro: exit 4x\n";
    assert_eq!(last_verdict(text), Some(&b"4"[..]));
    assert_eq!(last_verdict(b"no verdict\n"), None);
}

#[test]
fn the_binarys_stderr_lines_are_shown_but_the_verdict() {
    assert!(shown_on_stderr(b"uring-repro: FAIL: x"));
    assert!(shown_on_stderr(b"uring-repro: exit"));
    assert!(shown_on_stderr(b"uring-repro: exit 12x"));
    assert!(!shown_on_stderr(b"uring-repro: exit 0"));
    assert!(!shown_on_stderr(b"uring-repro: exit "));
    assert!(!shown_on_stderr(b"# uring-repro 0.1.0"));
}

#[test]
fn kernel_log_lines_have_a_timestamp() {
    for yes in ["[    1.234567] random: crng init done", "[12.5] x", "[1.0]"] {
        assert!(kernel_log(yes.as_bytes()), "{yes}");
    }
    for no in [
        "[    1.2x] not",
        "[ .5] no",
        "[1.] no",
        "[1] no",
        " [1.0] no",
        "# [1.0]",
    ] {
        assert!(!kernel_log(no.as_bytes()), "{no}");
    }
}

#[test]
fn a_runs_point_runs_from_its_banner_to_the_verdict() {
    let text = b"[    0.0] boot\njunk\n# uring-repro 0.1.0 profile=s0\n[    1.0] log\nrow 1\n\
        uring-repro: note\n\n# checks: PASS\nuring-repro: exit 0\nafter\nuring-repro: exit 4\n";
    let walk = |text: &'static [u8]| {
        let mut got: Vec<&[u8]> = Vec::new();
        run(text, &mut |l| got.push(l));
        got
    };
    let got = walk(text);
    let want: [&[u8]; 4] = [
        b"# uring-repro 0.1.0 profile=s0",
        b"row 1",
        b"",
        b"# checks: PASS",
    ];
    assert_eq!(got, want);
    assert!(walk(b"no banner\nuring-repro: exit 0\n").is_empty());
}

#[test]
fn a_suite_is_cut_at_its_item_lines() {
    let text = b"[    0.0] boot\n# suite: 1/3 s0\n# uring-repro a\nrow a\n# suite: 2/3 c0\n\
        # suite: 3/3 n0:shared\nnot a point yet\n# uring-repro b\n[    2.0] log\nrow b\n\
        # suite: 1/3 s0 exit=0 pass\n# suite: 2/3 c0 exit=4 skip: x\n# suite: 3/3 bad-name\n\
        # uring-repro c\n# suite: items=3\nuring-repro: exit 0\n# suite: 9/9 z\n";
    let mut got: Vec<(Part, &[u8])> = Vec::new();
    suite(text, &mut |p, l| got.push((p, l)));
    let s = |k: &'static [u8]| Part::Point(k);
    let want: Vec<(Part, &[u8])> = vec![
        (Part::Begin(b"1", b"s0"), b"# suite: 1/3 s0"),
        (s(b"1"), b"# uring-repro a"),
        (s(b"1"), b"row a"),
        (Part::Begin(b"2", b"c0"), b"# suite: 2/3 c0"),
        (Part::Begin(b"3", b"n0:shared"), b"# suite: 3/3 n0:shared"),
        (s(b"3"), b"# uring-repro b"),
        (s(b"3"), b"row b"),
        (Part::Lines, b"# suite: 1/3 s0 exit=0 pass"),
        (Part::Lines, b"# suite: 2/3 c0 exit=4 skip: x"),
        (Part::Lines, b"# suite: 3/3 bad-name"),
        (s(b"3"), b"# uring-repro c"),
        (Part::Lines, b"# suite: items=3"),
    ];
    assert_eq!(got, want);
}

#[test]
fn an_items_exit_is_its_lines_fifth_word() {
    let text = b"# suite: 1/3 s0\n# suite: 2/3 c0\n# suite: 3/3 n0\n\
        # suite: 1/3 s0 exit=0 pass\n# suite: 2/3 c0 exit=4 skip: x\n# suite: 3/3 n0 not run\n\
        # suite: items=3 passed=1\nuring-repro: exit 0\n";
    let exit = |k: &[u8]| item_exit(text, k);
    assert_eq!(exit(b"1"), Some(&b"0"[..]));
    assert_eq!(exit(b"2"), Some(&b"4"[..]));
    assert_eq!(exit(b"02"), Some(&b"4"[..]));
    assert_eq!(exit(b"3"), Some(&b"not"[..]));
    assert_eq!(exit(b"4"), None);
    let short = b"# suite: 1/1 s0\n# suite: 1/1 s0\n# suite: x\nuring-repro: exit 0\n";
    assert_eq!(item_exit(short, b"1"), None);
}
