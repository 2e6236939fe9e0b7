//! The parameters of the named rules editions ([`Edition`], named in
//! `rules.rs`), one [`Rules`] value per edition, each built from the previous one by what changed (RULES.md).
//!
//! | edition | what it changed |
//! |---|---|
//! | 2016 | family weights × N, 2400 s, any sat checker refutes, complete runs only |
//! | 2017 | sat majority refutes, or the producing solver saying sat; checkers get about 5 min (300 s) |
//! | 2018 | sat majority only; checkers get 120 s each (the post-processor) |
//! | 2019 | answers contradicting the expected status score nothing (the scoring program), plain sums, time penalties (memout/over T cost T), timeouts counted, no winner without reduction, biggest lead and largest contribution |
//! | 2020 | 1200 s (the exclusion lists are input: `--exclude`) |
//! | 2021 | a malformed core is no error; divisions group logics |
//! | 2022 | the 2022 division map |
//! | 2023 | time counted for answered pairs only, sequential over T scores 0, wall-clock timeouts only |
//! | 2024 | the `smtcomp` tool: every `sat` is an error again, negative reductions kept, ranked by wall time in both modes, seed (Σ mod 2³⁰) + ⌊100·NYSE⌋; validation as the 2024 rules text has it: still the sat majority (ties and all-unknown validate), checkers get about 5 min (the tool's scripts: 300 s) |
//! | 2025 | validation needs an unsat majority ("not validated" otherwise), checkers get the solving limit (1200 s), benchmarks with fewer than 2 assertions left out, best overall |
//! | 2026 | PAR-2 times; a derived solver wins a logic or division (and the recognitions) only with a PAR-2 score 10 % better than its base's |

use super::policy::Policy;
use super::rules::{
    BestOverall, Edition, FamilyDef, MissingCore, RankTime, Rules, SeedFormula, StatusMismatch,
    TimeAccounting, TimeoutCount,
};

impl Edition {
    /// The edition before this one (`None` for 2016).
    fn previous(self) -> Option<Edition> {
        let i = Edition::ALL.iter().position(|e| *e == self)?;
        i.checked_sub(1).map(|p| Edition::ALL[p])
    }

    /// The preset's parameters: the previous edition's, changed by what this
    /// edition changed.
    pub fn rules(self) -> Rules {
        let Some(prev) = self.previous() else {
            return Rules {
                edition: self,
                time_limit: self.time_limit(),
                family_weights: true,
                n_scaling: true,
                family: FamilyDef::Directory,
                answer_needs_complete_run: true,
                time_accounting: TimeAccounting::Clamp,
                ill_formed_is_error: true,
                missing_core: MissingCore::Error,
                validation: Policy::Smtcomp2016,
                // The 2016 archive does not say how long checkers ran.
                validation_time: None,
                tie_precision: Some(0.01),
                winner_needs_reduction: false,
                min_assertions: 0,
                divisions_won: true,
                lead_and_contribution: false,
                best_overall: None,
                timeouts: TimeoutCount::OverLimit,
                rank_time: RankTime::ByMode,
                negative_reductions: false,
                grouped_divisions: false,
                derived_margin: None,
                seed: SeedFormula::SumModulo,
                status_mismatch: StatusMismatch::Error,
            };
        };
        let old = Rules {
            edition: self,
            time_limit: self.time_limit(),
            ..prev.rules()
        };
        match self {
            Edition::Smtcomp2016 => old,
            Edition::Smtcomp2017 => Rules {
                validation: Policy::Smtcomp2017,
                validation_time: Some(300.0),
                ..old
            },
            Edition::Smtcomp2018 => Rules {
                validation: Policy::Smtcomp2018,
                validation_time: Some(120.0),
                ..old
            },
            Edition::Smtcomp2019 => Rules {
                family_weights: false,
                n_scaling: false,
                family: FamilyDef::FirstFolder,
                answer_needs_complete_run: false,
                time_accounting: TimeAccounting::Penalty,
                missing_core: MissingCore::NoScore,
                tie_precision: None,
                winner_needs_reduction: true,
                divisions_won: false,
                lead_and_contribution: true,
                status_mismatch: StatusMismatch::NoScore,
                ..old
            },
            Edition::Smtcomp2020 => old,
            Edition::Smtcomp2021 => Rules {
                ill_formed_is_error: false,
                grouped_divisions: true,
                ..old
            },
            Edition::Smtcomp2022 => old,
            Edition::Smtcomp2023 => Rules {
                time_accounting: TimeAccounting::SolvedOnly,
                timeouts: TimeoutCount::WallClock,
                ..old
            },
            // The 2024 rules text refutes on a sat majority only (the
            // 2018 policy, whose ties and all-unknown validate); the `≥`
            // and "not validated" came with the 2025 rules.
            Edition::Smtcomp2024 => Rules {
                validation: Policy::Smtcomp2018,
                validation_time: Some(300.0),
                negative_reductions: true,
                rank_time: RankTime::Wall,
                seed: SeedFormula::ModuloThenNyse,
                status_mismatch: StatusMismatch::Error,
                ..old
            },
            Edition::Smtcomp2025 => Rules {
                validation: Policy::Smtcomp2025,
                // The same limit as the solving run.
                validation_time: Some(self.time_limit()),
                negative_reductions: false,
                min_assertions: 2,
                best_overall: Some(BestOverall {
                    error_penalty: -2.0,
                    log_base: 10.0,
                }),
                ..old
            },
            Edition::Smtcomp2026 => Rules {
                time_accounting: TimeAccounting::Par2,
                derived_margin: Some(0.10),
                ..old
            },
        }
    }

    /// The logic → division map the edition ships (`divisions/<name>.toml`),
    /// when its divisions group logics.
    pub fn division_map(self) -> Option<&'static str> {
        match self {
            Edition::Smtcomp2021 => Some(include_str!("../../../divisions/smtcomp-2021.toml")),
            Edition::Smtcomp2022 => Some(include_str!("../../../divisions/smtcomp-2022.toml")),
            Edition::Smtcomp2023 => Some(include_str!("../../../divisions/smtcomp-2023.toml")),
            Edition::Smtcomp2024 => Some(include_str!("../../../divisions/smtcomp-2024.toml")),
            Edition::Smtcomp2025 => Some(include_str!("../../../divisions/smtcomp-2025.toml")),
            Edition::Smtcomp2026 => Some(include_str!("../../../divisions/smtcomp-2026.toml")),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limit_table_follows_the_editions() {
        for e in Edition::ALL {
            assert_eq!(e.name().parse::<Edition>(), Ok(e));
            assert_eq!(e.rules().time_limit, e.time_limit());
        }
        assert_eq!(Edition::Smtcomp2019.rules().time_limit, 2400.0);
        assert_eq!(Edition::Smtcomp2020.rules().time_limit, 1200.0);
    }
}
