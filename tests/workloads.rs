//! The binary against the live kernel: every workload's smoke in both futex
//! scopes, describe, trace, selftest's TAP. A kernel or box that cannot run
//! io_uring makes a test print `SKIP: ...` and return (and fail in CI).

mod utils;

use utils::{assert_usage_error, assert_zero, fields, line, num, ran, run, skip, FAILURES};

/// CQEs of one cycle, by counter name.
type PerCycle = &'static [(&'static str, u64)];

/// (short name, formal name, takes --shared, CQEs of one smoke cycle), in
/// `--help`'s order but for pollwake (tests/pollwake.rs), which comes
/// after l0.
const PROFILES: [(&str, &str, bool, PerCycle); 17] = [
    (
        "s0",
        "s0_wait_wake",
        true,
        &[("wait_cqes", 32), ("wake_cqes", 32)],
    ),
    (
        "c0",
        "c0_wait_cancel",
        true,
        &[("wait_cqes", 32), ("cancel_cqes", 32)],
    ),
    (
        "v0",
        "v0_waitv_wake",
        true,
        &[("waitv_cqes", 8), ("wake_cqes", 8), ("check_cqes", 8)],
    ),
    ("z0", "z0_zero_wake", true, &[("wake_cqes", 32)]),
    ("e0", "e0_mismatch", true, &[("wait_cqes", 32)]),
    ("n0", "n0_nop", false, &[("nop_cqes", 32)]),
    (
        "l0",
        "l0_lifecycle",
        false,
        &[("wait_cqes", 32), ("wake_cqes", 32)],
    ),
    ("a0", "a0_nop_async", false, &[("nop_cqes", 32)]),
    (
        "r0",
        "r0_rw_pipe",
        false,
        &[("write_cqes", 32), ("read_cqes", 32)],
    ),
    (
        "p0",
        "p0_poll_add",
        false,
        &[("poll_cqes", 32), ("write_cqes", 32), ("read_cqes", 32)],
    ),
    (
        "t0",
        "t0_timeout_count",
        false,
        &[("timeout_cqes", 32), ("nop_cqes", 32)],
    ),
    (
        "m0",
        "m0_msg_ring",
        false,
        &[("source_cqes", 32), ("target_cqes", 32)],
    ),
    (
        "u0",
        "u0_send_recv",
        false,
        &[("send_cqes", 32), ("recv_cqes", 32)],
    ),
    (
        "k0",
        "k0_link_chain",
        false,
        &[("nop_cqes", 1), ("link_cqes", 31)],
    ),
    (
        "b0",
        "b0_iowq_block",
        false,
        &[("splice_cqes", 32), ("write_cqes", 32), ("read_cqes", 32)],
    ),
    ("q0", "q0_sqpoll", false, &[("nop_cqes", 32)]),
    (
        "g0",
        "g0_op_mix",
        false,
        &[("punted_cqes", 9), ("nop_cqes", 1)],
    ),
];

/// The profile that comes after pollwake in `--help`'s order.
const AFTER_POLLWAKE: &str = "a0";

/// CQEs of the untimed cycle a profile runs in its set-up, in `cqes` and
/// in no kind's count (a0's, b0's and g0's start their io-wq workers; b0
/// runs such cycles until one starts no worker, so a multiple of these).
fn set_up_cqes(short: &str) -> u64 {
    match short {
        "a0" => 32,
        "b0" => 3 * 32,
        "g0" => 10,
        _ => 0,
    }
}

