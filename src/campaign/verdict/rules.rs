//! The rules editions coreval can score by, each a preset whose parameters
//! are spelled out in one [`Rules`] value, so that a report can say exactly
//! what it applied and a user can build a variant.
//!
//! Sources (see `docs/RULES.md`): SMT-COMP 2016 rules §7, the 2015–2018
//! competition report §7–8, the 2019 ranking refinements, and what the
//! published results show. Where the published numbers disagree with the
//! rules text, the preset follows the published numbers and says so:
//! the 2016 unsat-core results multiply error and reduction scores by N
//! (as the 2017–2018 text describes), and take a benchmark's whole
//! directory as its family.

use super::pair::{CheckerTally, Verdict};
use super::policy::Policy;
use serde::{Deserialize, Serialize};

/// A named rules edition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Edition {
    /// SMT-COMP 2016: family weights, N-scaled, checkers z3/cvc4/mathsat.
    #[serde(rename = "smtcomp-2016")]
    Smtcomp2016,
    /// SMT-COMP 2017: as 2016; a core is refuted by a sat majority or by the
    /// producing solver itself.
    #[serde(rename = "smtcomp-2017")]
    Smtcomp2017,
    /// SMT-COMP 2018: as 2017 without the producer clause.
    #[serde(rename = "smtcomp-2018")]
    Smtcomp2018,
    /// SMT-COMP 2019: plain sums, time penalties, biggest lead and largest
    /// contribution.
    #[serde(rename = "smtcomp-2019")]
    Smtcomp2019,
    /// SMT-COMP 2020: as 2019 with a 1200 s limit.
    #[serde(rename = "smtcomp-2020")]
    Smtcomp2020,
    /// SMT-COMP 2021: malformed cores are no error; multi-logic divisions.
    #[serde(rename = "smtcomp-2021")]
    Smtcomp2021,
    /// SMT-COMP 2022: as 2021 with that year's divisions.
    #[serde(rename = "smtcomp-2022")]
    Smtcomp2022,
    /// SMT-COMP 2023: time for answered pairs only, wall-clock timeouts.
    #[serde(rename = "smtcomp-2023")]
    Smtcomp2023,
    /// SMT-COMP 2024: the `smtcomp` tool's scoring; cores judged by the
    /// 2024 rules text (a sat majority refutes), checkers 300 s.
    #[serde(rename = "smtcomp-2024")]
    Smtcomp2024,
    /// SMT-COMP 2025: strict validation (an unsat majority, else not
    /// validated), checkers get the solving limit, best overall ranking.
    #[serde(rename = "smtcomp-2025")]
    Smtcomp2025,
    /// SMT-COMP 2026: PAR-2 times and the derived-solver rule (a PAR-2
    /// score 10 % better than its base solver's).
    #[serde(rename = "smtcomp-2026")]
    Smtcomp2026,
}

impl Edition {
    /// Every edition, oldest first.
    pub const ALL: [Edition; 11] = [
        Edition::Smtcomp2016,
        Edition::Smtcomp2017,
        Edition::Smtcomp2018,
        Edition::Smtcomp2019,
        Edition::Smtcomp2020,
        Edition::Smtcomp2021,
        Edition::Smtcomp2022,
        Edition::Smtcomp2023,
        Edition::Smtcomp2024,
        Edition::Smtcomp2025,
        Edition::Smtcomp2026,
    ];

    /// The preset's name as used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Edition::Smtcomp2016 => "smtcomp-2016",
            Edition::Smtcomp2017 => "smtcomp-2017",
            Edition::Smtcomp2018 => "smtcomp-2018",
            Edition::Smtcomp2019 => "smtcomp-2019",
            Edition::Smtcomp2020 => "smtcomp-2020",
            Edition::Smtcomp2021 => "smtcomp-2021",
            Edition::Smtcomp2022 => "smtcomp-2022",
            Edition::Smtcomp2023 => "smtcomp-2023",
            Edition::Smtcomp2024 => "smtcomp-2024",
            Edition::Smtcomp2025 => "smtcomp-2025",
            Edition::Smtcomp2026 => "smtcomp-2026",
        }
    }

    /// Seconds per solver run: the campaign's default `[limits] time` and
    /// the preset's `Rules::time_limit` (2400 s until 2019, 1200 s since).
    pub fn time_limit(self) -> f64 {
        if self <= Edition::Smtcomp2019 {
            2400.0
        } else {
            1200.0
        }
    }
}

