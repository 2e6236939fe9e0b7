//! One benchmark's result in `coreval selfcheck`: the campaign's verdict on
//! the author's (solver, benchmark) pair, read as a test outcome.
//!
//! | outcome | when |
//! |---|---|
//! | passed | core validated; `sat` on a benchmark declared `sat` |
//! | failed | core refuted or ill-formed; output that contradicts itself (a second, different answer or core) or a failure (exit code, signal) after the answer, whatever the first answer was worth; `unsat` without a core; a `sat` answer (unless declared `sat`); `unsat` on a benchmark declared `sat`; output that is not an answer (garbage); a benchmark that cannot be named (malformed, or outside what a core run allows) |
//! | skipped | no answer (timeout, memory out, crash, silence, an `(error …)`), `unknown`, a core no independent checker said `unsat` to (even where the 2016–2023 policies count it validated), no independent checker for the logic |
//!
//! `--strict` turns every skipped outcome into a failure. Next to the
//! author's reduction goes the best *validated* reduction any reference
//! solver (an installed checker that produces cores) reached.

use crate::answer::Answer;
use crate::campaign::ledger::index::IndexEntry;
use crate::campaign::ledger::index::Outcome as NameOutcome;
use crate::campaign::ledger::records::{exit_text, RunRecord};
use crate::campaign::verdict::minimality::{Minimality, Status};
use crate::campaign::verdict::pair::PairVerdict;
use crate::campaign::verdict::pair::{Contradiction, IllFormed, Verdict};
use crate::campaign::verdict::policy::CheckAnswer;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

use super::inputs::Input;

mod texts;
pub(super) use texts::answer_word;
use texts::{answers_text, is_incremental, no_answer, offending, reference_answers, shorten};

/// Prefix of the reference solvers' names in the temporary campaign.
pub const REFERENCE_PREFIX: &str = "ref-";

/// A benchmark's test outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Passed,
    Failed,
    Skipped,
}

/// The best validated reduction among the reference solvers, or (not
/// `checked`) the word that none of their cores was smaller than the
/// author's validated one: those are not checked
/// (`[[solver]] reference`), as they could change nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reference {
    /// The checker definition that reached it (not `checked`: the
    /// reference whose core came closest).
    pub solver: String,
    /// Its reduction (not `checked`: what it would be, were the core valid).
    pub reduction: u64,
    pub checked: bool,
}

/// Everything reported about one benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    /// The benchmark as given.
    pub path: String,
    pub logic: Option<String>,
    /// The declared `:status`.
    pub declared: Option<String>,
    /// A: named top-level assertions.
    pub assertions: u64,
    pub outcome: Outcome,
    /// Short label: `validated`, `refuted`, `ill-formed:unknown-name`, `sat`,
    /// `unsat-on-sat`, `ill-formed-output`, `timeout`, `malformed`…
    pub verdict: String,
    /// One sentence per fact behind the verdict (the JUnit message is the first).
    pub details: Vec<String>,
    pub core_size: Option<u64>,
    /// The names the solver printed after `unsat`, when it printed a core.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core: Option<Vec<String>>,
    /// A − core size, for a validated (or undecided) core.
    pub reduction: Option<u64>,
    pub best: Option<Reference>,
    /// Wall-clock seconds of the author's run.
    pub time: Option<f64>,
    /// Checker → answer on the author's core.
    pub checkers: BTreeMap<String, CheckAnswer>,
    /// With `--minimality`: the validated core's minimality.
    pub minimality: Option<Minimality>,
    /// The benchmark's best-known core (validated), the reference.
    pub best_known: Option<crate::campaign::verdict::minimality::Reference>,
}

impl BenchResult {
    /// A result before its verdict: skipped, nothing known but the path,
    /// the logic and the number of assertions.
    pub fn blank(path: &str, logic: Option<String>, assertions: u64) -> BenchResult {
        BenchResult {
            path: path.to_string(),
            logic,
            declared: None,
            assertions,
            outcome: Outcome::Skipped,
            verdict: String::new(),
            details: Vec::new(),
            core_size: None,
            core: None,
            reduction: None,
            best: None,
            time: None,
            checkers: BTreeMap::new(),
            minimality: None,
            best_known: None,
        }
    }
}

