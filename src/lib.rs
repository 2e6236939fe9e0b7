//! coreval: validate SMT solvers' unsat cores.
//!
//! The crate is a library of stage modules (scanning, naming, running,
//! checking, scoring, reporting) driven by the `coreval` binary; tests and
//! benchmarks use the same modules.

pub mod answer;
pub mod campaign;
pub mod checkers;
pub mod cli;
pub mod cmd;
pub mod exit;
pub mod interrupt;
pub mod journal;
pub mod merge;
pub mod policy;
pub mod progress;
pub mod rebuild;
pub mod runner;
pub mod shard;
pub mod slurm;
pub mod smtlib;
pub mod verdict;
