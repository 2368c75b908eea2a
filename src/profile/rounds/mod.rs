//! A run around the cycles: warm-ups and rounds (`driver.rs`), the run
//! from CPU choice to verdict (`run.rs`), what it prints around the rows
//! (`output.rs`), the contract it states (`contract.rs`), and the
//! kernel's own account of it (`witnessed.rs`).

pub mod contract;
pub mod driver;
pub mod output;
pub mod run;
pub mod witnessed;
