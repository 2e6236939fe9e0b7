//! The record every stage agrees on: what became of one (solver, benchmark)
//! pair. The check stage produces it from runs and checker answers, the
//! importers produce it from archives, the scorer consumes it.
//!
//! Fields added after the first version carry `#[serde(default)]`, so older
//! journals still read, and `PairRecord` implements `Default`, so producers can
//! write `PairRecord { solver, benchmark, .., ..Default::default() }`.

pub use super::policy::CheckerTally;
use super::policy::{CheckAnswer, Decision};
pub use crate::answer::IllFormed;
use crate::store::compact::{Cold, Name, Unset};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The verdict on one pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Verdict {
    /// `unsat` with a well-formed core that the checkers confirmed.
    Validated,
    /// `unsat` with a well-formed core that the checkers found satisfiable.
    Refuted,
    /// `unsat` with a well-formed core on which the checkers reached no
    /// decision that gives points (2025: no checker said unsat).
    NotValidated,
    /// `unsat` with a core that no checker has looked at yet (an imported
    /// run before the check stage). Scores e = 0, n = 0 and is flagged.
    Unchecked,
    /// `unsat` with a core that is not well formed.
    IllFormed { reason: IllFormed },
    /// `unsat` but no core printed (importers also use it for an archive's
    /// unreadable core that the archive itself did not count as an error).
    UnsatNoCore,
    /// The solver answered `sat` on a benchmark known to be unsat (its
    /// declared status, or a validated core of any solver on it).
    SatAnswer,
    /// The solver answered `sat` on a benchmark not known to be unsat (no
    /// declared status, or not `unsat`, and no validated core on it): no
    /// evidence against the answer, so no error; flagged and listed.
    SatUnconfirmed,
    /// The solver answered `unknown`.
    Unknown,
    /// No answer: crash, timeout, memory out, error or garbage.
    #[default]
    NoAnswer,
}

impl Verdict {
    /// A wrong answer: a refuted or ill-formed core, or `sat` on an unsat
    /// benchmark. What the exit code, the reports and the evidence list
    /// count as failures (docs/reference.md, "Exit codes"); a core `not-validated` is
    /// no failure (no checker decided: it earns nothing, but is not wrong).
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Verdict::Refuted | Verdict::IllFormed { .. } | Verdict::SatAnswer
        )
    }

    /// Short stable name, as used in CSV reports (`validated`, `refuted`,
    /// `ill-formed:unknown-name`, …).
    pub fn label(&self) -> String {
        match self {
            Verdict::Validated => "validated".into(),
            Verdict::Refuted => "refuted".into(),
            Verdict::NotValidated => "not-validated".into(),
            Verdict::Unchecked => "unchecked".into(),
            Verdict::IllFormed { reason } => format!("ill-formed:{}", reason.label()),
            Verdict::UnsatNoCore => "unsat-no-core".into(),
            Verdict::SatAnswer => "sat".into(),
            Verdict::SatUnconfirmed => "sat-unconfirmed".into(),
            Verdict::Unknown => "unknown".into(),
            Verdict::NoAnswer => "no-answer".into(),
        }
    }

    /// The verdict a label names ([`Verdict::label`]'s inverse).
    pub fn from_label(label: &str) -> Option<Verdict> {
        let plain = [
            Verdict::Validated,
            Verdict::Refuted,
            Verdict::NotValidated,
            Verdict::Unchecked,
            Verdict::UnsatNoCore,
            Verdict::SatAnswer,
            Verdict::SatUnconfirmed,
            Verdict::Unknown,
            Verdict::NoAnswer,
        ];
        let ill = IllFormed::ALL.map(|reason| Verdict::IllFormed { reason });
        plain.into_iter().chain(ill).find(|v| v.label() == label)
    }

    /// The verdict of an `unsat` answer with no readable core: ill-formed
    /// when the output began a core that is no list of symbols
    /// ([`crate::answer::ParsedOutput::core_problem`]), else no core at all.
    /// The one rule for runs (`judge`) and imported outputs.
    pub fn without_core(problem: Option<crate::answer::CoreProblem>) -> Verdict {
        match problem {
            Some(p) => Verdict::IllFormed { reason: p.reason },
            None => Verdict::UnsatNoCore,
        }
    }

    /// The verdict of a `sat` answer: an error only when the benchmark is
    /// known to be unsat (`known_unsat`: its status says so, or a core of
    /// it was validated), else [`Verdict::SatUnconfirmed`]. The one rule
    /// for runs, selfcheck and imports.
    pub fn of_sat(known_unsat: bool) -> Verdict {
        if known_unsat {
            Verdict::SatAnswer
        } else {
            Verdict::SatUnconfirmed
        }
    }

    /// True for the verdicts that rest on the checkers' answers, the ones a
    /// rules edition may re-judge from a [`CheckerTally`].
    pub fn is_checked_core(&self) -> bool {
        matches!(
            self,
            Verdict::Validated | Verdict::Refuted | Verdict::NotValidated
        )
    }
}

