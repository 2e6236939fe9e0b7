//! Certified refutations: what became of a checker's `sat` on a core-only
//! benchmark once its model was checked ([`Certification`]), and how a
//! policy counts a `sat` whose model was rejected ([`counted`]).
//!
//! A `sat` is *certified* when the checker's model satisfies every
//! assertion of the core-only benchmark, by coreval's own evaluation
//! ([`crate::model`]) or, where that cannot decide, by a checker of another
//! team given the core's assertions with the model's values as
//! definitions. It is *model-rejected* when the model falsifies an
//! assertion (the checker's fault: the vote never refutes under
//! certification-aware policies, and shows as a dispute), and *uncertified*
//! when no decision was possible (no model, quantifiers, a theory the
//! evaluator does not support and no other checker settled it: the reason
//! is kept).
//!
//! Under the current presets (`smtcomp-2025`, `smtcomp-2026`, `unanimous`,
//! `quorum:K`, and so selfcheck) an error stands only on evidence
//! ([`Policy::counts_uncertified_votes`] is false): a `sat` counts only
//! when it is certified ([`Certification::voids_sat`]); every other `sat`,
//! whatever the reason ([`Unproven`], every value of which is tested), is
//! unknown, so that at worst the core is not validated (disputed), never
//! refuted. Past editions' presets keep their own count and say
//! "(uncertified)" beside it.

use super::policy::Policy;
use serde::{Deserialize, Serialize};

/// Who checked a model: `coreval` (its own evaluation) or a checker's name.
pub const BY_COREVAL: &str = "coreval";

/// The outcome of checking a `sat` vote's model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Certification {
    /// The model satisfies the core-only benchmark; `by` checked it.
    Certified { by: String },
    /// The model falsifies it: `why` names the assertion (or the checker
    /// that found the model's definitions unsatisfiable).
    ModelRejected { by: String, why: String },
    /// Neither: why not, as a kind ([`Unproven`]; absent from records of
    /// earlier versions) and in words.
    Uncertified {
        why: String,
        #[serde(default)]
        reason: Unproven,
    },
}

/// Why a `sat` could not be certified. Each value is tested
/// (`tests::every_reason_is_unknown_under_current_presets`): a `sat` with
/// any of them refutes nothing under a current preset, and the kinds on
/// coreval's side ([`Unproven::is_own_fault`]) are never kept as a vote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unproven {
    /// Asked for its model, the checker printed none.
    NoModel,
    /// Asked for its model, the checker answered otherwise than `sat`.
    AnsweredOtherwise,
    /// The model run ran past the checker's time limit.
    ModelTimedOut,
    /// What the checker printed as its model cannot be read as one.
    UnreadableModel,
    /// The model leaves out declared symbols, and no default fits.
    IncompleteModel,
    /// The evaluator cannot decide (quantifiers, an unsupported theory…)
    /// and no checker of another team settled it.
    Undecided,
    /// A record of an earlier version, which kept no reason.
    #[default]
    Unrecorded,
    /// A fault on coreval's side: the core could not be read, a script
    /// could not be written (disk full, read-only), the run was stopped.
    OwnFault,
}

impl Unproven {
    /// Every value, in declaration order (checked against [`Unproven::index`]).
    pub const ALL: [Unproven; 8] = [
        Unproven::NoModel,
        Unproven::AnsweredOtherwise,
        Unproven::ModelTimedOut,
        Unproven::UnreadableModel,
        Unproven::IncompleteModel,
        Unproven::Undecided,
        Unproven::Unrecorded,
        Unproven::OwnFault,
    ];

    /// The value's place in [`Unproven::ALL`]; the match has no wildcard,
    /// so a new reason does not compile until it is listed and tested.
    pub const fn index(self) -> usize {
        match self {
            Unproven::NoModel => 0,
            Unproven::AnsweredOtherwise => 1,
            Unproven::ModelTimedOut => 2,
            Unproven::UnreadableModel => 3,
            Unproven::IncompleteModel => 4,
            Unproven::Undecided => 5,
            Unproven::Unrecorded => 6,
            Unproven::OwnFault => 7,
        }
    }

    /// Whether the reason lies with coreval, not the checker: such a
    /// certification is no outcome, its check is done again.
    pub fn is_own_fault(self) -> bool {
        matches!(self, Unproven::OwnFault)
    }

    /// Whether a cached `sat` with this reason may stand without asking
    /// for its model again: the checker's own answer to the model run
    /// (none, another answer, a timeout, an unreadable model) is what
    /// asking again would give; the rest is asked again.
    pub fn settled_by_checker(self) -> bool {
        match self {
            Unproven::NoModel
            | Unproven::AnsweredOtherwise
            | Unproven::ModelTimedOut
            | Unproven::UnreadableModel => true,
            Unproven::IncompleteModel
            | Unproven::Undecided
            | Unproven::Unrecorded
            | Unproven::OwnFault => false,
        }
    }
}

impl Certification {
    /// An uncertified `sat`: why, as a kind and in words.
    pub fn uncertified(reason: Unproven, why: impl Into<String>) -> Certification {
        Certification::Uncertified {
            why: why.into(),
            reason,
        }
    }

