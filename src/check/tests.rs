//! The ledger and the cycle check against synthetic CQEs: every failure
//! class, tags of other cycles, kinds and indices, the plan's totals.

use super::*;

fn expect_s0(slots: u32) -> [Expect; KINDS] {
    let mut e = [Expect::default(); KINDS];
    e[Kind::Wait as usize] = Expect {
        count: slots,
        res: 0,
    };
    e[Kind::Wake as usize] = Expect {
        count: slots,
        res: 1,
    };
    e
}

fn cqe(user_data: u64, res: i32, flags: u32) -> IoUringCqe {
    IoUringCqe {
        user_data,
        res,
        flags,
    }
}

fn good_cycle(seq: u32, slots: u32) -> Vec<IoUringCqe> {
    let mut v = Vec::new();
    for i in 0..slots {
        v.push(cqe(tag(seq, Kind::Wake, i), 1, 0));
        v.push(cqe(tag(seq, Kind::Wait, i), 0, 0));
    }
    v
}

fn check(plan: &Plan, seq: u32, cqes: &[IoUringCqe]) -> (Ledger, bool) {
    let mut l = Ledger::default();
    let mut c = CycleCheck::new(seq, plan);
    for q in cqes {
        c.observe(q, &mut l);
    }
    c.add_received(cqes.len() as u32);
    let ok = c.finish(&mut l, 0);
    (l, ok)
}

fn run(seq: u32, slots: u32, cqes: &[IoUringCqe]) -> (Ledger, bool) {
    check(&Plan::new(&expect_s0(slots)), seq, cqes)
}

#[test]
fn clean_cycle_passes() {
    let (l, ok) = run(7, 32, &good_cycle(7, 32));
    assert!(ok && l.passed());
    assert_eq!(l.cqes, 64);
    assert_eq!((l.kind(Kind::Wait), l.kind(Kind::Wake)), (32, 32));
    assert_eq!(l.first, None);
}

#[test]
fn wrong_results_and_flags_are_counted() {
    let mut v = good_cycle(1, 32);
    v[1].res = -11; // a WAIT that saw a changed word
    let (l, ok) = run(1, 32, &v);
    assert!(!ok);
    assert_eq!(l.count(Fail::BadResult), 1);
    let f = l.first.unwrap();
    assert_eq!(
        (f.what, f.cqe.unwrap().res, f.cqe.unwrap().user_data),
        ("bad_result", -11, tag(1, Kind::Wait, 0))
    );
    let mut v = good_cycle(1, 4);
    v[0].res = 0; // a WAKE that woke nobody
    v[3].flags = 2;
    let (l, _) = run(1, 4, &v);
    assert_eq!((l.count(Fail::BadResult), l.count(Fail::BadFlags)), (1, 1));
    let mut v = good_cycle(1, 2);
    v[0].res = 2;
    v[0].flags = 4;
    let (l, _) = run(1, 2, &v);
    assert_eq!((l.count(Fail::BadResult), l.count(Fail::BadFlags)), (1, 1));
}

#[test]
fn duplicate_and_missing() {
    let mut v = good_cycle(1, 4);
    v[2] = v[0]; // wake 0 twice, wake 1 never
    let (l, ok) = run(1, 4, &v);
    assert!(!ok);
    assert_eq!((l.count(Fail::Duplicate), l.count(Fail::Missing)), (1, 1));
    let (l, ok) = run(3, 32, &good_cycle(3, 32)[..60]);
    assert!(!ok);
    assert_eq!(l.count(Fail::Missing), 4);
    assert_eq!(l.first.unwrap().what, "missing");
}

