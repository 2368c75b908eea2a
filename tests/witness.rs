//! `--witness` on this machine's kernel: what it allows, asserted as such.
//! The MATCH of both sources (events and functions) is proven under QEMU on
//! Debian's 6.12 (tests/boot/run.sh), where function tracing is allowed.
//!
//! Here: without tracefs at /sys/kernel/tracing, `--witness` is a skip
//! (exit 4) naming why and `--witness=optional` runs, `witness=unavailable`.
//! In a private mount namespace with tracefs mounted (root): the events
//! match; the functions match where this process may read
//! available_filter_functions, else the line is the refusal with the errno
//! the kernel gives a reader of that file (this development machine's:
//! EPERM), asked of the kernel by the test itself; and the instance is gone
//! after a pass, a usage failure after it was made, a SIGINT, and a
//! refusal.

mod utils;

use std::io::Read;
use std::path::Path;
use std::process::Command;

use uring_repro::sys::Errno;
use utils::{ran, run, skip, Scratch, BIN};

const NO_TRACEFS: &str = "no tracefs at /sys/kernel/tracing (/sys/kernel/tracing/instances: \
    ENOENT (2); mount -t tracefs nodev /sys/kernel/tracing)";

/// The events line of an s0 --trace run.
const S0_EVENTS: &str = "# witness: events FUTEX_WAIT=512 FUTEX_WAKE=512 complete=1024 res0=512 \
    res1=512 async=0 overflow=0 other_cpu=0 -> MATCH";

/// Where the function tracer's list of functions is.
const FILTER_FUNCTIONS: &str = "/sys/kernel/tracing/available_filter_functions";

/// Asserts s0's functions line: with `refused` (the errno the kernel gave
/// a reader of FILTER_FUNCTIONS) exactly the refusal naming it, else a
/// MATCH (its exact counts are asserted under QEMU, tests/boot: whether
/// io_req_track_inflight is traceable depends on the kernel's build).
fn assert_functions(out: &str, refused: Option<i32>) {
    match refused {
        Some(e) => {
            let want = format!(
                "# witness: functions unavailable: {FILTER_FUNCTIONS}: {}",
                Errno(e)
            );
            assert!(out.lines().any(|l| l == want), "want {want}\n{out}");
        }
        None => assert!(
            out.lines().any(|l| {
                l.starts_with("# witness: functions io_futex_prep=1024 io_futex_wait=512 ")
                    && l.ends_with("-> MATCH")
            }),
            "{out}"
        ),
    }
}

/// The errno the kernel gives this process reading FILTER_FUNCTIONS (as the
/// witness reads it: open, then read); None: it may.
fn filter_functions_refused() -> Option<i32> {
    let read = std::fs::File::open(FILTER_FUNCTIONS).and_then(|mut f| f.read(&mut [0u8; 1]));
    read.err().map(|e| e.raw_os_error().expect("an errno"))
}

/// The same, asked in a shell script (in the namespace the test makes):
/// prints `FUNCS refused ERRNO` when it is refused.
const PROBE_FILTER_FUNCTIONS: &str = r#"perl -e 'my ($f, $b); open($f, "<", $ARGV[0]) && defined(sysread($f, $b, 1)) or print "FUNCS refused ", 0 + $!, "\n"' /sys/kernel/tracing/available_filter_functions"#;

/// What PROBE_FILTER_FUNCTIONS printed in `out`.
fn probed_refusal(out: &str) -> Option<i32> {
    let line = out.lines().find_map(|l| l.strip_prefix("FUNCS refused "))?;
    Some(line.parse().expect("an errno"))
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
        assert_functions(&r.out, filter_functions_refused());
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
{PROBE_FILTER_FUNCTIONS}
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
    assert_functions(&out, probed_refusal(&out));
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
