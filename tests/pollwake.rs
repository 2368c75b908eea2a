//! The pollwake workload on the live kernel: every mode's smoke with exact
//! counts, for every --ring-flags setting, burst sizes at both limits, the
//! waiter on another CPU, and the usage errors.

mod utils;

use utils::{
    assert_usage_error, assert_zero, fields, line, num, ran, rows, run, sha256sum, skip,
    with_injected_fault, FAILURES, POLLWAKE_MODES,
};

/// The number `key=` holds on the line of `out` that starts with `prefix`.
fn field(out: &str, prefix: &str, key: &str) -> u64 {
    num(line(out, prefix), key)
}

/// Runs a smoke with `extra` options; None (after a loud SKIP) when the
/// kernel or box cannot run it.
fn smoke(extra: &[&str]) -> Option<String> {
    let mut args = vec!["--profile", "pollwake", "--smoke"];
    args.extend_from_slice(extra);
    let o = ran(&args)?;
    assert_eq!(o.code, 0, "{args:?}\n{}\n{}", o.out, o.err);
    assert!(o.err.is_empty(), "{}", o.err);
    Some(o.out)
}

/// Every count of a passing smoke of `burst` messages per burst.
fn assert_exact(out: &str, burst: u64) {
    let pairs = 2 * burst; // --smoke: 2 bursts per mode, 1 round
    let rows = rows(out);
    assert_eq!(rows.len(), 8, "4 round rows and 4 mean rows:\n{out}");
    for (k, mode) in POLLWAKE_MODES.iter().enumerate() {
        for (row, round) in [(&rows[k], "0"), (&rows[4 + k], "mean")] {
            assert_eq!(row[0], *mode);
            assert_eq!(row[1], round);
            assert_eq!(row[2], pairs.to_string());
            assert!(row[3].parse::<f64>().unwrap() > 0.0);
            assert_eq!(row[4], "1");
        }
    }
    let checks = line(out, "# checks:");
    // Bursts: 4 modes x 2 bursts x burst messages, a source and a target
    // CQE each. All CQEs: those, the eventfd pass (burst messages, burst
    // target CQEs, burst NOPs) and the stop message (source + target).
    assert_eq!(num(checks, "source_cqes"), 8 * burst);
    assert_eq!(num(checks, "target_cqes"), 8 * burst);
    assert_eq!(num(checks, "cqes"), 2 * 8 * burst + 3 * burst + 2);
    assert_zero(checks, &FAILURES);
    assert_zero(
        checks,
        &[
            "epoll_bad",
            "lost_wakeups",
            "bad_events",
            "waiter_errors",
            "not_asleep",
            "eventfd_bad",
        ],
    );
    assert!(checks.ends_with("-> PASS"), "{checks}");
    let waiter = "# waiter:";
    assert_eq!(field(out, waiter, "bursts"), 2);
    assert_eq!(field(out, waiter, "lost_wakeups"), 0);
    assert_eq!(field(out, waiter, "late_wakeups"), 0);
    // At least one wakeup per burst (a burst may wake the waiter more
    // than once; how often is what the line reports).
    assert!(field(out, waiter, "wakes") >= 2);
    for d in ["# idle-none: ", "# waiter-none: ", "# none_aa-none: "] {
        assert!(out.lines().any(|l| l.starts_with(d)), "{d}");
    }
}

/// The eventfd pass: (after send, after flush, NOPs).
fn eventfd_counts(out: &str) -> (u64, u64, u64) {
    let nums: Vec<u64> = line(out, "# eventfd pass")
        .split('+')
        .skip(1)
        .map(|s| {
            let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            s[..end].parse().unwrap()
        })
        .collect();
    (nums[0], nums[1], nums[2])
}

#[test]
fn smoke_passes_with_exact_counts_for_every_ring_flags_setting() {
    for (flags, want) in [
        ("none", (32, 0, 1)),
        ("single-issuer", (32, 0, 1)),
        // DEFER_TASKRUN: one signal when the messages are queued as task
        // work on the target, one for the owner's single commit.
        ("defer-taskrun", (1, 1, 1)),
    ] {
        let Some(out) = smoke(&["--ring-flags", flags]) else {
            continue;
        };
        assert!(out.contains(&format!(" ring_flags={flags} ")), "{out}");
        assert_exact(&out, 32);
        assert_eq!(eventfd_counts(&out), want, "{flags}\n{out}");
        let shape = if flags == "defer-taskrun" {
            ": queued as task work, one commit at the owner's flush;"
        } else {
            ": a commit per message;"
        };
        assert!(out.contains(shape), "{flags}\n{out}");
        assert_eq!(field(&out, "# idle:", "epoll_bad"), 0);
    }
}