/// `minimal`, `redundant: P3, P5` or `minimality unknown`.
pub fn minimality_text(m: &Minimality) -> String {
    match m.status {
        Status::Minimal => "minimal".into(),
        Status::Redundant => format!("redundant: {}", m.redundant.join(", ")),
        Status::Unknown => "minimality unknown".into(),
    }
}

/// Output flags that mean the solver printed something that is not an
/// answer at all.
const OUTPUT_FAULTS: &[&str] = &[
    "garbage-lines",
    "invalid-utf8",
    "unterminated",
    "malformed-core",
    "core-before-answer",
];

/// What the author's pair needs besides its verdict.
pub struct Pair<'a> {
    pub verdict: &'a PairVerdict,
    pub run: &'a RunRecord,
    /// No independent checker supports the benchmark's logic.
    pub no_checker: bool,
}

/// The result of one benchmark; `author` is `None` when the benchmark was
/// not named (or, after an interruption, not run).
pub fn classify(
    input: &Input,
    entry: &IndexEntry,
    author: Option<Pair>,
    refs: &[&PairVerdict],
    policy: &str,
    strict: bool,
) -> BenchResult {
    let mut r = BenchResult::blank(&input.shown, entry.logic.clone(), entry.assertions as u64);
    r.declared = entry.status.clone();
    r.best = best_reference(refs);
    let Some(pair) = author else {
        unnamed(&mut r, input, entry);
        return finish(r, strict);
    };
    let (p, run) = (&pair.verdict.pair, pair.run);
    if let (None, Verdict::Validated, Some(k)) = (&r.best, &p.verdict, p.core_size) {
        r.best = no_smaller_reference(refs, k);
    }
    r.time = Some(run.wall);
    r.core_size = p.core_size;
    r.core = run.core.clone();
    r.checkers = (*pair.verdict.checkers).clone();
    let (outcome, label, detail) = judged(&mut r, &pair, entry, refs, policy);
    r.outcome = outcome;
    r.verdict = label;
    r.details.push(detail);
    r.details.extend(
        pair.verdict
            .details
            .certifications
            .iter()
            .map(|(k, c)| format!("{k}'s sat: {}", c.describe())),
    );
    // A reduction is shown for a validated core only.
    if outcome == Outcome::Passed && p.verdict == Verdict::Validated {
        r.reduction = p.core_size.map(|k| p.assertions.saturating_sub(k));
    }
    if entry.status.as_deref() == Some("sat") && run.answer == Answer::Unsat && !run.timed_out {
        r.outcome = Outcome::Failed;
        r.verdict = "unsat-on-sat".into();
        r.details
            .insert(0, "unsat on a benchmark declared sat".into());
    }
    contradiction(&mut r, p.contradiction, run);
    output_notes(&mut r, run, p.contradiction.is_some());
    beyond(&mut r, pair.verdict);
    finish(r, strict)
}

/// A benchmark without a run: not named (malformed, not usable, an
/// incremental script naming refused), or not run (interrupted).
fn unnamed(r: &mut BenchResult, input: &Input, entry: &IndexEntry) {
    // An assert after the first check-sat comes with several of them.
    let incremental = entry.outcome == NameOutcome::Ineligible
        && entry.reasons.iter().any(|w| is_incremental(&w.reason))
        && entry.reasons.iter().all(|w| {
            is_incremental(&w.reason) || w.reason == crate::benchmark::Reason::AssertAfterCheckSat
        });
    let (label, why) = match entry.outcome {
        _ if incremental => (
            "incremental",
            "is an incremental script (push/pop, several check-sat, check-sat-assuming): \
             selfcheck does not check those yet",
        ),
        NameOutcome::Malformed => ("malformed", "is not valid SMT-LIB"),
        NameOutcome::Failed => ("unreadable", "could not be named"),
        NameOutcome::Ineligible => ("not-usable", "cannot be run for a core"),
        NameOutcome::Named => ("not-run", "was not run (interrupted)"),
    };
    r.verdict = label.into();
    r.outcome = if entry.outcome == NameOutcome::Named || incremental {
        Outcome::Skipped
    } else {
        Outcome::Failed
    };
    r.details.push(format!("the benchmark {why}"));
    let shown = Path::new(&input.shown);
    r.details.extend(
        entry
            .reasons
            .iter()
            .map(|why| why.in_file_for(shown, crate::benchmark::Settings::Selfcheck)),
    );
    r.details
        .extend(entry.error.iter().map(|e| format!("{}: {e}", input.shown)));
}

