//! The answer-track presets (`coreval score --answers PRESET`): how each
//! answer track scored `sat`/`unsat` answers, from its rules text
//! (docs/RULES.md §11 names the sources):
//!
//! - `smtcomp-2005` (the first SMT-COMP, §2.3 and Fig. 1): +1 per correct
//!   answer, −8 per wrong `unsat`, −4 per wrong `sat`; ties broken by the
//!   lower average CPU time on the formulas that did not time out.
//! - `main-2015` … `main-2018` (SMT-COMP main track; the 2015–2018 report
//!   §7.1): ⟨e, n, w, c⟩ per benchmark, e = wrong answer, n = correct
//!   answer; from 2016 family weights α′ with ⟨e·N, n·N, w, c⟩; sequential
//!   score under a virtual CPU limit T; removal of disagreements on
//!   benchmarks of unknown status.
//! - `sq-2019` … `sq-2026` (single-query track): the same per-benchmark
//!   score, plain sums, the time accounting of that year's edition (the
//!   unsat-core preset of the same year: limit, timeouts, what a timeout
//!   adds).
//! - `chccomp-2018` (CHC-COMP 2018 rules, "Scoring", after SMT-COMP 2017):
//!   as the 2017 main track, T = 40 minutes.

use crate::score::rules::{Edition, FamilyDef, MissingCore, Rules, StatusMismatch, TimeAccounting};
use anyhow::{bail, Result};

/// One answer-track preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerPreset {
    /// SMT-COMP 2005: points and penalties.
    Smtcomp2005,
    /// SMT-COMP main track of the given year (2015–2018).
    Main(u16),
    /// SMT-COMP single-query track of the given edition (2019–2026).
    SingleQuery(Edition),
    /// CHC-COMP 2018.
    Chccomp2018,
}

impl AnswerPreset {
    /// Every preset name, for messages and README.
    pub fn names() -> Vec<String> {
        let mut v = vec!["smtcomp-2005".to_string()];
        v.extend((2015..=2018).map(|y| format!("main-{y}")));
        v.extend((2019..=2026).map(|y| format!("sq-{y}")));
        v.push("chccomp-2018".into());
        v
    }

    /// Parse a preset name.
    pub fn parse(name: &str) -> Result<Self> {
        let year = |prefix: &str| {
            name.strip_prefix(prefix)
                .and_then(|y| y.parse::<u16>().ok())
        };
        let p = match name {
            "smtcomp-2005" => Some(AnswerPreset::Smtcomp2005),
            "chccomp-2018" => Some(AnswerPreset::Chccomp2018),
            _ => match (year("main-"), year("sq-")) {
                (Some(y @ 2015..=2018), _) => Some(AnswerPreset::Main(y)),
                (_, Some(y @ 2019..=2026)) => format!("smtcomp-{y}")
                    .parse::<Edition>()
                    .ok()
                    .map(AnswerPreset::SingleQuery),
                _ => None,
            },
        };
        match p {
            Some(p) => Ok(p),
            None => bail!(
                "unknown answer preset `{name}` (one of: {})",
                Self::names().join(", ")
            ),
        }
    }

    /// The preset's name.
    pub fn name(self) -> String {
        match self {
            AnswerPreset::Smtcomp2005 => "smtcomp-2005".into(),
            AnswerPreset::Main(y) => format!("main-{y}"),
            AnswerPreset::SingleQuery(e) => e.name().replace("smtcomp-", "sq-"),
            AnswerPreset::Chccomp2018 => "chccomp-2018".into(),
        }
    }

    /// Whether answers on benchmarks of unknown status count, after the
    /// removal of disagreements (main track from 2017, single query,
    /// CHC-COMP); otherwise such benchmarks are left out (2005: the
    /// organizers fixed every status in advance; 2015–2016: known status
    /// only).
    pub fn unknown_status_counts(self) -> bool {
        !matches!(
            self,
            AnswerPreset::Smtcomp2005 | AnswerPreset::Main(2015 | 2016)
        )
    }

    /// The scoring parameters, as the core scorer reads them: a correct
    /// answer is worth n = 1, a wrong one e = 1; the core-only settings are
    /// neutral (no assertion minimum, no reductions).
    pub fn rules(self) -> Rules {
        // 2016 as the base of the weighted years: weights, ×N, Clamp
        let weighted = Rules {
            min_assertions: 0,
            answer_needs_complete_run: false,
            missing_core: MissingCore::NoScore,
            status_mismatch: StatusMismatch::Error,
            divisions_won: false,
            lead_and_contribution: false,
            best_overall: None,
            grouped_divisions: false,
            family: FamilyDef::FirstFolder,
            ..Edition::Smtcomp2016.rules()
        };
        match self {
            AnswerPreset::Smtcomp2005 => Rules {
                time_limit: 300.0,
                family_weights: false,
                n_scaling: false,
                tie_precision: None,
                ..weighted
            },
            AnswerPreset::Main(2015) => Rules {
                family_weights: false,
                n_scaling: false,
                ..weighted
            },
            AnswerPreset::Main(2016) => weighted,
            AnswerPreset::Main(_) => Rules {
                time_limit: 1200.0,
                ..weighted
            },
            AnswerPreset::Chccomp2018 => weighted,
            AnswerPreset::SingleQuery(e) => Rules {
                min_assertions: 0,
                missing_core: MissingCore::NoScore,
                status_mismatch: StatusMismatch::Error,
                negative_reductions: false,
                grouped_divisions: false,
                lead_and_contribution: false,
                best_overall: None,
                winner_needs_reduction: true,
                ..e.rules()
            },
        }
    }

    /// 2005's points: +1 per correct answer, −8 per wrong `unsat`, −4 per
    /// wrong `sat` (the "errors" column holds the penalty points).
    pub fn penalty(self, wrong_unsat: bool) -> f64 {
        match self {
            AnswerPreset::Smtcomp2005 if wrong_unsat => 8.0,
            AnswerPreset::Smtcomp2005 => 4.0,
            _ => 1.0,
        }
    }

    /// True for the preset that ranks by points (2005).
    pub fn ranks_by_points(self) -> bool {
        self == AnswerPreset::Smtcomp2005
    }

    /// What a timeout adds to the time scores (for README and tests).
    pub fn time_accounting(self) -> TimeAccounting {
        self.rules().time_accounting
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        for n in AnswerPreset::names() {
            assert_eq!(AnswerPreset::parse(&n).unwrap().name(), n);
        }
        assert!(AnswerPreset::parse("sq-2018").is_err());
        assert!(AnswerPreset::parse("main-2019").is_err());
        let e = AnswerPreset::parse("sq").unwrap_err().to_string();
        assert!(e.contains("sq-2019"), "{e}");
    }

    #[test]
    fn limits_follow_the_years() {
        let t = |n: &str| AnswerPreset::parse(n).unwrap().rules().time_limit;
        assert_eq!(t("main-2015"), 2400.0);
        assert_eq!(t("main-2016"), 2400.0);
        assert_eq!(t("main-2017"), 1200.0);
        assert_eq!(t("sq-2019"), 2400.0);
        assert_eq!(t("sq-2020"), 1200.0);
        assert_eq!(t("chccomp-2018"), 2400.0);
        assert!(AnswerPreset::parse("main-2017").unwrap().rules().n_scaling);
        assert!(
            !AnswerPreset::parse("sq-2019")
                .unwrap()
                .rules()
                .family_weights
        );
    }
}
