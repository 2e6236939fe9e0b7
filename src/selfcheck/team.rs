//! The author's solver's team, by declaration and by observation: `--team`,
//! the checkers whose program (or wrapper script, or name) its command runs
//! ([`crate::checkers::identity::runs_words`]), and the checkers whose
//! program was seen running in its process tree during the solve stage
//! ([`crate::checkers::identity::runs_seen`] over the `programs` of its run
//! records). The solve stage runs before any core is checked, so a wrapper
//! script that runs a Python script that runs z3 is team z3 before z3 could
//! judge one of its cores. A child that lived between two looks of the
//! runner is missed (`runner/observe.rs`); `--team` covers that case.

use crate::campaign::records::RunRecord;
use crate::checkers::SolverDef;
use std::path::PathBuf;

/// The checkers seen running in `solver`'s runs that `known` does not list
/// yet, each with why, and their teams.
pub fn seen(
    runs: &[RunRecord],
    solver: &str,
    defs: &[SolverDef],
    known: &[(String, String)],
) -> (Vec<(String, String)>, Vec<String>) {
    let mut programs: Vec<PathBuf> = runs
        .iter()
        .filter(|r| r.solver == solver)
        .flat_map(|r| r.programs.iter().map(PathBuf::from))
        .collect();
    programs.sort();
    programs.dedup();
    let found: Vec<(String, String)> = crate::checkers::identity::runs_seen(&programs, defs)
        .into_iter()
        .filter(|(k, _)| !known.iter().any(|(x, _)| x == k))
        .collect();
    let mut teams: Vec<String> = Vec::new();
    for (k, _) in &found {
        if let Some(d) = defs.iter().find(|d| &d.name == k) {
            if !teams.contains(&d.team) {
                teams.push(d.team.clone());
            }
        }
    }
    (found, teams)
}

/// How the team was decided, for the header: `declared with --team`,
/// nothing when a checker's program decided it (the list says which), or
/// the default with the hint to declare it.
pub fn how(declared: bool, runs: &[(String, String)]) -> Option<String> {
    match (declared, runs.is_empty()) {
        (true, _) => Some("declared with --team".into()),
        (false, false) => None,
        (false, true) => Some(
            "the program's file name: no checker's program is named by the command or was seen \
             running in its process tree; if your solver runs another solver, say so with --team NAME"
                .into(),
        ),
    }
}