#[test]
fn stale_unknown_kind_and_out_of_range_tags() {
    let mut v = good_cycle(2, 4);
    v.push(cqe(tag(1, Kind::Wait, 0), 0, 0)); // from the previous cycle
    v.push(cqe(tag(2, Kind::Cancel, 0), 0, 0)); // a kind s0 never submits
    v.push(cqe(tag(2, Kind::Wait, 4), 0, 0)); // index beyond slots
    v.push(cqe(0xdead_0000_0000_0000, 0, 0)); // garbage high bits
    v.push(cqe(tag(2, Kind::Wake, 0) | 0x40, 1, 0)); // index bit 6 set
    v.push(cqe(tag(2, Kind::Wake, 0) | 0x800, 1, 0)); // kind bit 3 set
    let (l, ok) = run(2, 4, &v);
    assert!(!ok);
    assert_eq!(l.count(Fail::UnknownTag), 6);
    assert_eq!((l.count(Fail::Duplicate), l.count(Fail::Missing)), (0, 0));
}

#[test]
fn full_64_slot_cycle_and_plan_totals() {
    let plan = Plan::new(&expect_s0(64));
    assert_eq!(plan.expected, 128);
    let (l, ok) = run(9, 64, &good_cycle(9, 64));
    assert!(ok, "{l:?}");
    assert_eq!(l.kind(Kind::Wake), 64);
}

#[test]
fn a_request_may_expect_a_res_of_its_own() {
    let mut e = [Expect::default(); KINDS];
    e[Kind::Target as usize] = Expect { count: 3, res: 0 };
    let mut plan = Plan::new(&e);
    for i in 0..3 {
        plan.set_res(Kind::Target, i, 100 + i as i32);
    }
    let msg = |i: u32, res| cqe(tag(5, Kind::Target, i), res, 0);
    let (l, ok) = check(&plan, 5, &[msg(2, 102), msg(0, 100), msg(1, 101)]);
    assert!(ok && l.passed(), "{l:?}");
    // Each value belongs to its own request: swapped ones are caught.
    let (l, ok) = check(&plan, 5, &[msg(0, 101), msg(1, 100), msg(2, 102)]);
    assert!(!ok);
    assert_eq!(l.count(Fail::BadResult), 2);
}

#[test]
fn finish_own_judges_by_the_check_alone() {
    let plan = Plan::new(&expect_s0(4));
    let clean = good_cycle(5, 4);
    let mut l = Ledger::default();
    let mut c = CycleCheck::new(5, &plan);
    clean.iter().for_each(|q| c.observe(q, &mut l));
    c.add_received(8);
    assert!(c.finish_own(&mut l));
    assert_eq!((l.cqes, l.kind(Kind::Wake)), (8, 4));
    // Every failure class the check sees makes its own verdict false.
    for (i, damage) in ["res", "flags", "dup", "foreign", "missing"]
        .iter()
        .enumerate()
    {
        let mut v = clean.clone();
        match *damage {
            "res" => v[i].res = 7,
            "flags" => v[i].flags = 1,
            "dup" => v[1] = v[3],
            "foreign" => v.push(cqe(tag(4, Kind::Wait, 0), 0, 0)),
            _ => {
                v.pop();
            }
        }
        let mut l = Ledger::default();
        let mut c = CycleCheck::new(5, &plan);
        v.iter().for_each(|q| c.observe(q, &mut l));
        assert!(!c.finish_own(&mut l), "{damage}");
        assert!(!l.passed(), "{damage}");
    }
}

#[test]
fn every_failure_class_fails_the_ledger_and_since_subtracts() {
    for i in 0..FAILS {
        let mut l = Ledger::default();
        l.fails[i] = 1;
        assert!(!l.passed(), "class {i}");
    }
    let mut before = Ledger::default();
    before.fail(Fail::Timeout, "timeout", 3, None);
    before.cqes = 5;
    let mut now = before;
    now.cqes = 12;
    now.kind_cqes[Kind::Nop as usize] = 7;
    now.add(Fail::Timeout, 2);
    let d = now.since(&before);
    assert_eq!(
        (d.cqes, d.kind(Kind::Nop), d.count(Fail::Timeout)),
        (7, 7, 2)
    );
    assert_eq!(d.first.unwrap().what, "timeout");
    let l = Ledger {
        cqes: 5,
        kind_cqes: [1; KINDS],
        ..Ledger::default()
    };
    assert!(l.passed());
}

