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

/// SMT-COMP 2026 end to end: a derived solver wins a logic or division only
/// with a PAR-2 score 10 % below its base's there, and a track-wide
/// recognition only when it has that in some division.
#[test]
fn derived_solvers_by_par2_per_logic_division_and_for_the_recognitions() {
    let participants = Participants::parse(
        "solver,team,competing,derived from\nbase,A,yes,\nfast,B,yes,base\nslow,C,yes,base\nother,D,yes,\n",
        "p",
    )
    .unwrap();
    // (solver, logic, benchmark, core size, seconds)
    let runs: &[(&str, &str, &str, u64, f64)] = &[
        // QF_UF: fast takes half the base's time, slow has more reduction
        // but only 5 % less time
        ("base", "QF_UF", "1", 5, 100.0),
        ("fast", "QF_UF", "1", 5, 50.0),
        ("slow", "QF_UF", "1", 4, 95.0),
        ("other", "QF_UF", "1", 6, 10.0),
        // QF_AX: fast as slow as its base; slow alone reaches the best core
        ("base", "QF_AX", "2", 5, 100.0),
        ("fast", "QF_AX", "2", 5, 100.0),
        ("slow", "QF_AX", "2", 1, 100.0),
        ("other", "QF_AX", "2", 5, 100.0),
    ];
    let pairs: Vec<PairRecord> = runs
        .iter()
        .map(|&(s, logic, b, core, t)| PairRecord {
            division: logic.into(),
            cpu: t,
            wall: t,
            ..rec(
                s,
                &format!("{logic}/f/{b}.smt2"),
                10,
                Some(core),
                Verdict::Validated,
            )
        })
        .collect();
    let rules = Edition::Smtcomp2026.rules();
    let opts = ScoreOptions {
        participants,
        divisions: DivisionMap::of_edition(Edition::Smtcomp2026),
        ..ScoreOptions::default()
    };
    let r = score_pairs(&pairs, &rules, &opts);
    let competing = |d: &DivisionScore, s: &str| {
        d.parallel
            .solvers
            .iter()
            .find(|x| x.solver == s)
            .unwrap()
            .competing
    };
    // the division QF_Equality = QF_AX + QF_UF: fast 150 s against 200 s
    assert_eq!(r.divisions.len(), 1);
    let div = &r.divisions[0];
    assert_eq!(div.name, "QF_Equality");
    assert!(competing(div, "fast") && !competing(div, "slow"));
    let logics = r.logics.as_ref().unwrap();
    let logic = |name: &str| logics.iter().find(|l| l.name == name).unwrap();
    assert!(competing(logic("QF_UF"), "fast") && !competing(logic("QF_UF"), "slow"));
    assert!(!competing(logic("QF_AX"), "fast") && !competing(logic("QF_AX"), "slow"));
    // slow has the most reduction in QF_AX but cannot win it
    assert_eq!(logic("QF_AX").parallel.solvers[0].solver, "slow");
    assert_ne!(logic("QF_AX").parallel.winner.as_deref(), Some("slow"));
    // the track: fast may win the recognitions, slow may not
    let slow = r.derived.iter().find(|d| d.solver == "slow").unwrap();
    assert!(!slow.mode(Mode::Parallel).may_win_recognitions);
    let fast = r.derived.iter().find(|d| d.solver == "fast").unwrap();
    assert_eq!(fast.mode(Mode::Parallel).improves_in, ["QF_Equality"]);
    assert!(fast.mode(Mode::Parallel).improves_in_track);
    let overall = &r.recognitions.best_overall.as_ref().unwrap().parallel;
    let entry = |s: &str| overall.iter().find(|o| o.solver == s).unwrap();
    assert!(entry("fast").competing && !entry("slow").competing);
    // slow alone lowers the virtual best, yet is not the division's top
    // contributor
    let contribution = &r
        .recognitions
        .largest_contribution
        .as_ref()
        .unwrap()
        .parallel;
    assert!(
        contribution.iter().all(|c| c.solver != "slow"),
        "{contribution:?}"
    );
    assert!(r
        .warnings
        .iter()
        .any(|w| w.contains("slow improves on the PAR-2 score of base by 10 % in no division")));
}
