//! `score_pairs` end to end on small hand-made records.

use super::rules::{Edition, FamilyDef};
use super::*;
use crate::campaign::verdict::pair::CheckerTally;

fn rec(solver: &str, benchmark: &str, a: u64, core: Option<u64>, verdict: Verdict) -> PairRecord {
    PairRecord {
        solver: solver.into(),
        benchmark: benchmark.into(),
        division: "QF_UF".into(),
        assertions: a,
        core_size: core,
        verdict,
        cpu: 1.0,
        wall: 2.0,
        ..PairRecord::default()
    }
}

fn solver<'a>(r: &'a ScoreReport, mode: Mode, name: &str) -> &'a crate::score::result::SolverScore {
    let d = &r.divisions[0];
    let m = if mode == Mode::Parallel {
        &d.parallel
    } else {
        &d.sequential
    };
    m.solvers.iter().find(|s| s.solver == name).unwrap()
}

#[test]
fn family_definition_changes_the_weights() {
    // fam/x has 1 benchmark, fam/y has 2: two families by directory, one by first folder
    let pairs = vec![
        rec("s", "QF_UF/fam/x/1.smt2", 4, Some(1), Verdict::Validated),
        rec("s", "QF_UF/fam/y/2.smt2", 4, Some(4), Verdict::Validated),
        rec("s", "QF_UF/fam/y/3.smt2", 4, Some(4), Verdict::Validated),
    ];
    let mut rules = Edition::Smtcomp2016.rules();
    let dir = score_pairs(&pairs, &rules, &ScoreOptions::default());
    assert_eq!(dir.divisions[0].families, 2);
    // α(x) = 1, α(y) = (1 + ln 2)/2; α′(1) = 1/(1 + 1 + ln 2); n-score = N·α′(1)·3
    let a1 = 1.0 / (2.0 + 2f64.ln());
    assert!((solver(&dir, Mode::Parallel, "s").correct - 3.0 * a1 * 3.0).abs() < 1e-9);
    rules.family = FamilyDef::FirstFolder;
    let first = score_pairs(&pairs, &rules, &ScoreOptions::default());
    assert_eq!(first.divisions[0].families, 1);
    // one family: equal weights 1/3, N = 3: n-score = 3 · (1/3) · 3 = 3
    assert!((solver(&first, Mode::Parallel, "s").correct - 3.0).abs() < 1e-9);
    assert_eq!(first.family, "first-folder");
}

#[test]
fn exclusions_duplicates_rejudging_and_gaps() {
    let tally = CheckerTally {
        sat: 1,
        unsat: 2,
        unknown: 0,
        producer_sat: false,
    };
    let mut checked = rec("a", "QF_UF/f/1.smt2", 10, Some(3), Verdict::Validated);
    checked.checks = Some(tally);
    let pairs = vec![
        checked,
        rec("b", "QF_UF/f/1.smt2", 10, Some(5), Verdict::Validated),
        rec("b", "QF_UF/f/1.smt2", 10, Some(2), Verdict::Validated),
        rec("a", "QF_UF/f/tiny.smt2", 1, Some(1), Verdict::Validated),
    ];
    // 2025 leaves out benchmarks with fewer than 2 assertions and keeps the first duplicate
    let r = score_pairs(
        &pairs,
        &Edition::Smtcomp2025.rules(),
        &ScoreOptions::default(),
    );
    assert_eq!((r.pairs, r.excluded_pairs), (2, 1));
    assert!(r.warnings[0].starts_with("1 duplicate"), "{:?}", r.warnings);
    assert_eq!(solver(&r, Mode::Parallel, "a").correct, 7.0);
    assert_eq!(solver(&r, Mode::Parallel, "b").gap_to_best, 2);
    assert_eq!(r.divisions[0].virtual_best.correct, 7);
    // the 2016 validation rule refutes on any sat, but only when asked to re-judge
    let r16 = score_pairs(
        &pairs,
        &Edition::Smtcomp2016.rules(),
        &ScoreOptions::default(),
    );
    assert_eq!(solver(&r16, Mode::Parallel, "a").error_pairs, 0);
    let opts = ScoreOptions {
        rejudge: true,
        ..ScoreOptions::default()
    };
    let r16 = score_pairs(&pairs, &Edition::Smtcomp2016.rules(), &opts);
    assert_eq!(r16.rejudged_pairs, 1);
    assert_eq!(solver(&r16, Mode::Parallel, "a").error_pairs, 1);
    let row = r16
        .pair_rows
        .iter()
        .find(|p| &*p.solver == "a" && p.assertions == 10)
        .unwrap();
    assert_eq!(
        (&row.verdict, &row.scored_verdict),
        (&Verdict::Validated, &Verdict::Refuted)
    );
}

#[test]
fn unlisted_participants_are_warned_about() {
    let participants = Participants::parse("solver,team,competing\na,T,yes\n", "p").unwrap();
    let pairs = vec![
        rec("a", "QF_UF/f/1.smt2", 3, Some(1), Verdict::Validated),
        rec("b", "QF_UF/f/1.smt2", 3, Some(1), Verdict::Validated),
    ];
    let opts = ScoreOptions {
        participants,
        ..ScoreOptions::default()
    };
    let r = score_pairs(&pairs, &Edition::Smtcomp2019.rules(), &opts);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.contains("`b` is not in the participants table")));
    assert!(!r.divisions[0].competitive);
    assert!(!solver(&r, Mode::Parallel, "b").competing);
}
