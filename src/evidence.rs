//! Evidence for every pair that did not pass: its run, its core, the
//! core-only benchmark's path (relative to the campaign folder, so the
//! folder can be zipped and shared) and every checker's run on it — version,
//! answer, exit, the first lines it printed and the exact command that
//! repeats it. Built from the journals after judging; the HTML report shows
//! it (passing pairs carry none, so a report of 200 000 pairs stays small).

use crate::campaign::pair::{CheckerEvidence, PairEvidence, PairVerdict};
use crate::campaign::records::{exit_text, CheckRecord, RunRecord};
use crate::campaign::Loaded;
use crate::checkers::{Invocation, SolverDef};
use crate::rebuild::Dialect;
use anyhow::Result;
use std::collections::HashMap;
use std::path::Path;

/// The evidence of every pair of `pairs` that needs it, in their order.
pub fn collect(l: &Loaded, pairs: &[PairVerdict]) -> Result<Vec<PairEvidence>> {
    let wanted: Vec<&PairVerdict> = pairs.iter().filter(|p| p.needs_evidence()).collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let runs: Vec<RunRecord> = crate::campaign::current::runs(l)?;
    let run_of: HashMap<(&str, &str), &RunRecord> = runs
        .iter()
        .map(|r| ((r.solver.as_str(), r.benchmark.as_str()), r))
        .collect();
    let checks: Vec<CheckRecord> = crate::campaign::current::checks(l)?;
    let mut checks_of: HashMap<&str, Vec<&CheckRecord>> = HashMap::new();
    for k in &checks {
        checks_of.entry(k.hash.as_str()).or_default().push(k);
    }
    let def_of: HashMap<&str, &SolverDef> = l.defs.iter().map(|d| (d.name.as_str(), d)).collect();
    let mut out = Vec::with_capacity(wanted.len());
    for p in wanted {
        let run = run_of.get(&(p.pair.solver.as_str(), p.pair.benchmark.as_str()));
        let core_file = p.core_hash.as_ref().map(|h| format!("cores/{h}.smt2"));
        let mut checkers = Vec::new();
        if let Some(h) = &p.core_hash {
            // One entry per checker: the newest record (a re-run replaces).
            let mut latest: HashMap<&str, &CheckRecord> = HashMap::new();
            for k in checks_of.get(h.as_str()).into_iter().flatten() {
                latest.insert(k.checker.as_str(), k);
            }
            let mut names: Vec<&str> = latest.keys().copied().collect();
            names.sort_unstable();
            for name in names {
                let k = latest[name];
                checkers.push(CheckerEvidence {
                    checker: k.checker.clone(),
                    version: k.version.clone(),
                    answer: label(&k.raw),
                    counted: label(&k.answer),
                    exit: exit_text::format(&k.exit),
                    wall: k.wall,
                    cached: k.cached,
                    note: k.note.clone(),
                    output: k.output.clone(),
                    command: def_of
                        .get(name)
                        .map(|d| command(d, h, l))
                        .unwrap_or_else(|| "(no definition of this checker here)".into()),
                    certification: p.certifications.get(name).map(|c| c.describe()),
                });
            }
        }
        out.push(PairEvidence {
            solver: p.pair.solver.clone(),
            benchmark: p.pair.benchmark.clone(),
            verdict: p.pair.verdict.clone(),
            disputed: p.disputed,
            pending: p.pending,
            answer: run.map_or_else(String::new, |r| label(&r.answer)),
            exit: run.map_or_else(String::new, |r| exit_text::format(&r.exit)),
            flags: p.flags.clone(),
            core: run.and_then(|r| r.core.clone()),
            assertions: p.pair.assertions,
            core_file,
            command: run.filter(|r| shows_run(r)).and_then(|r| solver_command(r)),
            errors: run
                .filter(|r| shows_run(r))
                .map(|r| r.errors.clone())
                .unwrap_or_default(),
            stderr: run
                .filter(|r| shows_run(r))
                .and_then(|r| r.stderr_tail.clone()),
            checkers,
            refutation: p.refutation.clone(),
            explanation: explanation(l, p, run.and_then(|r| r.core.as_deref())),
        });
    }
    Ok(out)
}

/// [`crate::explain::for_pair`] of a refuted pair, placed in the
/// campaign's own copy of the benchmark.
fn explanation(l: &Loaded, p: &PairVerdict, core: Option<&[String]>) -> Vec<String> {
    let (Some(core), Some(b)) = (core, l.bench(&p.pair.benchmark)) else {
        return Vec::new();
    };
    let c = l.campaign;
    let source = c.benchmarks.join(&b.id);
    let lines = crate::selfcheck::inputs::assertion_lines(&source);
    let at = crate::explain::locator(&b.id, &lines);
    let never = std::sync::atomic::AtomicBool::new(false);
    let named = c.named_dir().join(&b.output);
    crate::explain::for_pair(c, p, core, &named, l.defs, &at, &never)
}

/// Whether the detail view shows the run itself: it failed (not a clean
/// exit, a timeout) or answered something other than `unsat`.
fn shows_run(r: &RunRecord) -> bool {
    r.answer != crate::answer::Answer::Unsat
        || r.timed_out
        || !matches!(r.exit, crate::runner::Exit::Exited(0))
}

/// The solver's command as run, from the campaign folder (its provenance).
fn solver_command(r: &RunRecord) -> Option<String> {
    let words = &r.provenance.as_ref()?.command;
    Some(shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" ")))
}

/// A value's kebab-case serde name (`sat`, `no-answer`, `not-applicable`).
fn label<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The shell command that repeats a checker's run on a core, from the
/// campaign folder (the core file it got: its dialect's variant when one
/// was written, else the plain one).
fn command(def: &SolverDef, hash: &str, l: &Loaded) -> String {
    let c = l.campaign;
    // The checker got its dialect's variant when the core needed one (the
    // variant was written then), else the plain core.
    let file = Dialect::new(def.accepts_named, &def.unsupported_commands)
        .map(|d| format!("cores/{hash}.{}.smt2", d.id()))
        .filter(|variant| c.dir.join(variant).is_file())
        .unwrap_or_else(|| format!("cores/{hash}.smt2"));
    let (program, args) = def.command(&Invocation {
        file: Path::new(&file),
        timeout: c.checker_time,
        seed: 0,
        memory_mb: c.memory.map(|m| m / (1024 * 1024)),
        want_cores: false,
    });
    let words: Vec<String> = std::iter::once(program.to_string_lossy().into_owned())
        .chain(args)
        .collect();
    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
}
