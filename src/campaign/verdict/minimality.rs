//! Beyond the track: the records of the subset-minimality check and of the
//! best-known cores, and the rule that turns checker answers on a core
//! minus one member into "needed", "removable" or "undecided".
//!
//! A removal is decided by the campaign's decision policy over the same
//! independent checkers as the core itself, with one more demand: an
//! outcome must rest on answers, never on silence. A member is *needed*
//! when every checker has answered, the policy refutes the smaller core and
//! no checker said unsat; it is *removable* when the policy validates the
//! smaller core (early, like validation) with at least one unsat and no
//! sat. Anything else (all unknown, a dispute, a budget spent) leaves it
//! undecided, so a pair is `minimal` only when every removal was proven
//! satisfiable, and `redundant` names only members proven removable.

use super::policy::{decided_early, Decision, Policy, Tally};
use serde::{Deserialize, Serialize};

/// File names of the campaign's journals for this check.
pub const MINIMALITY: &str = "minimality.jsonl";
pub const MINIMALITY_CHECKS: &str = "minimality-checks.jsonl";
/// The campaign's best-known cores (one record per benchmark, last wins).
pub const BEST_KNOWN: &str = "best-known.jsonl";

/// What one removal showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// The core minus this member is satisfiable: the member is needed.
    Needed,
    /// The core minus this member is still unsatisfiable.
    Removable,
    /// No proof either way.
    Undecided,
}

/// The removal's outcome from the answers so far, or `None` while more
/// answers could still decide it (`remaining` checkers have not answered).
pub fn removal(
    policy: Policy,
    t: &Tally,
    remaining: u32,
    producer_pending: bool,
    early_stop: bool,
) -> Option<Removal> {
    let decision = if remaining == 0 {
        Some(policy.decide(t))
    } else if early_stop {
        decided_early(policy, t, remaining, producer_pending)
    } else {
        None
    };
    match decision {
        Some(Decision::Validated) if t.unsat > 0 && t.sat == 0 => Some(Removal::Removable),
        Some(Decision::Refuted) if remaining == 0 && t.sat > 0 && t.unsat == 0 => {
            Some(Removal::Needed)
        }
        _ if remaining == 0 => Some(Removal::Undecided),
        _ => None,
    }
}

/// A pair's minimality status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every single removal was proven satisfiable.
    Minimal,
    /// Some member was proven removable.
    Redundant,
    /// Neither: a removal could not be decided (budget, checkers).
    Unknown,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Minimal => "minimal",
            Status::Redundant => "redundant",
            Status::Unknown => "unknown",
        }
    }
}

/// The minimality of one validated core (`pairs.jsonl`: `"minimality"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Minimality {
    pub status: Status,
    /// The members proven removable (each on its own), in core order.
    pub redundant: Vec<String>,
    /// The members whose removal was not decided.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undecided: Vec<String>,
}

impl Minimality {
    /// Fold the removals of a core's members (in core order).
    pub fn fold(removals: &[(String, Removal)]) -> Minimality {
        let pick = |want: Removal| -> Vec<String> {
            removals
                .iter()
                .filter(|(_, r)| *r == want)
                .map(|(n, _)| n.clone())
                .collect()
        };
        let (redundant, undecided) = (pick(Removal::Removable), pick(Removal::Undecided));
        let status = if !redundant.is_empty() {
            Status::Redundant
        } else if undecided.is_empty() && !removals.is_empty() {
            Status::Minimal
        } else {
            Status::Unknown
        };
        Minimality {
            status,
            redundant,
            undecided,
        }
    }
}

/// `minimality.jsonl`: the outcome for one pair's core.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MinimalityRecord {
    pub solver: String,
    pub benchmark: String,
    pub core_hash: String,
    /// The per-core budget (seconds) it was found with.
    pub budget: f64,
    #[serde(flatten)]
    pub minimality: Minimality,
}