/// Serde of a verdict as its label (`refuted`, `ill-formed:unknown-name`):
/// the form of the per-pair rows and the evidence list (`#[serde(with =
/// "verdict_label")]`); journals keep the tagged form.
pub mod verdict_label {
    use super::Verdict;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Verdict, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.label())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Verdict, D::Error> {
        let label = String::deserialize(d)?;
        Verdict::from_label(&label)
            .ok_or_else(|| D::Error::custom(format!("no verdict is called {label:?}")))
    }
}

impl From<Decision> for Verdict {
    fn from(d: Decision) -> Self {
        match d {
            Decision::Validated => Self::Validated,
            Decision::Refuted => Self::Refuted,
            Decision::NotValidated => Self::NotValidated,
        }
    }
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

impl RunStatus {
    /// `complete`, `timeout` or `memout` (as serialised).
    pub fn label(self) -> &'static str {
        match self {
            RunStatus::Complete => "complete",
            RunStatus::Timeout => "timeout",
            RunStatus::Memout => "memout",
        }
    }
}

/// A run whose output contradicts itself, or that failed after answering:
/// it never scores more than the same answer given cleanly (docs/organizers.md,
/// "Contradictory output"; [`crate::score::pair::verdict_worth`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Contradiction {
    /// Two different answers (`unsat`, core, `sat`) or two different cores.
    #[serde(rename = "contradictory-output")]
    Output,
    /// A non-zero exit (other than 10/20 for sat/unsat) or a signal after
    /// the answer.
    FailedAfterAnswer,
}

impl Contradiction {
    /// `contradictory-output` or `failed-after-answer`.
    pub fn label(self) -> &'static str {
        match self {
            Contradiction::Output => "contradictory-output",
            Contradiction::FailedAfterAnswer => "failed-after-answer",
        }
    }

    /// From a run's output flags (journal names); the output takes precedence.
    pub fn from_flags(flags: &[String]) -> Option<Contradiction> {
        let has = |f: &str| flags.iter().any(|x| x == f);
        if has("answers-disagree") || has("cores-disagree") {
            Some(Contradiction::Output)
        } else if has("failed-after-answer") {
            Some(Contradiction::FailedAfterAnswer)
        } else {
            None
        }
    }
}

