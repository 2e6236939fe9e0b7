//! The sentences of a selfcheck result: the verdict of a run without an
//! answer, each checker's vote, the references' answers, the names that
//! make a core ill-formed, and long solver texts cut for one line.

use super::{Outcome, OUTPUT_FAULTS, REFERENCE_PREFIX};
use crate::answer::Answer;
use crate::campaign::ledger::index::IndexEntry;
use crate::campaign::ledger::records::{exit_text, RunRecord};
use crate::campaign::verdict::pair::{PairVerdict, RunStatus};
use crate::campaign::verdict::policy::CheckAnswer;
use std::collections::HashSet;

/// The verdict of a run without an answer.
pub(super) fn no_answer(run: &RunRecord, status: RunStatus) -> (Outcome, String, String) {
    if status == RunStatus::Timeout || run.timed_out {
        let late = run
            .late_answer
            .map(|a| format!(" ({} printed too late)", answer_word(a)))
            .unwrap_or_default();
        return (
            Outcome::Skipped,
            "timeout".into(),
            format!("timeout after {:.1} s{late}", run.wall),
        );
    }
    if status == RunStatus::Memout || run.memout {
        return (Outcome::Skipped, "memout".into(), "out of memory".into());
    }
    let faults: Vec<&str> = run
        .flags
        .iter()
        .map(String::as_str)
        .filter(|f| OUTPUT_FAULTS.contains(f))
        .collect();
    if !faults.is_empty() {
        return (
            Outcome::Failed,
            "ill-formed-output".into(),
            format!(
                "the output is not an SMT-LIB answer ({}; {})",
                faults.join(", "),
                exit_text::format(&run.exit)
            ),
        );
    }
    if run.answer == Answer::Error {
        return (
            Outcome::Skipped,
            "error".into(),
            format!("error: {}", shorten(&run.errors.join("; "))),
        );
    }
    (
        Outcome::Skipped,
        "no-answer".into(),
        format!("no answer ({})", exit_text::format(&run.exit)),
    )
}

pub(crate) fn answer_word(a: Answer) -> &'static str {
    match a {
        Answer::Sat => "sat",
        Answer::Unsat => "unsat",
        Answer::Unknown => "unknown",
        Answer::Timeout => "timeout",
        Answer::Error => "error",
        Answer::NoAnswer => "no answer",
    }
}

/// `cvc5 sat, yices unsat, z3 timeout`: each checker's vote, and for a
/// checker that cast none, what it printed (`unknown`, `timeout`, `error`,
/// `no answer`, or `unsat (not counted)` for an answer after an error).
pub(super) fn answers_text(v: &PairVerdict) -> String {
    let parts: Vec<String> = v
        .checkers
        .iter()
        .map(|(k, a)| {
            let w = match a {
                CheckAnswer::Sat => "sat".to_string(),
                CheckAnswer::Unsat => "unsat".to_string(),
                CheckAnswer::Other => match v.details.raw_answers.get(k) {
                    Some(raw @ (Answer::Sat | Answer::Unsat)) => {
                        format!("{} (not counted)", answer_word(*raw))
                    }
                    Some(raw) => answer_word(*raw).to_string(),
                    None => "no answer".to_string(),
                },
                CheckAnswer::NotApplicable => "not applicable".to_string(),
            };
            format!("{k} {w}")
        })
        .collect();
    parts.join(", ")
}

/// What the reference solvers made of a benchmark: `z3 unsat (validated), cvc5 sat`.
pub(super) fn reference_answers(refs: &[&PairVerdict]) -> String {
    if refs.is_empty() {
        return "none ran".into();
    }
    let parts: Vec<String> = refs
        .iter()
        .map(|p| {
            let name = p
                .pair
                .solver
                .strip_prefix(REFERENCE_PREFIX)
                .unwrap_or(&p.pair.solver);
            format!("{name} {}", p.pair.verdict.label())
        })
        .collect();
    parts.join(", ")
}

/// The names of a core that make it ill-formed.
pub(super) fn offending(run: &RunRecord, entry: &IndexEntry) -> String {
    let Some(core) = &run.core else {
        return match run.core_problem {
            Some(p) => p.to_string(),
            None => "no names".into(),
        };
    };
    if core.is_empty() {
        return "the core is empty".into();
    }
    let top: HashSet<String> = entry.top_level_names().into_iter().collect();
    let nested: HashSet<&str> = entry.nested_names.iter().map(String::as_str).collect();
    let mut count: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for n in core {
        *count.entry(n.as_str()).or_insert(0) += 1;
    }
    let mut seen = HashSet::new();
    let mut parts = Vec::new();
    for n in core {
        let shown = crate::smtlib::symbol::quote(n);
        if !seen.insert(n.as_str()) {
            continue;
        }
        match count[n.as_str()] {
            1 => {}
            2 => parts.push(format!("{shown} listed twice")),
            k => parts.push(format!("{shown} listed {k} times")),
        }
        if nested.contains(n.as_str()) {
            parts.push(format!("{shown} names a nested term"));
        } else if !top.contains(n) {
            parts.push(format!("{shown} is not an assertion name"));
        }
    }
    shorten(&parts.join(", "))
}

/// The reasons that make a script incremental (checked by another stage
/// one day, skipped here).
pub(super) fn is_incremental(r: &crate::benchmark::Reason) -> bool {
    use crate::benchmark::Reason;
    matches!(
        r,
        Reason::PushPop | Reason::SeveralCheckSat { .. } | Reason::CheckSatAssuming | Reason::Reset
    )
}

/// Cut long solver texts for one-line reports.
pub(super) fn shorten(s: &str) -> String {
    const MAX: usize = 300;
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX).collect();
    format!("{cut}…")
}
