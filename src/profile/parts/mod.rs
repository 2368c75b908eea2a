//! What a workload's cycle is made of: the frame of a cycle made of
//! batches (`cycle.rs`), submitting a batch and taking its CQEs into the
//! cycle's check (`collect.rs`), the timed span's clock reads (`span.rs`)
//! and the positive control's spin at its end (`inject.rs`), and the rings
//! a run sets up with what a failed set-up means (`setup.rs`); what a run
//! changes of its process, and gives back (`process.rs`); what the
//! workloads whose requests run in io-wq share (`iowq.rs`).

pub mod collect;
pub mod cycle;
pub mod inject;
pub mod iowq;
pub mod process;
pub mod setup;
pub mod span;
