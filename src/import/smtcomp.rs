//! The data of the `smtcomp` tool that runs SMT-COMP since 2024 (BenchExec
//! underneath): its results file (`results-uc-YYYY.json.gz`,
//! `{"results": [row…]}`, one row per (solver, benchmark) with `track`,
//! `solver`, `file` {`logic`, `family` (folders), `name`}, `result`,
//! `cpu_time`, `wallclock_time`, `nb_answers`) and its benchmark list
//! (`benchmarks-YYYY.json.gz`, `{"non_incremental": [{"file": …,
//! "asserts": A}…], …}`), read plain or gzip-compressed.
//!
//! The results are already validated by the tool, so verdicts are final:
//! `unsat` → `Validated` with a core of `nb_answers` names (the tool turned
//! an `unsat` without a core into `unknown`), `sat` → `SatAnswer`,
//! `unknown` → `Unknown`, `Timeout` → no answer with a timeout,
//! `OutOfMemory` → no answer with a memout, `UnsatCoreNotValidated` (the
//! tool's `Answer.UnsatCoreInvalidated`: no validator said unsat, which the
//! tool scores as an error) → `Refuted`. The record's benchmark id is
//! `<logic>/<family…>/<name>`, its division the logic, A the list's
//! `asserts`, its expected status the list's `sat`/`unsat`, its memory the
//! row's `memory_usage`. Rows of other tracks are counted and skipped; a
//! row whose benchmark is not in the list, or whose result is unknown to
//! this reader, is an [`Issue`]. [`crate::export::smtcomp_json`] writes
//! these files back.

use super::{Import, Issue};
use crate::campaign::verdict::pair::{PairRecord, RunStatus, Verdict};
use crate::store::smtcomp_json::{read_maybe_gz, Benchmarks, Results, Row};
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::path::Path;

/// Import a results file with its benchmark list.
pub fn import_files(results: &Path, benchmarks: &Path) -> Result<Import> {
    let list: Benchmarks = serde_json::from_slice(&read_maybe_gz(benchmarks)?)
        .with_context(|| format!("{}: not a benchmark list", benchmarks.display()))?;
    let rows: Results = serde_json::from_slice(&read_maybe_gz(results)?)
        .with_context(|| format!("{}: not a results file", results.display()))?;
    let listed: HashMap<String, Listed> = list
        .non_incremental
        .into_iter()
        .map(|b| {
            let status = b.status.filter(|s| s == "sat" || s == "unsat");
            (b.file.id(), (b.asserts, status.map(Into::into)))
        })
        .collect();
    Ok(import_rows(rows.results, &listed, results))
}

/// A listed benchmark: its `asserts` and its status when `sat` or `unsat`.
type Listed = (u64, Option<Box<str>>);

