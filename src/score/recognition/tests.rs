//! Hand-computed cases for the track-wide recognitions.

use super::*;
use crate::score::result::{ModeScore, SolverScore, VirtualBest};
use crate::score::rules::Edition;

/// (solver, competing, correct, cpu, wall, error_pairs), best first.
type Row = (&'static str, bool, f64, f64, f64, u64);

fn div(
    name: &str,
    benchmarks: u64,
    assertions: u64,
    competitive: bool,
    rows: &[Row],
) -> DivisionScore {
    let solvers: Vec<SolverScore> = rows
        .iter()
        .enumerate()
        .map(
            |(i, &(s, competing, correct, cpu, wall, error_pairs))| SolverScore {
                solver: s.into(),
                display: s.into(),
                team: s.into(),
                competing,
                errors: error_pairs as f64,
                correct,
                cpu,
                wall,
                timeouts: 0,
                memouts: 0,
                rank: i as u32 + 1,
                pairs: benchmarks,
                error_pairs,
                gap_to_best: 0,
            },
        )
        .collect();
    let winner = solvers
        .iter()
        .find(|s| s.competing && competitive)
        .map(|s| s.solver.clone());
    let m = ModeScore { winner, solvers };
    DivisionScore {
        name: name.into(),
        logics: vec![name.into()],
        benchmarks,
        families: 1,
        assertions,
        competitive,
        sequential: m.clone(),
        parallel: m,
        virtual_best: VirtualBest {
            correct: 0,
            benchmarks: Default::default(),
        },
    }
}

fn pv(solver: &'static str, benchmark: &'static str, e: u32, n: u64, t: f64) -> PairView<'static> {
    PairView {
        solver,
        benchmark,
        score: PairScore {
            e,
            n: n as i64,
            cpu: t,
            wall: t,
            ..PairScore::default()
        },
    }
}

#[test]
fn biggest_lead_ratio_and_time_tie_break() {
    let divisions = vec![
        div(
            "D1",
            3,
            10,
            true,
            &[
                ("H", false, 50.0, 1.0, 1.0, 0),
                ("A", true, 9.0, 10.0, 10.0, 0),
                ("B", true, 4.0, 30.0, 30.0, 0),
            ],
        ),
        div(
            "D2",
            3,
            10,
            true,
            &[
                ("C", true, 99.0, 100.0, 100.0, 0),
                ("D", true, 49.0, 1.0, 1.0, 0),
            ],
        ),
        div(
            "D3",
            3,
            10,
            true,
            &[("E", true, 0.0, 1.0, 1.0, 0), ("F", true, 0.0, 2.0, 2.0, 0)],
        ),
        div(
            "D4",
            3,
            10,
            false,
            &[
                ("F", true, 1000.0, 1.0, 1.0, 0),
                ("G", false, 1.0, 1.0, 1.0, 0),
            ],
        ),
    ];
    let lead = biggest_lead(&divisions, Mode::Parallel);
    let got: Vec<(&str, &str, &str)> = lead
        .iter()
        .map(|l| (l.division.as_str(), l.first.as_str(), l.second.as_str()))
        .collect();
    // D1 and D2 both lead by (n₁+1)/(n₂+1) = 2; D1's time ratio 31/11 beats D2's 2/101.
    // H is hors concours; D3's best has no reduction; D4 is not competitive.
    assert_eq!(got, vec![("D1", "A", "B"), ("D2", "C", "D")]);
    assert!((lead[0].score - 2.0).abs() < 1e-12);
    assert!((lead[0].time - 31.0 / 11.0).abs() < 1e-12);
    assert!((lead[1].time - 2.0 / 101.0).abs() < 1e-12);
}