#[test]
fn every_workload_smoke_passes_in_both_scopes() {
    for (short, formal, takes_shared, per_cycle) in PROFILES {
        for shared in [false, true] {
            let mut args = vec!["--profile", short, "--smoke"];
            if shared {
                args.push("--shared");
            }
            if shared && !takes_shared {
                // n0 and the workloads after it have no futex words, l0 is
                // private by contract.
                assert_usage_error(&run(&args), "--shared: does not apply to profile");
                continue;
            }
            let Some(o) = ran(&args) else {
                continue;
            };
            let out = &o.out;
            assert_eq!(o.code, 0, "{args:?}\n{out}{}", o.err);
            let banner = fields(line(out, "# uring-repro"));
            assert_eq!(banner["profile"], formal);
            assert_eq!(banner["mode"], "smoke");
            let contract = fields(line(out, "# ring_entries"));
            // Only a workload with futex words states their scope: those
            // that take --shared, n0 (its contract always said private)
            // and l0 (private by contract).
            let scope = if shared { "shared" } else { "private" };
            let futex_words = takes_shared || matches!(short, "n0" | "l0");
            let futex = futex_words.then_some(&scope);
            assert_eq!(contract.get("futex"), futex, "{args:?}");
            let series = fields(line(out, "# series: "));
            assert_eq!(series["option"], short, "{args:?}");
            let checks = line(out, "# checks:");
            assert!(out.trim_end().ends_with("-> PASS"), "{out}");
            let mut total = 0;
            for (counter, n) in per_cycle {
                // --smoke is 2 cycles.
                assert_eq!(num(checks, counter), 2 * n, "{args:?} {counter}");
                total += 2 * n;
            }
            let set_up = num(checks, "cqes") - total;
            if short == "b0" {
                assert!(
                    set_up >= 96 && set_up.is_multiple_of(96),
                    "{args:?} {set_up}"
                );
            } else {
                assert_eq!(set_up, set_up_cqes(short), "{args:?}");
            }
            assert_zero(checks, &FAILURES);
        }
    }
}

#[test]
fn v0_slots_are_waitv_groups() {
    let Some(o) = ran(&["--profile", "waitv-wake", "--smoke", "--slots", "3"]) else {
        return;
    };
    let out = &o.out;
    assert_eq!(o.code, 0, "{out}");
    let c = line(out, "# checks:");
    assert_eq!((num(c, "waitv_cqes"), num(c, "check_cqes")), (6, 6));
    let shape = fields(line(out, "# ring_entries"));
    assert_eq!((shape["slots"], shape["vector_width"]), ("3", "8"));
    // Each table row: 3 vector pairs a cycle, 2 cycles.
    assert!(out.lines().any(|l| l.starts_with("0\t6\t")), "{out}");
    assert_usage_error(
        &run(&["--profile", "v0", "--slots", "9"]),
        "--slots 9: out of range (1..=8)",
    );
}

#[test]
fn describe_is_the_contract_the_run_hashes() {
    for args in [
        &["--smoke"][..],
        &["--profile", "c0", "--smoke", "--shared"][..],
    ] {
        let d = run(&[&["describe"][..], args].concat());
        assert_eq!(d.code, 0);
        let json = &d.out;
        assert!(
            json.starts_with("{\"tool\":\"uring-repro\"") && json.ends_with("}}\n"),
            "{json}"
        );
        assert_eq!(json.lines().count(), 1);
        let want = utils::sha256sum(d.out.as_bytes());
        let Some(r) = ran(args) else {
            return;
        };
        let banner = fields(line(&r.out, "# ring_entries"));
        assert_eq!(banner["input_sha256"], want, "{args:?}");
    }
    let d = run(&["describe", "--profile", "v0", "--trace", "--cpu", "0"]).out;
    for member in [
        "\"profile\":\"v0_waitv_wake\"",
        "\"mode\":\"trace\"",
        "\"ring_entries\":64,\"cq_entries\":128",
        "\"slots\":8,\"vector_width\":8,\"pairs_per_cycle\":8",
        "\"cycles\":16,\"warmups\":0,\"rounds\":1,\"cpu\":0",
        "\"futex_scope\":\"private\"",
        "\"expect\":{\"wake\":{\"count\":8,\"res\":1},\"check\":{\"count\":8,\"res\":0},\"waitv\":{\"count\":8,\"res\":3}}",
    ] {
        assert!(d.contains(member), "{member} in {d}");
    }
    assert_usage_error(
        &run(&["describe", "--tsv", "x"]),
        "--tsv: does not apply to describe",
    );
}

