//! Each answer preset against an example computed by hand from its rules
//! text (docs/RULES.md §11 names the texts).

use super::*;
use crate::score::result::DivisionScore;

fn rec(solver: &str, bench: &str, answer: Answer, expected: Option<Answer>) -> AnswerRecord {
    AnswerRecord {
        solver: solver.into(),
        benchmark: format!("QF_LIA/{bench}.smt2"),
        logic: "QF_LIA".into(),
        answer,
        expected,
        status: RunStatus::Complete,
        cpu: 1.0,
        wall: 1.0,
        origin: None,
    }
}

fn timed(mut r: AnswerRecord, status: RunStatus, cpu: f64, wall: f64) -> AnswerRecord {
    r.status = status;
    r.cpu = cpu;
    r.wall = wall;
    r
}

fn score(records: &[AnswerRecord], preset: &str) -> AnswerReport {
    let p = AnswerPreset::parse(preset).unwrap();
    score_answers(records, p, &p.rules(), ScoreOptions::default())
}

fn row<'a>(d: &'a DivisionScore, mode: Mode, solver: &str) -> &'a SolverScore {
    let m = match mode {
        Mode::Sequential => &d.sequential,
        Mode::Parallel => &d.parallel,
    };
    m.solvers.iter().find(|s| s.solver == solver).unwrap()
}

const SAT: Option<Answer> = Some(Answer::Sat);
const UNSAT: Option<Answer> = Some(Answer::Unsat);
use Answer::{None as NoAnswer, Sat, Unknown, Unsat};

#[test]
fn smtcomp_2005_points_and_penalties() {
    // Fig. 1: +1 per correct answer, −8 per wrong unsat, −4 per wrong sat,
    // 0 for unknown and timeout; ties: lower average CPU time on the
    // formulas that did not time out.
    let b = [("b1", SAT), ("b2", UNSAT), ("b3", SAT), ("b4", UNSAT)];
    let mut rs = Vec::new();
    // A: 3 correct, a wrong unsat: 3 − 8 = −5
    for (i, a) in [Sat, Unsat, Unsat, Unsat].into_iter().enumerate() {
        rs.push(rec("A", b[i].0, a, b[i].1));
    }
    // B: 2 correct, a wrong sat, an unknown: 2 − 4 = −2
    for (i, a) in [Sat, Sat, Sat, Unknown].into_iter().enumerate() {
        rs.push(rec("B", b[i].0, a, b[i].1));
    }
    // C: 2 correct (10 s each), unknown (5 s), a timeout: 2 points, average
    // CPU (10 + 10 + 5) / 3
    for (i, (a, cpu)) in [(Sat, 10.0), (Unsat, 10.0), (Unknown, 5.0)]
        .into_iter()
        .enumerate()
    {
        rs.push(timed(
            rec("C", b[i].0, a, b[i].1),
            RunStatus::Complete,
            cpu,
            cpu,
        ));
    }
    rs.push(timed(
        rec("C", "b4", NoAnswer, UNSAT),
        RunStatus::Timeout,
        300.0,
        300.0,
    ));
    // D: 2 correct (2 s each), two crashes (1 s): 2 points, average 1.5 s
    for (i, (a, cpu)) in [(Sat, 2.0), (Unsat, 2.0), (NoAnswer, 1.0), (NoAnswer, 1.0)]
        .into_iter()
        .enumerate()
    {
        rs.push(timed(
            rec("D", b[i].0, a, b[i].1),
            RunStatus::Complete,
            cpu,
            cpu,
        ));
    }
    let r = score(&rs, "smtcomp-2005");
    assert_eq!(r.report.edition, "smtcomp-2005");
    let d = &r.report.divisions[0];
    let order: Vec<(&str, u32)> = d
        .parallel
        .solvers
        .iter()
        .map(|s| (s.solver.as_str(), s.rank))
        .collect();
    assert_eq!(order, [("D", 1), ("C", 2), ("B", 3), ("A", 4)]);
    let points = |s: &str| {
        let x = row(d, Mode::Parallel, s);
        (x.correct, x.errors)
    };
    assert_eq!(points("A"), (3.0, 8.0));
    assert_eq!(points("B"), (2.0, 4.0));
    assert_eq!(points("C"), (2.0, 0.0));
    assert_eq!(row(d, Mode::Parallel, "C").timeouts, 1);
    assert_eq!(
        r.solved[&("QF_LIA".into(), Mode::Parallel, "A".into())],
        (1, 2)
    );
}

