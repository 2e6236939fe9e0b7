//! Importers: results produced elsewhere, turned into [`PairRecord`]s.
//!
//! - `starexec`: the job CSV of the SMT-COMP archives (StarExec columns plus
//!   the unsat-core post-processor's), already checked, so verdicts are final.
//! - `benchexec`: a BenchExec result XML with its output logs.
//! - `folder`: a plain folder of outputs, `<solver>/<benchmark id>.out`.
//! - `smtcomp`: the results file and benchmark list of the `smtcomp` tool
//!   (SMT-COMP 2024 on), already validated, so verdicts are final.
//!
//! The last two see raw solver output and read it with the same parser as
//! the solve stage ([`crate::answer::parse_output`]). Their unsat cores come out [`Verdict::Unchecked`] with the names kept in
//! `PairRecord::core`, for the check stage to validate. They also take a
//! [`BenchmarkLookup`] for the division and number of named assertions,
//! which only the benchmark file knows.
//!
//! A row an importer cannot understand becomes an [`Issue`] with its file and
//! line, and the import goes on; only an unreadable file or a missing
//! required column is an `Err`.

pub mod answers;
pub mod benchexec;
pub mod folder;
pub mod smtcomp;
pub mod starexec;

use crate::answer::{Answer, ParsedOutput};
use crate::campaign::verdict::pair::{PairRecord, RunStatus, Verdict};
use crate::store::compact::Name;
use std::fmt;
use std::path::PathBuf;

/// A row or file an importer skipped or doubted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// The file.
    pub file: PathBuf,
    /// 1-based line, when it is known.
    pub line: Option<u64>,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file.display(), l, self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// Read every row of a job CSV: `take` gets each readable row with its
/// line and keeps what it makes of it, returning a message when the row is
/// skipped or doubted; that message, or why a row is unreadable, becomes an
/// issue of `path` at that line, and the import goes on.
fn each_row(
    table: &mut crate::store::csv_table::Table<'_>,
    path: &std::path::Path,
    issues: &mut Vec<Issue>,
    mut take: impl FnMut(u64, &csv::StringRecord) -> Option<String>,
) {
    for (line, row) in table.rows() {
        let message = match row {
            Ok(row) => take(line, &row),
            Err(message) => Some(message),
        };
        issues.extend(message.map(|message| Issue {
            file: path.to_path_buf(),
            line: Some(line),
            message,
        }));
    }
}

/// What an import produced.
#[derive(Clone, Debug, Default)]
pub struct Import {
    /// The records, in input order.
    pub pairs: Vec<PairRecord>,
    /// Rows skipped or doubted.
    pub issues: Vec<Issue>,
}

impl Import {
    /// Append another import.
    pub fn extend(&mut self, other: Import) {
        self.pairs.extend(other.pairs);
        self.issues.extend(other.issues);
    }
}

/// An exclusion list (SMT-COMP 2020 `blacklists`): one benchmark path per
/// line, relative to the logic's parent folder (`LIA/family/file.smt2`);
/// blank lines and `#` comments are ignored.
#[derive(Clone, Debug, Default)]
pub struct Exclusions {
    paths: std::collections::BTreeSet<String>,
}

impl Exclusions {
    /// Parse a list.
    pub fn parse(text: &str) -> Self {
        let paths = text
            .lines()
            .map(|l| l.trim().trim_start_matches("./"))
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect();
        Exclusions { paths }
    }

    /// Number of listed paths.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// True when nothing is listed.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Whether a benchmark id is listed: the id itself, or the id with
    /// leading folders dropped (an id that still holds a space or root
    /// folder above the logic).
    pub fn lists(&self, benchmark: &str) -> bool {
        let mut rest = benchmark;
        loop {
            if self.paths.contains(rest) {
                return true;
            }
            match rest.split_once('/') {
                Some((_, tail)) => rest = tail,
                None => return false,
            }
        }
    }
}

impl Import {
    /// Drop the pairs whose benchmark is listed; returns (pairs dropped,
    /// distinct benchmarks dropped).
    pub fn exclude(&mut self, list: &Exclusions) -> (usize, usize) {
        let before = self.pairs.len();
        let mut hit = std::collections::BTreeSet::new();
        self.pairs.retain(|p| {
            let listed = list.lists(&p.benchmark);
            if listed {
                hit.insert(p.benchmark.clone());
            }
            !listed
        });
        (before - self.pairs.len(), hit.len())
    }
}