/// Where a best-known core was first seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The campaign folder that produced it.
    pub campaign: String,
    pub solver: String,
    /// The producing solver's team (checkers of that team do not validate it).
    pub team: String,
    /// Made smaller by deletion (each step validated).
    pub shrunk: bool,
    /// Every member's removal was proven satisfiable: a minimal unsatisfiable subset.
    #[serde(default)]
    pub mus: bool,
}

/// A best-known core: in the cross-campaign cache (`best-known.jsonl`,
/// keyed by the named benchmark's content hash) and in the campaign.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestKnown {
    /// BLAKE3 of the named benchmark's bytes (what the names refer to).
    pub benchmark_hash: String,
    /// The benchmark id where it was seen.
    pub benchmark: String,
    /// Named top-level assertions of the benchmark.
    pub assertions: u64,
    /// The core's names, in core order.
    pub core: Vec<String>,
    pub origin: Origin,
}

impl BestKnown {
    pub fn size(&self) -> u64 {
        self.core.len() as u64
    }
    /// `solver (campaign folder)`, plus `, shrunk` and `, MUS`; the folder
    /// is `this campaign` when it is `here`.
    pub fn origin_text(&self, here: &std::path::Path) -> String {
        let o = &self.origin;
        let folder = if std::path::Path::new(&o.campaign) == here {
            "this campaign".to_string()
        } else {
            std::path::Path::new(&o.campaign)
                .file_name()
                .map_or(o.campaign.clone(), |n| n.to_string_lossy().into_owned())
        };
        let shrunk = if o.shrunk { ", shrunk" } else { "" };
        let mus = if o.mus { ", MUS" } else { "" };
        format!("{} ({folder}{shrunk}{mus})", o.solver)
    }
}

/// A pair's reference (`pairs.jsonl`: `"best_known"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// Size of the best-known core.
    pub size: u64,
    /// Its reduction (assertions − size).
    pub reduction: u64,
    /// Where it came from (`solver (campaign[, shrunk])`).
    pub origin: String,
    /// This pair's core size minus the best-known size (validated pairs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::verdict::policy::CheckAnswer::{self, *};

    fn t(a: &[CheckAnswer]) -> Tally {
        let mut t = Tally::default();
        for x in a {
            t.add(*x, false);
        }
        t
    }

    #[test]
    fn removals_rest_on_answers_never_on_silence() {
        let p = Policy::Smtcomp2025;
        assert_eq!(
            removal(p, &t(&[Sat, Sat]), 0, false, true),
            Some(Removal::Needed)
        );
        assert_eq!(
            removal(p, &t(&[Sat]), 1, false, true),
            None,
            "sat waits for all"
        );
        assert_eq!(
            removal(p, &t(&[Unsat, Unsat]), 1, false, true),
            Some(Removal::Removable)
        );
        assert_eq!(
            removal(p, &t(&[Sat, Unsat]), 0, false, true),
            Some(Removal::Undecided)
        );
        assert_eq!(
            removal(p, &t(&[Other, Other]), 0, false, true),
            Some(Removal::Undecided)
        );
        // smtcomp-2018 validates on silence: not a proof here.
        let p = Policy::Smtcomp2018;
        assert_eq!(
            removal(p, &t(&[Other]), 0, false, true),
            Some(Removal::Undecided)
        );
    }

    #[test]
    fn folding() {
        let r = |n: &str, x| (n.to_string(), x);
        let m = Minimality::fold(&[r("a", Removal::Needed), r("b", Removal::Needed)]);
        assert_eq!(m.status, Status::Minimal);
        let m = Minimality::fold(&[r("a", Removal::Removable), r("b", Removal::Undecided)]);
        assert_eq!(
            (m.status, m.redundant.clone()),
            (Status::Redundant, vec!["a".into()])
        );
        let m = Minimality::fold(&[r("a", Removal::Needed), r("b", Removal::Undecided)]);
        assert_eq!(
            (m.status, m.undecided),
            (Status::Unknown, vec!["b".to_string()])
        );
        assert_eq!(Minimality::fold(&[]).status, Status::Unknown);
    }
}
