//! `--witness` on this machine's kernel: what it allows, asserted as such.
//! The MATCH of both sources (events and functions) is proven under QEMU on
//! Debian's 6.12 (tests/boot/run.sh), where function tracing is allowed.
//!
//! Here: without tracefs at /sys/kernel/tracing, `--witness` is a skip
//! (exit 4) naming why and `--witness=optional` runs, `witness=unavailable`.
//! In a private mount namespace with tracefs mounted (root): the events
//! match, functions match or are refused with the kernel's errno, and the
//! instance is gone after a pass, a usage failure after it was made, a
//! SIGINT, and a refusal.

mod utils;

use std::path::Path;
use std::process::Command;

use utils::{ran, run, skip, Scratch, BIN};

const NO_TRACEFS: &str = "no tracefs at /sys/kernel/tracing (/sys/kernel/tracing/instances: \
    ENOENT (2); mount -t tracefs nodev /sys/kernel/tracing)";

/// The events line of an s0 --trace run.
const S0_EVENTS: &str = "# witness: events FUTEX_WAIT=512 FUTEX_WAKE=512 complete=1024 res0=512 \
    res1=512 async=0 overflow=0 other_cpu=0 -> MATCH";

/// The functions line: MATCH where the kernel allows function tracing,
/// else the refusal with its errno (this development machine's kernel:
/// available_filter_functions is EPERM).
fn functions_ok(out: &str) -> bool {
    out.lines().any(|l| {
        l.starts_with("# witness: functions io_futex_prep=1024 io_futex_wait=512 ")
            && l.ends_with("-> MATCH")
            || l.starts_with("# witness: functions unavailable: ") && l.contains(" (")
    })
}

#[test]
fn without_tracefs_witness_skips_saying_why_and_optional_runs() {
    // io_uring itself must work here, or there is nothing to witness.
    if ran(&["--smoke"]).is_none() {
        return;
    }
    if Path::new("/sys/kernel/tracing/instances").exists() {
        // tracefs is mounted: the run is witnessed (events at least).
        let r = run(&["--trace", "--witness"]);
        assert!(r.out.contains(S0_EVENTS), "{}{}", r.out, r.err);
        assert!(functions_ok(&r.out), "{}", r.out);
        return;
    }
    let r = run(&["--trace", "--witness"]);
    assert_eq!(r.code, 4, "{}{}", r.out, r.err);
    assert_eq!(
        r.err,
        format!("uring-repro: --witness: this run cannot be witnessed: {NO_TRACEFS}\n")
    );
    assert!(r.out.is_empty(), "{}", r.out);
    let r = run(&["--trace", "--witness=optional"]);
    assert_eq!(r.code, 0, "{}{}", r.out, r.err);
    let first = r.out.lines().next().unwrap_or("");
    assert!(
        first.ends_with(" witness=unavailable witness_sources=none"),
        "{first}"
    );
    assert!(r
        .out
        .contains(&format!("\n# witness: unavailable: {NO_TRACEFS}\n")));
    assert!(r.out.contains("-> PASS\n"), "{}", r.out);
}

/// Runs `script` with tracefs mounted in a mount namespace of its own (the
/// machine's mounts are untouched); None: this box cannot make one.
fn in_namespace(script: &str) -> Option<String> {
    let out = Command::new("unshare")
        .args(["-m", "sh", "-c"])
        .arg(format!(
            "mount -t tracefs nodev /sys/kernel/tracing || exit 99\nB={BIN}\n{script}"
        ))
        .output();
    match out {
        Ok(o) if o.status.code() == Some(99) || o.status.code().is_none() => {
            let err = String::from_utf8_lossy(&o.stderr);
            skip(format!(
                "no private mount namespace with tracefs here: {err}"
            ));
            None
        }
        Ok(o) => Some(String::from_utf8_lossy(&o.stdout).into_owned()),
        Err(e) => {
            skip(format!("unshare(1) cannot run: {e}"));
            None
        }
    }
}

#[test]
fn with_tracefs_the_events_match_and_the_instance_never_stays() {
    if ran(&["--smoke"]).is_none() {
        return;
    }
    let d = Scratch::new("witness");
    let exists = d.file("exists.tsv");
    std::fs::write(&exists, "x\n").unwrap();
    let script = format!(
        r#"
left() {{ echo "LEFT $1: $(ls /sys/kernel/tracing/instances | grep uring-repro- | wc -l)"; }}
$B --trace --witness; echo "EXIT pass $?"; left pass
$B --trace --witness --tsv {exists} 2>&1; echo "EXIT usage $?"; left usage
$B --witness --rounds 1 --warmups 0 --cycles 2500 & P=$!
sleep 0.1; kill -INT $P; wait $P; echo "EXIT sigint $?"; left sigint
$B --witness 2>&1; echo "EXIT refused $?"; left refused
"#
    );
    let Some(out) = in_namespace(&script) else {
        return;
    };
    assert!(out.contains(S0_EVENTS), "{out}");
    assert!(functions_ok(&out), "{out}");
    assert!(out.contains(" witness=on witness_sources=events"), "{out}");
    for (case, code) in [("pass", 0), ("usage", 2), ("refused", 4)] {
        assert!(
            out.contains(&format!("EXIT {case} {code}\n")),
            "{case}: {out}"
        );
    }
    // A run that SIGINT ends is interrupted (130), or, on a fast box, done.
    assert!(
        out.contains("EXIT sigint 130\n")
            && out.contains("# witness: not judged: the run was interrupted")
            || out.contains("EXIT sigint 0\n"),
        "{out}"
    );
    for case in ["pass", "usage", "sigint", "refused"] {
        assert!(out.contains(&format!("LEFT {case}: 0\n")), "{case}: {out}");
    }
    assert!(out.contains("exists (never overwritten)"), "{out}");
    assert!(
        out.contains("this run cannot be witnessed: the run would record about "),
        "{out}"
    );
}
