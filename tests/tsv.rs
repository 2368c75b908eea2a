//! `--tsv FILE` from the outside: the header, one row per round, O_EXCL, and
//! rows on disk while the run is still going.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use uring_repro::sha256::{Hex, Sha256};

const BIN: &str = env!("CARGO_BIN_EXE_uring-repro");

/// The header exactly as the issue lists the formal columns, then ours.
const HEADER: &str = "schema_version\tkernel_release\tboot_id\tmode\tprofile\tphase\tround\t\
ring_entries\tslots\tvector_width\tcycles\tpairs\twait_submitted\twake_submitted\t\
cancel_submitted\tnop_submitted\twait_cqes\twake_cqes\tcancel_cqes\tcheck_cqes\tnop_cqes\t\
bad_results\tbad_flags\tduplicate_cqes\tunexpected_cqes\ttimeouts\tsq_dropped\tcq_overflow\t\
outstanding\ttimed_ns\tns_per_pair\tcpu\tsemantic_pass\tinput_sha256\ttrace_enabled\t\
futex_scope\tclock_source\ttool_version\tmissing_cqes\tsubmit_errors\tmigrations\t\
ring_features\tkernel_version\tmachine\tcmdline\tpreempt\tpreempt_source\tcpu_model\tgovernor\t\
energy_perf_preference\tturbo\tsmt\tonline_cpus\tio_uring_disabled";

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("uring-repro-tsv-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Rows of a TSV file as name -> value maps (header checked).
fn rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let t = std::fs::read_to_string(path).unwrap();
    assert!(t.ends_with('\n'));
    let mut lines = t.lines();
    assert_eq!(lines.next(), Some(HEADER));
    let names: Vec<&str> = HEADER.split('\t').collect();
    lines
        .map(|l| {
            let v: Vec<&str> = l.split('\t').collect();
            assert_eq!(v.len(), names.len(), "{l}");
            names
                .iter()
                .map(|n| n.to_string())
                .zip(v.iter().map(|s| s.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn one_row_per_round_warmups_included() {
    let d = scratch("rows");
    let f = d.join("c0.tsv");
    let fs = f.to_str().unwrap();
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
    let o = run(&[&args[..], &["--tsv", fs]].concat());
    if o.status.code() == Some(4) {
        eprintln!("SKIP: {}", text(&o.stderr).trim());
        return;
    }
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    let r = rows(&f);
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
    let mut h = Sha256::default();
    h.update(&desc.stdout);
    let sha = Hex(&h.digest()).to_string();
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
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn trace_rows_say_so() {
    let d = scratch("trace");
    let f = d.join("v0.tsv");
    let o = run(&["--trace", "--profile", "v0", "--tsv", f.to_str().unwrap()]);
    if o.status.code() == Some(4) {
        eprintln!("SKIP: {}", text(&o.stderr).trim());
        return;
    }
    assert_eq!(o.status.code(), Some(0));
    let r = rows(&f);
    assert_eq!(r.len(), 1);
    let m = &r[0];
    for (k, v) in [
        ("mode", "trace"),
        ("phase", "measured"),
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
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_existing_file_is_never_touched() {
    let d = scratch("excl");
    let f = d.join("keep.tsv");
    std::fs::write(&f, "precious\n").unwrap();
    let o = run(&["--smoke", "--tsv", f.to_str().unwrap()]);
    if o.status.code() == Some(4) {
        eprintln!("SKIP: {}", text(&o.stderr).trim());
        return;
    }
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("exists (never overwritten)") && err.contains("EEXIST"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "precious\n");
    assert!(o.stdout.is_empty(), "nothing ran");
    // A directory that does not exist: also a usage error naming the file.
    let missing = d.join("no/such/dir.tsv");
    let o = run(&["--smoke", "--tsv", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("ENOENT"));
    let _ = std::fs::remove_dir_all(&d);
}

/// Rows are on disk as soon as their round ends: kill a long run once two
/// rows are there and every line in the file is still a whole row.
#[test]
fn rows_survive_a_killed_run() {
    let d = scratch("kill");
    let f = d.join("long.tsv");
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
        .args(["--tsv", f.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A bound, not a timing assertion: a healthy run has rows in milliseconds.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = 0;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            if status.code() == Some(4) {
                eprintln!("SKIP: {}", err.trim());
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
    let r = rows(&f);
    assert!(r.len() >= 2);
    for (i, m) in r.iter().enumerate() {
        assert_eq!(
            (m["round"].clone(), m["semantic_pass"].as_str()),
            (i.to_string(), "1")
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
