//! `coreval score --smtcomp-json DIR`: the scored pairs as the `smtcomp`
//! tool's own files, `DIR/results-uc-YYYY.json.gz` (`defs.Results`, one
//! row per pair) and `DIR/benchmarks-YYYY.json.gz` (`defs.Benchmarks`, one
//! entry per benchmark of the pairs), gzip-compressed JSON laid out as the
//! tool writes it (the serde types of [`crate::store::smtcomp_json`], the
//! same the importer reads: [`crate::import::smtcomp`] is this file's
//! inverse). YYYY is the rules edition's year.
//!
//! Each pair's `result` is what makes the tool score it as coreval did
//! ([`Outcome`]): a validated core `unsat` with `nb_answers` its size; an
//! error `UnsatCoreNotValidated` (the tool's invalidated core) or, for a
//! `sat` on an unsat benchmark, `sat`; `Timeout`, `OutOfMemory`; every
//! pair that scores neither points nor an error `unknown` with
//! `nb_answers` 0, as the tool writes rows without a core.

use super::{split_id, Outcome, Scored};
use crate::store::smtcomp_json::{Bench, Benchmarks, File, Row};
use anyhow::Result;
use rustc_hash::FxHashMap as HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Every `result` this export writes (the tool's `defs.Answer` values of
/// the unsat-core track).
pub const RESULTS: [&str; 6] = [
    "unsat",
    "sat",
    "unknown",
    "Timeout",
    "OutOfMemory",
    "UnsatCoreNotValidated",
];

/// The tool's `result` of a pair that counted as `o`.
pub fn result_of(o: Outcome) -> &'static str {
    match o {
        Outcome::Solved => "unsat",
        Outcome::WrongSat => "sat",
        Outcome::Wrong => "UnsatCoreNotValidated",
        Outcome::Timeout => "Timeout",
        Outcome::Memout => "OutOfMemory",
        Outcome::Nothing => "unknown",
    }
}

/// The two files of edition year `year` in `dir`: results, benchmarks.
pub fn paths(dir: &Path, year: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("results-uc-{year}.json.gz")),
        dir.join(format!("benchmarks-{year}.json.gz")),
    )
}

/// What [`write`] wrote.
#[derive(Debug)]
pub struct Written {
    pub results: PathBuf,
    pub benchmarks: PathBuf,
    /// Result rows (one per pair).
    pub rows: usize,
    /// Benchmark entries.
    pub listed: usize,
    /// Benchmark ids that became the same file as an earlier id (they
    /// differed only in folders above the logic folder): the first is
    /// listed.
    pub merged: usize,
}

/// Write both files into `dir` (made if missing), each atomically.
pub fn write(dir: &Path, s: &Scored) -> Result<Written> {
    let (results, benchmarks) = paths(dir, s.year());
    let file = |id: &str, division: &str| {
        let (family, name) = split_id(id, division);
        File {
            incremental: false,
            logic: division.to_string(),
            family,
            name,
        }
    };
    gz_atomic(&results, |w| {
        w.write_all(b"{\"results\":[")?;
        for (i, rec) in s.pairs.iter().enumerate() {
            let outcome = s.outcome(rec);
            let nb_answers = match outcome {
                Outcome::Solved | Outcome::Wrong => rec.core_size.unwrap_or(0) as i64,
                _ => 0,
            };
            let row = Row {
                track: Some("UnsatCore".into()),
                solver: rec.solver.to_string(),
                file: file(&rec.benchmark, &rec.division),
                result: result_of(outcome).into(),
                cpu_time: rec.cpu,
                wallclock_time: rec.wall,
                memory_usage: rec.memory as f64,
                nb_answers,
            };
            if i > 0 {
                w.write_all(b",")?;
            }
            serde_json::to_writer(&mut *w, &row)?;
        }
        w.write_all(b"]}")
    })?;
    // One entry per file, in the order the pairs first name it.
    let mut seen: HashMap<String, &str> = HashMap::default();
    let mut list = Benchmarks {
        incremental: Vec::new(),
        non_incremental: Vec::new(),
    };
    let mut merged = 0;
    for rec in s.pairs {
        let f = file(&rec.benchmark, &rec.division);
        match seen.get(f.id().as_str()) {
            Some(first) => merged += usize::from(*first != &*rec.benchmark),
            None => {
                seen.insert(f.id(), &rec.benchmark);
                let status = (s.status)(rec).filter(|x| x == "sat" || x == "unsat");
                list.non_incremental.push(Bench {
                    file: f,
                    status: Some(status.unwrap_or_else(|| "unknown".into())),
                    asserts: rec.assertions,
                });
            }
        }
    }
    gz_atomic(&benchmarks, |w| {
        serde_json::to_writer(&mut *w, &list)?;
        Ok(())
    })?;
    Ok(Written {
        results,
        benchmarks,
        rows: s.pairs.len(),
        listed: list.non_incremental.len(),
        merged,
    })
}

