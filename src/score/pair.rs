//! One pair's score ⟨e, n, w, c⟩ in one mode (RULES.md §3–5): what the
//! verdict is worth under an edition, then the time accounting that decides
//! whether the answer counts at all. Pure functions over a [`PairRecord`].

use super::rules::{MissingCore, Rules, StatusMismatch, TimeAccounting, TimeoutCount};
use crate::campaign::verdict::pair::{Contradiction, PairRecord, RunStatus, Verdict};
use serde::Serialize;

/// Sequential (virtual CPU limit, ranked by CPU time) or parallel (raw
/// score, ranked by wall time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// CPU limit T, ranked by CPU time.
    Sequential,
    /// Wall-clock limit T, ranked by wall time.
    Parallel,
}

impl Mode {
    /// Both modes, sequential first (the order of the published tables).
    pub const BOTH: [Mode; 2] = [Mode::Sequential, Mode::Parallel];

    /// `sequential` or `parallel`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sequential => "sequential",
            Mode::Parallel => "parallel",
        }
    }
}

/// One pair's score in one mode, before any weighting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PairScore {
    /// e: 1 for an erroneous result, else 0.
    pub e: u32,
    /// n: the reduction A − |core| of a validated core, else 0. Negative
    /// only under an edition that kept negative reductions (2024).
    pub n: i64,
    /// c: CPU seconds after the edition's time accounting.
    pub cpu: f64,
    /// w: wall-clock seconds after the edition's time accounting.
    pub wall: f64,
    /// Counted as a timeout (status timeout, or over the limit in this mode).
    pub timeout: bool,
    /// The run hit the memory limit.
    pub memout: bool,
    /// The answer was discarded: over the limit in this mode, or the run did
    /// not end by itself and the edition scores only complete runs.
    pub discarded: bool,
}

impl PairScore {
    /// The reduction as a gain: n, or 0 when negative (virtual best,
    /// recognitions).
    pub fn gain(&self) -> u64 {
        self.n.max(0) as u64
    }
}

/// A − |core|, signed: negative when the data's assertion count is smaller
/// than the core (bad counts in a benchmark list).
pub fn signed_reduction(rec: &PairRecord) -> i64 {
    let core = rec.core_size.unwrap_or(rec.assertions);
    rec.assertions as i64 - core as i64
}

/// The verdict's worth (e, n) when the answer counts. `verdict` may differ
/// from `rec.verdict` when the edition re-judged the checkers' tally.
///
/// A contradiction ([`Contradiction`]) never earns more than the clean
/// answer: no reduction in any edition, an error stays an error; and
/// contradictory output (two answers, two cores) is itself an error under
/// the editions that count ill-formed output as one (2016–2019 presets).
pub fn verdict_worth(rec: &PairRecord, verdict: &Verdict, rules: &Rules) -> (u32, i64) {
    let (e, n) = clean_worth(rec, verdict, rules);
    match rec.contradiction {
        None => (e, n),
        Some(Contradiction::Output) => (e.max(u32::from(rules.ill_formed_is_error)), 0),
        Some(Contradiction::FailedAfterAnswer) => (e, 0),
    }
}

fn clean_worth(rec: &PairRecord, verdict: &Verdict, rules: &Rules) -> (u32, i64) {
    if rules.status_mismatch == StatusMismatch::NoScore {
        let answer = match verdict {
            Verdict::SatAnswer | Verdict::SatUnconfirmed => Some("sat"),
            Verdict::Unknown | Verdict::NoAnswer => None,
            _ => Some("unsat"),
        };
        if let (Some(a), Some(x)) = (answer, rec.expected.as_deref()) {
            if a != x {
                return (0, 0);
            }
        }
    }
    match verdict {
        Verdict::Validated => {
            let n = signed_reduction(rec);
            (
                0,
                if rules.negative_reductions {
                    n
                } else {
                    n.max(0)
                },
            )
        }
        Verdict::Refuted | Verdict::SatAnswer => (1, 0),
        Verdict::IllFormed { .. } => (u32::from(rules.ill_formed_is_error), 0),
        Verdict::UnsatNoCore => match rules.missing_core {
            MissingCore::Error => (1, 0),
            MissingCore::NoScore => (0, 0),
        },
        // A `sat` with no evidence against it is no error (flagged instead).
        Verdict::SatUnconfirmed
        | Verdict::NotValidated
        | Verdict::Unchecked
        | Verdict::Unknown
        | Verdict::NoAnswer => (0, 0),
    }
}

