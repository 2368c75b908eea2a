//! Every workload, by name: `ProfileId::ALL` lists their `Profile`s in the
//! order `--help` and `selftest` show them, and a short, long or formal
//! name finds one. The one file that names every workload.

use core::fmt;

use super::vocabulary::{Names, Profile, Shape, Takes};
use super::workloads::{batch, iowq_block, lifecycle, link_chain, msg_ring, nop_async};
use super::workloads::{op_mix, poll_add, pollwake, sqpoll};
use super::workloads::{rw_pipe, send_recv, timeout_count, wait_cancel, wait_wake, waitv_wake};
use crate::config::RunConfig;

/// The workload a run runs (`--profile`): one of `ALL`.
#[derive(Clone, Copy)]
pub struct ProfileId(&'static Profile);

impl ProfileId {
    /// Every workload, in the order `--help` and `selftest` list them.
    pub const ALL: [ProfileId; 18] = [
        ProfileId(&wait_wake::S0),
        ProfileId(&wait_cancel::C0),
        ProfileId(&waitv_wake::V0),
        ProfileId(&batch::Z0),
        ProfileId(&batch::E0),
        ProfileId(&batch::N0),
        ProfileId(&lifecycle::L0),
        ProfileId(&pollwake::POLLWAKE),
        ProfileId(&nop_async::A0),
        ProfileId(&rw_pipe::R0),
        ProfileId(&poll_add::P0),
        ProfileId(&timeout_count::T0),
        ProfileId(&msg_ring::M0),
        ProfileId(&send_recv::U0),
        ProfileId(&link_chain::K0),
        ProfileId(&iowq_block::B0),
        ProfileId(&sqpoll::Q0),
        ProfileId(&op_mix::G0),
    ];
    /// The report's workload, the default.
    pub const S0: ProfileId = ProfileId(&wait_wake::S0);

    /// Everything the workload is.
    pub fn profile(self) -> &'static Profile {
        self.0
    }

    pub fn names(self) -> &'static Names {
        &self.0.names
    }

    /// The formal reproducer's name (banner, TSV `profile`, describe).
    pub fn formal_name(self) -> &'static str {
        self.0.names.formal
    }

    /// The profile a short, long or formal name means.
    pub fn parse(s: &[u8]) -> Option<ProfileId> {
        Self::ALL.into_iter().find(|p| {
            let n = p.names();
            [n.short, n.long, n.formal]
                .iter()
                .any(|n| n.as_bytes() == s)
        })
    }

    /// Whether it takes run option `t`.
    pub fn takes(self, t: Takes) -> bool {
        self.0.options.takes.contains(&t)
    }

    /// Requests per cycle unless `--slots` says otherwise (v0: groups).
    pub fn default_slots(self) -> u32 {
        self.0.options.default_slots
    }

    /// Its rows are tagged by series (a table of several: pollwake's).
    pub fn tagged(self) -> bool {
        self.0.series.len() > 1
    }

    /// The shape a run with `cfg` gives it.
    pub fn shape(self, cfg: &RunConfig) -> Shape {
        (self.0.shape)(cfg)
    }

    /// Every workload in `ALL`'s order, each followed by its shared-futex
    /// variant where it takes `--shared`: (workload, shared).
    pub fn variants() -> impl Iterator<Item = (ProfileId, bool)> {
        let scopes = |id: ProfileId| {
            [(id, false), (id, true)]
                .into_iter()
                .take(1 + id.takes(Takes::Shared) as usize)
        };
        Self::ALL.into_iter().flat_map(scopes)
    }
}

/// Two ids are the same when they name the same workload.
impl PartialEq for ProfileId {
    fn eq(&self, other: &ProfileId) -> bool {
        self.formal_name() == other.formal_name()
    }
}

impl Eq for ProfileId {}

impl fmt::Debug for ProfileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.formal_name())
    }
}
