//! Answer-track data for `coreval score --answers`: a StarExec job CSV of
//! SMT-COMP's main or single-query track (StarExec's columns `benchmark`,
//! `solver`, `status`, `cpu time`, `wallclock time`, `result`, `expected`;
//! others ignored), plain or gzipped.
//!
//! Benchmark ids drop the StarExec space (`<space>/<LOGIC>/…` → `<LOGIC>/…`);
//! the logic is the first folder. `expected` = `sat`/`unsat` is the known
//! status; anything else (`starexec-unknown`, `unknown`, `-`) is unknown.
//! Status `complete` / `timeout …` / `memout` as for the core CSVs; another
//! status (pending, run-script errors) is reported with its line and skipped.

use super::Issue;
use crate::campaign::verdict::pair::RunStatus;
use crate::score::answers::{Answer, AnswerRecord};
use crate::store::csv_table::Table;
use anyhow::Result;
use std::collections::HashMap;
use std::path::Path;

/// Records read, and rows skipped.
#[derive(Debug, Default)]
pub struct AnswerImport {
    /// The answers, in input order.
    pub records: Vec<AnswerRecord>,
    /// Rows skipped.
    pub issues: Vec<Issue>,
}

const REQUIRED: &[&str] = &[
    "benchmark",
    "solver",
    "status",
    "cpu time",
    "wallclock time",
    "result",
    "expected",
];

/// Read one StarExec job CSV of an answer track (gzipped or plain).
pub fn starexec_file(path: &Path) -> Result<AnswerImport> {
    let bytes = crate::store::smtcomp_json::read_maybe_gz(path)?;
    let mut table = Table::new(&bytes, path.display())?;
    let mut col: HashMap<&str, usize> = HashMap::new();
    for c in REQUIRED {
        col.insert(c, table.column(&[c], "an answer-track job CSV has it")?);
    }
    let mut out = AnswerImport::default();
    let records = &mut out.records;
    super::each_row(&mut table, path, &mut out.issues, |line, row| match record(
        row, &col, path, line,
    ) {
        Ok(r) => {
            records.push(r);
            None
        }
        Err(m) => Some(m),
    });
    Ok(out)
}

fn record(
    row: &csv::StringRecord,
    col: &HashMap<&str, usize>,
    path: &Path,
    line: u64,
) -> Result<AnswerRecord, String> {
    let get = |c: &str| row.get(col[c]).unwrap_or("").trim();
    let full = get("benchmark");
    let id = full.split_once('/').map_or(full, |(_, rest)| rest);
    let Some((logic, _)) = id.split_once('/') else {
        return Err(format!("benchmark `{full}` is not <space>/<LOGIC>/…"));
    };
    let status = get("status");
    let status = if status == "complete" {
        RunStatus::Complete
    } else if status.starts_with("timeout") {
        RunStatus::Timeout
    } else if status == "memout" {
        RunStatus::Memout
    } else {
        return Err(format!("status `{status}`: not a finished run, skipped"));
    };
    let float = |c: &str| {
        get(c)
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| format!("column `{c}`: `{}` is not a time", get(c)))
    };
    let expected = match Answer::parse(get("expected")) {
        a @ (Answer::Sat | Answer::Unsat) => Some(a),
        _ => None,
    };
    Ok(AnswerRecord {
        solver: get("solver").to_string(),
        benchmark: id.to_string(),
        logic: logic.to_string(),
        answer: Answer::parse(get("result")),
        expected,
        status,
        cpu: float("cpu time")?,
        wall: float("wallclock time")?,
        origin: Some(format!("{}:{line}", path.display())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> AnswerImport {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("job.csv");
        std::fs::write(&p, body).unwrap();
        starexec_file(&p).unwrap()
    }

    #[test]
    fn rows_become_answers() {
        let i = read(
            "pair id,benchmark,solver,status,cpu time,wallclock time,result,expected\n\
             1,Space/QF_S/fam/a.smt2,cvc,complete,1.5,1.4,sat,sat\n\
             2,\"Space/QF_S/fam/b,c.smt2\",cvc,timeout (wallclock),2400.1,2400.2,--,starexec-unknown\n\
             3,Space/QF_S/fam/d.smt2,cvc,run script error,0,0,--,unsat\n",
        );
        assert_eq!(i.records.len(), 2);
        let a = &i.records[0];
        assert_eq!(
            (a.logic.as_str(), a.benchmark.as_str()),
            ("QF_S", "QF_S/fam/a.smt2")
        );
        assert_eq!((a.answer, a.expected), (Answer::Sat, Some(Answer::Sat)));
        let b = &i.records[1];
        assert_eq!(
            (b.answer, b.expected, b.status),
            (Answer::None, None, RunStatus::Timeout)
        );
        assert_eq!(i.issues.len(), 1);
        assert_eq!(i.issues[0].line, Some(4));
    }

    #[test]
    fn a_missing_column_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("job.csv");
        std::fs::write(
            &p,
            "benchmark,solver,status,cpu time,wallclock time,result\n",
        )
        .unwrap();
        let e = starexec_file(&p).unwrap_err().to_string();
        assert!(e.contains("job.csv:1") && e.contains("`expected`"), "{e}");
    }
}