/// One (solver, benchmark) pair, ready to score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct PairRecord {
    /// Solver name as configured (or as named in an imported archive).
    pub solver: Name,
    /// Benchmark id: its path below the benchmark root.
    pub benchmark: Name,
    /// Division (the benchmark's logic).
    pub division: Name,
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
    /// Peak memory of the run in bytes (the run's max RSS, an archive's
    /// `memory_usage`); 0 where it is not known. Written by the exports
    /// ([`crate::export`]); a plain number, not an `Option`: a campaign
    /// holds a million records.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub memory: u64,
    /// The checkers' answers on the core, when they are known; a rules
    /// edition can re-judge the verdict from them (`coreval score --rejudge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<CheckerTally>,
    /// The core's names (normal forms, in the order printed), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<Box<[Name]>>,
    /// Where the record came from (`file:line` of an imported archive), for
    /// messages and the per-pair CSV.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Box<str>>,
    /// The run contradicted itself or failed after its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contradiction: Option<Contradiction>,
    /// The benchmark's expected status (`sat` or `unsat`) when the data
    /// states one (StarExec's `expected` column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Box<str>>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdicts_details_are_written_inline_and_boxed_only_when_set() {
        let plain = r#"{"solver":"s","benchmark":"b","division":"QF_UF","assertions":3,"core_size":2,"verdict":{"kind":"validated"},"status":"complete","cpu":1.0,"wall":2.0,"core":["a","b"],"checkers":{"z3":"unsat"},"disputed":false,"confirmed_by_own_team":false,"pending":false,"flags":[],"core_hash":"h","policy":"smtcomp-2025"}"#;
        let v: PairVerdict = serde_json::from_str(plain).unwrap();
        assert!(v.details.is_unset());
        assert_eq!(serde_json::to_string(&v).unwrap(), plain);
        let detailed = plain.replace(
            r#""policy":"smtcomp-2025"}"#,
            r#""policy":"smtcomp-2025","not_counted":{"cvc5":"left out: the solver's own team"},"minimality":{"status":"minimal","redundant":[]}}"#,
        );
        let mut v: PairVerdict = serde_json::from_str(&detailed).unwrap();
        assert!(!v.details.is_unset());
        assert_eq!(v.details.not_counted.len(), 1);
        assert_eq!(serde_json::to_string(&v).unwrap(), detailed);
        // Emptied through `DerefMut`, the box is let go of by `tidy`.
        v.details.not_counted.clear();
        v.details.minimality = None;
        v.details.tidy();
        assert!(v.details.is_unset());
        assert_eq!(serde_json::to_string(&v).unwrap(), plain);
    }

    #[test]
    fn records_of_the_first_layout_still_read() {
        let old = r#"{"solver":"s","benchmark":"b","division":"QF_UF","assertions":3,"core_size":2,
            "verdict":{"kind":"ill-formed","reason":"duplicate-name"},"status":"timeout","cpu":1.0,"wall":2.0}"#;
        let r: PairRecord = serde_json::from_str(old).unwrap();
        assert_eq!(r.verdict.label(), "ill-formed:duplicate-name");
        assert_eq!(r.status, RunStatus::Timeout);
        assert!(r.checks.is_none() && r.core.is_none() && r.origin.is_none());
        let back: PairRecord = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn every_label_names_its_verdict() {
        let ill = Verdict::IllFormed {
            reason: IllFormed::NestedName,
        };
        for v in [
            Verdict::Validated,
            Verdict::SatAnswer,
            Verdict::SatUnconfirmed,
            Verdict::NoAnswer,
            ill,
        ] {
            assert_eq!(Verdict::from_label(&v.label()), Some(v.clone()));
            let e = PairEvidence {
                verdict: v.clone(),
                ..Default::default()
            };
            let text = serde_json::to_string(&e).unwrap();
            assert!(
                text.contains(&format!("\"verdict\":\"{}\"", v.label())),
                "{text}"
            );
            let back: PairEvidence = serde_json::from_str(&text).unwrap();
            assert_eq!(back.verdict, v);
        }
        assert_eq!(Verdict::from_label("ill-formed:nonsense"), None);
        for s in [RunStatus::Complete, RunStatus::Timeout, RunStatus::Memout] {
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.label())
            );
        }
    }
}

/// A pair's verdict with the evidence behind it (`reports/pairs.jsonl`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PairVerdict {
    /// The scored record.
    #[serde(flatten)]
    pub pair: PairRecord,
    /// Checker name → its answer on this pair's core.
    pub checkers: std::sync::Arc<BTreeMap<String, CheckAnswer>>,
    /// Some checker said sat and another unsat.
    pub disputed: bool,
    /// A checker of the producing solver's team said unsat.
    pub confirmed_by_own_team: bool,
    /// Checks still missing: the verdict is provisional.
    pub pending: bool,
    /// Flags from the run (errors before the answer, truncated output…).
    pub flags: Vec<String>,
    /// Hash of the core-only benchmark, when one was built.
    pub core_hash: Option<std::sync::Arc<str>>,
    /// The decision policy used (one copy shared by a campaign's pairs).
    pub policy: std::sync::Arc<str>,
    /// What explains the verdict beyond the checkers' answers: unset on
    /// most pairs (boxed only when set), written inline like the fields
    /// above.
    #[serde(flatten)]
    pub details: Cold<Details>,
}