/// What a benchmark family is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FamilyDef {
    /// The first folder below the logic folder (the rules text, 2016 §7.3).
    FirstFolder,
    /// The benchmark's whole directory (what the 2016–2018 scoring programs
    /// computed, and so the published results of those years).
    Directory,
}

impl FamilyDef {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            FamilyDef::FirstFolder => "first-folder",
            FamilyDef::Directory => "directory",
        }
    }
}

/// Parse a kebab-case name through serde, whose error names every variant
/// (`unknown variant `x`, expected one of `a`, `b``).
fn parse_name<T: serde::de::DeserializeOwned>(what: &str, name: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(name.to_string()))
        .map_err(|e| format!("unknown {what} '{name}': {e}"))
}

impl std::str::FromStr for Edition {
    type Err = String;
    fn from_str(name: &str) -> Result<Self, String> {
        parse_name("rules edition", name)
    }
}

impl std::str::FromStr for FamilyDef {
    type Err = String;
    fn from_str(name: &str) -> Result<Self, String> {
        parse_name("family definition", name)
    }
}

/// How times beyond the limit T and memory-outs are accounted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeAccounting {
    /// 2016–2018 (rules §7.2 as the scoring program did it): the parallel
    /// score takes the measured times as they are; the sequential score
    /// discards the answer of a pair with c > T and takes c = T, leaving w.
    Clamp,
    /// 2019 on (verified against the published 2019 numbers): a memout gets
    /// c = w = T; a pair whose relevant clock (CPU for sequential, wall for
    /// parallel) exceeds T gets c = w = T, its answer discarded, and counts
    /// as a timeout.
    Penalty,
    /// 2023/2024 on (the `smtcomp` tool, rules23–25): CPU and wall scores
    /// count only pairs with an answer (`sat` or `unsat`); a sequential pair
    /// whose CPU time exceeds T scores nothing at all, time included; a pair
    /// over T in wall time has its answer discarded and adds no time.
    SolvedOnly,
    /// 2026 (rules26): PAR-2. A solved pair adds its time; every other pair
    /// (timeout, memout, unknown, error, over the limit) adds 2T.
    Par2,
}

/// Which pairs the published timeout count includes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeoutCount {
    /// Status timeout, or the mode's clock over T (2016–2022 programs).
    OverLimit,
    /// Wall-clock timeouts only, the same in both modes (2023 on).
    WallClock,
}

/// Which time breaks ties after errors and reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RankTime {
    /// CPU time in the sequential ranking, wall time in the parallel one
    /// (rules §7.3 up to 2023).
    ByMode,
    /// Wall time in both rankings (the `smtcomp` tool sorts every page by
    /// error, reduction, wall time, CPU time).
    Wall,
}

/// What an answer that contradicts the benchmark's expected status is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StatusMismatch {
    /// As the verdict says: a `sat` answer is an error (the rules text,
    /// and the `smtcomp` tool from 2024).
    Error,
    /// Nothing, no error either: the 2019–2023 scoring program scored only
    /// answers matching the expected status (or of unknown status), so a
    /// `sat` on a benchmark expected `unsat` counted as no answer. This is
    /// what reproduces the pages those programs published (2020 UF).
    NoScore,
}

impl std::str::FromStr for StatusMismatch {
    type Err = String;
    fn from_str(name: &str) -> Result<Self, String> {
        parse_name("status-mismatch rule", name)
    }
}

/// How the scrambling seed is derived from the entrants' numbers and the
/// NYSE Composite opening value (RULES.md §10); `coreval scramble --rules`
/// computes it (`scramble::random::seed_from_entrants`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeedFormula {
    /// (Σ numbers + ⌊NYSE⌋) mod 2³⁰ (rules text 2016–2023).
    SumModulo,
    /// (Σ numbers mod 2³⁰) + ⌊100 × NYSE⌋ (the `smtcomp` tool, 2024 on).
    ModuloThenNyse,
}

