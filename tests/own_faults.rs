//! A run's own faults, not the kernel's io_uring: a system call it needs
//! so that its point is the point it states fails (faked with strace). A
//! getcpu that fails is named with its errno, never counted as a
//! migration; what a run changed of its process (its thread's CPUs, a0's
//! scheduling policy) and could not give back fails it, naming the call,
//! and no later run of the process measures under what it left.

mod utils;

use utils::{line, ran, skip, with_injected_fault, Run};

/// The `# checks:` line of `r`'s stdout, and its verdict.
fn checks(r: &Run) -> &str {
    line(&r.out, "# checks: ")
}

/// getcpu fails where the run proves its pin (the 1st call: exit 1 as a
/// set-up failure, not a usage error), before the first share (2nd) and
/// after it (3rd): the run fails naming getcpu and its errno, says so on
/// stdout, and counts no migration.
#[test]
fn a_failed_getcpu_is_named_with_its_errno_and_is_no_migration() {
    if ran(&["--smoke", "--profile", "n0"]).is_none() {
        return;
    }
    let cases = [
        (
            1,
            "ENOSYS",
            "uring-repro: set-up: getcpu failed: ENOSYS (38)\n",
        ),
        (
            2,
            "ENOSYS",
            "uring-repro: FAIL: getcpu failed: ENOSYS (38): ",
        ),
        (
            3,
            "EFAULT",
            "uring-repro: FAIL: getcpu failed: EFAULT (14): ",
        ),
    ];
    for (when, errno, said) in cases {
        let inject = format!("getcpu:error={errno}:when={when}");
        let Some(r) = with_injected_fault(&inject, &["--smoke", "--profile", "n0"]) else {
            return;
        };
        let err = &r.err;
        assert_eq!(r.code, 1, "{inject}: {err}");
        assert!(
            err.starts_with(said) && err.lines().count() == 1,
            "{inject}: {err}"
        );
        assert!(!err.contains("migration"), "{inject}: {err}");
        if when == 1 {
            assert!(r.out.is_empty(), "{inject}: {}", r.out);
            continue;
        }
        let c = checks(&r);
        assert!(c.ends_with(" migrations=0 -> FAIL"), "{inject}: {c}");
        let fault = format!("# getcpu failed: {errno} ");
        assert!(
            r.out.lines().any(|l| l.starts_with(&fault)),
            "{inject}: {}",
            r.out
        );
        // After the share: its row is printed, and did not pass.
        let rows = utils::rows(&r.out);
        let round = rows.iter().find(|r| r[0] == "0").map(|r| r[3]);
        assert_eq!(round, (when == 3).then_some("0"), "{inject}");
    }
}

/// a0 runs under SCHED_BATCH and gives the policy back before its summary
/// (the 2nd sched_setscheduler): when it cannot, its run fails naming
/// the call, and its checks line says FAIL.
#[test]
fn a0_fails_naming_a_policy_it_could_not_give_back() {
    if ran(&["--smoke", "--profile", "a0"]).is_none() {
        return;
    }
    let inject = "sched_setscheduler:error=EPERM:when=2";
    let Some(r) = with_injected_fault(inject, &["--smoke", "--profile", "a0"]) else {
        return;
    };
    let said = "uring-repro: FAIL: sched_setscheduler failed: EPERM (1): the thread keeps \
                the policy SCHED_BATCH\n";
    assert_eq!((r.code, r.err.as_str()), (1, said));
    assert!(checks(&r).ends_with(" -> FAIL"), "{}", r.out);
}

/// A suite of a0 then r0, a0's policy not given back: r0 would run under
/// SCHED_BATCH, so it does not run, and fails naming why; the same for the
/// CPUs a run pins its thread to (the 2nd sched_setaffinity gives them
/// back) with n0 then r0.
#[test]
fn what_a_run_could_not_give_back_fails_every_later_item() {
    let cases = [
        (
            "a0",
            "sched_setscheduler:error=EPERM:when=2",
            "sched_setscheduler failed: EPERM (1): the thread keeps the policy SCHED_BATCH",
        ),
        (
            "n0",
            "sched_setaffinity:error=EINVAL:when=2",
            "sched_setaffinity failed: EINVAL (22): the thread keeps the one CPU the run \
             pinned it to",
        ),
    ];
    for (first, inject, why) in cases {
        let items = format!("{first},r0");
        let args = ["suite", "--profiles", &items, "--smoke"];
        let Some(plain) = ran(&args) else {
            return;
        };
        if plain.code != 0 {
            skip(format!("{items} does not pass here: {}", plain.err.trim()));
            return;
        }
        let Some(r) = with_injected_fault(inject, &args) else {
            return;
        };
        let lines: Vec<&str> = r
            .out
            .lines()
            .filter(|l| l.starts_with("# suite: "))
            .collect();
        let first_line = format!("# suite: 1/2 {first} exit=1 fail: FAIL: {why}");
        let r0 = format!(
            "# suite: 2/2 r0 exit=1 fail: an earlier run of this process could not give back \
             what it changed: {why}"
        );
        assert!(lines.contains(&first_line.as_str()), "{inject}: {lines:#?}");
        assert!(lines.contains(&r0.as_str()), "{inject}: {lines:#?}");
        // r0 measured nothing: one point, the first item's.
        let points = r
            .out
            .lines()
            .filter(|l| l.starts_with("# uring-repro "))
            .count();
        assert_eq!(points, 1, "{inject}: {}", r.out);
        assert_eq!(r.code, 1, "{inject}: {}", r.err);
    }
}
