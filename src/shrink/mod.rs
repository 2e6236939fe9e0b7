//! Shrinking a failure: a benchmark on which a solver fails is reduced to
//! a small one on which it still fails the same way ([`oracle`]): first
//! coreval's own delta debugging over whole assertions ([`ddmin`]), then
//! ddSMT (PyPI `ddsmt`, installed by `checkers/install.sh`) inside the
//! terms, with `coreval shrink-judge SPEC FILE` as its test. The whole work
//! per benchmark is bounded by a budget of seconds; every candidate kept
//! was judged failing, so the reproducer is the smallest failing file
//! reached when time ran out, ddSMT stopped, or the user interrupted.
//!
//! Every reproducer is valid by construction: the assertion-level pass
//! keeps the definitions its assertions need ([`ddmin::Script::with`]), and
//! when the original passes the strict check ([`crate::scope`]: syntax,
//! and every symbol and sort in scope) every candidate kept must pass it
//! too; the reproducer is checked once more before it is printed.
//!
//! [`selfcheck`] attaches reproducers to `coreval selfcheck --shrink`'s
//! FAIL blocks; `coreval shrink CAMPAIGN SOLVER BENCHMARK` shrinks one
//! campaign pair (`src/cmd/shrink.rs`).

pub mod ddmin;
pub mod ddsmt;
pub mod oracle;
pub mod selfcheck;

use anyhow::Result;
use oracle::{Judge, Spec};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The default budget per benchmark, in seconds (`--shrink-time`).
pub const DEFAULT_TIME: f64 = 120.0;

/// How to shrink.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Seconds of work per benchmark.
    pub time: f64,
    /// The coreval program ddSMT runs as its test (`shrink-judge`).
    pub coreval: PathBuf,
    /// The definitions folder, beside which `venv/bin/ddsmt` is looked for.
    pub checkers_dir: PathBuf,
}

/// A reproducer and how it was reached.
#[derive(Clone, Debug)]
pub struct Shrunk {
    pub path: PathBuf,
    /// (K, N): assertions of the reproducer and of the original.
    pub assertions: (usize, usize),
    /// (B, B0): bytes of the reproducer and of the original.
    pub bytes: (usize, usize),
    /// What happened on the way: ddSMT missing or failing, time out,
    /// interruption (one sentence each).
    pub notes: Vec<String>,
    pub seconds: f64,
    /// Candidates judged by coreval's own pass.
    pub judged: usize,
}

impl Shrunk {
    /// `reproducer: PATH (K of N assertions, B of B0 bytes)`.
    pub fn line(&self) -> String {
        format!(
            "reproducer: {} ({} of {} assertions, {} of {} bytes)",
            self.path.display(),
            self.assertions.0,
            self.assertions.1,
            self.bytes.0,
            self.bytes.1
        )
    }
}

/// Shrink `original` (a benchmark's bytes) on which `spec`'s solver fails
/// as `spec.kind` says, writing the reproducer to `out`. `Err` (one
/// sentence) when the failure does not repeat under the judgement or the
/// reproducer cannot be written; nothing else is lost.
pub fn shrink(
    original: &[u8],
    spec: Spec,
    out: &Path,
    settings: &Settings,
    cancel: &AtomicBool,
) -> Result<Shrunk, String> {
    let start = Instant::now();
    let left = || settings.time - start.elapsed().as_secs_f64();
    let stopped = || cancel.load(Ordering::Relaxed) || left() <= 0.0;
    let err = |e: anyhow::Error| format!("{e:#}");
    let judge = Judge::new(spec.clone()).map_err(err)?;
    let golden = judge.judge(original, cancel).map_err(err)?;
    if !golden.fails {
        return Err(match cancel.load(Ordering::Relaxed) {
            true => "interrupted before the first judgement".into(),
            false => format!(
                "the failure ({}) did not repeat when judged again: nothing to shrink",
                spec.kind
            ),
        });
    }
    // A candidate that makes the solver or a checker slow is not worth the
    // original limits: ten times the original's, at least 5 s.
    let tight = |given: f64, took: f64| given.min((10.0 * took).max(5.0));
    let mut notes = Vec::new();
    let strict = strict_error(original);
    if let Some(e) = &strict {
        notes.push(format!(
            "the original fails the strict check ({e}): candidates are not held to it"
        ));
    }
    let judge = Judge::new(Spec {
        solver_time: tight(spec.solver_time, golden.solver_wall),
        checker_time: tight(spec.checker_time, golden.checker_wall),
        logic: golden.logic.clone(),
        strict: strict.is_none(),
        ..spec
    })
    .map_err(err)?;
    let mut best = original.to_vec();
    let mut judged = 0;
    match ddmin::Script::parse(original) {
        Ok(script) => {
            let n = script.asserts.len();
            let mut failure = None;
            let keep = ddmin::ddmin(n, &mut |set| {
                if stopped() || failure.is_some() {
                    return None;
                }
                judged += 1;
                match judge.judge(&script.with(set), cancel) {
                    Ok(j) if stopped() && !j.fails => None,
                    Ok(j) => Some(j.fails),
                    Err(e) => {
                        failure = Some(err(e));
                        None
                    }
                }
            });
            if let Some(why) = failure {
                notes.push(format!("assertion-level pass stopped: {why}"));
            }
            if keep.len() < n {
                best = script.with(&keep);
            }
        }
        Err(why) => notes.push(format!("assertion-level pass skipped: {why}")),
    }
    write(out, &best)?;
    if !stopped() {
        if let Some(better) = ddsmt::run(&best, &judge, settings, left(), cancel, &mut notes) {
            best = better;
            write(out, &best)?;
        }
    }
    if cancel.load(Ordering::Relaxed) {
        notes
            .push("shrink interrupted: the reproducer is the smallest failing file reached".into());
    } else if left() <= 0.0 {
        notes.push(format!(
            "shrink stopped at its budget ({} s, --shrink-time)",
            settings.time
        ));
    }
    if strict.is_none() {
        if let Some(e) = strict_error(&best) {
            let _ = std::fs::remove_file(out);
            return Err(format!(
                "the reproducer {} fails the strict check ({e}): not printed",
                out.display()
            ));
        }
    }
    let count = |b: &[u8]| ddmin::Script::parse(b).map_or(0, |s| s.asserts.len());
    Ok(Shrunk {
        path: out.to_path_buf(),
        assertions: (count(&best), count(original)),
        bytes: (best.len(), original.len()),
        notes,
        seconds: start.elapsed().as_secs_f64(),
        judged,
    })
}

/// The first strict error of a script ([`crate::scope::strict_script`]).
fn strict_error(script: &[u8]) -> Option<String> {
    crate::scope::strict_script(script, 1)
        .first()
        .map(ToString::to_string)
}

fn write(out: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot write the reproducer {}: {e}", out.display()))?;
    }
    crate::store::journal::write_atomic(out, bytes)
        .map_err(|e| format!("cannot write the reproducer {}: {e:#}", out.display()))
}