/// What an `unsat` answer without a core is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MissingCore {
    /// An error (2016–2018: the scoring program counted an unreadable core
    /// as an error, and the empty core it amounts to is refuted).
    Error,
    /// No reduction, no error (2019 on).
    NoScore,
}

/// The 2025 competition-wide "best overall" ranking parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BestOverall {
    /// Points for a division in which the solver made an error (−2).
    pub error_penalty: f64,
    /// Base of the logarithm of the division size (10).
    pub log_base: f64,
}

/// Every parameter that differs between editions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rules {
    /// The preset these parameters come from (or were derived from).
    pub edition: Edition,
    /// T: the wall-clock limit in seconds, also the virtual CPU limit of the
    /// sequential score.
    pub time_limit: f64,
    /// Weigh benchmarks by family: α_b = (1 + ln F_b)/F_b, normalised over
    /// the division (2016–2018).
    pub family_weights: bool,
    /// Multiply weighted error and reduction scores by N, the division's
    /// number of benchmarks (2016–2018 as published).
    pub n_scaling: bool,
    /// Default family definition (`--family` overrides it).
    pub family: FamilyDef,
    /// Only runs that ended by themselves (StarExec status `complete`) have
    /// their answer scored (2016–2018 scoring program).
    pub answer_needs_complete_run: bool,
    /// Treatment of over-limit times and memouts.
    pub time_accounting: TimeAccounting,
    /// An ill-formed core is an error (2016–2020); from 2021 it scores 0.
    pub ill_formed_is_error: bool,
    /// What `unsat` without a core is worth.
    pub missing_core: MissingCore,
    /// When the checkers validate a core (used with `--rejudge`): the
    /// edition's decision policy (RULES.md §4, [`super::policy`]).
    pub validation: Policy,
    /// Wall-clock seconds a checker had per core-only benchmark in the
    /// edition (RULES.md §4): about 5 min in 2017 and 2024 (300 s), 120 s
    /// in 2018–2023, the solving limit from 2025; `None` where the
    /// edition does not say (2016). A campaign's own limit is `[limits]
    /// checker_time`.
    pub validation_time: Option<f64>,
    /// Error and reduction scores closer than this count as equal when
    /// ranking (the 2016–2018 program compared them rounded to hundredths).
    pub tie_precision: Option<f64>,
    /// A division has no winner when its best competing solver has no
    /// reduction at all (2019 on).
    pub winner_needs_reduction: bool,
    /// Benchmarks with fewer named assertions than this are left out (2025: 2).
    pub min_assertions: u64,
    /// Track-wide: count competitive divisions won (2015–2018).
    pub divisions_won: bool,
    /// Track-wide: biggest lead and largest contribution (2019 on).
    pub lead_and_contribution: bool,
    /// Track-wide: best overall (2025).
    pub best_overall: Option<BestOverall>,
    /// Which pairs count as timeouts in the published count.
    pub timeouts: TimeoutCount,
    /// Which time breaks ties in each ranking.
    pub rank_time: RankTime,
    /// A reduction is A − |core| even when negative (2024: the tool's
    /// assertion count was sometimes smaller than a core). Otherwise such a
    /// pair scores 0. Every such pair is flagged in the report either way.
    pub negative_reductions: bool,
    /// Divisions group several logics (2021 on): the edition ships a
    /// logic → division map, `divisions/<edition>.toml`.
    pub grouped_divisions: bool,
    /// A solver derived from another (participants column `derived from`)
    /// may win a logic or division only when its PAR-2 score there (the
    /// mode's time score: CPU in the sequential ranking, wall in the
    /// parallel one) is at least this fraction lower than its base
    /// solver's (2026: 0.10), and a track-wide recognition only when it
    /// is so in at least one division; otherwise it is shown hors concours
    /// there (`score::derived`).
    pub derived_margin: Option<f64>,
    /// How the edition derived its scrambling seed.
    pub seed: SeedFormula,
    /// What an answer contradicting the expected status is worth.
    pub status_mismatch: StatusMismatch,
}

