//! `--tsv FILE` from the outside: the header, one row per round, O_EXCL, and
//! rows on disk while the run is still going.

mod utils;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use utils::{
    assert_usage_error, ran, run, skip, tsv_rows, with_file_size_limit, with_injected_fault,
    with_injected_faults, Run, Scratch, BIN,
};

/// The columns: the formal reproducer's 35 in their order, then ours.
const COLUMNS: &str = "
    schema_version kernel_release boot_id mode profile phase round ring_entries slots
    vector_width cycles pairs wait_submitted wake_submitted cancel_submitted nop_submitted
    wait_cqes wake_cqes cancel_cqes check_cqes nop_cqes bad_results bad_flags duplicate_cqes
    unexpected_cqes timeouts sq_dropped cq_overflow outstanding timed_ns ns_per_pair cpu
    semantic_pass input_sha256 trace_enabled
    futex_scope clock_source tool_version missing_cqes submit_errors migrations ring_features
    kernel_version machine cmdline preempt preempt_source cpu_model governor
    energy_perf_preference turbo smt online_cpus io_uring_disabled rounds_planned inject_ns
    witness witness_sources witness_events witness_functions timebase";

/// Rows of a TSV file as name -> value maps, the header checked.
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let t = std::fs::read_to_string(path).unwrap();
    let header: Vec<&str> = COLUMNS.split_whitespace().collect();
    assert_eq!(t.lines().next(), Some(header.join("\t").as_str()));
    tsv_rows(path)
}

#[test]
fn one_row_per_round_warmups_included() {
    let d = Scratch::new("rows");
    let fs = d.file("c0.tsv");
    let args = [
        "--profile",
        "c0",
        "--shared",
        "--cycles",
        "3",
        "--warmups",
        "2",
        "--rounds",
        "3",
    ];
    let Some(o) = ran(&[&args[..], &["--tsv", &fs]].concat()) else {
        return;
    };
    let out = &o.out;
    assert_eq!(o.code, 0, "{out}{}", o.err);
    let r = rows(Path::new(&fs));
    let phases: Vec<(&str, &str)> = r
        .iter()
        .map(|m| (m["phase"].as_str(), m["round"].as_str()))
        .collect();
    assert_eq!(
        phases,
        [
            ("warmup", "0"),
            ("warmup", "1"),
            ("measured", "0"),
            ("measured", "1"),
            ("measured", "2")
        ]
    );
    // The same contract hash as describe, the banner and every row.
    let desc = run(&[&["describe"][..], &args[..]].concat());
    let sha = utils::sha256sum(desc.out.as_bytes());
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    for m in &r {
        let want = [
            ("schema_version", "1"),
            ("kernel_release", release.trim()),
            ("boot_id", boot.trim()),
            ("mode", "point"),
            ("profile", "c0_wait_cancel"),
            ("ring_entries", "64"),
            ("slots", "32"),
            ("vector_width", "1"),
            ("cycles", "3"),
            ("pairs", "96"),
            ("wait_submitted", "96"),
            ("wake_submitted", "0"),
            ("cancel_submitted", "96"),
            ("nop_submitted", "0"),
            ("wait_cqes", "96"),
            ("cancel_cqes", "96"),
            ("check_cqes", "0"),
            ("bad_results", "0"),
            ("unexpected_cqes", "0"),
            ("outstanding", "0"),
            ("semantic_pass", "1"),
            ("input_sha256", sha.as_str()),
            ("trace_enabled", "0"),
            ("futex_scope", "shared"),
            ("tool_version", env!("CARGO_PKG_VERSION")),
            ("missing_cqes", "0"),
            ("rounds_planned", "3"),
            ("inject_ns", "0"),
        ];
        for (k, v) in want {
            assert_eq!(m[k], v, "{k}");
        }
        let ns: u64 = m["timed_ns"].parse().unwrap();
        assert!(ns > 0);
        assert!(matches!(m["clock_source"].as_str(), "vdso" | "syscall"));
    }
    // The measured rows are the stdout table's rows.
    for m in &r[2..] {
        let row = format!("{}\t96\t{}\t1", m["round"], m["ns_per_pair"]);
        assert!(out.lines().any(|l| l == row), "{row} in\n{out}");
    }
}