/// `path` written atomically, gzip-compressed, from what `fill` writes.
fn gz_atomic(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    crate::store::journal::write_atomic_with(path, |w| {
        let mut gz = flate2::write::GzEncoder::new(w, flate2::Compression::default());
        fill(&mut gz)?;
        gz.finish()?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::verdict::pair::{PairRecord, RunStatus, Verdict};
    use crate::store::smtcomp_json::{read_benchmarks, read_results};

    #[test]
    fn rows_and_list_read_back_with_the_tools_values() {
        let rec = |b: &str, verdict: Verdict, status: RunStatus| PairRecord {
            solver: "s".into(),
            benchmark: b.into(),
            division: "QF_UF".into(),
            assertions: 5,
            core_size: Some(2),
            verdict,
            status,
            cpu: 1.5,
            wall: 2.25,
            memory: 4096,
            ..PairRecord::default()
        };
        let pairs = [
            rec("QF_UF/f/a.smt2", Verdict::Validated, RunStatus::Complete),
            rec("QF_UF/f/b.smt2", Verdict::Refuted, RunStatus::Complete),
            rec("QF_UF/f/a.smt2", Verdict::NoAnswer, RunStatus::Timeout),
            rec(
                "x/QF_UF/f/a.smt2",
                Verdict::NotValidated,
                RunStatus::Complete,
            ),
        ];
        let refs: Vec<&PairRecord> = pairs.iter().collect();
        let rules = crate::score::rules::Edition::Smtcomp2025.rules();
        let status = |r: &PairRecord| r.benchmark.ends_with("b.smt2").then(|| "unsat".into());
        let dir = tempfile::tempdir().unwrap();
        let w = write(
            dir.path(),
            &Scored {
                pairs: &refs,
                rules: &rules,
                rejudge: false,
                status: &status,
                facts: None,
                name: "t",
            },
        )
        .unwrap();
        assert!(w.results.ends_with("results-uc-2025.json.gz"));
        assert_eq!((w.rows, w.listed, w.merged), (4, 2, 1));
        let rows = read_results(&w.results).unwrap().results;
        let got: Vec<(&str, i64)> = rows
            .iter()
            .map(|r| (r.result.as_str(), r.nb_answers))
            .collect();
        assert_eq!(
            got,
            [
                ("unsat", 2),
                ("UnsatCoreNotValidated", 2),
                ("Timeout", 0),
                ("unknown", 0)
            ]
        );
        assert_eq!(
            (rows[0].memory_usage, rows[0].file.id()),
            (4096.0, "QF_UF/f/a.smt2".into())
        );
        let list = read_benchmarks(&w.benchmarks).unwrap().non_incremental;
        let status: Vec<_> = list.iter().map(|b| b.status.as_deref()).collect();
        assert_eq!(status, [Some("unknown"), Some("unsat")]);
    }
}
