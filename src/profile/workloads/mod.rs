//! The workloads, a file each (pollwake a folder), and what only
//! workloads share: `futex.rs`, the futex workloads' words and kernel
//! functions; `stream.rs`, r0's and u0's cycle (and the records b0 checks).

pub mod batch;
pub mod futex;
pub mod iowq_block;
pub mod lifecycle;
pub mod link_chain;
pub mod msg_ring;
pub mod nop_async;
pub mod op_mix;
pub mod poll_add;
pub mod pollwake;
pub mod rw_pipe;
pub mod send_recv;
pub mod sqpoll;
pub mod stream;
pub mod timeout_count;
pub mod wait_cancel;
pub mod wait_wake;
pub mod waitv_wake;