/// What the benchmark file says about a benchmark id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchmarkInfo {
    /// Division (the logic).
    pub division: String,
    /// A: number of named top-level assertions.
    pub assertions: u64,
}

/// Benchmark id → its info; `None` for a benchmark it does not know.
pub type BenchmarkLookup<'a> = &'a dyn Fn(&str) -> Option<BenchmarkInfo>;

/// The record for one run seen as raw output (BenchExec, plain folder).
pub struct RawRun<'a> {
    /// Solver name.
    pub solver: &'a str,
    /// Benchmark id.
    pub benchmark: &'a str,
    /// The parsed output.
    pub output: ParsedOutput,
    /// How the run ended.
    pub status: RunStatus,
    /// CPU seconds.
    pub cpu: f64,
    /// Wall seconds.
    pub wall: f64,
    /// Peak memory in bytes (0: not measured).
    pub memory: u64,
    /// `file:line` it came from.
    pub origin: String,
}

impl RawRun<'_> {
    /// The unchecked record: `sat` is final, an `unsat` core waits for the
    /// check stage ([`Verdict::Unchecked`]).
    pub fn into_record(self, info: BenchmarkInfo) -> PairRecord {
        let (verdict, core) = match (self.output.answer, self.output.core) {
            (Answer::Sat, _) => (Verdict::SatAnswer, None),
            (Answer::Unsat, Some(core)) => (Verdict::Unchecked, Some(core)),
            (Answer::Unsat, None) => (Verdict::without_core(self.output.core_problem), None),
            (Answer::Unknown, _) => (Verdict::Unknown, None),
            (Answer::Timeout | Answer::Error | Answer::NoAnswer, _) => (Verdict::NoAnswer, None),
        };
        PairRecord {
            solver: self.solver.to_string().into(),
            benchmark: self.benchmark.to_string().into(),
            division: info.division.into(),
            assertions: info.assertions,
            core_size: core.as_ref().map(|c| c.len() as u64),
            verdict,
            status: self.status,
            cpu: self.cpu,
            wall: self.wall,
            memory: self.memory,
            core: core.map(|c| c.into_iter().map(Name::from).collect()),
            origin: Some(self.origin.into()),
            ..PairRecord::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusions_match_below_the_space() {
        let list = Exclusions::parse("# 2020\nLIA/f/a.smt2\n\n./LIA/g/b.smt2\n");
        assert_eq!(list.len(), 2);
        assert!(list.lists("LIA/f/a.smt2"));
        assert!(list.lists("Competition - Unsat Core track/LIA/f/a.smt2"));
        assert!(list.lists("LIA/g/b.smt2"));
        assert!(!list.lists("LIA/f/a.smt2.bak"));
        assert!(!list.lists("QF_LIA/f/a.smt2"));
        assert!(!list.lists("f/a.smt2"));
        let rec = |b: &str| PairRecord {
            benchmark: b.into(),
            ..PairRecord::default()
        };
        let mut import = Import {
            pairs: vec![
                rec("LIA/f/a.smt2"),
                rec("LIA/f/a.smt2"),
                rec("LIA/f/c.smt2"),
            ],
            issues: vec![],
        };
        assert_eq!(import.exclude(&list), (2, 1));
        assert_eq!(import.pairs.len(), 1);
    }

    #[test]
    fn raw_runs_wait_for_the_check_stage() {
        let run = |answer, core| RawRun {
            solver: "s",
            benchmark: "b",
            output: ParsedOutput {
                answer,
                core,
                ..ParsedOutput::default()
            },
            status: RunStatus::Complete,
            cpu: 1.0,
            wall: 1.0,
            memory: 0,
            origin: "f:1".into(),
        };
        let info = BenchmarkInfo {
            division: "QF_UF".into(),
            assertions: 5,
        };
        let r = run(Answer::Unsat, Some(vec!["a".into(), "b".into()])).into_record(info.clone());
        assert_eq!(r.verdict, Verdict::Unchecked);
        assert_eq!(r.core_size, Some(2));
        assert_eq!(r.core.as_ref().unwrap().len(), 2);
        assert_eq!(
            run(Answer::Unsat, None).into_record(info.clone()).verdict,
            Verdict::UnsatNoCore
        );
        assert_eq!(
            run(Answer::Sat, None).into_record(info.clone()).verdict,
            Verdict::SatAnswer
        );
        assert_eq!(
            run(Answer::Error, None).into_record(info).verdict,
            Verdict::NoAnswer
        );
    }
}