#[test]
fn trace_rows_say_so() {
    let d = Scratch::new("trace");
    let f = d.file("v0.tsv");
    let Some(o) = ran(&["--trace", "--profile", "v0", "--tsv", &f]) else {
        return;
    };
    assert_eq!(o.code, 0);
    let r = rows(Path::new(&f));
    assert_eq!(r.len(), 1);
    let m = &r[0];
    for (k, v) in [
        ("mode", "trace"),
        ("phase", "trace"),
        ("trace_enabled", "1"),
        ("cycles", "16"),
        ("pairs", "128"),
        ("vector_width", "8"),
        ("wait_submitted", "128"),
        ("wake_submitted", "256"),
        ("wait_cqes", "128"),
        ("wake_cqes", "128"),
        ("check_cqes", "128"),
    ] {
        assert_eq!(m[k], v, "{k}");
    }
}

#[test]
fn an_existing_file_is_never_touched() {
    let d = Scratch::new("excl");
    let f = d.file("keep.tsv");
    std::fs::write(&f, "precious\n").unwrap();
    // io_uring is set up first: a box without it cannot get this far.
    let Some(o) = ran(&["--smoke", "--tsv", &f]) else {
        return;
    };
    // Nothing ran: stdout stays empty.
    assert_usage_error(&o, &format!("--tsv {f}: exists (never overwritten)"));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "precious\n");
    // A directory that does not exist: also a usage error naming the file.
    let missing = d.file("no/such/dir.tsv");
    assert_usage_error(
        &run(&["--smoke", "--tsv", &missing]),
        &format!("--tsv {missing}: cannot be created: ENOENT"),
    );
}

/// Rows are on disk as soon as their round ends: kill a long run once two
/// rows are there and every line in the file is still a whole row.
#[test]
fn rows_survive_a_killed_run() {
    let d = Scratch::new("kill");
    let f = d.file("long.tsv");
    let mut child = Command::new(BIN)
        .args([
            "--profile",
            "n0",
            "--cycles",
            "200",
            "--rounds",
            "4096",
            "--warmups",
            "0",
        ])
        .args(["--tsv", &f])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A bound, not a timing assertion: a healthy run has rows in milliseconds.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = 0;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            let err = utils::drain(child.stderr.take());
            if status.code() == Some(4) {
                skip(err.trim());
                return;
            }
            panic!("run ended early: {status:?} {err}");
        }
        seen = std::fs::read_to_string(&f)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if seen >= 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(seen >= 3, "no rows within the bound");
    let r = rows(Path::new(&f));
    assert!(r.len() >= 2);
    for (i, m) in r.iter().enumerate() {
        assert_eq!(
            (m["round"].clone(), m["semantic_pass"].as_str()),
            (i.to_string(), "1")
        );
    }
}

/// A smoke's rows say `smoke`, as the formal tool's do: a script keeping
/// `phase == measured` never counts one as a point.
#[test]
fn smoke_rows_are_not_measured() {
    let d = Scratch::new("smoke");
    let f = d.file("s0.tsv");
    let Some(o) = ran(&["--smoke", "--tsv", &f]) else {
        return;
    };
    assert_eq!(o.code, 0, "{}", o.err);
    let r = rows(Path::new(&f));
    let got: Vec<_> = r
        .iter()
        .map(|m| (m["mode"].as_str(), m["phase"].as_str()))
        .collect();
    assert_eq!(got, [("smoke", "smoke")]);
    assert_eq!(r[0]["rounds_planned"], "1");
}

/// The run's writes in order: the TSV header, stdout's banner, then per
/// round its TSV row and (measured rounds) its stdout row.
const SHORT: [&str; 6] = ["--cycles", "2", "--warmups", "1", "--rounds", "3"];

/// A short run with `--tsv FILE` in a fresh directory `name`, under
/// strace's `inject` (None: `ulimit -f 1` instead): what it did, FILE,
/// and the directory (removed when dropped). None where io_uring or
/// strace is missing here (skipped).
fn faulted(name: &str, inject: Option<&str>) -> Option<(Run, String, Scratch)> {
    ran(&["--smoke"])?;
    let d = Scratch::new(name);
    let f = d.file("rows.tsv");
    let args = [&SHORT[..], &["--tsv", &f]].concat();
    let o = match inject {
        Some(inject) => with_injected_fault(inject, &args)?,
        None => with_file_size_limit(1, &args),
    };
    Some((o, f, d))
}

