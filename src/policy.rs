//! Decision policies: checker answers on one core-only benchmark → is the
//! core unsatisfiable? Each SMT-COMP edition is a named preset (RULES.md §4),
//! plus two stricter ones of coreval's own; every report names the one used.
//!
//! | preset | refuted when | validated when | otherwise |
//! |---|---|---|---|
//! | `smtcomp-2016` | any checker says sat | no checker says sat (all-unknown too) | — |
//! | `smtcomp-2017` | #sat > #unsat, or the producing solver is a checker and says sat | otherwise | — |
//! | `smtcomp-2018` | #sat > #unsat (used 2018–2024) | otherwise (ties, all-unknown) | — |
//! | `smtcomp-2025` | #sat ≥ #unsat and #sat > 0 | #unsat > #sat | not validated (no unsat, no sat) |
//! | `unanimous` | any checker says sat | every checker says unsat (≥ 1) | not validated |
//! | `quorum:K` | #sat ≥ #unsat and #sat > 0 | #unsat ≥ K and #unsat > #sat | not validated |
//!
//! [`decided_early`] tells whether the answers so far fix the decision
//! whatever the remaining checkers say, which lets the check stage skip or
//! kill the remaining jobs for that core.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A decision policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Policy {
    Smtcomp2016,
    Smtcomp2017,
    Smtcomp2018,
    Smtcomp2025,
    Unanimous,
    Quorum(u32),
}

/// The outcome of a policy on one core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    Validated,
    Refuted,
    NotValidated,
}

/// A checker's answer, as far as policies care.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckAnswer {
    Sat,
    Unsat,
    /// unknown, timeout, error, crash, no answer.
    Other,
}

/// Counts of answers on one core: the scorer's record of them.
pub type Tally = crate::verdict::CheckerTally;

impl Tally {
    pub fn add(&mut self, answer: CheckAnswer, by_producer: bool) {
        match answer {
            CheckAnswer::Sat => {
                self.sat += 1;
                self.producer_sat |= by_producer;
            }
            CheckAnswer::Unsat => self.unsat += 1,
            CheckAnswer::Other => self.unknown += 1,
        }
    }

    /// Checkers disagree: some said sat and some unsat (a soundness problem
    /// in one of them).
    pub fn disputed(&self) -> bool {
        self.sat > 0 && self.unsat > 0
    }
}

impl Policy {
    pub const PRESETS: &'static [&'static str] = &[
        "smtcomp-2016",
        "smtcomp-2017",
        "smtcomp-2018",
        "smtcomp-2025",
        "unanimous",
        "quorum:K",
    ];

    /// The decision once all answers are in.
    pub fn decide(self, t: &Tally) -> Decision {
        use Decision::*;
        match self {
            Policy::Smtcomp2016 => {
                if t.sat > 0 {
                    Refuted
                } else {
                    Validated
                }
            }
            Policy::Smtcomp2017 => {
                if t.sat > t.unsat || t.producer_sat {
                    Refuted
                } else {
                    Validated
                }
            }
            Policy::Smtcomp2018 => {
                if t.sat > t.unsat {
                    Refuted
                } else {
                    Validated
                }
            }
            Policy::Smtcomp2025 => {
                if t.unsat > t.sat {
                    Validated
                } else if t.sat > 0 {
                    Refuted
                } else {
                    NotValidated
                }
            }
            Policy::Unanimous => {
                if t.sat > 0 {
                    Refuted
                } else if t.unsat > 0 && t.unknown == 0 {
                    Validated
                } else {
                    NotValidated
                }
            }
            Policy::Quorum(k) => {
                if t.sat > 0 && t.sat >= t.unsat {
                    Refuted
                } else if t.unsat >= k && t.unsat > t.sat {
                    Validated
                } else {
                    NotValidated
                }
            }
        }
    }
}

/// The decision, if the answers so far fix it whatever the `remaining`
/// checkers answer; `producer_pending` says whether the producing solver is
/// one of them (it matters to `smtcomp-2017`).
pub fn decided_early(
    policy: Policy,
    so_far: &Tally,
    remaining: u32,
    producer_pending: bool,
) -> Option<Decision> {
    let others = remaining - u32::from(producer_pending && remaining > 0);
    let producer_choices: &[Option<CheckAnswer>] = if producer_pending && remaining > 0 {
        &[
            Some(CheckAnswer::Sat),
            Some(CheckAnswer::Unsat),
            Some(CheckAnswer::Other),
        ]
    } else {
        &[None]
    };
    let mut seen: Option<Decision> = None;
    for p in producer_choices {
        for s in 0..=others {
            for u in 0..=others - s {
                let mut t = so_far.clone();
                t.sat += s;
                t.unsat += u;
                t.unknown += others - s - u;
                if let Some(a) = p {
                    t.add(*a, true);
                }
                let d = policy.decide(&t);
                match seen {
                    None => seen = Some(d),
                    Some(prev) if prev != d => return None,
                    _ => {}
                }
            }
        }
    }
    seen
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Smtcomp2016 => f.write_str("smtcomp-2016"),
            Policy::Smtcomp2017 => f.write_str("smtcomp-2017"),
            Policy::Smtcomp2018 => f.write_str("smtcomp-2018"),
            Policy::Smtcomp2025 => f.write_str("smtcomp-2025"),
            Policy::Unanimous => f.write_str("unanimous"),
            Policy::Quorum(k) => write!(f, "quorum:{k}"),
        }
    }
}