/// pollwake's contract is a contract like any workload's: its banner
/// states every option that changes its figures, and the hash of what
/// `describe` prints for the same options, so that two points of other
/// ring flags (or bursts, or waiter CPUs) are not taken for one workload.
#[test]
fn the_banner_states_every_option_and_the_hash_describe_gives() {
    let mut hashes = Vec::new();
    for flags in ["none", "defer-taskrun"] {
        let opts = [
            "--ring-flags",
            flags,
            "--burst",
            "8",
            "--cpu",
            "0",
            "--waiter-cpu",
            "0",
        ];
        let Some(out) = smoke(&opts) else {
            return;
        };
        let head = fields(line(&out, "# uring-repro"));
        assert_eq!((head["profile"], head["mode"]), ("pollwake", "smoke"));
        let contract = fields(line(&out, "# burst="));
        for (key, want) in [
            ("burst", "8"),
            ("cycles", "2"),
            ("warmups", "0"),
            ("rounds", "1"),
            ("ring_flags", flags),
            ("waiter_cpu", "0"),
            ("watchdog_ms", "1000"),
            ("timeout_s", "2"),
        ] {
            assert_eq!(contract.get(key), Some(&want), "{key}: {out}");
        }
        let describe =
            run(&[&["describe", "--profile", "pollwake", "--smoke"][..], &opts].concat());
        assert_eq!(describe.code, 0, "{}", describe.err);
        assert_eq!(contract["input_sha256"], sha256sum(describe.out.as_bytes()));
        hashes.push(contract["input_sha256"].to_string());
    }
    assert_ne!(hashes[0], hashes[1], "other ring flags, another contract");
}

#[test]
fn burst_sizes_at_both_limits() {
    for burst in [1u64, 64] {
        let b = burst.to_string();
        let Some(out) = smoke(&["--burst", &b]) else {
            return;
        };
        assert!(out.contains(&format!("# burst={b} ")));
        assert_exact(&out, burst);
        assert_eq!(eventfd_counts(&out), (burst, 0, 1));
    }
}

/// Two allowed CPUs, if there are.
fn two_cpus() -> Option<(u32, u32)> {
    let mut set = [0u8; uring_repro::sys::CPU_SET_BYTES];
    uring_repro::sys::sched_getaffinity(&mut set).ok()?;
    let mut cpus = (0..set.len() as u32 * 8).filter(|&c| set[c as usize / 8] & (1 << (c % 8)) != 0);
    Some((cpus.next()?, cpus.next()?))
}

#[test]
fn waiter_on_another_cpu() {
    let Some((a, b)) = two_cpus() else {
        skip("fewer than two CPUs allowed");
        return;
    };
    let (a, b) = (a.to_string(), b.to_string());
    let Some(out) = smoke(&["--cpu", &a, "--waiter-cpu", &b]) else {
        return;
    };
    assert!(out.contains(&format!(" waiter_cpu={b} ")));
    assert_eq!(field(&out, "# waiter:", "cpu"), b.parse::<u64>().unwrap());
    assert_exact(&out, 32);
}

#[test]
fn usage_errors_name_the_argument() {
    for (args, msg) in [
        (
            vec!["--profile", "pollwake", "--burst", "0"],
            "--burst 0: out of range (1..=64)",
        ),
        (
            vec!["--profile", "pollwake", "--burst=65"],
            "--burst=65: out of range (1..=64)",
        ),
        (
            vec!["--profile", "pollwake", "--ring-flags", "defer"],
            "--ring-flags defer: unknown ring flags",
        ),
        (
            vec!["--burst", "8"],
            "--burst: does not apply to profile s0_wait_wake",
        ),
        (
            vec!["--waiter-cpu=0", "--profile", "s0"],
            "--waiter-cpu=0: does not apply",
        ),
        (
            vec!["--profile", "pollwake", "--slots", "8"],
            "--slots: does not apply",
        ),
        (
            vec!["--profile", "pollwake", "--waiter-cpu", "1023"],
            "--waiter-cpu 1023: CPU 1023 is not online or not allowed",
        ),
    ] {
        assert_usage_error(&run(&args), msg);
    }
}

#[test]
fn help_lists_the_pollwake_options() {
    let help = run(&["--help"]).out;
    for opt in [
        "pollwake",
        "--burst N",
        "--waiter-cpu N",
        "--ring-flags F",
        "defer-taskrun",
    ] {
        assert!(help.contains(opt), "{opt}");
    }
}

/// With DEFER_TASKRUN each burst's flush is an enter of its own; one that a
/// signal interrupts (EINTR, here injected into the first timed flush, the
/// fifth enter) is no failure: the bounded wait that follows runs the task
/// work and collects the burst.
#[test]
fn a_flush_interrupted_by_a_signal_is_no_failure() {
    if smoke(&[]).is_none() {
        return;
    }
    let args = [
        "--profile",
        "pollwake",
        "--smoke",
        "--ring-flags",
        "defer-taskrun",
    ];
    let Some(o) = with_injected_fault("io_uring_enter:error=EINTR:when=5", &args) else {
        return;
    };
    assert_eq!(o.code, 0, "{}\n{}", o.out, o.err);
    assert_exact(&o.out, 32);
}
