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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckAnswer {
    Sat,
    Unsat,
    /// unknown, timeout, error, crash, no answer.
    Other,
    /// The checker cannot be given this core-only benchmark (it needs a
    /// command the checker rejects): it is not one of the core's checkers.
    NotApplicable,
}

/// What the checker solvers answered on one core-only benchmark.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckerTally {
    /// Checkers that answered `sat` (they refute the core).
    pub sat: u32,
    /// Checkers that answered `unsat` (they confirm the core).
    pub unsat: u32,
    /// Checkers that answered `unknown`, timed out or failed.
    pub unknown: u32,
    /// The solver that produced the core is itself one of the checkers and
    /// answered `sat` on its own core (the 2017 rules refute on that alone).
    #[serde(default)]
    pub producer_sat: bool,
}

/// Counts of answers on one core: the scorer's record of them.
pub type Tally = CheckerTally;

impl Tally {
    pub fn add(&mut self, answer: CheckAnswer, by_producer: bool) {
        match answer {
            CheckAnswer::Sat => {
                self.sat += 1;
                self.producer_sat |= by_producer;
            }
            CheckAnswer::Unsat => self.unsat += 1,
            CheckAnswer::Other => self.unknown += 1,
            CheckAnswer::NotApplicable => {}
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

    /// Every preset on the same hand-made answer tuples: ties, all-unknown,
    /// no answer at all, the 2017 self-check clause (the producer, as a
    /// checker, says sat to its own core) and clear majorities.
    #[test]
    fn every_preset_on_ties_all_unknown_and_self_check() {
        let tie = tally(&[Sat, Unsat]);
        let tie_unknown = tally(&[Sat, Unsat, Other]);
        let all_unknown = tally(&[Other, Other, Other]);
        let none = tally(&[]);
        let mut self_check = tally(&[Unsat, Unsat]);
        self_check.add(Sat, true);
        let mut self_unsat = tally(&[Sat]);
        self_unsat.add(Unsat, true);
        let unsat_majority = tally(&[Unsat, Unsat, Sat]);
        let sat_majority = tally(&[Sat, Sat, Unsat]);
        let lone_unsat = tally(&[Unsat, Other, Other]);
        let lone_sat = tally(&[Sat, Other, Other]);
        #[rustfmt::skip]
        let table: &[(Policy, [Decision; 10])] = &[
            //                   tie        tie+unk    all-unk       none          self-chk   self-uns   unsat-maj  sat-maj  lone-unsat    lone-sat
            (Policy::Smtcomp2016, [Refuted, Refuted, Validated,    Validated,    Refuted,   Refuted,   Refuted,   Refuted, Validated,    Refuted]),
            (Policy::Smtcomp2017, [Validated, Validated, Validated, Validated,   Refuted,   Validated, Validated, Refuted, Validated,    Refuted]),
            (Policy::Smtcomp2018, [Validated, Validated, Validated, Validated,   Validated, Validated, Validated, Refuted, Validated,    Refuted]),
            (Policy::Smtcomp2025, [Refuted, Refuted, NotValidated, NotValidated, Validated, Refuted,   Validated, Refuted, Validated,    Refuted]),
            (Policy::Unanimous,   [Refuted, Refuted, NotValidated, NotValidated, Refuted,   Refuted,   Refuted,   Refuted, NotValidated, Refuted]),
            (Policy::Quorum(2),   [Refuted, Refuted, NotValidated, NotValidated, Validated, Refuted,   Validated, Refuted, NotValidated, Refuted]),
            (Policy::Quorum(1),   [Refuted, Refuted, NotValidated, NotValidated, Validated, Refuted,   Validated, Refuted, Validated,    Refuted]),
        ];
        let cases = [
            &tie,
            &tie_unknown,
            &all_unknown,
            &none,
            &self_check,
            &self_unsat,
            &unsat_majority,
            &sat_majority,
            &lone_unsat,
            &lone_sat,
        ];
        for (p, expected) in table {
            for (i, (t, want)) in cases.iter().zip(expected).enumerate() {
                assert_eq!(p.decide(t), *want, "{p} on case {i}: {t:?}");
                // With nothing left to hear, the early decision is the decision.
                assert_eq!(
                    decided_early(*p, t, 0, false),
                    Some(*want),
                    "{p} early on case {i}"
                );
            }
        }
    }

    #[test]
    fn not_applicable_checkers_are_not_counted() {
        let mut t = tally(&[Unsat, NotApplicable, NotApplicable]);
        t.add(NotApplicable, true);
        assert_eq!(
            (t.sat, t.unsat, t.unknown, t.producer_sat),
            (0, 1, 0, false)
        );
        assert_eq!(Policy::Unanimous.decide(&t), Validated);
    }

    #[test]
    fn early_decisions_never_disagree_with_the_final_one() {
        // Every preset, every tally of up to 3 answers, up to 3 checkers
        // left (the producer among them or not): an early decision must be
        // what every completion of the answers decides.
        let answers = [Sat, Unsat, Other];
        let presets = [
            Policy::Smtcomp2016,
            Policy::Smtcomp2017,
            Policy::Smtcomp2018,
            Policy::Smtcomp2025,
            Policy::Unanimous,
            Policy::Quorum(2),
        ];
        let mut decided = 0;
        for p in presets {
            for n in 0..=3u32 {
                for code in 0..3u32.pow(n) {
                    let so_far: Vec<CheckAnswer> = (0..n)
                        .map(|i| answers[(code / 3u32.pow(i) % 3) as usize])
                        .collect();
                    for remaining in 0..=3u32 {
                        for producer in [false, true] {
                            let Some(d) = decided_early(p, &tally(&so_far), remaining, producer)
                            else {
                                continue;
                            };
                            decided += 1;
                            for rest in 0..3u32.pow(remaining) {
                                let mut t = tally(&so_far);
                                for i in 0..remaining {
                                    let a = answers[(rest / 3u32.pow(i) % 3) as usize];
                                    t.add(a, producer && i == 0);
                                }
                                assert_eq!(
                                    p.decide(&t),
                                    d,
                                    "{p}: {so_far:?} + {remaining} left (producer {producer})"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(decided > 100, "the early decision fires ({decided} cases)");
    }
}