impl Rules {
    /// The verdict the checkers' tally gives under this edition.
    pub fn core_verdict(&self, t: &CheckerTally) -> Verdict {
        self.validation.decide(t).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(sat: u32, unsat: u32, unknown: u32) -> CheckerTally {
        CheckerTally {
            sat,
            unsat,
            unknown,
            producer_sat: false,
        }
    }

    #[test]
    fn validation_rules_per_edition() {
        let r16 = Edition::Smtcomp2016.rules();
        let r17 = Edition::Smtcomp2017.rules();
        let r18 = Edition::Smtcomp2018.rules();
        let r25 = Edition::Smtcomp2025.rules();
        // one sat among two unsat: 2016 refutes, majority rules do not
        assert_eq!(r16.core_verdict(&tally(1, 2, 0)), Verdict::Refuted);
        assert_eq!(r18.core_verdict(&tally(1, 2, 0)), Verdict::Validated);
        assert_eq!(r25.core_verdict(&tally(1, 2, 0)), Verdict::Validated);
        // a tie: validated up to 2024, refuted in 2025
        assert_eq!(r18.core_verdict(&tally(1, 1, 1)), Verdict::Validated);
        assert_eq!(r25.core_verdict(&tally(1, 1, 1)), Verdict::Refuted);
        // all unknown: validated before 2025, not validated in 2025
        assert_eq!(r16.core_verdict(&tally(0, 0, 3)), Verdict::Validated);
        assert_eq!(r18.core_verdict(&tally(0, 0, 3)), Verdict::Validated);
        assert_eq!(r25.core_verdict(&tally(0, 0, 3)), Verdict::NotValidated);
        // 2024 judged by its own rules text: a sat majority refutes, a tie
        // or all-unknown validates (the `≥` and "not validated" are 2025's)
        let r24 = Edition::Smtcomp2024.rules();
        assert_eq!(r24.validation, Policy::Smtcomp2018);
        assert_eq!(r24.core_verdict(&tally(1, 1, 1)), Verdict::Validated);
        assert_eq!(r24.core_verdict(&tally(0, 0, 3)), Verdict::Validated);
        assert_eq!(r24.core_verdict(&tally(2, 1, 0)), Verdict::Refuted);
        assert_eq!(r24.core_verdict(&tally(1, 0, 2)), Verdict::Refuted);
        // the 2017 producer clause
        let mut t = tally(0, 2, 0);
        t.producer_sat = true;
        assert_eq!(r17.core_verdict(&t), Verdict::Refuted);
        assert_eq!(r18.core_verdict(&t), Verdict::Validated);
    }

    #[test]
    fn presets_are_explicit() {
        let r16 = Edition::Smtcomp2016.rules();
        assert!(r16.family_weights && r16.n_scaling);
        assert_eq!(r16.family, FamilyDef::Directory);
        let r19 = Edition::Smtcomp2019.rules();
        assert!(!r19.family_weights && !r19.n_scaling);
        assert_eq!(r19.time_accounting, TimeAccounting::Penalty);
        let r25 = Edition::Smtcomp2025.rules();
        assert_eq!(r25.time_limit, 1200.0);
        assert!(!r25.ill_formed_is_error && r25.best_overall.is_some());
        for e in Edition::ALL {
            assert_eq!(e.rules().edition, e);
        }
    }

    #[test]
    fn validation_time_per_edition() {
        let secs = |e: Edition| e.rules().validation_time;
        assert_eq!(secs(Edition::Smtcomp2016), None);
        assert_eq!(secs(Edition::Smtcomp2017), Some(300.0));
        for e in [
            Edition::Smtcomp2018,
            Edition::Smtcomp2020,
            Edition::Smtcomp2023,
        ] {
            assert_eq!(secs(e), Some(120.0), "{}", e.name());
        }
        // the 2024 tool's validation scripts: 300 s, not the solving limit
        assert_eq!(secs(Edition::Smtcomp2024), Some(300.0));
        for e in [Edition::Smtcomp2025, Edition::Smtcomp2026] {
            assert_eq!(secs(e), Some(e.time_limit()), "{}", e.name());
        }
    }
}
