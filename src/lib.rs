//! coreval: validate SMT solvers' unsat cores.
//!
//! The crate is a library of stage modules (scanning, naming, running,
//! checking, scoring, reporting) driven by the `coreval` binary; tests and
//! benchmarks use the same modules.

pub mod answer;
pub mod benchmark;
pub mod campaign;
pub mod check;
pub mod checkers;
pub mod cmd;
pub mod diff;
pub mod evidence;
pub mod explain;
pub mod export;
pub mod import;
pub mod incremental;
pub mod judge;
pub mod message;
pub mod model;
pub mod name;
pub mod pipeline;
pub mod process;
pub mod progress;
pub mod rebuild;
pub mod report;
pub mod runner;
pub mod scope;
pub mod score;
pub mod scramble;
pub mod select;
pub mod selfcheck;
pub mod shrink;
pub mod slurm;
pub mod smtlib;
pub mod solve;
pub mod store;
