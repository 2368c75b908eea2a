//! The positive control on this kernel: `--inject-ns` adds at least its ns
//! to every pair and says so everywhere (banner, TSV, contract), without a
//! syscall more; `calibrate` runs its six points and prints its line.

mod utils;

use std::path::Path;
use std::process::Command;

use utils::{
    assert_contains, assert_usage_error, line, ran, rows, run, skip, tsv_rows, Scratch, BIN,
};

#[test]
fn inject_ns_adds_at_least_its_ns_per_pair_and_says_so() {
    let d = Scratch::new("inject");
    let f = d.file("rows.tsv");
    let args = ["--cycles", "20", "--rounds", "3", "--warmups", "1"];
    let Some(o) = ran(&[&args[..], &["--inject-ns", "3000", "--tsv", &f]].concat()) else {
        return;
    };
    assert_eq!(o.code, 0, "{}{}", o.out, o.err);
    let first = o.out.lines().next().unwrap();
    assert!(first.ends_with(" inject_ns=3000"), "{first}");
    // The spin ends only once its ns have passed: a floor on every row.
    for r in rows(&o.out) {
        let ns: f64 = r[2].parse().unwrap();
        assert!(ns >= 3000.0, "{r:?}");
    }
    for m in tsv_rows(Path::new(&f)) {
        assert_eq!(m["inject_ns"], "3000");
    }
    // The contract names it, so its hash differs from the plain run's; a
    // plain run's contract is what it always was (no inject_ns key).
    let plain = run(&[&["describe"][..], &args[..]].concat());
    let control = run(&[&["describe"][..], &args[..], &["--inject-ns", "3000"]].concat());
    assert!(!plain.out.contains("inject_ns"), "{}", plain.out);
    assert_contains(&control.out, &["\"inject_ns\":3000,"]);
}

/// Still two io_uring_enter per cycle with the injection on: the spin
/// reads the vDSO clock, it makes no syscall.
#[test]
fn inject_ns_adds_no_syscall() {
    if Command::new("strace").arg("-V").output().is_err() {
        skip("strace not installed; cannot count syscalls");
        return;
    }
    let d = Scratch::new("inject-strace");
    let counts = d.file("strace");
    let args = [
        "--cycles",
        "50",
        "--rounds",
        "2",
        "--warmups",
        "1",
        "--inject-ns",
        "200",
    ];
    let o = Command::new("strace")
        .args(["-f", "-c", "-o", &counts, BIN])
        .args(args)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    if o.status.code() == Some(4) {
        skip("io_uring cannot run here");
        return;
    }
    assert!(o.status.success(), "{out}");
    assert!(line(&out, "# uring-repro").contains("clock=vdso"));
    let table = std::fs::read_to_string(&counts).unwrap();
    let calls = |name: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                // "% time seconds usecs/call calls [errors] syscall"
                f[3].parse::<u64>().unwrap()
            })
            .unwrap_or(0)
    };
    assert_eq!(calls("io_uring_enter"), 2 * 3 * 50, "{table}");
    assert_eq!(calls("clock_gettime"), 0, "{table}");
}

#[test]
fn calibrate_prints_six_points_and_a_verdict_that_matches_its_line() {
    let args = [
        "calibrate",
        "--cycles",
        "40",
        "--rounds",
        "4",
        "--warmups",
        "1",
        "--inject-pct",
        "60",
    ];
    let Some(o) = ran(&args) else {
        return;
    };
    let out = &o.out;
    // Six whole reports, A B A B A B, each with its checks line.
    assert_eq!(out.matches("# checks: ").count(), 6, "{out}");
    let points: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("# calibrate: point ") && l.contains(" of 6: "))
        .collect();
    assert_eq!(points.len(), 6, "{out}");
    for (i, p) in points.iter().enumerate() {
        let want = if i % 2 == 0 {
            ": A inject_ns=0"
        } else {
            ": B inject_ns="
        };
        assert!(p.contains(want), "{p}");
    }
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("# calibrate: injected=+"), "{last}");
    for key in ["measured=", "ci=[", "noise_floor=", "smallest_resolvable="] {
        assert!(last.contains(key), "{last}");
    }
    // The exit code is the line's verdict: 0 exactly when the interval holds
    // the injected change and excludes 0 (on a shared box a noisy point can
    // make it 1, with one line saying why; that is the control working).
    let pct = |key: &str| -> f64 {
        let v = last.split(key).nth(1).unwrap();
        v.split(['%', ' ', ',']).next().unwrap().parse().unwrap()
    };
    let (injected, lo) = (pct("injected="), pct("ci=["));
    let hi: f64 = last
        .split(", ")
        .nth(1)
        .unwrap()
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let resolved = lo <= injected && injected <= hi && !(lo <= 0.0 && 0.0 <= hi);
    if resolved {
        assert_eq!(o.code, 0, "{last}\n{}", o.err);
        assert!(o.err.is_empty(), "{}", o.err);
    } else {
        assert_eq!(o.code, 1, "{last}");
        assert!(o
            .err
            .starts_with("uring-repro: calibrate: this box cannot resolve +"));
    }
}

#[test]
fn one_round_points_say_their_within_interval_is_missing_never_nan() {
    // --smoke: one round a point, so no spread within a point to weigh.
    let Some(o) = ran(&["calibrate", "--smoke"]) else {
        return;
    };
    let out = &o.out;
    assert!(!out.contains("nan") && !out.contains("inf%"), "{out}");
    assert!(
        out.contains("within-point 95% CI n/a (one round a point), between-point 95% CI ["),
        "{out}"
    );
}

#[test]
fn calibrate_usage_errors() {
    for (args, msg) in [
        (
            &["calibrate", "--inject-pct", "0"][..],
            "calibrate: --inject-pct 0: needs a percentage",
        ),
        (
            &["calibrate", "--inject-pct=101"],
            "calibrate: --inject-pct=101: needs a percentage",
        ),
        (
            &["calibrate", "--tsv", "x"],
            "calibrate: --tsv: does not apply to calibrate",
        ),
        (
            &["calibrate", "--inject-ns", "5"],
            "calibrate: --inject-ns: does not apply to calibrate",
        ),
        (
            &["calibrate", "--trace"],
            "calibrate: --trace: does not apply to calibrate",
        ),
        (
            &["--inject-ns", "100001"],
            "--inject-ns 100001: out of range (0..=100000)",
        ),
        (
            &["--inject-pct", "5"],
            "--inject-pct: does not apply to run",
        ),
    ] {
        assert_usage_error(&run(args), msg);
    }
}