impl FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "smtcomp-2016" => Policy::Smtcomp2016,
            "smtcomp-2017" => Policy::Smtcomp2017,
            "smtcomp-2018" => Policy::Smtcomp2018,
            "smtcomp-2025" => Policy::Smtcomp2025,
            "unanimous" => Policy::Unanimous,
            _ => match s.strip_prefix("quorum:").map(str::parse::<u32>) {
                Some(Ok(k)) if k > 0 => Policy::Quorum(k),
                _ => {
                    return Err(format!(
                        "unknown decision policy '{s}': expected one of {}",
                        Policy::PRESETS.join(", ")
                    ))
                }
            },
        })
    }
}

impl TryFrom<String> for Policy {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<Policy> for String {
    fn from(p: Policy) -> String {
        p.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CheckAnswer::*;
    use Decision::*;

    fn tally(answers: &[CheckAnswer]) -> Tally {
        let mut t = Tally::default();
        for a in answers {
            t.add(*a, false);
        }
        t
    }

    #[test]
    fn smtcomp_2016_any_sat_refutes() {
        let p = Policy::Smtcomp2016;
        assert_eq!(p.decide(&tally(&[Unsat, Unsat, Sat])), Refuted);
        assert_eq!(p.decide(&tally(&[Other, Other, Other])), Validated);
        assert_eq!(p.decide(&tally(&[Unsat, Other])), Validated);
    }

    #[test]
    fn smtcomp_2017_majority_and_self_check() {
        let p = Policy::Smtcomp2017;
        assert_eq!(p.decide(&tally(&[Sat, Sat, Unsat])), Refuted);
        assert_eq!(p.decide(&tally(&[Sat, Unsat])), Validated, "tie");
        let mut t = tally(&[Unsat, Unsat]);
        t.add(Sat, true);
        assert_eq!(
            p.decide(&t),
            Refuted,
            "the producer says sat to its own core"
        );
        assert_eq!(
            Policy::Smtcomp2018.decide(&t),
            Validated,
            "2018 has no self-check clause"
        );
    }

    #[test]
    fn smtcomp_2018_ties_and_all_unknown_validate() {
        let p = Policy::Smtcomp2018;
        assert_eq!(p.decide(&tally(&[Sat, Unsat])), Validated);
        assert_eq!(p.decide(&tally(&[Other, Other])), Validated);
        assert_eq!(p.decide(&tally(&[Sat, Other])), Refuted);
        assert_eq!(p.decide(&tally(&[])), Validated);
    }

    #[test]
    fn smtcomp_2025_needs_an_unsat_majority() {
        let p = Policy::Smtcomp2025;
        assert_eq!(p.decide(&tally(&[Unsat, Other])), Validated);
        assert_eq!(
            p.decide(&tally(&[Sat, Unsat])),
            Refuted,
            "tie with a sat refutes"
        );
        assert_eq!(p.decide(&tally(&[Other, Other])), NotValidated);
        assert_eq!(p.decide(&tally(&[Unsat, Unsat, Sat])), Validated);
    }

    #[test]
    fn unanimous_and_quorum() {
        assert_eq!(Policy::Unanimous.decide(&tally(&[Unsat, Unsat])), Validated);
        assert_eq!(
            Policy::Unanimous.decide(&tally(&[Unsat, Other])),
            NotValidated
        );
        assert_eq!(Policy::Unanimous.decide(&tally(&[Unsat, Sat])), Refuted);
        let q = Policy::Quorum(2);
        assert_eq!(q.decide(&tally(&[Unsat, Other])), NotValidated);
        assert_eq!(q.decide(&tally(&[Unsat, Unsat, Sat])), Validated);
        assert_eq!(q.decide(&tally(&[Sat, Unsat])), Refuted);
    }

    #[test]
    fn early_decisions() {
        // 2016: one sat decides, unsat answers never do.
        assert_eq!(
            decided_early(Policy::Smtcomp2016, &tally(&[Sat]), 2, false),
            Some(Refuted)
        );
        assert_eq!(
            decided_early(Policy::Smtcomp2016, &tally(&[Unsat, Unsat]), 1, false),
            None
        );
        // 2018 with three checkers: two unsat out of three decide.
        assert_eq!(
            decided_early(Policy::Smtcomp2018, &tally(&[Unsat, Unsat]), 1, false),
            Some(Validated)
        );
        assert_eq!(
            decided_early(Policy::Smtcomp2018, &tally(&[Unsat]), 2, false),
            None
        );
        // 2025 with three: two unsat decide; the tie case needs everything.
        assert_eq!(
            decided_early(Policy::Smtcomp2025, &tally(&[Unsat, Unsat]), 1, false),
            Some(Validated)
        );
        assert_eq!(
            decided_early(Policy::Smtcomp2025, &tally(&[Sat, Unsat]), 1, false),
            None
        );
        // 2017: the producer may still refute.
        assert_eq!(
            decided_early(Policy::Smtcomp2017, &tally(&[Unsat, Unsat]), 1, true),
            None
        );
        assert_eq!(
            decided_early(Policy::Smtcomp2017, &tally(&[Unsat, Unsat]), 1, false),
            Some(Validated)
        );
        // Nothing left: the final decision.
        assert_eq!(
            decided_early(Policy::Smtcomp2025, &tally(&[Other]), 0, false),
            Some(NotValidated)
        );
    }

    #[test]
    fn names_round_trip() {
        for s in [
            "smtcomp-2016",
            "smtcomp-2017",
            "smtcomp-2018",
            "smtcomp-2025",
            "unanimous",
            "quorum:3",
        ] {
            assert_eq!(s.parse::<Policy>().unwrap().to_string(), s);
        }
        assert!("quorum:0".parse::<Policy>().is_err());
        assert!("smtcomp-2099"
            .parse::<Policy>()
            .unwrap_err()
            .contains("expected one of"));
    }
}