/// The outcome, label and first detail of the pair's verdict.
fn judged(
    r: &mut BenchResult,
    pair: &Pair,
    entry: &IndexEntry,
    refs: &[&PairVerdict],
    policy: &str,
) -> (Outcome, String, String) {
    let p = &pair.verdict.pair;
    let answers = || answers_text(pair.verdict);
    let decided = pair
        .verdict
        .checkers
        .values()
        .any(|a| *a == CheckAnswer::Unsat);
    let logic = || entry.logic.as_deref().unwrap_or("the logic").to_string();
    match &p.verdict {
        // The 2016–2023 policies accept a core nobody refuted; selfcheck
        // calls a core validated only when an independent checker said unsat.
        Verdict::Validated if !decided && pair.no_checker => (
            Outcome::Skipped,
            "no-checker".into(),
            format!("no independent checker supports {}", logic()),
        ),
        Verdict::Validated if !decided => (
            Outcome::Skipped,
            "undecided".into(),
            format!(
                "no independent checker said unsat: {} ({policy} would count the core as validated; selfcheck does not)",
                if pair.verdict.checkers.is_empty() { "none answered".into() } else { answers() }
            ),
        ),
        Verdict::Validated => (Outcome::Passed, p.verdict.label(), format!("core validated: {} ({policy})", answers())),
        Verdict::Refuted => {
            // An uncertified refutation is marked as such (docs/organizers.md, "Certified refutations").
            let cert = pair.verdict.details.refutation.unwrap_or(crate::campaign::verdict::certification::Refutation::Uncertified).label();
            (Outcome::Failed, p.verdict.label(), format!("core refuted ({cert}): {} ({policy})", answers()))
        }
        Verdict::NotValidated if pair.no_checker => (
            Outcome::Skipped,
            "no-checker".into(),
            format!("no independent checker supports {}", logic()),
        ),
        Verdict::NotValidated => (
            Outcome::Skipped,
            p.verdict.label(),
            format!("no checker decided: {} ({policy})", if pair.verdict.checkers.is_empty() { "none answered".into() } else { answers() }),
        ),
        Verdict::IllFormed { reason } => {
            // Names that are not assertions' make `K/A` meaningless (`3/2`):
            // the line shows `-/A`, the detail how many names were printed.
            let printed = match (reason, p.core_size) {
                (IllFormed::Empty, _) | (_, None) => String::new(),
                (_, Some(k)) => {
                    r.core_size = None;
                    format!("{k} name(s) printed: ")
                }
            };
            (Outcome::Failed, p.verdict.label(), format!("ill-formed core ({}): {printed}{}", reason.label(), offending(pair.run, entry)))
        }
        Verdict::UnsatNoCore => (Outcome::Failed, p.verdict.label(), "unsat, but no core was printed after it".into()),
        Verdict::SatAnswer | Verdict::SatUnconfirmed => sat_answer(r, Verdict::SatAnswer.label(), entry, refs),
        Verdict::Unknown => (Outcome::Skipped, p.verdict.label(), "the solver answered unknown".into()),
        Verdict::NoAnswer | Verdict::Unchecked => no_answer(pair.run, p.status),
    }
}