/// The rarely set parts of a [`PairVerdict`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Details {
    /// For a scrambled benchmark (`scramble_seed`): the core as 1-based
    /// positions of assertions in the original benchmark, in the order
    /// printed, read through the descrambling map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_core: Option<Vec<usize>>,
    /// What each checker that cast no vote (`other`) printed: `unknown`,
    /// `timeout`, `error`, `no-answer`, or an answer not counted.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub raw_answers: BTreeMap<String, crate::answer::Answer>,
    /// Why a checker's `sat`/`unsat` was not counted (an answer after an
    /// error, two answers, a failure after it, a `sat` without a model or
    /// with a rejected one), per checker; a checker that answered on the
    /// core but is none of this pair's says why it was left out
    /// (`left out: the solver's own team`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_counted: BTreeMap<String, String>,
    /// For a validated core tested with `[check] minimality`: `minimal`,
    /// `redundant` (with the members proven removable) or `unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimality: Option<crate::campaign::verdict::minimality::Minimality>,
    /// The benchmark's best-known core (`[check] best_known`), and this
    /// pair's gap to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_known: Option<crate::campaign::verdict::minimality::Reference>,
    /// Checker name → the certification of its `sat` on this core (docs/organizers.md,
    /// "Certified refutations").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub certifications: BTreeMap<String, crate::campaign::verdict::certification::Certification>,
    /// For a refuted core: `certified` when a `sat` that counted comes with
    /// a model that satisfies the core, else `uncertified`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refutation: Option<crate::campaign::verdict::certification::Refutation>,
}

static UNSET_DETAILS: Details = Details {
    original_core: None,
    raw_answers: BTreeMap::new(),
    not_counted: BTreeMap::new(),
    minimality: None,
    best_known: None,
    certifications: BTreeMap::new(),
    refutation: None,
};

impl Unset for Details {
    fn unset() -> &'static Self {
        &UNSET_DETAILS
    }
}

/// What the report's detail view and `coreval show` give of a pair (every
/// pair has one; those that did not pass are also listed to look at):
/// enough to explain the verdict and to re-run the solver and every
/// checker by hand.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PairEvidence {
    pub solver: String,
    pub benchmark: String,
    /// The verdict, written as its label (`refuted`, `ill-formed:unknown-name`, …).
    #[serde(with = "verdict_label")]
    pub verdict: Verdict,
    pub disputed: bool,
    pub pending: bool,
    /// The run's answer, how it ended and its output flags.
    pub answer: String,
    pub exit: String,
    pub flags: Vec<String>,
    /// The core as printed (normal form), when there was one.
    pub core: Option<Vec<String>>,
    /// The benchmark's number of named assertions.
    pub assertions: u64,
    /// The core-only benchmark, relative to the campaign folder.
    pub core_file: Option<String>,
    /// The solver's command as run (from the campaign folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Whether the pair did not pass ([`PairVerdict::needs_evidence`]):
    /// the report lists it to look at.
    #[serde(default)]
    pub to_look_at: bool,
    /// The named benchmark, relative to the campaign folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_file: Option<String>,
    /// For a run that failed or answered `sat`: its `(error …)` messages
    /// and the last lines of its stderr.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// One entry per checker that ran (or was cached) on the core.
    pub checkers: Vec<CheckerEvidence>,
    /// For a refuted core: `certified` or `uncertified` ([`PairVerdict::refutation`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refutation: Option<crate::campaign::verdict::certification::Refutation>,
    /// For a certified refutation: the original assertions the model
    /// falsifies ([`crate::explain`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explanation: Vec<String>,
}

/// [`CheckerEvidence::counted`] of a checker that is none of the pair's.
pub const LEFT_OUT: &str = "left out";

/// One checker's run on a pair's core.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CheckerEvidence {
    pub checker: String,
    pub version: Option<String>,
    /// What it printed (`sat`, `unsat`, `unknown`, `timeout`, …).
    pub answer: String,
    /// How the decision counted it (`sat`, `unsat`, `other`, `not-applicable`),
    /// or `left out` for a checker that is none of the pair's (its own team).
    pub counted: String,
    pub exit: String,
    pub wall: f64,
    pub cached: bool,
    /// Why the answer did not count as printed, if so.
    pub note: Option<String>,
    /// The first lines it printed.
    pub output: Option<String>,
    /// The command that repeats the run, from the campaign folder.
    pub command: String,
    /// For a `sat`: its model's certification, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certification: Option<String>,
    /// For a `sat`: the file of the model it printed when asked (relative
    /// to the campaign folder) and its first lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl PairVerdict {
    /// Whether the report lists this pair with its evidence.
    pub fn needs_evidence(&self) -> bool {
        self.disputed
            || self.pending
            || matches!(
                self.pair.verdict,
                Verdict::Refuted
                    | Verdict::IllFormed { .. }
                    | Verdict::NotValidated
                    | Verdict::SatAnswer
                    | Verdict::SatUnconfirmed
            )
    }
}
