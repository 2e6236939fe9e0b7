//! The journal records every stage writes and reads, and their file names:
//! `runs.jsonl` (solve), `cores.jsonl` and `checks.jsonl` (check). Each is
//! one JSON object per line, appended as work finishes.

use crate::answer::{self, Answer};
use crate::campaign::policy::CheckAnswer;
use serde::{Deserialize, Serialize};

/// File name of the runs journal.
pub const RUNS: &str = "runs.jsonl";

/// One finished (solver, benchmark) run: the journal record of `runs.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// Solver name from the campaign config.
    pub solver: String,
    /// Benchmark id (path below the benchmark root).
    pub benchmark: String,
    /// The answer (`sat`, `unsat`, `unknown`, `timeout`, `error`, `no-answer`).
    pub answer: Answer,
    /// The core's names in normal form, in the order printed.
    pub core: Option<Vec<String>>,
    /// Output flags (errors before the answer, two answers, garbage…).
    pub flags: Vec<String>,
    /// `(error "…")` messages the solver printed.
    #[serde(default)]
    pub errors: Vec<String>,
    /// How the process ended: `exit N`, `signal N` or `failed to start: …`.
    pub exit: String,
    /// Killed at the time limit (any answer it printed is discarded).
    pub timed_out: bool,
    /// Ran out of the memory limit.
    pub memout: bool,
    /// The answer printed before the kill, when the run timed out.
    pub late_answer: Option<Answer>,
    /// Wall-clock seconds.
    pub wall: f64,
    /// CPU seconds of the whole process tree.
    pub cpu: f64,
    /// Peak resident memory in bytes.
    pub max_rss: u64,
    /// Bytes of stdout beyond the cap (not kept).
    pub stdout_dropped: u64,
    /// Solver version, from its version probe.
    pub solver_version: Option<String>,
}

/// The kebab-case name of an output flag, as in the journals.
pub fn flag_name(f: &answer::OutputFlag) -> String {
    serde_json::to_value(f)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// `cores.jsonl`: which core-only benchmark a pair's core became.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CoreRecord {
    pub solver: String,
    pub benchmark: String,
    /// BLAKE3 hash of the core-only benchmark's bytes (its file name).
    pub hash: String,
    /// Named assertions kept.
    pub kept: u64,
}

/// `checks.jsonl` and the cache: one checker's answer on one core.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckRecord {
    pub hash: String,
    pub checker: String,
    pub version: Option<String>,
    /// Time limit in seconds.
    pub time_limit: f64,
    pub answer: CheckAnswer,
    /// The raw answer (`sat`, `unsat`, `unknown`, `timeout`, `error`, `no-answer`).
    pub raw: Answer,
    pub exit: String,
    pub wall: f64,
    pub cpu: f64,
    /// Taken from the cross-campaign cache, not run here.
    #[serde(default)]
    pub cached: bool,
    /// Why the answer is not the raw one (an answer after an error), or why
    /// the checker was not applicable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Output flags of the checker run (two answers, error before the answer…).
    #[serde(default)]
    pub flags: Vec<String>,
}

/// File names of the check stage's journals.
pub const CORES: &str = "cores.jsonl";
pub const CHECKS: &str = "checks.jsonl";

/// Whether `h` is a BLAKE3 digest in lowercase hex, the only file names of `cores/`.
pub fn is_hash(h: &str) -> bool {
    h.len() == 64
        && h.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