/// Score one pair in one mode.
pub fn score_pair(rec: &PairRecord, verdict: &Verdict, rules: &Rules, mode: Mode) -> PairScore {
    let t = rules.time_limit;
    let memout = rec.status == RunStatus::Memout;
    let mut s = PairScore {
        cpu: rec.cpu,
        wall: rec.wall,
        timeout: rec.status == RunStatus::Timeout,
        memout,
        ..PairScore::default()
    };
    match rules.time_accounting {
        TimeAccounting::Penalty => {
            if memout {
                s.cpu = t;
                s.wall = t;
            }
            let clock = match mode {
                Mode::Sequential => s.cpu,
                Mode::Parallel => s.wall,
            };
            if clock > t {
                s.cpu = t;
                s.wall = t;
                s.timeout = true;
                s.discarded = true;
            }
        }
        TimeAccounting::Clamp => {
            if mode == Mode::Sequential && s.cpu > t {
                s.cpu = t;
                s.timeout = true;
                s.discarded = true;
            }
        }
        TimeAccounting::SolvedOnly | TimeAccounting::Par2 => {
            if s.wall > t || (mode == Mode::Sequential && s.cpu > t) {
                s.discarded = true;
            }
        }
    }
    if rules.answer_needs_complete_run && rec.status != RunStatus::Complete {
        s.discarded = true;
    }
    if !s.discarded {
        let (e, n) = verdict_worth(rec, verdict, rules);
        s.e = e;
        s.n = n;
    }
    let answered = !s.discarded
        && matches!(
            verdict,
            Verdict::Validated
                | Verdict::NotValidated
                | Verdict::Unchecked
                | Verdict::SatAnswer
                | Verdict::SatUnconfirmed
        );
    match rules.time_accounting {
        TimeAccounting::SolvedOnly if !answered => {
            s.cpu = 0.0;
            s.wall = 0.0;
        }
        TimeAccounting::Par2 if !(answered && s.e == 0) => {
            s.cpu = 2.0 * t;
            s.wall = 2.0 * t;
        }
        _ => {}
    }
    if rules.timeouts == TimeoutCount::WallClock {
        s.timeout = rec.status == RunStatus::Timeout || rec.wall > t;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::verdict::pair::IllFormed;
    use crate::score::rules::Edition;

    fn rec(verdict: Verdict, status: RunStatus, cpu: f64, wall: f64) -> PairRecord {
        PairRecord {
            solver: "s".into(),
            benchmark: "QF_LIA/f/b.smt2".into(),
            division: "QF_LIA".into(),
            assertions: 10,
            core_size: Some(4),
            verdict,
            status,
            cpu,
            wall,
            ..PairRecord::default()
        }
    }

    fn score(r: &PairRecord, e: Edition, m: Mode) -> PairScore {
        score_pair(r, &r.verdict, &e.rules(), m)
    }

    #[test]
    fn reduction_is_assertions_minus_core() {
        let r = rec(Verdict::Validated, RunStatus::Complete, 1.0, 1.0);
        let s = score(&r, Edition::Smtcomp2019, Mode::Parallel);
        assert_eq!((s.e, s.n), (0, 6));
    }

    #[test]
    fn errors_by_edition() {
        let ill = rec(
            Verdict::IllFormed {
                reason: IllFormed::UnknownName,
            },
            RunStatus::Complete,
            1.0,
            1.0,
        );
        assert_eq!(score(&ill, Edition::Smtcomp2016, Mode::Parallel).e, 1);
        assert_eq!(score(&ill, Edition::Smtcomp2019, Mode::Parallel).e, 1);
        let s25 = score(&ill, Edition::Smtcomp2025, Mode::Parallel);
        assert_eq!((s25.e, s25.n), (0, 0));
        for v in [Verdict::Refuted, Verdict::SatAnswer] {
            let r = rec(v, RunStatus::Complete, 1.0, 1.0);
            for e in Edition::ALL {
                assert_eq!(score(&r, e, Mode::Parallel).e, 1);
            }
        }
        let none = rec(Verdict::UnsatNoCore, RunStatus::Complete, 1.0, 1.0);
        assert_eq!(score(&none, Edition::Smtcomp2018, Mode::Parallel).e, 1);
        let s19 = score(&none, Edition::Smtcomp2019, Mode::Parallel);
        assert_eq!((s19.e, s19.n), (0, 0));
        for v in [
            Verdict::Unknown,
            Verdict::NoAnswer,
            Verdict::Unchecked,
            Verdict::NotValidated,
        ] {
            let r = rec(v, RunStatus::Complete, 1.0, 1.0);
            let s = score(&r, Edition::Smtcomp2016, Mode::Parallel);
            assert_eq!((s.e, s.n), (0, 0));
        }
    }

    #[test]
    fn contradictions_never_earn_more_than_a_clean_answer() {
        for e in Edition::ALL {
            for v in [Verdict::Validated, Verdict::Refuted, Verdict::NotValidated] {
                let clean = rec(v.clone(), RunStatus::Complete, 1.0, 1.0);
                let c = score(&clean, e, Mode::Parallel);
                for k in [Contradiction::Output, Contradiction::FailedAfterAnswer] {
                    let r = PairRecord {
                        contradiction: Some(k),
                        ..clean.clone()
                    };
                    let s = score(&r, e, Mode::Parallel);
                    assert_eq!(s.n, 0, "{e:?} {v:?} {k:?}");
                    assert!(s.e >= c.e, "{e:?} {v:?} {k:?}");
                    let want = match k {
                        Contradiction::Output => c.e.max(u32::from(e.rules().ill_formed_is_error)),
                        Contradiction::FailedAfterAnswer => c.e,
                    };
                    assert_eq!(s.e, want, "{e:?} {v:?} {k:?}");
                }
            }
        }
    }

    #[test]
    fn sequential_filter_2016_keeps_wall() {
        // c > T: answer discarded, c = T, w unchanged (2016–2018 program)
        let r = rec(Verdict::Validated, RunStatus::Complete, 3000.0, 900.0);
        let seq = score(&r, Edition::Smtcomp2016, Mode::Sequential);
        assert_eq!((seq.e, seq.n, seq.cpu, seq.wall), (0, 0, 2400.0, 900.0));
        assert!(seq.timeout && seq.discarded);
        // the parallel score is raw: CPU up to 4T counts as measured
        let par = score(&r, Edition::Smtcomp2016, Mode::Parallel);
        assert_eq!((par.n, par.cpu, par.wall), (6, 3000.0, 900.0));
        assert!(!par.timeout);
    }

    #[test]
    fn time_accounting_2019() {
        let r = rec(Verdict::Validated, RunStatus::Complete, 3000.0, 900.0);
        let seq = score(&r, Edition::Smtcomp2019, Mode::Sequential);
        assert_eq!((seq.n, seq.cpu, seq.wall), (0, 2400.0, 2400.0));
        assert!(seq.timeout);
        let par = score(&r, Edition::Smtcomp2019, Mode::Parallel);
        assert_eq!((par.n, par.cpu, par.wall), (6, 3000.0, 900.0));
        // a memout costs T in both clocks and counts as memout, not timeout
        let m = rec(Verdict::NoAnswer, RunStatus::Memout, 10.0, 12.0);
        let s = score(&m, Edition::Smtcomp2019, Mode::Parallel);
        assert_eq!(
            (s.cpu, s.wall, s.memout, s.timeout),
            (2400.0, 2400.0, true, false)
        );
        // a timeout status counts even under the limit; its answer too (2019)
        let t = rec(Verdict::Validated, RunStatus::Timeout, 100.0, 2399.0);
        let s = score(&t, Edition::Smtcomp2019, Mode::Parallel);
        assert!(s.timeout && !s.discarded);
        assert_eq!(s.n, 6);
        // …but not in 2016–2018, which scored complete runs only
        let s = score(&t, Edition::Smtcomp2016, Mode::Parallel);
        assert!(s.discarded);
        assert_eq!(s.n, 0);
    }

    #[test]
    fn limit_2025_is_1200() {
        let r = rec(Verdict::Validated, RunStatus::Complete, 1300.0, 1300.0);
        let s = score(&r, Edition::Smtcomp2025, Mode::Parallel);
        assert!(s.discarded && s.timeout);
        // from 2023 a pair without an answer adds no time
        assert_eq!((s.n, s.cpu, s.wall), (0, 0.0, 0.0));
    }

    #[test]
    fn time_accounting_2023_on() {
        // sequential: CPU over T scores nothing, and is no timeout (wall < T)
        let r = rec(Verdict::Validated, RunStatus::Complete, 1500.0, 500.0);
        let seq = score(&r, Edition::Smtcomp2024, Mode::Sequential);
        assert_eq!(
            (seq.n, seq.cpu, seq.wall, seq.timeout),
            (0, 0.0, 0.0, false)
        );
        let par = score(&r, Edition::Smtcomp2024, Mode::Parallel);
        assert_eq!((par.n, par.cpu, par.wall), (6, 1500.0, 500.0));
        // 2020 (penalty accounting) charges T and counts a timeout
        let s20 = score(&r, Edition::Smtcomp2020, Mode::Sequential);
        assert_eq!((s20.n, s20.cpu, s20.timeout), (0, 1200.0, true));
        // a memout adds no time from 2023, T before
        let m = rec(Verdict::NoAnswer, RunStatus::Memout, 10.0, 12.0);
        let s = score(&m, Edition::Smtcomp2023, Mode::Parallel);
        assert_eq!(
            (s.cpu, s.wall, s.memout, s.timeout),
            (0.0, 0.0, true, false)
        );
        let s = score(&m, Edition::Smtcomp2022, Mode::Parallel);
        assert_eq!((s.cpu, s.wall), (1200.0, 1200.0));
        // an unknown answer adds no time
        let u = rec(Verdict::Unknown, RunStatus::Complete, 7.0, 7.0);
        assert_eq!(score(&u, Edition::Smtcomp2024, Mode::Parallel).wall, 0.0);
    }

    #[test]
    fn negative_reductions_2024_only() {
        let mut r = rec(Verdict::Validated, RunStatus::Complete, 1.0, 1.0);
        r.core_size = Some(13);
        assert_eq!(score(&r, Edition::Smtcomp2024, Mode::Parallel).n, -3);
        assert_eq!(score(&r, Edition::Smtcomp2024, Mode::Parallel).gain(), 0);
        assert_eq!(score(&r, Edition::Smtcomp2023, Mode::Parallel).n, 0);
        assert_eq!(score(&r, Edition::Smtcomp2025, Mode::Parallel).n, 0);
    }

    #[test]
    fn sat_on_an_unsat_benchmark_by_edition() {
        let mut r = rec(Verdict::SatAnswer, RunStatus::Complete, 1.0, 1.0);
        r.expected = Some("unsat".into());
        // the 2019-2023 program: a contradicting answer is no answer
        let s = score(&r, Edition::Smtcomp2020, Mode::Parallel);
        assert_eq!((s.e, s.n), (0, 0));
        // the rules text, and the 2024 tool: an error
        assert_eq!(score(&r, Edition::Smtcomp2018, Mode::Parallel).e, 1);
        assert_eq!(score(&r, Edition::Smtcomp2024, Mode::Parallel).e, 1);
        let mut text = Edition::Smtcomp2020.rules();
        text.status_mismatch = crate::score::rules::StatusMismatch::Error;
        assert_eq!(score_pair(&r, &r.verdict, &text, Mode::Parallel).e, 1);
        // unknown expected status: the program kept the archive's verdict
        r.expected = None;
        assert_eq!(score(&r, Edition::Smtcomp2020, Mode::Parallel).e, 1);
    }

    #[test]
    fn par2_2026() {
        let solved = rec(Verdict::Validated, RunStatus::Complete, 3.0, 4.0);
        let s = score(&solved, Edition::Smtcomp2026, Mode::Parallel);
        assert_eq!((s.n, s.cpu, s.wall), (6, 3.0, 4.0));
        for v in [Verdict::Unknown, Verdict::Refuted, Verdict::NoAnswer] {
            let r = rec(v, RunStatus::Complete, 3.0, 4.0);
            let s = score(&r, Edition::Smtcomp2026, Mode::Parallel);
            assert_eq!((s.cpu, s.wall), (2400.0, 2400.0));
        }
        let slow = rec(Verdict::Validated, RunStatus::Complete, 1300.0, 400.0);
        let s = score(&slow, Edition::Smtcomp2026, Mode::Sequential);
        assert_eq!((s.n, s.cpu), (0, 2400.0));
    }
}
