//! Division scores (RULES.md §6): benchmark families and their weights, the
//! per-solver sums (weighted and N-scaled in 2016–2018, plain from 2019),
//! the lexicographic ranking and the competitive-division test.

use super::pair::{Mode, PairScore};
use super::participants::Participants;
use super::rules::{FamilyDef, RankTime, Rules};
use crate::score::result::{ModeScore, SolverScore};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The family of a benchmark. `benchmark` is a path whose folders below the
/// component equal to `division` (or, when there is none, all its folders)
/// are the family folders: `first-folder` takes the first of them,
/// `directory` all of them. A benchmark directly in the logic folder is in
/// the family `.`.
pub fn family_of(benchmark: &str, division: &str, def: FamilyDef) -> String {
    let parts: Vec<&str> = benchmark.split('/').filter(|p| !p.is_empty()).collect();
    let folders = &parts[..parts.len().saturating_sub(1)];
    let below = match folders.iter().position(|p| *p == division) {
        Some(i) => &folders[i + 1..],
        None => folders,
    };
    let fam = match def {
        FamilyDef::FirstFolder => below.first().map(|s| s.to_string()).unwrap_or_default(),
        FamilyDef::Directory => below.join("/"),
    };
    if fam.is_empty() {
        ".".into()
    } else {
        fam
    }
}

/// Each benchmark's weight (looked up once per pair: hashed, not ordered).
pub type Weights = rustc_hash::FxHashMap<String, f64>;

/// Normalised family weights α′_b = α_b / Σ α_b′ with α_b = (1 + ln F_b)/F_b,
/// F_b = benchmarks of b's family in the division (2016 rules §7.3).
/// `benchmarks` maps each benchmark of the division to its family.
pub fn family_weights<K: AsRef<str>, V: AsRef<str>>(benchmarks: &BTreeMap<K, V>) -> Weights {
    let mut size: BTreeMap<&str, u64> = BTreeMap::new();
    for fam in benchmarks.values() {
        *size.entry(fam.as_ref()).or_default() += 1;
    }
    let alpha = |fam: &str| {
        let f = size[fam] as f64;
        (1.0 + f.ln()) / f
    };
    let total: f64 = benchmarks.values().map(|f| alpha(f.as_ref())).sum();
    benchmarks
        .iter()
        .map(|(b, f)| (b.as_ref().to_string(), alpha(f.as_ref()) / total))
        .collect()
}

/// One solver's scored pairs in a division, for one mode.
pub struct SolverPairs<'a> {
    /// Solver (data name).
    pub solver: &'a str,
    /// (benchmark, score) per pair.
    pub pairs: Vec<(&'a str, PairScore)>,
    /// Gap to the virtual best, summed over the pairs.
    pub gap_to_best: u64,
}

/// The weighted sums of one solver (rank not yet set).
pub fn solver_sums(
    sp: &SolverPairs<'_>,
    weights: Option<&Weights>,
    scale: f64,
    participants: &Participants,
) -> SolverScore {
    let p = participants.get(sp.solver);
    let mut s = SolverScore {
        solver: sp.solver.to_string(),
        display: p.display,
        team: p.team,
        competing: p.competing,
        errors: 0.0,
        correct: 0.0,
        cpu: 0.0,
        wall: 0.0,
        timeouts: 0,
        memouts: 0,
        rank: 0,
        pairs: sp.pairs.len() as u64,
        error_pairs: 0,
        gap_to_best: sp.gap_to_best,
    };
    for (bench, ps) in &sp.pairs {
        let w = weights.map_or(1.0, |m| m[*bench]);
        s.errors += w * scale * f64::from(ps.e);
        s.correct += w * scale * ps.n as f64;
        s.cpu += w * ps.cpu;
        s.wall += w * ps.wall;
        s.timeouts += u64::from(ps.timeout);
        s.memouts += u64::from(ps.memout);
        s.error_pairs += u64::from(ps.e > 0);
    }
    s
}

/// Compare two scores with the edition's precision.
fn cmp_score(a: f64, b: f64, precision: Option<f64>) -> Ordering {
    match precision {
        Some(p) => ((a / p).round() as i64).cmp(&((b / p).round() as i64)),
        None => a.total_cmp(&b),
    }
}

/// The division order (000 §7.3): fewer errors, then more reduction, then
/// less wall time (parallel) or CPU time (sequential), then the other
/// clock. Returns `Equal` only for a complete tie.
pub fn compare(a: &SolverScore, b: &SolverScore, mode: Mode, rules: &Rules) -> Ordering {
    let (a1, a2, b1, b2) = match (mode, rules.rank_time) {
        (Mode::Parallel, _) | (Mode::Sequential, RankTime::Wall) => (a.wall, a.cpu, b.wall, b.cpu),
        (Mode::Sequential, RankTime::ByMode) => (a.cpu, a.wall, b.cpu, b.wall),
    };
    cmp_score(a.errors, b.errors, rules.tie_precision)
        .then(cmp_score(b.correct, a.correct, rules.tie_precision))
        .then(a1.total_cmp(&b1))
        .then(a2.total_cmp(&b2))
}

