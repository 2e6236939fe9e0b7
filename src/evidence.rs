//! Evidence for every pair: its run and the command that repeats it, its
//! core, the core-only benchmark's path (relative to the campaign folder,
//! so the folder can be zipped and shared) and every checker's run on it —
//! version, answer, how it counted (or that it was left out), exit, the
//! first lines it printed, the model it printed when asked and the exact
//! command that repeats it. Built from the journals after judging, one pair
//! at a time by [`Evidence::of`] (the report's detail views and `coreval
//! show` both come from it, and a report can build them as it needs them).

use crate::campaign::ledger::records::{exit_text, CheckRecord, RunRecord};
use crate::campaign::ledger::Loaded;
use crate::campaign::verdict::pair::{CheckerEvidence, PairEvidence, PairVerdict};
use crate::checkers::{Invocation, SolverDef};
use crate::rebuild::Dialect;
use anyhow::Result;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Bytes of a model shown in a detail view (the file holds all of it).
const MODEL_SHOWN: usize = 2000;

/// What the evidence of a pair is built from: the current records, read
/// once for any number of pairs.
pub struct Evidence<'l> {
    l: &'l Loaded<'l>,
    runs: HashMap<(String, String), RunRecord>,
    checks_of: HashMap<String, Vec<CheckRecord>>,
}

impl<'l> Evidence<'l> {
    /// Read the current runs and checker answers of `pairs` (streamed: at
    /// a million pairs the report shows a few thousand, and only their
    /// records are kept).
    pub fn load(l: &'l Loaded<'l>, pairs: &[&PairVerdict]) -> Result<Self> {
        let wanted: HashSet<(&str, &str)> = pairs
            .iter()
            .map(|p| (p.pair.solver.as_ref(), p.pair.benchmark.as_ref()))
            .collect();
        let hashes: HashSet<&str> = pairs
            .iter()
            .filter_map(|p| p.core_hash.as_deref())
            .collect();
        let mut runs = HashMap::new();
        let wanted = |s: &str, b: &str| wanted.contains(&(s, b));
        crate::campaign::ledger::current::for_each_run_of(l, &wanted, |r| {
            // The first record of a pair counts, as in the verdicts.
            runs.entry((r.solver.clone(), r.benchmark.clone()))
                .or_insert(r);
        })?;
        let mut checks_of: HashMap<String, Vec<CheckRecord>> = HashMap::new();
        for k in crate::campaign::ledger::current::checks(l)? {
            if hashes.contains(k.hash.as_str()) {
                checks_of.entry(k.hash.clone()).or_default().push(k);
            }
        }
        Ok(Evidence { l, runs, checks_of })
    }

    /// The evidence of one judged pair.
    pub fn of(&self, p: &PairVerdict) -> PairEvidence {
        let l = self.l;
        let run = self
            .runs
            .get(&(p.pair.solver.to_string(), p.pair.benchmark.to_string()));
        let core_file = p.core_hash.as_ref().map(|h| format!("cores/{h}.smt2"));
        let mut checkers = Vec::new();
        if let Some(h) = &p.core_hash {
            // One entry per checker: the newest record (a re-run replaces).
            let mut latest: HashMap<&str, &CheckRecord> = HashMap::new();
            for k in self.checks_of.get(&**h).into_iter().flatten() {
                latest.insert(k.checker.as_str(), k);
            }
            let mut names: Vec<&str> = latest.keys().copied().collect();
            names.sort_unstable();
            for name in names {
                checkers.push(self.checker(p, h, latest[name]));
            }
        }
        let named_file = l
            .bench(&p.pair.benchmark)
            .map(|e| format!("named/{}", e.output));
        PairEvidence {
            solver: p.pair.solver.to_string(),
            benchmark: p.pair.benchmark.to_string(),
            verdict: p.pair.verdict.clone(),
            disputed: p.disputed,
            pending: p.pending,
            answer: run.map_or_else(String::new, |r| label(&r.answer)),
            exit: run.map_or_else(String::new, |r| exit_text::format(&r.exit)),
            flags: p.flags.clone(),
            core: run.and_then(|r| r.core.clone()),
            assertions: p.pair.assertions,
            core_file,
            command: run.and_then(|r| solver_command(&l.current, r)),
            to_look_at: p.needs_evidence(),
            named_file,
            errors: run
                .filter(|r| shows_run(r))
                .map(|r| r.errors.clone())
                .unwrap_or_default(),
            stderr: run
                .filter(|r| shows_run(r))
                .and_then(|r| r.stderr_tail.clone()),
            checkers,
            refutation: p.details.refutation,
            explanation: explanation(l, p, run.and_then(|r| r.core.as_deref())),
        }
    }

