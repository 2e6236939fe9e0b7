//! The solver time limit of each rules edition, the one table both the
//! campaign (its default `[limits] time`) and the score presets
//! (`Rules::time_limit`) read, so that a campaign naming an edition runs
//! under that edition's limit unless its config says otherwise.

/// Seconds per solver run of every edition, oldest first, in the order of
/// `score::editions::Edition::ALL` (a test there checks the names match).
pub const EDITION_TIME_LIMITS: [(&str, f64); 11] = [
    ("smtcomp-2016", 2400.0),
    ("smtcomp-2017", 2400.0),
    ("smtcomp-2018", 2400.0),
    ("smtcomp-2019", 2400.0),
    ("smtcomp-2020", 1200.0),
    ("smtcomp-2021", 1200.0),
    ("smtcomp-2022", 1200.0),
    ("smtcomp-2023", 1200.0),
    ("smtcomp-2024", 1200.0),
    ("smtcomp-2025", 1200.0),
    ("smtcomp-2026", 1200.0),
];

/// The time limit of the edition named `rules` (`smtcomp-2019`), if it is one.
pub fn edition_time_limit(rules: &str) -> Option<f64> {
    EDITION_TIME_LIMITS
        .iter()
        .find(|(name, _)| *name == rules)
        .map(|&(_, t)| t)
}
