//! `URING_REPRO_TIMEBASE`: what a point's nanoseconds are, read from the
//! environment (a kernel command line's `NAME=value` word reaches /init
//! there). The banner's `timebase=` word right after `clock=`, the unit
//! line an icount point prints after its banner lines, the TSV's last
//! column; neither `describe` nor the contract hash changes; an unknown
//! value is a usage error naming it.

mod utils;

use std::path::Path;

use utils::{assert_usage_error, skip, tsv_rows, Run, Scratch};

const UNIT: &str = "# unit=guest_instructions_per_pair (QEMU TCG -icount shift=0: one virtual \
                    ns per guest instruction, user + kernel; not time)";

/// The binary with `args`, `URING_REPRO_TIMEBASE` set to `tb` (None: unset).
fn run_with(tb: Option<&str>, args: &[&str]) -> Run {
    utils::run_env("URING_REPRO_TIMEBASE", tb, args)
}

/// The word after `clock=...` on the first banner line.
fn after_clock(banner: &str) -> &str {
    let words: Vec<&str> = banner.split_whitespace().collect();
    let at = words.iter().position(|w| w.starts_with("clock=")).unwrap();
    words.get(at + 1).copied().unwrap_or_default()
}

/// A smoke with a --tsv file under `tb`; None (SKIP) where io_uring
/// cannot run. Returns stdout and the TSV's rows.
fn smoke(
    tb: Option<&str>,
    d: &Scratch,
) -> Option<(String, Vec<std::collections::HashMap<String, String>>)> {
    let f = d.file(&format!("{}.tsv", tb.unwrap_or("unset")));
    let r = run_with(tb, &["--smoke", "--tsv", &f]);
    if r.code == 4 {
        skip(format!("io_uring cannot run here: {}", r.err.trim()));
        return None;
    }
    assert_eq!(r.code, 0, "{tb:?}\n{}{}", r.out, r.err);
    let header = std::fs::read_to_string(&f).unwrap();
    let header = header.lines().next().unwrap();
    assert!(
        header.ends_with("\twitness_functions\ttimebase"),
        "{header}"
    );
    Some((r.out, tsv_rows(Path::new(&f))))
}

#[test]
fn an_icount_point_says_so_in_its_banner_unit_line_and_tsv() {
    let d = Scratch::new("timebase-icount");
    let Some((out, rows)) = smoke(Some("icount"), &d) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("# uring-repro "), "{out}");
    assert_eq!(after_clock(lines[0]), "timebase=icount", "{}", lines[0]);
    assert!(lines[1].starts_with("# ring_entries="), "{out}");
    assert_eq!(lines[2], UNIT, "{out}");
    assert_eq!(out.matches("# unit=").count(), 1, "{out}");
    assert!(
        lines[3].starts_with("# series: "),
        "the series follow: {out}"
    );
    assert!(
        lines[4].starts_with("# kernel_version="),
        "the facts follow: {out}"
    );
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["timebase"], "icount");
    assert!(out.trim_end().ends_with("-> PASS"), "{out}");
}

#[test]
fn a_wall_point_is_every_run_unless_told() {
    let d = Scratch::new("timebase-wall");
    for tb in [None, Some("wall")] {
        let Some((out, rows)) = smoke(tb, &d) else {
            return;
        };
        let first = out.lines().next().unwrap();
        assert_eq!(after_clock(first), "timebase=wall", "{tb:?}: {first}");
        assert!(!out.contains("# unit="), "{tb:?}: {out}");
        assert_eq!(rows[0]["timebase"], "wall", "{tb:?}");
    }
}

/// How a point was measured is not what it runs: describe and the
/// contract's hash are the same on either timebase.
#[test]
fn the_contract_does_not_change() {
    let args = ["describe", "--cycles", "7", "--cpu", "0"];
    let wall = run_with(None, &args);
    let icount = run_with(Some("icount"), &args);
    assert_eq!(wall.code, 0, "{}", wall.err);
    assert_eq!((icount.code, &icount.out), (0, &wall.out));
    let d = Scratch::new("timebase-hash");
    let (Some((wall, _)), Some((icount, _))) = (smoke(None, &d), smoke(Some("icount"), &d)) else {
        return;
    };
    let sha = |out: &str| {
        let line = out.lines().nth(1).unwrap().to_owned();
        utils::fields(&line)["input_sha256"].to_owned()
    };
    assert_eq!(sha(&wall), sha(&icount));
}

/// pollwake's banner has three lines (the first, its shape, its modes):
/// the unit line follows them.
#[test]
fn pollwake_states_its_timebase_too() {
    let r = run_with(Some("icount"), &["--profile", "pollwake", "--smoke"]);
    if r.code == 4 {
        return skip(format!("pollwake cannot run here: {}", r.err.trim()));
    }
    assert_eq!(r.code, 0, "{}{}", r.out, r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(after_clock(lines[0]), "timebase=icount", "{}", lines[0]);
    assert!(lines[1].starts_with("# burst="), "{}", r.out);
    assert!(lines[2].starts_with("# modes in this order"), "{}", r.out);
    assert_eq!(lines[3], UNIT, "{}", r.out);
}

/// calibrate's six points each carry it.
#[test]
fn calibrate_points_carry_it() {
    let r = run_with(Some("icount"), &["calibrate", "--smoke"]);
    if r.code == 4 {
        return skip(format!("calibrate cannot run here: {}", r.err.trim()));
    }
    let banners: Vec<&str> = r
        .out
        .lines()
        .filter(|l| l.starts_with("# uring-repro "))
        .collect();
    assert_eq!(banners.len(), 6, "{}{}", r.out, r.err);
    for b in banners {
        assert_eq!(after_clock(b), "timebase=icount", "{b}");
    }
    assert_eq!(r.out.matches(UNIT).count(), 6, "{}", r.out);
}

#[test]
fn an_unknown_timebase_is_a_usage_error_naming_it() {
    for bad in ["tsc", "ICOUNT", ""] {
        for args in [&["--smoke"][..], &["calibrate", "--smoke"]] {
            assert_usage_error(
                &run_with(Some(bad), args),
                &format!("URING_REPRO_TIMEBASE={bad}: unknown timebase (wall or icount)"),
            );
        }
    }
}
