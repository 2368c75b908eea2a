//! The workloads, and the one driver that runs them all.
//!
//! - One file per workload holds all of it: its `Profile` and its
//!   `Workload` (the cycle). `wait_wake.rs`: s0, the report's cycle (start
//!   reading here); `wait_cancel.rs` c0, `waitv_wake.rs` v0, `batch.rs` z0
//!   e0 n0, `lifecycle.rs` l0, `pollwake/` the poll-wakeup workload; then
//!   a workload per hot path of io_uring: `nop_async.rs` a0 (the io-wq
//!   punt), `rw_pipe.rs` r0 (READ/WRITE), `poll_add.rs` p0 (a poll woken),
//!   `timeout_count.rs` t0, `msg_ring.rs` m0, `send_recv.rs` u0 (the net
//!   path), `link_chain.rs` k0 (IOSQE_IO_LINK); `stream.rs` is r0's and
//!   u0's cycle.
//! - A new workload is a new file, its `mod` line and its line in
//!   `ProfileId::ALL`, and nothing else: the command line, `--help`, the
//!   banner, `describe`, the witness and selftest read its `Profile`, and
//!   compare, report and the mail its point's `# series:` lines. The file
//!   holds a `static` `Profile` (every field is required: its names and
//!   help line, what a figure is per, the opcodes to probe, its slots, the
//!   options it takes beyond every workload's, whether it has futex words,
//!   its shape, its series in kernel words, its kernel functions with the
//!   hits each must show, its checks line's counters, its set-up) and a
//!   `Workload` whose `cycle` runs one cycle, most simply with
//!   `cycle.rs`'s frame. (A new opcode is more: its encoder in ops.rs, its
//!   request `Kind` in check.rs, its kernel name in witnessed.rs.)
//! - `vocabulary.rs`: the words every workload and the machinery share
//!   (`Profile`, `Shape`, the `Workload` trait, `Outcome`), importing no
//!   other file here; `registry.rs`: `ProfileId`, every workload by name.
//! - `cycle.rs`: the frame of a cycle made of batches (every workload's
//!   but l0's and pollwake's), `collect.rs` what it does with each;
//!   `setup.rs`: the rings a run sets up, and `CyclePlan`, what a
//!   workload keeps of its shape.
//! - `driver.rs`: warm-ups and rounds of cycles, the rows, the ledger.
//! - `run.rs`: a run from CPU choice to verdict; `output.rs`: the banner,
//!   the summary and the failure line (a workload's own, or the table's);
//!   `contract.rs`: the contract (`describe`, `input_sha256`);
//!   `witnessed.rs`: the witness.

mod batch;
mod collect;
pub mod contract;
mod cycle;
mod driver;
mod futex;
mod inject;
mod lifecycle;
mod link_chain;
mod msg_ring;
mod nop_async;
mod output;
mod poll_add;
mod pollwake;
mod registry;
mod run;
mod rw_pipe;
mod send_recv;
mod setup;
mod span;
mod stream;
mod timeout_count;
mod vocabulary;
mod wait_cancel;
mod wait_wake;
mod waitv_wake;
mod witnessed;

pub use registry::ProfileId;
pub use run::{choose_cpu, run, run_point};
pub use vocabulary::{Rows, Takes};

#[cfg(test)]
mod tests;
