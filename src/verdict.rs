//! The record every stage agrees on: what became of one (solver, benchmark)
//! pair. The check stage produces it from runs and checker answers, the
//! importers produce it from archives, the scorer consumes it.

use serde::{Deserialize, Serialize};

/// Why a reported core is not well formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IllFormed {
    /// A name that is not one of the benchmark's top-level assertion names.
    UnknownName,
    /// A name listed twice (no edition mentions it; coreval flags it and
    /// counts the core as ill-formed so that no solver gains by it).
    DuplicateName,
    /// A name of a nested (non top-level) `:named` term.
    NestedName,
    /// An empty core: the benchmark's assertions are all named, so the
    /// empty set is satisfiable.
    Empty,
    /// The core list could not be parsed at all.
    Unparsable,
}

/// The verdict on one pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Verdict {
    /// `unsat` with a well-formed core that the checkers confirmed.
    Validated,
    /// `unsat` with a well-formed core that the checkers found satisfiable.
    Refuted,
    /// `unsat` with a well-formed core on which the checkers reached no
    /// decision that gives points (2025: no checker said unsat).
    NotValidated,
    /// `unsat` with a core that is not well formed.
    IllFormed { reason: IllFormed },
    /// `unsat` but no core printed.
    UnsatNoCore,
    /// The solver answered `sat` on an unsat benchmark.
    SatAnswer,
    /// The solver answered `unknown`.
    Unknown,
    /// No answer: crash, timeout, memory out, error or garbage.
    NoAnswer,
}

/// How the solver run ended, as far as scoring cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    /// The run ended by itself within the limits.
    #[default]
    Complete,
    /// Killed at the wall-clock (or CPU) limit.
    Timeout,
    /// Killed at, or failed on, the memory limit.
    Memout,
}

/// One (solver, benchmark) pair, ready to score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairRecord {
    /// Solver name as configured (or as named in an imported archive).
    pub solver: String,
    /// Benchmark id: its path below the benchmark root.
    pub benchmark: String,
    /// Division (the benchmark's logic).
    pub division: String,
    /// A: number of named top-level assertions of the benchmark.
    pub assertions: u64,
    /// Size of the reported core, when there was one.
    pub core_size: Option<u64>,
    /// The verdict.
    pub verdict: Verdict,
    /// How the run ended.
    pub status: RunStatus,
    /// CPU seconds of the solver process tree.
    pub cpu: f64,
    /// Wall-clock seconds.
    pub wall: f64,
}