#[test]
fn largest_contribution_hand_computed() {
    let rules = Edition::Smtcomp2019.rules();
    let divisions = vec![
        div("X", 2, 10, true, &[]),
        div("Y", 1, 10, true, &[]),
        div("Z", 1, 10, true, &[]),
    ];
    let pairs = [
        vec![
            pv("A", "b1", 0, 5, 10.0),
            pv("A", "b2", 0, 0, 50.0),
            pv("B", "b1", 0, 5, 20.0),
            pv("B", "b2", 0, 3, 30.0),
            pv("C", "b1", 0, 4, 1.0),
            pv("C", "b2", 0, 2, 40.0),
        ],
        // three competing solvers but one unsound: |S| = 2, not eligible
        vec![
            pv("A", "y", 1, 0, 1.0),
            pv("B", "y", 0, 3, 1.0),
            pv("C", "y", 0, 2, 1.0),
        ],
        vec![
            pv("A", "z", 0, 2, 5.0),
            pv("B", "z", 0, 1, 7.0),
            pv("C", "z", 0, 0, 1.0),
            pv("D", "z", 0, 0, 1.0),
            pv("H", "z", 0, 9, 1.0),
        ],
    ];
    let participants = Participants::parse(
        "solver,team,competing\nA,a,yes\nB,b,yes\nC,c,yes\nD,d,yes\nH,h,no\n",
        "p",
    )
    .unwrap();
    let views = |d: usize| pairs[d].iter().copied();
    let got = largest_contribution(
        &divisions,
        &views,
        Mode::Parallel,
        &rules,
        &participants,
        &|_| true,
    );
    // X: vbs = (5@10) + (3@30) = (8, 40); without B: (5@10) + (2@40) = (7, 50):
    //    impact 1 − 7/8 = 0.125, time 1 − 40/50 = 0.2; A and C: 0 reduction impact.
    // Z: vbs = (2, 5); without A: (1, 7): impact 0.5, time 1 − 5/7.
    // Pairs of eligible divisions: X 2·3 + Z 1·4 = 10 → weights 0.6 and 0.4.
    assert_eq!(got.len(), 2);
    assert_eq!(
        (got[0].division.as_str(), got[0].solver.as_str()),
        ("Z", "A")
    );
    assert!((got[0].score - 0.5 * 0.4).abs() < 1e-12);
    assert!((got[0].time - (1.0 - 5.0 / 7.0) * 0.4).abs() < 1e-12);
    assert_eq!(
        (got[1].division.as_str(), got[1].solver.as_str()),
        ("X", "B")
    );
    assert!((got[1].score - 0.125 * 0.6).abs() < 1e-12);
    assert!((got[1].time - 0.2 * 0.6).abs() < 1e-12);
    assert_eq!(got[1].solvers, 3);
}

#[test]
fn largest_contribution_excludes_two_sound_solvers() {
    let rules = Edition::Smtcomp2019.rules();
    let divisions = vec![div("W", 1, 10, true, &[])];
    let pairs = [vec![pv("A", "w", 0, 3, 1.0), pv("B", "w", 0, 2, 1.0)]];
    assert!(largest_contribution(
        &divisions,
        &|d: usize| pairs[d].iter().copied(),
        Mode::Parallel,
        &rules,
        &Participants::none(),
        &|_| true,
    )
    .is_empty());
}

#[test]
fn divisions_won_counts_competitive_wins() {
    let divisions = vec![
        div(
            "D1",
            1,
            1,
            true,
            &[("A", true, 5.0, 1.0, 1.0, 0), ("B", true, 4.0, 1.0, 1.0, 0)],
        ),
        div(
            "D2",
            1,
            1,
            true,
            &[("C", true, 5.0, 1.0, 1.0, 0), ("A", true, 4.0, 1.0, 1.0, 0)],
        ),
        div(
            "D3",
            1,
            1,
            true,
            &[("A", true, 5.0, 1.0, 1.0, 0), ("C", true, 4.0, 1.0, 1.0, 0)],
        ),
        div("D4", 1, 1, false, &[("C", true, 5.0, 1.0, 1.0, 0)]),
    ];
    let won = divisions_won(&divisions, Mode::Sequential);
    let got: Vec<(&str, u64)> = won.iter().map(|w| (w.solver.as_str(), w.won)).collect();
    assert_eq!(got, vec![("A", 2), ("C", 1)]);
    assert_eq!(won[0].divisions, vec!["D1", "D3"]);
}

#[test]
fn best_overall_2025_hand_computed() {
    let params = Edition::Smtcomp2025.rules().best_overall.unwrap();
    let divisions = vec![
        // A: (50/100)² · log10 100 = 0.5
        div("D1", 5, 100, true, &[("A", true, 50.0, 1.0, 1.0, 0)]),
        // A made an error: −2 · log10 1000 = −6; B: (1000/1000)² · 3 = 3
        div(
            "D2",
            5,
            1000,
            true,
            &[
                ("B", true, 1000.0, 1.0, 1.0, 0),
                ("A", true, 10.0, 1.0, 1.0, 1),
            ],
        ),
        div("D3", 5, 1000, false, &[("A", true, 1000.0, 1.0, 1.0, 0)]),
    ];
    let got = best_overall(&divisions, Mode::Parallel, &params, &|_| true);
    assert_eq!(got[0].solver, "B");
    assert!((got[0].score - 3.0).abs() < 1e-12);
    assert_eq!(got[1].solver, "A");
    assert!((got[1].score - (0.5 - 6.0)).abs() < 1e-12);
    assert_eq!(got[1].divisions, 2);
}

#[test]
fn virtual_best_ignores_errors() {
    let best = virtual_best(vec![
        pv("A", "b", 1, 9, 1.0),
        pv("B", "b", 0, 4, 1.0),
        pv("C", "b", 0, 4, 1.0),
        pv("A", "c", 0, 0, 1.0),
    ]);
    assert_eq!(best["b"], (4, vec!["B", "C"]));
    assert_eq!(best["c"], (0, vec![]));
}
