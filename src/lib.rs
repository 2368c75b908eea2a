//! uring-repro: reproduces and measures io_uring kernel performance
//! regressions, starting with the futex WAIT->WAKE slowdown after Linux
//! commit 079afb081c42. No libc, no crates: the library is `no_std` outside
//! its own unit tests; `src/main.rs` (with `src/mem.rs`) is the binary.
#![cfg_attr(not(test), no_std)]

pub mod app;
pub mod check;
pub mod cli;
pub mod compare;
pub mod contract;
pub mod cpu;
pub mod facts;
pub mod hist;
pub mod ops;
pub mod profile;
pub mod report;
pub mod ring;
pub mod rt;
pub mod sha256;
pub mod stats;
pub mod sys;
pub mod tsv;
