//! Scoring answers (`sat`/`unsat`), as SMT-COMP's answer tracks and
//! CHC-COMP did, under an [`AnswerPreset`]. Each answer becomes a pair whose
//! worth is n = 1 when correct and e = 1 when wrong, and the core scorer
//! ([`crate::score::score_pairs`]) does the rest: time accounting, weights,
//! sums and rankings. What is particular to answers happens here: the
//! removal of disagreements on benchmarks of unknown status, the 2005
//! points, and the solved `sat`/`unsat` counts of each row.

pub mod campaign;
pub mod presets;

use crate::campaign::verdict::pair::{PairRecord, RunStatus, Verdict};
use crate::score::pair::Mode;
use crate::score::result::{ScoreReport, SolverScore};
use crate::score::rules::Rules;
use crate::score::{score_pairs, ScoreOptions};
pub use presets::AnswerPreset;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// A solver's answer to `check-sat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// `sat`.
    Sat,
    /// `unsat`.
    Unsat,
    /// `unknown`.
    Unknown,
    /// Nothing usable: crash, timeout without answer, garbage.
    None,
}

impl Answer {
    /// Read an answer as the archives write it; anything else is no answer.
    pub fn parse(s: &str) -> Answer {
        match s.trim() {
            "sat" => Answer::Sat,
            "unsat" => Answer::Unsat,
            "unknown" => Answer::Unknown,
            _ => Answer::None,
        }
    }

    fn decided(self) -> bool {
        matches!(self, Answer::Sat | Answer::Unsat)
    }
}

/// One (solver, benchmark) answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerRecord {
    /// Solver name as in the data.
    pub solver: String,
    /// Benchmark id (path below the logic's parent folder).
    pub benchmark: String,
    /// The benchmark's logic.
    pub logic: String,
    /// What the solver answered.
    pub answer: Answer,
    /// The benchmark's known status (`Sat`/`Unsat`), `None` when unknown.
    pub expected: Option<Answer>,
    /// How the run ended.
    pub status: RunStatus,
    /// CPU seconds.
    pub cpu: f64,
    /// Wall-clock seconds.
    pub wall: f64,
    /// `file:line` of the record, for messages.
    pub origin: Option<String>,
}

/// A scored answer report: the core report's divisions and rows (so the
/// Markdown and HTML renderers apply), plus each row's solved `sat` and
/// `unsat`, keyed by (division or logic, mode, solver).
pub struct AnswerReport {
    /// The report in the core track's shape.
    pub report: ScoreReport,
    /// (entry name, mode, solver) → (solved sat, solved unsat).
    pub solved: HashMap<(String, Mode, String), (u64, u64)>,
}

impl AnswerReport {
    /// The JSON report: the core track's fields, plus `answers_preset` and
    /// `sat`/`unsat` on every solver row.
    pub fn to_json(&self) -> serde_json::Result<serde_json::Value> {
        let mut v = serde_json::to_value(&self.report)?;
        v["answers_preset"] = serde_json::Value::String(self.report.edition.clone());
        for list in ["divisions", "logics"] {
            let Some(entries) = v.get_mut(list).and_then(|x| x.as_array_mut()) else {
                continue;
            };
            for entry in entries {
                let name = entry["name"].as_str().unwrap_or_default().to_string();
                for mode in Mode::BOTH {
                    let Some(rows) = entry[mode.name()]["solvers"].as_array_mut() else {
                        continue;
                    };
                    for row in rows {
                        let solver = row["solver"].as_str().unwrap_or_default().to_string();
                        let (sat, unsat) = self
                            .solved
                            .get(&(name.clone(), mode, solver))
                            .copied()
                            .unwrap_or_default();
                        row["sat"] = sat.into();
                        row["unsat"] = unsat.into();
                    }
                }
            }
        }
        Ok(v)
    }
}

/// Benchmarks of unknown status on which two solvers that are sound on the
/// known-status benchmarks of the logic disagree (one `sat`, one `unsat`
/// counted in the same run of the rules): removed before scoring.
pub fn disagreements(records: &[AnswerRecord]) -> BTreeSet<(String, String)> {
    let mut unsound: BTreeSet<(&str, &str)> = BTreeSet::new();
    for r in records {
        if let Some(x) = r.expected {
            if r.answer.decided() && r.answer != x {
                unsound.insert((&r.logic, &r.solver));
            }
        }
    }
    let mut seen: HashMap<(&str, &str), (bool, bool)> = HashMap::new();
    for r in records.iter().filter(|r| r.expected.is_none()) {
        if unsound.contains(&(r.logic.as_str(), r.solver.as_str())) {
            continue;
        }
        let e = seen.entry((&r.logic, &r.benchmark)).or_default();
        match r.answer {
            Answer::Sat => e.0 = true,
            Answer::Unsat => e.1 = true,
            _ => {}
        }
    }
    seen.into_iter()
        .filter(|(_, (s, u))| *s && *u)
        .map(|((l, b), _)| (l.to_string(), b.to_string()))
        .collect()
}

/// The pair the core scorer sees: a correct answer validated with
/// reduction 1 (A = 1, empty core), a wrong one refuted.
fn as_pair(r: &AnswerRecord) -> PairRecord {
    let correct = r.answer.decided() && r.expected.is_none_or(|x| x == r.answer);
    let verdict = match r.answer {
        Answer::Sat | Answer::Unsat if correct => Verdict::Validated,
        Answer::Sat | Answer::Unsat => Verdict::Refuted,
        Answer::Unknown => Verdict::Unknown,
        Answer::None => Verdict::NoAnswer,
    };
    PairRecord {
        solver: r.solver.clone().into(),
        benchmark: r.benchmark.clone().into(),
        division: r.logic.clone().into(),
        assertions: 1,
        core_size: Some(0),
        verdict,
        status: r.status,
        cpu: r.cpu,
        wall: r.wall,
        origin: r.origin.as_deref().map(Box::from),
        ..PairRecord::default()
    }
}