/// A `sat` answer: against the declared status, else what the references
/// made of the benchmark.
fn sat_answer(
    r: &BenchResult,
    label: String,
    entry: &IndexEntry,
    refs: &[&PairVerdict],
) -> (Outcome, String, String) {
    match (entry.status.as_deref(), &r.best) {
        // A reference's validated core shows the declared status is wrong.
        (Some("sat"), Some(b)) => (
            Outcome::Failed,
            label,
            format!("sat, as declared, but {} printed an unsat core the checkers validated: the benchmark is unsat", b.solver),
        ),
        (Some("sat"), None) => (Outcome::Passed, "sat".into(), "sat, as declared (no core to check)".into()),
        (Some("unsat"), _) => (
            Outcome::Failed,
            label,
            "sat on a benchmark declared unsat".to_string(),
        ),
        // No status to compare with: the references decide.
        (_, Some(b)) => (
            Outcome::Failed,
            label,
            format!("sat, but {} printed an unsat core the checkers validated: the benchmark is unsat", b.solver),
        ),
        (_, None) if refs.iter().any(|v| matches!(v.pair.verdict, Verdict::SatAnswer | Verdict::SatUnconfirmed)) => (
            Outcome::Passed,
            "sat-confirmed".into(),
            format!(
                "sat, confirmed by the reference solvers ({}): a satisfiable benchmark, no core to check",
                reference_answers(refs)
            ),
        ),
        (_, None) => (
            Outcome::Skipped,
            "sat-unconfirmed".into(),
            format!(
                "sat on a benchmark without :status, and no reference solver said sat ({}): nothing to check",
                reference_answers(refs)
            ),
        ),
    }
}

/// A solver that contradicted itself, or failed after its answer: the
/// answer earns nothing.
fn contradiction(r: &mut BenchResult, k: Option<Contradiction>, run: &RunRecord) {
    let Some(k) = k else { return };
    let has = |f: &str| run.flags.iter().any(|x| x == f);
    let why = match k {
        Contradiction::Output if has("answers-disagree") => {
            "the solver contradicted itself: another answer followed its first".to_string()
        }
        Contradiction::Output => {
            "the solver contradicted itself: a second, different core followed the first"
                .to_string()
        }
        Contradiction::FailedAfterAnswer => format!(
            "the solver failed after its answer ({})",
            exit_text::format(&run.exit)
        ),
    };
    r.reduction = None;
    if r.outcome == Outcome::Failed {
        r.details.push(why);
    } else {
        r.outcome = Outcome::Failed;
        r.verdict = k.label().into();
        r.details
            .insert(0, format!("{why}; the answer earns nothing"));
    }
}

/// What the run's output flags and errors add: a cut output, an answer or
/// a core on stderr, the errors printed.
fn output_notes(r: &mut BenchResult, run: &RunRecord, contradicted: bool) {
    let flags: Vec<&str> = run
        .flags
        .iter()
        .map(String::as_str)
        .filter(|f| !OUTPUT_FAULTS.contains(f) || run.answer != Answer::NoAnswer)
        .collect();
    if !flags.is_empty() {
        r.details
            .push(format!("output flags: {}", flags.join(", ")));
    }
    let has = |f: &str| run.flags.iter().any(|x| x == f);
    if has("truncated") && r.outcome != Outcome::Passed {
        let why = format!(
            "the output was cut at the output cap ({} bytes beyond it dropped): the core line is incomplete; \
             raise the cap with --output-cap MB",
            run.stdout_dropped
        );
        // `unsat` and a cut core: nothing to judge, not a wrong core.
        let cut_core = run.answer == Answer::Unsat && run.core.is_none();
        if cut_core && r.outcome == Outcome::Failed && !contradicted {
            r.outcome = Outcome::Skipped;
            r.verdict = "truncated-output".into();
            r.reduction = None;
        }
        r.details.insert(0, why);
    }
    if has("answer-on-stderr") {
        r.details.push(
            "the answer is on stderr: run with --answer-stream stderr (or both) to read it there"
                .into(),
        );
        // SMT-LIB answers go to stdout (`:regular-output-channel`): an
        // answer seen only on stderr is the solver's fault, named as such,
        // not "nothing could be judged".
        if r.outcome == Outcome::Skipped && !contradicted {
            r.outcome = Outcome::Failed;
            r.verdict = "answer-on-stderr".into();
        }
    }
    if has("core-on-stderr") {
        r.details.push(
            "unsat on stdout, and a core on stderr: run with --answer-stream both to read it there"
                .into(),
        );
    }
    if !run.errors.is_empty() && run.answer != Answer::Error {
        r.details.push(format!(
            "the solver printed errors: {}",
            shorten(&run.errors.join("; "))
        ));
    }
}

