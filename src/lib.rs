//! uring-repro: reproduces and measures io_uring kernel performance
//! regressions, starting with the futex WAIT->WAKE slowdown after Linux
//! commit 079afb081c42. No libc, no crates: the library is `no_std` outside
//! its own unit tests; `src/main.rs` (with `src/mem.rs`) is the binary.
//!
//! Imports run one way: `app` (dispatch) -> `compare` | `profile` (the
//! workloads and their driver) -> `ring`, `ops` -> `sys` (the kernel
//! boundary). `check`, `decimal`, `stats`, `hist`, `sha256` and `render`
//! are pure; `config` (the run contract) and `exit` (the exit policy) are
//! leaves.
#![cfg_attr(not(test), no_std)]
// No heap: some failures carry their text by value (a `render::Line`,
// compare's `Refusal`), once per run; `exit::Exit` keeps its cause aside.
#![allow(clippy::result_large_err)]

pub mod app;
mod calibrate;
mod check;
mod cli;
mod compare;
mod config;
mod cpu;
mod decimal;
pub mod exit;
mod facts;
mod hist;
mod initramfs;
mod ops;
mod outfile;
mod points;
mod profile;
mod render;
mod ring;
pub mod rt;
mod selftest;
mod sha256;
mod stats;
mod suite;
pub mod sys;
#[cfg(test)]
mod testing;
mod tsv;
pub mod witness;
