//! The fuzz targets' bodies, shared by the cargo-fuzz targets in `fuzz/`
//! (nightly, libFuzzer) and by `tests/fuzz_smoke.rs` (stable, CI), so that
//! both check the same invariants. Each body takes arbitrary bytes, panics
//! when an invariant breaks, and returns otherwise.

pub mod answer;
pub mod campaign;
pub mod gen;
pub mod lexer;
pub mod rebuild;
pub mod scanner;
pub mod starexec_csv;

/// A fuzz target's body: it panics on a bug.
pub type Body = fn(&[u8]);

/// Every target: its name (the folder of its seeds and regressions) and body.
pub const TARGETS: &[(&str, Body)] = &[
    ("scanner", scanner::check),
    ("lexer", lexer::check),
    ("answer", answer::check),
    ("rebuild", rebuild::check),
    ("campaign", campaign::check),
    ("starexec_csv", starexec_csv::check),
];
