//! pollwake's modes: what polls the target ring of a burst. Each is a
//! series of the workload, with its own target ring, run in this order
//! every round.

use crate::profile::vocabulary::RowSet;

/// The modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poller {
    None = 0,
    Idle = 1,
    Waiter = 2,
    NoneAa = 3,
}

/// The series, in `Poller` order: the rows' first column, the mode's word
/// (`compare --mode`) and the mode in kernel words.
pub const SERIES: [RowSet; 4] = [
    mode("pollwake_none", "none", "io_uring MSG_RING, no poller"),
    mode("pollwake_idle", "idle", "io_uring poll wakeup, idle epoll"),
    mode(
        "pollwake_waiter",
        "waiter",
        "io_uring poll wakeup, epoll waiter",
    ),
    mode(
        "pollwake_none_aa",
        "none_aa",
        "io_uring MSG_RING, A/A control",
    ),
];

const fn mode(name: &'static str, word: &'static str, about: &'static str) -> RowSet {
    RowSet {
        name,
        mode: Some(word),
        about,
    }
}

impl Poller {
    pub const ALL: [Poller; 4] = [Poller::None, Poller::Idle, Poller::Waiter, Poller::NoneAa];

    /// Its series.
    pub fn series(self) -> &'static RowSet {
        &SERIES[self as usize]
    }

    /// Its mode's word (`idle`).
    pub fn name(self) -> &'static str {
        self.series().mode.unwrap_or("")
    }
}

/// Where mode `m`'s target is in `Parts::targets` (not for `waiter`).
pub fn slot(m: Poller) -> usize {
    match m {
        Poller::None => 0,
        Poller::Idle => 1,
        _ => 2,
    }
}