#[test]
fn trace_marks_a_window_of_16_cycles() {
    let child = utils::spawn(&["--trace", "--profile", "l0"]);
    let pid = child.id().to_string();
    let o = utils::Run::from(child.wait_with_output().unwrap());
    if o.code == 4 {
        skip(format!("--trace: {}", o.err.trim()));
        return;
    }
    let out = &o.out;
    assert_eq!(o.code, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let begin = lines
        .iter()
        .position(|l| l.starts_with("# uring-repro trace begin"))
        .unwrap();
    let end = lines
        .iter()
        .position(|l| l.starts_with("# uring-repro trace end"))
        .unwrap();
    for i in [begin, end] {
        let m = fields(lines[i]);
        assert_eq!((m["pid"], m["profile"]), (pid.as_str(), "l0_lifecycle"));
        assert!(matches!(m["ftrace_marker"], "0" | "1"));
    }
    // Between them exactly the one result row: 16 cycles of 32 pairs.
    let rows: Vec<&&str> = lines[begin..end]
        .iter()
        .filter(|l| !l.starts_with('#'))
        .collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(
        rows[0].starts_with("0\t512\t") && rows[0].ends_with("\t1"),
        "{out}"
    );
    assert!(lines[end + 1].starts_with("mean\t512\t"), "{out}");
    assert_usage_error(
        &run(&["--trace", "--smoke"]),
        "--smoke: --smoke and --trace exclude each other",
    );
}

#[test]
fn selftest_speaks_tap_13() {
    let o = run(&["selftest"]);
    let out = &o.out;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(&lines[..2], ["TAP version 13", "1..23"], "{out}");
    let mut expected = Vec::new();
    for (short, formal, takes_shared, _) in PROFILES {
        if short == AFTER_POLLWAKE {
            expected.push("pollwake private".to_string());
        }
        expected.push(format!("{formal} private"));
        if takes_shared {
            expected.push(format!("{formal} shared"));
        }
    }
    let results: Vec<&str> = lines[2..]
        .iter()
        .copied()
        .filter(|l| !l.starts_with('#'))
        .collect();
    assert_eq!(results.len(), 23, "{out}");
    let mut skips = 0;
    for (i, (line, name)) in results.iter().zip(&expected).enumerate() {
        let head = format!("ok {} - {name}", i + 1);
        if let Some(rest) = line.strip_prefix(head.as_str()) {
            if let Some(why) = rest.strip_prefix(" # SKIP ") {
                skip(format!("selftest {name}: {why}"));
                skips += 1;
            } else {
                assert_eq!(rest, "", "{line}");
            }
        } else {
            panic!("expected {head:?}, got {line:?}\n{out}");
        }
    }
    // Exit 4 only when every one of the 23 was skipped.
    let want = if skips == results.len() { 4 } else { 0 };
    assert_eq!(o.code, want, "{out}{}", o.err);
    assert_usage_error(
        &run(&["selftest", "--rounds", "3"]),
        "--rounds: does not apply to selftest",
    );
}

/// A kernel that refuses the flags of q0's or g0's own ring (its second
/// io_uring_setup, after the run's: faked with strace, as an LSM refuses
/// SQPOLL with EPERM and a kernel before a flag refuses it with EINVAL)
/// cannot run the workload: exit 4, one stderr line naming the flags.
#[test]
fn a_ring_whose_flags_the_kernel_refuses_is_a_skip() {
    for (short, errno, flags) in [
        ("q0", "EPERM (1)", "SQPOLL|SQ_AFF"),
        (
            "g0",
            "EINVAL (22)",
            "COOP_TASKRUN|DEFER_TASKRUN|SINGLE_ISSUER",
        ),
    ] {
        let args = ["--profile", short, "--smoke"];
        if ran(&args).is_none() {
            return;
        }
        let e = errno.split(' ').next().unwrap();
        let inject = format!("io_uring_setup:error={e}:when=2");
        let Some(o) = utils::with_injected_fault(&inject, &args) else {
            return;
        };
        let want = format!("uring-repro: kernel refuses io_uring_setup with {flags}: {errno}\n");
        assert_eq!(
            (o.code, o.err.as_str()),
            (4, want.as_str()),
            "{short}\n{}",
            o.out
        );
    }
}