    /// One checker's run on pair `p`'s core `h`.
    fn checker(&self, p: &PairVerdict, h: &str, k: &CheckRecord) -> CheckerEvidence {
        let l = self.l;
        let name = k.checker.as_str();
        // As the verdict counted it; a checker none of the pair's (the
        // solver's own team) is shown left out, never counted.
        let (counted, note) = match p.checkers.get(name) {
            Some(a) => (
                label(a),
                k.note
                    .clone()
                    .or_else(|| p.details.not_counted.get(name).cloned()),
            ),
            None => (
                crate::campaign::verdict::pair::LEFT_OUT.to_string(),
                p.details.not_counted.get(name).cloned(),
            ),
        };
        let model = k
            .model
            .as_ref()
            .and_then(|m| std::fs::read(l.campaign.dir.join(m)).ok())
            .map(|bytes| {
                let text = String::from_utf8_lossy(&bytes);
                match text.char_indices().nth(MODEL_SHOWN) {
                    Some((cut, _)) => format!("{}\n… ({} bytes in all)", &text[..cut], bytes.len()),
                    None => text.into_owned(),
                }
            });
        CheckerEvidence {
            checker: k.checker.clone(),
            version: k.version.clone(),
            answer: label(&k.raw),
            counted,
            exit: exit_text::format(&k.exit),
            wall: k.wall,
            cached: k.cached,
            note,
            output: k.output.clone(),
            command: l
                .defs
                .iter()
                .find(|d| d.name == name)
                .map(|d| command(d, h, l))
                .unwrap_or_else(|| "(no definition of this checker here)".into()),
            certification: p.details.certifications.get(name).map(|c| c.describe()),
            model_file: k.model.clone(),
            model,
        }
    }
}

/// The evidence of the pairs of `pairs` the report shows, in their order:
/// every pair that did not pass (the report lists them), then at most
/// `passing` of the others (a campaign of a million pairs is not held in
/// memory twice).
pub fn collect(l: &Loaded, pairs: &[PairVerdict], passing: usize) -> Result<Vec<PairEvidence>> {
    let look = pairs.iter().filter(|p| p.needs_evidence());
    let rest = pairs.iter().filter(|p| !p.needs_evidence()).take(passing);
    let shown: Vec<&PairVerdict> = look.chain(rest).collect();
    let ev = Evidence::load(l, &shown)?;
    Ok(shown.into_iter().map(|p| ev.of(p)).collect())
}

/// [`crate::explain::for_pair`] of a refuted pair, placed in the
/// campaign's own copy of the benchmark.
fn explanation(l: &Loaded, p: &PairVerdict, core: Option<&[String]>) -> Vec<String> {
    let (Some(core), Some(b)) = (core, l.bench(&p.pair.benchmark)) else {
        return Vec::new();
    };
    let c = l.campaign;
    let source = c.benchmarks.join(b.id.as_str());
    let lines = crate::explain::assertion_lines(&source);
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
fn solver_command(
    current: &crate::campaign::ledger::provenance::Current,
    r: &RunRecord,
) -> Option<String> {
    let p = current.inline(r.provenance.as_deref()?, Some(&r.benchmark))?;
    let words = &p.command;
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
