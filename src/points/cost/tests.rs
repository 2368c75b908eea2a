use super::table::fields;
use super::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cost/fixtures/");

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}{name}")).unwrap()
}

/// A fixture point as the guest printed it: without its `# cost:` lines.
fn guest(name: &str) -> Vec<u8> {
    let text = String::from_utf8(fixture(name)).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.starts_with("# cost: "))
        .map(|l| format!("{l}\n"))
        .collect();
    kept.into_bytes()
}

const NAMES: Names = Names {
    counts: b"counts.txt",
    point: b"p.txt",
    map: None,
};

#[test]
fn fields_keep_an_empty_one_at_a_blank_edge() {
    let f = |l: &'static [u8]| fields(l).collect::<Vec<_>>();
    assert_eq!(f(b"a\tb  c"), [&b"a"[..], b"b", b"c"]);
    assert_eq!(f(b" a"), [&b""[..], b"a"]);
    assert_eq!(f(b"a \t"), [&b"a"[..], b""]);
}

/// The series `Table::of` finds in a fixture point: name, rounds, pairs.
fn series_of(name: &str) -> Vec<(Vec<u8>, u32, f64)> {
    let point = guest(name);
    let t = Table::of(&point, &NAMES).unwrap_or_else(|e| panic!("{}", e.cause().as_str()));
    let each = t
        .series()
        .iter()
        .map(|s| (s.name.to_vec(), s.rounds, s.pairs));
    each.collect()
}

#[test]
fn a_point_of_several_series_names_each_by_its_rows() {
    let several = [
        (b"pollwake_none".to_vec(), 1, 2.0),
        (b"pollwake_idle".to_vec(), 1, 2.0),
    ];
    assert_eq!(series_of("point-pollwake.txt"), several);
    assert_eq!(series_of("point.txt"), [(b"s0_wait_wake".to_vec(), 2, 8.0)]);
    let e = Table::of(b"# uring-repro 0.1.0 profile=s0\n# checks\n", &NAMES)
        .err()
        .unwrap();
    assert_eq!(
        (e.code, e.cause().as_str()),
        (125, "points: p.txt: no measured rounds")
    );
}

#[test]
fn the_header_names_the_api_and_the_locked_kind() {
    let h = b"# uring-repro cost counts format=2: qemu plugin api 1 (qemu accepts 0..1), target x86_64, locked=x86-lock";
    assert_eq!(header_words(h), (&b"1"[..], &b"x86-lock"[..]));
    assert_eq!(
        header_words(b"# uring-repro cost counts format=2: x"),
        (&b""[..], &b""[..])
    );
}

#[test]
fn the_fixtures_counts_make_the_golden_lines() {
    for (point, counts, which, expected) in [
        ("point.txt", "counts.txt", Which::Only, "expected.txt"),
        (
            "point-pollwake.txt",
            "counts-pollwake.txt",
            Which::Only,
            "expected-pollwake.txt",
        ),
        (
            "point.txt",
            "counts-runs.txt",
            Which::Item(b"2"),
            "expected.txt",
        ),
        (
            "point-pollwake.txt",
            "counts-runs.txt",
            Which::Item(b"1"),
            "expected-pollwake.txt",
        ),
    ] {
        let (p, c) = (guest(point), fixture(counts));
        let lines =
            check(&p, &c, which, None, &NAMES).unwrap_or_else(|e| panic!("{}", e.cause().as_str()));
        let mut got = String::new();
        lines.write(&mut got).unwrap();
        assert_eq!(got.as_bytes(), fixture(expected), "{counts}");
    }
}
