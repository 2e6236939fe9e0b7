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
//! Under the current presets (`smtcomp-2025`, `unanimous`, `quorum:K`, and
//! so selfcheck) an error stands only on evidence ([`Policy::counts_uncertified_votes`]
//! is false): a `sat` whose checker, asked for its model, printed none
//! ([`Certification::printed_no_model`]) counts as unknown, like a
//! model-rejected one, and a refutation whose `sat` votes are all
//! uncertified while an `unsat` vote stands is a dispute, not an error
//! ([`settle`]). Past editions' presets keep their own count.

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
    /// Neither: why not (no model, quantifiers, unsupported theory…).
    Uncertified { why: String },
}

/// Why a `sat` is uncertified when the checker, asked for its model, gave
/// none: the reasons [`crate::check::certify`] writes (and journals of
/// earlier versions hold), matched by their start.
pub const NO_MODEL: [&str; 4] = [
    "the checker printed no model",
    "the model run answered ",
    "the model run timed out",
    "no model: ",
];

impl Certification {
    /// Whether the checker, asked for its model, printed none (or none
    /// that can be read, or answered otherwise the second time): a sound
    /// solver asked for a model prints one, so such a `sat` is no evidence.
    pub fn printed_no_model(&self) -> bool {
        match self {
            Certification::Uncertified { why } => NO_MODEL.iter().any(|p| why.starts_with(p)),
            _ => false,
        }
    }

    /// Whether a `sat` with this certification is no vote under `policy`:
    /// its model was rejected, or it printed none, and the policy is no
    /// past edition's.
    pub fn voids_sat(&self, policy: Policy) -> bool {
        !policy.counts_uncertified_votes()
            && (matches!(self, Certification::ModelRejected { .. }) || self.printed_no_model())
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
            Certification::Uncertified { why } => format!("uncertified: {why}"),
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

/// How a refuted core's refutation stands (README, "Certified
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

/// The decision on a core once the `sat` votes' certifications are known:
/// under a current preset, a refutation whose counted `sat` votes are all
/// uncertified while an `unsat` vote stands is no error but a dispute
/// (`not-validated`, disputed). Returns the decision and whether that
/// happened. Past editions' presets keep their decision.
pub fn settle(
    policy: Policy,
    decision: super::policy::Decision,
    unsat_votes: u32,
    refutation: Refutation,
) -> (super::policy::Decision, bool) {
    use super::policy::Decision;
    let unproven = decision == Decision::Refuted
        && refutation == Refutation::Uncertified
        && unsat_votes > 0
        && !policy.counts_uncertified_votes();
    if unproven {
        (Decision::NotValidated, true)
    } else {
        (decision, false)
    }
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
