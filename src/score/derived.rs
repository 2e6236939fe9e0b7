//! SMT-COMP 2026's derived-solver rule (RULES.md §5.5): a solver derived
//! from another (participants column `derived from`) may win a logic or a
//! division only when its PAR-2 score there is at least
//! `Rules::derived_margin` (10 %) lower than its base solver's, and a
//! track-wide recognition (biggest lead, largest contribution, best
//! overall) only when it is so in at least one division. A solver's PAR-2
//! score in a mode is its time score there under the edition's time
//! accounting (`TimeAccounting::Par2`: an unsolved pair costs 2T): the CPU
//! score in the sequential ranking, the wall score in the parallel one.
//!
//! The same comparison over the whole track (the divisions both entered)
//! is reported per derived solver ([`DerivedSolver`], in the report); the unsat-core track
//! has no winner of its own beyond the recognitions. A derived solver
//! whose base entered no division with it is compared nowhere and ranked
//! as usual.

use super::pair::Mode;
use super::participants::Participants;
use super::rules::Rules;
use crate::score::result::{
    DerivedMode, DerivedSolver, DivisionScore, ModeScore, PerMode, SolverScore,
};
use std::collections::{BTreeMap, BTreeSet};

/// A solver's PAR-2 score in `mode`: its CPU score in the sequential
/// ranking, its wall score in the parallel one.
pub fn par2(s: &SolverScore, mode: Mode) -> f64 {
    match mode {
        Mode::Sequential => s.cpu,
        Mode::Parallel => s.wall,
    }
}

/// Whether a PAR-2 score of `derived` improves on `base`'s by at least
/// `margin` (0.10: `derived` ≤ 0.9 · `base`; exactly 10 % counts, up to
/// rounding). A base without time cannot be improved on.
pub fn improves(derived: f64, base: f64, margin: f64) -> bool {
    base > 0.0 && derived <= base * (1.0 - margin) + 1e-9 * base
}

/// In one logic or division ranking: every derived solver whose base is
/// ranked there too and whose PAR-2 score does not improve on the base's
/// by `margin` is shown hors concours (it cannot win there).
pub fn demote(solvers: &mut [SolverScore], mode: Mode, margin: f64, participants: &Participants) {
    let time: BTreeMap<String, f64> = solvers
        .iter()
        .map(|s| (s.solver.clone(), par2(s, mode)))
        .collect();
    for s in solvers.iter_mut() {
        let base = participants.get(&s.solver).derived_from;
        if let Some(b) = base.and_then(|b| time.get(&b).copied()) {
            if !improves(par2(s, mode), b, margin) {
                s.competing = false;
            }
        }
    }
}

fn mode_of(d: &DivisionScore, mode: Mode) -> &ModeScore {
    match mode {
        Mode::Sequential => &d.sequential,
        Mode::Parallel => &d.parallel,
    }
}

/// Every derived solver of the divisions against its base, when the
/// edition has the rule.
pub fn compare(
    divisions: &[DivisionScore],
    rules: &Rules,
    participants: &Participants,
) -> Vec<DerivedSolver> {
    let Some(margin) = rules.derived_margin else {
        return Vec::new();
    };
    let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
    for d in divisions {
        for s in &d.parallel.solvers {
            if let Some(base) = participants.get(&s.solver).derived_from {
                pairs.insert((s.solver.clone(), base));
            }
        }
    }
    let one = |solver: &str, base: &str, mode: Mode| {
        let mut m = DerivedMode::default();
        for d in divisions {
            let ranked = &mode_of(d, mode).solvers;
            let find = |name: &str| ranked.iter().find(|s| s.solver == name);
            let (Some(s), Some(b)) = (find(solver), find(base)) else {
                continue;
            };
            m.par2 += par2(s, mode);
            m.base_par2 += par2(b, mode);
            m.divisions.push(d.name.clone());
            if improves(par2(s, mode), par2(b, mode), margin) {
                m.improves_in.push(d.name.clone());
            }
        }
        m.improvement = (m.base_par2 > 0.0).then(|| 1.0 - m.par2 / m.base_par2);
        m.improves_in_track = improves(m.par2, m.base_par2, margin);
        m.may_win_recognitions = m.divisions.is_empty() || !m.improves_in.is_empty();
        m
    };
    pairs
        .into_iter()
        .map(|(solver, base)| DerivedSolver {
            modes: PerMode {
                sequential: one(&solver, &base, Mode::Sequential),
                parallel: one(&solver, &base, Mode::Parallel),
            },
            solver,
            base,
        })
        .collect()
}