/// Score answers under `preset`, with its [`AnswerPreset::rules`] or those
/// rules changed by the caller (time limit, family).
pub fn score_answers(
    records: &[AnswerRecord],
    preset: AnswerPreset,
    rules: &Rules,
    mut options: ScoreOptions,
) -> AnswerReport {
    let removed = disagreements(records);
    let mut left_unknown = 0usize;
    let kept: Vec<&AnswerRecord> = records
        .iter()
        .filter(|r| !removed.contains(&(r.logic.clone(), r.benchmark.clone())))
        .filter(|r| {
            let keep = r.expected.is_some() || preset.unknown_status_counts();
            left_unknown += usize::from(!keep);
            keep
        })
        .collect();
    if !removed.is_empty() {
        let first = removed.iter().next().map(|(_, b)| b.as_str()).unwrap_or("");
        options.warnings.push(format!(
            "{} benchmark(s) of unknown status removed: sound solvers disagree on them (first: {first})",
            removed.len()
        ));
    }
    if left_unknown > 0 {
        options.warnings.push(format!(
            "{left_unknown} pair(s) on benchmarks of unknown status left out: {} scores known-status benchmarks only",
            preset.name()
        ));
    }
    let pairs: Vec<PairRecord> = kept.iter().map(|r| as_pair(r)).collect();
    let mut report = score_pairs(&pairs, rules, &options);
    report.edition = preset.name();
    let answer_of: HashMap<(&str, &str), Answer> = kept
        .iter()
        .map(|r| ((r.solver.as_str(), r.benchmark.as_str()), r.answer))
        .collect();
    // per entry (division and logic), mode and solver: solved sat/unsat and
    // 2005's penalty points and CPU time of the runs that did not time out
    let mut solved = HashMap::new();
    let mut points: HashMap<(String, Mode, String), (f64, f64, u64)> = HashMap::new();
    for row in &report.pair_rows {
        let answer = answer_of[&(&*row.solver, &*row.benchmark)];
        for mode in Mode::BOTH {
            let s = match mode {
                Mode::Sequential => row.sequential,
                Mode::Parallel => row.parallel,
            };
            let entries = if row.division == row.logic {
                vec![&row.division]
            } else {
                vec![&row.division, &row.logic]
            };
            for entry in entries {
                let key = (entry.to_string(), mode, row.solver.to_string());
                let c: &mut (u64, u64) = solved.entry(key.clone()).or_default();
                if s.n > 0 {
                    match answer {
                        Answer::Sat => c.0 += 1,
                        _ => c.1 += 1,
                    }
                }
                let p = points.entry(key).or_default();
                if s.e > 0 {
                    p.0 += preset.penalty(answer == Answer::Unsat);
                }
                if !s.timeout {
                    p.1 += s.cpu;
                    p.2 += 1;
                }
            }
        }
    }
    if preset.ranks_by_points() {
        let mut entries: Vec<&mut crate::score::result::DivisionScore> =
            report.divisions.iter_mut().collect();
        if let Some(l) = report.logics.as_mut() {
            entries.extend(l.iter_mut());
        }
        for d in entries {
            for mode in Mode::BOTH {
                let m = match mode {
                    Mode::Sequential => &mut d.sequential,
                    Mode::Parallel => &mut d.parallel,
                };
                rank_by_points(&mut m.solvers, &d.name, mode, &points);
                m.winner = m
                    .solvers
                    .iter()
                    .find(|s| s.competing && s.rank == 1 && d.competitive)
                    .map(|s| s.solver.clone());
            }
        }
    }
    AnswerReport { report, solved }
}

/// 2005: errors become penalty points; rank by points (correct − penalty),
/// then by the lower average CPU time on the runs that did not time out.
fn rank_by_points(
    rows: &mut [SolverScore],
    entry: &str,
    mode: Mode,
    points: &HashMap<(String, Mode, String), (f64, f64, u64)>,
) {
    let avg = |s: &SolverScore| {
        let (_, cpu, n) = points
            .get(&(entry.to_string(), mode, s.solver.clone()))
            .copied()
            .unwrap_or_default();
        if n == 0 {
            f64::INFINITY
        } else {
            cpu / n as f64
        }
    };
    for s in rows.iter_mut() {
        s.errors = points
            .get(&(entry.to_string(), mode, s.solver.clone()))
            .map_or(0.0, |p| p.0);
    }
    let key = |s: &SolverScore| (s.correct - s.errors, avg(s));
    rows.sort_by(|a, b| {
        let (pa, ta) = key(a);
        let (pb, tb) = key(b);
        pb.total_cmp(&pa)
            .then(ta.total_cmp(&tb))
            .then(a.solver.cmp(&b.solver))
    });
    let mut prev: Option<(f64, f64)> = None;
    let mut rank = 0;
    for (i, s) in rows.iter_mut().enumerate() {
        let k = key(s);
        if prev != Some(k) {
            rank = i as u32 + 1;
            prev = Some(k);
        }
        s.rank = rank;
    }
}

#[cfg(test)]
mod tests;