/// How the detail line of the best-known core starts.
pub const BEST_KNOWN_LINE: &str = "best-known core: ";

/// The detail line of best-known core `b` of a benchmark of `assertions`.
pub fn best_known_line(
    b: &crate::campaign::verdict::minimality::Reference,
    assertions: u64,
) -> String {
    format!(
        "{BEST_KNOWN_LINE}{} of {assertions} assertions, from {}",
        b.size, b.origin
    )
}

/// The best-known core and the minimality of the core, when known.
fn beyond(r: &mut BenchResult, v: &PairVerdict) {
    r.best_known = v.details.best_known.clone();
    if let Some(b) = &r.best_known {
        r.details.push(best_known_line(b, r.assertions));
    }
    r.minimality = v.details.minimality.clone();
    match &r.minimality {
        Some(m) if m.status == Status::Redundant => r.details.push(format!(
            "the core is not subset-minimal: each of {} can be removed on its own",
            m.redundant.join(", ")
        )),
        Some(m) if m.status == Status::Unknown => r.details.push(format!(
            "minimality unknown: the removal of {} was not decided (budget or checkers)",
            m.undecided.join(", ")
        )),
        Some(_) => r.details.push("the core is subset-minimal".into()),
        None => {}
    }
}

fn finish(mut r: BenchResult, strict: bool) -> BenchResult {
    if strict && r.outcome == Outcome::Skipped {
        r.outcome = Outcome::Failed;
        r.details.push("a failure under --strict".into());
    }
    r
}

/// Where the author's validated core has `size` names and no reference's
/// core was validated: the reference with the smallest core, when every
/// reference core is unchecked and no smaller (so not checked).
fn no_smaller_reference(refs: &[&PairVerdict], size: u64) -> Option<Reference> {
    let cores: Vec<(&PairVerdict, u64)> = refs
        .iter()
        .filter_map(|p| Some((*p, p.pair.core_size?)))
        .filter(|(p, _)| p.pair.verdict == Verdict::NotValidated)
        .collect();
    if cores.iter().any(|(p, k)| !p.pending || *k < size) {
        return None;
    }
    let (p, k) = cores.iter().min_by_key(|(p, k)| (*k, &p.pair.solver))?;
    Some(Reference {
        solver: reference_name(&p.pair.solver),
        reduction: p.pair.assertions.saturating_sub(*k),
        checked: false,
    })
}

fn reference_name(solver: &str) -> String {
    solver
        .strip_prefix(REFERENCE_PREFIX)
        .unwrap_or(solver)
        .to_string()
}

/// The largest validated reduction among the reference pairs (ties: the
/// first by name).
pub fn best_reference(refs: &[&PairVerdict]) -> Option<Reference> {
    let mut best: Option<Reference> = None;
    for p in refs {
        let (Verdict::Validated, Some(k)) = (&p.pair.verdict, p.pair.core_size) else {
            continue;
        };
        let reduction = p.pair.assertions.saturating_sub(k);
        let name = reference_name(&p.pair.solver);
        let better = match &best {
            None => true,
            Some(b) => reduction > b.reduction || (reduction == b.reduction && name < b.solver),
        };
        if better {
            best = Some(Reference {
                solver: name,
                reduction,
                checked: true,
            });
        }
    }
    best
}

#[cfg(test)]
mod tests;
