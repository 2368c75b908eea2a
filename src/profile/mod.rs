//! The workloads, and the one driver that runs them all. Five rooms, each
//! importing only those above it in this list:
//!
//! - `vocabulary.rs`: the words every file here shares: `Profile` (what a
//!   workload is), `Shape` (what its cycle submits and must get back), the
//!   `Workload` trait (its cycle, its own output), `Outcome` (what its
//!   rounds produced). It imports no other file of profile/.
//! - `parts/`: what a cycle is made of: `cycle.rs`, the frame of a cycle
//!   made of batches (every workload's but l0's and pollwake's);
//!   `collect.rs`, what it does with each batch and its CQEs; `span.rs` and
//!   `inject.rs`, the timed span's clock reads and the positive control's
//!   spin; `setup.rs`, the rings a run sets up (a workload's own ring, and
//!   its SQ thread's CPU, among them), and `CyclePlan`, what a workload
//!   keeps of its shape; `process.rs`, what a run changes of its process
//!   and gives back; `iowq.rs`, what the workloads whose requests run in
//!   io-wq share (the workers bound and limited, SCHED_BATCH, the set-up's
//!   cycle).
//! - `workloads/`: one file per workload holds all of it: its `Profile`
//!   and its `Workload` (the cycle). `wait_wake.rs`: s0, the report's
//!   cycle (start reading here); `wait_cancel.rs` c0, `waitv_wake.rs` v0,
//!   `batch.rs` z0 e0 n0, `lifecycle.rs` l0, `pollwake/` the poll-wakeup
//!   workload; then a workload per hot path of io_uring: `nop_async.rs` a0
//!   (the io-wq punt), `rw_pipe.rs` r0 (READ/WRITE), `poll_add.rs` p0 (a
//!   poll woken), `timeout_count.rs` t0, `msg_ring.rs` m0, `send_recv.rs`
//!   u0 (the net path), `link_chain.rs` k0 (IOSQE_IO_LINK); then three
//!   where scheduling is the cost: `iowq_block.rs` b0 (io-wq work that
//!   sleeps in its worker), `sqpoll.rs` q0 (the SQ thread submits),
//!   `op_mix.rs` g0 (stress-ng's io-uring shape). What only workloads
//!   share: `futex.rs` (the futex workloads' words and kernel functions),
//!   `stream.rs` (r0's and u0's cycle, and the records b0 checks).
//! - `registry.rs`: `ProfileId`, every workload by name, the one list.
//! - `rounds/`: the run around the cycles: `driver.rs`, warm-ups and
//!   rounds of cycles, the rows, the ledger; `run.rs`, a run from CPU
//!   choice to verdict; `output.rs`, the banner, the summary and the
//!   failure line; `contract.rs`, the contract (`describe`,
//!   `input_sha256`); `witnessed.rs`, the witness.
//!
//! A new workload is a new file in `workloads/`, its `mod` line and its
//! line in `ProfileId::ALL`, and nothing else: the command line, `--help`,
//! the banner, `describe`, the witness and selftest read its `Profile`,
//! and compare, report and the mail its point's `# series:` lines. The
//! file holds a `static` `Profile` (every field is required: its names and
//! help line, what a figure is per, the opcodes to probe, its slots, the
//! options it takes beyond every workload's, whether it has futex words,
//! the ring of its own it runs on if any, its shape, its series in kernel
//! words, its kernel functions with the
//! hits each must show, its checks line's counters, its set-up) and a
//! `Workload` whose `cycle` runs one cycle, most simply with `cycle.rs`'s
//! frame. (A new opcode is more: its encoder in ops.rs, its request `Kind`
//! in check.rs, its kernel name in witnessed.rs.)
//!
//! This file is the module list and what the rest of the crate uses.

mod parts;
mod registry;
mod rounds;
mod vocabulary;
mod workloads;

pub use registry::ProfileId;
pub use rounds::contract;
pub use rounds::run::{choose_cpu, run, run_point};
pub use vocabulary::{Rows, Takes};

#[cfg(test)]
mod tests;