    /// Why the `sat` is uncertified, when it is.
    pub fn unproven(&self) -> Option<Unproven> {
        match self {
            Certification::Uncertified { reason, .. } => Some(*reason),
            _ => None,
        }
    }

    /// Whether a `sat` with this certification is no vote under `policy`:
    /// under a current preset, every `sat` that is not certified (its
    /// model rejected, or no decision, whatever the reason); under a past
    /// edition's, none.
    pub fn voids_sat(&self, policy: Policy) -> bool {
        !policy.counts_uncertified_votes() && !matches!(self, Certification::Certified { .. })
    }

    /// `certified`, `model-rejected` or `uncertified`.
    pub fn label(&self) -> &'static str {
        match self {
            Certification::Certified { .. } => "certified",
            Certification::ModelRejected { .. } => "model-rejected",
            Certification::Uncertified { .. } => "uncertified",
        }
    }

    /// One line for reports: the label and who or why.
    pub fn describe(&self) -> String {
        match self {
            Certification::Certified { by } => format!("certified (model checked by {by})"),
            Certification::ModelRejected { by, why } => format!("model-rejected by {by}: {why}"),
            Certification::Uncertified { why, .. } => format!("uncertified: {why}"),
        }
    }
}

impl Policy {
    /// Whether the policy is a past edition's preset, whose decision
    /// stands on the votes as the edition counted them (certification is
    /// shown beside it, never changes it): `smtcomp-2016` to `smtcomp-2018`
    /// (the last used through 2024).
    pub fn counts_uncertified_votes(self) -> bool {
        matches!(
            self,
            Policy::Smtcomp2016 | Policy::Smtcomp2017 | Policy::Smtcomp2018
        )
    }
}

/// How a refuted core's refutation stands (docs/organizers.md, "Certified
/// refutations"); serialised `certified`, `uncertified`, `no-sat-vote`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Refutation {
    /// A `sat` vote that counted came with a model that satisfies the core.
    Certified,
    /// `sat` votes counted, none of them certified.
    Uncertified,
    /// No `sat` vote counted.
    NoSatVote,
}

impl Refutation {
    /// From the certifications of the `sat` votes that counted for it:
    /// certified when one of them is, else uncertified.
    pub fn of<'a>(sats: impl Iterator<Item = &'a Option<Certification>>) -> Refutation {
        let mut any = false;
        for c in sats {
            any = true;
            if matches!(c, Some(Certification::Certified { .. })) {
                return Refutation::Certified;
            }
        }
        if any {
            Refutation::Uncertified
        } else {
            Refutation::NoSatVote
        }
    }

    /// `certified`, `uncertified` or `no-sat-vote` (as serialised).
    pub fn label(self) -> &'static str {
        match self {
            Refutation::Certified => "certified",
            Refutation::Uncertified => "uncertified",
            Refutation::NoSatVote => "no-sat-vote",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every policy preset, `quorum:K` as 1 and 3.
    fn presets() -> Vec<Policy> {
        Policy::PRESETS
            .iter()
            .flat_map(|p| match *p {
                "quorum:K" => vec!["quorum:1", "quorum:3"],
                p => vec![p],
            })
            .map(|p| p.parse().unwrap())
            .collect()
    }

    #[test]
    fn every_reason_is_listed_once_in_order() {
        for (i, r) in Unproven::ALL.iter().enumerate() {
            assert_eq!(r.index(), i, "{r:?}");
        }
    }

    #[test]
    fn every_reason_is_unknown_under_current_presets() {
        let current: Vec<Policy> = presets()
            .into_iter()
            .filter(|p| !p.counts_uncertified_votes())
            .collect();
        assert!(current.contains(&Policy::Smtcomp2025) && current.contains(&Policy::Unanimous));
        for reason in Unproven::ALL {
            let c = Certification::uncertified(reason, "why");
            for &p in &current {
                assert!(c.voids_sat(p), "{reason:?} under {p}");
            }
            for p in presets()
                .into_iter()
                .filter(|p| p.counts_uncertified_votes())
            {
                assert!(!c.voids_sat(p), "{reason:?} under {p}: the edition's count");
            }
            // Kept in journals: the reason reads back as written.
            let back: Certification =
                serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
            assert_eq!(back, c);
            // Only coreval's own faults are not kept as votes.
            assert_eq!(reason.is_own_fault(), reason == Unproven::OwnFault);
        }
        let rejected = Certification::ModelRejected {
            by: BY_COREVAL.into(),
            why: "x".into(),
        };
        let certified = Certification::Certified {
            by: BY_COREVAL.into(),
        };
        for p in current {
            assert!(rejected.voids_sat(p) && !certified.voids_sat(p), "{p}");
        }
    }

    #[test]
    fn a_record_of_an_earlier_version_reads_as_unrecorded() {
        let old = r#"{"status":"uncertified","why":"the checker printed no model"}"#;
        let c: Certification = serde_json::from_str(old).unwrap();
        assert_eq!(c.unproven(), Some(Unproven::Unrecorded));
    }
}
