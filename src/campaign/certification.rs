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

use crate::campaign::policy::Policy;
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

impl Certification {
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