#[test]
fn main_track_weights_and_sequential_limit() {
    // 2015–2018 report §7.1: α_b = (1 + ln F_b)/F_b, α′ normalised over the
    // division, score Σ α′·⟨e·N, n·N, w, c⟩; family f1 has 3 benchmarks, f2 one.
    let rs = vec![
        rec("s", "f1/a", Sat, SAT),
        rec("s", "f1/b", Unsat, UNSAT),
        rec("s", "f1/c", Sat, UNSAT),
        timed(
            rec("s", "f2/d", Unsat, UNSAT),
            RunStatus::Complete,
            3000.0,
            900.0,
        ),
    ];
    let a1 = (1.0 + 3f64.ln()) / 3.0;
    let total = 3.0 * a1 + 1.0;
    let n = 4.0;
    let r = score(&rs, "main-2016");
    let d = &r.report.divisions[0];
    let par = row(d, Mode::Parallel, "s");
    assert!(
        (par.correct - n * (2.0 * a1 + 1.0) / total).abs() < 1e-9,
        "{}",
        par.correct
    );
    assert!((par.errors - n * a1 / total).abs() < 1e-9, "{}", par.errors);
    // sequential: f2/d used 3000 s of CPU > T = 2400: it counts nothing
    let seq = row(d, Mode::Sequential, "s");
    assert!(
        (seq.correct - n * (2.0 * a1) / total).abs() < 1e-9,
        "{}",
        seq.correct
    );
    // 2015: no weights, plain counts
    let r15 = score(&rs, "main-2015");
    let p15 = row(&r15.report.divisions[0], Mode::Parallel, "s");
    assert_eq!((p15.errors, p15.correct), (1.0, 3.0));
    // 2015 and 2016 used known-status benchmarks only; 2017 counts the rest
    let unknown = vec![rec("s", "f3/e", Sat, None)];
    assert!(score(&unknown, "main-2016").report.divisions.is_empty());
    let r17 = score(&unknown, "main-2017");
    assert_eq!(
        row(&r17.report.divisions[0], Mode::Parallel, "s").correct,
        1.0
    );
}

#[test]
fn single_query_2019_sums_and_penalties() {
    // 2019: plain sums; a timeout or memout adds T to both times; a wrong
    // answer is an error; solved counts split sat/unsat.
    let rs = vec![
        timed(rec("s", "a", Sat, SAT), RunStatus::Complete, 1.0, 1.5),
        timed(rec("s", "b", Unsat, UNSAT), RunStatus::Complete, 2.0, 2.0),
        timed(
            rec("s", "c", NoAnswer, SAT),
            RunStatus::Timeout,
            2500.0,
            2400.5,
        ),
        timed(rec("s", "d", Sat, UNSAT), RunStatus::Complete, 3.0, 3.0),
        timed(rec("s", "e", NoAnswer, UNSAT), RunStatus::Memout, 7.0, 7.0),
    ];
    let r = score(&rs, "sq-2019");
    assert_eq!(r.report.edition, "sq-2019");
    let d = &r.report.divisions[0];
    for mode in Mode::BOTH {
        let s = row(d, mode, "s");
        assert_eq!((s.errors, s.correct), (1.0, 2.0), "{mode:?}");
        assert!(
            (s.cpu - (1.0 + 2.0 + 2400.0 + 3.0 + 2400.0)).abs() < 1e-9,
            "{}",
            s.cpu
        );
        assert!(
            (s.wall - (1.5 + 2.0 + 2400.0 + 3.0 + 2400.0)).abs() < 1e-9,
            "{}",
            s.wall
        );
        assert_eq!((s.timeouts, s.memouts), (1, 1));
        assert_eq!(r.solved[&("QF_LIA".into(), mode, "s".into())], (1, 1));
    }
    let json = r.to_json().unwrap();
    let j = &json["divisions"][0]["parallel"]["solvers"][0];
    assert_eq!((j["sat"].as_u64(), j["unsat"].as_u64()), (Some(1), Some(1)));
    assert_eq!(json["answers_preset"], "sq-2019");
}

#[test]
fn disagreements_on_unknown_status_are_removed() {
    // CHC-COMP 2018 / main track: a benchmark of unknown status is removed
    // when two solvers sound on the known-status benchmarks disagree.
    let mut rs = vec![
        rec("x", "u", Sat, None),
        rec("y", "u", Unsat, None),
        rec("x", "v", Sat, None),
        rec("y", "v", Sat, None),
    ];
    let removed = disagreements(&rs);
    assert_eq!(removed.len(), 1);
    assert!(removed.contains(&("QF_LIA".to_string(), "QF_LIA/u.smt2".to_string())));
    let r = score(&rs, "chccomp-2018");
    let d = &r.report.divisions[0];
    assert_eq!(d.benchmarks, 1);
    assert_eq!(row(d, Mode::Parallel, "x").correct, 1.0);
    assert!(r.report.warnings.iter().any(|w| w.contains("disagree")));
    // y is unsound on a known benchmark: its unsat no longer removes u,
    // and x's sat on u counts
    rs.push(rec("y", "k", Sat, UNSAT));
    assert!(disagreements(&rs).is_empty());
    let r = score(&rs, "chccomp-2018");
    let x = row(&r.report.divisions[0], Mode::Parallel, "x");
    assert!(x.correct > 0.0 && x.errors == 0.0);
    // a response counts even when the run did not end in time (parallel)
    let late = vec![timed(
        rec("z", "w", Unsat, UNSAT),
        RunStatus::Timeout,
        10.0,
        2500.0,
    )];
    let r = score(&late, "chccomp-2018");
    assert_eq!(
        row(&r.report.divisions[0], Mode::Parallel, "z").correct,
        1.0
    );
}