#[test]
fn an_untimed_pass_adds_cqes_and_failures_not_kinds() {
    let mut run = Ledger::default();
    run.kind_cqes[Kind::Source as usize] = 64;
    let mut pass = Ledger {
        cqes: 96,
        kind_cqes: [32; KINDS],
        ..Ledger::default()
    };
    pass.fail(Fail::EventfdBad, "eventfd_commits", 0, None);
    run.absorb_untimed(&pass);
    assert_eq!((run.cqes, run.kind(Kind::Source)), (96, 64));
    assert_eq!(run.count(Fail::EventfdBad), 1);
    assert_eq!(run.first.unwrap().what, "eventfd_commits");
}

#[test]
fn an_untimed_pass_keeps_the_call_its_first_failure_blames() {
    let call = Call {
        name: "io_uring_enter",
        ret: Returned::Errno(crate::sys::Errno(16)),
    };
    let mut pass = Ledger::default();
    pass.fail_call(Fail::SubmitError, "submit_error", 3, call);
    pass.fail_call(Fail::SubmitError, "submit_error", 4, call);
    let mut run = Ledger::default();
    run.absorb_untimed(&pass);
    assert_eq!(run.count(Fail::SubmitError), 2);
    let first = run.first.unwrap();
    assert_eq!(
        (first.what, first.seq, first.call),
        ("submit_error", 3, Some(call))
    );
}

#[test]
fn the_checks_line_names_each_counter_once() {
    let mut names: Vec<&str> = TOTALS.iter().chain(&FAILURES).map(|c| c.0).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), TOTALS.len() + FAILURES.len());
}

/// The later kinds (past the hot path's sixteen: g0's file operations) are
/// checked as strictly as the hot ones, beside them in one cycle: clean,
/// a wrong res, a duplicate, a late kind the plan has not, an index past
/// its count, one missing; and a hot kind's CQE is unaffected.
#[test]
fn later_kinds_are_checked_as_the_hot_ones() {
    let mut e = [Expect::default(); KINDS];
    e[Kind::Nop as usize] = Expect { count: 1, res: 0 };
    e[Kind::Statx as usize] = Expect { count: 2, res: 0 };
    e[Kind::SyncRange as usize] = Expect { count: 1, res: 7 };
    let plan = Plan::new(&e);
    assert_eq!(plan.expected, 4);
    let good = [
        cqe(tag(3, Kind::Statx, 1), 0, 0),
        cqe(tag(3, Kind::Nop, 0), 0, 0),
        cqe(tag(3, Kind::SyncRange, 0), 7, 0),
        cqe(tag(3, Kind::Statx, 0), 0, 0),
    ];
    let (l, ok) = check(&plan, 3, &good);
    assert!(ok && l.passed(), "{l:?}");
    assert_eq!((l.kind(Kind::Statx), l.kind(Kind::SyncRange)), (2, 1));
    let mut bad = good.to_vec();
    bad[2].res = 0;
    bad.push(good[0]);
    bad.push(cqe(tag(3, Kind::Fsync, 0), 0, 0));
    bad.push(cqe(tag(3, Kind::Statx, 2), 0, 0));
    bad.remove(3);
    let (l, ok) = check(&plan, 3, &bad);
    assert!(!ok);
    assert_eq!(
        [
            Fail::BadResult,
            Fail::Duplicate,
            Fail::UnknownTag,
            Fail::Missing
        ]
        .map(|f| l.count(f)),
        [1, 1, 2, 1]
    );
    assert_eq!(l.kind(Kind::Nop), 1);
    assert_eq!(
        l.first.unwrap().cqe.unwrap().user_data,
        tag(3, Kind::SyncRange, 0)
    );
}
