//! The author's solver's team, by declaration and by observation: `--team`,
//! the checkers whose program (or wrapper script, or name) its command runs
//! ([`crate::checkers::identity::runs_words`]), and the checkers whose
//! program was seen running in its process tree during the solve stage
//! ([`crate::campaign::setup::team::Executed`] over the `programs` of its run
//! records, as for a campaign's solvers). The solve stage runs before any core is checked, so a wrapper
//! script that runs a Python script that runs z3 is team z3 before z3 could
//! judge one of its cores. A child that lived between two looks of the
//! runner is missed (`runner/observe.rs`); `--team` covers that case.
//! [`references`] picks the reference solvers by team.

use crate::campaign::ledger::records::RunRecord;
use crate::campaign::setup::team::Executed;
use crate::checkers::SolverDef;

/// The checkers seen running in `solver`'s runs that `known` does not list
/// yet, each with why, and their teams: what `executed` (the solver's, or
/// a fresh one) learns from the runs, as a campaign's stages learn it
/// ([`crate::campaign::setup::team::Executed::note`]).
pub fn seen(
    runs: &[RunRecord],
    solver: &str,
    defs: &[SolverDef],
    known: &[(String, String)],
    executed: &Executed,
) -> (Vec<(String, String)>, Vec<String>) {
    let programs = runs
        .iter()
        .filter(|r| r.solver == solver)
        .flat_map(|r| r.programs.iter().map(String::as_str));
    let found: Vec<_> = executed
        .note(programs, defs)
        .into_iter()
        .filter(|m| !known.iter().any(|(x, _)| *x == m.checker))
        .collect();
    let mut teams: Vec<String> = Vec::new();
    for m in &found {
        if !teams.contains(&m.team) {
            teams.push(m.team.clone());
        }
    }
    (
        found.into_iter().map(|m| (m.checker, m.why)).collect(),
        teams,
    )
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

/// The reference solvers: of the checkers that produce cores, the first of
/// each team in `checkers`' order, none of the solver's own `teams` (all of
/// them, observed ones included: a reference of its team would only
/// confirm the solver's own). One per team: the others of a team mostly
/// repeat its answers, and cvc5's and cvc5-py's minimal cores cost many
/// times a whole selfcheck without references.
pub fn references<'a>(checkers: &'a [SolverDef], teams: &[String]) -> Vec<&'a SolverDef> {
    let mut picked: Vec<&SolverDef> = Vec::new();
    for k in checkers
        .iter()
        .filter(|k| k.produces_cores && !teams.contains(&k.team))
    {
        if !picked.iter().any(|p| p.team == k.team) {
            picked.push(k);
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_reference_per_team_and_none_of_the_solvers_team() {
        let defs = crate::checkers::load_dir(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("checkers"),
        )
        .unwrap();
        let pick = |names: &[&str], team: &str| -> Vec<String> {
            let ks: Vec<SolverDef> = names
                .iter()
                .map(|n| defs.iter().find(|d| d.name == *n).unwrap().clone())
                .collect();
            references(&ks, &[team.to_string()])
                .iter()
                .map(|k| k.name.clone())
                .collect()
        };
        let all = [
            "bitwuzla",
            "boolector",
            "cvc4",
            "cvc5-py",
            "cvc5",
            "yices",
            "z3",
        ];
        assert_eq!(pick(&all, "z3"), ["bitwuzla", "cvc4", "yices"]);
        assert_eq!(pick(&all, "cvc"), ["bitwuzla", "yices", "z3"]);
        assert_eq!(
            pick(&["yices", "z3", "cvc5", "cvc4"], "z3"),
            ["yices", "cvc5"]
        );
        assert!(
            pick(&["boolector"], "z3").is_empty(),
            "boolector prints no cores"
        );
        let ks: Vec<SolverDef> = defs
            .iter()
            .filter(|d| all.contains(&d.name.as_str()))
            .cloned()
            .collect();
        let both: Vec<String> = references(&ks, &["mine".into(), "z3".into()])
            .iter()
            .map(|k| k.name.clone())
            .collect();
        assert!(
            !both.contains(&"z3".to_string()),
            "an observed team counts: {both:?}"
        );
    }
}