fn import_rows(rows: Vec<Row>, listed: &HashMap<String, Listed>, path: &Path) -> Import {
    let mut import = Import::default();
    let issue = |i: usize, message: String| Issue {
        file: path.to_path_buf(),
        line: None,
        message: format!("row {}: {message}", i + 1),
    };
    let mut other_tracks = 0u64;
    for (i, row) in rows.into_iter().enumerate() {
        if row.track.as_deref().is_some_and(|t| t != "UnsatCore") {
            other_tracks += 1;
            continue;
        }
        let id = row.file.id();
        let Some((a, expected)) = listed.get(&id) else {
            import
                .issues
                .push(issue(i, format!("{id} is not in the benchmark list")));
            continue;
        };
        let (verdict, status) = match row.result.as_str() {
            "unsat" => (Verdict::Validated, RunStatus::Complete),
            "sat" => (Verdict::SatAnswer, RunStatus::Complete),
            "unknown" => (Verdict::Unknown, RunStatus::Complete),
            "Timeout" => (Verdict::NoAnswer, RunStatus::Timeout),
            "OutOfMemory" => (Verdict::NoAnswer, RunStatus::Memout),
            "UnsatCoreNotValidated" | "UnsatCoreInvalidated" => {
                (Verdict::Refuted, RunStatus::Complete)
            }
            r => {
                import.issues.push(issue(
                    i,
                    format!("unknown result `{r}` of {} on {id}", row.solver),
                ));
                continue;
            }
        };
        let has_core = matches!(verdict, Verdict::Validated | Verdict::Refuted);
        import.pairs.push(PairRecord {
            solver: row.solver.into(),
            division: row.file.logic.clone().into(),
            benchmark: id.into(),
            assertions: *a,
            core_size: has_core.then_some(row.nb_answers.max(0) as u64),
            verdict,
            status,
            cpu: row.cpu_time,
            wall: row.wallclock_time,
            // Bytes, written as a float by the tool (`134045696.0`).
            memory: row.memory_usage.max(0.0).round() as u64,
            origin: Some(format!("{}:row {}", path.display(), i + 1).into()),
            expected: expected.clone(),
            ..PairRecord::default()
        });
    }
    if other_tracks > 0 {
        import.issues.push(Issue {
            file: path.to_path_buf(),
            line: None,
            message: format!("{other_tracks} rows of other tracks than UnsatCore skipped"),
        });
    }
    import
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_become_final_records() {
        let results = r#"{"results":[
          {"track":"UnsatCore","solver":"s","file":{"logic":"QF_LIA","family":["f","g"],"name":"b.smt2"},
           "result":"unsat","cpu_time":1.5,"wallclock_time":2.0,"memory_usage":1.0,"nb_answers":3},
          {"track":"UnsatCore","solver":"s","file":{"logic":"QF_LIA","family":["f"],"name":"c.smt2"},
           "result":"Timeout","cpu_time":1201,"wallclock_time":1201,"nb_answers":0},
          {"track":"UnsatCore","solver":"s","file":{"logic":"QF_LIA","family":["f"],"name":"x.smt2"},
           "result":"unsat","cpu_time":1,"wallclock_time":1,"nb_answers":1},
          {"track":"UnsatCore","solver":"s","file":{"logic":"QF_LIA","family":["f"],"name":"c.smt2"},
           "result":"weird","cpu_time":1,"wallclock_time":1,"nb_answers":0},
          {"track":"SingleQuery","solver":"s","file":{"logic":"QF_LIA","family":["f"],"name":"c.smt2"},
           "result":"sat","cpu_time":1,"wallclock_time":1,"nb_answers":0},
          {"track":"UnsatCore","solver":"t","file":{"logic":"QF_LIA","family":["f"],"name":"c.smt2"},
           "result":"UnsatCoreNotValidated","cpu_time":1,"wallclock_time":1,"nb_answers":2}]}"#;
        let rows: Results = serde_json::from_str(results).unwrap();
        let listed: HashMap<String, Listed> = [("QF_LIA/f/g/b.smt2", 10), ("QF_LIA/f/c.smt2", 4)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), (v, Some("unsat".into()))))
            .collect();
        let import = import_rows(rows.results, &listed, Path::new("r.json"));
        assert_eq!(import.pairs.len(), 3);
        // The tool's `UnsatCoreNotValidated` is its invalidated core, an error.
        assert_eq!(
            (&import.pairs[2].verdict, import.pairs[2].core_size),
            (&Verdict::Refuted, Some(2))
        );
        let p = &import.pairs[0];
        assert_eq!(
            (p.benchmark.as_ref(), p.division.as_ref()),
            ("QF_LIA/f/g/b.smt2", "QF_LIA")
        );
        assert_eq!(
            (p.assertions, p.core_size, &p.verdict),
            (10, Some(3), &Verdict::Validated)
        );
        assert_eq!((p.memory, p.expected.as_deref()), (1, Some("unsat")));
        assert_eq!(import.pairs[1].status, RunStatus::Timeout);
        assert_eq!(import.pairs[1].core_size, None);
        let issues: Vec<String> = import.issues.iter().map(|i| i.to_string()).collect();
        assert_eq!(issues.len(), 3, "{issues:?}");
        assert!(issues[0].contains("row 3") && issues[0].contains("not in the benchmark list"));
        assert!(issues[1].contains("unknown result `weird`"));
        assert!(issues[2].contains("1 rows of other tracks"));
    }

    #[test]
    fn gzip_and_plain_files_read_alike() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("b.json");
        let text = br#"{"non_incremental":[{"file":{"logic":"QF_UF","family":[],"name":"a.smt2"},"asserts":2}]}"#;
        std::fs::write(&plain, text).unwrap();
        let gz = dir.path().join("b.json.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut enc, text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        assert_eq!(read_maybe_gz(&plain).unwrap(), read_maybe_gz(&gz).unwrap());
    }
}
