//! What pollwake prints besides the rows every workload prints (its
//! `OwnOutput`): its banner lines (the modes, the eventfd pass), per mode
//! the mean row with its difference from `none`, the idle and waiter
//! facts, and its failure line. See docs/pollwake.md.

use core::fmt::Write;

use super::{commit_shape, Parts, Poller, Pollwake, HIST};
use crate::check::{Fail, Failure};
use crate::profile::vocabulary::{Outcome, OwnOutput};
use crate::render::{self, Dec, Ratio6, Signed};
use crate::stats;

/// After the banner's contract line: the modes.
pub fn modes(w: &mut dyn Write) {
    let _ = w.write_str("# modes in this order each round, each on its own target ring:");
    for m in Poller::ALL {
        let _ = write!(w, " {}", m.name());
    }
    let _ = writeln!(w, "; a pair is one MSG_RING message and its target CQE");
}

/// After the banner: the eventfd pass.
pub fn eventfd_pass(w: &mut dyn Write, p: &Parts) {
    let (o, ev) = (&p.o, &p.eventfd);
    let _ = writeln!(
        w,
        "# eventfd pass (untimed, own ring): {} MSG_RING -> +{} on send, +{} on flush: {}; \
         {} NOP in one enter -> +{}",
        o.burst,
        ev[0],
        ev[1],
        commit_shape(ev, o.burst, o.flags.deferred()).unwrap_or("UNEXPECTED"),
        o.burst,
        ev[2],
    );
}

/// Per mode the mean row and spread; for all but `none` its difference
/// from `none`: means, percent, and the sd of the per-round differences
/// (the modes share every round, so round-to-round drift cancels). Then
/// what idle's untimed poll cost and how the waiter was woken.
pub fn summary(w: &mut dyn Write, o: &Outcome, p: &Parts) {
    let (l, base) = (&o.ledger, &o.rows[Poller::None as usize]);
    for m in Poller::ALL {
        let r = &o.rows[m as usize];
        let tag = m.series().name;
        let (ns, pairs, label) = (r.total_ns, r.total_pairs, o.mean_label());
        render::mean_and_spread(w, tag, label, ns, pairs, o.passed(), r.per_round());
        if m == Poller::None {
            continue;
        }
        let (now, then) = (r.per_round(), base.per_round());
        let mut d = [0f64; crate::config::MAX_ROUNDS as usize];
        let n = now.len().min(then.len());
        for (k, v) in d[..n].iter_mut().enumerate() {
            *v = now[k] - then[k];
        }
        let _ = write!(
            w,
            "# {}-none: {} ns per completion ({}%), per-round sd {}",
            m.name(),
            Signed(r.mean() - base.mean(), 3),
            Signed(stats::pct_change(r.mean(), base.mean()), 3),
            Dec(stats::summarize(&d[..n]).stddev, 3),
        );
        let aa = if m == Poller::NoneAa {
            " (A/A control: the noise floor)"
        } else {
            ""
        };
        let _ = writeln!(w, "{aa}");
    }
    let gap = |m: Poller| Ratio6 {
        num: p.gap_ns[m as usize],
        den: p.gap_bursts[m as usize],
    };
    let bursts: u64 = p.wake_hist.iter().sum();
    let wakes: u64 = p
        .wake_hist
        .iter()
        .enumerate()
        .map(|(k, v)| k as u64 * v)
        .sum();
    let handover = if p.o.waiter_cpu == p.o.cpu {
        "futex"
    } else {
        "spin_then_futex"
    };
    let _ = write!(
        w,
        "# idle: epoll_pwait(0) after each burst, outside the timed span: {} ns per burst \
         (an empty gap in none: {} ns); epoll_bad={}\n\
         # waiter: cpu={} handover={handover} bursts={bursts} wakes={wakes} wakes_per_burst",
        gap(Poller::Idle),
        gap(Poller::None),
        l.count(Fail::EpollBad),
        p.o.waiter_cpu,
    );
    for (k, v) in p.wake_hist.iter().enumerate().filter(|(_, v)| **v != 0) {
        let more = if k == HIST - 1 { "+" } else { "" };
        let _ = write!(w, " {k}{more}:{v}");
    }
    let _ = writeln!(
        w,
        " lost_wakeups={} late_wakeups={} empty_wakes={} asleep_check={} not_asleep={} \
         asleep_retries={}",
        l.count(Fail::LostWakeup),
        p.late,
        p.empty_wakes,
        if p.stat.is_some() {
            "proc"
        } else {
            "unavailable"
        },
        l.count(Fail::NotAsleep),
        p.park_retries,
    );
}

/// The stderr line of a failed run: the first failure, the mode it was
/// found in, and the waiter's errno if it failed.
pub fn cause(w: &mut dyn Write, o: &Outcome, waiter_error: Option<u32>) {
    let mode = o.failed_series.map_or("-", |k| Poller::ALL[k].name());
    let f = o.ledger.first.unwrap_or(Failure {
        what: "see the checks line",
        seq: 0,
        cqe: None,
        call: None,
    });
    let c = f.cqe.unwrap_or_default();
    let waiter = waiter_error.map_or(0, |e| e as i32);
    let _ = write!(
        w,
        "FAIL: {} in mode {mode} (burst seq {}, user_data={:#x}, res={}, flags={:#x}; \
         waiter errno {waiter})",
        f.what, f.seq, c.user_data, c.res, c.flags
    );
    if let Some(call) = f.call {
        let _ = write!(w, ": {call}");
    }
    let _ = write!(w, "; counters on stdout");
}

impl OwnOutput for Pollwake {
    fn after_contract_line(&self, w: &mut dyn Write) {
        modes(w);
    }

    fn after_banner(&self, w: &mut dyn Write) {
        eventfd_pass(w, &self.p);
    }

    fn summary(&self, w: &mut dyn Write, o: &Outcome) {
        summary(w, o, &self.p);
    }

    fn cause(&self, w: &mut dyn Write, o: &Outcome) {
        cause(w, o, self.p.waiter_error());
    }
}
