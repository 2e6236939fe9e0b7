//! What `coreval run` and `coreval check` print about the judged pairs
//! ([`Tally`]): verdict counts, per solver and per kind, certified
//! refutations, disputes, pending checks and the failures that set the
//! exit code. The reports' stamp ([`super`]) keeps it,
//! so that a `run` whose reports are current prints it without judging
//! every pair again (at a million pairs, judging is most of the cost of a
//! run with nothing to do).

use crate::campaign::verdict::certification::Refutation;
use crate::campaign::verdict::pair::{PairVerdict, Verdict};
use crate::incremental::verdict::IncrementalPair;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The verdict counts of the judged pairs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Pairs judged (the incremental ones aside).
    pub pairs: usize,
    /// Pairs per verdict kind (`validated`, `ill-formed`, `sat-answer`…:
    /// the `kind` of `pairs.jsonl`).
    pub kinds: BTreeMap<String, usize>,
    /// Per solver, pairs per verdict label (`ill-formed:unknown-name`…).
    pub per_solver: BTreeMap<String, BTreeMap<String, usize>>,
    /// Pairs whose verdict is a failure (a wrong answer).
    pub failures: usize,
    /// Refuted cores whose refutation is certified (a model checked).
    #[serde(default)]
    pub certified: usize,
    /// Pairs whose checkers disagree: benchmark, solver, the answers.
    #[serde(default)]
    pub disputed: Vec<(String, String, String)>,
    /// Pairs still waiting for checks.
    #[serde(default)]
    pub pending: usize,
    /// The incremental pairs whose verdict is a failure.
    #[serde(default)]
    pub incremental_failures: Vec<IncrementalFailure>,
}

/// An incremental pair judged a failure, as `run` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IncrementalFailure {
    pub solver: String,
    pub benchmark: String,
    pub label: String,
    pub line: Option<u64>,
}

impl Tally {
    /// The counts of judged pairs and incremental pairs.
    pub fn of(pairs: &[PairVerdict], incremental: &[IncrementalPair]) -> Tally {
        let verdicts = pairs
            .iter()
            .map(|p| (p.pair.solver.as_ref(), &p.pair.verdict));
        let mut t = Tally::count(verdicts);
        for p in pairs {
            t.certified += usize::from(
                p.pair.verdict == Verdict::Refuted
                    && p.details.refutation == Some(Refutation::Certified),
            );
            t.pending += usize::from(p.pending);
            if p.disputed {
                let answers = format!("{:?}", p.checkers);
                t.disputed.push((
                    p.pair.benchmark.to_string(),
                    p.pair.solver.to_string(),
                    answers,
                ));
            }
        }
        t.incremental_failures = incremental
            .iter()
            .filter(|p| p.verdict.is_failure())
            .map(|p| IncrementalFailure {
                solver: p.solver.clone(),
                benchmark: p.benchmark.clone(),
                label: p.verdict.label(),
                line: p.line,
            })
            .collect();
        t
    }

    /// The counts of (solver, verdict) pairs.
    fn count<'a>(verdicts: impl Iterator<Item = (&'a str, &'a Verdict)>) -> Tally {
        let mut t = Tally::default();
        // The kind is the verdict's serialized tag: found once per label.
        let mut kind_of: HashMap<String, String> = HashMap::new();
        for (solver, v) in verdicts {
            t.pairs += 1;
            let label = v.label();
            let kind = kind_of.entry(label.clone()).or_insert_with(|| {
                serde_json::to_value(v)
                    .ok()
                    .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_string))
                    .unwrap_or_default()
            });
            *t.kinds.entry(kind.clone()).or_default() += 1;
            let per = match t.per_solver.get_mut(solver) {
                Some(s) => s,
                None => t.per_solver.entry(solver.to_string()).or_default(),
            };
            *per.entry(label).or_default() += 1;
            t.failures += usize::from(v.is_failure());
        }
        t
    }

    /// Whether a pair or an incremental pair failed.
    pub fn failed(&self) -> bool {
        self.failures > 0 || !self.incremental_failures.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_kind_per_solver_and_failures() {
        let pairs = [
            ("a", Verdict::Validated),
            ("a", Verdict::SatAnswer),
            ("b", Verdict::Validated),
        ];
        let t = Tally::count(pairs.iter().map(|(s, v)| (*s, v)));
        assert_eq!(t.pairs, 3);
        assert_eq!(t.kinds["validated"], 2);
        assert_eq!(t.kinds["sat-answer"], 1);
        assert_eq!(t.per_solver["a"]["sat"], 1);
        assert_eq!(t.per_solver["b"]["validated"], 1);
        assert_eq!(t.failures, 1);
        assert!(t.failed());
        let text = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Tally>(&text).unwrap(), t);
    }
}
