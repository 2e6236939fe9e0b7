//! coreval: validate SMT solvers' unsat cores.
//!
//! The crate is a library of stage modules (scanning, naming, running,
//! checking, scoring, reporting) driven by the `coreval` binary; tests and
//! benchmarks use the same modules.

pub mod cli;
pub mod cmd;
pub mod exit;
pub mod scramble;
pub mod smtlib;
pub mod verdict;