/// Sort, rank and pick the winner.
pub fn rank(
    mut solvers: Vec<SolverScore>,
    mode: Mode,
    rules: &Rules,
    competitive: bool,
    participants: &Participants,
) -> ModeScore {
    if let Some(margin) = rules.derived_margin {
        super::derived::demote(&mut solvers, mode, margin, participants);
    }
    solvers.sort_by(|a, b| compare(a, b, mode, rules).then_with(|| a.solver.cmp(&b.solver)));
    for i in 0..solvers.len() {
        solvers[i].rank =
            if i > 0 && compare(&solvers[i - 1], &solvers[i], mode, rules) == Ordering::Equal {
                solvers[i - 1].rank
            } else {
                i as u32 + 1
            };
    }
    let winner = solvers
        .iter()
        .find(|s| s.competing)
        .filter(|s| competitive && !(rules.winner_needs_reduction && s.correct <= 0.0))
        .map(|s| s.solver.clone());
    ModeScore { winner, solvers }
}

/// A division is competitive when competing solvers of at least two
/// different teams entered it (000 §7).
pub fn is_competitive<'a>(
    solvers: impl IntoIterator<Item = &'a str>,
    participants: &Participants,
) -> bool {
    let teams: BTreeSet<String> = solvers
        .into_iter()
        .map(|s| participants.get(s))
        .filter(|p| p.competing)
        .map(|p| p.team)
        .collect();
    teams.len() >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::rules::Edition;

    #[test]
    fn families_both_definitions() {
        let b = "QF_LIA/bofill/SMT_random/ex1.smt2";
        assert_eq!(family_of(b, "QF_LIA", FamilyDef::FirstFolder), "bofill");
        assert_eq!(
            family_of(b, "QF_LIA", FamilyDef::Directory),
            "bofill/SMT_random"
        );
        // a space prefix is skipped; a path without the logic uses all folders
        let s = "Space/QF_LIA/a/b/c.smt2";
        assert_eq!(family_of(s, "QF_LIA", FamilyDef::Directory), "a/b");
        assert_eq!(
            family_of("a/b/c.smt2", "QF_UF", FamilyDef::FirstFolder),
            "a"
        );
        assert_eq!(
            family_of("QF_LIA/x.smt2", "QF_LIA", FamilyDef::Directory),
            "."
        );
    }

    #[test]
    fn weights_hand_computed() {
        // family f1 with 1 benchmark, f2 with 3
        let mut m = BTreeMap::new();
        m.insert("a".to_string(), "f1".to_string());
        for b in ["b", "c", "d"] {
            m.insert(b.to_string(), "f2".to_string());
        }
        let w = family_weights(&m);
        // α(f1) = 1, α(f2) = (1 + ln 3)/3 = 0.699537…; Σ = 1 + 3·0.699537 = 3.098612
        let a2 = (1.0 + 3f64.ln()) / 3.0;
        let total = 1.0 + 3.0 * a2;
        assert!((w["a"] - 1.0 / total).abs() < 1e-12);
        assert!((w["b"] - a2 / total).abs() < 1e-12);
        assert!((w.values().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((w["a"] - 0.322725).abs() < 1e-6);
    }

    fn sp<'a>(solver: &'a str, pairs: Vec<(&'a str, u32, u64, f64)>) -> SolverPairs<'a> {
        SolverPairs {
            solver,
            pairs: pairs
                .into_iter()
                .map(|(b, e, n, t)| {
                    (
                        b,
                        PairScore {
                            e,
                            n: n as i64,
                            cpu: t,
                            wall: t,
                            ..PairScore::default()
                        },
                    )
                })
                .collect(),
            gap_to_best: 0,
        }
    }

    #[test]
    fn n_scaling_hand_computed() {
        // two benchmarks, weights 0.25/0.75, N = 2: n-score = 2·(0.25·4 + 0.75·0) = 2
        let mut w = Weights::default();
        w.insert("x".to_string(), 0.25);
        w.insert("y".to_string(), 0.75);
        let s = solver_sums(
            &sp("s", vec![("x", 0, 4, 10.0), ("y", 1, 0, 20.0)]),
            Some(&w),
            2.0,
            &Participants::none(),
        );
        assert!((s.correct - 2.0).abs() < 1e-12);
        assert!((s.errors - 1.5).abs() < 1e-12);
        assert!((s.cpu - 17.5).abs() < 1e-12);
        assert_eq!(s.error_pairs, 1);
    }

    #[test]
    fn ranking_and_ties() {
        let r = Edition::Smtcomp2019.rules();
        let p = Participants::none();
        let mk = |name, pairs| solver_sums(&sp(name, pairs), None, 1.0, &p);
        let solvers = vec![
            mk("err", vec![("x", 1, 0, 1.0)]),
            mk("slow", vec![("x", 0, 5, 9.0)]),
            mk("fast", vec![("x", 0, 5, 3.0)]),
            mk("twin", vec![("x", 0, 5, 3.0)]),
            mk("more", vec![("x", 0, 6, 100.0)]),
        ];
        let m = rank(solvers, Mode::Parallel, &r, true, &Participants::none());
        let order: Vec<(&str, u32)> = m
            .solvers
            .iter()
            .map(|s| (s.solver.as_str(), s.rank))
            .collect();
        assert_eq!(
            order,
            vec![
                ("more", 1),
                ("fast", 2),
                ("twin", 2),
                ("slow", 4),
                ("err", 5)
            ]
        );
        assert_eq!(m.winner.as_deref(), Some("more"));
    }

    #[test]
    fn tie_precision_2016_ignores_thousandths() {
        let r = Edition::Smtcomp2016.rules();
        let p = Participants::none();
        let mut a = solver_sums(&sp("a", vec![("x", 0, 1, 50.0)]), None, 1.0, &p);
        let mut b = solver_sums(&sp("b", vec![("x", 0, 1, 10.0)]), None, 1.0, &p);
        a.correct = 100.001;
        b.correct = 100.002;
        // equal to the hundredth: the faster one wins
        let m = rank(
            vec![a.clone(), b.clone()],
            Mode::Sequential,
            &r,
            true,
            &Participants::none(),
        );
        assert_eq!(m.solvers[0].solver, "b");
        b.cpu = 60.0;
        let m = rank(
            vec![a, b],
            Mode::Sequential,
            &r,
            true,
            &Participants::none(),
        );
        assert_eq!(m.solvers[0].solver, "a");
    }

    #[test]
    fn competitive_needs_two_teams() {
        let p = Participants::parse(
            "solver,team,competing\nA1,T,yes\nA2,T,yes\nB,U,no\nC,V,yes\n",
            "p",
        )
        .unwrap();
        assert!(!is_competitive(["A1", "A2"], &p), "same team");
        assert!(!is_competitive(["A1", "B"], &p), "B is hors concours");
        assert!(is_competitive(["A1", "C"], &p));
        let r = Edition::Smtcomp2019.rules();
        let s = vec![
            solver_sums(&sp("B", vec![("x", 0, 9, 1.0)]), None, 1.0, &p),
            solver_sums(&sp("A1", vec![("x", 0, 0, 1.0)]), None, 1.0, &p),
        ];
        // the hors-concours solver ranks first but cannot win; the best
        // competing one has no reduction, so 2019 declares no winner
        let m = rank(s.clone(), Mode::Parallel, &r, true, &Participants::none());
        assert_eq!(m.solvers[0].solver, "B");
        assert_eq!(m.winner, None);
        let m16 = rank(
            s,
            Mode::Parallel,
            &Edition::Smtcomp2016.rules(),
            true,
            &Participants::none(),
        );
        assert_eq!(m16.winner.as_deref(), Some("A1"));
    }

    #[test]
    fn derived_solvers_must_improve_on_their_base_par2_by_ten_percent_in_2026() {
        let p = Participants::parse(
            "solver,team,competing,derived from\nbase,A,yes,\nnear,B,yes,base\nfar,C,yes,base\n",
            "p",
        )
        .unwrap();
        let mk = |name, n, t| solver_sums(&sp(name, vec![("x", 0, n, t)]), None, 1.0, &p);
        // near: 10 % more reduction but only 5 % less PAR-2 time; far: the
        // base's reduction in exactly 10 % less time
        let solvers = vec![
            mk("base", 100, 100.0),
            mk("near", 110, 95.0),
            mk("far", 100, 90.0),
        ];
        let r26 = Edition::Smtcomp2026.rules();
        let competing =
            |m: &ModeScore, s: &str| m.solvers.iter().find(|x| x.solver == s).unwrap().competing;
        for mode in Mode::BOTH {
            let m = rank(solvers.clone(), mode, &r26, true, &p);
            assert!(competing(&m, "base") && competing(&m, "far"), "{mode:?}");
            assert!(
                !competing(&m, "near"),
                "{mode:?}: the reduction is not the measure"
            );
            // near ranks first but cannot win; far beats base on time
            assert_eq!(m.solvers[0].solver, "near");
            assert_eq!(m.winner.as_deref(), Some("far"), "{mode:?}");
        }
        // the sequential ranking measures CPU time, the parallel one wall time
        let mut slow_cpu = solvers.clone();
        slow_cpu[2].cpu = 95.0;
        let seq = rank(slow_cpu.clone(), Mode::Sequential, &r26, true, &p);
        assert!(!competing(&seq, "far"));
        let par = rank(slow_cpu, Mode::Parallel, &r26, true, &p);
        assert!(competing(&par, "far"));
        let m25 = rank(
            solvers,
            Mode::Parallel,
            &Edition::Smtcomp2025.rules(),
            true,
            &p,
        );
        assert!(competing(&m25, "near") && competing(&m25, "far"));
    }
}