/// The run failed (exit 1) with `uring-repro: {why}` alone on stderr
/// (`{f}` in it the TSV's path), and left no TSV behind.
fn assert_failed_and_removed(o: &Run, f: &str, why: &str) {
    assert_eq!(o.code, 1, "{}{}", o.out, o.err);
    assert_eq!(o.err, format!("uring-repro: {}\n", why.replace("{f}", f)));
    assert!(!Path::new(f).exists(), "a cut TSV was left behind");
}

/// A TSV write that fails after some rows (a full disk) names its errno,
/// leaves no file behind, and the run cannot pass: stdout says why before
/// its checks line, which ends FAIL.
#[test]
fn a_failed_write_names_its_errno_and_leaves_no_file() {
    // Write 4: the first measured row, after the header and a warm-up row.
    let Some((o, f, _d)) = faulted("enospc", Some("write:error=ENOSPC:when=4")) else {
        return;
    };
    assert_failed_and_removed(&o, &f, "--tsv {f}: write failed: ENOSPC (28); removed");
    let said = format!("# --tsv {f}: write failed: ENOSPC (28)");
    let lines: Vec<&str> = o.out.lines().collect();
    assert_eq!(lines[lines.len() - 2], said, "{}", o.out);
    assert!(lines[lines.len() - 1].ends_with(" -> FAIL"), "{}", o.out);
    // A disk full from the start (its header cannot be written): no
    // file, nothing runs, and it is a lost output, not a usage error
    // (tests/outputs.rs: a real full disk).
    let Some((o, f, _d)) = faulted("enospc-1", Some("write:error=ENOSPC:when=1")) else {
        return;
    };
    assert_failed_and_removed(&o, &f, "--tsv {f}: write failed: ENOSPC (28); removed");
    assert_eq!(o.out, "", "nothing ran");
    // Where it cannot be removed either (EROFS), the message says so.
    let d = Scratch::new("enospc-erofs");
    let f = d.file("rows.tsv");
    let injects = ["write:error=ENOSPC:when=1", "unlinkat:error=EROFS"];
    let Some(o) = with_injected_faults(&injects, &[&SHORT[..], &["--tsv", &f]].concat()) else {
        return;
    };
    let why =
        format!("uring-repro: --tsv {f}: write failed: ENOSPC (28); NOT removed: EROFS (30)\n");
    assert_eq!((o.code, o.err.as_str()), (1, why.as_str()));
    // A write that takes nothing (returns 0) would be written again for
    // ever: it is EIO, and the row's file goes as a failed one does.
    let Some((o, f, _d)) = faulted("zero", Some("write:retval=0:when=4")) else {
        return;
    };
    assert_failed_and_removed(&o, &f, "--tsv {f}: write failed: EIO (5); removed");
}

/// `ulimit -f`: the write past the limit fails with EFBIG (SIGXFSZ is
/// ignored, it used to kill the run with the file cut mid-row), named, and
/// the cut file is removed.
#[test]
fn a_file_size_limit_is_a_named_failure_not_a_kill() {
    // The header fits in 1 KiB, the first row does not.
    let Some((o, f, _d)) = faulted("efbig", None) else {
        return;
    };
    assert_failed_and_removed(&o, &f, "--tsv {f}: write failed: EFBIG (27); removed");
    assert!(o.out.trim_end().ends_with(" -> FAIL"), "{}", o.out);
}

/// stdout failing with rounds still to run cuts the TSV short: it is
/// removed, and the one stderr line says so.
#[test]
fn a_tsv_cut_short_by_stdout_is_removed() {
    // Write 5: stdout's row of round 0.
    let Some((o, f, _d)) = faulted("stdout-cut", Some("write:error=EIO:when=5")) else {
        return;
    };
    let why = "stdout: write failed: EIO (5); --tsv {f} removed (cut short)";
    assert_failed_and_removed(&o, &f, why);
}
