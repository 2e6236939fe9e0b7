//! A campaign's own answers for `coreval score CAMPAIGN --answers PRESET`:
//! every current run record of the solve stage (records of another
//! configuration are never scored, see `campaign::current`) as an
//! [`AnswerRecord`], with the benchmark's declared status as the expected
//! answer.

use super::{Answer, AnswerRecord};
use crate::answer::Answer as Said;
use crate::campaign::ledger::records::RunRecord;
use crate::campaign::ledger::Loaded;
use anyhow::Result;

/// The answers of the campaign's solvers, in journal order.
pub fn answers(l: &Loaded) -> Result<Vec<AnswerRecord>> {
    let runs = crate::campaign::ledger::current::runs(l)?;
    Ok(runs.iter().filter_map(|r| record(l, r)).collect())
}

/// One run as an answer (`None`: its benchmark is no longer named).
fn record(l: &Loaded, r: &RunRecord) -> Option<AnswerRecord> {
    let b = l.bench(&r.benchmark)?;
    let answer = match r.answer {
        Said::Sat => Answer::Sat,
        Said::Unsat => Answer::Unsat,
        Said::Unknown => Answer::Unknown,
        Said::Timeout | Said::Error | Said::NoAnswer => Answer::None,
    };
    Some(AnswerRecord {
        solver: r.solver.clone(),
        benchmark: r.benchmark.clone(),
        logic: b.logic.to_string(),
        answer,
        expected: b
            .status
            .as_deref()
            .map(Answer::parse)
            .filter(|a| a.decided()),
        status: r.status(),
        cpu: r.cpu,
        wall: r.wall,
        origin: Some(format!("runs.jsonl: {} on {}", r.solver, r.benchmark)),
    })
}