impl DerivedSolver {
    /// The comparison in `mode`.
    pub fn mode(&self, mode: Mode) -> &DerivedMode {
        match mode {
            Mode::Sequential => &self.modes.sequential,
            Mode::Parallel => &self.modes.parallel,
        }
    }
}

/// Whether `solver` may win a track-wide recognition in `mode`: it
/// competes, and is no derived solver that improves on its base in no
/// division.
pub fn may_win_recognitions(
    solver: &str,
    mode: Mode,
    derived: &[DerivedSolver],
    participants: &Participants,
) -> bool {
    participants.get(solver).competing
        && derived
            .iter()
            .filter(|d| d.solver == solver)
            .all(|d| d.mode(mode).may_win_recognitions)
}

/// The warnings the rule gives: per division and mode, a derived solver
/// shown hors concours for not improving on its base's PAR-2 score by the
/// margin; per mode, a derived solver that does so in no division and so
/// cannot win the track-wide recognitions.
pub fn warnings(
    divisions: &[DivisionScore],
    derived: &[DerivedSolver],
    rules: &Rules,
    participants: &Participants,
) -> Vec<String> {
    let Some(margin) = rules.derived_margin else {
        return Vec::new();
    };
    let percent = margin * 100.0;
    let mut out = Vec::new();
    for d in divisions {
        for mode in Mode::BOTH {
            for s in mode_of(d, mode).solvers.iter().filter(|s| !s.competing) {
                let p = participants.get(&s.solver);
                if let (Some(base), true) = (p.derived_from, p.competing) {
                    out.push(format!(
                        "{}: {}: {} is derived from {base} and does not improve on its PAR-2 score by {percent:.0} %: shown hors concours",
                        d.name,
                        mode.name(),
                        s.solver,
                    ));
                }
            }
        }
    }
    for x in derived
        .iter()
        .filter(|x| participants.get(&x.solver).competing)
    {
        for mode in Mode::BOTH {
            if !x.mode(mode).may_win_recognitions {
                out.push(format!(
                    "{}: {} improves on the PAR-2 score of {} by {percent:.0} % in no division: it cannot win the track-wide recognitions",
                    mode.name(),
                    x.solver,
                    x.base
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::result::VirtualBest;
    use crate::score::rules::Edition;

    fn solver(name: &str, correct: f64, cpu: f64, wall: f64) -> SolverScore {
        SolverScore {
            solver: name.into(),
            display: name.into(),
            team: name.into(),
            competing: true,
            errors: 0.0,
            correct,
            cpu,
            wall,
            timeouts: 0,
            memouts: 0,
            rank: 0,
            pairs: 1,
            error_pairs: 0,
            gap_to_best: 0,
        }
    }

    /// A division whose rankings hold `solvers` (cpu = wall) as given.
    fn division(name: &str, solvers: &[(&str, f64)]) -> DivisionScore {
        let m = ModeScore {
            winner: None,
            solvers: solvers.iter().map(|&(s, t)| solver(s, 1.0, t, t)).collect(),
        };
        DivisionScore {
            name: name.into(),
            logics: vec![name.into()],
            benchmarks: 1,
            families: 1,
            assertions: 10,
            competitive: true,
            sequential: m.clone(),
            parallel: m,
            virtual_best: VirtualBest {
                correct: 0,
                benchmarks: Default::default(),
            },
        }
    }

    fn participants() -> Participants {
        Participants::parse(
            "solver,team,competing,derived from\nbase,A,yes,\nfast,B,yes,base\nslow,C,yes,base\nalone,D,yes,gone\n",
            "p",
        )
        .unwrap()
    }

    #[test]
    fn ten_percent_less_par2_is_the_measure() {
        assert!(improves(90.0, 100.0, 0.10), "exactly 10 %");
        assert!(
            improves(1080.0, 1200.0, 0.10),
            "exactly 10 % after rounding"
        );
        assert!(!improves(90.001, 100.0, 0.10));
        assert!(!improves(0.0, 0.0, 0.10), "no time to improve on");
        // the mode's own clock
        let s = solver("s", 0.0, 3.0, 4.0);
        assert_eq!(
            (par2(&s, Mode::Sequential), par2(&s, Mode::Parallel)),
            (3.0, 4.0)
        );
    }

    #[test]
    fn per_division_over_the_track_and_for_the_recognitions() {
        let divisions = vec![
            // fast: 50 % better; slow: 5 %
            division("X", &[("base", 100.0), ("fast", 50.0), ("slow", 95.0)]),
            // neither improves; `alone`'s base is in no division
            division(
                "Y",
                &[
                    ("base", 100.0),
                    ("fast", 100.0),
                    ("slow", 100.0),
                    ("alone", 1.0),
                ],
            ),
            // fast without its base: not compared here
            division("Z", &[("fast", 7.0)]),
        ];
        let p = participants();
        let r26 = Edition::Smtcomp2026.rules();
        let got = compare(&divisions, &r26, &p);
        let names: Vec<(&str, &str)> = got
            .iter()
            .map(|d| (d.solver.as_str(), d.base.as_str()))
            .collect();
        assert_eq!(
            names,
            [("alone", "gone"), ("fast", "base"), ("slow", "base")]
        );
        for mode in Mode::BOTH {
            let fast = got[1].mode(mode);
            assert_eq!(fast.divisions, ["X", "Y"]);
            assert_eq!(fast.improves_in, ["X"]);
            // 150 against 200 over the divisions both entered: 25 % better
            assert_eq!((fast.par2, fast.base_par2), (150.0, 200.0));
            assert_eq!(fast.improvement, Some(0.25));
            assert!(fast.improves_in_track && fast.may_win_recognitions);
            let slow = got[2].mode(mode);
            assert!(slow.improves_in.is_empty() && !slow.improves_in_track);
            assert!(!slow.may_win_recognitions);
            let alone = got[0].mode(mode);
            assert!(alone.divisions.is_empty() && alone.may_win_recognitions);
            assert!(may_win_recognitions("fast", mode, &got, &p));
            assert!(!may_win_recognitions("slow", mode, &got, &p));
            assert!(may_win_recognitions("base", mode, &got, &p));
        }
        let warned = warnings(&divisions, &got, &r26, &p);
        assert!(warned
            .iter()
            .any(|w| w.starts_with("parallel: slow improves") && w.contains("in no division")));
        assert!(!warned.iter().any(|w| w.contains("fast improves")));
        // without the rule nothing is compared or said
        let r25 = Edition::Smtcomp2025.rules();
        assert!(compare(&divisions, &r25, &p).is_empty());
        assert!(warnings(&divisions, &got, &r25, &p).is_empty());
    }

    #[test]
    fn demotion_needs_the_base_in_the_same_ranking() {
        let p = participants();
        let mut x = vec![
            solver("base", 5.0, 100.0, 100.0),
            solver("fast", 5.0, 100.0, 50.0),
        ];
        demote(&mut x, Mode::Sequential, 0.10, &p);
        assert!(!x[1].competing, "sequential: CPU time, not 10 % better");
        let mut x = vec![solver("fast", 5.0, 100.0, 100.0)];
        demote(&mut x, Mode::Parallel, 0.10, &p);
        assert!(x[0].competing, "no base here");
    }
}
